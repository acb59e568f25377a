"""The Szaman table screen through the Flask client: a deal entered tap by tap into a
server-side draft (full and quick tricks, a joker lead, the end-of-deal cards), undo,
refusals that store nothing, stale and retried taps, the watch link, Russian variant."""

from __future__ import annotations

import json
import re

import pytest
from conftest import another_phone_first
from szaman_deal import FULL_DEAL, JOKER_SUITS, LEFT, NAMES, QUICK_DEAL, full_request, quick_request

from scorekeeper import api

HX = {"HX-Request": "true"}
DRAFT = "szaman-deal"


class Screen:
    """One phone at the Szaman table: taps as the panel's buttons send them."""

    def __init__(self, client, url, html, csrf):
        self.client = client
        self.url = url
        self.html = html
        self.csrf = csrf
        self.status = 200

    @property
    def panel(self) -> str:
        start = self.html.index('id="szaman-panel"')
        return self.html[start : self.html.index("</section>", start)]

    @property
    def version(self) -> int:
        return int(re.search(r'data-version="(\d+)"', self.panel).group(1))

    @property
    def round(self) -> int:
        return int(re.search(r'"round": (\d+)', self.panel).group(1))

    @property
    def step(self) -> str:
        return re.search(r'data-step="(\w+)"', self.panel).group(1)

    def post(self, path, data, headers=HX):
        response = self.client.post(
            self.url + path, data=data, headers={**headers, "X-CSRFToken": self.csrf}
        )
        self.status = response.status_code
        body = response.get_data(as_text=True)
        if 'id="szaman-panel"' in body:
            self.html = body
        return response

    def tap(self, op, **fields):
        data = {"op": op, "v": self.version, "round": self.round, **fields}
        return self.post("/szaman/tap", {k: str(v) for k, v in data.items()})

    def save(self, submission_id=None):
        sid = submission_id or re.search(r'"submission_id": "([^"]+)"', self.panel).group(1)
        return self.post(
            "/szaman/save", {"v": self.version, "round": self.round, "submission_id": sid}
        )

    def reload(self):
        self.html = self.client.get(self.url).get_data(as_text=True)
        return self

    def error(self) -> str | None:
        found = re.search(r'class="verdict no"[^>]*>([^<]+)<', self.panel)
        return found.group(1) if found else None


@pytest.fixture
def table(client, new_table, store):
    def make(players=NAMES, **settings):
        fields = {f"szaman-{k}": str(v) for k, v in settings.items()}
        url, page = new_table("szaman", players, **fields)
        screen = Screen(client, url, page.html, page.csrf)
        screen.table_id = store.list_tables()[0].id
        return screen

    return make


def seat(name):
    return NAMES.index(name)


def enter_full_tricks(screen, tricks=FULL_DEAL, suits=JOKER_SUITS):
    screen.tap("lead", seat=seat(tricks[0][0][0]))
    for i, plays in enumerate(tricks):
        for j, (_name, card) in enumerate(plays):
            screen.tap("card", card=card)
            assert screen.status == 200, screen.error()
            if j == 0 and i in suits:
                assert screen.step == "suit"
                screen.tap("suit", suit=suits[i])
                assert screen.status == 200, screen.error()


def enter_left(screen, left=LEFT):
    for name in NAMES:
        cards = left[name]
        if not cards and f'data-seat="{seat(name)}"' in screen.panel and screen.step == "end":
            row = re.search(rf'<li class="(\w*)" data-seat="{seat(name)}"', screen.panel)
            if row.group(1) == "done":
                continue
        for card in cards:
            screen.tap("held", seat=seat(name), card=card)
            assert screen.status == 200, screen.error()
        if f'"op": "done", "round": {screen.round}, "seat": {seat(name)}' in screen.panel:
            screen.tap("done", seat=seat(name))


