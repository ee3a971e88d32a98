#pragma once

// Small helpers shared by the doctest files.

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "vram/api.hpp"
#include "vram/catalog.hpp"

namespace testing {

using nlohmann::json;

inline json read_json(const std::string& relative) {
  std::ifstream in(std::string(VRAM_SOURCE_DIR) + "/" + relative);
  if (!in) throw std::runtime_error("cannot open " + relative);
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

/** One calculator for the whole test run: parsing the catalog once. */
inline const vram::Calculator& calculator() {
  static const vram::Calculator instance;
  return instance;
}

inline json estimate(json request) { return calculator().estimate(request); }

/** A term's GB in an estimate answer, 0 when the answer has no such term. */
inline double term_gb(const json& answer, const std::string& id) {
  for (const json& t : answer.at("terms")) {
    if (t.at("id") == id) return t.at("gb").get<double>();
  }
  return 0;
}

/** An estimate answer's term `id`, nullptr when it has none. */
inline const json* find_term(const json& answer, const std::string& id) {
  for (const json& t : answer.at("terms")) {
    if (t.at("id") == id) return &t;
  }
  return nullptr;
}

/** The launch command of an estimate answer. */
inline std::string launch_command(const json& answer) {
  return answer.at("launch").at("command").get<std::string>();
}

/** Whether an estimate answer carries the warning `id`. */
inline bool warns(const json& answer, const std::string& id) {
  for (const json& w : answer.at("warnings")) {
    if (w.at("id") == id) return true;
  }
  return false;
}

}  // namespace testing
