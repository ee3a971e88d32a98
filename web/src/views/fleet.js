// The fleet (SPEC section 4): every rentable card with its price ratios,
// and for the chosen model the cards it needs, the decode each user can
// expect beside the bandwidth ceiling, and the cost per million tokens at the
// expected speed.
import { h } from '../dom.js';
import { BYTES_PER_GB } from '../format.js';
import { fleetRequest, isPreset } from '../state.js';
import { TableView, bdi, dataTable, modelName, nameOf, said } from './common.js';

export class FleetView extends TableView {
  constructor(ctx) {
    super(ctx, 'fleet');
  }

  request(state, catalog) {
    const request = fleetRequest(state, catalog);
    if (!isPreset(state)) delete request.model;
    return request;
  }

  /** "HBM3e, Blackwell, min 2 cards": what the row (or the catalog) says about a card. */
  describe(row) {
    const { t } = this.ctx;
    const gpu = { ...this.ctx.catalog.gpus.find((g) => g.id === row.id), ...row };
    const items = [gpu.memory_type, gpu.architecture, gpu.fp8 === false ? { id: 'fleet.noFp8' } : null, gpu.min_order > 1 ? { id: 'fleet.minOrder', params: { count: gpu.min_order } } : null];
    return t('fleet.describe', { items: items.filter(Boolean) });
  }

  /** How many of this card the model needs: "1×", "2×", "5 nodes of 8× B200, by quote". */
  cards({ fit, unfit_reason: reason }, unit) {
    const { t } = this.ctx;
    if (!fit) return reason ? h('span', {}, t.render(reason)) : '–';
    if (fit.by_quote) return t('grid.byQuote', { nodes: fit.nodes, per: Math.round(fit.count / fit.nodes), name: fit.name });
    return t('fleet.count', { count: fit.count });
  }

  render(result, state) {
    const { t, catalog } = this.ctx;
    const n = (value, decimals) => (value === undefined || value === null ? '–' : t.format(value, decimals));
    // Bandwidth: GB/s under 1,000, TB/s (up to two decimals) above.
    const bandwidth = (gbps) => (gbps < 1000 ? t('size.gbps', { gbps }) : t('size.tbps', { tbps: gbps / 1000 }));
    const withModel = result.some((row) => row.fit !== undefined);
    const rows = result.map((row) =>
      h('tr', { dataset: { gpu: row.id } },
        h('th', { scope: 'row' }, bdi(row.name)),
        h('td', {}, said(t, this.describe(row))),
        [t('size.gb0', { bytes: row.vram_gb * BYTES_PER_GB }), bandwidth(row.bandwidth_gbps), row.monthly_usd === null ? '–' : t('size.usd', { usd: row.monthly_usd }),
          n(row.usd_per_gb_month, 2), n(row.gbps_per_usd_month, 2), n(row.usd_per_hour, 2),
        ].map((text) => h('td', { class: 'num' }, said(t, text))),
        // Why a card cannot hold the model is a sentence: it wraps, so the
        // decode and price columns after it stay on screen.
        withModel ? h('td', { class: row.fit ? 'num' : 'reason' }, said(t, this.cards(row))) : null,
        withModel ? [n(row.decode_expected_tokens_per_s, 0), n(row.decode_tokens_per_s, 0), n(row.usd_per_million_tokens, 2)].map((text) => h('td', { class: 'num' }, said(t, text))) : null,
      ),
    );
    const head = ['fleet.gpu', 'fleet.memory', 'fleet.vram', 'fleet.bandwidth', 'fleet.monthly', 'fleet.perGb', 'fleet.perBandwidth', 'fleet.perHour',
      ...(withModel ? ['fleet.cards', 'fleet.expected', 'fleet.decode', 'fleet.perMillion'] : [])].map((id) => t(id));
    const caption = withModel
      ? t('fleet.captionModel', { model: modelName(t, catalog.models, state.model), weights: state.weights === 'native' ? t('fleet.nativeWeights') : nameOf(catalog.weight_formats, state.weights) })
      : t('fleet.caption');
    return dataTable(t('view.fleet'), caption, head, rows, { class: 'fleet' }, t('table.scrollCue'));
  }
}
