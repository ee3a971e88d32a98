// Display formatting. Numbers arrive unrounded from the core; they are
// rounded here, for display only, half away from zero (SPEC section 0), with
// the same rule as the core's round_display (tests hold both to one table).

/** Decimal gigabyte (SPEC section 0) and binary gibibyte, in bytes. */
export const BYTES_PER_GB = 1e9;
export const BYTES_PER_GIB = 1073741824;
const GIB_PER_GB = BYTES_PER_GB / BYTES_PER_GIB;

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

// Building an Intl.NumberFormat costs more than formatting with one, and every
// keystroke formats dozens of figures: one formatter per locale and style.
const formatters = new Map();
/** The cached Intl.NumberFormat for a locale and a range of decimals. */
export function numberFormat(locale, minimum, maximum) {
  const key = `${locale}|${minimum}|${maximum}`;
  let formatter = formatters.get(key);
  if (!formatter) {
    formatter = new Intl.NumberFormat(locale, { minimumFractionDigits: minimum, maximumFractionDigits: maximum });
    formatters.set(key, formatter);
  }
  return formatter;
}

/** Fixed decimals with thousands separators for the locale (default en). */
export function formatNumber(value, decimals = 0, locale = 'en') {
  const rounded = roundDisplay(value, decimals);
  return numberFormat(locale, decimals, decimals).format(rounded === 0 ? 0 : rounded);
}

/**
 * A memory figure given in decimal GB, shown in `unit` ('GB' or 'GiB').
 * Totals show whole units, terms one decimal (SPEC section 0).
 */
export function formatMemory(gb, unit = 'GB', decimals = 0, locale = 'en') {
  const value = unit === 'GiB' ? gb * GIB_PER_GB : gb;
  return `${formatNumber(value, decimals, locale)} ${unit}`;
}

export function convertMemory(gb, unit) {
  return unit === 'GiB' ? gb * GIB_PER_GB : gb;
}

/** Whole US dollars: $1,490. */
export function formatUsd(value, locale = 'en') {
  return `$${formatNumber(value, 0, locale)}`;
}

/** Memory bandwidth: GB/s under 1,000, TB/s (up to two decimals) above. */
export function formatBandwidth(gbps, locale = 'en') {
  if (gbps < 1000) return `${formatNumber(gbps, 0, locale)} GB/s`;
  const tbps = roundDisplay(gbps / 1000, 2);
  return `${numberFormat(locale, 0, 2).format(tbps)} TB/s`;
}

/** Tight: under 5 GB spare on one card, under 2 GB per card on a set (SPEC section 3). */
export function isTight(spareGb, cards = 1) {
  return cards > 1 ? spareGb / cards < 2 : spareGb < 5;
}
