#pragma once

// What one key of a request or one engine knob holds, and the check of one
// value against it: the rows of the schema's tables (vram/schema.hpp) and
// each engine's knobs (vram/engine.hpp). Below both, so that an engine
// profile can carry and check its knobs without the schema, the catalog and
// the request readers.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace vram {

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
  /**
   * The field takes a value other than its default only for a model with a
   * vision tower ("vision": images, else error.no_vision), or only for one
   * whose tower takes any resolution ("dynamic_vision": image_size, else
   * error.image_size_fixed), raised where the model is known (the schema
   * reports it as "needs"). Empty: any model.
   */
  std::string needs;
  /**
   * The same, choice by choice, for an enum whose choices need different
   * things of the model: {choice, need} (speculative: "mtp" needs the
   * model's MTP layers, error.no_mtp; "eagle3" an EAGLE-3 head published for
   * it, error.no_eagle_head). The schema reports it as "choice_needs"; a
   * choice not listed takes any model.
   */
  std::vector<std::pair<std::string, std::string>> choice_needs;
  /**
   * An engine knob's condition: the plan reads the knob only for such a
   * model or layout ("moe", "state_layers", "loras"...; engine.cpp
   * kKnobConditions). Elsewhere the answer leaves it out of its assumptions
   * and, set away from its default, warns that it changes nothing
   * (warning.knob_not_applicable). Empty: every plan reads it.
   */
  std::string applies;
};

/** The word a number knob takes when the plan picks its value (llama.cpp's placement). */
inline constexpr const char* kAuto = "auto";

/** "int", "number", "bool", "string", "enum", "list", "object". */
const char* to_string(FieldType type);

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

}  // namespace vram
