// The validation set (tests/validation/cases/*.json): measured GPU memory
// from public logs and papers, each with the calculator request that
// reproduces its setting and where the prediction lives in the answer.
// Shared by `npm run validate` (tools/validate.mjs) and the node tests.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const GB = 1e9;
const GiB = 2 ** 30;
const MiB = 2 ** 20;

/** The request of a case: its config file (with overrides) filled in. */
export function caseRequest(root, c) {
  const request = structuredClone(c.request);
  if (c.config_file) {
    const config = JSON.parse(readFileSync(join(root, c.config_file), 'utf8'));
    request.config = { ...config, ...(c.config_overrides ?? {}) };
  }
  return request;
}

/** The value a predict expression picks from an answer, in bytes when it is memory. */
function pick(result, predict) {
  // "term:a" or a sum of terms, "term:weights+mxfp4_layout" (what vLLM's
  // "Model loading took" counts for gpt-oss).
  if (predict.startsWith('term:')) {
    let gb = 0;
    for (const id of predict.slice(5).split('+')) {
      const term = result.terms.find((t) => t.id === id);
      if (!term) throw new Error(`no term ${id} in ${predict}`);
      gb += term.gb;
    }
    return { value: gb * GB, memory: true };
  }
  const value = predict.split('.').reduce((node, key) => (node == null ? undefined : node[key]), result);
  if (typeof value !== 'number') throw new Error(`no number at ${predict}`);
  if (predict.endsWith('_gb')) return { value: value * GB, memory: true };
  if (predict.endsWith('_gib')) return { value: value * GiB, memory: true };
  return { value, memory: false };
}

const UNITS = { GB, GiB, MiB };

/** Predicted value in the measurement's unit. */
export function predicted(result, m) {
  const { value, memory } = pick(result, m.predict);
  if (memory) {
    if (!UNITS[m.unit]) throw new Error(`memory predicted for a measurement in ${m.unit}`);
    return value / UNITS[m.unit];
  }
  return value;
}

/**
 * The fitted constants (data/fits.json): each names the case ids it was
 * fitted on. A case any of them was fitted on is in-sample.
 */
export function loadFits(root) {
  return JSON.parse(readFileSync(join(root, 'data/fits.json'), 'utf8'));
}

/** The ids of every case some constant was fitted on. */
export function inSampleIds(root) {
  return new Set(loadFits(root).constants.flatMap((c) => c.fitted_on));
}

export function loadCases(root) {
  const dir = join(root, 'tests/validation/cases');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => ({ file: join(dir, name), ...JSON.parse(readFileSync(join(dir, name), 'utf8')) }));
}

/**
 * The answer's terms a measurement checks: the terms it names, the KV cache
 * for a KV figure, the weights for an offload's share of them, and every
 * term of the answer for a total (a budget, a peak, what fits), which holds
 * them all. The band an answer is shown with covers these terms only
 * (data/accuracy.json `terms`).
 */
export function coveredTerms(result, predict) {
  if (predict.startsWith('term:')) return predict.slice(5).split('+');
  if (predict === 'kv_cache_gb' || predict === 'budget.kv_bytes_per_token') return ['kv_cache'];
  if (predict.startsWith('serving.offload.')) return ['weights'];
  return (result.terms ?? []).map((t) => t.id);
}

