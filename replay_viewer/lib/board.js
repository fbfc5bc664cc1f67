// @ts-check
// A board as the API draws it (one SVG text per step), and the way a page shows the next step's board by
// patching the one on the page: only the pieces that changed are parsed, restyled, laid out and painted.

import { SVG, el } from "./dom.js";

// One step's board as the API drew it, kept as its text and an outline of that text: each
// element's tag, data-id, and where its markup, start tag and children lie. Outlining a board
// takes about a millisecond; parsing it whole into a DOM takes ten, so a board is parsed whole
// only when nothing is on the page yet, and otherwise only the pieces that changed are.
export class Board {
  constructor(text) {
    this.text = text;
    this.tree = undefined;
  }

  outline() {
    if (this.tree === undefined) this.tree = outlineOf(this.text);
    return this.tree;
  }
}

const TAG = /<(\/?)([A-Za-z_][\w:.-]*)([^>]*?)(\/?)>/g;
const ATTRIBUTE = /([A-Za-z_][\w:.-]*)="([^"]*)"/g;

// {tag, id, start, end, open (end of the start tag), kids} for the root element, or null when
// the text is not one well-formed element: markup outside tags is a text child.
function outlineOf(text) {
  const stack = [{ kids: [] }];
  let at = 0;
  TAG.lastIndex = 0;
  for (let found = TAG.exec(text); found; found = TAG.exec(text)) {
    const top = stack[stack.length - 1];
    if (found.index > at && stack.length > 1) top.kids.push({ tag: "#text", start: at, end: found.index, kids: [] });
    at = TAG.lastIndex;
    if (found[1]) { // a closing tag
      const node = stack.pop();
      if (stack.length === 0 || node.tag !== found[2]) return null;
      node.end = at;
      continue;
    }
    const ident = /\sdata-id="([^"]*)"/.exec(found[3]);
    const node = { tag: found[2], id: ident ? ident[1] : null, start: found.index, end: at, open: at, kids: [] };
    top.kids.push(node);
    if (!found[4]) stack.push(node);
  }
  const roots = stack.length === 1 ? stack[0].kids.filter((k) => k.tag !== "#text") : [];
  return roots.length === 1 && roots[0].tag === "svg" ? roots[0] : null;
}

const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
const unescape = (text) => text.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (whole, name) => (name[0] === "#"
  ? String.fromCodePoint(name[1] === "x" ? parseInt(name.slice(2), 16) : Number(name.slice(1)))
  : ENTITIES[name] ?? whole));

function attributesOf(text, node) {
  const found = new Map();
  const tag = text.slice(node.start, node.open);
  ATTRIBUTE.lastIndex = 0;
  for (let m = ATTRIBUTE.exec(tag); m; m = ATTRIBUTE.exec(tag)) if (m[1] !== "xmlns") found.set(m[1], unescape(m[2]));
  return found;
}

// Page nodes for some markup of a board: parsed inside an <svg> so they land in the SVG namespace.
function parsePieces(markup) {
  const parsed = new DOMParser().parseFromString(`<svg xmlns="${SVG}">${markup}</svg>`, "image/svg+xml").documentElement;
  return [...document.importNode(parsed, true).childNodes];
}

const samePiece = (a, b) => a.tag === b.tag && (a.tag === "#text" || a.id === b.id);

