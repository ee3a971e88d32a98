// The inputs every view shares: the model (preset, custom shape or
// config.json), formats, load, mode and its options, engine and its options,
// the card. Built once; `sync` writes state into them without touching the
// one that has focus, so typing never loses the caret. Numbers are text
// inputs shown in the language's digits (a number input shows Latin digits
// whatever the page's language, and refuses Persian ones); what is typed in
// any of the three digit systems is read back as Latin digits.
import { readConfigText } from '../config.js';
import { checkpointLimits, fileKind, hubFiles, isHubId, readCheckpoint } from '../checkpoint.js';
import { assign, h, replace } from '../dom.js';
import { visibleInputs } from '../embed.js';
import { failureReason, problemMessage } from '../i18n.js';
import { CONTEXT_PICKS, SUFFIXES, TYPED_CHARS, parseSignedNumber } from '../numbers.js';
import { modelName, nameOf } from './common.js';
import { ModelPicker } from './model-picker.js';
import {
  CUSTOM, IMPORTED, SHAPE,
  appliesTo, choicesOf, engineById, finetuneInputs, ownDrafter, splitsCards, takesEagle, takesImageSize, takesImages, takesMtp, inputLimits, numberReading, readOption, readParam, weightsFor, weightsForModel, weightsOnModel,
} from '../state.js';

/**
 * An engine's name in the picker, as the core names it in answers
 * (EngineProfile::label): a convention is a sentence worded with its own
 * default (engine.guide, engine.percent); a product keeps its name.
 */
export function engineLabel(t, engine) {
  return typeof engine.label === 'string' ? engine.label : t.render(engine.label);
}

// A typed value commits after this pause.
const TYPING_PAUSE_MS = 600;

