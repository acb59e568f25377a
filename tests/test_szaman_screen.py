"""The Szaman table screen through the Flask client: a deal entered tap by tap into a
server-side draft (full and quick tricks, a joker lead, the end-of-deal cards), undo,
refusals that store nothing, stale and retried taps, the watch link, Russian variant."""

from __future__ import annotations

import html
import itertools
import json
import re

import pytest
import tinyhtml5
from conftest import Page, another_phone_first
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from szaman_deal import FULL_DEAL, JOKER_SUITS, LEFT, NAMES, QUICK_DEAL, full_request, quick_request

from scorekeeper import api

HX = {"HX-Request": "true"}
DRAFT = "szaman-deal"
XHTML = "{http://www.w3.org/1999/xhtml}"


def text_of(markup: str) -> str:
    """HTML as it reads: its elements' text."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


class Screen:
    """One phone at the Szaman table: taps as the panel's buttons send them (the tap in
    the play state's notation, a fresh tap id each, as static/app.js gives them)."""

    ids = itertools.count()

    def __init__(self, client, url, html, csrf):
        self.client = client
        self.url = url
        self.html = html
        self.csrf = csrf
        self.status = 200
        self.last_tap_id = None

    @property
    def panel(self) -> str:
        start = self.html.index('id="szaman-panel"')
        return self.html[start : self.html.index("</section>", start)]

    @property
    def said(self) -> str:
        """The panel as it reads: its text (a name is an element of its own)."""
        return text_of(self.panel)

    @property
    def version(self) -> int:
        return int(re.search(r'data-deal-version="(\d+)"', self.panel).group(1))

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

    def send(self, tap: dict, tap_id=None, v=None, rnd=None):
        """Post one tap (its JSON notation) as a button does."""
        self.last_tap_id = tap_id or f"t{next(self.ids)}"
        data = {
            "tap_id": self.last_tap_id,
            "tap": json.dumps(tap),
            "v": str(self.version if v is None else v),
            "round": str(self.round if rnd is None else rnd),
        }
        return self.post("/szaman/tap", data)

    def tap(self, action, **args):
        return self.send({"action": action, **args})

    def button(self, *marks: str) -> dict:
        """The fields the panel's tap button carrying every one of ``marks`` sends: its
        own, those of the blocks around it (as htmx sends an element's inherited
        hx-vals, its own first), and the version the panel shows (the phone adds it:
        data-deal-version)."""
        tree = tinyhtml5.parse(self.panel)
        parent = {child: el for el in tree.iter() for child in el}
        wanted = [re.fullmatch(r'([\w-]+)="([^"]*)"', mark).groups() for mark in marks]
        for el in tree.iter(f"{XHTML}button"):
            if el.get("disabled") is None and all(el.get(k) == v for k, v in wanted):
                fields = {}
                while el is not None:
                    fields = {**json.loads(el.get("hx-vals") or "{}"), **fields}
                    el = parent.get(el)
                return {"v": self.version, **fields}
        raise AssertionError(f"no button {marks} on the panel")

    def press(self, *marks: str):
        """Tap the button carrying ``marks`` (what the panel offers, with its seat)."""
        fields = self.button(*marks)
        self.last_tap_id = f"t{next(self.ids)}"
        return self.post(
            "/szaman/tap", {**{k: str(v) for k, v in fields.items()}, "tap_id": self.last_tap_id}
        )

    def card(self, code):
        """The card picker's button for ``code`` (it names whose turn it is)."""
        return self.press(f'data-card="{code}"')

    def undo(self, tap_id=None):
        fields = self.button('data-op="undo"')
        return self.post("/szaman/undo", {"tap_id": tap_id or fields["tap_id"]})

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
        return html.unescape(found.group(1)) if found else None


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


def taps_of(store, screen) -> list[dict]:
    data, _version = store.draft(screen.table_id, DRAFT)
    return data["taps"] if data else []


def enter_full_tricks(screen, tricks=FULL_DEAL, suits=JOKER_SUITS):
    screen.tap("lead", seat=seat(tricks[0][0][0]))
    for i, plays in enumerate(tricks):
        for j, (_name, card) in enumerate(plays):
            screen.card(card)
            assert screen.status == 200, screen.error()
            if j == 0 and i in suits:
                assert screen.step == "suit"
                screen.press(f'data-suit="{suits[i]}"')
                assert screen.status == 200, screen.error()


def enter_left(screen, left=LEFT):
    for name in NAMES:
        for card in left[name]:
            screen.tap("held", seat=seat(name), card=card, on=True)
            assert screen.status == 200, screen.error()
        if f'data-done-seat="{seat(name)}"' in screen.panel:
            screen.press(f'data-done-seat="{seat(name)}"')
            assert screen.status == 200, screen.error()


def test_a_full_deal_tap_by_tap_is_a_draft_then_one_entry(table, store):
    screen = table()
    assert "Deal 1 of 6" in screen.said and screen.step == "lead"
    screen.tap("lead", seat=0)
    (lead,) = taps_of(store, screen)
    assert lead == {"id": screen.last_tap_id, "action": "lead", "seat": 0}
    taps = 1
    for i, plays in enumerate(FULL_DEAL):
        for j, (name, card) in enumerate(plays):
            assert f"Trick {i + 1}: {name} plays" in screen.said  # the state says whose turn
            screen.card(card)
            taps += 1
            assert screen.status == 200, screen.error()
            data, version = store.draft(screen.table_id, DRAFT)
            assert len(data["taps"]) == taps and screen.version == version  # saved per tap
            assert data["taps"][-1] == {
                "id": screen.last_tap_id,
                "action": "card",
                "seat": seat(name),
                "card": card,
            }
            if j == 0 and i in JOKER_SUITS:
                assert "which suit does Ola name?" in screen.said
                assert 'data-suit="H"' in screen.panel and 'data-suit="S"' not in screen.panel
                screen.press(f'data-suit="{JOKER_SUITS[i]}"')
                taps += 1
        if i < len(FULL_DEAL) - 1:
            # the trick's winner and points show as soon as it is complete
            expected = api.evaluate("szaman-deal", {**full_request(left=dict.fromkeys(NAMES, []))})[
                "tricks"
            ][i]
            assert f"Trick {i + 1}: {expected['winner']} wins" in screen.said
    assert store.entries(screen.table_id) == []  # a draft counts only once closed
    # trick 8 emptied Adam's hand: the deal is over, the app asks for the held cards
    assert screen.step == "end"
    assert re.search(r'<li class="done" data-seat="3"', screen.panel)  # Adam holds none
    # whose held cards a phone enters is kept for this deal alone, not carried into the
    # next deal's (app.js keeps a phone's choice under its scope's data-view-key)
    held_scope = re.search(r'class="sz-end" data-view-key="([^"]+)"', screen.panel).group(1)
    assert held_scope.endswith(":1:"), held_scope  # deal 1, not an edit
    assert "should hold 3 cards" in screen.said and "should hold 1 card" in screen.said
    enter_left(screen)
    assert "21 → −3" in screen.said and "13 → −2" in screen.said and "34 → −4" in screen.said
    assert "Save deal 1" in screen.said
    screen.save()
    assert screen.status == 200
    (entry,) = store.entries(screen.table_id)
    assert entry.kind == "szaman-deal" and entry.request == full_request()
    result = api.evaluate("szaman-deal", full_request())
    assert entry.result == result
    assert result["totals"] == {"Ola": 28, "Piotr": 1, "Zosia": 3, "Adam": -4}
    assert Page.totals(screen) == result["totals"]
    assert store.draft(screen.table_id, DRAFT) == (None, 0)  # closed with the entry
    assert "Deal 1 saved." in screen.html and "Deal 2 of 6" in screen.said
    # the entry keeps the tap log it was entered with (for Edit)
    assert [t["action"] for t in store.entry_taps(entry.id)][:3] == ["lead", "card", "card"]


