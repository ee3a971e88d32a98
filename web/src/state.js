// The calculator's inputs as a plain object, and their round trip through a
// URL query. Parsing validates every parameter against a schema: unknown or
// malformed ones are reported and ignored, and nothing read from the URL is
// ever executed or inserted as markup.

export const VIEWS = ['calculator', 'grid', 'devices', 'fleet'];
export const UNITS = ['GB', 'GiB'];

export const DEFAULT_STATE = Object.freeze({
  view: 'calculator',
  model: 'guide-70b',
  weights: 'fp8',
  kv: 'fp16',
  context: 8192,
  batch: 1,
  unit: 'GB',
});

/**
 * The schema: for each parameter, how to read it. `choices(catalog)` lists
 * the valid values of an enumerated parameter.
 */
const SCHEMA = {
  view: { kind: 'enum', choices: () => VIEWS },
  model: { kind: 'enum', choices: (c) => c.models.map((m) => m.id) },
  weights: { kind: 'enum', choices: (c) => ['native', ...c.weight_formats.map((f) => f.id)] },
  kv: { kind: 'enum', choices: (c) => c.kv_formats.map((f) => f.id) },
  context: { kind: 'int', min: 1, max: 100000000 },
  batch: { kind: 'int', min: 1, max: 1000000 },
  unit: { kind: 'enum', choices: () => UNITS },
};

const MAX_PARAM_LENGTH = 200;

/** Shown in problem reports: printable, short, never markup (it lands in textContent). */
function quote(value) {
  const clean = String(value).replace(/[\u0000-\u001f\u007f]/g, '?');
  return clean.length > 40 ? `${clean.slice(0, 40)}…` : clean;
}

function readValue(spec, raw, catalog) {
  if (raw.length > MAX_PARAM_LENGTH) return { error: 'is too long' };
  if (spec.kind === 'enum') {
    const choices = spec.choices(catalog);
    return choices.includes(raw) ? { value: raw } : { error: `'${quote(raw)}' is not one of the choices` };
  }
  if (spec.kind === 'int') {
    if (!/^\d+$/.test(raw)) return { error: `'${quote(raw)}' is not a whole number` };
    const value = Number(raw);
    if (value < spec.min || value > spec.max) {
      return { error: `must be between ${spec.min} and ${spec.max}` };
    }
    return { value };
  }
  return { error: 'is not understood' };
}

/**
 * Reads a query string. Returns { state, problems } where problems is a list
 * of { param, message } for every parameter that was ignored.
 */
export function parseQuery(search, catalog, base = DEFAULT_STATE) {
  const state = { ...base };
  const problems = [];
  const params = new URLSearchParams(search);
  for (const [name, raw] of params) {
    const spec = Object.prototype.hasOwnProperty.call(SCHEMA, name) ? SCHEMA[name] : null;
    if (!spec) {
      problems.push({ param: quote(name), message: 'is not a parameter this page knows' });
      continue;
    }
    const { value, error } = readValue(spec, raw, catalog);
    if (error) problems.push({ param: name, message: error });
    else state[name] = value;
  }
  return { state, problems };
}

/** The query string for a state: every input, in a stable order. */
export function toQuery(state) {
  const params = new URLSearchParams();
  for (const name of Object.keys(SCHEMA)) {
    if (state[name] !== undefined) params.set(name, String(state[name]));
  }
  return `?${params.toString()}`;
}

/** The request the core's estimate() takes for this state. */
export function estimateRequest(state) {
  return {
    model: state.model,
    weights: state.weights,
    kv: state.kv,
    context: state.context,
    batch: state.batch,
  };
}
