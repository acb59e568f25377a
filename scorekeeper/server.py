"""`scorekeeper serve`: the app under granian, a Rust HTTP server with its own
worker processes (waitress in one process where granian cannot be installed).

Measured side by side on 2 cores shared with other work (bench/load.py's
scenarios at 10 and 50 clients, the servers taking turns each second, then 200
idle plus 50 dribbling connections): at 10 clients granian (4 workers) answered
the table page, a post and a poll in p95 8.8 / 25 / 5.2 ms, gunicorn's threaded
workers in 15 / 22 / 11 ms and waitress in one process in 23 / 33 / 19 ms; the
bare route served 6,500, 2,500 and 1,800 requests/s.
Among the slow connections a fresh request took at most 17 ms on granian, which
cut all 250 at its header-read timeout; gunicorn did not answer it within 10 s,
and waitress answered (18 ms) but kept all 250 open as long as they dribbled.

Why granian holds up: connections are read by its Rust runtime, not by Python
threads, so an idle or slow connection costs a socket and a few kilobytes, never a
worker; Python sees a request only once its head has arrived. A head that does not
arrive whole within ``HEADER_READ_TIMEOUT_MS`` closes the connection, and the same
limit ends a kept-alive connection left idle that long (a phone polling every
second never is). Granian has no limit of connections per client address, and a
connection that never sends a byte is kept until its client closes it: what an
address can hold is bounded by the open-file limit of each worker (granian raises
its soft limit to the hard one), and holding them delays no one else's request.

Everything the workers share lives in the database: rendered pages are cached per
table version, which each request reads, and writers of one file queue on a lock
that spans processes (``store.WriteLock``, reset in each forked worker by the
store's own fork hook). Each worker builds the app from ``worker_app``, so a worker
started by ``spawn`` (macOS, Windows) works as one forked on Linux.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable

# The interval after which a thread waiting for the interpreter lock asks the
# running one to give it up. Python's 5 ms suits long computations; our requests
# take about a millisecond, and the server's own threads hand requests over.
SWITCH_INTERVAL_S = 0.001

DEFAULT_THREADS = 4
MAX_DEFAULT_WORKERS = 8  # a club's tables never need more

# A request's head (its request line and headers, one packet from a phone) must
# arrive whole within this; a kept-alive connection idle this long is closed.
# Phones poll every second, so theirs stay open; a head sent slowly is cut.
HEADER_READ_TIMEOUT_MS = 5_000
# A worker that died is replaced after this pause (granian's crash-loop guard
# stops the server if one keeps dying within seconds).
RESPAWN_INTERVAL_S = 0.5
WORKER_STOP_TIMEOUT_S = 10  # seconds (granian takes whole ones)
# What the waitress fallback reads of a request at most (granian's limits: 100
# headers in a buffer of 408 KB, the rest refused by the app's MAX_CONTENT_LENGTH).
MAX_HEADER_BYTES = 64 * 1024
MAX_BODY_BYTES = 1024 * 1024
# The connections the kernel queues for accepting before refusing more.
BACKLOG = 2048

# The environment variable that tells each worker which database to serve: a
# worker started by ``spawn`` shares nothing else with the command that started it.
DATABASE_ENV = "SCOREKEEPER_SERVE_DATABASE"
SERVER_PID_ENV = "SCOREKEEPER_SERVE_PID"  # the process whose workers these are


def default_workers() -> int:
    """One worker per core this process may use, at most ``MAX_DEFAULT_WORKERS``, each
    with ``DEFAULT_THREADS`` threads: a thread waiting for the disk's flush or the write
    lock, or busy with a long request (a PDF), leaves its worker to the others. On a club
    night (``bench/club.py``, 2 cores) this kept a tap's p95 under 100 ms at 200 tables,
    where two single-threaded workers per core passed it at 200."""
    if hasattr(os, "sched_getaffinity"):
        cores = len(os.sched_getaffinity(0))
    else:
        cores = os.cpu_count() or 1
    return max(1, min(MAX_DEFAULT_WORKERS, cores))


def check_listen(host: str, port: int) -> int:
    """The port to serve on (a free one for 0), after checking that ``host`` and
    ``port`` can be listened on, so that a mistake is told in one line before any
    worker starts. The socket is closed again: granian binds its own."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(1)
        return sock.getsockname()[1]


def _die_with_parent() -> None:
    """A worker must not outlive the server it belongs to (a killed server must
    leave no process holding its port or its database)."""
    if sys.platform.startswith("linux"):
        import ctypes

        PR_SET_PDEATHSIG = 1
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if str(os.getppid()) != os.environ.get(SERVER_PID_ENV):  # it died before the line above
        os._exit(0)


