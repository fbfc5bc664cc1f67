"""Serenissima in the table notation: one line per galley's activation (docs/notation/serenissima.md).

A galley's turn is a long chain of small engine commands; the table writes it as one line:

    3. Ada: galley 2 action, load 3 venezia, buy stone, sail ragusa corfu, sell stone corfu

* A move may stand for several commands: `load 3 venezia` is three sailors, `sail ragusa corfu`
  two zones, `sell wine gold` two sales.
* The ends of steps are left out where the next move shows them (`sail` after loading ends the
  loading; `sell` ends the movement) and at the end of the line, which ends the activation (or
  the investment, or the capture). `end` says them where chance follows (the Doge card drawn
  when the turn's last galley is done: `end [hour1]`); `end loading`, `end movement` and
  `end capture` say one of them alone.
* Ports by their ids (`venezia`, `costantinopoli`; the printed name reads too, and the name in the game's other
  language, `Venice`, `Famagosta`: `OTHER_NAMES`), zones by the name
  of their port (`sail ragusa`) or by their own id (`sail sardinian`), goods by name.
* A decision by another player (a blockade, a capture from the attacker's wreck) is that player's
  own line; the active player's next line goes on with the same activation.

Reading is state-dependent (whose step it is, the galley under the black token, the port of its
zone), so the vocabulary only splits a move into its verb and words; `expand` makes the commands
from them in the state the move is read in, and `write_line` / `write` make moves from commands.
"""

from __future__ import annotations

import difflib
import functools
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.kernel.choices import ACTIONS, PASS, PLACES, Choice, choice_of
from domain.kernel.editions import Edition
from domain.kernel.notation import Form, Move, Notation, NotationError, Vocabulary, Words
from domain.serenissima import GAME
from domain.serenissima.edition import Tables, tables
from domain.serenissima.report import breakdown_words, held_words, terms, waiting
from domain.serenissima.rules import who
from domain.serenissima.state import State

K = "serenissima/"

# The rulebook's players (S002's examples: Blue, Red, Orange, Black); the seat order is the table's.
COLOURS = ("blue", "red", "orange", "black")

PLAN = {"action": "action", "invest": "investment", "investment": "investment"}
END_WORDS = {"loading": K + "end-loading", "movement": K + "end-movement", "capture": K + "end-capture"}
ENDS = frozenset({*END_WORDS.values(), K + "end-activation", K + "end-investment"})
INVESTING = ("investment", "special-investment")

# The verbs, for did-you-mean and the documentation; every move is read by `expand`, in its state.
VERBS: tuple[tuple[str, str, str], ...] = (
    ("start", "choose-start", "setup: `start venezia 3`, the starting port and a galley number"),
    ("galley", "choose-galley", "setup: `galley 5`, another galley; in play: `galley 5 action` / `galley 5 invest`"),
    ("action", "choose-plan", "the active galley acts (the same as `galley N action`)"),
    ("invest", "choose-plan", "the active galley's owner invests instead"),
    ("load", "move-sailor", "sailors onto the active galley: `load 2 venezia`, `load from 6`, `load wood from 6`"),
    ("unload", "move-sailor", "sailors off it: `unload venezia`, `unload 2 to 6`, `unload wood to 6`; "
                              "after a claim or a port battle: `unload 2` into the port"),
    ("buy", "buy-good", "goods of the port: `buy 2 wood`; in an investment: `buy galley 7 venezia`"),
    ("toss", "toss-good", "goods thrown overboard: `toss wine`, `toss 2 wood`"),
    ("sail", "sail", "zone by zone: `sail algiers tripoli` (a zone by its port, or `sardinian`)"),
    ("blockade", "blockade", "the player asked declares a blockade"),
    ("waive", "blockade", "the player asked lets the galley go on"),
    ("sell", "sell", "`sell wine ragusa`, `sell wine gold ragusa`"),
    ("attack", "attack-galley", "`attack 7` (a galley), `attack napoli` (a port): dice in brackets"),
    ("claim", "claim-port", "`claim napoli`: a neutral port, then `unload 2`"),
    ("again", "continue-battle", "another round of the battle: dice in brackets"),
    ("stop", "continue-battle", "the attacker stops the battle (and the activation)"),
    ("take", "capture", "goods from the sunk galley: `take marble`"),
    ("recruit", "recruit-port", "`recruit 2 venezia`, `recruit 3 galley 12`"),
    ("fort", "build-fort", "`fort venezia`"),
    ("basilica", "build-basilica", "`basilica antakya`"),
    ("end", "end-activation", "the end of what is under way (activation, investment, capture); "
                              "`end loading`, `end movement`, `end capture` say one step's end"),
)


