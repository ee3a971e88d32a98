// One schema, three readers: the page's URL state (web/src/state.js), the
// core (estimate through the wasm module) and the CLI (build/native/vramcalc)
// must accept and refuse the same values. For every field the page reads,
// values at and just beyond each bound, each choice and a non-choice go
// through both; the same for every engine knob and every key of the custom
// shape; which mode, method and optimizer take each field; the CLI on a
// few fields of each type; and one answer for a model stored narrower than
// the asked weights.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import {
  CORE_PARAMS_FOR_TESTS, PAGE_DEFAULTS, SHAPE, appliesTo, defaultState, estimateRequest, modelRequest, readOption, readParam,
} from '../../web/src/state.js';
import { core, root } from './module.mjs';

const calculator = await core();
const presets = calculator.presets();
const catalog = { ...presets, schema: calculator.schema() };

/** A small Qwen3.5 config with a Qwen3-VL vision tower, whose images take any resolution. */
const QWEN35_VL = {
  model_type: 'qwen3_5',
  text_config: {
    model_type: 'qwen3_5_text', hidden_size: 1024, num_hidden_layers: 8, num_attention_heads: 8, num_key_value_heads: 2,
    head_dim: 128, intermediate_size: 3072, vocab_size: 32000, full_attention_interval: 4,
  },
  vision_config: { depth: 2, hidden_size: 256, intermediate_size: 1024, num_heads: 4, patch_size: 16, spatial_merge_size: 2 },
};

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

/**
 * A request that takes `value` of `field`: a fine-tuning mode for its keys, what its
 * applies_when asks, and a model with what the field (or that choice of it) needs.
 */
function base(field, value) {
  const request = { model: 'guide-7b' };
  const need = field.needs || (field.choice_needs || {})[value];
  // A field only a vision model takes (images): a preset with a vision tower.
  if (need === 'vision') request.model = catalog.models.find((m) => m.image_tokens).id;
  // A field only a tower of any resolution takes (image_size): no preset has one, so a pasted
  // Qwen3.5 config with Qwen3-VL's tower.
  if (need === 'dynamic_vision') {
    delete request.model;
    request.config = QWEN35_VL;
  }
  // A choice only a model with its own MTP layers takes (speculative mtp): such a preset.
  if (need === 'mtp') request.model = catalog.models.find((m) => m.mtp_layers).id;
  // One only a model with an EAGLE-3 head takes (speculative eagle3): such a preset.
  if (need === 'eagle3') request.model = catalog.models.find((m) => m.eagle3).id;
  if (field.modes && !field.modes.includes('inference')) request.mode = 'lora';
  for (const [on, values] of Object.entries(field.applies_when || {})) request[on] = values[0];
  return request;
}

test('the page and the core accept the same values for every field the page reads', () => {
  let compared = 0;
  for (const [name, [method, key]] of Object.entries(CORE_PARAMS_FOR_TESTS)) {
    const field = catalog.schema.requests[method].find((f) => f.name === key);
    for (const value of candidates(field)) {
      const page = !readParam(name, urlText(value), catalog).error;
      const request = method === 'estimate' ? base(field, value) : {};
      request[key] = value;
      const coreOk = coreAccepts(method, request, key);
      assert.equal(page, coreOk, `${name}=${urlText(value)}: page ${page ? 'accepts' : 'refuses'}, core ${coreOk ? 'accepts' : 'refuses'}`);
      compared += 1;
    }
  }
  assert.ok(compared > 100, `only ${compared} comparisons`);
});

test('the page and the core accept the same values for every key of the custom shape', () => {
  const state = defaultState(catalog);
  let compared = 0;
  for (const [name, key] of Object.entries(SHAPE)) {
    const field = catalog.schema.config.find((f) => f.name === key);
    assert.ok(field, `the core's schema has no config key ${key}`);
    for (const value of candidates(field)) {
      const page = !readParam(name, urlText(value), catalog).error;
      const shape = { ...state, model: 'custom', [name]: value };
      // KV heads are at most the attention heads (a rule between two keys): at their maximum, so are those.
      if (name === 'kv_heads') shape.heads = Math.min(Math.max(Math.ceil(value), 1), catalog.schema.config.find((f) => f.name === 'num_attention_heads').max);
      const request = modelRequest(shape);
      let coreOk = true;
      try {
        calculator.estimate(request);
      } catch (error) {
        // At a bound the key itself is taken; past one, the core names it.
        coreOk = error.field !== `config.${key}`;
      }
      assert.equal(page, coreOk, `${name}=${value}: page ${page ? 'accepts' : 'refuses'}, core ${coreOk ? 'accepts' : 'refuses'}`);
      compared += 1;
    }
  }
  assert.ok(compared >= 7 * 5, `only ${compared} comparisons`);
});

