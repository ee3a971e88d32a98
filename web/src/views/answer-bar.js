// The answer in one strip: the total, the fit on the chosen card, and the
// pick (the cheapest card set that holds it) with the vendor's "Rent this"
// link. On a phone it stays at the top of the screen while the inputs
// scroll under it, so every change shows its effect; in `compact` mode it is
// the whole element. The fit sentence and the pick are computed here once
// for both this strip and the calculator view.
import { assign, h, patch, replace } from '../dom.js';
import { BYTES_PER_GB } from '../format.js';
import { bdi, errorText, said } from './common.js';
import { rentLink } from './rent-link.js';

// Decimal GB from the core, as the bytes the renderer's gb styles take.
const bytes = (gb) => gb * BYTES_PER_GB;

/**
 * The fit on the chosen card (or budget): { text, fits, tight, state }, or
 * null without one. `t` carries the language, digits and display unit.
 */
export function fitSummary(t, result) {
  const fit = result.fit;
  // Unequal cards (llama.cpp's --tensor-split): the split is the fit.
  const split = result.split;
  if (!fit && split) {
    const tokens = (n) => ({ id: 'inverse.tokens', params: { tokens: n } });
    const params = { cards: splitCards(split), context: tokens(result.context), max: tokens(split.max_context) };
    const state = split.fits ? (split.fill > 0.9 ? 'is-tight' : 'is-fit') : 'is-over';
    return { text: t(split.fits ? 'mixed.fits' : 'mixed.short', params), fits: split.fits, tight: state === 'is-tight', state };
  }
  if (!fit) return null;
  const cards = result.gpu_count || 1;
  const tight = Boolean(fit.fits && fit.tight);
  // A budget of one's own is the capacity even with a card chosen: said as the budget, never as the card.
  const where = result.gpu && fit.basis?.id !== 'basis.budget'
    ? { id: 'fit.on', params: { count: cards, name: result.gpu.name, capacity: bytes(fit.capacity_gb) } }
    : { id: 'fit.budget', params: { capacity: bytes(fit.capacity_gb) } };
  // llama.cpp keeps what does not fit in host RAM: it runs, slower (the core's headline);
  // the user's own placement (-ngl, --n-cpu-moe) is the answer whether or not the whole would fit.
  const o = result.serving && result.serving.offload;
  const offload = o && (!fit.fits || o.placement === 'user') ? o : null;
  if (offload) return { text: t(offload.headline.id, offload.headline.params), fits: false, tight: false, offload: true, state: offload.fits ? 'is-tight' : 'is-over' };
  const text = fit.fits
    ? t(tight ? 'fit.tight' : 'fit.fits', { where, spare: bytes(fit.spare_gb) })
    : t('fit.short', { where, over: bytes(-fit.spare_gb) });
  return { text, fits: fit.fits, tight, state: fit.fits ? (tight ? 'is-tight' : 'is-fit') : 'is-over' };
}

/** The cards of a split in their CUDA order, "RTX 3090 + RTX 4090" (the renderer isolates it). */
export function splitCards(split) {
  return split.cards.map((c) => c.name).join(' + ');
}

/**
 * A signed percentage of the measured error ("−3%", "+8%"), isolated left
 * to right so that a right-to-left sentence keeps its sign before it.
 */
function signedPct(t, value) {
  const text = t(value < 0 ? 'measured.minus' : 'measured.plus', { value: Math.abs(value) });
  return `\u2066${text}\u2069`;
}

/**
 * The range of a result's measured error (result.measured_error, from the
 * validation set: data/accuracy.json) as the { low, high } parameters of
 * the messages that show it.
 */
export function measuredRange(t, measured) {
  return { low: signedPct(t, measured.low_pct), high: signedPct(t, measured.high_pct) };
}

/**
 * The headline memory: over all the cards of a multi-card serving plan (the
 * fit's capacity and spare are counted over the same cards) or of a split
 * over unequal cards, else the total.
 */
export function headlineGb(result) {
  // Unequal cards: what all of them hold together.
  if (result.split) return result.split.cards.reduce((sum, c) => sum + c.total_gb, 0);
  return result.serving && result.serving.gpus > 1 ? result.serving.total_gb : result.total_gb;
}

/**
 * The pick: the cheapest card set of the catalog that holds the answer
 * (the first of result.fits, cheapest first), else the chosen card when it
 * holds it; null when nothing does. { gpu, count, name, monthly_usd }.
 */
export function pickOf(result) {
  const first = result.fits && result.fits[0];
  if (first) return { gpu: first.gpu, count: first.count, name: first.name, monthly_usd: first.monthly_usd ?? null };
  if (result.fit && result.fit.fits && result.gpu) {
    return { gpu: result.gpu.id, count: result.gpu_count || 1, name: result.gpu.name, monthly_usd: null };
  }
  return null;
}

/**
 * The strip's speed: on the chosen card when it holds the answer (or runs it
 * with a partial offload), else on the pick; null without one (fine-tuning,
 * a budget of one's own with no pick). { id, value }.
 */
