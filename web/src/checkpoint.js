// A checkpoint's own files in the browser: GGUF (one file or the parts of a
// split model) or safetensors (one or several files, with config.json and
// optionally model.safetensors.index.json), chosen or dropped. Only headers
// are read: a File.slice of the first MiB, grown as far as the core asks
// (its `truncated` error says how many bytes it needs), never the whole
// file. The core reads and checks every byte; this module only slices,
// sorts the files; the core sums them (call 'checkpoint').

import { readConfigText } from './config.js';

/** The first slice read from each file; most GGUF headers fit (vocabularies run to ~10 MB). */
export const FIRST_SLICE_BYTES = 1 << 20;
/** The core's own cap on a GGUF header (core/include/vram/gguf.hpp Limits). */
export const MAX_HEADER_BYTES = 256 << 20;
/** An index.json is a few hundred KB; refuse anything absurd before reading it. */
export const MAX_INDEX_BYTES = 50000000;

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
 * binding, throwing CoreError). Grows the slice to what the core asks, at
 * least twofold each time, so a header takes a handful of reads.
 */
export async function readHeader(file, kind, inspect, firstBytes = FIRST_SLICE_BYTES) {
  let size = Math.min(file.size, firstBytes);
  for (;;) {
    const bytes = new Uint8Array(await file.slice(0, size).arrayBuffer());
    try {
      return inspect(kind, bytes, file.size);
    } catch (error) {
      if (error.code !== 'truncated' || size >= file.size) throw error;
      const next = Math.min(file.size, Math.max(Number(error.neededBytes) || 0, size * 2));
      if (next > MAX_HEADER_BYTES) throw error;
      size = next;
    }
  }
}

async function readJson(file, max) {
  if (file.size > max) throw new CheckpointProblem('configLarge', { source: file.name, max });
  const { value, error } = readConfigText(await file.text());
  if (error) throw new CheckpointProblem(error.code, { source: file.name, ...error });
  return value;
}

/**
 * Reads a set of chosen or dropped files with `core` (inspect and call).
 * Returns { checkpoint: { files }, config, inspections, summary, kind }:
 * `config` is the GGUF's own or the given config.json, `summary` the core's
 * checked totals (by_type largest first). Throws CheckpointProblem (the
 * page's words) or CoreError (the core's named error, e.g. invalid_gguf
 * with its field).
 */
export async function readCheckpoint(fileList, core) {
  const files = [...fileList];
  const byKind = { gguf: [], safetensors: [], index: [], config: [], null: [] };
  for (const file of files) byKind[fileKind(file.name)].push(file);
  if (byKind.null.length) throw new CheckpointProblem('ckptUnknownFile', { name: byKind.null[0].name });
  if (byKind.gguf.length && byKind.safetensors.length) throw new CheckpointProblem('ckptMixed');
  if (byKind.index.length > 1 || byKind.config.length > 1) throw new CheckpointProblem('ckptDuplicate');
  const kind = byKind.gguf.length ? 'gguf' : 'safetensors';
  const parts = byKind[kind];
  if (!parts.length) throw new CheckpointProblem('ckptNoWeights');

  let config = byKind.config.length ? await readJson(byKind.config[0], MAX_INDEX_BYTES) : null;
  if (byKind.index.length) {
    const index = await readJson(byKind.index[0], MAX_INDEX_BYTES);
    const wanted = new Set(Object.values(index.weight_map || {}).filter((v) => typeof v === 'string'));
    const given = new Set(parts.map((f) => f.name));
    const missing = [...wanted].filter((name) => !given.has(name));
    if (!wanted.size) throw new CheckpointProblem('ckptIndex');
    if (missing.length) throw new CheckpointProblem('ckptMissing', { count: missing.length, first: missing[0] });
  }
  // Split parts in order (-00001-of-00003 ...), so the first holds the metadata.
  parts.sort((a, b) => a.name.localeCompare(b.name));
  const inspections = [];
  for (const file of parts) {
    try {
      inspections.push({ name: file.name, ...(await readHeader(file, kind, core.inspect)) });
    } catch (error) {
      error.source = file.name;
      throw error;
    }
  }
  if (kind === 'gguf') {
    const first = inspections.find((i) => i.config || i.config_error);
    if (first && first.config_error) {
      const error = new Error(first.config_error.message);
      Object.assign(error, first.config_error, { source: first.name });
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
 * The Hub as File-like objects readCheckpoint takes: config.json, the
 * index when there is one, and each safetensors file, whose slices are HTTP
 * range requests. `token` (optional) goes in the Authorization header only.
 * Sends nothing but GETs of those files' URLs.
 */
export async function hubFiles(modelId, { token = '', revision = 'main', fetchFn = globalThis.fetch } = {}) {
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
  const textFile = (name, text) => ({ name, size: text.length, text: async () => text });
  const rangeFile = async (name) => {
    // The first slice also tells the file's size (Content-Range: bytes 0-N/size).
    const first = await get(name, `bytes=0-${FIRST_SLICE_BYTES - 1}`);
    const head = new Uint8Array(await first.arrayBuffer());
    const total = Number((first.headers.get('Content-Range') || '').split('/')[1]);
    const size = Number.isFinite(total) && total > 0 ? total : head.length;
    return {
      name,
      size,
      slice: (start, end) => ({
        arrayBuffer: async () => {
          if (end <= head.length) return head.slice(start, end).buffer;
          const r = await get(name, `bytes=${start}-${end - 1}`);
          return r.arrayBuffer();
        },
      }),
    };
  };
  const files = [textFile('config.json', await (await get('config.json')).text())];
  let shards = ['model.safetensors'];
  try {
    const index = await (await get('model.safetensors.index.json')).text();
    files.push(textFile('model.safetensors.index.json', index));
    let map;
    try {
      map = JSON.parse(index).weight_map || {};
    } catch {
      throw new CheckpointProblem('ckptIndex');
    }
    shards = [...new Set(Object.values(map).filter((v) => typeof v === 'string'))];
    // Plain file names only: an index cannot send requests elsewhere.
    if (!shards.length || shards.some((name) => !/^[A-Za-z0-9][\w.-]*\.safetensors$/.test(name))) throw new CheckpointProblem('ckptIndex');
  } catch (error) {
    // No index: one model.safetensors. Any other failure is the user's to see.
    if (!(error instanceof CheckpointProblem && error.problem.code === 'hubMissing')) throw error;
  }
  if (shards.length > 4096) throw new CheckpointProblem('ckptIndex');
  for (const name of shards) files.push(await rangeFile(name));
  return files;
}