/** Every measurement of every case against the calculator: rows for the report. */
export function evaluate(root, call) {
  const rows = [];
  const fitted = inSampleIds(root);
  for (const c of loadCases(root)) {
    const request = caseRequest(root, c);
    const result = call('estimate', request);
    for (const m of c.measurements) {
      const p = predicted(result, m);
      rows.push({
        id: c.id,
        category: c.category,
        engine: request.engine ?? 'guide',
        features: c.features,
        quantity: m.quantity,
        unit: m.unit,
        measured: m.value,
        predicted: p,
        error: ((p - m.value) / m.value) * 100,
        tolerance: m.tolerance_pct,
        gap: m.known_gap,
        inSample: fitted.has(c.id),
        terms: coveredTerms(result, m.predict),
      });
    }
  }
  return rows;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The goals of issue 14, per category: median and worst absolute error, in
 * percent, over the measurements that are not marked as a known gap. The
 * allocator's peak has no goal of its own: what runs out is the device.
 */
export const GOALS = {
  inference: { median: 3, worst: 10 },
  'finetune-device': { median: 5, worst: 15 },
  // Issue 40: expected decode (and first-token time) across consumer and
  // datacenter cards.
  speed: { median: 15, worst: 35 },
};

/**
 * Categories whose band in data/accuracy.json comes from the out-of-sample
 * measurements only (issue 40): a speed constant's own fitting runs would
 * narrow the band it is shown with.
 */
export const OUT_OF_SAMPLE_BANDS = new Set(['speed']);

function stats(rows) {
  const errors = rows.map((r) => Math.abs(r.error));
  if (errors.length === 0) return { count: 0, median: NaN, worst: NaN };
  return { count: errors.length, median: median(errors), worst: Math.max(...errors) };
}

/**
 * Median and worst absolute error per category: over every measurement,
 * over those outside the known gaps, and split by whether a fitted
 * constant saw the case (data/fits.json): in-sample and out-of-sample, each
 * with its named gaps included and counted. The goal is judged on the
 * out-of-sample measurements, gaps included: a figure a constant was fitted
 * to proves nothing.
 */
export function summary(rows) {
  const out = {};
  for (const category of [...new Set(rows.map((r) => r.category))].sort()) {
    const all = rows.filter((r) => r.category === category);
    const kept = all.filter((r) => !r.gap);
    const inside = all.filter((r) => r.inSample);
    const outside = all.filter((r) => !r.inSample);
    const goal = GOALS[category];
    const s = {
      ...stats(all),
      gaps: all.length - kept.length,
      kept: stats(kept),
      in_sample: { ...stats(inside), gaps: inside.filter((r) => r.gap).length },
      out_of_sample: { ...stats(outside), gaps: outside.filter((r) => r.gap).length },
      goal,
    };
    if (goal) {
      const o = s.out_of_sample;
      s.met = o.count > 0 && o.median < goal.median && o.worst < goal.worst;
      s.met_in_sample = s.in_sample.count > 0 && s.in_sample.median < goal.median && s.in_sample.worst < goal.worst;
    }
    out[category] = s;
  }
  return out;
}

/** The known gaps by name: their reason and the measurements they cover. */
export function gaps(rows) {
  const out = new Map();
  for (const r of rows.filter((x) => x.gap)) {
    if (!out.has(r.gap.name)) out.set(r.gap.name, { reason: r.gap.reason, rows: [] });
    out.get(r.gap.name).rows.push(r);
  }
  return out;
}

/**
 * What data/accuracy.json carries: per category, the signed error range,
 * the cases and the measurements outside the named known gaps, as the table
 * of docs/accuracy.md counts them; for the categories of
 * OUT_OF_SAMPLE_BANDS, over the out-of-sample measurements only. The core
 * attaches the range to every total of that kind ("measured cases like
 * this: -3% to +8%, 14 cases").
 */
export function accuracyData(rows) {
  const out = {};
  for (const category of [...new Set(rows.map((r) => r.category))].sort()) {
    const held = OUT_OF_SAMPLE_BANDS.has(category);
    const kept = rows.filter((r) => r.category === category && !r.gap && !(held && r.inSample));
    if (kept.length === 0) continue;
    const errors = kept.map((r) => r.error);
    const round = (x) => Math.round(x * 10) / 10;
    out[category] = {
      low_pct: round(Math.min(...errors)),
      high_pct: round(Math.max(...errors)),
      median_abs_pct: round(median(errors.map(Math.abs))),
      cases: new Set(kept.map((r) => r.id)).size,
      measurements: kept.length,
    };
    // The terms these measurements checked: an answer with a term outside
    // them is shown with a wider band (core: answer/terms_section.cpp). A
    // speed's band is not about memory: no terms.
    if (category !== 'speed') out[category].terms = [...new Set(kept.flatMap((r) => r.terms))].sort();
  }
  return out;
}
