"""The schema, as numbered migrations: a file of any older version is upgraded
in one transaction, with nothing lost."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import sqlite_utils

from .connection import transaction
from .records import now

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


@migration(6, "tables.language: the language a table's pages speak")
def _schema_v6(db: sqlite_utils.Database) -> None:
    """Every table made before speaks English, as the app did then."""
    db.execute("ALTER TABLE tables ADD COLUMN language TEXT NOT NULL DEFAULT 'en'")


@migration(7, "an entry carries the tap log it closed: its draft and its submission with it")
def _schema_v7(db: sqlite_utils.Database) -> None:
    """Saving a deal writes one row. The entry keeps its tap log (``taps``) and the draft
    it came from (``closes``), and says which write of that draft it closed
    (``closes_at``: the table version its own write made; ``drafts.at``: the one each
    write of a draft made): the draft is closed without being deleted, and is open again
    at its next write. Its submission id is the entry's own, so a retried save finds it
    there. The logs kept before move into their entries; those drafts were deleted."""
    db.execute("ALTER TABLE entries ADD COLUMN taps TEXT")
    db.execute("ALTER TABLE entries ADD COLUMN closes TEXT")
    db.execute("ALTER TABLE entries ADD COLUMN closes_at INTEGER")
    db.execute("ALTER TABLE drafts ADD COLUMN at INTEGER")
    db.execute(
        """UPDATE entries SET
               taps = (SELECT t.data FROM entry_taps t WHERE t.entry_id = entries.id),
               closes = (SELECT t.draft FROM entry_taps t WHERE t.entry_id = entries.id)
           WHERE id IN (SELECT entry_id FROM entry_taps)"""
    )
    db.execute("DROP TABLE entry_taps")
    db.execute(
        "CREATE INDEX entries_closes ON entries(table_id, closes, closes_at)"
        " WHERE closes_at IS NOT NULL"
    )


@migration(8, "an entry carries its points: player id → points, in its own row")
def _schema_v8(db: sqlite_utils.Database) -> None:
    """An entry's points are part of what it says, written with it and never changed:
    its row keeps them (``points``, a JSON object of player id → points, as the entry
    was given them), so saving a deal writes one row, not two. The points kept in
    ``entry_points`` move into their entries, and that table goes."""
    db.execute("ALTER TABLE entries ADD COLUMN points TEXT NOT NULL DEFAULT '{}'")
    db.execute(
        """UPDATE entries SET points = (SELECT json_group_object(ep.player_id, ep.points)
               FROM entry_points ep WHERE ep.entry_id = entries.id)
           WHERE id IN (SELECT entry_id FROM entry_points)"""
    )
    db.execute("DROP TABLE entry_points")
