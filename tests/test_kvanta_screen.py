"""The Kvanta round wizard through the Flask client: rolls stored at once and listed,
a reposted roll returns the stored roll, physical dice marked, every step's entry,
previews before saving, refusals shown with nothing stored, the three ends of the
game, drafts shared between phones, undo from the history, and the watch link
refused on every write."""

from __future__ import annotations

import re
import threading

import pytest
from conftest import another_phone_first

from scorekeeper import api
from scorekeeper.web import kvanta as screen

NAMES = ("Ana", "Bojan", "Ceca")


class Scripted:
    """Deterministic dice: answers randrange with these faces, in order."""

    def __init__(self, *faces):
        self.faces = list(faces)
        self.lock = threading.Lock()

    def randrange(self, start, stop):
        with self.lock:
            return self.faces.pop(0)


class Answer:
    def __init__(self, response):
        self.status = response.status_code
        self.html = response.get_data(as_text=True)

    def attr(self, name: str) -> str | None:
        m = re.search(rf'id="kv-panel"[^>]*\b{name}="([^"]*)"', self.html)
        return m.group(1) if m else None

    @property
    def phase(self) -> str | None:
        return self.attr("data-phase")

    @property
    def v(self) -> str:
        return self.attr("data-v")

    def sid(self, suffix: str) -> str:
        m = re.search(rf'"sid": "([^"]+{re.escape(suffix)})"', self.html)
        assert m, f"no {suffix} button"
        return m.group(1)

    @property
    def error(self) -> str:
        found = re.findall(
            r'class="(?:flash error|verdict no|field-error)"[^>]*>([^<]+)<', self.html
        )
        return " ".join(found)

    def rolls(self) -> list[dict]:
        return [
            {
                "id": int(i),
                "kind": k,
                "physical": p == "true",
                "dice": [int(x) for x in d.split(",")],
            }
            for i, k, p, d in re.findall(
                r'class="kv-roll[^"]*" data-roll="(\d+)" data-kind="([^"]+)"\s+'
                r'data-physical="(\w+)" data-dice="([\d,]+)"',
                self.html,
            )
        ]

    def seat(self, name: str) -> str:
        m = re.search(
            rf'class="kv-seat[^"]*" data-player="{name}">.*?class="kv-seat-value">(.*?)</span>',
            self.html,
            flags=re.S,
        )
        return m.group(1).strip() if m else ""

    def verdicts(self) -> list[str]:
        return re.findall(r'data-verdict="([^"]+)"', self.html)

    def points(self, table_class: str) -> dict[str, int]:
        part = self.html.split(table_class, 1)[1].split("</table>", 1)[0]
        return {
            n: int(p)
            for n, p in re.findall(
                r'<tr data-player="([^"]+)".*?data-points="(-?\d+)"', part, flags=re.S
            )
        }


class Kvanta:
    """One phone at a Kvanta table."""

    def __init__(self, client, url, csrf, store):
        self.client, self.url, self.csrf, self.store = client, url, csrf, store
        self.table = store.list_tables()[0]

    def post(self, action: str, headers: dict | None = None, **data) -> Answer:
        hx = {"HX-Request": "true", "X-CSRFToken": self.csrf}
        hx.update(headers or {})
        return Answer(self.client.post(f"{self.url}/kvanta/{action}", data=data, headers=hx))

    def page(self) -> Answer:
        return Answer(self.client.get(self.url))

    def entries(self, kind: str | None = None, live: bool = True):
        return [
            e
            for e in self.store.entries(self.table.id)
            if (kind is None or e.kind == kind) and (e.live or not live)
        ]

    def rolls(self):
        return self.store.rolls(self.table.id)

    def totals(self) -> dict[str, int]:
        ids = {p.id: p.name for p in self.store.players(self.table.id)}
        return {ids[pid]: t for pid, t in self.store.totals(self.table.id).items()}

    def snapshot(self):
        db = self.store.db
        return [
            db.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall()
            for t in ("entries", "entry_points", "entry_events", "rolls", "drafts")
        ]

    # -- getting somewhere quickly, through the screen

    def sums(self, slot: str, values: dict) -> Answer:
        answer = None
        for name, value in values.items():
            answer = self.post("key", slot=slot, player=name, value=str(value), next="1")
            assert answer.status == 200, answer.error
        return answer

    def cards(self, slot: str, hands: dict) -> Answer:
        answer = self.page()
        for name, cards in hands.items():
            for code in cards:
                answer = self.post("card", slot=slot, player=name, card=code, v=answer.v)
                assert answer.status == 200, answer.error
        return answer

    def dealt(self) -> Answer:
        """Dealer drawn (Ana), 3 burned, 7♥ turned."""
        for name, code in zip(NAMES, ("2C", "9D", "KS"), strict=True):
            answer = self.post("card", slot="dealer", player=name, card=code)
        answer = self.post("dealer", sid=answer.sid("-dealer"))
        assert answer.phase == "setup", answer.error
        self.post("burn", burn="3")
        return self.post("trump", card="7H")

    def rolled(self, app, *faces) -> Answer:
        app.config["DICE_RNG"] = Scripted(*faces)
        answer = self.dealt()
        answer = self.post("roll", which="target", v=answer.v, sid=answer.sid("-t"))
        assert answer.phase == "hand", answer.error
        return answer

    def tricks(self, app, *faces) -> Answer:
        self.rolled(app, *faces)
        return self.post("hand", go="none")

    def exchange(self, winner: str) -> Answer:
        answer = self.post("trick-winner", player=winner)
        return self.post("roll", which="exchange", sid=answer.sid("-x"))


