"""The Vežimas screen through the Flask client: trumps stored once and shown, the beat
checker's verdicts (cases 1–3, the next-player rule, players out), the deal's cart and
tally, the watch link, refused taps and retries."""

from __future__ import annotations

import re

import pytest
from conftest import another_phone_first

from scorekeeper.web import vezimas as screen

HX = {"HX-Request": "true"}
THREE = ("Asta", "Jonas", "Rūta")
FOUR = ("Asta", "Jonas", "Rūta", "Tomas")


class Table:
    """A Vežimas table driven by the panel's taps (the URLs the buttons post to)."""

    def __init__(self, client, store, parsed, url, page):
        self.client, self.store, self.parsed, self.url = client, store, parsed, url
        self.csrf = page.csrf
        self.table = store.list_tables()[0]
        self.ids = {p.name: p.id for p in store.players(self.table.id)}

    def post(self, path, data=None, headers=HX):
        return self.client.post(
            f"{self.url}/vezimas{path}",
            data={"csrf_token": self.csrf, **(data or {})},
            headers=headers,
        )

    def tap(self, path, expect=200, **data):
        response = self.post(path, data)
        assert response.status_code == expect, response.get_data(as_text=True)
        return response.get_data(as_text=True)

    def who(self, name):
        return str(self.ids[name])

    def set_trumps(self, queen, nine=None):
        self.tap("/setup/queen", player=self.who(queen))
        if nine:
            self.tap("/setup/nine", player=self.who(nine))
        # by seat: a submission id is URL-safe, and a name may not be
        return self.tap("/trumps", submission_id=f"t-{self.who(queen)}")

    def ask(self, top, player, card=None):
        html = self.tap("/check/top", card=top)
        html = self.tap("/check/player", player=self.who(player))
        if card:
            html = self.tap("/check/card", card=card)
        return html

    def entries(self, kind=None):
        return [e for e in self.store.entries(self.table.id) if kind in (None, e.kind)]

    def draft(self, name=screen.DEAL_DRAFT):
        return self.store.draft(self.table.id, name)

    def page(self, url=None):
        return self.parsed(self.client.get(url or self.url))


@pytest.fixture
def vz(client, store, parsed, new_table):
    def make(players=FOUR, **fields):
        url, page = new_table("vezimas", players, **fields)
        return Table(client, store, parsed, url, page)

    return make


def verdict(html):
    """('yes' | 'no', case, text) of the big verdict, or None."""
    m = re.search(
        r'class="verdict (yes|no)" id="vz-verdict" data-case="(\d)">(.*?)</div>', html, re.S
    )
    if not m:
        return None
    text = re.sub(r"<[^>]+>", "", m[3])
    return m[1], int(m[2]), " ".join(text.split())


def buttons(html, action):
    """{player or card: (pressed, disabled)} of the buttons posting to ``action``."""
    found = {}
    for tag in re.findall(r"<button\b[^>]*>", html):
        if f'/vezimas/{action}"' not in tag:
            continue
        what = re.search(r'data-(?:player|card)="([^"]+)"', tag)[1]
        found[what] = ('aria-pressed="true"' in tag, " disabled" in tag)
    return found


def badges(html):
    """Player name → trump symbol, as the trumps list shows them."""
    section = html[html.index('class="card vz-trumps"') :]
    section = section[: section.index("</section>")]
    return dict(
        (name, symbol)
        for symbol, name in re.findall(
            r'class="vz-suit suit-\w+"[^>]*>(.)</span> <span class="vz-name">([^<]+)<', section
        )
    )


# ---------------------------------------------------------------- trumps


