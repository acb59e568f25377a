"""One declared record per game: a game the registry lists is answered, ranked and
printed by the shared modules without any of them naming it.

A toy sixth game (Knock: each round a player knocks 0–5 times, 10 points a knock;
the first to the target with the single highest total wins) is declared here, its
engine and record in this module, and registered for the test alone. The shared
code (api, game-result, standings, summary, printing) answers for it as for the
five; and no module but a game's own compares a game's slug to a literal.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from jinja2 import ChoiceLoader, DictLoader

from scorekeeper import api, printing
from scorekeeper.errors import RuleError, UnknownKind
from scorekeeper.games import catalog, registry, results, standings
from scorekeeper.messages import N_
from scorekeeper.store import Entry
from scorekeeper.summary import entry_label

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "scorekeeper"

# ---------------------------------------------------------------- the toy game


def knock_round(request: dict) -> dict:
    players = request["players"]
    knocks = request["knocks"]
    for name in players:
        if not isinstance(knocks.get(name), int) or not 0 <= knocks[name] <= 5:
            raise RuleError("%(name)s knocks 0 to 5 times.", f"knocks.{name}", name=name)
    return {"points": {name: 10 * knocks[name] for name in players}}


def knock_tap(request: dict) -> dict:
    return {"tapped": request.get("player")}


def knock_result(players, totals, deals, ended, settings) -> dict:
    rank = results.ranks(players, lambda p: -totals[p])
    top = max(totals.values())
    leaders = [p for p in players if totals[p] == top]
    if (top >= settings["target"] and len(leaders) == 1) or ended:
        return results.answer(True, leaders, [], rank, "highest total", players)
    return results.answer(False, [], [], rank, "nobody has won yet", players)


def knock_message(result, totals, settings, progress) -> str:
    if result["winners"]:
        return f"{result['winners'][0]} knocked loudest."
    return f"First to {settings.get('target', 100)} wins; {progress.deals_played} rounds so far."


def knock_dealer(players, progress) -> str:
    return players[-1]  # in Knock the last seat always deals


def knock_sheet(seats: list[str], settings: dict) -> dict:
    return {"knock_rows": 3 * len(seats), "knock_target": settings["target"]}


KNOCK = catalog.Game(
    "knock",
    N_("Knock"),
    N_("A toy game"),
    (2, 3),
    (catalog.Setting("target", N_("Winning total"), "int", 100, lo=10, hi=1000),),
    N_("Knock on the table."),
    engines={"knock-round": knock_round, "knock-tap": knock_tap},
    kinds=(
        catalog.Kind("knock-round", N_("Round")),
        catalog.Kind("knock-tap", N_("Tap"), deal=False),
    ),
    result=catalog.Result(
        knock_result,
        knock_message,
        {"target": catalog.ResultSetting(100, results.whole(1, 1000))},
    ),
    dealer=knock_dealer,
    sheet=f"{__name__}:knock_sheet",
    sheet_template="games/knock/sheet.html",
)

KNOCK_SHEET = """{% extends "_sheet.html" %}
{% block sheet %}<p class="knock">{{ knock_rows }} rows for {{ names|length }} seats,
to {{ knock_target }}</p>{% endblock %}"""


@pytest.fixture
def knock():
    registry.register(KNOCK)
    yield KNOCK
    registry.unregister("knock")


PLAYERS = ["Ana", "Bojan", "Ceca"]


# ---------------------------------------------------------------- the shared code answers it


def test_the_api_dispatches_the_new_games_kinds(knock):
    assert {"knock-round", "knock-tap"} <= set(api.KINDS)
    request = {"players": PLAYERS, "knocks": {"Ana": 2, "Bojan": 0, "Ceca": 5}}
    result = api.evaluate("knock-round", request)
    assert api.points_of("knock-round", result) == {"Ana": 20, "Bojan": 0, "Ceca": 50}
    body, status = api.respond("knock-round", '{"players": ["Ana"], "knocks": {"Ana": 9}}')
    assert status == 422 and body["error"]["path"] == "knocks.Ana"
    with pytest.raises(UnknownKind):
        api.evaluate("knock-kick", request)  # a kind the record does not declare


def test_an_unregistered_game_is_unknown(knock):
    registry.unregister("knock")
    assert "knock" not in catalog.GAMES
    assert "knock-round" not in api.KINDS
    with pytest.raises(UnknownKind):
        api.evaluate("knock-round", {})
    with pytest.raises(RuleError) as err:
        api.evaluate("game-result", {"game": "knock", "players": PLAYERS, "totals": {}, "deals": 0})
    assert err.value.path == "game"


def test_game_result_answers_for_the_new_game(knock):
    request = {
        "game": "knock",
        "players": PLAYERS,
        "totals": {"Ana": 120, "Bojan": 40, "Ceca": 90},
        "deals": 4,
    }
    result = api.evaluate("game-result", request)
    assert result["finished"] and result["winners"] == ["Ana"]
    assert result["ranks"] == {"Ana": 1, "Bojan": 3, "Ceca": 2}
    later = api.evaluate("game-result", {**request, "settings": {"target": 200}})
    assert not later["finished"] and later["winners"] == []
    with pytest.raises(RuleError) as err:
        api.evaluate("game-result", {**request, "settings": {"tally": "carts"}})
    assert err.value.path == "settings.tally"
    with pytest.raises(RuleError) as err:
        api.evaluate("game-result", {**request, "players": ["Ana", "Bojan", "Ceca", "Dragan"]})
    assert err.value.path == "players"  # Knock is for 2 or 3


def test_standings_come_from_the_new_games_record(knock):
    live = [
        {"round": 1, "kind": "knock-tap", "request": {}, "result": {}, "points": {}},
        {"round": 2, "kind": "knock-round", "request": {}, "result": {}, "points": {"Ana": 30}},
        {"round": 3, "kind": "knock-round", "request": {}, "result": {}, "points": {"Ceca": 10}},
    ]
    progress = standings.progress_of("knock", {}, live)
    assert progress.deals_played == 2  # a tap is no deal of its own
    assert "knock-tap" in standings.non_deal_kinds()
    going = standings.standings("knock", PLAYERS, {"Ana": 30, "Ceca": 10}, {}, progress)
    assert not going.finished and going.order == ["Ana", "Ceca", "Bojan"]
    assert going.message == "First to 100 wins; 2 rounds so far."
    assert going.dealer == "Ceca"  # the record's dealer, not the shared rotation
    won = standings.standings("knock", PLAYERS, {"Bojan": 110}, {}, progress)
    assert won.finished and won.winners == ["Bojan"] and won.message == "Bojan knocked loudest."


def test_the_history_labels_the_new_games_entries(knock):
    def entry(kind: str) -> Entry:
        return Entry(1, 1, kind, {}, {}, "", None, None, "live", {})

    assert entry_label(entry("knock-round")) == "Round"
    assert entry_label(entry("knock-tap")) == "Tap"


def test_the_blank_sheet_prints_for_the_new_game(app, knock):
    app.jinja_env.loader = ChoiceLoader(
        [DictLoader({"games/knock/sheet.html": KNOCK_SHEET}), app.jinja_env.loader]
    )
    with app.test_request_context():
        html = printing.blank_sheet_html("knock")
    # as many blank seats as the game's most players, and the particulars its record gives
    assert '<p class="knock">9 rows for 3 seats,\nto 100</p>' in html
    assert "<h1>Knock</h1>" in html and "A toy game" in html


# ---------------------------------------------------------------- nobody else names a game

SLUGS = frozenset(catalog.GAMES)


def _own_module(path: Path) -> bool:
    """A game's own modules: its engine, its play state and its screen's modules."""
    rel = path.relative_to(PACKAGE).as_posix()
    for slug in SLUGS:
        if rel in (f"games/{slug}.py", f"games/play/{slug}.py"):
            return True
        if re.fullmatch(rf"web/{slug}[a-z_]*\.py", rel):
            return True
    return False


def slug_literals(source: str) -> list[tuple[int, str]]:
    """(line, slug) of every game slug compared to, matched on or keyed by a literal."""
    found = []

    def literals(node: ast.AST):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node
        elif isinstance(node, ast.Tuple | ast.List | ast.Set):
            for element in node.elts:
                yield from literals(element)

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            candidates = [c for side in (node.left, *node.comparators) for c in literals(side)]
        elif isinstance(node, ast.Dict):
            # a table by game has two or more games' keys (a lone "pegs" is a count of pegs)
            keys = [k for k in node.keys if isinstance(k, ast.Constant) and k.value in SLUGS]
            candidates = keys if len(keys) > 1 else []
        elif isinstance(node, ast.MatchValue):
            candidates = list(literals(node.value))
        else:
            continue
        found += [(c.lineno, c.value) for c in candidates if c.value in SLUGS]
    return found


def test_the_checker_finds_a_slug_compared_to_a_literal():
    source = (
        'if game == "pegs":\n    pass\n'
        'ok = slug in ("kvanta", "chess")\n'
        'EXTRAS = {"cowboy": 1, "pegs": 2}\n'
        'home = {"pegs": 3}\n'
        'match g:\n    case "szaman":\n        pass\n'
        'fine = kind == "game-end" and {"game": 1}\n'
    )
    assert slug_literals(source) == [
        (1, "pegs"),
        (3, "kvanta"),
        (4, "cowboy"),
        (4, "pegs"),
        (7, "szaman"),
    ]


def test_no_shared_module_compares_a_game_slug_to_a_literal():
    offending = [
        f"{path.relative_to(ROOT)}:{line}: {slug!r}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if not _own_module(path)
        for line, slug in slug_literals(path.read_text(encoding="utf-8"))
    ]
    assert offending == []


def test_no_shared_template_names_a_game():
    """Templates outside a game's own folder (templates/games/<slug>/, its printed
    sheet-<slug>.html) read what they need from the game's record."""
    quoted = re.compile("['\"](" + "|".join(sorted(SLUGS)) + ")['\"]")
    offending = []
    for folder in (ROOT / "templates", ROOT / "printables"):
        for path in sorted(folder.rglob("*.html")):
            rel = path.relative_to(ROOT).as_posix()
            own = any(
                rel.startswith(f"templates/games/{slug}/") or rel == f"printables/sheet-{slug}.html"
                for slug in SLUGS
            )
            if not own:
                offending += [f"{rel}: {m.group(0)}" for m in quoted.finditer(path.read_text())]
    assert offending == []
