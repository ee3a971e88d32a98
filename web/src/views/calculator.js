// The calculator's answer: the total, the fit against the chosen card, a
// stacked bar, every term with its formula and inputs ("show the math"),
// decode ceilings, the inverse answers, warnings and assumptions. Rebuilt on
// every change; which <details> are open survives the rebuild.
import { h } from '../dom.js';
import { formatMemory, formatNumber, formatUsd } from '../format.js';
import { estimateRequest } from '../state.js';
import { fitSummary } from './answer-bar.js';
import { stackedBar } from './bar.js';
import { bdi, compute, dataTable, errorBox, facts } from './common.js';
import { rentLink } from './rent-link.js';

function inputText(value) {
  if (typeof value === 'number') return formatNumber(value, Number.isInteger(value) ? 0 : 4);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export class CalculatorView {
  /** ctx: { t, core, catalog, emit(result) } */
  constructor(ctx) {
    this.ctx = ctx;
    this.open = new Set();
    this.key = null;
    this.live = h('p', { class: 'visually-hidden', 'aria-live': 'polite' });
    this.body = h('div', { class: 'results' });
    this.element = h('div', { class: 'view' }, this.live, this.body);
    this.body.addEventListener('toggle', (event) => {
      const key = event.target.dataset && event.target.dataset.key;
      if (key) event.target.open ? this.open.add(key) : this.open.delete(key);
    }, true);
  }

  update(state, catalog) {
    const request = estimateRequest(state, catalog);
    const key = JSON.stringify([request, state.unit]);
    if (key === this.key) return;
    this.key = key;
    const { result, error, catalogIgnored } = compute(this.ctx.core, 'estimate', request);
    const { t } = this.ctx;
    if (error) {
      // Fine-tuning arrives in a later core: say so instead of naming a field.
      const missing = error.code === 'unknown_field' && state.mode !== 'inference';
      this.body.replaceChildren(missing ? h('p', { class: 'notice unavailable', role: 'alert' }, t('error.unavailable', { method: t(`mode.${state.mode}`) })) : errorBox(t, error, 'calculator'));
      this.live.textContent = '';
      this.ctx.emit(null);
      return;
    }
    this.body.replaceChildren(...this.render(result, state, catalogIgnored));
    this.ctx.emit(result);
  }

  /**
   * A <details> whose content is built only when it is open: most stay
   * closed, and every keystroke rebuilds the answer.
   */
  details(key, summary, content) {
    const open = this.open.has(key);
    const el = h('details', { dataset: { key }, open }, h('summary', {}, summary), open ? content() : null);
    if (!open) el.addEventListener('toggle', () => el.open && el.childElementCount === 1 && el.append(content()), { once: true });
    return el;
  }

  /**
   * The cheapest way to hold the answer on each card of the catalog (count,
   * price, spare, tight, decode ceiling of that set): five, then the rest.
   */
  cheapest(fits, state, mem) {
    const { t } = this.ctx;
    const training = state.mode !== 'inference';
    const head = ['fits.card', 'fits.monthly', 'fits.spare', ...(training ? [] : ['fits.decode'])].map((k) => t(k));
    const row = (f) => h('tr', { dataset: { gpu: f.gpu } },
      h('th', { scope: 'row' }, t('fits.cardName', { count: f.count, name: f.name }), f.tight ? [' ', h('span', { class: 'tag' }, t('fits.tight'))] : null,
        rentLink(this.ctx, { gpu: f.gpu, count: f.count, name: f.name, monthly_usd: f.monthly_usd ?? null }, 'cards')),
      h('td', { class: 'num' }, bdi(formatUsd(f.monthly_usd))),
      h('td', { class: 'num' }, bdi(mem(f.spare_gb))),
      training ? null : h('td', { class: 'num' }, bdi(t('decode.tps', { value: formatNumber(f.decode_tokens_per_s) }))));
    const table = (list) => dataTable(t('fits.title'), null, head, list.map(row), { class: 'fits' }, t('table.scrollCue'));
    return h('section', { class: 'block' }, h('h3', {}, t('fits.title')), table(fits.slice(0, 5)),
      fits.length > 5 ? this.details('fits-all', t('fits.all', { count: fits.length }), () => table(fits.slice(5))) : null,
      h('p', { class: 'muted small' }, t('fits.note')));
  }

  termLabel(term) {
    const key = `term.${term.id}`;
    const text = this.ctx.t(key);
    return text === key ? term.label : text;
  }

  render(result, state, catalogIgnored) {
    const { t, catalog } = this.ctx;
    const unit = state.unit;
    const mem = (gb, decimals = 1) => formatMemory(gb, unit, decimals);
    const training = state.mode !== 'inference';
    const total = mem(result.total_gb, 0);
    const fit = result.fit;
    const summary = fitSummary(t, result, unit);
    const terms = result.terms.map((term) => ({ ...term, label: this.termLabel(term) }));
    const out = [];

    if (catalogIgnored) out.push(h('p', { class: 'notice' }, t('catalog.ignored', { method: t('view.calculator') })));
    out.push(h('div', { class: 'total' },
      h('span', { class: 'total-label' }, t(training ? 'result.totalTraining' : 'result.totalLabel')),
      h('output', { class: 'total-value' }, bdi(total))));
    const params = result.params_active < result.params_total
      ? t('result.paramsActive', { total: formatNumber(result.params_total), active: formatNumber(result.params_active) })
      : t('result.params', { total: formatNumber(result.params_total) });
    out.push(h('p', { class: 'muted' }, result.model && result.model.name ? `${result.model.name}: ${params}` : params));
    // What the importer noticed about this model (vendor counting conventions,
    // layers the checkpoint holds but inference skips): core text, as text.
    const notes = (result.model && result.model.notes) || [];
    if (notes.length) out.push(h('ul', { class: 'muted small model-notes' }, notes.map((note) => h('li', { dir: 'auto' }, note))));
    if (result.adapter_params) out.push(h('p', { class: 'muted' }, t('result.adapter', { params: formatNumber(result.adapter_params) })));

    const fitText = summary ? summary.text : '';
    if (summary) {
      out.push(h('p', { class: `fit ${summary.state}`, dataset: { fits: String(summary.fits), tight: String(Boolean(summary.tight)) } },
        h('strong', {}, fitText), ' ', h('span', { class: 'muted' }, t('fit.basis', { basis: fit.basis }))));
    }
    this.live.textContent = fitText ? `${total}. ${fitText}` : total;
    out.push(stackedBar(t, terms, result.total_gb, fit ? fit.capacity_gb : 0, unit));

    if (result.fits && result.fits.length) out.push(this.cheapest(result.fits, state, mem));
    else if (result.fits) out.push(h('p', { class: 'muted' }, t('fits.none')));

    const rows = terms.map((term) =>
      h('tr', { dataset: { term: term.id } },
        h('th', { scope: 'row' }, term.label),
        h('td', { class: 'num' }, bdi(mem(term.gb))),
        h('td', { class: 'formula', dir: 'ltr' }, term.formula
          ? this.details(`term-${term.id}`, term.formula, () => facts(Object.entries(term.inputs || {}).map(([k, v]) => [k, inputText(v)])))
          : null),
      ),
    );
    out.push(h('div', { class: 'scroll', role: 'region', tabindex: 0, 'aria-label': t('result.terms') },
      h('table', { class: 'terms' },
        h('caption', {}, t('result.terms')),
        h('thead', {}, h('tr', {}, ['result.term', 'result.size', 'result.formula'].map((k) => h('th', { scope: 'col' }, t(k))))),
        h('tbody', {}, rows),
        h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, t('result.total')), h('td', { class: 'num' }, bdi(mem(result.total_gb))), h('td'))),
      )));

    const extra = [];
    if (result.kv_bytes_per_token) extra.push([t('result.kvPerTokenLabel'), t('result.bytes', { bytes: formatNumber(result.kv_bytes_per_token) })]);
    if (result.host_gb) extra.push([t('result.host'), mem(result.host_gb)]);
    if (result.host_ram_gb) extra.push([t('result.hostRam'), mem(result.host_ram_gb)]);
    if (extra.length) out.push(facts(extra));

    const b = result.budget;
    if (b) {
      out.push(h('section', { class: 'block' }, h('h3', {}, t('budget.title', { engine: result.engine.name })), facts([
        [t('budget.usable'), t('budget.gib', { gib: formatNumber(b.usable_gib, 2) })],
        [t('budget.reserved'), mem(b.reserved_gb)],
        [t('budget.kv'), mem(b.kv_budget_gb)],
        [t('budget.blocks'), formatNumber(b.kv_blocks)],
        [t('budget.tokens'), formatNumber(b.kv_tokens)],
        [t('budget.concurrency'), formatNumber(b.max_concurrency, 2)],
      ])));
    }

    const d = result.decode;
    if (d) {
      const tps = (v) => t('decode.tps', { value: formatNumber(v) });
      out.push(h('section', { class: 'block' }, h('h3', {}, t('decode.title')), facts([
        [t('decode.guide'), tps(d.guide_tokens_per_s)],
        [t('decode.stream'), tps(d.stream_tokens_per_s)],
        [t('decode.batch', { batch: state.batch }), tps(d.batch_tokens_per_s)],
        [t('decode.bandwidth'), t('decode.gbps', { value: formatNumber(d.bandwidth_gbps), gpus: d.gpus || 1 })],
      ]), h('p', { class: 'muted small' }, t('decode.note'))));
    }

    const inv = result.inverse;
    if (inv) {
      const pairs = [];
      if (inv.max_context !== undefined) {
        pairs.push([t('inverse.context'), inv.max_context > 0
          ? t(inv.context_limited_by_model ? 'inverse.contextModel' : 'inverse.tokens', { tokens: formatNumber(inv.max_context) })
          : t('inverse.nothing')]);
      }
      if (inv.max_batch !== undefined) pairs.push([t('inverse.batch', { context: formatNumber(state.context) }), inv.max_batch > 0 ? formatNumber(inv.max_batch) : t('inverse.nothing')]);
      if (inv.max_seq !== undefined) pairs.push([t('inverse.seq'), inv.max_seq > 0 ? t('inverse.tokens', { tokens: formatNumber(inv.max_seq) }) : t('inverse.nothing')]);
      if (inv.max_micro_batch !== undefined) pairs.push([t('inverse.micro'), inv.max_micro_batch > 0 ? formatNumber(inv.max_micro_batch) : t('inverse.nothing')]);
      const formatName = (id) => (catalog.weight_formats.find((f) => f.id === id) || { name: id }).name;
      if ('best_format' in inv) pairs.push([t('inverse.format'), inv.best_format ? formatName(inv.best_format) : t('inverse.nothing')]);
      out.push(h('section', { class: 'block' }, h('h3', {}, t('inverse.title', { capacity: mem(inv.budget_gb, 0) })), facts(pairs),
        inv.formats ? this.details('formats', t('inverse.formats'), () => h('div', { class: 'scroll', role: 'region', tabindex: 0, 'aria-label': t('inverse.formats') },
          h('table', {},
            h('thead', {}, h('tr', {}, ['inverse.formatCol', 'result.total', 'inverse.fitsCol'].map((k) => h('th', { scope: 'col' }, t(k))))),
            h('tbody', {}, inv.formats.map((f) => h('tr', {},
              h('th', { scope: 'row' }, formatName(f.format)),
              h('td', { class: 'num' }, bdi(mem(f.total_gb, 0))),
              h('td', {}, t(!f.supported ? 'inverse.unsupported' : f.fits ? 'inverse.yes' : 'inverse.no')))))))) : null));
    }

    if (result.warnings.length) {
      out.push(h('div', { class: 'warnings', role: 'note' }, h('h3', {}, t('result.warnings')), h('ul', {}, result.warnings.map((w) => h('li', { dir: 'auto' }, w)))));
    }
    out.push(this.details('assumptions', t('result.assumptions'), () => h('ul', {}, result.assumptions.map((a) => h('li', { dir: 'auto' }, a.text)))));
    return out;
  }
}
