"""The record page in Chromium: key press to board painted, and a 5,000-step record's first board.

    .venv/bin/python -m benchmarks.viewer [--presses 200] [--gap-ms 60] [--modes vsync unlimited] [--no-loading]
    .venv/bin/python -m benchmarks.viewer --phone [--no-stepping]   # the same at a phone's 390 x 844 (issue 32)

Serves the app on 127.0.0.1 (werkzeug, threaded, a fresh SQLite file) and drives Debian's
/usr/bin/chromium through Playwright.

1. Stepping: for each title, a greedy-bot game at its largest player count (the most pieces on
   the board), imported as a record file. The page opens at the end of the setup; then
   `--presses` times ArrowRight. A sample is the time from the keydown event (its timeStamp)
   to the first requestAnimationFrame callback after the new SVG is in #board (a
   MutationObserver sees it go in). Between presses the script waits for the sample and
   `--gap-ms` more, a brisk reader's pace, during which the page prefetches neighbouring boards.
   Twice, each in its own browser: at the display's pace (60 Hz vsync, as a reader's screen: a key
   pressed at a random moment waits 0-16.7 ms for the next frame) and with Chromium's frame-rate
   limit off (`--disable-frame-rate-limit --disable-gpu-vsync --run-all-compositor-stages-before-draw`,
   see UNLIMITED: a frame starts as soon as one is needed, so the figure is the page's own time from
   the key to the frame that shows the new board, without the wait for the display's phase).
   Before the titles, a control in each browser: the same presses, sampled the same way, on a page
   whose step is one line of text changed in the key's own task: the floor of the method (the wait
   for the display's next frame, and the frame), which no page can go under.
   `--frames N` (vsync only): N more presses under a Chromium trace (`toplevel`, `devtools.timeline`),
   counting the renderer's main frames between one key and the next (its `BeginMainFrame` tasks) and
   when the last of them started: what keeps the display's beat running into the next key, measured
   apart from the machine's speed of the minute.
2. Loading: a 5,000-step record: the toy title of tests/service/conftest.py with a far target
   (one event per command, so one game runs to thousands of steps; it has no board drawing, so
   its "first board" is the page's sentence saying so, painted after the record, turns, story
   and scores chart are in). Then the largest real record (La Città, 5 players, random play)
   to its first drawn board. A sample is navigation start to the rAF after #board is filled
   (body[data-step] set); the median of `--loads` cold loads (a new browser context each) is reported.
   Then each title's finished greedy-bot record (the stepping's), opened as a link opens it (no #step):
   the first open a reader of a shared link waits for (issue 32's target at 390 px: <= 500 ms).

`--phone` runs everything in a 390 x 844 viewport (the page's phone layout: the board drawn readable in its
pan box, the controls along the bottom) instead of 1400 x 1000; `--no-stepping` skips the key presses.
"""

from __future__ import annotations

import argparse
import collections
import functools
import logging
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple
from uuid import UUID

from werkzeug.serving import make_server

from api.app import create_app
from domain import catalog
from domain.kernel.bots import play_bot
from domain.kernel.selfplay import play_random
from domain.records import Records, recordfile
from domain.records.settings import Settings

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
# Stepping is measured in two browsers: at the display's 60 Hz, and with the frame-rate limit off.
# Headless Chromium 156 keeps its 60 Hz frame source with the first two switches alone (measured: 60
# animation frames a second); with the compositor's stages run to the end before each draw as well,
# a frame starts as soon as one is needed (1,500-2,800 a second on an idle page). `frame_rate` checks it.
UNLIMITED = ["--disable-frame-rate-limit", "--disable-gpu-vsync", "--run-all-compositor-stages-before-draw"]
MODES: dict[str, tuple[str, list[str]]] = {
    "vsync": ("at the display's 60 Hz (vsync): key to the painted frame", []),
    "unlimited": ("frame-rate limit off (" + " ".join(UNLIMITED) + "): key to the frame, no wait for the display", UNLIMITED),
}
FRAME_RATE = """() => new Promise((done) => {
  let frames = 0;
  const t0 = performance.now();
  const frame = () => { frames += 1; if (performance.now() - t0 < 500) requestAnimationFrame(frame); else done(frames * 2); };
  requestAnimationFrame(frame);
})"""
LARGEST = {"citta-stato": 5, "la-citta": 5, "serenissima": 4}  # players: the most pieces each board can hold
TOY_EDITION = """\
id: toy-long
title: toy
data:
  target: {target}
  bag: [1, 2, 3]
provenance:
  target: "assumed: a long game for the viewer benchmark"
"""

