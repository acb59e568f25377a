"""Szaman (RULES §2, CONTRACT "Szaman"): the ``szaman-deal`` kind and its helpers.

One test per decision id (S-D1 … S-D6), one per refusal RULES §2 lists, the worked
examples through ``api.evaluate``, the warnings, and the screens' helpers.
"""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import pytest

from scorekeeper import api
from scorekeeper.cards import Card
from scorekeeper.errors import RuleError
from scorekeeper.games import szaman
from scorekeeper.games.szaman import (
    first_leader,
    game_winners,
    penalty_for,
    russian_trick_count,
    trick_winner,
)

EXAMPLES = json.loads(
    (Path(__file__).parent / "data" / "examples" / "szaman-deal.json").read_text("utf-8")
)
THREE = ["Ola", "Piotr", "Zosia"]


def full(*plays: str, suit: str | None = None) -> dict:
    """A full trick from "Name CARD" strings in playing order."""
    trick: dict = {"plays": [play.split() for play in plays]}
    if suit is not None:
        trick["joker_suit"] = suit
    return trick


def deal(tricks, left=None, players=THREE, variant="classic") -> dict:
    request = {"players": list(players), "variant": variant, "tricks": tricks}
    if left is not None or variant == "classic":
        request["left"] = left if left is not None else {name: [] for name in players}
    return request


def score(request: dict) -> dict:
    return api.evaluate("szaman-deal", request)


def refusal(request: dict) -> RuleError:
    with pytest.raises(RuleError) as caught:
        score(request)
    return caught.value


def revokes(response: dict) -> list[str]:
    return [w for w in response["warnings"] if "revoke" in w]


# --- the worked examples -------------------------------------------------------------


@pytest.mark.parametrize("case", EXAMPLES, ids=[str(i) for i in range(len(EXAMPLES))])
def test_worked_example(case):
    if "refused" in case:
        assert refusal(case["request"]).message == case["refused"]
        return
    got = score(case["request"])
    want = case["response"]
    assert [t["winner"] for t in got["tricks"]] == [t["winner"] for t in want["tricks"]]
    assert [t["points"] for t in got["tricks"]] == [t["points"] for t in want["tricks"]]
    assert got["penalties"] == want["penalties"]
    assert got["totals"] == want["totals"]
    assert list(got["totals"]) == case["request"]["players"]  # every player, seating order
    assert got["warnings"] == []  # the worked deals are consistent
    json.dumps(got)  # JSON-serialisable


def test_response_lists_only_non_zero_points_and_penalties():
    got = score(
        deal(
            [full("Ola 2C", "Piotr KC", "Zosia 3C")],
            {"Ola": ["10S"], "Piotr": ["AS", "5D"], "Zosia": []},
        )
    )
    assert got["tricks"] == [{"winner": "Piotr", "points": {"Piotr": 5}}]
    assert got["penalties"] == {"Ola": -1, "Piotr": -2}
    assert got["totals"] == {"Ola": -1, "Piotr": 3, "Zosia": 0}


# --- trick points (RULES §2) ---------------------------------------------------------


def test_all_followed_is_five_and_any_off_suit_is_one_with_minus_two_each():
    got = score(
        deal(
            [
                full("Ola 2C", "Piotr KC", "Zosia 3C"),
                full("Piotr 5S", "Zosia 4D", "Ola 3H"),
            ]
        )
    )
    assert got["tricks"][0]["points"] == {"Piotr": 5}
    assert got["tricks"][1]["points"] == {"Piotr": 1, "Zosia": -2, "Ola": -2}


def test_specials_replace_the_base_and_add_up_to_25():
    got = score(deal([full("Ola 8H", "Piotr JH", "Zosia RJ")]))
    assert got["tricks"] == [{"winner": "Zosia", "points": {"Zosia": 25}}]


def test_specials_count_when_played_off_suit_and_the_penalty_still_applies():
    got = score(deal([full("Ola 2S", "Piotr AS", "Zosia JH")]))
    assert got["tricks"][0]["points"] == {"Piotr": 11, "Zosia": -2}


