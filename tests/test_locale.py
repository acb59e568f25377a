"""Which language a page speaks: ``?lang=``, the phone's choice (cookie), the table's
language, ``Accept-Language``, English — and a bad value changes nothing."""

from __future__ import annotations

import io
import re

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from conftest import Page, start_table

from scorekeeper import i18n

START = "Start a table"


@pytest.fixture
def catalogues(tmp_path, monkeypatch):
    """Tiny catalogues for two languages, so a page shows which one it speaks."""
    said = {"pl": "Załóż stół", "lt": "Pradėti stalą", "sr_Cyrl": "Почни сто", "sk": "Založ stôl"}
    for directory, text in said.items():
        catalog = Catalog(locale=directory.replace("_", "-").split("-")[0])
        catalog.add(START, text)
        out = tmp_path / directory / "LC_MESSAGES"
        out.mkdir(parents=True)
        buffer = io.BytesIO()
        write_mo(buffer, catalog)
        (out / "messages.mo").write_bytes(buffer.getvalue())
    monkeypatch.setattr(i18n, "DIRECTORY", tmp_path)
    i18n.catalogue_for.cache_clear()
    yield said
    i18n.catalogue_for.cache_clear()


def html_lang(html: str) -> str:
    return re.search(r'<html lang="([^"]+)"', html).group(1)


def test_english_without_any_wish(client):
    page = Page(client.get("/"))
    assert html_lang(page.html) == "en" and START in page.html


@pytest.mark.parametrize(
    "header, expected",
    [
        ("pl-PL,pl;q=0.9,en;q=0.8", "pl"),
        ("lt", "lt"),
        ("sk-SK", "sk"),
        ("sr-Latn-RS,sr;q=0.9", "sr-Latn"),
        ("sr-RS", "sr-Cyrl"),  # Serbian without a script: Cyrillic, its default
        ("sr-Cyrl", "sr-Cyrl"),
        ("hr-HR", "sr-Latn"),  # a neighbour reads Serbian Latin
        ("cs-CZ", "sk"),
        ("de-DE,fr;q=0.5", "en"),  # none of ours
        ("de, pl;q=0.3", "pl"),  # ours, asked for after one we lack
        ("x" * 300, "en"),
    ],
)
def test_the_phone_s_accept_language(client, catalogues, header, expected):
    page = Page(client.get("/", headers={"Accept-Language": header}))
    assert html_lang(page.html) == expected
    wanted = catalogues.get(i18n.directory_name(expected), START)
    assert wanted in page.html


def test_lang_in_the_address_wins_and_stays_with_the_page_s_links(client, catalogues):
    client.set_cookie("lang", "lt")
    page = Page(client.get("/?lang=pl", headers={"Accept-Language": "sk"}))
    assert html_lang(page.html) == "pl" and catalogues["pl"] in page.html
    # the form it makes posts in Polish too (a printed code's language is kept)
    assert 'action="/tables?lang=pl"' in page.html


@pytest.mark.parametrize("bad", ["xx", "en-GB-x-" + "a" * 40, "sr-Latn'><script>", "", "PL"])
def test_a_bad_lang_is_ignored_safely(client, bad):
    response = client.get("/", query_string={"lang": bad}, headers={"Accept-Language": "lt"})
    assert response.status_code == 200
    expected = "pl" if bad == "PL" else "lt"  # any case of one of ours is ours
    assert html_lang(response.get_data(as_text=True)) == expected


def test_the_phone_s_choice_is_remembered_and_beats_the_header(client, catalogues):
    home = Page(client.get("/"))
    response = client.post(
        "/language", data={"csrf_token": home.csrf, "language": "sk", "next": "/?lang=pl"}
    )
    assert response.status_code == 303 and response.headers["Location"] == "/"
    assert "lang=sk" in response.headers["Set-Cookie"]
    page = Page(client.get("/", headers={"Accept-Language": "pl"}))
    assert html_lang(page.html) == "sk" and catalogues["sk"] in page.html
    # "Automatic" forgets it: the header speaks again
    client.post("/language", data={"csrf_token": home.csrf, "language": "", "next": "/"})
    assert html_lang(Page(client.get("/", headers={"Accept-Language": "pl"})).html) == "pl"


@pytest.mark.parametrize("next_url", ["https://evil.example/", "//evil.example/x", "/\\evil"])
def test_the_switch_never_sends_a_phone_to_another_site(client, next_url):
    home = Page(client.get("/"))
    response = client.post(
        "/language", data={"csrf_token": home.csrf, "language": "pl", "next": next_url}
    )
    assert response.headers["Location"] == "/"


def test_an_unknown_language_is_refused_and_sets_nothing(client):
    home = Page(client.get("/"))
    response = client.post("/language", data={"csrf_token": home.csrf, "language": "klingon"})
    assert response.status_code == 400
    assert "Choose one of the languages offered." in response.get_data(as_text=True)
    assert "Set-Cookie" not in response.headers or "lang=" not in response.headers["Set-Cookie"]


