// @ts-check
// The reconcile page: two transcripts of one game (each player kept a log), sent to POST /api/reconcile, shown
// side by side from their first divergence, with what the rules accept of each there, every disagreement, and
// each transcript's findings. Nothing is stored; the caller sent both texts, so every report shows all it implies.

import { api, why } from "./lib/api.js";
import { $, el, targetOf } from "./lib/dom.js";
import { findingsTable } from "./lib/report.js";

const CONTEXT = 3; // lines shown before the first divergence
const MOST_CELLS = 4_000_000; // beyond this (two files of 2,000 lines), lines are paired by position, not aligned

["first", "second"].forEach((side) => {
  $(`${side}-file`, "input").addEventListener("change", async (e) => {
    const file = /** @type {HTMLInputElement} */ (targetOf(e)).files[0];
    if (file) $(side, "textarea").value = await file.text();
  });
});

const status = $("reconcile-status");

$("reconcile-form", "form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const first = $("first", "textarea").value;
  const second = $("second", "textarea").value;
  if (!first.trim() || !second.trim()) {
    status.textContent = "Paste or choose both transcripts first.";
    return;
  }
  $("compare", "button").disabled = true;
  status.textContent = "comparing…";
  const answer = await api("/api/reconcile", { method: "POST", json: { first, second } });
  $("compare", "button").disabled = false;
  if (!answer.ok) {
    const field = answer.body && answer.body.field;
    status.textContent = (field ? `The ${field} transcript: ` : "") + why(answer);
    return;
  }
  status.textContent = answer.body.agree ? "the two transcripts agree" : "compared: they differ";
  show(answer.body, first, second);
});

// ---- the answer ----------------------------------------------------------------------------------

function show(found, first, second) {
  $("result").hidden = false;
  const verdict = found.rules_accept;
  $("verdict").textContent = found.agree ? "The two transcripts agree, line for line."
    : verdict ? sentenceCase(verdict.verdict) + "." : "The transcripts differ only in their headers.";
  const div = found.first_divergence;
  $("divergence").textContent = div ? `They part at turn ${div.turn}: ${div.what}.` : "";
  ["first", "second"].forEach((side) => {
    const box = $(`${side}-side`);
    const standing = /** @type {HTMLElement} */ (box.querySelector(".standing"));
    const here = verdict ? verdict[side] : null;
    box.classList.toggle("accepted", Boolean(here && here.accepted));
    box.classList.toggle("refused", Boolean(here && here.accepted === false));
    const place = found.first_divergence ? found.first_divergence[side] : null;
    const written = place ? `line ${place.line}, “${place.text}”` : "";
    standing.textContent = !here ? "" : here.accepted === null ? here.why
      : here.accepted ? `${written}: the rules accept it`
        : `${written}: the rules do not accept it. ${sentenceCase(String(here.why || "").replace(/^line \d+: /, ""))}`;
    /** @type {HTMLElement} */ (box.querySelector(".summary")).textContent = found[side] ? found[side].summary : "";
  });
  headerDiff(found.header || []);
  aligned(found, first.replace(/\n$/, "").split("\n"), second.replace(/\n$/, "").split("\n"));
  disagreements(found.disagreements || []);
  ["first", "second"].forEach((side) => {
    const place = $(`${side}-findings`);
    place.replaceChildren();
    const findings = (found.reports && found.reports[side] && found.reports[side].findings) || [];
    if (findings.length) place.appendChild(findingsTable(findings, { linePrefix: `${side}-line-`, caption: `${side} transcript` }));
    else place.appendChild(el("p", `The ${side} transcript: no finding.`));
  });
  document.body.dataset.reconciled = found.agree ? "agree" : "differ"; // the answer is on the page (tests wait)
  $("verdict-head").focus({ preventScroll: true }); // a keyboard or a screen reader goes on from the answer
  $("result").scrollIntoView({ block: "start" });
}

const sentenceCase = (s) => (s ? s[0].toUpperCase() + s.slice(1) : "");

function headerDiff(rows) {
  $("header-diff").hidden = !rows.length;
  const body = /** @type {HTMLTableSectionElement} */ (document.querySelector("#header-table tbody"));
  body.replaceChildren();
  rows.forEach((h) => {
    const tr = body.insertRow();
    tr.insertCell().textContent = h.tag;
    tr.insertCell().textContent = h.first === null ? "(none)" : h.first;
    tr.insertCell().textContent = h.second === null ? "(none)" : h.second;
  });
}

function disagreements(rows) {
  const body = /** @type {HTMLTableSectionElement} */ (document.querySelector("#disagreements tbody"));
  body.replaceChildren();
  rows.forEach((d) => {
    const tr = body.insertRow();
    const cell = (label) => {
      const td = tr.insertCell();
      td.dataset.label = label;
      return td;
    };
    cell("turn").textContent = String(d.turn);
    ["first", "second"].forEach((side) => {
      const cell_ = cell(`${side} transcript`);
      if (!d[side]) {
        cell_.textContent = "(no such turn)";
        return;
      }
      const a = el("a", `line ${d[side].line}`);
      a.href = `#${side}-line-${d[side].line}`;
      cell_.append(a, ": ", el("code", d[side].text));
    });
    cell("what differs").textContent = d.what;
  });
  if (!rows.length) body.insertRow().insertCell().textContent = "none";
}