def test_queen_of_spades_is_ordinary_in_classic_and_13_in_russian():
    classic = score(deal([full("Ola QS", "Piotr 2S", "Zosia 3S")]))
    russian = score(deal([full("Ola QS", "Piotr 2S", "Zosia 3S")], variant="russian"))
    assert classic["tricks"][0]["points"] == {"Ola": 5}
    assert russian["tricks"][0]["points"] == {"Ola": 13}


def test_quick_trick_is_scored_from_what_it_says():
    got = score(
        deal(
            [{"winner": "Piotr", "specials": ["8h", "J♥", "joker"], "off_suit": ["Zosia"]}],
            {"Ola": [], "Piotr": ["2C"], "Zosia": ["3C"]},
        )
    )
    assert got["tricks"] == [{"winner": "Piotr", "points": {"Piotr": 25, "Zosia": -2}}]


def test_quick_trick_specials_and_off_suit_are_optional():
    got = score(deal([{"winner": "Zosia"}]))
    assert got["tricks"] == [{"winner": "Zosia", "points": {"Zosia": 5}}]


def test_quick_and_full_tricks_mix_in_one_deal_and_the_quick_winner_leads_next():
    got = score(
        deal(
            [
                {"winner": "Zosia", "off_suit": ["Ola"]},
                full("Zosia 4D", "Ola 9D", "Piotr 2D"),
                {"winner": "Ola", "specials": ["JH"]},
            ]
        )
    )
    assert [t["winner"] for t in got["tricks"]] == ["Zosia", "Ola", "Ola"]
    assert got["totals"] == {"Ola": -2 + 5 + 11, "Piotr": 0, "Zosia": 1}


# --- decisions -----------------------------------------------------------------------


def test_s_d1_joker_of_the_led_colour_follows_and_wins_even_from_a_holder_of_the_suit():
    got = score(
        deal(
            [
                full("Ola 2H", "Piotr RJ", "Zosia AH"),
                full("Piotr 3H", "Zosia 4H", "Ola 5H"),  # Piotr still held hearts: fine
            ]
        )
    )
    assert got["tricks"][0] == {"winner": "Piotr", "points": {"Piotr": 6}}
    assert revokes(got) == []


def test_s_d1_joker_of_the_other_colour_is_off_suit_and_wins_nothing():
    got = score(deal([full("Ola 2H", "Piotr BJ", "Zosia AH")]))
    assert got["tricks"][0] == {"winner": "Zosia", "points": {"Zosia": 1, "Piotr": -2}}


def test_s_d2_led_joker_makes_the_named_suit_the_led_suit_and_wins():
    got = score(deal([full("Ola BJ", "Piotr AC", "Zosia 2S", suit="C")]))
    # spades are black too, but clubs were named: Zosia is off-suit
    assert got["tricks"][0] == {"winner": "Ola", "points": {"Ola": 6, "Zosia": -2}}


def test_s_d2_the_other_joker_is_off_suit_under_a_led_joker():
    got = score(deal([full("Ola RJ", "Piotr BJ", "Zosia KD", suit="D")]))
    assert got["tricks"][0] == {"winner": "Ola", "points": {"Ola": 6, "Piotr": -2}}


def test_s_d3_classic_deal_ending_with_every_hand_full_is_refused():
    err = refusal(
        deal(
            [full("Ola 2C", "Piotr KC", "Zosia 3C")],
            {"Ola": ["AS"], "Piotr": ["KS"], "Zosia": ["QS"]},
        )
    )
    assert err.path == "left"
    assert "S-D3" in err.message


def test_s_d3_the_last_trick_winner_does_not_draw():
    # Ola wins all 8 tricks of a two-player deal: she draws after tricks 1-7 only
    tricks = [{"winner": "Ola"} for _ in range(8)]
    seven = ["2C", "3C", "4C", "5C", "6C", "7C", "8C"]
    fine = score(deal(tricks, {"Ola": seven, "Piotr": []}, players=["Ola", "Piotr"]))
    assert fine["warnings"] == []
    drew = score(deal(tricks, {"Ola": [*seven, "9C"], "Piotr": []}, players=["Ola", "Piotr"]))
    assert drew["warnings"] == [
        "Ola should have 7 cards left at the end of this deal (8 dealt + 7 drawn − 8 played), "
        "but 8 are entered."
    ]


