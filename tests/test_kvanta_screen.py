"""The Kvanta round through the Flask client, on the one screen mechanism: rolls stored
at once and listed, a retried roll tap returns the stored roll, physical dice marked,
every step's entry (stored under its tap, taken back with it), previews before settling,
refusals shown with nothing stored, the three ends of the game, rounds shared between
phones, undo from the history and on the screen, an older screen's round converted,
and the watch link refused on every write."""

from __future__ import annotations

import html
import itertools
import json
import re
import threading

import pytest
from conftest import another_phone_first, statements_of

from scorekeeper import api, store
from scorekeeper.deals import kvanta as deal
from scorekeeper.messages import signed

NAMES = ("Ana", "Bojan", "Ceca")
SEAT = {name: i for i, name in enumerate(NAMES)}
_ids = itertools.count(1)


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
        m = re.search(rf'id="kv-panel"[^>]*\b{name}="([^"]*)"', self.html, flags=re.S)
        return m.group(1) if m else None

    @property
    def phase(self) -> str | None:
        return self.attr("data-phase")

    @property
    def v(self) -> str:
        return self.attr("data-deal-version")

    @property
    def round(self) -> str:
        return self.attr("data-round")

    @property
    def error(self) -> str:
        found = re.findall(
            r'class="(?:flash error|verdict no|field-error)"[^>]*>([^<]+)<', self.html
        )
        return " ".join(found)

    def taps(self, action: str) -> list[dict]:
        """The taps this page's buttons would send for ``action``."""
        out = []
        for raw in re.findall(
            r"data-tap hx-post=\"[^\"]+\" hx-swap=\"none\" hx-vals='([^']+)'", self.html
        ):
            tap = json.loads(json.loads(raw)["tap"])
            if tap["action"] == action:
                out.append(tap)
        return out

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
    """One phone at a Kvanta table: each tap names what is meant, with its own id."""

    def __init__(self, client, url, csrf, store):
        self.client, self.url, self.csrf, self.store = client, url, csrf, store
        self.table = [t for t in store.list_tables() if url.endswith(t.scorer_key)][0]

    def post(self, route: str, headers: dict | None = None, **data) -> Answer:
        hx = {"HX-Request": "true", "X-CSRFToken": self.csrf}
        hx.update(headers or {})
        return Answer(self.client.post(f"{self.url}/kvanta/{route}", data=data, headers=hx))

    def page(self) -> Answer:
        return Answer(self.client.get(self.url))

    def tap(self, action: str, at: Answer | None = None, tap_id: str | None = None,
            route: str = "tap", form: dict | None = None, **args) -> Answer:  # fmt: skip
        """A tap as a button sends it, from the screen ``at`` (by default: as it is now)."""
        at = at or self.page()
        self.last_id = tap_id or f"tap-{next(_ids)}"
        data = {"tap": json.dumps({"action": action, **args}), "tap_id": self.last_id,
                "v": at.v, "round": at.round, **(form or {})}  # fmt: skip
        return self.post(route, **data)

    def roll(self, action: str = "roll", **args) -> Answer:
        return self.tap(action, route="roll", **args)

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
            for t in ("entries", "entry_events", "rolls", "drafts")
        ]

    def draft(self):
        return self.store.tap_log(self.table.id, deal.DRAFT).data

    def table_version(self) -> int:
        return self.store.table(self.table.id).version

    # -- getting somewhere quickly, through the screen

    def sums(self, values: dict) -> Answer:
        answer = None
        for name, value in values.items():
            answer = self.tap("sum", seat=SEAT[name], sum=value)
            assert answer.status == 200, answer.error
        return answer

    def cards(self, hands: dict, action: str = "card") -> Answer:
        answer = None
        for name, cards in hands.items():
            for code in cards:
                answer = self.tap(action, seat=SEAT[name], card=code)
                assert answer.status == 200, answer.error
        return answer

    def drawn(self) -> Answer:
        """The dealer draw: Ana deals (2♣ is the lowest)."""
        for name, code in zip(NAMES, ("2C", "9D", "KS"), strict=True):
            answer = self.tap("draw", seat=SEAT[name], card=code)
        assert answer.phase == "burn", answer.error
        return answer

    def dealt(self, turned: str | None = "7H") -> Answer:
        """Dealer drawn (Ana), 3 burned, 7♥ turned."""
        self.drawn()
        answer = self.tap("burn", seat=0, count=3)
        return self.tap("turn", seat=0, card=turned) if turned else answer

    def rolled(self, app, *faces, turned: str = "7H") -> Answer:
        app.config["DICE_RNG"] = Scripted(*faces)
        self.dealt(turned)
        answer = self.roll(seat=1)
        assert answer.phase == "hand", answer.error
        return answer

    def tricks(self, app, *faces, turned: str = "7H") -> Answer:
        self.rolled(app, *faces, turned=turned)
        return self.tap("no-hand")

    def exchange(self, winner: str) -> Answer:
        self.tap("trick-winner", seat=SEAT[winner])
        return self.roll("exchange", seat=SEAT[winner])

    def first_round_played(self, app) -> Answer:
        """From the dealer drawn (Ana): 3 burned, 7♥ turned, a Flux scored (round 1 has
        been played), the rest of the round abandoned: round 2's screen."""
        self.tap("burn", seat=0, count=3)
        self.tap("turn", seat=0, card="7H")
        app.config["DICE_RNG"] = Scripted(4, 5, 5, 6)
        self.roll(seat=1)
        self.tap("no-hand")
        self.exchange("Bojan")
        return self.post("discard", v=self.page().v)


@pytest.fixture
def kv(client, new_table, store):
    url, page = new_table("kvanta", NAMES)
    return Kvanta(client, url, page.csrf, store)


# ---------------------------------------------------------------- rolls


def test_target_roll_is_stored_at_once_listed_and_a_retried_tap_returns_it(app, kv):
    app.config["DICE_RNG"] = Scripted(4, 5, 5, 1, 1, 2)
    answer = kv.dealt()
    (offered,) = [t for t in answer.taps("roll") if "physical" not in t]
    assert offered == {"action": "roll", "seat": 1}  # Bojan, left of the dealer, rolls
    first = kv.roll(seat=1, at=answer, tap_id="roll-1")
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

    # the same tap again (lost answer, double tap): the stored roll, not a new one
    again = kv.roll(seat=1, at=answer, tap_id="roll-1")
    assert again.status == 200
    assert len(kv.rolls()) == 1
    assert again.attr("data-target") == "14" and again.rolls() == first.rolls()
    # the screen offers a deliberate roll again, from the one roll it shows
    # any player may ask for it; the tap names who asked (#24)
    rerolls = [t for t in first.taps("reroll") if "physical" not in t]
    assert rerolls == [{"action": "reroll", "seat": s, "seen": 1} for s in range(3)]
    assert first.html.count('data-confirm="Tap again: the target is rolled again"') == 6

    # a deliberate re-roll is a new, listed roll naming who asked, and the latest counts
    redo = kv.roll("reroll", at=first, seat=2, seen=1)
    assert [r["dice"] for r in kv.rolls()] == [[4, 5, 5], [1, 1, 2]]
    assert kv.rolls()[-1]["result"] == {"dice": [1, 1, 2], "target": 4, "asked_by": "Ceca"}
    assert "Target again (asked by Ceca)" in redo.html
    assert redo.attr("data-target") == "4"
    assert len(redo.rolls()) == 2
    assert re.search(f'class="kv-roll counts" data-roll="{kv.rolls()[-1]["id"]}"', redo.html)


def test_a_roll_retried_after_its_round_was_abandoned_is_told_so_and_adds_nothing(app, kv):
    """The answer to a roll was lost, and another phone abandoned the round meanwhile:
    the tap sent again finds its roll stored but no round to add it to."""
    app.config["DICE_RNG"] = Scripted(4, 5, 5)
    answer = kv.dealt()
    assert kv.roll(seat=1, at=answer, tap_id="roll-1").status == 200
    assert kv.post("discard", v=kv.page().v).status == 200
    before = kv.snapshot()
    again = kv.roll(seat=1, at=answer, tap_id="roll-1")
    assert again.status == 409
    assert "changed a moment ago" in again.html
    assert kv.snapshot() == before and kv.draft() is None


def test_two_phones_tapping_roll_at_once_roll_the_target_once(app, kv):
    """Phone B still shows "Roll the three dice" when phone A's roll lands: B's tap
    must not roll the target again behind everyone's back (the latest roll counts)."""
    app.config["DICE_RNG"] = Scripted(4, 5, 5, 1, 1, 2)
    answer = kv.dealt()
    phone_b = kv.page()  # the same round, as phone B shows it
    first = kv.roll(seat=1, at=answer)
    assert first.attr("data-target") == "14"
    late = kv.roll(seat=1, at=phone_b)
    assert late.status == 409
    assert "changed a moment ago" in late.html
    assert late.attr("data-target") == "14"  # B now sees A's roll
    assert [r["dice"] for r in kv.rolls()] == [[4, 5, 5]]
    # a "Roll again" from the screen that shows the roll is deliberate: it counts
    again = kv.roll("reroll", at=late, seat=1, seen=1)
    assert again.attr("data-target") == "4"
    # a stale "Roll again" (another phone rolled again meanwhile) is refused too, from
    # an older screen and from one that counted one roll fewer
    stale = kv.roll("reroll", at=late, seat=1, seen=1)
    assert stale.status == 409 and "changed a moment ago" in stale.html
    fewer = kv.roll("reroll", seat=1, seen=1)
    assert fewer.status == 422 and "rolled 2 times already" in fewer.error
    assert [r["dice"] for r in kv.rolls()] == [[4, 5, 5], [1, 1, 2]]


def polled_version(html: str) -> int | None:
    """The table version the poll's marker (``#live``) of a page or an answer names."""
    found = re.search(r'id="live"[^>]*?(?:\?|&amp;)v=(\d+)', html)
    return int(found.group(1)) if found else None


