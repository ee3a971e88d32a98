// Writes tests/golden/answers.json: the core's answer text, byte for byte,
// to every request of tests/vectors (errors too), every preset of
// data/presets.json (through the page's own state and request code), the
// estimate examples of README.md, and a sweep of requests that reaches each
// part of an estimate answer (every engine, card or none, a budget, an
// offload, a user's placement, fine-tuning). tests/js/golden-answers.test.mjs
// and tests/cpp/test_golden.cpp hold the wasm module and the native core to
// it. Run after `bash scripts/build.sh`, only when an answer is meant to
// change, and say why in the commit:
//
//   node tools/golden-answers.mjs            # rewrite the file
//   node tools/golden-answers.mjs --check    # exit 1 where an answer differs
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { estimateRequest, parseQuery } from '../web/src/state.js';
import { core, loadJson, rawCall, requestVectorFiles, root } from '../tests/js/module.mjs';
import { fixtures } from '../tests/js/gguf-writer.mjs';

const OUTPUT = 'tests/golden/answers.json';

/** The README's `cli -- estimate ...` lines as requests (docs/cli.md: `--a-b V` is `a_b`). */
function readmeRequests() {
  const lines = readFileSync(join(root, 'README.md'), 'utf8').split('\n');
  const out = [];
  for (const line of lines) {
    const m = /(?:cli --|vram-calculator) estimate ((?:--[a-z-]+(?: [^\s`-][^\s`]*)? ?)+)/.exec(line);
    if (!m) continue;
    const request = {};
    const words = m[1].trim().split(/\s+/);
    for (let i = 0; i < words.length; i++) {
      const flag = words[i].slice(2);
      if (flag === 'json') continue;
      const value = words[++i];
      const key = flag === 'gpus' ? 'gpu_count' : flag.replace(/-/g, '_');
      // `--config ./config.json` names any file: a shipped Llama 3.1 8B config stands in.
      request[key] = key === 'config' ? loadJson('tests/configs/llama-3.1-8b/config.json') : /^\d+$/.test(value) ? Number(value) : value;
    }
    out.push({ source: `README.md: ${m[0]}`, method: 'estimate', request });
  }
  return out;
}

