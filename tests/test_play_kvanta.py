"""A Kvanta round as a log of taps (RULES.md §3): the dealer draw, the burned cards once
per game (K-D9), the deal passing left (K-D10), the turned card, the target roll, Hand,
the tricks and the exchange die rolled by the trick's winner, Flux, the call and the
poker prize, the three endings; and the scoring requests the round makes."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekeeper import api
from scorekeeper.games.play import Refused, Tap, play, replay, state_type
from scorekeeper.games.play import kvanta as module
from scorekeeper.games.play.kvanta import KvantaRound

NAMES = ["Milica", "Dragan", "Ceca"]
EXAMPLES = sorted((Path(__file__).parent / "data" / "play").glob("kvanta-*.json"))
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
CARDS = [r + s for r in RANKS for s in "SHDC"]


class Log:
    """Taps with ids made up as they are added."""

    def __init__(self):
        self.taps: list[dict] = []

    def __call__(self, action: str, **args) -> Log:
        self.taps.append({"id": f"t{len(self.taps)}", "action": action, **args})
        return self


def state(taps, players=NAMES, **context) -> KvantaRound:
    return replay(KvantaRound.start(players, context), taps)


def to_tricks(log: Log, dealer: int = 0, dice=(3, 5, 6), turned: str = "JH") -> Log:
    roller = (dealer + 1) % 3
    return log("turn", seat=dealer, card=turned)("roll", seat=roller, dice=list(dice))("no-hand")


def test_doctests():
    assert doctest.testmod(module).failed == 0


def test_the_state_type_is_registered():
    assert state_type("kvanta") is KvantaRound


# ― the game's start: dealer draw, burned cards once per game, the deal passing left ―


def test_the_first_round_starts_with_the_dealer_draw_then_the_dealer_burns():
    log = Log()("draw", seat=0, card="5C")("draw", seat=1, card="2S")
    assert state(log.taps).phase == "dealer"
    log("draw", seat=2, card="9H")
    round_ = state(log.taps)
    assert round_.phase == "burn" and round_.to_json()["dealer"] == "Dragan"
    assert round_.to_json()["turn"] == 1
    step = round_.scoring()[0]
    assert step["kind"] == "kvanta-dealer"
    assert api.evaluate("kvanta-dealer", step["request"])["dealer"] == "Dragan"
    with pytest.raises(Refused, match="Dragan burns"):
        state([*log.taps, {"id": "x", "action": "burn", "seat": 0, "count": 3}])
    after = state(log("burn", seat=1, count=4).taps)
    assert after.phase == "turn" and after.burn == 4


def test_identical_lowest_draws_cancel_and_a_full_cancel_draws_again():
    log = Log()("draw", seat=0, card="2S")("draw", seat=1, card="2S")("draw", seat=2, card="9H")
    assert state(log.taps).to_json()["dealer"] == "Ceca"  # the two 2♠ cancel out
    log = Log()("draw", seat=0, card="4D")("draw", seat=1, card="4D")
    two = state(log.taps, players=NAMES[:2])
    assert two.phase == "dealer" and two.dealer is None  # every card cancelled
    log("draw", seat=1, card="KS")("draw", seat=0, card="3C")
    again = state(log.taps, players=NAMES[:2])
    assert again.dead_draws == 1 and again.to_json()["dealer"] == "Milica"


def test_burned_cards_are_set_once_per_game_k_d9():
    assert KvantaRound.start(NAMES, {"dealer": "Ceca"}).phase == "burn"  # round 1
    later = KvantaRound.start(NAMES, {"round": 2, "dealer": "Milica"})
    assert later.phase == "turn" and not later.can(Tap("b", "burn", (("seat", 0), ("count", 2))))


def test_the_deal_passes_left_and_the_player_left_of_the_dealer_rolls_k_d10():
    round_ = KvantaRound.start(NAMES, {"round": 4, "dealer": "Ceca"})
    answer = round_.to_json()
    assert answer["next_dealer"] == "Milica" and answer["roller"] == "Milica"
    with pytest.raises(Refused) as caught:
        state(Log()("turn", seat=2, card="9S")("roll", seat=1, dice=[1, 2, 3]).taps,
              round=4, dealer="Ceca")  # fmt: skip
    assert caught.value.index == 1 and caught.value.path == "taps[1].seat"
    assert "Milica rolls the target" in caught.value.message


def test_later_rounds_need_their_dealer():
    with pytest.raises(Refused) as caught:
        KvantaRound.start(NAMES, {"round": 2})
    assert caught.value.path == "settings.dealer"
    with pytest.raises(Refused):
        KvantaRound.start(NAMES, {"house": 1})
    with pytest.raises(Refused, match="Kvanta is played by 2 to 6 players; 1 given"):
        KvantaRound.start(["Solo"], {})
    with pytest.raises(Refused) as caught:
        KvantaRound.start(["Ana", "Ana"], {})
    assert caught.value.path == "players[1]"


# ― the target and the Hand ―


def test_a_roll_is_a_tap_carrying_its_dice_and_a_reroll_keeps_every_roll():
    log = Log()("turn", seat=0, card="JH")("roll", seat=1, dice=[3, 5, 6])
    assert state(log.taps, dealer="Milica", burned=True).target == 14
    log("reroll", seat=2, dice=[1, 1, 2])
    rolls = state(log.taps, dealer="Milica", burned=True).to_json()["rolls"]
    assert [(r["by"], r["target"], r["counts"]) for r in rolls] == [
        ("Dragan", 14, False),
        ("Ceca", 4, True),
    ]
    with pytest.raises(Refused, match="A die shows 1 to 6"):
        state([*log.taps, {"id": "x", "action": "reroll", "seat": 0, "dice": [0, 3, 3]}],
              dealer="Milica", burned=True)  # fmt: skip


def test_a_reroll_from_a_screen_that_had_not_seen_the_latest_roll_is_refused():
    """#24: a roll again is deliberate: the tap says how many rolls its phone showed, and
    one sent from a phone that had not seen another phone's roll again changes nothing."""
    log = Log()("turn", seat=0, card="JH")("roll", seat=1, dice=[3, 5, 6])
    log("reroll", seat=2, dice=[1, 1, 2], seen=1)
    round_ = state(log.taps, dealer="Milica", burned=True)
    assert round_.target == 4 and len(round_.rolls) == 2
    (legal,) = [e for e in round_.to_json()["legal"] if e["action"] == "reroll"]
    assert legal["seen"] == [2]
    late = Tap("late", "reroll", (("seat", 0), ("dice", [6, 6, 6]), ("seen", 1)))
    with pytest.raises(
        Refused, match="rolled 2 times already, not 1: its latest roll, 4"
    ) as caught:
        round_.apply(late)
    assert caught.value.path == ".seen"
    assert not round_.can(Tap("b", "reroll", (("seat", 0), ("dice", [6, 6, 6]), ("seen", True))))
    again = round_.apply(Tap("ok", "reroll", (("seat", 0), ("dice", [6, 6, 6]), ("seen", 2))))
    assert again.target == 18
    assert [r["by"] for r in again.to_json()["rolls"]] == ["Dragan", "Ceca", "Milica"]


