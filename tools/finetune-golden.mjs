// Writes tests/golden/finetune-answers.json: the core's answer, byte for
// byte, to every fine-tuning request we could find or think of, so that a
// change meant to move no number (a refactor of core/src/finetune/) is held
// to that. tests/cpp/test_finetune_golden.cpp (native) and
// tests/js/finetune-golden.test.mjs (wasm) send each request again and
// compare the answer's text.
//
//   bash scripts/build.sh && node tools/finetune-golden.mjs
//
// Rewrite the file only when a change is meant to move an answer, and say
// so in the commit. Two kinds of case:
// - "found": every fine-tuning request of tests/validation/cases, the grid
//   calls of tests/vectors (the grid sizes qlora, lora and full) and the
//   page's presets that set a fine-tuning mode or show the grid, each with
//   its whole answer;
// - "products": requests made of one object from each factor, merged in
//   order, the last factor varying fastest, each with its answer's length in
//   UTF-8 bytes and 64-bit FNV-1a digest ("length fnv1a64"): a grid of
//   method x profile x optimizer x precision x checkpointing x flash
//   attention x micro-batch on four models (dense GQA, Gemma 2's
//   soft-capping and sliding window, MLA with MoE, a Mamba hybrid); one
//   setting at a time away from the defaults (loss, ZeRO, offload, LoRA's
//   base formats, targets and rank, momentum, runtime, a card and a budget:
//   the fit and the inverse search) on seven models; and bad requests.
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { expandProduct, fnv1a64, loadJson, rawCall, root } from '../tests/js/module.mjs';

const found = [];
const seen = new Set();
const addFound = (name, request, method = 'estimate') => {
  const key = `${method} ${JSON.stringify(request)}`;  // the same request once, under its first name
  if (seen.has(key)) return;
  seen.add(key);
  found.push({ name, method, request });
};
const casesDir = join(root, 'tests/validation/cases');
for (const file of readdirSync(casesDir).sort()) {
  const c = JSON.parse(readFileSync(join(casesDir, file), 'utf8'));
  if (c.request && (c.request.mode ?? 'inference') !== 'inference') addFound(`validation ${c.id}`, c.request);
}
for (const file of readdirSync(join(root, 'tests/vectors')).sort()) {
  if (!file.endsWith('.json')) continue;
  for (const c of loadJson(`tests/vectors/${file}`).cases ?? []) {
    if (c.method === 'grid' && c.request && !c.error) addFound(`vector ${file}: ${c.name}`, c.request, 'grid');
  }
}
for (const p of loadJson('data/presets.json').presets) {
  const { view, ...state } = p.state;
  if (view === 'grid') addFound(`preset ${p.id}`, {}, 'grid');
  if (state.mode && state.mode !== 'inference') addFound(`preset ${p.id}`, state);
}

