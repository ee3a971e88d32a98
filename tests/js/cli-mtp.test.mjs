// Speculative decoding with the model's own MTP layers from the CLI (issue
// 42 part 2): --speculative mtp, read from the core's schema like every other
// flag (docs/cli.md), with --draft-tokens for the tokens they draft a step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
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
