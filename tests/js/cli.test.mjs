// The CLI as people run it: readable output, JSON with the documented keys,
// and usage errors that name the flag and exit 2 (docs/cli.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './module.mjs';

const cli = join(root, 'build/native/vramcalc');
const run = (...args) => spawnSync(cli, args, { encoding: 'utf8' });

test('estimate prints the breakdown and the rounded total', () => {
  const r = run('estimate', '--model', 'guide-70b', '--weights', 'fp8', '--context', '8192', '--batch', '1');
  assert.equal(r.status, 0);
  assert.match(r.stdout, /Weights\s+70\.00/);
  assert.match(r.stdout, /KV cache\s+2\.68/);
  assert.match(r.stdout, /= 75 GB/);
});

test('--json carries the documented keys, unrounded', () => {
  const r = run('estimate', '--model', 'guide-70b', '--weights', 'fp8', '--json');
  assert.equal(r.status, 0);
  const out = JSON.parse(r.stdout);
  for (const key of ['params_total', 'params_active', 'weights_gb', 'kv_cache_gb', 'kv_bytes_per_token', 'overhead_gb', 'total_gb', 'assumptions']) {
    assert.ok(key in out, key);
  }
  assert.equal(out.total_gb, 74.68435456);
  const vllm = JSON.parse(run('estimate', '--model', 'llama-3.1-8b', '--engine', 'vllm', '--gpu', 'h100-sxm', '--json').stdout);
  for (const key of ['kv_budget_gb', 'kv_blocks', 'max_concurrency']) assert.ok(key in vllm, key);
  const ft = JSON.parse(run('estimate', '--model', 'guide-7b', '--mode', 'qlora', '--json').stdout);
  for (const key of ['gradients_gb', 'optimizer_gb', 'activations_gb', 'adapter_params', 'host_ram_gb']) assert.ok(key in ft, key);
});

test('bad flags and values: a message naming the flag, exit status 2', () => {
  const cases = [
    [['estimate', '--model', 'guide-7b', '--contxt', '5'], /unknown flag --contxt/],
    [['estimate', '--model', 'guide-7b', '--context', 'lots'], /--context expects a whole number/],
    [['estimate', '--model', 'guide-7b', '--context', '-5'], /--context: context must be between 1 and 100,000,000, not -5/],
    [['estimate', '--model', 'gpt-9'], /--model: unknown model 'gpt-9'/],
    [['estimate', '--model', 'guide-7b', '--weights'], /--weights needs a value/],
    [['estimate', '--model', 'guide-7b', '--mode', 'lora', '--lora-rank', '0'], /--lora-rank: lora_rank must be/],
    [['estimate', '--model', 'guide-7b', '--config', '/nonexistent.json'], /--config: cannot read/],
    [['teleport'], /unknown command 'teleport'/],
  ];
  for (const [args, message] of cases) {
    const r = run(...args);
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, message, args.join(' '));
  }
});

test('a config.json from disk, and a broken catalog named by entry and field', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vramcalc-'));
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ model_type: 'llama', hidden_size: 2048, num_hidden_layers: 16, num_attention_heads: 32, num_key_value_heads: 8, intermediate_size: 8192, vocab_size: 128256, tie_word_embeddings: true }));
  const ok = run('estimate', '--config', config, '--json');
  assert.equal(ok.status, 0);
  assert.equal(JSON.parse(ok.stdout).params_total, 1235814400);  // Llama 3.2 1B's shape
  const broken = join(dir, 'broken.json');
  writeFileSync(broken, '{"model_type": "llama", "hidden_size": 2048');
  assert.match(run('estimate', '--config', broken).stderr, /--config: .* is not valid JSON/);
  const catalog = join(dir, 'catalog.json');
  writeFileSync(catalog, JSON.stringify({ gpus: [{ id: 'ok', vram_gb: 24, bandwidth_gbps: 900 }, { id: 'l4', vram_gb: -24, bandwidth_gbps: 300 }] }));
  const r = run('grid', '--catalog', catalog);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /GPU 'l4': catalog\.gpus\[1\]\.vram_gb must be positive/);
});

test('grid, devices and fleet print their tables', () => {
  assert.match(run('grid').stdout, /70B \(guide shape\)\s+Inference BF16\s+145 GB\s+MI300X\s+\$1,590/);
  assert.match(run('devices').stdout, /H100 SXM 80GB\s+× 14/);
  assert.match(run('fleet').stdout, /MI300X\s+192\s+5,300\s+\$1,590\s+8\.28\s+3\.33\s+2\.21/);
});

