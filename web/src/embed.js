// Embed modes: which inputs show (per view, and as the host's `inputs`
// attribute allows), which parts the host hides (`hide`), and where a
// vendor's catalog comes from when the element has none of its own (one
// <script type="application/json" data-vram-catalog> for the whole page,
// or, for the iframe page, the URL fragment or a postMessage). Pure apart
// from pageCatalogText, so node tests hold the rules.

/** The inputs a host can name in `inputs`; mode brings its fine-tuning options with it. */
export const INPUT_NAMES = ['model', 'weights', 'kv', 'context', 'batch', 'mode', 'engine', 'gpu', 'usable_fraction'];

/**
 * The inputs each view reads (state.js's requests): the lookup grid takes
 * the context and batch (and adds the chosen preset as a row), the device
 * planner the model, context and usable fraction, the fleet the model,
 * weights, context and batch. The calculator takes all but the planner's
 * usable fraction.
 */
export const VIEW_INPUTS = {
  calculator: ['model', 'weights', 'kv', 'context', 'batch', 'mode', 'engine', 'gpu'],
  grid: ['model', 'context', 'batch'],
  devices: ['model', 'context', 'usable_fraction'],
  fleet: ['model', 'weights', 'context', 'batch'],
  // Which models fit: the card (or one's own budget) and the load, no model.
  models: ['weights', 'kv', 'context', 'batch', 'gpu'],
  // Users and cost: the calculator's own request on its card.
  curve: ['model', 'weights', 'kv', 'context', 'batch', 'mode', 'engine', 'gpu'],
  // An engine's log: the card its budget is compared on, and the model to compare with.
  log: ['model', 'gpu'],
};

/** The parts `hide` can take away. */
export const HIDE_PARTS = ['header', 'tabs'];

const MAX_ATTRIBUTE = 1000;

function words(raw) {
  return String(raw ?? '').slice(0, MAX_ATTRIBUTE).toLowerCase().split(/[\s,]+/).filter(Boolean);
}

/**
 * The `inputs` attribute: null when absent (every input the view reads),
 * an empty list for "none", else the named inputs. Unknown names are
 * returned in `unknown` so the element can say so.
 */
export function readInputs(raw) {
  if (raw === null || raw === undefined) return { inputs: null, unknown: [] };
  const list = words(raw);
  if (list.length === 1 && list[0] === 'none') return { inputs: [], unknown: [] };
  return { inputs: [...new Set(list.filter((w) => INPUT_NAMES.includes(w)))], unknown: list.filter((w) => !INPUT_NAMES.includes(w)) };
}

/** The `hide` attribute: the known parts it names, and the unknown words. */
export function readHide(raw) {
  const list = words(raw);
  return { hide: [...new Set(list.filter((w) => HIDE_PARTS.includes(w)))], unknown: list.filter((w) => !HIDE_PARTS.includes(w)) };
}

/** The inputs shown for a view: what it reads, narrowed to the host's list. */
export function visibleInputs(view, inputs) {
  const reads = VIEW_INPUTS[view] || VIEW_INPUTS.calculator;
  return new Set(inputs ? reads.filter((name) => inputs.includes(name)) : reads);
}

// A catalog is a list of cards and prices: far below this.
export const MAX_CATALOG_CHARS = 200000;

/**
 * Reads catalog text (an attribute, a page's script element, a fragment, a
 * message) the same way for every source: { catalog } or { error: { code } }
 * with code 'catalogLarge' or 'catalogJson' (message in `detail`) or
 * 'catalogType'. The core validates the content.
 */
export function readCatalogText(text) {
  const raw = String(text ?? '').trim();
  if (raw.length > MAX_CATALOG_CHARS) return { error: { code: 'catalogLarge', max: MAX_CATALOG_CHARS } };
  let value;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { error: { code: 'catalogJson', detail: error.message } };
  }
  if (value === null || typeof value !== 'object') return { error: { code: 'catalogType' } };
  return { catalog: value };
}

/**
 * A catalog fetched from the address its element's attribute names (against
 * `base`, the page's): { catalog } or { error: { code } }, the code
 * 'catalogFetch' (no answer: offline, CORS, the host's policy, an address
 * that is no URL), 'catalogHttp' (with the answer's `status`) or
 * 'catalogJson' (with the parser's `detail`, which i18n.js words as a
 * place). The codes are worded from the catalogs, never the browser's own
 * English. `get` is fetch (a stand-in in tests).
 */
export async function fetchCatalog(address, base, get = (...args) => fetch(...args)) {
  let text;
  try {
    const response = await get(new URL(address, base), { credentials: 'omit' });
    if (!response.ok) return { error: { code: 'catalogHttp', status: response.status } };
    text = await response.text();
  } catch {
    return { error: { code: 'catalogFetch' } };
  }
  try {
    return { catalog: JSON.parse(text) };
  } catch (error) {
    return { error: { code: 'catalogJson', detail: error.message } };
  }
}

/** The iframe page's catalog from its URL fragment (#catalog=<JSON, URL-encoded>); null when none. */
export function fragmentCatalogText(hash) {
  const params = new URLSearchParams(String(hash ?? '').replace(/^#/, ''));
  return params.get('catalog');
}

/**
 * A postMessage to the iframe page: { type: 'vram-catalog', catalog } with
 * the catalog as an object or JSON text; null for any other message.
 */
export function messageCatalogText(data) {
  if (!data || typeof data !== 'object' || data.type !== 'vram-catalog') return null;
  const { catalog } = data;
  if (typeof catalog === 'string') return catalog;
  try {
    return JSON.stringify(catalog) ?? '';
  } catch {
    return '';
  }
}

/** The page-wide catalog's text, from the first <script type="application/json" data-vram-catalog>; null when none. */
export function pageCatalogText(doc) {
  const script = doc && doc.querySelector('script[type="application/json"][data-vram-catalog]');
  return script ? script.textContent : null;
}
