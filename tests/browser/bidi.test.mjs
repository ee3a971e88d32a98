// Right to left, a sentence that starts with a number and a Latin unit
// ("76 GB على كل واحدة من 4 وحدات GPU") reads in the language's order
// (issue 41): the number, written first, lands to the right of the Arabic
// or Persian word that follows it, as a reader of either language reads
// it. Measured where the words land on screen (Range.getClientRects) at a
// phone's width, over every visible text of the views the issue names:
// the multi-GPU line under the total, the Persian device-count table, the
// host-RAM line under partial offload, the decode ceilings, the grid's
// cells marked tight. docs/i18n.md, "Right to left".
//
// And every message template the page carries that takes parameters, in
// both languages and both digit systems, rendered by the page's own
// translator with representative values (a number and its unit, a card's
// name, a weight format, a flag, a count, a nested sentence that starts
// with a number), each in an element of its own as the views show one (a
// <bdi dir="rtl"> in the calculator's frame: its direction and font), and
// measured word by word against the reader's order (./bidi-words.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openPage, root, screenshot } from './harness.mjs';
import { MARKS, pieceRenderer, placeholders, readerOrder } from './bidi-words.mjs';

/**
 * In the page: every visible text node of the calculator in which a number
 * comes before the language's first word, on the same line, and where each
 * lands: { checked, wrong: [{ text, number, word }] }. Right to left the
 * number's box must be right of the word's. Code (dir=ltr) and citations
 * (lang=en) are left to right by design and not measured.
 */
function measure() {
  const root = document.querySelector('vram-calculator').shadowRoot;
  for (const details of root.querySelectorAll('details')) details.open = true;
  const WORD = /(?:(?=\p{L})\p{Script=Arabic})+/u;
  const NUMBER = /[0-9\u0660-\u0669\u06f0-\u06f9]+(?:[.,\u066b\u066c][0-9\u0660-\u0669\u06f0-\u06f9]+)*/u;
  const box = (node, at, length) => {
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + length);
    return range.getClientRects()[0];
  };
  const wrong = [];
  const seen = new Set();
  let checked = 0;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    const text = node.textContent;
    if (!el || el.closest('style, option, textarea, code, pre, [dir=ltr], [lang=en]') || !el.getClientRects().length) continue;
    const word = WORD.exec(text);
    const number = NUMBER.exec(text);
    // A number in a Latin name (H100, FP8, Q4_K_M) is the name's, not the sentence's.
    if (!word || !number || number.index > word.index || /[A-Za-z_]/.test(text[number.index - 1] || '')) continue;
    const a = box(node, number.index, number[0].length);
    const b = box(node, word.index, word[0].length);
    if (!a || !b || Math.abs(a.top - b.top) > 4) continue;
    checked += 1;
    if (a.left < b.left && !seen.has(text)) {
      seen.add(text);
      wrong.push({ text: text.replace(/[\u2066-\u2069]/g, ''), number: number[0], word: word[0] });
    }
  }
  return { checked, wrong };
}

const VIEWS = [
  // The multi-GPU line under the total, the serving plan's facts, the decode ceilings.
  ['ar', 'serving', '?model=llama-3.1-70b&weights=fp8&context=32768&batch=20&engine=vllm&gpu=h200-sxm&gpu_count=4'],
  ['fa', 'serving', '?model=llama-3.1-70b&weights=fp8&context=32768&batch=20&engine=vllm&gpu=h200-sxm&gpu_count=4'],
  // Partial offload: the host-RAM line.
  ['ar', 'offload', '?model=llama-3.1-70b&weights=q4_k_m&context=8192&engine=llamacpp&gpu=rtx-4090'],
  ['fa', 'offload', '?model=llama-3.1-70b&weights=q4_k_m&context=8192&engine=llamacpp&gpu=rtx-4090'],
  // The device-count table.
  ['fa', 'devices', '?view=devices&model=llama-3.1-70b'],
  ['ar', 'devices', '?view=devices&model=llama-3.1-70b'],
  // The grid: cells marked tight or by quote.
  ['ar', 'grid', '?view=grid&model=guide-70b'],
  ['fa', 'grid', '?view=grid&model=guide-70b'],
];

