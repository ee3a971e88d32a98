#pragma once

// Small helpers shared by the doctest files.

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "vram/api.hpp"
#include "vram/catalog.hpp"
#include "vram/error.hpp"

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

/** An estimate answer's term `id`; a test that needs it fails when it is absent. */
inline const json& term(const json& answer, const std::string& id) {
  if (const json* t = find_term(answer, id)) return *t;
  throw std::runtime_error("no term " + id);
}

/** The GB of term `id`; the test fails when the answer has no such term. */
inline double required_gb(const json& answer, const std::string& id) {
  return term(answer, id).at("gb").get<double>();
}

/** The message id and field of the error `request` is refused with, or "" when it is not. */
inline std::pair<std::string, std::string> refusal(const json& request) {
  try {
    estimate(request);
  } catch (const vram::Error& e) {
    return {e.message().id, e.field()};
  }
  return {"", ""};
}

/** Whether `text` holds `part`. */
inline bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/** Whether an estimate answer states the assumption `id`. */
inline bool assumes(const json& answer, const std::string& id) {
  for (const json& a : answer.at("assumptions")) {
    if (a.at("id") == id) return true;
  }
  return false;
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