def test_a_table_speaks_its_language_on_every_phone_without_a_choice(app, client, catalogues):
    url, page = start_table(client, language="lt")
    assert html_lang(page.html) == "lt"
    other = app.test_client()  # a second phone asking for English
    assert html_lang(other.get(url, headers={"Accept-Language": "en"}).get_data(True)) == "lt"
    assert html_lang(other.get(url + "/history").get_data(as_text=True)) == "lt"
    # a phone's own choice, then ?lang=, override it for that phone only
    other.set_cookie("lang", "pl")
    assert html_lang(other.get(url).get_data(as_text=True)) == "pl"
    assert html_lang(other.get(url + "?lang=sk").get_data(as_text=True)) == "sk"
    assert html_lang(client.get(url).get_data(as_text=True)) == "lt"


def test_a_new_table_takes_the_phone_s_language_by_default(client):
    home = Page(client.get("/", headers={"Accept-Language": "pl"}))
    assert re.search(r'<option value="pl" lang="pl" selected>', home.html)
    url, page = start_table(client, language="")  # no choice sent: the phone's
    assert html_lang(page.html) == "en"  # this client sends no Accept-Language


def test_the_table_s_language_can_be_changed_and_every_phone_follows(app, client, store):
    url, page = start_table(client)
    key = url.rsplit("/", 1)[1]
    response = client.post(
        f"/t/{key}/language",
        data={"csrf_token": page.csrf, "language": "sr-Cyrl", "submission_id": "lang-1"},
    )
    assert response.status_code == 303
    (table,) = store.list_tables()
    assert table.language == "sr-Cyrl"
    assert html_lang(app.test_client().get(url).get_data(as_text=True)) == "sr-Cyrl"
    # a bad choice is refused and changes nothing
    refused = client.post(f"/t/{key}/language", data={"csrf_token": page.csrf, "language": "xx"})
    assert refused.status_code == 400 and store.list_tables()[0].language == "sr-Cyrl"


def test_the_watch_link_cannot_change_the_table_s_language(client, store):
    url, page = start_table(client)
    (table,) = store.list_tables()
    response = client.post(
        f"/t/{table.watch_key}/language", data={"csrf_token": page.csrf, "language": "pl"}
    )
    assert response.status_code == 403 and store.list_tables()[0].language == "en"


def test_a_cached_page_is_not_served_in_another_language(app, client, catalogues):
    url, _page = start_table(client)
    english = client.get(url).get_data(as_text=True)
    other = app.test_client()
    other.set_cookie("lang", "pl")
    polish = other.get(url).get_data(as_text=True)
    assert html_lang(english) == "en" and html_lang(polish) == "pl"
    assert html_lang(client.get(url).get_data(as_text=True)) == "en"


def test_an_htmx_request_speaks_the_language_of_the_page_it_came_from(client, catalogues):
    url, _page = start_table(client)
    answer = client.get(url, headers={"HX-Current-URL": "http://localhost" + url + "?lang=lt"})
    assert html_lang(answer.get_data(as_text=True)) == "lt"


def test_the_cli_and_pure_code_speak_english_without_a_request():
    from scorekeeper.errors import RuleError

    assert RuleError("No card left.").message == "No card left."
    token = i18n.speak("pl")
    try:
        assert RuleError("No card left.").message == "No card left."  # not in the catalogue
    finally:
        i18n.stop_speaking(token)


def test_the_translation_layer_s_examples():
    import doctest

    from scorekeeper import cyrillic, errors, messages

    for module in (messages, errors, cyrillic):
        failures, tried = doctest.testmod(module)
        assert tried and not failures, module.__name__


@pytest.mark.parametrize(
    "language, shown",
    [("en", "−1,250"), ("sr-Latn", "−1.250"), ("sk", "−1\u00a0250"), ("pl", "−1\u00a0250")],
)
def test_scores_are_written_as_the_language_writes_numbers(app, language, shown):
    from scorekeeper import messages

    with app.test_request_context(f"/?lang={language}"):
        assert messages.points(-1250) == shown
        assert messages.signed(1250) == "+" + shown[1:]
        assert messages.points(-90) == "−90" and messages.signed(0) == "0"


def test_an_error_page_speaks_the_phone_s_language(client):
    """The app's own catalogues: a 404 and a refused form in Polish and Serbian."""
    missing = client.get("/t/no-such-table?lang=pl")
    assert missing.status_code == 404
    page = missing.get_data(as_text=True)
    assert html_lang(page) == "pl"
    assert i18n.catalogue_for("pl").gettext("Not found") in page
    assert "There is nothing here" not in page
    refused = client.post("/tables?lang=sr-Cyrl", data={"game": "cowboy"})  # no CSRF token
    assert refused.status_code == 400
    assert "Образац" in refused.get_data(as_text=True)  # "the form" in Serbian Cyrillic


