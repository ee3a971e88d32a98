// Reading a number the way people type it: "32k", "128K", "1M", "32,768",
// "3.2e4", in Latin, Arabic-Indic or Persian digits. Pure, so node tests
// hold every form; the inputs panel validates the result like a URL value.
//
// Token counts (context, sequence length) read k and M as 1,024 and
// 1,048,576, as model cards write them: Llama 3.1's "128K context" is
// max_position_embeddings 131,072 (tests/configs/llama-3.1-8b).
// Other fields read k and M as 1,000 and 1,000,000.

/** Multipliers of the suffixes, by kind of field. */
export const SUFFIXES = {
  tokens: { k: 1024, m: 1048576 },
  count: { k: 1e3, m: 1e6 },
};

// Arabic-Indic (U+0660..9) and extended Arabic-Indic (Persian, U+06F0..9)
// digits; the Arabic decimal (U+066B) and thousands (U+066C) separators.
const NATIVE_DIGIT = /[\u0660-\u0669\u06f0-\u06f9]/g;
const ARABIC_DECIMAL = /\u066b/g;
const ARABIC_THOUSANDS = /\u066c/g;
// Spaces people (and locales) put between digit groups.
const GROUP_SPACE = /[\u0020\u00a0\u2009\u202f]/g;

// Longer text is not a number anyone typed.
const MAX_LENGTH = 40;

/**
 * Reads `text` as a number. Options: `suffixes` ('tokens' or 'count', or
 * none to refuse k and M), `integer` (refuse fractions). Returns { value }
 * or { error: { code } } with code 'empty', 'notNumber' or 'notWhole'.
 * Ranges are the caller's (the URL schema's) to check.
 */
export function parseNumber(text, { suffixes, integer = false } = {}) {
  const raw = String(text ?? '');
  if (raw.length > MAX_LENGTH) return { error: { code: 'notNumber' } };
  let s = raw
    .replace(NATIVE_DIGIT, (d) => String((d.charCodeAt(0) & 0xf) % 10))
    .replace(ARABIC_DECIMAL, '.')
    .replace(ARABIC_THOUSANDS, ',')
    .trim();
  if (!s) return { error: { code: 'empty' } };
  let multiplier = 1;
  const suffix = /^(.*?)\s*([kKmM])$/.exec(s);
  if (suffix) {
    const table = suffixes && SUFFIXES[suffixes];
    if (!table) return { error: { code: 'notNumber' } };
    multiplier = table[suffix[2].toLowerCase()];
    s = suffix[1];
  }
  // Digit groups: "32,768" or "32 768", three digits after the first group.
  if (/[, \u00a0\u2009\u202f]/.test(s)) {
    const ungrouped = s.replace(GROUP_SPACE, ',');
    if (!/^\d{1,3}(,\d{3})+(\.\d+)?$/.test(ungrouped)) return { error: { code: 'notNumber' } };
    s = ungrouped.replace(/,/g, '');
  }
  // Plain decimal or scientific notation; no sign, no hex, no Infinity.
  if (!/^(\d+(\.\d*)?|\.\d+)(e[+-]?\d{1,3})?$/i.test(s)) return { error: { code: 'notNumber' } };
  let value = Number(s) * multiplier;
  if (!Number.isFinite(value)) return { error: { code: 'notNumber' } };
  // 1.1k tokens is 1126.4: not a whole count; 0.1 × 1000 is 100 up to the
  // product's rounding error. A number without a suffix is read as written
  // (100000.00000000001 is past a limit of 100,000, as the core reads it).
  const nearest = Math.round(value);
  if (multiplier !== 1 && Math.abs(value - nearest) <= 1e-9 * Math.max(1, Math.abs(value))) value = nearest;
  if (integer && !Number.isInteger(value)) return { error: { code: 'notWhole' } };
  return { value };
}

/**
 * A number a field takes, signed: a leading minus (ASCII or U+2212) is read
 * and kept, so "-5" reaches the range check and is refused as "must be
 * between 1 and ..." rather than "not a number", as the CLI's flags do
 * (cli/args.cpp). The shared vectors hold parseNumber itself unsigned.
 */
export function parseSignedNumber(text, options) {
  const trimmed = String(text ?? '').trim();
  const negative = /^[-\u2212]/.test(trimmed);
  const read = parseNumber(negative ? trimmed.slice(1) : text, options);
  return negative && !read.error ? { value: -read.value } : read;
}

/**
 * What a number field lets be typed, key by key: digits of the three
 * systems, separators, spaces, and the letters of 1e5, 32k and 1M.
 */
export const TYPED_CHARS = /^[0-9\u0660-\u0669\u06f0-\u06f9.,\u066b\u066c \u00a0\u2009\u202feEkKmM+-]*$/;

/** The context sizes offered as quick picks, in tokens (4k = 4,096). */
export const CONTEXT_PICKS = [4, 8, 16, 32, 128].map((k) => k * SUFFIXES.tokens.k);
