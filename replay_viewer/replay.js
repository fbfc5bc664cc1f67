// The game as checked of a rejected import: its board and move list step by step, read-only.
// The import page links each finding here (#step=N: the step just before its line); a banner says
// where the checker went on with another move than the written one. The API decides what a reader
// may see; a seat token of the import may ride in the hash (#token=...).
"use strict";

(() => {
  const id = location.pathname.split("/")[2];
  const $ = (name) => document.getElementById(name);
  const hashParams = () => new URLSearchParams(location.hash.slice(1));
  const token = hashParams().get("token");
  const base = `/api/imports/${id}/replay`;
  const TITLES = { "citta-stato": "Città-Stato", "la-citta": "La Città", serenissima: "Serenissima" };
  const page = { summary: null, at: 0, byStep: new Map(), lines: new Map() };

  function el(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }

  async function api(path) {
    let response;
    try {
      response = await fetch(path, { headers: token ? { Authorization: "Bearer " + token } : {} });
    } catch (err) {
      return { ok: false, status: 0, body: { detail: "the service did not answer (" + err.message + ")" } };
    }
    const type = response.headers.get("Content-Type") || "";
    const body = type.includes("json") ? await response.json().catch(() => ({})) : await response.text();
    return { ok: response.ok, status: response.status, body };
  }

  function notice(sentence, link) {
    const node = $("notice");
    node.replaceChildren(el("span", sentence || ""));
    if (link) {
      const a = el("a", " " + link.text);
      a.href = link.href;
      node.appendChild(a);
    }
    node.hidden = !sentence;
  }

  function hashFor(step) {
    const params = hashParams();
    params.set("step", String(step));
    return "#" + params.toString();
  }

  // The assumption(s) made at a step: the move the checker put in a line's place starts right after it.
  function banner(n) {
    const here = page.summary.assumed.filter((a) => a.step === n);
    const node = $("banner");
    node.replaceChildren();
    here.forEach((a) => {
      const said = a.assumed === "skipped" || a.assumed.startsWith("skipped")
        ? `the game as checked: line ${a.line} (${a.written || "the move"}) skipped`
        : `the game as checked: line ${a.line} assumed ${a.assumed}` + (a.written ? ` (the file says ${a.written})` : "");
      node.appendChild(el("div", said));
    });
    document.querySelectorAll("#assumed li").forEach((li) => li.classList.toggle("here", Number(li.dataset.step) === n));
  }

  async function board(n) {
    const answer = await api(`${base}/steps/${n}/board`);
    const node = $("board");
    if (answer.ok && typeof answer.body === "string") {
      const root = new DOMParser().parseFromString(answer.body, "image/svg+xml").documentElement;
      if (root.nodeName === "svg") {
        node.replaceChildren(document.adoptNode(root));
        node.classList.remove("no-board");
        return;
      }
    }
    node.replaceChildren(el("p", (answer.body && answer.body.detail) || "The board could not be drawn.", "board-sentence"));
    node.classList.add("no-board");
  }

  async function show(n) {
    const steps = page.summary.steps;
    n = Math.max(0, Math.min(steps, Number.isFinite(n) ? n : 0));
    page.at = n;
    $("step").textContent = String(n);
    $("slider").value = String(n);
    $("prev").disabled = n <= 0;
    $("next").disabled = n >= steps;
    banner(n);
    document.querySelectorAll("#moves li.current").forEach((li) => li.classList.remove("current"));
    const line = page.lines.get(n);
    if (line) {
      line.classList.add("current");
      line.scrollIntoView({ block: "nearest" });
    }
    $("said").textContent = page.byStep.get(n) || (n === 0 ? "Before the setup." : "");
    const wanted = hashFor(n);
    if (location.hash !== wanted) history.replaceState(null, "", wanted);
    await board(n);
    if (page.at === n) document.body.dataset.step = String(n); // the step on the page (tests wait for it)
  }

  function moveList(story) {
    const moves = $("moves");
    moves.replaceChildren();
    // the first line after an assumption's step tells the move the checker put in the written one's place
    const marked = new Set(page.summary.assumed
      .map((a) => (story.lines.find((s) => s.step > a.step) || {}).step).filter((k) => k !== undefined));
    let list = null;
    let round = undefined;
    story.lines.forEach((s) => {
      if (s.round !== round || !list) {
        round = s.round;
        moves.appendChild(el("h3", round ? `Round ${round}` : "Setup"));
        list = moves.appendChild(el("ol"));
      }
      const li = el("li");
      const a = el("a", s.text); // the sentence names who acts
      a.href = hashFor(s.step);
      li.appendChild(a);
      if (marked.has(s.step)) li.classList.add("assumed");
      list.appendChild(li);
      page.byStep.set(s.step, s.text);
      page.lines.set(s.step, li);
    });
  }

  function assumedList() {
    const list = $("assumed");
    list.replaceChildren();
    page.summary.assumed.forEach((a) => {
      const li = el("li");
      li.dataset.step = String(a.step);
      const link = el("a", `line ${a.line}`);
      link.href = hashFor(a.step);
      li.appendChild(link);
      li.appendChild(el("span", `${a.player ? " (" + a.player + ")" : ""}: “${a.written || ""}” — assumed ${a.assumed}`));
      list.appendChild(li);
    });
  }

  async function start() {
    const summary = await api(base);
    if (!summary.ok) {
      const facts = (summary.body && summary.body.facts) || {};
      notice(summary.body.detail || "This import's game cannot be replayed.",
             facts.record_id ? { text: "open the record", href: `/records/${facts.record_id}` } : null);
      document.body.dataset.step = "none";
      return;
    }
    page.summary = summary.body;
    const names = page.summary.seats.map((s) => s.name).join(", ");
    $("title").textContent = `The game as checked: ${TITLES[page.summary.title] || page.summary.title}`;
    $("summary").textContent = `${names} · ${page.summary.summary} · not a record: the file was rejected, `
      + "and this is how the rules read it, with the closest legal move where a line could not stand"
      + (page.summary.as_reported ? "" : " (the rules read it differently today than when the report was made)");
    $("steps").textContent = String(page.summary.steps);
    $("slider").max = String(page.summary.steps);
    $("reader-note").textContent = page.summary.view_of === "all" ? "every seat's secrets shown (the file says the game ended)"
      : page.summary.view_of === "public" ? "what every player sees (a seat token shows that seat's view)" : `${page.summary.view_of}'s view`;
    assumedList();
    const story = await api(`${base}/story`);
    if (story.ok) moveList(story.body);
    $("prev").addEventListener("click", () => show(page.at - 1));
    $("next").addEventListener("click", () => show(page.at + 1));
    $("slider").addEventListener("input", (e) => show(Number(e.target.value)));
    document.addEventListener("keydown", (e) => {
      if (e.target instanceof HTMLInputElement && e.target.type !== "range") return;
      if (e.key === "ArrowLeft") show(page.at - 1);
      else if (e.key === "ArrowRight") show(page.at + 1);
    });
    window.addEventListener("hashchange", () => {
      const n = Number.parseInt(hashParams().get("step") || "0", 10);
      if (n !== page.at) show(n);
    });
    await show(Number.parseInt(hashParams().get("step") || "0", 10));
  }

  start();
})();
