"""The web app: start a table, the score pad, undo/redo/edit, validation, the
watch link, CSRF, escaping, rematch, rename, several phones and stale writes."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from urllib.parse import urlparse

import pytest
from conftest import snapshot

HX = {"HX-Request": "true"}
EXAMPLES = Path(__file__).parent / "data" / "examples"


def post_round(client, url, parsed, points, headers=HX, **extra):
    fields = parsed.player_fields()
    data = {
        "csrf_token": parsed.csrf,
        "submission_id": extra.pop("submission_id", parsed.submission_id),
    }
    data.update({field: str(value) for field, value in zip(fields, points, strict=False)})
    shown_round = re.search(r'name="round" value="(\d+)"', parsed.html)
    if shown_round:
        data["round"] = shown_round.group(1)
    data.update(extra)
    return client.post(url + "/rounds", data=data, headers=headers)


def entry_ids(html):
    return [int(x) for x in re.findall(r'data-entry="(\d+)"', html)]


# ---------------------------------------------------------------- home and create


def test_home_offers_every_game_with_its_settings(client, parsed):
    home = parsed(client.get("/"))
    assert home.status == 200
    for name in ("Vajoming Kauboj", "Kvanta", "Vežimas", "Szaman", "Arizona Pegs and Jokers"):
        assert name in home.html
    assert 'name="cowboy-marriage_and_harlot"' in home.html and "C-D7" in home.html
    assert 'name="szaman-target" value="66"' in home.html
    assert 'name="pegs-nine"' in home.html


def test_start_a_table_and_see_players_in_seat_order(new_table):
    url, table = new_table("szaman", ("Ola", "Piotr", "Zosia"))
    assert table.status == 200
    assert list(table.totals()) == ["Ola", "Piotr", "Zosia"]
    assert table.totals() == {"Ola": 0, "Piotr": 0, "Zosia": 0}
    assert "Round 1" in table.html


@pytest.mark.parametrize(
    ("game", "players", "message"),
    [
        ("cowboy", ("Ana", "Bojan"), "3 or 4 players"),
        ("pegs", ("A", "B", "C", "D", "E"), "4, 6 or 8"),
        ("vezimas", ("A", "A"), "different name"),
        # the same name typed twice is no matter of case
        ("cowboy", ("Ana", "Bojan", "Ana"), "“Ana” is typed twice: each player needs a different"),
        ("cowboy", ("Ana", "Bojan", "ana"), "“ana” and “Ana” are one name (case aside)"),
        ("chess", ("A", "B"), "five games"),
        ("kvanta", ("A" * 41, "B"), "at most 40"),
    ],
)
def test_a_bad_start_form_says_why_and_creates_nothing(
    client, parsed, store, game, players, message
):
    home = parsed(client.get("/"))
    response = client.post(
        "/tables",
        data={
            "csrf_token": home.csrf,
            "submission_id": home.submission_id,
            "game": game,
            "player": list(players),
        },
    )
    assert response.status_code == 422
    assert message in html.unescape(" ".join(parsed(response).errors()))
    assert store.list_tables() == []


def test_a_bad_setting_is_refused(client, parsed, store):
    home = parsed(client.get("/"))
    response = client.post(
        "/tables",
        data={
            "csrf_token": home.csrf,
            "game": "szaman",
            "player": ["A", "B"],
            "szaman-deals": "many",
        },
    )
    assert response.status_code == 422
    assert "whole number" in " ".join(parsed(response).errors())
    assert store.list_tables() == []


@pytest.mark.parametrize(
    ("language", "game", "field", "says"),
    [
        ("en", "szaman", "szaman-variant", "Variant: choose one of “Classic”, “Russian”."),
        ("pl", "szaman", "szaman-variant", "Wariant: wybierz jedno z: „Klasyczny”, „Rosyjski”."),
        (
            "en",
            "pegs",
            "pegs-nine",
            "The 9: choose one of “9 forward, may be split forward”, "
            "“9 split: one part forward, one backward”, “9 forward, no split”.",
        ),
    ],
)
def test_a_setting_given_no_option_of_the_form_names_the_options_as_the_form_does(
    client, parsed, store, language, game, field, says
):
    """The refusal named the options by their keys ("classic, russian", "split_forward"),
    words the form never shows."""
    home = parsed(client.get("/", query_string={"lang": language}))
    players = ["A", "B", "C", "D"] if game == "pegs" else ["A", "B"]
    response = client.post(
        "/tables",
        query_string={"lang": language},
        data={"csrf_token": home.csrf, "game": game, "player": players, field: "polish"},
    )
    assert response.status_code == 422
    assert [html.unescape(e) for e in parsed(response).errors()] == [says]
    assert store.list_tables() == []


def test_settings_are_stored_with_the_table(new_table, store):
    new_table("cowboy", ("A", "B", "C"), **{"cowboy-curse_replaces_sixes": "on"})
    (table,) = store.list_tables()
    # an unticked checkbox is off; the ticked one on
    assert table.settings["curse_replaces_sixes"] is True
    assert table.settings["marriage_and_harlot"] is False


def test_a_double_submitted_start_form_makes_one_table(client, parsed, store):
    home = parsed(client.get("/"))
    data = {
        "csrf_token": home.csrf,
        "submission_id": home.submission_id,
        "game": "kvanta",
        "player": ["A", "B"],
    }
    first = client.post("/tables", data=data)
    second = client.post("/tables", data=data)
    assert first.headers["Location"] == second.headers["Location"]
    assert len(store.list_tables()) == 1


# ---------------------------------------------------------------- the score pad


def test_score_pad_rounds_add_up(client, new_table, parsed):
    url, table = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    r1 = parsed(post_round(client, url, table, [12, -3, ""]))
    assert r1.status == 200
    assert r1.totals() == {"Ana": 12, "Bojan": -3, "Ceca": 0}
    r2 = parsed(post_round(client, url, r1, ["5", "−7", "+2"]))
    assert r2.totals() == {"Ana": 17, "Bojan": -10, "Ceca": 2}
    assert "Round 3" in r2.html


def test_a_retried_round_is_stored_once(client, new_table, parsed, store):
    url, table = new_table()
    post_round(client, url, table, [10, 0, 0])
    again = parsed(post_round(client, url, table, [10, 0, 0]))
    assert again.totals()["Ana"] == 10
    assert len(store.entries(store.list_tables()[0].id)) == 1


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("abc", "not a whole number"),
        ("10001", "between −10,000 and 10,000"),  # the engine's own limit, written out
        ("-10001", "between −10,000 and 10,000"),
        ("1.5", "not a whole number"),
        # a whole number, too long for Python to read: it was called "not a whole number"
        ("9" * 5000, "between −10,000 and 10,000"),
        ("-" + "9" * 5000, "between −10,000 and 10,000"),
    ],
    ids=["letters", "above", "below", "fraction", "huge", "hugely-negative"],
)
def test_bad_points_are_shown_next_to_the_field_and_nothing_is_stored(
    client, new_table, parsed, store, value, message
):
    url, table = new_table()
    response = parsed(post_round(client, url, table, ["4", value, ""]))
    assert response.status == 422
    assert any(message in e for e in response.errors())
    # the typed values are kept, the field is marked
    assert 'aria-invalid="true"' in response.html
    assert store.entries(store.list_tables()[0].id) == []


@pytest.mark.parametrize("typed", [["", "", ""], [" ", "", "-"]], ids=["empty", "blank"])
def test_saving_an_empty_pad_saves_nothing_and_says_how_to_enter_a_zero_round(
    client, new_table, parsed, store, typed
):
    """A stray tap on Save with nothing typed is not a round; one where nobody scored
    is typed as 0 (and saved)."""
    url, table = new_table()
    response = parsed(post_round(client, url, table, typed))
    assert response.status == 422
    assert any("no points were typed" in e and "type 0" in e for e in response.errors())
    assert store.entries(store.list_tables()[0].id) == []
    zero = parsed(post_round(client, url, table, ["0", "", ""]))
    assert zero.status == 200
    assert len(store.entries(store.list_tables()[0].id)) == 1


@pytest.mark.parametrize("shown", ["0", "-3"])
def test_a_pad_round_below_the_first_is_refused(client, new_table, parsed, store, shown):
    """The pad names the round it shows, 1 or more: a form naming round 0 or below was
    saved there, a "Set-up" or a "Round -3" row in the history."""
    url, table = new_table()
    response = post_round(client, url, table, [5, 0, 0], round=shown)
    assert response.status_code == 400
    assert store.entries(store.list_tables()[0].id) == []


@pytest.mark.parametrize(
    ("language", "says"),
    [
        (
            "en",
            "Nothing was saved: round 500 is ahead of this table. Enter round 3 or an earlier one.",
        ),
        (
            "pl",
            "Nic nie zapisano: ten stół nie doszedł do rundy 500. Wpisz rundę 3 lub wcześniejszą.",
        ),
    ],
)
def test_a_pad_round_ahead_of_the_table_is_refused(
    client, new_table, parsed, store, language, says
):
    """A form naming a round past the table's next one (round 500 of a table at round 3)
    was saved there, leaving rounds 3 to 499 missing from the history."""
    url, table = new_table(language=language)
    after = parsed(post_round(client, url, table, [5, 0, 0]))
    after = parsed(post_round(client, url, after, [0, 5, 0]))
    before = snapshot(store)
    refused = parsed(post_round(client, url, after, [1, 2, 3], round="500"))
    assert refused.status == 422
    assert [html.unescape(e) for e in refused.errors()] == [says]
    assert snapshot(store) == before
    # the pad comes back at the round that may be entered, with the points typed
    assert 'name="round" value="3"' in refused.html
    typed = re.findall(r'name="points-\d+"\s+value="([^"]*)"', refused.html)
    assert typed == ["1", "2", "3"]
    saved = parsed(post_round(client, url, refused, [1, 2, 3]))
    assert saved.status == 200
    assert [e.round for e in store.entries(store.list_tables()[0].id)] == [1, 2, 3]


def test_full_page_post_without_htmx_redirects_to_the_table(client, new_table, parsed):
    url, table = new_table()
    response = post_round(client, url, table, [1, 2, 3], headers={})
    assert response.status_code == 303
    assert response.headers["Location"].endswith(url)
    assert parsed(client.get(url)).totals() == {"Ana": 1, "Bojan": 2, "Ceca": 3}


def test_htmx_gets_the_board_fragment_and_a_reload_gets_the_page(client, new_table, parsed):
    url, table = new_table()
    fragment = post_round(client, url, table, [1, 2, 3]).get_data(as_text=True)
    assert fragment.startswith('<div id="board"') and "<html" not in fragment
    assert "<html" in client.get(url).get_data(as_text=True)


# ---------------------------------------------------------------- undo, redo, edit


def test_undo_redo_and_edit_a_round(client, new_table, parsed):
    url, table = new_table()
    after = parsed(post_round(client, url, table, [10, 0, 0]))
    after = parsed(post_round(client, url, after, [1, 1, 1]))
    first, second = sorted(entry_ids(after.html))
    undone = parsed(
        client.post(f"{url}/entries/{first}/undo", data={"csrf_token": after.csrf}, headers=HX)
    )
    assert undone.totals() == {"Ana": 1, "Bojan": 1, "Ceca": 1}
    assert "undone" in undone.html
    redone = parsed(
        client.post(f"{url}/entries/{first}/redo", data={"csrf_token": after.csrf}, headers=HX)
    )
    assert redone.totals() == {"Ana": 11, "Bojan": 1, "Ceca": 1}

    edit = parsed(client.get(f"{url}/entries/{second}/edit", headers=HX))
    assert "Edit round 2" in edit.html
    assert f'name="supersedes" value="{second}"' in edit.html
    edited = parsed(post_round(client, url, edit, [2, 2, 2], supersedes=str(second), round="2"))
    assert edited.totals() == {"Ana": 12, "Bojan": 2, "Ceca": 2}
    assert "edited" in edited.html


def notice(response) -> str:
    return " ".join(re.findall(r'class="flash ok">([^<]+)<', response.get_data(as_text=True)))


def test_the_undo_notice_says_whether_the_round_or_a_step_of_it_was_undone(
    client, new_table, parsed
):
    """The game's end is kept in the last round played: undone, that round's score stays,
    so the notice names what was undone; a round's one row undone is the round."""
    url, table = new_table("vezimas", ("Asta", "Jonas", "Rūta"))
    p = parsed(post_round(client, url, table, [0, 1, 0]))
    (pad,) = entry_ids(p.html)
    ended = parsed(client.post(f"{url}/end", data={"csrf_token": p.csrf}, headers=HX))
    end = max(entry_ids(ended.html))

    def action(what, entry_id):
        return client.post(
            f"{url}/entries/{entry_id}/{what}",
            data={"csrf_token": p.csrf, "submission_id": f"{what}-{entry_id}"},
            headers=HX,
        )

    assert notice(action("undo", end)) == "Round 1: Game ended undone."
    assert notice(action("undo", pad)) == "Round 1 undone."
    assert notice(action("redo", pad)) == "Round 1 restored."
    assert notice(action("redo", end)) == "Round 1: Game ended restored."


