// @ts-check
// A JSON value as page nodes: nested definition lists and tables, readable, never one long line (a step's
// view as data on the record page, a paused seat's view on the lesson page).

import { el } from "./dom.js";

/**
 * Whether a value is the API's mark of a secret: {"hidden": true} and nothing else.
 * @param {any} v
 * @returns {boolean}
 */
export const isHidden = (v) => v && typeof v === "object" && !Array.isArray(v) && v.hidden === true && Object.keys(v).length === 1;

/**
 * What a seat is asked to decide, in words: the rules' pending kind ("political-turn") as a reader says it
 * ("political turn"); every page that says who decides says it the same way.
 * @param {{kind?: string} | null | undefined} pending
 * @returns {string}
 */
export const kindWords = (pending) => String((pending && pending.kind) || "a choice").replace(/-/g, " ");

/**
 * @param {any} value
 * @returns {HTMLElement}
 */
export function render(value) {
  if (value === null || value === undefined) return el("span", "—");
  if (typeof value !== "object") return el("span", String(value));
  if (isHidden(value)) return el("span", "hidden", "hidden-value");
  if (Array.isArray(value)) {
    if (value.every((v) => v === null || typeof v !== "object")) return el("span", value.length ? value.join(", ") : "(none)");
    const rows = value.every((v) => v && typeof v === "object" && !Array.isArray(v) && !isHidden(v));
    if (rows) {
      const keys = [...new Set(value.flatMap((v) => Object.keys(v)))];
      const table = el("table");
      const head = table.createTHead().insertRow();
      keys.forEach((k) => head.appendChild(el("th", k)));
      const body = table.createTBody();
      value.forEach((v) => {
        const row = body.insertRow();
        keys.forEach((k) => row.insertCell().appendChild(render(v[k])));
      });
      return table;
    }
    const list = el("ol");
    list.start = 0;
    value.forEach((v) => list.appendChild(el("li")).appendChild(render(v)));
    return list;
  }
  const dl = el("dl", undefined, "view");
  Object.entries(value).forEach(([k, v]) => {
    dl.appendChild(el("dt", k));
    dl.appendChild(el("dd")).appendChild(render(v));
  });
  return dl;
}
