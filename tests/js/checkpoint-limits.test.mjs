// Every bound on a checkpoint's files (core/include/vram/limits.hpp), through
// the wasm module and the CLI: a file one past a limit is refused by name
// (code too_large, the limit's message id and field) before the work the
// limit bounds, and the CLI's --index, split parts and empty files answer
// with named errors, never 'internal error'. No timing is asserted: the
// readers bound their work by construction (docs/cli.md, "Limits on
// checkpoint files").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { core, rawModule, root } from './module.mjs';
import { GgufWriter, safetensorsFile } from './gguf-writer.mjs';

const dir = mkdtempSync(join(tmpdir(), 'vram-limits-'));
const cli = join(root, 'build/native/vramcalc');

const u64 = (v) => { const b = new Uint8Array(8); new DataView(b.buffer).setBigUint64(0, BigInt(v), true); return b; };
const cat = (...parts) => { const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0)); let at = 0; for (const p of parts) { out.set(p, at); at += p.length; } return out; };
const text = (s) => new TextEncoder().encode(s);

/** The core's limits, as the schema gives them to the page. */
async function limits() {
  return (await core()).schema().limits.checkpoint;
}

function refusal(c, kind, bytes, size = 0) {
  try {
    c.inspect(kind, bytes, size);
  } catch (error) {
    return error;
  }
  assert.fail('no error');
}

test('the schema gives the page every checkpoint limit', async () => {
  const l = await limits();
  assert.equal(l.header_bytes, 100000000);
  assert.equal(l.index_bytes, 50000000);
  for (const key of ['tensors', 'metadata_bytes', 'name_bytes', 'entry_bytes', 'shards', 'listed_tensors']) assert.ok(Number.isInteger(l[key]) && l[key] > 0, key);
});

test('header bytes: one past the limit is refused from the length alone', async () => {
  const c = await core();
  const l = await limits();
  const e = refusal(c, 'safetensors', cat(u64(l.header_bytes + 1), text('{')));
  assert.equal(e.code, 'too_large');
  assert.equal(e.field, 'safetensors.header');
  assert.equal(e.messageId.id, 'error.checkpoint_header');
  // A GGUF list of 2^26 uint64 (512 MiB) runs past it: refused, never asked for as 'truncated'.
  const list = cat(new Uint8Array([10, 0, 0, 0]), u64(2 ** 26));
  const g = refusal(c, 'gguf', new GgufWriter().add('a', 9, list).build({ data: false }));
  assert.deepEqual([g.code, g.field, g.messageId.id], ['too_large', 'gguf.header', 'error.checkpoint_header']);
});

test('tensors: a GGUF declaring one past the limit, and a safetensors header listing one past it', async () => {
  const c = await core();
  const l = await limits();
  const gguf = new GgufWriter().str('general.name', 'x').build({ data: false });
  gguf.set(u64(l.tensors + 1), 8);
  const g = refusal(c, 'gguf', gguf);
  assert.deepEqual([g.code, g.field, g.messageId.id], ['too_large', 'gguf.tensor_count', 'error.checkpoint_tensors']);
  const parts = [];
  for (let i = 0; i <= l.tensors; i++) parts.push(`"t${i}":{"dtype":"F16","shape":[1],"data_offsets":[${2 * i},${2 * i + 2}]}`);
  const header = text(`{${parts.join(',')}}`);
  const s = refusal(c, 'safetensors', cat(u64(header.length), header));
  assert.deepEqual([s.code, s.field, s.messageId.id], ['too_large', 'safetensors.tensors', 'error.checkpoint_tensors']);
  assert.equal(s.messageId.params.size, l.tensors + 1);
});

test('metadata kept: past the limit is refused before it is kept', async () => {
  const c = await core();
  const l = await limits();
  // safetensors: one value as long as the limit.
  const s = refusal(c, 'safetensors', safetensorsFile({ __metadata__: { note: 'x'.repeat(l.metadata_bytes) }, w: { dtype: 'F16', shape: [1], data_offsets: [0, 2] } }));
  assert.deepEqual([s.code, s.field, s.messageId.id], ['too_large', 'safetensors.__metadata__', 'error.checkpoint_metadata']);
  // GGUF: kept bools cost 16 bytes each; 70 lists of 4,096 pass 4 MiB.
  const w = new GgufWriter();
  for (let i = 0; i < Math.ceil(l.metadata_bytes / (16 * 4096)) + 1; i++) w.bools(`k${i}`, Array(4096).fill(true));
  const g = refusal(c, 'gguf', w.build({ data: false }));
  assert.deepEqual([g.code, g.field, g.messageId.id], ['too_large', 'gguf.metadata', 'error.checkpoint_metadata']);
});

test('names: a key or tensor name at the limit reads, one past it is refused', async () => {
  const c = await core();
  const l = await limits();
  const at = 'n'.repeat(l.name_bytes);
  assert.equal(Object.keys(c.inspect('gguf', new GgufWriter().u32(at, 1).build({ data: false })).metadata)[0], at);
  const g = refusal(c, 'gguf', new GgufWriter().u32(`${at}n`, 1).build({ data: false }));
  assert.deepEqual([g.code, g.field, g.messageId.id], ['too_large', 'gguf.metadata[0].key', 'error.checkpoint_name']);
  const s = refusal(c, 'safetensors', safetensorsFile({ [`${at}n`]: { dtype: 'F16', shape: [1], data_offsets: [0, 2] } }));
  assert.deepEqual([s.code, s.field, s.messageId.id], ['too_large', 'safetensors.tensors', 'error.checkpoint_name']);
});

