// The message catalogs (data/messages/, docs/i18n.md): one layout; Arabic
// and Persian complete for every English key with the same placeholders;
// plural entries well formed; every key the page asks for exists, and every
// page key is asked for somewhere (a key nothing uses is a word nobody
// sees, and a translator's wasted time).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { layout, readCatalogs } from '../../tools/messages.mjs';
import { DIGITS, INPUTS, LANGUAGES, UNITS, VIEWS } from '../../web/src/state.js';
import { FAILURES } from '../../web/src/i18n.js';
import { core, loadJson, root } from './module.mjs';

const catalogs = await readCatalogs();
const en = catalogs.en.messages;
const CATEGORIES = ['zero', 'one', 'two', 'few', 'many', 'other'];
const PLACEHOLDER = /\{([A-Za-z0-9_]+)(?::([a-z0-9]+))?\}/g;

/** The placeholders of an entry (every form of a plural), as 'name:style'. */
function placeholders(entry) {
  const forms = typeof entry === 'string' ? [entry] : CATEGORIES.filter((c) => c in entry).map((c) => entry[c]);
  const out = new Set();
  for (const form of forms) for (const [, name, style] of form.matchAll(PLACEHOLDER)) out.add(`${name}:${style || ''}`);
  return out;
}

test('every catalog is in the one layout (node tools/messages.mjs --fix)', () => {
  assert.deepEqual(Object.keys(catalogs).sort(), [...LANGUAGES].sort());
  for (const [lang, { text, messages }] of Object.entries(catalogs)) assert.equal(text, layout(messages), lang);
});

test('every template parses as the CLI reads it: known styles, no brace outside a placeholder', () => {
  const STYLE = /^(int|d[0-6]|gb[02]?|gap|gib|pct|usd|msg|plus|list|rate|code)$/;
  for (const [lang, { messages }] of Object.entries(catalogs)) {
    for (const [key, entry] of Object.entries(messages)) {
      const forms = typeof entry === 'string' ? [entry] : CATEGORIES.filter((c) => c in entry).map((c) => entry[c]);
      for (const form of forms) {
        for (const [, , style] of form.matchAll(PLACEHOLDER)) assert.ok(!style || STYLE.test(style), `${lang} ${key}: style ${style}`);
        assert.doesNotMatch(form.replace(PLACEHOLDER, ''), /[{}]/, `${lang} ${key}: a brace outside a placeholder`);
      }
    }
  }
});

test('no English word is left for the reader to finish: a count takes a plural entry, not "(s)"', () => {
  for (const [key, entry] of Object.entries(en)) {
    const forms = typeof entry === 'string' ? [entry] : CATEGORIES.filter((c) => c in entry).map((c) => entry[c]);
    for (const form of forms) assert.doesNotMatch(form, /\w\((s|es)\)/, `en ${key}`);
  }
});

test('plural entries name a numeric parameter, have other, and only CLDR categories', () => {
  for (const [lang, { messages }] of Object.entries(catalogs)) {
    for (const [key, entry] of Object.entries(messages)) {
      if (typeof entry === 'string') continue;
      const where = `${lang} ${key}`;
      assert.equal(typeof entry.plural, 'string', where);
      assert.equal(typeof entry.other, 'string', where);
      assert.deepEqual(Object.keys(entry).filter((k) => k !== 'plural' && !CATEGORIES.includes(k)), [], where);
      assert.ok([...placeholders(en[key])].some((p) => p.startsWith(`${entry.plural}:`)), `${where}: counts ${entry.plural}, which en.json never shows`);
      // A category the language never selects is a form nobody reads.
      const used = new Set([0, 1, 2, 3, 5, 11, 21, 100, 101, 102, 1000, 1.5].map((n) => new Intl.PluralRules(lang).select(n)));
      for (const category of CATEGORIES.filter((c) => c in entry)) assert.ok(used.has(category), `${where}: '${category}' is not a ${lang} category`);
    }
  }
});

