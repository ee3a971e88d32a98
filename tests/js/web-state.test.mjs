// The page's state and its URL (web/src/state.js): every input round-trips
// through the query, unknown or malformed parameters are reported and
// ignored, presets apply, and each request carries only the keys its mode
// takes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  IMPORTED, MAX_QUERY_LENGTH, coreField, defaultState, estimateRequest, gridRequest, linkLanguage, parseQuery, readParam,
  takesImageSize, takesImages, takesMtp, toQuery,
} from '../../web/src/state.js';
import { core } from './module.mjs';

// The core's own request schema, as the page gets it (call('schema')).
const calc = await core();
const schema = calc.schema();
const catalog = {
  schema,
  models: [{ id: 'guide-70b' }, { id: 'guide-7b' }, { id: 'beam' }, { id: 'llama-3.1-8b' }],
  weight_formats: [{ id: 'fp8' }, { id: 'bf16' }, { id: 'int4' }],
  kv_formats: [{ id: 'fp16' }, { id: 'fp8' }],
  engines: [
    { id: 'guide', name: 'Guide', defaults: { overhead_gb: 2 } },
    { id: 'vllm', name: 'vLLM', defaults: { gpu_memory_utilization: 0.9, enforce_eager: false } },
  ],
  gpus: [{ id: 'h100-sxm' }, { id: 'h100-pcie' }, { id: 'a40' }],
  links: [
    { id: '70b-fp8-32k', state: { model: 'guide-70b', weights: 'fp8', context: 32768 } },
    { id: 'broken', state: { context: 'lots', view: 'grid' } },
  ],
};

// What the page opens on: its own defaults and the schema's.
const DEFAULT_STATE = defaultState(catalog);

const codes = (problems) => problems.map((p) => `${p.param}${p.preset === undefined ? '' : ` (preset ${p.preset})`}:${p.error.code}`);

test('an empty query is the default state, with nothing to report', () => {
  const { state, problems } = parseQuery('', catalog);
  assert.deepEqual(state, { ...DEFAULT_STATE });
  assert.deepEqual(problems, []);
});

test('every input round-trips through the URL', () => {
  const states = [
    { ...DEFAULT_STATE },
    { ...DEFAULT_STATE, view: 'grid', model: 'beam', weights: 'int4', kv: 'fp8', context: 131072, batch: 32, unit: 'GiB', gpu: '', gpu_count: 4 },
    { ...DEFAULT_STATE, mode: 'qlora', seq: 4096, micro_batch: 2, optimizer: 'adamw-8bit', lora_rank: 64, lora_targets: ['q_proj', 'v_proj', 'experts'], checkpointing: false, flash_attention: true, zero: 3, offload_optimizer: true, finetune_profile: 'guide' },
    { ...DEFAULT_STATE, model: 'custom', hidden: 5120, layers: 40, heads: 40, kv_heads: 40, head_dim: 128, ffn: 13824, vocab: 32000, params: 13.5 },
    { ...DEFAULT_STATE, model: 'config', config: '{"model_type":"llama","hidden_size":4096}' },
    { ...DEFAULT_STATE, engine: 'vllm', opts: { gpu_memory_utilization: 0.95, enforce_eager: true } },
    { ...DEFAULT_STATE, view: 'devices', model: 'beam', usable_fraction: 0.9 },
    { ...DEFAULT_STATE, view: 'grid', lang: 'fa', digits: 'latn' },
    { ...DEFAULT_STATE, lang: 'ar' },
  ];
  for (const state of states) {
    const query = toQuery(state, catalog);
    const { state: back, problems } = parseQuery(query, catalog);
    assert.deepEqual(problems, [], query);
    assert.deepEqual(back, state, query);
  }
});

test('links carry only what matters for the state', () => {
  const query = toQuery(DEFAULT_STATE, catalog);
  assert.equal(query, '?view=calculator&model=guide-70b&weights=fp8&kv=fp16&context=8192&batch=1&unit=GB&mode=inference&engine=guide&gpu=h100-pcie&gpu_count=1');
  assert.match(toQuery({ ...DEFAULT_STATE, mode: 'lora' }, catalog), /lora_targets=q_proj%2Ck_proj%2Cv_proj%2Co_proj/);
  assert.doesNotMatch(toQuery(DEFAULT_STATE, catalog), /hidden|config=|opt\.|lang|digits/);
  assert.match(toQuery({ ...DEFAULT_STATE, lang: 'fa' }, catalog), /&lang=fa$/);
});

