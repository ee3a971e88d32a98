// The model's own MTP layers as the drafter on the page (issue 42 part 2):
// offered only for a model that carries them, their weights and cache as
// terms with the core's figures, vLLM's method mtp in the command, the link.
// Likewise an EAGLE-3 head the catalog lists for the model (speculative
// eagle3): offered only for such a model, method eagle3 under vLLM and
// --speculative-algorithm EAGLE3 under SGLang.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, screenshot, text } from './harness.mjs';
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
    // A model with neither MTP layers nor an EAGLE-3 head is offered no drafter of its own.
    await page.goto(page.url().replace(/\?.*/, query({ ...BASE, model: 'qwen3-8b', weights: 'native', gpu_count: 1 })));
    await page.locator(LAUNCH).waitFor();
    assert.equal(await page.locator('vram-calculator [id="speculative"]').isVisible(), false);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('The MTP layers from a link, in Arabic at 390 px', async () => {
  const browser = await openPage(query({ ...BASE, speculative: 'mtp', draft_tokens: 1, lang: 'ar' }), { viewport: { width: 390, height: 844 } });
  try {
    const { page } = browser;
    await page.locator(LAUNCH).waitFor();
    const terms = plain(await text(page, TERMS));
    assert.match(terms, /أوزان طبقات MTP/);
    assert.match(terms, /ذاكرة KV لطبقات MTP/);
    assert.match(await text(page, LAUNCH), /"method":"mtp","num_speculative_tokens":1/);
    await page.locator(TERMS).scrollIntoViewIfNeeded();
    await screenshot(page, 'mtp-vllm-ar-390', { fullPage: false });
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test("Llama 3.1 8B's EAGLE-3 head chosen on the page: offered without MTP, terms, vLLM and SGLang commands, link", async () => {
  const EAGLE = { model: 'llama-3.1-8b', engine: 'vllm', gpu: 'h100-sxm' };
  const answer = (await core()).estimate({ ...EAGLE, speculative: 'eagle3' });
  const weights = answer.terms.find((t) => t.id === 'eagle_weights');
  const browser = await openPage(query(EAGLE));
  try {
    const { page } = browser;
    const choice = page.locator('vram-calculator [id="speculative"]');
    assert.equal(await choice.isVisible(), true);
    // The head is offered; the MTP layers this model lacks are not.
    const offered = await choice.locator('option:not([hidden])').evaluateAll((os) => os.map((o) => o.value));
    assert.deepEqual(offered, ['draft', 'eagle3']);
    await choice.selectOption('eagle3');
    await page.waitForFunction(() => location.search.includes('speculative=eagle3'));
    const terms = plain(await text(page, TERMS));
    // The core's figure, as the formula writes it (two decimals).
    assert.match(terms, new RegExp(`EAGLE-3 head's weights.*= ${weights.gb.toFixed(2)} GB; the embedding is the model's`));
    assert.match(terms, /EAGLE-3 head's KV cache/);
    assert.match(await text(page, LAUNCH), /--speculative-config '\{"method":"eagle3","model":"yuhuili\/EAGLE3-LLaMA3\.1-Instruct-8B","num_speculative_tokens":5\}'/);
    assert.equal(await page.locator('vram-calculator [id="draft_model"]').isVisible(), false);
    // Under SGLang: the head by its repository, as EAGLE3.
    await page.locator('vram-calculator [id="engine"]').selectOption('sglang');
    await page.waitForFunction(() => location.search.includes('engine=sglang'));
    assert.match(await text(page, LAUNCH), /--speculative-algorithm EAGLE3 --speculative-draft-model-path yuhuili\/EAGLE3-LLaMA3\.1-Instruct-8B --speculative-num-steps 5 --speculative-eagle-topk 1/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test("Qwen3-Next's MTP layer from a link under vLLM: the model's head, one attention cache layer", async () => {
  const NEXT = { model: 'qwen3-next-80b-a3b', weights: 'fp8', engine: 'vllm', gpu: 'h200-sxm', gpu_count: 2 };
  const answer = (await core()).estimate({ ...NEXT, speculative: 'mtp', draft_tokens: 2 });
  const weights = answer.terms.find((t) => t.id === 'mtp_weights');
  assert.equal(weights.formula.id, 'formula.mtp_weights');
  const browser = await openPage(query({ ...NEXT, speculative: 'mtp', draft_tokens: 2 }));
  try {
    const { page } = browser;
    await page.locator(LAUNCH).waitFor();
    assert.equal(await page.locator('vram-calculator [id="speculative"]').isVisible(), true);
    const terms = plain(await text(page, TERMS));
    assert.match(terms, new RegExp(`MTP layers' weights${weights.gb.toFixed(1)} GB`));
    assert.match(terms, /the embedding and output head are the model's/);
    assert.match(terms, /MTP layers' KV cache/);
    assert.match(await text(page, LAUNCH), /--speculative-config '\{"method":"mtp","num_speculative_tokens":2\}'/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
