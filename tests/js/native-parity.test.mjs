// Native and wasm must agree to the last bit: every vector request goes
// through the CLI (--json) and through the module, and the JSON must be
// identical, number for number.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { core, estimateFlags, loadJson, requestVectorFiles, root } from './module.mjs';

const cli = join(root, 'build/native/vramcalc');

test('native CLI and wasm module return identical JSON', async () => {
  const { call } = await core();
  const files = requestVectorFiles();
  let compared = 0;
  for (const file of files) {
    for (const c of loadJson(`tests/vectors/${file}`).cases) {
      if (c.error || c.method !== 'estimate' || 'config' in c.request) continue;
      const native = JSON.parse(execFileSync(cli, ['estimate', '--json', ...estimateFlags(c.request)], { encoding: 'utf8' }));
      const wasm = call('estimate', c.request);
      assert.deepStrictEqual(wasm, native, c.name);
      compared++;
    }
  }
  assert.ok(compared >= 40, `compared ${compared} cases`);
});
