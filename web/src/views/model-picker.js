// The model picker: an editable combobox with a listbox popup (WAI-ARIA 1.2
// combobox pattern). Typing filters and ranks the presets (search.js);
// ArrowDown and ArrowUp move the highlight, Enter picks the highlighted
// entry, Escape closes the list (a second Escape restores the chosen
// model's name). The chosen id is `value`; the text shows its name.
import { assign, h, replace } from '../dom.js';
import { namedFormat, searchEntry, searchModels } from '../search.js';
import { modelName } from './common.js';

// Longer than any name or alias; a pasted essay is cut, not searched.
const MAX_QUERY = 120;

export class ModelPicker {
  /**
   * t: the translator; models: the catalog's models; own: [{ value, label }]
   * for the choices that are not presets (custom shape, config.json);
   * formats: the catalog's weight formats, which a typed name may give
   * ("Qwen/Qwen3-32B-FP8"); onPick(id, named): a choice was made, `named`
   * { weights, query } when it was picked from a query that names a format;
   * onConfig(repo): the user asked for the config.json route from an empty
   * result; `repo` is the query when it is a Hub model id and `hubId` (the
   * page's test for one, null when the page fetches nothing) says so.
   */
  constructor({ t, models, own, formats = [], hubId = null, onPick, onConfig }) {
    this.t = t;
    this.onPick = onPick;
    this.value = '';
    this.models = models;
    this.formats = formats;
    // The text the shown list was searched for ('' for the whole list).
    this.query = '';
    // The search index is built on the first search, not with the page:
    // most visits never type in the box.
    this.index = null;
    this.groups = {};
    for (const model of models) this.groups[model.id] = t(`group.${model.group}`);
    this.own = own;
    // A text box's value carries no isolate marks (they would be copied and searched).
    this.labels = new Map([...models.map((m) => [m.id, modelName(t, models, m.id).replace(/[\u2066-\u2069]/g, '')]), ...own.map((o) => [o.value, o.label])]);
    this.shown = [];
    this.active = -1;

    this.input = h('input', {
      id: 'model', name: 'model', type: 'text', role: 'combobox', autocomplete: 'off', spellcheck: 'false',
      maxlength: MAX_QUERY, 'aria-autocomplete': 'list', 'aria-expanded': 'false', 'aria-controls': 'model-list',
      'aria-describedby': 'model-status',
    });
    this.list = h('ul', { id: 'model-list', role: 'listbox', class: 'listbox', 'aria-label': t('input.model'), hidden: true });
    this.status = h('p', { id: 'model-status', class: 'hint', 'aria-live': 'polite' });
    this.hubId = hubId;
    this.configButton = h('button', { type: 'button', class: 'link', hidden: true, onclick: () => onConfig(this.repo) }, t('search.useConfig'));
    this.element = h('div', { class: 'field combo' },
      h('label', { for: 'model' }, t('input.model')),
      h('div', { class: 'combo-box' }, this.input, this.list),
      this.status, this.configButton);

    this.input.addEventListener('input', () => this.filter(true));
    this.input.addEventListener('keydown', (event) => this.key(event));
    this.input.addEventListener('click', () => this.open ? null : this.filter(false));
    this.input.addEventListener('blur', (event) => {
      this.close();
      // Tabbing to "Load its config.json" keeps the offer; leaving elsewhere ends the search.
      if (event.relatedTarget !== this.configButton) this.endSearch();
    });
    this.configButton.addEventListener('mousedown', (event) => event.preventDefault());
    this.configButton.addEventListener('click', () => this.endSearch());
    // Keep the focus in the input while the pointer picks an option.
    this.list.addEventListener('mousedown', (event) => event.preventDefault());
    this.list.addEventListener('click', (event) => {
      const option = event.target.closest('[role=option]');
      if (option) this.choose(option.dataset.value);
    });
  }

  /** Every preset as search.js ranks it (searchEntry), built once, when first searched. */
  get entries() {
    return (this.index ||= this.models.map(searchEntry));
  }

  get open() {
    return !this.list.hidden;
  }

