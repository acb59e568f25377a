"""What every game screen shares: the one tap mechanism's routes, the panel of a deal
on the table page, and the card helpers templates use.

A game's screen lives in ``scorekeeper/web/<slug>.py`` (a blueprint ``bp``; its record
in ``scorekeeper.games.catalog`` may name another module) with templates in
``templates/games/<slug>/``. If the module defines ``panel_context(table, summary,
access) -> dict``, the table page shows ``games/<slug>/_panel.html`` with that context
under the name ``screen``; the poll refreshes ``games/<slug>/_live.html`` (out-of-band
swaps) when it exists.

A game whose deal is a log of taps declares its :class:`TapScreen` by :func:`adopt` on
its blueprint: its deal (``scorekeeper.deals.Deal``, what the log is and stands for)
and its view (the panel's context drawn from the deal's state, in
``scorekeeper.views.<slug>``, from the ``views.panel.View`` made here). Its screen then has ONE
tap route (``POST /t/<key>/<game>/tap``: the tap's id, made on the phone, its action and
arguments, the draft version and round the phone showed), one undo and one redo route
(naming the tap they mean), one save route and one edit route (a saved entry's log back
on the screen); each reads the request, has ``scorekeeper.deals`` do the change, and
answers. A tap is answered by :func:`answer` with the game's panel alone; every refusal
is a ``deals.Refusal`` (message and field) shown in the panel. What a phone shows (a
tab, a mode, what is folded) is never stored: it stays in the phone (see static/app.js,
``data-view``), and every tap names its player.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from flask import Blueprint, abort, current_app, g, render_template, request

from .. import deals, i18n, store, validate
from ..cards import card_colour, card_symbol, symbols
from ..deals import Refusal, stale_notice
from ..errors import RuleError
from ..games import catalog
from ..games.play import Refused, Tap
from ..i18n import gettext as _
from ..summary import TableSummary
from ..views import fragments
from ..views.fragments import answering, drawn_once, fragment, group, kept_part
from ..views.panel import BLOCK_SLOT, FORM_SLOT, View
from .board import (
    after_write,
    live_fragments,
    parts_shown,
    render_board,
    see_other,
    table_url,
    wants_partial,
)
from .db import get_store

# what the game screens and the app read here (their modules, guards and panels)
from .game_screens import deal_of as deal_of
from .game_screens import find_table
from .game_screens import game_module as game_module
from .game_screens import only_tables_of as only_tables_of
from .game_screens import panel as panel

__all__ = ["Refusal", "card_colour", "card_symbol", "stale_notice", "symbols"]


def __getattr__(name: str):
    if name == "GAME_SLUGS":  # every registered game's screen, in the registry's order
        return tuple(catalog.GAMES)
    raise AttributeError(name)


MAX_TAP_CHARS = 1_000  # a tap's JSON as a page sends it, with room to spare


def register_template_helpers(app) -> None:
    app.jinja_env.filters["card_symbol"] = card_symbol
    app.jinja_env.filters["symbols"] = symbols
    app.jinja_env.filters["card_colour"] = card_colour
    fragments.keyed_by(i18n.cache_key)
    app.jinja_env.globals["fragment"] = fragment
    app.jinja_env.globals["kept_part"] = kept_part
    app.jinja_env.globals["drawn_once"] = drawn_once
    app.jinja_env.globals["picker_group"] = group
    app.jinja_env.globals["player_name"] = fragments.player_name
    app.jinja_env.globals["sentence"] = fragments.sentence
    app.jinja_env.globals.update(template_globals())


def template_globals() -> dict:
    """What the shared templates ask of the game screens."""
    return {"edit_endpoint": edit_endpoint, "undo_offered": undo_offered}


@dataclass(frozen=True)
class TapScreen:
    """A game's screen on the one tap mechanism: its deal and its view (``view(View)``:
    the panel's context), with the routes it has (``routes``; Edit always)."""

    deal: deals.Deal
    view: Callable[[View], dict]
    routes: tuple[str, ...] = ("tap", "undo", "redo", "save", "discard")

    @property
    def game(self) -> str:
        return self.deal.game


_SCREENS: dict[str, TapScreen] = {}
ROUTES = ("tap", "undo", "redo", "save", "discard")


