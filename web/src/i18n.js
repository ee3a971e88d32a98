// The page's languages: the catalogs of data/messages/ (bundled at build
// time, the CLI embeds the same files), which language an element speaks,
// its direction, and a translator over the one renderer (messages.js).
import ar from '../../data/messages/ar.json' with { type: 'json' };
import en from '../../data/messages/en.json' with { type: 'json' };
import fa from '../../data/messages/fa.json' with { type: 'json' };
import { createRenderer } from './messages.js';
import { DIGITS, LANGUAGES } from './state.js';

export { DIGITS, LANGUAGES };

// Each catalog: an object under Node (the JSON imports); in the page's
// build the imports are empty and the catalogs arrive packed beside the
// module (tools/build-page.mjs), as JSON texts the entry hands to
// provideCatalogs once unpacked. A text is parsed only when a translator
// first needs the language (issue 12: the page's start-up).
const SOURCES = { en, ar, fa };
let ready = Promise.resolve();

/**
 * The page's build: `texts`, a promise of { lang: JSON text }, is where
 * the catalogs come from; catalogsReady() settles when they are here.
 */
export function provideCatalogs(texts) {
  ready = texts.then((sources) => {
    for (const lang of Object.keys(SOURCES)) {
      if (typeof sources[lang] !== 'string') throw new Error(`the page's catalogs lack '${lang}'`);
    }
    Object.assign(SOURCES, sources);
  });
  return ready;
}

/** A promise settled once every catalog can be read (at once outside the page's build). */
export const catalogsReady = () => ready;

/** Languages written right to left. */
const RTL = new Set(['ar', 'fa', 'he', 'ur']);

const baseOf = (tag) => String(tag || '').split(/[-_]/)[0].toLowerCase();

export function direction(lang) {
  return RTL.has(baseOf(lang)) ? 'rtl' : 'ltr';
}

/** The catalog language for a tag ('fa-IR' is fa); English for any other. */
export function resolveLanguage(tag) {
  const base = baseOf(tag);
  return LANGUAGES.includes(base) ? base : 'en';
}

// Right to left the renderer isolates every Latin run and every parameter
// (web/src/messages.js, `isolate`; docs/i18n.md, "Right to left"): "يتبقى
// 38.6 GB لذاكرة KV", never "GB left for KV 38.6". English is not touched:
// there the surrounding direction is already the fragments'.

/**
 * One language's catalog. In the page's build (tools/build-page.mjs)
 * English is its JSON text and every other language the JSON text of its
 * entries in English's key order (null where it has none: English shows),
 * so the three languages carry each key once (issue 12, the page's weight).
 */
function plainCatalog(lang) {
  const source = SOURCES[lang];
  if (source === null) throw new Error(`the catalog '${lang}' is not unpacked yet (await catalogsReady())`);
  const parsed = typeof source === 'string' ? JSON.parse(source) : source;
  if (!Array.isArray(parsed)) return parsed;
  const keys = Object.keys(catalogOf('en'));
  const out = {};
  parsed.forEach((entry, i) => {
    if (entry !== null && i < keys.length) out[keys[i]] = entry;
  });
  return out;
}

/** One language's catalog, read once, on first use. */
const catalogs = new Map();
function catalogOf(lang) {
  if (!catalogs.has(lang)) catalogs.set(lang, plainCatalog(lang));
  return catalogs.get(lang);
}

/**
 * A translator for one language, digit choice and display unit:
 * t(id, params) renders a catalog entry (English fallback key by key),
 * t.render(message) a message {id, params} as the core answers them;
 * t.lang, t.dir, t.digits say what it speaks; t.format(value, decimals)
 * writes a bare figure, and t.number / t.parseNumber move numbers in and
 * out of inputs in the language's digits.
 */
const translators = new Map();
export function translator(lang, { digits = '', unit = 'GB' } = {}) {
  const base = resolveLanguage(lang);
  const key = `${base}|${digits}|${unit}`;
  if (!translators.has(key)) translators.set(key, makeTranslator(base, digits, unit));
  return translators.get(key);
}

