"""The Arizona Pegs and Jokers table screen (RULES §5): the board, the turn, the hand.

The race comes from its play state, :class:`PegsRace` (``games/play/pegs.py``): whose
turn it is (``next_seat``, written once), the steps a card may take, a move checked and
applied, the must-play rule for a discard, the winner. This module takes the taps and
stores what is done; ``pegs_table`` reads the table, ``pegs_view`` builds the panel and
``pegs_board`` draws the board.

* **The board** is the result of the latest live board entry: ``pegs-apply`` (a move) or
  ``pegs-board`` (a correction, or a discard naming ``{"seat", "card"}``: the whole
  state, no points). **Whose turn** follows the latest live move or discard, so an Undo
  or Redo anywhere names the right player; a "whose turn?" tap sets it until then.
* Each write carries ``base`` (the board entry the phone showed) and a submission id,
  and is checked against the table's version inside the write: a retry is stored once
  and a move on an outdated board is refused (409).
* What is in progress (whose turn, card, chosen peg, first part of a split, the hand,
  the peg being set up, the last move being changed) is the draft ``pegs-turn``. Taps
  *set* values and name the player they were made for; each carries the id its phone
  made, so one sent again is applied once. Play or set-up is each phone's own view.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable

from flask import Blueprint, abort, g, render_template, request, url_for

from .. import api, store
from ..errors import RuleError
from ..games import pegs as engine
from ..games.play import TAP_ID, Refused, Tap
from ..games.play.pegs import HAND_SIZE, RANKS, card_for_rank, in_names
from ..i18n import gettext as _
from ..summary import TableSummary
from . import pegs_view as view
from . import screens
from .board import after_write, live_fragments, render_board, wants_partial
from .db import get_store, new_submission_id
from .pegs_table import (
    APPLY_KIND,
    BOARD_KIND,
    DRAFT,
    TAPS_KEPT,
    TURN_FIELDS,
    Table,
    board_entries,
    current_board,
    house_rules,
    parse_step,
    player_of,
    store_board,
    update_draft,
    write_draft,
)
from .pegs_view import bump_note, hand_codes, rank_of
from .screens import Refusal

bp = Blueprint("pegs", __name__, url_prefix="/t/<key>/pegs")
# what the rest of the app and the tests read of the screen
__all__ = ["BOARD_KIND", "DRAFT", "board_entries", "current_board", "house_rules", "panel_context"]


def panel_context(table: store.Table, summary: TableSummary, access: str) -> dict:
    t = Table(table, summary.entries, list(summary.names))
    return view.panel(t, urls(table), access == "score")


def urls(table: store.Table) -> dict:
    key = table.scorer_key
    routes = {"step": "pegs.step", "fix": "pegs.fix", "undo": "pegs.undo", "pass": "pegs.pass_turn"}
    return {
        **{name: url_for(route, key=key) for name, route in routes.items()},
        **{name: url_for("pegs.tap", key=key, field=name) for name in TAPS},
    }


# ---------------------------------------------------------------- answering a tap


def render_panel(
    table: store.Table,
    access: str,
    status: int = 200,
    error: Refusal | None = None,
    message: str | None = None,
):
    """The answer to a tap: for htmx, the panel and the rest of what the poll refreshes,
    out of band (``live_fragments``); the whole page otherwise."""
    if not wants_partial():
        if error is not None:
            return render_board(table, access, status, error=error.message)
        return after_write(table, access, message=message)
    if error is None and message is None:
        return live_fragments(table, access, status)

    def show(ctx: dict) -> None:
        screen = ctx["screen"]
        screen["message"] = message
        if error is not None:
            screen["error"] = error.message
            screen["error_at"] = view.error_place(error.field, screen)

    return live_fragments(table, access, status, adjust=show)


def screen_table() -> tuple[store.Table, str]:
    """The table of this request, as the screens' guard read it, for the scorer link."""
    table, access = g.screen_table
    if access != "score":
        abort(
            403, description=_("This is the watch link: it shows the table but cannot change it.")
        )
    return table, access


def form_int(field: str, lo: int, hi: int, message: str) -> int:
    try:
        value = int(request.form.get(field, ""))
    except ValueError:
        value = None
    if value is None or not lo <= value <= hi:
        raise Refusal(message, field)
    return value


def set_player(t: Table, draft: dict) -> dict:
    player = form_int("player", 0, len(t.names) - 1, _("Choose one of the players at this table."))
    if t.player == player and draft.get("moved", 0) == t.moved:
        return draft
    return t.turn(player=player, first=None, peg=None)(draft)


def for_this_turn(t: Table, field: str) -> None:
    """A tap names the player it was made for: one made for a turn that has passed (on
    another phone, or an answer that came late) is refused, not put on the next one."""
    meant = request.form.get("player")
    if meant not in (None, "", str(t.player)) and t.player is not None:
        raise Refusal(_("It is %(name)s's turn now; tap again.", name=t.names[t.player]), field)