def test_a_full_deal_tap_by_tap_is_a_draft_then_one_entry(table, store):
    screen = table()
    assert "Deal 1 of 6" in screen.panel and screen.step == "lead"
    screen.tap("lead", seat=0)
    assert store.draft(screen.table_id, DRAFT)[0]["taps"] == [{"op": "lead", "seat": "0"}]
    taps = 1
    for i, plays in enumerate(FULL_DEAL):
        for j, (_name, card) in enumerate(plays):
            screen.tap("card", card=card)
            taps += 1
            assert screen.status == 200, screen.error()
            data, version = store.draft(screen.table_id, DRAFT)
            assert len(data["taps"]) == taps and screen.version == version  # saved per tap
            if j == 0 and i in JOKER_SUITS:
                assert "which suit does Ola name?" in screen.panel
                assert 'data-suit="H"' in screen.panel and 'data-suit="S"' not in screen.panel
                screen.tap("suit", suit=JOKER_SUITS[i])
                taps += 1
        if i < len(FULL_DEAL) - 1:
            # the trick's winner and points show as soon as it is complete
            expected = api.evaluate("szaman-deal", {**full_request(left=dict.fromkeys(NAMES, []))})[
                "tricks"
            ][i]
            assert f"Trick {i + 1}: {expected['winner']} wins" in screen.panel
    assert store.entries(screen.table_id) == []  # a draft counts only once closed
    # trick 8 emptied Adam's hand: the deal is over, the app asks for the held cards
    assert screen.step == "end"
    assert re.search(r'<li class="done" data-seat="3"', screen.panel)  # Adam holds none
    assert "should hold 3 cards" in screen.panel and "should hold 1 card" in screen.panel
    enter_left(screen)
    assert "21 → −3" in screen.panel and "13 → −2" in screen.panel and "34 → −4" in screen.panel
    assert "Save deal 1" in screen.panel
    screen.save()
    assert screen.status == 200
    (entry,) = store.entries(screen.table_id)
    assert entry.kind == "szaman-deal" and entry.request == full_request()
    result = api.evaluate("szaman-deal", full_request())
    assert entry.result == result
    assert result["totals"] == {"Ola": 28, "Piotr": 1, "Zosia": 3, "Adam": -4}
    totals = dict(re.findall(r'class="points" data-player="([^"]+)">(-?\d+)<', screen.html))
    assert {k: int(v) for k, v in totals.items()} == result["totals"]
    assert store.draft(screen.table_id, DRAFT) == (None, 0)  # closed with the entry
    assert "Deal 1 saved." in screen.html and "Deal 2 of 6" in screen.panel


def test_a_quick_deal_one_tap_a_plain_trick(table, store):
    screen = table()
    screen.tap("mode", mode="quick")
    taps = 0
    for winner, specials, off in QUICK_DEAL:
        for name in specials:
            screen.tap("special", name=name, on=1)
            taps += 1
        for name in off:
            screen.tap("off", seat=seat(name), on=1)
            taps += 1
        screen.tap("winner", seat=seat(winner))
        taps += 1
        assert screen.status == 200, screen.error()
    assert taps / len(QUICK_DEAL) <= 2
    assert screen.step == "end"
    enter_left(screen)
    screen.save()
    (entry,) = store.entries(screen.table_id)
    assert entry.request == quick_request()
    assert entry.result["totals"] == api.evaluate("szaman-deal", quick_request())["totals"]
    # the same deal entered either way scores the same
    assert entry.result["totals"] == api.evaluate("szaman-deal", full_request())["totals"]
    # the next deal starts in the mode this one ended in
    assert 'data-mode="quick" aria-pressed="true"' in screen.panel


def test_full_and_quick_tricks_mix_in_one_deal(table, store):
    screen = table()
    screen.tap("mode", mode="quick")
    screen.tap("winner", seat=seat("Piotr"))
    screen.tap("mode", mode="full")
    # no "who leads" question: Piotr won the last trick
    assert screen.step == "card" and "Trick 2: Piotr plays" in screen.panel
    for _name, card in FULL_DEAL[1]:
        screen.tap("card", card=card)
    assert "Trick 2: Ola wins" in screen.panel and "Ola +19" in screen.panel
    data, _version = store.draft(screen.table_id, DRAFT)
    assert [t["op"] for t in data["taps"]] == ["mode", "winner", "mode"] + ["card"] * 4


