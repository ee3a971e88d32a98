// The message catalog. Every visible string of the page comes from here;
// Arabic and Persian catalogs plug in beside English with the same keys.
import en from './messages/en.js';
import { createRenderer } from './messages.js';
import enMessages from '../../data/messages/en.json';

const catalogs = { en };

/** Languages written right to left. */
const RTL = new Set(['ar', 'fa', 'he', 'ur']);

export function direction(lang) {
  return RTL.has(String(lang).split('-')[0]) ? 'rtl' : 'ltr';
}

/**
 * A translator for `lang`, falling back to English key by key. Parameters
 * fill {name} placeholders; the result is plain text, never markup.
 */
export function translator(lang) {
  const base = String(lang || 'en').split('-')[0];
  const messages = catalogs[base] || en;
  return (key, params = {}) => {
    const template = messages[key] ?? en[key];
    if (template === undefined) return key;
    return template.replace(/\{(\w+)\}/g, (_, name) =>
      params[name] === undefined ? `{${name}}` : String(params[name]),
    );
  };
}

const messageCatalogs = { en: enMessages };

/**
 * The core's answers in words: a function from a message {id, params}
 * (term labels, formulas, assumptions, warnings, reasons) to plain text,
 * for `lang` and a display unit ('GB' or 'GiB').
 */
export function messageRenderer(lang, unit) {
  return createRenderer({ catalogs: messageCatalogs, lang: lang || 'en', unit }).render;
}

/** A problem { code, ...values } from state.js or config.js, in words. */
export function problemText(t, error) {
  return t(`problem.${error.code}`, error);
}

export const languages = Object.keys(catalogs);
