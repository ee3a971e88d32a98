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
import { join } from 'node:path';
import { foreign } from './latin.mjs';
import { loadJson, root } from './module.mjs';

const cli = join(root, 'build/native/vramcalc');
const run = (...args) => spawnSync(cli, args, { encoding: 'utf8' });

const schema = JSON.parse(run('schema').stdout);
// Values a reader types: every choice and default in the schema, the engine knobs.
const typed = new Set();
for (const fields of Object.values(schema.requests)) {
  for (const f of fields) {
    for (const c of f.choices || []) typed.add(String(c));
    if (typeof f.default === 'string') typed.add(f.default);
  }
}
for (const knobs of Object.values(schema.engines)) for (const k of knobs) typed.add(k.name);
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
  return rest.replace(/--[a-z][a-z-]*(=\S*)?/g, ' ').replace(/<[^>]*>/g, ' ').split('\n');
}

const RUNS = [
  ['estimate', '--model', 'llama-3.1-8b'],
  ['estimate', '--model', 'guide-70b', '--weights', 'fp8', '--gpu', 'h100-pcie'],
  ['estimate', '--model', 'llama-3.1-8b', '--engine', 'vllm', '--gpu', 'h100-sxm', '--tp', '2'],
  ['estimate', '--model', 'qwen3-30b-a3b', '--engine', 'sglang', '--gpu', 'h100-sxm'],
  ['estimate', '--model', 'gemma-3-27b', '--engine', 'llamacpp', '--weights', 'q4_k_m', '--gpu', 'rtx-4090'],
  ['estimate', '--model', 'gemma-3-1b', '--context', '32768', '--engine', 'transformers', '--gpu', 'h200-sxm'],
  ['estimate', '--model', 'deepseek-v2-lite', '--context', '8192', '--engine', 'transformers', '--gpus', '2', '--gpu', 'h100-sxm'],
  ['estimate', '--model', 'beam', '--engine', 'percent', '--context', '200000', '--gpu', 'l4'],
  ['estimate', '--model', 'guide-7b', '--mode', 'full', '--gpu', 'mi300x', '--zero', '3', '--gpus', '8'],
  ['estimate', '--model', 'llama-3.1-8b', '--mode', 'lora', '--gpu', 'rtx-4090', '--offload-optimizer'],
  ['estimate', '--model', 'guide-70b', '--mode', 'qlora', '--gpu', 'a100-sxm', '--finetune-profile', 'guide'],
  ['estimate', '--model', 'qwen3-8b', '--mode', 'full', '--optimizer', 'sgd', '--momentum', '0.9', '--loss', 'chunked', '--gpus', '2', '--zero', '2'],
  ['grid'],
  ['devices'],
  ['fleet'],
  ['fleet', '--model', 'guide-70b', '--weights', 'fp8'],
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
      // block is Python: code, not prose.
      const code = r.stdout.replace(/^  ```python\n[\s\S]*?^  ```$/gm, '').replace(/^  \$ .*$/gm, '');
      const { words, digits } = foreign(readable(code), lang, ids);
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

test('English stays the default: the same command without --lang prints English', () => {
  const r = run('estimate', '--model', 'llama-3.1-8b');
  assert.match(r.stdout, /Term\s+GB\s+Formula/);
  assert.match(run('estimate', '--model', 'llama-3.1-8b', '--lang', 'fa').stdout, /جزء/);
  // The check itself: English output is full of stray English.
  assert.notDeepEqual(foreign(readable(r.stdout), 'fa', ids).words, []);
});
