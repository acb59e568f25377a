"""Load on the real server (`scorekeeper serve` on 127.0.0.1), bounded in time and
request count: 1, 10 and 50 concurrent keep-alive clients on

  (a) a table page, (b) posting a scored entry, (c) the "has the table changed?"
  poll, (d) a bare route in the same server (the floor), and (e) the stateless
  score API (``POST /api/v1/score/cowboy-deal``, a worked example's request),

each as a phone at the table sends it (with the session cookie it was given),

printing req/s, p50, p95, p99, each throughput as a share of the floor's and the
server's CPU time per request (all its processes; on a shared machine this varies
less than the throughput); then the table page's server time at 1,000 entries vs
10, and the first page's weight. SQLite runs with synchronous=FULL, as served:
nothing acknowledged may be lost, a power cut included. (What a club feels, tables
of phones polling and scorers tapping, is bench/club.py.)

The scenarios take turns (1 s each by default) until each has run its 10 s:
this machine's speed drifts by more than the differences measured, and turns
make each share of the floor compare moments alike.

    python bench/load.py [--seconds 10] [--slice 1] [--max-requests 200000]
                         [--clients 1,10,50] [--workers N] [--threads N]
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import http.client
import itertools
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the helper that starts the real server

from serving import start_serve  # noqa: E402

from scorekeeper.store import Store  # noqa: E402

SCORE_EXAMPLE = ROOT / "tests" / "data" / "examples" / "cowboy-deal.json"


def start_server(
    db: Path, workers: int | None = None, threads: int | None = None
) -> tuple[subprocess.Popen, str]:
    options = ["--no-qr"]
    if workers is not None:
        options += ["--workers", str(workers)]
    if threads is not None:
        options += ["--threads", str(threads)]
    proc, url, _printed = start_serve(db, *options)
    return proc, url


def make_tables(db: Path) -> dict[str, str]:
    s = Store.open(db)
    keys = {}
    for name, entries in (("small", 10), ("big", 1000), ("posts", 10)):
        out = s.create_table("kvanta", name, ["Ana", "Bojan", "Ceca", "Dragan"], {})
        players = s.players(out["table_id"])
        for i in range(entries):
            s.add_entry(
                out["table_id"],
                i + 1,
                "manual-points",
                {},
                {"points": {}},
                {p.id: (i * 7 + p.seat) % 23 - 11 for p in players},
            )
        keys[name] = out["scorer_key"]
    s.close()
    return keys


class Session:
    """Cookie and CSRF token of one browser session, for the form posts."""

    def __init__(self, base: str, key: str):
        request = urllib.request.Request(f"{base}/t/{key}")
        with urllib.request.urlopen(request) as response:
            html = response.read().decode()
            self.cookie = response.headers["Set-Cookie"].split(";")[0]
        self.csrf = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
        # the score pad sends every player's field, empty when nobody typed in it
        self.fields = list(dict.fromkeys(re.findall(r'name="(points-\d+)"', html)))
        self.field = self.fields[0]


async def client(host, port, make_request, deadline, budget, latencies):
    reader, writer = await asyncio.open_connection(host, port)
    try:
        n = 0
        while time.perf_counter() < deadline and budget[0] > 0:
            budget[0] -= 1
            start = time.perf_counter()
            writer.write(make_request(n))
            await writer.drain()
            status = await reader.readline()
            length = 0
            close = False
            while True:
                line = await reader.readline()
                if line in (b"\r\n", b""):
                    break
                lower = line.lower()
                if lower.startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                elif lower.startswith(b"connection:") and b"close" in lower:
                    close = True
            if length:
                await reader.readexactly(length)
            latencies.append(time.perf_counter() - start)
            if not status.startswith((b"HTTP/1.1 2", b"HTTP/1.1 3")):
                raise RuntimeError(status)
            if close:  # the server ended the keep-alive: open a new connection
                writer.close()
                reader, writer = await asyncio.open_connection(host, port)
            n += 1
    finally:
        writer.close()


def run_load(
    base: str,
    make_request,
    clients: int,
    seconds: float,
    max_requests: int,
    latencies: list[float] | None = None,
):
    """``clients`` keep-alive clients for ``seconds`` (or ``max_requests``); returns
    (requests answered, elapsed seconds), adding each latency to ``latencies``."""
    host, port = base.removeprefix("http://").split(":")
    latencies = [] if latencies is None else latencies
    before = len(latencies)
    budget = [max_requests]

    async def main():
        deadline = time.perf_counter() + seconds
        await asyncio.gather(
            *(
                client(host, int(port), make_request(i), deadline, budget, latencies)
                for i in range(clients)
            )
        )

    start = time.perf_counter()
    asyncio.run(main())
    return len(latencies) - before, time.perf_counter() - start


def percentile(sorted_latencies: list[float], p: float) -> float:
    return sorted_latencies[min(len(sorted_latencies) - 1, int(p * len(sorted_latencies)))] * 1000


class Measure:
    """One scenario's requests, time, latencies and server CPU, summed over its slices."""

    def __init__(self):
        self.requests, self.seconds, self.cpu_seconds = 0, 0.0, 0.0
        self.cpu_known = True
        self.latencies: list[float] = []

    @property
    def rate(self) -> float:
        return self.requests / self.seconds

    def figures(self) -> tuple[float, float, float, float, float | None]:
        """req/s, p50, p95, p99 (ms) and the server's CPU ms per request."""
        ordered = sorted(self.latencies)
        cpu = self.cpu_seconds * 1000 / self.requests if self.cpu_known else None
        return (
            self.rate,
            percentile(ordered, 0.50),
            percentile(ordered, 0.95),
            percentile(ordered, 0.99),
            cpu,
        )