test("flags and --help come from the core's schema; --lang picks the catalog", () => {
  const schema = JSON.parse(run('schema').stdout);
  const context = schema.requests.estimate.find((f) => f.name === 'context');
  const help = run('estimate', '--help');
  assert.equal(help.status, 0);
  // The help line carries the schema's default and range, not a copy of them.
  assert.match(help.stdout, new RegExp(`--context\\s+Tokens per sequence \\(default ${context.default.toLocaleString('en-US')}, ${context.min} to 100,000,000`));
  assert.match(help.stdout, /--no-checkpointing/);
  // The fleet sizes the checkpoint's own format by default, and says so.
  const weights = schema.requests.fleet.find((f) => f.name === 'weights');
  assert.equal(weights.default, 'native');
  assert.match(run('fleet', '--help').stdout, /--weights\s+.*default native/);
  assert.equal(run('estimate', '--model', 'guide-7b', '--lang', 'en').status, 0);
  const unknown = run('estimate', '--model', 'guide-7b', '--lang', 'xx');
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /--lang: no catalog for 'xx'/);
});

// Issue 11: --gpus N means N cards serving one model under the engine.
test('the serving plan: 70B FP8 at 32k x 20 users on 4x H200 under vLLM fits; on one it does not', () => {
  const args = ['estimate', '--model', 'llama-3.1-70b', '--weights', 'fp8', '--context', '32768', '--batch', '20', '--engine', 'vllm', '--gpu', 'h200-sxm'];
  const four = run(...args, '--gpus', '4');
  assert.equal(four.status, 0, four.stderr);
  assert.match(four.stdout, /Serving plan: 4× H200 SXM, tensor parallel 4/);
  assert.match(four.stdout, /20 requested: they fit/);
  assert.match(four.stdout, /: fits, spare [\d,.]+ GB/);
  assert.doesNotMatch(four.stdout, /spare -|DOES NOT FIT/);
  assert.match(four.stdout, /Decode ceiling/);
  const json = JSON.parse(run(...args, '--gpus', '4', '--json').stdout);
  assert.equal(json.serving.tensor_parallel, 4);
  assert.equal(json.engine.options.tensor_parallel_size, 4);
  assert.ok(Math.abs(json.fit.spare_gb - (json.fit.capacity_gb - 4 * json.serving.per_gpu_gb)) < 1e-6);

  const one = run(...args, '--gpus', '1');
  assert.equal(one.status, 0, one.stderr);
  assert.match(one.stdout, /20 requested: they do not fit/);
  assert.match(one.stdout, /Fewest H200 SXM that hold it: 4/);
  assert.doesNotMatch(one.stdout, /Decode ceiling/);

  const clash = run(...args, '--gpus', '8', '--tp', '4');
  assert.equal(clash.status, 2);
  assert.match(clash.stderr, /gpu_count 8 is not tensor_parallel_size x pipeline_parallel_size x data_parallel_size = 4 x 1 x 1 = 4/);
  // The error names the flag as the docs and --help do.
  assert.match(clash.stderr, /^vramcalc: --gpus: /);
});

