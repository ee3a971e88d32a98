// The page's checkpoint reader (web/src/checkpoint.js) against the built
// module: headers only, growing slices, files sorted and checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileKind, readCheckpoint, readHeader } from '../../web/src/checkpoint.js';
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
  const out = await readHeader(file, 'gguf', c.inspect, 4096);
  assert.equal(out.metadata['tokenizer.ggml.tokens'].length, 5000);
  assert.ok(file.slices.length > 1 && file.slices.length < 10, `${file.slices.length} reads`);
  assert.ok(Math.max(...file.slices) < file.size / 100);
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
