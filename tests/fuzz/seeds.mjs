// Writes the fuzzers' seed corpora and dictionary from what the repository
// already holds, so nothing generated is committed:
//   <out>/seeds/fuzz_call/    one file per request in tests/vectors/*.json,
//                             plus an estimate of each tests/configs/*/config.json
//                             (first byte: the method, as fuzz_call.cpp reads it)
//   <out>/seeds/fuzz_import/  each tests/configs/*/config.json as is, and each
//                             preset's config in data/models.json (also as an
//                             estimate under vLLM over two cards in fuzz_call)
//   <out>/seeds/fuzz_checkpoint/ GGUF headers of tests/js/gguf-writer.mjs's
//                             fixtures and a safetensors header (first byte:
//                             the reader and whether the size is told, as
//                             fuzz_checkpoint.cpp reads it), and headers at
//                             and one past each checkpoint limit
//   <out>/seeds/fuzz_index/   index.json texts near the shard, name and
//                             metadata limits, and a total_size of 1e400
//   <out>/seeds/fuzz_checkpoint_files/ file sets as the CLI reads them: split
//                             GGUF parts, safetensors files, an index and its
//                             shards (fuzz_checkpoint_files.cpp's layout)
//   <out>/seeds/fuzz_log/    the engine logs quoted by tests/validation/cases
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
const indexSeeds = folder('fuzz_index');
const filesSeeds = folder('fuzz_checkpoint_files');
const logSeeds = folder('fuzz_log');
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

// Every preset's config too: families no tests/configs file holds (the hybrid
// Mamba and Gated DeltaNet layers among them), each also sized under vLLM over
// two cards, where state layers split over the ranks.
for (const preset of readJson(join(root, 'data/models.json')).models) {
  if (!preset.config) continue;
  writeFileSync(join(importSeeds, `preset-${preset.id}`), JSON.stringify(preset.config));
  callSeed('estimate', { config: preset.config, engine: 'vllm', gpu: 'h100-sxm', gpu_count: 2, context: 32768 });
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

// Near every limit of core/include/vram/limits.hpp, each at it and one past
// it where a 1 MB input can reach it (the tensor count and the header bytes
// by their declared numbers).
const LIMITS = { headerBytes: 100000000, tensors: 131072, metadataBytes: 4194304, nameBytes: 1024, entryBytes: 4096, shards: 4096 };
const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return b; };
const ggufHead = (tensors, kvs) => Buffer.concat([Buffer.from('GGUF'), Buffer.from([3, 0, 0, 0]), u64(tensors), u64(kvs)]);
for (const extra of [0, 1]) {
  const { GgufWriter } = await import('../js/gguf-writer.mjs');
  checkpointSeed(`gguf-name-${extra}`, 0, new GgufWriter().u32('n'.repeat(LIMITS.nameBytes + extra), 1).build({ data: false }));
  checkpointSeed(`gguf-split-${extra}`, 0, new GgufWriter().u32('split.no', 0).u32('split.count', LIMITS.shards + extra).build({ data: false }));
  // Kept bools cost 16 bytes each: 64 lists of 4,096 reach the metadata limit.
  const w = new GgufWriter();
  for (let i = 0; i < 64 + extra; i++) w.bools(`k${i}`, Array(4096).fill(true));
  checkpointSeed(`gguf-metadata-${extra}`, 4, w.build({ data: false }));
  checkpointSeed(`gguf-tensors-${extra}`, 0, ggufHead(LIMITS.tensors + extra, 0));
  checkpointSeed(`safetensors-header-${extra}`, 1, Buffer.concat([u64(LIMITS.headerBytes + extra), Buffer.from('{}')]));
  const name = 'n'.repeat(LIMITS.nameBytes + extra);
  checkpointSeed(`safetensors-name-${extra}`, 3, safetensorsFile({ [name]: { dtype: 'F16', shape: [1], data_offsets: [0, 2] } }));
  const shape = `[${' '.repeat(LIMITS.entryBytes - 48 + extra)}1]`;
  const entry = Buffer.from(`{"t":{"dtype":"F16","shape":${shape},"data_offsets":[0,2]}}`);
  checkpointSeed(`safetensors-entry-${extra}`, 3, Buffer.concat([u64(entry.length), entry, Buffer.alloc(2)]));
}
// A long run of bools under a long key: what took minutes when every item spelled its field.
checkpointSeed('gguf-long-list', 0, new (await import('../js/gguf-writer.mjs')).GgufWriter().bools('a'.repeat(1024), Array(200000).fill(false)).build({ data: false }));
const duplicate = Buffer.from('{"a":{"dtype":"F16","shape":[1],"data_offsets":[0,2]},"a":{"dtype":"F16","shape":[1],"data_offsets":[2,4]}}');
checkpointSeed('safetensors-duplicate', 3, Buffer.concat([u64(duplicate.length), duplicate, Buffer.alloc(4)]));
checkpointSeed('empty', 0, Buffer.alloc(0));

