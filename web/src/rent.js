// A vendor's "Rent this" link: the element's `rent-url` attribute is a URL
// template such as https://vendor.example/order?gpu={gpu}&count={count}.
// Attribute text is untrusted: only http(s) templates are taken, the
// placeholders may not sit in the scheme or host (a card id must never
// choose where the link goes), and every value is URL-encoded.

/** The placeholders a template may use: the card's catalog id, the card count, its name. */
export const RENT_PLACEHOLDERS = ['gpu', 'count', 'name'];

const PLACEHOLDER = /\{([a-z]+)\}/g;
const MAX_TEMPLATE = 2000;

function fill(template, values) {
  return template.replace(PLACEHOLDER, (_, key) => encodeURIComponent(String(values[key])));
}

function parse(text) {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/**
 * Checks a rent-url template. Returns { template } or { error: { code } }
 * with code 'rentLong', 'rentPlaceholder' (an unknown {name}), 'rentUrl'
 * (not an absolute URL), 'rentScheme' (not http or https) or 'rentHost'
 * (a placeholder in the scheme or host).
 */
export function readRentTemplate(raw) {
  const template = String(raw ?? '').trim();
  if (template.length > MAX_TEMPLATE) return { error: { code: 'rentLong' } };
  for (const [, key] of template.matchAll(PLACEHOLDER)) {
    if (!RENT_PLACEHOLDERS.includes(key)) return { error: { code: 'rentPlaceholder', value: key } };
  }
  const probe = (text) => parse(fill(template, { gpu: text, count: text, name: text }));
  const a = probe('a');
  const b = probe('b');
  if (!a || !b) return { error: { code: 'rentUrl' } };
  if (a.protocol !== 'https:' && a.protocol !== 'http:') return { error: { code: 'rentScheme' } };
  if (a.origin !== b.origin || a.username || a.password) return { error: { code: 'rentHost' } };
  return { template };
}

/**
 * The link for one pick ({ gpu, count, name }) under a checked template;
 * null when there is no template.
 */
export function rentHref(template, pick) {
  if (!template) return null;
  const url = parse(fill(template, { gpu: pick.gpu, count: pick.count, name: pick.name }));
  return url && (url.protocol === 'https:' || url.protocol === 'http:') ? url.href : null;
}