WATCH = """() => {
  window.__samples = [];
  window.__slow = 0;  // keydowns whose next presented frame came 16 ms or more after the key (Event Timing)
  window.__ready = {};  // board step -> when its answer came (the page's fetch, watched from outside)
  const original = window.fetch;
  window.fetch = (url, init) => original(url, init).then((answer) => {
    const found = /steps\\/(\\d+)\\/board$/.exec(url);
    if (found) window.__ready[found[1]] = performance.now();
    return answer;
  });
  new PerformanceObserver((list) => {
    list.getEntries().forEach((e) => { if (e.name === "keydown") window.__slow += 1; });
  }).observe({ type: "event", durationThreshold: 16 });
  // A sample: from the keydown's timeStamp to the end of the first frame that renders the new board.
  // The page sets body[data-step] in the same task as it puts the new board in #board (replaced or
  // patched in place). A rAF callback runs at the start of a frame, before its style, layout and
  // paint; a message posted from it runs once that rendering is done. The rAF is asked for in the
  // keydown (before the page's own handler), so this message is queued before anything the page
  // defers from its own rAF callbacks and the sample does not wait for that work.
  let press = null;
  const after = new MessageChannel();
  after.port1.onmessage = () => {
    const done = press;
    press = null;
    window.__samples.push([performance.now() - done.t0, done.cached, done.frame, done.board,
      performance.now() - done.t0 - done.frame, done.waited]);
  };
  const frame = () => {
    if (press === null) return;
    if (!press.changed) { press.waited += 1; requestAnimationFrame(frame); return; }  // the board is still on its way
    press.frame = performance.now() - press.t0;
    after.port2.postMessage(null);
  };
  window.addEventListener("keydown", (e) => {
    press = { t0: e.timeStamp, changed: false, cached: false, frame: null, board: null, waited: 0 };
    requestAnimationFrame(frame);
  }, true);
  new MutationObserver(() => {
    if (press === null || press.changed) return;
    const step = document.body.dataset.step;
    press.changed = true;
    press.board = performance.now() - press.t0;  // the key's task is done with the board (a microtask after it)
    press.cached = window.__ready[step] !== undefined && window.__ready[step] < press.t0;
  }).observe(document.body, { attributes: true, attributeFilter: ["data-step"] });
}"""

SAMPLED = """(k) => new Promise((done) => {
  const check = () => (window.__samples.length > k ? done() : setTimeout(check, 1));
  check();
})"""

LOADED = """(attribute) => new Promise((done) => {
  const ready = () => document.body !== null && document.body.dataset[attribute] !== undefined;
  const finish = () => requestAnimationFrame(() => done(performance.now()));
  // the body may not be parsed yet when this runs (just after the navigation's commit, not even the root
  // element may be): watch the whole document once it has one
  const watch = () => {
    if (ready()) return finish();
    if (document.documentElement === null) return setTimeout(watch, 0);
    new MutationObserver((_, o) => { if (ready()) { o.disconnect(); finish(); } })
      .observe(document.documentElement, { attributes: true, childList: true, subtree: true });
  };
  watch();
})"""