def test_a_tap_the_round_moved_past_on_another_phone_is_told_so_and_stays_said(app, kv):
    """Phone B still shows the turned-card picker when phone A's turned card lands. B's
    card is refused as a stale tap, not as "No turn tap now: …" (a tap's inner name, in
    every language), and with the table as it stands and the poll's marker moved on: an
    answer of the panel alone left B's poll behind, and the poll redrew the panel a
    moment later, the message gone before it could be read."""
    app.config["DICE_RNG"] = Scripted(4, 5, 5)
    kv.dealt(turned=None)
    phone_b = kv.page()  # the round as phone B shows it
    seen = polled_version(phone_b.html)
    assert kv.tap("turn", seat=0, card="QH", at=phone_b).status == 200  # phone A
    before = kv.snapshot()
    late = kv.tap("turn", at=phone_b, form={"seen": seen}, seat=0, card="KH")
    assert late.status == 409
    assert "changed a moment ago" in late.html and "tap now" not in late.html
    assert late.phase == "target"  # B sees A's turned card
    assert polled_version(late.html) == polled_version(kv.page().html) > seen
    assert kv.snapshot() == before
    # a roll of the exchange die from a screen before the winner was changed: the same
    kv.roll(seat=1)
    kv.tap("no-hand")
    kv.tap("trick-winner", seat=0)
    phone_b = kv.page()
    seen = polled_version(phone_b.html)
    kv.post("undo", tap_id=kv.last_id, v=phone_b.v, round=phone_b.round)  # phone A
    late = kv.roll("exchange", at=phone_b, form={"seen": seen}, seat=0)
    assert "changed a moment ago" in late.html
    assert polled_version(late.html) == polled_version(kv.page().html)


def test_physical_dice_are_chosen_on_the_phone_and_marked(app, kv):
    answer = kv.dealt()
    refused = kv.roll(seat=1, physical=True, at=answer)
    assert refused.status == 422 and "each of the three dice" in refused.error
    bad = kv.roll(seat=1, physical=True, form={"die0": "6", "die1": "7", "die2": "3"})
    assert bad.status == 422 and "1 to 6" in bad.error
    assert kv.rolls() == []
    answer = kv.roll(seat=1, physical=True, form={"die0": "6", "die1": "2", "die2": "3"})
    (roll,) = kv.rolls()
    assert roll["physical"] and roll["dice"] == [6, 2, 3] and roll["result"]["target"] == 11
    assert answer.rolls()[0]["physical"] and "physical" in answer.html
    # a physical exchange die too
    kv.tap("no-hand")
    kv.tap("trick-winner", seat=1)
    answer = kv.roll("exchange", seat=1, physical=True, form={"die0": "4"})
    roll = kv.rolls()[-1]
    assert roll["kind"] == "kvanta-exchange" and roll["physical"] and roll["dice"] == [4]
    assert roll["result"]["player"] == "Bojan" and not roll["result"]["flux"]
    assert "Exchange 4 cards, or call." in answer.html


def test_a_phone_cannot_send_its_own_dice_through_the_tap_route(app, kv):
    """The dice of a roll come from the server's roll route; a roll tap carrying the
    numbers a phone chose, sent to the tap route, is refused and stores nothing."""
    kv.dealt()
    before = kv.snapshot()
    for action, args in (("roll", {"dice": [6, 6, 6]}), ("exchange", {"die": 6})):
        refused = kv.tap(action, seat=1, **args)
        assert refused.status == 422 and "rolled on the server" in refused.error
    assert kv.snapshot() == before and kv.page().phase == "target"
    garbled = kv.post("tap", tap="[1]", tap_id="x", v="1", round="1")
    assert garbled.status == 422 and kv.snapshot() == before


def test_rolling_needs_the_deal_first_and_the_exchange_die_once_per_trick(app, kv):
    early = kv.roll(seat=1)  # no dealer drawn yet
    assert early.status == 409 and "before the dice are rolled" in early.error
    kv.tricks(app, 3, 3, 3, 2, 5)
    answer = kv.exchange("Ceca")
    assert answer.status == 200 and kv.rolls()[-1]["dice"] == [2]
    twice = kv.roll("exchange", seat=2)
    assert twice.status == 422 and "already rolled" in twice.error
    assert len(kv.rolls()) == 2


def test_two_phones_rolling_the_exchange_die_at_the_same_moment_roll_it_once(app, kv, monkeypatch):
    """Both phones tapped the exchange die from the same screen: the second roll's
    write finds the deal changed (its draft is read under the write lock) and rolls
    nothing, so the trick has one exchange roll."""
    from scorekeeper import store

    kv.tricks(app, 3, 3, 3, 4, 2)  # target 9; the exchange dice rolled next: 4, then 2
    kv.tap("trick-winner", seat=2)
    mine, other = kv.page(), kv.page()
    # the roll's one write (its dice, its tap and what the tap scores) begins after it
    another_phone_first(
        monkeypatch, store.Store, "write", lambda: kv.roll("exchange", seat=2, at=other)
    )
    late = kv.roll("exchange", seat=2, at=mine)
    assert late.status == 409
    assert "This deal changed a moment ago" in late.html
    exchange = [r for r in kv.rolls() if r["kind"] == "kvanta-exchange"]
    assert [r["dice"] for r in exchange] == [[4]]  # the other phone's, the one rolled


def test_a_roll_whose_tap_cannot_be_logged_keeps_no_dice(app, kv, monkeypatch):
    """The dice, the roll's tap and what it scores are one write: when the tap is refused
    as it is logged, the dice are not kept either, and the same tap sent again rolls once."""
    from scorekeeper import store
    from scorekeeper.messages import Text

    app.config["DICE_RNG"] = Scripted(4, 5, 5, 1, 2, 3)
    kv.dealt()
    at, before = kv.page(), kv.snapshot()

    def refused(*args, **kwargs):
        raise store.Conflict(Text("Another phone changed this table a moment ago."))

    with monkeypatch.context() as patched:
        patched.setattr(store.Store, "append_tap", refused)
        answer = kv.roll(seat=1, at=at)
    assert answer.status == 409 and "Another phone changed" in answer.html
    assert kv.snapshot() == before and kv.rolls() == []
    again = kv.roll(seat=1, at=at, tap_id=kv.last_id)
    # rolled anew: the first dice were never kept, nor shown
    assert again.phase == "hand" and [r["dice"] for r in kv.rolls()] == [[1, 2, 3]]


# ---------------------------------------------------------------- the steps' entries


def test_the_dealer_draw_is_an_entry_without_points_and_sets_the_dealer(kv):
    for name in NAMES:
        answer = kv.tap("draw", seat=SEAT[name], card="5C")
    assert "again" in answer.verdicts() and kv.entries() == []
    for name, code in zip(NAMES, ("5C", "5C", "3D"), strict=True):  # everyone draws again
        answer = kv.tap("draw", seat=SEAT[name], card=code)
    assert "dealer" in answer.verdicts() and 'title="Ceca">Ceca</span> deals.' in answer.html
    (entry,) = kv.entries()
    assert entry.kind == "kvanta-dealer" and entry.points == {} and entry.round == 0
    assert entry.result["dealer"] == "Ceca"
    assert re.search(r'Ceca <span class="badge dealer"', answer.html)
    assert answer.phase == "burn"
    # the draw's last tap retried: stored once
    kv.tap("draw", seat=2, card="3D", tap_id=kv.last_id)
    assert len(kv.entries()) == 1


def test_hand_with_a_tie_break_draw_then_poker(app, kv):
    kv.rolled(app, 4, 5, 5)  # target 14
    answer = kv.sums({"Ana": 14, "Bojan": -14, "Ceca": 3})
    assert "tied" in answer.verdicts()
    refused = kv.tap("settle")
    assert refused.status == 422 and "tie-break" in refused.error
    assert kv.entries("kvanta-hand") == []
    answer = kv.tap("draw-winner", seat=1)
    assert "hand" in answer.verdicts() and "Bojan has Hand" in answer.html
    assert "Ana has Hand" in kv.tap("draw-winner", seat=0).html  # changed their mind
    answer = kv.tap("draw-winner", seat=1)
    assert kv.entries("kvanta-hand") == []  # shown before settling
    saved = kv.tap("settle", at=answer)
    (entry,) = kv.entries("kvanta-hand")
    assert entry.request == {
        "target": 14,
        "sums": {"Ana": 14, "Bojan": -14, "Ceca": 3},
        "draw_winner": "Bojan",
    }
    assert kv.totals()["Bojan"] == 15 and entry.round == 1
    assert saved.phase == "poker"  # straight to the poker phase


def test_cards_typed_for_the_hand_are_carried_into_the_poker(app, kv):
    """#24: the Hand's seven cards need not be typed again for the poker."""
    kv.rolled(app, 4, 5, 5)  # target 14, 7♥ turned
    kv.cards({"Ana": ["9H", "5D", "KS", "QS", "JC", "KH", "QH"]})  # 9 + 5 = 14
    kv.sums({"Bojan": 3, "Ceca": 5})
    answer = kv.tap("settle")
    assert answer.phase == "poker" and kv.totals()["Ana"] == 15
    assert "9♥" in answer.seat("Ana") and "7/7" in answer.html


def test_no_hand_is_not_saved(app, kv):
    kv.rolled(app, 1, 1, 1)
    answer = kv.sums({"Ana": 4, "Bojan": 5, "Ceca": 6})
    assert "none" in answer.verdicts()
    refused = kv.tap("settle")
    assert refused.status == 422 and "no Hand" in refused.error
    assert kv.entries("kvanta-hand") == []


def test_flux_is_recorded_at_once_and_once(app, kv):
    kv.tricks(app, 4, 5, 5, 6)
    kv.tap("trick-winner", seat=1)
    rolled = kv.roll("exchange", seat=1, tap_id="ex-1")
    assert "flux" in rolled.verdicts()
    # the question comes before the answers to it
    page = kv.page().html
    assert page.index("Is their sum 14?") < page.index("Yes: Flux call")
    (flux,) = kv.entries("kvanta-flux")
    assert flux.request == {"players": list(NAMES), "player": "Bojan", "target": 14}
    assert kv.totals() == {"Ana": 0, "Bojan": 5, "Ceca": 0}
    again = kv.roll("exchange", seat=1, tap_id="ex-1")
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
    answer = kv.tap("next-trick", seat=1, tap_id="next-1")
    assert "Trick 2" in answer.html and kv.page().phase == "tricks"
    retried = kv.tap("next-trick", seat=1, tap_id="next-1")  # a retried tap moves on once
    assert "Trick 2" in retried.html and "Trick 3" not in retried.html
    assert kv.totals()["Bojan"] == 0 and len(kv.entries("kvanta-flux", live=False)) == 1