// ---- the lines side by side -----------------------------------------------------------------------

// A line as the table meant it: its round number, spaces and case set aside (a moved line keeps its words).
const key = (line) => line.trim().replace(/^\d+\.\s*/, "").replace(/\s+/g, " ").toLowerCase();

/**
 * The two files' lines aligned (longest common run of lines): rows of [index in a | null, index in b | null].
 * @param {string[]} a
 * @param {string[]} b
 * @returns {Array<[number | null, number | null]>}
 */
function align(a, b) {
  if ((a.length + 1) * (b.length + 1) > MOST_CELLS) {
    return Array.from({ length: Math.max(a.length, b.length) }, (_, i) => [i < a.length ? i : null, i < b.length ? i : null]);
  }
  const ka = a.map(key), kb = b.map(key);
  const w = b.length + 1;
  const common = new Uint32Array((a.length + 1) * w); // common[i][j]: the longest common run of a[i:] and b[j:]
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i * w + j] = ka[i] === kb[j] ? common[(i + 1) * w + j + 1] + 1 : Math.max(common[(i + 1) * w + j], common[i * w + j + 1]);
    }
  }
  /** @type {Array<[number | null, number | null]>} */
  const rows = [];
  let i = 0, j = 0;
  /** @type {number[]} */ let onlyA = [];
  /** @type {number[]} */ let onlyB = [];
  const flush = () => { // lines that differ, paired where both files have one
    for (let k = 0; k < Math.max(onlyA.length, onlyB.length); k++) rows.push([onlyA[k] ?? null, onlyB[k] ?? null]);
    onlyA = [];
    onlyB = [];
  };
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && ka[i] === kb[j]) {
      flush();
      rows.push([i++, j++]);
    } else if (j >= b.length || (i < a.length && common[(i + 1) * w + j] >= common[i * w + j + 1])) onlyA.push(i++);
    else onlyB.push(j++);
  }
  flush();
  return rows;
}

function aligned(found, a, b) {
  const table = $("aligned", "table");
  table.querySelectorAll("tbody").forEach((t) => t.remove());
  const rows = align(a, b);
  const faults = { first: new Set(), second: new Set() };
  ["first", "second"].forEach((side) => {
    ((found.reports && found.reports[side] && found.reports[side].findings) || []).forEach((f) => faults[side].add(f.line));
  });
  const div = found.first_divergence;
  let start = rows.findIndex(([i, j]) => div && ((div.first && i === div.first.line - 1) || (div.second && j === div.second.line - 1)));
  if (start < 0) start = rows.findIndex(([i, j]) => i === null || j === null || key(a[i]) !== key(b[j]));
  // no line differs (the two agree, or only their headers do): nothing to set side by side
  $("side-by-side").hidden = start < 0;
  const from = Math.max(0, (start < 0 ? rows.length : start) - CONTEXT);
  const before = table.createTBody();
  before.id = "aligned-before";
  before.hidden = true;
  const after = table.createTBody();
  rows.forEach(([i, j], r) => {
    const tr = (r < from ? before : after).insertRow();
    const differs = i === null || j === null || key(a[i]) !== key(b[j]);
    if (differs) tr.classList.add("differs");
    if (r === start) tr.classList.add("divergence");
    [["first", i, a], ["second", j, b]].forEach(([side, k, lines]) => {
      const number = tr.insertCell();
      number.className = "number";
      const text = tr.insertCell();
      text.className = "text";
      if (k === null) {
        text.appendChild(el("span", "(no line here)", "missing"));
        return;
      }
      number.textContent = String(Number(k) + 1);
      text.id = `${side}-line-${Number(k) + 1}`;
      text.appendChild(el("span", lines[k] || " "));
      if (faults[side].has(Number(k) + 1)) text.classList.add("fault");
    });
    if (r === start) {
      const mark = el("span", "first divergence", "divergence-mark");
      tr.cells[1].prepend(mark);
    }
  });
  const toggle = $("earlier", "button");
  toggle.hidden = from === 0;
  toggle.textContent = `show the ${from} line(s) before`;
  toggle.setAttribute("aria-expanded", "false");
  toggle.onclick = () => {
    before.hidden = !before.hidden;
    toggle.setAttribute("aria-expanded", String(!before.hidden));
    toggle.textContent = before.hidden ? `show the ${from} line(s) before` : "hide the lines before";
  };
}

// A link to a line before the divergence opens the hidden lines first.
window.addEventListener("hashchange", () => {
  const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
  const before = document.getElementById("aligned-before");
  if (target && before && before.hidden && before.contains(target)) {
    $("earlier", "button").click();
    target.scrollIntoView({ block: "center" });
  }
});
