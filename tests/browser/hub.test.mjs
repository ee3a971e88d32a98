// A Hugging Face model id, opt-in: nothing is fetched until the user asks;
// then config.json, the index and the safetensors headers (range requests)
// come from the Hub. Responses are served by Playwright's routing (no
// network in tests); they are shaped like the Hub's (a real config.json
// from tests/configs, safetensors headers written by the test writer).
// Gated, missing and offline paths each say which and keep the state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { safetensorsFile } from '../js/gguf-writer.mjs';
import { openPage, root, text } from './harness.mjs';

const HUB = 'https://huggingface.co/';
const config = readFileSync(join(root, 'tests/configs/qwen2.5-0.5b/config.json'), 'utf8');
const ERROR = 'vram-calculator #config-error';
const INFO = 'vram-calculator #checkpoint-info';

/** Two shards of a tiny checkpoint and their index. */
function shard(name) {
  return safetensorsFile({ __metadata__: { format: 'pt' }, [name]: { dtype: 'BF16', shape: [896, 896], data_offsets: [0, 896 * 896 * 2] } });
}
const shards = {
  'model-00001-of-00002.safetensors': shard('model.layers.0.self_attn.q_proj.weight'),
  'model-00002-of-00002.safetensors': shard('model.embed_tokens.weight'),
};
const index = JSON.stringify({
  metadata: { total_size: 2 * 896 * 896 * 2 },
  weight_map: { 'model.layers.0.self_attn.q_proj.weight': 'model-00001-of-00002.safetensors', 'model.embed_tokens.weight': 'model-00002-of-00002.safetensors' },
});

const CORS = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': 'Content-Range' };

/** Serves the Hub from memory; `status` overrides every answer (401, 404, 429). */
async function serveHub(page, { status, abort } = {}) {
  const seen = [];
  await page.route(`${HUB}**`, async (route) => {
    const request = route.request();
    seen.push({ url: request.url(), headers: await request.allHeaders() });
    if (abort) return route.abort('internetdisconnected');
    if (status) return route.fulfill({ status, headers: CORS, body: 'no' });
    const path = new URL(request.url()).pathname.split('/resolve/main/')[1];
    if (path === 'config.json') return route.fulfill({ status: 200, headers: CORS, contentType: 'application/json', body: config });
    if (path === 'model.safetensors.index.json') return route.fulfill({ status: 200, headers: CORS, contentType: 'application/json', body: index });
    const bytes = shards[path];
    if (!bytes) return route.fulfill({ status: 404, headers: CORS, body: 'Entry not found' });
    const [, start, end] = /bytes=(\d+)-(\d+)/.exec(request.headers().range || 'bytes=0-0');
    const last = Math.min(Number(end), bytes.length - 1);
    return route.fulfill({
      status: 206,
      headers: { ...CORS, 'Content-Range': `bytes ${start}-${last}/${bytes.length}` },
      body: Buffer.from(bytes.subarray(Number(start), last + 1)),
    });
  });
  return seen;
}

async function fetchModel(page, id, token = '') {
  await page.locator('vram-calculator details.hub summary').click();
  await page.locator('vram-calculator #hub-id').fill(id);
  if (token) await page.locator('vram-calculator #hub-token').fill(token);
  await page.locator('vram-calculator #hub-load').click();
}

