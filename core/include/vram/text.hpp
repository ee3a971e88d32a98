#pragma once

// English renderings of numbers for formulas and CLI output. The page
// renders its own text from the numbers through its message catalog.

#include <cstdint>
#include <string>

namespace vram::text {

/** Display-rounded with a fixed number of decimals: fixed(21.125, 2) = "21.13". */
std::string fixed(double value, int decimals);
/** Thousands separators: grouped(70000000000) = "70,000,000,000". */
std::string grouped(double value);
/** Bytes as decimal GB with two decimals: "70.00 GB". */
std::string gb(double bytes);

}  // namespace vram::text
