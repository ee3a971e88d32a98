// Assembles the page from the built wasm module and web/src:
//   dist/vram-calculator.js    one classic script: the module (wasm inline)
//                              and the <vram-calculator> element
//   dist/vram-calculator.html  the standalone page, that script inline: one
//                              self-contained file that works from file://
//   dist/index.html            the same page, for the preview server
// plus the examples. Classic scripts only: file:// blocks ES modules.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile, copyFile, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
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
 * the empty data: favicon, and nothing else: no eval, no fetch, no frames,
 * no forms, no <base>.
 */
export function pagePolicy(inlineScript) {
  const hash = createHash('sha256').update(inlineScript, 'utf8').digest('base64');
  return [
    "default-src 'none'",
    `script-src 'sha256-${hash}' 'wasm-unsafe-eval'`,
    "style-src 'unsafe-inline'",
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export async function buildPage() {
  const glue = await readFile(join(root, 'build/wasm/module/vram.js'), 'utf8');
  const bundle = await build({
    entryPoints: [join(root, 'web/src/entry.js')],
    bundle: true,
    format: 'iife',
    target: ['es2020'],
    minify: true,
    legalComments: 'none',
    loader: { '.css': 'text' },
    write: false,
  });
  const app = bundle.outputFiles[0].text;
  // The wasm bytes travel as a base64 string beside the glue, not inside
  // it: the page decodes them with Uint8Array.fromBase64 where the browser
  // has it (the glue's own decoder walks atob's output byte by byte) and
  // hands them over as wasmBinary.
  const inline = /data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/.exec(glue);
  if (!inline) throw new Error('the module glue carries no inline wasm (SINGLE_FILE?)');
  const lean = glue.replace(inline[1], '');
  // The module glue exports through module/exports/define when they exist;
  // shadowing them keeps it from touching a host page's loaders, so the
  // element is the only global this script creates.
  const script = inlineSafe(
    '/* VRAM calculator: sizing core compiled to WebAssembly. */\n' +
      `(function(){var VRAM_WASM_BASE64="${inline[1]}";\n` +
      'var createVramModule=(function(){var module,exports,define;\n' +
      lean +
      '\nreturn createVramModule;})();\n' +
      app +
      '})();\n',
  );
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
  await writeFile(join(dist, 'vram-calculator.js'), script);
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
  return { script, page };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { script, page } = await buildPage();
  console.log(`page: dist/vram-calculator.html ${(page.length / 1024).toFixed(0)} KB, dist/vram-calculator.js ${(script.length / 1024).toFixed(0)} KB`);
}
