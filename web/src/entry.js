// Bundle entry: `createVramModule` (the Emscripten factory), `vramGlue`
// (the function that returns it, whose text the checkpoint reader's Worker
// runs, web/src/reader.js),
// `VRAM_WASM_LZMA` (the module's bytes as LZMA, base64), `VRAM_UNLZMA`
// (the decoder's wasm, base64), `VRAM_TEXTS_LZMA` (the catalogs as LZMA,
// base64) and `VRAM_TEXTS_LANGS` (their languages) are in scope because
// tools/build-page.mjs wraps this bundle and the module glue in one
// function. Defines <vram-calculator> and nothing else globally.
/* global createVramModule, vramGlue, VRAM_WASM_LZMA, VRAM_UNLZMA, VRAM_TEXTS_LZMA, VRAM_TEXTS_LANGS */
import { compileBase64, decodeBase64, instantiating, unpackTexts } from './core.js';
import { defineVramCalculator } from './element.js';
import { provideCatalogs } from './i18n.js';
import { withReader } from './reader.js';

// Unpacking and compiling start now, while the element is defined and the
// host page parses; the first element to start waits for them. The
// catalogs are provided first: an element already in the page starts as
// soon as it is defined, and waits for them before it says anything.
// The decoder is compiled once, for both.
const decoder = WebAssembly.compile(decodeBase64(VRAM_UNLZMA));
const compiled = compileBase64(VRAM_WASM_LZMA, decoder);
provideCatalogs(unpackTexts(VRAM_TEXTS_LZMA, VRAM_TEXTS_LANGS, decoder));
defineVramCalculator(withReader(instantiating(createVramModule, compiled), vramGlue, compiled));
