// <vram-calculator>: the whole calculator as one custom element with a
// shadow root, so a host page's CSS cannot reach in and ours cannot leak
// out. The standalone page is this element with the `url-state` attribute,
// which binds its inputs to the address bar.
//
// Attributes: view, model, preset (a named link), lang, dir, digits,
// catalog (a URL or inline JSON: a vendor's own fleet and prices, passed to
// the core), and url-state; embed modes (embed.js, docs/embedding.md):
// inputs, compact, hide, rent-url, link-catalog ("off": a #catalog= in the
// address is ignored). Events: vram-ready (detail { version,
// dataVersions }) once the core has loaded, vram-change (detail { state,
// query }) on every change, vram-result (detail: the estimate) on every new
// calculator answer, vram-pick (detail: the pick) when the answer's pick
// changes and, cancelable, when a "Rent this" link is followed. Properties:
// version, dataVersions, readTimeLimit (how long one checkpoint header may
// take to read, in milliseconds).
//
// Language: the `lang` URL parameter (standalone page, picker), else the
// `lang` attribute, else the nearest ancestor's `lang` (the host document's
// <html lang> at the last). Direction: the `dir` attribute, else the
// language's own. Digits: the `digits` URL parameter, else the attribute,
// else the language's own (docs/i18n.md).
import css from './style.css';
import { loadCore } from './core.js';
import { assign, h, replace } from './dom.js';
import { fetchCatalog, fragmentCatalogText, messageCatalogText, pageCatalogText, readCatalogText, readHide, readInputs } from './embed.js';
import { DIGITS, LANGUAGES, catalogsReady, failureReason, problemMessage, resolveLanguage, translator } from './i18n.js';
import { MAX_NOTICES, PAGE_DEFAULTS, VIEWS, UNITS, defaultState, linkLanguage, parseQuery, toQuery } from './state.js';
import { READ_TIME_LIMIT_MS } from './reader.js';
import { readRentTemplate } from './rent.js';
import { VERSION } from './version.js';
import { AnswerBar, pickOf } from './views/answer-bar.js';
import { CalculatorView } from './views/calculator.js';
import { DevicesView } from './views/devices.js';
import { FleetView } from './views/fleet.js';
import { GridView } from './views/grid.js';
import { InputsPanel } from './views/inputs.js';
import { CurveView } from './views/curve.js';
import { LogView } from './views/log.js';
import { ModelsView } from './views/models.js';


const NO_LINK_LANGUAGE = Object.freeze({ lang: '', digits: '' });

const VIEW_CLASSES = { calculator: CalculatorView, grid: GridView, devices: DevicesView, fleet: FleetView, models: ModelsView, curve: CurveView, log: LogView };

/** A User Timing mark (tools/bench.mjs reads them); nothing when unsupported. */
function mark(name) {
  if (typeof performance !== 'undefined' && performance.mark) performance.mark(name);
}

