"""The Wyoming Cowboy screen through the Flask client: every tap saved in the
draft, the engine's preview and refusals placed next to the right player,
marriages (C-D1) replaced by the closed deal without double counting, the
shot referee, the watch link, bad input and retries."""

from __future__ import annotations

import html
import json
import re

import pytest
from conftest import another_phone_first

from scorekeeper import api
from scorekeeper.web import cowboy as screen

HX = {"HX-Request": "true"}
NAMES = ("Ana", "Bojan", "Ceca", "Dragan")
RULES_ON = {"cowboy-marriage_and_harlot": "on", "cowboy-curse_replaces_sixes": "on"}


class Table:
    """A cowboy table and the taps a phone sends."""

    def __init__(self, client, store, parsed, url, page):
        self.client, self.store, self.parsed = client, store, parsed
        self.url = url
        self.csrf = page.csrf
        (self.table,) = store.list_tables()
        self.ids = {p.name: p.id for p in store.players(self.table.id)}

    def post(self, path, headers=HX, **data):
        data = {"csrf_token": self.csrf, **data}
        return self.client.post(f"{self.url}/cowboy{path}", data=data, headers=headers)

    def tap(self, path, **data):
        response = self.post(path, **data)
        assert response.status_code == 200, response.get_data(as_text=True)[:500]
        return response.get_data(as_text=True)

    def card(self, zone, player, code, seen=""):
        return self.tap("/card", zone=zone, player=str(self.ids[player]), card=code, seen=seen)

    def gun(self, player, codes):
        for i, code in enumerate(codes):
            out = self.card("gun", player, code, " ".join(codes[:i]))
        return out

    def marriage(self, player, suit, sid):
        self.tap("/marriage/player", player=str(self.ids[player]))
        return self.post("/marriage", player=str(self.ids[player]), suit=suit, submission_id=sid)

    def draft(self, name=screen.DEAL):
        return self.store.draft(self.table.id, name)[0]

    def entries(self, live_only=False):
        return self.store.entries(self.table.id, live_only=live_only)

    def totals(self):
        by_id = self.store.totals(self.table.id)
        return {name: by_id[pid] for name, pid in self.ids.items()}

    def page(self):
        return self.client.get(self.url).get_data(as_text=True)


@pytest.fixture
def cowboy(client, store, parsed, new_table):
    def make(players=NAMES, **fields):
        url, page = new_table("cowboy", players, **{**RULES_ON, **fields})
        return Table(client, store, parsed, url, page)

    return make


def errors(text):
    return [html.unescape(e) for e in re.findall(r'class="field-error[^"]*"[^>]*>([^<]+)<', text)]


def player_errors(text):
    """Refusals placed next to a player: {player: message}."""
    return {
        html.unescape(who): html.unescape(msg)
        for who, msg in re.findall(
            r'class="field-error"[^>]*data-player="([^"]+)"[^>]*>([^<]+)<', text
        )
    }


def pressed(text, code, scope=""):
    """Whether the picker button of ``code`` is shown chosen."""
    block = text.split(scope, 1)[1] if scope else text
    m = re.search(rf'aria-pressed="(true|false)"\s+data-card="{code}"', block)
    return m.group(1) == "true"


def enter_whole_deal(t):
    """The end of a deal: Bojan ended it on tens (he drew the 22)."""
    t.tap("/view", view="end")
    t.tap("/end", by=str(t.ids["Bojan"]), reason="tens")
    for code in ("KH", "AH", "QS", "JD"):
        t.card("held", "Ana", code)
    for code in ("10S", "10C"):
        t.card("tens", "Ana", code)
    t.gun("Bojan", ["2S", "2H"])
    t.card("tens", "Bojan", "10H")
    for code in ("6C", "6D", "6S"):
        t.card("held", "Bojan", code)
    for code in ("QH", "JH"):
        t.card("held", "Ceca", code)
    t.card("tens", "Ceca", "10D")
    t.gun("Ceca", ["3D", "5D", "7D"])
    for code in ("KS", "AS", "KC", "QC"):
        t.card("held", "Dragan", code)
    return t.gun("Dragan", ["4C", "5C"])


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


