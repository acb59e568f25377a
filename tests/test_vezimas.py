"""Vežimas engine (RULES §4, CONTRACT "Vežimas"): examples, decisions V-D1…V-D4,
every refusal, an exhaustive check of the beating rule and never-crash properties."""

from __future__ import annotations

import doctest
import itertools
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekeeper import api
from scorekeeper.errors import RuleError
from scorekeeper.games import vezimas

EXAMPLES = Path(__file__).parent / "data" / "examples"
KINDS = ("vezimas-trumps", "vezimas-beat", "vezimas-deal")

# The deck written independently of scorekeeper.cards: ranks weakest first.
RANKS = ("9", "10", "J", "Q", "K", "A")
SUITS = ("S", "H", "D", "C")
DECK = [rank + suit for suit in SUITS for rank in RANKS]
FOUR = ["Ana", "Bojan", "Ceca", "Dora"]


def beat(**request):
    return api.evaluate("vezimas-beat", request)


def four_trumps(clubs="Ana", players=FOUR):
    """V-D1 written out by hand: C, S, H, D clockwise from the Q♣ holder."""
    seat = players.index(clubs)
    return {players[(seat + i) % len(players)]: "CSHD"[i] for i in range(len(players))}


# --- worked examples -----------------------------------------------------------------


def example_cases():
    for kind in KINDS:
        cases = json.loads((EXAMPLES / f"{kind}.json").read_text(encoding="utf-8"))
        for index, case in enumerate(cases):
            yield pytest.param(kind, case, id=f"{kind}-{index}")


def same(expected, got):
    """Lists are compared as multisets (their order is free), everything else exactly."""
    if isinstance(expected, list):
        return sorted(map(json.dumps, expected)) == sorted(map(json.dumps, got))
    return expected == got


@pytest.mark.parametrize(("kind", "case"), list(example_cases()))
def test_examples(kind, case):
    if "refused" in case:
        with pytest.raises(RuleError):
            api.evaluate(kind, case["request"])
        return
    got = api.evaluate(kind, case["request"])
    for field, expected in case["response"].items():
        assert same(expected, got[field]), (field, expected, got[field])
    json.dumps(got)  # JSON-serialisable


# --- decisions -----------------------------------------------------------------------


def test_v_d1_clubs_then_spades_hearts_diamonds_clockwise():
    four = api.evaluate("vezimas-trumps", {"players": FOUR, "queen_of_clubs": "Ceca"})
    assert four == {
        "trumps": {"Ceca": "C", "Dora": "S", "Ana": "H", "Bojan": "D"},
        "free": [],
        "first_lead": "Ceca",
    }
    three = api.evaluate(
        "vezimas-trumps",
        {
            "players": ["Ana", "Bojan", "Ceca"],
            "queen_of_clubs": "Ceca",
            "nine_of_diamonds": "Bojan",
        },
    )
    assert three["trumps"] == {"Ceca": "C", "Ana": "S", "Bojan": "H"}
    assert three["free"] == ["D"]
    assert three["first_lead"] == "Bojan"  # 2–3 players: the 9♦ holder leads
    two = api.evaluate(
        "vezimas-trumps",
        {"players": ["Ana", "Bojan"], "queen_of_clubs": "Bojan", "nine_of_diamonds": "Ana"},
    )
    assert two == {"trumps": {"Bojan": "C", "Ana": "S"}, "free": ["H", "D"], "first_lead": "Ana"}


def test_v_d1_free_suits_are_beaten_as_case_3():
    # three players: diamonds belong to nobody, so a higher diamond or a trump beats it
    trumps = {"Ana": "C", "Bojan": "S", "Ceca": "H"}
    players = ["Ana", "Bojan", "Ceca"]
    got = beat(players=players, trumps=trumps, player="Ceca", top="10D", card="JD")
    assert (got["legal"], got["case"]) == (True, 3)
    assert beat(players=players, trumps=trumps, player="Ceca", top="10D", card="9H")["legal"]
    assert not beat(players=players, trumps=trumps, player="Ceca", top="10D", card="AS")["legal"]


