// A checkpoint's files on the page: a GGUF chosen or dropped is read by its
// header alone, its type mix shown and its bytes used as the weights; split
// parts sum; safetensors need their config; a hostile file gets the core's
// named error and the page keeps working.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtures, splitParts, safetensorsFile } from '../js/gguf-writer.mjs';
import { openPage, screenshot, text } from './harness.mjs';

const INFO = 'vram-calculator #checkpoint-info';
const ERROR = 'vram-calculator #config-error';

function shadowText(page, selector) {
  return page.evaluate((s) => document.querySelector('vram-calculator').shadowRoot.querySelector(s)?.textContent ?? '', selector);
}

test('a chosen GGUF: its header is read, its type mix shown, its bytes are the weights', async () => {
  const browser = await openPage('?gpu=');
  try {
    const { page } = browser;
    const bytes = fixtures['llama-q4_k_m']().build();
    await page.locator('vram-calculator #config-file').setInputFiles({ name: 'tiny-Q4_K_M.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
    await page.waitForFunction(() => /Q6_K/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('#checkpoint-info').textContent));
    assert.match(await text(page, INFO), /gguf, 1 file\): Q6_K 0\.00 GB, Q4_K 0\.00 GB, F32 0\.00 GB/);
    assert.equal(await page.locator('vram-calculator #model').inputValue(), 'Imported config.json');
    // The weights term is the file's tensors, type by type.
    await page.waitForFunction(() => /bits \/ 8 \(Q6_K\) \+ .* bits \/ 8 \(Q4_K\)/.test(document.querySelector('vram-calculator').shadowRoot.textContent));
    await screenshot(page, 'checkpoint-gguf');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('split GGUF parts sum; a missing part is named', async () => {
  const browser = await openPage('?gpu=');
  try {
    const { page } = browser;
    const parts = splitParts(3).map((b, i) => ({ name: `m-0000${i + 1}-of-00003.gguf`, mimeType: 'application/octet-stream', buffer: Buffer.from(b) }));
    const input = page.locator('vram-calculator #config-file');
    await input.setInputFiles([parts[0], parts[2]]);
    await page.waitForFunction(() => !document.querySelector('vram-calculator').shadowRoot.querySelector('#config-error').hidden);
    assert.match(await shadowText(page, '#config-error'), /split in 3 parts; 2 given/);
    await input.setInputFiles(parts);
    await page.waitForFunction(() => /3 files/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('#checkpoint-info').textContent));
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('safetensors need their config; a hostile GGUF gets a named error', async () => {
  const browser = await openPage('?gpu=');
  try {
    const { page } = browser;
    const input = page.locator('vram-calculator #config-file');
    const st = safetensorsFile({ 'model.layers.0.self_attn.q_proj.weight': { dtype: 'BF16', shape: [64, 64], data_offsets: [0, 8192] } });
    await input.setInputFiles({ name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from(st) });
    await page.locator(ERROR).waitFor();
    assert.match(await text(page, ERROR), /config\.json too/);
    const config = JSON.stringify({ model_type: 'llama', hidden_size: 64, num_hidden_layers: 1, num_attention_heads: 4, intermediate_size: 128, vocab_size: 64 });
    await input.setInputFiles([
      { name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from(st) },
      { name: 'config.json', mimeType: 'application/json', buffer: Buffer.from(config) },
    ]);
    await page.waitForFunction(() => /BF16/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('#checkpoint-info').textContent));
    // A header claiming 2^64 tensors: refused by name, not read.
    const hostile = Buffer.from(fixtures['gemma2-iq']().build());
    hostile.fill(0xff, 8, 16);
    await input.setInputFiles({ name: 'evil.gguf', mimeType: 'application/octet-stream', buffer: hostile });
    await page.waitForFunction(() => /tensors \(at most/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('#config-error').textContent));
    assert.match(await text(page, ERROR), /^evil\.gguf .*gguf\.tensor_count/);
    // The page still answers.
    assert.match(await text(page, 'vram-calculator .total-value'), /GB/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
