// Building DOM without markup strings: text goes in as text, so nothing a
// user types, a URL carries or a config.json holds is ever parsed as HTML.

const SVG_NS = 'http://www.w3.org/2000/svg';

// `dataset` keys as attribute names: camelCase to data-kebab-case, as the
// DOMStringMap setter does, without its named-property path.
const dataName = (key) => `data-${/[A-Z]/.test(key) ? key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`) : key}`;

function build(element, attrs, children) {
  // for...in over the literal: no entries array per element (every change
  // rebuilds a few hundred of them).
  for (const name in attrs) {
    const value = attrs[name];
    if (value === undefined || value === null || value === false) continue;
    // 'on…': charCodeAt, not startsWith, on the hottest path of a redraw.
    if (typeof value === 'function' && name.charCodeAt(0) === 111 && name.charCodeAt(1) === 110) {
      element.addEventListener(name.slice(2), value);
    } else if (name === 'dataset') {
      for (const key in value) element.setAttribute(dataName(key), String(value[key]));
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  // One text child, the commonest case: set as the element's text.
  if (children.length === 1 && typeof children[0] === 'string' && !element.firstChild) element.textContent = children[0];
  else if (children.length) {
    // Nested lists of children, flattened in place and appended in one call.
    const nodes = [];
    collect(children, nodes);
    // One call for a few hundred; a huge list in slices (spread has a ceiling).
    for (let i = 0; i < nodes.length; i += 4096) element.append(...nodes.slice(i, i + 4096));
  }
  return element;
}

function collect(children, nodes) {
  for (const child of children) {
    if (Array.isArray(child)) collect(child, nodes);
    else if (child !== undefined && child !== null && child !== false) nodes.push(child instanceof Node ? child : String(child));
  }
}

/** h('p', { class: 'x' }, 'text', child) */
export function h(tag, attrs, ...children) {
  return build(document.createElement(tag), attrs, children);
}

/** The same for SVG elements. */
export function s(tag, attrs, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** Empties `element`, then appends `children` (skipping null and false). */
export function replace(element, ...children) {
  while (element.firstChild) element.firstChild.remove();
  return build(element, {}, children);
}
