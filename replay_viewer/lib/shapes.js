// @ts-check
// Shapes over a board: arrows, highlight rings and labels drawn, as Lichess studies draw them, in an
// SVG overlay that shares the board drawing's viewBox, so a place's anchor (the API's
// /api/records/{id}/places, in the board's own units) lands on the place at every size.
// The record page's study layer and the lesson page both draw with it:
//
//   const layer = overlay(host);          // once: an <svg> laid over `host`
//   draw(layer, note.shapes, places, viewBox, {pending: "venezia"});
//
// `shapes` are the API's: {kind: "arrow", from, to, brush} | {kind: "highlight", at, brush} |
// {kind: "label", at, text, brush}; a shape naming a place the anchors lack is skipped (and counted).
const SVG = "http://www.w3.org/2000/svg";
// Lichess's four brushes (chessground's green/red/blue/yellow).
export const BRUSHES = { green: "#15781B", red: "#882020", blue: "#003088", yellow: "#e68f00" };
export const BRUSH_NAMES = Object.keys(BRUSHES);
export const GLYPHS = ["!", "?", "!!", "??", "!?", "?!"];
export const GLYPH_WORDS = { "!": "good move", "?": "mistake", "!!": "brilliant move", "??": "blunder",
  "!?": "interesting move", "?!": "dubious move" };

function make(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  Object.entries(attrs).forEach(([k, v]) => {
    if (v !== undefined && v !== null) node.setAttribute(k, String(v));
  });
  if (text !== undefined) node.textContent = text;
  return node;
}

// [x, y, w, h] from an array, a "x y w h" string or an <svg> element (its viewBox).
export function parseViewBox(box) {
  if (!box) return null;
  if (box instanceof Element) box = box.getAttribute("viewBox");
  const numbers = Array.isArray(box) ? box.map(Number) : String(box).trim().split(/[\s,]+/).map(Number);
  return numbers.length === 4 && numbers.every(Number.isFinite) && numbers[2] > 0 && numbers[3] > 0 ? numbers : null;
}

const brushOf = (shape) => (BRUSHES[shape && shape.brush] ? shape.brush : "green");

// One name -> the anchors' own spelling (matching is case-insensitive, as the API's).
const keysCache = new WeakMap();
export function canonical(anchors, name) {
  if (!anchors || name === undefined || name === null) return null;
  if (Object.prototype.hasOwnProperty.call(anchors, name)) return name;
  let keys = keysCache.get(anchors);
  if (!keys) {
    keys = new Map(Object.keys(anchors).map((k) => [k.toLowerCase(), k]));
    keysCache.set(anchors, keys);
  }
  return keys.get(String(name).toLowerCase()) || null;
}

// The size of the board's "unit": a hundredth of its shorter side; lines and text scale with it.
const unitOf = (vb) => Math.min(vb[2], vb[3]) / 100;

// Each place's ring radius: half the way to its nearest neighbour, kept between 1.3 and 4 units,
// so rings on a crowded track do not swallow their neighbours and lone ports stay visible.
const radiiCache = new WeakMap();
export function radii(anchors, viewBox) {
  const vb = parseViewBox(viewBox) || [0, 0, 100, 100];
  const key = vb.join(" ");
  const known = radiiCache.get(anchors);
  if (known && known.key === key) return known.radii;
  const u = unitOf(vb);
  const names = Object.keys(anchors || {});
  const points = names.map((n) => [Number(anchors[n].x), Number(anchors[n].y)]);
  const out = new Map();
  // a grid of cells (4 units wide) keeps this near-linear for boards with hundreds of places
  const cell = 4 * u;
  const grid = new Map();
  points.forEach(([x, y], i) => {
    const k = `${Math.floor(x / cell)},${Math.floor(y / cell)}`;
    if (!grid.has(k)) grid.set(k, []);
    grid.get(k).push(i);
  });
  points.forEach(([x, y], i) => {
    let best = Infinity;
    const cx = Math.floor(x / cell);
    const cy = Math.floor(y / cell);
    for (let dx = -2; dx <= 2; dx++) {
      for (let dy = -2; dy <= 2; dy++) {
        (grid.get(`${cx + dx},${cy + dy}`) || []).forEach((j) => {
          if (j === i) return;
          const d = Math.hypot(points[j][0] - x, points[j][1] - y);
          if (d > 0.01 * u && d < best) best = d;
        });
      }
    }
    out.set(names[i], Math.max(1.3 * u, Math.min(4 * u, best / 2)));
  });
  radiiCache.set(anchors, { key, radii: out });
  return out;
}

const labelOf = (anchors, place) => {
  const name = canonical(anchors, place);
  return name ? anchors[name].label || name : String(place);
};

// One sentence for a shape (the overlay's accessible text and the notes list say it).
export function describe(shape, anchors) {
  const brush = brushOf(shape);
  if (shape.kind === "arrow") return `${brush} arrow from ${labelOf(anchors, shape.from)} to ${labelOf(anchors, shape.to)}`;
  if (shape.kind === "highlight") return `${labelOf(anchors, shape.at)} highlighted in ${brush}`;
  if (shape.kind === "label") return `label “${shape.text || ""}” in ${brush} on ${labelOf(anchors, shape.at)}`;
  return `a ${shape.kind || "shape"}`;
}

