"""Hypothesis throws generated input at every form endpoint and every score kind:
never a 500, never a traceback, and a refused request changes nothing.

Form endpoints are found in the app's URL map, so a new screen is covered the
day it is added. ``FUZZ_EXAMPLES`` sets the examples per endpoint (CI: 200;
``make fuzz-long``: 10,000).
"""

from __future__ import annotations

import json
import os
import re

import pytest
from conftest import snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekeeper import api
from scorekeeper.games import catalog

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "200"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=os.environ.get("FUZZ_RANDOM") is None,
)

# values a phone (or an attacker) might send in a form field
FIELD_VALUES = st.one_of(
    st.text(max_size=30),
    st.integers(min_value=-(10**12), max_value=10**12).map(str),
    st.sampled_from(
        [
            "",
            "0",
            "-1",
            "1e9",
            "NaN",
            "∞",
            "AH",
            "10S",
            "RJ",
            "JK",
            "QC",
            "KD",
            "9D",
            "S",
            "H",
            "tens",
            "aces",
            "full",
            "quick",
            "none",
            "on",
            "off",
            "true",
            "null",
            "[]",
            "{}",
            "<script>alert(1)</script>",
            "' OR 1=1 --",
            "\x00",
            "🂡",
            "Ana",
            "Bojan",
            "T8",
            "H1",
            # beyond SQLite's INTEGER: such a number must never reach a query
            str(2**63),
            str(-(2**63) - 1),
            "9" * 40,
            # the id the table's first round was saved with: another write reusing it
            "seed",
        ]
    ),
)
FIELD_NAMES = st.one_of(
    st.sampled_from(
        [
            "card",
            "player",
            "suit",
            "name",
            "round",
            "supersedes",
            "submission_id",
            "seat",
            "points-1",
            "points-2",
            "points-3",
            "gun",
            "victim",
            "turned",
            "mode",
            "winner",
            "by",
            "reason",
            "seat",
            "step",
            "to",
            "from",
            "cards",
            "top",
            "target",
            "die",
            "dice",
            "version",
            "draft_version",
            "action",
            "kind",
            "value",
            "special",
            "leader",
            "joker_suit",
        ]
    ),
    st.text(min_size=1, max_size=12),
)
# a game screen's tap as a button posts it (its JSON notation, its id, the deal's
# version and round), its action and arguments of any JSON type: a list where a word is
# meant, an object where a number is, a block's or a form's slot
ACTIONS = [
    *("lead", "card", "suit", "special", "off", "winner", "end", "held", "done", "change"),
    *("hold", "unhold", "build", "unbuild", "lay", "unlay", "undraw", "marriage", "aim"),
    *("load", "unload", "victim_holds", "victim_lacks", "victim_gun", "turn", "choose"),
    *("give", "take_ace", "ace_on_table", "ace_off_table", "shot_over", "cancel_shot"),
    *("draw", "burn", "roll", "reroll", "no-hand", "trick-winner", "exchange", "call", "sum"),
    *("settle", "play", "move", "discard", "place", "loser", "queen", "nine", "take"),
]
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 60)
    | st.text(max_size=8)
    | st.sampled_from(["__block__", "__form__", "2C", "KH", "RJ", "T8", "H1", "S", "joker"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
TAP_ARGS = ("seat", "card", "trick", "on", "suit", "role", "count", "gun", "steps", "sum")
TAPS = st.fixed_dictionaries(
    {"action": st.sampled_from(ACTIONS) | JSON_VALUES},
    optional={name: JSON_VALUES for name in TAP_ARGS},
).map(json.dumps)
TAP_FORMS = st.fixed_dictionaries(
    {
        "tap": TAPS,
        "tap_id": st.sampled_from(["t1", "seed"]) | st.text(min_size=1, max_size=12),
        "v": st.sampled_from(["0", "1", "2"]) | FIELD_VALUES,
        "round": st.sampled_from(["1", "2"]) | FIELD_VALUES,
    },
    optional={"seat": FIELD_VALUES, "trick": FIELD_VALUES, "have": st.text(max_size=40)},
)
FORMS = st.dictionaries(FIELD_NAMES, FIELD_VALUES, max_size=8) | TAP_FORMS


def url_rules() -> list:
    """The app's routes, read from a throwaway instance's URL map."""
    import tempfile

    from scorekeeper import create_app

    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"DATABASE": f"{folder}/routes.sqlite", "SECRET_KEY": "x"})
        return list(app.url_map.iter_rules())


