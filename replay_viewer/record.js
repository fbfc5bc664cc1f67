// @ts-check
// The record page: one game's board, story and scores, step by step, as its reader may see them.
// The API decides everything a reader may see; this page only asks and draws. Its state lives in
// the address's hash (#step=N&token=...&spoilers=off) so a link opens the same page again.

import { hashParams } from "./lib/address.js";
import { answered, api } from "./lib/api.js";
import { Board, fitPhone, parseBoard, patch, placeNames, sayBoard } from "./lib/board.js";
import { colour, roundMarks, seatLegend, seatLine } from "./lib/chart.js";
import { $, el, seenOnly, svg, whenIdle } from "./lib/dom.js";
import { kindWords, render } from "./lib/render.js";
import { turnCrier, turnSentence } from "./lib/turns.js";
import { opening } from "./opening.js";

const id = location.pathname.split("/").pop();
// Text that changes only when it differs: an unchanged text written again still costs a frame.
const setText = (node, text) => { if (node.textContent !== text) node.textContent = text; };
const POLL_MS = 2000; // polling, when the live stream cannot be had
const CHECK_MS = 30000; // while the stream is open: a cheap check anyway, should an announcement be lost
const STREAM_AGAIN_MS = 30000; // after the stream was refused: poll, and try the stream again this much later
const CACHE = 120; // boards kept; neighbours are fetched ahead so stepping paints from here
const HOLD_MS = 400; // after a move, the decision panel's question goes before the board's reads, this long at most

const page = {
  token: hashParams().get("token"),
  spoilerFree: hashParams().get("spoilers") === "off",
  record: null, // the summary: /api/records/{id}
  etag: null,
  turns: [],
  story: [], // lines, ordered by step
  scores: null,
  at: 0, // the step shown (or being fetched)
  shown: -1, // the step whose board is on the page
  noLayout: null, // the API's sentence when this record has no board drawing
  viewOf: null,
  storyLoaded: false,
  storyError: "",
  line: null, // a variation's id while its branch is shown (study.js), null on the main line
  lineLast: 0, // that variation's last step
  roundWord: "round", // what the title calls a round (La Città: "year"), as the story and the scores say
};
const Round = () => page.roundWord.charAt(0).toUpperCase() + page.roundWord.slice(1);
const boards = new Map(); // step -> Promise<{board} | {sentence}>; a board's text is parsed when first needed
const steps = new Map(); // step -> Promise<step JSON>
let lineAt = []; // story steps, ascending, for the current line
let lineNodes = new Map(); // step -> <li>
let lineText = new Map(); // step -> its sentence
let groups = []; // {node, from}: turn groups of the move list
let generation = 0; // bumped when the reader changes: older answers are dropped

// An API answer (lib/api.js) asked with this page's seat token, when it has one.
const ask = (path, options = {}) => api(path, { token: page.token, ...options });

let aboutStep = false; // the notice is about an asked-for step: a good step clears it
function notice(sentence, step = false) {
  aboutStep = step;
  const node = $("notice");
  node.textContent = sentence || "";
  node.hidden = !sentence;
}

function hashFor(step) {
  const params = new URLSearchParams();
  params.set("step", String(step));
  if (page.token) params.set("token", page.token);
  if (page.spoilerFree) params.set("spoilers", "off");
  if (page.line) params.set("line", page.line);
  const key = hashParams().get("key"); // the annotator key (study.js) stays in the address
  if (key) params.set("key", key);
  const table = hashParams().get("table"); // the table key (decision.js) too
  if (table) params.set("table", table);
  return "#" + params.toString();
}

const last = () => (page.line ? page.lineLast : page.record ? page.record.steps : 0);
// Where the shown line's steps and boards are read: the record, the record as ruled (study.js's "ruled"
// line, issue 15), or the variation being walked.
const lineBase = () => (page.line === "ruled" ? `/api/records/${id}/ruled`
  : page.line ? `/api/variations/${page.line}` : `/api/records/${id}`);
// How far the slider reaches: the whole record, or in spoiler-free mode one step past the current one.
const limit = () => (page.spoilerFree ? Math.min(last(), page.at + 1) : last());
const names = () => (page.record ? page.record.seats.map((s) => s.name) : []);
// A title's display name (lib/titles.js, imported after the first board): its id until then.
let titleName = (title) => title;

// ---- loading ----------------------------------------------------------------------------------

// An answer opening.js asked for before this module ran, taken once, when this reader is still the one it asked as.
/** @param {"record" | "board" | "turns"} key */
function early(key) {
  const answer = opening[key];
  opening[key] = null;
  return answer && (page.token || null) === (opening.token || null) && generation === 0 ? answered(answer) : null;
}

async function loadRecord() {
  const answer = await (early("record") || ask(`/api/records/${id}`, { cache: "no-store" }));
  if (answer.status === 403 && page.token) {
    notice("That seat token opens no seat of this record: you see the public view instead.");
    page.token = null;
    const params = hashParams();
    params.delete("token");
    history.replaceState(null, "", "#" + params.toString());
    return loadRecord();
  }
  if (!answer.ok) {
    const why = answer.status === 404 ? "There is no record here: it may have been deleted, or the address is wrong."
      : `The record could not be read: ${answer.body.detail || answer.status}.`;
    throw Object.assign(new Error(why), { fatal: true });
  }
  page.record = answer.body;
  page.etag = answer.response.headers.get("ETag");
}

async function loadTurns() {
  const answer = await (early("turns") || ask(`/api/records/${id}/turns`));
  page.turns = answer.ok ? answer.body : [];
}

async function loadStory() {
  const answer = await ask(`/api/records/${id}/story`);
  page.storyLoaded = true;
  page.storyError = answer.ok ? "" : "The move list could not be read: " + (answer.body.detail || answer.status) + ".";
  page.story = answer.ok ? answer.body.lines : [];
  if (answer.ok && answer.body.round_word) page.roundWord = answer.body.round_word;
  page.viewOf = answer.ok ? answer.body.view_of : null;
}

// In progress the scores answer only that they come at the end (docs/api.md): read once, and again when the game ends.
let scoresRead = false;
const scoresDue = () => !scoresRead || (page.record !== null && page.record.finished);

async function loadScores() {
  const answer = await ask(`/api/records/${id}/scores`);
  scoresRead = answer.ok;
  page.scores = answer.ok ? answer.body : { available: false, reason: answer.body.detail || "the scores could not be read" };
  if (answer.ok && answer.body.round_word) page.roundWord = answer.body.round_word;
}

async function loadAll() {
  await loadRecord();
  await Promise.all([loadTurns(), loadStory(), loadScores()]);
}

function forgetReader() {
  generation += 1;
  boards.clear();
  steps.clear();
  page.noLayout = null;
  page.shown = -1;
}

// ---- the board ---------------------------------------------------------------------------------

