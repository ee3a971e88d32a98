// The calculator's inputs as a plain object, and their round trip through a
// URL query. Parsing validates every parameter against a schema: unknown or
// malformed ones are reported and ignored, and nothing read from the URL is
// ever executed or inserted as markup. Parameter names are the core's
// request keys where one exists, so a link reads like the CLI.
import { readConfigText } from './config.js';
import { parseSignedNumber } from './numbers.js';
import { searchEntry, searchModels } from './search.js';

export const VIEWS = ['calculator', 'grid', 'devices', 'fleet', 'models', 'curve', 'log'];
export const UNITS = ['GB', 'GiB'];
/** The languages the page speaks (data/messages/), in the picker's order. */
export const LANGUAGES = ['en', 'ar', 'fa'];
/** The `digits` choices (docs/i18n.md): Latin, or the language's own. */
export const DIGITS = ['latn', 'native'];
/**
 * The custom shape's fields and the config.json keys they become; each
 * key's range is the core's (its schema's `config` table, the bounds its
 * importer checks), so the page builds no shape the core refuses by range.
 */
export const SHAPE = {
  hidden: 'hidden_size',
  layers: 'num_hidden_layers',
  heads: 'num_attention_heads',
  kv_heads: 'num_key_value_heads',
  head_dim: 'head_dim',
  ffn: 'intermediate_size',
  vocab: 'vocab_size',
};
/** Model choices that are not presets. */
export const CUSTOM = 'custom';
export const IMPORTED = 'config';

/**
 * The page's own defaults: its view, unit and languages; the guide's
 * worked example (SPEC section 1: 70B in FP8 at 8,192 tokens on an H100
 * PCIe needs 75 GB of its 80, so the page opens on a fit; FP8 where the
 * core's default is the checkpoint's own format); no budget of one's own;
 * the custom shape. Every other input's default is the core's, read from
 * its schema by defaultState: one source for every rule.
 */
export const PAGE_DEFAULTS = Object.freeze({
  view: 'calculator',
  model: 'guide-70b',
  weights: 'fp8',
  unit: 'GB',
  opts: Object.freeze({}),
  gpu: 'h100-pcie',
  // Unequal cards in one machine, split by layers (llama.cpp): instead of
  // gpu and gpu_count while it lists any. Empty: one kind of card.
  split_gpus: Object.freeze([]),
  // Speculative decoding's draft, a model of the catalog; '': none.
  draft_model: '',
  // A second model served on the same card (an embedding or reranker model); '': none.
  companion_model: '',
  // A memory budget of the reader's own ("my card has 20 GB"): the core
  // fits against it instead of the card's capacity. null: the card's.
  budget_gb: null,
  // The custom shape (Llama 3.1 8B's, a sensible start to edit).
  hidden: 4096,
  layers: 32,
  heads: 32,
  kv_heads: 8,
  head_dim: 128,
  ffn: 14336,
  vocab: 128256,
  params: null,
  config: '',
  // '': the element's attribute or host decides (element.js).
  lang: '',
  digits: '',
});

const enumOf = (choices) => ({ kind: 'enum', choices });
const BOOL = { kind: 'bool' };

/**
 * Parameters of the page itself: how to read each. `choices(catalog)` lists
 * the valid values of an enumerated parameter. The custom shape's are the
 * core's config keys (schemaFor reads their ranges from its schema).
 */
const PAGE_SCHEMA = {
  view: enumOf(() => VIEWS),
  model: enumOf((c) => [...c.models.map((m) => m.id), CUSTOM, IMPORTED]),
  unit: enumOf(() => UNITS),
  // No card is a choice of the page; the cards are the catalog's (a vendor's may replace them).
  gpu: enumOf((c) => ['', ...c.gpus.map((g) => g.id)]),
  config: { kind: 'config' },
  // An imported checkpoint's tensor totals (checkpointToLink) and its file's name.
  checkpoint: { kind: 'checkpoint' },
  file: { kind: 'text' },
  lang: enumOf(() => LANGUAGES),
  digits: enumOf(() => DIGITS),
};

/**
 * Parameters that are the core's request keys, read by the core's own
 * schema (call('schema'), kept in catalog.schema): [request, key]. Their
 * order is the inputs' on the page; which mode, method or optimizer each
 * takes is the schema's (appliesTo).
 */
const CORE_PARAMS = {
  weights: ['estimate', 'weights'],
  kv: ['estimate', 'kv'],
  context: ['estimate', 'context'],
  batch: ['estimate', 'batch'],
  min_tokens_per_s: ['estimate', 'min_tokens_per_s'],
  mode: ['estimate', 'mode'],
  seq: ['estimate', 'seq'],
  micro_batch: ['estimate', 'micro_batch'],
  optimizer: ['estimate', 'optimizer'],
  momentum: ['estimate', 'momentum'],
  precision: ['estimate', 'precision'],
  loss: ['estimate', 'loss'],
  lora_rank: ['estimate', 'lora_rank'],
  lora_targets: ['estimate', 'lora_targets'],
  upcast_unquantized: ['estimate', 'upcast_unquantized'],
  checkpointing: ['estimate', 'checkpointing'],
  flash_attention: ['estimate', 'flash_attention'],
  zero: ['estimate', 'zero'],
  offload_optimizer: ['estimate', 'offload_optimizer'],
  finetune_profile: ['estimate', 'finetune_profile'],
  engine: ['estimate', 'engine'],
  gpu_count: ['estimate', 'gpu_count'],
  split_gpus: ['estimate', 'split_gpus'],
  draft_model: ['estimate', 'draft_model'],
  draft_tokens: ['estimate', 'draft_tokens'],
  speculative: ['estimate', 'speculative'],
  images: ['estimate', 'images'],
  image_size: ['estimate', 'image_size'],
  budget_gb: ['estimate', 'budget_gb'],
  gpu_used_gb: ['estimate', 'gpu_used_gb'],
  companion_model: ['estimate', 'companion_model'],
  companion_context: ['estimate', 'companion_context'],
  usable_fraction: ['devices', 'usable_fraction'],
};

