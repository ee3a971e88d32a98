// How the page starts its core (web/src/core.js): the module's bytes, as
// tools/build-page.mjs packs them (raw deflate, base64), compiled as they
// inflate, or once inflated where streaming is missing; one compiled module
// instantiated afresh for every start (a restart after a crash compiles
// nothing); a broken pack refused, never a hang.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { compileBase64, inflateBase64, instantiating, wrap } from '../../web/src/core.js';
import { root } from './module.mjs';

const require = createRequire(import.meta.url);
const glue = join(root, 'build/wasm/module/vram.js');
const factory = require(glue);
const bytes = Buffer.from(/data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/.exec(readFileSync(glue, 'utf8'))[1], 'base64');
const packed = deflateRawSync(bytes, { level: 9 }).toString('base64');

const REQUEST = { model: 'guide-70b', weights: 'fp8', context: 8192, gpu: 'h100-pcie' };

test('the packed bytes inflate to the module, byte for byte', async () => {
  assert.deepEqual(Buffer.from(await inflateBase64(packed)), bytes);
});

test('compiled as it inflates, or once inflated without streaming: the same module', async () => {
  const streamed = await compileBase64(packed);
  assert.ok(streamed instanceof WebAssembly.Module);
  const compileStreaming = WebAssembly.compileStreaming;
  let whole;
  try {
    delete WebAssembly.compileStreaming;
    whole = await compileBase64(packed);
  } finally {
    WebAssembly.compileStreaming = compileStreaming;
  }
  assert.deepEqual(WebAssembly.Module.exports(whole), WebAssembly.Module.exports(streamed));
  assert.deepEqual(WebAssembly.Module.imports(whole), WebAssembly.Module.imports(streamed));
});

test('one compiled module, a fresh instance per start, each answering as the plain factory does', async () => {
  const start = instantiating(factory, compileBase64(packed));
  const [first, second] = await Promise.all([start(), start()]);
  assert.notEqual(first, second);
  const expected = wrap(await factory()).estimate(REQUEST);
  assert.deepEqual(wrap(first).estimate(REQUEST), expected);
  // A second instance has its own memory: a call on one leaves the other as it was.
  assert.notEqual(first.HEAP8.buffer, second.HEAP8.buffer);
  assert.deepEqual(wrap(second).estimate(REQUEST), expected);
});

test('a broken pack is refused, never a hang', async () => {
  const truncated = deflateRawSync(bytes.subarray(0, bytes.length >> 1)).toString('base64');
  await assert.rejects(compileBase64(truncated));
  await assert.rejects(compileBase64(Buffer.from('not deflate at all').toString('base64')));
  const start = instantiating(factory, compileBase64(truncated));
  await assert.rejects(start());
});

test('callBytes answers the bytes of what call answers, and the wrapper reads them as call', async () => {
  const module = await factory();
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  // Non-ASCII both ways: a model name quoted back in an error, Persian digits, a long answer.
  const cases = [
    ['estimate', JSON.stringify(REQUEST)],
    ['estimate', JSON.stringify({ model: 'مدل-۷۰b\u2068', context: 8192 })],
    ['presets', '{}'],
    ['grid', '{"context":8192}'],
    ['nonsense', 'not json'],
  ];
  for (const [method, request] of cases) {
    const view = module.callBytes(method, request);
    assert.ok(view instanceof Uint8Array);
    assert.equal(decoder.decode(view), module.call(method, request), `${method} ${request}`);
  }
  // The wrapper takes callBytes where the module has it, call where not: the same answers.
  const plain = { call: (method, request) => module.call(method, request) };
  assert.deepEqual(wrap(module).presets(), wrap(plain).presets());
  assert.deepEqual(wrap(module).estimate(REQUEST), wrap(plain).estimate(REQUEST));
  assert.throws(() => wrap(module).estimate({ model: 'no-such-model' }), (error) => error.code === 'unknown_model');
});
