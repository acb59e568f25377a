"""Property tests for ``szaman-deal``: random legal deals always score, consistently and
without warnings; quick tricks score like the full tricks they summarise; a repeated
card is always refused; and no request of any shape raises anything but RuleError."""

from __future__ import annotations

import copy
import json
import math
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekeeper import api
from scorekeeper.cards import Card, deck_with_jokers
from scorekeeper.errors import RuleError
from scorekeeper.games.szaman import first_leader, penalty_for

NAMES = ["Ana", "Bojan", "Ceca", "Dragan", "Ema", "Filip"]
COLOUR = {"H": "red", "D": "red", "S": "black", "C": "black"}
COLOUR_SUITS = {"red": "HD", "black": "SC"}
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- a reference table: deal, play legal tricks, draw, stop --------------------------


def follows(card: Card, led: str) -> bool:
    return COLOUR[led] == card.colour if card.is_joker else card.suit == led


def legal_cards(hand: list[Card], led: str | None) -> list[Card]:
    """Follow suit if you can (a joker of the led colour also follows, S-D1)."""
    if led is None or not any(not c.is_joker and c.suit == led for c in hand):
        return hand
    return [c for c in hand if follows(c, led)]


def reference_winner(plays, led: str) -> str:
    for name, card in plays:
        if card.is_joker and follows(card, led):
            return name
    return max((c.rank, name) for name, c in plays if not c.is_joker and c.suit == led)[1]


def reference_points(plays, led: str, winner: str, variant: str) -> dict[str, int]:
    cards = {c for _, c in plays}
    won_with = dict(plays)[winner]
    special = 8 * (Card(8, "H") in cards) + 11 * (Card(11, "H") in cards)
    special += 13 * (variant == "russian" and Card(12, "S") in cards)
    special += 6 * won_with.is_joker
    off = [name for name, c in plays if not follows(c, led)]
    points = {winner: special or (1 if off else 5)}
    points.update({name: -2 for name in off})
    return points


def reference_penalty(hand) -> int:
    plain = [c.rank for c in hand if not c.is_joker]
    return -math.ceil(sum(plain) / 10) - 20 * (len(hand) - len(plain))


def play_deal(rnd: random.Random, n: int, variant: str):
    """A whole legal deal: 8 each from a shuffled 54-card deck, the first lead by
    first_leader, follow-suit tricks, draws (classic: the winner; Russian: everyone
    while the stock can serve all, S-D6), stop per S-D3 / empty hands."""
    players = NAMES[:n]
    deck = deck_with_jokers()
    rnd.shuffle(deck)
    hands = {p: deck[8 * i : 8 * i + 8] for i, p in enumerate(players)}
    stock = deck[8 * n :]
    leader = first_leader(hands)
    tricks = []
    while True:
        seat = players.index(leader)
        plays, led, joker_suit = [], None, None
        for name in players[seat:] + players[:seat]:
            card = rnd.choice(legal_cards(hands[name], led))
            if led is None:
                if card.is_joker:
                    joker_suit = led = rnd.choice(COLOUR_SUITS[card.colour])
                else:
                    led = card.suit
            hands[name].remove(card)
            plays.append((name, card))
        winner = reference_winner(plays, led)
        tricks.append({"plays": plays, "joker_suit": joker_suit, "led": led, "winner": winner})
        if variant == "classic":
            if any(not hands[p] for p in players):  # S-D3: before the draw
                break
            if stock:
                hands[winner].append(stock.pop())
        else:
            if not any(hands.values()):
                break
            if len(stock) >= n:
                for p in players:
                    hands[p].append(stock.pop())
        leader = winner
    return players, tricks, hands, variant


def full_trick(trick) -> dict:
    out = {"plays": [[name, str(card)] for name, card in trick["plays"]]}
    if trick["joker_suit"]:
        out["joker_suit"] = trick["joker_suit"]
    return out


def quick_trick(trick, variant: str) -> dict:
    specials_table = {"8H", "JH", "QS"} if variant == "russian" else {"8H", "JH"}
    cards = [str(c) for _, c in trick["plays"]]
    specials = [c for c in cards if c in specials_table]
    if dict(trick["plays"])[trick["winner"]].is_joker:
        specials.append("joker")
    off = [name for name, c in trick["plays"] if not follows(c, trick["led"])]
    return {"winner": trick["winner"], "specials": specials, "off_suit": off}


def request_for(players, tricks, hands, variant, quick=frozenset()) -> dict:
    request = {
        "players": players,
        "variant": variant,
        "tricks": [
            quick_trick(t, variant) if i in quick else full_trick(t) for i, t in enumerate(tricks)
        ],
    }
    if variant == "classic":
        request["left"] = {p: [str(c) for c in hands[p]] for p in players}
    return request


deals = st.builds(
    play_deal,
    st.randoms(use_true_random=False),
    st.integers(2, 6),
    st.sampled_from(["classic", "russian"]),
)
classic_deals = st.builds(
    play_deal, st.randoms(use_true_random=False), st.integers(2, 6), st.just("classic")
)