  /** Shows the chosen model's name, unless the user is typing in the box. */
  /** A new label for one of the page's own choices (the imported model, named as its file). */
  label(value, label) {
    if (this.labels.get(value) === label) return;
    this.labels.set(value, label);
    this.own = this.own.map((o) => (o.value === value ? { ...o, label } : o));
  }

  sync(value, focused) {
    this.value = value;
    if (!focused) assign(this.input, 'value', this.labels.get(value) ?? '');
  }

  /** Rebuilds the list for the text in the box; `typed`: from a keystroke. */
  filter(typed) {
    const { t } = this;
    const query = this.input.value.trim();
    const chosen = this.labels.get(this.value);
    const all = !query || (!typed && query === chosen);
    const ids = all ? this.models.map((m) => m.id) : searchModels(this.entries, query, this.formats);
    this.query = all ? '' : query;
    this.shown = [...ids.map((id) => ({ value: id, label: this.labels.get(id), group: this.groups[id] })),
      ...this.own.map((o) => ({ ...o, group: t('group.own') }))];
    replace(this.list, this.shown.map((o, i) => h('li', {
      id: `model-option-${i}`, role: 'option', dataset: { value: o.value }, 'aria-selected': 'false',
    }, h('span', {}, o.label), h('span', { class: 'muted small' }, o.group))));
    const none = !all && !ids.length;
    // Nothing matched: no list, the status line says so and offers config.json.
    this.list.hidden = none;
    this.input.setAttribute('aria-expanded', String(!none));
    this.configButton.hidden = !none;
    // A Hub id that no preset matches: the offer is to fetch that model's config.
    this.repo = none && this.hubId && this.hubId(query) ? query : null;
    this.configButton.textContent = this.repo ? t('search.useHub', { id: this.repo }) : t('search.useConfig');
    this.status.textContent = all ? t('search.hint') : none ? t('search.none', { query }) : t('search.count', { count: ids.length });
    // Typing highlights the best match; opening the whole list, the current model.
    this.highlight(all ? Math.max(0, this.shown.findIndex((o) => o.value === this.value)) : none ? -1 : 0);
  }

  highlight(index) {
    const options = this.list.children;
    if (this.active >= 0 && options[this.active]) options[this.active].setAttribute('aria-selected', 'false');
    this.active = index;
    if (index < 0 || !options[index]) {
      this.input.removeAttribute('aria-activedescendant');
      return;
    }
    options[index].setAttribute('aria-selected', 'true');
    this.input.setAttribute('aria-activedescendant', options[index].id);
    if (options[index].scrollIntoView) options[index].scrollIntoView({ block: 'nearest' });
  }

  close() {
    this.list.hidden = true;
    this.input.setAttribute('aria-expanded', 'false');
    this.input.removeAttribute('aria-activedescendant');
    this.active = -1;
  }

  /** The box shows the chosen model again; no status, no offer. */
  endSearch() {
    this.input.value = this.labels.get(this.value) ?? '';
    this.status.textContent = '';
    this.configButton.hidden = true;
  }

  choose(value) {
    const { query } = this;
    const weights = query && this.models.some((m) => m.id === value) ? namedFormat(query, this.formats) : null;
    this.close();
    this.value = value;
    this.endSearch();
    this.onPick(value, weights ? { weights, query } : null);
  }

  key(event) {
    const count = this.shown.length;
    switch (event.key) {
      case 'ArrowDown':
      case 'ArrowUp': {
        event.preventDefault();
        if (!this.open) {
          this.filter(false);
          if (event.altKey) return;
        }
        if (!count) return;
        const step = event.key === 'ArrowDown' ? 1 : -1;
        this.highlight(this.active < 0 ? (step > 0 ? 0 : count - 1) : (this.active + step + count) % count);
        return;
      }
      case 'Enter':
        // Inside the inputs <form>: never submit it.
        event.preventDefault();
        if (this.open && this.active >= 0) this.choose(this.shown[this.active].value);
        return;
      case 'Escape':
        if (this.open) {
          event.preventDefault();
          this.close();
        } else if (this.input.value !== (this.labels.get(this.value) ?? '')) {
          event.preventDefault();
          this.input.value = this.labels.get(this.value) ?? '';
        }
        return;
      default:
    }
  }
}
