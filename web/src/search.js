// Finding a model by the name people know it by: "llama 70b", "deepseek r1",
// "gemma3", "oss". Pure functions over the catalog's models (id, name,
// family, aliases from data/models.json), so node tests hold the ranking.
//
// A query is split into tokens; every token must match some token of the
// model's name, id, family or aliases: exactly, as a prefix, or (words of
// four letters or more) within one or two typing slips. Numbers and sizes
// never match approximately: 70B and 72B are different models. A query that
// is a model's whole alias ("deepseek", "r1") or name ranks that model first.

/** Digits people type: Arabic-Indic (U+0660) and Persian (U+06F0) to Latin. */
export function latinDigits(text) {
  return String(text).replace(/[\u0660-\u0669\u06f0-\u06f9]/g, (d) => String((d.charCodeAt(0) & 0xf) % 10));
}

/** Lower case, accents off, Latin digits, runs of other characters as one space. */
export function normalize(text) {
  return latinDigits(String(text).normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase())
    .replace(/[^a-z0-9.]+/g, ' ')
    .replace(/(^|[^0-9])\.|\.(?![0-9])/g, '$1 ')
    .trim();
}

const SIZE = /^\d+(\.\d+)?[bmkt]$/;

/**
 * The tokens of a text, each with its parts: "gemma3" is one token with the
 * parts "gemma" and "3"; "70b" stays whole (a size); "8x7b" has "8", "x", "7b".
 */
export function tokenize(text) {
  const words = normalize(text).split(' ').filter(Boolean);
  return words.map((word) => {
    if (SIZE.test(word)) return { word, parts: [word] };
    const parts = word.match(/\d+(?:\.\d+)?[bmkt](?![a-z])|\d+(?:\.\d+)?|[a-z]+/g) || [word];
    return { word, parts };
  });
}

/** Optimal string alignment distance, stopping once it passes `limit`. */
function distance(a, b, limit) {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev2 = null;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (prev2 && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2] + 1);
      row.push(d);
      best = Math.min(best, d);
    }
    if (best > limit) return limit + 1;
    prev2 = prev;
    prev = row;
  }
  return prev[b.length];
}

// How well one query word matches one model word: 3 exact, 2 prefix, 1 typo, 0 none.
const EXACT = 3;
const PREFIX = 2;
const TYPO = 1;

function wordScore(query, word) {
  if (query === word) return EXACT;
  if (word.startsWith(query)) return PREFIX;
  if (!/^[a-z]+$/.test(query) || query.length < 4) return 0;
  const limit = query.length >= 8 ? 2 : 1;
  if (distance(query, word, limit) <= limit) return TYPO;
  // A slip in a prefix counts too: "deepsek" for "deepseek", "mistrl" for "mistral".
  for (let length = query.length - limit; length <= query.length + limit; length++) {
    if (length >= 4 && length < word.length && distance(query, word.slice(0, length), limit) <= limit) return TYPO;
  }
  return 0;
}

function bestScore(query, words) {
  let best = 0;
  for (const word of words) best = Math.max(best, wordScore(query, word));
  return best;
}

/**
 * What a model is searched by: its words (with their parts) and its whole
 * names (name, id, aliases), normalized. `model`: { id, name, family?, aliases? }.
 */
export function searchEntry(model) {
  const names = [model.name, model.id, ...(model.aliases || [])].map(normalize);
  const words = new Set();
  for (const text of [model.name, model.id, model.family || '', ...(model.aliases || [])]) {
    for (const { word, parts } of tokenize(text)) {
      words.add(word);
      for (const part of parts) words.add(part);
    }
  }
  return { id: model.id, names, words: [...words] };
}

/**
 * Scores one entry against a query: 0 when a query token matches nothing,
 * else the sum of the tokens' scores, plus a bonus when the query is the
 * entry's whole name or one of its aliases.
 */
export function scoreEntry(entry, query) {
  const tokens = tokenize(query);
  if (!tokens.length) return 0;
  let score = 0;
  for (const { word, parts } of tokens) {
    const whole = bestScore(word, entry.words);
    // "gemma3" against "Gemma 3": every part must match on its own.
    // The parts' mean ranks "qwne3" nearer Qwen3 (slip + exact) than Qwen2.5 32B (slip + prefix).
    const partScores = parts.length > 1 ? parts.map((part) => bestScore(part, entry.words)) : [0];
    const split = partScores.includes(0) ? 0 : partScores.reduce((a, b) => a + b, 0) / partScores.length;
    const best = Math.max(whole, split);
    if (!best) return 0;
    score += best;
  }
  const text = normalize(query);
  if (entry.names.includes(text)) score += 100;
  return score;
}

/**
 * The models matching a query, best first (ties keep the catalog's order).
 * An empty query matches nothing: the caller shows the whole list.
 */
export function searchModels(entries, query) {
  return entries
    .map((entry, index) => ({ id: entry.id, score: scoreEntry(entry, query), index }))
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((hit) => hit.id);
}
