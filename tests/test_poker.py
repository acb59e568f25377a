"""The multi-deck poker evaluator (RULES §3 "Poker phase", K-D4, K-D8).

pokerkit is the oracle for single-deck hands (test-only); multi-deck hands are
checked against a brute force over every 5-card choice written here.
"""

from __future__ import annotations

import doctest
import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pokerkit import StandardHighHand
from pokerkit.lookups import Label

from scorekeeper.cards import Card, parse_card, standard_deck
from scorekeeper.games import poker
from scorekeeper.games.poker import best_hand, cancel_ties, category, hand_key, hand_sum

DECK = standard_deck()
THREE_DECKS = DECK * 3

ORACLE_CATEGORY = {
    Label.HIGH_CARD: "high_card",
    Label.ONE_PAIR: "pair",
    Label.TWO_PAIR: "two_pair",
    Label.THREE_OF_A_KIND: "three_of_a_kind",
    Label.STRAIGHT: "straight",
    Label.FLUSH: "flush",
    Label.FULL_HOUSE: "full_house",
    Label.FOUR_OF_A_KIND: "four_of_a_kind",
    Label.STRAIGHT_FLUSH: "straight_flush",
}
ORACLE_RANK = {**{n: str(n) for n in range(2, 10)}, 10: "T", 11: "J", 12: "Q", 13: "K", 14: "A"}


def cards(text: str) -> list[Card]:
    return [parse_card(t) for t in text.split()]


def shown(hand) -> list[str]:
    return sorted(str(c) for c in hand.cards)


def oracle(hand: list[Card]):
    text = "".join(ORACLE_RANK[c.rank] + c.suit.lower() for c in hand)
    return StandardHighHand.from_game(text)


def brute_force(hand: list[Card]) -> tuple[tuple, int]:
    """Best key over all 5-card choices, and the least value among the choices with it."""
    choices = list(itertools.combinations(hand, 5))
    best = max(hand_key(c) for c in choices)
    return best, min(hand_sum(c) for c in choices if hand_key(c) == best)


def sign(x) -> int:
    return (x > 0) - (x < 0)


single_deck_hand = st.integers(5, 7).flatmap(
    lambda n: st.lists(st.sampled_from(DECK), min_size=n, max_size=n, unique=True)
)


@st.composite
def multi_deck_hand(draw, sizes=(5, 7)):
    """7 (or 5) cards of three decks, often from few ranks and suits so that
    duplicates, five of a kind and identical-card flushes turn up."""
    size = draw(st.sampled_from(sizes))
    ranks = draw(st.lists(st.integers(2, 14), min_size=1, max_size=13, unique=True))
    suits = draw(st.lists(st.sampled_from("SHDC"), min_size=1, max_size=4, unique=True))
    pool = [Card(r, s) for r in ranks for s in suits] * 3
    if len(pool) < size:
        pool = THREE_DECKS
    return draw(st.permutations(pool))[:size]


# --- the categories ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("10H 10H 10D 10C 10C", "five_of_a_kind"),
        ("9S 10S JS QS KS", "straight_flush"),
        ("AH 2H 3H 4H 5H", "straight_flush"),
        ("7S 7H 7D 7C 2H", "four_of_a_kind"),
        ("7S 7S 7D 2C 2C", "full_house"),
        ("2H 5H 9H JH KH", "flush"),
        ("5H 5H 7H 9H KH", "flush"),  # identical cards: a flush, not a pair
        ("5H 5H 5H 9H KH", "flush"),  # three identical cards still a flush
        ("5H 5H 5H KH KH", "full_house"),  # full house beats flush
        ("10S JH QD KC AS", "straight"),
        ("AS 2H 3D 4C 5S", "straight"),
        ("QS KH AD 2C 3S", "high_card"),  # no wrap round the corner
        ("JS KH AD 2C 3S", "high_card"),
        ("8S 8S 8D 2C 3S", "three_of_a_kind"),
        ("8S 8S 3D 3D 4S", "two_pair"),
        ("8S 8S 3D 5D 4S", "pair"),
        ("2S 4H 6D 8C 10S", "high_card"),
    ],
)
def test_categories(hand, expected):
    assert category(hand_key(cards(hand))) == expected
    assert best_hand(cards(hand)).category == expected


