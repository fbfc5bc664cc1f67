// @ts-check
// /records/new: start a game from the browser. The form asks what POST /api/records needs (the title, the players in
// seat order, the title's options, live or at the table); the answer's links are shown once, each with its QR code.
// A link holds a secret (a seat's token, the table key): it goes in the address's fragment, which browsers never send,
// and its QR code is drawn by POST /api/qr from the request's body, never from an address's query.

import { api, why } from "./lib/api.js";
import { $, el, symbolButton } from "./lib/dom.js";
import { loadTitles } from "./lib/titles.js";

/** @typedef {import("./lib/titles.js").Title} Title */

/** @type {Title[]} */
let titles = [];
let busy = false;

function notice(sentence) {
  $("notice").textContent = sentence || "";
  $("notice").hidden = !sentence;
}

const chosen = () => titles.find((t) => t.id === $("title-choice", "select").value);
const seatInputs = () => /** @type {HTMLInputElement[]} */ ([...$("seats", "ol").querySelectorAll("input")]);

/** One player's line of the form: their name, and a button that takes the line away. */
function addSeat(name = "") {
  const list = $("seats", "ol");
  const n = list.children.length + 1;
  const input = el("input");
  Object.assign(input, { value: name, maxLength: 60, autocomplete: "off", name: "seat", required: true });
  input.setAttribute("aria-label", `player ${n}'s name`);
  const item = el("li");
  item.append(input, symbolButton("✕", "", "remove-seat", () => { item.remove(); renumber(); }, "take this player away"));
  item.lastElementChild?.setAttribute("aria-label", `take player ${n} away`);
  list.append(item);
  renumber();
  return input;
}

/** Names stay in seat order; the add and remove buttons keep to the title's seat range. */
function renumber() {
  const title = chosen();
  const inputs = seatInputs();
  inputs.forEach((input, i) => {
    input.setAttribute("aria-label", `player ${i + 1}'s name`);
    input.placeholder = `player ${i + 1}`;
    input.parentElement?.querySelector("button")?.setAttribute("aria-label", `take player ${i + 1} away`);
  });
  if (!title) return;
  $("add-seat", "button").disabled = inputs.length >= title.seats.max;
  $("seats", "ol").querySelectorAll("button").forEach((b) => { /** @type {HTMLButtonElement} */ (b).disabled = inputs.length <= title.seats.min; });
  $("seat-range").textContent = `${title.name}: ${title.seats.min} to ${title.seats.max} players`;
}

const said = (name) => name.replace(/_/g, " ");

/** A choice as the form says it: null is the title's to decide (Città-Stato's expansion follows the players). */
const choiceWords = (choice) => choice === null ? "as the title decides" : choice === true ? "yes" : choice === false ? "no" : String(choice);

/**
 * One option's control, by its kind (GET /api/titles: choice, number, list, text, or a group of options of its own),
 * named `option:<path>` so that `optionValues` can read it back; left empty, the option is left out (its default).
 * @param {any} option
 * @param {string} path
 * @returns {HTMLElement}
 */
