// The page's message renderer: a message {id, params} in, plain text out,
// from the catalogs of data/messages/ (docs/i18n.md). The CLI's renderer
// (core/src/messages.cpp) follows the same rules; tests/vectors/messages.json
// holds both to the same cases.
//
//   const { render, t } = createRenderer({ catalogs, lang: 'fa', digits: 'latn', unit: 'GiB' });
//   render({ id: 'formula.weights', params: { params: 7e10 } });  // one message
//   t('view.grid');                                              // an id and params
//
// catalogs: { en: {...}, ar: {...}, fa: {...} }, one flat object per language.
// lang: a language tag ('fa', 'fa-IR'); one with no catalog renders English.
// digits: undefined or '' for the language's own, 'latn' or 'native'.
// unit: 'GB' (decimal, the default) or 'GiB', for the gb, gb0, gb2 and gap styles.
// isolate: true for a right-to-left page (web/src/i18n.js): every Latin run
// and every parameter comes out in a Unicode isolate (below), so the
// sentence reads in the reader's order.
//
// An entry missing from the language's catalog comes from English; an id in
// no catalog renders as the id itself (listed in `missing`, so tests can
// check that no view hits one). A missing parameter shows its placeholder as
// written; a number that cannot be shown (NaN, Infinity, null) shows `–`.
// The result is text, never markup: put it in a text node.
import { BYTES_PER_GB, BYTES_PER_GIB, roundDisplay } from './format.js';

const NO_VALUE = '\u2013';
// Nested messages come from results, but a result is input too: bound it.
const MAX_DEPTH = 16;
const PLACEHOLDER = /\{([A-Za-z0-9_]+)(?::(int|d[0-6]|gb[02]?|gap|gib|pct|usd|msg|plus|list|rate|code))?\}/g;

// Digits and separators (docs/i18n.md), and the percent sign: what the CLI's
// renderer writes (core/src/messages.cpp NumberSystem). `locale` is the Intl
// locale a host would ask for the same digits; the page itself formats
// without Intl, as the CLI does, so both write every digit alike and the
// first answer does not wait for ICU's first number format (20 to 30 ms in
// a fresh tab). Any other language writes Latin digits.
const LATIN = { locale: 'en-u-nu-latn', percent: '%', digits: '0123456789', group: ',', decimal: '.' };
const ARABIC = { group: '\u066C', decimal: '\u066B' };
const SYSTEMS = {
  ar: { latn: LATIN, native: { locale: 'ar-u-nu-arab', percent: '%', digits: '\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669', ...ARABIC } },
  fa: { latn: LATIN, native: { locale: 'fa-u-nu-arabext', percent: '\u066A', digits: '\u06F0\u06F1\u06F2\u06F3\u06F4\u06F5\u06F6\u06F7\u06F8\u06F9', ...ARABIC } },
};
// A placeholder, or one character of a literal number written in the
// template: a Persian or Arabic-Indic digit, the Arabic percent sign, decimal
// point or group separator. Latin digits are part of names (H100, FP8) and stay.
const TEMPLATE = new RegExp(`${PLACEHOLDER.source}|([\u0660-\u066C\u06F0-\u06F9])`, 'g');
const DEFAULT_DIGITS = { ar: 'latn', fa: 'native' };

