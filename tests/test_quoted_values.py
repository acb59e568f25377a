"""A value a player sent, quoted in a refusal ("“Ana” is typed twice"), is quoted as
the reader's language quotes ("“Ana”" in English, "„Ana”" in Polish, "„Ana“" in
Lithuanian, Slovak and Serbian), never as Python writes a string ('Ana'); and it
never brings a control character into the message as it is (an escape sequence
would act on a terminal, a line break split the line): it is written as its code."""

from __future__ import annotations

import html
import json

import pytest
from conftest import Page, default_first_dealer

from scorekeeper import messages, validate
from scorekeeper.errors import RuleError
from scorekeeper.games import pegs
from scorekeeper.games.play import respond as play_respond

# what no message may carry as it is: C0 and C1 controls, DEL, line and paragraph
# separators, and the marks that turn the direction of the text after them
CONTROLS = [
    *map(chr, range(0x20)),
    *map(chr, range(0x7F, 0xA0)),
    *"\u2028\u2029\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069",
]


def raw_controls(text: str) -> list[str]:
    return [ch for ch in text if ch in CONTROLS]


# ---------------------------------------------------------------- each language's quotes


@pytest.mark.parametrize(
    ("language", "says"),
    [
        ("en", "“Ana” is typed twice: each player needs a different name."),
        ("pl", "Imię „Ana” wpisano dwa razy: każdy gracz potrzebuje innego imienia."),
        ("lt", "Vardas „Ana“ įrašytas du kartus: kiekvienam žaidėjui reikia skirtingo vardo."),
        ("sk", "Meno „Ana“ je zadané dvakrát: každý hráč potrebuje iné meno."),
        ("sr-Latn", "Ime „Ana“ je upisano dvaput: svakom igraču treba drugo ime."),
        ("sr-Cyrl", "Име „Ana“ је уписано двапут: сваком играчу треба друго име."),
    ],
)
def test_the_start_form_quotes_a_name_typed_twice_as_its_language_quotes(
    client, store, language, says
):
    home = Page(client.get(f"/?lang={language}"))
    answer = client.post(
        f"/tables?lang={language}",
        data={
            "csrf_token": home.csrf,
            "submission_id": home.submission_id,
            "game": "cowboy",
            "player": ["Ana", "Bojan", "Ana"],
            "first_dealer": default_first_dealer("cowboy", 3),
        },
    )
    assert answer.status_code == 422
    assert says in html.unescape(" ".join(Page(answer).errors()))
    assert store.list_tables() == []


def test_the_api_quotes_a_player_it_does_not_know_as_the_readers_language_quotes(client):
    request = {"players": ["Ana", "Bob"], "points": {"Ana": 5, "Eve": 1}}
    for language, says in [
        ("en", "“Eve” is not one of the players (Ana, Bob)."),
        ("pl", "„Eve” nie jest jednym z graczy (Ana, Bob)."),
    ]:
        answer = client.post(
            f"/api/v1/score/manual-points?lang={language}",
            data=json.dumps(request),
            content_type="application/json",
        )
        assert answer.status_code == 422
        assert answer.get_json()["error"] == {"message": says, "path": "points.Eve"}


# ---------------------------------------------------------------- no control character


@pytest.mark.parametrize("sent", ["A\nB", "\x1b[2J", "Ana\u202eanA", "\x00", "A\u2028B"])
def test_an_unknown_field_never_brings_a_control_character_into_the_message(client, sent):
    request = {"players": ["Ana", "Bob"], "points": {}, sent: 1}
    answer = client.post(
        "/api/v1/score/manual-points", data=json.dumps(request), content_type="application/json"
    )
    assert answer.status_code == 422
    said = answer.get_json()["error"]["message"]
    assert raw_controls(said) == []
    shown = sent.encode("unicode_escape").decode()
    assert said == f"Unknown field “{shown}” (allowed here: players, points)."


def test_a_player_not_at_the_table_is_shown_with_its_line_break_written_as_its_code():
    with pytest.raises(RuleError) as caught:
        validate.player("Ana\nBob", "winner", ["Ana", "Bob"])
    assert caught.value.message == "“Ana\\nBob” is not one of the players (Ana, Bob)."


def test_a_tap_with_an_escape_sequence_for_its_action_is_refused_without_it():
    tap = {"players": ["A", "B", "C"], "taps": [{"id": "a", "action": "\x1b[31mred"}]}
    body, status = play_respond("cowboy", json.dumps(tap))
    assert status == 422
    said = body["error"]["message"]
    assert said.startswith("Vajoming Kauboj has no tap called “\\x1b[31mred”; the taps are ")
    assert raw_controls(said) == []


