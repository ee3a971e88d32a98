// The reverse question: which models fit this card (or a set of it, or the
// reader's own memory budget) at this context and load. The core sizes
// every preset and says which fit (fit_models); the view lists those that
// do, largest first, each a button that opens it in the calculator.
import { h } from '../dom.js';
import { BYTES_PER_GB } from '../format.js';
import { fitModelsRequest } from '../state.js';
import { TableView, bdi, dataTable, modelName, nameOf, said } from './common.js';

const bytes = (gb) => gb * BYTES_PER_GB;

export class ModelsView extends TableView {
  constructor(ctx) {
    super(ctx, 'fitModels');
    // What the view says with neither a card nor a budget (request() is null).
    this.presetOnly = 'models.needCard';
  }

  request(state, catalog) {
    return fitModelsRequest(state, catalog);
  }

  /** "1× H100 SXM (80 GB)" or "a budget of 20 GB": what the models are fitted to. */
  where(result) {
    const { t } = this.ctx;
    if (!result.gpu) return t('fit.budget', { capacity: bytes(result.capacity_gb) });
    const gpu = nameOf(this.ctx.catalog.gpus, result.gpu);
    return t('fit.on', { count: result.gpu_count, name: gpu, capacity: bytes(result.capacity_gb) });
  }

  render(result) {
    const { t } = this.ctx;
    const fitting = result.models.filter((m) => m.fits);
    const open = (id) => this.ctx.pickModel(id, { view: 'calculator' });
    const formatName = nameOf(this.ctx.catalog.weight_formats, result.weights);
    // What the row's note says: a context past the model's limit, a model sized as stored.
    const note = (m) => [m.context_over ? t('models.contextOver') : '', m.as_stored ? t('models.asStored', { format: formatName }) : ''].filter(Boolean).join(t('list.sep'));
    const name = (m) => modelName(t, this.ctx.catalog.models, m.id, m.name);
    const rows = fitting.map((m) =>
      h('tr', { dataset: { model: m.id } },
        h('th', { scope: 'row' }, h('button', { type: 'button', class: 'link', onclick: () => open(m.id), 'aria-label': t('models.open', { model: name(m) }) }, bdi(name(m)))),
        h('td', { class: 'num' }, said(t, t('size.gb', { bytes: bytes(m.total_gb) }))),
        h('td', { class: 'num' }, said(t, t('size.gb', { bytes: bytes(m.spare_gb) }))),
        h('td', {}, note(m)),
      ),
    );
    const caption = t('models.caption', { where: this.where(result), context: result.context, batch: result.batch, count: fitting.length, total: result.models.length });
    const head = ['models.model', 'models.needs', 'models.spare', 'models.note'].map((id) => t(id));
    const out = [fitting.length
      ? dataTable(t('view.models'), caption, head, rows, { class: 'fit-models' }, t('table.scrollCue'))
      : h('p', { class: 'notice', role: 'status' }, caption)];
    // The smallest that does not fit: how far the card is from the next step.
    const next = result.models.filter((m) => !m.fits).pop();
    if (next) {
      out.push(h('p', { class: 'muted small' }, next.no_fp8
        ? t('models.nextNoFp8', { model: next.name })
        : t('models.next', { model: next.name, need: bytes(next.total_gb), short: bytes(-next.spare_gb) })));
    }
    return h('div', {}, out);
  }
}
