// The page under a strict Content-Security-Policy: (a) the single file with
// its own meta policy, from disk; (b) the one-script embed in a host page
// served with the policy docs/embedding.md gives embedders. Both must answer
// with no policy violation reported, and the policy must really be enforced
// (a script injected later is refused), so a test that loses its policy fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtures } from '../js/gguf-writer.mjs';
import { launch, pageFile, pageUrl, root, text } from './harness.mjs';

const EMBEDDER_POLICY = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'unsafe-inline'; worker-src blob:";

/** Records every securitypolicyviolation before any page script runs. */
async function watchViolations(context) {
  await context.addInitScript(() => {
    window.violations = [];
    document.addEventListener('securitypolicyviolation', (event) => {
      window.violations.push(`${event.violatedDirective} blocked ${event.blockedURI || '(inline)'}`);
    });
  });
}

/**
 * An inline script added after load: 'blocked' when the policy holds (and
 * then the one violation it reports is the only one).
 */
const GGUF = { name: 'tiny.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from(fixtures['llama-q4_k_m']().build()) };

async function tryInlineScript(page) {
  const ran = await page.evaluate(async () => {
    const script = document.createElement('script');
    script.textContent = 'window.inlineRan = true;';
    document.head.append(script);
    await new Promise((resolve) => setTimeout(resolve, 50));
    return window.inlineRan === true;
  });
  const violations = await page.evaluate(() => window.violations);
  return ran ? 'allowed' : `blocked, ${violations.length} violation(s): ${violations.join('; ')}`;
}

test('the single file ships a strict CSP meta tag and answers under it', async () => {
  const html = readFileSync(pageFile, 'utf8');
  const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html);
  assert.ok(meta, 'a CSP meta tag');
  const policy = Object.fromEntries(meta[1].split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
  assert.deepEqual(policy['default-src'], ["'none'"]);
  assert.equal(policy['script-src'].length, 2);
  assert.match(policy['script-src'][0], /^'sha256-[A-Za-z0-9+/]{43}='$/);
  assert.equal(policy['script-src'][1], "'wasm-unsafe-eval'");
  assert.ok(!meta[1].includes("'unsafe-eval'"), meta[1]);
  // The only origins the page may fetch from: the Hub, for the model-id field (issue 13).
  assert.deepEqual(policy['connect-src'], ['https://huggingface.co', 'https://*.huggingface.co', 'https://*.hf.co']);
  // The checkpoint reader's Worker, a blob: of the page's own script text (web/src/reader.js).
  assert.deepEqual(policy['worker-src'], ['blob:']);
  assert.ok(html.indexOf(meta[0]) < html.indexOf('<script>'), 'the policy comes before the script');

  const browser = await launch({ offline: true });
  try {
    const { page, context, errors } = browser;
    await watchViolations(context);
    await page.goto(`${pageUrl}?preset=70b-fp8-8k`);
    await page.locator('vram-calculator .total-value').waitFor();
    assert.match(await text(page, 'vram-calculator .total-value'), /^\d+ GB$/);
    assert.deepEqual(await page.evaluate(() => window.violations), []);
    // A GGUF read by the background reader: a blob: Worker from file://, under the page's own policy.
    await page.locator('vram-calculator #config-file').setInputFiles(GGUF);
    await page.waitForFunction(() => /Q6_K/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('#checkpoint-info').textContent));
    assert.deepEqual(await page.evaluate(() => window.violations), []);
    assert.deepEqual(errors, []);
    assert.match(await tryInlineScript(page), /^blocked, 1 violation\(s\): script-src-elem blocked inline$/);
  } finally {
    await browser.close();
  }
});

test('the element from vram-calculator.js answers in a host page served with the strict policy', async () => {
  const script = readFileSync(join(root, 'dist/vram-calculator.js'));
  const host = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host</title></head>
<body><vram-calculator model="guide-7b"></vram-calculator><script src="/vram-calculator.js"></script></body></html>`;
  const browser = await launch();
  try {
    const { page, context, errors, requests } = browser;
    await watchViolations(context);
    // A made-up origin answered from here: real headers, no socket.
    await context.route('http://vram.test/**', (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path === '/host.html') {
        return route.fulfill({ status: 200, contentType: 'text/html', headers: { 'Content-Security-Policy': EMBEDDER_POLICY }, body: host });
      }
      if (path === '/vram-calculator.js') return route.fulfill({ status: 200, contentType: 'text/javascript', body: script });
      return route.fulfill({ status: 404, body: '' });
    });
    await page.goto('http://vram.test/host.html');
    await page.locator('vram-calculator .total-value').waitFor();
    assert.equal(await text(page, 'vram-calculator .total-value'), '10 GB'); // 7B in FP8, the default format
    await page.locator('vram-calculator #config-file').setInputFiles(GGUF);
    await page.waitForFunction(() => /Q6_K/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('#checkpoint-info').textContent));
    assert.deepEqual(await page.evaluate(() => window.violations), []);
    assert.deepEqual(errors, []);
    assert.deepEqual(requests.filter((url) => !url.startsWith('http://vram.test/')), []);
    assert.match(await tryInlineScript(page), /^blocked, 1 violation\(s\): script-src-elem blocked inline$/);
  } finally {
    await browser.close();
  }
});

test('a host policy without worker-src blob: refuses the background reader: a named error, and the calculator still answers', async () => {
  const script = readFileSync(join(root, 'dist/vram-calculator.js'));
  const host = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host</title></head>
<body><vram-calculator model="guide-7b"></vram-calculator><script src="/vram-calculator.js"></script></body></html>`;
  const browser = await launch();
  try {
    const { page, context } = browser;
    await watchViolations(context);
    const strict = EMBEDDER_POLICY.replace('; worker-src blob:', '');
    await context.route('http://vram.test/**', (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path === '/host.html') return route.fulfill({ status: 200, contentType: 'text/html', headers: { 'Content-Security-Policy': strict }, body: host });
      if (path === '/vram-calculator.js') return route.fulfill({ status: 200, contentType: 'text/javascript', body: script });
      return route.fulfill({ status: 404, body: '' });
    });
    await page.goto('http://vram.test/host.html');
    await page.locator('vram-calculator .total-value').waitFor();
    await page.locator('vram-calculator #config-file').setInputFiles(GGUF);
    await page.locator('vram-calculator #config-error').waitFor();
    assert.equal(await text(page, 'vram-calculator #config-error'), 'tiny.gguf could not be read: the page’s security policy blocks the reader (worker-src blob:).');
    assert.ok((await page.evaluate(() => window.violations)).every((v) => /^(worker-src|script-src)/.test(v)), 'only the Worker was refused');
    assert.equal(await text(page, 'vram-calculator .total-value'), '10 GB');
  } finally {
    await browser.close();
  }
});
