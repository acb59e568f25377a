"""A Pegs and Jokers turn on its screen, whole, in-process: the turn's first tap (it
begins the turn's log from the board as stored), a card tap (the log only, answered
with the panel) and the move that follows (one tap that closes the log into its
entry, answered with the table's fragments), on an app built as a server's worker
builds it (its templates compiled as it starts). Prints the SQL statements each runs (sqlite3's trace callback)
and its server CPU (``time.process_time`` over the WSGI call, the answer's body made and
compressed as a phone accepts it over http, its CSRF token checked as a phone's is), and
the answer's size as sent. ``bench/instructions.py`` replays the same turns (``turns``)
under callgrind.
Issue #20's target for a tap: at most 6 statements and 2 ms.

    python bench/pegs_taps.py
"""

from __future__ import annotations

import html as html_module
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scorekeeper.app import compile_templates, create_app  # noqa: E402
from scorekeeper.web import tables  # noqa: E402

TURNS = 24
PLAYERS = ["Ana", "Bojan", "Ceca", "Dule"]
HX = {"HX-Request": "true", "Accept-Encoding": "gzip, deflate"}  # a phone over http
KINDS = ("first tap", "card tap", "move")


def table() -> tuple:
    """A new 4-seat table: its app, a test client with a phone's headers, and its URL."""
    folder = tempfile.mkdtemp()
    app = create_app({"TESTING": True, "DATABASE": f"{folder}/bench.sqlite", "SECRET_KEY": "b"})
    compile_templates(app)  # as a server's worker does as it starts
    client = app.test_client()
    # as a phone: the session's CSRF token on every post (the page's hx-headers)
    token = re.search(r'name="csrf_token" value="([^"]+)"', client.get("/").get_data(as_text=True))
    headers = {**HX, "X-CSRFToken": token.group(1)}
    made = client.post(
        "/tables", data={"game": "pegs", "player": PLAYERS, "submission_id": "b"}, headers=headers
    )
    return app, client, headers, made.headers["Location"]


def vals(html: str, marker: str) -> dict:
    """The tap a button of the panel posts (its hx-vals), as a phone sends it: with the
    version its panel shows and the parts of it the phone keeps."""
    tag = re.search(r"<button[^>]*" + marker + r"[^>]*>", html).group(0)
    fields = json.loads(html_module.unescape(re.search(r"hx-vals='([^']*)'", tag).group(1)))
    version = re.search(r'data-deal-version="(\d+)"', html).group(1)
    have = " ".join(re.findall(r'data-frag="([0-9a-f]{16})"', html))
    return {"v": version, "have": have, **fields}


def turns(count: int, send: Callable | None = None) -> list[dict]:
    """``count`` turns played as a phone plays them, its page read before each tap to find
    the button it taps: each seat brings a peg out (an ace), then moves 2 forward. Each
    tap is sent by ``send(app, post)``, ``post()`` making the request (by default it is
    just made). Returns what each tap sent, in order (``bench/instructions.py`` replays
    them)."""
    app, client, headers, url = table()
    client.get(url)
    sent = []

    def tap(data: dict) -> None:
        sent.append(data)

        def post():
            return client.post(f"{url}/pegs/tap", data=data, headers=headers)

        response = send(app, post) if send is not None else post()
        if response.status_code != 200:
            raise SystemExit(f"{data} answered {response.status_code}")

    for turn in range(count):
        rank = "A" if turn < 4 else "2"  # every seat comes out, then 2 forward each
        page = client.get(url).get_data(as_text=True)
        # the turn's first tap begins its log (reads the board); then the card played
        tap({**vals(page, 'data-card="3"'), "tap_id": f"f{turn}"})
        page = client.get(url).get_data(as_text=True)
        tap({**vals(page, f'data-card="{rank}"'), "tap_id": f"c{turn}"})
        page = client.get(url).get_data(as_text=True)
        tap({**vals(page, "data-move="), "tap_id": f"m{turn}"})
    return sent


def main() -> None:
    found: dict[str, list[tuple[int, float, int]]] = {kind: [] for kind in KINDS}

    connection = []

    def measured(app, post):
        """A tap's statements (sqlite3's trace callback) and CPU (the WSGI call, the
        body made). The connection is looked up once: a request context made for it
        would end the reads the app carries from one request to the next."""
        if not connection:
            with app.test_request_context():
                connection.append(tables.get_store().db.conn)
        conn = connection[0]
        inner, served, statements = app.wsgi_app, [], []

        def timed(environ, start_response):
            began = time.process_time()
            body = b"".join(inner(environ, start_response))
            served.append((time.process_time() - began) * 1000)
            return [body]

        app.wsgi_app = timed
        conn.set_trace_callback(statements.append)
        try:
            response = post()
        finally:
            conn.set_trace_callback(None)
            app.wsgi_app = inner
        kind = KINDS[sum(len(rows) for rows in found.values()) % len(KINDS)]
        found[kind].append((len(statements), served[-1], len(response.get_data())))
        return response

    turns(TURNS, measured)
    print(
        f"Pegs and Jokers, {TURNS} turns on a 4-seat board (target for a tap: 6 statements, 2 ms)"
    )
    for name, rows in found.items():
        counts, cpu, sent = ([r[i] for r in rows] for i in range(3))
        print(
            f"  {name:10s} statements median {statistics.median(counts):g} max {max(counts)}"
            f" · CPU ms median {statistics.median(cpu):.2f} max {max(cpu):.2f}"
            f" · answer {statistics.median(sent) / 1024:.1f} KB sent"
        )


if __name__ == "__main__":
    main()
