"""The Arizona Pegs and Jokers turn (RULES §5): the draft's log of taps, replayed by the
race's play state :class:`PegsRace` (``games/play/pegs.py``, PLAY.md): the card picked,
the peg chosen, a split's first part, the hand checked, the peg being set up; whose turn
it is comes from the state. A move, a discard or a correction is one tap that closes the
log into an entry at once (``closes``): ``pegs-apply`` (scored by its engine) or
``pegs-board`` (the board as it stands, no engine). A turn begins on the board the
latest live board entry left, with the turn after the latest move or discard
(``first_turn``); Edit in the history reopens the last move on the board it was played on.
"""

from __future__ import annotations

from .. import deals, store
from ..errors import RuleError
from ..games import pegs as engine
from ..games.play.pegs import RANKS, first_turn
from ..messages import gettext as _
from ..pegs_table import (
    APPLY_KIND,
    BOARD_KINDS,
    DRAFT,
    board_entries,
    current_board,
    house_rules,
    player_of,
    rank_of,
)
from ..summary import TableSummary


def new_deal(s: store.Store, table: store.Table, summary: TableSummary | None) -> dict:
    """A turn begun now: on the board the latest live board entry left, the turn after
    the latest move or discard; ``base``: that entry (0: none), ``last``: what it did."""
    names = list(summary.names) if summary else [p.name for p in s.players(table.id)]
    if summary:
        entries = summary.entries
    else:  # the latest live board entries, newest first: one page read, seldom more
        entries = []
        for entry in s.live_newest_first(table.id, BOARD_KINDS):
            entries.insert(0, entry)
            if player_of(entry) is not None:
                break
    board, latest = current_board(table, len(names), entries)
    moves = [e for e in board_entries(entries) if player_of(e) is not None]
    last = None
    if latest is not None:
        bumps = latest.result.get("bumps", [])
        last = {"id": latest.id, "kind": latest.kind, "request": latest.request, "bumps": bumps}
    return {
        "players": names,
        "round": s.next_round(table.id),
        "base": latest.id if latest else 0,
        "moved": moves[-1].id if moves else 0,
        "last": last,
        "settings": {
            "pegs": board.to_json()["pegs"],
            "turn": first_turn(
                player_of(moves[-1]) if moves else None, len(names), first_dealer(table)
            ),
        },
    }


def first_dealer(table: store.Table) -> int | None:
    """The seat chosen to deal first when the table began (None: not chosen)."""
    seat = table.settings.get("first_dealer")
    return seat if isinstance(seat, int) and not isinstance(seat, bool) else None


def rename_in_draft(data: dict, old: str, new: str) -> dict:
    """Taps name seats; only the turn's list of players names anyone."""
    context = data.get("context") if isinstance(data, dict) else None
    if context and isinstance(context.get("players"), list):
        context["players"] = [new if name == old else name for name in context["players"]]
    return data


def edit_context(s: store.Store, table: store.Table, entry: store.Entry) -> dict:
    """The last move reopened: on the board it was played on, its player's turn."""
    request = entry.request
    settings = {"pegs": request.get("pegs"), "turn": request.get("player", 0)}
    return {"players": [p.name for p in s.players(table.id)], "settings": settings, "last": None}


def rebuild(table: store.Table, context: dict, entry: store.Entry) -> list[dict]:
    """The taps of a move saved without its log: its card picked."""
    req = entry.request
    return [
        {
            "id": f"e{entry.id}-0",
            "action": "pick",
            "seat": req["player"],
            "card": rank_of(req["card"]),
        }
    ]


