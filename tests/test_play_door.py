"""The public door to play state (PLAY.md): ``POST /api/v1/play/GAME`` and
``scorekeeper play GAME [--file F]`` give one identical answer, as the score door does."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from scorekeeper.cli import main
from scorekeeper.games import catalog
from scorekeeper.games.play import Refused, play, respond

PLAY_DATA = Path(__file__).parent / "data" / "play"
TENS = json.loads((PLAY_DATA / "cowboy-tens.json").read_text())["request"]
NAMES = ["Ana", "Bojan", "Ceca", "Dara", "Ema", "Filip", "Goran", "Hana"]
STATE_KEYS = {"game", "players", "phase", "next", "turn", "legal", "complete", "closing"}


def post(client, game: str, body):
    data = body if isinstance(body, (str, bytes)) else json.dumps(body, ensure_ascii=False)
    return client.post(f"/api/v1/play/{game}", data=data, content_type="application/json")


def run(*args, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scorekeeper.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_http_answers_the_state_of_the_taps(client):
    response = post(client, "cowboy", TENS)
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    state = response.get_json()
    assert state == play("cowboy", TENS)
    assert state["complete"] and state["closing"]["kind"] == "cowboy-deal"


def test_a_refused_tap_is_422_with_its_index(client):
    taps = [*TENS["taps"], {"id": "late", "action": "hold", "seat": 2, "card": "KH"}]
    response = post(client, "cowboy", {**TENS, "taps": taps})
    assert response.status_code == 422
    with pytest.raises(Refused) as caught:
        play("cowboy", {**TENS, "taps": taps})
    assert response.get_json() == caught.value.as_dict()
    assert response.get_json() == {
        "error": {
            "message": "KH is already in Ana's hand.",
            "path": f"taps[{len(taps) - 1}].card",
            "tap": len(taps) - 1,
        }
    }


@pytest.mark.parametrize(
    ("game", "body", "status", "path"),
    [
        ("cowboy", "{not json", 400, ""),
        ("cowboy", r'{"players": ["\ud800", "B", "C"]}', 400, ""),
        ("cowboy", "[1, 2]", 422, ""),
        ("cowboy", '{"players": ["A", "B", "C"], "moves": []}', 422, "moves"),
        ("cowboy", '{"settings": {}}', 422, "players"),
        ("cowboy", '{"players": ["A", "B"]}', 422, "players"),
        ("cowboy", '{"players": ["A", "B", "C"], "taps": {}}', 422, "taps"),
        ("cowboy", '{"players": ["A", "B", "C"], "taps": [{"action": "end"}]}', 422, "taps[0].id"),
        ("bridge", "{}", 404, "game"),
    ],
)
def test_refusals_have_the_error_shape_and_the_cli_agrees(client, game, body, status, path):
    response = post(client, game, body)
    assert response.status_code == status
    error = response.get_json()["error"]
    assert error["message"] and error["path"] == path
    out = run("play", game, stdin=body)
    assert out.returncode == 2
    assert json.loads(out.stdout) == response.get_json()


def test_the_door_needs_no_csrf_token_and_refuses_a_huge_body(client):
    assert post(client, "cowboy", {"players": NAMES[:3]}).status_code == 200
    huge = post(client, "cowboy", b"x" * (512 * 1024))
    assert huge.status_code == 413 and huge.get_json()["error"]["message"]


@pytest.mark.parametrize("game", sorted(g for g, game in catalog.GAMES.items() if game.play_state))
def test_every_game_answers_through_both_doors(client, game):
    """A game whose state module is written answers its first state; one not yet
    written answers 404 with the error shape, through both doors alike."""
    count = catalog.GAMES[game].min_players
    body = json.dumps({"players": NAMES[:count], "settings": {}, "taps": []})
    response = post(client, game, body)
    written = importlib.util.find_spec(f"scorekeeper.games.play.{game}") is not None
    if written:
        assert response.status_code == 200, response.get_json()
        state = response.get_json()
        assert STATE_KEYS <= set(state) and state["game"] == game
        assert state["players"] == NAMES[:count] and state["complete"] is False
    else:
        assert response.status_code == 404
        assert response.get_json()["error"]["path"] == "game"
    assert respond(game, body) == (response.get_json(), response.status_code)


@pytest.mark.parametrize("game", sorted(g for g, game in catalog.GAMES.items() if game.play_state))
def test_an_unknown_tap_is_refused_alike_by_every_game(client, game):
    """Every game refuses a tap it has no action for in one sentence: the game's name as
    its record gives it, then its taps, among them every one the state takes now."""
    count = catalog.GAMES[game].min_players
    request = {"players": NAMES[:count], "settings": {}, "taps": []}
    legal = {entry["action"] for entry in play(game, request)["legal"]}
    body = json.dumps({**request, "taps": [{"id": "x", "action": "nope"}]})
    response = post(client, game, body)
    assert response.status_code == 422
    error = response.get_json()["error"]
    assert set(error) == {"message", "path", "tap"}
    assert error["path"] == "taps[0].action" and error["tap"] == 0
    said = f"{catalog.GAMES[game].name} has no tap called “nope”; the taps are "
    assert error["message"].startswith(said) and error["message"].endswith(".")
    listed = error["message"].removeprefix(said).removesuffix(".").split(", ")
    assert legal and legal <= set(listed)
    assert respond(game, body) == (response.get_json(), 422)


def test_cli_reads_stdin_or_a_file(tmp_path, capsys, monkeypatch):
    out = run("play", "cowboy", stdin=json.dumps(TENS))
    assert out.returncode == 0 and json.loads(out.stdout) == play("cowboy", TENS)
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(TENS))
    assert main(["play", "cowboy", "--file", str(path)]) == 0
    assert json.loads(capsys.readouterr().out) == play("cowboy", TENS)
    assert main(["play", "cowboy", "--file", str(tmp_path / "none.json")]) == 2
    printed = capsys.readouterr().out
    assert printed.count("\n") == 1
    assert json.loads(printed)["error"]["message"].startswith("Cannot read ")


def test_play_does_not_import_flask_or_weasyprint():
    code = (
        "import sys, io, json;"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(json.dumps({'players': ['A', 'B', 'C']}).encode()));"
        "from scorekeeper.cli import main;"
        "rc = main(['play', 'cowboy']);"
        "print(rc, sorted(m for m in ('flask', 'weasyprint', 'sqlite_utils', 'waitress') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip().endswith("0 []"), out.stdout + out.stderr


def test_the_protocols_doctests():
    import doctest

    from scorekeeper.games import play as protocol

    assert doctest.testmod(protocol).failed == 0
