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
import html
import importlib
import json
import re
from pathlib import Path

import pytest
from babel.support import NullTranslations
from conftest import UNLIMITED_CREATION, Page, start_table
from flask import Blueprint
from jinja2 import ChoiceLoader, DictLoader

from scorekeeper import api, create_app, i18n, printing
from scorekeeper.cli import main
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


def knock_progress(settings: dict, latest) -> dict:
    tap = latest(frozenset({"knock-tap"}), lambda e: True)
    return {"last_tap": tap["request"].get("player") if tap else None}


def knock_shake() -> dict:
    return {"dice": [4], "knocks": 4}


def knock_sheet(seats: list[str], settings: dict) -> dict:
    return {"knock_rows": 3 * len(seats), "knock_target": settings["target"]}


# its screen: this module's blueprint (a screen with no panel shows the score pad)
bp = Blueprint("knock", __name__, url_prefix="/t/<key>/knock")


@bp.get("/hello")
def hello(key: str):
    return "knock knock"


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
    progress=knock_progress,
    rolls={"knock-shake": f"{__name__}:knock_shake"},
    screen=__name__,
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


def test_the_cli_rolls_the_new_games_dice(knock, capsys):
    assert main(["roll", "knock-shake"]) == 0
    assert json.loads(capsys.readouterr().out) == {"dice": [4], "knocks": 4}
    assert main(["roll", "knock-kick"]) == 2
    assert "no roll called “knock-kick”" in capsys.readouterr().err
    assert catalog.roll_kinds() == ("kvanta-target", "kvanta-exchange", "knock-shake")


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
    live[0]["request"] = {"player": "Bojan"}
    progress = standings.progress_of("knock", {}, live)
    assert progress.deals_played == 2  # a tap is no deal of its own
    assert progress.facts == {"last_tap": "Bojan"}  # what its record reads of its entries
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


def test_a_table_of_the_new_game_is_played_on_its_screen(knock, tmp_path):
    """The app mounts the game's screen, offers it on the home page, and its table
    keeps score on the pad and ranks by the record (game-result)."""
    config = {"TESTING": True, "DATABASE": str(tmp_path / "knock.sqlite")}
    app = create_app({**config, "SECRET_KEY": "k", "CREATE_RATE_LIMIT": UNLIMITED_CREATION})
    client = app.test_client()
    assert "<strong>Knock</strong><small>A toy game · 2 or 3 players" in client.get("/").text
    url, table = start_table(client, "knock", ("Ana", "Bojan"), **{"knock-target": "50"})
    assert client.get(url + "/knock/hello").text == "knock knock"
    assert '<span class="topbar-game">Knock</span>' in table.html
    assert "Winning total: <strong>50</strong>" in table.html
    fields = table.player_fields()
    data = {"csrf_token": table.csrf, "submission_id": table.submission_id}
    data.update(dict(zip(fields, ["60", "10"], strict=True)))
    after = Page(client.post(url + "/rounds", data=data, follow_redirects=True))
    assert after.status == 200 and after.totals() == {"Ana": 60, "Bojan": 10}
    assert "Ana knocked loudest." in after.html


def test_every_record_points_at_what_exists():
    """Each game's references (its screen, play state, rule card, sheets, dice and
    the breakdown of its kinds) name a module and attribute that are there."""
    for slug, game in catalog.GAMES.items():
        references = [game.rule_card, game.sheet, game.filled_sheet, game.play_state]
        references += [k.breakdown for k in game.kinds]
        references += list(game.rolls.values())
        for reference in filter(None, references):
            assert catalog.resolve(reference) is not None, (slug, reference)
        assert importlib.import_module(game.screen_module).bp.name == slug
        assert game.rule_card and game.sheet and game.play_state, slug


def test_what_a_games_entries_say_is_its_own_module_s_not_the_web_layer_s():
    """A sixth game's history lines are written in its own modules: no kind's breakdown
    lives in the web layer, and the history (the page's and the printed sheet's) reads
    them from the records alone."""
    for slug, game in catalog.GAMES.items():
        for kind in game.kinds:
            if kind.breakdown:
                module = kind.breakdown.partition(":")[0]
                assert not module.startswith("scorekeeper.web"), (slug, kind.name)
                assert slug in module, (slug, kind.breakdown)
    source = (PACKAGE / "history.py").read_text(encoding="utf-8")
    for slug in catalog.GAMES:
        assert slug not in source.lower(), slug


# ---------------------------------------------------------------- the catalogue's words


class Words(NullTranslations):
    """A catalogue that knows a few words, whatever the language asked for."""

    def __init__(self, words: dict[str, str]):
        super().__init__()
        self.words = words

    def gettext(self, message: str) -> str:
        return self.words.get(message, message)

    ugettext = gettext


def test_the_catalogues_words_are_translated_where_they_are_shown(client, monkeypatch):
    """Names, subtitles, setting and option labels and the history's labels are
    marked in the records and translated by the page that shows them."""
    words = {
        "Wyoming Cowboy": "Kauboj iz Vajominga",
        "Illegal marriage's queen is also a harlot": "I dama je bludnica",
        "What a lost deal gives": "Šta nosi izgubljeno deljenje",
        "A letter of VEŽIMAS": "Slovo reči VEŽIMAS",
        "Szaman": "Šaman",
    }
    english = html.unescape(client.get("/").text)
    assert all(msgid in english and said not in english for msgid, said in words.items())

    monkeypatch.setattr(i18n, "catalogue_for", lambda language: Words(words))
    home = html.unescape(client.get("/").text)
    for msgid, said in words.items():
        assert said in home, msgid
    assert "Wyoming Cowboy" not in home
    # (a table's page is kept as rendered in its language: made after the change)
    _url, table_page = start_table(
        client, "vezimas", ("Ana", "Bojan"), **{"vezimas-tally": "letters"}
    )
    table = html.unescape(table_page.html)
    assert "Šta nosi izgubljeno deljenje: <strong>Slovo reči VEŽIMAS</strong>" in table
    assert '<h1 class="rc-title">Šaman</h1>' in client.get("/rules/szaman").text
