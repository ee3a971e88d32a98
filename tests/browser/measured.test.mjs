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
  // Under vLLM, whose every term the set has measured (the guide's overhead widens the band: the last test).
  const browser = await openPage('?model=llama-3.1-8b&gpu=h100-sxm&engine=vllm&lang=en', { viewport: { width: 390, height: 800 } });
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

test('terms no measured case checked widen the range by their share, and the details say which (Arabic, phone)', async () => {
  const { core } = await import('../js/module.mjs');
  const request = { model: 'gemma-3-27b', weights: 'bf16', images: 2, engine: 'vllm', gpu: 'h100-sxm' };
  const answer = (await core()).estimate(request);
  const m = answer.measured_error;
  // The core's side: the terms outside, their share, the wider range.
  assert.ok(m.outside && m.outside.terms.includes('vision_peak'), JSON.stringify(m.outside));
  const outside = answer.terms.filter((t) => m.outside.terms.includes(t.id)).reduce((sum, t) => sum + t.gb, 0);
  assert.ok(Math.abs(m.outside.share_pct - (outside / answer.total_gb) * 100) < 1e-9);
  assert.ok(Math.abs(m.low_pct - (accuracy.inference.low_pct - m.outside.share_pct)) < 1e-9);
  assert.ok(Math.abs(m.high_pct - (accuracy.inference.high_pct + m.outside.share_pct)) < 1e-9);
  const browser = await openPage(`?${new URLSearchParams({ ...request, lang: 'ar' })}`, { viewport: { width: 390, height: 844 } });
  try {
    const { page } = browser;
    await page.waitForFunction(() => document.querySelector('vram-calculator').shadowRoot.querySelector('.results details.measured[data-outside="true"]'));
    const s = await shown(page);
    const summary = s.summary.replace(ISOLATES, '');
    // The wider range, as the page rounds it (at most 2 decimals), in the strip and the summary.
    for (const value of [m.low_pct, m.high_pct]) {
      assert.ok(summary.includes(signed(value, 'en', '%')), `${summary} lacks ${value}`);
      assert.ok(s.strip.replace(ISOLATES, '').includes(signed(value, 'en', '%')), `${s.strip} lacks ${value}`);
    }
    await page.locator('vram-calculator details.measured summary').click();
    const why = await page.locator('vram-calculator details.measured p.measured-outside').textContent();
    const label = answer.terms.find((t) => t.id === 'vision_peak').label.id;
    const ar = JSON.parse(readFileSync(join(root, 'data/messages/ar.json'), 'utf8'));
    assert.ok(why.includes(ar[label]), `${why} lacks ${ar[label]}`);
    assert.match(why, /[\u0600-\u06FF]/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
