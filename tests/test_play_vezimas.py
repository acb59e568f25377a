"""A Vežimas deal as a log of taps (scorekeeper/games/play/vezimas.py): RULES.md §4
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
from scorekeeper.games import vezimas as engine
from scorekeeper.games.play import Refused, Tap, play, replay, respond
from scorekeeper.games.play import vezimas as module
from scorekeeper.games.play.vezimas import DECK, VezimasDeal, nine_of_diamonds_leads

PLAY_DATA = Path(__file__).parent / "data" / "play"
TWO = ["Lazar", "Rūta"]
THREE = ["Ola", "Bojan", "Kuba"]
FOUR = ["Ana", "Bojan", "Ceca", "Dora"]
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def taps(*raw: dict) -> list[dict]:
    return [{"id": f"t{i}", **tap} for i, tap in enumerate(raw)]


def state_after(*raw: dict, players=THREE, settings=None) -> dict:
    return play("vezimas", {"players": players, "settings": settings or {}, "taps": taps(*raw)})


def refused(*raw: dict, players=THREE, settings=None) -> Refused:
    with pytest.raises(Refused) as caught:
        state_after(*raw, players=players, settings=settings)
    return caught.value


def lay(seat: int, card: str) -> dict:
    return {"action": "lay", "seat": seat, "card": card}


def take(seat: int) -> dict:
    return {"action": "take", "seat": seat}


QUEEN_0 = {"action": "queen", "seat": 0}
NINE_0 = {"action": "nine", "seat": 0}


def test_doctests():
    assert doctest.testmod(module).failed == 0


# ---------------------------------------------------------------- worked examples


@pytest.mark.parametrize("path", sorted(PLAY_DATA.glob("vezimas-*.json")), ids=lambda p: p.stem)
def test_worked_examples(path):
    case = json.loads(path.read_text())
    body, status = respond("vezimas", json.dumps(case["request"]))
    expect = case["expect"]
    assert status == expect.get("status", 200), body
    if status != 200:
        assert body["error"] == expect["error"]
        return
    for key, value in expect.items():
        assert body[key] == value, key
    if body["closing"]:
        closing = body["closing"]
        assert api.evaluate(closing["kind"], closing["request"]) == body["next_deal"]
    if body["setup"]:
        api.evaluate(body["setup"]["kind"], body["setup"]["request"])


def test_the_example_of_play_md_replays_as_it_says():
    text = (Path(__file__).parent.parent / "PLAY.md").read_text()
    section = text.split("## Vežimas\n", 1)[1].split("\n## ", 1)[0]
    example = section.split("```json\n", 1)[1].split("```", 1)[0]
    state = play("vezimas", json.loads(example))
    assert state["hands"][1] == {"count": 14, "known": ["10H", "9C", "AH"], "out": False}
    assert state["turn"] == 0 and state["pile"] == []


# ---------------------------------------------------------------- start


def test_start_checks_players_settings_and_the_session():
    with pytest.raises(Refused, match="2 to 4 players; 5 given"):
        VezimasDeal.start([*FOUR, "Ema"], {})
    with pytest.raises(Refused, match="no setting called"):
        VezimasDeal.start(THREE, {"jokers": True})
    with pytest.raises(Refused) as caught:
        VezimasDeal.start(THREE, {"dealer": "Zed"})
    assert caught.value.path == "settings.dealer"
    state = VezimasDeal.start(THREE, {"tally": "letters"}).to_json()
    assert state["settings"] == {"tally": "letters"}
    assert state["phase"] == "trumps" and state["turn"] is None and state["closing"] is None
    assert [h["count"] for h in state["hands"]] == [8, 8, 8]  # the whole deck is dealt


def test_who_leads_the_first_deal_asks_the_engine_s_rule():
    """The 9♦ holder is asked for exactly when the engine's vezimas-trumps needs him."""
    for players in (TWO, THREE, FOUR):
        request = {"players": players, "queen_of_clubs": players[0]}
        if nine_of_diamonds_leads(len(players)):
            with pytest.raises(RuleError) as caught:
                api.evaluate("vezimas-trumps", request)
            assert caught.value.path == "nine_of_diamonds"
            api.evaluate("vezimas-trumps", {**request, "nine_of_diamonds": players[1]})
        else:
            assert api.evaluate("vezimas-trumps", request)["first_lead"] == players[0]


# ---------------------------------------------------------------- trumps and the lead


