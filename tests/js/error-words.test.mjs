// No error reaches an Arabic or Persian reader in English (issue 39): every
// error the core gives for the requests of tests/vectors and the golden
// answers, and for broken and cut GGUF and safetensors headers, rendered from
// its message id and params in Arabic and Persian, holds no Latin word but the
// glossary's names, the data's names and identifiers (tests/js/latin.mjs),
// once what the error quotes is taken out: what the user wrote (the
// request's keys and strings, the method, the field) and the names and ids
// the core lists (a parameter that is one token, such as the known formats).
// A sentence in a parameter (a string with a space) is checked like the rest.
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRenderer } from '../../web/src/messages.js';
import { GgufWriter, fixtures, safetensorsFile } from './gguf-writer.mjs';
import { foreign } from './latin.mjs';
import { loadJson, rawCall, rawModule, requestVectorFiles } from './module.mjs';

const catalogs = Object.fromEntries(['en', 'ar', 'fa'].map((lang) => [lang, loadJson(`data/messages/${lang}.json`)]));
const renderers = { ar: createRenderer({ catalogs, lang: 'ar' }), fa: createRenderer({ catalogs, lang: 'fa' }) };
const SPLIT = /[\s,،؛:()«»"'=×+÷/…–≤≥%٪$[\]|<>{}]+/;

// Every string the user wrote: the request's keys and strings.
function userStrings(value, out = new Set()) {
  if (typeof value === 'string') out.add(value);
  else if (Array.isArray(value)) value.forEach((v) => userStrings(v, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      userStrings(v, out);
    }
  }
  return out;
}

// The names and ids the core quotes in an error's params: strings of one token, nested ones too.
function quotedTokens(value, out = new Set()) {
  if (typeof value === 'string' && !/\s/.test(value)) out.add(value);
  else if (Array.isArray(value)) value.forEach((v) => quotedTokens(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => quotedTokens(v, out));
  return out;
}

// The text with every quoted string taken out (longest first), and an Arabic
// letter joined to a Latin word ("وconfig": "and config") parted from it.
function unquoted(text, quoted) {
  let out = text;
  for (const q of [...quoted].filter((x) => x.length > 0).sort((a, b) => b.length - a.length)) out = out.split(q).join(' ');
  return out.replace(/([\u0600-\u06ff])(?=[A-Za-z])/g, '$1 ');
}

// The errors: [{ source, error, input }] with `input` the request as sent.
async function requestErrors() {
  const out = [];
  const add = async (source, method, text) => {
    const answer = JSON.parse(await rawCall(method, text));
    let input;
    try {
      input = JSON.parse(text);
    } catch {
      input = text;
    }
    if (answer.error) out.push({ source, error: answer.error, input, method });
  };
  for (const file of requestVectorFiles()) {
    for (const c of loadJson(`tests/vectors/${file}`).cases) {
      if (c.error) await add(`${file}: ${c.name}`, c.method, c.request_text ?? JSON.stringify(c.request));
    }
  }
  for (const c of loadJson('tests/golden/answers.json').cases) {
    if (c.answer.startsWith('{"error"')) await add(c.source, c.method, c.request_text);
  }
  const finetune = loadJson('tests/golden/finetune-answers.json');
  for (const c of finetune.found) {
    if (c.answer.startsWith('{"error"')) await add(c.name, c.method, JSON.stringify(c.request));
  }
  // A card of a catalog with a bad field: the card's id said in every language (error.in_gpu).
  const card = { id: 'a', vram_gb: 80, bandwidth_gbps: 3350, monthly_usd: 2000 };
  for (const bad of [{ vram_gb: -1 }, { stock: 1.5 }, { min_order: 5, stock: 2 }, { regions: 'eu' }, { hourly_usd: 1 }]) {
    const request = { model: 'guide-70b', gpu: 'a', catalog: { gpus: [{ ...card, ...bad }] } };
    await add(`catalog card ${JSON.stringify(bad)}`, 'estimate', JSON.stringify(request));
  }
  // Text that is not JSON: the byte where it stops being JSON, not the parser's English.
  for (const text of ['{"model": guide}', '{"model": "guide-70b",', '[1, 2', '{"context": 1e400}', '\u00e9']) await add(`text ${text}`, 'estimate', text);
  return out;
}

// Broken file headers: each fixture cut short (truncated, or past a smaller
// file's end), a byte changed, and safetensors headers that are not JSON.
async function readerErrors() {
  const { inspect } = await rawModule();
  const out = [];
  const add = (source, kind, bytes, size) => {
    const answer = JSON.parse(inspect(kind, bytes, size));
    if (answer.error) out.push({ source, error: answer.error, input: '', method: kind });
  };
  for (const [name, build] of Object.entries(fixtures)) {
    const bytes = build().build();
    for (let n = 0; n < Math.min(bytes.length, 4096); n += 53) {
      add(`${name} cut at ${n}`, 'gguf', bytes.subarray(0, n), bytes.length);
      add(`${name} ends at ${n}`, 'gguf', bytes.subarray(0, n), n);
    }
    for (let i = 0; i < Math.min(bytes.length, 2048); i += 29) {
      const changed = bytes.slice();
      changed[i] ^= 0xff;
      add(`${name} byte ${i} changed`, 'gguf', changed, changed.length);
    }
  }
  add('an empty GGUF', 'gguf', new GgufWriter().build(), 0);
  const st = safetensorsFile({ a: { dtype: 'F16', shape: [2, 2], data_offsets: [0, 8] } });
  for (let n = 0; n < st.length; n += 5) add(`safetensors cut at ${n}`, 'safetensors', st.subarray(0, n), st.length);
  const enc = new TextEncoder();
  for (const header of ['{"a": ', '{"a": {"dtype": "F16"}}', '{"a": {"dtype": "Q9", "shape": [1], "data_offsets": [0, 2]}}', '{"n": 1e400}', '[1]', '{"a": {"dtype": "F16", "shape": [-1], "data_offsets": [0, 2]}}']) {
    const text = enc.encode(header);
    const file = new Uint8Array(8 + text.length);
    new DataView(file.buffer).setUint32(0, text.length, true);
    file.set(text, 8);
    add(`safetensors header ${header}`, 'safetensors', file, file.length);
  }
  return out;
}

test('no error reaches an Arabic or Persian reader in English', async () => {
  const errors = [...(await requestErrors()), ...(await readerErrors())];
  assert.ok(errors.length > 300, `${errors.length} errors`);
  const ids = new Set(errors.map((e) => e.error.message_id));
  assert.ok(ids.size > 40, `${ids.size} message ids`);
  for (const id of ['error.truncated', 'error.in_gpu', 'error.parse', 'error.json_number']) assert.ok(ids.has(id), `no case gives ${id}`);
  const problems = [];
  const seen = new Set();
  for (const { source, error, input, method } of errors) {
    const message = { id: error.message_id, params: error.params };
    const key = JSON.stringify(message);
    if (seen.has(key)) continue;
    seen.add(key);
    // A user's string cut at 200 bytes is quoted with an ellipsis: its quoted prefix goes too.
    const user = [...userStrings(input), method ?? '', error.field].flatMap((u) => [u, u.slice(0, 200)]);
    const quoted = new Set([...user, ...quotedTokens(error.params)]);
    for (const lang of ['ar', 'fa']) {
      const text = renderers[lang].render(message);
      const { words, digits } = foreign([unquoted(text, quoted)], lang);
      const stray = [...words, ...digits];
      if (stray.length) problems.push(`${lang} ${source} [${error.message_id}]: ${stray.join(' ')} in "${text}"`);
    }
  }
  if (process.env.ERROR_WORDS_OUT) writeFileSync(process.env.ERROR_WORDS_OUT, problems.join('\n'));
  assert.deepEqual(problems, [], `${problems.length} errors show Latin words or digits`);
});
