"""Szaman (RULES §2): score one deal from its tricks — kind ``szaman-deal``.

A deal is a list of tricks. A **full** trick gives the cards each player played, in
playing order; the engine checks it (every player once, led by the previous winner,
jokers per S-D1/S-D2) and works out the winner, the specials and who played off-suit.
A **quick** trick says those three things itself and is scored from what it says.

One deal may mix both kinds, in any order: a table that noted the first tricks
quickly can switch to full tricks (or back) without re-entering anything. A quick
trick's winner still leads the next trick, so a full trick after it is checked
against it; a quick trick's special cards (8H, JH, QS) still count towards the one
deck, and its ``"joker"`` counts as one of the two jokers. Only full tricks tell
which suit was led, so only they can prove a player void in a suit.

Besides scoring, the engine adds ``warnings`` — sentences, never refusals, because
the app can't see the hands (RULES §2): a likely revoke (a player shows a suit they
proved void in and could not have drawn since) and hand sizes that don't add up
(8 dealt + cards drawn vs cards played + cards left).

The helpers ``first_leader``, ``trick_winner``, ``penalty_for`` and ``game_winners``
serve the screens. Pure: no I/O, deterministic; the only error raised is RuleError.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from .. import validate as v
from ..cards import JACK, JOKER, QUEEN, Card
from ..errors import RuleError
from ..messages import N_, Joined, Plural, Text, gettext, ngettext, quoted, signed
from . import catalog, results
from .standings import Progress, win_text
from .wording import as_dict, as_list, cards_text

KIND = "szaman-deal"
CLASSIC, RUSSIAN = "classic", "russian"
VARIANTS = (CLASSIC, RUSSIAN)
MIN_PLAYERS, MAX_PLAYERS = 2, 6
DECK_SIZE = 54  # 52 cards + a red and a black joker
DEAL_SIZE = 8  # cards dealt to each player; the rest is the stock
TARGET = 66  # S-D5: the game's total closest to this wins

# trick points (RULES §2 "Trick points")
ALL_FOLLOWED = 5
ANY_OFF_SUIT = 1
OFF_SUIT_PENALTY = -2  # for each player who played off-suit in the trick
JOKER_HELD = -20  # end-of-deal penalty for each joker still held (not in the sum)

WON_BY_JOKER = "joker"  # how a quick trick says "taken by a joker"
EIGHT_OF_HEARTS, JACK_OF_HEARTS, QUEEN_OF_SPADES = Card(8, "H"), Card(JACK, "H"), Card(QUEEN, "S")
# special cards replace the base and add up; Q♠ is special in the Russian variant only
SPECIAL_POINTS = {"8H": 8, "JH": 11, "QS": 13, WON_BY_JOKER: 6}
SPECIAL_CARDS = {  # card → its name in SPECIAL_POINTS
    CLASSIC: {EIGHT_OF_HEARTS: "8H", JACK_OF_HEARTS: "JH"},
    RUSSIAN: {EIGHT_OF_HEARTS: "8H", JACK_OF_HEARTS: "JH", QUEEN_OF_SPADES: "QS"},
}

FULL_TRICK_FIELDS = frozenset(("plays", "joker_suit"))
MAPPINGS = (dict, Mapping)  # dict first: the common case skips the ABC check
SEQUENCES = (list, tuple)  # a play may come as a JSON list or a Python tuple
JOKER_OF = {  # S-D1: the joker that follows each suit
    "H": Card(JOKER, "R"),
    "D": Card(JOKER, "R"),
    "S": Card(JOKER, "B"),
    "C": Card(JOKER, "B"),
}
JOKER_BEATS_ALL = 99  # above any rank
SUIT_COLOUR = {"H": "red", "D": "red", "S": "black", "C": "black"}
COLOUR_SUITS = {"red": "HD", "black": "SC"}
SUIT_NAMES = {"S": N_("spades"), "H": N_("hearts"), "D": N_("diamonds"), "C": N_("clubs")}
JOKER_NAMES = {"R": "red", "B": "black"}
# the first lead: 2♣, 2♦, 2♥, 2♠, 3♣, … (ranks upward, suits ♣ ♦ ♥ ♠)
LEAD_SUIT_ORDER = {"C": 0, "D": 1, "H": 2, "S": 3}


class Play(NamedTuple):
    player: str
    card: Card


class Trick(NamedTuple):
    """One trick, full or quick, reduced to what scoring needs."""

    winner: str
    specials: tuple[str, ...]  # keys of SPECIAL_POINTS
    off_suit: tuple[str, ...]  # players who played off-suit, in playing order
    plays: tuple[Play, ...] = ()  # empty for a quick trick
    led_suit: str | None = None  # None for a quick trick


# --- cards and suits -----------------------------------------------------------------


def follows_suit(card: Card, led_suit: str) -> bool:
    """A card follows when it is of the led suit; S-D1: so does the joker of the led
    suit's colour (even from a player who holds the suit).

    >>> follows_suit(Card(9, "H"), "H"), follows_suit(Card.parse("RJ"), "D")
    (True, True)
    >>> follows_suit(Card.parse("BJ"), "H"), follows_suit(Card(9, "S"), "H")
    (False, False)
    """
    return card.suit == led_suit or card == JOKER_OF[led_suit]


def take_trick(cards: Sequence[Card], led_suit: str) -> tuple[int, list[int]]:
    """One pass over a complete trick: the index of the card that takes it — the joker
    of the led colour if played (S-D1, S-D2), else the highest card of the led suit —
    and the indexes of the off-suit cards, which win nothing. The lead always follows.

    >>> take_trick([Card(2, "D"), Card(13, "D"), Card(14, "S")], "D")
    (1, [2])
    """
    best, best_rank, off_suit = 0, -1, []
    joker = JOKER_OF[led_suit]
    for i, card in enumerate(cards):
        if card.suit == led_suit:
            if card.rank > best_rank:
                best, best_rank = i, card.rank
        elif card == joker:
            best, best_rank = i, JOKER_BEATS_ALL
        else:
            off_suit.append(i)
    return best, off_suit


def verify_joker_suit(lead: Card, joker_suit: str | None, path: str, trick_no: int = 0) -> None:
    """S-D2: a led joker names a suit of its own colour; no suit is named otherwise."""
    if lead.rank == JOKER:
        if joker_suit is None:
            raise RuleError("A led joker needs the suit its leader named (joker_suit).", path)
        if SUIT_COLOUR[joker_suit] != lead.colour:
            one, other = COLOUR_SUITS[lead.colour]
            # Translators: %(one)s and %(other)s are suit letters (H, D)
            suits = Text("%(one)s or %(other)s", one=one, other=other)
            if lead.colour == "red":
                # Translators: %(suits)s is "H or D", %(suit)s a suit's name (spades)
                raise RuleError(
                    "The red joker can only name a red suit (%(suits)s), not %(suit)s.",
                    path,
                    suits=suits,
                    suit=Text(SUIT_NAMES[joker_suit]),
                )
            raise RuleError(
                "The black joker can only name a black suit (%(suits)s), not %(suit)s.",
                path,
                suits=suits,
                suit=Text(SUIT_NAMES[joker_suit]),
            )
    elif joker_suit is not None:
        if trick_no:
            raise RuleError(
                "A suit is named only when a joker leads, but %(lead)s leads in trick %(trick)s.",
                path,
                lead=lead,
                trick=trick_no,
            )
        raise RuleError(
            "A suit is named only when a joker leads, but %(lead)s leads.", path, lead=lead
        )


def can_lead_with(lead: Card, joker_suit: str | None) -> bool:
    try:
        verify_joker_suit(lead, joker_suit, "joker_suit")
    except RuleError:
        return False
    return True


def led_suit_of(lead: Card, joker_suit: str | None) -> str:
    """The suit a trick is led in: the lead card's, or the suit a led joker named (S-D2)."""
    return joker_suit if lead.rank == JOKER else lead.suit


