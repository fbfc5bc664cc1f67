"""Serenissima's board read aloud: what a screen reader says of one step's board, in the game's words.

`board(view, edition, names)` reads the same reader's view the picture is drawn from (replay_viewer/boards),
so it says no more than the picture: with hidden money another seat's ducats are hidden. One sentence for the
round and the Doge track, one per player, one per galley at sea, one per port that is owned, garrisoned or
stocked, then the neutral and closed ports and the goods in the supply.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from domain.kernel.aloud import count, is_hidden, listed, part
from domain.kernel.describe import name_of
from domain.kernel.editions import Edition


def _goods(goods: Any) -> str:
    if not isinstance(goods, list):
        return "goods hidden"
    return listed((f"{n} {good}" for good, n in sorted(Counter(str(g) for g in goods).items())), "no goods")


def _seat(s: Mapping[str, Any], names: Sequence[str]) -> str:
    ducats = s.get("ducats")
    money = "ducats hidden" if ducats is None or is_hidden(ducats) else count(ducats, "ducat")
    galleys = [str(g) for g in s.get("galleys") or []]
    return (f"{name_of(names, s.get('seat'))}: {money}, {count(s.get('sailors_to_recruit'), 'sailor')} to recruit; "
            f"ports {listed((str(p) for p in s.get('ports') or []), 'none')}; "
            f"galleys {listed(galleys, 'none')}.")


def _port(p: Mapping[str, Any], names: Sequence[str]) -> str:
    owner = p.get("owner")
    whose = f"{name_of(names, owner)}'s" if isinstance(owner, int) else "neutral"
    goods = p.get("warehouse")
    parts = [count(p.get("sailors"), "sailor"), f"warehouse {_goods(goods)}" if goods else "empty warehouse"]
    parts += [w for w, on in (("fort", p.get("fort")), ("basilica", p.get("basilica")), ("closed", p.get("closed"))) if on]
    return f"{p.get('name')} ({whose}, {p.get('zone')}, produces {p.get('produces')}): {', '.join(parts)}."


def board(view: Mapping[str, Any], edition: Edition, names: Sequence[str]) -> list[str]:
    """Sentences for one step's board as this reader may see it."""
    pending = part(view, "pending")
    to_play = (f"; {name_of(names, pending['seat'])} to play ({str(pending.get('kind', '')).replace('_', ' ')})"
               if isinstance(pending.get("seat"), int) else "")
    doge = part(view, "doge")
    out = [f"Round {view.get('round')}, turn {view.get('turn')}{to_play}. Doge track at {doge.get('track')} of "
           f"{doge.get('last_space')}, scoring at {listed(str(x) for x in doge.get('scoring_spaces') or [])}."]
    out.extend(_seat(s, names) for s in view.get("seats") or [] if isinstance(s, Mapping))
    galleys = part(view, "galleys")
    for number, g in sorted(galleys.items(), key=lambda item: int(item[0]) if str(item[0]).isdigit() else 0):
        if not isinstance(g, Mapping) or is_hidden(g):
            out.append(f"Galley {number}: hidden.")
            continue
        out.append(f"{name_of(names, g.get('owner'))}'s galley {number} in the {g.get('zone')}: "
                   f"{count(g.get('sailors'), 'sailor')}, {_goods(g.get('goods'))}.")
    ports = [p for p in (view.get("ports") or {}).values() if isinstance(p, Mapping) and not is_hidden(p)]
    busy = [p for p in ports if isinstance(p.get("owner"), int) or p.get("sailors") or p.get("warehouse")
            or p.get("fort") or p.get("basilica")]
    out.extend(_port(p, names) for p in busy)
    quiet = [p for p in ports if p not in busy]
    if quiet:
        out.append("Neutral and empty: " + listed(f"{p.get('name')} ({p.get('produces')}"
                                                  + (", closed)" if p.get("closed") else ")") for p in quiet) + ".")
    supply = part(view, "goods_supply")
    out.append("Goods in the supply: " + listed(f"{n} {good}" for good, n in supply.items()) + ".")
    return out