/** For tests that hold the page to the core: which parameters are the core's fields. */
export const CORE_PARAMS_FOR_TESTS = CORE_PARAMS;

/** Every input of the page's state: its own and the core's parameters. */
export const INPUTS = Object.freeze([...new Set([...Object.keys(PAGE_DEFAULTS), ...Object.keys(CORE_PARAMS)])]);

const defaultsCache = new WeakMap();
/**
 * The state the page opens on, for a catalog (catalog.schema: the core's
 * schema): the page's own defaults, and for each of the core's parameters
 * its default in the schema. Frozen, and read once per schema.
 */
export function defaultState(catalog) {
  let state = defaultsCache.get(catalog.schema);
  if (!state) {
    const core = {};
    for (const [name, [request, key]] of Object.entries(CORE_PARAMS)) {
      if (Object.hasOwn(PAGE_DEFAULTS, name)) continue;
      const value = coreField(catalog, request, key).default;
      if (value === undefined) throw new Error(`the core's ${request} request has no default for ${key}`);
      core[name] = Array.isArray(value) ? Object.freeze([...value]) : value;
    }
    state = Object.freeze({ ...core, ...PAGE_DEFAULTS });
    defaultsCache.set(catalog.schema, state);
  }
  return state;
}

/** A field of the core's schema by request and key ('config': its config.json shape keys). */
export function coreField(catalog, request, key) {
  const table = request === 'config' ? catalog.schema.config : catalog.schema.requests[request];
  const field = table.find((f) => f.name === key);
  if (!field) throw new Error(`the core's ${request} request has no field ${key}`);
  return field;
}

/** The core's estimate keys that only `mode` ('inference' or 'finetune') takes, by its schema's modes, in the page's order. */
function onlyIn(catalog, mode) {
  return Object.entries(CORE_PARAMS)
    .filter(([, [request, key]]) => request === 'estimate' && String(coreField(catalog, request, key).modes) === mode)
    .map(([name]) => name);
}

/** The fine-tuning inputs, in the page's order: the core's estimate keys that no inference takes. */
export function finetuneInputs(catalog) {
  return onlyIn(catalog, 'finetune');
}

/**
 * Whether the core's estimate takes an input in this state, by its schema:
 * the field's modes (inference, or a fine-tuning one) and its applies_when
 * (lora_rank: mode lora or qlora; momentum: optimizer sgd). Inputs that are
 * not the estimate's (the page's own, the planner's) always apply.
 */
export function appliesTo(catalog, name, state) {
  const [request, key] = CORE_PARAMS[name] || [];
  if (request !== 'estimate') return true;
  const field = coreField(catalog, request, key);
  if (!field.modes.includes(state.mode === 'inference' ? 'inference' : 'finetune')) return false;
  return Object.entries(field.applies_when || {}).every(([on, values]) => values.includes(state[on]));
}

/** When an input applies, as its notice says it: { when, values } from applies_when or the modes. */
function applicability(catalog, name) {
  const field = coreField(catalog, ...CORE_PARAMS[name]);
  const [when, values] = Object.entries(field.applies_when || {})[0] || ['mode', choicesOf(catalog, 'mode').filter((m) => field.modes.includes(m === 'inference' ? 'inference' : 'finetune'))];
  return { when, values: values.join(', ') };
}

/** How the page reads a value of a core field: its type, range and choices. */
function specOf(field, scale = 1) {
  const range = {
    min: field.min === undefined ? undefined : field.min * scale,
    max: field.max === undefined ? undefined : field.max * scale,
    minOpen: Boolean(field.min_exclusive),
    maxOpen: Boolean(field.max_exclusive),
    unit: field.unit,
  };
  // A number that also takes a word (an engine knob's "auto": the plan picks).
  const words = (field.type === 'int' || field.type === 'number') && field.choices ? { words: field.choices } : {};
  switch (field.type) {
    case 'int':
      return { kind: 'int', ...range, ...words };
    case 'number':
      return { kind: 'number', ...range, ...words };
    case 'bool':
      return BOOL;
    case 'enum':
      return enumOf(() => field.choices);
    case 'list':
      return { kind: 'list', choices: field.choices };
    default:
      return { kind: 'unknown' };
  }
}

