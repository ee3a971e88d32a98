// How the page starts its core (web/src/core.js): the module's bytes, as
// tools/build-page.mjs packs them (LZMA by Debian's xz, base64), compiled
// as they unpack through the page's own decoder (web/src/lzma.js,
// wasm/unlzma.cpp), or once unpacked where streaming is missing; one
// compiled module instantiated afresh for every start (a restart after a
// crash compiles nothing); a broken pack refused, never a hang.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { compileBase64, unpackBase64, unpackCore, splitTexts, instantiating, wrap } from '../../web/src/core.js';
import { unlzma } from '../../web/src/lzma.js';
import { packTexts } from '../../tools/build-page.mjs';
import { root } from './module.mjs';

const require = createRequire(import.meta.url);
const glue = join(root, 'build/wasm/module/vram.js');
const factory = require(glue);
const bytes = Buffer.from(/data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/.exec(readFileSync(glue, 'utf8'))[1], 'base64');
const decoderBytes = readFileSync(join(root, 'build/wasm/module/unlzma.wasm'));
// As the page hands it over: compiled once, for every stream.
const decoder = WebAssembly.compile(decoderBytes);

/** `data` as the page packs it: xz's .lzma, the unpacked size in its header. */
function lzma(data, options = '-6') {
  const out = execFileSync('xz', ['--format=lzma', options, '--stdout'], { input: data, maxBuffer: 64 << 20 });
  out.writeBigUInt64LE(BigInt(data.length), 5);
  return out;
}
const packed = lzma(bytes).toString('base64');

const REQUEST = { model: 'guide-70b', weights: 'fp8', context: 8192, gpu: 'h100-pcie' };

test('the packed bytes unpack to the module, byte for byte', async () => {
  assert.deepEqual(Buffer.from(await unpackBase64(packed, decoder)), bytes);
});

