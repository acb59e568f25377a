"""What every game screen shares: recording an engine entry, the per-game panel
on the table page, and the card helpers templates use.

A game's screen lives in ``scorekeeper/web/<slug>.py`` (a blueprint ``bp``; its record
in ``scorekeeper.games.catalog`` may name another module) with
templates in ``templates/games/<slug>/``. If the module defines
``panel_context(table, summary, access) -> dict``, the table page shows
``games/<slug>/_panel.html`` with that context under the name ``screen``; the
poll refreshes ``games/<slug>/_live.html`` (out-of-band swaps) when it exists.

A game whose deal is a log of taps (its play state in ``scorekeeper.games.play``)
declares its :class:`TapScreen` by :func:`adopt` on its blueprint: its screen
then has ONE tap route (``POST /t/<key>/<game>/tap``: the tap's id, made on the phone,
its action and arguments, the draft version and round the phone showed), one undo and
one redo route (naming the tap they mean), one save route (the closing request scored
by ``api.evaluate`` and stored with its tap log) and one edit route (a saved entry's
log back on the screen). A game whose every deal is one move (Pegs) names the taps
that close the log into its entry at once (``TapScreen.closes``, :func:`close_at_once`),
with no Save tap. A tap is answered by :func:`answer` with the game's panel
alone; every refusal is a :class:`Refusal` (message and field) shown in the panel.
What a phone shows (a tab, a mode, what is folded) is never stored: it stays in the
phone (see static/app.js, ``data-view``), and every tap names its player.
"""

from __future__ import annotations

import functools
import json
import re
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from flask import Blueprint, abort, current_app, g, render_template, request
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup, escape

from .. import api, store
from ..cards import Card, parse_card
from ..errors import RuleError
from ..games import catalog
from ..games.play import Refused, Tap, replay, state_type
from ..i18n import gettext as _
from ..store.base import DRAFT_READS, NEW_ENTRY_READS, action_of
from ..summary import TableSummary, summarize
from .board import after_write, live_fragments, render_board, see_other, table_url, wants_partial
from .db import get_store
from .fragments import VERSION_SLOT, Memo, compact_json, fragment, with_version

# what the game screens and the app read here (their modules, guards and panels)
from .game_screens import draft_renamer as draft_renamer
from .game_screens import game_module as game_module
from .game_screens import history_group as history_group
from .game_screens import only_tables_of as only_tables_of
from .game_screens import panel as panel


def __getattr__(name: str):
    if name == "GAME_SLUGS":  # every registered game's screen, in the registry's order
        return tuple(catalog.GAMES)
    raise AttributeError(name)


CARD_SLOT = "__card__"  # where a picker's tap template takes each card's code
FORM_SLOT = "__form__"  # a tap argument the player types: the form's field of that name
MAX_TAP_CHARS = 1_000  # a tap's JSON as a page sends it, with room to spare


def record(
    s: store.Store,
    table: store.Table,
    kind: str,
    request_json: dict,
    round_number: int,
    submission_id: str | None = None,
    supersedes: int | None = None,
    close_draft: str | None = None,
    exclusive: bool = True,
    replaces: tuple[int, ...] = (),
    based_on_version: int | None = None,
    based_on_draft: tuple[str, int] | None = None,
) -> dict:
    """Score a request with its engine and store it as one entry.

    Raises RuleError (the engine refuses: nothing stored) or store.Conflict.
    ``supersedes``: an edit of that entry; ``close_draft``: the draft the entry ends;
    both as for ``Store.add_entry``. ``replaces``: provisional entries (e.g. marriages
    shown during a Cowboy deal) that this entry takes over, in the same transaction.
    ``based_on_version`` and ``based_on_draft``: see ``Store.add_entry``.
    """
    result = api.evaluate(kind, request_json)
    ids = {p.name: p.id for p in s.players(table.id)}
    points = {
        ids[name]: pts for name, pts in api.points_of(kind, result).items() if pts and name in ids
    }
    return s.add_entry(
        table.id,
        round_number,
        kind,
        request_json,
        result,
        points,
        submission_id,
        supersedes=supersedes,
        exclusive_round=exclusive,
        close_draft=close_draft,
        replaces=replaces,
        based_on_version=based_on_version,
        based_on_draft=based_on_draft,
    )


# ---------------------------------------------------------------- template helpers


@functools.lru_cache(maxsize=512)
def _card(value) -> Card | None:
    try:
        return parse_card(value)
    except (ValueError, TypeError):
        return None


