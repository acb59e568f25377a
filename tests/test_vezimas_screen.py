"""The Vežimas screen through the Flask client: trumps stored once and shown, the beat
checker's verdicts (cases 1–3, the next-player rule, players out), the deal's cart and
tally, the watch link, refused taps and retries."""

from __future__ import annotations

import html as html_module
import itertools
import json
import re

import pytest
from conftest import another_phone_first

from scorekeeper.deals import vezimas as vezimas_deal

HX = {"HX-Request": "true"}
THREE = ("Asta", "Jonas", "Rūta")
FOUR = ("Asta", "Jonas", "Rūta", "Tomas")


class Table:
    """A Vežimas table driven by the panel's taps: the deal's taps (the play state's
    notation, a fresh tap id each, as static/app.js gives them) and the referee's."""

    ids = itertools.count()

    def __init__(self, client, store, parsed, url, page):
        self.client, self.store, self.parsed, self.url = client, store, parsed, url
        self.csrf = page.csrf
        self.html = page.html
        self.table = store.list_tables()[0]
        self.names = [p.name for p in store.players(self.table.id)]

    def post(self, path, data=None, headers=HX):
        response = self.client.post(
            f"{self.url}/vezimas{path}",
            data={"csrf_token": self.csrf, **(data or {})},
            headers=headers,
        )
        body = response.get_data(as_text=True)
        if 'id="vezimas-panel"' in body:
            self.html = body
        return response

    def tap(self, path, expect=200, **data):
        response = self.post(path, data)
        assert response.status_code == expect, response.get_data(as_text=True)
        return response.get_data(as_text=True)

    @property
    def shown(self) -> tuple[int, int]:
        """The draft version and round the panel this phone holds shows."""
        found = re.search(r'data-deal-version="(\d+)" data-round="(\d+)"', self.html)
        return int(found[1]), int(found[2])

    def send(self, action, expect=200, tap_id=None, **args):
        """One tap of the deal, as its button sends it."""
        version, round_number = self.shown
        self.last_tap_id = tap_id or f"t{next(self.ids)}"
        data = {
            "tap_id": self.last_tap_id,
            "tap": json.dumps({"action": action, **args}),
            "v": str(version),
            "round": str(round_number),
        }
        return self.tap("/tap", expect, **data)

    def who(self, name):
        return str(self.names.index(name))

    def seat(self, name):
        return self.names.index(name)

    def set_trumps(self, queen, nine=None):
        self.send("queen", seat=self.seat(queen))
        if nine:
            self.send("nine", seat=self.seat(nine))
        # by seat: a submission id is URL-safe, and a name may not be
        return self.tap("/trumps", submission_id=f"t-{self.who(queen)}")

    def cart(self, name, expect=200, tap_id=None):
        return self.send("loser", expect, tap_id, seat=self.seat(name))

    def save(self, submission_id, expect=200):
        version, round_number = self.shown
        data = {"submission_id": submission_id, "v": str(version), "round": str(round_number)}
        return self.tap("/save", expect, **data)

    def ask(self, top, player, card=None):
        html = self.tap("/check/top", card=top)
        html = self.tap("/check/player", seat=self.who(player))
        if card:
            html = self.tap("/check/card", card=card)
        return html

    def entries(self, kind=None):
        return [e for e in self.store.entries(self.table.id) if kind in (None, e.kind)]

    def draft(self, name=vezimas_deal.DRAFT):
        return self.store.draft(self.table.id, name)

    def question(self):
        return self.draft(vezimas_deal.CHECK_DRAFT)[0]

    def page(self, url=None):
        page = self.parsed(self.client.get(url or self.url))
        if url is None:
            self.html = page.html
        return page


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
        what = re.search(r'data-(?:player|card)="([^"]+)"', tag)
        if what:  # a player's or a card's button (not the one-tap shortcuts)
            found[what[1]] = ('aria-pressed="true"' in tag, " disabled" in tag)
    return found


def taps(html, action):
    """{player: (pressed, disabled)} of the deal's tap buttons for ``action``."""
    found = {}
    for tag in re.findall(r"<button\b[^>]*>", html):
        vals = re.search(r"hx-vals='([^']*)'", tag)
        if "data-tap" not in tag or not vals:
            continue
        tap = json.loads(json.loads(html_module.unescape(vals[1]))["tap"])
        if tap["action"] == action:
            what = re.search(r'data-player="([^"]+)"', tag)[1]
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
    preview = t.send("queen", seat=t.seat("Jonas"))
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
    assert heading(board) == "Round 1 · Asta deals · Jonas leads"
    assert "Trumps set for the session." in board
    assert t.draft() == (None, 0)  # the first deal's set-up taps closed with the entry
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
    t.send("queen", seat=t.seat("Rūta"))
    missing = t.post("/trumps", {"submission_id": "s1"})
    assert missing.status_code == 422 and "Tap who holds 9♦ first." in missing.get_data(
        as_text=True
    )
    assert t.entries() == []
    board = t.set_trumps("Rūta", "Jonas")
    assert badges(board) == {"Rūta": "♣", "Asta": "♠", "Jonas": "♥"}
    assert heading(board).endswith(" · Jonas leads")
    assert re.search(r"Free suits[^<]*<span class=\"vz-suit suit-red\">♦", board)


def test_the_set_up_taps_survive_a_reload_and_show_on_the_watch_link(vz):
    t = vz(THREE)
    t.send("queen", seat=t.seat("Asta"))
    t.send("nine", seat=t.seat("Asta"))
    page = t.page()
    assert taps(page.html, "queen")["Asta"] == (True, False)
    assert taps(page.html, "nine")["Asta"] == (True, False)
    assert taps(page.html, "nine")["Jonas"] == (False, False)
    watch = t.page(watch_url(page.html))
    assert "Save trumps" not in watch.html and "hx-post" not in panel_of(watch.html)
    assert re.search(
        r"♣</span> <span class=\"vz-name\">Asta</span> <span class=\"badge vz-lead\"", watch.html
    )


def test_the_trumps_saved_after_the_deal_was_entered_keep_what_was_tapped(vz):
    """The first deal entered before its trumps (its first cards laid, then the cart):
    Save trumps closed the log the Q♣ was tapped in, and the cards and the cart went
    with it; they stay, in the deal's log that takes the trumps from the session."""
    t = vz(THREE)
    t.send("nine", seat=t.seat("Jonas"))  # he leads
    t.send("lay", seat=t.seat("Jonas"), card="10H")
    t.cart("Rūta")
    t.send("queen", seat=t.seat("Rūta"))
    t.tap("/trumps", submission_id="t-after")
    (trumps,) = t.entries("vezimas-trumps")
    assert trumps.request["queen_of_clubs"] == "Rūta"
    data, _version = t.draft()
    assert [(tap["action"], tap.get("card")) for tap in data["taps"]] == [
        ("lay", "10H"),
        ("loser", None),
    ]
    assert data["context"]["settings"]["queen_of_clubs"] == "Rūta"
    t.page()
    assert "Rūta gets the cart" in as_read(t.html)
    t.save("deal-1")
    (deal,) = t.entries("vezimas-deal")
    assert deal.request["loser"] == "Rūta"


