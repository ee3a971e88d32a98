// Every fine-tuning answer of tests/golden/finetune-answers.json, byte for
// byte, from the wasm module (tools/finetune-golden.mjs says what the
// requests are and how the file was made; tests/cpp/test_finetune_golden.cpp
// holds the native core to the same file).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expandProduct, fnv1a64, loadJson, rawCall } from './module.mjs';

const golden = loadJson('tests/golden/finetune-answers.json');

test('fine-tuning answers: the found requests, whole', async () => {
  assert.ok(golden.found.length >= 50);
  for (const c of golden.found) {
    const answer = await rawCall(c.method, JSON.stringify(c.request));
    if (answer !== c.answer) {
      let i = 0;
      while (i < answer.length && answer[i] === c.answer[i]) i++;
      const from = Math.max(0, i - 80);
      assert.fail(`${c.name}: at ${i}: now ...${answer.slice(from, i + 80)}... was ...${c.answer.slice(from, i + 80)}...`);
    }
  }
});

test('fine-tuning answers: the products, by length and digest', async () => {
  let compared = 0;
  for (const product of golden.products) {
    const requests = expandProduct(product.factors);
    assert.equal(requests.length, product.answers.length, product.name);
    for (const [i, request] of requests.entries()) {
      const answer = await rawCall(product.method, JSON.stringify(request));
      const got = `${Buffer.byteLength(answer, 'utf8')} ${fnv1a64(answer)}`;
      assert.equal(got, product.answers[i], `${product.name}: ${JSON.stringify(request)}`);
      compared++;
    }
  }
  assert.ok(compared > 3000, `compared ${compared}`);
});