function optionControl(option, path) {
  if (option.kind === "group") {
    const box = el("fieldset", null, "option-group");
    box.append(el("legend", said(option.name)));
    if (option.description) box.append(el("p", option.description, "hint"));
    for (const inner of option.options || []) box.append(optionControl(inner, `${path}.${inner.name}`));
    return box;
  }
  /** @type {HTMLSelectElement | HTMLInputElement} */
  let control;
  if (option.kind === "choice" || (!option.kind && Array.isArray(option.choices))) {
    control = el("select");
    const choices = option.default === null ? [null, ...option.choices] : option.choices;
    for (const choice of choices) {
      const item = /** @type {HTMLOptionElement} */ (el("option", choiceWords(choice)));
      item.value = JSON.stringify(choice);
      item.selected = JSON.stringify(choice) === JSON.stringify(option.default);
      control.append(item);
    }
  } else {
    control = el("input");
    const number = option.kind === "number";
    const none = option.default === null || option.default === undefined;
    Object.assign(control, { type: number ? "number" : "text", autocomplete: "off",
      placeholder: none ? (number ? "" : "as the title decides") : String(option.default) });
    if (number) {
      control.inputMode = "numeric";
      control.step = "1";
      if (option.min !== undefined) control.min = String(option.min);
      if (option.max !== undefined) control.max = String(option.max);
    }
  }
  control.name = `option:${path}`;
  control.dataset.kind = option.kind || "choice";
  const label = el("label", `${said(option.name)}${option.kind === "list" ? " (separated by commas)" : ""} `, "row");
  label.append(control);
  if (option.description) {
    const hint = el("small", option.description, "hint");
    hint.id = `hint-${path.replace(/\W/g, "-")}`;
    control.setAttribute("aria-describedby", hint.id);
    label.append(hint);
  }
  return label;
}

/** The title's options (GET /api/titles lists every option of its schema, each with its kind), one control each. */
function showOptions() {
  const title = /** @type {any} */ (chosen());
  const options = (title && Array.isArray(title.options)) ? title.options : [];
  $("option-list").replaceChildren(...options.map((option) => optionControl(option, option.name)));
  $("options").hidden = options.length === 0;
}

/**
 * What the option controls say, as the `options` of POST /api/records: a control left empty is left out, and a group
 * with nothing given is left out whole.
 * @returns {Record<string, any>}
 */
function optionValues() {
  /** @type {Record<string, any>} */
  const options = {};
  $("option-list").querySelectorAll("[name^='option:']").forEach((node) => {
    const control = /** @type {HTMLInputElement | HTMLSelectElement} */ (node);
    const text = control.value.trim();
    const kind = control.dataset.kind;
    const value = kind === "choice" ? JSON.parse(control.value)
      : !text ? null
      : kind === "number" ? Number(text)
      : kind === "list" ? text.split(/[\s,]+/).filter(Boolean)
      : text;
    if (value === null) return; // left out: its default, or the title decides
    const path = control.name.slice("option:".length).split(".");
    let into = options;
    for (const key of path.slice(0, -1)) into = into[key] = into[key] || {};
    into[path[path.length - 1]] = value;
  });
  return options;
}

function changeTitle() {
  const title = chosen();
  if (!title) return;
  while (seatInputs().length < title.seats.min) addSeat();
  while (seatInputs().length > title.seats.max) $("seats", "ol").lastElementChild?.remove();
  renumber();
  showOptions();
}

const modeOf = () => /** @type {HTMLInputElement} */ (document.querySelector('input[name="mode"]:checked')).value;

function showMode() {
  const live = modeOf() === "live";
  $("shared-dice").hidden = !live;
}

/** What the form says, or a sentence naming what is missing. */
function asked() {
  const title = chosen();
  if (!title) return { problem: "Choose a title." };
  const names = seatInputs().map((input) => input.value.trim());
  const empty = names.findIndex((n) => !n);
  if (empty >= 0) return { problem: `Player ${empty + 1} has no name yet.`, focus: seatInputs()[empty] };
  const seen = new Map();
  for (const [i, n] of names.entries()) {
    const key = n.normalize("NFC").toLowerCase().replace(/\s+/g, " ");
    if (seen.has(key)) return { problem: `Players ${seen.get(key) + 1} and ${i + 1} have the same name: give each player a name of their own.`, focus: seatInputs()[i] };
    seen.set(key, i);
  }
  if (names.length < title.seats.min || names.length > title.seats.max) {
    return { problem: `${title.name} is played by ${title.seats.min} to ${title.seats.max} players.` };
  }
  const options = optionValues();
  const mode = modeOf();
  /** @type {Record<string, any>} */
  const body = { title: title.id, seats: names, options, mode };
  if (mode === "live" && /** @type {HTMLInputElement} */ ($("shared-dice").querySelector("input")).checked) body.dice = "shared";
  return { body };
}

