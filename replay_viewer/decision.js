// @ts-check
// The decision panel of the record page (issue 31): when the reader may act (a seat's link while that seat decides,
// or the table's link for any seat) a region labelled "decision" says whose decision it is and offers every legal
// choice as a button in words, grouped as a player thinks of them; a choice of many parts is built step by step from
// the parts its words are split into, the engine's legal list saying at each step what remains. At the table, the
// outcomes a choice meets (a draw, a roll) are entered from what is possible (POST .../asks), and the last entry can be
// taken back. The panel asks the API for everything (GET /legal, POST /commands) and follows the record page's
// live stream through its "cronaca:announced" (the stream's word), "cronaca:record" (the new summary) and
// "cronaca:checked" (a check that found nothing new) events; record.js knows nothing of it but those events and two
// hooks.

import { hashParams } from "./lib/address.js";
import { api, why } from "./lib/api.js";
import { $, button, el, seenOnly, symbolButton } from "./lib/dom.js";
import { kindWords } from "./lib/render.js";
import { guardDoubleTaps } from "./lib/taps.js";
import { recordPage } from "./record.js";

const id = recordPage.id;
const RETRIES = 3; // a tap whose answer was lost is sent again with the same Idempotency-Key: stored once
const RETRY_MS = 600;
const KEEP = `cronaca:entry:${id}`; // the entry being made, kept across a reload (a dropped connection loses nothing)

/**
 * A legal choice as the panel shows it.
 * @typedef {object} Choice
 * @property {Record<string, any>} command what is sent back
 * @property {string} words the whole choice in words
 * @property {string} group "actions", "cards", "places", "pass"...
 * @property {string[]} parts the words split into the steps a person picks them in
 * @property {string | null} place a board place the choice names
 */

const panel = {
  table: hashParams().get("table"), // the table key: every seat's choices and the outcomes seen
  legal: /** @type {any} */ (null),
  choices: /** @type {Choice[]} */ ([]),
  path: /** @type {string[]} */ ([]), // the parts picked so far of a many-part choice
  place: /** @type {string | null} */ (null), // a board place tapped: only the choices naming it are offered
  placeAt: 0, // how many parts were picked when it was tapped (a "back" from there lets it go)
  sending: false,
  asking: /** @type {any} */ (null), // an outcome being entered: {choice, outcomes, ask}
  generation: 0,
  refused: false, // the credential opens no seat (403): nothing to read again
};

const credential = () => panel.table || recordPage.token();
const names = () => recordPage.names();
const seatName = (seat) => names()[seat] || `seat ${seat}`;
const region = () => $("decision");

// Where the panel stands: on a screen wide enough for the board and the move list side by side (viewer.css's #stage,
// two columns above 900 px) at the head of the move list's column, beside the board, which it then covers no part
// of; on a narrower one, the bar along the bottom edge, within a thumb's reach (table.css). The one panel is moved
// between the two places, never drawn twice.
// Beside the board, the move list under the panel is as tall as the screen leaves it with the page at its top, so
// that the move just played, at its foot, is in sight with the choices (table.css reads --story-room).
const WIDE = window.matchMedia("(min-width: 901px)");
function stand() {
  const node = region(), stage = $("stage");
  if (WIDE.matches && node.parentElement !== stage) stage.insertBefore(node, $("story"));
  else if (!WIDE.matches && node.parentElement === stage) $("status").after(node);
  room();
}
function room() {
  const stage = $("stage"), node = region();
  if (node.parentElement !== stage || node.hidden) return stage.style.removeProperty("--story-room");
  const top = stage.getBoundingClientRect().top + window.scrollY;
  stage.style.setProperty("--story-room", `${Math.round(window.innerHeight - top - node.offsetHeight - 24)}px`);
}
stand();
WIDE.addEventListener("change", stand);
window.addEventListener("resize", room);
const sizes = new ResizeObserver(room); // the panel's height, and what stands above the board (it moves the board)
sizes.observe(region());
for (const above of $("stage").parentElement?.children || []) {
  if (above.id === "stage") break;
  sizes.observe(above);
}
// The panel's and the board's taps: the second tap of a double tap on a choice just stored is dropped (lib/taps.js)
const taps = guardDoubleTaps([region(), $("board")]);

/** The sentence the panel shows under its buttons (a refusal, a retry), or none. */
function say(sentence) {
  const node = $("decision-said");
  node.textContent = sentence || "";
  node.hidden = !sentence;
}

// ---- the legal choices, in words -------------------------------------------------------------------

const EXTRA = ["words", "group", "parts", "place"];
const typeWords = (type) => String(type || "").split("/").pop()?.replace(/-/g, " ") || "choice";
const valueWords = (v) => (Array.isArray(v) ? v.join(" ") : v !== null && typeof v === "object" ? JSON.stringify(v) : String(v));

/**
 * One item of GET /legal's `commands` as a Choice: the title's words, group and parts when the API gives them
 * (issue 31 B), else words made from the command's own fields.
 * @returns {Choice}
 */
