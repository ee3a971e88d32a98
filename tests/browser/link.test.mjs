// Every state reachable on the page reopens from its own link to the same
// answer: a link carries everything the answer depends on, an imported
// GGUF's tensor totals included (summed by type and component), and the
// file's own name, which labels the model and goes in the command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtures } from '../js/gguf-writer.mjs';
import { openPage, pageUrl, text } from './harness.mjs';

const TOTAL = 'vram-calculator .total-value';

/** The link "Copy link" copies for the state shown now (its query). */
async function ownLink(page) {
  return page.evaluate(() => {
    const el = document.querySelector('vram-calculator');
    el.change({}, { push: true });
    el.flushUrl();
    return new URL(el.linkToCopy()).search;
  });
}

/** What a state answers: the total and every term, as shown. */
async function answer(page) {
  await page.locator(TOTAL).waitFor();
  return page.evaluate(() => {
    const root = document.querySelector('vram-calculator').shadowRoot;
    return {
      total: root.querySelector('.total-value')?.textContent.trim(),
      terms: [...root.querySelectorAll('table.terms tbody tr')].map((row) => row.textContent.trim()),
      command: root.querySelector('.launch-command')?.textContent ?? null,
      model: root.querySelector('#model').value,
    };
  });
}

/**
 * Reads the answer shown, then opens the page's own link in the same tab (a
 * new document: nothing of the state survives but the link, as when a friend
 * opens it; the page keeps nothing in storage) and reads it again. The same tab keeps its renderer process, a
 * new one costs about half a CPU-second to start.
 */
async function reopens(page, query) {
  const before = await answer(page);
  const link = await ownLink(page);
  await page.goto(`${pageUrl}${link}`);
  await page.locator('vram-calculator .main').waitFor();
  const after = await answer(page);
  const notices = await page.evaluate(() => document.querySelector('vram-calculator').shadowRoot.querySelector('.notices').textContent);
  assert.equal(notices, '', `${query}: the link ${link} reopens with notices`);
  assert.deepEqual(after, before, `${query}: the link ${link} reopens another answer`);
  return link;
}

