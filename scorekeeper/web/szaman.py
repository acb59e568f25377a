"""The Szaman table screen (RULES §2) on the one screen mechanism: its deal is
``scorekeeper.deals.szaman``'s, ``scorekeeper.views.szaman`` draws its state.
"""

from __future__ import annotations

from flask import Blueprint

from .. import deals, store
from ..deals.szaman import DEAL
from ..games import catalog
from ..summary import TableSummary
from ..views.szaman import view
from . import screens

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
