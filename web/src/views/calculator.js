// The calculator's answer: the total, the fit against the chosen card, a
// stacked bar, every term with its formula and inputs ("show the math"),
// decode ceilings, the inverse answers, warnings and assumptions. Described
// anew on every change and patched in place (dom.js patch): the elements,
// the focus, a table's scroll and which <details> are open survive it.
import { assign, h, patch } from '../dom.js';
import { BYTES_PER_GB, BYTES_PER_GIB, roundDisplay, roundToTotal } from '../format.js';
import { CUSTOM, IMPORTED, estimateRequest } from '../state.js';
import { fitSummary, headlineGb, measuredRange, splitCards } from './answer-bar.js';
import { stackedBar } from './bar.js';
import { bdi, compute, said, dataTable, errorBox, facts, lazyDetails, modelName, nameOf, sayQuoted } from './common.js';
import { rentLink } from './rent-link.js';

// Decimal GB from the core, as the bytes the renderer's gb styles take.
const bytes = (gb) => gb * BYTES_PER_GB;
// A ceiling is shown whole ({value:int}); its plural form (Arabic's 13
// "رمزًا" against 13.4 "رمز") must follow the number shown, not the
// unrounded one the renderer would pick it from.
const tps = (t, value) => t('decode.tps', { value: roundDisplay(value, 0) });
// An expected figure, "≈", beside the ceiling's "≤".
const approx = (t, value) => t('decode.approx', { value });
const seconds = (t, value) => (value == null ? '–' : t('decode.seconds', { value: roundDisplay(value, 2) }));

// The kind of answer a measured error covers (data/accuracy.json's categories), in words.
const KINDS = { inference: 'measured.inference', 'finetune-device': 'measured.finetune' };

/**
 * A term's inputs as the formula's <details> lists them: each key worded
 * (termInput.<key>), numbers in the page's digits, ids through their
 * messages or the catalog's names, nested lists and objects as nested facts.
 */
function inputFacts(t, catalog, inputs) {
  return facts(t, Object.entries(inputs || {}).map(([key, value]) => [t(`termInput.${key}`), inputValue(t, catalog, key, value)]));
}

function inputValue(t, catalog, key, value) {
  if (typeof value === 'number') return t.figure(value);
  if (typeof value === 'boolean') return t(value ? 'word.on' : 'word.off');
  if (Array.isArray(value)) {
    if (value.every((v) => v === null || typeof v !== 'object')) return value.map((v) => inputValue(t, catalog, key, v)).join(t('list.sep'));
    return h('ol', { class: 'input-list' }, value.map((v) => h('li', {}, inputValue(t, catalog, key, v))));
  }
  if (value && typeof value === 'object') return inputFacts(t, catalog, value);
  switch (key) {
    case 'format': return nameOf(catalog.weight_formats, value);
    case 'kv_format': return nameOf(catalog.kv_formats, value);
    case 'optimizer': return t(`optimizer.${value}`);
    // A part of ours ("experts") in words; a checkpoint's tensor type ("Q4_K") as it is named.
    case 'component': return t.has(`part.${value}`) ? t(`part.${value}`) : value;
    case 'kind': return t(`overheadKind.${value}`);
    default: return value;  // LoRA target modules: the model's own tensor names
  }
}

export class CalculatorView {
  /** ctx: { t, core, catalog, open (a Set of open <details> keys), emit(result, error) } */
  constructor(ctx) {
    this.ctx = ctx;
    this.key = null;
    this.live = h('p', { class: 'visually-hidden', 'aria-live': 'polite' });
    this.body = h('div', { class: 'results' });
    this.element = h('div', { class: 'view' }, this.live, this.body);
  }