def card_symbol(value) -> str:
    """``10H`` → ``10♥``; anything else unchanged."""
    card = _card(value)
    return card.symbol if card else str(value)


def card_colour(value) -> str:
    card = _card(value)
    return (card.colour or "none") if card else "none"


CARD_CODE = re.compile(r"(?<![\w-])(?:10|[2-9AKQJ])[SHDC](?![\w-])")


def symbols(text) -> str:
    """A sentence of an engine or a play state names cards by code ("turned 9H", "KC
    goes to the attacker"), as their JSON does; what a player reads names them by
    symbol (9♥, K♣), as the rest of the app does."""
    return CARD_CODE.sub(lambda m: card_symbol(m.group(0)), "" if text is None else str(text))


def register_template_helpers(app) -> None:
    app.jinja_env.filters["card_symbol"] = card_symbol
    app.jinja_env.filters["symbols"] = symbols
    app.jinja_env.filters["card_colour"] = card_colour
    app.jinja_env.globals["fragment"] = fragment
    app.jinja_env.globals.update(template_globals())


def store_of() -> store.Store:
    return get_store()


def template_globals() -> dict:
    """What the shared templates ask of the game screens."""
    return {"reopen_endpoint": reopen_endpoint}


# ---------------------------------------------------------------- the one tap mechanism


class Refusal(Exception):
    """A request a screen refuses, with nothing stored: the message for the player, the
    field it is about, and its HTTP status (422: it cannot be; 409: the phone showed
    another state of the table, and ``notice`` shows the message as news, not a fault)."""

    def __init__(self, message: str, field: str = "", status: int = 422, notice: bool = False):
        message = symbols(message)  # a state's refusal names its cards by code
        super().__init__(message)
        self.message, self.field, self.status, self.notice = message, field, status, notice

    @classmethod
    def of(cls, exc: Exception) -> Refusal:
        """The refusal of a state's, an engine's or the store's exception."""
        if isinstance(exc, Refusal):
            return exc
        if isinstance(exc, RuleError):  # Refused included: a tap the state cannot take
            return cls(exc.message, exc.path)
        if isinstance(exc, store.ReusedSubmission):  # a tampered form: as the store says
            return cls(exc.message, "submission_id")
        if isinstance(exc, store.StoreError):  # Conflict, DraftChanged: another phone
            return cls(exc.message, status=409, notice=isinstance(exc, store.Conflict))
        raise exc