def test_v_d2_loser_deals_and_player_on_his_left_leads():
    got = api.evaluate("vezimas-deal", {"players": FOUR, "loser": "Dora"})
    assert got == {"points": {"Dora": 1}, "next_dealer": "Dora", "first_lead": "Ana"}
    assert vezimas.first_lead_after(FOUR, "Bojan") == "Ceca"
    assert vezimas.first_lead_after(("Ana", "Bojan"), "Bojan") == "Ana"


def test_v_d3_next_player_is_the_next_one_still_holding_cards():
    trumps = four_trumps("Ana")  # Ana C, Bojan S, Ceca H, Dora D
    with_bojan = beat(players=FOUR, trumps=trumps, player="Ana", top="9S", card="AS")
    assert (with_bojan["legal"], with_bojan["case"], with_bojan["next_player"]) == (
        False,
        2,
        "Bojan",
    )
    # Bojan is out: spades are free and Ceca's hearts become the protected suit
    no_bojan = beat(players=FOUR, trumps=trumps, out=["Bojan"], player="Ana", top="9S", card="AS")
    assert (no_bojan["legal"], no_bojan["case"], no_bojan["next_player"]) == (True, 3, "Ceca")
    assert "free because Bojan is out" in no_bojan["reason"]
    hearts = beat(players=FOUR, trumps=trumps, out=["Bojan"], player="Ana", top="9H", card="AH")
    assert (hearts["legal"], hearts["case"]) == (False, 2)
    # the seat after an out player wraps round the table
    last = beat(players=FOUR, trumps=trumps, out=["Ana"], player="Dora", top="9S", card="9D")
    assert (last["next_player"], last["case"], last["legal"]) == ("Bojan", 2, True)


def test_v_d3_two_players_the_opponent_is_the_next_player():
    trumps = {"Ana": "C", "Bojan": "S"}
    got = beat(players=["Ana", "Bojan"], trumps=trumps, player="Bojan", top="9C", card="AC")
    assert (got["legal"], got["case"], got["next_player"]) == (False, 2, "Ana")
    assert beat(players=["Ana", "Bojan"], trumps=trumps, player="Bojan", top="AC", card="9S")[
        "legal"
    ]


def test_v_d4_fewest_carts_is_best():
    table = vezimas.session_standings({"Ana": 3, "Bojan": 1, "Ceca": 3, "Dora": 0})
    assert [row["player"] for row in table] == ["Dora", "Bojan", "Ana", "Ceca"]
    assert [row["place"] for row in table] == [1, 2, 3, 3]
    assert api.evaluate("vezimas-deal", {"players": FOUR, "loser": "Ceca"})["points"] == {"Ceca": 1}


# --- beating cases and responses -----------------------------------------------------


@pytest.mark.parametrize(
    ("top", "card", "legal", "case"),
    [
        ("KC", "AC", True, 1),  # case 1: a higher own trump
        ("KC", "9C", False, 1),
        ("KC", "AS", False, 1),
        ("9S", "10C", True, 2),  # case 2: the next player's trump needs an own trump
        ("9S", "AS", False, 2),
        ("10H", "JH", True, 3),  # case 3: higher of the suit or any own trump
        ("10H", "9C", True, 3),
        ("10H", "9H", False, 3),
        ("10H", "AD", False, 3),
    ],
)
def test_three_beating_cases(top, card, legal, case):
    got = beat(players=FOUR, trumps=four_trumps("Ana"), player="Ana", top=top, card=card)
    assert (got["legal"], got["case"]) == (legal, case)
    assert got["reason"].startswith(f"{card} {'beats' if legal else 'does not beat'} {top}.")


def test_hand_lists_its_beaters_in_canonical_form():
    got = beat(
        players=FOUR,
        trumps=four_trumps("Ana"),
        player="Ana",
        top="9h",
        hand=["th", "9♣", "jh", "KS", "AD"],
    )
    assert got["beaters"] == ["10H", "9C", "JH"]
    assert got["case"] == 3 and got["next_player"] == "Bojan"


