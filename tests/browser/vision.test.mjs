// A vision-language model's images on the page (issue 42 part 2): the
// images input shows for a model with a vision tower only, typing a count
// brings the engine's vision terms with the core's figures and the flag that
// sets them, and the link carries it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, text } from './harness.mjs';
import { core } from '../js/module.mjs';

const TERMS = 'vram-calculator table.terms';
const LAUNCH = 'vram-calculator section.launch';
const plain = (s) => s.replace(/[\u2066-\u2069]/g, '');

test('Images typed for Gemma 3 27B under vLLM: the encoder cache in the terms, the limit in the command', async () => {
  const request = { model: 'gemma-3-27b', engine: 'vllm', gpu: 'h100-sxm' };
  const answer = (await core()).estimate({ ...request, images: 2 });
  const cache = answer.terms.find((t) => t.id === 'encoder_cache');
  const browser = await openPage(`?${new URLSearchParams(request)}`);
  try {
    const { page } = browser;
    await page.locator(LAUNCH).waitFor();
    const field = page.locator('vram-calculator #images');
    assert.ok(await field.isVisible());
    await field.fill('2');
    await field.press('Tab');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('images') === '2');
    await page.waitForFunction(() => /--limit-mm-per-prompt/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('section.launch')?.textContent || ''));
    assert.match(await text(page, LAUNCH), /--limit-mm-per-prompt '\{"image":2\}'/);
    assert.match(plain(await text(page, TERMS)), new RegExp(`Encoder cache \\(image embeddings\\)\\s*${cache.gb.toFixed(1)} GB`));
    assert.match(plain(await text(page, TERMS)), /Vision tower profiling peak/);
    // Under llama.cpp the same images: the mmproj file and its flag.
    await page.locator('vram-calculator #engine').selectOption('llamacpp');
    await page.waitForFunction(() => /--mmproj mmproj\.gguf/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('section.launch')?.textContent || ''));
    assert.match(plain(await text(page, TERMS)), /Vision tower and projector \(mmproj\)/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('A text model hides the images input; Gemma 3 from a link in Arabic shows its terms', async () => {
  const browser = await openPage('?model=llama-3.1-8b&engine=vllm&gpu=h100-sxm');
  try {
    const { page } = browser;
    await page.locator(LAUNCH).waitFor();
    assert.equal(await page.locator('vram-calculator #images').isVisible(), false);
  } finally {
    await browser.close();
  }
  const arabic = await openPage('?model=gemma-3-27b&engine=llamacpp&weights=q4_k_m&gpu=rtx-4090&images=1&lang=ar', { viewport: { width: 390, height: 844 } });
  try {
    const { page } = arabic;
    await page.locator(LAUNCH).waitFor();
    assert.match(plain(await text(page, TERMS)), /برج الرؤية والمُسقِط \(mmproj\)/);
    assert.match(await text(page, LAUNCH), /--mmproj mmproj\.gguf/);
    assert.deepEqual(arabic.errors, []);
  } finally {
    await arabic.close();
  }
});
