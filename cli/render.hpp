#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace vramcli {

/** A readable breakdown of an estimate result. */
std::string render_estimate(const nlohmann::json& result);
/** The lookup grid as the guide lays it out: one line per model and method. */
std::string render_grid(const nlohmann::json& grid);
/** The planner's device-count table: accelerators by formats. */
std::string render_devices(const nlohmann::json& devices);
/** The fleet's cost table. */
std::string render_fleet(const nlohmann::json& fleet);
/** The model presets, formats and GPUs, one per line. */
std::string render_presets(const nlohmann::json& presets, const std::string& what);

/** Left- or right-aligned cell of `width` characters (UTF-8 aware). */
std::string pad(const std::string& text, std::size_t width, bool right = false);

}  // namespace vramcli
