// Assembles the page from the built wasm module and web/src:
//   dist/vram-calculator.js    one classic script: the module (wasm inline)
//                              and the <vram-calculator> element
//   dist/vram-calculator.mjs   the same as an ES module that defines nothing
//                              on import and exports the definer and `call`
//   dist/vram-calculator.html  the standalone page, the classic script
//                              inline: one self-contained file that works
//                              from file:// (which blocks ES modules)
//   dist/index.html            the same page, for the preview server
// plus the examples. package.json's version is written into both scripts.
import { build, transform } from 'esbuild';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unlzma } from '../web/src/lzma.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

/** Text safe inside an inline <script>: no closing tag, no comment opener. */
function inlineSafe(js) {
  return js.replace(/<\/script/gi, '<\\/script').replace(/<!--/g, '<\\!--');
}

/**
 * The standalone page's Content-Security-Policy, for its one inline script
 * (by hash): the wasm compiled from bytes ('wasm-unsafe-eval'), the <style>
 * in the page and in the element's shadow root ('unsafe-inline' styles),
 * the empty data: favicon, the Hugging Face Hub for the model-id field
 * (web/src/checkpoint.js HUB and the CDN its downloads redirect to; fetched
 * only when the reader asks), a blob: Worker (the checkpoint reader's,
 * made from the page's own script text), and nothing else: no eval, no other fetch, no
 * frames, no forms, no <base>.
 */
export function pagePolicy(inlineScript) {
  const hash = createHash('sha256').update(inlineScript, 'utf8').digest('base64');
  return [
    "default-src 'none'",
    `script-src 'sha256-${hash}' 'wasm-unsafe-eval'`,
    "style-src 'unsafe-inline'",
    'img-src data:',
    // The checkpoint reader's Worker (web/src/reader.js): a blob: of the
    // page's own script text, made by the page, never fetched.
    'worker-src blob:',
    'connect-src https://huggingface.co https://*.huggingface.co https://*.hf.co',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** The root package.json's version: the one version of every artifact. */
export async function packageVersion() {
  const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) throw new Error(`package.json: version '${version}' is not semver`);
  return version;
}

// The page's catalogs without the CLI's own words (cli.*: its help, table
// heads and unit names; usage.*: its usage errors): the core never answers
// with them, and the page never shows them (issue 12, the page's weight).
// They travel packed as LZMA after the module (pageTexts below, 9 KB less
// than gzip makes them), so the bundle's JSON imports of data/messages/
// are empty; web/src/i18n.js takes the unpacked texts from the entry.
const pageCatalogs = {
  name: 'page-catalogs',
  setup(b) {
    b.onLoad({ filter: /[\\/]data[\\/]messages[\\/][a-z]+\.json$/ }, () => ({ contents: 'export default null;', loader: 'js' }));
  },
};

const pageWords = async (path) =>
  Object.fromEntries(Object.entries(JSON.parse(await readFile(path, 'utf8'))).filter(([key]) => !key.startsWith('cli.') && !key.startsWith('usage.')));

/**
 * Every language's page catalog as one text: each catalog's JSON text on a
 * line of its own (JSON text holds no raw newline), English first; every
 * other language as its entries in English's key order, null where it has
 * none (web/src/i18n.js plainCatalog): the keys once for the three
 * languages. Returns { langs, text }.
 */
async function pageTexts() {
  const dir = join(root, 'data/messages');
  const english = await pageWords(join(dir, 'en.json'));
  const keys = Object.keys(english);
  const others = (await readdir(dir)).filter((name) => /^[a-z]+\.json$/.test(name) && name !== 'en.json').sort();
  const langs = ['en'];
  const texts = [JSON.stringify(english)];
  for (const name of others) {
    const kept = await pageWords(join(dir, name));
    const extra = Object.keys(kept).filter((key) => !(key in english));
    if (extra.length) throw new Error(`${name}: keys English lacks: ${extra.slice(0, 5).join(', ')}`);
    langs.push(basename(name, '.json'));
    texts.push(JSON.stringify(keys.map((key) => (key in kept ? kept[key] : null))));
  }
  return { langs, text: texts.join('\n') };
}

/**
 * The catalogs' text as the page unpacks it (web/src/core.js splitTexts):
 * a table of the 128 letters outside ASCII the text uses most (UTF-16 code
 * units, two bytes each, little-endian; 0 where unused), then the text
 * one byte a letter: ASCII as itself, a letter of the table as 128 plus
 * its place, any other as a JSON escape (\uXXXX; the text is JSON, and
 * JSON.stringify leaves letters outside ASCII only inside strings). The
 * Arabic and Persian letters are two bytes each in UTF-8: as one, LZMA
 * packs the catalogs 2.1 KB smaller.
 */
export function packTexts(text) {
  const counts = new Map();
  for (const letter of text) {
    const unit = letter.codePointAt(0);
    if (unit >= 0x80 && unit <= 0xffff) counts.set(unit, (counts.get(unit) || 0) + 1);
  }
  const common = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 128).map(([unit]) => unit);
  const place = new Map(common.map((unit, i) => [unit, 128 + i]));
  const table = Buffer.alloc(256);
  common.forEach((unit, i) => table.writeUInt16LE(unit, 2 * i));
  const body = [];
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) body.push(unit);
    else if (place.has(unit)) body.push(place.get(unit));
    else for (const c of `\\u${unit.toString(16).padStart(4, '0')}`) body.push(c.charCodeAt(0));
  }
  return Buffer.concat([table, Buffer.from(body)]);
}