def test_four_players_trumps_from_the_queen_of_clubs_stored_once_and_shown(vz):
    t = vz(FOUR)
    first = t.page()
    assert "Who holds it?" in first.html and "9♦" not in first.html  # 4 players: Q♣ only
    assert re.search(r'class="primary big vz-save-trumps"[^>]*disabled', first.html, re.S)
    preview = t.tap("/setup/queen", player=t.who("Jonas"))
    # the engine's preview before saving: V-D1 clockwise from the Q♣ holder
    assert re.search(
        r"♣</span> <span class=\"vz-name\">Jonas</span> <span class=\"badge vz-lead\"", preview
    )
    assert t.entries() == []  # a tap saves the draft only
    board = t.tap("/trumps", submission_id="trumps-1")
    (entry,) = t.entries("vezimas-trumps")
    assert entry.round == 0 and entry.request == {
        "players": list(FOUR),
        "queen_of_clubs": "Jonas",
    }
    assert entry.result["trumps"] == {"Jonas": "C", "Rūta": "S", "Tomas": "H", "Asta": "D"}
    assert entry.result["first_lead"] == "Jonas"
    assert badges(board) == {"Asta": "♦", "Jonas": "♣", "Rūta": "♠", "Tomas": "♥"}
    assert "Jonas leads" in board and "Trumps set for the session." in board
    assert t.draft(screen.SETUP_DRAFT) == (None, 0)  # the set-up draft closed with the entry
    # a reload shows the same, and a second save (another phone) stores nothing
    assert badges(t.page().html) == badges(board)
    again = t.post("/trumps", {"submission_id": "trumps-2"})
    assert again.status_code == 409 and "already set" in again.get_data(as_text=True)
    assert len(t.entries("vezimas-trumps")) == 1
    # the retried first save answers "already saved"
    assert "Already saved." in t.tap("/trumps", submission_id="trumps-1")
    # the next deal starts at round 1: the trumps belong to the set-up (round 0)
    assert "Round 1: who got the cart?" in board


def test_three_players_also_name_the_nine_of_diamonds_holder_who_leads(vz):
    t = vz(THREE)
    t.tap("/setup/queen", player=t.who("Rūta"))
    missing = t.post("/trumps", {"submission_id": "s1"})
    assert missing.status_code == 422 and "Tap who holds 9♦ first." in missing.get_data(
        as_text=True
    )
    assert t.entries() == []
    board = t.set_trumps("Rūta", "Jonas")
    assert badges(board) == {"Rūta": "♣", "Asta": "♠", "Jonas": "♥"}
    assert "Jonas leads" in board
    assert re.search(r"Free suits[^<]*<span class=\"vz-suit suit-red\">♦", board)


def test_the_set_up_taps_survive_a_reload_and_show_on_the_watch_link(vz):
    t = vz(THREE)
    t.tap("/setup/queen", player=t.who("Asta"))
    t.tap("/setup/nine", player=t.who("Asta"))
    page = t.page()
    assert buttons(page.html, "setup/queen")["Asta"] == (True, False)
    assert buttons(page.html, "setup/nine")["Asta"] == (True, False)
    assert buttons(page.html, "setup/nine")["Jonas"] == (False, False)
    watch = t.page(watch_url(page.html))
    assert "Save trumps" not in watch.html and "hx-post" not in panel_of(watch.html)
    assert re.search(
        r"♣</span> <span class=\"vz-name\">Asta</span> <span class=\"badge vz-lead\"", watch.html
    )


def test_undoing_the_trumps_asks_again(vz):
    t = vz(FOUR)
    t.set_trumps("Asta")
    (entry,) = t.entries("vezimas-trumps")
    board = t.client.post(
        f"{t.url}/entries/{entry.id}/undo", data={"csrf_token": t.csrf}, headers=HX
    ).get_data(as_text=True)
    assert "Trumps for the session" in board and "Does it beat?" not in board
    t.set_trumps("Tomas")
    assert badges(t.page().html)["Tomas"] == "♣"


# ---------------------------------------------------------------- the beat checker


