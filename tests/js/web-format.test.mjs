// Display formatting (web/src/format.js): rounding half away from zero as
// SPEC section 0 publishes it, units, money, bandwidth, the tight rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatBandwidth, formatMemory, formatNumber, formatUsd, roundDisplay } from '../../web/src/format.js';

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
  assert.equal(formatMemory(74.68435456), '75 GB');
  assert.equal(formatMemory(2.68435456, 'GB', 1), '2.7 GB');
  assert.equal(formatMemory(80, 'GiB', 1), '74.5 GiB');
  assert.equal(formatMemory(1288, 'GB'), '1,288 GB');
  assert.equal(formatNumber(-0.01, 1), '0.0');
});

test('money and bandwidth read like the fleet table', () => {
  assert.equal(formatUsd(11450), '$11,450');
  assert.equal(formatUsd(7128), '$7,128');
  assert.equal(formatBandwidth(864), '864 GB/s');
  assert.equal(formatBandwidth(3350), '3.35 TB/s');
  assert.equal(formatBandwidth(5300), '5.3 TB/s');
  assert.equal(formatBandwidth(8000), '8 TB/s');
});
