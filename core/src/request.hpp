#pragma once

// Resolving what an estimate request names: the model (a preset or a
// config.json) with its declared counts.

#include "vram/catalog.hpp"
#include "vram/requests.hpp"

namespace vram::request {

/** The model a request names: "model" (preset id) or "config" (HF config object). */
ImportedModel model(const Catalog& catalog, const EstimateRequest& request);

}  // namespace vram::request
