// @ts-check
// The record page's analysis (issue 33): a finished record's expected standing after every decision under its
// scores, its key moments marked in the move list with a list to jump through (each with the reviewer's move and,
// for the annotator, its what-if line), and each seat's luck. Asked for with a button (POST
// /api/records/{id}/analysis) and followed to the end (GET: status and progress). The analysis is the service's,
// made once and stored; this module only asks and draws. Spoiler-free: nothing after the step shown.

import { recordPage as R } from "./record.js";
import { hashParams } from "./lib/address.js";
import { api, why } from "./lib/api.js";
import { colour, roundMarks, seatLegend, seatLine } from "./lib/chart.js";
import { $, button, el, seenOnly, svg } from "./lib/dom.js";

const POLL_MS = 1000;
const path = `/api/records/${R.id}/analysis`;
const view = { status: null, analysis: null, trust: "", drawnFor: null, timer: 0, cursor: null, xOf: null };

// The reviewer's move is named as better only when it beats the move played by this much win chance: less is
// within the noise of a few playouts, and "the reviewer would have played X, no better" helps no player (chess.com
// calls a move that loses 0.10-0.20 expected points against the best a mistake, less an inaccuracy).
const MARGIN = 0.1;
const clip = (x) => Math.max(0, Math.min(1, x));
const percent = (x) => `${Math.round(clip(x) * 100)}%`;
const signed = (x) => (x > 0 ? "+" : x < 0 ? "−" : "±") + Math.abs(Math.round(x * 100));
const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
// How far the reader may see: the whole game, or in spoiler-free mode up to the step shown.
const seen = () => (R.spoilerFree() ? R.step() : Infinity);

/** The key moments up to `end`: an analysis stored before the service left them out still lists decisions where
 * the reviewer would have played the move played; those were no turning point (the swing was not the choice's). */
const moments = (a, end) => a.turning_points.filter((p) => p.step < end && !p.same);

/** A move as the move list tells it ("Zoë gains a purple banner"), else its notation words ("purple"). */
const playedWords = (p) => p.played_said || p.played;
const suggestedWords = (p) => p.suggested_said || p.suggested;
/** A key moment's decision: when (as the move list's line of its first event: the step before it may still be the
 * setup's, or the round before), who (unless the move's own words name them) and what was played. */
const decided = (p) => `${capital(R.when(p.step + 1))}${p.played_said && p.played_said.includes(p.player) ? "" : `, ${p.player}`}`
  + `: ${playedWords(p)}`;

const TREND_GAMES = 12;
/** How many estimates the trend line averages: enough for about TREND_GAMES games played out (one when each
 * estimate played out that many). */
const trendSpan = (a) => Math.max(1, Math.min(12, Math.ceil(TREND_GAMES
  / Math.max(1, (a.playouts && a.playouts.median) || a.budget.playouts))));

/** Whether the reviewer's own move there beat the move played by the margin (then, and only then, it is named). */
const better = (p) => Boolean(p.suggested && !p.same && p.expected_suggested
  && p.expected_suggested.win - p.expected_played.win >= MARGIN);

/** A chess-like mark for a decision and what to call it: by how far its own choice moved its seat's chance to win,
 * and whether anything the reviewer tried did clearly better (a loss no move avoids is a hard spot, not a mistake). */
function glyph(p) {
  if (p.swing < 0 && p.suggested && !better(p)) return ["□", "a hard spot"];
  if (p.swing <= -0.3) return ["??", "a blunder"];
  if (p.swing < 0) return ["?", "a mistake"];
  if (p.swing >= 0.3 && !better(p)) return ["!!", "a strong move"];
  return ["!", "a good move"];
}

/** What the choice did, in a player's words: "Ada's chance to win fell from 70% to 35% (−35 points)". */
function moved(p) {
  const points = `${signed(p.swing)} points`;
  if (!p.expected_before) return `it moved ${p.player}'s chance to win by ${points}`;
  const before = p.expected_before.win;
  return `${p.player}'s chance to win ${p.swing < 0 ? "fell" : "rose"} from ${percent(before)} `
    + `to ${percent(before + p.swing)} (${points})`;
}

