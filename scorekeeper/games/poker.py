"""Poker for Kvanta's three shuffled decks (RULES §3 "Poker phase").

Multi-deck hands differ from the casino game in three ways: five of a kind exists
and beats a straight flush; a flush or a pair may hold identical cards (``5H 5H``);
a player keeps 5 of 7 cards. Straights run A-2-3-4-5 … 10-J-Q-K-A, never round the
corner, and suits never break ties.

A hand's strength is a plain tuple ``(category, rank, rank, …)`` so hands compare
with ``<`` and ``==``: the category index comes first (see CATEGORIES), then the
ranks that decide within it (2..14, ace 14; a wheel straight's top card is 5).

The best 5 of 7 is found directly from rank counts rather than by trying all 21
choices; among equally strong choices K-D8 keeps the one with the smaller
Kvanta value (the absolute card sum, see ``signed_sum``), except for the winner
of a J or Q prize, who keeps the one giving him the larger prize (``best_hands``
lists every value the choices can have).

>>> from scorekeeper.cards import parse_card
>>> hand = best_hand([parse_card(t) for t in "10H 10H 10D 10C 10C 2S 4D".split()])
>>> hand.category, [str(c) for c in hand.cards], hand.value
('five_of_a_kind', ['10H', '10H', '10D', '10C', '10C'], 10)
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import NamedTuple

from ..cards import ACE, JACK, KING, QUEEN, Card
from ..messages import N_

# each category's code and name (a msgid, for the caller to translate), weakest first,
# so a category's index is its strength
CATEGORY_NAMES = {
    "high_card": N_("High card"),
    "pair": N_("Pair"),
    "two_pair": N_("Two pair"),
    "three_of_a_kind": N_("Three of a kind"),
    "straight": N_("Straight"),
    "flush": N_("Flush"),
    "full_house": N_("Full house"),
    "four_of_a_kind": N_("Four of a kind"),
    "straight_flush": N_("Straight flush"),
    "five_of_a_kind": N_("Five of a kind"),
}
CATEGORIES = tuple(CATEGORY_NAMES)
(HIGH_CARD, PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT, FLUSH, FULL_HOUSE, FOUR_OF_A_KIND,
 STRAIGHT_FLUSH, FIVE_OF_A_KIND) = range(10)  # fmt: skip

HAND_SIZE = 5

# Kvanta values: A 1, 2-10 face value, J/Q/K nothing; red adds, black subtracts
FACE_VALUE = {**{n: n for n in range(2, 11)}, JACK: 0, QUEEN: 0, KING: 0, ACE: 1}
_RED = frozenset("HDR")

# suits in the order a hand is printed (the dealer draw's order, high to low)
_SUIT_ORDER = {"S": 0, "H": 1, "D": 2, "C": 3}

# the straights, best first: (top card, bit mask of its five ranks); the ace also
# counts as 1 (bit 1) so A-2-3-4-5 is the lowest straight and K-A-2 never wraps
_STRAIGHTS = tuple((top, sum(1 << (top - i) for i in range(5))) for top in range(ACE, 4, -1))


class BestHand(NamedTuple):
    """The 5 cards kept, their strength key and their Kvanta value (K-D8)."""

    key: tuple
    cards: tuple[Card, ...]
    value: int

    @property
    def category(self) -> str:
        return category(self.key)


def card_value(card: Card) -> int:
    """A card's signed Kvanta value: red adds, black subtracts (RULES §3 "Values").

    >>> from scorekeeper.cards import parse_card
    >>> card_value(parse_card("7H")), card_value(parse_card("AS")), card_value(parse_card("KD"))
    (7, -1, 0)
    """
    value = FACE_VALUE.get(card.rank, 0)
    return value if card.suit in _RED else -value


# every card's value looked up at once: sums run on the best-of-7 hot path
_VALUES = {c: card_value(c) for c in (Card(r, s) for r in FACE_VALUE for s in _SUIT_ORDER)}


def signed_sum(cards: Iterable[Card]) -> int:
    """Red values minus black values."""
    values = _VALUES
    return sum(values[c] if c in values else card_value(c) for c in cards)


def hand_sum(cards: Iterable[Card]) -> int:
    """A hand's sum: the absolute value, since −15 and 15 are the same sum.

    >>> from scorekeeper.cards import parse_card
    >>> hand_sum([parse_card(t) for t in ("10S", "3H", "QD")])
    7
    """
    return abs(signed_sum(cards))


def category(key: tuple) -> str:
    """The CONTRACT name of a strength key's category."""
    return CATEGORIES[key[0]]


