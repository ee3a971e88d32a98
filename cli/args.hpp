#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vramcli {

/** A command line that cannot be understood: names the flag; exit status 2. */
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class FlagKind {
  kString,
  kInt,
  kNumber,
  kBool,
  kFalse,  ///< a switch that sets its field to false (--no-checkpointing)
  kJsonFile,
  kList,
  kKeyValue,   ///< repeatable KEY=VALUE into an object (numbers and true/false)
  kEngineInt,  ///< a whole number into engine_options.<key>
};

struct FlagSpec {
  const char* flag;  ///< "--context"
  const char* key;   ///< request key, "context"
  FlagKind kind;
  const char* help;
};

struct Parsed {
  nlohmann::json request = nlohmann::json::object();
  bool json_output = false;
};

/**
 * Turns flags into a request object. Strict: an unknown flag, a missing
 * value or a value of the wrong type throws UsageError naming the flag.
 */
Parsed parse_flags(const std::vector<std::string>& args, const std::vector<FlagSpec>& specs);

/** The flag that sets request field `field` ("context" -> "--context"), or "". */
std::string flag_for_field(const std::vector<FlagSpec>& specs, const std::string& field);

std::string read_file(const std::string& path, const std::string& flag);

}  // namespace vramcli
