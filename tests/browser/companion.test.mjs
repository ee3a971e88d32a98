// A second model on the same card on the page (issue 42 part 2): an
// embedding model chosen beside the LLM, its term with the core's figure,
// the second command with its own share, and the link that carries it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, text } from './harness.mjs';
import { core } from '../js/module.mjs';

const TERMS = 'vram-calculator table.terms';
const LAUNCH = 'vram-calculator section.launch';
const COMPANION = 'vram-calculator .launch-companion';
const BASE = { model: 'llama-3.1-8b', weights: 'bf16', engine: 'vllm', gpu: 'h100-sxm' };
const query = (q) => `?${new URLSearchParams(q)}`;
const plain = (s) => s.replace(/[\u2066-\u2069]/g, '');

test('Qwen3 Embedding 0.6B chosen beside Llama 3.1 8B under vLLM: its term, both shares, the link', async () => {
  const answer = (await core()).estimate({ ...BASE, companion_model: 'qwen3-embedding-0.6b', companion_context: 1024 });
  const term = answer.terms.find((t) => t.id === 'companion');
  const answerModels = (await core()).presets().models;
  const browser = await openPage(query(BASE));
  try {
    const { page } = browser;
    await page.locator(LAUNCH).waitFor();
    const context = page.locator('vram-calculator #companion_context');
    assert.equal(await context.isHidden(), true, 'its tokens show once a companion is chosen');
    // The catalog's embedding and reranker models come first, in their own group.
    const groups = await page.locator('vram-calculator #companion_model optgroup').evaluateAll((els) => els.map((g) => [g.label, [...g.children].map((o) => o.value)]));
    assert.equal(groups[0][0], 'Embedding and reranker models');
    assert.deepEqual(groups[0][1], answerModels.filter((m) => m.task !== 'generate').map((m) => m.id));
    assert.ok(groups[0][1].includes('qwen3-reranker-0.6b'));
    assert.equal(groups[1][0], 'Other models');
    assert.ok(groups[1][1].includes('llama-3.1-8b') && !groups[1][1].includes('qwen3-embedding-0.6b'));
    await page.locator('vram-calculator #companion_model').selectOption('qwen3-embedding-0.6b');
    await context.waitFor();
    await context.fill('1024');
    await context.press('Tab');
    await page.locator(COMPANION).waitFor();
    await page.waitForFunction(() => /--max-model-len 1024/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('.launch-companion')?.textContent || ''));
    assert.match(plain(await text(page, TERMS)), new RegExp(`Companion model \\(its own server\\)${term.gb.toFixed(1)} GB`));
    const second = await text(page, COMPANION);
    assert.match(second, /vllm serve Qwen\/Qwen3-Embedding-0\.6B/);
    assert.match(second, /--port 8001/);
    const share = answer.launch.companion.args.find((a) => a.flag === '--gpu-memory-utilization').value;
    assert.match(second, new RegExp(`--gpu-memory-utilization ${share}`));
    assert.match(plain(await text(page, 'vram-calculator .warnings')), /Two vLLM servers share the card/);
    assert.match(page.url(), /companion_model=qwen3-embedding-0\.6b/);
    assert.match(page.url(), /companion_context=1024/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('The companion under llama.cpp in Arabic, from a link', async () => {
  const browser = await openPage(query({ ...BASE, weights: 'q4_k_m', engine: 'llamacpp', gpu: 'rtx-4090', companion_model: 'qwen3-embedding-0.6b', lang: 'ar' }), { viewport: { width: 390, height: 844 } });
  try {
    const { page } = browser;
    await page.locator(COMPANION).waitFor();
    assert.match(plain(await text(page, TERMS)), /النموذج المرافق/);
    assert.match(await text(page, COMPANION), /llama-server -m COMPANION\.gguf .*--embedding --port 8081/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