def test_call_preview_before_settling_then_the_entry(app, kv):
    kv.tricks(app, 4, 5, 5, 3)  # target 14, Ceca rolls a 3
    kv.exchange("Ceca")
    answer = kv.tap("call", seat=2)
    assert answer.phase == "call" and "Call by Ceca" in answer.html
    answer = kv.sums({"Ana": 13, "Bojan": 20, "Ceca": 11})
    expected = api.evaluate(
        "kvanta-call",
        {"target": 14, "caller": "Ceca", "sums": {"Ana": 13, "Bojan": 20, "Ceca": 11}},
    )
    assert "undercut" in answer.verdicts()
    assert answer.points("kv-call") == expected["points"]
    # a payment is written as a change of score, with a real minus sign
    for name, paid in expected["points"].items():
        cell = f'data-points="{paid}">{signed(paid)}</td>'
        assert re.search(rf'<tr data-player="{name}".*?{re.escape(cell)}', answer.html, re.S)
    assert any(paid < 0 for paid in expected["points"].values())
    assert kv.entries("kvanta-call") == []  # the preview stores nothing
    assert answer.taps("settle") == [{"action": "settle"}]
    saved = kv.tap("settle", at=answer, tap_id="settle-call")
    (entry,) = kv.entries("kvanta-call")
    assert entry.result["points"] == expected["points"] and entry.round == 1
    assert kv.totals() == expected["points"]
    assert saved.phase == "poker"
    again = kv.tap("settle", at=answer, tap_id="settle-call")
    assert again.status == 200 and len(kv.entries("kvanta-call")) == 1


def test_a_call_by_cards_and_a_flux_call_that_misses_is_refused(app, kv):
    kv.tricks(app, 4, 5, 5, 6)  # target 14; Ana rolls a 6
    kv.exchange("Ana")
    answer = kv.tap("call", seat=0)
    assert "Flux call by Ana" in answer.html
    kv.cards({"Ana": ["10H", "3H", "AD", "KS", "QS", "JC", "2S"]})  # 10+3+1-2 = 12
    answer = kv.sums({"Bojan": 9, "Ceca": 30})
    assert "Flux call is made only when" in answer.error
    before = kv.snapshot()
    assert answer.taps("settle") == []  # no settle button under a refusal
    refused = kv.tap("settle")
    assert refused.status == 422 and "Flux call" in refused.error
    assert kv.snapshot() == before
    # the right cards: 2♠ out, J♦ in — Bull's Eyes on a Flux call
    kv.tap("uncard", seat=0, card="2S")
    answer = kv.cards({"Ana": ["JD"]})
    assert "bulls-eyes" in answer.verdicts()
    kv.tap("settle")
    (entry,) = kv.entries("kvanta-call")
    assert entry.request["flux"] is True and entry.result["bulls_eyes"]
    assert entry.request["hands"]["Ana"] == ["10H", "3H", "AD", "KS", "QS", "JC", "JD"]


def to_the_call(app, kv) -> Answer:
    """Round 1 up to the call's sums: K♥ turned, target 14, no Hand, Ana wins the
    first trick and calls; Ana 14, Bojan 4, Ceca 10."""
    kv.tricks(app, 4, 5, 5, 2, turned="KH")
    kv.exchange("Ana")
    kv.tap("call", seat=0)
    return kv.sums({"Ana": 14, "Bojan": 4, "Ceca": 10})


POKER_HANDS = {
    "Ana": ["2S", "3S", "4S", "9H", "JD"],
    "Bojan": ["AS", "AH", "AD", "2C", "3C"],
    "Ceca": ["KS", "KH", "4D", "5D", "9C"],
}


def test_a_settle_made_on_a_screen_another_phone_changed_counts_that_change(app, kv):
    """A settle tap is added to the round inside the write, after every tap stored
    before it: another phone's change just before it is never left out (nor closed
    away with the round); the phone is told its tap went onto the round as it stands."""
    answer = to_the_call(app, kv)
    kv.tap("sum", seat=2, sum=12)  # the other phone corrects Ceca's sum
    late = kv.tap("settle", at=answer)
    assert late.status == 200
    (entry,) = kv.entries("kvanta-call")
    assert entry.request["sums"] == {"Ana": 14, "Bojan": 4, "Ceca": 12}
    stale = kv.tap("card", seat=1, card="2C", at=answer)  # from the screen before the call
    assert "Another phone changed this deal meanwhile" in stale.html


def test_poker_prize_with_a_king_uses_the_totals_after_the_call(app, kv):
    to_the_call(app, kv)
    kv.tap("settle")
    after_call = kv.totals()
    assert after_call == {"Ana": 24, "Bojan": -10, "Ceca": -4}
    answer = kv.cards(POKER_HANDS)
    expected = api.evaluate(
        "kvanta-poker", {"prize_card": "KH", "hands": POKER_HANDS, "totals": after_call}
    )
    assert expected["winner"] == "Bojan" and expected["prize"] == 34
    assert "Bojan wins the poker prize: 34." in answer.html
    assert answer.points("kv-poker") == expected["points"]
    assert 'data-prize="king"' in answer.html  # the prize's working is shown
    saved = kv.tap("settle")
    (entry,) = kv.entries("kvanta-poker")
    assert entry.request["totals"] == after_call and entry.round == 1
    assert kv.totals()["Bojan"] == after_call["Ana"]  # drawn level with the leader
    # the round is complete: the draft is closed and round 2 begins, dealt by Bojan
    assert kv.draft() is None
    assert saved.round == "2" and "Bojan deals" in saved.html
    # the closing tap sent again (its answer was lost): stored once, the table as it stands
    again = kv.tap("settle", tap_id=kv.last_id)
    assert again.status == 200 and "Already saved." in again.html and again.round == "2"
    assert len(kv.entries("kvanta-poker")) == 1 and kv.draft() is None


def test_seven_cards_for_poker_keep_the_best_five(app, kv):
    kv.tricks(app, 4, 5, 5, 1)
    kv.exchange("Ana")
    kv.tap("call", seat=0)
    kv.sums({"Ana": 14, "Bojan": 4, "Ceca": 10})
    kv.tap("settle")
    hands = {
        "Ana": ["2S", "3S", "4S", "5S", "6S", "KD", "KC"],
        "Bojan": ["AS", "AH", "AD", "AC", "3C", "9D", "9H"],
        "Ceca": ["KS", "KH", "4D", "5D", "9C", "10C"],
    }
    kv.cards(hands)
    refused = kv.tap("settle")  # six cards are neither 5 nor 7
    assert refused.status == 422 and "Ceca" in refused.error and kv.entries("kvanta-poker") == []
    answer = kv.cards({"Ceca": ["JC"]})
    assert "Straight flush" in answer.html
    assert "Ana wins the poker prize: 7." in answer.html


# ---------------------------------------------------------------- the end of the game


def test_end_a_not_everyone_gets_seven(kv):
    kv.dealt(turned=None)
    answer = kv.tap("end", case="stop")
    (end,) = kv.entries("game-end")
    assert end.round == 1
    assert answer.phase == "over" and "finished" in answer.html
    assert kv.draft() is None


def test_once_the_game_is_over_the_poll_sends_no_score_pad_round(kv):
    """The table page of a finished game has no score pad, so the poll must not send
    the pad's round out of band: htmx found no ``#pad-round`` to put it in and logged
    ``htmx:oobErrorNoTarget`` on every phone at the end of a Kvanta game (#24)."""
    live = kv.client.get(kv.url + "/live?v=0").get_data(as_text=True)
    assert 'id="pad-round" hx-swap-oob="true"' in live  # a game under way: the pad is there
    kv.dealt(turned=None)
    answer = kv.tap("end", case="stop")
    assert answer.phase == "over" and 'id="pad"' not in kv.page().html
    live = kv.client.get(kv.url + "/live?v=0").get_data(as_text=True)
    assert "finished" in live and 'id="pad-round"' not in live


def test_a_tap_from_a_screen_shown_before_the_game_ended_is_told_why(kv):
    """A phone still showing the round taps after another phone ended the game: the
    answer says the game is over as an alert (a screen reader announces why the tap
    did nothing), and nothing is stored."""
    kv.dealt(turned=None)
    shown = kv.page()
    kv.tap("end", case="stop")
    entries = kv.entries()
    answer = kv.tap("turn", at=shown, seat=0, card="3H")
    assert answer.status == 409
    assert re.search(r'role="alert">The game is over\.', answer.html), answer.html
    assert kv.entries() == entries


def test_end_b_everyone_got_seven_final_poker(kv):
    kv.dealt(turned=None)
    answer = kv.tap("end", case="poker")
    assert answer.phase == "final-poker"
    assert "The prize card" in answer.html  # the prize card's picker has its heading
    answer = kv.cards(POKER_HANDS)
    assert "Enter the prize card first" in answer.html and kv.entries("kvanta-poker") == []
    answer = kv.tap("turn", seat=0, card="9D")
    assert "Bojan wins the poker prize: 9." in answer.html
    answer = kv.tap("settle")
    assert [e.kind for e in kv.entries()] == ["kvanta-dealer", "kvanta-poker", "game-end"]
    assert kv.totals()["Bojan"] == 9 and answer.phase == "over"
    assert "Bojan wins with 9 (K-D7)." in answer.html


def test_end_c_while_drawing_final_comparison_without_caller(app, kv):
    kv.tricks(app, 4, 5, 5)
    assert kv.tap("end", case="stop").status == 422  # not while drawing
    answer = kv.tap("end", case="compare")
    assert answer.phase == "final-compare" and "K-D6" in answer.html
    answer = kv.sums({"Ana": 14, "Bojan": 21, "Ceca": 10})
    expected = api.evaluate(
        "kvanta-call",
        {"target": 14, "caller": None, "sums": {"Ana": 14, "Bojan": 21, "Ceca": 10}},
    )
    assert answer.points("kv-call") == expected["points"]
    kv.tap("settle")
    call = kv.entries("kvanta-call")[0]
    assert call.request["caller"] is None and "flux" not in call.request
    assert [e.kind for e in kv.entries()][-1] == "game-end"
    assert kv.totals() == expected["points"]


# ---------------------------------------------------------------- drafts, undo, abandon


