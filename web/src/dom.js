// Building DOM without markup strings: text goes in as text, so nothing a
// user types, a URL carries or a config.json holds is ever parsed as HTML.
//
// h() builds elements at once. Inside patch(), the same calls describe
// them instead (plain objects), and patch() changes the live elements only
// where the description differs from the last one: an answer redrawn on
// every change keeps its elements, their focus and their scroll, and pays
// for what changed rather than for a few hundred new elements.
//
// Attributes: `onX` (a function) handles event X; `dataset` sets data-*;
// `css` sets CSS properties through the CSSOM (a style attribute would need
// CSP's style-src-attr); `ref` (a function) is called with the element when
// it is created; `true` is the empty attribute; null, undefined and false
// leave it out.

const SVG_NS = 'http://www.w3.org/2000/svg';

// `dataset` keys as attribute names: camelCase to data-kebab-case, as the
// DOMStringMap setter does, without its named-property path.
const dataName = (key) => `data-${/[A-Z]/.test(key) ? key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`) : key}`;

const absent = (value) => value === undefined || value === null || value === false;
// 'on…': charCodeAt, not startsWith, on the hottest path of a redraw.
const isHandler = (name, value) => typeof value === 'function' && name.charCodeAt(0) === 111 && name.charCodeAt(1) === 110;

// One listener per element and event type, calling the handler the element
// holds now: a patch swaps handlers without touching listeners.
function dispatch(event) {
  const handler = this.vramOn[event.type];
  return handler ? handler.call(this, event) : undefined;
}

function setHandler(element, type, handler) {
  if (!element.vramOn) element.vramOn = {};
  if (!(type in element.vramOn)) element.addEventListener(type, dispatch);
  element.vramOn[type] = handler;
}

/** Takes away what a description's attribute `name` (last `old`) set. */
function unset(element, name, old) {
  if (isHandler(name, old)) element.vramOn[name.slice(2)] = undefined;
  else if (name === 'dataset') for (const key in old) element.removeAttribute(dataName(key));
  else if (name === 'css') for (const key in old) element.style.removeProperty(key);
  else if (name !== 'ref') element.removeAttribute(name);
}

/** Applies `attrs` to `element`, given the attributes it was last given (`before`, or null). */
function applyAttrs(element, attrs, before) {
  for (const name in attrs) {
    const value = attrs[name];
    const old = before ? before[name] : undefined;
    if (name === 'open') {
      // A <details> the reader opens or closes changes it: kept as the
      // description says, against the element's own state.
      if (element.open !== !absent(value)) element.open = !absent(value);
      continue;
    }
    if (value === old) continue;
    if (absent(value)) {
      if (!absent(old)) unset(element, name, old);
    } else if (isHandler(name, value)) {
      setHandler(element, name.slice(2), value);
    } else if (name === 'dataset') {
      const had = absent(old) ? {} : old;
      for (const key in value) if (!(key in had) || String(value[key]) !== String(had[key])) element.setAttribute(dataName(key), String(value[key]));
      for (const key in had) if (!(key in value)) element.removeAttribute(dataName(key));
    } else if (name === 'css') {
      const had = absent(old) ? {} : old;
      for (const key in value) if (value[key] !== had[key]) element.style.setProperty(key, value[key]);
      for (const key in had) if (!(key in value)) element.style.removeProperty(key);
    } else if (name === 'ref') {
      // Only when the element is made.
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  // What the last description had and this one lacks.
  if (before) {
    for (const name in before) if (!(name in attrs) && !absent(before[name])) unset(element, name, before[name]);
  }
}

// Nested lists of children, flattened in place.
function collect(children, nodes) {
  for (const child of children) {
    if (Array.isArray(child)) collect(child, nodes);
    else if (!absent(child)) nodes.push(child instanceof Node || typeof child === 'object' ? child : String(child));
  }
  return nodes;
}

function build(element, attrs, children) {
  applyAttrs(element, attrs, null);
  // One text child, the commonest case: set as the element's text.
  if (children.length === 1 && typeof children[0] === 'string' && !element.firstChild) element.textContent = children[0];
  else if (children.length) {
    const nodes = collect(children, []).map(make);
    // One call for a few hundred; a huge list in slices (spread has a ceiling).
    for (let i = 0; i < nodes.length; i += 4096) element.append(...nodes.slice(i, i + 4096));
  }
  if (attrs && typeof attrs.ref === 'function') attrs.ref(element);
  return element;
}

/** A live node for a child: a string as text, a description as its element, a node as itself. */
function make(child) {
  if (typeof child === 'string' || child instanceof Node) return child;
  const element = child.ns ? document.createElementNS(child.ns, child.tag) : document.createElement(child.tag);
  element.vramAttrs = child.attrs;
  return build(element, child.attrs, child.children);
}

// Inside patch(): h() and s() describe instead of build.
let describing = 0;

/** h('p', { class: 'x' }, 'text', child) */
export function h(tag, attrs, ...children) {
  if (describing) return { tag, ns: null, attrs: attrs || {}, children };
  return build(document.createElement(tag), attrs || {}, children);
}

/** The same for SVG elements. */
export function s(tag, attrs, ...children) {
  if (describing) return { tag, ns: SVG_NS, attrs: attrs || {}, children };
  return build(document.createElementNS(SVG_NS, tag), attrs || {}, children);
}

/**
 * Sets a property only when it differs: writing `hidden`, a <select>'s
 * value or a checkbox's state, even to what it is, makes the browser redo
 * the work behind it (an attribute set, a mutation record, a style
 * invalidation, a walk of the options), dozens of times in a redraw.
 */
export function assign(element, name, value) {
  if (element[name] !== value) element[name] = value;
}

/** Empties `element`, then appends `children` (skipping null and false). */
export function replace(element, ...children) {
  while (element.firstChild) element.firstChild.remove();
  return build(element, {}, children);
}

/** Whether `node` can become `child` in place; if so, makes it so. */
function update(node, child) {
  if (typeof child === 'string') {
    if (node.nodeType !== 3) return false;
    if (node.data !== child) node.data = child;
    return true;
  }
  if (child instanceof Node) return node === child;
  // Only elements this module made from a description are changed in place.
  if (node.nodeType !== 1 || !node.vramAttrs || node.localName !== child.tag || (child.ns ? node.namespaceURI !== child.ns : node.namespaceURI === SVG_NS)) return false;
  applyAttrs(node, child.attrs, node.vramAttrs);
  node.vramAttrs = child.attrs;
  patchChildren(node, collect(child.children, []));
  return true;
}

/** A live node for a child, text included. */
const liveNode = (child) => (typeof child === 'string' ? document.createTextNode(child) : make(child));

function patchChildren(parent, children) {
  let node = parent.firstChild;
  for (const child of children) {
    if (node === null) {
      parent.appendChild(liveNode(child));
      continue;
    }
    const next = node.nextSibling;
    if (!update(node, child)) parent.replaceChild(liveNode(child), node);
    node = next;
  }
  while (node !== null) {
    const next = node.nextSibling;
    node.remove();
    node = next;
  }
}

/**
 * Makes `parent`'s children what `render()` describes: `render` runs with
 * h() and s() returning descriptions, and each live child that has the same
 * tag as its description, in the same place, is kept and changed where the
 * description changed since the last patch (text, attributes, handlers,
 * children); the rest are made anew. A description may hold live nodes;
 * they are placed as they are. What is not the description's own (an
 * attribute set by a script, a class an observer toggles) is left alone
 * unless the description itself changes it.
 */
export function patch(parent, render) {
  describing++;
  let children;
  try {
    children = render();
  } finally {
    describing--;
  }
  patchChildren(parent, collect(Array.isArray(children) ? children : [children], []));
}
