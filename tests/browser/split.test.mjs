// A 3090 beside a 4090 on the page (issue 42 part 4): under llama.cpp the
// reader lists cards of different kinds, and the page shows the core's split
// (each card's layers and buffers, the --tensor-split, the most context),
// says whether it fits in the headline, carries the list in the link, and
// reads in Arabic and Persian at a phone's width.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, screenshot, text } from './harness.mjs';
import { core } from '../js/module.mjs';

const SPLIT = 'vram-calculator section.split';
const FIT = 'vram-calculator .fit';
const LAUNCH = 'vram-calculator section.launch';
const BASE = { model: 'llama-3.1-70b', weights: 'q4_k_m', engine: 'llamacpp', gpu: 'rtx-3090' };
const query = (q) => `?${new URLSearchParams(q)}`;

const answer = async (cards, extra = {}) => {
  const { gpu, ...rest } = BASE;
  return (await core()).estimate({ ...rest, ...extra, split_gpus: cards }).split;
};

test('Listing a 4090 beside the 3090 under llama.cpp: the core\'s split on the page, in the command and the link', async () => {
  const split = await answer(['rtx-3090', 'rtx-4090']);
  const browser = await openPage(query(BASE));
  try {
    const { page } = browser;
    assert.equal(await page.locator(SPLIT).count(), 0);
    // The card and its count give way to the list.
    await page.locator('vram-calculator .split-add').click();
    await page.locator('vram-calculator #split-1').selectOption('rtx-4090');
    await page.locator(SPLIT).waitFor();
    await page.waitForFunction(() => location.search.includes('split_gpus=rtx-3090%2Crtx-4090'));
    assert.equal(await page.locator('vram-calculator [id="gpu"]').isVisible(), false);
    assert.equal(await page.locator('vram-calculator [id="gpu_count"]').isVisible(), false);
    const block = await text(page, SPLIT);
    for (const c of split.cards) {
      const last = c.first_layer + c.layers - 1;
      assert.match(block, new RegExp(`CUDA${c.device} ${c.name}${c.first_layer}–${last} \\(${c.layers}\\)`));
      assert.match(block, new RegExp(`${c.total_gb.toFixed(2)} GB of ${c.capacity_gb.toFixed(2)} GB`));
    }
    assert.match(block, new RegExp(`--tensor-split ${split.tensor_split.join(',')}`));
    assert.match(block, new RegExp(`Most context over these cards${split.max_context.toLocaleString('en-US')} tokens`));
    assert.match(await text(page, FIT), new RegExp(`Fits over ${split.cards.map((c) => c.name).join(' \\+ ')}: up to ${split.max_context.toLocaleString('en-US')} tokens of context\\.`));
    assert.match(await text(page, LAUNCH), new RegExp(`--tensor-split ${split.tensor_split.join(',')}`));
    // The headline is what the cards hold together.
    const together = split.cards.reduce((sum, c) => sum + c.total_gb, 0);
    assert.equal(await text(page, 'vram-calculator .total-value'), `${Math.round(together)} GB`);
    // A link sent to a friend opens the same split.
    await page.reload();
    await page.locator(SPLIT).waitFor();
    assert.equal(await text(page, SPLIT), block);
    // Taking one out leaves one kind of card: the one left, and its count, again.
    await page.locator('vram-calculator .split-remove').first().click();
    await page.waitForFunction(() => !location.search.includes('split_gpus'));
    assert.equal(await page.locator(SPLIT).count(), 0);
    assert.equal(await page.locator('vram-calculator [id="gpu"]').inputValue(), 'rtx-4090');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('A split that is too small says so in the headline, and other engines do not offer it', async () => {
  const split = await answer(['rtx-3090', 'rtx-3090'], { context: 65536 });
  assert.equal(split.fits, false);
  const q = { ...BASE, context: 65536, split_gpus: 'rtx-3090,rtx-3090' };
  const browser = await openPage(query(q));
  try {
    const { page } = browser;
    await page.locator(SPLIT).waitFor();
    assert.match(await text(page, FIT), new RegExp(`Does not fit over RTX 3090 \\+ RTX 3090 at 65,536 tokens: ${split.max_context.toLocaleString('en-US')} tokens at most\\.`));
    assert.equal(await page.locator(SPLIT).getAttribute('data-fits'), 'false');
    // vLLM splits by tensor parallelism over equal cards: the list is not offered, nor sent.
    await page.locator('vram-calculator [id="engine"]').selectOption('vllm');
    await page.locator(SPLIT).waitFor({ state: 'detached' });
    assert.equal(await page.locator('vram-calculator fieldset.split-cards').isVisible(), false);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('A link with one card, an unknown card or five cards is a named problem, not a split', async () => {
  for (const cards of ['rtx-3090', 'rtx-3090,no-such-card', 'rtx-3090,rtx-3090,rtx-3090,rtx-3090,rtx-3090']) {
    const browser = await openPage(query({ ...BASE, split_gpus: cards }));
    try {
      const { page } = browser;
      assert.equal(await page.locator(SPLIT).count(), 0);
      const notices = (await page.locator('vram-calculator .notices p').allTextContents()).join('\n');
      assert.match(notices, cards.includes('no-such') ? /split_gpus.*no-such-card/ : /split_gpus.*from 2 to 4 cards/);
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  }
});

test('The split in Arabic and Persian at 390 px: words in the reader\'s order, figures in the reader\'s digits', async () => {
  for (const [lang, digit] of [['ar', '1'], ['fa', '۱']]) {
    const browser = await openPage(query({ ...BASE, split_gpus: 'rtx-3090,rtx-4090', lang }), { viewport: { width: 390, height: 844 } });
    try {
      const { page } = browser;
      await page.locator(SPLIT).waitFor();
      const block = await text(page, SPLIT);
      assert.match(block, lang === 'ar' ? /وطبقة الإخراج/ : /و لایهٔ خروجی/);
      assert.ok(block.includes(digit));
      await page.locator(SPLIT).scrollIntoViewIfNeeded();
      await screenshot(page, `split-${lang}-390`, { fullPage: false });
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  }
});
