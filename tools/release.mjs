// `npm run release`: after the normal build, assembles the npm package in
// release/package/ and packs it into release/vram-calculator-<version>.tgz.
//
//   vram-calculator.js     the element as a classic script (dist/)
//   vram-calculator.mjs    the element and the core's call API as an ES module
//   vram-calculator.html   the single-file page; vendor.html, the example
//   vram-calculator.d.ts   types: attributes, events, requests and results
//   messages/*.json        the message catalogs (data/messages/)
//   bin/vram-calculator.js the `vram-calculator` command: cli/vramcalc.js
//   cli/vramcalc.{js,wasm} and .wasm, the CLI's C++ sources built for Node
//   README.md, LICENSE, CHANGELOG.md, package.json
//   integrity.json         SHA-384 of every other file, in SRI form
//
// The version is package.json's; CHANGELOG.md must have its entry.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmod, copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPage, packageVersion } from './build-page.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const releaseDir = join(root, 'release');
const out = join(releaseDir, 'package');

/** SHA-384 of `bytes` as a Subresource Integrity value. */
export function sri(bytes) {
  return `sha384-${createHash('sha384').update(bytes).digest('base64')}`;
}

/** Every file under `dir`, as '/'-separated paths relative to it, sorted. */
export async function listFiles(dir) {
  const found = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) found.push(relative(dir, join(entry.parentPath ?? entry.path, entry.name)).split(sep).join('/'));
  }
  return found.sort();
}

/** The CHANGELOG.md heading for `version` ("## 0.1.0 (2026-11-30)"), or a thrown error. */
export function changelogEntry(changelog, version) {
  const escaped = version.replace(/[.+-]/g, (c) => `\\${c}`);
  const heading = new RegExp(`^## \\[?${escaped}\\]?(\\s|$)`, 'm').exec(changelog);
  if (!heading) throw new Error(`CHANGELOG.md has no entry for ${version} (a "## ${version} (date)" heading)`);
  return heading[0].trim();
}

/** The Node build of the CLI (not part of `all`: only the package needs it). */
function buildCli() {
  if (!existsSync(join(root, 'build/wasm/build.ninja'))) {
    throw new Error('build/wasm is not configured: run `npm run build` first');
  }
  // Debian's em++ needs its own acorn at -O1 and above (shared/TOOLCHAIN.md).
  const env = { ...process.env, NODE_PATH: '/usr/share/nodejs', CMAKE_BUILD_PARALLEL_LEVEL: process.env.CMAKE_BUILD_PARALLEL_LEVEL || '2' };
  execFileSync('cmake', ['--build', join(root, 'build/wasm'), '--target', 'vram_cli_node'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
}

function packageJson(pkg, files) {
  return {
    name: pkg.name,
    version: pkg.version,
    description: pkg.description,
    license: pkg.license,
    keywords: ['gpu', 'vram', 'llm', 'inference', 'fine-tuning', 'calculator', 'webassembly', 'custom-element'],
    engines: pkg.engines,
    bin: { 'vram-calculator': 'bin/vram-calculator.js' },
    types: './vram-calculator.d.ts',
    exports: {
      '.': { types: './vram-calculator.d.ts', default: './vram-calculator.mjs' },
      './vram-calculator.mjs': { types: './vram-calculator.d.ts', default: './vram-calculator.mjs' },
      './vram-calculator.js': './vram-calculator.js',
      './vram-calculator.html': './vram-calculator.html',
      './integrity.json': './integrity.json',
      './messages/*': './messages/*',
      './package.json': './package.json',
    },
    files,
  };
}

export async function release() {
  const version = await packageVersion();
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  changelogEntry(await readFile(join(root, 'CHANGELOG.md'), 'utf8'), version);
  buildCli();
  await buildPage();

  await rm(out, { recursive: true, force: true });
  await mkdir(join(out, 'bin'), { recursive: true });
  await mkdir(join(out, 'cli'), { recursive: true });
  await mkdir(join(out, 'messages'), { recursive: true });
  const copies = [
    ['dist/vram-calculator.js', 'vram-calculator.js'],
    ['dist/vram-calculator.mjs', 'vram-calculator.mjs'],
    ['dist/vram-calculator.html', 'vram-calculator.html'],
    ['pkg/vram-calculator.d.ts', 'vram-calculator.d.ts'],
    ['pkg/README.md', 'README.md'],
    ['pkg/bin/vram-calculator.js', 'bin/vram-calculator.js'],
    ['build/wasm/cli/vramcalc.js', 'cli/vramcalc.js'],
    ['build/wasm/cli/vramcalc.wasm', 'cli/vramcalc.wasm'],
    ['LICENSE', 'LICENSE'],
    ['CHANGELOG.md', 'CHANGELOG.md'],
  ];
  for (const name of await readdir(join(root, 'examples'))) copies.push([`examples/${name}`, name]);
  for (const name of (await readdir(join(root, 'data/messages'))).filter((n) => n.endsWith('.json'))) {
    copies.push([`data/messages/${name}`, `messages/${name}`]);
  }
  for (const [from, to] of copies) await copyFile(join(root, from), join(out, to));
  await chmod(join(out, 'bin/vram-calculator.js'), 0o755);

  const shipped = await listFiles(out);
  const files = [...shipped, 'integrity.json', 'package.json'].sort();
  await writeFile(join(out, 'package.json'), `${JSON.stringify(packageJson(pkg, files), null, 2)}\n`);

  // Last, so it covers every other file, package.json included.
  const integrity = {};
  for (const file of await listFiles(out)) integrity[file] = sri(await readFile(join(out, file)));
  await writeFile(join(out, 'integrity.json'), `${JSON.stringify(integrity, null, 2)}\n`);

  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', releaseDir, out], {
      cwd: root,
      encoding: 'utf8',
    }),
  );
  const tarball = join(releaseDir, packed[0].filename);
  const expected = join(releaseDir, `vram-calculator-${version}.tgz`);
  if (tarball !== expected) throw new Error(`npm pack wrote ${tarball}, not ${expected}`);
  const listed = packed[0].files.map((f) => f.path).sort();
  if (JSON.stringify(listed) !== JSON.stringify(files)) {
    throw new Error(`the tarball holds ${listed.join(', ')}; expected ${files.join(', ')}`);
  }
  return { version, tarball, files, integrity, size: packed[0].size };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { tarball, files, size } = await release();
  console.log(`release: ${relative(root, tarball)} (${(size / 1024).toFixed(0)} KB, ${files.length} files)`);
}
