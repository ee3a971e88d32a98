// Pieces the views share: calling the core with a vendor catalog, naming a
// core error for the user, and tables that scroll on their own on a narrow
// screen instead of widening the page.
import { h } from '../dom.js';

/**
 * Calls a core method. Returns { result } or { error }. A core that does not
 * take `catalog` for this method is asked again without it, and says so
 * (catalogIgnored), rather than failing the whole view.
 */
export function compute(core, method, request) {
  try {
    return { result: core[method](request) };
  } catch (error) {
    if (request.catalog !== undefined && error.field === 'catalog' && error.code === 'unknown_field') {
      const { catalog, ...rest } = request;
      return { ...compute(core, method, rest), catalogIgnored: true };
    }
    return { error };
  }
}

/** The input a core error names, as the user knows it. */
export function fieldLabel(t, field) {
  if (!field) return '';
  if (field === 'config' || field.startsWith('config.')) return field === 'config' ? 'config.json' : `config.json ${field.slice(7)}`;
  const key = `input.${field}`;
  return t(key) === key ? field : t(key);
}

/** One error as a paragraph: the method missing from this build, or the field and message. */
export function errorBox(t, error, method) {
  const text = error.unavailable
    ? t('error.unavailable', { method: t(`view.${method}`) })
    : error.field
      ? t('error.field', { field: fieldLabel(t, error.field), message: error.message })
      : t('error.plain', { message: error.message });
  return h('p', { class: error.unavailable ? 'notice unavailable' : 'error', role: 'alert', dataset: { code: error.code || '' } }, text);
}

/**
 * A table in a keyboard-scrollable region, so wide tables never widen the
 * page. When it is wider than its region, a line under it says so (`cue`,
 * the message text); the edge shadows in style.css say it too.
 */
export function dataTable(label, caption, head, rows, attrs = {}, cue = null) {
  const region = h('div', { class: 'scroll', role: 'region', tabindex: 0, 'aria-label': label },
    h('table', attrs,
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, head.map((cell) => h('th', { scope: 'col' }, cell)))),
      h('tbody', {}, rows),
    ),
  );
  if (!cue) return region;
  if (typeof ResizeObserver !== 'undefined') {
    new ResizeObserver(() => region.classList.toggle('overflows', region.scrollWidth > region.clientWidth + 1)).observe(region);
  }
  // A caption is as wide as its table: on a phone most of it would scroll out
  // of sight. It shows above the region instead (the <caption> stays for
  // screen readers, so this copy is hidden from them).
  region.querySelector('caption').classList.add('visually-hidden');
  return h('div', { class: 'table-wrap' },
    caption ? h('p', { class: 'table-caption', 'aria-hidden': 'true' }, caption) : null,
    h('p', { class: 'scroll-cue', 'aria-hidden': 'true' }, cue), region);
}

/**
 * A value the core or the formatter wrote ("75 GB", "≤ 29 tokens/s"): its
 * own direction, so a right-to-left page does not reorder it into "GB 75".
 */
export function bdi(value) {
  return h('bdi', {}, value);
}

/** A definition list from [term, value] pairs, skipping empty values. */
export function facts(pairs, attrs = {}) {
  return h('dl', { class: 'facts', ...attrs }, pairs.filter(([, v]) => v !== null && v !== undefined && v !== '').map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, bdi(v)))));
}

/**
 * A view whose table depends only on a request: recomputed when the request
 * (or the display unit) changes, not on every keystroke elsewhere.
 */
export class TableView {
  constructor(ctx, method) {
    this.ctx = ctx;
    this.method = method;
    this.key = null;
    this.element = h('div', { class: 'view' });
  }

  update(state, catalog) {
    const request = this.request(state, catalog);
    const key = JSON.stringify([request, state.unit]);
    if (key === this.key) return;
    this.key = key;
    this.element.replaceChildren();
    if (!request) {
      this.element.append(h('p', { class: 'notice' }, this.ctx.t(`${this.method}.presetOnly`)));
      return;
    }
    const { result, error, catalogIgnored } = compute(this.ctx.core, this.method, request);
    if (catalogIgnored) this.element.append(h('p', { class: 'notice' }, this.ctx.t('catalog.ignored', { method: this.ctx.t(`view.${this.method}`) })));
    this.element.append(error ? errorBox(this.ctx.t, error, this.method) : this.render(result, state));
  }
}