def test_the_round_survives_a_reload_and_another_phone_sees_it(app, kv):
    kv.rolled(app, 4, 5, 5)
    kv.tap("sum", seat=0, sum=1)
    second_phone = app.test_client()
    seen = Answer(second_phone.get(kv.url))
    assert seen.phase == "hand"
    assert seen.seat("Ana") == "1"
    # the second phone types the next digit; the first phone's reload shows it
    kv.tap("sum", seat=0, sum=14, at=seen)
    assert kv.page().seat("Ana") == "14"
    # the poll carries the panel to the other phones out of band
    live = second_phone.get(kv.url + "/live?v=0").get_data(as_text=True)
    assert re.search(r'id="kv-panel"[^>]*hx-swap-oob="true"', live, flags=re.S)
    assert 'class="kv-seat-value">14<' in live


def test_a_retried_card_tap_adds_one_copy_and_a_new_tap_another(app, kv):
    kv.tricks(app, 4, 5, 5, 2)
    kv.exchange("Ana")
    kv.tap("call", seat=0)
    page = kv.page()
    first = kv.tap("card", seat=0, card="7H", at=page, tap_id="c-1")
    retry = kv.tap("card", seat=0, card="7H", at=page, tap_id="c-1")
    assert first.status == retry.status == 200
    assert [t["card"] for t in kv.draft()["taps"] if t["action"] == "card"] == ["7H"]
    kv.tap("card", seat=0, card="7H", tap_id="c-2")  # three decks: a second copy
    seat = re.search(r'kv-seat[^"]*" data-player="Ana">.*?</li>', kv.page().html, flags=re.S).group(
        0
    )
    assert seat.count("7♥") == 2


def test_undo_a_step_from_the_history_brings_it_back(app, kv):
    kv.tricks(app, 4, 5, 5, 2)
    kv.exchange("Ana")
    kv.tap("call", seat=0)
    kv.sums({"Ana": 14, "Bojan": 4, "Ceca": 10})
    kv.tap("settle")
    (call,) = kv.entries("kvanta-call")
    assert kv.page().phase == "poker"
    undone = kv.client.post(
        f"{kv.url}/entries/{call.id}/undo",
        data={"submission_id": "undo-1"},
        headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
    )
    assert undone.status_code == 200
    page = kv.page()
    assert page.phase == "call"  # the sums are still there
    assert page.seat("Ana") == "14"
    # redone in the history, the call is settled on the screen again
    redone = kv.client.post(
        f"{kv.url}/entries/{call.id}/redo",
        data={"submission_id": "redo-1"},
        headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
    )
    assert redone.status_code == 200 and kv.page().phase == "poker"
    kv.client.post(
        f"{kv.url}/entries/{call.id}/undo",
        data={"submission_id": "undo-2"},
        headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
    )
    kv.tap("settle", at=kv.page())
    assert len(kv.entries("kvanta-call")) == 1 and kv.totals()["Ana"] == 24


def history_notice(kv, action: str, entry_id: int, submission_id: str) -> str:
    """The notice the board answers an undo or redo in the history with."""
    response = history_action(kv, action, entry_id, submission_id)
    assert response.status_code == 200
    found = re.findall(r'class="flash ok">([^<]+)<', response.get_data(as_text=True))
    return " ".join(found)


def test_a_step_undone_in_the_history_is_named_while_the_rest_of_its_round_stays(app, kv):
    """A Kvanta round is several rows: undoing its newest one (the poker prize) leaves
    the others, so the notice names the step, by its name in the history, and not the
    round as if it were gone. The round's last row undone is the round undone."""
    to_the_call(app, kv)
    kv.tap("settle")
    kv.cards(POKER_HANDS)
    kv.tap("settle")
    (call,) = kv.entries("kvanta-call")
    (poker,) = kv.entries("kvanta-poker")
    assert call.round == poker.round == 1
    assert history_notice(kv, "undo", poker.id, "undo-poker") == "Round 1: Poker prize undone."
    assert [e.kind for e in kv.entries() if e.round == 1] == ["kvanta-call"]
    assert history_notice(kv, "redo", poker.id, "redo-poker") == "Round 1: Poker prize restored."
    assert history_notice(kv, "undo", poker.id, "undo-poker-2") == "Round 1: Poker prize undone."
    # the call, now the round's only row, is the round
    assert history_notice(kv, "undo", call.id, "undo-call") == "Round 1 undone."
    assert history_notice(kv, "redo", call.id, "redo-call") == "Round 1 restored."
    # the dealer draw is the game's set-up, no round of its own
    (draw,) = kv.entries("kvanta-dealer")
    assert draw.round == 0
    assert history_notice(kv, "undo", draw.id, "undo-draw") == "Set-up: Dealer draw undone."
    assert history_notice(kv, "redo", draw.id, "redo-draw") == "Set-up: Dealer draw restored."
    # in another language, the step as the history names it there
    polish = kv.client.post(
        f"{kv.url}/entries/{poker.id}/redo?lang=pl",
        data={"submission_id": "redo-poker-pl"},
        headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
    ).get_data(as_text=True)
    assert "Runda 1: Nagroda pokerowa — przywrócone." in polish


def test_a_step_undone_in_the_history_reopens_the_round_in_the_same_write(app, kv):
    """The history's undo of the call and the round's log taking its settle back are one
    write (one version): nothing half done, and the page drawn next writes nothing."""
    to_the_call(app, kv)
    kv.tap("settle")
    settle = kv.last_id
    (call,) = kv.entries("kvanta-call")
    key = kv.url.rsplit("/", 1)[-1]
    before = kv.store.version_by_key(key)
    undone = kv.client.post(
        f"{kv.url}/entries/{call.id}/undo",
        data={"submission_id": "undo-in-one"},
        headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
    )
    assert undone.status_code == 200
    assert kv.store.version_by_key(key) == before + 1
    assert settle not in [t["id"] for t in kv.draft()["taps"]]
    assert settle in [t["id"] for t in kv.draft()["undone"]]
    assert kv.page().phase == "call" and kv.store.version_by_key(key) == before + 1


def test_undo_and_redo_on_the_screen_take_a_step_back_and_put_it_back(app, kv):
    to_the_call(app, kv)
    kv.tap("settle")
    settle = kv.last_id
    (call,) = kv.entries("kvanta-call")
    undone = kv.post("undo", tap_id=settle)
    assert undone.status == 200 and kv.entries("kvanta-call") == []
    assert kv.totals() == {"Ana": 0, "Bojan": 0, "Ceca": 0} and kv.page().phase == "call"
    assert kv.post("undo", tap_id=settle).status == 200  # retried: nothing more undone
    assert kv.page().seat("Ceca") == "10"
    redone = kv.post("redo", tap_id=settle)
    assert redone.status == 200 and [e.id for e in kv.entries("kvanta-call")] == [call.id]
    assert kv.totals() == call.result["points"]
    assert kv.page().phase == "poker"


def test_abandon_drops_the_round_and_keeps_the_entries(app, kv):
    kv.tricks(app, 4, 5, 5, 6)
    kv.exchange("Bojan")
    answer = kv.post("discard", v=kv.page().v)
    assert kv.draft() is None
    assert [e.kind for e in kv.entries()] == ["kvanta-dealer", "kvanta-flux"]
    assert kv.totals()["Bojan"] == 5
    assert answer.phase == "turn" and answer.round == "2"
    assert "Earlier dice at this table (2)" in answer.html  # every roll stays listed


def test_k_d9_the_burned_cards_are_asked_once_per_game(app, kv):
    """K-D9: the first dealer burns the cards once; later rounds deal from the rest of
    the pack, so their set-up asks only for the turned card."""
    assert 'class="choices kv-burn"' in kv.drawn().html  # round 1: burned cards asked
    answer = kv.first_round_played(app)
    assert answer.phase == "turn" and answer.round == "2"
    assert 'class="choices kv-burn"' not in answer.html
    assert "kv-burned-once" in answer.html
    assert re.search(r'data-fact="burn"><small>Burned</small> <strong>3</strong>', answer.html)
    refused = kv.tap("burn", seat=1, count=4)
    assert refused.status == 422 and "No burn tap now" in refused.error
    assert kv.store.draft(kv.table.id, deal.GAME_DRAFT)[0] == {"burn": 3}
    # the turned card alone lets the target be rolled (Bojan deals, Ceca rolls)
    app.config["DICE_RNG"] = Scripted(2, 3, 4)
    answer = kv.tap("turn", seat=1, card="9S")
    assert answer.phase == "target"
    answer = kv.roll(seat=2, at=answer)
    assert answer.phase == "hand" and answer.attr("data-target") == "9"


def test_k_d10_the_turned_card_counts_toward_three_copies_in_every_showing(app, kv):
    """K-D10: with 7♥ turned, only two more 7♥ can be entered in the round's hands."""
    kv.tricks(app, 4, 5, 5, 2)  # 7♥ turned
    kv.exchange("Ana")
    kv.tap("call", seat=0)
    shown = kv.cards({"Ana": ["7H", "7H"]})
    refused = kv.tap("card", seat=1, card="7H")
    assert refused.status == 422 and "All three 7♥ are already shown or turned." in refused.error
    assert not [t for t in kv.draft()["taps"] if t["action"] == "card" and t["seat"] == 1]
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
    for name, code in zip(NAMES, ("KH", "KH", "10S"), strict=True):
        answer = kv.tap("play", seat=SEAT[name], card=code)
    assert "Ceca wins the trick." in answer.html and "Cancelled out" in answer.html
    assert [e.kind for e in kv.entries()] == ["kvanta-dealer"]
    answer = kv.tap("trick-winner", seat=2)
    assert "Ceca rolls the exchange die." in answer.html


def test_an_older_screens_round_is_converted_into_a_tap_log(app, kv):
    """A round the older screen was entering (a draft of its phase and typed seats, the
    dealer draw saved, the target rolled) goes on where it stood."""
    kv.drawn()
    kv.post("discard", v=kv.page().v)
    since = kv.store.last_roll_id(kv.table.id)
    kv.store.add_roll(kv.table.id, 1, deal.TARGET_ROLL, [4, 5, 5], {"target": 14})
    old = {"round": 1, "since_roll": since, "phase": "hand", "burn": 3, "trump": "7H",
           "slots": {"hand": {"sums": {"Ana": "14"}, "mode": {}, "cards": {}}}}  # fmt: skip
    kv.store.save_draft(kv.table.id, deal.DRAFT, old)
    page = kv.page()
    assert page.phase == "hand" and page.attr("data-target") == "14"
    assert re.search(r'data-fact="burn"><small>Burned</small> <strong>3</strong>', page.html)
    answer = kv.sums({"Ana": 14, "Bojan": 3, "Ceca": 2})
    assert "hand" in answer.verdicts()
    kv.tap("settle")
    assert [e.kind for e in kv.entries()] == ["kvanta-dealer", "kvanta-hand"]


