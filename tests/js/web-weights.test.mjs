// The weights an engine change leaves (web/src/state.js weightsFor), over the
// core's own preset list: each engine's `loads` (engine_runs) and the weight
// formats with their bits. A format the new engine does not load moves to
// the nearest it does; a link that names its weights keeps them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IMPORTED, defaultState, estimateRequest, parseQuery, toQuery, weightsFor, weightsForModel, weightsOnModel } from '../../web/src/state.js';
import { core } from './module.mjs';

const api = await core();
const catalog = { ...api.presets(), schema: api.schema() };

test('every engine lists the formats it loads, and keeps them', () => {
  for (const engine of catalog.engines) {
    assert.ok(engine.loads.length > 0, engine.id);
    for (const id of engine.loads) assert.equal(weightsFor(catalog, engine.id, id, 'h100-sxm'), id, `${engine.id} ${id}`);
    assert.equal(weightsFor(catalog, engine.id, 'native'), 'native', engine.id);
  }
});

test('llama.cpp takes the GGUF type nearest the weights, of the same whole bits', () => {
  for (const [from, to] of [['fp8', 'q8_0'], ['int8', 'q8_0'], ['int4', 'iq4_xs'], ['awq-int4', 'iq4_xs'], ['gptq-int4', 'iq4_xs'], ['nf4', 'iq4_xs'], ['nvfp4', 'q4_0']]) {
    assert.equal(weightsFor(catalog, 'llamacpp', from, 'rtx-4090'), to, from);
  }
});

test('vLLM and SGLang move off a GGUF type to what the card runs', () => {
  for (const engine of ['vllm', 'sglang']) {
    assert.equal(weightsFor(catalog, engine, 'q8_0', 'h100-sxm'), 'fp8', engine);
    assert.equal(weightsFor(catalog, engine, 'q8_0', 'a100-sxm'), 'int8', `${engine}: an A100 has no FP8`);
    assert.equal(weightsFor(catalog, engine, 'q8_0'), 'int8', `${engine}: no card, no card feature`);
    const four = weightsFor(catalog, engine, 'q4_k_m', 'h100-sxm');
    const format = catalog.weight_formats.find((f) => f.id === four);
    assert.equal(Math.floor(format.bits_per_weight), 4, `${engine}: Q4_K_M stays 4-bit (${four})`);
    assert.ok(catalog.engines.find((e) => e.id === engine).loads.includes(four));
  }
});

test('a link that changes the engine moves the default weights, not weights it names', () => {
  const base = defaultState(catalog);
  assert.equal(base.weights, 'fp8');
  assert.equal(parseQuery('?engine=llamacpp', catalog).state.weights, 'q8_0');
  assert.equal(parseQuery('?engine=llamacpp&weights=fp8', catalog).state.weights, 'fp8');
  assert.equal(parseQuery('?engine=llamacpp&weights=q4_k_m', catalog).state.weights, 'q4_k_m');
  assert.equal(parseQuery('?engine=vllm', catalog).state.weights, 'fp8');
});

test('a model stored narrower than the weights is sized as stored, unless the link names them', () => {
  // gpt-oss keeps its experts in MXFP4: the page's default FP8 would double it.
  assert.equal(weightsForModel(catalog, 'gpt-oss-120b', 'fp8'), 'native');
  assert.equal(weightsForModel(catalog, 'gpt-oss-20b', 'bf16'), 'native');
  // Already as narrow, or a model stored in 16 or 8 bits: unchanged.
  assert.equal(weightsForModel(catalog, 'gpt-oss-120b', 'int4'), 'int4');
  assert.equal(weightsForModel(catalog, 'gpt-oss-120b', 'native'), 'native');
  assert.equal(weightsForModel(catalog, 'deepseek-v3', 'fp8'), 'fp8');
  assert.equal(weightsForModel(catalog, 'llama-3.1-8b', 'fp8'), 'fp8');
  assert.equal(weightsForModel(catalog, 'no-such-model', 'fp8'), 'fp8');
  assert.equal(parseQuery('?model=gpt-oss-120b', catalog).state.weights, 'native');
  assert.equal(parseQuery('?model=gpt-oss-120b&weights=fp8', catalog).state.weights, 'fp8');
  assert.equal(parseQuery('?model=deepseek-v3', catalog).state.weights, 'fp8');
  // Then the engine's rule: llama.cpp loads MXFP4, so native stays.
  assert.equal(parseQuery('?model=gpt-oss-120b&engine=llamacpp', catalog).state.weights, 'native');
  // The page's own default model keeps the page's default weights.
  assert.equal(parseQuery('', catalog).state.weights, 'fp8');
});