export class InputsPanel {
  /** ctx: { t, catalog, state, open, change(patch, { push }), root } */
  constructor(ctx) {
    this.ctx = ctx;
    this.controls = {};
    this.fields = {};
    this.errors = {};
    this.numeric = {};
    const { t, catalog } = ctx;

    this.picker = new ModelPicker({
      t,
      models: catalog.models,
      own: [{ value: CUSTOM, label: t('model.custom') }, { value: IMPORTED, label: t('model.config') }],
      formats: catalog.weight_formats,
      onPick: (id, named) => {
        if (named) this.pickNamed(id, named);
        else if (id !== this.ctx.state.model) this.pick('model', id, true);
      },
      hubId: ctx.network ? isHubId : null,
      // A Hub id typed in the search: fetched as if typed in the Hub field.
      onConfig: (repo) => {
        if (!repo || !this.hub) {
          this.file.focus();
          return;
        }
        this.hub.open = true;
        this.hubId.value = repo;
        this.hub.querySelector('#hub-load').focus();
        this.loadHub();
      },
    });

    const select = (name, options) =>
      this.control(name, h('select', {}, options.map(([value, label]) => h('option', { value }, label))));
    // Read as the link reads them (state.js): whole or not, and k as 1,024 in token counts.
    const number = (name) => {
      this.numeric[name] = numberReading(catalog, name);
      const tokens = this.numeric[name].suffixes === 'tokens';
      // Token fields keep the letter keyboard on phones, for "32k".
      return this.control(name, h('input', { type: 'text', inputmode: tokens ? 'text' : 'decimal', autocomplete: 'off', spellcheck: 'false', dataset: { number: '' } }));
    };
    const check = (name) => this.control(name, h('input', { type: 'checkbox' }), 'checked');

    const weights = [['native', t('input.weights.native')], ...catalog.weight_formats.map((f) => [f.id, f.name])];
    select('weights', weights);
    select('kv', catalog.kv_formats.map((f) => [f.id, f.name]));
    number('context');
    number('batch');
    number('min_tokens_per_s');
    number('images');
    number('image_size');
    select('mode', choicesOf(catalog, 'mode').map((m) => [m, t(`mode.${m}`)]));
    number('seq');
    number('micro_batch');
    select('optimizer', choicesOf(catalog, 'optimizer').map((o) => [o, t(`optimizer.${o}`)]));
    number('momentum');
    select('precision', choicesOf(catalog, 'precision').map((p) => [p, t(`precision.${p}`)]));
    select('loss', choicesOf(catalog, 'loss').map((l) => [l, t(`loss.${l}`)]));
    check('upcast_unquantized');
    number('lora_rank');
    check('checkpointing');
    check('flash_attention');
    const { min: zeroMin, max: zeroMax } = inputLimits(catalog, 'zero');
    select('zero', Array.from({ length: zeroMax - zeroMin + 1 }, (_, i) => zeroMin + i).map((z) => [String(z), t(`zero.${z}`, { stage: z })]));
    check('offload_optimizer');
    select('finetune_profile', choicesOf(catalog, 'finetune_profile').map((p) => [p, t(`profile.${p}`)]));
    select('engine', catalog.engines.map((e) => [e.id, engineLabel(t, e)]));
    // Speculative decoding: a smaller model of the catalog as the draft.
    select('draft_model', [['', t('input.draft_none')], ...catalog.models.map((m) => [m.id, modelName(t, catalog.models, m.id, m.name)])]);
    number('draft_tokens');
    // Who drafts, for a model that carries its own MTP layers or has an EAGLE-3 head: a draft
    // model, or those.
    const drafters = { mtp: 'input.draft_mtp', eagle3: 'input.draft_eagle3' };
    select('speculative', choicesOf(catalog, 'speculative').map((s) => [s, t(drafters[s] || 'input.speculative_draft')]));
    const gpus = h('select', {}, h('option', { value: '' }, t('input.gpu.none')));
    for (const [label, rentable] of [[t('gpu.fleet'), true], [t('gpu.other'), false]]) {
      const list = catalog.gpus.filter((g) => (g.monthly_usd != null || g.hourly_usd != null) === rentable);
      if (list.length) gpus.append(h('optgroup', { label }, list.map((g) => h('option', { value: g.id }, t('gpu.option', { name: g.name, size: { id: 'size.gbPlain', params: { gb: g.vram_gb } } })))));
    }
    this.control('gpu', gpus);
    number('gpu_count');
    // Unequal cards in one machine (llama.cpp's --tensor-split): a list of
    // cards of the catalog, built anew when it changes (syncSplit).
    this.gpuOptions = () => [...gpus.options].filter((o) => o.value).map((o) => [o.value, o.textContent]);
    this.splitRows = h('div', { class: 'stack split-rows' });
    this.splitAdd = h('button', { type: 'button', class: 'split-add', onclick: () => this.addSplitCard() }, t('input.splitAdd'));
    this.splitBox = h('fieldset', { class: 'split-cards' },
      h('legend', {}, t('input.split_gpus')),
      this.splitRows, this.splitAdd,
      h('p', { class: 'hint', id: 'split-help' }, t('input.splitHint', { flag: '--tensor-split' })));
    this.splitShown = null;
    // What other processes hold on the reader's card ("nvidia-smi shows 3 GB used").
    number('gpu_used_gb');
    this.fields.gpu_used_gb.append(h('p', { id: 'gpu_used_gb-help', class: 'hint' }, t('input.gpuUsedHint')));
    this.controls.gpu_used_gb.el.setAttribute('aria-describedby', 'gpu_used_gb-help gpu_used_gb-error');
    // One's own memory ("my card has 20 GB"): the core fits against it.
    number('budget_gb');
    this.fields.budget_gb.append(h('p', { id: 'budget_gb-help', class: 'hint' }, t('input.budgetHint')));
    this.controls.budget_gb.el.setAttribute('aria-describedby', 'budget_gb-help budget_gb-error');
    this.controls.budget_gb.el.placeholder = t('input.budgetPlaceholder');
    number('usable_fraction');
    // A second model served on the same card (an embedding or reranker model), and its tokens:
    // the catalog's pooling models (task 'embed' or 'rerank', the core's listing) first.
    const companion = (m) => h('option', { value: m.id }, modelName(t, catalog.models, m.id, m.name));
    const pooling = catalog.models.filter((m) => m.task !== 'generate');
    this.control('companion_model', h('select', {}, h('option', { value: '' }, t('input.companion_none')),
      pooling.length ? h('optgroup', { label: t('group.embedding') }, pooling.map(companion)) : null,
      h('optgroup', { label: t('input.companion_other') }, catalog.models.filter((m) => m.task === 'generate').map(companion))));
    number('companion_context');
    for (const name of Object.keys(SHAPE)) number(name);
    number('params');

    // LoRA targets: a group of checkboxes, one state value.
    this.targets = choicesOf(catalog, 'lora_targets').map((target) => {
      const box = h('input', { type: 'checkbox', id: `target-${target}`, value: target });
      box.addEventListener('change', () => this.commitTargets());
      return box;
    });
    this.controls.lora_targets = { el: this.targets[0] };
    this.fields.lora_targets = h('fieldset', { class: 'checks' },
      h('legend', {}, t('input.lora_targets')),
      this.targets.map((box) => h('label', { class: 'check' }, box, box.value)),
      this.errorNode('lora_targets'),
    );

    // config.json: choose a file, drop one anywhere on the panel, or paste.
    // The browser words a file input's button and status in its own
    // language, not the page's: the input is hidden (still focusable) and
    // its label, in the page's words, is the button.
    this.file = h('input', { id: 'config-file', type: 'file', class: 'file visually-hidden', multiple: true, accept: '.json,application/json,.gguf,.safetensors' });
    this.file.addEventListener('change', () => this.loadFiles(this.file.files));
    this.checkpointInfo = h('p', { id: 'checkpoint-info', class: 'hint', 'aria-live': 'polite', hidden: true });
    // Said when an engine change moves the weights to a format it loads.
    this.weightsNote = h('p', { id: 'weights-note', class: 'hint', 'aria-live': 'polite', hidden: true });
    // A Hugging Face model id, fetched only when the user asks (web/src/checkpoint.js hubFiles).
    this.hubId = h('input', { id: 'hub-id', type: 'text', spellcheck: 'false', dir: 'ltr', placeholder: 'Qwen/Qwen3-32B-AWQ' });
    this.hubToken = h('input', { id: 'hub-token', type: 'password', autocomplete: 'off', dir: 'ltr' });
    this.hub = ctx.network
      ? h('details', { class: 'hub' }, h('summary', {}, t('hub.title')),
        h('div', { class: 'field' }, h('label', { for: this.hubId.id }, t('hub.id')), this.hubId),
        h('div', { class: 'field' }, h('label', { for: this.hubToken.id }, t('hub.token')), this.hubToken, h('p', { class: 'hint' }, t('hub.tokenHint'))),
        h('button', { id: 'hub-load', type: 'button', onclick: () => this.loadHub() }, t('hub.load')))
      : null;
    this.paste = h('textarea', { id: 'config-text', rows: 5, spellcheck: 'false', 'aria-describedby': 'config-error' });
    this.paste.addEventListener('input', () => this.loadText(this.paste.value, t('config.pasted'), false));
    this.paste.addEventListener('change', () => this.loadText(this.paste.value, t('config.pasted'), true));
    this.configError = h('p', { id: 'config-error', class: 'error', role: 'alert', hidden: true });

    this.engineOptions = h('div', { class: 'options' });
    this.shownEngine = null;

    const f = (name) => this.fields[name];
    this.groups = {};
    const section = (key, ...children) => h('fieldset', { class: 'group' }, h('legend', {}, t(key)), children);
    this.pasteBox = this.remember(h('details', { class: 'paste' }, h('summary', {}, t('input.configPaste')), h('label', { for: this.paste.id, class: 'visually-hidden' }, t('input.configPaste')), this.paste), 'paste');
    this.sections = {
      inference: h('div', { class: 'stack' }, f('weights'), this.weightsNote, f('kv'), f('context'), this.contextPicks(), f('batch'), f('min_tokens_per_s'), f('images'), f('image_size'), f('engine'), this.engineOptions, f('speculative'), f('draft_model'), f('draft_tokens')),
      // The fine-tuning inputs: the core's (its schema's modes), in the page's order.
      finetune: h('div', { class: 'stack' }, finetuneInputs(catalog).map(f)),
      custom: section('input.shape', Object.keys(SHAPE).map(f), f('params')),
      devices: h('div', { class: 'stack' }, f('usable_fraction')),
    };
    // What shares the card: a second model's server, after the engine's inputs.
    this.sections.inference.append(f('companion_model'), f('companion_context'));
    // tabindex -1: focusable from a script (the phone's jump to the inputs), not a Tab stop.
    this.element = h('form', { class: 'inputs', tabindex: -1, 'aria-label': t('input.panel'), onsubmit: (e) => e.preventDefault() },
      this.groups.model = section('input.modelGroup',
        this.picker.element,
        this.sections.custom,
        h('div', { class: 'field drop' }, this.file, h('label', { for: this.file.id, class: 'file-button' }, t('input.configFile')), h('p', { class: 'hint' }, t('input.configDrop')), h('p', { class: 'hint' }, t('input.checkpointHint'))),
        this.pasteBox,
        this.hub,
        this.checkpointInfo,
        this.configError,
      ),
      this.groups.workload = section('input.workload', f('mode'), this.sections.inference, this.sections.finetune),
      this.groups.hardware = section('input.hardware', f('gpu'), f('gpu_count'), this.splitBox, f('gpu_used_gb'), f('budget_gb'), this.sections.devices),
    );
    this.element.addEventListener('dragover', (event) => {
      event.preventDefault();
      this.element.classList.add('dragging');
    });
    this.element.addEventListener('dragleave', () => this.element.classList.remove('dragging'));
    this.element.addEventListener('drop', (event) => {
      event.preventDefault();
      this.element.classList.remove('dragging');
      const files = event.dataTransfer && event.dataTransfer.files;
      if (files && files.length) this.loadFiles(files);
      else if (event.dataTransfer) this.loadText(event.dataTransfer.getData('text/plain'), t('config.dropped'), true);
    });
  }

