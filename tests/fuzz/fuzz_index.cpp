// fuzz_index: any bytes as a model.safetensors.index.json, through the
// core's index reader (vram::safetensors::read_index), which the CLI's
// --index uses. Read twice: with the real limits, and with limits scaled
// down (8 shards, 64-byte names, 4 KiB of metadata, 1 MiB of text) so that
// inputs of the fuzzer's size reach every bound. Either way the answer is
// an index whose files are distinct and within the shard limit, or a named
// vram::Error; any other exception escapes and is a crash.

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "vram/error.hpp"
#include "vram/safetensors.hpp"

namespace {

void check(std::string_view text, const vram::safetensors::Limits& limits) {
  try {
    const vram::safetensors::Index index = vram::safetensors::read_index(text, limits);
    const std::set<std::string> distinct(index.files.begin(), index.files.end());
    if (distinct.size() != index.files.size() || index.files.empty() ||
        index.files.size() > limits.max_shards || index.tensors < index.files.size() ||
        !(index.total_size >= 0 && index.total_size <= 1e16)) {
      __builtin_trap();
    }
  } catch (const vram::Error& e) {
    if (e.code().empty() || e.field().empty() || e.message().id.empty()) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check(text, {});
  vram::safetensors::Limits small;
  small.max_shards = 8;
  small.max_name_bytes = 64;
  small.max_metadata_bytes = 4096;
  small.max_index_bytes = 1 << 20;
  check(text, small);
  return 0;
}
