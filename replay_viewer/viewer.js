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

  async function listPage() {
    const form = document.getElementById("filters");
    const titles = new Set();
    async function load() {
      const params = new URLSearchParams({ per_page: "200" });
      new FormData(form).forEach((v, k) => { if (v) params.set(k, v); });
      const found = await api("/api/records?" + params);
      const body = document.querySelector("#records tbody");
      body.replaceChildren();
      found.items.forEach((r) => {
        titles.add(r.title);
        const row = body.insertRow();
        const link = el("a", r.title);
        link.href = "/records/" + r.id;
        row.insertCell().appendChild(link);
        row.insertCell().textContent = r.players.join(", ");
        row.insertCell().textContent = r.mode;
        row.insertCell().textContent = r.status;
        row.insertCell().textContent = (r.created || "").replace("T", " ").slice(0, 19);
      });
      document.getElementById("empty").hidden = found.items.length > 0;
      const select = form.elements.title;
      titles.forEach((t) => {
        if (![...select.options].some((o) => o.value === t)) select.appendChild(new Option(t, t));
      });
    }
    form.addEventListener("submit", (e) => { e.preventDefault(); load(); });
    await load();
  }

  async function recordPage() {
    const id = location.pathname.split("/").pop();
    const slider = document.getElementById("slider");
    const status = document.getElementById("status");
    const record = await api(`/api/records/${id}`);
    document.getElementById("title").textContent = `${record.title} — ${record.seats.map((s) => s.name).join(", ")}`;
    document.getElementById("summary").textContent =
      `${record.mode}, ${record.status}, ${record.steps} steps` + (token ? " (with a seat token)" : "");
    const turns = await api(`/api/records/${id}/turns`);
    const jump = document.getElementById("turns");
    turns.forEach((t) => {
      const label = t.turn === 0 ? "setup" : `round ${t.round}, turn ${t.turn}: ${t.player ?? "—"}`;
      jump.appendChild(new Option(`${label} (steps ${t.from}–${t.to})`, String(t.to)));
    });
    slider.max = String(record.steps);
    document.getElementById("steps").textContent = String(record.steps);
    let shown = -1;
    const linked = Number(new URLSearchParams(location.hash.slice(1)).get("step"));
    let wanted = Number.isInteger(linked) && linked > 0 ? linked : turns.length ? turns[0].to : 0;

    // Every step can be shown: the titles' views are total (kernel contract), including
    // mid-setup and between the events of one command.
    async function show(n) {
      n = Math.max(0, Math.min(record.steps, n));
      wanted = n;
      slider.value = String(n);
      document.getElementById("step").textContent = String(n);
      const turn = turns.find((t) => t.from < n && n <= t.to) || turns[0];
      if (turn) jump.value = String(turn.to);
      try {
        const step = await api(`/api/records/${id}/steps/${n}`);
        if (wanted !== n) return; // a newer step was asked for meanwhile
        shown = n;
        const pending = step.pending.seat === null ? step.pending.kind : `seat ${step.pending.seat}: ${step.pending.kind}`;
        status.textContent = `after ${step.event ?? "nothing yet"} · next: ${pending} · view: ${step.view_of}`;
        const state = document.getElementById("state");
        state.replaceChildren(render(step.view));
        if (step.scores) {
          state.appendChild(el("h2", "scores"));
          state.appendChild(render(step.scores.seats));
        }
        document.body.dataset.step = String(shown);
      } catch (err) {
        status.textContent = "could not load this step: " + err.message;
      }
    }

    slider.addEventListener("input", () => show(Number(slider.value)));
    document.getElementById("prev").addEventListener("click", () => show(wanted - 1));
    document.getElementById("next").addEventListener("click", () => show(wanted + 1));
    jump.addEventListener("change", () => show(Number(jump.value)));
    window.addEventListener("hashchange", () => {  // a #step=N link followed on this page
      const n = Number(new URLSearchParams(location.hash.slice(1)).get("step"));
      if (Number.isInteger(n) && location.hash.includes("step=")) show(n);
    });
    document.addEventListener("keydown", (e) => {
      if (e.target instanceof HTMLInputElement && e.target.type !== "range") return;
      if (e.key === "ArrowLeft") { e.preventDefault(); show(wanted - 1); }
      if (e.key === "ArrowRight") { e.preventDefault(); show(wanted + 1); }
    });
    await show(wanted);
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
        if (answer.facts && answer.facts.report) showReport(body, answer.facts.report, null);
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
      showReport(body, found.report || {}, found.record_id);
    });

    function showReport(body, report, recordId) {
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

  return { listPage, recordPage, importPage, render };
})();

// The page names itself on its <script data-page=...>: no inline script, so the CSP can refuse them all.
{
  const page = document.currentScript && document.currentScript.dataset.page;
  if (page === "list") Cronaca.listPage();
  else if (page === "record") Cronaca.recordPage();
  else if (page === "import") Cronaca.importPage();
}
