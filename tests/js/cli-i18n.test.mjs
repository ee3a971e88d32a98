// The CLI in Arabic and Persian (--lang ar|fa): the tables, lines, formulas,
// assumptions, warnings and --help speak the language; no Latin word outside
// the glossary the page's test uses (tests/js/latin.mjs), no Latin digit in
// Persian outside names. What the reader types stays Latin: the commands,
// the flags and the values the schema lists (ids such as fp8 or
// llama-3.1-8b). Citations (a source quoted as written, «…» around
// data/engines.json's and data/gpus.json's sources) are English by rule
// (docs/i18n.md, "Citations").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtures } from './gguf-writer.mjs';
import { foreign } from './latin.mjs';
import { loadJson, root } from './module.mjs';

const cli = join(root, 'build/native/vramcalc');
const run = (...args) => spawnSync(cli, args, { encoding: 'utf8' });

// The CLI for Node (the package's `vram-calculator`, vram_cli_node, built by
// scripts/build.sh): its bin as shipped, beside the wasm build of the same
// sources, as tools/release.mjs lays them out.
const dir = mkdtempSync(join(tmpdir(), 'vramcalc-i18n-'));
mkdirSync(join(dir, 'bin'));
copyFileSync(join(root, 'pkg/bin/vram-calculator.js'), join(dir, 'bin/vram-calculator.js'));
symlinkSync(join(root, 'build/wasm/cli'), join(dir, 'cli'));
const runNode = (...args) => spawnSync(process.execPath, [join(dir, 'bin/vram-calculator.js'), ...args], { encoding: 'utf8' });

// Files for the usage errors that read one.
const brokenJson = join(dir, 'broken.json');
writeFileSync(brokenJson, '{"hidden_size": ');
const deepJson = join(dir, 'deep.json');
writeFileSync(deepJson, `${'['.repeat(200)}${']'.repeat(200)}`);
const missing = join(dir, 'missing.json');
// A checkpoint for inspect: the type mix and the components, worded.
const ggufFile = join(dir, 'model.gguf');
writeFileSync(ggufFile, fixtures['deepseek2-mla']().build());

const schema = JSON.parse(run('schema').stdout);
// Values a reader types: every choice and default in the schema, the engine knobs.
const typed = new Set();
for (const fields of Object.values(schema.requests)) {
  for (const f of fields) {
    for (const c of f.choices || []) typed.add(String(c));
    if (typeof f.default === 'string') typed.add(f.default);
  }
}
// The engine knobs, with the words a number knob also takes ("auto").
for (const knobs of Object.values(schema.engines)) {
  for (const k of knobs) [k.name, ...(k.choices || [])].forEach((v) => typed.add(String(v)));
}
// The engines' own flags, as a placement names them (llama.cpp's -ngl).
for (const e of loadJson('data/engines.json').engines) for (const f of e.launch?.flags || []) typed.add(f.flag);
// The keys data/engines.json explains its figures under (activation, compute_buffer), named as keys.
for (const e of loadJson('data/engines.json').engines) for (const k of Object.keys(e.option_sources || {})) typed.add(k);
// The commands, as the usage lists them (the first word of each indented line).
const en = loadJson('data/messages/en.json');
const commands = [...en['cli.usage'].matchAll(/^ {2}([a-z]+) {2,}/gm)].map((m) => m[1]);
// A config.json's model_type is an identifier, shown beside the preset id.
const modelTypes = loadJson('data/models.json').models.map((m) => m.config?.model_type).filter(Boolean);
const ids = [...typed, ...commands, ...modelTypes, 'USD'];

const engines = loadJson('data/engines.json').engines;
/** The texts of the quotations (quote.text) a data file's messages hold. */
const quoted = (value) => (Array.isArray(value) ? value.flatMap(quoted)
  : value && typeof value === 'object'
    ? (value.id === 'quote.text' ? [value.params.text] : Object.values(value).flatMap(quoted))
    : []);
