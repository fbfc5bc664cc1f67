"""Serenissima as a Game: the contract's queries over the rules and the fold."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.kernel import Chance, Command, Edition, Event, Pending, RuleViolation, pending
from domain.serenissima import commands as cm
from domain.serenissima import rules
from domain.serenissima.edition import default_edition, load_edition
from domain.serenissima.state import NEUTRAL, State, begin, evolve


class Serenissima:
    title = "serenissima"
    seats = (2, 4)

    def default_edition(self) -> Edition:
        return default_edition()

    def load_edition(self, raw: bytes, source: str = "<edition>") -> Edition:
        return load_edition(raw, source)

    def begin(self, edition: Edition) -> State:
        return begin(edition)

    def setup(self, edition: Edition, options: Mapping[str, Any], chance: Chance) -> list[Event]:
        return rules.setup(begin(edition), options, chance)

    def parse_command(self, payload: Mapping[str, Any]) -> Command:
        return cm.BOOK.parse(payload)

    # The hot paths of validation, bound directly (no extra call per event). `play` folds each
    # event once: `decide` already folds the automatic steps that follow a galley's activation.
    decide = staticmethod(rules.decide)
    play = staticmethod(rules.play)
    evolve = staticmethod(evolve)

    def pending(self, state: State) -> Pending:
        seat, kind = rules.who(state)
        act = state.act
        if seat is not None and act is not None and kind != "special-investment":
            return pending(seat, kind, galley=act.galley, active_seat=act.seat)
        return pending(seat, kind)

    def legal(self, state: State) -> list[Command]:
        seat, kind = rules.who(state)
        if seat is None:
            return []
        out = []
        for c in _candidates(state, seat, kind):
            try:
                rules.VALIDATORS[type(c)](state, c)
            except RuleViolation:
                continue
            out.append(c)
        return out

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """The table as a reviewer reads it; with hidden money a seat sees only its own ducats."""
        return _table(state, seat, self.pending(state).to_json())

    def scores(self, state: State) -> dict[str, Any]:
        """Ducats decide the game. With hidden money, running scores show only what was announced."""
        over = state.phase == "over"
        secret = state.hidden_money and not over
        ducats = state.announced if secret else state.money
        if over:
            ranking = list(state.ranking)
        elif secret:
            ranking = sorted(range(state.players), key=lambda seat: (-ducats[seat], -rules.ports_of(state, seat), seat))
        else:
            ranking = list(rules.ranking(state)) if state.players else []
        return {
            "finished": over,
            "ranking": ranking,
            "seats": [
                {
                    "seat": seat,
                    "total": ducats[seat],
                    "breakdown": {
                        "ducats": "hidden" if secret else ducats[seat],
                        "announced": state.announced[seat],
                        "port_cards": rules.ports_of(state, seat),
                        "galleys": rules.galleys_of(state, seat),
                    },
                }
                for seat in range(state.players)
            ],
        }


_PHASES = {"setup": "setup", "turn": "turn", "special": "special investment", "over": "game over"}

# What the active galley is doing, by activation stage (the two settling stages included).
_STEPS = {**rules.STAGE_KIND, "opening": "battle opening", "ending": "ending"}


def _table(s: State, seat: int | None, waiting: dict[str, Any]) -> dict[str, Any]:
    t = s.t
    n = s.players
    visible = not s.hidden_money or s.phase == "over"  # hidden money is counted out at the end
    ducats = [m if visible or seat is None or seat == i else None for i, m in enumerate(s.money)]
    return {
        "round": s.turn,  # the Doge turn; 0 until the first turn starts
        "phase": _PHASES[s.phase] if n else "before setup",
        "players": n,
        "first_player": s.first if n else None,
        "turn": s.turn,
        "black_token": f"galley {s.wheel}" if s.wheel else "Doge space",
        "doge": {
            "track": s.track,
            "last_space": t.track_last,
            "scoring_spaces": list(t.per_players[n]["scoring_spaces"]) if n else [],
            "scorings": s.scorings,
            "face_up": list(s.discard),
            "face_down": len(rules.doge_deck(s)) if n else 0,
        },
        "money": "hidden" if s.hidden_money else "visible",
        "ducats": ducats,
        "announced_ducats": list(s.announced),
        "seats": [
            {
                "seat": i,
                "ducats": ducats[i],
                "announced_ducats": s.announced[i],
                "sailors_to_recruit": s.supply[i],
                "ports": [t.port_name[k] for k, p in enumerate(s.ports) if p.owner == i],
                "galleys": [number for number, g in enumerate(s.galleys) if g is not None and g.owner == i],
            }
            for i in range(n)
        ],
        "goods_supply": dict(zip(t.goods, s.goods, strict=True)) if n else {},
        "active_galley": _activation(s),
        "galleys": {
            str(number): {"owner": g.owner, "zone": t.zone_name[g.zone], "sailors": g.sailors, "goods": list(g.goods)}
            for number, g in enumerate(s.galleys)
            if g is not None
        },
        "ports": {
            pid: {
                "name": t.port_name[i],
                "zone": t.zone_name[t.port_zone[i]],
                "produces": t.port_good[i],
                "owner": None if p.owner == NEUTRAL else p.owner,
                "sailors": p.sailors,
                "warehouse": list(p.warehouse),
                "spaces": t.port_size[i],
                "fort": p.fort,
                "basilica": p.basilica,
                "closed": p.closed,
                "wine_side": rules.wine_side(s, i),
            }
            for i, (pid, p) in enumerate(zip(t.ports, s.ports, strict=True))
        }
        if n
        else {},
        "pending": waiting,
    }


def _activation(s: State) -> dict[str, Any] | None:
    """The galley under the black token and what it is doing; only the facts of its current step."""
    act = s.act
    if act is None:
        return None
    t = s.t
    out: dict[str, Any] = {
        "galley": act.galley,
        "owner": act.seat,
        "step": _STEPS[act.stage],
        "sunk": s.galleys[act.galley] is None,
        "started_in": t.zone_name[act.start_zone],
        "zones_moved": act.moves_made,
    }
    if act.stage == "movement":
        out["moves_left"] = act.moves_left
    if act.value >= 0:
        out["first_combat_value"] = act.value
    if act.foe_galley:
        out["fighting"] = f"galley {act.foe_galley}"
    elif act.foe_port != NEUTRAL and act.stage in ("opening", "battle", "unload"):
        out["fighting"] = t.port_name[act.foe_port]
    if act.stage == "blockade":
        out["blockade_of"] = {"move": "movement", "sale": f"sale of {act.pending_good}", "claim": "port claim"}.get(act.intent, act.intent)
        out["still_to_decide"] = list(act.asked)
    if act.blocker != NEUTRAL:
        out["blockaded_by"] = act.blocker
    if act.port != NEUTRAL:
        out["port"] = t.port_name[act.port]  # named in a zone with several ports
    if act.stage == "capture":
        out["wreck_goods"] = list(act.loot)
        out["capturing_galley"] = act.capturer
    return out


def _port_names(s: State, zone: str) -> list[str]:
    """What a port-naming command may say: nothing where the zone has one port, else each port (ambiguity 30)."""
    here = s.t.zone_ports[zone]
    return [s.t.ports[i] for i in here] if len(here) > 1 else [""]


def _candidates(s: State, seat: int, kind: str) -> Sequence[Command]:
    t = s.t
    free = [n for n in range(1, len(s.galleys)) if s.galleys[n] is None]
    if kind == "choose-start":
        return [cm.ChooseStart(seat, t.ports[i], n) for i in range(len(t.ports)) if t.port_starting[i] for n in free]
    if kind == "choose-galley":
        return [cm.ChooseGalley(seat, n) for n in free]
    if kind in ("investment", "special-investment"):
        owned = [t.ports[i] for i, p in enumerate(s.ports) if p.owner == seat]
        mine = [n for n, g in enumerate(s.galleys) if g is not None and g.owner == seat]
        out: list[Command] = [cm.RecruitPort(seat, p) for p in owned]
        out += [cm.RecruitGalley(seat, n) for n in mine]
        out += [cm.BuyGalley(seat, n, p) for n in free for p in owned]
        if kind == "investment":
            out += [cm.BuildFort(seat, p) for p in owned] + [cm.BuildBasilica(seat, p) for p in owned]
        return [*out, cm.EndInvestment(seat)]
    act = s.act
    assert act is not None
    if kind == "plan":
        return [cm.ChoosePlan(seat, "action"), cm.ChoosePlan(seat, "investment")]
    if kind == "blockade":
        return [cm.Blockade(seat, True), cm.Blockade(seat, False)]
    if kind == "battle":
        return [cm.ContinueBattle(seat, True), cm.ContinueBattle(seat, False)]
    if kind == "capture":
        cap = s.galleys[act.capturer]
        assert cap is not None
        return [cm.Capture(seat, g) for g in sorted(set(act.loot))] + [cm.TossGood(seat, g) for g in sorted(set(cap.goods))] + [cm.EndCapture(seat)]
    a = act.galley
    g = s.galleys[a]
    assert g is not None
    named = _port_names(s, g.zone)
    if kind == "loading":
        others = [n for n, x in enumerate(s.galleys) if x is not None and n != a and x.owner == seat and x.zone == g.zone]
        out = [c for p in named for c in (cm.MoveSailor(seat, 0, a, p), cm.MoveSailor(seat, a, 0, p))]
        for n in others:
            out += [cm.MoveSailor(seat, n, a), cm.MoveSailor(seat, a, n)]
            o = s.galleys[n]
            assert o is not None
            out += [cm.ShiftGood(seat, good, a, n) for good in sorted(set(g.goods))]
            out += [cm.ShiftGood(seat, good, n, a) for good in sorted(set(o.goods))]
        out += [cm.BuyGood(seat, p) for p in named] + [cm.TossGood(seat, good) for good in sorted(set(g.goods))]
        return [*out, cm.EndLoading(seat)]
    if kind == "movement":
        return [cm.Sail(seat, z) for z in t.neighbours[g.zone]] + [cm.EndMovement(seat)]
    if kind == "sale-or-battle":
        foes = [n for n, x in enumerate(s.galleys) if x is not None and x.owner != seat and x.zone == g.zone]
        out = [cm.Sell(seat, good, p) for good in sorted(set(g.goods)) for p in named]
        out += [cm.AttackGalley(seat, n) for n in foes]
        out += [c for p in named for c in (cm.AttackPort(seat, p), cm.ClaimPort(seat, p))]
        return [*out, cm.EndActivation(seat)]
    if kind == "unload":
        low, high = rules.unload_range(s)
        return [cm.Unload(seat, k) for k in range(low, high + 1)]
    return []
