#pragma once

namespace vram {

/** Decimal gigabyte, the guide's unit (SPEC §0): 10^9 bytes. */
inline constexpr double kBytesPerGB = 1e9;
/** Binary gibibyte, what CUDA tools and engine logs print: 2^30 bytes. */
inline constexpr double kBytesPerGiB = 1073741824.0;
/** Binary mebibyte, llama.cpp's unit. */
inline constexpr double kBytesPerMiB = 1048576.0;

inline constexpr double bytes_to_gb(double bytes) { return bytes / kBytesPerGB; }
inline constexpr double gb_to_bytes(double gb) { return gb * kBytesPerGB; }

/**
 * Rounds for display only, half away from zero (SPEC §0: 21.125 -> 21.13).
 * `decimals` is 0..6. Never feed the result into a further computation.
 *
 * Works on the decimal digits the value prints with, so a binary
 * representation just under the half (21.125 is exact; 2.675 is not) rounds
 * the way a person reading the figure expects.
 */
double round_display(double value, int decimals);

}  // namespace vram