def test_s_d4_an_off_suit_joker_is_not_a_special():
    got = score(deal([full("Ola 2H", "Piotr KH", "Zosia BJ")]))
    assert got["tricks"][0]["points"] == {"Piotr": 1, "Zosia": -2}


def test_s_d5_equal_distance_to_66_shares_the_win():
    assert game_winners({"Ola": 60, "Piotr": 72, "Zosia": 66}) == ["Zosia"]
    assert game_winners({"Ola": 60, "Piotr": 72, "Zosia": 90}) == ["Ola", "Piotr"]
    assert game_winners({"Ola": -3, "Piotr": 1}, target=0) == ["Piotr"]
    assert game_winners({}) == []


def test_s_d6_russian_deal_lasts_8_tricks_plus_the_full_draw_rounds():
    assert [russian_trick_count(n) for n in (2, 3, 4, 5, 6)] == [27, 18, 13, 10, 9]
    four = ["Ola", "Piotr", "Zosia", "Kuba"]
    complete = score(deal([{"winner": "Ola"}] * 13, players=four, variant="russian"))
    assert complete["warnings"] == []
    short = score(deal([{"winner": "Ola"}] * 12, players=four, variant="russian"))
    assert short["warnings"] == [
        "A Russian deal of 4 players lasts 13 tricks (8 cards dealt, then draws while "
        "the stock lasts, S-D6), but 12 are listed."
    ]


def test_s_d6_russian_everyone_draws_while_the_stock_lasts_so_no_revoke_is_suspected():
    two = ["Ola", "Piotr"]
    tricks = [full("Ola 2H", "Piotr 3C"), full("Ola 4H", "Piotr 5H")]
    # Piotr lost trick 1 but drew in the Russian variant: showing hearts is fine
    assert revokes(score(deal(tricks, players=two, variant="russian"))) == []
    # in classic only the winner (Ola) draws: Piotr's heart is a likely revoke
    classic = score(deal(tricks, {"Ola": ["AS"], "Piotr": []}, players=two))
    assert revokes(classic) == [
        "Piotr played off-suit to a hearts lead in trick 1, then played 5♥ in trick 2 "
        "without drawing in between: a likely revoke."
    ]


def test_s_d6_russian_has_no_end_of_deal_penalty():
    got = score(deal([{"winner": "Ola"}], variant="russian"))
    assert got["penalties"] == {}
    assert got["totals"] == {"Ola": 5, "Piotr": 0, "Zosia": 0}


def test_russian_deal_may_list_empty_hands():
    got = score(deal([{"winner": "Ola"}], {n: [] for n in THREE}, variant="russian"))
    assert got["totals"]["Ola"] == 5


# --- end-of-deal penalty -------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "penalty"),
    [
        (["9S", "7D"], -2),  # 16
        (["10S", "10D"], -2),  # 20
        (["10S", "10D", "AC"], -4),  # 34
        (["10S", "9D", "2C"], -3),  # 21
        (["RJ"], -20),
        (["BJ", "5H"], -21),
        (["KS", "4D", "QC"], -3),  # 29
        (["10S", "10D", "7C"], -3),  # 27
        (["RJ", "BJ"], -40),
        ([], 0),
    ],
)
def test_penalty_rounds_the_tenth_up_and_charges_20_per_joker(cards, penalty):
    assert penalty_for(cards) == penalty


def test_penalty_for_takes_cards_as_well_as_text():
    assert penalty_for([Card(14, "S"), Card(0, "R")]) == -22


def test_engine_penalties_are_penalty_for_of_each_hand():
    left = {"Ola": ["KS", "4D"], "Piotr": [], "Zosia": ["BJ"]}
    got = score(deal([full("Ola 2C", "Piotr KC", "Zosia 8H")], left))
    assert got["penalties"] == {"Ola": -2, "Zosia": -20}


# --- refusals (RULES §2 "An entry is refused when") ----------------------------------


def test_refused_a_card_appears_twice_in_the_tricks():
    err = refusal(
        deal([full("Ola 2C", "Piotr KC", "Zosia 3C"), full("Piotr 2C", "Zosia 4C", "Ola 5C")])
    )
    assert (err.path, err.message) == (
        "tricks[1].plays[0][1]",
        "2♣ appears more than once; a deal uses one deck.",
    )