def test_category_names_exactly_as_contract():
    assert set(poker.CATEGORIES) == {
        "five_of_a_kind", "straight_flush", "four_of_a_kind", "full_house", "flush",
        "straight", "three_of_a_kind", "two_pair", "pair", "high_card",
    }  # fmt: skip
    assert poker.CATEGORIES[-1] == "five_of_a_kind" and poker.CATEGORIES[0] == "high_card"


def test_ranking_order_of_the_categories():
    ladder = [
        "2S 4H 6D 8C 10S",
        "8S 8S 3D 5D 4S",
        "8S 8S 3D 3D 4S",
        "8S 8S 8D 2C 3S",
        "AS 2H 3D 4C 5S",
        "2H 5H 9H JH KH",
        "7S 7S 7D 2C 2C",
        "7S 7H 7D 7C 2H",
        "AH 2H 3H 4H 5H",
        "2H 2H 2D 2C 2C",
    ]
    keys = [hand_key(cards(h)) for h in ladder]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)


def test_five_of_a_kind_beats_the_royal_straight_flush():
    assert hand_key(cards("2H 2H 2D 2C 2C")) > hand_key(cards("10S JS QS KS AS"))
    assert hand_key(cards("AH AH AD AC AS")) > hand_key(cards("KH KH KD KC KS"))


def test_straights_wheel_lowest_broadway_highest():
    wheel = hand_key(cards("AS 2H 3D 4C 5S"))
    six = hand_key(cards("2H 3D 4C 5S 6D"))
    broadway = hand_key(cards("10S JH QD KC AS"))
    assert wheel < six < broadway
    assert hand_key(cards("AH 2H 3H 4H 5H")) < hand_key(cards("2S 3S 4S 5S 6S"))


def test_suits_never_break_ties():
    assert hand_key(cards("AS KS 9S 5D 3C")) == hand_key(cards("AH KD 9C 5S 3H"))
    assert hand_key(cards("2S 3S 4S 5S 6S")) == hand_key(cards("2D 3D 4D 5D 6D"))


def test_identical_card_flush_compares_card_by_card_from_the_top():
    # K 9 7 5 5 loses to K 9 8 4 3: the third card decides
    assert hand_key(cards("5H 5H 7H 9H KH")) < hand_key(cards("3S 4S 8S 9S KS"))
    assert hand_key(cards("5H 5H 7H 9H KH")) > hand_key(cards("4S 5S 7S 9S KS"))


def test_kickers_decide_in_every_category():
    assert hand_key(cards("7S 7H 7D 7C 3H")) < hand_key(cards("7S 7H 7D 7C 4H"))
    assert hand_key(cards("7S 7H 7D 3C 3H")) < hand_key(cards("7S 7H 7D 4C 4H"))
    assert hand_key(cards("8S 8S 8D AC 2S")) > hand_key(cards("8S 8S 8D KC QS"))
    assert hand_key(cards("8S 8H 3D 3C AS")) > hand_key(cards("8S 8H 3D 3C KS"))
    assert hand_key(cards("8S 8H AD 9C 3S")) > hand_key(cards("8S 8H AD 9C 2S"))
    assert hand_key(cards("AS JH 9D 5C 3S")) > hand_key(cards("AS JH 9D 5C 2S"))


def test_best_of_seven_keeps_the_full_kickers():
    # both hold a pair of aces; the fifth card kept (9 vs 8) decides
    a = best_hand(cards("AS AH KD QC 9S 3D 2C"))
    b = best_hand(cards("AD AC KS QH 8D 3S 2H"))
    assert a.key > b.key
    assert shown(a) == sorted(["AS", "AH", "KD", "QC", "9S"])


def test_two_pair_of_three_pairs_takes_the_best_kicker():
    hand = best_hand(cards("KS KH 4S 4H 9D 9C 2S"))
    assert hand.key == hand_key(cards("KS KH 9D 9C 4S"))
    assert hand.category == "two_pair"


