// GGUF and safetensors headers through the wasm module: the core's reader
// against @huggingface/gguf tensor for tensor, the checkpoint in an
// estimate, hostile bytes, and the CLI reading only headers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gguf, GGMLQuantizationType } from '@huggingface/gguf';
import { core, rawModule, root } from './module.mjs';
import { fixtures, splitParts, safetensorsFile } from './gguf-writer.mjs';

const dir = mkdtempSync(join(tmpdir(), 'vram-ckpt-'));
const cli = join(root, 'build/native/vramcalc');

function same(ours, theirs, where) {
  if (typeof theirs === 'bigint') return assert.equal(BigInt(ours), theirs, where);
  if (Array.isArray(theirs)) {
    assert.equal(ours.length, theirs.length, where);
    theirs.forEach((v, i) => same(ours[i], v, `${where}[${i}]`));
    return;
  }
  assert.deepEqual(ours, theirs, where);
}

for (const [name, make] of Object.entries(fixtures)) {
  test(`${name}: the core and @huggingface/gguf agree tensor for tensor`, async () => {
    const bytes = make().build();
    const path = join(dir, `${name}.gguf`);
    writeFileSync(path, bytes);
    const theirs = await gguf(path, { allowLocalFile: true });
    // The tensor list comes only when asked for (the binding's fourth argument).
    const ours = JSON.parse((await rawModule()).inspect('gguf', bytes, bytes.length, true));
    assert.equal(ours.tensors.length, theirs.tensorInfos.length);
    theirs.tensorInfos.forEach((t, i) => {
      const o = ours.tensors[i];
      assert.equal(o.name, t.name);
      assert.equal(o.type, GGMLQuantizationType[t.dtype], t.name);
      same(o.shape, t.shape, `${t.name}.shape`);
      assert.equal(BigInt(o.offset), t.offset, `${t.name}.offset`);
    });
    assert.equal(BigInt(ours.header_bytes), theirs.tensorDataOffset);
    for (const [key, value] of Object.entries(theirs.metadata)) {
      if (['version', 'tensor_count', 'kv_count'].includes(key)) continue;
      const o = ours.metadata[key];
      // Vocabularies beyond 4,096 items keep their length only.
      if (o && o.type === 'array' && !Array.isArray(o)) assert.equal(o.length, value.length, key);
      else same(o, value, key);
    }
    assert.equal(ours.version, theirs.metadata.version);
    assert.equal(Object.keys(ours.metadata).length, Number(theirs.metadata.kv_count));
    // Every tensor's bytes: the whole file is header + the tensors, padded.
    assert.equal(ours.header_bytes + ours.data_bytes, bytes.length);
  });
}

test('an estimate takes the checkpoint: weights are its bytes by type', async () => {
  const c = await core();
  const bytes = fixtures['llama-q4_k_m']().build();
  const file = c.inspect('gguf', bytes, bytes.length);
  const r = c.estimate({ checkpoint: { config: file.config, files: [file.file] }, context: 4096 });
  assert.equal(r.weights_gb, file.file.bytes / 1e9);
  assert.deepEqual(r.checkpoint.by_type.map((t) => t.type), ['Q6_K', 'Q4_K', 'F32']);
  assert.equal(r.model.model_type, 'llama');
  // Any tampering is caught.
  const bad = structuredClone(file.file);
  bad.by_type.Q4_K.bytes += 1;
  assert.throws(() => c.estimate({ checkpoint: { config: file.config, files: [bad] } }), { field: 'checkpoint.files[0].by_type' });
});

test('qwen35moe-mtp: llama.cpp leaves the MTP block out of its model buffer; vLLM keeps the file', async () => {
  const c = await core();
  // blk.2, after the model's two layers, with the NextN tensors of llama.cpp's load_block_mtp.
  const w = fixtures['qwen35moe-mtp']()
    .tensor('blk.2.nextn.eh_proj.weight', [512, 256], 'Q8_0')
    .tensor('blk.2.nextn.enorm.weight', [256], 'F32')
    .tensor('blk.2.nextn.hnorm.weight', [256], 'F32');
  const bytes = w.build();
  const of = (pick) => w.tensors.filter(pick).reduce((n, t) => n + t.bytes, 0);
  const mtp = of((t) => t.name.startsWith('blk.2.'));
  const embd = of((t) => t.name === 'token_embd.weight');
  const file = c.inspect('gguf', bytes, bytes.length);
  assert.equal(file.file.by_component.mtp.bytes, mtp);
  assert.equal(file.config.num_hidden_layers, 2);
  const checkpoint = { config: file.config, files: [file.file] };
  const llama = c.estimate({ checkpoint, engine: 'llamacpp', context: 4096 });
  const buffer = llama.terms.find((t) => t.id === 'weights');
  assert.equal(buffer.formula.id, 'formula.model_buffer_mtp');
  assert.equal(buffer.formula.params.mtp, mtp);
  assert.ok(Math.abs(buffer.gb - (file.file.bytes - embd - mtp) / 1e9) < 1e-15, `${buffer.gb}`);
  assert.ok(llama.assumptions.some((a) => a.id === 'assumption.llamacpp_mtp_skipped'));
  const vllm = c.estimate({ checkpoint, engine: 'vllm', context: 4096 });
  assert.equal(vllm.weights_gb, file.file.bytes / 1e9);
});

test('split parts sum; a missing part is named', async () => {
  const c = await core();
  const parts = splitParts(3).map((b) => c.inspect('gguf', b, b.length));
  assert.equal(parts[0].file.split.count, 3);
  const r = c.estimate({ checkpoint: { config: parts[0].config, files: parts.map((p) => p.file) } });
  assert.equal(r.checkpoint.files, 3);
  const summary = c.call('checkpoint', { files: parts.map((p) => p.file) });
  assert.deepEqual(summary.by_type.map((t) => t.type), ['Q8_0']);
  assert.equal(summary.gb, r.weights_gb);
  assert.throws(() => c.estimate({ checkpoint: { config: parts[0].config, files: [parts[0].file, parts[2].file] } }), { field: 'checkpoint.files' });
});