// The <svg> laid over `host` (made once; `host` becomes the positioning box). The overlay lets
// pointer events through to the board, so the board's own tooltips keep working.
export function overlay(host, viewBox) {
  let layer = host.querySelector(":scope > svg.cronaca-shapes");
  if (!layer) {
    if (getComputedStyle(host).position === "static") host.style.position = "relative";
    layer = make("svg", { class: "cronaca-shapes" });
    speak(layer, []);
    Object.assign(layer.style, { position: "absolute", left: "0", top: "0", width: "100%", height: "100%",
      pointerEvents: "none", overflow: "visible" });
    host.appendChild(layer);
  }
  const vb = parseViewBox(viewBox);
  if (vb) layer.setAttribute("viewBox", vb.join(" "));
  return layer;
}

// What a screen reader hears of the layer: its shapes in words, and nothing at all while it is empty
// (an image named "no shapes" on every step was noise).
function speak(layer, said) {
  if (said.length) {
    layer.removeAttribute("aria-hidden");
    layer.setAttribute("role", "img");
    layer.setAttribute("aria-label", said.join("; "));
  } else {
    layer.setAttribute("aria-hidden", "true");
    layer.removeAttribute("role");
    layer.removeAttribute("aria-label");
  }
}

export function clear(layer) {
  layer.querySelectorAll(":scope > .shape, :scope > .pending").forEach((n) => n.remove());
  speak(layer, []);
}

function arrow(shape, a, b, u, ra, rb) {
  const colour = BRUSHES[brushOf(shape)];
  const g = make("g", { class: "shape arrow", "data-kind": "arrow", "data-from": shape.from, "data-to": shape.to,
    "data-brush": brushOf(shape), opacity: 0.82 });
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const length = Math.hypot(dx, dy) || 1;
  const ux = dx / length;
  const uy = dy / length;
  const width = 0.75 * u;
  const head = 2.6 * u;
  const start = Math.min(ra * 0.35, length / 4);
  const tip = Math.max(length - Math.min(rb * 0.35, length / 4), start + head);
  const base = tip - head;
  const at = (d, side = 0) => [a.x + ux * d - uy * side, a.y + uy * d + ux * side];
  const [x1, y1] = at(start);
  const [x2, y2] = at(Math.max(start, base + 0.2 * u));
  const halo = make("line", { x1, y1, x2, y2, stroke: "#fff", "stroke-width": width + 0.5 * u, "stroke-linecap": "round",
    opacity: 0.6 });
  const line = make("line", { x1, y1, x2, y2, stroke: colour, "stroke-width": width, "stroke-linecap": "round" });
  const points = [at(tip), at(base, head * 0.62), at(base, -head * 0.62)].map((p) => p.map((v) => v.toFixed(2)).join(",")).join(" ");
  const headHalo = make("polygon", { points, fill: "none", stroke: "#fff", "stroke-width": 0.5 * u, opacity: 0.6,
    "stroke-linejoin": "round" });
  const headFill = make("polygon", { points, fill: colour });
  g.append(halo, headHalo, line, headFill);
  return g;
}

function ring(shape, p, u, r) {
  const colour = BRUSHES[brushOf(shape)];
  const g = make("g", { class: "shape highlight", "data-kind": "highlight", "data-at": shape.at, "data-brush": brushOf(shape),
    opacity: 0.85 });
  g.append(make("circle", { cx: p.x, cy: p.y, r, fill: "none", stroke: "#fff", "stroke-width": 0.9 * u, opacity: 0.6 }),
    make("circle", { cx: p.x, cy: p.y, r, fill: colour, "fill-opacity": 0.12, stroke: colour, "stroke-width": 0.6 * u }));
  return g;
}

// A label sits up and to the right of its place, so the place's own name stays readable under it.
function badge(shape, spot, u) {
  const p = { x: spot.x + spot.r * 0.75, y: spot.y - spot.r * 0.75 };
  const colour = BRUSHES[brushOf(shape)];
  const text = String(shape.text || "").slice(0, 24);
  const size = 3.2 * u;
  const width = Math.max(size * 1.1, text.length * size * 0.62 + size * 0.6);
  const g = make("g", { class: "shape label", "data-kind": "label", "data-at": shape.at, "data-brush": brushOf(shape) });
  g.append(make("rect", { x: p.x - width / 2, y: p.y - size * 0.7, width, height: size * 1.4, rx: size * 0.7,
    fill: colour, stroke: "#fff", "stroke-width": 0.35 * u, opacity: 0.92 }),
  make("text", { x: p.x, y: p.y, "text-anchor": "middle", "dominant-baseline": "central", fill: "#fff",
    "font-size": size, "font-weight": 700, "font-family": "system-ui, sans-serif" }, text));
  return g;
}