const citations = [
  ...engines.flatMap((e) => [e.source, ...Object.values(e.option_sources || {})]),
  loadJson('data/gpus.json').usable_default?.source,
  loadJson('data/gpus.json').unified_memory?.source,
  loadJson('data/gpus.json').unified_memory?.raise_source,
  ...loadJson('data/speed.json').engines.map((e) => e.source),
  ...quoted(loadJson('data/models.json').models.map((m) => m.notes || [])),
].filter(Boolean);

/** The output's lines with the citations, flags and placeholders of usage taken out. */
function readable(text) {
  let rest = text;
  for (const c of citations) rest = rest.split(c).join(' ');
  // A quotation the core makes (quote.text, «…» in ar and fa: code the answer
  // tells the reader to type) is Latin by nature, as on the page's lang=en spans.
  rest = rest.replace(/«[^»\u0600-\u06FF]*»/g, ' ');
  // A flag's number is code, Latin in every language (docs/i18n.md: "-ngl 37"): the flag and its value go.
  rest = rest.replace(/(^|[\s\u2066-\u2069(])-{1,2}[a-z][a-z-]* [0-9][0-9,]*(?=[\s\u2066-\u2069)]|$)/gm, '$1 ');
  return rest.replace(/--[a-z][a-z-]*(=\S*)?/g, ' ').replace(/<[^>]*>/g, ' ').split('\n');
}

const RUNS = [
  ['estimate', '--model', 'llama-3.1-8b'],
  ['estimate', '--model', 'guide-70b', '--weights', 'fp8', '--gpu', 'h100-pcie'],
  ['estimate', '--model', 'llama-3.1-8b', '--engine', 'vllm', '--gpu', 'h100-sxm', '--tp', '2'],
  ['estimate', '--model', 'qwen3-30b-a3b', '--engine', 'sglang', '--gpu', 'h100-sxm'],
  ['estimate', '--model', 'gemma-3-27b', '--engine', 'llamacpp', '--weights', 'q4_k_m', '--gpu', 'rtx-4090'],
  ['estimate', '--model', 'llama-3.1-70b', '--engine', 'llamacpp', '--weights', 'q4_k_m', '--split-gpus', 'rtx-5090,rtx-3090'],
  ['estimate', '--model', 'gemma-3-1b', '--context', '32768', '--engine', 'transformers', '--gpu', 'h200-sxm'],
  ['estimate', '--model', 'deepseek-v2-lite', '--context', '8192', '--engine', 'transformers', '--gpus', '2', '--gpu', 'h100-sxm'],
  ['estimate', '--model', 'beam', '--engine', 'percent', '--context', '200000', '--gpu', 'l4'],
  // Apple silicon: macOS's GPU limit and the sysctl that raises it; an offload past the one memory.
  ['estimate', '--model', 'llama-3.1-8b', '--engine', 'llamacpp', '--weights', 'q8_0', '--context', '16384', '--gpu', 'apple-m4-16gb'],
  ['estimate', '--model', 'qwen3-30b-a3b', '--engine', 'llamacpp', '--weights', 'q8_0', '--gpu', 'apple-m4-24gb'],
  ['estimate', '--model', 'guide-7b', '--mode', 'full', '--gpu', 'mi300x', '--zero', '3', '--gpus', '8'],
  ['estimate', '--model', 'llama-3.1-8b', '--mode', 'lora', '--gpu', 'rtx-4090', '--offload-optimizer'],
  ['estimate', '--model', 'guide-70b', '--mode', 'qlora', '--gpu', 'a100-sxm', '--finetune-profile', 'guide'],
  ['estimate', '--model', 'qwen3-8b', '--mode', 'full', '--optimizer', 'sgd', '--momentum', '0.9', '--loss', 'chunked', '--gpus', '2', '--zero', '2'],
  ['grid'],
  ['devices'],
  ['fleet'],
  ['fleet', '--model', 'guide-70b', '--weights', 'fp8'],
  ['inspect', '--gguf', ggufFile],
  ['--help'],
  ['estimate', '--help'],
  ['grid', '--help'],
  ['devices', '--help'],
  ['fleet', '--help'],
];