def run_interleaved(
    base: str,
    pid: int,
    scenarios: dict,
    clients: int,
    seconds: float,
    slice_seconds: float,
    max_requests: int,
) -> dict[str, Measure]:
    """Each scenario for ``seconds`` in all, in turns of ``slice_seconds``: the
    machine's drift (another tenant, a frequency change) then touches every
    scenario alike, and each share of the floor compares like with like."""
    measures = {name: Measure() for name in scenarios}
    turns = max(1, round(seconds / slice_seconds))
    budget = max(1, max_requests // turns)
    for _ in range(turns):
        for name, make in scenarios.items():
            measure = measures[name]
            before = server_cpu(pid)
            answered, elapsed = run_load(
                base, make, clients, seconds / turns, budget, measure.latencies
            )
            after = server_cpu(pid)
            measure.requests += answered
            measure.seconds += elapsed
            if before is None or after is None:
                measure.cpu_known = False
            else:
                measure.cpu_seconds += after - before
    return measures


def server_cpu(pid: int) -> float | None:
    """CPU seconds (user + system) used so far by the server and its workers, from
    Linux's /proc; None elsewhere."""
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total, found = 0, False
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        if int(stat.parent.name) == pid or int(fields[1]) == pid:  # fields[1]: parent pid
            total += int(fields[11]) + int(fields[12])  # utime, stime
            found = True
    return total / ticks if found else None


def get(path: str, host: str, cookie: str | None = None):
    cookie_line = f"Cookie: {cookie}\r\n" if cookie else ""
    raw = f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{cookie_line}\r\n".encode()
    return lambda _client: lambda _n: raw


def post_json(path: str, host: str, body: bytes):
    raw = (
        f"POST {path} HTTP/1.1\r\nHost: {host}\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    return lambda _client: lambda _n: raw


def post_entry(key: str, host: str, session: Session, run_id: str):
    clients_started = itertools.count()  # each turn's clients post new submissions

    def for_client(_c: int):
        c = next(clients_started)

        def build(n: int) -> bytes:
            body = (
                f"csrf_token={session.csrf}&submission_id={run_id}-{c}-{n}"
                f"&{session.field}={n % 50}" + "".join(f"&{field}=" for field in session.fields[1:])
            ).encode()
            # a plain form post: stored, then 303 back to the (cached) table page. It
            # leaves out the pad's round number, so that phones posting at once each
            # get the next round instead of a conflict over the same one.
            return (
                f"POST /t/{key}/rounds HTTP/1.1\r\nHost: {host}\r\n"
                f"Cookie: {session.cookie}\r\n"
                "Content-Type: application/x-www-form-urlencoded\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            ).encode() + body

        return build

    return for_client


def page_weight(base: str) -> tuple[int, list[str]]:
    with urllib.request.urlopen(base + "/") as response:
        html = response.read()
    assets = re.findall(rb'(?:src|href)="(/static/[^"]+\.(?:js|css))"', html)
    total = len(gzip.compress(html))
    for asset in assets:
        with urllib.request.urlopen(base + asset.decode()) as response:
            total += len(gzip.compress(response.read()))
    external = re.findall(rb'(?:src|href)="(https?://[^"]+)"', html)
    return total, [e.decode() for e in external]


def server_times(base: str, keys: list[str], cookie: str, repeats: int = 300) -> list[float]:
    """Median time of each table's page over one keep-alive connection, as a phone
    reloading it (with its session cookie) waits for it. The tables take turns, so
    each sees the same worker and the same moment."""
    connection = http.client.HTTPConnection(base.removeprefix("http://"), timeout=30)
    times: list[list[float]] = [[] for _ in keys]
    try:
        for _ in range(repeats):
            for key, samples in zip(keys, times, strict=True):
                start = time.perf_counter()
                connection.request("GET", f"/t/{key}", headers={"Cookie": cookie})
                connection.getresponse().read()
                samples.append(time.perf_counter() - start)
    finally:
        connection.close()
    return [statistics.median(samples) * 1000 for samples in times]


def render_time(base: str, key: str, repeats: int = 15) -> float:
    """Median time of the table page's first view after a change (a rendered page,
    not the cache): each time a player is renamed first, which changes the table
    but not its number of entries."""
    session = Session(base, key)
    connection = http.client.HTTPConnection(base.removeprefix("http://"), timeout=30)
    times = []
    try:
        for n in range(repeats):
            player = session.field.removeprefix("points-")
            body = f"csrf_token={session.csrf}&name=Ana{n}"
            connection.request(
                "POST",
                f"/t/{key}/players/{player}/name",
                body=body,
                headers={
                    "Cookie": session.cookie,
                    "Content-Type": "application/x-www-form-urlencoded",
                },
            )
            connection.getresponse().read()
            start = time.perf_counter()
            connection.request("GET", f"/t/{key}", headers={"Cookie": session.cookie})
            connection.getresponse().read()
            times.append(time.perf_counter() - start)
    finally:
        connection.close()
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--max-requests", type=int, default=200_000)
    parser.add_argument(
        "--slice",
        type=float,
        default=1.0,
        help="seconds per turn: the scenarios alternate until each has run --seconds",
    )
    parser.add_argument("--clients", default="1,10,50")
    parser.add_argument("--workers", type=int, help="serve --workers (default: serve's own)")
    parser.add_argument("--threads", type=int, help="serve --threads (default: serve's own)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "load.sqlite"
        keys = make_tables(db)
        proc, base = start_server(db, args.workers, args.threads)
        host = base.removeprefix("http://")
        try:
            session = Session(base, keys["small"])
            posting = Session(base, keys["posts"])
            with urllib.request.urlopen(f"{base}/t/{keys['small']}/version") as response:
                version = re.search(rb"\d+", response.read()).group(0).decode()
            scenarios = {
                # a phone reloading the table: it sends the session cookie it was given
                "(a) table page": get(f"/t/{keys['small']}", host, session.cookie),
                # on a table of their own, so the others keep their size
                "(b) post an entry": post_entry(keys["posts"], host, posting, "load"),
                "(c) poll unchanged": get(
                    f"/t/{keys['small']}/live?v={version}", host, session.cookie
                ),
                "(d) floor /healthz": get("/healthz", host),
                "(e) score API": post_json(
                    "/api/v1/score/cowboy-deal",
                    host,
                    json.dumps(json.loads(SCORE_EXAMPLE.read_text())[0]["request"]).encode(),
                ),
            }
            from scorekeeper import server as serve_defaults

            workers = args.workers or serve_defaults.default_workers()
            threads = args.threads or serve_defaults.DEFAULT_THREADS
            print(
                f"Load on `scorekeeper serve` (granian, {workers} worker process(es) × "
                f"{threads} thread(s), SQLite synchronous=FULL), "
                f"{args.seconds:.0f} s per scenario in turns of {args.slice:g} s, "
                f"at most {args.max_requests:,} requests per scenario"
            )
            print(
                f"{'scenario':<22}{'clients':>8}{'req/s':>9}{'p50 ms':>9}{'p95 ms':>9}"
                f"{'p99 ms':>9}{'of floor':>10}{'cpu ms/req':>12}"
            )

            for clients in [int(c) for c in args.clients.split(",")]:
                measures = run_interleaved(
                    base, proc.pid, scenarios, clients, args.seconds, args.slice, args.max_requests
                )
                floor = measures["(d) floor /healthz"].rate
                for name, measure in measures.items():
                    rps, p50, p95, p99, cpu = measure.figures()
                    cpu_text = f"{cpu:>12.2f}" if cpu is not None else f"{'–':>12}"
                    print(
                        f"{name:<22}{clients:>8}{rps:>9.0f}{p50:>9.1f}{p95:>9.1f}{p99:>9.1f}"
                        f"{rps / floor * 100:>9.0f}%{cpu_text}"
                    )
            print(
                "target: at 10 clients p95 ≤ 25 ms for (a) (b) (c); the shares of the floor "
                "are for comparison only"
            )

            small, big = server_times(base, [keys["small"], keys["big"]], session.cookie)
            print(
                f"\ntable page, median: 10 entries {small:.1f} ms, 1,000 entries {big:.1f} ms "
                f"({(big / small - 1) * 100:+.0f} %; target: at most 20 % slower)"
            )
            small = render_time(base, keys["small"])
            big = render_time(base, keys["big"])
            print(
                f"its first view after a change (rendered, not cached): 10 entries {small:.1f} ms, "
                f"1,000 entries {big:.1f} ms"
            )
            weight, external = page_weight(base)
            print(
                f"first page weight (HTML + CSS + JS, gzip): {weight / 1024:.1f} KB "
                f"(target ≤ 60 KB); third-party requests: {len(external)}"
            )
        finally:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    main()
