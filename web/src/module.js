// The ES module entry (vram-calculator.mjs): the same core and element as
// the classic script, but importing it changes nothing on the page. Call
// defineVramCalculator() to register <vram-calculator>, or use `call` and
// its shorthands without any element (in a browser or under Node).
// tools/build-page.mjs puts in scope `createVramModule` (the Emscripten
// factory), `vramGlue` (the function returning it, for the checkpoint
// reader's Worker), `VRAM_WASM_LZMA` (the module's bytes as LZMA, base64),
// `VRAM_UNLZMA` (the decoder's wasm, base64), `VRAM_TEXTS_LZMA` (the
// catalogs as LZMA, base64) and `VRAM_TEXTS_LANGS` (their languages).
/* global createVramModule, vramGlue, VRAM_WASM_LZMA, VRAM_UNLZMA, VRAM_TEXTS_LZMA, VRAM_TEXTS_LANGS */
import { CoreError, compileBase64, decodeBase64, instantiating, loadCore, unpackTexts } from './core.js';
import { defineVramCalculator as define } from './element.js';
import { provideCatalogs } from './i18n.js';
import { withReader } from './reader.js';
import { VERSION } from './version.js';

// Unpacked and compiled on first use (importing does nothing), once; the
// catalogs unpacked when the element is first defined; the decoder
// compiled once for both.
let compiled = null;
let catalogs = null;
let decoder = null;
const unpacker = () => (decoder ||= WebAssembly.compile(decodeBase64(VRAM_UNLZMA)));
const compiling = () => (compiled ||= compileBase64(VRAM_WASM_LZMA, unpacker()));
const factory = () => instantiating(createVramModule, compiling())();
// The checkpoint reader's Worker, over the same compiled module (compiled when first asked).
withReader(factory, vramGlue, compiling);

export { CoreError };

/** The package version this file belongs to. */
export const version = VERSION;

/** Registers the <vram-calculator> element; later calls do nothing. */
export function defineVramCalculator() {
  catalogs ||= provideCatalogs(unpackTexts(VRAM_TEXTS_LZMA, VRAM_TEXTS_LANGS, unpacker()));
  define(factory);
}

/**
 * One request to the core, shaped as docs/cli.md describes (the CLI's
 * --json output is the same JSON). Resolves to the result; rejects with a
 * CoreError { code, field, message } when the core refuses the request.
 * The core is created on first use and shared with every element.
 */
export async function call(method, request = {}) {
  return (await loadCore(factory)).call(method, request);
}

export const estimate = (request) => call('estimate', request);
export const grid = (request = {}) => call('grid', request);
export const devices = (request = {}) => call('devices', request);
export const fleet = (request = {}) => call('fleet', request);
export const presets = () => call('presets', {});
export const schema = () => call('schema', {});
