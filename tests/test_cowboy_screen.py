"""The Wyoming Cowboy screen through the Flask client, on the one screen mechanism: every
tap added to the deal's log (a replayed tap id once, a tap that is already so not at
all), the engine's preview and refusals placed next to the right player, marriages
(C-D1) counted at once and taken over by the closed deal without double counting, the
shot referee, Edit of a saved deal, an old draft upgraded, the watch link, bad input."""

from __future__ import annotations

import html
import itertools
import json
import re

import pytest
from conftest import another_phone_first, statements_of

from scorekeeper import api, i18n
from scorekeeper import store as store_module
from scorekeeper.cards import symbols

HX = {"HX-Request": "true"}
NAMES = ("Ana", "Bojan", "Ceca", "Dragan")
RULES_ON = {"cowboy-marriage_and_harlot": "on", "cowboy-curse_replaces_sixes": "on"}
DRAFT = "cowboy-deal"
tap_ids = itertools.count()


def seat(name):
    return NAMES.index(name)


class Table:
    """A cowboy table and one phone's taps, as the panel's buttons send them."""

    def __init__(self, client, store, parsed, url, page):
        self.client, self.store, self.parsed = client, store, parsed
        self.url, self.csrf, self.html = url, page.csrf, page.html
        (self.table,) = store.list_tables()
        self.ids = {p.name: p.id for p in store.players(self.table.id)}
        self.status = 200

    @property
    def panel(self) -> str:
        start = self.html.index('<section id="cowboy-panel"')
        return self.html[start : self.html.index("</section>", start)]

    @property
    def version(self) -> int:
        return int(re.search(r'data-deal-version="(\d+)"', self.panel).group(1))

    @property
    def round(self) -> int:
        return int(re.search(r'data-round="(\d+)"', self.panel).group(1))

    def post(self, path, data=None, headers=HX):
        response = self.client.post(
            f"{self.url}/cowboy{path}",
            data=data or {},
            headers={**headers, "X-CSRFToken": self.csrf},
        )
        self.status = response.status_code
        body = response.get_data(as_text=True)
        if 'id="cowboy-panel"' in body:
            self.html = body
        return body

    def send(self, action, tap_id=None, v=None, rnd=None, **args):
        """One tap in the play state's notation, with a fresh tap id (as app.js gives)."""
        self.last_id = tap_id or f"t{next(tap_ids)}"
        return self.post(
            "/tap",
            {
                "tap_id": self.last_id,
                "tap": json.dumps({"action": action, **args}),
                "v": str(self.version if v is None else v),
                "round": str(self.round if rnd is None else rnd),
            },
        )

    def tap(self, action, **args):
        out = self.send(action, **args)
        assert self.status == 200, (self.status, errors(out))
        return out

    def button(self, *marks: str) -> dict:
        """The fields the panel's enabled tap button carrying every one of ``marks`` sends:
        its own, and the version the panel shows (the phone adds it: data-deal-version)."""
        for tag in re.findall(r"<button\b[^>]*>", self.panel, re.S):
            if all(m in tag for m in marks) and "data-tap" in tag and "disabled" not in tag:
                vals = json.loads(html.unescape(re.search(r"hx-vals='([^']*)'", tag).group(1)))
                return {"v": self.version, **vals}
        raise AssertionError(f"no button {marks} on the panel")

    def press(self, *marks: str):
        fields = self.button(*marks)
        self.last_id = f"t{next(tap_ids)}"
        out = self.post("/tap", {**{k: str(v) for k, v in fields.items()}, "tap_id": self.last_id})
        assert self.status == 200, (self.status, errors(out))
        return out

    def hold(self, name, *cards):
        for card in cards:
            self.tap("hold", seat=seat(name), card=card)

    def gun(self, name, cards):
        for card in cards:
            self.tap("build", seat=seat(name), card=card)

    def lay(self, name, *cards):
        for card in cards:
            self.tap("lay", seat=seat(name), card=card)

    def marriage(self, name, suit, tap_id=None):
        return self.send("marriage", tap_id=tap_id, seat=seat(name), suit=suit)

    def save(self, submission_id="deal-1"):
        return self.post(
            "/save", {"v": self.version, "round": self.round, "submission_id": submission_id}
        )

    def undo(self):
        return self.post("/undo", {"tap_id": self.button_vals('data-op="undo"')["tap_id"]})

    def redo(self):
        return self.post("/redo", {"tap_id": self.button_vals('data-op="redo"')["tap_id"]})

    def button_vals(self, mark):
        tag = next(t for t in re.findall(r"<button\b[^>]*>", self.panel, re.S) if mark in t)
        return json.loads(html.unescape(re.search(r"hx-vals='([^']*)'", tag).group(1)))

    def taps(self):
        data = self.store.draft(self.table.id, DRAFT)[0]
        return data["taps"] if data else None

    def state(self):
        from scorekeeper.games.play import play

        data = self.store.draft(self.table.id, DRAFT)[0]
        return play("cowboy", {"players": data["context"]["players"], "taps": data["taps"]})

    def entries(self, live_only=False):
        return self.store.entries(self.table.id, live_only=live_only)

    def totals(self):
        by_id = self.store.totals(self.table.id)
        return {name: by_id[pid] for name, pid in self.ids.items()}

    def reload(self):
        self.html = self.client.get(self.url).get_data(as_text=True)
        return self.html


@pytest.fixture
def cowboy(client, store, parsed, new_table):
    def make(players=NAMES, **fields):
        url, page = new_table("cowboy", players, **{**RULES_ON, **fields})
        return Table(client, store, parsed, url, page)

    return make


def errors(text):
    return [html.unescape(e) for e in re.findall(r'class="field-error[^"]*"[^>]*>([^<]+)<', text)]


def seat_panel(text, name):
    start = text.index(f'<div class="cb-player" data-player="{name}"')
    return text[
        start : text.index('<div class="cb-player"', start + 10) if name != NAMES[-1] else None
    ]


def pressed(text, code):
    tag = next(t for t in re.findall(r"<button\b[^>]*>", text) if f'data-card="{code}"' in t)
    return 'aria-pressed="true"' in tag


def enter_whole_deal(t):
    """The end of a deal: Bojan ended it on tens (he drew the 22)."""
    t.tap("end", seat=seat("Bojan"), reason="tens")
    t.hold("Ana", "KH", "AH", "QS", "JD")
    t.lay("Ana", "10S", "10C")
    t.gun("Bojan", ["2S", "2H"])
    t.lay("Bojan", "10H")
    t.hold("Bojan", "6C", "6D", "6S")
    t.hold("Ceca", "QH", "JH")
    t.lay("Ceca", "10D")
    t.gun("Ceca", ["3D", "5D", "7D"])
    t.hold("Dragan", "KS", "AS", "KC", "QC")
    t.gun("Dragan", ["4C", "5C"])
    return t.html


def whole_deal_request(marriages=()):
    return {
        "players": list(NAMES),
        "end": {"by": "Bojan", "reason": "tens"},
        "shown_marriages": [{"player": p, "suit": s} for p, s in marriages],
        "held": {
            "Ana": ["KH", "AH", "QS", "JD"],
            "Bojan": ["6C", "6D", "6S"],
            "Ceca": ["QH", "JH"],
            "Dragan": ["KS", "AS", "KC", "QC"],
        },
        "guns": {"Bojan": [["2S", "2H"]], "Ceca": [["3D", "5D", "7D"]], "Dragan": [["4C", "5C"]]},
        "tens": {"Ana": ["10S", "10C"], "Bojan": ["10H"], "Ceca": ["10D"]},
        "house_rules": {"marriage_and_harlot": True, "curse_replaces_sixes": True},
    }


# ---------------------------------------------------------------- the panel and the log


