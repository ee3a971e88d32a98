// Hostile inputs too big for tests/vectors/errors.json (issue 15): deep
// nesting, huge layer counts, oversized requests, bytes that are not UTF-8.
// Each must end in a named error, quickly, and vram::call must never throw.

#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "helpers.hpp"
#include "vram/error.hpp"
#include "vram/hf_config.hpp"
#include "vram/limits.hpp"

namespace {

using nlohmann::json;

/** vram::call's answer, which must itself be valid JSON. */
json call(const std::string& method, const std::string& request) {
  const std::string text = vram::call(testing::calculator(), method, request);
  json result = json::parse(text, nullptr, false);
  REQUIRE_MESSAGE(!result.is_discarded(), "not JSON: " << text.substr(0, 300));
  return result;
}

/** The error of a call, checked for its full shape. */
json error_of(const std::string& method, const std::string& request) {
  const json result = call(method, request);
  REQUIRE_MESSAGE(result.contains("error"), result.dump().substr(0, 300));
  const json& error = result.at("error");
  CHECK(error.at("code").is_string());
  CHECK(error.at("field").is_string());
  CHECK(error.at("message").is_string());
  CHECK(error.at("message_id").is_string());
  CHECK(error.at("params").is_object());
  return error;
}

std::string nested(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

json llama(std::int64_t layers) {
  return {{"model_type", "llama"},       {"hidden_size", 4096},
          {"num_hidden_layers", layers}, {"num_attention_heads", 32},
          {"num_key_value_heads", 8},    {"intermediate_size", 14336},
          {"vocab_size", 128256},        {"max_position_embeddings", 131072}};
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST_CASE("nesting is limited while parsing, not recursed over afterwards") {
  SUBCASE("100,000 levels under engine_options") {
    const json error = error_of("estimate", R"({"model":"guide-70b","engine":"vllm",)"
                                            R"("engine_options":{"x":)" +
                                                nested(100000) + "}}");
    CHECK(error.at("code") == "too_deep");
    CHECK(error.at("field") == "request");
    CHECK(error.at("message_id") == "error.too_deep");
    CHECK(error.at("params").at("limit") == vram::limits::kMaxJsonDepth);
  }
  SUBCASE("the limit itself: 64 levels parse, 65 do not") {
    CHECK_NOTHROW(vram::parse_json(nested(vram::limits::kMaxJsonDepth), "x"));
    CHECK_THROWS_AS(vram::parse_json(nested(vram::limits::kMaxJsonDepth + 1), "x"), vram::Error);
  }
  SUBCASE("a deep quantization_config built in C++ is read by key, never dumped") {
    json deep = 1;
    for (int i = 0; i < 100000; ++i) deep = json{{"a", std::move(deep)}};
    json config = llama(32);
    config["quantization_config"] = {{"quant_method", "modelopt"}, {"x", std::move(deep)}};
    CHECK(vram::import_hf_config(config).model.native_format == "bf16");
  }
}

TEST_CASE("sizes are limited before anything is allocated or looped over") {
  SUBCASE("1e8 layers is a named error, at once") {
    const auto start = std::chrono::steady_clock::now();
    const json error =
        error_of("estimate", json{{"config", llama(100000000)}, {"gpu", "h100-sxm"}}.dump());
    CHECK(error.at("code") == "invalid_value");
    CHECK(error.at("field") == "config.num_hidden_layers");
    CHECK(error.at("message_id") == "error.range");
    CHECK(error.at("params").at("value") == 100000000);
    CHECK(error.at("params").at("max") == vram::limits::kMaxLayers);
    CHECK(seconds_since(start) < 1.0);
  }
  SUBCASE("the most layers allowed still answers, in well under a second") {
    const auto start = std::chrono::steady_clock::now();
    const json result = call(
        "estimate", json{{"config", llama(vram::limits::kMaxLayers)}, {"gpu", "h100-sxm"}}.dump());
    REQUIRE_MESSAGE(!result.contains("error"), result.dump().substr(0, 300));
    CHECK(result.at("total_gb").get<double>() > 0);
    CHECK(seconds_since(start) < 2.0);
  }
  SUBCASE("a 10 MB request is too large") {
    const std::string padding(10'000'000, ' ');
    const json error = error_of("estimate", R"({"model":"guide-70b"})" + padding);
    CHECK(error.at("code") == "too_large");
    CHECK(error.at("field") == "request");
    CHECK(error.at("params").at("size") ==
          10'000'000 + std::string(R"({"model":"guide-70b"})").size());
  }
  SUBCASE("1e400 overflows a double: a parse error, not internal") {
    const json error = error_of("estimate", R"({"model":"guide-70b","context":1e400})");
    CHECK(error.at("code") == "parse_error");
    CHECK(error.at("field") == "request");
  }
}

TEST_CASE("vram::call never throws and never sends back invalid UTF-8") {
  const std::string inputs[] = {
      "\xe9",                                  // Latin-1 é: not UTF-8
      "\xc3",                                  // a cut UTF-8 sequence
      "{\"model\":\"\xff\xfe\"}",              // invalid bytes inside a string
      "{\"model\":\"guide-70b\",\"\xe9\":1}",  // and as a key the error names
      std::string("\0\0\0", 3),
      "[",
      "{\"model\":" + nested(5000),
      "null",
      "42",
  };
  for (const std::string& input : inputs) {
    for (const char* method : {"estimate", "grid", "devices", "fleet", "presets", "\xe9"}) {
      std::string text;
      CHECK_NOTHROW(text = vram::call(testing::calculator(), method, input));
      const json result = json::parse(text, nullptr, false);
      CHECK(!result.is_discarded());  // the parser rejects invalid UTF-8
    }
  }
  const json error = error_of("estimate", "\xe9");
  CHECK(error.at("code") == "parse_error");
}

TEST_CASE("error messages quote at most 200 characters of the input, and say so") {
  const std::string key(100000, 'k');
  const json error = error_of("estimate", json{{"model", "guide-70b"}, {key, 1}}.dump());
  CHECK(error.at("code") == "unknown_field");
  const std::string field = error.at("field");
  CHECK(field.size() < vram::Error::kQuoteChars + 40);
  CHECK(field.size() >= vram::Error::kQuoteChars);
  CHECK(field.rfind("\u2026") == field.size() - 3);  // the ellipsis, last
  CHECK(error.at("message").get<std::string>().size() < 1100);
  CHECK(error.at("params").at("field") == field);

  const json unknown = error_of("estimate", json{{"model", std::string(100000, 'm')}}.dump());
  CHECK(unknown.at("code") == "unknown_model");
  CHECK(unknown.at("message").get<std::string>().size() < 400);
}

TEST_CASE("range errors carry the message id and the numbers for translation") {
  json config = llama(32);
  config["num_key_value_heads"] = 64;
  const json error = error_of("estimate", json{{"config", config}}.dump());
  CHECK(error.at("field") == "config.num_key_value_heads");
  CHECK(error.at("message_id") == "error.range");
  CHECK(error.at("params") ==
        json{{"field", "config.num_key_value_heads"}, {"value", 64}, {"min", 1}, {"max", 32}});
  CHECK(error.at("message") == "config.num_key_value_heads must be between 1 and 32, not 64");
}

TEST_CASE("a whole number past 64 signed bits is out of range as written, never wrapped") {
  // 2^64 - 1 and 2^63 + 1 as a config.json writes them: read as unsigned,
  // they once came back as -1 and -(2^63 - 1) in the error.
  for (const char* layers : {"18446744073709551615", "9223372036854775809"}) {
    std::string config = llama(32).dump();
    const std::string at = "\"num_hidden_layers\":32";
    config.replace(config.find(at), at.size(), std::string("\"num_hidden_layers\":") + layers);
    const json error = error_of("estimate", "{\"config\":" + config + "}");
    CHECK(error.at("field") == "config.num_hidden_layers");
    CHECK(error.at("message_id") == "error.range");
    CHECK(error.at("params").at("value").dump() == layers);
    CHECK(error.at("message").get<std::string>().find("not -") == std::string::npos);
  }
}

TEST_CASE("the calculator still answers a preset after the hostile inputs") {
  error_of("estimate", "{\"config\":" + nested(100000) + "}");
  error_of("estimate", json{{"config", llama(4294967297)}}.dump());
  const json result = call("estimate", R"({"model":"guide-70b","weights":"fp8","context":8192})");
  REQUIRE_MESSAGE(!result.contains("error"), result.dump().substr(0, 300));
  CHECK(result.at("total_gb").get<double>() > 70);
}