// Right to left (isolate: true; docs/i18n.md, "Right to left"). A sentence
// of Arabic or Persian words with numbers, units, names and flags among them
// reads right to left, one item after the other in the template's order, and
// each Latin item left to right inside. The Unicode bidirectional algorithm
// does that only where every Latin item is cut off from its neighbours: left
// alone, "ذاكرة KV ۲ GB" joins "KV" and "2 GB" into one left-to-right run
// (the reader meets GB before KV), and a nested sentence that starts with
// "40 GB" is laid out left to right by a first-strong isolate. So, at render
// time, when the values are known:
// - a Latin run is one isolate (FSI ... PDI: its first strong letter is
//   Latin, so it is laid out left to right). A run is the template's Latin
//   words, numbers and the parameters whose value is a number or a Latin
//   text, joined by spaces only ("{count}× {name}": "4× H100 PCIe";
//   "{ms:d2} ms"; "HTTP {status}"; "{ngl_flag} {ngl:code}": "-ngl 37"),
//   except where two bare numbers meet ("الـ{users:int} {expected:d1}");
//   brackets, quotes, slashes and sentence punctuation at its edges stay outside it
//   (in the sentence's direction, so they mirror), and anything else (an
//   Arabic or Persian letter, " × ", " + ", " = ", "،", a range's "–") ends it;
// - a parameter whose value is the language's own text (a nested message, a
//   list, a string with Arabic-script letters) is a right-to-left isolate
//   (RLI ... PDI): a sentence of the language even when it starts with
//   "40 GB", never laid out by its first strong letter; a list's items are
//   each isolated inside it, so they too come right to left.
// Bidi marks a translator wrote (U+200E, U+200F, U+2066-U+2069) are kept and
// end a run. English is never isolated: its direction is already the runs'.
const FSI = '\u2068';
const RLI = '\u2067';
const PDI = '\u2069';
const RTL_LETTER = /(?=[\p{L}\p{M}])[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]|[\u0640\u200c]/u;
const LATIN_CORE = /[\p{L}\p{N}]/u;
const SPACE = /\s/u;
// What a Latin run leaves outside it at either edge.
const EDGE = /[()[\]{}«»“”‘’"'.,:;!?/\u060c\u061b\u061f…—\p{Cf}]/u;
// A range's dash ends a run too: "{low}–{high}" is two figures read right to
// left, as the bidirectional algorithm reads "٤٨–٥٢" in Arabic text.
const DASH = '\u2013';

// Two Latin pieces with only white space between are one run, unless the
// words that meet are both bare numbers: "4 28.8" is two figures, each read
// in the sentence's order, where "TP 4", "40 GB" and "-ngl 37" are one item.
const LETTER = /\p{L}/u;
const joins = (before, after) => LETTER.test(/\S*$/u.exec(before)[0]) || LETTER.test(/^\S*/u.exec(after)[0]);

/** Whether a parameter's value is the language's own text (isolated right to left) rather than a Latin item. */
function ownText(value, style) {
  if (style === 'msg' || style === 'plus' || style === 'list') return true;
  if (style) return false; // a number under a numeric style
  if (typeof value === 'string') return RTL_LETTER.test(value);
  return isMessage(value) || Array.isArray(value);
}

/**
 * The shortest decimal that reads back as `value` (finite, >= 0), in fixed
 * notation, 1e23 as "100000000000000000000000": JavaScript's own digits,
 * written out where it would use an exponent (core/src/messages.cpp
 * shortest_decimal).
 */
export function shortestDecimal(value) {
  if (value === 0) return '0';
  if (!Number.isFinite(value)) return NO_VALUE;
  const text = String(value);
  const e = text.indexOf('e');
  if (e < 0) return text;
  const digits = text.slice(0, e).replace('.', '');
  const exponent = Number(text.slice(e + 1));
  if (exponent < 0) return `0.${'0'.repeat(-exponent - 1)}${digits}`;
  if (digits.length <= exponent + 1) return digits + '0'.repeat(exponent + 1 - digits.length);
  return `${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
}

/**
 * A decimal text (shortestDecimal's) rounded half away from zero to at most
 * `decimals` places, its trailing zeros dropped: as Intl rounds, on the
 * decimal digits and not on the binary value (1.005 to 2 places is 1.01).
 */
export function roundDecimalText(text, decimals) {
  const point = text.indexOf('.');
  if (point < 0 || text.length - point - 1 <= decimals) return text;
  const kept = (text.slice(0, point) + text.slice(point + 1, point + 1 + decimals)).split('');
  if (text.charCodeAt(point + 1 + decimals) >= 53) { // the first digit dropped is 5 or more
    let i = kept.length - 1;
    while (i >= 0 && kept[i] === '9') kept[i--] = '0';
    if (i < 0) kept.unshift('1');
    else kept[i] = String(Number(kept[i]) + 1);
  }
  const cut = kept.length - decimals;
  const whole = kept.slice(0, cut).join('').replace(/^0+(?=\d)/, '') || '0';
  const fraction = kept.slice(cut).join('').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/**
 * CLDR's cardinal plural category (plurals.xml) for en, fa and ar, on the
 * value rounded to 3 decimals as Intl.PluralRules reads it by default; the
 * CLI's plural_category has the same rules.
 */
function pluralCategory(lang, value) {
  if (!Number.isFinite(value)) return 'other';
  const n = roundDisplay(Math.abs(value), 3);
  const i = Math.floor(n);
  const whole = n === i;
  if (lang === 'en') return i === 1 && whole ? 'one' : 'other';
  if (lang === 'fa') return i === 0 || n === 1 ? 'one' : 'other';
  if (lang === 'ar') {
    const mod100 = whole ? n % 100 : -1;
    if (n === 0) return 'zero';
    if (n === 1) return 'one';
    if (n === 2) return 'two';
    if (mod100 >= 3 && mod100 <= 10) return 'few';
    if (mod100 >= 11 && mod100 <= 99) return 'many';
  }
  return 'other';
}

// From here a number shows as a power of ten (number's compact form).
const COMPACT_FROM = 1e16;

const isMessage = (value) => value !== null && typeof value === 'object' && !Array.isArray(value) && typeof value.id === 'string';

// A number a program reads (a command's flag: `-ngl 37`): whole, rounded half
// away from zero, in Latin digits and ungrouped in every language.
function codeNumber(value) {
  if (!Number.isFinite(value)) return NO_VALUE;
  let rounded = roundDisplay(value, 0);
  if (!Number.isFinite(rounded)) rounded = value;
  return `${rounded < 0 ? '-' : ''}${shortestDecimal(Math.abs(rounded)).split('.')[0]}`;
}

/** A renderer for one language, digit system and display unit (see above). */
export function createRenderer({ catalogs, lang = 'en', digits, unit = 'GB', isolate = false } = {}) {
  if (!catalogs || typeof catalogs !== 'object') throw new TypeError('createRenderer: catalogs must be an object per language');
  if (digits !== undefined && digits !== '' && digits !== 'latn' && digits !== 'native') throw new RangeError(`createRenderer: digits must be 'latn' or 'native', not ${digits}`);
  if (unit !== 'GB' && unit !== 'GiB') throw new RangeError(`createRenderer: unit must be 'GB' or 'GiB', not ${unit}`);
  const base = String(lang).split(/[-_]/)[0].toLowerCase();
  const own = Object.hasOwn(catalogs, base) ? catalogs[base] : undefined;
  const english = Object.hasOwn(catalogs, 'en') ? catalogs.en : {};
  const system = SYSTEMS[base]?.[digits || DEFAULT_DIGITS[base]] || LATIN;
  const bytesPerUnit = unit === 'GiB' ? BYTES_PER_GIB : BYTES_PER_GB;
  const unitSuffix = ` ${unit}`;
  const missing = new Set();

  // A decimal text ("12345.6") in this renderer's digits, grouped by
  // thousands or not, padded with zeros to `min` decimals.
  function digitsOf(text, grouped, min = 0) {
    if (text === NO_VALUE) return text;
    const point = text.indexOf('.');
    const whole = point < 0 ? text : text.slice(0, point);
    let fraction = point < 0 ? '' : text.slice(point + 1);
    if (fraction.length < min) fraction += '0'.repeat(min - fraction.length);
    let out = '';
    for (let i = 0; i < whole.length; i++) {
      if (grouped && i > 0 && (whole.length - i) % 3 === 0) out += system.group;
      out += system.digits[whole.charCodeAt(i) - 48];
    }
    if (!fraction) return out;
    out += system.decimal;
    for (let i = 0; i < fraction.length; i++) out += system.digits[fraction.charCodeAt(i) - 48];
    return out;
  }

  // Rounded for display, grouped, in the language's digits; the sign (an
  // ASCII hyphen-minus, as in the CLI) goes before the prefix: "-$5".
  function number(value, min, max, prefix = '', suffix = '') {
    if (!Number.isFinite(value)) return NO_VALUE;
    // Near the double's limit the scaled rounding overflows; such a value has
    // no fraction to round anyway (as the CLI's renderer).
    let rounded = roundDisplay(value, max);
    if (!Number.isFinite(rounded)) rounded = value;
    const sign = rounded < 0 ? '-' : '';
    if (Math.abs(rounded) >= COMPACT_FROM) return `${sign}${prefix}${compact(Math.abs(rounded))}${suffix}`;
    return `${sign}${prefix}${digitsOf(shortestDecimal(Math.abs(rounded)), true, min)}${suffix}`;
  }

  // A value past the digits a double holds exactly (>= 1e16, a hostile 1e308
  // among them) as its first three significant digits, rounded half up on the
  // decimal digits, times a power of ten: "1.8×10^308", never 309 digits (the
  // CLI's renderer writes the same).
  function compact(value) {
    const whole = shortestDecimal(value).split('.')[0];
    let exponent = whole.length - 1;
    let kept = whole.slice(0, 3).split('').map(Number);
    if (whole.length > 3 && whole.charCodeAt(3) >= 53) {
      let i = kept.length - 1;
      while (i >= 0 && kept[i] === 9) kept[i--] = 0;
      if (i < 0) {
        kept = [1, ...kept.slice(0, -1)];
        exponent++;
      } else kept[i]++;
    }
    const mantissa = kept.join('').replace(/(?<=.)0+$/, '');
    const text = mantissa.length > 1 ? `${mantissa[0]}.${mantissa.slice(1)}` : mantissa;
    return `${digitsOf(text, false)}\u00d7${digitsOf('10', false)}^${digitsOf(String(exponent), false)}`;
  }

  // A gap or a margin in the display unit (short by, spare): one decimal, or
  // up to three while a value other than 0 would show as 0 ("0.03 GB short",
  // never "0.0 GB short").
  function gap(units) {
    let decimals = 1;
    while (decimals < 3 && units !== 0 && roundDisplay(units, decimals) === 0) decimals++;
    return number(units, decimals, decimals, '', unitSuffix);
  }

  // A figure rounded on its decimal digits to at most `decimals` places
  // (0..12), not padded, grouped or not; the sign only when it does not round to 0.
  function figure(value, decimals, grouped) {
    if (!Number.isFinite(value)) return NO_VALUE;
    const text = roundDecimalText(shortestDecimal(Math.abs(value)), decimals);
    return `${value < 0 && /[1-9]/.test(text) ? '-' : ''}${digitsOf(text, grouped)}`;
  }

  // A template's literal number character (see TEMPLATE) in this renderer's digits.
  function literal(char) {
    const code = char.charCodeAt(0);
    if (code >= 0x06f0) return system.digits[code - 0x06f0];
    if (code <= 0x0669) return system.digits[code - 0x0660];
    return code === 0x066a ? system.percent : code === 0x066b ? system.decimal : system.group;
  }

  function styled(value, style, depth) {
    if (!style || style === 'msg' || style === 'list') return textOf(value, depth);
    if (style === 'plus') return Array.isArray(value) ? joined(value, 'list.plus', depth) : textOf(value, depth);
    if (typeof value !== 'number') return NO_VALUE;
    switch (style) {
      case 'int': return number(value, 0, 0);
      case 'gb': return number(value / bytesPerUnit, 1, 1, '', unitSuffix);
      case 'gb0': return number(value / bytesPerUnit, 0, 0, '', unitSuffix);
      case 'gb2': return number(value / bytesPerUnit, 2, 2, '', unitSuffix);
      case 'gap': return gap(value / bytesPerUnit);
      case 'gib': return number(value, 2, 2, '', ' GiB');
      case 'pct': return number(value, 0, 2, '', system.percent);
      case 'usd': return number(value, 0, 0, '$');
      // A speed: whole units from 10 up, one decimal below (2.3 tokens/s, not 2).
      case 'rate': return Math.abs(value) < 9.95 ? number(value, 1, 1) : number(value, 0, 0);
      case 'code': return codeNumber(value);
      default: return number(value, Number(style[1]), Number(style[1])); // d0 .. d6
    }
  }

  // A parameter shown without a numeric style.
  function textOf(value, depth) {
    if (typeof value === 'string') return value;
    if (typeof value === 'number') return number(value, 0, 2);
    if (isMessage(value)) return message(value.id, value.params, depth + 1);
    if (Array.isArray(value)) return joined(value, 'list.sep', depth);
    return NO_VALUE;
  }

  function joined(items, separatorId, depth) {
    if (depth > MAX_DEPTH) return NO_VALUE;
    const separator = message(separatorId, undefined, depth + 1);
    // Right to left each item is isolated, so the list comes right to left.
    if (isolate) return items.map((item) => (ownText(item, '') ? RLI : FSI) + textOf(item, depth + 1) + PDI).join(separator);
    return items.map((item) => textOf(item, depth + 1)).join(separator);
  }

  function message(id, params, depth) {
    if (depth > MAX_DEPTH) return NO_VALUE;
    let entryLang = base;
    let entry = own && Object.hasOwn(own, id) ? own[id] : undefined;
    if (entry === undefined) {
      entryLang = 'en';
      entry = Object.hasOwn(english, id) ? english[id] : undefined;
    }
    if (entry === undefined) {
      missing.add(id);
      return String(id);
    }
    const values = params !== null && typeof params === 'object' && !Array.isArray(params) ? params : {};
    const has = (name) => Object.hasOwn(values, name) && values[name] !== undefined;
    let template = entry;
    if (typeof entry === 'object' && entry !== null) {
      // A plural entry: the category in the template's own language (an
      // English fallback takes English plurals).
      const count = Object.hasOwn(values, entry.plural) ? values[entry.plural] : undefined;
      const category = typeof count === 'number' ? pluralCategory(entryLang, count) : 'other';
      template = typeof entry[category] === 'string' ? entry[category] : entry.other;
    }
    if (typeof template !== 'string') return String(id);
    if (isolate) return isolated(planOf(template), values, has, depth);
    let out = '';
    for (const part of partsOf(template)) {
      if (typeof part === 'string') out += part;
      else out += has(part.name) ? styled(values[part.name], part.style, depth) : part.written;
    }
    return out;
  }

  // A template's plan rendered right to left (the comment above FSI): each
  // Latin run in a first-strong isolate, each value of the language's own
  // text in a right-to-left one.
  function isolated(plan, values, has, depth) {
    let out = '';
    let run = null;
    const flush = () => {
      if (run !== null) out += FSI + run + PDI;
      run = null;
    };
    for (const entry of plan) {
      if (typeof entry === 'string') {
        flush();
        out += entry;
        continue;
      }
      let text = '';
      let latin = true;
      for (const part of entry.parts) {
        if (typeof part === 'string') text += part;
        else if (!has(part.name)) text += part.written;
        else if (ownText(values[part.name], part.style)) {
          latin = false;
          text += RLI + styled(values[part.name], part.style, depth) + PDI;
        } else text += styled(values[part.name], part.style, depth);
      }
      if (latin && run !== null && entry.gap !== null && joins(run, text)) run += entry.gap + text;
      else {
        flush();
        if (entry.gap !== null) out += entry.gap;
        if (latin) run = text;
        else out += text;
      }
    }
    flush();
    return out;
  }

  // A template split for right-to-left rendering: its literal text as is
  // (Arabic or Persian words, spaces, punctuation), and its Latin pieces
  // { parts, gap }: a maximal stretch of a word with no Arabic-script letter
  // that holds a Latin letter, a digit or a placeholder, less the
  // punctuation at its edges (EDGE); `gap` is the white space that joins it
  // to the piece before (null where anything else comes between).
  const plans = new Map();
  function planOf(template) {
    let plan = plans.get(template);
    if (plan !== undefined) return plan;
    // One atom per character of literal text, one per placeholder.
    const atoms = [];
    for (const part of partsOf(template)) {
      if (typeof part === 'string') for (const char of part) atoms.push(char);
      else atoms.push(part);
    }
    const space = (a) => typeof a === 'string' && SPACE.test(a);
    const rtl = (a) => typeof a === 'string' && RTL_LETTER.test(a);
    // What ends a stretch besides white space: an Arabic-script letter (a
    // combining mark goes with the letter before it) or a range's dash.
    const ends = atoms.map((a, i) => a === DASH || rtl(a) || (typeof a === 'string' && /\p{M}/u.test(a) && i > 0 && rtl(atoms[i - 1])));
    plan = [];
    let text = '';
    let last = null; // the piece before, while only white space followed it
    let i = 0;
    while (i < atoms.length) {
      if (space(atoms[i]) || ends[i]) {
        text += atoms[i];
        if (!space(atoms[i])) last = null;
        i++;
        continue;
      }
      // A stretch of a word with no Arabic-script letter and no dash: [i, end).
      let end = i;
      while (end < atoms.length && !space(atoms[end]) && !ends[end]) end++;
      let start = i;
      let stop = end;
      const edge = (a) => typeof a === 'string' && EDGE.test(a);
      while (start < stop && edge(atoms[start])) start++;
      while (stop > start && edge(atoms[stop - 1])) stop--;
      // Brackets stay paired: "(HTTP" and "404)" leave both outside, "f(x)" keeps both inside.
      const count = (char) => atoms.slice(start, stop).filter((a) => a === char).length;
      for (const [open, close] of [['(', ')'], ['[', ']']]) {
        while (count(open) > count(close) && stop < end && atoms[stop] === close) stop++;
        while (count(close) > count(open) && start > i && atoms[start - 1] === open) start--;
      }
      const core = atoms.slice(start, stop).some((a) => typeof a !== 'string' || LATIN_CORE.test(a));
      if (!core) {
        for (let k = i; k < end; k++) text += atoms[k];
        last = null;
        i = end;
        continue;
      }
      for (let k = i; k < start; k++) text += atoms[k];
      const gap = last !== null && start === i && /^\s+$/u.test(text) ? text : null;
      if (gap === null && text) plan.push(text);
      text = '';
      const parts = [];
      for (let k = start; k < stop; k++) {
        if (typeof atoms[k] !== 'string') parts.push(atoms[k]);
        else if (typeof parts[parts.length - 1] === 'string') parts[parts.length - 1] += atoms[k];
        else parts.push(atoms[k]);
      }
      last = { parts, gap };
      plan.push(last);
      for (let k = stop; k < end; k++) text += atoms[k];
      if (stop < end) last = null;
      i = end;
    }
    if (text) plan.push(text);
    plans.set(template, plan);
    return plan;
  }

  // A template as its literal text (its written digits already in this
  // renderer's) and its placeholders, split once: every change redraws an
  // answer of a hundred messages, and a regular expression's replace with a
  // callback on each took a fifth more instructions in V8's interpreter
  // (a tenth once optimised). Bounded by the catalogs' entries.
  const templates = new Map();
  function partsOf(template) {
    let parts = templates.get(template);
    if (parts !== undefined) return parts;
    parts = [];
    let text = '';
    let last = 0;
    for (const match of template.matchAll(TEMPLATE)) {
      text += template.slice(last, match.index);
      last = match.index + match[0].length;
      if (match[3]) text += literal(match[3]);
      else {
        if (text) parts.push(text);
        text = '';
        parts.push({ name: match[1], style: match[2], written: match[0] });
      }
    }
    text += template.slice(last);
    if (text) parts.push(text);
    templates.set(template, parts);
    return parts;
  }

  // An entry without parameters always reads the same: rendered once. Most of
  // an answer's words are such labels, and every change redraws the answer.
  const plain = new Map();
  function label(id) {
    let text = plain.get(id);
    if (text === undefined) {
      text = message(id, undefined, 0);
      plain.set(id, text);
    }
    return text;
  }

  return {
    lang: base,
    /** The Intl locale that writes this renderer's digits and separators. */
    locale: system.locale,
    missing,
    /** Whether some catalog has `id` (English's, where the language's has none). */
    has: (id) => (own !== undefined && Object.hasOwn(own, id)) || Object.hasOwn(english, id),
    /** A bare number with exactly `decimals` decimals, as the d0..d6 styles write it. */
    number: (value, decimals = 0) => number(value, decimals, decimals),
    /**
     * A value rounded half away from zero on its decimal digits to at most
     * `decimals` places (0..12), trailing zeros dropped, in this renderer's
     * digits, grouped by thousands when `grouped`; the sign (ASCII
     * hyphen-minus) unless it rounds to 0; NaN and Infinity as `–`.
     */
    figure: (value, decimals, grouped = true) => figure(value, decimals, grouped),
    /** One message {id, params} as text. */
    render: (msg) => (isMessage(msg) ? message(msg.id, msg.params, 0) : NO_VALUE),
    /** An id and its params as text. */
    t: (id, params) => (params === undefined ? label(String(id)) : message(String(id), params, 0)),
  };
}
