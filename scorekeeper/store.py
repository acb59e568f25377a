"""Storage: one SQLite file through sqlite-utils.

A table's history is append-only. An entry stores the engine request and the
result it produced, with per-player points in a child table; it is never changed
or deleted. Undo, redo and edit are *events* on entries (``voided``,
``restored``, ``superseded``), and an entry is live while its latest event is
neither ``voided`` nor ``superseded``. Totals are sums over live entries, in SQL.

Every write runs in one ``BEGIN IMMEDIATE`` transaction, bumps the table's
version and records its submission id, so a retried form post (flaky Wi-Fi, a
double tap) returns the stored outcome instead of writing twice.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote_from_bytes

import sqlite_utils

from . import validate
from .errors import RuleError
from .messages import LANGUAGES

try:
    import fcntl
except ImportError:  # not on Windows: threads of one process still queue
    fcntl = None

KEY_BYTES = 18  # 144 bits from secrets, URL-safe: a link nobody can guess

# A table's link as an import may bring it: URL-safe, and at least 22 base64url
# characters (132 bits: at least the 128 bits nobody can guess); the app's own are 24.
KEY_FORMAT = re.compile(r"[A-Za-z0-9_-]{22,64}")

# A form's submission id: what the app's pages send (22 characters), with room for a
# client of its own, but never a string that grows the database at will.
SUBMISSION_ID_FORMAT = re.compile(r"[A-Za-z0-9_-]{1,64}")
BAD_SUBMISSION_ID = (
    "This form's submission id is not one the app makes (at most 64 letters, digits, "
    "'-' or '_'); nothing was saved. Reload the page and try again."
)

MAX_TABLE_NAME = 80


class StoreError(Exception):
    """A write the store refuses; the message is for the player."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class NotFound(StoreError):
    pass


class Conflict(StoreError):
    """The write was based on a view that another phone has changed meanwhile."""


class DraftChanged(Conflict):
    """The entry was worked out from a draft that another phone's tap changed meanwhile."""


# SQLite's INTEGER holds -2**63 … 2**63 - 1; a larger number in a query is an error
MAX_ROWID = 2**63 - 1

# Caps that keep a table, and a database, within what a page, a sheet and a disk can
# hold (``Store``; configurable as MAX_ENTRIES_PER_TABLE and MAX_TABLES). A night at
# a table is 50–200 deals, and a Pegs game stores every move, several hundred: 10,000
# entries is weeks of nights at one table, and sums over it still take milliseconds.
# 10,000 tables is a table a night for over 25 years, a few hundred MB at most.
MAX_ENTRIES_PER_TABLE = 10_000
MAX_TABLES = 10_000


def caps(config) -> dict:
    """``Store``'s caps from the app's settings (MAX_ENTRIES_PER_TABLE, MAX_TABLES)."""
    return {
        "max_entries": int(config.get("MAX_ENTRIES_PER_TABLE") or MAX_ENTRIES_PER_TABLE),
        "max_tables": int(config.get("MAX_TABLES") or MAX_TABLES),
    }


# What the table's screens read of its history (``Store.recent_entries``).
RECENT_ROUNDS = 3
RECENT_ENTRIES = 200

# SQL: the latest event of entry ``e`` ('created' without one), and whether it is live
_LAST_EVENT = (
    "COALESCE((SELECT ev.event FROM entry_events ev WHERE ev.entry_id = e.id"
    " ORDER BY ev.id DESC LIMIT 1), 'created')"
)
_LIVE = f"{_LAST_EVENT} NOT IN ('voided', 'superseded')"


# Why SQLite could not do its work when the cause is the machine, not the request:
# its primary result codes (an extended code keeps its primary one in the low byte).
_BUSY = (
    "The database was kept busy by another program for too long, so nothing was saved. "
    "Try again in a moment."
)
_UNAVAILABLE = {
    sqlite3.SQLITE_FULL: (
        "The disk of the computer running Scorekeeper is full, so nothing was saved. "
        "Free some space on it, then try again."
    ),
    sqlite3.SQLITE_READONLY: (
        "Scorekeeper may not write its database (the file or its folder is read-only), "
        "so nothing was saved."
    ),
    sqlite3.SQLITE_CANTOPEN: (
        "Scorekeeper cannot open its database files (a folder that is read-only or was "
        "moved), so nothing was saved."
    ),
    sqlite3.SQLITE_IOERR: (
        "The computer running Scorekeeper could not read or write its disk, so nothing "
        "was saved. Try again; if it keeps happening, check that disk."
    ),
    sqlite3.SQLITE_BUSY: _BUSY,
    sqlite3.SQLITE_LOCKED: _BUSY,
}


class Unavailable(Exception):
    """The database cannot be used for a reason outside the request (its lock file
    or folder is gone or read-only); the message is for the player."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class DatabaseGone(Unavailable):
    """The database's path no longer names the file this connection writes: it was
    removed, moved or replaced while the app ran, so what is written now is lost at
    the next start."""


_DATABASE_GONE = (
    "The database file of Scorekeeper was removed, moved or replaced while it was "
    "running, so changes made now would be lost: this one was not kept. Put the file "
    "back (or restore a backup), then restart Scorekeeper."
)
_LOCK_FAILED = (
    "Scorekeeper cannot open the lock file beside its database ({reason}), so nothing "
    "was saved. Check that its folder is still there and may be written."
)


class FlushFailed(Exception):
    """A write was committed, but the disk refused to flush it (``transaction``): it
    is in the database, yet might not survive a power cut."""


_FLUSH_FAILED = (
    "This was saved, but the disk of the computer running Scorekeeper reported an error "
    "while making it safe, so it may not survive a power cut. Check that disk."
)


def unavailable(exc: BaseException) -> str | None:
    """What to tell a player when the database failed for a reason outside the app
    (a full disk, a read-only file, a failing disk, another program holding it), or
    None when the failure is of another kind. A write that fails so is rolled back
    whole (``transaction``), except when only its flush failed (``FlushFailed``)."""
    if isinstance(exc, FlushFailed):
        return _FLUSH_FAILED
    if isinstance(exc, Unavailable):
        return exc.message
    code = getattr(exc, "sqlite_errorcode", None)
    return _UNAVAILABLE.get(code & 0xFF) if isinstance(code, int) else None


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _unencodable(text: str) -> bool:
    """Text SQLite cannot take: half a character, as a command line gives for bytes
    that are not UTF-8, or JSON for an unpaired \\uD800–\\uDFFF escape."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return True
    return False


def check_submission_id(submission_id: object) -> None:
    """Refuse a submission id no page of the app sends (StoreError)."""
    if not isinstance(submission_id, str) or not SUBMISSION_ID_FORMAT.fullmatch(submission_id):
        raise StoreError(BAD_SUBMISSION_ID)


def clean_player_names(names: Iterable[object]) -> list[str]:
    """Players' names as a table keeps them (``validate.clean_name``), none the same
    as another once case is ignored; StoreError saying which is refused."""
    try:
        cleaned = [validate.clean_name(n, "players", what="A player's name") for n in names]
        validate.distinct_names(cleaned)
    except RuleError as exc:
        raise StoreError(exc.message) from None
    return cleaned


def check_language(language: object) -> None:
    if language not in LANGUAGES:
        raise StoreError(f"A table speaks one of {', '.join(LANGUAGES)}.")


def clean_table_name(name: object) -> str:
    try:
        return validate.clean_name(name, "name", MAX_TABLE_NAME, what="A table's name")
    except RuleError as exc:
        raise StoreError(exc.message) from None


def new_key() -> str:
    # A key starting with "-" reads as an option on a command line
    # (`scorekeeper delete KEY`), so such draws are thrown away: 143.98 bits remain.
    while (key := secrets.token_urlsafe(KEY_BYTES)).startswith("-"):
        pass
    return key


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
                    raise Unavailable(_LOCK_FAILED.format(reason=exc.strerror)) from exc
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


