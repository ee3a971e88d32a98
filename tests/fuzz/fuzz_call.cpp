// fuzz_call: any bytes through the calculator's one entry point. The first
// byte picks the method, the rest is the request text as a page, the CLI or
// a crafted link would send it. The answer must be valid JSON: a named
// error, or a result with no negative, infinite or NaN number
// (result_check.hpp).

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "result_check.hpp"
#include "vram/api.hpp"

namespace {

// Appended, never reordered: the saved inputs' first bytes keep their method.
constexpr std::array<std::string_view, 8> kMethods = {
    "estimate", "grid", "devices", "fleet", "presets", "fit_models", "checkpoint", "schema"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view method = kMethods[data[0] % kMethods.size()];
  const std::string_view request(reinterpret_cast<const char*>(data + 1), size - 1);
  vram::fuzz::check_answer(vram::call(vram::fuzz::calculator(), method, request));
  return 0;
}
