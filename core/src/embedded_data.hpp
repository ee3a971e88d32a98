#pragma once

#include <string_view>

namespace vram::embedded {

/** The text of data/<name>.json as it was at build time; empty if unknown. */
std::string_view file(std::string_view name);

}  // namespace vram::embedded
