// One's own memory and the reverse question (issue 12): "my card has 20 GB"
// beside the catalog's cards, fitted by the core and kept in the link; and
// "which models fit this card at this context", listed by the core's
// fit_models, each opening in the calculator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, screenshot } from './harness.mjs';
import { core } from '../js/module.mjs';

const vram = await core();

const param = (page, name) => page.evaluate((n) => new URLSearchParams(location.search).get(n), name);
const waitForParam = (page, name, value) =>
  page.waitForFunction(([n, v]) => new URLSearchParams(location.search).get(n) === v, [name, value]);

test('a memory budget of my own: typed, fitted by the core, kept in the link, cleared', async () => {
  const browser = await openPage('?model=llama-3.1-8b&weights=bf16&context=8192&gpu=', { viewport: { width: 390, height: 844 } });
  try {
    const { page } = browser;
    const budget = page.locator('vram-calculator #budget_gb');
    const fit = page.locator('vram-calculator .answer-bar .answer-fit');
    assert.equal(await fit.count(), 0, 'no card and no budget: nothing to fit against');
    const request = { model: 'llama-3.1-8b', weights: 'bf16', context: 8192, batch: 1, engine: 'guide' };
    for (const gb of [20, 10]) {
      await budget.fill(String(gb));
      await budget.press('Enter');
      await waitForParam(page, 'budget_gb', String(gb));
      const expected = vram.estimate({ ...request, budget_gb: gb }).fit.fits;
      await page.waitForFunction((want) => document.querySelector('vram-calculator').shadowRoot.querySelector('.answer-fit')?.dataset.fits === want, String(expected));
      assert.match(await fit.textContent(), new RegExp(`${gb} GB`));
      if (gb === 20) await screenshot(page, 'budget-390');
    }
    // The link keeps it.
    await page.reload();
    await page.locator('vram-calculator .main').waitFor();
    assert.equal(await budget.inputValue(), '10');
    // Out of the schema's range (greater than 0) is refused in place; empty goes back to the card's capacity.
    await budget.fill('0');
    await budget.press('Enter');
    assert.equal(await page.locator('vram-calculator #budget_gb-error').isVisible(), true);
    assert.equal(await param(page, 'budget_gb'), '10');
    await budget.fill('');
    await budget.press('Enter');
    await page.waitForFunction(() => !new URLSearchParams(location.search).has('budget_gb'));
    assert.equal(await fit.count(), 0);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

/** The model ids the table lists, in its order. */
const listed = (page) => page.locator('vram-calculator table.fit-models tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.model));

test('which models fit: the core\'s list for a card, a set of it or a budget, each opening in the calculator', async () => {
  const browser = await openPage('?view=models&gpu=rtx-4090&context=8192', { viewport: { width: 1366, height: 900 } });
  try {
    const { page } = browser;
    await page.locator('vram-calculator table.fit-models').waitFor();
    const base = { weights: 'fp8', kv: 'fp16', context: 8192, batch: 1 };
    const want = (request) => vram.fitModels({ ...base, ...request }).models.filter((m) => m.fits).map((m) => m.id);
    const card = want({ gpu: 'rtx-4090', gpu_count: 1 });
    assert.ok(card.length > 0 && card.length < vram.presets().models.length, `${card.length} fit`);
    assert.deepEqual(await listed(page), card);
    // The view shows the inputs that change it: no model picker, the card and the load.
    assert.equal(await page.locator('vram-calculator #model').isVisible(), false);
    for (const id of ['gpu', 'budget_gb', 'context', 'weights']) assert.equal(await page.locator(`vram-calculator #${id}`).isVisible(), true, id);
    await screenshot(page, 'models-1366');

    // Two cards hold more; a budget replaces the card.
    await page.locator('vram-calculator #gpu_count').fill('2');
    await page.locator('vram-calculator #gpu_count').press('Enter');
    await waitForParam(page, 'gpu_count', '2');
    const two = want({ gpu: 'rtx-4090', gpu_count: 2 });
    assert.ok(two.length > card.length);
    await page.waitForFunction((n) => document.querySelector('vram-calculator').shadowRoot.querySelectorAll('table.fit-models tbody tr').length === n, two.length);
    assert.deepEqual(await listed(page), two);
    await page.locator('vram-calculator #budget_gb').fill('12');
    await page.locator('vram-calculator #budget_gb').press('Enter');
    await waitForParam(page, 'budget_gb', '12');
    const twelve = want({ gpu: 'rtx-4090', gpu_count: 2, budget_gb: 12 });
    await page.waitForFunction((n) => document.querySelector('vram-calculator').shadowRoot.querySelectorAll('table.fit-models tbody tr').length === n, twelve.length);
    assert.deepEqual(await listed(page), twelve);

    // A row opens its model in the calculator.
    await page.locator('vram-calculator table.fit-models tbody tr button').first().click();
    await waitForParam(page, 'view', 'calculator');
    assert.equal(await param(page, 'model'), twelve[0]);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('which models fit, with neither a card nor a budget, says what it needs (390 px)', async () => {
  const browser = await openPage('?view=models&gpu=', { viewport: { width: 390, height: 844 } });
  try {
    const { page } = browser;
    const notice = page.locator('vram-calculator [role=tabpanel]:not([hidden]) .notice');
    assert.match(await notice.textContent(), /card|budget/);
    await page.locator('vram-calculator #budget_gb').fill('24');
    await page.locator('vram-calculator #budget_gb').press('Enter');
    await page.locator('vram-calculator table.fit-models').waitFor();
    await screenshot(page, 'models-budget-390');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('which models fit sizes gpt-oss as its checkpoint stores it, says so, and opens it so (fa, 390 px)', async () => {
  const browser = await openPage('?lang=fa&view=models&gpu=h100-sxm&weights=fp8', { viewport: { width: 390, height: 844 } });
  try {
    const { page } = browser;
    await page.locator('vram-calculator table.fit-models').waitFor();
    const row = page.locator('vram-calculator table.fit-models tbody tr[data-model="gpt-oss-120b"]');
    // 65 GB of MXFP4 experts and BF16 rest on one 80 GB card; in FP8 it would not fit.
    assert.equal(await row.count(), 1);
    const stored = vram.fitModels({ gpu: 'h100-sxm', weights: 'fp8' }).models.find((m) => m.id === 'gpt-oss-120b');
    assert.equal(stored.as_stored, true);
    assert.match(await row.locator('td').last().textContent(), /چک‌پوینت/);
    await screenshot(page, 'models-as-stored-fa-390');
    await row.locator('button').click();
    await waitForParam(page, 'view', 'calculator');
    assert.equal(await param(page, 'model'), 'gpt-oss-120b');
    assert.equal(await param(page, 'weights'), 'native');
    assert.equal(await page.locator('vram-calculator #weights-note').isHidden(), false);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