# ---------------------------------------------------------------- the panel and the draft


def test_the_table_page_shows_the_panel_with_the_house_rules(cowboy):
    t = cowboy(**{"cowboy-curse_replaces_sixes": ""})
    page = t.page()
    assert 'id="cowboy-panel"' in page
    rules = re.search(r'class="cb-rules">(.*?)</p>', page, re.S).group(1)
    assert "C-D7" in rules and "C-D8" in rules
    assert 'class="cb-rule on"' in rules and 'class="cb-rule off"' in rules
    assert "Round 1" in page


def test_every_tap_is_saved_in_the_draft_and_a_retry_changes_nothing(cowboy):
    t = cowboy()
    assert t.draft() is None
    t.tap("/view", view="end")
    out = t.card("held", "Ana", "KH")
    assert t.draft()["held"] == {str(t.ids["Ana"]): ["KH"]}
    assert pressed(out, "KH")
    # the same tap again (a retry: the phone still showed KH unchosen) sets, not toggles
    t.card("held", "Ana", "KH")
    assert t.draft()["held"][str(t.ids["Ana"])] == ["KH"]
    # a tap seen with KH chosen takes it away
    out = t.card("held", "Ana", "KH", seen="KH")
    assert t.draft()["held"][str(t.ids["Ana"])] == []
    assert not pressed(out, "KH")
    # who ended it, and how: set, never toggled
    t.tap("/end", by=str(t.ids["Ceca"]))
    t.tap("/end", by=str(t.ids["Ceca"]))
    t.tap("/end", reason="aces")
    d = t.draft()
    assert (d["end_by"], d["end_reason"]) == (t.ids["Ceca"], "aces")
    assert d["round"] == 1


def test_a_tap_answers_out_of_band_with_the_page_at_its_version(cowboy):
    """Each fragment lands on what the page shows when the answer arrives (the poll may
    have redrawn the panel meanwhile); an answer that arrives late is refreshed by the
    poll, because the marker goes with it."""
    t = cowboy()
    out = t.tap("/view", view="shot")
    assert out.count('<section id="cowboy-panel"') == 1
    assert re.search(r'<section id="cowboy-panel"[^>]*hx-swap-oob="true"', out)
    assert 'id="board"' not in out
    version = t.store.version(t.table.id)
    assert f'<div id="live" hx-swap-oob="true" hx-get="{t.url}/live?v={version}"' in out
    assert 'id="standings"' in out and 'id="history"' in out
    assert 'hx-target="#cowboy-panel"' not in t.client.get(t.url).get_data(as_text=True)


def test_a_plain_post_without_htmx_goes_back_to_the_table(cowboy):
    t = cowboy()
    response = t.post("/view", headers={}, view="end")
    assert response.status_code == 303
    assert response.headers["Location"].endswith(t.url)
    assert t.draft()["view"] == "end"


def test_the_gun_builder_names_the_gun_or_says_why_not(cowboy):
    t = cowboy()
    t.tap("/view", view="end")
    out = t.card("gun", "Ceca", "3H")
    out = t.card("gun", "Ceca", "5H", seen="3H")
    assert "not a gun yet" in out
    assert t.draft()["pending"][str(t.ids["Ceca"])] == ["3H", "5H"]
    out = t.card("gun", "Ceca", "7H", seen="3H 5H")
    assert "357 Quick Draw" in out
    d = t.draft()
    assert d["guns"][str(t.ids["Ceca"])] == [["3H", "5H", "7H"]]
    assert d["pending"][str(t.ids["Ceca"])] == []
    out = t.card("gun", "Ceca", "4S")
    out = t.card("gun", "Ceca", "5S", seen="4S")
    assert "45" in out
    out = t.card("gun", "Ceca", "4D")
    out = t.card("gun", "Ceca", "5C", seen="4D")
    reason = api.evaluate("cowboy-gun", {"cards": ["4D", "5C"]})["reason"]
    assert reason in html.unescape(out)
    # a drawn gun can be taken back
    t.tap("/gun/remove", player=str(t.ids["Ceca"]), cards="5H 3H 7H")
    assert t.draft()["guns"][str(t.ids["Ceca"])] == [["4S", "5S"]]


