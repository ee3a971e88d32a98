#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "render.hpp"

namespace vramcli {

/** `vramcalc curve`: one row per load, the most users at the floor and its cost. */
std::string render_curve(const nlohmann::json& curve, const Words& say);

}  // namespace vramcli
