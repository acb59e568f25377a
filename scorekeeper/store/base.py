"""What every part of the store shares: the connection, the one write transaction
that a retried form gets the first answer of, the caps, and plain SQL helpers."""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Self

import sqlite_utils

from ..messages import Number, Text
from .connection import connect, database_file, transaction, writing
from .errors import Conflict, DraftChanged, Replayed, ReusedSubmission, TooMany, Unchanged
from .migrations import migrate
from .records import (
    MAX_ENTRIES_PER_TABLE,
    MAX_TABLES,
    SUBMISSION_SQL,
    check_submission_id,
    closed_draft,
    now,
)

# UPDATE ... RETURNING (SQLite 3.35): a write learns the version it made at no cost
_RETURNING = sqlite3.sqlite_version_info >= (3, 35)

# The groups of a request's kept reads (the first part of their keys) that a write may
# change (a draft's tap logs go with "draft"; the others get the new table version)
DRAFT_READS = frozenset({"draft"})
# an entry's state changed (entries added also change their count)
ENTRY_READS = frozenset({"entries", "latest", "latest_ids", "next_round"})
NEW_ENTRY_READS = ENTRY_READS | {"entry_count"}
ROLL_READS = frozenset({"rolls", "last_roll_id"})
SUBMISSION_READS = frozenset({"submission"})
# what a next request may be served of a table at the same version: rows only ever
# added (rolls), the latest history, which a write that adds entries brings up to
# date (``_brought_up``) and any other change of it drops, and submissions (a stored
# one never changes; a write trusts only what it read under its own lock)
CARRIED_READS = ROLL_READS | {"latest", "submission"}
# the submissions a next request is served, the latest read: a retry comes soon after
# what it retries, and every tap of a long game reads one (carried all, a table's kept
# reads would grow with its game, and every request's time with them)
SUBMISSIONS_CARRIED = 32
# reads a write that only adds entries (or rolls) brings up to date from them, unread
BROUGHT_UP_READS = frozenset({"latest", "next_round", "entry_count"}) | ROLL_READS


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


def _gone(touches: frozenset[str]) -> frozenset[str]:
    """The groups of kept reads a write that ``touches`` these may have changed (a
    draft's tap logs go with its drafts)."""
    return touches | {"tap_log"} if "draft" in touches else touches


def _joined_touches(
    touches: frozenset[str] | None, more: frozenset[str] | None
) -> frozenset[str] | None:
    return None if touches is None or more is None else touches | more


def _only_added(write: _OpenWrite) -> bool:
    """What the write changed of the table's entries is the entries it added (perhaps
    none: it said it touches none of what is read of them)."""
    if write.added is None:
        return False
    if write.all_said:  # every row it changed, said: entries only by ``_write_entry``
        return True
    return bool(write.added) or (write.touches is not None and not write.touches & NEW_ENTRY_READS)


@dataclass
class _OpenWrite:
    """A write transaction under way on a connection, and what its parts (the writes
    begun inside it) add to it: the groups of reads they may change, the other tables
    whose version it bumps, the submissions they recorded, the first failure."""

    submission_id: str | None
    action: str | None
    touches: frozenset[str] | None
    outcome: dict = field(default_factory=dict)
    tables: set[int] = field(default_factory=set)
    submissions: list[tuple[str, tuple]] = field(default_factory=list)
    carried: set[str] = field(default_factory=set)  # submission ids its rows carry
    checked: set[str] = field(default_factory=set)  # submission ids read under its lock
    # the entries it added, each with whether its round was a new one; None once it
    # changed an entry's state (what it wrote is then read back)
    added: list | None = field(default_factory=list)
    rolled: list[dict] = field(default_factory=list)  # the rolls it added, as rows
    # the groups of reads its rows changed so far, as its statements said (``_wrote``),
    # and how many of the rows it changed they account for
    wrote: set[str] = field(default_factory=set)
    accounted: int = 0
    all_said: bool = False  # its body's statements said what every row they changed is
    entries_changing: bool = False  # it changed an entry (``_entries_to_change``)
    # what the request had read of the table's history, and at which version
    history_before: tuple[int, dict] | None = None
    failed: BaseException | None = None
    changes: int = 0  # the connection's ``total_changes`` as it began

    def says_all(self, total_changes: int) -> bool:
        """Its statements said what every row it changed so far is (the connection's
        ``total_changes`` now)."""
        return total_changes - self.changes == self.accounted

    def fail(self, exc: BaseException) -> None:
        if self.failed is None and not isinstance(exc, GeneratorExit):
            self.failed = exc