test('a GGUF: named as its file, in the command too, and its link reopens the same figures', async () => {
  const browser = await openPage('?engine=llamacpp&gpu=h100-pcie');
  try {
    const { page } = browser;
    const bytes = fixtures['llama-q4_k_m']().build();
    await page.locator('vram-calculator #config-file').setInputFiles({ name: 'tiny Q4_K_M.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
    await page.waitForFunction(() => /Q6_K/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('#checkpoint-info').textContent));
    await page.waitForFunction(() => /\(Q6_K\)/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('table.terms').textContent));
    const shown = await answer(page);
    assert.equal(shown.model, 'tiny Q4_K_M.gguf');
    assert.match(shown.command, /^llama-server -m 'tiny Q4_K_M\.gguf' /);
    assert.match(await text(page, 'vram-calculator .main'), /tiny Q4_K_M\.gguf/);
    const link = await reopens(page, 'gguf');
    assert.match(link, /checkpoint=gguf\.21-/);
    assert.ok(link.length < 1200, `a compact link (${link.length} characters)`);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('a link whose checkpoint summary is not one the page writes is named, not used', async () => {
  const browser = await openPage('?model=config&config=%7B%7D&checkpoint=gguf.1-Q4_K.x');
  try {
    assert.match(await text(browser.page, 'vram-calculator .notices'), /checkpoint.*not a checkpoint summary/);
  } finally {
    await browser.close();
  }
});

test('every reachable state reopens from its own link to the same answer', async () => {
  const config = encodeURIComponent(JSON.stringify({ model_type: 'qwen2', hidden_size: 2048, num_hidden_layers: 24, num_attention_heads: 16, num_key_value_heads: 2, intermediate_size: 11008, vocab_size: 151936, torch_dtype: 'bfloat16' }));
  const queries = [
    '',
    '?model=llama-3.1-8b',
    '?model=gpt-oss-120b&weights=native',
    '?model=qwen3-32b&gpu=rtx-4090&engine=llamacpp',
    '?model=llama-3.1-70b&gpu=h200&engine=llamacpp&context=131072',
    '?model=custom&hidden=2048&layers=16',
    `?model=config&config=${config}`,
    '?budget_gb=20',
    '?gpu=&model=llama-3.1-8b',
    '?model=llama-3.1-8b&gpu_count=2&engine=vllm',
    '?model=llama-3.1-8b&mode=full',
    '?model=llama-3.1-8b&mode=lora&lora_rank=32',
    '?model=llama-3.1-8b&mode=qlora&optimizer=sgd',
    '?model=llama-3.1-8b&usable_fraction=0.8&min_tokens_per_s=30',
    '?model=llama-3.1-8b&engine=vllm&gpu=h100-sxm&gpu_used_gb=20',
    '?model=llama-3.1-8b&engine=llamacpp&gpu=rtx-4090&gpu_used_gb=3',
    '?model=llama-3.1-70b&weights=q4_k_m&engine=llamacpp&split_gpus=rtx-3090,rtx-4090,rtx-3090',
    '?model=llama-3.1-8b&engine=vllm&gpu=h100-sxm&opt.max_loras=8&opt.max_lora_rank=64',
  ];
  for (const engine of ['guide', 'percent', 'vllm', 'sglang', 'llamacpp', 'transformers']) queries.push(`?model=qwen3-32b&engine=${engine}`);
  // One tab for every state: each is opened by its own address, a new document.
  const browser = await openPage();
  try {
    for (const query of queries) {
      await browser.page.goto(`${pageUrl}${query}`);
      await browser.page.locator('vram-calculator .main').waitFor();
      await reopens(browser.page, query || '(fresh)');
      assert.deepEqual(browser.errors, [], query);
    }
  } finally {
    await browser.close();
  }
});

test('under transformers no set meets the floor: the page says so, not that no card holds it', async () => {
  const browser = await openPage('?engine=transformers');
  try {
    const { page } = browser;
    await page.locator('vram-calculator .below-floor').waitFor();
    const all = await text(page, 'vram-calculator .main');
    assert.doesNotMatch(all, /No card of the catalog holds it/);
    assert.match(await text(page, 'vram-calculator .fits-none'), /under the floor of/);
  } finally {
    await browser.close();
  }
});

test('a budget of one\'s own with a card chosen is said as the budget, not as the card', async () => {
  const browser = await openPage('?model=llama-3.1-8b&gpu=h100-pcie&budget_gb=20');
  try {
    const fit = await text(browser.page, 'vram-calculator .fit strong');
    assert.doesNotMatch(fit, /H100 PCIe \(20 GB\)/);
    assert.match(fit, /budget of 20 GB/);
  } finally {
    await browser.close();
  }
});

test('memory other processes hold: typed on the page, a term under llama.cpp, a lower share in vLLM\'s command', async () => {
  const browser = await openPage('?model=llama-3.1-8b&weights=bf16&engine=llamacpp&gpu=rtx-4090');
  try {
    const { page } = browser;
    const before = await text(page, 'vram-calculator .total-value');
    const field = page.locator('vram-calculator #gpu_used_gb');
    await field.fill('3');
    await field.press('Tab');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('gpu_used_gb') === '3');
    await page.waitForFunction((b) => document.querySelector('vram-calculator').shadowRoot.querySelector('.total-value').textContent !== b, before);
    assert.match(await text(page, 'vram-calculator table.terms'), /Held by other processes\s*3(\.0+)? GB/);
    // Under vLLM the same card with 20 GB held: its share comes down and the command carries it.
    await page.locator('vram-calculator #engine').selectOption('vllm');
    await page.locator('vram-calculator #gpu').selectOption('h100-sxm');
    await field.fill('20');
    await field.press('Tab');
    await page.waitForFunction(() => /--gpu-memory-utilization 0\.7\d/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('section.launch')?.textContent || ''));
    assert.match(await text(page, 'vram-calculator .main'), /vLLM refuses to start with less free memory than its share/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
