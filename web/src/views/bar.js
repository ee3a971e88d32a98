// The answer as one stacked bar: each term a segment, the card's memory a
// line across it. Text stays out of the SVG (the legend is HTML), so a
// right-to-left page mirrors the bar with one CSS transform.
import { h, s } from '../dom.js';
import { formatMemory } from '../format.js';

const WIDTH = 1000;
const HEIGHT = 40;
const COLOURS = 8;

/** terms: [{ id, label, gb }]; capacityGb may be 0 (no card chosen). */
export function stackedBar(t, terms, totalGb, capacityGb, unit) {
  const scale = Math.max(totalGb, capacityGb || 0) * 1.04 || 1;
  const x = (gb) => (gb / scale) * WIDTH;
  let at = 0;
  const segments = terms.filter((term) => term.gb > 0).map((term, i) => {
    const rect = s('rect', { class: `seg seg-${i % COLOURS}`, x: x(at), y: 4, width: Math.max(x(term.gb), 0.5), height: HEIGHT - 8 },
      s('title', {}, `${term.label}: ${formatMemory(term.gb, unit, 1)}`));
    at += term.gb;
    return { rect, term, i };
  });
  const label = capacityGb
    ? t('bar.labelCapacity', { total: formatMemory(totalGb, unit), capacity: formatMemory(capacityGb, unit) })
    : t('bar.label', { total: formatMemory(totalGb, unit) });
  const svg = s('svg', { class: 'bar-svg', viewBox: `0 0 ${WIDTH} ${HEIGHT}`, preserveAspectRatio: 'none', role: 'img', 'aria-label': label },
    s('rect', { class: 'track', x: 0, y: 4, width: WIDTH, height: HEIGHT - 8 }),
    segments.map((seg) => seg.rect),
    capacityGb ? s('line', { class: 'capacity', x1: x(capacityGb), x2: x(capacityGb), y1: 0, y2: HEIGHT, 'vector-effect': 'non-scaling-stroke' }) : null,
  );
  return h('figure', { class: 'bar' },
    svg,
    h('figcaption', {},
      h('ul', { class: 'legend' },
        segments.map(({ term, i }) => h('li', {}, h('span', { class: `swatch seg-${i % COLOURS}`, 'aria-hidden': 'true' }), `${term.label} ${formatMemory(term.gb, unit, 1)}`)),
        capacityGb ? h('li', {}, h('span', { class: 'swatch capacity', 'aria-hidden': 'true' }), t('bar.capacity', { capacity: formatMemory(capacityGb, unit) })) : null,
      ),
    ),
  );
}
