// A model with its drafter on the page (issue 42 part 2): a draft model of
// the catalog chosen under the engine, its weights and cache as terms with
// the core's figures, the flags that load it in the command, and the link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, screenshot, text } from './harness.mjs';
import { core } from '../js/module.mjs';

const TERMS = 'vram-calculator table.terms';
const LAUNCH = 'vram-calculator section.launch';
const BASE = { model: 'llama-3.1-70b', weights: 'fp8', engine: 'vllm', gpu: 'h100-sxm' };
const query = (q) => `?${new URLSearchParams(q)}`;
const plain = (s) => s.replace(/[\u2066-\u2069]/g, '');

test('Llama 3.2 1B as the draft of Llama 3.1 70B under vLLM, chosen on the page: terms, command and link', async () => {
  const answer = (await core()).estimate({ ...BASE, draft_model: 'llama-3.2-1b' });
  const weights = answer.terms.find((t) => t.id === 'draft_weights');
  const cache = answer.terms.find((t) => t.id === 'draft_kv');
  const browser = await openPage(query(BASE));
  try {
    const { page } = browser;
    assert.doesNotMatch(await text(page, TERMS), /Draft model/);
    await page.locator('vram-calculator [id="draft_model"]').selectOption('llama-3.2-1b');
    await page.waitForFunction(() => location.search.includes('draft_model=llama-3.2-1b'));
    const terms = plain(await text(page, TERMS));
    assert.match(terms, new RegExp(`Draft model weights${weights.gb.toFixed(1)} GB`));
    assert.match(terms, new RegExp(`Draft model KV cache${cache.gb.toFixed(1)} GB`));
    assert.match(await text(page, LAUNCH), /--speculative-config '\{"model":"meta-llama\/Llama-3\.2-1B","num_speculative_tokens":5\}'/);
    // The tokens drafted a step show with a draft, and go into the command.
    const tokens = page.locator('vram-calculator [id="draft_tokens"]');
    await tokens.fill('3');
    await tokens.press('Enter');
    await page.waitForFunction(() => location.search.includes('draft_tokens=3'));
    assert.match(await text(page, LAUNCH), /"num_speculative_tokens":3/);
    await page.reload();
    await page.locator(LAUNCH).waitFor();
    assert.match(await text(page, LAUNCH), /"num_speculative_tokens":3/);
    assert.equal(await page.locator('vram-calculator [id="draft_model"]').inputValue(), 'llama-3.2-1b');
    // None again: no draft term, no flag, nothing in the link.
    await page.locator('vram-calculator [id="draft_model"]').selectOption('');
    await page.waitForFunction(() => !location.search.includes('draft_model'));
    assert.doesNotMatch(await text(page, LAUNCH), /speculative/);
    assert.equal(await page.locator('vram-calculator [id="draft_tokens"]').isVisible(), false);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('Llama 3.2 1B as the draft of Llama 3.1 70B under vLLM, from a link: terms and command', async () => {
  const answer = (await core()).estimate({ ...BASE, draft_model: 'llama-3.2-1b', draft_tokens: 3 });
  const weights = answer.terms.find((t) => t.id === 'draft_weights');
  const browser = await openPage(query({ ...BASE, draft_model: 'llama-3.2-1b', draft_tokens: 3 }));
  try {
    const { page } = browser;
    await page.locator(LAUNCH).waitFor();
    assert.match(plain(await text(page, TERMS)), new RegExp(`Draft model weights${weights.gb.toFixed(1)} GB`));
    assert.match(await text(page, LAUNCH), /--speculative-config '\{"model":"meta-llama\/Llama-3\.2-1B","num_speculative_tokens":3\}'/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('The draft under llama.cpp in Persian at 390 px, and a draft of another tokenizer warned', async () => {
  const browser = await openPage(query({ ...BASE, weights: 'q4_k_m', engine: 'llamacpp', gpu: 'rtx-4090', draft_model: 'qwen3-4b', lang: 'fa' }), { viewport: { width: 390, height: 844 } });
  try {
    const { page } = browser;
    await page.locator(LAUNCH).waitFor();
    assert.match(plain(await text(page, TERMS)), /وزن‌های مدل پیش‌نویس/);
    assert.match(await text(page, LAUNCH), /-md DRAFT\.gguf -ngld 99 --draft-max 5/);
    assert.match(plain(await text(page, 'vram-calculator .warnings')), /توکن‌ساز یکسان/);
    await page.locator(TERMS).scrollIntoViewIfNeeded();
    await screenshot(page, 'draft-llamacpp-fa-390', { fullPage: false });
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
