// @ts-check
// The lesson page: a teacher presents chapters (finished records or their variations, from one step
// to another) and a class follows the teacher's board live over server-sent events; students may
// step away and come back. The teacher can stop at a step and ask the class what a seat would do
// (a prediction pause): students pick one of that seat's legal commands from that seat's view only,
// the teacher sees the tally and reveals the move played.
// The teacher key rides in the address's hash (#key=...), never in a query string, like #token= on
// the record page. The API decides everything; this page only asks and draws.

import { hashParams } from "./lib/address.js";
import { api, why } from "./lib/api.js";
import { fitPhone, placeNames, sayBoard, showShapes } from "./lib/board.js";
import { $, all, el, field, fromTemplate, svg } from "./lib/dom.js";
import { kindWords, render } from "./lib/render.js";
import { describe, draw, placeAt } from "./lib/shapes.js";
import { loadTitles, titleName } from "./lib/titles.js";

const PRESENT_DEBOUNCE_MS = 40; // a burst of key presses sends the last step, not every one
const STUDENT_KEY = "cronaca:student";
const lessonId = location.pathname.split("/").pop();

const page = {
  key: hashParams().get("key"),
  lesson: null, // GET /api/lessons/{lid}
  teacher: false,
  presenter: null, // {chapter, step, shapes, seq}: where the class is
  chapter: null, // the chapter shown here (an object of lesson.chapters)
  step: 0, // the step shown here
  shapes: [], // the shapes drawn over the board here (the teacher's own, or the presenter's)
  following: true, // a student follows the presenter until stepping away
  pause: null, // the open (or just revealed) pause's question
  revealed: null,
  picked: null, // the student's chosen command (JSON text)
  generation: 0,
  unsent: "", // why the class did not get the teacher's last step ("" once it did)
};
const lines = new Map(); // "rid|line" -> Promise<line data: summary, places, story, notes>
const boards = new Map(); // board URL -> Promise<{text} | {sentence}>
const stepJson = new Map(); // step URL -> Promise<answer>

// An API answer (lib/api.js). `teacher` sends the teacher key: only the lesson's own endpoints get it (to a
// record it is nobody's key: 403).
/**
 * @param {string} path
 * @param {import("./lib/api.js").Ask & {teacher?: boolean}} [options]
 */
const ask = (path, { teacher = false, ...options } = {}) => api(path, { ...options, token: teacher ? page.key : null });

// A command as canonical text (keys sorted at every level): the same choice whatever order its keys came in.
const canon = (value) => JSON.stringify(value, (_, v) => (v && typeof v === "object" && !Array.isArray(v)
  ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v));

function notice(sentence) {
  $("notice").textContent = sentence || "";
  $("notice").hidden = !sentence;
}

function status(sentence) {
  $("status").textContent = sentence || "";
}

// ---- chapters and their lines -------------------------------------------------------------

const chapters = () => (page.lesson ? page.lesson.chapters : []);
const chapterById = (cid) => chapters().find((c) => c.id === cid) || null;
const indexOf = (chapter) => chapters().findIndex((c) => c.id === (chapter && chapter.id));
const lineKey = (c) => `${c.record_id}|${c.line || "main"}`;

// What a chapter's line needs once: the record's seats and title, the board's places, the story's
// sentences by step and the notes a public reader sees on that line.
function lineData(c) {
  const known = lines.get(lineKey(c));
  if (known) return known;
  const promise = (async () => {
    const rid = c.record_id;
    const [summary, places, story, notes, variation] = await Promise.all([
      ask(`/api/records/${rid}`),
      ask(`/api/records/${rid}/places`),
      ask(`/api/records/${rid}/story`),
      ask(`/api/records/${rid}/annotations?line=${encodeURIComponent(c.line || "main")}`),
      c.line ? ask(`/api/variations/${c.line}/story`) : Promise.resolve(null),
    ]);
    // a variation's story holds only its own steps: the record's story tells what came before them
    const own = variation && variation.ok ? variation.body.lines : [];
    const parentUntil = c.line ? (own.length ? Math.min(...own.map((l) => l.step)) - 1 : c.from_step) : Infinity;
    const said = new Map();
    if (story.ok) story.body.lines.forEach((l) => { if (l.step <= parentUntil) said.set(l.step, l.text); });
    own.forEach((l) => said.set(l.step, l.text));
    return {
      summary: summary.ok ? summary.body : null,
      places: places.ok ? places.body : null,
      said,
      sayAt: [...said.keys()].sort((a, b) => a - b),
      notes: notes.ok ? notes.body.notes || [] : [],
      notesError: notes.ok ? "" : why(notes),
    };
  })();
  lines.set(lineKey(c), promise);
  return promise;
}

// While a pause is open, its step's board is the asked seat's own view (what Ada knew), not the finished
// game's all-seeing one: another seat's war disc or purse would give the answer away.
const askedPause = () => (page.pause && page.pause.open !== false && !page.revealed ? page.pause : null);
const pausedAt = (c, n) => { const q = askedPause(); return Boolean(q && c && q.chapter === c.id && q.step === n); };
const boardUrl = (c, n) => (pausedAt(c, n) ? `/api/lessons/${lessonId}/pauses/${page.pause.id}/board`
  : c.line ? `/api/variations/${c.line}/steps/${n}/board` : `/api/records/${c.record_id}/steps/${n}/board`);
const stepUrl = (c, n) => (c.line ? `/api/variations/${c.line}/steps/${n}` : `/api/records/${c.record_id}/steps/${n}`);

function fetchBoard(c, n) {
  const url = boardUrl(c, n);
  const known = boards.get(url);
  if (known) return known;
  const promise = (async () => {
    const answer = await ask(url);
    if (answer.ok && typeof answer.body === "string") return { text: answer.body };
    boards.delete(url);
    return { sentence: answer.status === 404 && answer.body.type && String(answer.body.type).endsWith("no-layout")
      ? answer.body.detail : "The board could not be drawn: " + why(answer) + "." };
  })();
  boards.set(url, promise);
  if (boards.size > 200) boards.delete(boards.keys().next().value);
  return promise;
}

function fetchStep(c, n) {
  const url = stepUrl(c, n);
  if (!stepJson.has(url)) stepJson.set(url, ask(url));
  return stepJson.get(url);
}

