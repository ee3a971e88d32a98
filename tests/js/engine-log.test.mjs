// `vramcalc log` and the module's call('log'): an engine's start-up log read
// the same natively and in wasm, printed in each language, refused by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { core, loadJson, root } from './module.mjs';

const cli = join(root, 'build/native/vramcalc');
const run = (...args) => spawnSync(cli, args, { encoding: 'utf8' });
const dir = mkdtempSync(join(tmpdir(), 'vram-log-'));

/** Every validation case whose quoted source is a start-up log, with its file. */
function logs() {
  const out = [];
  const folder = join(root, 'tests/validation/cases');
  for (const name of readdirSync(folder).sort()) {
    const c = loadJson(`tests/validation/cases/${name}`);
    const quote = c.source?.quote;
    if (typeof quote !== 'string') continue;
    const path = join(dir, name.replace(/\.json$/, '.log'));
    writeFileSync(path, quote);
    out.push({ id: c.id, path, quote, model: c.request.model });
  }
  return out;
}

test('native CLI and wasm module read every quoted log to identical JSON', async () => {
  const { call } = await core();
  let read = 0;
  for (const { id, path, quote, model } of logs()) {
    const args = ['log', path, '--json', '--gpu', 'h100-sxm'];
    const request = { log: quote, gpu: 'h100-sxm' };
    if (model) {
      args.push('--model', model);
      request.model = model;
    }
    const native = run(...args);
    let wasm;
    try {
      wasm = call('log', request);
    } catch (error) {
      assert.equal(error.code, 'invalid_log', id);
      assert.equal(native.status, 2, id);
      continue;
    }
    assert.equal(native.status, 0, `${id}: ${native.stderr}`);
    assert.deepStrictEqual(wasm, JSON.parse(native.stdout), id);
    read++;
  }
  assert.ok(read >= 25, `read ${read} logs`);
});

test('the table in English, Arabic and Persian, with the logged and predicted figures', () => {
  const path = join(dir, 'gemma.log');
  writeFileSync(path, [
    "INFO [core.py:93] Initializing a V1 LLM engine (v0.13.0) with config: model='google/gemma-3-1b-it', dtype=torch.bfloat16, max_seq_len=2048, tensor_parallel_size=1, quantization=None, kv_cache_dtype=auto",
    'INFO [gpu_model_runner.py:3000] Model loading took 1.9147 GiB memory and 5.1 seconds',
    'INFO [kv_cache_utils.py:1200] GPU KV cache size: 950,864 tokens',
  ].join('\n'));
  const en = run('log', path, '--gpu', 'l4');
  assert.equal(en.status, 0, en.stderr);
  assert.match(en.stdout, /vLLM 0\.13\.0 start-up log; model: google\/gemma-3-1b-it \(preset: gemma-3-1b\)/);
  assert.match(en.stdout, /Weights +1\.91 GiB +\d\.\d\d GiB/);
  assert.match(en.stdout, /950,864 tokens, 464 requests of 2,048 tokens/);
  const fa = run('log', path, '--gpu', 'l4', '--lang', 'fa');
  assert.equal(fa.status, 0, fa.stderr);
  assert.match(fa.stdout, /وزن‌ها/);
  assert.match(fa.stdout, /۹۵۰٬۸۶۴/);  // Persian digits and separator
  assert.doesNotMatch(fa.stdout, /Weights|tokens,/);
  const ar = run('log', path, '--gpu', 'l4', '--lang', 'ar');
  assert.equal(ar.status, 0, ar.stderr);
  assert.match(ar.stdout, /الأوزان/);
});

test('no file, an unreadable file, text that is no log: named, exit status 2', () => {
  const none = run('log');
  assert.equal(none.status, 2);
  assert.match(none.stderr, /vramcalc log FILE/);
  const missing = run('log', join(dir, 'absent.log'));
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /--log/);
  const prose = join(dir, 'prose.log');
  writeFileSync(prose, 'Hello, this is not a log.\n');
  const notLog = run('log', prose, '--lang', 'fa');
  assert.equal(notLog.status, 2);
  assert.match(notLog.stderr, /invalid_log/);
  assert.match(notLog.stderr, /پیدا نشد/);
});