test("a tensor's entry past the limit is refused before it is parsed", async () => {
  const c = await core();
  const l = await limits();
  const entry = text(`{"t":{"dtype":"F16","shape":[${' '.repeat(l.entry_bytes)}1],"data_offsets":[0,2]}}`);
  const e = refusal(c, 'safetensors', cat(u64(entry.length), entry, new Uint8Array(2)));
  assert.deepEqual([e.code, e.field, e.messageId.id], ['too_large', 'safetensors.tensors.t', 'error.checkpoint_entry']);
});

test('shards: a split count past the limit is refused, so no part number overflows', async () => {
  const c = await core();
  const e = refusal(c, 'gguf', new GgufWriter().u32('split.no', 2147483646).u32('split.count', 2147483647).build({ data: false }));
  assert.deepEqual([e.code, e.field, e.messageId.id], ['too_large', 'gguf.metadata.split.count', 'error.checkpoint_shards']);
});

test('the tensor list comes only when asked, capped', async () => {
  const c = await core();
  const l = await limits();
  const header = {};
  for (let i = 0; i < l.listed_tensors + 3; i++) header[`t${i}`] = { dtype: 'F16', shape: [1], data_offsets: [2 * i, 2 * i + 2] };
  const bytes = safetensorsFile(header);
  const summary = c.inspect('safetensors', bytes, bytes.length);
  assert.equal(summary.tensors, undefined);
  assert.equal(summary.file.tensor_count, l.listed_tensors + 3);
  const listed = JSON.parse((await rawModule()).inspect('safetensors', bytes, bytes.length, true));
  assert.equal(listed.tensors.length, l.listed_tensors);
  assert.equal(listed.tensors_omitted, 3);
});

test('duplicate names and empty files are named', async () => {
  const c = await core();
  const dup = text('{"a":{"dtype":"F16","shape":[1],"data_offsets":[0,2]},"a":{"dtype":"F16","shape":[1],"data_offsets":[2,4]}}');
  const d = refusal(c, 'safetensors', cat(u64(dup.length), dup, new Uint8Array(4)));
  assert.deepEqual([d.code, d.messageId.id], ['invalid_safetensors', 'error.checkpoint_duplicate']);
  for (const kind of ['gguf', 'safetensors']) {
    const e = refusal(c, kind, new Uint8Array(0));
    assert.deepEqual([e.code, e.messageId.id], [`invalid_${kind}`, 'error.checkpoint_empty']);
  }
});

function run(...args) {
  return spawnSync(cli, args, { encoding: 'utf8' });
}

test('CLI --index: total_size 1e400 is a named error, not an internal one', () => {
  const index = join(dir, 'big.index.json');
  writeFileSync(index, '{"metadata": {"total_size": 1e400}, "weight_map": {"a": "a.safetensors"}}');
  const r = run('inspect', '--index', index);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /index\.metadata\.total_size.*\[invalid_index\]/);
  assert.doesNotMatch(r.stderr, /internal/);
});

test('CLI --index: an index past the limit is refused by its size, named', async () => {
  const l = await limits();
  const index = join(dir, 'huge.index.json');
  writeFileSync(index, `{"weight_map": {"a": "a.safetensors"}, "pad": "${'x'.repeat(l.index_bytes)}"}`);
  const r = run('inspect', '--index', index);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /\[too_large\]/);
});

test('CLI --index: 100,000 names of two shards are counted once each', () => {
  const shard = (name) => safetensorsFile({ [name]: { dtype: 'BF16', shape: [4, 4], data_offsets: [0, 32] } });
  writeFileSync(join(dir, 'a.safetensors'), shard('model.embed_tokens.weight'));
  writeFileSync(join(dir, 'b.safetensors'), shard('lm_head.weight'));
  const map = {};
  for (let i = 0; i < 100000; i++) map[`t${i}`] = i % 2 ? 'a.safetensors' : 'b.safetensors';
  const index = join(dir, 'many.index.json');
  writeFileSync(index, JSON.stringify({ weight_map: map }));
  const r = run('inspect', '--index', index, '--json');
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).map((i) => i.path.split('/').pop()), ['b.safetensors', 'a.safetensors']);
});

test('CLI: split.no of 2^31 - 1 is refused by name, never printed as a negative part', () => {
  const path = join(dir, 'split.gguf');
  writeFileSync(path, new GgufWriter().u32('split.no', 2147483646).u32('split.count', 2147483647).build());
  const r = run('inspect', '--gguf', path);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /gguf\.metadata\.split\.count.*\[too_large\]/);
  assert.doesNotMatch(r.stdout + r.stderr, /-2,147/);
});

test('CLI: an empty file is named empty, not truncated; --tensors lists', () => {
  const empty = join(dir, 'empty.safetensors');
  writeFileSync(empty, new Uint8Array(0));
  const r = run('inspect', '--safetensors', empty);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /the file is empty/);
  assert.doesNotMatch(r.stderr, /truncated/);
  const one = join(dir, 'one.safetensors');
  writeFileSync(one, safetensorsFile({ w: { dtype: 'F16', shape: [2], data_offsets: [0, 4] } }));
  const listed = run('inspect', '--safetensors', one, '--tensors', '--json');
  assert.equal(listed.status, 0, listed.stderr);
  assert.equal(JSON.parse(listed.stdout)[0].tensors[0].name, 'w');
  assert.equal(JSON.parse(run('inspect', '--safetensors', one, '--json').stdout)[0].tensors, undefined);
});