@dataclass
class View:
    """What a game's panel is drawn from: the table, the draft's log and its state."""

    table: store.Table
    access: str
    data: dict  # the draft's {"taps", "undone", "context"}
    version: int  # the draft's
    state: Any
    # a tap's answer: the buttons carry fragments.VERSION_SLOT, the answer the version
    slotted: bool = False
    _urls: dict = field(default_factory=dict, init=False, repr=False, compare=False)  # route → URL

    @property
    def writable(self) -> bool:
        return self.access == "score"

    @property
    def context(self) -> dict:
        return self.data["context"]

    def url(self, route: str) -> str | None:
        """The URL of one of the screen's routes, for the scorer link only."""
        if not self.writable:
            return None
        found = self._urls.get(route)
        if found is None:  # a panel asks for its tap route's a dozen times or more
            # as url_for would make it (under the app's mount point), for a fraction of its cost
            root = request.script_root
            found = self._urls[route] = (
                f"{root}/t/{self.table.scorer_key}/{self.table.game}/{route}"
            )
        return found

    @property
    def last_tap(self) -> str | None:
        return self.data["taps"][-1]["id"] if self.data["taps"] else None

    @property
    def redo_tap(self) -> str | None:
        return self.data["undone"][-1]["id"] if self.data["undone"] else None

    def vals(self, **extra) -> dict:
        """The fields every tap sends: the draft version and round this screen shows."""
        version = VERSION_SLOT if self.slotted else self.version
        return {"v": version, "round": self.context.get("round"), **extra}

    def tap_vals(self, action: str, **args) -> dict:
        """One tap button's fields: what the player means, as the state's tap notation."""
        return self.vals(tap=compact_json({"action": action, **args}))

    def picker(
        self,
        cards: list[str],
        action: str | tuple[str, str],
        args: dict,
        taken: dict[str, str],
        selected: tuple | list = (),
        toggle: bool = False,
    ) -> Markup:
        """A card picker's buttons (as ``partials/_cards.html``'s ``card_picker`` draws
        them): each card's tap (``args`` with its ``card``; with ``toggle``, ``on`` says
        whether the card is to be there; ``action`` a pair: the tap that puts a card in,
        and the one that takes it out), and for a card already elsewhere in the deal,
        why it is disabled. Written here in one pass, from one tap template per state of
        the button: a picker of 54 cards is on the answer of most taps, and most of them
        are as the tap before drew them (kept, but for the draft version they carry)."""
        put, take = (action, action) if isinstance(action, str) else action
        url = self.url("tap") or ""
        selected = set(selected)
        on = tuple(code for code in cards if code in selected)
        off = tuple((code, taken[code]) for code in cards if code in taken and code not in on)
        round_number = self.context.get("round")
        try:
            key = (url, tuple(cards), put, take, tuple(args.items()), toggle, round_number, on, off)
            hash(key)
        except TypeError:  # an argument that is a list: made afresh
            key = None

        def make() -> str:
            return self._picker_html(
                cards, put, take, args, url, round_number, set(on), dict(off), toggle
            )

        html = make() if key is None else _PICKERS.get(key, make)
        return Markup(html if self.slotted else with_version(html, self.version))

    @staticmethod
    def _picker_html(cards, put, take, args, url, round_number, selected, taken, toggle) -> str:
        """The picker's HTML, its buttons' draft version left as fragments.VERSION_SLOT."""
        made = {}
        for on in (True, False):
            tap = {"action": put if on else take, **args, "card": CARD_SLOT}
            if toggle:
                tap["on"] = on
            vals = {
                "v": VERSION_SLOT,
                "round": round_number,
                "tap": compact_json(tap),
            }
            made[on] = str(htmlsafe_json_dumps(vals))
        url = str(escape(url))
        out = []
        if len(_BUTTONS) > BUTTONS_KEPT:  # a bound, not a cache policy: start afresh
            _BUTTONS.clear()
        for code in cards:  # card codes (letters and digits): nothing to escape
            is_on = code in selected
            reason = None if is_on else taken.get(code)
            reason = str(escape(reason)) if reason else None
            # a picker drawn again differs from the last one in a card or two: the
            # others' buttons are the ones made then
            key = (made[not is_on], url, code, is_on, reason)
            button = _BUTTONS.get(key)
            if button is None:
                button = _BUTTONS[key] = _pick_button(made[not is_on], url, code, is_on, reason)
            out.append(button)
        return "".join(out)


_PICKERS = Memo(1024)  # the pickers of the last taps of a server process's tables (~5 KB each)
_BUTTONS: dict = {}  # their buttons, by all a button is made of (~300 bytes each)
BUTTONS_KEPT = 8192


def _pick_button(vals: str, url: str, code: str, is_on: bool, reason: str | None) -> str:
    """One button of a picker (``View.picker``), ``vals`` its tap's fields with the card
    left as CARD_SLOT, ``reason`` (HTML, escaped) why it is disabled."""
    card = _card(code)
    symbol = card.symbol if card else code
    colour = (card.colour or "none") if card else "none"
    vals = vals.replace(CARD_SLOT, code)
    if reason:
        # the reason's small print may be cut on a phone: whole in the title
        why = f' disabled aria-label="{symbol} — {reason}" title="{symbol} — {reason}"'
        small = f"<small>{reason}</small>"
    else:
        why = small = ""
    return (
        f'<button type="button" class="pick suit-{colour}{" on" if is_on else ""}" '
        f'data-tap hx-post="{url}" hx-swap="none" hx-vals=\'{vals}\' '
        f'aria-pressed="{"true" if is_on else "false"}" data-card="{code}"'
        f"{why}><span>{symbol}</span>{small}</button>"
    )


