// The ES module entry (vram-calculator.mjs): the same core and element as
// the classic script, but importing it changes nothing on the page. Call
// defineVramCalculator() to register <vram-calculator>, or use `call` and
// its shorthands without any element (in a browser or under Node).
// tools/build-page.mjs puts `createVramModule` (the Emscripten factory) and
// `VRAM_WASM_BASE64` (the module's bytes) in scope.
/* global createVramModule, VRAM_WASM_BASE64 */
import { CoreError, decodeBase64, loadCore } from './core.js';
import { defineVramCalculator as define } from './element.js';
import { VERSION } from './version.js';

const factory = () => createVramModule({ wasmBinary: decodeBase64(VRAM_WASM_BASE64) });

export { CoreError };

/** The package version this file belongs to. */
export const version = VERSION;

/** Registers the <vram-calculator> element; later calls do nothing. */
export function defineVramCalculator() {
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