// Index texts: fuzz_index reads each with the real limits and with 8 shards,
// 64-byte names and 4 KiB of metadata.
const indexSeed = (name, value) => writeFileSync(join(indexSeeds, name), typeof value === 'string' ? value : JSON.stringify(value));
const weightMap = (files, perFile = 2) => Object.fromEntries(Array.from({ length: files * perFile }, (_, i) => [`model.layers.${i}.weight`, `model-${String(i % files).padStart(5, '0')}.safetensors`]));
for (const files of [8, 9, LIMITS.shards, LIMITS.shards + 1]) indexSeed(`shards-${files}`, { metadata: { total_size: 1234 }, weight_map: weightMap(files, files > 9 ? 1 : 3) });
indexSeed('name-64', { weight_map: { ['n'.repeat(64)]: 'a.safetensors' } });
indexSeed('file-65', { weight_map: { n: `${'f'.repeat(53)}.safetensors` } });
indexSeed('metadata-4096', { metadata: { total_size: 1, note: 'x'.repeat(4060) }, weight_map: { n: 'a.safetensors' } });
indexSeed('total-1e400', '{"metadata": {"total_size": 1e400}, "weight_map": {"a": "x.safetensors"}}');
indexSeed('repeated-map', '{"weight_map": {"a": "x.safetensors"}, "weight_map": {"b": "y.safetensors"}}');

// The CLI's files: first byte 0 GGUF parts, 1 safetensors files, 2 an index and its shards.
const CUT = Buffer.from('\n--8<--\n');
const filesSeed = (name, mode, parts) => writeFileSync(join(filesSeeds, name), Buffer.concat([Buffer.from([mode]), ...parts.flatMap((p, i) => (i ? [CUT, Buffer.from(p)] : [Buffer.from(p)]))]));
{
  const { GgufWriter } = await import('../js/gguf-writer.mjs');
  const part = (no) => new GgufWriter().u32('split.no', no).u32('split.count', 2).tensor(no ? 'output.weight' : 'token_embd.weight', [32, 4], 'Q8_0').build();
  filesSeed('gguf-split', 0, [part(0), part(1)]);
  filesSeed('gguf-split-big', 0, [new GgufWriter().u32('split.no', 2147483646).u32('split.count', 2147483647).build()]);
  const shard = (name) => safetensorsFile({ [name]: { dtype: 'BF16', shape: [4, 4], data_offsets: [0, 32] } });
  filesSeed('safetensors-two', 1, [shard('model.embed_tokens.weight'), shard('lm_head.weight')]);
  filesSeed('index', 2, [JSON.stringify({ metadata: { total_size: 64 }, weight_map: { 'model.embed_tokens.weight': 'a.safetensors', 'lm_head.weight': 'b.safetensors' } }), shard('model.embed_tokens.weight'), shard('lm_head.weight')]);
  filesSeed('index-1e400', 2, ['{"metadata": {"total_size": 1e400}, "weight_map": {"a": "a.safetensors"}}', shard('a')]);
  filesSeed('index-outside', 2, ['{"weight_map": {"a": "../a.safetensors"}}']);
  filesSeed('index-broken', 2, ['{"weight_map": {"a": "a.safetensors"},}']);
}

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

// Engine start-up logs: each validation case's quoted source (vLLM, SGLang,
// llama.cpp and Ollama lines, and benchmark tables the reader refuses).
const cases = join(root, 'tests/validation/cases');
for (const name of readdirSync(cases).filter((n) => n.endsWith('.json')).sort()) {
  const quote = readJson(join(cases, name)).source?.quote;
  if (typeof quote === 'string') writeFileSync(join(logSeeds, name.replace(/\.json$/, '.log')), quote);
}

// The log readers' keys ("Model loading took", "# GPU blocks"), spaces and capitals kept.
const logDir = join(root, 'core/src/engine_log');
for (const name of readdirSync(logDir).filter((n) => n.endsWith('.cpp'))) {
  for (const [, literal] of readFileSync(join(logDir, name), 'utf8').matchAll(/"([A-Za-z#_ .:()'=-]{3,50})"/g)) keys.add(literal);
}

// libFuzzer's dictionary format: one quoted token a line, \" and \\ escaped.
const quote = (token) => `"${token.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
const tokens = [
  ...[...keys].sort().map((key) => `"${key}"`),
  ...['{', '}', '[', ']', ':', ',', 'true', 'false', 'null', '-1', '0', '1e400', '-1e400', '1e308', '4294967297', '9223372036854775807', '1e-300', '0.5', '"\\u0000"'],
];
writeFileSync(join(out, 'json.dict'), `# Generated by tests/fuzz/seeds.mjs\n${tokens.map(quote).join('\n')}\n`);
const count = (dir) => readdirSync(dir).length;
console.log(`fuzz seeds: ${calls} requests, ${count(importSeeds)} configs (presets' included), ${count(checkpointSeeds)} checkpoint headers, ${count(indexSeeds)} indexes, ${count(filesSeeds)} CLI file sets, ${count(logSeeds)} logs, ${tokens.length} dictionary tokens in ${out}`);