def test_the_table_page_shows_the_panel_with_the_house_rules(cowboy):
    t = cowboy(**{"cowboy-curse_replaces_sixes": ""})
    # reference, not the next action: one folded line, "1 of 2 on"
    rules = re.search(r'<details class="cb-rules"[^>]*>(.*?)</details>', t.html, re.S).group(1)
    assert "1 of 2 on" in rules
    assert "C-D7" in rules and "C-D8" in rules
    assert 'class="cb-rule on"' in rules and 'class="cb-rule off"' in rules
    assert "Round 1" in t.panel and 'data-view-default="play"' in t.panel


def test_a_taps_answer_names_the_dealer_as_the_table_page_does(cowboy):
    t = cowboy()
    dealer = re.search(r"<small>· (\w+) deals</small>", t.panel)
    assert dealer, "the table page names the dealer"
    t.tap("hold", seat=0, card="KH")
    assert re.search(r"<small>· (\w+) deals</small>", t.panel).group(1) == dealer.group(1)


def test_every_tap_is_added_to_the_log_and_a_replayed_id_is_applied_once(cowboy):
    t = cowboy()
    assert t.taps() is None
    t.tap("hold", seat=0, card="KH", tap_id="a1")
    assert [x["id"] for x in t.taps()] == ["a1"]
    assert pressed(seat_panel(t.panel, "Ana"), "KH")
    # the same tap again (a retry after a lost answer): applied once, nothing written
    version = t.store.version(t.table.id)
    t.tap("hold", seat=0, card="KH", tap_id="a1", v=t.version - 1)
    assert [x["id"] for x in t.taps()] == ["a1"] and t.store.version(t.table.id) == version
    # the same meaning under a new id (a tap that is already so) is not logged either
    t.tap("hold", seat=0, card="KH")
    assert len(t.taps()) == 1
    # the card's button now says what tapping it means: out of Ana's hand
    assert t.button('data-card="KH"', "unhold")
    t.press('data-card="KH"', "unhold")
    assert t.state()["holdings"][0]["held"] == [] and len(t.taps()) == 2
    t.tap("end", seat=seat("Ceca"), reason="aces")
    assert t.state()["end"] == {"seat": 2, "player": "Ceca", "reason": "aces"}
    assert t.store.draft(t.table.id, DRAFT)[0]["context"]["round"] == 1


def test_a_tap_answers_out_of_band_with_the_panel_alone(cowboy):
    t = cowboy()
    seen = t.store.version(t.table.id)
    out = t.post(
        "/tap",
        {
            "tap_id": "p1",
            "tap": json.dumps({"action": "hold", "seat": 0, "card": "QD"}),
            "v": "0",
            "round": "1",
            "seen": str(seen),
        },
    )
    assert out.count('<section id="cowboy-panel"') == 1
    assert re.search(r'<section id="cowboy-panel"[^>]*hx-swap-oob="true"', out)
    assert 'id="board"' not in out and 'id="standings"' not in out
    assert f"live?v={t.store.version(t.table.id)}" in out


def test_a_plain_post_without_htmx_goes_back_to_the_table(cowboy, client):
    t = cowboy()
    response = client.post(
        f"{t.url}/cowboy/tap",
        data={
            "csrf_token": t.csrf,
            "tap_id": "n1",
            "v": "0",
            "round": "1",
            "tap": json.dumps({"action": "hold", "seat": 0, "card": "QD"}),
        },
    )
    assert response.status_code == 303 and response.headers["Location"].endswith(t.url)
    assert len(t.taps()) == 1


def test_what_a_phone_shows_is_its_own_and_every_tap_names_its_seat(cowboy):
    """The part of the deal, whose cards are open, who shows a marriage: chosen on the
    phone (data-view-set), never stored; every card button names its player's seat."""
    t = cowboy()
    assert 'data-view-set="end"' in t.panel and 'data-view-set="3"' in t.panel
    t.tap("hold", seat=seat("Dragan"), card="KS")
    t.tap("hold", seat=seat("Ana"), card="QS")
    assert "view" not in json.dumps(t.store.draft(t.table.id, DRAFT)[0]["context"])
    assert t.button('data-card="QD"', '\\"seat\\":3') and t.button('data-card="QD"', '\\"seat\\":0')


def test_the_gun_builder_names_the_gun_or_says_why_not(cowboy):
    t = cowboy()
    t.gun("Ceca", ["3H", "5H"])
    ceca = seat_panel(t.panel, "Ceca")
    assert "not a gun yet" in ceca
    t.gun("Ceca", ["7H"])
    assert "357 Quick Draw" in seat_panel(t.panel, "Ceca")
    # the parts after a drawn gun still name the player, not the gun
    assert "10s laid out by Ceca" in seat_panel(t.panel, "Ceca")
    assert 'aria-label="Gun cards of Ceca"' in seat_panel(t.panel, "Ceca")
    h = t.state()["holdings"][2]
    assert [g["cards"] for g in h["guns"]] == [["3H", "5H", "7H"]] and h["building"] is None
    t.gun("Ceca", ["4S", "5S"])
    t.gun("Ceca", ["4D", "5C"])
    reason = api.evaluate("cowboy-gun", {"cards": ["4D", "5C"]})["reason"]
    assert symbols(reason) in html.unescape(seat_panel(t.panel, "Ceca"))
    # a drawn gun can be taken back (its ✕)
    t.tap("undraw", seat=2, gun=["5H", "3H", "7H"])
    assert [g["cards"] for g in t.state()["holdings"][2]["guns"]] == [["4S", "5S"]]


def test_a_quick_draw_is_named_in_the_pages_language(cowboy):
    """The 357 Quick Draw drawn at the end, loaded for a shot, and in the verdict: named
    as the rule card names it in the page's language, not in English."""
    t = cowboy()
    t.client.set_cookie(i18n.COOKIE, "sr-Latn")  # this phone speaks Serbian
    t.gun("Ceca", ["3H", "5H", "7H"])
    ceca = seat_panel(t.panel, "Ceca")
    assert "357 Brzo potezanje" in ceca and "Quick Draw" not in ceca
    t.tap("aim", role="attacker", seat=2)
    t.tap("aim", role="victim", seat=1)
    for card in ("3D", "5D", "7D"):
        t.press(f'data-card="{card}"', "load")
    t.press('data-card="KS"', "victim_holds")
    shot_part = t.panel[t.panel.index('class="cb-block cb-shot"') :]
    assert "357 Brzo potezanje" in shot_part and "Quick Draw" not in shot_part


def test_a_card_another_player_uses_is_disabled_with_the_reason_and_refused(cowboy):
    t = cowboy()
    t.lay("Ana", "10S")
    button = re.search(
        r'<button[^>]*data-card="10S"[^>]*>.*?</button>', seat_panel(t.panel, "Bojan"), re.S
    )
    assert "disabled" in button.group(0) and "Ana" in button.group(0)
    before = t.taps()
    out = t.send("hold", seat=seat("Bojan"), card="10S")
    assert t.status == 422 and any("already in Ana" in e for e in errors(out))
    assert t.taps() == before


def test_undo_takes_back_the_last_tap_once_and_redo_puts_it_back(cowboy):
    t = cowboy()
    t.hold("Ana", "KH", "QH")
    last = t.button_vals('data-op="undo"')["tap_id"]
    for _ in range(2):  # a retried undo undoes one tap
        t.post("/undo", {"tap_id": last})
        assert t.status == 200
    assert t.state()["holdings"][0]["held"] == ["KH"]
    t.redo()
    assert t.state()["holdings"][0]["held"] == ["KH", "QH"]


# ---------------------------------------------------------------- preview and refusals


def test_the_preview_is_the_engines_breakdown_item_by_item(cowboy):
    t = cowboy()
    out = enter_whole_deal(t)
    expected = api.evaluate("cowboy-deal", whole_deal_request())["players"]
    for name in NAMES:
        block = re.search(
            rf'<details class="cb-score" data-player="{name}"[^>]*>(.*?)</details>', out, re.S
        )
        text = html.unescape(block.group(0))
        total = expected[name]["total"]
        shown = f"{total:+d}".replace("-", "−")  # a real minus sign
        assert f'class="cb-total">{shown}<' in text
        for item in expected[name]["items"]:
            assert f'data-item="{item["code"]}"' in text
    assert "Curse (three sixes)" in html.unescape(out)
    assert 'class="primary big cb-save"' in out and 'cb-save" disabled' not in out


