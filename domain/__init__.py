"""Cronaca's domain: pure rules, no I/O below `kernel` and the game packages."""
