// Stray English on an Arabic or Persian page or terminal: the one check the
// page's language tests (tests/browser/i18n.test.mjs) and the CLI's
// (tests/js/cli-i18n.test.mjs) share. Latin is allowed for the names in
// tests/latin-glossary.json, every name the data gives, identifiers
// (snake_case keys and their paths such as config.hidden_size, the
// request's fields, LoRA modules) and sizes such as
// "70B"; Persian shows no Latin digit outside those names.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INPUTS } from '../../web/src/state.js';
import { core, loadJson, root } from './module.mjs';

const glossary = JSON.parse(readFileSync(join(root, 'tests/latin-glossary.json'), 'utf8'));
export const GLOSSARY = glossary.names;

const data = {
  models: loadJson('data/models.json').models.map((m) => m.name),
  gpus: loadJson('data/gpus.json').gpus.flatMap((g) => [g.name, g.memory_type, g.architecture]),
  formats: ['weights', 'kv'].flatMap((k) => loadJson('data/formats.json')[k].map((f) => f.name)),
  engines: loadJson('data/engines.json').engines.map((e) => e.name),
};
// A guide shape's name as the page words it in Arabic and Persian
// (model.guideName, size from the id: web/src/views/common.js modelName).
for (const lang of ['ar', 'fa']) {
  const template = loadJson(`data/messages/${lang}.json`)['model.guideName'];
  for (const m of loadJson('data/models.json').models.filter((m) => m.group === 'guide')) data.models.push(template.replace('{size}', m.id.slice('guide-'.length).toUpperCase()));
}
// Whole names first (longest first): "RTX 4090", "Llama 3.1 8B" carry digits that are part of a name.
const NAMES = [...new Set([...data.models, ...data.gpus, ...data.formats, ...data.engines, ...GLOSSARY].filter(Boolean))]
  .sort((a, b) => b.length - a.length);
// LoRA's module names, as the core's schema lists them.
const LORA_TARGETS = (await core()).schema().requests.estimate.find((f) => f.name === 'lora_targets').choices;
const IDS = new Set([...INPUTS, ...LORA_TARGETS, ...GLOSSARY, ...glossary.words]);

/**
 * Latin words outside the glossary, the data's names and `ids` (more
 * identifiers the caller allows); for Persian, Latin digits outside names.
 */
export function foreign(texts, lang, ids = []) {
  const allowed = new Set([...IDS, ...ids]);
  const words = new Set();
  const digits = new Set();
  for (const raw of texts) {
    let rest = raw.replace(/[\u2066-\u2069\u200e\u200f]/g, '');
    for (const name of NAMES) rest = rest.split(name).join(' ');
    for (const word of rest.split(/[\s,،؛:()«»"'=×+÷/…–≤≥%٪$[\]|<>]+/)) {
      const token = word.replace(/\.+$/, ''); // a sentence's full stop
      if (!token) continue;
      if (/[A-Za-z]/.test(token) && !allowed.has(token) && !/^[a-z0-9]+([_.][a-z0-9]+)*_[a-z0-9]+$/.test(token) && !/^\d+(\.\d+)?[BK]$/.test(token)) words.add(token);
      if (lang === 'fa' && /[0-9]/.test(token) && !/[A-Za-z]/.test(token)) digits.add(token);
    }
  }
  return { words: [...words], digits: [...digits] };
}