/** Requests that reach each section of an estimate answer, beyond the vectors. */
function sweepRequests() {
  const out = [];
  const add = (request) => out.push({ source: 'sweep', method: 'estimate', request });
  // A dense model, a small one, two MoE (one MXFP4) and a hybrid with SSM state.
  const models = ['guide-70b', 'llama-3.1-8b', 'qwen3-30b-a3b', 'gpt-oss-120b', 'jamba-v0.1'];
  const engines = ['guide', 'percent', 'vllm', 'sglang', 'llamacpp', 'transformers'];
  const cards = [null, ['rtx-4090', 1], ['h100-sxm', 4]];
  for (const model of models) {
    for (const engine of engines) {
      for (const card of cards) {
        const request = { model, engine, context: 16384, batch: 4 };
        if (engine === 'llamacpp') request.weights = 'q4_k_m';
        if (card) Object.assign(request, { gpu: card[0], gpu_count: card[1] });
        add(request);
      }
    }
  }
  // A budget instead of a card, and beside one.
  add({ model: 'guide-70b', weights: 'fp8', budget_gb: 80 });
  add({ model: 'llama-3.1-8b', engine: 'vllm', gpu: 'l4', budget_gb: 40 });
  // A service floor most sets miss.
  add({ model: 'llama-3.1-8b', engine: 'vllm', batch: 16, min_tokens_per_s: 200 });
  add({ model: 'guide-70b', weights: 'fp8', gpu: 'h100-sxm', gpu_count: 2, min_tokens_per_s: 500 });
  add({ model: 'qwen3-30b-a3b', engine: 'llamacpp', weights: 'q4_k_m', min_tokens_per_s: 40 });
  // llama.cpp's offload: planned, and placed by the user (fitting or not).
  add({ model: 'qwen3-30b-a3b', engine: 'llamacpp', weights: 'q8_0', gpu: 'rtx-4090', context: 32768 });
  add({ model: 'guide-70b', engine: 'llamacpp', weights: 'q4_k_m', gpu: 'rtx-4090', gpu_count: 2 });
  add({ model: 'qwen3-30b-a3b', engine: 'llamacpp', weights: 'q4_k_m', gpu: 'rtx-4090', engine_options: { n_cpu_moe: 20 } });
  add({ model: 'guide-70b', engine: 'llamacpp', weights: 'q4_k_m', gpu: 'rtx-4090', engine_options: { gpu_layers: 70 } });
  // Unequal cards under llama.cpp: the split, and an order the answer turns round.
  add({ model: 'llama-3.1-70b', engine: 'llamacpp', weights: 'q4_k_m', context: 16384, split_gpus: ['rtx-5090', 'rtx-3090'] });
  add({ model: 'llama-3.1-70b', engine: 'llamacpp', weights: 'q4_k_m', context: 131072, split_gpus: ['rtx-4090', 'l4'] });
  add({ model: 'llama-3.1-8b', engine: 'llamacpp', weights: 'q4_k_m', gpu: 'rtx-4090', engine_options: { gpu_layers: 20 } });
  add({ model: 'llama-3.1-8b', engine: 'llamacpp', weights: 'q4_k_m', engine_options: { gpu_layers: 20 } });
  // vLLM's MoE layouts: expert and data parallel.
  add({ model: 'deepseek-v3', engine: 'vllm', weights: 'fp8', gpu: 'h200-sxm', gpu_count: 8, engine_options: { expert_parallel: true } });
  add({ model: 'qwen3-235b-a22b', engine: 'vllm', weights: 'fp8', gpu: 'h100-sxm', gpu_count: 8, engine_options: { data_parallel_size: 2, expert_parallel: true } });
  add({ model: 'guide-70b', engine: 'vllm', weights: 'fp8', gpu: 'h100-sxm', gpu_count: 2, engine_options: { pipeline_parallel_size: 2 } });
  add({ model: 'qwen3-30b-a3b', engine: 'vllm', gpu: 'h100-sxm', gpu_count: 4, engine_options: { data_parallel_size: 2 } });
  // Formats the engine does not load; a model no count of a card holds; a card without TFLOP/s.
  add({ model: 'llama-3.1-8b', engine: 'llamacpp', weights: 'fp8', gpu: 'rtx-4090' });
  add({ model: 'llama-3.1-8b', engine: 'vllm', weights: 'q4_k_m', gpu: 'l4' });
  add({ model: 'guide-405b', engine: 'vllm', weights: 'bf16', gpu: 'rtx-3090' });
  add({ model: 'llama-3.1-8b', gpu: 'apple-m3-ultra' });
  // Apple silicon: macOS's default GPU limit, the sysctl that raises it, past what macOS spares,
  // and llama.cpp's offload counted against the one memory.
  add({ model: 'llama-3.1-8b', engine: 'llamacpp', weights: 'q8_0', context: 16384, gpu: 'apple-m4-16gb' });
  add({ model: 'llama-3.1-8b', engine: 'llamacpp', weights: 'q8_0', context: 32768, gpu: 'apple-m4-16gb' });
  add({ model: 'qwen3-30b-a3b', engine: 'llamacpp', weights: 'q8_0', gpu: 'apple-m4-24gb' });
  add({ model: 'llama-3.1-70b', engine: 'llamacpp', weights: 'q4_k_m', gpu: 'apple-m4-max-64gb' });
  // A vision model's images: vLLM's encoder cache and tower pass, llama.cpp's mmproj (and its
  // model buffer without the tower at 0 images), SGLang's note, the conventions' context.
  add({ model: 'gemma-3-27b', engine: 'vllm', gpu: 'h100-sxm', images: 2 });
  add({ model: 'gemma-3-27b', engine: 'llamacpp', weights: 'q4_k_m', gpu: 'rtx-4090', images: 1 });
  add({ model: 'gemma-3-27b', engine: 'llamacpp', weights: 'q4_k_m', gpu: 'rtx-4090' });
  add({ model: 'gemma-3-12b', engine: 'sglang', gpu: 'h100-sxm', images: 4 });
  add({ model: 'gemma-3-4b', images: 8 });
  // Speculative decoding: the model's own MTP layers under vLLM (its head, the blocks beside
  // the model's) and SGLang (EAGLE, the draft pool), and SGLang's draft worker for a draft model.
  add({ model: 'deepseek-v3', engine: 'vllm', gpu: 'h200-sxm', gpu_count: 8, speculative: 'mtp', draft_tokens: 1 });
  add({ model: 'glm-4.5-air', weights: 'fp8', engine: 'sglang', gpu: 'h200-sxm', speculative: 'mtp', draft_tokens: 3 });
  add({ model: 'llama-3.1-8b', weights: 'bf16', engine: 'sglang', gpu: 'h100-sxm', draft_model: 'llama-3.2-1b' });
  // An EAGLE-3 head: vLLM (its blocks beside the model's, method eagle3) over four cards and
  // SGLang (EAGLE3, the draft pool); llama.cpp says it does not run heads.
  add({ model: 'llama-3.1-70b', engine: 'vllm', gpu: 'h100-sxm', gpu_count: 4, speculative: 'eagle3', draft_tokens: 3 });
  add({ model: 'llama-3.1-8b', engine: 'sglang', gpu: 'h100-sxm', speculative: 'eagle3' });
  add({ model: 'llama-3.1-8b', engine: 'llamacpp', weights: 'q4_k_m', gpu: 'rtx-4090', speculative: 'eagle3' });
  // FP8 on a card without it; the conventions' overhead knobs.
  add({ model: 'guide-70b', weights: 'fp8', gpu: 'a100-sxm', gpu_count: 2 });
  add({ model: 'guide-7b', overhead_gb: 3, gpu: 'rtx-4090' });
  add({ model: 'guide-7b', overhead_pct: 25, gpu: 'l4' });
  // Past the model's context.
  add({ model: 'llama-3.1-8b', context: 300000, gpu: 'h100-sxm' });
  // Fine-tuning: each method, with and without a card or budget.
  for (const mode of ['lora', 'qlora', 'full']) {
    for (const card of [null, ['rtx-4090', 1], ['h100-sxm', 2]]) {
      const request = { model: 'llama-3.1-8b', mode, seq: 2048 };
      if (card) Object.assign(request, { gpu: card[0], gpu_count: card[1] });
      add(request);
    }
  }
  add({ model: 'guide-70b', mode: 'lora', budget_gb: 80, zero: 3, gpu_count: 1 });
  add({ model: 'llama-3.1-8b', mode: 'full', seq: 200000, gpu: 'h100-sxm', overhead_gb: 2, weights: 'bf16' });
  return out;
}