def set_card(t: Table, draft: dict) -> dict:
    for_this_turn(t, "card")
    rank = request.form.get("card", "")
    if rank not in RANKS:
        raise Refusal(_("Choose a card: A, 2 to 10, J, Q, K or the joker."), "card")
    if t.draft.get("card") == rank and t.draft.get("first") is None:
        return draft
    return t.turn(player=t.player, card=rank, first=None, peg=None)(draft)


def read_peg(t: Table) -> tuple[int, str]:
    seat = form_int("seat", 0, len(t.names) - 1, _("There is no such seat."))
    frm = request.form.get("from", "")
    if frm not in t.board.positions(seat):
        raise Refusal(_("That peg is no longer there; the board has changed."), "peg")
    return seat, frm


def set_peg(t: Table, draft: dict) -> dict:
    seat, frm = read_peg(t)
    return t.turn(player=t.player, peg={"seat": seat, "from": frm})(draft)


def set_fix_peg(t: Table, draft: dict) -> dict:
    """Set-up: the peg to put on another hole."""
    seat, frm = read_peg(t)
    return {**draft, "fix": {"seat": seat, "from": frm}}


def set_edit(t: Table, draft: dict) -> dict:
    """Change the last move (its entry named), or keep it as it was (none named)."""
    entry = request.form.get("entry", "")
    if not entry:
        return {k: v for k, v in draft.items() if k not in TURN_FIELDS}  # the turn as it was
    return change_move(t, entry)(draft)


def change_move(t: Table, entry: str) -> Callable[[dict], dict]:
    """The draft change that reopens the last move (entered again on its board)."""
    latest = t.latest
    if latest is None or latest.kind != APPLY_KIND or entry != str(latest.id):
        raise Refusal(_("Only the last move can be changed; the board changed since."), "board")
    card = rank_of(latest.request["card"])
    player = latest.request["player"]
    return t.turn(editing=latest.id, player=player, card=card, first=None, peg=None)


def clear_first(t: Table, draft: dict) -> dict:
    return {**draft, "first": None, "peg": None}


def set_hand(t: Table, draft: dict) -> dict:
    """The whole hand is sent (plus the card tapped), so a retried tap sets it again."""
    for_this_turn(t, "hand")
    raw = request.form.get("hand", "")
    ranks = [r for r in raw.split(",") if r] if raw else []
    add = request.form.get("card")
    if add:
        ranks.append(add)
    if any(r not in RANKS for r in ranks):
        raise Refusal(_("Choose cards from A, 2 to 10, J, Q, K and the joker."), "hand")
    if len(ranks) > HAND_SIZE:
        raise Refusal(_("A hand holds at most 5 cards."), "hand")
    return t.turn(player=t.player, hand=ranks)(draft)


TAPS: dict[str, Callable[[Table, dict], dict]] = {
    "player": set_player,
    "card": set_card,
    "peg": set_peg,
    "setpeg": set_fix_peg,
    "first": clear_first,
    "hand": set_hand,
    "edit": set_edit,
}


screens.offer_edit(APPLY_KIND, "pegs.edit")  # Edit on a move in the history


@bp.post("/edit/<rowid:entry_id>")
def edit(key: str, entry_id: int):
    """Edit from the history: the last move entered again on the board it was played on
    (as "Change this move"); saving it supersedes it, undoing that brings it back."""
    table, access = screen_table()
    s = get_store()
    try:
        t = Table.of(table)
        update_draft(s, table.id, change_move(t, str(entry_id)), t.stored_draft)
    except Refusal as exc:
        return render_panel(table, access, 422, exc)
    except store.Conflict as exc:
        return render_panel(table, access, 409, Refusal(exc.message, "board"))
    return after_write(
        table, access, message=_("Enter the move again on the board it was played on.")
    )


