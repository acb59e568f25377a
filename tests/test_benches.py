"""The tap benchmarks' plays go through: every tap of each game's deal is answered 200
as a phone sends it (bench/instructions.py counts their instructions under valgrind)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "instructions.py"


@pytest.fixture(scope="module")
def instructions():
    spec = importlib.util.spec_from_file_location("bench_instructions", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("game", ["szaman", "vezimas", "cowboy", "kvanta"])
def test_each_games_benchmark_deal_is_played_to_its_end(instructions, game):
    taps = instructions.games()[game][1]
    instructions.play(game, len(taps))  # SystemExit when a tap is refused


def test_the_pegs_benchmark_turns_replay_to_their_end(instructions, tmp_path):
    """The Pegs turns are recorded as a phone plays them, then replayed on a new table
    as bench/instructions.py replays them under valgrind: every tap answered 200."""
    import json

    first, last = instructions.PEGS_TURNS
    recorded = instructions.pegs_taps.turns(last)
    assert len(recorded) == 3 * last and recorded[-1]["tap_id"] == f"m{last - 1}"
    path = tmp_path / "turns.json"
    path.write_text(json.dumps(recorded))
    instructions.play_pegs(str(path), len(recorded))  # SystemExit when a tap is refused
