// The core's modules (foo.cpp with its header) include each other in no
// circle: a cycle means a type or function declared in the wrong place
// (the README's "How the pieces fit"; tools/module-cycles.mjs). The check prints
// every cycle it finds; its own detector is first shown to find cycles in
// small made-up trees, so an empty answer means no cycle, not a blind check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeCycles, findCycles, moduleGraph } from '../../tools/module-cycles.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A throwaway tree: { 'core/src/a.cpp': '#include "vram/b.hpp"', ... }. */
function tree(files) {
  const dir = mkdtempSync(join(tmpdir(), 'module-cycles-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

test('the detector finds a cycle through a .cpp and a header, and names it', () => {
  // a.cpp includes b.hpp; b.cpp includes a.hpp: neither header includes the
  // other, yet the modules need each other.
  const dir = tree({
    'core/include/vram/a.hpp': '#pragma once\n',
    'core/src/a.cpp': '#include "vram/a.hpp"\n#include "vram/b.hpp"\n',
    'core/include/vram/b.hpp': '#pragma once\n#include <vector>\n',
    'core/src/b.cpp': '#include "vram/b.hpp"\n\n#include "vram/a.hpp"\n',
    'core/include/vram/c.hpp': '#pragma once\n#include "vram/a.hpp"\n',
  });
  try {
    const graph = moduleGraph(dir);
    assert.deepEqual([...graph.get('a')], ['b']);
    assert.deepEqual([...graph.get('c')], ['a']);
    const cycles = findCycles(graph);
    assert.deepEqual(cycles, [{ modules: ['a', 'b'], loop: ['a', 'b', 'a'] }]);
    assert.match(describeCycles(cycles), /cycle of 2 modules: a, b\n {2}for example: a -> b -> a/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the detector follows local includes, folders under core/src and private headers', () => {
  const dir = tree({
    'core/include/vram/hf.hpp': '#pragma once\n',
    'core/src/hf.cpp': '#include "vram/hf.hpp"\n#include "import/common.hpp"\n',
    'core/src/import/common.hpp': '#pragma once\n#include "json_read.hpp"\n',
    'core/src/import/llama.cpp': '#include "common.hpp"\n',
    'core/src/json_read.hpp': '#pragma once\n',
    'core/src/json_read.cpp': '#include "json_read.hpp"\n#include "vram/hf.hpp"\n',
    'core/src/answer/kv.cpp': '#include "answer/kv.hpp"\n#include "../json_read.hpp"\n',
    'core/src/answer/kv.hpp': '#pragma once\n',
  });
  try {
    const graph = moduleGraph(dir);
    assert.deepEqual([...graph.get('import/llama')], ['import/common']);
    assert.deepEqual([...graph.get('import/common')], ['json_read']);
    // A folder added under core/src is read too, without a change here.
    assert.deepEqual([...graph.get('answer/kv')], ['json_read']);
    const cycles = findCycles(graph);
    assert.equal(cycles.length, 1);
    assert.deepEqual(cycles[0].modules, ['hf', 'import/common', 'json_read']);
    assert.deepEqual(cycles[0].loop, ['hf', 'import/common', 'json_read', 'hf']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a graph with no circle has no cycles; a long one is walked without recursion', () => {
  const chain = new Map();
  for (let i = 0; i < 20000; i += 1) chain.set(`m${i}`, new Set(i + 1 < 20000 ? [`m${i + 1}`] : []));
  assert.deepEqual(findCycles(chain), []);
  chain.get('m19999').add('m0');
  const [cycle] = findCycles(chain);
  assert.equal(cycle.modules.length, 20000);
  assert.equal(cycle.loop.length, 20001);
});

test("the core's modules include each other in no circle", () => {
  const graph = moduleGraph(root);
  // The tree is really read: the modules every estimate passes through are there.
  for (const name of ['api', 'engine', 'schema', 'field', 'error', 'messages', 'import/common']) {
    assert.ok(graph.has(name), `module ${name} is in the graph`);
  }
  assert.ok(graph.get('api').has('catalog'));
  const cycles = findCycles(graph);
  console.log(describeCycles(cycles));
  assert.deepEqual(cycles, [], describeCycles(cycles));
});
