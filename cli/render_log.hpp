#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "render.hpp"

namespace vramcli {

/** `vramcalc log`: what the log says, each figure beside the calculator's, and the KV pool. */
std::string render_log(const nlohmann::json& answer, const Words& say);

}  // namespace vramcli
