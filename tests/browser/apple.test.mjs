// Apple silicon on the page (issue 42, mixed and unified memory): a plan
// just past what macOS lets a 16 GB Mac's GPU wire is measured against that
// limit, says its memory is counted once, and gives the sysctl that raises
// it with the number the core computed, typed as is, in every language.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, text } from './harness.mjs';
import { core, loadJson } from '../js/module.mjs';

const MAC = { model: 'llama-3.1-8b', engine: 'llamacpp', weights: 'q8_0', context: 16384, gpu: 'apple-m4-16gb' };
// The marks the renderer isolates runs with, and a translator's own.
const plain = (s) => s.replace(/[\u061c\u200e\u200f\u2066-\u2069]/g, '');
/** A template's own words, at least four characters between its placeholders. */
const fixed = (template) => template.split(/\{[^}]*\}/).map((part) => plain(part).trim()).filter((part) => part.length > 3);

for (const lang of ['en', 'ar', 'fa']) {
  test(`an Apple machine in ${lang}: macOS's limit as the capacity, the pool counted once, the sysctl to raise it`, async () => {
    const answer = (await core()).estimate(MAC);
    const command = answer.unified_memory.command;
    assert.match(command, /^sudo sysctl iogpu\.wired_limit_mb=\d+$/);
    const catalog = loadJson(`data/messages/${lang}.json`);
    const browser = await openPage(`?${new URLSearchParams({ ...MAC, lang })}`);
    try {
      const { page } = browser;
      // The answer comes once the module has compiled: its warnings first.
      await page.locator('vram-calculator .warnings').waitFor();
      const warnings = plain(await text(page, 'vram-calculator .warnings'));
      assert.ok(warnings.includes(command), `${lang}: '${command}' not among the warnings: ${warnings}`);
      for (const part of fixed(catalog['warning.wired_raise'])) assert.ok(warnings.includes(part), `${lang}: '${part}' is missing`);
      await page.locator('vram-calculator details[data-key=assumptions] summary').click();
      await page.locator('vram-calculator details[data-key=assumptions] li').first().waitFor();
      const assumptions = plain(await text(page, 'vram-calculator details[data-key=assumptions]'));
      for (const part of fixed(catalog['assumption.unified_memory'])) assert.ok(assumptions.includes(part), `${lang}: '${part}' is missing`);
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  });
}
