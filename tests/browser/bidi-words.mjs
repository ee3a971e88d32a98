// The reader's order of a message template, as tests/browser/bidi.test.mjs
// measures it (issue 41): which runs of a rendered Arabic or Persian
// sentence must land where, worked out in Node from the catalog's template
// and the values it is given, independently of the marks the page's
// renderer puts in (docs/i18n.md, "Right to left").
//
// A right-to-left sentence is a sequence of items read right to left, in the
// template's order:
// - each Arabic-script word;
// - each Latin run: the template's Latin words and numbers and the
//   parameters whose value is a number or a Latin text, joined by white
//   space only ("4× H100 PCIe", "28.81 ms", "HTTP 404", "-ngl 37"), but
//   not two bare numbers ("الـ4 28.8" is two items): read
//   left to right inside, its words never split or reordered; brackets,
//   quotes, slashes, sentence punctuation and bidi marks at its edges are
//   not part of it;
// - each parameter whose value is the language's own text (a nested
//   message, a string with Arabic-script letters), as one block (its own
//   template is measured on its own);
// - each item of a list parameter.
// A range's dash ("{low}–{high}") separates two items. Punctuation and
// symbols between items (" × ", "،", "(", "–") are not measured.
import { createRenderer } from '../../web/src/messages.js';