function fetchBoard(n) {
  if (page.noLayout !== null) return Promise.resolve({ sentence: page.noLayout });
  const known = boards.get(n);
  if (known) {
    boards.delete(n);
    boards.set(n, known); // most recently used last
    return known;
  }
  const mine = generation;
  const promise = (async () => {
    const asked = n === opening.step && !page.line ? early("board") : null;
    const answer = await (asked || ask(`${lineBase()}/steps/${n}/board`));
    if (answer.ok) {
      const drawn = { board: new Board(answer.body) };
      whenIdle(() => drawn.board.outline()); // outlined between presses, not when the key comes
      return drawn;
    }
    const type = (answer.body && answer.body.type) || "";
    if (answer.status === 404 && type.endsWith("no-layout")) {
      if (mine === generation) page.noLayout = answer.body.detail || "This record's edition has no board drawing.";
      return { sentence: answer.body.detail || "This record's edition has no board drawing." };
    }
    boards.delete(n); // an error is not kept: the next visit asks again
    return { sentence: "The board could not be drawn: " + ((answer.body && answer.body.detail) || answer.status) + "." };
  })();
  boards.set(n, promise);
  while (boards.size > CACHE) boards.delete(boards.keys().next().value);
  return promise;
}

function prefetch(n) {
  const around = [n + 1, n - 1, n + 2, n + 3, n - 2, nextTurn(n), previousTurn(n)];
  around.filter((k) => k >= 0 && k <= limit() && !boards.has(k)).forEach((k) => fetchBoard(k));
  // the next and previous step's sentence too, so a key's status line is written with the rest of the
  // step's page in the frame after the board, not in a frame of its own when the answer comes
  [n + 1, n - 1].filter((k) => k >= 0 && k <= limit() && !steps.has(k)).forEach((k) => stepAnswer(k));
}

let onPage = null; // the Board whose drawing #board holds (with its outline), or null
let fitted = false; // the phone's panning box was scrolled to the board's focus once: later boards keep the reader's place

// The new board goes in by patching the one on the page when there is one (see patch).
function paintBoard(n, drawn) {
  const board = $("board");
  const tree = drawn.board ? drawn.board.outline() : null;
  const live = board.firstElementChild;
  const patching = tree && onPage && live && live.nodeName === "svg";
  const whole = tree && !patching ? parseBoard(drawn.board.text) : null;
  if (patching) {
    patch(live, onPage.text, onPage.outline(), drawn.board.text, tree);
    onPage = drawn.board;
  } else if (whole) {
    board.replaceChildren(whole);
    board.classList.remove("no-board");
    onPage = drawn.board;
    fitted = fitPhone($("board-pan"), whole, !fitted) || fitted; // a phone opens the board readable, at its focus
  } else {
    board.replaceChildren(el("p", drawn.board ? "The board drawing for this step could not be read." : drawn.sentence, "board-sentence"));
    board.classList.add("no-board");
    onPage = null;
    if (!drawn.board) $("data", "details").open = true;
  }
  $("board-region").setAttribute("aria-label", `board at step ${n}`);
  page.shown = n;
  document.body.dataset.step = String(n);
  document.dispatchEvent(new CustomEvent("cronaca:step", { detail: { step: n, line: page.line, board: Boolean(onPage) } }));
}

// ---- moving ------------------------------------------------------------------------------------

function turnEnds() {
  return page.turns.map((t) => t.to);
}

function nextTurn(n) {
  const found = turnEnds().find((to) => to > n);
  return found === undefined ? last() : found;
}

function previousTurn(n) {
  const ends = turnEnds().filter((to) => to < n);
  return ends.length ? ends[ends.length - 1] : 0;
}

async function go(n, options = {}) {
  if (!page.record) return;
  n = Math.max(0, Math.min(options.unbounded ? last() : limit(), Math.round(n)));
  page.at = n;
  followed = options.follow ? n : null;
  if (!options.keepHash) hashDue = true; // written after the board's frame (a same-page navigation costs a millisecond or two)
  showControls(n);
  afterFrame(); // the move list follows the slider even while a board is on its way
  const mine = generation;
  const drawn = await fetchBoard(n);
  if (page.at !== n || mine !== generation) return; // a newer step (or reader) was asked for meanwhile
  paintBoard(n, drawn);
  afterFrame();
}

// The board is painted in the frame after the key; the move list, the chart's cursor, the step's
// sentence and status, and fetching the neighbours wait for the frame after it, so they never
// delay the board (several calls before that run once, for the step shown by then). Whatever
// else waits for that moment (study.js's notes panel) listens for "cronaca:after-frame" and
// goes into the same second frame: a third frame would keep the display's beat running into
// the reader's next key.
let later = false;
let hashDue = false;
// The step the page moved to because the game moved on (live): its neighbours are not fetched ahead, since the page
// follows the game rather than the reader (four followers' neighbours cost the server more than the next move); the
// reader's own move from there fetches them.
let followed = null;
function afterFrame() {
  if (later) return;
  later = true;
  requestAnimationFrame(() => setTimeout(() => {
    later = false;
    const n = page.at;
    if (hashDue) whenIdle(writeHash);
    showAround(n);
    if (page.shown === n) {
      if (followed !== n) prefetch(n);
      showStep(n);
      sayBoard($("board-lines"), onPage ? $("board").firstElementChild : null);
    }
    document.dispatchEvent(new CustomEvent("cronaca:after-frame", { detail: { step: n } })); // study.js's panel, same frame
  }, 0));
}

function writeHash() {
  if (!hashDue) return;
  hashDue = false;
  // An address the reader has just opened (another seat's token, spoilers on or off) and the page has not
  // read yet is the hashchange handler's: written over here, the token would be lost before it is read.
  const params = hashParams();
  if ((params.get("token") || null) !== page.token || (params.get("spoilers") === "off") !== page.spoilerFree) return;
  history.replaceState(null, "", hashFor(page.at));
}

function showPlace(n) {
  showControls(n);
  showAround(n);
}

// The controls: cheap, done at once so the slider never lags.
function showControls(n) {
  const slider = $("slider", "input");
  slider.max = String(limit());
  slider.value = String(n);
  setText($("step"), String(n));
  setText($("steps"), String(last()));
  $("of").hidden = page.spoilerFree;
  slider.setAttribute("aria-valuetext", `step ${n}` + (page.spoilerFree ? "" : ` of ${last()}`));
  $("first", "button").disabled = n === 0;
  $("prev", "button").disabled = $("prev-turn", "button").disabled = n === 0;
  $("next", "button").disabled = $("next-turn", "button").disabled = n >= limit();
  $("last", "button").disabled = n >= last();
}

// The story line, the spoiler cut and the chart's cursor for step n.
function showAround(n) {
  cutStory(n);
  markLine(n);
  drawScores(n);
}

function stepAnswer(n) {
  let known = steps.get(n);
  if (!known) {
    known = ask(`${lineBase()}/steps/${n}`);
    steps.set(n, known);
    if (steps.size > CACHE) steps.delete(steps.keys().next().value);
  }
  return known;
}

