// The page's checkpoint reader (web/src/checkpoint.js) against the built
// module: headers only, growing slices, files sorted and checked; the Hub
// one shard at a time; the background reader's limits (web/src/reader.js)
// with a stand-in Worker (the real one runs in tests/browser/checkpoint).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CheckpointProblem, boundedBytes, checkpointLimits, fileKind, hubFiles, indexShards, readCheckpoint, readHeader } from '../../web/src/checkpoint.js';
import { backgroundReader, workerSource } from '../../web/src/reader.js';
import { core } from './module.mjs';
import { fixtures, safetensorsFile, splitParts } from './gguf-writer.mjs';

/** A File whose slices are recorded: the largest one read must stay far below the file. */
function recordingFile(bytes, name, padTo = 0) {
  const data = new Uint8Array(Math.max(bytes.length, padTo));
  data.set(bytes);
  const file = new File([data], name);
  const slices = [];
  return {
    name,
    size: file.size,
    slices,
    slice: (start, end) => {
      slices.push(end - start);
      return file.slice(start, end);
    },
    text: () => file.text(),
  };
}

test('file kinds by name', () => {
  assert.equal(fileKind('Llama-Q4_K_M-00001-of-00002.GGUF'), 'gguf');
  assert.equal(fileKind('model.safetensors'), 'safetensors');
  assert.equal(fileKind('model.safetensors.index.json'), 'index');
  assert.equal(fileKind('config.json'), 'config');
  assert.equal(fileKind('weights.bin'), null);
});

test('a header is read from growing slices, never the whole file', async () => {
  const c = await core();
  // A 5,000-token vocabulary in a 64 MB file: a 4 KB first slice must grow.
  const file = recordingFile(fixtures['llama-q4_k_m']().build({ data: false }), 'big.gguf', 64 << 20);
  const out = await readHeader(file, 'gguf', c.inspect, checkpointLimits(c).header_bytes, 4096);
  assert.equal(out.metadata['tokenizer.ggml.tokens'].length, 5000);
  assert.ok(file.slices.length > 1 && file.slices.length < 10, `${file.slices.length} reads`);
  assert.ok(Math.max(...file.slices) < file.size / 100);
  // Past the core's header limit the slice stops growing: the core's truncated error stands.
  const capped = recordingFile(fixtures['llama-q4_k_m']().build({ data: false }), 'big.gguf', 64 << 20);
  await assert.rejects(readHeader(capped, 'gguf', c.inspect, 8192, 4096), (e) => e.code === 'truncated');
  assert.ok(Math.max(...capped.slices) <= 8192, `read ${Math.max(...capped.slices)} bytes`);
});

test("the page's checkpoint limits are the core's", async () => {
  const l = checkpointLimits(await core());
  assert.equal(l.header_bytes, 100000000);
  assert.equal(l.index_bytes, 50000000);
  assert.equal(l.shards, 4096);
});

test('readCheckpoint: split GGUF parts in order, safetensors with config, problems named', async () => {
  const c = await core();
  const parts = splitParts(2).map((b, i) => recordingFile(b, `m-0000${i + 1}-of-00002.gguf`));
  // Given out of order: the first part (with the metadata) is found by name.
  const read = await readCheckpoint([parts[1], parts[0]], c);
  assert.equal(read.kind, 'gguf');
  assert.equal(read.config.model_type, 'llama');
  assert.equal(read.summary.files, 2);
  const st = recordingFile(safetensorsFile({ 'lm_head.weight': { dtype: 'F16', shape: [4, 4], data_offsets: [0, 32] } }), 'model.safetensors');
  await assert.rejects(readCheckpoint([st], c), (e) => e.problem.code === 'ckptNeedsConfig');
  await assert.rejects(readCheckpoint([st, recordingFile(new Uint8Array(4), 'x.gguf')], c), (e) => e.problem.code === 'ckptMixed');
  await assert.rejects(readCheckpoint([recordingFile(new Uint8Array(4), 'x.bin')], c), (e) => e.problem.code === 'ckptUnknownFile');
  const index = recordingFile(new TextEncoder().encode(JSON.stringify({ weight_map: { a: 'model-00001-of-00002.safetensors' } })), 'model.safetensors.index.json');
  await assert.rejects(readCheckpoint([st, index], c), (e) => e.problem.code === 'ckptMissing');
  await assert.rejects(readCheckpoint([recordingFile(new Uint8Array(64), 'zero.gguf')], c), (e) => e.field === 'gguf.magic' && e.source === 'zero.gguf');
});

