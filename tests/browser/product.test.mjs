// The page as a product: the answer on a phone's first screen and in view
// while the inputs change, tables that scroll with a cue and keep every
// column reachable, views that show only their inputs, and the embed modes
// (inputs, compact, hide, a page-wide catalog, the iframe's catalog,
// rent-url and vram-pick).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { core } from '../js/module.mjs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, networkRequests, openPage, pageUrl, root, screenshot, text } from './harness.mjs';

const script = pathToFileURL(join(root, 'dist/vram-calculator.js')).href;

async function hostPage(name, body) {
  const dir = join(root, 'test-results/hosts');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${name}.html`);
  await writeFile(file, `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body>${body}<script src="${script}"></script></body></html>`);
  return pathToFileURL(file).href;
}

const VENDOR = {
  currency: 'USD',
  gpus: [
    { id: 'h100-sxm', name: 'H100 SXM', vendor: 'NVIDIA', vram_gb: 80, bandwidth_gbps: 3350, monthly_usd: 1590, memory_type: 'HBM3', architecture: 'Hopper', fp8: true, interconnect: { kind: 'nvlink', gbps: 900, topology: 'switched' } },
    { id: 'a40', name: 'A40', vendor: 'NVIDIA', vram_gb: 48, bandwidth_gbps: 696, hourly_usd: 0.3, memory_type: 'GDDR6 ECC', architecture: 'Ampere', fp8: false, interconnect: { kind: 'nvlink-bridge', gbps: 112, topology: 'bridged-pairs' } },
  ],
};

/** Inside `viewport` (x, y, width, height from boundingBox). */
const inside = (box, viewport) => box && box.y >= 0 && box.y + box.height <= viewport.height && box.x >= 0 && box.x + box.width <= viewport.width;

test('at 390 px the total, fit and pick are on the first screen, and stay in view as inputs change', async () => {
  const viewport = { width: 390, height: 844 };
  const browser = await openPage('', { viewport });
  try {
    const { page } = browser;
    const total = page.locator('vram-calculator .answer-bar .answer-value');
    assert.equal(await total.textContent(), '75 GB');
    assert.ok(inside(await total.boundingBox(), viewport), 'the total is on the first screen');
    assert.ok(inside(await page.locator('vram-calculator .answer-bar .answer-fit').boundingBox(), viewport));
    assert.match(await text(page, 'vram-calculator .answer-bar .answer-pick'), /Cheapest that holds it: \d+× .+, \$[\d,]+ a month/);
    await screenshot(page, 'phone-390');
    // A change far down the inputs: the answer strip is still on screen, with the new total.
    const pick = page.locator('vram-calculator .picks button', { hasText: '32k' });
    await pick.scrollIntoViewIfNeeded();
    await pick.click();
    await page.waitForFunction(() => document.querySelector('vram-calculator').shadowRoot.querySelector('.answer-value').textContent === '83 GB');
    assert.ok(inside(await total.boundingBox(), viewport), 'the total is still on screen after scrolling to the input');
    assert.equal(await page.locator('vram-calculator .answer-bar .answer-fit').getAttribute('data-fits'), 'false');
    // The redrawn cards table says it scrolls too: one observer watches every region a redraw builds.
    await page.waitForFunction(() => document.querySelector('vram-calculator').shadowRoot.querySelector('[role=tabpanel]:not([hidden]) .cheapest .scroll.overflows'));
    // Wide tables scroll inside their region, say so, and every column is reachable.
    await page.locator('vram-calculator #tab-fleet').scrollIntoViewIfNeeded();
    await page.locator('vram-calculator #tab-fleet').click();
    const region = page.locator('vram-calculator [role=tabpanel]:not([hidden]) .scroll');
    await page.waitForFunction(() => document.querySelector('vram-calculator').shadowRoot.querySelector('[role=tabpanel]:not([hidden]) .scroll.overflows'));
    assert.equal(await page.locator('vram-calculator [role=tabpanel]:not([hidden]) .scroll-cue').isVisible(), true);
    const heads = await page.locator('vram-calculator table.fleet thead th').allTextContents();
    assert.ok(heads.includes('Monthly') && heads.some((h) => /per million/.test(h)) && heads.some((h) => /Decode/.test(h)), heads.join('|'));
    // The inputs above differ from view to view: bring the table's head to the top first.
    await region.evaluate((el) => { el.scrollIntoView({ block: 'start' }); el.scrollLeft = el.scrollWidth; });
    const last = await page.locator('vram-calculator table.fleet thead th').last().boundingBox();
    assert.ok(inside(last, viewport), 'the last column scrolls into view');
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390, 'the page itself does not widen');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('at 390 px no Tab stop lands under the sticky answer strip, in English and in Arabic', async () => {
  for (const query of ['', '?lang=ar&mode=qlora']) {
    const browser = await openPage(query, { viewport: { width: 390, height: 844 } });
    try {
      const { page } = browser;
      const covered = [];
      let stops = 0;
      // Every stop of the page, once round (the header's tools, the inputs, the tabs, the answer's details).
      for (let i = 0; i < 120; i++) {
        await page.keyboard.press('Tab');
        // Focus scrolls at once; the strip's size is measured by an observer, before the next frame:
        // two frames, then where the stop is (one call to the page, not two).
        const stop = await page.evaluate(async () => {
          await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
          const root = document.querySelector('vram-calculator').shadowRoot;
          const el = root.activeElement;
          const bar = root.querySelector('.answer-bar');
          if (!el || bar.contains(el) || getComputedStyle(bar).position !== 'sticky') return el ? { id: el.id || el.className } : null;
          const [b, e] = [bar.getBoundingClientRect(), el.getBoundingClientRect()];
          return { id: el.id || el.className || el.localName, under: e.top < b.bottom && e.bottom > b.top };
        });
        if (!stop) continue;
        stops += 1;
        if (stop.under) covered.push(`${i}:${stop.id}`);
      }
      assert.ok(stops > 40, `${stops} stops`);
      assert.deepEqual(covered, [], `${query || 'en'}: focus under the strip`);
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  }
});

test('the answer strip gives the page its height only while it shows: none at desk, its own at 390 px', async () => {
  const browser = await openPage('', { viewport: { width: 1200, height: 900 } });
  try {
    const { page } = browser;
    // After the observer's callback (before the next frame): what the frame carries, and the strip's height.
    const read = () => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => {
      const root = document.querySelector('vram-calculator').shadowRoot;
      resolve({ value: root.querySelector('.frame').style.getPropertyValue('--_bar-block'), height: root.querySelector('.answer-bar').getBoundingClientRect().height });
    }))));
    // At desk the strip never shows, and a property set on the frame restyles every element in it.
    assert.deepEqual(await read(), { value: '', height: 0 });
    await page.setViewportSize({ width: 390, height: 844 });
    const phone = await read();
    assert.ok(phone.height > 40, `strip ${phone.height} px`);
    assert.equal(phone.value, `${Math.ceil(phone.height)}px`);
    await page.setViewportSize({ width: 1200, height: 900 });
    assert.equal((await read()).value, '');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('at 390 px a config the core cannot use says why on the first screen, where the answer was, and the strip comes back with it', async () => {
  const viewport = { width: 390, height: 844 };
  for (const [lang, said] of [['en', 'config.json num_hidden_layers is required'], ['fa', '\u2068config.json num_hidden_layers\u2069 لازم است']]) {
    const browser = await openPage(`?lang=${lang}`, { viewport });
    try {
      const { page } = browser;
      await page.locator('vram-calculator details.paste summary').click();
      await page.locator('vram-calculator #config-text').fill('{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "vocab_size": 1000}');
      const strip = page.locator('vram-calculator .answer-bar .answer-error');
      await strip.waitFor();
      // The field once, by its label, in the page's language (isolated in a
      // right-to-left sentence); no stale total or pick.
      assert.equal(await strip.textContent(), said);
      assert.equal(await page.locator('vram-calculator .answer-bar .answer-value').count(), 0);
      assert.equal(await page.locator('vram-calculator .answer-bar .answer-pick').count(), 0);
      assert.equal(await page.locator('vram-calculator [role=tabpanel]:not([hidden]) .error[role=alert]').textContent(), said);
      // One announcement: the strip repeats the calculator's alert, it is not one.
      assert.equal(await page.locator('vram-calculator .answer-bar [role=alert]').count(), 0);
      await page.evaluate(() => window.scrollTo(0, 0));
      assert.ok(inside(await strip.boundingBox(), viewport), `${lang}: the reason is on the first screen`);
      if (lang === 'fa') await screenshot(page, 'config-error-fa-390');
      // Away to the grid and back: the strip says it again.
      await page.locator('vram-calculator #tab-grid').click();
      assert.equal(await page.locator('vram-calculator .answer-bar').isVisible(), false);
      await page.locator('vram-calculator #tab-calculator').click();
      assert.equal(await strip.textContent(), said);
      // Mended: the answer is back in the strip.
      await page.locator('vram-calculator #config-text').fill('{"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 128256}');
      await page.locator('vram-calculator .answer-bar .answer-value').waitFor();
      assert.equal(await strip.count(), 0);
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  }
});

test('at 390 px every view but the calculator comes before its inputs, with a jump to them; at desk the inputs keep their column', async () => {
  const viewport = { width: 390, height: 844 };
  for (const lang of ['en', 'fa']) {
    for (const view of ['grid', 'devices', 'fleet', 'models']) {
      const browser = await openPage(`?view=${view}&lang=${lang}&gpu=h100-sxm`, { viewport });
      try {
        const { page } = browser;
        const panel = page.locator(`vram-calculator #panel-${view}`);
        await panel.locator('table').first().waitFor();
        // The view's table starts on the first screen, its first row with it
        // (as tall as it is; a wide table scrolls sideways in its region).
        const row = await panel.locator('table tbody tr').first().boundingBox();
        assert.ok(row.y >= 0 && row.y + row.height <= viewport.height, `${lang} ${view}: the table's first row is on the first screen (${JSON.stringify(row)})`);
        const inputs = await page.locator('vram-calculator form.inputs').boundingBox();
        assert.ok(inputs.y > (await panel.boundingBox()).y, `${lang} ${view}: the inputs follow the view`);
        // One tap to the inputs: the panel scrolled to and focused, Tab goes on into its fields.
        const jump = page.locator('vram-calculator .to-inputs');
        assert.equal(await jump.textContent(), lang === 'en' ? 'Change the inputs' : 'تغییر ورودی‌ها');
        await jump.click();
        assert.equal(await page.evaluate(() => document.querySelector('vram-calculator').shadowRoot.activeElement?.localName), 'form');
        const form = await page.locator('vram-calculator form.inputs').boundingBox();
        assert.ok(form.y < viewport.height && form.y + form.height > 0, `${lang} ${view}: the inputs are on screen after the jump`);
        if (view === 'grid') await screenshot(page, `inputs-after-grid-${lang}-390`);
        assert.deepEqual(browser.errors, []);
      } finally {
        await browser.close();
      }
    }
  }
  // From the calculator, whose answer strip is above its inputs: the tab
  // far down the page opens its view above the inputs, in view.
  const browser = await openPage('', { viewport });
  try {
    const { page } = browser;
    assert.equal(await page.locator('vram-calculator .to-inputs').isVisible(), false, 'the calculator keeps its inputs first');
    // Without scroll anchoring, as Safari: Chromium's own anchoring keeps
    // the tab in place, so only this shows the element bringing it back.
    await page.evaluate(() => { document.documentElement.style.overflowAnchor = 'none'; });
    const tab = page.locator('vram-calculator #tab-grid');
    await tab.scrollIntoViewIfNeeded();
    await tab.click();
    // The tab is brought into view in the frame after the click (element.js selectView).
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve())));
    assert.ok(inside(await tab.boundingBox(), viewport), 'the tab is on screen');
    const row = await page.locator('vram-calculator #panel-grid table tbody tr').first().boundingBox();
    assert.ok(row.y >= 0 && row.y + row.height <= viewport.height, 'the grid starts on screen');
    await screenshot(page, 'grid-from-calculator-390');
  } finally {
    await browser.close();
  }
  // At desk: the inputs stay in the first column (on the right, right to left) and the jump is not shown.
  for (const lang of ['en', 'ar']) {
    const desk = await openPage(`?view=grid&lang=${lang}`, { viewport: { width: 1366, height: 900 } });
    try {
      const { page } = desk;
      await page.locator('vram-calculator #panel-grid table').waitFor();
      const inputs = await page.locator('vram-calculator form.inputs').boundingBox();
      const main = await page.locator('vram-calculator main').boundingBox();
      assert.ok(lang === 'en' ? inputs.x < main.x : inputs.x > main.x, `${lang}: the inputs keep the start column`);
      assert.ok(Math.abs(inputs.y - main.y) < 2, `${lang}: side by side`);
      assert.equal(await page.locator('vram-calculator .to-inputs').isVisible(), false);
    } finally {
      await desk.close();
    }
  }
});

