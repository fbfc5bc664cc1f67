"""The table companion (issue 31): a tap on the decision panel to the next decision shown, at phone size.

    .venv/bin/python -m benchmarks.table [--taps 150] [--players 4] [--titles citta-stato la-citta serenissima]
                                         [--mode table live]

Serves the app on 127.0.0.1 as the demo server does (werkzeug, threaded, a fresh SQLite file) and drives Debian's
/usr/bin/chromium through Playwright at 390 x 844 CSS px (a phone).

For each title a game of `--players` seats is started through POST /api/records and played by a seeded random bot
tapping the panel's buttons:
- `table`: one page with the table key (a game at the table: the one device enters every seat's choices and, where
  the rules need chance, the outcomes seen; the setup's outcomes first). A whole game is entered without a page load.
- `live`: one page per seat (each player's own phone); the next decision is shown on the next deciding seat's page,
  which learns of the move through the record's live stream.
A sample is the time from a tap on a whole choice (the click's event time on the tapping page) to the first
animation frame after the next decision's buttons are in the panel (on the page that shows it; both pages' clocks
are `performance.timeOrigin + performance.now()`, one machine's). At the table the next decision may be the first
outcome the choice met (the rules asked through POST /asks), or the next choice once it is stored. Taps that only
pick a part of a many-part choice, or enter one value seen, are not samples: they change the panel in the tap's own
task. p50/p95/max per title are printed.
"""

from __future__ import annotations

import argparse
import logging
import random
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright
from werkzeug.serving import make_server

from api.app import create_app
from domain.records.settings import Settings

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
PHONE = {"width": 390, "height": 844}
TITLES = ["citta-stato", "la-citta", "serenissima"]
NAMES = ["Ada", "Bruno", "Chiara", "Dario", "Elena"]
# In each page: the time of every tap on a choice that sends it, and of every decision shown (the first frame after
# the panel's buttons for a new version are in).
PROBE = """
(() => {
  const now = () => performance.timeOrigin + performance.now();
  window.__taps = []; window.__shown = [];
  document.addEventListener("click", (e) => {
    const b = e.target.closest && e.target.closest("#decision button.choice");
    if (b && b.classList.contains("final")) window.__taps.push(performance.timeOrigin + e.timeStamp);
  }, true);
  let seen = null;
  const look = () => {
    const panel = document.getElementById("decision");
    if (!panel) return;
    const state = panel.dataset.state, version = panel.dataset.version;
    const key = state + ":" + version + ":" + (panel.querySelectorAll("button.choice").length);
    if ((state === "deciding" || state === "outcome" || state === "over") && panel.getAttribute("aria-busy") !== "true" && key !== seen) {
      seen = key;
      requestAnimationFrame(() => window.__shown.push(now()));
    }
  };
  new MutationObserver(look).observe(document, { subtree: true, childList: true, attributes: true,
                                                 attributeFilter: ["data-state", "data-version", "aria-busy"] });
})();
"""


@contextmanager
def serving(folder: Path) -> Iterator[tuple[str, Any]]:
    app = create_app(Settings.from_env({"SQLITE_DBNAME": str(folder / "records.sqlite3")}))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", app
    finally:
        server.shutdown()
        app.extensions["cronaca"].records.close()


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run(browser: Any, base: str, client: Any, title: str, players: int, mode: str, taps: int, seed: int) -> list[float]:
    body: dict[str, Any] = {"title": title, "seats": NAMES[:players], "options": {"players": players},
                            "mode": "transcribed" if mode == "table" else "live"}
    started = client.post("/api/records", json=body)
    if started.status_code != 201:
        raise SystemExit(f"{title}: the game could not be started: {started.get_json()}")
    made = started.get_json()
    record = made["id"]
    links = [f"{base}/records/{record}#table={made['table_key']}"] if mode == "table" \
        else [f"{base}/records/{record}#token={s['token']}" for s in made["seats"]]
    contexts = [browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True) for _ in links]
    pages = []
    for context, link in zip(contexts, links, strict=True):
        page = context.new_page()
        page.add_init_script(PROBE)
        page.goto(link)
        pages.append(page)
    rng = random.Random(seed)
    samples: list[float] = []
    done = 0
    while done < taps:
        deciding = next((p for p in pages if p.locator("#decision[aria-busy=false]").get_attribute("data-state")
                         in ("deciding", "outcome")), None) if any(pages) else None
        if deciding is None:
            if any(p.locator("#decision").get_attribute("data-state") == "over" for p in pages):
                break
            time.sleep(0.01)
            continue
        buttons = deciding.locator("#decision button.choice:enabled")
        count = buttons.count()
        if not count:
            time.sleep(0.01)
            continue
        before = [len(p.evaluate("window.__shown")) for p in pages]
        chosen = buttons.nth(rng.randrange(count))
        try:
            final = "final" in (chosen.get_attribute("class", timeout=2000) or "").split()  # a whole choice: sent
        except Exception:  # noqa: BLE001  (the panel was redrawn under the bot's finger: look again)
            continue
        try:
            chosen.click(timeout=2000)
        except Exception:  # noqa: BLE001  (the panel was redrawn under the bot's finger: look again)
            continue
        done += 1
        if not final:  # a part of a choice, or one value the table saw: the panel is redrawn in the tap's task
            deciding.wait_for_function("() => document.getElementById('decision').getAttribute('aria-busy') !== 'true'",
                                       polling="raf", timeout=20_000)
            continue
        tapped = deciding.evaluate("window.__taps[window.__taps.length - 1]")
        deadline = time.monotonic() + 20
        shown = None
        while shown is None and time.monotonic() < deadline:
            for page, had in zip(pages, before, strict=True):
                times = page.evaluate("window.__shown")
                later = [t for t in times[had:] if t > tapped]
                if later:
                    shown = later[0] if shown is None else min(shown, later[0])
            if shown is None:
                time.sleep(0.005)
        if shown is not None:
            samples.append(shown - tapped)
    for context in contexts:
        context.close()
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--taps", type=int, default=150, help="taps per title (a game ends sooner: fewer)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--titles", nargs="+", default=TITLES)
    parser.add_argument("--mode", nargs="+", default=["table", "live"], choices=["table", "live"])
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp, serving(Path(tmp)) as (base, app), sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        client = app.test_client()
        print(f"tap to the next decision shown, {args.players} players, 390x844, ms")
        print(f"{'title':<12} {'mode':<6} {'n':>4} {'p50':>7} {'p95':>7} {'max':>7}")
        for mode in args.mode:
            for title in args.titles:
                samples = run(browser, base, client, title, args.players, mode, args.taps, args.seed)
                if not samples:
                    print(f"{title:<12} {mode:<6} {0:>4}   (no samples)")
                    continue
                print(f"{title:<12} {mode:<6} {len(samples):>4} {statistics.median(samples):>7.1f} "
                      f"{percentile(samples, 0.95):>7.1f} {max(samples):>7.1f}", flush=True)
        browser.close()


if __name__ == "__main__":
    main()