async function showStep(n) {
  const known = stepAnswer(n);
  const mine = generation;
  const answer = await known;
  if (page.at !== n || mine !== generation) return;
  const status = $("status");
  if (!answer.ok) {
    steps.delete(n);
    status.textContent = "This step could not be read: " + (answer.body.detail || answer.status) + ".";
    return;
  }
  const step = answer.body;
  const p = step.pending;
  const next = p.seat === null || p.seat === undefined ? kindWords(p) : `${names()[p.seat] || "seat " + p.seat}: ${kindWords(p)}`;
  // Written only when it says something new: a write of the same text is still a change to paint, and
  // every frame keeps the browser on the display's beat, so the next key would wait for a whole frame.
  setText(status, `next: ${next} · view: ${step.view_of}`);
  shownView = step;
  if ($("data", "details").open) renderData(step);
  else if ($("state").firstChild) $("state").replaceChildren(); // drawn when opened: a large view costs a frame to lay out
}
let shownView = null;

function renderData(step) {
  const state = $("state");
  state.replaceChildren(render(step.view));
  if (step.scores) {
    state.appendChild(el("h2", "scores"));
    state.appendChild(render(step.scores.seats));
  }
}

// ---- the story ---------------------------------------------------------------------------------

const escape = (text) => String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

// Where a line's chance outcomes came from (docs/trust.md): drawn by the service from committed seeds, or asserted
// by a transcriber (a table's word). A small mark after the line's text; nothing where the line met no chance.
const BY = {
  service: ["⚄", "drawn by the service from committed seeds (provable)"],
  transcriber: ["✎", "asserted by the transcriber (a table's word)"],
};
// (an image with a name: a screen reader says the words, where a plain span's aria-label is passed over)
const byMark = (by) => (BY[by] ? ` <span class="by by-${by}" role="img" title="${BY[by][1]}" aria-label="${BY[by][1]}">${BY[by][0]}</span>` : "");

// The move list's blocks: one a turn (the lines of page.story it holds, [start, end)), in order, with the round it
// belongs to. A pure reading of the turns and the lines: what buildStory draws and what a live move compares.
function storyBlocks() {
  const byStep = page.story;
  const blocks = [];
  let k = 0;
  const turns = page.turns.length ? page.turns : [{ turn: 0, round: 0, seat: null, player: null, from: 0, to: last() }];
  turns.forEach((turn, t) => {
    const end = t === turns.length - 1 ? Infinity : turn.to;
    const start = k;
    while (k < byStep.length && byStep[k].step <= end) k++;
    if (k === start) return;
    blocks.push({ turn: turn.turn, round: turn.round, player: turn.player || null, start, end: k, from: byStep[start].step });
  });
  return blocks;
}

// One line of the move list, one turn's opening (its <div> and <ol>), one round's opening (its <section>), as markup.
const lineMarkup = (line) => `<li role="listitem" data-step="${line.step}"><a role="link" tabindex="-1" data-step="${line.step}">`
  + `${escape(line.text)}</a>${byMark(line.by)}</li>`;
function turnOpening(block) {
  const who = escape(block.player || "the game");
  return `<div class="turn" data-from="${block.from}">` + (block.turn > 0 ? `<p class="turn-head">${who}</p>` : "")
    + `<ol role="list" aria-label="${block.turn === 0 ? "setup" : `${page.roundWord} ${escape(block.round)}, ${who}`}">`;
}
const roundOpening = (block) => `<section class="round" data-from="${block.from}"><h3>`
  + `${block.turn === 0 ? "Setup" : Round() + " " + escape(block.round)}</h3>`;
const sameLine = (a, b) => a.step === b.step && a.text === b.text && (a.by || null) === (b.by || null);
const sameBlock = (a, b) => a.turn === b.turn && a.round === b.round && a.player === b.player && a.start === b.start;

// What the move list on the page was drawn from: its blocks and lines (a live move compares the new ones with them).
let drawnStory = { blocks: [], lines: [], line: null, roundWord: "" };

// The move list as one piece of markup (thousands of lines: far faster than node by node), every
// text escaped; then the lines and groups are looked up once for highlighting and spoiler cuts.
// A line is a link without an href (role=link, in the tab order, Enter and clicks handled in wire):
// Chromium's navigation predictor watches a sample of a page's href links with a delayed
// IntersectionObserver, which asked for a main frame with nothing to draw 30-120 ms after each step
// as the list scrolled, and kept the next key waiting for the display's beat (docs/benchmarks.md).
// A live move that only adds lines (the list on the page is the start of the new one) is appended instead: the
// lines already drawn stay the same nodes, so the reader's focus, the list's scroll and a screen reader's place
// in it are kept, and the page does a few lines' work rather than the whole game's.
function buildStory() {
  const blocks = storyBlocks();
  if (!appendStory(blocks)) drawStory(blocks);
  drawnStory = { blocks, lines: page.story, line: page.line, roundWord: page.roundWord };
  const byStep = page.story;
  // the marks explained on the page, not only in their tooltips: one line per kind the list shows
  const kinds = Object.keys(BY).filter((by) => byStep.some((line) => line.by === by));
  const legend = kinds.map((by) => `${BY[by][0]} chance ${BY[by][1]}`).join(" · ");
  if ($("story-marks").dataset.said !== legend) { // each mark seen, its words said (the lines' marks say theirs)
    $("story-marks").dataset.said = legend;
    $("story-marks").replaceChildren(...kinds.flatMap((by, k) => [k ? " · " : "", seenOnly(BY[by][0]), ` chance ${BY[by][1]}`]));
  }
  $("story-marks").hidden = !kinds.length;
  setText($("story-note"), !page.storyLoaded ? "Loading the move list…" : page.storyError
    || (byStep.length ? "" : "Nothing has happened yet."));
  document.dispatchEvent(new CustomEvent("cronaca:story", { detail: { line: page.line } })); // study.js adds notes and branches
}

function drawStory(blocks) {
  const moves = $("moves");
  const byStep = page.story;
  const focused = roving !== null && document.activeElement === roving ? Number(roving.dataset.step) : null;
  const html = [];
  let round = null;
  blocks.forEach((block) => {
    if (block.round !== round || !html.length) {
      if (html.length) html.push("</section>");
      round = block.round;
      html.push(roundOpening(block));
    }
    html.push(turnOpening(block));
    for (let i = block.start; i < block.end; i++) html.push(lineMarkup(byStep[i]));
    html.push("</ol></div>");
  });
  if (html.length) html.push("</section>");
  moves.innerHTML = html.join("");
  lineNodes = new Map();
  lineAt = [];
  lineText = new Map(byStep.map((line) => [line.step, line.text]));
  /** @type {NodeListOf<HTMLLIElement>} */ (moves.querySelectorAll("li[data-step]")).forEach((item) => {
    const step = Number(item.dataset.step);
    lineNodes.set(step, item);
    lineAt.push(step);
  });
  groups = [.../** @type {NodeListOf<HTMLElement>} */ (moves.querySelectorAll("[data-from]"))].map((node) => ({ node, from: Number(node.dataset.from) }));
  marked = null;
  cutAt = null;
  roving = null;
  rove(lineAt.length ? lineNodes.get(lineAt[0]) : null);
  // the reader was on a line of the list: they stay on that line (its step's new node), not thrown to the page's top
  const again = focused === null ? null : lineNodes.get(lineOf(focused));
  if (again) {
    rove(again);
    /** @type {HTMLElement} */ (again.querySelector(":scope > a[data-step]")).focus({ preventScroll: true });
  }
}

