"""How a game declares its deal (``scorekeeper.deals.declare``) and its screen
(``scorekeeper.web.screens.adopt``): a deal's hooks are its module's functions of their
names, and what it declares outright wins over a function of the same name; a screen is
its blueprint's game, with that game's deal and its module's ``view``."""

from __future__ import annotations

import dataclasses
import importlib
import sys
import types

import pytest
from flask import Blueprint, Flask

from scorekeeper import deals
from scorekeeper.app import RowIdConverter
from scorekeeper.games import catalog
from scorekeeper.web import screens

HOOKS = [f.name for f in dataclasses.fields(deals.Deal) if f.name not in ("game",)]


@pytest.mark.parametrize("game", list(catalog.GAMES))
def test_every_hook_a_deal_module_defines_is_its_deals(game):
    # a hook written below the declaration would be silently left out of the deal
    module = importlib.import_module(f"scorekeeper.deals.{game}")
    assert module.DEAL.game == game and deals.DEALS[game] is module.DEAL
    for name in HOOKS:
        if callable(getattr(module, name, None)):
            assert getattr(module.DEAL, name) is getattr(module, name), name


@pytest.mark.parametrize("game", list(catalog.GAMES))
def test_every_game_screen_is_its_blueprints_game_with_its_deal(game):
    module = importlib.import_module(f"scorekeeper.web.{game}")
    assert module.SCREEN.game == module.bp.name == game
    assert module.SCREEN.deal is deals.DEALS[game]
    assert screens.deal_of(game) is deals.DEALS[game]


def _hook(*_args):
    return {}


@pytest.fixture
def game_module(monkeypatch):
    module = types.ModuleType("scorekeeper_test_game")
    module.new_deal = module.edit_context = module.rebuild = module.saved = _hook
    module.view = lambda v: {"from": "module"}
    module.seed = "not a function, so not a hook"
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(deals, "DEALS", {})
    monkeypatch.setattr(screens, "_SCREENS", {})
    return module


def test_declare_reads_the_module_and_the_declared_win(game_module):
    def own_saved(*_args):
        return "saved"

    deal = deals.declare(
        game_module.__name__, game="testgame", draft="t", kind="t-deal", saved=own_saved
    )
    assert (deal.game, deal.draft, deal.kind) == ("testgame", "t", "t-deal")
    assert deal.new_deal is _hook and deal.saved is own_saved
    assert deal.seed is None and deal.after_tap is None
    assert deals.DEALS == {"testgame": deal}


def test_adopt_gives_the_blueprint_the_routes_and_the_modules_view(game_module):
    deal = deals.declare(game_module.__name__, game="testgame", draft="t", kind="t-deal")
    bp = Blueprint("testgame", game_module.__name__, url_prefix="/t/<key>/testgame")

    screen = screens.adopt(bp, deal)

    assert screen.game == "testgame" and screen.deal is deal
    assert screen.view is game_module.view
    assert screens._SCREENS == {"testgame": screen}
    app = Flask(__name__)
    app.url_map.converters["rowid"] = RowIdConverter
    app.register_blueprint(bp)
    rules = {r.rule for r in app.url_map.iter_rules() if r.endpoint.startswith("testgame.")}
    assert rules == {
        "/t/<key>/testgame/tap",
        "/t/<key>/testgame/undo",
        "/t/<key>/testgame/redo",
        "/t/<key>/testgame/save",
        "/t/<key>/testgame/discard",
        "/t/<key>/testgame/edit/<rowid:entry_id>",
    }


def test_a_declared_view_wins_over_the_modules(game_module):
    deal = deals.declare(game_module.__name__, game="testgame", draft="t", kind="t-deal")

    def declared_view(v):
        return {"from": "declared"}

    screen = screens.adopt(Blueprint("testgame", game_module.__name__), deal, view=declared_view)
    assert screen.view is declared_view


def test_a_deal_without_a_required_hook_is_refused_at_its_declaration(game_module):
    del game_module.saved
    with pytest.raises(TypeError, match="saved"):
        deals.declare(game_module.__name__, game="bare", draft="bare", kind="bare")
    assert deals.DEALS == {}


def test_a_screen_without_a_view_or_of_another_game_is_refused(game_module):
    deal = deals.declare(game_module.__name__, game="testgame", draft="t", kind="t-deal")
    del game_module.view
    with pytest.raises(TypeError, match="view"):
        screens.adopt(Blueprint("testgame", game_module.__name__), deal)
    with pytest.raises(ValueError, match="other"):
        screens.adopt(Blueprint("other", game_module.__name__), deal, view=lambda v: {})
    assert screens._SCREENS == {}
