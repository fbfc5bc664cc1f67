// @ts-check
// The records list and the import page. The API does all the deciding; this only asks and shows it
// readably. A seat token may be given as #token=...

import { fromHash } from "./lib/address.js";
import { api, why } from "./lib/api.js";
import { $, el, field, targetOf } from "./lib/dom.js";
import { isHidden } from "./lib/render.js";
import { loadTitles, titleName } from "./lib/titles.js";

// An API answer (lib/api.js) asked with the seat token of the address, when it has one.
const ask = (path) => api(path, { token: fromHash("token") });

// The records list: filters and the page live in the address (?title=&player=&status=&page=), so a
// filtered page can be linked and the browser's back button returns to it.
const PER_PAGE = 25;

async function listPage() {
  const form = $("filters", "form");
  const body = /** @type {HTMLTableSectionElement} */ (document.querySelector("#records tbody"));
  const status = $("list-status");
  const prev = $("prev-page", "button");
  const next = $("next-page", "button");
  const pageOf = $("page-of");

  function wanted() {
    const query = new URLSearchParams(location.search);
    const page = Math.max(1, Number.parseInt(query.get("page") || "1", 10) || 1);
    return { query, page };
  }

  function fillForm(query) {
    ["title", "player", "status"].forEach((name) => { field(form, name).value = query.get(name) || ""; });
  }

  function link(text, href, label) {
    const a = el("a", text);
    a.href = href;
    if (label) a.setAttribute("aria-label", label);
    return a;
  }

  function row(r) {
    const tr = body.insertRow();
    const name = titleName(r.title);
    tr.insertCell().appendChild(link(name, "/records/" + r.id, `${name}: ${r.players.join(", ")}`));
    tr.insertCell().textContent = r.players.join(", ");
    tr.insertCell().textContent = r.finished ? "finished" : "in progress";
    tr.insertCell().textContent = r.finished ? (r.winner || []).join(" & ") : "—";
    const scores = tr.insertCell();
    scores.textContent = r.finished ? (r.scores || []).map((s) => `${s.name} ${s.total}`).join(" · ") : "—";
    tr.insertCell().textContent = (r.created || "").replace("T", " ").slice(0, 16);
    const files = tr.insertCell();
    if (r.finished) {
      files.appendChild(link("JSON", `/api/records/${r.id}/export`, `record file (JSON) of ${name}: ${r.players.join(", ")}`));
      files.appendChild(document.createTextNode(" · "));
      files.appendChild(link("notation", `/api/records/${r.id}/notation`, `notation of ${name}: ${r.players.join(", ")}`));
    } else {
      files.textContent = "once finished";
    }
  }

  async function load() {
    const { query, page } = wanted();
    fillForm(query);
    const params = new URLSearchParams({ page: String(page), per_page: String(PER_PAGE) });
    ["title", "player", "status"].forEach((k) => { if (query.get(k)) params.set(k, query.get(k)); });
    status.textContent = "loading…";
    const answer = await ask("/api/records?" + params);
    if (!answer.ok) {
      status.textContent = "The records could not be listed: " + why(answer);
      return;
    }
    const found = answer.body;
    body.replaceChildren();
    found.items.forEach(row);
    found.items.forEach((r) => {
      const select = /** @type {HTMLSelectElement} */ (form.elements.namedItem("title"));
      if (![...select.options].some((o) => o.value === r.title)) select.appendChild(new Option(r.title, r.title));
    });
    const pages = Math.max(1, Math.ceil(found.total / found.per_page));
    $("empty").hidden = found.items.length > 0;
    status.textContent = found.total === 1 ? "1 record" : `${found.total} records`;
    pageOf.textContent = `page ${Math.min(page, pages)} of ${pages}`;
    prev.disabled = page <= 1;
    next.disabled = page >= pages;
    document.body.dataset.page = String(page);
  }

  function go(changes) {
    const query = wanted().query;
    Object.entries(changes).forEach(([k, v]) => { if (v) query.set(k, v); else query.delete(k); });
    history.pushState(null, "", "/" + (query.toString() ? "?" + query : ""));
    load();
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const given = Object.fromEntries(["title", "player", "status"].map((k) => [k, field(form, k).value.trim()]));
    go({ ...given, page: "" });
  });
  prev.addEventListener("click", () => go({ page: String(wanted().page - 1) }));
  next.addEventListener("click", () => go({ page: String(wanted().page + 1) }));
  window.addEventListener("popstate", load);
  // the title filter offers the catalog's titles (GET /api/titles), by their display names
  const select = /** @type {HTMLSelectElement} */ (form.elements.namedItem("title"));
  (await loadTitles()).forEach((t) => select.appendChild(new Option(t.name, t.id)));
  await load();
}