def test_a_stale_edit_is_refused_with_a_clear_message(client, new_table, parsed):
    url, table = new_table()
    after = parsed(post_round(client, url, table, [10, 0, 0]))
    (entry,) = entry_ids(after.html)
    phone_a = parsed(client.get(f"{url}/entries/{entry}/edit", headers=HX))
    phone_b = parsed(client.get(f"{url}/entries/{entry}/edit", headers=HX))
    ok = parsed(post_round(client, url, phone_a, [20, 0, 0], supersedes=str(entry), round="1"))
    assert ok.totals()["Ana"] == 20
    late = parsed(post_round(client, url, phone_b, [30, 0, 0], supersedes=str(entry), round="1"))
    assert late.status == 409
    assert "changed on another phone" in " ".join(late.errors())
    assert late.totals()["Ana"] == 20  # nothing was overwritten


def test_a_round_undone_twice_is_named_a_round(client, new_table, parsed):
    """A Cowboy table's refusals keep naming rounds (a Pegs table's name turns)."""
    url, table = new_table("cowboy")
    after = parsed(post_round(client, url, table, [10, 0, 0]))
    (entry,) = entry_ids(after.html)
    for submission_id, status in (("u1", 200), ("u2", 409)):
        late = client.post(
            f"{url}/entries/{entry}/undo",
            data={"csrf_token": table.csrf, "submission_id": submission_id},
            headers=HX,
        )
        assert late.status_code == status
    said = late.get_data(as_text=True)
    assert "Round 1 was already undone or changed on another phone." in said


