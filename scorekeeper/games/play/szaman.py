"""A Szaman deal as a log of taps (RULES.md §2), closed by a ``szaman-deal`` request.

A trick is entered either **card by card** (``card`` taps in playing order; a led
joker's suit by a ``suit`` tap, S-D2) or **quickly** (``special`` and ``off`` marks,
then ``winner``). Each trick may be entered either way, so a table can switch at any
trick. The previous trick's winner leads (RULES §2 "Play"); the first leader is tapped
(``lead``) or is whoever plays the deal's first card. Hand sizes come from the engine's
draws (8 dealt, the winner draws while the stock lasts; Russian: everyone, S-D6), so the
deal ends by itself when a hand runs out (classic, checked before the draw, S-D3) or
every hand is empty (Russian); ``end`` ends it earlier. A classic deal then needs every
player's remaining cards (``held`` per card, ``done`` once a player's list is final);
a player whose list has as many cards as he should hold is final without ``done``.
A card of a trick entered card by card is put right later by ``change`` (the trick
keeping its winner), without undoing the tricks after it.

Every tap names its seat (0 = the first player) where a seat is meant, and says what
is so, never "toggle": ``{"action": "held", "seat": 2, "card": "KH", "on": true}``.
A ``card`` tap that is already true (that seat played that card in this deal) changes
nothing, so a retried tap is harmless even under a new id.
"""

from __future__ import annotations

import functools
import pickle
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from ... import validate as v
from ...cards import Card
from ...errors import RuleError
from ...messages import gettext, speaking
from .. import catalog
from .. import szaman as engine
from . import Checks, Refused, Tap, check_arguments, per_language

JOKERS = tuple(str(card) for card in sorted(set(engine.JOKER_OF.values())))  # BJ, RJ
DECK = tuple(
    [str(Card(rank, suit)) for suit in engine.LEAD_SUIT_ORDER for rank in range(2, 15)]
) + tuple(sorted(JOKERS, reverse=True))  # 2♣ … A♠, then RJ, BJ
SUITS = tuple(engine.LEAD_SUIT_ORDER)  # ♣ ♦ ♥ ♠, the first-lead order
ARGS = {  # every action's arguments: a tap with any other is refused
    "lead": ("seat",),
    "card": ("seat", "card"),
    "suit": ("seat", "suit"),
    "special": ("card", "on"),
    "off": ("seat", "on"),
    "winner": ("seat",),
    "end": (),
    "held": ("seat", "card", "on"),
    "done": ("seat", "on"),
    "change": ("trick", "seat", "card"),
}
REQUIRED = {"done": ("seat",)}  # the rest need all their arguments


@dataclass(frozen=True)
class Trick:
    """A trick as entered: full (``plays``, in playing order) or quick."""

    winner: int
    plays: tuple[tuple[int, str], ...] = ()
    joker_suit: str | None = None
    specials: tuple[str, ...] = ()  # quick: keys of engine.SPECIAL_POINTS
    off_suit: tuple[int, ...] = ()  # quick

    @property
    def full(self) -> bool:
        return bool(self.plays)

    def cards(self) -> tuple[str, ...]:
        """The named cards of the trick (a quick trick's "joker" names no card)."""
        if self.plays:
            return tuple(card for _seat, card in self.plays)
        return tuple(s for s in self.specials if s != engine.WON_BY_JOKER)


def _flag(tap: Tap, name: str = "on") -> bool:
    value = tap.get(name)
    if not isinstance(value, bool):
        raise Refused(
            "%(name)s is true or false: say what is so, not a toggle.", "." + name, name=name
        )
    return value


def _card(raw: object, path: str = ".card") -> str:
    try:
        return str(engine.szaman_card(raw, path))
    except RuleError as exc:
        raise Refused(exc.text, path) from None


