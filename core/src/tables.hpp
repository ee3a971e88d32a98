#pragma once

// The three reference tables: the guide's lookup grid (SPEC section 3), the
// planner's device counts (section 6) and the fleet's cost ratios (section
// 4), computed from the catalog and the sizing core. Shapes in docs/cli.md.

#include <optional>

#include <nlohmann/json.hpp>

#include "vram/catalog.hpp"
#include "vram/fit.hpp"

namespace vram {

/**
 * The GPU catalog a request is fitted against: its replacement ("catalog"),
 * validated and kept in `own`, or the built-in one, not copied (a copy of
 * every card's names and features was a twentieth of each estimate).
 */
const GpuCatalog& request_catalog(const Catalog& catalog,
                                  const std::optional<nlohmann::json>& replacement,
                                  std::optional<GpuCatalog>& own);

/**
 * A checkpoint stored quantized (its config declares a quantization_config,
 * as gpt-oss's MXFP4 experts): its own storage in bits per resident
 * parameter (inference.hpp quantized_stored_bits). nullopt for a checkpoint
 * stored in 16 or 32 bits. The presets list gives it to the page; every
 * answer sizes such a model as stored where the asked format would be
 * wider (no_wider_than_stored).
 */
std::optional<double> stored_bits(const Catalog& catalog, const ModelPreset& preset);

/** One fitted option as the grid, the fleet and the estimate's fits report it. */
nlohmann::json option_json(const Option& option);

nlohmann::json grid_json(const Catalog& catalog, const nlohmann::json& request);
nlohmann::json devices_json(const Catalog& catalog, const nlohmann::json& request);
nlohmann::json fleet_json(const Catalog& catalog, const nlohmann::json& request);
/** The reverse question: which presets fit one card, a set of it or a budget, largest first. */
nlohmann::json fit_models_json(const Catalog& catalog, const nlohmann::json& request);

}  // namespace vram
