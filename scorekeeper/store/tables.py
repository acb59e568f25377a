"""Tables and their players: start one (or a rematch), find it by a link, its
language, rename and reorder its players."""

from __future__ import annotations

import json
from collections.abc import Callable

from .. import validate
from ..messages import Text
from .connection import transaction, writing
from .errors import Conflict, NotFound, StoreError
from .records import (
    SUBMISSION_SQL,
    TABLE_FIELDS,
    TAP_LOG_CLOSED,
    TAP_LOG_DATA,
    TAP_LOG_DRAFT,
    TAP_LOG_VERSION,
    Player,
    Table,
    _unencodable,
    check_language,
    clean_player_names,
    clean_table_name,
    new_key,
    now,
    rematch_name,
)


class Tables:
    """Tables and players (a part of ``Store``)."""

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
        Names are kept as ``clean_names`` gives them (StoreError for a refused one), and
        ``language`` is one of ``messages.LANGUAGES``."""
        name = clean_table_name(name)
        player_names = clean_player_names(player_names)
        language = check_language(language)

        def body(outcome: dict) -> None:
            if rematch_of is not None:
                # another phone's Rematch of the same game came first: the players
                # meet at that table, not one table each (read under the write's lock)
                row = self.db.execute(
                    "SELECT id, scorer_key FROM tables WHERE rematch_of = ? ORDER BY id LIMIT 1",
                    [rematch_of],
                ).fetchone()
                if row is not None:
                    outcome.update(table_id=row[0], scorer_key=row[1])
                    return
            self._check_table_room()
            stamp = now()
            table_id = self._insert(
                "tables",
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
                },
            )
            self.db.conn.executemany(
                "INSERT INTO players (table_id, seat, name) VALUES (?, ?, ?)",
                [(table_id, seat, player_name) for seat, player_name in enumerate(player_names)],
            )
            key = self.db.execute(
                "SELECT scorer_key FROM tables WHERE id = ?", [table_id]
            ).fetchone()[0]
            outcome.update(table_id=table_id, scorer_key=key)

        return self.once(None, submission_id, "create_table", body, scope=rematch_of)

    def table(self, table_id: int) -> Table:
        kept = self._kept(table_id, ("table",))
        if kept is not None:  # read (or written) in this request, at the version it last saw
            return kept
        row = self._one("SELECT * FROM tables WHERE id = ?", [table_id])
        if row is None:
            raise NotFound(Text("There is no such table."))
        table = Table.from_row(row)
        self._saw_version(table_id, table.version, table.scorer_key)
        self._keep(table_id, ("table",), table)
        return table

    def table_by_key(
        self, key: str, draft: str | None = None, submission_id: str | None = None
    ) -> tuple[Table, str]:
        """Find a table by either of its links; returns (table, 'score' | 'watch').
        Inside a write (a tap's, which finds its table under the lock), the same
        statement reads what the write reads first: the tap log ``draft`` (as
        ``tap_log``) and, given ``submission_id``, that submission with the entries'
        count and the next round (as ``_check_submission``), each then kept."""
        if not isinstance(key, str) or not key or _unencodable(key):
            raise NotFound(
                Text("There is no table behind this link; check that it was copied whole.")
            )
        under_lock = self._open_write is not None and writing(self.db)
        draft = draft if under_lock else None
        submission_id = submission_id if under_lock and draft is not None else None
        joins, more = "", ""
        if draft is not None:
            joins += f" LEFT JOIN {TAP_LOG_DRAFT} ON d.table_id = tables.id"
            more += f", {TAP_LOG_DATA}, {TAP_LOG_VERSION}, {TAP_LOG_CLOSED}"
        if submission_id is not None:
            joins += f" LEFT JOIN ({SUBMISSION_SQL}) s"
            more += """, s.outcome, s.action, s.scope,
                (SELECT COUNT(*) FROM entries WHERE table_id = tables.id),
                (SELECT MAX(round) FROM live_entries WHERE table_id = tables.id)"""
        # one query for either link (each column has its own index); every request
        # with a table link starts here
        # with its players, which most requests read next (kept for the request)
        row = self.db.conn.execute(
            f"SELECT {', '.join('tables.' + f for f in TABLE_FIELDS)}, scorer_key = :key, "
            "(SELECT json_group_array(json_array(p.id, p.seat, p.name)) FROM "
            " (SELECT id, seat, name FROM players WHERE table_id = tables.id ORDER BY seat) p)"
            f"{more} FROM tables{joins} WHERE scorer_key = :key OR watch_key = :key",
            {"key": key, "name": draft, "id": submission_id},
        ).fetchone()
        if row is None:
            raise NotFound(
                Text("There is no table behind this link; check that it was copied whole.")
            )
        fields = len(TABLE_FIELDS)
        values, (is_scorer_key, players), extra = (
            row[:fields],
            row[fields : fields + 2],
            row[fields + 2 :],
        )
        access = "score" if is_scorer_key else "watch"
        table = Table.from_row(dict(zip(TABLE_FIELDS, values, strict=True)))
        self._saw_version(table.id, table.version, table.scorer_key)
        self._keep(table.id, ("table",), table)
        self._keep(table.id, ("players",), tuple(Player(*p) for p in json.loads(players)))
        if draft is not None:
            data, draft_version, closed = extra[:3]
            self._keep(table.id, ("tap_log", draft), (data, draft_version, table.version, closed))
        if submission_id is not None:
            *done, count, last_round = extra[3:]
            self._keep(table.id, ("submission", submission_id), tuple(done) if done[0] else None)
            self.checked_under_lock(submission_id)
            self._keep(table.id, ("entry_count",), count)
            self._keep(table.id, ("next_round",), (last_round or 0) + 1)
        return table, access

    def version(self, table_id: int) -> int:
        row = self.db.execute("SELECT version FROM tables WHERE id = ?", [table_id]).fetchone()
        if row is None:
            raise NotFound(Text("There is no such table."))
        self._saw_version(table_id, row[0])
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

    def rematch(
        self,
        table_id: int,
        submission_id: str | None = None,
        settings: dict | None = None,
        usual_name: str | None = None,
    ) -> dict:
        """A new table with the same game, players and seats, and the same settings
        unless given, named after the table with the next number (``rematch_name``);
        the one already started when the table has had its rematch (two phones tapped
        Rematch). ``usual_name``: what a table started without a name is called, for a
        table whose name shows nothing (the game's slug without one)."""
        table = self.table(table_id)
        names = [p.name for p in self.players(table_id)]
        return self.create_table(
            table.game,
            rematch_name(table.name, usual_name or table.game),
            names,
            table.settings if settings is None else settings,
            submission_id,
            rematch_of=table_id,
            language=table.language,
        )

    def set_language(self, table_id: int, language: str, submission_id: str | None = None) -> dict:
        """The language the table's pages speak (one of ``messages.LANGUAGES``). A change
        like any other: the table's version moves on, so every phone's poll redraws."""
        language = check_language(language)

        def body(outcome: dict) -> None:
            if (
                self.db.execute(
                    "UPDATE tables SET language = ? WHERE id = ?", [language, table_id]
                ).rowcount
                == 0
            ):
                raise NotFound(Text("There is no such table."))
            outcome.update(language=language)

        return self.once(table_id, submission_id, "set_language", body)

    def players(self, table_id: int) -> list[Player]:
        def read() -> tuple[Player, ...]:
            rows = self.db.execute(
                "SELECT id, seat, name FROM players WHERE table_id = ? ORDER BY seat", [table_id]
            ).fetchall()
            return tuple(Player(*row) for row in rows)

        return list(self._memoized(table_id, ("players",), read))

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
        name = clean_player_names([name])[0]

        def body(outcome: dict) -> None:
            names = {p.id: p.name for p in self.players(table_id)}
            if player_id not in names:
                raise NotFound(Text("That player is not at this table."))
            key = validate.name_key(name)
            if any(validate.name_key(n) == key for pid, n in names.items() if pid != player_id):
                raise StoreError(Text("“%(name)s” is already playing at this table.", name=name))
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

        return self.once(table_id, submission_id, "rename_player", body)

    def reorder_players(
        self, table_id: int, player_ids: list[int], submission_id: str | None = None
    ) -> dict:
        """New seat order; allowed only until the first entry."""

        def body(outcome: dict) -> None:
            current = {p.id for p in self.players(table_id)}
            if sorted(player_ids) != sorted(current) or len(set(player_ids)) != len(player_ids):
                raise StoreError(Text("The new order must list every player exactly once."))
            if self.db.execute(
                "SELECT 1 FROM entries WHERE table_id = ? LIMIT 1", [table_id]
            ).fetchone():
                raise Conflict(Text("Seats are fixed once the first round has been entered."))
            # two steps keep UNIQUE(table_id, seat) satisfied while seats move
            self.db.execute("UPDATE players SET seat = -seat - 1 WHERE table_id = ?", [table_id])
            for seat, pid in enumerate(player_ids):
                self.db.execute("UPDATE players SET seat = ? WHERE id = ?", [seat, pid])
            outcome.update(order=player_ids)

        return self.once(table_id, submission_id, "reorder_players", body)
