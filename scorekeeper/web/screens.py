"""What every game screen shares: recording an engine entry, the per-game panel
on the table page, and the card helpers templates use.

A game's screen lives in ``scorekeeper/web/<slug>.py`` (a blueprint ``bp``) with
templates in ``templates/games/<slug>/``. If the module defines
``panel_context(table, summary, access) -> dict``, the table page shows
``games/<slug>/_panel.html`` with that context under the name ``screen``; the
poll refreshes ``games/<slug>/_live.html`` (out-of-band swaps) when it exists.
"""

from __future__ import annotations

import importlib

from flask import abort, current_app, request
from jinja2 import TemplateNotFound

from .. import api, store
from ..cards import Card, parse_card
from ..summary import TableSummary

GAME_SLUGS = ("cowboy", "kvanta", "vezimas", "szaman", "pegs")


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
    ``replaces``: provisional entries (e.g. marriages shown during a Cowboy deal)
    that this entry takes over, in the same transaction. ``based_on_version`` and
    ``based_on_draft``: see ``Store.add_entry``.
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
        submission_id=submission_id,
        supersedes=supersedes,
        exclusive_round=exclusive and supersedes is None,
        close_draft=close_draft,
        replaces=replaces,
        based_on_version=based_on_version,
        based_on_draft=based_on_draft,
    )


def game_module(slug: str):
    module = importlib.import_module(f"scorekeeper.web.{slug}")
    if not getattr(module.bp, "_game_guarded", False):
        # every route of a game's screen answers only for a table of that game
        module.bp.before_request(_only_tables_of(slug))
        module.bp._game_guarded = True
    return module


def draft_renamer(slug: str):
    """The game's ``rename_in_draft``, if its drafts name players (others use seats or ids)."""
    if slug not in GAME_SLUGS:
        return None
    return getattr(game_module(slug), "rename_in_draft", None)


def _only_tables_of(slug: str):
    def guard():
        from .tables import get_store  # tables imports this module

        key = (request.view_args or {}).get("key")
        try:
            table, _access = get_store().table_by_key(key)
        except store.NotFound:
            abort(404)
        if table.game != slug:
            abort(404)

    return guard


def _template_exists(name: str) -> bool:
    try:
        current_app.jinja_env.get_template(name)
        return True
    except TemplateNotFound:
        return False


def panel(table: store.Table, summary: TableSummary, access: str) -> dict | None:
    """The game screen's context for the table page, or None when it has none."""
    module = game_module(table.game)
    build = getattr(module, "panel_context", None)
    if build is None:
        return None
    screen = dict(build(table, summary, access))
    screen.setdefault("template", f"games/{table.game}/_panel.html")
    live = f"games/{table.game}/_live.html"
    screen.setdefault("live_template", live if _template_exists(live) else None)
    return screen


# ---------------------------------------------------------------- template helpers


def _card(value) -> Card | None:
    try:
        return parse_card(value)
    except ValueError:
        return None


def card_symbol(value) -> str:
    """``10H`` → ``10♥``; anything else unchanged."""
    card = _card(value)
    return card.symbol if card else str(value)


def card_colour(value) -> str:
    card = _card(value)
    return (card.colour or "none") if card else "none"


def register_template_helpers(app) -> None:
    app.jinja_env.filters["card_symbol"] = card_symbol
    app.jinja_env.filters["card_colour"] = card_colour