def test_an_engine_refusal_is_shown_next_to_the_right_player(cowboy):
    t = cowboy()
    t.tap("end", seat=0, reason="aces")
    t.hold("Ceca", "AD")  # an ace without its king
    try:
        api.evaluate(
            "cowboy-deal",
            {
                "players": list(NAMES),
                "end": {"by": "Ana", "reason": "aces"},
                "held": {"Ceca": ["AD"]},
            },
        )
    except api.RuleError as exc:
        message, path = exc.message, exc.path
    assert path == "held.Ceca[0]"
    shown = symbols(message)  # its card as the screen shows cards: A♦
    assert "A♦" in shown and "AD" not in shown
    # the refusal names Ceca: shown on Ana's part too, her name not said twice
    assert shown.startswith("Ceca holds A♦")
    assert errors(seat_panel(t.panel, "Ana")) == [shown]
    assert errors(seat_panel(t.panel, "Ceca")) == [shown]
    assert re.search(r'class="cb-tab invalid"[^>]*data-player="Ceca"', t.panel)
    # saving is refused; nothing is stored, the log stays
    t.save()
    assert t.status == 422 and t.entries() == []
    assert "AD" in json.dumps(t.taps())


def test_saving_without_the_end_of_the_deal_says_so(cowboy):
    t = cowboy()
    t.hold("Ana", "6S")
    out = t.save()
    assert t.status == 422 and "not finished" in out
    assert t.entries() == []


def test_a_deal_that_cannot_end_so_says_why_once_under_its_scores(cowboy):
    """Ended on tens with three 10s laid: the reason stands once where the scores would
    be, not again in the hint under it."""
    t = cowboy()
    t.tap("end", seat=seat("Ana"), reason="tens")
    t.lay("Ana", "10S")
    t.lay("Ceca", "10H", "10C")
    t.gun("Ceca", ["2D", "2C"])
    preview = html.unescape(t.panel[t.panel.index('id="cowboy-preview"') :])
    why = "A deal ends on tens only once all four 10s are laid out; 3 are."
    assert preview.count(why) == 1, preview
    # said with what to do about it
    assert f"Enter what each player holds. {why}" in preview


def tab_counts(text):
    """{player: what their tab says of their cards}."""
    return {
        name: html.unescape(small)
        for name, small in re.findall(
            r'class="cb-tab[^"]*"[^>]*data-player="([^"]+)"[^>]*>\s*'
            r'<span class="cb-tab-name">[^<]*</span>\s*<small>([^<]*)</small>',
            text,
        )
    }


def test_a_players_tab_counts_the_cards_held_and_names_the_laid_tens_apart(cowboy):
    """A laid-out 10 is not a card in the hand: the tab says so apart."""
    t = cowboy()
    t.tap("end", seat=seat("Ana"), reason="tens")
    t.hold("Ana", "KH", "6C")
    t.lay("Ana", "10S")
    t.lay("Ceca", "10H", "10C")
    t.gun("Dragan", ["2D", "2C"])
    tabs = tab_counts(t.panel)
    assert tabs == {
        "Ana": "2 cards · 1 ten",
        "Bojan": "0 cards",
        "Ceca": "2 tens",
        "Dragan": "2 cards",
    }


# ---------------------------------------------------------------- marriages and closing


def test_a_marriage_counts_at_once_and_a_suit_shown_twice_is_refused(cowboy):
    t = cowboy()
    out = t.marriage("Ana", "H")
    assert t.status == 200 and t.totals()["Ana"] == 25
    assert 'id="standings"' in out  # the totals come along
    assert f"live?v={t.store.version(t.table.id)}" in out
    (entry,) = t.entries()
    assert (entry.kind, entry.round, entry.points) == ("cowboy-marriage", 1, {t.ids["Ana"]: 25})
    # hearts again, by anyone: refused by the state (C-D1), nothing stored
    out = t.marriage("Bojan", "H")
    assert t.status == 422 and any("C-D1" in e for e in errors(out))
    assert len(t.entries()) == 1 and t.totals() == {"Ana": 25, "Bojan": 0, "Ceca": 0, "Dragan": 0}
    # the screen offers hearts no more
    hearts = re.search(r'<button[^>]*data-suit="H"[^>]*>', seat_block(t.panel, "Bojan")).group(0)
    assert "disabled" in hearts


def seat_block(text, name):
    start = text.index(f'data-marriage-for="{name}"')
    return text[start : text.index("</div>", start)]


def test_a_retried_marriage_is_stored_once(cowboy):
    t = cowboy()
    t.marriage("Ana", "S", tap_id="m1")
    t.marriage("Ana", "S", tap_id="m1")
    assert t.status == 200
    t.marriage("Ana", "S")  # already so, under a new id
    assert len(t.entries()) == 1 and t.totals()["Ana"] == 25 and len(t.taps()) == 1


def test_undoing_a_marriage_tap_takes_its_points_back_and_redo_restores_them(cowboy):
    t = cowboy()
    t.marriage("Ana", "S")
    t.undo()
    assert t.status == 200 and t.totals()["Ana"] == 0
    assert [e.state for e in t.entries()] == ["voided"]
    t.redo()
    assert t.totals()["Ana"] == 25 and [e.state for e in t.entries()] == ["live"]
    t.tap("withdraw_marriage", seat=0, suit="S")
    assert t.totals()["Ana"] == 0


def test_closing_the_deal_takes_over_the_provisional_marriages(cowboy):
    t = cowboy()
    t.marriage("Ana", "H")
    t.marriage("Dragan", "C")
    assert t.totals() == {"Ana": 25, "Bojan": 0, "Ceca": 0, "Dragan": 25}
    enter_whole_deal(t)
    out = t.save()
    assert t.status == 200
    request = whole_deal_request([("Ana", "H"), ("Dragan", "C")])
    expected = api.evaluate("cowboy-deal", request)["players"]
    want = {name: expected[name]["total"] for name in NAMES}
    assert t.totals() == want  # the +25s count once: inside the deal
    assert "Deal of round 1 saved." in out
    (deal,) = t.entries(live_only=True)
    assert (deal.kind, deal.round, deal.request) == ("cowboy-deal", 1, request)
    assert [e.state for e in t.entries() if e.kind == "cowboy-marriage"] == ["superseded"] * 2
    assert t.taps() is None  # closed with the entry
    # a retry stores nothing more and counts nothing twice
    out = t.post("/save", {"v": "99", "round": "1", "submission_id": "deal-1"})
    assert t.status == 200 and "Already saved" in out
    assert len([e for e in t.entries() if e.kind == "cowboy-deal"]) == 1 and t.totals() == want
    t.reload()
    assert t.round == 2 and "Dragan deals" in t.panel


def test_undoing_a_closed_deal_brings_its_marriages_back_into_the_next_log(cowboy):
    """The deal and the retirement of its marriages are one write: undo the deal and the
    +25 shown during play counts again, and the deal begun next starts with them (C-D1
    still refuses hearts); redo it and they count inside the deal."""
    t = cowboy()
    t.marriage("Ana", "H")
    enter_whole_deal(t)
    t.save()
    expected = api.evaluate("cowboy-deal", whole_deal_request([("Ana", "H")]))["players"]
    closed = {name: expected[name]["total"] for name in NAMES}
    deal = next(e for e in t.entries(live_only=True) if e.kind == "cowboy-deal")
    t.store.void_entry(t.table.id, deal.id)
    assert [e.kind for e in t.entries(live_only=True)] == ["cowboy-marriage"]
    assert t.totals() == {"Ana": 25, "Bojan": 0, "Ceca": 0, "Dragan": 0}
    t.reload()
    assert t.round == 1 and 'data-player="Ana" data-suit="H"' in t.panel
    assert t.marriage("Bojan", "H") and t.status == 422
    t.store.restore_entry(t.table.id, deal.id)
    assert [e.kind for e in t.entries(live_only=True)] == ["cowboy-deal"] and t.totals() == closed


