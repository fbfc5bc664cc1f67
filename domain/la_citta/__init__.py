"""La Città: the rules engine for 2-5 players on the hex-lane board."""

from domain.la_citta.game import GAME, LaCitta

__all__ = ["GAME", "LaCitta"]