class SerenissimaVocabulary(Vocabulary):
    """The verbs of the table; a move is read as its verb and words, and made into commands by `expand`."""

    def read(self, move: Move, seat: int) -> dict[str, Any]:
        form = self.by_verb.get(move.verb.lower())
        if form is None:
            return super().read(move, seat)  # not a verb of the game: the kernel's did-you-mean
        return {"verb": form.verb, "seat": seat, "words": list(move.words)}

    def write(self, command: Mapping[str, Any]) -> str:
        """A command as a move where no state is at hand: only commands whose words need none."""
        kind = str(command.get("type", ""))[len(K):]
        simple = {
            "choose-start": lambda c: f"start {c['port']} {c['galley']}",
            "choose-galley": lambda c: f"galley {c['galley']}",
            "choose-plan": lambda c: "action" if c["plan"] == "action" else "invest",
            "toss-good": lambda c: f"toss {c['good']}",
            "end-loading": lambda c: "end loading",
            "end-movement": lambda c: "end movement",
            "end-capture": lambda c: "end capture",
            "end-activation": lambda c: "end",
            "end-investment": lambda c: "end",
            "blockade": lambda c: "blockade" if c["declare"] else "waive",
            "attack-galley": lambda c: f"attack {c['galley']}",
            "continue-battle": lambda c: "again" if c["go"] else "stop",
            "capture": lambda c: f"take {c['good']}",
            "unload": lambda c: f"unload {c['sailors']}",
            "recruit-port": lambda c: f"recruit {c['port']}",
            "recruit-galley": lambda c: f"recruit galley {c['galley']}",
            "buy-galley": lambda c: f"buy galley {c['galley']} {c['port']}",
            "build-fort": lambda c: f"fort {c['port']}",
            "build-basilica": lambda c: f"basilica {c['port']}",
        }
        if kind in simple:
            return str(simple[kind](command))
        raise ValueError(f"{command.get('type')} is written from the state of the game (see `write`)")


VOCABULARY = SerenissimaVocabulary(Form(verb, K + kind, says=says) for verb, kind, says in VERBS)


# ---- names of the board ---------------------------------------------------------------------------


def _key(word: Any) -> str:
    """A written name compared without case, accents, spaces or hyphens: `Corfù`, `CORFU`, `corfu` are one."""
    return _key_of(str(word))


@functools.lru_cache(maxsize=4096)
def _key_of(word: str) -> str:
    """`_key`, worked out once a word: every move of a line names ports, zones and goods."""
    text = unicodedata.normalize("NFKD", word).casefold()
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return "".join(ch if ch.isalnum() else "_" for ch in text).strip("_")


@dataclass(frozen=True)
class Names:
    """The edition's places and goods by every way a table may write them."""

    ports: dict[str, str]  # written -> port id
    zones: dict[str, str]  # written -> zone id (a zone's own id or name, or the name of its only port)
    goods: dict[str, str]
    port_words: tuple[str, ...]  # what render writes, for did-you-mean
    zone_words: tuple[str, ...]


_NAMES: dict[int, tuple[Tables, Names]] = {}


# The names a table writes for a port in the other language of the game (the board prints Venezia, Napoli,
# Famagusta; the rulebook says Venice and Constantinople; an Italian table writes Famagosta and Rodi): each reads
# as the port, with no finding, as its id does. Keyed by the reference edition's port ids; a port another edition
# lacks is left out.
OTHER_NAMES: Mapping[str, tuple[str, ...]] = {
    "valencia": ("Valencia", "Valenza"),
    "barcelona": ("Barcellona",),
    "marseille": ("Marseilles", "Marsiglia"),
    "genova": ("Genoa",),
    "algiers": ("Algeri",),
    "napoli": ("Naples",),
    "tunis": ("Tunisi",),
    "venezia": ("Venice",),
    "ragusa": ("Dubrovnik",),
    "atene": ("Athens",),
    "costantinopoli": ("Constantinople", "Constantinopoli"),
    "rodi": ("Rhodes", "Rodos"),
    "famagusta": ("Famagosta",),
    "antakya": ("Antioch", "Antiochia"),
    "alessandria": ("Alexandria",),
}