@pytest.fixture
def kv(client, new_table, store):
    url, page = new_table("kvanta", NAMES)
    return Kvanta(client, url, page.csrf, store)


# ---------------------------------------------------------------- rolls


def test_target_roll_is_stored_at_once_listed_and_a_repost_returns_it(app, kv):
    app.config["DICE_RNG"] = Scripted(4, 5, 5, 1, 1, 2)
    answer = kv.dealt()
    sid = answer.sid("-t")
    first = kv.post("roll", which="target", v=answer.v, sid=sid)
    assert first.status == 200 and first.phase == "hand"
    (roll,) = kv.rolls()
    assert roll["kind"] == "kvanta-target" and roll["dice"] == [4, 5, 5]
    assert roll["result"] == {"dice": [4, 5, 5], "target": 14}
    assert roll["round"] == 1 and roll["created"] and not roll["physical"]
    assert first.attr("data-target") == "14"
    assert first.rolls() == [
        {"id": roll["id"], "kind": "kvanta-target", "physical": False, "dice": [4, 5, 5]}
    ]
    assert re.search(r'<time datetime="[^"]+">\d\d:\d\d:\d\d</time>', first.html)
    assert first.html.count('class="die') >= 6  # drawn in the facts and in the list

    # the same roll request again (lost answer, double tap): the stored roll, not a new one
    again = kv.post("roll", which="target", v=answer.v, sid=sid)
    assert again.status == 200
    assert len(kv.rolls()) == 1
    assert again.attr("data-target") == "14" and again.rolls() == first.rolls()
    # the page never offers a used roll request again: the next button is a new one
    assert first.sid("-t") != sid and kv.page().sid("-t") != sid

    # a deliberate re-roll is a new, listed roll, and the latest counts
    redo = kv.post("roll", which="target", v=first.v, sid=first.sid("-t"))
    assert [r["dice"] for r in kv.rolls()] == [[4, 5, 5], [1, 1, 2]]
    assert redo.attr("data-target") == "4"
    assert len(redo.rolls()) == 2
    assert re.search(f'class="kv-roll counts" data-roll="{kv.rolls()[-1]["id"]}"', redo.html)


def test_two_phones_tapping_roll_at_once_roll_the_target_once(app, kv):
    """Phone B still shows "Roll the three dice" when phone A's roll lands: B's tap
    must not roll the target again behind everyone's back (the latest roll counts)."""
    app.config["DICE_RNG"] = Scripted(4, 5, 5, 1, 1, 2)
    answer = kv.dealt()
    phone_b = kv.page()  # its own page: its own submission id, the same round
    assert phone_b.sid("-t") != answer.sid("-t")
    first = kv.post("roll", which="target", v=answer.v, sid=answer.sid("-t"))
    assert first.attr("data-target") == "14"
    late = kv.post("roll", which="target", v=phone_b.v, sid=phone_b.sid("-t"))
    assert late.status == 200
    assert "older screen" in late.html
    assert late.attr("data-target") == "14"  # B now sees A's roll
    assert [r["dice"] for r in kv.rolls()] == [[4, 5, 5]]
    # a "Roll again" from the screen that shows the roll is deliberate: it counts
    again = kv.post("roll", which="target", v=late.v, sid=late.sid("-t"))
    assert again.attr("data-target") == "4"
    # and a stale "Roll again" (another phone rolled again meanwhile) is refused too
    stale = kv.post("roll", which="target", v=late.v, sid=first.sid("-t"))
    assert "older screen" in stale.html
    assert [r["dice"] for r in kv.rolls()] == [[4, 5, 5], [1, 1, 2]]