@contextmanager
def serving(tmp: Path) -> Iterator[tuple[str, Records]]:
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per request would drown the figures
    app = create_app(Settings.from_env({"SQLITE_DBNAME": str(tmp / "viewer.sqlite3")}))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", app.extensions["cronaca"].records
    finally:
        server.shutdown()
        app.extensions["cronaca"].records.close()


def imported(records: Records, title: str, players: int, played: Any) -> UUID:
    edition = catalog.game(title).default_edition()
    document = {"format": recordfile.FORMAT, "version": recordfile.VERSION, "title": title, "edition": edition.ref,
                "seats": [{"name": n} for n in ["Ada", "Ben", "Chiara", "Dario", "Elena"][:players]],
                "options": {"players": players}, "mode": "transcribed", "chance": {},
                "entries": [e.to_json() for e in played.entries]}
    import_id, _ = records.imports.submit(document)
    report = records.imports.validate(import_id)
    assert report.ok, report
    return UUID(report.record_id)


def toy_record(records: Records, steps: int) -> UUID:
    """A finished toy game of about `steps` events (one per command; the target tuned to that length),
    played at random and imported as a record file that carries its edition."""
    catalog.TITLES.setdefault("toy", "tests.kernel.toy_game")
    text = TOY_EDITION.format(target=int(steps * 1.6))
    game = catalog.game("toy")
    edition = game.load_edition(text.encode(), "<toy-long>")
    played = play_random(game, edition, {"players": 2}, "viewer-bench-toy")
    document = {"format": recordfile.FORMAT, "version": recordfile.VERSION, "title": "toy",
                "edition": {**edition.ref, "file": text}, "seats": [{"name": "Ada"}, {"name": "Ben"}],
                "options": {"players": 2}, "mode": "transcribed", "chance": {},
                "entries": [e.to_json() for e in played.entries]}
    import_id, _ = records.imports.submit(document)
    report = records.imports.validate(import_id)
    assert report.ok, report
    return UUID(report.record_id)


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


class Press(NamedTuple):
    """One key press, in ms from the keydown's timeStamp."""

    painted: float  # the end of the first frame that renders the new board: the figure
    cached: bool  # the board had been fetched before the key
    frame: float  # the start of that frame (its rAF callback)
    board: float  # the page's key task has put the board in (handler and queueing)
    render: float  # that frame's style, layout, paint and commit (painted - frame)
    waited: int  # frames that started after the key before the one with the new board (0: the very next frame)

    @property
    def work(self) -> float:
        """The press's main-thread time without the idle wait for the display's next frame."""
        return self.board + self.render


VIEWPORT = {"width": 1400, "height": 1000}  # --phone: PHONE
PHONE = {"width": 390, "height": 844}


def opened(browser: Any, base: str, record_id: UUID, start: int, pages: Path | None) -> tuple[Any, Any]:
    """A new context and page on the record at `start`, its first neighbours fetched; `pages`: another
    version of the page's files (record.js...) served instead, to measure before against after."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    if pages is not None:
        for file in pages.iterdir():
            page.route(f"**/viewer/{file.name}", functools.partial(lambda file, route: route.fulfill(path=file), file))
    page.goto(f"{base}/records/{record_id}#step={start}")
    page.wait_for_selector(f'body[data-step="{start}"]')
    page.wait_for_timeout(300)  # the first neighbours are fetched
    return context, page


def stepping(browser: Any, base: str, record_id: UUID, start: int, presses: int,
             gap_ms: int, pages: Path | None = None) -> tuple[list[Press], int]:
    """Every press; and how many keydowns Event Timing saw take 16 ms or more to their presented frame."""
    context, page = opened(browser, base, record_id, start, pages)
    found = pressed(page, presses, gap_ms)
    context.close()
    return found


def pressed(page: Any, presses: int, gap_ms: int) -> tuple[list[Press], int]:
    """`presses` × ArrowRight on the page's #slider, each sampled by WATCH."""
    page.evaluate(WATCH)
    page.locator("#slider").focus()
    for k in range(presses):
        page.keyboard.press("ArrowRight")
        page.evaluate(SAMPLED, k)  # (wait_for_function would evaluate a string: the page's CSP refuses that)
        page.wait_for_timeout(gap_ms)
    page.wait_for_timeout(100)  # the last Event Timing entries are delivered
    samples, slow = page.evaluate("[window.__samples, window.__slow]")
    return [Press(float(a), bool(b), float(c), float(d), float(e), int(f)) for a, b, c, d, e, f in samples], int(slow)


