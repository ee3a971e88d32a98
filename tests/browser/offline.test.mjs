// The single file, opened from file:// with every network request blocked:
// it must compute, show the guide's worked example, and ask for nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, networkRequests, pageUrl, screenshot } from './harness.mjs';

test('single file works offline from file:// and shows 75 GB for 70B FP8 at 8k', async () => {
  const browser = await launch({ offline: true, reuse: true });
  try {
    const { page } = browser;
    await page.goto(`${pageUrl}?model=guide-70b&weights=fp8&context=8192&batch=1`);
    const total = page.locator('vram-calculator .total-value');
    await total.waitFor();
    assert.equal(await total.textContent(), '75 GB');
    await screenshot(page, 'calculator-offline');
    assert.deepEqual(networkRequests(browser.requests), []);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('typing a longer context changes the answer', async () => {
  const browser = await launch({ offline: true, reuse: true });
  try {
    const { page } = browser;
    await page.goto(pageUrl);
    const total = page.locator('vram-calculator .total-value');
    await total.waitFor();
    assert.equal(await total.textContent(), '75 GB'); // the default: the guide's worked example, 70B FP8 at 8k
    await page.locator('vram-calculator #context').fill('32768');
    await page.waitForFunction(
      () => document.querySelector('vram-calculator').shadowRoot.querySelector('.total-value').textContent === '83 GB',
    );
    await page.waitForFunction(() => location.search.includes('context=32768'));
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
