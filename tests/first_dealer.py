"""The first dealer the tests' tables are started with."""

from __future__ import annotations


def default_first_dealer(game: str, players: int) -> str:
    """The seat the start form names as first dealer: the last one for Arizona Pegs and
    Jokers, so that seat 0, on the dealer's left, plays first (RULES §5), as the Pegs
    tests play from seat 0; the first seat for the other games."""
    return str(players - 1) if game == "pegs" else "0"
