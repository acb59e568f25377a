"""A Kvanta round as a log of taps (RULES.md §3): the dealer draw at game start, the
burned cards once per game (K-D9), the turned card, the target roll, the Hand check,
the tricks with the exchange die (a 6 is Flux), the call settlement and the poker
prize, and the three ways the burned cards end the game.

The state never rolls: a roll is a tap carrying its dice (the server rolls them with
``scorekeeper.dice`` and logs the result), so replaying a log gives the same round.

What the round needs from the game so far comes in ``settings`` (Kvanta has no house
rules): ``round`` (1 by default), ``dealer`` (this round's dealer, a name; left out in
round 1 the round starts with the dealer draw), ``burned`` (the burned cards were set
in an earlier round; default: ``round > 1``) and ``totals`` (every player's total
before this round; needed by a K prize).

A round scores in steps (dealer draw, Flux, Hand, call, poker): ``scoring`` lists the
CONTRACT.md requests made so far, each ``{"kind", "request", "points", "result"}``, and
``closing`` is that list once the round is complete (``null`` before).
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, NamedTuple

from ... import validate as v
from ...cards import ACE, JACK, KING, QUEEN, RANK_TEXT, Card, CardError, parse_card
from ...dice import FACES, FLUX_FACE, TARGET_DICE
from ...errors import RuleError
from ...messages import N_, Text, gettext, quotable
from .. import catalog
from .. import kvanta as engine
from ..poker import hand_sum
from . import Checks, Refused, Tap, no_such_tap, per_language, refusing

MAX_BURN = 10  # RULES §3 "Game start": 0–10 cards
# RULES §3 "Prize": a J or Q prize is the gap (vmax − v) over this divisor, rounded up,
# or this top prize when the winner's value is the highest (the engine's poker_prize;
# a test checks the working against the engine's prize for every J and Q case)
GAP_PRIZES = {JACK: (4, 5), QUEEN: (2, 2)}
ENDINGS = ("stop", "poker", "compare")  # RULES §3 "End of game"
SHOWINGS = ("hand", "call", "final-compare", "poker", "final-poker")  # cards or sums shown
SUM_SHOWINGS = ("hand", "call", "final-compare")  # a seat may give a plain sum there

# the next step of a round, in words (msgids; the variables are names and numbers)
NEXT_TEXT = {
    "dealer": N_("Everyone draws a card: the lowest deals."),
    "burn": N_("%(dealer)s burns 0 to %(max_burn)s cards: they mark the end of the game."),
    "turn": N_("%(dealer)s deals 7 each and turns the next card: trump and poker prize."),
    "target": N_("%(roller)s rolls the three dice: the target."),
    "hand": N_(
        "Hand (+%(hand_points)s)? A player whose sum is %(target)s shows it; else play the tricks."
    ),
    "tricks": N_("Trick %(trick)s: who won it?"),
    "exchange": N_("%(winner)s won trick %(trick)s and rolls the exchange die."),
    "after-exchange": N_("%(winner)s rolled %(die)s: %(choice)s"),
    "call": N_("%(caller)s calls: enter every player's sum or cards, then settle."),
    "final-compare": N_("The burned cards are reached: enter every player's sum or cards."),
    "poker": N_("Poker: enter 5 or 7 cards of %(missing)s, then settle."),
    "poker-ready": N_("Poker: every hand is in; settle to score the prize."),
    "final-poker": N_("Final poker: enter the prize card and 5 or 7 cards each, then settle."),
    "done": N_("Round %(round)s is over; %(next_dealer)s deals the next one."),
    "over": N_("The game is over."),
}


class Show(NamedTuple):
    """One seat's shown hand: its cards (in the order tapped) and a plain sum or None."""

    cards: tuple[str, ...] = ()
    sum: int | None = None


def _seat_of(tap: Tap, players: tuple[str, ...], name: str = "seat") -> int:
    seat = tap.get(name)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(players):
        raise Refused("Name the seat: 0 to %(count)s.", "." + name, count=len(players) - 1)
    return seat


def _card_of(raw: object, path: str = ".card") -> str:
    try:
        card = parse_card(raw)
    except CardError as exc:
        raise Refused(exc.text, path) from None
    if card.is_joker:
        raise Refused(
            "%(card)s is not a card of Kvanta, which is played without jokers.", path, card=card
        )
    return str(card)


def _physical(tap: Tap) -> bool:
    """Whether the dice were real ones typed in (else the server rolled them)."""
    value = tap.get("physical", False)
    if not isinstance(value, bool):
        raise Refused("physical is true (real dice typed in) or false.", ".physical")
    return value