test('lang and digits take only the page\'s languages and digit systems', () => {
  const { state, problems } = parseQuery('?lang=fa&digits=latn', catalog);
  assert.equal(state.lang, 'fa');
  assert.equal(state.digits, 'latn');
  assert.deepEqual(problems, []);
  assert.deepEqual(codes(parseQuery('?lang=de&digits=roman', catalog).problems), ['lang:notChoice', 'digits:notChoice']);
});

test('a link\'s language and digits read before the core is up agree with parseQuery\'s', () => {
  for (const query of ['', '?lang=ar', '?lang=fa&digits=latn', '?digits=native', '?lang=xx', '?lang=XX&lang=ar', '?lang=ar&lang=de',
    '?lang=fa&model=nowhere', `?lang=ar&${'x'.repeat(MAX_QUERY_LENGTH)}`, '?lang=%61r', '?lang=ar%00']) {
    const { state } = parseQuery(query, catalog);
    assert.deepEqual(linkLanguage(query), { lang: state.lang, digits: state.digits }, query.slice(0, 40));
  }
  assert.deepEqual(linkLanguage(null), { lang: '', digits: '' });
});

test('unknown and malformed parameters are reported and ignored', () => {
  const { state, problems } = parseQuery(
    '?context=abc&batch=0&model=nope&foo=1&unit=MB&checkpointing=maybe&zero=7&lora_targets=q_proj,evil&params=-1&gpu_count=1.5',
    catalog,
  );
  assert.deepEqual(codes(problems), [
    'context:notNumber', 'batch:range', 'model:notChoice', 'foo:unknownParam', 'unit:notChoice',
    'checkpointing:notBool', 'zero:range', 'lora_targets:notChoice', 'params:range', 'gpu_count:notWhole',
  ]);
  assert.deepEqual(state, { ...DEFAULT_STATE });
});

test('a number in a link reads as it does typed in its field: 32k tokens, digit groups, 1e5, Persian digits', () => {
  const read = (query) => {
    const { state, problems } = parseQuery(query, catalog);
    return { state, codes: codes(problems) };
  };
  assert.equal(read('?context=32k').state.context, 32768);
  assert.equal(read('?context=128K&seq=4k').state.context, 131072);
  assert.equal(read('?mode=lora&seq=4k').state.seq, 4096);
  assert.equal(read('?context=32,768').state.context, 32768);
  assert.equal(read('?context=3.2e4').state.context, 32000);
  assert.equal(read(`?context=${encodeURIComponent('۳۲۷۶۸')}`).state.context, 32768);
  // k is a thousand where the field is not a token count.
  assert.equal(read('?batch=0.1k').state.batch, 100);
  assert.equal(read('?min_tokens_per_s=2.5').state.min_tokens_per_s, 2.5);
  // What does not read is named and changes nothing.
  const bad = read('?context=32kk&batch=1.5&gpu_count=2e0&context=1.1k&context=1M0');
  assert.deepEqual(bad.codes, ['context:notNumber', 'batch:notWhole', 'context:notWhole', 'context:notNumber']);
  assert.equal(bad.state.context, DEFAULT_STATE.context);
  assert.equal(bad.state.gpu_count, 2);
  // Past the core's limit in any form is out of range.
  const max = coreField(catalog, 'estimate', 'context').max;
  assert.deepEqual(read(`?context=${Math.ceil((max + 1) / 1024)}k`).codes, ['context:range']);
  // An engine knob reads plain decimals: no k, as its field does.
  assert.deepEqual(codes(parseQuery('?engine=vllm&opt.gpu_memory_utilization=0.9k', catalog).problems), ['opt.gpu_memory_utilization:notNumber']);
});