for (const [lang, name, query] of VIEWS) {
  test(`${name} in ${lang} at 390 px: a number written first lands right of the words after it`, async () => {
    const browser = await openPage(`${query}&lang=${lang}`, { viewport: { width: 390, height: 844 } });
    try {
      const { page } = browser;
      await page.locator('vram-calculator [role=tabpanel]:not([hidden]) table, vram-calculator .total-value').first().waitFor();
      const { checked, wrong } = await page.evaluate(measure);
      await screenshot(page, `bidi-${name}-${lang}-390`);
      assert.ok(checked >= 3, `only ${checked} sentences that start with a number were measured`);
      assert.deepEqual(wrong, [], `${wrong.length} of ${checked} laid out left to right`);
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  });
}

// The multi-GPU line by name, as the issue quotes it: the figure right of "على", the count right of "وحدات".
test('the multi-GPU line under the total reads right to left in Arabic', async () => {
  const browser = await openPage(`${VIEWS[0][2]}&lang=ar`, { viewport: { width: 390, height: 844 } });
  try {
    const where = await browser.page.evaluate(() => {
      const el = document.querySelector('vram-calculator').shadowRoot.querySelector('.total-per-gpu bdi');
      const node = el.firstChild;
      const at = (part) => {
        const range = document.createRange();
        const i = node.textContent.indexOf(part);
        range.setStart(node, i);
        range.setEnd(node, i + part.length);
        return range.getClientRects()[0].left;
      };
      return { direction: getComputedStyle(el).direction, gb: at('GB'), on: at('على'), units: at('وحدات'), gpu: at('GPU') };
    });
    assert.equal(where.direction, 'rtl');
    assert.ok(where.gb > where.on, JSON.stringify(where));
    assert.ok(where.on > where.units && where.units > where.gpu, JSON.stringify(where));
  } finally {
    await browser.close();
  }
});

// --- Every template with parameters -------------------------------------

const catalogs = Object.fromEntries(['en', 'ar', 'fa'].map((lang) => [lang, JSON.parse(readFileSync(join(root, `data/messages/${lang}.json`), 'utf8'))]));

// In scope: every entry the page carries (tools/build-page.mjs): all but the
// CLI's own `cli.*` and `usage.*`, which a terminal prints and lays out (most
// terminals apply no bidirectional algorithm at all, and those that do take
// the isolate marks as text or drop them): the page never shows them, and
// tests/js/cli-i18n.test.mjs holds their words.
const inPage = (id) => !id.startsWith('cli.') && !id.startsWith('usage.');

// A nested sentence that starts with a number and a Latin unit: the case a
// first-strong isolate lays out left to right (issue 41's multi-GPU line).
const SENTENCE = { id: 'serving.headline', params: { count: 4, bytes: 76e9 } };
const quote = (text) => ({ id: 'quote.text', params: { text } });

// A value for each style, then for each parameter without one (what the core
// and the views pass, tests/golden/answers.json); per id where a name means
// something else there. A parameter named nowhere here fails the test: give
// it a value of the kind it gets.
const BY_STYLE = { int: 4, gb: 40e9, gb0: 40e9, gb2: 40e9, gap: 1.2e9, gib: 0.9, pct: 92, usd: 1490, rate: 48, code: 37, d0: 28.81, d1: 28.81, d2: 28.81, d3: 28.81, d4: 28.81, d5: 28.81, d6: 28.81, list: ['num_hidden_layers', 'hidden_size'] };
const BY_NAME = {
  // Nested messages (style msg, or none where the core passes a message).
  actual: { id: 'value.string' },
  attention: { id: 'attention.global' },
  basis: { id: 'basis.usable', params: {} },
  checkpointing: { id: 'word.on' },
  command: quote('sudo sysctl iogpu.wired_limit_mb=11264'),
  declared: { id: 'note.stored_dtype', params: { dtype: 'bfloat16' } },
  detail: 'unexpected end of data',
  device: quote('CUDA0'),
  excluded: quote('a100'),
  expected: { id: 'value.whole' },
  flags: quote('--tensor-split 3,1'),
  flash_attention: { id: 'word.off' },
  kind: 'GGUF',
  layer: { id: 'formula.tf_layer_dense', params: { bytes: 2, ffn: 28672, ffn_tensors: 3, hidden: 8192 } },
  link: { id: 'link.nvlink' },
  loss: { id: 'loss.standard' },
  optimizer: { id: 'optimizer.adamw' },
  option: quote('num_gpu'),
  order: quote('--device CUDA1,CUDA0'),
  params: SENTENCE,
  pick: { id: 'fits.cardName', params: { count: 4, name: 'H100 PCIe' } },
  placement: { id: 'offload.flags_layers', params: { ngl: 43, ngl_flag: '-ngl' } },
  precision: { id: 'precision.mixed' },
  problem: { id: 'error.range', params: { field: 'context', min: 1, max: 1e8, value: -5 } },
  profile: { id: 'profile.physical' },
  range: { id: 'range.between', params: { min: 1, max: 100 } },
  rate: { id: 'size.gbps', params: { gbps: 3350 } },
  reason: { id: 'fit.budget', params: { capacity: 80e9 } },
  size: { id: 'size.gbPlain', params: { gb: 80 } },
  source: quote('--split-mode layer, src/llama-model.cpp load_tensors'),
  speed: { id: 'decode.approx', params: { value: 48 } },
  suggestion: { id: 'offload.suggest', params: { placement: { id: 'offload.flags_layers', params: { ngl: 43, ngl_flag: '-ngl' } } } },
  topology: { id: 'topology.bridged-pairs' },
  verdict: SENTENCE,
  version: quote('vLLM 0.6.3'),
  where: { id: 'fit.on', params: { count: 4, name: 'H100 PCIe', capacity: 80e9 } },
  why: quote('The CUDA context and cuBLAS handles sit outside ggml\'s buffers.'),
  // Names, formats, keys, flags, paths: Latin text.
  arch: 'llama',
  cards: 'RTX 3090 + RTX 4090',
  companion: 'Qwen2.5 0.5B',
  draft: 'Llama 3.2 1B',
  flag: '--tensor-split',
  architecture: 'Ampere',
  asked: 'GGUF Q4_K_M',
  attribute: 'inputs',
  carries: 'tensor_parallel_size',
  code: 'torch.optim.SGD(momentum=0.9)',
  condition: 'flash_attn',
  dtype: 'F8_E4M3',
  engine: 'vLLM',
  experts: 'MXFP4',
  field: 'config.json num_hidden_layers',
  file: 'gpus',
  first: 'model-00001-of-00004.safetensors',
  format: 'Q4_K_M',
  from: 'BF16',
  gpu: 'H100 PCIe',
  id: 'llama-3.1-70b',
  key: 'gpu_memory_utilization',
  knob: 'overhead_gb',
  kv: 'q8_0',
  method: 'gptq',
  model: 'Llama 3.1 70B',
  model_type: 'mamba2',
  moe_flag: '--n-cpu-moe',
  name: 'H100 PCIe',
  ngl_flag: '-ngl',
  other: 'SGLang',
  param: 'context',
  path: 'config.json',
  preset: 'llama-70b-fp8',
  query: 'Llama 4 Behemoth',
  second: 'overhead_pct',
  text: 'GPU Rent Hub VRAM guide, section 01',
  to: 'FP8',
  type: 'Q4_K',
  values: 'vllm, sglang',
  weights: 'FP8',
  when: 'engine',
  word: 'auto',
  // Numbers without a style.
  bandwidth: 89.6,
  bytes_per_param: 4,
  count: 4,
  entries: 3,
  gb: 80,
  kept_bytes: 4,
  layers: 80,
  length: 1001,
  limit: 1000,
  master: 0,
  max: 100000000,
  min: 1,
  momentum: 0.9,
  status: 429,
  tbps: 3.35,
  value: 2,
  // Text the views render in the reader's language and pass on as a string.
  fit: SENTENCE,
  label: { id: 'term.weights' },
  message: SENTENCE,
  total: '77 GB',
};
const BY_ID = {
  'input.knobApplies': { help: { id: 'help.engine_options.max_lora_rank' }, condition: { id: 'applies.loras' } },
  'warning.knob_not_applicable': { engine: 'vLLM', key: 'hybrid_prefix_caching', value: { id: 'word.on' }, condition: { id: 'applies.state_layers' } },
  'answer.measured': { low: '-3%', high: '+8%' },
  'result.measured': { low: '-3%', high: '+8%' },
  'range.both': { low: { id: 'range.above', params: { min: 0 } }, high: { id: 'range.at_most', params: { max: 1e15 } } },
  'assumption.finetune_setup': { method: { id: 'mode.qlora' } },
  'assumption.lora': { format: { id: 'format.named', params: { name: 'FP32' } }, targets: ['q_proj', 'v_proj'] },
  'checkpoint.mix': { mix: [{ id: 'checkpoint.type', params: { type: 'Q4_K', bytes: 38e9 } }, { id: 'checkpoint.type', params: { type: 'Q6_K', bytes: 4e9 } }] },
  'error.choice': { choices: ['vllm', 'sglang', 'llamacpp'] },
  'error.gguf_meta_divides': { by_key: 'qwen3next.ssm.time_step_rank' },
  'error.too_large': { size: 2e9 },
  'error.linear_heads': { value_heads: 24, key_heads: 16 },
  'error.mxfp4_backend_card': { backend: 'Triton' },
  'fleet.describe': { items: ['HBM3', 'Hopper'] },
  'formula.mxfp4_layout': { backend: { id: 'mxfp4_backend.triton' } },
  'formula.kv': { groups: [{ id: 'formula.kv_group', params: { attention: { id: 'attention.global' }, bytes: 2, k_dim: 128, kv_heads: 8, layers: 32, tokens: 8192, v_dim: 128 } }, { id: 'formula.kv_group', params: { attention: { id: 'attention.sliding' }, bytes: 2, k_dim: 128, kv_heads: 8, layers: 32, tokens: 4096, v_dim: 128 } }] },
  'model.guideName': { size: '70B' },
  'problem.catalogJson': { detail: { id: 'jsonWhere.line', params: { line: 3, column: 5 } } },
  'problem.configJson': { detail: { id: 'jsonWhere.line', params: { line: 3, column: 5 } } },
  'problem.configType': { kind: { id: 'kind.array' } },
  'result.measuredWhat': { kind: { id: 'value.number' } },
  'engine.guide': { size: { id: 'size.gbPlain', params: { gb: 2 } } },
};
const PARTS = [{ id: 'formula.weights_part', params: { bits: 4.85, format: 'GGUF Q4_K_M', params: 70553706496 } }, { id: 'formula.weights_part', params: { bits: 16, format: 'BF16', params: 1050673152 } }];

function valueFor(id, name, style) {
  if (BY_ID[id] && name in BY_ID[id]) return BY_ID[id][name];
  if (style === 'plus') return PARTS;
  if (style === 'msg') return BY_NAME[name] !== undefined && typeof BY_NAME[name] === 'object' ? BY_NAME[name] : SENTENCE;
  if (style) return BY_STYLE[style];
  return BY_NAME[name];
}

// A count for each plural category of the language (CLDR): the template under test.
const PLURAL_COUNT = { zero: 0, one: 1, two: 2, few: 3, many: 11, other: 100 };
const CONFIGS = [['ar', ''], ['ar', 'native'], ['fa', ''], ['fa', 'latn']];

/** Every case: { lang, digits, id, params, text, tokens }, and the parameters no value was given. */
function cases() {
  const out = [];
  const unnamed = new Set();
  for (const [lang, digits] of CONFIGS) {
    const pieces = pieceRenderer(catalogs, lang, digits);
    for (const [id, entry] of Object.entries(catalogs[lang])) {
      if (!inPage(id)) continue;
      const templates = typeof entry === 'string' ? [['', entry]] : Object.entries(entry).filter(([k]) => k !== 'plural');
      for (const [category, template] of templates) {
        const ps = placeholders(template);
        if (!ps.length) continue;
        const params = {};
        for (const p of ps) {
          const value = valueFor(id, p.name, p.style);
          if (value === undefined) unnamed.add(`${id} {${p.name}}`);
          else params[p.name] = value;
        }
        if (category) params[entry.plural] = PLURAL_COUNT[category];
        if (ps.some((p) => params[p.name] === undefined)) continue;
        out.push({ lang, digits, id, category, params, ...readerOrder(pieces, template, params) });
      }
    }
    assert.deepEqual([...pieces.renderer.missing], [], `${lang}: a value names a message no catalog has`);
  }
  return { all: out, unnamed: [...unnamed] };
}

/**
 * In the page: each case rendered by the calculator's own translator (lang
 * and digits set on the element), shown as the views show a message, and
 * each item measured. Returns the cases that do not read in the reader's
 * order, how many items were measured, and which of the control cases (the
 * same text with each placeholder alone in a first-strong isolate, as the
 * page wrote it before issue 41) the measure did not catch.
 */
function measureTemplates(payload) {
  // One JSON text: a structured argument of this size takes seconds to pass.
  const { configs, cases, marks } = JSON.parse(payload);
  const MARK = new RegExp(`^${marks}$`, 'u');
  const el = document.querySelector('vram-calculator');
  const frame = el.shadowRoot.querySelector('.frame');
  const wrong = [];
  const missed = [];
  let measured = 0;
  let controlled = 0;

  // Why `node` (the text of `c`, with marks of its own) does not read in the reader's order, or null.
  function check(c, node) {
    const page = node.data;
    // Where each character of the case's text is in the page's: the page adds marks only.
    const at = [];
    let plain = '';
    for (let k = 0; k < page.length; k++) {
      if (MARK.test(page[k])) continue;
      at.push(k);
      plain += page[k];
    }
    const index = [];
    let want = '';
    for (let k = 0; k < c.text.length; k++) {
      index.push(want.length);
      if (!MARK.test(c.text[k])) want += c.text[k];
    }
    index.push(want.length);
    if (plain !== want) return `renders as «${plain}»`;
    const rect = (start, end) => {
      const s = index[start];
      const e = index[end];
      if (e <= s) return null;
      const range = document.createRange();
      range.setStart(node, at[s]);
      range.setEnd(node, at[e - 1] + 1);
      const rects = [...range.getClientRects()].filter((r) => r.width > 0);
      if (!rects.length) return null;
      return { left: Math.min(...rects.map((r) => r.left)), right: Math.max(...rects.map((r) => r.right)), top: Math.min(...rects.map((r) => r.top)) };
    };
    const words = (token) => [...c.text.slice(token.start, token.end)].filter((ch) => !MARK.test(ch)).join('');
    let previous = null;
    for (const token of c.tokens) {
      const r = rect(token.start, token.end);
      if (!r) continue;
      measured++;
      if (previous && Math.abs(previous.r.top - r.top) > 2) return 'wraps';
      // Right to left: each item left of the one before it, none inside another.
      if (previous && r.right > previous.r.left + 0.5) return `«${words(token)}» is not left of «${words(previous.token)}»`;
      // A Latin run: its words left to right, none split off, and each word's
      // first character left of its last ("−8%", never "8%−").
      if (token.words) {
        const boxes = token.words.map(([s, e]) => rect(s, e)).filter(Boolean);
        for (let k = 1; k < boxes.length; k++) if (boxes[k].left < boxes[k - 1].right - 0.5) return `«${words(token)}» is not left to right`;
        for (const [s, e] of token.words) {
          const first = rect(s, s + 1);
          const last = rect(e - 1, e);
          if (first && last && e - s > 1 && first.left > last.left) return `«${words({ start: s, end: e })}» is not left to right`;
        }
      }
      previous = { token, r };
    }
    return null;
  }

  for (const [lang, digits] of configs) {
    el.setAttribute('lang', lang);
    el.setAttribute('digits', digits || (lang === 'ar' ? 'latn' : 'native'));
    const t = el.t;
    if (t.lang !== lang || t.dir !== 'rtl' || getComputedStyle(frame).direction !== 'rtl') throw new Error(`the calculator did not switch to ${lang}`);
    // One line each, as wide as it needs: the order within a line is what is measured.
    const box = document.createElement('div');
    box.style.cssText = 'position:absolute;inset-inline-start:0;top:0;white-space:nowrap;';
    const show = (text) => {
      // As the views show a message (views/common.js said()).
      const said = document.createElement('bdi');
      said.dir = 'rtl';
      said.textContent = text;
      const line = document.createElement('div');
      line.append(said);
      box.append(line);
      return said;
    };
    const mine = cases.filter((c) => c.lang === lang && c.digits === digits);
    const shown = mine.map((c) => show(t(c.id, c.params)));
    const naive = mine.filter((c) => c.naive).map((c) => [c, show(c.naive)]);
    frame.append(box);
    mine.forEach((c, i) => {
      const why = check(c, shown[i].firstChild);
      if (why) wrong.push({ lang, digits, id: c.id, category: c.category, why, text: [...c.text].filter((ch) => !MARK.test(ch)).join('') });
    });
    for (const [c, said] of naive) {
      controlled++;
      if (!check(c, said.firstChild)) missed.push(`${lang} ${digits} ${c.id} ${c.category}`);
    }
    box.remove();
  }
  return { wrong, measured, missed, controlled };
}

// Templates the page laid out out of the reader's order before issue 41,
// each placeholder isolated alone by its first strong letter: shown so, the
// measure must say so (a test that can fail).
const CONTROLS = ['fleet.describe', 'grid.pick', 'devices.layout', 'problem.hubStatus', 'error.missing_fields', 'decode.step', 'checkpoint.type', 'error.gpu_count_layout'];

test('every message template with parameters reads in the reader\'s order, in Arabic and Persian, in both digit systems', async () => {
  const { all, unnamed } = cases();
  assert.deepEqual(unnamed, [], 'parameters with no representative value');
  assert.ok(all.length > 1500, `only ${all.length} cases`);
  const browser = await openPage('', { viewport: { width: 390, height: 844 } });
  try {
    const cases = all.map(({ naive, ...c }) => (CONTROLS.includes(c.id) ? { ...c, naive } : c));
    const payload = JSON.stringify({ configs: CONFIGS, cases, marks: MARKS.source });
    const { wrong, measured, missed, controlled } = await browser.page.evaluate(measureTemplates, payload);
    assert.ok(controlled >= CONTROLS.length * CONFIGS.length, `only ${controlled} control cases`);
    assert.ok(measured > 5 * all.length, `only ${measured} items measured over ${all.length} cases`);
    assert.deepEqual(missed, [], 'each placeholder isolated alone, these were not caught');
    const ids = new Set(wrong.map((w) => w.id));
    assert.deepEqual(wrong, [], `${wrong.length} of ${all.length} cases (${ids.size} templates) out of the reader's order`);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