def trick_winner(plays: Sequence[Sequence], joker_suit: str | None = None) -> str:
    """Who takes a complete trick; ``plays`` are (player, card) pairs in playing order.
    Raises RuleError for a card that isn't one or a joker lead without its suit.

    >>> trick_winner([("Ola", "9H"), ("Piotr", "KH"), ("Zosia", "AS")])
    'Piotr'
    >>> trick_winner([("Ola", "2D"), ("Piotr", "KD"), ("Zosia", "RJ")])
    'Zosia'
    >>> trick_winner([("Ola", "BJ"), ("Piotr", "AC")], joker_suit="C")
    'Ola'
    """
    if not isinstance(plays, SEQUENCES) or not plays:
        raise RuleError("A trick needs at least one card.", "plays")
    names, cards = [], []
    for i, pair in enumerate(plays):
        at = v.join("plays", i)
        if not isinstance(pair, SEQUENCES) or len(pair) != 2:
            raise RuleError('Each play is a pair [player, card], e.g. ["Ola", "2C"].', at)
        names.append(pair[0])
        cards.append(szaman_card(pair[1], v.join(at, 1)))
    if joker_suit is not None:
        joker_suit = v.suit(joker_suit, "joker_suit")
    verify_joker_suit(cards[0], joker_suit, "joker_suit")
    return names[take_trick(cards, led_suit_of(cards[0], joker_suit))[0]]


