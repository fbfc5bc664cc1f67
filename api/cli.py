"""`cronaca`: the command line. Each command is a thin edge over domain, api or workers.

click (Flask's own command-line library) parses the commands; rich draws the progress bar
and the colours of the dispute report. `main(argv)` returns the exit code, so tests and
`python -m api.cli` run the same thing.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from uuid import UUID

import click
from rich.console import Console
from rich.progress import Progress

from api import service_cli, terminal
from domain import catalog, transcripts
from domain.kernel import ALL, MalformedCommand, RuleViolation, reveal
from domain.kernel.bots import play_bot
from domain.kernel.report_words import counted
from domain.kernel.selfplay import play_random
from domain.records import Forbidden, NotFound, Records, evidence
from domain.records.settings import Settings
from domain.transcripts import check_text, reconcile_texts


class Failed(click.ClickException):
    """An error a person can act on: one line on standard error, exit 2, no traceback."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"cronaca: {self.message}", err=True)


@click.group(help="Game records and replays: play, check and reconcile table notation, run the service.")
def cronaca() -> None:
    pass


@cronaca.command(help="Play random legal games and print one summary line each.")
@click.argument("title", type=click.Choice(sorted(catalog.TITLES)))
@click.option("--players", type=int, default=2, show_default=True)
@click.option("--games", type=int, default=1, show_default=True)
@click.option("--seed", default="cronaca", show_default=True)
@click.option("--solo", type=int, default=None, help="a solo scenario of the title, for a title with a solo mode")
@click.option("--solo-game", type=int, default=1, show_default=True, help="game of the solo scenario's campaign")
@click.option("--carried", "--carried-crowns", "carried", type=int, default=0,
              help="what the game before in the solo campaign carried into this one (a title's crowns, say)")
@click.option("--option", "extra", multiple=True, help="extra game option KEY=VALUE")
@click.option("--bot", type=click.Choice(["random", "greedy"]), default="random", show_default=True,
              help="random legal moves, or the greedy bot (one turn of lookahead on the running score)")
def selfplay(title: str, players: int, games: int, seed: str, solo: int | None, solo_game: int, carried: int,
             extra: Sequence[str], bot: str) -> None:
    game = catalog.game(title)
    edition = game.default_edition()
    options: dict[str, object] = {"players": players}
    if solo is not None:  # the title sets its solo game up (catalog.solo); its rules check the scenario
        solo_options = catalog.solo(title)
        if solo_options is None:
            raise click.UsageError(f"{title} has no solo mode", click.get_current_context())
        options = dict(solo_options(solo, solo_game, carried))
    for item in extra:
        key, _, value = item.partition("=")
        options[key] = value if not value.lstrip("-").isdigit() else int(value)
    for k in range(games):
        if bot == "greedy":
            played = play_bot(game, edition, options, f"{seed}-{k}")
        else:
            played = play_random(game, edition, options, f"{seed}-{k}")
        scores = played.scores
        totals = {s["seat"]: s["total"] for s in scores["seats"]}
        winner = scores["ranking"][0] if scores["ranking"] else None
        ranked = " ".join(f"{seat}:{totals[seat]}" for seat in scores["ranking"])
        click.echo(f"game {k + 1} seed={seed}-{k} winner=seat {winner} scores=[{ranked}] events={played.event_count}")


# ---- table notation -----------------------------------------------------------------------------


def _read_text(path: str) -> str:
    """A notation file's text; unreadable input is exit 2 with the reason."""
    try:
        raw = Path(path).read_bytes() if path != "-" else sys.stdin.buffer.read()
    except OSError as exc:
        raise Failed(f"{path}: {exc.strerror or exc}") from exc
    if b"\x00" in raw:
        raise Failed(f"{path}: this is not a text file (it holds NUL bytes)")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise Failed(f"{path}: not UTF-8 text (byte {exc.start})") from exc


def _shown(value: Any) -> Any:
    return reveal(value, ALL)  # a table checking its own file sees everything it implies