test('a misspelt model, card, format or engine in a link is ignored, with the nearest choice offered', async () => {
  // The shipped catalog, as the page gets it (call('presets')).
  const shipped = { ...(await core()).presets(), schema };
  const near = (query) => parseQuery(query, shipped).problems.map(({ param, error }) => `${param}:${error.code}:${error.id ?? ''}`);
  assert.deepEqual(near('?gpu=h200&model=llama-70b&weights=awq&engine=llama.cpp'), [
    'gpu:notChoiceNear:h200-sxm', 'model:notChoiceNear:llama-3.1-70b', 'weights:notChoiceNear:awq-int4', 'engine:notChoiceNear:llamacpp',
  ]);
  const { state, problems } = parseQuery('?model=Qwen/Qwen3-32B', shipped);
  assert.equal(state.model, defaultState(shipped).model, 'a suggestion is not applied');
  assert.deepEqual(problems[0].error, { code: 'notChoiceNear', value: 'Qwen/Qwen3-32B', id: 'qwen3-32b', name: 'Qwen3 32B' });
  // Only the problems shown one by one are searched (a crafted link must not run a search per parameter).
  assert.deepEqual(near(`?${'gpu=h200&'.repeat(7)}`).map((p) => p.split(':')[1]), [...Array(5).fill('notChoiceNear'), 'notChoice', 'notChoice']);
  // Nothing near: the plain problem; lists without names (modes) are not searched.
  assert.deepEqual(near('?gpu=zzz&mode=lorra'), ['gpu:notChoice:', 'mode:notChoice:']);
});

test('markup in a parameter stays text, shortened and without control characters', () => {
  const { problems } = parseQuery(`?model=${encodeURIComponent('<script>alert(1)</script>\u0007' + 'x'.repeat(60))}`, catalog);
  assert.equal(problems[0].error.code, 'notChoice');
  assert.equal(problems[0].error.value.length, 41);
  assert.ok(!problems[0].error.value.includes('\u0007'));
  assert.equal(parseQuery(`?view=${'x'.repeat(300)}`, catalog).problems[0].error.code, 'tooLong');
});

test('a malformed config parameter is named and the model stays a preset', () => {
  const { state, problems } = parseQuery('?model=config&config=%7B%22a%22%3A', catalog);
  assert.deepEqual(codes(problems), ['config:configJson', 'model:configNeeded']);
  assert.equal(state.model, 'guide-70b');
  assert.deepEqual(codes(parseQuery('?config=%5B%5D', catalog).problems), ['config:configType']);
});

test('named presets apply, the URL overrides them, unknown ones are reported', () => {
  let { state, problems } = parseQuery('?preset=70b-fp8-32k', catalog);
  assert.deepEqual(problems, []);
  assert.equal(state.context, 32768);
  ({ state } = parseQuery('?preset=70b-fp8-32k&context=4096', catalog));
  assert.equal(state.context, 4096);
  ({ state, problems } = parseQuery('?preset=broken', catalog));
  assert.deepEqual(codes(problems), ['context (preset broken):notNumber']);
  assert.equal(state.view, 'grid');
  assert.deepEqual(codes(parseQuery('?preset=zzz', catalog).problems), ['preset:unknownPreset']);
});

test("engine options are checked against the engine's knobs", () => {
  let { state, problems } = parseQuery('?engine=vllm&opt.gpu_memory_utilization=0.8&opt.enforce_eager=true', catalog);
  assert.deepEqual(problems, []);
  assert.deepEqual(state.opts, { gpu_memory_utilization: 0.8, enforce_eager: true });
  ({ state, problems } = parseQuery('?opt.gpu_memory_utilization=0.8&opt.enforce_eager=x', catalog));
  assert.deepEqual(codes(problems), ['opt.gpu_memory_utilization:notOption', 'opt.enforce_eager:notOption']);
  // The knob's range is the core's: out of it, the value is named and ignored.
  ({ state, problems } = parseQuery('?engine=vllm&opt.gpu_memory_utilization=2&opt.gpu_memory_utilization=0&opt.enforce_eager=x', catalog));
  assert.deepEqual(codes(problems), ['opt.gpu_memory_utilization:range', 'opt.gpu_memory_utilization:range', 'opt.enforce_eager:notBool']);
  assert.deepEqual(state.opts, {});
  // A different engine starts from its own defaults.
  ({ state } = parseQuery('?engine=guide', catalog, { ...DEFAULT_STATE, engine: 'vllm', opts: { enforce_eager: true } }));
  assert.deepEqual(state.opts, {});
});

