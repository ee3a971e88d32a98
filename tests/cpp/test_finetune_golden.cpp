// Every fine-tuning answer of tests/golden/finetune-answers.json, byte for
// byte (tools/finetune-golden.mjs says what the requests are and how the
// file was made): a change meant to move no number must move none. The
// same file holds the wasm module in tests/js/finetune-golden.test.mjs.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "helpers.hpp"

using nlohmann::json;

namespace {

/** FNV-1a, 64 bits, over the bytes of `text`, as 16 hex digits. */
std::string fnv1a64(const std::string& text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(hash));
  return out;
}

/** One object from each factor, merged in order, the last factor varying fastest. */
std::vector<json> expand(const json& factors) {
  std::vector<json> requests{json::object()};
  for (const json& factor : factors) {
    std::vector<json> next;
    for (const json& request : requests) {
      for (const json& part : factor) {
        json merged = request;
        merged.update(part);
        next.push_back(std::move(merged));
      }
    }
    requests = std::move(next);
  }
  return requests;
}

/** Where two texts first differ, with a little of each around it. */
std::string first_difference(const std::string& a, const std::string& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  const std::size_t from = i > 80 ? i - 80 : 0;
  return "at byte " + std::to_string(i) + ": now ..." + a.substr(from, 160) + "... was ..." +
         b.substr(from, 160) + "...";
}

}  // namespace

TEST_CASE("every fine-tuning answer of tests/golden, byte for byte") {
  const json golden = testing::read_json("tests/golden/finetune-answers.json");
  const vram::Calculator& calculator = testing::calculator();
  std::size_t compared = 0;
  for (const json& c : golden.at("found")) {
    const std::string answer =
        vram::call(calculator, c.at("method").get<std::string>(), c.at("request").dump());
    const std::string& expected = c.at("answer").get_ref<const std::string&>();
    INFO(c.at("name").get<std::string>());
    if (answer != expected) FAIL_CHECK(first_difference(answer, expected));
    ++compared;
  }
  for (const json& product : golden.at("products")) {
    const std::vector<json> requests = expand(product.at("factors"));
    const json& answers = product.at("answers");
    REQUIRE(requests.size() == answers.size());
    const std::string method = product.at("method").get<std::string>();
    for (std::size_t i = 0; i < requests.size(); ++i) {
      const std::string answer = vram::call(calculator, method, requests[i].dump());
      const std::string got = std::to_string(answer.size()) + " " + fnv1a64(answer);
      INFO(product.at("name").get<std::string>() << " " << requests[i].dump());
      CHECK(got == answers[i].get<std::string>());
      ++compared;
    }
  }
  CHECK(compared > 3000);
}