def test_physical_dice_are_typed_in_and_marked(app, kv):
    answer = kv.dealt()
    refused = kv.post("roll", which="target", physical="1", v=answer.v, sid=answer.sid("-p"))
    assert refused.status == 422 and "each of the three dice" in refused.error
    assert kv.rolls() == []
    for die, face in enumerate((6, 2, 3)):
        kv.post("phys", which="target", die=str(die), face=str(face))
    bad = kv.post("phys", which="target", die="1", face="7")
    assert bad.status == 422 and "1 to 6" in bad.error
    page = kv.page()
    answer = kv.post("roll", which="target", physical="1", v=page.v, sid=page.sid("-p"))
    (roll,) = kv.rolls()
    assert roll["physical"] and roll["dice"] == [6, 2, 3] and roll["result"]["target"] == 11
    assert answer.rolls()[0]["physical"] and "physical" in answer.html
    # a physical exchange die too
    kv.post("hand", go="none")
    kv.post("trick-winner", player="Bojan")
    kv.post("phys", which="exchange", face="4")
    answer = kv.post("roll", which="exchange", physical="1", sid=kv.page().sid("-xp"))
    roll = kv.rolls()[-1]
    assert roll["kind"] == "kvanta-exchange" and roll["physical"] and roll["dice"] == [4]
    assert roll["result"]["player"] == "Bojan" and not roll["result"]["flux"]
    assert "Exchange 4 cards, or call." in answer.html


def test_rolling_needs_the_deal_first_and_the_exchange_die_once_per_trick(app, kv):
    early = kv.post("roll", which="target", sid="too-early")  # no dealer drawn yet
    assert early.status == 409 and "That step is over" in early.error
    kv.tricks(app, 3, 3, 3, 2, 5)
    answer = kv.exchange("Ceca")
    assert answer.status == 200 and kv.rolls()[-1]["dice"] == [2]
    twice = kv.post("roll", which="exchange", sid="a-new-request")
    assert twice.status == 409 and "already rolled" in twice.error
    assert len(kv.rolls()) == 2


def test_two_phones_rolling_the_exchange_die_at_the_same_moment_roll_it_once(app, kv, monkeypatch):
    """Both phones passed the once-per-trick check before either wrote: the second
    roll is refused inside the write, so the trick has one exchange roll."""
    from scorekeeper import store

    kv.tricks(app, 3, 3, 3, 4, 2)  # target 9; this phone's die 4, the other phone's 2
    answer = kv.post("trick-winner", player="Ceca")
    other = kv.page()
    another_phone_first(
        monkeypatch,
        store.Store,
        "add_roll",
        lambda: kv.post("roll", which="exchange", sid=other.sid("-x")),
    )
    late = kv.post("roll", which="exchange", sid=answer.sid("-x"))
    assert late.status == 409
    assert "Another phone changed this deal a moment ago" in late.error
    exchange = [r for r in kv.rolls() if r["kind"] == "kvanta-exchange"]
    assert [r["dice"] for r in exchange] == [[2]]


# ---------------------------------------------------------------- the steps' entries


def test_dealer_draw_is_an_entry_without_points_and_sets_the_dealer(kv, parsed):
    for name, code in zip(NAMES, ("5C", "5C", "5C"), strict=True):
        answer = kv.post("card", slot="dealer", player=name, card=code)
    assert "again" in answer.verdicts()
    refused = kv.post("dealer", sid="s1")
    assert refused.status == 422 and "draws again" in refused.error and kv.entries() == []
    answer = kv.post("draw-again")
    for name, code in zip(NAMES, ("5C", "5C", "3D"), strict=True):
        answer = kv.post("card", slot="dealer", player=name, card=code)
    assert "dealer" in answer.verdicts() and "Ceca deals." in answer.html
    assert kv.entries() == []  # the verdict is a preview
    answer = kv.post("dealer", sid=answer.sid("-dealer"))
    (entry,) = kv.entries()
    assert entry.kind == "kvanta-dealer" and entry.points == {} and entry.round == 0
    assert entry.result["dealer"] == "Ceca"
    assert re.search(r'Ceca <span class="badge dealer"', answer.html)
    assert answer.phase == "setup"


def test_hand_with_a_tie_break_draw_then_poker(app, kv):
    answer = kv.rolled(app, 4, 5, 5)  # target 14
    kv.post("hand", go="open")
    answer = kv.sums("hand", {"Ana": 14, "Bojan": -14, "Ceca": 3})
    assert "tied" in answer.verdicts()
    refused = kv.post("save-hand", sid="h1")
    assert refused.status == 422 and "tie-break" in refused.error
    assert kv.entries("kvanta-hand") == []
    answer = kv.post("draw-winner", player="Bojan")
    assert "hand" in answer.verdicts() and "Bojan has Hand" in answer.html
    assert "tied" in kv.post("draw-winner", player="").verdicts()  # changed their mind
    answer = kv.post("draw-winner", player="Bojan")
    assert kv.entries("kvanta-hand") == []  # shown before saving
    saved = kv.post("save-hand", sid=answer.sid("-hand"))
    (entry,) = kv.entries("kvanta-hand")
    assert entry.request == {
        "target": 14,
        "sums": {"Ana": 14, "Bojan": -14, "Ceca": 3},
        "draw_winner": "Bojan",
    }
    assert kv.totals()["Bojan"] == 15 and entry.round == 1
    assert saved.phase == "poker"  # straight to the poker phase