def test_verify_can_beat_pattern():
    from scorekeeper.cards import parse_card

    here = vezimas.situation_for(FOUR, four_trumps("Ana"), [], "Ana", parse_card("9S"))
    assert vezimas.can_beat(here, parse_card("9C"))
    vezimas.verify_beat(here, parse_card("9C"))  # an own trump answers case 2
    assert not vezimas.can_beat(here, parse_card("AS"))
    with pytest.raises(RuleError, match="only one of your trumps") as refused:
        vezimas.verify_beat(here, parse_card("AS"))
    assert refused.value.path == "card"


def test_card_spelling_is_canonical_in_the_reason():
    got = beat(players=FOUR, trumps=four_trumps("Ana"), player="Ana", top="t♥", card="j♥")
    assert got["reason"].startswith("JH beats 10H.")


def test_trump_suits_may_be_given_as_symbols():
    trumps = {"Ana": "♣", "Bojan": "♠", "Ceca": "♥", "Dora": "♦"}
    assert beat(players=FOUR, trumps=trumps, player="Ana", top="9S", card="9C")["case"] == 2


def test_only_the_24_card_deck_is_accepted():
    every_card = [rank + suit for suit in SUITS for rank in (*map(str, range(2, 11)), *"JQKA")]
    for text in [*every_card, "RJ", "BJ", "JK"]:
        answer = "KC" if text == "AC" else "AC"
        request = {**BASE_BEAT, "top": text, "card": answer}
        if text in DECK:
            assert beat(**request)["case"] in (1, 2, 3)
        else:
            with pytest.raises(RuleError) as refused:
                beat(**request)
            assert refused.value.path == "top"


# --- refusals ------------------------------------------------------------------------

BASE_BEAT = {
    "players": FOUR,
    "trumps": four_trumps("Ana"),
    "player": "Ana",
    "top": "9S",
    "card": "AC",
}
BASE_TRUMPS = {
    "players": ["Ana", "Bojan", "Ceca"],
    "queen_of_clubs": "Ana",
    "nine_of_diamonds": "Ceca",
}
BASE_DEAL = {"players": FOUR, "loser": "Bojan"}


def changed(base, **fields):
    request = {**base, **fields}
    return {key: value for key, value in request.items() if value is not DROP}


DROP = object()