// The lines a live move added, appended to the list on the page, when that list is the new one's start (the same
// lines, the same turns, only the last turn grown): true when done; false when the list must be drawn anew (a
// take-back, another reader, a variation's branch, the first drawing).
function appendStory(blocks) {
  const before = drawnStory;
  const old = before.blocks;
  const lines = page.story;
  if (!old.length || before.line !== page.line || before.roundWord !== page.roundWord || !lineAt.length
    || lines.length < before.lines.length || blocks.length < old.length) return false;
  for (let i = 0; i < before.lines.length; i++) if (!sameLine(before.lines[i], lines[i])) return false;
  for (let b = 0; b < old.length; b++) {
    const grown = b === old.length - 1;
    if (!sameBlock(old[b], blocks[b]) || (grown ? blocks[b].end < old[b].end : blocks[b].end !== old[b].end)) return false;
  }
  const moves = $("moves");
  const sections = moves.querySelectorAll(":scope > section.round");
  let section = /** @type {HTMLElement | null} */ (sections[sections.length - 1] || null);
  const lastOl = section && section.querySelector(":scope > div.turn:last-of-type > ol");
  if (!section || !lastOl) return false;
  const tail = old[old.length - 1];
  const added = [];
  const grownBy = blocks[old.length - 1];
  if (grownBy.end > tail.end) {
    lastOl.insertAdjacentHTML("beforeend", lines.slice(tail.end, grownBy.end).map(lineMarkup).join(""));
    added.push(...[...lastOl.children].slice(-(grownBy.end - tail.end)));
  }
  let round = tail.round;
  const newGroups = [];
  for (const block of blocks.slice(old.length)) {
    if (block.round !== round) {
      section.insertAdjacentHTML("afterend", roundOpening(block) + "</section>");
      section = /** @type {HTMLElement} */ (section.nextElementSibling);
      newGroups.push(section);
      round = block.round;
    }
    section.insertAdjacentHTML("beforeend", turnOpening(block) + lines.slice(block.start, block.end).map(lineMarkup).join("") + "</ol></div>");
    const turn = /** @type {HTMLElement} */ (section.lastElementChild);
    newGroups.push(turn);
    added.push(...turn.querySelectorAll("li[data-step]"));
  }
  const cut = cutAt === null ? Infinity : cutAt;
  lines.slice(tail.end).forEach((line) => lineText.set(line.step, line.text));
  added.forEach((node) => {
    const item = /** @type {HTMLLIElement} */ (node);
    const step = Number(item.dataset.step);
    lineNodes.set(step, item);
    lineAt.push(step);
    if (step > cut) item.hidden = true; // spoiler-free: beyond the cut, as cutStory would have it
  });
  newGroups.forEach((node) => {
    const from = Number(node.dataset.from);
    groups.push({ node, from });
    if (from > cut) node.hidden = true;
  });
  return true;
}

// The move list is one tab stop (it was one per line: hundreds of tabs to the scores): the current line's link
// holds tabindex 0, every other -1, and the arrow keys walk the lines (wire). When the reader's focus is on a
// line, it follows the current line.
let roving = null;
function rove(item) {
  const link = item ? /** @type {HTMLElement | null} */ (item.querySelector(":scope > a[data-step]")) : null;
  if (!link || link === roving) return;
  const focused = roving !== null && document.activeElement === roving;
  if (roving) roving.tabIndex = -1;
  link.tabIndex = 0;
  roving = link;
  if (focused) link.focus({ preventScroll: true });
}

// The story line of step n: the last line at or before it.
function lineOf(n) {
  let lo = 0;
  let hi = lineAt.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (lineAt[mid] <= n) { found = mid; lo = mid + 1; } else hi = mid - 1;
  }
  return found < 0 ? null : lineAt[found];
}

// The move list's current line: marked, and its link says so to a screen reader as it is focused ("current step").
function current(item, on) {
  item.classList.toggle("current", on);
  const link = item.querySelector(":scope > a[data-step]");
  if (link && on) link.setAttribute("aria-current", "step");
  else if (link) link.removeAttribute("aria-current");
}

/** Where the move list scrolls to show `item` a third of the way down, or null when it is in view already. */
function scrollFor(item, box) {
  if (!item || item.hidden) return null;
  const top = item.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;
  return top < box.scrollTop || top + item.offsetHeight > box.scrollTop + box.clientHeight
    ? Math.max(0, top - box.clientHeight / 3) : null;
}

let marked = null;
// The list's box changes height (the decision panel drawn above it on a wide screen, the window resized): its
// current move is kept in view.
new ResizeObserver(() => {
  const box = $("moves"), scroll = scrollFor(marked === null ? null : lineNodes.get(marked), box);
  if (scroll !== null) box.scrollTop = scroll;
}).observe($("moves"));
function markLine(n) {
  if (page.line) { // a variation's branch is shown: study.js marks its move and says it
    const old = marked === null ? null : lineNodes.get(marked);
    if (old) current(old, false);
    marked = null;
    return;
  }
  const at = lineOf(n);
  const text = at === null ? null : lineText.get(at);
  if (marked !== at) {
    const item = at === null ? null : lineNodes.get(at);
    const box = $("moves");
    const scroll = scrollFor(item, box); // geometry read before anything is written: one layout, not two
    const old = marked === null ? null : lineNodes.get(marked);
    if (old) current(old, false);
    marked = at;
    if (item) {
      current(item, true);
      if (scroll !== null) box.scrollTop = scroll;
      rove(item);
    }
  }
  $("said").textContent = n === 0 ? "Before the game: nothing has happened yet."
    : text ? (at === n ? text : `${text} (and ${n - at} quieter step${n - at > 1 ? "s" : ""} after it)`) : "";
}

// Spoiler-free: lines after the current step are hidden, changed only where the cut moved.
let cutAt = null;
function cutStory(n) {
  const cut = page.spoilerFree ? n : Infinity;
  if (cut === cutAt) return;
  const lo = cutAt === null ? -Infinity : Math.min(cut, cutAt);
  const hi = cutAt === null ? Infinity : Math.max(cut, cutAt);
  cutAt = cut;
  lineAt.forEach((step) => {
    if (step <= lo || step > hi) return;
    const item = lineNodes.get(step);
    const hide = step > cut;
    if (item.hidden !== hide) item.hidden = hide;
  });
  groups.forEach((g) => {
    const hide = g.from > cut;
    if (g.node.hidden !== hide) g.node.hidden = hide;
  });
}

// ---- scores ------------------------------------------------------------------------------------

const pretty = (key) => String(key).replace(/_/g, " ");

function cell(value) {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) return value.map(cell).join(", ");
  if (typeof value === "object") {
    if (value.hidden === true) return "hidden";
    return Object.entries(value).map(([k, v]) => `${pretty(k)} ${cell(v)}`).join(", ");
  }
  return String(value);
}