def test_the_queen_of_clubs_gives_the_trumps_v_d1():
    state = state_after({"action": "queen", "seat": 1}, players=FOUR)
    assert state["trumps"] == {"Bojan": "C", "Ceca": "S", "Dora": "H", "Ana": "D"}
    assert state["turn"] == 1 and state["leader"] == 1  # with 4 the Q♣ holder leads
    assert state["setup"]["request"] == {"players": FOUR, "queen_of_clubs": "Bojan"}
    error = refused(QUEEN_0, {"action": "nine", "seat": 1}, players=FOUR)
    assert "With 4 players the Q♣ holder leads" in error.message


def test_with_two_or_three_the_nine_of_diamonds_leads():
    state = state_after(QUEEN_0)
    assert state["phase"] == "nine" and state["turn"] is None and state["setup"] is None
    state = state_after(QUEEN_0, {"action": "nine", "seat": 2})
    assert state["turn"] == 2 and state["free"] == ["D"]
    assert state["setup"]["request"]["nine_of_diamonds"] == "Kuba"
    assert (
        "undo them" in refused(QUEEN_0, NINE_0, lay(0, "9D"), {"action": "nine", "seat": 1}).message
    )


def test_a_later_deal_is_led_from_the_dealers_left_v_d2():
    session = {"queen_of_clubs": "Ola", "dealer": "Kuba"}
    state = state_after(settings=session)
    assert state["leader"] == 0 and state["turn"] == 0 and state["setup"] is None
    assert refused({"action": "queen", "seat": 1}, settings=session).message == (
        "The trumps are already set for this session."
    )
    assert "first deal only" in refused(NINE_0, settings=session).message


def test_a_first_deal_after_the_trumps_were_saved_knows_who_leads():
    """The session saved the trumps (Q♣ and, with 2–3 players, 9♦) before the first
    deal's play was entered: that deal gets both through settings and asks for neither."""
    session = {"queen_of_clubs": "Ola", "nine_of_diamonds": "Kuba"}
    state = state_after(settings=session)
    assert state["trumps"]["Ola"] == "C" and state["leader"] == 2 and state["turn"] == 2
    assert state["setup"] is None and state["phase"] == "lay"
    assert {t["action"] for t in state["legal"]} == {"lay", "loser"}
    assert state_after({"action": "nine", "seat": 2}, settings=session)["leader"] == 2
    assert "already set" in refused({"action": "nine", "seat": 1}, settings=session).message
    error = refused(players=FOUR, settings={"queen_of_clubs": "Ana", "nine_of_diamonds": "Ana"})
    assert error.path == "settings.nine_of_diamonds"


def test_trumps_may_change_until_a_beat_was_judged_by_them():
    state = state_after(QUEEN_0, NINE_0, lay(0, "9H"), {"action": "queen", "seat": 1})
    assert state["trumps"]["Bojan"] == "C" and state["turn"] == 1
    error = refused(QUEEN_0, NINE_0, lay(0, "9H"), lay(1, "9S"), {"action": "queen", "seat": 1})
    assert "undo it first" in error.message and error.index == 4


def test_the_trumps_may_be_tapped_after_the_cart_when_no_beat_was_judged():
    """PLAY.md: the Q♣ holder (RULES §4, V-D1) may be tapped until a beat has been judged
    by the trumps. A first deal entered by its cart alone, the trumps remembered after
    it, refused them ("The deal is over") and left the session's trumps unset; the 9♦
    holder too."""
    cart = {"action": "loser", "seat": 2}
    state = state_after(cart, QUEEN_0, NINE_0)
    assert state["complete"] and state["cart"]["seat"] == 2
    assert state["trumps"] == {"Ola": "C", "Bojan": "S", "Kuba": "H"}
    assert state["setup"] is not None and state["closing"]["request"]["loser"] == "Kuba"
    legal = {t["action"] for t in state_after(cart)["legal"]}
    assert {"queen", "nine", "loser"} <= legal
    four = state_after(cart, QUEEN_0, players=FOUR)
    assert four["trumps"]["Ana"] == "C" and four["complete"]
    # a deal whose pile was judged by the trumps keeps them
    error = refused(
        QUEEN_0, NINE_0, lay(0, "9H"), lay(1, "9S"), cart, {"action": "queen", "seat": 1}
    )
    assert "undo it first" in error.message


# ---------------------------------------------------------------- the pile (RULES §4)