def test_a_card_another_player_uses_is_disabled_with_the_reason_and_refused(cowboy):
    t = cowboy()
    t.tap("/view", view="end")
    t.card("tens", "Ana", "10S")
    out = t.tap("/focus", player=str(t.ids["Bojan"]))
    button = re.search(r'<button[^>]*data-card="10S"[^>]*>.*?</button>', out, re.S).group(0)
    assert "disabled" in button and "Ana" in button
    before = t.draft()
    response = t.post("/card", zone="held", player=str(t.ids["Bojan"]), card="10S", seen="")
    assert response.status_code == 409
    assert any("already used" in e for e in errors(response.get_data(as_text=True)))
    assert t.draft() == before


def test_starting_the_entry_again_clears_the_cards_once(cowboy):
    t = cowboy()
    t.tap("/view", view="end")
    t.tap("/end", by=str(t.ids["Ana"]), reason="aces")
    t.card("held", "Bojan", "KS")
    t.gun("Bojan", ["2S", "2H"])
    version = t.store.draft(t.table.id, screen.DEAL)[1]
    t.tap("/clear", version=str(version))
    d = t.draft()
    assert (d["end_by"], d["held"], d["guns"], d["view"], d["round"]) == (None, {}, {}, "end", 1)
    t.card("held", "Ana", "QS")
    t.tap("/clear", version=str(version))  # a retry with the old version changes nothing
    assert t.draft()["held"] == {str(t.ids["Ana"]): ["QS"]}


# ---------------------------------------------------------------- preview and refusals


def test_the_preview_is_the_engines_breakdown_item_by_item(cowboy):
    t = cowboy()
    out = enter_whole_deal(t)
    expected = api.evaluate("cowboy-deal", whole_deal_request())["players"]
    for name in NAMES:
        block = re.search(
            rf'<div class="cb-score" data-player="{name}">(.*?)</table>|'
            rf'<div class="cb-score" data-player="{name}">(.*?)</div>\s*</div>',
            out,
            re.S,
        )
        assert block, name
        text = html.unescape(block.group(0))
        assert f'class="cb-total">{expected[name]["total"]:+d}<' in text
        for item in expected[name]["items"]:
            assert f'data-item="{item["code"]}"' in text
            assert f"{item['points']:+d}" in text
    assert "Family (A K Q J of one suit)" not in out  # only items that apply
    assert "Curse (three sixes)" in html.unescape(out)
    assert "cb-save" in out and 'class="primary big cb-save" disabled' not in out


def test_an_engine_refusal_is_shown_next_to_the_right_player(cowboy):
    t = cowboy()
    t.tap("/view", view="end")
    t.tap("/end", by=str(t.ids["Ana"]), reason="aces")
    t.card("held", "Ceca", "AD")  # an ace without its king
    out = t.tap("/focus", player=str(t.ids["Ana"]))
    message = None
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
    assert player_errors(out) == {"Ceca": f"Ceca: {message}"}
    assert re.search(r'class="cb-tab invalid"[^>]*data-player="Ceca"', out)
    # on Ceca's own cards the message stands next to her picker
    out = t.tap("/focus", player=str(t.ids["Ceca"]))
    assert player_errors(out) == {"Ceca": message}
    # saving is refused with the same message; nothing is stored, the draft stays
    response = t.post("/deal", submission_id="deal-1")
    assert response.status_code == 422
    assert message in errors(response.get_data(as_text=True))
    assert t.entries() == []
    assert t.draft()["held"][str(t.ids["Ceca"])] == ["AD"]


