// Shared set-up for the browser tests: Debian's Chromium driven by
// playwright-core, a tab per test (a fresh context, or a tab of the file's
// own that the tests take in turn: openPage), every request recorded, and
// every console error or page error collected so a test can fail on it.
import { after } from 'node:test';
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
// own), each test in a context of it, fresh (launch) or a tab of the file's
// that an earlier test gave back (openPage; see `idle` below): a context is
// as isolated as a fresh profile (its own storage, cache, permissions and
// routes) and opens in about 0.4 s where a browser takes about 1 s. The
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

// Tabs the tests of a file take in turn (launch's `reuse`). A page in a new
// context took about 0.85 CPU-seconds here (Chromium starts a renderer
// process for it), the same page in a tab that had loaded it before about
// 0.2 (docs/performance.md, "The browser files' tabs"). Most tests only
// load a page by its address and read it or use its controls, and a page
// by its address is a new document in any tab: the page keeps nothing in
// storage, so the tab carries nothing of the test before but its cache. A
// test that changes the context itself (its routes, init scripts, media)
// takes a fresh one; one that needs permissions asks for them (launch's
// `permissions`) and gets a tab that only tests asking the same take. A tab
// handed back loses its page's routes and any other page of its context,
// goes to about:blank (its page's timers and Workers end there) and waits
// for the next test; with none in IDLE_MS, or once the file's last test
// has ended, it closes.
const IDLE_MS = 5000;
const idle = [];
const tabs = new Set();

// Under node --test (a file's process has NODE_TEST_CONTEXT set) the tabs
// close as the file's tests end, rather than IDLE_MS later, and so does one
// that a failed test never gave back; a tool that imports this file
// (tools/bench.mjs) has no tests and no hook.
if (process.env.NODE_TEST_CONTEXT) {
  after(async () => {
    idle.splice(0);
    await Promise.all([...tabs].map((tab) => closeTab(tab).catch(() => {})));
  });
}

async function newTab({ offline, viewport, permissions }) {
  open += 1;
  let context;
  try {
    context = await (await sharedBrowser()).newContext({ viewport, permissions });
  } catch (error) {
    released();
    throw error;
  }
  const tab = { context, kind: kindOf({ offline, permissions }), page: null, requests: [], errors: [] };
  tabs.add(tab);
  context.on('request', (request) => tab.requests.push(request.url()));
  if (offline) await context.route('**/*', offlineRoute);
  tab.page = context.pages()[0] || (await context.newPage());
  const watch = (p) => {
    p.on('console', (message) => {
      if (message.type() === 'error') tab.errors.push(`console: ${message.text()}`);
    });
    p.on('pageerror', (error) => tab.errors.push(`pageerror: ${error.message}`));
  };
  watch(tab.page);
  context.on('page', watch);
  return tab;
}

async function closeTab(tab) {
  if (!tabs.delete(tab)) return;
  try {
    await tab.context.close();
  } finally {
    released();
  }
}

/** Tabs are taken only by tests that ask for the same: offline or not, the same permissions. */
const kindOf = ({ offline, permissions }) => JSON.stringify([offline, [...permissions].sort()]);

async function takeTab({ offline, viewport, permissions }) {
  clearTimeout(lingering);
  const kind = kindOf({ offline, permissions });
  const at = idle.findIndex((t) => t.kind === kind);
  if (at < 0) return newTab({ offline, viewport, permissions });
  const [tab] = idle.splice(at, 1);
  // The size asked for, whatever size the test before left it at.
  const size = tab.page.viewportSize();
  if (size?.width !== viewport.width || size?.height !== viewport.height) await tab.page.setViewportSize(viewport);
  tab.requests = [];
  tab.errors = [];
  return tab;
}

async function giveBack(tab) {
  try {
    // Anything the test opened beside its tab (a popup, a second page) closes.
    for (const p of tab.context.pages()) if (p !== tab.page) await p.close();
    // Routes the test set on its page end with it.
    await tab.page.unrouteAll({ behavior: 'ignoreErrors' });
    await tab.page.goto('about:blank');
    await tab.page.mouse.move(0, 0);
  } catch {
    await closeTab(tab).catch(() => {});
    return;
  }
  tab.requests = [];
  tab.errors = [];
  idle.push(tab);
  clearTimeout(tab.linger);
  tab.linger = setTimeout(() => {
    const at = idle.indexOf(tab);
    if (at >= 0) idle.splice(at, 1)[0] && closeTab(tab).catch(() => {});
  }, IDLE_MS);
}

function offlineRoute(route) {
  const url = route.request().url();
  if (url.startsWith('file:') || url.startsWith('data:')) return route.continue();
  return route.abort('internetdisconnected');
}

/**
 * Opens a page in a fresh context. With `offline`, every request that is
 * not file: or data: is aborted. With `fresh`, a browser of its own with a
 * new profile (tools/bench.mjs: a first load timed as a visitor's, with no
 * browser already warm). With `reuse`, a tab of the file's that an earlier
 * test gave back, at about:blank, where there is one (the test must not
 * change its context: see `idle` above). `permissions` are granted to the
 * context from the start (['clipboard-read', 'clipboard-write']); a tab is
 * taken only by a test that asks for the same. Returns { context, page,
 * requests, errors, close }.
 */
export async function launch({ offline = false, viewport = { width: 1200, height: 900 }, fresh = false, reuse = false, permissions = [] } = {}) {
  if (reuse && !fresh) {
    const tab = await takeTab({ offline, viewport, permissions });
    clearTimeout(tab.linger);
    let given = false;
    return {
      context: tab.context,
      page: tab.page,
      get requests() {
        return tab.requests;
      },
      get errors() {
        return tab.errors;
      },
      async close() {
        if (given) return;
        given = true;
        await giveBack(tab);
      },
    };
  }
  let profile = null;
  let context;
  if (fresh) {
    profile = await mkdtemp(join(tmpdir(), 'vram-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ARGS,
      viewport,
      permissions,
    });
  } else {
    open += 1;
    try {
      context = await (await sharedBrowser()).newContext({ viewport, permissions });
    } catch (error) {
      released();
      throw error;
    }
  }
  const requests = [];
  const errors = [];
  context.on('request', (request) => requests.push(request.url()));
  if (offline) await context.route('**/*', offlineRoute);
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

/** The permissions a test that copies to the clipboard and reads it back asks for. */
export const CLIPBOARD = ['clipboard-read', 'clipboard-write'];

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
 * Opens the standalone page with `query` and waits for the first answer,
 * in a tab of the file's that an earlier test gave back (launch's `reuse`)
 * unless `own` asks for a fresh context (a test that adds routes,
 * permissions or listeners to it). Returns the launch() object; close it
 * when done.
 */
export async function openPage(query = '', { own = false, ...options } = {}) {
  const browser = await launch({ offline: true, reuse: !own, ...options });
  await browser.page.goto(`${pageUrl}${query}`);
  await browser.page.locator('vram-calculator .main').waitFor();
  return browser;
}