const values = (key, list) => list.map((value) => ({ [key]: value }));
const modes = values('mode', ['full', 'lora', 'qlora']);
const profiles = values('finetune_profile', ['physical', 'guide']);
const tiny = {
  model_type: 'llama', hidden_size: 2048, num_hidden_layers: 16, num_attention_heads: 16,
  num_key_value_heads: 4, intermediate_size: 8192, vocab_size: 32000,
};
const products = [
  {
    name: 'grid',
    factors: [
      values('model', ['llama-3.1-8b', 'gemma-2-9b', 'deepseek-v2-lite', 'bamba-9b']),
      modes,
      profiles,
      values('optimizer', ['adamw', 'adamw-fused', 'adamw-8bit', 'sgd', 'adafactor']),
      values('precision', ['mixed', 'bf16']),
      values('checkpointing', [true, false]),
      values('flash_attention', [true, false]),
      values('micro_batch', [1, 4]),
    ],
  },
  {
    name: 'one setting at a time',
    factors: [
      [
        ...values('model', ['llama-3.1-8b', 'qwen3-30b-a3b', 'mixtral-8x7b', 'gpt-oss-20b', 'jamba-v0.1', 'guide-70b']),
        { config: tiny, params_total: 1e9, name: 'tiny' },
      ],
      modes,
      profiles,
      [
        {},
        { loss: 'chunked' }, { loss: 'fused' },
        { zero: 1, gpu_count: 4 }, { zero: 2, gpu_count: 4 }, { zero: 3, gpu_count: 8 }, { zero: 2, gpu_count: 1 },
        { gpu_count: 2 },
        { offload_optimizer: true }, { offload_optimizer: true, zero: 3, gpu_count: 2 },
        { optimizer: 'sgd', momentum: 0.9 },
        { overhead_gb: 0 }, { overhead_gb: 3.5 },
        { upcast_unquantized: false },
        { lora_rank: 64, lora_targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] },
        { lora_rank: 8, lora_targets: ['q_proj', 'v_proj'] },
        { lora_targets: ['experts', 'gate_proj', 'down_proj'] },
        ...values('weights', ['int8', 'fp8', 'fp16', 'nf4', 'awq-int4']),
        { seq: 131072 }, { seq: 1 }, { seq: 16384, micro_batch: 8 },
        { gpu: 'h100-sxm' }, { gpu: 'rtx-4090' }, { budget_gb: 24 }, { budget_gb: 80, seq: 8192 },
        { checkpointing: false, flash_attention: false, micro_batch: 2, precision: 'bf16' },
      ],
    ],
  },
  {
    name: 'bad requests',
    factors: [
      [{ model: 'llama-3.1-8b' }],
      [
        { lora_targets: [] }, { lora_rank: 0 }, { zero: 4 }, { optimizer: 'sgd', momentum: 1 },
        { lora_targets: ['w_proj'] }, { seq: 0 }, { micro_batch: 0 }, { gpu_count: 0 },
      ],
      modes,
    ],
  },
];

const answer = async (method, request) => {
  const text = await rawCall(method, JSON.stringify(request));
  if (text.includes('\n')) throw new Error(`${JSON.stringify(request)}: an answer on more than one line`);
  return text;
};
for (const c of found) c.answer = await answer(c.method, c.request);
let count = found.length;
for (const p of products) {
  p.method = 'estimate';
  p.answers = [];
  for (const request of expandProduct(p.factors)) {
    const text = await answer(p.method, request);
    p.answers.push(`${Buffer.byteLength(text, 'utf8')} ${fnv1a64(text)}`);
  }
  count += p.answers.length;
}

const commit = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
const about =
  `The core's answers to ${count} fine-tuning requests, written by node tools/finetune-golden.mjs ` +
  `(which says what they are) from the build of ${commit}; read by tests/cpp/test_finetune_golden.cpp ` +
  'and tests/js/finetune-golden.test.mjs. Rewrite only for a change meant to move an answer, and say so.';
mkdirSync(join(root, 'tests/golden'), { recursive: true });
// One case or one product's answer per line: a changed answer is one changed line.
const lines = ['{', `"about": ${JSON.stringify(about)},`, '"found": ['];
found.forEach((c, i) => lines.push(`${JSON.stringify(c)}${i + 1 < found.length ? ',' : ''}`));
lines.push('],', '"products": [');
products.forEach((p, i) => {
  lines.push(`{"name": ${JSON.stringify(p.name)}, "method": "${p.method}", "factors": ${JSON.stringify(p.factors)}, "answers": [`);
  p.answers.forEach((a, j) => lines.push(`${JSON.stringify(a)}${j + 1 < p.answers.length ? ',' : ''}`));
  lines.push(`]}${i + 1 < products.length ? ',' : ''}`);
});
lines.push(']', '}');
writeFileSync(join(root, 'tests/golden/finetune-answers.json'), `${lines.join('\n')}\n`);
console.log(`${found.length} found cases, ${count - found.length} in products`);