export function defineVramCalculator(factory) {
  if (customElements.get('vram-calculator')) return;

  class VramCalculator extends HTMLElement {
    static get observedAttributes() {
      return ['view', 'model', 'preset', 'lang', 'dir', 'digits', 'catalog', 'link-catalog', 'inputs', 'compact', 'hide', 'rent-url'];
    }

    constructor() {
      super();
      this.attachShadow({ mode: 'open' });
      // The page's own defaults until the core's schema gives the rest (start).
      this.state = { ...PAGE_DEFAULTS };
      this.problems = [];
      this.started = false;
      // Which <details> are open, by key: survives every rebuild, a change of
      // language included.
      this.open = new Set();
      // The language and digits of the standalone page's address until the
      // core can read the whole address (start, readUrl).
      this.linked = NO_LINK_LANGUAGE;
      // How long one checkpoint header (or index) may take to read, in
      // milliseconds, before its background reader is stopped (ckptTimeout;
      // web/src/reader.js takes anything not a positive number as the default).
      this.readTimeLimit = READ_TIME_LIMIT_MS;
      // Where the vendor catalog in use came from: '', 'attribute', 'message', 'link' or 'page'.
      this.catalogSource = '';
    }

    connectedCallback() {
      if (this.started) return;
      this.started = true;
      this.start();
    }

    attributeChangedCallback(name, before, after) {
      if (!this.core || before === after) return;
      if (name === 'catalog' || name === 'link-catalog') {
        this.loadCatalog();
        return;
      }
      if (name === 'lang' || name === 'dir') {
        this.render();
        return;
      }
      if (['inputs', 'compact', 'hide', 'rent-url'].includes(name)) {
        this.build();
        this.render();
        return;
      }
      this.applyAttributes();
      this.render();
    }

    /** The package version this element was built from. */
    get version() {
      return VERSION;
    }

    /**
     * The date of each data file the core carries ({ models: { updated },
     * gpus, formats, engines, presets }); null until the core has loaded
     * (the vram-ready event).
     */
    get dataVersions() {
      return this.presets ? this.presets.data_versions : null;
    }

    get urlBound() {
      return this.hasAttribute('url-state');
    }

    async start() {
      const root = this.shadowRoot;
      root.append(h('style', {}, css));
      this.frame = h('div', { class: 'frame' });
      root.append(this.frame);
      // The module is instantiated while the catalogs are still unpacking
      // (both come out of one decoder, in turns): the core is ready when the
      // catalogs are, not an instantiation after them. Its failure is said
      // below, once there are words to say it in.
      const loading = loadCore(factory);
      loading.catch(() => {});
      try {
        await catalogsReady();
      } catch (error) {
        // No catalog to say it in: the decoder's own words.
        replace(this.frame, h('p', { class: 'error', role: 'alert' }, error.message));
        return;
      }
      // "Loading", or why the calculator could not start, in the language
      // the address asks for (?lang=ar), before the address can be read whole.
      if (this.urlBound) this.linked = linkLanguage(window.location.search);
      this.setLanguage();
      this.watchHost();
      replace(this.frame, h('p', { class: 'muted' }, this.t('app.loading')));
      try {
        this.core = await loading;
        this.core.onRestart(() => this.afterRestart());
        mark('vram:core-ready');
        // The pickers' lists, and the core's request schema the inputs and the URL are read by.
        this.presets = { ...this.core.presets(), schema: this.core.schema() };
        mark('vram:presets');
        this.catalog = this.presets;
        this.state = { ...defaultState(this.catalog) };
      } catch (error) {
        console.warn(error);
        replace(this.frame, h('p', { class: 'error', role: 'alert' }, this.t('app.loadFailed', { reason: failureReason(error) })));
        return;
      }
      this.dispatchEvent(new CustomEvent('vram-ready', { detail: { version: this.version, dataVersions: this.dataVersions } }));
      this.loadCatalog();
      this.applyAttributes();
      // What a link leaves out means the default, not what was there before.
      this.baseState = this.state;
      if (this.urlBound) {
        this.readUrl();
        // The iframe page: a catalog posted by the embedding page, read like the attribute.
        window.addEventListener('message', (event) => {
          const text = window.parent !== window && event.source === window.parent ? messageCatalogText(event.data) : null;
          if (text === null) return;
          this.postedCatalog = text;
          this.loadCatalog();
        });
        window.addEventListener('popstate', () => {
          clearTimeout(this.urlTimer);
          this.pendingPush = undefined;
          this.problems = [];
          this.readUrl();
          this.render();
        });
      }
      this.build();
      mark('vram:built');
      this.render();
      mark('vram:first-render');
      // The lookup grid is the costliest table: from the calculator, with
      // its tabs shown, it is drawn into its hidden panel when the browser
      // is idle, so opening its tab shows it at once (its key is unchanged
      // unless the inputs changed since).
      const warm = this.state.view === 'calculator' && !this.embed.compact && !this.embed.hide.includes('tabs');
      if (warm && typeof requestIdleCallback === 'function') {
        requestIdleCallback(() => {
          if (this.views && this.state.view === 'calculator') this.views.grid.update(this.state, this.vendorCatalog);
        });
      }
    }

    /**
     * A fresh core is up after a crash: redo the views that asked while it
     * was starting. The view whose call crashed keeps its error until an
     * input changes, so an input that traps every time cannot loop.
     */
    afterRestart() {
      if (!this.views) return;
      for (const view of Object.values(this.views)) {
        if (view.element.querySelector('[data-code="core_restarting"]')) view.key = null;
      }
      this.render();
    }

    /** The nearest `lang` above the element, across shadow roots: the host's language ('' when none). */
    hostLanguage() {
      for (let node = this.parentNode; node; node = node.parentNode || node.host) {
        if (node.nodeType === 1 && node.hasAttribute('lang')) return node.getAttribute('lang');
      }
      return '';
    }

    /**
     * A host that changes its language (a site's own switcher on <html
     * lang>) changes ours, when neither the attribute nor the URL names one.
     */
    watchHost() {
      if (typeof MutationObserver === 'undefined') return;
      this.hostWatch = new MutationObserver(() => {
        if (this.views && this.wanted().key !== this.builtFor) this.render();
      });
      this.hostWatch.observe(document.documentElement, { attributes: true, attributeFilter: ['lang'], subtree: true });
    }

    /** The language, direction and digits asked for now, from the URL, the attributes and the host. */
    wanted() {
      const lang = resolveLanguage(this.state.lang || this.linked.lang || this.getAttribute('lang') || this.hostLanguage());
      const dirAttr = (this.getAttribute('dir') || '').toLowerCase();
      const digitsAttr = this.getAttribute('digits') || '';
      const digits = this.state.digits || this.linked.digits || (DIGITS.includes(digitsAttr) ? digitsAttr : '');
      const t = translator(lang, { digits, unit: this.state.unit });
      const dir = dirAttr === 'ltr' || dirAttr === 'rtl' ? dirAttr : t.dir;
      return { lang, dir, digits, t, key: `${lang}|${dir}|${digits}` };
    }

    /** The translator for the current language, digits and display unit. */
    setLanguage() {
      const { lang, dir, t, key } = this.wanted();
      this.t = t;
      this.frame.lang = lang;
      this.frame.dir = dir;
      return key;
    }

    /** view, model and preset attributes (and a malformed digits), read through the URL schema. */
    applyAttributes() {
      const query = new URLSearchParams();
      for (const name of ['preset', 'view', 'model', 'digits']) {
        if (this.hasAttribute(name)) query.set(name, this.getAttribute(name));
      }
      const { state, problems } = parseQuery(query, this.catalog, this.state);
      // The digits attribute is read where the language is (wanted()), so an
      // attribute never becomes part of a link; it is parsed here only to be
      // reported when it is not one of the choices.
      this.state = { ...state, digits: this.state.digits };
      this.problems = problems.map((p) => ({ ...p, source: 'attribute' }));
    }

    readUrl() {
      const { state, problems } = parseQuery(window.location.search, this.catalog, this.baseState);
      this.state = state;
      this.linked = NO_LINK_LANGUAGE;
      this.problems.push(...problems);
      this.committed = window.location.search;
    }

    /**
     * The catalog attribute: inline JSON, or a URL fetched once (only when
     * given: the default page asks the network for nothing).
     */
    async loadCatalog() {
      const own = (this.getAttribute('catalog') || '').trim();
      const { text, source } = this.sharedCatalog();
      const raw = own || text;
      this.vendorCatalog = undefined;
      this.catalogProblem = null;
      this.catalogSource = own ? 'attribute' : source;
      // Only the element's own attribute may name a URL; shared catalogs are inline.
      let read = {};
      if (own && !raw.startsWith('{') && !raw.startsWith('[')) {
        this.catalogProblem = { id: 'catalog.loading' };
        if (this.views) this.render();
        read = await fetchCatalog(raw, document.baseURI);
        if ((this.getAttribute('catalog') || '').trim() !== raw) return; // replaced meanwhile
        this.catalogProblem = null;
      } else if (raw) {
        read = readCatalogText(raw);
      }
      // Why not, in the reader's language: a place in the text, an HTTP status, never the browser's English.
      if (read.error) this.catalogProblem = { id: 'catalog.error', params: { problem: problemMessage(read.error) } };
      else this.vendorCatalog = read.catalog;
      this.useCatalog();
    }

    /**
     * A catalog the element does not carry itself: on the iframe page the one
     * posted to it, else its address's fragment (#catalog=), unless the
     * element says link-catalog="off"; on any page the page-wide
     * <script type="application/json" data-vram-catalog> shared by every
     * element. Inline JSON only: these never make the page fetch. Returns
     * { text, source: 'message', 'link' or 'page' }.
     */
    sharedCatalog() {
      const linked = ((this.urlBound && fragmentCatalogText(window.location.hash)) || '').trim();
      const refused = (this.getAttribute('link-catalog') || '').toLowerCase() === 'off';
      const posted = this.urlBound ? this.postedCatalog : null;
      const [text, source] = posted != null ? [posted, 'message'] : linked && !refused ? [linked, 'link'] : [pageCatalogText(document) || '', 'page'];
      return { text: text.trim(), source };
    }

    /** inputs, compact, hide and rent-url, read once per build; unknown words become notices. */
    readEmbed() {
      const t = this.t;
      const { inputs, unknown } = readInputs(this.getAttribute('inputs'));
      const hidden = readHide(this.getAttribute('hide'));
      const rentRaw = this.getAttribute('rent-url');
      const rent = rentRaw === null ? {} : readRentTemplate(rentRaw);
      this.embedProblems = [
        ...unknown.map((word) => t('embed.unknown', { attribute: 'inputs', word })),
        ...hidden.unknown.map((word) => t('embed.unknown', { attribute: 'hide', word })),
        rent.error ? t('embed.rent', { problem: problemMessage(rent.error) }) : null,
      ].filter(Boolean);
      const compact = this.hasAttribute('compact');
      return { inputs: compact ? [] : inputs, hide: compact ? ['header', 'tabs'] : hidden.hide, compact, rent: rent.template };
    }

    /** The pick of each new answer: vram-pick when it changed (a host's own call to action). */
    answered(result, error = null) {
      this.lastResult = result;
      this.lastError = result ? null : error;
      if (!result) {
        // The calculator could not answer: no stale total, no stale pick,
        // and the reason where the answer would be.
        if (error) this.answer.error(error);
        else this.answer.clear();
        return;
      }
      this.answer.update(result, this.state);
      const pick = pickOf(result);
      const key = JSON.stringify(pick);
      if (key !== this.lastPick) {
        this.lastPick = key;
        this.dispatchEvent(new CustomEvent('vram-pick', { detail: pick && { ...pick, source: 'answer' } }));
      }
      this.dispatchEvent(new CustomEvent('vram-result', { detail: result }));
    }

    /**
     * A vendor catalog replaces the GPU list (the core validates the rest):
     * the picker offers its cards, and a card it lacks is unselected.
     */
    useCatalog() {
      const list = this.vendorCatalog && Array.isArray(this.vendorCatalog.gpus) ? this.vendorCatalog.gpus : [];
      const gpus = list.filter((g) => g && typeof g.id === 'string' && typeof g.name === 'string');
      this.catalog = gpus.length ? { ...this.presets, gpus } : this.presets;
      if (this.state.gpu && !this.catalog.gpus.some((g) => g.id === this.state.gpu)) this.state = { ...this.state, gpu: '' };
      if (this.views) {
        this.build();
        this.render();
      }
    }

    change(patch, { push }) {
      this.state = { ...this.state, ...patch };
      const query = toQuery(this.state, this.catalog);
      if (this.urlBound) this.writeUrl(query, push);
      this.render();
      this.dispatchEvent(new CustomEvent('vram-change', { detail: { state: this.state, query } }));
    }

    /**
     * Typing rewrites the current history entry; a committed change puts
     * that entry back and pushes a new one, so Back returns to the last
     * committed state, not a half-typed one. The address is written after
     * the answer is drawn, in a task of its own: replaceState and pushState
     * cost milliseconds each, more than a whole recompute, and browsers
     * throttle frequent calls. While typing it is written at most every
     * 150 ms; commits made in one task (a script setting several inputs)
     * make one history entry.
     */
    writeUrl(query, push) {
      clearTimeout(this.urlTimer);
      if (!push) {
        this.pendingPush = undefined;
        this.urlTimer = setTimeout(() => window.history.replaceState(null, '', this.urlOf(query)), 150);
        return;
      }
      this.pendingPush = query;
      this.urlTimer = setTimeout(() => this.flushUrl(), 0);
    }

    /** The address with this query, keeping the path and the fragment. */
    urlOf(search) {
      return `${window.location.pathname}${search}${window.location.hash}`;
    }

    /** Writes a committed change not yet in the address (at once: "Copy link" reads it). */
    flushUrl() {
      const query = this.pendingPush;
      if (query === undefined) return;
      clearTimeout(this.urlTimer);
      this.pendingPush = undefined;
      if (this.committed !== query) {
        if (window.location.search !== this.committed) window.history.replaceState(null, '', this.urlOf(this.committed));
        window.history.pushState(null, '', this.urlOf(query));
      }
      this.committed = query;
    }

    /**
     * Builds the whole interface in the current language. A rebuild (a new
     * language, digits or catalog) keeps the state, which <details> are open,
     * what the search box and the paste box hold, and the focus.
     */
    build() {
      this.builtFor = this.setLanguage();
      const t = this.t;
      const embed = this.readEmbed();
      this.embed = embed;
      const focused = this.shadowRoot.activeElement && this.shadowRoot.activeElement.id;
      const before = this.inputs;
      const ctx = {
        t,
        // say(unit)(message): the core's messages in this language and display unit.
        say: (unit) => translator(t.lang, { digits: this.wanted().digits, unit }).render,
        core: this.core,
        catalog: this.catalog,
        root: this.shadowRoot,
        open: this.open,
        inputs: embed.inputs,
        emit: (result, error) => this.answered(result, error),
        change: (patch, options) => this.change(patch, options),
        // A model opened from another view: as the model picker opens it.
        pickModel: (id, extra) => this.inputs.pickModel(id, extra),
        rent: embed.rent && {
          template: embed.rent,
          // Cancelable: a host that takes the pick itself stops the link.
          pick: (detail) => this.dispatchEvent(new CustomEvent('vram-pick', { detail, cancelable: true })),
        },
        // network="off": no model-id field, so the page never fetches a model.
        network: this.getAttribute('network') !== 'off',
        // A checkpoint's headers are parsed off the page's thread (web/src/reader.js), one reader per read.
        reader: () => (factory.reader ? factory.reader({ limitMs: () => this.readTimeLimit }) : null),
      };
      ctx.state = this.state;
      this.ctx = ctx;
      this.notices = h('div', { class: 'notices' });
      this.shownNotices = '';
      this.inputs = new InputsPanel(ctx);
      if (before) this.inputs.carry(before);
      this.answer = new AnswerBar(ctx);
      this.lastPick = undefined;
      this.unit = h('select', { id: 'unit', onchange: () => this.change({ unit: this.unit.value }, { push: true }) },
        UNITS.map((u) => h('option', { value: u }, t(`unit.${u}`))));
      const tools = [h('label', { for: 'unit' }, t('input.unit')), this.unit];
      if (this.urlBound) {
        // The standalone page's language picker; each name in its own language.
        this.langPicker = h('select', { id: 'lang', onchange: () => this.change({ lang: this.langPicker.value }, { push: true }) },
          LANGUAGES.map((l) => h('option', { value: l, lang: l, dir: l === 'en' ? 'ltr' : 'rtl' }, t(`lang.${l}`))));
        this.langPicker.value = this.frame.lang;
        tools.unshift(h('label', { for: 'lang' }, t('lang.label')), this.langPicker);
        this.linkStatus = h('span', { class: 'muted', role: 'status' });
        this.linkBox = h('input', { id: 'link', type: 'text', readonly: true, hidden: true, 'aria-label': t('link.box') });
        // Off unless asked: a copied link does not pass a link's prices on.
        this.keepCatalog = h('input', { id: 'keep-catalog', type: 'checkbox', checked: Boolean(this.keepCatalog && this.keepCatalog.checked) });
        this.keepCatalogLabel = h('label', { class: 'check keep-catalog', for: 'keep-catalog', hidden: true }, this.keepCatalog, t('link.keepCatalog'));
        tools.push(h('button', { type: 'button', class: 'copy', onclick: () => this.copyLink() }, t('link.copy')), this.keepCatalogLabel, this.linkStatus, this.linkBox);
      }
      this.views = {};
      this.tabs = {};
      this.panels = {};
      for (const name of VIEWS) {
        this.views[name] = new VIEW_CLASSES[name](ctx);
        this.tabs[name] = h('button', {
          type: 'button', role: 'tab', id: `tab-${name}`, 'aria-controls': `panel-${name}`,
          onclick: () => this.selectView(name, false),
        }, h('bdi', {}, t(`view.${name}`)));
        // A panel is taller than a phone's screen: focus that lands on it
        // scrolls nothing while any of it shows, so its top (the focus ring)
        // may sit under the sticky strip; bring its top below the strip
        // (scroll-margin, style.css).
        const panel = h('div', { role: 'tabpanel', id: `panel-${name}`, 'aria-labelledby': `tab-${name}`, tabindex: 0 }, this.views[name].element);
        panel.addEventListener('focus', (event) => event.target === panel && this.answer.uncover(panel));
        this.panels[name] = panel;
      }
      const tablist = h('div', { role: 'tablist', class: 'tabs', 'aria-label': t('view.label') }, Object.values(this.tabs));
      // On a phone a view other than the calculator comes before its inputs
      // (render): one tap takes the reader down to them.
      this.toInputs = h('button', { type: 'button', class: 'link to-inputs', onclick: () => this.focusInputs() }, t('view.toInputs'));
      tablist.addEventListener('keydown', (event) => this.tabKey(event));
      this.frame.classList.toggle('compact', embed.compact);
      this.frame.classList.toggle('no-inputs', Boolean(embed.inputs && !embed.inputs.length));
      for (const part of ['header', 'tabs']) this.frame.classList.toggle(`no-${part}`, embed.hide.includes(part));
      replace(this.frame,
        h('header', { class: 'head' },
          h('div', {}, h('h2', { class: 'title' }, t('app.title')), h('p', { class: 'muted tagline' }, t('app.tagline'))),
          h('div', { class: 'tools' }, tools)),
        this.notices,
        this.answer.element,
        (this.layout = h('div', { class: 'layout' }, this.inputs.element, h('main', { class: 'main' }, tablist, this.toInputs, Object.values(this.panels)))),
      );
      if (focused) this.shadowRoot.getElementById(focused)?.focus();
    }

    /** Arrow keys move between tabs (mirrored right to left), Home and End jump. */
    tabKey(event) {
      const index = VIEWS.indexOf(this.state.view);
      const rtl = this.frame.dir === 'rtl';
      const step = { ArrowRight: rtl ? -1 : 1, ArrowLeft: rtl ? 1 : -1, Home: -index, End: VIEWS.length - 1 - index }[event.key];
      if (step === undefined) return;
      event.preventDefault();
      this.selectView(VIEWS[(index + step + VIEWS.length) % VIEWS.length], true);
    }

    selectView(name, focus) {
      if (name !== this.state.view) this.change({ view: name }, { push: true });
      if (focus) this.tabs[name].focus();
      // On a phone the view moved above its inputs: its tab, if now above
      // the screen, comes into view. Asked in the next frame, before it is
      // painted: asked here, the question would force the new view's
      // layout inside the click (22 ms of a 37 ms click on the grid),
      // which the frame then does anyway.
      const tab = this.tabs[name];
      requestAnimationFrame(() => {
        if (tab.getBoundingClientRect().top < 0) tab.scrollIntoView({ block: 'start' });
      });
    }

    /**
     * The inputs panel scrolled to and focused (not its first field: on a
     * phone a focused text field opens the keyboard); Tab goes on into it.
     */
    focusInputs() {
      this.inputs.element.focus();
    }

    /**
     * The address to copy: as it is, but without a link's catalog
     * (#catalog=) unless the reader ticked the box to keep it.
     */
    linkToCopy() {
      const url = new URL(window.location.href);
      if (this.catalogSource === 'link' && !this.keepCatalog.checked) {
        const params = new URLSearchParams(url.hash.slice(1));
        params.delete('catalog');
        url.hash = params;
      }
      return url.href;
    }

    async copyLink() {
      const { t } = this;
      this.flushUrl();
      const href = this.linkToCopy();
      try {
        await navigator.clipboard.writeText(href);
        this.linkBox.hidden = true;
        this.linkStatus.textContent = t('link.copied');
      } catch {
        // No clipboard (file://, permissions): select the link for Ctrl+C.
        this.linkBox.hidden = false;
        this.linkBox.value = href;
        this.linkBox.focus();
        this.linkBox.select();
        this.linkStatus.textContent = t('link.manual');
      }
    }

    render() {
      const wanted = this.wanted();
      if (wanted.key !== this.builtFor) this.build();
      // The display unit is the renderer's too: a new unit, another translator.
      this.t = wanted.t;
      const t = this.t;
      this.ctx.t = t;
      this.ctx.state = this.state;
      // At most MAX_NOTICES problems in words, then their count: a crafted
      // link with 100,000 bad parameters must not bury the page.
      const problem = ({ param, error, preset, source }) => {
        if (param === '') return t('error.query', { problem: problemMessage(error) });
        const id = preset !== undefined ? 'error.preset' : source === 'attribute' ? 'error.attribute' : 'error.url';
        return t(id, { param, preset, problem: problemMessage(error) });
      };
      const more = this.problems.length - MAX_NOTICES;
      const notices = [
        ...this.problems.slice(0, MAX_NOTICES).map(problem),
        more > 0 ? t('error.moreIgnored', { count: more }) : null,
        this.catalogProblem && t(this.catalogProblem.id, this.catalogProblem.params),
        // Prices from a link are said to be so: never a silent swap on the site's own page.
        this.catalogSource === 'link' && this.vendorCatalog ? t('catalog.fromLink') : null,
        ...this.embedProblems,
      ].filter(Boolean);
      if (notices.join('\n') !== this.shownNotices) {
        this.shownNotices = notices.join('\n');
        replace(this.notices, notices.map((notice) => h('p', { class: 'notice', role: 'status', dir: t.dir === 'rtl' ? 'rtl' : 'auto' }, notice)));
      }
      assign(this.unit, 'value', this.state.unit);
      if (this.langPicker) assign(this.langPicker, 'value', this.frame.lang);
      if (this.keepCatalogLabel) assign(this.keepCatalogLabel, 'hidden', !(this.catalogSource === 'link' && this.vendorCatalog));
      this.inputs.sync(this.state);
      for (const name of VIEWS) {
        const active = name === this.state.view;
        // Only when it changes (as the inputs' quick picks, inputs.js sync).
        if (this.tabs[name].getAttribute('aria-selected') !== String(active)) this.tabs[name].setAttribute('aria-selected', String(active));
        assign(this.tabs[name], 'tabIndex', active ? 0 : -1);
        assign(this.panels[name], 'hidden', !active);
      }
      // The calculator's answer strip sits above its inputs; every other
      // view is its own answer, so it comes before its inputs in the
      // document: on a phone's one column it is on the first screen and
      // the keyboard meets it first (at desk the inputs keep their column).
      const inputsFirst = this.state.view === 'calculator';
      if ((this.layout.firstChild === this.inputs.element) !== inputsFirst) {
        if (inputsFirst) this.layout.prepend(this.inputs.element);
        else this.layout.append(this.inputs.element);
      }
      // Read as the attribute: a form's named controls shadow its properties
      // when read, and the custom shape has a field named "hidden".
      assign(this.toInputs, 'hidden', inputsFirst || this.inputs.element.hasAttribute('hidden') || this.frame.classList.contains('no-inputs'));
      // The answer strip belongs to the calculator's answer; compact shows it alone.
      if (this.state.view !== 'calculator') this.answer.clear();
      this.frame.classList.toggle('answer-only', this.embed.compact && this.state.view === 'calculator');
      this.views[this.state.view].update(this.state, this.vendorCatalog);
      // Back on the calculator with an unchanged answer: the strip shows it (or why there is none) again.
      if (this.state.view === 'calculator' && this.answer.element.hidden) {
        if (this.lastResult) this.answer.update(this.lastResult, this.state);
        else if (this.lastError) this.answer.error(this.lastError);
      }
    }
  }

  customElements.define('vram-calculator', VramCalculator);
}
