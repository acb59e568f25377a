"""A table out of the database and into another: its export (JSON, and the CSV of its
history), the import of one, and a backup of the whole file."""

from __future__ import annotations

import csv
import io
import json
import os
import secrets
import sqlite3
from pathlib import Path

from ..messages import Number, Text
from .connection import database_file, sync_file, transaction
from .errors import StoreError, TooMany
from .records import _unencodable


class Transfer:
    """Export, import and backup (a part of ``Store``)."""

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
                "language": table.language,
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
            raise StoreError(Text("This file is not a Scorekeeper table export."))
        self._check_import_room(data)
        if _unencodable(json.dumps(data, ensure_ascii=False, default=str)):
            raise StoreError(
                Text(
                    "This export is damaged: it has half a character "
                    "(an unpaired \\uD800–\\uDFFF escape)."
                )
            )
        from ..importing import check_export  # the app's rules: they read the engines

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
                        raise StoreError(Text("This table is already in this database."))
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
                            "language": t["language"],
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
                                "points": json.dumps(
                                    {
                                        str(player_by_seat[seat]): int(pts)
                                        for seat, pts in e["points"].items()
                                    }
                                ),
                            }
                        )
                        .last_pk
                    )
                    entry_ids[e["id"]] = new_id
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
            raise StoreError(
                Text("This export is incomplete or damaged (%(reason)s).", reason=str(exc))
            ) from None

    def backup(self, path: str | Path) -> None:
        """A consistent copy of the whole database, taken while it is in use.

        The copy is written beside ``path`` and moved over it once complete and on
        disk, so a backup already there is replaced whole or not at all."""
        path = Path(path)
        database = Path(database_file(self.db.conn) or ":memory:")
        if path.resolve() in {database, Path(f"{database}-wal"), Path(f"{database}-shm")}:
            raise StoreError(
                Text("%(path)s is the database itself; back it up to another file.", path=str(path))
            )
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

    def _check_import_room(self, data: dict) -> None:
        """Refuse, before writing anything, an export with more entries than a table may hold."""
        entries = data.get("entries")
        if isinstance(entries, list) and len(entries) > self.max_entries:
            raise TooMany(
                Text(
                    "This export has %(count)s entries, more than the %(most)s "
                    "one table may hold; nothing was imported.",
                    count=Number(len(entries)),
                    most=Number(self.max_entries),
                ),
            )


# what a spreadsheet reads as the start of a formula in a cell of text
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def as_text(name: str) -> str:
    """A name as a CSV cell a spreadsheet shows and never runs: one beginning as a
    formula does is written after an apostrophe, which marks a cell as text."""
    return "'" + name if name.startswith(FORMULA_STARTS) else name


def history_csv(s, table) -> str:
    """A table's history as CSV (``scorekeeper export --format csv``, the page's
    download): a row per entry, undone and edited ones marked, then the totals."""
    players = s.players(table.id)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["round", "kind", "status", "created", *[as_text(p.name) for p in players]])
    for e in s.entries(table.id):
        status = "live" if e.live else "undone or replaced"
        writer.writerow(
            [e.round, e.kind, status, e.created, *[e.points.get(p.id, 0) for p in players]]
        )
    totals = s.totals(table.id)
    writer.writerow(["total", "", "", "", *[totals.get(p.id, 0) for p in players]])
    return out.getvalue()
