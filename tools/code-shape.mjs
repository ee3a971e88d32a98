// The core's shape in figures (issue 39, "Done means"): the longest source
// files, the longest functions, the lines of estimate_json, of plan_finetune
// and of the longest answer builder, every branch on an engine's kind
// outside the engine registry (core/src/engines/), and (from the built wasm
// module's schema) every list, range or default of the schema that web/src
// writes again.
//
//   node tools/code-shape.mjs     prints the figures and the longest functions
//
// Functions are read from clang-format's layout (the Google style of
// .clang-format): a definition starts at column 0 and ends where the braces
// opened at the end of its signature close. Types, tables and one-line
// functions are not functions here.
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wrap } from '../web/src/core.js';

/** The limits the figures are held to (tests/js/code-shape.test.mjs). */
export const LIMITS = { file: 500, estimateJson: 150, planFinetune: 120, builder: 80 };

/** Every .cpp and .hpp under `dir` (relative to root), sorted. */
export function sources(root, dir) {
  return readdirSync(join(root, dir), { recursive: true })
    .filter((f) => /\.(cpp|hpp)$/.test(f))
    .map((f) => join(dir, f).replaceAll('\\', '/'))
    .sort();
}

/** A line without its strings, characters and // comment. */
function code(line) {
  return line
    .replace(/"(\\.|[^"\\])*"/g, '""')
    .replace(/'(\\.|[^'\\])*'/g, "''")
    .replace(/\/\/.*/, '');
}

/**
 * The functions defined at namespace level in a source text: [{ name, line
 * (1-based, where the signature starts), lines (signature to closing brace) }].
 */
