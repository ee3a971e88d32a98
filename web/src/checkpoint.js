// A checkpoint's own files in the browser: GGUF (one file or the parts of a
// split model) or safetensors (one or several files, with config.json and
// optionally model.safetensors.index.json), chosen or dropped. Only headers
// are read: a File.slice of the first MiB, grown as far as the core asks
// (its `truncated` error says how many bytes it needs), never the whole
// file. The core reads and checks every byte; this module only slices,
// sorts the files; the core sums them (call 'checkpoint').

import { MAX_CONFIG_BYTES, readConfigText } from './config.js';
import { CoreError } from './core.js';

/** The first slice read from each file; most GGUF headers fit (vocabularies run to ~10 MB). */
export const FIRST_SLICE_BYTES = 1 << 20;
/**
 * The core's bounds on a checkpoint's files (core/include/vram/limits.hpp,
 * published as the schema's limits.checkpoint): header_bytes, index_bytes,
 * shards and the rest. The page checks them before it reads, with the
 * core's own numbers, never a copy.
 */
export function checkpointLimits(core) {
  return core.schema().limits.checkpoint;
}

/** A problem in the page's words: { code, ...params } for the message catalog (problem.<code>). */
export class CheckpointProblem extends Error {
  constructor(code, params = {}) {
    super(code);
    this.problem = { code, ...params };
  }
}

/** What a file is, by its name: gguf, safetensors, index, config, or null. */
export function fileKind(name) {
  const lower = String(name).toLowerCase();
  if (lower.endsWith('.gguf')) return 'gguf';
  if (lower.endsWith('.safetensors')) return 'safetensors';
  if (lower.endsWith('.index.json')) return 'index';
  if (lower.endsWith('.json')) return 'config';
  return null;
}

/**
 * One file's header through `inspect(kind, bytes, fileSize)` (the core's
 * binding, or the background reader's; it may answer a promise; it throws
 * CoreError). Grows the slice to what the core asks, at least twofold each
 * time, so a header takes a handful of reads. A file with `load` (a Hub
 * shard) is fetched first and let go after (`unload`): one file's bytes at
 * a time.
 */
export async function readHeader(file, kind, inspect, maxHeaderBytes, firstBytes = FIRST_SLICE_BYTES) {
  if (file.load) await file.load(firstBytes);
  try {
    let size = Math.min(file.size, firstBytes);
    for (;;) {
      const bytes = new Uint8Array(await file.slice(0, size).arrayBuffer());
      try {
        return await inspect(kind, bytes, file.size);
      } catch (error) {
        if (error.code !== 'truncated' || size >= file.size) throw error;
        const next = Math.min(file.size, Math.max(Number(error.neededBytes) || 0, size * 2));
        if (next > maxHeaderBytes) throw error;
        size = next;
      }
    }
  } finally {
    if (file.unload) file.unload();
  }
}

/**
 * The shard files an index names: { names } (each once, in the index's
 * order; none when it has no weight_map), or { error } as readConfigText
 * words a text that is not JSON (configJson).
 * Self-contained: the background reader runs this very function's text in
 * its Worker (web/src/reader.js), the page runs it where there is none.
 */
export function indexShards(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: { code: 'configJson', detail: error.message } };
  }
  const map = (value && value.weight_map) || {};
  return { names: typeof map === 'object' ? [...new Set(Object.values(map).filter((v) => typeof v === 'string'))] : [] };
}

async function readJson(file, max) {
  if (file.size > max) throw new CheckpointProblem('configLarge', { source: file.name, max });
  const { value, error } = readConfigText(await file.text());
  if (error) throw new CheckpointProblem(error.code, { source: file.name, ...error });
  return value;
}

/**
 * Reads a set of chosen or dropped files with `core` (inspect and call).
 * With `reader` (web/src/reader.js backgroundReader), the headers and the
 * index are parsed by it, off the page's thread; the caller closes it.
 * Returns { checkpoint: { files }, config, inspections, summary, kind }:
 * `config` is the GGUF's own or the given config.json, `summary` the core's
 * checked totals (by_type largest first). Throws CheckpointProblem (the
 * page's words) or CoreError (the core's named error, e.g. invalid_gguf
 * with its field).
 */
