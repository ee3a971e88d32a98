#include <string>

#include "vectors.hpp"

// Every answer of tests/golden/answers.json, byte for byte, from the native
// core (tests/js/golden-answers.test.mjs holds the wasm module to the same
// text; tools/golden-answers.mjs wrote it and says how to renew it).
TEST_CASE("golden vectors: the native core answers every request byte for byte as recorded") {
  const vram::Calculator calculator;
  const nlohmann::json doc = vectors::load("tests/golden/answers.json");
  const nlohmann::json& cases = doc.at("cases");
  CHECK(cases.size() >= 350);
  for (const nlohmann::json& c : cases) {
    INFO("case: " << c.at("source").get<std::string>());
    const std::string answer = vram::call(calculator, c.at("method").get<std::string>(),
                                          c.at("request_text").get<std::string>());
    CHECK(answer == c.at("answer").get<std::string>());
  }
}
