// The serving plan on the page (issue 11): gpu_count cards serve one model
// under the engine; the headline, the fit and the spare are counted over
// the same cards, and no speed is shown for a setup that does not fit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, screenshot, text } from './harness.mjs';
import { core } from '../js/module.mjs';

const TOTAL = 'vram-calculator .total-value';
const FIT = 'vram-calculator .fit';
const SERVING = 'vram-calculator section.serving';
const CASE = '?model=llama-3.1-70b&weights=fp8&context=32768&batch=20&engine=vllm&gpu=h200-sxm';

test('70B FP8 at 32k x 20 users on 4x H200 under vLLM: tensor parallel 4, it fits, spare counted over the four', async () => {
  const browser = await openPage(`${CASE}&gpu_count=4`);
  try {
    const { page } = browser;
    await page.locator(SERVING).waitFor();
    assert.equal(await page.locator(FIT).getAttribute('data-fits'), 'true');
    const fit = await text(page, FIT);
    assert.match(fit, /4× H200 SXM/);
    assert.doesNotMatch(fit, /-\d|short/);
    // Headline over the four cards (about 305 GB), each card a quarter: as the core says.
    const answer = (await core()).estimate({ model: 'llama-3.1-70b', weights: 'fp8', context: 32768, batch: 20, engine: 'vllm', gpu: 'h200-sxm', gpu_count: 4 });
    const { per_gpu_gb: perGpu, total_gb: total } = answer.serving;
    assert.ok(perGpu > 70 && perGpu < 80 && Math.abs(total - 4 * perGpu) < 1e-6, `${perGpu} per GPU, ${total} over all`);
    assert.equal(await text(page, TOTAL), `${Math.round(total)} GB`);
    assert.match(await text(page, 'vram-calculator .total-per-gpu'), new RegExp(`${Math.round(perGpu)} GB on each of 4 GPUs`));
    const serving = await text(page, SERVING);
    assert.match(serving, /tensor parallel 4/);
    assert.ok(answer.serving.max_users >= 20, `the core sustains ${answer.serving.max_users} users`);
    assert.match(serving, new RegExp(`${answer.serving.max_users} \\(requested 20: they fit\\)`));
    assert.equal(await page.locator(SERVING).getAttribute('data-fits'), 'true');
    assert.ok(await page.locator('vram-calculator h3', { hasText: 'Decode' }).count() > 0);
    await screenshot(page, 'serving-4x-h200');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('the same load on one H200: does not fit, four needed, and no decode speed', async () => {
  const browser = await openPage(`${CASE}&gpu_count=1`);
  try {
    const { page } = browser;
    await page.locator(SERVING).waitFor();
    assert.equal(await page.locator(FIT).getAttribute('data-fits'), 'false');
    assert.equal(await page.locator(SERVING).getAttribute('data-fits'), 'false');
    const serving = await text(page, SERVING);
    assert.match(serving, /they do not fit/);
    assert.match(serving, /Fewest of this card that hold it\s*4/);
    assert.equal(await page.locator('vram-calculator h3', { hasText: 'Decode' }).count(), 0);
    assert.match(await text(page, 'vram-calculator .warnings'), /4x H200 SXM is the fewest that does/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('DeepSeek V3 on one H200 shows no decode speed', async () => {
  const browser = await openPage('?model=deepseek-v3&engine=vllm&gpu=h200-sxm&gpu_count=1');
  try {
    const { page } = browser;
    await page.locator(SERVING).waitFor();
    assert.equal(await page.locator(FIT).getAttribute('data-fits'), 'false');
    assert.equal(await page.locator('vram-calculator h3', { hasText: 'Decode' }).count(), 0);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