def adopt(
    bp: Blueprint,
    deal: deals.Deal,
    view: Callable[[View], dict] | None = None,
    routes: tuple[str, ...] = ROUTES,
) -> TapScreen:
    """Declare a game's screen and give its blueprint the mechanism's routes (one view
    function each for all games): ``routes`` of ``tap``, ``undo``, ``redo``, ``save``,
    ``discard``, and ``edit/<entry id>``. The screen's view is the function ``view`` of
    the blueprint's module, defined before this call, unless one is given."""
    if deal.game != bp.name:
        raise ValueError(f"the blueprint {bp.name!r} is not the screen of {deal.game!r}")
    view = view or vars(sys.modules[bp.import_name]).get("view")
    if not callable(view):
        raise TypeError(f"the screen of {deal.game!r} has no view")
    screen = TapScreen(deal, view, routes)
    _SCREENS[screen.game] = screen
    views = {
        "tap": tap_route,
        "undo": undo_route,
        "redo": redo_route,
        "save": save_route,
        "discard": discard_route,
    }
    for name in screen.routes:
        bp.add_url_rule(f"/{name}", name, views[name], methods=["POST"])
    bp.add_url_rule("/edit/<rowid:entry_id>", "edit", edit_route, methods=["POST"])
    return screen


def _reopening(entry: store.Entry) -> TapScreen | None:
    """The screen that reopens a saved entry (its deal's kind, or its ``reopens``)."""
    for screen in _SCREENS.values():
        deal = screen.deal
        if deal.kind == entry.kind or (deal.reopens is not None and deal.reopens(entry)):
            return screen
    return None


def edit_endpoint(table: store.Table, entry: store.Entry) -> str | None:
    """The Edit route the history offers on a live entry: its screen's, when the screen
    can reopen it now (its deal's ``may_edit`` lets it: not a Pegs move the board has
    moved on from), so no row offers an Edit that would be refused."""
    screen = _reopening(entry)
    if screen is None or not entry.live:
        return None
    if screen.deal.may_edit is not None:
        try:
            screen.deal.may_edit(get_store(), table, entry)
        except deals.Refusal:
            return None
    return f"{screen.game}.edit"


def undo_offered(table: store.Table, entry: store.Entry) -> bool:
    """Whether the history offers Undo on a live entry: its game's deal lets it be taken
    back now (``may_undo``: a Pegs move, the last board alone), so no row offers an
    Undo that would be refused."""
    deal = deals.DEALS.get(table.game)
    if deal is None or deal.may_undo is None or not entry.live:
        return True
    try:
        deal.may_undo(get_store(), table, entry)
    except store.Conflict:
        return False
    return True


def view_of(
    screen: TapScreen, table: store.Table, access: str, log: store.TapLog, state=None, summary=None
) -> View:
    """The View of a draft as stored, or of a deal not begun (no draft yet)."""
    data = deals.log_data(screen.deal, get_store(), table, log, summary)
    if state is None:
        data, state = deals.shown(screen.deal, table, data)
    return View(table, access, data, log.version, state, request.script_root, get_store())


def screen_panel(
    screen: TapScreen,
    table: store.Table,
    summary: TableSummary,
    access: str,
    finished: dict | None = None,
) -> dict:
    """The panel on the table page (``panel_context``): the draft as every phone sees it;
    ``finished``, when given, once the game is over and no saved deal is being edited."""
    log = get_store().tap_log(table.id, screen.deal.draft)
    if finished is not None and summary.standings.finished and not log.editing:
        return finished
    return screen.view(view_of(screen, table, access, log, summary=summary))


def said(refusal: Refusal) -> dict:
    """A refusal in the panel's message area: a notice, or an error."""
    return {("screen_notice" if refusal.notice else "screen_error"): refusal.message}


def answer(
    screen: TapScreen,
    table: store.Table,
    access: str,
    log: store.TapLog,
    state=None,
    refusal: Refusal | None = None,
    notice: str | None = None,
):
    """The one answer to a tap: the game's panel alone, out of band, its message (a
    refusal, a notice) in the panel's message area; with the poll's marker at the new
    table version when the phone had seen the one before (else the poll fetches what
    another phone changed). Without htmx: the table page (a redirect after a good tap)."""
    status = refusal.status if refusal else 200
    messages = {}
    if refusal is not None:
        messages = {**said(refusal), "screen_field": refusal.field}
    elif notice:
        messages["screen_notice"] = notice
    if not wants_partial():
        if status == 200:
            return see_other(table_url(table))
        return render_board(table, access, status, **messages)
    if log.data is None and refusal is not None:  # no deal begun: the table as it stands
        return live_fragments(table, access, status, **messages)
    try:
        view = view_of(screen, table, access, log, state)
    except Refusal as exc:  # no deal may begin (the game is over): the whole table
        return live_fragments(table, access, exc.status, screen_notice=exc.message)
    with answering(parts_shown()):  # the parts the phone shows: holes (fragments.kept)
        html = render_template(
            f"games/{screen.game}/_panel.html", screen=screen.view(view), oob=True, **messages
        )
    seen = _posted_int("seen")
    if log.changed and seen is not None and seen == log.table_version - 1:
        html += render_template(
            "tables/_poll.html", table=table, can_write=access == "score", version=log.table_version
        )
    return current_app.make_response((html, status))