def test_beating_follows_the_three_cases_through_the_engine():
    start = (QUEEN_0, NINE_0)  # Ola ♣, Bojan ♠, Kuba ♥; Ola leads
    # case 3: a higher card of the suit, or any own trump
    state = state_after(*start, lay(0, "JD"))
    assert state["beat"]["case"] == 3 and state["beat"]["beaters"][:6] == list(DECK[6:12])
    assert state_after(*start, lay(0, "JD"), lay(1, "QD"))["pile"][-1] == {
        "seat": 1,
        "card": "QD",
        "beat": True,
    }
    # case 2: the next player's trump (Kuba ♥ after Bojan) only by one's own trump
    error = refused(*start, lay(0, "9H"), lay(1, "AH"))
    assert error.message.startswith("AH does not beat 9H.") and error.path == "taps[3].card"
    # case 1: one's own trump only by a higher one of it
    error = refused(*start, lay(0, "QS"), lay(1, "9S"))
    assert "only a higher S beats it" in error.message


def test_after_a_beat_the_same_player_lays_for_the_next():
    state = state_after(QUEEN_0, NINE_0, lay(0, "JD"), lay(1, "QD"))
    assert state["phase"] == "lay" and state["turn"] == 1 and state["beat"] is None
    assert "now Bojan lays a card" in state["next"]["text"]
    state = state_after(QUEEN_0, NINE_0, lay(0, "JD"), lay(1, "QD"), lay(1, "9S"))
    assert state["phase"] == "beat" and state["turn"] == 2 and state["top"] == "9S"
    assert [h["count"] for h in state["hands"]] == [7, 6, 8]


def test_taking_the_pile_puts_its_cards_in_that_hand_and_the_next_starts_a_pile():
    state = state_after(QUEEN_0, NINE_0, lay(0, "JD"), lay(1, "QD"), lay(1, "9S"), take(2))
    assert state["pile"] == [] and state["turn"] == 0 and state["phase"] == "lay"
    assert state["hands"][2] == {"count": 11, "known": ["JD", "QD", "9S"], "out": False}
    error = refused(
        QUEEN_0, NINE_0, lay(0, "JD"), lay(1, "QD"), lay(1, "9S"), take(2), lay(0, "QD")
    )
    assert error.message == "QD is in Kuba's hand: Kuba took it with a pile."


def test_a_repeated_lay_is_already_true_and_changes_nothing():
    once = state_after(QUEEN_0, NINE_0, lay(0, "JD"), lay(1, "QD"))
    assert state_after(QUEEN_0, NINE_0, lay(0, "JD"), lay(1, "QD"), lay(1, "qd")) == once
    assert state_after(QUEEN_0, NINE_0, lay(0, "JD"), lay(1, "QD"), lay(0, "JD")) == once


def test_only_the_player_to_move_acts():
    assert "It is Bojan's turn" in refused(QUEEN_0, NINE_0, lay(0, "JD"), take(2)).message
    assert "nothing to beat" in refused(QUEEN_0, NINE_0, take(0)).message
    assert "already on the pile" in refused(QUEEN_0, NINE_0, lay(0, "JD"), lay(1, "JD")).message
    assert "not in the Vežimas deck" in refused(QUEEN_0, NINE_0, lay(0, "2D")).message


def test_a_beat_needs_the_trumps_but_a_lead_does_not():
    state = state_after(lay(1, "9C"))
    assert state["leader"] is None and state["turn"] == 2  # whoever laid first led
    assert state["legal"][0] == {"action": "queen", "seat": [0, 1, 2]}
    assert "Q♣ first" in refused(lay(1, "9C"), lay(2, "10C")).message


def going_out_with_a_beat() -> list[dict]:
    case = json.loads((PLAY_DATA / "vezimas-nothing-to-beat.json").read_text())
    return case["request"]["taps"]


def test_a_player_who_goes_out_with_a_beat_leaves_nothing_to_beat_v_d5():
    log = going_out_with_a_beat()
    state = play("vezimas", {"players": FOUR, "taps": log})
    assert state["out"] == [1, 2] and state["top"] is None and state["turn"] == 3
    assert state["beat"]["case"] == 0 and "Nothing to beat" in state["beat"]["reason"]
    assert state["free"] == ["S", "H"]  # Bojan's ♠ and Ceca's ♥ are free now
    # any card Dora may hold is laid without a beat; Ana must then beat it
    after = play("vezimas", {"players": FOUR, "taps": [*log, {"id": "x", **lay(3, "9H")}]})
    assert after["turn"] == 0 and after["phase"] == "beat" and after["top"] == "9H"