def test_undo_takes_back_the_last_tap_only(table, store):
    screen = table()
    screen.tap("undo")
    assert screen.status == 422 and "nothing to undo" in screen.error()
    screen.tap("lead", seat=0)
    screen.tap("card", card="2C")
    screen.tap("card", card="KC")
    assert "Zosia plays" in screen.panel
    screen.tap("undo")
    assert screen.status == 200 and "Piotr plays" in screen.panel
    data, _v = store.draft(screen.table_id, DRAFT)
    assert [t.get("card") for t in data["taps"]] == [None, "2C"]
    # undo across a finished trick brings the trick back to its last card
    for card in ("KC", "5C", "9C"):
        screen.tap("card", card=card)
    assert "Trick 1: Piotr wins" in screen.panel
    screen.tap("undo")
    assert "Adam plays" in screen.panel and "Trick 1: Piotr wins" not in screen.panel


@pytest.mark.parametrize(
    ("setup", "op", "fields", "message"),
    [
        ([("lead", {"seat": 0}), ("card", {"card": "2C"})], "card", {"card": "2C"}, "already in"),
        ([("lead", {"seat": 0})], "card", {"card": "ZZ"}, "Tap one of the cards"),
        ([("lead", {"seat": 0})], "card", {"card": "JK"}, "Tap one of the cards"),
        ([], "card", {"card": "2C"}, "who leads the first trick"),
        ([], "lead", {"seat": 9}, "not at this table"),
        ([], "lead", {"seat": "x"}, "Choose a player"),
        ([("lead", {"seat": 0}), ("card", {"card": "RJ"})], "suit", {"suit": "S"}, "red joker"),
        ([("lead", {"seat": 0}), ("card", {"card": "RJ"})], "card", {"card": "2D"}, "suit"),
        ([("lead", {"seat": 0}), ("card", {"card": "2C"})], "suit", {"suit": "C"}, "only when"),
        ([], "winner", {"seat": 0}, "quick entry"),
        ([("mode", {"mode": "quick"})], "special", {"name": "QS"}, "not a special"),
        ([("mode", {"mode": "quick"})], "special", {"name": "2C"}, "not a special"),
        ([("mode", {"mode": "quick"})], "mode", {"mode": "slow"}, "full or quick"),
        ([], "fly", {}, "not something"),
        ([], "held", {"seat": 0, "card": "2C"}, "still being played"),
        ([], "end", {}, "at least one trick"),
        (
            [("mode", {"mode": "quick"}), ("off", {"seat": 1})],
            "winner",
            {"seat": 1},
            "not off-suit",  # the engine's own sentence
        ),
    ],
)
def test_a_refused_tap_says_why_and_stores_nothing(table, store, setup, op, fields, message):
    screen = table()
    for setup_op, setup_fields in setup:
        screen.tap(setup_op, **setup_fields)
        assert screen.status == 200, screen.error()
    before = store.draft(screen.table_id, DRAFT)
    screen.tap(op, **fields)
    assert screen.status == 422
    assert message in screen.error()
    assert store.draft(screen.table_id, DRAFT) == before
    assert store.entries(screen.table_id) == []


def test_a_tap_that_breaks_a_rule_of_the_whole_deal_is_refused_by_the_engine(table, store):
    screen = table()
    screen.tap("mode", mode="quick")
    screen.tap("special", name="joker", on=1)
    screen.tap("winner", seat=0)
    screen.tap("special", name="joker", on=1)
    screen.tap("winner", seat=1)
    screen.tap("mode", mode="full")
    screen.tap("card", card="2C")
    before = store.draft(screen.table_id, DRAFT)
    # two tricks were won by jokers: a third joker is not in the deck
    assert "RJ — used" in screen.panel and "BJ — used" in screen.panel
    screen.tap("card", card="RJ")
    assert screen.status == 422 and "Both jokers" in screen.error()
    assert store.draft(screen.table_id, DRAFT) == before