function makeTranslator(base, digits, unit) {
  const dir = direction(base);
  const rtl = dir === 'rtl';
  // English is every language's fallback, key by key.
  const renderer = createRenderer({ catalogs: { en: catalogOf('en'), [base]: catalogOf(base) }, lang: base, digits, unit, isolate: rtl });
  const t = (id, params) => renderer.t(id, params);
  t.render = renderer.render;
  t.has = renderer.has;
  t.lang = base;
  t.dir = dir;
  t.digits = renderer.locale.includes('-nu-latn') ? 'latn' : 'native';
  /** A number with exactly `decimals` decimals, grouped, in the language's digits. */
  t.format = renderer.number;
  /** A number as an input shows it: the language's digits, no grouping, at most 6 decimals. */
  t.number = (value) => (typeof value === 'number' && Number.isFinite(value) ? renderer.figure(value, 6, false) : String(value ?? ''));
  /**
   * A number as a person writes it, not padded with zeros: 0.9, 1,490,
   * 0.0001; six significant digits at most past the point (1,234.57), no
   * more than 12 decimals; grouped, in the language's digits.
   */
  t.figure = (value) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return '\u2013';
    const magnitude = value === 0 ? 0 : Math.floor(Math.log10(Math.abs(value)));
    const decimals = Math.max(0, Math.min(12, 5 - magnitude));
    // What rounds to zero is zero, without a sign; the sign is an ASCII hyphen-minus, as in t.format.
    return renderer.figure(value, decimals);
  };
  t.parseNumber = parseDigits;
  return t;
}

/**
 * What a reader typed, in Latin digits: Persian (۰-۹) and Arabic-Indic
 * (٠-٩) digits and the Arabic decimal separator (٫) become 0-9 and '.';
 * group separators (',' '٬') go. The result is validated like a URL value.
 */
export function parseDigits(text) {
  return String(text)
    .trim()
    .replace(/[\u06f0-\u06f9]/g, (d) => String(d.charCodeAt(0) - 0x6f0))
    .replace(/[\u0660-\u0669]/g, (d) => String(d.charCodeAt(0) - 0x660))
    .replace(/[\u066b]/g, '.')
    .replace(/[,\u066c]/g, '');
}

/** Characters a number input accepts as typed: digits of any of the three systems and separators. */
export const NUMBER_CHARS = /^[\d\u0660-\u0669\u06f0-\u06f9.,\u066b\u066c]*$/;

/**
 * Where a text that is not JSON goes wrong, as a message in the reader's
 * language, from the browser's parser's English words (which differ by
 * browser): a line and column (Firefox, recent Chromium), a character
 * (older V8), a text that ends too soon, or no place named.
 */
export function jsonWhere(detail) {
  const text = String(detail || '');
  const line = /line (\d+),? column (\d+)/i.exec(text);
  if (line) return { id: 'jsonWhere.line', params: { line: Number(line[1]), column: Number(line[2]) } };
  const at = /position (\d+)/i.exec(text);
  if (at) return { id: 'jsonWhere.char', params: { char: Number(at[1]) + 1 } };
  if (/end of (JSON )?(input|data)|unterminated|unexpected end/i.test(text)) return { id: 'jsonWhere.end', params: {} };
  return { id: 'jsonWhere.unknown', params: {} };
}

/** The kinds of failure failureReason names (failure.* in the catalogs). */
export const FAILURES = ['memory', 'wasm', 'file', 'fault', 'network', 'other'];

/**
 * Why the browser or the module failed, as a message in the reader's
 * language, from what was thrown (an Error, a DOMException, or its text as
 * a Worker passes it on: "RuntimeError: unreachable"): memory the browser
 * would not give, WebAssembly switched off or too old, a download that
 * failed, a file the browser could not read, a fault in the module, or
 * none of these. The browser's own English stays in the console.
 */
export function failureReason(error) {
  const text = String((error && error.message) || error || '');
  const name = (error && error.name) || (/^(\w+):/.exec(text) || [])[1] || '';
  let why = 'other';
  if (/out of memory|cannot enlarge memory|allocation failed|could not allocate|OOM/i.test(text)) why = 'memory';
  else if (typeof WebAssembly === 'undefined' || name === 'CompileError' || name === 'LinkError') why = 'wasm';
  else if (['NotReadableError', 'NotFoundError', 'SecurityError', 'AbortError', 'NotAllowedError'].includes(name)) why = 'file';
  else if (name === 'RuntimeError' || /unreachable|out of bounds|Aborted\(/.test(text)) why = 'fault';
  else if (/fetch|network|load failed/i.test(text)) why = 'network';
  return { id: `failure.${why}`, params: {} };
}

/** A problem { code, ...values } from state.js or config.js, as a message. */
export function problemMessage(error) {
  const { code, ...params } = error;
  if (code === 'configType') params.kind = { id: `kind.${params.kind}` };
  // The parser's own English never reaches an Arabic or Persian sentence.
  if (code === 'configJson' || code === 'catalogJson') return { id: `problem.${code}`, params: { ...params, detail: jsonWhere(params.detail) } };
  // Nor the module's trap's.
  if (code === 'ckptCrashed') return { id: 'problem.ckptCrashed', params: { reason: failureReason(params.message) } };
  return { id: `problem.${code}`, params };
}
