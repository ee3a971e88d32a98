// The message renderer in Chromium (its own ICU, not node's): every case of
// tests/vectors/messages.json, and no view of the shipped page showing a
// message id where its text belongs (what an unknown id renders as).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { launch, openPage, root } from './harness.mjs';

test('the renderer passes every vector in Chromium', async () => {
  const bundle = await build({
    entryPoints: [join(root, 'web/src/messages.js')],
    bundle: true,
    format: 'iife',
    globalName: 'vramMessages',
    write: false,
  });
  const vectors = JSON.parse(readFileSync(join(root, 'tests/vectors/messages.json'), 'utf8'));
  const browser = await launch({ offline: true, reuse: true });
  try {
    await browser.page.setContent('<!doctype html><title>messages</title>');
    await browser.page.addScriptTag({ content: bundle.outputFiles[0].text });
    const results = await browser.page.evaluate(({ catalogs, cases }) => {
      return cases.map((c) => {
        const { render } = window.vramMessages.createRenderer({ catalogs, lang: c.lang, digits: c.digits, unit: c.unit ?? 'GB' });
        return render({ id: c.id, params: c.params });
      });
    }, vectors);
    vectors.cases.forEach((c, i) => assert.equal(results[i], c.expected, JSON.stringify(c)));
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

// The namespaces of the page's message ids ("view", "input", ...): a text
// node that is nothing but "<namespace>.<name>" is an id no catalog had.
// Every word of the page is in data/messages/<lang>.json.
function namespaces() {
  const ids = [];
  for (const file of readdirSync(join(root, 'data/messages'))) {
    if (file.endsWith('.json')) ids.push(...Object.keys(JSON.parse(readFileSync(join(root, 'data/messages', file), 'utf8'))));
  }
  return new Set(ids.map((id) => id.split('.')[0]));
}

test('no view shows a message id instead of its text', async () => {
  const known = namespaces();
  assert.ok(known.size > 5, `only ${known.size} namespaces: are the catalogs read?`);
  for (const view of ['calculator', 'grid', 'devices', 'fleet']) {
    const browser = await openPage(`?view=${view}`);
    try {
      // openPage waits for the calculator's answer; the tables come after.
      if (view !== 'calculator') await browser.page.locator('vram-calculator [role=tabpanel]:not([hidden]) :is(table, .unavailable, .error)').first().waitFor();
      const texts = await browser.page.evaluate(() => {
        const out = [];
        const walk = (node) => {
          if (node.nodeType === Node.TEXT_NODE) out.push(node.textContent.trim());
          for (const attr of node.attributes || []) if (['aria-label', 'title', 'placeholder'].includes(attr.name)) out.push(attr.value.trim());
          for (const child of node.childNodes) walk(child);
          if (node.shadowRoot) walk(node.shadowRoot);
        };
        walk(document.body);
        return out;
      });
      const raw = texts.filter((s) => /^[a-z][A-Za-z0-9]*(\.[A-Za-z0-9_]+)+$/.test(s) && known.has(s.split('.')[0]));
      assert.deepEqual(raw, [], `${view}: ids shown as text`);
    } finally {
      await browser.close();
    }
  }
});

// The page's build ships Arabic and Persian as their entries in English's key
// order (tools/build-page.mjs, web/src/i18n.js plainCatalog): one entry out of
// place would shift every later one. Each language's words as the shipped
// element renders them, key by key, against its catalog: every entry with no
// placeholder and no digit renders as written.
test('the shipped page speaks each catalog entry under its own key, in Arabic and Persian', async () => {
  for (const lang of ['ar', 'fa']) {
    const catalog = JSON.parse(readFileSync(join(root, `data/messages/${lang}.json`), 'utf8'));
    const plain = Object.entries(catalog).filter(
      ([id, entry]) => typeof entry === 'string' && !id.startsWith('cli.') && !id.startsWith('usage.') && !/[{}0-9\u0660-\u066C\u06F0-\u06F9]/.test(entry),
    );
    assert.ok(plain.length > 200, `${lang}: only ${plain.length} plain entries`);
    const browser = await openPage(`?lang=${lang}`);
    try {
      const shown = await browser.page.evaluate((ids) => {
        const t = document.querySelector('vram-calculator').t;
        return ids.map((id) => t(id));
      }, plain.map(([id]) => id));
      // Right to left every Latin run is isolated (U+2066 ... U+2069, docs/i18n.md); the words are the entry's.
      const words = (text) => text.replace(/[\u2066-\u2069]/g, '');
      plain.forEach(([id, entry], i) => assert.equal(words(shown[i]), words(entry), `${lang}: ${id}`));
    } finally {
      await browser.close();
    }
  }
});
