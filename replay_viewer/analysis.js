// @ts-check
// The record page's analysis (issue 33): a finished record's expected standing after every decision under its
// scores, its key moments marked in the move list with a list to jump through (each with the reviewer's move and,
// for the annotator, its what-if line), and each seat's luck. Asked for with a button (POST
// /api/records/{id}/analysis) and followed to the end (GET: status and progress). The analysis is the service's,
// made once and stored; this module only asks and draws. Spoiler-free: nothing after the step shown.

import { COLOURS, DASHES, recordPage as R } from "./record.js";
import { hashParams } from "./lib/address.js";
import { api, why } from "./lib/api.js";
import { $, button, el, svg } from "./lib/dom.js";

const POLL_MS = 1000;
const path = `/api/records/${R.id}/analysis`;
const view = { status: null, analysis: null, drawnFor: null, timer: 0, cursor: null, xOf: null };

const percent = (x) => `${Math.round(x * 100)}%`;
const signed = (x) => (x > 0 ? "+" : x < 0 ? "−" : "±") + Math.abs(Math.round(x * 100));
// How far the reader may see: the whole game, or in spoiler-free mode up to the step shown.
const seen = () => (R.spoilerFree() ? R.step() : Infinity);

/** A glyph for a decision by how far its own choice moved its seat's chance to win (chess's marks). */
function glyph(swing) {
  if (swing <= -0.3) return ["??", "a blunder: it cost"];
  if (swing < 0) return ["?", "a mistake: it cost"];
  if (swing >= 0.3) return ["!!", "a strong move: it gained"];
  return ["!", "a good move: it gained"];
}

function build() {
  const box = $("analysis");
  box.replaceChildren();
  box.appendChild(el("h2", "Expected standing"));
  const ask = el("p", undefined, "analysis-ask");
  ask.appendChild(button("analyse this game", "analysis-button", () => request(), "play the game out from every decision"));
  const bar = el("progress");
  bar.id = "analysis-progress";
  bar.max = 1;
  bar.hidden = true;
  bar.setAttribute("aria-label", "analysis progress");
  ask.appendChild(bar);
  const said = el("span", "", "analysis-said");
  said.id = "analysis-said";
  said.setAttribute("role", "status");
  ask.appendChild(said);
  box.appendChild(ask);
  const note = el("p", "", "analysis-note");
  note.id = "analysis-note";
  box.appendChild(note);
  box.appendChild(el("div")).id = "expected-chart";
  box.appendChild(el("div")).id = "expected-legend";
  const moments = el("section");
  moments.id = "moments-box";
  moments.setAttribute("aria-label", "key moments");
  moments.appendChild(el("h3", "Key moments"));
  moments.appendChild(el("ol")).id = "moments";
  box.appendChild(moments);
  const luck = el("section");
  luck.id = "luck-box";
  luck.setAttribute("aria-label", "luck");
  luck.appendChild(el("h3", "Luck"));
  luck.appendChild(el("ul")).id = "luck";
  box.appendChild(luck);
  box.hidden = false;
}

function say(text) {
  $("analysis-said").textContent = text;
}

/** What the service says of the analysis, shown: the button, the progress, or the analysis itself. */
function show(answer) {
  const button = /** @type {HTMLButtonElement} */ ($("analysis").querySelector(".analysis-button"));
  const bar = $("analysis-progress", "progress");
  clearTimeout(view.timer);
  if (answer.status === 404) {
    button.hidden = false;
    bar.hidden = true;
    say("Not analysed yet: the service plays the game out from every decision (about a minute).");
    return;
  }
  if (!answer.ok) {
    button.hidden = answer.status !== 0;
    say(`The analysis cannot be had: ${why(answer)}.`);
    return;
  }
  const status = answer.body;
  view.status = status.status;
  button.hidden = status.status !== "failed";
  bar.hidden = status.status === "done" || status.status === "failed";
  bar.value = status.progress || 0;
  if (status.status === "queued" || status.status === "running") {
    say(`${status.status === "queued" ? "Waiting for a worker" : "Analysing"}: ${percent(status.progress || 0)}`);
    view.timer = window.setTimeout(poll, POLL_MS);
    return;
  }
  if (status.status === "failed") {
    say(`The analysis failed (${status.error || "no reason given"}); ask again.`);
    return;
  }
  say("");
  view.analysis = status.analysis;
  view.drawnFor = null;
  draw();
}

async function poll() {
  show(await api(path, { token: R.token(), cache: "no-store" }));
}

async function request() {
  say("Asking…");
  const answer = await api(path, { method: "POST", token: R.token(), json: {} });
  show(answer);
}