// Make the page's node `live`, drawn from outline `a` of text `was`, equal to outline `b` of text
// `now`, touching only what differs: a step changes a few pieces of a board of thousands of
// elements, and only those are parsed, restyled, laid out and painted again. Children are matched
// from both ends, so a piece added to or removed from a list replaces only the middle.
export function patch(live, was, a, now, b) {
  const before = was.slice(a.start, a.end);
  if (before === now.slice(b.start, b.end)) return;
  if (!samePiece(a, b) || live.nodeName !== (a.tag === "#text" ? "#text" : a.tag)) {
    live.replaceWith(...parsePieces(now.slice(b.start, b.end)));
    return;
  }
  if (a.tag === "#text") {
    live.data = unescape(now.slice(b.start, b.end));
    return;
  }
  if (was.slice(a.start, a.open) !== now.slice(b.start, b.open)) {
    const old = attributesOf(was, a);
    attributesOf(now, b).forEach((value, name) => {
      if (old.get(name) !== value) live.setAttribute(name, value);
      old.delete(name);
    });
    old.forEach((_, name) => live.removeAttribute(name));
  }
  const kids = [...live.childNodes];
  if (kids.length !== a.kids.length) { // not drawn from `a` after all: redraw the whole piece
    live.replaceWith(...parsePieces(now.slice(b.start, b.end)));
    return;
  }
  let head = 0;
  while (head < a.kids.length && head < b.kids.length && samePiece(a.kids[head], b.kids[head])) head++;
  let tailA = a.kids.length;
  let tailB = b.kids.length;
  while (tailA > head && tailB > head && samePiece(a.kids[tailA - 1], b.kids[tailB - 1])) { tailA--; tailB--; }
  if (tailA > head || tailB > head) {
    for (let i = head; i < tailA; i++) kids[i].remove();
    const added = tailB > head ? parsePieces(now.slice(b.kids[head].start, b.kids[tailB - 1].end)) : [];
    const anchor = tailA < kids.length ? kids[tailA] : null;
    added.forEach((node) => live.insertBefore(node, anchor));
  }
  for (let i = 0; i < head; i++) patch(kids[i], was, a.kids[i], now, b.kids[i]);
  for (let i = 0; i < a.kids.length - tailA; i++) patch(kids[tailA + i], was, a.kids[tailA + i], now, b.kids[tailB + i]);
}

// A whole board parsed into page nodes, or null when its text is not an SVG drawing.
export function parseBoard(text) {
  const root = new DOMParser().parseFromString(text, "image/svg+xml").documentElement;
  return root.nodeName === "svg" && !root.querySelector("parsererror") ? document.importNode(root, true) : null;
}

// The board in words: the sentences the drawing carries (replay_viewer/boards `with_words`, the title's
// `aloud.board`), written into `list` for a screen reader, only the lines that changed; the picture itself is
// silent (aria-hidden), so a reader hears sentences of the game's words instead of its digits and codes.
export function sayBoard(list, drawing) {
  const said = drawing ? [...drawing.querySelectorAll("metadata[data-id=words] > *")].map((n) => n.textContent || "") : [];
  said.forEach((text, i) => {
    const item = list.children[i];
    if (!item) list.appendChild(el("li", text));
    else if (item.textContent !== text) item.textContent = text;
  });
  while (list.children.length > said.length) list.lastElementChild.remove();
}

// How a phone opens a board (the layout's `phone:` entry, on the drawing's root as data-phone="scale x y"):
// drawn `scale` CSS pixels a viewBox unit, so its text is read without zooming, in the panning box `pan`,
// scrolled so the point (x, y) of the board is in the middle. Sets --board-width on `pan`; true when the
// drawing says how (a drawing without data-phone fits the screen as before).
export function fitPhone(pan, drawing, scroll) {
  const phone = (drawing && drawing.getAttribute("data-phone") || "").split(" ").map(Number);
  const box = (drawing && drawing.getAttribute("viewBox") || "").split(/[\s,]+/).map(Number);
  if (phone.length !== 3 || box.length !== 4 || !phone.every(Number.isFinite) || !(box[2] > 0)) return false;
  const [scale, x, y] = phone;
  pan.style.setProperty("--board-width", `${Math.round(box[2] * scale)}px`);
  // a box the reader pans is a stop of the tab order (the keys that scroll it step the board there too)
  if (pan.scrollWidth > pan.clientWidth || pan.scrollHeight > pan.clientHeight) pan.tabIndex = 0;
  else pan.removeAttribute("tabindex");
  if (scroll) {
    pan.scrollLeft = Math.max(0, (x - box[0]) * scale - pan.clientWidth / 2);
    pan.scrollTop = Math.max(0, (y - box[1]) * scale - pan.clientHeight / 2);
  }
  return true;
}