@dataclass(frozen=True)
class TapScreen:
    """What a game declares to use the one screen mechanism.

    ``new_deal(store, table, summary)``: the context of a deal begun now (its
    ``players`` in seat order, ``round``, and what the panel shows of it); raises
    Refusal when none may begin (the game is over). ``view(View)``: the panel's context.
    ``edit_context(store, table, entry)``: the context of a saved entry reopened.
    ``rebuild(table, context, entry)``: a tap log for an entry saved without one.
    ``upgrade(table, data, context)``: the taps of a draft stored in an older shape.
    ``saved(context, outcome)``: the message once the deal is saved.
    ``seed(table, context)``: the taps a new deal's log begins with (what is already
    stored of it, e.g. Cowboy's marriages after its closed deal was undone).
    ``after_tap(store, table, log, action)``: after a tap of ``action`` was added, taken
    back or put back (or retried), the entries the open deal stands for before it closes
    are kept in step with its log (Cowboy's marriages count at once); True when it wrote
    one, and the tap is then answered with the whole table (its totals changed). It runs
    inside the write that changes the log (the store's writes it makes join it), so the
    tap and its entries are stored together or not at all; for a retry, after it.
    ``replaces(store, table, context)``: those entries, which the saved deal takes over
    in the same write (it carries them itself); undoing it brings them back.
    ``reopens(entry)``: for a deal saved as entries of several kinds (a Kvanta round),
    whether Edit reopens it from this entry (the one that holds its tap log); without
    it, Edit reopens the entries of ``kind``."""

    game: str
    draft: str
    kind: str
    new_deal: Callable[..., dict]
    view: Callable[[View], dict]
    edit_context: Callable[..., dict]
    rebuild: Callable[[store.Table, dict, store.Entry], list[dict]]
    saved: Callable[[dict, dict], str]
    upgrade: Callable[[store.Table, dict, dict], list[dict]] | None = None
    seed: Callable[[store.Table, dict], list[dict]] | None = None
    after_tap: Callable[[store.Store, store.Table, store.TapLog, str], bool] | None = None
    replaces: Callable[[store.Store, store.Table, dict], tuple[int, ...]] | None = None
    routes: tuple[str, ...] = field(default=("tap", "undo", "redo", "save", "discard"))
    reopens: Callable[[store.Entry], bool] | None = None
    # A deal closed by one tap (a Pegs move: one entry per move, no Save tap): ``closes``
    # names those taps' actions; ``closing(state)`` what the state after one stores (by
    # default its ``to_json()["closing"]``); ``may_edit(store, table, entry)`` raises
    # Refusal for a saved entry that may not be reopened (a move the board has moved on
    # from), ``may_undo`` raises store.Conflict for one the history may not undo (the
    # same: only the last board may be taken back); ``entries_changed(store, table)`` keeps the open deal in step after an undo
    # or redo in the history (a deal begun on a board that is no longer is dropped).
    closes: tuple[str, ...] = ()
    closing: Callable[[Any], dict | list[dict] | None] | None = None
    may_edit: Callable[[store.Store, store.Table, store.Entry], None] | None = None
    may_undo: Callable[[store.Store, store.Table, store.Entry], None] | None = None
    entries_changed: Callable[[store.Store, store.Table], None] | None = None


_SCREENS: dict[str, TapScreen] = {}


def adopt(bp: Blueprint, **declared) -> TapScreen:
    """Declare a game's screen and give its blueprint the mechanism's routes (one view
    function each for all games): ``tap``, ``undo``, ``redo``, ``save``, ``discard`` and
    ``edit/<entry id>``. The screen's game is the blueprint's name, and each of its hooks
    (``new_deal``, ``view`` … ``entries_changed``) is the function of that name in the
    blueprint's module, defined before this call, unless ``declared`` gives another;
    ``declared`` gives the rest (``draft``, ``kind``, ``routes``, ``closes``)."""
    module = vars(sys.modules[bp.import_name])
    hooks = {
        f.name: module[f.name]
        for f in fields(TapScreen)
        if f.name not in declared and callable(module.get(f.name))
    }
    screen = TapScreen(**{**hooks, "game": bp.name, **declared})
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


def reopen_endpoint(kind: str, entry: store.Entry | None = None) -> str | None:
    """The Edit route for a saved entry of ``kind``, when its screen can reopen it."""
    for screen in _SCREENS.values():
        if screen.kind == kind or (entry is not None and _reopens(screen, entry)):
            return f"{screen.game}.edit"
    return None


def _reopens(screen: TapScreen, entry: store.Entry) -> bool:
    return screen.reopens is not None and screen.reopens(entry)


def settings_of(table: store.Table) -> dict:
    """The table's settings that its game's play state takes (the catalog's own)."""
    return {
        s.key: table.settings[s.key]
        for s in catalog.game(table.game).settings
        if s.key in table.settings
    }


def deal_settings(table: store.Table, data: dict) -> dict:
    """The settings a draft's play state starts from: the table's, and what its context
    says the deal knows from the session (``context["settings"]``, e.g. its dealer)."""
    return {**settings_of(table), **data["context"].get("settings", {})}