def test_no_hand_is_not_saved(app, kv):
    kv.rolled(app, 1, 1, 1)
    kv.post("hand", go="open")
    answer = kv.sums("hand", {"Ana": 4, "Bojan": 5, "Ceca": 6})
    assert "none" in answer.verdicts()
    refused = kv.post("save-hand", sid="h-none")
    assert refused.status == 422 and "no Hand" in refused.error
    assert kv.entries("kvanta-hand") == []


def test_flux_is_recorded_at_once_and_once(app, kv):
    kv.tricks(app, 4, 5, 5, 6)
    answer = kv.post("trick-winner", player="Bojan")
    sid = answer.sid("-x")
    rolled = kv.post("roll", which="exchange", sid=sid)
    assert "flux" in rolled.verdicts()
    (flux,) = kv.entries("kvanta-flux")
    assert flux.request == {"players": list(NAMES), "player": "Bojan", "target": 14}
    assert kv.totals() == {"Ana": 0, "Bojan": 5, "Ceca": 0}
    again = kv.post("roll", which="exchange", sid=sid)
    assert again.status == 200
    assert len(kv.entries("kvanta-flux")) == 1 and len(kv.rolls()) == 2
    # the Flux is its own entry: undoing it from the history takes the +5 back
    undone = kv.client.post(
        f"{kv.url}/entries/{flux.id}/undo",
        data={"submission_id": "undo-flux"},
        headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
    )
    assert undone.status_code == 200 and kv.totals()["Bojan"] == 0
    assert "flux-undone" in kv.page().verdicts()
    # no flux call: the next trick; the exchange die is rolled again only then
    answer = kv.post("next-trick", trick="1")
    assert "Trick 2" in answer.html and kv.page().phase == "tricks"
    retried = kv.post("next-trick", trick="1")  # a retried tap moves on only once
    assert "older screen" in retried.html and "Trick 2" in retried.html


def test_call_preview_before_saving_then_the_entry(app, kv):
    kv.tricks(app, 4, 5, 5, 3)  # target 14, Ceca rolls a 3
    kv.exchange("Ceca")
    answer = kv.post("call")
    assert answer.phase == "call" and "Call by Ceca" in answer.html
    answer = kv.sums("call", {"Ana": 13, "Bojan": 20, "Ceca": 11})
    expected = api.evaluate(
        "kvanta-call",
        {"target": 14, "caller": "Ceca", "sums": {"Ana": 13, "Bojan": 20, "Ceca": 11}},
    )
    assert "undercut" in answer.verdicts()
    assert answer.points("kv-call") == expected["points"]
    assert kv.entries("kvanta-call") == []  # the preview stores nothing
    sid = answer.sid("-call")
    saved = kv.post("save-call", sid=sid)
    (entry,) = kv.entries("kvanta-call")
    assert entry.result["points"] == expected["points"] and entry.round == 1
    assert kv.totals() == expected["points"]
    assert saved.phase == "poker"
    again = kv.post("save-call", sid=sid)
    assert "Already saved." in again.html and len(kv.entries("kvanta-call")) == 1


def test_a_call_by_cards_and_a_flux_call_that_misses_is_refused(app, kv):
    kv.tricks(app, 4, 5, 5, 6)  # target 14; Ana rolls a 6
    kv.exchange("Ana")
    answer = kv.post("call")
    assert "Flux call by Ana" in answer.html
    kv.post("mode", slot="call", player="Ana", mode="cards")
    kv.cards("call", {"Ana": ["10H", "3H", "AD", "KS", "QS", "JC", "2S"]})  # 10+3+1-2 = 12
    answer = kv.sums("call", {"Bojan": 9, "Ceca": 30})
    assert "Flux call is made only when" in answer.error
    before = kv.snapshot()
    assert not re.search(r'"sid": "[^"]+-call"', answer.html)  # no save button under a refusal
    refused = kv.post("save-call", sid="fc-1")
    assert refused.status == 422 and "Flux call" in refused.error
    assert kv.snapshot() == before
    # the right cards: 2♠ out, J♦ in — Bull's Eyes on a Flux call
    kv.post("uncard", slot="call", player="Ana", index="6", v=kv.page().v)
    answer = kv.cards("call", {"Ana": ["JD"]})
    assert "bulls-eyes" in answer.verdicts()
    kv.post("save-call", sid=answer.sid("-call"))
    (entry,) = kv.entries("kvanta-call")
    assert entry.request["flux"] is True and entry.result["bulls_eyes"]
    assert entry.request["hands"]["Ana"] == ["10H", "3H", "AD", "KS", "QS", "JC", "JD"]


