// @ts-check
// The record page's study layer: notes (comments, glyphs, arrows and highlights) drawn over the board
// and in the move list, the annotator's tools to write them, and what-if variations walked as
// branches of the move list. record.js shows the board and the moves and tells this layer, through
// "cronaca:step" and "cronaca:story" events, which step of which line is shown; this layer moves the
// page along a variation with record.js's recordPage.showLine. The API decides who may see and write
// what: this page asks with the annotator key (#key=...) or the seat token and shows what comes back.

import { recordPage as R } from "./record.js";
import { hashParams } from "./lib/address.js";
import { api } from "./lib/api.js";
import { showShapes } from "./lib/board.js";
import { $, all, button, el, fromTemplate, symbolButton, targetOf } from "./lib/dom.js";
import * as S from "./lib/shapes.js";

const id = R.id;

const study = {
  key: hashParams().get("key") || null, // the annotator key, when this reader has one
  reader: "public", // what the API says the reader is: "annotator" | "seat:N" | "public"
  canAnnotate: false,
  notes: [],
  variations: [], // summaries, oldest first
  byId: new Map(), // variation id -> summary
  stories: new Map(), // variation id -> [{step, text}]
  places: null, // {place: {x, y, label}} or null when the board has no drawing
  viewBox: null,
  step: 0, // the step shown, and its line (null: the main line)
  line: null,
  board: false, // whether an SVG board is on the page
  draft: { editing: null, shapes: [] }, // the note being written (editing: its id)
  brush: "green",
  start: null, // an arrow's first place, chosen and waiting for the second
  focus: null, // the place the keyboard (or the mouse) is on
  drawing: true,
  legal: null, // the pending decision's commands at the shown variation's end
  loaded: false,
  ruled: null, // the record "as ruled" (issue 15) shown like a line, id RULED; null: no ruling corrects it
  ruling: null, // the ruling that reading follows
  ruledStory: [], // that correction's moves in words
};
const RULED = "ruled"; // record.js reads this line's steps and boards under /api/records/{id}/ruled
let overlay = null;

const token = () => study.key || R.token() || null;

// An API answer (lib/api.js), never kept by the browser's cache, asked with the annotator key or the seat token
// unless `token` says otherwise (null: as the public).
const ask = (path, options = {}) => api(path, { cache: "no-store", ...options,
  token: options.token === undefined ? token() : options.token });

// A problem's sentence, with its rule when the rules named one: in the game's words (`said`: the seats' names,
// "Ben's bag") when the service gives them, else as the rules wrote it ("seat 1", "bag:1").
function refusal(answer) {
  const b = answer.body && typeof answer.body === "object" ? answer.body : {};
  const said = b.said || b.detail || b.title || `the service answered ${answer.status}`;
  const near = Array.isArray(b.did_you_mean) && b.did_you_mean.length ? ` (did you mean ${b.did_you_mean.join(" or ")}?)` : "";
  return { rule: b.rule || null, text: said + near };
}

// The line under a form where a refusal is said: hidden until there is one.
function problemLine(id) {
  const problem = el("div", "", "problem");
  problem.id = id;
  problem.setAttribute("role", "alert");
  problem.hidden = true;
  return problem;
}

function showProblem(node, answer, prefix) {
  const r = refusal(answer);
  node.replaceChildren();
  node.appendChild(el("span", (prefix ? prefix + ": " : "") + r.text));
  if (r.rule) {
    node.appendChild(document.createTextNode(" "));
    node.appendChild(el("code", "rule " + r.rule, "rule"));
  }
  node.hidden = false;
}

const seatName = (seat) => (R.names()[seat] || `seat ${seat}`);
const mySeat = () => (study.reader.startsWith("seat:") ? Number(study.reader.slice(5)) : null);
const finished = () => Boolean(R.record() && R.record().finished);
const lineKey = (line) => line || "main";

// The line a step belongs to while `line` is shown: a variation's steps up to its branching step are its parent's.
function ownerLine(line, n) {
  let at = line;
  while (at && study.byId.has(at) && n <= study.byId.get(at).from_step) at = study.byId.get(at).parent || null;
  return at || null;
}

function notesAt(line, n) {
  const owner = lineKey(ownerLine(line, n));
  return study.notes.filter((note) => lineKey(note.line) === owner && note.step === n);
}

const mine = (note) => study.reader === "annotator" || (study.reader.startsWith("seat:") && note.by === study.reader);

// ---- loading ------------------------------------------------------------------------------------

async function loadPlaces() {
  const answer = await ask(`/api/records/${id}/places`, { token: null });
  if (answer.ok) {
    study.places = answer.body.places || {};
    study.viewBox = answer.body.viewBox;
  } else {
    study.places = null;
  }
}

async function loadNotes() {
  let answer = await ask(`/api/records/${id}/annotations?line=all`);
  if (answer.status === 403 && study.key) {
    say("That annotator key is not this record's: you read the notes as before, and cannot write.", true);
    setKey(null);
    answer = await ask(`/api/records/${id}/annotations?line=all`);
  }
  if (!answer.ok) {
    study.notes = [];
    study.reader = "public";
    study.canAnnotate = false;
    study.notesError = refusal(answer).text;
    return;
  }
  study.notesError = "";
  study.notes = answer.body.notes || [];
  study.reader = answer.body.reader || "public";
  study.canAnnotate = Boolean(answer.body.can_annotate);
}

// The summaries first (the branches show at once); each branch's moves follow, then the list is woven again.
async function loadVariations() {
  const answer = await ask(`/api/records/${id}/variations`, { token: null });
  study.variations = answer.ok ? answer.body.variations || [] : [];
  study.byId = new Map(study.variations.map((v) => [v.id, v]));
  const missing = study.variations.filter((v) => !study.stories.has(v.id));
  if (missing.length) {
    // after the record's own move list and scores: the board and the main line come first
    recordLoaded().then(() => Promise.all(missing.map(loadStory))).then(() => {
      if (!study.loaded) return;
      decorate();
      document.body.dataset.studyStories = "ready";
    });
  } else {
    document.body.dataset.studyStories = "ready";
  }
}

