// The command that runs the plan (issue 11): under the serving plan, the
// engine's command in a left-to-right <code>, and a Copy button that puts
// it on the clipboard (or selects it when there is no clipboard).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLIPBOARD, openPage, text, waitForText } from './harness.mjs';
import { core } from '../js/module.mjs';

const LAUNCH = 'vram-calculator section.launch';
const CASE = '?model=llama-3.1-70b&weights=fp8&context=32768&batch=20&engine=vllm&gpu=h200-sxm&gpu_count=4';

test('the vLLM command shows under the serving plan, and Copy puts it on the clipboard', async () => {
  const browser = await openPage(CASE, { permissions: CLIPBOARD });
  try {
    const { page } = browser;
    await page.locator(LAUNCH).waitFor();
    const code = page.locator(`${LAUNCH} code`);
    assert.equal(await code.getAttribute('dir'), 'ltr');
    assert.equal(await code.getAttribute('lang'), 'en');
    const command = await code.textContent();
    assert.match(command, /^vllm serve \S+ /);
    // --max-num-seqs is the max_num_seqs the KV budget's profile ran with (1024 on an H200),
    // not the 20 users: the budget shown is the command's.
    const answer = (await core()).estimate({ model: 'llama-3.1-70b', weights: 'fp8', context: 32768, batch: 20, engine: 'vllm', gpu: 'h200-sxm', gpu_count: 4 });
    const seqs = answer.terms.find((t) => t.id === 'activations').inputs.max_num_seqs;
    assert.equal(seqs, 1024);
    assert.equal(command, answer.launch.command);
    for (const piece of ['--tensor-parallel-size 4', '--max-model-len 32768', `--max-num-seqs ${seqs}`, '--quantization fp8']) {
      assert.ok(command.includes(` ${piece}`), piece);
    }
    // After the serving plan block.
    const order = await page.evaluate(() => {
      const root = document.querySelector('vram-calculator').shadowRoot;
      const serving = root.querySelector('section.serving');
      const launch = root.querySelector('section.launch');
      return Boolean(serving.compareDocumentPosition(launch) & Node.DOCUMENT_POSITION_FOLLOWING);
    });
    assert.ok(order);
    await page.locator(`${LAUNCH} button.launch-copy`).click();
    await waitForText(page, `${LAUNCH} [role=status]`, 'Copied');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), command);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('without a clipboard, Copy selects the command; the conventions show none', async () => {
  const browser = await openPage(CASE);
  try {
    const { page } = browser;
    await page.locator(LAUNCH).waitFor();
    await page.evaluate(() => {
      navigator.clipboard.writeText = () => Promise.reject(new Error('denied'));
    });
    await page.locator(`${LAUNCH} button.launch-copy`).click();
    await waitForText(page, `${LAUNCH} [role=status]`, 'Selected: press Ctrl+C to copy');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
  const guide = await openPage('?model=llama-3.1-8b&engine=guide&gpu=h100-sxm');
  try {
    await guide.page.locator('vram-calculator .total-value').waitFor();
    assert.equal(await guide.page.locator(LAUNCH).count(), 0);
    assert.ok((await text(guide.page, 'vram-calculator .total-value')).length > 0);
  } finally {
    await guide.close();
  }
});

test('a preset runs from its hub repository; under llama.cpp the same plan is also given for Ollama, in Persian too', async () => {
  const request = { model: 'llama-3.1-8b', engine: 'llamacpp', context: 16384, batch: 4, kv: 'q8_0', engine_options: { flash_attn: true }, gpu: 'rtx-4090' };
  const answer = (await core()).estimate(request);
  const [ollama] = answer.launch.also;
  assert.match(ollama.command, /^OLLAMA_CONTEXT_LENGTH=16384 OLLAMA_NUM_PARALLEL=4 .*ollama serve$/);
  const browser = await openPage('?model=llama-3.1-8b&engine=llamacpp&context=16384&batch=4&kv=q8_0&opt.flash_attn=true&gpu=rtx-4090&lang=fa', { permissions: CLIPBOARD });
  try {
    const { page } = browser;
    await page.locator(LAUNCH).waitFor();
    const codes = page.locator(`${LAUNCH} code`);
    assert.equal(await codes.count(), 2);
    assert.equal(await codes.nth(0).textContent(), answer.launch.command);
    assert.equal(await codes.nth(1).textContent(), ollama.command);
    assert.equal(await codes.nth(1).getAttribute('dir'), 'ltr');
    const heading = await text(page, `${LAUNCH} .launch-also h4`);
    assert.ok(heading.includes('Ollama') && /[\u0600-\u06FF]/.test(heading), heading);
    await page.locator(`${LAUNCH} .launch-also button.launch-copy`).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), ollama.command);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
  const vllm = (await core()).estimate({ model: 'qwen3-8b', engine: 'vllm' });
  assert.equal(vllm.launch.model, 'Qwen/Qwen3-8B');
  assert.ok(vllm.launch.command.startsWith('vllm serve Qwen/Qwen3-8B'));
});

test('a fine-tuning plan shows its transformers, PEFT and TRL calls, and the launcher on several GPUs, in Arabic', async () => {
  const request = { model: 'qwen3-8b', mode: 'qlora', gpu: 'h100-sxm', gpu_count: 2, zero: 2, optimizer: 'sgd', momentum: 0.9 };
  const answer = (await core()).estimate(request);
  const browser = await openPage('?model=qwen3-8b&mode=qlora&gpu=h100-sxm&gpu_count=2&zero=2&optimizer=sgd&momentum=0.9&lang=ar');
  try {
    const { page } = browser;
    await page.locator(LAUNCH).waitFor();
    const codes = page.locator(`${LAUNCH} code`);
    assert.equal(await codes.count(), 2);
    assert.equal(await codes.nth(0).textContent(), answer.launch.command);
    assert.match(answer.launch.command, /^model = AutoModelForCausalLM\.from_pretrained\("Qwen\/Qwen3-8B", /);
    assert.equal(await codes.nth(1).textContent(), 'accelerate launch --num_processes 2 train.py');
    const title = await text(page, `${LAUNCH} h3`);
    assert.ok(/[\u0600-\u06FF]/.test(title) && title.includes('TRL'), title);
    // SGD's momentum, which optim="sgd" cannot carry: a note with the code quoted left to right.
    const note = page.locator(`${LAUNCH} .launch-notes li`);
    assert.equal(await note.count(), 1);
    assert.equal(await note.locator('[lang=en]').first().getAttribute('dir'), 'ltr');
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('the Qwen3 reranker is served as a reranker: its preset\'s flags in the page\'s command', async () => {
  const browser = await openPage('?model=qwen3-reranker-0.6b&engine=vllm&gpu=l4');
  try {
    const { page } = browser;
    await page.locator(LAUNCH).waitFor();
    const command = await page.locator(`${LAUNCH} code`).first().textContent();
    assert.ok(command.startsWith('vllm serve Qwen/Qwen3-Reranker-0.6B --runner pooling --hf-overrides \'{"architectures":["Qwen3ForSequenceClassification"],"classifier_from_token":["no","yes"],"is_original_qwen3_reranker":true}\' '), command);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