// The renderer's placeholder grammar (docs/i18n.md, "Catalog entries").
const PLACEHOLDER = /\{([A-Za-z0-9_]+)(?::(int|d[0-6]|gb[02]?|gap|gib|pct|usd|msg|plus|list|rate|code))?\}/g;
const ARABIC_LETTER = /[\u0640\u200c\u200d]|(?=[\p{L}\p{M}])\p{Script=Arabic}/u;
const CORE = /[\p{L}\p{N}]/u;
const EDGE = /[()[\]{}«»“”‘’"'.,:;!?/\u060c\u061b\u061f…—\p{Cf}]/u;
// The bidi marks: the translator's own, and the isolates the page's renderer adds.
export const MARKS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

const isMessage = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && typeof v.id === 'string';
const ownText = (value, style) =>
  style === 'msg' || style === 'plus' || style === 'list' || (!style && (isMessage(value) || Array.isArray(value) || (typeof value === 'string' && ARABIC_LETTER.test(value))));

/** The placeholders of a template: [{ name, style, index, length }]. */
export function placeholders(template) {
  return [...template.matchAll(PLACEHOLDER)].map((m) => ({ name: m[1], style: m[2] || '', index: m.index, length: m[0].length }));
}

/**
 * A plain renderer (no isolates) for one language and digits, able to render
 * a template's pieces one at a time: `piece(text)` a literal (its written
 * digits in the reader's), `value(name, style, params)` one placeholder.
 */
export function pieceRenderer(catalogs, lang, digits) {
  const own = { ...catalogs[lang] };
  const renderer = createRenderer({ catalogs: { en: catalogs.en, [lang]: own }, lang, digits });
  let n = 0;
  const probe = (template, params) => {
    const id = `\u0000probe${n++}`;
    own[id] = template;
    const text = renderer.t(id, params);
    delete own[id];
    return text;
  };
  return {
    renderer,
    piece: (text) => (text ? probe(text.replace(/\{/g, '{\u0000'), {}).replace(/\{\u0000/g, '{') : ''),
    value: (name, style, params) => probe(`{${name}${style ? `:${style}` : ''}}`, params),
    item: (value) => probe('{x}', { x: value }),
    separator: (id) => renderer.t(id),
  };
}

/**
 * One template with its values, as the reader must see it: { text, tokens, naive }.
 * `text` is the sentence without any mark the page adds (the translator's
 * own marks kept); each token { kind: 'word' | 'run' | 'block' | 'item',
 * start, end, words } spans text[start, end), in reading order; a run's
 * `words` are its space-separated words [start, end), left to right.
 * `naive` is the text with each placeholder alone in a first-strong isolate.
 */
export function readerOrder(pieces, template, params) {
  // Atoms: one per character of literal text, one per placeholder.
  const atoms = [];
  let text = '';
  // The same sentence as a renderer that isolates each placeholder alone by
  // its first strong letter would write it (the page before issue 41).
  let naive = '';
  let last = 0;
  const literal = (s) => {
    for (const char of pieces.piece(s)) {
      atoms.push({ char, start: text.length, end: text.length + char.length });
      text += char;
      naive += char;
    }
  };
  for (const p of placeholders(template)) {
    literal(template.slice(last, p.index));
    last = p.index + p.length;
    const value = params[p.name];
    if (value === undefined) throw new Error(`no value for {${p.name}}`);
    const start = text.length;
    naive += '\u2068';
    if (Array.isArray(value) && (p.style === 'list' || p.style === 'plus' || !p.style)) {
      const sep = pieces.separator(p.style === 'plus' ? 'list.plus' : 'list.sep');
      value.forEach((item, i) => {
        if (i) text += sep;
        const s = text.length;
        text += pieces.item(item);
        atoms.push({ kind: 'item', start: s, end: text.length });
      });
      atoms.push({ kind: 'break', start: text.length, end: text.length });
    } else {
      text += pieces.value(p.name, p.style, params);
      atoms.push({ kind: ownText(value, p.style) ? 'block' : 'latin', start, end: text.length });
    }
    naive += `${text.slice(start)}\u2069`;
  }
  literal(template.slice(last));

  const isSpace = (a) => a.char !== undefined && /\s/u.test(a.char);
  const isArabic = (a, i) =>
    a.char !== undefined && (ARABIC_LETTER.test(a.char) || (/\p{M}/u.test(a.char) && i > 0 && atoms[i - 1].char !== undefined && ARABIC_LETTER.test(atoms[i - 1].char)));
  const isEdge = (a) => a.char !== undefined && EDGE.test(a.char);
  const isCore = (a) => a.kind === 'latin' || (a.char !== undefined && CORE.test(a.char));
  // A range's dash separates two items: "{low}–{high}" reads right to left.
  const isDash = (a) => a.char === '\u2013';
  const breaks = (a, i) => isSpace(a) || isDash(a) || isArabic(a, i) || a.kind === 'block' || a.kind === 'item' || a.kind === 'break';

  const tokens = [];
  let joinable = false; // the last token is a run that only white space has followed since
  let i = 0;
  while (i < atoms.length) {
    const a = atoms[i];
    if (isSpace(a)) {
      i++;
      continue;
    }
    if (a.kind === 'block' || a.kind === 'item') {
      tokens.push({ kind: a.kind, start: a.start, end: a.end });
      joinable = false;
      i++;
      continue;
    }
    if (a.kind === 'break' || isDash(a)) {
      joinable = false;
      i++;
      continue;
    }
    if (isArabic(a, i)) {
      let end = i;
      while (end < atoms.length && isArabic(atoms[end], end)) end++;
      tokens.push({ kind: 'word', start: a.start, end: atoms[end - 1].end });
      joinable = false;
      i = end;
      continue;
    }
    // A stretch with no Arabic letter, no space: [i, end), less its edges.
    let end = i;
    while (end < atoms.length && !breaks(atoms[end], end)) end++;
    let s = i;
    let e = end;
    while (s < e && isEdge(atoms[s])) s++;
    while (e > s && isEdge(atoms[e - 1])) e--;
    const count = (c) => atoms.slice(s, e).filter((x) => x.char === c).length;
    for (const [open, close] of [['(', ')'], ['[', ']']]) {
      while (count(open) > count(close) && e < end && atoms[e].char === close) e++;
      while (count(close) > count(open) && s > i && atoms[s - 1].char === open) s--;
    }
    if (atoms.slice(s, e).some(isCore)) {
      const piece = { start: atoms[s].start, end: atoms[e - 1].end };
      const previous = tokens[tokens.length - 1];
      // Two bare numbers that meet are two items ("4 28.8"); "TP 4", "40 GB", "-ngl 37" are one.
      const meet = () => /\p{L}/u.test(/\S*$/u.exec(text.slice(previous.start, previous.end))[0]) || /\p{L}/u.test(/^\S*/u.exec(text.slice(piece.start, piece.end))[0]);
      if (joinable && s === i && previous?.kind === 'run' && meet()) previous.end = piece.end;
      else tokens.push({ kind: 'run', ...piece });
      joinable = e === end && (end >= atoms.length || isSpace(atoms[end]));
    } else joinable = false;
    i = end;
  }
  for (const token of tokens) {
    if (token.kind !== 'run') continue;
    token.words = [];
    for (const m of text.slice(token.start, token.end).matchAll(/\S+/gu)) token.words.push([token.start + m.index, token.start + m.index + m[0].length]);
  }
  return { text, tokens, naive };
}
