// @ts-check
// DOM helpers every page shares: one way to find an element, make one, and make an SVG one.

export const SVG = "http://www.w3.org/2000/svg";

/**
 * A page's element by its id. The page's own HTML fixes the element's kind: name it (`$("slider", "input")`)
 * and the checker knows its properties; without a kind it is an HTMLElement.
 * @template {keyof HTMLElementTagNameMap} [K="div"]
 * @param {string} id
 * @param {K} [kind] the element's tag, for the checker only
 * @returns {HTMLElementTagNameMap[K]}
 */
export const $ = (id, kind) => /** @type {any} */ (document.getElementById(id));

/**
 * A new element with its text and class (either may be left out; null or undefined text writes none).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string | null} [text]
 * @param {string} [cls]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

/**
 * A new SVG element with its attributes (each written as text).
 * @param {string} tag
 * @param {Record<string, string | number | boolean>} [attrs]
 * @returns {SVGElement}
 */
export function svg(tag, attrs = {}) {
  const node = /** @type {SVGElement} */ (document.createElementNS(SVG, tag));
  Object.entries(attrs).forEach(([k, v]) => node.setAttribute(k, String(v)));
  return node;
}

/**
 * A plain button (type=button) that calls `onClick`.
 * @param {string} text
 * @param {string} cls
 * @param {(e: MouseEvent) => void} onClick
 * @param {string} [title]
 * @returns {HTMLButtonElement}
 */
export function button(text, cls, onClick, title) {
  const b = el("button", text, cls);
  b.type = "button";
  if (title) b.title = title;
  b.addEventListener("click", onClick);
  return b;
}

/**
 * A symbol that is seen, not said ("◀", "✕", "↩"): hidden from a screen reader, which would read its Unicode name
 * ("black left-pointing triangle") before the words beside it.
 * @param {string} symbol
 * @returns {HTMLSpanElement}
 */
export function seenOnly(symbol) {
  const node = el("span", symbol, "symbol");
  node.setAttribute("aria-hidden", "true");
  return node;
}

/**
 * A plain button of a symbol and words ("◀ back"): the symbol seen only, the words its name. A symbol alone ("✕")
 * is named by `title`, what the button does.
 * @param {string} symbol
 * @param {string} words
 * @param {string} cls
 * @param {(e: MouseEvent) => void} onClick
 * @param {string} title
 * @returns {HTMLButtonElement}
 */
export function symbolButton(symbol, words, cls, onClick, title) {
  const b = button("", cls, onClick, title);
  b.append(seenOnly(symbol));
  if (words) b.append(" " + words);
  else b.setAttribute("aria-label", title);
  return b;
}

/**
 * A copy of a page's <template id=...> content: a panel's markup lives in the HTML, its data is filled in here.
 * @param {string} id
 * @returns {DocumentFragment}
 */
export function fromTemplate(id) {
  const template = /** @type {HTMLTemplateElement} */ (document.getElementById(id));
  return /** @type {DocumentFragment} */ (template.content.cloneNode(true));
}

// Work for a moment when the page is idle (within half a second): what a key press must not wait for.
const idle = window.requestIdleCallback || ((job) => setTimeout(job, 1));
/** @param {() => void} job */
export function whenIdle(job) {
  idle(job, { timeout: 500 });
}

/**
 * The elements under `root` that match `selector`, as an array.
 * @param {ParentNode} root
 * @param {string} selector
 * @returns {HTMLElement[]}
 */
export const all = (root, selector) => /** @type {HTMLElement[]} */ ([...root.querySelectorAll(selector)]);

/**
 * An event's target as the element it is (the page's own listeners are on elements).
 * @param {Event} e
 * @returns {HTMLElement}
 */
export const targetOf = (e) => /** @type {HTMLElement} */ (e.target);

/**
 * A form's control by its name (typed as an input: a select's or a textarea's value reads alike).
 * @param {HTMLFormElement} form
 * @param {string} name
 * @returns {HTMLInputElement}
 */
export const field = (form, name) => /** @type {HTMLInputElement} */ (form.elements.namedItem(name));
