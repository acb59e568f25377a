"""A club night on the real server (`scorekeeper serve` on 127.0.0.1), the load
client on the same machine: T tables of Wyoming Cowboy, each with

  - 5 phones polling the table every second (the scorer's and 4 watchers', each on
    its own keep-alive connection, sending the version it last saw and the parts of
    the page it keeps, as htmx and static/app.js do),
  - its scorer tapping a card of the end-of-deal entry every 3 s (``POST
    /t/<key>/cowboy/tap``: the ace of spades held, then not, each tap as its
    button on the answer to the one before says, with an id of its own: a write
    of the deal's tap log), on a connection of its own,
  - and saving a deal every 60 s (the score pad's ``POST /t/<key>/rounds``),

every phone starting at a random moment of its period. Printed for each T: p50,
p95 and p99 of taps, saves and polls, the errors (an answer other than 2xx, a
broken connection, or nothing within 10 s), the server's CPU seconds per second
(all its processes), the seconds per second its threads were ready but waited for
a core (the machine's other work), the client's CPU and how late its own loop
woke (p95; a latency includes it); then the capacity: the largest T at which
the taps' p95 is at most 100 ms and nothing failed.

Each T runs ``--seconds`` (bounded also by ``--max-requests`` in all); a phone
waits for an answer before its next request, so a slow server gets fewer requests
rather than a growing queue, and its lateness shows in the percentiles.

    python bench/club.py [--tables 10,50,100,200,400] [--seconds 30]
                         [--poll-every 1] [--workers N] [--threads N]
                         [--max-requests 2000000]
"""

from __future__ import annotations

import argparse
import asyncio
import html
import json
import random
import re
import signal
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the helper that starts the real server
sys.path.insert(0, str(ROOT / "bench"))

from load import Session, percentile, server_cpu  # noqa: E402
from phone import Phone  # noqa: E402
from serving import start_serve  # noqa: E402

from scorekeeper.store import Store  # noqa: E402

POLL_EVERY_S = 1.0
TAP_EVERY_S = 3.0
SAVE_EVERY_S = 60.0
PHONES_PER_TABLE = 5
TIMEOUT_S = 10.0
TAP_TARGET_MS = 100.0
LIVE_VERSION = re.compile(rb"/live\?v=(\d+)")


class Connection:
    """One phone's keep-alive HTTP/1.1 connection, reopened when the server closes it."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.reader = self.writer = None

    async def request(self, raw: bytes) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        try:
            self.writer.write(raw)
            await self.writer.drain()
            status_line = await self.reader.readline()
            if not status_line:
                raise ConnectionError("closed by the server")
            length, close = 0, False
            while (line := await self.reader.readline()) not in (b"\r\n", b""):
                lower = line.lower()
                if lower.startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                elif lower.startswith(b"connection:") and b"close" in lower:
                    close = True
            body = await self.reader.readexactly(length) if length else b""
        except BaseException:
            self.close()
            raise
        if close:
            self.close()
        return int(status_line.split()[1]), body

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


TAP_VALUES = re.compile(rb"hx-vals='([^']*)'")
DEAL_VERSION = re.compile(rb'data-deal-version="(\d+)"')
TAPPED_CARD = "AS"


def card_button(page: bytes) -> dict | None:
    """The fields the tap button holding (or letting go of) the first player's ace of
    spades sends, as the page or a tap's answer draws it: its own, and the version of
    the deal the panel shows (the phone adds it)."""
    version = DEAL_VERSION.search(page)
    for raw in TAP_VALUES.findall(page):
        if TAPPED_CARD.encode() not in raw or b"hold" not in raw:
            continue
        values = json.loads(html.unescape(raw.decode()))
        tap = json.loads(values.get("tap", "{}"))
        if version and tap.get("action") in ("hold", "unhold") and tap.get("seat") == 0:
            return {"v": version.group(1).decode(), **values}
    return None


class Table:
    """One table's keys, its scorer's session (cookie, CSRF token, pad fields) and a
    watcher's cookie, read once from the real pages."""

    def __init__(self, base: str, scorer_key: str, watch_key: str, player_id: int):
        self.scorer_key, self.watch_key, self.player_id = scorer_key, watch_key, player_id
        self.scorer = Session(base, scorer_key)
        self.page: Phone | None = None  # the scorer's page, as its phone keeps it
        with urllib.request.urlopen(f"{base}/t/{watch_key}") as response:  # a watcher's view
            self.watcher_cookie = response.headers["Set-Cookie"].split(";")[0]


class Stats:
    def __init__(self):
        self.latencies: dict[str, list[float]] = {"tap": [], "save": [], "poll": []}
        self.errors: dict[str, int] = {"tap": 0, "save": 0, "poll": 0}
        self.budget = 0
        self.client_lags: list[float] = []  # how late the client's own loop woke up


async def watch_client(stats: Stats, deadline: float, every: float = 0.05) -> None:
    """The client's own delay: a latency includes the time the client took to notice
    the answer, which grows when the machine is short of cores."""
    while time.perf_counter() < deadline:
        start = time.perf_counter()
        await asyncio.sleep(every)
        stats.client_lags.append(time.perf_counter() - start - every)


