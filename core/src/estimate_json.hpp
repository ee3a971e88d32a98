#pragma once

#include <nlohmann/json.hpp>

#include "vram/catalog.hpp"

namespace vram {

/**
 * The estimate call: reads the request (model or config, formats, context,
 * batch, engine and its options, GPU, budget), plans it, and answers with
 * every term, assumption and warning, plus the engine's budget, decode
 * ceilings and inverse answers when a card or budget is given. Shapes are
 * documented in docs/cli.md.
 */
nlohmann::json estimate_json(const Catalog& catalog, const nlohmann::json& request);

/**
 * The curve call: the estimate's request (inference, with a gpu) as
 * answer::curve_section answers it (docs/cli.md, "curve").
 */
nlohmann::json curve_json(const Catalog& catalog, const nlohmann::json& request);

}  // namespace vram
