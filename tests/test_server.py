"""The real server (`scorekeeper serve`): idle, silent and slow connections stall no
one, a phone polling every second keeps its connection, and the server's own
refusals of a broken request say nothing the app's security headers would guard."""

from __future__ import annotations

import re
import signal
import socket
import threading
import time
from pathlib import Path

import pytest
from serving import start_serve

from scorekeeper import server
from scorekeeper.app import SECURITY_HEADERS
from scorekeeper.store import Store

# real servers, their workers and timeouts: run alone, not beside other tests
pytestmark = pytest.mark.serial

HEADER_TIMEOUT_S = server.HEADER_READ_TIMEOUT_MS / 1000


@pytest.fixture
def served(tmp_path):
    """`scorekeeper serve` with two workers; (host, port, a phone's poll path)."""
    db = tmp_path / "served.sqlite"
    s = Store.open(db)
    out = s.create_table("kvanta", "Slow Wi-Fi", ["Ana", "Bojan", "Ceca"], {})
    s.close()
    poll = f"/t/{out['scorer_key']}/live?v=1"
    proc, url, _lines = start_serve(db, "--no-qr", "--workers", "2")
    try:
        host, port = url.removeprefix("http://").split(":")
        yield host, int(port), poll
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)


def fetch(host: str, port: int, path: str, timeout: float = 10) -> tuple[bytes, float]:
    """One request on a fresh connection, as a phone that just joined: (status line,
    seconds until the whole answer arrived)."""
    start = time.perf_counter()
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer.split(b"\r\n", 1)[0], time.perf_counter() - start


