// The single file's budget (issue 41): dist/vram-calculator.html at most
// 250 KiB (256,000 bytes) by GNU gzip -9, as a server would send it, with
// every view, language and capability in it. The failure names the parts
// (docs/performance.md, "Where the bytes are"), so the one that grew shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './module.mjs';

const LIMIT = 250 * 1024;
const gzip9 = (data) => execFileSync('gzip', ['-9', '-c'], { input: data, maxBuffer: 64 << 20 }).length;

/** The page's parts, gzipped one by one: the packed module and catalogs, the decoder, the glue, the rest. */
function parts(page) {
  const packed = /VRAM_LZMA="([^"]*)"/.exec(page)?.[1] ?? '';
  const decoder = /VRAM_UNLZMA="([^"]*)"/.exec(page)?.[1] ?? '';
  const start = page.indexOf('function vramGlue');
  const end = page.indexOf('var createVramModule=vramGlue()');
  const glue = start >= 0 && end > start ? page.slice(start, end) : '';
  const rest = page.replace(packed, '').replace(decoder, '').replace(glue, '');
  return { 'module and catalogs (LZMA)': packed, decoder, glue, 'element, CSS and HTML': rest };
}

test('the single file is at most 250 KiB by gzip -9', () => {
  const page = readFileSync(join(root, 'dist/vram-calculator.html'), 'utf8');
  const size = gzip9(page);
  const detail = Object.entries(parts(page))
    .map(([name, text]) => `${name} ${gzip9(text)}`)
    .join(', ');
  assert.ok(size <= LIMIT, `dist/vram-calculator.html is ${size} bytes by gzip -9, over ${LIMIT} (${detail})`);
});
