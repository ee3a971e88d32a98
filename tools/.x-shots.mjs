import { launch, pageUrl } from '../tests/browser/harness.mjs';
const b = await launch();
for (const [lang, w, h] of [['ar', 390, 844], ['fa', 390, 844], ['fa', 1366, 900], ['en', 390, 844]]) {
  const page = await b.context.newPage();
  await page.setViewportSize({ width: w, height: h });
  await page.goto(`${pageUrl}?model=llama-3.1-70b&weights=fp8&context=16384&gpu=h100-sxm&lang=${lang}`);
  await page.locator('vram-calculator .fit').waitFor();
  await page.screenshot({ path: `/tmp/shot-${lang}-${w}.png` });
  await page.close();
}
await b.close();
