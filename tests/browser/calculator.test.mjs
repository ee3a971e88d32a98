// The calculator view: the answer updates as the user types without losing
// focus, every term shows its math, the bar and fit follow the card, and the
// other inputs (search, custom shape, engine, mode, units) reach the core.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, pageUrl, screenshot, text, waitForText } from './harness.mjs';
import { core } from '../js/module.mjs';

const TOTAL = 'vram-calculator .total-value';

/** Waits until the element `selector` in the calculator's shadow root has text matching `pattern`. */
const waitForMatch = (page, selector, pattern) => page.waitForFunction(
  ([sel, re]) => new RegExp(re).test(document.querySelector('vram-calculator').shadowRoot.querySelector(sel)?.textContent || ''),
  [selector, pattern], { timeout: 5000 });

test('typing "32k" in the context commits 32,768 tokens after a pause and keeps focus; a bad value changes nothing', async () => {
  const browser = await openPage('?model=guide-70b&weights=fp8&context=8192&batch=1&gpu=h100-sxm');
  try {
    const { page } = browser;
    assert.equal(await text(page, TOTAL), '75 GB');
    const context = page.locator('vram-calculator #context');
    await context.click();
    await context.press('Control+A');
    await page.keyboard.type('32k');
    await waitForText(page, TOTAL, '83 GB');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('context') === '32768');
    const focused = await page.evaluate(() => document.querySelector('vram-calculator').shadowRoot.activeElement.id);
    assert.equal(focused, 'context');
    assert.equal(await context.inputValue(), '32k');
    // 83 GB no longer fits an 80 GB card (SPEC section 1, worked example).
    assert.equal(await page.locator('vram-calculator .fit').getAttribute('data-fits'), 'false');
    // Anything else: an inline error on change, and the answer stays.
    // A key no number has is not typed at all; a malformed number is named.
    await page.keyboard.type('x');
    assert.equal(await context.inputValue(), '32k');
    await context.fill('32kk');
    await context.press('Enter');
    assert.match(await text(page, 'vram-calculator #context-error'), /'32kk' is not a number like 32k/);
    assert.equal(await context.getAttribute('aria-invalid'), '');
    assert.equal(await text(page, TOTAL), '83 GB');
    // A negative context is out of range, not "not a number" (issue 41).
    await context.fill('-5');
    await context.press('Enter');
    assert.match(await text(page, 'vram-calculator #context-error'), /must be between 1 and/);
    assert.equal(await text(page, TOTAL), '83 GB');
    await context.fill('');
    await context.press('Enter');
    assert.match(await text(page, 'vram-calculator #context-error'), /whole number/);
    assert.equal(await text(page, TOTAL), '83 GB');
    // Arabic-Indic digits with the Arabic thousands separator: ٨٬١٩٢.
    await context.fill('\u0668\u066c\u0661\u0669\u0662');
    await context.press('Enter');
    await waitForText(page, TOTAL, '75 GB');
    assert.equal(await page.locator('vram-calculator #context-error').isHidden(), true);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('a link written by hand reads its numbers as the fields do: context=32k is 32,768 tokens', async () => {
  const browser = await openPage('?model=guide-70b&weights=fp8&context=32k&batch=1&gpu=h100-sxm');
  try {
    const { page } = browser;
    assert.equal(await text(page, TOTAL), '83 GB');
    assert.equal(await page.locator('vram-calculator #context').inputValue(), '32768');
    assert.equal(await page.locator('vram-calculator .notices .notice').count(), 0, 'nothing to report');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('typing "1e5" never commits the intermediate 1; the quick picks set common sizes', async () => {
  const browser = await openPage('?model=guide-7b&weights=fp8&context=8192&gpu=');
  try {
    const { page } = browser;
    await page.evaluate(() => {
      window.contexts = [];
      document.querySelector('vram-calculator').addEventListener('vram-change', (e) => window.contexts.push(e.detail.state.context));
    });
    const context = page.locator('vram-calculator #context');
    await context.fill('');
    await context.pressSequentially('1e5', { delay: 150 });
    await page.waitForFunction(() => window.contexts.includes(100000));
    await context.press('Tab');
    const seen = await page.evaluate(() => window.contexts);
    assert.ok(!seen.includes(1), `committed ${seen}`);
    // The address is written after the answer is drawn, in a task of its own.
    await page.waitForFunction(() => new URL(location.href).searchParams.get('context') === '100000');
    const pick = page.locator('vram-calculator .picks button', { hasText: '128k' });
    await pick.click();
    await page.waitForFunction(() => new URL(location.href).searchParams.get('context') === '131072');
    assert.equal(await pick.getAttribute('aria-pressed'), 'true');
    assert.equal(await context.inputValue(), '131072');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('every term shows its formula and inputs, and open details survive a recompute', async () => {
  const browser = await openPage('?model=guide-70b&weights=fp8&gpu=h100-pcie');
  try {
    const { page } = browser;
    const terms = page.locator('vram-calculator table.terms tbody tr');
    assert.deepEqual(await terms.evaluateAll((rows) => rows.map((r) => r.dataset.term)), ['weights', 'kv_cache', 'overhead']);
    const kv = page.locator('vram-calculator tr[data-term=kv_cache] details');
    assert.match(await kv.locator('summary').textContent(), /80 global layers x 8 KV heads x \(128 K \+ 128 V\) x 2\.000 bytes x 8,192 tokens/);
    await kv.locator('summary').click();
    assert.match(await kv.locator('dl').textContent(), /Context \(tokens\)8,192/);
    // The weights' storage: one nested fact list per part, worded, not JSON.
    const weights = page.locator('vram-calculator tr[data-term=weights] details');
    await weights.locator('summary').click();
    const storage = await weights.locator('dl').first().textContent();
    assert.match(storage, /Storage, part by part/);
    assert.match(storage, /Part of the modelall parameters/);
    assert.doesNotMatch(storage, /[{}"]/);
    await page.locator('vram-calculator #batch').fill('32');
    await waitForText(page, 'vram-calculator tr[data-term=kv_cache] td.num', '85.9 GB');
    assert.equal(await page.locator('vram-calculator tr[data-term=kv_cache] details').getAttribute('open'), '');
    // The bar: one segment per term and the card's capacity line.
    assert.equal(await page.locator('vram-calculator .bar-track .seg').count(), 3);
    assert.equal(await page.locator('vram-calculator .bar-track .capacity').count(), 1);
    assert.match(await page.locator('vram-calculator .bar-track').getAttribute('aria-label'), /158 GB against 80 GB/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('a recompute patches the answer in place: the same elements, focus kept, open details showing the new inputs', async () => {
  const browser = await openPage('?model=guide-70b&weights=fp8&gpu=h100-pcie');
  try {
    const { page } = browser;
    const kv = page.locator('vram-calculator tr[data-term=kv_cache] details');
    await kv.locator('summary').click();
    assert.match(await kv.locator('dl').textContent(), /Context \(tokens\)8,192/);
    // Mark the live elements, focus the terms table, then change the context
    // as the field commits it, with the focus left where it is.
    await page.evaluate(() => {
      const root = document.querySelector('vram-calculator').shadowRoot;
      root.querySelector('tr[data-term=kv_cache] details').probe = 'kv';
      root.querySelector('table.terms').closest('.scroll').probe = 'terms';
      root.querySelector('table.terms').closest('.scroll').focus();
      const input = root.getElementById('context');
      input.value = '16384';
      input.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await waitForMatch(page, 'tr[data-term=kv_cache] details dl', 'Context \\(tokens\\)16,384');
    const kept = await page.evaluate(() => {
      const root = document.querySelector('vram-calculator').shadowRoot;
      return {
        details: root.querySelector('tr[data-term=kv_cache] details').probe,
        open: root.querySelector('tr[data-term=kv_cache] details').open,
        region: root.querySelector('table.terms').closest('.scroll').probe,
        focused: root.activeElement && root.activeElement.probe,
        summary: root.querySelector('tr[data-term=kv_cache] summary').textContent,
      };
    });
    assert.deepEqual({ ...kept, summary: undefined }, { details: 'kv', open: true, region: 'terms', focused: 'terms', summary: undefined });
    assert.match(kept.summary, /16,384 tokens/);
    // Closed again, it stays closed through the next change, and opens on the newest inputs.
    await kv.locator('summary').click();
    await page.locator('vram-calculator #batch').fill('4');
    await waitForText(page, 'vram-calculator tr[data-term=kv_cache] td.num', '21.5 GB');
    assert.equal(await kv.getAttribute('open'), null);
    await kv.locator('summary').click();
    assert.match(await kv.locator('dl').textContent(), /Context \(tokens\)16,384/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('fit, tight, decode ceilings and inverse answers follow the card', async () => {
  const browser = await openPage('?model=guide-13b&weights=fp8&gpu=l4');
  try {
    const { page } = browser;
    // 13B FP8 on an L4: 22 GB, 2 GB spare: tight (SPEC section 3).
    assert.equal(await text(page, TOTAL), '22 GB');
    assert.equal(await page.locator('vram-calculator .fit').getAttribute('data-tight'), 'true');
    const facts = await text(page, 'vram-calculator [role=tabpanel]:not([hidden])');
    assert.match(facts, /Decode speed/);
    assert.match(facts, /Expected per user/);
    // One sequence: "for 1 user", never "for all 1 users".
    assert.match(facts, /Expected for 1 user≈/);
    assert.match(facts, /Time to first token/);
    assert.match(facts, /Longest context/);
    assert.match(facts, /Best weight format that fits/);
    await page.locator('vram-calculator #gpu').selectOption('');
    await page.locator('vram-calculator .total-value').waitFor();
    assert.equal(await page.locator('vram-calculator .fit').count(), 0);
    assert.equal(await page.locator('vram-calculator #gpu_count').isHidden(), true);
    // A gap too small for one decimal keeps its digits: Llama 3.1 70B FP8 at
    // 16k needs 80.03 GB of an 80 GB H100, "0.03 GB short", never "0.0 GB".
    for (const [lang, short] of [['en', '0.03 GB short'], ['ar', 'ينقصها \u20680.03 GB'], ['fa', '\u2068۰٫۰۳ GB\u2069 کم است']]) {
      await page.goto(`${pageUrl}?model=llama-3.1-70b&weights=fp8&context=16384&gpu=h100-sxm&lang=${lang}`);
      await page.locator('vram-calculator .fit').waitFor();
      assert.equal(await page.locator('vram-calculator .fit').getAttribute('data-fits'), 'false');
      assert.ok((await text(page, 'vram-calculator .fit')).includes(short), lang);
      assert.ok((await text(page, 'vram-calculator .answer-fit')).includes(short), lang);
    }
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('the cheapest cards that hold the answer, with spare, tight and decode ceilings per card', async () => {
  const browser = await openPage('?model=guide-13b&weights=fp8&gpu=l4');
  try {
    const { page } = browser;
    const rows = await page.locator('vram-calculator table.fits tbody tr').evaluateAll((trs) =>
      trs.map((tr) => [tr.dataset.gpu, ...[...tr.querySelectorAll('th, td')].map((c) => c.textContent)]));
    // 13B FP8 (22 GB): the L4 is the cheapest FP8 card that holds it, tight (SPEC section 3),
    // at most 300 GB/s / 13 GB read per token.
    assert.deepEqual(rows[0].slice(0, 4), ['l4', '1× L4 tight', '$250', '2.3 GB']);
    // Expected per user, first token, and the ceiling: the core's figures, as shown.
    const answer = (await core()).estimate({ model: 'guide-13b', weights: 'fp8', gpu: 'l4' });
    const l4 = answer.fits.find((f) => f.gpu === 'l4');
    assert.equal(rows[0][4], `≈ ${Math.round(l4.decode_expected_tokens_per_s)} tokens/s`);
    assert.equal(rows[0][5], `${l4.ttft_s.toFixed(2)} s`);
    assert.match(rows[0][6], /≤ 1\d tokens\/s/);
    assert.ok(l4.decode_expected_tokens_per_s < l4.decode_tokens_per_s);
    // No FP8, no row: an A40 would hold 22 GB but cannot run FP8 weights.
    assert.ok(!rows.some((r) => r[0] === 'a40'));
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('model combobox: type, arrows move the highlight, Enter picks it, Escape closes', async () => {
  const browser = await openPage();
  try {
    const { page } = browser;
    const box = page.locator('vram-calculator #model');
    assert.equal(await box.getAttribute('role'), 'combobox');
    assert.equal(await box.getAttribute('aria-expanded'), 'false');
    await box.fill('deepseek');
    assert.equal(await box.getAttribute('aria-expanded'), 'true');
    const options = () => page.locator('vram-calculator #model-list [role=option]').evaluateAll((o) => o.map((x) => x.dataset.value));
    const listed = await options();
    assert.equal(listed[0], 'deepseek-v3');
    assert.ok(listed.includes('deepseek-v2-lite'));
    // The highlight is the active descendant, and the arrows move it.
    const active = () => page.evaluate(() => {
      const root = document.querySelector('vram-calculator').shadowRoot;
      const id = root.querySelector('#model').getAttribute('aria-activedescendant');
      return id ? root.getElementById(id).dataset.value : null;
    });
    assert.equal(await active(), 'deepseek-v3');
    await box.press('ArrowDown');
    assert.equal(await active(), 'deepseek-v2-lite');
    await box.press('ArrowUp');
    assert.equal(await active(), 'deepseek-v3');
    await box.press('Enter');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('model') === 'deepseek-v3');
    assert.equal(await box.getAttribute('aria-expanded'), 'false');
    assert.equal(await box.inputValue(), 'DeepSeek V3 / R1 671B (MoE, MLA)');
    assert.match(await text(page, 'vram-calculator .results .muted'), /DeepSeek V3/);
    // Escape closes without picking; nothing found says so and offers config.json.
    await box.fill('llama 70b');
    await box.press('Escape');
    assert.equal(await box.getAttribute('aria-expanded'), 'false');
    assert.equal(new URL(page.url()).searchParams.get('model'), 'deepseek-v3');
    await box.fill('zzzz');
    assert.match(await text(page, 'vram-calculator #model-status'), /No preset matches “zzzz”/);
    assert.equal(await box.getAttribute('aria-expanded'), 'false');
    await box.press('Enter');
    assert.equal(new URL(page.url()).searchParams.get('model'), 'deepseek-v3');
    await page.locator('vram-calculator .combo button.link').click();
    assert.equal(await page.evaluate(() => document.querySelector('vram-calculator').shadowRoot.activeElement.id), 'config-file');
    // Leaving the box shows the chosen model's name again.
    assert.equal(await box.inputValue(), 'DeepSeek V3 / R1 671B (MoE, MLA)');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('a Hugging Face id pasted in the model box picks its preset, and a format in it sets the weights', async () => {
  const browser = await openPage('?gpu=h200-sxm');
  try {
    const { page } = browser;
    const box = page.locator('vram-calculator #model');
    const params = () => Object.fromEntries(new URL(page.url()).searchParams);
    await box.fill('meta-llama/Llama-3.1-8B-Instruct');
    assert.match(await text(page, 'vram-calculator #model-status'), /1 model matches/);
    await box.press('Enter');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('model') === 'llama-3.1-8b');
    assert.equal(await box.inputValue(), 'Llama 3.1 8B');
    assert.ok(await page.locator('vram-calculator #weights-note').isHidden());
    // The repo of an FP8 checkpoint: Qwen3 32B, and the weights FP8, said beside them.
    await box.fill('Qwen/Qwen3-32B-FP8');
    await box.press('Enter');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('model') === 'qwen3-32b');
    assert.equal(params().weights, 'fp8');
    assert.equal(await page.locator('vram-calculator #weights').inputValue(), 'fp8');
    assert.equal(await text(page, 'vram-calculator #weights-note'), 'Weight format set to FP8: “Qwen/Qwen3-32B-FP8” is that format’s checkpoint.');
    // The figure is the core's for that request.
    const answer = (await core()).estimate({ model: 'qwen3-32b', weights: 'fp8', gpu: 'h200-sxm' });
    assert.equal(await text(page, TOTAL), `${Math.round(answer.total_gb)} GB`);
    // Another model's name keeps the note off.
    await box.fill('qwen3 8b');
    await box.press('Enter');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('model') === 'qwen3-8b');
    assert.ok(await page.locator('vram-calculator #weights-note').isHidden());
    // Under an engine that does not load FP8, the named format moves as an engine change moves it.
    await page.locator('vram-calculator #engine').selectOption('llamacpp');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('engine') === 'llamacpp');
    await box.fill('Qwen/Qwen3-32B-FP8');
    await box.press('Enter');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('model') === 'qwen3-32b');
    assert.equal(params().weights, 'q8_0');
    assert.match(await text(page, 'vram-calculator #weights-note'), /^Weight format moved from FP8 to GGUF Q8_0: llama\.cpp/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('a custom shape, an engine with its options, and the GiB toggle reach the answer', async () => {
  const browser = await openPage('?model=custom&weights=bf16&gpu=');
  try {
    const { page } = browser;
    // Llama 3.1 8B's shape: 8.03 B parameters, 16.1 GB of BF16 + 1.1 GB KV + 2 GB.
    assert.equal(await text(page, TOTAL), '19 GB');
    await page.locator('vram-calculator #layers').fill('64');
    await waitForText(page, TOTAL, '34 GB');
    await page.locator('vram-calculator #params').fill('8');
    await waitForText(page, TOTAL, '20 GB');
    await page.locator('vram-calculator #engine').selectOption('percent');
    const pct = page.locator('vram-calculator [id="opt.overhead_pct"]');
    assert.equal(await pct.inputValue(), '10');
    await pct.fill('50');
    await waitForText(page, TOTAL, '27 GB');
    await page.waitForFunction(() => location.search.includes('opt.overhead_pct=50'));
    await page.locator('vram-calculator #unit').selectOption('GiB');
    await waitForText(page, TOTAL, '25 GiB');
    await screenshot(page, 'calculator-custom-gib');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('vLLM shows its options with their defaults and what it makes of the card', async () => {
  const browser = await openPage('?model=llama-3.1-8b&weights=bf16&engine=vllm&gpu=l4');
  try {
    const { page } = browser;
    assert.equal(await page.locator('vram-calculator [id="opt.gpu_memory_utilization"]').inputValue(), '0.9');
    assert.match(await text(page, 'vram-calculator [role=tabpanel]:not([hidden])'), /What vLLM makes of the card/);
    assert.ok(await page.locator('vram-calculator tr[data-term=activations]').count());
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('fine-tuning modes show their options and an answer', async () => {
  // The guide's SPEC 2 rows keep the attention scores (eager attention); the page opens with SDPA.
  const browser = await openPage('?model=guide-7b&mode=qlora&finetune_profile=guide&flash_attention=false');
  try {
    const { page } = browser;
    assert.equal(await page.locator('vram-calculator #lora_rank').isVisible(), true);
    assert.equal(await page.locator('vram-calculator #context').isVisible(), false);
    const panel = 'vram-calculator [role=tabpanel]:not([hidden])';
    await page.locator(`${panel} .total-value`).waitFor();
    // SPEC section 2 under the guide's profile: 7B QLoRA about 10 GB (within 10%).
    const gb = Number((await text(page, `${panel} .total-value`)).replace(/[^\d.]/g, ''));
    assert.ok(gb >= 9 && gb <= 11, `7B QLoRA ${gb} GB`);
    await page.locator('vram-calculator #mode').selectOption('full');
    assert.equal(await page.locator('vram-calculator #lora_rank').isVisible(), false);
    await screenshot(page, 'calculator-finetune');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test("the model's notes appear under its parameter count, and only for models that have them", async () => {
  const browser = await openPage('?model=gpt-oss-120b');
  try {
    const { page } = browser;
    const notes = page.locator('vram-calculator .model-notes li');
    assert.match((await notes.allTextContents()).join('\n'), /5,100,000,000\) leaves out the input embedding/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
  const plain = await openPage('?model=llama-3.1-8b');
  try {
    assert.match(await text(plain.page, TOTAL), /GB$/);
    assert.equal(await plain.page.locator('vram-calculator .model-notes').count(), 0);
  } finally {
    await plain.close();
  }
});

test('the terms as shown add up to the total as shown, in GB and in GiB', async () => {
  const browser = await openPage('?model=guide-13b&weights=bf16&gpu=');
  try {
    const { page } = browser;
    await page.evaluate(() => document.querySelector('vram-calculator').addEventListener('vram-result', (e) => { window.lastResult = e.detail; }));
    const tenths = (s) => Math.round(Number(s.replace(/[^\d.]/g, '')) * 10);
    let naiveMisses = 0;
    for (const unit of ['GB', 'GiB']) {
      await page.locator('vram-calculator #unit').selectOption(unit);
      const perUnit = unit === 'GiB' ? 1e9 / 2 ** 30 : 1;
      for (const model of ['guide-7b', 'guide-13b', 'guide-34b']) {
        await page.locator('vram-calculator #model').fill(model);
        await page.locator('vram-calculator #model').press('Enter');
        for (const context of ['1000', '3333', '8192', '12345', '77777']) {
          await page.evaluate(() => { window.lastResult = null; });
          // Enter commits at once (the pause a typist leaves is the first test's).
          await page.locator('vram-calculator #context').fill(context);
          await page.locator('vram-calculator #context').press('Enter');
          await page.waitForFunction(() => window.lastResult);
          const result = await page.evaluate(() => window.lastResult);
          const terms = (await page.locator('vram-calculator table.terms tbody td.num').allTextContents()).map(tenths);
          const total = tenths(await page.locator('vram-calculator table.terms tfoot td.num').textContent());
          const where = `${model} at ${context} tokens in ${unit}`;
          assert.equal(terms.reduce((a, b) => a + b, 0), total, where);
          // Each term within one unit of its own value...
          result.terms.forEach((term, i) => assert.ok(Math.abs(terms[i] - term.gb * perUnit * 10) < 1, `${where}: ${term.id}`));
          // ...where rounding each alone would not always have added up.
          const naive = result.terms.reduce((sum, term) => sum + Math.round(term.gb * perUnit * 10), 0);
          if (naive !== total) naiveMisses++;
        }
      }
    }
    assert.ok(naiveMisses > 0, 'no case where rounding each term alone misses the total: the test proves nothing');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
