// Bundle entry: `createVramModule` (the Emscripten factory) and
// `VRAM_WASM_BASE64` (the module's bytes) are in scope because
// tools/build-page.mjs wraps this bundle and the module glue in one
// function. Defines <vram-calculator> and nothing else globally.
/* global createVramModule, VRAM_WASM_BASE64 */
import { decodeBase64 } from './core.js';
import { defineVramCalculator } from './element.js';

defineVramCalculator(() => createVramModule({ wasmBinary: decodeBase64(VRAM_WASM_BASE64) }));