// Draw `shapes` (replacing what this overlay showed). options: {pending: place} marks the start
// of an arrow being drawn; {focus: place} marks the place the keyboard is on; {brush} colours both.
// Returns {drawn, skipped}: shapes drawn, and shapes naming places the anchors do not have.
export function draw(layer, shapes, anchors, viewBox, options = {}) {
  const vb = parseViewBox(viewBox) || parseViewBox(layer) || [0, 0, 100, 100];
  layer.setAttribute("viewBox", vb.join(" "));
  clear(layer);
  const u = unitOf(vb);
  const r = anchors ? radii(anchors, vb) : new Map();
  const spot = (place) => {
    const name = canonical(anchors, place);
    return name ? { name, x: Number(anchors[name].x), y: Number(anchors[name].y), r: r.get(name) || 2 * u } : null;
  };
  let drawn = 0;
  let skipped = 0;
  const said = [];
  // rings under arrows under labels, as Lichess layers them
  const order = { highlight: 0, arrow: 1, label: 2 };
  const sorted = [...(shapes || [])].sort((x, y) => (order[x.kind] ?? 3) - (order[y.kind] ?? 3));
  sorted.forEach((shape) => {
    let node = null;
    if (shape.kind === "arrow") {
      const a = spot(shape.from);
      const b = spot(shape.to);
      if (a && b && a.name === b.name) node = ring({ ...shape, at: a.name }, a, u, a.r);
      else if (a && b) node = arrow(shape, a, b, u, a.r, b.r);
    } else if (shape.kind === "highlight") {
      const p = spot(shape.at);
      if (p) node = ring(shape, p, u, p.r);
    } else if (shape.kind === "label") {
      const p = spot(shape.at);
      if (p) node = badge(shape, p, u);
    }
    if (!node) {
      skipped += 1;
      return;
    }
    node.appendChild(make("title", {}, describe(shape, anchors)));
    said.push(describe(shape, anchors));
    layer.appendChild(node);
    drawn += 1;
  });
  const colour = BRUSHES[options.brush] || BRUSHES.green;
  const focus = spot(options.focus);
  if (focus) {
    layer.appendChild(make("circle", { class: "pending focus", cx: focus.x, cy: focus.y, r: focus.r + 0.6 * u, fill: "none",
      stroke: "#222", "stroke-width": 0.45 * u, "stroke-dasharray": `${u} ${0.7 * u}` }));
  }
  const pending = spot(options.pending);
  if (pending) {
    layer.appendChild(make("circle", { class: "pending start", "data-at": pending.name, cx: pending.x, cy: pending.y,
      r: pending.r, fill: colour, "fill-opacity": 0.35, stroke: colour, "stroke-width": 0.5 * u }));
  }
  speak(layer, said);
  layer.dataset.shapes = String(drawn);
  return { drawn, skipped };
}

// A client (mouse) point in the overlay's viewBox units.
export function pointIn(layer, clientX, clientY) {
  const matrix = layer.getScreenCTM();
  if (!matrix) return null;
  const p = new DOMPoint(clientX, clientY).matrixTransform(matrix.inverse());
  return { x: p.x, y: p.y };
}

// The place nearest a viewBox point, if the point is within reach of it (its ring, or 6 units).
export function nearest(anchors, x, y, viewBox) {
  const vb = parseViewBox(viewBox) || [0, 0, 100, 100];
  const r = radii(anchors, vb);
  let best = null;
  let bestD = Infinity;
  Object.entries(anchors || {}).forEach(([name, a]) => {
    const d = Math.hypot(Number(a.x) - x, Number(a.y) - y);
    if (d < bestD) { best = name; bestD = d; }
  });
  if (best === null) return null;
  return bestD <= Math.max(r.get(best) * 1.6, 6 * unitOf(vb)) ? best : null;
}

// The place under a mouse event over the overlay's box, or null.
export function placeAt(layer, anchors, clientX, clientY) {
  const p = pointIn(layer, clientX, clientY);
  return p ? nearest(anchors, p.x, p.y, parseViewBox(layer)) : null;
}

// Places in reading order (top to bottom, then left to right, in rows a unit or two tall): the
// order a keyboard walks them.
export function readingOrder(anchors, viewBox) {
  const u = unitOf(parseViewBox(viewBox) || [0, 0, 100, 100]);
  return Object.keys(anchors || {}).sort((a, b) => {
    const ra = Math.round(Number(anchors[a].y) / (3 * u));
    const rb = Math.round(Number(anchors[b].y) / (3 * u));
    return ra - rb || Number(anchors[a].x) - Number(anchors[b].x) || a.localeCompare(b);
  });
}

// The place from `from` that lies most nearly in a direction (dx, dy): arrow keys on a board.
export function neighbour(anchors, from, dx, dy) {
  const a = anchors[from];
  if (!a) return null;
  let best = null;
  let bestScore = Infinity;
  Object.entries(anchors).forEach(([name, b]) => {
    if (name === from) return;
    const vx = Number(b.x) - Number(a.x);
    const vy = Number(b.y) - Number(a.y);
    const along = vx * dx + vy * dy;
    if (along <= 0) return;
    const across = Math.abs(vx * dy - vy * dx);
    const score = along + 2.5 * across;
    if (score < bestScore) { bestScore = score; best = name; }
  });
  return best;
}
