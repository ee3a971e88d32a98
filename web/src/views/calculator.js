// The calculator view: inputs on one side, the answer term by term on the
// other. Inputs are built once; results re-render on every change.
import { h, replace } from '../dom.js';
import { formatMemory, formatNumber } from '../format.js';

function field(id, label, control) {
  return h('div', { class: 'field' }, h('label', { for: id }, label), control);
}

function select(id, options, value) {
  const el = h('select', { id, name: id });
  for (const group of options) {
    const parent = group.label ? h('optgroup', { label: group.label }) : el;
    for (const option of group.options) {
      parent.append(h('option', { value: option.value, selected: option.value === value }, option.label));
    }
    if (group.label) el.append(parent);
  }
  return el;
}

export class CalculatorView {
  constructor(ctx) {
    this.ctx = ctx;
    const { t, catalog } = ctx;
    const groups = {};
    for (const model of catalog.models) {
      (groups[model.group] ||= []).push({ value: model.id, label: model.name });
    }
    const modelOptions = Object.entries(groups).map(([group, options]) => ({
      label: t(`group.${group}`),
      options,
    }));
    const weightOptions = [
      {
        options: [
          { value: 'native', label: t('input.weights.native') },
          ...catalog.weight_formats.map((f) => ({ value: f.id, label: f.name })),
        ],
      },
    ];
    const kvOptions = [{ options: catalog.kv_formats.map((f) => ({ value: f.id, label: f.name })) }];

    this.inputs = {
      model: select('model', modelOptions, ctx.state.model),
      weights: select('weights', weightOptions, ctx.state.weights),
      kv: select('kv', kvOptions, ctx.state.kv),
      context: h('input', { id: 'context', name: 'context', type: 'number', min: 1, step: 1, inputmode: 'numeric' }),
      batch: h('input', { id: 'batch', name: 'batch', type: 'number', min: 1, step: 1, inputmode: 'numeric' }),
    };
    for (const [name, input] of Object.entries(this.inputs)) {
      const numeric = input.type === 'number';
      input.addEventListener('input', () => this.commit(name, numeric, false));
      input.addEventListener('change', () => this.commit(name, numeric, true));
    }
    this.results = h('section', { class: 'results', 'aria-live': 'polite' });
    this.element = h(
      'div',
      { class: 'calculator' },
      h(
        'form',
        { class: 'inputs', onsubmit: (e) => e.preventDefault() },
        field('model', t('input.model'), this.inputs.model),
        field('weights', t('input.weights'), this.inputs.weights),
        field('kv', t('input.kv'), this.inputs.kv),
        field('context', t('input.context'), this.inputs.context),
        field('batch', t('input.batch'), this.inputs.batch),
      ),
      this.results,
    );
  }

  commit(name, numeric, push) {
    const raw = this.inputs[name].value;
    const value = numeric ? Number(raw) : raw;
    if (numeric && (!Number.isInteger(value) || value < 1)) {
      this.showError({ field: name, message: this.ctx.t('error.field', { field: name, message: raw }) });
      return;
    }
    this.ctx.change({ [name]: value }, { push });
  }

  /** Sets the inputs from state without firing events. */
  sync(state) {
    for (const [name, input] of Object.entries(this.inputs)) {
      const value = String(state[name]);
      if (input.value !== value && this.ctx.root.activeElement !== input) input.value = value;
    }
  }

  showError(error) {
    const { t } = this.ctx;
    replace(this.results, 
      h('p', { class: 'error', role: 'alert' }, t('error.field', { field: error.field || '', message: error.message })),
    );
  }

  update(state, result) {
    this.sync(state);
    const { t } = this.ctx;
    const unit = state.unit;
    const params =
      result.params_active < result.params_total
        ? t('result.paramsActive', { total: formatNumber(result.params_total), active: formatNumber(result.params_active) })
        : t('result.params', { total: formatNumber(result.params_total) });
    const rows = result.terms.map((term) =>
      h(
        'tr',
        { dataset: { term: term.id } },
        h('th', { scope: 'row' }, t(`term.${term.id}`)),
        h('td', { class: 'num' }, formatMemory(term.gb, unit, 1)),
        h('td', { class: 'formula' }, term.formula),
      ),
    );
    replace(this.results, 
      h(
        'div',
        { class: 'total' },
        h('span', { class: 'total-label' }, t('result.totalLabel')),
        h('output', { class: 'total-value', for: 'model weights kv context batch' }, formatMemory(result.total_gb, unit, 0)),
      ),
      h('p', { class: 'muted' }, params),
      h(
        'table',
        { class: 'terms' },
        h('caption', {}, t('result.terms')),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('result.term')), h('th', { scope: 'col' }, t('result.size')), h('th', { scope: 'col' }, t('result.formula')))),
        h('tbody', {}, rows),
        h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, t('result.total')), h('td', { class: 'num' }, formatMemory(result.total_gb, unit, 1)), h('td'))),
      ),
      h('p', { class: 'muted' }, t('result.kvPerToken', { bytes: formatNumber(result.kv_bytes_per_token) })),
      result.warnings.length
        ? h('div', { class: 'warnings', role: 'note' }, h('h3', {}, t('result.warnings')), h('ul', {}, result.warnings.map((w) => h('li', {}, w))))
        : null,
      h('details', { class: 'assumptions' }, h('summary', {}, t('result.assumptions')), h('ul', {}, result.assumptions.map((a) => h('li', {}, a.text)))),
    );
  }
}