def test_saving_without_the_end_of_the_deal_says_so(cowboy):
    t = cowboy()
    t.card("held", "Ana", "6S")
    response = t.post("/deal", submission_id="deal-1")
    assert response.status_code == 422
    assert "who ended the deal" in " ".join(errors(response.get_data(as_text=True)))
    assert t.entries() == []


# ---------------------------------------------------------------- marriages and closing


def test_a_marriage_shows_at_once_and_a_suit_shown_twice_is_refused(cowboy):
    t = cowboy()
    response = t.marriage("Ana", "H", "m-1")
    assert response.status_code == 200
    assert t.parsed(response).totals()["Ana"] == 25
    assert t.totals()["Ana"] == 25
    # the poll learns this phone is up to date with the new board
    assert f"live?v={t.store.version(t.table.id)}" in response.get_data(as_text=True)
    (entry,) = t.entries()
    assert (entry.kind, entry.round) == ("cowboy-marriage", 1)
    # hearts again, by anyone: refused by the engine (C-D1), next to the marriage buttons
    response = t.marriage("Bojan", "H", "m-2")
    assert response.status_code == 422
    text = response.get_data(as_text=True)
    assert any("C-D1" in e for e in errors(text))
    block = re.search(r'<div class="cb-block cb-marriage">.*?class="hint cb-next"', text, re.S)
    assert "(C-D1)" in block.group(0)  # next to the marriage buttons
    assert len(t.entries()) == 1
    assert t.totals() == {"Ana": 25, "Bojan": 0, "Ceca": 0, "Dragan": 0}
    # the screen offers hearts no more
    page = t.page()
    hearts = re.search(r'<button[^>]*data-suit="H"[^>]*>', page).group(0)
    assert "disabled" in hearts


def test_a_retried_marriage_is_stored_once(cowboy):
    t = cowboy()
    assert t.marriage("Ana", "S", "m-1").status_code == 200
    again = t.post("/marriage", player=str(t.ids["Ana"]), suit="S", submission_id="m-1")
    assert again.status_code == 200
    assert len(t.entries()) == 1
    assert t.totals()["Ana"] == 25


def test_closing_the_deal_replaces_the_provisional_marriages(cowboy):
    t = cowboy()
    t.marriage("Ana", "H", "m-1")
    t.marriage("Dragan", "C", "m-2")
    assert t.totals() == {"Ana": 25, "Bojan": 0, "Ceca": 0, "Dragan": 25}
    enter_whole_deal(t)
    response = t.post("/deal", submission_id="deal-1")
    assert response.status_code == 200

    request = whole_deal_request([("Ana", "H"), ("Dragan", "C")])
    expected = api.evaluate("cowboy-deal", request)["players"]
    want = {name: expected[name]["total"] for name in NAMES}
    assert t.totals() == want  # the +25s count once: inside the deal
    assert t.parsed(response).totals() == want
    live = t.entries(live_only=True)
    assert [e.kind for e in live] == ["cowboy-deal"]
    (deal,) = live
    assert deal.round == 1
    assert deal.request == request
    # retired in the same write as the deal, and recorded as replaced by it
    states = [e.state for e in t.entries() if e.kind == "cowboy-marriage"]
    assert states == ["superseded", "superseded"]
    assert t.draft() is None  # closed with the entry

    # a retry stores nothing more and counts nothing twice
    again = t.post("/deal", submission_id="deal-1")
    assert again.status_code == 200
    assert len([e for e in t.entries() if e.kind == "cowboy-deal"]) == 1
    assert t.totals() == want
    # the next deal is round 2, the dealer passed to the right
    page = t.page()
    assert 'data-round="2"' in page
    assert "Dragan deals" in page