def to_the_call(app, kv) -> Answer:
    """Round 1 up to the call's sums: K♥ turned, target 14, no Hand, Ana wins the
    first trick and calls; Ana 14, Bojan 4, Ceca 10."""
    app.config["DICE_RNG"] = Scripted(4, 5, 5, 2)
    kv.dealt()
    kv.post("trump", card="KH")
    page = kv.page()
    kv.post("roll", which="target", v=page.v, sid=page.sid("-t"))
    kv.post("hand", go="none")
    kv.exchange("Ana")
    kv.post("call")
    return kv.sums("call", {"Ana": 14, "Bojan": 4, "Ceca": 10})


POKER_HANDS = {
    "Ana": ["2S", "3S", "4S", "9H", "JD"],
    "Bojan": ["AS", "AH", "AD", "2C", "3C"],
    "Ceca": ["KS", "KH", "4D", "5D", "9C"],
}


def bump_the_draft_before_the_write(kv, monkeypatch):
    """Another phone's tap lands between a save reading the round's draft and its write."""

    def a_tap_on_another_phone():  # as the store receives it: the draft written again
        data, _v = kv.store.draft(kv.table.id, screen.DRAFT)
        return kv.store.save_draft(kv.table.id, screen.DRAFT, data)

    another_phone_first(monkeypatch, screen, "record", a_tap_on_another_phone)


def test_a_tap_while_the_call_or_the_poker_is_saved_refuses_the_save(app, kv, monkeypatch):
    """A save reads the round's draft; a tap on another phone changes it before the
    write. Storing what was read would leave that tap out (or close it away with the
    round), so the save is refused; saved again, it counts."""
    answer = to_the_call(app, kv)
    bump_the_draft_before_the_write(kv, monkeypatch)
    late = kv.post("save-call", sid=answer.sid("-call"))
    assert late.status == 409
    assert "Another phone changed this deal a moment ago" in late.html
    assert kv.entries("kvanta-call") == []
    monkeypatch.undo()
    assert kv.post("save-call", sid=late.sid("-call")).status == 200
    assert len(kv.entries("kvanta-call")) == 1

    hands = POKER_HANDS
    answer = kv.cards("poker", hands)
    bump_the_draft_before_the_write(kv, monkeypatch)
    late = kv.post("save-poker", sid=answer.sid("-poker"))
    assert late.status == 409
    assert "Another phone changed this deal a moment ago" in late.html
    assert kv.entries("kvanta-poker") == []
    assert kv.store.draft(kv.table.id, screen.DRAFT)[0] is not None


def test_a_tap_while_the_dealer_draw_or_the_hand_is_saved_refuses_the_save(app, kv, monkeypatch):
    for name, code in zip(NAMES, ("2C", "9D", "KS"), strict=True):
        answer = kv.post("card", slot="dealer", player=name, card=code)
    bump_the_draft_before_the_write(kv, monkeypatch)
    late = kv.post("dealer", sid=answer.sid("-dealer"))
    assert late.status == 409 and "Another phone changed this deal" in late.html
    assert kv.entries("kvanta-dealer") == []
    monkeypatch.undo()

    answer = kv.rolled(app, 4, 5, 5)  # target 14: the dealer draw saved on the way
    kv.post("hand", go="open")
    answer = kv.sums("hand", {"Ana": 14, "Bojan": 3, "Ceca": 5})
    bump_the_draft_before_the_write(kv, monkeypatch)
    late = kv.post("save-hand", sid=answer.sid("-hand"))
    assert late.status == 409 and "Another phone changed this deal" in late.html
    assert kv.entries("kvanta-hand") == []


def test_poker_prize_with_a_king_uses_the_totals_after_the_call(app, kv):
    answer = to_the_call(app, kv)
    kv.post("save-call", sid=answer.sid("-call"))
    after_call = kv.totals()
    assert after_call == {"Ana": 24, "Bojan": -10, "Ceca": -4}
    hands = POKER_HANDS
    answer = kv.cards("poker", hands)
    expected = api.evaluate(
        "kvanta-poker", {"prize_card": "KH", "hands": hands, "totals": after_call}
    )
    assert expected["winner"] == "Bojan" and expected["prize"] == 34
    assert "Bojan wins the poker prize: 34." in answer.html
    assert answer.points("kv-poker") == expected["points"]
    saved = kv.post("save-poker", sid=answer.sid("-poker"))
    (entry,) = kv.entries("kvanta-poker")
    assert entry.request["totals"] == after_call and entry.round == 1
    assert kv.totals()["Bojan"] == after_call["Ana"]  # drawn level with the leader
    # the round is complete: the draft is closed and round 2 begins, dealt by Bojan
    assert kv.store.draft(kv.table.id, screen.DRAFT) == (None, 0)
    assert saved.attr("data-round") == "2" and "Bojan deals" in saved.html