const specCache = new WeakMap();
/** The reading rules of every URL parameter for a catalog (and its schema). */
function schemaFor(catalog) {
  let specs = specCache.get(catalog);
  if (!specs) {
    specs = { ...PAGE_SCHEMA };
    for (const [name, [request, key]] of Object.entries(CORE_PARAMS)) specs[name] = specOf(coreField(catalog, request, key));
    for (const [name, key] of Object.entries(SHAPE)) specs[name] = specOf(coreField(catalog, 'config', key));
    // Parameters in billions: params_total's range, scaled, empty for "from the shape".
    specs.params = { ...specOf(coreField(catalog, 'estimate', 'params_total'), 1e-9), optional: true };
    // Cards of the page's catalog (a vendor's may replace them), repeats
    // allowed (two 3090s and a 4090), as many as the core's split takes.
    specs.split_gpus = { kind: 'cards', max: catalog.schema.limits.split_gpus.max_items };
    // A draft is a model of the page's catalog, or none.
    specs.draft_model = enumOf((c) => ['', ...c.models.map((m) => m.id)]);
    // So is a second model on the card.
    specs.companion_model = enumOf((c) => ['', ...c.models.map((m) => m.id)]);
    // Empty: no budget of one's own, the card's capacity.
    specs.budget_gb = { ...specs.budget_gb, optional: true };
    // A link's number reads as a typed one does: "32k", "32,768", "3.2e4",
    // "۳۲۷۶۸". A field the core counts in tokens (its schema's unit) reads
    // k as 1,024 ("32k" is 32,768 tokens); every other, as 1,000.
    for (const [name, spec] of Object.entries(specs)) {
      if (spec.kind === 'int' || spec.kind === 'number') specs[name] = { ...spec, suffixes: spec.unit === 'tokens' ? 'tokens' : 'count' };
    }
    specCache.set(catalog, specs);
  }
  return specs;
}

/** The choices of an enumerated or list parameter (modes, optimizers, LoRA targets...). */
export function choicesOf(catalog, name) {
  const spec = schemaFor(catalog)[name];
  return spec.kind === 'list' ? spec.choices : spec.choices(catalog);
}

/**
 * How a number parameter reads typed text (numbers.js): { integer,
 * suffixes } as its link value does; null for a parameter that is not a number.
 */
export function numberReading(catalog, name) {
  const spec = schemaFor(catalog)[name];
  return spec && (spec.kind === 'int' || spec.kind === 'number') ? { integer: spec.kind === 'int', suffixes: spec.suffixes } : null;
}

/** min, max and step attributes for a number input of a parameter or an engine knob. */
export function inputLimits(catalog, name, engineId) {
  const spec = engineId ? knobSpec(catalog, engineId, name) : schemaFor(catalog)[name];
  if (!spec) return {};
  const limits = { step: spec.kind === 'int' ? 1 : 'any' };
  if (spec.min !== undefined) limits.min = spec.min;
  if (spec.max !== undefined) limits.max = spec.max;
  return limits;
}

/** Parameters every link carries; the rest only when they matter. */
const ALWAYS = ['view', 'model', 'weights', 'kv', 'context', 'batch', 'unit', 'mode', 'engine', 'gpu', 'gpu_count'];
const OPTION_PREFIX = 'opt.';

const MAX_PARAM_LENGTH = 200;
const MAX_CONFIG_LENGTH = 100000;
/**
 * The longest query read: the largest config.json the page takes, fully
 * percent-encoded (3 characters a byte), and room for every other input.
 * A longer one is ignored as a whole rather than cut: a cut could end
 * inside a value and give a different answer than the link meant.
 */
export const MAX_QUERY_LENGTH = 3 * MAX_CONFIG_LENGTH + 100000;

/** Shown in problem reports: printable, short, never markup (it lands in textContent). */
function quote(value) {
  const clean = String(value).replace(/[\u0000-\u001f\u007f]/g, '?');
  return clean.length > 40 ? `${clean.slice(0, 40)}…` : clean;
}

const BOOLEANS = { true: true, false: false, 1: true, 0: false };

// What a number that does not read is called: an empty whole number, or a
// fraction where a whole one is asked, is not a whole number.
const NUMBER_ERRORS = { int: { empty: 'notWhole', notWhole: 'notWhole' }, number: {} };

/**
 * A number as people type it (numbers.js: k and M by the field's kind, digit
 * groups, 1e5, Arabic and Persian digits; an engine knob's plain), in its range.
 */
function readNumber(spec, raw) {
  const read = parseSignedNumber(raw, { suffixes: spec.suffixes, integer: spec.kind === 'int' });
  if (read.error) return { error: { code: NUMBER_ERRORS[spec.kind][read.error.code] || 'notNumber', value: quote(raw) } };
  const { value } = read;
  const low = spec.min !== undefined && (spec.minOpen ? value <= spec.min : value < spec.min);
  const high = spec.max !== undefined && (spec.maxOpen ? value >= spec.max : value > spec.max);
  if (low || high) return { error: { code: 'range', min: spec.min, max: spec.max } };
  return { value };
}

/**
 * A checkpoint's tensor totals (the core's checkpoint request, any number
 * of files) as one short link value: the files summed into one,
 * FORMAT.TENSORS-TYPE.BYTES.ELEMENTS*...-COMPONENT.BYTES.ELEMENTS*...
 * (characters a query keeps as they are). The answer depends on these sums
 * only, so the link reopens the same figures without the file.
 */
