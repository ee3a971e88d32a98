// Loads the built wasm module the way the page does (one factory, one
// instance, JSON through the `call` binding) for the node tests.
import { createRequire } from 'node:module';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { wrap } from '../../web/src/core.js';
import { roundDisplay } from '../../web/src/format.js';

export const root = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(import.meta.url);

let instance = null;
let raw = null;
export async function core() {
  if (!instance) {
    const factory = require(join(root, 'build/wasm/module/vram.js'));
    raw = await factory();
    instance = wrap(raw);
  }
  return instance;
}

/** The module's bindings themselves (call, inspect with its optional tensor list), unwrapped. */
export async function rawModule() {
  await core();
  return raw;
}

/** The binding itself: request text in, result text out, nothing parsed. */
export async function rawCall(method, text) {
  await core();
  return raw.call(method, text);
}

// messages.json holds rendering cases and numbers.json typed numbers, not
// requests: web-messages.test.mjs and web-numbers.test.mjs run them.
const NOT_REQUESTS = ['messages.json', 'numbers.json'];

/** The files of tests/vectors that hold requests and their answers. */
export function requestVectorFiles() {
  return readdirSync(join(root, 'tests/vectors')).filter((name) => name.endsWith('.json') && !NOT_REQUESTS.includes(name));
}

/** FNV-1a, 64 bits, over the UTF-8 bytes of `text`, as 16 hex digits (tests/golden). */
export function fnv1a64(text) {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}

/**
 * The requests of a product (tests/golden): one object from each factor,
 * merged in order, the last factor varying fastest.
 */
export function expandProduct(factors) {
  return factors.reduce((requests, factor) => requests.flatMap((r) => factor.map((part) => ({ ...r, ...part }))), [{}]);
}

export function loadJson(relative) {
  return JSON.parse(readFileSync(join(root, relative), 'utf8'));
}

export function atPath(doc, path) {
  return path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter(Boolean)
    .reduce((node, key) => {
      if (node === undefined || node === null) throw new Error(`no ${key} in path ${path}`);
      return node[key];
    }, doc);
}

/** Checks one vector expectation; returns a message or null. */
export function failure(result, expect) {
  const node = atPath(result, expect.path);
  if (expect.equals !== undefined && typeof expect.equals !== 'number') {
    return node === expect.equals ? null : `${expect.path}: ${node} != ${expect.equals}`;
  }
  let value = node * (expect.scale ?? 1);
  if (expect.round !== undefined) value = roundDisplay(value, expect.round);
  if (expect.equals !== undefined && Math.abs(value - expect.equals) > 1e-12 * Math.max(1, Math.abs(expect.equals))) {
    return `${expect.path}: ${value} != ${expect.equals}`;
  }
  if (expect.approx !== undefined && Math.abs(value - expect.approx) > expect.tolerance) {
    return `${expect.path}: ${value} not within ${expect.tolerance} of ${expect.approx}`;
  }
  if (expect.above !== undefined && !(value > expect.above)) return `${expect.path}: ${value} <= ${expect.above}`;
  if (expect.below !== undefined && !(value < expect.below)) return `${expect.path}: ${value} >= ${expect.below}`;
  return null;
}

/**
 * CLI flags for an estimate request (docs/cli.md lists them): each field
 * `a_b` is `--a-b VALUE`, engine options are `--engine-opt KEY=VALUE`.
 */
export function estimateFlags(request) {
  const renamed = { gpu_count: '--gpus' };
  const args = [];
  for (const [key, value] of Object.entries(request)) {
    if (key === 'engine_options') {
      for (const [name, option] of Object.entries(value)) args.push('--engine-opt', `${name}=${option}`);
      continue;
    }
    args.push(renamed[key] ?? `--${key.replace(/_/g, '-')}`, String(value));
  }
  return args;
}
