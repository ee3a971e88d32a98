// Pieces the views share: calling the core, naming a core error for the
// user, and tables that scroll on their own on a narrow screen instead of
// widening the page.
import { CoreCrash } from '../core.js';
import { h, patch } from '../dom.js';

/** Calls a core method. Returns { result } or { error } (a CoreError: code, field, message). */
export function compute(core, method, request) {
  try {
    return { result: core[method](request) };
  } catch (error) {
    return { error };
  }
}

/** The input a core error names, as the user knows it. */
export function fieldLabel(t, field) {
  if (!field) return '';
  if (field === 'config' || field.startsWith('config.')) return field === 'config' ? 'config.json' : `config.json ${field.slice(7)}`;
  const key = `input.${field}`;
  const label = t(key);
  return label === key ? field : label;
}

/**
 * One core error in words: a crashed core and its restart, or the field it
 * names and what is wrong, in the page's language (the core's error
 * carries its message id and parameters beside the English).
 */
export function errorText(t, error) {
  if (error instanceof CoreCrash) return t(`error.${error.code}`, { message: error.message });
  const params = error.messageId && error.messageId.params;
  // A message that names its field says it once, by the input's label:
  // "config.json num_hidden_layers is required", not "config.json
  // num_hidden_layers: config.num_hidden_layers is required".
  // (A message whose template has no {field}, such as error.checkpoint_mixed,
  // gets the label in front instead.)
  if (error.field && params && params.field === error.field) {
    const said = t.render({ ...error.messageId, params: { ...params, field: '\uE002' } });
    if (said.includes('\uE002')) return said.split('\uE002').join(fieldLabel(t, error.field));
  }
  // Several fields named together (error.missing_fields), the error's own
  // first: each by its label, and none said twice.
  if (error.field && params && Array.isArray(params.fields) && params.fields[0] === error.field) {
    return t.render({ ...error.messageId, params: { ...params, fields: params.fields.map((f) => fieldLabel(t, String(f))) } });
  }
  const message = error.messageId ? t.render(error.messageId) : error.message;
  return error.field ? t('error.field', { field: fieldLabel(t, error.field), message }) : t('error.plain', { message });
}

/** The same as an alert paragraph. */
export function errorBox(t, error) {
  return h('p', { class: 'error', role: 'alert', dataset: { code: error.code || '' } }, errorText(t, error));
}

/**
 * A core message as nodes: its text, with every quotation it holds
 * (`quote.text`: a source cited as written, in English) in its own
 * `lang="en"` span, so a reader, a screen reader and the language tests
 * know it for a citation (docs/i18n.md, "Citations").
 */
export function sayQuoted(say, message) {
  const quotes = [];
  const mark = (value) => {
    if (Array.isArray(value)) return value.map(mark);
    if (value === null || typeof value !== 'object') return value;
    if (value.id === 'quote.text') {
      quotes.push(String(value.params?.text ?? ''));
      return { id: 'quote.text', params: { text: `\uE000${quotes.length - 1}\uE001` } };
    }
    return { ...value, params: value.params && Object.fromEntries(Object.entries(value.params).map(([k, v]) => [k, mark(v)])) };
  };
  const text = say(mark(message));
  if (!quotes.length) return text;
  return text.split(/\uE000(\d+)\uE001/).map((part, i) =>
    (i % 2 ? h('span', { class: 'quote', lang: 'en', dir: 'ltr' }, quotes[Number(part)]) : part));
}

/**
 * A table in a keyboard-scrollable region, so wide tables never widen the
 * page. When it is wider than its region, a line under it says so (`cue`,
 * the message text); the edge shadows in style.css say it too.
 */
export function dataTable(label, caption, head, rows, attrs = {}, cue = null) {
  // With a cue, the caption shows above the region instead: a caption is as
  // wide as its table, and on a phone most of it would scroll out of sight
  // (the <caption> stays for screen readers, so the copy is hidden from them).
  const region = h('div', { class: 'scroll', role: 'region', tabindex: 0, 'aria-label': label, ref: cue ? watchOverflow : null },
    h('table', attrs,
      h('caption', cue ? { class: 'visually-hidden' } : {}, caption),
      h('thead', {}, h('tr', {}, head.map((cell) => h('th', { scope: 'col' }, cell)))),
      h('tbody', {}, rows),
    ),
  );
  if (!cue) return region;
  return h('div', { class: 'table-wrap' },
    caption ? h('p', { class: 'table-caption', 'aria-hidden': 'true' }, caption) : null,
    h('p', { class: 'scroll-cue', 'aria-hidden': 'true' }, cue), region);
}

