#pragma once

// Shared reference vectors (tests/vectors/*.json): the same cases run here
// against the native core and in tests/js against the wasm module.

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "vram/api.hpp"
#include "vram/units.hpp"

namespace vectors {

using nlohmann::json;

inline json load(const std::string& relative) {
  std::ifstream in(std::string(VRAM_SOURCE_DIR) + "/" + relative);
  REQUIRE_MESSAGE(in.good(), "cannot open " << relative);
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

/** "terms[0].gb" inside `doc`. */
inline const json& at_path(const json& doc, const std::string& path) {
  const json* node = &doc;
  std::string token;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      const std::size_t close = path.find(']', i);
      node = &node->at(std::stoul(path.substr(i + 1, close - i - 1)));
      i = close + 1;
      continue;
    }
    const std::size_t end = path.find_first_of(".[", i);
    node = &node->at(path.substr(i, end == std::string::npos ? std::string::npos : end - i));
    i = end == std::string::npos ? path.size() : end;
  }
  return *node;
}

/** Checks one expectation of a vector case against a result. */
inline void check(const json& result, const json& expect) {
  const std::string path = expect.at("path");
  INFO("path: " << path);
  const json& node = at_path(result, path);
  if (expect.contains("equals") && !expect.at("equals").is_number()) {
    CHECK(node == expect.at("equals"));
    return;
  }
  double value = node.get<double>() * expect.value("scale", 1.0);
  if (expect.contains("round")) value = vram::round_display(value, expect.at("round").get<int>());
  if (expect.contains("equals"))
    CHECK(value == doctest::Approx(expect.at("equals").get<double>()).epsilon(1e-12));
  if (expect.contains("approx")) {
    CHECK(std::fabs(value - expect.at("approx").get<double>()) <=
          expect.at("tolerance").get<double>());
  }
  if (expect.contains("above")) CHECK(value > expect.at("above").get<double>());
  if (expect.contains("below")) CHECK(value < expect.at("below").get<double>());
}

/** Runs every case of a vector file through vram::call, as the wasm module does. */
inline void run_file(const vram::Calculator& calculator, const std::string& relative) {
  const json doc = load(relative);
  for (const json& c : doc.at("cases")) {
    const std::string name = c.at("name");
    INFO("case: " << name);
    // request_text: bytes that no JSON value dumps to (1e400, bad syntax).
    const std::string request = c.contains("request_text") ? c.at("request_text").get<std::string>()
                                                           : c.at("request").dump();
    const json result =
        json::parse(vram::call(calculator, c.at("method").get<std::string>(), request));
    if (c.contains("error")) {
      REQUIRE(result.contains("error"));
      CHECK(result.at("error").at("code") == c.at("error").at("code"));
      CHECK(result.at("error").at("field") == c.at("error").at("field"));
      continue;
    }
    REQUIRE_MESSAGE(!result.contains("error"), result.dump());
    for (const json& expect : c.at("expect")) check(result, expect);
  }
}

}  // namespace vectors
