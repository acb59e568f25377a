"""Names players cannot tell apart are one name: invisible format characters (a
zero-width space, a word joiner, a byte order mark, a soft hyphen) are dropped from
players' and tables' names wherever a name is kept, so "Bo\u200bb" is "Bob", and a
name with nothing visible left is refused. Names in every script the app speaks, and
emoji joined into one picture, are kept as typed."""

from __future__ import annotations

import html
import json
import unicodedata

import pytest
from conftest import Page, post_start_form, start_table
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekeeper import validate
from scorekeeper.errors import RuleError
from scorekeeper.store import Store, StoreError

ZWSP, ZWNJ, ZWJ, WJ, BOM, SHY = "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"
SKIN = "\U0001f3fd"  # a skin tone
VS16 = "\ufe0f"  # "as an emoji"
CODER = "\U0001f469" + ZWJ + "\U0001f4bb"  # woman technologist: one picture
ASTRONAUT = "\U0001f469" + SKIN + ZWJ + "\U0001f680"
RAINBOW_FLAG = "\U0001f3f3" + VS16 + ZWJ + "\U0001f308"
FAMILY = ZWJ.join(["\U0001f468", "\U0001f469", "\U0001f467"])
HEART_ON_FIRE = "\u2764" + VS16 + ZWJ + "\U0001f525"
# a subdivision flag is a black flag, invisible tag letters ("gbsct") and a cancel tag
SCOTLAND = "\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in "gbsct") + "\U000e007f"

KEPT_AS_TYPED = [
    "Љубиша Ђорђевић",  # Serbian Cyrillic
    "Đorđe Šćepanović",  # Serbian Latin
    "Žydrūnė Ąžuolaitė",  # Lithuanian
    "Łukasz Żółć",  # Polish
    "Ľubomír Ďurčo",  # Slovak
    "عائشة بنت أحمد",  # Arabic, read right to left
    "Ana " + CODER,
    ASTRONAUT,
    RAINBOW_FLAG,
    FAMILY,
    HEART_ON_FIRE,
    SCOTLAND + " Iain",
]

CLEANED = [
    ("Bo" + ZWSP + "b", "Bob"),
    (BOM + "Ana", "Ana"),
    ("An" + SHY + "a", "Ana"),
    ("A" + WJ + "na", "Ana"),
    ("Ana" + ZWNJ, "Ana"),
    ("Bo" + ZWJ + "b", "Bob"),  # a joiner between letters joins nothing
    ("Ana" + ZWJ + "\U0001f469", "Ana\U0001f469"),  # nor between a letter and an emoji
    ("\U0001f469" + ZWJ, "\U0001f469"),  # nor at the end
    ("\U0001f469" + ZWJ + ZWJ + "\U0001f4bb", "\U0001f469\U0001f4bb"),
    (" " + ZWSP + " Ana " + ZWSP, "Ana"),  # spaces around what is dropped are trimmed
    # "e", a zero-width space and an acute accent: without the space, one letter "é"
    ("Andr" + "e" + ZWSP + "\u0301", "Andr\u00e9"),
    # tag letters after no black flag spell hidden text
    ("Ana" + "".join(chr(0xE0000 + ord(c)) for c in "hi") + "\U000e007f", "Ana"),
]

INVISIBLE_ONLY = [ZWSP, ZWSP + WJ + BOM, " " + SHY + " ", ZWJ, ZWNJ + ZWJ]


# ---------------------------------------------------------------- the store


@pytest.fixture
def s(tmp_path):
    st_ = Store.open(tmp_path / "db.sqlite")
    yield st_
    st_.close()


def names_at(s, table_id):
    return [p.name for p in s.players(table_id)]


@pytest.mark.parametrize("name", KEPT_AS_TYPED)
def test_names_in_every_script_and_joined_emoji_are_kept_as_typed(s, name):
    out = s.create_table("cowboy", name, [name, "Bojan", "Ceca"], {})
    assert names_at(s, out["table_id"])[0] == name
    assert s.table(out["table_id"]).name == name


@pytest.mark.parametrize(("typed", "kept"), CLEANED)
def test_invisible_characters_are_dropped_from_a_players_and_a_tables_name(s, typed, kept):
    out = s.create_table("cowboy", typed, [typed, "Bojan", "Ceca"], {})
    assert names_at(s, out["table_id"])[0] == kept
    assert s.table(out["table_id"]).name == kept


