// @ts-check
// The embedded player (/embed/records/{id}): a record's board, its step sentence and the step controls, in a frame
// on another site. It reads what anyone may read (the public view of a game in progress, every secret once it is
// over): a seat token never goes into a page framed by a stranger. #step=N opens that step; #spoilers=off shows
// nothing after the current step, not even how long the game is.

import { adoptQuery, hashParams } from "./lib/address.js";
import { api, why } from "./lib/api.js";
import { parseBoard, sayBoard } from "./lib/board.js";
import { $ } from "./lib/dom.js";
import { loadTitles, titleName } from "./lib/titles.js";

const id = location.pathname.split("/").pop();
adoptQuery(); // a shared link's ?step=N (what its preview in a chat shows) opens that step
const spoilerFree = hashParams().get("spoilers") === "off";
const state = { steps: 0, at: -1, lines: /** @type {{step: number, text: string}[]} */ ([]) };
const boards = new Map(); // step -> Promise<answer>

const limit = () => (spoilerFree ? Math.min(state.steps, Math.max(0, state.at) + 1) : state.steps);
const boardOf = (n) => {
  if (!boards.has(n)) boards.set(n, api(`/api/records/${id}/steps/${n}/board`));
  return boards.get(n);
};

function notice(sentence) {
  $("notice").textContent = sentence;
  $("notice").hidden = !sentence;
}

// The story line of step n: the last sentence at or before it.
function sentenceAt(n) {
  let found = null;
  for (const line of state.lines) if (line.step <= n) found = line; else break;
  if (n === 0) return "Before the game: nothing has happened yet.";
  return found ? found.text : "";
}

async function go(n) {
  n = Math.max(0, Math.min(limit(), Math.round(n)));
  state.at = n;
  const answer = await boardOf(n);
  if (state.at !== n) return; // a later key won
  const board = $("board");
  const drawn = answer.ok ? parseBoard(answer.body) : null;
  board.classList.toggle("no-board", !drawn);
  if (drawn) board.replaceChildren(drawn);
  else board.textContent = `No board to show: ${why(answer)}.`;
  sayBoard($("board-lines"), drawn); // the picture is silent (aria-hidden): a screen reader reads these sentences
  $("said").textContent = sentenceAt(n);
  const slider = $("slider", "input");
  slider.max = String(limit());
  slider.value = String(n);
  $("step").textContent = String(n);
  $("steps").textContent = String(state.steps);
  $("first", "button").disabled = $("prev", "button").disabled = n === 0;
  $("next", "button").disabled = $("last", "button").disabled = n >= limit();
  const address = new URLSearchParams({ step: String(n) });
  if (spoilerFree) address.set("spoilers", "off");
  $("open", "a").href = `/records/${id}#${address}`;
  history.replaceState(null, "", `#${address}`);
  document.body.dataset.step = String(n);
  [n + 1, n - 1].filter((k) => k >= 0 && k <= limit()).forEach(boardOf); // the next press paints from here
}

function wire() {
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(state.at - 1));
  $("next").addEventListener("click", () => go(state.at + 1));
  $("last").addEventListener("click", () => go(limit()));
  $("slider").addEventListener("input", (e) => go(Number(/** @type {HTMLInputElement} */ (e.target).value)));
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement && e.target.type === "range") return; // the slider steps itself
    const to = { ArrowRight: state.at + 1, ArrowLeft: state.at - 1, Home: 0, End: limit() }[e.key];
    if (to === undefined || e.altKey || e.ctrlKey || e.metaKey) return;
    e.preventDefault();
    go(to);
  });
  addEventListener("hashchange", () => {
    const asked = Number(hashParams().get("step"));
    if (Number.isInteger(asked) && asked !== state.at) go(asked);
  });
}

async function main() {
  wire();
  document.body.classList.toggle("spoiler-free", spoilerFree);
  const record = await api(`/api/records/${id}`);
  if (!record.ok) {
    notice(record.status === 404 ? "There is no record here: it may have been deleted, or the address is wrong."
      : `The record could not be read: ${why(record)}.`);
    $("controls").hidden = true;
    document.body.dataset.step = "none";
    return;
  }
  state.steps = record.body.steps;
  const names = record.body.seats.map((s) => s.name).join(", ");
  const who = () => `${titleName(record.body.title)}: ${names}${record.body.finished ? "" : " · in progress"}`;
  $("who").textContent = who();
  const named = loadTitles().then(() => { $("who").textContent = who(); }); // the title's name, from the catalog
  document.title = `Cronaca — ${names}`;
  const raw = hashParams().get("step");
  const asked = raw === null ? NaN : Number(raw);
  let start = Number.isInteger(asked) && asked >= 0 ? Math.min(asked, state.steps) : record.body.finished ? 0 : state.steps;
  if (raw === null && record.body.finished) { // a finished game opens after its setup, as the record page does
    const turns = await api(`/api/records/${id}/turns`);
    if (turns.ok && turns.body.length) start = Math.min(turns.body[0].to, state.steps);
  }
  state.at = start;
  const story = api(`/api/records/${id}/story`);
  await go(start);
  const told = await story;
  state.lines = told.ok ? told.body.lines : [];
  $("said").textContent = sentenceAt(state.at);
  await named;
  document.body.dataset.loaded = "all";
}

main();