  update(state, catalog) {
    const request = estimateRequest(state, catalog, this.ctx.catalog);
    const { t } = this.ctx;
    const key = JSON.stringify([request, t.lang, t.digits, state.unit]);
    if (key === this.key) return;
    this.key = key;
    const { result, error } = compute(this.ctx.core, 'estimate', request);
    if (error) {
      this.body.replaceChildren(errorBox(t, error));
      this.live.textContent = '';
      this.ctx.emit(null, error);
      return;
    }
    // Patched, not rebuilt: what the answer shares with the last one stays.
    patch(this.body, () => this.render(result, state));
    this.ctx.emit(result);
  }

  /** A lazily built <details> whose open state (ctx.open) survives a change. */
  details(key, summary, content, attrs = {}) {
    return lazyDetails(this.ctx.open, key, summary, content, attrs);
  }

  /**
   * The cheapest way to hold the answer on each card of the catalog (count,
   * price, spare, tight, decode ceiling of that set): five, then the rest.
   */
  cheapest(fits, state, result) {
    const { t } = this.ctx;
    const training = state.mode !== 'inference';
    const speed = !training && fits.some((f) => f.decode_expected_tokens_per_s != null);
    const head = ['fits.card', 'fits.monthly', 'fits.spare', ...(speed ? ['fits.expected', 'fits.ttft', 'fits.decode'] : [])].map((k) => t(k));
    const say = this.ctx.say(state.unit);
    const row = (f) => h('tr', { dataset: { gpu: f.gpu, offload: String(Boolean(f.offload)) } },
      h('th', { scope: 'row' }, said(t, t('fits.cardName', { count: f.count, name: f.name })), f.tight ? [' ', h('span', { class: 'tag' }, t('fits.tight'))] : null,
        // llama.cpp with the rest in host RAM: where it goes and how much.
        // The flags as one left-to-right run that never wraps (as the command writes them).
        f.offload ? h('span', { class: 'muted small offload-tag' }, say(f.offload.label), ' ', h('code', { dir: 'ltr' }, say(f.offload.flags))) : null,
        rentLink(this.ctx, { gpu: f.gpu, count: f.count, name: f.name, monthly_usd: f.monthly_usd ?? null }, 'cards')),
      h('td', { class: 'num' }, said(t, t('size.usd', { usd: f.monthly_usd }))),
      h('td', { class: 'num' }, said(t, t('size.gb', { bytes: bytes(f.spare_gb) }))),
      speed ? [
        h('td', { class: 'num' }, said(t, approx(t, f.decode_expected_tokens_per_s))),
        h('td', { class: 'num' }, said(t, seconds(t, f.ttft_s))),
        h('td', { class: 'num' }, said(t, tps(t, f.decode_tokens_per_s))),
      ] : null);
    const table = (list, title) => dataTable(title, null, head, list.map(row), { class: 'fits' }, t('table.scrollCue'));
    const below = (!training && result.below_floor) || [];
    const floor = below.length ? below[0].reason.params.floor : null;
    return h('section', { class: 'block cheapest' }, h('h3', {}, t('fits.title')),
      // None at the floor is not none at all: the sets that hold it are listed under it.
      fits.length ? table(fits.slice(0, 5), t('fits.title')) : h('p', { class: 'fits-none' }, below.length ? t('fits.noneAtFloor', { floor }) : t('fits.none')),
      fits.length > 5 ? this.details('fits-all', t('fits.all', { count: fits.length - 5 }), () => table(fits.slice(5), t('fits.title'))) : null,
      h('p', { class: 'muted small' }, t('fits.note')),
      fits.some((f) => f.offload) ? h('p', { class: 'muted small' }, t('fits.offloadNote')) : null,
      below.length ? h('div', { class: 'below-floor' },
        h('h4', {}, t('floor.title', { floor })),
        h('ul', {}, below.map((f) => h('li', { dataset: { gpu: f.gpu } }, say(f.reason)))),
        h('p', { class: 'muted small' }, t('floor.note'))) : null);
  }