// One observer for every scrolling table of the page: a region that is wider
// inside than out gets the `overflows` class (its cue shows). Every change
// redraws the answer's tables; an observer each was one more object a redraw.
let overflowObserver = null;
function watchOverflow(region) {
  if (typeof ResizeObserver === 'undefined') return;
  overflowObserver ??= new ResizeObserver((entries) => {
    // Every region measured first, then every class set: a class set between
    // two reads would make the next read lay the page out again (a layout
    // per table in the first frame).
    const wide = entries.map(({ target }) => target.isConnected && target.scrollWidth > target.clientWidth + 1);
    entries.forEach(({ target }, i) => {
      // A redrawn region is gone for good: every target is reported at least
      // once (when first observed), so none is held past its table.
      if (!target.isConnected) overflowObserver.unobserve(target);
      else target.classList.toggle('overflows', wide[i]);
    });
  });
  overflowObserver.observe(region);
}

/**
 * A <details> whose content is built only when it is open (most stay closed,
 * and a change redraws them all): `open`, a Set, keeps which are open under
 * `key`, so one stays open through a patch and shows the new content.
 */
export function lazyDetails(open, key, summary, content, attrs = {}) {
  const shown = open.has(key);
  const toggle = (event) => {
    const el = event.currentTarget;
    if (el.open) open.add(key);
    else open.delete(key);
    if (el.open && el.childElementCount === 1) el.append(content());
  };
  return h('details', { ...attrs, dataset: { ...attrs.dataset, key }, open: shown, ontoggle: toggle }, h('summary', {}, summary), shown ? content() : null);
}

/**
 * A name with its own direction ("Llama 3.1 70B", "H100 PCIe"): isolated,
 * and laid out by its first strong letter, so a right-to-left page does not
 * reorder it.
 */
export function bdi(value) {
  return h('bdi', {}, value);
}

/**
 * A rendered message ("75 GB", "1× L4", "$1,490", or a sentence): isolated,
 * in the language's direction (docs/i18n.md, "Right to left"). Its values
 * are isolated by the renderer, each in its own direction; the sentence is
 * the language's, never laid out by its first strong letter: "76 GB على كل
 * واحدة من 4 وحدات GPU" starts with a Latin unit and is still Arabic. Left
 * to right the element is as it was, a bare <bdi>.
 */
export function said(t, value) {
  return h('bdi', t.dir === 'rtl' ? { dir: 'rtl' } : {}, value);
}

/** The name of the entry with this id in a catalog list (models, formats, GPUs); the id itself when it has none. */
export function nameOf(list, id) {
  return ((list || []).find((entry) => entry.id === id) || { name: id }).name;
}

/**
 * A model's name in the reader's language: a guide shape (group "guide",
 * id "guide-70b") as `model.guideName` ("70B (guide shape)"), any other as
 * the name data/models.json gives it; `fallback` (else the id) when the id
 * is in no list.
 */
export function modelName(t, models, id, fallback) {
  const model = (models || []).find((entry) => entry.id === id);
  if (model && model.group === 'guide' && /^guide-/.test(model.id)) return t('model.guideName', { size: model.id.slice('guide-'.length).toUpperCase() });
  return model ? model.name : fallback ?? id;
}

/** A definition list from [term, value] pairs, skipping empty values. */
export function facts(t, pairs, attrs = {}) {
  return h('dl', { class: 'facts', ...attrs }, pairs.filter(([, v]) => v !== null && v !== undefined && v !== '').map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, said(t, v)))));
}

/**
 * A view whose table depends only on a request: recomputed when the request
 * (or the display unit) changes, not on every keystroke elsewhere, and
 * patched in place (dom.js patch).
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
    // The translator is in the key: a new language or unit redraws.
    const key = JSON.stringify([request, this.ctx.t.lang, this.ctx.t.digits, state.unit]);
    if (key === this.key) return;
    this.key = key;
    if (!request) {
      patch(this.element, () => h('p', { class: 'notice' }, this.ctx.t(this.presetOnly)));
      return;
    }
    const { result, error } = compute(this.ctx.core, this.method, request);
    // Patched, not rebuilt: a table's scroll and focus survive a change.
    patch(this.element, () => (error ? errorBox(this.ctx.t, error) : this.render(result, state)));
  }
}
