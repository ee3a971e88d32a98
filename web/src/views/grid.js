// The lookup grid (SPEC section 3): the guide's shapes by method, each cell
// the memory needed and the cheapest card or set that holds it, with the
// rules that excluded cheaper-looking ones.
import { h } from '../dom.js';
import { BYTES_PER_GB } from '../format.js';
import { gridRequest } from '../state.js';
import { TableView, bdi, dataTable, lazyDetails, modelName } from './common.js';
import { rentLink } from './rent-link.js';

export class GridView extends TableView {
  constructor(ctx) {
    super(ctx, 'grid');
  }

  request(state, catalog) {
    return gridRequest(state, catalog, this.ctx.catalog);
  }

  gpuName(id) {
    const gpu = this.ctx.catalog.gpus.find((g) => g.id === id);
    return gpu ? gpu.name : id;
  }

  /** "8× MI300X $11,450", "H100 PCIe $1,490", or "5 nodes, by quote", as a message. */
  pick(pick) {
    if (pick.by_quote) return { id: 'grid.byQuote', params: { nodes: pick.nodes, per: Math.round(pick.count / pick.nodes), name: pick.name } };
    if (pick.count > 1) return { id: 'grid.pickMulti', params: { count: pick.count, name: pick.name, usd: pick.monthly_usd } };
    return { id: 'grid.pick', params: { name: pick.name, usd: pick.monthly_usd } };
  }

  /** Why each cheaper-looking card or set was ruled out. */
  reasons(excluded) {
    const { t } = this.ctx;
    return h('ul', {}, excluded.map((x) => {
      const name = x.name || this.gpuName(x.gpu);
      const gpu = x.count > 1 ? t('grid.multi', { count: x.count, name }) : name;
      return h('li', {}, t('grid.excludedItem', { gpu, usd: x.monthly_usd, reason: x.reason }));
    }));
  }

  cell(cell, model) {
    const { t } = this.ctx;
    const vram = cell.vram_gb * BYTES_PER_GB;
    const text = cell.pick
      ? t(cell.pick.tight ? 'grid.cellTight' : 'grid.cell', { vram, pick: this.pick(cell.pick) })
      : t('grid.cell', { vram, pick: { id: 'grid.none' } });
    const excluded = cell.excluded || [];
    let why = null;
    if (excluded.length) {
      // Built when opened: thirty cells of up to fourteen reasons each. An
      // open one stays open across a change, with the new request's reasons.
      this.openCells ??= new Set();
      why = lazyDetails(this.openCells, `${model}:${cell.method}`, t('grid.excluded', { count: excluded.length }), () => this.reasons(excluded), { class: 'excluded' });
    }
    const pick = cell.pick && !cell.pick.by_quote
      ? rentLink(this.ctx, { gpu: cell.pick.gpu, count: cell.pick.count, name: cell.pick.name, monthly_usd: cell.pick.monthly_usd ?? null }, 'grid')
      : null;
    return h('td', { dataset: { method: cell.method } }, h('bdi', { class: 'cell-main', ...(t.dir === 'rtl' ? { dir: 'rtl' } : {}) }, text), pick, why);
  }

  render(result) {
    const { t } = this.ctx;
    const methods = result.rows.length ? result.rows[0].cells.map((c) => c.method) : [];
    const rows = result.rows.map((row) =>
      h('tr', { dataset: { model: row.model } }, h('th', { scope: 'row' }, bdi(modelName(t, this.ctx.catalog.models, row.model, row.name))), row.cells.map((c) => this.cell(c, row.model))),
    );
    return dataTable(t('view.grid'), t('grid.caption', { context: result.context, batch: result.batch }),
      [t('grid.model'), ...methods.map((m) => t(`method.${m}`))], rows, { class: 'grid' }, t('table.scrollCue'));
  }
}
