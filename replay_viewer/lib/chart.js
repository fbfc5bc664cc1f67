// @ts-check
// What the record page's charts share (the scores, and the analysis's expected standing): each seat's colour and
// dash, its line, and the legend that names them.

import { el, svg } from "./dom.js";

// Okabe–Ito colours (told apart by colour-blind readers) and a dash per seat, so no line relies on colour alone.
export const COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#8F6A00", "#56B4E9"];
export const DASHES = ["", "8 4", "2 3", "10 3 2 3", "4 4", "1 2"];

/** The i-th seat's colour. @param {number} i */
export const colour = (i) => COLOURS[Math.max(0, i) % COLOURS.length];

/**
 * The i-th seat's line through `points` ("x,y x,y ..."), its dash, and a tooltip naming it.
 * @param {number} i @param {string} points @param {number} seat @param {string} tip
 */
export function seatLine(i, points, seat, tip) {
  const line = svg("polyline", { points, fill: "none", stroke: colour(i), "stroke-width": 2.5, class: "seat-line",
    "data-seat": seat });
  if (DASHES[i % DASHES.length]) line.setAttribute("stroke-dasharray", DASHES[i % DASHES.length]);
  const title = svg("title");
  title.textContent = tip;
  line.appendChild(title);
  return line;
}

/** The legend under a chart: each seat's sample line and name, in seat order. @param {string[]} names */
export function seatLegend(names) {
  const legend = el("ul", undefined, "legend");
  names.forEach((name, i) => {
    const item = el("li");
    const sample = svg("svg", { width: 36, height: 10, "aria-hidden": "true" });
    const stroke = svg("line", { x1: 0, x2: 36, y1: 5, y2: 5, stroke: colour(i), "stroke-width": 3 });
    if (DASHES[i % DASHES.length]) stroke.setAttribute("stroke-dasharray", DASHES[i % DASHES.length]);
    sample.appendChild(stroke);
    item.appendChild(sample);
    item.appendChild(el("span", " " + name));
    legend.appendChild(item);
  });
  return legend;
}

/**
 * Round marks (La Città: years) on a chart's x axis, each rule drawn, labelled as often as there is room.
 * @param {SVGElement} chart @param {{step: number, round: number}[]} rounds @param {(step: number) => number | string} xOf
 * @param {number} top @param {number} bottom the y of the axis @param {number} most labels at the most
 */
export function roundMarks(chart, rounds, xOf, top, bottom, most) {
  const every = Math.max(1, Math.ceil(rounds.length / most));
  rounds.forEach((r, k) => {
    const x = xOf(r.step);
    chart.appendChild(svg("line", { x1: x, x2: x, y1: top, y2: bottom + 4, class: "round-mark" }));
    if (k % every === 0) {
      const label = svg("text", { x, y: bottom + 16, "text-anchor": "middle", class: "axis" });
      label.textContent = String(r.round);
      chart.appendChild(label);
    }
  });
}
