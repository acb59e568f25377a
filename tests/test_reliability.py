"""Nothing acknowledged is lost: the real server (`scorekeeper serve`) killed with
SIGKILL while phones post, a migration killed half way, and two phones racing
for the same round."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
import requests
from conftest import failing_flush, snapshot
from serving import listening, start_serve

from scorekeeper.store import MIGRATIONS, Store, schema_version

# real servers, their workers and timeouts: run alone, not beside other tests
pytestmark = pytest.mark.serial

HX = {"HX-Request": "true"}


class Server:
    """`scorekeeper serve` as a subprocess on a free port."""

    def __init__(self, db: Path, workers: int = 2, env: dict | None = None):
        self.proc, self.url, _printed = start_serve(
            db, "--no-qr", "--workers", str(workers), env={**os.environ, **(env or {})}
        )

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)


class Phone:
    """A requests session that has loaded the table page (cookie + CSRF token)."""

    def __init__(self, server_url: str, table_path: str):
        self.session = requests.Session()
        self.table_url = server_url + table_path
        html = self.session.get(self.table_url, timeout=10).text
        self.csrf = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
        self.fields = re.findall(r'name="(points-\d+)"', html)

    def post_round(self, round_no: int, points: int, submission_id: str, **extra):
        data = {
            "csrf_token": self.csrf,
            "submission_id": submission_id,
            "round": str(round_no),
            self.fields[0]: str(points),
            **extra,
        }
        return self.session.post(self.table_url + "/rounds", data=data, headers=HX, timeout=10)


def make_table(db: Path) -> str:
    s = Store.open(db)
    out = s.create_table("kvanta", "Crash test", ["Ana", "Bojan", "Ceca"], {})
    s.close()
    return f"/t/{out['scorer_key']}"


def test_every_acknowledged_entry_survives_sigkill(tmp_path):
    db = tmp_path / "crash.sqlite"
    table_path = make_table(db)
    server = Server(db)
    acknowledged: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()

    def client(n: int):
        phone = Phone(server.url, table_path)
        for i in range(10_000):
            if stop.is_set():
                return
            sid = f"c{n}-{i}"
            try:
                response = phone.post_round(n * 100_000 + i + 1, 1, sid)
            except requests.RequestException:
                return  # the server died under us: this one was never acknowledged
            if response.status_code == 200:
                with lock:
                    acknowledged.append(sid)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 20
    while len(acknowledged) < 40 and time.monotonic() < deadline:
        time.sleep(0.05)
    server.kill()  # mid-stream: the clients are still posting
    stop.set()
    for t in threads:
        t.join(timeout=20)
    assert len(acknowledged) >= 40

    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    rows = dict(conn.execute("SELECT submission_id, COUNT(*) FROM entries GROUP BY submission_id"))
    conn.close()
    missing = [sid for sid in acknowledged if rows.get(sid) != 1]
    assert missing == []

    # the restarted server serves the same history, and a retry is still stored once
    server = Server(db)
    try:
        phone = Phone(server.url, table_path)
        again = phone.post_round(1, 1, acknowledged[0])
        assert again.status_code == 200
        conn = sqlite3.connect(db)
        count = conn.execute(
            "SELECT COUNT(*) FROM entries WHERE submission_id = ?", [acknowledged[0]]
        ).fetchone()[0]
        conn.close()
        assert count == 1
    finally:
        server.kill()


def worker_pids(parent: int) -> set[int]:
    """The live child processes of ``parent`` (from /proc)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent and fields[0] != "Z":
            found.add(int(stat.parent.name))
    return found


def all_gone(pids: set[int]) -> bool:
    """None of these processes is left (reaped, or never was)."""
    return not any(Path(f"/proc/{pid}").exists() for pid in pids)


