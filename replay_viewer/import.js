// @ts-check
// The import page: paste or upload what a table wrote, then "check only" (POST /api/check: nothing stored) or
// "check and import" (POST /api/imports). The report is read as a table reads it: a row a finding, linked to its
// line in the file and to the game as checked just before it.
//
// Whoever submits a file holds the seat tokens of the submit answer (shown once). The report's secrets (what a
// player held, the moves that were legal for them) are each their seat's: the report is read again with each
// seat's token, and each finding shown as its own seat reads it (api/imports.py, domain/records/imports/statuses.py).
// The tokens live in this page only, and in the fragment of the links it makes (never in a query string).

import { api, why } from "./lib/api.js";
import { $, el, targetOf } from "./lib/dom.js";
import { fileLines, findingsTable, holdsSecrets, unknownsList } from "./lib/report.js";
import { loadTitles, titleName } from "./lib/titles.js";

const NOTATION = "text/x-cronaca-notation";
const form = $("import-form", "form");
const text = $("text", "textarea");
const status = $("import-status");

/** @type {{ importId: string | null, recordId: string | null, tokens: string[], table: string | null }} */
const held = { importId: null, recordId: null, tokens: [], table: null };

$("file", "input").addEventListener("change", async (e) => {
  const file = /** @type {HTMLInputElement} */ (targetOf(e)).files[0];
  if (file) text.value = await file.text();
});

function say(sentence, link) {
  status.replaceChildren(document.createTextNode(sentence));
  if (link) {
    const a = el("a", link.text);
    a.href = link.href;
    status.append(" ", a);
  }
}

function busy(on) {
  $("send", "button").disabled = on;
  $("check", "button").disabled = on;
  form.setAttribute("aria-busy", String(on));
}

const isRecordFile = (body) => body.trimStart().startsWith("{");

// ---- check only --------------------------------------------------------------------------------

async function checkOnly() {
  const body = text.value;
  if (!body.trim()) return say("Paste the game or choose a file first.");
  if (isRecordFile(body)) return say("Check only reads table notation; a record file (JSON) is checked when it is imported.");
  busy(true);
  say("checking…");
  const answer = await api("/api/check", { method: "POST", text: body, headers: { "Content-Type": NOTATION } });
  busy(false);
  if (!answer.ok) return say("The file could not be checked: " + why(answer));
  Object.assign(held, { importId: null, recordId: null, tokens: [], table: null });
  $("tokens").hidden = true;
  const report = answer.body;
  // no line refused is not every line accepted when an unknown could not be settled (kernel/dispute.py, `unsettled`)
  const unsettled = report.settled === false;
  say(!report.ok ? "checked, nothing stored" : unsettled
    ? "checked, nothing stored: no line refused, but an unknown could not be settled (see the unknowns)"
    : "checked, nothing stored: the rules accept every line");
  show(body, report, "you sent the text, so the report shows everything it implies");
}

// ---- check and import ----------------------------------------------------------------------------

async function submit() {
  const body = text.value;
  if (!body.trim()) return say("Paste the game or choose a file first.");
  busy(true);
  say("sending…");
  const sent = await api("/api/imports", {
    method: "POST", text: body, headers: { "Content-Type": isRecordFile(body) ? "application/json" : NOTATION },
  });
  const answer = sent.body;
  if (!sent.ok) {
    busy(false);
    say(why(sent));
    if (answer.facts && answer.facts.report) {
      Object.assign(held, { importId: answer.facts.import_id || null, recordId: null, tokens: [], table: null });
      show(body, answer.facts.report, "");
    }
    return;
  }
  Object.assign(held, { importId: answer.id, recordId: null,
                        tokens: (answer.seats || []).map((/** @type {any} */ s) => s.token), table: answer.table_key || null });
  let found = answer;
  for (let tries = 0; tries < 600 && !["accepted", "rejected"].includes(found.status); tries++) {
    say(`${found.status}…`);
    await new Promise((r) => setTimeout(r, 250));
    const asked = await api(`/api/imports/${answer.id}`);
    if (!asked.ok) {
      busy(false);
      return say(`The import could not be followed: ${why(asked)}.`);
    }
    found = asked.body;
  }
  held.recordId = found.record_id || null;
  const report = found.report || {};
  const read = await asSubmitted(report);
  busy(false);
  if (found.status === "accepted") say("accepted: the record is made.", { text: "Open the record", href: `/records/${found.record_id}` });
  else say(found.status);
  showTokens(report.seats || [], report.finished === false);
  show(body, read.report, read.note);
}