def test_a_hand_goes_straight_to_poker_and_its_cards_are_carried():
    """+15 to the Hand; the cards typed for the check come along to the poker (#24)."""
    log = Log()("turn", seat=0, card="2H")("roll", seat=1, dice=[3, 5, 6])  # target 14
    log("cards", seat=0, cards=["9H", "5D", "KS", "QS", "JC", "KH", "QH"])  # 14
    log("sum", seat=1, sum=-3)("sum", seat=2, sum=20)("settle")
    round_ = state(log.taps, dealer="Milica", burned=True)
    assert round_.phase == "poker" and round_.to_json()["hand"] == "Milica"
    shows = round_.to_json()["shows"]
    assert shows["Milica"]["cards"] == ["9H", "5D", "KS", "QS", "JC", "KH", "QH"]
    assert not shows["Dragan"]["complete"]  # a sum gives no cards for the poker
    hand = round_.scoring()[0]
    assert hand["kind"] == "kvanta-hand" and hand["points"] == {"Milica": engine_hand_points()}


def engine_hand_points() -> int:
    from scorekeeper.games.kvanta import HAND_POINTS

    return HAND_POINTS


def test_two_hands_tied_after_the_tests_need_the_draw_winner():
    log = Log()("turn", seat=0, card="2H")("roll", seat=1, dice=[1, 1, 1])  # target 3
    log("sum", seat=0, sum=3)("sum", seat=1, sum=-3)("sum", seat=2, sum=9)
    tied = state(log.taps, dealer="Milica", burned=True)
    assert not tied.can(Tap("s", "settle"))
    legal = {e["action"]: e for e in tied.to_json()["legal"]}
    assert legal["draw-winner"]["seat"] == [0, 1] and "settle" not in legal
    log("draw-winner", seat=1)("settle")
    assert state(log.taps, dealer="Milica", burned=True).to_json()["hand"] == "Dragan"


def test_no_hand_is_refused_as_a_settle_and_goes_to_the_tricks():
    log = Log()("turn", seat=0, card="2H")("roll", seat=1, dice=[1, 1, 1])
    log("sum", seat=0, sum=4)("sum", seat=1, sum=5)("sum", seat=2, sum=9)
    with pytest.raises(Refused, match="Nobody's sum equals the target 3"):
        state([*log.taps, {"id": "s", "action": "settle"}], dealer="Milica", burned=True)
    after = state(log("no-hand").taps, dealer="Milica", burned=True)
    assert after.phase == "tricks" and after.to_json()["trick"]["leader"] == "Dragan"