// Rulings (issue 15): when one corrects the record, its "as ruled" reading is a line the page can walk.
async function loadRulings() {
  const [ruled, listed] = await Promise.all([ask(`/api/records/${id}/ruled`, { token: null }),
    ask(`/api/records/${id}/rulings`, { token: null })]);
  const r = ruled.ok ? ruled.body : null;
  study.ruled = r && r.corrected ? { id: RULED, ruled: true, parent: null, from_step: r.from_step, last_step: r.steps,
    title: "as ruled", finished: r.finished, ruling: r.ruling } : null;
  study.ruling = study.ruled && listed.ok ? (listed.body.rulings || []).find((x) => x.id === r.ruling) || null : null;
  if (study.ruled) {
    const told = await ask(`/api/records/${id}/ruled/story`, { token: null });
    study.ruledStory = told.ok ? told.body.lines || [] : [];
  }
  keepRuled();
}

function keepRuled() { // loadVariations builds byId anew: the as-ruled line is put back in it
  if (study.ruled) study.byId.set(RULED, study.ruled);
  else study.byId.delete(RULED);
}

function recordLoaded() {
  return new Promise((resolve) => {
    const check = () => (document.body.dataset.loaded === "all" ? resolve() : setTimeout(check, 40));
    check();
  });
}

async function loadStory(v) {
  const answer = await ask(`/api/variations/${v.id}/story`, { token: null });
  study.stories.set(v.id, answer.ok ? answer.body.lines || [] : []);
}

async function refreshVariation(vid) {
  const answer = await ask(`/api/variations/${vid}`, { token: null });
  if (!answer.ok) return null;
  const v = answer.body;
  const at = study.variations.findIndex((x) => x.id === vid);
  if (at >= 0) study.variations[at] = v;
  else study.variations.push(v);
  study.byId.set(vid, v);
  await loadStory(v);
  return v;
}

// ---- the key ------------------------------------------------------------------------------------

function setKey(key) {
  study.key = key || null;
  const params = hashParams();
  if (study.key) params.set("key", study.key);
  else params.delete("key");
  history.replaceState(null, "", "#" + params.toString());
}

async function useKey(key) {
  const answer = await ask(`/api/records/${id}/annotations?line=main`, { token: key });
  if (!answer.ok || answer.body.reader !== "annotator") {
    say(answer.ok ? "That is a seat's token, not the annotator key: open it as the seat's token in “view” above."
      : "That key is not this record's annotator key: nothing changed.", true);
    return;
  }
  setKey(key);
  say("");
  await reload();
}

async function reload() {
  await Promise.all([loadNotes(), loadVariations()]);
  keepRuled();
  decorate();
  render();
}

// ---- the move list ------------------------------------------------------------------------------

const GLYPH_CLASS = { "!": "good", "!!": "good", "?": "bad", "??": "bad", "!?": "odd", "?!": "odd" };

function glyphNode(glyph) {
  const g = el("span", glyph, "glyph study-deco glyph-" + (GLYPH_CLASS[glyph] || "odd"));
  g.title = S.GLYPH_WORDS[glyph] || glyph;
  return g;
}

function audienceWords(note) {
  return note.audience === null || note.audience === undefined ? "" : `only ${seatName(note.audience)}`;
}

function commentNode(note) {
  const box = el("div", undefined, "note-comment study-deco");
  box.dataset.note = note.id;
  if (note.audience !== null && note.audience !== undefined) box.appendChild(el("span", audienceWords(note), "audience"));
  const body = el("div", undefined, "note-html");
  body.innerHTML = note.html || ""; // sanitized by the service (Markdown subset, no raw HTML)
  if (note.html) box.appendChild(body);
  if (note.shapes && note.shapes.length) {
    box.appendChild(el("span", `${note.shapes.length} shape${note.shapes.length > 1 ? "s" : ""} on the board`, "shape-count"));
  }
  return box;
}