/**
 * The report as whoever submitted the file may read it: each finding (and unknown) read with the token of its
 * own seat, where the public reading hides something.
 * @param {any} report
 * @returns {Promise<{report: any, note: string}>}
 */
async function asSubmitted(report) {
  if (!holdsSecrets(report) || !held.tokens.length) {
    return { report, note: holdsSecrets(report) ? "what a player held is hidden: the seat tokens were not given" : "" };
  }
  const readings = await Promise.all(held.tokens.map((token) => api(`/api/imports/${held.importId}`, { token })));
  const bySeat = readings.map((r) => (r.ok && r.body.report ? r.body.report : null));
  const pick = (key) => (report[key] || []).map((item, i) => {
    const own = typeof item.seat === "number" ? bySeat[item.seat] : null;
    const same = JSON.stringify(item);
    const seen = [own, ...bySeat].filter(Boolean).map((r) => (r[key] || [])[i])
      .find((other) => other && JSON.stringify(other) !== same);
    return seen || item;
  });
  const missing = bySeat.filter((r) => r === null).length;
  return {
    report: { ...report, findings: pick("findings"), unknowns: pick("unknowns") },
    note: "each finding as its player's seat token reads it (you submitted the file: you hold every seat's token)"
      + (missing ? `; ${missing} seat(s) could not be read` : ""),
  };
}

/** A seat's token for the fragment of a link, or "" (no seat, or no token). */
const tokenFor = (seat) => (typeof seat === "number" && held.tokens[seat] ? `token=${encodeURIComponent(held.tokens[seat])}&` : "");

function replayOf(f) {
  if (held.recordId) return `/records/${held.recordId}#${tokenFor(f.seat)}step=${f.step}`;
  if (held.importId) return `/imports/${held.importId}/replay#${tokenFor(f.seat)}step=${f.step}`;
  return null;
}

function showTokens(seats, inProgress = false) {
  const list = $("token-list", "ul");
  list.replaceChildren();
  if (held.recordId && held.table && inProgress) {  // a game in progress goes on at the table: its device's link first
    const li = el("li");
    li.appendChild(el("span", "the table: ", "who"));
    li.appendChild(el("code", held.table));
    const open = el("a", "go on with the game at the table (enters every seat's choices and what the table sees)");
    open.href = `/records/${held.recordId}#table=${encodeURIComponent(held.table)}`;
    li.append(" ", open);
    list.appendChild(li);
  }
  held.tokens.forEach((token, seat) => {
    const li = el("li");
    li.appendChild(el("span", `${seats[seat] || "seat " + (seat + 1)}: `, "who"));
    li.appendChild(el("code", token));
    const where = held.recordId ? `/records/${held.recordId}` : `/imports/${held.importId}/replay`;
    const open = el("a", held.recordId ? "open the record as this player" : "the game as checked, as this player sees it");
    open.href = `${where}#token=${encodeURIComponent(token)}`;
    li.append(" ", open);
    list.appendChild(li);
  });
  $("tokens").hidden = !held.tokens.length;
}

// ---- the report --------------------------------------------------------------------------------

function show(body, report, note) {
  $("report").hidden = false;
  const findings = report.findings || [];
  const players = (report.seats || []).join(", ");
  const what = report.title ? `${titleName(report.title)}${players ? ": " + players : ""}. ` : "";
  $("report-summary").textContent = what + (report.summary || (report.ok ? "clean" : report.message || ""));
  $("report-reader").textContent = note;
  const place = $("findings");
  place.replaceChildren();
  $("findings-head").hidden = !findings.length;
  if (findings.length) {
    place.appendChild(findingsTable(findings, {
      replay: replayOf,
      noReplay: held.importId ? "—" : "check and import to step through the game as checked",
    }));
  }
  const unknowns = report.unknowns || [];
  $("unknowns-head").hidden = !unknowns.length;
  unknownsList($("unknowns"), unknowns);
  fileLines($("lines", "ol"), body, findings);
  document.body.dataset.report = findings.length ? "findings" : "clean"; // the report is on the page (tests wait)
}

form.addEventListener("submit", (e) => {
  e.preventDefault();
  submit();
});
$("check", "button").addEventListener("click", checkOnly);
loadTitles();
