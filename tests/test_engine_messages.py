"""The engines' sentences are msgids with named variables, translated where they are
read: an engine's refusal, a play state's refusal and a play state's words come out
in the catalogue installed, with their variables filled in; the CLI's ``--lang`` and
the API's Accept-Language reach that catalogue; the English stays as it was."""

from __future__ import annotations

import io
import json

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.support import Translations
from hypothesis import given
from hypothesis import strategies as st

from scorekeeper import api, i18n, messages, validate
from scorekeeper.cli import main
from scorekeeper.errors import RuleError
from scorekeeper.games.play import Refused, replay
from scorekeeper.games.play import respond as play_respond
from scorekeeper.games.play.cowboy import ACTIONS, CowboyDeal
from scorekeeper.games.play.szaman import SzamanDeal
from scorekeeper.messages import Plural, Text

COWBOY_TAPS = ", ".join(ACTIONS)  # what a refusal of an unknown Cowboy tap lists


class Marks:
    """A catalogue that 'translates' every sentence by putting it in «»."""

    def gettext(self, msgid):
        return "«" + msgid + "»"

    def ngettext(self, singular, plural, n):
        return "«" + (singular if n == 1 else plural) + "»"


@pytest.fixture
def marks(monkeypatch):
    catalogue = Marks()
    monkeypatch.setattr(messages, "_current", lambda: catalogue)
    return catalogue


def english(monkeypatch):
    monkeypatch.setattr(messages, "_current", lambda: None)


# ---------------------------------------------------------------- the fake catalogue


def test_an_engine_refusal_is_translated_with_its_variables(marks):
    with pytest.raises(RuleError) as caught:
        api.evaluate("manual-points", {"players": ["Ana"], "points": {}})
    assert caught.value.message == "«This game needs 2 to 8 players; 1 given.»"
    assert caught.value.english == "This game needs 2 to 8 players; 1 given."
    body, status = api.respond("manual-points", json.dumps({"players": ["Ana"], "points": {}}))
    assert (status, body["error"]["message"]) == (422, caught.value.message)


def test_a_word_inside_a_sentence_is_translated_too(marks):
    request = {
        "players": ["Ana", "Ben", "Eva"],
        "player": "Ana",
        "suit": "H",
        "shown": [{"player": "Ben", "suit": "H"}],
    }
    body, status = api.respond("cowboy-marriage", json.dumps(request))
    assert status == 422
    assert body["error"]["message"] == (
        "«The K+Q of «hearts» was already shown this deal; a marriage of one suit can be "
        "shown only once per deal (C-D1).»"
    )


def test_the_kings_a_shot_may_hit_are_listed_in_the_readers_language(monkeypatch):
    """C-D3: several kings in reach are named in one list; its "and" is the reader's."""

    class Serbian(Marks):
        def gettext(self, msgid):
            return "%(first)s i %(last)s" if msgid == "%(first)s and %(last)s" else msgid

    monkeypatch.setattr(messages, "_current", Serbian)
    request = {
        "gun": ["3H", "8C"],
        "victim": {"held": ["KD", "KC", "KH"], "has_gun_drawn": True},
        "turned": "9S",
    }
    reason = api.evaluate("cowboy-shot", request)["reason"]
    assert reason.startswith("KH, KD i KC are of a different suit")


def test_a_shot_refusal_names_the_victim_in_the_readers_language(marks):
    """An ace held without its king: the referee says who holds it in the catalogue's
    words, not in English inside a translated sentence."""
    request = {"gun": ["3H", "8C"], "victim": {"held": ["AD"], "has_gun_drawn": True}}
    with pytest.raises(RuleError) as caught:
        api.evaluate("cowboy-shot", request)
    assert caught.value.message.startswith("««The victim» holds AD without KD;")
    assert caught.value.english.startswith("The victim holds AD without KD;")


def test_an_api_error_of_the_door_itself_is_translated(marks):
    assert api.respond("manual-points", "{")[0]["error"]["message"] == (
        "«The request is not valid JSON.»"
    )
    assert play_respond("cowboy", "{")[0]["error"]["message"] == "«The request is not valid JSON.»"