REFUSALS = [
    # vezimas-trumps
    ("vezimas-trumps", changed(BASE_TRUMPS, colour="red"), "colour"),
    ("vezimas-trumps", changed(BASE_TRUMPS, queen_of_clubs=DROP), "queen_of_clubs"),
    ("vezimas-trumps", changed(BASE_TRUMPS, queen_of_clubs="Nobody"), "queen_of_clubs"),
    ("vezimas-trumps", changed(BASE_TRUMPS, players=["Ana"], queen_of_clubs="Ana"), "players"),
    ("vezimas-trumps", changed(BASE_TRUMPS, players=[*FOUR, "Ema"]), "players"),
    ("vezimas-trumps", changed(BASE_TRUMPS, players=["Ana", "Ana", "Ceca"]), "players[1]"),
    ("vezimas-trumps", changed(BASE_TRUMPS, nine_of_diamonds=DROP), "nine_of_diamonds"),
    ("vezimas-trumps", changed(BASE_TRUMPS, nine_of_diamonds="Ema"), "nine_of_diamonds"),
    ("vezimas-trumps", changed(BASE_TRUMPS, players=FOUR), "nine_of_diamonds"),
    # vezimas-beat
    ("vezimas-beat", changed(BASE_BEAT, card=DROP), ""),
    ("vezimas-beat", changed(BASE_BEAT, hand=["AC"]), ""),
    ("vezimas-beat", changed(BASE_BEAT, colour="red"), "colour"),
    ("vezimas-beat", changed(BASE_BEAT, top=DROP), "top"),
    ("vezimas-beat", changed(BASE_BEAT, card="2S"), "card"),
    ("vezimas-beat", changed(BASE_BEAT, card="8C"), "card"),
    ("vezimas-beat", changed(BASE_BEAT, top="2S"), "top"),
    ("vezimas-beat", changed(BASE_BEAT, top="RJ"), "top"),
    ("vezimas-beat", changed(BASE_BEAT, top="XX"), "top"),
    ("vezimas-beat", changed(BASE_BEAT, card="9S"), "card"),
    ("vezimas-beat", changed(BASE_BEAT, out=["Ana"]), "player"),
    ("vezimas-beat", changed(BASE_BEAT, out=["Bojan", "Ceca", "Dora"]), "out"),
    ("vezimas-beat", changed(BASE_BEAT, out=["Ema"]), "out[0]"),
    ("vezimas-beat", changed(BASE_BEAT, out=["Bojan", "Bojan"]), "out[1]"),
    ("vezimas-beat", changed(BASE_BEAT, out="Bojan"), "out"),
    ("vezimas-beat", changed(BASE_BEAT, player="Ema"), "player"),
    ("vezimas-beat", changed(BASE_BEAT, players=["Ana"]), "players"),
    (
        "vezimas-beat",
        changed(BASE_BEAT, trumps={"Ana": "C", "Bojan": "S", "Ceca": "H"}),
        "trumps.Dora",
    ),
    (
        "vezimas-beat",
        changed(BASE_BEAT, trumps={"Ana": "C", "Bojan": "S", "Ceca": "H", "Dora": "H"}),
        "trumps.Dora",
    ),
    (
        "vezimas-beat",
        changed(BASE_BEAT, trumps={"Ana": "C", "Bojan": "H", "Ceca": "S", "Dora": "D"}),
        "trumps",
    ),
    (
        "vezimas-beat",
        changed(BASE_BEAT, players=["Ana", "Bojan"], trumps={"Ana": "H", "Bojan": "D"}),
        "trumps",
    ),
    ("vezimas-beat", changed(BASE_BEAT, trumps={**four_trumps("Ana"), "Ema": "C"}), "trumps.Ema"),
    ("vezimas-beat", changed(BASE_BEAT, trumps={**four_trumps("Ana"), "Dora": "X"}), "trumps.Dora"),
    ("vezimas-beat", changed(BASE_BEAT, trumps=["C", "S", "H", "D"]), "trumps"),
    ("vezimas-beat", changed(BASE_BEAT, card=DROP, hand=[]), "hand"),
    ("vezimas-beat", changed(BASE_BEAT, card=DROP, hand=["AC", "ac"]), "hand[1]"),
    ("vezimas-beat", changed(BASE_BEAT, card=DROP, hand=["AC", "9S"]), "hand[1]"),
    ("vezimas-beat", changed(BASE_BEAT, card=DROP, hand=["AC", "2C"]), "hand[1]"),
    ("vezimas-beat", changed(BASE_BEAT, card=DROP, hand=DECK), "hand"),
    # V-D5: nothing to beat still needs a player holding cards and a real card
    ("vezimas-beat", changed(BASE_BEAT, top=None, card=DROP, hand=[]), "hand"),
    ("vezimas-beat", changed(BASE_BEAT, top=None, card="2S"), "card"),
    ("vezimas-beat", changed(BASE_BEAT, top=None, card=DROP, hand=["AC", "AC"]), "hand[1]"),
    ("vezimas-beat", changed(BASE_BEAT, top=None, out=["Ana"]), "player"),
    ("vezimas-beat", changed(BASE_BEAT, top=None, out=["Bojan", "Ceca", "Dora"]), "out"),
    ("vezimas-beat", changed(BASE_BEAT, top=None, card=DROP), ""),
    # vezimas-deal
    ("vezimas-deal", changed(BASE_DEAL, loser=None), "loser"),
    ("vezimas-deal", changed(BASE_DEAL, loser="Ema"), "loser"),
    ("vezimas-deal", changed(BASE_DEAL, loser=DROP), "loser"),
    ("vezimas-deal", changed(BASE_DEAL, winner="Ana"), "winner"),
    ("vezimas-deal", changed(BASE_DEAL, players=[*FOUR, "Ema"]), "players"),
]