def score(request):
    return api.evaluate("szaman-deal", request)


# --- properties ----------------------------------------------------------------------


@FAST
@given(
    st.randoms(use_true_random=False), st.integers(2, 6), st.sampled_from(["classic", "russian"])
)
def test_legal_deals_always_score_and_totals_are_trick_points_plus_penalties(rnd, n, variant):
    players, tricks, hands, _ = play_deal(rnd, n, variant)
    got = score(request_for(players, tricks, hands, variant))
    assert got["warnings"] == []  # a legal deal raises no suspicion
    assert [t["winner"] for t in got["tricks"]] == [t["winner"] for t in tricks]
    for mine, trick in zip(got["tricks"], tricks, strict=True):
        assert mine["points"] == reference_points(
            trick["plays"], trick["led"], trick["winner"], variant
        )
    expected_penalties = {}
    if variant == "classic":
        expected_penalties = {p: reference_penalty(hands[p]) for p in players}
        expected_penalties = {p: x for p, x in expected_penalties.items() if x}
    assert got["penalties"] == expected_penalties
    for name in players:
        from_tricks = sum(t["points"].get(name, 0) for t in got["tricks"])
        assert got["totals"][name] == from_tricks + got["penalties"].get(name, 0)
    json.dumps(got)


@FAST
@given(deals, st.randoms(use_true_random=False))
def test_quick_tricks_score_like_the_full_tricks_they_summarise(deal, rnd):
    players, tricks, hands, variant = deal
    full = request_for(players, tricks, hands, variant)
    quick = {i for i in range(len(tricks)) if rnd.random() < 0.5}
    mixed = request_for(players, tricks, hands, variant, quick)
    got, want = score(mixed), score(full)
    assert (got["tricks"], got["penalties"], got["totals"]) == (
        want["tricks"],
        want["penalties"],
        want["totals"],
    )
    assert got["warnings"] == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(deck_with_jokers()), unique=True, max_size=20))
def test_penalty_is_the_rounded_up_tenth_plus_20_per_joker_for_any_hand(hand):
    assert penalty_for(hand) == reference_penalty(hand)
    assert penalty_for([str(c) for c in hand]) == reference_penalty(hand)


def card_slots(request):
    """Every place a card sits in a request, in the order the engine reads them."""
    slots = []
    for trick in request["tricks"]:
        for play in trick.get("plays", []):
            slots.append((play, 1))
    for name in request["players"]:
        hand = request.get("left", {}).get(name, [])
        slots.extend((hand, i) for i in range(len(hand)))
    return slots


@FAST
@given(deals, st.randoms(use_true_random=False))
def test_any_repeated_card_is_refused(deal, rnd):
    request = request_for(*deal)
    slots = card_slots(request)
    first, second = sorted(rnd.sample(range(len(slots)), 2))
    (src, i), (dst, j) = slots[first], slots[second]
    dst[j] = src[i]
    try:
        score(request)
    except RuleError as err:
        assert "appears more than once" in err.message
    else:
        raise AssertionError("a repeated card was accepted")


@FAST
@given(classic_deals, st.randoms(use_true_random=False))
def test_a_played_card_also_listed_as_held_is_refused(deal, rnd):
    request = request_for(*deal)
    played = [c for t in request["tricks"] for _, c in t["plays"]]
    rnd.choice(list(request["left"].values())).append(rnd.choice(played).lower())
    try:
        score(request)
    except RuleError as err:
        assert "appears more than once" in err.message
    else:
        raise AssertionError("a repeated card was accepted")


# --- nothing but RuleError -----------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True)
    | st.text(max_size=6)
    | st.sampled_from(NAMES + ["RJ", "BJ", "JK", "2C", "QS", "8H", "joker", "H", "classic"]),
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(
            st.text(max_size=6)
            | st.sampled_from(["plays", "winner", "specials", "off_suit", "joker_suit", "left"])
            | st.integers(),
            inner,
            max_size=5,
        )
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_arbitrary_json_raises_only_rule_error(value):
    request = value if isinstance(value, dict) else {"tricks": value}
    try:
        json.dumps(score(request))
    except RuleError:
        pass


def containers(node, out):
    """Every list and dict inside a request, to mutate one of them."""
    if isinstance(node, dict | list):
        out.append(node)
        for child in node.values() if isinstance(node, dict) else node:
            containers(child, out)
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deals, st.randoms(use_true_random=False), json_values, st.booleans())
def test_mutated_legal_requests_raise_only_rule_error(deal, rnd, garbage, drop):
    request = copy.deepcopy(request_for(*deal, quick={0}))
    target = rnd.choice(containers(request, []))
    if isinstance(target, dict) and target:
        key = rnd.choice(list(target))
        if drop:
            del target[key]
        else:
            target[key] = garbage
    elif isinstance(target, list) and target:
        index = rnd.randrange(len(target))
        if drop:
            del target[index]
        else:
            target[index] = garbage
    try:
        json.dumps(score(request))
    except RuleError as err:
        assert isinstance(err.message, str) and err.message
        assert isinstance(err.path, str)