def test_seven_identical_ranks_make_five_of_a_kind_of_least_value():
    hand = best_hand(cards("9H 9H 9D 9S 9S 9C 2D"))
    assert hand.category == "five_of_a_kind"
    assert hand.value == 9  # three black and two red nines: -27 + 18


def test_k_d8_equally_strong_choice_keeps_the_smaller_value():
    """K-D8: 9H or 9S completes the same K-high straight; 9H keeps the value at 1."""
    hand = best_hand(cards("9H 9S 10S JS QD KD 2C"))
    assert hand.category == "straight"
    assert shown(hand) == sorted(["9H", "10S", "JS", "QD", "KD"])
    assert hand.value == 1


def test_k_d8_value_never_changes_the_strength():
    # the least-valued five would be the pair of nines, but the straight is stronger
    hand = best_hand(cards("9H 9S 10S JS QD KD 10H"))
    assert hand.category == "straight"


def test_k_d4_equal_hands_cancel_and_next_best_wins():
    keys = {
        "Ana": hand_key(cards("AS KS 9S 5D 3C")),
        "Bojan": hand_key(cards("AH KD 9C 5S 3H")),
        "Ceca": hand_key(cards("QS QH 2D 3C 4S")),
    }
    # Ceca's pair is the best hand outright: nothing to cancel
    assert cancel_ties(keys) == ("Ceca", [])
    keys["Ceca"] = hand_key(cards("AC KC 8S 5H 3D"))
    assert cancel_ties(keys) == ("Ceca", ["Ana", "Bojan"])
    assert cancel_ties({"Ana": keys["Ana"], "Bojan": keys["Bojan"]}) == (None, ["Ana", "Bojan"])


def test_fewer_than_five_cards_is_no_hand():
    with pytest.raises(ValueError):
        best_hand(cards("AS KS QS JS"))


def test_docstrings():
    assert doctest.testmod(poker).failed == 0


# --- pokerkit as the oracle on single-deck hands ---------------------------------------


@settings(max_examples=400, deadline=None)
@given(single_deck_hand)
def test_category_agrees_with_pokerkit(hand):
    assert category(hand_key(hand)) == ORACLE_CATEGORY[oracle(hand).entry.label]
    assert best_hand(hand).category == ORACLE_CATEGORY[oracle(hand).entry.label]


@settings(max_examples=400, deadline=None)
@given(single_deck_hand, single_deck_hand)
def test_ranks_hands_in_the_same_order_as_pokerkit(a, b):
    ours = sign((hand_key(a) > hand_key(b)) - (hand_key(a) < hand_key(b)))
    theirs = sign((oracle(a) > oracle(b)) - (oracle(a) < oracle(b)))
    assert ours == theirs


def test_ranks_a_sorted_sample_like_pokerkit():
    import random

    rng = random.Random(11)
    hands = [rng.sample(DECK, 7) for _ in range(300)]
    ours = sorted(range(len(hands)), key=lambda i: hand_key(hands[i]))
    keys = [hand_key(hands[i]) for i in ours]
    strengths = [oracle(hands[i]) for i in ours]
    for i in range(len(ours) - 1):
        assert (keys[i] < keys[i + 1]) == (strengths[i] < strengths[i + 1])


# --- multi-deck hands -------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(multi_deck_hand())
def test_best_hand_matches_the_brute_force(hand):
    best = best_hand(hand)
    key, least = brute_force(hand)
    assert best.key == key
    assert best.value == least == hand_sum(best.cards)  # K-D8
    assert hand_key(best.cards) == key
    assert len(best.cards) == 5 and not Counter(best.cards) - Counter(hand)


@settings(max_examples=300, deadline=None)
@given(multi_deck_hand(), st.randoms(use_true_random=False))
def test_the_order_of_the_cards_never_matters(hand, rnd):
    shuffled = list(hand)
    rnd.shuffle(shuffled)
    assert best_hand(shuffled) == best_hand(hand)
    assert hand_key(shuffled) == hand_key(hand)


@settings(max_examples=200, deadline=None)
@given(multi_deck_hand(sizes=(5,)))
def test_a_five_card_hand_keeps_all_its_cards(hand):
    assert sorted(best_hand(hand).cards) == sorted(hand)
