"""A Vežimas deal as a log of taps (RULES.md §4), closed by a ``vezimas-deal`` request.

The trumps are the session's: the first deal's Q♣ holder takes clubs and the next
players clockwise ♠, ♥, ♦ (V-D1). In the first deal they are tapped (``queen``, and
with 2–3 players ``nine``: the 9♦ holder leads); a later deal gets them in
``settings.queen_of_clubs`` with its dealer in ``settings.dealer`` (the previous
loser deals and the player on his left leads, V-D2); a first deal whose trumps the
session saved already gets them there, with ``settings.nine_of_diamonds``.
``settings.totals`` (each player's carts or letters so far) tells which letter of
VEŽIMAS the loser takes with the ``letters`` tally (V-D6), and a session already over
takes no deal.

The pile may be followed card by card: ``lay`` puts a card on it — a beat when the
player answers the top card (checked by the engine's ``vezimas-beat``), any card when
he leads a new pile or lays for the next player after beating — and ``take`` picks the
whole pile up. Every card is dealt (6, 8 or 12 each), so the state knows each hand's
size: a player whose hand runs out leaves the deal and his suit becomes free (V-D3); if
his last card was a beat the next player lays any card, nothing to beat (V-D5); the
last player holding cards gets the cart. Cards a player took are known to be in his
hand until he lays them. ``loser`` says who got the cart without following the pile
(or ends the deal there).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, ClassVar

from ... import api
from ... import validate as v
from ...errors import RuleError
from ...messages import gettext
from .. import catalog
from .. import vezimas as engine
from . import Checks, Refused, Tap, check_arguments, per_language

# the 24 cards, a row per suit in the order trumps are handed out (♣ ♠ ♥ ♦), 9 … A
DECK = tuple(
    str(card)
    for card in sorted(engine.DECK, key=lambda c: (engine.TRUMP_ORDER.index(c.suit), c.rank))
)
# what a deal knows from the session: its trumps once saved (and the 9♦ holder who
# leads the first deal of 2–3 players), a later deal's dealer
CONTEXT = ("queen_of_clubs", "nine_of_diamonds", "dealer")
TOTALS_LIMIT = 100_000
ARGS = {
    "queen": ("seat",),
    "nine": ("seat",),
    "lay": ("seat", "card"),
    "take": ("seat",),
    "loser": ("seat",),
}
BEAT, LAY = "beat", "lay"  # the step of the player whose turn it is


def nine_of_diamonds_leads(players: int) -> bool:
    """RULES §4: with 4 players the Q♣ holder leads the first deal, with 2–3 the 9♦
    holder (so only then is he asked for)."""
    return players < engine.MAX_PLAYERS


def verify_session_goes_on(names: list[str], totals: dict, settings: dict) -> None:
    """No deal once the session is over (V-D6: a player has every letter), as the
    engine's game-result says."""
    result = api.evaluate(
        "game-result",
        {
            "game": "vezimas",
            "players": names,
            "totals": totals,
            "deals": sum(totals.values()),
            "settings": settings,
        },
    )
    if result["finished"]:
        raise Refused(
            "The session is over: %(reason)s.", "settings.totals", reason=result["reason"]
        )


@dataclass(frozen=True)
class PileCard:
    seat: int
    card: str
    beat: bool  # laid as a beat of the card under it


