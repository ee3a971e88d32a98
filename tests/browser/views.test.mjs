// The grid, devices and fleet views against the published tables (SPEC
// sections 3, 4, 6), and each following the shared inputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, screenshot, text } from './harness.mjs';
import { core } from '../js/module.mjs';

const PANEL = 'vram-calculator [role=tabpanel]:not([hidden])';

async function openView(query) {
  const browser = await openPage(query);
  await browser.page.locator(`${PANEL} table`).first().waitFor();
  return browser;
}

// SPEC section 3: VRAM, card, monthly price, tight. What the test holds the
// core to, as SPEC section 3 words it:
// - inference and full fine-tune VRAM follow the stated formulas: exact;
// - LoRA and QLoRA come from a stated physical model: within 10%;
// - a single card the guide names: the same card and price (within $10, the
//   guide rounds), and the same "tight";
// - a multi-card set: the guide admits cheaper sets exist, and the core picks
//   the cheapest that satisfies the rules, so no dearer than the guide's.
const GRID = {
  'guide-7b': ['17 A5000 190', '10 L4 250', '7 A5000 190', '10 A5000 190', '21 A5000 190 tight', '129 MI300X 1590'],
  'guide-13b': ['35 A40 240', '22 L4 250 tight', '15 A5000 190', '14 A5000 190', '33 A40 240', '239 4xA100 3643'],
  'guide-34b': ['72 A100 990', '38 RTX_6000_Ada 460', '21 A5000 190 tight', '28 A40 240', '79 A100 990 tight', '626 8xA100 7130 tight'],
  'guide-70b': ['145 MI300X 1590', '75 H100_PCIe 1490', '40 A40 240', '51 A100 990', '156 MI300X 1590', '1288 8xMI300X 11450'],
  'guide-405b': ['816 8xMI300X 11450', '411 8xMI300X 11450', '209 8xA40 1728', '249 8xA40 1728', '856 8xMI300X 11450', '7452 quote'],
};
const METHODS = ['bf16', 'fp8', 'int4', 'qlora', 'lora', 'full'];
const CELL = /^([\d,]+) GB \/ (?:(\d+)× )?(.+?) \$([\d,]+)(, tight)?$/;
const number = (text) => Number(text.replace(/,/g, ''));

function checkCell(model, method, actual, expected) {
  const [vram, card, usd, tight] = expected.split(' ');
  const where = `${model} ${method}: '${actual}' (published ${expected})`;
  if (card === 'quote') {
    assert.match(actual, new RegExp(`^${Number(vram).toLocaleString('en')} GB / \\d+ nodes of \\d+× .+, by quote$`), where);
    return;
  }
  const m = CELL.exec(actual);
  assert.ok(m, where);
  if (method === 'lora' || method === 'qlora') assert.ok(Math.abs(number(m[1]) / Number(vram) - 1) <= 0.1, where);
  else assert.equal(number(m[1]), Number(vram), where);
  if (card.includes('x')) {
    assert.ok(number(m[4]) <= Number(usd) + 10, where);
    return;
  }
  assert.equal(m[2], undefined, where);
  assert.ok(m[3].includes(card.replace(/_/g, ' ')), where);
  assert.ok(Math.abs(number(m[4]) - Number(usd)) <= 10, where);
  assert.equal(Boolean(m[5]), tight === 'tight', where);
}