export function functionsOf(text) {
  const lines = text.split('\n');
  const out = [];
  let start = null;
  let comment = false;
  for (let i = 0; i < lines.length; i += 1) {
    let line = lines[i];
    // Block comments (a /** ... */ before a definition) are not code.
    if (comment) {
      if (!line.includes('*/')) continue;
      line = line.slice(line.indexOf('*/') + 2);
      comment = false;
    }
    const open = line.indexOf('/*');
    if (open >= 0 && !line.includes('*/', open)) {
      line = line.slice(0, open);
      comment = true;
    }
    const c = code(line).trimEnd();
    if (start === null) {
      if (!c || /^\s/.test(c) || /^(#|}|namespace\b|using\b|\/\*|\*)/.test(c)) continue;
      start = i;
    }
    if (c.endsWith(';') || c.endsWith('}')) {
      start = null;
      continue;
    }
    if (!c.endsWith('{')) continue;
    const head = lines.slice(start, i + 1).map(code).join(' ');
    // The body ends where its braces close (strings and comments left out).
    let depth = 0;
    let end = i;
    for (; end < lines.length; end += 1) {
      const text = end === i ? c : code(lines[end]);
      depth += (text.match(/{/g) || []).length - (text.match(/}/g) || []).length;
      if (depth <= 0) break;
    }
    // A type or a table (struct X {, const T kTable[] = {) is no function.
    const isType = /^\s*(template\s*<[^>]*>\s*)?(struct|class|enum|union)\b/.test(head);
    const isTable = head.split('(')[0].includes('=');
    if (!isType && !isTable) {
      const name = /([~\w:]+)\s*\(/.exec(head);
      out.push({ name: name ? name[1].split('::').pop() : head.slice(0, 40), line: start + 1, lines: end - start + 1 });
    }
    i = end;
    start = null;
  }
  return out;
}

/**
 * Every line outside the engine registry (core/src/engines/) that branches on
 * an engine's kind or id: EngineKind::, kind() compared, or a comparison with
 * a kind or id of data/engines.json. core/src/engine_log/ is left out: it
 * reads each engine's own log, one reader per engine (engine_log/read.cpp
 * tells them apart by what they print).
 */
export function kindBranches(root) {
  const engines = JSON.parse(readFileSync(join(root, 'data/engines.json'), 'utf8')).engines;
  const names = [...new Set(engines.flatMap((e) => [e.id, e.kind]))].map((n) => n.replace(/[.]/g, '\\.'));
  const branch = new RegExp(`\\bEngineKind::|\\bkind\\(\\)\\s*[=!]=|rules->kind\\s*[=!]=|[=!]=\\s*"(${names.join('|')})"`);
  const hits = [];
  for (const file of [...sources(root, 'core'), ...sources(root, 'cli')]) {
    if (file.startsWith('core/src/engines/') || file.startsWith('core/src/engine_log/')) continue;
    readFileSync(join(root, file), 'utf8').split('\n').forEach((line, i) => {
      if (branch.test(line.replace(/\/\/.*/, ''))) hits.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  return hits;
}

/** Every .js file of the page's source (web/src), as [path, text]. */
function pageSources(root) {
  return readdirSync(join(root, 'web/src'), { recursive: true })
    .filter((f) => f.endsWith('.js'))
    .sort()
    .map((f) => [`web/src/${f.replaceAll('\\', '/')}`, readFileSync(join(root, 'web/src', f), 'utf8')]);
}

/**
 * What web/src copies of the core's schema (`schema`: the core's
 * call('schema')), each as "file:line: what": a list literal that holds two
 * or more of a field's choices, or is two or more of the fields only one
 * mode takes or only one condition (applies_when) admits; a range written
 * as a number (min: 1, max: 16777216); a field's default written against
 * its name (context: 8192). The page reads all of these from the schema.
 */
export function copiedLists(root, schema) {
  const fields = [...Object.values(schema.requests).flat(), ...Object.values(schema.engines).flat(), ...schema.config];
  const estimate = schema.requests.estimate;
  const groups = [];
  for (const mode of ['inference', 'finetune']) {
    groups.push([`${mode}-only fields`, estimate.filter((f) => f.modes.length === 1 && f.modes[0] === mode).map((f) => f.name)]);
  }
  const when = new Map();
  for (const f of estimate.filter((x) => x.applies_when)) {
    const key = JSON.stringify(f.applies_when);
    when.set(key, [...(when.get(key) || []), f.name]);
  }
  for (const [key, names] of when) groups.push([`fields for ${key}`, names]);
  for (const f of fields.filter((x) => Array.isArray(x.choices) && x.choices.length >= 2)) groups.push([`${f.name}'s choices`, f.choices.map(String)]);
  const hits = [];
  for (const [file, text] of pageSources(root)) {
    const lineOf = (index) => text.slice(0, index).split('\n').length;
    const bare = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/\/\/.*$/gm, (c) => ' '.repeat(c.length));
    // A list literal: quoted strings and commas only.
    for (const m of bare.matchAll(/\[((?:\s*(?:'[^'\n]*'|"[^"\n]*")\s*,?)+)\]/g)) {
      const items = [...m[1].matchAll(/'([^'\n]*)'|"([^"\n]*)"/g)].map((q) => q[1] ?? q[2]);
      for (const [what, names] of groups) {
        const shared = items.filter((item) => names.includes(item));
        const all = items.length >= 2 && shared.length === items.length && !what.endsWith('choices');
        if (shared.length >= 2 && (what.endsWith('choices') || all)) hits.push(`${file}:${lineOf(m.index)}: ${what}: [${items.join(', ')}]`);
      }
    }
    for (const m of bare.matchAll(/(?<![\w.])(min|max|minimum|maximum)\s*:\s*-?[\d.]+(e[+-]?\d+)?/g)) {
      hits.push(`${file}:${lineOf(m.index)}: a range written as a number (${m[0]})`);
    }
    for (const f of fields.filter((x) => ['number', 'string', 'boolean'].includes(typeof x.default))) {
      const literal = typeof f.default === 'string' ? `['"]${f.default.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"]` : String(f.default).replace('.', '\\.');
      for (const m of bare.matchAll(new RegExp(`(?<![\\w.])${f.name}\\s*:\\s*${literal}(?![\\w.])`, 'g'))) {
        hits.push(`${file}:${lineOf(m.index)}: ${f.name}'s default ${JSON.stringify(f.default)}`);
      }
    }
  }
  return [...new Set(hits)];
}

/** Every figure: { files, functions, estimateJson, planFinetune, builders, kindBranches }. */
export function codeShape(root) {
  const files = [];
  const functions = [];
  for (const file of sources(root, 'core')) {
    const text = readFileSync(join(root, file), 'utf8');
    files.push({ file, lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0) });
    for (const f of functionsOf(text)) functions.push({ file, ...f });
  }
  const one = (file, name) => functions.find((f) => f.file === file && f.name === name);
  return {
    files: files.sort((a, b) => b.lines - a.lines),
    functions: functions.sort((a, b) => b.lines - a.lines),
    estimateJson: one('core/src/estimate_json.cpp', 'estimate_json'),
    planFinetune: one('core/src/finetune/plan.cpp', 'plan_finetune'),
    builders: functions.filter((f) => f.file.startsWith('core/src/answer/')),
    kindBranches: kindBranches(root),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const shape = codeShape(root);
  const at = (f) => `${relative(root, join(root, f.file))}:${f.line} ${f.name}`;
  console.log(`estimate_json: ${shape.estimateJson.lines} lines (at most ${LIMITS.estimateJson})`);
  console.log(`plan_finetune: ${shape.planFinetune.lines} lines (at most ${LIMITS.planFinetune})`);
  console.log(`longest answer builder: ${shape.builders[0].lines} lines, ${at(shape.builders[0])} (at most ${LIMITS.builder})`);
  console.log(`longest core file: ${shape.files[0].lines} lines, ${shape.files[0].file} (at most ${LIMITS.file})`);
  console.log(`engine-kind branches outside core/src/engines/: ${shape.kindBranches.length}`);
  for (const hit of shape.kindBranches) console.log(`  ${hit}`);
  console.log('longest functions of the core:');
  for (const f of shape.functions.slice(0, 10)) console.log(`  ${String(f.lines).padStart(4)} ${at(f)}`);
  const factory = createRequire(import.meta.url)(join(root, 'build/wasm/module/vram.js'));
  const copies = copiedLists(root, wrap(await factory()).schema());
  console.log(`lists, ranges and defaults of the schema copied into web/src: ${copies.length}`);
  for (const hit of copies) console.log(`  ${hit}`);
}
