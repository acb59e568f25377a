"""Six-sided dice for Kvanta (RULES §3): three dice set the target, the distinguishable
exchange die says how many cards to exchange, a 6 being Flux.

Production rolls come from ``secrets.SystemRandom()`` (the operating system's
randomness, so no seed can be guessed). Tests inject their own RNG: any object with
a ``randrange(start, stop)`` method, e.g. ``random.Random(seed)``. Only
``randrange`` is used: CPython draws it by rejection sampling, so every face is
exactly equally likely (no modulo bias). This module stores nothing; the caller
records each roll.

>>> import random
>>> roll_kvanta_target(random.Random(7))["target"] in range(3, 19)
True
"""

from __future__ import annotations

import secrets
from typing import Protocol

FACES = 6
TARGET_DICE = 3
FLUX_FACE = 6

SYSTEM_RNG = secrets.SystemRandom()


class RandRange(Protocol):
    def randrange(self, start: int, stop: int) -> int: ...


class Roller:
    """Rolls dice with one RNG: ``secrets.SystemRandom()`` unless one is given."""

    def __init__(self, rng: RandRange | None = None):
        self.rng = SYSTEM_RNG if rng is None else rng

    def die(self) -> int:
        """One six-sided die, 1..6."""
        face = self.rng.randrange(1, FACES + 1)
        if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= FACES:
            # a broken injected RNG must never produce an impossible roll
            raise ValueError(f"the RNG gave {face!r}, not a face from 1 to {FACES}")
        return face

    def target(self) -> dict:
        """Three dice: their total (3..18) is the round's target."""
        dice = [self.die() for _ in range(TARGET_DICE)]
        return {"dice": dice, "target": sum(dice)}

    def exchange(self) -> dict:
        """The exchange die: 1..5 cards to exchange, or 6 = Flux."""
        face = self.die()
        return {"die": face, "flux": face == FLUX_FACE}


def roll_kvanta_target(rng: RandRange | None = None) -> dict:
    """``{"dice": [a, b, c], "target": a + b + c}``."""
    return Roller(rng).target()


def roll_kvanta_exchange(rng: RandRange | None = None) -> dict:
    """``{"die": n, "flux": n == 6}``."""
    return Roller(rng).exchange()


__all__ = ["SYSTEM_RNG", "Roller", "roll_kvanta_exchange", "roll_kvanta_target"]