# ― tricks and the exchange die ―


def test_the_trick_winner_rolls_the_exchange_die():
    log = to_tricks(Log())("trick-winner", seat=2)
    round_ = state(log.taps, dealer="Milica", burned=True)
    assert round_.to_json()["turn"] == 2
    assert round_.to_json()["next"]["text"] == "Ceca won trick 1 and rolls the exchange die."
    with pytest.raises(Refused, match="Ceca won the trick"):
        state([*log.taps, {"id": "x", "action": "exchange", "seat": 0, "die": 3}],
              dealer="Milica", burned=True)  # fmt: skip
    rolled = state(log("exchange", seat=2, die=3).taps, dealer="Milica", burned=True)
    assert rolled.to_json()["next"]["text"] == (
        "Ceca rolled 3: Ceca exchanges 3 cards (and so does everyone) or calls."
    )
    assert {e["action"] for e in rolled.to_json()["legal"]} == {"call", "next-trick", "end"}
    log("next-trick", seat=2)
    on = state(log.taps, dealer="Milica", burned=True).to_json()["trick"]
    assert on["number"] == 2 and on["leader"] == "Ceca" and on["die"] is None


def test_every_die_rolled_is_listed_with_who_rolled_it_and_whether_it_was_real():
    log = Log()("turn", seat=0, card="JH")("roll", seat=1, dice=[3, 5, 6], physical=True)
    log("no-hand")("trick-winner", seat=2)("exchange", seat=2, die=6)("next-trick", seat=2)
    log("trick-winner", seat=0)("exchange", seat=0, die=4)
    answer = state(log.taps, dealer="Milica", burned=True).to_json()
    assert answer["rolls"] == [
        {"by": "Dragan", "dice": [3, 5, 6], "target": 14, "physical": True, "counts": True,
         "tap": "t1"}
    ]  # fmt: skip
    assert [(e["by"], e["trick"], e["die"], e["flux"], e["tap"]) for e in answer["exchanges"]] == [
        ("Ceca", 1, 6, True, "t4"),
        ("Milica", 2, 4, False, "t7"),
    ]
    assert [s["kind"] for s in answer["scoring"]] == ["kvanta-flux"]
    assert answer["scoring_taps"] == ["t4"]  # the Flux is its exchange tap's
    with pytest.raises(Refused, match="physical is true"):
        state(Log()("turn", seat=0, card="JH")("roll", seat=1, dice=[1, 1, 1], physical=1).taps,
              dealer="Milica", burned=True)  # fmt: skip


def test_a_dead_trick_is_played_again_and_the_engine_names_the_winner_k_d1():
    log = to_tricks(Log(), turned="2C")
    log("play", seat=0, card="7S")("play", seat=1, card="7S")("play", seat=2, card="7S")
    dead = state(log.taps, dealer="Milica", burned=True)
    assert dead.trick_winner is None and dead.to_json()["trick"]["dead"] == 0
    log("play", seat=0, card="7H")("play", seat=1, card="7H")("play", seat=2, card="5C")
    again = state(log.taps, dealer="Milica", burned=True)
    assert again.to_json()["trick"]["dead"] == 1
    assert again.to_json()["trick"]["winner"] == "Ceca"  # the only trump


def test_a_flux_scores_five_at_once_and_a_flux_call_must_hit_the_target():
    log = to_tricks(Log())("trick-winner", seat=1)("exchange", seat=1, die=6)
    fluxed = state(log.taps, dealer="Milica", burned=True)
    flux = fluxed.scoring()[-1]
    assert flux["kind"] == "kvanta-flux" and flux["points"] == {"Dragan": 5}
    log("call", seat=1)("sum", seat=0, sum=10)("sum", seat=1, sum=13)("sum", seat=2, sum=2)
    with pytest.raises(Refused, match="Flux call"):
        state([*log.taps, {"id": "s", "action": "settle"}], dealer="Milica", burned=True)
    log.taps[-2]["sum"] = -14  # the new cards hit the target: Bull's Eyes after Flux
    log("settle")
    called = state(log.taps, dealer="Milica", burned=True)
    call = called.scoring()[-1]
    assert call["request"]["flux"] is True
    assert call["points"] == {"Milica": -4, "Dragan": 4 + 12 + 20, "Ceca": -12}


