// What every answer of vram::call must be, whatever the request: valid JSON;
// either an error {"error": {"code", "field", "message"}} with three strings,
// or a result whose every number is finite and not negative. A violation
// aborts, so libFuzzer saves the input as a crash.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "vram/api.hpp"

namespace vram::fuzz {

/** The one calculator every input of a fuzz target is asked (built once). */
inline const Calculator& calculator() {
  static const Calculator instance;
  return instance;
}

/**
 * The fields a successful answer may hold as a negative number or as null,
 * from tests/fuzz/answer-rules.json (shared with the wasm hostile test).
 * VRAM_FUZZ_RULES is its path, set by tests/fuzz/CMakeLists.txt.
 */
struct Rules {
  std::set<std::string, std::less<>> signed_fields;
  std::set<std::string, std::less<>> nullable_fields;
  std::set<std::string, std::less<>> quoted_fields;
};

inline const Rules& rules() {
  static const Rules loaded = [] {
    std::ifstream file(VRAM_FUZZ_RULES);
    if (!file) {
      std::fprintf(stderr, "cannot read %s\n", VRAM_FUZZ_RULES);
      std::abort();
    }
    const auto doc = nlohmann::json::parse(file);
    Rules r;
    for (const auto& [key, why] : doc.at("signed").items()) r.signed_fields.insert(key);
    for (const auto& [key, why] : doc.at("nullable").items()) r.nullable_fields.insert(key);
    for (const auto& [key, why] : doc.at("quoted").items()) r.quoted_fields.insert(key);
    return r;
  }();
  return loaded;
}

inline bool signed_by_meaning(std::string_view key) { return rules().signed_fields.count(key) > 0; }

inline bool null_by_meaning(std::string_view key) { return rules().nullable_fields.count(key) > 0; }

inline bool quoted_from_file(std::string_view key) { return rules().quoted_fields.count(key) > 0; }

[[noreturn]] inline void fail(const std::string& what, const std::string& answer) {
  std::fprintf(stderr, "fuzz check failed: %s\nanswer: %.2000s\n", what.c_str(), answer.c_str());
  std::abort();
}

/**
 * The first bad number or null under `node` (whose own key is `key`), as
 * "what at path" relative to `node`; empty when all is well. The path is
 * built only on the way back from a failure: most answers have none, and
 * building a string per node would cost more than the call itself. Under a
 * quoted key (a file's own metadata) any sign is the file's.
 */
inline std::string find_problem(const nlohmann::json& node, std::string_view key,
                                bool quoted = false) {
  switch (node.type()) {
    case nlohmann::json::value_t::object:
      for (auto it = node.begin(); it != node.end(); ++it) {
        std::string problem =
            find_problem(it.value(), it.key(), quoted || quoted_from_file(it.key()));
        if (!problem.empty()) return problem + "." + it.key();
      }
      return {};
    case nlohmann::json::value_t::array:
      for (std::size_t i = 0; i < node.size(); ++i) {
        // An array's items share its key's meaning.
        std::string problem = find_problem(node[i], key, quoted);
        if (!problem.empty()) return problem + "[" + std::to_string(i) + "]";
      }
      return {};
    case nlohmann::json::value_t::null:
      return null_by_meaning(key) ? std::string() : "null (a non-finite number?) at $";
    case nlohmann::json::value_t::number_float: {
      const double value = node.get<double>();
      if (!std::isfinite(value)) return "non-finite number at $";
      return value < 0 && !quoted && !signed_by_meaning(key) ? "negative number at $"
                                                             : std::string();
    }
    case nlohmann::json::value_t::number_integer:
      return node.get<std::int64_t>() < 0 && !quoted && !signed_by_meaning(key)
                 ? "negative number at $"
                 : std::string();
    default:
      return {};
  }
}

/** "what at $" + ".c[2].a" + ".b" (innermost first) as "what at $.b.a.c[2]". */
inline std::string reversed_path(const std::string& problem) {
  const std::size_t at = problem.find(" at $");
  std::string tail = problem.substr(at + 5);
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < tail.size();) {
    std::size_t next = tail.find_first_of(".[", i + 1);
    if (next == std::string::npos) next = tail.size();
    parts.push_back(tail.substr(i, next - i));
    i = next;
  }
  std::string path = problem.substr(0, at + 5);
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) path += *it;
  return path;
}

/** Aborts unless `answer` is a well-formed error or a sane result. */
inline void check_answer(const std::string& answer) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(answer);
  } catch (const nlohmann::json::exception& e) {
    fail(std::string("the answer is not valid JSON: ") + e.what(), answer);
  }
  if (doc.is_object() && doc.contains("error")) {
    const auto& error = doc["error"];
    if (!error.is_object() || !error.value("code", nlohmann::json()).is_string() ||
        !error.value("field", nlohmann::json()).is_string() ||
        !error.value("message", nlohmann::json()).is_string()) {
      fail("an error without code, field and message strings", answer);
    }
    // The boundary's own catch-all: an exception the core did not name.
    if (error["code"] == "internal") fail("an internal error", answer);
    return;
  }
  // find_problem appends each level's key on its way out: innermost first.
  const std::string problem = find_problem(doc, "");
  if (!problem.empty()) fail(reversed_path(problem), answer);
}

}  // namespace vram::fuzz
