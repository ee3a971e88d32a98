// Bundle entry: `createVramModule` (the Emscripten factory) and
// `VRAM_WASM_DEFLATED` (the module's bytes, deflated, base64) are in scope because
// tools/build-page.mjs wraps this bundle and the module glue in one
// function. Defines <vram-calculator> and nothing else globally.
/* global createVramModule, VRAM_WASM_DEFLATED */
import { inflateBase64 } from './core.js';
import { defineVramCalculator } from './element.js';

// Inflating starts now, while the element is defined and the host page
// parses; the first element to start waits for it.
const wasmBinary = inflateBase64(VRAM_WASM_DEFLATED);
defineVramCalculator(() => wasmBinary.then((bytes) => createVramModule({ wasmBinary: bytes })));
