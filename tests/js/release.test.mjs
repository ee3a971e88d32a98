// The packed release, installed from its tarball into an empty folder: its
// `vram-calculator` command prints exactly what the native vramcalc prints
// (stdout, stderr and exit status) over the reference vectors and the error
// cases; its ES module computes the same JSON; integrity.json matches every
// file; the version and the data's dates are the repository's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import { listFiles, sri } from '../../tools/release.mjs';
import { estimateFlags, loadJson, root } from './module.mjs';
import { installRelease } from './release.mjs';

const native = join(root, 'build/native/vramcalc');
const version = loadJson('package.json').version;

/** Runs a program to its end: { status, stdout, stderr }. */
function run(program, args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd });
    const out = [];
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

/** Both programs, the same arguments, the same folder: identical stdout, stderr and status. */
async function assertSame(bin, args, cwd, expectStatus) {
  const [n, node] = [await run(native, args, cwd), await run(bin, args, cwd)];
  const what = args.join(' ');
  assert.equal(n.status, expectStatus, `${what}: native exit ${n.status}: ${n.stderr}`);
  assert.deepStrictEqual(node, n, what);
  return node;
}

/** Runs `jobs` (functions returning promises) two at a time: a run is ~0.3 s of CPU. */
async function inPairs(jobs) {
  const queue = [...jobs];
  const worker = async () => {
    while (queue.length) await queue.shift()();
  };
  await Promise.all([worker(), worker()]);
}

