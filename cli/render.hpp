#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "vram/messages.hpp"

namespace vramcli {

/**
 * The CLI's words: a message from a result, or a cli.* id with params,
 * rendered from the catalogs (data/messages/) in the language of --lang.
 */
struct Words {
  vram::RenderOptions options;
  /** A message object {"id", "params"} as results carry it. */
  std::string msg(const nlohmann::json& message) const;
  std::string operator()(const std::string& id,
                         nlohmann::json params = nlohmann::json::object()) const;
  /** A plain number with `decimals` decimals (0..3), grouped. */
  std::string number(double value, int decimals) const;
};

/** A readable breakdown of an estimate result. */
std::string render_estimate(const nlohmann::json& result, const Words& say);
/** The lookup grid as the guide lays it out: one line per model and method. */
std::string render_grid(const nlohmann::json& grid, const Words& say);
/** The planner's device-count table: accelerators by formats. */
std::string render_devices(const nlohmann::json& devices, const Words& say);
/** The fleet's cost table. */
std::string render_fleet(const nlohmann::json& fleet, const Words& say);
/** The model presets, formats and GPUs, one per line. */
std::string render_presets(const nlohmann::json& presets, const std::string& what,
                           const Words& say);

/** Left- or right-aligned cell of `width` characters (UTF-8 aware). */
/** The columns a UTF-8 string takes in a terminal: one per code point, none for zero-width ones. */
std::size_t columns(const std::string& text);
std::string pad(const std::string& text, std::size_t width, bool right = false);

}  // namespace vramcli