function roundAt(step) {
  const rounds = (page.scores && page.scores.rounds) || [];
  let found = null;
  rounds.forEach((r) => { if (r.step <= step) found = r.round; });
  return found;
}

/** When a step happened in the game's own words: "in the setup", "year 3" (La Città), "round 2". */
function when(step) {
  const round = roundAt(step);
  return round === null || round < 1 ? "in the setup" : `${page.roundWord} ${round}`;
}

let chartKey = null;
let cursor = null;
let xOf = null;
function drawScores(n) {
  const s = page.scores;
  const note = $("scores-note");
  if (!s || !s.available) {
    if (chartKey !== "none") {
      chartKey = "none";
      note.textContent = s ? s.reason.charAt(0).toUpperCase() + s.reason.slice(1) + "." : "";
      ["chart", "legend", "leads", "final"].forEach((k) => $(k).replaceChildren());
    }
    return;
  }
  const end = page.spoilerFree ? n : s.steps;
  const key = `${end}`;
  if (chartKey !== key) {
    chartKey = key;
    note.textContent = page.spoilerFree ? "Spoiler-free: the chart stops at this step." : "";
    drawChart(s, end);
    drawLeads(s, end);
    drawFinal(s, n);
  } else if (page.spoilerFree) {
    drawFinal(s, n);
  }
  if (cursor && xOf) {
    const x = xOf(Math.min(n, end));
    cursor.setAttribute("x1", x);
    cursor.setAttribute("x2", x);
  }
}

// The chart's drawn width: the width it is shown at (beside a finished record's analysis, half the page), so
// its labels keep their size; drawn again when that changes by more than a little (the analysis comes later).
const chartWidth = () => Math.round(Math.max(450, Math.min(900, $("chart").clientWidth || 900)));
let chartDrawnAt = 0;
new ResizeObserver(() => {
  if (chartKey !== null && chartKey !== "none" && Math.abs(chartWidth() - chartDrawnAt) > 40) {
    chartKey = null;
    drawScores(page.at);
  }
}).observe($("chart"));

function drawChart(s, end) {
  const W = chartWidth();
  chartDrawnAt = W;
  const H = 240;
  const M = { left: 44, right: 16, top: 12, bottom: 34 };
  const span = Math.max(1, end);
  const totals = s.seats.flatMap((seat) => seat.totals.slice(0, end + 1));
  let lo = Math.min(0, ...totals);
  let hi = Math.max(1, ...totals);
  if (hi === lo) hi = lo + 1;
  xOf = (step) => (M.left + (step / span) * (W - M.left - M.right)).toFixed(1);
  const yOf = (v) => (H - M.bottom - ((v - lo) / (hi - lo)) * (H - M.top - M.bottom)).toFixed(1);
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", class: "score-chart",
    "aria-label": `running scores of every seat, steps 0 to ${end}; the lead changes and the final ranking below say `
      + "it in words; click to jump to a step" });
  // y grid: about five steps
  const stepY = Math.max(1, Math.ceil((hi - lo) / 5));
  for (let v = Math.ceil(lo / stepY) * stepY; v <= hi; v += stepY) {
    chart.appendChild(svg("line", { x1: M.left, x2: W - M.right, y1: yOf(v), y2: yOf(v), class: "grid" }));
    const label = svg("text", { x: M.left - 6, y: Number(yOf(v)) + 4, "text-anchor": "end", class: "axis" });
    label.textContent = String(v);
    chart.appendChild(label);
  }
  // round marks (La Città: years) on the x axis, labelled as often as there is room
  roundMarks(chart, (s.rounds || []).filter((r) => r.step <= end), xOf, M.top, H - M.bottom, 18);
  const caption = svg("text", { x: W - M.right, y: H - 4, "text-anchor": "end", class: "axis" });
  caption.textContent = page.roundWord;
  chart.appendChild(caption);
  s.seats.forEach((seat, i) => {
    const points = seat.totals.slice(0, end + 1).map((v, step) => `${xOf(step)},${yOf(v)}`).join(" ");
    chart.appendChild(seatLine(i, points, seat.seat, `${seat.name}'s running score`));
  });
  (s.lead_changes || []).filter((c) => c.step <= end).forEach((c) => {
    const seat = s.seats.find((x) => x.seat === c.seat);
    if (!seat) return;
    const mark = svg("circle", { cx: xOf(c.step), cy: yOf(seat.totals[c.step]), r: 5, class: "lead-mark",
      stroke: colour(s.seats.indexOf(seat)) });
    const tip = svg("title");
    tip.textContent = `${seat.name} takes the lead at step ${c.step}`;
    mark.appendChild(tip);
    chart.appendChild(mark);
  });
  cursor = svg("line", { x1: 0, x2: 0, y1: M.top, y2: H - M.bottom, class: "cursor" });
  chart.appendChild(cursor);
  chart.addEventListener("click", (e) => {
    const box = chart.getBoundingClientRect();
    const x = ((e.clientX - box.left) / box.width) * W;
    go(((x - M.left) / (W - M.left - M.right)) * span);
  });
  $("chart").replaceChildren(chart);
  $("legend").replaceChildren(seatLegend(s.seats.map((seat) => seat.name)));
}

function drawLeads(s, end) {
  const list = $("leads");
  list.replaceChildren();
  (s.lead_changes || []).filter((c) => c.step <= end).forEach((c) => {
    const seat = s.seats.find((x) => x.seat === c.seat);
    const link = el("a", `${seat ? seat.name : "seat " + c.seat} takes the lead — ${when(c.step)}`);
    link.setAttribute("role", "link"); // no href, as the move list's lines (see buildStory)
    link.tabIndex = 0;
    link.dataset.step = String(c.step);
    list.appendChild(el("li")).appendChild(link);
  });
}

let finalShown = null;
function drawFinal(s, n) {
  const show = s.final && (!page.spoilerFree || n >= s.steps);
  if (finalShown === show) return;
  finalShown = show;
  const box = $("final");
  box.replaceChildren();
  if (!show) return;
  const final = s.final;
  const nameOf = (seat) => (s.seats.find((x) => x.seat === seat) || { name: "seat " + seat }).name;
  const bySeat = new Map((final.seats || []).map((x) => [x.seat, x]));
  box.appendChild(el("h3", "Final ranking"));
  const ranking = el("ol", undefined, "ranking");
  (final.ranking || []).forEach((seat, i) => {
    const total = bySeat.has(seat) ? bySeat.get(seat).total : "—";
    const before = i > 0 ? bySeat.get(final.ranking[i - 1]) : null;
    const tied = before && bySeat.get(seat) && before.total === bySeat.get(seat).total;
    const said = bySeat.has(seat) && bySeat.get(seat).said; // the title's sentence: what each part of the score is worth
    ranking.appendChild(el("li", (said || `${nameOf(seat)}: ${total}`) + (tied ? " (tied on points; placed by the tie-break)" : "")));
  });
  box.appendChild(ranking);
  const seats = final.seats || [];
  const keys = [...new Set(seats.flatMap((x) => Object.keys(x.breakdown || {})))];
  const table = el("table", undefined, "breakdown");
  table.appendChild(el("caption", "Final breakdown"));
  const head = table.createTHead().insertRow();
  const corner = head.appendChild(el("th", ""));
  corner.setAttribute("scope", "col");
  corner.appendChild(el("span", "what counts", "visually-hidden")); // the rows' column has a head a reader hears
  seats.forEach((x) => head.appendChild(el("th", nameOf(x.seat))).setAttribute("scope", "col"));
  const body = table.createTBody();
  keys.forEach((k) => {
    const row = body.insertRow();
    row.appendChild(el("th", pretty(k))).setAttribute("scope", "row");
    seats.forEach((x) => row.appendChild(el("td", cell((x.breakdown || {})[k]))));
  });
  const totalRow = body.insertRow();
  totalRow.className = "total";
  totalRow.appendChild(el("th", "total")).setAttribute("scope", "row");
  seats.forEach((x) => totalRow.appendChild(el("td", cell(x.total))));
  box.appendChild(table);
}