function choiceOf(item) {
  const command = item && typeof item.command === "object" && item.command !== null ? item.command
    : Object.fromEntries(Object.entries(item).filter(([k]) => !EXTRA.includes(k)));
  const fields = Object.entries(command).filter(([k]) => k !== "type" && k !== "seat");
  const parts = Array.isArray(item.parts) && item.parts.length ? item.parts.map(String)
    : [typeWords(command.type), ...fields.map(([k, v]) => `${k.replace(/_/g, " ")} ${valueWords(v)}`)];
  const words = typeof item.words === "string" && item.words ? item.words : parts.join(" ");
  const group = typeof item.group === "string" && item.group ? item.group : /(^|-)(pass|end)\b/.test(typeWords(command.type).replace(/ /g, "-")) ? "pass" : "actions";
  return { command, words, group, parts, place: item.place === undefined || item.place === null ? null : String(item.place) };
}

/** The choices that start with the parts picked so far. */
const under = (path) => panel.choices.filter((c) => path.every((p, i) => c.parts[i] === p)
  && (panel.place === null || c.place === panel.place));

/**
 * The buttons of this step: each distinct next part among the choices left; a part that leaves one choice
 * finishes it (its button says the rest of its words), and a choice that ends here is a button of its own.
 */
function options() {
  const left = under(panel.path);
  const depth = panel.path.length;
  /** @type {Map<string, Choice[]>} */
  const next = new Map();
  /** @type {{label: string, choice: Choice | null, part: string | null, group: string}[]} */
  const out = [];
  for (const c of left) {
    if (c.parts.length <= depth) {
      out.push({ label: depth ? "just this" : c.words, choice: c, part: null, group: c.group });
      continue;
    }
    const part = c.parts[depth];
    if (!next.has(part)) next.set(part, []);
    next.get(part)?.push(c);
  }
  for (const [part, found] of next) {
    const one = found.length === 1 ? found[0] : null;
    out.push({ label: one ? one.parts.slice(depth).join(" ") : part, choice: one, part: one ? null : part, group: found[0].group });
  }
  return out;
}

// ---- drawing the panel -------------------------------------------------------------------------------

let drawn = 0;
let drawnWith = ""; // what of the record the panel was drawn with (recordOf): a new summary redraws it only if that changed
function render() {
  drawnWith = recordOf();
  draw();
  markPlaces();
  keepFocus();
  offerSkip();
  region().dataset.drawn = String(++drawn); // how many times the panel was drawn: a test waits for the next one
}

// A keyboard's (or a screen reader's) place in the panel: the button pressed goes when the panel is drawn again (or
// is disabled while the choice is sent), and the focus would fall to the page's top, a long way from the next
// choice. While the reader was in the panel, it lands on the panel's first line (whose decision it is, read aloud),
// one Tab from the choices.
let inPanel = false;
function keepFocus() {
  const lost = !document.activeElement || document.activeElement === document.body;
  if (!inPanel || !lost || region().hidden) return;
  $("decision-whose").focus({ preventScroll: true });
}

// The panel is pinned to the screen's foot but comes last in the page (after the notes, the move list and the
// scores): the page's first Tab offers a link to it while there is something to choose or enter.
function offerSkip() {
  const state = region().dataset.state || "";
  $("skip-decision").hidden = region().hidden || !["deciding", "outcome"].includes(state);
}

/** What the panel shows of the record's summary besides the decision: whether it is over, take-backs, the undo. */
function recordOf() {
  const r = recordPage.record();
  return r ? JSON.stringify([r.finished, r.steps > 0, r.withdrawn, r.withdrawal, Boolean(r.scores)]) : "";
}

