// The core's module travels as LZMA (tools/build-page.mjs packs it with
// Debian's xz): 17% smaller than the best deflate (zopfli's), 32 KB of the
// single file. No browser decompresses LZMA, so the page carries its own
// decoder, a 3 KB wasm module (wasm/unlzma.cpp) that writes into its own
// memory; this file drives it, a slice at a time, as a stream of bytes the
// streaming compiler reads while the rest is still being unpacked.

// Bytes unpacked per pull: the compiler starts on the first slice while
// the decoder writes the next.
const SLICE = 1 << 17;
// The largest unpacked size a header may give (the module is 0.6 MB).
const MAX_SIZE = 1 << 28;

const STATUS = {
  '-1': 'its header is not one this page writes',
  '-2': 'it ends before its data does',
  '-3': 'it is corrupt',
};

const fail = (why) => new Error(`lzma: the packed module cannot be unpacked: ${why}`);

/** The unpacked size from an .lzma header (8 bytes little-endian at 5). */
function unpackedSize(packed) {
  if (packed.length < 18) throw fail(STATUS['-1']);
  let size = 0;
  for (let i = 12; i >= 5; i--) size = size * 256 + packed[i];
  if (size === 0 || size > MAX_SIZE) throw fail(`its header gives ${size} bytes unpacked`);
  return size;
}

const align = (n) => (n + 15) & ~15;

/**
 * A ReadableStream of the bytes `packed` (an .lzma stream, a Uint8Array)
 * unpacks to, in slices, by the decoder module `decoder`: its bytes, or
 * the WebAssembly.Module compiled from them (or a promise of it), so that
 * a page compiles it once for every stream. A stream that is not one
 * errors the stream with a named Error.
 */
export function unlzmaStream(packed, decoder) {
  let exports;
  let out;
  let size;
  let done = 0;
  return new ReadableStream({
    async start() {
      size = unpackedSize(packed);
      const code = await decoder;
      const instance = code instanceof WebAssembly.Module ? await WebAssembly.instantiate(code) : (await WebAssembly.instantiate(code)).instance;
      ({ exports } = instance);
      const memory = exports.memory;
      const fit = (end) => {
        const have = memory.buffer.byteLength;
        if (end > have) memory.grow(Math.ceil((end - have) / 65536));
      };
      const input = align(exports.__heap_base.value);
      const output = align(input + packed.length);
      const probs = align(output + size);
      fit(probs);
      new Uint8Array(memory.buffer).set(packed, input);
      const count = exports.unlzma_probs(input, packed.length);
      if (count === 0) throw fail(STATUS['-1']);
      fit(probs + 2 * count);
      const status = exports.unlzma_start(input, packed.length, output, size, probs);
      if (status < 0) throw fail(STATUS[status]);
      out = new Uint8Array(memory.buffer, output, size);
    },
    pull(controller) {
      const pos = exports.unlzma_run(Math.min(done + SLICE, size));
      if (pos < 0) throw fail(STATUS[pos] ?? `status ${pos}`);
      // A copy: the consumer may keep it; the decoder's memory stays its own.
      controller.enqueue(out.slice(done, pos));
      done = pos;
      if (done === size) controller.close();
    },
  });
}

/** The bytes `packed` unpacks to (a promise of a Uint8Array). */
export async function unlzma(packed, decoder) {
  return new Uint8Array(await new Response(unlzmaStream(packed, decoder)).arrayBuffer());
}
