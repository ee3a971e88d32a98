// The page in Arabic and Persian: every view in both languages speaks them
// (no visible Latin word outside the glossary of product, unit, model and
// format names), Persian shows Persian digits, fragments keep their own
// direction right to left, tables and the bar mirror; the language comes
// from the URL, the attribute or the host, switches in place, and travels
// with a link. With VRAM_SCREENSHOTS=1 (`npm run screenshots`), screenshots
// of every view in both languages at 1366 and 390 px land in
// test-results/screenshots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, openPage, pageUrl, root, screenshot, text, waitForText } from './harness.mjs';
import { foreign } from '../js/latin.mjs';
import { loadJson } from '../js/module.mjs';

const PANEL = 'vram-calculator [role=tabpanel]:not([hidden])';
// An engine's note names the figure it explains by its key in data/engines.json
// (activation, compute_buffer), as the CLI's language test allows.
const NOTE_KEYS = loadJson('data/engines.json').engines.flatMap((e) => Object.keys(e.option_sources || {}));

// What counts as stray English (tests/js/latin.mjs, shared with the CLI's
// test): Latin outside tests/latin-glossary.json and the data's names.
// Citations (a source quoted as written, `quote.text` in an answer) sit in
// a `lang="en"` element and are not the page's words (docs/i18n.md).
const CITATION = '[lang=en]';

/** In the page: what a reader sees: visible text, the selected options, the inputs' values. */
function visibleText(skip) {
  const root = document.querySelector('vram-calculator').shadowRoot;
  const out = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || !el || el.closest('style, option, textarea') || (skip && el.closest(skip))) continue;
    if (!el.getClientRects().length || getComputedStyle(el).visibility === 'hidden') continue;
    out.push(node.textContent);
  }
  for (const el of root.querySelectorAll('select, input:not([type=checkbox]):not([type=file]):not([hidden])')) {
    if (!el.getClientRects().length || (skip && el.closest(skip))) continue;
    out.push(el.tagName === 'SELECT' ? el.selectedOptions[0]?.textContent || '' : el.value);
  }
  return out;
}

const VIEWS = {
  inference: '?model=guide-70b&weights=fp8&gpu=h100-pcie',
  full: '?model=guide-7b&mode=full&gpu=mi300x',
  lora: '?model=llama-3.1-8b&mode=lora&gpu=rtx-4090',
  qlora: '?model=guide-70b&mode=qlora&gpu=a100-sxm',
  grid: '?view=grid&model=guide-70b',
  devices: '?view=devices&model=beam',
  fleet: '?view=fleet&model=guide-70b&weights=fp8',
  error: '?model=config&config=%7B%22model_type%22%3A%22llama%22%7D&context=0',
  // transformers' terms: the prefill's activations, the sliding-window mask, the workspaces.
  transformers: '?model=gemma-3-1b&context=32768&engine=transformers&gpu=h200-sxm',
  // The serving plan, its launch command and the measured error beside the total.
  serving: '?model=llama-3.1-70b&weights=fp8&context=32768&batch=20&engine=vllm&gpu=h200-sxm&gpu_count=4',
  models: '?view=models&gpu=h100-sxm',
};

/** In the page: the x of the first occurrence of `needle` inside `selector`'s text. */
function xOf([selector, needle]) {
  const el = document.querySelector('vram-calculator').shadowRoot.querySelector(selector);
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.data.indexOf(needle);
    if (at < 0) continue;
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + needle.length);
    return range.getBoundingClientRect().x;
  }
  return null;
}

