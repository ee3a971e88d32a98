// The page's message renderer (web/src/messages.js) against the shared
// vectors (tests/vectors/messages.json, also run by tests/cpp/test_messages.cpp),
// plural rules, hostile parameters and its options.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRenderer } from '../../web/src/messages.js';
import { roundDisplay } from '../../web/src/format.js';

const vectors = JSON.parse(readFileSync(new URL('../vectors/messages.json', import.meta.url), 'utf8'));
const { catalogs } = vectors;
const en = createRenderer({ catalogs });

test('every case of tests/vectors/messages.json', () => {
  assert.ok(vectors.cases.length > 20);
  for (const c of vectors.cases) {
    const { render } = createRenderer({ catalogs, lang: c.lang, digits: c.digits, unit: c.unit ?? 'GB' });
    assert.equal(render({ id: c.id, params: c.params }), c.expected, JSON.stringify(c));
  }
});

test('a missing parameter shows its placeholder as written; an unknown id shows the id', () => {
  assert.equal(en.t('t.gb', { gib: 1 }), '{bytes:gb} / {bytes:gb0} / 1.00 GiB');
  assert.equal(en.t('t.reason', { name: undefined }), '{name} has no FP8 support');
  assert.equal(en.t('t.reason', [1, 2]), '{name} has no FP8 support');
  assert.equal(en.t('t.reason', { constructor: 'x' }), '{name} has no FP8 support');
  const fresh = createRenderer({ catalogs });
  assert.equal(fresh.t('no.such.id'), 'no.such.id');
  assert.deepEqual([...fresh.missing], ['no.such.id']);
});

test('an entry asked for without parameters is rendered once and reads the same every time', () => {
  // The catalog counts how often the label's entry is read.
  let reads = 0;
  const counted = { ...catalogs.en };
  Object.defineProperty(counted, 't.label', { enumerable: true, get: () => (reads++, 'Weights') });
  const once = createRenderer({ catalogs: { en: counted } });
  for (let i = 0; i < 5; i++) assert.equal(once.t('t.label'), 'Weights');
  assert.equal(reads, 1);
  const r = createRenderer({ catalogs });
  const first = r.t('t.reason');
  assert.equal(first, '{name} has no FP8 support');
  // With parameters it is rendered afresh; without, the first text again.
  assert.equal(r.t('t.reason', { name: 'A100' }), 'A100 has no FP8 support');
  assert.equal(r.t('t.reason'), first);
  // The same id in another renderer (language, digits, unit) is its own.
  assert.equal(createRenderer({ catalogs, unit: 'GiB' }).t('t.reason', { name: 'L4' }), 'L4 has no FP8 support');
  // An unknown id stays listed as missing however often it is asked for.
  assert.equal(r.t('no.such.label'), 'no.such.label');
  assert.equal(r.t('no.such.label'), 'no.such.label');
  assert.deepEqual([...r.missing], ['no.such.label']);
});

test('NaN, Infinity, null and the wrong type show a dash, never "NaN"', () => {
  assert.equal(en.t('t.gb', { bytes: NaN, gib: Infinity }), '\u2013 / \u2013 / \u2013');
  assert.equal(en.t('t.plain', { count: null, share: -Infinity }), '\u2013 cards, \u2013 share');
  assert.equal(en.t('t.money', { usd: '7128', pct: true }), '\u2013 at \u2013 off');
  assert.equal(en.render(null), '\u2013');
  assert.equal(en.render({ id: 3 }), '\u2013');
});

test('negative zero and what rounds to zero lose the sign; others keep it', () => {
  assert.equal(en.t('t.money', { usd: -0, pct: -0.004 }), '$0 at 0% off');
  assert.equal(en.t('t.money', { usd: -1490.5, pct: -2.345 }), '-$1,491 at -2.35% off');
  const fa = createRenderer({ catalogs, lang: 'fa-IR' });
  assert.equal(fa.t('t.plain', { count: 2, share: -1.5 }), '۲ کارت، سهم -۱٫۵');
});

test('huge numbers print as a power of ten from 1e16, as the CLI does; below, every digit', () => {
  assert.equal(en.t('t.part', { params: 1e23, bits: 1e-7 }), '1×10^23 x 0.0');
  assert.equal(en.t('t.part', { params: 9999999999999998, bits: 1 }), '9,999,999,999,999,998 x 1.0');
  assert.equal(en.t('t.part', { params: 9.9999e16, bits: 1 }), '1×10^17 x 1.0');
});

test('nested messages and lists', () => {
  const reason = { id: 't.reason', params: { name: 'X' } };
  assert.equal(en.t('t.names', { fields: ['a', 1.5, reason] }), 'Placeholders: a, 1.5, X has no FP8 support');
  assert.equal(en.t('t.sum', { parts: 'one part', bytes: 0 }), 'one part = 0.00 GB');
  // Deeper than the bound (or a cycle) stops with a dash instead of a stack overflow.
  let deep = { id: 't.nested', params: { reason: 'end' } };
  for (let i = 0; i < 40; i++) deep = { id: 't.nested', params: { reason: deep } };
  const text = en.t('t.nested', { reason: deep });
  assert.ok(text.includes('\u2013') && !text.includes('end'), text);
  const cycle = { id: 't.nested', params: {} };
  cycle.params.reason = cycle;
  assert.ok(en.render(cycle).endsWith('\u2013'));
  const list = ['a'];
  list.push(list);
  assert.ok(en.t('t.names', { fields: list }).endsWith('\u2013'));
});