# Replayed states, by everything they are made from (the game, the table, its players
# and settings, every tap): a state type is immutable, so one made for the last answer
# is the start of the next tap's, and a tap replays one tap, not the whole deal.
_states: OrderedDict[str, Any] = OrderedDict()
_states_lock = threading.Lock()
STATES_KEPT = 128


def _state_key(screen: TapScreen, table: store.Table, data: dict, taps: list) -> str:
    made_of = [
        screen.game,
        table.scorer_key,
        data["context"]["players"],
        deal_settings(table, data),
    ]
    return json.dumps([*made_of, taps], separators=(",", ":"), sort_keys=True)


def _kept_state(key: str):
    with _states_lock:
        found = _states.get(key)
        if found is not None:
            _states.move_to_end(key)
        return found


def _keep_state(key: str, state) -> None:
    with _states_lock:
        _states[key] = state
        while len(_states) > STATES_KEPT:
            _states.popitem(last=False)


def state_of(screen: TapScreen, table: store.Table, data: dict):
    """The play state a draft's log replays to (Refused when a tap no longer fits)."""
    taps = data["taps"]
    key = _state_key(screen, table, data, taps)
    state = _kept_state(key)
    if state is None:
        before = _kept_state(_state_key(screen, table, data, taps[:-1])) if taps else None
        if before is not None:
            state = replay(before, taps[-1:], path=f"taps[{len(taps) - 1}]")
        else:
            start = state_type(screen.game).start(
                data["context"]["players"], deal_settings(table, data)
            )
            state = replay(start, taps)
        _keep_state(key, state)
    return state


# New deals' contexts, by the table's state they were made from (its file, row, key
# and version): the answer or page that showed a deal not begun made it, so the tap
# that begins it (which reads the version under the write lock) need not read it all
# again. A version names one state of the table, so a context found is never stale.
_deals: OrderedDict[tuple, str] = OrderedDict()
_deals_lock = threading.Lock()
DEALS_KEPT = 128


def new_deal(screen: TapScreen, s: store.Store, table: store.Table, summary=None) -> dict:
    """``screen.new_deal``, made once per state of the table."""
    version = s.known_version(table.id)
    if version is None:
        return screen.new_deal(s, table, summary)
    key = (current_app.config["DATABASE"], table.id, table.scorer_key, version, screen.game)
    with _deals_lock:
        found = _deals.get(key)
        if found is not None:
            _deals.move_to_end(key)
    if found is not None:
        return json.loads(found)  # a copy of its own: the caller may add to it
    made = json.dumps(screen.new_deal(s, table, summary))
    with _deals_lock:
        _deals[key] = made
        while len(_deals) > DEALS_KEPT:
            _deals.popitem(last=False)
    return json.loads(made)  # as a hit gives it, and as the deal's log stores it


def view_of(
    screen: TapScreen, table: store.Table, access: str, log: store.TapLog, state=None, summary=None
) -> View:
    """The View of a draft as stored, or of a deal not begun (no draft yet)."""
    data = log.data
    if data is None or "context" not in data:
        context = new_deal(screen, get_store(), table, summary)
        data = {"taps": _first_taps(screen, table, data, context), "undone": [], "context": context}
    if state is None:
        try:
            state = state_of(screen, table, data)
        except Refused:  # a damaged draft: its valid part is shown
            data = {**data, "taps": _valid_prefix(screen, table, data)}
            state = state_of(screen, table, data)
    return View(table, access, data, log.version, state)


def _valid_prefix(screen: TapScreen, table: store.Table, data: dict) -> list[dict]:
    taps = list(data["taps"])
    while taps:
        taps.pop()
        try:
            state_of(screen, table, {**data, "taps": taps})
            return taps
        except Refused:
            continue
    return taps


def screen_panel(
    screen: TapScreen,
    table: store.Table,
    summary: TableSummary,
    access: str,
    finished: dict | None = None,
) -> dict:
    """The panel on the table page (``panel_context``): the draft as every phone sees it;
    ``finished``, when given, once the game is over and no saved deal is being edited."""
    log = get_store().tap_log(table.id, screen.draft)
    if finished is not None and summary.standings.finished and not log.editing:
        return finished
    return screen.view(view_of(screen, table, access, log, summary=summary))


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
        messages["screen_notice" if refusal.notice else "screen_error"] = refusal.message
        messages["screen_field"] = refusal.field
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
    view.slotted = True  # kept parts of the panel drawn before: the version given once
    html = with_version(
        render_template(
            f"games/{screen.game}/_panel.html", screen=screen.view(view), oob=True, **messages
        ),
        view.version,
    )
    seen = _posted_int("seen")
    if log.changed and seen is not None and seen == log.table_version - 1:
        html += render_template(
            "tables/_poll.html", table=table, can_write=access == "score", version=log.table_version
        )
    return current_app.make_response((html, status))


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
    raw = {**raw, **typed}
    if not tap_id:
        raise Refusal(_("This tap came without its id; reload the page."), "tap_id")
    return Tap.from_json({**raw, "id": tap_id})


