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
    let wanted = turns.length ? turns[0].to : 0;

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
    document.addEventListener("keydown", (e) => {
      if (e.target instanceof HTMLInputElement && e.target.type !== "range") return;
      if (e.key === "ArrowLeft") { e.preventDefault(); show(wanted - 1); }
      if (e.key === "ArrowRight") { e.preventDefault(); show(wanted + 1); }
    });
    await show(wanted);
  }

  return { listPage, recordPage, render };
})();
