"""A Pegs and Jokers turn on its screen, whole, in-process: a card tap (the draft only,
answered with the panel) and the move that follows (stored as an entry, answered with
the table's fragments). Prints the SQL statements each runs (sqlite3's trace callback)
and its server CPU (``time.process_time`` over the WSGI call, the answer's body made).
Issue #20's target for a tap: at most 6 statements and 2 ms.

    python bench/pegs_taps.py
"""

from __future__ import annotations

import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scorekeeper import create_app  # noqa: E402
from scorekeeper.web import tables  # noqa: E402

TURNS = 24
HX = {"HX-Request": "true"}


def main() -> None:
    folder = tempfile.mkdtemp()
    app = create_app({"TESTING": True, "DATABASE": f"{folder}/bench.sqlite", "SECRET_KEY": "b"})
    app.config["WTF_CSRF_ENABLED"] = False
    served: list[float] = []
    inner = app.wsgi_app

    def timed(environ, start_response):
        began = time.process_time()
        body = b"".join(inner(environ, start_response))
        served.append((time.process_time() - began) * 1000)
        return [body]

    app.wsgi_app = timed
    client = app.test_client()
    players = ["Ana", "Bojan", "Ceca", "Dule"]
    made = client.post("/tables", data={"game": "pegs", "player": players, "submission_id": "b"})
    url = made.headers["Location"]
    client.get(url)
    with app.test_request_context():
        conn = tables.get_store().db.conn
    statements: list[str] = []

    def run(path: str, data: dict) -> tuple[int, float]:
        statements.clear()
        conn.set_trace_callback(statements.append)
        response = client.post(f"{url}/pegs{path}", data=data, headers=HX)
        conn.set_trace_callback(None)
        if response.status_code != 200:
            raise SystemExit(f"{path} answered {response.status_code}")
        return len(statements), served[-1]

    client.post(f"{url}/pegs/tap/player", data={"player": "0"}, headers=HX)
    found: dict[str, list[tuple[int, float]]] = {"card tap": [], "move": []}
    for turn in range(TURNS):
        rank = "A" if turn < 4 else "2"  # every seat comes out, then 2 forward each
        found["card tap"].append(run("/tap/card", {"card": rank, "tap_id": f"t{turn}"}))
        page = client.get(url).get_data(as_text=True)
        base = re.search(r'data-base="(\d+)"', page).group(1)
        seat, frm, to = re.search(r'data-move="(\d+)-([^-"]+)-([^" ]+)"', page).groups()
        steps = f'[{{"seat":{seat},"from":"{frm}","to":"{to}"}}]'
        found["move"].append(
            run("/step", {"steps": steps, "base": base, "submission_id": f"s{turn}"})
        )
    print(
        f"Pegs and Jokers, {TURNS} turns on a 4-seat board (target for a tap: 6 statements, 2 ms)"
    )
    for name, rows in found.items():
        counts, cpu = [r[0] for r in rows], [r[1] for r in rows]
        print(
            f"  {name:9s} statements median {statistics.median(counts):g} max {max(counts)}"
            f" · CPU ms median {statistics.median(cpu):.1f} max {max(cpu):.1f}"
        )


if __name__ == "__main__":
    main()