// ---- the reader --------------------------------------------------------------------------------

function fillReader() {
  const select = $("seat", "select");
  select.replaceChildren();
  const finished = page.record.finished;
  select.appendChild(new Option("public (what every player sees)", "public"));
  page.record.seats.forEach((s) => select.appendChild(new Option(`${s.name}'s seat (needs the seat's token)`, `seat:${s.seat}`)));
  const all = new Option(finished ? "all-seeing" : "all-seeing (once the game is over)", "all");
  all.disabled = !finished;
  select.appendChild(all);
  const viewOf = page.viewOf || (finished ? "all" : page.token ? null : "public");
  select.value = finished ? "all" : viewOf || "public";
  select.disabled = finished;
  $("reader-note").textContent = finished
    ? "The game is over: every reader sees everything, every seat's secrets included."
    : viewOf && viewOf.startsWith("seat:") ? `You see what ${names()[Number(viewOf.slice(5))]} sees.`
      : "You see what every player sees; a seat's token shows that seat's own secrets too.";
  $("token-form", "form").hidden = true;
}

async function changeReader(token) {
  page.token = token;
  forgetReader();
  history.replaceState(null, "", hashFor(page.at));
  await loadAll();
  if (!page.token && token) return restart(); // refused: loadRecord said so and fell back to public
  rebuild();
  go(page.at);
}

function restart() {
  rebuild();
  go(page.at);
}

/** The heading, the tab's title and the summary line: what names the title (its name comes from GET /api/titles). */
function heading() {
  $("title").textContent = `${titleName(page.record.title)} — ${names().join(", ")}`;
  document.title = `Cronaca — ${titleName(page.record.title)}: ${names().join(", ")}`;
  summarise();
}

function rebuild() {
  heading();
  fillReader();
  buildStory();
  chartKey = null;
  finalShown = null;
}

function summarise() {
  const r = page.record;
  const mode = r.mode === "transcribed" ? "at the table" : r.mode; // the table's own cubes and dice (issue 31)
  const parts = [titleName(r.title), `${r.seats.length} seat${r.seats.length > 1 ? "s" : ""}`, mode];
  if (r.finished && !page.spoilerFree) parts.push(`finished in ${r.steps} steps`);
  else if (r.finished) parts.push("finished");
  // while the service does not answer (the notice says so), the page follows nothing: it says it waits, not that it follows
  else if (live.said) parts.push(`in progress: ${r.steps} steps when last heard; this page may be behind and waits for the service`);
  else parts.push(`in progress: ${r.steps} steps so far; this page follows new moves by itself`);
  $("summary").textContent = parts.join(" · ");
}

// ---- live follow -------------------------------------------------------------------------------
// A game in progress is followed through GET /api/records/{id}/live (server-sent events, api/live.py): each
// event says only the record's version, steps and whether it is finished, so the page then asks the summary
// (with If-None-Match) and whatever its own reader may see. A move made through any API process shows within
// a moment. When the stream is refused or keeps failing (no EventSource, a proxy that buffers, the live
// channel down), the page polls the summary as before and tries the stream again later.

const live = { source: null, failures: 0, timer: 0, again: 0, streamAfter: 0, lost: 0, said: "" };
const LOST_AFTER = 2; // checks in a row without an answer (the service restarting, the phone's connection gone)

// A page left open (overnight, a phone asleep) whose service stops answering says so once, in words: what it shows
// may be behind, and what to do; it keeps trying by itself and takes the sentence back once an answer comes.
function outOfTouch(answer) {
  if (answer.status !== 0 && answer.status < 500) return inTouch();
  if (++live.lost !== LOST_AFTER) return;
  const since = new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  live.said = `No answer from the service since ${since}: this page may be behind the game. It keeps trying by`
    + " itself; if this stays, check the connection, then reload the page.";
  notice(live.said);
  summarise();
}
function inTouch() {
  if (live.said && $("notice").textContent === live.said) notice("");
  // the service answers again (restarted, say, while the browser stayed online): decision.js sends a kept choice
  if (live.lost > 0) document.dispatchEvent(new CustomEvent("cronaca:back"));
  const said = live.said;
  live.said = "";
  live.lost = 0;
  if (said) summarise(); // the summary says again that the page follows new moves
}
// Nothing new, but decision.js compares the version with its decision's: a read of it that failed, or that answered
// before a move the summary already holds, is asked again rather than left until the next move.
function checked() {
  document.dispatchEvent(new CustomEvent("cronaca:checked", { detail: { version: page.record.version } }));
}

let refreshing = null; // the check under way; an announcement meanwhile asks for one more after it
let refreshAgain = false;

async function check() {
  const answer = await ask(`/api/records/${id}`, { cache: "no-store", headers: page.etag ? { "If-None-Match": page.etag } : {} });
  outOfTouch(answer);
  if (answer.status === 304) return checked();
  if (!answer.ok) {
    if (answer.status === 404) notice("This record is gone: it was deleted while you were reading it.");
    return;
  }
  const before = page.record;
  const wasAtEnd = page.at >= before.steps;
  page.record = answer.body;
  page.etag = answer.response.headers.get("ETag");
  // decision.js follows; the next decision it asks for goes first (its reads wait at most HOLD_MS for it)
  const held = [];
  document.dispatchEvent(new CustomEvent("cronaca:record", { detail: { ...page.record, hold: (p) => held.push(p) } }));
  if (held.length) await Promise.race([Promise.all(held), new Promise((r) => setTimeout(r, HOLD_MS))]);
  if (answer.body.steps !== before.steps || answer.body.finished !== before.finished) {
    if (answer.body.finished) forgetReader(); // every reader now sees everything: drawn boards are stale
    await Promise.all([loadTurns(), loadStory(), scoresDue() ? loadScores() : null]);
    const started = performance.now();
    rebuild();
    go(wasAtEnd ? page.record.steps : page.at, { follow: true });
    performance.measure("cronaca:live-move", { start: started }); // the page's own work for a live move (benchmarks)
    sayTurn();
  }
}