test('a short prefix says how many bytes to read; growing it converges', async () => {
  const c = await core();
  const bytes = fixtures['llama-q4_k_m']().build();
  let size = 64;
  let reads = 0;
  for (;;) {
    try {
      c.inspect('gguf', bytes.subarray(0, size), bytes.length);
      break;
    } catch (e) {
      assert.equal(e.code, 'truncated');
      assert.ok(e.neededBytes > size);
      size = Math.max(e.neededBytes, 2 * size);
      reads++;
    }
  }
  assert.ok(reads > 0 && reads < 20);
});

test('hostile bytes get a named error, never a dead module', async () => {
  const c = await core();
  const good = fixtures['gemma2-iq']().build({ data: false });
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let i = 0; i < 2000; i++) {
    const bytes = good.slice();
    for (let k = 0; k < 3; k++) bytes[rand() % bytes.length] = rand() & 0xff;
    try {
      c.inspect('gguf', bytes);
    } catch (e) {
      assert.ok(e.code && e.field, `named error: ${e.message}`);
    }
  }
  assert.throws(() => c.inspect('gguf', new Uint8Array([1, 2, 3, 4, 5])), { field: 'gguf.magic' });
  assert.throws(() => c.inspect('zip', new Uint8Array(8)), { field: 'kind' });
  // The module still answers.
  assert.ok(c.estimate({ model: 'llama-3.1-8b' }).total_gb > 0);
});

test('safetensors: dtypes, offsets and components; bad offsets named', async () => {
  const c = await core();
  const header = {
    __metadata__: { format: 'pt' },
    'model.embed_tokens.weight': { dtype: 'BF16', shape: [1000, 64], data_offsets: [0, 128000] },
    'model.layers.0.mlp.experts.0.down_proj.weight': { dtype: 'F8_E4M3', shape: [64, 64], data_offsets: [128000, 132096] },
    'model.layers.0.mlp.experts.0.down_proj.weight_scale_inv': { dtype: 'F32', shape: [1, 1], data_offsets: [132096, 132100] },
    'lm_head.weight': { dtype: 'BF16', shape: [1000, 64], data_offsets: [132100, 260100] },
  };
  const bytes = safetensorsFile(header);
  const out = c.inspect('safetensors', bytes, bytes.length);
  assert.equal(out.tensors, undefined);
  const listed = JSON.parse((await rawModule()).inspect('safetensors', bytes, bytes.length, true));
  assert.equal(out.file.bytes, 260100);
  assert.equal(out.file.by_type.F8_E4M3.bytes, 4096);
  assert.equal(out.file.by_component.experts.bytes, 4100);
  assert.equal(listed.tensors.find((t) => t.name === 'lm_head.weight').dtype, 'BF16');
  header['lm_head.weight'].data_offsets = [132100, 260000];
  assert.throws(() => c.inspect('safetensors', safetensorsFile(header)), { field: 'safetensors.tensors.lm_head.weight.data_offsets' });
});

test('the CLI reads the headers: inspect names the type mix, estimate uses it', () => {
  const path = join(dir, 'cli.gguf');
  writeFileSync(path, fixtures['deepseek2-mla']().build());
  const mix = spawnSync(cli, ['inspect', '--gguf', path], { encoding: 'utf8' });
  assert.equal(mix.status, 0, mix.stderr);
  assert.match(mix.stdout, /Q4_K\s+0\.00 GB\s+4\.50 bits per element/);
  const est = spawnSync(cli, ['estimate', '--gguf', path, '--engine', 'llamacpp', '--json'], { encoding: 'utf8' });
  assert.equal(est.status, 0, est.stderr);
  const r = JSON.parse(est.stdout);
  assert.equal(r.model.model_type, 'deepseek_v3');
  assert.equal(r.checkpoint.format, 'gguf');
  const bad = join(dir, 'bad.gguf');
  writeFileSync(bad, new Uint8Array(64));
  const err = spawnSync(cli, ['inspect', '--gguf', bad], { encoding: 'utf8' });
  assert.equal(err.status, 2);
  assert.match(err.stderr, /not a GGUF file.*\[invalid_gguf\]/);
});

test('the CLI takes safetensors shards through their index, with the config', () => {
  const shard = (name, offset) => ({ [name]: { dtype: 'BF16', shape: [64, 64], data_offsets: [0, 8192] } });
  writeFileSync(join(dir, 'model-00001-of-00002.safetensors'), safetensorsFile(shard('model.layers.0.self_attn.q_proj.weight')));
  writeFileSync(join(dir, 'model-00002-of-00002.safetensors'), safetensorsFile(shard('lm_head.weight')));
  writeFileSync(join(dir, 'model.safetensors.index.json'), JSON.stringify({
    metadata: { total_size: 16384 },
    weight_map: { 'model.layers.0.self_attn.q_proj.weight': 'model-00001-of-00002.safetensors', 'lm_head.weight': 'model-00002-of-00002.safetensors' },
  }));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({
    model_type: 'llama', hidden_size: 64, num_hidden_layers: 1, num_attention_heads: 4, intermediate_size: 128, vocab_size: 64,
  }));
  const r = spawnSync(cli, ['estimate', '--index', join(dir, 'model.safetensors.index.json'), '--config', join(dir, 'config.json'), '--json'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.weights_gb, 16384 / 1e9);
  assert.equal(out.checkpoint.files, 2);
});
