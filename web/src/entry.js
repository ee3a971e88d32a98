// Bundle entry: `createVramModule` (the Emscripten factory) and
// `VRAM_WASM_DEFLATED` (the module's bytes, deflated, base64) are in scope because
// tools/build-page.mjs wraps this bundle and the module glue in one
// function. Defines <vram-calculator> and nothing else globally.
/* global createVramModule, VRAM_WASM_DEFLATED */
import { compileBase64, instantiating } from './core.js';
import { defineVramCalculator } from './element.js';

// Inflating and compiling start now, while the element is defined and the
// host page parses; the first element to start waits for them.
defineVramCalculator(instantiating(createVramModule, compileBase64(VRAM_WASM_DEFLATED)));
