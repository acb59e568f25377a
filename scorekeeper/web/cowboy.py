"""The Wyoming Cowboy screen (RULES.md §1) on the one screen mechanism: its deal is
``scorekeeper.deals.cowboy``'s (marriages shown during the deal, the shooting referee
and the end-of-deal holdings, all taps of one log); ``scorekeeper.views.cowboy`` draws its state.
Which part of the deal a phone shows, whose cards are open, who shows a marriage and
the turned card's suit are that phone's own (``data-view``, kept in the phone); every
tap names its seat.
"""

from __future__ import annotations

from flask import Blueprint

from .. import store
from ..deals.cowboy import DEAL
from ..summary import TableSummary
from ..views.cowboy import view
from . import screens

bp = Blueprint("cowboy", __name__, url_prefix="/t/<key>/cowboy")

SCREEN = screens.adopt(bp, DEAL, view=view)


def panel_context(table: store.Table, summary: TableSummary, access: str) -> dict:
    finished = {"finished": True, "can_write": access == "score", "dealer": None}
    context = screens.screen_panel(SCREEN, table, summary, access, finished=finished)
    if context is not finished and context["dealer"] is None and not context["editing"]:
        context["dealer"] = summary.standings.dealer  # a deal begun before it kept its dealer
    return context
