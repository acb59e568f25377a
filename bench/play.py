"""Play state: the engine's share of one tap, in-process — the whole log replayed and
the state written as JSON, as a tap's answer needs it — for every worked example in
tests/data/play/ and for a long Wyoming Cowboy deal (issue #20's target for a whole
tap is 2 ms of server CPU).

    python bench/play.py [--seconds 0.4]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scorekeeper.games.play import play, respond  # noqa: E402

PLAY_DATA = ROOT / "tests" / "data" / "play"
TARGET_MS = 2.0


def per_call_ms(fn, seconds: float) -> float:
    """Milliseconds per call of fn(), best of three timed slices."""
    best = float("inf")
    for _ in range(3):
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds / 3:
            fn()
            n += 1
        best = min(best, (time.perf_counter() - start) / n * 1000)
    return best


def long_cowboy_deal() -> dict:
    """Four players, every marriage shown, a hit and a dodge, then the end of the deal
    tapped in card by card: some 45 taps."""
    taps = [{"action": "marriage", "seat": s, "suit": suit} for s, suit in enumerate("SHDC")]
    for attacker, victim, king, turned in ((0, 1, "KS", "9H"), (2, 3, "KD", "8D")):
        taps += [
            {"action": "shoot", "attacker": attacker, "victim": victim, "gun": ["4C", "5C"]},
            {"action": "victim_holds", "seat": victim, "card": king},
            {"action": "turn", "seat": attacker, "card": turned},
            {"action": "shot_over"},
        ]
    taps.append({"action": "end", "seat": 2, "reason": "tens"})
    taps += [{"action": "lay", "seat": s, "card": f"10{suit}"} for s, suit in enumerate("SHDC")]
    taps += [{"action": "build", "seat": 2, "card": c} for c in ("2S", "2H", "3D", "8C")]
    spare = [f"{rank}{suit}" for suit in "SHDC" for rank in ("J", "Q", "9", "7", "6")]
    taps += [{"action": "hold", "seat": i % 4, "card": c} for i, c in enumerate(spare)]
    taps.append({"action": "hold", "seat": 0, "card": "KS"})  # the hit king went to Ana
    taps += [{"action": "hold", "seat": 3, "card": c} for c in ("KD", "AD")]  # Dara dodged
    return {
        "players": ["Ana", "Bojan", "Ceca", "Dara"],
        "taps": [{"id": f"t{i}", **tap} for i, tap in enumerate(taps)],
    }


def cases() -> list[tuple[str, str, dict]]:
    found = []
    for path in sorted(PLAY_DATA.glob("*.json")):
        case = json.loads(path.read_text())
        game = path.stem.split("-", 1)[0]
        if respond(game, json.dumps(case["request"]))[1] == 200:
            found.append((path.stem, game, case["request"]))
    found.append(("cowboy, a long deal", "cowboy", long_cowboy_deal()))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.4, help="timing per case")
    args = parser.parse_args()
    print(f"{'case':<34} {'taps':>5} {'replay+JSON ms':>15} {'JSON bytes':>11}")
    for name, game, request in cases():
        state = play(game, request)
        ms = per_call_ms(lambda g=game, r=request: json.dumps(play(g, r)), args.seconds)
        flag = "" if ms <= TARGET_MS else f"  over {TARGET_MS} ms"
        size = len(json.dumps(state, ensure_ascii=False).encode())
        print(f"{name:<34} {len(request['taps']):>5} {ms:>15.3f} {size:>11}{flag}")


if __name__ == "__main__":
    main()