// The page's model choice, as the picker makes it: the model and the weights it makes (weightsOnModel).
function pickModel(state, model) {
  const { patch, note } = weightsOnModel(catalog, state, model);
  return { state: { ...state, model, ...patch }, note };
}
const total = (state) => api.estimate(estimateRequest(state, undefined, catalog)).total_gb;

test('a model gives one answer, whatever model was picked before it (issue 41)', () => {
  const fresh = defaultState(catalog);
  for (const model of ['llama-3.1-70b', 'qwen3-32b']) {
    const opened = pickModel(fresh, model);
    assert.equal(opened.note, null, model);
    const viaOss = pickModel(pickModel(fresh, 'gpt-oss-120b').state, model);
    assert.equal(viaOss.state.weights, opened.state.weights, model);
    assert.equal(viaOss.state.weights_asked, null, model);
    assert.equal(total(viaOss.state), total(opened.state), `${model}: fresh ${total(opened.state)} GB`);
    // What the page did is said: the weights went back to the reader's format.
    assert.deepEqual(viaOss.note, { id: 'input.weightsBack', to: fresh.weights, from: 'native' }, model);
    // A link copied in either state reopens its total.
    for (const state of [pickModel(fresh, 'gpt-oss-120b').state, viaOss.state]) {
      const reopened = parseQuery(toQuery(state, catalog), catalog).state;
      assert.equal(total(reopened), total(state), toQuery(state, catalog));
    }
  }
  // The fresh answer is the default engine's FP8 one: 77 GB for Llama 3.1 70B, not 146 (BF16).
  assert.ok(total(pickModel(fresh, 'llama-3.1-70b').state) < 100);
});

test('gpt-oss is sized as stored, and says so; a format picked by hand is kept', () => {
  const fresh = defaultState(catalog);
  const oss = pickModel(fresh, 'gpt-oss-120b');
  assert.equal(oss.state.weights, 'native');
  assert.equal(oss.state.weights_asked, 'fp8');
  assert.deepEqual(oss.note, { id: 'input.weightsNative', from: 'fp8' });
  // The reader's own "as the checkpoint stores it" is theirs: it stays on the next model.
  const chosen = pickModel({ ...fresh, weights: 'native', weights_asked: null }, 'llama-3.1-70b');
  assert.equal(chosen.state.weights, 'native');
  assert.equal(chosen.note, null);
  // The engine changed on gpt-oss: the format asked for follows it on the next model (FP8 under llama.cpp is Q8_0).
  const llamacpp = pickModel({ ...oss.state, engine: 'llamacpp' }, 'llama-3.1-70b');
  assert.equal(llamacpp.state.weights, 'q8_0');
  // A link that opens gpt-oss remembers the format it replaced.
  const linked = parseQuery('?model=gpt-oss-120b', catalog).state;
  assert.equal(pickModel(linked, 'llama-3.1-70b').state.weights, 'fp8');
});

test('an imported checkpoint sizes its own tensors, and the next model does not inherit that', () => {
  const fresh = defaultState(catalog);
  const checkpoint = { files: [] };
  const imported = weightsOnModel(catalog, fresh, IMPORTED, checkpoint);
  assert.deepEqual(imported.patch, { weights: 'native', weights_asked: 'fp8' });
  assert.deepEqual(imported.note, { id: 'input.weightsChecked', from: 'fp8' });
  const state = { ...fresh, model: IMPORTED, checkpoint, ...imported.patch };
  const next = pickModel(state, 'llama-3.1-70b');
  assert.equal(next.state.weights, 'fp8');
  assert.equal(next.note.id, 'input.weightsBack');
  // Back to the import: its checkpoint is sized as stored again.
  assert.equal(pickModel(next.state, IMPORTED).state.weights, 'native');
  // A config.json alone (no checkpoint) is sized in the reader's format.
  assert.deepEqual(weightsOnModel(catalog, state, IMPORTED, null).patch, { weights: 'fp8', weights_asked: null });
});
