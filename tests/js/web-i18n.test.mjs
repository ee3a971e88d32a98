// The page's languages (web/src/i18n.js): which catalog a tag gets, the
// direction, the isolation of placeholders right to left, digits in and out
// of inputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NUMBER_CHARS, catalogsReady, direction, failureReason, jsonWhere, parseDigits, problemMessage, provideCatalogs, resolveLanguage, translator } from '../../web/src/i18n.js';

const FSI = '\u2068';
const PDI = '\u2069';
const RLI = '\u2067';

test('a tag resolves to a catalog language, English for any other', () => {
  assert.equal(resolveLanguage('fa-IR'), 'fa');
  assert.equal(resolveLanguage('AR_eg'), 'ar');
  assert.equal(resolveLanguage('de'), 'en');
  assert.equal(resolveLanguage(''), 'en');
  assert.equal(resolveLanguage('<script>'), 'en');
  assert.equal(direction('ar'), 'rtl');
  assert.equal(direction('fa'), 'rtl');
  assert.equal(direction('en'), 'ltr');
  // English text is laid out left to right: no catalog, no mirrored English.
  assert.equal(translator('he').dir, 'ltr');
});

test('right to left, every Latin run and every parameter is isolated; English is left as written', () => {
  const ar = translator('ar');
  // A number and its unit are one Latin run, and so is a Latin word alone.
  assert.equal(ar('devices.kvRoom', { room: 38.6e9 }), `يتبقى ${FSI}38.6 GB${PDI} لذاكرة ${FSI}KV${PDI}`);
  // A nested message is the language's sentence: a right-to-left isolate,
  // its own runs isolated inside it; a count and its card ("{count}× {name}")
  // are one run: "1× H100 PCIe".
  assert.equal(ar('fit.fits', { where: { id: 'fit.on', params: { count: 1, name: 'H100 PCIe', capacity: 80e9 } }, spare: 5.3e9 }),
    `تتسع على ${RLI}${FSI}1× H100 PCIe${PDI} (${FSI}80 GB${PDI})${PDI}، مع ${FSI}5.3 GB${PDI} فائض.`);
  assert.equal(translator('fa')('serving.title', { count: 4, name: 'H200 SXM' }), `طرح سرویس‌دهی روی ${FSI}۴× H200 SXM${PDI}`);
  // A list comes right to left: each item isolated, the separators between them not.
  assert.equal(ar('fleet.describe', { items: ['HBM3', 'Hopper'] }), `${RLI}${FSI}HBM3${PDI}، ${FSI}Hopper${PDI}${PDI}`);
  // A Latin word and the parameter after it are one run ("TP 4"); two bare numbers are two ("الـ4" and "28.8").
  assert.ok(ar('devices.layout', { tp: 4, servers: 2, total: 8 }).startsWith(`النشر: ${FSI}TP 4${PDI}`));
  assert.ok(ar('warning.below_floor', { users: 4, expected: 28.8, floor: 30 }).includes(`الـ${FSI}4${PDI} سرعة ${FSI}28.8${PDI}`));
  // A string in the language's letters (a message the view rendered first) is the language's sentence too.
  assert.equal(ar('error.field', { field: 'config.json', message: '40 GB على كل بطاقة' }).split(RLI).length, 2);
  const en = translator('en');
  assert.equal(en('devices.kvRoom', { room: 38.6e9 }), '38.6 GB left for KV');
  assert.ok(!/[\u2066-\u2069]/.test(en('fit.fits', { where: { id: 'fit.budget', params: { capacity: 8e10 } }, spare: 1e9 })));
});

test('digits: Arabic Latin by default, Persian its own; both overridable; English always Latin', () => {
  assert.equal(translator('ar').format(1490), '1,490');
  assert.equal(translator('ar', { digits: 'native' }).format(1490), '١٬٤٩٠');
  assert.equal(translator('fa').format(0.35, 2), '۰٫۳۵');
  assert.equal(translator('fa', { digits: 'latn' }).format(0.35, 2), '0.35');
  assert.equal(translator('en', { digits: 'native' }).format(1490), '1,490');
  assert.equal(translator('fa').digits, 'native');
  assert.equal(translator('ar').digits, 'latn');
  // The display unit is the translator's: GiB converts.
  assert.equal(translator('fa', { unit: 'GiB' })('size.gb', { bytes: 80e9 }), `${FSI}۷۴٫۵ GiB${PDI}`);
});

