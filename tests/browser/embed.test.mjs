// The one-<script> embed: two instances on a host page whose CSS tries hard
// to break them, each independent, themable through custom properties,
// defining no global but the element; right to left, 360 px wide, print.
import { test } from 'node:test';
import { VIEWS } from '../../web/src/state.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, networkRequests, root, screenshot, text, waitForText } from './harness.mjs';

const script = pathToFileURL(join(root, 'dist/vram-calculator.js')).href;

async function hostPage(name, css, body) {
  const dir = join(root, 'test-results/hosts');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${name}.html`);
  await writeFile(file, `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${css}</style></head>
<body>${body}<script>window.globalsBefore = Object.keys(window);</script>
<script src="${script}"></script></body></html>`);
  return pathToFileURL(file).href;
}

const HOSTILE = `
  * { all: unset !important; display: none; }
  html, body, main, div, section { display: block !important; }
  div { color: red !important; font-size: 40px !important; line-height: 3 !important; }
  table, td, th, select, input, button, p, span { font-size: 30px !important; color: red !important; }
  #a { --vram-accent: #6a1b9a; }
`;

test('two instances on a hostile host page: unbroken, independent, one global', async () => {
  const url = await hostPage('hostile', HOSTILE, `<main><div>Host text
    <vram-calculator id="a" model="guide-7b"></vram-calculator>
    <vram-calculator id="b" view="calculator" preset="70b-fp8-32k"></vram-calculator></div></main>`);
  const browser = await launch({ offline: true, reuse: true });
  try {
    const { page } = browser;
    await page.goto(url);
    await page.locator('#a .total-value').waitFor();
    await page.locator('#b .total-value').waitFor();
    assert.equal(await text(page, '#a .total-value'), '10 GB'); // 7B in FP8, the default format
    assert.equal(await text(page, '#b .total-value'), '83 GB');
    // The host's rules do not reach in: our font size, colours, layout hold.
    const style = await page.evaluate(() => {
      const host = document.querySelector('#a');
      const total = host.shadowRoot.querySelector('.total-value');
      const tab = host.shadowRoot.querySelector('[role=tab][aria-selected=true]');
      const cs = getComputedStyle(total);
      return { display: getComputedStyle(host).display, height: host.getBoundingClientRect().height, color: cs.color,
        label: getComputedStyle(host.shadowRoot.querySelector('label')).fontSize, accent: getComputedStyle(tab).borderBottomColor };
    });
    assert.equal(style.display, 'block');
    assert.ok(style.height > 400, `height ${style.height}`);
    assert.equal(style.color, 'rgb(26, 29, 33)');
    assert.equal(style.label, '13.5px');
    assert.equal(style.accent, 'rgb(106, 27, 154)'); // themed through --vram-accent
    // Independent: typing in one leaves the other alone, and neither touches the URL.
    await page.locator('#a #batch').fill('8');
    await waitForText(page, '#a .total-value', '18 GB');
    assert.equal(await text(page, '#b .total-value'), '83 GB');
    assert.equal(new URL(page.url()).search, '');
    // The only new global is the element's registration (no window property at all).
    const added = await page.evaluate(() => Object.keys(window).filter((k) => k !== 'globalsBefore' && !window.globalsBefore.includes(k)));
    assert.deepEqual(added, []);
    assert.ok(await page.evaluate(() => customElements.get('vram-calculator') !== undefined));
    // And nothing leaks out: the host's own text keeps the host's style.
    assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('div')).color), 'rgb(255, 0, 0)');
    await screenshot(page, 'embed-hostile');
    assert.deepEqual(networkRequests(browser.requests), []);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('attributes drive the element after start, and events come out', async () => {
  const url = await hostPage('attributes', '', '<vram-calculator id="c"></vram-calculator>');
  const browser = await launch({ offline: true, reuse: true });
  try {
    const { page } = browser;
    await page.goto(url);
    await page.locator('#c .total-value').waitFor();
    const detail = page.evaluate(() => new Promise((resolve) => {
      document.querySelector('#c').addEventListener('vram-result', (e) => resolve(Math.round(e.detail.total_gb)), { once: true });
    }));
    await page.evaluate(() => document.querySelector('#c').setAttribute('model', 'guide-13b'));
    assert.equal(await detail, 22); // 13B in FP8
    await page.evaluate(() => document.querySelector('#c').setAttribute('view', 'fleet'));
    assert.equal(await page.locator('#c #tab-fleet').getAttribute('aria-selected'), 'true');
    await page.evaluate(() => document.querySelector('#c').setAttribute('model', 'nope'));
    assert.match(await text(page, '#c .notices'), /Ignored attribute model: 'nope' is not one of the choices/);
    // A malformed inline catalog is reported, not thrown.
    await page.evaluate(() => document.querySelector('#c').setAttribute('catalog', '{"gpus": ['));
    await page.waitForFunction(() => /catalog could not be read/.test(document.querySelector('#c').shadowRoot.querySelector('.notices').textContent));
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('tabs are a tablist: arrow keys, Home and End move and select', async () => {
  const url = await hostPage('tabs', '', '<vram-calculator id="d"></vram-calculator>');
  const browser = await launch({ offline: true, reuse: true });
  try {
    const { page } = browser;
    await page.goto(url);
    await page.locator('#d .total-value').waitFor();
    await page.locator('#d #tab-calculator').focus();
    const selected = () => page.evaluate(() => document.querySelector('#d').shadowRoot.activeElement.id);
    await page.keyboard.press('ArrowRight');
    assert.equal(await selected(), 'tab-grid');
    assert.equal(await page.locator('#d #panel-grid').isVisible(), true);
    // The last tab, whichever view comes last (state.js VIEWS).
    const last = `tab-${VIEWS[VIEWS.length - 1]}`;
    await page.keyboard.press('End');
    assert.equal(await selected(), last);
    await page.keyboard.press('ArrowRight');
    assert.equal(await selected(), 'tab-calculator');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await selected(), last);
    await page.keyboard.press('Home');
    assert.equal(await selected(), 'tab-calculator');
    assert.equal(await page.locator('#d [role=tab][tabindex="0"]').count(), 1);
    // Every control has a name a screen reader can read.
    const unlabelled = await page.evaluate(() => [...document.querySelector('#d').shadowRoot.querySelectorAll('input, select, textarea')]
      .filter((el) => !el.labels?.length && !el.getAttribute('aria-label')).map((el) => el.id));
    assert.deepEqual(unlabelled, []);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('right to left: the layout mirrors with logical properties', async () => {
  const url = await hostPage('rtl', 'body { margin: 0; }', '<vram-calculator id="r" lang="fa"></vram-calculator>');
  const browser = await launch({ offline: true, reuse: true });
  try {
    const { page } = browser;
    await page.goto(url);
    await page.locator('#r .total-value').waitFor();
    const box = (selector) => page.locator(`#r ${selector}`).boundingBox();
    const inputs = await box('form.inputs');
    const main = await box('.main');
    assert.ok(inputs.x > main.x, 'the inputs sit on the right');
    const label = await box('label[for=context]');
    const field = await box('#context');
    assert.ok(Math.abs(label.x + label.width - (field.x + field.width)) < 2, 'labels align to the right edge');
    await page.locator('#r #tab-calculator').focus();
    await page.keyboard.press('ArrowLeft');
    assert.equal(await page.evaluate(() => document.querySelector('#r').shadowRoot.activeElement.id), 'tab-grid');
    await page.keyboard.press('ArrowRight');
    await screenshot(page, 'calculator-rtl');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('usable at 360 px wide, and printable', async () => {
  const url = await hostPage('narrow', 'body { margin: 0; }', '<vram-calculator id="n" view="calculator"></vram-calculator>');
  const browser = await launch({ offline: true, viewport: { width: 360, height: 740 } });
  try {
    const { page } = browser;
    await page.goto(url);
    await page.locator('#n .total-value').waitFor();
    for (const view of ['calculator', 'grid', 'devices', 'fleet']) {
      await page.locator(`#n #tab-${view}`).click();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 360, `${view}: page is ${width} px wide`);
    }
    await page.locator('#n #tab-calculator').click();
    await screenshot(page, 'calculator-360');
    await page.emulateMedia({ media: 'print' });
    assert.equal(await page.locator('#n form.inputs').isVisible(), false);
    assert.equal(await page.locator('#n .total-value').isVisible(), true);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

const VENDOR = {
  currency: 'USD',
  gpus: [
    { id: 'h100-sxm', name: 'H100 SXM', vendor: 'NVIDIA', vram_gb: 80, bandwidth_gbps: 3350, monthly_usd: 1590, memory_type: 'HBM3', architecture: 'Hopper', fp8: true, interconnect: { kind: 'nvlink', gbps: 900, topology: 'switched' } },
    { id: 'a40', name: 'A40', vendor: 'NVIDIA', vram_gb: 48, bandwidth_gbps: 696, hourly_usd: 0.3, memory_type: 'GDDR6 ECC', architecture: 'Ampere', fp8: false, interconnect: { kind: 'nvlink-bridge', gbps: 112, topology: 'bridged-pairs' } },
  ],
};

test("a vendor's catalog, inline or from a URL, drives the picker and the grid", async () => {
  const inline = JSON.stringify(VENDOR).replace(/'/g, '&#39;');
  const url = await hostPage('vendor', '', `<vram-calculator id="v" view="grid" catalog='${inline}'></vram-calculator>
    <vram-calculator id="w" view="fleet" catalog="https://vendor.example/fleet.json"></vram-calculator>
    <vram-calculator id="x" view="fleet" lang="fa" catalog="https://vendor.example/gone.json"></vram-calculator>`);
  const browser = await launch({ offline: true });
  try {
    const { page, context } = browser;
    await context.route('https://vendor.example/fleet.json', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', headers: { 'access-control-allow-origin': '*' }, body: JSON.stringify(VENDOR) }));
    await context.route('https://vendor.example/gone.json', (route) =>
      route.fulfill({ status: 404, contentType: 'text/plain', headers: { 'access-control-allow-origin': '*' }, body: 'Not Found' }));
    await page.goto(url);
    // 7B BF16: the A40 at 0.30 $/hour x 720 hours = $216.
    const cell = '#v tr[data-model="guide-7b"] td[data-method="bf16"] .cell-main';
    await page.locator(cell).waitFor();
    assert.equal(await text(page, cell), '17 GB / A40 $216');
    assert.deepEqual(await page.locator('#v #gpu option').evaluateAll((o) => o.map((x) => x.value)), ['', 'h100-sxm', 'a40']);
    await page.waitForFunction(() => document.querySelector('#w').shadowRoot.querySelectorAll('table.fleet tbody tr').length === 2);
    assert.deepEqual(browser.requests.filter((r) => r.startsWith('http')).sort(), ['https://vendor.example/fleet.json', 'https://vendor.example/gone.json']);
    // A catalog the server does not have is named in the reader's language, with its status; the built-in fleet stays.
    await page.waitForFunction(() => /HTTP/.test(document.querySelector('#x').shadowRoot.querySelector('.notices')?.textContent || ''));
    assert.equal((await text(page, '#x .notices')).replace(/[\u2066-\u2069]/g, ''), 'فهرست کارت‌ها خوانده نشد: سرور پاسخ HTTP ۴۰۴ داد');
    assert.ok(await page.locator('#x table.fleet tbody tr').count() > 10, 'the built-in fleet');
    await screenshot(page, 'embed-vendor-catalog');
    // Chromium logs the 404 it was served on purpose; nothing else.
    assert.deepEqual(browser.errors, ['console: Failed to load resource: the server responded with a status of 404 (Not Found)']);
  } finally {
    await browser.close();
  }
});

test('the Content Security Policy docs/embedding.md gives is enough', async () => {
  // The documented policy, plus what this host page needs for its own data: favicon.
  const csp = `${readFileSync(join(root, 'docs/embedding.md'), 'utf8').match(/Content-Security-Policy: (.+)/)[1]}; img-src data:`;
  const browser = await launch({ offline: true });
  try {
    const { page, context } = browser;
    const files = {
      '/': ['text/html', '<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body><vram-calculator></vram-calculator><script src="/vram-calculator.js"></script></body></html>'],
      '/vram-calculator.js': ['text/javascript', readFileSync(join(root, 'dist/vram-calculator.js'))],
    };
    await context.route('https://csp.example/**', (route) => {
      const [type, body] = files[new URL(route.request().url()).pathname];
      route.fulfill({ status: 200, contentType: type, headers: { 'content-security-policy': csp }, body });
    });
    await page.goto('https://csp.example/');
    await page.locator('vram-calculator .total-value').waitFor();
    assert.equal(await text(page, 'vram-calculator .total-value'), '75 GB');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('link-catalog="off": a page bound to its address takes no catalog from a #catalog= link', async () => {
  const url = await hostPage('link-catalog-off', '', '<vram-calculator id="o" url-state link-catalog="off" view="fleet"></vram-calculator>');
  const browser = await launch({ offline: true, reuse: true });
  try {
    const { page } = browser;
    const cheap = { currency: 'USD', gpus: [{ id: 'h100-sxm', name: 'H100 SXM', vendor: 'NVIDIA', vram_gb: 80, bandwidth_gbps: 3350, hourly_usd: 0.01, memory_type: 'HBM3', architecture: 'Hopper', fp8: true, interconnect: { kind: 'nvlink', gbps: 900, topology: 'switched' } }] };
    await page.goto(`${url}#catalog=${encodeURIComponent(JSON.stringify(cheap))}`);
    await page.locator('#o table.fleet tbody tr').nth(1).waitFor();
    assert.ok((await page.locator('#o table.fleet tbody tr').count()) > 1, "the site's own cards");
    assert.equal(await page.locator('#o .notices p').count(), 0);
    // Taken away, the link's catalog applies (and says so); put back, ignored again.
    await page.evaluate(() => document.querySelector('#o').removeAttribute('link-catalog'));
    await page.locator('#o .notices', { hasText: 'from this link' }).waitFor();
    assert.deepEqual(await page.locator('#o table.fleet tbody tr').evaluateAll((r) => r.map((x) => x.dataset.gpu)), ['h100-sxm']);
    await page.evaluate(() => document.querySelector('#o').setAttribute('link-catalog', 'off'));
    await page.locator('#o table.fleet tbody tr').nth(1).waitFor();
    assert.equal(await page.locator('#o .notices p').count(), 0);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
