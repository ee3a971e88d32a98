#include "vram/units.hpp"

#include <cmath>

namespace vram {

double round_display(double value, int decimals) {
  if (!std::isfinite(value)) return value;
  if (decimals < 0) decimals = 0;
  if (decimals > 6) decimals = 6;
  double scale = 1;
  for (int i = 0; i < decimals; ++i) scale *= 10;
  const double scaled = std::fabs(value) * scale;
  const double whole = std::floor(scaled);
  // A value that prints as an exact half (21.125, or 2.675 stored as
  // 2.67499999...) rounds away from zero, as a person reading it expects.
  // The tolerance is a few units in the last place of `scaled`.
  const double tolerance = std::fmin(0.1, 4e-15 * std::fmax(1.0, scaled));
  const double rounded = (scaled - whole >= 0.5 - tolerance) ? whole + 1 : whole;
  return std::copysign(rounded / scale, value);
}

}  // namespace vram
