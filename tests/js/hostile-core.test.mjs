// Issue 15 in wasm: hostile inputs end in named errors, the binding never
// throws into JS, and the module still answers a preset afterwards. The
// vectors (tests/vectors/errors.json) hold the named cases; these are the
// ones too big for a vector file, and the module's health after them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadJson, rawCall } from './module.mjs';

const nested = (depth) => '['.repeat(depth) + ']'.repeat(depth);

function errorOf(method, text) {
  return rawCall(method, text).then((answer) => {
    const result = JSON.parse(answer);
    assert.ok(result.error, answer.slice(0, 300));
    for (const key of ['code', 'field', 'message', 'message_id']) assert.equal(typeof result.error[key], 'string', key);
    assert.equal(typeof result.error.params, 'object');
    return result.error;
  });
}

const llama = (layers) => ({
  model_type: 'llama', hidden_size: 4096, num_hidden_layers: layers, num_attention_heads: 32,
  num_key_value_heads: 8, intermediate_size: 14336, vocab_size: 128256,
});

test('hostile inputs are named errors in wasm, and the module lives on', async () => {
  const deep = await errorOf('estimate', `{"model":"guide-70b","engine":"vllm","engine_options":{"x":${nested(100000)}}}`);
  assert.equal(deep.code, 'too_deep');

  const layers = await errorOf('estimate', JSON.stringify({ config: llama(1e8), gpu: 'h100-sxm' }));
  assert.equal(layers.field, 'config.num_hidden_layers');
  assert.equal(layers.message_id, 'error.range');

  const wrapped = await errorOf('estimate', JSON.stringify({ config: llama(4294967297) }));
  assert.equal(wrapped.field, 'config.num_hidden_layers');

  const large = await errorOf('estimate', `{"model":"guide-70b"}${' '.repeat(10_000_000)}`);
  assert.equal(large.code, 'too_large');

  const overflow = await errorOf('estimate', '{"model":"guide-70b","context":1e400}');
  assert.equal(overflow.code, 'parse_error');

  // 'é' and a lone surrogate: Embind sends the surrogate as bytes that are
  // not UTF-8; neither may escape as a WebAssembly.Exception.
  for (const text of ['é', '{"model":"\ud800"}', '{"\ud800":1}']) {
    const error = await errorOf('estimate', text);
    assert.ok(['parse_error', 'unknown_field', 'unknown_model'].includes(error.code), error.code);
  }

  const key = await errorOf('estimate', JSON.stringify({ model: 'guide-70b', ['k'.repeat(100000)]: 1 }));
  assert.ok(key.field.length < 260, `field of ${key.field.length} characters`);
  assert.match(key.field, /^k{200}…$/);

  // Issue 15 item 1: negative first_k_dense_replace corrupted the heap and
  // killed the module for every later call.
  const config = loadJson('tests/configs/deepseek-v2-lite/config.json');
  for (const value of [-1, -2, -1000]) {
    const error = await errorOf('estimate', JSON.stringify({ config: { ...config, first_k_dense_replace: value } }));
    assert.equal(error.field, 'config.first_k_dense_replace');
  }

  const answer = JSON.parse(await rawCall('estimate', '{"model":"guide-70b","weights":"fp8","context":8192}'));
  assert.equal(answer.error, undefined);
  assert.ok(answer.total_gb > 70 && answer.total_gb < 80, String(answer.total_gb));
});

test('many malformed calls leave the module answering', async () => {
  for (let i = 0; i < 2000; i++) await errorOf('estimate', i % 2 ? 'é' : '{"context":1e400}');
  const answer = JSON.parse(await rawCall('presets', ''));
  assert.ok(answer.models.length > 40);
});
