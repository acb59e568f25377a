"""The connection to the SQLite file, the write lock writers queue on, and the
write transaction that puts a write on disk before it returns."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote_from_bytes

import sqlite_utils

from .errors import _DATABASE_GONE, _LOCK_FAILED, DatabaseGone, FlushFailed, Unavailable

try:
    import fcntl
except ImportError:  # not on Windows: threads of one process still queue
    fcntl = None

# ---------------------------------------------------------------- connection


SYNCHRONOUS_MODES = ("FULL", "NORMAL")


def connect(
    path: str | Path, synchronous: str = "FULL", create: bool = True
) -> sqlite_utils.Database:
    """Open the database in WAL mode with the settings every connection needs.

    ``isolation_level=None`` leaves transactions to us: each write opens its own
    ``BEGIN IMMEDIATE`` so concurrent writers queue instead of failing late.

    ``synchronous``: FULL (the default) puts every commit on disk before the write
    returns, so an acknowledged entry survives even a power cut; NORMAL syncs at
    checkpoints only, which survives any crash of the server but may lose the last
    moments of a power cut.

    FULL is kept by syncing the write-ahead log ourselves once the write lock is
    released (``transaction``), not by SQLite inside it (its own FULL): the next
    writer then need not wait for this one's disk flush, and flushes that overlap
    are done once. SQLite itself runs at NORMAL, which still syncs the log before
    each checkpoint and the database after it.

    ``create`` False: the file must exist already (the server's connections: the app
    made it at start, so a missing one was removed or moved, and an empty database
    put in its place would answer every link with "no such table").

    The file's identity (device, inode) is noted, so that every write can check
    that the path still names the file it writes (``transaction``).
    """
    if synchronous not in SYNCHRONOUS_MODES:
        raise ValueError(f"synchronous must be one of {SYNCHRONOUS_MODES}")
    in_memory = str(path) == ":memory:"
    if in_memory:
        conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    elif create:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=15)
    else:
        if not os.path.exists(path) and os.path.isdir(os.path.dirname(os.path.abspath(path))):
            # the file alone is gone: removed under a running server, as a write on an
            # older connection finds it (``transaction``), whichever thread asks first
            raise DatabaseGone(_DATABASE_GONE)
        absolute = os.fsencode(os.path.abspath(path))
        conn = sqlite3.connect(
            f"file:{quote_from_bytes(absolute)}?mode=rw",
            uri=True,
            isolation_level=None,
            check_same_thread=False,
            timeout=15,
        )
    conn.execute("PRAGMA busy_timeout = 15000")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    db = sqlite_utils.Database(conn, execute_plugins=False)
    db.write_lock = _write_lock(None if in_memory else str(Path(path).resolve()))
    db.wal_path = None
    db.file_path = None if in_memory else str(path)
    db.file_identity = None if in_memory else _identity(os.stat(path))
    if not in_memory and synchronous == "FULL":
        # the file SQLite itself opened (symbolic links followed): its log sits next to it
        db.wal_path = f"{database_file(conn)}-wal"
    return db


def database_file(conn: sqlite3.Connection) -> str | None:
    """The file SQLite opened for the main database, symbolic links followed; None
    for one in memory. Read as bytes, since a file's name need not be UTF-8."""
    conn.text_factory = bytes
    try:
        name = conn.execute("PRAGMA database_list").fetchone()[2]
    finally:
        conn.text_factory = str
    return os.fsdecode(name) if name else None


def _identity(stat: os.stat_result) -> tuple[int, int]:
    return (stat.st_dev, stat.st_ino)


def check_file(db: sqlite_utils.Database) -> None:
    """Raise ``DatabaseGone`` when the database's path no longer names the file this
    connection has open (removed, its folder moved, or another file put in its place):
    a write there would be answered "saved" and be gone after a restart. One ``stat``."""
    path = getattr(db, "file_path", None)
    if path is None:
        return
    try:
        same = _identity(os.stat(path)) == db.file_identity
    except OSError:
        same = False
    if not same:
        raise DatabaseGone(_DATABASE_GONE)


def sync_log(db: sqlite_utils.Database) -> None:
    """Flush the write-ahead log to disk (FULL durability, see ``connect``). Without
    a log file there is nothing to flush: a checkpoint moved it into the database
    and synced that."""
    path = getattr(db, "wal_path", None)
    if path is None:
        return
    try:
        sync_file(path)
    except FileNotFoundError:
        return


def sync_file(path: str | Path) -> None:
    """Flush one file's written data to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class WriteLock:
    """Writers of one database file queue here, so a waiting writer starts the
    moment the one before it commits, instead of polling in SQLite's busy handler
    (whose back-off sleeps grow to 100 ms): threads of this process on a lock,
    processes (the server's workers, a command run meanwhile) on an ``flock`` of
    ``<file>.lock``. Re-entrant within a thread."""

    def __init__(self, path: str | None):
        self._lock_path = f"{path}.lock" if path and fcntl is not None else None
        self._fd: int | None = None  # open only while locked: no descriptor per database kept
        self._after_fork()

    def _after_fork(self) -> None:
        """A forked worker starts unlocked. Its copy of the descriptor is dropped:
        an ``flock`` belongs to the open file, which a fork shares with the parent."""
        self._threads = threading.RLock()
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self._depth = 0

    def __enter__(self) -> WriteLock:
        self._threads.acquire()
        try:
            if self._depth == 0 and self._lock_path:
                try:
                    fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
                except OSError as exc:  # the folder was moved, or the file is read-only
                    raise Unavailable(_LOCK_FAILED, reason=exc.strerror) from exc
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                except BaseException:
                    os.close(fd)
                    raise
                self._fd = fd
        except BaseException:
            self._threads.release()
            raise
        self._depth += 1
        return self

    def __exit__(self, *exc) -> None:
        self._depth -= 1
        try:
            if self._depth == 0 and self._fd is not None:
                fd, self._fd = self._fd, None
                os.close(fd)  # closing the file releases its flock
        finally:
            self._threads.release()


_write_locks: dict[str, WriteLock] = {}
_write_locks_guard = threading.Lock()


def _reset_write_locks_after_fork() -> None:
    for lock in _write_locks.values():
        lock._after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_write_locks_after_fork)


def _write_lock(path: str | None) -> WriteLock:
    if path is None:
        return WriteLock(None)
    with _write_locks_guard:
        return _write_locks.setdefault(path, WriteLock(path))


def writing(db: sqlite_utils.Database) -> bool:
    """A write transaction (``transaction``) is open on this connection."""
    return bool(getattr(db, "writing", False)) and db.conn.in_transaction


@contextmanager
def transaction(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """One write transaction, taken with the write lock from the start. While it is
    open, ``writing(db)`` is true: whatever hands out this connection meanwhile (the
    web layer's ``get_store``, called by code a write runs) must not end it."""
    lock = getattr(db, "write_lock", None) or _write_lock(None)
    with lock:
        db.conn.execute("BEGIN IMMEDIATE")
        db.writing = True
        try:
            # neither a write nor a replayed answer from a file that is gone
            check_file(db)
            yield db
        except BaseException:
            if db.conn.in_transaction:
                db.conn.execute("ROLLBACK")
            raise
        else:
            db.conn.execute("COMMIT")
            # removed between the check and the commit: it was written, but not kept
            check_file(db)
        finally:
            db.writing = False
    try:
        sync_log(db)  # on disk before the write returns, but with the lock free for the next
    except OSError as exc:
        # committed, so a retry will be told "Already saved."; the player must still
        # learn that the disk failed, not be told it is safe
        raise FlushFailed(str(exc)) from exc
