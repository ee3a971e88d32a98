#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace vram::safetensors {

/** A safetensors dtype and its size in bits (safetensors `Dtype::bitsize`). */
struct DtypeInfo {
  const char* name;
  std::uint32_t bits;
};

const std::vector<DtypeInfo>& dtypes();
const DtypeInfo* find_dtype(std::string_view name);

struct TensorInfo {
  std::string name;
  std::string dtype;
  std::vector<std::uint64_t> shape;
  std::uint64_t begin = 0;  ///< data_offsets, relative to the end of the header
  std::uint64_t end = 0;
  std::uint64_t elements = 0;
  std::uint64_t bytes() const { return end - begin; }
};

struct Header {
  std::uint64_t header_bytes = 0;               ///< 8 + the JSON's length: where the data begins
  std::uint64_t data_bytes = 0;                 ///< the largest end offset
  std::map<std::string, std::string> metadata;  ///< "__metadata__", strings only
  std::vector<TensorInfo> tensors;              ///< in the order of their data
};

struct Limits {
  std::uint64_t max_header_bytes = 100'000'000;  ///< safetensors' own MAX_HEADER_SIZE
  std::uint64_t max_tensors = 1u << 20;
  int max_depth = 4;  ///< {name: {"shape": [..]}} is 3 deep
};

/**
 * Reads a safetensors header: an 8-byte little-endian length N, then N
 * bytes of JSON {name: {dtype, shape, data_offsets: [begin, end]}, ...,
 * "__metadata__": {string: string}} (huggingface/safetensors, format in its
 * README). Checks every tensor: known dtype, shape product x bits / 8 ==
 * end - begin, offsets contiguous from 0 without overlap or hole, and within
 * `file_size` when known (> 0).
 *
 * The JSON's nesting is measured by a linear scan before it is parsed, so a
 * hostile header cannot recurse. A buffer that stops inside the header
 * throws vram::TruncatedError with the bytes needed; anything malformed
 * throws vram::Error("invalid_safetensors", field, ...), field like
 * "safetensors.tensors.model.embed_tokens.weight.shape".
 */
Header read_header(std::string_view bytes, std::uint64_t file_size = 0, const Limits& limits = {});

/** A model.safetensors.index.json: its declared total and which file holds each tensor. */
struct Index {
  double total_size = 0;  ///< metadata.total_size, 0 when absent
  std::map<std::string, std::string> weight_map;
  std::vector<std::string> files;  ///< distinct, in first-seen order
};

/** Throws vram::Error("invalid_index", "index.<field>", ...) on a malformed index. */
Index read_index(const nlohmann::json& index);

}  // namespace vram::safetensors