RULES = url_rules()


def post_routes() -> list[str]:
    """Every form endpoint of the app."""
    return sorted(r.rule for r in RULES if "POST" in r.methods and r.endpoint != "api.score")


ROUTES = post_routes()


def test_the_form_endpoints_were_found():
    assert {"/tables", "/t/<key>/rounds", "/t/<key>/entries/<rowid:entry_id>/undo"} <= set(ROUTES)


def fill(rule: str, key: str, entry_id: int, player_id: int) -> str:
    path = rule.replace("<key>", key)
    path = re.sub(r"<(?:\w+:)?entry_id>", str(entry_id), path)
    path = re.sub(r"<(?:\w+:)?player_id>", str(player_id), path)
    return re.sub(r"<(?:\w+:)?\w+>", "1", path)


PLAYERS = {
    "cowboy": ("Ana", "Bojan", "Ceca", "Dragan"),
    "kvanta": ("Ana", "Bojan", "Ceca"),
    "vezimas": ("Asta", "Jonas", "Rūta", "Ana"),
    "szaman": ("Ola", "Piotr", "Zosia", "Ana"),
    "pegs": ("Ana", "Bojan", "Ceca", "Dragan", "Ema", "Filip"),
}


def game_of(route: str) -> str:
    """A game screen's route is fuzzed on a table of its own game."""
    parts = route.split("/")
    return parts[3] if len(parts) > 3 and parts[3] in PLAYERS else "cowboy"


# the first tap of a game without a score pad that stores an entry at once: a discard
SEED_TAPS = {"pegs": {"action": "discard", "seat": 0}}


def seed(client, url: str, page, game: str, headers=None):
    """The table's first entry, sent with the submission id "seed": a round on the score
    pad, or on a table with none (a race) its screen's first tap that stores at once."""
    if catalog.GAMES[game].score_pad:
        path, data = "/rounds", {"submission_id": "seed", page.player_fields()[0]: "5"}
    else:
        path = f"/{game}/tap"
        data = {"tap": json.dumps(SEED_TAPS[game]), "tap_id": "seed", "v": "0", "round": "1"}
    return client.post(url + path, data={"csrf_token": page.csrf, **data}, headers=headers or {})


@pytest.fixture
def table(client, new_table, parsed, store, request):
    game = game_of(request.node.callspec.params.get("route", ""))
    url, page = new_table(game, PLAYERS[game])
    seed(client, url, page, game, headers={"HX-Request": "true"})
    (t,) = store.list_tables()
    assert t.game == game
    entry = store.entries(t.id)[0].id
    return {
        "key": t.scorer_key,
        "csrf": page.csrf,
        "entry": entry,
        "player": store.players(t.id)[0].id,
    }


@pytest.mark.parametrize("route", ROUTES)
def test_every_form_endpoint_survives_generated_input(client, store, table, route):
    @FUZZ
    @given(form=FORMS, htmx=st.booleans())
    def check(form, htmx):
        path = fill(route, table["key"], table["entry"], table["player"])
        before = snapshot(store)
        headers = {"HX-Request": "true"} if htmx else {}
        response = client.post(path, data={"csrf_token": table["csrf"], **form}, headers=headers)
        body = response.get_data(as_text=True)
        assert response.status_code < 500, (path, form, body[:500])
        assert "Traceback" not in body
        if response.status_code >= 400:
            assert snapshot(store) == before, (path, form)

    check()


def get_routes() -> list[str]:
    """Every page and fragment a phone reads (the static files left out)."""
    return sorted(
        r.rule for r in RULES if "GET" in r.methods and r.endpoint != "static" and "<" in r.rule
    )


GET_ROUTES = get_routes()
QUERY_NAMES = st.sampled_from(["v", "have", "before", "lang", "trick", "seat", "page", "next"])
QUERIES = st.dictionaries(QUERY_NAMES | st.text(min_size=1, max_size=6), FIELD_VALUES, max_size=4)


def test_the_pages_were_found():
    assert "/t/<key>/history" in GET_ROUTES and "/t/<key>/szaman/change" in GET_ROUTES


