"""Long tables: the table page, the history, the poll and the score sheet at 10,
1,000 and 10,000 entries, next to their targets.

    python bench/longtable.py [--repeat 5] [--sizes 10,1000,10000]

Each size runs in a process of its own (one server worker, the Flask test client),
on a table whose history is written straight into a fresh database (score-pad
rounds for three players, every ninth one undone). Every request is cold: the
table's version is bumped first, so no cached page or PDF answers it.

Figures per route: the median wall time of ``--repeat`` requests (the sheet: its
PDF rendered in the isolated renderer), the peak of Python memory allocated during
one request (tracemalloc), and at the end the worker's peak resident memory and
the renderer's. "page, first request" is a worker's first sight of the table (the
table's sums made in SQL): once per worker and table. Targets: each route's time
flat within 2x from 10 to 10,000 entries, peak memory per worker at most 200 MB.
At 10 entries the pages show fewer rows than they hold (the table page 20, a
history page 50, the sheet 80), so the growth from the second size, where they are
full, is printed too: what is left of it is the history's length alone. Nothing is
asserted: the tests check that the pages read a bounded part of the history; this
shows what it costs.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ROUTES = ("page", "history", "history, oldest page", "live", "sheet", "page, first request")
TIME_TARGET = 2.0  # the 10,000-entry time over the 10-entry one
MEMORY_TARGET_MB = 200


def bulk_table(db: Path, entries: int):
    """A table with ``entries`` score-pad rounds, written in one transaction."""
    from scorekeeper.games import catalog
    from scorekeeper.store import Store, connect, migrate, transaction

    s = Store(connect(db))
    migrate(s.db)
    out = s.create_table(
        "kvanta", "Long night", ["Ana", "Bojan", "Ceca"], catalog.GAMES["kvanta"].defaults()
    )
    table_id = out["table_id"]
    players = s.players(table_id)
    with transaction(s.db):
        for n in range(1, entries + 1):
            points = {p.id: (n * 7 + p.seat * 13) % 41 - 15 for p in players}
            request = {"players": [p.name for p in players], "points": {}}
            entry_id = s.db.conn.execute(
                "INSERT INTO entries (table_id, round, kind, request, result, created, points)"
                " VALUES (?, ?, 'manual-points', ?, '{}', '2026-01-01T20:00:00.000+00:00', ?)",
                [
                    table_id,
                    n,
                    json.dumps(request),
                    json.dumps({pid: v for pid, v in points.items() if v}),
                ],
            ).lastrowid
            if n % 9 == 0:
                s.db.conn.execute(
                    "INSERT INTO entry_events (entry_id, event, created) VALUES (?, 'voided', ?)",
                    [entry_id, "2026-01-01T20:00:00.000+00:00"],
                )
    return s, s.table(table_id)


def peak_rss_mb(pid: int | None = None) -> float:
    """A process's peak resident memory (VmHWM), MB; this process's without ``pid``."""
    if pid is None:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def measure(entries: int, repeat: int) -> dict:
    """One size, in this process: {route: (median s, peak traced MB)}, and the peaks."""
    from scorekeeper import create_app, printing
    from scorekeeper.store import transaction

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "long.sqlite"
        s, table = bulk_table(db, entries)
        app = create_app({"DATABASE": str(db), "SECRET_KEY": "bench", "TESTING": True})
        client = app.test_client()
        oldest = s.history_page(table.id, None, max(entries - 50, 1))[0]
        cursor = f"{oldest[-1].round}.{oldest[-1].id}" if oldest else None
        base = f"/t/{table.watch_key}"
        urls = {
            "page": base,
            "history": f"{base}/history",
            "history, oldest page": f"{base}/history" + (f"?before={cursor}" if cursor else ""),
            "live": f"{base}/live?v=0",
            "sheet": f"{base}/score-sheet.pdf",
        }

        def bump():
            with transaction(s.db):
                s.db.execute("UPDATE tables SET version = version + 1 WHERE id = ?", [table.id])

        def get(url: str) -> None:
            bump()
            with app.app_context():
                printing.cache().clear()  # no PDF of equal content either: a real render
            response = client.get(url)
            assert response.status_code == 200, (url, response.status_code)

        figures = {}
        # the first request of a worker for a table makes its tally (sums over the
        # whole history, in SQL); every later one brings it up to date. The templates
        # are compiled first, on a table of one round.
        warm = s.create_table("kvanta", "Warm", ["A", "B"], {})["scorer_key"]
        assert client.get(f"/t/{warm}").status_code == 200
        start = time.perf_counter()
        get(urls["page"])
        figures["page, first request"] = (time.perf_counter() - start, 0.0)
        for url in urls.values():  # templates compiled, WeasyPrint started in its renderer
            get(url)
        for route, url in urls.items():
            times = []
            for _ in range(repeat):
                start = time.perf_counter()
                get(url)
                times.append(time.perf_counter() - start)
            tracemalloc.start()
            get(url)
            traced = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            figures[route] = (statistics.median(times), traced)
        renderer = printing._renderers.get(0)
        process = renderer._process if renderer else None
        renderer_mb = peak_rss_mb(process.pid) if process is not None else float("nan")
        printing._stop_renderers()
        s.close()
        return {"routes": figures, "worker_mb": peak_rss_mb(), "renderer_mb": renderer_mb}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", default="10,1000,10000")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a size, in this process
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(measure(args.one, args.repeat)))
        return
    sizes = [int(n) for n in args.sizes.split(",")]
    print(f"load average (1 min): {os.getloadavg()[0]:.2f}")
    results = {}
    for n in sizes:
        out = subprocess.run(
            [sys.executable, __file__, "--one", str(n), "--repeat", str(args.repeat)],
            capture_output=True,
            text=True,
            check=True,
        )
        results[n] = json.loads(out.stdout.strip().splitlines()[-1])
    head = (
        f"{'route':<22}"
        + "".join(f"{f'{n:,} entries':>26}" for n in sizes)
        + "   growth, first to last (second to last)"
    )
    print(head)
    print(" " * 22 + "".join(f"{'time ms / traced MB':>26}" for _ in sizes))
    for route in ROUTES:
        cells = []
        for n in sizes:
            seconds, traced = results[n]["routes"][route]
            memory = f"{traced:>6.1f} MB" if traced else "       -  "
            cells.append(f"{seconds * 1000:>14.1f} / {memory}")
        first, second, last = (
            results[n]["routes"][route][0] for n in (sizes[0], sizes[1 % len(sizes)], sizes[-1])
        )
        growth = last / first
        verdict = "ok" if growth <= TIME_TARGET else f"over {TIME_TARGET:.0f}x"
        # from the second size on, every page holds as many rows as it can (20 on the
        # table page, 50 on a page of the history, 80 on the sheet): the growth left is
        # the history's length alone
        print(
            f"{route:<22}"
            + "".join(f"{c:>26}" for c in cells)
            + f"   {growth:.2f}x {verdict} ({last / second:.2f}x)"
        )
    for label, key in (("worker peak RSS", "worker_mb"), ("renderer peak RSS", "renderer_mb")):
        cells = "".join(f"{results[n][key]:>23.0f} MB" for n in sizes)
        worst = max(results[n][key] for n in sizes)
        verdict = "ok" if worst <= MEMORY_TARGET_MB else f"over {MEMORY_TARGET_MB} MB"
        print(f"{label:<22}{cells}   {verdict}")


if __name__ == "__main__":
    main()
