"""One read of a Pegs and Jokers table (``Table``): its board as the latest live board
entry left it, whose turn it is (the seat after the latest live move's or discard's
player, ``next_seat``), the draft of the turn in progress and the race's play state
built on that board; and the writes of a board entry and of the draft.
"""

from __future__ import annotations

from collections.abc import Callable

from .. import store
from ..errors import RuleError
from ..games import catalog
from ..games import pegs as engine
from ..games.play.pegs import PegsRace, next_seat
from ..i18n import gettext as _
from .db import get_store

APPLY_KIND = "pegs-apply"
BOARD_KIND = "pegs-board"  # a correction (or a discard): the whole new state, no points
BOARD_KINDS = (APPLY_KIND, BOARD_KIND)
DRAFT = "pegs-turn"
TAPS_KEPT = 50  # the ids of the latest taps, kept in the draft so a retry is applied once
# the draft's fields of the turn in progress, valid while the latest move is ``moved``
TURN_FIELDS = ("player", "card", "first", "peg", "hand", "editing")


def house_rules(table: store.Table) -> dict:
    game = catalog.GAMES["pegs"]
    return {key: table.settings.get(key, game.setting(key).default) for key in engine.HOUSE_RULES}


def board_entries(entries: list[store.Entry]) -> list[store.Entry]:
    return [e for e in entries if e.live and e.kind in BOARD_KINDS]


def current_board(
    table: store.Table, seats: int, entries: list[store.Entry]
) -> tuple[engine.Board, store.Entry | None]:
    """The board the latest live board entry left (all pegs in start without one)."""
    rules = house_rules(table)
    live = board_entries(entries)
    latest = live[-1] if live else None
    if latest is not None:
        try:
            return engine.Board(seats, latest.result["pegs"], **rules), latest
        except (RuleError, KeyError, TypeError):
            pass  # an entry from another seat count cannot happen; start over if it does
    return engine.Board(seats, **rules), latest


def player_of(entry: store.Entry) -> int | None:
    """Who played a move or discarded (None: a correction by hand)."""
    if entry.kind == APPLY_KIND:
        return entry.request.get("player")
    discard = entry.request.get("discard")
    return discard.get("seat") if isinstance(discard, dict) else None


def store_board(
    s: store.Store,
    table: store.Table,
    board: engine.Board,
    submission_id: str | None = None,
    based_on_version: int | None = None,
    discard: dict | None = None,
) -> dict:
    """A correction: the whole board as the ``pegs-board`` entry's request and result
    (with ``winner_team``, as a move's result has), no points. A discard is such an
    entry too, of the board unchanged, its request naming it: ``{"seat", "card"}`` (the
    card None when the hand was not entered), so the history and "Last:" show it and
    the turn passes with it."""
    state = board.to_json() if discard is None else {**board.to_json(), "discard": discard}
    result = {**board.to_json(), "bumps": [], "winner_team": board.winner_team()}
    return s.add_entry(
        table.id,
        s.next_round(table.id),
        BOARD_KIND,
        state,
        result,
        {},
        submission_id=submission_id,
        based_on_version=based_on_version,
    )


def update_draft(
    s: store.Store,
    table_id: int,
    change: Callable[[dict], dict],
    known: tuple[dict | None, int] | None = None,
) -> dict:
    """Read, change and save the draft; another phone saving in between makes us re-read
    and apply the change again (taps set values, so applying twice is harmless).
    ``known``: the draft as just read (data, version), tried first instead of reading."""
    return write_draft(s, table_id, change, known)[0]


def write_draft(
    s: store.Store,
    table_id: int,
    change: Callable[[dict], dict],
    known: tuple[dict | None, int] | None = None,
) -> tuple[dict, int | None]:
    """``update_draft``, also saying the draft's new version (None: nothing written)."""
    for _attempt in range(5):
        data, version = known if known is not None else s.draft(table_id, DRAFT)
        known = None
        new = change(dict(data or {}))
        if new == (data or {}):
            return new, None  # already so (a retry): nothing written
        try:
            return new, s.save_draft(table_id, DRAFT, new, expected_version=version)
        except store.Conflict:
            continue
    raise store.Conflict(_("Too many phones are changing this at once; tap again."))


class Table:
    """One read of a Pegs table: its players, board, whose turn and the draft."""

    def __init__(
        self,
        table: store.Table,
        entries: list[store.Entry],
        names: list[str],
        stored_draft: tuple[dict | None, int] | None = None,
    ):
        s = get_store()
        self.table, self.names, self.entries = table, names, entries
        self.rules = house_rules(table)
        self.board, self.latest = current_board(table, len(names), entries)
        self.base = self.latest.id if self.latest else 0
        moves = [e for e in board_entries(entries) if player_of(e) is not None]
        self.moved = moves[-1].id if moves else 0  # the latest live move or discard
        # the draft as stored (data, version); given when the caller just wrote it
        self.stored_draft = stored_draft or s.draft(table.id, DRAFT)
        draft = self.stored_draft[0] or {}
        if draft.get("moved", 0) != self.moved:  # a move made or undone since: a new turn
            draft = {k: v for k, v in draft.items() if k not in TURN_FIELDS}
        self.draft = draft
        player = draft.get("player")
        if not (isinstance(player, int) and 0 <= player < len(names)):
            player = next_seat(player_of(moves[-1]), len(names)) if moves else None
        # the last move being changed: entered again on the board it was played on
        latest, self.editing = self.latest, None
        if latest and latest.kind == APPLY_KIND and draft.get("editing") == latest.id:
            self.editing = latest
            self.board = engine.Board(len(names), latest.request["pegs"], **self.rules)
            player = latest.request["player"]
        self.player = player
        self.race = PegsRace.start(
            names,
            {**self.rules, "pegs": self.board.to_json()["pegs"], "turn": player or 0},
        )

    @classmethod
    def of(cls, table: store.Table) -> Table:
        s = get_store()
        return cls(table, s.recent_entries(table.id), [p.name for p in s.players(table.id)])

    def first(self) -> engine.Step | None:
        raw = self.draft.get("first")
        return parse_step(raw, self.board) if raw else None

    def turn(self, **fields) -> Callable[[dict], dict]:
        """A draft change of the turn's fields, for this turn (those of another, which a
        move or an undo elsewhere left behind, are dropped)."""

        def change(d: dict) -> dict:
            if d.get("moved", 0) != self.moved:
                d = {k: v for k, v in d.items() if k not in TURN_FIELDS}
            return {**d, "moved": self.moved, **fields}

        return change


def parse_step(raw: object, board: engine.Board) -> engine.Step | None:
    try:
        return engine.Step.from_json(raw, board.seats)
    except (RuleError, TypeError):
        return None