test('the package is the repository version, with a changelog entry, and installs offline', async () => {
  const r = await installRelease();
  assert.equal(r.tarball, join(root, `release/vram-calculator-${version}.tgz`));
  const manifest = JSON.parse(readFileSync(join(r.pkg, 'package.json'), 'utf8'));
  assert.equal(manifest.name, 'vram-calculator');
  assert.equal(manifest.version, version);
  assert.equal(manifest.license, 'MIT');
  assert.equal(manifest.private, undefined);
  assert.deepEqual(manifest.bin, { 'vram-calculator': 'bin/vram-calculator.js' });
  for (const target of [manifest.types, manifest.exports['.'].default, manifest.exports['./vram-calculator.js']]) {
    assert.ok(r.files.includes(target.replace(/^\.\//, '')), target);
  }
  const changelog = readFileSync(join(r.pkg, 'CHANGELOG.md'), 'utf8');
  assert.match(changelog, new RegExp(`^## ${version.replace(/\./g, '\\.')} \\(\\d{4}-\\d{2}-\\d{2}\\)`, 'm'));
  assert.equal(readFileSync(join(r.pkg, 'LICENSE'), 'utf8'), readFileSync(join(root, 'LICENSE'), 'utf8'));
  for (const name of (await listFiles(join(root, 'data/messages'))).filter((n) => n.endsWith('.json'))) {
    assert.ok(r.files.includes(`messages/${name}`), `messages/${name}`);
  }
});

test('integrity.json holds the SHA-384 of every installed file', async () => {
  const r = await installRelease();
  const installed = (await listFiles(r.pkg)).filter((f) => f !== 'integrity.json');
  assert.deepEqual(Object.keys(r.integrity).sort(), installed);
  for (const file of installed) {
    assert.match(r.integrity[file], /^sha384-[A-Za-z0-9+/]{64}$/, file);
    assert.equal(sri(readFileSync(join(r.pkg, file))), r.integrity[file], file);
  }
  // The classic script is the page build's, byte for byte.
  assert.equal(r.integrity['vram-calculator.js'], sri(readFileSync(join(root, 'dist/vram-calculator.js'))));
});

test('the bin answers every estimate vector exactly as the native CLI', async () => {
  const { bin, dir } = await installRelease();
  // (Every vector file goes through the module in native-parity.test.mjs;
  // the bin is the same program, at about 0.3 s of CPU a run.)
  const cases = loadJson('tests/vectors/spec-inference.json').cases.filter((c) => c.method === 'estimate' && !c.error && !('config' in c.request));
  assert.ok(cases.length >= 49, `${cases.length} cases`);
  await inPairs(cases.map((c) => () => assertSame(bin, ['estimate', '--json', ...estimateFlags(c.request)], dir, 0)));
});

test('the bin prints the same tables, lists and JSON for every command', async () => {
  const { bin, dir } = await installRelease();
  const runs = [
    ['estimate', '--model', 'guide-70b', '--weights', 'fp8', '--context', '8192', '--batch', '1'],
    ['estimate', '--model', 'llama-3.1-8b', '--json'],
    ['estimate', '--model', 'llama-3.1-8b', '--mode', 'qlora', '--seq', '4096', '--gpu', 'rtx-4090'],
    ['estimate', '--model', 'qwen3-30b-a3b', '--engine', 'vllm', '--gpu', 'h100-sxm', '--tp', '2', '--json'],
    ['grid'],
    ['grid', '--models', 'llama-3.1-8b,qwen3-32b', '--context', '32768', '--json'],
    ['devices'],
    ['devices', '--model', 'deepseek-v3', '--formats', 'fp8,int4', '--context', '32768', '--json'],
    ['fleet'],
    ['fleet', '--model', 'guide-70b', '--weights', 'fp8', '--json'],
    ['models'],
    ['models', '--json'],
    ['formats'],
    ['gpus', '--json'],
    ['help'],
  ];
  await inPairs(runs.map((args) => () => assertSame(bin, args, dir, 0)));
});

test('npx vram-calculator runs the installed bin', async () => {
  const { dir } = await installRelease();
  const args = ['estimate', '--model', 'llama-3.1-8b', '--json'];
  const r = spawnSync('npx', ['--offline', '--no', 'vram-calculator', ...args], { cwd: dir, encoding: 'utf8' });
  const n = spawnSync(native, args, { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, n.stdout);
});

test('refused input: the same message on stderr and exit status 2', async () => {
  const { bin, dir } = await installRelease();
  // Files named relative to the current folder: the program reads the real filesystem.
  const inputs = join(dir, 'inputs');
  mkdirSync(inputs, { recursive: true });
  const runs = [];
  for (const c of loadJson('tests/vectors/errors.json').cases) {
    // Raw request text and non-object requests are not expressible as flags.
    if (!c.request || typeof c.request !== 'object' || Array.isArray(c.request)) continue;
    const { config, ...rest } = c.request;
    const args = [c.method, ...estimateFlags(rest)];
    if (config !== undefined) {
      writeFileSync(join(inputs, `case-${runs.length}.json`), JSON.stringify(config));
      args.push('--config', `inputs/case-${runs.length}.json`);
    }
    runs.push(args);
  }
  assert.ok(runs.length >= 15, `${runs.length} cases`);
  writeFileSync(join(inputs, 'broken.json'), '{"model_type": "llama", "hidden_size": 2048');
  writeFileSync(join(inputs, 'catalog.json'), JSON.stringify({ gpus: [{ id: 'ok', vram_gb: 24, bandwidth_gbps: 900 }, { id: 'l4', vram_gb: -24, bandwidth_gbps: 300 }] }));
  runs.push(
    [],
    ['estimate', '--model', 'guide-7b', '--contxt', '5'],
    ['estimate', '--model', 'guide-7b', '--weights'],
    ['estimate', '--model', 'guide-7b', '--config', 'inputs/missing.json'],
    ['estimate', '--config', 'inputs/broken.json'],
    ['devices', '--usable-fraction', '-1'],
  );
  await inPairs(runs.map((args) => () => assertSame(bin, args, dir, 2)));
  const { stderr } = await assertSame(bin, ['grid', '--catalog', 'inputs/catalog.json'], dir, 2);
  assert.match(stderr, /--catalog: GPU 'l4': catalog\.gpus\[1\]\.vram_gb must be positive \[invalid_value\]/);
});

test('a config.json and a catalog from disk give the same answers', async () => {
  const { bin, dir } = await installRelease();
  const config = join(root, 'tests/configs/qwen3-30b-a3b/config.json');
  writeFileSync(join(dir, 'fleet.json'), JSON.stringify({ gpus: [{ id: 'mine', name: 'Mine', vram_gb: 48, bandwidth_gbps: 900, monthly_usd: 400 }] }));
  await inPairs([
    ['estimate', '--config', config, '--context', '32768', '--gpu', 'h100-sxm', '--json'],
    ['grid', '--catalog', 'fleet.json', '--json'],
    ['fleet', '--catalog', 'fleet.json', '--model', 'guide-13b'],
  ].map((args) => () => assertSame(bin, args, dir, 0)));
});

test('the ES module: version, the core call API under Node, the data dates', async () => {
  const { pkg } = await installRelease();
  const mod = await import(pathToFileURL(join(pkg, 'vram-calculator.mjs')).href);
  assert.equal(mod.version, version);
  assert.equal(typeof mod.defineVramCalculator, 'function');
  for (const c of loadJson('tests/vectors/spec-inference.json').cases.slice(0, 10)) {
    const expected = JSON.parse(spawnSync(native, ['estimate', '--json', ...estimateFlags(c.request)], { encoding: 'utf8' }).stdout);
    assert.deepStrictEqual(await mod.estimate(c.request), expected, c.name);
  }
  assert.deepStrictEqual(await mod.grid({}), JSON.parse(spawnSync(native, ['grid', '--json'], { encoding: 'utf8' }).stdout));
  const presets = await mod.presets();
  for (const name of ['models', 'formats', 'gpus', 'engines', 'presets', 'speed', 'accuracy']) {
    assert.deepEqual(presets.data_versions[name], { updated: loadJson(`data/${name}.json`).updated }, name);
  }
  await assert.rejects(mod.estimate({ model: 'guide-7b', context: -5 }), (error) => {
    assert.ok(error instanceof mod.CoreError);
    assert.equal(error.code, 'invalid_value');
    assert.equal(error.field, 'context');
    return true;
  });
});

test('the type declarations parse and name every documented attribute and event', async () => {
  const { pkg } = await installRelease();
  const types = readFileSync(join(pkg, 'vram-calculator.d.ts'), 'utf8');
  await transform(types, { loader: 'ts' }); // throws on a syntax error
  const embedding = readFileSync(join(root, 'docs/embedding.md'), 'utf8');
  const section = (title) => embedding.split(`### ${title}`)[1].split('\n### ')[0];
  const attributes = [...section('Attributes').matchAll(/^\| `([\w-]+)` \|/gm)].map((m) => m[1]);
  const events = [...section('Events').matchAll(/^\| `([\w-]+)` \|/gm)].map((m) => m[1]);
  assert.ok(attributes.length >= 7 && events.length >= 3, `${attributes} / ${events}`);
  const block = (name) => types.split(`interface ${name} `)[1].split('\n}')[0];
  for (const name of attributes) assert.match(block('VramCalculatorAttributes'), new RegExp(`^\\s+'?${name}'?\\?:`, 'm'), name);
  for (const name of events) assert.match(block('VramCalculatorEventMap'), new RegExp(`^\\s+'${name}':`, 'm'), name);
  // Every key docs/cli.md lists for estimate's JSON is declared on the result.
  const cli = readFileSync(join(root, 'docs/cli.md'), 'utf8').split('## JSON output of `estimate`')[1].split('\n## ')[0];
  const keys = new Set([...cli.matchAll(/^\| (`[\w`, ]+`) \|/gm)].flatMap((m) => m[1].match(/\w+/g)));
  assert.ok(keys.size >= 25, `${keys.size} keys`);
  for (const key of keys) assert.match(block('EstimateResult'), new RegExp(`^\\s+${key}\\??:`, 'm'), key);
});