for (const lang of ['ar', 'fa']) {
  test(`vramcalc --lang ${lang}: no stray English, ${lang === 'fa' ? 'Persian digits, ' : ''}every command and --help`, () => {
    const stray = {};
    for (const args of RUNS) {
      const r = run(...args, '--lang', lang);
      const where = `vramcalc ${args.join(' ')} --lang ${lang}`;
      assert.equal(r.status, 0, `${where}: ${r.stderr}`);
      assert.ok(r.stdout.length > 40, where);
      // The launch command (a '  $ ' line) is a shell command, and a fenced
      // block is Python: code, not prose; a path the reader typed is shown as
      // typed; a tensor type (Q4_K, F32) is GGUF's name.
      let out = r.stdout.replace(/^  ```python\n[\s\S]*?^  ```$/gm, '').replace(/^  \$ .*$/gm, '');
      for (const arg of args.filter((a) => a.includes('/'))) out = out.split(arg).join(' ');
      if (args[0] === 'inspect') out = out.replace(/^ {2}[A-Z][A-Z0-9_]* /gm, '  ');
      const { words, digits } = foreign(readable(out), lang, ids);
      if (words.length || digits.length) stray[where] = { words, digits };
    }
    assert.deepEqual(stray, {}, 'Latin words outside the glossary, or Latin digits in Persian');
  });

  test(`vramcalc --lang ${lang}: the core's errors in ${lang}`, () => {
    const r = run('estimate', '--model', 'guide-7b', '--context', '-5', '--lang', lang);
    assert.equal(r.status, 2);
    const line = r.stderr.replace(/^vramcalc: --context: /, '').replace(/ \[\w+\]\n$/, '');
    const { words, digits } = foreign(readable(line), lang, ids);
    assert.deepEqual(words, [], r.stderr);
    assert.deepEqual(digits, [], r.stderr);
  });
}

// An Apple machine in each language: the assumption that its memory is counted once and
// the GPU gets macOS's limit, and the warning with the sysctl the plan needs, typed as is.
test('vramcalc on an Apple machine: macOS\'s GPU limit and the sysctl that raises it, in en, ar and fa', () => {
  const args = ['estimate', '--model', 'llama-3.1-8b', '--engine', 'llamacpp', '--weights', 'q8_0', '--context', '16384', '--gpu', 'apple-m4-16gb'];
  const answer = JSON.parse(run(...args, '--json').stdout);
  const command = answer.unified_memory.command;
  assert.match(command, /^sudo sysctl iogpu\.wired_limit_mb=\d+$/);
  assert.ok(answer.unified_memory.wired_limit_mb * 1048576 >= answer.serving.per_gpu_gb * 1e9);
  for (const lang of ['en', 'ar', 'fa']) {
    const r = run(...args, '--lang', lang);
    assert.equal(r.status, 0, r.stderr);
    const out = r.stdout.replace(/[\u2066-\u2069\u200e\u200f]/g, '');
    // The command as the reader types it: Latin, its digits too, in every language.
    assert.ok(out.includes(command), `${lang}: the command '${command}' is missing`);
    const catalog = loadJson(`data/messages/${lang}.json`);
    for (const id of ['assumption.unified_memory', 'warning.wired_raise', 'basis.wired']) {
      const fixed = catalog[id].split(/\{[^}]*\}/).map((part) => part.replace(/[\u200e\u200f]/g, '').trim()).filter((part) => part.length > 3);
      assert.ok(fixed.length > 0, id);
      for (const part of fixed) assert.ok(out.includes(part), `${lang} ${id}: '${part}' is missing`);
    }
  }
});