const seatName = (data, seat) => {
  const seats = (data && data.summary && data.summary.seats) || [];
  const found = seats.find((s) => s.seat === seat);
  return found ? found.name : `seat ${seat}`;
};

// ---- showing a chapter and a step ---------------------------------------------------------

async function show(chapter, n) {
  if (!chapter) return;
  n = Math.max(chapter.from_step, Math.min(chapter.to_step, Math.round(n)));
  const asked = askedPause();
  if (!page.teacher && asked && asked.chapter === chapter.id) n = Math.min(n, asked.step); // no peeking at the answer
  const changedChapter = !page.chapter || page.chapter.id !== chapter.id;
  page.chapter = chapter;
  page.step = n;
  const mine = ++page.generation;
  showControls();
  if (changedChapter) showChapter();
  const [data, drawn] = await Promise.all([lineData(chapter), fetchBoard(chapter, n)]);
  if (mine !== page.generation) return; // a newer step was asked for meanwhile
  paintBoard(drawn, data);
  showSaid(data, n);
  showNotes(data, n);
  drawShapes(data);
  document.body.dataset.chapter = chapter.id;
  document.body.dataset.step = String(n);
  document.body.dataset.boardOf = pausedAt(chapter, n) ? "asked-seat" : "all";
  $("lesson-board-region").setAttribute("aria-label", `board at step ${n}`);
  if (page.teacher) showDecider(chapter, n, data);
  const ahead = asked && !page.teacher && asked.chapter === chapter.id ? asked.step : chapter.to_step;
  [n + 1, n - 1, n + 2].filter((k) => k >= chapter.from_step && k <= ahead).forEach((k) => fetchBoard(chapter, k));
}

function showControls() {
  const c = page.chapter;
  const slider = $("slider", "input");
  slider.min = String(c.from_step);
  slider.max = String(c.to_step);
  slider.value = String(page.step);
  slider.setAttribute("aria-valuetext", `step ${page.step}, chapter steps ${c.from_step} to ${c.to_step}`);
  $("step").textContent = String(page.step);
  $("range").textContent = `(chapter: ${c.from_step}–${c.to_step})`;
  $("first", "button").disabled = $("prev", "button").disabled = page.step <= c.from_step;
  $("next", "button").disabled = $("last", "button").disabled = page.step >= c.to_step;
  $("where").textContent = `chapter ${indexOf(c) + 1} of ${chapters().length}`;
  markChapters();
  showFollow();
}

function showChapter() {
  const c = page.chapter;
  $("chapter-title").textContent = `${indexOf(c) + 1}. ${c.title || "Chapter " + (indexOf(c) + 1)}`;
  const intro = $("chapter-intro");
  intro.replaceChildren();
  // the introduction as the service rendered it (Markdown, raw HTML escaped, as a note's text), else as plain paragraphs
  if (c.introduction_html) intro.insertAdjacentHTML("beforeend", c.introduction_html);
  else String(c.introduction || "").split(/\n{2,}/).filter((p) => p.trim()).forEach((p) => intro.appendChild(el("p", p.trim())));
  lineData(c).then((data) => {
    if (page.chapter !== c || !data.summary || intro.querySelector(".chapter-source")) return;
    const s = data.summary;
    const line = c.line ? "a variation" : "the game as played";
    intro.appendChild(el("p", `${titleName(s.title)}: ${s.seats.map((x) => x.name).join(", ")} — ${line}, `
      + `steps ${c.from_step} to ${c.to_step}.`, "chapter-source"));
  });
}

let onPage = null; // {wrap, overlay, viewBox}
let fitted = false;
function paintBoard(drawn, data) {
  const board = $("board");
  const root = drawn.text ? new DOMParser().parseFromString(drawn.text, "image/svg+xml").documentElement : null;
  if (!root || root.nodeName !== "svg" || root.querySelector("parsererror")) {
    board.replaceChildren(el("p", drawn.sentence || "The board drawing for this step could not be read.", "board-sentence"));
    board.classList.add("no-board");
    onPage = null;
    return;
  }
  const live = document.importNode(root, true);
  const wrap = el("div", undefined, "board-wrap");
  const viewBox = live.getAttribute("viewBox") || (data.places && data.places.viewBox ? data.places.viewBox.join(" ") : "0 0 100 100");
  const overlay = svg("svg", { class: "overlay", viewBox, "aria-hidden": "true" }); // silent until shapes.js draws and says some
  if (live.getAttribute("preserveAspectRatio")) overlay.setAttribute("preserveAspectRatio", live.getAttribute("preserveAspectRatio"));
  wrap.append(live, overlay);
  board.replaceChildren(wrap);
  board.classList.remove("no-board");
  fitted = fitPhone(board, live, !fitted) || fitted; // a phone opens the board readable, at its focus, once
  sayBoard($("board-lines"), live);
  onPage = { wrap, overlay, viewBox: viewBox.split(/[\s,]+/).map(Number) };
}

function showSaid(data, n) {
  let at = null;
  for (const k of data.sayAt) { if (k <= n) at = k; else break; }
  const text = at === null ? "" : data.said.get(at);
  $("said").textContent = n === 0 ? "Before the game: nothing has happened yet."
    : text ? (at === n ? text : `${text} (and ${n - at} quieter step${n - at > 1 ? "s" : ""} after it)`) : "";
}

function showNotes(data, n) {
  const list = $("notes");
  list.replaceChildren();
  const here = data.notes.filter((note) => note.step === n);
  here.forEach((note) => {
    const item = el("li", undefined, "note");
    const head = el("p", undefined, "note-head");
    if (note.glyph) head.appendChild(el("span", note.glyph, "glyph"));
    head.appendChild(el("span", note.author || "annotator", "author"));
    item.appendChild(head);
    const body = el("div", undefined, "note-text");
    body.innerHTML = note.html || ""; // rendered and escaped by the service (Markdown subset, no raw HTML)
    item.appendChild(body);
    if ((note.shapes || []).length) {
      const anchors = data.places ? data.places.places : {};
      item.appendChild(el("p", note.shapes.map((shape) => describe(shape, anchors)).join("; "), "note-shapes"));
    }
    list.appendChild(item);
  });
  $("no-notes").hidden = here.length > 0;
  $("no-notes").textContent = data.notesError ? "The notes could not be read: " + data.notesError + "." : "No note on this step.";
}

