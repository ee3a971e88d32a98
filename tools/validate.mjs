// `npm run validate`: the calculator against every measured case of
// tests/validation, as a table with the error of each and the median and
// worst absolute error per category (inference, fine-tuning's allocator
// peak, fine-tuning on the device, speed), in-sample (cases a fitted
// constant of data/fits.json was fitted on) and out-of-sample, named gaps
// included, against the category's goal judged out of sample. --markdown prints the table for
// docs/accuracy.md; --write puts it there between the markers.
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wrap } from '../web/src/core.js';
import { accuracyData, evaluate, gaps, loadCases, loadFits, summary } from './validation.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const module = await require(join(root, 'build/wasm/module/vram.js'))();
const { call } = wrap(module);

const rows = evaluate(root, call);
const stats = summary(rows);

const fmt = (value, unit) => {
  if (unit === 'count' || unit === 'tokens' || unit === 'bytes') return Math.round(value).toLocaleString('en');
  return `${value.toFixed(2)} ${unit}`;
};
const pct = (e) => `${e >= 0 ? '+' : ''}${e.toFixed(1)}%`;

const goalText = (s) => (s.goal ? `< ${s.goal.median}% / < ${s.goal.worst}%` : '-');
const metText = (s) => (s.goal ? (s.met ? 'met' : 'not met') : '-');
const metInText = (s) => (s.goal ? (s.met_in_sample ? 'met' : 'not met') : '-');
const part = (p) => (p.count ? `${p.count} (${p.gaps} in gaps) | ${num(p.median)} | ${num(p.worst)}` : '0 | - | -');
const num = (x) => (Number.isNaN(x) ? '-' : `${x.toFixed(1)}%`);
const byGap = gaps(rows);

function markdown() {
  const lines = [];
  for (const [category, s] of Object.entries(stats)) {
    lines.push(`| ${category} | ${part(s.in_sample)} | ${part(s.out_of_sample)} | ${goalText(s)} | ${metInText(s)} | ${metText(s)} |`);
  }
  const head = [
    'In-sample: the cases some fitted constant was fitted on (data/fits.json); out-of-sample: the rest. Both include the named known gaps with their errors; the goal is judged out of sample.',
    '',
    '| category | in-sample measurements | in-sample median | in-sample worst | out-of-sample measurements | out-of-sample median | out-of-sample worst | goal (median / worst) | goal, in-sample | goal, out-of-sample |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...lines,
    '',
    'Outside the named known gaps, all cases together (the figures earlier rounds reported):',
    '',
    '| category | measurements | median abs. error | worst abs. error | in known gaps | median outside gaps | worst outside gaps |',
    '|---|---|---|---|---|---|---|',
    ...Object.entries(stats).map(([category, s]) => `| ${category} | ${s.count} | ${num(s.median)} | ${num(s.worst)} | ${s.gaps} | ${num(s.kept.median)} | ${num(s.kept.worst)} |`),
    '',
    'Fitted constants and the cases each was fitted on (data/fits.json):',
    '',
    '| constant | value | fitted on | how the subset is known |',
    '|---|---|---|---|',
    ...loadFits(root).constants.map((c) => `| ${c.id} | ${c.value} | ${c.fitted_on.length} case${c.fitted_on.length === 1 ? "" : "s"} | ${c.how} |`),
    '',
  ];
  const gapLines = ['Known gaps (each marked in its case as `known_gap`):', ''];
  for (const [name, g] of byGap) {
    const range = g.rows.map((r) => r.error);
    gapLines.push(`- **${name}** (${g.rows.length} measurements, ${pct(Math.min(...range))} to ${pct(Math.max(...range))}): ${g.reason}`);
  }
  gapLines.push('');
  const table = ['| case | category | sample | quantity | measured | predicted | error | tolerance | known gap |', '|---|---|---|---|---|---|---|---|---|'];
  for (const r of rows) {
    table.push(`| ${r.id} | ${r.category} | ${r.inSample ? 'in' : 'out'} | ${r.quantity} | ${fmt(r.measured, r.unit)} | ${fmt(r.predicted, r.unit)} | ${pct(r.error)} | ${r.tolerance ?? '-'}% | ${r.gap ? r.gap.name : ''} |`);
  }
  return [...head, ...gapLines, ...table].join('\n');
}

/**
 * The transformers profile's rows (docs/accuracy.md, 'The transformers
 * profile'): per quantity measured, the cases' median and worst error.
 */
function transformersTable() {
  const mine = rows.filter((r) => r.engine === 'transformers');
  const kinds = [
    ['KV cache (`kv_cache_gb`)', (r) => r.quantity.startsWith('kv_cache')],
    ['prefill peak, allocator (`total_gb`, `non_torch_gib: 0`)', (r) => r.quantity.startsWith('prefill_peak')],
  ];
  const lines = [
    '| inference, transformers | measurements | median abs. error | worst abs. error | range | in known gaps |',
    '|---|---|---|---|---|---|',
  ];
  for (const [name, match] of kinds) {
    const group = mine.filter(match);
    if (!group.length) continue;
    const errors = group.map((r) => r.error);
    const abs = errors.map(Math.abs).sort((a, b) => a - b);
    const mid = abs.length >> 1;
    const median = abs.length % 2 ? abs[mid] : (abs[mid - 1] + abs[mid]) / 2;
    lines.push(`| ${name} | ${group.length} | ${median.toFixed(2)}% | ${Math.max(...abs).toFixed(2)}% | ${pct(Math.min(...errors))} to ${pct(Math.max(...errors))} | ${group.filter((r) => r.gap).length} |`);
  }
  return lines.join('\n');
}

