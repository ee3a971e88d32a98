// Bundle entry: `createVramModule` is the Emscripten factory, in scope
// because tools/build-page.mjs wraps this bundle and the module glue in one
// function. Defines <vram-calculator> and nothing else globally.
/* global createVramModule */
import { defineVramCalculator } from './element.js';

defineVramCalculator(createVramModule);
