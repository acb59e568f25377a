"""Entries: the append-only history of a table, its undo, redo and edit events,
what it adds up to, read in bounded parts; and the dice rolls a table keeps."""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from typing import TypedDict, Unpack

from ..messages import N_, Text
from .base import DRAFT_READS, ENTRY_READS, NEW_ENTRY_READS, ROLL_READS, writes_as
from .errors import Conflict, NotFound, RoundAhead, StoreError
from .records import (
    _LAST_EVENT,
    _LIVE,
    RECENT_ENTRIES,
    RECENT_ROUNDS,
    TALLIES_PER_STORE,
    Entry,
    Tally,
    now,
)


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


# a player's id in an entry's points (``json_each(e.points) ep``: its keys are text)
_POINT_PLAYER = "CAST(ep.key AS INTEGER)"


def _points_json(text: str | None) -> dict[int, int]:
    """An entry's points as its row keeps them (player ids as keys)."""
    return {int(pid): pts for pid, pts in json.loads(text).items()} if text else {}


class _EntryChecks(TypedDict, total=False):
    """What every way of adding an entry may also ask (see :meth:`Entries.add_entry`)."""

    replaces: Iterable[int]
    based_on_version: int | None
    based_on_draft: tuple[str, int] | None


class Entries:
    """Entries, their events and sums, and rolls (a part of ``Store``)."""

    @writes_as("add_entry")
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
        no_round_gap: bool = False,
        close_draft: str | None = None,
        replaces: Iterable[int] = (),
        based_on_version: int | None = None,
        based_on_draft: tuple[str, int] | None = None,
    ) -> dict:
        """Append a new entry (its request, result and points per player id).

        ``round_number`` None: the next round, so concurrent posts never share one.
        ``exclusive_round``: refuse when the round already has a live entry of this kind
        (two phones entering one round). ``no_round_gap``: refuse (RoundAhead) a round
        beyond the table's next one, which would leave the rounds between missing from
        the history. ``replaces``: provisional entries this one takes over (a Cowboy
        deal carries the marriages shown during it); they stop counting in the same
        transaction, and undoing this entry brings them back.
        ``based_on_version``: the table version the entry was worked out from (a peg
        move, from the board as it stood); refused (Conflict) when another phone
        changed the table since, so that its change is never overwritten.
        ``based_on_draft``: (name, version) of the draft the entry was worked out from (a
        deal's taps); refused (DraftChanged) when a tap changed it since, so that no tap
        is lost, neither left out of the entry nor closed away with the draft.
        ``supersedes``: an edit (:meth:`edit_entry`; ``exclusive_round`` then does not
        apply); ``close_draft``: the draft the entry ends (:meth:`close_draft_with_entry`),
        removed in the same transaction.

        The one write behind ``add_entry``, ``edit_entry`` and ``close_draft_with_entry``
        (one submission action for the three: a retry is known whichever a view checks).
        """
        replaces = tuple(replaces)
        new_round = round_number is None and supersedes is None

        def body(outcome: dict) -> None:
            nonlocal round_number
            if supersedes is not None and round_number is None:  # an edit keeps its round
                round_number = self._entry_row(table_id, supersedes)["round"]
            self._check_entry_room(table_id)
            self._check_based_on(table_id, based_on_version)
            self._check_draft(table_id, based_on_draft)
            if round_number is None:  # the next round, decided inside the write lock
                round_number = self.next_round(table_id)
            if no_round_gap and supersedes is None:
                following = self.next_round(table_id)
                if round_number > following:
                    raise RoundAhead(
                        Text(
                            "Nothing was saved: round %(round)d is ahead of this table. "
                            "Enter round %(next)d or an earlier one.",
                            round=round_number,
                            next=following,
                        )
                    )
            round_known = new_round
            if not new_round and supersedes is None:
                # a round given: new when no live entry has it or a later one, as the
                # next round read under this lock says (when it was read: not read for this)
                following = self._kept(table_id, ("next_round",))
                round_known = following is not None and round_number >= following
            if supersedes is not None:
                self._row_to_supersede(table_id, supersedes)
            elif (
                exclusive_round
                and self.db.execute(
                    "SELECT 1 FROM live_entries WHERE table_id = ? AND round = ? AND kind = ?",
                    [table_id, round_number, kind],
                ).fetchone()
            ):
                raise self._entered_meanwhile(table_id, round_number)
            made = (kind, request, result, points)
            entry_id = self._write_entry(
                table_id, round_number, *made, submission_id, supersedes, new_round=round_known
            )
            for old_id in replaces:
                self._entry_if(
                    table_id,
                    old_id,
                    self._is_live,
                    "changed_meanwhile",
                    N_(
                        "Round %(round)s was changed on another phone meanwhile; nothing was saved."
                    ),
                )
                self._event(old_id, "superseded", by_entry=entry_id)
            if close_draft is not None:
                self.db.execute(
                    "DELETE FROM drafts WHERE table_id = ? AND name = ?",
                    [table_id, close_draft],
                )
            if submission_id:  # the entry carries it: no submissions row
                self._carry(table_id, submission_id)
            outcome.update(entry_id=entry_id, round=round_number)

        touches = NEW_ENTRY_READS if close_draft is None else NEW_ENTRY_READS | DRAFT_READS
        return self.once(table_id, submission_id, "add_entry", body, touches=touches)

    @writes_as("add_entry")
    def edit_entry(
        self,
        table_id: int,
        entry_id: int,
        kind: str,
        request: dict,
        result: dict,
        points: dict[int, int],
        submission_id: str | None = None,
        *,
        round_number: int | None = None,
        close_draft: str | None = None,
        **checks: Unpack[_EntryChecks],
    ) -> dict:
        """An edit: a new entry that supersedes ``entry_id`` (in its round, unless
        ``round_number`` says another). The old entry must still be live, else another
        phone changed it meanwhile (Conflict); undoing the edit brings it back. The
        history keeps both. Other arguments as for :meth:`add_entry` (``close_draft``:
        the draft the edit was entered in, removed in the same transaction)."""
        return self.add_entry(
            table_id,
            round_number,
            kind,
            request,
            result,
            points,
            submission_id,
            supersedes=entry_id,
            close_draft=close_draft,
            **checks,
        )

    @writes_as("add_entry")
    def close_draft_with_entry(
        self,
        table_id: int,
        name: str,
        round_number: int | None,
        kind: str,
        request: dict,
        result: dict,
        points: dict[int, int],
        submission_id: str | None = None,
        *,
        exclusive_round: bool = False,
        **checks: Unpack[_EntryChecks],
    ) -> dict:
        """A new entry that ends the draft ``name`` (a game's end, a session's trumps),
        the draft removed in the same transaction. Unlike
        :meth:`~scorekeeper.store.drafts.Drafts.close_draft_into_entry`, the entry keeps
        no tap log. Other arguments as for :meth:`add_entry`."""
        return self.add_entry(
            table_id,
            round_number,
            kind,
            request,
            result,
            points,
            submission_id,
            exclusive_round=exclusive_round,
            close_draft=name,
            **checks,
        )

    def void_entry(
        self,
        table_id: int,
        entry_id: int,
        submission_id: str | None = None,
        based_on_version: int | None = None,
        together: Iterable[int] = (),
        then: Callable[[], None] | None = None,
    ) -> dict:
        """Undo: the entry stops counting. Undoing an edit brings back what it replaced.
        ``based_on_version``: as for ``add_entry``. ``together``: entries that count with
        this one (an edited round's, the superseding one last), undone in the same
        transaction so that no half of the group is left counting. ``then()``: what
        follows from it (a game's open deal kept in step), in the same write. The
        outcome's ``stays``: how many live entries of the round the undo left as they
        were (a Kvanta round's other steps; none when the round went with it)."""

        back: list[tuple[int, int]] = []  # (entry, the undone one that had replaced it)

        def void(entry_id: int, row) -> None:
            self._event(entry_id, "voided")
            back.extend((old_id, entry_id) for old_id in self.replaced_by(entry_id))
            if row["supersedes"] is None:  # an edit undone brings its original back
                self._reopen_undone(table_id, entry_id, row["round"])

        def bring_back() -> None:
            """What the undone entries replaced counts again, once the whole group is
            undone; but not into a slot of its round filled since (another dealer
            draw redone meanwhile): both would count."""
            for old_id, by in back:
                if self._last_event(old_id) != "superseded":
                    continue
                old = self._entry_row(table_id, old_id)
                if not self._slot_taken(table_id, old["round"], old["kind"], old_id):
                    self._event(old_id, "restored", by_entry=by)

        def body(outcome: dict) -> None:
            self._check_based_on(table_id, based_on_version)
            row = self._entry_if(
                table_id,
                entry_id,
                self._is_live,
                "already_undone",
                N_("Round %(round)s was already undone or changed on another phone."),
            )
            before = self._live_in_round(table_id, row["round"])
            void(entry_id, row)
            self._rest_of_group(table_id, entry_id, together, self._is_live, void)
            bring_back()
            stays = len(before & self._live_in_round(table_id, row["round"]))
            outcome.update(entry_id=entry_id, action="voided", round=row["round"], stays=stays)
            if then is not None:
                then()

        # (an undone deal's log back on its screen, or off it again)
        return self.once(
            table_id, submission_id, "void_entry", body, touches=ENTRY_READS | DRAFT_READS
        )

    def restore_entry(
        self,
        table_id: int,
        entry_id: int,
        submission_id: str | None = None,
        together: Iterable[int] = (),
        then: Callable[[], None] | None = None,
        based_on_version: int | None = None,
    ) -> dict:
        """Redo: a voided entry counts again (and replaces again what it had replaced);
        ``together``: as for :meth:`void_entry` (the superseding one first); ``then``,
        ``based_on_version`` and the outcome's ``stays``: as for :meth:`void_entry`."""

        def restore(entry_id: int, row) -> None:
            replaced = self.replaced_by(entry_id)
            if any(not self._is_live(old) for old in replaced):
                raise Conflict(
                    self._numbered(
                        table_id,
                        "changed_since",
                        N_(
                            "Round %(round)s has been changed again since; "
                            "redo the latest version instead."
                        ),
                        row["round"],
                    )
                )
            self._close_reopened(table_id, entry_id)
            self._event(entry_id, "restored")
            for old in replaced:
                self._event(old, "superseded", by_entry=entry_id)

        def body(outcome: dict) -> None:
            self._check_based_on(table_id, based_on_version)
            row = self._entry_if(
                table_id,
                entry_id,
                self._is_voided,
                "not_undone",
                N_("Round %(round)s is not undone; there is nothing to redo."),
            )
            before = self._live_in_round(table_id, row["round"])
            restore(entry_id, row)
            self._rest_of_group(table_id, entry_id, together, self._is_voided, restore)
            for restored in {entry_id, *together}:
                self._check_round_slot(table_id, restored)
            stays = len(before & self._live_in_round(table_id, row["round"]))
            outcome.update(entry_id=entry_id, action="restored", round=row["round"], stays=stays)
            if then is not None:
                then()

        # (an undone deal's log back on its screen, or off it again)
        return self.once(
            table_id, submission_id, "restore_entry", body, touches=ENTRY_READS | DRAFT_READS
        )

    def _entry_if(self, table_id: int, entry_id: int, ready, sentence: str, refusal: str):
        """The entry's row, when it is ``ready`` for the change (else refused, the round
        named in ``refusal``, or as the game's numbering words its ``sentence``: another
        phone changed it first)."""
        row = self._entry_row(table_id, entry_id)
        if not ready(entry_id):
            raise Conflict(self._numbered(table_id, sentence, refusal, row["round"]))
        return row

    def _live_in_round(self, table_id: int, round_number: int) -> set[int]:
        rows = self.db.execute(
            "SELECT id FROM live_entries WHERE table_id = ? AND round = ?",
            [table_id, round_number],
        ).fetchall()
        return {r[0] for r in rows}

    def _check_round_slot(self, table_id: int, entry_id: int) -> None:
        """Refuse (Conflict) when the entry, counting again, is the second live entry of
        its slot in its round (``round_slot``): the round was entered again after the
        entry was undone (a deal saved anew), and both would count."""
        row = self._entry_row(table_id, entry_id)
        if self._slot_taken(table_id, row["round"], row["kind"], entry_id):
            raise Conflict(
                self._numbered(
                    table_id,
                    "entered_since",
                    N_(
                        "Round %(round)s was entered again after this entry was undone; "
                        "undo that entry first to bring this one back."
                    ),
                    row["round"],
                )
            )

    def _entered_meanwhile(self, table_id: int, round_number: int) -> Conflict:
        """The refusal of an entry whose round another phone entered first."""
        return Conflict(
            self._numbered(
                table_id,
                "entered_meanwhile",
                N_(
                    "Round %(round)s was just entered on another phone; "
                    "nothing was saved. Check the history before adding it again."
                ),
                round_number,
            )
        )

    def _slot_taken(
        self, table_id: int, round_number: int, kind: str, but: int | None = None
    ) -> bool:
        """Whether the round counts a live entry (other than ``but``) of the slot an entry
        of ``kind`` fills (``round_slot``; never, for a kind a round counts any number of)."""
        slot = self._slot_of(kind)
        if slot is None:
            return False
        others = self.db.execute(
            "SELECT kind FROM live_entries WHERE table_id = ? AND round = ? AND id IS NOT ?",
            [table_id, round_number, but],
        ).fetchall()
        return any(self._slot_of(other) == slot for (other,) in others)

    def _slot_of(self, kind: str):
        """The slot of its round an entry of ``kind`` fills (``round_slot``); None for a
        kind a round counts any number of, or a store told of no slots."""
        return self.round_slot(kind) if self.round_slot is not None else None

    def _is_voided(self, entry_id: int) -> bool:
        return self._last_event(entry_id) == "voided"

    def _rest_of_group(self, table_id: int, entry_id: int, together, pending, change) -> None:
        """The entries ``together`` with ``entry_id`` that are still ``pending``, changed
        (undone or redone) in the same transaction as it."""
        for other in together:
            if other != entry_id and pending(other):
                change(other, self._entry_row(table_id, other))

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

    def _entries_by(self, table_id: int, where: str, params: list, order: str, limit: int):
        """Entries of a table that match ``where`` (SQL over ``e``; ``last_event``
        is the entry's latest event), at most ``limit`` in ``order``."""

        def read() -> tuple[Entry, ...]:
            # each entry's points come along, in its row
            rows = self.db.execute(
                f"""SELECT * FROM (
                        SELECT e.id, e.round, e.kind, e.request, e.result, e.created,
                               e.submission_id, e.supersedes, {_LAST_EVENT} AS last_event,
                               e.points
                        FROM entries e WHERE e.table_id = ?) e
                    WHERE {where} ORDER BY {order} LIMIT ?""",
                [table_id, *params, limit],
            ).fetchall()
            return tuple(_entry(r, _points_json(r[9])) for r in rows)

        key = ("entries", where, tuple(params), order, limit)
        return list(self._memoized(table_id, key, read))

    def tally(self, table_id: int, not_deals: Iterable[str] = ()) -> Tally:
        """The table's totals, deals and counts (``Tally``), over its whole history.

        Made once per store and table by sums in SQL, then brought up to date from the
        entries and events written since: the table's own rows are never deleted but
        with it, so every new one has a larger id than the last one counted. Read in
        one snapshot, so entries and events agree."""
        not_deals = frozenset(not_deals)
        if self._wrote_in_open_write():
            # counted as the write stands, and not kept: it may still be rolled back
            tally = self._made_tally(table_id, not_deals)
            if tally is None:
                raise NotFound(Text("There is no such table."))
            return tally
        key = (table_id, not_deals)
        tallies = self.__dict__.setdefault("_tallies", OrderedDict())
        seen, tally = self._seen_version(table_id), tallies.get(key)
        if seen is not None and tally is not None and (tally.version, tally.scorer_key) == seen:
            tallies.move_to_end(key)  # counted at the version this request read
            return tally
        if tally is not None and self._update_tally(tally, table_id, not_deals):
            pass  # brought up to date in one statement
        else:
            tally = self._made_tally(table_id, not_deals)
            if tally is None:
                tallies.pop(key, None)
                raise NotFound(Text("There is no such table."))
        self._saw_version(table_id, tally.version, tally.scorer_key)
        tallies[key] = tally
        tallies.move_to_end(key)
        while len(tallies) > TALLIES_PER_STORE:
            tallies.popitem(last=False)
        return tally

    def _made_tally(self, table_id: int, not_deals: frozenset[str]) -> Tally | None:
        """A tally made anew by sums, in one snapshot; None when there is no such table."""
        began = not self.db.conn.in_transaction
        if began:
            self.db.conn.execute("BEGIN")
        try:
            row = self.db.execute(
                "SELECT scorer_key, version FROM tables WHERE id = ?", [table_id]
            ).fetchone()
            if row is None:
                return None
            tally = self._new_tally(table_id, not_deals, row[0])
            tally.version = row[1]
            return tally
        finally:
            if began:
                self.db.conn.execute("COMMIT")

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
                f"""SELECT {_POINT_PLAYER}, SUM(ep.value)
                    FROM entries e JOIN json_each(e.points) ep
                    WHERE e.table_id = ? AND {_LIVE} GROUP BY 1""",
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

    def _update_tally(self, tally: Tally, table_id: int, not_deals: frozenset[str]) -> bool:
        """Bring a tally up to date from what was written since it counted, read in one
        statement (so in one snapshot: the table's version, the events since and the
        entries added since agree). False, changing nothing, when the table is gone or
        its id names another table now (a tally must then be made anew)."""
        marks = ", ".join(f":nd{i}" for i in range(len(not_deals))) or "NULL"
        names = {f"nd{i}": kind for i, kind in enumerate(sorted(not_deals))}
        last_of = _LAST_EVENT.replace("= e.id", "= o.id")
        # what a round has of live deal entries now (one indexed count per row read)
        live_in_round = f"""(SELECT COUNT(*) FROM entries e WHERE e.table_id = :t
            AND e.round = o.round AND e.kind NOT IN ({marks}) AND {_LIVE})"""
        points = "o.points"
        # (``+o.table_id``, NOT INDEXED: read the rows after the last ids counted, by
        # row id, not every row of the table or every event by an index)
        rows = self.db.execute(
            f"""SELECT 'table', version, scorer_key, NULL, NULL, NULL, NULL, NULL, NULL, NULL
                FROM tables WHERE id = :t
                UNION ALL
                SELECT 'event', ev.id, o.id, o.round, o.kind, +o.id <= :entry,
                       (SELECT old.event FROM entry_events old WHERE old.entry_id = o.id
                        AND old.id <= :event ORDER BY old.id DESC LIMIT 1),
                       {last_of}, CASE WHEN +o.id <= :entry THEN {points} END,
                       CASE WHEN +o.id <= :entry THEN {live_in_round} END
                FROM entry_events ev NOT INDEXED JOIN entries o ON o.id = ev.entry_id
                WHERE ev.id > :event AND +o.table_id = :t
                UNION ALL
                SELECT 'entry', o.id, o.id, o.round, o.kind, NULL, NULL,
                       {last_of}, {points}, {live_in_round}
                FROM entries o WHERE +o.table_id = :t AND o.id > :entry""",
            {"t": table_id, "entry": tally.entry_id, "event": tally.event_id, **names},
        ).fetchall()
        head = next((r for r in rows if r[0] == "table"), None)
        if head is None or head[2] != tally.scorer_key:
            return False
        for player in self.players(table_id):  # a table's players are those it began with
            tally.totals.setdefault(player.id, 0)
        dealt: dict[int, int] = {}  # round → live entries of a deal kind added to it

        def count(round_number: int, kind: str, state: str, points: dict, sign: int) -> None:
            added = tally.count(state, points, sign)
            if added and kind not in not_deals:
                dealt[round_number] = dealt.get(round_number, 0) + added

        # events on entries counted before: each such entry leaves its old state
        # (as of the last event counted) for its state now
        changed = {r[2]: r for r in rows if r[0] == "event" and r[5]}
        for (
            _part,
            _id,
            _entry,
            round_number,
            kind,
            _counted,
            old,
            new,
            got,
            _live,
        ) in changed.values():
            before, after = _state(old), _state(new)
            if before != after:
                count(round_number, kind, before, _points_json(got), -1)
                count(round_number, kind, after, _points_json(got), 1)
        added = [r for r in rows if r[0] == "entry"]
        for _part, _id, _entry, round_number, kind, _counted, _old, event, got, _live in added:
            count(round_number, kind, _state(event), _points_json(got), 1)
            tally.kinds.add(kind)
        if added:
            tally.entry_id = max(r[1] for r in added)
        # a round counts as dealt while it has a live deal entry: what it has now, less
        # what was just added, is what it had before
        live_now = {r[3]: r[9] for r in [*changed.values(), *added]}  # as of the snapshot
        for round_number, change in dealt.items():
            if change:
                now_live = live_now[round_number]
                tally.deals += (now_live > 0) - (now_live - change > 0)
        tally.event_id = max([tally.event_id, *(r[1] for r in rows if r[0] == "event")])
        tally.version = head[1]
        return True

    def _count_written(self, table_id: int, version: int, added: list) -> None:
        """After a write that added these live entries alone (each with whether its
        round was a new one; perhaps none): every tally counted just before it counts
        them too, with nothing read. One that cannot know whether a round is newly dealt is left to
        read what changed (``_update_tally``)."""
        for (tid, not_deals), tally in self.__dict__.get("_tallies", {}).items():
            if tid != table_id or tally.version != version - 1:
                continue
            dealt = set()  # the rounds these entries make dealt
            for entry, new_round in added:
                if entry.kind in not_deals or entry.round in dealt:
                    continue
                if not new_round:
                    break
                dealt.add(entry.round)
            else:
                for entry, _new_round in added:
                    tally.count("live", entry.points, 1)
                    tally.kinds.add(entry.kind)
                tally.deals += len(dealt)
                tally.entry_id = max([tally.entry_id, *(entry.id for entry, _ in added)])
                tally.version = version

    def _brought_up(self, key: tuple, value, write):
        """What a read of the history (``_latest``, ``next_round``, ``entry_count``, the
        rolls) finds once the live entries and the rolls this write added, newer than
        any it holds, are there too."""
        if key[0] in ROLL_READS:  # rolls are only ever added, by ``add_roll``
            return self._rolls_with(key, value, write.rolled)
        if not write.added:
            return None  # (one that changed no entry leaves them: not gone)
        entries = [entry for entry, _new_round in write.added]
        if key[0] == "entry_count":
            return value + len(entries)
        if key[0] == "next_round":
            return max(value, *(e.round + 1 for e in entries))
        if key[0] != "latest":
            return None
        _latest, kinds, history = key
        newest = lambda e: (e.round, e.id)  # noqa: E731 (the history's order)
        # the last rounds: those after the newest round less RECENT_ROUNDS, the newest
        # first; what was read holds every entry of them but for the newest's own
        top = max([*(e.round for e in value["recent"][:1]), *(e.round for e in entries)])
        recent = [e for e in [*entries, *value["recent"]] if e.round > top - RECENT_ROUNDS]
        recent = sorted(recent, key=newest, reverse=True)[:RECENT_ENTRIES]
        latest: dict[str, Entry] = {}  # the latest live entry of each kind
        for e in [*value["entries"], *entries]:
            if e.live and e.kind in kinds:
                if e.kind not in latest or newest(e) > newest(latest[e.kind]):
                    latest[e.kind] = e
        shown = {e.id: e for e in [*recent, *latest.values()]}
        page = sorted([*entries, *value["history"]], key=newest, reverse=True)
        return {
            "entries": sorted(shown.values(), key=newest),
            "recent": recent,
            "history": page[: history or 0],
        }

    def _brought_up_anew(self, table_id: int, version: int, before: dict, write) -> list:
        """A write that adds the first entries of kinds the table had none of: the latest
        history of every kind it has now, which the next view asks for (the kinds are
        the tally's), from the one of every kind it had, read before it (its newest
        entry of each new kind is one this write added)."""
        if not write.added:
            return []
        had = self._kinds_at(table_id, version)
        if had is None:
            return []
        new = {entry.kind for entry, _new_round in write.added} - had
        if not new:
            return []
        every = tuple(sorted(had))
        found = []
        for key, value in before.items():
            if key[0] == "latest" and key[1] == every:
                anew = ("latest", tuple(sorted(had | new)), key[2])
                found.append((anew, self._brought_up(anew, value, write)))
        return found

    @staticmethod
    def _rolls_with(key: tuple, value, rolled: list[dict]):
        """``rolls`` or ``last_roll_id`` as read before a write, with the rolls it
        added (newer than any before)."""
        if key[0] == "last_roll_id":
            return rolled[-1]["id"] if rolled else value
        _rolls, after, up_to, latest = key
        if up_to is not None:  # the new ones come after it
            return value
        rows = (*value, *rolled)
        return rows if latest is None else rows[len(rows) - latest :] if latest else ()

    def entry(self, table_id: int, entry_id: int) -> Entry:
        if self._seen_version(table_id) is not None:  # among the entries this request read
            for key, kept in self._memo.get(table_id, {}).items():
                found = (
                    kept if key[0] == "entries" else kept["entries"] if key[0] == "latest" else ()
                )
                for entry in found:
                    if entry.id == entry_id:
                        return entry
        found = self._entries_by(table_id, "e.id = ?", [entry_id], "e.id", 1)
        if not found:
            raise NotFound(Text("There is no such round at this table."))
        return found[0]

    def recent_entries(self, table_id: int, kinds: Iterable[str] | None = None) -> list[Entry]:
        """What a table's screens read of its history, oldest first: every entry of its
        last ``RECENT_ROUNDS`` rounds (at most ``RECENT_ENTRIES`` of them), and the
        latest live entry of each kind, however old (the trumps of a session, the board
        of a race, the last deal's mode). ``kinds``: those the table has, when known
        (``Tally.kinds``)."""
        if kinds is not None and self._seen_version(table_id) is not None:
            kinds = tuple(sorted(set(kinds)))
            read = next(
                (v for k, v in self._memo.get(table_id, {}).items() if k[:2] == ("latest", kinds)),
                None,
            ) or self._latest(table_id, kinds, None)
            return read["entries"]
        recent = self._entries_by(
            table_id,
            "e.round > (SELECT COALESCE(MAX(round), 0) FROM entries WHERE table_id = ?) - ?",
            [table_id, RECENT_ROUNDS],
            "e.round DESC, e.id DESC",
            RECENT_ENTRIES,
        )
        seen = {e.id for e in recent}
        complete = kinds is None or self._has_only(table_id, kinds)
        if kinds is None:
            kinds = [
                k
                for (k,) in self.db.execute(
                    "SELECT DISTINCT kind FROM entries WHERE table_id = ?", [table_id]
                )
            ]
        kinds = sorted(kinds)
        latest_ids = []
        if kinds:
            # for each kind, newest first along the table's index: stops at the first
            # live one; every kind in one statement
            one_kind = f"""SELECT * FROM (SELECT e.id FROM entries e
                WHERE e.table_id = ? AND e.kind = ? AND {_LIVE}
                ORDER BY e.round DESC, e.id DESC LIMIT 1)"""
            sql = " UNION ALL ".join([one_kind] * len(kinds))
            params = [value for kind in kinds for value in (table_id, kind)]
            found = self._memoized(
                table_id,
                ("latest_ids", tuple(kinds)),
                lambda: tuple(r[0] for r in self.db.execute(sql, params).fetchall()),
            )
            latest_ids = [entry_id for entry_id in found if entry_id not in seen]
        older = []
        if latest_ids:
            marks = ", ".join("?" * len(latest_ids))
            older = self._entries_by(
                table_id, f"e.id IN ({marks})", latest_ids, "e.id", len(latest_ids)
            )
        found = sorted([*recent, *older], key=lambda e: (e.round, e.id))
        if complete:
            # the latest live entry of every kind is among them, so the latest live
            # round is too: the next round is known without reading it
            live = [e.round for e in found if e.live]
            self._keep(table_id, ("next_round",), max(live, default=0) + 1)
        return found

    def _latest(self, table_id: int, kinds: tuple[str, ...], history: int | None) -> dict:
        """What a table's views read of its latest history, in one statement: the
        entries ``recent_entries(kinds)`` gives, and (``history`` given) the first
        page of ``history_page`` of that many rows. Kept for the request."""

        def alias(sql: str, name: str) -> str:
            return sql.replace("= e.id", f"= {name}.id")

        recent = """SELECT id FROM (SELECT r.id FROM entries r WHERE r.table_id = :t
            AND r.round > (SELECT COALESCE(MAX(round), 0) FROM entries WHERE table_id = :t)
            - :rounds ORDER BY r.round DESC, r.id DESC LIMIT :most)"""
        pages = f"""SELECT id FROM (SELECT h.id FROM entries h WHERE h.table_id = :t
            AND {alias(_LAST_EVENT, "h")} != 'superseded'
            ORDER BY h.round DESC, h.id DESC LIMIT :history)"""
        # for each kind, newest first along the table's index: stops at the first live one
        latest = (
            " UNION ALL ".join(
                f"""SELECT * FROM (SELECT l.id FROM entries l WHERE l.table_id = :t
                AND l.kind = :k{i} AND {alias(_LIVE, "l")}
                ORDER BY l.round DESC, l.id DESC LIMIT 1)"""
                for i in range(len(kinds))
            )
            or "SELECT NULL WHERE 0"
        )
        pages = pages if history is not None else "SELECT NULL WHERE 0"

        def read() -> dict:
            if self._tally_kinds(table_id) == () and not self._adding_entries():
                # no entry at all, as the tally at this version says (a game's first)
                return {"entries": [], "recent": [], "history": []}
            rows = self.db.execute(
                f"""SELECT e.id, e.round, e.kind, e.request, e.result, e.created,
                           e.submission_id, e.supersedes, {_LAST_EVENT},
                           e.points,
                           e.id IN ({recent}), e.id IN ({latest}), e.id IN ({pages})
                    FROM entries e
                    WHERE e.id IN ({recent} UNION ALL {latest} UNION ALL {pages})
                    ORDER BY e.round DESC, e.id DESC""",
                {
                    "t": table_id,
                    "rounds": RECENT_ROUNDS,
                    "most": RECENT_ENTRIES,
                    "history": history or 0,
                    **{f"k{i}": kind for i, kind in enumerate(kinds)},
                },
            ).fetchall()
            made = [(_entry(r, _points_json(r[9])), r[10], r[11], r[12]) for r in rows]
            newest = [e for e, in_recent, _latest, _page in made if in_recent]
            entries = [e for e, in_recent, in_latest, _page in made if in_recent or in_latest]
            entries.reverse()  # oldest first
            if self._has_only(table_id, kinds):
                # the latest live entry of every kind is among them, so the latest
                # live round is too: the next round is known without reading it
                live = [e.round for e in entries if e.live]
                self._keep(table_id, ("next_round",), max(live, default=0) + 1)
            return {
                "entries": entries,
                "recent": newest,  # newest first: every entry down to the last of them
                "history": [e for e, _recent, _latest, on_page in made if on_page],
            }

        return self._memoized(table_id, ("latest", kinds, history), read)

    def _tally_kinds(self, table_id: int) -> tuple[str, ...] | None:
        """The kinds of the table's entries, as its tally at the version this request
        read says; None when that is not known."""
        seen = self._seen_version(table_id)
        kinds = None if seen is None else self._kinds_at(table_id, *seen)
        return None if kinds is None else tuple(sorted(kinds))

    def _kinds_at(self, table_id: int, version: int, scorer_key=...) -> set[str] | None:
        """The kinds of the table's entries at ``version`` (with that scorer key, when
        one is given), as a tally kept at that version says; None when none is."""
        for (tid, _not_deals), tally in self.__dict__.get("_tallies", {}).items():
            same_key = scorer_key is ... or scorer_key == tally.scorer_key
            if tid == table_id and tally.version == version and same_key:
                return tally.kinds
        return None

    def _adding_entries(self) -> bool:
        """A write under way has changed an entry: the tally does not count it yet."""
        return self._open_write is not None and self._open_write.entries_changing

    def _has_only(self, table_id: int, kinds: Iterable[str]) -> bool:
        """Whether the table's entries are of these kinds alone (as its tally says)."""
        known = self._tally_kinds(table_id)
        return known is not None and set(known) <= set(kinds)

    def live_newest_first(self, table_id: int, kinds: Iterable[str]) -> Iterator[Entry]:
        """The live entries of these kinds, newest first, read a page at a time, so
        that a reader stopping at the first it needs reads no further."""
        kinds = list(kinds)
        if not kinds:
            return
        marks = ", ".join("?" * len(kinds))
        where = f"e.kind IN ({marks}) AND e.last_event NOT IN ('voided', 'superseded')"
        after: list = []
        read = next(
            (
                v
                for k, v in ((self._memo_current() or {}).get(table_id) or {}).items()
                if k[0] == "latest"
            ),
            None,
        )
        if read is not None and read["recent"] and self._seen_version(table_id) is not None:
            # this request read every entry down to the last recent one: those first
            wanted = set(kinds)
            yield from (e for e in read["recent"] if e.live and e.kind in wanted)
            if self._kept(table_id, ("entry_count",)) == len(read["recent"]):
                return  # they are every entry the table has: none is older
            after = [read["recent"][-1].round, read["recent"][-1].id]
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
        kinds = self._tally_kinds(table_id) if before is None else None
        if kinds is not None:  # read with the latest entries the views read next
            rows = self._latest(table_id, kinds, size + 1)["history"]
            return rows[:size], len(rows) > size
        where = "e.last_event != 'superseded'"
        params: list = []
        if before is not None:
            where += " AND (e.round, e.id) < (?, ?)"
            params = list(before)
        rows = self._entries_by(table_id, where, params, "e.round DESC, e.id DESC", size + 1)
        return rows[:size], len(rows) > size

    def points_after_page(
        self, table_id: int, page: list[Entry], totals: dict[int, int], next_round: int
    ) -> dict[int, int]:
        """Player id → what the live entries newer than a page of the history (``page``,
        newest first; ``totals``: the table's, by player id) add: the totals after each
        of its rows are the table's less these. One sum in SQL over the shorter side of
        the page: the rounds after it, or those before it (then the table's totals less
        those and less the page's own)."""
        newest, oldest = page[0], page[-1]
        if oldest.round - self.first_round(table_id) >= next_round - newest.round:
            return self._points_beyond(table_id, ">", (newest.round, newest.id))
        earlier = self._points_beyond(table_id, "<", (oldest.round, oldest.id))
        on_page: dict[int, int] = {}
        for e in page:
            if e.live:
                for pid, pts in e.points.items():
                    on_page[pid] = on_page.get(pid, 0) + pts
        return {pid: t - earlier.get(pid, 0) - on_page.get(pid, 0) for pid, t in totals.items()}

    def _points_beyond(self, table_id: int, side: str, cursor: tuple[int, int]) -> dict:
        """Player id → the sum of the live entries on ``side`` ("<" or ">") of ``cursor``."""
        assert side in ("<", ">")
        return dict(
            self.db.execute(
                f"""SELECT {_POINT_PLAYER}, SUM(ep.value)
                    FROM entries e JOIN json_each(e.points) ep
                    WHERE e.table_id = ? AND (e.round, e.id) {side} (?, ?) AND {_LIVE}
                    GROUP BY 1""",
                [table_id, *cursor],
            ).fetchall()
        )

    def first_round(self, table_id: int) -> int:
        row = self.db.execute(
            "SELECT MIN(round) FROM entries WHERE table_id = ?", [table_id]
        ).fetchone()
        return row[0] or 0

    def entry_count(self, table_id: int) -> int:
        """Every entry of the table, undone and edited ones included (what the cap counts)."""
        return self._memoized(
            table_id,
            ("entry_count",),
            lambda: self.db.execute(
                "SELECT COUNT(*) FROM entries WHERE table_id = ?", [table_id]
            ).fetchone()[0],
        )

    def totals(self, table_id: int) -> dict[int, int]:
        """Player id → sum of points over live entries (0 for players with none)."""
        rows = self.db.execute(
            f"""SELECT p.id, COALESCE(t.total, 0) FROM players p LEFT JOIN (
                   SELECT {_POINT_PLAYER} AS player_id, SUM(ep.value) AS total
                   FROM live_entries e JOIN json_each(e.points) ep
                   WHERE e.table_id = ? GROUP BY 1) t ON t.player_id = p.id
               WHERE p.table_id = ?""",
            [table_id, table_id],
        ).fetchall()
        return {pid: total for pid, total in rows}

    def next_round(self, table_id: int) -> int:
        def read() -> int:
            row = self.db.execute(
                "SELECT MAX(round) FROM live_entries WHERE table_id = ?", [table_id]
            ).fetchone()
            return (row[0] or 0) + 1

        return self._memoized(table_id, ("next_round",), read)

    def events(self, table_id: int) -> list[dict]:
        """The audit trail of a table, oldest first."""
        return self._all(
            """SELECT ev.id, ev.entry_id, ev.event, ev.by_entry, ev.created, e.round
               FROM entry_events ev JOIN entries e ON e.id = ev.entry_id
               WHERE e.table_id = ? ORDER BY ev.id""",
            [table_id],
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
        log: str | None = None,
        closes: tuple[str, int] | None = None,
        new_round: bool = False,
    ) -> int:
        """One entry with its points (and the superseded entry's event), inside a write.
        ``log``: the tap log it was entered with (JSON); ``closes``: the draft it closes
        and the table version of the write that closes it (``closed_draft``);
        ``new_round``: its round had no live entry (the next round)."""
        if not set(points) <= {p.id for p in self.players(table_id)}:
            raise StoreError(Text("Points were given for someone who is not at this table."))
        request_json = json.dumps(request, ensure_ascii=False)
        result_json = json.dumps(result, ensure_ascii=False)
        created = now()
        self._entries_to_change(table_id)
        before = self.db.conn.total_changes
        entry_id = self._insert(
            "entries",
            {
                "table_id": table_id,
                "round": round_number,
                "kind": kind,
                "request": request_json,
                "result": result_json,
                "created": created,
                "submission_id": submission_id,
                "supersedes": supersedes,
                "points": json.dumps({str(pid): int(pts) for pid, pts in points.items()}),
                **({} if log is None else {"taps": log}),
                **({} if closes is None else {"closes": closes[0], "closes_at": closes[1]}),
            },
        )
        self._wrote(NEW_ENTRY_READS, before)
        open_write = self._open_write
        if open_write is not None and open_write.added is not None:
            # as a read would find it (its own copies of the request and result)
            row = (entry_id, round_number, kind, request_json, result_json, created)
            entry = _entry((*row, submission_id, supersedes, "created"), dict(points))
            open_write.added.append((entry, new_round))
        if supersedes is not None:
            self._event(supersedes, "superseded", by_entry=entry_id)
        return entry_id

    def _event(self, entry_id: int, event: str, by_entry: int | None = None) -> None:
        if self._open_write is not None:
            self._open_write.added = None  # an entry's state changed: read back
            self._open_write.entries_changing = True
        before = self.db.conn.total_changes
        self._insert(
            "entry_events",
            {"entry_id": entry_id, "event": event, "by_entry": by_entry, "created": now()},
        )
        self._wrote(ENTRY_READS, before)

    def replaced_by(self, entry_id: int) -> list[int]:
        """Entries this one superseded when it was stored, and supersedes again when
        redone (an edit's original, a deal's provisional entries)."""
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
            raise NotFound(Text("There is no such round at this table."))
        return row

    def _row_to_supersede(self, table_id: int, entry_id: int) -> dict:
        """Inside a write: the row of the entry an edit replaces, refused (Conflict) when
        it no longer counts (another phone undid or edited it meanwhile)."""
        return self._entry_if(
            table_id,
            entry_id,
            self._is_live,
            "changed_before_edit",
            N_(
                "Round %(round)s was changed on another phone meanwhile; "
                "nothing was saved. Check the history and try again."
            ),
        )

    def _points(self, table_id: int) -> dict[int, dict[int, int]]:
        rows = self.db.execute(
            f"""SELECT e.id, {_POINT_PLAYER}, ep.value
               FROM entries e JOIN json_each(e.points) ep WHERE e.table_id = ?""",
            [table_id],
        ).fetchall()
        out: dict[int, dict[int, int]] = {}
        for entry_id, player_id, pts in rows:
            out.setdefault(entry_id, {})[player_id] = pts
        return out

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

        def body(outcome: dict) -> None:
            self._check_draft(table_id, based_on_draft)
            row = {
                "table_id": table_id,
                "round": round_number,
                "kind": kind,
                "dice": json.dumps(dice),
                "result": json.dumps(result),
                "physical": int(physical),
                "created": now(),
                "submission_id": submission_id,
            }
            before = self.db.conn.total_changes
            roll_id = self._insert("rolls", row)
            self._wrote(ROLL_READS, before)
            if submission_id:  # the roll carries it: no submissions row
                self._carry(table_id, submission_id)
            self._open_write.rolled.append({"id": roll_id, **row})  # as ``SELECT *`` has it
            outcome.update(roll_id=roll_id, dice=dice, result=result, physical=physical)

        return self.once(table_id, submission_id, "add_roll", body, touches=ROLL_READS)

    def rolls(
        self,
        table_id: int,
        after: int = 0,
        up_to: int | None = None,
        latest: int | None = None,
    ) -> list[dict]:
        """The table's rolls, oldest first: those with an id above ``after`` and (when
        given) at most ``up_to``; ``latest``: only the last so many of them."""
        if up_to is not None and up_to <= after:
            return []
        # every roll of the table, when this request read them already
        every = (self._memo_current() or {}).get(table_id, {}).get(("rolls", 0, None, None))
        if every is not None and self._seen_version(table_id) is not None:
            kept = [r for r in every if r["id"] > after and (up_to is None or r["id"] <= up_to)]
            kept = kept if latest is None else kept[len(kept) - latest :] if latest else []
        else:
            kept = self._memoized(
                table_id,
                ("rolls", after, up_to, latest),
                lambda: self._read_rolls(table_id, after, up_to, latest),
            )
        rows = [dict(r) for r in kept]
        for row in rows:
            row["dice"] = json.loads(row["dice"])
            row["result"] = json.loads(row["result"])
            row["physical"] = bool(row["physical"])
        return rows

    def _read_rolls(
        self, table_id: int, after: int, up_to: int | None, latest: int | None
    ) -> tuple[dict, ...]:
        where, params = "table_id = ? AND id > ?", [table_id, after]
        if up_to is not None:
            where += " AND id <= ?"
            params.append(up_to)
        if latest is None:
            return tuple(self._all(f"SELECT * FROM rolls WHERE {where} ORDER BY id", params))
        sql = f"SELECT * FROM rolls WHERE {where} ORDER BY id DESC LIMIT ?"
        return tuple(self._all(sql, [*params, latest])[::-1])

    def roll_count(self, table_id: int, up_to: int | None = None) -> int:
        sql, params = "SELECT COUNT(*) FROM rolls WHERE table_id = ?", [table_id]
        if up_to is not None:
            sql += " AND id <= ?"
            params.append(up_to)
        return self.db.execute(sql, params).fetchone()[0]

    def last_roll_id(self, table_id: int) -> int:
        def read() -> int:
            sql = "SELECT MAX(id) FROM rolls WHERE table_id = ?"
            return self.db.execute(sql, [table_id]).fetchone()[0] or 0

        return self._memoized(table_id, ("last_roll_id",), read)