function draw() {
  const node = region();
  const legal = panel.legal;
  const record = recordPage.record();
  const body = $("decision-choices");
  const head = $("decision-whose");
  const trail = $("decision-path");
  const over = Boolean((record && record.finished) || (legal && legal.pending && legal.pending.kind === "game-over"));
  const mine = Boolean(legal && Array.isArray(legal.commands) && legal.commands.length > 0);
  // a seat's choices are drawn anew only when they are others (below); what else the panel shows there (an outcome
  // asked, nothing) is drawn anew each time
  const kept = body.dataset.choices || "";
  body.dataset.choices = "";
  if (!kept || !legal || !credential() || over || panel.asking || !mine) body.replaceChildren();
  trail.replaceChildren();
  $("decision-undo", "button").hidden = !record || record.finished || !(record.steps > 0) || (!panel.table && !recordPage.token());
  showWithdrawals();
  if (!legal || !credential()) { // a reader who may not act sees only what was taken back, if anything
    const taken = record && Array.isArray(record.withdrawn) && record.withdrawn.length > 0;
    node.hidden = !taken;
    node.dataset.state = "reading";
    head.textContent = "";
    return;
  }
  node.hidden = false;
  node.dataset.version = String(legal.version);
  if (!node.hasAttribute("aria-busy")) node.setAttribute("aria-busy", "false");
  // over: the record says so, or the rules do (the kernel's pending kind "game-over") before the record's last version
  if (over) {
    const final = record && record.scores && Array.isArray(record.scores.seats) ? record.scores : null;
    const ranking = final && Array.isArray(final.ranking) ? final.ranking : [];
    head.textContent = "The game is over." + (ranking.length && final
      ? " " + ranking.map((seat) => `${seatName(seat)} ${(final.seats.find((x) => x.seat === seat) || {}).total ?? "?"}`).join(", ") + "." : "");
    node.dataset.state = "over";
    $("decision-undo", "button").hidden = true;
    return;
  }
  if (panel.asking) return renderAsk();
  const pending = legal.pending || {};
  const seat = pending.seat;
  const who = seat === null || seat === undefined ? "The game" : seatName(seat);
  if (!mine) {
    node.dataset.state = "waiting";
    head.textContent = seat === null || seat === undefined ? `Waiting: ${kindWords(pending)}.`
      : `${who} decides (${kindWords(pending)}); this page waits for it.`;
    return;
  }
  node.dataset.state = "deciding";
  node.dataset.seat = String(seat);
  head.textContent = `${who} decides: ${kindWords(pending)}` + (panel.table ? "" : " (your turn)");
  if (panel.path.length || panel.place !== null) {
    const at = panel.place === null ? "" : `${panel.path.length ? " · " : ""}at ${placeWords()}`;
    trail.append(chosen(panel.path, at), symbolButton("◀", "back", "back", back, "undo the last part picked"));
  }
  const shown = options();
  // groups as they come, but passing last: the choice that does nothing is the one least often meant
  const groups = [...new Set(shown.map((o) => o.group))].sort((a, b) => Number(a === "pass") - Number(b === "pass"));
  // The same decision drawn again (the record's summary landing, the live stream back after a silence) keeps its
  // buttons: drawn anew they would be other nodes, and a thumb that pressed one as they were swapped lifts from
  // another, of which the browser makes no click (the tap is lost). A keyboard's focus stays on its button too.
  const choices = JSON.stringify([legal.version, groups, shown.map((o) => [o.group, o.label, Boolean(o.choice)])]);
  body.dataset.choices = choices;
  if (choices === kept) {
    body.querySelectorAll("button.choice").forEach((b) => { /** @type {HTMLButtonElement} */ (b).disabled = panel.sending; });
    return;
  }
  body.replaceChildren();
  for (const group of groups) {
    const box = el("div", null, "choice-group");
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", group);
    if (groups.length > 1) box.append(el("h3", group));
    for (const o of shown.filter((x) => x.group === group)) {
      const b = button(o.label, o.choice ? "choice final" : "choice part", () => pick(o), o.choice ? o.choice.words : `then pick what follows ${o.part}`);
      b.disabled = panel.sending;
      box.append(b);
    }
    body.append(box);
  }
}

/** The parts picked so far, "chosen: found › gold": the "›" seen, a comma said (not "single right-pointing angle"). */
function chosen(path, at) {
  const line = el("span", "chosen: ");
  path.forEach((part, k) => {
    if (k) line.append(seenOnly(" › "), el("span", ", ", "visually-hidden"));
    line.append(part);
  });
  line.append(at + " ");
  return line;
}

/** What of the ask's pool can still come up in the outcome being entered: each value with how many are left. */
function stillPossible(ask, current) {
  const possible = Array.isArray(ask.possible) && ask.possible.length ? ask.possible
    : ask.kind === "roll" ? Array.from({ length: ask.faces || 6 }, (_, k) => ({ value: k + 1, count: ask.n })) : [];
  if (ask.kind === "roll") return possible.map((p) => ({ ...p, left: 1 })); // a die's faces can come up again
  return possible.map((p) => ({ ...p, left: (p.count || 1) - current.filter((v) => v === p.value).length }));
}

// ---- an outcome laid over places (La Città's tiles over the board's slots): entered place by place ------------

/** Whether an ask names the place each position fills (`where`): then the table enters what it sees at each place. */
const byPlace = (ask) => Boolean(ask) && Array.isArray(ask.where) && ask.where.length === ask.n && ask.n > 0;

/** The values entered so far of the outcome being entered (laid over places: those of the places filled). */
const entered = (entry) => (entry.placed ? entry.placed.filter((v) => v !== undefined) : entry.current);

/** The place to fill next: the first empty one from `from` on, round to the first; -1 once all are filled. */
function nextEmpty(placed, from) {
  for (let k = 0; k < placed.length; k += 1) {
    const at = (from + k) % placed.length;
    if (placed[at] === undefined) return at;
  }
  return -1;
}

/** A tap on a place the ask names: that place is the one entered next (a place filled already is entered again). */
function tapAsked(spot) {
  const entry = panel.asking;
  const place = spot.getAttribute("data-id");
  const at = entry.ask.where.findIndex((w) => w.place === place);
  if (at < 0) return say(`${spot.getAttribute("aria-label") || place} is none of the places asked for.`);
  say("");
  if (entry.placed[at] !== undefined) {
    entry.placed[at] = undefined;
    entry.order = entry.order.filter((k) => k !== at);
  }
  entry.at = at;
  render();
}

