"""The game screens: the module of each (where its game's record says), the guard
that keeps its routes to tables of its game, and its panel on the table page."""

from __future__ import annotations

import importlib

from flask import abort, current_app, g, request
from jinja2 import TemplateNotFound

from .. import deals, i18n, store
from ..games import catalog
from ..summary import TableSummary
from .db import get_store


def game_module(slug: str):
    """The game's screen module, where its record says (``Game.screen_module``)."""
    module = importlib.import_module(catalog.GAMES[slug].screen_module)
    if not getattr(module.bp, "_game_guarded", False):
        # every route of a game's screen answers only for a table of that game
        module.bp.before_request(only_tables_of(slug))
        module.bp._game_guarded = True
    return module


def deal_of(slug: str) -> deals.Deal | None:
    """The deal of a game's screen (None for a game with no tap-log deal)."""
    if slug not in catalog.GAMES:
        return None
    game_module(slug)  # its screen declares its deal
    return deals.DEALS.get(slug)


def only_tables_of(slug: str):
    def guard():
        if getattr(current_app.view_functions.get(request.endpoint), "finds_table", False):
            return  # the route finds it inside its write (``screens.table_in_write``)
        key = (request.view_args or {}).get("key")
        found = g.get("screen_table")
        if found is not None and key in (found[0].scorer_key, found[0].watch_key):
            return  # already read for this request (a game's own guard ran it first)
        find_table(slug, key)

    return guard


def find_table(slug: str, key: str | None, **reads) -> store.Table:
    """The table of a game screen's request, by its link (404 when there is none of
    this game), kept for the request (``g.screen_table``); ``reads``: what the lookup
    reads with it (``Store.table_by_key``)."""
    try:
        table, access = get_store().table_by_key(key, **reads)
    except store.NotFound:
        abort(404)
    if table.game != slug:
        abort(404)
    i18n.table_loaded(table)
    g.screen_table = (table, access)  # read once per request: a tap is kept cheap
    return table


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


def add_history_lines(table: store.Table, history: list, details: dict) -> None:
    """The game module's ``history_lines(table, history)``: more lines for rows of the
    history (by entry id), of what its entries do not hold (a Kvanta round's dice)."""
    if table.game in catalog.GAMES:
        lines = getattr(game_module(table.game), "history_lines", None)
        for entry_id, more in (lines(table, history) if lines else {}).items():
            if entry_id in details:
                details[entry_id]["lines"] = [*details[entry_id]["lines"], *more]