// The notes' shapes of this step, then the presenter's highlights over them.
function drawShapes(data) {
  if (!onPage) return;
  data = data || null;
  const noteShapes = data ? data.notes.filter((note) => note.step === page.step).flatMap((note) => note.shapes || []) : [];
  const shapes = [...noteShapes, ...shownShapes()];
  const anchors = data && data.places ? data.places.places : {};
  draw(onPage.overlay, shapes, anchors, onPage.viewBox, { pending: picking, brush: $("brush", "select").value });
  document.body.dataset.shapes = String(shownShapes().length);
  // a student's phone shows part of the board: the shapes of a step, once, brought into sight (an arrow whose head
  // was off the box's edge pointed nowhere); the teacher's own are where their finger is
  const key = JSON.stringify([page.chapter && page.chapter.id, page.step, shapes]);
  if (!page.teacher && shapes.length && key !== shapesSeen) showShapes($("board"), onPage.overlay, anchors, shapes);
  shapesSeen = key;
}
let shapesSeen = "";

// What is drawn of the presenter's: the teacher's own shapes; a student's, the presenter's when at that step.
function shownShapes() {
  if (page.teacher) return page.shapes;
  const p = page.presenter;
  return p && page.chapter && p.chapter === page.chapter.id && p.step === page.step ? p.shapes || [] : [];
}

// ---- moving ---------------------------------------------------------------------------------

// The reader moves: a teacher's move is presented to the class; a student's is stepping away.
function go(chapter, n) {
  if (!chapter) return;
  n = Math.max(chapter.from_step, Math.min(chapter.to_step, Math.round(n)));
  const asked = askedPause();
  if (!page.teacher && asked && asked.chapter === chapter.id) n = Math.min(n, asked.step);
  if (page.chapter && chapter.id === page.chapter.id && n === page.step) {
    const p = page.presenter;
    if (page.teacher && (!p || p.chapter !== chapter.id || p.step !== n)) present(); // the class is elsewhere: bring it here
    return;
  }
  if (page.teacher) {
    page.shapes = []; // highlights belong to a step
    show(chapter, n);
    present();
    return;
  }
  const p = page.presenter;
  page.following = Boolean(p && p.chapter === chapter.id && p.step === n);
  show(chapter, n);
}

const goStep = (n) => go(page.chapter, n);
function goChapter(delta) {
  const i = indexOf(page.chapter) + delta;
  if (i >= 0 && i < chapters().length) go(chapters()[i], chapters()[i].from_step);
}

// Every move of the teacher reaches the class: one POST at a time, the latest position wins.
let presentTimer = null;
let presenting = false;
let presentAgain = false;
function present() {
  if (!page.teacher || !page.chapter) return;
  if (presenting) { presentAgain = true; return; }
  clearTimeout(presentTimer);
  presentTimer = setTimeout(sendPresent, PRESENT_DEBOUNCE_MS);
}

async function sendPresent() {
  presenting = true;
  presentAgain = false;
  const body = { chapter: page.chapter.id, step: page.step, shapes: page.shapes };
  const answer = await ask(`/api/lessons/${lessonId}/present`, { method: "POST", json: body, teacher: true });
  presenting = false;
  if (answer.ok) {
    page.presenter = answer.body;
    document.body.dataset.presented = `${answer.body.chapter}:${answer.body.step}:${(answer.body.shapes || []).length}`;
    page.unsent = "";
  } else { // said where the teacher looks (the banner at the top, kept in sight on a phone), with a way to send it again
    page.unsent = `The class did not get step ${body.step}: ${why(answer)}.`;
  }
  showFollow();
  if (presentAgain) present();
}

// ---- following the presenter ------------------------------------------------------------------

function presenterAt(p) {
  if (!p) return;
  if (page.presenter && typeof page.presenter.seq === "number" && typeof p.seq === "number" && p.seq < page.presenter.seq) return;
  page.presenter = { chapter: p.chapter, step: p.step, shapes: p.shapes || [], seq: p.seq };
  if (page.teacher) return;
  const chapter = chapterById(p.chapter);
  if (!chapter) { refresh(); return; } // a chapter this page has not heard of yet
  if (page.following && page.chapter && page.chapter.id === chapter.id && page.step === p.step) lineData(chapter).then(drawShapes);
  else if (page.following) show(chapter, p.step);
  else {
    showFollow();
    if (page.chapter && p.chapter === page.chapter.id && p.step === page.step) lineData(page.chapter).then(drawShapes);
  }
  showFollow();
  markChapters();
}

function follow() {
  page.following = true;
  const p = page.presenter;
  const chapter = p && chapterById(p.chapter);
  if (chapter) show(chapter, p.step);
  showFollow();
}

function showFollow() {
  const box = $("follow");
  document.body.dataset.following = page.teacher ? "teacher" : page.following ? "yes" : "no";
  if (page.teacher || live.said) { // the teacher's step the class missed; a page out of touch (kept in sight on a phone)
    const said = (page.teacher && page.unsent) || live.said;
    box.hidden = !said;
    $("follow-text").textContent = said;
    $("follow-button", "button").textContent = "send it again";
    $("follow-button", "button").hidden = !(page.teacher && page.unsent);
    return;
  }
  $("follow-button", "button").textContent = "follow";
  const p = page.presenter;
  const chapter = p && chapterById(p.chapter);
  const away = !page.following && chapter;
  box.hidden = !away && !(page.following && !p);
  if (!p) {
    $("follow-text").textContent = "The presenter has not started yet: you will follow the board when they do.";
    $("follow-button", "button").hidden = true;
  } else if (away) {
    $("follow-text").textContent = `The presenter is at chapter ${indexOf(chapter) + 1}, step ${p.step} — `;
    $("follow-button", "button").hidden = false;
  }
}

function markChapters() {
  const p = page.presenter;
  all($("chapters", "ol"), "li[data-chapter]").forEach((item) => {
    const here = page.chapter && item.dataset.chapter === page.chapter.id;
    item.classList.toggle("current", Boolean(here));
    if (here) item.setAttribute("aria-current", "true"); else item.removeAttribute("aria-current");
    const badge = /** @type {HTMLElement | null} */ (item.querySelector(".presenter-here"));
    if (badge) badge.hidden = page.teacher || !p || p.chapter !== item.dataset.chapter;
  });
}