def closed_by_server(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        return sock.recv(4096) == b""  # a refusal (408) followed by the close also counts
    except BlockingIOError:
        return False
    except OSError:
        return True


def test_idle_and_dribbling_connections_stall_no_one(served):
    """200 idle connections (100 silent, 100 that sent a request line and stopped)
    and 50 that dribble one header line per second: a fresh phone's poll still
    answers in under a second all along, the slow heads are cut at the header-read
    timeout, and once they are gone the server answers as before."""
    host, port, poll = served
    silent = [socket.create_connection((host, port), timeout=10) for _ in range(100)]
    stalled, dribbling = [], []
    for group, count in ((stalled, 100), (dribbling, 50)):
        for _ in range(count):
            sock = socket.create_connection((host, port), timeout=10)
            sock.sendall(f"GET {poll} HTTP/1.1\r\n".encode())
            group.append(sock)
    stop = threading.Event()

    def dribble():
        line = 0
        while not stop.wait(1):
            line += 1
            for sock in dribbling:
                try:
                    sock.sendall(f"X-Line-{line}: slowly\r\n".encode())
                except OSError:
                    pass  # cut by the server: what it should do

    dribbler = threading.Thread(target=dribble)
    dribbler.start()
    opened = time.monotonic()
    waits = []
    try:
        while time.monotonic() - opened < HEADER_TIMEOUT_S + 2:
            status, seconds = fetch(host, port, poll)
            assert status == b"HTTP/1.1 200 OK"
            waits.append(seconds)
            time.sleep(0.25)
        cut = [closed_by_server(sock) for sock in stalled + dribbling]
    finally:
        stop.set()
        dribbler.join(timeout=10)
        for sock in silent + stalled + dribbling:
            sock.close()
    assert max(waits) < 1.0, waits
    assert all(cut), f"{cut.count(False)} slow heads still open"
    status, seconds = fetch(host, port, poll)
    assert status == b"HTTP/1.1 200 OK" and seconds < 1.0


def test_a_phone_polling_every_second_keeps_its_connection(served):
    """Keep-alive outlasts the poll interval: the same connection carries a poll a
    second for longer than the header-read timeout."""
    host, port, poll = served
    request = f"GET {poll} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
    with socket.create_connection((host, port), timeout=10) as sock:
        reader = sock.makefile("rb")
        for _ in range(int(HEADER_TIMEOUT_S) + 2):
            sock.sendall(request)
            assert reader.readline() == b"HTTP/1.1 200 OK\r\n"
            length = 0
            while (line := reader.readline()) != b"\r\n":
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            reader.read(length)
            time.sleep(1)


BROKEN_REQUESTS = {
    "garbage request line": b"NOT HTTP AT ALL\r\n\r\n",
    "header without a colon": b"GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n",
    "bad content length": b"POST /tables HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n",
    "too many headers": b"GET / HTTP/1.1\r\nHost: x\r\n"
    + b"".join(b"X-%d: a\r\n" % n for n in range(300))
    + b"\r\n",
    "body too large": b"POST /tables HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999\r\n\r\n",
    "header too large": b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 600_000 + b"\r\n\r\n",
}


def answer_to(host: str, port: int, raw: bytes) -> tuple[int, dict[str, str], bytes]:
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(raw)
        answer = b""
        while b"\r\n\r\n" not in answer and (chunk := sock.recv(65536)):
            answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = dict(line.split(": ", 1) for line in lines[1:])
        headers = {name.lower(): value for name, value in headers.items()}
        length = int(headers.get("content-length", "0"))
        while len(body) < length and (chunk := sock.recv(65536)):
            body += chunk
    return int(lines[0].split()[1]), headers, body


def lacks_security_headers(headers: dict[str, str]) -> list[str]:
    return [name for name, value in SECURITY_HEADERS if headers.get(name.lower()) != value]


@pytest.mark.parametrize("name", list(BROKEN_REQUESTS))
def test_the_servers_own_refusals_carry_nothing_unguarded(served, name):
    """A broken request is refused (400, 413, 431); an answer with a body carries
    every security header of the app. granian's own refusals cannot be given
    headers: they carry no body at all and close the connection, so there is no
    page to frame, sniff or run scripts in."""
    host, port, _poll = served
    status, headers, body = answer_to(host, port, BROKEN_REQUESTS[name])
    assert status in (400, 413, 431)
    if body:
        assert lacks_security_headers(headers) == []
        assert b"999999999" not in body and b"no colon" not in body  # nothing echoed
    else:
        assert headers.get("connection") == "close"


@pytest.fixture
def waitress_fallback(tmp_path: Path):
    """The fallback server (where granian has no wheel), in this process."""
    from scorekeeper import create_app

    app = create_app({"DATABASE": str(tmp_path / "w.sqlite"), "SECRET_KEY": "test"})
    fallback = server.waitress_server(app, "127.0.0.1", 0, threads=2)
    runner = threading.Thread(target=fallback.run, daemon=True)
    runner.start()
    try:
        yield "127.0.0.1", fallback.effective_port
    finally:
        # stopped from inside its own loop (as tests/browser/conftest.py does)
        from waitress import wasyncore

        fallback.trigger.pull_trigger(lambda: wasyncore.close_all(fallback._map))
        runner.join(timeout=10)
        fallback.task_dispatcher.shutdown()


# waitress limits a head by its size, not by its number of headers
@pytest.mark.parametrize("name", [name for name in BROKEN_REQUESTS if name != "too many headers"])
def test_the_fallback_servers_own_refusals_carry_the_security_headers(waitress_fallback, name):
    """waitress answers a broken request itself, with a text body: it carries every
    security header of the app (#22)."""
    host, port = waitress_fallback
    status, headers, body = answer_to(host, port, BROKEN_REQUESTS[name])
    assert status in (400, 413, 431)
    assert lacks_security_headers(headers) == []
    assert re.search(rb"999999999|no colon", body) is None


def test_each_worker_may_hold_a_connection_per_phone_of_a_club(tmp_path):
    """A connection is an open file: granian raises the workers' soft limit of open
    files from the usual 1,024 to the hard limit, so a club's phones never exhaust it."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    low = min(soft, 1024)
    resource.setrlimit(resource.RLIMIT_NOFILE, (low, hard))  # as a fresh login shell has it
    try:
        proc, _url, _lines = start_serve(tmp_path / "files.sqlite", "--no-qr", "--workers", "2")
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    try:
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
        deadline = time.monotonic() + 10
        while len(children.read_text().split()) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)  # the second worker may still be starting
        pids = [proc.pid, *(int(pid) for pid in children.read_text().split())]
        assert len(pids) == 3
        for pid in pids:
            limits = Path(f"/proc/{pid}/limits").read_text()
            line = next(line for line in limits.splitlines() if line.startswith("Max open files"))
            assert int(line.split()[3]) == hard, line
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)


def test_a_workers_app_has_every_template_compiled_before_its_first_request(tmp_path, monkeypatch):
    """A worker compiles the templates as it starts: the first tap of a phase after a
    (re)start waits for no compile."""
    monkeypatch.setenv(server.DATABASE_ENV, str(tmp_path / "worker.sqlite"))
    monkeypatch.setattr(server.sys, "setswitchinterval", lambda interval: None)
    app = server.build_app()
    env = app.jinja_env

    def compiled_in_a_request(*args, **kwargs):
        raise AssertionError("a template was compiled after the worker started")

    monkeypatch.setattr(env, "compile", compiled_in_a_request)
    names = env.list_templates(extensions=("html",))
    assert "games/kvanta/_panel.html" in names and "tables/table.html" in names
    for name in names:
        assert env.get_template(name).name == name
    with app.test_client() as phone:
        assert phone.get("/").status_code == 200  # the home page, from compiled templates
