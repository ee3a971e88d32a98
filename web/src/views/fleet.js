// The fleet (SPEC section 4): every rentable card with its price ratios,
// and for the chosen model the decode ceiling and cost per million tokens.
import { h } from '../dom.js';
import { formatBandwidth, formatMemory, formatNumber, formatUsd } from '../format.js';
import { fleetRequest, isPreset } from '../state.js';
import { TableView, bdi, dataTable } from './common.js';

export class FleetView extends TableView {
  constructor(ctx) {
    super(ctx, 'fleet');
  }

  request(state, catalog) {
    const request = fleetRequest(state, catalog);
    if (!isPreset(state)) delete request.model;
    return request;
  }

  /** "HBM3e, Blackwell, min 2 cards": what the catalog says about a card. */
  describe(id) {
    const { t } = this.ctx;
    const gpu = this.ctx.catalog.gpus.find((g) => g.id === id);
    if (!gpu) return '';
    return [gpu.memory_type, gpu.architecture, gpu.fp8 ? null : t('fleet.noFp8'), gpu.min_order > 1 ? t('fleet.minOrder', { count: gpu.min_order }) : null]
      .filter(Boolean).join(', ');
  }

  render(result, state) {
    const { t } = this.ctx;
    const n = (value, decimals) => (value === undefined || value === null ? '–' : formatNumber(value, decimals));
    const rows = result.map((row) =>
      h('tr', { dataset: { gpu: row.id } },
        h('th', { scope: 'row' }, row.name),
        h('td', {}, this.describe(row.id)),
        [formatMemory(row.vram_gb, state.unit), formatBandwidth(row.bandwidth_gbps), formatUsd(row.monthly_usd),
          n(row.usd_per_gb_month, 2), n(row.gbps_per_usd_month, 2), n(row.usd_per_hour, 2),
          n(row.decode_tokens_per_s, 0), n(row.usd_per_million_tokens, 2)].map((text) => h('td', { class: 'num' }, bdi(text))),
      ),
    );
    const head = ['gpu', 'memory', 'vram', 'bandwidth', 'monthly', 'perGb', 'perBandwidth', 'perHour', 'decode', 'perMillion'].map((k) => t(`fleet.${k}`));
    return dataTable(t('view.fleet'), t('fleet.caption'), head, rows, { class: 'fleet' });
  }
}