test('the decoder reads every stream xz writes: any lc, lp and pb, literals, long matches, repeats, an end marker', async () => {
  // Pseudo-random bytes (literals), one byte repeated (the longest
  // matches, repeats of the last distance), text with near-repeats (every
  // repeat distance), and a mix with distances past the align bits.
  let seed = 7;
  const random = Buffer.alloc(70000, 0).map(() => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
  const words = Buffer.from(Array.from({ length: 4000 }, (_, i) => `layer ${i % 97} head ${i % 13} kv ${(i * 7) % 31}\n`).join(''));
  const mixed = Buffer.concat([random.subarray(0, 9000), words, random.subarray(0, 9000), Buffer.alloc(5000, 65), words.subarray(100, 30000)]);
  const inputs = { random, repeated: Buffer.alloc(100000, 0x2a), words, mixed, one: Buffer.from('x') };
  const settings = ['-0', '-6', '-9e', '--lzma1=lc=0,lp=0,pb=0', '--lzma1=lc=4,lp=0,pb=2', '--lzma1=lc=0,lp=4,pb=4', '--lzma1=lc=1,lp=2,pb=1,dict=4KiB'];
  // The decoder as its bytes, and compiled once for every stream (as the page does).
  const compiledDecoder = await decoder;
  for (const [name, data] of Object.entries(inputs)) {
    for (const setting of settings) {
      const stream = lzma(data, setting);
      assert.deepEqual(Buffer.from(await unlzma(stream, decoderBytes)), data, `${name} ${setting}`);
      assert.deepEqual(Buffer.from(await unlzma(stream, compiledDecoder)), data, `${name} ${setting}, compiled`);
    }
  }
});

// A time limit, so that a decoder that hangs fails here instead of holding the suite.
test('a stream that is not one is a named error, never a hang or a write past the buffer', { timeout: 60_000 }, async () => {
  const text = Buffer.from('The KV cache grows with the context, the weights do not. '.repeat(200));
  const good = lzma(text);
  const refused = async (stream, why) => {
    await assert.rejects(unlzma(stream, decoderBytes), (error) => error instanceof Error && /^lzma: the packed module cannot be unpacked: /.test(error.message) && why.test(error.message));
  };
  await refused(good.subarray(0, 10), /header is not one/);
  await refused(good.subarray(0, good.length - 12), /ends before its data/);
  const badProps = Buffer.from(good);
  badProps[0] = 225;
  await refused(badProps, /header is not one/);
  const noSize = Buffer.from(good);
  noSize.fill(0xff, 5, 13);
  await refused(noSize, /header gives/);
  const huge = Buffer.from(good);
  huge.writeBigUInt64LE(1n << 40n, 5);
  await refused(huge, /header gives/);
  const short = Buffer.from(good);
  short.writeBigUInt64LE(BigInt(good.length * 100), 5);
  await refused(short, /ends before its data/);
  // Flipped bytes anywhere after the header: each a named error or bytes
  // of the stated size (a flip the range coder absorbs), never a hang.
  let seed = 11;
  for (let trial = 0; trial < 300; trial++) {
    const broken = Buffer.from(good);
    seed = (seed * 1103515245 + 12345) >>> 0;
    broken[13 + (seed % (broken.length - 13))] ^= 1 + (seed >>> 24) % 255;
    try {
      const out = await unlzma(broken, decoderBytes);
      assert.equal(out.length, text.length);
    } catch (error) {
      assert.match(error.message, /^lzma: the packed module cannot be unpacked: /);
    }
  }
});

test('the packed catalogs: one JSON text a line, one line per language, every letter back, or refused', () => {
  // Arabic and Persian letters (the table's), a letter outside it (the
  // 129th commonest), one outside the BMP, a backslash before a letter.
  const many = Array.from({ length: 140 }, (_, i) => String.fromCharCode(0x4e00 + i).repeat(140 - i)).join('');
  const texts = [JSON.stringify({ 'app.title': 'VRAM calculator', x: `\\\u0628 😀 ${many}` }), `["${'حاسبة VRAM '.repeat(200)}"]`, `["${'ماشین‌حساب VRAM ۷۰ '.repeat(200)}"]`];
  const bytes = packTexts(texts.join('\n'));
  assert.ok(bytes.length < Buffer.byteLength(texts.join('\n')), 'one byte a letter of the table');
  const back = splitTexts(bytes, ['en', 'ar', 'fa']);
  // The table's letters come back as they were; the rest as JSON escapes of themselves.
  assert.equal(back.ar, texts[1]);
  assert.equal(back.fa, texts[2]);
  assert.match(back.en, /\\u4e8b/);
  assert.deepEqual(JSON.parse(back.en), JSON.parse(texts[0]));
  assert.throws(() => splitTexts(bytes, ['en', 'ar']), /3 texts for 2 languages/);
  // A byte for an unused place in the table, a lone surrogate, too short: refused.
  const unused = Buffer.concat([Buffer.alloc(256), Buffer.from([0x7b, 0x80, 0x7d])]);
  assert.throws(() => splitTexts(unused, ['en']), /table lacks/);
  const lone = Buffer.alloc(258);
  lone.writeUInt16LE(0xd800, 0);
  lone[256] = 0x80;
  lone[257] = 0x41;
  assert.throws(() => splitTexts(lone, ['en']), TypeError);
  assert.throws(() => splitTexts(Buffer.from('{}'), ['en']), /shorter than their table/);
});

test('the module and the catalogs from one stream: the module compiled as it unpacks, the catalogs cut after it, with or without streaming', async () => {
  // Catalogs long enough that the last 200 packed bytes are theirs.
  const noise = Array.from({ length: 2000 }, (_, i) => ((i * 2654435761) >>> 0).toString(36)).join(' ');
  const texts = [`{"app.title":"VRAM calculator","noise":"${noise}"}`, '["حاسبة VRAM"]', '["ماشین‌حساب VRAM"]'];
  const both = lzma(Buffer.concat([bytes, packTexts(texts.join('\n'))])).toString('base64');
  const expected = { en: texts[0], ar: texts[1], fa: texts[2] };
  const streamed = unpackCore(both, bytes.length, ['en', 'ar', 'fa'], decoder);
  assert.deepEqual(await streamed.texts, expected);
  const module = await streamed.compiled;
  assert.ok(module instanceof WebAssembly.Module);
  const compileStreaming = WebAssembly.compileStreaming;
  let whole;
  try {
    delete WebAssembly.compileStreaming;
    whole = unpackCore(both, bytes.length, ['en', 'ar', 'fa'], decoder);
    assert.deepEqual(await whole.texts, expected);
    assert.deepEqual(WebAssembly.Module.exports(await whole.compiled), WebAssembly.Module.exports(module));
  } finally {
    WebAssembly.compileStreaming = compileStreaming;
  }
  // The module answers as the plain factory does.
  const [instance, plain] = await Promise.all([instantiating(factory, streamed.compiled)(), factory()]);
  assert.deepEqual(wrap(instance).estimate(REQUEST), wrap(plain).estimate(REQUEST));
  // Cut in the wrong place: the module refused (and the catalogs with it, or not UTF-8).
  const wrong = unpackCore(both, bytes.length - 1, ['en', 'ar', 'fa'], decoder);
  wrong.texts.catch(() => {});
  await assert.rejects(wrong.compiled, WebAssembly.CompileError);
  // A cut past the stream's end, and a stream cut short: refused, never a hang.
  const past = unpackCore(both, bytes.length + 10 ** 6, ['en'], decoder);
  await assert.rejects(past.compiled, /lzma: /);
  await assert.rejects(past.texts, /lzma: /);
  const raw = Buffer.from(both, 'base64');
  const cut = unpackCore(raw.subarray(0, raw.length - 200).toString('base64'), bytes.length, ['en', 'ar', 'fa'], decoder);
  await assert.rejects(cut.texts, /ends before its data/);
  assert.ok((await cut.compiled) instanceof WebAssembly.Module, 'the module before the cut is whole');
  // A stream whose catalogs are fewer than its languages.
  const fewer = unpackCore(both, bytes.length, ['en', 'ar', 'fa', 'he'], decoder);
  await assert.rejects(fewer.texts, /3 texts for 4 languages/);
  assert.ok((await fewer.compiled) instanceof WebAssembly.Module);
});

test('compiled as it unpacks, or once unpacked without streaming: the same module', async () => {
  const streamed = await compileBase64(packed, decoder);
  assert.ok(streamed instanceof WebAssembly.Module);
  const compileStreaming = WebAssembly.compileStreaming;
  let whole;
  try {
    delete WebAssembly.compileStreaming;
    whole = await compileBase64(packed, decoder);
  } finally {
    WebAssembly.compileStreaming = compileStreaming;
  }
  assert.deepEqual(WebAssembly.Module.exports(whole), WebAssembly.Module.exports(streamed));
  assert.deepEqual(WebAssembly.Module.imports(whole), WebAssembly.Module.imports(streamed));
});

test('one compiled module, a fresh instance per start, each answering as the plain factory does', async () => {
  const start = instantiating(factory, compileBase64(packed, decoder));
  const [first, second] = await Promise.all([start(), start()]);
  assert.notEqual(first, second);
  const expected = wrap(await factory()).estimate(REQUEST);
  assert.deepEqual(wrap(first).estimate(REQUEST), expected);
  // A second instance has its own memory: a call on one leaves the other as it was.
  assert.notEqual(first.HEAP8.buffer, second.HEAP8.buffer);
  assert.deepEqual(wrap(second).estimate(REQUEST), expected);
});

test('a broken pack is refused, never a hang', async () => {
  // The module's first half, packed whole (a stream that ends cleanly, a
  // module cut short), and the whole module's stream cut short.
  const half = lzma(bytes.subarray(0, bytes.length >> 1)).toString('base64');
  await assert.rejects(compileBase64(half, decoder), WebAssembly.CompileError);
  const cut = Buffer.from(packed, 'base64');
  await assert.rejects(compileBase64(cut.subarray(0, cut.length >> 1).toString('base64'), decoder), /ends before its data/);
  await assert.rejects(compileBase64(Buffer.from('not lzma at all, just words').toString('base64'), decoder), /lzma: /);
  const start = instantiating(factory, compileBase64(half, decoder));
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