_CARDS_SEEN: dict[str, Card] = {}  # spellings already checked, for speed


def szaman_card(value: object, path: str) -> Card:
    """A card of the Szaman deck: 52 cards and the red and black jokers."""
    if isinstance(value, str):
        known = _CARDS_SEEN.get(value)
        if known is not None:
            return known
    card = v.card(value, path)
    if card.rank == JOKER and card.suit not in JOKER_NAMES:
        raise RuleError(
            "%(card)s is not in the Szaman deck; its jokers are RJ and BJ.", path, card=card
        )
    if isinstance(value, str) and len(_CARDS_SEEN) < 4096:
        _CARDS_SEEN[value] = card
    return card


# --- scoring -------------------------------------------------------------------------


def trick_points(trick: Trick) -> dict[str, int]:
    """Points of one trick: specials replace the base (5, or 1 with any off-suit card)
    and add up; every player who played off-suit gets −2 (RULES §2).

    >>> trick_points(Trick("Ola", ("JH", "8H", "joker"), ()))
    {'Ola': 25}
    >>> trick_points(Trick("Ola", (), ("Piotr",)))
    {'Ola': 1, 'Piotr': -2}
    """
    special = sum(SPECIAL_POINTS[s] for s in trick.specials)
    points = {trick.winner: special or (ANY_OFF_SUIT if trick.off_suit else ALL_FOLLOWED)}
    for player in trick.off_suit:
        points[player] = points.get(player, 0) + OFF_SUIT_PENALTY
    return {name: p for name, p in points.items() if p}


def held_value(cards: Iterable) -> tuple[int, int]:
    """The cards still held at the end of a deal (RULES §2, the penalty): their values
    (2–10, J 11, Q 12, K 13, A 14) summed, jokers aside, and the number of jokers.

    >>> held_value(["KS", "4D", "QC"]), held_value(["BJ", "5H", "RJ"])
    ((29, 0), (5, 2))
    """
    total, jokers = 0, 0
    for i, value in enumerate(cards):
        card = szaman_card(value, v.join("cards", i))
        if card.rank == JOKER:
            jokers += 1
        else:
            total += card.rank
    return total, jokers


def penalty_for(cards: Iterable) -> int:
    """End-of-deal penalty for the cards still held: their value (``held_value``) divided
    by 10 and rounded up; −20 for each joker, not in the sum.

    >>> penalty_for(["KS", "4D", "QC"]), penalty_for(["RJ"]), penalty_for(["BJ", "5H"])
    (-3, -20, -21)
    >>> penalty_for([]), penalty_for(["10S", "10H"]), penalty_for(["10S", "10H", "AC"])
    (0, -2, -4)
    """
    total, jokers = held_value(cards)
    return total // -10 + JOKER_HELD * jokers  # floor(-x / 10) is minus ceil(x / 10)


def game_winners(totals: Mapping[str, int], target: int = TARGET) -> list[str]:
    """The players whose total is closest to the target, above or below; S-D5: equal
    distance shares the win. In the order of ``totals``.

    >>> game_winners({"Ola": 60, "Piotr": 72, "Zosia": 66})
    ['Zosia']
    >>> game_winners({"Ola": 60, "Piotr": 72, "Zosia": 10})
    ['Ola', 'Piotr']
    """
    if not totals:
        return []
    closest = min(abs(total - target) for total in totals.values())
    return [name for name, total in totals.items() if abs(total - target) == closest]


def lead_key(card: Card) -> tuple[int, int]:
    """A card's place in the first-lead order: rank first, then ♣ ♦ ♥ ♠."""
    return (card.rank, LEAD_SUIT_ORDER[card.suit])


def first_lead_order() -> list[Card]:
    """Every card but the jokers, in the order that decides who leads a deal.

    >>> [card.symbol for card in first_lead_order()[:6]]
    ['2♣', '2♦', '2♥', '2♠', '3♣', '3♦']
    """
    return sorted(
        (Card(rank, suit) for rank in range(2, 15) for suit in LEAD_SUIT_ORDER), key=lead_key
    )


