// The serving plan on the page (issue 11): gpu_count cards serve one model
// under the engine; the headline, the fit and the spare are counted over
// the same cards, and no speed is shown for a setup that does not fit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, screenshot, text } from './harness.mjs';
import { core } from '../js/module.mjs';

const TOTAL = 'vram-calculator .total-value';
const FIT = 'vram-calculator .fit';
const SERVING = 'vram-calculator section.serving';
const CASE = '?model=llama-3.1-70b&weights=fp8&context=32768&batch=20&engine=vllm&gpu=h200-sxm';

test('70B FP8 at 32k x 20 users on 4x H200 under vLLM: tensor parallel 4, it fits, spare counted over the four', async () => {
  const browser = await openPage(`${CASE}&gpu_count=4`);
  try {
    const { page } = browser;
    await page.locator(SERVING).waitFor();
    assert.equal(await page.locator(FIT).getAttribute('data-fits'), 'true');
    const fit = await text(page, FIT);
    assert.match(fit, /4× H200 SXM/);
    assert.doesNotMatch(fit, /-\d|short/);
    // Headline over the four cards (about 305 GB), each card a quarter: as the core says.
    const answer = (await core()).estimate({ model: 'llama-3.1-70b', weights: 'fp8', context: 32768, batch: 20, engine: 'vllm', gpu: 'h200-sxm', gpu_count: 4 });
    const { per_gpu_gb: perGpu, total_gb: total } = answer.serving;
    assert.ok(perGpu > 70 && perGpu < 80 && Math.abs(total - 4 * perGpu) < 1e-6, `${perGpu} per GPU, ${total} over all`);
    assert.equal(await text(page, TOTAL), `${Math.round(total)} GB`);
    assert.match(await text(page, 'vram-calculator .total-per-gpu'), new RegExp(`${Math.round(perGpu)} GB on each of 4 GPUs`));
    const serving = await text(page, SERVING);
    assert.match(serving, /tensor parallel 4/);
    assert.ok(answer.serving.max_users >= 20, `the core sustains ${answer.serving.max_users} users`);
    assert.match(serving, new RegExp(`${answer.serving.max_users} \\(requested 20: they fit\\)`));
    assert.equal(await page.locator(SERVING).getAttribute('data-fits'), 'true');
    assert.ok(await page.locator('vram-calculator h3', { hasText: 'Decode' }).count() > 0);
    await screenshot(page, 'serving-4x-h200');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('the same load on one H200: does not fit, four needed, and no decode speed', async () => {
  const browser = await openPage(`${CASE}&gpu_count=1`);
  try {
    const { page } = browser;
    await page.locator(SERVING).waitFor();
    assert.equal(await page.locator(FIT).getAttribute('data-fits'), 'false');
    assert.equal(await page.locator(SERVING).getAttribute('data-fits'), 'false');
    const serving = await text(page, SERVING);
    assert.match(serving, /they do not fit/);
    assert.match(serving, /Fewest of this card that hold it\s*4/);
    assert.equal(await page.locator('vram-calculator h3', { hasText: 'Decode' }).count(), 0);
    assert.match(await text(page, 'vram-calculator .warnings'), /4× H200 SXM is the fewest that does/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('DeepSeek V3 on one H200 shows no decode speed', async () => {
  const browser = await openPage('?model=deepseek-v3&engine=vllm&gpu=h200-sxm&gpu_count=1');
  try {
    const { page } = browser;
    await page.locator(SERVING).waitFor();
    assert.equal(await page.locator(FIT).getAttribute('data-fits'), 'false');
    assert.equal(await page.locator('vram-calculator h3', { hasText: 'Decode' }).count(), 0);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

// Speed a user can plan with: expected decode per user beside its ceiling,
// time to first token for the context, the floor's verdict, and the
// cheapest list split at the floor. Every figure is the core's.
test('4x H200 under vLLM: expected tokens/s per user, first-token time and the ceiling, as the core says', async () => {
  const browser = await openPage(`${CASE}&gpu_count=4`);
  try {
    const { page } = browser;
    const answer = (await core()).estimate({ model: 'llama-3.1-70b', weights: 'fp8', context: 32768, batch: 20, engine: 'vllm', gpu: 'h200-sxm', gpu_count: 4 });
    const d = answer.decode;
    assert.ok(d.expected_tokens_per_s < d.ceiling_tokens_per_s);
    assert.ok(d.step_ms.allreduce > 0, 'tensor parallel 4 pays its all-reduces');
    const block = await text(page, 'vram-calculator section.decode');
    assert.match(block, new RegExp(`Expected per user≈ ${Math.round(d.expected_tokens_per_s)} tokens/s`));
    assert.match(block, /Expected for all 20 users≈/);
    assert.match(block, new RegExp(`Time to first token \\(32,768-token prompt\\)${answer.prefill.ttft_s.toFixed(2)} s`));
    assert.match(block, /Service floor10\.0 tokens\/s per user: met/);
    // The ceiling stays visible in the details.
    await page.locator('vram-calculator details[data-key=decode-ceilings] summary').click();
    await page.locator('vram-calculator details[data-key=decode-ceilings] dl').waitFor();
    assert.match(await text(page, 'vram-calculator details[data-key=decode-ceilings]'), new RegExp(`≤ ${Math.round(d.stream_tokens_per_s)} tokens/s`));
    await page.locator('vram-calculator details[data-key=assumptions] summary').click();
    await page.locator('vram-calculator details[data-key=assumptions] li').first().waitFor();
    assert.match(await text(page, 'vram-calculator details[data-key=assumptions]'), /two all-reduces per layer over NVLink/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('a floor of 40 tokens/s per user: the slow sets are listed apart with the reason', async () => {
  const query = '?model=llama-3.1-70b&weights=fp8&context=32768&batch=20&engine=vllm&gpu=h200-sxm&gpu_count=4&min_tokens_per_s=40';
  const browser = await openPage(query);
  try {
    const { page } = browser;
    const answer = (await core()).estimate({ model: 'llama-3.1-70b', weights: 'fp8', context: 32768, batch: 20, engine: 'vllm', gpu: 'h200-sxm', gpu_count: 4, min_tokens_per_s: 40 });
    assert.ok(answer.below_floor.length > 0 && answer.fits.length > 0);
    const listed = await page.locator('vram-calculator table.fits tbody tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.gpu));
    assert.deepEqual(listed, answer.fits.slice(0, 5).map((f) => f.gpu));
    for (const f of answer.fits) assert.ok(f.decode_expected_tokens_per_s >= 40);
    const below = await text(page, 'vram-calculator .below-floor');
    assert.match(below, /Below the floor of 40\.0 tokens\/s per user/);
    const first = answer.below_floor[0];
    assert.match(below, new RegExp(`${first.count}× ${first.name}: ${first.decode_expected_tokens_per_s.toFixed(1)} tokens/s per user expected, under the floor of 40\\.0`));
    assert.equal(await page.locator('vram-calculator #min_tokens_per_s').inputValue(), '40');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('llama.cpp over two RTX 4090: the layer split reads at one card\'s bandwidth, and the speed says so', async () => {
  const browser = await openPage('?model=llama-3.1-70b&weights=q4_k_m&engine=llamacpp&gpu=rtx-4090&gpu_count=2');
  try {
    const { page } = browser;
    const two = (await core()).estimate({ model: 'llama-3.1-70b', weights: 'q4_k_m', engine: 'llamacpp', gpu: 'rtx-4090', gpu_count: 2 });
    assert.equal(two.decode.gpus, 1);
    assert.equal(two.decode.stages, 2);
    assert.match(await text(page, 'vram-calculator section.decode'), new RegExp(`≈ ${Math.round(two.decode.expected_tokens_per_s)} tokens/s`));
    await page.locator('vram-calculator details[data-key=assumptions] summary').click();
    await page.locator('vram-calculator details[data-key=assumptions] li').first().waitFor();
    assert.match(await text(page, 'vram-calculator details[data-key=assumptions]'), /The 2 stages run one after another/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('the speed and the floor in Arabic at 390 px', async () => {
  const browser = await openPage(`${CASE}&gpu_count=4&min_tokens_per_s=40&lang=ar`, { viewport: { width: 390, height: 844 } });
  try {
    const { page } = browser;
    await page.locator('vram-calculator section.decode').waitFor();
    assert.match(await text(page, 'vram-calculator section.decode'), /المتوقع لكل مستخدم/);
    assert.match(await text(page, 'vram-calculator .below-floor'), /دون الحد الأدنى/);
    // Nothing wider than the screen.
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= 390, `page is ${wide} px wide`);
    await screenshot(page, 'speed-ar-390');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

// MoE expert parallel and attention data parallel (issue 11): DeepSeek V3
// on 8x H200 under vLLM. Tensor parallel keeps the whole MLA latent on
// every card; eight DP ranks each cache only their own users, so the page
// shows the concurrency the core computes, the experts per GPU, and the
// command with --data-parallel-size and --enable-expert-parallel.
const EP = '?model=deepseek-v3&weights=fp8&context=32768&batch=64&engine=vllm&gpu=h200-sxm&gpu_count=8';
const EP_REQUEST = { model: 'deepseek-v3', weights: 'fp8', context: 32768, batch: 64, engine: 'vllm', gpu: 'h200-sxm', gpu_count: 8 };

test('DeepSeek V3 on 8x H200, vLLM with expert parallel and DP attention: users, experts per GPU and the command', async () => {
  const answer = (await core()).estimate({ ...EP_REQUEST, engine_options: { expert_parallel: true, data_parallel_size: 8 } });
  const tensor = (await core()).estimate(EP_REQUEST);
  assert.equal(answer.serving.fits, true);
  assert.equal(tensor.serving.fits, false);
  const browser = await openPage(`${EP}&opt.expert_parallel=true&opt.data_parallel_size=8`);
  try {
    const { page } = browser;
    await page.locator(SERVING).waitFor();
    const serving = await text(page, SERVING);
    assert.match(serving, /8 data-parallel ranks of one GPU each/);
    assert.match(serving, /up to 32 of the 256 experts whole on each GPU \(expert parallel 8\); attention and KV cache per rank/);
    assert.match(serving, new RegExp(`${answer.serving.max_users} \\(requested 64: they fit\\)`));
    assert.equal(await page.locator(SERVING).getAttribute('data-fits'), 'true');
    const command = await page.locator('vram-calculator section.launch code').textContent();
    assert.equal(command, answer.launch.command);
    assert.match(command, / --data-parallel-size 8 --enable-expert-parallel /);
    // The knobs show what the address set.
    assert.equal(await page.locator('vram-calculator [id="opt.expert_parallel"]').isChecked(), true);
    assert.equal(await page.locator('vram-calculator [id="opt.data_parallel_size"]').inputValue(), '8');
    // Switching expert parallel off (the engine's options are folded away) keeps DP
    // attention and splits the experts instead.
    await page.locator('vram-calculator summary', { hasText: 'vLLM options' }).first().click();
    await page.locator('vram-calculator [id="opt.expert_parallel"]').uncheck();
    await page.waitForFunction(() => location.search.includes('opt.expert_parallel=false'));
    await page.waitForFunction(() => !document.querySelector('vram-calculator').shadowRoot.querySelector('section.launch code').textContent.includes('--enable-expert-parallel'));
    assert.match(await text(page, SERVING), /each of the 256 experts split over 8 GPUs/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
  // Tensor parallel alone: the same cards hold fewer users than requested.
  const plain = await openPage(EP);
  try {
    await plain.page.locator(SERVING).waitFor();
    const serving = await text(plain.page, SERVING);
    assert.match(serving, /each of the 256 experts split over 8 GPUs \(tensor parallel\)/);
    assert.match(serving, new RegExp(`${tensor.serving.max_users} \\(requested 64: they do not fit\\)`));
    assert.deepEqual(plain.errors, []);
  } finally {
    await plain.close();
  }
});