@pytest.mark.parametrize("route", GET_ROUTES)
def test_every_page_survives_a_generated_query(client, store, table, route):
    """A page or fragment asked with any query answers, or says why not: never a 500,
    and reading changes nothing."""

    @FUZZ
    @given(query=QUERIES)
    def check(query):
        path = fill(
            route.replace("<slug>", "cowboy"), table["key"], table["entry"], table["player"]
        )
        before = snapshot(store)
        response = client.get(path, query_string=query, headers={"HX-Request": "true"})
        assert response.status_code < 500, (path, query, response.get_data(as_text=True)[:500])
        assert snapshot(store) == before, (path, query)

    check()


@pytest.mark.parametrize("kind", [*api.KINDS, "nope"])
def test_every_score_kind_survives_generated_json(client, kind):
    json_values = st.recursive(
        st.none()
        | st.booleans()
        | st.integers(-(10**6), 10**6)
        | st.text(max_size=12)
        | st.sampled_from(["AH", "10S", "RJ", "JK", "Ana", "Bojan", "T8", "S", "H1", "tens"])
        # half a character: valid JSON syntax, but no answer naming it can be UTF-8
        | st.sampled_from(["\ud800", "An\udfffa", "\udbff"]),
        lambda children: (
            st.lists(children, max_size=6)
            | st.dictionaries(
                st.text(max_size=10)
                | st.sampled_from(
                    [
                        "players",
                        "points",
                        "player",
                        "held",
                        "guns",
                        "tens",
                        "end",
                        "by",
                        "reason",
                        "cards",
                        "gun",
                        "victim",
                        "turned",
                        "tricks",
                        "plays",
                        "left",
                        "variant",
                        "target",
                        "hands",
                        "sums",
                        "caller",
                        "trump",
                        "draws",
                        "top",
                        "card",
                        "hand",
                        "trumps",
                        "out",
                        "seats",
                        "pegs",
                        "steps",
                        "house_rules",
                        "prize_card",
                        "totals",
                        "loser",
                    ]
                ),
                children,
                max_size=6,
            )
        ),
        max_leaves=25,
    )

    @FUZZ
    @given(body=json_values)
    def check(body):
        response = client.post(
            f"/api/v1/score/{kind}", data=json.dumps(body), content_type="application/json"
        )
        expected = {404} if kind == "nope" else {400} if lone_surrogate(body) else {200, 422}
        assert response.status_code in expected, (kind, body, response.get_data()[:300])
        payload = response.get_json()
        if response.status_code != 200:
            assert set(payload["error"]) == {"message", "path"}

    check()


