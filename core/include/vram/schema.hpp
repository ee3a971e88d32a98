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

/**
 * Reads a request object against its table: an object, no unknown key,
 * every value checked (check_value), and, when the table has a `mode`
 * field, no key of the other mode. Returns the request with every default
 * filled in. Throws vram::Error naming the field.
 */
nlohmann::json read_fields(const nlohmann::json& request, const std::vector<FieldSpec>& fields,
                           const std::string& prefix = "");

/** True when `mode` (an estimate's "mode" value) is fine-tuning. */
bool is_finetune_mode(std::string_view mode);

/** One field as the schema reports it, catalog choices resolved. */
nlohmann::json field_json(const FieldSpec& field, const Catalog& catalog);

/**
 * The schema: {"requests": {"estimate": [field...], "grid": ..., "devices":
 * ..., "fleet": ...}, "engines": {id: [knob...]}}, each field with its type,
 * default, range, choices (catalog ones resolved), unit, modes and help id.
 */
nlohmann::json schema_json(const Catalog& catalog);

}  // namespace vram