# ---------------------------------------------------------------- refusals and access


def test_bad_input_is_refused_with_a_message_and_stores_nothing(app, kv):
    kv.tricks(app, 4, 5, 5, 2)
    kv.exchange("Ana")
    kv.tap("call", seat=0)
    before = kv.snapshot()
    page = kv.page()
    bad = [
        ({"action": "card", "seat": 0, "card": "RJ"}, "not a card"),
        ({"action": "card", "seat": 7, "card": "2C"}, "Name the seat"),
        ({"action": "sum", "seat": 0, "sum": 99}, "from −70 to 70"),
        ({"action": "burn", "seat": 0, "count": 4}, "No burn tap now"),
        ({"action": "settle"}, "Enter every player"),
        ({"action": "fly"}, "no tap called"),
    ]
    for tap, message in bad:
        answer = kv.tap(tap.pop("action"), at=page, **tap)
        assert 400 <= answer.status < 500, (tap, answer.status)
        assert message in answer.error, (tap, answer.error)
        assert kv.snapshot() == before, tap
    rolled = kv.roll(seat=1, at=page)
    assert rolled.status == 422 and "No roll tap now" in rolled.error
    no_id = kv.post("tap", tap='{"action": "settle"}', v=page.v, round=page.round)
    assert no_id.status == 422 and "without its id" in no_id.error
    garbled = kv.post("tap", tap="{", tap_id="g", v=page.v, round=page.round)
    assert garbled.status == 422 and "not something this screen can do" in garbled.error
    assert kv.snapshot() == before


def test_the_watch_link_shows_the_round_and_refuses_every_write(app, kv, client, store):
    kv.tricks(app, 4, 5, 5)
    watch = f"/t/{kv.table.watch_key}"
    page = Answer(client.get(watch))
    assert page.phase == "tricks" and page.attr("data-target") == "14"
    panel = page.html.split('id="kv-panel"', 1)[1].split("</section>", 1)[0]
    assert "hx-post" not in panel and "<button" not in panel
    before = kv.snapshot()
    for route in ("tap", "roll", "undo", "redo", "discard", "edit/1", "back", "save"):
        response = client.post(
            f"{watch}/kvanta/{route}",
            data={"tap": '{"action": "no-hand"}', "tap_id": "w", "v": "1", "round": "1"},
            headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
        )
        assert response.status_code == 403, route
    assert kv.snapshot() == before


def test_other_games_have_no_kvanta_screen(client, new_table, parsed):
    url, page = new_table("szaman", NAMES)
    response = client.post(
        url + "/kvanta/tap",
        data={"tap": '{"action": "no-hand"}', "tap_id": "x", "v": "0", "round": "1"},
        headers={"HX-Request": "true", "X-CSRFToken": page.csrf},
    )
    assert response.status_code == 404


def test_a_plain_form_post_redirects_to_the_table(kv):
    answer = kv.client.post(
        f"{kv.url}/kvanta/tap",
        data={
            "csrf_token": kv.csrf,
            "tap": '{"action": "draw", "seat": 0, "card": "2C"}',
            "tap_id": "plain-1",
            "v": "0",
            "round": "1",
        },  # fmt: skip
    )
    assert answer.status_code == 303
    assert answer.headers["Location"].endswith("/t/" + kv.table.scorer_key)
    assert "2♣" in kv.page().html


def test_a_rename_mid_round_keeps_what_was_typed_for_that_player(app, kv):
    kv.tricks(app, 4, 5, 5, 3)  # target 14, Ceca rolls a 3
    kv.exchange("Ceca")
    kv.tap("call", seat=2)
    kv.sums({"Ana": 13, "Bojan": 20, "Ceca": 11})
    ceca = next(p for p in kv.store.players(kv.table.id) if p.name == "Ceca")
    renamed = kv.client.post(
        f"{kv.url}/players/{ceca.id}/name",
        data={"name": "Cveta"},
        headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
    )
    assert renamed.status_code == 200
    expected = api.evaluate(
        "kvanta-call",
        {"target": 14, "caller": "Cveta", "sums": {"Ana": 13, "Bojan": 20, "Cveta": 11}},
    )
    answer = kv.page()
    assert "Call by Cveta" in answer.html
    assert answer.points("kv-call") == expected["points"]  # nothing to type again
    saved = kv.tap("settle")
    assert saved.status == 200, saved.error
    (entry,) = kv.entries("kvanta-call")
    assert entry.request["caller"] == "Cveta" and entry.request["sums"]["Cveta"] == 11


# ---------------------------------------------------------------- Edit of a saved round


EDIT_HANDS = {**POKER_HANDS, "Bojan": ["AS", "AH", "2D", "2C", "3C"]}


def played_round(app, kv) -> dict:
    """Round 1 played to its end: the call (Ana 24, Bojan −10, Ceca −4), then the poker
    (Bojan's two pairs win a K prize of 34). The round's entries by kind."""
    to_the_call(app, kv)
    kv.tap("settle")
    kv.cards(EDIT_HANDS)
    kv.tap("settle")
    assert kv.draft() is None  # closed: round 2 has not begun
    return {e.kind: e for e in kv.entries()}


def history_action(kv, action: str, entry_id: int, sid: str):
    return kv.client.post(
        f"{kv.url}/entries/{entry_id}/{action}",
        data={"submission_id": sid},
        headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
    )


def edit_links(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'action="[^"]*/kvanta/edit/(\d+)"', html)]


VIEW_KEY = re.compile(r'class="kv-entry" data-view-key="([^"]+)"')


def test_a_reopened_round_keys_its_seat_editor_apart_from_the_round_as_played(app, kv):
    """A phone keeps whose cards it enters under the editor's key: the round reopened by
    Edit is a deal of its own, so the player a phone chose while the round was played
    does not come back with it."""
    to_the_call(app, kv)
    kv.tap("settle")
    played = VIEW_KEY.findall(kv.page().html)
    kv.cards(EDIT_HANDS)
    kv.tap("settle")
    old = {e.kind: e for e in kv.entries()}
    kv.client.post(
        f"{kv.url}/kvanta/edit/{old['kvanta-poker'].id}",
        headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
    )
    kv.post("undo", tap_id=kv.draft()["taps"][-1]["id"])  # the poker's editor again
    reopened = VIEW_KEY.findall(kv.page().html)
    assert len(played) == len(reopened) == 1
    assert reopened != played


def test_edit_of_a_saved_round_changes_one_card_and_supersedes_the_whole_round(app, kv):
    """#20: Edit in the history reopens the round's tap log with every card as it was;
    one card changed and saved, the round's new entries supersede all the old ones
    (the dealer draw, the call and the poker), and the history keeps both."""
    old = played_round(app, kv)
    before = kv.totals()
    assert before == {"Ana": 24, "Bojan": 24, "Ceca": -4}
    assert edit_links(kv.page().html) == [old["kvanta-poker"].id]  # one Edit: the round's
    saved_taps = kv.store.entry_taps(old["kvanta-poker"].id)
    answer = Answer(
        kv.client.post(
            f"{kv.url}/kvanta/edit/{old['kvanta-poker'].id}",
            headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
        )
    )
    assert answer.status == 200 and "Round 1 is open again" in answer.html
    draft = kv.draft()
    assert draft["taps"] == saved_taps and draft["context"]["supersedes"] == old["kvanta-poker"].id
    page = kv.page()
    assert page.phase == "done" and "Changing round 1" in page.html
    assert "Save the changed deal" in page.html and "Abandon round" not in page.html
    assert [r["id"] for r in page.rolls()] == [r["id"] for r in kv.rolls()]  # its own dice
    # the poker again: Bojan's A♥ was a 7♥
    kv.post("undo", tap_id=draft["taps"][-1]["id"])
    kv.tap("uncard", seat=1, card="AH")
    answer = kv.cards({"Bojan": ["7H"]})
    assert kv.totals() == before  # nothing counts before it is saved
    assert "Ceca wins the poker prize" in answer.html
    kv.tap("settle")
    assert kv.entries("kvanta-poker") == [old["kvanta-poker"]]  # an edit stores no step
    page = kv.page()
    saved = kv.post("save", v=page.v, round=page.round, submission_id="kvc-edit-1")
    assert saved.status == 200 and "Round 1 changed." in saved.html
    assert kv.draft() is None
    new = {e.kind: e for e in kv.entries()}
    assert set(new) == {"kvanta-dealer", "kvanta-call", "kvanta-poker"}
    assert all(new[k].id != old[k].id for k in new)
    # the dealer draw stays the game's set-up, before round 1 (K: SETUP_ROUND)
    assert [new[k].round for k in ("kvanta-dealer", "kvanta-call", "kvanta-poker")] == [0, 1, 1]
    history = kv.page().html
    assert "Set-up" in history and history.count("Round 1</span>") >= 2
    assert {
        e.id: e.state for e in kv.entries(live=False) if e.id in {o.id for o in old.values()}
    } == {o.id: "superseded" for o in old.values()}
    expected = api.evaluate("kvanta-poker", new["kvanta-poker"].request)
    assert new["kvanta-poker"].request["hands"]["Bojan"] == ["AS", "2D", "2C", "3C", "7H"]
    assert expected["winner"] == "Ceca" and kv.totals() == {"Ana": 24, "Bojan": -10, "Ceca": 24}
    assert kv.totals()["Ana"] == 24 and new["kvanta-call"].request == old["kvanta-call"].request
    # the retried save is stored once; the edited round can be edited again
    again = kv.post("save", v=page.v, round=page.round, submission_id="kvc-edit-1")
    assert again.status == 200 and "Already saved." in again.html
    assert len(kv.entries()) == 3
    assert edit_links(kv.page().html) == [new["kvanta-call"].id]


def edited_round(kv, old: dict, sid: str) -> dict:
    """The saved round 1 edited (Bojan's A♥ was a 7♥) and saved: its new entries by kind."""
    kv.client.post(
        f"{kv.url}/kvanta/edit/{old['kvanta-poker'].id}",
        headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
    )
    kv.post("undo", tap_id=kv.draft()["taps"][-1]["id"])
    kv.tap("uncard", seat=1, card="AH")
    kv.cards({"Bojan": ["7H"]})
    kv.tap("settle")
    page = kv.page()
    kv.post("save", v=page.v, round=page.round, submission_id=sid)
    return {e.kind: e for e in kv.entries()}