// The move-list item a step's note belongs under: the last item at or before the step.
function itemFor(items, n) {
  let lo = 0;
  let hi = items.length - 1;
  let found = null;
  while (lo <= hi) { // items are in the list's order, steps ascending
    const mid = (lo + hi) >> 1;
    if (items[mid].step <= n) {
      found = items[mid];
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found ? found.node : null;
}

function attach(item, notes) {
  if (!item) { // before the first move of the list (the setup): a slot at its top
    item = $("moves").querySelector(":scope > .before-moves") || el("div", undefined, "before-moves study-deco");
    if (!item.parentNode) $("moves").prepend(item);
  }
  const anchor = item.querySelector(":scope > a");
  notes.filter((n) => n.glyph).forEach((n) => (anchor || item).appendChild(glyphNode(n.glyph)));
  notes.filter((n) => n.html || (n.shapes && n.shapes.length)).forEach((n) => item.appendChild(commentNode(n)));
  if (notes.length) item.classList.add("annotated");
}

function branchNode(v) {
  const li = el("li", undefined, "branch");
  li.dataset.line = v.id;
  li.setAttribute("role", "listitem");
  const head = el("div", undefined, "branch-head");
  const link = el("a", /^what if/i.test(v.title || "") ? v.title : "What if… " + (v.title || `from step ${v.from_step}`));
  link.href = "#";
  link.dataset.line = v.id;
  link.dataset.vstep = String(Math.min(v.last_step, v.from_step + 1));
  head.appendChild(link);
  const chance = (v.chance || []).includes("author") ? " · chance chosen" : (v.chance || []).length ? " · chance drawn" : "";
  head.appendChild(el("span", ` ${v.author ? "by " + v.author + " · " : ""}${v.moves} move${v.moves === 1 ? "" : "s"}`
    + `${chance}${v.finished ? " · game over" : ""}`, "branch-meta"));
  li.appendChild(head);
  const list = el("ol");
  list.setAttribute("role", "list");
  list.setAttribute("aria-label", `variation from step ${v.from_step}`);
  if (!study.stories.has(v.id)) list.appendChild(el("li", "reading its moves…", "branch-empty"));
  (study.stories.get(v.id) || []).forEach((line) => {
    const item = el("li");
    item.dataset.line = v.id;
    item.dataset.vstep = String(line.step);
    item.dataset.text = line.text;
    const a = el("a", line.text);
    a.href = "#";
    a.dataset.line = v.id;
    a.dataset.vstep = String(line.step);
    item.appendChild(a);
    list.appendChild(item);
  });
  if (!list.children.length && study.stories.has(v.id)) list.appendChild(el("li", v.moves ? "(quiet steps only)" : "no moves yet", "branch-empty"));
  li.appendChild(list);
  return li;
}

// Glyphs, comments and branches woven into record.js's move list (rebuilt by it: done again each time).
function decorate() {
  const moves = $("moves");
  if (!moves) return;
  moves.querySelectorAll(".study-deco, li.branch").forEach((n) => n.remove());
  moves.querySelectorAll("li.annotated").forEach((n) => n.classList.remove("annotated"));
  const main = all(moves, "li[data-step]").map((node) => ({ node, step: Number(node.dataset.step) }));
  const byLine = new Map();
  study.notes.forEach((note) => {
    const k = lineKey(note.line);
    if (!byLine.has(k)) byLine.set(k, new Map());
    const steps = byLine.get(k);
    if (!steps.has(note.step)) steps.set(note.step, []);
    steps.get(note.step).push(note);
  });
  const itemsOf = new Map([["main", main]]);
  // branches in creation order, each after the item it leaves from (and after earlier branches there)
  const placed = new Set();
  let progress = true;
  while (progress) {
    progress = false;
    study.variations.forEach((v) => {
      if (placed.has(v.id)) return;
      const parentKey = lineKey(v.parent);
      if (!itemsOf.has(parentKey)) return; // its parent is placed first
      const anchor = itemFor(itemsOf.get(parentKey), v.from_step) || (itemsOf.get(parentKey)[0] || {}).node;
      const node = branchNode(v);
      if (anchor) {
        let after = anchor;
        while (after.nextElementSibling && after.nextElementSibling.classList.contains("branch")) after = after.nextElementSibling;
        after.after(node);
      } else {
        moves.prepend(node);
      }
      itemsOf.set(v.id, all(node, "li[data-vstep]").map((n) => ({ node: n, step: Number(n.dataset.vstep) })));
      placed.add(v.id);
      progress = true;
    });
  }
  byLine.forEach((steps, k) => {
    const items = itemsOf.get(k);
    if (!items || (k !== "main" && !items.length)) return; // a branch whose moves are still on their way
    steps.forEach((notes, step) => attach(itemFor(items, step), notes));
  });
  markBranch();
  wholeInView(moves, moves.querySelector("li.current.annotated"));
}

// The current line's notes came under it after record.js scrolled the list to the line: the list scrolls on
// until they show too (a page opened on the final step showed its line and cut its comment off), its line kept.
function wholeInView(box, item) {
  if (!item || item.hidden) return;
  const top = item.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;
  const bottom = top + item.offsetHeight;
  if (bottom > box.scrollTop + box.clientHeight) box.scrollTop = Math.min(top, bottom - box.clientHeight);
}

// A variation's current move: marked, and its link says "current step" as it is focused, as the record page's move
// list does on the main line (record.js's current).
function current(item, on) {
  item.classList.toggle("vcurrent", on);
  const link = item.querySelector(":scope > a");
  if (link && on) link.setAttribute("aria-current", "step");
  else if (link) link.removeAttribute("aria-current");
}

function markBranch() {
  const moves = $("moves");
  moves.querySelectorAll("li.vcurrent").forEach((n) => current(n, false));
  moves.querySelectorAll("li.branch.open").forEach((n) => {
    n.classList.remove("open");
    n.querySelector(":scope > .branch-head > a")?.removeAttribute("aria-current");
  });
  const spoilerFree = document.body.classList.contains("spoiler-free");
  all(moves, "li.branch").forEach((n) => { // spoiler-free: no branch from a step not reached yet
    const v = study.byId.get(n.dataset.line);
    const hide = spoilerFree && !study.line && Boolean(v) && v.from_step > study.step;
    if (n.hidden !== hide) n.hidden = hide;
  });
  if (!study.line) return;
  const branch = moves.querySelector(`li.branch[data-line="${study.line}"]`);
  if (branch) { // the variation walked: its head says so to a screen reader, as its current move does
    branch.classList.add("open");
    branch.querySelector(":scope > .branch-head > a")?.setAttribute("aria-current", "true");
  }
  const v = study.byId.get(study.line);
  if (v && v.ruled && study.step > v.from_step) { // the correction's move in words
    const said = study.ruledStory.filter((line) => line.step <= study.step).pop();
    $("said").textContent = said ? `As ruled: ${said.text}` : `As ruled, step ${study.step}.`;
  }
  const what = v && v.ruled ? "the correction starts" : "the variation leaves the line";
  if (v && study.step <= v.from_step) {
    $("said").textContent = study.step === v.from_step ? `Step ${study.step}: ${what} here.`
      : `Step ${study.step}, before ${what} (at step ${v.from_step}).`;
  }
  if (!branch || !v || study.step <= v.from_step) return;
  const items = all(branch, `:scope > ol > li[data-vstep]`).map((node) => ({ node, step: Number(node.dataset.vstep) }));
  const item = itemFor(items, study.step);
  if (item) {
    current(item, true);
    const box = moves;
    const top = item.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;
    if (top < box.scrollTop || top + item.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = Math.max(0, top - box.clientHeight / 3);
    const text = item.dataset.text || "";
    const at = Number(item.dataset.vstep);
    $("said").textContent = at === study.step ? text : `${text} (and ${study.step - at} quieter step${study.step - at > 1 ? "s" : ""} after it)`;
  }
}

function enterLine(vid, n) {
  const v = study.byId.get(vid);
  if (!v) return;
  study.legal = null;
  R.showLine(vid, v.last_step, Math.max(0, Math.min(n, v.last_step)));
}

function backToMain(n) {
  const v = study.byId.get(study.line);
  if (v && v.ruled) { // as played again, at the same step (the record's own steps)
    study.legal = null;
    R.showLine(null, 0, Math.min(n === undefined ? R.step() : n, R.record() ? R.record().steps : 0));
    return;
  }
  let at = n === undefined ? (v ? v.from_step : R.step()) : n;
  let up = v;
  while (up && up.parent && study.byId.has(up.parent)) { // the main-line step this branch (or its parent) leaves from
    at = Math.min(at, up.from_step);
    up = study.byId.get(up.parent);
  }
  if (up) at = Math.min(at, up.from_step);
  study.legal = null;
  R.showLine(null, 0, at);
}

// ---- the board overlay ---------------------------------------------------------------------------

function ensureOverlay() {
  const host = $("board-wrap");
  if (!host || !study.places) return null;
  if (!overlay) {
    overlay = S.overlay(host, study.viewBox);
    // where it lies is viewer.css's: inside #board's border, which a phone's pan box draws without
    ["left", "top", "width", "height"].forEach((k) => overlay.style.removeProperty(k));
    overlay.addEventListener("click", onBoardClick);
    overlay.addEventListener("mousemove", onBoardMove);
    overlay.addEventListener("mouseleave", () => {
      if (study.focus && document.activeElement !== $("places")) {
        study.focus = null;
        paintShapes();
      }
    });
  }
  return overlay;
}

function shapesShown() {
  const notes = notesAt(study.line, study.step).filter((n) => n.id !== study.draft.editing);
  const shapes = notes.flatMap((n) => n.shapes || []);
  return composing() ? [...shapes, ...study.draft.shapes] : shapes;
}

// What the overlay shows, as drawn last: a step with no shapes after one with none redraws nothing.
let overlayDrawn = { key: null, places: null };
function paintShapes() {
  const layer = ensureOverlay();
  if (!layer) return;
  const drawing = composing() && study.drawing;
  const key = JSON.stringify([study.board, drawing, shapesShown(), study.viewBox,
    composing() ? [study.start, study.focus, study.brush] : null]);
  if (overlayDrawn.key === key && overlayDrawn.places === study.places) return;
  overlayDrawn = { key, places: study.places };
  layer.style.display = study.board ? "" : "none";
  layer.style.pointerEvents = drawing ? "auto" : "none";
  layer.style.cursor = drawing ? "crosshair" : "";
  S.draw(layer, shapesShown(), study.places, study.viewBox, {
    pending: composing() ? study.start : null, focus: composing() ? study.focus : null, brush: study.brush,
  });
  // a reader on a phone sees part of the board: a step's noted shapes are brought into its pan box (an annotator
  // drawing is left where the finger is)
  const pan = $("board-pan");
  if (!composing() && study.board && pan && shapesShown().length) showShapes(pan, layer, study.places, shapesShown());
}

const composing = () => study.canAnnotate && !(study.line === RULED && study.ruled && study.step > study.ruled.from_step);

// Lichess's drawing: a place then another draws an arrow, the same place twice a ring; drawing the
// same shape again takes it away; shift draws red.
function pick(place, brush) {
  if (!place) {
    study.start = null;
    paintShapes();
    return;
  }
  if (study.start === null) {
    study.start = place;
    sayDraft(`Arrow from ${S.describe({ kind: "highlight", at: place }, study.places).replace(/ highlighted.*/, "")}: pick where it points (the same place again rings it).`);
    paintShapes();
    return;
  }
  const shape = study.start === place ? { kind: "highlight", at: place, brush } : { kind: "arrow", from: study.start, to: place, brush };
  study.start = null;
  toggleShape(shape);
}

function sameShape(a, b) {
  return a.kind === b.kind && (a.kind === "arrow" ? a.from === b.from && a.to === b.to : a.at === b.at);
}

function toggleShape(shape) {
  const shapes = study.draft.shapes;
  const at = shapes.findIndex((s) => sameShape(s, shape));
  if (at >= 0 && shapes[at].brush === shape.brush && shape.kind !== "label") {
    shapes.splice(at, 1);
    sayDraft(`Taken away: ${S.describe(shape, study.places)}.`);
  } else {
    if (at >= 0) shapes.splice(at, 1);
    shapes.push(shape);
    sayDraft(`Drawn: ${S.describe(shape, study.places)}.`);
  }
  paintShapes();
  renderDraft();
}

function onBoardClick(e) {
  if (!composing() || !study.drawing) return;
  e.preventDefault();
  const place = S.placeAt(overlay, study.places, e.clientX, e.clientY);
  pick(place, e.shiftKey ? "red" : e.altKey ? "blue" : study.brush);
}

let moveQueued = false;
function onBoardMove(e) {
  if (!composing() || !study.drawing || moveQueued) return;
  moveQueued = true;
  requestAnimationFrame(() => {
    moveQueued = false;
    const place = S.placeAt(overlay, study.places, e.clientX, e.clientY);
    if (place !== study.focus) {
      study.focus = place;
      paintShapes();
    }
  });
}

// ---- the panel under the board --------------------------------------------------------------------

function say(sentence, alert) {
  const node = $("study-status");
  if (!node) return;
  node.textContent = sentence || "";
  node.className = alert ? "alert" : "";
}

function sayDraft(sentence) {
  const node = $("draft-said");
  if (node) node.textContent = sentence;
}

function noteNode(note) {
  const item = el("li", undefined, "note");
  item.dataset.note = note.id;
  const head = el("div", undefined, "note-head");
  if (note.glyph) head.appendChild(glyphNode(note.glyph));
  head.appendChild(el("strong", note.author || (note.by === "annotator" ? "annotator" : note.by)));
  if (note.audience !== null && note.audience !== undefined) head.appendChild(el("span", audienceWords(note), "audience"));
  if (note.edited) head.appendChild(el("span", "edited", "edited"));
  item.appendChild(head);
  if (note.html) {
    const body = el("div", undefined, "note-html");
    body.innerHTML = note.html; // sanitized by the service
    item.appendChild(body);
  }
  if (note.shapes && note.shapes.length && study.places) {
    item.appendChild(el("p", note.shapes.map((s) => S.describe(s, study.places)).join("; "), "note-shapes"));
  }
  if (mine(note) && study.canAnnotate) {
    const actions = el("div", undefined, "note-actions");
    actions.appendChild(button("edit", "edit", () => editNote(note)));
    actions.appendChild(button("delete", "delete", () => deleteNote(note)));
    item.appendChild(actions);
  }
  return item;
}

function build() {
  $("study").replaceChildren(fromTemplate("study-panel"));
  const input = $("key", "input");
  $("key-form", "form").addEventListener("submit", (e) => {
    e.preventDefault();
    if (input.value.trim()) useKey(input.value.trim());
  });
}

function render() {
  if (!$("step-notes")) build();
  const notes = notesAt(study.line, study.step);
  const v = study.line ? study.byId.get(study.line) : null;
  const title = document.querySelector("#study .study-title");
  title.textContent = `Notes at step ${study.step}` + (v && study.step > v.from_step
    ? (v.ruled ? " as ruled" : ` of the variation “${v.title || "what if"}”`) : "");
  const list = $("step-notes");
  list.replaceChildren(...notes.map(noteNode));
  if (!notes.length) list.appendChild(el("li", study.notesError ? "The notes could not be read: " + study.notesError : "No notes on this step.", "none"));
  $("key-box", "details").hidden = study.reader === "annotator";
  renderCompose();
  renderWhatIf();
  renderLineBar();
  renderRulingSwitch();
  paintShapes();
  document.body.dataset.studyStep = `${study.line || "main"}:${study.step}`;
}

// The move list's slot: which line is shown, and the way back to the main line.
function renderLineBar() {
  const bar = $("study-line");
  if (!bar) return;
  bar.replaceChildren();
  const v = study.line ? study.byId.get(study.line) : null;
  if (!v) {
    bar.hidden = true;
    return;
  }
  bar.hidden = false;
  if (v.ruled) {
    bar.appendChild(el("span", `As ruled (ruling ${v.ruling}): the main line to step ${v.from_step}, then the correction`
      + ` · steps to ${v.last_step}`, "line-name"));
    bar.appendChild(symbolButton("↩", "as played", "back", () => backToMain(), "the record as it was played, at this step"));
    return;
  }
  bar.appendChild(el("span", `Variation “${v.title || "what if"}” from step ${v.from_step}`
    + (v.author ? ` by ${v.author}` : "") + ` · steps to ${v.last_step}`, "line-name"));
  bar.appendChild(symbolButton("↩", "main line", "back", () => backToMain(), "back to the main line, at the step this variation leaves from"));
}

// "As played" / "as ruled": shown when a ruling corrects the record; the as-ruled reading is walked as a line.
function renderRulingSwitch() {
  let box = $("ruling-switch");
  if (!box) {
    box = el("div", undefined, "ruling-switch");
    box.id = "ruling-switch";
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", "which reading of the record");
    $("study-line").before(box);
  }
  if (!study.ruled) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const ruled = study.line === RULED;
  const played = button("as played", "reading", () => { if (study.line === RULED) backToMain(); },
    "the record as it was played");
  played.id = "as-played";
  played.setAttribute("aria-pressed", String(!ruled));
  const asRuled = button("as ruled", "reading", () => {
    if (study.line !== RULED) enterLine(RULED, Math.min(study.step, study.ruled.last_step));
  }, `the main line to step ${study.ruled.from_step}, then the arbiter's correction`);
  asRuled.id = "as-ruled";
  asRuled.setAttribute("aria-pressed", String(ruled));
  const r = study.ruling;
  const about = el("p", r ? `Ruling ${r.id}: ${r.decision}` + (r.reason ? ` — ${r.reason}` : "") : "", "ruling-words");
  [played, asRuled].forEach((b) => { b.style.fontWeight = b.getAttribute("aria-pressed") === "true" ? "bold" : ""; });
  box.replaceChildren(el("span", "Reading: ", "label"), played, asRuled, about);
}

function renderCompose() {
  const box = $("compose");
  if (!composing()) {
    box.replaceChildren();
    box.hidden = true;
    return;
  }
  box.hidden = false;
  if (!$("note-form", "form")) buildCompose(box);
  const seat = mySeat();
  const audience = $("note-audience", "select");
  audience.disabled = seat !== null;
  if (seat !== null) audience.value = String(seat);
  $("compose-title").textContent = study.draft.editing ? "Edit the note" : seat !== null ? `A private note for ${seatName(seat)}` : "Write a note on this step";
  $("note-cancel", "button").hidden = !study.draft.editing && !study.draft.shapes.length;
  $("draw-toggle", "button").setAttribute("aria-pressed", String(study.drawing));
  renderDraft();
}

// The composer's markup is record.html's <template id="note-composer">; what comes from data (the brushes,
// the glyphs, the seats, the author's name) and the listeners are added here.
function buildCompose(box) {
  box.replaceChildren(fromTemplate("note-composer"));
  const form = $("note-form", "form");
  const toggle = $("draw-toggle", "button");
  S.BRUSH_NAMES.forEach((name) => {
    const label = el("label", undefined, "brush brush-" + name);
    const radio = el("input");
    radio.type = "radio";
    radio.name = "brush";
    radio.value = name;
    radio.checked = name === study.brush;
    radio.addEventListener("change", () => {
      study.brush = name;
      paintShapes();
    });
    const swatch = el("span", "", "swatch");
    swatch.style.background = S.BRUSHES[name];
    label.append(radio, swatch, document.createTextNode(" " + name));
    toggle.before(label);
  });
  toggle.addEventListener("click", () => {
    study.drawing = !study.drawing;
    study.start = null;
    toggle.setAttribute("aria-pressed", String(study.drawing));
    paintShapes();
  });
  // the keyboard's way to the places
  const find = $("place-find", "input");
  const listbox = $("places", "ul");
  find.addEventListener("input", () => fillPlaces(find.value));
  find.addEventListener("keydown", (e) => {
    if (e.key !== "ArrowDown" && e.key !== "Enter") return;
    e.preventDefault();
    if (!listbox.querySelector("li[data-place]")) {
      sayDraft(`No place of this board is called "${find.value.trim()}".`);
      return;
    }
    listbox.focus(); // the focus is the list's first match (fillPlaces)
    if (e.key === "Enter") pick(study.focus, e.shiftKey ? "red" : study.brush); // Enter picks it, as Enter in the list
  });
  listbox.addEventListener("keydown", onPlacesKey);
  listbox.addEventListener("focus", () => {
    if (!shownFocus()) setFocus(/** @type {HTMLElement | null} */ (listbox.querySelector("li[data-place]"))?.dataset.place ?? null);
    else paintShapes();
  });
  listbox.addEventListener("click", (e) => {
    const option = /** @type {HTMLElement | null} */ (targetOf(e).closest("li[data-place]"));
    if (!option) return;
    setFocus(option.dataset.place);
    pick(option.dataset.place, e.shiftKey ? "red" : study.brush);
  });
  // the words
  const glyph = $("note-glyph", "select");
  S.GLYPHS.forEach((g) => glyph.appendChild(new Option(`${g} ${S.GLYPH_WORDS[g]}`, g)));
  const audience = $("note-audience", "select");
  R.names().forEach((name, seat) => audience.appendChild(new Option(`only ${name} (and the annotator)`, String(seat))));
  $("note-author", "input").value = localStorage.getItem("cronaca:author") || "";
  $("note-cancel", "button").addEventListener("click", () => resetDraft());
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    saveNote();
  });
  // keys typed in the form are the form's, not the page's step keys
  form.addEventListener("keydown", (e) => {
    if (targetOf(e).id !== "places") e.stopPropagation();
  });
  fillPlaces("");
}

function fillPlaces(filter) {
  const listbox = $("places");
  if (!listbox) return;
  listbox.replaceChildren();
  if (!study.places) {
    listbox.appendChild(el("li", "This board has no drawing: notes can have words and a glyph only."));
    return;
  }
  const wanted = filter.trim().toLowerCase();
  S.readingOrder(study.places, study.viewBox).forEach((name, i) => {
    const label = study.places[name].label || name;
    if (wanted && !name.toLowerCase().includes(wanted) && !label.toLowerCase().includes(wanted)) return;
    const option = el("li", label.includes(name) ? label : `${name} — ${label}`);
    option.id = "place-" + i;
    option.dataset.place = name;
    option.setAttribute("role", "option");
    option.setAttribute("aria-selected", String(name === study.focus));
    listbox.appendChild(option);
  });
  // the keys act on a place the list shows: a filter that hides the place in focus moves the focus to its first match
  if ((wanted || study.focus) && !shownFocus()) {
    const first = /** @type {HTMLElement | null} */ (listbox.querySelector("li[data-place]"));
    setFocus(first ? first.dataset.place : null);
  }
}

// Whether the place in focus is one the list shows (a filter, or the pointer on the board, may have moved it elsewhere).
function shownFocus() {
  const listbox = $("places");
  return Boolean(study.focus && listbox && listbox.querySelector(`li[data-place="${CSS.escape(study.focus)}"]`));
}

function setFocus(place) {
  const listbox = $("places");
  study.focus = place;
  if (listbox) {
    listbox.querySelectorAll("[aria-selected=true]").forEach((n) => n.setAttribute("aria-selected", "false"));
    const option = place ? listbox.querySelector(`li[data-place="${CSS.escape(place)}"]`) : null;
    if (option) {
      option.setAttribute("aria-selected", "true");
      listbox.setAttribute("aria-activedescendant", option.id);
      option.scrollIntoView({ block: "nearest" });
    }
  }
  paintShapes();
}

let typed = "";
let typedAt = 0;
function onPlacesKey(e) {
  const listbox = $("places");
  const options = all(listbox, "li[data-place]");
  if (!options.length) return;
  if (!shownFocus()) setFocus(options[0].dataset.place); // never a place the list hides
  const at = Math.max(0, options.findIndex((o) => o.dataset.place === study.focus));
  const move = (k) => setFocus(options[Math.max(0, Math.min(options.length - 1, k))].dataset.place);
  const keys = {
    ArrowDown: () => move(at + 1),
    ArrowRight: () => move(at + 1),
    ArrowUp: () => move(at - 1),
    ArrowLeft: () => move(at - 1),
    PageDown: () => move(at + 10),
    PageUp: () => move(at - 10),
    Home: () => move(0),
    End: () => move(options.length - 1),
    Enter: () => pick(study.focus, e.shiftKey ? "red" : study.brush),
    " ": () => pick(study.focus, e.shiftKey ? "red" : study.brush),
    Escape: () => {
      study.start = null;
      sayDraft("Cancelled.");
      paintShapes();
    },
  };
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  e.stopPropagation(); // the page's own keys step through the record: not while choosing a place
  if (keys[e.key]) {
    e.preventDefault();
    keys[e.key]();
    return;
  }
  if (e.key === "h" || e.key === "H") {
    e.preventDefault();
    study.start = null;
    toggleShape({ kind: "highlight", at: study.focus, brush: e.key === "H" ? "red" : study.brush });
    return;
  }
  if (e.key === "l" || e.key === "L") {
    e.preventDefault();
    const text = ($("label-text", "input").value || "").trim();
    if (!text) {
      sayDraft("Type the label's text in the label field first.");
      return;
    }
    toggleShape({ kind: "label", at: study.focus, text, brush: study.brush });
    return;
  }
  if (e.key.length === 1 && /\S/.test(e.key)) { // type-ahead: the next place whose name starts with what was typed
    const now = Date.now();
    typed = now - typedAt > 800 ? e.key.toLowerCase() : typed + e.key.toLowerCase();
    typedAt = now;
    const found = options.find((o, i) => i > at - (typed.length > 1 ? 1 : 0) && o.textContent.toLowerCase().startsWith(typed))
      || options.find((o) => o.textContent.toLowerCase().startsWith(typed));
    if (found) setFocus(found.dataset.place);
  }
}

function renderDraft() {
  const list = $("draft-shapes");
  if (!list) return;
  list.replaceChildren();
  study.draft.shapes.forEach((shape, i) => {
    const item = el("li", S.describe(shape, study.places || {}) + " ");
    item.dataset.kind = shape.kind;
    item.appendChild(symbolButton("×", "", "remove", () => {
      study.draft.shapes.splice(i, 1);
      renderDraft();
      paintShapes();
    }, `take this shape away (${S.describe(shape, study.places || {})})`));
    list.appendChild(item);
  });
  const cancel = $("note-cancel", "button");
  if (cancel) cancel.hidden = !study.draft.editing && !study.draft.shapes.length;
}

function resetDraft() {
  study.draft = { editing: null, shapes: [] };
  study.start = null;
  if ($("note-text", "textarea")) {
    $("note-text", "textarea").value = "";
    $("note-glyph", "select").value = "";
    if (mySeat() === null) $("note-audience", "select").value = "";
    $("note-problem").hidden = true;
  }
  render();
}

function editNote(note) {
  study.draft = { editing: note.id, shapes: (note.shapes || []).map((s) => ({ ...s })), line: note.line, step: note.step };
  renderCompose();
  $("note-text", "textarea").value = note.text || "";
  $("note-glyph", "select").value = note.glyph || "";
  $("note-audience", "select").value = note.audience === null || note.audience === undefined ? "" : String(note.audience);
  $("note-author", "input").value = note.author || "";
  paintShapes();
  $("note-text", "textarea").focus();
}

async function deleteNote(note) {
  const answer = await ask(`/api/records/${id}/annotations/${encodeURIComponent(note.id)}`, { method: "DELETE" });
  if (!answer.ok) {
    say("The note was not deleted: " + refusal(answer).text, true);
    return;
  }
  if (study.draft.editing === note.id) study.draft = { editing: null, shapes: [] };
  say("Note deleted.");
  await loadNotes();
  decorate();
  render();
}

async function saveNote() {
  const problem = $("note-problem");
  problem.hidden = true;
  const audienceValue = $("note-audience", "select").value;
  const author = $("note-author", "input").value.trim();
  if (author) localStorage.setItem("cronaca:author", author);
  const body = {
    text: $("note-text", "textarea").value,
    glyph: $("note-glyph", "select").value || null,
    audience: audienceValue === "" ? null : Number(audienceValue),
    shapes: study.draft.shapes,
  };
  if (author) body.author = author;
  let answer;
  if (study.draft.editing) {
    answer = await ask(`/api/records/${id}/annotations/${encodeURIComponent(study.draft.editing)}`, { method: "PATCH", json: body });
  } else {
    body.line = ownerLine(study.line, study.step);
    body.step = study.step;
    answer = await ask(`/api/records/${id}/annotations`, { method: "POST", json: body });
  }
  if (!answer.ok) {
    showProblem(problem, answer, "Not saved");
    return;
  }
  say(study.draft.editing ? "Note changed." : "Note saved.");
  study.draft = { editing: null, shapes: [] };
  study.start = null;
  $("note-text", "textarea").value = "";
  $("note-glyph", "select").value = "";
  await loadNotes();
  decorate();
  render();
}

// ---- variations -----------------------------------------------------------------------------------

function renderWhatIf() {
  const box = $("whatif-box");
  box.replaceChildren();
  const annotator = study.reader === "annotator";
  const v = study.line ? study.byId.get(study.line) : null;
  if (!annotator || !finished() || (v && v.ruled)) { // the as-ruled line is the arbiter's, not a what-if
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const atEnd = v && study.step === v.last_step;
  if (v && atEnd && !v.finished) {
    box.appendChild(playPanel(v));
  } else if (v && atEnd && v.finished) {
    box.appendChild(el("p", "This variation's game is over: it takes no more moves.", "whatif-note"));
  }
  const row = el("div", undefined, "whatif-row");
  const title = el("input");
  title.id = "whatif-title";
  title.maxLength = 120;
  title.size = 22;
  title.placeholder = "title (optional)";
  title.setAttribute("aria-label", "the variation's title");
  title.addEventListener("keydown", (e) => e.stopPropagation());
  const make = button(`What if… (from step ${study.step})`, "whatif", () => branch(title.value.trim()),
    "a variation from this step: play other moves here, decided by the same rules");
  make.id = "whatif";
  row.append(make, title);
  box.appendChild(row);
  box.appendChild(problemLine("whatif-problem"));
}

async function branch(title) {
  const parent = ownerLine(study.line, study.step);
  const author = ($("note-author", "input") && $("note-author", "input").value.trim()) || "";
  const answer = await ask(`/api/records/${id}/variations`, { method: "POST",
    json: { from_step: study.step, parent, title, author } });
  if (!answer.ok) {
    showProblem($("whatif-problem"), answer, "No variation here");
    return;
  }
  const v = answer.body;
  study.variations.push(v);
  study.byId.set(v.id, v);
  study.stories.set(v.id, []);
  decorate();
  say(`Variation made from step ${v.from_step}: choose the next move below.`);
  enterLine(v.id, v.last_step);
}

function pendingWords(p) {
  if (!p) return "";
  const kind = String(p.kind || "").replace(/-/g, " ");
  return p.seat === null || p.seat === undefined ? kind : `${seatName(p.seat)}: ${kind}`;
}

function playPanel(v) {
  const panel = el("section", undefined, "play");
  panel.id = "play";
  panel.setAttribute("aria-label", "the next move of the variation");
  panel.appendChild(el("h3", `Next move of the variation — ${pendingWords(v.pending)}`));
  const chance = el("fieldset", undefined, "chance");
  chance.appendChild(el("legend", "chance"));
  const drawn = el("label");
  const drawnRadio = Object.assign(el("input"), { type: "radio", name: "chance", value: "drawn", id: "chance-drawn" });
  drawnRadio.checked = !study.authorChance;
  drawn.append(drawnRadio, document.createTextNode(" drawn (a fresh seed)"));
  const chosen = el("label");
  const chosenRadio = Object.assign(el("input"), { type: "radio", name: "chance", value: "author", id: "chance-author" });
  chosenRadio.checked = Boolean(study.authorChance);
  chosen.append(chosenRadio, document.createTextNode(" chosen by me:"));
  const outcomes = el("textarea");
  outcomes.id = "outcomes";
  outcomes.rows = 2;
  outcomes.placeholder = '[{"kind": "dice", "source": "...", "values": [3, 5]}]';
  outcomes.setAttribute("aria-label", "the outcomes, as JSON: a list of {kind, source, values}");
  outcomes.value = study.outcomes || "";
  outcomes.addEventListener("input", () => { study.outcomes = outcomes.value; });
  [drawnRadio, chosenRadio].forEach((r) => r.addEventListener("change", () => { study.authorChance = chosenRadio.checked; }));
  chance.append(drawn, chosen, outcomes);
  panel.appendChild(chance);
  const find = el("input");
  find.type = "search";
  find.id = "legal-find";
  find.placeholder = "find a move";
  find.setAttribute("aria-label", "find a legal move");
  panel.appendChild(find);
  const list = el("ul", undefined, "legal");
  list.id = "legal";
  list.setAttribute("aria-label", "the legal moves");
  panel.appendChild(list);
  const other = el("div", undefined, "other-command");
  const raw = el("input");
  raw.id = "raw-command";
  raw.size = 40;
  raw.placeholder = '{"type": "...", ...} another command, as JSON';
  raw.setAttribute("aria-label", "another command, as JSON");
  const rawPlay = button("play it", "play-raw", () => {
    let command;
    try {
      command = JSON.parse(raw.value);
    } catch (err) {
      showProblem($("play-problem"), { status: 0, body: { detail: "that command is not JSON: " + err.message } }, "Not played");
      return;
    }
    play(v, command);
  });
  other.append(raw, rawPlay);
  panel.appendChild(other);
  const problem = panel.appendChild(problemLine("play-problem"));
  panel.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement) e.stopPropagation();
  });
  const fill = () => {
    list.replaceChildren();
    if (!study.legal || study.legal.id !== v.id || study.legal.step !== v.last_step) {
      list.appendChild(el("li", "Reading the legal moves…", "none"));
      return;
    }
    const wanted = find.value.trim().toLowerCase();
    const shown = study.legal.commands.filter((c) => !wanted || String(c.said).toLowerCase().includes(wanted));
    shown.slice(0, 300).forEach((c) => {
      const item = el("li");
      item.appendChild(button(c.said, "legal-move", () => play(v, c.command), JSON.stringify(c.command)));
      list.appendChild(item);
    });
    if (shown.length > 300) list.appendChild(el("li", `…and ${shown.length - 300} more: narrow them with “find a move”.`, "none"));
    if (!study.legal.commands.length) list.appendChild(el("li", "No legal move: the game is over here.", "none"));
  };
  find.addEventListener("input", fill);
  fill();
  if (!study.legal || study.legal.id !== v.id || study.legal.step !== v.last_step) {
    ask(`/api/variations/${v.id}/legal`, { token: null }).then((answer) => {
      if (!answer.ok) {
        showProblem(problem, answer, "The legal moves could not be read");
        return;
      }
      study.legal = { id: v.id, step: answer.body.step, commands: answer.body.commands || [] };
      fill();
    });
  }
  return panel;
}

