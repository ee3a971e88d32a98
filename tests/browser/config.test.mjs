// A config.json dropped, chosen or pasted: read with JSON.parse only, sized
// by the core, kept in the link; a malformed file and a file the core cannot
// use each say what is wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openPage, root, screenshot, text } from './harness.mjs';

const llama = readFileSync(join(root, 'tests/configs/llama-3.1-8b/config.json'), 'utf8');
const SUMMARY = 'vram-calculator .results > p.muted';

/** Drops a file on the inputs panel the way a browser does: a DataTransfer with a File. */
async function drop(page, name, content) {
  const dataTransfer = await page.evaluateHandle(([n, c]) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([c], n, { type: 'application/json' }));
    return transfer;
  }, [name, content]);
  await page.locator('vram-calculator form.inputs').dispatchEvent('dragover', { dataTransfer });
  await page.locator('vram-calculator form.inputs').dispatchEvent('drop', { dataTransfer });
}

test('a dropped config.json is sized, and the link carries it', async () => {
  const browser = await openPage('?weights=bf16&gpu=');
  try {
    const { page } = browser;
    await drop(page, 'config.json', llama);
    await page.waitForFunction(() => new URL(location.href).searchParams.get('model') === 'config');
    assert.equal(await page.locator('vram-calculator #model').inputValue(), 'Imported config.json');
    // Llama 3.1 8B: 8,030,261,248 parameters, 16.1 GB BF16 + 1.1 GB KV + 2 GB.
    assert.match(await text(page, SUMMARY), /8,030,261,248 parameters/);
    assert.equal(await text(page, 'vram-calculator .total-value'), '19 GB');
    await page.reload();
    await page.locator('vram-calculator .total-value').waitFor();
    assert.match(await text(page, SUMMARY), /8,030,261,248 parameters/);
    await screenshot(page, 'config-dropped');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('a chosen file works too, and a malformed one names its problem', async () => {
  const browser = await openPage('?gpu=');
  try {
    const { page } = browser;
    const input = page.locator('vram-calculator #config-file');
    await input.setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"hidden_size": 4096,,}') });
    await page.locator('vram-calculator #config-error').waitFor();
    assert.match(await text(page, 'vram-calculator #config-error'), /^broken\.json is not valid JSON \(at line 1, column 22\)/);
    assert.equal(await page.locator('vram-calculator #model').inputValue(), '70B (guide shape)');
    await input.setInputFiles({ name: 'list.json', mimeType: 'application/json', buffer: Buffer.from('[1]') });
    await page.waitForFunction(() => /list\.json must be a JSON object/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('#config-error').textContent));
    await input.setInputFiles({ name: 'config.json', mimeType: 'application/json', buffer: Buffer.from(llama) });
    await page.waitForFunction(() => document.querySelector('vram-calculator').shadowRoot.querySelector('#config-error').hidden);
    assert.match(await text(page, SUMMARY), /8,030,261,248 parameters/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test("a pasted config the core cannot use shows the core's named field error", async () => {
  const browser = await openPage('?gpu=');
  try {
    const { page } = browser;
    await page.locator('vram-calculator details.paste summary').click();
    await page.locator('vram-calculator #config-text').fill('{"model_type": "llama", "hidden_size": 4096}');
    const error = page.locator('vram-calculator [role=tabpanel]:not([hidden]) .error');
    await error.waitFor();
    // Every field it lacks, each once, by its label (issue 41).
    assert.equal(await error.textContent(), 'config.json num_hidden_layers, config.json num_attention_heads, config.json vocab_size are required');
    await screenshot(page, 'config-error');
    // Focus stayed in the text area while the answer changed.
    assert.equal(await page.evaluate(() => document.querySelector('vram-calculator').shadowRoot.activeElement.id), 'config-text');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('a config error goes when another model is chosen: no stale line under the next answer', async () => {
  const browser = await openPage('?gpu=');
  try {
    const { page } = browser;
    await page.locator('vram-calculator details.paste summary').click();
    await page.locator('vram-calculator #config-text').fill('{"model_type": "llama",, }');
    await page.locator('vram-calculator #config-error').waitFor();
    assert.match(await text(page, 'vram-calculator #config-error'), /not valid JSON/);
    await page.locator('vram-calculator #model').fill('Qwen3 32B');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('model') === 'qwen3-32b');
    assert.equal(await page.locator('vram-calculator #config-error').isHidden(), true);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
