#pragma once

#include <cstdint>

namespace vram {

/** A count as a double, for the arithmetic of sizes (one spelling for the core's sources). */
inline double d(std::int64_t v) { return static_cast<double>(v); }

}  // namespace vram