@dataclass(frozen=True)
class SzamanDeal(Checks):
    """One Szaman deal being entered (see the module's docstring for the taps).

    >>> from . import replay
    >>> deal = replay(SzamanDeal.start(["Ola", "Piotr"], {}), [
    ...     {"id": "a", "action": "lead", "seat": 0},
    ...     {"id": "b", "action": "card", "seat": 0, "card": "2C"},
    ...     {"id": "c", "action": "card", "seat": 1, "card": "KC"},
    ...     {"id": "d", "action": "special", "card": "8H", "on": True},
    ...     {"id": "e", "action": "winner", "seat": 0},
    ... ])
    >>> deal.turn, deal.to_json()["next"]["text"]
    (0, 'Trick 3: Ola leads.')
    >>> deal.to_json()["score"]["totals"]
    {'Ola': 8, 'Piotr': 5}
    >>> deal.can(Tap("f", "card", (("seat", 1), ("card", "3C"))))
    False
    >>> deal.apply(Tap("f", "card", (("seat", 1), ("card", "3C"))))
    Traceback (most recent call last):
    ...
    scorekeeper.games.play.Refused: It is Ola's turn to lead trick 3, not Piotr's.
    """

    game: ClassVar[str] = "szaman"

    players: tuple[str, ...]
    settings: tuple[tuple[str, Any], ...]
    variant: str
    tricks: tuple[Trick, ...] = ()
    first: int | None = None  # who leads the first trick, when tapped
    plays: tuple[tuple[int, str], ...] = ()  # the full trick being entered
    joker_suit: str | None = None
    specials: tuple[str, ...] = ()  # the quick trick being entered
    off_suit: tuple[int, ...] = ()
    over: bool = False
    ended_early: bool = False
    held: tuple[tuple[str, ...], ...] = ()  # classic, once over: cards left per seat
    confirmed: tuple[bool, ...] = ()
    placed: frozenset[str] = frozenset()  # every card named anywhere above (one deck)
    quick_jokers: int = 0  # quick tricks won by a joker (a joker with no name)

    # ― start ―

    @classmethod
    def start(cls, players: object, settings: Mapping[str, Any] | None = None) -> SzamanDeal:
        """The deal before its first tap; players in seat order, settings per the catalog."""
        game = catalog.game(cls.game)
        try:
            names = v.players(players, "players", engine.MIN_PLAYERS, engine.MAX_PLAYERS)
            game.check_players(names)
            clean = game.clean_settings(dict(settings or {}))
        except RuleError as exc:
            raise Refused(exc.text, exc.path) from None
        n = len(names)
        return cls(
            players=tuple(names),
            settings=tuple(clean.items()),
            variant=clean["variant"],
            held=((),) * n,
            confirmed=(False,) * n,
        )

    # ― derived facts ―

    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def classic(self) -> bool:
        return self.variant == engine.CLASSIC

    @property
    def trick_no(self) -> int:
        return len(self.tricks) + 1

    @property
    def leader(self) -> int | None:
        """Who leads the trick being entered: the previous winner, else the tapped first
        leader, else (no card yet) unknown."""
        if self.tricks:
            return self.tricks[-1].winner
        if self.plays:
            return self.plays[0][0]
        return self.first

    @property
    def turn(self) -> int | None:
        """The seat to act: who plays the next card (or names the joker's suit)."""
        if self.over:
            return None
        if self.awaiting_suit:
            return self.plays[0][0]
        if self.leader is None or self.specials or self.off_suit:
            return None
        return (self.leader + len(self.plays)) % self.n

    @property
    def awaiting_suit(self) -> bool:
        return bool(self.plays) and self.plays[0][1] in JOKERS and self.joker_suit is None

    @property
    def quick_started(self) -> bool:
        return bool(self.specials or self.off_suit)

    def hand_sizes(self) -> list[int]:
        """Cards each player holds after the last trick (before its draw, S-D3): 8 dealt,
        one played a trick, plus the engine's draws."""
        return list(self._hand_sizes)

    @functools.cached_property
    def _hand_sizes(self) -> tuple[int, ...]:
        # once per state (a state never changes; ``replace`` makes one without it)
        tricks = [engine.Trick(self.players[t.winner], (), ()) for t in self.tricks]
        counts = [engine.DEAL_SIZE - len(tricks)] * self.n
        seat_of = {name: s for s, name in enumerate(self.players)}
        for drawers in engine.draws_after_tricks(self.players, tricks, self.variant):
            for name in drawers:
                counts[seat_of[name]] += 1
        return tuple(counts)

    def where(self) -> dict[str, str]:
        """Every card named in this deal → where it is, in words."""
        out: dict[str, str] = {}
        for number, trick in enumerate(self.tricks, start=1):
            out.update(dict.fromkeys(trick.cards(), gettext("trick %(number)s", number=number)))
        current = [c for _s, c in self.plays] + [
            s for s in self.specials if s != engine.WON_BY_JOKER
        ]
        if current:
            place = gettext("trick %(number)s, being entered", number=self.trick_no)
            out.update(dict.fromkeys(current, place))
        for seat, cards in enumerate(self.held):
            if cards:
                out.update(
                    dict.fromkeys(cards, gettext("held by %(name)s", name=self.players[seat]))
                )
        return out

    def jokers_used(self) -> int:
        """Jokers named anywhere plus quick tricks won by a joker (the deck has two)."""
        named = sum(1 for joker in JOKERS if joker in self.placed)
        return named + self.quick_jokers + (engine.WON_BY_JOKER in self.specials)

    def expected(self) -> list[int]:
        return [max(count, 0) for count in self.hand_sizes()]

    def seat_final(self, seat: int, expected: list[int] | None = None) -> bool:
        expected = self.expected() if expected is None else expected
        return self.confirmed[seat] or len(self.held[seat]) == expected[seat]

    @property
    def complete(self) -> bool:
        if not self.over:
            return False
        if self.classic:
            expected = self.expected()
            if not all(self.seat_final(s, expected) for s in range(self.n)):
                return False
        return self.problem() is None

    @property
    def scored(self) -> tuple[dict | None, str | None]:
        """The engine's answer to the deal as entered, or its refusal (it should have
        none: every tap is checked on the way in)."""
        return self._read[:2]

    @per_language
    def _read(self) -> tuple[dict | None, str | None, list, list]:
        """``scored``, with the tricks the engine read and who drew after each (the
        warnings before the held cards are in look at them again)."""
        if not self.tricks:
            return None, None, [], []
        try:
            answer, tricks, draws = engine.score_deal_read(self.request())
        except RuleError as exc:
            return None, exc.message, [], []
        return answer, None, tricks, draws

    def problem(self) -> str | None:
        return self.scored[1]

    # ― taps ―

    def apply(self, tap: Tap) -> SzamanDeal:
        check_arguments(tap, self.game, ARGS, REQUIRED)
        return getattr(self, "_" + tap.action)(tap)

    def _seat(self, tap: Tap) -> int:
        seat = tap.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.n:
            raise Refused(
                "seat is a player's seat number, 0 to %(last)s.", ".seat", last=self.n - 1
            )
        return seat

    def _name(self, seat: int | None) -> str | None:
        return None if seat is None else self.players[seat]

    def _playing(self) -> None:
        if self.over:
            raise Refused("The deal is over; undo the last tap to change a trick.", ".action")

    def _fresh(self, card: str, path: str = ".card") -> None:
        """Refuse a card already placed in this deal (one deck), or a third joker."""
        if card in self.placed:
            # Translators: %(where)s is "trick 3", "held by Ana"…
            raise Refused(
                "%(card)s is already in this deal (%(where)s).",
                path,
                card=card,
                where=self.where()[card],
            )
        if card in JOKERS and self.jokers_used() >= len(JOKERS):
            raise Refused("Both jokers are already in this deal.", path)

    def _lead(self, tap: Tap) -> SzamanDeal:
        self._playing()
        seat = self._seat(tap)
        if self.tricks:
            who = self.players[self.tricks[-1].winner]
            raise Refused("%(who)s leads: they won the last trick.", ".seat", who=who)
        if self.plays or self.quick_started:
            raise Refused("Trick 1 has started; undo its taps to change who led.", ".seat")
        return replace(self, first=seat)

    def _card(self, tap: Tap) -> SzamanDeal:
        seat = self._seat(tap)
        card = _card(tap["card"])
        if card in self.placed and (
            (seat, card) in self.plays or any((seat, card) in t.plays for t in self.tricks)
        ):
            return self  # already so: a repeated tap changes nothing
        self._playing()
        if self.quick_started:
            raise Refused(
                "Trick %(trick)s is being noted quickly; tap its winner or undo its marks first.",
                ".action",
                trick=self.trick_no,
            )
        if self.awaiting_suit:
            who = self.players[self.plays[0][0]]
            raise Refused("First tap the suit %(who)s named for the joker.", ".action", who=who)
        turn = self.turn
        if turn is not None and seat != turn:
            if self.plays:
                raise Refused(
                    "It is %(turn)s's turn to play in trick %(trick)s, not %(seat)s's.",
                    ".seat",
                    turn=self.players[turn],
                    trick=self.trick_no,
                    seat=self.players[seat],
                )
            raise Refused(
                "It is %(turn)s's turn to lead trick %(trick)s, not %(seat)s's.",
                ".seat",
                turn=self.players[turn],
                trick=self.trick_no,
                seat=self.players[seat],
            )
        self._fresh(card)
        plays = (*self.plays, (seat, card))
        placed = self.placed | {card}
        if len(plays) < self.n:
            return replace(self, plays=plays, placed=placed)
        cards = [Card.parse(c) for _s, c in plays]
        led = engine.led_suit_of(cards[0], self.joker_suit)
        best, _off = engine.take_trick(cards, led)
        trick = Trick(plays[best][0], plays, self.joker_suit)
        return replace(
            self, tricks=(*self.tricks, trick), plays=(), joker_suit=None, placed=placed
        )._after()

    def _change(self, tap: Tap) -> SzamanDeal:
        """A card of a trick entered card by card, changed afterwards: the trick's winner
        must stay (who led the next trick, who drew and the tricks after it stand on
        it), and a led joker's card stays (its named suit does, S-D2)."""
        number = tap.get("trick")
        if not self.tricks:
            raise Refused("No trick has been entered yet: there is no card to change.", ".trick")
        if isinstance(number, bool) or not isinstance(number, int):
            number = 0
        if not 1 <= number <= len(self.tricks):
            raise Refused(
                "trick is the number of a trick entered, 1 to %(last)s.",
                ".trick",
                last=len(self.tricks),
            )
        trick, seat = self.tricks[number - 1], self._seat(tap)
        if not trick.full:
            raise Refused(
                "Trick %(trick)s was noted quickly: it has no cards to change.",
                ".trick",
                trick=number,
            )
        card = _card(tap["card"])
        at = next(i for i, (s, _c) in enumerate(trick.plays) if s == seat)
        old = trick.plays[at][1]
        if card == old:
            return self  # already so: a repeated tap changes nothing
        if at == 0 and (old in JOKERS or card in JOKERS):
            raise Refused(
                "A joker leading trick %(trick)s names the suit: undo back to that trick to "
                "change its first card.",
                ".card",
                trick=number,
            )
        self._fresh(card)
        plays = self._with(trick.plays, at, (seat, card))
        cards = [Card.parse(c) for _s, c in plays]
        best, _off = engine.take_trick(cards, engine.led_suit_of(cards[0], trick.joker_suit))
        if plays[best][0] != trick.winner:
            raise Refused(
                "With %(card)s, %(new)s would win trick %(trick)s, not %(old)s, and every "
                "trick after it would change: undo back to trick %(trick)s instead.",
                ".card",
                card=card,
                new=self.players[plays[best][0]],
                old=self.players[trick.winner],
                trick=number,
            )
        tricks = self._with(self.tricks, number - 1, replace(trick, plays=plays))
        return replace(self, tricks=tricks, placed=(self.placed - {old}) | {card})

    def _suit(self, tap: Tap) -> SzamanDeal:
        self._playing()
        seat = self._seat(tap)
        suit = tap["suit"]
        if suit not in SUITS:
            raise Refused("suit is one of S, H, D, C.", ".suit")
        if not self.plays or self.plays[0][1] not in JOKERS:
            raise Refused("A suit is named only when a joker leads the trick.", ".suit")
        if seat != self.plays[0][0]:
            who = self.players[self.plays[0][0]]
            raise Refused("%(who)s led the joker, so %(who)s names the suit.", ".seat", who=who)
        if len(self.plays) > 1 and suit != self.joker_suit:
            raise Refused("Cards were played to the named suit; undo them first.", ".suit")
        try:
            engine.verify_joker_suit(Card.parse(self.plays[0][1]), suit, ".suit")
        except RuleError as exc:
            raise Refused(exc.text, ".suit") from None
        return replace(self, joker_suit=suit)

    def _quick(self) -> None:
        self._playing()
        if self.plays:
            raise Refused(
                "Trick %(trick)s is being entered card by card; finish it or undo its cards first.",
                ".action",
                trick=self.trick_no,
            )

    def _special(self, tap: Tap) -> SzamanDeal:
        self._quick()
        raw = tap["card"]
        allowed = self.special_names()
        name = raw.strip().lower() if isinstance(raw, str) else raw
        if name != engine.WON_BY_JOKER:
            name = _card(raw)
        if name not in allowed:
            raise Refused(
                "%(card)s is not a special card in this variant; they are %(allowed)s.",
                ".card",
                card=raw,
                allowed=", ".join(allowed),
            )
        on = _flag(tap)
        if on == (name in self.specials):
            return self
        if on:
            if name == engine.WON_BY_JOKER:
                if self.jokers_used() >= len(JOKERS):
                    raise Refused("Both jokers are already in this deal.", ".card")
            else:
                self._fresh(name)
            chosen = {*self.specials, name}
        else:
            chosen = set(self.specials) - {name}
        placed = self.placed
        if name != engine.WON_BY_JOKER:
            placed = placed | {name} if on else placed - {name}
        return replace(self, specials=tuple(s for s in allowed if s in chosen), placed=placed)

    def special_names(self) -> list[str]:
        """What a quick trick can list: 8H, JH (QS, Russian) and "joker"."""
        return [*engine.SPECIAL_CARDS[self.variant].values(), engine.WON_BY_JOKER]

    def _off(self, tap: Tap) -> SzamanDeal:
        self._quick()
        seat, on = self._seat(tap), _flag(tap)
        chosen = {*self.off_suit, seat} if on else set(self.off_suit) - {seat}
        # the winner followed suit (RULES §2: an off-suit card wins nothing)
        if len(chosen) == self.n:
            raise Refused(
                "Someone won this trick, so not everyone can have played off-suit.", ".seat"
            )
        return replace(self, off_suit=tuple(s for s in range(self.n) if s in chosen))

    def _winner(self, tap: Tap) -> SzamanDeal:
        self._quick()
        seat = self._seat(tap)
        if seat in self.off_suit:
            who = self.players[seat]
            raise Refused(
                "%(who)s played off-suit, so %(who)s cannot have won (an off-suit card wins nothing).",
                ".seat",
                who=who,
            )
        trick = Trick(seat, specials=self.specials, off_suit=self.off_suit)
        jokers = self.quick_jokers + (engine.WON_BY_JOKER in self.specials)
        return replace(
            self, tricks=(*self.tricks, trick), specials=(), off_suit=(), quick_jokers=jokers
        )._after()

    def _after(self) -> SzamanDeal:
        """After a trick: the deal ends when a hand runs out (classic, S-D3) or every
        hand is empty (Russian)."""
        empty = [count <= 0 for count in self.hand_sizes()]
        if any(empty) if self.classic else all(empty):
            return replace(self, over=True)
        return self

    def _end(self, tap: Tap) -> SzamanDeal:
        self._playing()
        if not self.tricks:
            raise Refused("Enter at least one trick first.", ".action")
        if self.plays or self.quick_started:
            raise Refused("Finish or undo trick %(trick)s first.", ".action", trick=self.trick_no)
        return replace(self, over=True, ended_early=True)

    def _closing(self) -> None:
        if not self.classic:
            raise Refused(
                "A Russian deal ends with every hand empty: there are no held cards.", ".action"
            )
        if not self.over:
            raise Refused("The held cards are entered once the deal is over.", ".action")

    def _held(self, tap: Tap) -> SzamanDeal:
        self._closing()
        seat, card, on = self._seat(tap), _card(tap["card"]), _flag(tap)
        cards = self.held[seat]
        if on == (card in cards):
            return self
        if not on:
            held = tuple(c for c in cards if c != card)
            placed = self.placed - {card}
        else:
            self._fresh(card)
            held = (*cards, card)
            if all(held if s == seat else self.held[s] for s in range(self.n)):
                raise Refused(
                    "A classic deal ends when a player has no cards left (S-D3), so "
                    "at least one player must hold none.",
                    ".card",
                )
            if self.cards_counted() + 1 > engine.DECK_SIZE:
                raise Refused(
                    "The tricks and the held cards would come to more than the %(deck)s cards of "
                    "the deck.",
                    ".card",
                    deck=engine.DECK_SIZE,
                )
            placed = self.placed | {card}
        return replace(self, held=self._with(self.held, seat, held), placed=placed)

    def cards_counted(self) -> int:
        """Cards of the tricks (every player's, quick tricks too) and the held cards."""
        return len(self.tricks) * self.n + sum(len(cards) for cards in self.held)

    def _done(self, tap: Tap) -> SzamanDeal:
        self._closing()
        seat = self._seat(tap)
        on = _flag(tap) if "on" in dict(tap.args) else True
        return replace(self, confirmed=self._with(self.confirmed, seat, on))

    @staticmethod
    def _with(values: tuple, seat: int, value: Any) -> tuple:
        return (*values[:seat], value, *values[seat + 1 :])

    # ― the engine's request ―

    def _engine_trick(self, trick: Trick) -> dict:
        if trick.full:
            out: dict = {"plays": [[self.players[s], c] for s, c in trick.plays]}
            if trick.joker_suit:
                out["joker_suit"] = trick.joker_suit
            return out
        out = {"winner": self.players[trick.winner]}
        if trick.specials:
            out["specials"] = list(trick.specials)
        if trick.off_suit:
            out["off_suit"] = [self.players[s] for s in trick.off_suit]
        return out

    def request(self) -> dict:
        """The ``szaman-deal`` request of the tricks so far; a classic deal lists the
        held cards (none before the deal is over)."""
        req: dict = {
            "players": list(self.players),
            "variant": self.variant,
            "tricks": [self._engine_trick(t) for t in self.tricks],
        }
        if self.classic:
            req["left"] = {name: list(self.held[s]) for s, name in enumerate(self.players)}
        return req

    def closing(self) -> dict | None:
        return {"kind": engine.KIND, "request": self.request()} if self.complete else None

    # ― what a screen shows ―

    @property
    def phase(self) -> str:
        if self.over:
            if self.complete:
                return "complete"
            return "held" if self.classic else "problem"
        if self.awaiting_suit:
            return "suit"
        if self.quick_started:
            return "quick"
        if self.plays:
            return "card"
        return "trick" if self.leader is not None or self.tricks else "first-lead"

    def next_text(self) -> str:
        phase, no = self.phase, self.trick_no
        turn = self._name(self.turn)
        if phase == "first-lead":
            return gettext("Trick 1: who leads? Or tap who won it.")
        if phase == "trick":
            return gettext(
                "Trick %(number)s: %(leader)s leads.", number=no, leader=self._name(self.leader)
            )
        if phase == "card":
            return gettext("Trick %(number)s: %(name)s plays.", number=no, name=turn)
        if phase == "suit":
            return gettext(
                "Trick %(number)s: which suit does %(name)s name for the joker?",
                number=no,
                name=turn,
            )
        if phase == "quick":
            return gettext("Trick %(number)s: who won it?", number=no)
        if phase == "held":
            waiting = [self.players[s] for s in range(self.n) if not self.seat_final(s)]
            if waiting:
                return gettext(
                    "The deal is over: enter the cards %(names)s still hold.",
                    names=", ".join(waiting),
                )
            return gettext("The deal cannot be saved: %(problem)s", problem=self.problem())
        if phase == "problem":
            return gettext("The deal cannot be saved: %(problem)s", problem=self.problem())
        return gettext("The deal is complete: save it.")

    def legal(self) -> list[dict]:
        """The taps that may come next, with their argument choices."""
        seats = list(range(self.n))
        out: list[dict] = []
        if self.over:
            if not self.classic:
                return out
            expected = self.expected()
            free = self._free_cards()
            others_empty = [not self.held[s] for s in seats]
            room = self.cards_counted() < engine.DECK_SIZE
            for s in seats:
                # S-D3: the last player holding nothing can't be given a card
                nobody_else = not any(others_empty[t] for t in seats if t != s)
                if free and room and not nobody_else:
                    out.append({"action": "held", "seat": s, "card": free, "on": True})
                if self.held[s]:
                    out.append(
                        {"action": "held", "seat": s, "card": list(self.held[s]), "on": False}
                    )
                if not self.confirmed[s] and len(self.held[s]) != expected[s]:
                    out.append({"action": "done", "seat": s})
            return out
        if self.awaiting_suit:
            colour = Card.parse(self.plays[0][1]).colour
            suits = [s for s in SUITS if engine.SUIT_COLOUR[s] == colour]
            return [{"action": "suit", "seat": self.plays[0][0], "suit": suits}]
        free = self._free_cards()
        if not self.quick_started and free:
            turn = self.turn
            out.append({"action": "card", "seat": seats if turn is None else turn, "card": free})
        if not self.plays:
            if not self.tricks and not self.quick_started:
                out.append({"action": "lead", "seat": seats})
            marks = [
                name
                for name in self.special_names()
                if name not in self.specials and self._can_mark(name)
            ]
            if marks:
                out.append({"action": "special", "card": marks, "on": True})
            if self.specials:
                out.append({"action": "special", "card": list(self.specials), "on": False})
            unmarked = [s for s in seats if s not in self.off_suit]
            if len(unmarked) > 1:
                out.append({"action": "off", "seat": unmarked, "on": True})
            if self.off_suit:
                out.append({"action": "off", "seat": list(self.off_suit), "on": False})
            out.append({"action": "winner", "seat": unmarked})
            if self.tricks and not self.quick_started:
                out.append({"action": "end"})
        return out

    def _can_mark(self, name: str) -> bool:
        if name == engine.WON_BY_JOKER:
            return self.jokers_used() < len(JOKERS)
        return name not in self.placed

    def _free_cards(self) -> list[str]:
        taken = self.placed
        jokers_full = self.jokers_used() >= len(JOKERS)
        return [c for c in DECK if c not in taken and not (jokers_full and c in JOKERS)]

    def _trick_json(self, number: int, trick: Trick, points: dict | None) -> dict:
        out: dict = {"number": number, "winner": trick.winner, "full": trick.full}
        if trick.full:
            out["plays"] = [[s, c] for s, c in trick.plays]
            if trick.joker_suit:
                out["joker_suit"] = trick.joker_suit
        else:
            out["specials"] = list(trick.specials)
            out["off_suit"] = list(trick.off_suit)
        out["points"] = points or {}
        return out

    def warnings(self, score: dict | None) -> list[str]:
        """The engine's warnings: all of them once complete; before that only likely
        revokes (the hand-size ones wait for the held cards)."""
        if score is None:
            return []
        if self.complete:
            return list(score["warnings"])
        _score, _problem, tricks, draws = self._read
        empty = {name: () for name in self.players}
        return engine.revoke_warnings(self.players, tricks, empty, draws)

    def to_json(self) -> dict:
        """What a screen shows: made once per state and language (the web layer asks
        for it on every answer and poll), kept pickled, so every caller gets a dict of
        its own whose changes never reach the next."""
        kept = self.__dict__.setdefault("_json_pickled", {})  # language → pickle
        language = speaking()
        if language in kept:
            return pickle.loads(kept[language])
        made = self._made_json()
        kept[language] = pickle.dumps(made, pickle.HIGHEST_PROTOCOL)
        return made

    def _made_json(self) -> dict:
        score, problem = self.scored
        if score is not None:  # the caller's own copy: ``scored`` stays as the engine said
            score = pickle.loads(pickle.dumps(score, pickle.HIGHEST_PROTOCOL))
        scored = score["tricks"] if score else [None] * len(self.tricks)
        expected = self.expected()
        out: dict = {
            "game": self.game,
            "players": list(self.players),
            "settings": dict(self.settings),
            "variant": self.variant,
            "phase": self.phase,
            "next": {"step": self.phase, "text": self.next_text()},
            "turn": self.turn,
            "legal": self.legal(),
            "trick_no": self.trick_no,
            "leader": self.leader,
            "tricks": [
                self._trick_json(i, t, scored[i - 1]["points"] if scored[i - 1] else None)
                for i, t in enumerate(self.tricks, start=1)
            ],
            "current": {
                "number": self.trick_no,
                "leader": self.leader,
                "plays": [[s, c] for s, c in self.plays],
                "joker_suit": self.joker_suit,
                "led": self._led_suit(),
                "specials": list(self.specials),
                "off_suit": list(self.off_suit),
            },
            "special_points": {name: engine.SPECIAL_POINTS[name] for name in self.special_names()},
            "hand_sizes": expected,
            "used": self.where(),
            "jokers_used": self.jokers_used(),
            "over": self.over,
            "ended_early": self.ended_early,
            "held": [
                {
                    "cards": list(self.held[s]),
                    "expected": expected[s],
                    "final": self.seat_final(s, expected),
                    "penalty": engine.penalty_for(self.held[s]),
                }
                for s in range(self.n)
            ]
            if self.over and self.classic
            else None,
            "score": score,
            "warnings": self.warnings(score),
            "problem": problem,
            "complete": self.complete,
            "closing": self.closing(),
        }
        return out

    def _led_suit(self) -> str | None:
        if not self.plays or self.awaiting_suit:
            return None
        return engine.led_suit_of(Card.parse(self.plays[0][1]), self.joker_suit)