  /** A <details> whose open state is kept in ctx.open under `key`, across rebuilds. */
  remember(details, key, openByDefault = false) {
    const open = this.ctx.open;
    const known = open.has(key) || open.has(`closed:${key}`);
    details.open = known ? open.has(key) : openByDefault;
    details.dataset.key = key;
    details.addEventListener('toggle', () => {
      open.delete(details.open ? `closed:${key}` : key);
      open.add(details.open ? key : `closed:${key}`);
    });
    return details;
  }

  /** What the panel it replaces held that the state does not: the paste box. */
  carry(before) {
    if (before.paste.value && !this.paste.value) this.paste.value = before.paste.value;
  }

  errorNode(name) {
    return (this.errors[name] = h('p', { id: `${name}-error`, class: 'error field-error', hidden: true }));
  }

  /** Registers a control with its label, error line and events. */
  control(name, el, prop = 'value') {
    el.id = name;
    el.name = name;
    el.setAttribute('aria-describedby', `${name}-error`);
    // Whether it reads as a number, kept: sync asks on every redraw.
    const number = el.dataset.number !== undefined;
    this.controls[name] = { el, prop, number };
    const label = h('label', { for: el.id }, this.ctx.t(`input.${name}`));
    if (number) {
      // Only digits (any of the three systems) and separators get typed in.
      el.addEventListener('beforeinput', (event) => {
        if (event.data && !TYPED_CHARS.test(event.data)) event.preventDefault();
      });
    }
    this.fields[name] = prop === 'checked'
      ? h('div', { class: 'field check' }, el, label, this.errorNode(name))
      : h('div', { class: 'field' }, label, el, this.errorNode(name));
    if (this.numberSpec(name)) {
      this.typing(name, el);
      return el;
    }
    el.addEventListener('input', () => this.commit(name, false));
    el.addEventListener('change', () => this.commit(name, true));
    return el;
  }

