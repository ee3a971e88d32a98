// The "Users and cost" view (issue 42): the core's concurrency curve for the
// calculator's plan, drawn and tabled, the knee and its cost, in each
// language; without a card it asks for one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, screenshot } from './harness.mjs';

const PANEL = 'vram-calculator #panel-curve';
const PLAN = 'model=llama-3.1-70b&weights=fp8&engine=vllm&gpu=h100-sxm&gpu_count=2&min_tokens_per_s=30';

test('the curve of 70B FP8 on 2× H100 SXM: the chart, one row per point, the knee and its cost', async () => {
  const browser = await openPage(`?view=curve&${PLAN}`);
  try {
    const { page } = browser;
    await page.locator(`${PANEL} svg.curve-chart`).waitFor();
    const rows = await page.locator(`${PANEL} table.curve-rows tbody tr`).count();
    assert.ok(rows >= 4, `${rows} rows`);
    // The line has a vertex per row; the band twice as many.
    const line = await page.locator(`${PANEL} svg polyline`).getAttribute('points');
    assert.equal(line.trim().split(' ').length, rows);
    assert.equal(await page.locator(`${PANEL} svg circle.knee`).count(), 1);
    assert.match(await page.locator(`${PANEL} .curve-knee`).textContent(), /At the floor of 30 tok\/s per user: \d+ users/);
    assert.match(await page.locator(`${PANEL} .curve-cost`).textContent(), /\$\d+\.\d\d per million output tokens, \$\d+\.\d\d per million input tokens/);
    // The chart says what it shows to a screen reader.
    assert.match(await page.locator(`${PANEL} svg`).getAttribute('aria-label'), /At the floor/);
    await screenshot(page, 'curve-en');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('in Persian on a phone: Persian digits on the chart and in the table; under fine-tuning, a notice', async () => {
  const browser = await openPage(`?lang=fa&view=curve&${PLAN}`, { viewport: { width: 390, height: 844 } });
  try {
    const { page } = browser;
    await page.locator(`${PANEL} svg.curve-chart`).waitFor({ state: 'attached' });
    const ticks = await page.locator(`${PANEL} svg text`).allTextContents();
    assert.ok(ticks.every((tick) => !/[0-9]/.test(tick)), ticks.join(' '));
    assert.match(await page.locator(`${PANEL} .curve-knee`).textContent(), /کاربر/);
    await screenshot(page, 'curve-fa-phone');
  } finally {
    await browser.close();
  }
  const bare = await openPage('?view=curve&model=llama-3.1-8b&mode=lora');
  try {
    await bare.page.locator(`${PANEL} .notice`).waitFor({ state: 'attached' });
    assert.match(await bare.page.locator(`${PANEL} .notice`).textContent(), /for serving a model/);
  } finally {
    await bare.close();
  }
});
