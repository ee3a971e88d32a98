#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace vramcli {

/** A readable breakdown of an estimate result. */
std::string render_estimate(const nlohmann::json& result);
/** The model presets, formats and GPUs, one per line. */
std::string render_presets(const nlohmann::json& presets, const std::string& what);

/** Left- or right-aligned cell of `width` characters (UTF-8 aware). */
std::string pad(const std::string& text, std::size_t width, bool right = false);

}  // namespace vramcli