def lone_surrogate(value) -> bool:
    """Whether ``value`` holds half a character once sent as JSON and read back."""
    try:
        json.dumps(json.loads(json.dumps(value)), ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


@pytest.mark.parametrize(
    "body", [r'{"players": ["\ud800", "B"]}', r'{"\udfff": 1}', r'"A\udbff"', r'["\uDC00"]']
)
def test_half_a_character_is_malformed_json_not_a_500(client, body):
    response = client.post(
        "/api/v1/score/manual-points", data=body.encode(), content_type="application/json"
    )
    assert response.status_code == 400
    assert "unpaired" in response.get_json()["error"]["message"]


def test_a_whole_character_written_as_a_pair_of_escapes_is_read_as_one(client):
    body = r'{"players": ["\ud83c\udca1", "B"], "points": {"\ud83c\udca1": 5}}'
    response = client.post(
        "/api/v1/score/manual-points", data=body.encode(), content_type="application/json"
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    assert "🂡" in response.get_data(as_text=True)


def test_malformed_json_is_400_not_500(client):
    for body in (b"{", b"\xff\xfe", b"[" * 100_000, b"", b"nan"):
        response = client.post(
            "/api/v1/score/cowboy-deal", data=body, content_type="application/json"
        )
        assert response.status_code == 400, body[:10]


def test_oversized_requests_are_refused(client):
    response = client.post(
        "/api/v1/score/manual-points", data=b"x" * (512 * 1024), content_type="application/json"
    )
    assert response.status_code == 413


def id_routes() -> list[tuple[str, str]]:
    """(method, rule) of every route with a row id in its path."""
    return sorted(
        (method, r.rule)
        for r in RULES
        if "<rowid:" in r.rule
        for method in ("GET", "POST")
        if method in r.methods
    )


ID_ROUTES = id_routes()


def test_the_routes_with_a_row_id_were_found():
    assert ("POST", "/t/<key>/entries/<rowid:entry_id>/undo") in ID_ROUTES
    assert not [r for r in ROUTES + [rule for _m, rule in ID_ROUTES] if "<int:" in r]


@pytest.mark.parametrize("method, rule", ID_ROUTES)
@pytest.mark.parametrize("row_id", [str(2**63), "9" * 40, "0"])
def test_a_row_id_no_row_can_have_is_not_found(client, new_table, store, method, rule, row_id):
    """A number SQLite cannot hold never reaches a query (it raised there: a 500)."""
    url, page = new_table()
    path = re.sub(r"<rowid:\w+>", row_id, rule.replace("<key>", url.rsplit("/", 1)[1]))
    before = snapshot(store)
    data = {"csrf_token": page.csrf, "submission_id": "big-id", "name": "Zed", "seat": "0"}
    response = client.open(path, method=method, data=data if method == "POST" else None)
    assert response.status_code == 404, response.get_data(as_text=True)[:300]
    assert snapshot(store) == before


def test_a_write_sent_with_the_id_of_another_is_refused_with_a_message(client, new_table, store):
    """The pad's submission id sent again by another form (a tampered page): a retry
    of the round would say "Already saved."; a rematch must not take the round's
    stored outcome for its own."""
    url, page = new_table()
    field = page.player_fields()[0]
    sid = page.submission_id
    assert (
        client.post(
            url + "/rounds", data={"csrf_token": page.csrf, "submission_id": sid, field: "5"}
        ).status_code
        == 303
    )
    before = snapshot(store)
    response = client.post(url + "/rematch", data={"csrf_token": page.csrf, "submission_id": sid})
    assert response.status_code == 422
    assert "already sent for another change" in response.get_data(as_text=True)
    assert snapshot(store) == before


# Views that look for a retry before doing the work, each with an id that another
# kind of write made: "seed-undo" by an undo, "seed" by a saved round.
RETRY_CHECKS = [
    ("tables.add_round", "submission_id", "seed-undo"),
    ("cowboy.save", "submission_id", "seed-undo"),
    ("vezimas.save_trumps", "submission_id", "seed-undo"),
    ("vezimas.save", "submission_id", "seed-undo"),
    ("szaman.save", "submission_id", "seed-undo"),
    ("pegs.tap", "tap_id", "seed-undo"),  # a move, a discard or a correction: stored at once
    ("tables.undo", "submission_id", "seed"),  # on a Pegs table: its screen checks it first
]
# what else such a view is sent: a Pegs tap that stores at once names what it is
RETRY_DATA = {
    "pegs.tap": {"tap": json.dumps({"action": "discard", "seat": 0}), "v": "0", "round": "1"}
}
RETRY_GAME = {"tables.undo": "pegs"}


@pytest.mark.parametrize("endpoint, field, foreign_id", RETRY_CHECKS)
@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain"])
def test_a_view_checking_for_a_retry_refuses_another_writes_id(
    client, new_table, store, endpoint, field, foreign_id, htmx
):
    """A tampered form carrying the id of another kind of write is refused with the
    store's message, as the write itself would refuse it, not told "Already saved."."""
    (rule,) = [r.rule for r in RULES if r.endpoint == endpoint]
    game = RETRY_GAME.get(endpoint, endpoint.split(".")[0])
    game = game if game in PLAYERS else "cowboy"
    url, page = new_table(game, PLAYERS[game])
    key = url.rsplit("/", 1)[1]
    seed(client, url, page, game)
    (table,) = store.list_tables()
    (entry,) = store.entries(table.id)
    undo = client.post(
        f"{url}/entries/{entry.id}/undo",
        data={"csrf_token": page.csrf, "submission_id": "seed-undo"},
    )
    assert undo.status_code == 303 and not store.entries(table.id, live_only=True)
    before = snapshot(store)
    response = client.post(
        fill(rule, key, entry.id, 1),
        data={
            "csrf_token": page.csrf,
            field: foreign_id,
            "which": "target",
            **RETRY_DATA.get(endpoint, {}),
        },
        headers={"HX-Request": "true"} if htmx else {},
    )
    body = response.get_data(as_text=True)
    assert response.status_code == 422, body[:300]
    assert "already sent for another change" in body
    assert "Already saved." not in body
    assert snapshot(store) == before
