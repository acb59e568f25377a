"""Card notation shared by every game (RULES §0).

A card is written rank then suit: ``10H``, ``QS``, ``AC``; ``T`` means 10, any case is
accepted, suits may be given as symbols (♠ ♥ ♦ ♣). Jokers are ``RJ`` (red), ``BJ``
(black) and ``JK`` (colourless, Pegs and Jokers). Cards are small named tuples so
they hash, compare and sort cheaply; ``str(card)`` is the canonical form.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from .messages import N_, Text, quotable

SUITS = ("S", "H", "D", "C")
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES = {"S": N_("spades"), "H": N_("hearts"), "D": N_("diamonds"), "C": N_("clubs")}
RED_SUITS = frozenset("HD")
BLACK_SUITS = frozenset("SC")

# rank numbers: 2..10 face value, J 11, Q 12, K 13, A 14; jokers are 0
JACK, QUEEN, KING, ACE = 11, 12, 13, 14
JOKER = 0
RANKS = tuple(range(2, 15))
RANK_TEXT = {**{n: str(n) for n in range(2, 11)}, JACK: "J", QUEEN: "Q", KING: "K", ACE: "A"}
RANK_NAMES = {
    **{n: str(n) for n in range(2, 11)},
    JACK: "jack",
    QUEEN: "queen",
    KING: "king",
    ACE: "ace",
}

# joker "suits": R red, B black, X colourless
JOKER_TEXT = {"R": "RJ", "B": "BJ", "X": "JK"}
_JOKERS_IN = {"RJ": "R", "BJ": "B", "JK": "X"}

_SUITS_IN = {
    "S": "S", "H": "H", "D": "D", "C": "C",
    "♠": "S", "♥": "H", "♦": "D", "♣": "C",
    "♤": "S", "♡": "H", "♢": "D", "♧": "C",
}  # fmt: skip
_RANKS_IN = {
    **{str(n): n for n in range(2, 11)},
    "T": 10,
    "J": JACK,
    "Q": QUEEN,
    "K": KING,
    "A": ACE,
}


class CardError(ValueError):
    """A token that is not a card; the message names the token."""

    def __init__(self, token: object, why: Text | None = None):
        self.token = token
        if why is None:
            # Translators: %(token)s is what was written (11H)
            self.text = Text("“%(token)s” is not a card.", token=quotable(token))
        else:
            # Translators: %(why)s says how a card is written
            self.text = Text("“%(token)s” is not a card (%(why)s).", token=quotable(token), why=why)
        super().__init__(self.text.english())

    @property
    def message(self) -> str:
        """The sentence in the language being spoken now."""
        return str(self.text)


class Card(NamedTuple):
    rank: int  # 2..14, or JOKER (0)
    suit: str  # S H D C; for jokers R, B or X

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER

    @property
    def colour(self) -> str | None:
        """'red', 'black', or None for the colourless joker."""
        if self.suit in RED_SUITS or self.suit == "R":
            return "red"
        if self.suit in BLACK_SUITS or self.suit == "B":
            return "black"
        return None

    @property
    def is_red(self) -> bool:
        return self.colour == "red"

    @property
    def is_black(self) -> bool:
        return self.colour == "black"

    def __str__(self) -> str:
        if self.rank == JOKER:
            return JOKER_TEXT[self.suit]
        return RANK_TEXT[self.rank] + self.suit

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"

    @property
    def symbol(self) -> str:
        """Display form with the suit symbol: ``10♥``, ``RJ``."""
        if self.rank == JOKER:
            return JOKER_TEXT[self.suit]
        return RANK_TEXT[self.rank] + SUIT_SYMBOLS[self.suit]

    @classmethod
    def parse(cls, text: object) -> Card:
        return parse_card(text)


_CACHE: dict[str, Card] = {}


def parse_card(text: object) -> Card:
    """Parse one card in any accepted spelling; raise CardError naming the token."""
    if isinstance(text, Card):
        return text
    if not isinstance(text, str):
        raise CardError(text, Text("a card is written as text such as 10H or QS"))
    hit = _CACHE.get(text)
    if hit is not None:
        return hit
    token = text.strip().upper()
    if token in _JOKERS_IN:
        card = Card(JOKER, _JOKERS_IN[token])
    else:
        if len(token) < 2:
            raise CardError(text, Text("write the rank then the suit, e.g. 10H"))
        suit = _SUITS_IN.get(token[-1])
        if suit is None:
            raise CardError(text, Text("the suit must be S, H, D or C"))
        rank = _RANKS_IN.get(token[:-1])
        if rank is None:
            raise CardError(text, Text("the rank must be A, 2-10, J, Q or K"))
        card = Card(rank, suit)
    if len(_CACHE) < 4096:
        _CACHE[text] = card
    return card


def format_cards(cards) -> list[str]:
    return [str(c) for c in cards]


def standard_deck() -> list[Card]:
    """One 52-card deck."""
    return [Card(rank, suit) for suit in SUITS for rank in RANKS]


def deck_with_jokers() -> list[Card]:
    """52 cards plus a red and a black joker (Szaman)."""
    return standard_deck() + [Card(JOKER, "R"), Card(JOKER, "B")]


def multi_deck(decks: int, colourless_jokers: int = 0) -> list[Card]:
    """Several 52-card decks shuffled together, plus colourless jokers (Kvanta: 3 decks;
    Pegs and Jokers: 3 decks + 6 jokers, or 4 decks + 8 for 8 players)."""
    return standard_deck() * decks + [Card(JOKER, "X")] * colourless_jokers


def piquet_deck() -> list[Card]:
    """The 24-card deck of Vežimas: 9, 10, J, Q, K, A of each suit."""
    return [Card(rank, suit) for suit in SUITS for rank in range(9, 15)]


# ---------------------------------------------------------------- as a player reads them


@functools.lru_cache(maxsize=512)
def _readable(value) -> Card | None:
    try:
        return parse_card(value)
    except (ValueError, TypeError):
        return None


def card_symbol(value) -> str:
    """``10H`` → ``10♥``; anything else unchanged."""
    card = _readable(value)
    return card.symbol if card else str(value)


def card_colour(value) -> str:
    card = _readable(value)
    return (card.colour or "none") if card else "none"


CARD_CODE = re.compile(r"(?<![\w-])(?:10|[2-9AKQJ])[SHDC](?![\w-])")


def symbols(text) -> str:
    """A sentence of an engine or a play state names cards by code ("turned 9H", "KC
    goes to the attacker"), as their JSON does; what a player reads names them by
    symbol (9♥, K♣), as the rest of the app does."""
    return CARD_CODE.sub(lambda m: card_symbol(m.group(0)), "" if text is None else str(text))