TRACED = ["toplevel", "devtools.timeline"]


def main_frames(browser: Any, base: str, record_id: UUID, start: int, presses: int, gap_ms: int,
                pages: Path | None = None) -> list[tuple[int, float]]:
    """For each of `presses` keys (after 10 untraced ones): how many main frames the renderer ran before
    the next key, and when the last of them started (ms after the key), from a Chromium trace."""
    import json

    context, page = opened(browser, base, record_id, start, pages)
    page.evaluate(WATCH)
    page.locator("#slider").focus()
    for k in range(10):
        page.keyboard.press("ArrowRight")
        page.evaluate(SAMPLED, k)
        page.wait_for_timeout(gap_ms)
    browser.start_tracing(page=page, categories=TRACED)
    for k in range(10, 10 + presses):
        page.keyboard.press("ArrowRight")
        page.evaluate(SAMPLED, k)
        page.wait_for_timeout(gap_ms)
    page.wait_for_timeout(200)  # the last key's frames
    trace = json.loads(browser.stop_tracing())
    context.close()
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    threads = {(e["pid"], e["tid"]) for e in events
               if e.get("ph") == "M" and e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"}
    mine = [e for e in events if (e.get("pid"), e.get("tid")) in threads and e.get("ph") == "X"]
    keys = sorted(e["ts"] for e in mine if e.get("name") == "EventDispatch"
                  and (e.get("args", {}).get("data") or {}).get("type") == "keydown")
    frames = sorted(e["ts"] for e in mine if e.get("name") == "ThreadControllerImpl::RunTask"
                    and e.get("args", {}).get("src_func") == "ScheduledActionSendBeginMainFrame")
    found = []
    for i, key in enumerate(keys):
        end = keys[i + 1] if i + 1 < len(keys) else key + (gap_ms + 200) * 1000
        these = [f for f in frames if key <= f < end]
        found.append((len(these), (these[-1] - key) / 1000 if these else 0.0))
    return found


CONTROL = """<!doctype html><html><body data-step="0"><input id="slider" aria-label="step"><p id="shown">step 0</p>
<script>
  let step = 0;
  document.getElementById("slider").addEventListener("keydown", (e) => {
    if (e.key !== "ArrowRight") return;
    step += 1;
    document.getElementById("shown").textContent = "step " + step;
    document.body.dataset.step = String(step);
  });
</script></body></html>"""


def control(browser: Any, presses: int, gap_ms: int) -> tuple[list[Press], int]:
    """The method's floor: the same presses, sampled the same way, on a page whose whole step is one text
    node changed in the keydown's own task. No page can show a key's effect sooner than this: what it
    measures beyond the page's work is the wait for the display's next frame and the frame itself."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_content(CONTROL)
    found = pressed(page, presses, gap_ms)
    context.close()
    return found


def frame_rate(browser: Any) -> int:
    """Animation frames a second on an empty page: about 60 at the display's pace, far more with the limit off."""
    context = browser.new_context()
    page = context.new_page()
    page.set_content("<p>frames</p>")
    found = int(page.evaluate(FRAME_RATE))
    context.close()
    return found


def loading(browser: Any, url: str, loads: int) -> tuple[float, float]:
    """Median ms from navigation to the first board painted, and to the move list and chart in too."""
    board, everything = [], []
    for _ in range(loads):
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        page.goto(url, wait_until="commit")
        board.append(float(page.evaluate(LOADED, "step")))
        everything.append(float(page.evaluate(LOADED, "loaded")))
        context.close()
    return statistics.median(board), statistics.median(everything)


def report(title: str, players: int, steps: int, samples: list[Press], slow: int) -> dict[str, float]:
    """Print one title's stepping figures in one mode; return the summary row for the table."""
    every = [s.painted for s in samples]
    hits = [s.painted for s in samples if s.cached]
    late = sum(1 for s in samples if s.waited)

    def p(values: list[float], q: float) -> float:
        return percentile(values, q) if values else 0.0

    print(f"  {title:12} {players} players, {steps} steps: p50 {p(every, 0.5):5.1f} ms  p95 {p(every, 0.95):5.1f} ms  "
          f"max {max(every):5.1f} ms  ({len(samples)} presses; from cache {len(hits)}: p95 {p(hits, 0.95):5.1f} ms)")
    print(f"  {'':12} p50/p95: board in {p([s.board for s in samples], 0.5):4.1f}/{p([s.board for s in samples], 0.95):4.1f} ms, "
          f"frame start {p([s.frame for s in samples], 0.5):4.1f}/{p([s.frame for s in samples], 0.95):4.1f} ms, "
          f"render {p([s.render for s in samples], 0.5):4.1f}/{p([s.render for s in samples], 0.95):4.1f} ms, "
          f"work without the wait for the frame {p([s.work for s in samples], 0.5):4.1f}/{p([s.work for s in samples], 0.95):4.1f} ms; "
          f"board not in the first frame after the key: {late}/{len(samples)}; Event Timing >= 16 ms: {slow}/{len(samples)}")
    return {"p50": p(every, 0.5), "p95": p(every, 0.95), "max": max(every), "work95": p([s.work for s in samples], 0.95),
            "late": late, "presses": len(samples)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--presses", type=int, default=200)
    parser.add_argument("--gap-ms", type=int, default=60)
    parser.add_argument("--long-steps", type=int, default=5000)
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--titles", nargs="*", default=list(LARGEST))
    parser.add_argument("--modes", nargs="*", default=list(MODES), choices=list(MODES),
                        help="vsync: at the display's 60 Hz; unlimited: Chromium's frame-rate limit off")
    parser.add_argument("--no-loading", action="store_true", help="only the stepping figures")
    parser.add_argument("--pages", type=Path, help="a folder of the viewer's files (record.js...) served instead of replay_viewer's")
    parser.add_argument("--frames", type=int, default=40, help="presses traced to count main frames a key (vsync; 0: none)")
    parser.add_argument("--phone", action="store_true", help="a phone's 390 x 844 viewport instead of 1400 x 1000")
    parser.add_argument("--no-stepping", action="store_true", help="only the loading figures")
    args = parser.parse_args()
    if args.phone:
        VIEWPORT.update(PHONE)
    if args.no_stepping:  # page loads only, at the display's pace
        args.presses = args.frames = 0
        args.modes = ["vsync"]
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, serving(Path(tmp)) as (base, records), sync_playwright() as p:
        browsers = {mode: p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS + MODES[mode][1])
                    for mode in args.modes}
        print(f"viewport {VIEWPORT['width']} x {VIEWPORT['height']}")
        finished: dict[str, UUID] = {}
        print(f"key press to board painted, {args.presses} presses, {args.gap_ms} ms between them")
        for mode, browser in browsers.items():
            print(f"  {mode}: {frame_rate(browser)} animation frames a second on an empty page")
        table: list[tuple[str, str, dict[str, float]]] = []
        frames_table: list[tuple[str, float, float, float]] = []
        for mode, browser in ({} if args.no_stepping else browsers).items():  # the floor of the method
            print(f" control, {MODES[mode][0]}: a page that changes one line of text on the key")
            samples, slow = control(browser, args.presses, args.gap_ms)
            table.append(("(control)", mode, report("(control)", 0, 0, samples, slow)))
        for title in args.titles:
            players = LARGEST[title]
            game = catalog.game(title)
            played = play_bot(game, game.default_edition(), {"players": players}, f"viewer-bench-{title}")
            record_id = imported(records, title, players, played)
            finished[title] = record_id
            if args.no_stepping:
                continue
            start = records.reading.turns(record_id)[0].stop
            steps = records.reading.summary(record_id).steps
            presses = min(args.presses, steps - start)
            for mode, browser in browsers.items():  # the modes one after the other on the same record, same minutes
                print(f" {MODES[mode][0]}")
                samples, slow = stepping(browser, base, record_id, start, presses, args.gap_ms, args.pages)
                table.append((title, mode, report(title, players, steps, samples, slow)))
            if args.frames and "vsync" in browsers:
                counted = main_frames(browsers["vsync"], base, record_id, start, min(args.frames, steps - start - 10),
                                      args.gap_ms, args.pages)
                spread = collections.Counter(n for n, _ in counted)
                lasts = [t for _, t in counted]
                frames_table.append((title, sum(n for n, _ in counted) / len(counted), percentile(lasts, 0.5),
                                     percentile(lasts, 0.95)))
                print(f"  {title:12} main frames a key over {len(counted)} traced presses: "
                      + ", ".join(f"{n}: {spread[n]}" for n in sorted(spread))
                      + f"; the last started p50 {percentile(lasts, 0.5):.1f} ms, p95 {percentile(lasts, 0.95):.1f} ms after the key")
        print("summary: key press to the frame with the new board, ms (target p95 16)")
        print(f"  {'title':12} {'mode':10} {'p50':>6} {'p95':>6} {'max':>6}  {'work p95':>8}  late frames")
        for title, mode, row in table:
            print(f"  {title:12} {mode:10} {row['p50']:6.1f} {row['p95']:6.1f} {row['max']:6.1f}  {row['work95']:8.1f}  "
                  f"{row['late']:.0f}/{row['presses']:.0f}")
        if frames_table:
            print("main frames a key (vsync, traced): what keeps the display's beat running into the next key")
            for title, mean, p50, p95 in frames_table:
                print(f"  {title:12} {mean:4.2f} frames a key; the last starts p50 {p50:5.1f} ms, p95 {p95:5.1f} ms after the key")
        for mode, browser in browsers.items():
            if mode != "vsync" or args.no_loading:
                browser.close()
        if args.no_loading or "vsync" not in browsers:
            return
        browser = browsers["vsync"]  # page loads at the display's pace, as a reader opens the page

        started = time.perf_counter()
        long_id = toy_record(records, args.long_steps)
        long_steps = records.reading.summary(long_id).steps
        print(f"page load to first board (median of {args.loads} cold loads)")
        board, everything = loading(browser, f"{base}/records/{long_id}#step={long_steps // 2}", args.loads)
        print(f"  toy, {long_steps} steps (built in {time.perf_counter() - started:.1f} s): first board {board:5.0f} ms, "
              f"move list and chart in {everything:5.0f} ms")
        game = catalog.game("la-citta")
        played = play_random(game, game.default_edition(), {"players": 5}, "viewer-bench-long")
        real_id = imported(records, "la-citta", 5, played)
        real_steps = records.reading.summary(real_id).steps
        board, everything = loading(browser, f"{base}/records/{real_id}#step={real_steps // 2}", args.loads)
        print(f"  la-citta, 5 players, random play, {real_steps} steps: first board {board:5.0f} ms, "
              f"move list and chart in {everything:5.0f} ms")
        for title, record_id in finished.items():  # a finished record opened from its link, as a friend opens it
            board, everything = loading(browser, f"{base}/records/{record_id}", args.loads)
            print(f"  {title}, {LARGEST[title]} players, greedy bots, finished, first open: first board {board:5.0f} ms, "
                  f"move list and chart in {everything:5.0f} ms")
        browser.close()


if __name__ == "__main__":
    main()
