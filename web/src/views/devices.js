// The device planner (SPEC section 6): devices needed for the weights alone
// at a usable fraction of each device's memory, and a deployable layout.
import { h } from '../dom.js';
import { formatMemory, formatNumber } from '../format.js';
import { devicesRequest, isPreset } from '../state.js';
import { TableView, dataTable } from './common.js';

export class DevicesView extends TableView {
  constructor(ctx) {
    super(ctx, 'devices');
  }

  request(state, catalog) {
    if (!isPreset(state)) return null;
    const request = devicesRequest(state, catalog);
    // A vendor's catalog: its own cards are the rows (the planner's default
    // accelerators may not be in it).
    const ids = catalog && Array.isArray(catalog.gpus) ? catalog.gpus.map((g) => g && g.id).filter((id) => typeof id === 'string') : [];
    if (ids.length) request.accelerators = [...new Set(ids)];
    return request;
  }

  render(result, state) {
    const { t, catalog } = this.ctx;
    const first = result.rows[0] ? result.rows[0].cells : [];
    const formatName = (id) => (catalog.weight_formats.find((f) => f.id === id) || { name: id }).name;
    const model = (catalog.models.find((m) => m.id === result.model) || { name: result.model }).name;
    const head = [t('devices.accelerator'), ...first.map((c) => t('devices.format', { format: formatName(c.format), weights: formatMemory(c.weights_gb, state.unit) }))];
    const rows = result.rows.map((row) =>
      h('tr', { dataset: { accelerator: row.accelerator } },
        h('th', { scope: 'row' }, row.name),
        row.cells.map((c) =>
          h('td', { dataset: { format: c.format } },
            h('span', { class: 'count' }, formatNumber(c.min_devices)),
            h('span', { class: 'muted small' }, t('devices.layout', { tp: c.layout.tensor_parallel, servers: c.layout.servers, devices: c.layout.devices })),
            c.kv_fits === false
              ? h('span', { class: 'error small' }, t('devices.kvShort', { kv: formatMemory(c.kv_cache_gb, state.unit, 1) }))
              : h('span', { class: 'muted small' }, t('devices.kvRoom', { room: formatMemory(c.kv_room_gb, state.unit, 1) })),
          ),
        ),
      ),
    );
    const table = dataTable(t('view.devices'), t('devices.caption', { model, fraction: formatNumber(state.usable_fraction * 100) }), head, rows, { class: 'devices' }, t('table.scrollCue'));
    const placeholders = result.placeholders || [];
    return placeholders.length
      ? h('div', {}, h('p', { class: 'notice' }, t('devices.placeholders', { fields: placeholders.join(', ') })), table)
      : table;
  }
}