  render(result, state, catalogIgnored) {
    const { t, catalog } = this.ctx;
    // The core's messages (term labels, formulas, notes, assumptions, warnings) in words.
    const say = this.ctx.say(state.unit);
    const mem = (value) => t('size.gb', { bytes: bytes(value) });
    // Room left for the KV cache: a shortfall is said as one, never as a negative size.
    const room = (value) => (value < 0 ? t('serving.noRoom', { short: bytes(-value) }) : mem(value));
    const training = state.mode !== 'inference';
    const fit = result.fit;
    const summary = fitSummary(t, result);
    // The terms as shown add up to the total as shown (format.js roundToTotal),
    // in the display unit, at the table's one decimal.
    const perUnit = state.unit === 'GiB' ? BYTES_PER_GIB / BYTES_PER_GB : 1;
    const shown = roundToTotal(result.terms.map((term) => term.gb / perUnit), result.total_gb / perUnit, 1);
    const terms = result.terms.map((term, i) => ({
      ...term, label: say(term.label), formula: term.formula && say(term.formula), shownGb: shown[i] * perUnit,
    }));
    const out = [];

    const serving = result.serving;
    const multi = Boolean(serving && serving.gpus > 1);
    const totalText = t('size.gb0', { bytes: bytes(headlineGb(result)) });
    out.push(h('div', { class: 'total' },
      h('span', { class: 'total-label' }, t(training ? 'result.totalTraining' : 'result.totalLabel')),
      h('output', { class: 'total-value' }, said(t, totalText)),
      multi ? h('span', { class: 'muted total-per-gpu' }, said(t, t('serving.headline', { bytes: bytes(serving.per_gpu_gb), count: serving.gpus }))) : null));
    const measured = result.measured_error;
    if (measured) {
      const range = measuredRange(t, measured);
      out.push(this.details('measured', t('result.measured', { ...range, cases: measured.cases }), () => h('div', {},
        h('p', {}, t('result.measuredWhat', {
          kind: KINDS[measured.category] ? { id: KINDS[measured.category], params: {} } : measured.category,
          median: measured.median_abs_pct,
        })),
        // Terms no measured case checked widen the range (the core says which).
        measured.outside ? h('p', { class: 'measured-outside' }, sayQuoted(say, measured.note)) : null,
      ), { class: 'measured small', dataset: { category: measured.category, outside: String(Boolean(measured.outside)) } }));
    }
    const params = result.params_active < result.params_total
      ? { id: 'result.paramsActive', params: { total: result.params_total, active: result.params_active } }
      : { id: 'result.params', params: { total: result.params_total } };
    const shownName = state.model === CUSTOM ? t('model.customName') : result.model && modelName(t, this.ctx.catalog.models, state.model, result.model.name);
    out.push(h('p', { class: 'muted' }, shownName ? t('result.modelLine', { model: shownName, params }) : t(params.id, params.params)));
    // What the importer noticed about this model (vendor counting conventions,
    // layers the checkpoint holds but inference skips): core text, as text.
    const notes = (result.model && result.model.notes) || [];
    if (notes.length) out.push(h('ul', { class: 'muted small model-notes' }, notes.map((note) => h('li', {}, sayQuoted(say, note)))));
    if (result.adapter_params) out.push(h('p', { class: 'muted' }, t('result.adapter', { params: result.adapter_params })));

    const fitText = summary ? summary.text : '';
    if (summary) {
      out.push(h('p', { class: `fit ${summary.state}`, dataset: { fits: String(summary.fits), tight: String(Boolean(summary.tight)), offload: String(Boolean(summary.offload)) } },
        h('strong', {}, fitText), fit ? [' ', h('span', { class: 'muted' }, t('fit.basis', { basis: fit.basis }))] : null));
    }
    assign(this.live, 'textContent', fitText ? t('result.live', { total: totalText, fit: fitText }) : totalText);
    // The terms are one card's: against one card's share of the capacity.
    out.push(stackedBar(t, terms, result.total_gb, fit ? (multi ? fit.capacity_gb / serving.gpus : fit.capacity_gb) : 0));

    if ((result.fits && result.fits.length) || (result.below_floor && result.below_floor.length)) out.push(this.cheapest(result.fits || [], state, result));
    else if (result.fits) out.push(h('p', { class: 'muted' }, t('fits.none')));

    const rows = terms.map((term) =>
      h('tr', { dataset: { term: term.id } },
        h('th', { scope: 'row' }, term.label),
        h('td', { class: 'num' }, said(t, mem(term.shownGb))),
        // Formulas read in the page's direction; their numbers and names are isolated.
        h('td', { class: 'formula' }, term.formula
          ? this.details(`term-${term.id}`, term.formula, () => inputFacts(t, catalog, term.inputs))
          : null),
      ),
    );
    out.push(h('div', { class: 'scroll', role: 'region', tabindex: 0, 'aria-label': t('result.terms') },
      h('table', { class: 'terms' },
        h('caption', {}, t('result.terms')),
        h('thead', {}, h('tr', {}, ['result.term', 'result.size', 'result.formula'].map((k) => h('th', { scope: 'col' }, t(k))))),
        h('tbody', {}, rows),
        h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, t('result.total')), h('td', { class: 'num' }, said(t, mem(result.total_gb))), h('td'))),
      )));

    const extra = [];
    if (result.kv_bytes_per_token) extra.push([t('result.kvPerTokenLabel'), t('result.bytes', { bytes: result.kv_bytes_per_token })]);
    if (result.host_gb) extra.push([t('result.host'), mem(result.host_gb)]);
    if (result.host_ram_gb) extra.push([t('result.hostRam'), mem(result.host_ram_gb)]);
    // Fine-tuning: the total is what the device holds; the allocator's own peak beside it.
    if (result.total_basis === 'device') {
      extra.push([t('result.allocatorPeak'), mem(result.allocator_peak_gb)]);
      extra.push([t('result.allocatorReserved'), mem(result.allocator_reserved_gb)]);
    }
    if (extra.length) out.push(facts(t, extra));

    const b = result.budget;
    if (b) {
      out.push(h('section', { class: 'block' }, h('h3', {}, t('budget.title', { engine: result.engine.label })), facts(t, [
        [t('budget.usable'), t('budget.gib', { gib: b.usable_gib })],
        [t('budget.reserved'), mem(b.reserved_gb)],
        [t('budget.kv'), room(b.kv_budget_gb)],
        [t('budget.blocks'), t.format(b.kv_blocks)],
        [t('budget.tokens'), t.format(b.kv_tokens)],
        [t('budget.concurrency'), t.format(b.max_concurrency, 2)],
      ])));
    }

    if (serving) {
      // With a partial offload, the plan's figures are those of every layer on the GPU.
      const verdict = { id: serving.fits ? 'serving.fit' : serving.offload?.fits ? 'serving.offloadFit' : 'serving.short', params: {} };
      out.push(h('section', { class: 'block serving', dataset: { fits: String(serving.fits) } },
        h('h3', {}, t('serving.title', { count: serving.gpus, name: result.gpu.name })), facts(t, [
          [t('serving.layout'), say(serving.layout)],
          [t('serving.moeLayout'), serving.moe_layout ? say(serving.moe_layout.label) : null],
          [t('serving.perGpu'), mem(serving.per_gpu_gb)],
          [t('serving.total'), mem(serving.total_gb)],
          [t('serving.kvPerGpu'), room(serving.kv_budget_gb)],
          [t('serving.kvTotal'), room(serving.kv_budget_total_gb)],
          [t('serving.users'), t('serving.usersValue', { max_users: serving.max_users, users: serving.users, verdict })],
          [t('serving.cardsNeeded'), serving.cards_needed ? t.format(serving.cards_needed) : t('serving.noCount', { max: serving.cards_searched })],
        ]), serving.kv_heads_replicated ? h('p', { class: 'muted small' }, t('serving.replicated')) : null,
        serving.offload ? h('p', { class: 'muted small' }, t('serving.allOnGpu')) : null));
      if (serving.offload) out.push(offloadBlock(t, mem, serving.offload));
    }

    if (result.split) out.push(splitBlock(t, mem, result.split));

    if (result.launch) out.push(launchBlock(t, say, launchForFile(result.launch, state), training));

    const d = result.decode;
    if (d) {
      const p = result.prefill;
      const met = d.meets_floor;
      out.push(h('section', { class: 'block decode' }, h('h3', {}, t('decode.title')), facts(t, [
        [t('decode.expected'), approx(t, d.expected_tokens_per_s)],
        [t('decode.expectedBatch', { batch: state.batch }), approx(t, d.expected_batch_tokens_per_s)],
        [t('decode.ttft', { tokens: p ? p.prompt_tokens : state.context }), p && p.known ? seconds(t, p.ttft_s) : t('decode.ttftNone')],
        [t('decode.floor'), t('decode.floorValue', { floor: d.min_tokens_per_s, verdict: { id: met ? 'decode.floorMet' : 'decode.floorMissed' } })],
      ]), this.details('decode-ceilings', t('decode.ceilings'), () => h('div', {}, facts(t, [
        [t('decode.guide'), tps(t, d.guide_tokens_per_s)],
        [t('decode.stream'), tps(t, d.stream_tokens_per_s)],
        [t('decode.batch', { batch: state.batch }), tps(t, d.batch_tokens_per_s)],
        [t('decode.bandwidth'), t('decode.gbps', { rate: { id: 'size.gbps', params: { gbps: d.bandwidth_gbps } }, gpus: d.gpus || 1 })],
      ]), h('p', { class: 'small' }, t(d.step_ms.quant > 0 ? 'decode.step_quant' : 'decode.step', { ...d.step_ms, compute: d.step_ms.compute ?? 0 })),
      h('p', { class: 'muted small' }, t('decode.note')))),
      h('p', { class: 'muted small' }, t('decode.noteExpected'))));
    }

    const inv = result.inverse;
    if (inv) {
      const pairs = [];
      if (inv.max_context !== undefined) {
        pairs.push([t('inverse.context'), inv.max_context > 0
          ? t(inv.context_limited_by_model ? 'inverse.contextModel' : 'inverse.tokens', { tokens: inv.max_context })
          : t('inverse.nothing')]);
      }
      if (inv.max_batch !== undefined) pairs.push([t('inverse.batch', { context: state.context }), inv.max_batch > 0 ? t.format(inv.max_batch) : t('inverse.nothing')]);
      if (inv.max_seq !== undefined) pairs.push([t('inverse.seq'), inv.max_seq > 0 ? t('inverse.tokens', { tokens: inv.max_seq }) : t('inverse.nothing')]);
      if (inv.max_micro_batch !== undefined) pairs.push([t('inverse.micro'), inv.max_micro_batch > 0 ? t.format(inv.max_micro_batch) : t('inverse.nothing')]);
      const formatName = (id) => nameOf(catalog.weight_formats, id);
      if ('best_format' in inv) pairs.push([t('inverse.format'), inv.best_format ? formatName(inv.best_format) : t('inverse.nothing')]);
      out.push(h('section', { class: 'block' }, h('h3', {}, t('inverse.title', { capacity: bytes(inv.budget_gb) })), facts(t, pairs),
        inv.formats ? this.details('formats', t('inverse.formats'), () => dataTable(t('inverse.formats'), null,
          ['inverse.formatCol', 'result.total', 'inverse.fitsCol'].map((k) => t(k)),
          inv.formats.map((f) => h('tr', {},
            h('th', { scope: 'row' }, bdi(formatName(f.format))),
            h('td', { class: 'num' }, said(t, t('size.gb0', { bytes: bytes(f.total_gb) }))),
            h('td', {}, t(!f.supported ? 'inverse.unsupported' : f.fits ? 'inverse.yes' : 'inverse.no')))))) : null));
    }

    if (result.warnings.length) {
      out.push(h('div', { class: 'warnings', role: 'note' }, h('h3', {}, t('result.warnings')), h('ul', {}, result.warnings.map((w) => h('li', {}, sayQuoted(say, w))))));
    }
    out.push(this.details('assumptions', t('result.assumptions'), () => h('ul', {}, result.assumptions.map((a) => h('li', {}, sayQuoted(say, a))))));
    return out;
  }
}