def _die(raw: object, path: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or not 1 <= raw <= FACES:
        raise Refused("A die shows 1 to %(faces)s.", path, faces=FACES)
    return raw


def _engine(kind, request: dict) -> dict:
    """The engine's answer; its refusal becomes the settling tap's (the engine's path
    names a field of its request, not of the tap)."""
    try:
        return kind(request)
    except Refused:
        raise
    except RuleError as exc:
        raise Refused(exc.text, "") from None


@dataclass(frozen=True)
class KvantaRound(Checks):
    """One Kvanta round (see the module's docstring for the context and the taps).

    >>> from . import replay
    >>> start = KvantaRound.start(["Ana", "Bojan", "Ceca"], {"dealer": "Ana", "burned": True})
    >>> r = replay(start, [
    ...     {"id": "t1", "action": "turn", "seat": 0, "card": "JH"},
    ...     {"id": "t2", "action": "roll", "seat": 1, "dice": [3, 5, 6]},
    ...     {"id": "t3", "action": "no-hand"},
    ...     {"id": "t4", "action": "trick-winner", "seat": 2},
    ...     {"id": "t5", "action": "exchange", "seat": 2, "die": 2},
    ...     {"id": "t6", "action": "call", "seat": 2},
    ...     {"id": "t7", "action": "sum", "seat": 0, "sum": 10},
    ...     {"id": "t8", "action": "sum", "seat": 1, "sum": 9},
    ...     {"id": "t9", "action": "sum", "seat": 2, "sum": 12},
    ...     {"id": "t10", "action": "settle"},
    ... ])
    >>> r.phase, r.target, r.to_json()["round_points"]
    ('poker', 14, {'Ana': -2, 'Bojan': -3, 'Ceca': 5})
    >>> r.to_json()["next"]["text"]
    'Poker: enter 5 or 7 cards of Ana, Bojan, Ceca, then settle.'
    """

    game: ClassVar[str] = "kvanta"

    players: tuple[str, ...]
    round: int
    totals: tuple[int, ...]  # before this round
    burned_before: bool
    dealer: int | None
    phase: str = "dealer"
    draws: tuple[str | None, ...] = ()  # the dealer draw, per seat
    dead_draws: int = 0  # full draws that cancelled out (everyone drew again)
    dealer_draw: tuple[str, ...] | None = None  # the deciding draw
    burn: int | None = None
    turned: str | None = None  # trump and poker prize (the prize card in a final poker)
    # (who rolled, dice, physical, the tap's id)
    rolls: tuple[tuple[int, tuple[int, ...], bool, str], ...] = ()
    shows: tuple[Show, ...] = ()  # the current showing, per seat
    draw_winner: int | None = None
    hand_shows: tuple[Show, ...] | None = None  # as settled
    hand_winner: int | None = None
    trick: int = 1
    plays: tuple[str | None, ...] = ()  # a disputed trick's cards, per seat
    dead_tricks: int = 0
    trick_winner: int | None = None
    die: int | None = None
    # (seat, trick, die, physical, the tap's id)
    exchanges: tuple[tuple[int, int, int, bool, str], ...] = ()
    leader: int | None = None
    caller: int | None = None
    flux_call: bool = False
    call_shows: tuple[Show, ...] | None = None
    poker_shows: tuple[Show, ...] | None = None
    ending: str | None = None  # "stop", "poker" or "compare" (the burned cards reached)
    # the ids of the taps that made the scoring steps (a Flux's is its exchange's)
    dealer_tap: str | None = None
    hand_tap: str | None = None
    call_tap: str | None = None
    poker_tap: str | None = None

    # ― start ―

    @refusing
    def start(cls, players: object, settings: Mapping[str, Any] | None = None) -> KvantaRound:
        info = catalog.game("kvanta")
        info.check_players(v.array(players, "players"))
        names = tuple(v.players(players, "players", info.min_players, info.max_players))
        raw = dict(settings or {})
        context = {k: raw.pop(k) for k in ("round", "dealer", "burned", "totals") if k in raw}
        info.clean_settings(raw)  # no house rules: refuses unknown keys
        number = context.get("round", 1)
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= 10_000:
            raise Refused("settings.round is the round's number, 1 or more.", "settings.round")
        dealer = context.get("dealer")
        if dealer is not None:
            if dealer not in names:
                raise Refused(
                    "settings.dealer must be one of the players (%(names)s).",
                    "settings.dealer",
                    names=", ".join(names),
                )
            dealer = names.index(dealer)
        elif number > 1:
            raise Refused(
                "From round 2 on, give the round's dealer (settings.dealer): "
                "the deal passes to the left (K-D10).",
                "settings.dealer",
            )
        burned = context.get("burned", number > 1)
        if not isinstance(burned, bool):
            raise Refused("settings.burned is true or false.", "settings.burned")
        totals = context.get("totals", {})
        if not isinstance(totals, Mapping) or any(k not in names for k in totals):
            raise Refused("settings.totals maps player names to totals.", "settings.totals")
        limit = engine.TOTAL_LIMIT
        for name, total in totals.items():
            if isinstance(total, bool) or not isinstance(total, int) or abs(total) > limit:
                raise Refused(
                    "%(name)s's total must be a whole number.", "settings.totals." + name, name=name
                )
        n = len(names)
        phase = "dealer" if dealer is None else ("turn" if burned else "burn")
        return cls(
            players=names,
            round=number,
            totals=tuple(totals.get(name, 0) for name in names),
            burned_before=burned,
            dealer=dealer,
            phase=phase,
            draws=(None,) * n,
            shows=(Show(),) * n,
            plays=(None,) * n,
        )

    def _with(self, **changes: Any) -> KvantaRound:
        """A copy with some fields changed (``dataclasses.replace`` without re-running
        ``__init__``: a replayed log makes one per tap). Cached answers are not copied."""
        data = {name: self.__dict__[name] for name in _FIELDS}
        for name in changes:
            if name not in data:
                raise TypeError(f"KvantaRound has no field {name!r}")
        data.update(changes)
        new = object.__new__(KvantaRound)
        new.__dict__.update(data)
        return new

    # ― derived facts ―

    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def roller(self) -> int | None:
        """The player left of the dealer rolls the target and leads the first trick."""
        return None if self.dealer is None else (self.dealer + 1) % self.n

    @property
    def next_dealer(self) -> int | None:
        """K-D10: the deal passes to the left (clockwise) each round."""
        return self.roller

    @property
    def target(self) -> int | None:
        return sum(self.rolls[-1][1]) if self.rolls else None

    @property
    def trump(self) -> str | None:
        return parse_card(self.turned).suit if self.turned else None

    @property
    def game_over(self) -> bool:
        return self.ending is not None and self.phase == "over"

    @property
    def complete(self) -> bool:
        return self.phase in ("done", "over")

    def _name(self, seat: int | None) -> str | None:
        return None if seat is None else self.players[seat]

    def _seat_done(self, show: Show) -> bool:
        if self.phase in SUM_SHOWINGS and show.sum is not None:
            return True
        sizes = engine.POKER_SIZES if self.phase in ("poker", "final-poker") else (7,)
        return len(show.cards) in sizes

    def _missing(self) -> list[int]:
        return [s for s, show in enumerate(self.shows) if not self._seat_done(show)]

    def next_missing(self, after: int | None = None) -> int | None:
        """The next seat after ``after`` (seat order, round the table) whose cards or
        sum are still to be entered, for a screen moving on by itself."""
        start = 0 if after is None else after + 1
        missing = set(self._missing()) if self.phase in SHOWINGS else set()
        for k in range(self.n):
            seat = (start + k) % self.n
            if seat in missing:
                return seat
        return None

    def used_up(self) -> list[str]:
        """Cards whose three copies are all in the current draw, trick or showing (the
        turned card included), so a picker can refuse a fourth."""
        if self.phase == "dealer":
            counts = Counter(c for c in self.draws if c)
        elif self.phase == "tricks":
            counts = Counter(c for c in self.plays if c)
            counts[self.turned] += 1
        else:
            counts = self._copies(self.shows)
        return sorted(c for c, k in counts.items() if c and k >= engine.DECKS)

    def _copies(self, shows: tuple[Show, ...]) -> Counter:
        """Cards of a showing plus the turned card (RULES §3: it counts toward the
        three-copies limit of every card entered in its round)."""
        counts: Counter = Counter(c for show in shows for c in show.cards)
        if self.turned:
            counts[self.turned] += 1
        return counts

    # ― the engine's requests ―

    def _seats_request(self, shows: tuple[Show, ...], sums_allowed: bool) -> dict:
        hands = {}
        sums = {}
        for name, show in zip(self.players, shows, strict=True):
            if sums_allowed and show.sum is not None:
                sums[name] = show.sum
            else:
                hands[name] = list(show.cards)
        out: dict = {}
        if hands:
            out["hands"] = hands
        if sums:
            out["sums"] = sums
        return out

    def dealer_request(self) -> dict:
        return {"draws": dict(zip(self.players, self.dealer_draw or self.draws, strict=True))}

    def hand_request(self, shows: tuple[Show, ...] | None = None) -> dict:
        req = {"target": self.target, **self._seats_request(shows or self.shows, True)}
        if self.draw_winner is not None:
            req["draw_winner"] = self.players[self.draw_winner]
        return req

    def trick_request(self) -> dict:
        return {"trump": self.trump, "plays": dict(zip(self.players, self.plays, strict=True))}

    def flux_request(self, seat: int) -> dict:
        return {"players": list(self.players), "player": self.players[seat], "target": self.target}

    def call_request(self, shows: tuple[Show, ...] | None = None) -> dict:
        compare = self.ending == "compare"
        req = {
            "target": self.target,
            "caller": None if compare else self.players[self.caller],
            **self._seats_request(shows or self.shows, True),
        }
        if self.flux_call and not compare:
            req["flux"] = True
        return req

    def poker_request(self, shows: tuple[Show, ...] | None = None) -> dict:
        """The poker phase; a K prize sees the totals after this round's earlier steps."""
        before = self._points(self._steps_made)
        totals = {
            name: total + before[name]
            for name, total in zip(self.players, self.totals, strict=True)
        }
        return {
            "prize_card": self.turned,
            "hands": {
                name: list(show.cards)
                for name, show in zip(self.players, shows or self.shows, strict=True)
            },
            "totals": totals,
        }

    @per_language
    def _steps_made(self) -> tuple[dict, ...]:
        """The requests before the poker phase, with their points (worked out once per
        state: a state never changes)."""
        steps: list[tuple[str, dict]] = []
        if self.dealer_draw is not None:
            steps.append(("kvanta-dealer", self.dealer_request()))
        if self.hand_shows is not None:
            steps.append(("kvanta-hand", self.hand_request(self.hand_shows)))
        steps.extend(
            ("kvanta-flux", self.flux_request(seat))
            for seat, _trick, die, _physical, _tap in self.exchanges
            if die == FLUX_FACE
        )
        if self.call_shows is not None:
            steps.append(("kvanta-call", self.call_request(self.call_shows)))
        out = []
        for kind, req in steps:
            result = engine.KINDS[kind](req)
            points = result.get("points", {})
            out.append({"kind": kind, "request": req, "points": points, "result": result})
        return tuple(out)

    def scoring(self) -> list[dict]:
        """The CONTRACT requests this round has made, in order, with their points (a
        fresh copy: the caller may change it)."""
        out = copy.deepcopy(list(self._steps_made))
        if self.poker_shows is not None:
            req = self.poker_request(self.poker_shows)
            result = engine.poker(req)
            points = result["points"]
            out.append({"kind": "kvanta-poker", "request": req, "points": points, "result": result})
        return out

    def scoring_taps(self) -> list[str]:
        """The id of the tap that made each step of ``scoring``, in the same order (a
        screen stores a step under its tap's id, and taking that tap back takes the step
        back)."""
        taps = [self.dealer_tap] if self.dealer_draw is not None else []
        if self.hand_shows is not None:
            taps.append(self.hand_tap)
        taps.extend(tap for _s, _t, die, _p, tap in self.exchanges if die == FLUX_FACE)
        if self.call_shows is not None:
            taps.append(self.call_tap)
        if self.poker_shows is not None:
            taps.append(self.poker_tap)
        return taps

    def _points(self, steps: list[dict]) -> dict[str, int]:
        points = dict.fromkeys(self.players, 0)
        for step in steps:
            for name, value in step["points"].items():
                points[name] += value
        return points

    # ― taps ―

    def apply(self, tap: Tap) -> KvantaRound:
        handler = _HANDLERS.get(tap.action)
        if handler is None:
            raise no_such_tap(self.game, tap.action, _HANDLERS)
        phases = _PHASES[tap.action]
        if self.phase not in phases:
            raise Refused(self._wrong_moment(tap.action), ".action")
        allowed = {"id", "action", *_ARGS[tap.action]}
        for key, _value in tap.args:
            if key not in allowed:
                raise Refused(
                    "The %(action)s tap has no argument “%(key)s”.",
                    "." + key,
                    action=tap.action,
                    key=quotable(key),
                )
        return handler(self, tap)

    def _wrong_moment(self, action: str) -> Text:
        # Translators: %(action)s is a tap's name (settle), %(next)s the next step
        return Text("No %(action)s tap now: %(next)s", action=action, next=self._next_text())

    def _expect(self, tap: Tap, seat: int | None, who: str) -> int:
        given = _seat_of(tap, self.players)
        if given != seat:
            # Translators: "Ana deals and turns the card, not Ben."
            raise Refused(
                "%(seat)s %(who)s, not %(given)s.",
                ".seat",
                seat=self.players[seat],
                who=Text(who),
                given=self.players[given],
            )
        return given

    # dealer draw

    def _draw(self, tap: Tap) -> KvantaRound:
        seat = _seat_of(tap, self.players)
        card = _card_of(tap.get("card"))
        draws, dead = self.draws, self.dead_draws
        if all(draws):  # every card cancelled out: this card starts the next draw
            draws, dead = (None,) * self.n, dead + 1
        draws = draws[:seat] + (card,) + draws[seat + 1 :]
        if Counter(c for c in draws if c)[card] > engine.DECKS:
            raise Refused("All three %(card)s were already drawn.", ".card", card=card)
        state = self._with(draws=draws, dead_draws=dead)
        if not all(draws):
            return state
        chosen = engine.dealer(state.dealer_request())["dealer"]
        if chosen is None:
            return state
        dealer = self.players.index(chosen)
        return state._with(
            dealer=dealer,
            dealer_draw=draws,
            dealer_tap=tap.id,
            phase="turn" if self.burned_before else "burn",
        )

    def _burn(self, tap: Tap) -> KvantaRound:
        self._expect(
            tap, self.dealer, N_("burns the cards (K-D9: once per game, the first dealer)")
        )
        count = tap.get("count")
        if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_BURN:
            raise Refused("Burn 0 to %(most)s cards.", ".count", most=MAX_BURN)
        return self._with(burn=count, phase="turn")

    def _turn(self, tap: Tap) -> KvantaRound:
        self._expect(tap, self.dealer, N_("deals and turns the card"))
        card = _card_of(tap.get("card"))
        if self.phase == "final-poker":
            state = self._with(turned=card)
            if state._copies(self.shows)[card] > engine.DECKS:
                raise Refused("All three %(card)s are already shown.", ".card", card=card)
            return state
        return self._with(turned=card, phase="target")

    def _dice(self, tap: Tap) -> tuple[int, ...]:
        raw = tap.get("dice")
        if not isinstance(raw, list | tuple) or len(raw) != TARGET_DICE:
            raise Refused("A target roll is %(dice)s dice.", ".dice", dice=TARGET_DICE)
        return tuple(_die(face, f".dice[{i}]") for i, face in enumerate(raw))

    def _roll(self, tap: Tap) -> KvantaRound:
        seat = self._expect(
            tap, self.roller, N_("rolls the target (the player left of the dealer)")
        )
        roll = (seat, self._dice(tap), _physical(tap), tap.id)
        return self._with(rolls=(roll,), phase="hand")

    def _reroll(self, tap: Tap) -> KvantaRound:
        """A deliberate roll again (issue: every roll stays listed; the last counts); the
        tap names who asked for it, and ``seen``, when given, how many rolls that phone
        showed: a phone that had not yet seen another phone's roll again is refused, so
        the target is never rolled again behind everyone's back (#24)."""
        seen = tap.get("seen")
        if seen is not None:
            if isinstance(seen, bool) or not isinstance(seen, int):
                raise Refused("seen is the number of rolls the screen showed.", ".seen")
            if seen != len(self.rolls):
                raise Refused(
                    "The target was rolled %(count)s times already, not %(seen)s: its latest roll, "
                    "%(target)s, counts. Roll again from a screen that shows it.",
                    ".seen",
                    count=len(self.rolls),
                    seen=seen,
                    target=self.target,
                )
        seat = _seat_of(tap, self.players)
        roll = (seat, self._dice(tap), _physical(tap), tap.id)
        return self._with(rolls=(*self.rolls, roll), draw_winner=None)

    # showing cards or sums

    def _set_show(self, seat: int, show: Show, path: str) -> KvantaRound:
        shows = self.shows[:seat] + (show,) + self.shows[seat + 1 :]
        state = self._with(shows=shows)
        for card, count in state._copies(shows).items():
            if count > engine.DECKS and card in show.cards:
                raise Refused("All three %(card)s are already shown or turned.", path, card=card)
        return state

    def _size(self) -> int:
        return max(engine.POKER_SIZES) if self.phase in ("poker", "final-poker") else 7

    def _card(self, tap: Tap) -> KvantaRound:
        seat = _seat_of(tap, self.players)
        card = _card_of(tap.get("card"))
        show = self.shows[seat]
        if len(show.cards) >= self._size():
            raise Refused(
                "%(seat)s already shows %(count)s cards: take one out first.",
                ".card",
                seat=self.players[seat],
                count=len(show.cards),
            )
        return self._set_show(seat, Show((*show.cards, card), None), ".card")

    def _uncard(self, tap: Tap) -> KvantaRound:
        seat = _seat_of(tap, self.players)
        card = _card_of(tap.get("card"))
        cards = list(self.shows[seat].cards)
        if card not in cards:
            raise Refused(
                "%(card)s is not among %(seat)s's cards.",
                ".card",
                card=card,
                seat=self.players[seat],
            )
        cards.reverse()
        cards.remove(card)  # the last copy tapped goes
        cards.reverse()
        return self._set_show(seat, Show(tuple(cards), None), ".card")

    def _cards(self, tap: Tap) -> KvantaRound:
        seat = _seat_of(tap, self.players)
        raw = tap.get("cards")
        if not isinstance(raw, list | tuple) or len(raw) > self._size():
            raise Refused("cards is a list of at most %(self)s cards.", ".cards", self=self._size())
        cards = tuple(_card_of(c, f".cards[{i}]") for i, c in enumerate(raw))
        return self._set_show(seat, Show(cards, None), ".cards")

    def _sum(self, tap: Tap) -> KvantaRound:
        seat = _seat_of(tap, self.players)
        if self.phase not in SUM_SHOWINGS:
            raise Refused("The poker phase needs every player's cards, not a sum.", ".sum")
        value = tap.get("sum")
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or abs(value) > engine.MAX_SUM
        ):
            raise Refused(
                "A sum is a whole number from −%(most)s to %(most)s.",
                "sum",
                most=engine.MAX_SUM,
            )
        return self._set_show(seat, Show(self.shows[seat].cards, value), ".sum")

    def _verify_complete(self) -> None:
        missing = self._missing()
        if missing:
            names = ", ".join(self.players[s] for s in missing)
            raise Refused("Enter every player's cards or sum first (%(names)s).", "", names=names)

    # Hand

    def _no_hand(self, tap: Tap) -> KvantaRound:
        return self._with(
            phase="tricks",
            shows=(Show(),) * self.n,
            draw_winner=None,
            leader=self.roller,  # the roller plays first (RULES §3, seed: "the same player")
        )

    def _draw_winner(self, tap: Tap) -> KvantaRound:
        return self._with(draw_winner=_seat_of(tap, self.players))

    def _settle(self, tap: Tap) -> KvantaRound:
        self._verify_complete()
        if self.phase == "hand":
            result = _engine(engine.hand, self.hand_request())
            if result["hand"] is None:
                if result["tied"]:
                    raise Refused(
                        "%(value)s tie: tap who won the tie-break draw.",
                        "",
                        value=", ".join(result["tied"]),
                    )
                raise Refused(
                    "Nobody's sum equals the target %(target)s: there is no Hand.",
                    "",
                    target=self.target,
                )
            return self._with(
                hand_shows=self.shows,
                hand_tap=tap.id,
                hand_winner=self.players.index(result["hand"]),
                phase="poker",
                shows=tuple(Show(s.cards, None) for s in self.shows),  # carried to the poker
            )
        if self.phase in ("call", "final-compare"):
            _engine(engine.call, self.call_request())  # e.g. a Flux call off the target
            if self.phase == "final-compare":
                return self._with(call_shows=self.shows, call_tap=tap.id, phase="over")
            return self._with(
                call_shows=self.shows,
                call_tap=tap.id,
                phase="poker",
                shows=tuple(Show(s.cards, None) for s in self.shows),
            )
        if not self.turned:
            raise Refused("Enter the prize card first.", ".card")
        _engine(engine.poker, self.poker_request())
        return self._with(
            poker_shows=self.shows,
            poker_tap=tap.id,
            phase="over" if self.phase == "final-poker" else "done",
        )

    # tricks

    def _trick_winner(self, tap: Tap) -> KvantaRound:
        if self.die is not None:
            raise Refused("The exchange die was already rolled for this trick.", ".seat")
        return self._with(trick_winner=_seat_of(tap, self.players))

    def _play(self, tap: Tap) -> KvantaRound:
        """A disputed trick: each seat's card, and the engine says who won (K-D1)."""
        if self.die is not None:
            raise Refused("The exchange die was already rolled for this trick.", ".seat")
        seat = _seat_of(tap, self.players)
        card = _card_of(tap.get("card"))
        plays, dead = self.plays, self.dead_tricks
        if all(plays) and self.trick_winner is None:  # a dead trick: everyone plays again
            plays, dead = (None,) * self.n, dead + 1
        plays = plays[:seat] + (card,) + plays[seat + 1 :]
        counts = Counter(c for c in plays if c)
        counts[self.turned] += 1
        if counts[card] > engine.DECKS:
            raise Refused("All three %(card)s are already played or turned.", ".card", card=card)
        state = self._with(plays=plays, dead_tricks=dead, trick_winner=None)
        if all(plays):
            winner = engine.trick(state.trick_request())["winner"]
            if winner is not None:
                state = state._with(trick_winner=self.players.index(winner))
        return state

    def _exchange(self, tap: Tap) -> KvantaRound:
        if self.trick_winner is None:
            raise Refused("Tap who won the trick first: that player rolls.", ".seat")
        if self.die is not None:
            raise Refused("The exchange die was already rolled for this trick.", ".die")
        seat = self._expect(tap, self.trick_winner, N_("won the trick and rolls the exchange die"))
        die = _die(tap.get("die"), ".die")
        roll = (seat, self.trick, die, _physical(tap), tap.id)
        return self._with(die=die, exchanges=(*self.exchanges, roll))

    def _after_roll(self, tap: Tap) -> int:
        if self.die is None:
            raise Refused("Roll the exchange die first: the trick's winner rolls it.", ".die")
        return self._expect(tap, self.trick_winner, N_("rolled the exchange die"))

    def _call(self, tap: Tap) -> KvantaRound:
        seat = self._after_roll(tap)
        return self._with(caller=seat, flux_call=self.die == FLUX_FACE, phase="call")

    def _next_trick(self, tap: Tap) -> KvantaRound:
        """Exchange 1–5 cards (everyone the same number), or after a Flux play on: the
        roller leads the next trick (RULES §3 "Exchange die")."""
        seat = self._after_roll(tap)
        return self._with(
            trick=self.trick + 1,
            plays=(None,) * self.n,
            trick_winner=None,
            die=None,
            leader=seat,
        )

    # the end of the game (RULES §3 "End of game")

    def _end(self, tap: Tap) -> KvantaRound:
        case = tap.get("case")
        if case not in ENDINGS:
            raise Refused("case is one of %(endings)s.", ".case", endings=", ".join(ENDINGS))
        if case == "compare":
            if self.phase != "tricks":
                raise Refused(
                    "The final comparison comes while drawing during the tricks.", ".case"
                )
            return self._with(ending=case, phase="final-compare", shows=(Show(),) * self.n)
        if self.phase != "turn":
            raise Refused("That ending comes while dealing, before the card is turned.", ".case")
        if case == "stop":
            return self._with(ending=case, phase="over")
        return self._with(ending=case, phase="final-poker")

    # ― the poker prize's working (#24: show how the prize was reached) ―

    def _poker_result(self) -> tuple[dict, dict] | None:
        """The poker's (request, result): as scored, else the preview of a complete
        showing (None before every hand is in)."""
        if self.poker_shows is not None:
            request = self.poker_request(self.poker_shows)
            return request, engine.poker(request)
        shown = self._preview
        if shown is None or shown["kind"] != "kvanta-poker" or "result" not in shown:
            return None
        return self.poker_request(), shown["result"]

    def prize_working(self) -> dict | None:
        """How the poker prize follows from the turned card (RULES §3 "Prize"): for a J
        or Q, v (the winner's value), vmax, their gap, the divisor and the rounding up;
        for a K, the winner's total and the leader's. None until every hand is in."""
        made = self._poker_result()
        if made is None:
            return None
        request, result = made
        card = parse_card(self.turned)
        winner, prize = result["winner"], result["prize"]
        out: dict = {"card": self.turned, "rank": RANK_TEXT[card.rank], "winner": winner}
        out["prize"] = prize
        if winner is None:
            out["case"] = "cancelled"
            out["text"] = gettext("Every best hand cancelled out (K-D4): nobody wins the prize.")
        elif card.rank == ACE:
            out["case"] = "ace"
            out["text"] = gettext(
                "An ace is worth 1 (K-D5): %(winner)s wins %(prize)s.", winner=winner, prize=prize
            )
        elif card.rank <= 10:
            out["case"] = "face"
            out["text"] = gettext(
                "A %(rank)s is worth its face value: %(winner)s wins %(prize)s.",
                rank=card.rank,
                winner=winner,
                prize=prize,
            )
        elif card.rank == KING:
            totals = request["totals"]
            lead = max(totals.values())
            out.update(case="king", total=totals[winner], leader_total=lead)
            if prize == 0:
                out["text"] = gettext(
                    "K: %(winner)s has %(total)s, the lead is %(lead)s: "
                    "%(winner)s leads already, so the prize is 0.",
                    winner=winner,
                    total=totals[winner],
                    lead=lead,
                )
            else:
                out["text"] = gettext(
                    "K: %(winner)s has %(total)s, the lead is %(lead)s: "
                    "%(prize)s draws level with it.",
                    winner=winner,
                    total=totals[winner],
                    lead=lead,
                    prize=prize,
                )
        else:
            values = result["values"]
            value, vmax = values[winner], max(values.values())
            divisor, top = GAP_PRIZES[card.rank]
            gap = vmax - value
            out.update(case="gap", v=value, vmax=vmax, gap=gap, divisor=divisor, top=top)
            if gap == 0:
                out["text"] = gettext(
                    "%(rank)s: %(winner)s's value v = %(value)s is the highest, "
                    "so the prize is %(top)s.",
                    rank=out["rank"],
                    winner=winner,
                    value=value,
                    top=top,
                )
            else:
                exact = f"{gap / divisor:g}"
                working = {
                    "rank": out["rank"],
                    "value": value,
                    "winner": winner,
                    "vmax": vmax,
                    "divisor": divisor,
                    "gap": gap,
                    "exact": exact,
                    "prize": prize,
                }
                if gap % divisor == 0:
                    out["text"] = gettext(
                        "%(rank)s: v = %(value)s (%(winner)s), vmax = %(vmax)s; "
                        "(vmax − v) / %(divisor)s = %(gap)s / %(divisor)s = %(exact)s.",
                        **working,
                    )
                else:
                    out["text"] = gettext(
                        "%(rank)s: v = %(value)s (%(winner)s), vmax = %(vmax)s; "
                        "(vmax − v) / %(divisor)s = %(gap)s / %(divisor)s = %(exact)s, "
                        "rounded up: %(prize)s.",
                        **working,
                    )
        return out

    # ― the answer ―

    def _next_text(self) -> str:
        names = ", ".join(self.players[s] for s in self._missing())
        choice = ""
        if self.die is not None:
            who = self._name(self.trick_winner)
            choice = (
                Text(
                    "Flux, +%(points)s. New cards that hit the target call at once; "
                    "otherwise %(name)s leads the next trick.",
                    points=engine.FLUX_POINTS,
                    name=who,
                )
                if self.die == FLUX_FACE
                else Text(
                    "%(name)s exchanges %(die)s cards (and so does everyone) or calls.",
                    name=who,
                    die=self.die,
                )
            )
        step = self.phase
        if step == "tricks" and self.trick_winner is not None:
            step = "exchange" if self.die is None else "after-exchange"
        if step == "poker" and not names:
            step = "poker-ready"
        return gettext(
            NEXT_TEXT[step],
            dealer=self._name(self.dealer),
            roller=self._name(self.roller),
            target=self.target,
            trick=self.trick,
            winner=self._name(self.trick_winner),
            die=self.die,
            choice=choice,
            caller=self._name(self.caller),
            missing=names,
            max_burn=MAX_BURN,
            hand_points=engine.HAND_POINTS,
            round=self.round,
            next_dealer=self._name(self.next_dealer),
        )

    def turn_seat(self) -> int | None:
        """Whose move it is, when one player acts."""
        if self.phase in ("burn", "turn", "final-poker") and not self.turned:
            return self.dealer
        if self.phase == "target":
            return self.roller
        if self.phase == "tricks":
            return self.leader if self.trick_winner is None else self.trick_winner
        if self.phase == "call":
            return self.caller
        return None

    def legal(self) -> list[dict]:
        seats = list(range(self.n))
        out: list[dict] = []

        def add(action: str, **choices) -> None:
            out.append({"action": action, **choices})

        phase = self.phase
        if phase == "dealer":
            add("draw", seat=seats, card=None)
        elif phase == "burn":
            add("burn", seat=[self.dealer], count=list(range(MAX_BURN + 1)))
        elif phase == "turn":
            add("turn", seat=[self.dealer], card=None)
            add("end", case=["stop", "poker"])
        elif phase == "target":
            add("roll", seat=[self.roller], dice=None)
        elif phase == "tricks":
            if self.die is None:
                add("trick-winner", seat=seats)
                add("play", seat=seats, card=None)
                if self.trick_winner is not None:
                    add("exchange", seat=[self.trick_winner], die=list(range(1, FACES + 1)))
            else:
                add("call", seat=[self.trick_winner])
                add("next-trick", seat=[self.trick_winner])
            add("end", case=["compare"])
        if phase in SHOWINGS:
            add("card", seat=seats, card=None)
            holding = [s for s in seats if self.shows[s].cards]
            if holding:
                add("uncard", seat=holding, card=None)
            add("cards", seat=seats, cards=None)
            if phase in SUM_SHOWINGS:
                add("sum", seat=seats, sum=None)
            if phase == "final-poker":
                add("turn", seat=[self.dealer], card=None)
            if phase == "hand":
                add("no-hand")
                add("reroll", seat=seats, dice=None, seen=[len(self.rolls)])
                tied = (self.preview(before_draw=True) or {}).get("result", {}).get("tied")
                if tied:
                    add("draw-winner", seat=[self.players.index(name) for name in tied])
            if self._can_settle():
                add("settle")
        return out

    def _can_settle(self) -> bool:
        """What ``settle`` checks, read from the preview (the engine runs once)."""
        shown = self._preview
        if shown is None or "error" in shown:
            return False
        return self.phase != "hand" or shown["result"]["hand"] is not None

    @per_language
    def _preview(self) -> dict | None:
        return self.preview()

    def preview(self, before_draw: bool = False) -> dict | None:
        """The engine's answer on the current showing once every seat is entered (what a
        settle would score, or why it cannot), else None."""
        if self.phase not in SHOWINGS or self._missing():
            return None
        kind, request = {
            "hand": ("kvanta-hand", self.hand_request),
            "call": ("kvanta-call", self.call_request),
            "final-compare": ("kvanta-call", self.call_request),
            "poker": ("kvanta-poker", self.poker_request),
            "final-poker": ("kvanta-poker", self.poker_request),
        }[self.phase]
        if kind == "kvanta-poker" and not self.turned:
            return None
        req = request()
        if before_draw:
            req.pop("draw_winner", None)  # who is tied before the tie-break draw
        try:
            return {"kind": kind, "result": engine.KINDS[kind](req)}
        except RuleError as exc:
            return {"kind": kind, "error": exc.message, "path": exc.path}

    def to_json(self) -> dict:
        scoring = self.scoring()
        points = self._points(scoring)
        turn = self.turn_seat()
        out: dict = {
            "game": self.game,
            "players": list(self.players),
            "round": self.round,
            "phase": self.phase,
            "next": {"step": self.phase, "text": self._next_text()},
            "turn": turn,
            "legal": self.legal(),
            "dealer": self._name(self.dealer),
            "next_dealer": self._name(self.next_dealer),
            "roller": self._name(self.roller),
            "draws": dict(zip(self.players, self.draws, strict=True)),
            "dead_draws": self.dead_draws,
            "burn": self.burn,
            "turned": self.turned,
            "trump": self.trump,
            "target": self.target,
            "rolls": [
                {
                    "by": self.players[seat],
                    "dice": list(dice),
                    "target": sum(dice),
                    "physical": physical,
                    "counts": i == len(self.rolls) - 1,  # a roll again replaces the earlier
                    "tap": tap,
                }
                for i, (seat, dice, physical, tap) in enumerate(self.rolls)
            ],
            "exchanges": [
                {
                    "by": self.players[seat],
                    "trick": trick,
                    "die": die,
                    "flux": die == FLUX_FACE,
                    "physical": physical,
                    "tap": tap,
                }
                for seat, trick, die, physical, tap in self.exchanges
            ],
            "hand": self._name(self.hand_winner),
            "trick": {
                "number": self.trick,
                "leader": self._name(self.leader),
                "plays": dict(zip(self.players, self.plays, strict=True)),
                "dead": self.dead_tricks,
                "winner": self._name(self.trick_winner),
                "die": self.die,
                "flux": self.die == FLUX_FACE,
            },
            "caller": self._name(self.caller),
            "flux_call": self.flux_call,
            "shows": {
                name: {
                    "cards": list(show.cards),
                    "sum": show.sum if show.sum is not None else self._shown_sum(show),
                    "complete": self._seat_done(show),
                }
                for name, show in zip(self.players, self.shows, strict=True)
            },
            "preview": self._preview,
            "used_up": self.used_up(),
            "scoring": scoring,
            "scoring_taps": self.scoring_taps(),
            "round_points": points,
            "prize": self.prize_working(),
            "ending": self.ending,
            "game_over": self.phase == "over",
            "complete": self.complete,
            "closing": scoring if self.complete else None,
        }
        return out

    @staticmethod
    def _shown_sum(show: Show) -> int | None:
        if len(show.cards) != engine.HAND_SIZE:
            return None
        return hand_sum([Card.parse(c) for c in show.cards])


