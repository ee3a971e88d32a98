// Right to left, a sentence that starts with a number and a Latin unit
// ("76 GB على كل واحدة من 4 وحدات GPU") reads in the language's order
// (issue 41): the number, written first, lands to the right of the Arabic
// or Persian word that follows it, as a reader of either language reads
// it. Measured where the words land on screen (Range.getClientRects) at a
// phone's width, over every visible text of the views the issue names:
// the multi-GPU line under the total, the Persian device-count table, the
// host-RAM line under partial offload, the decode ceilings, the grid's
// cells marked tight. docs/i18n.md, "Right to left".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, screenshot } from './harness.mjs';

/**
 * In the page: every visible text node of the calculator in which a number
 * comes before the language's first word, on the same line, and where each
 * lands: { checked, wrong: [{ text, number, word }] }. Right to left the
 * number's box must be right of the word's. Code (dir=ltr) and citations
 * (lang=en) are left to right by design and not measured.
 */
function measure() {
  const root = document.querySelector('vram-calculator').shadowRoot;
  for (const details of root.querySelectorAll('details')) details.open = true;
  const WORD = /(?:(?=\p{L})\p{Script=Arabic})+/u;
  const NUMBER = /[0-9\u0660-\u0669\u06f0-\u06f9]+(?:[.,\u066b\u066c][0-9\u0660-\u0669\u06f0-\u06f9]+)*/u;
  const box = (node, at, length) => {
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + length);
    return range.getClientRects()[0];
  };
  const wrong = [];
  const seen = new Set();
  let checked = 0;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    const text = node.textContent;
    if (!el || el.closest('style, option, textarea, code, pre, [dir=ltr], [lang=en]') || !el.getClientRects().length) continue;
    const word = WORD.exec(text);
    const number = NUMBER.exec(text);
    // A number in a Latin name (H100, FP8, Q4_K_M) is the name's, not the sentence's.
    if (!word || !number || number.index > word.index || /[A-Za-z_]/.test(text[number.index - 1] || '')) continue;
    const a = box(node, number.index, number[0].length);
    const b = box(node, word.index, word[0].length);
    if (!a || !b || Math.abs(a.top - b.top) > 4) continue;
    checked += 1;
    if (a.left < b.left && !seen.has(text)) {
      seen.add(text);
      wrong.push({ text: text.replace(/[\u2066-\u2069]/g, ''), number: number[0], word: word[0] });
    }
  }
  return { checked, wrong };
}

const VIEWS = [
  // The multi-GPU line under the total, the serving plan's facts, the decode ceilings.
  ['ar', 'serving', '?model=llama-3.1-70b&weights=fp8&context=32768&batch=20&engine=vllm&gpu=h200-sxm&gpu_count=4'],
  ['fa', 'serving', '?model=llama-3.1-70b&weights=fp8&context=32768&batch=20&engine=vllm&gpu=h200-sxm&gpu_count=4'],
  // Partial offload: the host-RAM line.
  ['ar', 'offload', '?model=llama-3.1-70b&weights=q4_k_m&context=8192&engine=llamacpp&gpu=rtx-4090'],
  ['fa', 'offload', '?model=llama-3.1-70b&weights=q4_k_m&context=8192&engine=llamacpp&gpu=rtx-4090'],
  // The device-count table.
  ['fa', 'devices', '?view=devices&model=llama-3.1-70b'],
  ['ar', 'devices', '?view=devices&model=llama-3.1-70b'],
  // The grid: cells marked tight or by quote.
  ['ar', 'grid', '?view=grid&model=guide-70b'],
  ['fa', 'grid', '?view=grid&model=guide-70b'],
];

for (const [lang, name, query] of VIEWS) {
  test(`${name} in ${lang} at 390 px: a number written first lands right of the words after it`, async () => {
    const browser = await openPage(`${query}&lang=${lang}`, { viewport: { width: 390, height: 844 } });
    try {
      const { page } = browser;
      await page.locator('vram-calculator [role=tabpanel]:not([hidden]) table, vram-calculator .total-value').first().waitFor();
      const { checked, wrong } = await page.evaluate(measure);
      await screenshot(page, `bidi-${name}-${lang}-390`);
      assert.ok(checked >= 3, `only ${checked} sentences that start with a number were measured`);
      assert.deepEqual(wrong, [], `${wrong.length} of ${checked} laid out left to right`);
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  });
}

// The multi-GPU line by name, as the issue quotes it: the figure right of "على", the count right of "وحدات".
test('the multi-GPU line under the total reads right to left in Arabic', async () => {
  const browser = await openPage(`${VIEWS[0][2]}&lang=ar`, { viewport: { width: 390, height: 844 } });
  try {
    const where = await browser.page.evaluate(() => {
      const el = document.querySelector('vram-calculator').shadowRoot.querySelector('.total-per-gpu bdi');
      const node = el.firstChild;
      const at = (part) => {
        const range = document.createRange();
        const i = node.textContent.indexOf(part);
        range.setStart(node, i);
        range.setEnd(node, i + part.length);
        return range.getClientRects()[0].left;
      };
      return { direction: getComputedStyle(el).direction, gb: at('GB'), on: at('على'), units: at('وحدات'), gpu: at('GPU') };
    });
    assert.equal(where.direction, 'rtl');
    assert.ok(where.gb > where.on, JSON.stringify(where));
    assert.ok(where.on > where.units && where.units > where.gpu, JSON.stringify(where));
  } finally {
    await browser.close();
  }
});
