// The device planner (SPEC section 6): devices needed for the weights alone
// at a usable fraction of each device's memory, and a deployable layout.
import { h } from '../dom.js';
import { BYTES_PER_GB } from '../format.js';
import { devicesRequest, isPreset } from '../state.js';
import { TableView, bdi, dataTable, modelName, nameOf, said } from './common.js';

const bytes = (gb) => gb * BYTES_PER_GB;

export class DevicesView extends TableView {
  constructor(ctx) {
    super(ctx, 'devices');
    // What the view says when the model is not a preset (request() is null).
    this.presetOnly = 'devices.presetOnly';
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
    const span = (attrs, text) => h('span', attrs, said(t, text));
    const first = result.rows[0] ? result.rows[0].cells : [];
    const formatName = (id) => nameOf(catalog.weight_formats, id);
    const model = modelName(t, catalog.models, result.model);
    const head = [t('devices.accelerator'), ...first.map((c) => said(t, t('devices.format', { format: formatName(c.format), weights: bytes(c.weights_gb) })))];
    const rows = result.rows.map((row) =>
      h('tr', { dataset: { accelerator: row.accelerator } },
        h('th', { scope: 'row' }, bdi(row.name)),
        row.cells.map((c) =>
          h('td', { dataset: { format: c.format } },
            h('span', { class: 'count' }, t.format(c.min_devices)),
            span({ class: 'muted small' }, t('devices.layout', { tp: c.layout.tensor_parallel, servers: c.layout.servers, devices: c.layout.devices })),
            c.kv_fits === false
              ? span({ class: 'error small' }, t('devices.kvShort', { kv: bytes(c.kv_cache_gb) }))
              : span({ class: 'muted small' }, t('devices.kvRoom', { room: bytes(c.kv_room_gb) })),
          ),
        ),
      ),
    );
    const table = dataTable(t('view.devices'), t('devices.caption', { model, fraction: state.usable_fraction * 100 }), head, rows, { class: 'devices' }, t('table.scrollCue'));
    const placeholders = result.placeholders || [];
    return placeholders.length
      ? h('div', {}, h('p', { class: 'notice' }, t('devices.placeholders', { fields: placeholders })), table)
      : table;
  }
}
