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

#include "vram/field.hpp"

namespace vram {

struct Catalog;

/**
 * The estimate's modes as its `mode` field takes them, in the order of
 * vram::Mode (vram/requests.hpp), whose reader maps one onto the other.
 */
inline constexpr const char* kModeNames[] = {"inference", "full", "lora", "qlora"};

/** The fields of each request: "estimate", "grid", "devices", "fleet". */
const std::vector<FieldSpec>& estimate_fields();
const std::vector<FieldSpec>& grid_fields();
const std::vector<FieldSpec>& devices_fields();
const std::vector<FieldSpec>& fleet_fields();
const std::vector<FieldSpec>& fit_models_fields();
const std::vector<FieldSpec>& log_fields();
/**
 * The shape keys of a config.json (hidden_size, num_hidden_layers, ...) and
 * their ranges (vram/limits.hpp, the bounds the importer checks): what a
 * shape built outside the core (the page's custom shape) may hold.
 * num_key_value_heads is also at most num_attention_heads (max_field).
 */
const std::vector<FieldSpec>& config_fields();

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