// The live stream: first the lesson, then every change. EventSource reconnects by itself after a dropped line,
// and the service sends the lesson again first, so a student who lost the line is back in step. A refused stream
// (503: the live channel down; 429; a proxy's 502 while the service restarts) EventSource gives up on for good:
// the page opens it again itself, later and later. A phone picked up again (the tab visible after a while, back
// online, restored from the back-forward cache) opens it afresh at once: the old connection may be long dead
// without the browser knowing, and the lesson that comes first catches the page up without a reload.
const RETRY_MS = [1000, 3000, 10000, 30000];
const STALE_AFTER_MS = 20_000; // hidden this long: the stream is opened again on waking
const LOST_AFTER_MS = 6000; // out of touch this long: the page says so
const live = { retries: 0, retry: 0, lost: 0, said: "", hiddenAt: 0 };
let source = null;
function listen() {
  clearTimeout(live.retry);
  if (source) source.close();
  const mine = new EventSource(`/api/lessons/${lessonId}/live`);
  source = mine;
  const on = (type, handle) => mine.addEventListener(type, (e) => {
    let message;
    try { message = JSON.parse(e.data); } catch (err) { return; }
    handle(message);
  });
  on("lesson", (lesson) => {
    document.body.dataset.live = "open";
    inTouch();
    applyLesson(lesson, { keepTeacher: true });
    if (page.teacher && page.unsent) present(); // back in touch: the step the class missed, again
  });
  on("present", presenterAt);
  on("pause", (message) => {
    if (message.pause) showPause(message.pause);
    else refresh();
  });
  on("answers", (message) => {
    if (page.pause && message.pause === page.pause.id) showCount(message.count);
    if (page.teacher) refreshTally();
  });
  on("reveal", (message) => showReveal(message));
  ["chapters", "lesson-changed", "order", "chapter"].forEach((type) => on(type, () => refresh()));
  mine.onerror = () => {
    if (source !== mine) return;
    document.body.dataset.live = "reconnecting";
    outOfTouch();
    if (mine.readyState !== EventSource.CLOSED) return; // EventSource tries again by itself
    mine.close();
    source = null;
    document.body.dataset.live = "retrying";
    live.retry = setTimeout(listen, RETRY_MS[Math.min(live.retries++, RETRY_MS.length - 1)]);
  };
}

// Out of touch for a while (the service restarting, the phone's connection gone): said once, in words, and taken
// back when the lesson comes again.
function outOfTouch() {
  if (live.lost) return;
  live.lost = setTimeout(() => {
    const since = new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    live.said = `Out of touch with the lesson since ${since}: this page may be behind the ${page.teacher ? "class" : "teacher"}.`
      + " It reconnects by itself; if this stays, check the connection.";
    showFollow();
  }, LOST_AFTER_MS);
}

function inTouch() {
  clearTimeout(live.lost);
  live.lost = 0;
  live.retries = 0;
  if (!live.said) return;
  live.said = "";
  showFollow();
}

function wake(e) {
  if (document.hidden) { live.hiddenAt = Date.now(); return; }
  if (document.body.dataset.ready !== "yes") return; // main() opens the first stream
  const slept = e.type !== "visibilitychange" || (live.hiddenAt && Date.now() - live.hiddenAt > STALE_AFTER_MS);
  live.hiddenAt = 0;
  if (slept || !source || source.readyState === EventSource.CLOSED) listen();
}

// ---- the lesson -----------------------------------------------------------------------------

let refreshing = null;
function refresh() {
  if (!refreshing) {
    refreshing = (async () => {
      const answer = await ask(`/api/lessons/${lessonId}`, { teacher: true, cache: "no-store" });
      refreshing = null;
      if (answer.ok) applyLesson(answer.body, { keepTeacher: true });
    })();
  }
  return refreshing;
}

function applyLesson(lesson, options = {}) {
  const wasTeacher = page.teacher;
  page.lesson = lesson;
  page.teacher = options.keepTeacher && wasTeacher ? true : Boolean(lesson.teacher);
  document.title = `Cronaca — lesson: ${lesson.title}`;
  $("title").textContent = lesson.title;
  const intro = $("lesson-intro");
  if (lesson.introduction_html) intro.innerHTML = lesson.introduction_html; // rendered and escaped by the service
  else intro.textContent = lesson.introduction || "";
  buildChapters();
  if (lesson.presenter) presenterAt(lesson.presenter);
  else page.presenter = null; // its chapter was removed: nothing to follow until the teacher presents again
  if (page.chapter) page.chapter = chapterById(page.chapter.id); // edited or removed
  if (!page.chapter) {
    const p = page.presenter;
    const start = (p && chapterById(p.chapter)) || chapters()[0];
    if (page.teacher && p && chapterById(p.chapter)) page.shapes = p.shapes || [];
    if (start) show(start, p && chapterById(p.chapter) ? p.step : start.from_step);
  } else {
    showControls();
    showChapter();
  }
  $("chapter").hidden = !page.chapter;
  if (lesson.pause) showPause(lesson.pause);
  else if (page.pause && !page.revealed) hidePause();
  showFollow();
  showPauseForm();
}

function buildChapters() {
  const list = $("chapters", "ol");
  list.replaceChildren();
  chapters().forEach((c, i) => {
    const item = /** @type {HTMLLIElement} */ (fromTemplate("chapter-item").firstElementChild);
    item.dataset.chapter = c.id;
    item.querySelector(".chapter-name").textContent = c.title || `Chapter ${i + 1}`;
    item.querySelector(".chapter-steps").textContent = ` steps ${c.from_step}–${c.to_step}${c.line ? " · variation" : ""}`;
    item.querySelector(".chapter-link").addEventListener("click", () => go(c, c.from_step));
    if (page.teacher) {
      const tools = fromTemplate("chapter-tools");
      const [up, down, remove] = all(tools, "button").map((b) => /** @type {HTMLButtonElement} */ (b));
      const tool = (b, label, job, disabled) => {
        b.setAttribute("aria-label", label);
        b.title = label;
        b.disabled = disabled;
        b.addEventListener("click", job);
      };
      tool(up, `move “${c.title}” up`, () => reorder(i, i - 1), i === 0);
      tool(down, `move “${c.title}” down`, () => reorder(i, i + 1), i === chapters().length - 1);
      tool(remove, `remove “${c.title}”`, () => removeChapter(c), false);
      item.appendChild(tools);
    }
    list.appendChild(item);
  });
  $("no-chapters").hidden = chapters().length > 0;
  markChapters();
}

