// llama.cpp's partial offload on the page (issue 11): a model that does not
// fit its card under llama.cpp says honestly how it runs split between the
// GPU and host RAM, with the numbers the core computed, in every language,
// and the command carries -ngl or --n-cpu-moe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, screenshot, text } from './harness.mjs';
import { core } from '../js/module.mjs';

const FIT = 'vram-calculator .fit';
const OFFLOAD = 'vram-calculator section.offload';
const LAUNCH = 'vram-calculator section.launch';
const DENSE = { model: 'llama-3.1-70b', weights: 'q4_k_m', context: 8192, engine: 'llamacpp', gpu: 'rtx-4090' };
const MOE = { model: 'gpt-oss-120b', weights: 'q4_k_m', context: 16384, engine: 'llamacpp', gpu: 'rtx-4090' };
const query = (q) => `?${new URLSearchParams(q)}`;

test('70B Q4_K_M on one RTX 4090: the fit line is the offload headline, the block and command agree with the core', async () => {
  const o = (await core()).estimate(DENSE).serving.offload;
  assert.equal(o.kind, 'layers');
  const browser = await openPage(query(DENSE));
  try {
    const { page } = browser;
    await page.locator(OFFLOAD).waitFor();
    const fit = await text(page, FIT);
    assert.match(fit, new RegExp(`Fits with partial offload: ${o.gpu_layers} of 80 layers on the GPU, ${Math.round(o.host_gb)} GB in host RAM, about ${o.decode.expected_tokens_per_s.toFixed(1)} tokens/s per user`));
    assert.equal(await page.locator(FIT).getAttribute('data-offload'), 'true');
    assert.equal(await page.locator(FIT).getAttribute('data-fits'), 'false');
    const block = await text(page, OFFLOAD);
    assert.match(block, new RegExp(`Layers on the GPU \\(-ngl\\)\\s*${o.gpu_layers} of 80`));
    assert.match(block, new RegExp(`Host RAM needed\\s*${o.host_gb.toFixed(1)} GB`));
    assert.doesNotMatch(block, /--n-cpu-moe/);
    // A speed under 10 tokens/s keeps its decimal, as in the headline (not "≈ 2").
    assert.ok(o.decode.expected_tokens_per_s < 9.95);
    assert.match(block, new RegExp(`Expected per user\\s*≈ ${o.decode.expected_tokens_per_s.toFixed(1)} tokens/s`));
    // The serving plan says the shortfall, never a negative room.
    const serving = await text(page, 'vram-calculator section.serving');
    const plan = (await core()).estimate(DENSE).serving;
    assert.ok(plan.kv_budget_gb < 0);
    assert.match(serving, new RegExp(`Room for the KV cache per GPUnone: ${(-plan.kv_budget_gb).toFixed(1)} GB short`));
    assert.doesNotMatch(serving, /-\d/);
    // Its users are those of every layer on the GPU, and it says so beside the offload that holds them.
    assert.match(serving, /requested 1: not with every layer on the GPU; with the partial offload below they do/);
    assert.match(serving, /These figures put every layer on the GPU; the partial offload below keeps part of the model in host RAM\./);
    const launch = await text(page, LAUNCH);
    assert.match(launch, new RegExp(`-ngl ${o.ngl} `));
    assert.match(launch, /num_gpu/);
    // The full-GPU speed block stays away: the card does not hold the whole model.
    assert.equal(await page.locator('vram-calculator section.decode').count(), 0);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('an MoE model keeps experts on the host: --n-cpu-moe on the page and in the command', async () => {
  const o = (await core()).estimate(MOE).serving.offload;
  assert.equal(o.kind, 'experts');
  const browser = await openPage(query(MOE));
  try {
    const { page } = browser;
    await page.locator(OFFLOAD).waitFor();
    assert.equal(await page.locator(OFFLOAD).getAttribute('data-kind'), 'experts');
    assert.match(await text(page, FIT), new RegExp(`the experts of ${o.n_cpu_moe} of ${o.layers} layers in host RAM`));
    assert.match(await text(page, OFFLOAD), new RegExp(`--n-cpu-moe\\)\\s*${o.n_cpu_moe} of ${o.layers}`));
    assert.match(await text(page, LAUNCH), new RegExp(`-ngl ${o.layers + 1} --n-cpu-moe ${o.n_cpu_moe} `));
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('a model that fits its card shows no offload', async () => {
  const browser = await openPage(query({ ...DENSE, model: 'llama-3.1-8b' }));
  try {
    const { page } = browser;
    await page.locator(LAUNCH).waitFor();
    assert.equal(await page.locator(OFFLOAD).count(), 0);
    assert.equal(await page.locator(FIT).getAttribute('data-offload'), 'false');
    assert.match(await text(page, LAUNCH), /-ngl 33 /);
  } finally {
    await browser.close();
  }
});

test('the offload in Persian and Arabic: worded by the catalogs, numbers in the reader\'s digits; 390 px and 1366 px', async () => {
  for (const [lang, width] of [['en', 390], ['en', 1366], ['fa', 390], ['fa', 1366], ['ar', 1366]]) {
    const browser = await openPage(`${query(DENSE)}&lang=${lang}`, { viewport: { width, height: 900 } });
    try {
      const { page } = browser;
      await page.locator(OFFLOAD).waitFor();
      // Right to left every Latin run is isolated (docs/i18n.md): the words without the marks.
      const fit = (await text(page, FIT)).replace(/[\u2066-\u2069]/g, '');
      const block = (await text(page, OFFLOAD)).replace(/[\u2066-\u2069]/g, '');
      if (lang === 'fa') {
        assert.match(fit, /با تقسیم میان GPU و میزبان جا می‌شود/);
        assert.match(fit, /۸۰/);
        assert.doesNotMatch(fit, /\d/); // Persian digits only, outside names
        assert.match(block, /RAM لازم روی میزبان/);
      } else if (lang === 'ar') {
        assert.match(fit, /تتسع بالتقسيم بين GPU والمضيف/);
      }
      // Nothing wider than the window.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${lang} ${width}px overflows by ${overflow}px`);
      await page.locator(OFFLOAD).scrollIntoViewIfNeeded();
      await screenshot(page, `offload-${lang}-${width}`, { fullPage: false });
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  }
});

/** Waits until the launch command (inside the shadow root) contains `part`. */
const commandHas = (page, part) => page.waitForFunction(
  (p) => (document.querySelector('vram-calculator')?.shadowRoot?.querySelector('section.launch')?.textContent || '').includes(p),
  part, { timeout: 5000 });

// The user's own placement: -ngl typed into the llama.cpp options, the
// numbers for it on the page, in the address, and back after a reload.
test('Layers on the GPU typed on the page: the numbers follow, the address carries it, a reload restores it', async () => {
  const auto = (await core()).estimate(DENSE).serving.offload;
  const typed = (await core()).estimate({ ...DENSE, engine_options: { gpu_layers: 30 } }).serving.offload;
  const over = (await core()).estimate({ ...DENSE, engine_options: { gpu_layers: 60 } }).serving.offload;
  assert.equal(typed.placement, 'user');
  assert.ok(typed.per_gpu_gb < auto.per_gpu_gb && typed.host_gb > auto.host_gb);
  const browser = await openPage(query(DENSE));
  try {
    const { page } = browser;
    await page.locator(OFFLOAD).waitFor();
    const knob = page.locator('vram-calculator [id="opt.gpu_layers"]');
    await page.locator('vram-calculator .options > details').evaluate((el) => { el.open = true; });
    // Empty: the plan picks, and says so.
    assert.equal(await knob.inputValue(), '');
    assert.equal(await knob.getAttribute('placeholder'), 'auto');
    assert.match(await text(page, OFFLOAD), new RegExp(`Placement \\(chosen by the calculator\\)\\s*-ngl ${auto.ngl}`));
    await knob.fill('30');
    await knob.press('Enter');
    await commandHas(page, '-ngl 30 ');
    await page.waitForFunction(() => location.search.includes('opt.gpu_layers=30'));
    const block = await text(page, OFFLOAD);
    assert.match(block, /Placement \(your -ngl and --n-cpu-moe\)\s*-ngl 30/);
    assert.match(block, new RegExp(`Layers on the GPU \\(-ngl\\)\\s*${typed.gpu_layers} of 80`));
    assert.match(block, new RegExp(`Host RAM needed\\s*${typed.host_gb.toFixed(1)} GB`));
    assert.match(await text(page, FIT), new RegExp(`${typed.gpu_layers} of 80 layers on the GPU, ${Math.round(typed.host_gb)} GB in host RAM, about ${typed.decode.expected_tokens_per_s.toFixed(1)} tokens/s`));
    // A reload keeps it.
    await page.reload();
    await page.locator(OFFLOAD).waitFor();
    assert.equal(await page.locator('vram-calculator [id="opt.gpu_layers"]').inputValue(), '30');
    assert.match(await text(page, LAUNCH), /-ngl 30 /);
    // Too many for the card: said, with what would fit, and no speed.
    const again = page.locator('vram-calculator [id="opt.gpu_layers"]');
    await page.locator('vram-calculator .options > details').evaluate((el) => { el.open = true; });
    await again.fill('60');
    await again.press('Enter');
    await commandHas(page, '-ngl 60 ');
    assert.match(await text(page, FIT), new RegExp(`Does not fit: -ngl 60 needs ${Math.round(over.per_gpu_gb)} GB per GPU, more than the 25 GB of the RTX 4090; -ngl ${over.suggested.ngl} would fit`));
    assert.equal(await page.locator(OFFLOAD).getAttribute('data-fits'), 'false');
    assert.doesNotMatch(await text(page, OFFLOAD), /tokens\/s/);
    // Cleared: back to the plan's pick, and the address drops it.
    await again.fill('');
    await again.press('Enter');
    await commandHas(page, `-ngl ${auto.ngl} `);
    await page.waitForFunction(() => !location.search.includes('opt.gpu_layers'));
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('--n-cpu-moe from the address, in Persian and English at 390 px and 1366 px', async () => {
  const q = { ...MOE, 'opt.n_cpu_moe': 30 };
  const o = (await core()).estimate({ ...MOE, engine_options: { n_cpu_moe: 30 } }).serving.offload;
  assert.equal(o.n_cpu_moe, 30);
  for (const [lang, width] of [['en', 390], ['en', 1366], ['fa', 390], ['fa', 1366]]) {
    const browser = await openPage(`${query(q)}&lang=${lang}`, { viewport: { width, height: 900 } });
    try {
      const { page } = browser;
      await page.locator(OFFLOAD).waitFor();
      assert.equal(await page.locator(OFFLOAD).getAttribute('data-placement'), 'user');
      assert.match(await text(page, LAUNCH), / --n-cpu-moe 30 /);
      // Numbers are isolated (U+2068 ... U+2069) in the reader's digits, but
      // the flags are code: Latin digits on every page, as a shell reads them
      // (the `code` style, docs/i18n.md).
      const shown = (await text(page, OFFLOAD)).replace(/[\u2066-\u2069]/g, '');
      assert.match(shown, /-ngl 37 --n-cpu-moe 30/);
      if (lang === 'fa') assert.match(shown, new RegExp(`${o.n_cpu_moe.toLocaleString('fa-IR')}\\D`), 'the counts beside the flags keep Persian digits');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${lang} ${width}px overflows by ${overflow}px`);
      await page.locator('vram-calculator .options > details').evaluate((el) => { el.open = true; });
      await page.locator('vram-calculator [id="opt.n_cpu_moe"]').scrollIntoViewIfNeeded();
      await screenshot(page, `offload-knob-${lang}-${width}`, { fullPage: false });
      await page.locator(OFFLOAD).scrollIntoViewIfNeeded();
      await screenshot(page, `offload-placed-${lang}-${width}`, { fullPage: false });
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  }
});

test('the cheapest cards offer a partial offload that meets the floor, tagged with its flags and host RAM (en, fa; 390 and 1366 px)', async () => {
  const q = { model: 'gpt-oss-120b', weights: 'native', context: 8192, engine: 'llamacpp', gpu: 'h100-sxm' };
  const answer = (await core()).estimate(q);
  const offered = answer.fits.filter((f) => f.offload);
  assert.ok(offered.length > 0, 'some card is offered with partial offload');
  const first = offered[0];
  for (const [lang, width] of [['en', 390], ['en', 1366], ['fa', 390], ['fa', 1366]]) {
    const browser = await openPage(`${query(q)}&lang=${lang}`, { viewport: { width, height: 900 } });
    try {
      const { page } = browser;
      const rows = page.locator('vram-calculator table.fits tr[data-offload="true"]');
      await rows.first().waitFor();
      const row = page.locator(`vram-calculator table.fits tr[data-offload="true"][data-gpu="${first.gpu}"]`).first();
      const shown = (await row.innerText()).replace(/[\u2066-\u2069]/g, '');
      const { ngl, n_cpu_moe: moe } = first.offload;
      if (lang === 'en') {
        assert.match(shown, new RegExp(`partial offload, ${first.host_gb.toFixed(1)} GB in host RAM\\s+-ngl ${ngl} --n-cpu-moe ${moe}`));
        assert.match(await text(page, 'vram-calculator section.cheapest'), /A card marked partial offload holds the rest of the model in the host's RAM/);
      } else {
        const fa = (n) => String(n).replace(/\d/g, (d) => '۰۱۲۳۴۵۶۷۸۹'[d]);
        assert.match(shown, new RegExp(`تقسیم میان GPU و میزبان، ${fa(first.host_gb.toFixed(1)).replace('.', '٫')} GB در RAM میزبان\\s+-ngl ${ngl} --n-cpu-moe ${moe}`));
        assert.doesNotMatch(shown, /host RAM/);
      }
      // Rows that hold the model whole carry no tag.
      const whole = page.locator('vram-calculator table.fits tr[data-offload="false"]');
      if (await whole.count()) assert.equal(await whole.first().locator('.offload-tag').count(), 0);
      // The flags never wrap: one line, left to right.
      const code = row.locator('.offload-tag code');
      assert.equal(await code.getAttribute('dir'), 'ltr');
      const box = await code.boundingBox();
      const line = await code.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight) || el.getBoundingClientRect().height);
      assert.ok(box.height <= line * 1.5, `the flags wrap: ${box.height}px for a ${line}px line`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${lang} ${width}px overflows by ${overflow}px`);
      await row.scrollIntoViewIfNeeded();
      await screenshot(page, `offload-cheapest-${lang}-${width}`, { fullPage: false });
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  }
});