def test_case_two_the_next_players_trump_only_falls_to_your_own_trump(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")  # Jonas ♣, Rūta ♠, Tomas ♥, Asta ♦
    html = t.ask("9S", "Jonas")
    # before a card is tapped the case and its rule are shown
    assert re.search(r'data-case="2"><strong>Case 2\.</strong>', html)
    assert "9♠ is the trump of Rūta, the next player" in html
    refused = verdict(t.tap("/check/card", card="10S"))
    assert refused[:2] == ("no", 2)
    assert "Does not beat it" in refused[2] and "10♠ does not beat 9♠" in refused[2]
    assert "only one of your trumps (♣) beats it" in refused[2]
    assert verdict(t.tap("/check/card", card="9C"))[:2] == ("yes", 2)
    # referee only: nothing is stored, the question lives in the draft for every phone
    assert t.entries("vezimas-beat") == [] and len(t.entries()) == 1
    data, _version = t.draft()
    assert data["top"] == "9S" and data["card"] == "9C" and data["player"] == t.ids["Jonas"]


def test_case_one_and_case_three(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    assert verdict(t.ask("JC", "Jonas", "QC"))[:2] == ("yes", 1)
    assert verdict(t.tap("/check/card", card="AH"))[:2] == ("no", 1)
    three = verdict(t.ask("10H", "Jonas", "JH"))  # Tomas's ♥, but Rūta plays next
    assert three[:2] == ("yes", 3)
    assert verdict(t.tap("/check/card", card="9C"))[:2] == ("yes", 3)
    assert verdict(t.tap("/check/card", card="9H"))[:2] == ("no", 3)


def test_a_new_top_card_clears_the_card_but_not_whose_turn(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.ask("9S", "Jonas", "9C")
    html = t.tap("/check/top", card="KD")
    assert verdict(html) is None
    data, _ = t.draft()
    assert data["card"] is None and data["player"] == t.ids["Jonas"]
    cleared = t.tap("/check/clear")
    assert "Tap the top card and whose turn it is." in cleared
    assert t.draft()[0]["top"] is None


def test_whole_hand_lists_the_cards_that_beat(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.ask("9S", "Jonas")
    t.tap("/check/mode", mode="hand")
    for card in ("10S", "AS", "QC", "KH"):
        html = t.tap("/check/hand", card=card, on="1")
    # a retried tap changes nothing (set semantics), and a card can be taken out again
    html = t.tap("/check/hand", card="QC", on="1")
    assert sorted(t.draft()[0]["hand"]) == ["10S", "AS", "KH", "QC"]
    assert [c for c, (on, _off) in buttons(html, "check/hand").items() if on] == [
        "QC",
        "10S",
        "AS",
        "KH",
    ]  # in deck order: one row per suit, ♣ ♠ ♥ ♦
    assert buttons(html, "check/hand")["9S"] == (False, True)  # the top card
    found = verdict(html)
    assert found[:2] == ("yes", 2) and "Beats it: Q♣" in found[2] and "10♠" not in found[2]
    html = t.tap("/check/hand", card="QC", on="0")
    none = verdict(html)
    assert none[0] == "no" and "Nothing in this hand beats it" in none[2]
    assert sorted(t.draft()[0]["hand"]) == ["10S", "AS", "KH"]


def test_a_player_out_frees_his_suit_and_the_next_player_skips_him(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.ask("9S", "Jonas", "10S")
    html = t.tap("/check/out", player=t.who("Rūta"), on="1")
    # Rūta is out: her ♠ is free, Tomas plays next, so 10♠ now beats 9♠ (case 3)
    found = verdict(html)
    assert found[:2] == ("yes", 3)
    assert "♠ is free because Rūta is out" in found[2]
    assert re.search(r'class="vz-next">next: <span class="vz-who">.*?Tomas', html, re.S)
    assert re.search(
        r"Free suits \(beaten like any other\):\s*<span class=\"vz-suit suit-black\">♠", html
    )
    # a retried tap keeps her out; a player who is out cannot be chosen to play
    t.tap("/check/out", player=t.who("Rūta"), on="1")
    assert t.draft()[0]["out"] == [t.ids["Rūta"]]
    assert buttons(html, "check/player")["Rūta"] == (False, True)
    assert buttons(html, "check/out")["Rūta"] == (True, False)
    refused = t.post("/check/player", {"player": t.who("Rūta")})
    assert refused.status_code == 422
    assert "Rūta is out of this deal" in refused.get_data(as_text=True)
    assert t.draft()[0]["player"] == t.ids["Jonas"]
    # back in: case 2 again
    back = verdict(t.tap("/check/out", player=t.who("Rūta"), on="0"))
    assert back[:2] == ("no", 2)


def test_the_last_player_holding_cards_is_told_the_deal_is_over(vz):
    t = vz(("Asta", "Jonas"))
    t.set_trumps("Asta", "Jonas")
    t.ask("9H", "Asta", "10H")
    html = t.tap("/check/out", player=t.who("Jonas"), on="1")
    assert "Only Asta still holds cards: the deal is over and Asta gets the cart." in html
    assert verdict(html) is None


def nothing_note(html):
    m = re.search(r'id="vz-nothing" data-case="0">(.*?)</div>', html, re.S)
    return " ".join(re.sub(r"<[^>]+>", "", m[1]).split()) if m else None


def test_v_d5_going_out_with_a_beat_leaves_nothing_to_beat_for_the_next_player(vz):
    """V-D5: Jonas beats 9♠ with his last card (J♣) and goes out: the screen moves the
    question to Rūta and says she lays any card instead of asking for a beat."""
    t = vz(FOUR)
    t.set_trumps("Jonas")
    html = t.ask("9S", "Jonas", "JC")
    assert verdict(html)[0] == "yes"
    html = t.tap("/check/out", player=t.who("Jonas"), on="1")
    data = t.draft()[0]
    assert data["nothing_to_beat"] is True and data["top"] is None
    assert data["player"] == t.ids["Rūta"]
    note = nothing_note(html)
    assert note.startswith("Nothing to beat: Rūta lays any card.")
    assert verdict(html) is None  # no beat asked for
    # any card she taps may be laid (case 0)
    html = t.tap("/check/card", card="9H")
    assert "9♥ may be laid." in nothing_note(html)
    # a new top card asks for a beat again
    html = t.tap("/check/top", card="10H")
    assert nothing_note(html) is None and t.draft()[0]["nothing_to_beat"] is False


def test_v_d5_going_out_after_a_card_that_does_not_beat_asks_as_before(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.ask("9S", "Jonas", "KH")  # case 2: only a club beats 9♠
    html = t.tap("/check/out", player=t.who("Jonas"), on="1")
    assert t.draft()[0]["nothing_to_beat"] in (None, False)
    assert nothing_note(html) is None


def test_v_d5_nothing_to_beat_can_be_tapped_and_checks_a_whole_hand(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.tap("/check/nothing")
    t.tap("/check/player", player=t.who("Tomas"))
    t.tap("/check/mode", mode="hand")
    t.tap("/check/hand", card="9S", on="1")
    html = t.tap("/check/hand", card="AD", on="1")
    assert nothing_note(html).startswith("Nothing to beat: Tomas lays any card.")
    cleared = t.tap("/check/clear")
    assert nothing_note(cleared) is None and not t.draft()[0]["nothing_to_beat"]


def test_the_checker_waits_for_the_trumps(vz):
    t = vz(FOUR)
    response = t.post("/check/top", {"card": "9S"})
    assert response.status_code == 422
    assert "Set the trumps first" in response.get_data(as_text=True)
    assert t.draft() == (None, 0)


# ---------------------------------------------------------------- the deal's cart


def test_deal_results_make_the_cart_tally_and_the_loser_deals(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.ask("9S", "Jonas", "10S")
    t.tap("/check/out", player=t.who("Asta"), on="1")
    preview = t.tap("/cart", player=t.who("Tomas"))
    assert "Tomas gets the cart and deals next; Asta leads." in preview
    assert t.entries("vezimas-deal") == []
    board = t.tap("/deal", submission_id="deal-1")
    (entry,) = t.entries("vezimas-deal")
    assert entry.round == 1 and entry.request == {"players": list(FOUR), "loser": "Tomas"}
    assert entry.result["next_dealer"] == "Tomas" and entry.result["first_lead"] == "Asta"
    assert "Round 1: Tomas got the cart. Tomas deals, Asta leads." in board
    page = t.parsed(t.client.get(t.url))
    assert page.totals() == {"Asta": 0, "Jonas": 0, "Rūta": 0, "Tomas": 1}
    assert re.search(r'Tomas <span class="badge dealer"', page.html)
    assert "Round 2 · Tomas deals · Asta leads" in page.html
    # the deal's draft closed with it: nobody out, no question, no cart chosen
    assert t.draft() == (None, 0)
    assert "Round 2: who got the cart?" in page.html
    # a retried save stores nothing more
    assert "Already saved." in t.tap("/deal", submission_id="deal-1")
    t.tap("/cart", player=t.who("Asta"))
    t.tap("/deal", submission_id="deal-2")
    t.tap("/cart", player=t.who("Tomas"))
    board = t.tap("/deal", submission_id="deal-3")
    assert t.page().totals() == {"Asta": 1, "Jonas": 0, "Rūta": 0, "Tomas": 2}
    # fewest carts first
    order = re.findall(r'class="points" data-player="([^"]+)"', board)
    assert order[:2] == ["Jonas", "Rūta"] and order[-1] == "Tomas"
    assert "Round 4 · Tomas deals · Asta leads" in board


def test_a_cart_tapped_on_another_phone_while_the_deal_is_saved_is_not_lost(vz, monkeypatch):
    """The save read the draft (Tomas got the cart); before it wrote, another phone
    tapped Asta. Saving Tomas and closing the draft would lose that tap unseen: the
    save is refused, and the draft with Asta stays for a second look."""
    from scorekeeper.web import screens

    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.tap("/cart", player=t.who("Tomas"))
    another_phone_first(
        monkeypatch, screens, "record", lambda: t.tap("/cart", player=t.who("Asta"))
    )
    late = t.post("/deal", {"submission_id": "deal-late"})
    assert late.status_code == 409
    assert "Another phone changed this deal a moment ago" in late.get_data(as_text=True)
    assert t.entries("vezimas-deal") == []
    data, _version = t.draft()
    assert data["loser"] == t.ids["Asta"]
    monkeypatch.undo()
    t.tap("/deal", submission_id="deal-again")
    (entry,) = t.entries("vezimas-deal")
    assert entry.request["loser"] == "Asta"


def test_saving_a_deal_needs_the_cart(vz):
    t = vz(THREE)
    response = t.post("/deal", {"submission_id": "d"})
    assert response.status_code == 422
    assert "Tap who got the cart first." in response.get_data(as_text=True)
    assert t.entries() == []


def test_the_game_ends_when_the_players_say_so(vz):
    t = vz(THREE)
    t.set_trumps("Asta", "Asta")
    t.tap("/cart", player=t.who("Jonas"))
    t.tap("/deal", submission_id="d1")
    ended = t.client.post(f"{t.url}/end", data={"csrf_token": t.csrf}, headers=HX)
    html = ended.get_data(as_text=True)
    assert "Asta and Rūta share the win" in html
    assert "hx-post" not in panel_of(html)  # no more taps in the panel


def test_v_d6_with_letters_the_table_shows_letters_and_vezimas_ends_the_session(vz):
    """V-D6 (house rule tally = letters): each deal's loser takes the next letter;
    completing VEŽIMAS loses and ends the session, nothing more can be entered."""
    t = vz(THREE, **{"vezimas-tally": "letters"})
    assert t.table.settings["tally"] == "letters"
    t.set_trumps("Asta", "Asta")
    for i in range(6):
        t.tap("/cart", player=t.who("Jonas"))
        board = t.tap("/deal", submission_id=f"d{i}")
    t.tap("/cart", player=t.who("Rūta"))
    board = t.tap("/deal", submission_id="r1")
    shown = dict(re.findall(r'class="points letters" data-player="([^"]+)">([^<]*)<', board))
    assert shown == {"Asta": "–", "Jonas": "VEŽIMA", "Rūta": "V"}
    assert "takes the next letter of VEŽIMAS" in board
    preview = t.tap("/cart", player=t.who("Jonas"))
    assert "Jonas takes the next letter (VEŽIMAS) and deals next" in preview
    assert "who lost the deal?" in preview
    board = t.tap("/deal", submission_id="last")
    shown = dict(re.findall(r'class="points letters" data-player="([^"]+)">([^<]*)<', board))
    assert shown["Jonas"] == "VEŽIMAS"
    assert re.search(
        r'Jonas(?: <span class="badge dealer"[^>]*>deals</span>)? <span class="badge loser">loses</span>',
        board,
    )
    assert "Round 8: Jonas lost the deal (a letter)." in board
    assert "Jonas completed VEŽIMAS and loses the session (V-D6)." in board
    assert "Asta wins with the fewest letters." in board
    assert "hx-post" not in panel_of(board)
    refused = t.post("/deal", {"submission_id": "after-the-end"})
    assert refused.status_code == 409 and "The session is over." in refused.get_data(as_text=True)
    assert len(t.entries("vezimas-deal")) == 8


# ---------------------------------------------------------------- other phones


def watch_url(html):
    return re.findall(r'data-copy="http://[^/]+(/t/[^"]+)"', html)[-1]


def panel_of(html):
    start = html.index('id="vezimas-panel"')
    return html[start : html.index("</section>\n</div>", start)]


def test_the_watch_link_sees_the_trumps_and_the_question_and_cannot_write(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.ask("9S", "Jonas", "10S")
    t.tap("/check/out", player=t.who("Asta"), on="1")
    t.tap("/cart", player=t.who("Asta"))
    watch = watch_url(t.page().html)
    view = t.page(watch)
    assert badges(view.html) == {"Asta": "♦", "Jonas": "♣", "Rūta": "♠", "Tomas": "♥"}
    assert verdict(view.html)[:2] == ("no", 2)
    assert "Asta got the cart (not saved yet)." in view.html
    assert "hx-post" not in panel_of(view.html) and "<button" not in panel_of(view.html)
    before = (t.entries(), t.draft(), t.draft(screen.SETUP_DRAFT))
    writes = [
        ("/setup/queen", {"player": t.who("Asta")}),
        ("/trumps", {"submission_id": "w1"}),
        *[
            (f"/check/{f}", {"card": "JS", "player": t.who("Rūta"), "on": "1", "mode": "hand"})
            for f in ("top", "player", "mode", "card", "hand", "out", "clear")
        ],
        ("/cart", {"player": t.who("Rūta")}),
        ("/deal", {"submission_id": "w2"}),
    ]
    for path, data in writes:
        response = t.client.post(
            f"{watch}/vezimas{path}", data={"csrf_token": t.csrf, **data}, headers=HX
        )
        assert response.status_code == 403, path
        assert "watch link" in response.get_data(as_text=True)
    assert (t.entries(), t.draft(), t.draft(screen.SETUP_DRAFT)) == before


def test_the_poll_refreshes_the_panel_on_other_phones(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    page = t.page()
    version = re.search(r'data-version="(\d+)"', page.html)[1]
    assert t.client.get(f"{t.url}/live?v={version}").get_data() == b""  # unchanged
    t.ask("9S", "Jonas", "10S")  # a tap on another phone
    body = t.client.get(f"{t.url}/live?v={version}").get_data(as_text=True)
    assert '<div id="vezimas-panel" class="vz" hx-swap-oob="true">' in body
    assert verdict(body)[:2] == ("no", 2)


def test_a_tap_answers_out_of_band_with_the_page_at_its_version(vz):
    """Each fragment lands on what the page shows when the answer arrives, even if the
    poll redrew the panel while the tap was on its way; and the poll moves on to the
    tap's version instead of fetching the panel back."""
    t = vz(FOUR)
    t.set_trumps("Jonas")
    html = t.tap("/check/top", card="9S")
    version = t.store.version(t.table.id)
    assert html.count('id="vezimas-panel"') == 1
    assert '<div id="vezimas-panel" class="vz" hx-swap-oob="true">' in html
    assert f'<div id="live" hx-swap-oob="true" hx-get="{t.url}/live?v={version}"' in html
    assert 'id="standings"' in html and 'id="history"' in html  # the rest, same version
    assert t.client.get(f"{t.url}/live?v={version}").get_data() == b""
    # a refused tap: its message, in the panel, out of band too
    html = t.tap("/check/card", expect=422, card="9S")
    assert '<div id="vezimas-panel" class="vz" hx-swap-oob="true">' in html
    assert "That is the top card itself" in html
    # the panel's taps swap nothing themselves: the answer places every fragment
    page = t.page().html
    assert 'hx-target="#vezimas-panel"' not in page


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("path", "data", "message"),
    [
        ("/check/top", {"card": "2S"}, "not in the Vežimas deck"),
        ("/check/top", {"card": "zz"}, "is not a card"),
        ("/check/card", {"card": "9S"}, "That is the top card itself"),
        ("/check/card", {"card": "RJ"}, "not in the Vežimas deck"),
        ("/check/player", {"player": "999"}, "Choose one of the players"),
        ("/check/player", {"player": "Ana"}, "Choose one of the players"),
        ("/check/mode", {"mode": "all"}, "one card or the whole hand"),
        ("/check/hand", {"card": "10S", "on": "yes"}, "on (1) or off (0)"),
        ("/check/hand", {"card": "9S", "on": "1"}, "it is not in the hand"),
        ("/check/out", {"player": "-1", "on": "1"}, "Choose one of the players"),
        ("/check/shuffle", {}, "no such control"),
        ("/cart", {"player": "x"}, "Choose one of the players"),
        ("/setup/king", {"player": "1"}, "Tap who holds Q♣ or 9♦."),
        ("/setup/queen", {"player": "1"}, "already set"),
    ],
)
def test_a_bad_tap_gets_a_message_and_changes_nothing(vz, path, data, message):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.ask("9S", "Jonas")
    before = (t.draft(), t.draft(screen.SETUP_DRAFT), t.entries())
    response = t.post(path, data)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert re.search(r'class="field-error" role="alert">[^<]*' + re.escape(message), html), html[
        -3000:
    ]
    assert (t.draft(), t.draft(screen.SETUP_DRAFT), t.entries()) == before


def test_a_tap_without_htmx_goes_back_to_the_table_page(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    response = t.post("/check/top", {"card": "9S"}, headers={})
    assert response.status_code == 303 and response.headers["Location"].endswith(t.url)
    bad = t.post("/check/top", {"card": "2S"}, headers={})
    assert bad.status_code == 422 and "not in the Vežimas deck" in bad.get_data(as_text=True)
    assert t.draft()[0]["top"] == "9S"


def test_taps_without_the_csrf_token_are_refused(vz):
    t = vz(FOUR)
    response = t.client.post(f"{t.url}/vezimas/setup/queen", data={"player": t.who("Asta")})
    assert response.status_code == 400
    assert t.draft(screen.SETUP_DRAFT) == (None, 0)


def test_engine_sentences_show_suit_symbols():
    assert (
        screen.symbolic(
            "A higher S or any of your trumps (C) beats 9S. S is free because Ana is out."
        )
        == "A higher ♠ or any of your trumps (♣) beats 9♠. ♠ is free because Ana is out."
    )
    assert screen.symbolic("only a higher 10H? no: QD") == "only a higher 10♥? no: Q♦"
