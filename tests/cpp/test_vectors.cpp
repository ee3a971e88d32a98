#include <algorithm>
#include <filesystem>

#include "vectors.hpp"

// Every file of tests/vectors, as tests/js/vectors.test.mjs runs them in wasm.
TEST_CASE("shared reference vectors hold on the native core") {
  const vram::Calculator calculator;
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(VRAM_SOURCE_DIR) / "tests/vectors")) {
    // messages.json holds rendering cases and numbers.json typed numbers, not
    // requests: test_messages.cpp and test_cli_numbers.cpp run them.
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".json" && name != "messages.json" && name != "numbers.json") {
      files.push_back(entry.path().filename().string());
    }
  }
  std::sort(files.begin(), files.end());
  CHECK(files.size() >= 5);
  for (const std::string& file : files) {
    INFO("file: " << file);
    vectors::run_file(calculator, "tests/vectors/" + file);
  }
}
