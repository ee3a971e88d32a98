// fuzz_checkpoint: any bytes as the start of a checkpoint file, through the
// readers the page and the CLI use on a user's own file. The first byte
// picks the reader (even: GGUF, odd: safetensors) and whether the file's
// size is told (bit 1: the bytes are the whole file), and whether the
// tensor list is asked for (bit 2). A header that reads is then sized the
// way estimate takes it, as a request's "checkpoint". Inputs run to 1 MB
// with a 3 s timeout (scripts/fuzz.sh): a header whose work grows faster
// than its bytes shows as a timeout.

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "result_check.hpp"
#include "vram/api.hpp"
#include "vram/checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const char* kind = (data[0] & 1) != 0 ? "safetensors" : "gguf";
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const double file_size = (data[0] & 2) != 0 ? static_cast<double>(bytes.size()) : 0;
  const std::string answer = vram::inspect(kind, bytes, file_size, (data[0] & 4) != 0);
  vram::fuzz::check_answer(answer);
  const auto file = nlohmann::json::parse(answer);
  if (file.contains("error")) return 0;
  // What the page sends next: the file object (and the config a GGUF carries).
  nlohmann::json checkpoint = {{"files", nlohmann::json::array({file.at("file")})}};
  nlohmann::json request = {{"checkpoint", checkpoint}};
  if (file.contains("config"))
    request["config"] = file.at("config");
  else
    request["model"] = "llama-3.1-8b";
  vram::fuzz::check_answer(vram::call(vram::fuzz::calculator(), "checkpoint", checkpoint.dump()));
  vram::fuzz::check_answer(vram::call(vram::fuzz::calculator(), "estimate", request.dump()));
  return 0;
}
