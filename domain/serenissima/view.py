"""`view(state, seat)`: the table as one seat may see it, laid out for a person reviewing the game.

Everything on the board is public; with hidden money a seat sees only its own ducats (and
everyone's announced ducats) until the game is over, when all is counted out.
"""

from __future__ import annotations

from typing import Any

from domain.serenissima import rules
from domain.serenissima.state import NEUTRAL, State


def view(state: State, seat: int | None) -> dict[str, Any]:
    """The table as a reviewer reads it; with hidden money a seat sees only its own ducats."""
    return _table(state, seat, rules.pending(state).to_json())


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