def test_a_marriage_after_an_undone_deal_is_closed_with_the_earlier_one(cowboy):
    t = cowboy()
    t.marriage("Ana", "H")
    enter_whole_deal(t)
    t.save()
    deal = next(e for e in t.entries(live_only=True) if e.kind == "cowboy-deal")
    t.store.void_entry(t.table.id, deal.id)
    t.reload()
    t.marriage("Dragan", "C")
    assert t.status == 200 and t.totals()["Dragan"] == 25 and t.totals()["Ana"] == 25
    enter_whole_deal(t)
    t.save("deal-2")
    assert t.status == 200
    request = whole_deal_request([("Ana", "H"), ("Dragan", "C")])
    expected = api.evaluate("cowboy-deal", request)["players"]
    assert t.totals() == {name: expected[name]["total"] for name in NAMES}
    assert [e.kind for e in t.entries(live_only=True)] == ["cowboy-deal"]


def test_the_history_notice_names_a_deal_as_its_round_and_a_marriage_as_a_step(cowboy, client):
    """A Cowboy deal is its round's one row: undone in the history, the round is. A
    marriage shown during a deal still open is a step of that round, named so."""
    t = cowboy()

    def notice(action, entry, submission_id):
        response = client.post(
            f"{t.url}/entries/{entry.id}/{action}",
            data={"submission_id": submission_id},
            headers={**HX, "X-CSRFToken": t.csrf},
        )
        assert response.status_code == 200
        return " ".join(re.findall(r'class="flash ok">([^<]+)<', response.get_data(as_text=True)))

    enter_whole_deal(t)
    t.save()
    (deal,) = t.entries(live_only=True)
    assert notice("undo", deal, "undo-deal") == "Round 1 undone."
    assert notice("redo", deal, "redo-deal") == "Round 1 restored."
    t.reload()
    t.marriage("Ana", "H")
    marriage = next(e for e in t.entries(live_only=True) if e.kind == "cowboy-marriage")
    assert marriage.round == 2
    assert notice("undo", marriage, "undo-m") == "Round 2: Marriage shown undone."
    assert notice("redo", marriage, "redo-m") == "Round 2: Marriage shown restored."


def test_a_marriage_undone_in_the_history_leaves_the_open_deal(cowboy, client):
    """A marriage shown by mistake and undone in the history (its own row there) is out
    of the open deal too: the panel no longer shows it, the suit may be shown again and
    the saved deal does not count it. Redone there, it is back in the deal."""
    t = cowboy()
    t.marriage("Ana", "H")
    (marriage,) = t.entries()

    def history(action, submission_id):
        client.post(
            f"{t.url}/entries/{marriage.id}/{action}",
            data={"submission_id": submission_id},
            headers={"X-CSRFToken": t.csrf},
        )

    history("undo", "undo-m")
    assert t.totals()["Ana"] == 0
    t.reload()
    assert 'data-player="Ana" data-suit="H"' not in t.panel
    assert t.state()["marriages"] == []
    history("redo", "redo-m")
    assert t.totals()["Ana"] == 25
    t.reload()
    assert 'data-player="Ana" data-suit="H"' in t.panel
    history("undo", "undo-m2")
    enter_whole_deal(t)
    t.save()
    assert t.status == 200
    expected = api.evaluate("cowboy-deal", whole_deal_request())["players"]
    assert t.totals() == {name: expected[name]["total"] for name in NAMES}
    (deal,) = t.entries(live_only=True)
    assert deal.request["shown_marriages"] == []


def test_a_withdrawn_marriage_redone_after_its_suit_was_shown_again_is_refused_c_d1(cowboy, client):
    """Ceca's hearts withdrawn, then Bojan shows hearts: Ceca's row redone in the history
    would count a second hearts marriage in the deal (C-D1). It is refused with the
    reason and nothing changes: the totals, the row, the deal's marriages."""
    t = cowboy()
    t.marriage("Ceca", "H")
    t.tap("withdraw_marriage", seat=seat("Ceca"), suit="H")
    t.marriage("Bojan", "H")
    (withdrawn,) = [e for e in t.entries() if not e.live]
    before = t.totals()
    response = in_the_history(client, t, withdrawn.id, "redo", "redo-ceca")
    assert response.status_code == 409
    assert "already shown this deal" in html.unescape(response.get_data(as_text=True))
    assert t.totals() == before == {"Ana": 0, "Bojan": 25, "Ceca": 0, "Dragan": 0}
    assert not t.store.entry(t.table.id, withdrawn.id).live
    assert [(m["player"], m["suit"]) for m in t.state()["marriages"]] == [("Bojan", "H")]
    # the deal saved counts Bojan's hearts once, and Ceca's not at all
    enter_whole_deal(t)
    t.save()
    assert t.status == 200
    expected = api.evaluate("cowboy-deal", whole_deal_request([("Bojan", "H")]))["players"]
    assert t.totals() == {name: expected[name]["total"] for name in NAMES}


def test_a_marriage_taking_a_total_to_500_decides_nothing_before_the_deal_ends_c_d9(cowboy, client):
    """Ana at 480 shows a marriage during a deal: 505 in the totals at once, but the game
    is decided after a deal (C-D9), so the deal goes on to its end and decides it."""
    t = cowboy()
    client.post(
        f"{t.url}/rounds",
        data={"submission_id": "pad-1", f"points-{t.ids['Ana']}": "480"},
        headers={"X-CSRFToken": t.csrf},
    )
    t.reload()
    t.marriage("Ana", "H")
    assert t.totals()["Ana"] == 505
    page = html.unescape(t.reload())
    assert "The game is over." not in page and "wins with" not in page
    assert "500 reached during the deal: the game is decided when it ends (C-D9)." in page
    # the deal is still entered and saved; its end decides the game
    enter_whole_deal(t)
    t.save()
    assert t.status == 200
    deal = api.evaluate("cowboy-deal", whole_deal_request([("Ana", "H")]))["players"]
    assert t.totals()["Ana"] == 480 + deal["Ana"]["total"] == 500
    assert "Ana wins with 500 (C-D9)." in html.unescape(t.reload())


def test_two_phones_closing_the_same_deal_store_it_once(cowboy):
    t = cowboy()
    t.marriage("Ana", "H")
    enter_whole_deal(t)
    t.save("phone-a")
    totals = t.totals()
    t.save("phone-b")  # the other phone's close arrives after: nothing more is stored
    assert t.status in (409, 422)
    assert len([e for e in t.entries() if e.kind == "cowboy-deal"]) == 1 and t.totals() == totals


def test_a_card_tapped_on_another_phone_while_the_deal_closes_is_not_lost(cowboy, monkeypatch):
    t = cowboy()
    enter_whole_deal(t)
    version, rnd = t.version, t.round
    other = Table(
        t.client, t.store, t.parsed, t.url, type("P", (), {"csrf": t.csrf, "html": t.html})
    )
    another_phone_first(
        monkeypatch,
        store_module.Store,
        "close_draft_into_entry",
        lambda: other.tap("hold", seat=seat("Dragan"), card="2C"),
    )
    out = t.post("/save", {"v": version, "round": rnd, "submission_id": "phone-a"})
    assert t.status == 409 and "Another phone changed this deal" in out
    assert [e for e in t.entries() if e.kind == "cowboy-deal"] == []
    assert "2C" in json.dumps(t.taps())
    monkeypatch.undo()
    t.reload()
    t.save("phone-a-again")
    (deal,) = [e for e in t.entries() if e.kind == "cowboy-deal"]
    assert "2C" in json.dumps(deal.request)


