// How many users one plan serves (issue 42): the core's concurrency curve
// (call 'curve') for the calculator's request on its card, drawn as speed
// per user against users (a log scale), the measured range as a band, the
// floor as a line and the knee marked; the points as a table under it, and
// at the knee the cost per million output and input tokens.
import { h, s } from '../dom.js';
import { estimateRequest } from '../state.js';
import { TableView, dataTable, said, sayQuoted } from './common.js';

const W = 400;
const H = 240;
const PAD = { left: 40, right: 12, top: 12, bottom: 40 };

export class CurveView extends TableView {
  constructor(ctx) {
    super(ctx, 'curve');
    this.presetOnly = 'curve.needCard';
  }

  request(state, catalog) {
    this.presetOnly = state.mode !== 'inference' ? 'curve.inferenceOnly' : 'curve.needCard';
    if (!state.gpu || state.mode !== 'inference') return null;
    return estimateRequest(state, catalog, this.ctx.catalog);
  }

  /** The chart: a line and its band over users on a log scale, the floor, the knee. */
  chart(result) {
    const { t } = this.ctx;
    const points = result.points;
    const last = points[points.length - 1].users;
    const top = Math.max(result.min_tokens_per_s, ...points.map((p) => p.high)) * 1.05;
    const x = (users) => PAD.left + (last > 1 ? Math.log2(users) / Math.log2(last) : 0.5) * (W - PAD.left - PAD.right);
    const y = (rate) => H - PAD.bottom - (rate / top) * (H - PAD.top - PAD.bottom);
    const path = (key) => points.map((p) => `${x(p.users).toFixed(1)},${y(p[key]).toFixed(1)}`);
    const band = [...path('high'), ...path('low').reverse()].join(' ');
    const knee = result.at_floor;
    const label = knee
      ? t('curve.at_floor', { floor: result.min_tokens_per_s, users: knee.users, total: knee.total_tokens_per_s })
      : t('curve.none', { floor: result.min_tokens_per_s });
    const ticks = [0, top / 2, top].map((v) => s('text', { x: PAD.left - 6, y: y(v) + 4, 'text-anchor': 'end' }, t.format(v, 0)));
    return s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'curve-chart', role: 'img', 'aria-label': label, dir: 'ltr' },
      s('polygon', { points: band, class: 'band' }),
      s('polyline', { points: path('tokens_per_s').join(' '), class: 'line' }),
      s('line', { x1: PAD.left, x2: W - PAD.right, y1: y(result.min_tokens_per_s), y2: y(result.min_tokens_per_s), class: 'floor' }),
      knee ? s('circle', { cx: x(knee.users), cy: y(knee.tokens_per_s), r: 5, class: 'knee' }) : null,
      s('line', { x1: PAD.left, x2: W - PAD.right, y1: H - PAD.bottom, y2: H - PAD.bottom, class: 'axis' }),
      s('line', { x1: PAD.left, x2: PAD.left, y1: PAD.top, y2: H - PAD.bottom, class: 'axis' }),
      ...ticks,
      ...points.map((p) => s('text', { x: x(p.users), y: H - PAD.bottom + 17, 'text-anchor': 'middle' }, t.format(p.users, 0))),
      s('text', { x: W - PAD.right, y: H - 4, 'text-anchor': 'end' }, t('curve.col.users')),
    );
  }

  render(result, state) {
    const { t } = this.ctx;
    const say = this.ctx.say(state.unit);
    const title = t('curve.title', { count: result.gpu_count, gpu: result.gpu_name, context: result.context, limit: result.users_limit });
    if (!result.points.length) return h('p', { class: 'notice', role: 'status' }, said(t, t('curve.no_fit')));
    const knee = result.at_floor;
    const head = ['curve.col.users', 'curve.col.per_user', 'curve.col.band', 'curve.col.total', 'curve.col.ttft'].map((id) => t(id));
    const rows = result.points.map((p) =>
      h('tr', { class: p.meets_floor ? '' : 'below' },
        h('th', { scope: 'row', class: 'num' }, t.format(p.users, 0)),
        h('td', { class: 'num' }, t('curve.rate', { value: p.tokens_per_s })),
        h('td', { class: 'num' }, said(t, t('curve.band', { low: p.low, high: p.high }))),
        h('td', { class: 'num' }, t('curve.rate', { value: p.total_tokens_per_s })),
        h('td', { class: 'num' }, p.ttft_s === null ? '–' : said(t, t('curve.seconds', { value: p.ttft_s })))));
    const out = [h('p', { class: 'curve-title' }, said(t, title)), this.chart(result)];
    out.push(h('p', { class: 'curve-knee' }, said(t, knee
      ? t('curve.at_floor', { floor: result.min_tokens_per_s, users: knee.users, total: knee.total_tokens_per_s })
      : t('curve.none', { floor: result.min_tokens_per_s }))));
    if (knee && knee.usd_per_million_output !== null) {
      out.push(h('p', { class: 'curve-cost' }, said(t, t('curve.cost', { output: knee.usd_per_million_output, input: knee.usd_per_million_input, hourly: knee.usd_per_hour }))));
    }
    out.push(dataTable(t('view.curve'), title, head, rows, { class: 'curve-rows' }, t('table.scrollCue')));
    for (const note of result.assumptions) out.push(h('p', { class: 'muted small' }, sayQuoted(say, note)));
    if (result.measured_error) out.push(h('p', { class: 'muted small' }, sayQuoted(say, result.measured_error.note)));
    return h('div', {}, out);
  }
}
