"""A malformed command is refused in words a person reads, for every catalogued title (kernel/commands.py)."""

from __future__ import annotations

from typing import Any

import pytest

from domain import catalog
from domain.kernel import MalformedCommand
from domain.kernel.commands import said
from domain.kernel.selfplay import play_random


@pytest.mark.parametrize("title", sorted(catalog.TITLES))
def test_a_malformed_command_is_refused_in_words_not_in_python(title: str) -> None:
    """The refusal a person reads names each field and what is wrong with it, never a dict or a list's repr."""
    game = catalog.game(title)
    played = play_random(game, game.default_edition(), {"players": 2}, "words")
    sent = dict(played.entries[1].command or {})  # a real command of the title, its seat spoilt, its other fields gone
    payloads: list[Any] = [{"seat": 0}, {"type": 5, "seat": 0}, {"type": f"{title}/no-such", "seat": 0},
                           {"type": sent["type"], "seat": "first"}]
    for payload in payloads:
        with pytest.raises(MalformedCommand) as refused:
            game.parse_command(payload)
        text = str(refused.value)
        assert not any(mark in text for mark in ("{'", "['", "']", "'}")), text
    assert "seat: not a valid integer" in text
    assert said({"seat": ["Not a valid integer."], "outcomes": {"0": {"values": ["Missing data for required field."]}}}) \
        == "seat: not a valid integer; outcomes.0.values: missing"
