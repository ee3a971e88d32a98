// The model search (web/src/search.js) over the shipped presets: what people
// type finds the model they mean, first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { namedFormat, normalize, searchEntry, searchModels, tokenize } from '../../web/src/search.js';

const { models } = JSON.parse(readFileSync(new URL('../../data/models.json', import.meta.url), 'utf8'));
const entries = models.map(searchEntry);
const find = (query) => searchModels(entries, query);

test('every model carries a family, and aliases are lists of strings', () => {
  for (const model of models) {
    assert.equal(typeof model.family, 'string', model.id);
    assert.ok(model.family.length > 0, model.id);
    if ('aliases' in model) assert.ok(Array.isArray(model.aliases) && model.aliases.every((a) => typeof a === 'string' && a.trim()), model.id);
  }
});

test('tokens: sizes stay whole, letters and digits split, other digits read', () => {
  assert.deepEqual(tokenize('Llama 3.1 70B'), [
    { word: 'llama', parts: ['llama'] }, { word: '3.1', parts: ['3.1'] }, { word: '70b', parts: ['70b'] },
  ]);
  assert.deepEqual(tokenize('gemma3').map((t) => t.parts), [['gemma', '3']]);
  assert.deepEqual(tokenize('8x7b').map((t) => t.parts), [['8', 'x', '7b']]);
  assert.deepEqual(tokenize('A22B').map((t) => t.parts), [['a', '22b']]);
  assert.equal(normalize('Qwen\u06f3 \u0668B'), 'qwen3 8b');
  assert.equal(normalize('  gpt-oss_120b. '), 'gpt oss 120b');
});

test('the queries of issue 12 find the model people mean, first', () => {
  const first = (query) => find(query)[0];
  assert.equal(first('llama 3.1 70b'), 'llama-3.1-70b');
  assert.equal(first('llama 70b'), 'llama-3.1-70b');
  assert.equal(first('deepseek r1'), 'deepseek-v3');
  assert.equal(first('r1'), 'deepseek-v3');
  assert.equal(first('deepseek'), 'deepseek-v3');
  assert.ok(find('deepseek').includes('deepseek-v2-lite'), 'V2 Lite still listed');
  assert.deepEqual(find('gpt oss').slice(0, 2).sort(), ['gpt-oss-120b', 'gpt-oss-20b']);
  assert.deepEqual(find('oss').sort(), ['gpt-oss-120b', 'gpt-oss-20b']);
  assert.equal(first('llama 3.3'), 'llama-3.1-70b');
});

test('"qwen 3" and "gemma3" list the Qwen3 and Gemma 3 models before any other', () => {
  const qwen3 = models.filter((m) => m.id.startsWith('qwen3-')).map((m) => m.id);
  assert.deepEqual(find('qwen 3').slice(0, qwen3.length).sort(), qwen3.sort());
  assert.deepEqual(find('qwen3').slice(0, qwen3.length).sort(), qwen3.sort());
  const gemma3 = models.filter((m) => m.id.startsWith('gemma-3-')).map((m) => m.id);
  assert.deepEqual(find('gemma3').sort(), gemma3.sort());
  assert.deepEqual(find('gemma 3').slice(0, gemma3.length).sort(), gemma3.sort());
});

test('an embedding or reranker model is found by its kind, and after the LLM of its size', () => {
  const pooling = models.filter((m) => m.task).map((m) => m.id);
  assert.ok(pooling.length >= 4);
  assert.deepEqual(find('embedding').sort(), pooling.filter((id) => id.includes('embedding')).sort());
  assert.deepEqual(find('reranker'), ['qwen3-reranker-0.6b']);
  assert.equal(find('Qwen/Qwen3-Embedding-8B')[0], 'qwen3-embedding-8b');
  // "qwen3 8b" means the LLM; its embedding model of the same size comes after it.
  assert.deepEqual(find('qwen3 8b'), ['qwen3-8b', 'qwen3-embedding-8b']);
  assert.equal(find('qwen3 4b')[0], 'qwen3-4b');
});

test('"70b" lists every 70B model and nothing else', () => {
  const expected = models.filter((m) => /\b70B\b/.test(m.name)).map((m) => m.id);
  assert.ok(expected.length >= 2);
  assert.deepEqual(find('70b').sort(), expected.sort());
  assert.deepEqual(find('70B').sort(), expected.sort());
});