def test_a_play_state_refusal_is_translated_and_names_its_tap(marks):
    request = {"players": ["Ana", "Ben", "Eva"], "taps": [{"id": "a", "action": "nope"}]}
    body, status = play_respond("cowboy", json.dumps(request))
    assert status == 422
    assert body["error"] == {
        "message": f"««Vajoming Kauboj» has no tap called “nope”; the taps are {COWBOY_TAPS}.»",
        "path": "taps[0].action",
        "tap": 0,
    }


def test_a_refused_start_keeps_the_engines_msgid_not_its_translation(marks):
    with pytest.raises(Refused) as caught:
        replay(CowboyDeal.start(["Ana", "Ben", "Eva"], {}), [{"id": "a", "action": "ace"}])
    assert caught.value.message.startswith("«")
    assert not caught.value.english.startswith("«")
    assert not caught.value.msgid.startswith("«")


def test_a_play_states_words_are_rendered_in_the_language_of_each_answer(monkeypatch):
    shot = [{"id": "a", "action": "shoot", "attacker": 0, "victim": 1, "gun": ["2H", "2D"]}]
    state = replay(CowboyDeal.start(["Ana", "Ben", "Eva"], {}), shot)
    said = "The victim has no cowboy this gun can reach. Tap when the shot is over."
    assert state.to_json()["next"]["text"] == said
    # the same state (the web layer keeps it between taps) answers the next phone in its own
    monkeypatch.setattr(messages, "_current", Marks)
    text = state.to_json()["next"]["text"]
    assert text == "««The victim has no cowboy this gun can reach.» Tap when the shot is over.»"
    json.dumps(state.to_json())  # plain strings only
    english(monkeypatch)
    assert state.to_json()["next"]["text"] == said


def test_a_kept_value_holding_sentences_is_kept_per_language(monkeypatch):
    deal = SzamanDeal.start(["Ana", "Ben", "Eva"], {})
    taps = [
        {"id": "a", "action": "lead", "seat": 0},
        {"id": "b", "action": "card", "seat": 0, "card": "2C"},
        {"id": "c", "action": "card", "seat": 1, "card": "3C"},
        {"id": "d", "action": "card", "seat": 2, "card": "4C"},
    ]
    state = replay(deal, taps)
    first = state.to_json()
    said = "Ana should have 7 cards left at the end of this deal (8 dealt + 0 drawn − 1 played)"
    assert first["score"]["warnings"][0].startswith(said)  # the engine's answer, kept
    monkeypatch.setattr(messages, "_current", Marks)
    marked = state.to_json()
    assert marked["next"]["text"] == "«Trick 2: Eva leads.»"
    assert marked["score"]["warnings"][0].startswith("«Ana should have «7 cards» left at the end")
    english(monkeypatch)
    assert state.to_json() == first


# ---------------------------------------------------------------- plural forms


def polish(entries: dict) -> Translations:
    """A real compiled catalogue, built in memory from a few Polish entries."""
    catalog = Catalog(locale="pl")  # with the locale's own plural forms: three
    for msgid, msgstr in entries.items():
        catalog.add(msgid, msgstr)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return Translations(fp=buffer)


ITEMS = ("%(path)s needs at least %(num)d item.", "%(path)s needs at least %(num)d items.")


def test_plural_picks_the_polish_form_of_each_number(monkeypatch):
    forms = (
        "%(path)s potrzebuje co najmniej %(num)d elementu.",
        "%(path)s potrzebuje co najmniej %(num)d elementów (2-4).",
        "%(path)s potrzebuje co najmniej %(num)d elementów.",
    )
    catalogue = polish({ITEMS: forms})
    assert [catalogue.plural(n) for n in (1, 3, 5, 22, 25)] == [0, 1, 2, 1, 2]
    monkeypatch.setattr(messages, "_current", lambda: catalogue)
    said = {}
    for n in (1, 3, 5, 22, 25, 112):
        with pytest.raises(RuleError) as caught:
            validate.array([], "hand", min_len=n)
        said[n] = caught.value.message
        assert caught.value.english == f"hand needs at least {n} item{'s' if n != 1 else ''}."
    assert said[1] == "hand potrzebuje co najmniej 1 elementu."
    assert said[3] == "hand potrzebuje co najmniej 3 elementów (2-4)."
    assert said[22].endswith("22 elementów (2-4).")
    assert said[5] == "hand potrzebuje co najmniej 5 elementów."
    assert said[25].endswith("25 elementów.") and said[112].endswith("112 elementów.")