def outcome_names(edition: Edition) -> dict[str, str]:
    """A port as an outcome may write it (`[Rhodes]`, `[Corfù]` for a port closed in the Setup): its printed name and
    its names in the other language, casefolded, with and without accents -> the port's id (`Words.other_names`)."""
    t = tables(edition)
    out: dict[str, str] = {}
    for i, pid in enumerate(t.ports):
        for word in (t.port_name[i], *OTHER_NAMES.get(pid, ())):
            out.setdefault(word.casefold(), pid)
            out.setdefault(_key(word), pid)
    return out


def names(t: Tables) -> Names:
    """The names of one edition's board (built once per edition's tables)."""
    found = _NAMES.get(id(t))
    if found is not None and found[0] is t:
        return found[1]
    ports: dict[str, str] = {}
    for i, pid in enumerate(t.ports):
        printed = t.port_name[i]
        for word in (pid, printed, printed.split("(")[0]):
            ports.setdefault(_key(word), pid)
    for pid in t.ports:  # after every port's own names: another port's own name is never taken
        for word in OTHER_NAMES.get(pid, ()):
            ports.setdefault(_key(word), pid)
    zones: dict[str, str] = {}
    for zone in t.zones:
        for word in (zone, t.zone_name[zone], t.zone_name[zone].split("(")[0]):
            zones.setdefault(_key(word), zone)
    for written, pid in ports.items():
        zones.setdefault(written, t.port_zone[t.port_index[pid]])
    built = Names(ports, zones, {_key(g): g for g in t.goods}, tuple(t.ports), tuple(zone_word(t, z) for z in t.zones))
    _NAMES[id(t)] = (t, built)
    return built


def places(edition: Edition) -> tuple[str, ...]:
    """Every place an annotation's shape may name, as `[%cal]`/`[%csl]` markup writes it: the edition's
    ports by id, then its sea zones by id (`markup_problems` reads a zone by its port too)."""
    t = tables(edition)
    return (*t.ports, *t.zones)


def zone_word(t: Tables, zone: str) -> str:
    """A zone as written: the id of its only port, else the zone's own id (`sardinian`)."""
    here = t.zone_ports[zone]
    return t.ports[here[0]] if len(here) == 1 else zone


def _find(word: Any, table: Mapping[str, str], choices: Sequence[str], what: str) -> str:
    found = table.get(_key(word)) if isinstance(word, str) else None
    if found is None:
        near = difflib.get_close_matches(_key(word), list(choices), n=3, cutoff=0.5)
        raise NotationError(f"{word!r} is not {what}" + (f"; did you mean {' or '.join(near)}?" if near else ""),
                            0, 0, list(choices)[:12], near)
    return found


def _port(t: Tables, word: Any, goods: bool = False) -> str:
    """A port by any of its names; where a good may stand too (`sell wine ragusa`), did-you-mean offers both."""
    found = names(t)
    return _find(word, found.ports, [*found.port_words, *(t.goods if goods else ())],
                 "a port of the board" + (" or a good" if goods else ""))


def _zone(t: Tables, word: Any) -> str:
    return _find(word, names(t).zones, names(t).zone_words, "a sea zone (a zone is written by its port, or by its id)")


def _good(t: Tables, word: Any) -> str:
    return _find(word, names(t).goods, t.goods, f"a good ({', '.join(t.goods)})")


def _is(table: Mapping[str, str], word: Any) -> bool:
    return isinstance(word, str) and _key(word) in table


# ---- reading a move in its state ------------------------------------------------------------------


class Reading:
    """The words of one move, consumed from the front, with clear errors for what is missing or left over."""

    def __init__(self, verb: str, words: Sequence[Any]) -> None:
        self.verb = verb
        self.rest = list(words)

    def count(self, least: int = 1) -> int:
        if self.rest and isinstance(self.rest[0], int) and not isinstance(self.rest[0], bool):
            value = int(self.rest.pop(0))
            if value < least:
                raise NotationError(f"in {self.verb!r}, {value} is too few (at least {least})", 0, 0)
            return value
        return 1

    def number(self, what: str) -> int:
        if not self.rest or not isinstance(self.rest[0], int) or isinstance(self.rest[0], bool):
            got = f", not {self.rest[0]!r}" if self.rest else ""
            raise NotationError(f"{self.verb} needs {what} (a number){got}", 0, 0)
        return int(self.rest.pop(0))

    def word(self, *options: str) -> str | None:
        if self.rest and isinstance(self.rest[0], str) and self.rest[0].lower() in options:
            return str(self.rest.pop(0)).lower()
        return None

    def take(self) -> Any:
        return self.rest.pop(0) if self.rest else None

    def done(self) -> None:
        if self.rest:
            extra = " ".join(map(str, self.rest))
            raise NotationError(f"in {self.verb!r}, {extra!r} is left over", 0, 0)


