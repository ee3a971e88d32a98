// Accessibility checks that can fail: text contrast (WCAG AA) in every view,
// a visible focus ring under keyboard use, and a name on every control.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage } from './harness.mjs';

/** In the page: every text node's contrast against its painted background. */
function lowContrast() {
  const parse = (c) => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    for (let node = el; node; node = node.parentElement || node.getRootNode().host) {
      const c = parse(getComputedStyle(node).backgroundColor);
      if (c.length === 3 || c[3] > 0.5) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const root = document.querySelector('vram-calculator').shadowRoot;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const bad = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || !el || el.closest('style') || !el.getClientRects().length) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || el.closest('.visually-hidden')) continue;
    const [a, b] = [lum(parse(style.color)), lum(background(el))];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const large = parseFloat(style.fontSize) >= 24 || (parseFloat(style.fontSize) >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) bad.push(`${node.textContent.trim().slice(0, 30)}: ${ratio.toFixed(2)}`);
  }
  return bad;
}

test('text meets WCAG AA contrast in every view and in the error and notice states', async () => {
  const browser = await openPage('?model=guide-13b&weights=fp8&gpu=l4&foo=1');
  try {
    const { page } = browser;
    for (const view of ['calculator', 'grid', 'devices', 'fleet']) {
      await page.locator(`vram-calculator #tab-${view}`).click();
      await page.locator('vram-calculator [role=tabpanel]:not([hidden]) table').first().waitFor();
      assert.deepEqual(await page.evaluate(lowContrast), [], view);
    }
    await page.locator('vram-calculator #tab-calculator').click();
    await page.locator('vram-calculator #context').fill('');
    await page.locator('vram-calculator #context').press('Enter');
    await page.locator('vram-calculator #context-error').waitFor();
    await page.locator('vram-calculator #config-file').setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{') });
    await page.locator('vram-calculator #config-error').waitFor();
    assert.deepEqual(await page.evaluate(lowContrast), [], 'errors');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('keyboard focus is visible and every control has a name', async () => {
  const browser = await openPage();
  try {
    const { page } = browser;
    await page.locator('vram-calculator #model').focus();
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      const ring = await page.evaluate(() => {
        const el = document.querySelector('vram-calculator').shadowRoot.activeElement;
        const style = getComputedStyle(el);
        return { id: el.id || el.tagName, outline: style.outlineStyle, width: parseFloat(style.outlineWidth) };
      });
      assert.ok(ring.outline !== 'none' && ring.width >= 2, `${ring.id} has no focus ring`);
    }
    const unnamed = await page.evaluate(() => [...document.querySelector('vram-calculator').shadowRoot.querySelectorAll('input, select, textarea, button, [role=region], [role=tabpanel]')]
      .filter((el) => !el.labels?.length && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby') && !el.textContent.trim())
      .map((el) => el.id || el.outerHTML.slice(0, 60)));
    assert.deepEqual(unnamed, []);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
