// The page's log view (issue 42): a pasted vLLM or llama.cpp start-up log is
// read by the core, each figure shown beside the calculator's in the page's
// language, the pool in users, and the pair saved as a validation case.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { networkRequests, openPage, screenshot } from './harness.mjs';

const PANEL = 'vram-calculator #panel-log';

const VLLM = [
  "INFO 01-16 14:19:51 [utils.py:253] non-default args: {'max_model_len': 2048, 'gpu_memory_utilization': 0.95, 'model': 'google/gemma-3-1b-it'}",
  "(EngineCore_DP0 pid=590168) INFO 01-16 14:20:13 [core.py:93] Initializing a V1 LLM engine (v0.13.0) with config: model='google/gemma-3-1b-it', dtype=torch.bfloat16, max_seq_len=2048, tensor_parallel_size=1, quantization=None, kv_cache_dtype=auto",
  '(EngineCore_DP0 pid=590168) INFO 01-16 14:20:20 [gpu_model_runner.py:3000] Model loading took 1.9147 GiB memory and 5.1 seconds',
  '(EngineCore_DP0 pid=590168) INFO 01-16 14:20:30 [gpu_worker.py:350] Available KV cache memory: 25.39 GiB',
  '(EngineCore_DP0 pid=590168) INFO 01-16 14:20:30 [kv_cache_utils.py:1200] GPU KV cache size: 950,864 tokens',
].join('\n');

async function paste(page, text) {
  await page.locator('vram-calculator #tab-log').click();
  await page.locator(`${PANEL} textarea`).fill(text);
  await page.locator(`${PANEL} table.log-rows`).waitFor();
}

test('a pasted vLLM log: each figure beside the calculator, the pool in users, saved as a case, offline', async () => {
  const browser = await openPage('?gpu=h100-sxm');
  try {
    const { page } = browser;
    await paste(page, VLLM);
    const rows = await page.locator(`${PANEL} table.log-rows tbody tr`).allTextContents();
    const weights = rows.find((r) => r.startsWith('Weights'));
    assert.ok(weights, rows.join(' | '));
    assert.match(weights, /1\.91 GiB/);
    assert.match(await page.locator(`${PANEL} .table-caption`).textContent(), /vLLM 0\.13\.0 .*gemma-3-1b-it.*gemma-3-1b/);
    // The KV budget is compared on the page's card: a prediction, not a dash.
    const budget = rows.find((r) => r.startsWith('KV cache budget'));
    assert.match(budget, /25\.39 GiB\s*\d[\d,.]* GiB/);
    assert.match(await page.locator(`${PANEL} .log-pool`).textContent(), /950,864 tokens, 464 requests of 2,048 tokens/);
    const download = page.waitForEvent('download');
    await page.locator(`${PANEL} .log-export`).click();
    const saved = JSON.parse(await readFile(await (await download).path(), 'utf8'));
    assert.equal(saved.request.model, 'gemma-3-1b');
    assert.ok(saved.measurements.some((m) => m.quantity === 'weights_gib' && m.value === 1.9147 && /Model loading took/.test(m.quote)));
    await screenshot(page, 'log-en');
    assert.deepEqual(networkRequests(browser.requests), []);
  } finally {
    await browser.close();
  }
});

test('in Persian and Arabic: the labels in the language, Persian digits, the log left to right', async () => {
  for (const [lang, label, digits] of [['fa', 'وزن‌ها', /۱٫۹۱/], ['ar', 'الأوزان', /1\.91/]]) {
    const browser = await openPage(`?lang=${lang}&gpu=h100-sxm`, { viewport: { width: 390, height: 844 } });
    try {
      const { page } = browser;
      await paste(page, VLLM);
      const rows = await page.locator(`${PANEL} table.log-rows tbody tr`).allTextContents();
      const weights = rows.find((r) => r.startsWith(label));
      assert.ok(weights, `${lang}: ${rows.join(' | ')}`);
      assert.match(weights, digits);
      assert.equal(await page.locator(`${PANEL} textarea`).getAttribute('dir'), 'ltr');
      await screenshot(page, `log-${lang}-phone`);
    } finally {
      await browser.close();
    }
  }
});

test('text that is no log is named; a log without a known model offers the page\'s', async () => {
  const browser = await openPage('?model=llama-3.1-8b');
  try {
    const { page } = browser;
    await page.locator('vram-calculator #tab-log').click();
    await page.locator(`${PANEL} textarea`).fill('hello, world');
    const alert = page.locator(`${PANEL} [role=alert]`);
    await alert.waitFor();
    assert.equal(await alert.getAttribute('data-code'), 'invalid_log');
    await page.locator(`${PANEL} textarea`).fill([
      'load_tensors: offloaded 33/33 layers to GPU',
      'load_tensors:        CUDA0 model buffer size =  4403.49 MiB',
      'llama_context: n_ctx         = 8192',
      'llama_kv_cache:      CUDA0 KV buffer size =  1024.00 MiB',
    ].join('\n'));
    await page.locator(`${PANEL} table.log-rows`).waitFor();
    const compare = page.locator(`${PANEL} button.link`);
    assert.match(await compare.textContent(), /Llama 3\.1 8B/);
    await compare.click();
    await page.waitForFunction(() => /1\.00 GiB\s*1\.00 GiB/.test(document.querySelector('vram-calculator').shadowRoot.querySelector('#panel-log tr[data-id=kv_buffer]')?.textContent || ''));
  } finally {
    await browser.close();
  }
});