def test_seven_cards_for_poker_keep_the_best_five(app, kv):
    kv.tricks(app, 4, 5, 5, 1)
    kv.exchange("Ana")
    kv.post("call")
    answer = kv.sums("call", {"Ana": 14, "Bojan": 4, "Ceca": 10})
    kv.post("save-call", sid=answer.sid("-call"))
    kv.post("poker-size", size="7")
    hands = {
        "Ana": ["2S", "3S", "4S", "5S", "6S", "KD", "KC"],
        "Bojan": ["AS", "AH", "AD", "AC", "3C", "9D", "9H"],
        "Ceca": ["KS", "KH", "4D", "5D", "9C", "10C", "JC"],
    }
    answer = kv.cards("poker", hands)
    assert "Straight flush" in answer.html
    assert "Ana wins the poker prize: 7." in answer.html
    bad = kv.post("poker-size", size="6")
    assert bad.status == 422


# ---------------------------------------------------------------- the end of the game


def test_end_a_not_everyone_gets_seven(kv):
    answer = kv.dealt()
    answer = kv.post("end", case="stop", sid=answer.sid("-stop"))
    (end,) = kv.entries("game-end")
    assert end.round == 1
    assert answer.phase == "over" and "finished" in answer.html
    assert kv.store.draft(kv.table.id, screen.DRAFT) == (None, 0)


def test_once_the_game_is_over_the_poll_sends_no_score_pad_round(kv):
    """The table page of a finished game has no score pad, so the poll must not send
    the pad's round out of band: htmx found no ``#pad-round`` to put it in and logged
    ``htmx:oobErrorNoTarget`` on every phone at the end of a Kvanta game (#24)."""
    live = kv.client.get(kv.url + "/live?v=0").get_data(as_text=True)
    assert 'id="pad-round" hx-swap-oob="true"' in live  # a game under way: the pad is there
    answer = kv.dealt()
    answer = kv.post("end", case="stop", sid=answer.sid("-stop"))
    assert answer.phase == "over" and 'id="pad"' not in kv.page().html
    live = kv.client.get(kv.url + "/live?v=0").get_data(as_text=True)
    assert "finished" in live and 'id="pad-round"' not in live


def test_end_b_everyone_got_seven_final_poker(kv):
    kv.dealt()
    answer = kv.post("end", case="poker")
    assert answer.phase == "final-poker"
    hands = POKER_HANDS
    answer = kv.cards("poker", hands)
    assert "Enter the prize card first" in answer.html and kv.entries("kvanta-poker") == []
    answer = kv.post("trump", card="9D")
    assert "Bojan wins the poker prize: 9." in answer.html
    answer = kv.post("save-poker", sid=answer.sid("-poker"))
    assert [e.kind for e in kv.entries()] == ["kvanta-dealer", "kvanta-poker", "game-end"]
    assert kv.totals()["Bojan"] == 9 and answer.phase == "over"
    assert "Bojan wins with 9 (K-D7)." in answer.html


def test_end_c_while_drawing_final_comparison_without_caller(app, kv):
    kv.tricks(app, 4, 5, 5)
    assert kv.post("end", case="stop", sid="too-late").status == 409  # not while dealing
    answer = kv.post("end", case="compare")
    assert answer.phase == "final-compare" and "K-D6" in answer.html
    answer = kv.sums("call", {"Ana": 14, "Bojan": 21, "Ceca": 10})
    expected = api.evaluate(
        "kvanta-call",
        {"target": 14, "caller": None, "sums": {"Ana": 14, "Bojan": 21, "Ceca": 10}},
    )
    assert answer.points("kv-call") == expected["points"]
    kv.post("save-call", sid=answer.sid("-call"))
    call = kv.entries("kvanta-call")[0]
    assert call.request["caller"] is None and "flux" not in call.request
    assert [e.kind for e in kv.entries()][-1] == "game-end"
    assert kv.totals() == expected["points"]


# ---------------------------------------------------------------- drafts, undo, abandon


def test_the_draft_survives_a_reload_and_another_phone_sees_it(app, kv, client):
    kv.rolled(app, 4, 5, 5)
    kv.post("hand", go="open")
    kv.post("key", slot="hand", player="Ana", value="1", next="0")
    second_phone = app.test_client()
    seen = Answer(second_phone.get(kv.url))
    assert seen.phase == "hand"
    assert seen.seat("Ana") == "1"
    # the second phone types the next digit; the first phone's reload shows it
    kv.post("key", slot="hand", player="Ana", value="14", next="1")
    assert kv.page().seat("Ana") == "14"
    # the poll carries the panel to the other phones out of band
    live = second_phone.get(kv.url + "/live?v=0").get_data(as_text=True)
    assert re.search(r'id="kv-panel"[^>]*hx-swap-oob="true"', live)
    assert 'class="kv-seat-value">14<' in live


