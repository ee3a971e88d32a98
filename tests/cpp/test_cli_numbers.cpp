// The CLI reads a number as the page does (cli/args.cpp read_typed_number,
// web/src/numbers.js): every case of tests/vectors/numbers.json, which
// tests/js/web-numbers.test.mjs runs against the page's reader.
#include "args.hpp"
#include "vectors.hpp"

#include "vram/api.hpp"

namespace {

vramcli::Suffixes suffixes_named(const std::string& name) {
  if (name == "tokens") return vramcli::Suffixes::kTokens;
  if (name == "count") return vramcli::Suffixes::kCount;
  REQUIRE(name == "none");
  return vramcli::Suffixes::kNone;
}

}  // namespace

TEST_CASE("cli: every case of tests/vectors/numbers.json reads as on the page") {
  const nlohmann::json doc = vectors::load("tests/vectors/numbers.json");
  std::size_t count = 0;
  for (const nlohmann::json& group : doc.at("groups")) {
    const vramcli::Suffixes suffixes = suffixes_named(group.at("suffixes").get<std::string>());
    const bool integer = group.at("integer").get<bool>();
    for (const nlohmann::json& c : group.at("cases")) {
      const std::string text = c.at("text").get<std::string>();
      INFO("text: '" << text << "'");
      const vramcli::TypedNumber read = vramcli::read_typed_number(text, suffixes, integer);
      if (c.contains("error")) {
        CHECK(read.error == c.at("error").get<std::string>());
      } else {
        CHECK(read.error == "");
        CHECK(read.value == c.at("value").get<double>());
      }
      ++count;
    }
  }
  CHECK(count > 50);
}

TEST_CASE("cli: --context 32k is 32,768 tokens, --batch 1k a thousand, a knob plain") {
  const vram::Calculator calculator;
  const auto specs = vramcli::flags_from_schema(calculator.schema().at("requests").at("estimate"));
  const auto parsed =
      vramcli::parse_flags({"--context", "32k", "--batch=1k", "--min-tokens-per-s", "2.5"}, specs);
  CHECK(parsed.request.at("context").get<long long>() == 32768);
  CHECK(parsed.request.at("batch").get<long long>() == 1000);
  CHECK(parsed.request.at("min_tokens_per_s").get<double>() == 2.5);
  CHECK_THROWS_AS(vramcli::parse_flags({"--context", "32kk"}, specs), vramcli::UsageError);
  CHECK_THROWS_AS(vramcli::parse_flags({"--context", "1.1k"}, specs), vramcli::UsageError);
  CHECK_THROWS_AS(vramcli::parse_flags({"--context", "99999999999999999999"}, specs),
                  vramcli::UsageError);
  CHECK_THROWS_AS(vramcli::parse_flags({"--engine-opt", "gpu_memory_utilization=0.9k"}, specs),
                  vramcli::UsageError);
  // A minus goes on to the core, which names the range (tests/js/cli.test.mjs).
  CHECK(vramcli::parse_flags({"--context", "-5"}, specs).request.at("context").get<long long>() ==
        -5);
  CHECK(vramcli::parse_flags({"--min-tokens-per-s", "-1.5"}, specs)
            .request.at("min_tokens_per_s")
            .get<double>() == -1.5);
  CHECK_THROWS_AS(vramcli::parse_flags({"--context", "--5"}, specs), vramcli::UsageError);
}