export function checkpointToLink(checkpoint) {
  const types = {};
  const components = {};
  let count = 0;
  const add = (into, from) => {
    for (const [key, t] of Object.entries(from || {})) {
      const sum = (into[key] ||= { bytes: 0, elements: 0 });
      sum.bytes += t.bytes;
      sum.elements += t.elements;
    }
  };
  for (const file of checkpoint.files) {
    add(types, file.by_type);
    add(components, file.by_component);
    count += file.tensor_count;
  }
  const list = (totals) => Object.entries(totals).map(([key, t]) => `${key}.${t.bytes}.${t.elements}`).join('*');
  return `${checkpoint.files[0].format}.${count}-${list(types)}-${list(components)}`;
}

const LINK_TOTAL = /^([A-Za-z0-9_]{1,24})\.(\d{1,17})\.(\d{1,17})$/;
/**
 * A link's checkpoint value read back into the core's request (one file):
 * { value } or { error: { code: 'checkpointLink' } }. The shape is checked
 * here; the names and the sums are the core's to check (its named errors).
 */
export function checkpointFromLink(raw) {
  const bad = { error: { code: 'checkpointLink' } };
  const [head, typeText, componentText, ...rest] = String(raw).split('-');
  const top = /^(gguf|safetensors)\.(\d{1,9})$/.exec(head || '');
  if (!top || rest.length || !typeText || !componentText) return bad;
  const totals = (text) => {
    const out = {};
    for (const item of text.split('*')) {
      const m = LINK_TOTAL.exec(item);
      if (!m || Object.hasOwn(out, m[1])) return null;
      out[m[1]] = { bytes: Number(m[2]), elements: Number(m[3]) };
    }
    return out;
  };
  const by_type = totals(typeText);
  const by_component = totals(componentText);
  if (!by_type || !by_component) return bad;
  const sum = (key) => Object.values(by_type).reduce((a, t) => a + t[key], 0);
  const file = { format: top[1], tensor_count: Number(top[2]), bytes: sum('bytes'), elements: sum('elements'), by_type, by_component };
  return { value: { files: [file] } };
}

function readValue(spec, raw, catalog) {
  if (spec.kind === 'checkpoint') return raw.length > MAX_PARAM_LENGTH * 10 ? { error: { code: 'tooLong' } } : checkpointFromLink(raw);
  if (spec.kind === 'text') {
    if (raw.length > MAX_PARAM_LENGTH) return { error: { code: 'tooLong' } };
    return { value: raw.replace(/[\u0000-\u001f\u007f\u2066-\u2069\u202a-\u202e]/g, '') };
  }
  if (spec.kind === 'config') {
    if (raw.length > MAX_CONFIG_LENGTH) return { error: { code: 'tooLong' } };
    const { value, error } = readConfigText(raw);
    return error ? { error } : { value: JSON.stringify(value) };
  }
  if (raw.length > MAX_PARAM_LENGTH) return { error: { code: 'tooLong' } };
  // Its word, or empty for it (a cleared field): the plan picks.
  if (spec.words && (spec.words.includes(raw) || raw === '')) return { value: spec.words[0] };
  switch (spec.kind) {
    case 'enum':
      return spec.choices(catalog).includes(raw) ? { value: raw } : { error: { code: 'notChoice', value: quote(raw) } };
    case 'int':
      return readNumber(spec, raw);
    case 'number':
      return spec.optional && raw === '' ? { value: null } : readNumber(spec, raw);
    case 'bool':
      return raw in BOOLEANS ? { value: BOOLEANS[raw] } : { error: { code: 'notBool', value: quote(raw) } };
    case 'cards': {
      const items = raw === '' ? [] : raw.split(',');
      const bad = items.find((item) => !catalog.gpus.some((g) => g.id === item));
      if (bad !== undefined) return { error: { code: 'notChoice', value: quote(bad) } };
      if (items.length < 2 || items.length > spec.max) return { error: { code: 'cardsCount', max: spec.max } };
      return { value: items };
    }
    case 'list': {
      const items = raw === '' ? [] : raw.split(',');
      const bad = items.find((item) => !spec.choices.includes(item));
      if (bad !== undefined) return { error: { code: 'notChoice', value: quote(bad) } };
      if (!items.length) return { error: { code: 'empty' } };
      return { value: [...new Set(items)] };
    }
    default:
      return { error: { code: 'unknown' } };
  }
}

/** Problems the page shows one by one; the rest are counted in one more notice. */
export const MAX_NOTICES = 5;

// The lists a link's misspelt choice is looked up in, by parameter.
const NAMED_LISTS = { model: 'models', gpu: 'gpus', weights: 'weight_formats', kv: 'kv_formats', engine: 'engines' };

/**
 * A link's value that is not one of the choices ("gpu=h200",
 * "model=llama-70b"): the choice the model search ranks first for it, as
 * a suggestion in the problem (code notChoiceNear: its id and name); the
 * link is not read as that choice, since a guess could be wrong.
 */
function nearChoice(catalog, name, raw, error) {
  const list = NAMED_LISTS[name] ? catalog[NAMED_LISTS[name]] || [] : [];
  const entries = list.map((item) => searchEntry({ ...item, name: item.name ?? item.id }));
  const [id] = raw.length <= MAX_PARAM_LENGTH ? searchModels(entries, raw, name === 'model' ? catalog.weight_formats || [] : []) : [];
  const near = list.find((item) => item.id === id);
  return near ? { code: 'notChoiceNear', value: error.value, id: near.id, name: near.name ?? near.id } : error;
}

/** Validates one input's raw text as the URL would be: { value } or { error }. */
export function readParam(name, raw, catalog) {
  return readValue(schemaFor(catalog)[name], String(raw), catalog);
}