// llama.cpp's partial offload: what stays on the GPU, what the host holds
// and reads, and the speed that follows (the core's serving.offload).
function offloadBlock(t, mem, o) {
  const d = o.decode;
  const rows = [
    [t(o.placement === 'user' ? 'offload.placementUser' : 'offload.placementAuto'), t(o.flags.id, o.flags.params)],
    [t('offload.gpuLayers'), t('offload.layersValue', { gpu_layers: o.gpu_layers, layers: o.layers })],
  ];
  if (o.n_cpu_moe > 0) rows.push([t('offload.expertsLabel'), t('offload.expertsValue', { n_cpu_moe: Math.min(o.n_cpu_moe, o.layers), layers: o.layers })]);
  rows.push(
    [t('serving.perGpu'), mem(o.per_gpu_gb)],
    [t('offload.hostRam'), t('offload.hostValue', { host: bytes(o.host_gb), weights: bytes(o.host_weights_gb), kv: bytes(o.host_kv_gb), compute: bytes(o.host_compute_gb) })],
  );
  // Speed only for a placement that fits (the headline above names what would).
  if (d) {
    rows.push(
      [t('decode.expected'), approx(t, d.expected_tokens_per_s)],
      [t('decode.floor'), t('decode.floorValue', { floor: d.min_tokens_per_s, verdict: { id: d.meets_floor ? 'decode.floorMet' : 'decode.floorMissed' } })],
    );
  }
  return h('section', { class: 'block offload', dataset: { kind: o.kind, placement: o.placement, fits: String(o.fits) } },
    h('h3', {}, t('offload.title')),
    facts(t, rows),
    d ? h('p', { class: 'muted small' }, t('offload.step', d.step_ms)) : null);
}