def test_two_phones_entering_the_same_round_store_it_once(client, new_table, parsed):
    url, table = new_table()
    phone_b = parsed(client.get(url))
    parsed(post_round(client, url, table, [10, 0, 0]))
    late = parsed(post_round(client, url, phone_b, [7, 0, 0]))
    assert late.status == 409
    assert "just entered on another phone" in " ".join(late.errors())
    assert late.totals()["Ana"] == 10


# ---------------------------------------------------------------- several phones


def test_the_poll_is_cheap_until_something_changes(client, new_table, parsed):
    url, table = new_table()
    version = re.search(r'data-version="(\d+)"', table.html).group(1)
    unchanged = client.get(f"{url}/live?v={version}")
    assert unchanged.status_code == 200 and unchanged.get_data() == b""
    post_round(client, url, table, [3, 0, 0])
    changed = client.get(f"{url}/live?v={version}")
    assert changed.status_code == 200
    body = changed.get_data(as_text=True)
    assert 'id="standings" hx-swap-oob="true"' in body and ">3<" in body
    # the numbers being typed on the pad are never swapped out
    assert 'name="points-' not in body


def test_an_unchanged_poll_answered_before_flask_is_the_views_own_answer(
    app, client, new_table, monkeypatch
):
    """``UnchangedPoll`` answers an unchanged table's poll without the app: the same
    status, body and headers as ``live`` gives, and nothing else is answered by it."""
    url, table = new_table()
    version = re.search(r'data-version="(\d+)"', table.html).group(1)
    seen = []
    inner = app.wsgi_app.wsgi_app

    def counted(environ, start_response):
        seen.append(environ["PATH_INFO"])
        return inner(environ, start_response)

    monkeypatch.setattr(app.wsgi_app, "wsgi_app", counted)
    fast = client.get(f"{url}/live?v={version}")
    assert seen == []  # the app never saw it
    monkeypatch.setattr(app, "wsgi_app", counted)  # now through Flask, as before
    slow = client.get(f"{url}/live?v={version}")
    assert seen == [f"{urlparse(url).path}/live"]
    assert (fast.status_code, fast.get_data()) == (slow.status_code, slow.get_data()) == (200, b"")
    assert sorted(fast.headers.items()) == sorted(slow.headers.items())
    monkeypatch.undo()
    seen.clear()
    monkeypatch.setattr(app.wsgi_app, "wsgi_app", counted)
    # another version, a key no table has, another query: the app answers them
    assert client.get(f"{url}/live?v={int(version) + 1}").get_data() != b""
    assert client.get(f"/t/{'x' * 22}/live?v=1").status_code == 404
    assert client.get(f"{url}/live?v={version}&x=1").status_code == 200
    assert len(seen) == 3


