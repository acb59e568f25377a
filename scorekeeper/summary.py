"""A table's state as every view shows it (page, printed sheet, export):
players, totals, standings and the history rows, from the stored entries."""

from __future__ import annotations

from dataclasses import dataclass

from .games import catalog
from .games.standings import Standings, progress_of, standings
from .store import Entry, Player, Store, Table

KIND_LABELS = {
    "manual-points": "Score pad",
    "game-end": "Game ended",
    "cowboy-deal": "Deal",
    "cowboy-marriage": "Marriage shown",
    "szaman-deal": "Deal",
    "kvanta-dealer": "Dealer draw",
    "kvanta-hand": "Hand",
    "kvanta-flux": "Flux",
    "kvanta-call": "Call",
    "kvanta-poker": "Poker prize",
    "vezimas-deal": "Cart",
    "vezimas-trumps": "Trumps",
    "pegs-apply": "Move",
    "pegs-board": "Board set",
}


@dataclass(frozen=True)
class HistoryRow:
    entry: Entry
    label: str
    points: list[int | None]  # per player in seat order; None = not in this entry


@dataclass(frozen=True)
class TableSummary:
    table: Table
    game: catalog.Game
    players: list[Player]
    totals: dict[str, int]  # by player name
    standings: Standings
    history: list[HistoryRow]  # oldest first; live and undone entries (edited-away ones left out)
    entries: list[Entry]  # every entry, for views that show the audit trail

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.players]


def as_progress_entry(entry: Entry, name_of: dict[int, str]) -> dict:
    """An entry as the game rules read it (standings.progress_of): points by name."""
    return {
        "round": entry.round,
        "kind": entry.kind,
        "request": entry.request,
        "result": entry.result,
        "points": {name_of[pid]: pts for pid, pts in entry.points.items() if pid in name_of},
    }


def summarize(s: Store, table: Table) -> TableSummary:
    game = catalog.GAMES[table.game]
    players = s.players(table.id)
    name_of = {p.id: p.name for p in players}
    totals_by_id = s.totals(table.id)
    totals = {p.name: totals_by_id.get(p.id, 0) for p in players}
    entries = s.entries(table.id)
    live = [as_progress_entry(e, name_of) for e in entries if e.live]
    progress = progress_of(table.game, table.settings, live)
    st = standings(table.game, [p.name for p in players], totals, table.settings, progress)
    history = [
        HistoryRow(e, KIND_LABELS.get(e.kind, e.kind), [e.points.get(p.id) for p in players])
        for e in entries
        if e.state != "superseded"
    ]
    return TableSummary(table, game, players, totals, st, history, entries)