test('inputs are validated with the URL schema', () => {
  assert.deepEqual(readParam('context', '32768', catalog), { value: 32768 });
  assert.equal(readParam('context', '', catalog).error.code, 'notWhole');
  assert.deepEqual(readParam('params', '', catalog), { value: null });
  assert.deepEqual(readParam('gpu', '', catalog), { value: '' });
  // A negative number is out of range, not "not a number" (issue 41), with
  // either minus sign; a minus alone or doubled is still not a number.
  for (const raw of ['-5', '\u22124k', ' -1 ']) assert.equal(readParam('context', raw, catalog).error.code, 'range', raw);
  assert.equal(readParam('context', '--5', catalog).error.code, 'notNumber');
  assert.equal(readParam('context', '-', catalog).error.code, 'notWhole');
});

test('an inference request carries inference keys only', () => {
  const request = estimateRequest({ ...DEFAULT_STATE, engine: 'vllm', opts: { gpu_memory_utilization: 0.95 } }, undefined, catalog);
  assert.deepEqual(request, {
    model: 'guide-70b', gpu: 'h100-pcie', gpu_count: 1, weights: 'fp8', kv: 'fp16', context: 8192, batch: 1,
    engine: 'vllm', min_tokens_per_s: 10, gpu_used_gb: 0, engine_options: { gpu_memory_utilization: 0.95 },
  });
  assert.equal('catalog' in request, false);
  assert.deepEqual(estimateRequest({ ...DEFAULT_STATE, gpu: '' }, { gpus: [] }, catalog).catalog, { gpus: [] });
  assert.equal('gpu_count' in estimateRequest({ ...DEFAULT_STATE, gpu: '' }, undefined, catalog), false);
});

test('a fine-tuning request carries only the keys its mode, method and optimizer take', () => {
  const lora = estimateRequest({ ...DEFAULT_STATE, mode: 'lora' }, undefined, catalog);
  for (const key of ['kv', 'context', 'batch', 'engine', 'engine_options', 'weights']) assert.equal(key in lora, false, key);
  assert.equal(lora.mode, 'lora');
  assert.equal(lora.seq, 2048);
  assert.deepEqual(lora.lora_targets, ['q_proj', 'k_proj', 'v_proj', 'o_proj']);
  assert.equal('upcast_unquantized' in lora, false);
  assert.equal('momentum' in lora, false);
  const full = estimateRequest({ ...DEFAULT_STATE, mode: 'full' }, undefined, catalog);
  assert.equal('lora_rank' in full, false);
  assert.equal('lora_targets' in full, false);
  assert.equal(estimateRequest({ ...DEFAULT_STATE, mode: 'qlora' }, undefined, catalog).upcast_unquantized, true);
  assert.equal(estimateRequest({ ...DEFAULT_STATE, mode: 'full', optimizer: 'sgd' }, undefined, catalog).momentum, 0);
  // Whatever the page builds, the core takes: every mode with every optimizer.
  for (const mode of schema.requests.estimate.find((f) => f.name === 'mode').choices) {
    for (const optimizer of schema.requests.estimate.find((f) => f.name === 'optimizer').choices) {
      const request = estimateRequest({ ...DEFAULT_STATE, gpu: '', mode, optimizer }, undefined, catalog);
      assert.doesNotThrow(() => calc.estimate(request), `${mode} ${optimizer}`);
    }
  }
});

