// <vram-calculator>: the whole calculator as one custom element with a
// shadow root, so a host page's CSS cannot reach in and ours cannot leak
// out. The standalone page is this element with the `url-state` attribute,
// which binds its inputs to the address bar.
import css from './style.css';
import { loadCore } from './core.js';
import { h, replace } from './dom.js';
import { direction, translator } from './i18n.js';
import { DEFAULT_STATE, estimateRequest, parseQuery, toQuery } from './state.js';
import { CalculatorView } from './views/calculator.js';

export function defineVramCalculator(factory) {
  if (customElements.get('vram-calculator')) return;

  class VramCalculator extends HTMLElement {
    static get observedAttributes() {
      return ['view', 'model', 'lang'];
    }

    constructor() {
      super();
      this.attachShadow({ mode: 'open' });
      this.state = { ...DEFAULT_STATE };
      this.started = false;
    }

    connectedCallback() {
      if (this.started) return;
      this.started = true;
      this.start();
    }

    attributeChangedCallback() {
      if (this.core) this.applyAttributes(true);
    }

    get urlBound() {
      return this.hasAttribute('url-state');
    }

    async start() {
      const lang = this.getAttribute('lang') || 'en';
      this.t = translator(lang);
      const root = this.shadowRoot;
      root.append(h('style', {}, css));
      this.frame = h('div', { class: 'frame', dir: direction(lang), lang }, h('p', { class: 'muted' }, this.t('app.loading')));
      root.append(this.frame);
      try {
        this.core = await loadCore(factory);
        this.catalog = this.core.presets();
      } catch (error) {
        replace(this.frame, h('p', { class: 'error', role: 'alert' }, this.t('app.loadFailed', { message: error.message })));
        return;
      }
      this.problems = [];
      this.applyAttributes(false);
      if (this.urlBound) {
        this.readUrl();
        window.addEventListener('popstate', () => {
          this.readUrl();
          this.render();
        });
      }
      this.build();
      this.render();
    }

    applyAttributes(rerender) {
      const attrs = {};
      for (const name of ['view', 'model']) {
        if (this.hasAttribute(name)) attrs[name] = this.getAttribute(name);
      }
      const query = new URLSearchParams(attrs).toString();
      const { state, problems } = parseQuery(query, this.catalog, this.state);
      this.state = state;
      this.problems = problems.map((p) => ({ ...p, param: `${p.param} (attribute)` }));
      if (rerender) this.render();
    }

    readUrl() {
      const { state, problems } = parseQuery(window.location.search, this.catalog, this.state);
      this.state = state;
      this.problems = problems;
    }

    change(patch, { push }) {
      this.state = { ...this.state, ...patch };
      if (this.urlBound) {
        const url = `${window.location.pathname}${toQuery(this.state)}${window.location.hash}`;
        if (push) window.history.pushState(null, '', url);
        else window.history.replaceState(null, '', url);
      }
      this.render();
    }

    build() {
      const t = this.t;
      this.notices = h('div', { class: 'notices' });
      this.view = new CalculatorView({
        t,
        catalog: this.catalog,
        state: this.state,
        root: this.shadowRoot,
        change: (patch, options) => this.change(patch, options),
      });
      replace(this.frame, 
        h('header', { class: 'bar' }, h('h2', { class: 'title' }, t('app.title')), h('p', { class: 'muted tagline' }, t('app.tagline'))),
        this.notices,
        h('main', {}, this.view.element),
      );
    }

    render() {
      replace(this.notices);
      for (const problem of this.problems) {
        this.notices.append(h('p', { class: 'notice', role: 'status' }, this.t('error.url', problem)));
      }
      try {
        const result = this.core.estimate(estimateRequest(this.state));
        this.view.update(this.state, result);
        this.dispatchEvent(new CustomEvent('vram-result', { detail: result }));
      } catch (error) {
        this.view.showError(error);
      }
    }
  }

  customElements.define('vram-calculator', VramCalculator);
}