def test_a_board_answer_moves_the_poll_on_to_its_version(client, new_table, store):
    """The board comes whole, at one version, with the poll's marker: the poll then
    does not fetch back what this phone just drew."""
    url, table = new_table()
    body = post_round(client, url, table, [4, 0, 0]).get_data(as_text=True)
    version = store.version(store.list_tables()[0].id)
    assert f'data-version="{version}"' in body
    assert body.count('id="live"') == 1
    assert f'<div id="live" hx-swap-oob="true" hx-get="{url}/live?v={version}"' in body
    assert client.get(f"{url}/live?v={version}").get_data() == b""
    # the full page keeps its own marker, once, not out of band
    page = client.get(url).get_data(as_text=True)
    assert page.count('id="live"') == 1 and 'id="live" hx-swap-oob' not in page


# ---------------------------------------------------------------- access


def watch_url_of(table_page_html):
    # the scorer parsed lists the scorer link first, then the watch link
    return re.findall(r'data-copy="http://[^/]+(/t/[^"]+)"', table_page_html)[-1]


def test_the_watch_link_shows_everything_and_can_change_nothing(client, new_table, parsed, store):
    url, table = new_table()
    after = parsed(post_round(client, url, table, [5, 0, 0]))
    (entry,) = entry_ids(after.html)
    watch = watch_url_of(parsed(client.get(url)).html)
    assert watch != url
    view = parsed(client.get(watch))
    assert view.totals()["Ana"] == 5
    assert "Watching" in view.html
    assert 'name="points-' not in view.html and "Undo" not in view.html
    assert "Scorer link" not in view.html  # the secret link is not shown to watchers
    csrf = view.csrf if 'name="csrf_token"' in view.html else table.csrf
    player = store.players(store.list_tables()[0].id)[0].id
    writes = [
        ("/rounds", {"points-1": "9"}),
        (f"/entries/{entry}/undo", {}),
        (f"/entries/{entry}/redo", {}),
        ("/end", {}),
        (f"/players/{player}/name", {"name": "Hacker"}),
        (f"/players/{player}/move", {"seat": "1"}),
        ("/rematch", {}),
    ]
    before = [(e.id, e.state) for e in store.entries(store.list_tables()[0].id)]
    for path, data in writes:
        response = client.post(watch + path, data={"csrf_token": csrf, **data})
        assert response.status_code == 403, path
        assert "watch link" in response.get_data(as_text=True)
    for path in ("/export.json", "/export.csv", f"/entries/{entry}/edit"):
        assert client.get(watch + path).status_code == 403, path
    assert [(e.id, e.state) for e in store.entries(store.list_tables()[0].id)] == before
    assert len(store.list_tables()) == 1
    assert store.players(store.list_tables()[0].id)[0].name == "Ana"


def test_forms_without_a_csrf_token_are_refused(client, new_table, parsed, store):
    url, table = new_table()
    fields = table.player_fields()
    response = client.post(url + "/rounds", data={fields[0]: "5"}, headers=HX)
    assert response.status_code == 400
    assert "Reload the page" in response.get_data(as_text=True)
    response = client.post("/tables", data={"game": "kvanta", "player": ["A", "B"]})
    assert response.status_code == 400
    assert len(store.list_tables()) == 1
    assert store.entries(store.list_tables()[0].id) == []


def test_csrf_token_in_the_htmx_header_is_accepted(client, new_table, parsed):
    url, table = new_table()
    fields = table.player_fields()
    response = client.post(
        url + "/rounds",
        data={fields[0]: "5", "submission_id": "hdr"},
        headers={**HX, "X-CSRFToken": table.csrf},
    )
    assert response.status_code == 200


def test_unknown_links_are_404_without_leaking(client):
    response = client.get("/t/not-a-table")
    assert response.status_code == 404
    body = response.get_data(as_text=True)
    assert "Traceback" not in body and "copied whole" in body


def test_a_player_name_with_markup_is_shown_as_text(client, new_table, parsed):
    evil = '<img src=x onerror="alert(1)">'
    url, table = new_table("kvanta", (evil, "Bo"))
    assert evil not in table.html
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in table.html


# ---------------------------------------------------------------- players and rematch