/** The engine profile of a catalog by id (undefined when absent). */
export function engineById(catalog, id) {
  return catalog.engines.find((e) => e.id === id);
}

/**
 * The weight format to size under an engine: `weights` itself when the
 * engine loads it (each engine's `loads`, from the core's engine_runs) or it
 * is the checkpoint's own ('native'); else the nearest the engine loads:
 * of its own file type (llama.cpp: a GGUF type), that the card runs (with no
 * card, one that needs no card feature), of the same whole bits per weight
 * where there is one (4-bit stays 4-bit), nearest in bits per weight, the
 * wider of two as near. FP8 under llama.cpp is GGUF Q8_0, AWQ INT4 is GGUF
 * IQ4_XS; GGUF Q8_0 under vLLM is FP8 on a card that runs it, INT8 on one
 * that does not.
 */
export function weightsFor(catalog, engineId, weights, gpuId) {
  const engine = engineById(catalog, engineId);
  if (!engine || !Array.isArray(engine.loads) || weights === 'native' || engine.loads.includes(weights)) return weights;
  const byId = new Map(catalog.weight_formats.map((f) => [f.id, f]));
  const own = byId.get(weights);
  if (!own) return weights;
  const gpu = catalog.gpus.find((g) => g.id === gpuId);
  let candidates = engine.loads.map((id) => byId.get(id)).filter((f) => f && (f.requires || []).every((feature) => gpu && gpu[feature]));
  if (candidates.some((f) => f.gguf)) candidates = candidates.filter((f) => f.gguf);
  const whole = (f) => Math.floor(f.bits_per_weight + 1e-9);
  const sameWhole = candidates.filter((f) => whole(f) === whole(own));
  if (sameWhole.length) candidates = sameWhole;
  let best = null;
  for (const f of candidates) {
    const distance = Math.abs(f.bits_per_weight - own.bits_per_weight);
    if (!best || distance < best.distance || (distance === best.distance && f.bits_per_weight > best.format.bits_per_weight)) best = { format: f, distance };
  }
  return best ? best.format.id : weights;
}

/**
 * The weight format to size a model in: the checkpoint's own ('native')
 * where the core sizes the model as stored in `weights` (its presets list
 * each such model's `as_stored_for`: the formats wider than its checkpoint,
 * gpt-oss's MXFP4 experts against FP8), else `weights`. The rule is the
 * core's (it keeps it in every answer); the picker only shows its result.
 */
export function weightsForModel(catalog, modelId, weights) {
  const model = (catalog.models || []).find((m) => m.id === modelId);
  return model && (model.as_stored_for || []).includes(weights) ? 'native' : weights;
}

/**
 * The inputs a model choice makes, made again for the model `modelId`: one
 * rule for the picker, a name that gives a format, the list of models that
 * fit, an imported checkpoint and a link. The weight format starts from the
 * one the reader asked for (`weights_asked`, kept while a model or a
 * checkpoint put 'native' in its place; else `weights`), moved to one the
 * engine loads (weightsFor); a checkpoint read from files (the imported
 * model with `checkpoint`) is sized as its tensors are stored, and a preset
 * stored narrower than that format as it is stored (weightsForModel).
 * So a model's answer never depends on the models picked before it.
 * Returns { patch: { weights, weights_asked }, note }: note is what changed,
 * as a message id and its params (input.weightsNative, input.weightsChecked,
 * input.weightsBack), or null when the weights stay.
 */
export function weightsOnModel(catalog, state, modelId, checkpoint = modelId === IMPORTED ? state.checkpoint : null) {
  const asked = weightsFor(catalog, state.engine, state.weights_asked || state.weights, state.gpu);
  const weights = checkpoint ? 'native' : weightsForModel(catalog, modelId, asked);
  const patch = { weights, weights_asked: weights === asked ? null : asked };
  let note = null;
  if (weights !== state.weights) {
    if (weights !== asked) note = { id: checkpoint ? 'input.weightsChecked' : 'input.weightsNative', from: asked };
    else if (state.weights_asked) note = { id: 'input.weightsBack', to: asked, from: state.weights };
  }
  return { patch, note };
}

/** An engine knob's reading rule, from the core's schema (data/engines.json's limits). */
function knobSpec(catalog, engineId, key) {
  const knobs = (catalog.schema.engines || {})[engineId] || [];
  const knob = knobs.find((k) => k.name === key);
  return knob ? specOf(knob) : null;
}

/** Reads an engine option against its knob's type and range. */
export function readOption(engine, key, raw, catalog) {
  const spec = engine ? knobSpec(catalog, engine.id, key) : null;
  if (!spec) return { error: { code: 'notOption', engine: engine ? engine.name : '' } };
  return readValue(spec, String(raw), catalog);
}

/**
 * The language and digits a link asks for, read before the core is up:
 * they need no catalog, and the standalone page says "Loading" and a
 * failure to start in them. As in parseQuery, which reads them again with
 * the rest (and reports what is not a choice), the last value that is a
 * choice counts. { lang, digits }, '' where the link has none.
 */
export function linkLanguage(search) {
  const none = { lang: '', digits: '' };
  if (typeof search !== 'string' || search.length > MAX_QUERY_LENGTH) return none;
  const params = new URLSearchParams(search);
  // Read by the page schema's own rule for each (neither needs a catalog).
  const last = (name) => params.getAll(name).reduce((kept, raw) => (readValue(PAGE_SCHEMA[name], raw, null).error ? kept : raw), '');
  return { lang: last('lang'), digits: last('digits') };
}

