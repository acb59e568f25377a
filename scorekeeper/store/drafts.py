"""Drafts: a deal being entered, saved at every tap; on a game screen, the log of its
taps. It counts only once closed into an entry.

A tap log's data is ``{"taps": [...], "undone": [...], "context": {...}}``: every tap
carries the id its phone made, so a replayed id changes nothing; undo and redo name the
tap they mean, so a retried undo never undoes two taps."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable

from ..messages import N_, Text
from .base import DRAFT_READS, NEW_ENTRY_READS
from .errors import Conflict, DraftChanged, NotFound, Unchanged
from .records import (
    ALSO_CLOSED,
    SPENT_TAP_IDS,
    TAP_LOG_CLOSED,
    TAP_LOG_DATA,
    TAP_LOG_DRAFT,
    TAP_LOG_VERSION,
    Entry,
    TapLog,
    closed_draft,
    now,
    spent_taps,
)

# a draft write's ``at``: the table version the write makes (bumped as it ends)
_NEXT_VERSION = "(SELECT version + 1 FROM tables WHERE id = :t)"
# an upsert's version: counted on from the stored one, or anew over a closed draft
_COUNTED_ON = f"CASE WHEN {closed_draft('drafts')} THEN 1 ELSE drafts.version + 1 END"


def _ids_of(log: dict | None) -> tuple[str, ...]:
    """The tap ids a log has spent: its taps, those undone and those spent before."""
    if not log or "taps" not in log:
        return ()
    ids = [*log.get("spent", []), *(t.get("id") for t in [*log["taps"], *log.get("undone", [])])]
    return tuple(i for i in ids if isinstance(i, str))[-SPENT_TAP_IDS:]


class Drafts:
    """Drafts and tap logs (a part of ``Store``)."""

    def draft(self, table_id: int, name: str) -> tuple[dict | None, int]:
        """(data, version) of a draft; (None, 0) when there is none."""

        def read() -> tuple | None:
            return self.db.execute(
                f"""SELECT data, version FROM drafts d WHERE table_id = ? AND name = ?
                    AND NOT {closed_draft("d")}""",
                [table_id, name],
            ).fetchone()

        log = self._kept(table_id, ("tap_log", name))  # the same row, read with the version
        if log is not None:
            return (json.loads(log[0]), log[1]) if log[0] else (None, 0)
        row = self._memoized(table_id, ("draft", name), read)
        return (json.loads(row[0]), row[1]) if row else (None, 0)

    def save_draft(
        self, table_id: int, name: str, data: dict, expected_version: int | None = None
    ) -> int:
        """Store a draft; returns its new version. ``expected_version``: refuse
        (Conflict) when another phone saved the draft since this one read it."""
        text = json.dumps(data, ensure_ascii=False)
        with self.write(table_id, None, touches=DRAFT_READS):
            if expected_version is not None:
                # (as this write read it, when it is part of one that read it under the lock)
                current = self.draft(table_id, name)[1]
                if expected_version != current:
                    raise Conflict(
                        Text("Another phone changed this deal a moment ago; here is its version.")
                    )
            # a draft saved whatever it was (a game's own, such as Kvanta's burned cards)
            # is not read first: the write counts its version on
            before = self.db.conn.total_changes
            (version,) = self.db.execute(
                f"""INSERT INTO drafts (table_id, name, data, version, updated, at)
                   VALUES (:t, :name, :data, 1, :now, {_NEXT_VERSION})
                   ON CONFLICT (table_id, name) DO UPDATE SET data = excluded.data,
                   version = {_COUNTED_ON}, updated = excluded.updated, at = excluded.at
                   RETURNING version""",
                {"t": table_id, "name": name, "data": text, "now": now()},
            ).fetchone()
            self._wrote(DRAFT_READS, before)
            self._keep_written(("tap_log", name), lambda v: (text, version, v), table_id)
        return version

    def delete_draft(self, table_id: int, name: str) -> None:
        with self.write(table_id, None, touches=DRAFT_READS):
            self.db.execute("DELETE FROM drafts WHERE table_id = ? AND name = ?", [table_id, name])

    def tap_log(self, table_id: int, name: str) -> TapLog:
        """The draft ``name`` of a table as it stands (``data`` None: no deal begun)."""

        def read() -> tuple:
            row = self.db.execute(
                f"""SELECT {TAP_LOG_DATA}, {TAP_LOG_VERSION}, t.version, {TAP_LOG_CLOSED}
                   FROM tables t LEFT JOIN {TAP_LOG_DRAFT} ON d.table_id = t.id
                   WHERE t.id = :t""",
                {"t": table_id, "name": name},
            ).fetchone()
            if row is None:
                raise NotFound(Text("There is no such table."))
            self._saw_version(table_id, row[2])
            return row

        row = self._memoized(table_id, ("tap_log", name), read)
        # the JSON parsed anew each time: a caller may change what it is given
        data = json.loads(row[0]) if row[0] else None
        closed = json.loads(row[3]) if len(row) > 3 and row[3] else None
        return TapLog(data, row[1] or 0, row[2], False, _ids_of(closed))

    def tap_write(self, find: Callable[[], int]):
        """A write of a tap (to a log, with what it stands for), its table found under
        the write's lock by ``find`` (which reads what the write reads first and gives
        the table's id): the writes of the tap join it. Changing nothing, it makes no
        new version."""
        return self.write(find, None, touches=DRAFT_READS)

    def append_tap(
        self,
        table_id: int,
        name: str,
        tap: dict,
        check: Callable[[dict], None],
        start: Callable[[dict | None], dict],
        then: Callable[[TapLog], None] | None = None,
    ) -> TapLog:
        """Add one tap at the end of the log, inside the write lock. A tap whose id is
        already in the log (or was undone) is a retry: nothing changes and the log is
        answered as it stands. ``start(data)`` gives the log a tap is added to when the
        stored one is missing (None) or of an older shape; ``check(new data)`` raises
        (the state refuses the tap, or the phone showed another deal) to store nothing.
        ``then(new log)``: what the tap stands for beyond the log (the entries it
        scores), written in the same transaction (``_change_log``)."""
        tap_id = tap.get("id")

        def change(data: dict | None, found: TapLog) -> dict:
            if data is None and tap_id in found.closed_ids:
                raise Unchanged  # a retry of a tap of the deal saved meanwhile
            data = start(data) if data is None or "context" not in data else data
            if found.data is None and found.closed_ids:  # still spent in the next deal
                data = {**data, "spent": [*found.closed_ids, *data.get("spent", [])]}
            spent = data.get("spent", [])
            if tap_id in spent or any(
                t.get("id") == tap_id for t in [*data["taps"], *data["undone"]]
            ):
                raise Unchanged
            new = {**data, "taps": [*data["taps"], tap], "undone": [], "spent": spent_taps(data)}
            check(new)
            return new

        return self._change_log(table_id, name, change, then)

    def undo_tap(
        self, table_id: int, name: str, tap_id: str, then: Callable[[TapLog], None] | None = None
    ) -> TapLog:
        """Take back the tap ``tap_id``, which must be the last one; once taken back, the
        same undo again changes nothing. ``then``: as for ``append_tap``."""

        def change(data: dict | None, found: TapLog) -> dict:
            data = data if data and "context" in data else None
            if data and any(t.get("id") == tap_id for t in data["undone"]):
                raise Unchanged
            if not data or not data["taps"]:
                raise Conflict(Text("There is nothing to undo."))
            if data["taps"][-1].get("id") != tap_id:
                raise DraftChanged(
                    Text(
                        "Another tap came after that one (on another phone); nothing was "
                        "undone. Here is the deal as it stands."
                    )
                )
            return {
                **data,
                "taps": data["taps"][:-1],
                "undone": [*data["undone"], data["taps"][-1]],
            }

        return self._change_log(table_id, name, change, then)

    def redo_tap(
        self, table_id: int, name: str, tap_id: str, then: Callable[[TapLog], None] | None = None
    ) -> TapLog:
        """Put back the tap ``tap_id``, the last one taken back; a retry changes nothing.
        ``then``: as for ``append_tap``."""

        def change(data: dict | None, found: TapLog) -> dict:
            data = data if data and "context" in data else None
            if data and any(t.get("id") == tap_id for t in data["taps"]):
                raise Unchanged
            if not data or not data["undone"] or data["undone"][-1].get("id") != tap_id:
                raise DraftChanged(Text("There is nothing to redo: the deal changed since."))
            return {
                **data,
                "taps": [*data["taps"], data["undone"][-1]],
                "undone": data["undone"][:-1],
            }

        return self._change_log(table_id, name, change, then)

    def _change_log(
        self,
        table_id: int,
        name: str,
        change: Callable,
        then: Callable[[TapLog], None] | None = None,
    ) -> TapLog:
        """One read and one write of a draft inside the write lock (five statements).
        ``then(the new log)`` runs inside the same write: what it writes (the entries the
        log now stands for) commits with the log, or nothing of either does."""
        try:
            with self.write(table_id, None, touches=DRAFT_READS):
                found = self.tap_log(table_id, name)
                data = change(found.data, found)
                text = json.dumps(data, ensure_ascii=False)
                before = self.db.conn.total_changes
                self.db.execute(
                    """INSERT INTO drafts (table_id, name, data, version, updated, at)
                       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (table_id, name) DO UPDATE SET
                       data = excluded.data, version = excluded.version,
                       updated = excluded.updated, at = excluded.at""",
                    [table_id, name, text, found.version + 1, now(), found.table_version + 1],
                )
                self._wrote(DRAFT_READS, before)
                self._keep_written(
                    ("tap_log", name), lambda v: (text, found.version + 1, v), table_id
                )
                log = TapLog(data, found.version + 1, found.table_version + 1, True)
                if then is not None:
                    then(log)
        except Unchanged:
            return found
        return log

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
        also: Iterable[tuple] = (),
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
                    Text(
                        "Another phone changed this deal a moment ago; nothing was saved. "
                        "Check it, then save again."
                    )
                )
            context = found.data.get("context") or {}
            old_id = context.get("supersedes")
            if old_id is not None:
                round_number = self._row_to_supersede(table_id, old_id)["round"]
            elif context.get("reopened") is not None:  # an undone deal saved again
                round_number = context["round"]
                if self._slot_taken(table_id, round_number, kind):  # its round redone since
                    raise self._entered_meanwhile(table_id, round_number)
            elif replaces:
                round_number = self._entry_row(table_id, replaces[0])["round"]
            new_round = old_id is None and context.get("reopened") is None and not replaces
            if new_round:
                round_number = self.next_round(table_id)
            # the entries carry the log, the draft they close and the write that closed
            # it (the table version it makes): the draft row stays, closed, and the
            # submission is the first entry's own (none recorded apart)
            closes = (name, found.table_version + 1)
            log = json.dumps({"taps": found.data["taps"], "context": context}, ensure_ascii=False)
            made, closing = (kind, request, result, points), {"closes": closes, "log": log}
            entry_id = self._write_entry(
                table_id, round_number, *made, submission_id, old_id, new_round=new_round, **closing
            )
            if submission_id:
                self._carry(table_id, submission_id)
            # ``also``: more entries closed by the same log (a Kvanta round's several
            # scores), as (kind, request, result, points[, round]): of the same round but
            # for one given its own (the game's set-up); an edit of such a round
            # supersedes every one of them
            for other in context.get("supersedes_also") or ():
                if self._is_live(other):
                    self._event(other, "superseded", by_entry=entry_id)
            also_ids = []
            for more_kind, more_request, more_result, more_points, *own in also:
                own_round = own[0] if own else None
                also_ids.append(
                    self._write_entry(
                        table_id,
                        round_number if own_round is None else own_round,
                        more_kind,
                        more_request,
                        more_result,
                        more_points,
                        closes=closes,
                        new_round=new_round and own_round is None,
                    )
                )
            for taken in replaces:
                if not self._is_live(taken):
                    raise Conflict(
                        self._numbered(
                            table_id,
                            "changed_meanwhile",
                            N_(
                                "Round %(round)s was changed on another phone meanwhile; "
                                "nothing was saved."
                            ),
                            round_number,
                        )
                    )
                self._event(taken, "superseded", by_entry=entry_id)
            self._keep_written(("tap_log", name), lambda v: (None, None, v), table_id)
            outcome.update(entry_id=entry_id, round=round_number, supersedes=old_id, also=also_ids)

        return self.once(
            table_id,
            submission_id,
            "close_draft_into_entry",
            body,
            touches=NEW_ENTRY_READS | DRAFT_READS,
            closes=name,
        )

    def _also_of(self, entry_id: int) -> list[int]:
        """The other entries of a round closed with this entry's log (``also``)."""
        row = self.db.execute(
            f"SELECT {ALSO_CLOSED} FROM entries e WHERE e.id = ? AND e.taps IS NOT NULL",
            [entry_id],
        ).fetchone()
        return sorted(json.loads(row[0])) if row else []

    def entry_taps(self, entry_id: int) -> list[dict] | None:
        """The tap log an entry was saved with; None for one saved without."""
        log = self.entry_log(entry_id)
        return log["taps"] if log else None

    def entry_log(self, entry_id: int) -> dict | None:
        """The log an entry was saved with (``taps`` and the ``context`` they were
        tapped in); None for one saved without."""
        row = self.db.execute(
            "SELECT taps FROM entries WHERE id = ? AND taps IS NOT NULL", [entry_id]
        ).fetchone()
        return json.loads(row[0]) if row else None

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

        def change(data: dict | None, found: TapLog) -> dict:
            current = (data or {}).get("context") or {}
            if current.get("supersedes") == entry_id:
                raise Unchanged
            if data and data.get("taps"):
                raise Conflict(
                    self._numbered(
                        table_id,
                        "being_entered",
                        N_(
                            "A deal is being entered: save it or undo its taps before "
                            "editing another."
                        ),
                    )
                )
            entry = self.entry(table_id, entry_id)
            if entry.kind != kind or not entry.live:
                raise Conflict(
                    self._numbered(
                        table_id,
                        "cannot_edit",
                        N_("Round %(round)s was undone or changed; it cannot be edited."),
                        entry.round,
                    )
                )
            taps = self.entry_taps(entry_id)
            also = [e for e in self._also_of(entry_id) if self._is_live(e)]
            first = context.get("first_taps", [])
            return {
                "taps": rebuild(entry) if taps is None else [*first, *taps],
                "undone": [],
                "context": {
                    **{k: v for k, v in context.items() if k != "first_taps"},
                    "round": entry.round,
                    "supersedes": entry_id,
                    "supersedes_also": also,
                },
            }

        return self._change_log(table_id, name, change)

    def _reopen_undone(self, table_id: int, entry_id: int, round_number: int) -> None:
        """Inside an undo: a deal saved from a game screen comes back on that screen as
        its tap log (never as an empty deal to tap in again), unless another deal is
        being entered there. Saved again, it takes its round back. An Edit of this very
        deal under way goes on as the deal reopened, with what it changed: the saved
        deal it would replace no longer counts."""
        row = self.db.execute(
            "SELECT closes, taps FROM entries WHERE id = ? AND taps IS NOT NULL", [entry_id]
        ).fetchone()
        if row is None:
            return
        name, log = row[0], json.loads(row[1])
        current = self.tap_log(table_id, name).data
        editing = ((current or {}).get("context") or {}).get("supersedes") == entry_id
        if current and current.get("taps") and not editing:
            return
        if any(self._is_live(e) for e in self._also_of(entry_id)):
            return  # the round's other entries still count: its log stays with them
        log = current if editing else log
        context = {
            **(log.get("context") or {}),
            "players": [p.name for p in self.players(table_id)],
            "round": round_number,
            "supersedes": None,
            "reopened": entry_id,
        }
        data = {"taps": log["taps"], "undone": [], "context": context}
        self.db.execute(
            f"""INSERT INTO drafts (table_id, name, data, version, updated, at)
               VALUES (:t, :name, :data, 1, :now, {_NEXT_VERSION})
               ON CONFLICT (table_id, name) DO UPDATE SET data = excluded.data,
               version = {_COUNTED_ON}, updated = excluded.updated, at = excluded.at""",
            {
                "t": table_id,
                "name": name,
                "data": json.dumps(data, ensure_ascii=False),
                "now": now(),
            },
        )

    def _close_reopened(self, table_id: int, entry_id: int) -> None:
        """Inside a redo: the deal's log reopened by an undo leaves the screen, as long as
        nobody changed it there (else the redo is refused: that work is kept). That is
        this entry's own log, or one reopened from another entry of its slot in its
        round (a later version of the deal, undone): saved, it would take the round
        the redone entry now counts in, and a marriage shown on it would count beside."""
        row = self.db.execute(
            "SELECT closes, round, kind FROM entries WHERE id = ? AND taps IS NOT NULL",
            [entry_id],
        ).fetchone()
        if row is None:
            return
        name, round_number, kind = row
        data = self.tap_log(table_id, name).data
        reopened = ((data or {}).get("context") or {}).get("reopened")
        if reopened is None:
            return
        if reopened != entry_id:  # a later version: only one of the same slot and round
            rival = self._one(
                "SELECT round, kind FROM entries WHERE id = ? AND table_id = ?",
                [reopened, table_id],
            )
            slot = self._slot_of(kind)
            if rival is None or slot is None or rival["round"] != round_number:
                return
            if self._slot_of(rival["kind"]) != slot:
                return
        if data["taps"] != self.entry_taps(reopened):
            if reopened != entry_id:
                raise Conflict(
                    self._numbered(
                        table_id,
                        "reopened_changed",
                        N_(
                            "Round %(round)s is open on its screen, reopened from a later "
                            "version and changed there; save it there, or undo those taps "
                            "first."
                        ),
                        round_number,
                    )
                )
            raise Conflict(
                Text(
                    "This deal was reopened and changed on its screen; save it there, "
                    "or undo those taps first."
                )
            )
        self.db.execute("DELETE FROM drafts WHERE table_id = ? AND name = ?", [table_id, name])

    def discard_draft(self, table_id: int, name: str, draft_version: int) -> None:
        """Drop a draft (an edit given up), unless a tap changed it since it was shown."""
        with self.write(table_id, None, touches=DRAFT_READS):
            if self.tap_log(table_id, name).version != draft_version:
                raise DraftChanged(
                    Text("Another phone changed this deal a moment ago; it was kept.")
                )
            self.db.execute("DELETE FROM drafts WHERE table_id = ? AND name = ?", [table_id, name])