test('lookup grid: the published VRAM and cheapest cards, and it follows the context', async () => {
  const browser = await openView('?view=grid&model=guide-70b');
  try {
    const { page } = browser;
    for (const [model, cells] of Object.entries(GRID)) {
      for (const [i, method] of METHODS.entries()) {
        const actual = await text(page, `${PANEL} tr[data-model="${model}"] td[data-method="${method}"] .cell-main`);
        checkCell(model, method, actual, cells[i]);
      }
    }
    // Why not the A100 for 70B FP8: it has no FP8 (SPEC section 1).
    const why = page.locator(`${PANEL} tr[data-model="guide-70b"] td[data-method="fp8"] details.excluded`);
    await why.locator('summary').click();
    assert.match(await why.locator('ul').textContent(), /A100 SXM \$990: .*FP8/);
    await screenshot(page, 'grid');
    const fp8 = `${PANEL} tr[data-model="guide-70b"] td[data-method="fp8"] .cell-main`;
    await page.locator('vram-calculator #context').fill('32768');
    await page.waitForFunction((s) => {
      const [host, inner] = [s.split(' ')[0], s.slice(s.indexOf(' ') + 1)];
      return document.querySelector(host).shadowRoot.querySelector(inner)?.textContent.startsWith('83 GB');
    }, fp8);
    // The table is patched in place: the open reasons stay open, once, on
    // this request's; closed, they stay closed through the next change.
    assert.equal(await why.getAttribute('open'), '');
    assert.equal(await why.locator('ul').count(), 1);
    assert.match(await why.locator('ul').textContent(), /A100 SXM \$990: .*FP8/);
    await why.locator('summary').click();
    await page.locator('vram-calculator #context').fill('8192');
    await page.waitForFunction((s) => {
      const [host, inner] = [s.split(' ')[0], s.slice(s.indexOf(' ') + 1)];
      return document.querySelector(host).shadowRoot.querySelector(inner)?.textContent.startsWith('75 GB');
    }, fp8);
    assert.equal(await why.getAttribute('open'), null);
    assert.equal(await why.locator('ul').count(), 0);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

// SPEC section 6: devices for Beam's weights alone at 92% usable.
const DEVICES = [
  [/h100/i, [14, 7, 5, 4]], [/h200/i, [8, 4, 3, 2]], [/b200/i, [7, 4, 2, 2]], [/b300/i, [4, 2, 2, 1]],
  [/a100/i, [14, 7, 5, 4]], [/pro.?6000/i, [12, 6, 4, 3]], [/l40s/i, [23, 12, 7, 6]], [/5090/, [35, 18, 11, 9]],
  [/4090/, [46, 23, 14, 12]], [/mi300x/i, [6, 3, 2, 2]], [/mi325x/i, [5, 3, 2, 2]], [/mi355x/i, [4, 2, 2, 1]],
  [/m3.?ultra/i, [3, 2, 1, 1]],
];

test('device counts: the planner table for Beam 501B, and it follows the usable fraction', async () => {
  const browser = await openView('?view=devices&model=beam');
  try {
    const { page } = browser;
    const rows = await page.locator(`${PANEL} tbody tr`).evaluateAll((trs) => trs.map((tr) => ({
      key: `${tr.dataset.accelerator} ${tr.querySelector('th').textContent}`,
      counts: [...tr.querySelectorAll('td .count')].map((c) => Number(c.textContent)),
    })));
    for (const [pattern, counts] of DEVICES) {
      const row = rows.find((r) => pattern.test(r.key));
      assert.ok(row, `no row for ${pattern}`);
      assert.deepEqual(row.counts, counts, row.key);
    }
    await screenshot(page, 'devices');
    // 1,002 GB of BF16 over 80 GB x 0.80 = 15.7: 16 H100s instead of 14.
    await page.locator('vram-calculator #usable_fraction').fill('0.8');
    await page.waitForFunction(() => /80%/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('[role=tabpanel]:not([hidden]) caption').textContent));
    const h100 = await page.locator(`${PANEL} tbody tr`).evaluateAll((trs) => trs
      .find((tr) => /h100/i.test(`${tr.dataset.accelerator} ${tr.querySelector('th').textContent}`))
      .querySelector('td .count').textContent);
    assert.equal(h100, '16');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

// SPEC section 4: VRAM, bandwidth, monthly, $/GB-month, GB/s per $/month, $/hour.
const FLEET = {
  MI300X: '192 GB|5.3 TB/s|$1,590|8.28|3.33|2.21', B200: '180 GB|8 TB/s|$3,890|21.61|2.06|5.40',
  'H200 SXM': '141 GB|4.8 TB/s|$2,290|16.24|2.10|3.18', 'H100 SXM': '80 GB|3.35 TB/s|$1,690|21.13|1.98|2.35',
  'H100 PCIe': '80 GB|2 TB/s|$1,490|18.63|1.34|2.07', 'A100 SXM': '80 GB|2.04 TB/s|$990|12.38|2.06|1.38',
  L40S: '48 GB|864 GB/s|$520|10.83|1.66|0.72', 'RTX 6000 Ada': '48 GB|960 GB/s|$460|9.58|2.09|0.64',
  'RTX A6000': '48 GB|768 GB/s|$290|6.04|2.65|0.40', A40: '48 GB|696 GB/s|$240|5.00|2.90|0.33',
  'RTX 5090': '32 GB|1.79 TB/s|$540|16.88|3.31|0.75', 'RTX 4090': '24 GB|1.01 TB/s|$390|16.25|2.59|0.54',
  L4: '24 GB|300 GB/s|$250|10.42|1.20|0.35', 'RTX 3090': '24 GB|936 GB/s|$230|9.58|4.07|0.32',
  'RTX A5000': '24 GB|768 GB/s|$190|7.92|4.04|0.26',
};

test('fleet: the published prices and ratios, and decode figures that follow the weights', async () => {
  const browser = await openView('?view=fleet&model=guide-70b&weights=fp8');
  try {
    const { page } = browser;
    const rows = await page.locator(`${PANEL} tbody tr`).evaluateAll((trs) => Object.fromEntries(trs.map((tr) => [
      tr.querySelector('th').textContent, [...tr.querySelectorAll('td.num')].map((td) => td.textContent),
    ])));
    for (const [name, expected] of Object.entries(FLEET)) {
      assert.ok(rows[name], `no row for ${name}`);
      assert.equal(rows[name].slice(0, 6).join('|'), expected, name);
    }
    await screenshot(page, 'fleet');
    // With the model: 70B FP8 fits one H100 SXM, at most 46 tokens/s per
    // stream (SPEC section 5: 3.35 TB/s over 70 GB of weights and 2.7 GB of
    // cache at 8k), the ceiling the calculator's cheapest list gives; the
    // expected figure is the core's for one H100 SXM (70% of the bandwidth,
    // each FP8 linear's input quantization: 31), rounded as the page rounds
    // it; the price per token follows the expected speed (tests/cpp/test_fit.cpp).
    const h100 = (await core()).fleet({ model: 'guide-70b', weights: 'fp8' }).find((g) => g.id === 'h100-sxm');
    assert.equal(Math.round(h100.decode_stream_tokens_per_s), 46);
    assert.deepEqual(rows['H100 SXM'].slice(6, 9), ['1×', String(Math.round(h100.decode_expected_tokens_per_s)), '46']);
    const perMillion = rows['H100 SXM'][9];
    await page.locator('vram-calculator #weights').selectOption('bf16');
    await page.waitForFunction((before) => {
      const row = document.querySelector('vram-calculator').shadowRoot.querySelector('[role=tabpanel]:not([hidden]) tr[data-gpu="h100-sxm"]');
      const cells = row && row.querySelectorAll('td.num');
      return cells && cells[6].textContent === '2×' && cells[9].textContent !== before;
    }, perMillion);
    // As the checkpoint stores it: gpt-oss-120b in MXFP4 (67 GB) fits one
    // H100, where BF16 (about 236 GB) would take four.
    await page.locator('vram-calculator #weights').selectOption('native');
    await page.evaluate(() => document.querySelector('vram-calculator').setAttribute('model', 'gpt-oss-120b'));
    await page.waitForFunction(() => {
      const row = document.querySelector('vram-calculator').shadowRoot.querySelector('[role=tabpanel]:not([hidden]) tr[data-gpu="h100-sxm"]');
      return row && row.querySelectorAll('td.num')[6].textContent === '1×';
    });
    assert.match(await page.locator(`${PANEL} caption`).textContent(), /gpt-oss-120b \(MoE, MXFP4\) in its checkpoint's own format/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