/**
 * Reads a query string. Returns { state, problems } where problems is a list
 * of { param, error: { code, ...values } } for every parameter that was
 * ignored (param '' when the whole query was: longer than MAX_QUERY_LENGTH);
 * the page words each code from its message catalog (problem.*). `preset=ID`
 * applies a named preset (catalog.links) first; the other parameters then
 * override it.
 */
export function parseQuery(search, catalog, base = defaultState(catalog)) {
  let state = { ...base };
  const problems = [];
  if (typeof search === 'string' && search.length > MAX_QUERY_LENGTH) {
    problems.push({ param: '', error: { code: 'queryTooLong', length: search.length, max: MAX_QUERY_LENGTH } });
    return { state, problems };
  }
  const params = new URLSearchParams(search);
  const preset = params.get('preset');
  const link = preset !== null ? (catalog.links || []).find((l) => l.id === preset) : undefined;
  if (preset !== null) {
    if (link) {
      // A preset is held to the same schema as a URL: it is data too.
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(link.state || {})) {
        query.set(name, Array.isArray(value) ? value.join(',') : String(value));
      }
      const applied = parseQuery(query, catalog, state);
      state = applied.state;
      problems.push(...applied.problems.map((p) => ({ ...p, preset })));
    } else {
      problems.push({ param: 'preset', error: { code: 'unknownPreset', value: quote(preset) } });
    }
  }
  const options = [];
  const read = new Set();
  for (const [name, raw] of params) {
    if (name === 'preset') continue;
    if (name.startsWith(OPTION_PREFIX)) {
      options.push([name, raw]);
      continue;
    }
    const schema = schemaFor(catalog);
    const spec = Object.prototype.hasOwnProperty.call(schema, name) ? schema[name] : null;
    if (!spec) {
      problems.push({ param: quote(name), error: { code: 'unknownParam' } });
      continue;
    }
    const { value, error } = readValue(spec, raw, catalog);
    // Only a problem that is shown gets a suggestion: a crafted link with
    // 100,000 misspelt models must not run 100,000 searches.
    const shown = problems.length < MAX_NOTICES;
    if (error) problems.push({ param: name, error: error.code === 'notChoice' && shown ? nearChoice(catalog, name, raw, error) : error });
    else {
      state[name] = value;
      read.add(name);
    }
  }
  // A fine-tuning input the link's mode, method or optimizer does not take
  // (lora_rank with mode=full, as links of older pages carry it) is not
  // read: the core would refuse it. One at its default changes nothing and
  // goes quietly; another is named, as any ignored parameter is.
  for (const name of finetuneInputs(catalog)) {
    if (!read.has(name) || appliesTo(catalog, name, state)) continue;
    if (JSON.stringify(state[name]) !== JSON.stringify(base[name])) problems.push({ param: name, error: { code: 'notApplicable', ...applicability(catalog, name) } });
    state[name] = base[name];
  }
  // A shape key that another bounds too (KV heads at most the attention
  // heads: its max_field in the core's schema) is held to it as the core holds it.
  for (const [name, key] of Object.entries(SHAPE)) {
    const { min, max_field: bound } = coreField(catalog, 'config', key);
    const other = bound && Object.keys(SHAPE).find((n) => SHAPE[n] === bound);
    if (!other || !(read.has(name) || read.has(other)) || state[name] <= state[other]) continue;
    problems.push({ param: name, error: { code: 'range', min, max: state[other] } });
    state[name] = Math.min(base[name], state[other]);
  }
  // Options belong to the engine: a different engine starts from its defaults,
  // and from weights it loads unless the link names them. A different model
  // is never sized wider than its checkpoint unless the link says so.
  const namesWeights = params.has('weights') || Boolean(link && link.state && 'weights' in link.state);
  if (state.model !== base.model && !namesWeights) Object.assign(state, weightsOnModel(catalog, base, state.model, null).patch);
  // Weights a link names are the reader's own; none of a model stands in for them.
  if (namesWeights || !state.weights_asked) delete state.weights_asked;
  if (state.engine !== base.engine) {
    state.opts = {};
    if (!namesWeights) state.weights = weightsFor(catalog, state.engine, state.weights, state.gpu);
  }
  const engine = engineById(catalog, state.engine);
  for (const [name, raw] of options) {
    const key = name.slice(OPTION_PREFIX.length);
    const { value, error } = readOption(engine, key, raw, catalog);
    if (error) problems.push({ param: quote(name), error });
    else state.opts = { ...state.opts, [key]: value };
  }
  // A checkpoint or a file name belongs to the config it came with.
  if (read.has('config') && !read.has('checkpoint') && state.checkpoint) state.checkpoint = null;
  if (read.has('config') && !read.has('file') && state.file) state.file = '';
  if (state.model === IMPORTED && !state.config) {
    problems.push({ param: 'model', error: { code: 'configNeeded' } });
    state.model = base.model === IMPORTED ? PAGE_DEFAULTS.model : base.model;
  }
  return { state, problems };
}

