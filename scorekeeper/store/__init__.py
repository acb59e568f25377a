"""Storage: one SQLite file through sqlite-utils.

A table's history is append-only. An entry stores the engine request and the
result it produced, with its per-player points in its own row; it is never changed
or deleted. Undo, redo and edit are *events* on entries (``voided``,
``restored``, ``superseded``), and an entry is live while its latest event is
neither ``voided`` nor ``superseded``. Totals are sums over live entries, in SQL.

Every write runs in one ``BEGIN IMMEDIATE`` transaction, bumps the table's
version and records its submission id, so a retried form post (flaky Wi-Fi, a
double tap) returns the stored outcome instead of writing twice (``Store.once``).

Within one request, what the store read of a table is read once (``Store.begin_memo``):
kept only while the table's version shows it current, checked again under the write
lock, and never kept past the request.

The parts: ``connection`` (the file, its write lock and transaction), ``migrations``
(the schema), ``records`` (what rows become, limits and checks), ``errors``, and the
parts of :class:`Store`: ``tables`` (tables and players), ``entries`` (the history,
its sums, rolls), ``drafts`` (deals being entered, tap logs) and ``transfer``
(export, import, backup). Everything is importable from here.
"""

from __future__ import annotations

import secrets

from .base import StoreBase
from .connection import (
    SYNCHRONOUS_MODES,
    WriteLock,
    check_file,
    connect,
    database_file,
    sync_file,
    sync_log,
    transaction,
    writing,
)
from .drafts import Drafts
from .entries import Entries
from .errors import (
    Conflict,
    DatabaseGone,
    DraftChanged,
    FlushFailed,
    NotFound,
    Replayed,
    ReusedSubmission,
    RoundAhead,
    StoreError,
    TooMany,
    Unavailable,
    Unchanged,
    unavailable,
)
from .migrations import MIGRATIONS, NUMBERED_TABLES, Migration, migrate, migration, schema_version
from .records import (
    _LAST_EVENT,
    _LIVE,
    BAD_SUBMISSION_ID,
    KEY_BYTES,
    KEY_FORMAT,
    LANGUAGES,
    MAX_ENTRIES_PER_TABLE,
    MAX_ROWID,
    MAX_SUBMISSION_ID,
    MAX_TABLE_NAME,
    MAX_TABLES,
    RECENT_ENTRIES,
    RECENT_ROUNDS,
    SPENT_TAP_IDS,
    SUBMISSION_ID_FORMAT,
    TABLE_FIELDS,
    Entry,
    Player,
    Table,
    Tally,
    TapLog,
    caps,
    check_language,
    check_submission_id,
    clean_player_names,
    clean_table_name,
    closed_draft,
    new_key,
    now,
    spent_taps,
)
from .tables import Tables
from .transfer import Transfer, history_csv


class Store(Tables, Entries, Drafts, Transfer, StoreBase):
    """Queries and writes for one database file."""


__all__ = [
    "_LAST_EVENT",
    "_LIVE",
    "BAD_SUBMISSION_ID",
    "KEY_BYTES",
    "KEY_FORMAT",
    "LANGUAGES",
    "MAX_ENTRIES_PER_TABLE",
    "MAX_ROWID",
    "MAX_TABLE_NAME",
    "MAX_TABLES",
    "MIGRATIONS",
    "NUMBERED_TABLES",
    "RECENT_ENTRIES",
    "RECENT_ROUNDS",
    "closed_draft",
    "SPENT_TAP_IDS",
    "MAX_SUBMISSION_ID",
    "SUBMISSION_ID_FORMAT",
    "SYNCHRONOUS_MODES",
    "TABLE_FIELDS",
    "Conflict",
    "DatabaseGone",
    "DraftChanged",
    "Entry",
    "FlushFailed",
    "Migration",
    "NotFound",
    "Player",
    "Replayed",
    "ReusedSubmission",
    "Store",
    "RoundAhead",
    "StoreError",
    "Table",
    "Tally",
    "TapLog",
    "TooMany",
    "Unavailable",
    "Unchanged",
    "WriteLock",
    "caps",
    "check_file",
    "check_language",
    "check_submission_id",
    "clean_player_names",
    "clean_table_name",
    "connect",
    "database_file",
    "history_csv",
    "migrate",
    "migration",
    "new_key",
    "new_submission_id",
    "now",
    "spent_taps",
    "schema_version",
    "sync_file",
    "sync_log",
    "transaction",
    "unavailable",
    "writing",
]


def new_submission_id() -> str:
    """A Save button's id, made with the page: a retried Save is applied once."""
    return secrets.token_urlsafe(16)
