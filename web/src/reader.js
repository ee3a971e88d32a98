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
 * indexShards. Answers one request at a time: { op: 'inspect', wasm, kind,
 * bytes, fileSize } with { text } (the binding's JSON, errors as data) and
 * { op: 'index', text } with indexShards' answer; anything thrown (a trap,
 * memory the module could not grow) as { crash }.
 */
function workerMain(createModule, shards) {
  let module = null;
  self.onmessage = async (event) => {
    const data = event.data;
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
      reply = { crash: `${(error && error.name) || 'Error'}: ${(error && error.message) || error}` };
    }
    self.postMessage(reply);
  };
  self.postMessage({ ready: true });
}

/** The Worker's script from the glue's wrapper function (its text returns createVramModule). */
export function workerSource(glue) {
  return `(${workerMain})((${glue})(),${indexShards});`;
}

/**
 * A reader for readCheckpoint: { inspect(kind, bytes, fileSize), index(text),
 * close() }, each request answered by the Worker within `limitMs()` (read
 * at each request) or refused. `source` is the Worker's script,
 * `wasm` a promise of the compiled module (or a function returning one). inspect throws CoreError for the
 * core's named errors, CheckpointProblem for ckptTimeout { seconds },
 * ckptCrashed { message } and ckptWorker.
 */
export function backgroundReader({ source, wasm, limitMs = () => READ_TIME_LIMIT_MS, WorkerClass = globalThis.Worker }) {
  let worker = null;
  let started = null;
  let url = null;
  const close = () => {
    if (worker) worker.terminate();
    if (url) URL.revokeObjectURL(url);
    worker = null;
    started = null;
    url = null;
  };
  const start = () =>
    new Promise((resolve, reject) => {
      try {
        if (typeof WorkerClass !== 'function') throw new Error('no Worker');
        url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
        worker = new WorkerClass(url);
      } catch {
        close();
        reject(new CheckpointProblem('ckptWorker'));
        return;
      }
      worker.onmessage = (event) => {
        if (event.data && event.data.ready) resolve(worker);
      };
      // Before its first message: it never ran (the page's policy refused it).
      worker.onerror = (event) => {
        if (event.preventDefault) event.preventDefault();
        close();
        reject(new CheckpointProblem('ckptWorker'));
      };
    });
  /** One request, answered or refused within the limit (which counts the Worker's start too). */
  const ask = (message, transfer) => {
    const limit = Math.max(1, Number(limitMs()) || READ_TIME_LIMIT_MS);
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = (fn, value) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        fn(value);
      };
      const timer = setTimeout(() => {
        close();
        finish(reject, new CheckpointProblem('ckptTimeout', { seconds: Math.ceil(limit / 1000) }));
      }, limit);
      started ||= start();
      Promise.all([started, typeof wasm === 'function' ? wasm() : wasm]).then(([running, module]) => {
        if (done) return;
        running.onmessage = (event) => finish(resolve, event.data);
        running.onerror = (event) => {
          if (event.preventDefault) event.preventDefault();
          close();
          finish(reject, new CheckpointProblem('ckptCrashed', { message: event.message || '' }));
        };
        running.postMessage(message.op === 'inspect' ? { ...message, wasm: module } : message, transfer);
      }, (error) => finish(reject, error));
    });
  };
  return {
    async inspect(kind, bytes, fileSize = 0) {
      const reply = await ask({ op: 'inspect', kind, bytes, fileSize }, [bytes.buffer]);
      if (reply.crash !== undefined) {
        // The module's memory cannot be trusted after a trap: the next file gets a fresh Worker.
        close();
        throw new CheckpointProblem('ckptCrashed', { message: reply.crash });
      }
      const result = JSON.parse(reply.text);
      if (result && result.error) throw new CoreError(result.error);
      return result;
    },
    async index(text) {
      const reply = await ask({ op: 'index', text });
      if (reply.crash !== undefined) {
        close();
        throw new CheckpointProblem('ckptCrashed', { message: reply.crash });
      }
      return reply;
    },
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