def upgrade(table: store.Table, data: dict, context: dict) -> list[dict]:
    """The taps of a turn's draft stored before the tap log (``{"player", "card",
    "hand", "moved"}``), while no move was made since."""
    if data.get("moved", 0) != context.get("moved"):
        return []
    player = data.get("player")
    if not isinstance(player, int) or not 0 <= player < len(context["players"]):
        return []
    taps = [{"id": "u0", "action": "turn", "seat": player}]
    if data.get("card") in RANKS:
        taps.append({"id": "u1", "action": "pick", "seat": player, "card": data["card"]})
    hand = [r for r in data.get("hand") or [] if r in RANKS]
    if hand:
        taps.append({"id": "u2", "action": "hand", "seat": player, "hand": hand})
    return taps


def _is_last(s: store.Store, table: store.Table, entry: store.Entry) -> bool:
    latest = next(s.live_newest_first(table.id, BOARD_KINDS), None)
    return entry.kind not in BOARD_KINDS or (latest is not None and latest.id == entry.id)


def may_edit(s: store.Store, table: store.Table, entry: store.Entry) -> None:
    """Only the last move is reopened: a later one was played on its board."""
    if not _is_last(s, table, entry):
        raise deals.Refusal(
            _("Only the last move can be changed; the board changed since."), "board"
        )


def may_undo(s: store.Store, table: store.Table, entry: store.Entry) -> None:
    """Only the last board is taken back: a later move was played on it."""
    if not _is_last(s, table, entry):
        raise store.Conflict(_("Only the last move can be undone; the board changed since."))


def may_redo(s: store.Store, table: store.Table, entry: store.Entry) -> None:
    """Only a move played on the board as it stands comes back: brought back onto a
    board changed since (another turn played in its place), it would jump that turn. A
    discard leaves the board as it was; a board set by hand sets it whole."""
    if player_of(entry) is None:
        return
    latest = next(s.live_newest_first(table.id, BOARD_KINDS), None)
    seats = len(s.players(table.id))
    board, _latest = current_board(table, seats, [latest] if latest is not None else [])
    try:
        played_on = engine.Board(seats, entry.request["pegs"], **house_rules(table))
    except (RuleError, KeyError, TypeError):
        return  # an entry of another shape: nothing to compare
    if played_on.to_json()["pegs"] != board.to_json()["pegs"]:
        raise store.Conflict(
            _(
                "Only a move played on the board as it stands can be redone; the board changed since."
            )
        )


def entries_changed(s: store.Store, table: store.Table) -> None:
    """After an undo or redo in the history, in its write: a turn begun on another board
    is dropped (the next tap begins one on the board as it is now). The turn is read
    under the write's lock, so no other phone's tap can come between."""
    log = s.tap_log(table.id, DRAFT)
    context = (log.data or {}).get("context")
    if not context:
        return
    latest = next(s.live_newest_first(table.id, BOARD_KINDS), None)
    if (latest.id if latest else 0) in (context.get("base"), context.get("supersedes")):
        return
    s.discard_draft(table.id, DRAFT, log.version)


def saved(s: store.Store, table: store.Table, context: dict, outcome: dict) -> str:
    """What a move, a discard or a correction says once stored."""
    state = outcome["state"]
    play, names = state.plays[-1], list(state.players)
    if play.action == "discard":
        return _("%(name)s discarded.", name=names[play.seat])
    if play.action == "place":
        pos = engine.position_name(play.steps[0].to)
        return _("%(name)s's peg put on %(pos)s.", name=names[play.seat], pos=pos)
    parts = []  # the pegs it sent back: the last move's line says which (views.pegs)
    team = state.winner_team
    if team is not None:
        board = state.board()
        members = [n for seat, n in enumerate(names) if board.team[seat] == team]
        parts.append(_("Team %(n)d wins: %(names)s!", n=team + 1, names=", ".join(members)))
    return " ".join([_("Move changed.") if context.get("supersedes") else _("Move saved."), *parts])


DEAL = deals.declare(
    __name__,
    game="pegs",
    draft=DRAFT,
    kind=APPLY_KIND,
    closes=("move", "discard", "place"),
    closing=lambda state: state.closing_entry(),
)