def _active_zone(s: State) -> str:
    act = s.act
    galley = s.galleys[act.galley] if act is not None else None
    return galley.zone if galley is not None else ""


def _step_port(s: State, word: Any, goods: bool = False) -> str:
    """A port named in a step of the activation, as the command carries it: left out where it is the
    zone's only port (the engine's own form), kept otherwise for the rules to judge."""
    if word is None:
        return ""
    t = s.t
    pid = _port(t, word, goods)
    zone = _active_zone(s)
    here = t.zone_ports.get(zone, ())
    return "" if len(here) == 1 and t.ports[here[0]] == pid else pid


def _cmd(kind: str, seat: int | None, **fields: Any) -> dict[str, Any]:
    return {"type": K + kind, "seat": seat, **fields}


def _chain(s: State, kind: str) -> list[tuple[dict[str, Any], str | None]]:
    """The ends of steps from the pending step to the end of what is under way: (command, next step)."""
    act = s.act
    seat = act.seat if act is not None else -1
    if kind == "loading":
        return [(_cmd("end-loading", seat), "movement"), (_cmd("end-movement", seat), "sale-or-battle"),
                (_cmd("end-activation", seat), None)]
    if kind == "movement":
        return [(_cmd("end-movement", seat), "sale-or-battle"), (_cmd("end-activation", seat), None)]
    if kind == "sale-or-battle":
        return [(_cmd("end-activation", seat), None)]
    if kind == "capture" and act is not None:
        owner = who(s)[0]
        if s.galleys[act.galley] is not None:
            return [(_cmd("end-capture", owner), "sale-or-battle"), (_cmd("end-activation", seat), None)]
        return [(_cmd("end-capture", owner), None)]
    if kind in INVESTING:
        return [(_cmd("end-investment", who(s)[0]), None)]
    return []


def closing(s: State, seat: int) -> list[dict[str, Any]]:
    """What the end of `seat`'s line leaves out: the ends of the steps still open, when the decision is the seat's."""
    pending_seat, kind = who(s)
    if pending_seat != seat:
        return []
    return [c for c, _ in _chain(s, kind)]


def _accepts(verb: str, words: Sequence[Any]) -> frozenset[str | None]:
    """The steps in which a move is a choice (None: after the activation, for a new galley's plan)."""
    if verb == "galley":
        return frozenset({"plan", None}) if len(words) >= 2 else frozenset({"choose-galley"})
    if verb == "end":
        step = str(words[0]).lower() if words else ""
        return frozenset({"loading": {"loading"}, "movement": {"movement"}, "capture": {"capture"}}.get(step, set()))
    if verb == "buy" and words and isinstance(words[0], str) and words[0].lower() == "galley":
        return frozenset(INVESTING)
    return _STEPS.get(verb, frozenset())


_STEPS: dict[str, frozenset[str | None]] = {
    "start": frozenset({"choose-start"}),
    "action": frozenset({"plan", None}),
    "invest": frozenset({"plan", None}),
    "load": frozenset({"loading"}),
    "unload": frozenset({"loading", "unload"}),
    "buy": frozenset({"loading"}),
    "toss": frozenset({"loading", "capture"}),
    "sail": frozenset({"movement"}),
    "blockade": frozenset({"blockade"}),
    "waive": frozenset({"blockade"}),
    "sell": frozenset({"sale-or-battle"}),
    "attack": frozenset({"sale-or-battle"}),
    "claim": frozenset({"sale-or-battle"}),
    "again": frozenset({"battle"}),
    "stop": frozenset({"battle"}),
    "take": frozenset({"capture"}),
    "recruit": frozenset(INVESTING),
    "fort": frozenset({"investment"}),
    "basilica": frozenset({"investment"}),
}