def test_bad_or_missing_fields_store_nothing(table, store):
    screen = table()
    before = store.draft(screen.table_id, DRAFT)
    for data in ({"op": "lead", "seat": "0"}, {"op": "lead", "seat": "0", "v": "x", "round": "1"}):
        screen.post("/szaman/tap", data)
        assert screen.status == 422 and "reload" in screen.error()
    screen.post("/szaman/save", {"submission_id": "s1"})
    assert screen.status == 422
    assert store.draft(screen.table_id, DRAFT) == before
    assert store.entries(screen.table_id) == []
    # a save before the deal is over
    screen.reload()
    screen.tap("lead", seat=0)
    screen.save(submission_id="s2")
    assert screen.status == 422 and "not finished" in screen.error()
    assert store.entries(screen.table_id) == []


def test_a_stale_or_retried_tap_is_answered_with_the_deal_as_it_stands(table, store):
    screen = table()
    screen.tap("lead", seat=0)
    old = {"op": "card", "card": "2C", "v": str(screen.version), "round": str(screen.round)}
    screen.post("/szaman/tap", old)
    assert screen.status == 200
    screen.post("/szaman/tap", old)  # the same tap again (a retry on a flaky network)
    assert screen.status == 409 and "changed a moment ago" in screen.panel
    screen.post("/szaman/tap", {**old, "card": "3C"})  # a tap made on a stale screen
    assert screen.status == 409
    data, _v = store.draft(screen.table_id, DRAFT)
    assert [t.get("card") for t in data["taps"]] == [None, "2C"]
    assert "Piotr plays" in screen.panel


def enter_quick_deal(screen):
    """QUICK_DEAL by taps, the left-over cards included: ready to save."""
    screen.tap("mode", mode="quick")
    for winner, specials, off in QUICK_DEAL:
        for name in specials:
            screen.tap("special", name=name, on=1)
        for name in off:
            screen.tap("off", seat=seat(name), on=1)
        screen.tap("winner", seat=seat(winner))
    enter_left(screen)


def test_a_tap_landing_while_the_deal_is_saved_refuses_the_save(table, store, monkeypatch):
    """The save read the deal; before it wrote, another phone's tap changed the draft.
    Closing the draft would drop that tap unseen, so the save is refused."""
    from scorekeeper.web import screens

    screen = table()
    enter_quick_deal(screen)

    def a_tap_on_another_phone():  # as the store receives it: the draft written again
        data, _v = store.draft(screen.table_id, DRAFT)
        return store.save_draft(screen.table_id, DRAFT, data)

    another_phone_first(monkeypatch, screens, "record", a_tap_on_another_phone)
    late = screen.save()
    assert late.status_code == 409
    assert "Another phone changed this deal a moment ago" in late.get_data(as_text=True)
    assert store.entries(screen.table_id) == []
    assert store.draft(screen.table_id, DRAFT)[0] is not None


def test_a_retried_save_stores_the_deal_once(table, store):
    screen = table()
    enter_quick_deal(screen)
    sid = re.search(r'"submission_id": "([^"]+)"', screen.panel).group(1)
    data = {"v": screen.version, "round": screen.round, "submission_id": sid}
    first = screen.post("/szaman/save", data)
    assert first.status_code == 200
    again = screen.post("/szaman/save", data)
    assert again.status_code == 200 and "Already saved." in again.get_data(as_text=True)
    assert len(store.entries(screen.table_id)) == 1


def test_two_phones_see_one_draft_and_the_second_save_is_refused(table, client, store):
    screen = table()
    other = Screen(client, screen.url, client.get(screen.url).get_data(as_text=True), screen.csrf)
    screen.tap("lead", seat=0)
    screen.tap("card", card="2C")
    other.reload()
    assert "Piotr plays" in other.panel and "2♣" in other.panel  # the draft, on every phone
    other.tap("card", card="KC")
    assert other.status == 200
    screen.tap("card", card="5C")  # made on a screen that missed Piotr's card
    assert screen.status == 409 and "Zosia plays" in screen.panel
    # the poll brings the draft to the other phones without a reload
    live = client.get(screen.url + "/live?v=0").get_data(as_text=True)
    assert 'id="szaman-panel" class="card szaman" hx-swap-oob="true"' in live
    assert "Zosia plays" in live


