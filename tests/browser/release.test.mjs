// The packed release on a bare host page, as a vendor embeds it: the
// installed package's files served from a CDN-like origin (Playwright
// routing), loaded once as the ES module and once as the classic script
// pinned by the hash in integrity.json; each runs one estimate in English,
// Arabic and Persian and shows the native CLI's figure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultState, estimateRequest } from '../../web/src/state.js';
import { core, estimateFlags } from '../js/module.mjs';
import { installRelease } from '../js/release.mjs';
import { launch, root } from './harness.mjs';

const nativeCli = join(root, 'build/native/vramcalc');
const nativeJson = (...args) => JSON.parse(execFileSync(nativeCli, [...args, '--json'], { encoding: 'utf8' }));

const HOST = 'https://host.example';
const MODEL = 'guide-34b';
// What the element asks the core for this model, by the page's own rule.
const PAGE = { schema: (await core()).schema() };
const REQUEST = estimateRequest({ ...defaultState(PAGE), model: MODEL }, undefined, PAGE);
const expectedAnswer = () => nativeJson('estimate', ...estimateFlags(REQUEST));
const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.html': 'text/html', '.json': 'application/json' };

/** Latin digits for Arabic-Indic and Persian ones, no group separators. */
function plainDigits(text) {
  return text
    .replace(/[\u0660-\u0669]/g, (d) => String(d.charCodeAt(0) - 0x0660))
    .replace(/[\u06f0-\u06f9]/g, (d) => String(d.charCodeAt(0) - 0x06f0))
    .replace(/[,\u066c]/g, '');
}

function hostPage(lang, head, script) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">${head}</head>
<body><h1>A vendor's page</h1><vram-calculator id="calc" lang="${lang}" model="${MODEL}"></vram-calculator>
<p id="answer"></p>${script}</body></html>`;
}

// The host shows the answer from the element's event, in its own page. It
// listens before the script runs: from the cache, the core can be ready
// before a later <script> on the page runs.
const SHOW = `const calc = document.getElementById('calc');
calc.addEventListener('vram-ready', (e) => { window.vramReady = e.detail; });
calc.addEventListener('vram-result', (e) => {
  window.vramAnswer = e.detail;
  document.getElementById('answer').textContent = Math.round(e.detail.total_gb) + ' GB';
});`;

/** Serves the installed package under `${cdn}/` and the host pages under HOST. */
async function open(release, pages) {
  const browser = await launch({ offline: true });
  const cdn = `https://cdn.example/vram-calculator@${release.version}`;
  await browser.context.route('https://cdn.example/**', (route) => {
    const path = new URL(route.request().url()).pathname;
    const prefix = `/vram-calculator@${release.version}/`;
    if (!path.startsWith(prefix)) return route.fulfill({ status: 404, body: 'not found' });
    const file = path.slice(prefix.length);
    if (!(file in release.integrity)) return route.fulfill({ status: 404, body: 'not found' });
    return route.fulfill({
      status: 200,
      contentType: TYPES[file.slice(file.lastIndexOf('.'))] || 'application/octet-stream',
      headers: { 'access-control-allow-origin': '*' },
      body: readFileSync(join(release.pkg, file)),
    });
  });
  await browser.context.route(`${HOST}/**`, (route) => {
    const html = pages[new URL(route.request().url()).pathname];
    return html ? route.fulfill({ status: 200, contentType: 'text/html', body: html(cdn) }) : route.fulfill({ status: 404, body: '' });
  });
  return browser;
}

