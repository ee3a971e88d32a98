// Preset links: the whole state lives in the query. A link restores the
// exact view and inputs; Back and Forward move through committed changes;
// named presets apply; a malformed parameter is reported and ignored; the
// Copy link button hands over the address.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLIPBOARD, openPage, screenshot, text, waitForText } from './harness.mjs';

const TOTAL = 'vram-calculator .total-value';
const value = (page, id) => page.locator(`vram-calculator [id="${id}"]`).inputValue();

test('a link restores the exact view and inputs, and the page writes the same link back', async () => {
  const query = '?view=calculator&model=guide-405b&weights=int4&kv=fp8&context=32768&batch=4&unit=GB&mode=inference&engine=vllm&gpu=mi300x&gpu_count=2&opt.gpu_memory_utilization=0.95';
  const browser = await openPage(query);
  try {
    const { page } = browser;
    await page.locator(TOTAL).waitFor();
    assert.deepEqual(
      await Promise.all(['model', 'weights', 'kv', 'context', 'batch', 'engine', 'gpu', 'gpu_count', 'opt.gpu_memory_utilization'].map((id) => value(page, id))),
      ['405B (guide shape)', 'int4', 'fp8', '32768', '4', 'vllm', 'mi300x', '2', '0.95'],
    );
    // A committed change writes the full state; reloading that link restores it.
    await page.locator('vram-calculator #batch').fill('8');
    await page.locator('vram-calculator #batch').press('Tab');
    await page.waitForFunction(() => location.search.includes('batch=8'));
    const total = await text(page, TOTAL);
    await page.reload();
    await page.locator(TOTAL).waitFor();
    assert.equal(await text(page, TOTAL), total);
    assert.equal(await value(page, 'batch'), '8');
    assert.equal(await value(page, 'opt.gpu_memory_utilization'), '0.95');
    assert.equal(await text(page, 'vram-calculator .notices'), '');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('Back and Forward move through committed changes, not keystrokes', async () => {
  const browser = await openPage('?model=guide-70b&weights=fp8&context=8192');
  try {
    const { page } = browser;
    const context = page.locator('vram-calculator #context');
    await context.fill('16384');
    await context.press('Tab');
    await waitForText(page, TOTAL, '77 GB');
    await context.click();
    await context.press('Control+A');
    await page.keyboard.type('32768');
    await context.press('Tab');
    await waitForText(page, TOTAL, '83 GB');
    await page.locator('vram-calculator #tab-grid').click();
    await page.waitForFunction(() => location.search.includes('view=grid'));

    await page.goBack();
    await page.waitForFunction(() => location.search.includes('view=calculator'));
    await waitForText(page, TOTAL, '83 GB');
    await page.goBack();
    await waitForText(page, TOTAL, '77 GB');
    assert.equal(await value(page, 'context'), '16384');
    await page.goBack();
    await waitForText(page, TOTAL, '75 GB');
    assert.equal(await value(page, 'context'), '8192');
    await page.goForward();
    await waitForText(page, TOTAL, '77 GB');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('going back restores the exact state of that entry, including what its link leaves out', async () => {
  const browser = await openPage('?model=guide-7b');
  try {
    const { page } = browser;
    await page.locator('vram-calculator #mode').selectOption('lora');
    await page.waitForFunction(() => location.search.includes('mode=lora'));
    await page.locator('vram-calculator #seq').fill('4096');
    await page.locator('vram-calculator #seq').press('Tab');
    await page.waitForFunction(() => location.search.includes('seq=4096'));
    await page.goBack();
    await page.waitForFunction(() => !location.search.includes('seq=4096'));
    assert.equal(await value(page, 'seq'), '2048');
    await page.goForward();
    await page.waitForFunction(() => location.search.includes('seq=4096'));
    // Back to the inference entry, whose link has no seq: seq is the default
    // again, not the 4,096 of a later entry.
    await page.goBack();
    await page.goBack();
    await page.waitForFunction(() => !location.search.includes('mode=lora'));
    assert.equal(await value(page, 'mode'), 'inference');
    await page.locator('vram-calculator #mode').selectOption('lora');
    assert.equal(await value(page, 'seq'), '2048');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('a named preset applies, and the URL can override it', async () => {
  const browser = await openPage('?preset=70b-fp8-32k');
  try {
    const { page } = browser;
    await waitForText(page, TOTAL, '83 GB');
    assert.equal(await value(page, 'context'), '32768');
    await page.goto(page.url().replace(/\?.*/, '?preset=70b-fp8-32k&context=8192'));
    await waitForText(page, TOTAL, '75 GB');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test("an older link's fine-tuning key its method does not take opens, dropped and named", async () => {
  // Older pages wrote every fine-tuning key in every method; the core now refuses one that does not apply.
  const browser = await openPage('?model=guide-7b&mode=full&lora_rank=8&lora_targets=q_proj,k_proj,v_proj,o_proj&momentum=0&seq=1024');
  try {
    const { page } = browser;
    await page.locator(TOTAL).waitFor();
    const notices = await page.locator('vram-calculator .notices p').allTextContents();
    // lora_rank differs from its default: named; the others held theirs: dropped quietly.
    assert.equal(notices.length, 1, notices.join('\n'));
    assert.match(notices[0], /lora_rank: it applies only when mode is lora, qlora/);
    assert.equal(await page.locator('vram-calculator p.error[data-code]').count(), 0, 'the core took the request');
    assert.equal(await value(page, 'seq'), '1024');
    // The page writes the link back without the keys full fine-tuning does not take.
    await page.locator('vram-calculator #seq').fill('2048');
    await page.locator('vram-calculator #seq').press('Tab');
    await page.waitForFunction(() => location.search.includes('seq=2048'));
    const search = await page.evaluate(() => location.search);
    for (const key of ['lora_rank', 'lora_targets', 'momentum', 'upcast_unquantized']) assert.ok(!search.includes(`${key}=`), `${key} in ${search}`);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('malformed and unknown parameters are reported, ignored, and never run', async () => {
  const evil = encodeURIComponent('<img src=x onerror="document.title=\'pwned\'">');
  const browser = await openPage(`?context=lots&model=${evil}&${evil}=1&batch=2&preset=nope`);
  try {
    const { page } = browser;
    await page.locator(TOTAL).waitFor();
    const notices = await page.locator('vram-calculator .notices p').allTextContents();
    assert.equal(notices.length, 4);
    assert.match(notices.join('\n'), /context: 'lots' is not a number/);
    assert.match(notices.join('\n'), /model: '<img src=x onerror=/);
    assert.match(notices.join('\n'), /preset: 'nope' is not a preset/);
    assert.equal(await page.locator('vram-calculator img').count(), 0);
    assert.notEqual(await page.title(), 'pwned');
    // The rest still applies: batch 2 on the default 70B FP8.
    assert.equal(await value(page, 'batch'), '2');
    assert.equal(await text(page, TOTAL), '77 GB');
    await screenshot(page, 'url-malformed');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('Copy link puts the address on the clipboard', async () => {
  const browser = await openPage('?context=4096', { permissions: CLIPBOARD });
  try {
    const { page } = browser;
    await page.locator('vram-calculator button.copy').click();
    await waitForText(page, 'vram-calculator .tools [role=status]', 'Link copied.');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), page.url());
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('without a clipboard, Copy link selects the address for Ctrl+C', async () => {
  const browser = await openPage('?context=4096');
  try {
    const { page } = browser;
    await page.evaluate(() => {
      navigator.clipboard.writeText = () => Promise.reject(new Error('denied'));
    });
    await page.locator('vram-calculator button.copy').click();
    await waitForText(page, 'vram-calculator .tools [role=status]', 'Press Ctrl+C (⌘C) to copy the selected link.');
    const selected = await page.evaluate(() => {
      const box = document.querySelector('vram-calculator').shadowRoot.querySelector('#link');
      return box.value.slice(box.selectionStart, box.selectionEnd);
    });
    assert.equal(selected, page.url());
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('an engine knob outside its range is listed as ignored, and the answer stays', async () => {
  const browser = await openPage('?model=llama-3.1-8b&weights=bf16&engine=vllm&gpu=h100-sxm&opt.gpu_memory_utilization=2&opt.block_size=32');
  try {
    const { page } = browser;
    await page.locator(TOTAL).waitFor();
    const notices = await page.locator('vram-calculator .notices p').allTextContents();
    assert.equal(notices.length, 1, notices.join('\n'));
    assert.match(notices[0], /opt\.gpu_memory_utilization: it must be between 0 and 1/);
    // The valid knob stays; the refused one falls back to the engine's default.
    assert.equal(await value(page, 'opt.block_size'), '32');
    assert.equal(await value(page, 'opt.gpu_memory_utilization'), '0.9');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

// A catalog in the address (#catalog=, the iframe page's way in) replaces
// the cards and their prices: never silently on the site's own page.
const LINK_CATALOG = { currency: 'USD', gpus: [{ id: 'h100-sxm', name: 'H100 SXM', vendor: 'NVIDIA', vram_gb: 80, bandwidth_gbps: 3350, hourly_usd: 0.01, memory_type: 'HBM3', architecture: 'Hopper', fp8: true, interconnect: { kind: 'nvlink', gbps: 900, topology: 'switched' } }] };
const FROM_LINK = {
  en: 'Cards and prices from this link, not from this site.',
  ar: 'البطاقات والأسعار من هذا الرابط، لا من هذا الموقع.',
  fa: 'کارت‌ها و قیمت‌ها از این پیوند است، نه از این سایت.',
};

for (const lang of ['en', 'ar', 'fa']) {
  test(`${lang}: a #catalog= link says its prices are the link's, and Copy link drops it unless asked`, async () => {
    const hash = `#catalog=${encodeURIComponent(JSON.stringify(LINK_CATALOG))}`;
    const browser = await openPage(`?lang=${lang}&view=fleet${hash}`, { viewport: { width: 1366, height: 900 }, permissions: CLIPBOARD });
    try {
      const { page } = browser;
      await page.locator('vram-calculator .notices', { hasText: FROM_LINK[lang] }).waitFor();
      assert.deepEqual(await page.locator('vram-calculator table.fleet tbody tr').evaluateAll((r) => r.map((x) => x.dataset.gpu)), ['h100-sxm']);
      await screenshot(page, `catalog-from-link-${lang}-1366`);
      await page.setViewportSize({ width: 390, height: 844 });
      await screenshot(page, `catalog-from-link-${lang}-390`);
      // Copied: the address without its catalog; the page keeps showing it.
      const keep = page.locator('vram-calculator #keep-catalog');
      assert.equal(await keep.isChecked(), false);
      await page.locator('vram-calculator button.copy').click();
      await page.waitForFunction(() => document.querySelector('vram-calculator').shadowRoot.querySelector('.tools [role=status]').textContent !== '');
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      assert.equal(copied, page.url().split('#')[0]);
      assert.ok(page.url().includes('#catalog='), 'the address itself is left as it is');
      // Asked for: the copied link keeps it.
      await keep.check();
      await page.locator('vram-calculator button.copy').click();
      await page.waitForFunction((url) => navigator.clipboard.readText().then((t) => t === url), page.url());
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  });
}

test('without a catalog in the link there is no notice and no keep box', async () => {
  const browser = await openPage('?view=fleet');
  try {
    const { page } = browser;
    assert.equal(await page.locator('vram-calculator .notices p').count(), 0);
    assert.equal(await page.locator('vram-calculator #keep-catalog').isVisible(), false);
  } finally {
    await browser.close();
  }
});
