"""What every part of the store shares: the connection, the one write transaction
that a retried form gets the first answer of, the caps, and plain SQL helpers."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Self

import sqlite_utils

from ..messages import Text
from .connection import connect, transaction
from .errors import Conflict, DraftChanged, Replayed, ReusedSubmission, TooMany
from .migrations import migrate
from .records import MAX_ENTRIES_PER_TABLE, MAX_TABLES, check_submission_id, now


def writes_as(action: str):
    """The action a write records with its submission id, when it is not the method's
    own name: the operations that each add an entry in their own way record one
    action, so a retry is known whichever of them the view checks with."""

    def mark(method: Callable) -> Callable:
        method.action = action
        return method

    return mark


def action_of(write: Callable) -> str:
    return getattr(write, "action", write.__name__)


class StoreBase:
    """The connection and the write every operation of the store goes through."""

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
    def open(cls, path: str | Path) -> Self:
        db = connect(path)
        migrate(db)
        return cls(db)

    def close(self) -> None:
        self.db.close()

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
        return self._replay(row, action_of(write), table_id) if row else None

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
                Text(
                    "This form was already sent for another change; nothing was "
                    "saved. Reload the page and try again."
                )
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

    def once(
        self,
        table_id: int | None,
        submission_id: str | None,
        action: str,
        body: Callable[[dict], None],
        scope: int | None | object = ...,
    ) -> dict:
        """The one idempotent write: a retried form (the same submission id) gets the
        first answer. ``body(outcome)`` runs inside ``write`` and fills the outcome;
        ``action`` and ``scope`` are ``write``'s."""
        try:
            with self.write(table_id, submission_id, action, scope) as outcome:
                body(outcome)
            return outcome
        except Replayed as replay:
            return replay.outcome

    def _check_table_room(self) -> None:
        """Inside a write: refuse a new table once the database holds ``max_tables``."""
        count = self.db.execute("SELECT COUNT(*) FROM tables").fetchone()[0]
        if count >= self.max_tables:
            raise TooMany(
                Text(
                    "This database holds %(count)s tables, the most it may; nothing was saved. "
                    "Delete tables that are done with (scorekeeper delete KEY) to make room.",
                    count=f"{count:,}",
                ),
            )

    def _check_entry_room(self, table_id: int) -> None:
        """Inside a write: refuse an entry once the table holds ``max_entries``."""
        if self.entry_count(table_id) >= self.max_entries:
            raise TooMany(
                Text(
                    "This table holds %(count)s entries, the most one table may; "
                    "nothing was saved. Start a rematch to play on at a fresh table.",
                    count=f"{self.max_entries:,}",
                ),
            )

    def _check_draft(self, table_id: int, based_on_draft: tuple[str, int] | None) -> None:
        """Inside a write: refuse a change worked out from an older version of a draft."""
        if based_on_draft is None:
            return
        name, version = based_on_draft
        if self.draft(table_id, name)[1] != version:
            raise DraftChanged(
                Text(
                    "Another phone changed this deal a moment ago; nothing was saved. "
                    "Check it, then save again."
                )
            )

    def _check_based_on(self, table_id: int, based_on_version: int | None) -> None:
        """Inside a write: refuse a change worked out from an older state of the table."""
        if based_on_version is not None and self.version(table_id) != based_on_version:
            raise Conflict(
                Text(
                    "Another phone changed this table a moment ago; nothing was saved. "
                    "Check the board, then tap again."
                )
            )

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

    def _all(self, sql: str, params: list | None = None) -> list[dict]:
        cursor = self.db.execute(sql, params or [])
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def _one(self, sql: str, params: list | None = None) -> dict | None:
        rows = self._all(sql, params)
        return rows[0] if rows else None