def first_leader(hands: Mapping[str, Iterable]) -> str:
    """Who leads a deal's first trick: the holder of 2♣, else 2♦, 2♥, 2♠, 3♣, …
    (ranks upward, suits ♣ ♦ ♥ ♠). Jokers don't count.

    >>> first_leader({"Ola": ["2H", "AS"], "Piotr": ["2D", "RJ"], "Zosia": ["3C"]})
    'Piotr'
    """
    if not isinstance(hands, MAPPINGS):
        raise RuleError("hands must map each player to their cards.", "hands")
    best_key, best_name = None, None
    for name, hand in hands.items():
        if not isinstance(hand, SEQUENCES):
            raise RuleError(
                "The hand of %(name)s must be a list of cards.", "hands." + name, name=name
            )
        for i, value in enumerate(hand):
            card = szaman_card(value, v.join(v.join("hands", str(name)), i))
            if card.rank == JOKER:
                continue
            key = lead_key(card)
            if best_key is None or key < best_key:
                best_key, best_name = key, name
    if best_name is None:
        raise RuleError("Nobody holds a card other than a joker, so nobody can lead.", "hands")
    return best_name


# --- reading a request ---------------------------------------------------------------


class DeckCheck:
    """One deck: every card at most once, and at most two jokers in all — the jokers
    named in full tricks and in hands, plus the unnamed ones that won quick tricks."""

    def __init__(self) -> None:
        self.seen: set[Card] = set()
        self.jokers = 0

    def add(self, card: Card, path: str) -> None:
        if card in self.seen:
            raise RuleError(
                "%(card)s appears more than once; a deal uses one deck.", path, card=card.symbol
            )
        self.seen.add(card)
        if card.rank == JOKER:
            self.add_joker(path)

    def add_joker(self, path: str) -> None:
        self.jokers += 1
        if self.jokers > len(JOKER_NAMES):
            raise RuleError(
                "This deal has more jokers than the deck's two (counting tricks won by a joker).",
                path,
            )