def request_screen() -> tuple[store.Table, str, TapScreen]:
    """The table of this request (read once, by the game's guard), for the scorer link."""
    table, access = g.screen_table
    if access != "score":
        abort(
            403, description=_("This is the watch link: it shows the table but cannot change it.")
        )
    return table, access, _SCREENS[table.game]


def stale_notice() -> str:
    return _(
        "This deal changed a moment ago (another phone, or a double tap); "
        "here it is as it stands now. Nothing else was changed."
    )


def deal_seen() -> tuple[int, int]:
    version, round_number = _posted_int("v"), _posted_int("round")
    if version is None or round_number is None:
        raise Refusal(_("This tap came without its deal; reload the page."))
    return version, round_number


def _begin(screen: TapScreen, s: store.Store, table: store.Table, old: dict | None) -> dict:
    """The log a first tap is added to: a new deal's (or an old-shape draft's, upgraded)."""
    context = new_deal(screen, s, table)
    return {"taps": _first_taps(screen, table, old, context), "undone": [], "context": context}


def _first_taps(screen: TapScreen, table: store.Table, old: dict | None, context: dict) -> list:
    """A new log's taps: an old-shape draft's, upgraded, or what the deal begins with."""
    if old and screen.upgrade:
        return screen.upgrade(table, old, context)
    return screen.seed(table, context) if screen.seed else []


def _tap_action(data: dict | None, tap_id: str) -> str | None:
    for tap in [*(data or {}).get("taps", []), *(data or {}).get("undone", [])]:
        if tap.get("id") == tap_id:
            return tap.get("action")
    return None


def _after_tap(screen: TapScreen, s: store.Store, table: store.Table, log, tap_id: str):
    """The game's ``after_tap``; True when it wrote entries (the totals changed)."""
    action = _tap_action(log.data, tap_id)
    if screen.after_tap is None or action is None:
        return False
    return screen.after_tap(s, table, log, action)


def with_entries(
    change: Callable[[Callable[[store.TapLog], None]], store.TapLog],
    entries: Callable[[store.TapLog], bool],
) -> tuple[store.TapLog, bool]:
    """A change of a deal's log (``change(then)``: an append, undo or redo) with what the
    log then stands for (``entries(log)``, True when it wrote some) in the same write; a
    retry, which changes no log, keeps them in step after it. Returns the log and
    whether entries were written (the tap is then answered with the whole table)."""
    wrote: list[bool] = []
    log = change(lambda new: wrote.append(entries(new)))
    if not log.changed:
        wrote.append(entries(log))
    return log, any(wrote)


def tap_route(key: str):
    """One tap: added to the deal's log inside the write lock (a replayed id once), with
    the entries the log then stands for in the same write (``_after_tap``), or refused
    with nothing stored."""
    table, access, screen = request_screen()
    s = get_store()
    made: dict = {}
    try:
        seen_version, seen_round = deal_seen()
        tap = posted_tap()
        if tap.action in screen.closes:
            return close_at_once(screen, s, table, access, tap, seen_version, seen_round)

        def check(data: dict) -> None:
            if data["context"].get("round") != seen_round:
                raise Refusal(stale_notice(), status=409, notice=True)
            before = state_of(screen, table, {**data, "taps": data["taps"][:-1]})
            made["state"] = replay(before, data["taps"][-1:], path="tap")
            if made["state"] is before:  # already so (a retry under a new id): not logged
                raise store.Unchanged
            _keep_state(_state_key(screen, table, data, data["taps"]), made["state"])

        log, wrote = with_entries(
            lambda then: s.append_tap(
                table.id,
                screen.draft,
                tap.to_json(),
                check,
                lambda old: _begin(screen, s, table, old),
                then,
            ),
            lambda new: _after_tap(screen, s, table, new, tap.id),
        )
    except (RuleError, Refusal, store.StoreError) as exc:
        return answer(
            screen, table, access, s.tap_log(table.id, screen.draft), refusal=Refusal.of(exc)
        )
    if wrote:
        return live_fragments(table, access)
    notice = None
    if log.changed and log.version - 1 != seen_version:
        notice = _(
            "Another phone changed this deal meanwhile; your tap was added to it as it stands."
        )
    return answer(screen, table, access, log, made.get("state"), notice=notice)


