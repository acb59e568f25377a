"""Printables: render times next to their targets.

    python bench/print.py [--repeat 7]

- a rule card, warm in-process: target ≤ 150 ms. Warm: WeasyPrint imported, fonts
  loaded, and this game's card printed once before, so all of it but the house-rules
  box (the same for every table) is laid out already; a table's card, not yet in the
  PDF cache, is made from its templates: the box laid out, both pages written. The
  card laid out whole, in one document, is shown too.
- the filled sheet of a 50-deal table: target ≤ 1 s
- a cached download through the Flask test client: target ≤ 5 ms

Figures are the median wall time of ``--repeat`` runs, with the best run and the
median CPU time in brackets; nothing is asserted — the tests check correctness,
this shows speed. The 1-minute load average is printed first: on a busy machine
the wall times grow, the CPU times much less.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scorekeeper import create_app, printing  # noqa: E402
from scorekeeper.games import catalog  # noqa: E402
from scorekeeper.store import Store, connect  # noqa: E402
from scorekeeper.summary import summarize  # noqa: E402


def timings(fn, repeat: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds of each of ``repeat`` calls: on a shared, busy
    machine the CPU time shows what the code costs, the wall time what a user waits."""
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return wall, cpu


def report(label: str, measured: tuple[list[float], list[float]], target: float | None) -> None:
    wall, cpu = measured
    median = statistics.median(wall)
    if target is None:
        goal = "(no target)"
    else:
        verdict = "ok" if median <= target else "OVER"
        goal = f"target ≤ {target * 1000:5.0f} ms  {verdict}"
    print(
        f"{label:<52} {median * 1000:8.1f} ms  (best {min(wall) * 1000:7.1f}, "
        f"cpu {statistics.median(cpu) * 1000:7.1f})   {goal}"
    )


def fifty_deal_table(store: Store):
    """A Wyoming Cowboy table with 50 score-pad deals for four players."""
    out = store.create_table(
        "cowboy",
        "Bench: fifty deals",
        ["Ana", "Bojan", "Ceca", "Dragan"],
        catalog.GAMES["cowboy"].defaults(),
    )
    table = store.table(out["table_id"])
    players = store.players(table.id)
    for deal in range(1, 51):
        points = {p.id: (deal * 7 + seat * 13) % 90 - 30 for seat, p in enumerate(players)}
        store.add_entry(table.id, deal, "manual-points", {}, {}, points)
    return store.table(table.id)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    print(f"load average (1 min): {os.getloadavg()[0]:.2f} on {os.cpu_count()} cpus")
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(
            {"TESTING": True, "DATABASE": str(Path(tmp) / "bench.sqlite"), "SECRET_KEY": "bench"}
        )
        store = Store(connect(app.config["DATABASE"]))
        with app.app_context():
            start = time.perf_counter()
            printing.render_pdf(printing.rule_card_html("cowboy"), printing.CARD_CSS)
            print(
                f"first render (import WeasyPrint, load fonts): {time.perf_counter() - start:.2f} s"
            )

            for slug in catalog.GAMES:
                game = catalog.GAMES[slug]
                out = store.create_table(
                    slug,
                    f"Bench: {slug}",
                    [f"P{i}" for i in range(game.min_players)],
                    game.defaults(),
                )
                table = store.table(out["table_id"])
                whole = printing.rule_card_html(slug, table)
                report(
                    f"rule card {slug}, laid out whole",
                    timings(lambda h=whole: printing.render_pdf(h, printing.CARD_CSS), args.repeat),
                    None,
                )

                def table_card(slug=slug, table=table):
                    printing.cache().clear()  # a table whose card nobody printed yet
                    return printing.rule_card(slug, table)

                table_card()  # keeps the card's fixed part
                report(
                    f"rule card {slug}, warm (a table's card)",
                    timings(table_card, args.repeat),
                    0.150,
                )

            table = fifty_deal_table(store)
            report(
                "filled sheet, 50 deals (summary + HTML + PDF)",
                timings(
                    lambda: printing.render_pdf(
                        printing.filled_sheet_html(summarize(store, table))
                    ),
                    max(3, args.repeat // 2),
                ),
                1.0,
            )

        client = app.test_client()
        key = table.watch_key
        for url in ("/print/cowboy/rule-card.pdf", f"/t/{key}/score-sheet.pdf"):
            assert client.get(url).status_code == 200  # fills the cache
            report(
                f"cached download {url.split('/')[-1]}",
                timings(lambda u=url: client.get(u), args.repeat * 10),
                0.005,
            )
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
