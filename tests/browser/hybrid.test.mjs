// vLLM's hybrid KV pool on the page (issue 42: hybrid models): Qwen3-Next at
// TP 2 says how vLLM pages its state layers (544-token blocks, the groups, a
// request's blocks) and, with more users than the pool's blocks hold, how
// many fit, in every language with its own digits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, text } from './harness.mjs';
import { core, loadJson } from '../js/module.mjs';
import { foreign } from '../js/latin.mjs';

const NEXT = { model: 'qwen3-next-80b-a3b', engine: 'vllm', gpu: 'h200-sxm', gpu_count: 2, context: 262144, batch: 64 };
const plain = (s) => s.replace(/[\u061c\u200e\u200f\u2066-\u2069]/g, '');
const fixed = (template) => template.split(/\{[^}]*\}/).map((part) => plain(part).trim()).filter((part) => part.length > 3);
const NOTE_KEYS = loadJson('data/engines.json').engines.flatMap((e) => Object.keys(e.option_sources || {}));
const DIGITS = { en: (n) => n, ar: (n) => n, fa: (n) => n.replace(/\d/g, (d) => '۰۱۲۳۴۵۶۷۸۹'[d]) };

for (const lang of ['en', 'ar', 'fa']) {
  test(`Qwen3-Next under vLLM in ${lang}: the hybrid pool's blocks and the users that fit`, async () => {
    const answer = (await core()).estimate(NEXT);
    const pool = answer.assumptions.find((a) => a.id === 'assumption.vllm_hybrid_pool');
    assert.equal(pool.params.block, 544);
    const short = answer.warnings.find((w) => w.id === 'warning.vllm_short_blocks');
    assert.ok(short, 'the users do not fit the pool');
    const catalog = loadJson(`data/messages/${lang}.json`);
    const browser = await openPage(`?${new URLSearchParams({ ...NEXT, lang })}`);
    try {
      const { page } = browser;
      await page.locator('vram-calculator .warnings').waitFor();
      const warnings = plain(await text(page, 'vram-calculator .warnings'));
      for (const part of fixed(catalog['warning.vllm_short_blocks'])) assert.ok(warnings.includes(part), `${lang}: '${part}' is missing`);
      assert.ok(warnings.includes(DIGITS[lang](String(short.params.max_users))), `${lang}: ${warnings}`);
      await page.locator('vram-calculator details[data-key=assumptions] summary').click();
      await page.locator('vram-calculator details[data-key=assumptions] li').first().waitFor();
      const assumptions = plain(await text(page, 'vram-calculator details[data-key=assumptions]'));
      for (const part of fixed(catalog['assumption.vllm_hybrid_pool'])) assert.ok(assumptions.includes(part), `${lang}: '${part}' is missing`);
      assert.ok(assumptions.includes(DIGITS[lang]('544')), `${lang}: the block size`);
      // The knob's hint says which models it applies to (the schema's applies).
      const hint = plain(await page.evaluate(() => document.querySelector('vram-calculator').shadowRoot.getElementById('opt.hybrid_prefix_caching-help').textContent));
      assert.ok(hint.includes(plain(catalog['applies.state_layers'])), `${lang}: ${hint}`);
      assert.ok(hint.includes(plain(catalog['help.engine_options.hybrid_prefix_caching'])), `${lang}: ${hint}`);
      // The pool's words and the warning in the page's language: no stray Latin, no Latin digit
      // in Persian (a citation, lang=en, is quoted as written).
      const block = DIGITS[lang]('544');
      const texts = await page.evaluate((b) => {
        const root = document.querySelector('vram-calculator').shadowRoot;
        const out = [];
        for (const el of root.querySelectorAll('.warnings li, details[data-key=assumptions] li')) {
          if (!el.closest('.warnings') && !el.textContent.includes(b)) continue;
          const copy = el.cloneNode(true);
          for (const quote of copy.querySelectorAll('[lang=en]')) quote.remove();
          out.push(copy.textContent);
        }
        return out;
      }, block);
      assert.ok(texts.length >= 2, `${lang}: the pool's assumption and its warning`);
      if (lang !== 'en') {
        const { words, digits } = foreign(texts, lang, NOTE_KEYS);
        assert.deepEqual(words, [], `${lang}: Latin words outside the glossary`);
        assert.deepEqual(digits, [], `${lang}: Latin digits`);
      }
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  });
}