@bp.post("/tap/<field>")
def tap(key: str, field: str):
    """One tap of the panel that only changes the shared draft, answered with the panel
    alone. Its id (made on the phone) is kept in the draft: the same tap sent again (an
    answer lost) changes nothing, even after another phone's tap."""
    table, access = screen_table()
    s = get_store()
    setter, tap_id = TAPS.get(field), request.form.get("tap_id") or None
    tap_id = tap_id if tap_id and TAP_ID.fullmatch(tap_id) else None  # one the phones make
    try:
        if setter is None:
            raise Refusal(_("There is no such control."), "play")
        t = Table.of(table)
        setter(t, t.draft)  # refuse a bad tap before writing anything

        def change(d: dict) -> dict:
            seen = d.get("taps", [])
            if tap_id is None or tap_id in seen:
                return d if tap_id else setter(t, d)  # a retry is applied once
            return {**setter(t, d), "taps": [*seen[-TAPS_KEPT + 1 :], tap_id]}

        new, version = write_draft(s, table.id, change, t.stored_draft)
    except Refusal as exc:
        return render_panel(table, access, 422, exc)
    except store.Conflict as exc:
        return render_panel(table, access, 409, Refusal(exc.message, field))
    if not wants_partial():
        return render_panel(table, access)
    if version is not None:  # the draft's write moved the table on by one
        table = dataclasses.replace(table, version=table.version + 1)
    stored = (new, version if version is not None else t.stored_draft[1])
    html = render_template(
        view.PANEL,
        screen=view.panel(Table(table, t.entries, t.names, stored), urls(table), True),
        pg_oob=True,
        submission_id=new_submission_id(),
    )
    if request.form.get("seen") == str(table.version - 1):  # nothing else changed meanwhile
        html += render_template(
            "tables/_poll.html", table=table, can_write=True, version=table.version
        )
    return html


def check_base(t: Table) -> None:
    if request.form.get("base", "") != str(t.base):
        raise store.Conflict(
            _("The board changed on another phone a moment ago; nothing was saved. Here it is now.")
        )


def whole_move() -> list:
    """A move from the list of every move of the card: all its steps at once."""
    try:
        steps = json.loads(request.form.get("steps") or "")
    except (ValueError, RecursionError):
        steps = None
    if not isinstance(steps, list) or not 1 <= len(steps) <= 2:
        raise Refusal(_("That is not a move of this card."), "play")
    return steps


def step_by_step(s: store.Store, t: Table, card: str) -> list | None:
    """A destination tapped: the move's steps, or None when it was the first part of a
    split (kept in the draft until the second)."""
    seat = form_int("seat", 0, len(t.names) - 1, _("There is no such seat."))
    raw = {"seat": seat, "from": request.form.get("from", ""), "to": request.form.get("to", "")}
    chosen = parse_step(raw, t.board)
    if chosen is None:
        raise Refusal(_("That is not a hole on this board."), "play")
    first = t.first()
    option = next((o for o in t.race.options(card, first) if {k: o[k] for k in raw} == raw), None)
    if option is not None and option["continues"] and not option["complete"]:
        update_draft(s, t.table.id, t.turn(first=chosen.as_json(), peg=None), t.stored_draft)
        return None
    return [st.as_json() for st in (*([first] if first else []), chosen)]


def board_write(path: str, action: str = "add_entry", again: Callable[[], str] | None = None):
    """A route that stores an entry: a retried post (its submission id) is answered at
    once, the body gets the store, one read of the table and the id, and returns the
    message shown (None: the panel alone); a refusal shows next to its control, a board
    another phone changed first is shown fresh, with why."""

    def wrap(body: Callable) -> Callable:
        @functools.wraps(body)
        def route(key: str):
            table, access = screen_table()
            s = get_store()
            submission_id = request.form.get("submission_id") or None
            if s.submission(submission_id, getattr(s, action)) is not None:
                return render_panel(
                    table, access, message=(again or (lambda: _("Already saved.")))()
                )
            try:
                message = body(s, Table.of(table), submission_id)
            except Refusal as exc:
                return render_panel(table, access, 422, exc)
            except store.Conflict as exc:
                return render_panel(table, access, 409, Refusal(exc.message, "board"))
            return render_panel(table, access, message=message)

        return bp.post(path)(route)

    return wrap


def whose_turn(t: Table) -> int:
    """The player to play now, for a move or a discard."""
    check_base(t)
    if t.race.complete:
        raise Refusal(_("The game is over; undo the last move to play on."), "play")
    if t.player is None:
        raise Refusal(_("Choose whose turn it is first."), "player")
    return t.player