def test_a_stale_card_tap_adds_nothing(app, kv):
    kv.tricks(app, 4, 5, 5, 2)
    kv.exchange("Ana")
    kv.post("call")
    kv.post("mode", slot="call", player="Ana", mode="cards")
    page = kv.page()
    first = kv.post("card", slot="call", player="Ana", card="7H", v=page.v)
    retry = kv.post("card", slot="call", player="Ana", card="7H", v=page.v)
    assert first.status == retry.status == 200
    data, _version = kv.store.draft(kv.table.id, screen.DRAFT)
    assert data["slots"]["call"]["cards"]["Ana"] == ["7H"]
    assert "older screen" in retry.html


def test_undo_a_step_from_the_history_brings_it_back(app, kv):
    kv.tricks(app, 4, 5, 5, 2)
    kv.exchange("Ana")
    kv.post("call")
    answer = kv.sums("call", {"Ana": 14, "Bojan": 4, "Ceca": 10})
    kv.post("save-call", sid=answer.sid("-call"))
    (call,) = kv.entries("kvanta-call")
    page = kv.page()
    assert page.phase == "poker"
    undone = kv.client.post(
        f"{kv.url}/entries/{call.id}/undo",
        data={"submission_id": "undo-1"},
        headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
    )
    assert undone.status_code == 200
    page = kv.page()
    assert page.phase == "call"  # the sums are still there
    assert page.seat("Ana") == "14"
    kv.post("save-call", sid=page.sid("-call"))
    assert len(kv.entries("kvanta-call")) == 1 and kv.totals()["Ana"] == 24


def test_abandon_drops_the_draft_and_keeps_the_entries(app, kv):
    kv.tricks(app, 4, 5, 5, 6)
    kv.exchange("Bojan")
    answer = kv.post("abandon")
    assert kv.store.draft(kv.table.id, screen.DRAFT) == (None, 0)
    assert [e.kind for e in kv.entries()] == ["kvanta-dealer", "kvanta-flux"]
    assert kv.totals()["Bojan"] == 5
    assert answer.phase == "setup" and answer.attr("data-round") == "2"
    assert "Earlier dice at this table (2)" in answer.html  # every roll stays listed


def test_k_d9_the_burned_cards_are_asked_once_per_game(app, kv):
    """K-D9: the first dealer burns the cards once; later rounds deal from the rest of
    the pack, so their set-up asks only for the turned card."""
    first = kv.dealt()  # round 1: 3 burned
    assert 'class="choices kv-burn"' in first.html
    app.config["DICE_RNG"] = Scripted(4, 5, 5, 6)
    kv.post("roll", which="target", v=kv.page().v, sid="r1-t")
    kv.post("hand", go="none")
    kv.exchange("Bojan")  # a Flux scores: round 1 has been played
    answer = kv.post("abandon")
    assert answer.phase == "setup" and answer.attr("data-round") == "2"
    assert 'class="choices kv-burn"' not in answer.html
    assert "kv-burned-once" in answer.html
    assert re.search(r'data-fact="burn"><small>Burned</small> <strong>3</strong>', answer.html)
    refused = kv.post("burn", burn="4")
    assert refused.status == 409 and "once per game" in refused.error
    assert kv.store.draft(kv.table.id, screen.GAME_DRAFT)[0] == {"burn": 3}
    # the turned card alone lets the target be rolled
    app.config["DICE_RNG"] = Scripted(2, 3, 4)
    answer = kv.post("trump", card="9S")
    assert "Enter the turned card, then roll." not in answer.html
    answer = kv.post("roll", which="target", v=answer.v, sid=answer.sid("-t"))
    assert answer.phase == "hand" and answer.attr("data-target") == "9"


def test_k_d10_the_turned_card_counts_toward_three_copies_in_every_slot(app, kv):
    """K-D10: with 7♥ turned, only two more 7♥ can be entered in the round's hands."""
    kv.tricks(app, 4, 5, 5, 2)  # 7♥ turned
    kv.exchange("Ana")
    kv.post("call")
    kv.post("mode", slot="call", player="Ana", mode="cards")
    kv.post("mode", slot="call", player="Bojan", mode="cards")
    kv.cards("call", {"Ana": ["7H", "7H"]})
    refused = kv.post("card", slot="call", player="Bojan", card="7H", v=kv.page().v)
    assert refused.status == 422 and "All three 7♥ are already used." in refused.error
    data, _version = kv.store.draft(kv.table.id, screen.DRAFT)
    assert data["slots"]["call"]["cards"].get("Bojan", []) == []
    shown = kv.post("select", slot="call", player="Bojan")
    assert re.search(r'data-card="7H"\s+disabled aria-label="7♥ — 3 used"', shown.html)


