// Finding a model by the name people know it by: "llama 70b", "deepseek r1",
// "gemma3", "oss". Pure functions over the catalog's models (id, name,
// family, aliases from data/models.json), so node tests hold the ranking.
//
// A query is split into tokens; every token must match some token of the
// model's name, id, family or aliases: exactly, as a prefix, or (words of
// four letters or more) within one or two typing slips. Numbers and sizes
// never match approximately: 70B and 72B are different models. A query that
// is a model's whole alias ("deepseek", "r1"), name or Hugging Face repo
// ranks that model first.
//
// A repo id as people paste it from the hub finds its model too:
// "meta-llama/Llama-3.1-8B-Instruct", "google/gemma-3-27b-it",
// "unsloth/Qwen3-8B". The owner before the slash may be anyone's (a
// re-upload); words that name a post-training or a release of the same
// weights' shape ("instruct", "it", "chat", "base", a four-digit date such as
// 2501) need not match. A weights format the name gives ("-FP8", "-AWQ",
// "-GPTQ-Int4", "Q4_K_M") need not match either: namedFormat finds it, and
// the picker sets the weights to it. Other words still must ("coder",
// "v0.2": another model).

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

// Words of a repo's name that say which post-training or release of the same
// shape it is: the sizing is the same, so a query need not match them.
const VARIANT = new Set(['instruct', 'it', 'chat', 'base', 'pt', 'hf']);
const RELEASE_DATE = /^\d{4}$/;
const optional = (word) => VARIANT.has(word) || RELEASE_DATE.test(word);

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
  const texts = [model.name, model.id, ...(model.repo ? [model.repo] : []), ...(model.aliases || [])];
  const names = texts.map(normalize);
  const words = new Set();
  for (const text of [...texts, model.family || '']) {
    const tokens = tokenize(text);
    tokens.forEach(({ word, parts }, i) => {
      words.add(word);
      for (const part of parts) words.add(part);
      // Two words typed as one: "gptoss" for gpt-oss, "commandr".
      const next = tokens[i + 1];
      if (next && /^[a-z]+$/.test(word) && /^[a-z]+$/.test(next.word)) words.add(word + next.word);
    });
  }
  return { id: model.id, names, words: [...words] };
}

/**
 * The query's tokens, each marked `optional` when it need not match: the
 * owner of a pasted repo id ("meta-llama/" in "meta-llama/Llama-3.1-8B"),
 * a variant word or a release date.
 */
function queryTokens(query, formats) {
  const text = String(query);
  const slash = text.lastIndexOf('/');
  const owner = slash < 0 ? [] : tokenize(text.slice(0, slash)).map((token) => ({ ...token, optional: true }));
  const name = tokenize(slash < 0 ? text : text.slice(slash + 1));
  const format = formatWords(name.map((token) => token.word), formats);
  return [...owner, ...name.map((token, i) => ({ ...token, optional: optional(token.word) || format.at.has(i) }))];
}

/**
 * The weights format that words (a query's, normalized) name, and which of
 * the words name it: a format's id word for word ("q4 k m" for q4_k_m,
 * "gptq int4"), or its first word alone ("awq" for awq-int4, "fp8"). The
 * longest such run wins; two formats named as well as each other (a bare
 * "q4": Q4_K_M, Q4_K_S or Q4_0) name none.
 */
function formatWords(words, formats) {
  let best = { id: null, at: new Set(), length: 0, tie: false };
  for (const format of formats) {
    const own = normalize(format.id).split(' ');
    for (let start = 0; start < words.length; start++) {
      let length = 0;
      while (length < own.length && words[start + length] === own[length]) length++;
      if (!length) continue;
      if (length > best.length) {
        best = { id: format.id, at: new Set(own.slice(0, length).map((_, k) => start + k)), length, tie: false };
      } else if (length === best.length && format.id !== best.id) {
        best.tie = true;
      }
    }
  }
  return best.tie ? { id: null, at: new Set() } : best;
}

/**
 * The weights format a query names (a repo id's "-FP8", "-AWQ",
 * "-GPTQ-Int4"), as one of `formats` ([{ id }], the catalog's weight
 * formats), or null. Only the model's name counts, not the repo's owner.
 */
export function namedFormat(query, formats) {
  const text = String(query);
  const name = text.slice(text.lastIndexOf('/') + 1);
  return formatWords(tokenize(name).map((token) => token.word), formats).id;
}

/**
 * Scores one entry against a query: 0 when a query token that must match
 * matches nothing (or none matches at all), else the sum of the tokens'
 * scores, plus a bonus when the query is the entry's whole name, repo or
 * one of its aliases.
 */
export function scoreEntry(entry, query, formats = []) {
  const tokens = queryTokens(query, formats);
  if (!tokens.length) return 0;
  let score = 0;
  for (const { word, parts, optional: skippable } of tokens) {
    const whole = bestScore(word, entry.words);
    // "gemma3" against "Gemma 3": every part must match on its own.
    // The parts' mean ranks "qwne3" nearer Qwen3 (slip + exact) than Qwen2.5 32B (slip + prefix).
    const partScores = parts.length > 1 ? parts.map((part) => bestScore(part, entry.words)) : [0];
    const split = partScores.includes(0) ? 0 : partScores.reduce((a, b) => a + b, 0) / partScores.length;
    const best = Math.max(whole, split);
    if (!best && !skippable) return 0;
    score += best;
  }
  if (!score) return 0;
  const text = normalize(query);
  if (entry.names.includes(text)) score += 100;
  return score;
}

/**
 * The models matching a query, best first (ties keep the catalog's order).
 * An empty query matches nothing: the caller shows the whole list.
 * `formats`: the catalog's weight formats, whose names a query may carry.
 */
export function searchModels(entries, query, formats = []) {
  return entries
    .map((entry, index) => ({ id: entry.id, score: scoreEntry(entry, query, formats), index }))
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((hit) => hit.id);
}