def expand(s: State, seat: int, said: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The commands one move stands for in state `s`: the ends of steps it shows, then its own.

    At the end of the seat's line (`said` None): the ends of the steps still open. A move that is
    no choice of the pending step ends the steps before the first one where it is (`sell` after
    loading ends the loading and the movement); where no later step takes it, nothing is added
    and the rules say why the move cannot stand.
    """
    if said is None:
        return closing(s, seat)
    verb, words = str(said["verb"]), list(said.get("words", ()))
    pending_seat, kind = who(s)
    if verb == "end" and not words:
        found = closing(s, seat)
        return found or [_cmd("end-activation", seat)]
    accepted = _accepts(verb, words)
    implied: list[dict[str, Any]] = []
    step: str | None = kind
    if pending_seat == seat and kind not in accepted:
        for end, after in _chain(s, kind):
            implied.append(end)
            if after in accepted:
                step = after
                break
        else:
            implied, step = [], kind
    return implied + _build(s, seat, verb, Reading(verb, words), step, bool(implied), pending_seat == seat)


def _next_galley(s: State) -> int | None:
    """The galley the black token moves to once the active one is done (None: the turn ends first)."""
    return next((n for n in range(s.wheel + 1, len(s.galleys)) if s.galleys[n] is not None), None)


def _build(s: State, seat: int, verb: str, w: Reading, step: str | None, after_ends: bool, mine: bool
           ) -> list[dict[str, Any]]:
    """The move's own commands, in the step it is played in. Words that must agree with the board (the
    galley under the black token, the good of the port) are judged only when the decision is the
    seat's: a line out of turn is the checker's to report."""
    t = s.t
    act = s.act
    a = act.galley if act is not None else 0
    out: list[dict[str, Any]]
    if verb == "start":
        port = _port(t, w.take())
        out = [_cmd("choose-start", seat, port=port, galley=w.number("a galley number"))]
    elif verb == "galley":
        number = w.number("a galley number")
        if not w.rest:
            out = [_cmd("choose-galley", seat, galley=number)]
        else:
            plan = w.word(*PLAN)
            if plan is None:
                raise NotationError(f"galley {number} needs action or invest after it, not {w.rest[0]!r}", 0, 0,
                                    ["action", "invest"], difflib.get_close_matches(str(w.rest[0]), list(PLAN), 2, 0.5))
            active = (act.galley if act is not None and step == "plan" else _next_galley(s) if after_ends else None)
            if mine and active is not None and number != active:
                raise NotationError(f"galley {number} is not under the black token: galley {active} is", 0, 0,
                                    [f"galley {active} {plan}"], [str(active)])
            out = [_cmd("choose-plan", seat, plan=PLAN[plan])]
    elif verb in ("action", "invest"):
        out = [_cmd("choose-plan", seat, plan=PLAN[verb])]
    elif verb == "unload" and step == "unload":
        count = w.count(least=0)
        if w.rest:
            named = _port(t, w.take())
            here = t.ports[act.port] if act is not None and act.port >= 0 else _only_port(t, _active_zone(s))
            if mine and here and named != here:
                raise NotationError(f"the sailors go into {here}, not {named}", 0, 0, [here])
        out = [_cmd("unload", seat, sailors=count)]
    elif verb in ("load", "unload"):
        out = _transfer(s, seat, verb, w, a)
    elif verb == "buy":
        if w.word("galley"):
            number = w.number("a galley number")
            out = [_cmd("buy-galley", seat, galley=number, port=_port(t, w.take()))]
        else:
            count = w.count()
            good = _good(t, w.take()) if w.rest and _is(names(t).goods, w.rest[0]) else None
            port = _step_port(s, w.take(), goods=True) if w.rest else ""
            made = port or _only_port(t, _active_zone(s))
            if mine and good is not None and made and t.port_good[t.port_index[made]] != good:
                right = t.port_good[t.port_index[made]]
                raise NotationError(f"{made} produces {right}, not {good}: did you mean buy {right}?", 0, 0,
                                    [right], [right])
            out = [_cmd("buy-good", seat, **({"port": port} if port else {}))] * count
    elif verb == "toss":
        count = w.count()
        out = [_cmd("toss-good", seat, good=_good(t, w.take()))] * count
    elif verb == "sail":
        if not w.rest:
            raise NotationError("sail needs the zones, one by one (`sail ragusa corfu`)", 0, 0, list(names(t).zone_words))
        out = [_cmd("sail", seat, zone=_zone(t, w.take())) for _ in range(len(w.rest))]
    elif verb in ("blockade", "waive"):
        out = [_cmd("blockade", seat, declare=verb == "blockade")]
    elif verb == "sell":
        goods = []
        while w.rest and _is(names(t).goods, w.rest[0]):
            goods.append(_good(t, w.take()))
        if not goods:
            raise NotationError(f"sell needs the goods it sells ({', '.join(t.goods)})" +
                                (f", not {w.rest[0]!r}" if w.rest else ""), 0, 0, list(t.goods),
                                difflib.get_close_matches(str(w.rest[0]), list(t.goods), 2, 0.5) if w.rest else [])
        port = _step_port(s, w.take(), goods=True) if w.rest else ""
        out = [_cmd("sell", seat, good=g, **({"port": port} if port else {})) for g in goods]
    elif verb == "attack":
        target = w.take()
        if isinstance(target, int) and not isinstance(target, bool):
            out = [_cmd("attack-galley", seat, galley=target)]
        else:
            port = _step_port(s, target)
            out = [_cmd("attack-port", seat, **({"port": port} if port else {}))]
    elif verb == "claim":
        port = _step_port(s, w.take()) if w.rest else ""
        out = [_cmd("claim-port", seat, **({"port": port} if port else {}))]
    elif verb in ("again", "stop"):
        out = [_cmd("continue-battle", seat, go=verb == "again")]
    elif verb == "take":
        goods = [_good(t, w.take()) for _ in range(len(w.rest))]
        if not goods:
            raise NotationError("take needs the goods taken from the wreck", 0, 0, list(t.goods))
        out = [_cmd("capture", seat, good=g) for g in goods]
    elif verb == "recruit":
        count = w.count()
        if w.word("galley"):
            out = [_cmd("recruit-galley", seat, galley=w.number("a galley number"))] * count
        else:
            if not w.rest:
                raise NotationError("recruit needs a port (`recruit venezia`) or a galley (`recruit galley 12`)", 0, 0)
            out = [_cmd("recruit-port", seat, port=_port(t, w.take()))] * count
    elif verb in ("fort", "basilica"):
        out = [_cmd("build-" + verb, seat, port=_port(t, w.take()))]
    elif verb == "end":
        step_word = w.word(*END_WORDS)
        if step_word is None:
            raise NotationError(f"end takes loading, movement or capture, not {w.rest[0]!r}", 0, 0, list(END_WORDS),
                                difflib.get_close_matches(str(w.rest[0]).lower(), list(END_WORDS), 2, 0.5))
        out = [{"type": END_WORDS[step_word], "seat": seat}]
    else:  # pragma: no cover - every verb of VERBS is built above
        raise NotationError(f"{verb!r} is not a move of this game", 0, 0)
    w.done()
    return [dict(c) for c in out]


def _only_port(t: Tables, zone: str) -> str:
    here = t.zone_ports.get(zone, ())
    return t.ports[here[0]] if len(here) == 1 else ""


def _transfer(s: State, seat: int, verb: str, w: Reading, a: int) -> list[dict[str, Any]]:
    """`load` / `unload` in the loading step: sailors or goods between the active galley and a port or galley."""
    t = s.t
    count = w.count()
    good = _good(t, w.take()) if w.rest and _is(names(t).goods, w.rest[0]) else None
    link = w.word("from", "to")
    wanted = "from" if verb == "load" else "to"
    if link is not None and link != wanted:
        raise NotationError(f"{verb} takes {wanted} <galley>, not {link}", 0, 0, [wanted], [wanted])
    if link is not None:
        other = w.number("the other galley's number")
        source, target = (other, a) if verb == "load" else (a, other)
        if good is not None:
            return [_cmd("shift-good", seat, good=good, source=source, target=target)] * count
        return [_cmd("move-sailor", seat, source=source, target=target)] * count
    if good is not None:
        hint = f"buy {good}" if verb == "load" else f"toss {good}"
        raise NotationError(f"goods go {wanted} another galley ({verb} {good} {wanted} 6); from the port write {hint}",
                            0, 0, [wanted, hint])
    port = _step_port(s, w.take()) if w.rest else ""
    source, target = (0, a) if verb == "load" else (a, 0)
    return [_cmd("move-sailor", seat, source=source, target=target, **({"port": port} if port else {}))] * count


# ---- writing commands as moves ----------------------------------------------------------------------


def _port_word(s: State, command: Mapping[str, Any]) -> str:
    """The port a step goes through, as written: the one the command names, else its zone's only port."""
    return str(command.get("port") or _only_port(s.t, _active_zone(s)))