def test_refused_a_played_card_still_held():
    err = refusal(
        deal([full("Ola 2C", "Piotr KC", "Zosia 3C")], {"Ola": [], "Piotr": ["kc"], "Zosia": []})
    )
    assert err.path == "left.Piotr[0]"


def test_refused_a_quick_special_that_a_full_trick_also_played():
    err = refusal(
        deal([{"winner": "Ola", "specials": ["JH"]}, full("Ola JH", "Piotr 2H", "Zosia 3H")])
    )
    assert err.path == "tricks[1].plays[0][1]"


def test_refused_more_jokers_than_the_deck_holds():
    quick = [{"winner": "Ola", "specials": ["joker"]} for _ in range(2)]
    err = refusal(deal(quick, {"Ola": ["RJ"], "Piotr": [], "Zosia": []}))
    assert err.path == "left.Ola[0]"
    assert "two" in err.message
    err = refusal(deal([full("Ola RJ", "Piotr 2D", "Zosia 3D", suit="D"), *quick]))
    assert err.path == "tricks[2].specials[0]"


def test_refused_a_trick_lacks_a_player():
    err = refusal(deal([full("Ola 2C", "Piotr KC")]))
    assert (err.path, err.message) == (
        "tricks[0].plays",
        "Trick 1 lacks Zosia; every player plays once.",
    )


def test_refused_a_trick_has_a_player_twice():
    err = refusal(deal([full("Ola 2C", "Piotr KC", "Ola 3C")]))
    assert (err.path, err.message) == (
        "tricks[0].plays[2][0]",
        "Ola plays twice in trick 1; every player plays once.",
    )


def test_refused_a_trick_not_led_by_the_previous_winner():
    err = refusal(
        deal([full("Ola 2C", "Piotr KC", "Zosia 3C"), full("Zosia 4C", "Ola 5C", "Piotr 6C")])
    )
    assert (err.path, err.message) == (
        "tricks[1].plays[0][0]",
        "Trick 2 must be led by Piotr, who won trick 1, not by Zosia.",
    )


def test_refused_a_full_trick_not_led_by_the_winner_of_a_quick_trick():
    err = refusal(deal([{"winner": "Zosia"}, full("Ola 5C", "Piotr 6C", "Zosia 4C")]))
    assert err.path == "tricks[1].plays[0][0]"


def test_refused_a_led_joker_without_a_named_suit():
    err = refusal(deal([full("Ola RJ", "Piotr KD", "Zosia 3D")]))
    assert (err.path, err.message) == (
        "tricks[0].joker_suit",
        "A led joker needs the suit its leader named (joker_suit).",
    )


def test_refused_a_led_joker_naming_a_suit_of_the_other_colour():
    err = refusal(deal([full("Ola RJ", "Piotr KS", "Zosia 3S", suit="S")]))
    assert err.path == "tricks[0].joker_suit"
    assert "red" in err.message


def test_refused_a_suit_named_for_a_trick_no_joker_leads():
    err = refusal(deal([full("Ola 2D", "Piotr RJ", "Zosia 3D", suit="D")]))
    assert (err.path, err.message) == (
        "tricks[0].joker_suit",
        "A suit is named only when a joker leads, but 2D leads in trick 1.",
    )


def test_refused_a_deal_without_tricks():
    err = refusal(deal([]))
    assert (err.path, err.message) == ("tricks", "A deal needs at least one trick.")


def test_refused_a_russian_deal_listing_held_cards():
    err = refusal(
        deal([{"winner": "Ola"}], {"Ola": [], "Piotr": ["2C"], "Zosia": []}, variant="russian")
    )
    assert err.path == "left.Piotr[0]"
    assert "Russian" in err.message


