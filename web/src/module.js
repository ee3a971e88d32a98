// The ES module entry (vram-calculator.mjs): the same core and element as
// the classic script, but importing it changes nothing on the page. Call
// defineVramCalculator() to register <vram-calculator>, or use `call` and
// its shorthands without any element (in a browser or under Node).
// tools/build-page.mjs puts in scope `createVramModule` (the Emscripten
// factory), `vramGlue` (the function returning it, for the checkpoint
// reader's Worker), `VRAM_LZMA` (the module's bytes, then the catalogs,
// as one LZMA stream, base64), `VRAM_WASM_SIZE` (the module's length in
// it), `VRAM_UNLZMA` (the decoder's wasm, base64) and `VRAM_TEXTS_LANGS`
// (the catalogs' languages).
/* global createVramModule, vramGlue, VRAM_LZMA, VRAM_WASM_SIZE, VRAM_UNLZMA, VRAM_TEXTS_LANGS */
import { CoreError, decodeBase64, instantiating, loadCore, unpackCore } from './core.js';
import { defineVramCalculator as define } from './element.js';
import { provideCatalogs } from './i18n.js';
import { withReader } from './reader.js';
import { VERSION } from './version.js';

// Unpacked and compiled on first use (importing does nothing), once: the
// module and the catalogs are one stream, unpacked on the first call or
// when the element is first defined, whichever comes first.
let unpacked = null;
let catalogs = null;
const unpacking = () => (unpacked ||= unpackCore(VRAM_LZMA, VRAM_WASM_SIZE, VRAM_TEXTS_LANGS, WebAssembly.compile(decodeBase64(VRAM_UNLZMA))));
const compiling = () => unpacking().compiled;
const factory = () => instantiating(createVramModule, compiling())();
// The checkpoint reader's Worker, over the same compiled module (compiled when first asked).
withReader(factory, vramGlue, compiling);

export { CoreError };

/** The package version this file belongs to. */
export const version = VERSION;

/** Registers the <vram-calculator> element; later calls do nothing. */
export function defineVramCalculator() {
  catalogs ||= provideCatalogs(unpacking().texts);
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
