// Display formatting (web/src/format.js): rounding half away from zero as
// SPEC section 0 publishes it, breakdowns that add up, the tight rule; and
// units, money and bandwidth as the page words them from en.json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isTight, roundDisplay, roundToTotal } from '../../web/src/format.js';
import { createRenderer } from '../../web/src/messages.js';
import { loadJson } from './module.mjs';

const catalogs = { en: loadJson('data/messages/en.json') };
const en = createRenderer({ catalogs }).t;
const enGib = createRenderer({ catalogs, unit: 'GiB' }).t;

test('roundDisplay rounds half away from zero, as the published tables do', () => {
  const cases = [
    [21.125, 2, 21.13], // 1,690 / 80 (SPEC section 0)
    [2.675, 2, 2.68], // stored as 2.67499999...
    [2.68435456, 1, 2.7],
    [74.68435456, 0, 75],
    [0.5, 0, 1],
    [-0.5, 0, -1],
    [-2.25, 1, -2.3],
    [1.0049, 2, 1],
    [8.275, 2, 8.28],
  ];
  for (const [value, decimals, expected] of cases) assert.equal(roundDisplay(value, decimals), expected, `${value} to ${decimals}`);
  assert.ok(Number.isNaN(roundDisplay(NaN, 1)));
});

test('memory shows decimal GB by default and GiB on request', () => {
  assert.equal(en('size.gb0', { bytes: 74.68435456e9 }), '75 GB');
  assert.equal(en('size.gb', { bytes: 2.68435456e9 }), '2.7 GB');
  assert.equal(enGib('size.gb', { bytes: 80e9 }), '74.5 GiB');
  assert.equal(en('size.gb0', { bytes: 1288e9 }), '1,288 GB');
  assert.equal(en('size.gb', { bytes: -0.01e9 }), '0.0 GB');
});

test('money and bandwidth read like the fleet table', () => {
  assert.equal(en('size.usd', { usd: 11450 }), '$11,450');
  assert.equal(en('size.usd', { usd: 7128 }), '$7,128');
  assert.equal(en('size.gbps', { gbps: 864 }), '864 GB/s');
  assert.equal(en('size.tbps', { tbps: 3.35 }), '3.35 TB/s');
  assert.equal(en('size.tbps', { tbps: 5.3 }), '5.3 TB/s');
  assert.equal(en('size.tbps', { tbps: 8 }), '8 TB/s');
});

test('a breakdown rounds to a total it adds up to, moving no term by a unit or more', () => {
  // 70B FP8 at 8k: 70.0 + 2.68 + 2.0 = 74.68; each alone already adds up.
  assert.deepEqual(roundToTotal([70, 2.68435456, 2], 74.68435456, 1), [70, 2.7, 2]);
  // Each alone: 1.0 + 1.0 + 1.1 = 3.1, but the total shows 3.2 (3.15 up).
  assert.deepEqual(roundToTotal([1.04, 1.04, 1.07], 3.15, 1), [1.1, 1, 1.1]);
  // Each alone: 0.3 x 3 = 0.9 against 1.0; ties go to the earlier term.
  assert.deepEqual(roundToTotal([1 / 3, 1 / 3, 1 / 3], 1, 1), [0.4, 0.3, 0.3]);
  // Whole units: 33 + 33 + 33 = 99 against 100.
  assert.deepEqual(roundToTotal([33.4, 33.3, 33.3], 100, 0), [34, 33, 33]);
  // Zero, negative and non-finite terms show 0 and take nothing.
  assert.deepEqual(roundToTotal([0, -1, NaN, 5.55], 5.55, 1), [0, 0, 0, 5.6]);
  // A total that is not the sum still ends at the total, never below zero.
  assert.deepEqual(roundToTotal([1, 1], 1, 0), [0, 1]);
  assert.deepEqual(roundToTotal([], 3, 1), []);
  for (let i = 0; i < 500; i++) {
    const terms = Array.from({ length: 1 + (i % 7) }, (_, k) => ((i * 7919 + k * 104729) % 100000) / 997);
    const total = terms.reduce((a, b) => a + b, 0);
    const shown = roundToTotal(terms, total, 1);
    assert.equal(Math.round(shown.reduce((a, b) => a + b, 0) * 10), Math.round(roundDisplay(total, 1) * 10), `${terms}`);
    shown.forEach((v, k) => assert.ok(Math.abs(v - terms[k]) < 0.1 + 1e-9, `${terms[k]} shown ${v}`));
  }
});

test('tight: under 5 GB spare on one card, under 2 GB per card on a set', () => {
  assert.equal(isTight(5.3, 1), false);
  assert.equal(isTight(2, 1), true); // 13B FP8 on an L4
  assert.equal(isTight(15, 8), true);
  assert.equal(isTight(17, 8), false);
});