# --- refusals of the request's shape -------------------------------------------------


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda r: r.update(extra=1), "extra"),
        (lambda r: r.pop("variant"), "variant"),
        (lambda r: r.update(variant="polish"), "variant"),
        (lambda r: r.update(players=["Ola"]), "players"),
        (lambda r: r.update(players=[f"P{i}" for i in range(7)]), "players"),
        (lambda r: r.update(tricks="all of them"), "tricks"),
        (lambda r: r.pop("left"), "left"),
        (lambda r: r["left"].pop("Zosia"), "left.Zosia"),
        (lambda r: r["left"].update(Kuba=[]), "left.Kuba"),
        (lambda r: r["tricks"][0].update(winner="Ola"), "tricks[0]"),
        (lambda r: r["tricks"].__setitem__(0, {}), "tricks[0]"),
        (lambda r: r["tricks"].__setitem__(0, ["Ola", "2C"]), "tricks[0]"),
        (lambda r: r["tricks"][0].update(joker_suit=None), "tricks[0].joker_suit"),
        (lambda r: r["tricks"][0].pop("plays"), "tricks[0]"),
        (lambda r: r["tricks"].__setitem__(0, {"joker_suit": "H"}), "tricks[0].plays"),
        (lambda r: r["tricks"][0].update(plays="Ola 2C"), "tricks[0].plays"),
        (lambda r: r["left"].update(Ola="2C"), "left.Ola"),
        (lambda r: r["tricks"][0]["plays"].__setitem__(1, ["Piotr"]), "tricks[0].plays[1]"),
        (lambda r: r["tricks"][0]["plays"][1].__setitem__(0, "Kuba"), "tricks[0].plays[1][0]"),
        (lambda r: r["tricks"][0]["plays"][1].__setitem__(1, "JK"), "tricks[0].plays[1][1]"),
        (lambda r: r["tricks"][0]["plays"][1].__setitem__(1, "1C"), "tricks[0].plays[1][1]"),
        (lambda r: r["tricks"].append({"winner": "Ola", "speshals": []}), "tricks[1].speshals"),
    ],
)
def test_refused_malformed_requests(change, path):
    request = deal([full("Ola 2C", "Piotr KC", "Zosia 3C")])
    change(request)
    assert refusal(request).path == path


@pytest.mark.parametrize(
    ("quick", "path", "words"),
    [
        ({"winner": "Ola", "off_suit": ["Ola"]}, "tricks[0].off_suit[0]", "wins nothing"),
        ({"winner": "Ola", "off_suit": ["Piotr", "Piotr"]}, "tricks[0].off_suit[1]", "twice"),
        ({"winner": "Ola", "specials": ["QS"]}, "tricks[0].specials[0]", "Russian"),
        ({"winner": "Ola", "specials": ["9H"]}, "tricks[0].specials[0]", "not a special"),
        ({"winner": "Ola", "specials": ["RJ"]}, "tricks[0].specials[0]", "“joker”"),
        ({"winner": "Ola", "specials": ["joker", "JOKER"]}, "tricks[0].specials[1]", "twice"),
        ({"winner": "Ola", "specials": ["8H", "8♥"]}, "tricks[0].specials[1]", "more than once"),
        ({"winner": "Kuba"}, "tricks[0].winner", "not one of the players"),
    ],
)
def test_refused_contradictory_quick_tricks(quick, path, words):
    err = refusal(deal([quick]))
    assert err.path == path
    assert words in err.message


def test_refused_more_tricks_than_the_deck_allows():
    err = refusal(deal([{"winner": "Ola"}] * 19))
    assert (err.path, err.message) == (
        "tricks",
        "3 players can play at most 18 tricks from the 54-card deck; 19 are listed.",
    )


def test_refused_more_cards_than_the_deck_holds():
    hand = [f"{r}{s}" for s in "SC" for r in range(2, 10)]  # 16 cards
    err = refusal(deal([{"winner": "Ola"}] * 13, {"Ola": hand, "Piotr": [], "Zosia": []}))
    assert err.path == "left"
    assert "55 cards" in err.message


# --- warnings ------------------------------------------------------------------------


def test_warning_a_suit_shown_after_proving_void_without_a_draw():
    got = score(
        deal(
            [
                full("Ola 2C", "Piotr KC", "Zosia 3H"),  # Zosia: no clubs
                full("Piotr 4C", "Zosia 5C", "Ola 6C"),  # ... yet plays one
            ]
        )
    )
    assert revokes(got) == [
        "Zosia played off-suit to a clubs lead in trick 1, then played 5♣ in trick 2 "
        "without drawing in between: a likely revoke."
    ]