test('figures as a person writes them: no padded zeros, six significant digits past the point, the page digits', () => {
  const en = translator('en');
  assert.equal(en.figure(0.9), '0.9');
  assert.equal(en.figure(0.05), '0.05');
  assert.equal(en.figure(1490), '1,490');
  assert.equal(en.figure(7e10), '70,000,000,000');
  assert.equal(en.figure(1234.5678), '1,234.57');
  assert.equal(en.figure(0.1 + 0.2), '0.3');
  assert.equal(en.figure(1e-7), '0.0000001');
  assert.equal(en.figure(-2.5), '-2.5');
  assert.equal(en.figure(-1e-20), '0');
  assert.equal(en.figure(Number.NaN), '\u2013');
  assert.equal(translator('fa').figure(0.9), '۰٫۹');
  assert.equal(translator('fa', { digits: 'latn' }).figure(2048.5), '2,048.5');
  assert.equal(translator('ar', { digits: 'native' }).figure(0.25), '٠٫٢٥');
});

test('inputs show the language digits, ungrouped, and read any of the three back', () => {
  assert.equal(translator('fa').number(8192), '۸۱۹۲');
  assert.equal(translator('fa').number(0.92), '۰٫۹۲');
  assert.equal(translator('ar').number(8192), '8192');
  assert.equal(translator('en').number(null), '');
  assert.equal(parseDigits('۸۱۹۲'), '8192');
  assert.equal(parseDigits(' ٠٫٩٥ '), '0.95');
  assert.equal(parseDigits('16,384'), '16384');
  assert.equal(parseDigits('۱۶٬۳۸۴'), '16384');
  assert.equal(parseDigits('12x'), '12x'); // left for the schema to refuse
  assert.ok(NUMBER_CHARS.test('۱۲٫۵'));
  assert.ok(!NUMBER_CHARS.test('1e9'));
  assert.ok(!NUMBER_CHARS.test('-1'));
});

test('plurals follow the language: Arabic six forms, Persian one', () => {
  const ar = translator('ar');
  const count = (n) => ar('fits.all', { count: n }).replace(/[\u2066-\u2069]/g, '');
  assert.deepEqual([0, 1, 2, 3, 11, 100].map(count), ['لا بطاقات أخرى', 'بطاقة أخرى', 'بطاقتان أخريان', '3 بطاقات أخرى', '11 بطاقة أخرى', '100 بطاقة أخرى']);
  assert.equal(translator('fa')('fits.all', { count: 5 }), `${FSI}۵${PDI} کارت دیگر`);
});

