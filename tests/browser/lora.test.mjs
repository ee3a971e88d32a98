// Multi-LoRA serving on the page (issue 42 part 2): eight adapters on one
// vLLM or SGLang server, typed into the engine's options, show as a term of
// the card with the core's figure, come off the KV room, go into the command
// and the address, and read in Persian at a phone's width.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, screenshot, text } from './harness.mjs';
import { core } from '../js/module.mjs';

const LAUNCH = 'vram-calculator section.launch';
const TERMS = 'vram-calculator table.terms';
const REQUEST = { model: 'llama-3.1-8b', weights: 'bf16', context: 8192, engine: 'vllm', gpu: 'h100-sxm' };
const query = (q) => `?${new URLSearchParams(q)}`;

async function commandHas(page, part) {
  await page.waitForFunction(
    (p) => document.querySelector('vram-calculator').shadowRoot.querySelector('section.launch')?.textContent.includes(p),
    part,
  );
}

test('Eight LoRA adapters typed under vLLM: a term with the core\'s figure, the command and the address carry them', async () => {
  const calc = await core();
  const plain = calc.estimate(REQUEST);
  const lora = calc.estimate({ ...REQUEST, engine_options: { max_loras: 8, max_lora_rank: 64 } });
  const slots = lora.terms.find((t) => t.id === 'lora_slots');
  assert.ok(slots && slots.gb > 2);
  assert.ok(lora.kv_budget_gb < plain.kv_budget_gb - 2);
  const browser = await openPage(query(REQUEST));
  try {
    const { page } = browser;
    await page.locator('vram-calculator .options > details').evaluate((el) => { el.open = true; });
    assert.doesNotMatch(await text(page, TERMS), /LoRA/);
    assert.doesNotMatch(await text(page, LAUNCH), /lora/);
    for (const [name, value] of [['max_loras', '8'], ['max_lora_rank', '64']]) {
      const knob = page.locator(`vram-calculator [id="opt.${name}"]`);
      await knob.fill(value);
      await knob.press('Enter');
    }
    await commandHas(page, '--enable-lora --max-loras 8 --max-lora-rank 64');
    await page.waitForFunction(() => location.search.includes('opt.max_loras=8') && location.search.includes('opt.max_lora_rank=64'));
    assert.match(await text(page, TERMS), new RegExp(`LoRA adapter slots${slots.gb.toFixed(1)} GB8 slots × rank 64 × [0-9,]+ values per rank over 32 layers × 2 bytes = ${slots.gb.toFixed(2)} GB`));
    // A reload, as a link sent to a friend opens, gives the same.
    await page.reload();
    await page.locator(LAUNCH).waitFor();
    assert.match(await text(page, TERMS), new RegExp(`LoRA adapter slots${slots.gb.toFixed(1)} GB8 slots × rank 64 × [0-9,]+ values per rank over 32 layers × 2 bytes = ${slots.gb.toFixed(2)} GB`));
    assert.match(await text(page, LAUNCH), /--enable-lora --max-loras 8 --max-lora-rank 64/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('SGLang\'s adapter pool in Persian at 390 px: the term in Persian, the command in Latin', async () => {
  const q = { ...REQUEST, engine: 'sglang', 'opt.max_loras': 8, lang: 'fa' };
  const browser = await openPage(query(q), { viewport: { width: 390, height: 844 } });
  try {
    const { page } = browser;
    await page.locator(LAUNCH).waitFor();
    // Without the isolates that keep each Latin run in the reader's order.
    assert.match((await text(page, TERMS)).replace(/[\u2066-\u2069]/g, ''), /جایگاه‌های آداپتور LoRA/);
    assert.match(await text(page, LAUNCH), /--enable-lora --max-lora-rank 16 --lora-target-modules all/);
    await page.locator(TERMS).scrollIntoViewIfNeeded();
    await screenshot(page, 'lora-sglang-fa-390', { fullPage: false });
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
