// axe-core over every view of the page and over the embed modes: zero
// violations (WCAG 2.1 A and AA rules), the shadow root included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { openPage } from './harness.mjs';
import { VIEWS } from '../../web/src/state.js';

// Evaluated through the DevTools protocol, not a <script>: the page's
// Content-Security-Policy allows no script it does not know.
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

async function violations(page) {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const result = await window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' > ')).slice(0, 3).join(', ')}`);
  });
}

for (const view of VIEWS) {
  test(`axe finds no violation in the ${view} view`, async () => {
    const browser = await openPage(`?view=${view}`);
    try {
      const { page } = browser;
      await page.locator('vram-calculator [role=tabpanel]:not([hidden]) > .view > *').first().waitFor();
      assert.deepEqual(await violations(page), []);
    } finally {
      await browser.close();
    }
  });
}

test('axe finds no violation with the model list open, a field error, and on a phone', async () => {
  const browser = await openPage('', { viewport: { width: 390, height: 844 } });
  try {
    const { page } = browser;
    await page.locator('vram-calculator #model').fill('llama');
    await page.locator('vram-calculator #context').fill('32kk');
    await page.locator('vram-calculator #context').press('Enter');
    await page.locator('vram-calculator #context-error').waitFor();
    await page.locator('vram-calculator #model').focus();
    await page.locator('vram-calculator #model').press('ArrowDown');
    assert.deepEqual(await violations(page), []);
  } finally {
    await browser.close();
  }
});

test('axe finds no violation in the split over unequal cards and the LoRA slots, in Persian on a phone', async () => {
  for (const query of ['?model=llama-3.1-70b&weights=q4_k_m&engine=llamacpp&split_gpus=rtx-3090,rtx-4090&lang=fa',
    '?model=llama-3.1-8b&engine=vllm&gpu=h100-sxm&opt.max_loras=8&lang=ar']) {
    const browser = await openPage(query, { viewport: { width: 390, height: 844 } });
    try {
      const { page } = browser;
      await page.locator('vram-calculator section.launch').waitFor();
      await page.locator('vram-calculator .options > details').evaluate((el) => { el.open = true; });
      assert.deepEqual(await violations(page), [], query);
    } finally {
      await browser.close();
    }
  }
});