test("a link's fine-tuning key its mode does not take is dropped, and named unless at its default", () => {
  // Links of older pages carried every fine-tuning key in every method.
  const old = parseQuery('?mode=full&lora_rank=16&lora_targets=q_proj,k_proj,v_proj,o_proj&upcast_unquantized=true&momentum=0', catalog);
  assert.deepEqual(old.problems, []);
  assert.equal(old.state.mode, 'full');
  const named = parseQuery('?mode=full&lora_rank=8&optimizer=adamw&momentum=0.9', catalog);
  assert.deepEqual(named.problems, [
    { param: 'momentum', error: { code: 'notApplicable', when: 'optimizer', values: 'sgd' } },
    { param: 'lora_rank', error: { code: 'notApplicable', when: 'mode', values: 'lora, qlora' } },
  ]);
  assert.equal(named.state.lora_rank, DEFAULT_STATE.lora_rank);
  assert.equal(named.state.momentum, DEFAULT_STATE.momentum);
  // Without a fine-tuning mode, a fine-tuning key is named by the modes that take it.
  assert.deepEqual(parseQuery('?seq=512', catalog).problems, [{ param: 'seq', error: { code: 'notApplicable', when: 'mode', values: 'full, lora, qlora' } }]);
  // Where it applies it is read, and the link carries it back; where not, the link drops it.
  assert.equal(parseQuery('?mode=qlora&lora_rank=8', catalog).state.lora_rank, 8);
  assert.match(toQuery({ ...DEFAULT_STATE, mode: 'qlora', lora_rank: 8 }, catalog), /lora_rank=8/);
  const full = toQuery({ ...DEFAULT_STATE, mode: 'full', lora_rank: 8 }, catalog);
  for (const key of ['lora_rank', 'lora_targets', 'upcast_unquantized', 'momentum']) assert.doesNotMatch(full, new RegExp(`${key}=`), key);
});

test("a link's KV heads are at most its attention heads, as the core's schema bounds them", () => {
  const { state, problems } = parseQuery('?model=custom&heads=4&kv_heads=16', catalog);
  assert.deepEqual(problems, [{ param: 'kv_heads', error: { code: 'range', min: 1, max: 4 } }]);
  assert.equal(state.kv_heads, 4);
  assert.deepEqual(parseQuery('?model=custom&heads=64&kv_heads=64', catalog).problems, []);
  // Bounded by the core's config table: a vocabulary over its 16,777,216 is refused.
  assert.equal(readParam('vocab', '16777216', catalog).value, 16777216);
  assert.equal(readParam('vocab', '16777217', catalog).error.code, 'range');
});

test('a custom shape goes to the core as a config.json', () => {
  const request = estimateRequest({ ...DEFAULT_STATE, model: 'custom', params: 8 }, undefined, catalog);
  assert.deepEqual(request.config, {
    model_type: 'custom', hidden_size: 4096, num_hidden_layers: 32, num_attention_heads: 32,
    num_key_value_heads: 8, head_dim: 128, intermediate_size: 14336, vocab_size: 128256,
  });
  assert.equal(request.params_total, 8e9);
  assert.equal('params_total' in estimateRequest({ ...DEFAULT_STATE, model: 'custom' }, undefined, catalog), false);
});

test('the grid adds the chosen preset to the five guide shapes', () => {
  assert.deepEqual(gridRequest(DEFAULT_STATE, undefined, catalog), { context: 8192, batch: 1 });
  const rows = gridRequest({ ...DEFAULT_STATE, model: 'beam' }, undefined, catalog).models;
  // The guide's rows are the core's grid default, then the chosen preset.
  assert.deepEqual(rows, [...coreField(catalog, 'grid', 'models').default, 'beam']);
});

test('a query longer than MAX_QUERY_LENGTH is ignored whole, with one problem', () => {
  const search = `?context=4096&${'x'.repeat(MAX_QUERY_LENGTH)}`;
  const { state, problems } = parseQuery(search, catalog);
  assert.deepEqual(state, { ...DEFAULT_STATE });
  assert.deepEqual(problems, [{ param: '', error: { code: 'queryTooLong', length: search.length, max: MAX_QUERY_LENGTH } }]);
  // Just under the cap it is read as usual.
  const under = `?context=4096&pad=${'x'.repeat(MAX_QUERY_LENGTH - 20)}`;
  assert.equal(parseQuery(under, catalog).state.context, 4096);
});

