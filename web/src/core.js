// The wasm core behind one promise per page: created on first use, shared
// by every <vram-calculator> on the page. `factory` is the Emscripten
// module factory (createVramModule).
import { unlzma, unlzmaSplit, unlzmaStream } from './lzma.js';

export class CoreError extends Error {
  constructor(error) {
    super(error.message);
    this.code = error.code;
    this.field = error.field;
    // The same words as a message (docs/i18n.md), for the page's language.
    if (typeof error.message_id === 'string') this.messageId = { id: error.message_id, params: error.params || {} };
    // A header read from too short a prefix: how many bytes to read next.
    if (error.needed_bytes !== undefined) this.neededBytes = error.needed_bytes;
  }
}

/**
 * The core failed, not the request: the module trapped (a
 * WebAssembly.RuntimeError), ran out of stack (RangeError), let a C++
 * exception through (WebAssembly.Exception) or answered something that is
 * not JSON. `code` is 'core_crashed' for the call that failed and
 * 'core_restarting' for calls made while a fresh module is being started.
 */
export class CoreCrash extends Error {
  constructor(code, cause) {
    super(cause && cause.message ? `${cause.name || 'Error'}: ${cause.message}` : code);
    this.code = code;
    this.field = '';
    this.cause = cause;
  }
}

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Wraps the raw string binding as calls on plain objects. `module` is read
 * on every call, so a caller may swap it (loadCore does, after a crash).
 */
export function wrap(module) {
  const core = { module };
  const call = (method, request) => {
    let text;
    let result;
    try {
      const json = JSON.stringify(request ?? {});
      // callBytes: the answer's UTF-8 over the module's memory, decoded here
      // at once (wasm/bindings.cpp); `call` where a module lacks it.
      const { module: raw } = core;
      text = typeof raw.callBytes === 'function' ? utf8.decode(raw.callBytes(method, json)) : raw.call(method, json);
      result = JSON.parse(text);
    } catch (error) {
      if (error instanceof CoreCrash) throw error;
      if (core.onCrash) core.onCrash(error);
      throw new CoreCrash('core_crashed', error);
    }
    if (result && result.error) throw new CoreError(result.error);
    return result;
  };
  return Object.assign(core, {
    call,
    estimate: (request) => call('estimate', request),
    presets: () => call('presets', {}),
    schema: () => call('schema', {}),
    grid: (request) => call('grid', request),
    devices: (request) => call('devices', request),
    fleet: (request) => call('fleet', request),
    fitModels: (request) => call('fit_models', request),
    log: (request) => call('log', request),
    curve: (request) => call('curve', request),
    /** A GGUF or safetensors header from its first bytes (Uint8Array); fileSize 0 if unknown. */
    inspect: (kind, bytes, fileSize = 0) => {
      let result;
      try {
        result = JSON.parse(core.module.inspect(kind, bytes, fileSize));
      } catch (error) {
        if (core.onCrash) core.onCrash(error);
        throw new CoreCrash('core_crashed', error);
      }
      if (result && result.error) throw new CoreError(result.error);
      return result;
    },
  });
}

/**
 * Base64 to bytes: the browser's own decoder where it has one
 * (Uint8Array.fromBase64), else atob.
 */
