// Speculative decoding with the model's own MTP layers from the CLI (issue
// 42 part 2): --speculative mtp, read from the core's schema like every other
// flag (docs/cli.md), with --draft-tokens for the tokens they draft a step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './module.mjs';

const cli = join(root, 'build/native/vramcalc');
const run = (...args) => spawnSync(cli, args, { encoding: 'utf8' });
const base = ['estimate', '--model', 'deepseek-v3', '--engine', 'vllm', '--gpu', 'h200-sxm', '--gpu-count', '8'];

test('--speculative mtp sizes the MTP layers and writes the speculative config', () => {
  const r = run(...base, '--speculative', 'mtp', '--draft-tokens', '2', '--json');
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  const weights = out.terms.find((t) => t.id === 'mtp_weights');
  assert.ok(weights, 'an mtp_weights term');
  assert.equal(weights.inputs.mtp_layers, 1);
  assert.equal(weights.inputs.draft_tokens, 2);
  assert.ok(out.terms.find((t) => t.id === 'mtp_kv').gb > 0);
  assert.match(out.launch.command, /--speculative-config '\{"method":"mtp","num_speculative_tokens":2\}'/);
  // The readable output names both terms.
  const text = run(...base, '--speculative', 'mtp');
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /MTP layers' weights/);
  assert.match(text.stdout, /MTP layers' KV cache/);
});

test('Without --speculative the answer is the one it was; refusals name the field', () => {
  const plain = run(...base, '--json');
  const draft = run(...base, '--speculative', 'draft', '--json');
  assert.equal(plain.status, 0, plain.stderr);
  assert.equal(draft.stdout, plain.stdout);
  const help = run('estimate', '--help');
  assert.match(help.stdout, /--speculative\s+.*default draft/);
  const llama = run('estimate', '--model', 'llama-3.1-8b', '--speculative', 'mtp');
  assert.equal(llama.status, 2);
  assert.match(llama.stderr, /speculative/);
  assert.match(llama.stderr, /multi-token-prediction/);
  const both = run(...base, '--speculative', 'mtp', '--draft-model', 'llama-3.2-1b');
  assert.equal(both.status, 2);
  assert.match(both.stderr, /draft_model/);
  const bad = run(...base, '--speculative', 'eagle');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--speculative/);
});

test('The MTP formula says how many modules the figure holds, and counts no head of their own', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vram-mtp-'));
  const config = JSON.parse(readFileSync(join(root, 'tests/configs/deepseek-r1-0528/config.json'), 'utf8'));
  const estimate = (modules, ...more) => {
    const file = join(dir, `config-${modules}.json`);
    writeFileSync(file, JSON.stringify({ ...config, num_nextn_predict_layers: modules }));
    return run('estimate', '--config', file, '--engine', 'vllm', '--gpu', 'h200-sxm', '--gpu-count', '8',
      '--speculative', 'mtp', ...more);
  };
  try {
    const params = (modules) => {
      const r = estimate(modules, '--json');
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(r.stdout).terms.find((t) => t.id === 'mtp_weights').formula.params;
    };
    const one = params(1);
    const three = params(3);
    assert.equal(three.modules, 3);
    assert.ok(Math.abs(three.layers - 3 * one.layers) < 1e-6 * one.layers);
    // vLLM replaces each module's shared_head.head with the model's (_maybe_share_lm_head).
    assert.equal(one.head, undefined);
    assert.match(estimate(1).stdout, /1 MTP module \(a decoder layer, eh_proj and norms\) [\d.]+ GB .*the embedding and output head are the model's/);
    const text = estimate(3).stdout;
    assert.match(text, /3 MTP modules \(each a decoder layer, eh_proj and norms\) [\d.]+ GB .*the embedding and output head are the model's/);
    assert.doesNotMatch(text, /×\s*MTP module/);
    const arabic = estimate(3, '--lang', 'ar').stdout;
    assert.match(arabic, /عدد وحدات MTP: 3/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