def test_a_renamed_player_keeps_the_log_and_the_marriage(cowboy, client):
    t = cowboy()
    t.marriage("Ana", "H")
    t.hold("Ana", "KS")
    response = client.post(
        f"{t.url}/players/{t.ids['Ana']}/name",
        data={"csrf_token": t.csrf, "name": "Anka"},
        headers=HX,
    )
    assert response.status_code == 200
    t.reload()
    assert 'data-player="Anka" data-suit="H"' in t.panel
    assert t.state()["holdings"][0] == {
        **t.state()["holdings"][0],
        "player": "Anka",
        "held": ["KS"],
    }


# ---------------------------------------------------------------- Edit of a saved deal


def test_edit_of_a_saved_deal_changes_one_card_and_supersedes_it(cowboy, client):
    """Edit in the history reopens the deal's taps with every card as it was; one card
    changed and saved is one new entry of the same round superseding the old (the history
    keeps both); undo of the edit brings the old one back."""
    t = cowboy()
    t.marriage("Ana", "H")
    enter_whole_deal(t)
    t.save()
    (old,) = t.entries(live_only=True)
    history = client.get(t.url + "/history").get_data(as_text=True)
    edit = f"{t.url}/cowboy/edit/{old.id}"
    assert f'action="{edit}"' in history
    assert client.post(edit, headers={"X-CSRFToken": t.csrf}).status_code == 303
    t.reload()
    assert "Changing round 1" in t.panel and t.round == 1
    assert t.taps() == t.store.entry_taps(old.id)
    assert pressed(seat_panel(t.panel, "Ana"), "JD")
    # while the edit is open, the saved deal counts and no marriage is stored twice
    totals = t.totals()
    t.tap("unhold", seat=0, card="JD")
    t.tap("hold", seat=0, card="JS")
    assert t.totals() == totals and len(t.entries()) == 2
    out = t.save("edit-1")
    assert t.status == 200 and "Round 1 changed." in out
    entries = t.entries()
    assert [(e.kind, e.state) for e in entries] == [
        ("cowboy-marriage", "superseded"),
        ("cowboy-deal", "superseded"),
        ("cowboy-deal", "live"),
    ]
    new = entries[-1]
    assert new.supersedes == old.id and new.round == 1
    assert new.request["held"]["Ana"] == ["KH", "AH", "QS", "JS"]
    assert new.request["shown_marriages"] == [{"player": "Ana", "suit": "H"}]
    expected = api.evaluate("cowboy-deal", new.request)["players"]
    assert t.totals() == {name: expected[name]["total"] for name in NAMES}

    # undo of the edit restores the old deal (and its marriage stays inside it), and
    # says so: the round is not gone, it is back as it was
    def in_the_history(action: str) -> str:
        return client.post(
            f"{t.url}/entries/{new.id}/{action}",
            data={"submission_id": f"{action}-edit"},
            headers={**HX, "X-CSRFToken": t.csrf},
        ).get_data(as_text=True)

    undone = in_the_history("undo")
    assert "Round 1: the change undone; the round is as it was before." in undone
    assert [e.state for e in t.entries()] == ["superseded", "live", "voided"]
    assert t.totals() == {name: old.result["players"][name]["total"] for name in NAMES}
    assert "Round 1: the change made again." in in_the_history("redo")
    assert [e.state for e in t.entries()][-1] == "live"
    assert t.totals() == {name: expected[name]["total"] for name in NAMES}


def in_the_history(client, t, entry_id: int, action: str, sid: str):
    """Undo or redo of an entry in the history, as its button posts it."""
    return client.post(
        f"{t.url}/entries/{entry_id}/{action}",
        data={"submission_id": sid},
        headers={**HX, "X-CSRFToken": t.csrf},
    )


def test_a_deal_undone_while_it_is_being_edited_goes_on_as_the_deal_reopened(cowboy, client):
    """Edit of a saved deal under way, the same deal undone in the history: the screen
    no longer offers to change a deal that no longer counts; it goes on as the deal
    reopened, with the card changed, and its Save puts the round back."""
    t = cowboy()
    enter_whole_deal(t)
    t.save()
    (old,) = t.entries(live_only=True)
    t.post(f"/edit/{old.id}")
    t.reload()
    t.tap("unhold", seat=0, card="JD")
    t.tap("hold", seat=0, card="JS")
    edited = t.taps()
    undone = in_the_history(client, t, old.id, "undo", "undo-edited")
    assert undone.status_code == 200
    t.reload()
    assert "Changing round 1" not in t.panel and "Keep the saved deal" not in t.panel
    assert t.taps() == edited and t.totals() == dict.fromkeys(NAMES, 0)
    assert "Deal of round 1 saved." in t.save("again")
    new = t.entries()[-1]
    assert new.live and new.round == 1 and new.supersedes is None
    assert new.request["held"]["Ana"][-1] == "JS"


def test_a_deal_redone_takes_a_later_version_reopened_unchanged_off_the_screen(cowboy, client):
    """Round 1 saved, undone and saved again as a new entry; that one undone too, so its
    log is back on the screen. Redo of the first in the history: the round counts it
    again, and the later version's log, unchanged, leaves the screen (saved, it would
    take the round back; a marriage shown on it would count beside the deal)."""
    t = cowboy()
    enter_whole_deal(t)
    t.save()
    (first,) = t.entries(live_only=True)
    assert in_the_history(client, t, first.id, "undo", "undo-1").status_code == 200
    t.reload()
    assert "Deal of round 1 saved." in t.save("again")
    second = t.entries()[-1]
    assert second.supersedes is None and second.round == 1
    assert in_the_history(client, t, second.id, "undo", "undo-2").status_code == 200
    t.reload()
    assert t.taps()  # the later version, on the screen
    assert in_the_history(client, t, first.id, "redo", "redo-1").status_code == 200
    t.reload()
    assert not t.taps() and [e.id for e in t.entries(live_only=True)] == [first.id]
    assert "Changing round 1" not in t.panel


def test_a_deal_redone_beside_a_later_version_reopened_and_changed_is_refused(cowboy, client):
    """As above, but the later version was being edited when it was undone: its change
    goes on on the screen. Redo of the first version is refused and nothing changes;
    once the change is taken back, the redo is made."""
    t = cowboy()
    enter_whole_deal(t)
    t.save()
    (first,) = t.entries(live_only=True)
    in_the_history(client, t, first.id, "undo", "undo-1")
    t.reload()
    t.save("again")
    second = t.entries()[-1]
    t.post(f"/edit/{second.id}")
    t.reload()
    t.tap("unhold", seat=0, card="JD")
    in_the_history(client, t, second.id, "undo", "undo-2")
    t.reload()
    taps, entries = t.taps(), t.entries()
    refused = in_the_history(client, t, first.id, "redo", "redo-1")
    assert refused.status_code == 409
    assert (
        "Round 1 is open on its screen, reopened from a later version and changed there"
        in refused.get_data(as_text=True)
    )
    t.reload()
    assert t.taps() == taps and t.entries() == entries
    t.undo()  # the change taken back: the log is the later version's as saved
    assert in_the_history(client, t, first.id, "redo", "redo-1b").status_code == 200
    t.reload()
    assert not t.taps() and [e.id for e in t.entries(live_only=True)] == [first.id]


def test_a_marriage_shown_on_a_log_of_a_round_already_saved_is_not_counted_c_d1(cowboy):
    """However a log of round 1 came to be open beside round 1's saved deal, a marriage
    shown on it is refused, not stored: the saved deal counts its own (C-D1)."""
    t = cowboy()
    enter_whole_deal(t)
    log = t.store.tap_log(t.table.id, DRAFT).data
    t.save()
    t.store.save_draft(t.table.id, DRAFT, log)
    t.reload()
    entries, totals = t.entries(), t.totals()
    out = t.marriage("Ana", "S")
    assert t.status == 409
    assert "The deal of round 1 is saved and counts its own marriages" in out
    assert t.entries() == entries and t.totals() == totals


