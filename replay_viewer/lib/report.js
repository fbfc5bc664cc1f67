// @ts-check
// A dispute report (docs/notation/) as a table reads it: one row a finding, with its line, the player, the
// sentence, what would have been legal and what the player held (when the reader may see it), and the file's
// own lines beside it. The import page and the reconcile page both show reports this way.

import { el } from "./dom.js";
import { isHidden } from "./render.js";

/**
 * Whether a value is a secret the reader may not see: {"hidden": true, ...} (a count may ride with it).
 * @param {any} v
 * @returns {boolean}
 */
export const isSecret = (v) => Boolean(v && typeof v === "object" && !Array.isArray(v) && v.hidden === true);

/**
 * Whether anything in a value is still hidden from its reader.
 * @param {any} v
 * @returns {boolean}
 */
export function holdsSecrets(v) {
  if (isSecret(v)) return true;
  if (Array.isArray(v)) return v.some(holdsSecrets);
  if (v && typeof v === "object") return Object.values(v).some(holdsSecrets);
  return false;
}

const OPEN_HELD = 3; // with more findings than this, what each player held is behind a disclosure

// Nothing worth a word: a zero, a no, an empty list or map.
const empty = (v) => v === 0 || v === false || v === null || v === undefined || (Array.isArray(v) && !v.length)
  || (typeof v === "object" && !Array.isArray(v) && !isSecret(v) && !Object.keys(v).length);

const words = (key) => String(key).replace(/_/g, " ");

/**
 * A held value in a few words: counts without the zeros, lists joined, flags as yes/no, nested maps in brackets.
 * @param {any} value
 * @returns {string}
 */
export function plainly(value) {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value !== "object") return String(value);
  if (isSecret(value)) return "hidden";
  if (Array.isArray(value)) return value.length ? value.map(plainly).join(", ") : "none";
  const parts = Object.entries(value)
    .filter(([, v]) => !empty(v))
    .map(([k, v]) => (v && typeof v === "object" && !Array.isArray(v) ? `${words(k)} (${plainly(v)})` : `${words(k)} ${plainly(v)}`));
  return parts.length ? parts.join(", ") : "none";
}

/**
 * What a player held: a sentence as it came, or each part of it on a line of its own (a definition list).
 * @param {any} held
 * @returns {HTMLElement}
 */
function heldNode(held) {
  if (typeof held === "string") return el("span", held);
  if (!held || typeof held !== "object" || Array.isArray(held)) return el("span", plainly(held));
  if (typeof held.said === "string") return el("span", held.said); // a summary in words, the machine fields beside
  const dl = el("dl", undefined, "held");
  Object.entries(held).forEach(([k, v]) => {
    if (empty(v)) return;
    if (k === "seat") return; // the notation never numbers seats: the player's name is in its own column
    dl.appendChild(el("dt", words(k)));
    dl.appendChild(el("dd", plainly(v)));
  });
  if (!dl.firstChild) return el("span", "nothing");
  return dl;
}

/**
 * A hidden value's sentence: who may read it, and how (the token of that seat).
 * @param {any} value
 * @param {string} what
 * @param {string | undefined} player
 * @returns {HTMLElement}
 */
function hiddenNode(value, what, player) {
  const count = typeof value.count === "number" ? `${value.count} ${what}, ` : "";
  const whose = player ? `${player}'s seat token shows them` : "nobody reads them while the game is in progress";
  return el("span", `${count}hidden: ${whose}`, "hidden-value");
}

/**
 * A message as a sentence (a secret one that stayed hidden says so).
 * @param {any} message
 * @returns {string}
 */
export const sentence = (message) => (typeof message === "string" ? message
  : isHidden(message) || isSecret(message) ? "(a hidden move: only its player's seat token shows the sentence)"
    : plainly(message));

/**
 * @typedef {object} TableOptions
 * @property {(f: any) => (string | null)} [replay] the address of the game as checked just before a finding's line
 * @property {string} [linePrefix] the id prefix of the file's lines (`line-`), for the link to a finding's line
 * @property {string} [caption]
 * @property {string} [noReplay] what the last column says when there is no game as checked to open
 */

/**
 * The findings as a table (a row a finding). On a narrow screen each row reads as a card (viewer.css).
 * @param {any[]} findings
 * @param {TableOptions} [options]
 * @returns {HTMLTableElement}
 */
