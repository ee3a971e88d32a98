// Embed modes (web/src/embed.js): the inputs and hide attributes, which
// inputs each view reads, and catalog text from any source read one way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  INPUT_NAMES, VIEW_INPUTS, fetchCatalog, fragmentCatalogText, messageCatalogText, readCatalogText, readHide, readInputs, visibleInputs,
} from '../../web/src/embed.js';
import { VIEWS, defaultState, devicesRequest, fleetRequest, gridRequest } from '../../web/src/state.js';
import { core } from './module.mjs';

test('inputs: absent is every input, "none" is none, unknown words are named', () => {
  assert.deepEqual(readInputs(null), { inputs: null, unknown: [] });
  assert.deepEqual(readInputs('none'), { inputs: [], unknown: [] });
  assert.deepEqual(readInputs(' Model, context  gpu model '), { inputs: ['model', 'context', 'gpu'], unknown: [] });
  assert.deepEqual(readInputs('model <b>x</b>'), { inputs: ['model'], unknown: ['<b>x</b>'] });
  assert.deepEqual(readInputs(''), { inputs: [], unknown: [] });
  assert.deepEqual(readInputs('gpu '.repeat(10000)).inputs, ['gpu']);
});

test('hide takes header and tabs', () => {
  assert.deepEqual(readHide('header tabs'), { hide: ['header', 'tabs'], unknown: [] });
  assert.deepEqual(readHide(null), { hide: [], unknown: [] });
  assert.deepEqual(readHide('tabs footer'), { hide: ['tabs'], unknown: ['footer'] });
});

test('each view shows only the inputs its request reads', async () => {
  assert.deepEqual(Object.keys(VIEW_INPUTS).sort(), [...VIEWS].sort());
  for (const list of Object.values(VIEW_INPUTS)) for (const name of list) assert.ok(INPUT_NAMES.includes(name), name);
  // The requests' own keys: a key a view reads is an input it shows.
  const reads = (request) => Object.keys(request).filter((k) => k !== 'models' && k !== 'catalog');
  const page = { schema: (await core()).schema() };
  const state = { ...defaultState(page), model: 'llama-3.1-8b' };
  assert.deepEqual(reads(gridRequest(state, undefined, page)).sort(), ['batch', 'context']);
  assert.ok(gridRequest(state, undefined, page).models.includes('llama-3.1-8b'), 'the grid adds the chosen model: model shows');
  assert.deepEqual(reads(devicesRequest(state)).sort(), ['context', 'model', 'usable_fraction']);
  assert.deepEqual(reads(fleetRequest(state)).sort(), ['batch', 'context', 'model', 'weights']);
  assert.deepEqual([...visibleInputs('grid', null)], ['model', 'context', 'batch']);
  assert.deepEqual([...visibleInputs('grid', ['gpu', 'context'])], ['context']);
  assert.deepEqual([...visibleInputs('calculator', [])], []);
  assert.ok(!visibleInputs('calculator', null).has('usable_fraction'));
});

test('a catalog fetched by its address: the catalog, or a code the catalogs word, never the browser\'s English', async () => {
  const asked = [];
  const answer = (status, body) => async (url, options) => {
    asked.push([String(url), options.credentials]);
    return { ok: status >= 200 && status < 300, status, text: async () => body };
  };
  assert.deepEqual(await fetchCatalog('fleet.json', 'https://vendor.example/page/', answer(200, '{"gpus": []}')), { catalog: { gpus: [] } });
  assert.deepEqual(asked, [['https://vendor.example/page/fleet.json', 'omit']]);
  assert.deepEqual(await fetchCatalog('fleet.json', 'https://vendor.example/', answer(404, 'Not Found')), { error: { code: 'catalogHttp', status: 404 } });
  const broken = await fetchCatalog('fleet.json', 'https://vendor.example/', answer(200, '{"gpus": ['));
  assert.equal(broken.error.code, 'catalogJson');
  assert.equal(typeof broken.error.detail, 'string');
  const offline = async () => {
    throw new TypeError('Failed to fetch');
  };
  assert.deepEqual(await fetchCatalog('fleet.json', 'https://vendor.example/', offline), { error: { code: 'catalogFetch' } });
  const unread = async () => ({ ok: true, status: 200, text: async () => { throw new TypeError('network error'); } });
  assert.deepEqual(await fetchCatalog('fleet.json', 'https://vendor.example/', unread), { error: { code: 'catalogFetch' } });
  // An address that is no URL is not fetched at all.
  assert.deepEqual(await fetchCatalog('http://[', 'https://vendor.example/', answer(200, '{}')), { error: { code: 'catalogFetch' } });
  assert.equal(asked.length, 3);
});

test('catalog text from any source: JSON objects only, bounded', () => {
  assert.deepEqual(readCatalogText(' {"gpus": []} '), { catalog: { gpus: [] } });
  assert.equal(readCatalogText('{"gpus": [').error.code, 'catalogJson');
  assert.equal(readCatalogText('42').error.code, 'catalogType');
  assert.equal(readCatalogText('null').error.code, 'catalogType');
  assert.equal(readCatalogText(`{"x": "${'a'.repeat(300000)}"}`).error.code, 'catalogLarge');
  const json = JSON.stringify({ gpus: [{ id: 'x', name: 'X & Y' }] });
  assert.equal(fragmentCatalogText(`#catalog=${encodeURIComponent(json)}`), json);
  assert.equal(fragmentCatalogText('#other=1'), null);
  assert.equal(fragmentCatalogText(''), null);
  assert.equal(messageCatalogText({ type: 'vram-catalog', catalog: { gpus: [] } }), '{"gpus":[]}');
  assert.equal(messageCatalogText({ type: 'vram-catalog', catalog: '{"gpus":[]}' }), '{"gpus":[]}');
  assert.equal(messageCatalogText({ type: 'other' }), null);
  assert.equal(messageCatalogText('vram-catalog'), null);
  const cyclic = { type: 'vram-catalog', catalog: {} };
  cyclic.catalog.self = cyclic.catalog;
  assert.equal(messageCatalogText(cyclic), '');
});
