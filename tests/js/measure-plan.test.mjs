// tools/measure/measure.py --plan: the runs the GPU script will make and the
// cases it will write, checked without a GPU. Every planned request goes
// through the native CLI the way tools/validation.mjs turns a case into a
// calculator call (caseRequest, then the prediction each measurement names),
// so a case the script writes is one `npm run validate` can read.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { core, loadJson, root } from './module.mjs';
import { caseRequest, loadCases, predicted } from '../../tools/validation.mjs';

const cli = join(root, 'build/native/vramcalc');
const script = join(root, 'tools/measure/measure.py');
const work = mkdtempSync(join(tmpdir(), 'measure-plan-'));
after(() => rmSync(work, { recursive: true, force: true }));

// Stand-ins for the GPU stack that fail on import: --plan must not need them,
// on a machine that has them or not.
const blockers = join(work, 'blockers');
for (const name of ['torch', 'transformers', 'peft']) {
  mkdirSync(join(blockers, name), { recursive: true });
  writeFileSync(join(blockers, name, '__init__.py'), `raise ImportError("measure.py --plan imported ${name}")\n`);
}

function python(...args) {
  return spawnSync('python3', [script, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: blockers, PYTHONDONTWRITEBYTECODE: '1' },
  });
}

function plan(...args) {
  const r = python('--plan', ...args);
  assert.equal(r.status, 0, `measure.py --plan ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const schema = JSON.parse(spawnSync(cli, ['schema'], { encoding: 'utf8' }).stdout);
const fieldType = new Map(schema.requests.estimate.map((f) => [f.name, f.type]));

/** CLI flags for a request, as docs/cli.md defines them from the schema. */
function flags(request) {
  const args = [];
  for (const [key, value] of Object.entries(request)) {
    const flag = key === 'gpu_count' ? '--gpus' : `--${key.replace(/_/g, '-')}`;
    const type = fieldType.get(key);
    if (key === 'engine_options') {
      for (const [name, option] of Object.entries(value)) args.push('--engine-opt', `${name}=${option}`);
    } else if (type === 'bool') {
      args.push(value ? flag : `--no-${key.replace(/_/g, '-')}`);
    } else if (type === 'list') {
      args.push(flag, value.join(','));
    } else if (type === 'object') {
      const file = join(work, `${key}-${args.length}-${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(file, JSON.stringify(value));
      args.push(flag, file);
    } else {
      // Unknown keys go through as flags too: the CLI rejects them.
      args.push(flag, String(value));
    }
  }
  return args;
}

/** The calculator's answer to a request, or the reason it refused. */
function estimate(request) {
  const r = spawnSync(cli, ['estimate', '--json', ...flags(request)], { encoding: 'utf8' });
  if (r.status !== 0) return { error: r.stderr.trim() || `exit status ${r.status}` };
  return { result: JSON.parse(r.stdout) };
}

const planned = plan();
const cases = planned.runs.flatMap((r) => r.cases);
const finetune = cases.filter((c) => c.category.startsWith('finetune'));
const presets = new Map(loadJson('data/models.json').models.map((m) => [m.id, m]));

/** The config a case's model is built from: its preset's, or the one the case carries. */
function configOf(c) {
  const request = caseRequest(root, c);
  return request.config ?? presets.get(request.model)?.config ?? {};
}

test('--plan needs neither torch nor transformers and lists every run with its cases', () => {
  assert.ok(existsSync(cli), `build/native/vramcalc is missing: build first`);
  assert.ok(planned.runs.length >= 20, `${planned.runs.length} runs`);
  for (const run of planned.runs) {
    assert.ok(run.name && run.kind && run.estimate_s > 0, JSON.stringify(run).slice(0, 200));
    assert.ok(run.cases.length > 0, `${run.name}: no cases`);
  }
  for (const c of cases) {
    assert.ok(['inference', 'finetune-allocated', 'finetune-device'].includes(c.category), `${c.id}: ${c.category}`);
    assert.ok(c.id.startsWith('measured-'), c.id);
    assert.ok(c.model && c.settings && c.request && c.notes, `${c.id}: a field is missing`);
    for (const m of c.measurements) {
      assert.ok(m.quantity && m.predict && m.unit === 'GiB', `${c.id}: ${JSON.stringify(m)}`);
      assert.equal(m.value, undefined, `${c.id}: a plan has no measured values`);
    }
  }
});

test('every planned request is accepted, and every prediction its case names is in the answer', async () => {
  // The validation run uses the wasm module: an unbuilt module fails here
  // rather than leaving native and wasm unchecked against each other.
  assert.ok(existsSync(join(root, 'build/wasm/module/vram.js')), 'build/wasm/module is missing: build first');
  const wasm = (await core()).call;
  const refused = [];
  for (const c of cases) {
    const request = caseRequest(root, c);
    const { result, error } = estimate(request);
    if (error) {
      refused.push(`${c.id}: ${error}`);
      continue;
    }
    for (const m of c.measurements) {
      const p = predicted(result, m);
      assert.ok(Number.isFinite(p) && p > 0, `${c.id} ${m.quantity}: ${m.predict} is ${p}`);
    }
    assert.deepStrictEqual(wasm('estimate', request), result, c.id);
  }
  assert.deepEqual(refused, []);
});