// Whose turn it is at the game's newest step, said when it changed (lib/turns.js): the game's turn, wherever the
// reader's own steps are; "your" to the seat whose view this is. The newest step's answer is the one the page
// follows with, so a page at the end asks nothing more for it.
const crier = turnCrier($("turn-said"));
async function sayTurn() {
  const record = page.record;
  if (!record) return;
  if (record.finished) return crier.tell(null, "The game is over.", true);
  const n = record.steps;
  const answer = await (page.line ? ask(`/api/records/${id}/steps/${n}`) : stepAnswer(n));
  if (!answer.ok || page.record !== record) return; // a newer summary came meanwhile: its own call says it
  const reader = page.viewOf && page.viewOf.startsWith("seat:") ? Number(page.viewOf.slice(5)) : null;
  crier.tell(answer.body.pending.seat, turnSentence(answer.body.pending, names(), reader));
}

function refresh() {
  if (refreshing) {
    refreshAgain = true;
    return refreshing;
  }
  refreshing = (async () => {
    do {
      refreshAgain = false;
      try {
        await check();
      } catch (err) {
        notice(`The record could not be brought up to date: ${err.message}.`);
      }
    } while (refreshAgain && !page.record.finished);
  })().finally(() => { refreshing = null; });
  return refreshing;
}

// What the page does next: nothing once the game is over; with the stream open, a check every CHECK_MS; without
// it, open it (unless it was refused a moment ago) or poll every POLL_MS.
function schedule() {
  clearTimeout(live.timer);
  if (!page.record || page.record.finished) return closeStream("finished");
  if (!live.source && window.EventSource && Date.now() >= live.streamAfter) openStream();
  live.timer = setTimeout(() => refresh().then(schedule), live.source ? CHECK_MS : POLL_MS);
}

function openStream() {
  const source = new EventSource(`/api/records/${id}/live`);
  live.source = source;
  document.body.dataset.follow = "connecting";
  source.addEventListener("open", () => { live.failures = 0; });
  source.addEventListener("record", (e) => {
    live.failures = 0;
    document.body.dataset.follow = "stream";
    let said;
    try {
      said = JSON.parse(e.data);
    } catch {
      return;
    }
    if (said.finished) closeStream("finished");
    if (said.version !== page.record.version || said.finished !== page.record.finished) {
      // decision.js asks for the next decision on this word alone (public: version, steps, finished), beside the summary
      if (said.version > page.record.version) document.dispatchEvent(new CustomEvent("cronaca:announced", { detail: said }));
      refresh().then(schedule);
    }
  });
  source.addEventListener("error", () => {
    if (live.source !== source) return;
    // CLOSED: refused (an error status, 204 for a finished record); else EventSource reconnects by itself
    // (the server ends each stream after a few minutes), unless it keeps failing: then poll.
    if (source.readyState === EventSource.CLOSED || ++live.failures >= 3) {
      closeStream("polling");
      live.failures = 0;
      live.streamAfter = Date.now() + STREAM_AGAIN_MS;
      refresh().then(schedule);
    } else {
      document.body.dataset.follow = "connecting";
    }
  });
}

// A phone picked up again (the tab visible) or back online: the page checks at once and opens the stream again,
// rather than when its timers (slowed or frozen while hidden) next come round.
function wake() {
  if (document.hidden || !page.record || page.record.finished || !document.body.dataset.loaded) return;
  live.streamAfter = 0;
  refresh().then(schedule);
}

function closeStream(how) {
  if (live.source) live.source.close();
  live.source = null;
  document.body.dataset.follow = how;
}

// ---- wiring ------------------------------------------------------------------------------------

function wire() {
  const slider = $("slider", "input");
  slider.addEventListener("input", () => go(Number(slider.value)));
  $("prev", "button").addEventListener("click", () => go(page.at - 1));
  $("next", "button").addEventListener("click", () => go(page.at + 1));
  $("prev-turn", "button").addEventListener("click", () => go(previousTurn(page.at)));
  $("next-turn", "button").addEventListener("click", () => go(nextTurn(page.at), { unbounded: true }));
  $("first", "button").addEventListener("click", () => go(0));
  $("last", "button").addEventListener("click", () => go(last(), { unbounded: true }));
  // links inside the page (move list, lead changes): move without a page load or a history entry per click;
  // a move-list line has no href, so its new-tab click (ctrl, cmd, shift or the middle button) is done here
  const stepLink = (e) => e.target.closest && e.target.closest("a[data-step]");
  const elsewhere = (link) => window.open(location.pathname + location.search + hashFor(Number(link.dataset.step)), "_blank", "noopener");
  document.addEventListener("click", (e) => {
    const link = stepLink(e);
    if (!link || e.button !== 0) return;
    if (e.ctrlKey || e.metaKey || e.shiftKey) {
      if (!link.hasAttribute("href")) elsewhere(link);
      return;
    }
    e.preventDefault();
    history.pushState(null, "", hashFor(Number(link.dataset.step)));
    go(Number(link.dataset.step), { unbounded: true, keepHash: true });
  });
  document.addEventListener("auxclick", (e) => {
    const link = stepLink(e);
    if (link && e.button === 1 && !link.hasAttribute("href")) elsewhere(link);
  });
  window.addEventListener("hashchange", () => {
    const params = hashParams();
    const spoilers = params.get("spoilers") === "off";
    if (spoilers !== page.spoilerFree) setSpoilers(spoilers);
    if ((params.get("token") || null) !== page.token) return changeReader(params.get("token"));
    if (params.has("step")) openStep(params.get("step"));
  });
  document.addEventListener("keydown", (e) => {
    const t = e.target;
    if (e.key === "Enter" && t instanceof HTMLAnchorElement && !t.hasAttribute("href") && t.getAttribute("role") === "link") {
      e.preventDefault(); // a move-list line: Enter follows it as it would an href link
      t.click();
      return;
    }
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if ((e.key === "ArrowDown" || e.key === "ArrowUp") && t instanceof HTMLElement && t.matches("#moves li > a[data-step]")) {
      e.preventDefault(); // in the move list, up and down walk its lines (the focus follows the current line)
      const at = lineAt.indexOf(Number(t.dataset.step));
      const to = lineAt[Math.max(0, Math.min(lineAt.length - 1, at + (e.key === "ArrowDown" ? 1 : -1)))];
      if (to !== undefined) go(to, { unbounded: !page.spoilerFree });
      return;
    }
    if (t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement) return;
    if (t instanceof HTMLInputElement && !["range", "checkbox"].includes(t.type)) return;
    const moves = {
      ArrowLeft: () => go(page.at - 1),
      ArrowRight: () => go(page.at + 1),
      ArrowUp: () => go(previousTurn(page.at)),
      PageUp: () => go(previousTurn(page.at)),
      ArrowDown: () => go(nextTurn(page.at), { unbounded: true }),
      PageDown: () => go(nextTurn(page.at), { unbounded: true }),
      Home: () => go(0),
      End: () => go(last(), { unbounded: true }),
    };
    if (!moves[e.key]) return;
    e.preventDefault();
    moves[e.key]();
  });
  document.addEventListener("visibilitychange", wake);
  window.addEventListener("online", wake);
  $("skip-moves", "a").addEventListener("click", (e) => { // past the move list without touching the address (#step=...)
    e.preventDefault();
    $("scores-title").focus();
  });
  placeNames($("place-names", "button"), $("board-region"));
  $("board-zoom", "button").addEventListener("click", () => {
    const whole = !$("board-pan").classList.contains("whole");
    $("board-pan").classList.toggle("whole", whole);
    $("board-zoom", "button").setAttribute("aria-pressed", String(whole));
  });
  $("data", "details").addEventListener("toggle", () => {
    if ($("data", "details").open && shownView !== null) renderData(shownView);
  });
  $("spoiler-free", "input").addEventListener("change", () => {
    setSpoilers($("spoiler-free", "input").checked);
    history.replaceState(null, "", hashFor(page.at));
  });
  $("seat", "select").addEventListener("change", () => {
    const value = $("seat", "select").value;
    if (value === "public") {
      $("token-form", "form").hidden = true;
      if (page.token) changeReader(null);
      return;
    }
    if (value.startsWith("seat:")) {
      const seat = Number(value.slice(5));
      $("token-label").textContent = `${names()[seat]}'s seat token`;
      $("token-form", "form").hidden = false;
      $("token", "input").value = "";
      $("token", "input").focus();
    }
  });
  $("token-form", "form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const wanted = $("seat", "select").value;
    const token = $("token", "input").value.trim();
    if (!token) return;
    const check = await fetch(`/api/records/${id}`, { headers: { Authorization: "Bearer " + token }, cache: "no-store" });
    if (!check.ok) {
      notice(check.status === 403 || check.status === 401 ? "That token opens no seat of this record: the view stays as it was."
        : "The token could not be checked; try again.");
      return;
    }
    notice("");
    await changeReader(token);
    if (page.viewOf && wanted.startsWith("seat:") && page.viewOf !== wanted && page.viewOf.startsWith("seat:")) {
      notice(`That token is ${names()[Number(page.viewOf.slice(5))]}'s, so you see that seat's view.`);
    }
  });
}

