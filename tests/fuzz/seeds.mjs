// Writes the fuzzers' seed corpora and dictionary from what the repository
// already holds, so nothing generated is committed:
//   <out>/seeds/fuzz_call/    one file per request in tests/vectors/*.json,
//                             plus an estimate of each tests/configs/*/config.json
//                             (first byte: the method, as fuzz_call.cpp reads it)
//   <out>/seeds/fuzz_import/  each tests/configs/*/config.json as is
//   <out>/seeds/fuzz_checkpoint/ GGUF headers of tests/js/gguf-writer.mjs's
//                             fixtures and a safetensors header (first byte:
//                             the reader and whether the size is told, as
//                             fuzz_checkpoint.cpp reads it)
//   <out>/json.dict           every key of those requests, configs and data/*.json,
//                             the string literals of core/src, and JSON's tokens
// Usage: node tests/fuzz/seeds.mjs build/fuzz
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtures, safetensorsFile } from '../js/gguf-writer.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const out = process.argv[2];
if (!out) throw new Error('usage: node tests/fuzz/seeds.mjs OUTPUT_FOLDER');

// The order of kMethods in fuzz_call.cpp: the first byte modulo 8.
const METHODS = ['estimate', 'grid', 'devices', 'fleet', 'presets', 'fit_models', 'checkpoint', 'schema'];

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));
const keys = new Set();
function collectKeys(node) {
  if (Array.isArray(node)) node.forEach(collectKeys);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      keys.add(key);
      collectKeys(value);
    }
  }
}

function folder(name) {
  const path = join(out, 'seeds', name);
  rmSync(path, { recursive: true, force: true });
  mkdirSync(path, { recursive: true });
  return path;
}
const callSeeds = folder('fuzz_call');
const importSeeds = folder('fuzz_import');
const checkpointSeeds = folder('fuzz_checkpoint');
let calls = 0;
function callSeed(method, request) {
  const index = METHODS.indexOf(method);
  if (index < 0) return;
  const text = JSON.stringify(request);
  writeFileSync(join(callSeeds, `seed-${String(calls++).padStart(4, '0')}`), Buffer.concat([Buffer.from([index]), Buffer.from(text)]));
  collectKeys(request);
}

const vectors = join(root, 'tests/vectors');
for (const name of readdirSync(vectors).filter((n) => n.endsWith('.json')).sort()) {
  for (const c of readJson(join(vectors, name)).cases || []) {
    if (typeof c.method === 'string' && c.request && typeof c.request === 'object') callSeed(c.method, c.request);
  }
}
callSeed('presets', {});
callSeed('schema', {});
callSeed('fit_models', { gpu: 'rtx-4090', weights: 'fp8', context: 8192 });
callSeed('fit_models', { budget_gb: 20, context: 32768, batch: 4 });
callSeed('fit_models', { gpu: 'h100-sxm', gpu_count: 8, kv: 'fp8' });

const configs = join(root, 'tests/configs');
const configNames = readdirSync(configs, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
for (const name of configNames) {
  const path = join(configs, name, 'config.json');
  if (!existsSync(path)) continue;
  const text = readFileSync(path);
  writeFileSync(join(importSeeds, name), text);
  const config = JSON.parse(text);
  callSeed('estimate', { config });
  callSeed('estimate', { config, gpu: 'h100-sxm', engine: 'llamacpp', context: 32768 });
  callSeed('estimate', { config, gpu: 'h200-sxm', engine: 'transformers', context: 32768, batch: 2 });
  collectKeys(config);
}

// Checkpoint headers: byte 0 bit 0 picks safetensors, bit 1 tells the size.
function checkpointSeed(name, flags, bytes) {
  writeFileSync(join(checkpointSeeds, name), Buffer.concat([Buffer.from([flags]), Buffer.from(bytes)]));
}
for (const [name, make] of Object.entries(fixtures)) {
  checkpointSeed(`gguf-${name}`, 0, make().build({ data: false }));
  for (const [key] of make().kv) keys.add(key);
}
const safetensors = safetensorsFile({
  __metadata__: { format: 'pt' },
  'model.embed_tokens.weight': { dtype: 'BF16', shape: [1000, 64], data_offsets: [0, 128000] },
  'model.layers.0.self_attn.q_proj.weight': { dtype: 'F8_E4M3', shape: [64, 64], data_offsets: [128000, 132096] },
  'model.layers.0.self_attn.q_proj.weight_scale_inv': { dtype: 'F32', shape: [1, 1], data_offsets: [132096, 132100] },
  'lm_head.weight': { dtype: 'BF16', shape: [1000, 64], data_offsets: [132100, 260100] },
});
const headerEnd = 8 + Number(new DataView(safetensors.buffer).getBigUint64(0, true));
checkpointSeed('safetensors-header', 1, safetensors.subarray(0, headerEnd));
checkpointSeed('safetensors-whole', 3, safetensors);

const data = join(root, 'data');
for (const name of readdirSync(data).filter((n) => n.endsWith('.json'))) collectKeys(readJson(join(data, name)));

// Field names, ids and enum values the core compares against (core/src/finetune/
// was core/src/finetune.cpp: its literals stay in).
for (const dir of ['core/src', 'core/src/finetune']) {
  const core = join(root, dir);
  for (const name of readdirSync(core).filter((n) => n.endsWith('.cpp'))) {
    for (const [, literal] of readFileSync(join(core, name), 'utf8').matchAll(/"([a-z][a-z0-9_.-]{1,40})"/g)) keys.add(literal);
  }
}

// libFuzzer's dictionary format: one quoted token a line, \" and \\ escaped.
const quote = (token) => `"${token.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
const tokens = [
  ...[...keys].sort().map((key) => `"${key}"`),
  ...['{', '}', '[', ']', ':', ',', 'true', 'false', 'null', '-1', '0', '1e400', '-1e400', '1e308', '4294967297', '9223372036854775807', '1e-300', '0.5', '"\\u0000"'],
];
writeFileSync(join(out, 'json.dict'), `# Generated by tests/fuzz/seeds.mjs\n${tokens.map(quote).join('\n')}\n`);
console.log(`fuzz seeds: ${calls} requests, ${configNames.length} configs, ${Object.keys(fixtures).length + 2} checkpoint headers, ${tokens.length} dictionary tokens in ${out}`);
