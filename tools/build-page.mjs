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
import { inflateRawSync } from 'node:zlib';
import { mkdir, readFile, writeFile, copyFile, readdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
 * only when the reader asks), and nothing else: no eval, no other fetch, no
 * frames, no forms, no <base>.
 */
export function pagePolicy(inlineScript) {
  const hash = createHash('sha256').update(inlineScript, 'utf8').digest('base64');
  return [
    "default-src 'none'",
    `script-src 'sha256-${hash}' 'wasm-unsafe-eval'`,
    "style-src 'unsafe-inline'",
    'img-src data:',
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
// Each is bundled as its JSON text, not as an object literal: the browser
// scans a string far faster than it parses 1,000 properties, and
// web/src/i18n.js parses a language only when it is first shown.
const pageCatalogs = {
  name: 'page-catalogs',
  setup(b) {
    const pageWords = async (path) =>
      Object.fromEntries(Object.entries(JSON.parse(await readFile(path, 'utf8'))).filter(([key]) => !key.startsWith('cli.') && !key.startsWith('usage.')));
    b.onLoad({ filter: /[\\/]data[\\/]messages[\\/][a-z]+\.json$/ }, async (args) => {
      const kept = await pageWords(args.path);
      if (basename(args.path) === 'en.json') return { contents: `export default ${JSON.stringify(JSON.stringify(kept))};`, loader: 'js' };
      // Every other language as its entries in English's key order (web/src/i18n.js
      // plainCatalog): the keys once for the three languages, 9 KB less gzipped.
      const english = Object.keys(await pageWords(join(dirname(args.path), 'en.json')));
      const extra = Object.keys(kept).filter((key) => !english.includes(key));
      if (extra.length) throw new Error(`${basename(args.path)}: keys English lacks: ${extra.slice(0, 5).join(', ')}`);
      const values = english.map((key) => (key in kept ? kept[key] : null));
      return { contents: `export default ${JSON.stringify(JSON.stringify(values))};`, loader: 'js' };
    });
  },
};

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

// The page declares its encoding (<meta charset="utf-8">), so its inline
// script keeps the catalogs' Arabic and Persian as UTF-8: 2 bytes a letter
// where esbuild's default \uXXXX escapes take 6 (205 KB less to read and
// scan, 7 KB less gzipped). The scripts a host includes stay ASCII: a
// script served without a charset is read in the host page's encoding.
async function bundle(entry, format, version, charset = 'ascii') {
  const result = await build({
    entryPoints: [join(root, entry)],
    bundle: true,
    format,
    target: ['es2020'],
    minify: true,
    legalComments: 'none',
    charset,
    define: { __VRAM_VERSION__: JSON.stringify(version) },
    write: false,
    plugins: [pageCatalogs, minifiedCss],
  });
  return result.outputFiles[0].text;
}

/**
 * The module's raw deflate stream, as small as deflate makes it: zopfli
 * (Debian's package, scripts/bootstrap.sh) writes a stream any inflater
 * reads, 5% smaller than zlib's level 9 (12 KB of the page), in about 6
 * seconds; kept under build/page/ by the module's hash, so a page rebuilt
 * over the same module costs nothing.
 */
async function deflateModule(wasm) {
  const hash = createHash('sha256').update(wasm).digest('hex').slice(0, 16);
  const cache = join(root, 'build/page');
  const packed = join(cache, `vram-${hash}.wasm.deflate`);
  try {
    return await readFile(packed);
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  await mkdir(cache, { recursive: true });
  const input = join(cache, 'vram.wasm');
  await writeFile(input, wasm);
  let out;
  try {
    out = execFileSync('zopfli', ['--deflate', '-c', input], { maxBuffer: 64 << 20 });
  } catch (error) {
    if (error.code === 'ENOENT') throw new Error('zopfli is missing: run bash scripts/bootstrap.sh (it installs Debian\'s zopfli)');
    throw error;
  } finally {
    await rm(input, { force: true });
  }
  // The stream must give back the module, byte for byte.
  if (!inflateRawSync(out).equals(wasm)) throw new Error('zopfli: the deflated module does not inflate to the module');
  for (const name of await readdir(cache)) {
    if (name.endsWith('.wasm.deflate')) await rm(join(cache, name));
  }
  await writeFile(packed, out);
  return out;
}

export async function buildPage() {
  const version = await packageVersion();
  const glue = await readFile(join(root, 'build/wasm/module/vram.js'), 'utf8');
  // The wasm bytes travel as a base64 string beside the glue, not inside
  // it: the page decodes them with Uint8Array.fromBase64 where the browser
  // has it (the glue's own decoder walks atob's output byte by byte) and
  // hands them over as wasmBinary.
  const inline = /data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/.exec(glue);
  if (!inline) throw new Error('the module glue carries no inline wasm (SINGLE_FILE?)');
  const lean = glue.replace(inline[1], '');
  // Deflated before base64: gzip cannot see the wasm's byte patterns through
  // base64's 6-bit alphabet (the base64 of the raw module gzips to a third
  // more than the module itself), but base64 of deflated bytes gzips back
  // to about their own size. The page inflates them with the browser's
  // DecompressionStream (web/src/core.js inflateBase64).
  const packed = (await deflateModule(Buffer.from(inline[1], 'base64'))).toString('base64');
  // The module glue exports through module/exports/define when they exist;
  // shadowing them keeps it from touching a host page's loaders, so the
  // element is the only global the classic script creates. Shadowing
  // `process` keeps it on its plain path (wasmBinary given, no require)
  // under a host's process polyfill, and for the ES module under Node.
  // The glue minified as the element's own code is (esbuild keeps the
  // top-level `createVramModule` the element calls): 2.4 KB less gzipped.
  const wrapped = `var createVramModule=(function(){var module,exports,define,process;\n${lean}\nreturn createVramModule;})();\n`;
  const { code: glueMin } = await transform(wrapped, { minify: true, target: 'es2020', legalComments: 'none' });
  const core = `var VRAM_WASM_DEFLATED="${packed}";\n${glueMin}`;
  const banner = `/* VRAM calculator ${version}: sizing core compiled to WebAssembly. MIT License. */\n`;
  const classic = async (charset) => inlineSafe(`${banner}(function(){${core}${await bundle('web/src/entry.js', 'iife', version, charset)}})();\n`);
  const script = await classic('ascii');
  const esm = `${banner}${core}${await bundle('web/src/module.js', 'esm', version)}`;
  const template = await readFile(join(root, 'web/page.html'), 'utf8');
  const marker = '<script>/*VRAM_CALCULATOR_SCRIPT*/</script>';
  if (!template.includes(marker)) throw new Error('web/page.html lost its script marker');
  const inlineScript = `\n${await classic('utf8')}`;
  const cspMarker = '<meta http-equiv="Content-Security-Policy" content="VRAM_CSP">';
  if (!template.includes(cspMarker)) throw new Error('web/page.html lost its CSP marker');
  const page = template
    .replace(cspMarker, () => `<meta http-equiv="Content-Security-Policy" content="${pagePolicy(inlineScript)}">`)
    .replace(marker, () => `<script>${inlineScript}</script>`);

  await mkdir(dist, { recursive: true });
  await writeFile(join(dist, 'vram-calculator.js'), script);
  await writeFile(join(dist, 'vram-calculator.mjs'), esm);
  await writeFile(join(dist, 'vram-calculator.html'), page);
  await writeFile(join(dist, 'index.html'), page);
  const examples = join(root, 'examples');
  try {
    for (const name of await readdir(examples)) {
      await copyFile(join(examples, name), join(dist, name));
    }
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  return { script, esm, page };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { script, page } = await buildPage();
  console.log(`page: dist/vram-calculator.html ${(page.length / 1024).toFixed(0)} KB, dist/vram-calculator.js ${(script.length / 1024).toFixed(0)} KB`);
}
