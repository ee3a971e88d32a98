// One schema, three readers: the page's URL state (web/src/state.js), the
// core (estimate through the wasm module) and the CLI (build/native/vramcalc)
// must accept and refuse the same values. For every field the page reads,
// values at and just beyond each bound, each choice and a non-choice go
// through both; the same for every engine knob; the CLI on a few fields of
// each type.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { CORE_PARAMS_FOR_TESTS, PAGE_DEFAULTS, defaultState, readOption, readParam } from '../../web/src/state.js';
import { core, root } from './module.mjs';

const calculator = await core();
const presets = calculator.presets();
const catalog = { ...presets, schema: calculator.schema() };

/** Values worth trying for a field: bounds and just beyond, choices and a stranger. */
function candidates(field) {
  const out = [];
  const whole = field.type === 'int';
  const step = (v, up) => (whole ? v + (up ? 1 : -1) : (up ? nextUp(v) : nextDown(v)));
  if (field.min !== undefined) out.push(field.min, step(field.min, false));
  if (field.max !== undefined) out.push(field.max, step(field.max, true));
  if (whole && field.min !== undefined) out.push(field.min + 0.5);
  if (field.type === 'enum') out.push(...field.choices, 'nonesuch');
  if (field.type === 'list') out.push(...field.choices.map((c) => [c]), ['nonesuch']);
  if (field.type === 'bool') out.push(true, false);
  return out;
}

function nextUp(v) {
  const buffer = new DataView(new ArrayBuffer(8));
  buffer.setFloat64(0, v);
  const bits = buffer.getBigUint64(0);
  buffer.setBigUint64(0, v >= 0 ? bits + 1n : bits - 1n);
  return v === 0 ? Number.MIN_VALUE : buffer.getFloat64(0);
}
const nextDown = (v) => -nextUp(-v);

/** Whether the core takes `value` for `field` (errors about other fields fail the test). */
function coreAccepts(method, request, path) {
  try {
    calculator[method](request);
    return true;
  } catch (error) {
    assert.equal(error.field, path, `${JSON.stringify(request)}: ${error.message}`);
    return false;
  }
}

const urlText = (value) => (Array.isArray(value) ? value.join(',') : String(value));

function base(field) {
  const request = { model: 'guide-7b' };
  if (field.modes && !field.modes.includes('inference')) request.mode = 'lora';
  return request;
}

test('the page and the core accept the same values for every field the page reads', () => {
  let compared = 0;
  for (const [name, [method, key]] of Object.entries(CORE_PARAMS_FOR_TESTS)) {
    const field = catalog.schema.requests[method].find((f) => f.name === key);
    for (const value of candidates(field)) {
      const page = !readParam(name, urlText(value), catalog).error;
      const request = method === 'estimate' ? base(field) : {};
      request[key] = value;
      const coreOk = coreAccepts(method, request, key);
      assert.equal(page, coreOk, `${name}=${urlText(value)}: page ${page ? 'accepts' : 'refuses'}, core ${coreOk ? 'accepts' : 'refuses'}`);
      compared += 1;
    }
  }
  assert.ok(compared > 100, `only ${compared} comparisons`);
});

test('the page and the core accept the same values for every engine knob', () => {
  for (const engine of presets.engines) {
    for (const knob of catalog.schema.engines[engine.id]) {
      for (const value of candidates(knob)) {
        const page = !readOption(engine, knob.name, urlText(value), catalog).error;
        // The deepest model, so a pipeline of the knob's maximum has layers for each stage;
        // the MoE layouts' knobs need experts (a dense model refuses them by name): Kimi K2's 384.
        const moe = ['expert_parallel', 'data_parallel_size'].includes(knob.name);
        const request = { model: moe ? 'kimi-k2' : 'guide-405b', engine: engine.id, engine_options: { [knob.name]: value } };
        const coreOk = coreAccepts('estimate', request, `engine_options.${knob.name}`);
        assert.equal(page, coreOk, `${engine.id} ${knob.name}=${value}`);
      }
    }
  }
  // An invalid knob in a URL is ignored and named, like an unknown one.
  assert.ok(readOption(presets.engines.find((e) => e.id === 'vllm'), 'gpu_memory_utilization', '2', catalog).error);
});

// The page opens on its own example where it differs on purpose (state.js
// PAGE_DEFAULTS: the guide's 70B in FP8 on a card); every other default is
// the core's, read from its schema (defaultState).
const PAGE_OWN_DEFAULTS = ['weights'];

test("the page's defaults are the core's, read from its schema", () => {
  const defaults = defaultState(catalog);
  const differ = [];
  for (const [name, [method, key]] of Object.entries(CORE_PARAMS_FOR_TESTS)) {
    const field = catalog.schema.requests[method].find((f) => f.name === key);
    if (field.default === undefined) continue;
    if (Object.hasOwn(PAGE_DEFAULTS, name)) differ.push(name);
    if (PAGE_OWN_DEFAULTS.includes(name)) assert.notDeepEqual(defaults[name], field.default, name);
    else assert.deepEqual(defaults[name], field.default, name);
  }
  // Only the page's worked example overrides a core default, and it says so.
  assert.deepEqual(differ, PAGE_OWN_DEFAULTS);
  // A schema the page reads its defaults from: a changed default reaches the page.
  const changed = structuredClone(catalog.schema);
  changed.requests.estimate.find((f) => f.name === 'context').default = 4096;
  assert.equal(defaultState({ ...catalog, schema: changed }).context, 4096);
  // And a core field the page must read but whose default is gone is an error, not a silent undefined.
  const missing = structuredClone(catalog.schema);
  delete missing.requests.estimate.find((f) => f.name === 'seq').default;
  assert.throws(() => defaultState({ ...catalog, schema: missing }), /no default for seq/);
});

test('the CLI and the core accept the same values, a few fields of each type', () => {
  const cli = join(root, 'build/native/vramcalc');
  const fields = [
    ['estimate', 'context', [], (v) => ['--context', String(v)]],
    ['estimate', 'budget_gb', [], (v) => ['--budget-gb', String(v)]],
    ['estimate', 'optimizer', ['--mode', 'lora'], (v) => ['--optimizer', v]],
    ['estimate', 'lora_targets', ['--mode', 'lora'], (v) => ['--lora-targets', v.join(',')]],
    ['estimate', 'zero', ['--mode', 'full'], (v) => ['--zero', String(v)]],
    ['estimate', 'flash_attention', [], (v) => [v ? '--flash-attention' : '--no-flash-attention']],
    ['grid', 'usable_fraction', [], (v) => ['--usable-fraction', String(v)]],
  ];
  for (const [method, key, extra, flags] of fields) {
    const field = catalog.schema.requests[method].find((f) => f.name === key);
    for (const value of candidates(field)) {
      const request = method === 'estimate' ? { model: 'guide-7b' } : {};
      if (extra.length) request.mode = extra[1];
      request[key] = value;
      const coreOk = coreAccepts(method, request, key);
      const args = [method, ...(method === 'estimate' ? ['--model', 'guide-7b'] : []), ...extra, ...flags(value), '--json'];
      const r = spawnSync(cli, args, { encoding: 'utf8' });
      assert.equal(r.status === 0, coreOk, `${args.join(' ')}: ${r.stderr}`);
    }
  }
  const knob = (value) => spawnSync(cli, ['estimate', '--model', 'guide-7b', '--engine', 'vllm', '--engine-opt', `gpu_memory_utilization=${value}`], { encoding: 'utf8' }).status;
  assert.equal(knob(1), 0);
  assert.equal(knob(0), 2);
});
