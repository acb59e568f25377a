"""A tap on a game screen, whole, in-process: the request through Flask, the write of the
tap log and the panel it answers with, on an app built as a server's worker builds it
(its templates compiled as it starts). Prints per game the SQL statements one tap runs
(counted with sqlite3's trace callback) and its server CPU (``time.process_time`` over
the WSGI call, the answer's body made; the test client's own work left out; the disk's
flush is waiting, not CPU), with the answer compressed as a phone accepts it over http
(deflate, as Chromium takes it over http), and the answer's size, sent and as HTML; each tap carries its CSRF token and
names the parts of the panel the phone keeps, as a phone does. Then what another phone's poll brings after each tap,
naming the parts its panel shows and naming none. Issue #20's target:
at most 6 statements and 2 ms a tap.

    python bench/taps.py
"""

from __future__ import annotations

import gzip
import json
import re
import statistics
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from phone import Phone  # noqa: E402
from szaman_deal import NAMES, full_taps  # noqa: E402

from scorekeeper.app import compile_templates, create_app  # noqa: E402
from scorekeeper.web import tables  # noqa: E402

TARGET_STATEMENTS, TARGET_MS = 6, 2.0
PLAYS = 5  # each deal played this many times: a tap's CPU is the least of its plays
PHONE = {"HX-Request": "true", "Accept-Encoding": "gzip, deflate"}  # as Chromium over http


class Dice:
    """Kvanta's dice for the bench: these faces, in turn (the roll route rolls them)."""

    def __init__(self, faces):
        self.faces = list(faces)

    def randrange(self, start, stop):
        return self.faces.pop(0)


def kvanta_taps() -> list[dict]:
    """Kvanta's round 1 from the dealer draw to the call settled (Ceca calls, undercut):
    the three rolls go through the roll route (the server rolls 4 5 5, then 3)."""
    taps = [{"action": "draw", "seat": s, "card": c} for s, c in enumerate(("2C", "9D", "KS"))]
    taps += [
        {"action": "burn", "seat": 0, "count": 3},
        {"action": "turn", "seat": 0, "card": "7H"},
        {"action": "roll", "seat": 1},
        {"action": "no-hand"},
        {"action": "trick-winner", "seat": 2},
        {"action": "exchange", "seat": 2},
        {"action": "call", "seat": 2},
    ]
    taps += [{"action": "sum", "seat": s, "sum": n} for s, n in enumerate((13, 20, 11))]
    # then round 2, as most of a game's rounds are (the poker of round 1 abandoned):
    # Bojan deals and turns, Ceca rolls 2 3 4, the tricks begin
    taps += [{"action": "settle"}, {"action": ABANDON}, {"action": "turn", "seat": 1, "card": "9S"}]
    taps += [{"action": "roll", "seat": 2}, {"action": "no-hand"}]
    return [*taps, {"action": "trick-winner", "seat": 0}, {"action": "trick-winner", "seat": 1}]


CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
LIVE = re.compile(r'id="live"[^>]*\?v=(\d+)')  # the table version a poll has seen
KEPT = re.compile(r'data-frag(?:-kept)?="([0-9a-f]{16})"')  # a part the phone keeps: sent, or kept
ROLL_ROUTE = {"kvanta": ("roll", "reroll", "exchange")}  # taps the server rolls the dice of
ABANDON = "(abandon the round)"  # not a tap: the round's Abandon button, then a fresh page


def decoded(response) -> bytes:
    """An answer's body as the phone reads it (deflate or gzip, as it was sent)."""
    body = response.get_data()
    encoding = response.headers.get("Content-Encoding")
    return {"deflate": zlib.decompress, "gzip": gzip.decompress}.get(encoding, bytes)(body)