def test_undoing_a_closed_deal_brings_its_marriages_back(cowboy):
    """The deal and the retirement of its marriages are one write: undo the deal and
    the +25 shown during play counts again; redo it and it counts inside the deal."""
    t = cowboy()
    t.marriage("Ana", "H", "m-1")
    enter_whole_deal(t)
    assert t.post("/deal", submission_id="deal-1").status_code == 200
    expected = api.evaluate("cowboy-deal", whole_deal_request([("Ana", "H")]))["players"]
    closed = {name: expected[name]["total"] for name in NAMES}
    assert t.totals() == closed
    deal = next(e for e in t.entries(live_only=True) if e.kind == "cowboy-deal")
    t.store.void_entry(t.table.id, deal.id)
    assert [e.kind for e in t.entries(live_only=True)] == ["cowboy-marriage"]
    assert t.totals() == {"Ana": 25, "Bojan": 0, "Ceca": 0, "Dragan": 0}
    t.store.restore_entry(t.table.id, deal.id)
    assert [e.kind for e in t.entries(live_only=True)] == ["cowboy-deal"]
    assert t.totals() == closed


def test_two_phones_closing_the_same_deal_store_it_once(cowboy):
    t = cowboy()
    t.marriage("Ana", "H", "m-1")
    enter_whole_deal(t)
    first = t.post("/deal", submission_id="phone-a")
    assert first.status_code == 200
    totals = t.totals()
    # the other phone's close arrives after: the draft is gone, nothing else is stored
    second = t.post("/deal", submission_id="phone-b")
    assert second.status_code == 422
    assert len([e for e in t.entries() if e.kind == "cowboy-deal"]) == 1
    assert t.totals() == totals


def test_a_card_tapped_on_another_phone_while_the_deal_closes_is_not_lost(cowboy, monkeypatch):
    """The close read the deal; before it wrote, another phone tapped one more card in
    Dragan's hand. Storing the deal without it and closing the draft would lose the
    tap unseen: the close is refused, and the draft keeps the card for a second look."""
    from scorekeeper.web import screens

    t = cowboy()
    enter_whole_deal(t)
    another_phone_first(monkeypatch, screens, "record", lambda: t.card("held", "Dragan", "2C"))
    late = t.post("/deal", submission_id="phone-a")
    assert late.status_code == 409
    assert "Another phone changed this deal a moment ago" in late.get_data(as_text=True)
    assert [e for e in t.entries() if e.kind == "cowboy-deal"] == []
    assert "2C" in json.dumps(t.draft())
    monkeypatch.undo()
    assert t.post("/deal", submission_id="phone-a-again").status_code == 200
    (deal,) = [e for e in t.entries() if e.kind == "cowboy-deal"]
    assert "2C" in json.dumps(deal.request)


def test_a_renamed_player_keeps_the_draft_and_the_marriage(cowboy, client):
    t = cowboy()
    t.marriage("Ana", "H", "m-1")
    t.card("held", "Ana", "KS")
    response = client.post(
        f"{t.url}/players/{t.ids['Ana']}/name",
        data={"csrf_token": t.csrf, "name": "Anka"},
        headers=HX,
    )
    assert response.status_code == 200
    page = t.page()
    assert 'data-player="Anka" data-suit="H"' in page
    assert t.draft()["held"][str(t.ids["Ana"])] == ["KS"]


# ---------------------------------------------------------------- the shot referee


def shot(t, gun, held, drawn="yes"):
    t.tap("/view", view="shot")
    t.tap("/shot/player", role="attacker", player=str(t.ids["Ana"]))
    t.tap("/shot/player", role="victim", player=str(t.ids["Bojan"]))
    for i, code in enumerate(gun):
        out = t.tap("/shot/card", zone="gun", card=code, seen=" ".join(gun[:i]))
    for i, code in enumerate(held):
        out = t.tap("/shot/card", zone="held", card=code, seen=" ".join(held[:i]))
    if drawn != "yes":
        out = t.tap("/shot/drawn", drawn=drawn)
    return out


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
    assert html.escape(answer["reason"], quote=False) in out
    assert "cb-turn" not in out  # no card to turn