/** What the reviewer says of the move: the same, nothing clearly better, or a better move named. */
function verdict(p) {
  if (!p.suggested) return ""; // said once under the list (unchecked)
  if (!better(p)) return `The reviewer found no move better by ${Math.round(MARGIN * 100)} points or more.`;
  return `${p.swing > 0 ? "Better still" : "Better"}: ${suggestedWords(p)} (${percent(p.expected_suggested.win)} to win `
    + `after it, against ${percent(p.expected_played.win)}).`;
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
  box.appendChild(el("div")).id = "expected-chart";
  box.appendChild(el("div")).id = "expected-legend";
  const note = el("p", "", "analysis-note");
  note.id = "analysis-note";
  box.appendChild(note);
  const moments = el("section");
  moments.id = "moments-box";
  moments.hidden = true; // until there is an analysis to list
  moments.setAttribute("aria-label", "key moments");
  moments.appendChild(el("h3", "Key moments")).tabIndex = -1;
  moments.appendChild(el("ol")).id = "moments";
  const unchecked = el("p", "", "analysis-note");
  unchecked.id = "moments-unchecked";
  moments.appendChild(unchecked);
  box.appendChild(moments);
  const luck = el("section");
  luck.id = "luck-box";
  luck.hidden = true;
  luck.setAttribute("aria-label", "luck");
  luck.appendChild(el("h3", "Luck")).tabIndex = -1;
  luck.appendChild(el("ul")).id = "luck";
  box.appendChild(luck);
  box.hidden = false;
  // reachable from the move list: two buttons under its heading (the page's address holds the step, so no #links)
  const reach = el("p", "Analysis: ");
  reach.id = "story-analysis";
  reach.hidden = true;
  reach.appendChild(button("key moments", "to-moments", () => jump(moments), "the list of key moments, below"));
  reach.appendChild(button("luck", "to-luck", () => jump(luck), "each seat's luck, below"));
  $("story-marks").after(reach);
}

/** Scroll a part of the analysis into view and put the reader's focus on its heading. */
function jump(section) {
  section.scrollIntoView({ block: "start" });
  /** @type {HTMLElement} */ (section.querySelector("h3")).focus({ preventScroll: true });
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
  // the analysis stands beside the scores (on a wide screen), its lists reachable from the move list
  $("charts").classList.add("analysed");
  $("story-analysis").hidden = $("moments-box").hidden = $("luck-box").hidden = false;
  view.analysis = status.analysis;
  view.trust = status.trust || "";
  view.drawnFor = null;
  draw();
}

async function poll() {
  show(await api(path, { token: R.token(), cache: "no-store" }));
}

async function request() {
  // a double tap asks once: the button stays disabled until the service answers (it makes one job either way)
  const ask = /** @type {HTMLButtonElement} */ ($("analysis").querySelector(".analysis-button"));
  if (ask.disabled) return;
  ask.disabled = true;
  say("Asking…");
  const answer = await api(path, { method: "POST", token: R.token(), json: {} });
  ask.disabled = false;
  show(answer);
}

/** The analysis as far as the reader may see: redrawn only when that changes. */
function draw() {
  const a = view.analysis;
  if (!a) return;
  const end = Math.min(seen(), R.last());
  const key = `${end}/${R.roundsKnown()}/${R.story().length}`; // years and drawn cards are words once they are in
  if (view.drawnFor === key) return;
  view.drawnFor = key;
  // the games the reviewer actually played out (the clock may have allowed far fewer than its budget): an analysis
  // stored before they were counted says its budget
  const made = a.playouts && a.playouts.median ? a.playouts : null;
  const n = Math.max(1, made ? made.median : a.budget.playouts);
  const times = n === 1 ? "once" : `${made ? "about " : ""}${n} times`;
  const fewest = made && made.fewest < n ? ` (at some, only ${made.fewest === 1 ? "once" : `${made.fewest} times`})` : "";
  $("analysis-note").textContent = (R.spoilerFree() ? "Spoiler-free: up to this step. " : "")
    + `Each seat's chance to win after every decision (a shared win counts as a share), judged from what the `
    + `deciding seat could see then by a reviewer that plays the game out ${times} from there${fewest}, so a figure `
    + `may be off by about ${Math.round(50 / Math.sqrt(n))} points either way: trust the large swings more than the `
    + `small.` + (trendSpan(a) > 1 ? ` The bold lines follow each seat's mean over its last ${trendSpan(a)} `
      + `estimates, the faint ones each estimate.` : "") + (view.trust ? ` ${view.trust}` : "");
  drawChart(a, end);
  drawMoments(a, end);
  drawLuck(a, end);
  markMoves(a, end);
}

