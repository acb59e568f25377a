"""Kvanta's dice (RULES §3): fair six-sided dice from secrets.SystemRandom in
production, an injected RNG (anything with ``randrange``) in tests."""

from __future__ import annotations

import doctest
import itertools
import random
import secrets
from collections import Counter

import pytest

from scorekeeper import dice

ROLLS = 60_000
CHI2_5_DOF_P001 = 20.515  # critical value, 5 degrees of freedom, p = 0.001
CHI2_15_DOF_P001 = 37.697  # critical value, 15 degrees of freedom, p = 0.001


def chi_square(observed: Counter, expected: dict) -> float:
    return sum((observed.get(k, 0) - e) ** 2 / e for k, e in expected.items())


def uniform(n: int) -> dict:
    return {face: n / 6 for face in range(1, 7)}


class Scripted:
    """A fake RNG that answers randrange with the given faces, recording the calls."""

    def __init__(self, faces):
        self.faces = iter(faces)
        self.calls = []

    def randrange(self, start, stop):
        self.calls.append((start, stop))
        return next(self.faces)


def test_target_dice_are_uniform_chi_square():
    rng = random.Random(20240501)
    rolls = [dice.roll_kvanta_target(rng) for _ in range(ROLLS)]
    for position in range(3):
        counts = Counter(r["dice"][position] for r in rolls)
        assert set(counts) == set(range(1, 7))  # no face missing, none outside 1..6
        assert chi_square(counts, uniform(ROLLS)) < CHI2_5_DOF_P001


def test_target_totals_follow_the_three_dice_distribution():
    rng = random.Random(77)
    totals = Counter(dice.roll_kvanta_target(rng)["target"] for _ in range(ROLLS))
    ways = Counter(sum(faces) for faces in itertools.product(range(1, 7), repeat=3))
    expected = {total: ROLLS * n / 216 for total, n in ways.items()}
    assert set(totals) == set(range(3, 19))
    assert chi_square(totals, expected) < CHI2_15_DOF_P001


def test_exchange_die_is_uniform_chi_square():
    rng = random.Random(4242)
    counts = Counter(dice.roll_kvanta_exchange(rng)["die"] for _ in range(ROLLS))
    assert set(counts) == set(range(1, 7))
    assert chi_square(counts, uniform(ROLLS)) < CHI2_5_DOF_P001


def test_target_is_the_sum_of_the_three_dice():
    got = dice.roll_kvanta_target(Scripted([6, 1, 4]))
    assert got == {"dice": [6, 1, 4], "target": 11}
    assert dice.roll_kvanta_target(Scripted([1, 1, 1]))["target"] == 3
    assert dice.roll_kvanta_target(Scripted([6, 6, 6]))["target"] == 18


def test_exchange_six_is_flux_and_nothing_else_is():
    for face in range(1, 7):
        assert dice.roll_kvanta_exchange(Scripted([face])) == {"die": face, "flux": face == 6}


def test_each_die_asks_for_a_face_from_1_to_6_no_off_by_one():
    rng = Scripted([2, 3, 4, 5])
    dice.roll_kvanta_target(rng)
    dice.roll_kvanta_exchange(rng)
    assert rng.calls == [(1, 7)] * 4  # randrange(1, 7) is 1..6 inclusive


@pytest.mark.parametrize("bad", [0, 7, -1, 2.5, None, True])
def test_a_broken_rng_cannot_produce_an_impossible_roll(bad):
    with pytest.raises(ValueError):
        dice.roll_kvanta_exchange(Scripted([bad]))


def test_production_roller_is_secrets_system_random():
    assert isinstance(dice.SYSTEM_RNG, secrets.SystemRandom)
    assert type(dice.SYSTEM_RNG) is secrets.SystemRandom
    assert dice.Roller().rng is dice.SYSTEM_RNG


def test_rolls_without_an_rng_draw_from_system_random(monkeypatch):
    calls = []
    real = dice.SYSTEM_RNG.randrange

    def spy(start, stop):
        calls.append((start, stop))
        return real(start, stop)

    monkeypatch.setattr(dice.SYSTEM_RNG, "randrange", spy)
    got = dice.roll_kvanta_target()
    assert 3 <= got["target"] <= 18 and got["target"] == sum(got["dice"])
    assert 1 <= dice.roll_kvanta_exchange()["die"] <= 6
    assert calls == [(1, 7)] * 4


def test_a_seeded_rng_repeats_its_rolls():
    a = [dice.roll_kvanta_target(random.Random(5)) for _ in range(3)]
    b = [dice.Roller(random.Random(5)).target() for _ in range(3)]
    assert a == b


def test_docstrings():
    assert doctest.testmod(dice).failed == 0
