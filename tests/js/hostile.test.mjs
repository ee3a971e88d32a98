// The hostile corpus of issue 15 through the wasm module, as a crafted link
// or file would reach it: after EACH input the same instance must still give
// the reference answer for a preset, every answer must be a named error or a
// sane result (tests/fuzz/answer-rules.json, shared with the native fuzzers),
// and 100,000 calls must not grow the module's memory.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root, loadJson } from './module.mjs';

const require = createRequire(import.meta.url);
const modulePath = join(root, 'build/wasm/module/vram.js');
const factory = require(modulePath);
const rules = loadJson('tests/fuzz/answer-rules.json');

// The probe after every input: README's own example, 70B in FP8 at 8,192
// tokens, which needs 75 GB.
const PROBE = ['estimate', JSON.stringify({ model: 'guide-70b', weights: 'fp8', context: 8192, batch: 1 })];
let module = await factory();
const reference = module.call(...PROBE);
assert.equal(Math.round(JSON.parse(reference).total_gb), 75, 'the probe answers 75 GB on a fresh module');

/** What is wrong with one answer text, or null (the rules of fuzz/result_check.hpp). */
export function answerProblem(text) {
  let doc;
  try {
    doc = JSON.parse(text);
  } catch {
    return `not JSON: ${String(text).slice(0, 200)}`;
  }
  if (doc && typeof doc === 'object' && 'error' in doc) {
    const e = doc.error;
    if (!e || typeof e.code !== 'string' || typeof e.field !== 'string' || typeof e.message !== 'string') {
      return `an error without code, field and message: ${text.slice(0, 200)}`;
    }
    if (e.code === 'internal') return `an internal error: ${e.message.slice(0, 200)}`;
    if (e.message.length > 1000) return `an error message of ${e.message.length} characters`;
    return null;
  }
  const bad = [];
  // Under a quoted key (a file's own metadata) any sign is the file's.
  const walk = (node, path, key, quoted = false) => {
    if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${path}[${i}]`, key, quoted));
    else if (node === null) {
      if (!Object.hasOwn(rules.nullable, key)) bad.push(`null at ${path}`);
    } else if (typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) walk(v, `${path}.${k}`, k, quoted || Object.hasOwn(rules.quoted, k));
    } else if (typeof node === 'number') {
      if (!Number.isFinite(node)) bad.push(`${node} at ${path}`);
      else if (node < 0 && !quoted && !Object.hasOwn(rules.signed, key)) bad.push(`${node} at ${path}`);
    }
  };
  walk(doc, '$', '');
  return bad.length ? bad.slice(0, 5).join('; ') : null;
}

/** An exception as text: WebAssembly.Exception has neither name nor message. */
const describe = (error) => `${error?.constructor?.name ?? typeof error}: ${String(error?.message ?? error).slice(0, 200)}`;

/** Sends one input; returns the problems seen, and replaces a broken module. */
async function send(method, input, expect = {}) {
  const problems = [];
  let text;
  try {
    text = module.call(method, input);
  } catch (error) {
    problems.push(`the call threw ${describe(error)}`);
  }
  if (text !== undefined) {
    const problem = answerProblem(text);
    if (problem) problems.push(problem);
    else if (expect.errorField) {
      const doc = JSON.parse(text);
      if (!doc.error) problems.push(`an answer where an error naming ${expect.errorField} was due: ${text.slice(0, 200)}`);
      else if (!doc.error.field.endsWith(expect.errorField)) problems.push(`the error names '${doc.error.field}', not ${expect.errorField}`);
    }
  }
  try {
    const after = module.call(...PROBE);
    if (after !== reference) problems.push(`the probe now answers ${after.slice(0, 200)}`);
  } catch (error) {
    problems.push(`the module is dead: the probe threw ${describe(error)}`);
  }
  // A broken module would fail every later case: judge each on its own.
  if (problems.length) module = await factory();
  return problems;
}

/**
 * Inputs that hang or grow memory for good on a core without limits run in
 * a worker with a time limit, away from the shared instance.
 */
function sendIsolated(method, input, expect, seconds) {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    require(workerData.modulePath)().then((m) => {
      let text = null, threw = null, probe = null;
      try { text = m.call(workerData.method, workerData.input); } catch (e) { threw = (e && e.constructor ? e.constructor.name : typeof e) + ': ' + String(e && e.message !== undefined ? e.message : e).slice(0, 200); }
      try { probe = m.call(workerData.probe[0], workerData.probe[1]); } catch (e) { probe = 'threw ' + String(e && e.name); }
      parentPort.postMessage({ text, threw, probe });
    });`;
  return new Promise((resolve) => {
    const worker = new Worker(source, { eval: true, workerData: { modulePath, method, input, probe: PROBE } });
    const timer = setTimeout(() => {
      worker.terminate();
      resolve([`no answer within ${seconds} s`]);
    }, seconds * 1000);
    worker.on('message', ({ text, threw, probe }) => {
      clearTimeout(timer);
      worker.terminate();
      const problems = [];
      if (threw) problems.push(`the call threw ${threw}`);
      if (text !== null) {
        const problem = answerProblem(text);
        if (problem) problems.push(problem);
        else if (expect.errorField && !JSON.parse(text).error) problems.push(`an answer where an error naming ${expect.errorField} was due`);
      }
      if (probe !== reference) problems.push(`the probe now answers ${String(probe).slice(0, 200)}`);
      resolve(problems);
    });
    worker.on('error', (error) => {
      clearTimeout(timer);
      resolve([`the worker failed: ${error.message}`]);
    });
  });
}

const config = (name) => JSON.parse(readFileSync(join(root, 'tests/configs', name, 'config.json'), 'utf8'));
const withConfig = (name, patch, extra = {}) => JSON.stringify({ config: { ...config(name), ...patch }, ...extra });
const gpus = loadJson('data/gpus.json');
const catalogWith = (patch, gpuPatch = {}) => ({ ...gpus, ...patch, gpus: gpus.gpus.map((g) => ({ ...g, ...gpuPatch })) });
const nested = (depth, leaf = '1') => '['.repeat(depth) + leaf + ']'.repeat(depth);
const customShape = (patch) => ({
  model_type: 'custom', hidden_size: 4096, num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8,
  head_dim: 128, intermediate_size: 14336, vocab_size: 128256, ...patch,
});
const bytes = (...values) => new Uint8Array(values);

/**
 * The corpus: [name, method, input (text, or bytes sent as they are), options].
 * options: errorField (the answer must be an error naming this field),
 * isolated (seconds: run in a worker). No case is marked todo: a todo
 * test passes whatever it finds.
 */
const CORPUS = [
  // 1. A negative first_k_dense_replace indexed the layer list before its start.
  ['first_k_dense_replace -1', 'estimate', withConfig('deepseek-v2-lite', { first_k_dense_replace: -1 }), { errorField: 'first_k_dense_replace' }],
  ['first_k_dense_replace -2 (kimi-k2)', 'estimate', withConfig('kimi-k2-instruct', { first_k_dense_replace: -2 }), { errorField: 'first_k_dense_replace' }],
  ['first_k_dense_replace -1000 (glm-4.5)', 'estimate', withConfig('glm-4.5', { first_k_dense_replace: -1000 }), { errorField: 'first_k_dense_replace' }],
  // 2. Counts past 2^32 truncated on wasm32.
  ['gemma2 with 2^32 + 1 layers', 'estimate', withConfig('gemma-2-9b-it', { num_hidden_layers: 2 ** 32 + 1 }), { errorField: 'num_hidden_layers' }],
  ['llama with 2^32 + 2 layers', 'estimate', withConfig('llama-3.1-8b', { num_hidden_layers: 2 ** 32 + 2 }), { errorField: 'num_hidden_layers' }],
  ['MoE decoder_sparse_step 2^32 + 1', 'estimate', withConfig('qwen3-30b-a3b', { decoder_sparse_step: 2 ** 32 + 1 }), { errorField: 'decoder_sparse_step', isolated: 10 }],
  // 3. A catalog node_size of 2^32 truncated to 0 and divided by it.
  ['catalog node_size 2^32: estimate', 'estimate', JSON.stringify({ model: 'guide-70b', gpu: 'h100-sxm', catalog: catalogWith({ node_size: 2 ** 32 }) }), { errorField: 'node_size' }],
  ['catalog node_size 2^32: grid', 'grid', JSON.stringify({ catalog: catalogWith({ node_size: 2 ** 32 }) }), { errorField: 'node_size' }],
  ['catalog node_size 2^32: devices', 'devices', JSON.stringify({ catalog: catalogWith({ node_size: 2 ** 32 }) }), { errorField: 'node_size' }],
  ['catalog node_size 2^32: fleet', 'fleet', JSON.stringify({ model: 'guide-70b', catalog: catalogWith({ node_size: 2 ** 32 }) }), { errorField: 'node_size' }],
  ['catalog vram_gb 1e-300', 'grid', JSON.stringify({ catalog: catalogWith({}, { vram_gb: 1e-300 }) }), { errorField: 'vram_gb' }],
  // 4. Deep nesting, copied and dumped recursively.
  ['engine_options nested 10,000 deep', 'estimate', `{"model":"guide-70b","engine":"vllm","engine_options":{"gpu_memory_utilization":${nested(10000)}}}`, {}],
  ['engine_options nested 100,000 deep', 'estimate', `{"model":"guide-70b","engine":"vllm","engine_options":{"gpu_memory_utilization":${nested(100000)}}}`, {}],
  ['quantization_config nested 10,000 deep (modelopt)', 'estimate', `{"config":${JSON.stringify(config('llama-3.1-8b')).slice(0, -1)},"quantization_config":{"quant_method":"modelopt","quant_algo":${nested(10000, '"FP8"')}}}}`, {}],
  ['quantization_config nested 10,000 deep (compressed-tensors)', 'estimate', `{"config":${JSON.stringify(config('llama-3.1-8b')).slice(0, -1)},"quantization_config":{"quant_method":"compressed-tensors","config_groups":${nested(10000, '{}')}}}}`, {}],
  ['request nested 10,000 deep', 'grid', nested(10000), {}],
  // 5. Request text that is not valid UTF-8, or not text at all.
  ['a lone "é"', 'estimate', 'é', {}],
  ['a truncated UTF-8 sequence', 'estimate', bytes(0x7b, 0x22, 0xc3), {}],
  ['0xff bytes inside a string', 'estimate', bytes(...Buffer.from('{"model":"'), 0xff, 0xfe, ...Buffer.from('"}')), {}],
  ['a lone surrogate', 'estimate', '{"model":"\ud800"}', {}],
  ['a NUL byte', 'estimate', '{"model":"guide-70b"\u0000}', {}],
  // 6. Silently wrong answers.
  ['gemma3 vision intermediate_size negative', 'estimate', withConfig('gemma-3-27b-it', { vision_config: { ...config('gemma-3-27b-it').vision_config, intermediate_size: -43040000 } }), { errorField: 'intermediate_size' }],
  ['gemma3 vision patch_size 0', 'estimate', withConfig('gemma-3-27b-it', { vision_config: { ...config('gemma-3-27b-it').vision_config, patch_size: 0 } }), { errorField: 'patch_size' }],
  ['head_dim 2^40 with 2^30 heads', 'estimate', JSON.stringify({ config: customShape({ head_dim: 2 ** 40, num_attention_heads: 2 ** 30, num_key_value_heads: 2 ** 30 }) }), { errorField: 'num_attention_heads' }],
  ['hidden_size near 1e308', 'estimate', JSON.stringify({ config: customShape({ hidden_size: 1e308 }) }), { errorField: 'hidden_size' }],
  ['params_total 1e308 on a card', 'estimate', JSON.stringify({ model: 'guide-70b', params_total: 1e308, gpu: 'h100-sxm' }), {}],
  ['params_total 5e8 with llama.cpp', 'estimate', JSON.stringify({ config: customShape({}), params_total: 5e8, engine: 'llamacpp' }), {}],
  ['negative q_lora_rank', 'estimate', withConfig('deepseek-r1-0528', { q_lora_rank: -1 }), { errorField: 'q_lora_rank' }],
  // 7. No size limits.
  ['1e8 layers', 'estimate', JSON.stringify({ config: customShape({ num_hidden_layers: 1e8 }) }), { errorField: 'num_hidden_layers', isolated: 10 }],
  // 8. Smaller.
  ['context 1e400', 'estimate', '{"model":"guide-70b","context":1e400}', { errorField: 'request' }],
  ['context null (NaN or Infinity through JSON.stringify)', 'estimate', JSON.stringify({ model: 'guide-70b', context: NaN }), { errorField: 'context' }],
  ['batch null', 'estimate', JSON.stringify({ model: 'guide-70b', batch: Infinity }), { errorField: 'batch' }],
  ['an unknown field 100,000 characters long', 'estimate', JSON.stringify({ model: 'guide-70b', ['x'.repeat(100000)]: 1 }), {}],
  ['a model id 100,000 characters long', 'estimate', JSON.stringify({ model: 'y'.repeat(100000) }), {}],
  ['context -1', 'estimate', JSON.stringify({ model: 'guide-70b', context: -1 }), { errorField: 'context' }],
  ['an empty request', 'estimate', '', { errorField: 'model' }],
  ['an unknown method', 'nonsense', '{}', {}],
  ['a bare number', 'fleet', '1e999999', {}],
];

for (const [name, method, input, options] of CORPUS) {
  test(`hostile: ${name}`, async () => {
    const problems = options.isolated ? await sendIsolated(method, input, options, options.isolated) : await send(method, input, options);
    assert.deepEqual(problems, []);
  });
}

/** A small deterministic generator (mulberry32), so every run sends the same inputs. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HOSTILE_VALUES = [-1, 0, -0.5, 1e308, -1e308, 2 ** 32, 2 ** 32 + 1, 2 ** 53, 2 ** 63, 1e-300, null, '', 'x'.repeat(300), [], {}, true, [[[[1]]]]];

/** Requests from the vectors, each with one value (anywhere in it) replaced. */
function mutations(count, seed) {
  const next = random(seed);
  const pick = (list) => list[Math.floor(next() * list.length)];
  const requests = [];
  for (const file of ['spec-inference.json', 'spec-tables.json', 'spec-decode.json', 'kv-cache.json', 'errors.json']) {
    for (const c of loadJson(`tests/vectors/${file}`).cases || []) if (c.method && c.request) requests.push([c.method, c.request]);
  }
  const out = [];
  for (let i = 0; i < count; i++) {
    const [method, request] = pick(requests);
    const copy = structuredClone(request);
    const paths = [];
    const collect = (node, path) => {
      if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) collect(v, [...path, k]);
      if (path.length) paths.push(path);
    };
    collect(copy, []);
    if (paths.length && next() < 0.8) {
      const path = pick(paths);
      let node = copy;
      for (const key of path.slice(0, -1)) node = node[key];
      node[path.at(-1)] = pick(HOSTILE_VALUES);
    } else {
      copy[pick(['context', 'batch', 'gpu_count', 'params_total', 'usable_fraction', 'seq', 'lora_rank'])] = pick(HOSTILE_VALUES);
    }
    let text = JSON.stringify(copy);
    // One in five is also cut short or gets a stray byte.
    const r = next();
    if (r < 0.1) text = text.slice(0, Math.floor(next() * text.length));
    else if (r < 0.2) {
      const at = Math.floor(next() * text.length);
      text = text.slice(0, at) + String.fromCharCode(Math.floor(next() * 256)) + text.slice(at);
    }
    out.push([method, text]);
  }
  return out;
}

