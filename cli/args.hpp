#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vram/message.hpp"
#include "vram/messages.hpp"

namespace vramcli {

/**
 * A command line that cannot be understood: names the flag; exit status 2.
 * Its words are a message (usage.* in data/messages/), rendered in the
 * language of --lang; what() is the English.
 */
struct UsageError : std::runtime_error {
  UsageError(const std::string& id, nlohmann::json params = nlohmann::json::object())
      : std::runtime_error(vram::english({id, params})), message{id, std::move(params)} {}
  vram::Message message;
};

enum class FlagKind {
  kString,
  kInt,
  kNumber,
  kTrue,   ///< a switch that sets its field to true (--flash-attention)
  kFalse,  ///< a switch that sets its field to false (--no-checkpointing)
  kJsonFile,
  kTextFile,  ///< a file's text, at most vram::kMaxLogBytes + 1 read (the engine log of `vramcalc
              ///< log`)
  kList,
  kKeyValue,   ///< repeatable KEY=VALUE into an object (numbers, true/false, a knob's word)
  kEngineInt,  ///< a whole number, or one of the knob's words ("auto"), into engine_options.<key>
  kCli,        ///< a flag of the CLI itself (--lang): not part of the request
};

/** One flag: which request key it sets, and the schema field it comes from. */
struct FlagSpec {
  std::string flag;  ///< "--context"
  std::string key;   ///< request key, "context"
  FlagKind kind = FlagKind::kString;
  nlohmann::json field;  ///< the schema's entry (type, default, range, choices, help id)
};

struct Parsed {
  nlohmann::json request = nlohmann::json::object();
  bool json_output = false;
  bool emit = false;  ///< --emit: print only the plan's launch command
  std::string lang = "en";
};

/**
 * The flags of a request, from its schema fields (vram::schema_json): flag =
 * "--" + key with "_" as "-"; a bool gets "--key" and "--no-key". Object
 * fields are files or KEY=VALUE pairs (--config, --catalog, --engine-opt);
 * the documented aliases (--gpus, --tp, --no-upcast) are added beside.
 */
std::vector<FlagSpec> flags_from_schema(const nlohmann::json& fields);

/**
 * Turns flags into a request object. Strict: an unknown flag, a missing
 * value or a value of the wrong type throws UsageError naming the flag.
 */
Parsed parse_flags(const std::vector<std::string>& args, const std::vector<FlagSpec>& specs);

/** The flag that sets request field `field` ("context" -> "--context"), or "". */
std::string flag_for_field(const std::vector<FlagSpec>& specs, const std::string& field);

std::string read_file(const std::string& path, const std::string& flag);

/** Which letters a number may end in: none, k and M as 1,024 and 1,048,576 (token counts), or as
 * 1,000 and 1,000,000. */
enum class Suffixes { kNone, kTokens, kCount };

/** What read_typed_number read: the value, or why not ("empty", "notNumber", "notWhole"). */
struct TypedNumber {
  double value = 0;
  std::string error;
};

/**
 * A number as people type it, by the page's rules (web/src/numbers.js; both
 * are held to tests/vectors/numbers.json): "32k", "128K", "1M", "32,768",
 * "3.2e4", in Latin, Arabic-Indic or Persian digits (UTF-8). No sign, no
 * hex, nothing infinite; `integer` refuses fractions. A product with a
 * suffix is snapped to the whole number within its rounding error
 * (0.1k is 100); a number without one is read as written.
 */
TypedNumber read_typed_number(const std::string& text, Suffixes suffixes, bool integer);

}  // namespace vramcli