/** The analysis as far as the reader may see: redrawn only when that changes. */
function draw() {
  const a = view.analysis;
  if (!a) return;
  const end = Math.min(seen(), R.last());
  if (view.drawnFor === end) return;
  view.drawnFor = end;
  $("analysis-note").textContent = (R.spoilerFree() ? "Spoiler-free: up to this step. " : "")
    + `Each seat's chance to win after every decision, as the seat deciding could judge it then (the reviewer plays `
    + `the game out ${a.budget.playouts} times from there); a shared win counts as a share.`;
  drawChart(a, end);
  drawMoments(a, end);
  drawLuck(a, end);
  markMoves(a, end);
}

function drawChart(a, end) {
  // a phone's chart is drawn narrower, so its labels are not shrunk below reading size
  const narrow = $("analysis").clientWidth < 600;
  const W = narrow ? 450 : 900;
  const H = narrow ? 240 : 200;
  const M = { left: 44, right: 16, top: 12, bottom: 22 };
  const span = Math.max(1, R.last());
  const xOf = (step) => (M.left + (step / span) * (W - M.left - M.right)).toFixed(1);
  const yOf = (v) => (H - M.bottom - v * (H - M.top - M.bottom)).toFixed(1);
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", class: "score-chart expected-chart",
    "aria-label": `each seat's chance to win after every decision, steps 0 to ${Number.isFinite(end) ? end : R.last()}; `
      + "the key moments below say the same in words; click to jump to a step" });
  [0, 0.25, 0.5, 0.75, 1].forEach((v) => {
    chart.appendChild(svg("line", { x1: M.left, x2: W - M.right, y1: yOf(v), y2: yOf(v), class: "grid" }));
    const label = svg("text", { x: M.left - 6, y: Number(yOf(v)) + 4, "text-anchor": "end", class: "axis" });
    label.textContent = percent(v);
    chart.appendChild(label);
  });
  a.expected.forEach((seat, i) => {
    const points = seat.series.filter((p) => p.step <= end).map((p) => `${xOf(p.step)},${yOf(p.win)}`).join(" ");
    if (!points) return;
    const line = svg("polyline", { points, fill: "none", stroke: COLOURS[i % COLOURS.length], "stroke-width": 2.5,
      class: "seat-line", "data-seat": seat.seat });
    if (DASHES[i % DASHES.length]) line.setAttribute("stroke-dasharray", DASHES[i % DASHES.length]);
    const tip = svg("title");
    tip.textContent = `${seat.player}'s chance to win`;
    line.appendChild(tip);
    chart.appendChild(line);
  });
  a.turning_points.filter((p) => p.step < end).forEach((p) => {
    const i = a.expected.findIndex((s) => s.seat === p.seat);
    const mark = svg("circle", { cx: xOf(p.step), cy: yOf(p.expected_played.win), r: 5, class: "lead-mark",
      stroke: COLOURS[Math.max(0, i) % COLOURS.length] });
    const tip = svg("title");
    tip.textContent = `${p.player} at step ${p.step}: ${p.played} (${signed(p.swing)} points of win chance)`;
    mark.appendChild(tip);
    chart.appendChild(mark);
  });
  view.cursor = svg("line", { x1: 0, x2: 0, y1: M.top, y2: H - M.bottom, class: "cursor" });
  view.xOf = xOf;
  chart.appendChild(view.cursor);
  moveCursor();
  chart.addEventListener("click", (e) => {
    const box = chart.getBoundingClientRect();
    const x = ((e.clientX - box.left) / box.width) * W;
    R.go(Math.max(0, Math.min(Number.isFinite(end) ? end : R.last(), ((x - M.left) / (W - M.left - M.right)) * span)));
  });
  $("expected-chart").replaceChildren(chart);
  const legend = el("ul", undefined, "legend");
  a.expected.forEach((seat, i) => {
    const item = el("li");
    const sample = svg("svg", { width: 36, height: 10, "aria-hidden": "true" });
    const stroke = svg("line", { x1: 0, x2: 36, y1: 5, y2: 5, stroke: COLOURS[i % COLOURS.length], "stroke-width": 3 });
    if (DASHES[i % DASHES.length]) stroke.setAttribute("stroke-dasharray", DASHES[i % DASHES.length]);
    sample.appendChild(stroke);
    item.appendChild(sample);
    item.appendChild(el("span", " " + seat.player));
    legend.appendChild(item);
  });
  $("expected-legend").replaceChildren(legend);
}

/** The chart's cursor at the step shown (every step: the chart itself is drawn again only when the cut moves). */
function moveCursor() {
  if (!view.cursor || !view.xOf) return;
  const x = view.xOf(Math.min(R.step(), R.last()));
  view.cursor.setAttribute("x1", x);
  view.cursor.setAttribute("x2", x);
}