export async function readCheckpoint(fileList, core, reader = null) {
  const files = [...fileList];
  const byKind = { gguf: [], safetensors: [], index: [], config: [], null: [] };
  for (const file of files) byKind[fileKind(file.name)].push(file);
  if (byKind.null.length) throw new CheckpointProblem('ckptUnknownFile', { name: byKind.null[0].name });
  if (byKind.gguf.length && byKind.safetensors.length) throw new CheckpointProblem('ckptMixed');
  if (byKind.index.length > 1 || byKind.config.length > 1) throw new CheckpointProblem('ckptDuplicate');
  const kind = byKind.gguf.length ? 'gguf' : 'safetensors';
  const parts = byKind[kind];
  if (!parts.length) throw new CheckpointProblem('ckptNoWeights');
  const inspect = reader ? reader.inspect : (k, bytes, size) => core.inspect(k, bytes, size);
  const limits = checkpointLimits(core);

  let config = byKind.config.length ? await readJson(byKind.config[0], limits.index_bytes) : null;
  if (byKind.index.length) {
    const file = byKind.index[0];
    if (file.size > limits.index_bytes) throw new CheckpointProblem('configLarge', { source: file.name, max: limits.index_bytes });
    const text = await file.text();
    const { names, error } = reader ? await reader.index(text) : indexShards(text);
    if (error) throw new CheckpointProblem(error.code, { source: file.name, ...error });
    const given = new Set(parts.map((f) => f.name));
    const missing = names.filter((name) => !given.has(name));
    if (!names.length) throw new CheckpointProblem('ckptIndex');
    if (missing.length) throw new CheckpointProblem('ckptMissing', { count: missing.length, first: missing[0] });
  }
  // Split parts in order (-00001-of-00003 ...), so the first holds the metadata.
  parts.sort((a, b) => a.name.localeCompare(b.name));
  const inspections = [];
  for (const file of parts) {
    try {
      inspections.push({ name: file.name, ...(await readHeader(file, kind, inspect, limits.header_bytes)) });
    } catch (error) {
      error.source = file.name;
      throw error;
    }
  }
  if (kind === 'gguf') {
    const first = inspections.find((i) => i.config || i.config_error);
    if (first && first.config_error) {
      // The core's error as the page words any other (its message id and params).
      const error = new CoreError(first.config_error);
      error.source = first.name;
      throw error;
    }
    if (!first) throw new CheckpointProblem('ckptNoConfig');
    config = first.config;
  } else if (!config) {
    throw new CheckpointProblem('ckptNeedsConfig');
  }
  const checkpoint = { files: inspections.map((i) => i.file) };
  return { kind, config, checkpoint, inspections, summary: core.call('checkpoint', checkpoint) };
}

// --- Hugging Face model ids (opt-in, online) --------------------------------

/** Where model files are fetched from, when (and only when) the user asks. */
export const HUB = 'https://huggingface.co';
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}\/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/;

/** Whether `text` (trimmed) is a model id as the Hub spells one: owner/name. */
export const isHubId = (text) => MODEL_ID.test(String(text).trim());

/** A Hub failure in the page's words: hubOffline, hubGated, hubMissing, hubRateLimit, hubStatus, hubNetwork. */
function hubProblem(response, path) {
  if (response.status === 401 || response.status === 403) return new CheckpointProblem('hubGated', { status: response.status, path });
  if (response.status === 404) return new CheckpointProblem('hubMissing', { path });
  if (response.status === 429) return new CheckpointProblem('hubRateLimit', { path });
  return new CheckpointProblem('hubStatus', { status: response.status, path });
}

/**
 * At most `max` bytes of a response's body ({ bytes, more: there was more
 * }), read as they arrive; the rest is not downloaded (the stream is
 * cancelled). A server that ignores a Range header sends the whole file:
 * this keeps that to what was asked.
 */