function setSpoilers(on) {
  page.spoilerFree = on;
  $("spoiler-free", "input").checked = on;
  document.body.classList.toggle("spoiler-free", on);
  summarise();
  chartKey = null;
  finalShown = null;
  cutAt = null;
  showPlace(page.at);
}

// A step asked for by the address: a number within the record, or one sentence saying why not.
function openStep(raw) {
  const n = Number(raw);
  if (raw === null || raw === "" || !Number.isInteger(n) || n < 0) {
    notice(`"${raw}" is not a step number: steps are whole numbers from 0 to ${last()}.`, true);
    return go(page.at);
  }
  if (n > last()) {
    notice(`There is no step ${n}: this record has steps 0 to ${last()}, so you see the last one.`, true);
    return go(last(), { unbounded: true });
  }
  if (aboutStep) notice("");
  return go(n, { unbounded: true, keepHash: true });
}

// What the first board does not need waits until it is drawn (a cold load fetches, links and runs every module
// and answer before it, on a service that answers them one after the other): lib/titles.js and the titles' names
// (the heading shows the title's id until they come), and the study layer, with its notes, variations and rulings.
function afterFirstBoard() {
  opening.board = null; // a board asked ahead for a step the page did not open is not kept for later
  loadLater(() => import("./lib/titles.js").then((titles) => titles.loadTitles().then(() => {
    titleName = titles.titleName;
    heading();
  })));
  loadLater(() => import("./study.js"));
  loadLater(() => import("./share.js"));
  if (page.record.finished) loadLater(() => import("./analysis.js")); // a game in progress is never analysed
}

// A module the page does without for a while: when the connection is down as it is asked for (a phone at a real
// table), it is asked again once the browser is back online, never an uncaught error.
function loadLater(load) {
  load().catch(() => addEventListener("online", () => loadLater(load), { once: true }));
}

async function main() {
  wire();
  $("spoiler-free", "input").checked = page.spoilerFree;
  document.body.classList.toggle("spoiler-free", page.spoilerFree);
  try {
    await loadRecord();
  } catch (err) {
    notice(err.message);
    $("title").textContent = "No record";
    $("controls").hidden = $("reader").hidden = $("stage").hidden = $("scores").hidden = $("data", "details").hidden = true;
    $("summary").replaceChildren(el("span", "Go back to "), Object.assign(el("a", "the records list"), { href: "/" }), el("span", "."));
    document.body.dataset.step = "none";
    return;
  }
  // the board first: the move list and the chart of a long record follow when they come
  // The board first (the service reads one record at a time): then the move list and the scores.
  const params = hashParams();
  if (params.get("line")) { // a variation's step asked for: walk that branch (study.js draws it)
    const branch = await ask(`/api/variations/${encodeURIComponent(params.get("line"))}`);
    if (branch.ok && branch.body.record_id === id) Object.assign(page, { line: branch.body.id, lineLast: branch.body.last_step });
  }
  rebuild();
  if (params.has("step")) {
    await openStep(params.get("step"));
    afterFirstBoard();
    await Promise.all([loadTurns(), loadStory(), loadScores()]);
  } else {
    await loadTurns(); // no step asked for: the first step after the setup, unless a link asked meanwhile
    if (opening.first) await opening.first; // opening.js has asked that step's board as soon as the turns came
    const asked = hashParams().get("step");
    if (asked !== null) await openStep(asked);
    // a game in progress opens at its latest step (the page follows new moves from there); a finished one after its setup
    else await go(page.record.finished ? Math.min(page.turns.length ? page.turns[0].to : 0, last()) : last());
    afterFirstBoard();
    await Promise.all([loadStory(), loadScores()]);
  }
  rebuild();
  showPlace(page.at);
  await sayTurn(); // the turn the page opens on: read with the page, the changes after it said
  document.body.dataset.loaded = "all";
  checked(); // the summary read as the page opened, beside the panel's first read: which answered first is not known
  schedule();
}

// The study layer (study.js) reads the page's state and moves along a variation's branch through this.
export const recordPage = {
  id,
  step: () => page.at,
  line: () => page.line,
  last,
  token: () => page.token,
  record: () => page.record,
  spoilerFree: () => page.spoilerFree,
  names,
  when,
  roundsKnown: () => Boolean(page.scores && page.scores.rounds),
  rounds: () => (page.scores && page.scores.rounds) || [], // {round, step}: where each round (year) begins
  roundWord: () => page.roundWord,
  story: () => page.story, // the move list's lines, ordered by step (what a step drew, in the title's words)
  go: (n) => go(n, { unbounded: true }),
  refresh: () => refresh().then(schedule), // decision.js, after a choice it stored: the board follows at once
  showLine(line, lastStep, n) {
    page.line = line || null;
    page.lineLast = line ? lastStep : 0;
    forgetReader();
    markLine(page.at);
    return go(n, { unbounded: true });
  },
};

main();
