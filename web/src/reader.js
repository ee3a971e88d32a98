// Checkpoint headers read off the page's thread: a Worker running the same
// wasm module as the page (its compiled WebAssembly.Module, posted to it),
// one Worker per set of files, discarded when the set is read or refused,
// so a file that made the module grow leaves no memory behind. Each request
// has a time limit: past it the Worker is terminated and the read fails
// with the named problem ckptTimeout. The Worker's script is built from the
// module glue's own source (vramGlue, tools/build-page.mjs) and two
// functions of this file, as a blob: URL, so the single-file page needs no
// second file and works from file://. Its Content-Security-Policy must
// allow blob: workers (worker-src blob:); where it does not, the read fails
// with ckptWorker and nothing runs on the page's thread instead.
import { CheckpointProblem, indexShards } from './checkpoint.js';
import { CoreError } from './core.js';

/** How long one header (or index) may take to read by default, in milliseconds. */
export const READ_TIME_LIMIT_MS = 20000;

/**
 * The Worker's body (its source is this function's text, so it names
 * nothing outside itself): `createModule` is the glue's factory, `shards`
 * indexShards. Answers each request in turn: { op: 'inspect', wasm, kind,
 * bytes, fileSize } with { text } (the binding's JSON, errors as data),
 * { op: 'index', text } with indexShards' answer; anything thrown (a trap,
 * memory the module could not grow) as { crash }.
 */
function workerMain(createModule, shards) {
  let module = null;
  self.onmessage = async ({ data }) => {
    let reply;
    try {
      if (data.op === 'index') {
        reply = shards(data.text);
      } else {
        module ||= createModule({
          instantiateWasm(imports, receive) {
            WebAssembly.instantiate(data.wasm, imports).then((instance) => receive(instance, data.wasm));
            return {};
          },
        });
        reply = { text: (await module).inspect(data.kind, data.bytes, data.fileSize) };
      }
    } catch (error) {
      reply = { crash: String(error) };
    }
    self.postMessage(reply);
  };
}

/** The Worker's script from the glue's wrapper function (its text returns createVramModule). */
export function workerSource(glue) {
  return `(${workerMain})((${glue})(),${indexShards});`;
}

/**
 * A reader for readCheckpoint: { inspect(kind, bytes, fileSize), index(text),
 * close() }, one request at a time, each answered by the Worker within
 * `limitMs()` (read at each request; the Worker's start counts) or
 * refused. `source` is the Worker's script, `wasm` the compiled module (a
 * promise, or a function returning one). inspect throws CoreError for the
 * core's named errors; both throw CheckpointProblem ckptTimeout { seconds },
 * ckptCrashed { message } (the Worker is discarded: its memory cannot be
 * trusted after a trap) and ckptWorker (no Worker could start: the page's
 * policy refused it).
 */
export function backgroundReader({ source, wasm, limitMs = () => READ_TIME_LIMIT_MS, WorkerClass = globalThis.Worker }) {
  let worker = null;
  let url = '';
  const close = () => {
    if (worker) worker.terminate();
    URL.revokeObjectURL(url);
    worker = null;
  };
  const ask = (message, transfer) =>
    new Promise((resolve, reject) => {
      const limit = Math.max(1, Number(limitMs()) || READ_TIME_LIMIT_MS);
      const fail = (code, params) => {
        clearTimeout(timer);
        close();
        reject(new CheckpointProblem(code, params));
      };
      const timer = setTimeout(() => fail('ckptTimeout', { seconds: Math.ceil(limit / 1000) }), limit);
      try {
        worker ||= new WorkerClass((url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }))));
      } catch {
        fail('ckptWorker');
        return;
      }
      const running = worker;
      running.onerror = (event) => {
        event.preventDefault();
        fail('ckptWorker');
      };
      running.onmessage = ({ data }) => {
        clearTimeout(timer);
        if (data.crash === undefined) resolve(data);
        else fail('ckptCrashed', { message: data.crash });
      };
      Promise.resolve(typeof wasm === 'function' ? wasm() : wasm).then((module) => worker === running && running.postMessage({ ...message, wasm: module }, transfer), reject);
    });
  return {
    async inspect(kind, bytes, fileSize = 0) {
      const result = JSON.parse((await ask({ op: 'inspect', kind, bytes, fileSize }, [bytes.buffer])).text);
      if (result && result.error) throw new CoreError(result.error);
      return result;
    },
    index: (text) => ask({ op: 'index', text }),
    close,
  };
}

/**
 * Gives an Emscripten factory (core.js instantiating) its `reader`: a
 * fresh backgroundReader per call, over the page's compiled module and
 * the glue's wrapper `glue` (whose text the Worker runs). The element
 * takes it from the factory (ctx.reader).
 */
export function withReader(factory, glue, wasm) {
  let source = null;
  factory.reader = (options = {}) => backgroundReader({ source: (source ||= workerSource(glue)), wasm, ...options });
  return factory;
}
