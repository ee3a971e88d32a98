// The core's module include graph and its cycles. A module is a file and its
// header: core/src/foo.cpp with core/include/vram/foo.hpp or core/src/foo.hpp
// (files in a folder under core/src are modules of their own, named
// import/foo, answer/foo). An edge
// A -> B means a file of A includes a header of B, by "vram/b.hpp" or by a
// name beside the including file. A cycle means two modules each need the
// other: some type or function is declared in the wrong place.
//
//   node tools/module-cycles.mjs     prints the graph's cycles, exits 1 if any
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Every folder of sources: the public headers and core/src with its sub-folders (import/, ...). */
function sourceDirs(root) {
  const out = ['core/include/vram'];
  const walk = (dir) => {
    if (!existsSync(join(root, dir))) return;
    out.push(dir);
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.isDirectory()) walk(`${dir}/${entry.name}`);
    }
  };
  walk('core/src');
  return out;
}

/** The module a source file belongs to: its path under core/src or core/include/vram, less the extension. */
function moduleOf(root, file) {
  const rel = relative(root, file).replaceAll('\\', '/');
  const stem = rel.replace(/\.(cpp|hpp)$/, '');
  if (stem.startsWith('core/include/vram/')) return stem.slice('core/include/vram/'.length);
  if (stem.startsWith('core/src/')) return stem.slice('core/src/'.length);
  return null;
}

/** Every quoted include in a C++ source, in order. */
export function includesOf(text) {
  return [...text.matchAll(/^\s*#\s*include\s+"([^"]+)"/gm)].map((m) => m[1]);
}

/**
 * The module graph of the tree at root: Map from module name to the Set of
 * modules it includes (itself left out). Includes that name no module of the
 * core (system headers, nlohmann) are not edges.
 */
export function moduleGraph(root) {
  const graph = new Map();
  for (const dir of sourceDirs(root)) {
    const abs = join(root, dir);
    if (!existsSync(abs)) continue;
    for (const name of readdirSync(abs).sort()) {
      if (!/\.(cpp|hpp)$/.test(name)) continue;
      const file = join(abs, name);
      const from = moduleOf(root, file);
      if (!graph.has(from)) graph.set(from, new Set());
      for (const inc of includesOf(readFileSync(file, 'utf8'))) {
        let target = null;
        if (inc.startsWith('vram/')) target = join(root, 'core/include', inc);
        else if (existsSync(join(dirname(file), inc))) target = join(dirname(file), inc);
        else if (existsSync(join(root, 'core/src', inc))) target = join(root, 'core/src', inc);
        if (!target || !existsSync(target)) continue;
        const to = moduleOf(root, target);
        if (to && to !== from) graph.get(from).add(to);
      }
    }
  }
  return graph;
}

/**
 * The graph's cycles: each strongly connected component of more than one
 * module (Tarjan), as { modules, loop }, where loop is one shortest cycle
 * through the component's first module, closed (first name repeated last).
 */
export function findCycles(graph) {
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const components = [];
  let next = 0;
  const nodes = [...graph.keys()].sort();
  const edges = (v) => [...(graph.get(v) ?? [])].sort();
  function connect(v) {
    // Iterative Tarjan: the include graph is small, but recursion depth is
    // the longest include chain and a synthetic test may make it long.
    const work = [[v, edges(v), 0]];
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    while (work.length) {
      const frame = work[work.length - 1];
      const [u, outs] = frame;
      if (frame[2] < outs.length) {
        const w = outs[frame[2]];
        frame[2] += 1;
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next);
          next += 1;
          stack.push(w);
          onStack.add(w);
          work.push([w, edges(w), 0]);
        } else if (onStack.has(w)) {
          low.set(u, Math.min(low.get(u), index.get(w)));
        }
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(u)));
      }
      if (low.get(u) === index.get(u)) {
        const component = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          component.push(w);
        } while (w !== u);
        if (component.length > 1) components.push(component.sort());
      }
    }
  }
  for (const v of nodes) if (!index.has(v)) connect(v);
  components.sort((a, b) => b.length - a.length || a[0].localeCompare(b[0]));
  return components.map((modules) => ({ modules, loop: shortestLoop(graph, modules) }));
}

/** A shortest cycle through modules[0], staying inside the component. */
function shortestLoop(graph, modules) {
  const inside = new Set(modules);
  const start = modules[0];
  const parent = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const u = queue.shift();
    for (const w of [...(graph.get(u) ?? [])].sort()) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let p = u; p !== null; p = parent.get(p)) path.push(p);
        return path.reverse();
      }
      if (!parent.has(w)) {
        parent.set(w, u);
        queue.push(w);
      }
    }
  }
  return [start];
}

/** The report the test and the command print: one paragraph per cycle. */
export function describeCycles(cycles) {
  if (!cycles.length) return 'module include graph: no cycles';
  return cycles
    .map(
      ({ modules, loop }) =>
        `cycle of ${modules.length} modules: ${modules.join(', ')}\n  for example: ${loop.join(' -> ')}`,
    )
    .join('\n');
}

if (process.argv[1] && basename(process.argv[1]) === basename(fileURLToPath(import.meta.url))) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const graph = moduleGraph(root);
  const cycles = findCycles(graph);
  console.log(`${graph.size} modules`);
  console.log(describeCycles(cycles));
  process.exit(cycles.length ? 1 : 0);
}