def test_the_rules_example_call_settlement():
    """RULES §3: target 14, caller distance 2, others 4, 5, 6, 3, 2."""
    names = ["A", "B", "C", "D", "E", "F"]
    log = Log()("turn", seat=5, card="10D")("roll", seat=0, dice=[3, 5, 6])("no-hand")
    log("trick-winner", seat=0)("exchange", seat=0, die=2)("call", seat=0)
    for seat, total in enumerate([12, 10, 9, 8, 11, 12]):
        log("sum", seat=seat, sum=total)
    log("settle")
    round_ = state(log.taps, players=names, dealer="F", burned=True)
    assert round_.scoring()[-1]["points"] == {"A": 10, "B": -2, "C": -3, "D": -4, "E": -1, "F": 0}


def test_a_k_prize_sees_the_totals_after_the_call():
    log = to_tricks(Log(), turned="KD")("trick-winner", seat=2)("exchange", seat=2, die=1)
    log("call", seat=2)("sum", seat=0, sum=10)("sum", seat=1, sum=14)("sum", seat=2, sum=12)
    log("settle")
    log("cards", seat=0, cards=["2C", "3C", "4C", "5C", "6C"])
    log("cards", seat=1, cards=["2D", "2S", "9D", "9S", "9C"])
    log("cards", seat=2, cards=["AH", "KS", "QD", "JD", "9H"])
    log("settle")
    done = state(log.taps, dealer="Milica", burned=True, totals={"Milica": 10, "Ceca": 40})
    poker = done.scoring()[-1]
    # after the call Dragan undercut: Milica 10-4-5=..., computed by the engine
    totals = poker["request"]["totals"]
    call_points = done.scoring()[-2]["points"]
    assert totals == {"Milica": 10 + call_points["Milica"], "Dragan": call_points["Dragan"],
                      "Ceca": 40 + call_points["Ceca"]}  # fmt: skip
    assert poker["result"]["winner"] == "Milica"
    assert poker["points"]["Milica"] == max(totals.values()) - totals["Milica"]
    answer = done.to_json()
    assert answer["complete"] and answer["closing"] == answer["scoring"]
    assert answer["next"]["text"] == "Round 1 is over; Dragan deals the next one."


def test_the_turned_card_counts_toward_three_copies():
    log = to_tricks(Log(), turned="JH")("trick-winner", seat=0)("exchange", seat=0, die=1)
    log("call", seat=0)("card", seat=0, card="JH")("card", seat=1, card="JH")
    with pytest.raises(Refused, match="All three JH") as caught:
        state([*log.taps, {"id": "x", "action": "card", "seat": 2, "card": "JH"}],
              dealer="Milica", burned=True)  # fmt: skip
    assert caught.value.path == f"taps[{len(log.taps)}].card"


def test_cards_and_uncard_are_intents_on_one_seat():
    log = to_tricks(Log())("trick-winner", seat=0)("exchange", seat=0, die=1)("call", seat=0)
    log("card", seat=1, card="5H")("card", seat=1, card="5H")("uncard", seat=1, card="5H")
    assert state(log.taps, dealer="Milica", burned=True).shows[1].cards == ("5H",)
    with pytest.raises(Refused, match="not among"):
        state([*log.taps, {"id": "x", "action": "uncard", "seat": 1, "card": "9C"}],
              dealer="Milica", burned=True)  # fmt: skip


# ― the end of the game ―


def test_the_burned_cards_reached_while_dealing_stop_the_game():
    round_ = state(Log()("end", case="stop").taps, round=7, dealer="Ceca")
    answer = round_.to_json()
    assert answer["game_over"] and answer["complete"] and answer["closing"] == []


def test_the_final_poker_has_no_target_k_d9():
    log = Log()("end", case="poker")("turn", seat=2, card="5S")
    for seat, cards in enumerate([["AS", "AH", "AD", "2C", "3C"], ["KS", "KH", "4D", "4C", "9S"],
                                  ["2S", "3S", "4S", "6S", "9D"]]):  # fmt: skip
        log("cards", seat=seat, cards=cards)
    log("settle")
    answer = state(log.taps, round=7, dealer="Ceca").to_json()
    assert answer["game_over"] and answer["target"] is None
    assert [s["kind"] for s in answer["closing"]] == ["kvanta-poker"]
    assert answer["closing"][0]["points"]["Milica"] == 5


def test_the_burned_cards_reached_while_drawing_give_the_final_comparison_k_d6():
    log = to_tricks(Log())("end", case="compare")
    for seat, total in enumerate([13, 11, 17]):
        log("sum", seat=seat, sum=total)
    log("settle")
    answer = state(log.taps, dealer="Milica", burned=True).to_json()
    call = answer["closing"][-1]
    assert call["request"]["caller"] is None and answer["game_over"]
    assert call["points"] == {"Milica": 2 + 2, "Dragan": -2, "Ceca": -2}


