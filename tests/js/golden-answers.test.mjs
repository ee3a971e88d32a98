// Every answer of tests/golden/answers.json, byte for byte, from the wasm
// module: the vectors' requests, the presets, the README's examples and a
// sweep over every section of an estimate answer (tools/golden-answers.mjs
// wrote the file from the build before the answer was split into sections;
// tests/cpp/test_golden.cpp holds the native core to the same text).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadJson, rawCall } from './module.mjs';

test('golden answers: the module answers every request byte for byte as recorded', async () => {
  const { cases } = loadJson('tests/golden/answers.json');
  assert.ok(cases.length >= 350, `${cases.length} cases`);
  const differ = [];
  for (const c of cases) {
    if ((await rawCall(c.method, c.request_text)) !== c.answer) differ.push(c.source);
  }
  assert.deepEqual(differ, [], `${differ.length} answers differ; node tools/golden-answers.mjs --check lists them`);
});