def test_the_referee_asks_for_the_turned_card_only_when_needed(cowboy):
    t = cowboy()
    out = shot(t, ["3H", "8C"], ["KS", "AS"])  # only a protected cowboy: the 38 misses
    assert outcome(out) == "miss"
    assert "cb-turn" not in out
    out = t.tap("/shot/card", zone="held", card="KD", seen="KS AS")
    assert outcome(out) == "turn_card"
    assert 'class="cb-turn"' in out
    out = t.tap("/shot/suit", suit="D")
    out = t.tap("/shot/card", zone="turned", card="9D")
    assert outcome(out) == "dodge"
    out = t.tap("/shot/suit", suit="C")  # another suit: the turned 9♦ is dropped
    assert outcome(out) == "turn_card"
    out = t.tap("/shot/card", zone="turned", card="9C")
    assert outcome(out) == "hit"


def test_a_victim_without_a_drawn_gun_cannot_be_shot(cowboy):
    t = cowboy()
    out = shot(t, ["4H", "5H"], ["KS"], drawn="no")
    assert outcome(out) == "not_allowed"
    assert t.draft(screen.SHOT)["has_gun"] is False


def test_a_dodge_taking_the_fourth_ace_ends_the_deal_by_the_attacker(cowboy):
    t = cowboy()
    shot(t, ["3H", "8C"], ["KS"])
    for code, seen in (("AH", "AS AH AD AC"), ("AD", "AS AD AC"), ("AC", "AS AC")):
        t.tap("/shot/card", zone="aces", card=code, seen=seen)
    assert t.draft(screen.SHOT)["aces"] == ["AS"]
    t.tap("/shot/suit", suit="S")
    out = t.tap("/shot/card", zone="turned", card="7S")
    assert outcome(out) == "dodge"
    assert "cb-end-deal" in out and "The deal ends: Ana ended it" in out
    version = t.store.draft(t.table.id, screen.SHOT)[1]
    out = t.tap("/shot/end-deal", version=str(version))
    d = t.draft()
    assert (d["end_by"], d["end_reason"], d["view"]) == (t.ids["Ana"], "aces", "end")
    assert t.draft(screen.SHOT) is None  # the next deal starts with four aces
    assert 'data-view="end"' in out


def test_next_shot_takes_the_dodged_ace_off_the_table_once(cowboy):
    t = cowboy()
    shot(t, ["3H", "8C"], ["KS"])
    t.tap("/shot/suit", suit="S")
    t.tap("/shot/card", zone="turned", card="7S")
    version = t.store.draft(t.table.id, screen.SHOT)[1]
    t.tap("/shot/next", version=str(version))
    sh = t.draft(screen.SHOT)
    assert sh["aces"] == ["AH", "AD", "AC"] and sh["gun"] == [] and sh["held"] == []
    t.tap("/shot/next", version=str(version))  # a retry: stale version, nothing changes
    assert t.draft(screen.SHOT) == sh