async function reorder(from, to) {
  const ids = chapters().map((c) => c.id);
  const [moved] = ids.splice(from, 1);
  ids.splice(to, 0, moved);
  const answer = await ask(`/api/lessons/${lessonId}/order`, { method: "PUT", json: { chapters: ids }, teacher: true });
  if (!answer.ok) return notice("The chapters could not be reordered: " + why(answer) + ".");
  applyLesson(answer.body && answer.body.chapters ? answer.body : (await refresh(), page.lesson), { keepTeacher: true });
}

async function removeChapter(c) {
  if (!window.confirm(`Remove the chapter “${c.title}”?`)) return;
  const answer = await ask(`/api/lessons/${lessonId}/chapters/${c.id}`, { method: "DELETE", teacher: true });
  if (!answer.ok) return notice("The chapter could not be removed: " + why(answer) + ".");
  if (page.chapter && page.chapter.id === c.id) page.chapter = null;
  await refresh();
}

// ---- adding a chapter (teacher) -------------------------------------------------------------

const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
/** @type {{rid: string, summary: any, variations: any[], said?: string} | null} */
let chosen = null; // the record named in the form, with its variations

async function recordChosen() {
  const form = $("add-chapter", "form");
  const found = UUID_RE.exec(field(form, "record").value);
  const select = field(form, "line");
  if (!found) { chosen = null; return; }
  const rid = found[0].toLowerCase();
  if (chosen && chosen.rid === rid) { $("add-status").textContent = chosen.said; return; }
  const [summary, variations] = await Promise.all([ask(`/api/records/${rid}`), ask(`/api/records/${rid}/variations`)]);
  if (!summary.ok) { $("add-status").textContent = "That record could not be read: " + why(summary) + "."; chosen = null; return; }
  chosen = { rid, summary: summary.body, variations: variations.ok ? variations.body.variations || [] : [] };
  select.replaceChildren(new Option("main line (the game as played)", ""));
  chosen.variations.forEach((v) => select.appendChild(new Option(`variation: ${v.title || "untitled"} (from step ${v.from_step})`, v.id)));
  const s = chosen.summary;
  chosen.said = `${titleName(s.title)}: ${s.seats.map((x) => x.name).join(", ")}, `
    + `${s.steps} steps${s.finished ? "" : " — in progress: only a finished record can be a chapter"}.`;
  $("add-status").textContent = chosen.said;
  if (!field(form, "title").value) field(form, "title").value = `${titleName(s.title)}: ${s.seats.map((x) => x.name).join(", ")}`;
  lineChosen();
}

function lineChosen() {
  const form = $("add-chapter", "form");
  if (!chosen) return;
  const v = chosen.variations.find((x) => x.id === field(form, "line").value);
  field(form, "from_step").value = String(v ? v.from_step : 0);
  field(form, "to_step").value = String(v ? v.last_step : chosen.summary.steps);
}

async function addChapter(e) {
  e.preventDefault();
  const form = $("add-chapter", "form");
  const found = UUID_RE.exec(field(form, "record").value);
  if (!found) { $("add-status").textContent = "Give a record's id or its link (/records/…)."; return; }
  const body = {
    record_id: found[0].toLowerCase(),
    line: field(form, "line").value || null,
    from_step: Number(field(form, "from_step").value),
    to_step: Number(field(form, "to_step").value),
    title: field(form, "title").value.trim(),
    introduction: field(form, "introduction").value.trim(),
  };
  $("add-status").textContent = "adding…";
  const answer = await ask(`/api/lessons/${lessonId}/chapters`, { method: "POST", json: body, teacher: true });
  if (!answer.ok) { $("add-status").textContent = "Not added: " + why(answer) + "."; return; }
  $("add-status").textContent = `Added “${answer.body.title || body.title}”.`;
  field(form, "title").value = "";
  field(form, "introduction").value = "";
  await refresh();
  document.body.dataset.chapters = String(chapters().length);
}

// ---- highlights (teacher) -------------------------------------------------------------------

let picking = null; // the place picked first on the board
function addShape(from, to, brush) {
  if (!from) return;
  const shape = to && to !== from ? { kind: "arrow", from, to, brush } : { kind: "highlight", at: from, brush };
  const same = (s) => JSON.stringify(s) === JSON.stringify(shape);
  page.shapes = page.shapes.some(same) ? page.shapes.filter((s) => !same(s)) : [...page.shapes, shape]; // twice: removed
  lineData(page.chapter).then(drawShapes);
  present();
}

function fillPlaces(data) {
  const from = $("place-from", "select");
  const to = $("place-to", "select");
  const names = data && data.places ? Object.keys(data.places.places).sort() : [];
  if (from.dataset.for === lineKey(page.chapter)) return;
  from.dataset.for = lineKey(page.chapter);
  from.replaceChildren(...names.map((n) => new Option(data.places.places[n].label || n, n)));
  to.replaceChildren(new Option("(none: highlight)", ""), ...names.map((n) => new Option(data.places.places[n].label || n, n)));
}

function nearestPlace(event, data) {
  if (!onPage || !data || !data.places) return null;
  return placeAt(onPage.overlay, data.places.places, event.clientX, event.clientY);
}

async function boardClicked(e) {
  if (!page.teacher || !page.chapter) return;
  const data = await lineData(page.chapter);
  const place = nearestPlace(e, data);
  if (!place) return;
  const brush = e.shiftKey ? "red" : $("brush", "select").value;
  if (!picking) {
    picking = place;
    drawShapes(data);
    status(`from ${place}: click another place for an arrow, the same again for a ring`);
    return;
  }
  const from = picking;
  picking = null;
  status("");
  addShape(from, place, brush);
}

// ---- prediction pauses ---------------------------------------------------------------------

let decider = null; // {chapter, step, seat, name} for the teacher's pause form
async function showDecider(c, n, data) {
  const answer = await fetchStep(c, n);
  if (page.chapter !== c || page.step !== n) return;
  fillPlaces(data);
  const pending = answer.ok ? answer.body.pending : null;
  if (pending && pending.seat !== null && pending.seat !== undefined) {
    decider = { chapter: c.id, step: n, seat: pending.seat, name: seatName(data, pending.seat) };
    $("pause-decider").textContent = `${decider.name} decides at this step (${kindWords(pending)}).`;
    $("pause-question", "input").placeholder = `What would you do as ${decider.name}?`;
  } else {
    decider = null;
    $("pause-question", "input").placeholder = "";
    $("pause-decider").textContent = answer.ok ? "No seat decides at this step: move to a step where one does."
      : "This step could not be read: " + why(answer) + ".";
  }
  showPauseForm();
}

