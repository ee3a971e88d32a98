import { launch } from '../tests/browser/harness.mjs';
import { pathToFileURL } from 'node:url';
const url = pathToFileURL(process.env.VRAM_PAGE || 'dist/vram-calculator.html').href;
const b = await launch();
const rows = [];
for (let i = 0; i < 9; i++) {
  const page = await b.context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => performance.getEntriesByName('vram:first-render').length);
  const m = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark').map((e) => [e.name, e.startTime])));
  rows.push(m); await page.close();
}
const med = (k) => { const v = rows.map((r) => r[k]).sort((a, b) => a - b); return v[v.length >> 1]; };
const keys = Object.keys(rows[0]);
let prev = 0; for (const k of keys) { const v = med(k); console.log(k.padEnd(24), v.toFixed(1), '+' + (v - prev).toFixed(1)); prev = v; }
await b.close();
