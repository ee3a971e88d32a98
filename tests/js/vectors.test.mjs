// The shared reference vectors, run against the wasm module. The doctest
// suite runs the same files against the native core.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRenderer } from '../../web/src/messages.js';
import { core, failure, loadJson, rawCall, requestVectorFiles } from './module.mjs';

// The wasm module carries only its errors' English (error.*, list.*: see
// CMakeLists.txt); the English of each error must still be whole: what the
// full catalog renders from its message id and params.
const english = createRenderer({ catalogs: { en: loadJson('data/messages/en.json') } });
function checkEnglish(error, name) {
  assert.ok(!/\b(error|list|word|kind)\.[a-z_]+\b/.test(error.message), `${name}: '${error.message}' shows a message id`);
  // An error built from a catalog template (no free-text detail) says its
  // template, after any context ("GPU 'a': ...").
  if (error.messageId && !('detail' in error.messageId.params)) {
    const said = english.render(error.messageId);
    assert.ok(error.message.endsWith(said), `${name}: '${error.message}' does not say '${said}'`);
  }
}

const files = requestVectorFiles();

for (const file of files) {
  test(`vectors: ${file}`, async () => {
    const { call } = await core();
    const doc = loadJson(`tests/vectors/${file}`);
    assert.ok(doc.cases.length > 0);
    for (const c of doc.cases) {
      if (c.request_text !== undefined) {
        // Text no JSON value serialises to (1e400, bad syntax): sent as is.
        const { error } = JSON.parse(await rawCall(c.method, c.request_text));
        assert.equal(error?.code, c.error.code, c.name);
        assert.equal(error.field, c.error.field, c.name);
        continue;
      }
      if (c.error) {
        assert.throws(() => call(c.method, c.request), (error) => {
          assert.equal(error.code, c.error.code, c.name);
          assert.equal(error.field, c.error.field, c.name);
          checkEnglish(error, c.name);
          return true;
        }, c.name);
        continue;
      }
      const result = call(c.method, c.request);
      const problems = c.expect.map((expect) => failure(result, expect)).filter(Boolean);
      assert.deepEqual(problems, [], c.name);
    }
  });
}