function showPauseForm() {
  $("pause-teacher").hidden = !page.teacher;
  const open = page.pause && page.pause.open !== false && !page.revealed;
  $("open-pause-button", "button").disabled = !decider || Boolean(open);
  if (open && page.teacher) $("pause-decider").textContent = "A pause is open: reveal it before opening another.";
}

async function openPause(e) {
  e.preventDefault();
  if (!decider) return;
  const question = $("pause-question", "input").value.trim() || `What would you do as ${decider.name}?`;
  const answer = await ask(`/api/lessons/${lessonId}/pauses`, { method: "POST", json: { seat: decider.seat, question }, teacher: true });
  if (!answer.ok) return notice("The pause could not be opened: " + why(answer) + ".");
  notice("");
  showPause(answer.body);
  refreshTally();
}

function showPause(q) {
  const fresh = !page.pause || page.pause.id !== q.id;
  page.pause = q;
  if (fresh) {
    page.revealed = null;
    page.picked = null;
  }
  $("pause").hidden = false;
  $("no-pause").hidden = true;
  document.body.dataset.pause = q.id;
  $("pause-title").textContent = q.question || `What would you do as ${q.seat_name}?`;
  const chapter = chapterById(q.chapter);
  $("pause-where").textContent = `${chapter ? `Chapter ${indexOf(chapter) + 1}` : "This chapter"}, step ${q.step}: `
    + `${q.seat_name} decides (${kindWords(q.pending)}). You see only what ${q.seat_name} could see then.`;
  const data = $("pause-view-data");
  data.replaceChildren(render(q.view));
  // a student at a desk sees what the seat knew beside the choices; on a phone it is folded (40% of the screen
  // of data between the question and the choices), a tap away
  $("pause-view", "details").open = !page.teacher && !matchMedia("(max-width: 700px)").matches;
  if (fresh) showCount(q.answers || 0);
  $("played").hidden = true;
  $("reveal", "button").hidden = !page.teacher;
  $("reveal", "button").disabled = false;
  $("tally-box").hidden = !page.teacher;
  if (page.teacher) { $("tally", "ol").replaceChildren(); refreshTally(); } else if (fresh) buildChoices(q);
  $("answer", "form").hidden = page.teacher;
  showPauseForm();
  const asked = chapterById(q.chapter);
  if (fresh && !page.teacher && q.open !== false && asked) { // the question is about that board: a student away is brought to it
    page.following = true;
    show(asked, q.step);
    showFollow();
  } else if (fresh && page.chapter) show(page.chapter, page.step); // the board of the pause's step: the seat's own view
}

function hidePause() {
  const was = page.pause;
  page.pause = null;
  page.revealed = null;
  $("pause").hidden = true;
  $("no-pause").hidden = false;
  delete document.body.dataset.pause;
  showPauseForm();
  if (was && page.chapter) show(page.chapter, page.step); // back to the all-seeing board
}

function buildChoices(q) {
  const box = $("choices");
  box.replaceChildren();
  (q.choices || []).forEach((choice, i) => {
    const label = fromTemplate("choice");
    const input = /** @type {HTMLInputElement} */ (label.querySelector("input"));
    input.value = JSON.stringify(choice.command);
    input.id = `choice-${i}`;
    label.querySelector("span").textContent = " " + choice.said;
    box.appendChild(label);
  });
  if (!(q.choices || []).length) box.appendChild(el("p", "This seat has no choice to make here."));
  $("student", "input").value = localStorage.getItem(STUDENT_KEY) || "";
  $("answer-status").textContent = "";
  /** @type {HTMLButtonElement} */ ($("answer", "form").querySelector("button[type=submit]")).disabled = false;
}

function showCount(count) {
  document.body.dataset.answers = String(count);
  $("pause-count").textContent = count === 1 ? "1 answer so far" : `${count} answers so far`;
}

async function sendAnswer(e) {
  e.preventDefault();
  const q = page.pause;
  if (!q) return;
  const picked = /** @type {HTMLInputElement | null} */ ($("choices").querySelector("input[name=choice]:checked"));
  const student = $("student", "input").value.trim();
  if (!picked) { $("answer-status").textContent = "Pick one of the choices first."; return; }
  if (!student) { $("answer-status").textContent = "Say your name first (the teacher sees it beside your answer)."; $("student", "input").focus(); return; }
  localStorage.setItem(STUDENT_KEY, student);
  $("answer-status").textContent = "sending…";
  const answer = await ask(`/api/lessons/${lessonId}/pauses/${q.id}/answers`, {
    method: "POST", json: { student, command: JSON.parse(picked.value) },
  });
  if (!answer.ok) { $("answer-status").textContent = "Not sent: " + why(answer) + "."; return; }
  page.picked = picked.value;
  const said = picked.parentElement.textContent.trim();
  $("answer-status").textContent = `Answer sent: ${said}. You may change it until the teacher reveals the move.`;
  document.body.dataset.answered = q.id;
}

let tallyTimer = null;
function refreshTally() {
  if (!page.teacher || !page.pause) return;
  clearTimeout(tallyTimer);
  tallyTimer = setTimeout(async () => {
    const q = page.pause;
    const answer = await ask(`/api/lessons/${lessonId}/pauses/${q.id}`, { teacher: true, cache: "no-store" });
    if (answer.ok && answer.body.tally && page.pause && page.pause.id === q.id && !page.revealed) drawTally(answer.body.tally, null);
  }, 30);
}

