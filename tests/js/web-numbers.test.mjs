// Number fields (web/src/numbers.js): what people type, in any of the
// page's digit systems, and what must be refused rather than misread. The
// cases are tests/vectors/numbers.json, which the CLI's reader is held to
// as well (tests/cpp/test_cli_numbers.cpp).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { CONTEXT_PICKS, parseNumber } from '../../web/src/numbers.js';

const vectors = JSON.parse(readFileSync(new URL('../vectors/numbers.json', import.meta.url), 'utf8'));

for (const group of vectors.groups) {
  test(`numbers with ${group.suffixes} suffixes${group.integer ? ', whole' : ''}: the shared vectors`, () => {
    const options = { suffixes: group.suffixes === 'none' ? undefined : group.suffixes, integer: group.integer };
    assert.ok(group.cases.length > 0);
    for (const { text, value, error } of group.cases) {
      assert.deepEqual(parseNumber(text, options), error ? { error: { code: error } } : { value }, JSON.stringify(text));
    }
  });
}

test('every kind of case is held: suffixes, groups, exponents, native digits, each refusal', () => {
  const all = vectors.groups.flatMap((g) => g.cases);
  for (const error of ['empty', 'notNumber', 'notWhole']) assert.ok(all.some((c) => c.error === error), error);
  for (const form of [/k$/i, /M$/, /,/, /e/i, /[\u0660-\u0669]/, /[\u06f0-\u06f9]/, /\u202f/]) assert.ok(all.some((c) => form.test(c.text) && !c.error), String(form));
});

test('the quick picks are the common context sizes, in tokens', () => {
  assert.deepEqual(CONTEXT_PICKS, [4096, 8192, 16384, 32768, 131072]);
});
