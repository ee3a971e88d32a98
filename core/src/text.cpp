#include "vram/text.hpp"

#include <cmath>
#include <cstdio>

#include "vram/units.hpp"

namespace vram::text {

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, round_display(value, decimals));
  std::string out(buffer);
  if (out == "-0" || out.rfind("-0.", 0) == 0) {
    // -0.00 reads as a sign error; show zero plainly.
    bool all_zero = out.find_first_not_of("-0.") == std::string::npos;
    if (all_zero) out.erase(0, 1);
  }
  return out;
}

std::string grouped(double value) {
  std::string digits = fixed(std::fabs(value), 0);
  std::string out;
  const std::size_t n = digits.size();
  for (std::size_t i = 0; i < n; ++i) {
    out += digits[i];
    if ((n - i - 1) % 3 == 0 && i + 1 < n) out += ',';
  }
  return value < 0 ? "-" + out : out;
}

std::string gb(double bytes) { return fixed(bytes / kBytesPerGB, 2) + " GB"; }

}  // namespace vram::text
