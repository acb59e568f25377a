"""The Vežimas table screen (RULES §4) on the one screen mechanism (``screens.adopt``):
its deal, the trumps saved once and the referee's question "Can this beat that?" are
``scorekeeper.deals.vezimas``'s; this module reads the taps and draws the state.
"""

from __future__ import annotations

import json
from dataclasses import replace

from flask import Blueprint, request

from .. import store, validate
from ..deals import vezimas as rules
from ..deals.vezimas import DEAL, DRAFT, trumps_entry
from ..errors import RuleError
from ..games import vezimas as engine
from ..i18n import gettext as _
from ..summary import TableSummary
from ..views import vezimas as drawing
from . import screens
from .board import after_write, render_board
from .db import get_store, load

bp = Blueprint("vezimas", __name__, url_prefix="/t/<key>/vezimas")

# where a refused tap's message is shown: next to the controls it is about
ERROR_PLACES = {"queen": "setup", "nine": "setup", "loser": "cart"}


# ---------------------------------------------------------------- the referee's question


def form_seat(n: int, field: str = "seat") -> int:
    seat = validate.small_number(request.form.get(field, ""))
    if seat is None or seat >= n:
        raise screens.Refusal(_("Choose one of the players at this table."), field)
    return seat


def form_card(field: str = "card") -> str:
    try:
        return str(engine.read_card(request.form.get(field, ""), field))
    except RuleError as exc:
        raise screens.Refusal(exc.message, field) from None


def form_switch(field: str = "on") -> bool:
    value = request.form.get(field, "")
    if value not in ("0", "1"):
        raise screens.Refusal(_("A tap says on (1) or off (0)."), field)
    return value == "1"


@bp.post("/check/<field>")
def check(key: str, field: str):
    """One tap of the referee's question: a value of the shared question is set."""
    table, access = load(key, write=True)
    s = get_store()
    log = s.tap_log(table.id, DRAFT)
    try:
        deal = screens.view_of(SCREEN, table, access, log)
        n = len(deal.state.players)
        read = {
            "card": form_card,
            "seat": lambda: form_seat(n),
            "on": form_switch,
            "mode": lambda: request.form.get("mode", ""),
        }
        rules.ask(s, table, deal.state, deal.context["round"], field, read)
        log = replace(s.tap_log(table.id, DRAFT), changed=True)  # the table moved on
    except (screens.Refusal, store.StoreError) as exc:
        return screens.answer(SCREEN, table, access, log, refusal=screens.Refusal.of(exc))
    return screens.answer(SCREEN, table, access, log)


@bp.post("/trumps")
def save_trumps(key: str):
    """The first deal's Q♣ (and 9♦) as the session's ``vezimas-trumps`` entry."""
    table, access = load(key, write=True)
    s = get_store()
    submission_id = request.form.get("submission_id") or None
    if s.submission(submission_id, s.add_entry, table.id) is not None:
        return after_write(table, access, message=_("Already saved."))
    if trumps_entry(s.recent_entries(table.id)) is not None:
        return render_board(table, access, 409, error=_("The trumps are already set."))
    log = s.tap_log(table.id, DRAFT)
    try:
        state = screens.view_of(SCREEN, table, access, log).state
        rules.save_trumps(s, table, state, log, submission_id)
    except screens.Refusal as exc:
        return screens.answer(SCREEN, table, access, log, refusal=exc)
    except (RuleError, store.StoreError) as exc:
        return render_board(table, access, 409, error=screens.Refusal.of(exc).message)
    return after_write(table, access, message=_("Trumps set for the session."))


# ---------------------------------------------------------------- the panel


def error_place() -> str:
    """Where this request's message is shown: by the controls that sent it."""
    where = {f"{bp.name}.check": "check", f"{bp.name}.save_trumps": "setup"}
    try:
        action = json.loads(request.form.get("tap") or "{}").get("action")
    except (ValueError, AttributeError):
        action = None
    if not isinstance(action, str):  # a tap refused for its action: said by the cart
        action = None
    return where.get(request.endpoint) or ERROR_PLACES.get(action, "cart")


def view(v: screens.View) -> dict:
    """The panel (``views.vezimas``), its message shown by the controls that sent it."""
    return {**drawing.view(v), "error_at": error_place()}


SCREEN = screens.adopt(bp, DEAL)


def panel_context(table: store.Table, summary: TableSummary, access: str) -> dict:
    return screens.screen_panel(
        SCREEN, table, summary, access, finished={"finished": True, "can_write": False}
    )
