"""Pegs and Jokers: ``pegs-moves`` timed in-process (``api.evaluate``, full request →
response) on every board of ``bench/pegs-boards.json``, each median next to its target,
and each move count checked against the one the file gives (RULES.md §5 decides).

    python bench/pegs_moves.py [--repeats 25]

Targets: the worst 7 (8 seats, all 40 pegs on the track) ≤ 20 ms, any board ≤ 50 ms,
the typical 4-seat board ≤ 1 ms. Another bench script can ``run()`` it and use the rows.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scorekeeper import api  # noqa: E402
from scorekeeper.cards import parse_card  # noqa: E402

BOARDS = Path(__file__).resolve().parent / "pegs-boards.json"


def target_ms(request: dict) -> float:
    """≤ 1 ms on the typical 4-seat board, ≤ 20 ms for a 7 on a full 8-seat board,
    ≤ 50 ms for anything else there (the 9s, the joker, the 8)."""
    if request["seats"] == 4:
        return 1.0
    if request.get("card") and parse_card(request["card"]).rank == 7:
        return 20.0
    return 50.0


def time_once(request: dict) -> tuple[float, float, int]:
    """Wall and CPU milliseconds of one full evaluation, and the moves it listed."""
    wall, cpu = time.perf_counter(), time.process_time()
    moves = len(api.evaluate("pegs-moves", request)["moves"])
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000, moves


def run(repeats: int = 25, boards: Path = BOARDS) -> list[dict]:
    """One row per board: name, moves listed and expected, median/min wall ms, median CPU
    ms, target ms, and whether the median meets the target and the count matches."""
    rows = []
    for case in json.loads(boards.read_text()):
        request = case["request"]
        time_once(request)  # warm-up: imports, caches
        walls, cpus = [], []
        for _ in range(repeats):
            wall, cpu, moves = time_once(request)
            walls.append(wall)
            cpus.append(cpu)
        median = statistics.median(walls)
        target = target_ms(request)
        rows.append(
            {
                "name": case["name"],
                "moves": moves,
                "expected_moves": case.get("legal_moves"),
                "median_ms": round(median, 3),
                "min_ms": round(min(walls), 3),
                "cpu_median_ms": round(statistics.median(cpus), 3),
                "target_ms": target,
                "fast_enough": median <= target,
                "count_ok": case.get("legal_moves") in (None, moves),
            }
        )
    return rows


def print_table(rows: list[dict]) -> None:
    print(f"{'board':<62} {'moves':>11} {'median':>9} {'min':>8} {'cpu':>8} {'target':>8}")
    for row in rows:
        expected = row["expected_moves"]
        count = f"{row['moves']}" + ("" if row["count_ok"] else f"≠{expected}")
        verdict = "ok" if row["fast_enough"] else "SLOW"
        print(
            f"{row['name']:<62} {count:>11} {row['median_ms']:>7.2f}ms {row['min_ms']:>6.2f}ms "
            f"{row['cpu_median_ms']:>6.2f}ms {'≤':>2}{row['target_ms']:>4g}ms {verdict}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=25)
    args = parser.parse_args(argv)
    rows = run(args.repeats)
    print_table(rows)
    return 0 if all(row["count_ok"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