// Issue 11: MoE expert parallel and attention data parallel under vLLM and SGLang.
test('DeepSeek V3 on 8x H200 under vLLM: expert parallel with DP attention holds 64 users at 32k; tensor parallel does not', () => {
  const args = ['estimate', '--model', 'deepseek-v3', '--context', '32768', '--batch', '64', '--engine', 'vllm', '--gpu', 'h200-sxm', '--gpus', '8'];
  const tp = JSON.parse(run(...args, '--json').stdout);
  assert.equal(tp.serving.moe_layout.id, 'tensor');
  assert.equal(tp.serving.fits, false);
  const dpArgs = [...args, '--engine-opt', 'expert_parallel=true', '--engine-opt', 'data_parallel_size=8'];
  const dp = JSON.parse(run(...dpArgs, '--json').stdout);
  assert.equal(dp.serving.moe_layout.id, 'expert_dp_attention');
  assert.equal(dp.serving.moe_layout.experts_per_gpu, 32);
  assert.equal(dp.serving.tensor_parallel, 1);
  assert.equal(dp.serving.data_parallel, 8);
  assert.equal(dp.serving.fits, true);
  assert.ok(dp.serving.max_users >= 64 && dp.serving.max_users > 4 * tp.serving.max_users, `${dp.serving.max_users} against ${tp.serving.max_users}`);
  const table = run(...dpArgs);
  assert.equal(table.status, 0, table.stderr);
  assert.match(table.stdout, /Serving plan: 8× H200 SXM, 8 data-parallel ranks of one GPU each/);
  assert.match(table.stdout, /Experts: up to 32 of the 256 experts whole on each GPU \(expert parallel 8\); attention and KV cache per rank \(8 ranks x tensor parallel 1\)/);
  assert.match(table.stdout, new RegExp(`${dp.serving.max_users} users at 32,768 tokens; 64 requested: they fit`));
  const emit = run(...dpArgs, '--emit');
  assert.equal(emit.status, 0, emit.stderr);
  assert.equal(emit.stdout.trim(), dp.launch.command);
  assert.match(emit.stdout, / --data-parallel-size 8 --enable-expert-parallel /);
  assert.doesNotMatch(emit.stdout, /--tensor-parallel-size/);
  // A dense model has no experts to place: a named error for the knob.
  const dense = run('estimate', '--model', 'llama-3.1-70b', '--engine', 'vllm', '--gpu', 'h200-sxm', '--gpus', '4', '--engine-opt', 'expert_parallel=true');
  assert.equal(dense.status, 2);
  assert.match(dense.stderr, /--engine-opt: vLLM spreads experts .* this model is dense/);
});

test('llama.cpp over four cards splits the layers: one card\'s bandwidth, not the sum', () => {
  const r = JSON.parse(run('estimate', '--model', 'llama-3.1-70b', '--weights', 'q4_k_m', '--engine', 'llamacpp', '--gpu', 'rtx-4090', '--gpus', '4', '--json').stdout);
  assert.equal(r.serving.split, 'layer');
  assert.equal(r.decode.gpus, 1);
  assert.equal(r.decode.bandwidth_gbps, r.gpu.bandwidth_gbps);
});

test('--emit prints only the command that runs the plan; the table shows it after the plan', () => {
  const args = ['estimate', '--model', 'llama-3.1-70b', '--weights', 'fp8', '--context', '32768', '--batch', '20', '--engine', 'vllm', '--gpu', 'h200-sxm', '--gpus', '4'];
  const r = run(...args, '--emit');
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 1);
  const command = lines[0];
  assert.match(command, /^vllm serve \S+ /);
  // --max-num-seqs: the max_num_seqs the KV budget's profile used (1024 on an H200), not the 20 users.
  const json = JSON.parse(run(...args, '--json').stdout);
  const seqs = json.terms.find((t) => t.id === 'activations').inputs.max_num_seqs;
  assert.equal(seqs, 1024);
  for (const piece of ['--tensor-parallel-size 4', '--max-model-len 32768', `--max-num-seqs ${seqs}`, '--quantization fp8']) {
    assert.ok(command.includes(` ${piece}`), piece);
  }
  assert.doesNotMatch(command, /--pipeline-parallel-size/);
  // The same command as the JSON's launch, and after the serving plan in the table.
  assert.equal(json.launch.command, command);
  const table = run(...args).stdout;
  assert.ok(table.indexOf(command) > table.indexOf('Serving plan'), table);
  // The conventions have no command: a usage error.
  const none = run('estimate', '--model', 'llama-3.1-8b', '--engine', 'guide', '--emit');
  assert.equal(none.status, 2);
  assert.match(none.stderr, /--emit needs an engine/);
});