def _print_report(console: Console, path: str, report: dict[str, Any]) -> None:
    """One file's report: the file's own words (path, title, messages, moves) as written, never read as markup."""
    verdict = ((("clean", "green") if report.get("settled", True) else ("no finding, not settled", "yellow"))
               if report["ok"] else (counted(f"{len(report['findings'])} finding(s)"), "red"))
    console.print(terminal.line((path, "bold"), f": {report.get('title') or '?'}, {report['moves']} moves — ", verdict))
    console.print(terminal.line(f"  {report['summary']}"))
    for finding in report["findings"]:
        where = f"line {finding['line']}"
        if finding.get("column"):
            where += f":{finding['column']}"
        who = ", ".join(str(x) for x in (f"round {finding['round']}" if finding.get("round") is not None else None,
                                          finding.get("player")) if x)
        console.print(terminal.line("  ", (where, "yellow"), f" ({who})" if who else "", " ", (str(finding["rule"]), "cyan")))
        console.print(terminal.line(f"    {finding['message']}"))
        if finding.get("written"):
            console.print(terminal.line(f"    written: {finding['written']}"))
        if isinstance(finding.get("holding"), str):  # what the player held, in words (report_words)
            console.print(terminal.line(f"    {finding['holding']}"))
        elif finding.get("held") is not None:
            console.print(terminal.line(f"    held: {json.dumps(finding['held'], ensure_ascii=False)}"))
        if finding.get("alternatives"):
            console.print(terminal.line(f"    legal instead: {'; '.join(map(str, finding['alternatives']))}"))
        if finding.get("assumed"):
            console.print(terminal.line(f"    went on with: {finding['assumed']}"))
        if finding.get("did_you_mean"):
            console.print(terminal.line(f"    did you mean: {', '.join(finding['did_you_mean'])}"))
    for unknown in report.get("unknowns", []):
        console.print(terminal.line("  ", ("unknown", "blue"), f" {unknown['message']}"))


@cronaca.command(help="Check notation files: every finding at its line. Exit 0 clean, 1 findings, 2 unreadable input.")
@click.argument("files", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="print the reports as JSON")
@click.option("--budget", type=int, default=None, help="moves the narrowing of unknown outcomes may re-decide")
def check(files: Sequence[str], as_json: bool, budget: int | None) -> None:
    console = terminal.console()
    texts = [(path, _read_text(path)) for path in files]
    reports: list[tuple[str, dict[str, Any]]] = []
    with Progress(console=terminal.console(stderr=True), transient=True, disable=len(texts) < 2) as progress:
        task = progress.add_task("checking", total=len(texts))
        for path, text in texts:
            found = check_text(text, **({"budget": budget} if budget is not None else {}))
            reports.append((path, _shown(found.to_json())))
            progress.advance(task)
    if as_json:
        click.echo(json.dumps({path: r for path, r in reports} if len(reports) > 1 else reports[0][1], indent=2,
                              ensure_ascii=False))
    else:
        for path, report in reports:
            _print_report(console, path, report)
    raise click.exceptions.Exit(0 if all(r["ok"] for _, r in reports) else 1)


@cronaca.command(help="A record in its title's notation: a record file (JSON export) or a record id in the store. "
                      "A record in the store whose game is in progress is refused unless --in-progress: its notation "
                      "holds every draw and face-down card, which its seats may not see yet.")
@click.argument("record")
@click.option("--in-progress", "in_progress", is_flag=True,
              help="also a record whose game is in progress (every secret shown: not for a screen its players see)")
def render(record: str, in_progress: bool = False) -> None:
    path = Path(record)
    if path.exists():
        try:
            document = json.loads(_read_text(record))
            click.echo(transcripts.render_record_file(document), nl=False)
        except (ValueError, KeyError, TypeError) as exc:
            raise Failed(f"{record}: not a record file ({exc})") from exc
        return


    try:
        record_id = UUID(record)
    except ValueError as exc:
        raise Failed(f"{record}: no such file, and not a record id") from exc
    records = Records(Settings.from_env().store)
    try:
        click.echo(records.reading.notation(record_id, all_seeing=in_progress), nl=False)
    except NotFound as exc:
        raise Failed(exc.message) from exc
    except Forbidden as exc:
        raise Failed(f"{record}: {exc.message}; --in-progress shows it to you anyway") from exc


