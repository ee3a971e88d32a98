// The inputs as a reader meets them (issue 12): fine-tuning opens on the
// core's defaults (flash attention / SDPA on) and offers precision, loss and
// QLoRA's upcast from the core's schema; every engine knob shows a human
// label and a one-line help, never its key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, screenshot } from './harness.mjs';
import { core } from '../js/module.mjs';

const vram = await core();
const schema = vram.schema();
const field = (name) => schema.requests.estimate.find((f) => f.name === name);

/** The answer strip's total, in GB as shown ("27 GB" to 27). */
async function total(page) {
  return Number((await page.locator('vram-calculator .answer-bar .answer-value').textContent()).replace(/[^\d.]/g, ''));
}

/** Waits for the address to carry `param=value` after a change. */
async function waitForParam(page, param, value) {
  await page.waitForFunction(([p, v]) => new URLSearchParams(location.search).get(p) === v, [param, value]);
}

test('fine-tuning opens with flash attention on, and offers precision, loss and the QLoRA upcast from the schema', async () => {
  assert.equal(field('flash_attention').default, true, "the core's default: SDPA, as transformers");
  const browser = await openPage('?mode=qlora&model=llama-3.1-8b&seq=8192&gpu=rtx-4090', { viewport: { width: 1366, height: 900 } });
  try {
    const { page } = browser;
    const $ = (id) => page.locator(`vram-calculator #${id}`);
    assert.equal(await $('flash_attention').isChecked(), true);
    // The choices are the schema's, each worded (never the raw id).
    for (const name of ['precision', 'loss']) {
      const options = await $(name).locator('option').evaluateAll((els) => els.map((o) => [o.value, o.textContent]));
      assert.deepEqual(options.map(([value]) => value), field(name).choices, name);
      for (const [value, label] of options) assert.ok(label && label !== value && !label.includes('.'), `${name} ${value}: '${label}'`);
      assert.equal(await $(name).inputValue(), field(name).default);
    }
    assert.equal(await $('upcast_unquantized').isVisible(), true, 'QLoRA shows its upcast');
    assert.equal(await $('upcast_unquantized').isChecked(), field('upcast_unquantized').default);
    await screenshot(page, 'inputs-qlora-1366');

    // Each one reaches the core: the total moves the way the physics says, and the link carries it.
    const base = await total(page);
    await $('loss').selectOption('fused');
    await waitForParam(page, 'loss', 'fused');
    const fused = await total(page);
    assert.ok(fused < base, `fused loss keeps no full logits: ${fused} < ${base}`);
    await $('upcast_unquantized').uncheck();
    await waitForParam(page, 'upcast_unquantized', 'false');
    assert.ok((await total(page)) < fused, 'no FP32 upcast of the unquantized parameters');
    await $('flash_attention').uncheck();
    await waitForParam(page, 'flash_attention', 'false');
    const eager = await total(page);
    assert.ok(eager > fused, 'eager attention saves the score matrices');
    await $('precision').selectOption('bf16');
    await waitForParam(page, 'precision', 'bf16');

    // A link opens where it was left.
    await page.reload();
    await page.locator('vram-calculator .main').waitFor();
    assert.equal(await $('loss').inputValue(), 'fused');
    assert.equal(await $('precision').inputValue(), 'bf16');
    assert.equal(await $('upcast_unquantized').isChecked(), false);
    assert.equal(await $('flash_attention').isChecked(), false);

    // LoRA has no quantized base: no upcast to offer.
    await $('mode').selectOption('lora');
    await waitForParam(page, 'mode', 'lora');
    assert.equal(await $('upcast_unquantized').isVisible(), false);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

for (const lang of ['en', 'ar']) {
  test(`every engine knob shows a label and a one-line help, never its key (${lang})`, async () => {
    const engines = Object.keys(schema.engines);
    const browser = await openPage(`?lang=${lang}`, { viewport: { width: 390, height: 844 } });
    try {
      const { page } = browser;
      let knobs = 0;
      for (const engine of engines) {
        await page.locator('vram-calculator #engine').selectOption(engine);
        const details = page.locator('vram-calculator .options > details');
        if (!schema.engines[engine].length) continue;
        await details.evaluate((el) => { el.open = true; });
        for (const knob of schema.engines[engine]) {
          const input = page.locator(`vram-calculator [id="opt.${knob.name}"]`);
          const label = await page.locator(`vram-calculator label[for="opt.${knob.name}"]`).textContent();
          const help = page.locator(`vram-calculator [id="opt.${knob.name}-help"]`);
          const hint = await help.textContent();
          // Words, not the key: the engine's own flag name may appear in them ("(n_ubatch)").
          for (const words of [label, hint]) {
            assert.ok(/\p{L}{3}/u.test(words.replace(knob.name, '')) && !/\bhelp\.|\boption\./.test(words), `${engine} ${knob.name}: '${words}'`);
          }
          assert.notEqual(label, hint);
          assert.match(await input.getAttribute('aria-describedby'), new RegExp(`opt\\.${knob.name}-help`));
          // A switch's help runs under the box and its label, which keeps the width beside the box.
          if ((await input.getAttribute('type')) === 'checkbox') {
            const [field, labelBox, helpBox] = await Promise.all([input.locator('xpath=..').boundingBox(),
              page.locator(`vram-calculator label[for="opt.${knob.name}"]`).boundingBox(), help.boundingBox()]);
            assert.ok(labelBox.width > field.width * 0.6, `${engine} ${knob.name}: label ${labelBox.width} of ${field.width} px`);
            assert.ok(helpBox.width > field.width * 0.95, `${engine} ${knob.name}: help ${helpBox.width} of ${field.width} px`);
          }
          knobs += 1;
        }
        if (engine === 'vllm') await screenshot(page, `inputs-vllm-knobs-390-${lang}`);
      }
      assert.ok(knobs >= 10, `${knobs} knobs checked`);
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  });
}

// Weights the new engine does not load move to the nearest it does, said
// beside the weights (web/src/state.js weightsFor), and the answer then
// carries no format warning; picking weights again clears the line.
for (const [lang, moved] of [['en', /Weight format moved from FP8 to GGUF Q8_0: llama\.cpp \/ Ollama does not load FP8/], ['fa', /دقت وزن‌ها از FP8 به GGUF Q8_0 تغییر کرد/]]) {
  test(`changing the engine to llama.cpp moves FP8 weights to GGUF Q8_0 and says so (${lang})`, async () => {
    const browser = await openPage(`?lang=${lang}&model=llama-3.1-8b&gpu=rtx-4090`, { viewport: { width: 390, height: 844 } });
    try {
      const { page } = browser;
      const weights = page.locator('vram-calculator #weights');
      const note = page.locator('vram-calculator #weights-note');
      assert.equal(await weights.inputValue(), 'fp8');
      assert.equal(await note.isHidden(), true);
      const answer = () => page.evaluate(() => new Promise((resolve) => {
        document.querySelector('vram-calculator').addEventListener('vram-result', (event) => resolve(event.detail), { once: true });
      }));
      const result = answer();
      await page.locator('vram-calculator #engine').selectOption('llamacpp');
      const detail = await result;
      assert.equal(await weights.inputValue(), 'q8_0');
      assert.match((await note.textContent()).replace(/[\u2066-\u2069]/g, ''), moved);
      const ids = (detail.result?.warnings || detail.warnings || []).map((w) => w.id);
      assert.ok(!ids.includes('warning.llamacpp_format'), JSON.stringify(ids));
      await page.waitForFunction(() => /[?&]weights=q8_0\b/.test(window.location.search));
      await screenshot(page, `weights-moved-${lang}-390`);
      // Back to the state before the move: the line goes with it; Forward brings both back.
      await page.goBack();
      await page.waitForFunction(() => document.querySelector('vram-calculator').shadowRoot.getElementById('weights').value === 'fp8');
      assert.equal(await note.isHidden(), true);
      await page.goForward();
      await page.waitForFunction(() => document.querySelector('vram-calculator').shadowRoot.getElementById('weights').value === 'q8_0');
      assert.equal(await note.isHidden(), false);
      await weights.selectOption('q4_k_m');
      await page.waitForFunction(() => document.querySelector('vram-calculator').shadowRoot.getElementById('weights-note').hidden);
      // Back to vLLM: a GGUF type moves to what the RTX 4090 runs (FP8 on Ada).
      await page.locator('vram-calculator #engine').selectOption('vllm');
      const four = await weights.inputValue();
      assert.ok(['int4', 'nf4', 'awq-int4', 'gptq-int4', 'mxfp4'].includes(four), four);
      assert.equal(await note.isHidden(), false);
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  });
}

// A model whose checkpoint is stored narrower than the weights (gpt-oss's
// MXFP4 experts against the page's FP8) is sized as stored, said beside the
// weights (web/src/state.js weightsForModel); FP8 chosen again stays.
for (const [lang, moved] of [['en', /Weight format moved from FP8 to the checkpoint's own: gpt-oss-120b \(MoE, MXFP4\) is stored narrower than FP8/], ['ar', /نُقلت دقة الأوزان من FP8 إلى ما تخزّنه نقطة الحفظ/]]) {
  test(`picking gpt-oss-120b sizes it as its checkpoint stores it, not in FP8 (${lang})`, async () => {
    const browser = await openPage(`?lang=${lang}&gpu=h100-sxm`, { viewport: { width: 390, height: 844 } });
    try {
      const { page } = browser;
      const weights = page.locator('vram-calculator #weights');
      const note = page.locator('vram-calculator #weights-note');
      assert.equal(await weights.inputValue(), 'fp8');
      const answer = () => page.evaluate(() => new Promise((resolve) => {
        document.querySelector('vram-calculator').addEventListener('vram-result', (event) => resolve(event.detail), { once: true });
      }));
      const result = answer();
      await page.locator('vram-calculator #model').fill('gpt oss 120b');
      await page.locator('vram-calculator #model').press('Enter');
      const detail = await result;
      assert.equal(await weights.inputValue(), 'native');
      assert.match((await note.textContent()).replace(/[\u2066-\u2069]/g, ''), moved);
      // 65 GB of MXFP4 experts and BF16 rest: one 80 GB card holds it.
      assert.ok(detail.total_gb < 80, String(detail.total_gb));
      assert.equal(detail.fit.fits, true);
      await page.waitForFunction(() => /[?&]weights=native\b/.test(window.location.search) && /[?&]model=gpt-oss-120b\b/.test(window.location.search));
      await screenshot(page, `weights-native-${lang}-390`);
      // FP8 picked by hand stays, and the line goes.
      await weights.selectOption('fp8');
      await page.waitForFunction(() => document.querySelector('vram-calculator').shadowRoot.getElementById('weights-note').hidden);
      assert.equal(await weights.inputValue(), 'fp8');
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  });
}

// One answer per question (issue 41): Llama 3.1 70B opened fresh and opened
// after gpt-oss-120b (whose pick put the weights on "as the checkpoint
// stores it") is the same answer under the default engine, the page says it
// put the weights back, and a link copied in either state reopens its total.
for (const lang of ['en', 'fa']) {
  test(`a model gives the same total whatever was picked before it (${lang})`, async () => {
    const browser = await openPage(`?lang=${lang}`, { viewport: { width: 390, height: 844 } });
    try {
      const { page } = browser;
      const weights = page.locator('vram-calculator #weights');
      const note = page.locator('vram-calculator #weights-note');
      const pick = async (query, id) => {
        const result = page.evaluate(() => new Promise((resolve) => {
          document.querySelector('vram-calculator').addEventListener('vram-result', (event) => resolve(event.detail), { once: true });
        }));
        await page.locator('vram-calculator #model').fill(query);
        await page.locator('vram-calculator #model').press('Enter');
        const total = (await result).total_gb;
        await page.waitForFunction((model) => new URLSearchParams(window.location.search).get('model') === model, id);
        return { total, link: await page.evaluate(() => window.location.search) };
      };
      const fresh = await pick('llama 3.1 70b', 'llama-3.1-70b');
      assert.equal(await weights.inputValue(), 'fp8');
      assert.equal(await note.isHidden(), true);
      const oss = await pick('gpt oss 120b', 'gpt-oss-120b');
      assert.equal(await weights.inputValue(), 'native');
      const again = await pick('llama 3.1 70b', 'llama-3.1-70b');
      assert.equal(await weights.inputValue(), 'fp8');
      assert.equal(again.total, fresh.total, `fresh ${fresh.total} GB, after gpt-oss ${again.total} GB`);
      // What the page did is said beside the weights.
      assert.equal(await note.isVisible(), true);
      const said = (await note.textContent()).replace(/[\u2066-\u2069]/g, '');
      assert.match(said, lang === 'en' ? /^Weight format back to FP8, as you chose it/ : /^دقت وزن‌ها به FP8 برگشت/);
      await screenshot(page, `weights-back-${lang}-390`);
      // A link copied in either state reopens the same total.
      for (const { total, link } of [oss, again]) {
        const reopened = await openPage(link);
        try {
          const shown = await reopened.page.evaluate(() => new Promise((resolve) => {
            const element = document.querySelector('vram-calculator');
            if (element.lastResult) resolve(element.lastResult.total_gb);
            else element.addEventListener('vram-result', (event) => resolve(event.detail.total_gb), { once: true });
          }));
          assert.equal(shown, total, link);
        } finally {
          await reopened.close();
        }
      }
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  });
}

// vLLM's MXFP4 MoE backend (data/engines.json mxfp4_backend), a knob of
// words: a list of its choices, each named by the catalog; picking one
// reaches the answer's layout term and the address, and "auto" leaves it.
for (const lang of ['en', 'fa']) {
  test(`the MXFP4 backend is a list of its words, and Marlin reaches the answer (${lang})`, async () => {
    const browser = await openPage(`?lang=${lang}&model=gpt-oss-120b&weights=native&engine=vllm&gpu=h100-sxm`, { viewport: { width: 390, height: 844 } });
    try {
      const { page } = browser;
      await page.locator('vram-calculator .options > details').evaluate((el) => { el.open = true; });
      const select = page.locator('vram-calculator select[id="opt.mxfp4_backend"]');
      assert.equal(await select.inputValue(), 'auto');
      const labels = await select.locator('option').allTextContents();
      assert.deepEqual(await select.locator('option').evaluateAll((os) => os.map((o) => o.value)), ['auto', 'marlin', 'triton', 'flashinfer']);
      assert.ok(labels.every((l) => l && !/choice\./.test(l)), labels.join(', '));
      const answer = () => page.evaluate(() => new Promise((resolve) => {
        document.querySelector('vram-calculator').addEventListener('vram-result', (event) => resolve(event.detail), { once: true });
      }));
      const result = answer();
      await select.selectOption('marlin');
      const detail = await result;
      await waitForParam(page, 'opt.mxfp4_backend', 'marlin');
      assert.equal(detail.terms.find((t) => t.id === 'mxfp4_layout').inputs.backend, 'marlin');
      await select.selectOption('auto');
      await page.waitForFunction(() => !new URLSearchParams(location.search).has('opt.mxfp4_backend'));
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  });
}