def _undo_or_redo(which: str):
    table, access, screen = request_screen()
    s = get_store()
    tap_id = request.form.get("tap_id") or ""
    try:
        if not tap_id:
            raise Refusal(
                _("There is nothing to undo.")
                if which == "undo"
                else _("There is nothing to redo.")
            )
        change = s.undo_tap if which == "undo" else s.redo_tap
        log, wrote = with_entries(
            lambda then: change(table.id, screen.draft, tap_id, then),
            lambda new: _after_tap(screen, s, table, new, tap_id),
        )
        if wrote:
            return live_fragments(table, access)
    except (Refusal, RuleError, store.StoreError) as exc:
        return answer(
            screen, table, access, s.tap_log(table.id, screen.draft), refusal=Refusal.of(exc)
        )
    return answer(screen, table, access, log)


def undo_route(key: str):
    """Take back the tap the button names (the last one); a retried undo changes nothing."""
    return _undo_or_redo("undo")


def redo_route(key: str):
    """Put back the tap the button names (the last one taken back)."""
    return _undo_or_redo("redo")


def save_into_entry(
    s: store.Store,
    table: store.Table,
    screen: TapScreen,
    closing: dict | list[dict],
    draft_version: int,
    submission_id,
) -> dict:
    """The one save-into-entry helper: the closing request scored by its engine and
    stored with the draft's tap log, the draft closed in the same transaction. A
    closing that is a list (a Kvanta round's several scores) is one entry each, in
    one round. A closing that carries its own ``result`` is of a kind no engine scores
    (a Pegs correction or discard: the board as it stands): stored as made, no points."""
    closings = closing if isinstance(closing, list) else [closing]
    context = (s.tap_log(table.id, screen.draft).data or {}).get("context") or {}
    taken = screen.replaces(s, table, context) if screen.replaces else ()
    ids = {p.name: p.id for p in s.players(table.id)}
    scored = []
    for one in closings:
        kind, request_json = one["kind"], one["request"]
        if "result" in one and "points" not in one:  # a step with points is scored again
            scored.append((kind, request_json, one["result"], {}))
            continue
        result = api.evaluate(kind, request_json)
        points = {
            ids[name]: pts
            for name, pts in api.points_of(kind, result).items()
            if pts and name in ids
        }
        scored.append((kind, request_json, result, points))
    return s.close_draft_into_entry(
        table.id,
        screen.draft,
        *scored[0],
        draft_version=draft_version,
        submission_id=submission_id,
        replaces=taken,
        also=scored[1:],
    )


def close_at_once(
    screen: TapScreen,
    s: store.Store,
    table: store.Table,
    access: str,
    tap: Tap,
    seen_version: int,
    seen_round: int,
):
    """A tap that closes the deal at once (``TapScreen.closes``): replayed on the log the
    phone showed and, when the state takes it, the log closed into its entry in one
    write by the one save-into-entry helper (the tap's id is the submission's, so a tap
    sent again is saved once). The log stored with the entry is the deal's taps before
    it: reopened (Edit, or an undo), the deal is back as it was when this tap was made.
    Answered with the whole table (its totals and history changed)."""

    try:
        # one write: the tap's id checked under its lock (a tap sent again is answered
        # as saved), the log (begun, when the tap is the deal's first) and its entry
        with s.write(
            table.id,
            tap.id,
            action_of(s.close_draft_into_entry),
            touches=NEW_ENTRY_READS | DRAFT_READS,
        ):
            log = s.tap_log(table.id, screen.draft)
            begun = log.data is not None and "context" in log.data
            data = log.data if begun else _begin(screen, s, table, log.data)
            if data["context"].get("round") != seen_round or log.version != seen_version:
                raise Refusal(stale_notice(), status=409, notice=True)
            after = replay(state_of(screen, table, data), [tap.to_json()], path="tap")
            closing = screen.closing(after) if screen.closing else after.to_json()["closing"]
            if not closing:
                raise Refusal(_("The deal is not finished yet: nothing was saved."))
            version = log.version
            if not begun:  # nothing tapped before it: the deal's log first, then closed
                version = s.save_draft(table.id, screen.draft, data, expected_version=version)
            outcome = save_into_entry(s, table, screen, closing, version, tap.id)
    except store.Replayed:
        return live_fragments(table, access, screen_notice=_("Already saved."))
    except (RuleError, Refusal, store.StoreError) as exc:
        return answer(
            screen, table, access, s.tap_log(table.id, screen.draft), refusal=Refusal.of(exc)
        )
    message = screen.saved(data["context"], {**outcome, "state": after})
    return live_fragments(table, access, screen_notice=message)