@cronaca.command(help="Two transcripts of one game: every disagreement, the first divergence, which the rules accept.")
@click.argument("first")
@click.argument("second")
@click.option("--json", "as_json", is_flag=True)
def reconcile(first: str, second: str, as_json: bool) -> None:
    found = _shown(reconcile_texts(_read_text(first), _read_text(second)))
    if as_json:
        click.echo(json.dumps(found, indent=2, ensure_ascii=False))
    else:
        console = terminal.console()
        if found["agree"]:
            console.print(terminal.line(("the two transcripts agree", "green"), f" ({found['turns']['first']} turns)"))
        for tag in found["header"]:
            console.print(terminal.line(f"  header {tag['tag']}: {tag['first']!r} / {tag['second']!r}"))
        for d in found["disagreements"]:
            console.print(terminal.line("  ", (f"turn {d['turn']}", "yellow"), f": {d['what']}"))
            for side in ("first", "second"):
                if d[side]:
                    console.print(terminal.line(f"    {side} (line {d[side]['line']}): {d[side]['text']}"))
        if found["rules_accept"]:
            console.print(terminal.line(f"  first divergence: turn {found['first_divergence']['turn']} — "
                               f"{found['rules_accept']['verdict']}"))
        console.print(terminal.line(f"  first: {found['first']['summary']}"))
        console.print(terminal.line(f"  second: {found['second']['summary']}"))
    raise click.exceptions.Exit(0 if found["agree"] else 1)


@cronaca.command(help="Check an evidence bundle offline, part by part (no service, no database). "
                      "Exit 0 when everything holds, 1 when something fails, 2 when the file is no bundle.")
@click.argument("bundle")
@click.option("--json", "as_json", is_flag=True, help="print the report as JSON")
def verify(bundle: str, as_json: bool) -> None:
    try:
        raw = Path(bundle).read_bytes() if bundle != "-" else sys.stdin.buffer.read()
    except OSError as exc:
        raise Failed(f"{bundle}: {exc.strerror or exc}") from exc
    try:
        report = evidence.verify(raw)
    except evidence.NotABundle as exc:
        raise Failed(f"{bundle}: not an evidence bundle: {exc}") from exc
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        console = terminal.console()
        verdict = ("everything holds", "green") if report.ok else (f"{len(report.failing)} part(s) fail", "red")
        console.print(terminal.line((bundle, "bold"), f": record {report.record_id or '?'} — ", verdict))
        console.print(terminal.line(f"  chain head {report.chain_head or '?'}; rulings head {report.rulings_head or '-'} "
                           "(compare them with the heads the service published)"))
        for part in report.lines:
            mark = ("ok", "green") if part.ok else ("FAILS", "red")
            console.print(terminal.line("  ", mark, "   " if part.ok else "", " ", (str(part.part), "cyan")))
            for what in part.checked if part.ok else []:
                console.print(terminal.line(f"        {what}"))
            for what in part.problems:
                console.print(terminal.line("        ", (str(what), "yellow")))
    raise click.exceptions.Exit(0 if report.ok else 1)


service_cli.add_commands(cronaca)


def main(argv: Sequence[str] | None = None) -> int:
    """Run `cronaca` with these arguments; returns the exit code (bad input: 2, with the rule and no traceback)."""
    try:
        result = cronaca.main(args=list(argv) if argv is not None else None, prog_name="cronaca", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        raise SystemExit(exc.exit_code) from exc
    except click.exceptions.Abort as exc:
        raise SystemExit(1) from exc
    except RuleViolation as exc:
        click.echo(f"cronaca: {exc.rule}: {exc.message}", err=True)
        raise SystemExit(2) from exc
    except MalformedCommand as exc:
        click.echo(f"cronaca: {exc.message}", err=True)
        raise SystemExit(2) from exc
    return int(result or 0)


def entry_point() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