def straight_ranks(top: int) -> tuple[int, ...]:
    """The five ranks of the straight with this top card, highest first.

    >>> straight_ranks(5)
    (5, 4, 3, 2, 14)
    """
    return tuple(ACE if r == 1 else r for r in range(top, top - 5, -1))


def _straight_top(mask: int) -> int:
    for top, need in _STRAIGHTS:
        if mask & need == need:
            return top
    return 0


def _rank_mask(ranks: Iterable[int]) -> int:
    mask = 0
    for r in ranks:
        mask |= 1 << r
    if mask & (1 << ACE):
        mask |= 2  # the ace low
    return mask


def _evaluate(cards: Sequence[Card]) -> tuple[tuple, str | None]:
    """The strongest 5-card key among ``cards`` (5 or more), and the suit it needs
    (flush and straight flush only)."""
    if len(cards) < HAND_SIZE:
        raise ValueError("a poker hand needs at least 5 cards")
    counts = [0] * 15
    by_suit: dict[str, list[int]] = {}
    for rank, suit in cards:
        counts[rank] += 1
        by_suit.setdefault(suit, []).append(rank)
    # rank groups, biggest group first, then highest rank
    groups = sorted(((n, r) for r, n in enumerate(counts) if n), reverse=True)
    size, top = groups[0]
    if size >= 5:
        return (FIVE_OF_A_KIND, top), None

    best_flush: tuple | None = None
    flush_suit = None
    for suit, ranks in by_suit.items():
        if len(ranks) >= HAND_SIZE:
            high = _straight_top(_rank_mask(ranks))
            if high:
                candidate = (STRAIGHT_FLUSH, high)
            else:
                candidate = (FLUSH, *sorted(ranks, reverse=True)[:HAND_SIZE])
            if best_flush is None or candidate > best_flush:
                best_flush, flush_suit = candidate, suit
    if best_flush is not None and best_flush[0] == STRAIGHT_FLUSH:
        return best_flush, flush_suit

    if size == 4:
        kicker = max(r for n, r in groups[1:])
        return (FOUR_OF_A_KIND, top, kicker), None
    if size == 3:
        pairs = [r for n, r in groups[1:] if n >= 2]
        if pairs:
            return (FULL_HOUSE, top, max(pairs)), None
    if best_flush is not None:
        return best_flush, flush_suit

    high = _straight_top(_rank_mask(r for n, r in groups))
    if high:
        return (STRAIGHT, high), None
    # the rest: every other group is a single card or a pair
    if size == 3:
        return (THREE_OF_A_KIND, top, groups[1][1], groups[2][1]), None
    if size == 2:
        if groups[1][0] == 2:
            low = groups[1][1]
            kicker = max(r for n, r in groups[2:])  # a third pair may give the kicker
            return (TWO_PAIR, top, low, kicker), None
        return (PAIR, top, groups[1][1], groups[2][1], groups[3][1]), None
    return (HIGH_CARD, *(r for n, r in groups[:HAND_SIZE])), None


_GROUP_SIZES = {
    FIVE_OF_A_KIND: (5,),
    FOUR_OF_A_KIND: (4, 1),
    FULL_HOUSE: (3, 2),
    THREE_OF_A_KIND: (3, 1, 1),
    TWO_PAIR: (2, 2, 1),
    PAIR: (2, 1, 1, 1),
}


def _needed(key: tuple) -> list[tuple[int, int]]:
    """(rank, how many cards of it) that make up a hand with this key."""
    kind = key[0]
    if kind in (STRAIGHT, STRAIGHT_FLUSH):
        return [(r, 1) for r in straight_ranks(key[1])]
    if kind in _GROUP_SIZES:
        return list(zip(key[1:], _GROUP_SIZES[kind], strict=True))
    # flush or high card: one card per listed rank; a multi-deck flush may repeat one
    need: dict[int, int] = {}
    for r in key[1:]:
        need[r] = need.get(r, 0) + 1
    return list(need.items())


def _by_suit_order(cards: Iterable[Card]) -> list[Card]:
    return sorted(cards, key=lambda c: _SUIT_ORDER.get(c.suit, 4))


