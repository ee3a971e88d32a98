// Bundle entry: `createVramModule` (the Emscripten factory), `vramGlue`
// (the function that returns it, whose text the checkpoint reader's Worker
// runs, web/src/reader.js),
// `VRAM_LZMA` (the module's bytes, then the catalogs, as one LZMA stream,
// base64), `VRAM_WASM_SIZE` (the module's length in it), `VRAM_UNLZMA`
// (the decoder's wasm, base64) and `VRAM_TEXTS_LANGS` (the catalogs'
// languages) are in scope because
// tools/build-page.mjs wraps this bundle and the module glue in one
// function. Defines <vram-calculator> and nothing else globally.
/* global createVramModule, vramGlue, VRAM_LZMA, VRAM_WASM_SIZE, VRAM_UNLZMA, VRAM_TEXTS_LANGS */
import { decodeBase64, instantiating, unpackCore } from './core.js';
import { defineVramCalculator } from './element.js';
import { provideCatalogs } from './i18n.js';
import { withReader } from './reader.js';

// Unpacking and compiling start now, while the element is defined and the
// host page parses; the first element to start waits for them. The
// catalogs are provided first: an element already in the page starts as
// soon as it is defined, and waits for them before it says anything.
// Both come from one stream, the module first.
const decoder = WebAssembly.compile(decodeBase64(VRAM_UNLZMA));
const { compiled, texts } = unpackCore(VRAM_LZMA, VRAM_WASM_SIZE, VRAM_TEXTS_LANGS, decoder);
provideCatalogs(texts);
defineVramCalculator(withReader(instantiating(createVramModule, compiled), vramGlue, compiled));