function stripSpeed(result, fit) {
  const o = fit && fit.offload && result.serving.offload.decode;
  const own = o ? o.expected_tokens_per_s : result.decode && result.decode.expected_tokens_per_s;
  if (own > 0) return { id: 'answer.speed', value: own };
  const first = result.fits && result.fits[0];
  return first && first.decode_expected_tokens_per_s > 0 ? { id: 'answer.pickSpeed', value: first.decode_expected_tokens_per_s } : null;
}

export class AnswerBar {
  /** ctx: { t, rent } (see rent-link.js) */
  constructor(ctx) {
    this.ctx = ctx;
    this.element = h('section', { class: 'answer-bar', 'aria-label': ctx.t('answer.label'), hidden: true });
    // Its height, for the focus's scroll margin below it (style.css: on a
    // phone the strip sticks to the top, over what scrolls under it). Set
    // only when it changes, and left unset while the strip is not shown (the
    // stylesheet's fallback is 0): a custom property set on the frame is
    // inherited by every element in it, so each write restyles them all
    // (15 ms in the first frame at desk, where the strip is never shown).
    if (typeof ResizeObserver === 'function') {
      new ResizeObserver(([entry]) => {
        const frame = this.element.parentNode;
        if (!frame || !frame.style) return;
        const size = Math.ceil(entry.borderBoxSize[0].blockSize);
        const value = size > 0 ? `${size}px` : '';
        if (frame.style.getPropertyValue('--_bar-block') === value) return;
        if (value) frame.style.setProperty('--_bar-block', value);
        else frame.style.removeProperty('--_bar-block');
      }).observe(this.element);
    }
  }

  /**
   * Brings `el`'s top below the strip when the strip sticks (a phone) and
   * covers it: focus on an element taller than the screen scrolls nothing
   * while any of it shows. scrollIntoView keeps the scroll margin under the
   * strip (style.css).
   */
  uncover(el) {
    if (this.element.hidden || getComputedStyle(this.element).position !== 'sticky') return;
    if (el.getBoundingClientRect().top < this.element.getBoundingClientRect().bottom) el.scrollIntoView({ block: 'start' });
  }

  update(result, state) {
    const { t } = this.ctx;
    const training = state.mode !== 'inference';
    const fit = fitSummary(t, result);
    const pick = pickOf(result);
    const speed = training ? null : stripSpeed(result, fit);
    const command = result.launch ? h('button', { type: 'button', class: 'link answer-command', onclick: () => this.toCommand() }, this.ctx.t('answer.command')) : null;
    const pickName = pick ? { id: 'fits.cardName', params: { count: pick.count, name: pick.name } } : null;
    patch(this.element, () => [
      h('div', { class: 'answer-total' },
        h('span', { class: 'total-label' }, t(training ? 'result.totalTraining' : 'result.totalLabel')),
        h('output', { class: 'answer-value' }, said(t, t('size.gb0', { bytes: bytes(headlineGb(result)) }))),
        result.measured_error
          ? h('span', { class: 'answer-measured muted small', dataset: { category: result.measured_error.category } }, t('answer.measured', measuredRange(t, result.measured_error)))
          : null),
      fit ? h('p', { class: `answer-fit ${fit.state}`, dataset: { fits: String(fit.fits) } }, fit.text) : null,
      h('p', { class: 'answer-pick' },
        pick
          ? [pick.monthly_usd !== null
            ? t('answer.pick', { pick: pickName, usd: pick.monthly_usd })
            : t('answer.pickNoPrice', { pick: pickName }), ' ', rentLink(this.ctx, pick, 'answer')]
          : result.below_floor && result.below_floor.length
            ? t('fits.noneAtFloor', { floor: result.below_floor[0].reason.params.floor })
            : t('fits.none'),
        // Without a speed (fine-tuning), the way down to the command ends this line.
        command && !speed ? [' ', command] : null),
      // How fast, and a way down to how to run it: on a phone the command is screens below.
      speed
        ? h('p', { class: 'answer-run' },
          h('span', { class: 'answer-speed' }, t(speed.id, { speed: { id: 'decode.approx', params: { value: speed.value } } })),
          command ? [' ', command] : null)
        : null,
    ]);
    assign(this.element, 'hidden', false);
  }

  /** Brings the calculator's command into view, below the strip, with focus on its copy button. */
  toCommand() {
    const launch = this.element.getRootNode().querySelector('[role=tabpanel]:not([hidden]) section.launch');
    if (!launch) return;
    launch.scrollIntoView({ block: 'start' });
    const copy = launch.querySelector('button');
    if (copy) copy.focus({ preventScroll: true });
  }

  /**
   * No answer: what is wrong, where the answer would be, so a phone shows
   * it on the first screen and a compact element is never blank. Not an
   * alert: the calculator's own error box is, and one announcement is
   * enough.
   */
  error(error) {
    patch(this.element, () => h('p', { class: 'answer-error', dataset: { code: error.code || '' } }, errorText(this.ctx.t, error)));
    assign(this.element, 'hidden', false);
  }

  clear() {
    assign(this.element, 'hidden', true);
    replace(this.element);
  }
}
