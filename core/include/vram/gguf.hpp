#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "vram/limits.hpp"

namespace vram::gguf {

/**
 * One ggml tensor type: `block_size` elements stored in `type_size` bytes, so
 * a row of n elements (n a multiple of block_size) takes
 * n / block_size x type_size bytes. Values from ggml's type traits
 * (ggml/src/ggml.c `type_traits`, mirrored in gguf-py's
 * `GGML_QUANT_SIZES`, gguf-py/gguf/constants.py).
 */
struct TypeInfo {
  std::uint32_t id;
  const char* name;
  std::uint32_t block_size;
  std::uint32_t type_size;
};

/** Every type a GGUF file may store; ids 4, 5 and 31-33, 36-38 were removed from ggml. */
const std::vector<TypeInfo>& types();
const TypeInfo* find_type(std::uint32_t id);
const TypeInfo* find_type(std::string_view name);

/** GGUF metadata value types (ggml/docs/gguf.md, gguf_type). */
enum ValueType : std::uint32_t {
  kUint8 = 0,
  kInt8 = 1,
  kUint16 = 2,
  kInt16 = 3,
  kUint32 = 4,
  kInt32 = 5,
  kFloat32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kUint64 = 10,
  kInt64 = 11,
  kFloat64 = 12,
};

/** The bytes one value of a fixed-size metadata type takes; 0 for strings, arrays and unknowns. */
std::uint64_t scalar_size(std::uint32_t type);
/** Every integer and float metadata type (not bool, string or array). */
bool is_number_type(std::uint32_t type);

/** One metadata key-value. Long arrays keep their length and element type, not their items. */
struct KeyValue {
  std::string key;
  std::uint32_t type = 0;        ///< GGUF value type: 0 uint8 ... 8 string, 9 array, 12 float64
  std::uint32_t array_type = 0;  ///< the element type, for arrays
  std::uint64_t array_length = 0;
  bool value_kept = true;  ///< false for arrays longer than Limits::max_kept_array
  nlohmann::json value;    ///< numbers, bools, strings, arrays of them; null when not kept
};

struct TensorInfo {
  std::string name;
  std::vector<std::uint64_t> shape;  ///< ne[0] first, as stored (ggml order)
  std::uint32_t type = 0;
  std::uint64_t offset = 0;  ///< from the start of the data section
  std::uint64_t elements = 0;
  std::uint64_t bytes = 0;  ///< ne[0] / block_size x type_size x ne[1] x ...
};

/** The parsed header of one GGUF file (or one split part). */
struct Header {
  std::uint32_t version = 0;
  std::uint64_t alignment = 32;
  std::vector<KeyValue> metadata;
  std::vector<TensorInfo> tensors;
  std::uint64_t data_offset = 0;  ///< where tensor data begins: the header, padded to alignment
  std::uint64_t data_bytes = 0;   ///< the tensors with their alignment padding

  const KeyValue* find(std::string_view key) const;
};

/**
 * Hard caps: a header within them reads in time and memory linear in its
 * size; one beyond them is an `invalid_gguf` error, not an allocation.
 */
struct Limits {
  std::uint64_t max_header_bytes = limits::kMaxHeaderBytes;  ///< vocabularies run to ~15 MB
  std::uint64_t max_key_values = 1u << 16;
  std::uint64_t max_tensors = limits::kMaxTensors;
  std::uint64_t max_string_bytes = 16u << 20;  ///< chat templates are a few KB
  std::uint64_t max_key_bytes = limits::kMaxNameBytes;
  std::uint64_t max_name_bytes = 63;  ///< llama.cpp's GGML_MAX_NAME - 1
  std::uint64_t max_array_length = 1u << 26;
  std::uint64_t max_kept_array = 4096;  ///< longer arrays (vocabularies) keep their length only
  /** Keys and kept values, 16 bytes each plus their text: what the answer holds. */
  std::uint64_t max_metadata_bytes = limits::kMaxMetadataBytes;
  int max_array_depth = 4;
};

/**
 * Reads a GGUF header (versions 2 and 3, little-endian) from the first bytes
 * of a file: magic "GGUF", version, tensor count, key-value count, the
 * key-values, the tensor infos (spec: ggml/docs/gguf.md). Every length is
 * checked against what remains before it is used.
 *
 * `file_size`, when known (> 0), is the whole file's size: a header running
 * past it, or tensor data past it, is malformed. When the buffer ends before
 * the header does and the file may be longer, throws vram::TruncatedError
 * with the number of bytes needed so far (read a bigger prefix and call
 * again). Anything malformed throws vram::Error("invalid_gguf", field, ...)
 * with field names like "gguf.magic" or "gguf.tensor_infos[12].type".
 */
Header read_header(std::string_view bytes, std::uint64_t file_size = 0, const Limits& limits = {});

}  // namespace vram::gguf