def refused(screen: TapScreen, table: store.Table, access: str, exc: Exception):
    """A tap refused: the panel of the deal as it stands, with why.

    A tap whose moment has passed (refused on its action), sent from a deal another
    phone has moved on since, is told so (the stale notice), not by the rule of a step
    the phone never saw ("No turn tap now: …"). A phone behind the table is answered
    with the table as it stands and its poll's marker moved on: after a panel alone its
    poll fetched the table a moment later and redrew the panel, the message gone too."""
    log = get_store().tap_log(table.id, screen.deal.draft)
    refusal = Refusal.of(exc)
    seen_version = _posted_int("v")
    moment_passed = isinstance(exc, Refused) and exc.path.endswith(".action")
    if moment_passed and seen_version is not None and seen_version != log.version:
        refusal = Refusal(stale_notice(), status=409, notice=True)
    seen = _posted_int("seen")
    if wants_partial() and seen is not None and seen != log.table_version:
        return live_fragments(
            table, access, refusal.status, **said(refusal), screen_field=refusal.field
        )
    return answer(screen, table, access, log, refusal=refusal)


# ---------------------------------------------------------------- what a tap sent


def _posted_int(name: str) -> int | None:
    try:
        value = int(request.form.get(name, ""))
    except ValueError:
        return None
    return value if abs(value) <= store.MAX_ROWID else None


def posted_tap() -> Tap:
    """The tap a button sent: its id (made on the phone) and its JSON notation."""
    tap_id = request.form.get("tap_id") or ""
    text = request.form.get("tap") or ""
    try:
        # a button's tap is a few dozen characters: a longer one is no tap of a page
        raw = json.loads(text) if len(text) <= MAX_TAP_CHARS else None
    except (ValueError, RecursionError):
        raw = None
    if not isinstance(raw, dict):
        raise Refusal(_("That is not something this screen can do."), "tap")
    typed = {k: request.form.get(k, "")[:MAX_TAP_CHARS] for k, v in raw.items() if v == FORM_SLOT}
    raw = {**raw, **typed, **_block_args(raw)}
    if not tap_id:
        raise Refusal(_("This tap came without its id; reload the page."), "tap_id")
    return Tap.from_json({**raw, "id": tap_id})


def _block_args(raw: dict) -> dict:
    """The tap's arguments its block gives (``BLOCK_SLOT``), each a small whole number."""
    out = {}
    for name in [k for k, v in raw.items() if v == BLOCK_SLOT]:
        value = validate.small_number(request.form.get(name, ""))
        if value is None:
            raise Refusal(_("That is not something this screen can do."), "tap")
        out[name] = value
    return out


def request_screen() -> tuple[store.Table, str, TapScreen]:
    """The table of this request (read once, by the game's guard or by the route's
    write), for the scorer link."""
    table, access = g.screen_table
    if access != "score":
        abort(
            403, description=_("This is the watch link: it shows the table but cannot change it.")
        )
    return table, access, _SCREENS[table.game]


def deal_seen() -> tuple[int, int]:
    version, round_number = _posted_int("v"), _posted_int("round")
    if version is None or round_number is None:
        raise Refusal(_("This tap came without its deal; reload the page."))
    return version, round_number


# ---------------------------------------------------------------- the routes

REFUSED = (RuleError, Refusal, store.StoreError)


def finds_table(view: Callable) -> Callable:
    """Mark a route that finds its table inside its write (``table_in_write``): the
    game's guard leaves the lookup to it."""
    view.finds_table = True
    return view


@contextmanager
def table_in_write(submission_id: str | None = None) -> Iterator[None]:
    """One write of a tap, its table found by the link under the write's lock, in the
    statement that also reads the deal's log (and, given ``submission_id``, that
    submission: the tap's own entry), which the write would read first anyway. A tap
    found to change nothing makes no new version. What the route does inside it joins
    the write; an exception out of it stores nothing."""
    screen = _SCREENS[request.blueprint]
    s = get_store()

    def find() -> int:
        reads = {"draft": screen.deal.draft, "submission_id": submission_id}
        table = find_table(screen.game, request.view_args.get("key"), **reads)
        request_screen()  # the watch link changes nothing
        return table.id

    with s.tap_write(find):
        yield


