"""`scorekeeper serve`: waitress in one or more worker processes on one socket.

Python runs one thread at a time per process, so one process uses one core
however many threads it has. A few single-threaded worker processes use every
core, and a write never waits for the interpreter lock: with a second thread in
the process, the writer holding the database's write lock had to win the
interpreter lock back after each SQLite call, and every other writer waited
meanwhile. The workers share one listening socket, bound before they start. A
phone keeps its connection open all evening, so which worker takes it matters:
each worker publishes how many connections it holds, and only those holding the
fewest listen for new ones (``ConnectionCounts``).

Everything the workers share lives in the database: rendered pages are cached
per table version, which each request reads, and writers of one file queue on a
lock that spans processes (``store.WriteLock``).
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import socket
import sys
import time
import traceback
from multiprocessing.sharedctypes import RawArray

# The interval after which a thread waiting for the interpreter lock asks the
# running one to give it up. Python's 5 ms suits long computations; our requests
# take about a millisecond, and a short one should not wait behind a long one.
SWITCH_INTERVAL_S = 0.001

DEFAULT_THREADS = 1
MAX_DEFAULT_WORKERS = 8  # a club's tables never need more


def default_workers() -> int:
    """Two workers per core this process may use, at most ``MAX_DEFAULT_WORKERS``.

    More workers than cores, so that a worker busy with a long request (a PDF) or
    waiting for the write lock leaves the cores to the others. Measured on 2 cores
    (bench/load.py, 10 phones, 5 s runs): 4 workers × 1 thread answered the table
    page at p95 15 ms and a posted entry at 25 ms (658 posts/s); 4 × 2 at 17 and
    37 ms (492 posts/s)."""
    if not hasattr(os, "fork"):
        return 1
    if hasattr(os, "sched_getaffinity"):
        cores = len(os.sched_getaffinity(0))
    else:
        cores = os.cpu_count() or 1
    return max(1, min(MAX_DEFAULT_WORKERS, 2 * cores))


class ConnectionCounts:
    """Open connections per worker, in memory the forked workers share.

    Left to the kernel, a new connection goes to whichever worker wakes first, and
    one worker could end up with most of the phones while another idles. Here a
    worker listens only while it holds no more connections than the least busy one.
    A slot with no live worker reads as full, so it never holds the others back.
    Counts are read without a lock: a stale one only misplaces a connection."""

    NO_WORKER = 2**31 - 1

    def __init__(self, workers: int):
        self.counts = RawArray("i", [self.NO_WORKER] * workers)

    def publish(self, slot: int, connections: int) -> bool:
        """Record this worker's count; whether it may take a new connection now."""
        self.counts[slot] = connections
        return connections <= min(self.counts)

    def vacate(self, slot: int) -> None:
        self.counts[slot] = self.NO_WORKER


def listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(1024)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def _quiet_waitress() -> None:
    # waitress warns whenever a request waits for a free thread; in a busy room
    # that is every request, and writing the warning costs more than the wait
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)


def run_worker(
    app,
    sock: socket.socket,
    threads: int,
    balance: tuple[ConnectionCounts, int] | None = None,
) -> None:
    """Serve on ``sock`` in this process; ``balance``: the shared counts and this
    worker's slot in them."""
    from waitress import create_server

    _quiet_waitress()
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    # a stop (SIGTERM) leaves through Python, so that exit handlers run
    # (the one in printing removes WeasyPrint's temporary font folder)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    server = create_server(app, sockets=[sock], threads=threads, ident="scorekeeper")
    if balance is not None:
        counts, slot = balance
        may_listen = server.readable  # waitress asks before each wait for events

        def readable() -> bool:
            listening = may_listen()  # always called: it also closes idle connections
            return counts.publish(slot, len(server.active_channels)) and listening

        take = server.handle_accept

        def handle_accept() -> None:
            # a worker idle in its wait may have started listening before another
            # came to hold fewer: it leaves the connection to that one
            if counts.publish(slot, len(server.active_channels)):
                take()

        server.readable = readable
        server.handle_accept = handle_accept
    try:
        server.run()
    except (KeyboardInterrupt, SystemExit):
        pass


def _die_with_parent(parent: int) -> None:
    """A worker must not outlive the server it belongs to (a killed server must
    leave no process holding its port or its database)."""
    if sys.platform.startswith("linux"):
        import ctypes

        PR_SET_PDEATHSIG = 1
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(0)


def serve(app, sock: socket.socket, workers: int, threads: int) -> None:
    """Serve ``app`` on ``sock`` until interrupted: in this process when
    ``workers`` is 1, else in that many forked workers, replaced if one dies."""
    if workers <= 1 or not hasattr(os, "fork"):
        run_worker(app, sock, threads)
        return

    parent = os.getpid()
    counts = ConnectionCounts(workers)
    children: dict[int, int] = {}  # pid → slot

    def spawn(slot: int) -> None:
        pid = os.fork()
        if pid == 0:  # the worker: it never returns into the parent's code
            code = 0
            try:
                _die_with_parent(parent)
                run_worker(app, sock, threads, (counts, slot))
            except BaseException:
                traceback.print_exc()
                code = 1
            finally:
                atexit._run_exitfuncs()
                os._exit(code)
        children[pid] = slot

    stopping = False

    def stop(signum, frame):
        nonlocal stopping
        stopping = True
        for pid in list(children):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    signal.signal(signal.SIGTERM, stop)
    for slot in range(workers):
        spawn(slot)
    try:
        while children:
            try:
                pid, _status = os.wait()
            except ChildProcessError:
                break
            except KeyboardInterrupt:
                stop(signal.SIGINT, None)
                continue
            slot = children.pop(pid, None)
            if slot is None:
                continue
            counts.vacate(slot)
            if not stopping:  # a worker crashed: the others serve while it restarts
                time.sleep(0.1)
                spawn(slot)
    finally:
        stop(signal.SIGTERM, None)