@board_write("/step")
def step(s: store.Store, t: Table, submission_id: str | None) -> str | None:
    """A destination tapped (or a whole move from the list): the first part of a split
    (kept in the draft) or the move, checked by the race and stored as ``pegs-apply``."""
    player, table = whose_turn(t), t.table
    rank = t.draft.get("card")
    if rank not in RANKS:
        raise Refusal(_("Choose the card first."), "card")
    card = card_for_rank(rank)
    steps = whole_move() if "steps" in request.form else step_by_step(s, t, card)
    if steps is None:  # the first part of a split, kept in the draft
        return None
    move = {"id": "move", "action": "move", "seat": player, "card": card, "steps": steps}
    edited = t.editing
    try:
        after = t.race.apply(Tap.from_json(move))
        req = after.apply_request(after.plays[-1])
        result = api.evaluate(APPLY_KIND, req)
        saved = screens.record(
            s,
            table,
            APPLY_KIND,
            req,
            edited.round if edited else s.next_round(table.id),
            submission_id=submission_id,
            # a changed move supersedes the old one (the history keeps both)
            supersedes=edited.id if edited else None,
            exclusive=False,
            # worked out from the board as this request read it: a move another
            # phone saved meanwhile must not be overwritten by this one
            based_on_version=table.version,
        )
    except RuleError as exc:
        raise Refusal(exc.message, "play") from None
    turn_over = {"moved": saved["entry_id"]}
    update_draft(s, table.id, lambda d: {"taps": d.get("taps", []), **turn_over}, t.stored_draft)
    parts = [bump_note(b, t.names) for b in result["bumps"]]
    if result.get("winner_team") is not None:
        team = result["winner_team"]
        members = [name for seat, name in enumerate(t.names) if t.board.team[seat] == team]
        parts.append(_("Team %(n)d wins: %(names)s!", n=team + 1, names=", ".join(members)))
    return " ".join([_("Move changed.") if edited else _("Move saved."), *parts])


@board_write("/pass")
def pass_turn(s: store.Store, t: Table, submission_id: str | None) -> str:
    """The player discards and the turn passes: stored as an entry of the board as it is,
    naming the discard. With the hand entered in the hand check, the race refuses it
    while a card other than a joker can move, naming those cards (RULES §5)."""
    player = whose_turn(t)
    if t.editing:
        raise Refusal(_("Finish changing the last move first, or keep it as it was."), "play")
    hand = hand_codes([r for r in t.draft.get("hand", []) if r in RANKS])
    rank = request.form.get("card") or None
    if rank is not None and rank not in RANKS:
        raise Refusal(_("Choose a card: A, 2 to 10, J, Q, K or the joker."), "hand")
    card = card_for_rank(rank) if rank else None
    if hand:  # the hand is known: the race checks the discard
        ranks = [rank_of(c) for c in hand]
        card = hand[ranks.index(rank)] if rank in ranks else hand[0]
        tap = {"id": "pass", "action": "discard", "seat": player, "card": card, "hand": hand}
        try:
            t.race.apply(Tap.from_json(tap))
        except Refused as exc:
            raise Refusal(exc.message, "hand") from None
    discard = {"seat": player, "card": card}
    version = t.table.version
    saved = store_board(s, t.table, t.board, submission_id, version, discard=discard)
    turn_over = {"moved": saved["entry_id"]}
    update_draft(s, t.table.id, lambda d: {"taps": d.get("taps", []), **turn_over}, t.stored_draft)
    return _("%(name)s discarded.", name=t.names[player])


@board_write("/fix")
def fix(s: store.Store, t: Table, submission_id: str | None) -> str:
    """Set-up or correction: one peg put on another hole (or start); the engine checks
    the board; stored as a ``pegs-board`` entry. The turn stays."""
    board = t.board
    check_base(t)
    seat, frm = read_peg(t)
    to = (request.form.get("to") or "").strip().upper()
    if not to:
        raise Refusal(_("Tap a hole, or write one like T44, H2 or S."), "fix")
    pegs = {str(x): board.positions(x) for x in range(board.seats)}
    moved = list(pegs[str(seat)])
    try:
        to = engine.position_name(engine.parse_position(to, board.length))
        moved[moved.index(frm)] = to
        pegs[str(seat)] = moved
        new = engine.Board(board.seats, pegs, team_pegs=board.team_pegs, nine=board.nine)
    except RuleError as exc:
        raise Refusal(in_names(exc.message, t.race.players), "fix") from None
    if new == board:
        raise Refusal(_("That peg is already there."), "fix")
    store_board(s, t.table, new, submission_id, based_on_version=t.table.version)
    cleared = {"fix": None, "first": None, "peg": None}
    update_draft(s, t.table.id, lambda d: {**d, **cleared}, t.stored_draft)
    return _("%(name)s's peg put on %(pos)s.", name=t.names[seat], pos=to)


@board_write("/undo", "void_entry", lambda: _("Already undone."))
def undo(s: store.Store, t: Table, submission_id: str | None) -> str:
    """Undo the latest live move, discard or correction (the history's Undo does the
    same); the turn goes back to the player of the move undone."""
    latest, table = t.latest, t.table
    if latest is None:
        raise store.Conflict(_("There is no move to undo."))
    if request.form.get("entry") != str(latest.id):
        raise store.Conflict(
            _("The board changed on another phone a moment ago; nothing was undone.")
        )
    s.void_entry(table.id, latest.id, submission_id, based_on_version=table.version)
    moved = Table.of(s.table(table.id)).moved
    player = t.player if player_of(latest) is None else player_of(latest)
    update_draft(
        s, table.id, lambda d: {"taps": d.get("taps", []), "moved": moved, "player": player}
    )
    return _("Last move undone.")
