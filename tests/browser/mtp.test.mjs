// The model's own MTP layers as the drafter on the page (issue 42 part 2):
// offered only for a model that carries them, their weights and cache as
// terms with the core's figures, vLLM's method mtp in the command, the link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { openPage, text } from './harness.mjs';
import { core } from '../js/module.mjs';

const TERMS = 'vram-calculator table.terms';
const LAUNCH = 'vram-calculator section.launch';
const BASE = { model: 'deepseek-v3', weights: 'fp8', engine: 'vllm', gpu: 'h200-sxm', gpu_count: 8 };
const query = (q) => `?${new URLSearchParams(q)}`;
const plain = (s) => s.replace(/[\u2066-\u2069]/g, '');

test("DeepSeek V3's MTP layers chosen on the page under vLLM: terms, command and link", async () => {
  const answer = (await core()).estimate({ ...BASE, speculative: 'mtp' });
  const weights = answer.terms.find((t) => t.id === 'mtp_weights');
  const browser = await openPage(query(BASE));
  try {
    const { page } = browser;
    const choice = page.locator('vram-calculator [id="speculative"]');
    assert.equal(await choice.isVisible(), true);
    assert.doesNotMatch(await text(page, TERMS), /MTP layers/);
    await choice.selectOption('mtp');
    await page.waitForFunction(() => location.search.includes('speculative=mtp'));
    const terms = plain(await text(page, TERMS));
    assert.match(terms, new RegExp(`MTP layers' weights${weights.gb.toFixed(1)} GB`));
    assert.match(terms, /MTP layers' KV cache/);
    assert.match(await text(page, LAUNCH), /--speculative-config '\{"method":"mtp","num_speculative_tokens":5\}'/);
    // The draft model gives way to the layers; the tokens they draft show and go into the command.
    assert.equal(await page.locator('vram-calculator [id="draft_model"]').isVisible(), false);
    const tokens = page.locator('vram-calculator [id="draft_tokens"]');
    await tokens.fill('2');
    await tokens.press('Enter');
    await page.waitForFunction(() => location.search.includes('draft_tokens=2'));
    assert.match(await text(page, LAUNCH), /"num_speculative_tokens":2/);
    // A draft model again: no MTP term, no flag, nothing in the link.
    await choice.selectOption('draft');
    await page.waitForFunction(() => !location.search.includes('speculative'));
    assert.doesNotMatch(await text(page, LAUNCH), /speculative/);
    assert.equal(await tokens.isVisible(), false);
    // A model without MTP layers is not offered them.
    await page.goto(page.url().replace(/\?.*/, query({ ...BASE, model: 'llama-3.1-70b', gpu_count: 4 })));
    await page.locator(LAUNCH).waitFor();
    assert.equal(await page.locator('vram-calculator [id="speculative"]').isVisible(), false);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('The MTP layers from a link, in Arabic at 390 px', async () => {
  await mkdir('/tmp/mtp', { recursive: true });
  const browser = await openPage(query({ ...BASE, speculative: 'mtp', draft_tokens: 1, lang: 'ar' }), { viewport: { width: 390, height: 844 } });
  try {
    const { page } = browser;
    await page.locator(LAUNCH).waitFor();
    const terms = plain(await text(page, TERMS));
    assert.match(terms, /أوزان طبقات MTP/);
    assert.match(terms, /ذاكرة KV لطبقات MTP/);
    assert.match(await text(page, LAUNCH), /"method":"mtp","num_speculative_tokens":1/);
    await page.locator(TERMS).scrollIntoViewIfNeeded();
    await page.screenshot({ path: '/tmp/mtp/vllm-ar-390.png' });
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