def test_k_d10_the_deal_passes_to_the_left(app, kv):
    """K-D10: each round the next player clockwise (on the dealer's left) deals."""
    from scorekeeper.games import standings

    names = ["Ana", "Bojan", "Ceca"]
    dealers = [
        standings.dealer("kvanta", names, standings.Progress(deals_played=n, drawn_dealer="Bojan"))
        for n in range(4)
    ]
    assert dealers == ["Bojan", "Ceca", "Ana", "Bojan"]


def test_the_trick_dispute_verdict_is_not_stored(app, kv):
    kv.tricks(app, 4, 5, 5)
    kv.post("dispute", open="1")
    for name, code in zip(NAMES, ("KH", "KH", "10S"), strict=True):
        answer = kv.post("card", slot="trick", player=name, card=code)
    assert "Ceca wins the trick." in answer.html and "Cancelled out" in answer.html
    assert [e.kind for e in kv.entries()] == ["kvanta-dealer"]
    answer = kv.post("trick-winner", player="Ceca")
    assert "Ceca rolls the exchange die." in answer.html


# ---------------------------------------------------------------- refusals and access


def test_bad_input_is_refused_with_a_message_and_stores_nothing(app, kv):
    kv.tricks(app, 4, 5, 5, 2)
    kv.exchange("Ana")
    kv.post("call")
    before = kv.snapshot()
    bad = [
        ("card", {"slot": "call", "player": "Ana", "card": "RJ", "v": "1"}, "not a card"),
        ("mode", {"slot": "call", "player": "Zed", "mode": "cards"}, "Choose one of the players"),
        ("key", {"slot": "call", "player": "Ana", "value": "99"}, "from −70 to 70"),
        ("key", {"slot": "poker", "player": "Ana", "value": "9"}, "That step is over"),
        ("burn", {"burn": "4"}, "That step is over"),
        ("save-call", {"sid": "s-incomplete"}, "Enter every player"),
        ("save-call", {}, "out of date"),
        ("roll", {"which": "target", "sid": "r-late"}, "That step is over"),
    ]
    for action, data, message in bad:
        answer = kv.post(action, **data)
        assert 400 <= answer.status < 500, (action, answer.status)
        assert message in answer.error, (action, answer.error)
        assert kv.snapshot() == before, action


def test_the_watch_link_shows_the_round_and_refuses_every_write(app, kv, client, store):
    kv.tricks(app, 4, 5, 5)
    watch = f"/t/{kv.table.watch_key}"
    page = Answer(client.get(watch))
    assert page.phase == "tricks" and page.attr("data-target") == "14"
    panel = page.html.split('id="kv-panel"', 1)[1].split("</section>", 1)[0]
    assert "hx-post" not in panel and "<button" not in panel
    before = kv.snapshot()
    for action in screen.ACTIONS:
        response = client.post(
            f"{watch}/kvanta/{action}",
            data={"sid": "w", "player": "Ana"},
            headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
        )
        assert response.status_code == 403, action
    assert kv.snapshot() == before


def test_other_games_have_no_kvanta_screen(client, new_table, parsed):
    url, page = new_table("szaman", NAMES)
    response = client.post(
        url + "/kvanta/burn",
        data={"burn": "2"},
        headers={"HX-Request": "true", "X-CSRFToken": page.csrf},
    )
    assert response.status_code == 404


def test_a_plain_form_post_redirects_to_the_table(kv):
    answer = kv.client.post(
        f"{kv.url}/kvanta/card",
        data={"csrf_token": kv.csrf, "slot": "dealer", "player": "Ana", "card": "2C"},
    )
    assert answer.status_code == 303
    assert answer.headers["Location"].endswith("/t/" + kv.table.scorer_key)
    assert "2♣" in kv.page().html


def test_a_rename_mid_round_keeps_what_was_typed_for_that_player(app, kv):
    kv.tricks(app, 4, 5, 5, 3)  # target 14, Ceca rolls a 3
    kv.exchange("Ceca")
    kv.post("call")
    kv.sums("call", {"Ana": 13, "Bojan": 20, "Ceca": 11})
    ceca = next(p for p in kv.store.players(kv.table.id) if p.name == "Ceca")
    renamed = kv.client.post(
        f"{kv.url}/players/{ceca.id}/name",
        data={"name": "Cveta"},
        headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
    )
    assert renamed.status_code == 200
    expected = api.evaluate(
        "kvanta-call",
        {
            "target": 14,
            "caller": "Cveta",
            "hands": {},
            "sums": {"Ana": 13, "Bojan": 20, "Cveta": 11},
        },
    )
    answer = kv.page()
    assert "Call by Cveta" in answer.html
    assert answer.points("kv-call") == expected["points"]  # nothing to type again
    saved = kv.post("save-call", sid=answer.sid("-call"))
    assert saved.status == 200, saved.error
    (entry,) = kv.entries("kvanta-call")
    assert entry.request["caller"] == "Cveta" and entry.request["sums"]["Cveta"] == 11
