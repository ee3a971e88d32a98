// "Rent this" beside every pick, when the host gave a rent-url template.
// A click fires a cancelable `vram-pick` event first; a host that handles
// the pick itself calls preventDefault() and the link is not followed.
import { h } from '../dom.js';
import { rentHref } from '../rent.js';

/**
 * The link for `pick` ({ gpu, count, name, monthly_usd }), or null without a
 * template. ctx.rent: { template, pick(detail) -> bool (false: the host
 * cancelled) }; source names where the pick was shown ('answer', 'cards', 'grid').
 */
export function rentLink(ctx, pick, source) {
  const rent = ctx.rent;
  const href = rent && rentHref(rent.template, pick);
  if (!href) return null;
  const name = { id: 'fits.cardName', params: { count: pick.count, name: pick.name } };
  return h('a', {
    class: 'rent', href, target: '_blank', rel: 'noopener noreferrer',
    'aria-label': ctx.t('rent.label', { pick: name }),
    dataset: { gpu: pick.gpu, count: pick.count },
    onclick: (event) => {
      if (!rent.pick({ ...pick, source, href })) event.preventDefault();
    },
  }, ctx.t('rent.link'));
}
