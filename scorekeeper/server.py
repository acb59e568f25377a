"""`scorekeeper serve`: waitress in one or more worker processes on one socket.

Python runs one thread at a time per process, so one process uses one core
however many threads it has, and its threads spend much of a busy evening
handing the interpreter lock to each other (every SQLite call gives it up).
A few worker processes with two threads each use every core and keep that
hand-over cheap. The workers share one listening socket, bound before they
start, and the kernel gives each new connection to one of them.

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

# The interval after which a thread waiting for the interpreter lock asks the
# running one to give it up. Python's 5 ms suits long computations; our requests
# take about a millisecond, and a short one should not wait behind a long one.
SWITCH_INTERVAL_S = 0.001

DEFAULT_THREADS = 2
MAX_DEFAULT_WORKERS = 8  # a club's tables never need more


def default_workers() -> int:
    """Two workers per core this process may use, at most ``MAX_DEFAULT_WORKERS``.

    More workers than cores, because a phone keeps its connection open and the
    kernel gives a new connection to whichever worker takes it first: with one
    worker per core, one of them often ends up with most of the phones while
    another idles. Measured on 2 cores (bench/load.py, 10 phones): 4 workers × 2
    threads served the table page at p95 17 ms, 2 × 4 at 33 ms."""
    if not hasattr(os, "fork"):
        return 1
    if hasattr(os, "sched_getaffinity"):
        cores = len(os.sched_getaffinity(0))
    else:
        cores = os.cpu_count() or 1
    return max(1, min(MAX_DEFAULT_WORKERS, 2 * cores))


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


def run_worker(app, sock: socket.socket, threads: int) -> None:
    from waitress import create_server

    _quiet_waitress()
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    # a stop (SIGTERM) leaves through Python, so that exit handlers run
    # (the one in printing removes WeasyPrint's temporary font folder)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    server = create_server(app, sockets=[sock], threads=threads, ident="scorekeeper")
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
    children: set[int] = set()

    def spawn() -> None:
        pid = os.fork()
        if pid == 0:  # the worker: it never returns into the parent's code
            code = 0
            try:
                _die_with_parent(parent)
                run_worker(app, sock, threads)
            except BaseException:
                traceback.print_exc()
                code = 1
            finally:
                atexit._run_exitfuncs()
                os._exit(code)
        children.add(pid)

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
    for _ in range(workers):
        spawn()
    try:
        while children:
            try:
                pid, _status = os.wait()
            except ChildProcessError:
                break
            except KeyboardInterrupt:
                stop(signal.SIGINT, None)
                continue
            children.discard(pid)
            if not stopping:  # a worker crashed: the others serve while it restarts
                time.sleep(0.1)
                spawn()
    finally:
        stop(signal.SIGTERM, None)
