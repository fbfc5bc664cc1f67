// @ts-check
// The game as checked of a rejected import: its board and move list step by step, read-only.
// The import page links each finding here (#step=N: the step just before its line); a banner says
// where the checker went on with another move than the written one. The API decides what a reader
// may see; a seat token of the import may ride in the hash (#token=...).

import { fromHash, stepInHash, withStep } from "./lib/address.js";
import { api } from "./lib/api.js";
import { fitPhone, parseBoard, placeNames, sayBoard } from "./lib/board.js";
import { $, all, el } from "./lib/dom.js";
import { loadTitles, titleName } from "./lib/titles.js";

const id = location.pathname.split("/")[2];
const token = fromHash("token");
const base = `/api/imports/${id}/replay`;
// An API answer (lib/api.js) asked with the seat token of the import in the address, when there is one.
const ask = (path) => api(path, { token });
const page = { summary: null, at: 0, byStep: new Map(), lines: new Map() };

// ---- by turn, as the record page moves (record.js): a turn's last step, the one before, the one after --------

/** The turns of the game as checked (the summary's), the setup included. */
const turns = () => (page.summary && Array.isArray(page.summary.turns) ? page.summary.turns : []);

function nextTurn(n) {
  const found = turns().map((t) => t.to).find((to) => to > n);
  return found === undefined ? page.summary.steps : found;
}

function previousTurn(n) {
  const ends = turns().map((t) => t.to).filter((to) => to < n);
  return ends.length ? ends[ends.length - 1] : 0;
}

// Whose turn comes next at step n (the board's "to play"), in words: "round 3, Gianmaria D'Angelo's turn (turn 29
// of 40)". Step n is the state after n events: the turn that holds the next event, or the last at the end.
let roundWord = "round"; // what the title calls a round (La Città: "year"), as the story says
function turnAt(n) {
  const all = turns();
  if (!all.length) return "";
  const t = all.find((u) => n >= u.from && n < u.to) || all[all.length - 1];
  if (t.turn === 0) return n === 0 ? "before the setup" : "the setup";
  const who = t.player ? `${t.player}'s turn` : "the game's own step";
  return `${roundWord} ${t.round}, ${who} (turn ${t.turn} of ${all[all.length - 1].turn})`;
}

function notice(sentence, link) {
  const node = $("notice");
  node.replaceChildren(el("span", sentence || ""));
  if (link) {
    const a = el("a", " " + link.text);
    a.href = link.href;
    node.appendChild(a);
  }
  node.hidden = !sentence;
}

// The assumption(s) made at a step: the move the checker put in a line's place starts right after it.
function banner(n) {
  const here = page.summary.assumed.filter((a) => a.step === n);
  const node = $("banner");
  node.replaceChildren();
  here.forEach((a) => {
    const who = a.player ? ` (${a.player})` : "";
    const said = a.assumed === "skipped" || a.assumed.startsWith("skipped")
      ? `line ${a.line}${who}: “${a.written || "the move"}” cannot stand here; the game as checked goes on without it`
      : `line ${a.line}${who}: the file says “${a.written || "?"}”, which cannot stand; the game as checked goes on with “${a.assumed}”`;
    node.appendChild(el("div", said));
  });
  all(document, "#assumed li").forEach((li) => li.classList.toggle("here", Number(li.dataset.step) === n));
}

let fitted = false;
async function board(n) {
  const answer = await ask(`${base}/steps/${n}/board`);
  const node = $("board");
  const drawn = answer.ok && typeof answer.body === "string" ? parseBoard(answer.body) : null;
  if (drawn) {
    node.replaceChildren(drawn);
    node.classList.remove("no-board");
    fitted = fitPhone($("board-pan"), drawn, !fitted) || fitted; // a phone: readable, at the board's focus, once
    sayBoard($("board-lines"), drawn);
    return;
  }
  sayBoard($("board-lines"), null);
  node.replaceChildren(el("p", (answer.body && answer.body.detail) || "The board could not be drawn.", "board-sentence"));
  node.classList.add("no-board");
}

async function show(n) {
  const steps = page.summary.steps;
  n = Math.max(0, Math.min(steps, Number.isFinite(n) ? n : 0));
  page.at = n;
  $("step").textContent = String(n);
  $("slider", "input").value = String(n);
  $("prev", "button").disabled = $("prev-turn", "button").disabled = $("first", "button").disabled = n <= 0;
  $("next", "button").disabled = $("next-turn", "button").disabled = $("last", "button").disabled = n >= steps;
  $("slider", "input").setAttribute("aria-valuetext", `step ${n} of ${steps}`);
  $("turn-note").textContent = turnAt(n);
  banner(n);
  document.querySelectorAll("#moves li.current").forEach((li) => li.classList.remove("current"));
  const line = page.lines.get(n);
  if (line) {
    line.classList.add("current");
    // the move list scrolls to it; the page itself stays where the reader is (on a phone: the banner and board)
    const box = $("moves");
    const top = line.offsetTop; // #moves is positioned: the offset is within it
    if (top < box.scrollTop || top + line.offsetHeight > box.scrollTop + box.clientHeight) {
      box.scrollTop = Math.max(0, top - box.clientHeight / 2);
    }
  }
  $("said").textContent = page.byStep.get(n) || (n === 0 ? "Before the setup." : "");
  const wanted = withStep(n);
  if (location.hash !== wanted) history.replaceState(null, "", wanted);
  await board(n);
  if (page.at === n) document.body.dataset.step = String(n); // the step on the page (tests wait for it)
}