def test_warning_a_suit_still_held_after_proving_void():
    got = score(
        deal([full("Ola 2C", "Piotr KC", "Zosia 3H")], {"Ola": [], "Piotr": [], "Zosia": ["9C"]})
    )
    assert revokes(got) == [
        "Zosia played off-suit to a clubs lead in trick 1, yet still holds 9♣ at the end "
        "without drawing since: a likely revoke."
    ]


def test_no_revoke_warning_after_the_player_won_a_trick_and_drew():
    got = score(
        deal(
            [
                full("Ola 2C", "Piotr KC", "Zosia 3H"),  # Zosia: no clubs
                full("Piotr 4H", "Zosia 5H", "Ola 2H"),  # Zosia wins, draws
                full("Zosia 5C", "Ola 6C", "Piotr 7C"),  # the drawn card may be a club
            ]
        )
    )
    assert revokes(got) == []


def test_revoke_warning_when_a_winner_could_not_draw_from_an_empty_stock():
    six = ["Ola", "Piotr", "Zosia", "Kuba", "Ceca", "Asta"]  # stock: 54 - 48 = 6
    quick = [{"winner": "Ola"} for _ in range(6)]  # the stock is gone
    tricks = [
        *quick,
        full("Ola 2C", "Piotr 3C", "Zosia 4C", "Kuba 5C", "Ceca 6C", "Asta 2H"),
        full("Ceca 7H", "Asta 8H", "Ola 9H", "Piotr 10H", "Zosia JH", "Kuba QH"),
        full("Kuba 8C", "Ceca 9C", "Asta 10C", "Ola JC", "Piotr QC", "Zosia KC"),
    ]
    got = score(deal(tricks, {name: [] for name in six}, players=six))
    assert revokes(got) == [
        "Asta played off-suit to a clubs lead in trick 7, then played 10♣ in trick 9 "
        "without drawing in between: a likely revoke."
    ]


def test_warning_hand_sizes_that_do_not_add_up():
    got = score(
        deal([full("Ola 2C", "Piotr KC", "Zosia 3C")], {"Ola": ["4S"], "Piotr": [], "Zosia": []})
    )
    assert got["warnings"] == [
        "Ola should have 7 cards left at the end of this deal (8 dealt + 0 drawn − 1 played), "
        "but 1 is entered.",
        "Piotr should have 7 cards left at the end of this deal (8 dealt + 0 drawn − 1 played), "
        "but none are entered.",
        "Zosia should have 7 cards left at the end of this deal (8 dealt + 0 drawn − 1 played), "
        "but none are entered.",
    ]


def test_warning_a_deal_that_should_have_ended_earlier():
    two = ["Ola", "Piotr"]
    got = score(deal([{"winner": "Ola"}] * 9, {"Ola": [], "Piotr": []}, players=two))
    assert got["warnings"][0] == (
        "Piotr had no cards left after trick 8, so the deal should have ended there "
        "(S-D3), but 1 more trick(s) are listed."
    )
    assert "Piotr played in 9 tricks but had only 8 cards (8 dealt + 0 drawn)." in got["warnings"]


def test_warning_a_quick_trick_says_its_leader_played_off_suit():
    got = score(deal([{"winner": "Piotr"}, {"winner": "Zosia", "off_suit": ["Piotr"]}]))
    assert (
        "Trick 2 says Piotr played off-suit, but Piotr won trick 1 and so led this one."
        in (got["warnings"])
    )


def test_warnings_are_never_refusals_and_scoring_goes_on():
    got = score(
        deal([full("Ola 2C", "Piotr KC", "Zosia 3H"), full("Piotr 4C", "Zosia 5C", "Ola 6C")])
    )
    assert got["warnings"]
    assert got["totals"] == {"Ola": 5, "Piotr": 1, "Zosia": -2}


# --- helpers for the screens ---------------------------------------------------------


def test_first_leader_holds_the_two_of_clubs():
    hands = {"Ola": ["2D", "AS"], "Piotr": ["2C", "KH"], "Zosia": ["3C"]}
    assert first_leader(hands) == "Piotr"