test('--engine transformers: the prefill peak term by term, the same as the wasm core, knobs by --engine-opt', async () => {
  const { core } = await import('./module.mjs');
  const { call } = await core();
  const args = ['estimate', '--model', 'gemma-3-1b', '--context', '32768', '--engine', 'transformers'];
  const r = run(...args, '--json');
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  const wasm = call('estimate', { model: 'gemma-3-1b', context: 32768, engine: 'transformers' });
  assert.deepEqual(out.terms.map((t) => t.id), ['weights', 'kv_cache', 'prefill_activations', 'attention_mask', 'blas_workspace', 'non_torch']);
  assert.deepEqual(out.terms.map((t) => t.gb), wasm.terms.map((t) => t.gb));
  assert.equal(out.total_gb, wasm.total_gb);
  // transformers keeps every token for Gemma 3's sliding layers: more than the guide's windowed cache.
  const guide = JSON.parse(run('estimate', '--model', 'gemma-3-1b', '--context', '32768', '--json').stdout);
  assert.ok(out.kv_cache_gb > 4 * guide.kv_cache_gb);
  // The allocator's peak alone: no memory outside PyTorch.
  const peak = JSON.parse(run(...args, '--engine-opt', 'non_torch_gib=0', '--json').stdout);
  assert.equal(peak.terms.find((t) => t.id === 'non_torch').gb, 0);
  const table = run(...args);
  assert.match(table.stdout, /Prefill activations \(widest layer\)/);
  assert.match(table.stdout, /Sliding-window attention mask/);
  // Over two cards transformers' device_map splits the layers, as llama.cpp does.
  const two = JSON.parse(run('estimate', '--model', 'llama-3.1-8b', '--engine', 'transformers', '--gpu', 'h100-sxm', '--gpus', '2', '--json').stdout);
  assert.equal(two.serving.split, 'device_map');
  assert.equal(two.decode.gpus, 1);
  const bad = run(...args, '--engine-opt', 'blas_workspace_mib=-1');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /blas_workspace_mib/);
});

test('speed: the expected decode per user, the first-token time and the floor, from the same core as --json', () => {
  const args = ['estimate', '--model', 'llama-3.1-70b', '--weights', 'fp8', '--context', '32768', '--batch', '20', '--engine', 'vllm', '--gpu', 'h200-sxm', '--gpus', '4', '--min-tokens-per-s', '40'];
  const r = JSON.parse(run(...args, '--json').stdout);
  assert.ok(r.decode.expected_tokens_per_s < r.decode.ceiling_tokens_per_s);
  assert.ok(r.decode.step_ms.allreduce > 0);
  assert.equal(r.decode.min_tokens_per_s, 40);
  assert.equal(r.decode.meets_floor, r.decode.expected_tokens_per_s >= 40);
  for (const f of r.fits) assert.ok(f.decode_expected_tokens_per_s >= 40, f.gpu);
  assert.ok(r.below_floor.length > 0);
  for (const f of r.below_floor) assert.equal(f.reason.id, 'floor.below');
  const table = run(...args);
  assert.equal(table.status, 0, table.stderr);
  assert.match(table.stdout, new RegExp(`Expected decode: ${r.decode.expected_tokens_per_s.toFixed(1)} tok/s per user`));
  assert.match(table.stdout, new RegExp(`Time to first token for 32,768 tokens: ${r.prefill.ttft_s.toFixed(2)} s`));
  assert.match(table.stdout, /Below the floor of 40\.0 tok\/s per user:/);
  const bad = run('estimate', '--model', 'llama-3.1-8b', '--min-tokens-per-s', '-1');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /min_tokens_per_s/);
});

test('speed: llama.cpp over two cards is no faster than over one, tensor parallel over four is less than four times one', () => {
  const est = (...a) => JSON.parse(run('estimate', '--model', 'llama-3.1-8b', '--json', ...a).stdout);
  const one = est('--engine', 'llamacpp', '--gpu', 'rtx-4090');
  const two = est('--engine', 'llamacpp', '--gpu', 'rtx-4090', '--gpus', '2');
  assert.ok(two.decode.expected_tokens_per_s <= one.decode.expected_tokens_per_s);
  const tp1 = est('--engine', 'vllm', '--gpu', 'h100-sxm');
  const tp4 = est('--engine', 'vllm', '--gpu', 'h100-sxm', '--gpus', '4');
  assert.ok(tp4.decode.expected_tokens_per_s < 4 * tp1.decode.expected_tokens_per_s);
  assert.ok(tp4.decode.expected_tokens_per_s > tp1.decode.expected_tokens_per_s);
});

test('llama.cpp: a card too small at every count is listed below the floor with its offload, as the JSON has it', () => {
  const args = ['estimate', '--model', 'deepseek-v3', '--weights', 'q4_k_m', '--engine', 'llamacpp', '--gpu', 'h100-sxm', '--context', '8192'];
  const answer = JSON.parse(run(...args, '--json').stdout);
  const offloaded = answer.below_floor.filter((row) => row.reason.id === 'floor.offload');
  assert.ok(offloaded.length > 0);
  for (const row of offloaded) {
    assert.ok(row.host_gb > 0 && row.decode_expected_tokens_per_s < row.reason.params.floor);
    // Never a card that holds it whole.
    assert.ok(!answer.fits.some((fit) => fit.gpu === row.gpu));
  }
  const r = run(...args);
  const first = offloaded[0];
  assert.match(r.stdout, new RegExp(`${first.count}× ${first.name}: only with partial offload \\(${first.host_gb.toFixed(1)} GB in host RAM\\); ${first.decode_expected_tokens_per_s.toFixed(1)} tokens/s per user expected`));
});