export function decodeBase64(text) {
  if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * The module's bytes from base64 of their LZMA (tools/build-page.mjs),
 * unpacked by the decoder module `decoder` (web/src/lzma.js: its bytes,
 * or compiled once, for the module and the catalogs alike). A promise of
 * the bytes.
 */
export function unpackBase64(text, decoder) {
  return unlzma(decodeBase64(text), decoder);
}

/**
 * The page's catalogs from their packed bytes (tools/build-page.mjs
 * packTexts: a table of 128 letters as UTF-16 code units, then the text
 * one byte a letter, ASCII as itself and 128 + i for the table's i-th),
 * which hold one JSON text a line, in the order of `langs`. Returns
 * { lang: JSON text }.
 */
export function splitTexts(bytes, langs) {
  if (bytes.length < 256) throw new Error(`lzma: the packed catalogs are ${bytes.length} bytes, shorter than their table`);
  const letters = new Uint16Array(256);
  for (let i = 0; i < 128; i++) {
    letters[i] = i;
    // 0 where unused: a byte that names it is refused below.
    letters[128 + i] = bytes[2 * i] | (bytes[2 * i + 1] << 8);
  }
  const body = bytes.subarray(256);
  const units = new Uint16Array(body.length);
  for (let i = 0; i < body.length; i++) units[i] = letters[body[i]];
  const text = new TextDecoder('utf-16le', { fatal: true }).decode(units);
  if (text.includes('\0')) throw new Error('lzma: the packed catalogs name a letter their table lacks');
  const lines = text.split('\n');
  if (lines.length !== langs.length) throw new Error(`lzma: the packed catalogs hold ${lines.length} texts for ${langs.length} languages`);
  return Object.fromEntries(langs.map((lang, i) => [lang, lines[i]]));
}

const WASM_TYPE = { headers: { 'content-type': 'application/wasm' } };

/**
 * The module and the page's catalogs from base64 of their one LZMA stream
 * (tools/build-page.mjs corePieces: the module's `wasmSize` bytes, then
 * the catalogs' text as splitTexts reads it), so
 * that LZMA packs the catalogs' English with the module's own copy of the
 * errors' English, and with one header. Returns { compiled, texts }: a
 * promise of the WebAssembly.Module, compiled as its bytes are unpacked
 * (WebAssembly.compileStreaming), or once unpacked where streaming is
 * missing or refuses the stream; and a promise of { lang: JSON text },
 * unpacked right after the module's last byte.
 */
export function unpackCore(text, wasmSize, langs, decoder) {
  const packed = decodeBase64(text);
  let give;
  let refuse;
  const texts = new Promise((resolve, reject) => {
    give = resolve;
    refuse = reject;
  }).then((bytes) => splitTexts(bytes, langs));
  const whole = () => {
    const all = unlzma(packed, decoder).then((bytes) => {
      if (bytes.length < wasmSize) throw new Error(`lzma: the packed module and catalogs hold ${bytes.length} bytes, not the module's ${wasmSize}`);
      return bytes;
    });
    all.then((bytes) => give(bytes.subarray(wasmSize)), refuse);
    return all.then((bytes) => WebAssembly.compile(bytes.subarray(0, wasmSize)));
  };
  if (typeof WebAssembly.compileStreaming !== 'function') return { compiled: whole(), texts };
  let compiled;
  try {
    const { head, tail } = unlzmaSplit(packed, decoder, wasmSize);
    // The catalogs as soon as they are unpacked; a tail that fails is
    // told once the module it follows compiled (else whole() tells it).
    tail.then(give, () => {});
    compiled = WebAssembly.compileStreaming(new Response(head, WASM_TYPE)).then(
      (module) => {
        tail.catch(refuse);
        return module;
      },
      () => whole(),
    );
  } catch {
    compiled = whole();
  }
  return { compiled, texts };
}

/**
 * The module compiled from base64 of its LZMA: compiled as the unpacked
 * slices arrive (WebAssembly.compileStreaming), so compiling overlaps
 * unpacking; where streaming is missing or refuses the stream, compiled
 * once unpacked. A promise of a WebAssembly.Module.
 */
export function compileBase64(text, decoder) {
  const whole = () => unpackBase64(text, decoder).then((bytes) => WebAssembly.compile(bytes));
  if (typeof WebAssembly.compileStreaming !== 'function') return whole();
  let streaming;
  try {
    const bytes = unlzmaStream(decodeBase64(text), decoder);
    streaming = WebAssembly.compileStreaming(new Response(bytes, WASM_TYPE));
  } catch {
    return whole();
  }
  return streaming.catch(whole);
}

/**
 * An Emscripten module factory over a compiled module (a promise of it):
 * each call instantiates the same compiled code with the glue's imports
 * (Emscripten's instantiateWasm hook), so a restart after a crash compiles
 * nothing.
 */
export function instantiating(createModule, compiled) {
  return () =>
    compiled.then(
      (wasm) =>
        new Promise((resolve, reject) => {
          createModule({
            instantiateWasm(imports, receive) {
              WebAssembly.instantiate(wasm, imports).then((instance) => receive(instance, wasm), reject);
              return {};
            },
          }).then(resolve, reject);
        }),
    );
}

let pending = null;

/**
 * The page's one core, created on first use and shared by every element.
 * After a crash its memory cannot be trusted (a trap may leave it half
 * written, a leaked exception leaks its stack), so the instance is dropped
 * and a fresh one started from the same factory; until it is ready, calls
 * throw CoreCrash('core_restarting'). `onRestart(listener)` tells the
 * elements when the fresh module answers, so they can redo those calls.
 */
export function loadCore(factory) {
  if (pending) return pending;
  pending = factory().then((module) => {
    const core = wrap(module);
    const listeners = new Set();
    const restarting = {
      call: () => {
        throw new CoreCrash('core_restarting');
      },
    };
    core.onRestart = (listener) => listeners.add(listener);
    core.onCrash = () => {
      if (core.module === restarting) return;
      core.module = restarting;
      factory().then(
        (fresh) => {
          core.module = fresh;
          for (const listener of listeners) listener();
        },
        // A factory that fails now failed once already for this page's
        // bytes; leave the core answering 'core_restarting'.
        () => {},
      );
    };
    return core;
  });
  return pending;
}