def test_a_quick_deal_one_tap_a_plain_trick(table, store):
    screen = table()
    taps = 0
    for winner, specials, off in QUICK_DEAL:
        for name in specials:
            screen.press(f'data-special="{name}"')
            taps += 1
        for name in off:
            screen.press(f'data-off="{seat(name)}"')
            taps += 1
        screen.press('data-op="winner"', f'data-seat="{seat(winner)}"')
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
    # the next deal is first shown the way this one ended (each phone may switch)
    assert 'data-mode="quick" data-view-set="quick" aria-pressed="true"' in screen.panel
    assert 'data-view-default="quick"' in screen.panel and screen.step == "quick"


def test_full_and_quick_tricks_mix_in_one_deal(table, store):
    screen = table()
    screen.press('data-op="winner"', f'data-seat="{seat("Piotr")}"')
    # no "who leads" question: Piotr won the last trick; both ways stay on the panel
    assert "Trick 2: Piotr plays" in screen.said and 'data-view-only="full"' in screen.panel
    assert screen.step == "quick"  # shown first the way the last trick was entered
    for _name, card in FULL_DEAL[1]:
        screen.card(card)
    assert "Trick 2: Ola wins" in screen.said and "Ola +19" in screen.said
    assert [t["action"] for t in taps_of(store, screen)] == ["winner"] + ["card"] * 4
    # in the middle of a trick entered card by card, only cards are offered
    screen.card("5S")
    assert "data-view-only" not in screen.panel and 'data-op="winner"' not in screen.panel


def test_undo_takes_back_the_last_tap_only(table, store):
    screen = table()
    screen.post("/szaman/undo", {"tap_id": ""})
    assert screen.status == 422 and "nothing to undo" in screen.error()
    screen.tap("lead", seat=0)
    screen.card("2C")
    screen.card("KC")
    assert "Zosia plays" in screen.said
    screen.undo()
    assert screen.status == 200 and "Piotr plays" in screen.said
    assert [t.get("card") for t in taps_of(store, screen)] == [None, "2C"]
    # undo across a finished trick brings the trick back to its last card
    for card in ("KC", "5C", "9C"):
        screen.card(card)
    assert "Trick 1: Piotr wins" in screen.said
    screen.undo()
    assert "Adam plays" in screen.said and "Trick 1: Piotr wins" not in screen.said
    # and redo puts it back
    screen.post("/szaman/redo", {"tap_id": screen.button('data-op="redo"')["tap_id"]})
    assert "Trick 1: Piotr wins" in screen.said


@pytest.mark.parametrize(
    ("setup", "tap", "message"),
    [
        (
            [("lead", {"seat": 0}), ("card", {"seat": 0, "card": "2C"})],
            {"action": "card", "seat": 1, "card": "2C"},
            "already in",
        ),
        ([("lead", {"seat": 0})], {"action": "card", "seat": 0, "card": "ZZ"}, "ZZ"),
        ([("lead", {"seat": 0})], {"action": "card", "seat": 0, "card": "JK"}, "JK"),
        (
            [("lead", {"seat": 0})],
            {"action": "card", "seat": 2, "card": "2C"},
            "Ola's turn to lead trick 1",
        ),
        ([], {"action": "lead", "seat": 9}, "seat is a player's seat"),
        ([], {"action": "lead", "seat": "x"}, "seat is a player's seat"),
        (
            [("lead", {"seat": 0}), ("card", {"seat": 0, "card": "RJ"})],
            {"action": "suit", "seat": 0, "suit": "S"},
            "red joker",
        ),
        (
            [("lead", {"seat": 0}), ("card", {"seat": 0, "card": "RJ"})],
            {"action": "card", "seat": 1, "card": "2D"},
            "suit",
        ),
        (
            [("lead", {"seat": 0}), ("card", {"seat": 0, "card": "2C"})],
            {"action": "suit", "seat": 0, "suit": "C"},
            "only when",
        ),
        (
            [("lead", {"seat": 0}), ("card", {"seat": 0, "card": "2C"})],
            {"action": "winner", "seat": 0},
            "card by card",
        ),
        ([], {"action": "special", "card": "QS", "on": True}, "not a special"),
        ([], {"action": "special", "card": "2C", "on": True}, "not a special"),
        ([], {"action": "special", "card": "8H"}, "needs its on"),
        ([], {"action": "off", "seat": 1, "on": "yes"}, "not a toggle"),
        ([], {"action": "fly"}, "no tap called “fly”"),
        ([], {"action": "held", "seat": 0, "card": "2C", "on": True}, "once the deal is over"),
        ([], {"action": "end"}, "at least one trick"),
        (
            [("off", {"seat": 1, "on": True})],
            {"action": "winner", "seat": 1},
            "cannot have won",
        ),
    ],
)
def test_a_refused_tap_says_why_and_stores_nothing(table, store, setup, tap, message):
    screen = table()
    for action, args in setup:
        screen.tap(action, **args)
        assert screen.status == 200, screen.error()
    before = store.draft(screen.table_id, DRAFT)
    screen.send(tap)
    assert screen.status == 422
    assert message in screen.error()
    assert store.draft(screen.table_id, DRAFT) == before
    assert store.entries(screen.table_id) == []


