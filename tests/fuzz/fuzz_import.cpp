// fuzz_import: any bytes as a Hugging Face config.json, estimated twice: on
// its own, and with a card and an engine (the fit search, vLLM's KV budget
// and the decode ceilings read more of the shape), and its concurrency curve. The bytes go in as
// text, so the JSON parser's limits are fuzzed with the importer's checks.

#include <cstddef>
#include <cstdint>
#include <string>

#include "result_check.hpp"
#include "vram/api.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string config(reinterpret_cast<const char*>(data), size);
  vram::fuzz::check_answer(
      vram::call(vram::fuzz::calculator(), "estimate", "{\"config\": " + config + "}"));
  const std::string on_card =
      "{\"gpu\": \"h100-sxm\", \"engine\": \"vllm\", \"context\": 32768, \"config\": " + config +
      "}";
  vram::fuzz::check_answer(vram::call(vram::fuzz::calculator(), "estimate", on_card));
  // The concurrency curve of the same plan: the inverse search and a step per load.
  vram::fuzz::check_answer(vram::call(vram::fuzz::calculator(), "curve", on_card));
  return 0;
}