def test_a_marriage_tap_stores_its_entry_in_one_write_of_six_statements(app, cowboy):
    """A marriage is the Cowboy tap that stores an entry at once (C-D1): its write reads
    the round's marriages and its deal once, and stays within a tap's six statements
    (#20); its answer, the standings having moved, reads the entries once after it."""
    t = cowboy()
    t.send("hold", seat=seat("Ana"), card="2C")  # the deal begun: its first read made
    ran, out = statements_of(app, lambda: t.marriage("Ana", "H"))
    assert t.status == 200 and len(t.entries()) == 1, out
    write = ran[: ran.index("COMMIT") + 1]
    assert write[0] == "BEGIN IMMEDIATE" and len(write) <= 6, write
    assert len(ran) <= 7, ran


def deal_saved_without_a_marriage_withdrawn(t):
    """Ana's ♥ marriage shown, taken back on the panel, then the deal entered and saved
    without it: the marriage's entry (undone)."""
    t.marriage("Ana", "H")
    (marriage,) = t.entries()
    t.undo()
    enter_whole_deal(t)
    t.save()
    return marriage


def test_a_marriage_redone_once_its_deal_is_saved_is_refused_c_d1(cowboy, client):
    """A marriage shown, taken back on the panel, the deal saved without it: its row in
    the history may not come back beside the saved deal, which counts the marriages
    shown in it itself (C-D1: once a deal); nothing changes, and Edit is the way."""
    t = cowboy()
    marriage = deal_saved_without_a_marriage_withdrawn(t)
    totals, entries = t.totals(), t.entries()
    response = in_the_history(client, t, marriage.id, "redo", "redo-marriage")
    assert response.status_code == 409
    said = response.get_data(as_text=True)
    assert "The deal of round 1 is saved and counts its own marriages" in said
    assert t.totals() == totals and t.entries() == entries


def test_a_deal_redone_beside_a_marriage_brought_back_since_is_refused_c_d1(cowboy, client):
    """A marriage shown and withdrawn, the deal saved without it; the next deal begun,
    round 1's deal undone and the marriage's row redone in the history (the round has
    no saved deal then). Redoing the deal would count the marriage beside it, which
    counts the marriages shown in it (C-D1): refused, with why, nothing changed."""
    t = cowboy()
    marriage = deal_saved_without_a_marriage_withdrawn(t)
    deal = t.entries()[-1]
    t.send("hold", seat=seat("Ana"), card="KH")  # round 2 begun: the deal's log stays off
    assert in_the_history(client, t, deal.id, "undo", "undo-deal").status_code == 200
    assert in_the_history(client, t, marriage.id, "redo", "redo-m").status_code == 200
    totals, entries = t.totals(), t.entries()
    response = in_the_history(client, t, deal.id, "redo", "redo-deal")
    assert response.status_code == 409
    said = html.unescape(response.get_data(as_text=True))
    assert "Round 1 counts a marriage shown after this deal was undone" in said
    assert t.totals() == totals and t.entries() == entries


def test_a_deal_saved_without_a_tap_log_is_reopened_from_its_request(cowboy, client):
    t = cowboy()
    t.marriage("Ana", "H")
    enter_whole_deal(t)
    t.save()
    (old,) = t.entries(live_only=True)
    t.store.db.execute("UPDATE entries SET taps = NULL")
    t.store.db.conn.commit()
    t.post(f"/edit/{old.id}")
    t.reload()
    assert "Changing round 1" in t.panel
    t.save("again")
    assert t.entries()[-1].request == old.request and t.entries()[-1].supersedes == old.id


def test_an_old_draft_is_upgraded_into_taps(cowboy):
    """A deal half entered before the tap log (cards per player id) carries on."""
    t = cowboy()
    ana, bojan = str(t.ids["Ana"]), str(t.ids["Bojan"])
    t.store.save_draft(
        t.table.id,
        DRAFT,
        {
            "round": 1,
            "view": "end",
            "end_by": t.ids["Bojan"],
            "end_reason": "tens",
            "held": {ana: ["KH", "QH"]},
            "guns": {bojan: [["2S", "2H"]]},
            "pending": {bojan: ["4D"]},
            "tens": {ana: ["10S"]},
            "focus": t.ids["Ana"],
        },
    )
    t.reload()
    ana = seat_panel(t.panel, "Ana")
    assert pressed(ana, "KH") and pressed(ana[ana.index("cb-tenpick") :], "10S")
    t.tap("hold", seat=0, card="AH")
    state = t.state()
    assert state["holdings"][0]["held"] == ["KH", "QH", "AH"]
    assert [g["cards"] for g in state["holdings"][1]["guns"]] == [["2S", "2H"]]
    assert state["holdings"][1]["building"]["cards"] == ["4D"]
    assert state["end"]["player"] == "Bojan"


# ---------------------------------------------------------------- the shot referee


def shot(t, gun, held, drawn=True):
    t.tap("aim", role="attacker", seat=0)
    t.tap("aim", role="victim", seat=1)
    for card in gun:
        t.press(f'data-card="{card}"', "load")
    for card in held:
        t.press(f'data-card="{card}"', "victim_holds")
    if not drawn:
        t.tap("victim_gun", seat=1, drawn=False)
    return t.panel


def outcome(text):
    m = re.search(r'data-outcome="([^"]+)"', text)
    return m.group(1) if m else None


def test_the_referee_says_the_outcome_in_one_sentence(cowboy):
    t = cowboy()
    out = shot(t, ["2S", "2H"], ["KD", "6C"])
    answer = api.evaluate(
        "cowboy-shot",
        {
            "gun": ["2S", "2H"],
            "victim": {"held": ["KD", "6C"], "has_gun_drawn": True},
            "aces_on_table": ["AS", "AH", "AD", "AC"],
        },
    )
    assert outcome(out) == answer["outcome"] == "backfire"
    assert html.escape(symbols(answer["reason"]), quote=False) in out
    assert "cb-turn" not in out
    assert 'data-view-default="shot"' in out


def test_the_referee_asks_for_the_turned_card_only_when_needed(cowboy):
    t = cowboy()
    out = shot(t, ["3H", "8C"], ["KS", "AS"])  # only a protected cowboy: the 38 misses
    assert outcome(out) == "miss" and "cb-turn" not in out
    out = t.press('data-card="KD"', "victim_holds")
    assert outcome(t.panel) == "turn_card" and 'class="cb-turn"' in t.panel
    t.press('data-card="9D"', '"turn')
    assert outcome(t.panel) == "dodge"
    t.press('data-card="9C"', '"turn')  # another card turned instead
    assert outcome(t.panel) == "hit"


def test_a_victim_without_a_drawn_gun_cannot_be_shot(cowboy):
    t = cowboy()
    out = shot(t, ["4H", "5H"], ["KS"], drawn=False)
    assert outcome(out) == "not_allowed"
    assert t.state()["shot"]["has_gun_drawn"] is False


def test_a_dodge_taking_the_fourth_ace_ends_the_deal_by_the_attacker(cowboy):
    t = cowboy()
    shot(t, ["3H", "8C"], ["KS"])
    for code in ("AH", "AD", "AC"):
        t.press(f'data-card="{code}"', "ace_off_table")
    assert t.state()["aces_on_table"] == ["AS"]
    t.press('data-card="7S"', '"turn')
    assert outcome(t.panel) == "dodge"
    assert "cb-end-deal" in t.panel and "The deal ends: Ana ended it" in t.panel
    t.press("cb-end-deal")
    assert t.state()["end"] == {"seat": 0, "player": "Ana", "reason": "aces"}
    assert 'data-view-default="end"' in t.panel


def test_next_shot_takes_the_dodged_ace_off_the_table_once(cowboy):
    t = cowboy()
    shot(t, ["3H", "8C"], ["KS"])
    t.press('data-card="7S"', '"turn')
    fields = t.button("cb-next-shot")
    for _ in range(2):  # the same tap twice: a retry
        t.post("/tap", {**{k: str(v) for k, v in fields.items()}, "tap_id": "next-1"})
    state = t.state()
    assert state["aces_on_table"] == ["AH", "AD", "AC"] and state["shot"] is None
    assert len(state["shots"]) == 1


