// @ts-check
// The records list. The API does all the deciding; this only asks and shows it
// readably. A seat token may be given as #token=...

import { fromHash } from "./lib/address.js";
import { api, why } from "./lib/api.js";
import { $, el, field } from "./lib/dom.js";
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
      files.appendChild(link("JSON", `/api/records/${r.id}/export`, `JSON record file of ${name}: ${r.players.join(", ")}`));
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

// The page names itself on its module script's data-page: no inline script, so the CSP can refuse them all.
const page = /** @type {HTMLElement | null} */ (document.querySelector("script[data-page]"));
if (page && page.dataset.page === "list") listPage();