/** A link to a step, as the page's own (record.js follows every a[data-step] without a page load). */
function stepLink(text, step) {
  const link = el("a", text);
  link.setAttribute("role", "link");
  link.tabIndex = 0;
  link.dataset.step = String(step);
  return link;
}

function drawMoments(a, end) {
  const list = $("moments");
  list.replaceChildren();
  const key = hashParams().get("key");
  const shown = a.turning_points.filter((p) => p.step < end).sort((x, y) => x.step - y.step);
  shown.forEach((p) => {
    const [mark, words] = glyph(p.swing);
    const item = el("li");
    item.appendChild(stepLink(`${mark} step ${p.step}, ${p.player}: ${p.played}`, p.step));
    const worth = `${words} ${Math.abs(Math.round(p.swing * 100))} points of win chance`;
    if (!p.suggested) {
      item.appendChild(el("span", ` — ${worth}.`));
    } else {
      const better = p.expected_suggested.win > p.expected_played.win;
      item.appendChild(el("span", p.same ? ` — ${worth}; the reviewer would have played the same.`
        : ` — ${worth}; the reviewer${better ? " would have played" : "'s own choice, no better:"} ${p.suggested} `
          + `(win ${percent(p.expected_suggested.win)} against ${percent(p.expected_played.win)}).`));
    }
    if (key && p.what_if && !p.same) item.appendChild(button("try it as a what-if", "what-if", () => whatIf(p, key)));
    list.appendChild(item);
  });
  if (!shown.length) list.appendChild(el("li", R.spoilerFree() ? "None yet, up to this step." : "None found."));
  $("moments-box").dataset.annotator = key ? "yes" : "no";
}

/** The annotator opens a what-if line from the decision, playing the reviewer's move, and walks it. */
async function whatIf(p, key) {
  const made = await api(`/api/records/${R.id}/variations`, { method: "POST", token: key,
    json: { from_step: p.what_if.from_step, parent: p.what_if.parent, title: `the reviewer: ${p.suggested}` } });
  if (!made.ok) return say(`The what-if line could not be made: ${why(made)}.`);
  const played = await api(`/api/variations/${made.body.id}/commands`, { method: "POST", token: key,
    json: { command: p.what_if.command } });
  if (!played.ok) return say(`The suggestion could not be played: ${why(played)}.`);
  location.hash = `line=${made.body.id}&step=${p.what_if.from_step + 1}&key=${encodeURIComponent(key)}`;
  location.reload();
}

function drawLuck(a, end) {
  const list = $("luck");
  list.replaceChildren();
  a.luck.forEach((seat) => {
    const draws = (seat.each || []).filter((d) => d.step <= end);
    const total = draws.reduce((sum, d) => sum + d.win, 0);
    const item = el("li");
    item.appendChild(el("strong", seat.player));
    item.appendChild(el("span", `: ${signed(total)} points of win chance from chance over ${draws.length} draw`
      + `${draws.length === 1 ? "" : "s"}`));
    if (draws.length) {
      const best = draws.reduce((x, d) => (d.win > x.win ? d : x));
      const worst = draws.reduce((x, d) => (d.win < x.win ? d : x));
      item.appendChild(el("span", "; luckiest "));
      item.appendChild(stepLink(`step ${best.step} (${signed(best.win)})`, best.step));
      item.appendChild(el("span", ", unluckiest "));
      item.appendChild(stepLink(`step ${worst.step} (${signed(worst.win)})`, worst.step));
    }
    item.appendChild(el("span", "."));
    list.appendChild(item);
  });
}

/** The key moments marked in the move list: a glyph on the line of each decision's first event. */
function markMoves(a, end) {
  document.querySelectorAll("#moves .moment-mark").forEach((node) => node.remove());
  a.turning_points.filter((p) => p.step < end).forEach((p) => {
    const line = document.querySelector(`#moves li[data-step="${p.step + 1}"]`);
    if (!line) return;
    const [mark, words] = glyph(p.swing);
    const span = el("span", mark, "moment-mark");
    span.title = `${words} ${Math.abs(Math.round(p.swing * 100))} points of win chance`
      + (p.suggested && !p.same ? `; the reviewer: ${p.suggested}` : "");
    span.setAttribute("aria-label", `key moment, ${span.title}`);
    line.appendChild(span);
  });
}

function start() {
  if (!R.record() || !R.record().finished) return; // an analysis of a game in progress would tell its secrets
  build();
  poll();
  document.addEventListener("cronaca:after-frame", () => {
    draw(); // nothing unless the spoiler-free cut moved
    moveCursor();
  });
  document.addEventListener("cronaca:story", () => { if (view.analysis) markMoves(view.analysis, Math.min(seen(), R.last())); });
}

start();
