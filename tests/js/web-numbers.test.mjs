// Number fields (web/src/numbers.js): what people type, in any of the
// page's digit systems, and what must be refused rather than misread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONTEXT_PICKS, parseNumber } from '../../web/src/numbers.js';

const tokens = (text) => parseNumber(text, { suffixes: 'tokens', integer: true });
const count = (text) => parseNumber(text, { suffixes: 'count', integer: true });

test('token counts: k and M as model cards write them, groups, exponents', () => {
  const cases = [
    ['32k', 32768], ['128K', 131072], ['1M', 1048576], ['4k', 4096], ['0.5k', 512], ['32 k', 32768],
    ['32,768', 32768], ['1,048,576', 1048576], ['32 768', 32768], ['32\u202f768', 32768],
    ['3.2e4', 32000], ['1e5', 100000], ['1E5', 100000], ['8192', 8192], ['  8192 ', 8192], ['8192.0', 8192],
  ];
  for (const [text, expected] of cases) assert.deepEqual(tokens(text), { value: expected }, text);
});

test('Arabic-Indic and Persian digits and separators', () => {
  assert.deepEqual(tokens('\u0663\u0662k'), { value: 32768 }); // ٣٢k
  assert.deepEqual(tokens('\u06f3\u06f2k'), { value: 32768 }); // ۳۲k
  assert.deepEqual(tokens('\u0663\u0662\u066c\u0667\u0666\u0668'), { value: 32768 }); // ٣٢٬٧٦٨
  assert.deepEqual(tokens('\u06f3\u06f2\u066c\u06f7\u06f6\u06f8'), { value: 32768 }); // ۳۲٬۷۶۸
  assert.deepEqual(parseNumber('\u0660\u066b\u0669\u0662'), { value: 0.92 }); // ٠٫٩٢
  assert.deepEqual(tokens('\u06f3\u066b\u06f2e\u06f4'), { value: 32000 }); // ۳٫۲e۴
});

test('other counts read k and M in thousands', () => {
  assert.deepEqual(count('1k'), { value: 1000 });
  assert.deepEqual(count('2M'), { value: 2000000 });
  assert.deepEqual(count('1.5k'), { value: 1500 });
});

test('anything else is refused with a code, never misread', () => {
  const refused = [
    ['', 'empty'], ['   ', 'empty'], ['32kk', 'notNumber'], ['k', 'notNumber'], ['-5', 'notNumber'], ['+5', 'notNumber'],
    ['1,5', 'notNumber'], ['32,76', 'notNumber'], ['1,2345', 'notNumber'], [',123', 'notNumber'], ['0x20', 'notNumber'],
    ['Infinity', 'notNumber'], ['NaN', 'notNumber'], ['1e999', 'notNumber'], ['1e', 'notNumber'], ['e5', 'notNumber'],
    ['32 tokens', 'notNumber'], ['32g', 'notNumber'], ['1..2', 'notNumber'], ['9'.repeat(50), 'notNumber'],
    ['1.1k', 'notWhole'], ['0.5', 'notWhole'], ['3.25e1', 'notWhole'],
  ];
  for (const [text, code] of refused) assert.deepEqual(tokens(text), { error: { code } }, JSON.stringify(text));
  // A field without suffixes refuses them.
  assert.deepEqual(parseNumber('32k'), { error: { code: 'notNumber' } });
  assert.deepEqual(parseNumber('0.92'), { value: 0.92 });
});

test('the quick picks are the common context sizes, in tokens', () => {
  assert.deepEqual(CONTEXT_PICKS, [4096, 8192, 16384, 32768, 131072]);
});