def timed_phone(config=None) -> tuple:
    """An app built as a server's worker builds it, on a database of its own, each
    request's server CPU in ms appended to ``served`` (the WSGI call, the body made);
    its test client, and the headers a phone sends (the session's CSRF token on every
    post, as the page's hx-headers carry it). Returns (app, client, phone, served)."""
    folder = tempfile.mkdtemp()
    app = create_app({"TESTING": True, "DATABASE": f"{folder}/bench.sqlite", "SECRET_KEY": "bench"})
    compile_templates(app)  # as a server's worker does as it starts
    app.config.update(config or {})
    served: list[float] = []
    inner = app.wsgi_app

    def timed(environ, start_response):
        began = time.process_time()
        body = b"".join(inner(environ, start_response))
        served.append((time.process_time() - began) * 1000)
        return [body]

    app.wsgi_app = timed
    client = app.test_client()
    token = CSRF.search(client.get("/").get_data(as_text=True)).group(1)
    return app, client, {**PHONE, "X-CSRFToken": token}, served


def measure(game: str, players: tuple[str, ...], taps: list[dict], config=None) -> dict:
    app, client, phone, served = timed_phone(config)
    made = client.post(
        "/tables",
        data={"game": game, "player": list(players), "submission_id": "bench"},
        headers=phone,
    )
    url = made.headers["Location"]
    # the connection, looked up before the page: a request context made for it would end
    # the reads the app carries from one request to the next
    with app.test_request_context():
        conn = tables.get_store().db.conn
    # the page, once: templates compiled, the first deal's context known; the parts of
    # its page a phone keeps are named by every tap (static/app.js: "have")
    page = client.get(url).get_data(as_text=True)
    mine = Phone(page)
    # another phone at the table: its poll after each tap (the parts it shows named)
    other, seen = Phone(page), LIVE.search(page).group(1)
    polled: list[tuple[int, int]] = []  # bytes sent: naming its parts, naming none
    statements: list[str] = []
    counts, cpu, sent, html = [], [], [], []
    version, round_number = 0, 1
    for number, tap in enumerate(taps):
        if tap["action"] == ABANDON:
            shown = re.search(r'data-deal-version="(\d+)"', mine.page).group(1)
            fields = {"v": shown, "round": str(round_number)}
            assert (
                client.post(f"{url}/{game}/discard", data=fields, headers=phone).status_code == 200
            )
            page = client.get(url).get_data(as_text=True)
            mine, other, seen = Phone(page), Phone(page), LIVE.search(page).group(1)
            version, round_number = 0, round_number + 1
            continue
        statements.clear()
        conn.set_trace_callback(statements.append)
        route = "roll" if tap["action"] in ROLL_ROUTE.get(game, ()) else "tap"
        response = client.post(
            f"{url}/{game}/{route}",
            data={
                "tap_id": f"b{number}",
                "tap": json.dumps(tap),
                "v": str(version),
                "round": str(round_number),
                "have": mine.have(),
            },
            headers=phone,
        )
        cpu.append(served[-1])
        sent.append(len(response.get_data()))
        text = decoded(response)
        html.append(len(text))
        conn.set_trace_callback(None)
        if response.status_code != 200:  # a game not (yet) on the one tap mechanism
            return {"refused": f"tap {number} answered {response.status_code}"}
        mine.receive(text.decode())  # its holes filled with the parts the phone kept
        counts.append(len(statements))
        version += 1
        answers = [
            client.get(f"{url}/live", query_string={"v": seen, "have": named}, headers=PHONE)
            for named in (other.have(), "")
        ]
        if not answers[0].get_data():  # nothing changed (a tap that was already so)
            continue
        polled.append((len(answers[0].get_data()), len(answers[1].get_data())))
        text = decoded(answers[0]).decode()
        other.receive(text)
        seen = LIVE.search(text).group(1)
    # the first tap begins the deal (reads the table's standings once): shown apart
    return {
        "first": (counts[0], cpu[0]),
        "statements": (statistics.median(counts[1:]), max(counts[1:])),
        "cpu": (statistics.median(cpu[1:]), max(cpu[1:])),
        "cpu_each": cpu,
        "taps": len(counts),
        "kb": (statistics.median(sent[1:]) / 1024, statistics.median(html[1:]) / 1024),
        "poll_kb": tuple(statistics.median(p[i] for p in polled) / 1024 for i in (0, 1)),
    }