def test_a_tap_at_the_wrong_moment_says_what_comes_next():
    with pytest.raises(Refused) as caught:
        state(Log()("roll", seat=1, dice=[1, 2, 3]).taps, dealer="Milica", burned=True)
    assert caught.value.message == (
        "No roll tap now: Milica deals 7 each and turns the next card: trump and poker prize."
    )
    assert caught.value.path == "taps[0].action"


def test_an_unknown_tap_is_refused_naming_the_game_and_its_taps():
    with pytest.raises(Refused) as caught:
        state(Log()("draw", seat=0, card="5H")("fly", seat=1).taps)
    assert caught.value.message == (
        "Kvanta has no tap called “fly”; the taps are draw, burn, turn, roll, reroll, card, "
        "uncard, cards, sum, no-hand, draw-winner, settle, trick-winner, play, exchange, call, "
        "next-trick, end."
    )
    assert caught.value.as_dict()["error"] == {
        "message": caught.value.message,
        "path": "taps[1].action",
        "tap": 1,
    }


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_worked_examples(path):
    case = json.loads(path.read_text())
    if "refused" in case:
        with pytest.raises(Refused) as caught:
            play("kvanta", case["request"])
        assert caught.value.as_dict() == {"error": case["refused"]}
        return
    answer = play("kvanta", case["request"])
    for key, expected in case["expect"].items():
        assert answer[key] == expected, key


def test_there_are_worked_examples():
    assert len(EXAMPLES) >= 3


# ― properties over logs made of legal taps ―


def _show(draw, round_: KvantaRound, seat: int) -> dict:
    if round_.phase in ("hand", "call", "final-compare") and draw(st.booleans()):
        return {"action": "sum", "seat": seat, "sum": draw(st.integers(-70, 70))}
    size = 7 if round_.phase in ("hand", "call", "final-compare") else draw(st.sampled_from([5, 7]))
    return {"action": "cards", "seat": seat,
            "cards": draw(st.lists(st.sampled_from(CARDS), min_size=size, max_size=size))}  # fmt: skip


def _pick(draw, round_: KvantaRound) -> dict:
    """One tap among the legal ones, leaning towards the round moving on."""
    legal = {e["action"]: e for e in round_.to_json()["legal"]}
    missing = round_._missing() if round_.phase in module.SHOWINGS else []
    if "settle" in legal and draw(st.integers(0, 3)):
        return {"action": "settle"}
    if round_.phase == "hand" and draw(st.integers(0, 2)):
        if "draw-winner" in legal:
            return {
                "action": "draw-winner",
                "seat": draw(st.sampled_from(legal["draw-winner"]["seat"])),
            }
        return {"action": "no-hand"}
    if missing and draw(st.integers(0, 5)):
        return _show(draw, round_, draw(st.sampled_from(missing)))
    rare = {"end", "reroll", "uncard"}
    common = sorted(set(legal) - rare) or sorted(legal)
    entry = legal[draw(st.sampled_from(sorted(legal) if not draw(st.integers(0, 9)) else common))]
    tap: dict = {"action": entry["action"]}
    for key, choices in entry.items():
        if key == "action":
            continue
        if choices is not None:
            tap[key] = draw(st.sampled_from(choices))
        elif key == "card":
            held = round_.shows[tap["seat"]].cards if tap["action"] == "uncard" else CARDS
            tap[key] = draw(st.sampled_from(held))
        elif key == "cards":
            tap.update(_show(draw, round_, tap["seat"]) | {"action": "cards"})
            tap.pop("sum", None)
            tap.setdefault("cards", [])
        elif key == "dice":
            tap[key] = draw(st.lists(st.integers(1, 6), min_size=3, max_size=3))
        elif key == "sum":
            tap[key] = draw(st.integers(-70, 70))
    return tap


@st.composite
def logs(draw, max_taps: int = 40) -> tuple[list[str], dict, list[dict]]:
    n = draw(st.integers(2, 6))
    players = ["Ana", "Bojan", "Ceca", "Dragan", "Eva", "Filip"][:n]
    context: dict = {}
    if draw(st.booleans()):
        context["dealer"] = draw(st.sampled_from(players))
        context["round"] = draw(st.integers(1, 3))
        if context["round"] > 1 or draw(st.booleans()):
            context["burned"] = context["round"] > 1
        context["totals"] = {p: draw(st.integers(-50, 50)) for p in players}
    round_ = KvantaRound.start(players, context)
    taps: list[dict] = []
    for _ in range(draw(st.integers(0, max_taps))):
        if round_.complete:
            break
        raw = {"id": f"t{len(taps)}", **_pick(draw, round_)}
        tap = Tap.from_json(raw)
        if not round_.can(tap):
            continue
        round_ = round_.apply(tap)
        taps.append(raw)
    return players, context, taps


