// A vision-language model's images on the page (issue 42 part 2): the
// images input shows for a model with a vision tower only, typing a count
// brings the engine's vision terms with the core's figures and the flag that
// sets them, and the link carries it; for a tower of any resolution
// (Qwen3.5's), the image size beside them.
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

// A Qwen3.5 config with Qwen3-VL's tower, whose images take any resolution.
const QWEN35_VL = {
  model_type: 'qwen3_5',
  text_config: {
    model_type: 'qwen3_5_text', hidden_size: 1024, num_hidden_layers: 8, num_attention_heads: 8, num_key_value_heads: 2,
    head_dim: 128, intermediate_size: 3072, vocab_size: 32000,
  },
  vision_config: { depth: 2, hidden_size: 256, intermediate_size: 1024, num_heads: 4, patch_size: 16, spatial_merge_size: 2 },
};

test('A pasted Qwen3.5 config: the image size shows beside images, and typing it moves the tokens and the vLLM bound', async () => {
  const query = `?model=config&config=${encodeURIComponent(JSON.stringify(QWEN35_VL))}&engine=vllm&gpu=h100-sxm`;
  const browser = await openPage(query);
  try {
    const { page } = browser;
    await page.locator(LAUNCH).waitFor();
    const size = page.locator('vram-calculator #image_size');
    // No images: no size to ask.
    assert.equal(await size.isVisible(), false);
    const images = page.locator('vram-calculator #images');
    await images.fill('1');
    await images.press('Tab');
    await size.waitFor({ state: 'visible' });
    // The schema's default, 1024: 1,048,576 pixels, and the link leaves it out.
    await page.waitForFunction(() => /"max_pixels":1048576/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('section.launch')?.textContent || ''));
    assert.equal(new URL(page.url()).searchParams.get('image_size'), null);
    await size.fill('1440');
    await size.press('Tab');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('image_size') === '1440');
    await page.waitForFunction(() => /"max_pixels":2073600/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('section.launch')?.textContent || ''));
    await page.locator('vram-calculator details[data-key=assumptions] summary').click();
    await page.locator('vram-calculator details[data-key=assumptions] li').first().waitFor();
    assert.match(plain(await text(page, 'vram-calculator details[data-key=assumptions]')), /1,?440 × 1,?440 pixels \(image_size, an assumption\)[^;]*2,?025 tokens/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
  // The same link in Persian: the field's label in Persian, the tokens in Persian digits.
  const persian = await openPage(`${query}&images=1&image_size=1440&lang=fa`);
  try {
    const { page } = persian;
    await page.locator(LAUNCH).waitFor();
    assert.ok(await page.locator('vram-calculator #image_size').isVisible());
    const shadow = () => page.evaluate(() => document.querySelector('vram-calculator').shadowRoot.textContent);
    assert.match(plain(await shadow()), /اندازهٔ تصویر \(پیکسل هر ضلع\)/);
    await page.locator('vram-calculator details[data-key=assumptions] summary').click();
    await page.locator('vram-calculator details[data-key=assumptions] li').first().waitFor();
    assert.match(plain(await text(page, 'vram-calculator details[data-key=assumptions]')), /۲٬?۰۲۵ توکن/);
    assert.deepEqual(persian.errors, []);
  } finally {
    await persian.close();
  }
});
