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
 * The decoder set to unpack `packed` (an .lzma stream, a Uint8Array) by the
 * decoder module `decoder`: its bytes, or the WebAssembly.Module compiled
 * from them (or a promise of it), so that a page compiles it once for
 * every stream. A promise of { size, done, read(end) }: read(end) unpacks
 * up to byte `end` at least and gives the bytes from the last read's end
 * to `end` (a copy:
 * the consumer may keep it; the decoder's memory stays its own). A stream
 * that is not one fails with a named Error.
 */
async function opening(packed, decoder) {
  const size = unpackedSize(packed);
  const code = await decoder;
  const instance = code instanceof WebAssembly.Module ? await WebAssembly.instantiate(code) : (await WebAssembly.instantiate(code)).instance;
  const { exports } = instance;
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
  const out = new Uint8Array(memory.buffer, output, size);
  // The decoder stops at the end of a match, past `end` where one runs
  // over it: what it unpacked past `end` is given by the next read.
  let unpacked = 0;
  const state = {
    size,
    done: 0,
    read(end) {
      if (unpacked < end) {
        const pos = exports.unlzma_run(end);
        if (pos < 0) throw fail(STATUS[pos] ?? `status ${pos}`);
        unpacked = pos;
      }
      const to = Math.min(unpacked, end);
      const bytes = out.slice(state.done, to);
      state.done = to;
      return bytes;
    },
  };
  return state;
}

/**
 * A ReadableStream of the bytes `packed` unpacks to (opening, above), in
 * slices, up to byte `cut` (all of them when not given); `onEnd(state)` is
 * called once its last slice is given, with the decoder still open there.
 * A stream that is not one errors the stream with a named Error.
 */
function slices(packed, decoder, cut, onEnd) {
  let state;
  let end;
  return new ReadableStream({
    async start() {
      state = await opening(packed, decoder);
      end = cut ?? state.size;
      if (end > state.size) throw fail(`it holds ${state.size} bytes, not the ${end} of its first part`);
    },
    pull(controller) {
      controller.enqueue(state.read(Math.min(state.done + SLICE, end)));
      if (state.done === end) {
        controller.close();
        if (onEnd) onEnd(state);
      }
    },
  });
}

/** A ReadableStream of the bytes `packed` unpacks to, in slices (opening, above). */
export function unlzmaStream(packed, decoder) {
  return slices(packed, decoder);
}

/**
 * The bytes `packed` unpacks to in two parts: `head`, a ReadableStream of
 * its first `cut` bytes in slices (as unlzmaStream), and `tail`, a promise
 * of the rest (a Uint8Array), unpacked as soon as the head's last slice is
 * given. A tail whose head is never read to its end never settles.
 */
export function unlzmaSplit(packed, decoder, cut) {
  let give;
  let refuse;
  const tail = new Promise((resolve, reject) => {
    give = resolve;
    refuse = reject;
  });
  const head = slices(packed, decoder, cut, (state) => {
    try {
      give(state.read(state.size));
    } catch (error) {
      refuse(error);
    }
  });
  return { head, tail };
}

/** The bytes `packed` unpacks to (a promise of a Uint8Array). */
export async function unlzma(packed, decoder) {
  return new Uint8Array(await new Response(unlzmaStream(packed, decoder)).arrayBuffer());
}