// The element's stylesheet (a string for its shadow root), minified as CSS.
const minifiedCss = {
  name: 'minified-css',
  setup(b) {
    b.onLoad({ filter: /\.css$/ }, async (args) => {
      const { code } = await transform(await readFile(args.path, 'utf8'), { loader: 'css', minify: true });
      return { contents: code, loader: 'text' };
    });
  },
};

// ASCII out (esbuild's \uXXXX escapes for the few letters the element's
// own code holds: digits, the multiplication sign, direction isolates): a
// script served without a charset is read in the host page's encoding.
// The catalogs, where the Arabic and Persian are, travel packed (pageTexts).
async function bundle(entry, format, version) {
  const result = await build({
    entryPoints: [join(root, entry)],
    bundle: true,
    format,
    target: ['es2020'],
    minify: true,
    legalComments: 'none',
    charset: 'ascii',
    define: { __VRAM_VERSION__: JSON.stringify(version) },
    write: false,
    plugins: [pageCatalogs, minifiedCss],
  });
  return result.outputFiles[0].text;
}

// xz's LZMA1 options on top of -9e for the module and the catalogs after
// it: pb=0 (no alignment in the position state), lc=4 (four bits of the
// byte before for a literal's context) and the bt3 match finder, 0.7 KB
// less than -9e's defaults (lc=3, pb=2, bt4) for the module alone, 1.4 KB
// less than the catalogs' own options (lc=2, nice=128) for both.
const LZMA_OPTIONS = {
  core: 'preset=9e,lc=4,pb=0,mf=bt3',
};

/**
 * `bytes` as an .lzma stream (the "LZMA alone" format web/src/lzma.js
 * reads), as small as Debian's xz makes it (-9e; the module 17% smaller
 * than zopfli's deflate), its header's unknown size filled in, so that the
 * page knows how much to unpack before it starts. About 5 seconds for the
 * module; kept under build/page/ by the hash of the bytes and xz's options,
 * so a page rebuilt over the same bytes costs nothing. `name` names the
 * cache file (and its LZMA_OPTIONS); `decoder` is the page's decoder module
 * (its bytes).
 */
