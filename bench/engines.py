"""Rules engines: evaluations per second in-process for every kind, the targets
of the issues next to them, and the CLI's cold start.

    python bench/engines.py [--seconds 0.4]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scorekeeper import api  # noqa: E402
from scorekeeper.cards import deck_with_jokers, multi_deck  # noqa: E402
from scorekeeper.games import poker, szaman  # noqa: E402

EXAMPLES = ROOT / "tests" / "data" / "examples"


def rate(fn, seconds: float) -> float:
    """Calls per second of fn(), best of three timed slices."""
    best = 0.0
    for _ in range(3):
        n = 0
        start = time.perf_counter()
        deadline = start + seconds / 3
        while True:
            for _ in range(20):
                fn()
            n += 20
            now = time.perf_counter()
            if now >= deadline:
                break
        best = max(best, n / (now - start))
    return best


def valid_examples(kind: str) -> list[dict]:
    path = EXAMPLES / f"{kind}.json"
    if not path.exists():
        return []
    return [case["request"] for case in json.loads(path.read_text()) if "response" in case]


def szaman_full_deal(seed: int = 7) -> dict:
    """A legal classic 4-player deal of 8 full tricks: follow suit when able, the
    winner draws from the stock, the deal ends when someone runs out (S-D3)."""
    rng = random.Random(seed)
    while True:
        deck = [c for c in deck_with_jokers() if not c.is_joker]
        rng.shuffle(deck)
        players = ["Ola", "Piotr", "Zosia", "Kuba"]
        hands = {p: [deck.pop() for _ in range(8)] for p in players}
        leader = szaman.first_leader(hands)
        tricks = []
        while True:
            order = players[players.index(leader) :] + players[: players.index(leader)]
            plays = []
            led = None
            for p in order:
                hand = hands[p]
                same = [c for c in hand if led and c.suit == led]
                card = min(same or hand)
                hand.remove(card)
                led = led or card.suit
                plays.append([p, str(card)])
            leader = szaman.trick_winner(plays)
            tricks.append({"plays": plays})
            if any(not h for h in hands.values()):
                break
            if deck:
                hands[leader].append(deck.pop())
        if len(tricks) == 8:
            left = {p: [str(c) for c in h] for p, h in hands.items()}
            return {"players": players, "variant": "classic", "tricks": tricks, "left": left}


def row(label: str, per_second: float, target: str = "") -> None:
    print(f"  {label:<44} {per_second:>10,.0f}/s  {target}")


def engines(seconds: float) -> None:
    print("Engines, in-process (api.evaluate, full request → response)")
    for kind in api.KINDS:
        requests = valid_examples(kind)
        if not requests:
            continue
        cycle = iter(())

        def one(kind=kind, requests=requests):
            nonlocal cycle
            try:
                req = next(cycle)
            except StopIteration:
                cycle = iter(requests)
                req = next(cycle)
            api.evaluate(kind, req)

        target = "(target ≥ 5,000/s)" if kind == "cowboy-deal" else ""
        row(f"{kind} ({len(requests)} examples)", rate(one, seconds), target)

    deal = szaman_full_deal()
    api.evaluate("szaman-deal", deal)
    row(
        "szaman-deal, 4 players, 8 full tricks",
        rate(lambda: api.evaluate("szaman-deal", deal), seconds),
        "(target ≥ 5,000/s)",
    )

    rng = random.Random(3)
    pack = multi_deck(3)
    hands = [rng.sample(pack, 7) for _ in range(500)]
    it = iter(())

    def best_of_seven():
        nonlocal it
        try:
            cards = next(it)
        except StopIteration:
            it = iter(hands)
            cards = next(it)
        poker.best_hand(cards)

    row("poker best-of-7 (3 decks, with K-D8)", rate(best_of_seven, seconds), "(target ≥ 20,000/s)")


def pegs(seconds: float) -> None:
    bench = ROOT / "bench" / "pegs_moves.py"
    if bench.exists():
        print()
        subprocess.run([sys.executable, str(bench)], check=False)


def cli_cold_start() -> None:
    exe = shutil.which("scorekeeper") or str(Path(sys.executable).parent / "scorekeeper")
    request = json.dumps({"players": ["Ana", "Bojan"], "points": {"Ana": 3}})
    times = []
    for _ in range(7):
        start = time.perf_counter()
        subprocess.run(
            [exe, "score", "manual-points"],
            input=request,
            text=True,
            capture_output=True,
            check=True,
        )
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    print(
        f"\nCLI cold start, `scorekeeper score manual-points`: median {median * 1000:.0f} ms "
        f"(target < 500 ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=0.6, help="timing per kind")
    args = parser.parse_args()
    engines(args.seconds)
    pegs(args.seconds)
    cli_cold_start()


if __name__ == "__main__":
    main()