function moveList(story) {
  const moves = $("moves");
  moves.replaceChildren();
  // the first line after an assumption's step tells the move the checker put in the written one's place
  const marked = new Set(page.summary.assumed
    .map((a) => (story.lines.find((s) => s.step > a.step) || {}).step).filter((k) => k !== undefined));
  let list = null;
  let round = undefined;
  if (story.round_word) roundWord = story.round_word;
  story.lines.forEach((s) => {
    if (s.round !== round || !list) {
      round = s.round;
      moves.appendChild(el("h3", round ? `${roundWord.charAt(0).toUpperCase()}${roundWord.slice(1)} ${round}` : "Setup"));
      list = moves.appendChild(el("ol"));
    }
    const li = el("li");
    const a = el("a", s.text); // the sentence names who acts
    a.href = withStep(s.step);
    li.appendChild(a);
    if (marked.has(s.step)) li.classList.add("assumed");
    list.appendChild(li);
    page.byStep.set(s.step, s.text);
    page.lines.set(s.step, li);
  });
}

function assumedList() {
  const list = $("assumed", "ol");
  list.replaceChildren();
  page.summary.assumed.forEach((a) => {
    const li = el("li");
    li.dataset.step = String(a.step);
    const link = el("a", `line ${a.line}`);
    link.href = withStep(a.step);
    li.appendChild(link);
    const goesOn = a.assumed === "skipped" || a.assumed.startsWith("skipped") ? "the game goes on without it"
      : `the game goes on with “${a.assumed}”`;
    li.appendChild(el("span", `${a.player ? " (" + a.player + ")" : ""}: the file says “${a.written || "?"}”; ${goesOn}`));
    list.appendChild(li);
  });
}

async function start() {
  const [summary] = await Promise.all([ask(base), loadTitles()]);
  if (!summary.ok) {
    const facts = (summary.body && summary.body.facts) || {};
    notice(summary.body.detail || "This import's game cannot be replayed.",
           facts.record_id ? { text: "open the record", href: `/records/${facts.record_id}` } : null);
    document.body.dataset.step = "none";
    return;
  }
  page.summary = summary.body;
  const names = page.summary.seats.map((s) => s.name).join(", ");
  $("title").textContent = `The game as checked: ${titleName(page.summary.title)}`;
  $("summary").textContent = `${names} · ${page.summary.summary} · not a record: the file was rejected, `
    + "and this is how the rules read it, with the closest legal move where a line could not stand"
    + (page.summary.as_reported ? "" : " (the rules read it differently today than when the report was made)");
  $("steps").textContent = String(page.summary.steps);
  $("slider", "input").max = String(page.summary.steps);
  const seat = /^seat:(\d+)$/.exec(page.summary.view_of || "");
  const reader = seat ? (page.summary.seats[Number(seat[1])] || {}).name : null;
  $("reader-note").textContent = page.summary.view_of === "all" ? "every seat's secrets shown (the file says the game ended)"
    : seat ? `${reader || "one seat"}'s view: what they held, as their seat token shows it`
      : "what every player sees (a seat token shows that seat's view)";
  assumedList();
  const story = await ask(`${base}/story`);
  if (story.ok) moveList(story.body);
  placeNames($("place-names", "button"), $("board-region"));
  $("prev", "button").addEventListener("click", () => show(page.at - 1));
  $("next", "button").addEventListener("click", () => show(page.at + 1));
  $("prev-turn", "button").addEventListener("click", () => show(previousTurn(page.at)));
  $("next-turn", "button").addEventListener("click", () => show(nextTurn(page.at)));
  $("first", "button").addEventListener("click", () => show(0));
  $("last", "button").addEventListener("click", () => show(page.summary.steps));
  $("slider", "input").addEventListener("input", () => show(Number($("slider", "input").value)));
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const t = e.target;
    if (t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement) return;
    if (t instanceof HTMLInputElement && t.type !== "range") return;
    /** @type {Record<string, () => number>} */
    const moves = {
      ArrowLeft: () => page.at - 1, ArrowRight: () => page.at + 1,
      ArrowUp: () => previousTurn(page.at), PageUp: () => previousTurn(page.at),
      ArrowDown: () => nextTurn(page.at), PageDown: () => nextTurn(page.at),
      Home: () => 0, End: () => page.summary.steps,
    };
    if (!(e.key in moves)) return;
    e.preventDefault(); // the slider's own keys would move it a second time
    show(moves[e.key]());
  });
  window.addEventListener("hashchange", () => {
    const n = stepInHash();
    if (n !== page.at) show(n);
  });
  await show(stepInHash());
}

start();