def test_the_watch_link_shows_the_draft_and_can_change_nothing(table, client, store):
    screen = table()
    screen.tap("lead", seat=0)
    screen.tap("card", card="2C")
    page = client.get(screen.url).get_data(as_text=True)
    watch = re.findall(r'data-copy="http://[^/]+(/t/[^"]+)"', page)[-1]
    view = client.get(watch).get_data(as_text=True)
    panel = Screen(client, watch, view, screen.csrf).panel
    assert "Piotr plays" in panel and "2♣" in panel
    assert "hx-post" not in panel and "data-card" not in panel  # no write controls
    scorer_key = screen.url.rsplit("/", 1)[-1]
    assert scorer_key not in view  # the watch page never shows the scorer link
    before = store.draft(screen.table_id, DRAFT)
    for path, data in [
        ("/szaman/tap", {"op": "card", "card": "KC", "v": screen.version, "round": 1}),
        ("/szaman/tap", {"op": "undo", "v": screen.version, "round": 1}),
        ("/szaman/save", {"v": screen.version, "round": 1, "submission_id": "w1"}),
    ]:
        for headers in (HX, {}):
            response = client.post(
                watch + path, data=data, headers={**headers, "X-CSRFToken": screen.csrf}
            )
            assert response.status_code == 403, path
            assert "watch link" in response.get_data(as_text=True)
    assert store.draft(screen.table_id, DRAFT) == before
    assert store.entries(screen.table_id) == []


def test_without_htmx_a_tap_redirects_to_the_table(table, store):
    screen = table()
    response = screen.post(
        "/szaman/tap", {"op": "lead", "seat": "1", "v": "0", "round": "1"}, headers={}
    )
    assert response.status_code == 303 and response.headers["Location"].endswith(screen.url)
    assert "Trick 1: Piotr plays" in screen.reload().panel
    response = screen.post("/szaman/tap", {"op": "lead", "seat": "1", "v": "0", "round": "1"}, {})
    assert response.status_code == 409  # the full page, with the notice
    assert "<html" in response.get_data(as_text=True) and "changed a moment ago" in screen.panel


def test_revoke_warning_and_joker_penalty(table, store):
    screen = table(players=("Ola", "Piotr"))
    screen.tap("lead", seat=0)
    for card in ("2S", "3H", "4S", "5S"):  # Piotr shows off-suit to spades, then a spade
        screen.tap("card", card=card)
    assert "likely revoke" in screen.panel
    screen.tap("end")
    assert screen.step == "end"
    screen.tap("done", seat=0)  # Ola holds nothing
    screen.tap("held", seat=1, card="BJ")
    screen.tap("held", seat=1, card="5D")
    assert "joker −20" in screen.panel and "5 → −1 · joker −20 = −21" in screen.panel
    screen.tap("held", seat=1, card="5D")  # a second tap takes the card back
    assert "5 → −1" not in screen.panel
    screen.tap("done", seat=1)
    screen.save()
    (entry,) = store.entries(screen.table_id)
    assert entry.request["left"] == {"Ola": [], "Piotr": ["BJ"]}
    assert entry.result["penalties"] == {"Piotr": -20}


def test_every_classic_hand_held_is_refused_by_the_engine(table, store):
    screen = table(players=("Ola", "Piotr"))
    screen.tap("mode", mode="quick")
    screen.tap("winner", seat=0)
    screen.tap("end")
    screen.tap("held", seat=0, card="2C")
    screen.tap("done", seat=0)
    before = store.draft(screen.table_id, DRAFT)
    screen.tap("held", seat=1, card="3C")
    assert screen.status == 422
    assert "at least one player must hold none" in screen.error()  # the engine's sentence
    assert store.draft(screen.table_id, DRAFT) == before
    assert "Save deal" not in screen.panel
    screen.save(submission_id="x")
    assert screen.status == 422 and store.entries(screen.table_id) == []
    screen.tap("done", seat=1)
    assert "Save deal 1" in screen.panel
    screen.save()
    assert store.entries(screen.table_id)[0].request["left"] == {"Ola": ["2C"], "Piotr": []}