test('the acceptance check fails on requests the calculator refuses', () => {
  const c = finetune[0];
  const request = caseRequest(root, c);
  assert.ok(!estimate(request).error, 'the planned request itself');
  // A key of the other mode, a value outside the choices, an unknown key.
  assert.match(estimate({ ...request, kv: 'bf16' }).error, /kv/);
  assert.match(estimate({ ...request, optimizer: 'lion' }).error, /optimizer/);
  assert.match(estimate({ ...request, loras: 2 }).error, /loras/);
});

test('-allocated and -device cases come in pairs per fine-tuning run, as the wider run wrote them', () => {
  for (const run of planned.runs.filter((r) => r.kind === 'finetune')) {
    const [a, d] = run.cases;
    assert.equal(run.cases.length, 2, run.name);
    assert.equal(a.id, `measured-${run.name}-allocated`);
    assert.equal(d.id, `measured-${run.name}-device`);
    assert.equal(a.category, 'finetune-allocated');
    assert.equal(d.category, 'finetune-device');
    assert.equal(a.request.overhead_gb, 0, `${a.id}: the allocator's peak has no CUDA context`);
    assert.ok(!('overhead_gb' in d.request), `${d.id}: the device's use is compared with the whole answer`);
    const { overhead_gb, ...rest } = a.request;
    assert.deepEqual(rest, d.request, `${run.name}: one run, one setting`);
    assert.deepEqual(a.measurements.map((m) => [m.quantity, m.predict]), [['peak_allocated_gib', 'allocator_peak_gb']]);
    assert.deepEqual(d.measurements.map((m) => [m.quantity, m.predict]), [['device_used_gib', 'total_gb']]);
    // The settings say what ran; the request says the same to the calculator.
    assert.equal(a.request.flash_attention, a.settings.attn === 'sdpa', a.id);
    assert.equal(a.request.checkpointing, a.settings.checkpointing, a.id);
    assert.equal(a.request.seq, a.settings.seq, a.id);
    assert.equal(a.request.micro_batch, a.settings.micro_batch, a.id);
    assert.ok(a.settings.steps >= 2, `${a.id}: the steady state needs steps after the first`);
  }
});

/**
 * Planned cases whose id is taken by an existing case they are not meant to
 * replace. Intended: re-measuring a case this script wrote, of the same
 * category and setting; how it is measured may change (engine,
 * engine_options, overhead_gb), the setting may not.
 */
function clashes(planCases, existingCases) {
  const existing = new Map(existingCases.map((c) => [c.id, c]));
  const how = new Set(['engine', 'engine_options', 'overhead_gb', 'name']);
  const out = [];
  for (const c of planCases) {
    const old = existing.get(c.id);
    if (!old) continue;
    const ours = old.source?.kind === 'measurement' && old.source?.ref?.startsWith('tools/measure/measure.py');
    const before = caseRequest(root, old);
    const now = caseRequest(root, c);
    const differ = Object.keys(now).filter((k) => !how.has(k) && k in before && JSON.stringify(before[k]) !== JSON.stringify(now[k]));
    if (!ours || old.category !== c.category || differ.length) {
      out.push(`${c.id} (${old.source?.ref}${differ.length ? `; differs in ${differ.join(', ')}` : ''})`);
    }
  }
  return out;
}

test('case ids are unique and meet existing cases only where measure.py re-measures its own', () => {
  const ids = cases.map((c) => c.id);
  const dupes = ids.filter((id, i) => ids.indexOf(id) !== i);
  assert.deepEqual(dupes, [], 'a case id planned twice');
  const existing = loadCases(root);
  assert.deepEqual(clashes(cases, existing), []);
  // The check catches what it is for: an id of the wider run's, and one of
  // measure.py's own ids given to another setting.
  const kv = cases.find((c) => c.id === 'measured-llama-3.2-1b-kv-4096x1');
  const [a] = finetune;
  const taken = existing.find((c) => c.id.startsWith('h200-') && c.category === a.category);
  assert.equal(clashes([{ ...a, id: taken.id }], existing).length, 1);
  if (existing.some((c) => c.id === kv.id)) {
    assert.equal(clashes([{ ...kv, request: { ...kv.request, context: 8192 } }], existing).length, 1);
  }
});