function drawChart(a, end) {
  // a phone's chart is drawn narrower, so its labels are not shrunk below reading size
  const width = $("expected-chart").clientWidth || 900;
  const narrow = width < 600;
  const W = Math.round(Math.max(450, Math.min(900, width)));
  const H = 240; // the score chart's height: side by side, their plots line up
  const M = { left: 44, right: 16, top: 12, bottom: 34 };
  // spread over the steps the reader may see, as the score chart is: in spoiler-free mode a line ending short of the
  // right edge would tell how much of the game is left
  const span = Math.max(1, end);
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
  // round marks (La Città: years) on the x axis, labelled as often as there is room, as under the scores
  const rounds = R.rounds().filter((r) => r.step <= end);
  roundMarks(chart, rounds, xOf, M.top, H - M.bottom, narrow ? 9 : 18);
  if (rounds.length) {
    const caption = svg("text", { x: W - M.right, y: H - 4, "text-anchor": "end", class: "axis" });
    caption.textContent = R.roundWord();
    chart.appendChild(caption);
  }
  // each estimate thin and faint, and over it each seat's trend: the mean of its last few estimates, as many as make
  // up about TREND_GAMES games played out (one estimate of a game played out once is 0% or 100%: a line through
  // those alone is a barcode, not a story). Only estimates up to each point: the trend never looks ahead.
  const trendOf = trendSpan(a);
  a.expected.forEach((seat, i) => {
    const series = seat.series.filter((p) => p.step <= end);
    if (!series.length) return;
    const raw = seatLine(i, series.map((p) => `${xOf(p.step)},${yOf(p.win)}`).join(" "), seat.seat,
      `${seat.player}'s chance to win, each estimate`);
    raw.setAttribute("stroke-width", "1");
    raw.setAttribute("stroke-opacity", "0.35");
    raw.classList.add("estimates");
    chart.appendChild(raw);
    const trend = series.map((p, k) => {
      const last = series.slice(Math.max(0, k - trendOf + 1), k + 1);
      return `${xOf(p.step)},${yOf(last.reduce((sum, q) => sum + q.win, 0) / last.length)}`;
    });
    const line = seatLine(i, trend.join(" "), seat.seat, `${seat.player}'s chance to win, the trend of the last `
      + `${trendOf} estimates`);
    line.classList.add("trend");
    line.dataset.span = String(trendOf);
    chart.appendChild(line);
  });
  moments(a, end).forEach((p) => {
    const i = a.expected.findIndex((s) => s.seat === p.seat);
    const y = p.expected_before ? p.expected_before.win + p.swing : p.expected_played.win;
    const mark = svg("circle", { cx: xOf(p.step), cy: yOf(clip(y)), r: 5, class: "lead-mark",
      stroke: colour(i) });
    const tip = svg("title");
    tip.textContent = `${glyph(p)[0]} ${decided(p)} (${signed(p.swing)} points of win chance)`;
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
  $("expected-legend").replaceChildren(seatLegend(a.expected.map((seat) => seat.player)));
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
  const shown = moments(a, end).sort((x, y) => x.step - y.step);
  shown.forEach((p) => {
    const [mark, words] = glyph(p);
    const item = el("li");
    const link = item.appendChild(stepLink(` ${decided(p)} (step ${p.step})`, p.step));
    link.prepend(seenOnly(mark)); // "??", "!": the words after the link say it ("a blunder")
    item.appendChild(el("span", ` — ${words}: ${moved(p)}.${p.suggested ? " " + verdict(p) : ""}`));
    if (key && p.what_if && better(p)) item.appendChild(button("try it as a what-if", "what-if", () => whatIf(p, key)));
    list.appendChild(item);
  });
  if (!shown.length) {
    list.appendChild(el("li", R.spoilerFree() ? "None yet, up to this step."
      : "None stood out: no decision moved its seat's chance to win by more than the reviewer's few playouts could "
        + "tell from chance."));
  }
  $("moments-unchecked").textContent = shown.some((p) => !p.suggested)
    ? "Where no verdict follows, other moves were not tried: the reviewer's time went to the other moments first." : "";
  $("moments-box").dataset.annotator = key ? "yes" : "no";
}

/** The annotator opens a what-if line from the decision, playing the reviewer's move, and walks it from there. */
async function whatIf(p, key) {
  const made = await api(`/api/records/${R.id}/variations`, { method: "POST", token: key,
    json: { from_step: p.what_if.from_step, parent: p.what_if.parent, title: `the reviewer: ${p.suggested}` } });
  if (!made.ok) return say(`The what-if line could not be made: ${why(made)}.`);
  const played = await api(`/api/variations/${made.body.id}/commands`, { method: "POST", token: key,
    json: { command: p.what_if.command } });
  if (!played.ok) return say(`The suggestion could not be played: ${why(played)}.`);
  // shown once the suggestion is made, every event of it (its first alone may say only "plays an action card")
  const after = played.body.steps ? played.body.steps[1] : p.what_if.from_step + 1;
  location.hash = `line=${made.body.id}&step=${after}&key=${encodeURIComponent(key)}`;
  location.reload();
}

/** What a draw drew, in the move list's words: the line of its entry that names a value chance gave ("public_bath":
 * "…the public bath card"), else its second line (the move's own line comes first, then what chance answered);
 * the setup's draws are its deal. */
function drawn(d) {
  if (d.by === null || d.by === undefined) return "the deal";
  const from = d.from_step ?? d.step - 1;
  const lines = R.story().filter((line) => line.step > from && line.step <= d.step).map((line) => line.text);
  const values = (d.drawn || []).filter((v) => v.length > 1).map((v) => v.replace(/_/g, " ").toLowerCase());
  const named = lines.find((text) => values.some((v) => text.toLowerCase().includes(v)));
  const text = (named ?? lines[Math.min(1, lines.length - 1)] ?? "").replace(/[.;:\s]+$/, "");
  return text.length > 90 ? `${text.slice(0, 89)}…` : text;
}

/** A draw named as a player remembers it: when, what was drawn, and what it did to the seat's chance to win. */
function drawLink(d) {
  const what = drawn(d);
  return stepLink(`${R.when(d.step)}${what ? `, ${what}` : ""} (${signed(d.win)} points of win chance)`, d.step);
}

/** Each seat's luck as a player reads it: how many draws went its way and how many against, and what a draw was
 * worth to its chance to win on average (a sum over dozens of draws passes 100% and reads as nonsense; so does
 * a sum of expected points, whose noise grows with every draw), then its luckiest and unluckiest draw in words.
 * The raw sums stay in the API (`win`, `score`) for machines. */
function drawLuck(a, end) {
  const list = $("luck");
  list.replaceChildren();
  const seats = a.luck.map((seat) => {
    const draws = (seat.each || []).filter((d) => d.step <= end);
    return { seat, draws, mean: draws.length ? draws.reduce((sum, d) => sum + d.win, 0) / draws.length : 0 };
  });
  const luckiest = seats.length > 1 ? seats.reduce((x, s) => (s.mean > x.mean ? s : x)) : null;
  seats.forEach((s) => {
    const { seat, draws, mean } = s;
    const item = el("li");
    item.appendChild(el("strong", seat.player));
    if (!draws.length) {
      item.appendChild(el("span", ": no draws yet."));
      list.appendChild(item);
      return;
    }
    const mine = draws.filter((d) => d.win >= 0.005).length;
    const against = draws.filter((d) => d.win <= -0.005).length;
    const points = Math.round(mean * 100);
    const way = points > 0 ? `favoured ${seat.player}` : points < 0 ? `went against ${seat.player}` : `were even for ${seat.player}`;
    item.appendChild(el("span", `: the draws ${way}${s === luckiest && points > 0 ? " (the luckiest at the table)" : ""}`
      + ` — of ${draws.length}, ${mine} went ${seat.player}'s way and ${against} against`
      + (points ? `; a draw was worth ${signed(mean)} points of win chance on average.` : ".")));
    const best = draws.reduce((x, d) => (d.win > x.win ? d : x));
    const worst = draws.reduce((x, d) => (d.win < x.win ? d : x));
    if (best.win > 0) {
      item.appendChild(el("span", " Luckiest: "));
      item.appendChild(drawLink(best));
      item.appendChild(el("span", "."));
    }
    if (worst.win < 0) {
      item.appendChild(el("span", " Unluckiest: "));
      item.appendChild(drawLink(worst));
      item.appendChild(el("span", "."));
    }
    list.appendChild(item);
  });
}

/** The key moments marked in the move list: a glyph on the line of each decision's first event. */
function markMoves(a, end) {
  document.querySelectorAll("#moves .moment-mark").forEach((node) => node.remove());
  moments(a, end).forEach((p) => {
    const line = document.querySelector(`#moves li[data-step="${p.step + 1}"]`);
    if (!line) return;
    const [mark, words] = glyph(p);
    const span = el("span", mark, "moment-mark");
    span.title = `${words}: ${moved(p)}` + (better(p) ? `; better: ${suggestedWords(p)}` : "");
    span.setAttribute("role", "img"); // a plain span's name is passed over: an image's is said
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