/** An outcome the table must say: the values still possible, each a button (a draw of several, one value a tap). */
function renderAsk() {
  const node = region();
  const entry = panel.asking;
  const { ask, outcomes, choice } = entry;
  const current = entered(entry);
  if (!ask) { // the rules are being asked what comes next
    node.dataset.state = "asking";
    $("decision-whose").textContent = choice ? `${choice.words}…` : "The setup…";
    return;
  }
  node.dataset.state = "outcome";
  node.dataset.ask = `${ask.kind}:${ask.source}`;
  $("decision-whose").textContent = choice ? `${choice.words}: what did the table see?` : "The setup: what did the table see?";
  const progress = ask.n > 1 ? ` (${current.length + 1} of ${ask.n})` : "";
  if (entry.placed) { // which place is asked, in words; the board marks it, and a tap on another place asks that one
    const here = ask.where[entry.at];
    $("decision-path").append(el("span", `${ask.words || ask.source} · ${current.length} of ${ask.n} entered`
      + (outcomes.length ? ` · ${outcomes.length} before` : "") + " "),
    el("strong", `What lies on ${here.words}?`, "asked-place"), el("span", "(or tap another place on the board)", "hint"));
  } else {
    $("decision-path").append(el("span", (ask.words || `${ask.kind} from ${ask.source}`) + progress
      + (current.length ? `: ${current.map(valueWords).join(", ")}` : "") + (outcomes.length ? ` · ${outcomes.length} entered` : "") + " "));
  }
  if (current.length) $("decision-path").append(symbolButton("◀", "back", "back", () => { unsee(entry); render(); }, "take back the last value entered"));
  if (choice) $("decision-path").append(symbolButton("✕", "cancel", "back", () => { panel.asking = null; render(); }, "enter nothing; choose again"));
  const box = el("div", null, "choice-group outcomes");
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", "what was seen");
  const words = new Map((ask.possible || []).map((p) => [JSON.stringify(p.value), p.words]));
  const open = stillPossible(ask, current).filter((x) => x.left > 0);
  for (const p of open) {
    const said = words.get(JSON.stringify(p.value)) || valueWords(p.value);
    const b = button(said + (p.left > 1 && ask.kind !== "roll" ? ` (${p.left})` : ""), "choice outcome", () => seen(p.value), `the table saw ${said}`);
    b.disabled = panel.sending;
    box.append(b);
  }
  const rest = ask.n - current.length;
  if (ask.kind !== "roll" && rest > 1 && open.length === 1 && open[0].left >= rest) { // nothing else can come up
    const said = words.get(JSON.stringify(open[0].value)) || valueWords(open[0].value);
    const b = button("", "choice outcome rest", () => seenAll(Array(rest).fill(open[0].value)),
      `the ${rest} still to enter can only be ${said}`);
    b.append(`the rest: ${said} `, seenOnly("×"), ` ${rest}`); // "× 3" seen; "3 of them" said, not "times 3"
    b.setAttribute("aria-label", `the rest: ${said}, ${rest} of them`);
    b.disabled = panel.sending;
    box.append(b);
  }
  if (ask.hidden) box.append(el("p", "Nothing of it is shown to this seat: enter it on the table's device.", "hint"));
  $("decision-choices").append(box);
  if (ask.kind !== "roll" && rest > 1 && open.length > 1) $("decision-choices").append(seenLine(ask, current, words));
}

/** The last value entered taken back (laid over places: the place filled last is asked again). */
function unsee(entry) {
  if (!entry.placed) return entry.current.pop();
  const at = entry.order.pop();
  if (at === undefined) return;
  entry.placed[at] = undefined;
  entry.at = at;
}

/**
 * What was seen, typed in one line in the order it was seen (the values as the buttons say them, or as the notation
 * writes them): a deal of many cards, the tiles laid on the board. Nothing is entered unless every value could
 * still come up.
 */
function seenLine(ask, current, words) {
  const form = el("form", null, "seen-line");
  const input = /** @type {HTMLInputElement} */ (el("input"));
  const rest = ask.n - current.length;
  Object.assign(input, { type: "text", name: "seen", autocomplete: "off", autocapitalize: "off", spellcheck: false,
    placeholder: `the ${rest} still to enter, in order` });
  input.setAttribute("aria-label", `what was seen, in order: the ${rest} still to enter, separated by spaces or commas`);
  const go = /** @type {HTMLButtonElement} */ (el("button", "enter these", "seen-line-enter")); // not a "choice": one tap of it is many
  go.type = "submit";
  go.disabled = panel.sending;
  form.append(input, go);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const read = readLine(input.value, ask, current, words);
    if (typeof read === "string") {
      say(read);
      return $("decision-said").scrollIntoView({ block: "nearest" }); // below the line typed, in a panel that scrolls
    }
    say("");
    seenAll(read);
  });
  return form;
}

/** The values a typed line names, each checked against what can still come up; or the sentence saying why not. */
function readLine(text, ask, current, words) {
  const tokens = (text.includes(",") ? text.split(",") : text.split(/\s+/)).map((t) => t.trim()).filter(Boolean);
  const rest = ask.n - current.length;
  if (!tokens.length) return "Type what was seen, in the order it was seen.";
  if (tokens.length > rest) return `${tokens.length} values were typed; only ${rest} are still to enter.`;
  const key = (v) => String(v).normalize("NFC").toLowerCase();
  const by = new Map();
  for (const p of ask.possible || []) {
    by.set(key(valueWords(p.value)), p.value);
    if (p.words) by.set(key(p.words), p.value);
  }
  const left = new Map(stillPossible(ask, current).map((p) => [JSON.stringify(p.value), p.left]));
  const values = [];
  for (const token of tokens) {
    if (!by.has(key(token))) {
      const can = [...left].filter(([, k]) => k > 0).map(([v]) => words.get(v) || valueWords(JSON.parse(v)));
      return `“${token}” is none of what can still come up (${can.join(", ")}); nothing was entered.`;
    }
    const value = by.get(key(token));
    const k = left.get(JSON.stringify(value)) || 0;
    if (k <= 0) return `No more “${token}” can come up; nothing was entered.`;
    left.set(JSON.stringify(value), k - 1);
    values.push(value);
  }
  return values;
}