test('an index: its shard names once each, or the problem with its text', () => {
  assert.deepEqual(indexShards(JSON.stringify({ weight_map: { a: 'x.safetensors', b: 'y.safetensors', c: 'x.safetensors', d: 7 } })), { names: ['x.safetensors', 'y.safetensors'] });
  assert.deepEqual(indexShards('{"metadata": {}}'), { names: [] });
  assert.equal(indexShards('{"weight_map": ').error.code, 'configJson');
  assert.deepEqual(indexShards('[1]'), { names: [] });
  assert.deepEqual(indexShards('{"weight_map": "x.safetensors"}'), { names: [] });
  // The Worker runs the same function's text: it must name nothing outside itself.
  assert.deepEqual(new Function(`return (${indexShards})`)()('{"weight_map":{"a":"z.safetensors"}}'), { names: ['z.safetensors'] });
  assert.match(workerSource('function vramGlue(){return 1}'), /^\(function workerMain\(.*\(\(function vramGlue\(\)\{return 1\}\)\(\),function indexShards\(/s);
});

test('a body read no further than asked, even when the server sends the whole file', async () => {
  let pulled = 0;
  const body = new ReadableStream({
    pull(controller) {
      pulled += 1;
      controller.enqueue(new Uint8Array(1000).fill(pulled));
      if (pulled === 100) controller.close();
    },
  });
  const { bytes, more } = await boundedBytes(new Response(body), 2500);
  assert.equal(bytes.length, 2500);
  assert.equal(more, true);
  assert.ok(pulled < 10, `${pulled} chunks pulled of 100`);
  assert.deepEqual([bytes[0], bytes[1999], bytes[2499]], [1, 2, 3]);
});

/** A Hub from memory: every GET recorded, with how many shard bodies are out and not yet let go. */
function fakeHub(shards, index) {
  const log = [];
  const config = JSON.stringify({ model_type: 'llama', hidden_size: 64, num_hidden_layers: 1, num_attention_heads: 4, intermediate_size: 128, vocab_size: 64 });
  const fetchFn = async (url, { headers }) => {
    const path = decodeURIComponent(url.split('/resolve/main/')[1]);
    log.push(path);
    if (path === 'config.json') return new Response(config);
    if (path === 'model.safetensors.index.json') return new Response(index);
    const bytes = shards[path];
    if (!bytes) return new Response('Entry not found', { status: 404 });
    const [, start, end] = /bytes=(\d+)-(\d+)/.exec(headers.Range);
    const last = Math.min(Number(end), bytes.length - 1);
    return new Response(bytes.slice(Number(start), last + 1), { status: 206, headers: { 'Content-Range': `bytes ${start}-${last}/${bytes.length}` } });
  };
  return { log, fetchFn };
}

test('the Hub: one shard fetched at a time, each after the one before is parsed; a refused shard stops the rest', async () => {
  const c = await core();
  const shard = (name) => safetensorsFile({ [name]: { dtype: 'BF16', shape: [64, 64], data_offsets: [0, 8192] } });
  const names = ['model-00001-of-00003.safetensors', 'model-00002-of-00003.safetensors', 'model-00003-of-00003.safetensors'];
  const shards = Object.fromEntries(names.map((n, i) => [n, shard(`model.layers.${i}.mlp.up_proj.weight`)]));
  const index = JSON.stringify({ weight_map: Object.fromEntries(names.map((n, i) => [`model.layers.${i}.mlp.up_proj.weight`, n])) });
  const hub = fakeHub(shards, index);
  const files = await hubFiles('o/m', checkpointLimits(c), { fetchFn: hub.fetchFn });
  assert.deepEqual(hub.log, ['config.json', 'model.safetensors.index.json'], 'no shard fetched before its header is read');
  // Each header is parsed before the next shard is asked for.
  const order = [];
  const inspect = (kind, bytes, size) => {
    order.push(`parse after ${hub.log.length} requests`);
    return c.inspect(kind, bytes, size);
  };
  const read = await readCheckpoint(files, c, { inspect, index: async (text) => indexShards(text), close() {} });
  assert.equal(read.summary.files, 3);
  assert.deepEqual(order, ['parse after 3 requests', 'parse after 4 requests', 'parse after 5 requests']);

  // The second shard is not safetensors: the third is never fetched.
  const bad = fakeHub({ ...shards, [names[1]]: new Uint8Array(64).fill(0xff) }, index);
  const again = await hubFiles('o/m', checkpointLimits(c), { fetchFn: bad.fetchFn });
  await assert.rejects(readCheckpoint(again, c), (e) => e.source === names[1] && typeof e.code === 'string');
  assert.deepEqual(bad.log.slice(2), names.slice(0, 2));
});

/** A Worker stand-in: answers (or never answers) as told; records terminate. */
class FakeWorker {
  static made = [];
  static answer = null;
  constructor(url) {
    this.url = url;
    this.terminated = false;
    FakeWorker.made.push(this);
  }
  postMessage(message) {
    const reply = FakeWorker.answer && FakeWorker.answer(message);
    if (reply) setTimeout(() => this.onmessage({ data: reply }), 0);
  }
  terminate() {
    this.terminated = true;
  }
}

test('the background reader: past its time limit the Worker is terminated and the read fails by name', async () => {
  FakeWorker.made = [];
  FakeWorker.answer = null; // a parse that never ends
  const reader = backgroundReader({ source: '', wasm: Promise.resolve('module'), limitMs: () => 30, WorkerClass: FakeWorker });
  await assert.rejects(reader.inspect('gguf', new Uint8Array(8), 8), (e) => e instanceof CheckpointProblem && e.problem.code === 'ckptTimeout' && e.problem.seconds === 1);
  assert.equal(FakeWorker.made.length, 1);
  assert.equal(FakeWorker.made[0].terminated, true);
  // The core's named error comes back as CoreError; a crash discards the Worker.
  FakeWorker.answer = (m) => (m.op === 'inspect' ? { text: JSON.stringify({ error: { code: 'invalid_gguf', field: 'gguf.magic', message: 'not GGUF' } }) } : null);
  const fresh = backgroundReader({ source: '', wasm: Promise.resolve('module'), WorkerClass: FakeWorker });
  await assert.rejects(fresh.inspect('gguf', new Uint8Array(8), 8), (e) => e.field === 'gguf.magic');
  FakeWorker.answer = () => ({ crash: 'RuntimeError: unreachable' });
  await assert.rejects(fresh.inspect('gguf', new Uint8Array(8), 8), (e) => e.problem.code === 'ckptCrashed' && /unreachable/.test(e.problem.message));
  assert.equal(FakeWorker.made[1].terminated, true);
  // No Worker at all (a page without them): a named problem, nothing run here instead.
  const none = backgroundReader({ source: '', wasm: Promise.resolve('module'), WorkerClass: undefined });
  await assert.rejects(none.inspect('gguf', new Uint8Array(8), 8), (e) => e.problem.code === 'ckptWorker');
});
