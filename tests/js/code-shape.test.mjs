// The core keeps the shape issue 39 gave it (tools/code-shape.mjs): no source
// file over 500 lines, estimate_json a table of contents of at most 150
// lines, no answer builder over 80, plan_finetune at most 120, no branch on
// an engine's kind outside the engine registry, and no list, range or
// default of the core's schema copied into the page's source. Each reader is
// first shown to find what it looks for in small made-up trees, so an empty
// answer is not a blind one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIMITS, codeShape, copiedLists, functionsOf, kindBranches } from '../../tools/code-shape.mjs';
import { core, root } from './module.mjs';

/** A throwaway tree: { 'web/src/a.js': '...', ... }, with the repository's data/engines.json. */
function tree(files) {
  const dir = mkdtempSync(join(tmpdir(), 'code-shape-'));
  const all = { 'data/engines.json': JSON.stringify({ engines: [{ id: 'vllm', kind: 'vllm' }, { id: 'guide', kind: 'flat' }] }), 'web/src/.keep.js': '', ...files };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

test('functions are read from the formatted source: their first and last lines, no types, tables or one-liners', () => {
  const text = [
    '#include "a.hpp"', // 1
    'namespace vram {', // 2
    'struct Pair {', // 3
    '  int a = 0;', // 4
    '};', // 5
    'const int kTable[] = {', // 6
    '    1, 2};', // 7
    'int one() { return 1; }', // 8
    '/** A comment { with a brace', // 9
    ' * over lines. */', // 10
    'nlohmann::json Sizes::total(const Request& request,', // 11
    '                            bool explain) {', // 12
    '  if (explain) {', // 13
    '    return "}";', // 14
    '  }', // 15
    '  return {};', // 16
    '}', // 17
    '}  // namespace vram', // 18
  ].join('\n');
  assert.deepEqual(functionsOf(text), [{ name: 'total', line: 11, lines: 7 }]);
});

test('a branch on an engine kind or id outside core/src/engines/ is found; one inside is not', () => {
  const dir = tree({
    'core/src/engines/vllm.cpp': 'if (rules->kind == std::string("vllm")) {}\n',
    'core/src/a.cpp': '// kind() == "vllm" in a comment\nconst bool paged = engine.kind() == std::string("x");\n',
    'cli/b.cpp': 'if (req.engine == "guide") return;\n',
  });
  try {
    assert.deepEqual(kindBranches(dir), [
      'core/src/a.cpp:2: const bool paged = engine.kind() == std::string("x");',
      'cli/b.cpp:1: if (req.engine == "guide") return;',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a list, range or default of the core's schema written in web/src is found", async () => {
  const schema = (await core()).schema();
  const dir = tree({
    'web/src/a.js': [
      "const FINETUNE = ['seq', 'micro_batch', 'optimizer'];", // fields only fine-tuning takes
      "const LORA = ['lora_rank', 'lora_targets'];", // fields only LoRA and QLoRA take
      "const OPTIMIZERS = ['sgd', 'adafactor'];", // two of optimizer's choices
      "const SHOWN = ['model', 'context'];", // the page's own pick of inputs: not a copy
      'const SHAPE = { vocab: { min: 1, max: 100000000 } };',
      'const DEFAULTS = { context: 8192 };',
      "// ['sgd', 'adafactor'] in a comment is no copy",
    ].join('\n'),
  });
  try {
    assert.deepEqual(copiedLists(dir, schema), [
      'web/src/a.js:1: finetune-only fields: [seq, micro_batch, optimizer]',
      'web/src/a.js:2: finetune-only fields: [lora_rank, lora_targets]',
      'web/src/a.js:2: fields for {"mode":["lora","qlora"]}: [lora_rank, lora_targets]',
      "web/src/a.js:3: optimizer's choices: [sgd, adafactor]",
      'web/src/a.js:5: a range written as a number (min: 1)',
      'web/src/a.js:5: a range written as a number (max: 100000000)',
      "web/src/a.js:6: context's default 8192",
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the core has the shape issue 39 asked for, and the page copies nothing of its schema', async () => {
  const shape = codeShape(root);
  const over = (list, limit) => list.filter((x) => x.lines > limit).map((x) => `${x.file}${x.line ? `:${x.line} ${x.name}` : ''}: ${x.lines} lines`);
  // The tree is really read: the files and functions every estimate passes through are there.
  assert.ok(shape.files.length > 100 && shape.builders.length > 20, `${shape.files.length} files, ${shape.builders.length} builders`);
  assert.ok(shape.estimateJson && shape.planFinetune, 'estimate_json and plan_finetune are found');
  assert.deepEqual(over(shape.files, LIMITS.file), [], `core files over ${LIMITS.file} lines`);
  assert.ok(shape.estimateJson.lines <= LIMITS.estimateJson, `estimate_json: ${shape.estimateJson.lines} lines`);
  assert.ok(shape.planFinetune.lines <= LIMITS.planFinetune, `plan_finetune: ${shape.planFinetune.lines} lines`);
  assert.deepEqual(over(shape.builders, LIMITS.builder), [], `answer builders over ${LIMITS.builder} lines`);
  assert.deepEqual(shape.kindBranches, [], 'branches on an engine kind outside core/src/engines/');
  assert.deepEqual(copiedLists(root, (await core()).schema()), [], "the core's schema copied into web/src");
});
