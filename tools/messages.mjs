// The message catalogs' one layout (docs/i18n.md): one flat JSON object,
// keys sorted by code point, 2-space indent, one entry per line (a plural
// entry stays on its line). `--check` fails on a catalog laid out otherwise;
// `--fix` rewrites it so. Entries are kept as they are: only order and
// spacing change.
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const catalogDir = join(dirname(fileURLToPath(import.meta.url)), '../data/messages');

function entry(value) {
  if (typeof value === 'string') return JSON.stringify(value);
  return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')}}`;
}

/** The catalog `messages` in the one layout. */
export function layout(messages) {
  const keys = Object.keys(messages).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (!keys.length) return '{}\n';
  return `{\n${keys.map((k) => `  ${JSON.stringify(k)}: ${entry(messages[k])}`).join(',\n')}\n}\n`;
}

/** Every catalog in data/messages: { lang: { file, text, messages } }. */
export async function readCatalogs() {
  const out = {};
  for (const name of (await readdir(catalogDir)).filter((n) => n.endsWith('.json')).sort()) {
    const file = join(catalogDir, name);
    const text = await readFile(file, 'utf8');
    out[name.slice(0, -5)] = { file, text, messages: JSON.parse(text) };
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const fix = process.argv.includes('--fix');
  let bad = 0;
  for (const [lang, { file, text, messages }] of Object.entries(await readCatalogs())) {
    const want = layout(messages);
    if (want === text) continue;
    if (fix) await writeFile(file, want);
    else {
      bad++;
      console.error(`data/messages/${lang}.json is not in the catalog layout (node tools/messages.mjs --fix)`);
    }
  }
  process.exit(bad ? 1 : 0);
}