for (const lang of ['ar', 'fa']) {
  test(`${lang}: every view in ${lang}, right to left, with no stray English, at 1366 and 390 px`, async () => {
    // One tab: each view opened once at desk width, read, then narrowed to a
    // phone's width and read again (the layout is the stylesheet's, so a
    // narrowed page is laid out as one opened narrow).
    const browser = await launch({ offline: true, reuse: true, viewport: { width: 1366, height: 900 } });
    try {
      const { page } = browser;
      for (const [view, query] of Object.entries(VIEWS)) {
        await page.setViewportSize({ width: 1366, height: 900 });
        await page.goto(`${pageUrl}${query}&lang=${lang}`);
        await page.locator(`${PANEL} table, ${PANEL} .error`).first().waitFor();
        for (const width of [1366, 390]) {
          if (width !== 1366) await page.setViewportSize({ width, height: 900 });
          const where = `${lang} ${view} at ${width} px`;
          assert.equal(await page.evaluate(() => document.querySelector('vram-calculator').shadowRoot.querySelector('.frame').dir), 'rtl', where);
          // Open the answer's disclosures (assumptions, the other cards, every
          // format, each formula's inputs) so their words are read too; their
          // content is built on the toggle.
          const inputs = await page.evaluate(async (panel) => {
            const shadow = document.querySelector('vram-calculator').shadowRoot;
            for (const d of shadow.querySelectorAll(`${panel.replace('vram-calculator ', '')} details`)) d.open = true;
            await new Promise((resolve) => setTimeout(resolve, 50));
            return shadow.querySelectorAll('td.formula details dl.facts dd').length;
          }, PANEL);
          if (['inference', 'full', 'lora', 'qlora', 'transformers'].includes(view)) assert.ok(inputs > 0, `${where}: no formula's inputs were opened`);
          const { words, digits } = foreign(await page.evaluate(visibleText, CITATION), lang, NOTE_KEYS);
          assert.deepEqual(words, [], `${where}: Latin words outside the glossary`);
          assert.deepEqual(digits, [], `${where}: Latin digits on the Persian page`);
          const rows = page.locator(`${PANEL} table tbody tr`);
          if (width === 1366 && (await rows.count())) {
            // Tables mirror: the row header sits right of the cells.
            const [th, td] = await rows.first().evaluate((tr) => [tr.querySelector('th'), tr.querySelector('td')].map((c) => c.getBoundingClientRect().x));
            assert.ok(th > td, `${where}: the table does not mirror`);
          }
          await screenshot(page, `i18n-${lang}-${view}-${width}`);
        }
      }
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  });
}

test('the engine picker offers transformers; its terms read in Arabic and Persian, never as keys', async () => {
  const { core } = await import('../js/module.mjs');
  const { call } = await core();
  const answer = call('estimate', { model: 'gemma-3-1b', context: 32768, engine: 'transformers' });
  for (const lang of ['ar', 'fa']) {
    const browser = await openPage(`?model=gemma-3-1b&context=32768&gpu=h200-sxm&lang=${lang}`);
    try {
      const { page } = browser;
      const options = await page.locator('vram-calculator #engine option').evaluateAll((els) => els.map((o) => [o.value, o.textContent]));
      const option = options.find(([value]) => value === 'transformers');
      assert.ok(option && option[1].trim(), `${lang}: no transformers in the engine picker: ${JSON.stringify(options)}`);
      await page.locator('vram-calculator #engine').selectOption('transformers');
      await page.waitForFunction(() => new URL(location.href).searchParams.get('engine') === 'transformers');
      // Every term of the core's answer has its row, the mask and the workspaces included.
      await page.waitForFunction((n) => {
        const shadow = document.querySelector('vram-calculator').shadowRoot;
        return shadow.querySelectorAll('table.terms tbody tr').length >= n;
      }, answer.terms.length);
      await page.evaluate(async () => {
        const shadow = document.querySelector('vram-calculator').shadowRoot;
        for (const d of shadow.querySelectorAll('details')) d.open = true;
        await new Promise((resolve) => setTimeout(resolve, 50));
      });
      const shown = (await page.evaluate(visibleText, CITATION)).join('\n');
      assert.doesNotMatch(shown, /\b(term|formula|why|termInput|assumption|option|help)\.[a-z_]+/, `${lang}: a raw message key`);
      const { words, digits } = foreign(await page.evaluate(visibleText, CITATION), lang);
      assert.deepEqual(words, [], `${lang}: Latin words outside the glossary`);
      assert.deepEqual(digits, [], `${lang}: Latin digits on the Persian page`);
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  }
});

test('digits=latn on the Persian page and digits=native on the Arabic one: every number follows, the catalogs\' own included', async () => {
  const browser = await launch({ offline: true, reuse: true, viewport: { width: 1366, height: 900 } });
  try {
    const { page } = browser;
    for (const [lang, digits, wrong] of [['fa', 'latn', /[\u06F0-\u06F9\u0660-\u0669\u066B\u066C]/], ['ar', 'native', /[0-9]/]]) {
      for (const [view, query] of Object.entries(VIEWS)) {
        await page.goto(`${pageUrl}${query}&lang=${lang}&digits=${digits}`);
        await page.locator(`${PANEL} table, ${PANEL} .error`).first().waitFor();
        await page.evaluate(async (panel) => {
          for (const d of document.querySelector('vram-calculator').shadowRoot.querySelectorAll(`${panel.replace('vram-calculator ', '')} details`)) d.open = true;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }, PANEL);
        const texts = await page.evaluate(visibleText, CITATION);
        if (digits === 'latn') {
          assert.deepEqual(texts.filter((x) => wrong.test(x)), [], `${lang} ${view} digits=${digits}: a Persian digit`);
        } else {
          // Arabic-Indic digits everywhere but in names (H100, FP8, Llama 3.1 70B) and an engine's version (vLLM 0.10.1).
          const { digits: latin } = foreign(texts.map((x) => x.replace(/[\u0660-\u0669]/g, '')), 'fa');
          assert.deepEqual(latin.filter((x) => wrong.test(x) && !/^\d+\.\d+\.\d+$/.test(x)), [], `${lang} ${view} digits=${digits}: a Latin digit outside names`);
        }
      }
    }
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('right to left, fragments keep their own order and the bar fills from the right', async () => {
  for (const lang of ['ar', 'fa']) {
    const browser = await openPage(`?model=guide-70b&weights=fp8&gpu=h100-pcie&lang=${lang}`);
    try {
      const { page } = browser;
      const x = (selector, needle) => page.evaluate(xOf, [selector, needle]);
      const first = lang === 'fa' ? '۷' : '7';
      // "75 GB", not "GB 75"; "1× H100 PCIe", not "H100 PCIe ×1"; in the
      // fit sentence, the card and the spare memory each read left to right,
      // and the card's capacity, written after it, lands left of it (the
      // sentence reads right to left: tests/browser/bidi.test.mjs).
      assert.ok((await x('.total-value', first)) < (await x('.total-value', 'GB')), `${lang}: total`);
      assert.ok((await x('table.fits tbody tr[data-gpu=h100-pcie] th', '×')) < (await x('table.fits tbody tr[data-gpu=h100-pcie] th', 'H100')), `${lang}: card count`);
      assert.ok((await x('.fit strong', '×')) < (await x('.fit strong', 'H100')), `${lang}: fit sentence card`);
      assert.ok((await x('.fit strong', '(')) < (await x('.fit strong', '×')), `${lang}: fit sentence capacity`);
      // The bar: its first segment (the weights) starts at the right edge.
      const [track, seg] = await page.locator('vram-calculator .bar-track').evaluate((el) =>
        [el.getBoundingClientRect(), el.querySelector('.seg').getBoundingClientRect()].map((r) => ({ left: r.left, right: r.right })));
      assert.ok(Math.abs(track.right - 1 - seg.right) < 2 && seg.left > track.left + 50, `${lang}: bar ${JSON.stringify([track, seg])}`);
      // The tabs are isolated: each tab's label reads as a whole.
      assert.equal(await page.locator('vram-calculator #tab-grid bdi').count(), 1);
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  }
});

test('right to left, the newest blocks: "4× H200 SXM" in the serving plan and the models caption, the launch command left to right', async () => {
  for (const lang of ['ar', 'fa']) {
    const browser = await openPage(`${VIEWS.serving}&lang=${lang}`, { viewport: { width: 390, height: 900 } });
    try {
      const { page } = browser;
      const x = (selector, needle) => page.evaluate(xOf, [selector, needle]);
      await page.locator('vram-calculator section.serving').waitFor();
      assert.ok((await x('section.serving h3', '×')) < (await x('section.serving h3', 'H200')), `${lang}: serving title`);
      // The command is a left-to-right block that wraps on a phone: all of it on screen.
      const pre = page.locator('vram-calculator section.launch pre');
      assert.equal(await pre.evaluate((el) => getComputedStyle(el).direction), 'ltr');
      assert.ok(await pre.evaluate((el) => el.scrollWidth <= el.clientWidth + 1), `${lang}: the command overflows at 390 px`);
      await page.goto(`${pageUrl}${VIEWS.models}&lang=${lang}`);
      const caption = '[role=tabpanel]:not([hidden]) caption';
      await page.locator(`vram-calculator ${caption}`).waitFor();
      assert.ok((await x(caption, '×')) < (await x(caption, 'H100')), `${lang}: models caption card`);
      assert.ok((await x(caption, 'H100')) < (await x(caption, '(')), `${lang}: models caption capacity`);
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  }
});

test('Persian digits in the inputs, and typed Persian digits are understood', async () => {
  const browser = await openPage('?model=guide-70b&weights=fp8&gpu=h100-pcie&lang=fa');
  try {
    const { page } = browser;
    const context = page.locator('vram-calculator #context');
    assert.equal(await context.inputValue(), '۸۱۹۲');
    assert.equal(await text(page, 'vram-calculator .total-value'), '\u2068۷۵ GB\u2069');
    await context.fill('۳۲۷۶۸');
    await waitForText(page, 'vram-calculator .total-value', '\u2068۸۳ GB\u2069');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('context') === '32768');
    // Latin digits typed on the Persian page work too; a letter does not get in.
    await context.fill('16384');
    await waitForText(page, 'vram-calculator .total-value', '\u2068۷۷ GB\u2069');
    await context.press('End');
    await page.keyboard.type('x');
    assert.equal(await context.inputValue(), '16384');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('digits: Arabic writes Latin digits unless asked, Persian its own unless asked', async () => {
  const cases = [
    ['?lang=ar', '75 GB'], ['?lang=ar&digits=native', '٧٥ GB'],
    ['?lang=fa', '۷۵ GB'], ['?lang=fa&digits=latn', '75 GB'], ['?lang=en&digits=native', '75 GB'],
  ];
  const browser = await launch({ offline: true, reuse: true });
  try {
    const { page } = browser;
    for (const [query, total] of cases) {
      await page.goto(`${pageUrl}${query}`);
      await page.locator('vram-calculator .total-value').waitFor();
      assert.equal((await text(page, 'vram-calculator .total-value')).replace(/[\u2066-\u2069]/g, ''), total, query);
    }
    // Grouping as the seeds write it: "1,490" in Arabic, "۱٬۴۹۰" in Persian.
    await page.goto(`${pageUrl}?lang=ar&view=fleet&model=guide-70b`);
    await page.locator(`${PANEL} tr[data-gpu="h100-pcie"]`).waitFor();
    assert.match(await text(page, `${PANEL} tr[data-gpu="h100-pcie"]`), /\$1,490/);
    await page.goto(`${pageUrl}?lang=fa&view=fleet&model=guide-70b`);
    await page.locator(`${PANEL} tr[data-gpu="l4"]`).waitFor();
    assert.match(await text(page, `${PANEL} tr[data-gpu="h100-pcie"]`), /\$۱٬۴۹۰/);
    assert.match(await text(page, `${PANEL} tr[data-gpu="l4"]`), /۰٫۳۵/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('a link made in Persian opens in Persian with the same state', async () => {
  const browser = await openPage('?model=guide-13b&weights=fp8&gpu=l4');
  try {
    const { page } = browser;
    await page.locator('vram-calculator #lang').selectOption('fa');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('lang') === 'fa');
    await page.locator('vram-calculator #batch').fill('۴');
    await page.locator('vram-calculator #batch').press('Tab');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('batch') === '4');
    await page.locator('vram-calculator #tab-fleet').click();
    await page.waitForFunction(() => new URL(location.href).searchParams.get('view') === 'fleet');
    const link = page.url();
    const caption = await text(page, `${PANEL} caption`);
    await page.goto('about:blank');
    await page.goto(link);
    await page.locator(`${PANEL} caption`).waitFor();
    assert.equal(await page.evaluate(() => document.querySelector('vram-calculator').shadowRoot.querySelector('.frame').lang), 'fa');
    assert.equal(await page.locator('vram-calculator #batch').inputValue(), '۴');
    assert.equal(await page.locator('vram-calculator #lang').inputValue(), 'fa');
    assert.equal(await text(page, `${PANEL} caption`), caption);
    assert.equal(page.url(), link);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('switching language re-renders in place: the view, inputs and open details stay', async () => {
  const browser = await openPage('?model=guide-70b&weights=fp8&gpu=h100-pcie&context=16384');
  try {
    const { page } = browser;
    await page.locator('vram-calculator tr[data-term=kv_cache] details summary').click();
    await page.locator('vram-calculator details[data-key=assumptions] summary').click();
    await page.locator('vram-calculator #lang').focus();
    await page.locator('vram-calculator #lang').selectOption('ar');
    await page.waitForFunction(() => document.querySelector('vram-calculator').shadowRoot.querySelector('.frame').lang === 'ar');
    assert.equal(await page.locator('vram-calculator tr[data-term=kv_cache] details').getAttribute('open'), '');
    assert.equal(await page.locator('vram-calculator details[data-key=assumptions]').getAttribute('open'), '');
    // The guide shape's name follows the language (model.guideName).
    assert.equal(await page.locator('vram-calculator #model').inputValue(), '70B (شكل الدليل)');
    assert.equal(await page.locator('vram-calculator #context').inputValue(), '16384');
    assert.equal(await text(page, 'vram-calculator #tab-calculator'), 'الحاسبة');
    assert.equal(await page.evaluate(() => document.querySelector('vram-calculator').shadowRoot.activeElement?.id), 'lang');
    // And back: English again, same answer.
    await page.locator('vram-calculator #lang').selectOption('en');
    await waitForText(page, 'vram-calculator #tab-calculator', 'Calculator');
    assert.equal(await text(page, 'vram-calculator .total-value'), '77 GB');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

async function hostPage(name, body, htmlLang = 'en') {
  const dir = join(root, 'test-results/hosts');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${name}.html`);
  const script = pathToFileURL(join(root, 'dist/vram-calculator.js')).href;
  await writeFile(file, `<!doctype html><html lang="${htmlLang}"><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body>${body}<script src="${script}"></script></body></html>`);
  return pathToFileURL(file).href;
}

test('with no lang attribute the element follows its host; ?lang works in an iframe', async () => {
  const url = await hostPage('host-lang', `<vram-calculator id="page"></vram-calculator>
    <section lang="ar"><div><vram-calculator id="section"></vram-calculator></div></section>
    <vram-calculator id="own" lang="en" digits="native"></vram-calculator>
    <iframe id="frame" src="${pageUrl}?lang=ar&preset=70b-fp8-8k" style="width:1000px;height:600px"></iframe>`, 'fa-IR');
  const browser = await launch({ offline: true, reuse: true });
  try {
    const { page } = browser;
    await page.goto(url);
    for (const id of ['page', 'section', 'own']) await page.locator(`#${id} .total-value`).waitFor();
    const lang = (id) => page.evaluate((i) => document.getElementById(i).shadowRoot.querySelector('.frame').lang, id);
    assert.equal(await lang('page'), 'fa'); // <html lang="fa-IR">
    assert.equal(await lang('section'), 'ar'); // the nearest ancestor with lang
    assert.equal(await lang('own'), 'en'); // its own attribute wins
    assert.equal(await text(page, '#page .total-value'), '\u2068۷۵ GB\u2069');
    assert.equal(await text(page, '#own .total-value'), '75 GB'); // English digits are Latin, native or not
    // The host switches its language: the element follows, in place.
    await page.evaluate(() => document.documentElement.setAttribute('lang', 'ar'));
    await page.waitForFunction(() => document.getElementById('page').shadowRoot.querySelector('.frame').lang === 'ar');
    const frame = page.frameLocator('#frame');
    await frame.locator('vram-calculator .total-value').waitFor();
    assert.equal(await frame.locator('vram-calculator #tab-calculator').textContent(), 'الحاسبة');
    assert.equal(await frame.locator('vram-calculator .notices').textContent(), '');
    await screenshot(page, 'i18n-host-lang');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('the Arabic guide and the Persian article in dist/ speak their language', async () => {
  for (const [file, lang, ids] of [['ar-guide.html', 'ar', ['calc', 'grid-view', 'fleet-view']], ['fa-article.html', 'fa', ['calc', 'fp8']]]) {
    for (const width of [1366, 390]) {
      const browser = await launch({ offline: true, reuse: true, viewport: { width, height: 900 } });
      try {
        const { page } = browser;
        await page.goto(pathToFileURL(join(root, 'dist', file)).href);
        for (const id of ids) {
          await page.locator(`#${id} table`).first().waitFor();
          assert.equal(await page.evaluate((i) => document.getElementById(i).shadowRoot.querySelector('.frame').lang, id), lang, `${file} #${id}`);
        }
        // The live grid stands where the guide prints its table: 70B FP8 is 75 GB on an H100 PCIe.
        if (lang === 'ar') assert.match(await text(page, '#grid-view tr[data-model="guide-70b"] td[data-method="fp8"] .cell-main'), /75 GB\u2069 \/ .*H100 PCIe.*\$1,490/);
        else assert.match(await text(page, '#calc .total-value'), /۱۷ GB/);
        const width1 = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width1 <= width, `${file} at ${width} px is ${width1} px wide`);
        await screenshot(page, `i18n-example-${lang}-${width}`);
        assert.deepEqual(browser.errors, []);
      } finally {
        await browser.close();
      }
    }
  }
});

// English the language check above lets through (issue 41): a guide shape's
// name is data ("70B (guide shape)"), a flag name is an identifier, "4x" a
// size, the parser's message text behind a config error. Each is worded in
// the language, isolated, or gone.
test('Arabic and Persian: guide shapes named in the language, flags isolated, "4×" only, no parser English in a config error', async () => {
  const GUIDE = { ar: '70B (شكل الدليل)', fa: '70B (ساختار راهنما)' };
  const pages = {
    grid: '?view=grid&model=guide-70b',
    inference: '?model=guide-70b&weights=fp8&gpu=h100-pcie',
    devices: '?view=devices&model=guide-7b',
    serving: '?model=llama-3.1-70b&weights=fp8&context=32768&batch=20&engine=vllm&gpu=h200-sxm&gpu_count=4',
    // A pasted config.json that is not JSON (the paste box, below).
    json: '?gpu=',
  };
  for (const lang of ['ar', 'fa']) {
    const browser = await launch({ offline: true, reuse: true });
    try {
      const { page } = browser;
      for (const [view, query] of Object.entries(pages)) {
        await page.goto(`${pageUrl}${query}&lang=${lang}`);
        if (view === 'json') {
          await page.locator('vram-calculator details.paste summary').click();
          await page.locator('vram-calculator #config-text').fill('{"model_type": "llama",');
          await page.locator('vram-calculator #config-error:not([hidden])').waitFor();
        } else await page.locator(`${PANEL} table, ${PANEL} .error`).first().waitFor();
        await page.evaluate(async () => {
          const shadow = document.querySelector('vram-calculator').shadowRoot;
          for (const d of shadow.querySelectorAll('details')) d.open = true;
          await new Promise((resolve) => setTimeout(resolve, 50));
        });
        const shown = (await page.evaluate(visibleText, CITATION)).join('\n');
        const plain = shown.replace(/[\u2066-\u2069]/g, '');
        const where = `${lang} ${view}`;
        assert.doesNotMatch(plain, /guide shape/, `${where}: a guide shape's English name`);
        assert.doesNotMatch(plain, /[0-9\u06f0-\u06f9]x /, `${where}: "4x" beside "4×"`);
        if (view === 'grid' || view === 'inference') assert.ok(plain.includes(GUIDE[lang]), `${where}: no "${GUIDE[lang]}"`);
        if (view === 'serving') assert.ok(shown.includes('\u2068gpu_memory_utilization\u2069'), `${where}: the flag is not isolated`);
        if (view === 'json') {
          assert.match(plain, /JSON/, `${where}: no config error`);
          assert.doesNotMatch(plain, /Unexpected|Expected|position|input|property/i, `${where}: the parser's English`);
        }
      }
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  }
});
