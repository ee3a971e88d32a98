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