// Unequal cards in Persian: each card's row with its layers in Persian digits,
// the flags the reader types quoted and Latin, the split's error in Persian.
test('vramcalc --lang fa: the split over a 5090 and a 3090', () => {
  const r = run('estimate', '--model', 'llama-3.1-70b', '--engine', 'llamacpp', '--weights', 'q4_k_m',
    '--context', '16384', '--split-gpus', 'rtx-5090,rtx-3090', '--lang', 'fa');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /«--tensor-split 34,47»/);
  assert.match(r.stdout, /«CUDA1» RTX 3090: لایه‌های ۰ تا ۳۳ \(۳۴\)/);
  assert.match(r.stdout, /«CUDA0» RTX 5090: لایه‌های ۳۴ تا ۷۹ \(۴۶\) و لایهٔ خروجی/);
  assert.match(r.stdout, /--tensor-split 34,47 --device CUDA1,CUDA0/);
  const e = run('estimate', '--model', 'llama-3.1-8b', '--engine', 'vllm', '--split-gpus', 'rtx-3090,rtx-4090', '--lang', 'fa');
  assert.equal(e.status, 2);
  assert.match(e.stderr, /موتوری/);
});

// Every usage error the CLI reports itself (cli/args.cpp, checkpoint_files.cpp,
// main.cpp), each with --lang last: the language is read before the error.
// (usage.header_too_large needs a header past the string's max_size, out of
// reach; its words are checked with the catalogs.)
const USAGE = {
  'usage.unknown_flag': ['estimate', '--contxt', '5'],
  'usage.unexpected': ['estimate', 'stray'],
  'usage.whole_number': ['estimate', '--context', 'lots'],
  'usage.number': ['estimate', '--budget-gb', 'lots'],
  'usage.no_value': ['estimate', '--flash-attention=yes'],
  'usage.needs_value': ['estimate', '--weights'],
  'usage.list': ['estimate', '--lora-targets', ','],
  'usage.cannot_read': ['estimate', '--config', missing],
  'usage.not_json': ['estimate', '--config', brokenJson],
  'usage.bad_file': ['estimate', '--config', deepJson],
  'usage.key_value': ['estimate', '--engine-opt', 'max_num_seqs'],
  'usage.needs_path': ['estimate', '--gguf'],
  'usage.index_twice': ['estimate', '--index', brokenJson, '--index', brokenJson],
  'usage.safetensors_paths': ['estimate', '--safetensors', '--model', 'guide-7b'],
  'usage.gguf_and_safetensors': ['estimate', '--gguf', missing, '--safetensors', missing],
  'usage.index_and_safetensors': ['estimate', '--index', brokenJson, '--safetensors', missing],
  'usage.index_not_json': ['estimate', '--index', brokenJson],
  'usage.inspect_files': ['inspect'],
  'usage.unknown_command': ['teleport'],
  'usage.no_catalog': ['estimate', '--lang', 'xx'],
};

test('every usage error: English by default, each a catalog entry, exit status 2', () => {
  for (const [id, args] of Object.entries(USAGE)) {
    const r = run(...args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    // The English template's fixed words, in the first line.
    const fixed = en[id].split(/\{[^}]*\}/).map((part) => part.trim()).filter((part) => part.length > 3);
    const line = r.stderr.split('\n')[0];
    for (const part of fixed) assert.ok(line.includes(part), `${id}: '${line}' lacks '${part}'`);
  }
});

