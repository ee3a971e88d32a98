// A checkpoint's files on the page: a GGUF chosen or dropped is read by its
// header alone, its type mix shown and its bytes used as the weights; split
// parts sum; safetensors need their config; a hostile file gets the core's
// named error and the page keeps working.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtures, splitParts, safetensorsFile } from '../js/gguf-writer.mjs';
import { foreign } from '../js/latin.mjs';
import { openPage, screenshot, text } from './harness.mjs';

const INFO = 'vram-calculator #checkpoint-info';
const ERROR = 'vram-calculator #config-error';

function shadowText(page, selector) {
  return page.evaluate((s) => document.querySelector('vram-calculator').shadowRoot.querySelector(s)?.textContent ?? '', selector);
}

test('a chosen GGUF: its header is read, its type mix shown, its bytes are the weights', async () => {
  const browser = await openPage('?gpu=');
  try {
    const { page } = browser;
    const bytes = fixtures['llama-q4_k_m']().build();
    await page.locator('vram-calculator #config-file').setInputFiles({ name: 'tiny-Q4_K_M.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
    await page.waitForFunction(() => /Q6_K/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('#checkpoint-info').textContent));
    assert.match(await text(page, INFO), /gguf, 1 file\): Q6_K 0\.00 GB, Q4_K 0\.00 GB, F32 0\.00 GB/);
    assert.equal(await page.locator('vram-calculator #model').inputValue(), 'tiny-Q4_K_M.gguf');
    // The weights term is the file's tensors, type by type.
    await page.waitForFunction(() => /bits \/ 8 \(Q6_K\) \+ .* bits \/ 8 \(Q4_K\)/.test(document.querySelector('vram-calculator').shadowRoot.textContent));
    await screenshot(page, 'checkpoint-gguf');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('split GGUF parts sum; a missing part is named', async () => {
  const browser = await openPage('?gpu=');
  try {
    const { page } = browser;
    const parts = splitParts(3).map((b, i) => ({ name: `m-0000${i + 1}-of-00003.gguf`, mimeType: 'application/octet-stream', buffer: Buffer.from(b) }));
    const input = page.locator('vram-calculator #config-file');
    await input.setInputFiles([parts[0], parts[2]]);
    await page.waitForFunction(() => !document.querySelector('vram-calculator').shadowRoot.querySelector('#config-error').hidden);
    assert.match(await shadowText(page, '#config-error'), /split in 3 parts; 2 given/);
    await input.setInputFiles(parts);
    await page.waitForFunction(() => /3 files/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('#checkpoint-info').textContent));
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('safetensors need their config; a hostile GGUF gets a named error', async () => {
  const browser = await openPage('?gpu=');
  try {
    const { page } = browser;
    const input = page.locator('vram-calculator #config-file');
    const st = safetensorsFile({ 'model.layers.0.self_attn.q_proj.weight': { dtype: 'BF16', shape: [64, 64], data_offsets: [0, 8192] } });
    await input.setInputFiles({ name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from(st) });
    await page.locator(ERROR).waitFor();
    assert.match(await text(page, ERROR), /config\.json too/);
    const config = JSON.stringify({ model_type: 'llama', hidden_size: 64, num_hidden_layers: 1, num_attention_heads: 4, intermediate_size: 128, vocab_size: 64 });
    await input.setInputFiles([
      { name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from(st) },
      { name: 'config.json', mimeType: 'application/json', buffer: Buffer.from(config) },
    ]);
    await page.waitForFunction(() => /BF16/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('#checkpoint-info').textContent));
    // A header claiming 2^64 tensors: refused by name, not read.
    const hostile = Buffer.from(fixtures['gemma2-iq']().build());
    hostile.fill(0xff, 8, 16);
    await input.setInputFiles({ name: 'evil.gguf', mimeType: 'application/octet-stream', buffer: hostile });
    await page.waitForFunction(() => /tensor_count: .* the limit is 131,072/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('#config-error').textContent));
    assert.match(await text(page, ERROR), /^evil\.gguf .*gguf\.tensor_count/);
    // The page still answers.
    assert.match(await text(page, 'vram-calculator .total-value'), /GB/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

for (const lang of ['ar', 'fa']) {
  test(`${lang}: a header the core refuses is refused in ${lang}, from the core's message id, not its English`, async () => {
    const browser = await openPage(`?gpu=&lang=${lang}`);
    try {
      const { page } = browser;
      // A header claiming 2^64 tensors, as above.
      const hostile = Buffer.from(fixtures['gemma2-iq']().build());
      hostile.fill(0xff, 8, 16);
      await page.locator('vram-calculator #config-file').setInputFiles({ name: 'evil.gguf', mimeType: 'application/octet-stream', buffer: hostile });
      await page.locator(ERROR).waitFor();
      // The file's name and the field the core names (gguf.tensor_count) are quoted as they are.
      const said = (await text(page, ERROR)).replace(/[\u2066-\u2069]/g, '');
      assert.match(said, /^evil\.gguf /);
      assert.match(said, /gguf\.tensor_count/);
      assert.match(said, lang === 'fa' ? /۱۳۱٬۰۷۲/ : /131,072/, said);
      const { words, digits } = foreign([said.replace('evil.gguf', ' ').replaceAll('gguf.tensor_count', ' ')], lang);
      assert.deepEqual(words, [], `${lang}: Latin words outside the glossary in: ${said}`);
      assert.deepEqual(digits, [], `${lang}: Latin digits in: ${said}`);
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  });
}

// The headers are parsed by a Worker (web/src/reader.js), one per read. A
// parse that never ends is stood in for by a Worker whose first 'inspect'
// spins forever: the init script below prepends a listener to the
// Worker's script (a blob: of JavaScript) while window.slowReader is set.
// Its own listener runs after this one, so the parse never starts.
const SPIN_FIRST_INSPECT = () => {
  const createObjectURL = URL.createObjectURL.bind(URL);
  URL.createObjectURL = (blob) => {
    if (window.slowReader && blob instanceof Blob && blob.type === 'text/javascript') {
      const spin = "self.addEventListener('message', (e) => { if (e.data && e.data.op === 'inspect') for (;;); });\n";
      return createObjectURL(new Blob([spin, blob], { type: blob.type }));
    }
    return createObjectURL(blob);
  };
};

const READ_LIMIT_WORDS = {
  en: 'tiny.gguf took longer than the time limit (2 s) to read and was stopped.',
  ar: 'tiny.gguf تجاوزت قراءته المهلة (2 ث) فأُوقفت.',
  fa: 'tiny.gguf خواندنش از مهلت (۲ ث) گذشت و متوقف شد.',
};
const TINY = () => ({ name: 'tiny.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from(fixtures['llama-q4_k_m']().build()) });

/** Every Worker the page makes, and whether it has closed. */
function watchWorkers(page) {
  const workers = [];
  page.on('worker', (worker) => {
    const seen = { closed: false };
    worker.on('close', () => (seen.closed = true));
    workers.push(seen);
  });
  return workers;
}

async function allClosed(page, workers) {
  for (let i = 0; i < 100 && !workers.every((w) => w.closed); i++) await page.waitForTimeout(50);
  return workers;
}

test('a parse that does not end runs beside the page: the page answers clicks while its Worker spins', async () => {
  const browser = await openPage('?gpu=');
  try {
    const { page } = browser;
    const workers = watchWorkers(page);
    await page.evaluate(SPIN_FIRST_INSPECT);
    // A limit far beyond the test: the Worker is still spinning throughout.
    await page.evaluate(() => {
      window.slowReader = true;
      document.querySelector('vram-calculator').readTimeLimit = 600000;
    });
    await page.locator('vram-calculator #config-file').setInputFiles(TINY());
    await page.waitForFunction(() => /Reading the header/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('#checkpoint-info').textContent));
    for (const tab of ['grid', 'devices', 'calculator']) {
      await page.locator(`vram-calculator #tab-${tab}`).click();
      assert.equal(await page.locator(`vram-calculator #tab-${tab}`).getAttribute('aria-selected'), 'true');
    }
    assert.match(await text(page, 'vram-calculator .total-value'), /GB/);
    assert.match(await page.evaluate(() => document.querySelector('vram-calculator').shadowRoot.querySelector('#checkpoint-info').textContent), /Reading the header of 1 file/, 'still reading: the Worker never answered');
    assert.equal(workers.length, 1);
    assert.equal(workers[0].closed, false);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

for (const lang of ['en', 'ar', 'fa']) {
  test(`${lang}: past its time limit the reader's Worker is terminated and the file refused by name; the next read works`, async () => {
    const browser = await openPage(`?gpu=&lang=${lang}`, { viewport: { width: 1366, height: 900 } });
    try {
      const { page } = browser;
      const workers = watchWorkers(page);
      await page.evaluate(SPIN_FIRST_INSPECT);
      await page.evaluate(() => {
        window.slowReader = true;
        document.querySelector('vram-calculator').readTimeLimit = 1500;
      });
      await page.locator('vram-calculator #config-file').setInputFiles(TINY());
      await page.locator(ERROR).waitFor({ timeout: 15000 });
      // The isolates (U+2068, U+2069) the renderer puts around each placeholder right to left aside.
      assert.equal((await text(page, ERROR)).replace(/[\u2066-\u2069]/g, ''), READ_LIMIT_WORDS[lang]);
      assert.deepEqual(await allClosed(page, workers), [{ closed: true }], 'one Worker, terminated');
      await screenshot(page, `checkpoint-time-limit-${lang}-1366`);
      await page.setViewportSize({ width: 390, height: 844 });
      await page.locator(ERROR).scrollIntoViewIfNeeded();
      await screenshot(page, `checkpoint-time-limit-${lang}-390`, { fullPage: false });
      // The page recovers: the same file, read by a fresh Worker, which is let go after.
      await page.evaluate(() => (window.slowReader = false));
      await page.locator('vram-calculator #config-file').setInputFiles([]);
      await page.locator('vram-calculator #config-file').setInputFiles(TINY());
      await page.waitForFunction(() => /Q6_K/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('#checkpoint-info').textContent));
      assert.deepEqual(await allClosed(page, workers), [{ closed: true }, { closed: true }]);
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  });
}

test('a refused file lets its Worker go: each read has a Worker of its own, closed after', async () => {
  const browser = await openPage('?gpu=');
  try {
    const { page } = browser;
    const workers = watchWorkers(page);
    const hostile = Buffer.from(fixtures['gemma2-iq']().build());
    hostile.fill(0xff, 8, 16);
    const input = page.locator('vram-calculator #config-file');
    await input.setInputFiles({ name: 'evil.gguf', mimeType: 'application/octet-stream', buffer: hostile });
    await page.waitForFunction(() => /tensor_count: .* the limit is 131,072/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('#config-error').textContent));
    await input.setInputFiles({ name: 'tiny.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from(fixtures['llama-q4_k_m']().build()) });
    await page.waitForFunction(() => /Q6_K/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('#checkpoint-info').textContent));
    assert.deepEqual(await allClosed(page, workers), [{ closed: true }, { closed: true }]);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

/**
 * A hostile GGUF of 300 KB: one 60 KB key holding 20,000 empty arrays. A
 * core that spelled each element's field name from the key took seconds
 * over it; today's refuses the key's length by name before it reads on
 * (limits.hpp kMaxNameBytes). Whatever the core takes, the page must not wait.
 */
function slowGguf() {
  const u32 = (v) => Buffer.from(Uint32Array.of(v).buffer);
  const u64 = (v) => Buffer.from(BigUint64Array.of(BigInt(v)).buffer);
  const key = 'k'.repeat(60000);
  const parts = [Buffer.from('GGUF'), u32(3), u64(0), u64(1), u64(key.length), Buffer.from(key), u32(9), u32(9), u64(20000)];
  for (let i = 0; i < 20000; i++) parts.push(u32(0), u64(0));
  return Buffer.concat(parts);
}

test('a hostile GGUF: the page answers while it is read, and the read ends in the core’s named refusal of its 60 KB key', async () => {
  const browser = await openPage('?gpu=');
  try {
    const { page } = browser;
    const workers = watchWorkers(page);
    await page.evaluate(() => (document.querySelector('vram-calculator').readTimeLimit = 3000));
    await page.locator('vram-calculator #config-file').setInputFiles({ name: 'hostile.gguf', mimeType: 'application/octet-stream', buffer: slowGguf() });
    await page.locator('vram-calculator #tab-grid').click();
    assert.equal(await page.locator('vram-calculator #tab-grid').getAttribute('aria-selected'), 'true');
    await page.locator('vram-calculator #tab-calculator').click();
    await page.locator(ERROR).waitFor({ timeout: 15000 });
    // The core's limit on a key's length, by name: never a hang.
    assert.match(await text(page, ERROR), /^hostile\.gguf gguf\.metadata\[0\]\.key: a name of 60,000 bytes; the limit is 1,024/);
    assert.deepEqual(await allClosed(page, workers), [{ closed: true }]);
    assert.match(await text(page, 'vram-calculator .total-value'), /GB/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
