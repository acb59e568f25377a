"""The game panels are drawn without Flask (``scorekeeper.views``): a panel's View made
from a store and a deal's log alone, as a command or another door would, gives the
panel's context with every route under the mount point it names, and none for the
watch link."""

from __future__ import annotations

import flask
import pytest
from conftest import speaking

from scorekeeper import deals, store
from scorekeeper.deals import cowboy, kvanta, pegs, szaman, vezimas
from scorekeeper.games import catalog
from scorekeeper.views import cowboy as cowboy_view
from scorekeeper.views import kvanta as kvanta_view
from scorekeeper.views import pegs as pegs_view
from scorekeeper.views import szaman as szaman_view
from scorekeeper.views import vezimas as vezimas_view
from scorekeeper.views.panel import View

PANELS = {
    "cowboy": (cowboy.DEAL, cowboy_view.view, ["Ana", "Bo", "Cy"]),
    "szaman": (szaman.DEAL, szaman_view.view, ["Ana", "Bo", "Cy"]),
    "vezimas": (vezimas.DEAL, vezimas_view.view, ["Ana", "Bo", "Cy"]),
    "kvanta": (kvanta.DEAL, kvanta_view.view, ["Ana", "Bo", "Cy", "Di"]),
    "pegs": (pegs.DEAL, pegs_view.panel, ["Ana", "Bo", "Cy", "Di"]),
}


@pytest.fixture
def s(tmp_path):
    s = store.Store.open(tmp_path / "db.sqlite")
    yield s
    s.close()


def panel_of(s: store.Store, game: str, access: str) -> tuple[store.Table, dict]:
    deal, view, names = PANELS[game]
    s.create_table(game, "Night", names, catalog.game(game).defaults())
    table = s.list_tables()[0]
    log = s.tap_log(table.id, deal.draft)
    data, state = deals.shown(deal, table, deals.log_data(deal, s, table, log))
    return table, view(View(table, access, data, log.version, state, "/club", s))


@pytest.mark.parametrize("game", sorted(PANELS))
def test_a_panel_is_drawn_without_a_request(s, game):
    assert not flask.has_app_context() and not flask.has_request_context()
    table, context = panel_of(s, game, "score")
    drawn = repr(context)
    assert f"/club/t/{table.scorer_key}/{game}/" in drawn
    assert "/t/" not in drawn.replace(f"/club/t/{table.scorer_key}/{game}/", "")


@pytest.mark.parametrize("game", sorted(PANELS))
def test_the_watch_links_panel_sends_no_tap(s, game):
    _table, context = panel_of(s, game, "watch")
    assert "/t/" not in repr(context)


@pytest.mark.parametrize(
    ("language", "one", "two"),
    [
        ("en", "joker −20", "2 jokers −40"),
        ("lt", "džokeris −20", "2 džokeriai −40"),
        ("sr-Cyrl", "џокер −20", "2 џокера −40"),
        ("pl", "joker −20", "2 jokery −40"),
    ],
)
def test_jokers_held_are_counted_in_every_language(language, one, two):
    """A joker held is said alone; two or more are counted (RULES §2).
    Lithuanian and Serbian say 21 as they say 1, so the counted form always names the
    number: the catalogue could not leave it out of "1" without losing it from "21"."""
    with speaking(language):
        assert szaman_view.penalty_text(["RJ"]) == one
        assert szaman_view.penalty_text(["RJ", "BJ"]) == two
        assert szaman_view.penalty_text(["RJ", "5D"]) == f"5 → −1 · {one} = −21"
