// The viewer shell: lists records and steps through one. The API does all the deciding;
// this only asks for a step and shows it readably. A seat token may be given as #token=...
const Cronaca = (() => {
  const token = new URLSearchParams(location.hash.slice(1)).get("token");

  async function api(path) {
    const headers = token ? { Authorization: "Bearer " + token } : {};
    const response = await fetch(path, { headers });
    const body = await response.json();
    if (!response.ok) throw Object.assign(new Error(body.detail || response.statusText), { problem: body });
    return body;
  }

  function el(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }

  const isHidden = (v) => v && typeof v === "object" && !Array.isArray(v) && v.hidden === true && Object.keys(v).length === 1;

  // A JSON value as nested definition lists and tables: readable, never one long line.
  function render(value) {
    if (value === null || value === undefined) return el("span", "—");
    if (typeof value !== "object") return el("span", String(value));
    if (isHidden(value)) return el("span", "hidden", "hidden-value");
    if (Array.isArray(value)) {
      if (value.every((v) => v === null || typeof v !== "object")) return el("span", value.length ? value.join(", ") : "(none)");
      const rows = value.every((v) => v && typeof v === "object" && !Array.isArray(v) && !isHidden(v));
      if (rows) {
        const keys = [...new Set(value.flatMap((v) => Object.keys(v)))];
        const table = el("table");
        const head = table.createTHead().insertRow();
        keys.forEach((k) => head.appendChild(el("th", k)));
        const body = table.createTBody();
        value.forEach((v) => {
          const row = body.insertRow();
          keys.forEach((k) => row.insertCell().appendChild(render(v[k])));
        });
        return table;
      }
      const list = el("ol");
      list.start = 0;
      value.forEach((v) => list.appendChild(el("li")).appendChild(render(v)));
      return list;
    }
    const dl = el("dl", undefined, "view");
    Object.entries(value).forEach(([k, v]) => {
      dl.appendChild(el("dt", k));
      dl.appendChild(el("dd")).appendChild(render(v));
    });
    return dl;
  }

  // The records list: filters and the page live in the address (?title=&player=&status=&page=), so a
  // filtered page can be linked and the browser's back button returns to it.
  const TITLES = { "citta-stato": "Città-Stato", "la-citta": "La Città", "serenissima": "Serenissima" };
  const PER_PAGE = 25;

  async function listPage() {
    const form = document.getElementById("filters");
    const body = document.querySelector("#records tbody");
    const status = document.getElementById("list-status");
    const prev = document.getElementById("prev-page");
    const next = document.getElementById("next-page");
    const pageOf = document.getElementById("page-of");

    function wanted() {
      const query = new URLSearchParams(location.search);
      const page = Math.max(1, Number.parseInt(query.get("page") || "1", 10) || 1);
      return { query, page };
    }

    function fillForm(query) {
      ["title", "player", "status"].forEach((name) => { form.elements[name].value = query.get(name) || ""; });
    }

    function link(text, href, label) {
      const a = el("a", text);
      a.href = href;
      if (label) a.setAttribute("aria-label", label);
      return a;
    }

    function row(r) {
      const tr = body.insertRow();
      const name = TITLES[r.title] || r.title;
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
      let found;
      try {
        found = await api("/api/records?" + params);
      } catch (err) {
        status.textContent = "The records could not be listed: " + err.message;
        return;
      }
      body.replaceChildren();
      found.items.forEach(row);
      found.items.forEach((r) => {
        const select = form.elements.title;
        if (![...select.options].some((o) => o.value === r.title)) select.appendChild(new Option(r.title, r.title));
      });
      const pages = Math.max(1, Math.ceil(found.total / found.per_page));
      document.getElementById("empty").hidden = found.items.length > 0;
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
      const given = Object.fromEntries(["title", "player", "status"].map((k) => [k, form.elements[k].value.trim()]));
      go({ ...given, page: "" });
    });
    prev.addEventListener("click", () => go({ page: String(wanted().page - 1) }));
    next.addEventListener("click", () => go({ page: String(wanted().page + 1) }));
    window.addEventListener("popstate", load);
    await load();
  }

  // The import page: paste or upload what the table wrote, then read the report line by line.
  async function importPage() {
    const form = document.getElementById("import-form");
    const text = document.getElementById("text");
    const status = document.getElementById("import-status");
    document.getElementById("file").addEventListener("change", async (e) => {
      const file = e.target.files[0];
      if (file) text.value = await file.text();
    });
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const body = text.value;
      const isJson = body.trimStart().startsWith("{");
      status.textContent = "sending…";
      const response = await fetch("/api/imports", {
        method: "POST", body,
        headers: { "Content-Type": isJson ? "application/json" : "text/x-cronaca-notation" },
      });
      const answer = await response.json();
      if (!response.ok) {
        status.textContent = answer.detail;
        if (answer.facts && answer.facts.report) showReport(body, answer.facts.report, null, answer.facts.import_id);
        return;
      }
      let found = answer;
      for (let tries = 0; tries < 600 && !["accepted", "rejected"].includes(found.status); tries++) {
        status.textContent = `${found.status}…`;
        await new Promise((r) => setTimeout(r, 250));
        found = await api(`/api/imports/${answer.id}`);
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
      document.getElementById("report").hidden = false;
      document.getElementById("report-summary").textContent = report.summary || (report.ok ? "clean" : report.message || "");
      const lines = document.getElementById("lines");
      lines.replaceChildren();
      body.replace(/\n$/, "").split("\n").forEach((line, i) => {
        const item = el("li", line || " ");
        item.id = `line-${i + 1}`;
        lines.appendChild(item);
      });
      const list = document.getElementById("findings");
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
      const unknowns = document.getElementById("unknowns");
      unknowns.replaceChildren();
      (report.unknowns || []).forEach((u) => unknowns.appendChild(el("li", u.message)));
    }
  }

  return { listPage, importPage, render };
})();

// The page names itself on its <script data-page=...>: no inline script, so the CSP can refuse them all.
{
  const page = document.currentScript && document.currentScript.dataset.page;
  if (page === "list") Cronaca.listPage();
  else if (page === "import") Cronaca.importPage();
}
