// Reading a Hugging Face config.json that a user pasted, dropped or chose.
// JSON.parse only: the text is data, never evaluated or inserted as markup.
// Problems come back as codes the page words from its message catalog; the
// core then names any field it cannot use (config.num_hidden_layers ...).

/** The largest config.json accepted (real ones are 1 to 10 KB). */
export const MAX_CONFIG_BYTES = 1000000;

/** The JSON type of a value: object, array, string, number, boolean, null. */
function kindOf(value) {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/**
 * Parses config.json text. Returns { value } or { error: { code, ... } }:
 * configEmpty, configLarge { max }, configJson { detail } (the parser's own
 * words, which name the position), configType { kind }.
 */
export function readConfigText(text) {
  if (typeof text !== 'string' || text.trim() === '') return { error: { code: 'configEmpty' } };
  if (text.length > MAX_CONFIG_BYTES) return { error: { code: 'configLarge', max: MAX_CONFIG_BYTES } };
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: { code: 'configJson', detail: error.message } };
  }
  if (kindOf(value) !== 'object') return { error: { code: 'configType', kind: kindOf(value) } };
  return { value };
}