test('at 1366 px the fleet table fits: the "no FP8 support" cell wraps, price and speed stay on screen', async () => {
  const viewport = { width: 1366, height: 768 };
  const browser = await openPage('?view=fleet', { viewport });
  try {
    const { page } = browser;
    await page.locator('vram-calculator table.fleet').waitFor();
    const overflow = await page.evaluate(() => {
      const el = document.querySelector('vram-calculator').shadowRoot.querySelector('[role=tabpanel]:not([hidden]) .scroll');
      return el.scrollWidth - el.clientWidth;
    });
    assert.ok(overflow <= 1, `the fleet table overflows by ${overflow} px`);
    const reason = page.locator('vram-calculator table.fleet td.reason').first();
    assert.match(await reason.textContent(), /no FP8 support/);
    const box = await reason.boundingBox();
    assert.ok(box.height > 30, 'the reason wraps onto more than one line');
    for (const th of await page.locator('vram-calculator table.fleet thead th').all()) assert.ok(inside(await th.boundingBox(), { ...viewport, height: 10000 }));
    await screenshot(page, 'fleet-1366');
    await page.locator('vram-calculator #tab-calculator').click();
    await screenshot(page, 'calculator-1366');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('each view shows only the inputs that change it', async () => {
  const browser = await openPage();
  try {
    const { page } = browser;
    const shown = async () => {
      const ids = ['model', 'weights', 'kv', 'context', 'batch', 'mode', 'engine', 'gpu', 'usable_fraction'];
      const out = [];
      for (const id of ids) if (await page.locator(`vram-calculator #${id}`).isVisible()) out.push(id);
      return out;
    };
    assert.deepEqual(await shown(), ['model', 'weights', 'kv', 'context', 'batch', 'mode', 'engine', 'gpu']);
    await page.locator('vram-calculator #tab-grid').click();
    assert.deepEqual(await shown(), ['model', 'context', 'batch']);
    await page.locator('vram-calculator #tab-devices').click();
    assert.deepEqual(await shown(), ['model', 'context', 'usable_fraction']);
    await page.locator('vram-calculator #tab-fleet').click();
    assert.deepEqual(await shown(), ['model', 'weights', 'context', 'batch']);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('inputs, compact and hide attributes', async () => {
  const url = await hostPage('modes', `
    <vram-calculator id="some" inputs="model context bogus"></vram-calculator>
    <vram-calculator id="none" inputs="none" view="grid"></vram-calculator>
    <vram-calculator id="compact" compact model="llama-3.1-8b"></vram-calculator>
    <vram-calculator id="bare" hide="header tabs"></vram-calculator>
    <vram-calculator id="compact-grid" compact view="grid"></vram-calculator>
    <vram-calculator id="none-here" inputs="gpu" view="grid"></vram-calculator>`);
  const browser = await launch({ offline: true, reuse: true });
  try {
    const { page } = browser;
    await page.goto(url);
    for (const id of ['some', 'compact', 'bare']) await page.locator(`#${id} .total-value`).waitFor({ state: 'attached' });
    await page.locator('#none table.grid').waitFor();
    assert.equal(await page.locator('#some #model').isVisible(), true);
    assert.equal(await page.locator('#some #context').isVisible(), true);
    for (const id of ['weights', 'batch', 'gpu', 'mode']) assert.equal(await page.locator(`#some #${id}`).isVisible(), false, id);
    assert.match(await text(page, '#some .notices'), /Ignored 'bogus' in the inputs attribute/);
    assert.equal(await page.locator('#none form.inputs').isVisible(), false);
    // Inputs listed, none of which changes this view: no empty box either, and the view takes the width.
    await page.locator('#none-here table.grid').waitFor();
    assert.equal(await page.locator('#none-here form.inputs').isVisible(), false);
    assert.ok((await page.locator('#none-here .main').boundingBox()).width > (await page.locator('#none-here').boundingBox()).width * 0.85);
    const grid = await page.locator('#none .main').boundingBox();
    const host = await page.locator('#none').boundingBox();
    assert.ok(grid.width > host.width * 0.85, 'the view takes the whole width');
    // compact: the answer strip only.
    assert.equal(await page.locator('#compact .answer-bar').isVisible(), true);
    assert.match(await text(page, '#compact .answer-value'), /^\d+ GB$/);
    for (const selector of ['.head', '.tabs', 'form.inputs', '.main']) assert.equal(await page.locator(`#compact ${selector}`).isVisible(), false, selector);
    // compact on a table view: the table alone.
    await page.locator('#compact-grid table.grid').waitFor();
    for (const selector of ['.head', '.tabs', 'form.inputs']) assert.equal(await page.locator(`#compact-grid ${selector}`).isVisible(), false, selector);
    // hide: no header, no tabs, inputs and answer stay.
    assert.equal(await page.locator('#bare .head').isVisible(), false);
    assert.equal(await page.locator('#bare .tabs').isVisible(), false);
    assert.equal(await page.locator('#bare form.inputs').isVisible(), true);
    assert.equal(await page.locator('#bare .total-value').isVisible(), true);
    // Changed after start: the element rebuilds.
    await page.evaluate(() => document.querySelector('#bare').setAttribute('inputs', 'gpu'));
    await page.waitForFunction(() => !document.querySelector('#bare').shadowRoot.querySelector('#context').checkVisibility());
    assert.equal(await page.locator('#bare #gpu').isVisible(), true);
    await screenshot(page, 'embed-modes');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('one page-wide catalog for every element, rent-url links and the vram-pick event', async () => {
  const catalog = JSON.stringify(VENDOR).replace(/</g, '\\u003c');
  const rent = 'https://vendor.example/order?gpu={gpu}&count={count}';
  const url = await hostPage('catalog', `
    <script type="application/json" data-vram-catalog>${catalog}</script>
    <vram-calculator id="calc" preset="7b-bf16-a40" rent-url="${rent}"></vram-calculator>
    <vram-calculator id="grid" view="grid" rent-url="${rent}"></vram-calculator>
    <vram-calculator id="bad" rent-url="javascript:alert(1)//{gpu}"></vram-calculator>`);
  const browser = await launch({ offline: true, reuse: true });
  try {
    const { page } = browser;
    await page.goto(url);
    await page.locator('#calc .total-value').waitFor();
    await page.locator('#grid table.grid').waitFor();
    await page.locator('#bad .total-value').waitFor();
    // Both elements offer the vendor's cards only.
    for (const id of ['calc', 'bad']) {
      const gpus = await page.locator(`#${id} #gpu option`).evaluateAll((o) => o.map((x) => x.value).filter(Boolean));
      assert.deepEqual(gpus.sort(), ['a40', 'h100-sxm'], id);
    }
    const picks = await page.locator('#grid td a.rent').evaluateAll((a) => a.map((x) => x.href));
    assert.ok(picks.length > 0);
    for (const href of picks) assert.match(href, /^https:\/\/vendor\.example\/order\?gpu=(a40|h100-sxm)&count=\d+$/);
    // The pick of the answer: a link, and an event the host can take instead.
    const link = page.locator('#calc .answer-bar a.rent');
    assert.match(await link.getAttribute('href'), /^https:\/\/vendor\.example\/order\?gpu=a40&count=1$/);
    assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');
    const detail = await page.evaluate(() => new Promise((resolve) => {
      const el = document.querySelector('#calc');
      el.addEventListener('vram-pick', (event) => {
        event.preventDefault();
        resolve({ ...event.detail, cancelable: event.cancelable });
      }, { once: true });
      el.shadowRoot.querySelector('.answer-bar a.rent').click();
    }));
    assert.deepEqual({ gpu: detail.gpu, count: detail.count, source: detail.source, cancelable: detail.cancelable }, { gpu: 'a40', count: 1, source: 'answer', cancelable: true });
    assert.equal(page.context().pages().length, 1, 'a cancelled pick opens nothing');
    // A new answer with a new pick fires vram-pick too.
    const next = page.evaluate(() => new Promise((resolve) => {
      document.querySelector('#calc').addEventListener('vram-pick', (event) => resolve(event.detail), { once: true });
    }));
    await page.evaluate(() => document.querySelector('#calc').setAttribute('model', 'guide-70b'));
    const moved = await next;
    // 70B in BF16: 145 GB. Four A40 at $216 each hold it but decode under
    // the 10 tokens/s floor per user, so they are listed apart, and the
    // pick is the cheapest set that meets it: as the core says.
    const answer = (await core()).estimate({ model: 'guide-70b', weights: 'bf16', gpu: 'a40', catalog: VENDOR });
    assert.ok(answer.below_floor.some((f) => f.gpu === 'a40' && f.count === 4), JSON.stringify(answer.below_floor));
    const pick = answer.fits[0];
    assert.deepEqual([moved.gpu, moved.count, moved.name, moved.source], [pick.gpu, pick.count, pick.name, 'answer']);
    assert.ok(pick.decode_expected_tokens_per_s >= 10);
    // A template that is not http(s) is refused and named: no links at all.
    assert.equal(await page.locator('#bad a.rent').count(), 0);
    assert.match(await text(page, '#bad .notices'), /Ignored the rent-url attribute: only http and https links are taken/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('the iframe page takes a catalog from its fragment or by postMessage, validated like the attribute', async () => {
  const json = encodeURIComponent(JSON.stringify(VENDOR));
  const url = await hostPage('iframe', `
    <iframe id="f1" title="fragment" style="width:1200px;height:800px" src="${pageUrl}?view=fleet#catalog=${json}"></iframe>
    <iframe id="f2" title="message" style="width:1200px;height:800px" src="${pageUrl}?view=fleet"></iframe>`);
  const browser = await launch({ offline: true, reuse: true });
  try {
    const { page } = browser;
    await page.goto(url);
    const rows = (frame) => page.frameLocator(frame).locator('vram-calculator table.fleet tbody tr').evaluateAll((r) => r.map((x) => x.dataset.gpu));
    const f1 = page.frameLocator('#f1');
    await f1.locator('vram-calculator table.fleet').waitFor();
    assert.deepEqual((await rows('#f1')).sort(), ['a40', 'h100-sxm']);
    const f2 = page.frameLocator('#f2');
    await f2.locator('vram-calculator table.fleet').waitFor();
    assert.ok((await rows('#f2')).length > 10, 'the built-in fleet before a message');
    await page.evaluate((catalog) => document.querySelector('#f2').contentWindow.postMessage({ type: 'vram-catalog', catalog }, '*'), VENDOR);
    await f2.locator('vram-calculator table.fleet tbody tr').nth(2).waitFor({ state: 'detached' });
    assert.deepEqual((await rows('#f2')).sort(), ['a40', 'h100-sxm']);
    // Broken text is named, not thrown.
    await page.evaluate(() => document.querySelector('#f2').contentWindow.postMessage({ type: 'vram-catalog', catalog: '{"gpus": [' }, '*'));
    await f2.locator('vram-calculator .notices', { hasText: 'catalog could not be read' }).waitFor();
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test("the vendor example: one catalog for the calculator, grid and device table, and a call to action that follows the pick", async () => {
  const browser = await launch({ offline: true, reuse: true, viewport: { width: 1366, height: 900 } });
  try {
    const { page } = browser;
    await page.goto(pathToFileURL(join(root, 'dist/vendor.html')).href);
    await page.locator('#calc .total-value').waitFor();
    await page.locator('#grid table.grid').waitFor();
    await page.locator('#devices table.devices').waitFor();
    const vendor = ['a40', 'h100-sxm', 'h200-sxm', 'l40s'];
    const gpus = await page.locator('#calc #gpu option').evaluateAll((o) => o.map((x) => x.value).filter(Boolean));
    assert.deepEqual(gpus.sort(), vendor);
    const rows = await page.locator('#devices table.devices tbody tr').evaluateAll((r) => r.map((x) => x.dataset.accelerator));
    assert.deepEqual(rows.sort(), vendor);
    for (const href of await page.locator('#grid a.rent').evaluateAll((a) => a.map((x) => x.href))) {
      assert.match(href, /^https:\/\/northwind\.example\/order\?gpu=(a40|h100-sxm|h200-sxm|l40s)&count=\d+$/);
    }
    // The call to action names the calculator's pick and links to it.
    await page.waitForFunction(() => !document.querySelector('#cta').hasAttribute('aria-disabled'));
    const pick = await page.locator('#calc .answer-bar a.rent').getAttribute('href');
    assert.equal(await page.locator('#cta').getAttribute('href'), pick);
    assert.match(await page.locator('#cta').textContent(), /^Rent \d+× /);
    for (const id of ['calc', 'grid', 'devices']) assert.equal(await page.locator(`#${id} .notices`).textContent(), '', id);
    assert.equal(await page.locator('#grid form.inputs #model').isVisible(), false, 'the grid shows only context and batch');
    // Its catalog gives each card's TFLOP/s, so "First token" has a time on every row (issue 41).
    const ttft = await page.locator('#calc table.fits tbody tr').evaluateAll((rows) => rows.map((r) => r.querySelectorAll('td')[3]?.textContent ?? ''));
    assert.ok(ttft.length > 0);
    for (const cell of ttft) assert.match(cell, /\d/, `First token: ${ttft.join(' | ')}`);
    await screenshot(page, 'vendor-1366');
    assert.deepEqual(networkRequests(browser.requests), []);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('at 390 px the strip carries the expected speed and a way down to the command, in Persian and in English', async () => {
  const viewport = { width: 390, height: 844 };
  for (const lang of ['fa', 'en']) {
    const query = `?lang=${lang}&model=llama-3.1-8b&weights=bf16&engine=vllm&gpu=h100-sxm`;
    const result = (await core()).estimate({ model: 'llama-3.1-8b', weights: 'bf16', engine: 'vllm', gpu: 'h100-sxm' });
    const browser = await openPage(query, { viewport });
    try {
      const { page } = browser;
      const speed = page.locator('vram-calculator .answer-bar .answer-speed');
      await speed.waitFor();
      assert.ok(inside(await speed.boundingBox(), viewport), 'the speed is on the first screen');
      // The strip's speed is the calculator's own expected speed, in the page's digits.
      const shown = await text(page, 'vram-calculator [role=tabpanel]:not([hidden]) section.decode dd');
      assert.ok((await speed.textContent()).includes(shown), `${await speed.textContent()} / ${shown}`);
      const plain = (await speed.textContent()).replace(/[\u2066-\u2069]/g, '');
      if (lang === 'en') assert.equal(plain, `Expected ≈ ${Math.round(result.decode.expected_tokens_per_s)} tokens/s per user`);
      else assert.match(plain, /^سرعت مورد انتظار ≈ [۰-۹٫]+ توکن\/ث برای هر کاربر$/);
      const launch = page.locator('vram-calculator [role=tabpanel]:not([hidden]) section.launch');
      assert.ok(!inside(await launch.boundingBox(), viewport), 'the command starts below the first screen');
      await page.locator('vram-calculator .answer-bar .answer-command').click();
      await page.waitForFunction(() => document.querySelector('vram-calculator').shadowRoot.activeElement?.closest('section.launch'));
      // The command's first line is on screen, below the strip, not under it.
      const strip = await page.locator('vram-calculator .answer-bar').boundingBox();
      const command = await page.locator('vram-calculator [role=tabpanel]:not([hidden]) section.launch pre').first().boundingBox();
      assert.ok(command.y >= strip.y + strip.height - 1 && command.y < viewport.height, `command at ${command.y}, strip ends at ${strip.y + strip.height}`);
      if (lang === 'fa') await screenshot(page, 'phone-390-fa-command');
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  }
});