@dataclass(frozen=True)
class VezimasDeal(Checks):
    """One Vežimas deal being played (see the module's docstring for the taps).

    >>> from . import replay
    >>> deal = replay(VezimasDeal.start(["Ana", "Bojan"], {}), [
    ...     {"id": "a", "action": "queen", "seat": 0},
    ...     {"id": "b", "action": "nine", "seat": 1},
    ...     {"id": "c", "action": "lay", "seat": 1, "card": "10H"},
    ... ])
    >>> deal.trumps, deal.turn, deal.to_json()["next"]["text"]
    ({'Ana': 'C', 'Bojan': 'S'}, 0, 'Ana beats 10H or takes the pile.')
    >>> deal.apply(Tap("d", "lay", (("seat", 0), ("card", "9H"))))
    Traceback (most recent call last):
    ...
    scorekeeper.games.play.Refused: 9H does not beat 10H. A higher H or any of your trumps (C) beats 10H.
    >>> deal.apply(Tap("d", "take", (("seat", 0),))).to_json()["hands"][0]
    {'count': 13, 'known': ['10H'], 'out': False}
    """

    game: ClassVar[str] = "vezimas"

    players: tuple[str, ...]
    settings: tuple[tuple[str, Any], ...]
    queen: int | None = None  # who held Q♣ in the session's first deal (V-D1)
    queen_given: bool = False  # from settings: the trumps are the session's
    dealer: int | None = None  # a later deal's dealer (V-D2)
    nine: int | None = None  # the 9♦ holder, who leads a first deal of 2–3 players
    nine_given: bool = False  # from settings, with the session's trumps
    counts: tuple[int, ...] = ()  # cards in each hand
    known: tuple[tuple[str, ...], ...] = ()  # cards known to be in each hand (taken)
    pile: tuple[PileCard, ...] = ()
    mover: int | None = None  # whose turn it is (None: whoever lays first leads)
    step: str = LAY
    laid: int = 0  # cards laid in this deal
    beats: int = 0  # beats made in this deal
    loser: int | None = None  # who got the cart
    totals: tuple[int, ...] = ()  # carts or letters before this deal (V-D4, V-D6)

    # ― start ―

    @classmethod
    def start(cls, players: object, settings: Mapping[str, Any] | None = None) -> VezimasDeal:
        """The deal before its first tap. ``settings``: the catalog's house rules, plus
        the session's ``queen_of_clubs`` and this deal's ``dealer`` (a later deal)."""
        game = catalog.game(cls.game)
        raw = dict(settings or {})
        context = {key: raw.pop(key) for key in CONTEXT if key in raw}
        raw_totals = raw.pop("totals", {})
        try:
            names = v.players(players, "players", engine.MIN_PLAYERS, engine.MAX_PLAYERS)
            game.check_players(names)
            clean = game.clean_settings(raw)
            seats = {
                key: names.index(v.player(value, f"settings.{key}", names))
                for key, value in context.items()
            }
            known = v.player_keys(raw_totals, "settings.totals", names)
            totals = {
                name: v.integer(known.get(name, 0), f"settings.totals.{name}", 0, TOTALS_LIMIT)
                for name in names
            }
        except RuleError as exc:
            raise Refused(exc.text, exc.path) from None
        if "nine_of_diamonds" in seats and not nine_of_diamonds_leads(len(names)):
            raise Refused(
                "With 4 players the Q♣ holder leads; no 9♦ holder is named.",
                "settings.nine_of_diamonds",
            )
        if raw_totals:
            context["totals"] = totals
            verify_session_goes_on(names, totals, clean)
        n = len(names)
        deal = cls(
            players=tuple(names),
            settings=tuple({**clean, **context}.items()),
            queen=seats.get("queen_of_clubs"),
            queen_given="queen_of_clubs" in seats,
            nine=seats.get("nine_of_diamonds"),
            nine_given="nine_of_diamonds" in seats,
            dealer=seats.get("dealer"),
            counts=(engine.deal_size(n),) * n,
            known=((),) * n,
            totals=tuple(totals[name] for name in names),
        )
        return replace(deal, mover=deal.leader)

    # ― derived facts ―

    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def first_deal(self) -> bool:
        return self.dealer is None

    @cached_property
    def trumps(self) -> dict[str, str] | None:
        if self.queen is None:
            return None
        return engine.assign_trumps(list(self.players), self.players[self.queen])

    @property
    def leader(self) -> int | None:
        """Who leads the deal: the dealer's left (V-D2), else in a first deal the Q♣
        holder (4 players) or the 9♦ holder (2–3)."""
        if self.dealer is not None:
            lead = engine.first_lead_after(list(self.players), self.players[self.dealer])
            return self.players.index(lead)
        if nine_of_diamonds_leads(self.n):
            return self.nine
        return self.queen

    @property
    def out(self) -> tuple[int, ...]:
        return tuple(s for s in range(self.n) if self.counts[s] == 0)

    @property
    def played_out(self) -> int | None:
        """The last player holding cards once everyone else is out: he gets the cart."""
        holding = [s for s in range(self.n) if self.counts[s] > 0]
        return holding[0] if len(holding) == 1 else None

    @property
    def over(self) -> bool:
        return self.loser is not None or self.played_out is not None

    @property
    def cart(self) -> int | None:
        return self.loser if self.loser is not None else self.played_out

    @property
    def complete(self) -> bool:
        return self.cart is not None

    @property
    def turn(self) -> int | None:
        return None if self.over else self.mover

    @property
    def top(self) -> str | None:
        """The card to beat: the top of the pile when the player to move must beat it."""
        if self.step == BEAT and self.pile:
            return self.pile[-1].card
        return None

    def _names(self, seats) -> list[str]:
        return [self.players[s] for s in seats]

    def _next(self, seat: int, counts: tuple[int, ...]) -> int | None:
        """The next player clockwise still holding cards (V-D3)."""
        gone = [self.players[s] for s in range(self.n) if counts[s] == 0 and s != seat]
        name = engine.next_clockwise(list(self.players), self.players[seat], gone)
        return None if name is None else self.players.index(name)

    def beat_request(self, **question: Any) -> dict:
        """A ``vezimas-beat`` request for the player to move answering the top card."""
        return {
            "players": list(self.players),
            "trumps": self.trumps,
            "out": self._names(self.out),
            "player": self.players[self.mover],
            "top": self.top,
            **question,
        }

    def candidates(self, seat: int) -> list[str]:
        """Cards ``seat`` may hold: not on the pile, not known in another hand; only his
        known cards once all of his hand is known."""
        if len(self.known[seat]) == self.counts[seat]:
            return [c for c in DECK if c in self.known[seat]]
        on_pile = {p.card for p in self.pile}
        elsewhere = {c for s, cards in enumerate(self.known) if s != seat for c in cards}
        return [c for c in DECK if c not in on_pile and c not in elsewhere]

    # ― taps ―

    def apply(self, tap: Tap) -> VezimasDeal:
        check_arguments(tap, self.game, ARGS)
        return getattr(self, "_" + tap.action)(tap)

    def _seat(self, tap: Tap) -> int:
        seat = tap.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.n:
            raise Refused(
                "seat is a player's seat number, 0 to %(last)s.", ".seat", last=self.n - 1
            )
        return seat

    def _playing(self) -> None:
        if self.over:
            who = self.players[self.cart]
            raise Refused("The deal is over: %(who)s got the cart.", ".action", who=who)

    def _queen(self, tap: Tap) -> VezimasDeal:
        seat = self._seat(tap)
        if seat == self.queen:  # already so (a deal's log tapped what the session holds)
            return self
        if self.queen_given:
            raise Refused("The trumps are already set for this session.", ".action")
        # who held Q♣ in the first deal (RULES §4, V-D1) is a fact of the deal, not a
        # move in it: tapped after the cart as well (PLAY.md), until a beat was judged
        # by the trumps it gives
        if self.beats:
            raise Refused("A beat was judged by these trumps; undo it first.", ".action")
        if self.laid and self._queen_leads:
            raise Refused("Cards are on the pile; undo them to change who led.", ".action")
        deal = replace(self, queen=seat)
        return replace(deal, mover=deal.leader) if not self.laid else deal

    @property
    def _queen_leads(self) -> bool:
        return self.first_deal and not nine_of_diamonds_leads(self.n)

    @property
    def _queen_open(self) -> bool:
        """May the Q♣ holder be tapped (again)? Not once a beat was judged by the
        trumps, nor once a card was laid if he is the one who leads."""
        if self.queen_given or self.beats:
            return False
        return not (self.laid and self._queen_leads)

    def _nine(self, tap: Tap) -> VezimasDeal:
        seat = self._seat(tap)
        if not self.first_deal:
            raise Refused(
                "The 9♦ holder leads the first deal only; the dealer's left leads this one.",
                ".action",
            )
        if not nine_of_diamonds_leads(self.n):
            raise Refused("With 4 players the Q♣ holder leads, not the 9♦ holder.", ".action")
        if seat == self.nine:
            return self
        if self.nine_given:
            raise Refused("The 9♦ holder is already set for this session.", ".action")
        if self.laid:  # as the Q♣ holder, after the cart too: who led a deal laid nothing
            raise Refused("Cards are on the pile; undo them to change who led.", ".action")
        return replace(self, nine=seat, mover=seat)

    def _mover_is(self, seat: int, doing: str) -> None:
        if self.mover is not None and seat != self.mover:
            raise Refused(
                "It is %(turn)s's turn, not %(seat)s's.",
                ".seat",
                turn=self.players[self.mover],
                seat=self.players[seat],
            )
        if self.mover is None and doing == "take":
            raise Refused("There is no pile to take yet.", ".action")

    def _lay(self, tap: Tap) -> VezimasDeal:
        seat = self._seat(tap)
        try:
            card = str(engine.read_card(tap["card"], ".card"))
        except RuleError as exc:
            raise Refused(exc.text, ".card") from None
        if any(p.card == card and p.seat == seat for p in self.pile):
            return self  # already so: a repeated tap changes nothing
        self._playing()
        self._mover_is(seat, "lay")
        if any(p.card == card for p in self.pile):
            raise Refused("%(card)s is already on the pile.", ".card", card=card)
        for other, cards in enumerate(self.known):
            if other != seat and card in cards:
                who = self.players[other]
                raise Refused(
                    "%(card)s is in %(who)s's hand: %(who)s took it with a pile.",
                    ".card",
                    card=card,
                    who=who,
                )
        if len(self.known[seat]) == self.counts[seat] and card not in self.known[seat]:
            cards = ", ".join(self.known[seat])
            raise Refused(
                "%(seat)s holds only %(cards)s (taken with a pile).",
                ".card",
                seat=self.players[seat],
                cards=cards,
            )
        beat = self.step == BEAT
        if beat:
            if self.trumps is None:
                raise Refused("Tap who holds Q♣ first: the trumps decide what beats.", ".action")
            answer = engine.beat_kind(self.beat_request(card=card))
            if not answer["legal"]:
                raise Refused(answer["reason"], ".card")
        counts = self._with(self.counts, seat, self.counts[seat] - 1)
        known = self._with(self.known, seat, tuple(c for c in self.known[seat] if c != card))
        if counts[seat] and beat:  # he beat it: now he lays a card for the next player
            mover, step = seat, LAY
        else:
            # the next player beats this card; after a going-out beat there is nothing
            # to beat (V-D5) and he lays any card
            mover, step = self._next(seat, counts), LAY if beat else BEAT
        return replace(
            self,
            counts=counts,
            known=known,
            pile=(*self.pile, PileCard(seat, card, beat)),
            laid=self.laid + 1,
            beats=self.beats + beat,
            mover=mover,
            step=step,
        )

    def _take(self, tap: Tap) -> VezimasDeal:
        self._playing()
        seat = self._seat(tap)
        self._mover_is(seat, "take")
        if self.step != BEAT:
            raise Refused(
                "%(seat)s has nothing to beat, so no pile to take.",
                ".action",
                seat=self.players[seat],
            )
        taken = tuple(p.card for p in self.pile)
        counts = self._with(self.counts, seat, self.counts[seat] + len(taken))
        known = self._with(self.known, seat, (*self.known[seat], *taken))
        # the next player starts a new pile with any card
        return replace(
            self, counts=counts, known=known, pile=(), mover=self._next(seat, counts), step=LAY
        )

    def _loser(self, tap: Tap) -> VezimasDeal:
        seat = self._seat(tap)
        if seat == self.cart:
            return self
        if self.played_out is not None:
            who = self.players[self.played_out]
            raise Refused(
                "%(who)s is the last one holding cards, so %(who)s gets the cart.", ".seat", who=who
            )
        if self.counts[seat] == 0:
            who = self.players[seat]
            raise Refused(
                "%(who)s is out of cards; the cart goes to a player still holding some.",
                ".seat",
                who=who,
            )
        return replace(self, loser=seat)

    @staticmethod
    def _with(values: tuple, seat: int, value: Any) -> tuple:
        return (*values[:seat], value, *values[seat + 1 :])

    # ― the engine's requests ―

    def request(self) -> dict | None:
        if self.cart is None:
            return None
        return {"players": list(self.players), "loser": self.players[self.cart]}

    def closing(self) -> dict | None:
        req = self.request()
        return None if req is None else {"kind": "vezimas-deal", "request": req}

    def setup(self) -> dict | None:
        """A first deal's ``vezimas-trumps`` request, once its taps name everything."""
        if self.queen_given or self.queen is None or not self.first_deal:
            return None
        req: dict = {"players": list(self.players), "queen_of_clubs": self.players[self.queen]}
        if nine_of_diamonds_leads(self.n):
            if self.nine is None:
                return None
            req["nine_of_diamonds"] = self.players[self.nine]
        return {"kind": "vezimas-trumps", "request": req}

    # ― what a screen shows ―

    @property
    def phase(self) -> str:
        if self.complete:
            return "complete"
        if not self.laid and self.queen is None:
            return "trumps"
        if not self.laid and self.mover is None:
            return "nine"
        return self.step

    def next_text(self) -> str:
        phase = self.phase
        who = None if self.mover is None else self.players[self.mover]
        if phase == "complete":
            return gettext("%(name)s gets the cart: save the deal.", name=self.players[self.cart])
        if phase == "trumps":
            return gettext("Tap who holds Q♣: clubs are his trump, then ♠, ♥, ♦ clockwise (V-D1).")
        if phase == "nine":
            return gettext("Tap who holds 9♦: he leads the first deal.")
        if phase == BEAT:
            # Translators: %(card)s is the card on top of the pile (Q♥)
            return gettext("%(name)s beats %(card)s or takes the pile.", name=who, card=self.top)
        if who is None:
            return gettext("Tap the first card laid: its player leads.")
        if self.pile and self.pile[-1].seat == self.mover:
            return gettext(
                "%(name)s beat it: now %(name)s lays a card for the next player.", name=who
            )
        if self.pile:
            return gettext("Nothing to beat (V-D5): %(name)s lays any card.", name=who)
        return gettext("%(name)s starts a pile with any card.", name=who)

    @per_language
    def beat_answer(self) -> dict | None:
        """The engine's answer for the player to move: his case, the rule, and which of
        the cards he may hold beat the top card (or, V-D5, that anything may be laid);
        worked out once per state (its moves and its next step both read it)."""
        if self.over or self.mover is None or self.trumps is None:
            return None
        if self.step == LAY and not (self.pile and self.pile[-1].seat != self.mover):
            return None  # a lead or a lay after his own beat: no question
        cards = self.candidates(self.mover)
        if not cards:
            return None
        return engine.beat_kind(self.beat_request(hand=cards))

    def legal(self) -> list[dict]:
        out = self._trumps_legal()
        if self.complete:
            return out if self.played_out is not None else [*out, self._loser_legal()]
        seats = list(range(self.n))
        if self.mover is None:
            cards = list(DECK)
            out.append({"action": "lay", "seat": seats, "card": cards})
        elif self.step == BEAT:
            if self.trumps is not None:
                answer = self.beat_answer
                beaters = answer["beaters"] if answer else []
                if beaters:
                    out.append({"action": "lay", "seat": self.mover, "card": beaters})
            out.append({"action": "take", "seat": self.mover})
        else:
            cards = self.candidates(self.mover)
            if cards:
                out.append({"action": "lay", "seat": self.mover, "card": cards})
        out.append(self._loser_legal())
        return out

    def _trumps_legal(self) -> list[dict]:
        """The first deal's Q♣ and 9♦ holders, while they may still be tapped."""
        seats = list(range(self.n))
        out = []
        if self._queen_open:
            out.append({"action": "queen", "seat": seats})
        if self.first_deal and nine_of_diamonds_leads(self.n) and not self.laid:
            if not self.nine_given:
                out.append({"action": "nine", "seat": seats})
        return out

    def _loser_legal(self) -> dict:
        return {"action": "loser", "seat": [s for s in range(self.n) if self.counts[s]]}

    @property
    def tally(self) -> str:
        return dict(self.settings)["tally"]

    def cart_json(self) -> dict | None:
        """The cart this deal gives: the loser's count after it and, with the
        ``letters`` tally, the letters of the word he then holds (V-D6)."""
        if self.cart is None:
            return None
        total = self.totals[self.cart] + 1
        letters = engine.letters(total) if self.tally == engine.LETTER_TALLY else None
        return {"seat": self.cart, "total": total, "letters": letters}

    def to_json(self) -> dict:
        trumps = self.trumps
        closing = self.closing()
        answer = self.beat_answer
        out: dict = {
            "game": self.game,
            "players": list(self.players),
            "settings": dict(self.settings),
            "phase": self.phase,
            "next": {"step": self.phase, "text": self.next_text()},
            "turn": self.turn,
            "legal": self.legal(),
            "trumps": trumps,
            "free": engine.free_suits(trumps, self._names(self.out)) if trumps else None,
            "dealer": self.dealer,
            "leader": self.leader,
            "pile": [{"seat": p.seat, "card": p.card, "beat": p.beat} for p in self.pile],
            "top": self.top,
            "hands": [
                {"count": self.counts[s], "known": list(self.known[s]), "out": not self.counts[s]}
                for s in range(self.n)
            ],
            "out": list(self.out),
            "beat": answer,
            "loser": self.cart,
            "cart": self.cart_json(),
            "word": engine.WORD if self.tally == engine.LETTER_TALLY else None,
            "setup": self.setup(),
            "next_deal": engine.deal_kind(closing["request"]) if closing else None,
            "complete": self.complete,
            "closing": closing,
        }
        return out


__all__ = ["DECK", "VezimasDeal", "nine_of_diamonds_leads"]