def test_undo_of_an_edit_brings_the_old_round_back_whole_and_redo_the_edit(app, kv):
    old = played_round(app, kv)
    before = kv.totals()
    new_poker = edited_round(kv, old, "kvc-edit-2")["kvanta-poker"]
    edited = kv.totals()
    assert edited != before
    # the top row of the history is the edit's poker: undoing it undoes the edit
    assert (
        history_notice(kv, "undo", new_poker.id, "undo-edit")
        == "Round 1: the change undone; the round is as it was before."
    )
    assert kv.totals() == before
    assert sorted(e.id for e in kv.entries()) == sorted(e.id for e in old.values())
    assert kv.draft() is None  # nothing is left on the screen to enter again
    assert (
        history_notice(kv, "redo", new_poker.id, "redo-edit") == "Round 1: the change made again."
    )
    assert kv.totals() == edited and old["kvanta-poker"].id not in [e.id for e in kv.entries()]


def test_undo_of_an_edit_is_one_transaction_a_failure_midway_changes_nothing(app, kv, monkeypatch):
    """Nothing half undone: the edit's entries are undone together or not at all. A
    failure at the group's last entry (the one that supersedes) leaves every entry of
    the edit counting, not the tapped one undone and the rest still live."""
    old = played_round(app, kv)
    new = edited_round(kv, old, "kvc-edit-3")
    edited = kv.totals()
    live = sorted(e.id for e in kv.entries())
    first = new["kvanta-call"].id  # the entry that supersedes the old round
    real_event = type(kv.store)._event

    def failing_event(self, entry_id, event, by_entry=None):
        if entry_id == first and event == "voided":
            raise RuntimeError("the disk failed")
        return real_event(self, entry_id, event, by_entry)

    monkeypatch.setattr(type(kv.store), "_event", failing_event)
    assert history_action(kv, "undo", new["kvanta-poker"].id, "undo-edit-3").status_code == 500
    assert kv.totals() == edited and sorted(e.id for e in kv.entries()) == live
    monkeypatch.undo()
    assert history_action(kv, "undo", new["kvanta-poker"].id, "undo-edit-3").status_code == 200
    assert sorted(e.id for e in kv.entries()) == sorted(e.id for e in old.values())


def test_undo_of_the_entry_that_closed_a_round_reopens_it_before_its_last_tap(app, kv):
    """Undo of a round never leaves an empty draft behind: the poker's undo brings the
    round back at its poker, every card there; saved again, it takes its round back."""
    old = played_round(app, kv)
    poker = old["kvanta-poker"]
    assert history_action(kv, "undo", poker.id, "undo-poker").status_code == 200
    page = kv.page()
    assert page.phase == "poker" and page.round == "1"
    assert "9♥" in page.html and "2♦" in page.html and "7/7" not in page.html
    assert kv.totals() == {"Ana": 24, "Bojan": -10, "Ceca": -4}
    # redone in the history: the round is closed again, the draft gone
    assert history_action(kv, "redo", poker.id, "redo-poker").status_code == 200
    assert kv.page().round == "2" and kv.draft() is None
    assert kv.totals()["Bojan"] == 24
    # undone again and settled anew on the screen: the new poker is round 1's
    history_action(kv, "undo", poker.id, "undo-poker-2")
    kv.tap("uncard", seat=0, card="JD", at=kv.page())
    kv.cards({"Ana": ["5S"]})
    saved = kv.tap("settle")
    assert saved.round == "2" and kv.draft() is None
    (again,) = kv.entries("kvanta-poker")
    assert again.round == 1 and again.request["hands"]["Ana"][-1] == "5S"
    assert edit_links(kv.page().html) == [again.id]


def test_edit_is_refused_while_a_round_is_entered_and_kept_when_dropped(app, kv):
    old = played_round(app, kv)
    kv.tap("turn", seat=1, card="9S")  # round 2 begins
    refused = Answer(
        kv.client.post(
            f"{kv.url}/kvanta/edit/{old['kvanta-poker'].id}",
            headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
        )
    )
    assert refused.status == 409 and "A deal is being entered" in refused.html
    assert kv.draft()["context"]["round"] == 2
    kv.post("discard", v=kv.page().v)
    step = Answer(
        kv.client.post(
            f"{kv.url}/kvanta/edit/{old['kvanta-call'].id}",
            headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
        )
    )
    assert step.status == 409 and kv.draft() is None  # a step is not where a round reopens
    kv.client.post(
        f"{kv.url}/kvanta/edit/{old['kvanta-poker'].id}",
        headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
    )
    page = kv.page()
    before = kv.snapshot()[:3]
    dropped = kv.post("discard", v=page.v)
    assert dropped.status == 200 and kv.draft() is None
    assert kv.snapshot()[:3] == before and len(kv.entries()) == 3


# ---------------------------------------------------------------- #24: what the table sees


def standings_dealers(html: str) -> list[str]:
    part = html.split('id="standings"', 1)[1].split("</section>", 1)[0]
    return re.findall(r'<span class="who" title="([^"]+)">[^<]*<span class="badge dealer"', part)


def test_one_dealer_is_shown_while_a_round_is_played_and_none_after_the_end(app, kv):
    """#24: once a round had an entry, the standings named the next round's dealer
    while the round's header named this one; and the badge stayed after the end."""
    kv.rolled(app, 4, 5, 5)  # Ana deals round 1
    kv.sums({"Ana": 14, "Bojan": 3, "Ceca": 5})
    answer = kv.tap("settle")  # Ana's Hand: round 1 has an entry now
    assert answer.phase == "poker" and kv.entries("kvanta-hand")
    page = kv.page().html
    assert standings_dealers(page) == ["Ana"]
    assert re.search(r'class="badge dealer">Ana deals<', page)
    kv.cards({n: h for n, h in POKER_HANDS.items()})
    closed = kv.tap("settle")
    assert closed.round == "2" and standings_dealers(kv.page().html) == ["Bojan"]
    kv.tap("end", case="stop")
    page = kv.page().html
    assert "finished" in page and standings_dealers(page) == []
    assert 'class="badge dealer"' not in page


TURN_TAP, CARD_TAP = r"\"action\":\"turn\"", r"\"action\":\"card\""  # in hx-vals


def test_once_the_prize_card_is_chosen_its_picker_is_folded_away_from_the_hands(kv):
    """#24: in the final poker, a tap meant for a hand changed the prize card: its
    picker stood open above the hands'. Once chosen, it is folded (changing it is a
    deliberate tap), and the open pickers are the hands' alone."""
    kv.dealt(turned=None)
    answer = kv.tap("end", case="poker")
    panel = answer.html.split('class="kv-prize-head"', 1)[1]
    assert "kv-prize-change" not in panel.split("The hands", 1)[0]  # none chosen: open
    answer = kv.tap("turn", seat=0, card="9D")
    prize, hands = answer.html.split('class="kv-prize-head"', 1)[1].split("The hands", 1)
    folded = prize.split('<details class="kv-prize-change">', 1)[1].split("</details>", 1)[0]
    assert "Prize card 9♦" in folded and TURN_TAP in folded
    assert TURN_TAP not in hands and CARD_TAP in hands
    answer = kv.cards({"Ana": ["9D"]})  # the same card, for a hand: the prize stays
    assert kv.draft()["taps"][-1]["action"] == "card"
    assert re.search(
        r'data-fact="trump"><small>Prize card</small>\s*<strong><span class="kv-card suit-red">9♦',
        answer.html,
    )


def history_lines_of(html: str, entry_id: int) -> list[str]:
    """The lines of one row of the history, up to the next row."""
    part = html.split(f'data-entry="{entry_id}"', 1)[1].split('data-entry="', 1)[0]
    return [
        line.strip()
        for line in re.findall(r'<li class="words-whole" title="[^"]*">([^<]+)</li>', part)
    ]


def test_the_history_shows_every_roll_of_the_round_abandoned_ones_marked(app, kv):
    """#24: an abandoned round's roll hid in a folded list, unmarked, and the history
    showed no dice: each round in the history now lists its rolls, who asked for a roll
    again, and which rolls no longer count."""
    app.config["DICE_RNG"] = Scripted(1, 1, 1, 2, 2, 2, 4, 5, 5, 6)
    kv.dealt()
    kv.roll(seat=1)  # target 3 …
    kv.post("discard", v=kv.page().v)  # … and the round abandoned, before any entry
    kv.tap("burn", seat=0, count=3)
    kv.tap("turn", seat=0, card="7H")
    kv.roll(seat=1)  # target 6
    answer = kv.roll("reroll", seat=2, seen=1)  # Ceca asks for a roll again: 14
    assert answer.attr("data-target") == "14"
    kv.tap("no-hand")
    kv.exchange("Bojan")  # a 6: Flux, round 1's first entry
    (flux,) = kv.entries("kvanta-flux")
    assert history_lines_of(kv.page().html, flux.id)[-4:] == [
        "Target: 1 1 1, target 3 (virtual) — its round was abandoned",
        "Target: 2 2 2, target 6 (virtual) — rolled again",
        "Target again (asked by Ceca): 4 5 5, target 14 (virtual)",
        "Exchange die (Bojan): 6, Flux (virtual)",
    ]


