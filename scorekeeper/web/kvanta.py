"""The Kvanta screen (RULES.md §3) on the one screen mechanism: its round is
``scorekeeper.deals.kvanta``'s (a log of taps from the dealer draw to the poker prize,
each step an entry as soon as its tap is made); ``scorekeeper.views.kvanta`` builds the panel. Here
the routes only the round has: its dice, rolled on the server (``/roll``) or the faces
of physical dice chosen on the phone, and an Edit's way back to a step (``/back``).
"""

from __future__ import annotations

from flask import Blueprint, current_app, request

from .. import dice, store
from ..deals import kvanta as rules
from ..deals.kvanta import DEAL, DRAFT, FacesRng, reconcile
from ..deals.kvanta_edit import back_to, roll_submission
from ..errors import RuleError
from ..i18n import gettext as _
from ..summary import TableSummary
from ..views import kvanta as drawing
from ..views.kvanta import EARLIER_ROLLS, view
from . import screens
from .board import live_fragments
from .db import get_store

__all__ = ["EARLIER_ROLLS", "SCREEN", "bp", "history_lines", "panel_context"]

bp = Blueprint("kvanta", __name__, url_prefix="/t/<key>/kvanta")

SCREEN = screens.adopt(bp, DEAL, view=view)


def history_lines(table: store.Table, history: list) -> dict[int, list[str]]:
    """Every roll of each round the history lists (``views.kvanta.history_lines``)."""
    return drawing.history_lines(get_store(), table, history)


# ---------------------------------------------------------------- dice


def faces(count: int) -> list[int]:
    """The faces chosen on the phone for physical dice (``die0``, ``die1`` …)."""
    faces = []
    for i in range(count):
        raw = request.form.get(f"die{i}", "")
        raw = raw if raw.isascii() else ""
        if raw.isdigit() and not 1 <= int(raw) <= dice.FACES:
            raise screens.Refusal(_("A die shows 1 to %(n)d.", n=dice.FACES), f"die{i}")
        if not raw.isdigit():
            message = (
                _("Tap the face of each of the three dice first.")
                if count > 1
                else _("Tap the face of the exchange die first.")
            )
            raise screens.Refusal(message, f"die{i}")
        faces.append(int(raw))
    return faces


def rng_of(count: int, physical: bool):
    """What rolls ``count`` dice: the faces chosen on the phone, or the server's dice
    (tests may set ``DICE_RNG`` in the app's config to choose what it rolls)."""
    return FacesRng(faces(count)) if physical else current_app.config.get("DICE_RNG")


@bp.post("/roll")
@screens.finds_table
def roll(key: str):
    """A target roll, a roll again or the exchange die (``deals.kvanta.roll``)."""
    s = get_store()
    try:
        # the lookup reads the roll's own submission (stored once per tap id)
        with screens.table_in_write(roll_submission(request.form.get("tap_id") or "")):
            table, access, screen = screens.request_screen()
            seen_version, seen_round = screens.deal_seen()
            tap = screens.posted_tap()
            log, wrote = rules.roll(s, table, tap, seen_version, seen_round, rng_of)
    except (RuleError, screens.Refusal, store.StoreError, ValueError) as exc:
        # a broken injected RNG (not an engine's refusal): never an impossible roll
        if isinstance(exc, ValueError) and not isinstance(exc, RuleError):
            exc = screens.Refusal(str(exc))
        return screens.refused_in_write(exc)
    if wrote:
        return live_fragments(table, access)
    return screens.answer(screen, table, access, log)


@bp.post("/back")
def back(key: str):
    """Edit: back to a step settled earlier, what followed it kept aside (``back_to``)."""
    table, access, screen = screens.request_screen()
    s = get_store()
    log = s.tap_log(table.id, DRAFT)
    try:
        version, _round = screens.deal_seen()
        if version != log.version:
            raise screens.Refusal(screens.stale_notice(), status=409, notice=True)
        back_to(s, table, log, DRAFT, request.form.get("tap_id") or "")
    except (screens.Refusal, store.StoreError) as exc:
        return screens.answer(screen, table, access, log, refusal=screens.Refusal.of(exc))
    return screens.answer(screen, table, access, s.tap_log(table.id, DRAFT))


# ---------------------------------------------------------------- the panel


def panel_context(table: store.Table, summary: TableSummary, access: str) -> dict:
    s = get_store()
    log = s.tap_log(table.id, DRAFT)
    if access == "score":
        log = reconcile(s, table, log)
    if summary.standings.finished and not (log.data and log.data.get("context")):
        return {"finished": True, "can_write": access == "score", "phase": "over"}
    return view(screens.view_of(SCREEN, table, access, log, summary=summary))
