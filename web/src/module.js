// The ES module entry (vram-calculator.mjs): the same core and element as
// the classic script, but importing it changes nothing on the page. Call
// defineVramCalculator() to register <vram-calculator>, or use `call` and
// its shorthands without any element (in a browser or under Node).
// tools/build-page.mjs puts `createVramModule` (the Emscripten factory) and
// `VRAM_WASM_DEFLATED` (the module's bytes, deflated, base64) in scope.
/* global createVramModule, VRAM_WASM_DEFLATED */
import { CoreError, compileBase64, instantiating, loadCore } from './core.js';
import { defineVramCalculator as define } from './element.js';
import { VERSION } from './version.js';

// Inflated and compiled on first use (importing does nothing), once.
let compiled = null;
const factory = () => instantiating(createVramModule, (compiled ||= compileBase64(VRAM_WASM_DEFLATED)))();

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
export const schema = () => call('schema', {});