test('hostile: 1,000 generated mutations of the vectors, the module alive after each', {}, async () => {
  const failures = [];
  for (const [method, text] of mutations(1000, 15)) {
    const problems = await send(method, text);
    if (problems.length) failures.push(`${method} ${text.slice(0, 160)}: ${problems.join('; ')}`);
  }
  assert.deepEqual(failures.slice(0, 10), [], `${failures.length} of 1,000 mutations failed`);
});

/** 100,000 calls to one fresh module, mostly `cheap`; its memory must not grow. */
async function memoryHolds(cheap) {
  const m = await factory();
  const full = [
    PROBE,
    ['estimate', JSON.stringify({ model: 'llama-3.1-8b', mode: 'qlora', seq: 4096, gpu: 'rtx-4090' })],
    ['fleet', JSON.stringify({ model: 'guide-70b', weights: 'fp8' })],
  ];
  const step = (i) => (i % 500 === 0 ? full[(i / 500) % full.length] : cheap[i % cheap.length]);
  // Warm up first: the catalog and the presets' configs parse on first use.
  for (let i = 0; i < 2000; i++) m.call(...step(i));
  const warm = m.HEAP8.length;
  for (let i = 0; i < 100000; i++) {
    const text = m.call(...step(i));
    if (i % 10000 === 0) assert.equal(answerProblem(text), null);
  }
  // HEAP8 is the module's whole linear memory (Emscripten 3.1.6 keeps
  // Module.HEAP8 current across growth). One growth step is slack for
  // fragmentation; a leak of a few hundred bytes a call needs many.
  const bound = warm + 4 * 1024 * 1024;
  assert.ok(m.HEAP8.length <= bound, `memory grew from ${warm} to ${m.HEAP8.length} bytes over 100,000 calls`);
  assert.equal(m.call(...PROBE), reference);
}

// Mostly cheap calls (errors found early), a real answer every 500th.
const CHEAP = [
  ['nonsense', '{}'],
  ['grid', '[]'],
  ['estimate', '{"model":'],
  ['estimate', '{"model":"no-such-model"}'],
  ['estimate', '{"model":"guide-70b","nonsense":1}'],
  ['estimate', JSON.stringify({ model: 'guide-70b', ['x'.repeat(1000)]: 1 })],
];

test('hostile: 100,000 calls do not grow the module memory', () => memoryHolds(CHEAP));

test('hostile: 100,000 calls, a third of them malformed text, do not grow the module memory', {}, () =>
  memoryHolds([...CHEAP, ['estimate', 'é'], ['grid', bytes(0x7b, 0xc3)], ['fleet', bytes(0xff)]]));
