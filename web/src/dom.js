// Building DOM without markup strings: text goes in as text, so nothing a
// user types, a URL carries or a config.json holds is ever parsed as HTML.

const SVG_NS = 'http://www.w3.org/2000/svg';

function build(element, attrs, children) {
  // for...in over the literal: no entries array per element (every change
  // rebuilds a few hundred of them).
  for (const name in attrs) {
    const value = attrs[name];
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (name === 'dataset') {
      Object.assign(element.dataset, value);
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  // One text child, the commonest case: set as the element's text.
  if (children.length === 1 && typeof children[0] === 'string' && !element.firstChild) element.textContent = children[0];
  else appendAll(element, children);
  return element;
}

// Nested lists of children, walked in place: every change rebuilds the
// answer's elements, and flat(Infinity) copied each one's children first.
function appendAll(element, children) {
  for (const child of children) {
    if (Array.isArray(child)) appendAll(element, child);
    else if (child !== undefined && child !== null && child !== false) element.append(child instanceof Node ? child : String(child));
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