// llama.cpp over unequal cards: each card's run of layers and buffers, in
// CUDA order, the --tensor-split that places them and the most context
// they hold (the core's split).
function splitBlock(t, mem, split) {
  const head = ['mixed.card', 'mixed.layers', 'mixed.weights', 'mixed.kv', 'mixed.buffers', 'mixed.used'].map((k) => t(k));
  const rows = split.cards.map((c) => h('tr', { dataset: { gpu: c.gpu, fits: String(c.fits) } },
    h('th', { scope: 'row' }, said(t, t('mixed.cardName', { device: `CUDA${c.device}`, name: c.name }))),
    h('td', {}, said(t, t(c.output ? 'mixed.layersOutput' : 'mixed.layersValue', { first: c.first_layer, last: c.first_layer + c.layers - 1, count: c.layers }))),
    h('td', { class: 'num' }, said(t, mem(c.weights_gb))),
    h('td', { class: 'num' }, said(t, mem(c.kv_gb))),
    h('td', { class: 'num' }, said(t, mem(c.compute_gb + c.context_gb))),
    h('td', { class: 'num' }, said(t, t('mixed.usedValue', { used: bytes(c.total_gb), capacity: bytes(c.capacity_gb) })))));
  return h('section', { class: 'block split', dataset: { fits: String(split.fits) } },
    h('h3', {}, t('mixed.title', { cards: splitCards(split) })),
    dataTable(t('mixed.title', { cards: splitCards(split) }), null, head, rows, { class: 'split-table' }, t('table.scrollCue')),
    facts(t, [
      [t('mixed.tensorSplit'), h('code', { dir: 'ltr' }, `--tensor-split ${split.tensor_split.join(',')}`)],
      [t('mixed.maxContext'), t('inverse.tokens', { tokens: split.max_context })],
      [t('mixed.decode'), tps(t, split.decode_tokens_per_s)],
    ]));
}