// After a refusal, what the rules would take here, in the game's words: the first few legal moves, one a line (a
// move's words may hold a ";" of their own); all of them are the list above, a click each.
const LEGAL_SAID = 3;
function sayLegal(problem, v) {
  const legal = study.legal && study.legal.id === v.id ? study.legal.commands : null;
  if (!legal) return;
  if (!legal.length) { problem.appendChild(el("p", "No move is legal here.", "legal-said")); return; }
  const more = legal.length > LEGAL_SAID ? ` — the first ${LEGAL_SAID}; all are in the list above` : "";
  problem.appendChild(el("p", `Legal here (${legal.length})${more}:`, "legal-said"));
  const list = el("ul", undefined, "legal-said");
  legal.slice(0, LEGAL_SAID).forEach((c) => list.appendChild(el("li", c.said)));
  problem.appendChild(list);
}

async function play(v, command) {
  const problem = $("play-problem");
  problem.hidden = true;
  const body = { command };
  if (study.authorChance) {
    try {
      body.outcomes = JSON.parse(study.outcomes || "[]");
    } catch (err) {
      showProblem(problem, { status: 0, body: { detail: "the outcomes are not JSON: " + err.message } }, "Not played");
      return;
    }
  }
  const answer = await ask(`/api/variations/${v.id}/commands`, { method: "POST", json: body });
  if (!answer.ok) {
    showProblem(problem, answer, "Refused");
    sayLegal(problem, v);
    return;
  }
  study.legal = null;
  const fresh = await refreshVariation(v.id);
  decorate();
  const said = (answer.body.said || []).join(" ");
  say(said ? "Played: " + said : "Played.");
  if (fresh) enterLine(v.id, fresh.last_step);
}