class Reader:
    """Validates one ``szaman-deal`` request field by field, counting every card."""

    def __init__(self, players: list[str], variant: str) -> None:
        self.players = players
        self.seats = frozenset(players)
        self.variant = variant
        self.deck = DeckCheck()

    def card(self, value: object, path: str) -> Card:
        card = szaman_card(value, path)
        self.deck.add(card, path)
        return card

    # tricks

    def tricks(self, value: object) -> list[Trick]:
        most = DECK_SIZE // len(self.players)
        if not isinstance(value, list):
            raise RuleError("tricks must be a list.", "tricks")
        if not value:
            raise RuleError("A deal needs at least one trick.", "tricks")
        if len(value) > most:
            raise RuleError(
                "%(players)s players can play at most %(most)s tricks from the %(deck)s-card "
                "deck; %(count)s are listed.",
                "tricks",
                players=len(self.players),
                most=most,
                deck=DECK_SIZE,
                count=len(value),
            )
        tricks: list[Trick] = []
        for i, raw in enumerate(value):
            previous = tricks[-1].winner if tricks else None
            tricks.append(self.trick(raw, f"tricks[{i}]", i + 1, previous))
        return tricks

    def trick(self, raw: object, path: str, number: int, previous: str | None) -> Trick:
        if not isinstance(raw, MAPPINGS):
            raise RuleError("Trick %(number)s must be a JSON object.", path, number=number)
        if "plays" in raw:
            if any(key in raw for key in ("winner", "specials", "off_suit")):
                raise RuleError(
                    "Trick %(number)s is either full (plays) or quick (winner, specials, off_suit), not both.",
                    path,
                    number=number,
                )
            return self.full_trick(raw, path, number, previous)
        if "joker_suit" in raw:  # a full trick without its plays
            return self.full_trick(raw, path, number, previous)
        if "winner" not in raw and all(key in ("specials", "off_suit") for key in raw):
            raise RuleError(
                "Trick %(number)s needs either its plays (a full trick) or its winner (a quick trick).",
                path,
                number=number,
            )
        return self.quick_trick(raw, path, number)

    def full_trick(self, raw: Mapping, path: str, number: int, previous: str | None) -> Trick:
        if "plays" not in raw or not raw.keys() <= FULL_TRICK_FIELDS:
            v.obj(raw, path, required=("plays",), optional=("joker_suit",))  # says why
        plays = self.plays(raw["plays"], f"{path}.plays", number)
        suit_path = f"{path}.joker_suit"
        joker_suit = v.suit(raw["joker_suit"], suit_path) if "joker_suit" in raw else None
        lead = plays[0].card
        verify_joker_suit(lead, joker_suit, suit_path, number)
        verify_leader(plays[0].player, previous, f"{path}.plays[0][0]", number)
        led = led_suit_of(lead, joker_suit)
        cards = [card for _, card in plays]
        best, off_suit = take_trick(cards, led)
        specials_table = SPECIAL_CARDS[self.variant]
        # specials count even when played off-suit; S-D4: an off-suit joker is no special
        specials = [specials_table[card] for card in cards if card in specials_table]
        if cards[best].rank == JOKER:
            specials.append(WON_BY_JOKER)
        off_suit_players = tuple(plays[i].player for i in off_suit)
        return Trick(plays[best].player, tuple(specials), off_suit_players, plays, led)

    def plays(self, value: object, path: str, number: int) -> tuple[Play, ...]:
        if not isinstance(value, list):
            raise RuleError("The plays of trick %(number)s must be a list.", path, number=number)
        seen: set[str] = set()
        plays: list[Play] = []
        known, cards_seen = self.seats, self.deck.seen
        for i, pair in enumerate(value):
            # paths are plain f-strings here: this loop is the engine's hot spot
            if not isinstance(pair, SEQUENCES) or len(pair) != 2:
                raise RuleError(
                    'Each play is a pair [player, card], e.g. ["Ola", "2C"].',
                    path + "[" + str(i) + "]",
                )
            name = pair[0]
            if not (isinstance(name, str) and name in known):
                v.player(name, f"{path}[{i}][0]", self.players)  # raises, saying why
            if name in seen:
                raise RuleError(
                    "%(name)s plays twice in trick %(number)s; every player plays once.",
                    path + "[" + str(i) + "][0]",
                    name=name,
                    number=number,
                )
            seen.add(name)
            card = _CARDS_SEEN.get(pair[1]) if type(pair[1]) is str else None
            if card is None or card in cards_seen or card.rank == JOKER:
                card = self.card(pair[1], f"{path}[{i}][1]")  # checks and counts, says why
            else:
                cards_seen.add(card)
            plays.append(Play(name, card))
        missing = [name for name in self.players if name not in seen]
        if missing:
            raise RuleError(
                "Trick %(number)s lacks %(missing)s; every player plays once.",
                path,
                number=number,
                missing=", ".join(missing),
            )
        return tuple(plays)

    def quick_trick(self, raw: Mapping, path: str, number: int) -> Trick:
        req = v.obj(raw, path, required=("winner",), optional=("specials", "off_suit"))
        winner = v.player(req["winner"], v.join(path, "winner"), self.players)
        specials = self.specials(req.get("specials", []), v.join(path, "specials"), number)
        off_suit = self.off_suit(req.get("off_suit", []), v.join(path, "off_suit"), winner)
        return Trick(winner, specials, off_suit)

    def specials(self, value: object, path: str, number: int) -> tuple[str, ...]:
        items = v.array(value, path)
        allowed = SPECIAL_CARDS[self.variant]
        listed = Joined([*(str(card) for card in allowed), quoted(WON_BY_JOKER)], ", ")
        found: list[str] = []
        for i, item in enumerate(items):
            at = v.join(path, i)
            if isinstance(item, str) and item.strip().lower() == WON_BY_JOKER:
                if WON_BY_JOKER in found:
                    raise RuleError(
                        "“joker” is listed twice in trick %(number)s; one card wins a trick.",
                        at,
                        number=number,
                    )
                self.deck.add_joker(at)
                found.append(WON_BY_JOKER)
                continue
            card = szaman_card(item, at)
            if card.rank == JOKER:
                raise RuleError("Write “joker” for a trick won by a joker.", at)
            if card not in allowed:
                why = (
                    Text("Q♠ is special only in the Russian variant")
                    if card == QUEEN_OF_SPADES
                    else Text("%(card)s is not a special card", card=card)
                )
                raise RuleError(
                    "%(why)s; the specials here are %(listed)s.", at, why=why, listed=listed
                )
            self.deck.add(card, at)
            found.append(str(card))
        return tuple(found)

    def off_suit(self, value: object, path: str, winner: str) -> tuple[str, ...]:
        items = v.array(value, path)
        names: list[str] = []
        for i, item in enumerate(items):
            at = v.join(path, i)
            name = v.player(item, at, self.players)
            if name in names:
                raise RuleError("%(name)s is listed twice as playing off-suit.", at, name=name)
            if name == winner:
                raise RuleError(
                    "%(name)s won this trick, so %(name)s's card was not off-suit (an off-suit card wins "
                    "nothing).",
                    at,
                    name=name,
                )
            names.append(name)
        return tuple(names)

    # cards held at the end

    def left(self, request: Mapping, tricks: list[Trick]) -> dict[str, tuple[Card, ...]]:
        if "left" not in request:
            if self.variant == CLASSIC:
                raise RuleError(
                    "A classic deal needs left: the cards each player still holds.", "left"
                )
            return {name: () for name in self.players}
        raw = v.player_keys(request["left"], "left", self.players)
        held: dict[str, tuple[Card, ...]] = {}
        for name in self.players:
            path = f"left.{name}"
            if name not in raw:
                raise RuleError(
                    "left lists every player; give %(name)s an empty list if they hold nothing.",
                    path,
                    name=name,
                )
            items = v.array(raw[name], path, 0, DECK_SIZE)
            if self.variant == RUSSIAN and items:
                raise RuleError(
                    "A Russian deal ends when every hand is empty, so it lists no held cards.",
                    v.join(path, 0),
                )
            held[name] = tuple(self.card(item, f"{path}[{i}]") for i, item in enumerate(items))
        if self.variant == CLASSIC and all(held.values()):
            raise RuleError(
                "A classic deal ends when a player has no cards left (S-D3), so at least "
                "one player must hold none.",
                "left",
            )
        used = len(tricks) * len(self.players) + sum(len(cards) for cards in held.values())
        if used > DECK_SIZE:
            raise RuleError(
                "The tricks and the held cards come to %(used)s cards, but the deck has only "
                "%(deck)s.",
                "left",
                used=used,
                deck=DECK_SIZE,
            )
        return held