// ---- the board: a tap on a place picks the choices that name it -------------------------------------------

/** The tapped place as the board names it (its label), else its id. */
function placeWords() {
  const spot = $("board").querySelector(`[data-id="${CSS.escape(String(panel.place))}"]`);
  return (spot && spot.getAttribute("aria-label")) || String(panel.place);
}

/** The board's places (their `data-id`) that a choice still open names: marked, so a player sees what to tap. */
function markPlaces() {
  const board = $("board");
  const entry = panel.asking && panel.asking.placed ? panel.asking : null;
  const wanted = new Set(entry ? entry.ask.where.map((w) => w.place)
    : panel.asking || panel.sending ? [] : under(panel.path).map((c) => c.place).filter(Boolean));
  board.querySelectorAll(".decision-place").forEach((n) => { if (!wanted.has(n.getAttribute("data-id") || "")) n.classList.remove("decision-place"); });
  for (const place of wanted) board.querySelectorAll(`[data-id="${CSS.escape(String(place))}"]`).forEach((n) => n.classList.add("decision-place"));
  markSeen(board, entry);
}

const SVG = "http://www.w3.org/2000/svg";

/** Where a place's words go: the middle of its first polygon's corners (a triangle's, not its box's), else its box's. */
function middleOf(spot) {
  const shape = spot.querySelector("polygon");
  const corners = shape ? [...shape.points] : [];
  if (corners.length) return [corners.reduce((a, p) => a + p.x, 0) / corners.length, corners.reduce((a, p) => a + p.y, 0) / corners.length];
  const box = spot.getBBox();
  return [box.x + box.width / 2, box.y + box.height / 2];
}