def test_a_name_that_differs_from_another_by_an_invisible_character_is_the_same_name(s):
    with pytest.raises(StoreError, match="“Bob” is typed twice"):
        s.create_table("cowboy", "Friday", ["Bob", "Bo" + ZWSP + "b", "Ceca"], {})
    with pytest.raises(StoreError, match="“bob” and “Bob” are one name"):
        s.create_table("cowboy", "Friday", ["Bob", "b" + WJ + "ob", "Ceca"], {})
    assert s.list_tables() == []


@pytest.mark.parametrize("name", INVISIBLE_ONLY)
def test_a_name_with_nothing_visible_is_refused(s, name):
    with pytest.raises(StoreError, match="A player's name must not be empty"):
        s.create_table("cowboy", "Friday", [name, "Bojan", "Ceca"], {})
    with pytest.raises(StoreError, match="A table's name must not be empty"):
        s.create_table("cowboy", name, ["Ana", "Bojan", "Ceca"], {})
    assert s.list_tables() == []


def test_a_rename_drops_invisible_characters_and_refuses_a_name_taken(s):
    out = s.create_table("cowboy", "Friday", ["Ana", "Bob", "Ceca"], {})
    table_id = out["table_id"]
    ana, _bob, ceca = (p.id for p in s.players(table_id))
    with pytest.raises(StoreError, match="“Bob” is already playing"):
        s.rename_player(table_id, ceca, "Bo" + ZWSP + "b")
    with pytest.raises(StoreError, match="must not be empty"):
        s.rename_player(table_id, ceca, ZWSP)
    assert names_at(s, table_id) == ["Ana", "Bob", "Ceca"]
    s.rename_player(table_id, ana, "An" + SHY + "ica")
    assert names_at(s, table_id) == ["Anica", "Bob", "Ceca"]


def test_a_name_kept_from_before_with_an_invisible_character_still_blocks_its_lookalike(s):
    out = s.create_table("cowboy", "Friday", ["Ana", "Bob", "Ceca"], {})
    table_id = out["table_id"]
    with s.db.conn:  # a name stored before invisible characters were dropped
        s.db.execute(
            "UPDATE players SET name = ? WHERE table_id = ? AND seat = 1",
            ["Bo" + ZWSP + "b", table_id],
        )
    ceca = s.players(table_id)[2].id
    with pytest.raises(StoreError, match="“Bob” is already playing"):
        s.rename_player(table_id, ceca, "Bob")


# ---------------------------------------------------------------- the start form


def post_start(client, players, **fields):
    answer = post_start_form(client, "cowboy", players, **fields)
    return answer, html.unescape(" ".join(Page(answer).errors()))


def test_the_form_refuses_a_name_that_differs_by_an_invisible_character(client, store):
    answer, errors = post_start(client, ["Bob", "Bo" + ZWSP + "b", "Ceca"])
    assert answer.status_code == 422
    assert "“Bob” is typed twice" in errors
    assert store.list_tables() == []


def test_the_form_takes_a_seat_with_nothing_visible_for_an_empty_seat(client, store):
    answer, errors = post_start(client, ["Ana", ZWSP + BOM, "Ceca"])
    assert answer.status_code == 422
    assert "Seat 2 has no name" in errors
    answer, errors = post_start(client, ["Ana", "Bojan", SHY])
    assert answer.status_code == 422
    assert "3 or 4 players" in errors
    assert store.list_tables() == []


def test_the_form_keeps_names_without_their_invisible_characters(client, store):
    url, page = start_table(
        client,
        "cowboy",
        ("Bo" + ZWSP + "b", "Ana " + CODER, "A" * 40 + ZWSP),
        name="Fri" + WJ + "day",
    )
    (table,) = store.list_tables()
    assert table.name == "Friday"
    assert [p.name for p in store.players(table.id)] == ["Bob", "Ana " + CODER, "A" * 40]
    assert "Ana " + CODER in page.html


def test_the_form_gives_a_table_named_with_nothing_visible_the_usual_name(client, store):
    start_table(client, "cowboy", ("Ana", "Bojan", "Ceca"), name=ZWSP + " " + BOM)
    (table,) = store.list_tables()
    assert table.name.startswith("Vajoming Kauboj, ")


def test_the_rename_form_drops_invisible_characters_and_refuses_a_lookalike(client, store):
    url, page = start_table(client, "cowboy", ("Ana", "Bob", "Ceca"))
    (table,) = store.list_tables()
    ana, _bob, ceca = (p.id for p in store.players(table.id))
    for typed, says in [("Bo" + ZWSP + "b", "“Bob” is already playing"), (ZWSP, "1 to 40")]:
        answer = client.post(
            f"{url}/players/{ceca}/name", data={"csrf_token": page.csrf, "name": typed}
        )
        assert answer.status_code == 422
        assert says in html.unescape(answer.get_data(as_text=True))
    answer = client.post(
        f"{url}/players/{ana}/name", data={"csrf_token": page.csrf, "name": "B" * 40 + SHY}
    )
    assert answer.status_code in (200, 303)
    assert [p.name for p in store.players(table.id)] == ["B" * 40, "Bob", "Ceca"]