_FIELDS = tuple(f.name for f in fields(KvantaRound))

_HANDLERS = {
    "draw": KvantaRound._draw,
    "burn": KvantaRound._burn,
    "turn": KvantaRound._turn,
    "roll": KvantaRound._roll,
    "reroll": KvantaRound._reroll,
    "card": KvantaRound._card,
    "uncard": KvantaRound._uncard,
    "cards": KvantaRound._cards,
    "sum": KvantaRound._sum,
    "no-hand": KvantaRound._no_hand,
    "draw-winner": KvantaRound._draw_winner,
    "settle": KvantaRound._settle,
    "trick-winner": KvantaRound._trick_winner,
    "play": KvantaRound._play,
    "exchange": KvantaRound._exchange,
    "call": KvantaRound._call,
    "next-trick": KvantaRound._next_trick,
    "end": KvantaRound._end,
}
_PHASES = {
    "draw": ("dealer",),
    "burn": ("burn",),
    "turn": ("turn", "final-poker"),
    "roll": ("target",),
    "reroll": ("hand",),
    "card": SHOWINGS,
    "uncard": SHOWINGS,
    "cards": SHOWINGS,
    "sum": SHOWINGS,
    "no-hand": ("hand",),
    "draw-winner": ("hand",),
    "settle": SHOWINGS,
    "trick-winner": ("tricks",),
    "play": ("tricks",),
    "exchange": ("tricks",),
    "call": ("tricks",),
    "next-trick": ("tricks",),
    "end": ("turn", "tricks"),
}
_ARGS = {
    "draw": ("seat", "card"),
    "burn": ("seat", "count"),
    "turn": ("seat", "card"),
    "roll": ("seat", "dice", "physical"),
    "reroll": ("seat", "dice", "physical", "seen"),
    "card": ("seat", "card"),
    "uncard": ("seat", "card"),
    "cards": ("seat", "cards"),
    "sum": ("seat", "sum"),
    "no-hand": (),
    "draw-winner": ("seat",),
    "settle": (),
    "trick-winner": ("seat",),
    "play": ("seat", "card"),
    "exchange": ("seat", "die", "physical"),
    "call": ("seat",),
    "next-trick": ("seat",),
    "end": ("case",),
}

__all__ = ["KvantaRound"]
