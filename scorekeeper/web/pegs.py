"""The Arizona Pegs and Jokers table screen (RULES §5) on the one screen mechanism
(``screens.adopt``): its turn is ``scorekeeper.deals.pegs``'s, ``scorekeeper.views.pegs``
builds the panel and ``views.pegs_board`` draws the board.
"""

from __future__ import annotations

from flask import Blueprint

from .. import store
from ..deals.pegs import DEAL
from ..summary import TableSummary
from ..views import pegs as drawing
from . import screens

bp = Blueprint("pegs", __name__, url_prefix="/t/<key>/pegs")

SCREEN = screens.adopt(bp, DEAL, view=drawing.panel, routes=("tap", "undo", "redo", "discard"))


def panel_context(table: store.Table, summary: TableSummary, access: str) -> dict:
    return screens.screen_panel(SCREEN, table, summary, access)