class StoreBase:
    """The connection and the write every operation of the store goes through."""

    def __init__(
        self,
        db: sqlite_utils.Database,
        max_entries: int = MAX_ENTRIES_PER_TABLE,
        max_tables: int = MAX_TABLES,
        numbering: Callable[[str], object] | None = None,
        round_slot: Callable[[str], str | None] | None = None,
    ):
        self.db = db
        # a game's name → what its numbered entries are called (``catalog.Numbering``):
        # the refusals that name one say a Pegs turn, not a round (none: rounds)
        self.numbering = numbering
        # a kind → what an entry of it is in its round, which a round counts once
        # (``catalog.round_slot``; None: any number): a redo may not count it twice
        self.round_slot = round_slot
        self.max_entries = max_entries  # per table (MAX_ENTRIES_PER_TABLE)
        self.max_tables = max_tables  # per database (MAX_TABLES)
        self._memo: dict[int, dict] | None = None  # the reads of one request (``begin_memo``)
        self._memo_seen: dict[int, list] = {}
        self._memo_changes = 0
        self._memo_written_rows: list[tuple[tuple, Callable[[int], Any]]] = []
        self._open_write: _OpenWrite | None = None  # the write transaction under way
        self._memo_carried: dict[int, tuple[int, str, dict]] = {}  # ``_carried_reads``

    def _numbered(
        self, table_id: int, sentence: str, rounds: str, round_number: int | None = None
    ) -> Text:
        """A refusal naming an entry by its number (if any): the msgid ``rounds``, unless
        the table's game words it its own way (its numbering's ``sentence``)."""
        if self.numbering is not None:
            own = getattr(self.numbering(self.table(table_id).game), sentence, "")
            rounds = own or rounds
        return Text(rounds) if round_number is None else Text(rounds, round=round_number)

    @functools.cached_property
    def file(self) -> str | None:
        """The database's file (None in memory), which names it in what is kept beyond a
        request; read once per connection (or set by whoever opened it)."""
        return database_file(self.db.conn)

    @classmethod
    def open(cls, path: str | Path) -> Self:
        db = connect(path)
        migrate(db)
        return cls(db)

    def close(self) -> None:
        self.db.close()

    # -- the reads of one request, made once

    def begin_memo(self) -> None:
        """From now until ``end_memo``, what a table's reads found is kept and served
        again instead of read twice: for one request (the web layer's), never longer,
        since another worker may write meanwhile. It holds only while it can be known
        to be current: each entry is dropped by any write on this connection
        (``total_changes`` moves on), and by a table version read that differs from
        the one the entries were read at (every change of a table bumps its version);
        inside a write transaction nothing is served until the table's version has
        been read under the write lock and found unchanged (``_saw_version``)."""
        self._memo_carried = self._carried_reads()
        self._memo = {}
        self._memo_seen = {}  # table id → [version, scorer key or None, trusted]
        self._memo_changes = self.db.conn.total_changes

    def _carried_reads(self) -> dict[int, tuple[int, str, dict]]:
        """What the request before read of a table's rolls, with the version and key
        it stands at: rows only ever added, so a next request that finds the table at
        that same version (and key) may be served them without reading them again."""
        memo = self._memo_current()
        carried = {}
        for table_id, kept in (memo or {}).items():
            seen = self._memo_seen.get(table_id)
            rolls = {k: v for k, v in kept.items() if k[0] in CARRIED_READS}
            submissions = [k for k in rolls if k[0] == "submission"]
            for key in submissions[:-SUBMISSIONS_CARRIED]:  # the oldest read first
                del rolls[key]
            if rolls and seen is not None and seen[2] and seen[1] is not None:
                carried[table_id] = (seen[0], seen[1], rolls)
        return carried

    def end_memo(self) -> None:
        self._memo = None
        self._memo_seen = {}
        self._memo_carried = {}

    def _wrote(self, groups: frozenset[str], before: int) -> None:
        """Inside a write, right after a statement: the rows it changed (since the
        connection's ``total_changes`` was ``before``) are of these groups of reads."""
        open_write = self._open_write
        if open_write is not None:
            open_write.wrote |= groups
            open_write.accounted += self.db.conn.total_changes - before

    def _memo_current(self) -> dict[int, dict] | None:
        memo = self._memo
        if memo is not None and self.db.conn.total_changes != self._memo_changes:
            open_write = self._open_write
            if open_write is not None and writing(self.db) and open_write.touches is not None:
                # a write of this request's, under way: what its parts may have changed
                # goes (what its statements changed, when they said so of every row;
                # else all it touches); the rest was read at the version they all stand
                # at until it commits (no other connection writes while it holds the lock)
                said = open_write.says_all(self.db.conn.total_changes)
                gone = _gone(frozenset(open_write.wrote) if said else open_write.touches)
                for kept in memo.values():
                    for key in [key for key in kept if key[0] in gone]:
                        del kept[key]
            else:
                memo.clear()  # this connection wrote: nothing read before may be served
                self._memo_seen.clear()
            self._memo_changes = self.db.conn.total_changes
        return memo

    def _wrote_in_open_write(self) -> bool:
        """This connection changed rows in the write under way: sums kept outside the
        request's reads (a tally) may not count them, nor may they yet."""
        open_write = self._open_write
        return open_write is not None and self.db.conn.total_changes != open_write.changes

    def _saw_version(self, table_id: int, version: int, scorer_key: str | None = None) -> None:
        """A read of the table's row found this version (and key): the table's kept
        reads stand if it is the version they were read at, else they go."""
        memo = self._memo_current()
        if memo is None:
            return
        seen = self._memo_seen.get(table_id)
        if (
            seen is None
            or seen[0] != version
            or (scorer_key is not None and seen[1] is not None and seen[1] != scorer_key)
        ):
            memo.pop(table_id, None)
            self._memo_seen[table_id] = [version, scorer_key, True]
            carried = self._memo_carried.pop(table_id, None) if seen is None else None
            if carried is not None and carried[:2] == (version, scorer_key):
                memo[table_id] = dict(carried[2])
            return
        seen[1] = scorer_key or seen[1]
        seen[2] = True

    def _distrust_memo(self) -> None:
        """A write transaction began: another connection may have written before the
        lock was taken, so kept reads wait for the version read under the lock."""
        for seen in self._memo_seen.values():
            seen[2] = False

    def _seen_version(self, table_id: int) -> tuple[int, str | None] | None:
        """The table's version (and key) as this request last read it, while its kept
        reads may be served; None when it must be read."""
        if self._memo_current() is None:
            return None
        seen = self._memo_seen.get(table_id)
        return (seen[0], seen[1]) if seen is not None and seen[2] else None

    def known_version(self, table_id: int) -> int | None:
        """The table's version that what this request read of it stands at (read under
        the write lock, inside a write), or None when nothing is known of it, or when a
        write under way changed it (its new state has no version yet)."""
        if self._wrote_in_open_write():
            return None
        seen = self._seen_version(table_id)
        return None if seen is None else seen[0]

    def _keep_written(
        self, key: tuple, row_at: Callable[[int], Any], table_id: int | None = None
    ) -> None:
        """Inside a write of the table: what it stored under ``key``, as a read after it
        would find it (``row_at(the table's new version)``), kept once it commits; given
        ``table_id``, also served at once to the rest of the write (at the version the
        table stands at until it commits), which need not read it back."""
        if self._memo is None:
            return
        self._memo_written_rows.append((key, row_at))
        seen = None if table_id is None else self._seen_version(table_id)
        if seen is not None:
            self._memo.setdefault(table_id, {})[key] = row_at(seen[0])

    def _kept(self, table_id: int, key: tuple) -> Any:
        """What this request kept under ``key`` while it stands, else None."""
        if self._seen_version(table_id) is None:
            return None
        return self._memo.get(table_id, {}).get(key)

    def _keep(self, table_id: int, key: tuple, value: Any) -> None:
        if self._seen_version(table_id) is not None:
            self._memo.setdefault(table_id, {})[key] = value

    def _memoized(self, table_id: int, key: tuple, read: Callable[[], Any]) -> Any:
        """``read()``, or what it gave before in this request while that stands. (A
        read that reads the table's version too, such as ``tap_log``, may make the
        kept reads stand: it is kept when they do after it.)"""
        memo = self._memo_current()
        if memo is None:
            return read()
        if self._seen_version(table_id) is not None:
            kept = memo.get(table_id)
            if kept is not None and key in kept:
                return kept[key]
        found = read()
        if self._seen_version(table_id) is not None:
            memo.setdefault(table_id, {})[key] = found
        return found

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

        def read() -> tuple | None:
            return self.db.execute(SUBMISSION_SQL, {"id": submission_id}).fetchone()

        # kept with the table's reads: a submission on it bumps its version (the write
        # itself checks again under its lock, whatever was kept)
        row = (
            read()
            if table_id is ...
            else self._memoized(table_id, ("submission", submission_id), read)
        )
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
        touches: frozenset[str] | None = None,
        closes: str | None = None,
    ) -> Iterator[dict]:
        """A write transaction that bumps the table version and records the submission.

        The caller fills the yielded dict with the outcome to remember. If the same
        submission id was already processed by the same ``action`` (the store method's
        name) on the same table, raises ``Replayed`` carrying it; if by another action or
        on another table, the id was not this form's own (a form sends one id per
        action), and ``ReusedSubmission`` refuses it. ``scope``: the table the form was
        sent on, when it is not ``table_id`` (a new table: None, or a rematch's table).
        ``table_id`` may be a function that finds the table under the write's lock
        (a tap's lookup by its link, with what the write reads first) and gives its id;
        such a write that changes nothing makes no new version.
        ``touches``: what the write may change, as groups of the reads kept for the
        request (``DRAFT_READS``, ``ENTRY_READS`` … ; None: anything). ``closes``: the
        draft the write closes into an entry, its log and the table's next round read
        with the submission (``_check_submission``).

        A write begun inside an open one joins it (``_joined``): one transaction, one
        version bump, committed or rolled back whole.
        """
        if submission_id:
            check_submission_id(submission_id)
        if scope is ...:
            scope = table_id
        if self._open_write is not None and writing(self.db):
            with self._joined(table_id, submission_id, action, scope, touches, closes) as outcome:
                yield outcome
            return
        new_version = stamp = None
        open_write = _OpenWrite(submission_id, action, touches)
        find = table_id if callable(table_id) else None
        with transaction(self.db):
            self._distrust_memo()
            self._memo_written_rows = []
            self._open_write = open_write
            changes = open_write.changes = self.db.conn.total_changes
            try:
                if find is not None:  # the table found under the lock, by its first read
                    table_id = find()
                    if scope is find:
                        scope = table_id
                open_write.history_before = self._history_read(table_id)
                if submission_id:
                    self._check_submission(table_id, submission_id, action, scope, touches, closes)
                yield open_write.outcome
                if open_write.failed is not None:
                    # a part of it failed, and the caller went on: nothing of it is kept
                    raise open_write.failed
                open_write.all_said = open_write.says_all(self.db.conn.total_changes)
                outcome = open_write.outcome
                tid = outcome.get("table_id", table_id)
                for other in sorted(open_write.tables - {tid}):  # its parts' other tables
                    self.db.execute(
                        "UPDATE tables SET version = version + 1, updated = ? WHERE id = ?",
                        [now(), other],
                    )
                if find is not None and self.db.conn.total_changes == changes:
                    tid = None  # found to change nothing (a retried tap): no new version
                if tid is not None:
                    stamp = now()
                    bumped = self.db.execute(
                        "UPDATE tables SET version = version + 1, updated = ? WHERE id = ?"
                        + (" RETURNING version" if _RETURNING else ""),
                        [stamp, tid],
                    ).fetchone()
                    new_version = bumped[0] if bumped else None
                if submission_id and submission_id not in open_write.carried:
                    self._record_submission(tid, submission_id, outcome, action, scope)
            except BaseException:
                self._memo_written_rows = []
                if self._memo is not None and self.db.conn.total_changes != changes:
                    # rolled back: what was read after this write's own changes never was
                    self._memo.clear()
                    self._memo_seen = {}
                raise
            finally:
                self._open_write = None
        self._memo_written(tid, new_version, open_write, stamp if new_version else None)
        if tid is not None and new_version is not None and _only_added(open_write):
            self._count_written(tid, new_version, open_write.added)
        if tid is not None:  # the submissions it recorded: as a retry would find them
            for sid, row in open_write.submissions:
                self._keep(tid, ("submission", sid), row)
            if submission_id:
                self._keep(tid, ("submission", submission_id), (json.dumps(outcome), action, scope))

    @contextmanager
    def _joined(
        self,
        table_id: int | None,
        submission_id: str | None,
        action: str | None,
        scope: int | None | object,
        touches: frozenset[str] | None,
        closes: str | None = None,
    ) -> Iterator[dict]:
        """A write begun inside an open one: part of its transaction (no BEGIN or
        COMMIT of its own), the table's version bumped once, by the open write, as it
        ends. Its submission is checked and recorded as a write's own (a retry of it
        replays its outcome, and the open write goes on); an exception out of it rolls
        the whole transaction back, even when the caller catches it. Given the open
        write's own submission id, it is that write's body: its outcome is the one
        recorded."""
        open_write = self._open_write
        open_write.touches = _joined_touches(open_write.touches, touches)
        # what the write's earlier parts stored may be changed by this one: only what
        # this one stores of it then stands (``_keep_written``)
        gone = None if touches is None else _gone(touches)
        self._memo_written_rows = [
            (key, row_at)
            for key, row_at in self._memo_written_rows
            if gone is not None and key[0] not in gone
        ]
        if submission_id and submission_id == open_write.submission_id:
            if action != open_write.action:  # as ``_replay`` refuses another action's
                raise ReusedSubmission(
                    Text(
                        "This form was already sent for another change; nothing was "
                        "saved. Reload the page and try again."
                    )
                )
            try:
                yield open_write.outcome
            except BaseException as exc:
                open_write.fail(exc)
                raise
            return
        if submission_id:
            # before anything of it is written: a replay leaves the transaction as it was
            self._check_submission(table_id, submission_id, action, scope, touches, closes)
        changes = self.db.conn.total_changes
        try:
            outcome: dict = {}
            yield outcome
            tid = outcome.get("table_id", table_id)
            if tid is not None:
                open_write.tables.add(tid)
            kept = {sid for sid, _row in open_write.submissions}
            if submission_id and submission_id not in kept:  # (kept by a part inside it)
                if submission_id in open_write.carried:  # as a read of its row finds it
                    row = (json.dumps(outcome), action, scope)
                else:
                    row = self._record_submission(tid, submission_id, outcome, action, scope)
                if tid is not None:
                    open_write.submissions.append((submission_id, row))
                    self._keep(tid, ("submission", submission_id), row)
        except Unchanged:
            if self.db.conn.total_changes != changes:
                open_write.fail(Unchanged())
            raise  # found to change nothing before it wrote: the open write goes on
        except BaseException as exc:
            open_write.fail(exc)
            raise

    def _check_submission(
        self,
        table_id: int | None,
        submission_id: str,
        action: str | None,
        scope: int | None | object,
        touches: frozenset[str] | None,
        closes: str | None = None,
    ) -> None:
        """Under the write lock: raise ``Replayed`` for a submission already processed.
        With the table's version, read in the same statement: what this request read of
        the table before may serve the write, if it is unchanged (and the entries a
        write that adds one counts against the cap). A write that ``closes`` a draft
        reads its log and the table's next round in the same statement too."""
        counts = touches is not None and "entry_count" in touches
        if self._knows_submission(table_id, submission_id, counts, closes):
            done = self._kept(table_id, ("submission", submission_id))
            if done is not None:
                raise Replayed(self._replay(tuple(done), action, scope))
            return
        *done, version, count, data, draft_version, last_round = self.db.execute(
            f"""SELECT s.outcome, s.action, s.scope,
                      (SELECT version FROM tables WHERE id = :t),
                      CASE WHEN :counts THEN
                      (SELECT COUNT(*) FROM entries WHERE table_id = :t) END,
                      d.data, d.version,
                      CASE WHEN :draft IS NOT NULL THEN
                      (SELECT MAX(round) FROM live_entries WHERE table_id = :t) END
               FROM (SELECT 1) LEFT JOIN ({SUBMISSION_SQL}) s
               LEFT JOIN drafts d ON d.table_id = :t AND d.name = :draft
               AND NOT {closed_draft("d")}""",
            {"t": table_id, "id": submission_id, "counts": counts, "draft": closes},
        ).fetchone()
        if done[0] is not None:
            raise Replayed(self._replay(tuple(done), action, scope))
        if table_id is not None and version is not None:
            self._saw_version(table_id, version)
            if counts:
                self._keep(table_id, ("entry_count",), count)
            if closes is not None:  # as ``tap_log`` and ``next_round`` read them
                self._keep(table_id, ("tap_log", closes), (data, draft_version, version))
                self._keep(table_id, ("next_round",), (last_round or 0) + 1)

    def checked_under_lock(self, submission_id: str) -> None:
        """Inside a write: a read under its lock found (and kept) this submission."""
        self._open_write.checked.add(submission_id)

    def _carry(self, table_id: int, submission_id: str) -> None:
        """Inside a write: the row just stored carries this submission id (none is
        recorded apart); what was kept of it (not yet known) goes."""
        self._open_write.carried.add(submission_id)
        if self._memo is not None:
            self._memo.get(table_id, {}).pop(("submission", submission_id), None)

    def _knows_submission(
        self, table_id: int | None, submission_id: str, counts: bool, closes: str | None
    ) -> bool:
        """Under the write lock: what ``_check_submission`` reads is all kept, the
        submission read under this lock (``checked_under_lock``: a tap's lookup reads
        it with its table, ``table_by_key``), the rest at the version found there."""
        if submission_id not in self._open_write.checked:
            return False  # what a read before the lock found may be another table's since
        if table_id is None or self._seen_version(table_id) is None:
            return False
        kept = self._memo.get(table_id, {})
        wanted = [("submission", submission_id)]
        wanted += [("entry_count",)] if counts else []
        wanted += [("tap_log", closes), ("next_round",)] if closes is not None else []
        return all(key in kept for key in wanted)

    def _record_submission(
        self,
        table_id: int | None,
        submission_id: str,
        outcome: dict,
        action: str | None,
        scope: int | None | object,
    ) -> tuple:
        """Inside a write: the submission's outcome, for a retry to be answered with;
        returns its row as ``submission`` reads it (outcome, action, scope)."""
        stored = json.dumps(outcome)
        before = self.db.conn.total_changes
        self._insert(
            "submissions",
            {
                "id": submission_id,
                "table_id": table_id,
                "created": now(),
                "outcome": stored,
                "action": action,
                "scope": scope,
            },
        )
        self._wrote(SUBMISSION_READS, before)
        return (stored, action, scope)

    def _history_read(self, table_id: int | None) -> tuple[int, dict] | None:
        """As a write begins: what this request read of the table's history that the
        entries the write adds may bring up to date, with the version it was read at."""
        memo = self._memo_current()
        seen = None if table_id is None else self._memo_seen.get(table_id)
        if memo is None or seen is None:
            return None
        kept = memo.get(table_id, {})
        return seen[0], {k: v for k, v in kept.items() if k[0] in BROUGHT_UP_READS}

    def _entries_to_change(self, table_id: int) -> None:
        """Inside a write, before its first change of an entry: what it read of the
        table's entries since it began (under its lock, none changed yet) may be brought
        up to date as what it read before it began."""
        open_write = self._open_write
        if open_write is None or open_write.entries_changing:
            return
        open_write.entries_changing = True
        seen = self._seen_version(table_id)
        if seen is None:
            return
        before = open_write.history_before
        if before is None or before[0] != seen[0]:
            before = open_write.history_before = (seen[0], {})
        for key, value in self._memo.get(table_id, {}).items():
            if key[0] in BROUGHT_UP_READS - ROLL_READS:  # rolls may have changed since
                before[1].setdefault(key, value)

    def _brought_up(self, key: tuple, value: Any, write: _OpenWrite) -> Any:
        """A read of the history, as it stands once the entries and rolls this write
        added are (None: it must be read again). The entries' part of the store knows
        how."""
        return None

    def _brought_up_anew(
        self, table_id: int, version: int, before: dict, write: _OpenWrite
    ) -> list:
        """Reads of the history that no one made before the write (at ``version``) and
        that it makes known, as (key, value): the entries' part of the store knows."""
        return []

    def _count_written(self, table_id: int, version: int, added: list) -> None:
        """After a write that added these entries alone: the sums kept across requests
        count them. The entries' part of the store knows how."""

    def _memo_written(
        self,
        table_id: int | None,
        version: int | None,
        open_write: _OpenWrite,
        stamp: str | None = None,
    ) -> None:
        """After a write of this connection: what was kept of the table still stands at
        its new version, but for what the write ``touches`` (groups of keys; None:
        anything), when the version it bumped was the one those reads were made at (no
        other connection wrote in between). Else nothing kept stands. What the request
        had read of the history, when the write only added entries, is brought up to
        date with them."""
        touches = open_write.touches
        memo = self._memo
        written, self._memo_written_rows = self._memo_written_rows, []
        if memo is None or table_id is None or version is None:
            return
        seen = self._memo_seen.get(table_id)
        same = seen is not None and seen[0] == version - 1
        kept = {}
        if same and touches is not None:
            # what its statements said they changed, when they said it of every row
            gone = _gone(frozenset(open_write.wrote) if open_write.all_said else touches)
            kept = {k: v for k, v in memo.get(table_id, {}).items() if k[0] not in gone}
            for key, row in kept.items():
                if key[0] == "tap_log":  # the draft as it was, on the table as it is now
                    kept[key] = (row[0], row[1], version, *row[3:])
            if ("table",) in kept:  # the row as the write left it
                kept[("table",)] = replace(kept[("table",)], version=version, updated=stamp)
            before = open_write.history_before
            if before is not None and before[0] == version - 1:
                for key, value in before[1].items():
                    if key[0] in gone:
                        value = self._brought_up(key, value, open_write)
                        if value is not None:
                            kept[key] = value
                anew = self._brought_up_anew(table_id, before[0], before[1], open_write)
                for key, value in anew:
                    kept.setdefault(key, value)
        for key, row_at in written:  # what the write itself stored: as a read would find it
            kept[key] = row_at(version)
        memo.clear()
        memo[table_id] = kept
        self._memo_seen = {table_id: [version, seen[1] if same else None, True]}
        self._memo_changes = self.db.conn.total_changes

    def once(
        self,
        table_id: int | None,
        submission_id: str | None,
        action: str,
        body: Callable[[dict], None],
        scope: int | None | object = ...,
        touches: frozenset[str] | None = None,
        closes: str | None = None,
    ) -> dict:
        """The one idempotent write: a retried form (the same submission id) gets the
        first answer. ``body(outcome)`` runs inside ``write`` and fills the outcome;
        ``action``, ``scope``, ``touches`` and ``closes`` are ``write``'s."""
        try:
            with self.write(table_id, submission_id, action, scope, touches, closes) as outcome:
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
                    count=Number(count),
                ),
            )

    def _check_entry_room(self, table_id: int) -> None:
        """Inside a write: refuse an entry once the table holds ``max_entries``."""
        if self.entry_count(table_id) >= self.max_entries:
            raise TooMany(
                Text(
                    "This table holds %(count)s entries, the most one table may; "
                    "nothing was saved. Start a rematch to play on at a fresh table.",
                    count=Number(self.max_entries),
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