def example_taps(name: str) -> tuple[tuple[str, ...], list[dict]]:
    """The players and taps of a worked example in tests/data/play/ (its own ids dropped)."""
    data = json.loads((ROOT / "tests" / "data" / "play" / f"{name}.json").read_text())
    request = data.get("request", data)
    taps = [{k: v for k, v in tap.items() if k != "id"} for tap in request["taps"]]
    return tuple(request["players"]), taps


def host_reference() -> float:
    """The least CPU time, in ms, of a fixed piece of pure Python (a Jinja template drawn,
    escaped and joined, much as a tap's panel is): the same code on the same host takes
    the same time, so the tap figures of two days compare through it."""
    from jinja2 import Environment

    template = Environment(autoescape=True).from_string(
        "{% for r in rows %}<li data-n=\"{{ r.n }}\">{{ r.name }} {{ r.cards|join(' ') }}"
        "</li>{% endfor %}"
    )
    rows = [{"n": n, "name": f"<Ana {n}>", "cards": ["KH", "QS", "10D"]} for n in range(200)]
    times = []
    for _ in range(30):
        began = time.process_time()
        for _ in range(10):
            template.render(rows=rows)
        times.append((time.process_time() - began) * 1000)
    return min(times)


def request_floor() -> float:
    """The least CPU time, in ms, of a tap posted to a table that does not exist: Flask's
    request, the session and CSRF checks, the form read, one lookup and a short refusal,
    compressed. What any tap costs before its game does anything."""
    _app, client, phone, served = timed_phone()
    tap = {"tap": json.dumps({"action": "take", "seat": 0}), "v": "0", "round": "1"}
    served.clear()
    for number in range(200):
        fields = {"tap_id": f"f{number}", **tap}
        response = client.post("/t/no-such-table/vezimas/tap", data=fields, headers=phone)
        assert response.status_code == 404
    return min(served)


def main() -> None:
    games = {
        "szaman": (NAMES, full_taps()),
        "vezimas": example_taps("vezimas-played-out"),
        "cowboy": example_taps("cowboy-tens"),
        "kvanta": (("Ana", "Bojan", "Ceca"), kvanta_taps()),
    }
    configs = {"kvanta": lambda: {"DICE_RNG": Dice([4, 5, 5, 3, 2, 3, 4])}}  # fresh each play
    print(f"One tap, in-process (target: ≤ {TARGET_STATEMENTS} statements, ≤ {TARGET_MS} ms)")
    print(f"  (CPU: each tap's least over {PLAYS} plays of the deal, fresh each time, as timeit")
    print("   takes the least of its runs: what the host's other work added is left out)")
    print(f"  (this host's speed: a fixed piece of Python takes {host_reference():.2f} ms)")
    print(
        f"  (a tap to a table that does not exist, the request's floor: {request_floor():.2f} ms)"
    )
    for game, (players, taps) in games.items():
        config = configs.get(game, dict)
        plays = [measure(game, players, taps, config()) for _ in range(PLAYS)]
        m = next((p for p in plays if "refused" in p), plays[0])
        if "refused" in m:
            print(f"  {game:8} not measured: {m['refused']}")
            continue
        least = [min(times) for times in zip(*(p["cpu_each"] for p in plays), strict=True)]
        m["first"] = (m["first"][0], least[0])
        m["cpu"] = (statistics.median(least[1:]), max(least[1:]))
        print(
            f"  {game:8} {m['taps']} taps: statements median {m['statements'][0]:.0f}, "
            f"max {m['statements'][1]}; CPU median {m['cpu'][0]:.2f} ms, max {m['cpu'][1]:.2f} ms"
            f" (the deal's first tap: {m['first'][0]} statements, {m['first'][1]:.1f} ms);"
            f" answer {m['kb'][0]:.1f} KB sent ({m['kb'][1]:.0f} KB of HTML);"
            f" another phone's poll {m['poll_kb'][0]:.1f} KB sent"
            f" ({m['poll_kb'][1]:.1f} KB naming none of its parts)"
        )


if __name__ == "__main__":
    main()