def test_a_hand_fully_known_lays_only_its_known_cards():
    case = json.loads((PLAY_DATA / "vezimas-known-hand.json").read_text())
    state = play("vezimas", case["request"])
    assert state["turn"] == 1 and state["hands"][1]["count"] == len(state["hands"][1]["known"])
    assert state["legal"][0]["card"] == sorted(state["hands"][1]["known"], key=DECK.index)
    more = [*case["request"]["taps"], {"id": "x", **lay(1, "KD")}]
    with pytest.raises(Refused, match="Bojan holds only"):
        play("vezimas", {**case["request"], "taps": more})


def test_the_last_player_holding_cards_gets_the_cart():
    case = json.loads((PLAY_DATA / "vezimas-played-out.json").read_text())
    state = play("vezimas", case["request"])
    assert state["loser"] == 0 and state["legal"] == []
    more = [*case["request"]["taps"], {"id": "x", "action": "loser", "seat": 1}]
    with pytest.raises(Refused, match="Ana is the last one holding cards"):
        play("vezimas", {**case["request"], "taps": more})
    same = [*case["request"]["taps"], {"id": "x", "action": "loser", "seat": 0}]
    assert play("vezimas", {**case["request"], "taps": same}) == state


def test_the_cart_may_be_tapped_without_the_pile_and_changed():
    state = state_after({"action": "loser", "seat": 2}, {"action": "loser", "seat": 1})
    assert state["complete"] and state["closing"]["request"]["loser"] == "Bojan"
    assert state["next_deal"] == {
        "points": {"Bojan": 1},
        "next_dealer": "Bojan",
        "first_lead": "Kuba",
    }
    assert (
        "over: Bojan got the cart" in refused({"action": "loser", "seat": 1}, lay(0, "9C")).message
    )


def test_an_out_player_cannot_get_the_cart():
    log = going_out_with_a_beat()
    with pytest.raises(Refused, match="Bojan is out of cards"):
        play(
            "vezimas", {"players": FOUR, "taps": [*log, {"id": "x", "action": "loser", "seat": 1}]}
        )


def test_with_the_letters_tally_the_loser_takes_the_next_letter_v_d6():
    letters = {"tally": "letters", "totals": {"Kuba": 3}}
    state = state_after({"action": "loser", "seat": 2}, settings=letters)
    assert state["cart"] == {"seat": 2, "total": 4, "letters": "VEŽI"}
    assert state["word"] == "VEŽIMAS"
    carts = state_after({"action": "loser", "seat": 2}, settings={"totals": {"Kuba": 3}})
    assert carts["cart"] == {"seat": 2, "total": 4, "letters": None} and carts["word"] is None


def test_no_deal_once_the_session_is_over_v_d6():
    with pytest.raises(Refused, match="The session is over: Kuba completed") as caught:
        VezimasDeal.start(THREE, {"tally": "letters", "totals": {"Kuba": 7, "Ola": 2}})
    assert caught.value.path == "settings.totals"
    # with carts the players end the session themselves: any count goes on (V-D4)
    assert VezimasDeal.start(THREE, {"totals": {"Kuba": 7}}).totals == (0, 0, 7)
    with pytest.raises(Refused) as caught:
        VezimasDeal.start(THREE, {"totals": {"Kuba": -1}})
    assert caught.value.path == "settings.totals.Kuba"


def test_unknown_taps_and_arguments_are_refused():
    assert refused({"action": "check", "seat": 0}).path == "taps[0].action"
    assert refused({"action": "lay", "seat": 0}).path == "taps[0].card"
    assert refused({"action": "take", "seat": 0, "on": 1}).path == "taps[0].on"
    assert refused({"action": "queen", "seat": 9}).path == "taps[0].seat"


# ---------------------------------------------------------------- properties