@pytest.mark.parametrize(("kind", "request_", "path"), REFUSALS)
def test_refusals(kind, request_, path):
    with pytest.raises(RuleError) as refused:
        api.evaluate(kind, request_)
    assert refused.value.path == path
    assert refused.value.message.endswith(".")


def test_v_d5_nothing_to_beat_any_card_is_legal_case_0():
    """V-D5: after a player goes out with a beat, the next one lays any card."""
    for card in DECK:
        got = beat(**changed(BASE_BEAT, top=None, card=card))
        assert (got["legal"], got["case"]) == (True, 0)
        assert "Nothing to beat" in got["reason"]


def test_v_d5_nothing_to_beat_every_card_of_the_hand_may_be_laid():
    got = beat(**changed(BASE_BEAT, top=None, card=DROP, hand=["9s", "AC", "KH"]))
    assert got["beaters"] == ["9S", "AC", "KH"] and got["case"] == 0


def test_v_d5_nothing_to_beat_next_player_skips_who_is_out():
    got = beat(**changed(BASE_BEAT, top=None, out=["Bojan"], card="9H"))
    assert got["next_player"] == "Ceca"


def test_v_d5_an_empty_hand_is_refused_with_the_rule():
    with pytest.raises(RuleError, match="V-D5"):
        beat(**changed(BASE_BEAT, card=DROP, hand=[]))


def test_refusal_bases_are_accepted():
    for kind, base in (
        ("vezimas-beat", BASE_BEAT),
        ("vezimas-trumps", BASE_TRUMPS),
        ("vezimas-deal", BASE_DEAL),
    ):
        assert isinstance(api.evaluate(kind, base), dict)


def test_a_2_of_spades_is_not_in_the_deck():
    with pytest.raises(RuleError, match="not in the Vežimas deck"):
        beat(**changed(BASE_BEAT, card="2S"))


def test_a_player_who_is_out_cannot_play():
    with pytest.raises(RuleError, match="cannot play"):
        beat(**changed(BASE_BEAT, player="Bojan", out=["Bojan"]))


def test_helpers_refuse_bad_input():
    with pytest.raises(RuleError):
        vezimas.deal_size(5)
    with pytest.raises(RuleError):
        vezimas.first_lead_after(FOUR, "Ema")
    with pytest.raises(RuleError):
        vezimas.first_lead_after("Ana", "Ana")
    with pytest.raises(RuleError):
        vezimas.session_standings({"Ana": -1})
    with pytest.raises(RuleError):
        vezimas.session_standings([("Ana", 1)])


def test_deal_size_hands_out_the_whole_deck():
    assert {n: vezimas.deal_size(n) for n in (2, 3, 4)} == {2: 12, 3: 8, 4: 6}
    assert all(n * vezimas.deal_size(n) == len(DECK) for n in (2, 3, 4))


def test_doctests_pass():
    result = doctest.testmod(vezimas)
    assert result.failed == 0 and result.attempted >= 10


# --- exhaustive: every top, answer, rotation and set of players out ------------------


def reference_beats(seating, trump_of, out, player, top, card):
    """The three-case rule restated plainly from RULES §4 (independent of the engine)."""
    holding = [name for name in seating if name not in out]
    nxt = holding[(holding.index(player) + 1) % len(holding)]
    mine, theirs = trump_of[player], trump_of[nxt]
    top_rank, top_suit = RANKS.index(top[:-1]), top[-1]
    rank, suit = RANKS.index(card[:-1]), card[-1]
    if top_suit == mine:
        return 1, suit == mine and rank > top_rank
    if top_suit == theirs:
        return 2, suit == mine
    return 3, suit == mine or (suit == top_suit and rank > top_rank)