def test_rename_any_time(client, new_table, parsed, store):
    url, table = new_table()
    after = parsed(post_round(client, url, table, [5, 0, 0]))
    pid = store.players(store.list_tables()[0].id)[0].id
    renamed = parsed(
        client.post(
            f"{url}/players/{pid}/name",
            data={"csrf_token": after.csrf, "name": "Anica"},
            headers=HX,
        )
    )
    assert renamed.totals() == {"Anica": 5, "Bojan": 0, "Ceca": 0}
    # a second rename from the same page is a new change, not a retry of the first
    again = parsed(
        client.post(
            f"{url}/players/{pid}/name",
            data={"csrf_token": after.csrf, "name": "Ana B."},
            headers=HX,
        )
    )
    assert again.totals() == {"Ana B.": 5, "Bojan": 0, "Ceca": 0}
    blank = client.post(
        f"{url}/players/{pid}/name", data={"csrf_token": after.csrf, "name": " "}, headers=HX
    )
    assert blank.status_code == 422


@pytest.mark.parametrize(
    ("language", "name", "says"),
    [
        ("en", "Bob!", "Renamed to “Bob!”."),
        ("en", "Ana?", "Renamed to “Ana?”."),
        ("en", "Ceca…", "Renamed to “Ceca…”."),
        ("en", "Ana B.", "Renamed to “Ana B.”."),
        ("pl", "Bob!", "Nowe imię: „Bob!”."),
        ("lt", "Ana?", "Pervadinta: „Ana?“."),
    ],
)
def test_the_rename_notice_keeps_the_name_s_own_punctuation_apart(
    client, new_table, parsed, store, language, name, says
):
    """The notice ended the name with a period of its own: "Renamed to Bob!."."""
    url, table = new_table(language=language)
    pid = store.players(store.list_tables()[0].id)[0].id
    renamed = client.post(
        f"{url}/players/{pid}/name", data={"csrf_token": table.csrf, "name": name}, headers=HX
    )
    assert renamed.status_code == 200
    assert html.unescape(notice(renamed)) == says


def test_reorder_until_the_first_round(client, new_table, parsed, store):
    url, table = new_table()
    tid = store.list_tables()[0].id
    ceca = store.players(tid)[2].id
    client.post(f"{url}/players/{ceca}/move", data={"csrf_token": table.csrf, "seat": "1"})
    assert [p.name for p in store.players(tid)] == ["Ana", "Ceca", "Bojan"]
    # a retried tap lands on the same seat: nobody moves twice
    client.post(f"{url}/players/{ceca}/move", data={"csrf_token": table.csrf, "seat": "1"})
    assert [p.name for p in store.players(tid)] == ["Ana", "Ceca", "Bojan"]
    post_round(client, url, parsed(client.get(url)), [1, 0, 0])
    refused = client.post(
        f"{url}/players/{ceca}/move", data={"csrf_token": table.csrf, "seat": "0"}, headers=HX
    )
    assert refused.status_code == 409
    assert [p.name for p in store.players(tid)] == ["Ana", "Ceca", "Bojan"]


def test_rematch_starts_a_fresh_table_with_the_same_players(client, new_table, parsed, store):
    url, table = new_table("szaman", ("Ola", "Piotr"), **{"szaman-deals": "3"})
    post_round(client, url, table, [5, 1])
    response = client.post(
        f"{url}/rematch", data={"csrf_token": table.csrf, "submission_id": "rm-1"}
    )
    assert response.status_code == 303
    fresh = parsed(client.get(response.headers["Location"]))
    assert fresh.totals() == {"Ola": 0, "Piotr": 0}
    tables = sorted(store.list_tables(), key=lambda t: t.id)
    assert len(tables) == 2
    # the deal passes on: Piotr, who was to deal the second deal, deals the rematch's first
    assert tables[0].settings["first_dealer"] == 0 and tables[1].settings["first_dealer"] == 1
    assert {**tables[0].settings, "first_dealer": 1} == tables[1].settings
    assert re.search(r'Piotr <span class="badge dealer" title="Deals next">', fresh.html)


def test_a_rematch_is_named_apart_from_the_table_it_follows(client, new_table, parsed, store):
    """The recent tables' list showed two "Friday"s a player could not tell apart."""
    url, table = new_table("kvanta", ("Ana", "Bojan"), name="Friday")
    names = []
    for number in range(2):
        response = client.post(
            f"{url}/rematch", data={"csrf_token": table.csrf, "submission_id": f"rm-{number}"}
        )
        url = response.headers["Location"]
        table = parsed(client.get(url))
        names.append(re.search(r'<h1 class="table-name">(.*?)</h1>', table.html)[1])
        assert f'data-name="{names[-1]}"' in table.html  # what the recent tables' list shows
    assert names == ["Friday (2)", "Friday (3)"]


def test_a_rematch_of_a_table_without_a_name_is_named_as_a_new_one(client, new_table, store):
    url, table = new_table("kvanta", ("Ana", "Bojan"), language="pl")
    (started,) = store.list_tables()
    store.db.execute("UPDATE tables SET name = '' WHERE id = ?", [started.id])
    response = client.post(f"{url}/rematch", data={"csrf_token": table.csrf, "submission_id": "rm"})
    assert response.status_code == 303
    again = max(store.list_tables(), key=lambda t: t.id)
    assert again.name == started.name + " (2)"  # "Kvanta, <today>", as the table began


def test_a_cowboy_rematch_is_dealt_first_by_the_player_on_the_right(client, new_table, store):
    """Cowboy's deal passes to the right: after one deal dealt by Ana, Ceca deals next,
    so she deals the rematch's first deal."""
    url, table = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    post_round(client, url, table, [40, 0, 0])
    client.post(f"{url}/rematch", data={"csrf_token": table.csrf, "submission_id": "rm-cb"})
    first, again = sorted(store.list_tables(), key=lambda t: t.id)
    assert (first.settings["first_dealer"], again.settings["first_dealer"]) == (0, 2)


