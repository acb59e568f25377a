"""A tap's cost in instructions, which do not vary with what else the host is doing
(its CPU time does, by a third on a busy machine): each game of ``bench/taps.py`` is
played in a fresh process under valgrind's callgrind twice, to its first few taps and
to its last, and the difference is divided by the taps between. The taps are sent as
``bench/taps.py`` sends them (CSRF token, the parts the phone keeps). Pegs and Jokers
plays the turns of ``bench/pegs_taps.py`` (recorded first, outside valgrind: a phone
reads its page to find each button), its moves counted apart from its card taps. Needs
valgrind (Debian's package ``valgrind``); a run takes about a minute per game.

    python bench/instructions.py [GAME ...]
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

import pegs_taps  # noqa: E402
import taps as bench  # noqa: E402
from phone import Phone  # noqa: E402

FROM_TAP = {"szaman": 2, "vezimas": 2, "cowboy": 2, "kvanta": 3}  # after the deal has begun
PEGS_TURNS = (4, 12)  # the turns between: every seat's peg is out, each moves 2 forward
COLLECTED = re.compile(r"Collected : (\d+)")


ABANDON = {"action": bench.ABANDON}


def games() -> dict[str, tuple[tuple[str, ...], list[dict]]]:
    return {
        "szaman": (bench.NAMES, bench.full_taps()),
        "vezimas": bench.example_taps("vezimas-played-out"),
        "cowboy": bench.example_taps("cowboy-tens"),
        # (round 1: its figures stay comparable with the earlier ones)
        "kvanta": (
            ("Ana", "Bojan", "Ceca"),
            bench.kvanta_taps()[: bench.kvanta_taps().index(ABANDON)],
        ),
    }


def play(game: str, count: int) -> None:
    """The table started, its page read, and its first ``count`` taps sent."""
    from scorekeeper.app import compile_templates, create_app

    players, taps = games()[game]
    folder = tempfile.mkdtemp()
    app = create_app({"TESTING": True, "DATABASE": f"{folder}/b.sqlite", "SECRET_KEY": "b"})
    compile_templates(app)  # as a server's worker does as it starts
    if game == "kvanta":
        app.config["DICE_RNG"] = bench.Dice([4, 5, 5, 3])
    client = app.test_client()
    token = bench.CSRF.search(client.get("/").get_data(as_text=True)).group(1)
    phone = {**bench.PHONE, "X-CSRFToken": token}
    data = {"game": game, "player": list(players), "submission_id": "bench"}
    url = client.post("/tables", data=data, headers=phone).headers["Location"]
    sent = []
    for number, tap in enumerate(taps[:count]):
        route = "roll" if tap["action"] in bench.ROLL_ROUTE.get(game, ()) else "tap"
        fields = {"tap_id": f"b{number}", "tap": json.dumps(tap), "v": str(number), "round": "1"}
        sent.append((f"{url}/{game}/{route}", fields))
    send(client, url, phone, sent)


def play_pegs(recorded: str, count: int) -> None:
    """The turns ``recorded`` (a JSON file of what each tap sent) replayed on a new table
    to the ``count``-th tap."""
    taps = json.loads(Path(recorded).read_text())
    _app, client, headers, url = pegs_taps.table()
    send(client, url, headers, [(f"{url}/pegs/tap", fields) for fields in taps[:count]])


def send(client, url: str, headers: dict, taps: list[tuple[str, dict]]) -> None:
    """Each tap (its route, its fields) posted as a phone posts it, naming the parts of
    its page it keeps (``phone.Phone``)."""
    page = Phone(client.get(url).get_data(as_text=True))
    for route, fields in taps:
        have = uncounted(page.have)
        response = client.post(route, data={**fields, "have": have}, headers=headers)
        if response.status_code != 200:
            raise SystemExit(f"{route} {fields['tap_id']} answered {response.status_code}")
        uncounted(lambda response=response: page.receive(bench.decoded(response).decode()))


def uncounted(work):
    """``work()``, the phone's (reading an answer, filling its holes, naming its parts),
    not the server's: valgrind is told to leave out what runs inside ``functools.reduce``
    (``--toggle-collect``), which the server never calls."""
    return functools.reduce(lambda _done, _next: work(), (0, 0))


def instructions(game: str, *args: str) -> int:
    """The instructions of a process that plays ``game`` (to its ``count``-th tap: see
    ``play`` and ``play_pegs`` for the arguments)."""
    done = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            # what runs inside functools.reduce is the phone's (``uncounted``)
            "--toggle-collect=functools_reduce",
            "--collect-atstart=yes",
            sys.executable,
            __file__,
            "--play",
            game,
            *args,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(COLLECTED.search(done.stderr).group(1))


def pegs() -> None:
    """Pegs and Jokers: a turn's card taps (its first two) and its move, apart: the card
    taps of the first turn measured, the move what the turns between cost besides."""
    first, last = PEGS_TURNS
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as out:
        json.dump(pegs_taps.turns(last), out)
    try:
        begun = instructions("pegs", out.name, str(3 * first))
        carded = instructions("pegs", out.name, str(3 * first + 2))
        ended = instructions("pegs", out.name, str(3 * last))
    finally:
        Path(out.name).unlink()
    cards, turn = carded - begun, (ended - begun) / (last - first)
    # a turn's whole is steady; how it splits between its taps moves with what one tap
    # draws that the next finds drawn (the split is one turn's)
    print(f"  pegs     turns {first + 1}–{last}: {turn / 1e6:.2f} M a turn of 3 taps"
          f" (card taps {cards / 2 / 1e6:.2f} M a tap, the move {(turn - cards) / 1e6:.2f} M)")  # fmt: skip


def main(names: list[str]) -> None:
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt install valgrind)")
    print("Instructions per tap (callgrind; the same on a busy host)")
    for game in names or [*games(), "pegs"]:
        if game == "pegs":
            pegs()
            continue
        first, last = FROM_TAP[game], len(games()[game][1])
        spent = instructions(game, str(last)) - instructions(game, str(first))
        print(f"  {game:8} taps {first + 1}–{last}: {spent / (last - first) / 1e6:.2f} M a tap")


if __name__ == "__main__":
    if sys.argv[1:3] == ["--play", "pegs"]:
        play_pegs(sys.argv[3], int(sys.argv[4]), *sys.argv[5:])
    elif sys.argv[1:2] == ["--play"]:
        play(sys.argv[2], int(sys.argv[3]))
    else:
        main(sys.argv[1:])