async function packLzma(bytes, name, decoder) {
  const args = ['--format=lzma', `--lzma1=${LZMA_OPTIONS[name]}`, '--stdout'];
  const hash = createHash('sha256').update(args.join(' ')).update(bytes).digest('hex').slice(0, 16);
  const cache = join(root, 'build/page');
  const packed = join(cache, `${name}-${hash}.lzma`);
  try {
    return await readFile(packed);
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  await mkdir(cache, { recursive: true });
  let out;
  try {
    out = execFileSync('xz', args, { input: bytes, maxBuffer: 64 << 20 });
  } catch (error) {
    if (error.code === 'ENOENT') throw new Error('xz is missing: run bash scripts/bootstrap.sh (it installs Debian\'s xz-utils)');
    throw error;
  }
  // xz writes the size as unknown (eight 0xff bytes) and ends the stream
  // with its end marker; the size known, the marker is still read.
  if (!out.subarray(5, 13).equals(Buffer.alloc(8, 0xff))) throw new Error('xz: the .lzma header is not the one expected');
  out.writeBigUInt64LE(BigInt(bytes.length), 5);
  // The stream must give back the bytes, byte for byte, through the page's own decoder.
  if (!Buffer.from(await unlzma(out, decoder)).equals(bytes)) throw new Error(`lzma: the packed ${name} does not unpack to the ${name}`);
  for (const file of await readdir(cache)) {
    if (file.startsWith(`${name}-`) && file !== basename(packed)) await rm(join(cache, file));
  }
  await writeFile(packed, out);
  return out;
}

/**
 * What every script of the page starts with, inside its function: the
 * module and the catalogs, the decoder and the catalogs' languages as the
 * constants the entries read (VRAM_LZMA, VRAM_WASM_SIZE, VRAM_UNLZMA,
 * VRAM_TEXTS_LANGS), then
 * the module's glue (vramGlue, and createVramModule from it). tools/bench.mjs builds its floor
 * page on it too.
 */
export async function corePieces() {
  const glue = await readFile(join(root, 'build/wasm/module/vram.js'), 'utf8');
  // The wasm bytes travel as a base64 string beside the glue, not inside
  // it: the page decodes them with Uint8Array.fromBase64 where the browser
  // has it (the glue's own decoder walks atob's output byte by byte) and
  // hands them over as wasmBinary.
  const inline = /data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/.exec(glue);
  if (!inline) throw new Error('the module glue carries no inline wasm (SINGLE_FILE?)');
  const lean = glue.replace(inline[1], '');
  // Packed before base64: gzip cannot see the wasm's byte patterns through
  // base64's 6-bit alphabet (the base64 of the raw module gzips to a third
  // more than the module itself), but base64 of packed bytes gzips back to
  // about their own size. The page unpacks them with its LZMA decoder
  // (web/src/lzma.js), itself a small wasm module carried as base64.
  const decoderBytes = await readFile(join(root, 'build/wasm/module/unlzma.wasm'));
  const decoder = decoderBytes.toString('base64');
  // The catalogs follow the module in the same stream (one text, one
  // language a line): LZMA finds the errors' English the module carries
  // in the catalogs' English, and the catalogs start on the module's
  // dictionary, 5 KB less than two streams. The page cuts it at
  // VRAM_WASM_SIZE (web/src/core.js unpackCore).
  const wasm = Buffer.from(inline[1], 'base64');
  const { langs, text } = await pageTexts();
  const packed = (await packLzma(Buffer.concat([wasm, packTexts(text)]), 'core', decoderBytes)).toString('base64');
  // The module glue exports through module/exports/define when they exist;
  // shadowing them keeps it from touching a host page's loaders, so the
  // element is the only global the classic script creates. Shadowing
  // `process` keeps it on its plain path (wasmBinary given, no require)
  // under a host's process polyfill, and for the ES module under Node.
  // The glue minified as the element's own code is (esbuild keeps the
  // top-level `createVramModule` the element calls): 2.4 KB less gzipped.
  // The wrapper is named (vramGlue): the checkpoint reader's Worker runs
  // its text (web/src/reader.js workerSource), so the page carries the
  // glue once for both.
  const wrapped = `function vramGlue(){var module,exports,define,process;\n${lean}\nreturn createVramModule;}var createVramModule=vramGlue();\n`;
  const { code: glueMin } = await transform(wrapped, { minify: true, target: 'es2020', legalComments: 'none' });
  return `var VRAM_LZMA="${packed}",VRAM_WASM_SIZE=${wasm.length},VRAM_UNLZMA="${decoder}",VRAM_TEXTS_LANGS=${JSON.stringify(langs)};\n${glueMin}`;
}

export async function buildPage() {
  const version = await packageVersion();
  const core = await corePieces();
  const banner = `/* VRAM calculator ${version}: sizing core compiled to WebAssembly. MIT License. */\n`;
  const script = inlineSafe(`${banner}(function(){${core}${await bundle('web/src/entry.js', 'iife', version)}})();\n`);
  const esm = `${banner}${core}${await bundle('web/src/module.js', 'esm', version)}`;
  const template = await readFile(join(root, 'web/page.html'), 'utf8');
  const marker = '<script>/*VRAM_CALCULATOR_SCRIPT*/</script>';
  if (!template.includes(marker)) throw new Error('web/page.html lost its script marker');
  const inlineScript = `\n${script}`;
  const cspMarker = '<meta http-equiv="Content-Security-Policy" content="VRAM_CSP">';
  if (!template.includes(cspMarker)) throw new Error('web/page.html lost its CSP marker');
  const page = template
    .replace(cspMarker, () => `<meta http-equiv="Content-Security-Policy" content="${pagePolicy(inlineScript)}">`)
    .replace(marker, () => `<script>${inlineScript}</script>`);

  await mkdir(dist, { recursive: true });
  await writeDist('vram-calculator.js', script);
  await writeDist('vram-calculator.mjs', esm);
  await writeDist('vram-calculator.html', page);
  await writeDist('index.html', page);
  const examples = join(root, 'examples');
  try {
    for (const name of await readdir(examples)) {
      await writeDist(name, await readFile(join(examples, name)));
    }
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  return { script, esm, page };
}

/**
 * Writes a file of dist/ whole or not at all: beside it, then renamed over
 * it. A page open while the page is rebuilt (the release tests rebuild it
 * while other browser test files run) reads the old file or the new, never
 * half of one.
 */
async function writeDist(name, content) {
  const temporary = join(dist, `.${name}.${process.pid}.tmp`);
  await writeFile(temporary, content);
  await rename(temporary, join(dist, name));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { script, page } = await buildPage();
  console.log(`page: dist/vram-calculator.html ${(page.length / 1024).toFixed(0)} KB, dist/vram-calculator.js ${(script.length / 1024).toFixed(0)} KB`);
}
