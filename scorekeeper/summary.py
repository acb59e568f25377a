"""A table's state as every view shows it (page, printed sheet, export):
players, totals, standings and the history rows, from the stored entries.

Its cost does not grow with the table's history: totals and the count of deals are
sums in SQL, the standings read only the latest entries that decide them, and the
history and screens get the latest rounds."""

from __future__ import annotations

from dataclasses import dataclass

from .games import catalog
from .games.standings import Progress, Standings, non_deal_kinds, progress_from, standings
from .messages import N_
from .store import Entry, Player, Store, Table, Tally

# the entries of every game's table; each game's record labels its own kinds
GENERIC_LABELS = {"manual-points": N_("Score pad"), "game-end": N_("Game ended")}


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
    # the latest rows of the history, oldest first; live and undone entries (edited-away
    # ones left out)
    history: list[HistoryRow]
    # the entries of the latest rounds and the latest live one of each kind, oldest
    # first (``Store.recent_entries``): what the game screens read
    entries: list[Entry]
    progress: Progress
    history_hidden: int = 0  # rows of the history older than ``history``

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


def entry_label(entry: Entry, settings: dict | None = None) -> str:
    """The history's name for an entry (a msgid: translated where it is shown), at a
    table of these ``settings``."""
    if entry.kind in GENERIC_LABELS:
        return GENERIC_LABELS[entry.kind]
    found = catalog.kind_record(entry.kind)
    if found is None or found[1] is None or not found[1].label:
        return entry.kind
    request = entry.request if isinstance(entry.request, dict) else {}
    for field, label in found[1].variants:
        if field in request:
            return label
    for key, value, label in found[1].setting_labels:
        if (settings or {}).get(key) == value:
            return label
    return found[1].label


def step_of_round(entry: Entry, stays: int, settings: dict | None = None) -> str | None:
    """What an undo or redo of ``entry`` in the history took back or put back, when
    that was a step of its round and not the round: the history's name for the entry
    (a msgid), when ``stays`` other live rows of the round were left as they were (a
    Kvanta round's other steps) or the entry is no deal of its own (a Pegs move, a
    marriage shown, the game's end). None: the round itself."""
    if stays or entry.kind in non_deal_kinds() or not entry.round:
        return entry_label(entry, settings)
    return None


def history_row(entry: Entry, players: list[Player], settings: dict | None = None) -> HistoryRow:
    label = entry_label(entry, settings)
    return HistoryRow(entry, label, [entry.points.get(p.id) for p in players])


def table_progress(
    s: Store, table: Table, players: list[Player], tally: Tally | None = None
) -> Progress:
    """``progress_of`` the table's live entries, reading only those that decide it
    (of kinds the table has: none at all for a kind it never had)."""
    tally = tally or s.tally(table.id, non_deal_kinds())
    name_of = {p.id: p.name for p in players}

    def newest_first(kinds: frozenset[str]):
        found = s.live_newest_first(table.id, kinds & tally.kinds)
        return (as_progress_entry(e, name_of) for e in found)

    return progress_from(table.game, table.settings, newest_first, tally.deals)


def summarize(s: Store, table: Table, history_rows: int = 20) -> TableSummary:
    """The table as its views show it, with the latest ``history_rows`` of its history."""
    game = catalog.GAMES[table.game]
    players = s.players(table.id)
    tally = s.tally(table.id, non_deal_kinds())  # sums over the whole history
    totals = {p.name: tally.totals.get(p.id, 0) for p in players}
    # the latest entries first: the store reads them at once, and the standings' own
    # reading of the newest entries begins with them
    latest, older = s.history_page(table.id, None, history_rows)
    entries = s.recent_entries(table.id, tally.kinds)
    progress = table_progress(s, table, players, tally)
    st = standings(table.game, [p.name for p in players], totals, table.settings, progress)
    hidden = tally.history_rows - len(latest) if older else 0
    history = [history_row(e, players, table.settings) for e in reversed(latest)]
    return TableSummary(table, game, players, totals, st, history, entries, progress, hidden)