/** Waits for the answer; checks the figure, the language, the versions. */
async function checkAnswer(page, lang, release) {
  const expected = expectedAnswer();
  const presets = nativeJson('models');
  await page.locator('#calc .total-value').waitFor();
  await page.waitForFunction(() => window.vramAnswer !== undefined);
  assert.deepStrictEqual(await page.evaluate(() => window.vramAnswer), expected, `${lang}: the event carries the CLI's JSON`);
  const rounded = String(Math.round(expected.total_gb));
  assert.equal(await page.locator('#answer').textContent(), `${rounded} GB`);
  const shown = plainDigits(await page.locator('#calc .total-value').textContent());
  assert.match(shown, new RegExp(`(^|\\D)${rounded}(\\D|$)`), `${lang}: the element shows ${rounded}: '${shown}'`);
  const frame = await page.evaluate(() => {
    const el = document.getElementById('calc');
    const f = el.shadowRoot.querySelector('[lang]'); // the element's frame
    return { lang: f.lang, dir: f.dir, version: el.version, dataVersions: el.dataVersions };
  });
  assert.equal(frame.lang, lang);
  assert.equal(frame.dir, lang === 'en' ? 'ltr' : 'rtl');
  assert.equal(frame.version, release.version);
  assert.deepStrictEqual(frame.dataVersions, presets.data_versions);
  assert.deepStrictEqual(await page.evaluate(() => window.vramReady), { version: release.version, dataVersions: presets.data_versions });
}

const LANGS = ['en', 'ar', 'fa'];

test('the classic script, pinned by its integrity hash, in en, ar and fa', async () => {
  const release = await installRelease();
  const hash = release.integrity['vram-calculator.js'];
  const pages = {};
  for (const lang of LANGS) {
    pages[`/classic-${lang}.html`] = (cdn) =>
      hostPage(lang, '', `<script>${SHOW}</script><script src="${cdn}/vram-calculator.js" integrity="${hash}" crossorigin="anonymous"></script>`);
  }
  const browser = await open(release, pages);
  try {
    for (const lang of LANGS) {
      const page = lang === 'en' ? browser.page : await browser.context.newPage();
      await page.goto(`${HOST}/classic-${lang}.html`);
      await checkAnswer(page, lang, release);
      // The script defines the element and nothing else on the page.
      assert.equal(await page.evaluate(() => typeof window.createVramModule), 'undefined');
    }
    assert.deepStrictEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('the ES module: the element and the call API, in en, ar and fa', async () => {
  const release = await installRelease();
  const module = (cdn) => `<script type="module">
import { defineVramCalculator, estimate, version } from '${cdn}/vram-calculator.mjs';
${SHOW}
defineVramCalculator();
window.moduleVersion = version;
window.direct = await estimate(${JSON.stringify(REQUEST)});
</script>`;
  const pages = {};
  for (const lang of LANGS) pages[`/module-${lang}.html`] = (cdn) => hostPage(lang, '', module(cdn));
  const browser = await open(release, pages);
  try {
    for (const lang of LANGS) {
      const page = lang === 'en' ? browser.page : await browser.context.newPage();
      await page.goto(`${HOST}/module-${lang}.html`);
      await checkAnswer(page, lang, release);
      await page.waitForFunction(() => window.direct !== undefined);
      assert.deepStrictEqual(await page.evaluate(() => window.direct), expectedAnswer());
      assert.equal(await page.evaluate(() => window.moduleVersion), release.version);
    }
    assert.deepStrictEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('a script that does not match its integrity hash is refused', async () => {
  const release = await installRelease();
  // The hash of another shipped file: well formed, but not this script's.
  const wrong = release.integrity['vram-calculator.mjs'];
  assert.notEqual(wrong, release.integrity['vram-calculator.js']);
  const page = (cdn) => hostPage('en', '', `<script src="${cdn}/vram-calculator.js" integrity="${wrong}" crossorigin="anonymous"></script>`);
  const browser = await open(release, { '/tampered.html': page });
  try {
    await browser.page.goto(`${HOST}/tampered.html`);
    await browser.page.waitForLoadState('load');
    assert.equal(await browser.page.evaluate(() => customElements.get('vram-calculator')), undefined);
    assert.ok(browser.errors.some((e) => /integrity/i.test(e)), browser.errors.join('\n'));
  } finally {
    await browser.close();
  }
});