def waiting_for_a_core(pid: int) -> float | None:
    """Seconds the server's threads (all its processes) spent ready to run but
    waiting for a core, from Linux's schedstat; None elsewhere."""
    total, found = 0, False
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            if int(stat.parent.name) != pid and parent != pid:
                continue
            for task in (stat.parent / "task").iterdir():
                total += int((task / "schedstat").read_text().split()[1])
                found = True
        except (OSError, ValueError, IndexError):
            continue
    return total / 1e9 if found else None


async def timed(stats: Stats, kind: str, connection: Connection, raw: bytes) -> bytes | None:
    """One request: its latency, or an error; the body of a 2xx answer."""
    stats.budget -= 1
    start = time.perf_counter()
    try:
        status, body = await asyncio.wait_for(connection.request(raw), TIMEOUT_S)
    except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError):
        connection.close()
        stats.errors[kind] += 1
        return None
    stats.latencies[kind].append(time.perf_counter() - start)
    if not 200 <= status < 300:
        stats.errors[kind] += 1
        return None
    return body


def get(path: str, host: str, cookie: str) -> bytes:
    return (
        f"GET {path} HTTP/1.1\r\nHost: {host}\r\nCookie: {cookie}\r\nHX-Request: true\r\n\r\n"
    ).encode()