// The import page: paste or upload what the table wrote, then read the report line by line.
async function importPage() {
  const form = $("import-form", "form");
  const text = $("text", "textarea");
  const status = $("import-status");
  $("file", "input").addEventListener("change", async (e) => {
    const file = /** @type {HTMLInputElement} */ (targetOf(e)).files[0];
    if (file) text.value = await file.text();
  });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = text.value;
    const isJson = body.trimStart().startsWith("{");
    status.textContent = "sending…";
    const sent = await api("/api/imports", {
      method: "POST", text: body,
      headers: { "Content-Type": isJson ? "application/json" : "text/x-cronaca-notation" },
    });
    const answer = sent.body;
    if (!sent.ok) {
      status.textContent = answer.detail;
      if (answer.facts && answer.facts.report) showReport(body, answer.facts.report, null, answer.facts.import_id);
      return;
    }
    let found = answer;
    for (let tries = 0; tries < 600 && !["accepted", "rejected"].includes(found.status); tries++) {
      status.textContent = `${found.status}…`;
      await new Promise((r) => setTimeout(r, 250));
      const asked = await ask(`/api/imports/${answer.id}`);
      if (!asked.ok) {
        status.textContent = `The import could not be followed: ${why(asked)}.`;
        return;
      }
      found = asked.body;
    }
    status.textContent = found.status === "accepted" ? "accepted: the record is made" : `${found.status}`;
    if (found.record_id) {
      const link = el("a", " open the record");
      link.href = `/records/${found.record_id}`;
      status.appendChild(link);
    }
    showReport(body, found.report || {}, found.record_id, answer.id);
  });

  // A finding's `step` is the game events before its line: a record's replay when the file made one,
  // else the rejected file's game as checked (/imports/{id}/replay), read-only.
  function showReport(body, report, recordId, importId) {
    $("report").hidden = false;
    $("report-summary").textContent = report.summary || (report.ok ? "clean" : report.message || "");
    const lines = $("lines", "ol");
    lines.replaceChildren();
    body.replace(/\n$/, "").split("\n").forEach((line, i) => {
      const item = el("li", line || " ");
      item.id = `line-${i + 1}`;
      lines.appendChild(item);
    });
    const list = $("findings", "ol");
    list.replaceChildren();
    (report.findings || []).forEach((f) => {
      const item = el("li");
      const where = el("a", `line ${f.line}`);
      where.href = `#line-${f.line}`;
      where.addEventListener("click", () => {
        lines.querySelectorAll(".focus").forEach((n) => n.classList.remove("focus"));
        const target = document.getElementById(`line-${f.line}`);
        if (target) target.classList.add("focus");
      });
      item.appendChild(where);
      const who = [f.round !== undefined ? `round ${f.round}` : null, f.player].filter(Boolean).join(", ");
      if (who) item.appendChild(el("span", ` (${who})`));
      item.appendChild(el("span", " " + f.rule, "rule"));
      item.appendChild(el("div", f.message));
      if (f.alternatives && Array.isArray(f.alternatives)) item.appendChild(el("div", "legal instead: " + f.alternatives.join("; ")));
      if (f.held && typeof f.held === "object" && !isHidden(f.held)) item.appendChild(el("div", "held: " + JSON.stringify(f.held)));
      if (f.did_you_mean && f.did_you_mean.length) item.appendChild(el("div", "did you mean: " + f.did_you_mean.join(", ")));
      if (f.step !== undefined && recordId) {
        const step = el("a", `the replay just before it (step ${f.step})`);
        step.href = `/records/${recordId}#step=${f.step}`;
        item.appendChild(el("div")).appendChild(step);
      } else if (f.step !== undefined && importId) {
        const step = el("a", `the game as checked, just before it (step ${f.step})`);
        step.href = `/imports/${importId}/replay#step=${f.step}`;
        step.className = "replay-link";
        item.appendChild(el("div")).appendChild(step);
      } else if (f.step !== undefined) {
        item.appendChild(el("div", `before step ${f.step} of the game as checked`));
      }
      list.appendChild(item);
      const line = document.getElementById(`line-${f.line}`);
      if (line) line.classList.add("fault");
    });
    const unknowns = $("unknowns");
    unknowns.replaceChildren();
    (report.unknowns || []).forEach((u) => unknowns.appendChild(el("li", u.message)));
  }
}

// The page names itself on its module script's data-page: no inline script, so the CSP can refuse them all.
const page = /** @type {HTMLElement | null} */ (document.querySelector("script[data-page]"));
if (page && page.dataset.page === "list") listPage();
else if (page && page.dataset.page === "import") importPage();
