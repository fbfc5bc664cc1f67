"""Serenissima (2012): galleys, goods and ports of the 15th-century Mediterranean, for 2 to 4 players."""

from domain.serenissima.game import Serenissima

GAME = Serenissima()

__all__ = ["GAME", "Serenissima"]