@contextmanager
def transaction(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """One write transaction, taken with the write lock from the start."""
    lock = getattr(db, "write_lock", None) or _write_lock(None)
    with lock:
        db.conn.execute("BEGIN IMMEDIATE")
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
    try:
        sync_log(db)  # on disk before the write returns, but with the lock free for the next
    except OSError as exc:
        # committed, so a retry will be told "Already saved."; the player must still
        # learn that the disk failed, not be told it is safe
        raise FlushFailed(str(exc)) from exc


# ---------------------------------------------------------------- migrations


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    apply: Callable[[sqlite_utils.Database], None]


MIGRATIONS: list[Migration] = []


def migration(version: int, name: str):
    """Register a schema migration; versions must be consecutive."""

    def register(fn: Callable[[sqlite_utils.Database], None]):
        MIGRATIONS.append(Migration(version, name, fn))
        MIGRATIONS.sort(key=lambda m: m.version)
        return fn

    return register


def schema_version(db: sqlite_utils.Database) -> int:
    if not db["schema_migrations"].exists():
        return 0
    row = db.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
    return row[0] or 0


def migrate(db: sqlite_utils.Database, migrations: Iterable[Migration] | None = None) -> list[int]:
    """Apply every pending migration in ONE transaction: the file ends up either
    fully upgraded or untouched. Returns the versions applied.

    Foreign keys are off meanwhile (SQLite ignores that setting inside a transaction,
    so it is set before): a migration that rebuilds a table drops the old one, which
    with them on would delete every row that refers to it (ON DELETE CASCADE)."""
    migrations = sorted(MIGRATIONS if migrations is None else migrations, key=lambda m: m.version)
    foreign_keys = db.execute("PRAGMA foreign_keys").fetchone()[0]
    db.execute("PRAGMA foreign_keys = OFF")
    try:
        with transaction(db):
            db.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            current = schema_version(db)
            applied = []
            for m in migrations:
                if m.version <= current:
                    continue
                m.apply(db)
                db["schema_migrations"].insert(
                    {"version": m.version, "name": m.name, "applied_at": now()}
                )
                applied.append(m.version)
    finally:
        db.execute(f"PRAGMA foreign_keys = {'ON' if foreign_keys else 'OFF'}")
    return applied


@migration(1, "tables, players, entries, events, rolls, submissions")
def _schema_v1(db: sqlite_utils.Database) -> None:
    # a new file numbers its rows with AUTOINCREMENT from the start (why: migration 4,
    # which brings the files made before to the same schema)
    statements = [
        """CREATE TABLE tables (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            scorer_key TEXT NOT NULL UNIQUE,
            watch_key TEXT NOT NULL UNIQUE,
            game TEXT NOT NULL,
            name TEXT NOT NULL,
            settings TEXT NOT NULL DEFAULT '{}',
            created TEXT NOT NULL,
            updated TEXT NOT NULL,
            version INTEGER NOT NULL DEFAULT 1,
            rematch_of INTEGER REFERENCES tables(id) ON DELETE SET NULL
        )""",
        """CREATE TABLE players (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            table_id INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            name TEXT NOT NULL,
            UNIQUE (table_id, seat)
        )""",
        """CREATE TABLE entries (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            table_id INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
            round INTEGER NOT NULL,
            kind TEXT NOT NULL,
            request TEXT NOT NULL,
            result TEXT NOT NULL,
            created TEXT NOT NULL,
            submission_id TEXT UNIQUE,
            supersedes INTEGER REFERENCES entries(id)
        )""",
        "CREATE INDEX entries_table_round ON entries(table_id, round)",
        """CREATE TABLE entry_points (
            entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
            player_id INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
            points INTEGER NOT NULL,
            PRIMARY KEY (entry_id, player_id)
        )""",
        """CREATE TABLE entry_events (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
            event TEXT NOT NULL CHECK (event IN ('voided', 'restored', 'superseded')),
            by_entry INTEGER REFERENCES entries(id),
            created TEXT NOT NULL
        )""",
        "CREATE INDEX entry_events_entry ON entry_events(entry_id, id)",
        # an entry is live while its latest event is neither voided nor superseded
        """CREATE VIEW live_entries AS
            SELECT e.* FROM entries e
            WHERE COALESCE((SELECT ev.event FROM entry_events ev WHERE ev.entry_id = e.id
                            ORDER BY ev.id DESC LIMIT 1), 'created')
                  NOT IN ('voided', 'superseded')""",
        """CREATE TABLE rolls (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            table_id INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
            round INTEGER NOT NULL,
            kind TEXT NOT NULL,
            dice TEXT NOT NULL,
            result TEXT NOT NULL,
            physical INTEGER NOT NULL DEFAULT 0,
            created TEXT NOT NULL,
            submission_id TEXT UNIQUE
        )""",
        "CREATE INDEX rolls_table ON rolls(table_id, id)",
        """CREATE TABLE submissions (
            id TEXT PRIMARY KEY,
            table_id INTEGER REFERENCES tables(id) ON DELETE CASCADE,
            created TEXT NOT NULL,
            outcome TEXT NOT NULL
        )""",
    ]
    for sql in statements:
        db.execute(sql)


@migration(2, "drafts: deals being entered, saved at every tap")
def _schema_v2(db: sqlite_utils.Database) -> None:
    db.execute(
        """CREATE TABLE drafts (
            table_id INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            data TEXT NOT NULL,
            version INTEGER NOT NULL,
            updated TEXT NOT NULL,
            PRIMARY KEY (table_id, name)
        )"""
    )


@migration(3, "submissions: which write each one was")
def _schema_v3(db: sqlite_utils.Database) -> None:
    # rows from before have none: they replay for any write, as they always did
    db.execute("ALTER TABLE submissions ADD COLUMN action TEXT")


# the tables whose row ids name things in links, forms and caches
NUMBERED_TABLES = ("tables", "players", "entries", "entry_events", "rolls")
_CREATE_TABLE = re.compile(r'^CREATE TABLE\s+("?)(\w+)\1\s*\(')
_ROWID_PRIMARY_KEY = re.compile(r"\bid INTEGER PRIMARY KEY\b(?!\s+AUTOINCREMENT)")


@migration(4, "row ids never reused; submissions know the table they were sent on")
def _schema_v4(db: sqlite_utils.Database) -> None:
    """Every numbered table is rebuilt with AUTOINCREMENT, keeping every row and id:
    without it SQLite hands a deleted table's id (and its players' and entries')
    to the next one, and whatever still names the old id (a cached page, a form
    left open) would then show or change the new table. Each table keeps its own
    columns, whatever migrations added them; indexes and views are made again."""
    schema = db.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL"
    ).fetchall()
    create = {name: sql for kind, name, _t, sql in schema if kind == "table"}
    # a file made since migration 1 has them already (nothing to rebuild, nothing freed)
    pending = [table for table in NUMBERED_TABLES if _ROWID_PRIMARY_KEY.search(create[table])]
    # views and triggers may read any table: dropped first (a rename checks them all);
    # a rebuilt table's indexes go with it
    again = [
        sql
        for kind, _name, table, sql in schema
        if pending and (kind in ("view", "trigger") or (kind == "index" and table in pending))
    ]
    for kind, name, _table, _sql in schema:
        if pending and kind in ("view", "trigger"):
            db.execute(f'DROP {kind.upper()} "{name}"')
    for table in pending:
        sql = _ROWID_PRIMARY_KEY.sub("id INTEGER PRIMARY KEY AUTOINCREMENT", create[table])
        sql = _CREATE_TABLE.sub(f'CREATE TABLE "{table}__new" (', sql, count=1)
        db.execute(sql)
        db.execute(f'INSERT INTO "{table}__new" SELECT * FROM "{table}"')
        db.execute(f'DROP TABLE "{table}"')
        db.execute(f'ALTER TABLE "{table}__new" RENAME TO "{table}"')
    for sql in again:
        db.execute(sql)
    # a replay is answered only on the table it was sent on (see ``Store.write``);
    # a table started from a rematch was sent on the table it came from
    db.execute("ALTER TABLE submissions ADD COLUMN scope INTEGER")
    db.execute(
        """UPDATE submissions SET scope = CASE WHEN action = 'create_table'
               THEN (SELECT rematch_of FROM tables WHERE tables.id = submissions.table_id)
               ELSE table_id END"""
    )


@migration(5, "entry_taps: the tap log a game screen's entry was entered with")
def _schema_v5(db: sqlite_utils.Database) -> None:
    """A deal saved from a game screen keeps the log of taps it was entered with, so
    that Edit (or Undo) can bring it back to the screen card by card. Entries saved
    before have none: their screen rebuilds a log from the entry's request. A draft
    keeps its own data: an old-shape one is read by its screen as it was."""
    db.execute(
        """CREATE TABLE IF NOT EXISTS entry_taps (
            entry_id INTEGER PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
            draft TEXT NOT NULL,
            data TEXT NOT NULL
        )"""
    )


@migration(6, "tables.language: the language a table speaks")
def _schema_v6(db: sqlite_utils.Database) -> None:
    db.execute("ALTER TABLE tables ADD COLUMN language TEXT NOT NULL DEFAULT 'en'")


# ---------------------------------------------------------------- records


@dataclass(frozen=True)
class Table:
    id: int
    scorer_key: str
    watch_key: str
    game: str
    name: str
    settings: dict
    created: str
    updated: str
    version: int
    rematch_of: int | None
    language: str = "en"

    @classmethod
    def from_row(cls, row: dict) -> Table:
        data = dict(row)
        data["settings"] = json.loads(data["settings"])
        return cls(**data)


TABLE_FIELDS = tuple(f.name for f in fields(Table))  # the columns of ``tables``, in order


@dataclass(frozen=True)
class Player:
    id: int
    seat: int
    name: str


@dataclass(frozen=True)
class Entry:
    id: int
    round: int
    kind: str
    request: dict
    result: dict
    created: str
    submission_id: str | None
    supersedes: int | None
    state: str  # "live", "voided" (undone) or "superseded" (edited)
    points: dict[int, int]  # player id → points

    @property
    def live(self) -> bool:
        return self.state == "live"


@dataclass
class Tally:
    """Sums and counts over the whole of one table's history (``Store.tally``), kept
    up to date from the rows written since it was made, so that a page of a long
    table reads what changed, not everything. Its size does not grow with the table."""

    scorer_key: str  # the table it counts (a row id alone could name a later table)
    version: int  # the table's version it was brought up to date at
    entry_id: int  # the table's last entry counted
    event_id: int  # the last event on the table's entries counted
    totals: dict[int, int]  # player id → points over live entries
    deals: int  # rounds with a live entry of a kind that is a deal
    history_rows: int  # entries the history shows (all but the edited-away ones)
    kinds: set[str]  # kinds of the table's entries, whatever their state

    def count(self, state: str, points: dict[int, int], sign: int) -> int:
        """Add (``sign`` 1) or take away (-1) one entry in ``state``; returns how many
        live entries that adds to its round (1, -1 or 0)."""
        if state != "superseded":
            self.history_rows += sign
        if state != "live":
            return 0
        for pid, pts in points.items():
            self.totals[pid] = self.totals.get(pid, 0) + sign * pts
        return sign


TALLIES_PER_STORE = 32


def _state(event: str | None) -> str:
    return event if event in ("voided", "superseded") else "live"


