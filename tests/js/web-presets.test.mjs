// What the page opens on: the default state is the guide's worked example
// and fits its card, and every shipped preset (data/presets.json) that names
// a card fits it, computed by the built module through the page's own state
// and request code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultState, estimateRequest, parseQuery } from '../../web/src/state.js';
import { core, loadJson } from './module.mjs';

test('the default state is the guide\'s worked example: 75 GB, fits an H100 PCIe', async () => {
  const calc = await core();
  const page = { schema: calc.schema() };
  const result = calc.estimate(estimateRequest(defaultState(page), undefined, page));
  assert.equal(Math.round(result.total_gb), 75); // SPEC section 1: 70 + 2.7 + 2
  assert.equal(result.gpu.id, 'h100-pcie');
  assert.equal(result.fit.fits, true);
});

test('every shipped preset with a card fits it; the rest name no card', async () => {
  const calc = await core();
  // The page reads its URL through the core's schema (element.js keeps it in the catalog).
  const catalog = { ...calc.presets(), schema: calc.schema() };
  const { presets } = loadJson('data/presets.json');
  assert.ok(presets.length >= 8);
  for (const preset of presets) {
    const { state, problems } = parseQuery(`?preset=${encodeURIComponent(preset.id)}`, catalog);
    assert.deepEqual(problems, [], preset.id);
    const result = calc.estimate(estimateRequest(state, undefined, catalog));
    if (!state.gpu) {
      assert.equal(preset.state.gpu, '', `${preset.id} has no card: it must say so, not inherit the default`);
      assert.equal(result.fit, undefined, preset.id);
      continue;
    }
    assert.ok(result.fit, `${preset.id}: no fit computed`);
    assert.equal(result.fit.fits, true, `${preset.id} (${preset.name}): ${result.total_gb.toFixed(1)} GB on ${result.fit.capacity_gb} GB`);
  }
});