/** Which parameters a state's link carries, in a stable order. */
function linkParams(state, defaults, catalog) {
  const names = [...ALWAYS];
  if (state.mode !== 'inference') names.push(...finetuneInputs(catalog).filter((name) => appliesTo(catalog, name, state)));
  if (state.model === CUSTOM) names.push(...Object.keys(SHAPE), 'params');
  if (state.model === IMPORTED) names.push('config', 'checkpoint', 'file');
  if (state.usable_fraction !== defaults.usable_fraction) names.push('usable_fraction');
  if (state.min_tokens_per_s !== defaults.min_tokens_per_s) names.push('min_tokens_per_s');
  if (state.gpu_used_gb !== defaults.gpu_used_gb) names.push('gpu_used_gb');
  if (state.split_gpus.length) names.push('split_gpus');
  if (state.draft_model) names.push('draft_model', 'draft_tokens');
  // The model's own MTP layers or its EAGLE-3 head drafting: the choice and its tokens, for a
  // model that has the one chosen.
  if (state.speculative !== defaults.speculative && ownDrafter(catalog, state)) names.push('speculative', 'draft_tokens');
  if (state.companion_model) names.push('companion_model', 'companion_context');
  if (state.images) names.push('images');
  // An image's size: a tower of any resolution's, with images, when not the schema's default.
  if (state.images && state.image_size !== defaults.image_size && takesImageSize(catalog, state)) names.push('image_size');
  if (state.budget_gb !== null && state.budget_gb !== undefined) names.push('budget_gb');
  // A link made in Persian opens in Persian: the language goes with it once chosen.
  if (state.lang) names.push('lang');
  if (state.digits) names.push('digits');
  return names;
}

/**
 * The query string for a state: every input that matters, in a stable
 * order; the service floor and the usable fraction only when they differ
 * from the catalog's schema defaults.
 */