def _value_choices(needed: list[tuple[int, int]], pools: list[list[Card]]) -> dict[int, list[Card]]:
    """Every Kvanta value the needed cards can be picked to, with one pick for each
    (K-D8 chooses among them).

    Cards of one rank differ only in colour, so each rank offers a few options
    (how many of them are red); a small table of reachable sums finds every mix.
    Between a sum +s and −s the pick of −s is kept, so it never depends on order.
    """
    split = [
        (_by_suit_order(c for c in pool if c.suit in _RED),
         _by_suit_order(c for c in pool if c.suit not in _RED))
        for pool in pools
    ]  # fmt: skip
    reachable: dict[int, tuple[int, ...]] = {0: ()}  # sum -> reds taken per rank
    for (rank, count), (reds, blacks) in zip(needed, split, strict=True):
        value = FACE_VALUE.get(rank, 0)
        lo, hi = max(0, count - len(blacks)), min(count, len(reds))
        options = range(lo, hi + 1) if value else (hi,)
        step: dict[int, tuple[int, ...]] = {}
        for total, taken in reachable.items():
            for k in options:
                new = total + value * (2 * k - count)
                if new not in step:
                    step[new] = (*taken, k)
        reachable = step
    choices: dict[int, list[Card]] = {}
    for signed in sorted(reachable, key=lambda s: (abs(s), s)):
        if abs(signed) in choices:
            continue
        chosen: list[Card] = []
        for (_rank, count), (reds, blacks), k in zip(needed, split, reachable[signed], strict=True):
            chosen.extend(_by_suit_order(reds[:k] + blacks[: count - k]))
        choices[abs(signed)] = chosen
    return choices


def hand_key(cards: Sequence[Card]) -> tuple:
    """The strength of the best 5 of these 5-7 cards; a bigger key is a better hand.

    >>> from scorekeeper.cards import parse_card
    >>> wheel = hand_key([parse_card(t) for t in "AH 2S 3D 4C 5H".split()])
    >>> six_high = hand_key([parse_card(t) for t in "2S 3D 4C 5H 6H".split()])
    >>> category(wheel), wheel < six_high
    ('straight', True)
    """
    return _evaluate(cards)[0]


def best_hands(cards: Sequence[Card]) -> list[BestHand]:
    """The equally strong best 5 of these 5-7 cards, one per Kvanta value they can
    have, smallest value first (K-D8 picks among them)."""
    key, suit = _evaluate(cards)
    needed = _needed(key)
    by_rank: dict[int, list[Card]] = {}
    for c in cards:
        if suit is None or c.suit == suit:
            by_rank.setdefault(c.rank, []).append(c)
    pools = [by_rank[rank] for rank, _count in needed]
    if all(len(pool) == count for pool, (_rank, count) in zip(pools, needed, strict=True)):
        # no choice to make
        chosen = [c for pool in pools for c in (pool if len(pool) == 1 else _by_suit_order(pool))]
        return [BestHand(key, tuple(chosen), hand_sum(chosen))]
    choices = _value_choices(needed, pools)
    return [BestHand(key, tuple(choices[value]), value) for value in sorted(choices)]


def best_hand(cards: Sequence[Card]) -> BestHand:
    """The 5 cards to keep of 5-7 (K-D8: the smaller value among equally strong ones,
    as every player but a J or Q prize's winner keeps)."""
    return best_hands(cards)[0]


def cancel_ties(keys: Mapping[str, Hashable], highest: bool = True) -> tuple[str | None, list[str]]:
    """The one entry that stands alone at the top after equal entries cancel.

    K-D4 (poker): equal best hands cancel and the next best wins, repeatedly; the
    same rule settles Kvanta's tricks (K-D1), dealer draw and game winner (K-D7).
    Returns the winner (None when everything cancels) and who cancelled out,
    best first. ``highest=False`` looks from the lowest key up.

    >>> cancel_ties({"Ana": 9, "Bojan": 9, "Ceca": 4, "Dora": 2})
    ('Ceca', ['Ana', 'Bojan'])
    >>> cancel_ties({"Ana": 3, "Bojan": 3})
    (None, ['Ana', 'Bojan'])
    """
    groups: dict[Hashable, list[str]] = {}
    for name, key in keys.items():
        groups.setdefault(key, []).append(name)
    cancelled: list[str] = []
    for key in sorted(groups, reverse=highest):
        names = groups[key]
        if len(names) == 1:
            return names[0], cancelled
        cancelled.extend(names)
    return None, cancelled


__all__ = [
    "CATEGORIES",
    "BestHand",
    "best_hand",
    "best_hands",
    "cancel_ties",
    "card_value",
    "category",
    "hand_key",
    "hand_sum",
    "signed_sum",
    "straight_ranks",
]
