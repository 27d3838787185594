// @ts-check
/**
 * The console's only DOM helper: elements are built from data, never from HTML strings, so that
 * nothing a server sends (a tool name, a description, a result) can become markup.
 */

/**
 * @typedef {string | number | Node | null | undefined | false} Child
 * @typedef {Record<string, unknown>} Attributes
 */

/**
 * What is set as a property rather than an attribute: the live state of a control (an attribute
 * is only its initial value) and `spellcheck`, whose `false` means something.
 */
const PROPERTIES = new Set(['value', 'checked', 'selected', 'indeterminate', 'spellcheck']);

/**
 * Creates an element. In `attributes`, a function under `on<Event>` is added as a listener,
 * `value`, `checked`, `selected`, `indeterminate` and `spellcheck` are set as properties (`false`
 * included), anything else as an attribute (`true` as a bare attribute; `null`, `undefined` and
 * `false` left out). Children are nodes or text; `null`, `undefined` and `false` are skipped.
 *
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attributes} [attributes]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (PROPERTIES.has(name) && value !== null && value !== undefined) {
      /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (element))[name] = value;
    } else if (value === null || value === undefined || value === false) {
      continue;
    } else if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2).toLowerCase(), /** @type {EventListener} */ (value));
    } else {
      element.setAttribute(
        name === 'className' ? 'class' : name,
        value === true ? '' : typeof value === 'string' ? value : JSON.stringify(value),
      );
    }
  }
  append(element, children);
  return element;
}

/**
 * Appends children (nodes or text) to an element.
 *
 * @param {Element} element
 * @param {Array<Child | Child[]>} children
 */
export function append(element, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) {
      continue;
    }
    element.append(child instanceof Node ? child : String(child));
  }
}

/**
 * Removes every child of an element.
 *
 * @param {Element} element
 */
export function clear(element) {
  element.replaceChildren();
}

let counter = 0;

/**
 * An id unique in the page, for `for=` / `aria-labelledby` / `aria-describedby`.
 *
 * @param {string} prefix
 * @returns {string}
 */
export function uid(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}