function drawTally(tally, played) {
  const list = $("tally", "ol");
  list.replaceChildren();
  const total = tally.answers || 0;
  const playedKey = played ? canon(played.command) : null;
  const all = [...(tally.choices || [])].sort((a, b) => b.count - a.count);
  // the picked choices (and the move played); a seat with eighty choices needs no eighty empty rows
  const shown = all.filter((c) => c.count > 0 || (playedKey && canon(c.command) === playedKey));
  const nobody = all.length - shown.length;
  shown.forEach((c) => {
    const item = el("li", undefined, "tally-row");
    if (playedKey && canon(c.command) === playedKey) item.classList.add("played");
    const meter = el("meter");
    meter.min = 0;
    meter.max = Math.max(1, total);
    meter.value = c.count;
    item.append(el("span", c.said, "said"), meter, el("span", ` ${c.count}`, "count"));
    if (page.teacher && c.students && c.students.length) item.appendChild(el("span", ` (${c.students.join(", ")})`, "students"));
    list.appendChild(item);
  });
  if (nobody) list.appendChild(el("li", `${shown.length ? "and " : ""}${nobody} other choice${nobody > 1 ? "s" : ""}: nobody picked ${nobody > 1 ? "them" : "it"}`, "tally-rest"));
  $("tally-box").hidden = false;
  document.body.dataset.tally = String(total);
  showCount(total);
}

async function reveal() {
  const q = page.pause;
  if (!q) return;
  $("reveal", "button").disabled = true;
  const answer = await ask(`/api/lessons/${lessonId}/pauses/${q.id}/reveal`, { method: "POST", json: {}, teacher: true });
  if (!answer.ok) { $("reveal", "button").disabled = false; notice("The move could not be revealed: " + why(answer) + "."); return; }
  showReveal({ pause: q.id, ...answer.body });
}

function showReveal(message) {
  const q = page.pause;
  const pid = message.pause && typeof message.pause === "object" ? message.pause.id : message.pause;
  if (!q || (pid && pid !== q.id)) { refresh(); return; }
  if (!message.played) return;
  page.revealed = message;
  page.pause = { ...q, open: false };
  const played = message.played;
  const mine = page.picked && canon(JSON.parse(page.picked)) === canon(played.command);
  $("played").hidden = false;
  $("played").textContent = `${q.seat_name} played: ${played.said}` + (page.teacher || !page.picked ? "" : mine ? " — as you said." : ".");
  $("reveal", "button").hidden = true;
  $("answer", "form").hidden = true;
  if (message.tally) drawTally(message.tally, played);
  document.body.dataset.revealed = q.id;
  showPauseForm();
  if (page.chapter) show(page.chapter, page.step); // the answer is out: the all-seeing board again
}

// ---- wiring ---------------------------------------------------------------------------------

let wired = false;

/** The page's controls, once: `main` starts again after a wrong teacher key, and a second listener would step twice. */
function wire() {
  if (wired) return;
  wired = true;
  placeNames($("place-names", "button"), $("lesson-board-region"));
  $("slider", "input").addEventListener("input", () => goStep(Number($("slider", "input").value)));
  $("prev", "button").addEventListener("click", () => goStep(page.step - 1));
  $("next", "button").addEventListener("click", () => goStep(page.step + 1));
  $("first", "button").addEventListener("click", () => goStep(page.chapter.from_step));
  $("last", "button").addEventListener("click", () => goStep(page.chapter.to_step));
  $("follow-button", "button").addEventListener("click", () => (page.teacher ? present() : follow()));
  $("board").addEventListener("click", boardClicked);
  $("add-shape", "button").addEventListener("click", () => addShape($("place-from", "select").value, $("place-to", "select").value, $("brush", "select").value));
  $("clear-shapes", "button").addEventListener("click", () => {
    page.shapes = [];
    picking = null;
    lineData(page.chapter).then(drawShapes);
    present();
  });
  $("open-pause", "form").addEventListener("submit", openPause);
  $("answer", "form").addEventListener("submit", sendAnswer);
  $("reveal", "button").addEventListener("click", reveal);
  $("add-chapter", "form").addEventListener("submit", addChapter);
  field($("add-chapter", "form"), "record").addEventListener("change", recordChosen);
  field($("add-chapter", "form"), "line").addEventListener("change", lineChosen);
  $("export-lesson", "form").addEventListener("submit", downloadLesson);
  $("imported-done", "button").addEventListener("click", () => { $("imported-keys").hidden = true; });
  document.addEventListener("keydown", (e) => {
    const t = e.target;
    if (e.altKey || e.ctrlKey || e.metaKey || !page.chapter) return;
    if (t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement || t instanceof HTMLButtonElement && e.key === "Enter") return;
    if (t instanceof HTMLInputElement && !["range", "radio", "checkbox"].includes(t.type)) return;
    if (t instanceof HTMLInputElement && t.type === "radio" && e.key.startsWith("Arrow")) return;
    const moves = {
      ArrowLeft: () => goStep(page.step - 1),
      ArrowRight: () => goStep(page.step + 1),
      Home: () => goStep(page.chapter.from_step),
      End: () => goStep(page.chapter.to_step),
      PageUp: () => goChapter(-1),
      PageDown: () => goChapter(1),
      Escape: () => { picking = null; lineData(page.chapter).then(drawShapes); status(""); },
    };
    if (!page.teacher) moves.f = follow;
    if (!moves[e.key]) return;
    e.preventDefault();
    moves[e.key]();
  });
  window.addEventListener("hashchange", () => {
    const key = hashParams().get("key");
    if (key !== page.key) location.reload(); // another reader: start again as that one
  });
  document.addEventListener("visibilitychange", wake);
  window.addEventListener("online", wake);
  window.addEventListener("pageshow", (e) => { if (e.persisted) wake(e); });
}

// ---- the lesson file: downloaded by the teacher, imported on /lessons/new ----------------------

const IMPORTED = (lid) => `cronaca:imported:${lid}`; // the import's new keys, until the lesson page shows them once

// A file name from the lesson's title ("Reading a game of Città-Stato" -> lesson-reading-a-game-of-citta-stato.json).
function fileName(title) {
  const slug = String(title || "").normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60);
  return `lesson-${slug || lessonId}.json`;
}

