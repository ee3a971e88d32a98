// vram::dump_json (json_object.hpp): every answer's text, byte for byte what
// nlohmann's dump(-1, ' ', false, replace) writes, for crafted values, for
// random trees of hostile bytes, and for the core's own answers.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <random>
#include <string>

#include "helpers.hpp"
#include "vram/error.hpp"
#include "vram/json_object.hpp"

using nlohmann::json;

namespace {

std::string reference(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string random_bytes(std::mt19937& rng) {
  // Mostly ASCII, with quotes, backslashes, controls, DEL, valid and
  // broken UTF-8 sequences mixed in.
  static const std::string pieces[] = {"a",
                                       "Z",
                                       " ",
                                       "\"",
                                       "\\",
                                       "\n",
                                       "\t",
                                       std::string(1, '\0'),
                                       "\x1f",
                                       "\x7f",
                                       "\xc3\xa9",
                                       "\xe2\x89\x88",
                                       "\xf0\x9f\x98\x80",
                                       "\xc3",
                                       "\xe2\x89",
                                       "\xff",
                                       "\x80",
                                       "\xed\xa0\x80",
                                       "/",
                                       "\xd8\xb9"};
  std::string out;
  const int n = static_cast<int>(rng() % 12);
  for (int i = 0; i < n; ++i) out += pieces[rng() % std::size(pieces)];
  return out;
}

json random_tree(std::mt19937& rng, int depth) {
  switch (rng() % (depth > 3 ? 6 : 8)) {
    case 0:
      return nullptr;
    case 1:
      return rng() % 2 == 0;
    case 2:
      return static_cast<std::int64_t>(rng()) - static_cast<std::int64_t>(rng()) * 4096;
    case 3:
      return static_cast<std::uint64_t>(rng()) << (rng() % 32);
    case 4: {
      std::uniform_real_distribution<double> mantissa(-10.0, 10.0);
      return mantissa(rng) * std::pow(10.0, static_cast<int>(rng() % 40) - 20);
    }
    case 5:
      return random_bytes(rng);
    case 6: {
      json list = json::array();
      const int n = static_cast<int>(rng() % 5);
      for (int i = 0; i < n; ++i) list.push_back(random_tree(rng, depth + 1));
      return list;
    }
    default: {
      json object = json::object();
      const int n = static_cast<int>(rng() % 5);
      for (int i = 0; i < n; ++i) object[random_bytes(rng)] = random_tree(rng, depth + 1);
      return object;
    }
  }
}

}  // namespace

TEST_CASE("dump_json writes what nlohmann's dump writes, for crafted values") {
  const double inf = std::numeric_limits<double>::infinity();
  const json values[] = {
      nullptr,
      true,
      false,
      0,
      -1,
      std::numeric_limits<std::int64_t>::min(),
      std::numeric_limits<std::int64_t>::max(),
      std::numeric_limits<std::uint64_t>::max(),
      0.0,
      -0.0,
      1.0,
      0.1,
      1e-7,
      123456789.125,
      1e21,
      1e300,
      5e-324,
      -2.5,
      std::nan(""),
      inf,
      -inf,
      "",
      "plain",
      "with \"quotes\" and \\ backslash",
      "tab\tnew\nline\r\b\f",
      std::string("nul\0inside", 10),
      "\x7f",
      "caf\xc3\xa9 \xe2\x89\x88 70 GB",
      "broken \xc3",
      "\xff\xfe",
      json::array(),
      json::object(),
      json::array({1, "two", 3.5, nullptr, json::object()}),
      json{{"b", 1}, {"a", json::array({json{{"\xc3\xa9", "\x01"}}})}, {"", false}},
  };
  for (const json& value : values) {
    INFO("value: " << reference(value));
    CHECK(vram::dump_json(value) == reference(value));
  }
}

TEST_CASE("dump_json writes what nlohmann's dump writes, for random trees of hostile bytes") {
  std::mt19937 rng(20261202);
  for (int i = 0; i < 3000; ++i) {
    const json tree = random_tree(rng, 0);
    const std::string expected = reference(tree);
    INFO("tree: " << expected);
    REQUIRE(vram::dump_json(tree) == expected);
  }
}

TEST_CASE("dump_json writes what nlohmann's dump writes, for the core's answers") {
  const vram::Calculator& calculator = testing::calculator();
  CHECK(vram::dump_json(calculator.presets()) == reference(calculator.presets()));
  CHECK(vram::dump_json(calculator.schema()) == reference(calculator.schema()));
  CHECK(vram::dump_json(calculator.grid(json::object())) ==
        reference(calculator.grid(json::object())));
  const json fleet = calculator.fleet(json{{"model", "guide-70b"}});
  CHECK(vram::dump_json(fleet) == reference(fleet));
  int answers = 0;
  for (const vram::ModelPreset& preset : calculator.catalog().models) {
    for (const char* engine : {"guide", "vllm", "llamacpp"}) {
      INFO("model: " << preset.id << ", engine: " << engine);
      json request = {
          {"model", preset.id}, {"engine", engine}, {"gpu", "h100-sxm"}, {"context", 8192}};
      if (std::string(engine) == "llamacpp") request["weights"] = "q4_k_m";
      json answer;
      try {
        answer = calculator.estimate(request);
      } catch (const vram::Error& e) {
        answer = json{{"error", e.code()}};  // the setup cannot run: its error, still a text
      }
      CHECK(vram::dump_json(answer) == reference(answer));
      answers += answer.contains("error") ? 0 : 1;
    }
  }
  CHECK(answers > 100);
}
