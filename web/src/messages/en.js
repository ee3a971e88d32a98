// English messages. Keys are stable; Arabic (ar) and Persian (fa) catalogs
// will carry the same keys. Placeholders: {name}. Plain text only.
export default {
  'app.title': 'VRAM calculator',
  'app.tagline': 'How much GPU memory a model needs, and which card holds it.',
  'app.loading': 'Loading the calculator…',
  'app.loadFailed': 'The calculator could not start: {message}',

  'view.calculator': 'Calculator',
  'view.grid': 'Lookup grid',
  'view.devices': 'Device counts',
  'view.fleet': 'Fleet',

  'input.model': 'Model',
  'input.weights': 'Weight format',
  'input.weights.native': 'As the checkpoint stores it',
  'input.kv': 'KV cache format',
  'input.context': 'Context (tokens per sequence)',
  'input.batch': 'Batch (concurrent sequences)',
  'input.unit': 'Units',

  'result.total': 'Total',
  'result.totalLabel': 'Memory needed',
  'result.terms': 'Breakdown',
  'result.term': 'Term',
  'result.size': 'Size',
  'result.formula': 'Formula',
  'result.assumptions': 'Assumptions',
  'result.warnings': 'Warnings',
  'result.kvPerToken': 'KV cache per token: {bytes} bytes',
  'result.params': '{total} parameters resident',
  'result.paramsActive': '{total} parameters resident, {active} active per token',

  'term.weights': 'Weights',
  'term.kv_cache': 'KV cache',
  'term.overhead': 'Runtime overhead',

  'group.guide': 'Guide shapes',
  'group.planner': 'Planner',
  'group.popular': 'Popular open models',

  'error.field': '{field}: {message}',
  'error.url': 'Ignored URL parameter {param}: {message}',
  'unit.GB': 'GB (decimal)',
  'unit.GiB': 'GiB (binary)',
};
