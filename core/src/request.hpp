#pragma once

// Resolving what an estimate request names: the model (a preset or a
// config.json) with its declared counts, and the engine with its options.

#include "vram/catalog.hpp"
#include "vram/requests.hpp"

namespace vram::request {

/** The model a request names: "model" (preset id) or "config" (HF config object). */
ImportedModel model(const Catalog& catalog, const EstimateRequest& request);

/** Which engine profile and options a request selects. */
struct EngineChoice {
  const EngineProfile* profile = nullptr;
  nlohmann::json options = nlohmann::json::object();
};

/**
 * The engine a request selects, with its options checked (named errors
 * "engine_options.<knob>"); overhead_gb and overhead_pct select the guide's
 * and the percent convention, checked under their own names, and conflict
 * with each other and with another engine named in the request.
 */
EngineChoice engine(const Catalog& catalog, const EstimateRequest& request);

}  // namespace vram::request
