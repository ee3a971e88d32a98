// Shared set-up for the browser tests: Debian's Chromium driven by
// playwright-core, a fresh context per test, every request recorded, and
// every console error or page error collected so a test can fail on it.
import { chromium } from 'playwright-core';
import { mkdtemp, rm, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
// VRAM_PAGE runs the page tests against another build of the page.
export const pageFile = process.env.VRAM_PAGE || join(root, 'dist/vram-calculator.html');
export const pageUrl = pathToFileURL(pageFile).href;
export const shotsDir = join(root, 'test-results/screenshots');

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

// One Chromium per test file (node --test runs each file in a process of its
// own), each test in a fresh context of it: a context is as isolated as a
// fresh profile (its own storage, cache, permissions and routes) and opens
// in about 0.4 s where a browser takes about 1 s, 116 times a run. The
// browser closes a moment after its last context, so the file's process
// can end; a test that opens the next context in time keeps it.
const LINGER_MS = 500;
let shared = null;
let open = 0;
let lingering = null;

async function sharedBrowser() {
  clearTimeout(lingering);
  if (!shared) {
    shared = chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ARGS });
    // A browser that failed to start is not kept: the next test tries again.
    shared.catch(() => {
      shared = null;
    });
  }
  return shared;
}

function released() {
  open -= 1;
  if (open > 0 || !shared) return;
  const browser = shared;
  lingering = setTimeout(() => {
    if (open > 0 || shared !== browser) return;
    shared = null;
    browser.then((b) => b.close()).catch(() => {});
  }, LINGER_MS);
}

/**
 * Opens a page in a fresh context. With `offline`, every request that is
 * not file: or data: is aborted. With `fresh`, a browser of its own with a
 * new profile (tools/bench.mjs: a first load timed as a visitor's, with no
 * browser already warm). Returns { context, page, requests, errors, close }.
 */
export async function launch({ offline = false, viewport = { width: 1200, height: 900 }, fresh = false } = {}) {
  let profile = null;
  let context;
  if (fresh) {
    profile = await mkdtemp(join(tmpdir(), 'vram-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ARGS,
      viewport,
    });
  } else {
    open += 1;
    try {
      context = await (await sharedBrowser()).newContext({ viewport });
    } catch (error) {
      released();
      throw error;
    }
  }
  const requests = [];
  const errors = [];
  context.on('request', (request) => requests.push(request.url()));
  if (offline) {
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:') || url.startsWith('data:')) return route.continue();
      return route.abort('internetdisconnected');
    });
  }
  const page = context.pages()[0] || (await context.newPage());
  const watch = (p) => {
    p.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    p.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  };
  watch(page);
  context.on('page', watch);
  let closed = false;
  return {
    context,
    page,
    requests,
    errors,
    async close() {
      if (closed) return;
      closed = true;
      try {
        await context.close();
      } finally {
        if (profile) await rm(profile, { recursive: true, force: true });
        else released();
      }
    },
  };
}

/** Requests that left the machine: anything but file: and data:. */
export function networkRequests(requests) {
  return requests.filter((url) => !url.startsWith('file:') && !url.startsWith('data:'));
}

/** The calculator's shadow root content is reached through its host. */
export function calc(page, selector = 'vram-calculator') {
  return page.locator(selector);
}

/**
 * A screenshot for a person to look at, under test-results/screenshots/:
 * only with VRAM_SCREENSHOTS=1 (`npm run screenshots`). No test reads one,
 * and the 113 full-page PNGs of a run were a third of some files' time
 * (docs/performance.md, "The test suite's time").
 */
export async function screenshot(page, name, { fullPage = true } = {}) {
  if (!process.env.VRAM_SCREENSHOTS) return;
  await mkdir(shotsDir, { recursive: true });
  await page.screenshot({ path: join(shotsDir, `${name}.png`), fullPage });
}

/** Text of the first match inside the calculator's shadow root ('' when none). */
export async function text(page, selector) {
  const locator = page.locator(selector).first();
  return (await locator.count()) ? (await locator.textContent()).trim() : '';
}

/** Waits until `selector` (inside the shadow root) reads `expected`. */
export async function waitForText(page, selector, expected) {
  const host = selector.split(' ')[0];
  const inner = selector.slice(host.length + 1);
  await page.waitForFunction(
    ([h, s, e]) => {
      const node = document.querySelector(h)?.shadowRoot?.querySelector(s);
      return node && node.textContent.trim() === e;
    },
    [host, inner, expected],
    { timeout: 5000 },
  );
}

/**
 * Opens the standalone page with `query` and waits for the first answer.
 * Returns the launch() object; close it when done.
 */
export async function openPage(query = '', options = {}) {
  const browser = await launch({ offline: true, ...options });
  await browser.page.goto(`${pageUrl}${query}`);
  await browser.page.locator('vram-calculator .main').waitFor();
  return browser;
}