test('llama.cpp partial offload: the headline, the host RAM and -ngl / --n-cpu-moe as the JSON has them', () => {
  const args = ['estimate', '--model', 'llama-3.1-70b', '--weights', 'q4_k_m', '--engine', 'llamacpp', '--gpu', 'rtx-4090', '--context', '8192'];
  const o = JSON.parse(run(...args, '--json').stdout).serving.offload;
  assert.equal(o.kind, 'layers');
  const r = run(...args);
  assert.equal(r.status, 0);
  assert.match(r.stdout, new RegExp(`Fits with partial offload: ${o.gpu_layers} of 80 layers on the GPU, ${Math.round(o.host_gb)} GB in host RAM, about ${o.decode.expected_tokens_per_s.toFixed(1)} tokens/s per user`));
  assert.match(r.stdout, new RegExp(`host RAM ${o.host_gb.toFixed(2)} GB`));
  assert.match(r.stdout, new RegExp(`llama-server -m MODEL.gguf -c 8192 -np 1 -ngl ${o.ngl} -fa off`));
  assert.match(r.stdout, /num_gpu/);
  // The card alone holds no KV cache: said as a shortfall, and nothing fits at this format.
  const kv = JSON.parse(run(...args, '--json').stdout).serving.kv_budget_gb;
  assert.ok(kv < 0);
  assert.match(r.stdout, new RegExp(`No room for the KV cache: the weights and buffers exceed each GPU by ${(-kv).toFixed(2)} GB`));
  assert.doesNotMatch(r.stdout, /Room for the KV cache -/);
  assert.match(r.stdout, /Fits at most: nothing in this weight format; best weight format \w+/);
  assert.doesNotMatch(r.stdout, /context 0, batch 0/);
  // A slower host reads its share more slowly.
  const slow = JSON.parse(run(...args, '--engine-opt', 'host_bandwidth_gbps=40', '--json').stdout).serving.offload;
  assert.ok(slow.decode.expected_tokens_per_s < o.decode.expected_tokens_per_s);
  const bad = run(...args, '--engine-opt', 'host_bandwidth_gbps=0');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /host_bandwidth_gbps/);
  const moe = run('estimate', '--model', 'gpt-oss-120b', '--weights', 'q4_k_m', '--engine', 'llamacpp', '--gpu', 'rtx-4090', '--context', '16384');
  assert.match(moe.stdout, /Fits with partial offload: the experts of \d+ of 36 layers in host RAM/);
  assert.match(moe.stdout, /-ngl 37 --n-cpu-moe \d+ /);
});

