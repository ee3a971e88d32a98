#pragma once

// Reading the parts of a request that several API calls share: which model,
// which formats, how much context, which overhead convention.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vram/catalog.hpp"

namespace vram::request {

using nlohmann::json;

/** Throws "unknown_field" for a key outside `allowed` (typos must not pass
 * silently), and "wrong_type" for a key whose value is JSON null. */
void reject_unknown_keys(const json& request, std::initializer_list<const char*> allowed,
                         const std::string& prefix = "");

/** The model a request names: "model" (preset id) or "config" (HF config object). */
ImportedModel model(const Catalog& catalog, const json& request);

/** A positive whole number with a default; names the field on error. */
std::int64_t positive_int(const json& request, const char* key, std::int64_t fallback,
                          std::int64_t max);

}  // namespace vram::request