def test_c_d11_the_victim_may_leave_the_last_ace_on_the_table(cowboy):
    t = cowboy()
    shot(t, ["3H", "8C"], ["KS"])
    for code in ("AH", "AD", "AC"):
        t.press(f'data-card="{code}"', "ace_off_table")
    t.press('data-card="7S"', '"turn')
    assert outcome(t.panel) == "dodge" and "cb-end-deal" in t.panel
    assert "Leave the ace on the table" in t.panel
    t.press("cb-decline-ace")
    assert t.state()["shot"]["declines_ace"] is True
    assert "cb-end-deal" not in t.panel and "the victim leaves A♠ on the table" in t.panel
    assert "Next shot (the ace stays on the table)" in t.panel
    t.press("cb-decline-ace")  # he takes it after all
    assert "cb-end-deal" in t.panel
    t.press("cb-decline-ace")
    t.press("cb-next-shot")
    assert t.state()["aces_on_table"] == ["AS"]


def test_c_d11_no_leave_the_ace_choice_without_a_dodge(cowboy):
    t = cowboy()
    shot(t, ["3H", "8C"], ["KS"])
    t.press('data-card="7D"', '"turn')
    assert outcome(t.panel) == "hit" and "cb-decline-ace" not in t.panel


def test_c_d10_the_turned_card_picker_offers_no_ace(cowboy):
    t = cowboy()
    shot(t, ["3H", "8C"], ["KS"])
    picker = t.panel[t.panel.index('class="cb-turn"') :]
    picker = picker[: picker.index('class="cb-outcome"')]
    assert (
        'data-card="KS"' in picker and 'data-card="2S"' in picker and 'data-card="AS"' not in picker
    )
    out = t.send("turn", seat=0, card="AS")
    assert t.status == 422 and "C-D10" in " ".join(errors(out))
    assert t.state()["shot"]["turned"] is None


def test_a_dodge_whose_ace_is_marked_off_the_table_says_so_in_words(cowboy):
    """The referee's answer is a sentence for the table: it names the aces on the
    table as the screen does, never the request's field."""
    t = cowboy()
    shot(t, ["3H", "8C"], ["KS"])
    t.press('data-card="AS"', "ace_off_table")
    out = t.press('data-card="7S"', '"turn')
    assert outcome(out) is None
    said = html.unescape(out)
    assert "A♠ is not among the aces on the table" in said
    assert "aces_on_table" not in said


def end_buttons(panel):
    """The "how the deal ended" buttons of the panel's end part."""
    return re.findall(r"<button\b[^>]*data-reason=[^>]*>.*?</button>", panel, re.S)


def test_while_a_shot_is_refereed_nobody_may_end_the_deal_and_the_end_part_says_why(cowboy):
    """The end part stays one tab away during a shot: its buttons are disabled with the
    engine's refusal, said once under them, and come back once the shot is cancelled."""
    t = cowboy()
    assert all("disabled" not in b for b in end_buttons(t.panel))
    shot(t, ["3H", "8C"], ["KS"])
    why = "A shot is being refereed: finish or cancel it before ending the deal."
    buttons = end_buttons(t.panel)
    assert len(buttons) == 2 * len(NAMES)
    assert all("disabled" in b and "data-tap" not in b and why in b for b in buttons)
    ender = t.panel[t.panel.index('class="cb-ender"') : t.panel.index("Cards at the end")]
    assert f'<p class="hint cb-end-why">{why}</p>' in ender
    before = t.taps()
    out = t.send("end", seat=seat("Bojan"), reason="tens")
    assert t.status == 422 and why in errors(out) and t.taps() == before
    t.client.set_cookie(i18n.COOKIE, "sr-Latn")  # said in the phone's language
    assert "Sudi se pucanj: završi ga ili otkaži" in t.reload().split("cb-end-why", 1)[1]
    t.client.set_cookie(i18n.COOKIE, "en")
    t.reload()
    t.press("cb-cancel-shot")
    assert all("disabled" not in b and "data-tap" in b for b in end_buttons(t.panel))
    assert "cb-end-why" not in t.panel
    t.press('data-reason="tens"', '\\"seat\\":1,')
    assert t.state()["end"] == {"seat": 1, "player": "Bojan", "reason": "tens"}


def test_a_shot_refusal_is_shown_next_to_the_victims_cards(cowboy):
    t = cowboy()
    out = shot(t, ["3H", "8C"], ["AD"])  # an ace without its king
    assert outcome(out) is None
    assert any("without K♦" in e for e in errors(out))


# ---------------------------------------------------------------- the watch link


def test_the_watch_link_is_refused_on_every_write_route(app, cowboy, store):
    t = cowboy()
    t.marriage("Ana", "H")
    t.hold("Ana", "KS")
    before = (t.taps(), [e.id for e in t.entries()], store.version(t.table.id))
    routes = sorted(
        r.rule
        for r in app.url_map.iter_rules()
        if r.endpoint.startswith("cowboy.") and "POST" in r.methods
    )
    assert len(routes) >= 5
    for rule in routes:
        path = rule.replace("<key>", t.table.watch_key).replace("<rowid:entry_id>", "1")
        response = t.client.post(
            path,
            data={
                "csrf_token": t.csrf,
                "tap_id": "w1",
                "v": "1",
                "round": "1",
                "tap": json.dumps({"action": "hold", "seat": 0, "card": "KH"}),
            },
            headers=HX,
        )
        assert response.status_code == 403, rule
        assert "watch link" in response.get_data(as_text=True)
    assert (t.taps(), [e.id for e in t.entries()], store.version(t.table.id)) == before


def test_the_watch_page_shows_the_deal_without_controls(cowboy):
    t = cowboy()
    t.marriage("Ana", "H")
    enter_whole_deal(t)
    page = t.client.get(f"/t/{t.table.watch_key}").get_data(as_text=True)
    panel = re.search(r'<section id="cowboy-panel".*?</section>', page, re.S).group(0)
    assert "hx-post" not in panel and "<button" not in panel
    assert 'data-player="Ana" data-suit="H"' in panel
    expected = api.evaluate("cowboy-deal", whole_deal_request([("Ana", "H")]))["players"]
    total = f"{expected['Bojan']['total']:+d}".replace("-", "−")
    assert re.search(rf'data-player="Bojan"[^>]*>.*?class="cb-total">{total}<', panel, re.S)


def test_the_watch_page_says_what_stands_and_asks_nothing(cowboy):
    """A watcher of a deal whose end is being entered is told that the scores come once
    the hands are in, not asked to enter them or to close the deal."""
    t = cowboy()
    t.tap("end", seat=seat("Bojan"), reason="tens")
    t.hold("Ana", "KH", "AH")
    panel = watched_panel(t)
    assert "The scores show here once every hand is entered." in panel
    assert "Enter what each player holds" not in panel
    assert "Enter what each player holds" in t.panel  # the scorer's phone is asked


def watched_panel(t) -> str:
    page = t.client.get(f"/t/{t.table.watch_key}").get_data(as_text=True)
    return re.search(r'<section id="cowboy-panel".*?</section>', page, re.S).group(0)


def test_the_watch_page_follows_the_shot_being_judged(cowboy):
    """A watcher sees who shoots at whom with which gun, then the verdict, and the deal's
    shots so far, without any control."""
    t = cowboy()
    t.tap("aim", role="attacker", seat=0)
    t.tap("aim", role="victim", seat=1)
    panel = watched_panel(t)
    assert "<button" not in panel and "hx-post" not in panel
    aim = re.search(r'<p class="cb-aim">(.*?)</p>', panel, re.S).group(1)
    assert re.sub(r"<[^>]+>", "", aim) == "Ana → Bojan"
    assert "The shot is being judged." in panel and "data-outcome" not in panel
    shot(t, ["2S", "2H"], ["KD", "6C"])
    panel = watched_panel(t)
    assert outcome(panel) == "backfire" and "<button" not in panel
    assert re.search(r'class="cb-gun-cards"[^>]*>.*?2.*?</p>', panel, re.S)
    t.press("cb-next-shot")
    panel = watched_panel(t)
    assert "cb-aim" not in panel and outcome(panel) is None
    listed = re.search(r'<ol class="cb-shots">(.*?)</ol>', panel, re.S).group(1)
    assert re.sub(r"<[^>]+>", "", listed).strip() == "Ana → Bojan: Backfire"