test('--gpu-layers and --n-cpu-moe: the placement as typed, its VRAM, host RAM and speed, and what fits when it does not', () => {
  const args = ['estimate', '--model', 'llama-3.1-70b', '--weights', 'q4_k_m', '--engine', 'llamacpp', '--gpu', 'rtx-4090', '--context', '8192'];
  const json = (...more) => JSON.parse(run(...args, ...more, '--json').stdout);
  const auto = json().serving.offload;
  // "auto" is today's answer, by flag or by --engine-opt.
  assert.deepEqual(json('--gpu-layers', 'auto').serving, json().serving);
  assert.deepEqual(json('--engine-opt', 'n_cpu_moe=auto').serving, json().serving);
  const o = json('--gpu-layers', '30').serving.offload;
  assert.equal(o.placement, 'user');
  assert.equal(o.ngl, 30);
  assert.ok(o.per_gpu_gb < auto.per_gpu_gb && o.host_gb > auto.host_gb);
  assert.deepEqual(json('--engine-opt', 'gpu_layers=30').serving.offload, o);
  const r = run(...args, '--gpu-layers', '30');
  assert.equal(r.status, 0);
  assert.match(r.stdout, new RegExp(`Fits with partial offload: ${o.gpu_layers} of 80 layers on the GPU, ${Math.round(o.host_gb)} GB in host RAM, about ${o.decode.expected_tokens_per_s.toFixed(1)} tokens/s per user`));
  assert.match(r.stdout, new RegExp(`${o.per_gpu_gb.toFixed(2)} GB per GPU; host RAM ${o.host_gb.toFixed(2)} GB`));
  assert.match(r.stdout, /llama-server -m MODEL.gguf -c 8192 -np 1 -ngl 30 -fa off/);
  // Too many layers for the card: said, with the plan's own pick, no speed.
  const over = run(...args, '--gpu-layers', '60');
  assert.equal(over.status, 0);
  assert.match(over.stdout, new RegExp(`Does not fit: -ngl 60 needs \\d+ GB per GPU, more than the 25 GB of the RTX 4090; -ngl ${auto.ngl} would fit\\.`));
  assert.match(over.stdout, /-ngl 60 -fa off/);
  assert.equal(json('--gpu-layers', '60').serving.offload.decode, null);
  // An MoE model's experts by --n-cpu-moe; the number typed is the number carried.
  const moe = run('estimate', '--model', 'mixtral-8x7b', '--weights', 'q4_k_m', '--engine', 'llamacpp', '--gpu', 'rtx-4090', '--n-cpu-moe', '20');
  assert.match(moe.stdout, /Fits with partial offload: the experts of 20 of 32 layers in host RAM/);
  assert.match(moe.stdout, /-ngl 33 --n-cpu-moe 20 /);
  // Named errors, exit 2; the help lists both flags from the schema.
  for (const [flag, value, field] of [['--gpu-layers', '-1', 'gpu_layers'], ['--n-cpu-moe', '100001', 'n_cpu_moe'], ['--gpu-layers', 'all', '--gpu-layers']]) {
    const bad = run(...args, flag, value);
    assert.equal(bad.status, 2, `${flag} ${value}`);
    assert.match(bad.stderr, new RegExp(field));
  }
  const help = run('estimate', '--help').stdout;
  assert.match(help, /--gpu-layers\s+As llama\.cpp counts -ngl.*default auto, 0 to 100,000/);
  assert.match(help, /--n-cpu-moe\s+MoE only/);
});

test('llama.cpp: a partial offload that meets the floor is offered among the cheapest cards, with its flags and host RAM', () => {
  const args = ['estimate', '--model', 'gpt-oss-120b', '--engine', 'llamacpp', '--context', '8192'];
  const answer = JSON.parse(run(...args, '--json').stdout);
  const offered = answer.fits.filter((row) => row.offload);
  assert.ok(offered.length > 0);
  // Cheaper than every card that holds it whole, and each meets the floor.
  const whole = answer.fits.filter((row) => !row.offload).map((row) => row.monthly_usd);
  assert.ok(offered[0].monthly_usd < Math.min(...whole));
  for (const row of offered) {
    assert.ok(row.host_gb > 0 && row.decode_expected_tokens_per_s >= 10 && row.ttft_s === null);
    assert.ok(row.offload.n_cpu_moe > 0, 'an MoE model keeps experts, not layers, on the host');
  }
  const r = run(...args);
  assert.equal(r.status, 0);
  const first = offered[0];
  assert.match(r.stdout, new RegExp(`${first.count}× ${first.name}: \\$${first.monthly_usd} a month, ≈ ${first.decode_expected_tokens_per_s.toFixed(1)} tok/s per user; partial offload, ${first.host_gb.toFixed(1)} GB in host RAM \\(-ngl ${first.offload.ngl} --n-cpu-moe ${first.offload.n_cpu_moe}\\)`));
});

test('under partial offload the serving plan says its users are those of every layer on the GPU, and a shortfall is no negative spare', () => {
  const out = run('estimate', '--model', 'llama-3.1-70b', '--weights', 'bf16', '--engine', 'llamacpp', '--gpu', 'h200-sxm', '--context', '32768');
  assert.equal(out.status, 0, out.stderr);
  assert.match(out.stdout, /1 requested: not with every layer on the GPU; with the partial offload below they do/);
  assert.match(out.stdout, /These figures put every layer on the GPU/);
  assert.match(out.stdout, /Fits with partial offload: \d+ of 80 layers/);
  assert.match(out.stdout, /does not fit, \d+\.\d\d GB short/);
  assert.doesNotMatch(out.stdout, /spare -/);
});