def test_plural_asks_the_catalogue_with_both_forms_and_the_number():
    asked = []

    class Recorder:
        def gettext(self, msgid):
            return msgid

        def ngettext(self, singular, plural, n):
            asked.append((singular, plural, n))
            return singular if n == 1 else plural

    assert Plural(*ITEMS, 4, path="hand").render(Recorder()) == "hand needs at least 4 items."
    assert asked == [(*ITEMS, 4)]


# ---------------------------------------------------------------- --lang and Accept-Language

CATALOGUE = {
    "The request is not valid JSON.": "Żądanie nie jest poprawnym JSON-em.",
    "%(game)s has no tap called “%(action)s”; the taps are %(arguments)s.": (
        "%(game)s nie zna dotknięcia „%(action)s”; dotknięcia to %(arguments)s."
    ),
}
PLAYERS = (
    "This game needs %(lo)s to %(num)d player; %(count)s given.",
    "This game needs %(lo)s to %(num)d players; %(count)s given.",
)
PLAYERS_PL = (
    "Ta gra potrzebuje od %(lo)s do %(num)d gracza; podano %(count)s.",
    "Ta gra potrzebuje od %(lo)s do %(num)d graczy (2-4); podano %(count)s.",
    "Ta gra potrzebuje od %(lo)s do %(num)d graczy; podano %(count)s.",
)


@pytest.fixture
def polish_installed(tmp_path, monkeypatch):
    """A tiny compiled Polish catalogue where the app looks for its catalogues."""
    catalog = Catalog(locale="pl")
    for msgid, msgstr in CATALOGUE.items():
        catalog.add(msgid, msgstr)
    catalog.add(PLAYERS, PLAYERS_PL)
    folder = tmp_path / "translations" / "pl" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    with open(folder / "messages.mo", "wb") as out:
        write_mo(out, catalog)
    monkeypatch.setattr(i18n, "DIRECTORY", tmp_path / "translations")
    monkeypatch.setattr(messages, "_current", messages._current)  # put back afterwards
    i18n.catalogue_for.cache_clear()
    yield
    i18n.catalogue_for.cache_clear()


