#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "vram/limits.hpp"

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

/** Bounds from vram/limits.hpp; tests lower them. */
struct Limits {
  std::uint64_t max_header_bytes = limits::kMaxHeaderBytes;  ///< safetensors' own MAX_HEADER_SIZE
  std::uint64_t max_tensors = limits::kMaxTensors;
  std::uint64_t max_metadata_bytes = limits::kMaxMetadataBytes;  ///< __metadata__ kept
  std::uint64_t max_name_bytes = limits::kMaxNameBytes;          ///< a tensor name or metadata key
  std::uint64_t max_entry_bytes = limits::kMaxEntryBytes;  ///< one tensor's {dtype, shape, ...}
  std::uint64_t max_shards = limits::kMaxShards;           ///< distinct files of an index
  std::uint64_t max_index_bytes = limits::kMaxIndexBytes;
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

/** A model.safetensors.index.json: its declared total and the files its weight_map names. */
struct Index {
  double total_size = 0;           ///< metadata.total_size, 0 when absent
  std::uint64_t tensors = 0;       ///< weight_map entries
  std::vector<std::string> files;  ///< distinct, in first-seen order
};

/**
 * Reads an index's JSON text member by member (never whole), within
 * `limits`: max_index_bytes of text, max_shards distinct files, names of
 * max_name_bytes, metadata of max_metadata_bytes. Throws
 * vram::Error("invalid_index", "index.<field>", ...) on a malformed index,
 * code "too_large" past a limit.
 */
Index read_index(std::string_view text, const Limits& limits = {});

}  // namespace vram::safetensors