def test_c_d11_the_victim_may_leave_the_last_ace_on_the_table(cowboy):
    """C-D11: on a dodge the screen offers to leave the ace; then the last ace does not
    end the deal, and the next shot keeps it on the table."""
    t = cowboy()
    shot(t, ["3H", "8C"], ["KS"])
    for code, seen in (("AH", "AS AH AD AC"), ("AD", "AS AD AC"), ("AC", "AS AC")):
        t.tap("/shot/card", zone="aces", card=code, seen=seen)
    t.tap("/shot/suit", suit="S")
    out = t.tap("/shot/card", zone="turned", card="7S")
    assert outcome(out) == "dodge" and "cb-end-deal" in out
    assert "Leave the ace on the table" in out
    out = t.tap("/shot/decline", declines="yes")
    assert t.draft(screen.SHOT)["declines_ace"] is True
    assert outcome(out) == "dodge" and "cb-end-deal" not in out
    assert "the victim leaves AS on the table" in out
    assert "Next shot (the ace stays on the table)" in out
    out = t.tap("/shot/decline", declines="no")  # he takes it after all
    assert "cb-end-deal" in out
    t.tap("/shot/decline", declines="yes")
    version = t.store.draft(t.table.id, screen.SHOT)[1]
    t.tap("/shot/next", version=str(version))
    sh = t.draft(screen.SHOT)
    assert sh["aces"] == ["AS"] and sh["declines_ace"] is False


def test_c_d11_no_leave_the_ace_choice_without_a_dodge(cowboy):
    t = cowboy()
    shot(t, ["3H", "8C"], ["KS"])
    t.tap("/shot/suit", suit="D")
    out = t.tap("/shot/card", zone="turned", card="7D")
    assert outcome(out) == "hit" and "cb-decline-ace" not in out


def test_c_d10_the_turned_card_picker_offers_no_ace(cowboy):
    t = cowboy()
    shot(t, ["3H", "8C"], ["KS"])
    out = t.tap("/shot/suit", suit="S")
    picker = out[out.index("cb-turnpick") :]
    picker = picker[: picker.index("</div>")]
    assert "KS" in picker and "2S" in picker and "AS" not in picker
    refused = t.post("/shot/card", zone="turned", card="AS")
    assert refused.status_code == 422 and "cannot be chosen" in refused.get_data(as_text=True)
    assert t.draft(screen.SHOT)["turned"] is None


def test_a_shot_refusal_is_shown_next_to_the_victims_cards(cowboy):
    t = cowboy()
    out = shot(t, ["3H", "8C"], ["AD"])  # an ace without its king
    assert outcome(out) is None
    assert any("without KD" in e for e in errors(out))


# ---------------------------------------------------------------- the watch link


def write_routes(app):
    return sorted(
        rule.rule
        for rule in app.url_map.iter_rules()
        if rule.endpoint.startswith("cowboy.") and "POST" in rule.methods
    )


def test_the_watch_link_is_refused_on_every_write_route(app, cowboy, store):
    t = cowboy()
    t.marriage("Ana", "H", "m-1")
    t.card("held", "Ana", "KS")
    before = (t.draft(), [e.id for e in t.entries()], store.version(t.table.id))
    watch = t.table.watch_key
    routes = write_routes(app)
    assert len(routes) >= 14
    for rule in routes:
        path = rule.replace("<key>", watch)
        response = t.client.post(
            path,
            data={
                "csrf_token": t.csrf,
                "player": str(t.ids["Ana"]),
                "card": "KH",
                "zone": "held",
                "suit": "S",
                "view": "end",
                # URL-safe, as every id the app makes (a route's path is not)
                "submission_id": "w-" + re.sub(r"[^A-Za-z0-9_-]", "-", rule),
            },
            headers=HX,
        )
        assert response.status_code == 403, rule
        assert "watch link" in response.get_data(as_text=True)
    assert (t.draft(), [e.id for e in t.entries()], store.version(t.table.id)) == before


def test_the_watch_page_shows_the_draft_without_controls(cowboy):
    t = cowboy()
    t.marriage("Ana", "H", "m-1")
    enter_whole_deal(t)
    page = t.client.get(f"/t/{t.table.watch_key}").get_data(as_text=True)
    panel = re.search(r'<section id="cowboy-panel".*?</section>', page, re.S).group(0)
    assert "hx-post" not in panel and "<button" not in panel
    assert 'data-player="Ana" data-suit="H"' in panel
    expected = api.evaluate("cowboy-deal", whole_deal_request([("Ana", "H")]))["players"]
    assert f'<td class="pts">{expected["Bojan"]["total"]:+d}</td>' in panel