def test_a_tap_that_breaks_a_rule_of_the_whole_deal_is_refused(table, store):
    screen = table()
    screen.press('data-special="joker"')
    screen.press('data-op="winner"', 'data-seat="0"')
    screen.press('data-special="joker"')
    screen.press('data-op="winner"', 'data-seat="1"')
    screen.card("2C")
    before = store.draft(screen.table_id, DRAFT)
    # two tricks were won by jokers: a third joker is not in the deck
    assert "RJ — used" in screen.panel and "BJ — used" in screen.panel
    screen.tap("card", seat=2, card="RJ")
    assert screen.status == 422 and "Both jokers" in screen.error()
    assert store.draft(screen.table_id, DRAFT) == before


def test_bad_or_missing_fields_store_nothing(table, store):
    screen = table()
    before = store.draft(screen.table_id, DRAFT)
    lead = json.dumps({"action": "lead", "seat": 0})
    for data in (
        {"tap_id": "a", "tap": lead},
        {"tap_id": "a", "tap": lead, "v": "x", "round": "1"},
        {"tap_id": "a", "tap": "{not json", "v": "0", "round": "1"},
        {"tap_id": "a", "tap": "[1]", "v": "0", "round": "1"},
        # a tap no page sends: its refusal never echoes it back at length
        {
            "tap_id": "a",
            "tap": json.dumps({"action": "card", "seat": 0, "card": "Z" * 5000}),
            "v": "0",
            "round": "1",
        },
        {"tap_id": "a", "tap": "[" * 900 + "]" * 900, "v": "0", "round": "1"},
        {"tap": lead, "v": "0", "round": "1"},  # no tap id
        {"tap_id": "a b", "tap": lead, "v": "0", "round": "1"},  # not an id
    ):
        screen.post("/szaman/tap", data)
        assert screen.status == 422 and screen.error(), data
        assert len(screen.error()) < 200
    assert "reload" in screen.error() or "id" in screen.error()
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


@pytest.mark.parametrize("seat_given", ["²", "٣x", "-1", "", "1234567"])
def test_a_seat_its_block_gives_that_is_no_small_number_is_refused(table, store, seat_given):
    """A card picker's seat comes from its block: a value that is no small whole number
    (a superscript digit is a digit, not a number) is refused, nothing stored."""
    screen = table()
    screen.tap("lead", seat=0)
    before = taps_of(store, screen)
    tap = json.dumps({"action": "card", "seat": "__block__", "card": "2C"})
    fields = {"tap_id": "b1", "tap": tap, "seat": seat_given, "v": screen.version, "round": 1}
    screen.post("/szaman/tap", fields)
    assert screen.status == 422 and "not something this screen can do" in screen.said
    assert taps_of(store, screen) == before


def test_a_replayed_tap_id_is_applied_once(table, store):
    """The same tap sent again (a lost answer, the browser retrying) changes nothing
    and is answered with the deal as it stands."""
    screen = table()
    screen.tap("lead", seat=0)
    fields = {k: str(v) for k, v in screen.button('data-card="2C"').items()}
    first = screen.post("/szaman/tap", {**fields, "tap_id": "same"})
    assert first.status_code == 200 and "Piotr plays" in screen.said
    version = store.draft(screen.table_id, DRAFT)[1]
    again = screen.post("/szaman/tap", {**fields, "tap_id": "same"})
    assert again.status_code == 200 and "Piotr plays" in screen.said
    assert store.draft(screen.table_id, DRAFT)[1] == version  # nothing written
    assert [t.get("card") for t in taps_of(store, screen)] == [None, "2C"]
    # the same card tapped again under a new id (the button was redrawn): still once
    screen.post("/szaman/tap", {**fields, "tap_id": "other"})
    assert screen.status == 200 and [t.get("card") for t in taps_of(store, screen)] == [None, "2C"]
    # a tap undone, then its late retry: still undone
    screen.card("KC")
    kc = screen.last_tap_id
    screen.undo()
    fields = {k: str(v) for k, v in screen.button('data-card="KC"').items()}
    screen.post("/szaman/tap", {**fields, "tap_id": kc})
    assert [t.get("card") for t in taps_of(store, screen)] == [None, "2C"]


def test_a_retried_undo_undoes_one_tap(table, store):
    screen = table()
    screen.tap("lead", seat=0)
    screen.card("2C")
    screen.card("KC")
    last = screen.button('data-op="undo"')["tap_id"]
    for _ in range(2):  # the same undo twice: a retry after a lost answer
        screen.post("/szaman/undo", {"tap_id": last})
        assert screen.status == 200
    assert [t.get("card") for t in taps_of(store, screen)] == [None, "2C"]
    assert "Piotr plays" in screen.said
    # an undo naming a tap that is no longer the last (another phone tapped since)
    screen.card("KC")
    screen.post("/szaman/undo", {"tap_id": taps_of(store, screen)[1]["id"]})
    assert screen.status == 409 and "Another tap came after" in screen.said
    assert [t.get("card") for t in taps_of(store, screen)] == [None, "2C", "KC"]


def test_a_stale_or_retried_tap_is_answered_with_the_deal_as_it_stands(table, store):
    screen = table()
    screen.tap("lead", seat=0)
    old = {k: str(v) for k, v in screen.button('data-card="2C"').items()}
    screen.post("/szaman/tap", {**old, "tap_id": "x1"})
    assert screen.status == 200
    screen.post("/szaman/tap", {**old, "tap_id": "x1"})  # the same tap again (a retry)
    assert screen.status == 200 and "Piotr plays" in screen.said
    # a tap made on a stale screen: Ola's card again, though it is Piotr's turn
    stale = json.dumps({"action": "card", "seat": 0, "card": "3C"})
    screen.post("/szaman/tap", {**old, "tap": stale, "tap_id": "x2"})
    assert screen.status == 422 and "Piotr's turn" in screen.error()
    assert [t.get("card") for t in taps_of(store, screen)] == [None, "2C"]
    assert "Piotr plays" in screen.said
    # a tap from a screen showing another deal (another round) is never applied to this one
    screen.post("/szaman/tap", {**old, "tap": stale, "tap_id": "x3", "round": "7"})
    assert screen.status == 409 and "changed a moment ago" in screen.said
    assert len(taps_of(store, screen)) == 2


def enter_quick_deal(screen):
    """QUICK_DEAL by taps, the left-over cards included: ready to save."""
    for winner, specials, off in QUICK_DEAL:
        for name in specials:
            screen.press(f'data-special="{name}"')
        for name in off:
            screen.press(f'data-off="{seat(name)}"')
        screen.press('data-op="winner"', f'data-seat="{seat(winner)}"')
    enter_left(screen)