// The export answers anyone (the lesson is no secret); a record's annotator key typed here also keeps
// that record's notes for one seat only. A key that opens none of the records says so rather than
// silently giving the public notes.
async function downloadLesson(e) {
  e.preventDefault();
  const key = field($("export-lesson", "form"), "key").value.trim();
  const headers = key ? { Authorization: "Bearer " + key } : {};
  $("export-button", "button").disabled = true;
  $("export-status").textContent = "preparing the file…";
  try {
    let warning = "";
    if (key) {
      const rids = [...new Set(chapters().map((c) => c.record_id))];
      const readers = await Promise.all(rids.map((rid) => ask(`/api/records/${rid}/annotations?line=all`, { headers, cache: "no-store" })));
      if (!readers.some((r) => r.ok && r.body.reader && r.body.reader !== "public")) {
        warning = " That key opens none of this lesson's records: the file has their public notes only.";
      }
    }
    const answer = await ask(`/api/lessons/${lessonId}/export`, { headers, cache: "no-store" });
    if (!answer.ok || typeof answer.body !== "object") {
      $("export-status").textContent = "Not downloaded: " + why(answer) + ".";
      return;
    }
    const name = fileName(answer.body.title || (page.lesson && page.lesson.title));
    const url = URL.createObjectURL(new Blob([JSON.stringify(answer.body, null, 1) + "\n"], { type: "application/json" }));
    const link = el("a");
    link.href = url;
    link.download = name;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    const records = (answer.body.records || []).length;
    const notes = (answer.body.records || []).reduce((n, r) => n + ((r.file && r.file.annotations) || []).length, 0);
    $("export-status").textContent = `Saved ${name}: ${(answer.body.chapters || []).length} chapters, `
      + `${records} record${records === 1 ? "" : "s"}, ${notes} note${notes === 1 ? "" : "s"}.${warning}`;
  } finally {
    $("export-button", "button").disabled = false;
  }
}

async function importLesson(e) {
  e.preventDefault();
  const form = $("import-lesson", "form");
  const file = field(form, "file").files[0];
  const say = (sentence) => { $("import-status").textContent = sentence; };
  if (!file) return say("Choose a lesson file first.");
  let document_;
  try {
    document_ = JSON.parse(await file.text());
  } catch (err) {
    return say(`${file.name} is not a lesson file: it is not JSON (${err.message}).`);
  }
  const button = /** @type {HTMLButtonElement} */ (form.querySelector("button[type=submit]"));
  button.disabled = true;
  say(`Checking ${file.name} by the rules…`);
  const answer = await ask("/api/lessons/import", { method: "POST", json: document_ });
  button.disabled = false;
  if (!answer.ok) return say(`Not imported (nothing was saved): ${why(answer)}.`);
  const made = answer.body;
  try {
    sessionStorage.setItem(IMPORTED(made.lesson.id), JSON.stringify({ records: made.records || {}, annotator_keys: made.annotator_keys || {} }));
  } catch (err) {
    // storage refused (private mode, full): the keys are shown here instead, before leaving
    return say(`Imported. Annotator keys (shown once): ${Object.entries(made.annotator_keys || {}).map(([ref, k]) => `${ref} ${k}`).join(", ")}. `
      + `Your lesson: ${made.lesson.link}#key=${made.teacher_key}`);
  }
  location.assign(`${made.lesson.link || "/lessons/" + made.lesson.id}#key=${encodeURIComponent(made.teacher_key)}`);
}

// Right after an import, the teacher's page shows the records' new annotator keys, once.
function showImportedKeys() {
  let stored = null;
  try {
    stored = sessionStorage.getItem(IMPORTED(lessonId));
    if (stored) sessionStorage.removeItem(IMPORTED(lessonId));
  } catch (err) {
    return;
  }
  if (!stored || !page.teacher) return;
  let made;
  try { made = JSON.parse(stored); } catch (err) { return; }
  const list = $("imported-key-list");
  list.replaceChildren();
  Object.entries(made.annotator_keys || {}).forEach(([ref, key]) => {
    const rid = (made.records || {})[ref];
    const item = el("li");
    item.dataset.record = rid || "";
    const used = chapters().filter((c) => c.record_id === rid).map((c) => `“${c.title}”`);
    const link = el("a", `record ${ref}`);
    link.href = `/records/${rid}#key=${encodeURIComponent(key)}`;
    item.append(link, el("span", used.length ? ` (chapters ${used.join(", ")}): ` : ": "), el("code", key, "annotator-key"));
    list.appendChild(item);
  });
  $("imported-keys").hidden = !list.children.length;
  document.body.dataset.imported = String(list.children.length);
}

async function newLessonPage() {
  document.title = "Cronaca — a new lesson";
  $("title").textContent = "A new lesson";
  const form = $("new-lesson", "form");
  form.hidden = false;
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = { title: field(form, "title").value.trim(), introduction: field(form, "introduction").value.trim() };
    const answer = await ask("/api/lessons", { method: "POST", json: body });
    if (!answer.ok) return notice("The lesson could not be made: " + why(answer) + ".");
    location.assign(`${answer.body.link || "/lessons/" + answer.body.lesson.id}#key=${encodeURIComponent(answer.body.teacher_key)}`);
  });
  $("import-lesson", "form").hidden = false;
  $("import-lesson", "form").addEventListener("submit", importLesson);
}

async function main() {
  if (lessonId === "new") return newLessonPage();
  wire();
  const titles = loadTitles(); // asked beside the lesson: each chapter names its record's title
  const answer = await ask(`/api/lessons/${lessonId}`, { teacher: true, cache: "no-store" });
  if (!answer.ok && page.key && (answer.status === 403 || answer.status === 401)) {
    notice("That key is not this lesson's teacher key: you follow the lesson as a student.");
    page.key = null;
    history.replaceState(null, "", location.pathname);
    return main();
  }
  if (!answer.ok) {
    notice(answer.status === 404 ? "There is no lesson here: the address may be wrong." : "The lesson could not be read: " + why(answer) + ".");
    $("title").textContent = "No lesson";
    document.body.dataset.ready = "none";
    return;
  }
  page.teacher = Boolean(answer.body.teacher);
  $("lesson").hidden = false;
  document.body.classList.toggle("teacher", page.teacher);
  document.body.classList.toggle("student", !page.teacher);
  $("role").textContent = page.teacher
    ? "You present this lesson: every step you show, and every highlight you draw, reaches the class."
    : "You follow the teacher's board. Step away with the arrows whenever you like; “follow” (or the f key) brings you back.";
  $("share").hidden = !page.teacher;
  $("add-chapter-box", "details").hidden = !page.teacher;
  $("draw").hidden = !page.teacher;
  $("export-lesson", "form").hidden = !page.teacher;
  $("add-chapter-box", "details").open = page.teacher && answer.body.chapters.length === 0;
  const link = new URL(answer.body.link || `/lessons/${lessonId}`, location.origin).href;
  $("student-link", "a").href = link;
  $("student-link", "a").textContent = link;
  await titles;
  applyLesson(answer.body);
  showImportedKeys();
  listen();
  document.body.dataset.ready = "yes";
}

main();