def rotations(seating):
    for seat in range(len(seating)):
        order = seating[seat:] + seating[:seat]
        yield dict(zip(order, "CSHD", strict=False))


def subsets(seating):
    for size in range(len(seating) + 1):
        yield from (list(group) for group in itertools.combinations(seating, size))


@pytest.mark.parametrize("seating", [FOUR, FOUR[:3], FOUR[:2]], ids=["4p", "3p", "2p"])
def test_exhaustive_beat_matches_the_plain_rule(seating):
    engine = vezimas.KINDS["vezimas-beat"]
    checked = refused = 0
    for trumps, out, player in itertools.product(rotations(seating), subsets(seating), seating):
        request = {"players": seating, "trumps": trumps, "out": out, "player": player}
        if player in out or len(out) == len(seating) - 1:
            with pytest.raises(RuleError):
                engine({**request, "top": "9S", "card": "AS"})
            refused += 1
            continue
        for top in DECK:
            answers = [card for card in DECK if card != top]
            expected_beaters = []
            for card in answers:
                case, legal = reference_beats(seating, trumps, out, player, top, card)
                got = engine({**request, "top": top, "card": card})
                assert (got["case"], got["legal"]) == (case, legal), (request, top, card)
                expected_beaters += [card] if legal else []
                checked += 1
            got = engine({**request, "top": top, "hand": answers})
            assert got["beaters"] == expected_beaters
    players = len(seating)
    # combinations where the player holds cards and someone else does too
    playable = sum(players - len(out) for out in subsets(seating) if len(out) <= players - 2)
    assert checked == players * playable * 24 * 23
    assert refused == players * (2**players * players - playable)


# --- properties ----------------------------------------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from([*DECK, "2S", "RJ", "C", "♣", "Ana", "Bojan", "Ceca", "Dora", ""])
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=6)
        | st.dictionaries(st.text(max_size=8) | st.sampled_from(FOUR), inner, max_size=6)
        | st.dictionaries(st.integers() | st.none() | st.booleans(), inner, max_size=3)
    ),
    max_leaves=25,
)
FIELDS = [
    "players",
    "trumps",
    "out",
    "player",
    "top",
    "card",
    "hand",
    "queen_of_clubs",
    "nine_of_diamonds",
    "loser",
]
BASES = {"vezimas-beat": BASE_BEAT, "vezimas-trumps": BASE_TRUMPS, "vezimas-deal": BASE_DEAL}


def answers_or_refuses(kind, request):
    try:
        response = vezimas.KINDS[kind](request)
    except RuleError as refused:
        assert isinstance(refused.message, str) and isinstance(refused.path, str)
        return
    json.dumps(response)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(KINDS), json_values)
def test_any_request_only_raises_rule_error(kind, request):
    answers_or_refuses(kind, request)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(KINDS),
    st.lists(st.tuples(st.sampled_from(FIELDS), json_values | st.just(DROP)), max_size=3),
)
def test_damaged_valid_requests_only_raise_rule_error(kind, damage):
    request = dict(BASES[kind])
    for field, value in damage:
        if value is DROP:
            request.pop(field, None)
        else:
            request[field] = value
    answers_or_refuses(kind, request)


@settings(max_examples=200, deadline=None)
@given(
    clubs=st.sampled_from(FOUR),
    out=st.sets(st.sampled_from(FOUR), max_size=2),
    cards=st.lists(st.sampled_from(DECK), min_size=2, max_size=12, unique=True),
)
def test_beaters_are_exactly_the_cards_that_beat(clubs, out, cards):
    player = next(name for name in FOUR if name not in out)
    top, hand = cards[0], cards[1:]
    request = {"players": FOUR, "trumps": four_trumps(clubs), "out": sorted(out), "player": player}
    found = beat(**request, top=top, hand=hand)["beaters"]
    assert found == [card for card in hand if beat(**request, top=top, card=card)["legal"]]