test('the plan covers the settings issue 14 asks for', () => {
  const req = (c) => caseRequest(root, c);
  const has = (what, pred) => assert.ok(finetune.some((c) => pred(req(c), c)), `no fine-tuning run with ${what}`);
  has('gradient checkpointing off', (r) => r.checkpointing === false);
  has('gradient checkpointing on', (r) => r.checkpointing === true);
  has('micro batch > 1', (r) => r.micro_batch > 1);
  has('eager attention', (r, c) => r.flash_attention === false && c.settings.attn === 'eager');
  has('SDPA attention', (r, c) => r.flash_attention === true && c.settings.attn === 'sdpa');
  has('AdamW', (r) => ['adamw', 'adamw-fused'].includes(r.optimizer));
  has('SGD without momentum', (r) => r.optimizer === 'sgd' && !(r.momentum > 0));
  has('SGD with momentum', (r) => r.optimizer === 'sgd' && r.momentum > 0);
  has('Adafactor', (r) => r.optimizer === 'adafactor');
  has('a sequence of 8192 tokens or more', (r) => r.seq >= 8192);
  has('a full fine-tune in pure BF16', (r) => r.mode === 'full' && r.precision === 'bf16');
  has('a full fine-tune in mixed precision', (r) => r.mode === 'full' && r.precision === 'mixed');
  has('LoRA', (r) => r.mode === 'lora');
  // A sliding-window model: some layers attend within a window (Gemma 3's pattern).
  has('a sliding-window model', (r, c) => {
    const config = configOf(c);
    return config.sliding_window > 0 && (config.sliding_window_pattern > 1 || (config.layer_types ?? []).includes('sliding_attention'));
  });
  // A hybrid model: attention in some layers, Mamba in the others (Bamba).
  has('a hybrid model', (r, c) => {
    const config = configOf(c);
    return (config.attn_layer_indices ?? []).length > 0 && config.mamba_n_heads > 0;
  });
  const lora = finetune.map(req).filter((r) => r.mode === 'lora');
  assert.ok(new Set(lora.map((r) => r.lora_rank)).size >= 3, 'LoRA at fewer than three ranks');
  assert.ok(new Set(lora.map((r) => r.lora_targets.join(','))).size >= 3, 'LoRA with fewer than three target sets');
  for (const suffix of ['-allocated', '-device']) {
    assert.ok(finetune.some((c) => c.id.endsWith(suffix)), `no ${suffix} case`);
  }
  const inference = cases.filter((c) => c.category === 'inference');
  assert.ok(inference.some((c) => c.measurements.some((m) => m.predict === 'term:weights')), 'no weights case');
  assert.ok(inference.some((c) => c.measurements.some((m) => m.predict === 'kv_cache_gb')), 'no KV cache case');
});

test('the plan fits the default budget by its own estimates, and a smaller budget cuts its tail', () => {
  assert.equal(planned.budget_s, 480);
  assert.ok(planned.estimated_s <= planned.budget_s, `estimated ${planned.estimated_s} s over ${planned.budget_s} s`);
  assert.ok(planned.runs.every((r) => r.within_budget));
  const small = plan('--budget-s', '120');
  const inside = small.runs.map((r) => r.within_budget);
  const cut = inside.indexOf(false);
  assert.ok(cut > 0, 'a 120 s budget should keep some runs and drop others');
  assert.ok(inside.slice(cut).every((x) => !x), 'runs past the budget are a tail: none starts after one is skipped');
  assert.ok(small.runs[cut - 1].expected_end_s <= 120 && small.runs[cut].expected_end_s > 120);
  assert.deepEqual(small.runs.map((r) => r.name), planned.runs.map((r) => r.name), 'the budget changes no order');
});

test('the existing options still shape the plan', () => {
  const p = plan('--train-seq', '1024', '--contexts', '2048', '8192', '--batches', '2', '--steps', '4');
  const ids = p.runs.flatMap((r) => r.cases.map((c) => c.id));
  assert.ok(ids.includes('measured-llama-3.2-1b-kv-2048x2') && ids.includes('measured-llama-3.2-1b-kv-8192x2'));
  assert.ok(!ids.some((id) => /-kv-\d+x[14]$/.test(id)), 'batches 1 and 4 are gone');
  assert.ok(ids.includes('measured-full-1b-bf16-1k-mb1-nockpt-allocated'), '--train-seq sets the base sequence');
  assert.ok(ids.includes('measured-lora-8b-r16-qkvo-32k-mb1-ckpt-allocated'), 'the long runs keep their own');
  assert.ok(p.runs.every((r) => r.kind !== 'finetune' || r.cases[0].settings.steps === 4));
  const only = plan('--only', 'sgd');
  assert.ok(only.runs.length >= 2 && only.runs.every((r) => r.name.includes('sgd')), only.runs.map((r) => r.name).join(', '));
  const help = python('--help');
  assert.equal(help.status, 0);
  for (const option of ['--plan', '--dry-run', '--budget-s', '--contexts', '--batches', '--train-seq', '--steps', '--only']) {
    assert.ok(help.stdout.includes(option), `--help does not list ${option}`);
  }
  assert.notEqual(python('--steps', '1', '--plan').status, 0, '--steps 1 leaves no steady state');
  // Without torch, measuring stops with a message, not a traceback.
  const r = python('--dry-run');
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /needs PyTorch/);
  assert.doesNotMatch(r.stderr, /Traceback/);
});