def _entry(row: tuple, points: dict[int, int]) -> Entry:
    """An entry from its row (id, round, kind, request, result, created,
    submission_id, supersedes, last event) and its points."""
    return Entry(
        id=row[0],
        round=row[1],
        kind=row[2],
        request=json.loads(row[3]),
        result=json.loads(row[4]),
        created=row[5],
        submission_id=row[6],
        supersedes=row[7],
        state=row[8] if row[8] in ("voided", "superseded") else "live",
        points=points,
    )


# ---------------------------------------------------------------- the store


class Store:
    """Queries and writes for one database file."""

    def __init__(
        self,
        db: sqlite_utils.Database,
        max_entries: int = MAX_ENTRIES_PER_TABLE,
        max_tables: int = MAX_TABLES,
    ):
        self.db = db
        self.max_entries = max_entries  # per table (MAX_ENTRIES_PER_TABLE)
        self.max_tables = max_tables  # per database (MAX_TABLES)

    @classmethod
    def open(cls, path: str | Path) -> Store:
        db = connect(path)
        migrate(db)
        return cls(db)

    def close(self) -> None:
        self.db.close()

    # -- submissions: every write is safe to retry

    def submission(
        self, submission_id: str | None, write: Callable, table_id: int | None | object = ...
    ) -> dict | None:
        """The stored outcome of a submission that ``write`` (a method of this store,
        e.g. ``store.add_entry``) already processed, or None when the id is new. Raises
        ``ReusedSubmission`` when another kind of write used it, or (given ``table_id``,
        the table the form was sent on) when it was sent on another table, as ``write``
        itself would: a view that checks first answers a tampered form as the write does."""
        if not submission_id:
            return None
        check_submission_id(submission_id)
        row = self.db.execute(
            "SELECT outcome, action, scope FROM submissions WHERE id = ?", [submission_id]
        ).fetchone()
        return self._replay(row, write.__name__, table_id) if row else None

    @staticmethod
    def _replay(row: tuple, action: str | None, scope: int | None | object = ...) -> dict:
        """The outcome a stored submission (outcome, action, scope) gives a retry by
        ``action`` on the table ``scope`` (None: a table started from the home page;
        ``...``: not known, by a caller that does not say). A retry is the same form
        sent again, so it names the same write on the same table: any other is a form
        whose id was copied, and is refused rather than told another table's outcome
        (a rematch answered with another table's new link). Rows from before actions
        were recorded have none: they replay for any."""
        stored, done_by, done_on = row
        if (done_by is not None and done_by != action) or (scope is not ... and done_on != scope):
            raise ReusedSubmission(
                "This form was already sent for another change; nothing was "
                "saved. Reload the page and try again."
            )
        return json.loads(stored)

    @contextmanager
    def write(
        self,
        table_id: int | None,
        submission_id: str | None,
        action: str | None = None,
        scope: int | None | object = ...,
    ) -> Iterator[dict]:
        """A write transaction that bumps the table version and records the submission.

        The caller fills the yielded dict with the outcome to remember. If the same
        submission id was already processed by the same ``action`` (the store method's
        name) on the same table, raises ``Replayed`` carrying it; if by another action or
        on another table, the id was not this form's own (a form sends one id per
        action), and ``ReusedSubmission`` refuses it. ``scope``: the table the form was
        sent on, when it is not ``table_id`` (a new table: None, or a rematch's table).
        """
        if submission_id:
            check_submission_id(submission_id)
        if scope is ...:
            scope = table_id
        with transaction(self.db):
            if submission_id:
                done = self.db.execute(
                    "SELECT outcome, action, scope FROM submissions WHERE id = ?",
                    [submission_id],
                ).fetchone()
                if done:
                    raise Replayed(self._replay(done, action, scope))
            outcome: dict = {}
            yield outcome
            tid = outcome.get("table_id", table_id)
            if tid is not None:
                self.db.execute(
                    "UPDATE tables SET version = version + 1, updated = ? WHERE id = ?",
                    [now(), tid],
                )
            if submission_id:
                self._insert(
                    "submissions",
                    {
                        "id": submission_id,
                        "table_id": tid,
                        "created": now(),
                        "outcome": json.dumps(outcome),
                        "action": action,
                        "scope": scope,
                    },
                )

    # -- tables

    def create_table(
        self,
        game: str,
        name: str,
        player_names: list[str],
        settings: dict,
        submission_id: str | None = None,
        rematch_of: int | None = None,
        language: str = "en",
    ) -> dict:
        """Create a table with its players in seat order; returns the outcome
        (``table_id``, ``scorer_key``). A replayed submission returns the first outcome.
        Names are kept as ``clean_names`` gives them (StoreError for a refused one)."""
        name = clean_table_name(name)
        player_names = clean_player_names(player_names)
        check_language(language)
        try:
            with self.write(None, submission_id, "create_table", scope=rematch_of) as outcome:
                self._check_table_room()
                stamp = now()
                table_id = (
                    self.db["tables"]
                    .insert(
                        {
                            "scorer_key": new_key(),
                            "watch_key": new_key(),
                            "game": game,
                            "name": name,
                            "settings": json.dumps(settings, sort_keys=True),
                            "created": stamp,
                            "updated": stamp,
                            "version": 0,
                            "rematch_of": rematch_of,
                            # the column's default is English (and a file made before
                            # migration 6 has no column to write it to)
                            **({"language": language} if language != "en" else {}),
                        }
                    )
                    .last_pk
                )
                self.db["players"].insert_all(
                    {"table_id": table_id, "seat": seat, "name": player_name}
                    for seat, player_name in enumerate(player_names)
                )
                key = self.db.execute(
                    "SELECT scorer_key FROM tables WHERE id = ?", [table_id]
                ).fetchone()[0]
                outcome.update(table_id=table_id, scorer_key=key)
            return outcome
        except Replayed as replay:
            return replay.outcome

    def table(self, table_id: int) -> Table:
        row = self._one("SELECT * FROM tables WHERE id = ?", [table_id])
        if row is None:
            raise NotFound("There is no such table.")
        return Table.from_row(row)

    def table_by_key(self, key: str) -> tuple[Table, str]:
        """Find a table by either of its links; returns (table, 'score' | 'watch')."""
        if not isinstance(key, str) or not key or _unencodable(key):
            raise NotFound("There is no table behind this link; check that it was copied whole.")
        # one query for either link (each column has its own index); every request
        # with a table link starts here
        row = self.db.conn.execute(
            f"SELECT {', '.join(TABLE_FIELDS)}, scorer_key = ? FROM tables "
            "WHERE scorer_key = ? OR watch_key = ?",
            [key, key, key],
        ).fetchone()
        if row is not None:
            *values, is_scorer_key = row
            access = "score" if is_scorer_key else "watch"
            return Table.from_row(dict(zip(TABLE_FIELDS, values, strict=True))), access
        raise NotFound("There is no table behind this link; check that it was copied whole.")

    def version(self, table_id: int) -> int:
        row = self.db.execute("SELECT version FROM tables WHERE id = ?", [table_id]).fetchone()
        if row is None:
            raise NotFound("There is no such table.")
        return row[0]

    def version_by_key(self, key: str) -> int | None:
        row = self.db.execute(
            "SELECT version FROM tables WHERE scorer_key = ? OR watch_key = ?", [key, key]
        ).fetchone()
        return row[0] if row else None

    def list_tables(self) -> list[Table]:
        return [
            Table.from_row(r)
            for r in self._all("SELECT * FROM tables ORDER BY created DESC, id DESC")
        ]

    def delete_table(self, table_id: int) -> None:
        with transaction(self.db):
            self.db.execute("DELETE FROM tables WHERE id = ?", [table_id])

    def rematch(self, table_id: int, submission_id: str | None = None) -> dict:
        """A new table with the same game, players, seats and settings."""
        table = self.table(table_id)
        names = [p.name for p in self.players(table_id)]
        return self.create_table(
            table.game,
            table.name,
            names,
            table.settings,
            submission_id,
            rematch_of=table_id,
            language=table.language,
        )

    def set_language(self, table_id: int, language: str, submission_id: str | None = None) -> dict:
        """The language the table speaks on every phone that has not chosen its own."""
        check_language(language)
        try:
            with self.write(table_id, submission_id, "set_language") as outcome:
                self.db.execute("UPDATE tables SET language = ? WHERE id = ?", [language, table_id])
                outcome.update(language=language)
            return outcome
        except Replayed as replay:
            return replay.outcome

    # -- players

    def players(self, table_id: int) -> list[Player]:
        rows = self.db.execute(
            "SELECT id, seat, name FROM players WHERE table_id = ? ORDER BY seat", [table_id]
        ).fetchall()
        return [Player(*row) for row in rows]

    def rename_player(
        self,
        table_id: int,
        player_id: int,
        name: str,
        submission_id: str | None = None,
        rename_in_draft: Callable[[dict, str, str], dict] | None = None,
    ) -> dict:
        """``rename_in_draft(data, old, new)``: for a game whose drafts name players,
        carries what was typed for them over to the new name, in the same write."""
        try:
            name = clean_player_names([name])[0]
            with self.write(table_id, submission_id, "rename_player") as outcome:
                names = {p.id: p.name for p in self.players(table_id)}
                if player_id not in names:
                    raise NotFound("That player is not at this table.")
                key = validate.name_key(name)
                if any(validate.name_key(n) == key for pid, n in names.items() if pid != player_id):
                    raise StoreError(f"{name!r} is already playing at this table.")
                self.db.execute("UPDATE players SET name = ? WHERE id = ?", [name, player_id])
                old = names[player_id]
                if rename_in_draft is not None and old != name:
                    drafts = self.db.execute(
                        "SELECT name, data FROM drafts WHERE table_id = ?", [table_id]
                    ).fetchall()
                    for draft_name, data in drafts:
                        renamed = rename_in_draft(json.loads(data), old, name)
                        self.db.execute(
                            """UPDATE drafts SET data = ?, version = version + 1, updated = ?
                               WHERE table_id = ? AND name = ?""",
                            [json.dumps(renamed, ensure_ascii=False), now(), table_id, draft_name],
                        )
                outcome.update(player_id=player_id, name=name)
            return outcome
        except Replayed as replay:
            return replay.outcome

    def reorder_players(
        self, table_id: int, player_ids: list[int], submission_id: str | None = None
    ) -> dict:
        """New seat order; allowed only until the first entry."""
        try:
            with self.write(table_id, submission_id, "reorder_players") as outcome:
                current = {p.id for p in self.players(table_id)}
                if sorted(player_ids) != sorted(current) or len(set(player_ids)) != len(player_ids):
                    raise StoreError("The new order must list every player exactly once.")
                if self.db.execute(
                    "SELECT 1 FROM entries WHERE table_id = ? LIMIT 1", [table_id]
                ).fetchone():
                    raise Conflict("Seats are fixed once the first round has been entered.")
                # two steps keep UNIQUE(table_id, seat) satisfied while seats move
                self.db.execute(
                    "UPDATE players SET seat = -seat - 1 WHERE table_id = ?", [table_id]
                )
                for seat, pid in enumerate(player_ids):
                    self.db.execute("UPDATE players SET seat = ? WHERE id = ?", [seat, pid])
                outcome.update(order=player_ids)
            return outcome
        except Replayed as replay:
            return replay.outcome

    # -- entries

    def add_entry(
        self,
        table_id: int,
        round_number: int | None,
        kind: str,
        request: dict,
        result: dict,
        points: dict[int, int],
        submission_id: str | None = None,
        supersedes: int | None = None,
        exclusive_round: bool = False,
        close_draft: str | None = None,
        replaces: Iterable[int] = (),
        based_on_version: int | None = None,
        based_on_draft: tuple[str, int] | None = None,
    ) -> dict:
        """Append an entry (its request, result and points per player id).

        ``round_number`` None: the next round, so concurrent posts never share one.

        ``supersedes``: an edit — the old entry must still be live, else another
        phone changed it meanwhile (Conflict). ``exclusive_round``: refuse when the
        round already has a live entry of this kind (two phones entering one round).
        ``close_draft``: the draft this entry closes is removed in the same transaction.
        ``replaces``: provisional entries this one takes over (a Cowboy deal carries the
        marriages shown during it); they stop counting in the same transaction, and
        undoing this entry brings them back.
        ``based_on_version``: the table version the entry was worked out from (a peg
        move, from the board as it stood); refused (Conflict) when another phone
        changed the table since, so that its change is never overwritten.
        ``based_on_draft``: (name, version) of the draft the entry was worked out from (a
        deal's taps); refused (DraftChanged) when a tap changed it since, so that no tap
        is lost, neither left out of the entry nor closed away with the draft.
        """

        def body(outcome: dict) -> None:
            nonlocal round_number
            self._check_entry_room(table_id)
            self._check_based_on(table_id, based_on_version)
            self._check_draft(table_id, based_on_draft)
            if round_number is None:  # the next round, decided inside the write lock
                round_number = self.next_round(table_id)
            if supersedes is not None:
                old = self._entry_row(table_id, supersedes)
                if not self._is_live(supersedes):
                    raise Conflict(
                        f"Round {old['round']} was changed on another phone meanwhile; "
                        "nothing was saved. Check the history and try again."
                    )
            elif (
                exclusive_round
                and self.db.execute(
                    "SELECT 1 FROM live_entries WHERE table_id = ? AND round = ? AND kind = ?",
                    [table_id, round_number, kind],
                ).fetchone()
            ):
                raise Conflict(
                    f"Round {round_number} was just entered on another phone; "
                    "nothing was saved. Check the history before adding it again."
                )
            entry_id = self._write_entry(
                table_id, round_number, kind, request, result, points, submission_id, supersedes
            )
            for old_id in replaces:
                old = self._entry_row(table_id, old_id)
                if not self._is_live(old_id):
                    raise Conflict(
                        f"Round {old['round']} was changed on another phone meanwhile; "
                        "nothing was saved."
                    )
                self._event(old_id, "superseded", by_entry=entry_id)
            if close_draft is not None:
                self.db.execute(
                    "DELETE FROM drafts WHERE table_id = ? AND name = ?",
                    [table_id, close_draft],
                )
            outcome.update(entry_id=entry_id, round=round_number)

        return self.once(table_id, submission_id, "add_entry", body)

    def void_entry(
        self,
        table_id: int,
        entry_id: int,
        submission_id: str | None = None,
        based_on_version: int | None = None,
    ) -> dict:
        """Undo: the entry stops counting. Undoing an edit brings back what it replaced.
        ``based_on_version``: as for ``add_entry``."""

        def body(outcome: dict) -> None:
            self._check_based_on(table_id, based_on_version)
            row = self._entry_row(table_id, entry_id)
            if not self._is_live(entry_id):
                raise Conflict(
                    f"Round {row['round']} was already undone or changed on another phone."
                )
            self._event(entry_id, "voided")
            for old_id in self._replaced_by(entry_id):
                if self._last_event(old_id) == "superseded":
                    self._event(old_id, "restored", by_entry=entry_id)
            if row["supersedes"] is None:  # an edit undone brings its original back
                self._reopen_undone(table_id, entry_id, row["round"])
            outcome.update(entry_id=entry_id, action="voided", round=row["round"])

        return self.once(table_id, submission_id, "void_entry", body)

    def restore_entry(self, table_id: int, entry_id: int, submission_id: str | None = None) -> dict:
        """Redo: a voided entry counts again (and replaces again what it had replaced)."""

        def body(outcome: dict) -> None:
            row = self._entry_row(table_id, entry_id)
            if self._last_event(entry_id) != "voided":
                raise Conflict(f"Round {row['round']} is not undone; there is nothing to redo.")
            replaced = self._replaced_by(entry_id)
            if any(not self._is_live(old) for old in replaced):
                raise Conflict(
                    f"Round {row['round']} has been changed again since; "
                    "redo the latest version instead."
                )
            self._close_reopened(table_id, entry_id)
            self._event(entry_id, "restored")
            for old in replaced:
                self._event(old, "superseded", by_entry=entry_id)
            outcome.update(entry_id=entry_id, action="restored", round=row["round"])

        return self.once(table_id, submission_id, "restore_entry", body)

    def entries(self, table_id: int, live_only: bool = False) -> list[Entry]:
        source = "live_entries" if live_only else "entries"
        rows = self.db.execute(
            f"""SELECT e.id, e.round, e.kind, e.request, e.result, e.created, e.submission_id,
                       e.supersedes,
                       COALESCE((SELECT ev.event FROM entry_events ev WHERE ev.entry_id = e.id
                                 ORDER BY ev.id DESC LIMIT 1), 'created') AS last_event
                FROM {source} e WHERE e.table_id = ? ORDER BY e.round, e.id""",
            [table_id],
        ).fetchall()
        points = self._points(table_id)
        return [_entry(r, points.get(r[0], {})) for r in rows]

    # -- a long table, read in bounded parts: what a page, poll or sheet shows costs
    # the same at round 10 or 10,000 (only sums and counts run over all of it, in SQL)

    def _entries_by(self, table_id: int, where: str, params: list, order: str, limit: int):
        """Entries of a table that match ``where`` (SQL over ``e``; ``last_event``
        is the entry's latest event), at most ``limit`` in ``order``."""
        rows = self.db.execute(
            f"""SELECT * FROM (
                    SELECT e.id, e.round, e.kind, e.request, e.result, e.created,
                           e.submission_id, e.supersedes, {_LAST_EVENT} AS last_event
                    FROM entries e WHERE e.table_id = ?) e
                WHERE {where} ORDER BY {order} LIMIT ?""",
            [table_id, *params, limit],
        ).fetchall()
        points = self._points_of([r[0] for r in rows])
        return [_entry(r, points.get(r[0], {})) for r in rows]

    def tally(self, table_id: int, not_deals: Iterable[str] = ()) -> Tally:
        """The table's totals, deals and counts (``Tally``), over its whole history.

        Made once per store and table by sums in SQL, then brought up to date from the
        entries and events written since: the table's own rows are never deleted but
        with it, so every new one has a larger id than the last one counted. Read in
        one snapshot, so entries and events agree."""
        not_deals = frozenset(not_deals)
        key = (table_id, not_deals)
        tallies = self.__dict__.setdefault("_tallies", OrderedDict())
        began = not self.db.conn.in_transaction
        if began:
            self.db.conn.execute("BEGIN")
        try:
            row = self.db.execute(
                "SELECT scorer_key, version FROM tables WHERE id = ?", [table_id]
            ).fetchone()
            if row is None:
                tallies.pop(key, None)
                raise NotFound("There is no such table.")
            tally = tallies.get(key)
            if tally is None or tally.scorer_key != row[0]:
                tally = self._new_tally(table_id, not_deals, row[0])
            elif tally.version != row[1]:
                self._update_tally(tally, table_id, not_deals)
            tally.version = row[1]
        finally:
            if began:
                self.db.conn.execute("COMMIT")
        tallies[key] = tally
        tallies.move_to_end(key)
        while len(tallies) > TALLIES_PER_STORE:
            tallies.popitem(last=False)
        return tally

    def _new_tally(self, table_id: int, not_deals: frozenset[str], scorer_key: str) -> Tally:
        marks = ", ".join("?" * len(not_deals)) or "NULL"
        one = self.db.execute
        (last_entry,) = one(
            "SELECT COALESCE(MAX(id), 0) FROM entries WHERE table_id = ?", [table_id]
        ).fetchone()
        (last_event,) = one(
            """SELECT COALESCE(MAX(ev.id), 0) FROM entries e
               JOIN entry_events ev ON ev.entry_id = e.id WHERE e.table_id = ?""",
            [table_id],
        ).fetchone()
        totals = {pid: 0 for (pid,) in one("SELECT id FROM players WHERE table_id = ?", [table_id])}
        totals.update(
            one(
                f"""SELECT ep.player_id, SUM(ep.points)
                    FROM entries e JOIN entry_points ep ON ep.entry_id = e.id
                    WHERE e.table_id = ? AND {_LIVE} GROUP BY ep.player_id""",
                [table_id],
            ).fetchall()
        )
        (deals,) = one(
            f"""SELECT COUNT(DISTINCT e.round) FROM entries e
                WHERE e.table_id = ? AND e.kind NOT IN ({marks}) AND {_LIVE}""",
            [table_id, *not_deals],
        ).fetchone()
        (history_rows,) = one(
            f"SELECT COUNT(*) FROM entries e WHERE e.table_id = ? AND {_LAST_EVENT} != 'superseded'",
            [table_id],
        ).fetchone()
        kinds = {
            k for (k,) in one("SELECT DISTINCT kind FROM entries WHERE table_id = ?", [table_id])
        }
        return Tally(
            scorer_key,
            0,
            last_entry,
            last_event,
            totals,
            deals,
            history_rows,
            kinds,
        )

    def _update_tally(self, tally: Tally, table_id: int, not_deals: frozenset[str]) -> None:
        # (``+e.table_id``, NOT INDEXED: read the rows after the last ids counted, by
        # row id, not every row of the table or every event by an index)
        for (pid,) in self.db.execute("SELECT id FROM players WHERE table_id = ?", [table_id]):
            tally.totals.setdefault(pid, 0)
        dealt: dict[int, int] = {}  # round → live entries of a deal kind added to it

        def count(round_number: int, kind: str, state: str, points: dict, sign: int) -> None:
            added = tally.count(state, points, sign)
            if added and kind not in not_deals:
                dealt[round_number] = dealt.get(round_number, 0) + added

        # events on entries counted before: each such entry leaves its old state
        # (as of the last event counted) for its state now
        changed = self.db.execute(
            """SELECT DISTINCT ev.entry_id, e.round, e.kind FROM entry_events ev NOT INDEXED
               JOIN entries e ON e.id = ev.entry_id
               WHERE ev.id > ? AND +e.table_id = ? AND +e.id <= ?""",
            [tally.event_id, table_id, tally.entry_id],
        ).fetchall()
        if changed:
            points = self._points_of([r[0] for r in changed])
            for entry_id, round_number, kind in changed:
                old = self.db.execute(
                    """SELECT event FROM entry_events WHERE entry_id = ? AND id <= ?
                       ORDER BY id DESC LIMIT 1""",
                    [entry_id, tally.event_id],
                ).fetchone()
                before = _state(old[0] if old else None)
                after = _state(self._last_event(entry_id))
                if before != after:
                    got = points.get(entry_id, {})
                    count(round_number, kind, before, got, -1)
                    count(round_number, kind, after, got, 1)
        added = self.db.execute(
            f"""SELECT e.id, e.round, e.kind, {_LAST_EVENT} FROM entries e
                WHERE +e.table_id = ? AND e.id > ? ORDER BY e.id""",
            [table_id, tally.entry_id],
        ).fetchall()
        if added:
            points = self._points_of([r[0] for r in added])
            for entry_id, round_number, kind, event in added:
                count(round_number, kind, _state(event), points.get(entry_id, {}), 1)
                tally.kinds.add(kind)
            tally.entry_id = added[-1][0]
        # a round counts as dealt while it has a live deal entry: what it has now
        # (one indexed count), less what was just added, is what it had before
        marks = ", ".join("?" * len(not_deals)) or "NULL"
        for round_number, change in dealt.items():
            if not change:
                continue
            (now_live,) = self.db.execute(
                f"""SELECT COUNT(*) FROM entries e WHERE e.table_id = ? AND e.round = ?
                    AND e.kind NOT IN ({marks}) AND {_LIVE}""",
                [table_id, round_number, *not_deals],
            ).fetchone()
            tally.deals += (now_live > 0) - (now_live - change > 0)
        last_event = self.db.execute(
            """SELECT COALESCE(MAX(ev.id), 0) FROM entry_events ev
               JOIN entries e ON e.id = ev.entry_id WHERE ev.id > ? AND +e.table_id = ?""",
            [tally.event_id, table_id],
        ).fetchone()[0]
        tally.event_id = max(tally.event_id, last_event)

    def entry(self, table_id: int, entry_id: int) -> Entry:
        found = self._entries_by(table_id, "e.id = ?", [entry_id], "e.id", 1)
        if not found:
            raise NotFound("There is no such round at this table.")
        return found[0]

    def recent_entries(self, table_id: int, kinds: Iterable[str] | None = None) -> list[Entry]:
        """What a table's screens read of its history, oldest first: every entry of its
        last ``RECENT_ROUNDS`` rounds (at most ``RECENT_ENTRIES`` of them), and the
        latest live entry of each kind, however old (the trumps of a session, the board
        of a race, the last deal's mode). ``kinds``: those the table has, when known
        (``Tally.kinds``)."""
        recent = self._entries_by(
            table_id,
            "e.round > (SELECT COALESCE(MAX(round), 0) FROM entries WHERE table_id = ?) - ?",
            [table_id, RECENT_ROUNDS],
            "e.round DESC, e.id DESC",
            RECENT_ENTRIES,
        )
        seen = {e.id for e in recent}
        if kinds is None:
            kinds = [
                k
                for (k,) in self.db.execute(
                    "SELECT DISTINCT kind FROM entries WHERE table_id = ?", [table_id]
                )
            ]
        latest_ids = []
        for kind in sorted(kinds):
            # newest first along the table's index: stops at the first live one
            row = self.db.execute(
                f"""SELECT e.id FROM entries e WHERE e.table_id = ? AND e.kind = ? AND {_LIVE}
                    ORDER BY e.round DESC, e.id DESC LIMIT 1""",
                [table_id, kind],
            ).fetchone()
            if row is not None and row[0] not in seen:
                latest_ids.append(row[0])
        older = []
        if latest_ids:
            marks = ", ".join("?" * len(latest_ids))
            older = self._entries_by(
                table_id, f"e.id IN ({marks})", latest_ids, "e.id", len(latest_ids)
            )
        return sorted([*recent, *older], key=lambda e: (e.round, e.id))

    def live_newest_first(self, table_id: int, kinds: Iterable[str]) -> Iterator[Entry]:
        """The live entries of these kinds, newest first, read a page at a time, so
        that a reader stopping at the first it needs reads no further."""
        kinds = list(kinds)
        if not kinds:
            return
        marks = ", ".join("?" * len(kinds))
        where = f"e.kind IN ({marks}) AND e.last_event NOT IN ('voided', 'superseded')"
        after: list = []
        while True:
            cursor = "" if not after else " AND (e.round, e.id) < (?, ?)"
            page = self._entries_by(
                table_id, where + cursor, [*kinds, *after], "e.round DESC, e.id DESC", 50
            )
            yield from page
            if len(page) < 50:
                return
            after = [page[-1].round, page[-1].id]

    def history_page(
        self, table_id: int, before: tuple[int, int] | None = None, size: int = 50
    ) -> tuple[list[Entry], bool]:
        """One page of the history as the table shows it (live and undone entries;
        edited-away ones left out), newest first: those before ``before`` (round, id),
        and whether older ones remain."""
        where = "e.last_event != 'superseded'"
        params: list = []
        if before is not None:
            where += " AND (e.round, e.id) < (?, ?)"
            params = list(before)
        rows = self._entries_by(table_id, where, params, "e.round DESC, e.id DESC", size + 1)
        return rows[:size], len(rows) > size

    def first_round(self, table_id: int) -> int:
        row = self.db.execute(
            "SELECT MIN(round) FROM entries WHERE table_id = ?", [table_id]
        ).fetchone()
        return row[0] or 0

    def entry_count(self, table_id: int) -> int:
        """Every entry of the table, undone and edited ones included (what the cap counts)."""
        return self.db.execute(
            "SELECT COUNT(*) FROM entries WHERE table_id = ?", [table_id]
        ).fetchone()[0]

    def _points_of(self, entry_ids: list[int]) -> dict[int, dict[int, int]]:
        out: dict[int, dict[int, int]] = {}
        for start in range(0, len(entry_ids), 500):  # SQLite's limit on parameters
            chunk = entry_ids[start : start + 500]
            marks = ", ".join("?" * len(chunk))
            for entry_id, player_id, pts in self.db.execute(
                f"SELECT entry_id, player_id, points FROM entry_points WHERE entry_id IN ({marks})",
                chunk,
            ).fetchall():
                out.setdefault(entry_id, {})[player_id] = pts
        return out

    def totals(self, table_id: int) -> dict[int, int]:
        """Player id → sum of points over live entries (0 for players with none)."""
        rows = self.db.execute(
            """SELECT p.id, COALESCE(SUM(ep.points), 0)
               FROM players p
               LEFT JOIN entry_points ep ON ep.player_id = p.id
                    AND ep.entry_id IN (SELECT id FROM live_entries WHERE table_id = ?)
               WHERE p.table_id = ? GROUP BY p.id""",
            [table_id, table_id],
        ).fetchall()
        return {pid: total for pid, total in rows}

    def next_round(self, table_id: int) -> int:
        row = self.db.execute(
            "SELECT MAX(round) FROM live_entries WHERE table_id = ?", [table_id]
        ).fetchone()
        return (row[0] or 0) + 1

    def events(self, table_id: int) -> list[dict]:
        """The audit trail of a table, oldest first."""
        return self._all(
            """SELECT ev.id, ev.entry_id, ev.event, ev.by_entry, ev.created, e.round
               FROM entry_events ev JOIN entries e ON e.id = ev.entry_id
               WHERE e.table_id = ? ORDER BY ev.id""",
            [table_id],
        )

    # -- drafts: a deal being entered, saved at every tap; it counts only once closed

    def draft(self, table_id: int, name: str) -> tuple[dict | None, int]:
        """(data, version) of a draft; (None, 0) when there is none."""
        row = self.db.execute(
            "SELECT data, version FROM drafts WHERE table_id = ? AND name = ?", [table_id, name]
        ).fetchone()
        return (json.loads(row[0]), row[1]) if row else (None, 0)

    def save_draft(
        self, table_id: int, name: str, data: dict, expected_version: int | None = None
    ) -> int:
        """Store a draft; returns its new version. ``expected_version``: refuse
        (Conflict) when another phone saved the draft since this one read it."""
        with self.write(table_id, None):
            row = self.db.execute(
                "SELECT version FROM drafts WHERE table_id = ? AND name = ?", [table_id, name]
            ).fetchone()
            current = row[0] if row else 0
            if expected_version is not None and expected_version != current:
                raise Conflict("Another phone changed this deal a moment ago; here is its version.")
            self.db.execute(
                """INSERT INTO drafts (table_id, name, data, version, updated) VALUES (?, ?, ?, ?, ?)
                   ON CONFLICT (table_id, name) DO UPDATE SET data = excluded.data,
                   version = excluded.version, updated = excluded.updated""",
                [table_id, name, json.dumps(data, ensure_ascii=False), current + 1, now()],
            )
        return current + 1

    def delete_draft(self, table_id: int, name: str) -> None:
        with self.write(table_id, None):
            self.db.execute("DELETE FROM drafts WHERE table_id = ? AND name = ?", [table_id, name])

    # -- tap logs: a deal being entered on a game screen, as the list of its taps.
    # The draft's data is ``{"taps": [...], "undone": [...], "context": {...}}``: every
    # tap carries the id its phone made, so a replayed id changes nothing; undo and redo
    # name the tap they mean, so a retried undo never undoes two taps.

    def tap_log(self, table_id: int, name: str) -> TapLog:
        """The draft ``name`` of a table as it stands (``data`` None: no deal begun)."""
        row = self.db.execute(
            """SELECT d.data, d.version, t.version FROM tables t
               LEFT JOIN drafts d ON d.table_id = t.id AND d.name = ? WHERE t.id = ?""",
            [name, table_id],
        ).fetchone()
        if row is None:
            raise NotFound("There is no such table.")
        return TapLog(json.loads(row[0]) if row[0] else None, row[1] or 0, row[2], False)

    def append_tap(
        self,
        table_id: int,
        name: str,
        tap: dict,
        check: Callable[[dict], None],
        start: Callable[[dict | None], dict],
    ) -> TapLog:
        """Add one tap at the end of the log, inside the write lock. A tap whose id is
        already in the log (or was undone) is a retry: nothing changes and the log is
        answered as it stands. ``start(data)`` gives the log a tap is added to when the
        stored one is missing (None) or of an older shape; ``check(new data)`` raises
        (the state refuses the tap, or the phone showed another deal) to store nothing."""
        tap_id = tap.get("id")

        def change(data: dict | None) -> dict:
            data = start(data) if data is None or "context" not in data else data
            spent = data.get("spent", [])
            if tap_id in spent or any(
                t.get("id") == tap_id for t in [*data["taps"], *data["undone"]]
            ):
                raise Unchanged
            # the taps undone can no longer be redone, and their ids stay spent, so a
            # late retry of one is still not applied
            spent = [*spent, *(t.get("id") for t in data["undone"])][-SPENT_TAP_IDS:]
            new = {**data, "taps": [*data["taps"], tap], "undone": [], "spent": spent}
            check(new)
            return new

        return self._change_log(table_id, name, change)

    def undo_tap(self, table_id: int, name: str, tap_id: str) -> TapLog:
        """Take back the tap ``tap_id``, which must be the last one; once taken back, the
        same undo again changes nothing."""

        def change(data: dict | None) -> dict:
            data = data if data and "context" in data else None
            if data and any(t.get("id") == tap_id for t in data["undone"]):
                raise Unchanged
            if not data or not data["taps"]:
                raise Conflict("There is nothing to undo.")
            if data["taps"][-1].get("id") != tap_id:
                raise DraftChanged(
                    "Another tap came after that one (on another phone); nothing was "
                    "undone. Here is the deal as it stands."
                )
            return {
                **data,
                "taps": data["taps"][:-1],
                "undone": [*data["undone"], data["taps"][-1]],
            }

        return self._change_log(table_id, name, change)

    def redo_tap(self, table_id: int, name: str, tap_id: str) -> TapLog:
        """Put back the tap ``tap_id``, the last one taken back; a retry changes nothing."""

        def change(data: dict | None) -> dict:
            data = data if data and "context" in data else None
            if data and any(t.get("id") == tap_id for t in data["taps"]):
                raise Unchanged
            if not data or not data["undone"] or data["undone"][-1].get("id") != tap_id:
                raise DraftChanged("There is nothing to redo: the deal changed since.")
            return {
                **data,
                "taps": [*data["taps"], data["undone"][-1]],
                "undone": data["undone"][:-1],
            }

        return self._change_log(table_id, name, change)

    def _change_log(self, table_id: int, name: str, change: Callable) -> TapLog:
        """One read and one write of a draft inside the write lock (five statements)."""
        try:
            with self.write(table_id, None):
                found = self.tap_log(table_id, name)
                data = change(found.data)
                self.db.execute(
                    """INSERT INTO drafts (table_id, name, data, version, updated)
                       VALUES (?, ?, ?, ?, ?) ON CONFLICT (table_id, name) DO UPDATE SET
                       data = excluded.data, version = excluded.version,
                       updated = excluded.updated""",
                    [
                        table_id,
                        name,
                        json.dumps(data, ensure_ascii=False),
                        found.version + 1,
                        now(),
                    ],
                )
        except Unchanged:
            return found
        return TapLog(data, found.version + 1, found.table_version + 1, True)

    def once(self, table_id: int, submission_id: str | None, action: str, body: Callable) -> dict:
        """A write that a retried form (the same submission id) gets the first answer
        of: ``body(outcome)`` runs inside ``write`` and fills the outcome."""
        try:
            with self.write(table_id, submission_id, action) as outcome:
                body(outcome)
            return outcome
        except Replayed as replay:
            return replay.outcome

    def close_draft_into_entry(
        self,
        table_id: int,
        name: str,
        kind: str,
        request: dict,
        result: dict,
        points: dict[int, int],
        *,
        draft_version: int,
        submission_id: str | None = None,
        also: Iterable[tuple[str, dict, dict, dict[int, int]]] = (),
        replaces: Iterable[int] = (),
    ) -> dict:
        """Save the deal a draft holds as one entry and close the draft, in one
        transaction; the entry keeps the draft's tap log (for Edit). Refused
        (DraftChanged) when a tap changed the draft since ``draft_version``. A draft
        reopened from an entry (its context names ``supersedes``) stores an entry of the
        same round that supersedes the old one: the history keeps both. ``replaces``:
        provisional entries of the deal (a Cowboy deal's marriages, counted while it was
        played) that the entry takes over in their round, as ``add_entry`` does."""
        replaces = tuple(replaces)

        def body(outcome: dict) -> None:
            self._check_entry_room(table_id)
            found = self.tap_log(table_id, name)
            if found.data is None or found.version != draft_version:
                raise DraftChanged(
                    "Another phone changed this deal a moment ago; nothing was saved. "
                    "Check it, then save again."
                )
            context = found.data.get("context") or {}
            old_id = context.get("supersedes")
            if old_id is not None:
                old = self._entry_row(table_id, old_id)
                if not self._is_live(old_id):
                    raise Conflict(
                        f"Round {old['round']} was changed on another phone meanwhile; "
                        "nothing was saved. Check the history and try again."
                    )
                round_number = old["round"]
            elif context.get("reopened") is not None:  # an undone deal saved again
                round_number = context["round"]
            elif replaces:
                round_number = self._entry_row(table_id, replaces[0])["round"]
            else:
                round_number = self.next_round(table_id)
            entry_id = self._write_entry(
                table_id, round_number, kind, request, result, points, submission_id, old_id
            )
            # ``also``: more entries of the same round closed by the same log (a Kvanta
            # round's several scores), as (kind, request, result, points); an edit of
            # such a round supersedes every one of them
            for other in context.get("supersedes_also") or ():
                if self._is_live(other):
                    self._event(other, "superseded", by_entry=entry_id)
            also_ids = []
            for more_kind, more_request, more_result, more_points in also:
                also_ids.append(
                    self._write_entry(
                        table_id, round_number, more_kind, more_request, more_result, more_points
                    )
                )
            for taken in replaces:
                if not self._is_live(taken):
                    raise Conflict(
                        f"Round {round_number} was changed on another phone meanwhile; "
                        "nothing was saved."
                    )
                self._event(taken, "superseded", by_entry=entry_id)
            log = {"taps": found.data["taps"], "context": context, "also": also_ids}
            self._insert(
                "entry_taps",
                {"entry_id": entry_id, "draft": name, "data": json.dumps(log, ensure_ascii=False)},
            )
            self.db.execute("DELETE FROM drafts WHERE table_id = ? AND name = ?", [table_id, name])
            outcome.update(entry_id=entry_id, round=round_number, supersedes=old_id, also=also_ids)

        return self.once(table_id, submission_id, "close_draft_into_entry", body)

    def _also_of(self, entry_id: int) -> list[int]:
        """The other entries of a round closed with this entry's log (``also``)."""
        row = self.db.execute(
            "SELECT data FROM entry_taps WHERE entry_id = ?", [entry_id]
        ).fetchone()
        return list(json.loads(row[0]).get("also") or ()) if row else []

    def entry_taps(self, entry_id: int) -> list[dict] | None:
        """The tap log an entry was saved with; None for one saved without."""
        row = self.db.execute(
            "SELECT data FROM entry_taps WHERE entry_id = ?", [entry_id]
        ).fetchone()
        return json.loads(row[0])["taps"] if row else None

    def reopen_entry(
        self,
        table_id: int,
        name: str,
        entry_id: int,
        kind: str,
        rebuild: Callable[[Entry], list[dict]],
        context: dict,
    ) -> TapLog:
        """Edit: a live entry's tap log back in the draft ``name``, to be changed and
        saved as one entry that supersedes it (``close_draft_into_entry``). ``rebuild``
        makes a log from the entry for one saved without. Refused while another deal is
        being entered in that draft; reopening the same entry again changes nothing."""

        def change(data: dict | None) -> dict:
            current = (data or {}).get("context") or {}
            if current.get("supersedes") == entry_id:
                raise Unchanged
            if data and data.get("taps"):
                raise Conflict(
                    "A deal is being entered: save it or undo its taps before editing another."
                )
            entry = self.entry(table_id, entry_id)
            if entry.kind != kind or not entry.live:
                raise Conflict(f"Round {entry.round} was undone or changed; it cannot be edited.")
            taps = self.entry_taps(entry_id)
            also = [e for e in self._also_of(entry_id) if self._is_live(e)]
            return {
                "taps": rebuild(entry) if taps is None else taps,
                "undone": [],
                "context": {
                    **context,
                    "round": entry.round,
                    "supersedes": entry_id,
                    "supersedes_also": also,
                },
            }

        return self._change_log(table_id, name, change)

    def _reopen_undone(self, table_id: int, entry_id: int, round_number: int) -> None:
        """Inside an undo: a deal saved from a game screen comes back on that screen as
        its tap log (never as an empty deal to tap in again), unless another deal is
        being entered there. Saved again, it takes its round back."""
        row = self.db.execute(
            "SELECT draft, data FROM entry_taps WHERE entry_id = ?", [entry_id]
        ).fetchone()
        if row is None:
            return
        name, log = row[0], json.loads(row[1])
        current = self.tap_log(table_id, name).data
        if current and current.get("taps"):
            return
        if any(self._is_live(e) for e in log.get("also") or ()):
            return  # the round's other entries still count: its log stays with them
        context = {
            **(log.get("context") or {}),
            "players": [p.name for p in self.players(table_id)],
            "round": round_number,
            "supersedes": None,
            "reopened": entry_id,
        }
        data = {"taps": log["taps"], "undone": [], "context": context}
        self.db.execute(
            """INSERT INTO drafts (table_id, name, data, version, updated) VALUES (?, ?, ?, 1, ?)
               ON CONFLICT (table_id, name) DO UPDATE SET data = excluded.data,
               version = version + 1, updated = excluded.updated""",
            [table_id, name, json.dumps(data, ensure_ascii=False), now()],
        )

    def _close_reopened(self, table_id: int, entry_id: int) -> None:
        """Inside a redo: the deal's log reopened by its undo leaves the screen, as long
        as nobody changed it there (else the redo is refused: that work is kept)."""
        row = self.db.execute(
            "SELECT draft, data FROM entry_taps WHERE entry_id = ?", [entry_id]
        ).fetchone()
        if row is None:
            return
        data = self.tap_log(table_id, row[0]).data
        if not data or (data.get("context") or {}).get("reopened") != entry_id:
            return
        if data["taps"] != json.loads(row[1])["taps"]:
            raise Conflict(
                "This deal was reopened and changed on its screen; save it there, "
                "or undo those taps first."
            )
        self.db.execute("DELETE FROM drafts WHERE table_id = ? AND name = ?", [table_id, row[0]])

    def discard_draft(self, table_id: int, name: str, draft_version: int) -> None:
        """Drop a draft (an edit given up), unless a tap changed it since it was shown."""
        with self.write(table_id, None):
            if self.tap_log(table_id, name).version != draft_version:
                raise DraftChanged("Another phone changed this deal a moment ago; it was kept.")
            self.db.execute("DELETE FROM drafts WHERE table_id = ? AND name = ?", [table_id, name])

    # -- rolls: stored the moment they are made, never redone silently

    def add_roll(
        self,
        table_id: int,
        round_number: int,
        kind: str,
        dice: list[int],
        result: dict,
        physical: bool = False,
        submission_id: str | None = None,
        based_on_draft: tuple[str, int] | None = None,
    ) -> dict:
        """Store a roll the moment it is made. ``based_on_draft``: as for ``add_entry``
        (a roll asked for from a screen that another phone's roll has overtaken)."""
        try:
            with self.write(table_id, submission_id, "add_roll") as outcome:
                self._check_draft(table_id, based_on_draft)
                roll_id = self._insert(
                    "rolls",
                    {
                        "table_id": table_id,
                        "round": round_number,
                        "kind": kind,
                        "dice": json.dumps(dice),
                        "result": json.dumps(result),
                        "physical": int(physical),
                        "created": now(),
                        "submission_id": submission_id,
                    },
                )
                outcome.update(roll_id=roll_id, dice=dice, result=result, physical=physical)
            return outcome
        except Replayed as replay:
            return replay.outcome

    def rolls(
        self,
        table_id: int,
        after: int = 0,
        up_to: int | None = None,
        latest: int | None = None,
    ) -> list[dict]:
        """The table's rolls, oldest first: those with an id above ``after`` and (when
        given) at most ``up_to``; ``latest``: only the last so many of them."""
        where, params = "table_id = ? AND id > ?", [table_id, after]
        if up_to is not None:
            where += " AND id <= ?"
            params.append(up_to)
        if latest is None:
            rows = self._all(f"SELECT * FROM rolls WHERE {where} ORDER BY id", params)
        else:
            rows = self._all(
                f"SELECT * FROM rolls WHERE {where} ORDER BY id DESC LIMIT ?", [*params, latest]
            )[::-1]
        for row in rows:
            row["dice"] = json.loads(row["dice"])
            row["result"] = json.loads(row["result"])
            row["physical"] = bool(row["physical"])
        return rows

    def roll_count(self, table_id: int, up_to: int | None = None) -> int:
        sql, params = "SELECT COUNT(*) FROM rolls WHERE table_id = ?", [table_id]
        if up_to is not None:
            sql += " AND id <= ?"
            params.append(up_to)
        return self.db.execute(sql, params).fetchone()[0]

    def last_roll_id(self, table_id: int) -> int:
        row = self.db.execute("SELECT MAX(id) FROM rolls WHERE table_id = ?", [table_id]).fetchone()
        return row[0] or 0

    # -- export, import, backup

    def export_table(self, table_id: int) -> dict:
        """Everything about one table, enough to rebuild it elsewhere."""
        table = self.table(table_id)
        players = self.players(table_id)
        seat_of = {p.id: p.seat for p in players}
        return {
            "format": "scorekeeper-table",
            "format_version": 1,
            "table": {
                "scorer_key": table.scorer_key,
                "watch_key": table.watch_key,
                "game": table.game,
                "name": table.name,
                "settings": table.settings,
                "created": table.created,
                "updated": table.updated,
            },
            "players": [{"seat": p.seat, "name": p.name} for p in players],
            "entries": [
                {
                    "id": e.id,
                    "round": e.round,
                    "kind": e.kind,
                    "request": e.request,
                    "result": e.result,
                    "created": e.created,
                    "supersedes": e.supersedes,
                    "points": {str(seat_of[pid]): pts for pid, pts in e.points.items()},
                }
                for e in self.entries(table_id)
            ],
            "events": [
                {k: ev[k] for k in ("entry_id", "event", "by_entry", "created")}
                for ev in self.events(table_id)
            ],
            "rolls": [
                {k: r[k] for k in ("round", "kind", "dice", "result", "physical", "created")}
                for r in self.rolls(table_id)
            ],
        }

    def import_table(self, data: dict) -> int:
        """Load an export into this database (new internal ids, same links)."""
        if not isinstance(data, dict) or data.get("format") != "scorekeeper-table":
            raise StoreError("This file is not a Scorekeeper table export.")
        self._check_import_room(data)
        if _unencodable(json.dumps(data, ensure_ascii=False, default=str)):
            raise StoreError(
                "This export is damaged: it has half a character "
                "(an unpaired \\uD800–\\uDFFF escape)."
            )
        from .importing import check_export

        # with the app's own rules, before anything is written
        data = check_export(data)
        try:
            t = data["table"]
            with transaction(self.db):
                self._check_table_room()
                for key in (t["scorer_key"], t["watch_key"]):
                    if self.db.execute(
                        "SELECT 1 FROM tables WHERE scorer_key = ? OR watch_key = ?", [key, key]
                    ).fetchone():
                        raise StoreError("This table is already in this database.")
                table_id = (
                    self.db["tables"]
                    .insert(
                        {
                            "scorer_key": t["scorer_key"],
                            "watch_key": t["watch_key"],
                            "game": t["game"],
                            "name": t["name"],
                            "settings": json.dumps(t["settings"], sort_keys=True),
                            "created": t["created"],
                            "updated": t["updated"],
                            "version": 1,
                        }
                    )
                    .last_pk
                )
                player_by_seat = {}
                for p in data["players"]:
                    player_by_seat[str(p["seat"])] = (
                        self.db["players"]
                        .insert({"table_id": table_id, "seat": int(p["seat"]), "name": p["name"]})
                        .last_pk
                    )
                entry_ids: dict[int, int] = {}
                for e in sorted(data["entries"], key=lambda e: e["id"]):
                    new_id = (
                        self.db["entries"]
                        .insert(
                            {
                                "table_id": table_id,
                                "round": int(e["round"]),
                                "kind": e["kind"],
                                "request": json.dumps(e["request"], ensure_ascii=False),
                                "result": json.dumps(e["result"], ensure_ascii=False),
                                "created": e["created"],
                                "supersedes": entry_ids.get(e["supersedes"]),
                            }
                        )
                        .last_pk
                    )
                    entry_ids[e["id"]] = new_id
                    self.db["entry_points"].insert_all(
                        {"entry_id": new_id, "player_id": player_by_seat[seat], "points": int(pts)}
                        for seat, pts in e["points"].items()
                    )
                for ev in data["events"]:
                    self.db["entry_events"].insert(
                        {
                            "entry_id": entry_ids[ev["entry_id"]],
                            "event": ev["event"],
                            "by_entry": entry_ids.get(ev["by_entry"]),
                            "created": ev["created"],
                        }
                    )
                for r in data.get("rolls", []):
                    self.db["rolls"].insert(
                        {
                            "table_id": table_id,
                            "round": int(r["round"]),
                            "kind": r["kind"],
                            "dice": json.dumps(r["dice"]),
                            "result": json.dumps(r["result"]),
                            "physical": int(bool(r["physical"])),
                            "created": r["created"],
                        }
                    )
            return table_id
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StoreError(f"This export is incomplete or damaged ({exc!s}).") from None

    def backup(self, path: str | Path) -> None:
        """A consistent copy of the whole database, taken while it is in use.

        The copy is written beside ``path`` and moved over it once complete and on
        disk, so a backup already there is replaced whole or not at all."""
        path = Path(path)
        database = Path(database_file(self.db.conn) or ":memory:")
        if path.resolve() in {database, Path(f"{database}-wal"), Path(f"{database}-shm")}:
            raise StoreError(f"{path} is the database itself; back it up to another file.")
        partial = path.with_name(f".{path.name}.{secrets.token_hex(4)}.partial")
        try:
            target = sqlite3.connect(str(partial))
            try:
                self.db.conn.backup(target)
            finally:
                target.close()
            sync_file(partial)
            os.replace(partial, path)
        finally:
            partial.unlink(missing_ok=True)

    # -- internals

    def _check_table_room(self) -> None:
        """Inside a write: refuse a new table once the database holds ``max_tables``."""
        count = self.db.execute("SELECT COUNT(*) FROM tables").fetchone()[0]
        if count >= self.max_tables:
            raise TooMany(
                f"This database holds {count:,} tables, the most it may; nothing was saved. "
                "Delete tables that are done with (scorekeeper delete KEY) to make room."
            )

    def _check_entry_room(self, table_id: int) -> None:
        """Inside a write: refuse an entry once the table holds ``max_entries``."""
        if self.entry_count(table_id) >= self.max_entries:
            raise TooMany(
                f"This table holds {self.max_entries:,} entries, the most one table may; "
                "nothing was saved. Start a rematch to play on at a fresh table."
            )

    def _check_import_room(self, data: dict) -> None:
        """Refuse, before writing anything, an export with more entries than a table may hold."""
        entries = data.get("entries")
        if isinstance(entries, list) and len(entries) > self.max_entries:
            raise TooMany(
                f"This export has {len(entries):,} entries, more than the {self.max_entries:,} "
                "one table may hold; nothing was imported."
            )

    def _check_draft(self, table_id: int, based_on_draft: tuple[str, int] | None) -> None:
        """Inside a write: refuse a change worked out from an older version of a draft."""
        if based_on_draft is None:
            return
        name, version = based_on_draft
        if self.draft(table_id, name)[1] != version:
            raise DraftChanged(
                "Another phone changed this deal a moment ago; nothing was saved. "
                "Check it, then save again."
            )

    def _check_based_on(self, table_id: int, based_on_version: int | None) -> None:
        """Inside a write: refuse a change worked out from an older state of the table."""
        if based_on_version is not None and self.version(table_id) != based_on_version:
            raise Conflict(
                "Another phone changed this table a moment ago; nothing was saved. "
                "Check the board, then tap again."
            )

    def _write_entry(
        self,
        table_id: int,
        round_number: int,
        kind: str,
        request: dict,
        result: dict,
        points: dict[int, int],
        submission_id: str | None = None,
        supersedes: int | None = None,
    ) -> int:
        """One entry with its points (and the superseded entry's event), inside a write."""
        if not set(points) <= {p.id for p in self.players(table_id)}:
            raise StoreError("Points were given for someone who is not at this table.")
        entry_id = self._insert(
            "entries",
            {
                "table_id": table_id,
                "round": round_number,
                "kind": kind,
                "request": json.dumps(request, ensure_ascii=False),
                "result": json.dumps(result, ensure_ascii=False),
                "created": now(),
                "submission_id": submission_id,
                "supersedes": supersedes,
            },
        )
        self.db.conn.executemany(
            "INSERT INTO entry_points (entry_id, player_id, points) VALUES (?, ?, ?)",
            [(entry_id, pid, int(pts)) for pid, pts in points.items()],
        )
        if supersedes is not None:
            self._event(supersedes, "superseded", by_entry=entry_id)
        return entry_id

    def _insert(self, table: str, row: dict) -> int:
        """One row into one of our own tables; returns its rowid. Plain SQL, because
        sqlite-utils' ``insert`` inspects the schema on every call, which costs more
        than the write itself on the hot paths (every entry, event and submission)."""
        columns = ", ".join(row)
        marks = ", ".join("?" * len(row))
        cursor = self.db.conn.execute(
            f"INSERT INTO {table} ({columns}) VALUES ({marks})", list(row.values())
        )
        return cursor.lastrowid

    def _event(self, entry_id: int, event: str, by_entry: int | None = None) -> None:
        self._insert(
            "entry_events",
            {"entry_id": entry_id, "event": event, "by_entry": by_entry, "created": now()},
        )

    def _replaced_by(self, entry_id: int) -> list[int]:
        """Entries this one superseded (an edit's original, a deal's provisional entries)."""
        rows = self.db.execute(
            """SELECT DISTINCT entry_id FROM entry_events
               WHERE event = 'superseded' AND by_entry = ? ORDER BY entry_id""",
            [entry_id],
        ).fetchall()
        return [r[0] for r in rows]

    def _last_event(self, entry_id: int) -> str:
        row = self.db.execute(
            "SELECT event FROM entry_events WHERE entry_id = ? ORDER BY id DESC LIMIT 1", [entry_id]
        ).fetchone()
        return row[0] if row else "created"

    def _is_live(self, entry_id: int) -> bool:
        return self._last_event(entry_id) not in ("voided", "superseded")

    def _entry_row(self, table_id: int, entry_id: int) -> dict:
        row = self._one("SELECT * FROM entries WHERE id = ? AND table_id = ?", [entry_id, table_id])
        if row is None:
            raise NotFound("There is no such round at this table.")
        return row

    def _points(self, table_id: int) -> dict[int, dict[int, int]]:
        rows = self.db.execute(
            """SELECT ep.entry_id, ep.player_id, ep.points FROM entry_points ep
               JOIN entries e ON e.id = ep.entry_id WHERE e.table_id = ?""",
            [table_id],
        ).fetchall()
        out: dict[int, dict[int, int]] = {}
        for entry_id, player_id, pts in rows:
            out.setdefault(entry_id, {})[player_id] = pts
        return out

    def _all(self, sql: str, params: list | None = None) -> list[dict]:
        cursor = self.db.execute(sql, params or [])
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def _one(self, sql: str, params: list | None = None) -> dict | None:
        rows = self._all(sql, params)
        return rows[0] if rows else None


class TooMany(StoreError):
    """A write past a cap: entries per table or tables per database."""


class ReusedSubmission(StoreError):
    """A submission id already used by another kind of write: not a retry of this one."""


SPENT_TAP_IDS = 500  # ids of taps undone and no longer redoable, kept against late retries


@dataclass(frozen=True)
class TapLog:
    """A draft's tap log as read or just written: its data (None: no deal begun), its
    version, the table's version, and whether this call changed it (False: a retry)."""

    data: dict | None
    version: int
    table_version: int
    changed: bool

    @property
    def editing(self) -> bool:
        """The log reopens a saved entry (an Edit), rather than a deal being played."""
        return bool(self.data and (self.data.get("context") or {}).get("supersedes") is not None)


class Unchanged(Exception):
    """Raised inside a tap-log write (by the store, or by a ``check``): the change is
    already made (a retry, a tap that is already so); nothing is written."""


class Replayed(Exception):
    """Raised inside ``Store.write`` when the submission id was already processed."""

    def __init__(self, outcome: dict):
        super().__init__("replayed submission")
        self.outcome = outcome
