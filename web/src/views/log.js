// Your engine's start-up log beside the calculator (issue 42): the reader
// pastes or drops what vLLM, SGLang, llama.cpp or Ollama printed when it
// started; the core reads it (call 'log'), rebuilds the request its settings
// make and answers each logged figure beside its own. The log stays on this
// page: it is not part of the state or the link (it can be megabytes, and a
// log names paths and hosts a reader may not mean to share).
import { h, patch } from '../dom.js';
import { compute, dataTable, errorBox, said, sayQuoted } from './common.js';

/** At most what the core reads (vram::kMaxLogBytes); a larger file is cut here and named by the core. */
const MAX_LOG_BYTES = 3_000_001;

export class LogView {
  constructor(ctx) {
    this.ctx = ctx;
    this.text = '';
    this.model = null; // the page's model, once the reader asks to compare with it
    this.key = null;
    this.result = null;
    const { t } = ctx;
    this.area = h('textarea', {
      id: 'log-text', rows: 8, spellcheck: 'false', dir: 'ltr', lang: 'en',
      placeholder: 'INFO ... Model loading took 14.99 GiB ...',
      oninput: () => this.read(this.area.value),
      ondragover: (event) => event.preventDefault(),
      ondrop: (event) => this.drop(event),
    });
    this.label = h('label', { for: 'log-text' }, t('log.paste'));
    this.out = h('div', { class: 'log-answer', 'aria-live': 'polite' });
    this.element = h('div', { class: 'view log-view' }, this.label, this.area, this.out);
  }

  /** A dropped file's text, up to the core's limit. */
  async drop(event) {
    event.preventDefault();
    const file = event.dataTransfer?.files?.[0];
    if (!file) return;
    const text = await file.slice(0, MAX_LOG_BYTES).text();
    this.area.value = text;
    this.read(text);
  }

  read(text) {
    this.text = text;
    this.model = null;
    this.update(this.state);
  }

  request(state) {
    if (!this.text.trim()) return null;
    const request = { log: this.text };
    if (state?.gpu) request.gpu = state.gpu;
    if (this.model) request.model = this.model;
    return request;
  }

  update(state) {
    this.state = state;
    const { t } = this.ctx;
    this.label.textContent = t('log.paste');
    const request = this.request(state);
    const key = JSON.stringify([request && { ...request, log: request.log.length }, this.text, t.lang, t.digits]);
    if (key === this.key) return;
    this.key = key;
    if (!request) {
      patch(this.out, () => h('p', { class: 'notice' }, t('log.empty')));
      return;
    }
    const { result, error } = compute(this.ctx.core, 'log', request);
    this.result = result;
    patch(this.out, () => (error ? errorBox(t, error) : this.render(result, state)));
  }

  value(row, key) {
    const { t } = this.ctx;
    const v = row[key];
    if (v === null || v === undefined) return '–';
    if (row.unit === 'GiB') return said(t, t('log.gib', { value: v }));
    return t.format(v, row.id === 'max_concurrency' ? 2 : 0);
  }

  render(result, state) {
    const { t } = this.ctx;
    const log = result.log;
    const say = this.ctx.say(state?.unit);
    const title = t('log.title', { engine: [log.engine_name, log.version].filter(Boolean).join(' '), model: log.model || '–', preset: result.preset || '–' });
    const head = ['log.col.figure', 'log.col.device', 'log.col.logged', 'log.col.predicted', 'log.col.difference', 'log.col.line'].map((id) => t(id));
    const rows = result.rows.map((r) =>
      h('tr', { dataset: { id: r.id } },
        h('th', { scope: 'row' }, t(`logQuantity.${r.id}`)),
        h('td', { dir: 'ltr' }, r.device),
        h('td', { class: 'num' }, this.value(r, 'logged')),
        h('td', { class: 'num' }, this.value(r, 'predicted')),
        h('td', { class: 'num' }, r.difference_pct === null ? '–' : said(t, t('log.difference', { pct: r.difference_pct }))),
        h('td', { class: 'num' }, t.format(r.line, 0)),
      ));
    const out = [dataTable(t('view.log'), title, head, rows, { class: 'log-rows' }, t('table.scrollCue'))];
    if (result.pool) out.push(h('p', { class: 'log-pool' }, said(t, t('log.pool', result.pool))));
    for (const note of result.notes) out.push(h('p', { class: 'muted small' }, sayQuoted(say, note)));
    // No preset matched the log's model: compare with the page's own, if the reader says so.
    if (!result.preset && state?.model && !state.config) {
      out.push(h('button', { type: 'button', class: 'link', onclick: () => { this.model = state.model; this.key = null; this.update(state); } },
        t('log.useModel', { model: (this.ctx.catalog.models.find((m) => m.id === state.model) || { name: state.model }).name })));
    }
    if (result.case) {
      out.push(h('button', { type: 'button', class: 'log-export', onclick: () => this.export(result) }, t('log.export')));
    }
    return h('div', {}, out);
  }

  /** The pair as a validation case (tests/validation/cases), saved as a file: nothing leaves the page. */
  export(result) {
    const text = `${JSON.stringify(result.case, null, 1)}\n`;
    const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
    const a = h('a', { href: url, download: `${result.log.engine}-${result.preset || 'model'}-log-case.json` });
    this.element.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }
}
