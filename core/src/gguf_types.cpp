// The type tables of GGUF: ggml's tensor types (a block of elements in so
// many bytes) and the metadata value types' sizes. gguf.cpp reads a header
// with them.
#include "vram/gguf.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace vram::gguf {

namespace {

constexpr std::uint32_t kQK_K = 256;

// ggml type traits (ggml/src/ggml.c `type_traits`; gguf-py constants.py
// `GGML_QUANT_SIZES`): {id, name, elements per block, bytes per block}.
const std::vector<TypeInfo> kTypes = {
    {0, "F32", 1, 4},
    {1, "F16", 1, 2},
    {2, "Q4_0", 32, 2 + 16},
    {3, "Q4_1", 32, 2 + 2 + 16},
    {6, "Q5_0", 32, 2 + 4 + 16},
    {7, "Q5_1", 32, 2 + 2 + 4 + 16},
    {8, "Q8_0", 32, 2 + 32},
    {9, "Q8_1", 32, 2 + 2 + 32},
    {10, "Q2_K", kQK_K, 2 + 2 + kQK_K / 16 + kQK_K / 4},
    {11, "Q3_K", kQK_K, 2 + kQK_K / 4 + kQK_K / 8 + 12},
    {12, "Q4_K", kQK_K, 2 + 2 + kQK_K / 2 + 12},
    {13, "Q5_K", kQK_K, 2 + 2 + kQK_K / 2 + kQK_K / 8 + 12},
    {14, "Q6_K", kQK_K, 2 + kQK_K / 2 + kQK_K / 4 + kQK_K / 16},
    {15, "Q8_K", kQK_K, 4 + kQK_K + kQK_K / 8},
    {16, "IQ2_XXS", kQK_K, 2 + kQK_K / 4},
    {17, "IQ2_XS", kQK_K, 2 + kQK_K / 4 + kQK_K / 32},
    {18, "IQ3_XXS", kQK_K, 2 + kQK_K / 4 + kQK_K / 8},
    {19, "IQ1_S", kQK_K, 2 + kQK_K / 8 + kQK_K / 16},
    {20, "IQ4_NL", 32, 2 + 16},
    {21, "IQ3_S", kQK_K, 2 + kQK_K / 4 + kQK_K / 8 + kQK_K / 32 + 4},
    {22, "IQ2_S", kQK_K, 2 + kQK_K / 4 + kQK_K / 16},
    {23, "IQ4_XS", kQK_K, 2 + 2 + kQK_K / 2 + kQK_K / 64},
    {24, "I8", 1, 1},
    {25, "I16", 1, 2},
    {26, "I32", 1, 4},
    {27, "I64", 1, 8},
    {28, "F64", 1, 8},
    {29, "IQ1_M", kQK_K, kQK_K / 8 + kQK_K / 16 + kQK_K / 32},
    {30, "BF16", 1, 2},
    {34, "TQ1_0", kQK_K, 2 + 4 * 13},
    {35, "TQ2_0", kQK_K, 2 + 64},
    {39, "MXFP4", 32, 1 + 16},
    {40, "NVFP4", 64, 4 + 32},
};

}  // namespace

const std::vector<TypeInfo>& types() { return kTypes; }

const TypeInfo* find_type(std::uint32_t id) {
  for (const TypeInfo& t : kTypes) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

const TypeInfo* find_type(std::string_view name) {
  for (const TypeInfo& t : kTypes) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

std::uint64_t scalar_size(std::uint32_t type) {
  switch (type) {
    case kUint8:
    case kInt8:
    case kBool:
      return 1;
    case kUint16:
    case kInt16:
      return 2;
    case kUint32:
    case kInt32:
    case kFloat32:
      return 4;
    case kUint64:
    case kInt64:
    case kFloat64:
      return 8;
    default:
      return 0;
  }
}

bool is_number_type(std::uint32_t type) {
  return scalar_size(type) > 0 && type != kBool;  // every integer and float type
}

}  // namespace vram::gguf