// ---- wiring ---------------------------------------------------------------------------------------

// The notes panel and the branch marks for the step shown, once the frame with its board is done
// (several steps within a frame render once): in record.js's own task after that frame when it
// has one ("cronaca:after-frame"), so both go into one frame; else in a task of its own.
let panelDue = false;
function renderPanel() {
  if (!panelDue) return;
  panelDue = false;
  markBranch();
  render();
}
function afterBoard() {
  if (panelDue) return;
  panelDue = true;
  requestAnimationFrame(() => setTimeout(renderPanel, 0));
}

function wire() {
  const moves = $("moves");
  document.addEventListener("cronaca:after-frame", renderPanel);
  // before record.js's own handler: branch links walk the variation; main-line links leave it
  moves.addEventListener("click", (e) => {
    const link = targetOf(e).closest && targetOf(e).closest("a");
    if (!link || e.ctrlKey || e.metaKey || e.button !== 0) return;
    if (link.dataset.line) {
      e.preventDefault();
      e.stopPropagation();
      enterLine(link.dataset.line, Number(link.dataset.vstep));
    } else if (link.dataset.step && study.line) {
      e.preventDefault();
      e.stopPropagation();
      backToMain(Number(link.dataset.step));
    }
  }, true);
  document.addEventListener("cronaca:story", () => {
    if (!study.loaded) return;
    if ((R.token() || null) !== study.seatToken) { // another reader (a seat's token given or dropped): their notes
      study.seatToken = R.token() || null;
      reload();
      return;
    }
    decorate();
  });
  document.addEventListener("cronaca:step", (e) => {
    const { step, line, board } = /** @type {CustomEvent} */ (e).detail;
    const moved = step !== study.step || line !== study.line;
    study.step = step;
    study.line = line;
    study.board = board;
    if (moved) study.start = null;
    if (moved && study.draft.editing) study.draft = { editing: null, shapes: [] };
    if (!study.loaded) return;
    paintShapes(); // the shapes move with the board, in its frame
    afterBoard(); // the notes panel and the branch marks in the frame after: they never delay the board
  });
  window.addEventListener("hashchange", () => {
    const key = hashParams().get("key") || null;
    if (key !== study.key) {
      study.key = key;
      reload();
    }
  });
}

async function start() {
  wire();
  build();
  // the record's summary first (its seats name the audiences): record.js tells when its move list is built
  if (!R.record()) await new Promise((resolve) => document.addEventListener("cronaca:story", resolve, { once: true }));
  study.seatToken = R.token() || null;
  await Promise.all([loadPlaces(), loadNotes(), loadVariations(), loadRulings()]);
  keepRuled();
  study.loaded = true;
  study.step = R.step();
  study.line = R.line();
  if (!study.line && study.ruled && hashParams().get("line") === RULED) enterLine(RULED, study.step);
  study.board = Boolean(document.querySelector("#board > svg"));
  decorate();
  render();
  document.body.dataset.study = "ready";
}

start();