def _phrase(s: State, group: Sequence[Mapping[str, Any]]) -> str:
    """The words of a move standing for `group`: one command, or a run of the same kind (see `_joins`)."""
    c = group[0]
    kind = str(c["type"])[len(K):]
    n = len(group)
    many = f"{n} " if n > 1 else ""
    act = s.act
    a = act.galley if act is not None else 0
    if kind == "choose-plan":
        return f"galley {a} {'action' if c['plan'] == 'action' else 'invest'}"
    if kind == "move-sailor":
        source, target = int(c["source"]), int(c["target"])
        if source == a:
            where = f" to {target}" if target else _space(_port_word(s, c))
            return f"unload {many}".rstrip() + where
        where = f" from {source}" if source else _space(_port_word(s, c))
        return f"load {many}".rstrip() + where
    if kind == "shift-good":
        if int(c["source"]) == a:
            return f"unload {many}{c['good']} to {c['target']}"
        return f"load {many}{c['good']} from {c['source']}"
    if kind == "buy-good":
        port = _port_word(s, c)
        good = s.t.port_good[s.t.port_index[port]] if port else ""
        return f"buy {many}{good}".rstrip() + _space(str(c.get("port", "")))
    if kind == "toss-good":
        return f"toss {many}{c['good']}"
    if kind == "sail":
        return "sail " + " ".join(zone_word(s.t, str(x["zone"])) for x in group)
    if kind == "sell":
        return "sell " + " ".join(str(x["good"]) for x in group) + _space(_port_word(s, c))
    if kind in ("attack-port", "claim-port"):
        return ("attack" if kind == "attack-port" else "claim") + _space(_port_word(s, c))
    if kind == "capture":
        return "take " + " ".join(str(x["good"]) for x in group)
    if kind == "recruit-port":
        return f"recruit {many}{c['port']}"
    if kind == "recruit-galley":
        return f"recruit {many}galley {c['galley']}"
    return VOCABULARY.write(c)


