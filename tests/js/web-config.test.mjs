// Reading a pasted or dropped config.json (web/src/config.js): JSON.parse
// only, and every problem named with a code the page words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readConfigText } from '../../web/src/config.js';

test('a real config.json reads as an object', () => {
  const text = readFileSync(new URL('../configs/llama-3.1-8b/config.json', import.meta.url), 'utf8');
  const { value, error } = readConfigText(text);
  assert.equal(error, undefined);
  assert.equal(value.model_type, 'llama');
});

test('malformed, empty, non-object and oversized text are named problems', () => {
  const bad = readConfigText('{"hidden_size": 4096,');
  assert.equal(bad.error.code, 'configJson');
  assert.match(bad.error.detail, /JSON/);
  assert.deepEqual(readConfigText('   ').error, { code: 'configEmpty' });
  assert.deepEqual(readConfigText('[1, 2]').error, { code: 'configType', kind: 'array' });
  assert.deepEqual(readConfigText('null').error, { code: 'configType', kind: 'null' });
  assert.deepEqual(readConfigText('"text"').error, { code: 'configType', kind: 'string' });
  assert.equal(readConfigText(`{"a":"${'x'.repeat(1000000)}"}`).error.code, 'configLarge');
  assert.equal(readConfigText(42).error.code, 'configEmpty');
});

test('text that looks like code stays data', () => {
  const { value } = readConfigText('{"model_type": "<img src=x onerror=alert(1)>"}');
  assert.equal(value.model_type, '<img src=x onerror=alert(1)>');
});
