#include "vectors.hpp"

TEST_CASE("shared reference vectors hold on the native core") {
  const vram::Calculator calculator;
  SUBCASE("SPEC inference tables") {
    vectors::run_file(calculator, "tests/vectors/spec-inference.json");
  }
  SUBCASE("error paths") { vectors::run_file(calculator, "tests/vectors/errors.json"); }
  SUBCASE("KV cache by hand") { vectors::run_file(calculator, "tests/vectors/kv-cache.json"); }
  SUBCASE("SPEC decode and rules of thumb") {
    vectors::run_file(calculator, "tests/vectors/spec-decode.json");
  }
}