def _space(word: str) -> str:
    return f" {word}" if word else ""


_REPEATS = frozenset(K + k for k in ("move-sailor", "shift-good", "buy-good", "toss-good", "recruit-port", "recruit-galley"))
_RUNS = frozenset(K + k for k in ("sail", "sell", "capture"))


def _joins(first: Mapping[str, Any], other: Mapping[str, Any]) -> bool:
    """Whether `other` is said by the same move as `first` (`load 3`, `sail a b`, `sell wine gold`)."""
    if first["type"] in _REPEATS:
        return dict(other) == dict(first)
    if first["type"] in _RUNS and other["type"] == first["type"]:
        return first["type"] != K + "sell" or other.get("port", "") == first.get("port", "")
    return False


def _said(text: str, seat: int) -> dict[str, Any]:
    """A written move read back as the vocabulary reads it (render's words are plain words and numbers)."""
    verb, *rest = text.split()
    return {"verb": verb, "seat": seat, "words": [int(x) if x.isdigit() else x for x in rest]}


def write(s: State, command: Mapping[str, Any]) -> str:
    """One command as a move in state `s` (the checker's alternatives)."""
    return _phrase(s, [command])


def write_line(states: Sequence[State], commands: Sequence[Mapping[str, Any]], met: Sequence[bool]
               ) -> list[tuple[int, str]]:
    """A line's commands as moves: runs of one kind joined, the ends of steps left out where the
    reader puts them back (checked here by reading each move back with `expand`)."""
    out: list[tuple[int, str]] = []
    m = len(commands)
    k = 0
    while k < m:
        seat = int(commands[k]["seat"])
        if commands[k]["type"] in ENDS:
            j = k
            while j < m and commands[j]["type"] in ENDS and not met[j]:
                j += 1
            if j == m and out and closing(states[k], seat) == [dict(c) for c in commands[k:]]:
                break  # the end of the line says them
            ends = closing(states[k], seat)
            if ends and [dict(c) for c in commands[k:k + len(ends)]] == ends and not any(met[k:k + len(ends) - 1]):
                out.append((k + len(ends) - 1, "end"))
                k += len(ends)
                continue
            if k < j < m:
                last, text = _group(states, commands, met, j)
                if expand(states[k], seat, _said(text, seat)) == [dict(c) for c in commands[k:last + 1]]:
                    out.append((last, text))
                    k = last + 1
                    continue
        last, text = _group(states, commands, met, k)
        out.append((last, text))
        k = last + 1
    return out


def _group(states: Sequence[State], commands: Sequence[Mapping[str, Any]], met: Sequence[bool], k: int
           ) -> tuple[int, str]:
    """The move that starts at command k: it takes the following commands it can say, up to one that met chance."""
    last = k
    while last + 1 < len(commands) and not met[last] and _joins(commands[k], commands[last + 1]):
        last += 1
    return last, _phrase(states[k], commands[k:last + 1])


# ---- what a finding shows -----------------------------------------------------------------------------