def test_a_tap_landing_while_the_deal_is_saved_refuses_the_save(table, store, monkeypatch):
    """The save read the deal; before it wrote, another phone's tap changed the draft.
    Closing the draft would drop that tap unseen, so the save is refused."""
    from scorekeeper import deals

    screen = table()
    enter_quick_deal(screen)

    def a_tap_on_another_phone():  # as the store receives it: the draft written again
        data, _v = store.draft(screen.table_id, DRAFT)
        return store.save_draft(screen.table_id, DRAFT, data)

    another_phone_first(monkeypatch, deals, "save_into_entry", a_tap_on_another_phone)
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


def test_two_phones_see_one_draft_and_enter_one_deal(table, client, store):
    screen = table()
    other = Screen(client, screen.url, client.get(screen.url).get_data(as_text=True), screen.csrf)
    screen.tap("lead", seat=0)
    screen.card("2C")
    other.reload()
    assert "Piotr plays" in other.said and "2♣" in other.said  # the draft, on every phone
    other.card("KC")
    assert other.status == 200
    # made on a screen that missed Piotr's card: it says Piotr played 5C, and Piotr
    # already played: refused, never taken for Zosia's card
    screen.card("5C")
    assert (
        screen.status == 422 and "Zosia's turn" in screen.error() and "Zosia plays" in screen.said
    )
    other.card("5C")
    assert [t.get("card") for t in taps_of(store, screen)] == [None, "2C", "KC", "5C"]
    # the poll brings the draft to the other phones without a reload
    live = client.get(screen.url + "/live?v=0").get_data(as_text=True)
    assert 'id="szaman-panel" class="card szaman" hx-swap-oob="true"' in live
    assert "Adam plays" in text_of(live)


def test_two_phones_enter_two_players_held_cards_at_once(table, client, store):
    """Each phone has its own player open; neither phone's view is in the deal, and
    each tap names its player, so both hands come out right."""
    screen = table()
    for winner, specials, off in QUICK_DEAL:
        for name in specials:
            screen.press(f'data-special="{name}"')
        for name in off:
            screen.press(f'data-off="{seat(name)}"')
        screen.press('data-op="winner"', f'data-seat="{seat(winner)}"')
    other = Screen(client, screen.url, client.get(screen.url).get_data(as_text=True), screen.csrf)
    for ola, zosia in zip(LEFT["Ola"], LEFT["Zosia"], strict=True):
        screen.tap("held", seat=seat("Ola"), card=ola, on=True)  # phone A: Ola's cards
        other.tap("held", seat=seat("Zosia"), card=zosia, on=True)  # phone B: Zosia's
        assert screen.status == other.status == 200
    assert "Another phone changed this deal meanwhile" in other.said
    screen.tap("held", seat=seat("Piotr"), card="KS", on=True)
    assert "Save deal 1" in screen.said
    screen.save()
    (entry,) = store.entries(screen.table_id)
    assert entry.request["left"] == LEFT