def test_a_flux_row_lists_the_dice_of_its_own_time_not_those_rolled_after_it(app, kv):
    """A Flux is stored mid-round, the first row of its round, and the history listed
    every die of the round on it: trick 2's exchange die, rolled after the Flux, showed
    on the Flux's row. Each row lists the dice rolled up to it, and an earlier round's
    Flux row keeps its dice as later rounds roll others."""
    # round 1: target 4 5 5, Bojan's Flux, Ceca's 3; round 2: target 1 2 3, Ceca's Flux
    app.config["DICE_RNG"] = Scripted(4, 5, 5, 6, 3, 1, 2, 3, 6)
    kv.dealt()
    kv.roll(seat=1)
    kv.tap("no-hand")
    kv.exchange("Bojan")
    (first_flux,) = kv.entries("kvanta-flux")
    own_dice = [
        "Target: 4 5 5, target 14 (virtual)",
        "Exchange die (Bojan): 6, Flux (virtual)",
    ]
    assert history_lines_of(kv.page().html, first_flux.id)[1:] == own_dice
    kv.tap("next-trick", seat=1)
    kv.exchange("Ceca")  # rolled after the Flux: the panel lists it, the Flux's row not
    assert history_lines_of(kv.page().html, first_flux.id)[1:] == own_dice
    kv.tap("call", seat=2)
    kv.sums({"Ana": 14, "Bojan": 4, "Ceca": 10})
    kv.tap("settle")
    (call,) = kv.entries("kvanta-call")
    assert (
        history_lines_of(kv.page().html, call.id)[-1]
        == "Exchange die (Ceca): 3, exchange 3 (virtual)"
    )
    kv.cards(POKER_HANDS)
    assert kv.tap("settle").round == "2"
    # a page of the history ending at the Flux: trick 2's die is the call's, on the
    # newer page, not one of a round left after the Flux
    older = kv.client.get(f"{kv.url}/history?before=1.{call.id}").get_data(as_text=True)
    assert f'data-entry="{call.id}"' not in older
    assert history_lines_of(older, first_flux.id)[1:] == own_dice

    kv.tap("turn", seat=1, card="8H")  # Bojan deals round 2, Ceca rolls
    kv.roll(seat=2)
    kv.tap("no-hand")
    kv.exchange("Ceca")
    (second_flux,) = [e for e in kv.entries("kvanta-flux") if e.round == 2]
    html = kv.page().html
    assert history_lines_of(html, first_flux.id)[1:] == own_dice
    assert history_lines_of(html, second_flux.id)[1:] == [
        "Target: 1 2 3, target 6 (virtual)",
        "Exchange die (Ceca): 6, Flux (virtual)",
    ]


def test_an_undone_flux_keeps_its_dice_when_its_round_is_dealt_again(app, kv):
    """The Flux undone and its round abandoned, the round is dealt again under the same
    number: the new deal's dice showed on the old Flux's row. The Flux's row keeps the
    first deal's dice (marked as its abandoned round's), the new deal's are on its own
    rows."""
    app.config["DICE_RNG"] = Scripted(4, 5, 5, 6, 1, 2, 3, 5)
    kv.dealt()
    kv.roll(seat=1)
    kv.tap("no-hand")
    kv.exchange("Bojan")
    (flux,) = kv.entries("kvanta-flux")
    assert history_action(kv, "undo", flux.id, "undo-flux").status_code == 200
    assert kv.post("discard", v=kv.page().v).round == "1"  # no live entry: round 1 again
    kv.tap("burn", seat=0, count=3)
    kv.tap("turn", seat=0, card="8H")
    kv.roll(seat=1)  # target 1 2 3
    kv.tap("no-hand")
    kv.exchange("Ceca")  # 5
    kv.tap("call", seat=2)
    kv.sums({"Ana": 6, "Bojan": 4, "Ceca": 10})
    kv.tap("settle")
    (call,) = kv.entries("kvanta-call")
    html = kv.page().html
    assert history_lines_of(html, flux.id)[1:] == [
        "Target: 4 5 5, target 14 (virtual) — its round was abandoned",
        "Exchange die (Bojan): 6, Flux (virtual) — its round was abandoned",
    ]
    assert history_lines_of(html, call.id)[-2:] == [
        "Target: 1 2 3, target 6 (virtual)",
        "Exchange die (Ceca): 5, exchange 5 (virtual)",
    ]


def test_dice_rolled_after_a_flux_in_a_round_abandoned_are_listed_on_its_row_marked(app, kv):
    """The rest of a round abandoned after its Flux: the dice rolled after the Flux have
    no later row of their round, so they are listed on the Flux's, as its abandoned
    round's."""
    app.config["DICE_RNG"] = Scripted(4, 5, 5, 6, 3)
    kv.dealt()
    kv.roll(seat=1)
    kv.tap("no-hand")
    kv.exchange("Bojan")
    kv.tap("next-trick", seat=1)
    kv.exchange("Ceca")
    (flux,) = kv.entries("kvanta-flux")
    assert kv.post("discard", v=kv.page().v).round == "2"
    assert history_lines_of(kv.page().html, flux.id)[1:] == [
        "Target: 4 5 5, target 14 (virtual)",
        "Exchange die (Bojan): 6, Flux (virtual)",
        "Exchange die (Ceca): 3, exchange 3 (virtual) — its round was abandoned",
    ]


def test_a_round_closed_without_its_taps_is_not_reopened_and_nothing_changes(app, kv):
    """A round closed before rounds kept their taps (or imported) has no log to reopen:
    Edit says so and stores nothing."""
    old = played_round(app, kv)
    poker = old["kvanta-poker"]
    kv.store.db.execute("UPDATE entries SET taps = NULL WHERE id = ?", [poker.id])
    before = kv.snapshot()
    refused = Answer(
        kv.client.post(
            f"{kv.url}/kvanta/edit/{poker.id}",
            headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
        )
    )
    assert refused.status == 409
    assert "Round 1 was saved without its taps, so it cannot be reopened." in refused.html
    assert kv.snapshot() == before and kv.draft() is None


def test_a_round_begun_before_rounds_kept_their_taps_closes_into_its_own_round(app, kv):
    """A round's draft from before (its context without ``reopened``) closes into its
    own round all the same, and keeps its log for Edit."""
    to_the_call(app, kv)
    kv.tap("settle")
    data, version = kv.store.draft(kv.table.id, deal.DRAFT)
    del data["context"]["reopened"]
    kv.store.save_draft(kv.table.id, deal.DRAFT, data, expected_version=version)
    kv.cards(EDIT_HANDS)
    assert kv.tap("settle").round == "2" and kv.draft() is None
    (poker,) = kv.entries("kvanta-poker")
    assert poker.round == 1 and kv.store.entry_taps(poker.id)[-1]["action"] == "settle"


def test_an_edit_goes_back_to_the_call_and_keeps_the_poker_that_followed(app, kv):
    """#20: "change the call" in an Edit: back at the call, one sum changed and settled
    again, the poker that followed comes back (every card as it was) and is scored
    anew from the new totals; saved, the round's new entries supersede the old ones."""
    old = played_round(app, kv)
    kv.client.post(
        f"{kv.url}/kvanta/edit/{old['kvanta-poker'].id}",
        headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
    )
    page = kv.page()
    (call_back,) = [
        json.loads(raw)
        for raw in re.findall(
            r"data-step=\"kvanta-call\"\s+hx-post=\"[^\"]+/back\" hx-swap=\"none\" hx-vals='([^']+)'",
            page.html,
        )
    ]
    stale = kv.post("back", v=str(int(page.v) - 1), round=page.round, tap_id=call_back["tap_id"])
    assert stale.status == 409 and kv.draft()["taps"][-1]["action"] == "settle"
    # the phone sends the version its panel shows along (data-deal-version)
    answer = kv.post("back", v=page.v, **{k: str(v) for k, v in call_back.items()})
    assert answer.status == 200 and answer.phase == "call"
    assert answer.seat("Ceca") == "10"
    kv.tap("sum", seat=2, sum=12)  # Ceca's sum was 12
    settled = kv.tap("settle")
    assert settled.status == 200 and kv.page().phase == "done"
    assert kv.entries("kvanta-call") == [old["kvanta-call"]]  # nothing stored yet
    page = kv.page()
    kv.post("save", v=page.v, round=page.round, submission_id="kvc-call-1")
    call = api.evaluate(
        "kvanta-call", {"target": 14, "caller": "Ana", "sums": {"Ana": 14, "Bojan": 4, "Ceca": 12}}
    )
    (new_call,) = kv.entries("kvanta-call")
    (new_poker,) = kv.entries("kvanta-poker")
    assert new_call.request["sums"]["Ceca"] == 12 and new_call.id != old["kvanta-call"].id
    assert new_poker.request["hands"] == EDIT_HANDS  # the poker came back as it was
    assert new_poker.request["totals"] == call["points"]
    poker = api.evaluate("kvanta-poker", new_poker.request)
    assert kv.totals() == {n: call["points"][n] + poker["points"][n] for n in NAMES}


def test_a_seats_part_kept_from_the_answer_before_follows_what_it_is_made_of(app, kv):
    """A seat's part (its keypad, cards and picker) is kept from one answer to the next
    while all it is made of stays: a digit typed, a card added, a card used up by the
    others, or another language draws it again; the seats not tapped stay as they were."""

    def part(answer: Answer, name: str) -> str:
        start = answer.html.index(f'data-editing="{name}"')
        return answer.html[start : answer.html.index('class="kv-editor"', start)]

    kv.tricks(app, 4, 5, 5, 3)
    kv.exchange("Ceca")
    kv.tap("call", seat=2)
    answer = kv.tap("sum", seat=0, sum=1)
    assert {"action": "sum", "seat": 0, "sum": 12} in answer.taps("sum")
    assert {"action": "sum", "seat": 1, "sum": 2} in answer.taps("sum")
    bojan = part(answer, "Bojan")
    answer = kv.tap("sum", seat=0, sum=12)
    assert {"action": "sum", "seat": 0, "sum": 123} in answer.taps("sum")
    assert {"action": "sum", "seat": 0, "sum": 12} not in answer.taps("sum")
    assert part(answer, "Bojan") == bojan.replace(f'"v": {int(answer.v) - 1}', f'"v": {answer.v}')
    answer = kv.cards({"Ana": ["2S"], "Bojan": ["2S"]})
    assert {"action": "uncard", "seat": 0, "card": "2S"} in answer.taps("uncard")
    assert "2♠ — 3 used" not in part(answer, "Ana")
    answer = kv.cards({"Ceca": ["2S"]})  # the third 2♠: used up for Ana too
    assert 'data-card="2S" disabled aria-label="2♠ — 3 used"' in part(answer, "Ana")
    kv.client.set_cookie("lang", "pl")
    answer = kv.tap("sum", seat=1, sum=4)
    assert 'data-card="2S" disabled aria-label="2♠ — 3 zużyte"' in part(answer, "Ana")


