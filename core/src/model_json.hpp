#pragma once

#include <nlohmann/json.hpp>

#include "vram/inference.hpp"
#include "vram/model.hpp"

namespace vram {

/** What the API reports about a model: shape, layout, counts, caveats. */
nlohmann::json model_summary(const ModelSpec& model, const ParamTotals& params);

}  // namespace vram