def _run_exit_handlers_on_stop() -> None:
    """A worker stopped by the server leaves through multiprocessing, which skips
    Python's exit handlers; the one in printing removes WeasyPrint's temporary font
    folder, so they are run as the worker's last finaliser."""
    import atexit
    from multiprocessing import util

    util.Finalize(None, atexit._run_exitfuncs, exitpriority=0)


def _stop_while_starting() -> None:
    """A worker is forked with the server's stop handlers, which only set a flag in the
    worker's copy of the server; its own handlers come once its app is built (a second
    or so: the templates are compiled). A stop (SIGTERM, Ctrl+C) in between was lost,
    and the server waited for that worker for ever. Until then a stop ends the worker
    at once: it has nothing to finish yet."""
    for stop in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stop, signal.SIG_DFL)


def worker_app():
    """The app, built in each worker (granian's factory)."""
    _stop_while_starting()
    _die_with_parent()
    _run_exit_handlers_on_stop()
    return build_app()


def build_app():
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    from .app import compile_templates, create_app

    database = os.environ.get(DATABASE_ENV)
    app = create_app(database=database)  # settings from the environment too
    compile_templates(app)
    return app


def _when_listening(host: str, port: int, ready: Callable[[], None]) -> None:
    """Calls ``ready`` in a thread once a worker accepts connections on the port, so
    that the address is printed only when a phone can open it."""
    if host in ("0.0.0.0", ""):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"

    def wait() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection((host, port), timeout=1).close()
            except OSError:
                time.sleep(0.02)
                continue
            ready()
            return

    threading.Thread(target=wait, daemon=True).start()


def serve(
    host: str,
    port: int,
    database: str | None,
    workers: int,
    threads: int,
    ready: Callable[[], None] = lambda: None,
) -> None:
    """Serve until stopped (Ctrl+C or SIGTERM), on ``port`` as ``check_listen``
    returned it; ``ready`` is called once it accepts connections."""
    if database:
        os.environ[DATABASE_ENV] = database
    else:
        os.environ.pop(DATABASE_ENV, None)
    os.environ[SERVER_PID_ENV] = str(os.getpid())
    try:
        from granian.constants import Interfaces
        from granian.http import HTTP1Settings
        from granian.log import LogLevels
        from granian.server import Server
    except ImportError:
        # one process: the threads the workers would have had
        _when_listening(host, port, ready)
        _serve_with_waitress(host, port, workers * threads)
        return

    class Granian(Server):
        def startup(self, spawn_target, target_loader):
            super().startup(spawn_target, target_loader)
            # only once every worker is forked: a fork copies the locks a running
            # thread holds (printing holds stdout's), never their release
            _when_listening(host, port, ready)

    Granian(
        f"{__name__}:worker_app",
        factory=True,
        address=host,
        port=port,
        interface=Interfaces.WSGI,
        workers=workers,
        blocking_threads=threads,
        backlog=BACKLOG,
        http1_settings=HTTP1Settings(header_read_timeout=HEADER_READ_TIMEOUT_MS),
        websockets=False,
        # granian warns at start when workers outnumber cores, which they do on purpose
        log_level=LogLevels.error,
        respawn_failed_workers=True,
        respawn_interval=RESPAWN_INTERVAL_S,
        # a worker that has not stopped this long after the server was told to is
        # killed (its exit handlers skipped), so a stop never waits for ever
        workers_kill_timeout=WORKER_STOP_TIMEOUT_S,
    ).serve()


def _serve_with_waitress(host: str, port: int, threads: int) -> None:
    server = waitress_server(build_app(), host, port, threads)
    try:
        server.run()
    except KeyboardInterrupt:
        pass


def waitress_server(app, host: str, port: int, threads: int):
    """The fallback: one process. Its event loop reads every connection, so a slow
    one occupies no thread; a connection idle for the header-read timeout is closed.
    Its own refusals (a malformed head, too large a request) carry the app's
    security headers, as the app's answers do."""
    import logging

    from waitress.channel import HTTPChannel
    from waitress.server import create_server
    from waitress.task import ErrorTask

    from .app import SECURITY_HEADERS

    class SecureErrorTask(ErrorTask):
        def execute(self):
            self.response_headers.extend(SECURITY_HEADERS)
            super().execute()

    class Channel(HTTPChannel):
        error_task_class = SecureErrorTask

    # waitress warns whenever a request waits for a free thread; in a busy room
    # that is every request, and writing the warning costs more than the wait
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    server = create_server(
        app,
        host=host,
        port=port,
        threads=threads,
        connection_limit=1000,
        channel_timeout=HEADER_READ_TIMEOUT_MS // 1000,
        # refused by waitress itself, before a byte is buffered for the app: the
        # app's own limit (MAX_CONTENT_LENGTH) is far below
        max_request_header_size=MAX_HEADER_BYTES,
        max_request_body_size=MAX_BODY_BYTES,
        ident="scorekeeper",
    )
    server.channel_class = Channel
    return server