def wait_for(predicate, seconds: float = 10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def test_a_crashed_worker_is_replaced_and_none_outlives_the_server(tmp_path):
    db = tmp_path / "workers.sqlite"
    table_path = make_table(db)
    server = Server(db, workers=2)
    try:
        assert wait_for(lambda: len(worker_pids(server.proc.pid)) == 2)
        first = worker_pids(server.proc.pid)
        crashed = min(first)
        os.kill(crashed, signal.SIGKILL)
        assert wait_for(lambda: len(worker_pids(server.proc.pid) - {crashed}) == 2)
        # its replacement listens once its app is built, beside the other worker
        port = int(server.url.rsplit(":", 1)[1])
        assert wait_for(lambda: listening(port) == 2, seconds=30)
        # the table is still served, and a write goes through, whichever worker answers
        phone = Phone(server.url, table_path)
        for i in range(6):
            assert phone.post_round(i + 1, 5, f"after-crash-{i}").status_code == 200
        workers = worker_pids(server.proc.pid)
    finally:
        server.kill()
    # a killed server takes its workers with it: nothing keeps its port or its file
    assert wait_for(lambda: all_gone(workers))


def cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # user + system


def test_idle_workers_sleep(tmp_path):
    """Waiting for phones costs nothing: no worker spins while nobody asks."""
    server = Server(tmp_path / "idle.sqlite", workers=2)
    try:
        assert wait_for(lambda: len(worker_pids(server.proc.pid)) == 2)
        time.sleep(0.5)  # past start-up
        workers = worker_pids(server.proc.pid)
        before = {pid: cpu_ticks(pid) for pid in workers}
        time.sleep(2)
        used = {pid: cpu_ticks(pid) - before[pid] for pid in workers}
    finally:
        server.kill()
    ticks_per_second = os.sysconf("SC_CLK_TCK")
    assert all(ticks <= ticks_per_second // 10 for ticks in used.values()), used  # ≤ 5 %


@pytest.mark.parametrize("workers", [1, 2])
def test_a_stopped_server_cleans_up_after_its_workers(tmp_path, workers):
    """SIGTERM (a service manager's stop) ends every worker through Python's exit
    handlers: nothing is left in the temporary folder (WeasyPrint's fonts)."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    server = Server(tmp_path / "stop.sqlite", workers=workers, env={"TMPDIR": str(temporary)})
    try:
        for _ in range(4):  # whichever worker answers, it renders
            with requests.Session() as browser:
                response = browser.get(server.url + "/print/vezimas/rule-card.pdf", timeout=60)
                assert response.status_code == 200
        assert any(temporary.iterdir()), "no worker rendered a PDF"
        workers = worker_pids(server.proc.pid)
        server.proc.send_signal(signal.SIGTERM)
        assert server.proc.wait(timeout=20) == 0
    finally:
        if server.proc.poll() is None:
            server.kill()
    assert wait_for(lambda: all_gone(workers))
    assert list(temporary.iterdir()) == []


def test_a_server_stopped_while_its_workers_start_stops_at_once(tmp_path):
    """SIGTERM as soon as the server answers, while its other workers are still
    building their app: the server and every worker end within seconds (the stop
    was lost in a starting worker, and the server waited for it for ever)."""
    for attempt in range(3):  # the window is a worker's start: tried a few times
        proc, _url, _printed = start_serve(
            tmp_path / f"early-{attempt}.sqlite", "--no-qr", "--workers", "3", every_worker=False
        )
        workers = worker_pids(proc.pid)
        proc.send_signal(signal.SIGTERM)
        try:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pytest.fail(f"the server was still running 5 s after SIGTERM (try {attempt + 1})")
            assert wait_for(lambda gone=workers: all_gone(gone))
        finally:  # what a failure leaves running is stopped, not left to the next test
            for pid in worker_pids(proc.pid) | workers | {proc.pid}:
                if Path(f"/proc/{pid}").exists():
                    os.kill(pid, signal.SIGKILL)
            proc.wait(timeout=10)


def test_a_migration_killed_half_way_leaves_the_file_untouched(tmp_path):
    db = tmp_path / "migrate.sqlite"
    s = Store.open(db)
    out = s.create_table("cowboy", "Old", ["A", "B", "C"], {})
    s.close()
    version = len(MIGRATIONS)
    # a slow upgrade that rewrites every table; killed before it can commit
    script = textwrap.dedent(
        f"""
        import sys, time
        from scorekeeper import store

        def slow(db):
            db.execute("ALTER TABLE tables ADD COLUMN colour TEXT")
            db.execute("CREATE TABLE big (n INTEGER)")
            for i in range(200):
                db.execute("INSERT INTO big VALUES (?)", [i])
            print("half way", flush=True)
            time.sleep(60)

        migrations = [*store.MIGRATIONS, store.Migration({version + 1}, "slow", slow)]
        store.migrate(store.connect({str(db)!r}), migrations)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "half way"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)

    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    columns = [row[1] for row in conn.execute("PRAGMA table_info(tables)")]
    assert "colour" not in columns
    assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'big'").fetchone() is None
    conn.close()
    s = Store.open(db)  # the normal upgrade still works on it
    assert schema_version(s.db) == version
    assert s.table(out["table_id"]).name == "Old"


def test_two_phones_editing_the_same_round_one_wins(tmp_path):
    db = tmp_path / "race.sqlite"
    table_path = make_table(db)
    server = Server(db)
    try:
        first = Phone(server.url, table_path)
        created = first.post_round(1, 10, "seed")
        assert created.status_code == 200
        entry = int(re.search(r'data-entry="(\d+)"', created.text).group(1))
        for attempt in range(5):
            phones = [Phone(server.url, table_path) for _ in range(2)]
            barrier = threading.Barrier(2)
            results = []

            def edit(phone, points, sid, barrier=barrier, results=results, entry=entry):
                barrier.wait()
                results.append(phone.post_round(1, points, sid, supersedes=str(entry)))

            threads = [
                threading.Thread(target=edit, args=(phones[i], 20 + i, f"edit-{attempt}-{i}"))
                for i in range(2)
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=20)
            statuses = sorted(r.status_code for r in results)
            assert statuses == [200, 409], statuses
            loser = next(r for r in results if r.status_code == 409)
            assert "changed on another phone" in loser.text
            # exactly one live version of round 1, no lost update, no duplicate
            conn = sqlite3.connect(db)
            live = conn.execute("SELECT id FROM live_entries WHERE round = 1").fetchall()
            conn.close()
            assert len(live) == 1
            entry = live[0][0]
    finally:
        server.kill()


@pytest.fixture
def served_store(app):
    """The connection the app's views use in this thread (the test client's)."""
    from scorekeeper.web.tables import get_store

    with app.test_request_context():
        return get_store()


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain"])
def test_a_full_disk_is_a_503_that_says_nothing_was_saved(
    client, new_table, served_store, store, htmx
):
    """A write that runs out of disk space is rolled back whole, and the phone is told
    why, instead of "Something went wrong". The same form sent again once there is
    room is saved, once."""
    url, page = new_table()
    field = page.player_fields()[0]
    pages = served_store.db.execute("PRAGMA page_count").fetchone()[0]
    served_store.db.execute(f"PRAGMA max_page_count = {pages}")  # the disk, as good as full
    before = snapshot(store)
    data = {"csrf_token": page.csrf, "submission_id": "full-1", field: "7"}
    for n in range(90):  # until the file must grow (short of the game's end: 500 points)
        data[field] = str(1 + n % 9)
        data["submission_id"] = f"full-{n}"
        response = client.post(url + "/rounds", data=data, headers=HX if htmx else {})
        if response.status_code != (200 if htmx else 303):
            break
        before = snapshot(store)
    body = response.get_data(as_text=True)
    assert response.status_code == 503, body[:300]
    assert response.headers["Retry-After"] == "5"
    assert "disk of the computer running Scorekeeper is full, so nothing was saved" in body
    assert "Something went wrong" not in body
    assert snapshot(store) == before
    served_store.db.execute("PRAGMA max_page_count = 1073741823")  # space freed
    again = client.post(url + "/rounds", data=data, headers=HX if htmx else {})
    assert again.status_code == (200 if htmx else 303)
    rounds = snapshot(store)[2]
    assert len(rounds) == len(before[2]) + 1
    assert client.post(url + "/rounds", data=data).status_code == 303  # a retry: saved once
    assert snapshot(store)[2] == rounds


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain"])
def test_a_flush_that_fails_after_the_commit_is_not_called_safe(
    client, new_table, store, monkeypatch, htmx
):
    """The round is committed before the log is flushed. When the flush fails, the
    round is in the database, yet the phone must not be told it is safe: it is told
    the disk failed. Sent again, it is "Already saved.", never a second round."""
    from scorekeeper import store as store_module

    url, page = new_table()
    data = {"csrf_token": page.csrf, "submission_id": "eio-1", page.player_fields()[0]: "9"}
    monkeypatch.setattr(store_module.connection, "sync_file", failing_flush)
    response = client.post(url + "/rounds", data=data, headers=HX if htmx else {})
    body = response.get_data(as_text=True)
    assert response.status_code == 503, body[:300]
    assert response.headers["Retry-After"] == "5"
    assert "This was saved, but the disk of the computer running Scorekeeper" in body
    assert "may not survive a power cut" in body
    assert "Something went wrong" not in body
    rounds = snapshot(store)[2]
    assert len(rounds) == 1

    monkeypatch.undo()  # the disk answers again
    again = client.post(url + "/rounds", data=data, headers=HX)
    assert again.status_code == 200
    assert "Already saved." in again.get_data(as_text=True)
    assert snapshot(store)[2] == rounds


def test_a_read_only_database_is_a_503_that_says_so(client, new_table, served_store):
    url, page = new_table()
    served_store.db.execute("PRAGMA query_only = ON")  # as a read-only file answers
    response = client.post(
        url + "/rounds",
        data={"csrf_token": page.csrf, "submission_id": "ro-1", page.player_fields()[0]: "5"},
        headers=HX,
    )
    assert response.status_code == 503
    assert "may not write its database" in response.get_data(as_text=True)
    assert served_store.entries(served_store.list_tables()[0].id) == []