@pytest.mark.parametrize(
    ("language", "says"),
    [
        ("en", "“Bob” is already playing at this table."),
        ("pl", "„Bob” już gra przy tym stole."),
        ("lt", "„Bob“ jau žaidžia prie šio stalo."),
        ("sk", "„Bob“ už hrá za týmto stolom."),
        ("sr-Latn", "„Bob“ već igra za ovim stolom."),
    ],
)
def test_a_name_already_playing_is_quoted_as_the_language_quotes_names(
    client, store, language, says
):
    """The refusal quoted the name as Python writes a string: 'Bob'."""
    url, page = start_table(client, "cowboy", ("Ana", "Bob", "Ceca"), language=language)
    (table,) = store.list_tables()
    ceca = store.players(table.id)[2].id
    answer = client.post(
        f"{url}/players/{ceca}/name", data={"csrf_token": page.csrf, "name": "Bob"}
    )
    assert answer.status_code == 422
    assert says in html.unescape(answer.get_data(as_text=True))


# ---------------------------------------------------------------- the API


def score(client, request):
    answer = client.post(
        "/api/v1/score/manual-points",
        data=json.dumps(request, ensure_ascii=False).encode(),
        content_type="application/json",
    )
    return answer.status_code, answer.get_json()


@pytest.mark.parametrize(
    ("players", "path", "says"),
    [
        (["Bob", "Bo" + ZWSP + "b"], "players[1]", "listed twice"),
        ([ZWSP + WJ, "Bob"], "players[0]", "non-empty"),
    ],
)
def test_the_api_refuses_players_told_apart_only_by_invisible_characters(
    client, players, path, says
):
    status, body = score(client, {"players": players, "points": {"Bob": 1}})
    assert status == 422
    assert body["error"]["path"] == path
    assert says in body["error"]["message"]


def test_the_api_answers_for_joined_emoji_and_names_in_every_script(client):
    players = [CODER, "Љубиша", "عائشة"]
    status, body = score(client, {"players": players, "points": {CODER: 3}})
    assert status == 200
    assert body["points"] == {CODER: 3, "Љубиша": 0, "عائشة": 0}


# ---------------------------------------------------------------- the cleaning itself

# what a name is typed from: letters, digits and spaces, emoji and their parts, every
# invisible character above and any other character at all
PARTS = st.sampled_from(
    [
        "a", "B", "é", "e", "\u0301", "Š", "ђ", "ع", "ą", "Ł", "1", " ",
        "\U0001f469", "\U0001f4bb", "\U0001f3f3", "\U0001f3f4", "\u2764", "\u2640",
        SKIN, VS16, ZWJ, ZWNJ, ZWSP, WJ, BOM, SHY, "\u2061", "\u180e", "\u0600",
        "\U000e0067", "\U000e0062", "\U000e0073", "\U000e0063", "\U000e0074", "\U000e007f",
        SCOTLAND, CODER,
    ]
)  # fmt: skip
TYPED = st.lists(PARTS | st.characters(), max_size=20).map("".join)


def joins_emoji(text: str, i: int) -> bool:
    """Whether the joiner at ``i`` stands between two pictures (after any skin tone
    or "as an emoji" selector of the first), as in an emoji sequence."""
    before = text[:i].rstrip(VS16 + "".join(chr(c) for c in range(0x1F3FB, 0x1F400)))
    after = text[i + 1 : i + 2]
    return bool(before and after) and all(
        unicodedata.category(ch) == "So" for ch in (before[-1], after)
    )


@settings(max_examples=500, deadline=None)
@given(TYPED)
def test_a_cleaned_name_has_no_invisible_character_and_cleans_to_itself(typed):
    try:
        name = validate.clean_name(typed, "name")
    except RuleError:
        return
    assert name and name == name.strip()
    assert unicodedata.is_normalized("NFC", name)
    outside_flags = name.replace(SCOTLAND, "\U0001f3f4")  # the flag without its tags
    for i, ch in enumerate(outside_flags):
        if ch == ZWJ:
            assert joins_emoji(outside_flags, i), ascii(name)
        else:
            assert unicodedata.category(ch) not in ("Cf", "Cc"), ascii(name)
    assert validate.clean_name(name, "name") == name