def _tap_submission(deal: deals.Deal, tap: Tap | None) -> str | None:
    """The submission id of the entry a tap may store: its own id for a tap that closes
    the deal at once, else its deal's ``tap_submission``. Known before the write, so
    its lookup reads that submission too."""
    if tap is None:
        return None
    if tap.action in deal.closes:
        return tap.id
    return deal.tap_submission(tap) if deal.tap_submission else None


@finds_table
def tap_route(key: str):
    """One tap: added to the deal's log (a replayed id once), with the entries the log
    then stands for in the same write, or refused with nothing stored."""
    s = get_store()
    try:  # read before the write; refused inside it, once its table is found
        tap, bad = posted_tap(), None
    except (Refusal, RuleError) as exc:
        tap, bad = None, exc
    try:
        with table_in_write(_tap_submission(_SCREENS[request.blueprint].deal, tap)):
            table, access, screen = request_screen()
            seen_version, seen_round = deal_seen()
            if bad is not None:
                raise bad
            if tap.action in screen.deal.closes:
                message = deals.close_at_once(screen.deal, s, table, tap, seen_version, seen_round)
            else:
                log, wrote, state = deals.tap(screen.deal, s, table, tap, seen_round)
    except store.Replayed:
        return live_fragments(*request_screen()[:2], screen_notice=_("Already saved."))
    except REFUSED as exc:
        return refused_in_write(exc)
    table, access, screen = request_screen()
    if tap.action in screen.deal.closes:
        return live_fragments(table, access, screen_notice=message)
    if wrote:
        return live_fragments(table, access)
    notice = None
    if log.changed and log.version - 1 != seen_version:
        notice = _(
            "Another phone changed this deal meanwhile; your tap was added to it as it stands."
        )
    return answer(screen, table, access, log, state, notice=notice)


def refused_in_write(exc: Exception):
    """A tap refused inside its write (``table_in_write``), nothing stored: the panel
    with why, once its table was found (else the refusal stands as it is)."""
    if g.get("screen_table") is None:
        raise exc
    table, access, screen = request_screen()
    return refused(screen, table, access, exc)


def _undo_or_redo(which: str):
    try:
        with table_in_write():
            table, access, screen = request_screen()
            log, wrote = deals.undo_or_redo(
                screen.deal, get_store(), table, which, request.form.get("tap_id") or ""
            )
    except REFUSED as exc:
        return refused_in_write(exc)
    if wrote:
        return live_fragments(table, access)
    return answer(screen, table, access, log)


@finds_table
def undo_route(key: str):
    """Take back the tap the button names (the last one); a retried undo changes nothing."""
    return _undo_or_redo("undo")


@finds_table
def redo_route(key: str):
    """Put back the tap the button names (the last one taken back)."""
    return _undo_or_redo("redo")


def _board_refusal(table: store.Table, access: str, exc: Exception):
    refusal = Refusal.of(exc)
    return render_board(table, access, refusal.status, **said(refusal))


def save_route(key: str):
    """Close the deal: one entry (superseding the one reopened, for an edit)."""
    table, access, screen = request_screen()
    try:
        message = deals.save(
            screen.deal,
            get_store(),
            table,
            request.form.get("submission_id") or None,
            _posted_int("v"),
            _posted_int("round"),
        )
    except REFUSED as exc:
        return _board_refusal(table, access, exc)
    return after_write(table, message=message)


def edit_route(key: str, entry_id: int):
    """Edit: a saved entry's tap log back on the screen, every card as it was."""
    table, access, screen = request_screen()
    try:
        round_number = deals.reopen(screen.deal, get_store(), table, entry_id)
    except store.NotFound:
        abort(404)
    except (store.StoreError, Refusal) as exc:
        return _board_refusal(table, access, exc)
    reopened = catalog.game(table.game).numbering.reopened  # a round, or a Pegs turn
    return after_write(table, message=_(reopened, n=round_number))


def discard_route(key: str):
    """Give up an edit (or a deal begun): the draft is dropped, the saved entry stays."""
    table, access, screen = request_screen()
    try:
        deals.discard(screen.deal, get_store(), table, _posted_int("v"))
    except (Refusal, store.StoreError) as exc:
        return _board_refusal(table, access, exc)
    return after_write(table, message=_("The changes were dropped."))