def test_the_queen_of_clubs_may_be_tapped_after_the_cart(vz):
    """PLAY.md: the Q♣ holder (RULES §4, V-D1) may be tapped until a beat was judged by
    the trumps: a first deal entered by its cart before its trumps refused it ("The deal
    is over")."""
    t = vz(FOUR)
    t.cart("Tomas")
    t.send("queen", seat=t.seat("Asta"))
    t.tap("/trumps", submission_id="t-asta")
    assert badges(t.page().html)["Asta"] == "♣"
    t.save("deal-1")
    (deal,) = t.entries("vezimas-deal")
    assert deal.request["loser"] == "Tomas"


def test_a_first_round_saved_without_its_trumps_asks_for_the_first_deals_queen(vz):
    """RULES §4, V-D1: the first deal's Q♣ holder takes clubs for the session. A first
    round saved without its trumps left round 2 asking to "deal the first round"; it asks
    who held Q♣ then."""
    t = vz(FOUR)
    t.cart("Tomas")
    t.save("deal-1")
    page = t.page()
    assert "Round 2: who got the cart?" in page.html
    assert "Tap who held Q♣ in the first deal." in as_read(page.html)
    assert "Deal the first round" not in page.html
    t.send("queen", seat=t.seat("Asta"))
    t.tap("/trumps", submission_id="t-asta")
    assert badges(t.page().html)["Asta"] == "♣"


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
    data = t.question()
    assert data["top"] == "9S" and data["card"] == "9C" and data["player"] == t.seat("Jonas")


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
    data = t.question()
    assert data["card"] is None and data["player"] == t.seat("Jonas")
    cleared = t.tap("/check/clear")
    assert "Tap the top card and whose turn it is." in cleared
    assert t.question()["top"] is None


