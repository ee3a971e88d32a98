// The concurrency curve natively and in wasm: the same JSON, and the CLI's
// table in each language.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { core, estimateFlags, root } from './module.mjs';

const cli = join(root, 'build/native/vramcalc');
const REQUESTS = [
  { model: 'llama-3.1-70b', weights: 'fp8', engine: 'vllm', gpu: 'h100-sxm', gpu_count: 2, context: 8192, min_tokens_per_s: 30 },
  { model: 'qwen3-30b-a3b', weights: 'fp8', engine: 'sglang', gpu: 'l40s', context: 32768 },
  { model: 'qwen3-8b', engine: 'llamacpp', gpu: 'rtx-4090', batch: 4 },
  { model: 'deepseek-v3', engine: 'vllm', gpu: 'h200-sxm', gpu_count: 8, context: 16384 },
];

test('native CLI and wasm module return identical curves', async () => {
  const { call } = await core();
  for (const request of REQUESTS) {
    const native = spawnSync(cli, ['curve', '--json', ...estimateFlags(request)], { encoding: 'utf8' });
    assert.equal(native.status, 0, native.stderr);
    const wasm = call('curve', request);
    assert.deepStrictEqual(wasm, JSON.parse(native.stdout), JSON.stringify(request));
    assert.ok(wasm.points.length >= 1, JSON.stringify(request));
  }
  // 61 GB of BF16 weights on one 48 GB card: no point, and the table says so.
  const none = spawnSync(cli, ['curve', '--model', 'qwen3-30b-a3b', '--engine', 'sglang', '--gpu', 'l40s'], { encoding: 'utf8' });
  assert.equal(none.status, 0, none.stderr);
  assert.match(none.stdout, /Not one user fits on these cards at this context/);
});

test('the table in Persian and Arabic, in their own words and digits', () => {
  const flags = estimateFlags(REQUESTS[0]);
  const fa = spawnSync(cli, ['curve', ...flags, '--lang', 'fa'], { encoding: 'utf8' });
  assert.equal(fa.status, 0, fa.stderr);
  assert.match(fa.stdout, /کاربران/);
  assert.match(fa.stdout, /[۰-۹]/);
  assert.doesNotMatch(fa.stdout, /users|tok\/s/);
  const ar = spawnSync(cli, ['curve', ...flags, '--lang', 'ar'], { encoding: 'utf8' });
  assert.equal(ar.status, 0, ar.stderr);
  assert.match(ar.stdout, /المستخدمون/);
});
