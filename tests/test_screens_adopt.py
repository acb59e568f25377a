"""How a game declares its screen (scorekeeper/web/screens.py ``adopt``): the hooks are
its module's functions of their names, the game its blueprint's name, and what it
declares outright wins over a function of the same name."""

from __future__ import annotations

import dataclasses
import importlib
import sys
import types

import pytest
from flask import Blueprint, Flask

from scorekeeper.app import RowIdConverter
from scorekeeper.games import catalog
from scorekeeper.web import screens

HOOKS = [f.name for f in dataclasses.fields(screens.TapScreen) if f.name not in ("game",)]


@pytest.mark.parametrize("game", list(catalog.GAMES))
def test_every_hook_a_game_module_defines_is_its_screens(game):
    # a hook written below the declaration would be silently left out of the screen
    module = importlib.import_module(f"scorekeeper.web.{game}")
    assert module.SCREEN.game == module.bp.name == game
    for name in HOOKS:
        if callable(getattr(module, name, None)):
            assert getattr(module.SCREEN, name) is getattr(module, name), name


def _hook(*_args):
    return {}


def test_adopt_reads_the_blueprints_module_and_the_declared_win(monkeypatch):
    module = types.ModuleType("scorekeeper_test_game")
    module.new_deal = module.edit_context = module.rebuild = module.saved = _hook
    module.view = lambda v: {"from": "module"}
    module.seed = "not a function, so not a hook"
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(screens, "_SCREENS", {})
    bp = Blueprint("testgame", module.__name__, url_prefix="/t/<key>/testgame")

    def declared_view(v):
        return {"from": "declared"}

    screen = screens.adopt(bp, draft="testgame-deal", kind="testgame-deal", view=declared_view)

    assert screen.game == "testgame"
    assert (screen.draft, screen.kind) == ("testgame-deal", "testgame-deal")
    assert screen.new_deal is _hook and screen.saved is _hook
    assert screen.view is declared_view
    assert screen.seed is None and screen.after_tap is None
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


def test_a_screen_without_a_required_hook_is_refused_at_its_declaration(monkeypatch):
    module = types.ModuleType("scorekeeper_test_bare")
    module.new_deal = module.edit_context = module.rebuild = _hook  # no view, no saved
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(screens, "_SCREENS", {})
    with pytest.raises(TypeError, match="view"):
        screens.adopt(Blueprint("bare", module.__name__), draft="bare", kind="bare")
    assert screens._SCREENS == {}