def held(s: State, seat: int) -> dict[str, Any]:
    """What the seat held, as its own view shows it: ducats, sailors left to recruit, its ports and galleys."""
    view = GAME.view(s, seat)
    mine = view["seats"][seat]
    return {
        "ducats": mine["ducats"],
        "sailors_to_recruit": mine["sailors_to_recruit"],
        "ports": {pid: {k: p[k] for k in ("sailors", "warehouse", "fort", "basilica")}
                  for pid, p in view["ports"].items() if p["owner"] == seat},
        "galleys": {n: {"zone": g["zone"], "sailors": g["sailors"], "goods": g["goods"]}
                    for n, g in view["galleys"].items() if g["owner"] == seat},
    }


def round_of(s: State) -> int | None:
    """The Doge turn a line is in (0 while the starting ports and galleys are chosen)."""
    return s.turn if s.players else None


def turn_starts(s: State) -> bool:
    """A galley's activation opens a new line (a player owning galleys 3 and 4 writes two lines)."""
    return who(s)[1] == "plan"


def markup_problems(notation: Notation, t: Tables | None = None) -> list[dict[str, Any]]:
    """Places named in comment markup (`[%cal venezia-ragusa]`, `[%csl corfu]`) that are no port or zone."""
    table = names(t or GAME.begin(GAME.default_edition()).t)
    comments = [*notation.comments, *(c for turn in notation.turns for m in turn.moves for c in m.comments)]
    out: list[dict[str, Any]] = []
    for comment in comments:
        for place in [p for pair in comment.markup.arrows for p in pair] + list(comment.markup.highlights):
            if _key(place) not in table.zones:
                near = difflib.get_close_matches(_key(place), sorted({*table.port_words, *table.zone_words}), n=2, cutoff=0.5)
                out.append({"line": comment.line, "place": place, "did_you_mean": near,
                            "message": f"line {comment.line}: {place!r} is no port or zone of the board"
                            + (f"; did you mean {' or '.join(near)}?" if near else "")})
    return out


def open_pool(source: str, seat: int) -> bool:
    """Which pools a seat's view shows (`view`): the setup's first player and the ports a good may close (all on the
    board). The Doge deck shows only how many cards are face down."""
    return source == "first-player" or source.startswith("closed:")


WORDS = Words(VOCABULARY, colours=COLOURS, held=held, round_of=round_of, turn_starts=turn_starts,
              seat_sources=("first-player",), open_pool=open_pool, expand=expand, write_line=write_line, write=write, skip_refused=True,
              whose=who, terms=terms, waiting=waiting, held_words=held_words, breakdown_words=breakdown_words,
              other_names=outcome_names)  # `whose`: the rules' `pending`
              # is `who` with the active galley added


# The decision panel's groups (kernel.choices): where to go or build, which galley, the plan, the cargo, a
# fight, and the ends of steps (passing on what is left).
_GROUPS = {
    "serenissima/choose-start": PLACES, "serenissima/sail": PLACES, "serenissima/claim-port": PLACES,
    "serenissima/recruit-port": PLACES, "serenissima/build-fort": PLACES, "serenissima/build-basilica": PLACES,
    "serenissima/choose-galley": "galleys", "serenissima/recruit-galley": "galleys", "serenissima/buy-galley": "galleys",
    "serenissima/choose-plan": "plans", "serenissima/move-sailor": "cargo", "serenissima/unload": "cargo",
    "serenissima/buy-good": "cargo", "serenissima/shift-good": "cargo", "serenissima/toss-good": "cargo",
    "serenissima/sell": "cargo", "serenissima/blockade": "battle", "serenissima/attack-galley": "battle",
    "serenissima/attack-port": "battle", "serenissima/continue-battle": "battle", "serenissima/capture": "battle",
    "serenissima/end-loading": PASS, "serenissima/end-movement": PASS, "serenissima/end-activation": PASS,
}


def _place(command: Mapping[str, Any]) -> str | None:
    """The port or sea zone a choice names, by the id the board drawing gives it (`alessandria`, `ligurian`)."""
    for field in ("port", "zone"):
        found = command.get(field)
        if isinstance(found, str) and found:
            return found
    return None


def choices(state: State, commands: Sequence[Mapping[str, Any]], names: Sequence[str]) -> list[Choice]:
    """The legal commands as the decision panel offers them (kernel.choices): the moves a line would write for
    each (`write`), ports and zones named as the board names them and tappable there."""
    return [choice_of(WORDS, state, c, names, _GROUPS.get(str(c.get("type")), ACTIONS), _place(c)) for c in commands]