  /**
   * A number field commits on change, Enter or blur, and after a short pause
   * on a value that reads: never on each keystroke, so the "1" of "1e5" or
   * the "32" of "32k" never reaches the answer or the address.
   */
  typing(name, el) {
    const timers = (this.timers ||= {});
    const stop = () => clearTimeout(timers[name]);
    el.addEventListener('input', () => {
      stop();
      if (!parseSignedNumber(el.value, this.numberSpec(name)).error) timers[name] = setTimeout(() => this.commit(name, false), TYPING_PAUSE_MS);
    });
    el.addEventListener('change', () => {
      stop();
      this.commit(name, true);
    });
    el.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter') return;
      stop();
      this.commit(name, true);
    });
  }

  /**
   * How a number field reads what is typed (numbers.js): the panel's own
   * fields by kind, an engine's options as plain decimals; null for others.
   */
  numberSpec(name) {
    if (this.numeric[name]) return this.numeric[name];
    const control = this.controls[name];
    return control && control.number ? { integer: false } : null;
  }

  /** Buttons for the common context sizes: 4k ... 128k tokens. */
  contextPicks() {
    const { t } = this.ctx;
    return (this.picks = h('div', { class: 'picks', role: 'group', 'aria-label': t('input.contextPicks') },
      CONTEXT_PICKS.map((tokens) => h('button', {
        type: 'button', class: 'pick', dataset: { tokens },
        onclick: () => {
          this.showFieldError('context', null);
          this.ctx.change({ context: tokens }, { push: true });
        },
      }, t('input.contextPick', { k: tokens / SUFFIXES.tokens.k })))));
  }

  /** Reads a control, validates it like a URL parameter, and applies it. */
  commit(name, push) {
    const { el, prop } = this.controls[name];
    let raw = prop === 'checked' ? String(el.checked) : el.value;
    const numeric = this.numberSpec(name);
    if (numeric) {
      // "32k", "32,768", "٣٢٬٧٦٨" to 32768; empty goes on to the schema, which
      // takes it where a field is optional.
      const read = parseSignedNumber(raw, numeric);
      if (read.error && read.error.code !== 'empty') {
        const value = raw.trim().slice(0, 40);
        // A token field names the forms it reads.
        const problem = numeric.suffixes === 'tokens' && read.error.code === 'notNumber' ? { code: 'notTyped', value } : { ...read.error, value };
        this.showFieldError(name, this.ctx.t('error.input', { problem: problemMessage(problem) }));
        return;
      }
      raw = read.error ? '' : String(read.value);
    }
    const { value, error } = name.startsWith('opt.')
      ? readOption(engineById(this.ctx.catalog, this.ctx.state.engine), name.slice(4), raw, this.ctx.catalog)
      : readParam(name, raw, this.ctx.catalog);
    if (error) {
      this.showFieldError(name, this.ctx.t('error.input', { problem: problemMessage(error) }));
      return;
    }
    this.showFieldError(name, null);
    if (name.startsWith('opt.')) {
      // Back to the knob's word: the plan picks, and the address no longer carries it.
      const { [name.slice(4)]: _, ...rest } = this.ctx.state.opts;
      const engine = engineById(this.ctx.catalog, this.ctx.state.engine);
      const picked = typeof value === 'string' && engine && engine.defaults[name.slice(4)] === value;
      this.ctx.change({ opts: picked ? rest : { ...rest, [name.slice(4)]: value } }, { push });
    } else {
      this.pick(name, value, push);
    }
  }

  pick(name, value, push) {
    if (name === 'model' && value === IMPORTED && !this.ctx.state.config) {
      this.showConfigError(this.ctx.t('config.none'));
      this.picker.sync(this.ctx.state.model, false);
      return;
    }
    const patch = { [name]: value };
    if (name === 'engine') patch.opts = {};
    // Weights the reader picks are theirs: no model's rule stands in for them.
    if (name === 'weights') patch.weights_asked = null;
    this.moveWeights(name, value, patch);
    this.ctx.change(patch, { push });
  }

  /**
   * A model chosen elsewhere (the list of models that fit), as the picker
   * picks it: the weights follow it, and the note says so.
   */
  pickModel(id, extra = {}) {
    const patch = { model: id, ...extra };
    this.moveWeights('model', id, patch);
    this.ctx.change(patch, { push: true });
  }

  /**
   * A model picked from a name that gives its weights format
   * ("Qwen/Qwen3-32B-FP8"): the weights are that format, and the note says
   * why. The rules of moveWeights still hold: a checkpoint stored narrower
   * is sized as stored, and an engine that does not load the format takes
   * the nearest it does (FP8 under llama.cpp is GGUF Q8_0).
   */
  pickNamed(id, { weights, query }) {
    const { catalog, state, t } = this.ctx;
    // The name's format is what the reader asks for; the model's rule then holds (weightsOnModel).
    const { patch } = weightsOnModel(catalog, { ...state, weights, weights_asked: null }, id, null);
    const asked = patch.weights_asked || patch.weights;
    const name = (format) => nameOf(catalog.weight_formats, format);
    let text = t('input.weightsFromName', { to: name(weights), name: query });
    if (patch.weights !== asked) text = t('input.weightsNative', { from: name(asked), model: modelName(t, catalog.models, id) });
    else if (asked !== weights) text = t('input.weightsMoved', { from: name(weights), to: name(asked), engine: engineLabel(t, engineById(catalog, state.engine)) });
    this.moved = { name: 'model', value: id, weights: patch.weights, text };
    if (id !== state.model || patch.weights !== state.weights || patch.weights_asked !== state.weights_asked) this.ctx.change({ model: id, ...patch }, { push: true });
    else this.sync(state);
  }

  /**
   * A new engine or model moves the weights into `patch` where they do not
   * suit it (a select commits on input and on change: only a new value
   * moves them), and that is said beside them for as long as the state is
   * that move's (sync).
   */
  moveWeights(name, value, patch) {
    const { catalog, state, t } = this.ctx;
    if ((name !== 'engine' && name !== 'model') || value === state[name]) return;
    this.moved = null;
    if (name === 'model') {
      this.moveWeightsTo(value, patch, value === IMPORTED ? state.checkpoint : null);
      return;
    }
    // Weights the new engine does not load move to the nearest it does.
    const weights = weightsFor(catalog, value, state.weights, state.gpu);
    if (weights === state.weights) return;
    patch.weights = weights;
    const from = nameOf(catalog.weight_formats, state.weights);
    const text = t('input.weightsMoved', { from, to: nameOf(catalog.weight_formats, weights), engine: engineLabel(t, engineById(catalog, value)) });
    this.moved = { name, value, weights, text };
  }

  /**
   * The weights a model choice makes, made again for model `id` into
   * `patch` (state.js weightsOnModel: one rule for every way to a model),
   * and what changed said beside them while the state is that choice's.
   */
  moveWeightsTo(id, patch, checkpoint) {
    const { catalog, state, t } = this.ctx;
    const { patch: weights, note } = weightsOnModel(catalog, state, id, checkpoint);
    Object.assign(patch, weights);
    this.moved = null;
    if (!note) return;
    const name = (format) => nameOf(catalog.weight_formats, format);
    const model = id === IMPORTED ? patch.file || t('model.config') : modelName(t, catalog.models, id);
    this.moved = { name: 'model', value: id, weights: weights.weights, text: t(note.id, { from: name(note.from), to: name(note.to), model }) };
  }

  /** The unequal cards: the first two are the card chosen above, then one more like the last. */
  addSplitCard() {
    const { state } = this.ctx;
    const first = state.gpu || this.gpuOptions()[0][0];
    const cards = state.split_gpus.length ? [...state.split_gpus, state.split_gpus.at(-1)] : [first, first];
    this.ctx.change({ split_gpus: cards }, { push: true });
    this.splitRows.querySelectorAll('select')[cards.length - 1]?.focus();
  }

  /** Rebuilt only when the list changes: a select per card, and a button to take it out. */
  syncSplit(state) {
    const { t } = this.ctx;
    const cards = state.split_gpus;
    const key = cards.join(',');
    if (this.splitShown !== key) {
      this.splitShown = key;
      replace(this.splitRows, cards.map((id, i) => {
        const select = h('select', { id: `split-${i}`, 'aria-describedby': 'split-help' }, this.gpuOptions().map(([value, label]) => h('option', { value }, label)));
        select.value = id;
        select.addEventListener('change', () => this.ctx.change({ split_gpus: cards.map((c, j) => (j === i ? select.value : c)) }, { push: true }));
        // Fewer than two is one kind of card again: the one left is the card above.
        const remove = () => {
          const rest = cards.filter((_, j) => j !== i);
          this.ctx.change(rest.length < 2 ? { split_gpus: [], gpu: rest[0] || state.gpu } : { split_gpus: rest }, { push: true });
          (this.splitRows.querySelector('select') || this.splitAdd).focus();
        };
        return h('div', { class: 'field split-card' },
          h('label', { for: select.id }, t('input.splitCard', { n: i + 1 })),
          h('div', { class: 'row' }, select, h('button', { type: 'button', class: 'split-remove', onclick: remove }, t('input.splitRemove', { n: i + 1 }))));
      }));
    }
    assign(this.splitAdd, 'disabled', cards.length >= this.ctx.catalog.schema.limits.split_gpus.max_items);
  }

  commitTargets() {
    const value = this.targets.filter((box) => box.checked).map((box) => box.value);
    if (!value.length) {
      this.showFieldError('lora_targets', this.ctx.t('error.targets'));
      return;
    }
    this.showFieldError('lora_targets', null);
    this.ctx.change({ lora_targets: value }, { push: true });
  }

  showFieldError(name, message) {
    const node = this.errors[name];
    if (!message && node && node.hidden) return;
    const control = this.controls[name]?.el;
    if (control) control.toggleAttribute('aria-invalid', Boolean(message));
    if (node) {
      node.hidden = !message;
      node.textContent = message || '';
    }
  }

  showConfigError(message) {
    this.configError.hidden = !message;
    this.configError.textContent = message || '';
  }

  async loadFile(file) {
    const { t } = this.ctx;
    try {
      this.loadText(await file.text(), file.name, true);
    } catch (error) {
      console.warn(error);
      this.showConfigError(t('config.error', { source: file.name, problem: { id: 'problem.fileUnread', params: { reason: failureReason(error) } } }));
    }
  }

  /** A config.json alone, or a checkpoint's files (GGUF, safetensors, index, config). */
  loadFiles(list) {
    const files = [...(list || [])];
    if (!files.length) return;
    if (files.length === 1 && fileKind(files[0].name) !== 'gguf' && fileKind(files[0].name) !== 'safetensors') {
      this.loadFile(files[0]);
    } else {
      this.loadCheckpoint(files);
    }
  }

  /** Fetches config.json, the index and the safetensors headers of a Hub model, on request. */
  async loadHub() {
    const { t } = this.ctx;
    this.showConfigError(null);
    this.checkpointInfo.hidden = false;
    this.checkpointInfo.textContent = t('hub.fetching', { id: this.hubId.value.trim() });
    const reader = this.ctx.reader();
    try {
      // The token lives in this input only: never in the state, the address or storage.
      const files = await hubFiles(this.hubId.value, checkpointLimits(await this.ctx.core), { token: this.hubToken.value.trim(), readIndex: reader && ((text) => reader.index(text)) });
      await this.loadCheckpoint(files, this.hubId.value.trim(), reader);
    } catch (error) {
      this.checkpointInfo.hidden = true;
      this.showConfigError(t('config.error', { source: this.hubId.value.trim() || t('hub.id'), problem: problemMessage(error.problem || { code: 'hubNetwork' }) }));
    } finally {
      if (reader) reader.close();
    }
  }

  /**
   * Reads the files' headers (never their data) and applies the checkpoint.
   * The headers are parsed by a background reader (ctx.reader, one per
   * read, closed after it: a refused file leaves no memory behind), so a
   * hostile file cannot freeze the page.
   */
  async loadCheckpoint(files, name, given = null) {
    const { t } = this.ctx;
    this.showConfigError(null);
    this.checkpointInfo.hidden = false;
    this.checkpointInfo.textContent = t('checkpoint.reading', { count: files.length });
    const reader = given || this.ctx.reader();
    try {
      const core = await this.ctx.core;
      const read = await readCheckpoint(files, core, reader);
      const mix = read.summary.by_type.map((m) => ({ id: 'checkpoint.type', params: { type: m.type, bytes: m.gb * 1e9 } }));
      this.checkpointInfo.textContent = t('checkpoint.mix', { kind: read.kind, files: read.checkpoint.files.length, mix });
      // A checkpoint is sized as it is stored: its own tensors, not the page's default format.
      // Named as its file (a split model by its first part) or its Hub id; safetensors shards name no model.
      const file = name || (read.kind === 'gguf' ? files.map((f) => f.name).sort()[0] : '');
      const patch = { model: IMPORTED, config: JSON.stringify(read.config), checkpoint: read.checkpoint, file };
      this.moveWeightsTo(IMPORTED, patch, read.checkpoint);
      this.ctx.change(patch, { push: true });
      if (name) this.checkpointInfo.textContent = `${name}: ${this.checkpointInfo.textContent}`;
    } catch (error) {
      this.checkpointInfo.hidden = true;
      // The core's refusal in the reader's language (its message id); a failure without one by its kind (the English to the console).
      if (!error.messageId && !error.problem) console.warn(error);
      const said = error.messageId || failureReason(error);
      const problem = error.problem ? problemMessage(error.problem) : { id: 'checkpoint.core', params: { field: error.field || '', message: said } };
      this.showConfigError(t('config.error', { source: error.source || error.problem?.source || t('checkpoint.files'), problem }));
    } finally {
      if (reader && !given) reader.close();
    }
  }

  /** Applies config.json text, or says what is wrong with it. */
  loadText(text, source, push) {
    const { value, error } = readConfigText(text);
    if (error) {
      this.showConfigError(this.ctx.t('config.error', { source, problem: problemMessage(error) }));
      return;
    }
    this.showConfigError(null);
    this.checkpointInfo.hidden = true;
    const patch = { model: IMPORTED, config: JSON.stringify(value), checkpoint: null, file: '' };
    this.moveWeightsTo(IMPORTED, patch, null);
    this.ctx.change(patch, { push });
  }

  /** The engine's knobs as inputs, rebuilt only when the engine changes. */
  buildEngineOptions(engine) {
    const { t } = this.ctx;
    for (const name of Object.keys(this.controls)) if (name.startsWith('opt.')) delete this.controls[name];
    const fields = Object.entries(engine.defaults).map(([key, value]) => {
      const name = `opt.${key}`;
      const label = t(`option.${key}`);
      // The knob's one-line help: the core's schema names it (help.engine_options.<knob>).
      const knob = (this.ctx.catalog.schema.engines[engine.id] || []).find((k) => k.name === key);
      // A knob of words (vLLM's mxfp4_backend): one of its choices, each named by the catalog.
      const words = knob && knob.type === 'enum' ? knob.choices : null;
      const input = typeof value === 'boolean'
        ? h('input', { type: 'checkbox' })
        : words
          ? h('select', {}, words.map((word) => h('option', { value: word }, t(`choice.${key}.${word}`))))
          : h('input', { type: 'text', inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false', dataset: { number: '' } });
      this.control(name, input, typeof value === 'boolean' ? 'checked' : 'value');
      this.fields[name].querySelector('label').textContent = label;
      // A knob the plan picks unless set (llama.cpp's -ngl): empty shows the word.
      if (knob && knob.choices && !words && typeof value === 'string') input.placeholder = t(`option.${value}`);
      if (knob && knob.help) {
        // A knob the engine reads only for some models or layouts says which (the schema's applies).
        const text = knob.applies
          ? t('input.knobApplies', { help: { id: knob.help }, condition: { id: `applies.${knob.applies}` } })
          : t(knob.help);
        const hint = h('p', { id: `${name}-help`, class: 'hint' }, text);
        this.fields[name].append(hint);
        input.setAttribute('aria-describedby', `${name}-help ${name}-error`);
      }
      return this.fields[name];
    });
    const sources = Object.entries(engine.option_sources || {});
    // Few people change these: closed by default, except the guide's one knob.
    replace(this.engineOptions, fields.length
      ? this.remember(h('details', {}, h('summary', {}, t('input.engineOptions', { engine: engineLabel(t, engine) })),
          h('div', { class: 'stack' }, fields),
          // The sources are the data's own citations, in the data's language.
          sources.length ? this.remember(h('details', {}, h('summary', {}, t('input.engineSources')), h('dl', { class: 'sources', dir: 'ltr', lang: 'en' }, sources.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]))), `sources-${engine.id}`) : null), `engine-${engine.id}`, fields.length === 1)
      : null);
    this.shownEngine = engine.id;
  }

  /** Writes state into the inputs; the focused one keeps what the user typed. */
  sync(state) {
    const focused = this.ctx.root.activeElement;
    const engine = engineById(this.ctx.catalog, state.engine);
    if (engine && this.shownEngine !== engine.id) this.buildEngineOptions(engine);
    // An imported file is named as itself (its file name or Hub id), a pasted config.json as one.
    this.picker.label(IMPORTED, state.file || this.ctx.t('model.config'));
    this.picker.sync(state.model, focused === this.picker.input);
    // A file's or a paste's error is about that try: another model, chosen
    // or reopened, answers instead, so the error goes with it.
    if (this.syncedModel !== undefined && this.syncedModel !== state.model) this.showConfigError(null);
    this.syncedModel = state.model;
    for (const [name, { el, prop, number }] of Object.entries(this.controls)) {
      if (el === focused || name === 'lora_targets') continue;
      let value = name.startsWith('opt.') ? state.opts[name.slice(4)] ?? engine.defaults[name.slice(4)] : state[name];
      if (prop === 'checked') assign(el, 'checked', Boolean(value));
      else {
        // A knob's word ("auto") shows as the empty field with its placeholder.
        const shown = typeof value === 'string' && el.placeholder ? '' : number ? this.ctx.t.number(value) : String(value ?? '');
        assign(el, 'value', shown);
      }
      this.showFieldError(name, null);
    }
    for (const box of this.targets) assign(box, 'checked', state.lora_targets.includes(box.value));
    this.syncSplit(state);
    // Set only when it changes: setting an attribute, even to the value it
    // has, queues a mutation record and invalidates the styles that read it.
    for (const pick of this.picks.children) {
      const pressed = String(Number(pick.dataset.tokens) === state.context);
      if (pick.getAttribute('aria-pressed') !== pressed) pick.setAttribute('aria-pressed', pressed);
    }
    if (focused !== this.paste && state.model === IMPORTED && this.paste.value.replace(/\s/g, '') !== state.config.replace(/\s/g, '')) {
      this.paste.value = state.config;
    }
    const moved = this.moved && this.moved.value === state[this.moved.name] && this.moved.weights === state.weights ? this.moved.text : null;
    assign(this.weightsNote, 'hidden', !moved);
    assign(this.weightsNote, 'textContent', moved || '');
    this.showFor(state);
  }

  /**
   * Only the inputs that change the view show (embed.js VIEW_INPUTS), and
   * of those only the ones the host's `inputs` attribute names; the mode
   * brings its fine-tuning options, the card its count.
   */
  showFor(state) {
    const show = visibleInputs(state.view, this.ctx.inputs);
    // Only the calculator has a fine-tuning mode; the tables read the inference inputs.
    const finetune = state.view === 'calculator' && state.mode !== 'inference';
    assign(this.sections.inference, 'hidden', finetune);
    assign(this.sections.finetune, 'hidden', !finetune || !show.has('mode'));
    for (const name of ['weights', 'kv', 'context', 'batch', 'mode', 'engine', 'gpu']) assign(this.fields[name], 'hidden', !show.has(name));
    assign(this.fields.min_tokens_per_s, 'hidden', state.view !== 'calculator' || !show.has('batch'));
    // Images per request: the calculator's, for a model with a vision tower.
    assign(this.fields.images, 'hidden', state.view !== 'calculator' || !show.has('batch') || !takesImages(this.ctx.catalog, state));
    // An image's size: beside images, for a tower that takes any resolution (Qwen3-VL's).
    assign(this.fields.image_size, 'hidden', this.fields.images.hidden || !state.images || !takesImageSize(this.ctx.catalog, state));
    assign(this.picks, 'hidden', !show.has('context'));
    assign(this.engineOptions, 'hidden', !show.has('engine'));
    // The model's own MTP layers or its EAGLE-3 head, when it has them, stand instead of a
    // draft model; the choices it lacks are not offered.
    const speculating = show.has('engine') && state.view === 'calculator';
    const mtp = takesMtp(this.ctx.catalog, state);
    const eagle = takesEagle(this.ctx.catalog, state);
    assign(this.fields.speculative, 'hidden', !speculating || !(mtp || eagle));
    for (const option of this.fields.speculative.querySelectorAll('option')) {
      const lacking = (option.value === 'mtp' && !mtp) || (option.value === 'eagle3' && !eagle);
      assign(option, 'hidden', lacking);
      assign(option, 'disabled', lacking);
    }
    const ownLayers = ownDrafter(this.ctx.catalog, state) !== null;
    assign(this.fields.draft_model, 'hidden', !speculating || ownLayers);
    assign(this.fields.draft_tokens, 'hidden', !(state.draft_model || ownLayers) || !speculating);
    // Each fine-tuning input shows where the core takes it (LoRA's rank with LoRA and QLoRA, SGD's momentum with SGD).
    if (finetune) for (const name of finetuneInputs(this.ctx.catalog)) assign(this.fields[name], 'hidden', !appliesTo(this.ctx.catalog, name, state));
    assign(this.sections.custom, 'hidden', state.model !== CUSTOM);
    assign(this.sections.devices, 'hidden', !show.has('usable_fraction'));
    // Unequal cards stand instead of the card and its count, under an engine that splits them.
    const engine = engineById(this.ctx.catalog, state.engine);
    const splitting = splitsCards(this.ctx.catalog, state);
    assign(this.splitBox, 'hidden', !(engine && engine.split_gpus) || state.view !== 'calculator' || state.mode !== 'inference' || !show.has('gpu'));
    if (splitting) assign(this.fields.gpu, 'hidden', true);
    assign(this.fields.gpu_count, 'hidden', !state.gpu || !show.has('gpu') || splitting);
    // Memory others hold on the reader's own card: the calculator's inference answer.
    assign(this.fields.gpu_used_gb, 'hidden', !state.gpu || !show.has('gpu') || state.view !== 'calculator' || state.mode !== 'inference');
    assign(this.fields.budget_gb, 'hidden', !show.has('gpu'));
    // A second model on the card: the calculator's inference answer; its tokens once one is chosen.
    assign(this.fields.companion_model, 'hidden', !show.has('engine') || state.view !== 'calculator');
    assign(this.fields.companion_context, 'hidden', !state.companion_model || !show.has('engine') || state.view !== 'calculator');
    assign(this.groups.model, 'hidden', !show.has('model'));
    assign(this.groups.workload, 'hidden', !['weights', 'kv', 'context', 'batch', 'mode', 'engine'].some((name) => show.has(name)));
    assign(this.groups.hardware, 'hidden', !show.has('gpu') && !show.has('usable_fraction'));
    // The form as the attribute: its control named "hidden" (the custom
    // shape's) shadows the property when read.
    if (this.element.hasAttribute('hidden') !== !show.size) this.element.toggleAttribute('hidden', !show.size);
  }
}
