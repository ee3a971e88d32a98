// The validation set: every measured case against the calculator. A case
// fails when its error grows beyond the tolerance recorded for it
// (tolerances only ever tighten: `npm run validate -- --tighten`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { core, root } from './module.mjs';
import { evaluate, loadCases, summary } from '../../tools/validation.mjs';

test('the validation set covers what the issue asks for', () => {
  const cases = loadCases(root);
  assert.ok(cases.length >= 20, `${cases.length} cases`);
  const features = new Set(cases.flatMap((c) => c.features));
  for (const needed of ['moe', 'mla', 'sliding-window', 'gguf', 'lora', 'qlora', 'full']) {
    assert.ok(features.has(needed), `no case with ${needed}`);
  }
  for (const c of cases) {
    assert.ok(c.source && (c.source.url || c.source.repo), `${c.id} has no source`);
    for (const m of c.measurements) {
      assert.equal(typeof m.tolerance_pct, 'number', `${c.id} ${m.quantity} has no tolerance`);
      assert.ok(m.quote, `${c.id} ${m.quantity} quotes nothing`);
    }
  }
});

test('no measured case drifts beyond its recorded tolerance', async (t) => {
  const { call } = await core();
  const rows = evaluate(root, call);
  for (const [category, s] of Object.entries(summary(rows))) {
    t.diagnostic(`${category}: ${s.count} measurements, median |error| ${s.median.toFixed(1)}%, worst ${s.worst.toFixed(1)}%`);
  }
  const over = rows
    .filter((r) => !(Math.abs(r.error) <= r.tolerance))
    .map((r) => `${r.id} ${r.quantity}: ${r.error.toFixed(1)}% (tolerance ${r.tolerance}%)`);
  assert.deepEqual(over, []);
});