def test_the_cli_score_and_play_speak_lang(polish_installed, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    assert main(["score", "manual-points", "--lang", "pl", "--file", str(bad)]) == 2
    assert (
        json.loads(capsys.readouterr().out)["error"]["message"]
        == CATALOGUE["The request is not valid JSON."]
    )
    few = tmp_path / "few.json"
    few.write_text(json.dumps({"players": ["Ana"], "points": {}}), encoding="utf-8")
    assert main(["score", "manual-points", "--lang", "pl", "--file", str(few)]) == 2
    said = json.loads(capsys.readouterr().out)["error"]["message"]
    assert said == "Ta gra potrzebuje od 2 do 8 graczy; podano 1."
    tap = tmp_path / "tap.json"
    tap.write_text(
        json.dumps({"players": ["A", "B", "C"], "taps": [{"id": "a", "action": "nope"}]}),
        encoding="utf-8",
    )
    assert main(["play", "cowboy", "--lang", "pl", "--file", str(tap)]) == 2
    said = json.loads(capsys.readouterr().out)["error"]["message"]
    assert said == f"Vajoming Kauboj nie zna dotknięcia „nope”; dotknięcia to {COWBOY_TAPS}."
    # English by default, and once the command is over
    assert main(["play", "cowboy", "--file", str(tap)]) == 2
    said = json.loads(capsys.readouterr().out)["error"]["message"]
    assert said == f"Vajoming Kauboj has no tap called “nope”; the taps are {COWBOY_TAPS}."


def test_the_cli_refuses_a_language_it_does_not_speak(capsys):
    with pytest.raises(SystemExit):
        main(["score", "manual-points", "--lang", "de"])
    assert "--lang" in capsys.readouterr().err


def test_the_api_speaks_accept_language_and_lang(polish_installed, client):
    few = json.dumps({"players": ["Ana"], "points": {}})
    polish = "Ta gra potrzebuje od 2 do 8 graczy; podano 1."
    answer = client.post(
        "/api/v1/score/manual-points",
        data=few,
        content_type="application/json",
        headers={"Accept-Language": "pl-PL,pl;q=0.9,en;q=0.5"},
    )
    assert (answer.status_code, answer.get_json()["error"]["message"]) == (422, polish)
    answer = client.post(
        "/api/v1/score/manual-points?lang=pl", data=few, content_type="application/json"
    )
    assert answer.get_json()["error"]["message"] == polish
    # the next request in English is answered in English: nothing kept the Polish
    answer = client.post("/api/v1/score/manual-points", data=few, content_type="application/json")
    assert answer.get_json()["error"]["message"] == "This game needs 2 to 8 players; 1 given."
    tap = json.dumps({"players": ["A", "B", "C"], "taps": [{"id": "a", "action": "nope"}]})
    answer = client.post(
        "/api/v1/play/cowboy",
        data=tap,
        content_type="application/json",
        headers={"Accept-Language": "pl"},
    )
    assert answer.status_code == 422
    said = answer.get_json()["error"]["message"]
    assert said == f"Vajoming Kauboj nie zna dotknięcia „nope”; dotknięcia to {COWBOY_TAPS}."


# ---------------------------------------------------------------- the English stays

names = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


@given(name=names, count=st.integers(-(10**6), 10**6), card=st.sampled_from(["KH", "10S"]))
def test_english_is_the_msgid_filled_with_its_variables(name, count, card):
    msgid = "%(name)s holds %(count)d cards; %(card)r is one."
    error = RuleError(msgid, "held", name=name, count=count, card=card)
    assert error.english == msgid % {"name": name, "count": count, "card": card}
    assert str(error) == error.english == error.message
    assert error.msgid == msgid and error.path == "held"


@given(key=names.filter(lambda k: k not in ("players", "points")))
def test_an_engines_english_refusal_is_its_msgid_filled_in(key):
    with pytest.raises(RuleError) as caught:
        api.evaluate("manual-points", {"players": ["A", "B"], "points": {}, key: 1})
    text = caught.value.text
    filled = {k: v.english() if isinstance(v, Text) else v for k, v in text.variables.items()}
    assert caught.value.english == text.msgid % filled
    shown = messages.quotable(key)
    assert caught.value.english == f"Unknown field “{shown}” (allowed here: players, points)."
    assert messages.refused_character(caught.value.english) is None


def test_a_finished_shots_reason_is_said_in_the_language_of_each_answer(monkeypatch):
    taps = [
        {"id": "a", "action": "shoot", "attacker": 0, "victim": 1, "gun": ["2H", "2D"]},
        {"id": "b", "action": "shot_over"},
    ]
    state = replay(CowboyDeal.start(["Ana", "Ben", "Eva"], {}), taps)
    said = "The victim has no cowboy this gun can reach."
    assert state.to_json()["shots"][0]["reason"] == said
    monkeypatch.setattr(messages, "_current", Marks)
    assert state.to_json()["shots"][0]["reason"] == "«" + said + "»"


@given(st.integers(min_value=-(10**12), max_value=10**12), st.sampled_from(messages.LANGUAGES))
def test_a_number_in_a_sentence_reads_back_as_itself_in_every_language(value, language):
    """``Number`` groups digits as the reader's language does, and nothing else changes:
    the digits read back (Babel's parser, the same locale) as the number given."""
    from babel.numbers import parse_decimal

    cat = i18n.catalogue_for(language)
    written = messages.Number(value).render(cat)
    locale = messages.language_of(cat)
    assert int(parse_decimal(written, locale=locale)) == value
    assert messages.Text("%(count)s", count=messages.Number(value)).render(cat) == written
