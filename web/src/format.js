// Display formatting. Numbers arrive unrounded from the core; they are
// rounded here, for display only, half away from zero (SPEC section 0), with
// the same rule as the core's round_display (tests hold both to one table).

/** Decimal gigabyte (SPEC section 0) and binary gibibyte, in bytes. */
export const BYTES_PER_GB = 1e9;
export const BYTES_PER_GIB = 1073741824;

/** Rounds half away from zero to `decimals` places (0..6). */
export function roundDisplay(value, decimals) {
  if (!Number.isFinite(value)) return value;
  const d = Math.max(0, Math.min(6, decimals | 0));
  let scale = 1;
  for (let i = 0; i < d; i++) scale *= 10;
  const scaled = Math.abs(value) * scale;
  const whole = Math.floor(scaled);
  // A few units in the last place: 2.675 (stored as 2.67499999...) is a half.
  const tolerance = Math.min(0.1, 4e-15 * Math.max(1, scaled));
  const rounded = scaled - whole >= 0.5 - tolerance ? whole + 1 : whole;
  const result = rounded / scale;
  return value < 0 ? -result : result;
}

/**
 * Display values that add up. Each of `values` (non-negative, in display
 * units) is rounded to `decimals` places so that together they make `total`
 * rounded the same way: every value is rounded down, and the units still
 * missing go to the largest remainders (largest-remainder, or Hamilton's,
 * method; ties to the earlier value). Rounding each value on its own can
 * miss the total by a unit or more ("70.0 + 2.7 + 2.0 = 74.6"), which reads
 * as an error in the sum; this moves a term by less than one unit instead
 * of showing a "rounded" note beside every breakdown.
 */
export function roundToTotal(values, total, decimals) {
  let scale = 1;
  for (let i = 0; i < decimals; i++) scale *= 10;
  const units = values.map((v) => (Number.isFinite(v) && v > 0 ? v * scale : 0));
  const out = units.map(Math.floor);
  const target = Math.round(roundDisplay(total, decimals) * scale);
  let left = target - out.reduce((sum, u) => sum + u, 0);
  const order = units.map((u, i) => [u - out[i], i]).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  // Values that already add up leave 0 to 1 unit per value; anything else
  // (a total that is not their sum) still ends at the total, never below 0.
  for (let k = 0; left !== 0 && order.length && k < 4 * order.length + Math.abs(left); k++) {
    const i = order[k % order.length][1];
    if (left > 0) {
      out[i]++;
      left--;
    } else if (out[i] > 0) {
      out[i]--;
      left++;
    }
  }
  return out.map((u) => u / scale);
}

/** Tight: under 5 GB spare on one card, under 2 GB per card on a set (SPEC section 3). */
export function isTight(spareGb, cards = 1) {
  return cards > 1 ? spareGb / cards < 2 : spareGb < 5;
}