@SETTINGS
@given(logs())
def test_every_prefix_of_a_valid_log_is_valid(case):
    players, context, taps = case
    for k in range(len(taps) + 1):
        state(taps[:k], players, **context).to_json()


@SETTINGS
@given(logs())
def test_undo_then_redo_is_identity(case):
    players, context, taps = case
    if taps:
        undone = state(taps[:-1], players, **context)
        assert undone.apply(Tap.from_json(taps[-1])) == state(taps, players, **context)


@SETTINGS
@given(logs(), st.data())
def test_a_tap_id_applied_twice_changes_nothing(case, data):
    players, context, taps = case
    if taps:
        again = data.draw(st.sampled_from(taps))
        assert state([*taps, again], players, **context) == state(taps, players, **context)


@SETTINGS
@given(logs())
def test_every_scoring_request_scores_as_the_engine_does(case):
    players, context, taps = case
    answer = state(taps, players, **context).to_json()
    total = dict.fromkeys(players, 0)
    for step in answer["scoring"]:
        result = api.evaluate(step["kind"], json.loads(json.dumps(step["request"])))
        assert result.get("points", {}) == step["points"]
        for name, value in step["points"].items():
            total[name] += value
    assert total == answer["round_points"]
    assert (answer["closing"] is not None) == answer["complete"]


@SETTINGS
@given(logs())
def test_the_log_and_the_answer_survive_json(case):
    players, context, taps = case
    request = json.loads(json.dumps({"players": players, "settings": context, "taps": taps}))
    assert (
        json.loads(json.dumps(play("kvanta", request))) == state(taps, players, **context).to_json()
    )


@SETTINGS
@given(logs())
def test_a_refused_tap_names_its_index(case):
    players, context, taps = case
    bad = {"id": "bad", "action": "burn", "seat": 0, "count": 11}
    with pytest.raises(Refused) as caught:
        state([*taps, bad], players, **context)
    assert caught.value.index == len(taps)


def test_play_md_documents_every_action_and_its_example_replays():
    text = (Path(__file__).parent.parent / "PLAY.md").read_text()
    section = text.split("## Kvanta", 1)[1].split("\n## ", 1)[0]
    table = " ".join(line for line in section.splitlines() if line.startswith("| `"))
    assert {name for name in module._HANDLERS if f"`{name}`" not in table} == set()
    example = json.loads(section.split("```json", 1)[1].split("```", 1)[0])
    answer = play("kvanta", example)
    assert answer["phase"] == "poker"
    assert answer["round_points"] == {"Ana": -1, "Bojan": -2, "Ceca": 3}


def test_the_next_seat_to_enter_and_the_cards_used_up():
    log = to_tricks(Log(), turned="QD")("trick-winner", seat=0)("exchange", seat=0, die=2)
    log("call", seat=0)("sum", seat=1, sum=4)("card", seat=2, card="QD")("card", seat=0, card="QD")
    round_ = state(log.taps, dealer="Milica", burned=True)
    assert round_.next_missing(after=0) == 2 and round_.next_missing(after=2) == 0
    assert round_.to_json()["used_up"] == ["QD"]
    with pytest.raises(Refused, match="All three QD"):
        round_.apply(Tap("x", "card", (("seat", 2), ("card", "QD"))))


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 80),
    st.text(max_size=4),
    st.sampled_from(CARDS + ["JK", "RJ", "XX"]),
    st.lists(st.one_of(st.integers(0, 7), st.sampled_from(CARDS)), max_size=8),
)


@SETTINGS
@given(logs(max_taps=25), st.sampled_from(sorted(module._HANDLERS)), st.data())
def test_any_tap_is_taken_or_refused_with_a_reason(case, action, data):
    players, context, taps = case
    keys = module._ARGS[action] + ("extra",)
    args = data.draw(st.dictionaries(st.sampled_from(keys), JUNK, max_size=4))
    round_ = state(taps, players, **context)
    try:
        after = round_.apply(Tap("junk", action, tuple(args.items())))
    except Refused as refused:
        assert refused.message and refused.path.startswith((".", "")) and len(refused.message) < 300
    else:
        json.dumps(after.to_json())


# ― the poker prize's working (#24: how the prize follows from the turned card) ―


def final_poker(prize_card: str, hands: list[list[str]], players=NAMES, settle=True) -> KvantaRound:
    log = Log()("end", case="poker")("turn", seat=len(players) - 1, card=prize_card)
    for seat, cards in enumerate(hands):
        log("cards", seat=seat, cards=cards)
    if settle:
        log("settle")
    return state(log.taps, players, round=7, dealer=players[-1])