def test_whole_hand_lists_the_cards_that_beat(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.ask("9S", "Jonas")
    t.tap("/check/mode", mode="hand")
    for card in ("10S", "AS", "QC", "KH"):
        html = t.tap("/check/hand", card=card, on="1")
    # a retried tap changes nothing (set semantics), and a card can be taken out again
    html = t.tap("/check/hand", card="QC", on="1")
    assert sorted(t.question()["hand"]) == ["10S", "AS", "KH", "QC"]
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
    assert sorted(t.question()["hand"]) == ["10S", "AS", "KH"]


def test_a_player_out_frees_his_suit_and_the_next_player_skips_him(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.ask("9S", "Jonas", "10S")
    html = t.tap("/check/out", seat=t.who("Rūta"), on="1")
    # Rūta is out: her ♠ is free, Tomas plays next, so 10♠ now beats 9♠ (case 3)
    found = verdict(html)
    assert found[:2] == ("yes", 3)
    assert "♠ is free because Rūta is out" in found[2]
    assert re.search(r'class="vz-next">next: <span class="vz-who"[^>]*>.*?Tomas', html, re.S)
    assert re.search(
        r"Free suits \(beaten like any other\):\s*<span class=\"vz-suit suit-black\">♠", html
    )
    # a retried tap keeps her out; a player who is out cannot be chosen to play
    t.tap("/check/out", seat=t.who("Rūta"), on="1")
    assert t.question()["out"] == [t.seat("Rūta")]
    assert buttons(html, "check/player")["Rūta"] == (False, True)
    assert buttons(html, "check/out")["Rūta"] == (True, False)
    # her button to play says she is out, in words, not in markup shown as text
    her_turn = re.search(
        r'<button[^>]*data-player="Rūta"[^>]*/check/player"[^>]*>(.*?)</button>', html
    )
    assert her_turn[1].endswith("<small>out</small>") and "&lt;" not in her_turn[1]
    refused = t.post("/check/player", {"seat": t.who("Rūta")})
    assert refused.status_code == 422
    assert "Rūta is out of this deal" in refused.get_data(as_text=True)
    assert t.question()["player"] == t.seat("Jonas")
    # back in: case 2 again
    back = verdict(t.tap("/check/out", seat=t.who("Rūta"), on="0"))
    assert back[:2] == ("no", 2)


def test_the_last_player_holding_cards_is_told_the_deal_is_over(vz):
    t = vz(("Asta", "Jonas"))
    t.set_trumps("Asta", "Jonas")
    t.ask("9H", "Asta", "10H")
    html = t.tap("/check/out", seat=t.who("Jonas"), on="1")
    assert "Only Asta still holds cards: the deal is over and Asta gets the cart." in html
    assert verdict(html) is None


def heading(html):
    """The round's heading over the trumps, as read (its names are boxes of their own)."""
    m = re.search(r'id="vz-trumps-title">(.*?)</h2>', html, re.S)
    return " ".join(re.sub(r"<[^>]+>", "", m[1]).split()) if m else None


def as_read(html):
    """The page's text as read: the names in its sentences are boxes of their own."""
    return " ".join(re.sub(r"<[^>]+>", "", html).split())


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
    html = t.tap("/check/out", seat=t.who("Jonas"), on="1")
    data = t.question()
    assert data["nothing_to_beat"] is True and data["top"] is None
    assert data["player"] == t.seat("Rūta")
    note = nothing_note(html)
    assert note.startswith("Nothing to beat: Rūta lays any card.")
    assert verdict(html) is None  # no beat asked for
    # any card she taps may be laid (case 0)
    html = t.tap("/check/card", card="9H")
    assert "9♥ may be laid." in nothing_note(html)
    # a new top card asks for a beat again
    html = t.tap("/check/top", card="10H")
    assert nothing_note(html) is None and t.question()["nothing_to_beat"] is False


def test_v_d5_a_beat_offers_its_last_card_tap(vz):
    """A card that beats offers one tap for "that was his last card" (V-D5): it puts
    him out, and the next player is told he lays without beating."""
    t = vz(FOUR)
    t.set_trumps("Jonas")
    assert "vz-last-card" not in t.ask("9S", "Jonas", "KH")  # no beat: nothing to offer
    html = t.tap("/check/card", card="JC")
    button = re.search(r'<button[^>]*class="small vz-last-card"[^>]*>(.*?)</button>', html)
    assert (
        re.sub(r"<[^>]+>", "", button[1]) == "That was Jonas’s last card: Rūta lays without beating"
    )
    vals = json.loads(html_module.unescape(re.search(r"hx-vals='([^']*)'", button[0])[1]))
    html = t.tap("/check/out", **{k: str(v) for k, v in vals.items()})
    assert nothing_note(html).startswith("Nothing to beat: Rūta lays any card.")
    assert "vz-last-card" not in panel_of(t.page(watch_url(t.page().html)).html)


def test_v_d5_going_out_after_a_card_that_does_not_beat_asks_as_before(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.ask("9S", "Jonas", "KH")  # case 2: only a club beats 9♠
    html = t.tap("/check/out", seat=t.who("Jonas"), on="1")
    assert t.question()["nothing_to_beat"] in (None, False)
    assert nothing_note(html) is None


def test_v_d5_nothing_to_beat_can_be_tapped_and_checks_a_whole_hand(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.tap("/check/nothing")
    t.tap("/check/player", seat=t.who("Tomas"))
    t.tap("/check/mode", mode="hand")
    t.tap("/check/hand", card="9S", on="1")
    html = t.tap("/check/hand", card="AD", on="1")
    assert nothing_note(html).startswith("Nothing to beat: Tomas lays any card.")
    cleared = t.tap("/check/clear")
    assert nothing_note(cleared) is None and not t.question()["nothing_to_beat"]


def test_the_checker_waits_for_the_trumps(vz):
    t = vz(FOUR)
    response = t.post("/check/top", {"card": "9S"})
    assert response.status_code == 422
    assert "Set the trumps first" in response.get_data(as_text=True)
    assert t.draft(vezimas_deal.CHECK_DRAFT) == (None, 0) and t.draft() == (None, 0)


# ---------------------------------------------------------------- the deal's cart


def test_deal_results_make_the_cart_tally_and_the_loser_deals(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.ask("9S", "Jonas", "10S")
    t.tap("/check/out", seat=t.who("Asta"), on="1")
    preview = t.cart("Tomas")
    assert "Tomas gets the cart and deals next; Asta leads." in as_read(preview)
    assert t.entries("vezimas-deal") == []
    board = t.save("deal-1")
    (entry,) = t.entries("vezimas-deal")
    assert entry.round == 1 and entry.request == {"players": list(FOUR), "loser": "Tomas"}
    assert entry.result["next_dealer"] == "Tomas" and entry.result["first_lead"] == "Asta"
    assert "Round 1: Tomas got the cart. Tomas deals, Asta leads." in board
    page = t.parsed(t.client.get(t.url))
    assert page.totals() == {"Asta": 0, "Jonas": 0, "Rūta": 0, "Tomas": 1}
    assert re.search(r'Tomas <span class="badge dealer"', page.html)
    assert heading(page.html) == "Round 2 · Tomas deals · Asta leads"
    # the deal's draft closed with it: nobody out, no question, no cart chosen
    assert t.draft() == (None, 0)
    assert "Round 2: who got the cart?" in page.html
    # a retried save stores nothing more
    assert "Already saved." in t.save("deal-1")
    t.cart("Asta")
    t.save("deal-2")
    t.cart("Tomas")
    board = t.save("deal-3")
    assert t.page().totals() == {"Asta": 1, "Jonas": 0, "Rūta": 0, "Tomas": 2}
    # fewest carts first
    order = re.findall(r'class="points" data-player="([^"]+)"', board)
    assert order[:2] == ["Jonas", "Rūta"] and order[-1] == "Tomas"
    assert heading(board) == "Round 4 · Tomas deals · Asta leads"


def test_the_last_player_holding_cards_is_suggested_for_the_cart(vz):
    """RULES §4 (V-D3): once every other player is out, the one still holding cards
    gets the cart; the cart's buttons propose him until a loser is tapped."""
    t = vz(FOUR)
    t.set_trumps("Jonas")
    for name in ("Asta", "Jonas"):
        html = t.tap("/check/out", seat=t.who(name), on="1")
        assert "vz-suggest" not in html and " suggested" not in html
    html = t.tap("/check/out", seat=t.who("Rūta"), on="1")
    assert "Tomas is the last one holding cards, so Tomas gets the cart." in as_read(html)
    assert re.search(r'class="vz-player suggested" data-player="Tomas"', html)
    html = t.cart("Tomas")
    assert "vz-suggest" not in html and "Tomas gets the cart and deals next" in as_read(html)
    watch = t.page(watch_url(t.page().html))
    assert "Tomas got the cart (not saved yet)." in as_read(watch.html)


def test_a_cart_tapped_on_another_phone_while_the_deal_is_saved_is_not_lost(vz, monkeypatch):
    """The save read the draft (Tomas got the cart); before it wrote, another phone
    tapped Asta. Saving Tomas and closing the draft would lose that tap unseen: the
    save is refused, and the draft with Asta stays for a second look."""
    from scorekeeper import deals

    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.cart("Tomas")
    another_phone = Table(t.client, t.store, t.parsed, t.url, t.page())
    another_phone_first(monkeypatch, deals, "save_into_entry", lambda: another_phone.cart("Asta"))
    late = t.save("deal-late", expect=409)
    assert "Another phone changed this deal a moment ago" in late
    assert t.entries("vezimas-deal") == []
    data, _version = t.draft()
    assert data["taps"][-1] == {"id": another_phone.last_tap_id, "action": "loser", "seat": 0}
    monkeypatch.undo()
    t.save("deal-again")
    (entry,) = t.entries("vezimas-deal")
    assert entry.request["loser"] == "Asta"


def test_saving_a_deal_needs_the_cart(vz):
    t = vz(THREE)
    refused = t.save("d", expect=422)
    assert "The deal is not finished yet: nothing was saved." in refused
    t.send("queen", seat=0)
    assert "The deal is not finished yet" in t.save("d2", expect=422)
    assert t.entries() == []


def test_the_game_ends_when_the_players_say_so(vz):
    t = vz(THREE)
    t.set_trumps("Asta", "Asta")
    t.cart("Jonas")
    t.save("d1")
    ended = t.client.post(f"{t.url}/end", data={"csrf_token": t.csrf}, headers=HX)
    html = ended.get_data(as_text=True)
    assert "Asta and Rūta share the win" in html
    assert "hx-post" not in panel_of(html)  # no more taps in the panel


def test_after_the_end_the_trumps_and_the_checker_are_refused_with_a_reason(vz):
    t = vz(THREE)
    t.client.post(f"{t.url}/end", data={"csrf_token": t.csrf}, headers=HX)
    for path, data in (("/trumps", {"submission_id": "late"}), ("/check/top", {"card": "9S"})):
        response = t.post(path, data)
        assert response.status_code == 409, path
        assert "The session is over." in response.get_data(as_text=True)
    assert t.entries("vezimas-trumps") == [] and t.draft(vezimas_deal.CHECK_DRAFT) == (None, 0)


def test_ending_the_game_does_not_bump_the_round_number(vz):
    """Ending is no round of its own: the end sits in the last round played, and once
    undone (a slip) the next deal is still round 2."""
    t = vz(THREE)
    t.set_trumps("Asta", "Asta")
    t.cart("Jonas")
    t.save("d1")
    html = t.client.post(f"{t.url}/end", data={"csrf_token": t.csrf}, headers=HX).get_data(
        as_text=True
    )
    (end,) = t.entries("game-end")
    assert end.round == 1
    assert 'data-round="2"' not in html and not re.search(r"Round 2\b", html)
    t.client.post(
        f"{t.url}/entries/{end.id}/undo", data={"csrf_token": t.csrf, "submission_id": "u1"}
    )
    t.page()
    assert "Round 2: who got the cart?" in t.html and not re.search(r"Round 3\b", t.html)
    t.cart("Rūta")
    t.save("d2")
    assert [e.round for e in t.entries("vezimas-deal")] == [1, 2]


def test_v_d6_with_letters_the_table_shows_letters_and_vezimas_ends_the_session(vz):
    """V-D6 (house rule tally = letters): each deal's loser takes the next letter;
    completing VEŽIMAS loses and ends the session, nothing more can be entered."""
    t = vz(THREE, **{"vezimas-tally": "letters"})
    assert t.table.settings["tally"] == "letters"
    t.set_trumps("Asta", "Asta")
    for i in range(6):
        t.cart("Jonas")
        board = t.save(f"d{i}")
    t.cart("Rūta")
    board = t.save("r1")
    shown = dict(re.findall(r'class="points letters" data-player="([^"]+)">([^<]*)<', board))
    assert shown == {"Asta": "–", "Jonas": "VEŽIMA", "Rūta": "V"}
    assert "takes the next letter of VEŽIMAS" in board
    preview = t.cart("Jonas")
    assert "Jonas takes the last letter (VEŽIMAS) and loses the session." in as_read(preview)
    assert "who lost the deal?" in preview
    board = t.save("last")
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
    tap = json.dumps({"action": "loser", "seat": 0})
    refused = t.post("/tap", {"tap_id": "late", "tap": tap, "v": "0", "round": "9"})
    assert refused.status_code == 409 and "The session is over." in refused.get_data(as_text=True)
    refused = t.post("/save", {"submission_id": "after-the-end", "v": "0", "round": "9"})
    assert refused.status_code == 422 and "nothing was saved" in refused.get_data(as_text=True)
    assert len(t.entries("vezimas-deal")) == 8 and t.draft() == (None, 0)


def history_kinds(html: str) -> list[str]:
    return [k.strip() for k in re.findall(r'class="round-kind">([^<·]*)', html)]


@pytest.mark.parametrize(
    ("tally", "english", "polish"), [("letters", "Letter", "Litera"), ("carts", "Cart", "Wóz")]
)
def test_v_d6_with_letters_a_lost_deal_is_a_letter_in_the_history(
    vz, client, tally, english, polish
):
    """V-D6: with letters kept, the history names a lost deal a letter (not a cart), on
    the table's page and the history's own, in the reader's language; with carts, a cart."""
    t = vz(THREE, **{"vezimas-tally": tally})
    t.set_trumps("Asta", "Asta")
    t.cart("Jonas")
    board = t.save("d1")
    assert history_kinds(board) == [english, "Trumps"]  # the newest first
    history = client.get(t.url + "/history").get_data(as_text=True)
    assert history_kinds(history) == [english, "Trumps"]
    client.set_cookie("lang", "pl")
    assert history_kinds(t.page().html) == [polish, "Atuty"]


def test_v_d6_the_deal_that_completes_the_word_names_no_next_dealer(vz):
    """V-D6: the deal whose loser takes the last letter ends the session: neither its
    preview nor the message once saved says who deals or leads next."""
    t = vz(THREE, **{"vezimas-tally": "letters"})
    t.set_trumps("Asta", "Asta")
    for i in range(6):
        t.cart("Jonas")
        board = t.save(f"d{i}")
        assert "Jonas deals, Rūta leads." in board  # the session goes on
    preview = t.cart("Jonas")
    assert "Jonas takes the last letter (VEŽIMAS) and loses the session." in as_read(preview)
    assert "deals next" not in preview
    board = t.save("last")
    assert (
        "Round 7: Jonas lost the deal (a letter). Jonas completed VEŽIMAS: the session is over."
        in board
    )
    assert "Jonas deals, Rūta leads." not in board


def test_a_replayed_tap_id_is_applied_once(vz):
    """The same tap sent again (a lost answer, the browser retrying) changes nothing;
    the same cart tapped again under a new id is already so and is not logged twice."""
    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.cart("Tomas", tap_id="same")
    version = t.draft()[1]
    again = t.send("loser", tap_id="same", seat=t.seat("Tomas"))
    assert "Tomas gets the cart and deals next" in as_read(again)
    assert t.draft()[1] == version  # nothing written
    t.send("loser", tap_id="other", seat=t.seat("Tomas"))
    assert [tap["id"] for tap in t.draft()[0]["taps"]] == ["same"]
    # a tap undone, then its late retry: still undone
    t.cart("Asta", tap_id="asta")
    t.tap("/undo", tap_id="asta")
    t.send("loser", tap_id="asta", seat=t.seat("Asta"))
    assert [tap["seat"] for tap in t.draft()[0]["taps"]] == [t.seat("Tomas")]
    assert "Tomas gets the cart" in as_read(t.html) and "Asta gets the cart" not in as_read(t.html)


def test_edit_of_a_saved_deal_changes_its_loser_and_supersedes_it(vz):
    """Edit in the history reopens the deal's taps as they were; another loser saved is
    one new entry of the same round that supersedes the old (the history keeps both),
    the totals and the next dealer follow; undo of the edit brings the old one back."""
    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.cart("Tomas")
    t.save("deal-1")
    t.cart("Asta")
    t.save("deal-2")
    old = t.entries("vezimas-deal")[0]
    history = t.client.get(t.url + "/history").get_data(as_text=True)
    edit = f"{t.url}/vezimas/edit/{old.id}"
    assert f'action="{edit}"' in history
    response = t.client.post(edit, data={"csrf_token": t.csrf})
    assert response.status_code == 303
    t.page()
    assert "Changing round 1" in t.html and t.draft()[0]["taps"] == t.store.entry_taps(old.id)
    assert taps(t.html, "loser")["Tomas"] == (True, False)
    t.cart("Rūta")
    assert "Save the changed round 1" in t.html
    board = t.save("edit-1")
    assert "Round 1 changed: Rūta got the cart." in board
    entries = sorted(t.entries("vezimas-deal"), key=lambda e: e.id)
    assert [(e.round, e.state) for e in entries] == [(1, "superseded"), (2, "live"), (1, "live")]
    assert entries[-1].supersedes == old.id and entries[-1].request["loser"] == "Rūta"
    assert t.page().totals() == {"Asta": 1, "Jonas": 0, "Rūta": 1, "Tomas": 0}
    assert t.draft() == (None, 0) and heading(t.html) == "Round 3 · Asta deals · Jonas leads"
    t.client.post(
        f"{t.url}/entries/{entries[-1].id}/undo",
        data={"csrf_token": t.csrf, "submission_id": "undo-edit"},
    )
    assert t.page().totals() == {"Asta": 1, "Jonas": 0, "Rūta": 0, "Tomas": 1}


def in_the_history(t, entry, action: str, sid: str):
    """Undo or redo of an entry in the history, as its button posts it."""
    url = f"{t.url}/entries/{entry.id}/{action}"
    return t.client.post(url, data={"csrf_token": t.csrf, "submission_id": sid}, headers=HX)


def first_deal_with_its_trumps_undone(vz):
    """Three players: the trumps saved (Jonas Q♣, Rūta 9♦), the first deal saved (Asta
    got the cart), then the trumps undone in the history. The table and the trumps."""
    t = vz(THREE)
    t.set_trumps("Jonas", "Rūta")
    t.cart("Asta")
    t.save("deal-1")
    (trumps,) = t.entries("vezimas-trumps")
    assert in_the_history(t, trumps, "undo", "u1").status_code == 200
    return t, trumps


def reopened_after_the_trumps_are_redone(t, trumps):
    """The trumps redone in the history, then the latest deal opened by its Edit: that
    deal."""
    assert in_the_history(t, trumps, "redo", "r1").status_code == 200
    latest = t.entries("vezimas-deal")[-1]
    response = t.client.post(f"{t.url}/vezimas/edit/{latest.id}", data={"csrf_token": t.csrf})
    assert response.status_code == 303
    t.page()
    return latest


def test_the_trump_holders_are_offered_only_while_they_may_change_and_say_why_not(vz):
    """With four players the Q♣ holder leads the first deal (RULES §4, V-D1): once he
    laid a card, another holder would have led another deal, so the Q♣ buttons are
    disabled, with the reason under them; undone, they are offered again."""
    t = vz(FOUR)
    t.send("queen", seat=t.seat("Asta"))
    assert not any(off for _on, off in taps(t.html, "queen").values())
    t.send("lay", seat=t.seat("Asta"), card="JS")
    assert taps(t.html, "queen") == {
        "Asta": (True, True),
        "Jonas": (False, True),
        "Rūta": (False, True),
        "Tomas": (False, True),
    }
    why = re.search(r'<p class="hint vz-why">([^<]*)</p>', t.html)
    assert why and why[1] == "Cards are on the pile; undo them to change who led."
    t.tap("/undo", tap_id=t.last_tap_id, v=str(t.shown[0]))
    assert not any(off for _on, off in taps(t.html, "queen").values())
    assert "vz-why" not in t.html


def test_the_trumps_redone_in_the_history_reach_a_deal_being_entered(vz):
    """The trumps undone in the history, a deal opened (its Edit) asks for them; redone
    there meanwhile, the open deal takes the session's at once: the 9♦ can no longer be
    tapped for another player, and the deal saved reopens again (RULES §4, V-D1)."""
    t, trumps = first_deal_with_its_trumps_undone(vz)
    deal = t.entries("vezimas-deal")[0]
    t.client.post(f"{t.url}/vezimas/edit/{deal.id}", data={"csrf_token": t.csrf})
    t.page()
    assert taps(t.html, "nine")  # the deal asks who holds 9♦ again
    assert in_the_history(t, trumps, "redo", "r1").status_code == 200
    t.page()
    assert taps(t.html, "nine") == {}  # the session's trumps: nothing to tap
    t.send("nine", expect=422, seat=t.seat("Jonas"))
    t.save("edit-1")
    edited = t.entries("vezimas-deal")[-1]
    assert edited.supersedes == deal.id and edited.live
    response = t.client.post(f"{t.url}/vezimas/edit/{edited.id}", data={"csrf_token": t.csrf})
    assert response.status_code == 303
    t.page()
    assert "Changing round 1" in t.html and 'class="field-error"' not in t.html
    assert t.draft()[0]["taps"] == t.store.entry_taps(edited.id)


def test_trumps_redone_under_a_deal_played_on_other_trumps_are_refused(vz):
    """The trumps undone, the first deal is begun on another Q♣ holder, who leads and
    lays a card (V-D1): redoing the old trumps would have another player lead it, so
    the redo is refused with why, and the deal stays as it was entered."""
    t = vz(FOUR)
    t.set_trumps("Jonas")
    (trumps,) = t.entries("vezimas-trumps")
    in_the_history(t, trumps, "undo", "u1")
    t.page()
    t.send("queen", seat=t.seat("Asta"))
    t.send("lay", seat=t.seat("Asta"), card="JS")
    draft = t.draft()
    response = in_the_history(t, trumps, "redo", "r1")
    assert response.status_code == 409
    said = html_module.unescape(response.get_data(as_text=True))
    assert "The deal being entered was played on other trumps" in said
    assert t.draft() == draft and not t.store.entry(t.table.id, trumps.id).live


def test_a_deal_played_on_its_own_trumps_reopens_on_them_after_the_trumps_are_redone(vz):
    """The trumps undone, the first deal is changed and saved with its own Q♣ and 9♦
    holders; the old trumps redone after it: Edit reopens the deal as it was played,
    on its own holders, with no refusal (RULES §4, V-D1)."""
    t, trumps = first_deal_with_its_trumps_undone(vz)
    deal = t.entries("vezimas-deal")[0]
    t.client.post(f"{t.url}/vezimas/edit/{deal.id}", data={"csrf_token": t.csrf})
    t.page()
    t.send("queen", seat=t.seat("Asta"))
    t.send("nine", seat=t.seat("Asta"))
    t.save("edit-1")
    reopened_after_the_trumps_are_redone(t, trumps)
    assert "Changing round 1" in t.html and 'class="field-error"' not in t.html
    assert taps(t.html, "queen")["Asta"][0] and taps(t.html, "nine")["Asta"][0]
    # the trumps undone and redone again while it is open: it stays on its own
    own = t.draft()[0]["taps"]
    assert in_the_history(t, trumps, "undo", "u2").status_code == 200
    assert in_the_history(t, trumps, "redo", "r2").status_code == 200
    assert t.draft()[0]["taps"] == own


def test_a_later_deal_played_while_the_trumps_were_undone_reopens_as_it_was_played(vz):
    """The trumps undone in the history, round 2 is played as a first deal (its 9♦
    holder tapped, he leads); the trumps redone: its Edit replays it as it was played,
    led by the 9♦ holder, and saves unchanged (RULES §4, V-D1)."""
    t, trumps = first_deal_with_its_trumps_undone(vz)
    t.page()
    t.cart("Rūta")
    t.send("nine", seat=t.seat("Rūta"))
    t.save("deal-2")
    second = reopened_after_the_trumps_are_redone(t, trumps)
    assert 'class="field-error"' not in t.html
    t.save("edit-2")
    edited = t.entries("vezimas-deal")[-1]
    assert edited.supersedes == second.id and edited.request == second.request


def trumps_saved_in_an_edit_of(t):
    """The first deal saved, opened by its Edit, and Save trumps tapped there: the
    deal as first saved."""
    t.save("deal-1")
    (first,) = t.entries("vezimas-deal")
    t.client.post(f"{t.url}/vezimas/edit/{first.id}", data={"csrf_token": t.csrf})
    t.page()
    t.tap("/trumps", submission_id="t-edit")
    return first


def test_trumps_saved_during_an_edit_of_the_first_deal_keep_the_edit(vz):
    """The first deal saved without its trumps, then opened by Edit: Save trumps there
    saves the session's trumps and the edit goes on (it does not become round 2), and
    its Save replaces round 1 (RULES §4, V-D1)."""
    t = vz(THREE)
    t.send("queen", seat=t.seat("Jonas"))
    t.send("nine", seat=t.seat("Rūta"))
    t.cart("Asta")
    first = trumps_saved_in_an_edit_of(t)
    t.page()
    assert "Changing round 1" in t.html and t.shown[1] == 1
    t.save("edit-1")
    deals = t.entries("vezimas-deal")
    assert [(e.round, e.state, e.supersedes) for e in deals] == [
        (1, "superseded", None),
        (1, "live", first.id),
    ]
    (trumps,) = t.entries("vezimas-trumps")
    assert trumps.request["queen_of_clubs"] == "Jonas" and trumps.live


def test_a_deal_played_on_trumps_undone_since_reopens_on_them(vz):
    """The first deal's Edit saves the session's trumps (its Q♣ tap becomes them, its
    log the rest) and is saved; the trumps then undone in the history: Edit reopens the
    deal with the holder it was played on tapped first in its log, every tap standing
    (its cards laid need him); the trumps redone take its place, and it saves
    unchanged (RULES §4, V-D1)."""
    t = vz(FOUR)
    t.send("queen", seat=t.seat("Jonas"))
    t.send("lay", seat=t.seat("Jonas"), card="JS")
    t.cart("Asta")
    first = trumps_saved_in_an_edit_of(t)
    t.save("edit-1")
    edited = t.entries("vezimas-deal")[-1]
    assert [tap["action"] for tap in t.store.entry_taps(edited.id)] == ["lay", "loser"]
    (trumps,) = t.entries("vezimas-trumps")
    assert in_the_history(t, trumps, "undo", "u1").status_code == 200
    response = t.client.post(f"{t.url}/vezimas/edit/{edited.id}", data={"csrf_token": t.csrf})
    assert response.status_code == 303
    t.page()
    assert "Changing round 1" in t.html and 'class="field-error"' not in t.html
    first, *rest = t.draft()[0]["taps"]
    assert rest == t.store.entry_taps(edited.id)
    assert (first["action"], first["seat"]) == ("queen", t.seat("Jonas"))
    assert taps(t.html, "queen")["Jonas"] == (True, True)  # he led: kept while cards lie
    # the trumps redone meanwhile: the session's take the place of the tap made for them
    assert in_the_history(t, trumps, "redo", "r1").status_code == 200
    assert t.draft()[0]["taps"] == t.store.entry_taps(edited.id)
    t.page()
    t.save("edit-2")
    again = t.entries("vezimas-deal")[-1]
    assert again.supersedes == edited.id and again.request == edited.request


def test_an_edited_deal_knows_the_session_as_it_stood(vz):
    """A reopened deal of round 2 was dealt by round 1's loser (V-D2), with the carts
    before it: its letters (V-D6) are the loser's as they were then."""
    t = vz(THREE, **{"vezimas-tally": "letters"})
    t.set_trumps("Asta", "Asta")
    for sid, name in (("d1", "Jonas"), ("d2", "Jonas"), ("d3", "Rūta")):
        t.cart(name)
        t.save(sid)
    second = t.entries("vezimas-deal")[1]
    t.client.post(f"{t.url}/vezimas/edit/{second.id}", data={"csrf_token": t.csrf})
    t.page()
    assert heading(t.html) == "Round 2 · Jonas deals · Rūta leads"
    assert "Jonas takes the next letter (VE)" in as_read(t.html)  # his second letter, then


def test_an_entry_saved_without_a_tap_log_is_reopened_from_its_request(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.cart("Tomas")
    t.save("deal-1")
    (old,) = t.entries("vezimas-deal")
    t.store.db.execute("UPDATE entries SET taps = NULL")
    t.store.db.conn.commit()
    t.client.post(f"{t.url}/vezimas/edit/{old.id}", data={"csrf_token": t.csrf})
    t.page()
    assert taps(t.html, "loser")["Tomas"] == (True, False)
    t.save("again")
    entries = t.entries("vezimas-deal")
    assert entries[-1].request == old.request and entries[-1].supersedes == old.id


def test_an_old_shape_draft_is_read_and_upgraded_by_the_next_tap(vz):
    """A deal's draft stored before the tap log (``{"top", "player", "out", "loser"}``
    by player ids) shows its question and cart; the next tap stores it as a tap log."""
    t = vz(FOUR)
    t.set_trumps("Jonas")
    ids = {p.name: p.id for p in t.store.players(t.table.id)}
    old = {"top": "9S", "player": ids["Jonas"], "card": "10S", "mode": "card", "hand": []}
    old.update(out=[ids["Asta"]], loser=ids["Tomas"])
    t.store.save_draft(t.table.id, vezimas_deal.DRAFT, old)
    t.page()
    assert verdict(t.html)[:2] == ("no", 2)
    assert "Tomas gets the cart and deals next; Asta leads." in as_read(t.html)
    t.cart("Rūta")  # the draft becomes a tap log: its question still shows
    data, _version = t.draft()
    assert verdict(t.page().html)[:2] == ("no", 2) and "Rūta gets the cart" in as_read(t.html)
    t.tap("/check/card", card="9C")
    assert t.question()["out"] == [t.seat("Asta")] and verdict(t.html)[:2] == ("yes", 2)
    assert [(tap["action"], tap["seat"]) for tap in data["taps"]] == [
        ("loser", t.seat("Tomas")),
        ("loser", t.seat("Rūta")),
    ]
    assert data["context"]["round"] == 1


def test_an_old_set_up_draft_is_carried_into_the_first_deal(vz):
    """A set-up draft stored before tap logs (``vezimas-setup``: Q♣ and 9♦ holders by
    player id) shows as tapped, and Save trumps stores it."""
    t = vz(THREE)
    ids = {p.name: p.id for p in t.store.players(t.table.id)}
    t.store.save_draft(t.table.id, "vezimas-setup", {"queen": ids["Rūta"], "nine": ids["Jonas"]})
    t.page()
    assert taps(t.html, "queen")["Rūta"] == (True, False)
    assert taps(t.html, "nine")["Jonas"] == (True, False)
    board = t.tap("/trumps", submission_id="old-setup")
    (entry,) = t.entries("vezimas-trumps")
    assert entry.request == {
        "players": list(THREE),
        "queen_of_clubs": "Rūta",
        "nine_of_diamonds": "Jonas",
    }
    assert badges(board) == {"Rūta": "♣", "Asta": "♠", "Jonas": "♥"} and heading(board).endswith(
        " · Jonas leads"
    )


def test_a_rename_in_the_middle_of_a_deal_keeps_it(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.cart("Tomas")
    t.save("deal-1")
    t.cart("Asta")
    tomas = t.store.players(t.table.id)[3]
    t.client.post(f"{t.url}/players/{tomas.id}/name", data={"csrf_token": t.csrf, "name": "Tomek"})
    t.names = [p.name for p in t.store.players(t.table.id)]
    t.page()
    assert heading(t.html) == "Round 2 · Tomek deals · Asta leads"
    assert "Asta gets the cart and deals next; Jonas leads." in as_read(t.html)
    assert badges(t.html)["Tomek"] == "♥"
    t.save("deal-2")
    assert t.entries("vezimas-deal")[-1].request["players"][3] == "Tomek"


def test_undoing_a_deal_brings_it_back_to_the_screen(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.cart("Tomas")
    t.save("deal-1")
    (entry,) = t.entries("vezimas-deal")
    t.client.post(
        f"{t.url}/entries/{entry.id}/undo", data={"csrf_token": t.csrf, "submission_id": "u1"}
    )
    t.page()
    assert re.fullmatch(r"Round 1 · (\w+ deals · )?Jonas leads", heading(t.html))
    assert "Round 1: who got the cart?" in t.html
    # the undone deal is back on the screen as it was entered, not an empty draft
    assert [(tap["action"], tap["seat"]) for tap in t.draft()[0]["taps"]] == [("loser", 3)]
    assert taps(t.html, "loser")["Tomas"] == (True, False)
    t.cart("Asta")
    t.save("deal-1b")
    assert [e.round for e in t.entries("vezimas-deal") if e.live] == [1]


# ---------------------------------------------------------------- other phones


def watch_url(html):
    return re.findall(r'data-copy="http://[^/]+(/t/[^"]+)"', html)[-1]


def panel_of(html):
    start = html.index('id="vezimas-panel"')
    return html[start : re.compile(r"</section>\s*</div>").search(html, start).start()]


def test_the_watch_link_sees_the_trumps_and_the_question_and_cannot_write(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.ask("9S", "Jonas", "10S")
    t.tap("/check/out", seat=t.who("Asta"), on="1")
    t.cart("Asta")
    watch = watch_url(t.page().html)
    view = t.page(watch)
    assert badges(view.html) == {"Asta": "♦", "Jonas": "♣", "Rūta": "♠", "Tomas": "♥"}
    assert verdict(view.html)[:2] == ("no", 2)
    assert "Asta got the cart (not saved yet)." in as_read(view.html)
    assert "hx-post" not in panel_of(view.html) and "<button" not in panel_of(view.html)
    before = (t.entries(), t.draft(), t.draft(vezimas_deal.CHECK_DRAFT))
    tap = json.dumps({"action": "loser", "seat": 2})
    deal = {"tap_id": "w0", "tap": tap, "v": "2", "round": "1", "submission_id": "w2"}
    writes = [
        ("/trumps", {"submission_id": "w1"}),
        *[
            (f"/check/{f}", {"card": "JS", "seat": t.who("Rūta"), "on": "1", "mode": "hand"})
            for f in ("top", "player", "mode", "card", "hand", "out", "clear")
        ],
        *[(f"/{route}", deal) for route in ("tap", "undo", "redo", "save", "discard")],
    ]
    for path, data in writes:
        response = t.client.post(
            f"{watch}/vezimas{path}", data={"csrf_token": t.csrf, **data}, headers=HX
        )
        assert response.status_code == 403, path
        assert "watch link" in response.get_data(as_text=True)
    assert (t.entries(), t.draft(), t.draft(vezimas_deal.CHECK_DRAFT)) == before


def test_the_watch_link_shows_no_prompt_it_cannot_answer(vz):
    """A watch phone sees what the table is doing, not questions put to it (issue
    #24): no "who got the cart?", no "whose turn?" while a question is half asked."""
    t = vz(THREE)
    t.send("queen", seat=t.seat("Asta"))
    watch = watch_url(t.page().html)
    for step in ("set-up", "trumps", "a top card", "whose turn and the hand"):
        if step == "trumps":
            t.send("nine", seat=t.seat("Jonas"))
            t.tap("/trumps", submission_id="trumps")
        elif step == "a top card":
            t.tap("/check/top", card="9S")
        elif step == "whose turn and the hand":
            t.tap("/check/player", seat=t.who("Jonas"))
            t.tap("/check/mode", mode="hand")
        text = re.sub(r"<[^>]+>", " ", panel_of(t.page(watch).html))
        assert "?" not in text, (step, " ".join(text.split()))
    assert "The beat check" in text and "Round 1: the cart" in text
    assert "Does it beat?" in t.page().html and "Round 1: who got the cart?" in t.html


def test_the_poll_refreshes_the_panel_on_other_phones(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    page = t.page()
    version = re.search(r'data-version="(\d+)"', page.html)[1]
    assert t.client.get(f"{t.url}/live?v={version}").get_data() == b""  # unchanged
    t.ask("9S", "Jonas", "10S")  # a tap on another phone
    body = t.client.get(f"{t.url}/live?v={version}").get_data(as_text=True)
    assert '<div id="vezimas-panel" class="vz" hx-swap-oob="true"' in body
    assert verdict(body)[:2] == ("no", 2)


def test_a_tap_answers_with_the_panel_alone_at_its_version(vz):
    """A tap (of the deal or of the referee's question) answers with the panel only,
    out of band; when the phone had seen the table just before, it moves the poll's
    marker on, so the poll doesn't fetch the panel back."""
    t = vz(FOUR)
    t.set_trumps("Jonas")
    seen = t.store.version(t.table.id)
    check = t.tap("/check/top", card="9S", seen=seen)
    version, round_number = t.shown
    tap = json.dumps({"action": "loser", "seat": 0})
    data = {"tap_id": "c1", "tap": tap, "v": version, "round": round_number, "seen": seen + 1}
    deal = t.tap("/tap", **data)
    for html, version in ((check, seen + 1), (deal, seen + 2)):
        assert html.count('id="vezimas-panel"') == 1
        assert '<div id="vezimas-panel" class="vz" hx-swap-oob="true"' in html
        assert f'<div id="live" hx-swap-oob="true" hx-get="{t.url}/live?v={version}"' in html
        assert 'id="standings"' not in html and 'id="history"' not in html  # the panel alone
    assert t.client.get(f"{t.url}/live?v={seen + 2}").get_data() == b""
    # a refused tap: its message, in the panel, out of band too
    html = t.tap("/check/card", expect=422, card="9S")
    assert '<div id="vezimas-panel" class="vz" hx-swap-oob="true"' in html
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
        ("/check/player", {"seat": "999"}, "Choose one of the players"),
        ("/check/player", {"seat": "Ana"}, "Choose one of the players"),
        ("/check/player", {"seat": "²"}, "Choose one of the players"),  # a digit, not a number
        ("/check/mode", {"mode": "all"}, "one card or the whole hand"),
        ("/check/hand", {"card": "10S", "on": "yes"}, "on (1) or off (0)"),
        ("/check/hand", {"card": "9S", "on": "1"}, "it is not in the hand"),
        ("/check/out", {"seat": "-1", "on": "1"}, "Choose one of the players"),
        ("/check/shuffle", {}, "no such control"),
        ("/tap", {"action": "loser", "seat": "x"}, "seat is a player's seat number, 0 to 3."),
        ("/tap", {"action": "loser", "seat": 9}, "seat is a player's seat number, 0 to 3."),
        ("/tap", {"action": "king", "seat": 1}, "Vežimas has no tap called “king”"),
        ("/tap", {"action": "queen", "seat": 2}, "The trumps are already set for this session."),
        ("/tap", {"action": "nine", "seat": 1}, "With 4 players the Q♣ holder leads"),
    ],
)
def test_a_bad_tap_gets_a_message_and_changes_nothing(vz, path, data, message):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    t.ask("9S", "Jonas")
    t.cart("Tomas")
    if path == "/tap":
        version, round_number = t.shown
        data = {"tap_id": "bad", "tap": json.dumps(data), "v": version, "round": round_number}
    before = (t.draft(), t.draft(vezimas_deal.CHECK_DRAFT), t.entries())
    response = t.post(path, data)
    assert response.status_code == 422
    html = html_module.unescape(response.get_data(as_text=True))
    assert re.search(r'class="field-error" role="alert">[^<]*' + re.escape(message), html), html[
        -3000:
    ]
    assert (t.draft(), t.draft(vezimas_deal.CHECK_DRAFT), t.entries()) == before


def test_a_tap_without_htmx_goes_back_to_the_table_page(vz):
    t = vz(FOUR)
    t.set_trumps("Jonas")
    response = t.post("/check/top", {"card": "9S"}, headers={})
    assert response.status_code == 303 and response.headers["Location"].endswith(t.url)
    bad = t.post("/check/top", {"card": "2S"}, headers={})
    assert bad.status_code == 422 and "not in the Vežimas deck" in bad.get_data(as_text=True)
    assert t.question()["top"] == "9S"
    version, round_number = t.shown
    tap = json.dumps({"action": "loser", "seat": 1})
    data = {"tap_id": "n1", "tap": tap, "v": version, "round": round_number}
    response = t.post("/tap", data, headers={})
    assert response.status_code == 303 and t.draft()[0]["taps"][-1]["seat"] == 1


def test_taps_without_the_csrf_token_are_refused(vz):
    t = vz(FOUR)
    tap = json.dumps({"action": "queen", "seat": 0})
    response = t.client.post(
        f"{t.url}/vezimas/tap", data={"tap_id": "x", "tap": tap, "v": "0", "round": "1"}
    )
    assert response.status_code == 400
    response = t.client.post(f"{t.url}/vezimas/check/top", data={"card": "9S"})
    assert response.status_code == 400
    assert t.draft() == (None, 0) and t.draft(vezimas_deal.CHECK_DRAFT) == (None, 0)


def test_engine_sentences_show_suit_symbols():
    assert (
        vezimas_deal.symbolic(
            "A higher S or any of your trumps (C) beats 9S. S is free because Ana is out."
        )
        == "A higher ♠ or any of your trumps (♣) beats 9♠. ♠ is free because Ana is out."
    )
    assert vezimas_deal.symbolic("only a higher 10H? no: QD") == "only a higher 10♥? no: Q♦"


@pytest.mark.parametrize("language", ["pl", "lt", "sr-Latn"])
def test_a_translated_verdict_names_suits_by_symbol(vz, language):
    """The rule of a verdict names the suits by symbol in every language, not only in
    English: "przebije ją tylko wyższy ♣", never a bare suit letter ("wyższy C")."""
    t = vz(FOUR, language=language)
    t.set_trumps("Jonas")
    # case 1: Q♣ is Jonas's own trump; case 3: 10♦ is nobody's; then ♠ is free (Rūta out)
    for top, card in (("QC", "KC"), ("10D", "JD")):
        found = verdict(t.ask(top, "Jonas", card))
        assert found and not re.search(r"(?<!\d)\b[SHDC]\b", found[2]), found
    t.ask("9S", "Jonas", "10S")
    found = verdict(t.tap("/check/out", seat=t.who("Rūta"), on="1"))
    assert found[:2] == ("yes", 3)
    assert "♠" in found[2] and not re.search(r"(?<!\d)\b[SHDC]\b", found[2]), found
    assert "Rūta" in found[2]


@pytest.mark.parametrize("language", ["pl", "lt", "sr-Latn"])
def test_nothing_to_beat_is_told_in_the_tables_language(vz, language):
    """V-D5 on a translated table: the rule under "Nothing to beat" (the previous player
    went out with a beat) is in the table's language, as the line above it is."""
    t = vz(FOUR, language=language)
    t.set_trumps("Jonas")
    t.ask("9S", "Jonas", "JC")
    html = t.tap("/check/out", seat=t.who("Jonas"), on="1")
    note = nothing_note(html)
    assert note and "Rūta" in note
    assert "previous player" not in note and "Nothing to beat" not in note, note
    note = nothing_note(t.tap("/check/card", card="9H"))
    assert "9♥" in note and "previous player" not in note and "may be laid" not in note, note