export function findingsTable(findings, options = {}) {
  const prefix = options.linePrefix || "line-";
  const table = el("table", undefined, "findings");
  table.setAttribute("role", "table"); // a card layout (display: block) must not drop the table's semantics
  if (options.caption) table.createCaption().textContent = options.caption;
  const heads = ["line", "player", "what the rules say", "legal instead", "what the player held", "game as checked"];
  const head = table.createTHead().insertRow();
  head.setAttribute("role", "row");
  heads.forEach((h) => {
    const th = el("th", h);
    th.scope = "col";
    th.setAttribute("role", "columnheader");
    head.appendChild(th);
  });
  const body = table.createTBody();
  findings.forEach((f, i) => {
    const row = body.insertRow();
    row.setAttribute("role", "row");
    row.id = `${prefix}finding-${i + 1}`;
    row.dataset.line = String(f.line);
    const cell = (label) => {
      const td = row.insertCell();
      td.setAttribute("role", "cell");
      td.dataset.label = label;
      return td;
    };
    const where = cell(heads[0]);
    const link = el("a", `line ${f.line}`, "line-link");
    link.href = `#${prefix}${f.line}`;
    link.setAttribute("aria-label", `line ${f.line} of the file`);
    link.addEventListener("click", () => {
      document.querySelectorAll(".focus").forEach((n) => n.classList.remove("focus"));
      const target = document.getElementById(`${prefix}${f.line}`);
      if (target) target.classList.add("focus");
    });
    where.appendChild(link);
    if (f.round !== undefined && f.round !== null) where.appendChild(el("span", `round ${f.round}`, "round"));
    cell(heads[1]).textContent = f.player || "—";
    const said = cell(heads[2]);
    said.appendChild(el("p", sentence(f.message), "message"));
    if (typeof f.written === "string" && f.written) said.appendChild(el("p", `written: ${f.written}`, "written"));
    if (f.did_you_mean && f.did_you_mean.length) said.appendChild(el("p", "did you mean: " + f.did_you_mean.join(", "), "did-you-mean"));
    if (typeof f.assumed === "string" && f.assumed) {
      said.appendChild(el("p", f.assumed === "skipped" ? "read on without this move" : `read on as: ${f.assumed}`, "assumed"));
    }
    const rule = el("p", undefined, "rule");
    rule.appendChild(el("code", f.rule));
    said.appendChild(rule);
    const legal = cell(heads[3]);
    if (Array.isArray(f.alternatives)) {
      if (!f.alternatives.length) legal.textContent = "no legal move";
      else {
        const list = el("ul", undefined, "alternatives");
        f.alternatives.forEach((a) => list.appendChild(el("li", typeof a === "string" ? a : plainly(a))));
        legal.appendChild(list);
      }
    } else if (isSecret(f.alternatives)) legal.appendChild(hiddenNode(f.alternatives, "legal moves", f.player));
    else if (f.expected && f.expected.length) legal.textContent = "one of: " + f.expected.join(", ");
    else legal.textContent = "—";
    const held = cell(heads[4]);
    // the sentence a person would say (`holding`) when the title gives one; the machine fields (`held`) otherwise
    const holding = typeof f.holding === "string" || isSecret(f.holding) ? f.holding : f.held;
    if (holding === undefined || holding === null) held.textContent = "—";
    else if (isSecret(holding)) held.appendChild(hiddenNode(holding, "items", f.player));
    else if (typeof holding === "string" || findings.length <= OPEN_HELD) held.appendChild(heldNode(holding));
    else { // many findings: each holding is one click away, the rows stay short
      const more = el("details");
      more.appendChild(el("summary", f.player ? `what ${f.player} held` : "what was held"));
      more.appendChild(heldNode(holding));
      held.appendChild(more);
    }
    const replay = cell(heads[5]);
    const href = options.replay && f.step !== undefined && f.step !== null ? options.replay(f) : null;
    if (href) {
      const a = el("a", `step ${f.step}, just before the line`, "replay-link");
      a.href = href;
      a.setAttribute("aria-label", `the game as checked at step ${f.step}, just before line ${f.line}`);
      replay.appendChild(a);
    } else replay.textContent = f.step !== undefined && f.step !== null && options.noReplay ? options.noReplay : "—";
  });
  return table;
}

/**
 * The file's lines, numbered, those with a finding marked and linked to it.
 * @param {HTMLOListElement} list
 * @param {string} text
 * @param {any[]} findings
 * @param {string} [prefix]
 */
export function fileLines(list, text, findings, prefix = "line-") {
  list.replaceChildren();
  const faults = new Map();
  findings.forEach((f, i) => { if (!faults.has(f.line)) faults.set(f.line, i + 1); });
  text.replace(/\n$/, "").split("\n").forEach((line, i) => {
    const item = el("li");
    item.id = `${prefix}${i + 1}`;
    item.appendChild(el("span", line || " ", "text"));
    const k = faults.get(i + 1);
    if (k) {
      item.classList.add("fault");
      const back = el("a", "finding", "to-finding");
      back.href = `#${prefix}finding-${k}`;
      back.setAttribute("aria-label", `the finding at line ${i + 1}`);
      item.appendChild(back);
    }
    list.appendChild(item);
  });
}

/**
 * Each unknown outcome's sentence, as a list's items.
 * @param {HTMLElement} list
 * @param {any[]} unknowns
 */
export function unknownsList(list, unknowns) {
  list.replaceChildren();
  unknowns.forEach((u) => list.appendChild(el("li", sentence(u.message))));
}