def test_the_watch_page_of_a_deal_without_shots_shows_no_referee(cowboy):
    t = cowboy()
    t.marriage("Ana", "H")
    assert "cb-shot" not in watched_panel(t)


def test_another_phone_sees_the_deal_in_the_poll(cowboy):
    t = cowboy()
    version = t.store.version(t.table.id)
    t.hold("Ana", "QD")
    live = t.client.get(f"{t.url}/live?v={version}").get_data(as_text=True)
    panel = re.search(r'<section id="cowboy-panel".*?</section>', live, re.S).group(0)
    assert 'hx-swap-oob="true"' in panel and pressed(seat_panel(panel, "Ana"), "QD")


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("tap", "message"),
    [
        ({"action": "hold", "seat": 0, "card": "ZZ"}, "not a card"),
        ({"action": "hold", "seat": 9, "card": "KH"}, "seat number"),
        ({"action": "lay", "seat": 0, "card": "JH"}, "not a 10"),
        ({"action": "hold", "seat": 0, "card": "RJ"}, "without jokers"),
        ({"action": "build", "seat": 0, "card": "KH"}, "never part of a gun"),
        ({"action": "feet", "seat": 0}, "no tap called"),
        ({"action": "hold", "card": "KH"}, "needs “seat”"),
        ({"action": "end", "seat": 0, "reason": "boredom"}, "reason must be"),
        ({"action": "marriage", "seat": 0, "suit": "X"}, "suit must be"),
        ({"action": "aim", "role": "judge", "seat": 0}, "role must be"),
        ({"action": "victim_gun", "seat": 1, "drawn": "maybe"}, "No shot"),
        ({"action": "shot_over"}, "No shot"),
    ],
)
def test_bad_input_is_refused_with_a_message_and_nothing_is_stored(cowboy, store, tap, message):
    t = cowboy()
    before = (t.taps(), store.version(t.table.id))
    out = t.send(tap.pop("action"), **tap)
    assert t.status == 422
    assert message in " ".join(errors(out)), errors(out)
    assert t.entries() == [] and (t.taps(), store.version(t.table.id)) == before


@pytest.mark.parametrize(
    "fields",
    [
        {"tap_id": "b1", "tap": "{not json", "v": "0", "round": "1"},
        {
            "tap_id": "",
            "tap": json.dumps({"action": "hold", "seat": 0, "card": "KH"}),
            "v": "0",
            "round": "1",
        },
        {"tap_id": "b2", "tap": json.dumps({"action": "hold", "seat": 0, "card": "KH"})},
        {
            "tap_id": "b3",
            "tap": json.dumps({"action": "hold", "seat": 0, "card": "KH"}),
            "v": "0",
            "round": "7",
        },
    ],
)
def test_a_malformed_or_stale_tap_changes_nothing(cowboy, store, fields):
    t = cowboy()
    before = (t.taps(), store.version(t.table.id))
    t.post("/tap", fields)
    assert t.status in (409, 422)
    assert (t.taps(), store.version(t.table.id)) == before


def game_ended_on_the_pad(t, client) -> None:
    """Ana's 510 points, typed on the score pad (another phone's), end the game."""
    page = t.parsed(client.get(t.url))
    client.post(
        f"{t.url}/rounds",
        headers=HX,
        data={
            "csrf_token": t.csrf,
            "submission_id": page.submission_id,
            **dict(zip(page.player_fields(), ["510", "0", "0"], strict=True)),
        },
    )


def test_a_finished_game_offers_no_entry(cowboy, client):
    t = cowboy(players=NAMES[:3])
    game_ended_on_the_pad(t, client)
    panel = re.search(r'<section id="cowboy-panel".*?</section>', t.reload(), re.S).group(0)
    assert "The game is over" in panel and "hx-post" not in panel


def test_a_tap_sent_after_another_phone_ended_the_game_is_told_why(cowboy, client):
    """A phone still showing the deal taps a card after another phone's points ended
    the game: the answer shows the game over, and the refusal in words a screen reader
    announces (an alert), nothing stored."""
    t = cowboy(players=NAMES[:3])
    game_ended_on_the_pad(t, client)
    out = t.send("hold", seat=seat("Ana"), card="KH")
    assert t.status == 409
    panel = re.search(r'<section id="cowboy-panel".*?</section>', out, re.S).group(0)
    assert "The game is over" in panel
    assert re.search(r'role="(alert|status)">[^<]+<', panel), panel
    assert not t.taps()


def test_every_sentence_names_cards_by_their_symbols(cowboy):
    """The referee's verdict, a refusal and a gun's reason show cards as the screen
    does (9♥), never by code (9H)."""
    t = cowboy()
    shot(t, ["3H", "8C"], ["KS"])
    t.press('data-card="7S"', '"turn')
    reason = html.unescape(re.search(r'class="cb-reason">([^<]*)<', t.panel).group(1))
    assert "A♠" in reason and not re.search(r"\b(10|[2-9AKQJ])[SHDC]\b", reason)
    t.tap("cancel_shot")
    t.lay("Ana", "10S")
    out = t.send("hold", seat=seat("Bojan"), card="10S")
    assert t.status == 422
    assert any("10♠ is already in Ana" in e for e in errors(out))


def test_the_victim_picks_the_cowboy_he_gives_c_d3_and_chooses_c_d2(cowboy):
    t = cowboy()
    shot(t, ["3D", "8C"], ["KS", "KD"])
    t.press('data-card="9H"', '"turn')
    assert "cb-next-shot" not in t.panel  # he must pick first
    # the kings to pick from say what they are for, in words the player sees
    give = re.search(r'<div class="choices cb-give".*?</div>', t.panel, re.S).group(0)
    assert re.search(r'<span class="cb-role">The cowboy the victim gives</span>', give)
    t.press('data-card="KD"', '"give')
    assert t.state()["shot"]["given"] == "KD" and "cb-next-shot" in t.panel
    t.press("cb-next-shot")
    assert t.state()["shots"][0]["given"] == ["KD"]
    # C-D2: a 22 at a victim holding a six and a one-suit 3-5-7: he chooses
    t.tap("aim", role="attacker", seat=0)
    t.tap("aim", role="victim", seat=1)
    for card in ("2S", "2H"):
        t.tap("load", card=card)
    for card in ("6C", "3D", "5D", "7D"):
        t.tap("victim_holds", seat=1, card=card)
    assert outcome(t.panel) == "choice"
    choose = re.search(r'<div class="choices cb-choose".*?</div>', t.panel, re.S).group(0)
    assert re.search(r'<span class="cb-role">The victim chooses</span>', choose)
    t.press("quick_draw")
    assert outcome(t.panel) == "quick_draw" and t.state()["shot"]["chosen"] == "quick_draw"


def test_the_shot_part_kept_from_the_answer_before_follows_the_shot(cowboy):
    """The referee's part is kept from one answer to the next while the shot stays as
    it was: each aim, and the shot called off, draws it again."""

    def pressed(role: str) -> list[str]:
        start = t.panel.index(f'data-role="{role}"')
        group = t.panel[start : t.panel.index("</div>", start)]
        buttons = re.findall(r"<button\b[^>]*>", group)
        return [
            re.search(r'data-player="(\w+)"', b).group(1)
            for b in buttons
            if 'aria-pressed="true"' in b
        ]

    t = cowboy()
    t.tap("aim", role="attacker", seat=0)
    assert pressed("attacker") == ["Ana"] and pressed("victim") == []
    t.tap("aim", role="victim", seat=1)
    assert pressed("attacker") == ["Ana"] and pressed("victim") == ["Bojan"]
    t.tap("cancel_shot")
    assert pressed("attacker") == [] and pressed("victim") == []
