"""Città-Stato: the rules engine (2-5 players, with the 5-player expansion) on the game-agnostic kernel."""

from domain.citta_stato.game import GAME, CittaStato

__all__ = ["GAME", "CittaStato"]