test('text that is not a placeholder stays as written; nothing is escaped or parsed as markup', () => {
  const r = createRenderer({ catalogs: { en: { x: 'a { b {c:bogus} <{v}>' } } });
  assert.equal(r.t('x', { c: 1, v: '<b>' }), 'a { b {c:bogus} <<b>>');
});

test('plural categories: English fallback takes English plurals; ar has six forms', () => {
  const ar = createRenderer({ catalogs, lang: 'ar' });
  const forms = { 0: 'لا نماذج', 1: 'نموذج واحد', 2: 'نموذجان', 3: '3 نماذج', 103: '103 نماذج', 11: '11 نموذجًا', 1011: '1,011 نموذجًا', 102: '102 نموذج', 3.5: '3.5 نموذج' };
  for (const [count, expected] of Object.entries(forms)) assert.equal(ar.t('t.models', { count: Number(count) }), expected);
  const de = createRenderer({ catalogs, lang: 'de', digits: 'native' });
  assert.equal(de.t('t.models', { count: 1 }), '1 matching model');
  assert.equal(de.t('t.models', { count: 1.0004 }), '1 matching model');
  assert.equal(de.t('t.models', { count: 1.5 }), '1.5 matching models');
  assert.equal(de.t('t.models', { count: 'x' }), 'x matching models');
  const fa = createRenderer({ catalogs, lang: 'fa', digits: 'native' });
  assert.equal(fa.t('t.money', { usd: 10, pct: 1 }), '$۱۰ با ۱٪ تخفیف');
});

test('options are checked', () => {
  assert.throws(() => createRenderer({}), TypeError);
  assert.throws(() => createRenderer({ catalogs, digits: 'arab' }), RangeError);
  assert.throws(() => createRenderer({ catalogs, unit: 'MB' }), RangeError);
});

test('no Intl formatter or plural rule is built to render messages (a fresh tab pays 20 to 30 ms for the first)', () => {
  const built = { NumberFormat: 0, PluralRules: 0 };
  const originals = { NumberFormat: Intl.NumberFormat, PluralRules: Intl.PluralRules };
  for (const name of Object.keys(built)) {
    Intl[name] = class extends originals[name] {
      constructor(...args) {
        super(...args);
        built[name]++;
      }
    };
  }
  try {
    const ar = createRenderer({ catalogs, lang: 'ar', digits: 'native', unit: 'GiB' });
    for (let i = 0; i < 500; i++) {
      ar.t('t.gb', { bytes: 1e9 * i, gib: i / 7 });
      ar.t('t.models', { count: i });
      ar.t('t.money', { usd: i, pct: i / 3 });
    }
    ar.t('t.flags', { flag: '-ngl', n: 37 });
    assert.equal(built.NumberFormat, 0, `${built.NumberFormat} NumberFormats for 1,500 messages`);
    assert.equal(built.PluralRules, 0, `${built.PluralRules} PluralRules for 500 plurals`);
  } finally {
    Object.assign(Intl, originals);
  }
});

// The page formats numbers without Intl (the first number format costs a
// fresh tab 20 to 30 ms); it must still write what Intl writes, digit for
// digit, in every system it speaks. Node's full ICU is the reference.
test('numbers and plural categories as Intl writes them, without Intl', () => {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const values = [0, 0.5, 1, 1.005, 2.675, 9.995, 999.5, 1e21, 1.5e22, 123456789.125, 1e-7, 4.35, 0.045];
  for (let i = 0; i < 3000; i++) values.push(Number(((random() - 0.5) * 10 ** Math.floor(random() * 16 - 4)).toPrecision(1 + Math.floor(random() * 15))));
  const systems = [['en', undefined, 'en-u-nu-latn'], ['fa', undefined, 'fa-u-nu-arabext'], ['ar', 'native', 'ar-u-nu-arab']];
  for (const [lang, digits, locale] of systems) {
    const r = createRenderer({ catalogs, lang, digits });
    for (const decimals of [0, 1, 2, 3]) {
      const fixed = new Intl.NumberFormat(locale, { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
      const upTo = new Intl.NumberFormat(locale, { maximumFractionDigits: decimals, roundingMode: 'halfExpand' });
      for (const v of values) {
        const rounded = roundDisplay(v, decimals);
        const sign = rounded < 0 ? '-' : '';
        // From 1e16 the renderer writes a power of ten, not Intl's every digit.
        if (Math.abs(rounded) < 1e16) assert.equal(r.number(v, decimals), `${sign}${fixed.format(Math.abs(rounded))}`, `${lang} ${v} d${decimals}`);
        const upToText = upTo.format(Math.abs(v));
        const zero = !/[1-9\u0661-\u0669\u06f1-\u06f9]/.test(upToText);
        assert.equal(r.figure(v, decimals), `${v < 0 && !zero ? '-' : ''}${upToText}`, `${lang} ${v} up to ${decimals}`);
      }
    }
    const rules = new Intl.PluralRules(lang);
    const message = { plural: 'n', zero: 'zero', one: 'one', two: 'two', few: 'few', many: 'many', other: 'other' };
    const plural = createRenderer({ catalogs: { en: { p: message }, [lang]: { p: message } }, lang });
    // Past 1e15 ICU reads a plural's operands from fewer digits; the page
    // follows the CLI's rule (plural_category) there.
    for (const v of [...values, 3, 11, 100, 102, 111, 0.9999, 1.0001].filter((x) => Math.abs(x) < 1e15)) {
      assert.equal(plural.t('p', { n: v }), rules.select(roundDisplay(v, 3)), `${lang} plural of ${v}`);
    }
  }
});
