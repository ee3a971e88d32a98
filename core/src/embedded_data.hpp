#pragma once

#include <cstddef>
#include <string_view>

namespace vram::embedded {

/** The text of data/<name>.json as it was at build time; empty if unknown.
 * models.json comes without its presets' configs (see model_config). */
std::string_view file(std::string_view name);

/** The name of the embedded file at `index` ("gpus", "messages/en"); empty
 * past the end. */
std::string_view name(std::size_t index);

/** The config of data/models.json's preset at `index`; empty past the end. */
std::string_view model_config(std::size_t index);

}  // namespace vram::embedded