# ---------------------------------------------------------------- end conditions on the parsed


def test_cowboy_match_ends_at_500(client, new_table, parsed):
    url, table = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    done = parsed(post_round(client, url, table, [510, 200, 0]))
    assert "Ana wins with 510" in done.html
    assert 'id="pad"' not in done.html


def test_szaman_ends_after_the_set_deals_closest_to_66(client, new_table, parsed):
    url, table = new_table("szaman", ("Ola", "Piotr"), **{"szaman-deals": "2"})
    p = parsed(post_round(client, url, table, [30, 40]))
    p = parsed(post_round(client, url, p, [30, 40]))
    assert "Ola wins" in p.html  # 60 is closer to 66 than 80


def test_vezimas_fewest_carts_and_the_loser_deals(client, new_table, parsed):
    url, table = new_table("vezimas", ("Asta", "Jonas", "Rūta"))
    p = parsed(post_round(client, url, table, [0, 1, 0]))
    assert re.search(r"Jonas <span class=\"badge dealer\"", p.html)
    ended = parsed(client.post(f"{url}/end", data={"csrf_token": p.csrf}, headers=HX))
    assert "Asta and Rūta share the win" in ended.html


def test_the_winner_s_total_is_written_as_the_standings_write_it(client, new_table, parsed):
    """Kvanta's equal top totals cancel (K-D7): the winner may stand below zero, and
    the banner wrote "-3" with a hyphen and 1250 ungrouped where the standings say
    "−3" and "1,250"."""
    url, table = new_table("kvanta", ("Ana", "Bojan", "Ceca"))
    p = parsed(post_round(client, url, table, [10, 10, -3]))
    ended = parsed(client.post(f"{url}/end", data={"csrf_token": p.csrf}, headers=HX))
    assert "Ceca wins with −3 (K-D7)" in ended.html
    url, table = new_table("kvanta", ("Ana", "Bojan"))
    p = parsed(post_round(client, url, table, [1250, 5]))
    ended = parsed(client.post(f"{url}/end", data={"csrf_token": p.csrf}, headers=HX))
    assert "Ana wins with 1,250 (K-D7)" in ended.html


def test_ending_a_game_that_is_over_says_so(client, new_table, parsed, store):
    """A phone still showing "End the game" after another phone (or a game screen's tap)
    ended the game was told "Round 1 was just entered on another phone; nothing was
    saved. Check the history …": the game's end is not a round, and the history holds
    nothing to check. It is told the game is over, and nothing is stored."""
    url, table = new_table("kvanta", ("Ana", "Bojan"))
    phone_a = parsed(post_round(client, url, table, [10, 4]))
    phone_b = parsed(client.get(url))
    ended = parsed(client.post(f"{url}/end", data={"csrf_token": phone_b.csrf}, headers=HX))
    assert "Ana wins" in ended.html
    entries = len(store.entries(store.list_tables()[0].id))
    late = parsed(
        client.post(
            f"{url}/end",
            data={"csrf_token": phone_a.csrf, "submission_id": phone_a.submission_id + "-end"},
            headers=HX,
        )
    )
    assert late.status == 409
    assert "The game is over." in late.errors() and "another phone" not in late.html
    assert len(store.entries(store.list_tables()[0].id)) == entries


@pytest.mark.parametrize("game", ["cowboy", "szaman", "pegs"])
def test_a_game_its_rules_end_cannot_be_ended_by_hand(client, new_table, parsed, store, game):
    """Only Vežimas and Kvanta offer "End the game": a post to it on another game's
    table (made by hand, or by an old page) is refused, saying why, and stores nothing."""
    url, table = new_table(game, ("Ana", "Bojan", "Ceca", "Dule"))
    version = store.version(store.list_tables()[0].id)
    ended = parsed(client.post(f"{url}/end", data={"csrf_token": table.csrf}, headers=HX))
    assert ended.status == 409
    assert "ends by its own rules" in " ".join(ended.errors())
    assert store.entries(store.list_tables()[0].id) == []
    assert store.version(store.list_tables()[0].id) == version


def test_a_score_pad_left_on_a_phone_adds_no_round_to_a_game_that_is_over(
    client, new_table, parsed, store
):
    """The pad a phone still showed when the game ended elsewhere saved a round after
    the end, and the totals of a finished game moved. It is refused; a round of the
    pad is still changed (a correction), and once the end is undone, rounds are added."""
    url, table = new_table("kvanta", ("Ana", "Bojan"))
    phone_a = parsed(post_round(client, url, table, [10, 4]))
    parsed(client.post(f"{url}/end", data={"csrf_token": phone_a.csrf}, headers=HX))
    late = parsed(post_round(client, url, phone_a, [3, 3]))
    assert late.status == 409
    assert late.errors() == ["The game is over. Undo its end in the history to play on."]
    assert late.totals() == {"Ana": 10, "Bojan": 4}
    (first,) = [e for e in store.entries(store.list_tables()[0].id) if e.kind == "manual-points"]
    fixed = parsed(
        post_round(
            client, url, phone_a, [9, 4], supersedes=str(first.id), round="1", submission_id="fix"
        )
    )
    assert fixed.status == 200 and fixed.totals() == {"Ana": 9, "Bojan": 4}


