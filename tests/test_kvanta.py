"""Kvanta engine (RULES §3, CONTRACT "Kvanta"): the worked examples, decisions
K-D1 … K-D8, the rules' own worked example, the prizes and every refusal."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import pytest

from scorekeeper import api
from scorekeeper.cards import parse_card
from scorekeeper.errors import RuleError
from scorekeeper.games import kvanta

EXAMPLES = Path(__file__).parent / "data" / "examples"
KINDS = (
    "kvanta-dealer",
    "kvanta-hand",
    "kvanta-trick",
    "kvanta-flux",
    "kvanta-call",
    "kvanta-poker",
)


def score(kind: str, **request):
    return api.evaluate(kind, request)


def refused(kind: str, path: str | None = None, **request) -> RuleError:
    with pytest.raises(RuleError) as caught:
        api.evaluate(kind, request)
    if path is not None:
        assert caught.value.path == path
    assert caught.value.message.endswith(".")
    return caught.value


def cards(text: str) -> list[str]:
    return text.split()


# --- worked examples --------------------------------------------------------------------


def example_cases():
    for kind in KINDS:
        cases = json.loads((EXAMPLES / f"{kind}.json").read_text(encoding="utf-8"))
        for index, case in enumerate(cases):
            yield pytest.param(kind, case, id=f"{kind}-{index}")


def same(expected, got) -> bool:
    """Lists compare as multisets (their order is free); objects field by field."""
    if isinstance(expected, list):
        return isinstance(got, list) and sorted(map(json.dumps, expected)) == sorted(
            map(json.dumps, got)
        )
    if isinstance(expected, dict):
        return isinstance(got, dict) and all(
            key in got and same(value, got[key]) for key, value in expected.items()
        )
    return expected == got


@pytest.mark.parametrize(("kind", "case"), list(example_cases()))
def test_examples(kind, case):
    if "refused" in case:
        with pytest.raises(RuleError):
            api.evaluate(kind, case["request"])
        return
    got = api.evaluate(kind, case["request"])
    json.dumps(got)  # JSON-serialisable
    for field, expected in case["response"].items():
        assert same(expected, got[field]), field


def test_every_kind_is_dispatched():
    assert set(kvanta.KINDS) == set(KINDS)
    for kind in KINDS:
        assert api.engine_for(kind) is kvanta.KINDS[kind]


def test_docstrings():
    assert doctest.testmod(kvanta).failed == 0


# --- values -----------------------------------------------------------------------------


def test_values_red_adds_black_subtracts_faces_nothing():
    hand = [parse_card(t) for t in cards("AH AS 10D 10C KH QS JD")]
    assert kvanta.signed_sum(hand) == 0
    hand = [parse_card(t) for t in cards("10S 3H QD")]
    assert kvanta.signed_sum(hand) == -7
    assert kvanta.hand_sum(hand) == 7  # −7 and 7 are the same sum


# --- kvanta-dealer ----------------------------------------------------------------------


def test_dealer_is_the_lowest_rank_ace_high():
    assert score("kvanta-dealer", draws={"Ana": "AC", "Bojan": "2S"})["dealer"] == "Bojan"


def test_dealer_equal_ranks_go_by_suit_clubs_lowest():
    draws = {"Ana": "5S", "Bojan": "5H", "Ceca": "5D", "Dora": "5C"}
    assert score("kvanta-dealer", draws=draws)["dealer"] == "Dora"
    draws = {"Ana": "5S", "Bojan": "5H"}
    assert score("kvanta-dealer", draws=draws)["dealer"] == "Bojan"


def test_dealer_identical_lowest_cards_cancel_and_next_lowest_deals():
    got = score("kvanta-dealer", draws={"Ana": "3D", "Bojan": "3D", "Ceca": "3S", "Dora": "KH"})
    assert got["dealer"] == "Ceca"
    assert sorted(got["cancelled"]) == ["Ana", "Bojan"]


def test_dealer_cancellations_repeat_upwards():
    draws = {"Ana": "3D", "Bojan": "3D", "Ceca": "4C", "Dora": "4C", "Ema": "4C", "Filip": "9H"}
    got = score("kvanta-dealer", draws=draws)
    assert got["dealer"] == "Filip"
    assert sorted(got["cancelled"]) == ["Ana", "Bojan", "Ceca", "Dora", "Ema"]


def test_dealer_identical_cards_above_the_lowest_do_not_matter():
    got = score("kvanta-dealer", draws={"Ana": "2C", "Bojan": "9S", "Ceca": "9S"})
    assert got == {"dealer": "Ana", "cancelled": [], "reason": got["reason"]}


def test_dealer_all_cards_cancel_means_draw_again():
    got = score("kvanta-dealer", draws={"Ana": "7H", "Bojan": "7H"})
    assert got["dealer"] is None and sorted(got["cancelled"]) == ["Ana", "Bojan"]
    assert "again" in got["reason"]


# --- kvanta-trick -----------------------------------------------------------------------


def test_trick_highest_trump_wins():
    got = score("kvanta-trick", trump="H", plays={"Ana": "AS", "Bojan": "2H", "Ceca": "5H"})
    assert got == {"winner": "Ceca", "dead": False, "cancelled": []}


def test_trick_without_trumps_highest_rank_regardless_of_suit():
    got = score("kvanta-trick", trump="C", plays={"Ana": "9S", "Bojan": "KD", "Ceca": "QH"})
    assert got["winner"] == "Bojan"


def test_k_d1_equal_ranks_off_trump_cancel_even_in_different_suits():
    got = score("kvanta-trick", trump="C", plays={"Ana": "KS", "Bojan": "KD", "Ceca": "QH"})
    assert got["winner"] == "Ceca" and sorted(got["cancelled"]) == ["Ana", "Bojan"]


def test_k_d1_identical_trumps_cancel_and_the_next_best_wins():
    plays = {"Ana": "7C", "Bojan": "7C", "Ceca": "3C", "Dora": "AH"}
    got = score("kvanta-trick", trump="C", plays=plays)
    assert got == {"winner": "Ceca", "dead": False, "cancelled": ["Ana", "Bojan"]}


def test_k_d1_dead_trick_cancels_everyone():
    got = score(
        "kvanta-trick", trump="H", plays={"Ana": "9S", "Bojan": "9D", "Ceca": "2H", "Dora": "2H"}
    )
    assert got == {"winner": None, "dead": True, "cancelled": ["Ceca", "Dora", "Ana", "Bojan"]}


# --- kvanta-flux ------------------------------------------------------------------------


def test_k_d2_flux_scores_only_the_roller():
    """K-D2: nobody else exchanges on a Flux, and only the roller scores +5."""
    got = score("kvanta-flux", players=["Ana", "Bojan", "Ceca"], player="Bojan")
    assert got == {"points": {"Bojan": 5}, "flux_call": False}


def test_flux_new_hand_hitting_the_target_is_a_flux_call():
    new_hand = cards("10H 4D 2S QS KC JH AD")  # 10 + 4 − 2 + 1 = 13
    got = score("kvanta-flux", players=["Ana", "Bojan"], player="Ana", target=13, new_hand=new_hand)
    assert got == {"points": {"Ana": 5}, "flux_call": True, "sum": 13}


def test_flux_black_new_hand_at_the_target_is_a_flux_call_too():
    new_hand = cards("10S 4C 2H QS KC JH AS")  # −10 − 4 + 2 − 1 = −13
    got = score("kvanta-flux", players=["Ana", "Bojan"], player="Ana", target=13, new_hand=new_hand)
    assert got["flux_call"] is True


def test_flux_new_hand_missing_the_target_leads_a_new_trick():
    new_hand = cards("10H 4D 2S QS KC JH 2D")
    got = score("kvanta-flux", players=["Ana", "Bojan"], player="Ana", target=13, new_hand=new_hand)
    assert got["flux_call"] is False and got["sum"] == 14


# --- kvanta-hand ------------------------------------------------------------------------


def test_hand_is_worth_15_to_the_player_at_the_target():
    got = score("kvanta-hand", target=12, hands={}, sums={"Ana": -12, "Bojan": 5})
    assert got["hand"] == "Ana" and got["points"] == {"Ana": 15} and got["tied"] == []


def test_no_hand_scores_nothing():
    got = score("kvanta-hand", target=12, hands={}, sums={"Ana": 11, "Bojan": 5})
    assert got == {
        "sums": {"Ana": 11, "Bojan": 5},
        "hand": None,
        "tied": [],
        "declared": [],
        "points": {},
    }


def test_several_hands_fewer_black_cards_wins():
    hands = {
        "Ana": cards("10H 2H 3S KS QS JS AH"),  # 10 + 2 − 3 + 1 = 10, four black
        "Bojan": cards("10D 2D 3C KH QH JH AD"),  # 10 + 2 − 3 + 1 = 10, one black
    }
    got = score("kvanta-hand", target=10, hands=hands)
    assert (
        got["hand"] == "Bojan" and got["tied"] == [] and sorted(got["declared"]) == ["Ana", "Bojan"]
    )


def test_several_hands_then_fewer_faces_wins():
    hands = {
        "Ana": cards("4H 2H 3S KH QD JD 2D"),  # 4 + 2 − 3 + 2 = 5: one black, three faces
        "Bojan": cards("3D 2D 3C 2H QD KD AH"),  # 3 + 2 − 3 + 2 + 1 = 5: one black, two faces
    }
    got = score("kvanta-hand", target=5, hands=hands)
    assert got["hand"] == "Bojan" and got["tied"] == []


def test_several_hands_still_tied_need_the_draw_winner():
    hands = {
        "Ana": cards("4H 2H 3S KH QD 9D 9C"),  # 4 + 2 − 3 + 9 − 9 = 3
        "Bojan": cards("4D 2D 3C KD QH 8H 8S"),  # the same shape
        "Ceca": cards("10S 2C 3C 4C 5C 6C 7C"),
    }
    got = score("kvanta-hand", target=3, hands=hands)
    assert got["hand"] is None and sorted(got["tied"]) == ["Ana", "Bojan"] and got["points"] == {}
    got = score("kvanta-hand", target=3, hands=hands, draw_winner="Bojan")
    assert got["hand"] == "Bojan" and got["tied"] == [] and got["points"] == {"Bojan": 15}


def test_hand_tie_between_plain_sums_stays_tied():
    got = score("kvanta-hand", target=9, hands={}, sums={"Ana": 9, "Bojan": -9, "Ceca": 2})
    assert got["hand"] is None and sorted(got["tied"]) == ["Ana", "Bojan"]


# --- kvanta-call ------------------------------------------------------------------------


def test_rules_worked_example_caller_two_away():
    """RULES §3: target 14, caller 2 away, others 4, 5, 6, 3, 2 → +10; −2, −3, −4, −1, 0."""
    sums = {"Caller": 12, "A": 18, "B": 19, "C": 20, "D": 17, "E": 16}
    got = score("kvanta-call", target=14, caller="Caller", hands={}, sums=sums)
    assert got["distances"] == {"Caller": 2, "A": 4, "B": 5, "C": 6, "D": 3, "E": 2}
    assert got["winners"] == ["Caller"]
    assert got["points"] == {"Caller": 10, "A": -2, "B": -3, "C": -4, "D": -1, "E": 0}
    assert got["bulls_eyes"] is False and got["undercut"] is False


def test_bulls_eyes_plus_10_on_top_of_the_payments():
    got = score(
        "kvanta-call", target=9, caller="Ana", hands={}, sums={"Ana": -9, "Bojan": 6, "Ceca": 9}
    )
    assert got["bulls_eyes"] is True and got["undercut"] is False
    # Bojan pays 3, Ceca (also at the target) pays nothing and is no undercut
    assert got["points"] == {"Ana": 13, "Bojan": -3, "Ceca": 0}


def test_bulls_eyes_after_flux_plus_20():
    hand = cards("10H 4D 2S QS KC JH AD")  # 13
    got = score(
        "kvanta-call", target=13, caller="Ana", flux=True, hands={"Ana": hand}, sums={"Bojan": 10}
    )
    assert got["bulls_eyes"] is True
    assert got["points"] == {"Ana": 23, "Bojan": -3}


def test_undercut_plus_5_and_the_payments_go_to_the_undercutter():
    got = score(
        "kvanta-call", target=10, caller="Ana", hands={}, sums={"Ana": 7, "Bojan": 9, "Ceca": 4}
    )
    assert got["winners"] == ["Bojan"] and got["undercut"] is True
    # Ana pays 3 − 1 = 2, Ceca 6 − 1 = 5; +5 undercut
    assert got["points"] == {"Ana": -2, "Bojan": 12, "Ceca": -5}


def test_k_d3_undercutters_sharing_the_smallest_distance_all_win():
    sums = {"Ana": 7, "Bojan": 9, "Ceca": 11, "Dora": 4}
    got = score("kvanta-call", target=10, caller="Ana", hands={}, sums=sums)
    assert sorted(got["winners"]) == ["Bojan", "Ceca"] and got["undercut"] is True
    # each winner: Ana pays 2, Dora pays 5; winners don't pay each other
    assert got["points"] == {"Ana": -4, "Bojan": 12, "Ceca": 12, "Dora": -10}


def test_k_d3_caller_tied_with_the_best_non_caller_keeps_the_round():
    got = score(
        "kvanta-call", target=10, caller="Ana", hands={}, sums={"Ana": 8, "Bojan": 12, "Ceca": 5}
    )
    assert got["winners"] == ["Ana"] and got["undercut"] is False
    assert got["points"] == {"Ana": 3, "Bojan": 0, "Ceca": -3}


def test_zilch_a_paying_sum_of_21_pays_double():
    sums = {"Ana": 12, "Bojan": 21, "Ceca": -21, "Dora": 20}
    got = score("kvanta-call", target=14, caller="Ana", hands={}, sums=sums)
    # distances 2, 7, 7, 6: Bojan and Ceca pay (7 − 2) × 2, Dora 6 − 2
    assert got["points"] == {"Ana": 24, "Bojan": -10, "Ceca": -10, "Dora": -4}
    assert sorted(got["zilch"]) == ["Bojan", "Ceca"]


def test_zilch_only_for_exactly_21_never_20_or_22():
    sums = {"Ana": 12, "Bojan": 20, "Ceca": 22}
    got = score("kvanta-call", target=14, caller="Ana", hands={}, sums=sums)
    assert got["points"] == {"Ana": 10, "Bojan": -4, "Ceca": -6}
    assert got["zilch"] == []


def test_zilch_never_doubles_what_a_winner_receives():
    sums = {"Ana": 21, "Bojan": 22, "Ceca": 25}
    got = score("kvanta-call", target=18, caller=None, hands={}, sums=sums)
    assert got["winners"] == ["Ana"]
    assert got["points"] == {"Ana": 5, "Bojan": -1, "Ceca": -4}


def test_k_d6_no_caller_smallest_distance_wins_without_bonuses():
    sums = {"Ana": 10, "Bojan": 8, "Ceca": 21}
    got = score("kvanta-call", target=10, caller=None, hands={}, sums=sums)
    assert got["winners"] == ["Ana"]
    assert got["bulls_eyes"] is False and got["undercut"] is False
    # Ana is at the target yet gets no Bull's Eyes; Ceca's Zilch still doubles (11 × 2)
    assert got["points"] == {"Ana": 24, "Bojan": -2, "Ceca": -22}


def test_k_d6_shared_smallest_distance_all_win():
    sums = {"Ana": 9, "Bojan": 11, "Ceca": 5}
    got = score("kvanta-call", target=10, caller=None, hands={}, sums=sums)
    assert sorted(got["winners"]) == ["Ana", "Bojan"]
    assert got["points"] == {"Ana": 4, "Bojan": 4, "Ceca": -8}


def test_call_mixes_hands_and_plain_sums():
    hands = {"Ana": cards("10H 4D 2S QS KC JH AD")}  # 13
    got = score("kvanta-call", target=13, caller="Bojan", hands=hands, sums={"Bojan": 12})
    assert got["sums"] == {"Ana": 13, "Bojan": 12}
    assert got["winners"] == ["Ana"] and got["points"] == {"Ana": 6, "Bojan": -1}


# --- kvanta-poker -----------------------------------------------------------------------

POKER_HANDS = {
    "Ana": cards("AS AH 9D 7C 4S"),  # pair of aces, value 1 − 1 + 9 − 7 − 4 → 2
    "Bojan": cards("2H 2D 5S 8C JS"),  # pair of twos, value 2 + 2 − 5 − 8 → 9
    "Ceca": cards("10H 10D 3S 6H KS"),  # pair of tens, value 10 + 10 − 3 + 6 → 23
}


def poker_points(prize_card, hands=POKER_HANDS, **extra):
    return score("kvanta-poker", prize_card=prize_card, hands=hands, **extra)


def test_number_prize_is_its_face_value():
    got = poker_points("7D")
    assert got["winner"] == "Ana" and got["prize"] == 7
    assert got["points"] == {"Ana": 7, "Bojan": 0, "Ceca": 0}


def test_k_d5_ace_prize_is_1():
    assert poker_points("AC")["prize"] == 1


def test_jack_prize_quarter_of_the_gap_rounded_up():
    got = poker_points("JH")
    assert got["values"] == {"Ana": 2, "Bojan": 9, "Ceca": 23}
    assert got["prize"] == 6  # ⌈(23 − 2) / 4⌉


def test_queen_prize_half_of_the_gap_rounded_up():
    assert poker_points("QS")["prize"] == 11  # ⌈(23 − 2) / 2⌉


def test_jack_and_queen_prizes_when_the_winner_holds_the_highest_value():
    hands = {**POKER_HANDS, "Ana": cards("AH AD 9D 7D 8H")}  # 1 + 1 + 9 + 7 + 8 = 26
    assert poker_points("JC", hands)["prize"] == 5
    assert poker_points("QC", hands)["prize"] == 2
    tie = {**POKER_HANDS, "Ana": cards("AH AD 9D 7D 5H")}  # 23, tied with Ceca: still the highest
    assert poker_points("JC", tie)["prize"] == 5
    assert poker_points("QC", tie)["prize"] == 2


def test_king_prize_draws_level_with_the_leader():
    totals = {"Ana": 12, "Bojan": 40, "Ceca": 33}
    assert poker_points("KD", totals=totals)["prize"] == 28
    assert poker_points("KD", totals=totals)["points"]["Ana"] == 28


def test_king_prize_is_0_for_a_leader_or_a_shared_lead():
    assert poker_points("KD", totals={"Ana": 40, "Bojan": 40, "Ceca": 3})["prize"] == 0
    assert poker_points("KD", totals={"Ana": 41, "Bojan": 40, "Ceca": 3})["prize"] == 0


def test_k_d4_equal_best_hands_cancel_and_the_next_best_takes_the_prize():
    hands = {
        "Ana": cards("AS AH 9D 7C 4S"),
        "Bojan": cards("AD AC 9S 7H 4D"),
        "Ceca": cards("10H 10D 3S 6H KS"),
    }
    got = poker_points("8H", hands)
    assert got["winner"] == "Ceca" and got["prize"] == 8
    assert sorted(got["cancelled"]) == ["Ana", "Bojan"]


def test_k_d4_all_hands_cancel_nobody_wins_prize_0():
    hands = {"Ana": cards("AS AH 9D 7C 4S"), "Bojan": cards("AD AC 9S 7H 4D")}
    got = poker_points("KH", hands, totals={"Ana": 1, "Bojan": 50})
    assert got["winner"] is None and got["prize"] == 0
    assert got["points"] == {"Ana": 0, "Bojan": 0}


def test_k_d8_revised_the_jack_winner_keeps_the_five_with_the_larger_prize():
    """K-D8 (revised): Ana's K-high straight may use 9H (value 1) or 9S (value 19).
    As the winner of a J prize she keeps 9S: 19 is the highest value, so the prize
    is 5, not ⌈(6 − 1) / 4⌉ = 2 with the smaller value."""
    hands = {"Ana": cards("9H 9S 10S JS QD KD 2C"), "Bojan": cards("AS AH 9D 7C 4S 3C 8C")}
    got = poker_points("JD", hands)
    assert got["hands"]["Ana"]["category"] == "straight"
    assert sorted(got["hands"]["Ana"]["best"]) == sorted(cards("9S 10S JS QD KD"))
    assert got["values"] == {"Ana": 19, "Bojan": 6}
    assert got["prize"] == 5 and got["points"]["Ana"] == 5


def test_k_d8_revised_the_queen_winner_keeps_the_five_with_the_larger_prize():
    """K-D8 (revised), Q prize: with 9S Ana's value 19 is the highest (ties included,
    RULES §3) → 2; with 9H it would be ⌈(6 − 1) / 2⌉ = 3, so she keeps 9H."""
    hands = {"Ana": cards("9H 9S 10S JS QD KD 2C"), "Bojan": cards("AS AH 9D 7C 4S 3C 8C")}
    got = poker_points("QC", hands)
    assert got["values"] == {"Ana": 1, "Bojan": 6}
    assert got["prize"] == 3


def test_k_d8_a_player_who_does_not_win_keeps_the_smaller_value():
    """K-D8: only the J/Q prize's winner may keep a larger value; Ana loses here and
    keeps 9H (value 1) although 9S (19) would be as strong."""
    hands = {"Ana": cards("9H 9S 10S JS QD KD 2C"), "Bojan": cards("8H 8H 8D 8C 8S 2H 3H")}
    got = poker_points("JD", hands)
    assert got["winner"] == "Bojan"
    assert got["values"]["Ana"] == 1


def test_k_d8_outside_j_and_q_the_winner_keeps_the_smaller_value_too():
    hands = {"Ana": cards("9H 9S 10S JS QD KD 2C"), "Bojan": cards("AS AH 9D 7C 4S 3C 8C")}
    got = poker_points("7D", hands)
    assert got["values"]["Ana"] == 1 and got["prize"] == 7


def test_poker_seven_cards_five_of_a_kind_best_shown():
    hands = {"Ana": cards("QH QH QS QD QC 2S 3S"), "Bojan": cards("9S 10S JS QS KS 2H 3H")}
    got = poker_points("5C", hands)
    assert got["hands"]["Ana"]["category"] == "five_of_a_kind"
    assert got["hands"]["Bojan"]["category"] == "straight_flush"
    assert got["winner"] == "Ana"


# --- the screens' helpers ---------------------------------------------------------------


def test_k_d7_top_totals_that_tie_cancel_and_next_highest_wins():
    assert kvanta.game_winner({"Ana": 50, "Bojan": 50, "Ceca": 30, "Dora": 10}) == "Ceca"


def test_k_d7_cancellation_repeats_and_all_equal_is_a_draw():
    assert kvanta.game_winner({"Ana": 50, "Bojan": 50, "Ceca": 30, "Dora": 30, "Ema": 1}) == "Ema"
    assert kvanta.game_winner({"Ana": 5, "Bojan": 5, "Ceca": 5}) is None
    assert kvanta.game_winner({"Ana": 50, "Bojan": 50, "Ceca": 30, "Dora": 30}) is None
    assert kvanta.game_winner({"Ana": 9, "Bojan": 3}) == "Ana"


# --- refusals ---------------------------------------------------------------------------

SEVEN = cards("2H 3H 4H 5H 6H 7H 8H")


def test_refused_joker():
    refused("kvanta-dealer", "draws.Ana", draws={"Ana": "RJ", "Bojan": "5H"})
    refused("kvanta-trick", "plays.Ana", trump="S", plays={"Ana": "BJ", "Bojan": "5H"})


def test_refused_a_fourth_copy_anywhere_in_the_request():
    err = refused("kvanta-trick", "plays.D", trump="S", plays=dict.fromkeys("ABCD", "KH"))
    assert "3" in err.message
    hands = {"Ana": cards("KH KH KH 2S 3S 4S 5S"), "Bojan": cards("KH 2D 3D 4D 5D 6D 7D")}
    refused("kvanta-call", "hands.Bojan[0]", target=10, caller="Ana", hands=hands)


def test_refused_the_prize_card_counts_toward_the_three_copies():
    hands = {"Ana": cards("7H 7H 2S 3S 4S"), "Bojan": cards("7H 2D 3D 4D 5D")}
    refused("kvanta-poker", "hands.Bojan[0]", prize_card="7H", hands=hands)


def test_refused_wrong_player_counts():
    refused("kvanta-flux", "players", players=["Dragan"], player="Dragan")
    refused("kvanta-flux", "players", players=list("ABCDEFG"), player="A")
    refused("kvanta-dealer", "draws", draws={"Ana": "2H"})
    refused("kvanta-trick", "plays", trump="S", plays={"Ana": "2H"})
    refused("kvanta-call", "sums", target=9, caller=None, hands={}, sums={"Ana": 9})
    refused("kvanta-hand", "sums", target=9, hands={}, sums=dict.fromkeys("ABCDEFG", 3))
    refused("kvanta-hand", "hands", target=9, hands={"A": SEVEN}, sums={})
    refused("kvanta-poker", "hands", prize_card="2C", hands={"Ana": cards("2H 3H 4H 5H 6H")})


def test_refused_a_hand_that_is_not_seven_cards():
    refused(
        "kvanta-call", "hands.Ana", target=9, caller="Ana", hands={"Ana": SEVEN[:6]}, sums={"B": 1}
    )
    refused("kvanta-hand", "hands.Ana", target=9, hands={"Ana": SEVEN + ["9H"]}, sums={"B": 1})
    new_hand = SEVEN[:5]
    refused("kvanta-flux", "new_hand", players=["A", "B"], player="A", target=9, new_hand=new_hand)


def test_refused_a_poker_hand_of_neither_5_nor_7_cards():
    hands = {"Ana": SEVEN[:6], "Bojan": cards("2S 3S 4S 5S 6S")}
    refused("kvanta-poker", "hands.Ana", prize_card="2C", hands=hands)


def test_refused_sums_out_of_range():
    refused("kvanta-call", "sums.B", target=9, caller="A", hands={}, sums={"A": 9, "B": 71})
    refused("kvanta-hand", "sums.B", target=9, hands={}, sums={"A": 9, "B": -71})


def test_refused_a_player_with_both_a_hand_and_a_sum():
    refused(
        "kvanta-call", "sums.A", target=9, caller="A", hands={"A": SEVEN}, sums={"A": 9, "B": 1}
    )


def test_refused_target_outside_three_dice():
    refused("kvanta-call", "target", target=2, caller="A", hands={}, sums={"A": 9, "B": 1})
    refused("kvanta-hand", "target", target=19, hands={}, sums={"A": 9, "B": 1})
    refused("kvanta-flux", "target", players=["A", "B"], player="A", target=0)


def test_refused_missing_and_unknown_fields():
    refused("kvanta-hand", "target", hands={}, sums={"A": 9, "B": 1})
    refused("kvanta-call", "caller", target=9, hands={}, sums={"A": 9, "B": 1})
    refused("kvanta-call", "hands", target=9, caller=None)
    refused("kvanta-hand", "hands", target=9)
    refused("kvanta-trick", "trumps", trumps="S", trump="S", plays={"A": "2H", "B": "3H"})
    refused("kvanta-poker", "prize_card", hands={"A": SEVEN, "B": SEVEN})


def test_sums_only_call_and_hand_are_answered():
    """CONTRACT: ``hands`` and ``sums`` are each optional; sums alone name every player."""
    got = score("kvanta-call", target=9, caller="A", sums={"A": 9, "B": 1, "C": -12})
    assert got["winners"] == ["A"] and got["bulls_eyes"]
    assert got["distances"] == {"A": 0, "B": 8, "C": 3}
    got = score("kvanta-hand", target=9, sums={"A": -9, "B": 1})
    assert got["hand"] == "A" and got["points"] == {"A": 15}
    # a tie between sums only cannot be tested by black or face cards: it stays tied
    got = score("kvanta-hand", target=9, sums={"A": -9, "B": 9})
    assert got["hand"] is None and sorted(got["tied"]) == ["A", "B"]


def test_refused_caller_who_is_not_a_player():
    refused("kvanta-call", "caller", target=9, caller="Zed", hands={}, sums={"A": 9, "B": 1})


def test_refused_flux_call_off_target():
    refused("kvanta-call", "flux", target=9, caller="A", flux=True, hands={}, sums={"A": 8, "B": 1})


def test_refused_flux_without_a_caller():
    refused(
        "kvanta-call", "flux", target=9, caller=None, flux=True, hands={}, sums={"A": 9, "B": 1}
    )


def test_refused_flux_for_someone_not_playing():
    refused("kvanta-flux", "player", players=["A", "B"], player="C")


def test_refused_flux_new_hand_without_target():
    refused("kvanta-flux", "target", players=["A", "B"], player="A", new_hand=SEVEN)


def test_refused_draw_winner_not_in_the_tie():
    sums = {"A": 9, "B": 9, "C": 2}
    refused("kvanta-hand", "draw_winner", target=9, hands={}, sums=sums, draw_winner="C")
    refused(
        "kvanta-hand", "draw_winner", target=9, hands={}, sums={"A": 9, "B": 2}, draw_winner="A"
    )
    refused("kvanta-hand", "draw_winner", target=9, hands={}, sums=sums, draw_winner="Zed")


def test_refused_king_prize_without_totals():
    refused(
        "kvanta-poker", "totals", prize_card="KS", hands={"A": SEVEN, "B": cards("2S 3S 4S 5S 6S")}
    )


def test_refused_totals_for_a_stranger_or_missing_a_player():
    hands = {"A": SEVEN, "B": cards("2S 3S 4S 5S 6S")}
    refused(
        "kvanta-poker",
        "totals.Zed",
        prize_card="KS",
        hands=hands,
        totals={"A": 1, "B": 2, "Zed": 3},
    )
    refused("kvanta-poker", "totals", prize_card="KS", hands=hands, totals={"A": 1})


def test_refused_bad_trump_and_bad_names():
    refused("kvanta-trick", "trump", trump="X", plays={"A": "2H", "B": "3H"})
    refused("kvanta-trick", "plays.", trump="S", plays={"": "2H", "B": "3H"})
    refused("kvanta-dealer", None, draws={"x" * 41: "2H", "B": "3H"})


def test_refused_wrong_types():
    refused(
        "kvanta-call", "flux", target=9, caller="A", flux="yes", hands={}, sums={"A": 9, "B": 1}
    )
    refused("kvanta-call", "target", target="9", caller="A", hands={}, sums={"A": 9, "B": 1})
    refused("kvanta-call", "hands", target=9, caller="A", hands=[], sums={"A": 9, "B": 1})
    refused("kvanta-call", "hands.A[0]", target=9, caller="A", hands={"A": [7] * 7}, sums={"B": 1})


def test_k_d1_a_single_trump_among_cards_of_one_rank_wins():
    """RULES §3 (Rules 1.1): 7♥ 7♠ 7♦ with ♥ trump — the lone trump stands above the
    rest and wins; all of one rank is a dead trick only when no card stands out."""
    got = score("kvanta-trick", trump="H", plays={"Ana": "7S", "Bojan": "7H", "Ceca": "7D"})
    assert (got["winner"], got["dead"]) == ("Bojan", False)
    got = score("kvanta-trick", trump="C", plays={"Ana": "7S", "Bojan": "7H", "Ceca": "7D"})
    assert (got["winner"], got["dead"]) == (None, True)


def test_the_why_of_a_call_names_who_paid_double_for_zilch():
    """A call's lines in the history say who paid double for a sum of 21 (Zilch): the
    sums and the closest alone leave Cid's −28 (off by 15, the winner by 1) unexplained."""
    request = {"target": 6, "caller": "Ann", "sums": {"Ann": 9, "Ben": 5, "Cid": -21}}
    result = api.evaluate("kvanta-call", request)
    assert result["points"] == {"Ann": -2, "Ben": 35, "Cid": -28}  # (15 − 1) × 2 = 28
    lines = kvanta.call_breakdown(request, result, [])
    assert "Zilch (a sum of 21 pays double): Cid" in lines
    plain = {"target": 6, "caller": "Ann", "sums": {"Ann": 9, "Ben": 5, "Cid": 20}}
    assert not any("Zilch" in line for line in kvanta.call_breakdown(plain, kvanta.call(plain), []))


def test_the_history_lists_a_calls_sums_in_seat_order():
    """A call's sums are stored in the order they were entered (the caller's first, or
    whoever typed first); its history line lists them round the table, as the standings
    and the sheet do, wherever the entry began."""
    request = {"target": 10, "caller": "Cid", "sums": {"Cid": 9, "Ann": 12, "Ben": 4}}
    result = api.evaluate("kvanta-call", request)
    lines = kvanta.call_breakdown(request, result, ["Ann", "Ben", "Cid"])
    (sums,) = [line for line in lines if line.startswith("Sums:")]
    assert sums.index("Ann") < sums.index("Ben") < sums.index("Cid")
    hand = {"target": 10, "sums": {"Ben": 10, "Ann": 10}}
    lines = kvanta.hand_breakdown(hand, api.evaluate("kvanta-hand", hand), ["Ann", "Ben"])
    (sums,) = [line for line in lines if line.startswith("Sums:")]
    assert sums.index("Ann") < sums.index("Ben")
