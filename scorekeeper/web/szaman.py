"""The Szaman table screen (RULES §2) on the one screen mechanism: its deal is
``scorekeeper.deals.szaman``'s, ``scorekeeper.views.szaman`` draws its state.
"""

from __future__ import annotations

from flask import Blueprint, render_template, request

from .. import deals, store, validate
from ..deals.szaman import DEAL
from ..games import catalog
from ..i18n import gettext as _
from ..summary import TableSummary
from ..views.szaman import change_choices, view
from . import screens
from .db import get_store

bp = Blueprint("szaman", __name__, url_prefix="/t/<key>/szaman")

SCREEN = screens.adopt(bp, DEAL, view=view)


def panel_context(table: store.Table, summary: TableSummary, access: str) -> dict:
    finished = None
    if summary.standings.finished:
        finished = {
            "deals": catalog.game(table.game).clean_settings(deals.settings_of(table))["deals"],
            "finished": True,
            "can_write": access == "score",
        }
    return screens.screen_panel(SCREEN, table, summary, access, finished=finished)


@bp.get("/change")
def change(key: str):
    """The cards one card of an earlier trick may become, for the phone that asked
    (which card it changes is that phone's own, never the draft's): each button is the
    deal's ``change`` tap."""
    table, access, screen = screens.request_screen()
    number, seat = (validate.small_number(request.args.get(n, ""), 3) for n in ("trick", "seat"))
    choices = None
    try:
        if number is not None and seat is not None:
            log = get_store().tap_log(table.id, screen.deal.draft)
            v = screens.view_of(screen, table, access, log)
            choices = change_choices(v, number, seat)
    except deals.Refusal as exc:  # no deal may begin: the game is over
        return render_template("games/szaman/_change.html", error=exc.message), exc.status
    if choices is None:
        said = _("That card is not in a trick entered card by card: reload the page.")
        return render_template("games/szaman/_change.html", error=said), 422
    return render_template("games/szaman/_change.html", ch=choices)