@st.composite
def logs(draw, complete: bool = False):
    """A valid log of taps the state lists as legal; ``complete``: played on with lays
    and takes until the cart is decided (a loser tap may close it early)."""
    n = draw(st.integers(2, 4))
    names = FOUR[:n]
    context = draw(st.sampled_from([{}, {"queen_of_clubs": names[-1], "dealer": names[0]}]))
    state = VezimasDeal.start(names, context)
    log: list[dict] = []
    steps = draw(st.integers(0, 40))
    for i in range(1000):
        if state.complete:
            break
        legal = state.legal()
        if i < steps and len(legal) > 1 and draw(st.integers(0, 9)) < 9:
            legal = [e for e in legal if e["action"] != "loser"]  # the cart now and then
        if i >= steps:
            if not complete:
                break
            # on towards the cart: the trumps and the lead first, then lays; a take only
            # now and then (a shrunk draw lays), so every deal ends
            wanted = "queen" if state.queen is None else "nine" if state.mover is None else None
            forward = [e for e in legal if e["action"] == wanted]
            lays = [e for e in legal if e["action"] == "lay"]
            takes = [e for e in legal if e["action"] == "take"]
            if i >= 300:  # the pile can go round for ever: the table says who lost
                legal = [e for e in legal if e["action"] == "loser"]
            elif forward:
                legal = forward
            elif lays and not (takes and draw(st.integers(0, 9)) == 9):
                legal = lays
            else:
                legal = takes or lays or legal
        entry = draw(st.sampled_from(legal))
        args = {
            key: draw(st.sampled_from(value)) if isinstance(value, list) else value
            for key, value in entry.items()
            if key != "action"
        }
        raw = {"id": f"t{i}", "action": entry["action"], **args}
        state = state.apply(Tap.from_json(raw))
        log.append(raw)
    return names, context, log


@FAST
@given(logs())
def test_every_prefix_of_a_valid_log_replays(case):
    names, context, log = case
    for k in range(len(log) + 1):
        state = replay(VezimasDeal.start(names, context), log[:k])
        total = sum(state.counts) + len(state.pile)
        assert total == len(engine.DECK)  # every card is in a hand or on the pile
        assert all(len(k) <= c for k, c in zip(state.known, state.counts, strict=True))


@FAST
@given(logs())
def test_undo_then_redo_is_identity(case):
    names, context, log = case
    if log:
        undone = replay(VezimasDeal.start(names, context), log[:-1])
        assert undone.apply(Tap.from_json(log[-1])) == replay(
            VezimasDeal.start(names, context), log
        )


@FAST
@given(logs(), st.data())
def test_a_tap_id_applied_twice_changes_nothing(case, data):
    names, context, log = case
    if log:
        again = data.draw(st.sampled_from(log))
        state = replay(VezimasDeal.start(names, context), log)
        assert replay(VezimasDeal.start(names, context), [*log, again]) == state


@FAST
@given(logs(complete=True))
def test_the_closing_request_scores_as_the_engine_does(case):
    names, context, log = case
    answer = replay(VezimasDeal.start(names, context), log).to_json()
    assert answer["complete"], answer["next"]
    closing = answer["closing"]
    assert closing["kind"] == "vezimas-deal"
    assert api.evaluate(closing["kind"], closing["request"]) == answer["next_deal"]


@FAST
@given(logs())
def test_every_lay_the_state_offers_is_a_legal_beat_for_the_engine(case):
    names, context, log = case
    state = replay(VezimasDeal.start(names, context), log)
    if state.top is None or state.over:
        return
    for entry in state.legal():
        if entry["action"] == "lay":
            for code in entry["card"]:
                assert api.evaluate("vezimas-beat", state.beat_request(card=code))["legal"]


@FAST
@given(logs())
def test_the_log_and_the_state_survive_a_json_round_trip(case):
    names, context, log = case
    text = json.dumps({"players": names, "settings": context, "taps": log})
    body, status = respond("vezimas", text)
    assert status == 200
    state = replay(VezimasDeal.start(names, context), log)
    assert body == json.loads(json.dumps(state.to_json()))
    assert [Tap.from_json(t).to_json() for t in json.loads(text)["taps"]] == log


TAP_SHAPES = st.one_of(
    st.builds(lay, st.integers(-1, 4), st.sampled_from([*DECK, "2C"])),
    st.builds(take, st.integers(0, 4)),
    st.builds(lambda s: {"action": "loser", "seat": s}, st.integers(0, 4)),
    st.builds(lambda s: {"action": "queen", "seat": s}, st.integers(0, 3)),
    st.builds(lambda s: {"action": "nine", "seat": s}, st.integers(0, 3)),
)


@FAST
@given(logs(), TAP_SHAPES)
def test_can_agrees_with_apply_and_a_refusal_names_its_tap(case, shape):
    names, context, log = case
    state = replay(VezimasDeal.start(names, context), log)
    tap = Tap.from_json({"id": "probe", **shape})
    if state.can(tap):
        state.apply(tap)
        return
    with pytest.raises(RuleError):
        state.apply(tap)
    with pytest.raises(Refused) as caught:
        replay(VezimasDeal.start(names, context), [*log, tap.to_json()])
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
        "vezimas", json.dumps({"players": THREE, "settings": raw_settings, "taps": log})
    )
    assert status in (200, 422), body
    if status == 422:
        assert body["error"]["message"]
