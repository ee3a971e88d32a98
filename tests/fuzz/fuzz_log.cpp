// fuzz_log: any bytes as an engine's start-up log (vram/engine_log.hpp),
// read on its own and beside a model and card (the estimate of the settings
// it read, the rows, the pool and the case). The bytes go in as a JSON
// string, so the request's limits are fuzzed with the reader's.

#include <cstddef>
#include <cstdint>
#include <string>

#include "result_check.hpp"
#include "vram/api.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const nlohmann::json alone = {{"log", text}};
  const std::string request = alone.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  vram::fuzz::check_answer(vram::call(vram::fuzz::calculator(), "log", request));
  nlohmann::json beside = alone;
  beside["model"] = "llama-3.1-8b";
  beside["gpu"] = "h100-sxm";
  vram::fuzz::check_answer(
      vram::call(vram::fuzz::calculator(), "log",
                 beside.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
  return 0;
}