def test_russian_asks_no_held_cards_and_counts_the_queen_of_spades(table, store):
    screen = table(players=("Ola", "Piotr", "Zosia", "Adam", "Ewa", "Jan"), variant="russian")
    assert "Russian" in screen.panel
    screen.tap("mode", mode="quick")
    assert 'data-special="QS"' in screen.panel
    screen.tap("special", name="QS", on=1)
    screen.tap("winner", seat=2)
    assert "Zosia +13" in screen.panel
    for _ in range(7):
        screen.tap("winner", seat=0)
    assert screen.step == "quick"
    screen.tap("winner", seat=1)  # 6 players: 9 tricks empty every hand (S-D6)
    assert screen.step == "end" and "held" not in screen.panel.split("sz-ask")[1][:200]
    assert 'data-op="held"' not in screen.panel and "data-card" not in screen.panel
    screen.tap("held", seat=0, card="2C")
    assert screen.status == 422 and "Russian" in screen.error()
    screen.save()
    (entry,) = store.entries(screen.table_id)
    assert "left" not in entry.request and entry.request["variant"] == "russian"
    assert entry.result["totals"]["Zosia"] == 13


def test_the_game_ends_after_the_set_deals(table, store):
    screen = table(players=("Ola", "Piotr"), deals=1)
    screen.tap("mode", mode="quick")
    screen.tap("winner", seat=0)
    screen.tap("end")
    screen.tap("done", seat=0)
    screen.tap("held", seat=1, card="KS")
    screen.tap("done", seat=1)
    screen.save()
    assert "Ola wins" in screen.html and "is over" in screen.panel
    assert "hx-post" not in screen.panel
    screen.post("/szaman/tap", {"op": "mode", "mode": "full", "v": "0", "round": "2"})
    assert screen.status == 409
    assert len(store.entries(screen.table_id)) == 1


def test_a_rename_in_the_middle_of_a_deal_keeps_the_draft(table, client, store):
    screen = table(players=("Ola", "Piotr"))
    screen.tap("lead", seat=1)
    screen.tap("card", card="AC")
    player = store.players(screen.table_id)[1]
    client.post(
        screen.url + f"/players/{player.id}/name",
        data={"name": "Peter", "csrf_token": screen.csrf, "submission_id": "rn"},
    )
    screen.reload()
    assert "Trick 1: Ola plays" in screen.panel and "Peter" in screen.panel
    screen.tap("card", card="2C")
    assert "Trick 1: Peter wins" in screen.panel
    data, _v = store.draft(screen.table_id, DRAFT)
    assert json.dumps(data).count("Peter") == 0  # seats are stored, not names


def test_a_tap_brings_the_whole_page_to_its_version(table, client, store):
    """A tap's answer carries the standings, the history, the panel and the poll's
    marker at one version, out of band: the poll then doesn't fetch the deal back,
    and a change another phone made meanwhile arrives with it."""
    screen = table()
    response = screen.post("/szaman/tap", {"op": "lead", "seat": "0", "v": "0", "round": "1"})
    body = response.get_data(as_text=True)
    new = store.version(screen.table_id)
    assert re.search(r'<section id="szaman-panel"[^>]*hx-swap-oob="true"', body)
    assert f'id="live" hx-swap-oob="true" hx-get="{screen.url}/live?v={new}"' in body
    assert client.get(f"{screen.url}/live?v={new}").get_data() == b""  # unchanged
    # another phone renames a player meanwhile: the next tap's answer shows it
    first = store.players(screen.table_id)[0]
    store.rename_player(screen.table_id, first.id, "Zbigniew")
    response = screen.tap("card", card="2C")
    body = response.get_data(as_text=True)
    latest = store.version(screen.table_id)
    assert response.status_code == 200
    assert "Zbigniew" in body[: body.index('id="szaman-panel"')]  # in the standings
    assert f'hx-get="{screen.url}/live?v={latest}"' in body
