// The answer as one stacked bar: each term a segment, the card's memory a
// line across it. Boxes laid out with logical properties (inline-size,
// inset-inline-start), so the bar fills from the start of the line: the
// left in English, the right in Arabic and Persian, with no transform.
import { h } from '../dom.js';
import { BYTES_PER_GB } from '../format.js';
import { said } from './common.js';

const COLOURS = 8;

/** Percent of the bar's length, as a CSS length. */
const pct = (part, whole) => `${Math.min(100, (part / whole) * 100).toFixed(3)}%`;

/** A box with one logical CSS property, set through the CSSOM (dom.js `css`: a style attribute would need CSP's style-src-attr). */
function box(attrs, property, value) {
  return h('span', { ...attrs, css: { [property]: value } });
}

/**
 * terms: [{ id, label, gb, shownGb }] (shownGb: the size the breakdown
 * shows); capacityGb may be 0 (no card chosen).
 */
export function stackedBar(t, terms, totalGb, capacityGb) {
  const scale = Math.max(totalGb, capacityGb || 0) * 1.04 || 1;
  const bytes = (gb) => gb * BYTES_PER_GB;
  const segments = terms.filter((term) => term.gb > 0).map((term, i) => ({ term, i, text: t('bar.item', { label: term.label, size: bytes(term.shownGb) }) }));
  const label = capacityGb
    ? t('bar.labelCapacity', { total: bytes(totalGb), capacity: bytes(capacityGb) })
    : t('bar.label', { total: bytes(totalGb) });
  return h('figure', { class: 'bar' },
    h('div', { class: 'bar-track', role: 'img', 'aria-label': label },
      segments.map(({ term, i, text }) => box({ class: `seg seg-${i % COLOURS}`, title: text, dataset: { term: term.id } }, 'inline-size', pct(term.gb, scale))),
      capacityGb ? box({ class: 'capacity' }, 'inset-inline-start', pct(capacityGb, scale)) : null,
    ),
    h('figcaption', {},
      h('ul', { class: 'legend' },
        segments.map(({ i, text }) => h('li', {}, h('span', { class: `swatch seg-${i % COLOURS}`, 'aria-hidden': 'true' }), said(t, text))),
        capacityGb ? h('li', {}, h('span', { class: 'swatch capacity', 'aria-hidden': 'true' }), said(t, t('bar.capacity', { capacity: bytes(capacityGb) }))) : null,
      ),
    ),
  );
}