def test_security_headers_on_every_page(client, new_table):
    url, _table = new_table()
    for path in ("/", url, "/static/app.css", "/t/nope"):
        response = client.get(path)
        csp = response.headers["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["Referrer-Policy"] == "no-referrer"


def test_manifest_and_icons_for_the_home_screen(client):
    manifest = client.get("/manifest.webmanifest").get_json(force=True)
    assert manifest["display"] == "standalone"
    for icon in manifest["icons"]:
        assert client.get(icon["src"]).status_code == 200


def test_the_table_page_shows_the_latest_rounds_and_links_to_all(client, new_table, parsed, store):
    url, table = new_table("kvanta", ("Ana", "Bojan"))
    tid = store.list_tables()[0].id
    ana = store.players(tid)[0].id
    for n in range(1, 26):
        store.add_entry(tid, n, "manual-points", {}, {"points": {}}, {ana: n})
    page = parsed(client.get(url))
    shown = [int(r) for r in re.findall(r'class="round[^"]*" data-round="(\d+)"', page.html)]
    assert shown == list(range(25, 5, -1))  # the latest 20, newest first
    assert page.totals()["Ana"] == sum(range(1, 26))  # totals still count every round
    assert "Show all 5 earlier rounds" in page.html
    full = parsed(client.get(url + "/history"))
    assert len(re.findall(r'class="round[^"]*" data-round=', full.html)) == 25


def test_home_says_how_many_play_each_game(client):
    html = client.get("/").get_data(as_text=True)
    assert "3 or 4 players" in html and "4, 6 or 8 players" in html and "2 to 6 players" in html


# ---------------------------------------------------------------- a refused start, in view


def post_start(client, parsed, game, names, **fields):
    home = parsed(client.get("/"))
    data = {"csrf_token": home.csrf, "submission_id": home.submission_id, "game": game}
    data.update(fields)
    data["player"] = list(names)
    return parsed(client.post("/tables", data=data))


def test_a_refused_start_says_why_first_and_marks_and_focuses_the_field(client, parsed, store):
    """One name for Cowboy: the reasons open the page, above the recent tables and the
    form, and the next empty seat is marked invalid and focused."""
    page = post_start(client, parsed, "cowboy", ["Ana", "", "", ""])
    assert page.status == 422
    summary = page.html.index('id="form-errors"')
    assert (
        summary < page.html.index('id="recent-card"') < page.html.index('<form class="card start"')
    )
    assert "3 or 4 players" in page.html[summary : page.html.index('id="recent-card"')]
    second = re.search(r'<input[^>]*id="player-2"[^>]*>', page.html).group(0)
    assert 'aria-invalid="true"' in second and "autofocus" in second
    first = re.search(r'<input[^>]*id="player-1"[^>]*>', page.html).group(0)
    assert "aria-invalid" not in first and 'value="Ana"' in first
    assert page.html.count("autofocus") == 1
    assert store.list_tables() == []


def test_a_blank_seat_between_names_is_refused_not_closed_up(client, parsed, store):
    """Closing the gap would move Dule to seat 3 and make "Player 4" (the dealer
    chosen) a seat that no longer exists: the blank is refused, naming the seat."""
    page = post_start(client, parsed, "cowboy", ["Ana", "Bojan", "", "Dule"], first_dealer="3")
    assert page.status == 422
    assert "Seat 3 has no name" in " ".join(page.errors())
    third = re.search(r'<input[^>]*id="player-3"[^>]*>', page.html).group(0)
    assert 'aria-invalid="true"' in third and "autofocus" in third
    assert store.list_tables() == []
    # blanks after the last name are only the seats nobody sits in
    ok = client.post(
        "/tables",
        data={
            "csrf_token": page.csrf,
            "game": "cowboy",
            "player": ["Ana", "Bojan", "Ceca", "", "", ""],
            "first_dealer": "2",
        },
    )
    assert ok.status_code == 303
    (table,) = store.list_tables()
    assert [p.name for p in store.players(table.id)] == ["Ana", "Bojan", "Ceca"]
    assert table.settings["first_dealer"] == 2


def test_the_first_dealer_menu_shows_the_names_typed(client, parsed):
    page = post_start(client, parsed, "cowboy", ["Ana", "Bojan"], first_dealer="1")
    menu = re.search(r'<select name="first_dealer".*?</select>', page.html, re.S).group(0)
    assert '<option value="1" selected>Bojan</option>' in menu
    assert '<option value="0" >Ana</option>' in menu and ">Player 3<" in menu


# ---------------------------------------------------------------- minus signs, breakdowns, chart


def test_negative_points_print_a_minus_sign(client, new_table, parsed):
    url, table = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    page = parsed(post_round(client, url, table, [-90, 30, 0]))
    standings = page.html[page.html.index('id="standings"') : page.html.index("</section>")]
    assert 'data-player="Ana">−90<' in standings and "-90" not in standings
    history = page.html[page.html.index('id="history"') :]
    assert "<strong>−90</strong>" in history and "<strong>+30</strong>" in history
    assert ">-90<" not in history


def test_the_history_opens_each_deal_to_its_breakdown_and_running_totals(
    client, new_table, parsed, store
):
    """Why did Ana get +10? The stored result says: marriage +25, ended +30, a six
    −20, a harlot −25 (the engine's items, not worked out again by the page)."""
    case = json.loads(EXAMPLES.joinpath("cowboy-deal.json").read_text())[0]
    names = case["request"]["players"]
    url, _table = new_table("cowboy", names)
    tid = store.list_tables()[0].id
    ids = {p.name: p.id for p in store.players(tid)}
    result = case["response"]
    points = {ids[n]: r["total"] for n, r in result["players"].items() if r["total"]}
    store.add_entry(tid, 1, "manual-points", {}, {}, {ids["Ana"]: -50})
    store.add_entry(tid, 2, "cowboy-deal", case["request"], result, points)
    page = parsed(client.get(url))
    why = re.search(r'<details class="round-why".*?</details>', page.html, re.S).group(0)
    assert "Marriage shown (K+Q of one suit) +25" in why
    assert "Ended the deal +30" in why and "Six held −20" in why
    assert "Harlot (a queen held) −25" in why and "= +10" in why
    assert "Milica: 10 laid out ×4 +40; Six held −20 = +20" in why
    assert "Ana ended the deal (all four aces out)." in why
    deal = page.html[page.html.index('data-round="2"') :]
    # Ana: −50 after round 1, +10 in the deal: −40 after it
    assert re.search(r'title="Ana">Ana</span> <strong>\+10</strong> <small[^>]*>= −40<', deal)
    round_one = page.html[page.html.index('data-round="1"') :]
    assert re.search(r'title="Ana">Ana</span> <strong>−50</strong> <small[^>]*>= −50<', round_one)


def test_a_page_of_the_history_carries_the_totals_of_the_rounds_after_it(
    client, new_table, parsed, store
):
    """Every page of a long history shows the totals after each of its rounds, the
    undone ones counted out, whether it lies nearer the table's start or its end."""
    url, _table = new_table("kvanta", ("Ana", "Bojan"))
    tid = store.list_tables()[0].id
    ana, bojan = (p.id for p in store.players(tid))
    after, running = {}, 0
    for n in range(1, 161):
        out = store.add_entry(tid, n, "manual-points", {}, {"points": {}}, {ana: n, bojan: -1})
        if n % 7 == 0:
            store.void_entry(tid, out["entry_id"])
        else:
            running += n
        after[n] = running
    link = url + "/history"
    pages = 0
    while link:
        page = parsed(client.get(link))
        shown = re.findall(
            r'data-round="(\d+)".*?title="Ana">Ana</span> <strong>[^<]+</strong>'
            r"(?: <small[^>]*>= ([^<]+)<)?",
            page.html,
            re.S,
        )
        assert shown
        for round_no, total in shown:
            n = int(round_no)
            assert total == ("" if n % 7 == 0 else f"{after[n]:,d}"), n
        pages += 1
        found = re.search(r'rel="next" href="([^"]+)"', page.html)
        link = found.group(1).replace("&amp;", "&") if found else None
    assert pages == 4
    assert "rounds 1–10" in page.html  # the chart of an older page says what it draws


def test_the_table_page_draws_the_totals_after_each_round(client, new_table, parsed, store):
    url, table = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    assert '<svg class="totals-chart"' not in table.html  # no rounds, no chart
    p = parsed(post_round(client, url, table, [-90, 30, 0]))
    p = parsed(post_round(client, url, p, [20, 30, 0]))
    chart = re.search(r'<svg class="totals-chart".*?</svg>', p.html, re.S).group(0)
    assert chart.count("<polyline") == 3
    assert "<title>Ana: −70</title>" in chart and "<title>Bojan: 60</title>" in chart
    assert "latest" not in chart  # every round is drawn
    tid = store.list_tables()[0].id
    ana = store.players(tid)[0].id
    for n in range(3, 40):
        store.add_entry(tid, n, "manual-points", {}, {"points": {}}, {ana: 1})
    long = parsed(client.get(url))
    assert "the latest 20 rounds" in long.html


def test_the_winner_banner_offers_a_rematch_and_a_new_game(client, new_table, parsed):
    url, table = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    done = parsed(post_round(client, url, table, [510, 200, 0]))
    banner = done.html[done.html.index('id="standings"') : done.html.index("</section>")]
    assert "Ana wins with 510" in banner
    assert f'action="{url}/rematch"' in banner and ">Rematch</button>" in banner
    assert 'href="/">New game</a>' in banner
    # a game still in play shows neither there
    _url, fresh = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    standings = fresh.html[fresh.html.index('id="standings"') : fresh.html.index("</section>")]
    assert "Rematch" not in standings


def test_undo_and_end_game_ask_for_a_second_tap(client, new_table, parsed):
    url, table = new_table("vezimas", ("Asta", "Jonas"))
    p = parsed(post_round(client, url, table, [0, 1]))
    assert re.search(
        r'<button type="submit" class="small" data-confirm="Tap again to undo">Undo<', p.html
    )
    assert 'data-confirm="Tap again to end the game">End the game<' in p.html


def test_a_pegs_move_in_the_history_says_card_pegs_and_bumps(client, new_table, parsed, store):
    """A move scores nothing, so its row shows what it did, unfolded: the card, each
    peg from → to (seats by their players' names), and who was bumped."""
    url, _table = new_table("pegs", ("Ana", "Bojan", "Ceca", "Dule"))
    tid = store.list_tables()[0].id
    request = {
        "seats": 4,
        "pegs": {"0": ["S"] * 5, "1": ["S"] * 5, "2": ["S"] * 5, "3": ["S"] * 5},
        "player": 2,
        "card": "7H",
        "steps": [{"seat": 2, "from": "T20", "to": "T27"}],
    }
    result = {"pegs": {}, "bumps": [{"seat": 1, "from": "T27", "to": "S"}], "winner_team": None}
    store.add_entry(tid, 1, "pegs-apply", request, result, {})
    page = parsed(client.get(url))
    row = page.html[page.html.index('data-round="1"') :]
    row = row[: row.index("round-actions")]
    assert "Ceca plays 7: Ceca&#39;s peg T20 → T27" in row
    assert "bumps Bojan&#39;s peg from T27 to start" in row
    assert "round-why" not in row  # nothing folded: it is all the row says