for (const lang of ['ar', 'fa']) {
  test(`vramcalc --lang ${lang}: every usage error in ${lang}, though --lang comes after the bad flag`, () => {
    const ar = loadJson(`data/messages/${lang}.json`);
    const stray = {};
    for (const [id, args] of Object.entries(USAGE)) {
      if (id === 'usage.no_catalog') continue;  // no catalog, no language: English
      // A flag that needs a value takes whatever follows: there, --lang goes first.
      const all = id === 'usage.needs_value' ? [args[0], '--lang', lang, ...args.slice(1)] : [...args, '--lang', lang];
      const r = run(...all);
      const where = `vramcalc ${all.join(' ')}`;
      assert.equal(r.status, 2, `${where}: ${r.stderr}`);
      const line = r.stderr.split('\n')[0];
      // The template's own words, not the English ones.
      const fixed = ar[id].split(/\{[^}]*\}/).map((part) => part.replace(/[\u200e\u200f]/g, '').trim()).filter((part) => part.length > 3);
      for (const part of fixed) assert.ok(line.replace(/[\u200e\u200f]/g, '').includes(part), `${where}: '${line}' lacks '${part}'`);
      // What the reader typed is quoted as typed: take it out, then no stray English, Persian digits.
      let rest = r.stderr;
      for (const arg of args) rest = rest.split(arg).join(' ');
      const { words, digits } = foreign(readable(rest), lang, ids);
      if (words.length || digits.length) stray[where] = { words, digits };
    }
    assert.deepEqual(stray, {}, 'Latin words outside the glossary, or Latin digits in Persian');
  });
}

test('the CLI for Node speaks the same catalogs: the same output, errors and status as the native one', () => {
  const cases = [...RUNS.slice(0, 3), ['grid'], ['inspect', '--gguf', ggufFile], ['fleet', '--model', 'guide-70b', '--weights', 'fp8'], ['estimate', '--help'], ...Object.values(USAGE)];
  for (const lang of ['en', 'ar', 'fa']) {
    for (const args of cases) {
      const all = [...args, ...(args.includes('--lang') ? [] : ['--lang', lang])];
      const native = run(...all);
      const wasm = runNode(...all);
      const where = `${all.join(' ')}`;
      assert.equal(wasm.status, native.status, `${where}: ${wasm.stderr}`);
      assert.equal(wasm.stdout, native.stdout, where);
      assert.equal(wasm.stderr, native.stderr, where);
    }
  }
});

test('English stays the default: the same command without --lang prints English', () => {
  const r = run('estimate', '--model', 'llama-3.1-8b');
  assert.match(r.stdout, /Term\s+GB\s+Formula/);
  assert.match(run('estimate', '--model', 'llama-3.1-8b', '--lang', 'fa').stdout, /جزء/);
  // The check itself: English output is full of stray English.
  assert.notDeepEqual(foreign(readable(r.stdout), 'fa', ids).words, []);
});

// A terminal draws Arabic's diacritics, the joiners and direction marks
// (Persian's ZWNJ inside words) and the isolates with no width: the term
// table's number column must end at the same column on every row, in every
// language, counted as a terminal counts it.
const zeroWidth = (cp) =>
  (cp >= 0x064b && cp <= 0x065f) || cp === 0x0670 || cp === 0x061c || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2066 && cp <= 0x2069);
const cells = (line) => [...line].filter((ch) => !zeroWidth(ch.codePointAt(0)));

for (const lang of ['en', 'ar', 'fa']) {
  test(`vramcalc --lang ${lang}: the term table's columns line up as a terminal draws them`, () => {
    const lines = run('estimate', '--model', 'llama-3.1-8b', '--lang', lang).stdout.split('\n');
    const start = lines.findIndex((l) => cells(l).slice(34, 44).join('').trim() === 'GB');
    assert.ok(start >= 0, 'the header row');
    // The terms, then the total: the rows with three spaces after the number column.
    const rows = [];
    for (const l of lines.slice(start + 1)) {
      if (cells(l).slice(44, 47).join('') !== '   ') break;
      rows.push(l);
    }
    assert.ok(rows.length >= 4, `the terms and the total: ${rows.length}`);
    // Persian's labels hold a ZWNJ; the test would not test it otherwise.
    if (lang === 'fa') assert.ok(rows.some((r) => r.includes('\u200c')));
    for (const row of rows) {
      const c = cells(row);
      assert.match(c.slice(34, 44).join(''), /^ *[0-9٠-٩۰-۹][0-9٠-٩۰-۹.,٫٬]*$/u, row);
      assert.equal(c.slice(44, 47).join(''), '   ', row);
    }
  });
}