def test_a_j_prize_shows_v_vmax_the_gap_over_four_and_the_rounding_up():
    done = final_poker("JS", [["AS", "AH", "AD", "2C", "3C"],  # three aces, value 4
                              ["KS", "KH", "4D", "4C", "9S"],  # two pair, value 9
                              ["2S", "3S", "4S", "6S", "9D"]])  # fmt: skip
    working = done.to_json()["prize"]
    assert working == {
        "card": "JS", "rank": "J", "winner": "Milica", "prize": 2, "case": "gap",
        "v": 4, "vmax": 9, "gap": 5, "divisor": 4, "top": 5,
        "text": "J: v = 4 (Milica), vmax = 9; (vmax − v) / 4 = 5 / 4 = 1.25, rounded up: 2.",
    }  # fmt: skip
    assert done.scoring()[-1]["points"]["Milica"] == working["prize"]


def test_a_j_prize_on_an_exact_quarter_is_not_rounded():
    done = final_poker("JS", [["AS", "AH", "AD", "2C", "3C"],  # value 4
                              ["KS", "KH", "4D", "4C", "8S"],  # value 8
                              ["2S", "3S", "4S", "6S", "9D"]])  # fmt: skip
    working = done.to_json()["prize"]
    assert (working["gap"], working["prize"]) == (4, 1)
    assert working["text"] == "J: v = 4 (Milica), vmax = 8; (vmax − v) / 4 = 4 / 4 = 1."


def test_a_q_prize_to_the_highest_value_is_its_top_prize():
    done = final_poker("QS", [["9H", "9D", "9C", "8H", "8D"],  # full house, value 25
                              ["KS", "KH", "4D", "4C", "9S"],
                              ["2S", "3S", "4S", "6S", "9D"]])  # fmt: skip
    working = done.to_json()["prize"]
    assert (working["case"], working["gap"], working["divisor"], working["prize"]) == (
        "gap", 0, 2, 2)  # fmt: skip
    assert working["text"] == "Q: Milica's value v = 25 is the highest, so the prize is 2."
    assert done.scoring()[-1]["points"]["Milica"] == 2


def test_the_working_is_shown_once_every_hand_is_in_before_the_settle():
    hands = [["AS", "AH", "AD", "2C", "3C"], ["KS", "KH", "4D", "4C", "9S"]]
    assert final_poker("JS", hands, settle=False).to_json()["prize"] is None
    shown = final_poker("JS", [*hands, ["2S", "3S", "4S", "6S", "9D"]], settle=False)
    assert shown.phase == "final-poker" and shown.to_json()["prize"]["prize"] == 2


def test_a_face_an_ace_and_a_cancelled_prize_say_so():
    hands = [["AS", "AH", "AD", "2C", "3C"], ["KS", "KH", "4D", "4C", "9S"],
             ["2S", "3S", "4S", "6S", "9D"]]  # fmt: skip
    face = final_poker("7D", hands).to_json()["prize"]
    assert (face["case"], face["prize"]) == ("face", 7)
    assert face["text"] == "A 7 is worth its face value: Milica wins 7."
    ace = final_poker("AC", [["AS", "AH", "KD", "2C", "3C"], *hands[1:]]).to_json()["prize"]
    assert (ace["case"], ace["prize"], ace["winner"]) == ("ace", 1, "Dragan")
    assert ace["text"] == "An ace is worth 1 (K-D5): Dragan wins 1."
    same = [["AS", "KS", "QH", "JD", "9C"], ["AH", "KH", "QD", "JC", "9S"]]
    cancelled = final_poker("5H", same, players=NAMES[:2]).to_json()["prize"]
    assert (cancelled["case"], cancelled["winner"], cancelled["prize"]) == ("cancelled", None, 0)


def test_a_k_prize_shows_the_winners_total_and_the_lead():
    log = to_tricks(Log(), turned="KD")("trick-winner", seat=2)("exchange", seat=2, die=1)
    log("call", seat=2)("sum", seat=0, sum=10)("sum", seat=1, sum=14)("sum", seat=2, sum=12)
    log("settle")
    log("cards", seat=0, cards=["2C", "3C", "4C", "5C", "6C"])
    log("cards", seat=1, cards=["2D", "2S", "9D", "9S", "9C"])
    log("cards", seat=2, cards=["AH", "KS", "QD", "JD", "9H"])
    log("settle")
    done = state(log.taps, dealer="Milica", burned=True, totals={"Milica": 10, "Ceca": 40})
    working = done.to_json()["prize"]
    totals = done.scoring()[-1]["request"]["totals"]
    assert working["case"] == "king" and working["winner"] == "Milica"
    assert (working["total"], working["leader_total"]) == (totals["Milica"], max(totals.values()))
    assert working["prize"] == working["leader_total"] - working["total"] > 0
    assert working["text"] == (
        f"K: Milica has {working['total']}, the lead is {working['leader_total']}: "
        f"{working['prize']} draws level with it."
    )