def test_game_result_s_reason_speaks_the_asker_s_language_and_the_standings_still_tell(client):
    """The reason is kept as its msgid inside: the API writes it in the asker's
    language, and a Cowboy tie at the target is still told apart in Polish (C-D9)."""
    request = {
        "game": "cowboy",
        "players": ["Ana", "Bojan", "Ceca"],
        "totals": {"Ana": 520, "Bojan": 520, "Ceca": 100},
        "deals": 9,
    }
    english = client.post("/api/v1/score/game-result", json=request).get_json()
    assert english["reason"] == "tie for the highest total at the target: another deal"
    polish = client.post(
        "/api/v1/score/game-result", json=request, headers={"Accept-Language": "pl"}
    ).get_json()
    assert polish["reason"] == i18n.catalogue_for("pl").gettext(english["reason"])
    assert polish["reason"] != english["reason"] and polish["winners"] == []

    from scorekeeper.games import standings
    from scorekeeper.games.standings import Progress

    token = i18n.speak("pl")
    try:
        table = standings.standings(
            "cowboy",
            ["Ana", "Bojan", "Ceca"],
            {"Ana": 520, "Bojan": 520, "Ceca": 100},
            {},
            Progress(deals_played=9),
        )
    finally:
        i18n.stop_speaking(token)
    tie = "Tied for the lead at %(target)s or more: play another deal (C-D9)."
    assert table.message == i18n.catalogue_for("pl").gettext(tie) % {"target": 500}


@pytest.mark.parametrize(
    "language, counts",
    [
        ("en", ["3 or 4", "2 to 6", "2 to 4", "4, 6 or 8"]),
        ("pl", ["3 lub 4", "od 2 do 6", "od 2 do 4", "4, 6 lub 8"]),
        ("sr-Cyrl", ["3 или 4", "2–6", "2–4", "4, 6 или 8"]),
    ],
)
def test_how_many_play_each_game_is_said_in_the_page_s_language(client, language, counts):
    """The home page's "3 or 4 players" under each game, and the refusal of a table
    with too few: the words between the numbers were English in every language."""
    home = Page(client.get(f"/?lang={language}"))
    for said in counts:
        assert said in home.html
    if language != "en":
        assert not re.search(r"\d (or|to) \d", home.html)
    form = {"csrf_token": home.csrf, "game": "cowboy", "player": ["A", "B"]}
    refused = Page(client.post(f"/tables?lang={language}", data=form))
    assert refused.status == 422
    assert counts[0] in refused.html


@pytest.mark.parametrize("tap", ["rounds", "end", "rematch"])
def test_a_refusal_before_the_table_is_read_speaks_the_table_s_language(app, client, store, tap):
    """A tap refused before its view reads the table (an expired form, a body too large)
    is said in the table's language, as every other answer to the table's phones is:
    it was said in the phone's (English) on a Polish table."""
    url, page = start_table(client, language="pl")
    key = url.rsplit("/", 1)[1]
    other = app.test_client()  # its own session: this page's token is not its own
    refused = other.post(
        f"/t/{key}/{tap}", data={"csrf_token": page.csrf}, headers={"HX-Request": "true"}
    )
    assert refused.status_code == 400
    polish = i18n.catalogue_for("pl").gettext(
        "This form is out of date or was not sent by this app. Reload the page and try again."
    )
    assert polish in refused.get_data(as_text=True)
    app.config["MAX_CONTENT_LENGTH"] = 1000
    too_large = client.post(f"/t/{key}/{tap}", data={"csrf_token": page.csrf, "name": "A" * 5000})
    assert too_large.status_code == 413
    page_said = too_large.get_data(as_text=True)
    assert html_lang(page_said) == "pl"
    assert i18n.catalogue_for("pl").gettext("That request is too large.") in page_said
    # a phone's own choice still wins, as on every page of the table
    other.set_cookie("lang", "lt")
    refused = other.post(f"/t/{key}/{tap}", data={"csrf_token": "forged"})
    assert html_lang(refused.get_data(as_text=True)) == "lt"


def test_a_second_language_tapped_on_the_same_page_is_not_taken_for_a_retry(client, store):
    """The table's language buttons share the page's one submission id: Polish tapped,
    then Slovak before the page came back (a slow Wi-Fi), left the table in Polish, the
    Slovak tap answered as a retry of the Polish one. A retry of one choice still
    applies once, and does not undo a later one."""
    url, page = start_table(client)
    key = url.rsplit("/", 1)[1]
    sid = page.submission_id + "-language"

    def choose(language: str):
        data = {"csrf_token": page.csrf, "submission_id": sid, "language": language}
        return client.post(f"/t/{key}/language", data=data)

    assert choose("pl").status_code == 303
    assert store.list_tables()[0].language == "pl"
    assert choose("sk").status_code == 303
    assert store.list_tables()[0].language == "sk"
    version = store.list_tables()[0].version
    assert choose("pl").status_code == 303  # the Polish tap's retry, arriving late
    (table,) = store.list_tables()
    assert table.language == "sk" and table.version == version