def _screen_of(table: store.Table) -> TapScreen | None:
    if table.game in catalog.GAMES:
        game_module(table.game)
    return _SCREENS.get(table.game)


def check_undo(
    s: store.Store, table: store.Table, entry_id: int, submission_id: str | None
) -> int | None:
    """Before an undo in the history: the game's ``may_undo`` (raises store.Conflict),
    and the table version the undo is then based on (None: no check), so a move another
    phone saves meanwhile is never left on a board that the undo takes back."""
    screen = _screen_of(table)
    if screen is None or screen.may_undo is None:
        return None
    if s.submission(submission_id, s.void_entry, table.id) is not None:
        return None  # a retry: answered as the first time
    try:
        entry = s.entry(table.id, entry_id)
    except store.NotFound:
        return None
    if entry.live:
        screen.may_undo(s, table, entry)
    return table.version


def entries_changed(s: store.Store, table: store.Table) -> None:
    """After an undo or redo in the history: the game's ``entries_changed``, if any."""
    screen = _screen_of(table)
    if screen is not None and screen.entries_changed is not None:
        screen.entries_changed(s, table)


def _board_refusal(table: store.Table, access: str, refusal: Refusal):
    key = "screen_notice" if refusal.notice else "screen_error"
    return render_board(table, access, refusal.status, **{key: refusal.message})


def save_route(key: str):
    """Close the deal: one entry (superseding the one reopened, for an edit)."""
    table, access, screen = request_screen()
    s = get_store()
    submission_id = request.form.get("submission_id") or None
    try:
        if s.submission(submission_id, s.close_draft_into_entry, table.id) is not None:
            return after_write(table, message=_("Already saved."))
        seen_version, seen_round = deal_seen()
        log = s.tap_log(table.id, screen.draft)
        if log.data is None or "context" not in log.data:
            raise Refusal(_("The deal is not finished yet: nothing was saved."))
        context = log.data["context"]
        if log.version != seen_version or context.get("round") != seen_round:
            raise Refusal(stale_notice(), status=409, notice=True)
        if context.get("supersedes") is None and summarize(s, table).standings.finished:
            raise Refusal(_("The game is over."), status=409)
        closing = state_of(screen, table, log.data).to_json()["closing"]
        if not closing:
            raise Refusal(_("The deal is not finished yet: nothing was saved."))
        outcome = save_into_entry(s, table, screen, closing, log.version, submission_id)
    except (RuleError, Refusal, store.StoreError) as exc:
        return _board_refusal(table, access, Refusal.of(exc))
    return after_write(table, message=screen.saved(context, outcome))


def edit_route(key: str, entry_id: int):
    """Edit: a saved entry's tap log back on the screen, every card as it was."""
    table, access, screen = request_screen()
    s = get_store()
    try:
        entry = s.entry(table.id, entry_id)
    except store.NotFound:
        abort(404)
    try:
        if screen.may_edit is not None:
            screen.may_edit(s, table, entry)
        s.reopen_entry(
            table.id,
            screen.draft,
            entry_id,
            entry.kind if _reopens(screen, entry) else screen.kind,
            lambda e: screen.rebuild(table, screen.edit_context(s, table, e), e),
            screen.edit_context(s, table, entry),
        )
    except (store.StoreError, Refusal) as exc:
        return _board_refusal(table, access, Refusal.of(exc))
    return after_write(
        table, message=_("Round %(n)d is open again: change it, then save.", n=entry.round)
    )


def discard_route(key: str):
    """Give up an edit (or a deal begun): the draft is dropped, the saved entry stays."""
    table, access, screen = request_screen()
    s = get_store()
    try:
        version = _posted_int("v")
        if version is None:
            raise Refusal(_("This tap came without its deal; reload the page."))
        s.discard_draft(table.id, screen.draft, version)
    except (Refusal, store.StoreError) as exc:
        return _board_refusal(table, access, Refusal.of(exc))
    return after_write(table, message=_("The changes were dropped."))