export function toQuery(state, catalog) {
  const params = new URLSearchParams();
  for (const name of linkParams(state, defaultState(catalog), catalog)) {
    const value = state[name];
    if (value === undefined || value === null || (name === 'file' && value === '')) continue;
    if (name === 'checkpoint') params.set(name, checkpointToLink(value));
    else params.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  for (const [key, value] of Object.entries(state.opts || {})) params.set(`${OPTION_PREFIX}${key}`, String(value));
  return `?${params.toString()}`;
}

/** Whether the state's unequal cards are the answer's: listed, inference, an engine that takes them. */
/**
 * Whether the pasted config holds what the schema's config_needs[need] says
 * a field needs (the core's importer table, hf_config.hpp config_needs): a
 * count of 1 or more under one of count_keys, or an object_key object of one
 * of model_types; at the top level or, for the counts, under text_config.
 */
function configMeets(catalog, state, need) {
  const rule = catalog.schema && catalog.schema.config_needs && catalog.schema.config_needs[need];
  let config = null;
  try {
    config = JSON.parse(state.config || 'null');
  } catch {
    return false;
  }
  if (!rule || !config || typeof config !== 'object') return false;
  if (rule.count_keys) {
    const parts = [config, config.text_config].filter((p) => p && typeof p === 'object');
    return parts.some((p) => rule.count_keys.some((key) => Number.isInteger(p[key]) && p[key] >= 1));
  }
  const object = config[rule.object_key];
  if (!object || typeof object !== 'object' || Array.isArray(object)) return false;
  return !rule.model_types || rule.model_types.includes(config.model_type);
}

/**
 * Whether the state's model takes images: a preset whose vision tower the
 * core reports (presets' image_tokens), or a pasted config with a
 * vision_config (the core refuses one it cannot size, error.vision_tokens).
 */
export function takesImages(catalog, state) {
  if (state.model === IMPORTED) return configMeets(catalog, state, 'vision');
  const model = (catalog.models || []).find((m) => m.id === state.model);
  return Boolean(model && (model.image_tokens || model.image_dynamic));
}

/**
 * Whether the state's model takes an image's size (the schema's needs
 * "dynamic_vision"): a preset whose tower takes any resolution (presets'
 * image_dynamic), or a pasted config of a model type whose tower does (the
 * schema's config_needs); the core refuses any other, error.image_size_fixed.
 */
export function takesImageSize(catalog, state) {
  if (state.model === IMPORTED) return configMeets(catalog, state, 'dynamic_vision');
  const model = (catalog.models || []).find((m) => m.id === state.model);
  return Boolean(model && model.image_dynamic);
}

/** Whether the state's model is a preset with an EAGLE-3 head in the catalog (speculative eagle3). */
export function takesEagle(catalog, state) {
  if (state.model === IMPORTED) return false;
  const model = (catalog.models || []).find((m) => m.id === state.model);
  return Boolean(model && model.eagle3);
}

/**
 * The drafter of the model's own that the state asks for and the model has
 * (speculative mtp: its MTP layers; eagle3: its EAGLE-3 head), or null: a
 * draft model drafts, if one is chosen.
 */
export function ownDrafter(catalog, state) {
  if (state.speculative === 'mtp' && takesMtp(catalog, state)) return 'mtp';
  if (state.speculative === 'eagle3' && takesEagle(catalog, state)) return 'eagle3';
  return null;
}

/** Whether the state's model carries its own multi-token-prediction layers (speculative mtp). */
export function takesMtp(catalog, state) {
  // The keys that count them are the importer table's (the schema's config_needs).
  if (state.model === IMPORTED) return configMeets(catalog, state, 'mtp');
  const model = (catalog.models || []).find((m) => m.id === state.model);
  return Boolean(model && model.mtp_layers);
}

export function splitsCards(catalog, state) {
  if (state.mode !== 'inference' || !state.split_gpus.length) return false;
  const engine = engineById(catalog, state.engine);
  return Boolean(engine && engine.split_gpus);
}

/** The model part of a request: a preset id, or a config object. */
export function modelRequest(state) {
  if (state.model === CUSTOM) {
    const config = { model_type: 'custom' };
    for (const [field, key] of Object.entries(SHAPE)) config[key] = state[field];
    const request = { config, name: 'Custom shape' };
    if (state.params) request.params_total = state.params * 1e9;
    return request;
  }
  // An imported file is named as the file (the answer's model line).
  if (state.model === IMPORTED) return state.file ? { config: JSON.parse(state.config), name: state.file } : { config: JSON.parse(state.config) };
  return { model: state.model };
}

/**
 * The request the core's estimate() takes for this state, `catalog` the
 * GPU catalog it replaces the built-in one with (a vendor's), if any, and
 * `page` the page's catalog (its schema). Each key goes only where the
 * core's schema says the estimate takes it (appliesTo: inference keys with
 * inference, lora_rank with LoRA or QLoRA, momentum with SGD): the core
 * refuses a key that does not apply.
 */
export function estimateRequest(state, catalog, page) {
  const request = { ...modelRequest(state) };
  // A checkpoint's tensor totals (web/src/checkpoint.js): a link carries
  // them summed (checkpointToLink), never the file.
  if (state.model === IMPORTED && state.checkpoint) request.checkpoint = state.checkpoint;
  if (state.gpu) {
    request.gpu = state.gpu;
    // gpu_count cards serve the model; a tensor or pipeline size set by hand
    // gives the count itself unless the count says otherwise.
    const layoutSet = state.mode === 'inference' && ('tensor_parallel_size' in state.opts || 'pipeline_parallel_size' in state.opts);
    if (state.gpu_count !== 1 || !layoutSet) request.gpu_count = state.gpu_count;
  }
  if (state.budget_gb) request.budget_gb = state.budget_gb;
  if (state.mode === 'inference') {
    // The weights picker is inference's (fine-tuning sizes its own base);
    // the rest are the keys only inference takes, by the core's schema.
    request.weights = state.weights;
    for (const name of onlyIn(page, 'inference')) request[name] = state[name];
    if (Object.keys(state.opts).length) request.engine_options = { ...state.opts };
    // Unequal cards stand instead of the card and its count, under an engine that splits them.
    if (splitsCards(page, state)) {
      delete request.gpu;
      delete request.gpu_count;
    } else delete request.split_gpus;
    // Images only for a model that takes them, and 0 is the core's default.
    if (!state.images || !takesImages(page, state)) delete request.images;
    // An image's size only beside images, for a tower that takes any resolution.
    if (!request.images || !takesImageSize(page, state)) delete request.image_size;
    // The model's MTP layers or EAGLE-3 head draft (the core refuses a draft model beside
    // them); else the core's default, a draft model when one is chosen.
    const own = ownDrafter(page, state);
    if (own) delete request.draft_model;
    else delete request.speculative;
    // No draft: neither key (the core takes a draft's id, never an empty one).
    if (!state.draft_model && !own) {
      delete request.draft_model;
      delete request.draft_tokens;
    }
    // No second model: neither key.
    if (!state.companion_model) {
      delete request.companion_model;
      delete request.companion_context;
    }
  } else {
    request.mode = state.mode;
    for (const name of finetuneInputs(page)) if (appliesTo(page, name, state)) request[name] = state[name];
  }
  if (catalog !== undefined) request.catalog = catalog;
  return request;
}

/**
 * The lookup grid: its default rows (the guide's five shapes, from the
 * core's schema; `page` is the page's catalog), plus the chosen preset.
 */
export function gridRequest(state, catalog, page) {
  const request = { context: state.context, batch: state.batch };
  const rows = coreField(page, 'grid', 'models').default;
  if (!rows.includes(state.model) && state.model !== CUSTOM && state.model !== IMPORTED) {
    request.models = [...rows, state.model];
  }
  if (catalog !== undefined) request.catalog = catalog;
  return request;
}

export function devicesRequest(state, catalog) {
  const request = { model: state.model, context: state.context, usable_fraction: state.usable_fraction };
  if (catalog !== undefined) request.catalog = catalog;
  return request;
}

export function fleetRequest(state, catalog) {
  const request = { model: state.model, weights: state.weights, context: state.context, batch: state.batch };
  if (catalog !== undefined) request.catalog = catalog;
  return request;
}

/**
 * Which presets fit the chosen card (or set of it), or the reader's own
 * budget, at the context and batch: null when there is neither.
 */
export function fitModelsRequest(state, catalog) {
  if (!state.gpu && !state.budget_gb) return null;
  const request = { weights: state.weights, kv: state.kv, context: state.context, batch: state.batch };
  if (state.gpu) Object.assign(request, { gpu: state.gpu, gpu_count: state.gpu_count });
  if (state.budget_gb) request.budget_gb = state.budget_gb;
  if (catalog !== undefined) request.catalog = catalog;
  return request;
}

/** True when a model is a preset the planner-style views can take. */
export function isPreset(state) {
  return state.model !== CUSTOM && state.model !== IMPORTED;
}