def verify_leader(leader: str, previous: str | None, path: str, number: int) -> None:
    """Each trick after the first is led by the previous trick's winner."""
    if previous is not None and leader != previous:
        raise RuleError(
            "Trick %(number)s must be led by %(previous)s, who won trick %(number2)s, not by "
            "%(leader)s.",
            path,
            number=number,
            previous=previous,
            number2=number - 1,
            leader=leader,
        )


# --- draws and warnings --------------------------------------------------------------


def draws_after_tricks(players: Sequence[str], tricks: Sequence[Trick], variant: str) -> list:
    """Who draws a card from the stock after each trick. Classic: the winner, while the
    stock lasts; Russian: everyone, while the stock can give everyone one (S-D6).
    Nobody draws after the last trick (S-D3: the end is checked before the draw)."""
    stock = DECK_SIZE - DEAL_SIZE * len(players)
    need = 1 if variant == CLASSIC else len(players)
    draws: list[tuple[str, ...]] = []
    for k, trick in enumerate(tricks):
        if k < len(tricks) - 1 and stock >= need:
            stock -= need
            draws.append((trick.winner,) if variant == CLASSIC else tuple(players))
        else:
            draws.append(())
    return draws


def russian_trick_count(n_players: int) -> int:
    """S-D6: 8 dealt plus one a trick while the stock can give everyone one.

    >>> [russian_trick_count(n) for n in (2, 3, 4, 5, 6)]
    [27, 18, 13, 10, 9]
    """
    return DEAL_SIZE + (DECK_SIZE - DEAL_SIZE * n_players) // n_players


def hand_size_warnings(
    players: Sequence[str], tricks: Sequence[Trick], left: Mapping, variant: str, draws: list
) -> list[str]:
    """Hand sizes that don't add up: 8 dealt + drawn should equal played + left."""
    if variant == RUSSIAN:
        expected = russian_trick_count(len(players))
        if len(tricks) == expected:
            return []
        return [
            gettext(
                "A Russian deal of %(players)s players lasts %(expected)s tricks (8 cards "
                "dealt, then draws while the stock lasts, S-D6), but %(count)s are listed.",
                players=len(players),
                expected=expected,
                count=len(tricks),
            )
        ]
    warnings: list[str] = []
    hand = dict.fromkeys(players, DEAL_SIZE)
    drawn = dict.fromkeys(players, 0)
    for k, drawers in enumerate(draws):
        for name in players:
            hand[name] -= 1
        empty = [name for name in players if hand[name] == 0]
        if empty and k < len(tricks) - 1 and not warnings:
            warnings.append(
                gettext(
                    "%(name)s had no cards left after trick %(trick)s, so the deal should have "
                    "ended there (S-D3), but %(more)s more trick(s) are listed.",
                    name=empty[0],
                    trick=k + 1,
                    more=len(tricks) - k - 1,
                )
            )
        for name in drawers:
            hand[name] += 1
            drawn[name] += 1
    for name in players:
        if hand[name] < 0:
            warnings.append(
                gettext(
                    "%(name)s played in %(tricks)s tricks but had only "
                    "%(had)s cards (%(dealt)s dealt + %(drawn)s drawn).",
                    name=name,
                    tricks=len(tricks),
                    had=DEAL_SIZE + drawn[name],
                    dealt=DEAL_SIZE,
                    drawn=drawn[name],
                )
            )
        elif hand[name] != len(left[name]):
            # Translators: %(cards)s is "1 card" or "5 cards"; %(entered)s is
            # "none are entered", "1 is entered" or "3 are entered"
            text = gettext(
                "%(name)s should have %(cards)s left at the end of this deal "
                "(%(dealt)s dealt + %(drawn)s drawn − %(tricks)s played), but %(entered)s.",
                name=name,
                cards=_cards(hand[name]),
                dealt=DEAL_SIZE,
                drawn=drawn[name],
                tricks=len(tricks),
                entered=_entered(len(left[name])),
            )
            warnings.append(text)
    return warnings


