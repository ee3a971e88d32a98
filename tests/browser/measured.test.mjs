// The measured error beside the total (issue 14): every answer shows the
// range the validation set measures for answers of its kind, from the
// core's result.measured_error (data/accuracy.json), in the page's
// language and digits, beside the total and in the answer strip, and it
// follows the mode (inference against fine-tuning, what the device holds).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openPage, root } from './harness.mjs';

const accuracy = JSON.parse(readFileSync(join(root, 'data/accuracy.json'), 'utf8')).categories;
const ISOLATES = /[\u2066-\u2069]/g;

/** The measured line beside the total, and the strip's, with their categories. */
async function shown(page) {
  return page.evaluate(() => {
    const root = document.querySelector('vram-calculator').shadowRoot;
    const line = root.querySelector('.results details.measured');
    const strip = root.querySelector('.answer-bar .answer-measured');
    return {
      category: line?.dataset.category, summary: line?.querySelector('summary').textContent,
      stripCategory: strip?.dataset.category, strip: strip?.textContent,
    };
  });
}

/** "−8%" or "+6.9%" as the locale writes it (the page's pct style: at most 2 decimals). */
function signed(value, locale, percent) {
  const n = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 }).format(Math.abs(value));
  return `${value < 0 ? '\u2212' : '+'}${n}${percent}`;
}

test('the total shows its measured range, which follows the mode; the details say what it means', async () => {
  const browser = await openPage('?model=llama-3.1-8b&gpu=h100-sxm&lang=en', { viewport: { width: 390, height: 800 } });
  try {
    const { page } = browser;
    for (const [mode, category] of [['inference', 'inference'], ['qlora', 'finetune-device'], ['inference', 'inference']]) {
      await page.locator('vram-calculator #mode').selectOption(mode);
      await page.waitForFunction((c) => document.querySelector('vram-calculator').shadowRoot.querySelector('.results details.measured')?.dataset.category === c, category);
      const s = await shown(page);
      const want = accuracy[category];
      assert.equal(s.category, category);
      assert.equal(s.stripCategory, category);
      const range = `${signed(want.low_pct, 'en', '%')} to ${signed(want.high_pct, 'en', '%')}`;
      assert.equal(s.summary.replace(ISOLATES, ''), `Measured cases like this: ${range}, ${want.cases} cases`);
      assert.equal(s.strip.replace(ISOLATES, ''), `measured: ${range}`);
    }
    // On a phone the strip with the range stays within the first screen.
    const box = await page.locator('vram-calculator .answer-bar .answer-measured').boundingBox();
    assert.ok(box && box.y + box.height <= 800 && box.x >= 0 && box.x + box.width <= 390, JSON.stringify(box));
    await page.locator('vram-calculator details.measured summary').click();
    const what = await page.locator('vram-calculator details.measured p').textContent();
    assert.match(what, /\(predicted − measured\) \/ measured/);
    assert.ok(what.endsWith(`Median absolute error: ${new Intl.NumberFormat('en', { maximumFractionDigits: 2 }).format(accuracy.inference.median_abs_pct)}%.`), what);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('in Persian the range is in Persian digits with the Persian percent sign', async () => {
  const browser = await openPage('?model=llama-3.1-8b&gpu=h100-sxm&lang=fa&mode=full');
  try {
    const { page } = browser;
    await page.waitForFunction(() => document.querySelector('vram-calculator').shadowRoot.querySelector('.results details.measured'));
    const s = await shown(page);
    const want = accuracy['finetune-device'];
    assert.equal(s.category, 'finetune-device');
    const summary = s.summary.replace(ISOLATES, '');
    for (const value of [want.low_pct, want.high_pct]) assert.ok(summary.includes(signed(value, 'fa', '\u066A')), `${summary} lacks ${value}`);
    assert.ok(summary.includes(new Intl.NumberFormat('fa').format(want.cases)), summary);
    assert.doesNotMatch(summary, /[0-9]/, 'Latin digits in Persian');
    assert.doesNotMatch(s.strip.replace(ISOLATES, ''), /[0-9]/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