test('typing slips are forgiven in words, never in sizes', () => {
  assert.equal(find('deepsek r1')[0], 'deepseek-v3');
  assert.equal(find('lama 8b')[0], 'llama-3.1-8b');
  assert.equal(find('mistrl nemo')[0], 'mistral-nemo-12b');
  assert.equal(find('qwne3 32b')[0], 'qwen3-32b');
  assert.ok(!find('llama 71b').length, '71B is not 70B');
  assert.ok(!find('llama 3.1 72b').length);
});

test('queries that match nothing, or nothing at all, return no models', () => {
  assert.deepEqual(find('zzzz'), []);
  assert.deepEqual(find('llama qwen'), []);
  assert.deepEqual(find(''), []);
  assert.deepEqual(find('  -- '), []);
  assert.deepEqual(find('x'.repeat(10000)), []);
});

test('ids and Arabic-Indic or Persian digits work as typed', () => {
  assert.equal(find('qwen2.5-72b')[0], 'qwen2.5-72b');
  assert.equal(find('llama \u0667\u0660b')[0], 'llama-3.1-70b');
  assert.equal(find('mixtral 8x7b')[0], 'mixtral-8x7b');
});

const { weights: formats } = JSON.parse(readFileSync(new URL('../../data/formats.json', import.meta.url), 'utf8'));
const findWith = (query) => searchModels(entries, query, formats);

test('a Hugging Face id as pasted from the hub finds its model, first, whoever uploaded it', () => {
  const cases = {
    'meta-llama/Llama-3.1-8B-Instruct': 'llama-3.1-8b',
    'meta-llama/Meta-Llama-3.1-8B-Instruct': 'llama-3.1-8b',
    'meta-llama/Llama-3.3-70B-Instruct': 'llama-3.1-70b',
    'deepseek-ai/DeepSeek-R1': 'deepseek-v3',
    'deepseek-ai/DeepSeek-V3-0324': 'deepseek-v3',
    'Qwen/Qwen2.5-7B-Instruct': 'qwen2.5-7b',
    'google/gemma-3-27b-it': 'gemma-3-27b',
    'mistralai/Mistral-Small-24B-Instruct-2501': 'mistral-small-24b',
    'moonshotai/Kimi-K2-Instruct': 'kimi-k2',
    'zai-org/GLM-4.5-Air': 'glm-4.5-air',
    'unsloth/Qwen3-8B': 'qwen3-8b',
  };
  for (const [query, id] of Object.entries(cases)) assert.equal(findWith(query)[0], id, query);
  // Every preset's own repo finds that preset first.
  for (const model of models.filter((m) => m.repo)) assert.equal(findWith(model.repo)[0], model.id, model.repo);
  // Two words typed as one.
  assert.equal(find('gptoss 120b')[0], 'gpt-oss-120b');
});

test('a name still must match where it names another model (a fine-tune, another version); words that need not match find nothing alone', () => {
  assert.deepEqual(findWith('Qwen/Qwen2.5-Coder-32B-Instruct'), []);
  assert.deepEqual(findWith('mistralai/Mistral-7B-Instruct-v0.2'), []);
  assert.deepEqual(findWith('llama 8b q4'), [], 'a bare q4 names no one format, and no model');
  // Only words that need not match, and none that does: nothing.
  assert.deepEqual(findWith('fp8'), []);
  assert.deepEqual(findWith('someone/chat'), []);
});

test('a weights format in the name is found, and needs not match the model', () => {
  const cases = [
    ['Qwen/Qwen3-32B-FP8', 'qwen3-32b', 'fp8'],
    ['Qwen/Qwen2.5-72B-Instruct-AWQ', 'qwen2.5-72b', 'awq-int4'],
    ['Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4', 'qwen2.5-7b', 'gptq-int4'],
    ['RedHatAI/Meta-Llama-3.1-70B-Instruct-FP8', 'llama-3.1-70b', 'fp8'],
    ['llama 3.1 8b Q4_K_M', 'llama-3.1-8b', 'q4_k_m'],
    ['llama 70b int8', 'llama-3.1-70b', 'int8'],
  ];
  for (const [query, id, format] of cases) {
    assert.equal(findWith(query)[0], id, query);
    assert.equal(namedFormat(query, formats), format, query);
  }
  assert.equal(namedFormat('llama 8b q4', formats), null, 'Q4_K_M, Q4_K_S or Q4_0');
  assert.equal(namedFormat('meta-llama/Llama-3.1-8B', formats), null);
  // The owner's words are not the model's name.
  assert.equal(namedFormat('fp8-org/Llama-3.1-8B', formats), null);
  // A format word that is also in a model's name still finds it.
  assert.deepEqual(findWith('mxfp4').sort(), ['gpt-oss-120b', 'gpt-oss-20b']);
});