def test_the_rounds_facts_kept_from_the_answer_before_follow_the_round(app, kv):
    """The round's head (its steps, the burned cards, the turned card, the target) is
    kept from one answer to the next while the round's facts stay: each of them, set,
    draws it again."""

    def facts(answer: Answer) -> dict[str, str]:
        found = re.findall(r'data-fact="(\w+)">(.*?)</span>\s*(?=<span class="kv-fact|</div>)',
                           answer.html, flags=re.S)  # fmt: skip
        return {name: re.sub(r"<[^>]+>|\s+", " ", text).split(None, 1)[-1].strip()
                for name, text in found}  # fmt: skip

    def now(answer: Answer) -> str:
        return re.search(r'<li class="now" aria-current="step">([^<]+)</li>', answer.html).group(1)

    answer = kv.drawn()
    assert facts(answer)["burn"] == "—" and facts(answer)["target"] == "—"
    steps = [now(answer)]
    answer = kv.tap("burn", seat=0, count=3)
    assert facts(answer)["burn"] == "3" and facts(answer)["trump"] == "—"
    steps.append(now(answer))
    answer = kv.tap("turn", seat=0, card="7H")
    assert facts(answer)["trump"] == "7♥"
    steps.append(now(answer))
    app.config["DICE_RNG"] = Scripted(4, 5, 5, 1, 1, 2)
    answer = kv.roll(seat=1)
    assert facts(answer)["target"].endswith("14")
    assert steps[0] == steps[1] != steps[2]  # the round moved on to its target
    answer = kv.roll("reroll", at=answer, seat=2, seen=1)  # the same step, another target
    assert answer.phase == "hand" and facts(answer)["target"].endswith("4")
    assert not facts(answer)["target"].endswith("14")


def test_a_tap_of_a_later_round_and_a_dealer_draw_read_only_what_they_need(app, kv):
    """A round's taps read the draft, not the game's: its burned cards and how many dice
    were rolled before it come with the round (read as it begins), and a draw that
    scores no step yet looks up no entries of its own: only the table's lookup, under
    the write lock, reads with the draft the step's submission and the entries' count
    and last round (what storing the step would check), and whether an entry closed
    the draft (one probe of an index, ``closed_draft``)."""
    at = kv.tap("draw", seat=0, card="2C")  # (the next tap is sent from its answer)
    ran, answer = statements_of(app, lambda: kv.tap("draw", at=at, seat=1, card="9D"))
    assert answer.status == 200
    lookups = [sql for sql in ran if sql.startswith("SELECT tables.")]
    assert len(lookups) == 1 and ran.index(lookups[0]) == 1 and ran[0] == "BEGIN IMMEDIATE"
    probe = store.closed_draft("d")
    assert not [
        sql
        for sql in ran
        if (sql not in lookups and "FROM entries" in sql.replace(probe, ""))
        or deal.GAME_DRAFT in sql
    ], ran
    kv.tap("draw", seat=2, card="KS")
    kv.first_round_played(app)
    app.config["DICE_RNG"] = Scripted(2, 3, 4)
    kv.tap("turn", seat=1, card="9S")  # round 2 begins (Bojan deals, Ceca rolls)
    at = kv.roll(seat=2)
    ran, answer = statements_of(app, lambda: kv.tap("no-hand", at=at))
    assert answer.status == 200 and answer.phase == "tricks", answer.error
    assert not [sql for sql in ran if deal.GAME_DRAFT in sql or "COUNT(*) FROM rolls" in sql], ran
    # the burned cards and the dice of round 1, shown all the same
    assert "Earlier dice at this table (2)" in answer.html
    assert re.search(r'data-fact="burn"><small>Burned</small> <strong>3</strong>', answer.html)


def test_a_call_opened_on_another_phone_opens_at_the_first_seat_with_no_sum(app, kv):
    """A phone that has not chosen a seat opens the call's entry at the first seat still
    to enter: one whose sum another phone has typed counts as entered."""
    kv.tricks(app, 4, 5, 5, 2, turned="KH")
    kv.exchange("Ana")
    kv.tap("call", seat=0)
    default = re.compile(r'data-view-default="(\d+)"')
    assert default.search(kv.page().html).group(1) == "0"
    kv.sums({"Ana": 14})
    assert default.search(kv.page().html).group(1) == "1"
    kv.sums({"Bojan": 4, "Ceca": 10})  # every sum typed: the first seat again
    assert default.search(kv.page().html).group(1) == "0"


def live_dealer_draws(kv) -> list:
    return [e for e in kv.entries("kvanta-dealer") if e.round == deal.SETUP_ROUND]


def test_an_edit_saved_after_the_dealer_draw_was_drawn_again_keeps_one_dealer_draw(app, kv):
    """Round 1's dealer draw undone in the history, the game drew for the dealer again;
    then round 1 edited and saved: its own draw takes the set-up's place, so one dealer
    draw counts (K-D10: the game has one), not two."""
    old = played_round(app, kv)
    assert history_action(kv, "undo", old["kvanta-dealer"].id, "undo-draw").status_code == 200
    # the next deal begins with a draw, as no dealer draw counts
    for name, code in zip(NAMES, ("2C", "9D", "KS"), strict=True):
        assert kv.tap("draw", seat=SEAT[name], card=code).status == 200
    kv.post("discard", v=kv.page().v)
    (again,) = live_dealer_draws(kv)
    assert again.id != old["kvanta-dealer"].id
    edited_round(kv, old, "kvc-after-draw")
    assert len(live_dealer_draws(kv)) == 1
    assert again.id not in [e.id for e in live_dealer_draws(kv)]


def test_an_old_dealer_draw_redone_while_a_new_one_is_drawn_is_refused(app, kv):
    """Round 1's dealer draw undone, the next deal draws for its dealer: redoing the old
    draw meanwhile would leave the game two once the new one is complete, so the redo
    is refused, with why, and changes nothing."""
    old = played_round(app, kv)
    assert history_action(kv, "undo", old["kvanta-dealer"].id, "undo-draw").status_code == 200
    kv.tap("draw", seat=SEAT["Ana"], card="2C")
    kv.tap("draw", seat=SEAT["Bojan"], card="9D")
    before = kv.snapshot()
    response = history_action(kv, "redo", old["kvanta-dealer"].id, "redo-draw")
    assert response.status_code == 409
    said = html.unescape(response.get_data(as_text=True))
    assert "The deal being entered draws for its dealer" in said
    assert kv.snapshot() == before


def test_a_round_back_before_its_undone_dealer_draw_stays_there_page_after_page(app, kv):
    """Round 1's dealer draw undone in the history takes the round back before it; its
    poker undone too, the round's call still counts: showing the page again and again
    writes nothing, the round never brought back past the draw that no longer counts."""
    old = played_round(app, kv)
    assert history_action(kv, "undo", old["kvanta-dealer"].id, "undo-draw").status_code == 200
    assert history_action(kv, "undo", old["kvanta-poker"].id, "undo-poker").status_code == 200
    kv.page()
    before = (kv.table_version(), kv.store.draft(kv.table.id, deal.DRAFT))
    for _ in range(3):
        kv.page()
        assert (kv.table_version(), kv.store.draft(kv.table.id, deal.DRAFT)) == before
    assert all(t["action"] != "settle" for t in before[1][0]["taps"])


def test_an_edit_saved_after_its_dealer_draw_was_redone_keeps_one_dealer_draw(app, kv):
    """Round 1's dealer draw undone, round 1 opened by Edit, the draw redone in the
    history meanwhile: the edit saved supersedes the draw counting then, so one dealer
    draw counts (the edit's own)."""
    old = played_round(app, kv)
    assert history_action(kv, "undo", old["kvanta-dealer"].id, "undo-draw").status_code == 200
    kv.client.post(
        f"{kv.url}/kvanta/edit/{old['kvanta-poker'].id}",
        headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
    )
    assert history_action(kv, "redo", old["kvanta-dealer"].id, "redo-draw").status_code == 200
    page = kv.page()
    kv.post("save", v=page.v, round=page.round, submission_id="kvc-after-redo")
    (draw,) = live_dealer_draws(kv)
    assert draw.id != old["kvanta-dealer"].id


def test_an_edit_saved_after_a_step_of_its_round_was_redone_counts_the_step_once(app, kv):
    """Round 1's call undone in the history, round 1 opened by Edit, the call redone
    meanwhile: the edit saved supersedes it as well, so the round counts one call."""
    old = played_round(app, kv)
    call = old["kvanta-call"]
    assert history_action(kv, "undo", call.id, "undo-call").status_code == 200
    kv.client.post(
        f"{kv.url}/kvanta/edit/{old['kvanta-poker'].id}",
        headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
    )
    assert history_action(kv, "redo", call.id, "redo-call").status_code == 200
    page = kv.page()
    kv.post("save", v=page.v, round=page.round, submission_id="kvc-after-step-redo")
    calls = [e for e in kv.entries("kvanta-call") if e.round == 1]
    assert len(calls) == 1 and calls[0].id != call.id


def test_an_edit_saved_over_a_round_of_two_versions_counts_each_step_once(app, kv):
    """Round 1 played (call A, poker A), its poker and call undone and played again (call
    B, poker B); poker B undone and poker A redone, so the round counts call B beside
    poker A. Edit of poker A saved: the edit is the round, whole, so it supersedes call
    B too, and round 1 counts one call and one poker."""
    old = played_round(app, kv)
    call, poker = old["kvanta-call"], old["kvanta-poker"]
    assert history_action(kv, "undo", poker.id, "undo-poker-a").status_code == 200
    assert history_action(kv, "undo", call.id, "undo-call-a").status_code == 200
    kv.tap("settle")
    kv.cards(EDIT_HANDS)
    kv.tap("settle")
    call_b, poker_b = kv.entries("kvanta-call")[0], kv.entries("kvanta-poker")[0]
    assert history_action(kv, "undo", poker_b.id, "undo-poker-b").status_code == 200
    assert history_action(kv, "redo", poker.id, "redo-poker-a").status_code == 200
    page = kv.page()
    kv.post("discard", v=page.v, round=page.round)  # the round B reopened, dropped
    assert {e.id for e in kv.entries() if e.round == 1} == {call_b.id, poker.id}
    kv.client.post(
        f"{kv.url}/kvanta/edit/{poker.id}",
        headers={"HX-Request": "true", "X-CSRFToken": kv.csrf},
    )
    page = kv.page()
    saved = kv.post("save", v=page.v, round=page.round, submission_id="kvc-two-versions")
    assert saved.status == 200
    counted = sorted(e.kind for e in kv.entries() if e.round == 1)
    assert counted == ["kvanta-call", "kvanta-poker"]
    assert call_b.id not in [e.id for e in kv.entries()]
    # the edit undone: the round is as it was before it, call B beside poker A
    (edited,) = [e for e in kv.entries("kvanta-poker") if e.round == 1]
    assert history_action(kv, "undo", edited.id, "undo-the-edit").status_code == 200
    assert {e.id for e in kv.entries() if e.round == 1} == {call_b.id, poker.id}