test('--images sizes a vision model\'s images and names a text model\'s refusal', () => {
  const vllm = run('estimate', '--model', 'gemma-3-27b', '--engine', 'vllm', '--gpu', 'h100-sxm', '--images', '2', '--json');
  assert.equal(vllm.status, 0, vllm.stderr);
  const out = JSON.parse(vllm.stdout);
  for (const id of ['encoder_cache', 'vision_peak']) assert.ok(out.terms.some((t) => t.id === id), id);
  assert.match(out.launch.command, /--limit-mm-per-prompt '\{"image":2\}'/);
  const llama = run('estimate', '--model', 'gemma-3-27b', '--engine', 'llamacpp', '--weights', 'q4_k_m', '--images', '1');
  assert.equal(llama.status, 0, llama.stderr);
  assert.match(llama.stdout, /Vision tower and projector \(mmproj\)/);
  assert.match(llama.stdout, /--mmproj mmproj\.gguf/);
  const text = run('estimate', '--model', 'llama-3.1-8b', '--images', '1');
  assert.equal(text.status, 2);
  assert.match(text.stderr, /--images: .*no vision tower/);
  assert.match(run('estimate', '--model', 'gemma-3-27b', '--images', '65').stderr, /--images: images must be between 0 and 64/);
});

test('--image-size sizes a Qwen3.5 config\'s images by smart_resize and names a fixed tower\'s refusal', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vramcalc-'));
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({
    model_type: 'qwen3_5',
    text_config: { model_type: 'qwen3_5_text', hidden_size: 1024, num_hidden_layers: 8, num_attention_heads: 8, num_key_value_heads: 2, head_dim: 128, intermediate_size: 3072, vocab_size: 32000 },
    vision_config: { depth: 2, hidden_size: 256, intermediate_size: 1024, num_heads: 4, patch_size: 16, spatial_merge_size: 2 },
  }));
  // 1440 a side: 45 x 45 = 2,025 tokens; vLLM is told the image's 2,073,600 pixels.
  const vllm = run('estimate', '--config', config, '--engine', 'vllm', '--gpu', 'h100-sxm', '--images', '1', '--image-size', '1440', '--json');
  assert.equal(vllm.status, 0, vllm.stderr);
  const out = JSON.parse(vllm.stdout);
  const resized = out.assumptions.find((a) => a.id === 'assumption.image_resized');
  assert.deepEqual(resized.params, { size: 1440, height: 1440, width: 1440, tokens: 2025 });
  assert.match(out.launch.command, /--mm-processor-kwargs '\{"max_pixels":2073600,"min_pixels":65536\}'/);
  const fixed = run('estimate', '--model', 'gemma-3-27b', '--images', '1', '--image-size', '512');
  assert.equal(fixed.status, 2);
  assert.match(fixed.stderr, /--image-size: .*takes any resolution/);
  assert.match(run('estimate', '--config', config, '--images', '1', '--image-size', '5000').stderr, /--image-size: image_size must be between 32 and 4,096, not 5,000/);
});

test('--engine-opt mxfp4_backend=marlin: a knob of words, Marlin\'s layout and VLLM_MXFP4_USE_MARLIN=1; a backend the card cannot run is refused', () => {
  const args = ['estimate', '--model', 'gpt-oss-120b', '--engine', 'vllm', '--gpu', 'h100-sxm'];
  const json = (...more) => JSON.parse(run(...args, ...more, '--json').stdout);
  const layout = (answer) => answer.terms.find((t) => t.id === 'mxfp4_layout');
  const marlin = json('--engine-opt', 'mxfp4_backend=marlin');
  assert.equal(layout(marlin).inputs.backend, 'marlin');
  assert.ok(layout(marlin).gb > layout(json()).gb);
  assert.match(marlin.launch.command, /^VLLM_MXFP4_USE_MARLIN=1 vllm serve /);
  assert.doesNotMatch(json().launch.command, /VLLM_MXFP4_USE_MARLIN/);
  for (const lang of ['en', 'fa']) {
    const r = run(...args, '--engine-opt', 'mxfp4_backend=flashinfer', '--lang', lang);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, lang === 'en' ? /cannot run its FlashInfer MXFP4 MoE backend/ : /بک‌اند FlashInfer/);
  }
  // A word no knob takes is the core's error, not a number the CLI could not read.
  const bad = run(...args, '--engine-opt', 'mxfp4_backend=cutlass');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /mxfp4_backend/);
});
