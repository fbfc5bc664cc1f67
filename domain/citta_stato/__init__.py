"""Città-Stato: the rules engine (2-5 players, with the 5-player expansion, and the solo mode) on the game-agnostic kernel."""

from domain.citta_stato.game import GAME, CittaStato
from domain.citta_stato.solo import next_game

__all__ = ["GAME", "CittaStato", "next_game"]