def test_another_phone_sees_the_draft_in_the_poll(cowboy):
    t = cowboy()
    version = t.store.version(t.table.id)
    t.tap("/view", view="end")
    t.card("held", "Ana", "QD")
    live = t.client.get(f"{t.url}/live?v={version}").get_data(as_text=True)
    panel = re.search(r'<section id="cowboy-panel".*?</section>', live, re.S).group(0)
    assert 'hx-swap-oob="true"' in panel
    assert pressed(panel, "QD")


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("path", "fields", "status", "message"),
    [
        ("/card", {"zone": "held", "player": "@Ana", "card": "ZZ"}, 422, "not a card"),
        ("/card", {"zone": "held", "player": "@Ana", "card": "9H"}, 422, "cannot be chosen"),
        ("/card", {"zone": "tens", "player": "@Ana", "card": "JH"}, 422, "cannot be chosen"),
        ("/card", {"zone": "held", "player": "@Ana", "card": "RJ"}, 422, "cannot be chosen"),
        ("/card", {"zone": "feet", "player": "@Ana", "card": "KH"}, 400, "not one of the choices"),
        ("/card", {"zone": "held", "player": "999", "card": "KH"}, 422, "not at this table"),
        ("/card", {"zone": "held", "card": "KH"}, 400, "missing"),
        ("/view", {"view": "cellar"}, 400, "no such part"),
        ("/end", {"reason": "boredom"}, 400, "not one of the choices"),
        ("/end", {}, 400, "who ended the deal"),
        ("/focus", {"player": "x"}, 422, "not at this table"),
        ("/marriage/player", {"player": ""}, 422, "not at this table"),
        ("/marriage", {"player": "@Ana", "suit": "X", "submission_id": "s"}, 400, "choices"),
        ("/marriage", {"player": "77", "suit": "H", "submission_id": "s"}, 422, "not at this"),
        ("/shot/card", {"zone": "gun", "card": "KH"}, 422, "cannot be chosen"),
        ("/shot/card", {"zone": "turned", "card": "11X"}, 422, "not a card"),
        ("/shot/player", {"role": "judge", "player": "@Ana"}, 400, "not one of the choices"),
        ("/shot/drawn", {"drawn": "maybe"}, 400, "not one of the choices"),
        ("/shot/decline", {"declines": "maybe"}, 400, "not one of the choices"),
        ("/shot/suit", {"suit": "♠♠"}, 400, "not one of the choices"),
    ],
)
def test_bad_input_is_refused_with_a_message_and_nothing_is_stored(
    cowboy, store, path, fields, status, message
):
    t = cowboy()
    fields = {k: str(t.ids["Ana"]) if v == "@Ana" else v for k, v in fields.items()}
    before = (t.draft(), t.draft(screen.SHOT), store.version(t.table.id))
    response = t.post(path, **fields)
    assert response.status_code == status
    text = response.get_data(as_text=True)
    assert message in " ".join(errors(text)), errors(text)
    assert t.entries() == []
    assert (t.draft(), t.draft(screen.SHOT), store.version(t.table.id)) == before


def test_a_finished_game_offers_no_entry(cowboy, client):
    t = cowboy(players=NAMES[:3])
    page = t.parsed(client.get(t.url))
    client.post(
        f"{t.url}/rounds",
        data={
            "csrf_token": t.csrf,
            "submission_id": page.submission_id,
            **{
                field: pts
                for field, pts in zip(page.player_fields(), ["510", "0", "0"], strict=True)
            },
        },
        headers=HX,
    )
    panel = re.search(r'<section id="cowboy-panel".*?</section>', t.page(), re.S).group(0)
    assert "The game is over" in panel and "hx-post" not in panel