export async function boundedBytes(response, max) {
  const reader = response.body.getReader();
  const chunks = [];
  for (let length = 0; length <= max; ) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    length += value.length;
  }
  const bytes = new Uint8Array(await new Blob(chunks).arrayBuffer());
  if (bytes.length > max) reader.cancel().catch(() => {});
  return { bytes: bytes.subarray(0, max), more: bytes.length > max };
}

/**
 * The Hub as File-like objects readCheckpoint takes: config.json, the
 * index when there is one, and each safetensors file, whose slices are HTTP
 * range requests. A shard is fetched only when its header is read
 * (readHeader's load) and its bytes let go once it is (unload): the page
 * holds one shard's first bytes at a time, and a refused shard stops the
 * rest from being fetched. `token` (optional) goes in the Authorization
 * header only. `readIndex` parses the index (indexShards, or the background
 * reader's index, off the page's thread). `limits` are the core's
 * (checkpointLimits): the index's bytes and the number of shards are
 * checked against them before anything past them is fetched. Sends nothing
 * but GETs of those files' URLs.
 */
export async function hubFiles(modelId, limits, { token = '', revision = 'main', fetchFn = globalThis.fetch, readIndex = indexShards } = {}) {
  const id = String(modelId).trim();
  if (!MODEL_ID.test(id)) throw new CheckpointProblem('hubId', { id });
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const url = (path) => `${HUB}/${id.split('/').map(encodeURIComponent).join('/')}/resolve/${encodeURIComponent(revision)}/${path.split('/').map(encodeURIComponent).join('/')}`;
  const get = async (path, range) => {
    let response;
    try {
      response = await fetchFn(url(path), { headers: range ? { ...headers, Range: range } : headers, credentials: 'omit', referrerPolicy: 'no-referrer' });
    } catch (error) {
      // Offline, blocked by CORS or by the page's CSP: the browser does not say which.
      throw new CheckpointProblem(globalThis.navigator && navigator.onLine === false ? 'hubOffline' : 'hubNetwork', { path });
    }
    if (!response.ok) throw hubProblem(response, path);
    return response;
  };
  /** A JSON file's text, refused past `max` bytes without downloading the rest. */
  const getText = async (path, max) => {
    const { bytes, more } = await boundedBytes(await get(path), max);
    if (more) throw new CheckpointProblem('configLarge', { source: path, max });
    return new TextDecoder().decode(bytes);
  };
  const textFile = (name, text) => ({ name, size: text.length, text: async () => text });
  const rangeFile = (name) => {
    let head = null;
    const file = {
      name,
      size: 0,
      // The first slice also tells the file's size (Content-Range: bytes 0-N/size).
      async load(first) {
        const response = await get(name, `bytes=0-${first - 1}`);
        head = (await boundedBytes(response, first)).bytes;
        const total = Number((response.headers.get('Content-Range') || '').split('/')[1]);
        file.size = total > 0 ? total : head.length;
      },
      unload() {
        head = null;
      },
      slice: (start, end) => ({
        arrayBuffer: async () => {
          if (head && end <= head.length) return head.slice(start, end).buffer;
          return (await boundedBytes(await get(name, `bytes=${start}-${end - 1}`), end - start)).bytes.slice().buffer;
        },
      }),
    };
    return file;
  };
  const files = [textFile('config.json', await getText('config.json', MAX_CONFIG_BYTES))];
  let shards = ['model.safetensors'];
  try {
    const index = await getText('model.safetensors.index.json', limits.index_bytes);
    files.push(textFile('model.safetensors.index.json', index));
    const { names, error } = await readIndex(index);
    if (error) throw new CheckpointProblem(error.code, { source: 'model.safetensors.index.json', ...error });
    shards = names;
    // Plain file names only: an index cannot send requests elsewhere.
    if (!shards.length || shards.some((name) => !/^[A-Za-z0-9][\w.-]*\.safetensors$/.test(name))) throw new CheckpointProblem('ckptIndex');
  } catch (error) {
    // No index: one model.safetensors. Any other failure is the user's to see.
    if (!(error instanceof CheckpointProblem && error.problem.code === 'hubMissing')) throw error;
  }
  if (shards.length > limits.shards) throw new CheckpointProblem('ckptIndex');
  for (const name of shards) files.push(rangeFile(name));
  return files;
}