@SETTINGS
@given(
    st.sampled_from(["J", "Q"]),
    st.sampled_from("SHDC"),
    st.lists(
        st.lists(st.sampled_from(CARDS), min_size=5, max_size=7).filter(lambda h: len(h) != 6),
        min_size=2,
        max_size=4,
    ),
)
def test_a_j_or_q_working_adds_up_to_the_engines_prize(rank, suit, hands):
    """The working's divisor and top prize are the engine's: its arithmetic (the gap
    over the divisor, rounded up, or the top prize on a gap of 0) gives the prize the
    engine scored, for any hands."""
    players = ["Ana", "Bojan", "Ceca", "Dragan"][: len(hands)]
    try:
        done = final_poker(rank + suit, hands, players=players)
    except Refused:  # more than three copies of a card: not a showing
        return
    working = done.to_json()["prize"]
    scored = done.scoring()[-1]
    assert working["prize"] == scored["result"]["prize"]
    if working["winner"] is None:
        return
    assert scored["points"][working["winner"]] == working["prize"]
    gap, divisor = working["gap"], working["divisor"]
    assert gap == working["vmax"] - working["v"] >= 0
    assert working["prize"] == (working["top"] if gap == 0 else -(-gap // divisor))


# ― which tap made each scoring step (a screen stores a step under its tap's id) ―


def test_each_scoring_step_names_the_tap_that_made_it():
    log = Log()("draw", seat=0, card="5C")("draw", seat=1, card="2S")("draw", seat=2, card="9D")
    log("burn", seat=1, count=3)("turn", seat=1, card="JH")("roll", seat=2, dice=[3, 5, 6])
    log("no-hand")("trick-winner", seat=0)("exchange", seat=0, die=6)("next-trick", seat=0)
    log("trick-winner", seat=1)("exchange", seat=1, die=2)("call", seat=1)
    for seat, total in enumerate([10, 14, 12]):
        log("sum", seat=seat, sum=total)
    log("settle")  # t16: the call
    for seat, cards in enumerate([["2C", "3C", "4C", "5C", "6C"], ["2D", "2S", "9D", "9S", "9C"],
                                  ["AH", "KS", "QD", "JD", "9H"]]):  # fmt: skip
        log("cards", seat=seat, cards=cards)
    log("settle")  # t20: the poker
    steps = []
    for k in range(len(log.taps) + 1):
        answer = state(log.taps[:k]).to_json()
        assert len(answer["scoring_taps"]) == len(answer["scoring"])
        steps.append(answer["scoring_taps"])
    assert steps[-1] == ["t2", "t8", "t16", "t20"]
    assert [s["kind"] for s in answer["scoring"]] == [
        "kvanta-dealer", "kvanta-flux", "kvanta-call", "kvanta-poker"]  # fmt: skip
    # a step appears with its tap and goes with it: the log cut before the tap lacks it
    for k, taps in enumerate(steps[1:], start=1):
        made = [t for t in taps if t not in steps[k - 1]]
        assert made in ([], [log.taps[k - 1]["id"]])
    # a roll again is listed under its own tap
    again = Log()("turn", seat=0, card="JH")("roll", seat=1, dice=[1, 2, 3])
    again("reroll", seat=2, dice=[6, 6, 6], seen=1)
    rolls = state(again.taps, dealer="Milica", burned=True).to_json()["rolls"]
    assert [(r["by"], r["tap"], r["counts"]) for r in rolls] == [
        ("Dragan", "t1", False), ("Ceca", "t2", True)]  # fmt: skip


def test_a_hand_and_a_final_comparison_name_their_settling_taps():
    log = Log()("turn", seat=0, card="2H")("roll", seat=1, dice=[3, 5, 6])
    log("cards", seat=0, cards=["9H", "5D", "KS", "QS", "JC", "KH", "QH"])
    log("sum", seat=1, sum=-3)("sum", seat=2, sum=20)("settle")
    assert state(log.taps, dealer="Milica", burned=True).scoring_taps() == ["t5"]
    final = to_tricks(Log())("end", case="compare")
    for seat, total in enumerate([13, 11, 17]):
        final("sum", seat=seat, sum=total)
    final("settle")
    assert state(final.taps, dealer="Milica", burned=True).scoring_taps() == ["t7"]


@SETTINGS
@given(logs())
def test_scoring_taps_run_beside_scoring_and_name_taps_of_the_log(case):
    players, context, taps = case
    answer = state(taps, players, **context).to_json()
    ids = [t["id"] for t in taps]
    assert len(answer["scoring_taps"]) == len(answer["scoring"])
    assert all(t in ids for t in answer["scoring_taps"])
    positions = [ids.index(t) for t in answer["scoring_taps"]]
    assert positions == sorted(positions)  # in the order the steps were made