test("the page's largest custom shape, one key at a time, is a request the core answers", () => {
  const state = { ...defaultState(catalog), model: 'custom', gpu: '' };
  for (const [name, key] of Object.entries(SHAPE)) {
    const { max } = catalog.schema.config.find((f) => f.name === key);
    assert.equal(readParam(name, String(max), catalog).value, max, name);
    const shape = { ...state, [name]: max };
    if (name === 'kv_heads') shape.heads = max;
    assert.doesNotThrow(() => calculator.estimate(estimateRequest(shape, undefined, catalog)), `${name}=${max}`);
  }
});

test('the page sends a key where the core takes it, by mode, method and optimizer', () => {
  const modes = catalog.schema.requests.estimate.find((f) => f.name === 'mode').choices;
  const optimizers = catalog.schema.requests.estimate.find((f) => f.name === 'optimizer').choices;
  let compared = 0;
  for (const [name, [method, key]] of Object.entries(CORE_PARAMS_FOR_TESTS)) {
    if (method !== 'estimate' || name === 'mode' || name === 'optimizer') continue;
    const field = catalog.schema.requests.estimate.find((f) => f.name === key);
    for (const mode of modes) {
      for (const optimizer of mode === 'inference' ? [undefined] : optimizers) {
        // A list of cards is two of them, under an engine the core says takes a split (catalog engines' split_gpus).
        const cards = key === 'split_gpus' && mode === 'inference' ? { engine: catalog.engines.find((e) => e.split_gpus).id } : {};
        const sample = field.default ?? (field.type === 'list' ? [field.choices[0], field.choices[0]] : field.type === 'enum' ? field.choices[0] : 1);
        const request = { model: 'guide-7b', mode, ...(optimizer ? { optimizer } : {}), ...cards, [key]: sample };
        const coreOk = coreAccepts('estimate', request, key);
        assert.equal(appliesTo(catalog, name, { mode, optimizer }), coreOk, `${name} with mode ${mode}, optimizer ${optimizer}`);
        compared += 1;
      }
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
  // A key its mode does not take is refused by name, not ignored.
  const lora = spawnSync(cli, ['estimate', '--model', 'guide-7b', '--mode', 'full', '--lora-rank', '8'], { encoding: 'utf8' });
  assert.equal(lora.status, 2);
  assert.match(lora.stderr, /lora_rank applies only when mode is lora, qlora; here mode is full \[not_applicable\]/);
});

test('never wider than the checkpoint: one answer from the CLI, the core and the page', () => {
  const cli = join(root, 'build/native/vramcalc');
  const total = (args) => JSON.parse(spawnSync(cli, ['estimate', '--model', 'gpt-oss-120b', ...args, '--json'], { encoding: 'utf8' }).stdout).total_gb;
  const stored = calculator.estimate({ model: 'gpt-oss-120b' });
  const fp8 = calculator.estimate({ model: 'gpt-oss-120b', weights: 'fp8' });
  // FP8 is wider than gpt-oss's MXFP4 experts: sized as stored, and said.
  assert.equal(fp8.total_gb, stored.total_gb);
  assert.equal(fp8.weights, 'native');
  assert.ok(fp8.assumptions.some((a) => a.id === 'assumption.weights_as_stored' && a.params.asked === 'FP8'));
  assert.equal(total(['--weights', 'fp8']), fp8.total_gb);
  const page = calculator.estimate(estimateRequest({ ...defaultState(catalog), model: 'gpt-oss-120b', weights: 'fp8', gpu: '' }, undefined, catalog));
  assert.equal(page.total_gb, fp8.total_gb);
  // The list of models that fit and the presets' as_stored_for keep the same rule.
  const row = calculator.fitModels({ gpu: 'h100-sxm', weights: 'fp8' }).models.find((m) => m.id === 'gpt-oss-120b');
  assert.equal(row.as_stored, true);
  assert.ok(presets.models.find((m) => m.id === 'gpt-oss-120b').as_stored_for.includes('fp8'));
  assert.ok(!presets.models.find((m) => m.id === 'llama-3.1-8b').as_stored_for);
  // A narrower format is still sized in it.
  assert.ok(calculator.estimate({ model: 'gpt-oss-120b', weights: 'int4' }).total_gb < stored.total_gb);
});