/**
 * The launch with an imported file's own name where the core writes its
 * placeholder (`-m MODEL.gguf`): a GGUF's file name where the engine reads
 * a GGUF, a Hub id where it reads a repository. Quoted for the shell where
 * the name needs it.
 */
export function launchForFile(launch, state) {
  const file = state.model === IMPORTED ? state.file : '';
  const placeholder = launch.model;
  if (!file || typeof placeholder !== 'string' || /\.gguf$/i.test(file) !== /\.gguf$/i.test(placeholder)) return launch;
  const word = /^[\w./+-]+$/.test(file) ? file : `'${file.replace(/'/g, "'\\''")}'`;
  const at = launch.command.indexOf(` ${placeholder}`);
  if (at < 0) return launch;
  const command = `${launch.command.slice(0, at + 1)}${word}${launch.command.slice(at + 1 + placeholder.length)}`;
  return { ...launch, command, model: file };
}

// The command that starts the plan under its engine, with a Copy button;
// without a clipboard (file://, permissions) the command is selected for Ctrl+C.
// Other programs that run the same plan (Ollama over llama.cpp) follow, each
// with its own heading and button. A fine-tuning plan is Python calls, then
// the launcher for several GPUs, then what the calls cannot say.
function launchBlock(t, say, launch, training) {
  const also = (launch.also || []).map((other) =>
    h('div', { class: 'launch-also', dataset: { engine: other.engine } },
      h('h4', {}, t('launch.also', { name: other.name })),
      ...commandParts(t, say, other),
      (other.notes || []).length ? h('ul', { class: 'small launch-notes' }, other.notes.map((note) => h('li', {}, sayQuoted(say, note)))) : null));
  const launcher = launch.launcher
    ? h('div', { class: 'launch-launcher' },
      h('h4', {}, t('launch.launcher', { count: launch.launcher_gpus })),
      ...commandParts(t, say, { command: launch.launcher }))
    : null;
  const notes = (launch.notes || []).length
    ? h('ul', { class: 'small launch-notes' }, launch.notes.map((note) => h('li', {}, sayQuoted(say, note))))
    : null;
  // A second model's server on the same card, on its own port.
  const companion = launch.companion
    ? h('div', { class: 'launch-companion', dataset: { engine: launch.companion.engine } },
      h('h4', {}, t('launch.companion')),
      ...commandParts(t, say, launch.companion))
    : null;
  return h('section', { class: 'block launch', dataset: { engine: launch.engine } },
    h('h3', {}, t(training ? 'launch.training_title' : 'launch.title')),
    ...commandParts(t, say, launch),
    notes,
    launcher,
    companion,
    ...also);
}

function commandParts(t, say, launch) {
  // The button's own paragraph holds the status; the <pre> before it, the command.
  const copy = async (event) => {
    const status = event.currentTarget.parentElement.querySelector('.launch-status');
    const code = event.currentTarget.parentElement.previousElementSibling.querySelector('code');
    try {
      await navigator.clipboard.writeText(launch.command);
      status.textContent = t('launch.copied');
    } catch {
      const range = document.createRange();
      range.selectNodeContents(code);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      status.textContent = t('launch.manual');
    }
  };
  return [
    h('pre', { dir: 'ltr' }, h('code', { class: 'launch-command', dir: 'ltr', lang: 'en' }, launch.command)),
    h('p', {}, h('button', { type: 'button', class: 'launch-copy', onclick: copy }, t('launch.copy')), ' ', h('span', { class: 'muted small launch-status', role: 'status' })),
    // Where the flags were read: a citation, quoted as written (lang=en).
    launch.version ? h('p', { class: 'muted small' }, sayQuoted(say, { id: 'launch.source', params: { version: { id: 'quote.text', params: { text: launch.version } } } })) : null,
  ];
}
