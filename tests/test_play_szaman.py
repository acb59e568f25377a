"""A Szaman deal as a log of taps (scorekeeper/games/play/szaman.py): RULES.md §2
examples, the worked examples in tests/data/play/, and properties over logs made of
the taps the state itself calls legal."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekeeper import api
from scorekeeper.errors import RuleError
from scorekeeper.games import szaman as engine
from scorekeeper.games.play import Refused, Tap, play, replay, respond
from scorekeeper.games.play import szaman as module
from scorekeeper.games.play.szaman import SzamanDeal

PLAY_DATA = Path(__file__).parent / "data" / "play"
THREE = ["Ana", "Bojan", "Ceca"]
NAMES = ["Ola", "Piotr", "Zosia", "Adam", "Ema", "Filip"]
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def taps(*raw: dict) -> list[dict]:
    return [{"id": f"t{i}", **tap} for i, tap in enumerate(raw)]


def state_after(*raw: dict, players=THREE, settings=None) -> dict:
    return play("szaman", {"players": players, "settings": settings or {}, "taps": taps(*raw)})


def refused(*raw: dict, players=THREE, settings=None) -> Refused:
    with pytest.raises(Refused) as caught:
        state_after(*raw, players=players, settings=settings)
    return caught.value


def card(seat: int, code: str) -> dict:
    return {"action": "card", "seat": seat, "card": code}


def test_doctests():
    assert doctest.testmod(module).failed == 0


# ---------------------------------------------------------------- worked examples


@pytest.mark.parametrize("path", sorted(PLAY_DATA.glob("szaman-*.json")), ids=lambda p: p.stem)
def test_worked_examples(path):
    case = json.loads(path.read_text())
    body, status = respond("szaman", json.dumps(case["request"]))
    expect = case["expect"]
    assert status == expect.get("status", 200), body
    if status != 200:
        assert body["error"] == expect["error"]
        return
    for key in ("phase", "turn", "leader", "complete", "hand_sizes", "closing"):
        if key in expect:
            assert body[key] == expect[key], key
    assert body["next"]["step"] == expect["next"]["step"]
    if "totals" in expect:
        assert body["score"]["totals"] == expect["totals"]
        assert body["score"]["penalties"] == expect["penalties"]
        assert body["closing"]["kind"] == expect["closing_kind"]
        assert api.evaluate(body["closing"]["kind"], body["closing"]["request"]) == body["score"]


def test_the_full_and_the_quick_example_close_with_the_same_scores():
    full, quick = (
        json.loads((PLAY_DATA / f"szaman-{name}.json").read_text())["request"]
        for name in ("full-deal", "quick-deal")
    )
    assert play("szaman", full)["score"]["totals"] == play("szaman", quick)["score"]["totals"]


def test_the_example_of_play_md_replays_as_it_says():
    text = (Path(__file__).parent.parent / "PLAY.md").read_text()
    section = text.split("## Szaman\n", 1)[1].split("\n## ", 1)[0]
    example = section.split("```json\n", 1)[1].split("```", 1)[0]
    state = play("szaman", json.loads(example))
    assert [t["points"] for t in state["tricks"]] == [
        {"Piotr": 5},
        {"Piotr": 14},
        {"Piotr": 11, "Ola": -2},
    ]


# ---------------------------------------------------------------- start


def test_start_checks_players_and_settings():
    with pytest.raises(Refused, match="2 to 6 players; 1 given"):
        SzamanDeal.start(["Ana"], {})
    with pytest.raises(Refused, match="listed twice"):
        SzamanDeal.start(["Ana", "Ana"], {})
    with pytest.raises(Refused, match="no setting called") as caught:
        SzamanDeal.start(THREE, {"jokers": 3})
    assert caught.value.path == "settings.jokers"
    with pytest.raises(Refused, match="choose one of classic, russian"):
        SzamanDeal.start(THREE, {"variant": "polish"})
    state = SzamanDeal.start(THREE, {}).to_json()
    assert state["settings"] == {"deals": 6, "target": 66, "variant": "classic"}
    assert state["phase"] == "first-lead" and state["turn"] is None
    assert state["complete"] is False and state["closing"] is None and state["score"] is None


# ---------------------------------------------------------------- play (RULES §2)


def test_the_first_card_names_the_leader_and_the_turn_goes_clockwise():
    state = state_after(card(1, "2C"))
    assert state["leader"] == 1 and state["turn"] == 2
    assert refused(card(1, "2C"), card(0, "3C")).message == (
        "It is Ceca's turn to play in trick 1, not Ana's."
    )


def test_a_tapped_leader_leads_and_may_be_changed_before_the_first_card():
    state = state_after({"action": "lead", "seat": 2}, {"action": "lead", "seat": 0})
    assert state["turn"] == 0 and state["next"]["text"] == "Trick 1: Ana leads."
    error = refused({"action": "lead", "seat": 2}, card(0, "2C"))
    assert error.index == 1 and error.path == "taps[1].seat"
    error = refused(card(0, "2C"), {"action": "lead", "seat": 1})
    assert "undo its taps" in error.message


def test_the_winner_of_a_trick_leads_the_next():
    state = state_after(card(0, "2C"), card(1, "KC"), card(2, "5C"))
    assert state["tricks"][0]["winner"] == 1 and state["turn"] == 1
    assert state["tricks"][0]["points"] == {"Bojan": 5}
    assert state["hand_sizes"] == [7, 7, 7]  # Bojan draws after the next trick only (S-D3)


def test_an_off_suit_card_wins_nothing_and_costs_two():
    state = state_after(card(0, "2C"), card(1, "AH"), card(2, "5C"))
    assert state["tricks"][0]["winner"] == 2
    assert state["tricks"][0]["points"] == {"Ceca": 1, "Bojan": -2}


def test_a_joker_of_the_led_colour_follows_and_wins_s_d1():
    state = state_after(card(0, "2D"), card(1, "AD"), card(2, "RJ"))
    assert state["tricks"][0]["winner"] == 2 and state["tricks"][0]["points"] == {"Ceca": 6}
    state = state_after(card(0, "2D"), card(1, "AD"), card(2, "BJ"))
    assert state["tricks"][0]["points"] == {"Bojan": 1, "Ceca": -2}  # S-D4: no special


def test_a_led_joker_names_a_suit_of_its_colour_s_d2():
    state = state_after(card(0, "BJ"))
    assert state["phase"] == "suit" and state["turn"] == 0
    assert state["legal"] == [{"action": "suit", "seat": 0, "suit": ["C", "S"]}]
    assert "First tap the suit Ana named" in refused(card(0, "BJ"), card(1, "2C")).message
    assert refused(card(0, "BJ"), {"action": "suit", "seat": 1, "suit": "C"}).path == (
        "taps[1].seat"
    )
    state = state_after(
        card(0, "BJ"), {"action": "suit", "seat": 0, "suit": "C"}, card(1, "AC"), card(2, "3C")
    )
    assert state["tricks"][0] == {
        "number": 1,
        "winner": 0,
        "full": True,
        "plays": [[0, "BJ"], [1, "AC"], [2, "3C"]],
        "joker_suit": "C",
        "points": {"Ana": 6},
    }


def test_one_deck_a_card_is_placed_once():
    error = refused(card(0, "2C"), card(1, "KC"), card(2, "5C"), card(1, "2C"))
    assert error.message == "2C is already in this deal (trick 1)." and error.index == 3
    jack = {"action": "special", "card": "JH", "on": True}
    error = refused(jack, {"action": "winner", "seat": 0}, card(0, "JH"))
    assert error.message == "JH is already in this deal (trick 1)."
    error = refused(card(0, "JH"), card(1, "2H"), card(2, "3H"), jack)
    assert error.message == "JH is already in this deal (trick 1)." and error.path == "taps[3].card"


def test_two_jokers_at_most_counting_quick_tricks_won_by_a_joker():
    error = refused(
        {"action": "special", "card": "joker", "on": True},
        {"action": "winner", "seat": 0},
        {"action": "special", "card": "joker", "on": True},
        {"action": "winner", "seat": 1},
        card(1, "RJ"),
    )
    assert error.message == "Both jokers are already in this deal." and error.index == 4


def test_a_repeated_card_tap_is_already_true_and_changes_nothing():
    once = state_after(card(0, "2C"))
    assert state_after(card(0, "2C"), card(0, "2c")) == once
    done = state_after(card(0, "2C"), card(1, "KC"), card(2, "5C"))
    assert state_after(card(0, "2C"), card(1, "KC"), card(2, "5C"), card(2, "5C")) == done


def change(trick: int, seat: int, code: str) -> dict:
    return {"action": "change", "trick": trick, "seat": seat, "card": code}


def test_a_card_of_an_earlier_trick_is_changed_in_place():
    """A card noticed wrong three tricks later: changed with one tap, the tricks after it
    kept, the old card free again and the new one placed."""
    tricks = (card(0, "2C"), card(1, "KC"), card(2, "5C"))  # Bojan wins and leads
    later = (card(1, "3D"), card(2, "9D"), card(0, "4D"))  # Ceca wins
    state = state_after(*tricks, *later, change(1, 2, "6C"))
    assert state["tricks"][0]["plays"] == [[0, "2C"], [1, "KC"], [2, "6C"]]
    assert state["tricks"][1]["plays"] == [[1, "3D"], [2, "9D"], [0, "4D"]]
    assert "5C" not in state["used"] and state["used"]["6C"] == "trick 1"
    assert state["turn"] == 2
    # the card now free may be played; the one placed may not
    assert state_after(*tricks, *later, change(1, 2, "6C"), card(2, "5C"))["current"]
    error = refused(*tricks, *later, change(1, 2, "6C"), change(2, 1, "6C"))
    assert error.message == "6C is already in this deal (trick 1)."
    # the points follow the card: a special card in, its points with it
    state = state_after(*tricks, *later, change(2, 0, "8D"))
    assert state["tricks"][1]["winner"] == 2 and state["tricks"][1]["points"] == {"Ceca": 5}


def test_a_changed_card_that_would_change_the_winner_is_refused():
    tricks = (card(0, "2C"), card(1, "KC"), card(2, "5C"))
    error = refused(*tricks, change(1, 0, "AC"))
    assert error.message == (
        "With AC, Ana would win trick 1, not Bojan, and every trick after it would change: "
        "undo back to trick 1 instead."
    )
    assert error.path == "taps[3].card" and error.index == 3
    error = refused(*tricks, change(1, 2, "KC"))
    assert error.message == "KC is already in this deal (trick 1)."


def test_a_change_says_what_is_so_and_a_repeat_changes_nothing():
    tricks = (card(0, "2C"), card(1, "KC"), card(2, "5C"))
    once = state_after(*tricks, change(1, 2, "6C"))
    assert state_after(*tricks, change(1, 2, "6C"), change(1, 2, "6C")) == once
    assert state_after(*tricks, change(1, 2, "5C")) == state_after(*tricks)


def test_only_a_trick_entered_card_by_card_has_cards_to_change():
    assert refused(change(1, 0, "2C")).message == (
        "No trick has been entered yet: there is no card to change."
    )
    tricks = (card(0, "2C"), card(1, "KC"), card(2, "5C"))
    assert refused(*tricks, change(2, 0, "3C")).message == (
        "trick is the number of a trick entered, 1 to 1."
    )
    assert refused(*tricks, change(True, 0, "3C")).path == "taps[3].trick"
    quick = ({"action": "winner", "seat": 1},)
    assert refused(*tricks, *quick, change(2, 0, "3C")).message == (
        "Trick 2 was noted quickly: it has no cards to change."
    )


def test_a_led_jokers_card_stays_as_it_named_the_suit_s_d2():
    named = (
        card(0, "BJ"),
        {"action": "suit", "seat": 0, "suit": "C"},
        card(1, "AC"),
        card(2, "3C"),
    )
    assert "names the suit" in refused(*named, change(1, 0, "2S")).message
    plain = (card(0, "2C"), card(1, "KC"), card(2, "5C"))
    assert "names the suit" in refused(*plain, change(1, 0, "RJ")).message


def test_quick_marks_say_what_is_so_and_are_no_toggles():
    on = {"action": "special", "card": "8H", "on": True}
    state = state_after(on, on, {"action": "off", "seat": 2, "on": True})
    assert state["current"]["specials"] == ["8H"] and state["current"]["off_suit"] == [2]
    assert state["phase"] == "quick" and state["turn"] is None
    state = state_after(on, {"action": "special", "card": "8H", "on": False})
    assert state["current"]["specials"] == []
    error = refused({"action": "special", "card": "8H"})
    assert error.message == "The special tap needs its on." and error.path == "taps[0].on"
    assert "not a toggle" in refused({"action": "off", "seat": 0, "on": "1"}).message


def test_the_special_points_come_from_the_engine_and_q_spades_is_russian_only():
    assert state_after()["special_points"] == {"8H": 8, "JH": 11, "joker": 6}
    russian = state_after(settings={"variant": "russian"})["special_points"]
    assert russian == {"8H": 8, "JH": 11, "QS": 13, "joker": 6}
    assert "not a special card" in refused({"action": "special", "card": "QS", "on": True}).message


def test_an_off_suit_player_cannot_win_the_quick_trick():
    error = refused({"action": "off", "seat": 1, "on": True}, {"action": "winner", "seat": 1})
    assert "Bojan played off-suit" in error.message and error.path == "taps[1].seat"


def test_the_last_player_not_marked_off_suit_cannot_be_marked():
    """Someone wins every trick and the winner followed suit: marking every player
    off-suit left a quick trick nobody could win, with no word why."""
    off = [{"action": "off", "seat": seat, "on": True} for seat in range(3)]
    error = refused(*off)
    assert error.message == "Someone won this trick, so not everyone can have played off-suit."
    assert error.path == "taps[2].seat"
    state = state_after(*off[:2], {"action": "winner", "seat": 2})
    assert state["tricks"][0]["points"] == {"Ana": -2, "Bojan": -2, "Ceca": 1}


def test_a_trick_is_entered_one_way_at_a_time():
    error = refused(card(0, "2C"), {"action": "winner", "seat": 0})
    assert "card by card" in error.message
    error = refused({"action": "off", "seat": 1, "on": True}, card(0, "2C"))
    assert "noted quickly" in error.message


def test_unknown_taps_and_arguments_are_refused():
    assert refused({"action": "toggle", "seat": 0}).path == "taps[0].action"
    error = refused({"action": "lead", "seat": 0, "mode": "full"})
    assert error.message == "The lead tap has no argument “mode”." and error.path == "taps[0].mode"
    assert refused({"action": "lead", "seat": 3}).path == "taps[0].seat"
    assert refused({"action": "lead", "seat": True}).path == "taps[0].seat"
    assert refused(card(0, "JK")).path == "taps[0].card"


# ---------------------------------------------------------------- the end of a deal


def quick_tricks(winners: list[int]) -> list[dict]:
    return [{"action": "winner", "seat": w} for w in winners]


def test_a_classic_deal_ends_when_a_hand_runs_out_s_d3():
    # Ceca never wins: 8 cards, no draw, empty after trick 8; nobody draws after it
    state = state_after(*quick_tricks([0, 1] * 4))
    assert state["over"] and state["phase"] == "held" and state["hand_sizes"] == [4, 3, 0]
    assert state["held"][2] == {"cards": [], "expected": 0, "final": True, "penalty": 0}
    assert state["next"]["text"] == "The deal is over: enter the cards Ana, Bojan still hold."
    assert "undo the last tap" in refused(*quick_tricks([0, 1] * 4), card(0, "2C")).message


def test_held_cards_give_the_rounded_up_penalty_from_the_engine():
    held = [{"action": "held", "seat": 0, "card": code, "on": True} for code in ("KS", "4D", "QC")]
    state = state_after(*quick_tricks([0, 1] * 4), *held)
    assert state["held"][0]["cards"] == ["KS", "4D", "QC"] and state["held"][0]["penalty"] == -3
    assert state["complete"] is False  # Ana should hold 4 and Bojan's hand is not entered
    state = state_after(
        *quick_tricks([0, 1] * 4),
        *held,
        {"action": "done", "seat": 0},
        {"action": "held", "seat": 1, "card": "RJ", "on": True},
        {"action": "done", "seat": 1},
    )
    assert state["complete"] and state["score"]["penalties"] == {"Ana": -3, "Bojan": -20}
    assert state["closing"]["request"]["left"] == {
        "Ana": ["KS", "4D", "QC"],
        "Bojan": ["RJ"],
        "Ceca": [],
    }
    # the hand sizes did not add up: the engine says so once the deal is complete
    assert any("Ana should have 4 cards left at the end" in w for w in state["warnings"])


def test_a_held_card_is_removed_by_saying_so():
    on = {"action": "held", "seat": 0, "card": "KS", "on": True}
    off = {"action": "held", "seat": 0, "card": "KS", "on": False}
    state = state_after(*quick_tricks([0, 1] * 4), on, off, off)
    assert state["held"][0]["cards"] == []


def test_ending_early_still_needs_a_player_holding_nothing_s_d3():
    start = [*quick_tricks([0]), {"action": "end"}]
    state = state_after(*start)
    assert state["ended_early"] and state["hand_sizes"] == [7, 7, 7]
    error = refused(
        *start,
        {"action": "held", "seat": 0, "card": "2C", "on": True},
        {"action": "held", "seat": 1, "card": "3C", "on": True},
        {"action": "held", "seat": 2, "card": "4C", "on": True},
    )
    assert "S-D3" in error.message and error.index == 4
    assert "at least one trick" in refused({"action": "end"}).message


def test_a_russian_deal_ends_with_every_hand_empty_and_has_no_held_cards():
    russian = {"variant": "russian"}
    n = engine.russian_trick_count(3)
    state = state_after(*quick_tricks([0] * (n - 1)), settings=russian)
    assert not state["over"] and state["hand_sizes"] == [1, 1, 1]
    state = state_after(*quick_tricks([0] * n), settings=russian)
    assert state["complete"] and state["held"] is None and state["legal"] == []
    assert "left" not in state["closing"]["request"] and state["warnings"] == []


def test_the_refused_tap_leaves_the_log_as_it_was():
    good = taps(card(0, "2C"))
    bad = {"id": "x", "action": "card", "seat": 0, "card": "3C"}
    start = SzamanDeal.start(THREE, {})
    before = replay(start, good)
    with pytest.raises(Refused) as caught:
        replay(start, [*good, bad])
    assert caught.value.index == 1 and caught.value.as_dict()["error"]["tap"] == 1
    assert replay(start, good) == before


def counting(monkeypatch, owner, name: str) -> list:
    """Record each call of ``owner.name`` (still calling it)."""
    calls: list = []
    inner = getattr(owner, name)

    def counted(*args, **kwargs):
        calls.append(args)
        return inner(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


def test_a_state_scores_its_tricks_once_and_the_next_state_afresh(monkeypatch):
    scored = counting(monkeypatch, engine, "score_deal_read")
    read = counting(monkeypatch, engine.Reader, "tricks")
    start = SzamanDeal.start(THREE, {})
    state = replay(start, taps({"action": "lead", "seat": 0}, card(0, "2C"), card(1, "KC")))
    state = state.apply(Tap("x", "card", (("seat", 2), ("card", "8H"))))  # trick 1 is in
    first = state.to_json()
    first["score"]["totals"]["Ana"] = 99  # the caller's own dict: the state keeps its own
    first["legal"].clear()
    second = state.to_json()
    assert len(scored) == 1 and len(read) == 1  # the warnings read no trick again
    assert second["score"]["totals"] == {"Ana": 0, "Bojan": 8, "Ceca": -2} and second["legal"]
    assert second == state.to_json() and second is not state.to_json()
    assert state.scored[0]["totals"] == second["score"]["totals"]

    after = state.apply(Tap("y", "card", (("seat", 1), ("card", "3D"))))
    assert after.to_json()["current"]["plays"] == [[1, "3D"]]  # made for the new state
    assert len(scored) == 2
    state = state.apply(Tap("y", "card", (("seat", 1), ("card", "AH"))))
    state = state.apply(Tap("z", "card", (("seat", 2), ("card", "2H"))))
    state = state.apply(Tap("w", "card", (("seat", 0), ("card", "JH"))))  # Bojan wins trick 2
    assert len(scored) == 2  # no state scored before it is shown
    made = state.to_json()
    assert len(scored) == 3 and [t["number"] for t in made["tricks"]] == [1, 2]
    assert made["score"]["totals"] == {"Ana": 0, "Bojan": 19, "Ceca": -2}  # J♥ 11 more
    assert made["hand_sizes"] == [6, 7, 6] and second["hand_sizes"] == [7, 7, 7]
    log = taps({"action": "lead", "seat": 0}, card(0, "2C"), card(1, "KC"), card(2, "8H"))
    shown, fresh = replay(start, log), replay(start, log)
    shown.to_json()  # what it keeps is no part of what it is
    assert shown == fresh and hash(shown) == hash(fresh) and repr(shown) == repr(fresh)
    assert fresh.to_json() == second


# ---------------------------------------------------------------- properties


@st.composite
def logs(draw, complete: bool = False):
    """A valid log, made of taps the state lists as legal; ``complete``: played on
    (cards, suits, winners and held cards only) until the deal closes."""
    n = draw(st.integers(2, 6))
    variant = draw(st.sampled_from(engine.VARIANTS))
    state = SzamanDeal.start(NAMES[:n], {"variant": variant})
    log: list[dict] = []
    free_steps = draw(st.integers(0, 60))
    for i in range(600):
        if state.complete and (complete or i >= free_steps):
            break
        legal = state.legal()
        if i >= free_steps:
            if not complete:
                break
            forward = [e for e in legal if e["action"] in ("card", "suit", "winner", "done")]
            legal = forward or [e for e in legal if e.get("on") is True] or legal
        if not legal:
            break
        entry = draw(st.sampled_from(legal))
        args = {
            key: draw(st.sampled_from(value)) if isinstance(value, list) else value
            for key, value in entry.items()
            if key != "action"
        }
        raw = {"id": f"t{i}", "action": entry["action"], **args}
        state = state.apply(Tap.from_json(raw))
        log.append(raw)
    return NAMES[:n], variant, log


def start_of(names, variant) -> SzamanDeal:
    return SzamanDeal.start(names, {"variant": variant})


@FAST
@given(logs())
def test_every_prefix_of_a_valid_log_replays_and_the_engine_accepts_it(case):
    names, variant, log = case
    for k in range(len(log) + 1):
        state = replay(start_of(names, variant), log[:k])
        assert state.problem() is None
        assert state.placed == set(state.where())  # the running record of the deck
        quick = [t for t in state.tricks if not t.full] + [
            module.Trick(0, (), None, state.specials)
        ]
        named = sum(1 for code in state.where() if code in module.JOKERS)
        won = sum(engine.WON_BY_JOKER in t.specials for t in quick)
        assert state.jokers_used() == named + won <= 2
        if state.tricks:
            api.evaluate(engine.KIND, state.request())


@FAST
@given(logs())
def test_undo_then_redo_is_identity(case):
    names, variant, log = case
    if log:
        undone = replay(start_of(names, variant), log[:-1])
        assert undone.apply(Tap.from_json(log[-1])) == replay(start_of(names, variant), log)


@FAST
@given(logs(), st.data())
def test_a_tap_id_applied_twice_changes_nothing(case, data):
    names, variant, log = case
    if log:
        again = data.draw(st.sampled_from(log))
        state = replay(start_of(names, variant), log)
        assert replay(start_of(names, variant), [*log, again]) == state


@FAST
@given(logs(), st.data())
def test_a_changed_card_keeps_every_winner_or_is_refused_with_nothing_changed(case, data):
    """Any card of a trick entered card by card, changed to any card: refused, or the
    same tricks with the same winners, that one card changed, the deck's record with it,
    and the engine accepts the deal."""
    names, variant, log = case
    state = replay(start_of(names, variant), log)
    full = [(n, t) for n, t in enumerate(state.tricks, start=1) if t.full]
    if not full:
        return
    number, trick = data.draw(st.sampled_from(full))
    seat, old = data.draw(st.sampled_from(trick.plays))
    new = data.draw(st.sampled_from(module.DECK))
    tap = {"id": "change", "action": "change", "trick": number, "seat": seat, "card": new}
    try:
        after = state.apply(Tap.from_json(tap))
    except Refused:
        return  # (a refused tap changes nothing: the state is immutable)
    assert [t.winner for t in after.tricks] == [t.winner for t in state.tricks]
    changed = dict(after.tricks[number - 1].plays)
    assert changed[seat] == new and {**dict(trick.plays), seat: new} == changed
    assert after.placed == (state.placed - {old}) | {new} == set(after.where())
    assert replay(start_of(names, variant), [*log, tap]) == after
    if after.tricks:
        api.evaluate(engine.KIND, after.request())


@FAST
@given(logs(complete=True))
def test_the_closing_request_scores_as_the_engine_does(case):
    names, variant, log = case
    state = replay(start_of(names, variant), log)
    answer = state.to_json()
    assert answer["complete"], answer["next"]
    closing = answer["closing"]
    assert closing["kind"] == "szaman-deal"
    assert api.evaluate(closing["kind"], closing["request"]) == answer["score"]


@FAST
@given(logs())
def test_the_log_and_the_state_survive_a_json_round_trip(case):
    names, variant, log = case
    text = json.dumps({"players": names, "settings": {"variant": variant}, "taps": log})
    body, status = respond("szaman", text)
    assert status == 200
    state = replay(start_of(names, variant), log)
    assert body == json.loads(json.dumps(state.to_json()))
    assert [Tap.from_json(t).to_json() for t in json.loads(text)["taps"]] == log


@FAST
@given(logs())
def test_a_state_shows_the_same_each_time_and_as_made_afresh(case):
    names, variant, log = case
    state = start_of(names, variant)
    for k, tap in enumerate([None, *log]):
        state = state if tap is None else state.apply(Tap.from_json(tap))
        first = state.to_json()
        first["legal"].clear()  # a caller's change to its own dict
        if first["score"]:
            first["score"]["totals"].clear()
        again = state.to_json()
        assert again == replay(start_of(names, variant), log[:k]).to_json()
        assert again == state.to_json() and again != first


TAP_SHAPES = st.one_of(
    st.builds(lambda s, c: card(s, c), st.integers(-1, 6), st.sampled_from(module.DECK)),
    st.builds(
        lambda s, on: {"action": "off", "seat": s, "on": on}, st.integers(0, 6), st.booleans()
    ),
    st.builds(lambda s: {"action": "winner", "seat": s}, st.integers(0, 6)),
    st.builds(lambda s: {"action": "suit", "seat": 0, "suit": s}, st.sampled_from("SHDCX")),
    st.builds(
        lambda s, c: {"action": "held", "seat": s, "card": c, "on": True},
        st.integers(0, 5),
        st.sampled_from(module.DECK),
    ),
    st.just({"action": "end"}),
)


@FAST
@given(logs(), TAP_SHAPES)
def test_can_agrees_with_apply_and_a_refusal_names_its_tap(case, shape):
    names, variant, log = case
    state = replay(start_of(names, variant), log)
    tap = Tap.from_json({"id": "probe", **shape})
    if state.can(tap):
        state.apply(tap)
        return
    with pytest.raises(RuleError):
        state.apply(tap)
    with pytest.raises(Refused) as caught:
        replay(start_of(names, variant), [*log, tap.to_json()])
    assert caught.value.index == len(log)
    assert caught.value.path.startswith(f"taps[{len(log)}]")


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 60),
    st.text(max_size=4),
    st.sampled_from(["2C", "RJ", "joker", "9D", "AS", "S", "H"]),
    st.lists(st.integers(0, 3), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
)


@FAST
@given(
    st.lists(
        st.fixed_dictionaries(
            {"action": st.sampled_from([*module.ARGS, "undo"])},
            optional={"seat": JUNK, "card": JUNK, "suit": JUNK, "on": JUNK, "x": JUNK},
        ),
        max_size=12,
    ),
    st.dictionaries(st.sampled_from(["variant", "tally", "deals", "dealer", "totals"]), JUNK),
)
def test_any_request_is_answered_or_refused_with_a_reason(raw_taps, raw_settings):
    log = [{"id": f"j{i}", **tap} for i, tap in enumerate(raw_taps)]
    body, status = respond(
        "szaman", json.dumps({"players": THREE, "settings": raw_settings, "taps": log})
    )
    assert status in (200, 422), body
    if status == 422:
        assert body["error"]["message"]
