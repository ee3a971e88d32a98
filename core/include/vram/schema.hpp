#pragma once

// One table of fields per request: what a key holds, its default, its range
// or choices, its unit, the modes it applies to and its help message. The
// request readers walk these tables, `schema` returns them, the CLI builds
// its flags and --help from them and the page its URL validation and input
// limits: a range is written once, here or in data/engines.json.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace vram {

struct Catalog;

enum class FieldType { kInt, kNumber, kBool, kString, kEnum, kList, kObject };

/** Where a field's choices come from besides its static list. */
enum class ChoiceSource { kNone, kModels, kWeightFormats, kKvFormats, kGpus, kEngines };

/** The modes of an estimate a field applies to (bit set). */
enum Modes : unsigned { kInferenceMode = 1u, kFinetuneMode = 2u, kAnyMode = 3u };

/**
 * One key of a request or one engine knob. A number or whole number is
 * checked against [min, max] (each bound inclusive unless marked
 * exclusive); an enum or a list's items against `choices` (static) and,
 * when resolving ids, against the catalog (`source`). A number with
 * `choices` also takes those words (an engine knob's "auto").
 */
struct FieldSpec {
  std::string name;
  FieldType type = FieldType::kString;
  nlohmann::json default_value;  ///< null: no default (optional, or required by the request)
  std::optional<double> min;
  std::optional<double> max;
  bool min_exclusive = false;
  bool max_exclusive = false;
  std::vector<std::string> choices;
  ChoiceSource source = ChoiceSource::kNone;
  std::string unit;  ///< "tokens", "GB", "%"...; empty when none
  unsigned modes = kAnyMode;
  std::string help;  ///< message id in data/messages/<lang>.json
  /** The knob whose range this field shares ("guide.overhead_gb"), if any. */
  std::string range_from;
  /**
   * Beyond `modes`: the field applies only while the field `when` holds one
   * of `when_values` (lora_rank: mode lora or qlora; momentum: optimizer
   * sgd). Empty: no such condition.
   */
  std::string when;
  std::vector<std::string> when_values;
  /** A field of the same table whose value this one may not exceed either. */
  std::string max_field;
};

/** The word a number knob takes when the plan picks its value (llama.cpp's placement). */
inline constexpr const char* kAuto = "auto";

/** "int", "number", "bool", "string", "enum", "list", "object". */
const char* to_string(FieldType type);

/** The fields of each request: "estimate", "grid", "devices", "fleet". */
const std::vector<FieldSpec>& estimate_fields();
const std::vector<FieldSpec>& grid_fields();
const std::vector<FieldSpec>& devices_fields();
const std::vector<FieldSpec>& fleet_fields();
const std::vector<FieldSpec>& fit_models_fields();
/**
 * The shape keys of a config.json (hidden_size, num_hidden_layers, ...) and
 * their ranges (vram/limits.hpp, the bounds the importer checks): what a
 * shape built outside the core (the page's custom shape) may hold.
 * num_key_value_heads is also at most num_attention_heads (max_field).
 */
const std::vector<FieldSpec>& config_fields();

/** The field named `name` of `fields`, or nullptr. */
const FieldSpec* find_field(const std::vector<FieldSpec>& fields, std::string_view name);

/**
 * Checks one value against its field; `path` names it in errors
 * ("engine_options.block_size"). JSON null is wrong_type (no silent
 * default); a value of the wrong type is wrong_type; a number that is not
 * finite, not whole for an int, or outside the range, and an enum or list
 * item outside the static choices, are invalid_value.
 */
void check_value(const FieldSpec& field, const nlohmann::json& value, const std::string& path);

/**
 * Whether `field` applies to a request whose values (defaults filled in)
 * are `values`: its `modes` against the request's "mode" where the table
 * has one, and its `when` condition.
 */
bool applies(const FieldSpec& field, const nlohmann::json& values);

/**
 * Reads a request object against its table: an object, no unknown key,
 * every value checked (check_value), and no key that does not apply to the
 * request (applies(): a key of the other mode, lora_rank with mode full,
 * momentum without SGD) — error not_applicable, message
 * error.not_applicable. Returns the request with every default filled in.
 * Throws vram::Error naming the field.
 */
nlohmann::json read_fields(const nlohmann::json& request, const std::vector<FieldSpec>& fields,
                           const std::string& prefix = "");

/** True when `mode` (an estimate's "mode" value) is fine-tuning. */
bool is_finetune_mode(std::string_view mode);

/** One field as the schema reports it, catalog choices resolved. */
nlohmann::json field_json(const FieldSpec& field, const Catalog& catalog);

/**
 * The schema: {"requests": {"estimate": [field...], "grid": ..., "devices":
 * ..., "fleet": ...}, "config": [shape key...], "engines": {id: [knob...]}},
 * each field with its type, default, range, choices (catalog ones
 * resolved), unit, modes, applies_when ({"mode": ["lora", "qlora"]}) and
 * help id.
 */
nlohmann::json schema_json(const Catalog& catalog);

}  // namespace vram