// The page's keys: string literals in web/src, and the families it builds
// with a template literal (`mode.${m}`), each listed from its own source.
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.js') ? [readFileSync(join(dir, e.name), 'utf8')] : []);
}
const page = sources(join(root, 'web/src')).join('\n');
const literals = new Set([...page.matchAll(/'([a-z][A-Za-z]*(?:\.[\w-]+)+)'/g)].map((m) => m[1]));
// `opt.${key}` names an engine option's control, not a message.
const families = [...new Set([...page.matchAll(/`([a-z][A-Za-z]*)\.\$\{/g)].map((m) => m[1]))].filter((f) => f !== 'opt');

async function familyMembers() {
  const vram = await core();
  const models = loadJson('data/models.json').models;
  const engines = loadJson('data/engines.json').engines;
  // Term ids: every term the core answers with, across modes and engines.
  const terms = new Set();
  const requests = [
    ...engines.map((e) => ({ model: 'llama-3.1-8b', engine: e.id, gpu: 'h100-sxm' })),
    ...['full', 'lora', 'qlora'].map((mode) => ({ model: 'llama-3.1-8b', mode })),
  ];
  for (const request of requests) for (const term of vram.estimate(request).terms) terms.add(term.id);
  // A term's inputs, as the formula's <details> words them: every key the
  // core puts there (termInput.<key>, nested ones too), the weights' parts
  // (part.<component>) and the overhead's convention (overheadKind.<kind>),
  // over every model in every mode and under every engine, on one card and
  // on two (llama.cpp's layers_on_card).
  const inputs = { termInput: new Set(), part: new Set(), overheadKind: new Set() };
  const walk = (value) => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (!value || typeof value !== 'object') return;
    for (const [key, v] of Object.entries(value)) {
      inputs.termInput.add(key);
      if (key === 'component') inputs.part.add(v);
      if (key === 'kind') inputs.overheadKind.add(v);
      walk(v);
    }
  };
  const everyRequest = models.flatMap((m) => [
    ...engines.flatMap((e) => [1, 2].map((gpus) => ({ model: m.id, engine: e.id, gpu: 'h100-sxm', gpu_count: gpus }))),
    ...['full', 'lora', 'qlora'].map((mode) => ({ model: m.id, mode })),
  ]);
  // MoE layouts (expert parallel, attention data parallel) add inputs of their own.
  for (const engine of ['vllm', 'sglang']) {
    everyRequest.push({ model: 'deepseek-v3', engine, gpu: 'h200-sxm', gpu_count: 8, engine_options: { expert_parallel: true, data_parallel_size: 8 } });
  }
  for (const request of everyRequest) for (const term of vram.estimate(request).terms) walk(term.inputs);
  const grid = vram.grid({});
  const choices = (name) => vram.schema().requests.estimate.find((f) => f.name === name).choices;
  return {
    view: VIEWS, unit: UNITS, lang: LANGUAGES, digits: DIGITS, failure: FAILURES,
    // The core's choices, from its schema (the one source of them).
    mode: choices('mode'), optimizer: choices('optimizer'), profile: choices('finetune_profile'),
    zero: ['0', '1', '2', '3'],
    precision: choices('precision'),
    loss: choices('loss'),
    group: [...new Set(models.map((m) => m.group))],
    engine: engines.map((e) => e.id),
    option: [...new Set(engines.flatMap((e) => Object.keys(e.defaults)))],
    // The conditions engine knobs apply under, from the core's schema (its "applies").
    applies: [...new Set(Object.values(vram.schema().engines).flat().map((k) => k.applies).filter(Boolean))],
    // The words of engine knobs that take a list (vLLM's mxfp4_backend), as knob.word.
    choice: Object.values(vram.schema().engines).flat().filter((k) => k.type === 'enum').flatMap((k) => k.choices.map((c) => `${k.name}.${c}`)),
    input: [...INPUTS],
    term: [...terms],
    termInput: [...inputs.termInput], part: [...inputs.part], overheadKind: [...inputs.overheadKind],
    method: grid.rows[0].cells.map((c) => c.method),
    // Problem codes: { code: '...' } objects, and the checkpoint reader's
    // CheckpointProblem('ckpt...'/'hub...') codes (web/src/checkpoint.js).
    problem: [...new Set([...page.matchAll(/code: '(\w+)'/g), ...page.matchAll(/'((?:ckpt|hub)[A-Z]\w*)'/g)].map((m) => m[1]))],
    kind: ['array', 'string', 'number', 'boolean', 'null'],
    // A crashed or restarting core (core.js): the page words these errors.
    error: [...new Set([...page.matchAll(/new CoreCrash\('(\w+)'/g)].map((m) => m[1]))],
    // The figures an engine's log reader names (core/src/engine_log/: put(log, "id", ...) and
    // llama.cpp's buffer kinds).
    logQuantity: [...new Set(readdirSync(join(root, 'core/src/engine_log')).filter((f) => f.endsWith('.cpp'))
      .flatMap((f) => [...readFileSync(join(root, 'core/src/engine_log', f), 'utf8').matchAll(/(?:put\(log, |id = )"([a-z_]+)"/g)].map((m) => m[1])))],
  };
}

test('Arabic and Persian have every key English has, no other, and the same placeholders', () => {
  // Every key: the page's, the core's (terms, formulas, errors, importer
  // notes) and the CLI's. A key only English has would show English words on
  // an Arabic or Persian page or terminal.
  for (const lang of LANGUAGES.filter((l) => l !== 'en')) {
    const messages = catalogs[lang].messages;
    assert.deepEqual(Object.keys(en).filter((k) => !(k in messages)), [], `${lang}: keys missing`);
    assert.deepEqual(Object.keys(messages).filter((k) => !(k in en)), [], `${lang}: not in en.json`);
    for (const [key, entry] of Object.entries(messages)) {
      assert.deepEqual([...placeholders(entry)].sort(), [...placeholders(en[key])].sort(), `${lang} ${key}`);
    }
  }
});

/** A predicate: is this key one the page renders (a literal, or a member of a family it builds)? */
async function askedByPage() {
  const members = await familyMembers();
  assert.deepEqual(families.filter((f) => !(f in members)), [], 'a family built in web/src with no list of members here');
  return (key) => {
    const dot = key.indexOf('.');
    return literals.has(key) || (families.includes(key.slice(0, dot)) && members[key.slice(0, dot)].includes(key.slice(dot + 1)));
  };
}

test('every key the page asks for is in en.json, and every page key is asked for', async () => {
  const members = await familyMembers();
  const asked = await askedByPage();
  // Keys the core and the CLI render live in the same file; they are theirs.
  const native = ['core', 'cli', 'wasm'].flatMap((d) => sources(join(root, d)).concat(readdirSync(join(root, d), { recursive: true })
    .filter((f) => /\.(cpp|hpp|h)$/.test(f)).map((f) => readFileSync(join(root, d, f), 'utf8')))).join('\n');
  // The core may build an id from a code ("error." + code): its code is then a literal there.
  const inCode = (key) => native.includes(`"${key}"`) || native.includes(`"${key.slice(key.indexOf('.') + 1)}"`);
  // An engine knob's help (help.engine_options.<knob>) is named by data/engines.json's limits.
  const knobs = new Set(loadJson('data/engines.json').engines.flatMap((e) => [...Object.keys(e.defaults || {}), ...Object.keys(e.limits || {})]));
  // The CLI words each field's unit as cli.unit.<unit> (the schema's units, its knob flags' too).
  const schema = (await core()).schema();
  const units = new Set([...Object.values(schema.requests), ...Object.values(schema.engines)].flat().map((f) => f.unit).filter(Boolean));
  // The schema hands out each field's help id (its config table's shape keys too: help.config.<key>).
  const helps = new Set([...Object.values(schema.requests), ...Object.values(schema.engines), schema.config].flat().map((f) => f.help));
  // Data files hold messages too: the presets' notes ({id, params} in data/models.json).
  const ids = (value) => (Array.isArray(value) ? value.flatMap(ids)
    : value && typeof value === 'object' ? [...(typeof value.id === 'string' ? [value.id] : []), ...Object.values(value).flatMap(ids)] : []);
  const inData = new Set(ids(loadJson('data/models.json').models.map((m) => m.notes || [])));
  // A card's link and topology (fit.interconnect) are worded as link.<kind>, topology.<topology>.
  for (const g of loadJson('data/gpus.json').gpus) {
    if (g.interconnect) inData.add(`link.${g.interconnect.kind}`).add(`topology.${g.interconnect.topology}`);
  }
  const inNative = (key) => inCode(key) || inData.has(key) || helps.has(key) || (key.startsWith('cli.unit.') && units.has(key.slice('cli.unit.'.length))) ||
    (key.startsWith('help.engine_options.') && knobs.has(key.slice('help.engine_options.'.length)));
  const unused = Object.keys(en).filter((key) => !asked(key) && !inNative(key));
  assert.deepEqual(unused, [], 'keys in en.json that nothing renders');
  const asks = [...page.matchAll(/\bt\('([^']+)'/g)].map((m) => m[1]);
  assert.deepEqual(asks.filter((k) => !(k in en)), [], 'keys the page renders that en.json lacks');
  // A family member the page can ask for but no catalog words is shown as its id.
  const missing = families.flatMap((f) => members[f].map((m) => `${f}.${m}`))
    .filter((k) => !(k in en) && !['engine.', 'term.', 'input.'].some((p) => k.startsWith(p)));
  assert.deepEqual(missing, [], 'members of a family the page renders with no entry in en.json');
});

test('every error the core or the CLI raises has its words in every language', () => {
  // An error missing from a catalog printed its raw id (`vramcalc inspect --lang ar` showed
  // error.invalid_gguf). Every error is made from its message id: Error::make(code, field,
  // "error.x", params), or the constructor with its Message{"error.x", ...} (the boundary's
  // internal error); none is made from an English sentence alone.
  const text = ['core', 'cli'].flatMap((d) => readdirSync(join(root, d), { recursive: true })
    .filter((f) => /\.(cpp|hpp)$/.test(f)).map((f) => readFileSync(join(root, d, f), 'utf8'))).join('\n');
  const direct = [...text.matchAll(/(?<![:\w])Error\("[a-z_]+",[^;]*?;/g)].map((m) => m[0]);
  assert.ok(direct.length > 0, 'the boundary makes its internal error directly');
  assert.deepEqual(direct.filter((call) => !/Message\{"error\.[a-z_]+"/.test(call)), [], 'errors made without a message id');
  const ids = [...new Set([...text.matchAll(/Error::make\(\s*"[a-z_]+",[^;]*?"(error\.[a-z_]+)"/g),
    ...text.matchAll(/(?<![:\w])Error\("[a-z_]+",[^;]*?Message\{"(error\.[a-z_]+)"/g)].map((m) => m[1]))].sort();
  assert.ok(ids.length > 80 && ids.includes('error.internal'), `read ${ids.length} error ids`);
  for (const lang of Object.keys(catalogs)) {
    assert.deepEqual(ids.filter((id) => !(id in catalogs[lang].messages)), [], `error ids with no words in ${lang}`);
  }
});