async function start(e) {
  e.preventDefault();
  if (busy) return; // a double tap starts one game
  const form = asked();
  if (form.problem) {
    notice(form.problem);
    if (form.focus) form.focus.focus();
    return;
  }
  busy = true;
  $("start", "button").disabled = true;
  notice("");
  const answer = await api("/api/records", { method: "POST", json: form.body, headers: { "Idempotency-Key": crypto.randomUUID() } });
  busy = false;
  $("start", "button").disabled = false;
  if (!answer.ok) {
    const field = answer.body && answer.body.facts && answer.body.facts.field;
    notice(`The game was not started: ${why(answer)}.` + (field ? ` (${field})` : ""));
    return;
  }
  showStarted(answer.body, form.body);
}

/** A link with its QR code (drawn from the link in a POST body; the page shows the link when the drawing fails). */
async function linkBlock(label, link, cls) {
  const box = el("div", null, `link-block ${cls}`);
  const anchor = el("a", link, "secret-link");
  anchor.href = link;
  const code = el("figure", null, "qr");
  code.setAttribute("aria-label", `QR code of ${label}`);
  box.append(el("h3", label), code, anchor);
  const drawn = await api("/api/qr", { method: "POST", json: { text: link } });
  if (drawn.ok && typeof drawn.body === "string") {
    const doc = new DOMParser().parseFromString(drawn.body, "image/svg+xml");
    const picture = doc.documentElement;
    if (picture.nodeName === "svg") {
      picture.setAttribute("role", "img");
      picture.setAttribute("aria-label", `QR code of ${label}`);
      code.append(document.importNode(picture, true));
    }
  } else {
    code.append(el("figcaption", "The QR code could not be drawn; the link below works as well."));
  }
  return box;
}

async function showStarted(started, body) {
  const base = `${location.origin}/records/${started.id}`;
  $("new-game", "form").hidden = true;
  $("started").hidden = false;
  const title = chosen();
  $("started-title").textContent = `${title ? title.name : body.title}: ${body.seats.join(", ")}` + (body.mode === "live" ? " (live)" : " (at the table)");
  const table = $("table-link");
  const open = $("open-record", "a");
  if (started.table_key) {
    table.hidden = false;
    table.replaceChildren(await linkBlock("the table's link (enters every seat's choices and what the table sees)", `${base}#table=${started.table_key}`, "table"));
    open.href = `${base}#table=${started.table_key}`;
    open.textContent = "open the game at the table";
  } else {
    open.href = started.seats.length ? `${base}#token=${started.seats[0].token}` : base;
    open.textContent = started.seats.length ? `open the game as ${started.seats[0].name}` : "open the game";
  }
  const list = $("seat-links", "ol");
  for (const seat of started.seats) {
    const item = el("li");
    item.append(await linkBlock(`${seat.name}'s link`, `${base}#token=${seat.token}`, "seat"));
    list.append(item);
  }
  history.replaceState(null, "", "/records/new"); // nothing of the game in the address: the links are on the page only
}

async function main() {
  titles = await loadTitles();
  const select = $("title-choice", "select");
  for (const t of titles) {
    const option = el("option", t.name);
    option.value = t.id;
    select.append(option);
  }
  if (!titles.length) notice("The titles could not be read from the service; reload the page to try again.");
  const wanted = new URLSearchParams(location.search).get("title"); // a title only: never a secret
  if (wanted && titles.some((t) => t.id === wanted)) select.value = wanted;
  select.addEventListener("change", changeTitle);
  $("add-seat", "button").addEventListener("click", () => addSeat().focus());
  document.querySelectorAll('input[name="mode"]').forEach((r) => r.addEventListener("change", showMode));
  $("new-game", "form").addEventListener("submit", start);
  changeTitle();
  showMode();
  document.body.dataset.ready = "yes";
}

main();
