// A second model on the same card from the CLI (issue 42 part 2):
// --companion-model and --companion-context, read from the core's schema
// like every other flag (docs/cli.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { root } from './module.mjs';

const cli = join(root, 'build/native/vramcalc');
const run = (...args) => spawnSync(cli, args, { encoding: 'utf8' });
const base = ['estimate', '--model', 'llama-3.1-8b', '--weights', 'bf16', '--engine', 'vllm', '--gpu', 'h100-sxm'];

test('--companion-model and --companion-context size the companion and write its command', () => {
  const r = run(...base, '--companion-model', 'qwen3-embedding-0.6b', '--companion-context', '2048', '--json');
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  const term = out.terms.find((t) => t.id === 'companion');
  assert.ok(term, 'a companion term');
  assert.equal(term.inputs.companion_model, 'qwen3-embedding-0.6b');
  assert.equal(term.inputs.companion_context, 2048);
  assert.ok(out.warnings.some((w) => w.id === 'warning.vllm_companion'));
  assert.match(out.launch.companion.command, /^vllm serve Qwen\/Qwen3-Embedding-0\.6B .*--port 8001/);
  assert.match(out.launch.companion.command, /--max-model-len 2048/);
  // The readable output names the term and prints both commands.
  const text = run(...base, '--companion-model', 'qwen3-embedding-0.6b');
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /Companion model/);
  assert.match(text.stdout, /--runner pooling/);
});

test('the embedding and reranker models are listed apart, and an 8B embedding model counts no head', () => {
  const models = run('models');
  assert.equal(models.status, 0, models.stderr);
  for (const id of ['qwen3-embedding-0.6b', 'qwen3-embedding-4b', 'qwen3-embedding-8b', 'qwen3-reranker-0.6b']) {
    assert.match(models.stdout, new RegExp(`^${id.replace(/\./g, '\\.')}\\s+embedding\\s`, 'm'));
  }
  // Qwen3-Embedding-8B: its config unties the head its checkpoint lacks.
  const r = run(...base, '--companion-model', 'qwen3-embedding-8b', '--json');
  assert.equal(r.status, 0, r.stderr);
  const term = JSON.parse(r.stdout).terms.find((t) => t.id === 'companion');
  // 7,567,295,488 parameters in BF16: 15.13 GB of weights, not 16.38 with a head.
  assert.ok(term.formula.params.weights > 15.1e9 && term.formula.params.weights < 15.2e9, String(term.formula.params.weights));
});

test("--help lists both flags with the schema's default; bad values name the flag", () => {
  const help = run('estimate', '--help');
  assert.match(help.stdout, /--companion-model/);
  assert.match(help.stdout, /--companion-context\s+.*default 512/);
  const unknown = run(...base, '--companion-model', 'no-such-model');
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /companion_model|no-such-model/);
  const zero = run(...base, '--companion-model', 'qwen3-embedding-0.6b', '--companion-context', '0');
  assert.equal(zero.status, 2);
  assert.match(zero.stderr, /--companion-context/);
  const used = run(...base, '--gpu-used-gb', '90');
  assert.equal(used.status, 2);
  assert.match(used.stderr, /gpu_used_gb/);
});

test('the reranker preset carries its own launch flags in the CLI, alone and as the companion', () => {
  const overrides = `--hf-overrides '{"architectures":["Qwen3ForSequenceClassification"],"classifier_from_token":["no","yes"],"is_original_qwen3_reranker":true}'`;
  const alone = run('estimate', '--model', 'qwen3-reranker-0.6b', '--engine', 'vllm', '--gpu', 'l4');
  assert.equal(alone.status, 0, alone.stderr);
  assert.ok(alone.stdout.includes(`vllm serve Qwen/Qwen3-Reranker-0.6B --runner pooling ${overrides} `), alone.stdout);
  const beside = run(...base, '--companion-model', 'qwen3-reranker-0.6b', '--json');
  assert.equal(beside.status, 0, beside.stderr);
  const command = JSON.parse(beside.stdout).launch.companion.command;
  assert.ok(command.startsWith(`vllm serve Qwen/Qwen3-Reranker-0.6B --runner pooling ${overrides} --port 8001 `), command);
  const sglang = run('estimate', '--model', 'qwen3-reranker-0.6b', '--engine', 'sglang', '--gpu', 'l4', '--json');
  const sg = JSON.parse(sglang.stdout).launch.command;
  assert.doesNotMatch(sg, /--is-embedding/);
  assert.match(sg, /--chat-template examples\/chat_template\/qwen3_reranker\.jinja/);
});

test('the vLLM command carries the max_num_seqs the KV budget was profiled with', () => {
  for (const [gpu, batch] of [['h100-sxm', '1'], ['l4', '3'], ['l4', '400']]) {
    const r = run('estimate', '--model', 'llama-3.1-8b', '--engine', 'vllm', '--gpu', gpu, '--batch', batch, '--context', '1024', '--json');
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    const seqs = out.terms.find((t) => t.id === 'activations').inputs.max_num_seqs;
    assert.equal(out.launch.args.find((a) => a.flag === '--max-num-seqs').value, seqs);
    assert.equal(out.warnings.some((w) => w.id === 'warning.vllm_seqs_users'), Number(batch) > seqs);
  }
});