def test_the_watch_link_shows_the_draft_and_can_change_nothing(table, client, store):
    screen = table()
    screen.tap("lead", seat=0)
    screen.card("2C")
    page = client.get(screen.url).get_data(as_text=True)
    watch = re.findall(r'data-copy="http://[^/]+(/t/[^"]+)"', page)[-1]
    view = client.get(watch).get_data(as_text=True)
    panel = Screen(client, watch, view, screen.csrf).said
    assert "Piotr plays" in panel and "2♣" in panel
    assert "hx-post" not in panel and "data-card" not in panel  # no write controls
    scorer_key = screen.url.rsplit("/", 1)[-1]
    assert scorer_key not in view  # the watch page never shows the scorer link
    before = store.draft(screen.table_id, DRAFT)
    tap = json.dumps({"action": "card", "seat": 1, "card": "KC"})
    for path, data in [
        ("/szaman/tap", {"tap_id": "w0", "tap": tap, "v": screen.version, "round": 1}),
        ("/szaman/undo", {"tap_id": taps_of(store, screen)[-1]["id"]}),
        ("/szaman/redo", {"tap_id": "w1"}),
        ("/szaman/save", {"v": screen.version, "round": 1, "submission_id": "w1"}),
        ("/szaman/discard", {"v": screen.version}),
        (f"/szaman/edit/{1}", {}),
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
    lead = {
        "tap_id": "n1",
        "tap": json.dumps({"action": "lead", "seat": 1}),
        "v": "0",
        "round": "1",
    }
    response = screen.post("/szaman/tap", lead, headers={})
    assert response.status_code == 303 and response.headers["Location"].endswith(screen.url)
    assert "Trick 1: Piotr plays" in screen.reload().said
    response = screen.post("/szaman/tap", {**lead, "round": "2", "tap_id": "n2"}, {})
    assert response.status_code == 409  # the full page, with the notice
    assert "<html" in response.get_data(as_text=True) and "changed a moment ago" in screen.said


def test_revoke_warning_and_joker_penalty(table, store):
    screen = table(players=("Ola", "Piotr"))
    screen.tap("lead", seat=0)
    for card in ("2S", "3H", "4S", "5S"):  # Piotr shows off-suit to spades, then a spade
        screen.card(card)
    assert "likely revoke" in screen.said
    screen.press('data-op="end"')
    assert screen.step == "end"
    screen.press('data-done-seat="0"')  # Ola holds nothing
    screen.tap("held", seat=1, card="BJ", on=True)
    screen.tap("held", seat=1, card="5D", on=True)
    assert "joker −20" in screen.said and "5 → −1 · joker −20 = −21" in screen.panel
    # the picker's button of a card held says "take it back", never "toggle"
    fields = re.findall(r"hx-vals='([^']*5D[^']*)'", screen.panel)
    taps = [json.loads(json.loads(html.unescape(f))["tap"]) for f in fields]
    assert {"action": "held", "seat": 1, "card": "5D", "on": False} in taps
    screen.tap("held", seat=1, card="5D", on=False)
    assert "5 → −1" not in screen.said
    screen.tap("held", seat=1, card="5D", on=False)  # already so: nothing changes
    assert screen.status == 200
    screen.press('data-done-seat="1"')
    screen.save()
    (entry,) = store.entries(screen.table_id)
    assert entry.request["left"] == {"Ola": [], "Piotr": ["BJ"]}
    assert entry.result["penalties"] == {"Piotr": -20}


def test_every_classic_hand_held_is_refused(table, store):
    screen = table(players=("Ola", "Piotr"))
    screen.press('data-op="winner"', 'data-seat="0"')
    screen.press('data-op="end"')
    screen.tap("held", seat=0, card="2C", on=True)
    screen.press('data-done-seat="0"')
    before = store.draft(screen.table_id, DRAFT)
    screen.tap("held", seat=1, card="3C", on=True)
    assert screen.status == 422
    assert "at least one player must hold none" in screen.error()
    assert store.draft(screen.table_id, DRAFT) == before
    assert "Save deal" not in screen.said
    screen.save(submission_id="x")
    assert screen.status == 422 and store.entries(screen.table_id) == []
    screen.press('data-done-seat="1"')
    assert "Save deal 1" in screen.said
    screen.save()
    assert store.entries(screen.table_id)[0].request["left"] == {"Ola": ["2C"], "Piotr": []}


def test_russian_asks_no_held_cards_and_counts_the_queen_of_spades(table, store):
    screen = table(players=("Ola", "Piotr", "Zosia", "Adam", "Ewa", "Jan"), variant="russian")
    assert "Russian" in screen.said
    assert 'data-special="QS"' in screen.panel
    screen.press('data-special="QS"')
    screen.press('data-op="winner"', 'data-seat="2"')
    assert "Zosia +13" in screen.said
    for _ in range(7):
        screen.press('data-op="winner"', 'data-seat="0"')
    assert screen.step == "quick"
    screen.press('data-op="winner"', 'data-seat="1"')  # 6 players: 9 tricks empty every hand (S-D6)
    assert screen.step == "end" and "held" not in screen.panel.split("sz-ask")[1][:200]
    assert "data-done-seat" not in screen.panel and "data-card" not in screen.panel
    screen.tap("held", seat=0, card="2C", on=True)
    assert screen.status == 422 and "Russian" in screen.error()
    screen.save()
    (entry,) = store.entries(screen.table_id)
    assert "left" not in entry.request and entry.request["variant"] == "russian"
    assert entry.result["totals"]["Zosia"] == 13


def test_the_game_ends_after_the_set_deals(table, store):
    screen = table(players=("Ola", "Piotr"), deals=1)
    screen.press('data-op="winner"', 'data-seat="0"')
    screen.press('data-op="end"')
    screen.press('data-done-seat="0"')
    screen.tap("held", seat=1, card="KS", on=True)
    screen.press('data-done-seat="1"')
    screen.save()
    assert "Ola wins" in screen.html and "is over" in screen.said
    assert "hx-post" not in screen.said
    tap = json.dumps({"action": "winner", "seat": 0})
    screen.post("/szaman/tap", {"tap_id": "late", "tap": tap, "v": "0", "round": "2"})
    assert screen.status == 409
    assert len(store.entries(screen.table_id)) == 1
    assert store.draft(screen.table_id, DRAFT) == (None, 0)
    # a card changer left open on a phone: the game is over, said as such
    status, block = change_block(screen, 1, 0)
    assert status == 409 and "The game is over" in block
    assert store.draft(screen.table_id, DRAFT) == (None, 0)


def test_a_rename_in_the_middle_of_a_deal_keeps_the_draft(table, client, store):
    screen = table(players=("Ola", "Piotr"))
    screen.tap("lead", seat=1)
    screen.card("AC")
    player = store.players(screen.table_id)[1]
    client.post(
        screen.url + f"/players/{player.id}/name",
        data={"name": "Peter", "csrf_token": screen.csrf, "submission_id": "rn"},
    )
    screen.reload()
    assert "Trick 1: Ola plays" in screen.said and "Peter" in screen.said
    screen.card("2C")
    assert "Trick 1: Peter wins" in screen.said
    data, _v = store.draft(screen.table_id, DRAFT)
    assert json.dumps(data["taps"]).count("Peter") == 0  # taps name seats, not names
    assert data["context"]["players"] == ["Ola", "Peter"]


def test_a_tap_answers_with_the_panel_alone_at_its_version(table, client, store):
    """A tap's answer is the panel only (out of band), not the table. When the phone
    had seen the table just before it, the answer moves the poll's marker on, so the
    poll doesn't fetch the deal back; when another phone changed the table meanwhile,
    the marker stays and the poll brings that change."""
    screen = table()
    seen = store.version(screen.table_id)
    lead = json.dumps({"action": "lead", "seat": 0})
    response = screen.post(
        "/szaman/tap", {"tap_id": "p1", "tap": lead, "v": "0", "round": "1", "seen": str(seen)}
    )
    body = response.get_data(as_text=True)
    new = store.version(screen.table_id)
    assert re.search(r'<section id="szaman-panel"[^>]*hx-swap-oob="true"', body)
    assert 'id="standings"' not in body and 'id="history"' not in body  # the panel alone
    assert f'id="live" hx-swap-oob="true" hx-get="{screen.url}/live?v={new}"' in body
    assert client.get(f"{screen.url}/live?v={new}").get_data() == b""  # unchanged
    # another phone renames a player meanwhile: the next tap leaves the marker alone,
    # so the poll fetches the rename
    first = store.players(screen.table_id)[0]
    store.rename_player(screen.table_id, first.id, "Zbigniew")
    fields = {k: str(v) for k, v in screen.button('data-card="2C"').items()}
    response = screen.post("/szaman/tap", {**fields, "tap_id": "p2", "seen": str(new)})
    body = response.get_data(as_text=True)
    assert response.status_code == 200 and 'id="live"' not in body
    latest = store.version(screen.table_id)
    live = client.get(f"{screen.url}/live?v={new}").get_data(as_text=True)
    assert "Zbigniew" in live[: live.index('id="szaman-panel"')]  # in the standings
    assert f'hx-get="{screen.url}/live?v={latest}"' in live


def save_full_deal(screen):
    enter_full_tricks(screen)
    enter_left(screen)
    screen.save()
    assert screen.status == 200


def test_edit_of_a_saved_deal_changes_one_card_and_supersedes_it(table, client, store):
    """Edit in the history reopens the deal's taps with every card as it was; one card
    changed and saved is one new entry of the same round that supersedes the old (the
    history keeps both); undo of the edit brings the old one back."""
    screen = table()
    save_full_deal(screen)
    (old,) = store.entries(screen.table_id)
    history = client.get(screen.url + "/history").get_data(as_text=True)
    edit = f"{screen.url}/szaman/edit/{old.id}"
    assert f'action="{edit}"' in history  # the Edit of a saved deal
    response = client.post(edit, headers={"X-CSRFToken": screen.csrf})
    assert response.status_code == 303
    screen.reload()
    assert "Changing round 1" in screen.said and screen.step == "end"
    assert store.draft(screen.table_id, DRAFT)[0]["taps"] == store.entry_taps(old.id)
    # every card as it was: the tricks and the held cards
    assert "8 tricks" in screen.said and "34 → −4" in screen.said
    screen.tap("held", seat=seat("Zosia"), card="AS", on=False)
    screen.tap("held", seat=seat("Zosia"), card="3S", on=True)
    assert "23 → −3" in screen.said and "Save the changed deal 1" in screen.said
    screen.save()
    assert screen.status == 200 and "Deal 1 changed." in screen.html
    entries = store.entries(screen.table_id)
    assert [(e.round, e.state) for e in entries] == [(1, "superseded"), (1, "live")]
    new = entries[1]
    assert new.supersedes == old.id and new.request["left"]["Zosia"] == ["JD", "9D", "3S"]
    expected = api.evaluate("szaman-deal", new.request)["totals"]
    assert expected["Zosia"] == old.result["totals"]["Zosia"] + 1
    assert Page.totals(screen.reload()) == expected
    assert store.draft(screen.table_id, DRAFT) == (None, 0) and "Deal 2 of 6" in screen.said
    # undo of the edit restores the old deal
    client.post(
        f"{screen.url}/entries/{new.id}/undo",
        data={"submission_id": "undo-edit"},
        headers={"X-CSRFToken": screen.csrf},
    )
    assert [e.state for e in store.entries(screen.table_id)] == ["live", "voided"]
    assert store.totals(screen.table_id) == {
        p.id: old.result["totals"][p.name] for p in store.players(screen.table_id)
    }


def change_block(screen, trick, seat_no, key=None) -> tuple[int, str]:
    """The choices a phone gets for changing one card of an earlier trick."""
    key = key or screen.url
    response = screen.client.get(f"{key}/szaman/change?trick={trick}&seat={seat_no}", headers=HX)
    return response.status_code, response.get_data(as_text=True)


def change_fields(screen, block: str, code: str) -> dict:
    """What the block's button for ``code`` sends: its tap, the block's trick and seat
    (inherited hx-vals) and the version the panel shows."""
    block_vals = json.loads(html.unescape(re.search(r"<details[^>]*hx-vals='([^']*)'", block)[1]))
    button = re.search(rf'<button[^>]*data-card="{code}"[^>]*>', block)[0]
    assert " disabled" not in button, button
    own = json.loads(html.unescape(re.search(r"hx-vals='([^']*)'", button)[1]))
    return {"v": screen.version, **block_vals, **own}


def test_a_card_of_an_earlier_trick_is_changed_without_undoing_the_tricks_after_it(table, store):
    """Adam's 9♣ of trick 1 was really the 6♣, noticed at trick 5: the trick's card is
    tapped, the cards it may become come for this phone alone, one tap changes it, and
    the three tricks after it stay."""
    screen = table()
    enter_full_tricks(screen, FULL_DEAL[:4])
    before = len(taps_of(store, screen))
    assert 'data-change="1-3"' in screen.panel  # the trick's cards are buttons
    status, block = change_block(screen, 1, seat("Adam"))
    assert status == 200 and 'data-changing="1-3"' in block
    assert re.search(
        r'data-card="9C"[^>]*aria-pressed="true"|aria-pressed="true"[^>]*data-card="9C"', block
    )
    assert re.search(r'<button[^>]*data-card="KC"[^>]*disabled', block)  # Piotr's, in trick 1
    assert len(taps_of(store, screen)) == before  # a look stores nothing
    fields = change_fields(screen, block, "6C")
    screen.post("/szaman/tap", {**{k: str(v) for k, v in fields.items()}, "tap_id": "change-1"})
    assert screen.status == 200
    state = store.draft(screen.table_id, DRAFT)[0]
    assert state["taps"][-1] == {
        "id": "change-1",
        "action": "change",
        "trick": 1,
        "seat": 3,
        "card": "6C",
    }
    trick_one = re.search(r'<li data-trick="1"[^>]*>.*?</li>', screen.panel, re.S)[0]
    assert 'data-change="1-3"' in trick_one and "6♣" in trick_one and "9♣" not in trick_one
    assert "4 tricks" in screen.said
    # a change that would give the trick to another player is refused, nothing stored
    status, block = change_block(screen, 1, seat("Ola"))
    fields = change_fields(screen, block, "AC")
    screen.post("/szaman/tap", {**{k: str(v) for k, v in fields.items()}, "tap_id": "change-2"})
    assert screen.status == 422
    assert "Ola would win trick 1, not Piotr" in html.unescape(screen.panel)
    assert len(taps_of(store, screen)) == before + 1


def test_the_card_changer_answers_only_for_a_card_of_a_trick_on_the_scorer_link(
    table, client, store
):
    screen = table()
    enter_full_tricks(screen, FULL_DEAL[:1])
    for trick, seat_no in (
        ("2", "0"),
        ("1", "9"),
        ("x", "0"),
        ("1", ""),
        ("1" * 9, "0"),
        ("¹", "0"),
    ):
        status, block = change_block(screen, trick, seat_no)
        assert status == 422 and "not in a trick entered card by card" in block, (trick, seat_no)
    watch = store.table(screen.table_id).watch_key
    status, _block = change_block(screen, 1, 0, key=f"/t/{watch}")
    assert status == 403
    page = client.get(f"/t/{watch}").get_data(as_text=True)
    assert "data-change=" not in page and "sz-trick-card" not in page


QUERY = st.text(max_size=8) | st.integers(-3, 40).map(str)


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(queries=st.lists(st.tuples(QUERY, QUERY), min_size=1, max_size=25))
def test_the_card_changer_survives_any_query(table, store, queries):
    """Whatever a query says, the changer answers with the choices or why not, never a
    500, and stores nothing."""
    screen = table()
    enter_full_tricks(screen, FULL_DEAL[:1])
    before = taps_of(store, screen)
    for trick, seat_no in queries:
        response = screen.client.get(
            f"{screen.url}/szaman/change",
            query_string={"trick": trick, "seat": seat_no},
            headers=HX,
        )
        assert response.status_code in (200, 422), (trick, seat_no)
    assert taps_of(store, screen) == before


def test_edit_is_refused_while_a_deal_is_entered_and_can_be_given_up(table, client, store):
    screen = table()
    save_full_deal(screen)
    (old,) = store.entries(screen.table_id)
    screen.tap("lead", seat=1)
    edit = f"/szaman/edit/{old.id}"
    response = screen.post(edit, {})
    assert response.status_code == 409 and "A deal is being entered" in screen.said
    screen.undo()
    response = screen.post(edit, {})
    assert response.status_code == 200 and "Changing round 1" in screen.said
    again = screen.post(edit, {})  # a retried Edit changes nothing
    assert again.status_code == 200
    screen.post("/szaman/discard", {"v": screen.version})
    assert screen.status == 200 and store.draft(screen.table_id, DRAFT) == (None, 0)
    assert [e.state for e in store.entries(screen.table_id)] == ["live"]


def test_an_entry_saved_without_a_tap_log_is_reopened_from_its_request(table, client, store):
    """A deal saved before tap logs were kept (or imported) is rebuilt from its request."""
    screen = table()
    save_full_deal(screen)
    (old,) = store.entries(screen.table_id)
    store.db.execute("UPDATE entries SET taps = NULL")
    store.db.conn.commit()
    screen.post(f"/szaman/edit/{old.id}", {})
    assert "Changing round 1" in screen.said and "34 → −4" in screen.said
    screen.save()
    entries = store.entries(screen.table_id)
    assert entries[-1].request == old.request and entries[-1].supersedes == old.id


def test_an_old_shape_draft_is_read_and_upgraded_by_the_next_tap(table, store):
    """A draft stored before the tap log (``{"mode", "taps": [{"op"…}]}``) shows as it was,
    and the next tap stores it as a tap log."""
    screen = table()
    old = {
        "mode": "full",
        "taps": [
            {"op": "lead", "seat": "0"},
            {"op": "card", "card": "2C"},
            {"op": "card", "card": "KC"},
            {"op": "mode", "mode": "quick"},
            {"op": "mode", "mode": "full"},
            {"op": "card", "card": "5C"},
        ],
    }
    store.save_draft(screen.table_id, DRAFT, old)
    screen.reload()
    assert "Adam plays" in screen.said and "5♣" in screen.said
    screen.card("9C")
    data, _v = store.draft(screen.table_id, DRAFT)
    assert [(t["action"], t.get("seat"), t.get("card")) for t in data["taps"]] == [
        ("lead", 0, None),
        ("card", 0, "2C"),
        ("card", 1, "KC"),
        ("card", 2, "5C"),
        ("card", 3, "9C"),
    ]
    assert "Trick 1: Piotr wins" in screen.said


def in_the_history(client, screen, entry_id: int, action: str, sid: str):
    """Undo or redo of an entry in the history, as its form posts it."""
    return client.post(
        f"{screen.url}/entries/{entry_id}/{action}",
        data={"submission_id": sid},
        headers={"X-CSRFToken": screen.csrf},
    )


def saved_and_undone(table, client, store):
    """A full deal saved, then undone in the history: the screen, the entry, and its
    history's undo and redo (``history(action, submission id)``)."""
    screen = table()
    save_full_deal(screen)
    (entry,) = store.entries(screen.table_id)

    def history(action, sid):
        return in_the_history(client, screen, entry.id, action, sid)

    history("undo", "u1")
    screen.reload()
    return screen, entry, history


def test_undo_of_a_saved_deal_brings_its_taps_back_not_an_empty_deal(table, client, store):
    screen, entry, history = saved_and_undone(table, client, store)
    # the deal as it was saved, every card in: one tap on Save puts it back
    assert screen.step == "end" and "8 tricks" in screen.said and "34 → −4" in screen.said
    assert "Save deal 1" in screen.said and "Deal 1 of 6" in screen.said
    assert store.draft(screen.table_id, DRAFT)[0]["taps"] == store.entry_taps(entry.id)
    # redo instead: the saved deal counts again and the screen is free for the next one
    assert history("redo", "r1").status_code == 303
    assert store.draft(screen.table_id, DRAFT) == (None, 0)
    assert [e.state for e in store.entries(screen.table_id)] == ["live"]
    # undone again, changed on the screen, saved: its round again, not a new one
    history("undo", "u2")
    screen.reload()
    screen.tap("held", seat=seat("Zosia"), card="AS", on=False)
    response = history("redo", "r2")  # the reopened deal was changed: redo refused
    assert response.status_code == 409 and "reopened and changed" in response.get_data(as_text=True)
    screen.reload()
    screen.tap("held", seat=seat("Zosia"), card="3S", on=True)
    screen.save()
    assert [(e.round, e.state) for e in store.entries(screen.table_id)] == [
        (1, "voided"),
        (1, "live"),
    ]
    assert "Deal 2 of 6" in screen.said


def test_a_deal_undone_then_saved_anew_is_not_counted_twice_by_a_redo(table, client, store):
    """Undo a saved deal, save its round again (its taps came back to the screen), then
    redo the old entry from the history: the round would count twice, so the redo is
    refused and the totals stay those of the deal saved anew."""
    screen, _entry, history = saved_and_undone(table, client, store)
    screen.save()  # the deal's own taps, saved as they came back
    totals = store.totals(screen.table_id)
    response = history("redo", "r1")
    assert response.status_code == 409
    said = text_of(response.get_data(as_text=True))
    assert "Round 1 was entered again after this entry was undone" in said
    assert [(e.round, e.state) for e in store.entries(screen.table_id)] == [
        (1, "voided"),
        (1, "live"),
    ]
    assert store.totals(screen.table_id) == totals


def test_an_undone_deal_saved_again_after_its_round_was_redone_is_refused(table, client, store):
    """A deal undone comes back to the screen; the round's other deal redone in the
    history meanwhile takes that log off the screen (saved, it would count the round
    twice). Were it still there, its save is refused, with why, and nothing changes."""
    screen = table()
    save_full_deal(screen)
    (first,) = store.entries(screen.table_id)

    def history(entry_id, action, sid):
        return in_the_history(client, screen, entry_id, action, sid)

    history(first.id, "undo", "u1")
    screen.reload()
    screen.save()  # the same taps, saved as they came back: the round's second entry
    second = store.entries(screen.table_id)[-1]
    history(second.id, "undo", "u2")  # its taps back on the screen
    reopened, _version = store.draft(screen.table_id, DRAFT)
    assert reopened["taps"]
    assert history(first.id, "redo", "r1").status_code == 303  # the round counts once
    assert not (store.draft(screen.table_id, DRAFT)[0] or {}).get("taps")
    store.save_draft(screen.table_id, DRAFT, reopened)
    screen.reload()
    totals = store.totals(screen.table_id)
    response = screen.save()
    assert response.status_code == 409
    assert "Round 1 was just entered on another phone" in text_of(response.get_data(as_text=True))
    assert [(e.id, e.live) for e in store.entries(screen.table_id)] == [
        (first.id, True),
        (second.id, False),
    ]
    assert store.totals(screen.table_id) == totals


def test_the_first_lead_hint_lists_the_engine_order(table):
    """The hint under "who leads?" names the cards in the order the engine picks the
    first leader by (RULES §2), never a sentence that contradicts its own list."""
    from scorekeeper.games import szaman as engine

    screen = table()
    found = re.search(r'class="hint sz-lead-hint">([^<]+)<', screen.panel)
    hint = html.unescape(found.group(1))
    shown = re.findall(r"(?:10|[2-9JQKA])[♣♦♥♠]", hint)
    assert len(shown) >= 5
    assert shown == [card.symbol for card in engine.first_lead_order()][: len(shown)]
    assert "club" not in hint


def test_held_cards_that_do_not_add_up_are_told_in_a_sentence(table):
    """A hand closed with fewer cards than it should hold: the warning says how many
    that player should have left and that none are entered, not "left lists 0"."""
    screen = table(players=("Ola", "Piotr"))
    screen.tap("lead", seat=0)
    for card in ("2S", "3S"):
        screen.card(card)
    screen.press('data-op="end"')
    screen.press('data-done-seat="0"')
    screen.press('data-done-seat="1"')
    panel = html.unescape(screen.panel)
    assert "Ola should have 7 cards left at the end of this deal" in panel
    assert "but none are entered." in panel
    assert "left lists" not in panel


def test_the_watch_link_is_told_what_happens_never_asked(table, client):
    """A watcher cannot answer, so the panel states the trick being played instead of
    asking who leads or who won it."""
    screen = table()
    page = client.get(screen.url).get_data(as_text=True)
    watch = re.findall(r'data-copy="http://[^/]+(/t/[^"]+)"', page)[-1]

    def heads() -> list[str]:
        view = client.get(watch).get_data(as_text=True)
        panel = Screen(client, watch, view, screen.csrf).panel
        return [html.unescape(h) for h in re.findall(r"<h[34][^>]*>([^<]*)</h[34]>", panel)]

    assert "Trick 1 about to be led" in heads()
    screen.tap("winner", seat=1)  # a quick trick: Piotr leads the next one
    assert "Trick 2 being played" in heads()
    assert not [h for h in heads() if "?" in h]
    assert "who won it?" in html.unescape(screen.reload().panel)  # the scorer is asked


def test_a_cards_seat_is_its_blocks_and_its_tap_names_it(table, store):
    """The card picker's buttons name no seat: the block around them does (its hx-vals,
    sent with each tap), so the tap stored names the player whose turn it was."""
    screen = table()
    screen.tap("lead", seat=1)
    fields = screen.button('data-card="2C"')
    assert json.loads(fields["tap"])["seat"] == "__block__" and fields["seat"] == 1
    screen.card("2C")
    assert screen.status == 200
    assert taps_of(store, screen)[-1] == {
        "id": screen.last_tap_id, "action": "card", "seat": 1, "card": "2C",
    }  # fmt: skip


@pytest.mark.parametrize("seat", [None, "", "x", "-1", "1.5", "9999999"])
def test_a_blocks_seat_missing_or_not_a_number_is_refused(table, store, seat):
    screen = table()
    screen.tap("lead", seat=1)
    fields = {k: str(v) for k, v in screen.button('data-card="2C"').items() if k != "seat"}
    if seat is not None:
        fields["seat"] = seat
    before = taps_of(store, screen)
    screen.post("/szaman/tap", {**fields, "tap_id": "block-seat"})
    assert screen.status == 422 and "not something this screen can do" in screen.error()
    assert taps_of(store, screen) == before


def test_the_card_picker_is_kept_from_one_turn_to_the_next(table):
    """A card played changes its suit's group alone (it is "played" now): the answer to
    the tap writes the other groups as holes, though the turn moved on."""
    screen = table()
    screen.tap("lead", seat=0)
    screen.card("2C")  # Ola leads clubs: Piotr's turn
    have = re.findall(r'data-frag="([0-9a-f]{16})"', screen.panel)
    groups = re.findall(r'aria-label="Cards: ([^"]+)" data-frag="([0-9a-f]{16})"', screen.panel)
    fields = {k: str(v) for k, v in screen.button('data-card="3C"').items()}
    screen.post("/szaman/tap", {**fields, "tap_id": "kept", "have": " ".join(have)})
    assert screen.status == 200 and "Zosia plays" in screen.said
    kept = re.findall(r'data-frag-kept="([0-9a-f]{16})"', screen.panel)
    assert [label for label, key in groups if key not in kept] == ["♣"]


def test_the_first_lead_asks_only_for_what_the_panel_offers(table):
    """Before the first trick the panel offers the players to tap, no cards (whose card
    would it be?): it does not tell the table to tap a card it does not show."""
    screen = table()
    assert screen.step == "lead"
    assert screen.button('data-op="lead"', 'data-seat="2"')
    assert 'class="pick' not in screen.panel  # no card to tap yet
    assert "tap the first card" not in screen.said.lower()


def test_holds_no_cards_is_the_button_to_tap_only_when_no_card_is_due(table):
    """At the end of a deal each hand is closed by its Done button. With no card entered
    it reads "Ola holds no cards": the big green button to tap when Ola is due none,
    a plain one when she should still hold some (its tap would only be warned about)."""
    screen = table(players=("Ola", "Piotr"))
    screen.tap("lead", seat=0)
    for card in ("2S", "3S"):
        screen.card(card)
    screen.press('data-op="end"')

    def done_button(seat: int) -> str:
        return re.search(rf'<button[^>]*data-done-seat="{seat}"[^>]*>', screen.panel).group(0)

    assert "primary" not in done_button(0) and "Ola holds no cards" in screen.said
    screen.tap("held", seat=0, card="KH", on=True)
    assert "primary" in done_button(0)


@pytest.mark.parametrize(
    ("language", "button"),
    [("en", "Won by a joker"), ("pl", "Wzięta jokerem"), ("sr-Cyrl", "Узео џокер")],
)
def test_the_quick_trick_s_joker_button_begins_with_a_capital(client, new_table, language, button):
    """Beside the card buttons of a quick trick, "won by a joker" is a label of its own
    and begins with a capital; in the trick's line it stays inside the sentence."""
    url, page = new_table("szaman", NAMES, language=language)
    screen = Screen(client, url, page.html, page.csrf)
    label = re.search(r'data-special="joker"[^>]*>([^<]*)<', screen.panel)
    assert label is not None and label.group(1).strip() == button
    screen.press('data-special="joker"')
    screen.press('data-op="winner"', 'data-seat="0"')
    assert screen.status == 200, screen.error()
    assert f": {button[:1].lower()}{button[1:]}" in html.unescape(screen.panel)