// Last in this file: it leaves catalogsReady() rejected.
test('the page\'s packed catalogs: a set that lacks a language, or fails to unpack, is refused and named', async () => {
  await catalogsReady();
  await assert.rejects(provideCatalogs(Promise.resolve({ en: '{}', ar: '[]' })), /the page's catalogs lack 'fa'/);
  await assert.rejects(catalogsReady(), /lack 'fa'/);
  await assert.rejects(provideCatalogs(Promise.reject(new Error('lzma: it is corrupt'))), /lzma: it is corrupt/);
  // What was refused replaced nothing: the bundled catalogs still speak.
  assert.notEqual(translator('ar')('app.loading'), translator('en')('app.loading'));
});

test('a text that is not JSON is named in the reader\'s language: the parser\'s English never reaches the sentence', () => {
  // Firefox, recent Chromium, older V8, and a text that stops short, as each words it.
  const parsers = {
    'JSON.parse: expected property name or \'}\' at line 3 column 5 of the JSON data': { id: 'jsonWhere.line', params: { line: 3, column: 5 } },
    'Expected double-quoted property name in JSON at position 7 (line 1 column 8)': { id: 'jsonWhere.line', params: { line: 1, column: 8 } },
    'Expected double-quoted property name in JSON at position 7': { id: 'jsonWhere.char', params: { char: 8 } },
    'Unexpected end of JSON input': { id: 'jsonWhere.end', params: {} },
    'Unexpected token \'x\', "x" is not valid JSON': { id: 'jsonWhere.unknown', params: {} },
  };
  for (const [detail, where] of Object.entries(parsers)) assert.deepEqual(jsonWhere(detail), where, detail);
  let real;
  try {
    JSON.parse('{"hidden_size": 4096,');
  } catch (error) {
    real = error.message;
  }
  for (const code of ['configJson', 'catalogJson']) {
    for (const detail of [real, ...Object.keys(parsers)]) {
      const problem = problemMessage({ code, detail });
      assert.equal(translator('fa')(problem.id, problem.params).includes('JSON'), true);
      for (const lang of ['ar', 'fa']) {
        const text = translator(lang)(problem.id, problem.params).replace(/[\u2066-\u2069]/g, '');
        assert.deepEqual([...new Set(text.match(/[A-Za-z]+/g))], ['JSON'], `${lang} ${code}: ${text}`);
      }
    }
  }
  assert.equal(translator('fa')('problem.configJson', problemMessage({ code: 'configJson', detail: 'at line 3 column 5' }).params).replace(/[\u2066-\u2069]/g, ''),
    'JSON معتبر نیست (خطا در سطر ۳، ستون ۵)');
});

test('a failure of the browser or the module is named by its kind: its English (a trap, a DOMException) never reaches the sentence', () => {
  const dom = (name, message) => Object.assign(new Error(message), { name });
  const cases = [
    [new RangeError('WebAssembly.Memory(): could not allocate memory'), 'memory'],
    ['RuntimeError: Aborted(OOM). Build with -sASSERTIONS for more info.', 'memory'],
    [new WebAssembly.CompileError('WebAssembly.instantiate(): expected magic word'), 'wasm'],
    [dom('NotReadableError', 'The requested file could not be read, typically due to permission problems'), 'file'],
    [dom('NotFoundError', 'A requested file or directory could not be found'), 'file'],
    ['RuntimeError: unreachable', 'fault'],
    [new WebAssembly.RuntimeError('memory access out of bounds'), 'fault'],
    [new TypeError('Failed to fetch'), 'network'],
    [new TypeError('x is not a function'), 'other'],
    [undefined, 'other'],
  ];
  for (const [error, why] of cases) assert.deepEqual(failureReason(error), { id: `failure.${why}`, params: {} }, String(error));
  const said = [
    ['app.loadFailed', { reason: failureReason(new TypeError('Failed to fetch')) }],
    ['problem.fileUnread', { reason: failureReason(dom('NotReadableError', 'permission problems')) }],
    problemMessage({ code: 'ckptCrashed', message: 'RuntimeError: unreachable' }),
  ].map((m) => (Array.isArray(m) ? { id: m[0], params: m[1] } : m));
  assert.deepEqual(said[2], { id: 'problem.ckptCrashed', params: { reason: { id: 'failure.fault', params: {} } } });
  for (const why of ['memory', 'wasm', 'file', 'fault', 'network', 'other']) said.push({ id: `failure.${why}`, params: {} });
  for (const lang of ['ar', 'fa']) {
    for (const { id, params } of said) {
      const text = translator(lang)(id, params).replace(/[\u2066-\u2069]/g, '');
      assert.notEqual(text, id, `${lang}: ${id} has no template`);
      assert.deepEqual([...new Set(text.match(/[A-Za-z]+/g) || [])].filter((w) => w !== 'WebAssembly'), [], `${lang} ${id}: ${text}`);
    }
  }
});

test('a catalog that could not be fetched or read is named in the reader\'s language, its status in the reader\'s digits', () => {
  const problems = [{ code: 'catalogFetch' }, { code: 'catalogHttp', status: 404 }, { code: 'catalogJson', detail: 'Unexpected end of JSON input' }];
  for (const error of problems) {
    const problem = problemMessage(error);
    assert.match(translator('en')('catalog.error', { problem }), /^The catalog could not be read: (it could not be fetched|the server answered HTTP 404|it is not valid JSON \(the text ends before the JSON does\))/);
    for (const lang of ['ar', 'fa']) {
      const text = translator(lang)('catalog.error', { problem }).replace(/[\u2066-\u2069]/g, '');
      assert.deepEqual([...new Set(text.match(/[A-Za-z]+/g))].filter((w) => !['CORS', 'HTTP', 'JSON'].includes(w)), [], `${lang} ${error.code}: ${text}`);
      if (error.status) assert.ok(text.includes(lang === 'fa' ? '۴۰۴' : '404'), `${lang}: ${text}`);
    }
  }
});

test('right to left, a key a template names as written (an engine flag) is isolated in the sentence around it', () => {
  for (const lang of ['ar', 'fa']) {
    const text = translator(lang)('basis.engine_share', {});
    for (const key of ['gpu_memory_utilization', 'mem_fraction_static']) assert.ok(text.includes(`${FSI}${key}${PDI}`), `${lang}: ${text}`);
    // Outside the keys and CUDA/GPU, the sentence is the language's.
    assert.deepEqual([...new Set(text.replace(/\u2068[a-z_]+\u2069/g, '').match(/[A-Za-z]+/g))].sort(), ['CUDA', 'GPU']);
  }
  // A placeholder's own name is not a key in the text.
  assert.equal(translator('ar')('note.gqa', { kv_heads: 8 }), `انتباه ${FSI}GQA${PDI} مع ${FSI}8${PDI} من رؤوس ${FSI}KV${PDI}`);
  assert.ok(!/[\u2066-\u2069]/.test(translator('en')('basis.engine_share', {})));
});

test('a count of cards reads "4× H200" in every language the page shows: one sign, never "4x" beside "4×"', () => {
  for (const lang of ['en', 'ar', 'fa']) {
    const t = translator(lang);
    const texts = [t('serving.title', { count: 4, name: 'H200 SXM' }), t('fits.cardName', { count: 4, name: 'H200 SXM' }),
      t('warning.cards_needed', { now: 2, count: 4, gpu: 'H200 SXM' }), t('grid.multi', { count: 4, name: 'H200 SXM' })]
      .map((s) => s.replace(/[\u2066-\u2069]/g, ''));
    for (const text of texts) assert.ok(!/[0-9\u06f0-\u06f9]x /.test(text) && /× H200 SXM/.test(text), `${lang}: ${text}`);
  }
});