/** An outcome laid over places: the place asked now outlined, and what was entered at each place written on it. */
function markSeen(board, entry) {
  board.querySelectorAll(".decision-at").forEach((n) => n.classList.remove("decision-at"));
  board.querySelectorAll(".decision-seen").forEach((n) => n.remove());
  if (!entry) return;
  const words = new Map((entry.ask.possible || []).map((p) => [JSON.stringify(p.value), p.words]));
  entry.ask.where.forEach((w, at) => {
    const spot = /** @type {SVGGraphicsElement | null} */ (board.querySelector(`[data-id="${CSS.escape(w.place)}"]`));
    if (!spot) return;
    if (at === entry.at) spot.classList.add("decision-at");
    const value = entry.placed[at];
    if (value === undefined) return;
    const [x, y] = middleOf(spot);
    const label = document.createElementNS(SVG, "text");
    label.setAttribute("class", "decision-seen");
    label.setAttribute("text-anchor", "middle");
    // "farmland (2 wheat)" in two lines, so it stays inside the place
    const lines = String(words.get(JSON.stringify(value)) || valueWords(value)).split(/ (?=\()/);
    lines.forEach((line, k) => {
      const span = document.createElementNS(SVG, "tspan");
      span.setAttribute("x", String(x));
      span.setAttribute("y", String(y + 4 + (k - (lines.length - 1) / 2) * 12));
      span.textContent = line;
      label.append(span);
    });
    spot.append(label);
  });
}

/** A tap on the board: the choices still open that name the tapped place; one is chosen, several narrow the panel. */
function tapBoard(e) {
  const target = /** @type {Element} */ (e.target);
  const spot = target.closest && target.closest("[data-id]");
  if (spot && panel.asking && panel.asking.placed && !panel.sending) return tapAsked(spot);
  if (!spot || panel.sending || panel.asking || !panel.choices.length || region().dataset.state !== "deciding") return;
  const place = spot.getAttribute("data-id");
  const named = under(panel.path).filter((c) => c.place === place);
  if (!named.length) {
    say(`Nothing you may choose now names ${spot.getAttribute("aria-label") || place}.`);
    return;
  }
  say("");
  if (named.length === 1) return choose(named[0]);
  panel.place = place; // only the choices naming it, from the parts picked so far
  panel.placeAt = panel.path.length;
  descend();
  render();
}

// ---- acting ------------------------------------------------------------------------------------------

function pick(o) {
  if (panel.sending) return;
  say("");
  if (o.part !== null) {
    panel.path = [...panel.path, o.part];
    descend();
    render();
    return;
  }
  choose(o.choice);
}

/** A part every choice left shares is no choice: taken at once (a "back" tap undoes it with the one before). */
function descend() {
  for (;;) {
    const shown = options();
    if (shown.length !== 1 || shown[0].part === null) return;
    panel.path = [...panel.path, shown[0].part];
  }
}

/** One step back: the last part picked, and the parts taken at once before it. */
function back() {
  if (panel.place !== null) { // the place tapped is let go first, with the parts taken since
    panel.path = panel.path.slice(0, panel.placeAt);
    panel.place = null;
    return render();
  }
  panel.path = panel.path.slice(0, -1);
  while (panel.path.length) {
    const shown = options();
    if (shown.length !== 1 || shown[0].part === null) break;
    panel.path = panel.path.slice(0, -1);
  }
  render();
}

/** A choice picked: at the table, first the outcomes it meets (asked one at a time), then sent. */
async function choose(choice) {
  if (panel.table) return send(choice, [], true);
  return send(choice, null);
}

/** What the rules need next for the choice being entered (or the setup): an outcome to enter, or nothing more. */
async function askNext() {
  const entry = panel.asking;
  if (!entry) return;
  busy(true);
  const answer = await post(`/api/records/${id}/asks`, { command: entry.choice ? entry.choice.command : null, outcomes: entry.outcomes });
  busy(false);
  if (panel.asking !== entry) return;
  if (answer.status === 404 && !entry.choice) { // a service without outcome entry: nothing to ask
    panel.asking = null;
    return render();
  }
  if (answer.status === 404 || answer.status === 405) { // the service cannot say: send the choice as it is
    panel.asking = null;
    return send(entry.choice, null);
  }
  if (!answer.ok) {
    panel.asking = null;
    say(sentence(answer));
    return refresh();
  }
  if (answer.body.ask) {
    entry.ask = answer.body.ask;
    Object.assign(entry, byPlace(entry.ask) ? { placed: Array(entry.ask.n).fill(undefined), at: 0, order: [] } : { placed: null });
    return render();
  }
  panel.asking = null;
  if (!entry.choice) return setup(entry.outcomes);
  return send(entry.choice, entry.outcomes);
}

/** A value the table saw: the outcome grows by it; once it holds as many as the rules asked, the next ask. */
function seen(value) {
  seenAll([value]);
}

/** Values the table saw, in order (a line typed, the rest that can only be one value): as many taps at once. */
function seenAll(values) {
  const entry = panel.asking;
  if (!entry || panel.sending || !entry.ask) return;
  if (entry.placed) { // each value at the place asked, then at the next empty one
    for (const value of values) {
      if (entry.at < 0) break;
      entry.placed[entry.at] = value;
      entry.order.push(entry.at);
      entry.at = nextEmpty(entry.placed, entry.at);
    }
    if (entry.at >= 0) return render();
    entry.current = entry.placed; // every place filled: the values in the ask's order
    entry.placed = null;
  } else entry.current.push(...values.slice(0, entry.ask.n - entry.current.length));
  if (entry.current.length < entry.ask.n) return render();
  entry.outcomes.push({ kind: entry.ask.kind, source: entry.ask.source, values: entry.current });
  entry.current = [];
  entry.ask = null;
  askNext();
}

async function setup(outcomes) {
  taps.stored();
  busy(true);
  const answer = await post(`/api/records/${id}/setup`, { outcomes });
  recordPage.refresh();
  await refresh();
  busy(false);
  say(answer.ok ? "" : sentence(answer));
}

function busy(on) {
  panel.sending = on;
  region().setAttribute("aria-busy", on ? "true" : "false");
  region().querySelectorAll("button.choice").forEach((b) => { /** @type {HTMLButtonElement} */ (b).disabled = on; });
}

/**
 * A POST with this reader's credential and an Idempotency-Key, sent again (same key) when no answer came back.
 * @param {string} path
 * @param {any} json
 * @param {string} [key] the Idempotency-Key (a new one unless the request is one sent before)
 */
async function post(path, json, key = crypto.randomUUID()) {
  let answer = null;
  for (let attempt = 0; attempt < RETRIES; attempt += 1) {
    answer = await api(path, { method: "POST", token: credential(), json, headers: { "Idempotency-Key": key } });
    if (answer.status !== 0) break;
    say("No answer from the service: trying again…");
    await new Promise((r) => setTimeout(r, RETRY_MS * (attempt + 1)));
  }
  return /** @type {import("./lib/api.js").Answer} */ (answer);
}

/** A refusal in one sentence, as a player reads it. */
function sentence(answer) {
  const detail = why(answer);
  if (answer.status === 409) return `The game moved on before this choice reached it (${detail}); the panel now shows what is legal.`;
  if (answer.status === 403) return `This link may not make that choice: ${detail}.`;
  if (answer.status === 422) return `Refused: ${detail}.`;
  if (answer.status === 0) return "The service did not answer; your choice was not stored. Try again when the connection is back.";
  return `Not stored: ${detail}.`;
}

/**
 * A choice sent with the outcomes it met. At the table a choice is first sent as meeting none (most meet no chance:
 * one round trip); when the rules say it met some (422 chance/missing-outcome, nothing stored), they are asked for.
 */
async function send(choice, outcomes, first = false) {
  if (panel.sending) return;
  taps.stored(); // the tap that sent it: its double's second tap, on the next decision's buttons, is dropped
  busy(true);
  const body = { command: choice.command, version: panel.legal.version };
  if (outcomes) Object.assign(body, { outcomes }); // at the table, even none: a transcribed command says what it met
  const key = crypto.randomUUID();
  sessionStorage.setItem(KEEP, JSON.stringify({ body, key }));
  // the answer carries the decision after it (?legal=true): the next one is drawn without asking again
  const answer = await post(`/api/records/${id}/commands?legal=true`, body, key);
  if (answer.status === 0) { // no answer at all: the entry is kept and sent again (same key) when the line is back
    busy(false);
    say("The service did not answer: your choice is kept and will be sent again when the connection is back.");
    return;
  }
  sessionStorage.removeItem(KEEP);
  if (first && answer.status === 422 && answer.body && answer.body.rule === "chance/missing-outcome") {
    busy(false);
    panel.asking = { choice, outcomes: [], ask: null, current: [] };
    return askNext();
  }
  panel.path = [];
  if (answer.ok && answer.body.legal) {
    panel.generation += 1; // a read of an older decision still on its way is dropped
    show(answer.body.legal);
  } else await refresh(); // the buttons stay off until the next decision is in: no tap lands on a choice already gone
  busy(false);
  say(answer.ok ? "" : sentence(answer));
  recordPage.refresh(); // the board after the decision: its reads do not hold up the next decision's
}

let armed = 0; // a take-back asks for a second tap within a few seconds (a slip of the thumb takes nothing back)
const ARMED_MS = 4000;

async function takeBack() {
  const undo = $("decision-undo", "button");
  if (panel.sending || !panel.legal) return;
  if (Date.now() > armed) {
    armed = Date.now() + ARMED_MS;
    undo.textContent = panel.table ? "tap again to take back the last entry" : "tap again to ask the others to take back your last choice";
    undo.classList.add("armed");
    setTimeout(() => { if (Date.now() >= armed) disarm(); }, ARMED_MS + 50);
    return;
  }
  disarm();
  busy(true);
  const answer = await post(`/api/records/${id}/withdrawals`, { version: panel.legal.version });
  panel.path = [];
  panel.asking = null;
  recordPage.refresh();
  await refresh();
  busy(false);
  if (!answer.ok) return say(sentence(answer));
  const asked = answer.body.asked;
  say(asked ? `Asked: the take-back waits for ${asked.waiting.map(seatName).join(" and ")} to agree.` : "The last entry was taken back; the record keeps a note of it.");
}

function disarm() {
  armed = 0;
  const undo = $("decision-undo", "button");
  undo.textContent = panel.table ? "take back the last entry" : "take back my last choice";
  undo.classList.remove("armed");
}

/** A live game's take-back waiting for this seat's consent: agreed with a tap (the last consent takes it back). */
async function consent(number) {
  if (panel.sending) return;
  busy(true);
  const answer = await post(`/api/records/${id}/withdrawals/${number}/consent`, {});
  recordPage.refresh();
  await refresh();
  busy(false);
  say(answer.ok ? "You agreed to the take-back." : sentence(answer));
}

/** What was taken back (the record lists it), and a live take-back still waiting for consent. */
function showWithdrawals() {
  const record = recordPage.record();
  const box = $("decision-withdrawals");
  box.replaceChildren();
  if (!record) return;
  const taken = Array.isArray(record.withdrawn) ? record.withdrawn : [];
  if (taken.length) {
    const last = taken[taken.length - 1];
    box.append(el("span", `Taken back: ${taken.length} entr${taken.length > 1 ? "ies" : "y"}; the last was ${seatName(last.seat)}'s`
      + ` (by ${last.by === "table" ? "the table" : "every seat's consent"}). `, "withdrawn-note"));
  }
  const waiting = record.withdrawal;
  if (waiting && !panel.table && recordPage.token()) {
    box.append(el("span", `${seatName(waiting.seat)} asks to take back their last choice. `),
      button("agree", "consent", () => consent(waiting.number), "agree to take that choice back"));
  }
}

// ---- following the game ------------------------------------------------------------------------------

let reading = /** @type {{version: number, promise: Promise<void>, since: number} | null} */ (null); // the read of /legal under way
// A read of the decision that failed (a 5xx, a dropped answer) is asked again by itself, sooner first: the seat
// whose turn it is would otherwise wait for a next move that only it can make.
const READ_AGAIN_MS = 1000;
const READ_AGAIN_MOST_MS = 16000;
const STALE_READ_MS = 20000; // a read under way this long is taken for lost: a check of the record asks again
const unread = { timer: 0, wait: 0, said: "" }; // the read asked again, the wait before it, the sentence said

/**
 * The decision as the API says it now (a newer ask wins over an older one still on its way). `known`: the record's
 * version the page knew of when it asked (the answer is of that version or newer), so a word of the same version
 * that comes meanwhile waits for this read instead of asking again.
 */
function refresh(known = -1) {
  const promise = read();
  reading = { version: known, promise, since: performance.now() };
  promise.finally(() => { if (reading && reading.promise === promise) reading = null; });
  return promise;
}

async function read() {
  const mine = ++panel.generation;
  clearTimeout(unread.timer);
  if (!credential()) return render();
  const answer = await api(`/api/records/${id}/legal`, { token: credential(), cache: "no-store" });
  if (mine !== panel.generation) return;
  if (!answer.ok) {
    panel.legal = null;
    panel.refused = answer.status === 403;
    region().hidden = false;
    if (panel.refused) return say("This link opens no seat of this record: it shows the game but cannot play it.");
    unread.wait = Math.min(READ_AGAIN_MOST_MS, unread.wait ? unread.wait * 2 : READ_AGAIN_MS);
    unread.said = `The choices could not be read: ${why(answer)}. The page tries again in a moment.`;
    if ($("decision-said").textContent !== unread.said) say(unread.said); // (an alert: said again, read aloud again)
    unread.timer = window.setTimeout(() => { if (mine === panel.generation) refresh(); }, unread.wait);
    return;
  }
  unread.wait = 0;
  if (unread.said && $("decision-said").textContent === unread.said) say("");
  unread.said = "";
  return show(answer.body);
}

/**
 * A check of the record that found it unchanged (or the page's first summary): the decision is read again when it
 * is of an older version than the summary, or was not read at all, and no read of it is under way (or one is, for
 * too long); one read before the page had the summary is drawn again with it ("seat 0 decides" becomes the name). A read that answered before a move whose word reached the page first (the summary then already holds
 * the move, and no word of it comes again) would otherwise leave the panel on the decision before it.
 */
function behind(version) {
  if (panel.sending || panel.asking || panel.refused || !credential()) return;
  if (reading && performance.now() - reading.since < STALE_READ_MS) return;
  if (!panel.legal || panel.legal.version < version) refresh(version);
  else if (recordOf() !== drawnWith) render(); // drawn before the page had the summary: the seats' names come with it
}

/** A decision as the API says it (GET /legal, or the `legal` a command's answer carries): drawn. */
function show(legal) {
  const before = panel.legal;
  panel.legal = legal;
  panel.choices = (legal.choices || legal.commands || []).map(choiceOf);
  if (!before || before.version !== legal.version) {
    panel.path = [];
    panel.place = null;
    descend();
    if (panel.asking && panel.asking.choice) panel.asking = null;
  }
  const waiting = legal.pending && legal.pending.kind === "setup" && panel.table;
  if (waiting && !panel.asking) { // a game at the table starts with the setup's outcomes
    panel.asking = { choice: null, outcomes: [], ask: null, current: [] };
    render();
    return askNext();
  }
  render();
  document.body.dataset.decision = String(legal.version);
}

/** An entry made in this tab whose answer never came (a reload, a dropped connection): sent again, same key. */
async function resume() {
  const kept = sessionStorage.getItem(KEEP);
  if (!kept) return;
  let entry;
  try {
    entry = JSON.parse(kept);
  } catch {
    sessionStorage.removeItem(KEEP);
    return;
  }
  say("Sending again the choice made before the connection dropped…");
  const answer = await post(`/api/records/${id}/commands`, entry.body, entry.key); // the same key: stored once
  if (answer.status === 0) return say("Still no answer: your choice is kept and will be sent when the connection is back.");
  sessionStorage.removeItem(KEEP);
  say(answer.ok || answer.status === 409 ? "" : sentence(answer));
}

function start() {
  region().addEventListener("focusin", () => { inPanel = true; });
  // leaving for another element of the page ends it; a focus lost to nothing (the button removed) does not
  region().addEventListener("focusout", (e) => { if (e.relatedTarget && !region().contains(/** @type {Node} */ (e.relatedTarget))) inPanel = false; });
  document.addEventListener("pointerdown", (e) => { if (!region().contains(/** @type {Node} */ (e.target))) inPanel = false; });
  $("decision-undo", "button").addEventListener("click", takeBack);
  $("skip-decision", "a").addEventListener("click", (e) => { // not through the address: its hash is the page's state
    e.preventDefault();
    $("decision-whose").focus();
  });
  disarm();
  $("board").addEventListener("click", tapBoard);
  document.addEventListener("cronaca:step", markPlaces); // a new board drawing: its places marked again
  // The live stream's word of a new version: the next decision is asked at once, beside the page's summary (not after
  // it); a page sending a choice asks after its own answer.
  document.addEventListener("cronaca:announced", (e) => {
    const said = /** @type {CustomEvent} */ (e).detail;
    if (panel.sending || (panel.legal && said.version <= panel.legal.version) || (reading && reading.version >= said.version)) return;
    refresh(said.version);
  });
  document.addEventListener("cronaca:record", (e) => {
    const record = /** @type {CustomEvent} */ (e).detail;
    const asked = reading && reading.version >= record.version ? reading.promise : null;
    if (asked) record.hold(asked.then(() => { if (recordOf() !== drawnWith && !panel.sending) render(); }));
    else if (!panel.legal || record.version > panel.legal.version) record.hold(refresh(record.version)); // before the board's reads
    else if (recordOf() !== drawnWith && !panel.sending) render(); // the same decision; what the record says around it is new
  });
  window.addEventListener("hashchange", () => {
    const table = hashParams().get("table");
    if (table !== panel.table) {
      panel.table = table;
      panel.refused = false;
      refresh();
    }
  });
  document.addEventListener("cronaca:checked", (e) => behind(/** @type {CustomEvent} */ (e).detail.version));
  window.addEventListener("online", () => resume().then(() => refresh()));
  // the service answering again after a silence the browser did not see as offline (a restart, a proxy's outage)
  document.addEventListener("cronaca:back", () => resume().then(() => refresh()));
  resume().then(() => refresh());
}

start();