test('100,000 unknown parameters are read, each reported, in a few seconds at most', () => {
  // Short names, so the query stays under MAX_QUERY_LENGTH.
  const search = `?${'x&'.repeat(100000)}context=4096`;
  const start = performance.now();
  const { state, problems } = parseQuery(search, catalog);
  const ms = performance.now() - start;
  assert.equal(state.context, 4096);
  assert.equal(problems.length, 100000);
  // About 0.1 s on an idle machine; the bound leaves room for a loaded one.
  assert.ok(ms < 5000, `${ms} ms`);
});

test('A pasted config offers its own MTP layers by either key: num_nextn_predict_layers or mtp_num_hidden_layers', async () => {
  const { takesMtp } = await import('../../web/src/state.js');
  const pasted = (config) => ({ model: 'config', config: JSON.stringify(config) });
  // DeepSeek V3 and GLM-4.5 name them num_nextn_predict_layers; Qwen3-Next and Qwen3.5
  // mtp_num_hidden_layers (under text_config for Qwen3.5's multimodal checkpoints).
  assert.equal(takesMtp(catalog, pasted({ model_type: 'deepseek_v3', num_nextn_predict_layers: 1 })), true);
  assert.equal(takesMtp(catalog, pasted({ model_type: 'qwen3_next', mtp_num_hidden_layers: 1 })), true);
  assert.equal(takesMtp(catalog, pasted({ model_type: 'qwen3_5', text_config: { mtp_num_hidden_layers: 1 } })), true);
  assert.equal(takesMtp(catalog, pasted({ model_type: 'qwen3_next', mtp_num_hidden_layers: 0 })), false);
  assert.equal(takesMtp(catalog, pasted({ model_type: 'qwen3_next' })), false);
  // A preset: what the core's catalog says of it (mtp_layers).
  const withLayers = { ...catalog, models: [{ id: 'qwen3-next-80b-a3b', mtp_layers: 1 }] };
  assert.equal(takesMtp(withLayers, { model: 'qwen3-next-80b-a3b' }), true);
});

test("a pasted config takes MTP layers, images and an image's size as the core's importer table says", () => {
  // The schema's config_needs: the families' MTP keys and the towers that take any resolution.
  assert.deepEqual(schema.config_needs.mtp.count_keys.sort(), ['mtp_num_hidden_layers', 'num_nextn_predict_layers']);
  assert.deepEqual(schema.config_needs.dynamic_vision.model_types.sort(), ['qwen3_5', 'qwen3_5_moe']);
  const pasted = (config) => ({ ...DEFAULT_STATE, model: IMPORTED, config: JSON.stringify(config) });
  const qwen35 = { model_type: 'qwen3_5_moe', text_config: { mtp_num_hidden_layers: 1 }, vision_config: { depth: 27 } };
  assert.equal(takesMtp(catalog, pasted(qwen35)), true);
  assert.equal(takesImages(catalog, pasted(qwen35)), true);
  assert.equal(takesImageSize(catalog, pasted(qwen35)), true);
  // Gemma 3's SigLIP tower has a fixed size; no MTP layers, or none counted, take no drafter.
  const gemma = { model_type: 'gemma3', vision_config: { image_size: 896 } };
  assert.equal(takesImages(catalog, pasted(gemma)), true);
  assert.equal(takesImageSize(catalog, pasted(gemma)), false);
  assert.equal(takesMtp(catalog, pasted(gemma)), false);
  assert.equal(takesMtp(catalog, pasted({ model_type: 'deepseek_v3', num_nextn_predict_layers: 0 })), false);
  assert.equal(takesMtp(catalog, pasted({ model_type: 'deepseek_v3', num_nextn_predict_layers: 1 })), true);
  // A key in a string, or text that is not JSON, is not a config holding it.
  assert.equal(takesMtp(catalog, { ...DEFAULT_STATE, model: IMPORTED, config: '{"name": "\\"mtp_num_hidden_layers\\": 1"}' }), false);
  assert.equal(takesImages(catalog, { ...DEFAULT_STATE, model: IMPORTED, config: '{"vision_config"' }), false);
});