def _cards(n: int) -> Text:
    return Plural("%(num)d card", "%(num)d cards", n)


def _entered(n: int) -> Text:
    """How many held cards are entered for a player, as the end of a sentence."""
    if n == 0:
        return Text("none are entered")
    return Plural("%(num)d is entered", "%(num)d are entered", n)


def revoke_warnings(
    players: Sequence[str], tricks: Sequence[Trick], left: Mapping, draws: list
) -> list[str]:
    """Likely revokes: a player who played off-suit to a lead proved void in that suit;
    showing the suit later without having drawn a card in between is suspicious."""
    warnings: list[str] = []
    void: dict[str, dict[str, int]] = {name: {} for name in players}  # suit → trick no.
    for k, trick in enumerate(tricks):
        number = k + 1
        for name, card in trick.plays:
            proof = void[name].pop(card.suit, None) if void[name] else None
            if proof is not None:
                # Translators: %(suit)s is a suit's name (hearts), %(card)s a card (K♥)
                text = gettext(
                    "%(name)s played off-suit to a %(suit)s lead in trick "
                    "%(proof)s, then played %(card)s in trick %(number)s without drawing in "
                    "between: a likely revoke.",
                    name=name,
                    suit=Text(SUIT_NAMES[card.suit]),
                    proof=proof,
                    card=card.symbol,
                    number=number,
                )
                warnings.append(text)
        for name in trick.off_suit if trick.plays else ():  # quick tricks don't say the suit
            void[name][trick.led_suit] = number
        if not trick.plays and k > 0 and tricks[k - 1].winner in trick.off_suit:
            leader = tricks[k - 1].winner
            warnings.append(
                gettext(
                    "Trick %(number)s says %(leader)s played off-suit, but %(leader)s won trick "
                    "%(previous)s and so led this one.",
                    number=number,
                    leader=leader,
                    previous=k,
                )
            )
        for name in draws[k]:
            void[name].clear()
    for name in players:
        for card in left[name]:
            proof = void[name].pop(card.suit, None)
            if proof is not None:
                warnings.append(
                    gettext(
                        "%(name)s played off-suit to a %(suit)s lead in trick "
                        "%(proof)s, yet still holds %(card)s at the end without drawing since: "
                        "a likely revoke.",
                        name=name,
                        suit=Text(SUIT_NAMES[card.suit]),
                        proof=proof,
                        card=card.symbol,
                    )
                )
    return warnings


# --- the kind ------------------------------------------------------------------------


def score_deal(request: dict) -> dict:
    """``szaman-deal``: the points of each trick, the end-of-deal penalties (classic),
    every player's total for the deal, and warnings."""
    return score_deal_read(request)[0]


def score_deal_read(request: dict) -> tuple[dict, list[Trick], list]:
    """``score_deal``'s answer with the tricks it read and who drew after each, for a
    caller that looks at them further without reading every trick again."""
    req = v.obj(request, "", required=("players", "variant", "tricks"), optional=("left",))
    players = v.players(req["players"], "players", MIN_PLAYERS, MAX_PLAYERS)
    variant = v.choice(req["variant"], "variant", VARIANTS)
    reader = Reader(players, variant)
    tricks = reader.tricks(req["tricks"])
    left = reader.left(req, tricks)

    totals = dict.fromkeys(players, 0)
    scored = []
    for trick in tricks:
        points = trick_points(trick)
        for name, p in points.items():
            totals[name] += p
        scored.append({"winner": trick.winner, "points": points})
    penalties = {}
    if variant == CLASSIC:  # Russian: no end-of-deal penalty
        for name in players:
            penalty = penalty_for(left[name])
            if penalty:
                penalties[name] = penalty
                totals[name] += penalty

    draws = draws_after_tricks(players, tricks, variant)
    warnings = revoke_warnings(players, tricks, left, draws)
    warnings += hand_size_warnings(players, tricks, left, variant, draws)
    answer = {"tricks": scored, "penalties": penalties, "totals": totals, "warnings": warnings}
    return answer, tricks, draws