def post(path: str, host: str, cookie: str, fields: dict[str, str]) -> bytes:
    body = urllib.parse.urlencode(fields).encode()
    return (
        f"POST {path} HTTP/1.1\r\nHost: {host}\r\nCookie: {cookie}\r\nHX-Request: true\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


async def phone_polling(stats, table, key, cookie, host, port, deadline):
    connection = Connection(*host_port(host, port))
    version, page = "0", None  # the first answer is the whole of what the poll swaps in
    await asyncio.sleep(random.uniform(0, POLL_EVERY_S))
    next_at = time.perf_counter()
    try:
        while time.perf_counter() < deadline and stats.budget > 0:
            # naming the parts its page shows, as a phone does (static/app.js)
            have = urllib.parse.quote_plus(page.have()) if page else ""
            path = f"/t/{key}/live?v={version}&have={have}"
            body = await timed(stats, "poll", connection, get(path, host, cookie))
            if body and (found := LIVE_VERSION.search(body)):
                version = found.group(1).decode()
                if page is None:
                    page = Phone(body.decode())
                else:
                    page.receive(body.decode())
            next_at += POLL_EVERY_S
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
    finally:
        connection.close()


async def scorer(stats, table: Table, run: str, host, port, deadline):
    """Taps a held card on and off every 3 s; saves a pad round every 60 s."""
    connection = Connection(*host_port(host, port))
    session = table.scorer
    tap_path = f"/t/{table.scorer_key}/cowboy/tap"
    pad_path = f"/t/{table.scorer_key}/rounds"
    start = time.perf_counter()
    next_tap = start + random.uniform(0, TAP_EVERY_S)
    next_save = start + random.uniform(0, SAVE_EVERY_S)
    taps = saves = 0
    try:
        while stats.budget > 0:
            at = min(next_tap, next_save)
            if at >= deadline:
                break
            await asyncio.sleep(max(0.0, at - time.perf_counter()))
            if next_tap <= next_save:
                if table.page is None:  # the phone's page (after a save: anew)
                    _status, page = await connection.request(
                        get(f"/t/{table.scorer_key}", host, session.cookie)
                    )
                    table.page = Phone(page.decode())
                button = card_button(table.page.page.encode())
                fields = {k: str(v) for k, v in (button or {}).items()}
                fields.update({"csrf_token": session.csrf, "tap_id": f"{run}-tap-{taps}"})
                fields["have"] = table.page.have()  # the parts its page shows
                answer = await timed(
                    stats, "tap", connection, post(tap_path, host, session.cookie, fields)
                )
                if answer:  # its holes filled from the page, as the phone does
                    table.page.receive(answer.decode())
                else:
                    table.page = None
                taps += 1
                next_tap += TAP_EVERY_S
            else:
                fields = {"csrf_token": session.csrf, "submission_id": f"{run}-{saves}"}
                fields.update({field: "" for field in session.fields})
                fields[session.field] = str(saves % 7)
                await timed(stats, "save", connection, post(pad_path, host, session.cookie, fields))
                saves += 1
                next_save += SAVE_EVERY_S
                table.page = None  # the next deal's buttons
    finally:
        connection.close()


def host_port(host: str, port: int) -> tuple[str, int]:
    return host.split(":")[0], port


async def club_night(tables: list[Table], host: str, port: int, seconds: float, budget: int):
    stats = Stats()
    stats.budget = budget
    deadline = time.perf_counter() + seconds
    run = f"night-{len(tables)}-{time.monotonic_ns()}"
    phones = [watch_client(stats, deadline)]
    for n, table in enumerate(tables):
        phones.append(scorer(stats, table, f"{run}-{n}", host, port, deadline))
        phones.append(
            phone_polling(stats, table, table.scorer_key, table.scorer.cookie, host, port, deadline)
        )
        for _ in range(PHONES_PER_TABLE - 1):
            phones.append(
                phone_polling(
                    stats, table, table.watch_key, table.watcher_cookie, host, port, deadline
                )
            )
    await asyncio.gather(*phones)
    return stats


def make_tables(db: Path, count: int) -> list[tuple[str, str, int]]:
    s = Store.open(db)
    out = []
    for n in range(count):
        made = s.create_table("cowboy", f"Table {n + 1}", ["Ana", "Bojan", "Ceca", "Dragan"], {})
        first = s.players(made["table_id"])[0]
        out.append((made["scorer_key"], s.table(made["table_id"]).watch_key, first.id))
    s.close()
    return out


def main() -> None:
    global POLL_EVERY_S  # --poll-every sets it for every phone
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", default="10,50,100,200,400")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument(
        "--poll-every",
        type=float,
        default=POLL_EVERY_S,
        help="seconds between a phone's polls (the app's POLL_INTERVAL_MS / 1000)",
    )
    parser.add_argument("--max-requests", type=int, default=2_000_000)
    parser.add_argument("--workers", type=int, help="serve --workers (default: serve's own)")
    parser.add_argument("--threads", type=int, help="serve --threads (default: serve's own)")
    args = parser.parse_args()
    POLL_EVERY_S = args.poll_every
    # stopped (SIGTERM), it still stops the server it started
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(1))
    counts = [int(t) for t in args.tables.split(",")]

    from scorekeeper import server as serve_defaults

    workers = args.workers or serve_defaults.default_workers()
    threads = args.threads or serve_defaults.DEFAULT_THREADS
    options = ["--no-qr", "--workers", str(workers), "--threads", str(threads)]
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "club.sqlite"
        made = make_tables(db, max(counts))
        proc, base, _printed = start_serve(db, *options)
        host = base.removeprefix("http://")
        port = int(host.split(":")[1])
        try:
            tables = [Table(base, *keys) for keys in made]
            print(
                f"A club night on `scorekeeper serve` ({workers} workers × {threads} threads), "
                f"the client on the same machine; {PHONES_PER_TABLE} phones per table polling "
                f"every {POLL_EVERY_S:g} s, a tap every {TAP_EVERY_S:g} s and a save every "
                f"{SAVE_EVERY_S:g} s per table; {args.seconds:g} s per row"
            )
            print(
                f"{'tables':>6}{'phones':>7} | {'tap p50/p95/p99 ms':>20} | "
                f"{'save p50/p95/p99 ms':>20} | {'poll p50/p95/p99 ms':>20} |"
                f"{'req/s':>7}{'errors':>7}{'server cpu/s':>13}{'waiting/s':>10}"
                f"{'client cpu/s':>13}{'client lag p95 ms':>18}"
            )
            capacity = None
            for count in counts:
                cpu_before, client_before = server_cpu(proc.pid), time.process_time()
                waited_before = waiting_for_a_core(proc.pid)
                started = time.perf_counter()
                stats = asyncio.run(
                    club_night(tables[:count], host, port, args.seconds, args.max_requests)
                )
                elapsed = time.perf_counter() - started
                cpu = (server_cpu(proc.pid) - cpu_before) / elapsed
                client_cpu = (time.process_time() - client_before) / elapsed
                waited_after = waiting_for_a_core(proc.pid)
                if waited_before is None or waited_after is None:
                    waited = "–"
                else:
                    waited = f"{(waited_after - waited_before) / elapsed:.2f}"
                lag = percentile(sorted(stats.client_lags), 0.95) if stats.client_lags else 0.0
                cells = []
                for kind in ("tap", "save", "poll"):
                    ordered = sorted(stats.latencies[kind])
                    if ordered:
                        cells.append(
                            "/".join(f"{percentile(ordered, p):.0f}" for p in (0.5, 0.95, 0.99))
                        )
                    else:
                        cells.append("–")
                answered = sum(len(v) for v in stats.latencies.values())
                errors = sum(stats.errors.values())
                print(
                    f"{count:>6}{count * PHONES_PER_TABLE:>7} | {cells[0]:>20} | {cells[1]:>20} | "
                    f"{cells[2]:>20} |{answered / elapsed:>7.0f}{errors:>7}{cpu:>13.2f}"
                    f"{waited:>10}{client_cpu:>13.2f}{lag:>18.0f}",
                    flush=True,
                )
                taps = sorted(stats.latencies["tap"])
                if taps and errors == 0 and percentile(taps, 0.95) <= TAP_TARGET_MS:
                    capacity = count
            print(
                f"capacity: {capacity or 0} tables (the largest T with tap p95 ≤ "
                f"{TAP_TARGET_MS:.0f} ms and no error; target ≥ 200 tables, 1,000 phones)"
            )
        finally:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    main()