test('a model id: nothing fetched until asked, then config, index and headers by range', async () => {
  const browser = await openPage('?gpu=');
  try {
    const { page } = browser;
    const seen = await serveHub(page);
    await page.waitForTimeout(200);
    assert.equal(seen.length, 0, 'no request before the user asks');
    await fetchModel(page, 'Qwen/Qwen2.5-0.5B', 'hf_secret');
    await page.waitForFunction(() => /BF16/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('#checkpoint-info').textContent));
    assert.match(await text(page, INFO), /^Qwen\/Qwen2\.5-0\.5B: .*safetensors, 2 files\): BF16 0\.00 GB/);
    assert.deepEqual(seen.map((s) => s.url.replace(HUB, '')), [
      'Qwen/Qwen2.5-0.5B/resolve/main/config.json',
      'Qwen/Qwen2.5-0.5B/resolve/main/model.safetensors.index.json',
      'Qwen/Qwen2.5-0.5B/resolve/main/model-00001-of-00002.safetensors',
      'Qwen/Qwen2.5-0.5B/resolve/main/model-00002-of-00002.safetensors',
    ]);
    assert.ok(seen.slice(2).every((s) => /^bytes=0-\d+$/.test(s.headers.range)));
    assert.ok(seen.every((s) => s.headers.authorization === 'Bearer hf_secret'));
    // The token never reaches the address.
    assert.ok(!page.url().includes('hf_secret'));
    // The model is named as the Hub id it came from (the link's file=).
    assert.equal(await page.locator('vram-calculator #model').inputValue(), 'Qwen/Qwen2.5-0.5B');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('a Hub id typed in the model search that no preset has is offered from the Hub, and fetched when asked', async () => {
  const browser = await openPage('?gpu=');
  try {
    const { page } = browser;
    const seen = await serveHub(page);
    const box = page.locator('vram-calculator #model');
    await box.fill('Qwen/Qwen2.5-Coder-0.5B');
    assert.match(await text(page, 'vram-calculator #model-status'), /No preset matches “Qwen\/Qwen2\.5-Coder-0\.5B”/);
    const offer = page.locator('vram-calculator .combo button.link');
    assert.equal(await text(page, 'vram-calculator .combo button.link'), 'Fetch Qwen/Qwen2.5-Coder-0.5B from the Hub');
    await page.waitForTimeout(100);
    assert.equal(seen.length, 0, 'no request before the user asks');
    await offer.click();
    await page.waitForFunction(() => /BF16/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('#checkpoint-info').textContent));
    assert.equal(seen[0].url.replace(HUB, ''), 'Qwen/Qwen2.5-Coder-0.5B/resolve/main/config.json');
    assert.equal(await page.locator('vram-calculator #hub-id').inputValue(), 'Qwen/Qwen2.5-Coder-0.5B');
    assert.equal(await box.inputValue(), 'Qwen/Qwen2.5-Coder-0.5B');
    // Words that are not an id keep the config.json offer.
    await box.fill('zzzz');
    assert.equal(await text(page, 'vram-calculator .combo button.link'), 'Load its config.json');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

for (const [name, options, expected] of [
  ['gated', { status: 401 }, /is gated or private \(HTTP 401\)/],
  ['missing', { status: 404 }, /has no config\.json on the Hub/],
  ['rate-limited', { status: 429 }, /rate limit/],
  ['offline', { abort: true }, /could not be fetched/],
]) {
  test(`a ${name} model says so and keeps the state`, async () => {
    const browser = await openPage('?gpu=');
    try {
      const { page } = browser;
      await serveHub(page, options);
      await fetchModel(page, 'meta-llama/Llama-3.1-8B');
      await page.locator(ERROR).waitFor();
      assert.match(await text(page, ERROR), expected);
      assert.equal(await page.locator('vram-calculator #model').inputValue(), '70B (guide shape)');
      assert.match(await text(page, 'vram-calculator .total-value'), /GB/);
    } finally {
      await browser.close();
    }
  });
}

test('network="off" leaves the model-id field out', async () => {
  const browser = await openPage('?gpu=');
  try {
    const { page } = browser;
    const has = await page.evaluate(async () => {
      const el = document.createElement('vram-calculator');
      el.setAttribute('network', 'off');
      document.body.append(el);
      for (let i = 0; i < 100 && !el.shadowRoot.querySelector('form.inputs'); i++) await new Promise((r) => setTimeout(r, 50));
      return { form: Boolean(el.shadowRoot.querySelector('form.inputs')), hub: Boolean(el.shadowRoot.querySelector('#hub-id')) };
    });
    assert.deepEqual(has, { form: true, hub: false });
  } finally {
    await browser.close();
  }
});

test('the Hub one shard at a time: each header parsed before the next shard is asked for, and a refused shard stops the rest', async () => {
  const browser = await openPage('?gpu=');
  try {
    const { page } = browser;
    const names = ['model-00001-of-00004.safetensors', 'model-00002-of-00004.safetensors', 'model-00003-of-00004.safetensors', 'model-00004-of-00004.safetensors'];
    const files = Object.fromEntries(names.map((n, i) => [n, shard(`model.layers.${i}.mlp.up_proj.weight`)]));
    // The third is not safetensors: its header is refused by name.
    files[names[2]] = new Uint8Array(64).fill(0xff);
    const map = JSON.stringify({ weight_map: Object.fromEntries(names.map((n, i) => [`model.layers.${i}.mlp.up_proj.weight`, n])) });
    let open = 0;
    let most = 0;
    const asked = [];
    await page.route(`${HUB}**`, async (route) => {
      const path = new URL(route.request().url()).pathname.split('/resolve/main/')[1];
      if (path === 'config.json') return route.fulfill({ status: 200, headers: CORS, body: config });
      if (path === 'model.safetensors.index.json') return route.fulfill({ status: 200, headers: CORS, body: map });
      const bytes = files[path];
      asked.push(path);
      open += 1;
      most = Math.max(most, open);
      // Slow answers: a page that asked for every shard at once would have several out.
      await new Promise((resolve) => setTimeout(resolve, 150));
      open -= 1;
      const [, start, end] = /bytes=(\d+)-(\d+)/.exec(route.request().headers().range);
      const last = Math.min(Number(end), bytes.length - 1);
      return route.fulfill({ status: 206, headers: { ...CORS, 'Content-Range': `bytes ${start}-${last}/${bytes.length}` }, body: Buffer.from(bytes.subarray(Number(start), last + 1)) });
    });
    await fetchModel(page, 'o/four-shards');
    await page.locator(ERROR).waitFor();
    assert.match(await text(page, ERROR), /^model-00003-of-00004\.safetensors /);
    assert.deepEqual(asked, names.slice(0, 3), 'the fourth shard is never fetched');
    assert.equal(most, 1, 'one shard request at a time');
    assert.equal(await page.locator('vram-calculator #model').inputValue(), '70B (guide shape)');
  } finally {
    await browser.close();
  }
});