const SHAPE_MARGIN_PX = 36; // room kept around the shapes' places: an arrow's head, a ring, a label

/**
 * A phone's pan box (fitPhone) scrolled so the places a set of shapes is drawn on are in sight: all of them when
 * they fit, else the last arrow's head (which way it points), or the last shape's place when none is an arrow. A box with nothing to scroll is left as it
 * is. Returns whether it scrolled.
 * @param {HTMLElement} pan
 * @param {SVGSVGElement} layer the drawing layer over the board, in the board's coordinates
 * @param {Record<string, {x: number, y: number}>} anchors the board's places
 * @param {Array<{kind: string, at?: string, from?: string, to?: string}>} shapes
 */
export function showShapes(pan, layer, anchors, shapes) {
  if (pan.scrollWidth <= pan.clientWidth + 1 && pan.scrollHeight <= pan.clientHeight + 1) return false;
  const ctm = layer.getScreenCTM();
  if (!ctm) return false;
  const at = (name) => (anchors[name] ? new DOMPoint(anchors[name].x, anchors[name].y).matrixTransform(ctm) : null);
  const points = shapes.flatMap((s) => (s.kind === "arrow" ? [s.from, s.to] : [s.at])).map(at).filter(Boolean);
  if (!points.length) return false;
  const box = pan.getBoundingClientRect();
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const fits = Math.max(...xs) - Math.min(...xs) + 2 * SHAPE_MARGIN_PX <= pan.clientWidth
    && Math.max(...ys) - Math.min(...ys) + 2 * SHAPE_MARGIN_PX <= pan.clientHeight;
  const arrows = shapes.filter((s) => s.kind === "arrow" && anchors[s.to]);
  const last = arrows.length ? at(arrows[arrows.length - 1].to) : points[points.length - 1]; // which way it points
  const [cx, cy] = fits ? [(Math.max(...xs) + Math.min(...xs)) / 2, (Math.max(...ys) + Math.min(...ys)) / 2] : [last.x, last.y];
  const inSight = points.every((p) => p.x >= box.left + SHAPE_MARGIN_PX && p.x <= box.left + pan.clientWidth - SHAPE_MARGIN_PX
    && p.y >= box.top + SHAPE_MARGIN_PX && p.y <= box.top + pan.clientHeight - SHAPE_MARGIN_PX);
  if (fits && inSight) return false;
  pan.scrollLeft += cx - (box.left + pan.clientWidth / 2);
  pan.scrollTop += cy - (box.top + pan.clientHeight / 2);
  return true;
}

const PLACE_NAMES = "cronaca:place-names";

/**
 * The "names of the places" switch. A board whose drawing holds its places' names (`g.place-names`, hidden by
 * default: La Città's lane hexes, which the printed board leaves unnamed and a table's notation writes as `L41`)
 * shows them over the pieces while the switch is pressed; the choice is kept for the next page. The switch itself
 * shows only beside a board that has names (viewer.css).
 * @param {HTMLButtonElement} button
 * @param {HTMLElement} holder the board's box, whose class shows the names
 */
export function placeNames(button, holder) {
  /** @param {boolean} on */
  const set = (on) => {
    holder.classList.toggle("show-place-names", on);
    button.setAttribute("aria-pressed", String(on));
  };
  let kept = null;
  try { kept = localStorage.getItem(PLACE_NAMES); } catch { /* storage refused: the switch still works */ }
  set(kept === "on");
  button.addEventListener("click", () => {
    const on = button.getAttribute("aria-pressed") !== "true";
    set(on);
    try { localStorage.setItem(PLACE_NAMES, on ? "on" : "off"); } catch { /* not kept, still shown */ }
  });
}