def test_a_peg_position_is_quoted_short_and_without_its_controls():
    with pytest.raises(RuleError) as caught:
        pegs.parse_position("T1\n" + "x" * 100)
    said = caught.value.message
    assert said == "“T1\\nxxxxxxxxxxxxxxxxx…” is not a peg position; write S, T<hole> or H1 to H5."


@pytest.mark.parametrize(
    ("sent", "shown"),
    [(5, "5"), (None, "None"), (["Ana"], "['Ana']"), ({"a": "\n"}, "{'a': '\\n'}")],
)
def test_a_value_that_is_not_text_still_reads_as_itself(sent, shown):
    with pytest.raises(RuleError) as caught:
        validate.player(sent, "winner", ["Ana", "Bob"])
    assert caught.value.message == f"“{shown}” is not one of the players (Ana, Bob)."


def test_a_name_is_quoted_as_it_is_emoji_and_all():
    assert messages.quotable("Šćepan 👩\u200d💻") == "Šćepan 👩\u200d💻"


# ---------------------------------------------------------------- fixed words


def api_refusal(client, kind: str, request: dict, language: str) -> dict:
    answer = client.post(
        f"/api/v1/score/{kind}?lang={language}",
        data=json.dumps(request),
        content_type="application/json",
    )
    assert answer.status_code == 422
    return answer.get_json()["error"]


NEITHER_CARD_NOR_HAND = {
    "players": ["Asta", "Milica"],
    "trumps": {"Asta": "C", "Milica": "S"},
    "player": "Milica",
    "top": "JC",
    "out": [],
}


@pytest.mark.parametrize(
    ("language", "says"),
    [
        ("en", "Send either “card” or “hand”."),
        ("pl", "Wyślij „card” albo „hand”."),
        ("lt", "Siųskite arba „card“, arba „hand“."),
        ("sk", "Pošlite buď „card“, alebo „hand“."),
        ("sr-Latn", "Pošalji ili „card“ ili „hand“."),
        ("sr-Cyrl", "Пошаљи или „card“ или „hand“."),
    ],
)
def test_the_api_quotes_a_field_name_as_the_readers_language_quotes(client, language, says):
    """A field name is quoted as a value is, and stays as the request writes it."""
    error = api_refusal(client, "vezimas-beat", NEITHER_CARD_NOR_HAND, language)
    assert error["message"] == says


PEGS_MOVE = {
    "seats": 4,
    "pegs": {
        "0": ["S", "T10", "S", "T69", "S"],
        "1": ["H2", "T14", "S", "T20", "T51"],
        "2": ["T28", "S", "T32", "T3", "S"],
        "3": ["T39", "S", "H2", "T62", "S"],
    },
    "player": 1,
    "card": "3C",
    "steps": [{"seat": 1, "from": "T14", "to": "T17"}],
}


@pytest.mark.parametrize(
    ("language", "says"),
    [
        ("en", "house_rules.nine must be one of “split_forward”, “split_back”, “forward”."),
        ("pl", "house_rules.nine musi być jednym z: „split_forward”, „split_back”, „forward”."),
        (
            "sr-Cyrl",
            "house_rules.nine мора бити једно од: „split_forward“, „split_back“, „forward“.",
        ),
    ],
)
def test_the_api_quotes_the_values_a_setting_takes_as_the_readers_language_quotes(
    client, language, says
):
    request = {**PEGS_MOVE, "house_rules": {"nine": "sideways"}}
    error = api_refusal(client, "pegs-apply", request, language)
    assert error == {"message": says, "path": "house_rules.nine"}


@pytest.mark.parametrize(
    ("language", "says"),
    [("en", "“ZZ” is not a card"), ("pl", "„ZZ” to nie karta"), ("lt", "„ZZ“ nėra korta")],
)
def test_the_api_quotes_what_is_not_a_card_as_the_readers_language_quotes(client, language, says):
    error = api_refusal(client, "pegs-apply", {**PEGS_MOVE, "card": "ZZ"}, language)
    assert error["message"].startswith(says)
    assert error["path"] == "card"


@pytest.mark.parametrize(
    ("language", "says"),
    [
        ("en", "Send either “card” or “hand”."),
        ("pl", "Wyślij „card” albo „hand”."),
        ("sr-Cyrl", "Пошаљи или „card“ или „hand“."),
    ],
)
def test_the_cli_quotes_a_field_name_as_the_readers_language_quotes(
    tmp_path, capsys, language, says
):
    from scorekeeper.cli import main

    request = tmp_path / "beat.json"
    request.write_text(json.dumps(NEITHER_CARD_NOR_HAND))
    assert main(["score", "vezimas-beat", "--lang", language, "--file", str(request)]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["message"] == says