const args = process.argv.slice(2);

// --tighten: record each measurement's tolerance as its current error + 1
// point, rounded up, where that is lower than the recorded one (or none is
// recorded). It never loosens a tolerance.
if (args.includes('--tighten')) {
  const byFile = new Map();
  for (const c of loadCases(root)) byFile.set(c.id, c);
  let changed = 0;
  for (const r of rows) {
    const c = byFile.get(r.id);
    const m = c.measurements.find((x) => x.quantity === r.quantity);
    const proposed = Math.ceil(Math.abs(r.error) + 1);
    if (m.tolerance_pct === undefined || proposed < m.tolerance_pct) {
      m.tolerance_pct = proposed;
      changed++;
    }
  }
  for (const c of byFile.values()) {
    const { file, ...data } = c;
    writeFileSync(file, `${JSON.stringify(data, null, 1)}\n`);
  }
  console.log(`tolerances tightened or recorded: ${changed}`);
  process.exit(0);
}
if (args.includes('--markdown') || args.includes('--write')) {
  const text = markdown();
  if (args.includes('--write')) {
    const file = join(root, 'docs/accuracy.md');
    const doc = readFileSync(file, 'utf8');
    const begin = '<!-- validation:begin -->';
    const end = '<!-- validation:end -->';
    const a = doc.indexOf(begin);
    const b = doc.indexOf(end);
    if (a < 0 || b < 0) throw new Error('docs/accuracy.md lost its validation markers');
    let out = `${doc.slice(0, a + begin.length)}\n${text}\n${doc.slice(b)}`;
    const tfBegin = '<!-- transformers:begin -->';
    const tfEnd = '<!-- transformers:end -->';
    const c = out.indexOf(tfBegin);
    const e = out.indexOf(tfEnd);
    if (c < 0 || e < 0) throw new Error('docs/accuracy.md lost its transformers markers');
    out = `${out.slice(0, c + tfBegin.length)}\n${transformersTable()}\n${out.slice(e)}`;
    writeFileSync(file, out);
    const data = {
      about:
        "The calculator's measured error per kind of answer, outside the named known gaps: the signed range (predicted - measured) / measured, the median absolute error, and how many cases and measurements of tests/validation/cases support it. The core attaches the range to every total of that kind: inference answers take 'inference', fine-tuning answers (whose total is what the device holds) take 'finetune-device', speeds take 'speed', counted over the out-of-sample measurements only (no constant of data/fits.json was fitted on them).",
      updated: new Date().toISOString().slice(0, 10),
      source: 'tests/validation/cases against this calculator, by `node tools/validate.mjs --write` (docs/accuracy.md prints the same table)',
      categories: accuracyData(rows),
    };
    writeFileSync(join(root, 'data/accuracy.json'), `${JSON.stringify(data, null, 2)}\n`);
    console.log('docs/accuracy.md and data/accuracy.json updated');
  } else {
    console.log(text);
  }
} else {
  const w = { id: 54, quantity: 28, value: 16 };
  console.log(`${'case'.padEnd(w.id)}${'fit'.padEnd(5)}${'quantity'.padEnd(w.quantity)}${'measured'.padStart(w.value)}${'predicted'.padStart(w.value)}${'error'.padStart(9)}${'tol.'.padStart(7)}  known gap`);
  for (const r of rows) {
    const flag = r.tolerance !== undefined && Math.abs(r.error) > r.tolerance ? '  OVER' : '';
    console.log(`${r.id.padEnd(w.id)}${(r.inSample ? 'in' : 'out').padEnd(5)}${r.quantity.padEnd(w.quantity)}${fmt(r.measured, r.unit).padStart(w.value)}${fmt(r.predicted, r.unit).padStart(w.value)}${pct(r.error).padStart(9)}${(r.tolerance === undefined ? '-' : `${r.tolerance}%`).padStart(7)}${r.gap ? `  ${r.gap.name}` : ''}${flag}`);
  }
  console.log('');
  for (const [name, g] of byGap) {
    console.log(`known gap ${name} (${g.rows.length} measurements): ${g.reason}`);
  }
  console.log('');
  for (const [category, s] of Object.entries(stats)) {
    const goal = s.goal ? `; goal median < ${s.goal.median}%, worst < ${s.goal.worst}%: in-sample ${metInText(s)}, out-of-sample ${metText(s)}` : '';
    const io = (p) => `${p.count} measurements (${p.gaps} in gaps), median ${num(p.median)}, worst ${num(p.worst)}`;
    console.log(`${category}: in-sample ${io(s.in_sample)}; out-of-sample ${io(s.out_of_sample)}${goal}`);
    console.log(`${' '.repeat(category.length)}  all ${s.count}: median ${num(s.median)}, worst ${num(s.worst)}; outside the ${s.gaps} in known gaps: median ${num(s.kept.median)}, worst ${num(s.kept.worst)}`);
  }
}