/** A GGUF checkpoint's header read by the module, as the page sends it (tests/js/gguf-writer.mjs). */
function checkpointRequests(calc) {
  const bytes = fixtures['llama-q4_k_m']().build();
  const file = calc.inspect('gguf', bytes, bytes.length);
  const checkpoint = { config: file.config, files: [file.file] };
  const add = (request) => ({ source: 'sweep: checkpoint', method: 'estimate', request });
  return [
    add({ checkpoint, context: 4096 }),
    add({ checkpoint, engine: 'llamacpp', gpu: 'rtx-4090', context: 4096 }),
    add({ checkpoint, mode: 'lora', seq: 1024 }),
  ];
}

function presetRequests(calc) {
  const catalog = { ...calc.presets(), schema: calc.schema() };
  return loadJson('data/presets.json').presets.map((preset) => {
    const { state } = parseQuery(`?preset=${encodeURIComponent(preset.id)}`, catalog);
    return { source: `data/presets.json: ${preset.id}`, method: 'estimate', request: estimateRequest(state, undefined, catalog) };
  });
}

function vectorRequests() {
  const out = [];
  for (const file of requestVectorFiles().sort()) {
    for (const c of loadJson(`tests/vectors/${file}`).cases) {
      out.push({ source: `tests/vectors/${file}: ${c.name}`, method: c.method, request: c.request, request_text: c.request_text });
    }
  }
  return out;
}

/** Every golden case, without its answer. */
export async function goldenCases() {
  const calc = await core();
  return [...vectorRequests(), ...presetRequests(calc), ...readmeRequests(), ...sweepRequests(), ...checkpointRequests(calc)];
}


async function main() {
  const check = process.argv.includes('--check');
  // Each case keeps the exact text it sends (a vector's own bytes where it
  // has them), so the native test sends the same bytes as the module.
  const cases = (await goldenCases()).map(({ source, method, request, request_text }) => ({
    source,
    method,
    request_text: request_text ?? JSON.stringify(request),
  }));
  for (const c of cases) c.answer = await rawCall(c.method, c.request_text);
  if (check) {
    const golden = loadJson(OUTPUT).cases;
    const differ = cases.filter((c, i) => golden[i]?.answer !== c.answer).map((c) => c.source);
    if (differ.length || golden.length !== cases.length) {
      console.error(`${differ.length} answers differ (of ${cases.length}; golden holds ${golden.length}):\n${differ.join('\n')}`);
      process.exit(1);
    }
    console.log(`${cases.length} answers identical`);
    return;
  }
  // One case a line, so a changed answer shows as one changed line.
  const about =
    'Every answer of the core, byte for byte, written by tools/golden-answers.mjs from the build of the commit that added or last changed this file; tests/js/golden-answers.test.mjs (wasm) and tests/cpp/test_golden.cpp (native) hold the core to it.';
  const text = `{\n"about": ${JSON.stringify(about)},\n"cases": [\n${cases.map((c) => JSON.stringify(c)).join(',\n')}\n]\n}\n`;
  mkdirSync(join(root, 'tests/golden'), { recursive: true });
  writeFileSync(join(root, OUTPUT), text);
  console.log(`${cases.length} answers written to ${OUTPUT} (${(text.length / 1024).toFixed(0)} KB)`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