KINDS = {KIND: score_deal}

__all__ = [
    "KINDS",
    "Trick",
    "first_leader",
    "follows_suit",
    "game_winners",
    "penalty_for",
    "score_deal",
    "trick_winner",
]


# ---------------------------------------------------------------- the game's record

DEALS = 6  # RULES §2: a game is 6 deals


def game_result(players, totals, deals, ended, settings) -> dict:
    """S-D5: after the set number of deals the totals closest to the target win,
    shared on equal distance; ranks by distance."""
    target, wanted = settings["target"], settings["deals"]
    distance = {p: abs(totals[p] - target) for p in players}
    rank = results.ranks(players, distance.get)
    if deals >= wanted or ended:
        winners = game_winners(totals, target)
        return results.answer(True, winners, [], rank, Text("closest to the target"), players)
    left = wanted - deals
    reason = Plural("%(num)d deal to go", "%(num)d deals to go", left)
    return results.answer(False, [], [], rank, reason, players)


def _standing_message(result: dict, totals: dict, settings: dict, progress: Progress) -> str:
    target = int(settings.get("target", TARGET))
    if result["finished"]:
        return gettext(
            "%(winners)s: closest to %(target)s (S-D5).",
            winners=win_text(result["winners"]),
            target=target,
        )
    left = max(int(settings.get("deals", DEALS)) - progress.deals_played, 0)
    return ngettext(
        "%(num)d deal to go; closest to %(target)s wins.",
        "%(num)d deals to go; closest to %(target)s wins.",
        left,
        target=target,
    )


def _standing_view(result: dict, totals: dict, settings: dict, players: list[str]) -> dict:
    return {"distance_to": int(settings.get("target", TARGET))}


# ---------------------------------------------------------------- the history's lines


def deal_breakdown(request: dict, result: dict, seat_names: list[str]) -> list[str]:
    lines = []
    for number, trick in enumerate(as_list(result.get("tricks")), start=1):
        trick = as_dict(trick)
        got = ", ".join(f"{n} {signed(p)}" for n, p in as_dict(trick.get("points")).items())
        winner = trick.get("winner") or "?"
        lines.append(
            gettext("Trick %(n)d won by %(name)s", n=number, name=winner)
            + (f": {got}" if got else "")
        )
    left = as_dict(request.get("left"))
    penalties = as_dict(result.get("penalties"))
    for name, penalty in penalties.items():
        held = cards_text(left.get(name))
        lines.append(
            gettext("Penalty for %(name)s: %(points)s", name=name, points=signed(penalty))
            + (f" ({held})" if held else "")
        )
    return lines


GAME = catalog.Game(
    "szaman",
    N_("Szaman"),
    N_("Shaman"),
    (2, 3, 4, 5, 6),
    (
        catalog.Setting(
            "deals", N_("Deals in a game"), "int", DEALS, lo=1, hi=30, help=N_("RULES §2: 6.")
        ),
        catalog.Setting(
            "target",
            N_("Winning total (closest wins)"),
            "int",
            TARGET,
            lo=1,
            hi=999,
            decision="S-D5",
            help=N_("The total closest to it wins; equal distance shares the win."),
        ),
        catalog.Setting(
            "variant",
            N_("Variant"),
            "choice",
            "classic",
            options=(("classic", N_("Classic")), ("russian", N_("Russian"))),
            decision="S-D6",
            house_rule=True,
            help=N_("Russian: everyone draws after each trick, no end penalty, Q♠ is worth 13."),
        ),
    ),
    N_("Tricks with two jokers; finish closest to 66."),
    engines=KINDS,
    kinds=(
        catalog.Kind(
            KIND,
            N_("Deal"),
            points=lambda result: dict(result.get("totals", {})),
            breakdown="scorekeeper.games.szaman:deal_breakdown",
        ),
    ),
    result=catalog.Result(
        game_result,
        _standing_message,
        {
            "target": catalog.ResultSetting(TARGET, results.whole(1, results.TOTAL_LIMIT)),
            "deals": catalog.ResultSetting(DEALS, results.whole(1, results.MAX_DEALS)),
        },
        view=_standing_view,
    ),
    play_state="scorekeeper.games.play.szaman:SzamanDeal",
    rule_card="scorekeeper.rulecards:SZAMAN",
    sheet="scorekeeper.printing:szaman_sheet",
)