@pytest.mark.parametrize(
    ("hands", "leader"),
    [
        ({"Ola": ["2H"], "Piotr": ["2D"], "Zosia": ["2S"]}, "Piotr"),  # no 2♣: 2♦
        ({"Ola": ["2H"], "Piotr": ["3D"], "Zosia": ["2S"]}, "Ola"),  # then 2♥
        ({"Ola": ["3H"], "Piotr": ["3D"], "Zosia": ["2S"]}, "Zosia"),  # then 2♠
        ({"Ola": ["3H"], "Piotr": ["3D"], "Zosia": ["4C"]}, "Piotr"),  # ranks upward
        ({"Ola": ["RJ", "AS"], "Piotr": ["BJ", "KS"]}, "Piotr"),  # jokers don't count
        ({"Ola": [Card(5, "C")], "Piotr": [Card(5, "S")]}, "Ola"),
    ],
)
def test_first_leader_goes_by_rank_then_clubs_diamonds_hearts_spades(hands, leader):
    assert first_leader(hands) == leader


def test_first_leader_refuses_hands_without_a_plain_card():
    with pytest.raises(RuleError):
        first_leader({"Ola": ["RJ"], "Piotr": []})
    with pytest.raises(RuleError):
        first_leader(["Ola", "2C"])
    with pytest.raises(RuleError) as caught:
        first_leader({"Ola": ["ZZ"]})
    assert caught.value.path == "hands.Ola[0]"


def test_trick_winner_is_the_highest_of_the_led_suit():
    assert trick_winner([("Ola", "9H"), ("Piotr", "KH"), ("Zosia", "AS")]) == "Piotr"
    assert trick_winner([["Ola", "9H"], ["Piotr", "KD"], ["Zosia", "2H"]]) == "Ola"


def test_trick_winner_knows_the_jokers():
    assert trick_winner([("Ola", "2D"), ("Piotr", "AD"), ("Zosia", "RJ")]) == "Zosia"
    assert trick_winner([("Ola", "2D"), ("Piotr", "AD"), ("Zosia", "BJ")]) == "Piotr"
    assert trick_winner([("Ola", "BJ"), ("Piotr", "AS")], joker_suit="♠") == "Ola"


@pytest.mark.parametrize(
    ("plays", "joker_suit", "path"),
    [
        ([("Ola", "RJ"), ("Piotr", "AD")], None, "joker_suit"),
        ([("Ola", "RJ"), ("Piotr", "AD")], "S", "joker_suit"),
        ([("Ola", "2D"), ("Piotr", "AD")], "D", "joker_suit"),
        ([("Ola", "2D"), ("Piotr", "JK")], None, "plays[1][1]"),
        ([("Ola", "2D"), ("Piotr",)], None, "plays[1]"),
        ([], None, "plays"),
    ],
)
def test_trick_winner_refuses_what_no_trick_can_be(plays, joker_suit, path):
    with pytest.raises(RuleError) as caught:
        trick_winner(plays, joker_suit)
    assert caught.value.path == path


def test_verify_and_can_lead_with_agree():
    red = Card.parse("RJ")
    assert szaman.can_lead_with(red, "H") and szaman.can_lead_with(Card(2, "S"), None)
    assert not szaman.can_lead_with(red, "C") and not szaman.can_lead_with(red, None)
    assert not szaman.can_lead_with(Card(2, "S"), "S")


def test_doctests_hold():
    result = doctest.testmod(szaman)
    assert result.attempted > 0 and result.failed == 0


def test_kind_is_registered():
    assert szaman.KINDS == {"szaman-deal": szaman.score_deal}
    assert "szaman-deal" in api.KINDS


def test_the_first_lead_goes_to_the_earliest_card_of_the_lead_order():
    """RULES §2 "Play": the order the screen's hint lists is the one the engine uses —
    of any two cards, the holder of the one earlier in the order leads."""
    order = szaman.first_lead_order()
    assert len(order) == 52 and [c.symbol for c in order[:5]] == ["2♣", "2♦", "2♥", "2♠", "3♣"]
    for i, early in enumerate(order[:12]):
        for late in order[i + 1 : 12]:
            hands = {"Ola": [str(late)], "Piotr": [str(early)]}
            assert szaman.first_leader(hands) == "Piotr", (early, late)
