"""Wyoming Cowboy's deal as a log of taps (RULES.md §1).

What the table enters during a deal: the marriages shown (+25 at once, C-D1), the
shots with the referee's verdicts (C-D2, C-D3, C-D10, C-D11, C-D12), the aces still
on the table, who ended the deal and how, and at the end every player's holdings
(held cards, drawn guns, laid-out 10s). Every verdict and every number comes from
the engine (``games/cowboy.py``); this module only keeps what was tapped and says
what may come next.

The holdings are entered at the end of the deal, the shots during it: a shot names
its own gun and what its victim holds (the referee needs only that), so the two
entries never wait for each other.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from ... import validate as v
from ...cards import ACE, KING, RANKS, SUITS, Card, CardError, parse_card
from ...errors import RuleError
from ...messages import N_, Text, gettext, quotable, speaking
from .. import catalog
from .. import cowboy as engine
from . import Checks, Refused, Tap, no_such_tap

GAME = catalog.GAMES["cowboy"]
DECK = tuple(str(Card(rank, suit)) for suit in SUITS for rank in reversed(RANKS))
ACES = tuple(f"A{suit}" for suit in SUITS)  # the sheriff's badges, on the table at first
TENS = tuple(f"10{suit}" for suit in SUITS)
# RULES §1 "Guns": every gun is made of these ranks, and none has more than three cards
GUN_RANKS = frozenset({2, 3, 4, 5, 7, 8})
GUN_CARDS = tuple(c for c in DECK if parse_card(c).rank in GUN_RANKS)
MAX_GUN = 3
# RULES §1 "Shooting": the referee looks only at cowboys and aces, sixes (a 22's
# backfire) and 3-5-7s (a quick draw)
SHOT_RANKS = frozenset({ACE, KING, 7, 6, 5, 3})
SHOT_CARDS = tuple(c for c in DECK if parse_card(c).rank in SHOT_RANKS)
REASONS = ("tens", "aces")  # RULES §1 "End of a deal"
CHOICES = ("backfire", "quick_draw")  # C-D2: the victim's choice

# the finished shot's record: what the table needs to know afterwards
SHOT_RECORD = ("outcome", "gun", "given", "ace", "ends_deal", "reason")


@dataclass(frozen=True)
class Holding:
    """One player's cards at the end of the deal."""

    held: tuple[str, ...] = ()  # hand plus captured kings and pairs
    guns: tuple[tuple[str, ...], ...] = ()  # drawn guns
    building: tuple[str, ...] = ()  # a gun being tapped in, not yet a gun
    tens: tuple[str, ...] = ()  # laid out

    def cards(self):
        yield from self.held
        for gun in self.guns:
            yield from gun
        yield from self.building
        yield from self.tens


@dataclass(frozen=True)
class Aim:
    """A shot being set up tap by tap: who shoots, at whom, and the gun's cards so far.
    Once all three are there (the cards make a gun) the shot begins."""

    attacker: int | None = None
    victim: int | None = None
    gun: tuple[str, ...] = ()


@dataclass(frozen=True)
class Shot:
    """A shot being refereed."""

    attacker: int
    victim: int
    gun: tuple[str, ...]
    held: tuple[str, ...] = ()  # what the victim holds that the referee looks at
    has_gun_drawn: bool = True
    turned: str | None = None
    chosen: str | None = None  # C-D2
    given: str | None = None  # C-D3: the king the victim gives, when several are hit
    declines_ace: bool = False  # C-D11


def _seat_arg(tap: Tap, name: str, players: tuple[str, ...]) -> int:
    value = tap.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(players):
        raise Refused(
            "%(name)s must be a seat number from 0 to %(count)s.",
            "." + name,
            name=name,
            count=len(players) - 1,
        )
    return value


def _card_value(value: object, path: str) -> str:
    try:
        card = parse_card(value)
    except CardError as exc:
        raise Refused(exc.text, path) from None
    if card.is_joker:
        raise Refused(
            "Vajoming Kauboj is played without jokers; %(card)s is not in its deck.",
            path,
            card=card,
        )
    return str(card)


def _card_arg(tap: Tap, name: str = "card") -> str:
    return _card_value(tap.get(name), f".{name}")


def _cards_arg(tap: Tap, name: str) -> tuple[str, ...]:
    raw = tap.get(name)
    if not isinstance(raw, list) or not raw or len(raw) > MAX_GUN:
        raise Refused("%(name)s must list the gun's cards (two or three).", "." + name, name=name)
    cards = tuple(_card_value(c, f".{name}[{i}]") for i, c in enumerate(raw))
    if len(set(cards)) < len(cards):
        raise Refused("A gun cannot hold one card twice.", "." + name)
    return cards


def _bool_arg(tap: Tap, name: str) -> bool:
    value = tap.get(name)
    if not isinstance(value, bool):
        raise Refused("%(name)s must be true or false.", "." + name, name=name)
    return value


def _choice_arg(tap: Tap, name: str, options: tuple[str, ...]) -> str:
    value = tap.get(name)
    if value not in options:
        raise Refused(
            "%(name)s must be one of %(options)s.",
            "." + name,
            name=name,
            options=", ".join(options),
        )
    return value


def _gun(cards) -> tuple[str | None, str]:
    """The gun these cards make (the engine's kind) and its reason."""
    return engine.gun_kind([parse_card(c) for c in cards])


# a shot's roles, as a sentence names them
ROLES = {"attacker": N_("attacker"), "victim": N_("victim")}


@dataclass(frozen=True)
class _Reason:
    """A finished shot's reason in its record, said in the language of whoever reads
    the record (the referee's verdict on the board as it was then)."""

    state: Any = field(compare=False, repr=False)
    shot: Shot

    def __str__(self) -> str:
        return self.state._verdict(self.shot).get("reason", "")


# each action → the arguments it takes (anything else is refused, so typos never pass)
ACTIONS: dict[str, tuple[str, ...]] = {
    "marriage": ("seat", "suit"),
    "withdraw_marriage": ("seat", "suit"),
    "hold": ("seat", "card"),
    "unhold": ("seat", "card"),
    "build": ("seat", "card"),
    "unbuild": ("seat", "card"),
    "undraw": ("seat", "gun"),
    "lay": ("seat", "card"),
    "unlay": ("seat", "card"),
    "end": ("seat", "reason"),
    "ace_on_table": ("card",),
    "ace_off_table": ("card",),
    "shoot": ("attacker", "victim", "gun"),
    "aim": ("role", "seat"),
    "load": ("card",),
    "unload": ("card",),
    "victim_gun": ("seat", "drawn"),
    "victim_holds": ("seat", "card"),
    "victim_lacks": ("seat", "card"),
    "turn": ("seat", "card"),
    "choose": ("seat", "outcome"),
    "give": ("seat", "card"),
    "take_ace": ("seat", "take"),
    "shot_over": (),
    "cancel_shot": (),
}


@dataclass(frozen=True)
class CowboyDeal(Checks):
    """One Wyoming Cowboy deal, from its first tap to its closing ``cowboy-deal``.

    >>> from scorekeeper.games.play import replay
    >>> deal = CowboyDeal.start(["Ana", "Bojan", "Ceca"], {})
    >>> deal.to_json()["next"]["step"]
    'play'
    >>> deal = replay(deal, [
    ...     {"id": "m1", "action": "marriage", "seat": 0, "suit": "H"},
    ...     {"id": "s1", "action": "shoot", "attacker": 1, "victim": 2, "gun": ["4S", "5S"]},
    ...     {"id": "s2", "action": "victim_holds", "seat": 2, "card": "KD"},
    ...     {"id": "s3", "action": "turn", "seat": 1, "card": "7D"},
    ... ])
    >>> state = deal.to_json()
    >>> state["marriages"][0]["points"], state["shot"]["verdict"]["outcome"], state["turn"]
    (25, 'dodge', 2)
    >>> state = replay(deal, [{"id": "s4", "action": "shot_over"}]).to_json()
    >>> state["aces_on_table"], state["shots"][0]["outcome"], state["shot"]
    (['AS', 'AH', 'AC'], 'dodge', None)
    >>> deal.apply(Tap("x", "marriage", (("seat", 1), ("suit", "H")))).to_json()
    Traceback (most recent call last):
    ...
    scorekeeper.games.play.Refused: The K+Q of hearts was already shown this deal; a marriage of one suit can be shown only once per deal (C-D1).
    """

    game: ClassVar[str] = "cowboy"

    players: tuple[str, ...]
    house_rules: tuple[tuple[str, bool], ...]
    holdings: tuple[Holding, ...]
    marriages: tuple[tuple[int, str], ...] = ()  # (seat, suit), in the order shown
    aces: tuple[str, ...] = ACES  # still on the table
    shot: Shot | None = None
    aim: Aim | None = None  # a shot being set up
    shots: tuple[tuple[Shot, tuple[tuple[str, Any], ...]], ...] = ()  # with their records
    end: tuple[int, str] | None = None  # (seat of the ender, reason)
    _cache: dict = field(default_factory=dict, init=False, compare=False, repr=False)

    # ------------------------------------------------------------ protocol

    @classmethod
    def start(cls, players: object, settings: object = None) -> CowboyDeal:
        GAME.check_players(v.array(players, "players"))  # the count, in the game's words
        names = v.players(players, "players", GAME.min_players, GAME.max_players)
        if settings is None:
            settings = {}
        if not isinstance(settings, Mapping):
            raise RuleError("settings must be an object.", "settings")
        clean = GAME.clean_settings(dict(settings))
        rules = tuple((key, bool(clean[key])) for key in engine.HOUSE_RULES)
        return cls(tuple(names), rules, tuple(Holding() for _ in names))

    def apply(self, tap: Tap) -> CowboyDeal:
        allowed = ACTIONS.get(tap.action)
        if allowed is None:
            raise no_such_tap(self.game, tap.action, ACTIONS)
        for name, _value in tap.args:
            if name not in allowed:
                listed = ", ".join(allowed) or "none"
                raise Refused(
                    "Unknown argument “%(name)s” (allowed here: %(listed)s).",
                    "." + name,
                    name=quotable(name),
                    listed=listed,
                )
        for name in allowed:
            if tap.get(name) is None:
                raise Refused(
                    "The tap “%(action)s” needs “%(name)s”.",
                    "." + name,
                    action=quotable(tap.action),
                    name=quotable(name),
                )
        try:
            return getattr(self, f"_{tap.action}")(tap)
        except Refused:
            raise
        except RuleError as exc:  # the engine's own refusal, e.g. C-D1
            raise Refused(exc.text, exc.path) from None

    # ------------------------------------------------------------ marriages (C-D1)

    def _marriage(self, tap: Tap) -> CowboyDeal:
        seat = _seat_arg(tap, "seat", self.players)
        suit = _choice_arg(tap, "suit", SUITS)
        if (seat, suit) in self.marriages:
            return self  # shown already: the player's intent holds
        engine.verify_marriage(suit, [s for _, s in self.marriages], ".suit")
        return replace(self, marriages=(*self.marriages, (seat, suit)))

    def _withdraw_marriage(self, tap: Tap) -> CowboyDeal:
        seat = _seat_arg(tap, "seat", self.players)
        suit = _choice_arg(tap, "suit", SUITS)
        rest = tuple(m for m in self.marriages if m != (seat, suit))
        return replace(self, marriages=rest)

    # ------------------------------------------------------------ holdings

    def _where(self, card: str) -> tuple[int, str] | None:
        """(seat, zone) of a card in the holdings, or None."""
        for seat, h in enumerate(self.holdings):
            if card in h.held:
                return seat, "held"
            if card in h.building or any(card in g for g in h.guns):
                return seat, "gun"
            if card in h.tens:
                return seat, "tens"
        return None

    def _place(self, seat: int, zone: str, card: str) -> None:
        """Refuse a card that already lies somewhere else (one deck: RULES §0)."""
        where = self._where(card)
        if where is not None and where != (seat, zone):
            owner, there = where
            label = {"held": N_("hand"), "gun": N_("guns"), "tens": N_("laid-out 10s")}[there]
            raise Refused(
                "%(card)s is already in %(owner)s's %(label)s.",
                ".card",
                card=card,
                owner=self.players[owner],
                label=Text(label),
            )

    def _with(self, seat: int, **changes) -> CowboyDeal:
        holdings = list(self.holdings)
        holdings[seat] = replace(holdings[seat], **changes)
        return replace(self, holdings=tuple(holdings))

    def _hold(self, tap: Tap) -> CowboyDeal:
        seat, card = _seat_arg(tap, "seat", self.players), _card_arg(tap)
        h = self.holdings[seat]
        if card in h.held:
            return self
        self._place(seat, "held", card)
        state = self._with(seat, held=(*h.held, card))
        if card in self.aces:  # a held ace has left the table (RULES §1 "Cowboys")
            state = replace(state, aces=tuple(a for a in self.aces if a != card))
        return state

    def _unhold(self, tap: Tap) -> CowboyDeal:
        seat, card = _seat_arg(tap, "seat", self.players), _card_arg(tap)
        h = self.holdings[seat]
        return self._with(seat, held=tuple(c for c in h.held if c != card))

    def _build(self, tap: Tap) -> CowboyDeal:
        """A card of the gun being tapped in; once the cards make a gun it is drawn at
        once (no gun is part of a bigger one)."""
        seat, card = _seat_arg(tap, "seat", self.players), _card_arg(tap)
        h = self.holdings[seat]
        if card in h.building or any(card in g for g in h.guns):
            return self
        if parse_card(card).rank not in GUN_RANKS:
            raise Refused("%(card)s is never part of a gun (RULES §1 “Guns”).", ".card", card=card)
        self._place(seat, "gun", card)
        if len(h.building) >= MAX_GUN:
            raise Refused(
                "A gun has at most %(most)s cards, and %(cards)s are no gun: take one out first.",
                ".card",
                most=MAX_GUN,
                cards=" ".join(h.building),
            )
        building = (*h.building, card)
        if _gun(building)[0] is not None:
            return self._with(seat, guns=(*h.guns, building), building=())
        return self._with(seat, building=building)

    def _unbuild(self, tap: Tap) -> CowboyDeal:
        seat, card = _seat_arg(tap, "seat", self.players), _card_arg(tap)
        h = self.holdings[seat]
        return self._with(seat, building=tuple(c for c in h.building if c != card))

    def _undraw(self, tap: Tap) -> CowboyDeal:
        seat, cards = _seat_arg(tap, "seat", self.players), set(_cards_arg(tap, "gun"))
        h = self.holdings[seat]
        return self._with(seat, guns=tuple(g for g in h.guns if set(g) != cards))

    def _lay(self, tap: Tap) -> CowboyDeal:
        seat, card = _seat_arg(tap, "seat", self.players), _card_arg(tap)
        h = self.holdings[seat]
        if card in h.tens:
            return self
        if card not in TENS:
            raise Refused("Only 10s are laid out; %(card)s is not a 10.", ".card", card=card)
        self._place(seat, "tens", card)
        return self._with(seat, tens=(*h.tens, card))

    def _unlay(self, tap: Tap) -> CowboyDeal:
        seat, card = _seat_arg(tap, "seat", self.players), _card_arg(tap)
        h = self.holdings[seat]
        return self._with(seat, tens=tuple(c for c in h.tens if c != card))

    # ------------------------------------------------------------ the end, the aces

    def _no_shot(self, what: str) -> None:
        if self.shot is not None:
            raise Refused(
                "A shot is being refereed: finish or cancel it before %(what)s.",
                ".action",
                what=Text(what),
            )

    def _end(self, tap: Tap) -> CowboyDeal:
        seat = _seat_arg(tap, "seat", self.players)
        reason = _choice_arg(tap, "reason", REASONS)
        self._no_shot(N_("ending the deal"))
        return replace(self, end=(seat, reason), aim=None)

    def _ace_arg(self, tap: Tap) -> str:
        card = _card_arg(tap)
        if card not in ACES:
            raise Refused("Only aces lie on the table; %(card)s is not an ace.", ".card", card=card)
        return card

    def _ace_on_table(self, tap: Tap) -> CowboyDeal:
        card = self._ace_arg(tap)
        if card in self.aces:
            return self
        if self.shot is not None and card in self.shot.held:
            raise Refused("The victim of this shot holds %(card)s.", ".card", card=card)
        if self._where(card) is not None:
            raise Refused(
                "%(name)s holds %(card)s.",
                ".card",
                name=self.players[self._where(card)[0]],
                card=card,
            )
        return replace(self, aces=tuple(a for a in ACES if a in self.aces or a == card))

    def _ace_off_table(self, tap: Tap) -> CowboyDeal:
        card = self._ace_arg(tap)
        return replace(self, aces=tuple(a for a in self.aces if a != card))

    # ------------------------------------------------------------ the shot

    def _shoot(self, tap: Tap) -> CowboyDeal:
        attacker = _seat_arg(tap, "attacker", self.players)
        victim = _seat_arg(tap, "victim", self.players)
        gun = _cards_arg(tap, "gun")
        if self.end is not None:
            raise Refused("The deal has ended: nobody shoots any more.", ".action")
        self._no_shot(N_("the next one"))
        if attacker == victim:
            raise Refused("A cowboy cannot shoot at himself.", ".victim")
        kind, why = _gun(gun)
        if kind is None:
            raise Refused(why, ".gun")
        return replace(self, shot=Shot(attacker, victim, gun), aim=None)

    def _aiming(self) -> Aim:
        if self.end is not None:
            raise Refused("The deal has ended: nobody shoots any more.", ".action")
        self._no_shot(N_("the next one"))
        return self.aim or Aim()

    def _aimed(self, aim: Aim) -> CowboyDeal:
        """The aim as tapped; once it names both players and its cards make a gun, the
        shot begins (as ``shoot``)."""
        if aim.attacker is not None and aim.victim is not None and _gun(aim.gun)[0]:
            return replace(self, shot=Shot(aim.attacker, aim.victim, aim.gun), aim=None)
        return replace(self, aim=aim)

    def _aim(self, tap: Tap) -> CowboyDeal:
        role = _choice_arg(tap, "role", ("attacker", "victim"))
        seat = _seat_arg(tap, "seat", self.players)
        aim = self._aiming()
        other = "victim" if role == "attacker" else "attacker"
        if getattr(aim, role) == seat:
            return self
        changes = {role: seat}
        if getattr(aim, other) == seat:  # a cowboy never shoots at himself: the other goes
            changes[other] = None
        return self._aimed(replace(aim, **changes))

    def _load(self, tap: Tap) -> CowboyDeal:
        card = _card_arg(tap)
        aim = self._aiming()
        if card in aim.gun:
            return self
        if parse_card(card).rank not in GUN_RANKS:
            raise Refused("%(card)s is never part of a gun (RULES §1 “Guns”).", ".card", card=card)
        if len(aim.gun) >= MAX_GUN:
            raise Refused(
                "A gun has at most %(most)s cards, and %(cards)s are no gun: take one out first.",
                ".card",
                most=MAX_GUN,
                cards=" ".join(aim.gun),
            )
        return self._aimed(replace(aim, gun=(*aim.gun, card)))

    def _unload(self, tap: Tap) -> CowboyDeal:
        card = _card_arg(tap)
        aim = self._aiming()
        if card not in aim.gun:
            return self
        return self._aimed(replace(aim, gun=tuple(c for c in aim.gun if c != card)))

    def _current(self, tap: Tap, name: str = "seat", role: str = "victim") -> Shot:
        """The shot in progress; the tap must name its ``role``'s seat."""
        if self.shot is None:
            raise Refused("No shot is being refereed: tap who shoots at whom first.", ".action")
        seat = _seat_arg(tap, name, self.players)
        expected = getattr(self.shot, role)
        if seat != expected:
            raise Refused(
                "In this shot the %(role)s is %(expected)s, not %(seat)s.",
                "." + name,
                role=Text(ROLES[role]),
                expected=self.players[expected],
                seat=self.players[seat],
            )
        return self.shot

    def _reshot(self, shot: Shot) -> CowboyDeal:
        return replace(self, shot=shot)

    def _revictim(self, shot: Shot, **changes) -> CowboyDeal:
        """What the victim holds changed: the choices he made on the old cards go."""
        return self._reshot(replace(shot, chosen=None, given=None, declines_ace=False, **changes))

    def _victim_gun(self, tap: Tap) -> CowboyDeal:
        shot = self._current(tap)
        drawn = _bool_arg(tap, "drawn")
        return self if drawn == shot.has_gun_drawn else self._revictim(shot, has_gun_drawn=drawn)

    def _victim_holds(self, tap: Tap) -> CowboyDeal:
        shot = self._current(tap)
        card = _card_arg(tap)
        if card in shot.held:
            return self
        if parse_card(card).rank not in SHOT_RANKS:
            raise Refused(
                "%(card)s plays no part in a shot: the referee looks at kings, aces, sixes and 3-5-7s.",
                ".card",
                card=card,
            )
        if card in shot.gun or card == shot.turned:
            raise Refused("%(card)s is already used in this shot.", ".card", card=card)
        state = self._revictim(shot, held=(*shot.held, card))
        if card in self.aces:  # the victim holds it, so it has left the table
            state = replace(state, aces=tuple(a for a in self.aces if a != card))
        return state

    def _victim_lacks(self, tap: Tap) -> CowboyDeal:
        shot = self._current(tap)
        card = _card_arg(tap)
        if card not in shot.held:
            return self
        return self._revictim(shot, held=tuple(c for c in shot.held if c != card))

    def _turn(self, tap: Tap) -> CowboyDeal:
        shot = self._current(tap, role="attacker")
        card = _card_arg(tap)
        if self._verdict(replace(shot, turned=None)).get("outcome") != "turn_card":
            raise Refused("This shot is decided without turning a card.", ".action")
        if parse_card(card).rank == ACE:
            try:  # C-D10: the engine refuses a turned ace, with its reason
                engine.shot({**self._shot_request(shot), "turned": card})
            except RuleError as exc:
                raise Refused(exc.text, ".card") from None
        if card in shot.gun or card in shot.held or card in self.aces:
            raise Refused("%(card)s is already used in this shot.", ".card", card=card)
        if card == shot.turned:
            return self
        return self._reshot(replace(shot, turned=card, chosen=None, given=None, declines_ace=False))

    def _choose(self, tap: Tap) -> CowboyDeal:
        shot = self._current(tap)
        outcome = _choice_arg(tap, "outcome", CHOICES)
        if self._verdict(replace(shot, chosen=None)).get("outcome") != "choice":
            raise Refused("The victim has no choice to make in this shot (C-D2).", ".action")
        return self._reshot(replace(shot, chosen=outcome))

    def _give(self, tap: Tap) -> CowboyDeal:
        shot = self._current(tap)
        card = _card_arg(tap)
        verdict = self._verdict(shot)
        candidates = [c[0] for c in verdict.get("candidates", [])]
        if verdict.get("outcome") != "hit" or len(candidates) < 2:
            raise Refused("The victim has no cowboy to pick in this shot (C-D3).", ".action")
        if card not in candidates:
            raise Refused(
                "%(card)s is not hit; the victim gives one of %(candidates)s.",
                ".card",
                card=card,
                candidates=", ".join(candidates),
            )
        return self._reshot(replace(shot, given=card))

    def _take_ace(self, tap: Tap) -> CowboyDeal:
        shot = self._current(tap)
        take = _bool_arg(tap, "take")
        if self._verdict(replace(shot, declines_ace=False)).get("outcome") != "dodge":
            raise Refused("Only a dodging victim is offered an ace (C-D11).", ".action")
        return self._reshot(replace(shot, declines_ace=not take))

    def _shot_over(self, tap: Tap) -> CowboyDeal:
        if self.shot is None:
            raise Refused("No shot is being refereed.", ".action")
        step = self._shot_step()
        if step["step"] != "shot_over":
            raise Refused("This shot is not over yet: %(step)s", ".action", step=step["text"])
        record = self._record(self.shot)
        state = replace(self, shot=None, shots=(*self.shots, (self.shot, record)))
        ace = dict(record)["ace"]
        if ace:  # the dodging victim took it from the table
            state = replace(state, aces=tuple(a for a in self.aces if a != ace))
        if dict(record)["ends_deal"]:  # RULES §1 step 5: the attacker ended the deal
            state = replace(state, end=(self.shot.attacker, "aces"))
        return state

    def _cancel_shot(self, tap: Tap) -> CowboyDeal:
        if self.shot is None and self.aim is None:
            return self
        return replace(self, shot=None, aim=None)

    # ------------------------------------------------------------ the referee

    def _shot_request(self, shot: Shot) -> dict:
        """The ``cowboy-shot`` request of a shot (CONTRACT.md)."""
        request = {
            "gun": list(shot.gun),
            "victim": {"held": list(shot.held), "has_gun_drawn": shot.has_gun_drawn},
            "aces_on_table": list(self.aces),
        }
        if shot.declines_ace:
            request["declines_ace"] = True
        return request

    def _verdict(self, shot: Shot) -> dict:
        """The engine's verdict on a shot: its answer (with the victim's choice, C-D2),
        or ``{"error": …}`` while what was tapped cannot be judged."""
        key = ("verdict", shot, speaking())  # its reason is a sentence in this language
        if key not in self._cache:
            self._cache[key] = self._judge(shot)
        return self._cache[key]

    def _judge(self, shot: Shot) -> dict:
        request = self._shot_request(shot)
        try:
            answer = engine.shot(request)
            if answer["outcome"] == "turn_card" and shot.turned:
                answer = engine.shot({**request, "turned": shot.turned})
        except RuleError as exc:
            return {"error": {"message": exc.message, "path": exc.path}}
        if answer["outcome"] == "choice" and shot.chosen:
            answer = {**answer, "outcome": shot.chosen, "chosen": True}
        return answer

    def _record(self, shot: Shot) -> tuple[tuple[str, Any], ...]:
        verdict = self._verdict(shot)
        candidates = verdict.get("candidates") or []
        given = (
            shot.given.split() if shot.given else (candidates[0] if len(candidates) == 1 else [])
        )
        values = {
            "outcome": verdict["outcome"],
            "gun": verdict.get("gun"),
            "given": tuple(given),
            "ace": verdict.get("ace") if verdict["outcome"] == "dodge" else None,
            "ends_deal": bool(verdict.get("ends_deal")),
            "reason": _Reason(self, shot),
        }
        return tuple((key, values[key]) for key in SHOT_RECORD)

    def _shot_step(self) -> dict:
        """The next step of the shot in progress, and whose it is."""
        shot = self.shot
        attacker, victim = self.players[shot.attacker], self.players[shot.victim]
        verdict = self._verdict(shot)
        if "error" in verdict:
            return {"step": "shot_fix", "text": verdict["error"]["message"], "turn": None}
        outcome = verdict["outcome"]
        if outcome == "turn_card":
            text = gettext("%(attacker)s turns the top stock card: which is it?", attacker=attacker)
            return {"step": "turn", "text": text, "turn": shot.attacker}
        if outcome == "choice":
            text = gettext("%(victim)s chooses: a backfire or a quick draw (C-D2).", victim=victim)
            return {"step": "choose", "text": text, "turn": shot.victim}
        if outcome == "hit" and len(verdict["candidates"]) > 1 and shot.given is None:
            text = gettext(
                "%(victim)s picks the cowboy that goes to %(attacker)s (C-D3).",
                victim=victim,
                attacker=attacker,
            )
            return {"step": "give", "text": text, "turn": shot.victim}
        # Translators: %(reason)s is the referee's sentence on the shot
        text = gettext("%(reason)s Tap when the shot is over.", reason=verdict["reason"])
        turn = shot.victim if outcome == "dodge" else None  # C-D11: he may leave the ace
        return {"step": "shot_over", "text": text, "turn": turn}

    # ------------------------------------------------------------ the closing request

    def closing_request(self) -> dict:
        """The ``cowboy-deal`` request the taps describe (CONTRACT.md); a gun being
        tapped in goes in as a drawn gun, so the engine says what is wrong with it."""
        names = self.players
        held, guns, tens = {}, {}, {}
        for name, h in zip(names, self.holdings, strict=True):
            held[name] = list(h.held)
            drawn = [list(g) for g in h.guns] + ([list(h.building)] if h.building else [])
            if drawn:
                guns[name] = drawn
            if h.tens:
                tens[name] = list(h.tens)
        by, reason = self.end if self.end else (None, None)
        return {
            "players": list(names),
            "end": {"by": names[by] if by is not None else None, "reason": reason},
            "shown_marriages": [{"player": names[s], "suit": suit} for s, suit in self.marriages],
            "held": held,
            "guns": guns,
            "tens": tens,
            "house_rules": dict(self.house_rules),
        }

    def _scored(self) -> tuple[dict | None, dict | None]:
        """(the engine's score, None) or (None, its refusal) for the closing request."""
        key = ("scored", speaking())  # a refusal is a sentence in this language
        if key not in self._cache:
            try:
                self._cache[key] = (engine.end_of_deal(self.closing_request()), None)
            except RuleError as exc:
                self._cache[key] = (None, {"message": exc.message, "path": exc.path})
        return self._cache[key]

    @property
    def complete(self) -> bool:
        building = any(h.building for h in self.holdings)
        return (
            self.end is not None
            and self.shot is None
            and not building
            and self._scored()[0] is not None
        )

    # ------------------------------------------------------------ what a screen shows

    def _next(self) -> dict:
        if self.shot is not None:
            return {**self._shot_step(), "phase": "shot"}
        if self.aim is not None:
            text = gettext("Tap who shoots, at whom, and the cards of the gun.")
            return {"phase": "shot", "step": "aim", "text": text, "turn": None}
        if self.end is None:
            text = gettext("Show marriages and referee shots; tap who ended the deal when it ends.")
            return {"phase": "play", "step": "play", "text": text, "turn": None}
        for name, h in zip(self.players, self.holdings, strict=True):
            if h.building:
                why = _gun(h.building)[1]
                # Translators: %(cards)s are card codes (4S 5H), %(why)s says why
                text = gettext(
                    "%(name)s's gun %(cards)s is not complete: %(why)s",
                    name=name,
                    cards=" ".join(h.building),
                    why=why,
                )
                return {"phase": "holdings", "step": "gun", "text": text, "turn": None}
        score, problem = self._scored()
        if problem is not None:
            text = gettext("Enter what each player holds. %(problem)s", problem=problem["message"])
            return {"phase": "holdings", "step": "holdings", "text": text, "turn": None}
        text = gettext("Every player's cards make a valid deal: close it, or tap more cards.")
        return {"phase": "holdings", "step": "close", "text": text, "turn": None}

    def legal(self) -> list[dict]:
        """The taps that may come next: each action with its argument choices; every
        combination of the listed choices is a tap the state takes."""
        seats = list(range(len(self.players)))
        used = {c for h in self.holdings for c in h.cards()}
        free = [c for c in DECK if c not in used]
        out: list[dict] = []

        def add(action: str, **choices) -> None:
            if all(choices.values()) or not choices:
                out.append({"action": action, **choices})

        shown = {suit for _, suit in self.marriages}
        add("marriage", seat=seats, suit=[s for s in SUITS if s not in shown])
        for seat, suit in self.marriages:
            add("withdraw_marriage", seat=[seat], suit=[suit])
        add("hold", seat=seats, card=free)
        add(
            "build",
            seat=[s for s in seats if len(self.holdings[s].building) < MAX_GUN],
            card=[c for c in free if c in GUN_CARDS],
        )
        add("lay", seat=seats, card=[c for c in free if c in TENS])
        for seat, h in enumerate(self.holdings):
            add("unhold", seat=[seat], card=list(h.held))
            add("unbuild", seat=[seat], card=list(h.building))
            add("undraw", seat=[seat], gun=[list(g) for g in h.guns])
            add("unlay", seat=[seat], card=list(h.tens))
        not_back = set(self.shot.held) if self.shot else set()
        not_back |= used
        add("ace_on_table", card=[a for a in ACES if a not in self.aces and a not in not_back])
        add("ace_off_table", card=list(self.aces))
        if self.shot is None:
            add("end", seat=seats, reason=list(REASONS))
            if self.end is None:
                aim = self.aim or Aim()
                add("aim", role=["attacker", "victim"], seat=seats)
                if len(aim.gun) < MAX_GUN:
                    add("load", card=[c for c in GUN_CARDS if c not in aim.gun])
                add("unload", card=list(aim.gun))
                if self.aim is not None:
                    out.append({"action": "cancel_shot"})
                for attacker in seats:
                    # the gun's cards are too many to list: any gun (RULES §1 "Guns")
                    out.append(
                        {
                            "action": "shoot",
                            "attacker": [attacker],
                            "victim": [s for s in seats if s != attacker],
                            "gun": None,
                        }
                    )
            return out
        out.extend(self._shot_legal())
        return out

    def _shot_legal(self) -> list[dict]:
        shot = self.shot
        victim, attacker = [shot.victim], [shot.attacker]
        out = [
            {"action": "cancel_shot"},
            {"action": "victim_gun", "seat": victim, "drawn": [True, False]},
        ]
        taken = set(shot.gun) | {shot.turned}
        cards = [c for c in SHOT_CARDS if c not in taken and c not in shot.held]
        if cards:
            out.append({"action": "victim_holds", "seat": victim, "card": cards})
        if shot.held:
            out.append({"action": "victim_lacks", "seat": victim, "card": list(shot.held)})
        first = self._verdict(replace(shot, turned=None, chosen=None, given=None))
        if first.get("outcome") == "turn_card":
            blocked = set(shot.gun) | set(shot.held) | set(self.aces)
            turnable = [c for c in DECK if parse_card(c).rank != ACE and c not in blocked]
            out.append({"action": "turn", "seat": attacker, "card": turnable})
        verdict = self._verdict(replace(shot, chosen=None))
        if verdict.get("outcome") == "choice":
            out.append({"action": "choose", "seat": victim, "outcome": list(CHOICES)})
        candidates = [c[0] for c in verdict.get("candidates", [])]
        if verdict.get("outcome") == "hit" and len(candidates) > 1:
            out.append({"action": "give", "seat": victim, "card": candidates})
        if self._verdict(replace(shot, declines_ace=False)).get("outcome") == "dodge":
            out.append({"action": "take_ace", "seat": victim, "take": [True, False]})
        if self._shot_step()["step"] == "shot_over":
            out.append({"action": "shot_over"})
        return out

    def _aim_json(self) -> dict | None:
        aim = self.aim
        if aim is None:
            return None
        kind, why = _gun(aim.gun)
        return {
            "attacker": aim.attacker,
            "victim": aim.victim,
            "gun": list(aim.gun),
            "gun_kind": kind,
            "gun_name": engine.GUN_NAMES.get(kind),
            "reason": why,
        }

    def _shot_json(self) -> dict | None:
        shot = self.shot
        if shot is None:
            return None
        kind, why = _gun(shot.gun)
        verdict = self._verdict(shot)
        return {
            "attacker": shot.attacker,
            "victim": shot.victim,
            "gun": list(shot.gun),
            "gun_kind": kind,
            "gun_name": engine.GUN_NAMES.get(kind),
            "held": list(shot.held),
            "has_gun_drawn": shot.has_gun_drawn,
            "turned": shot.turned,
            "chosen": shot.chosen,
            "given": shot.given,
            "declines_ace": shot.declines_ace,
            "request": self._shot_request(shot),
            "verdict": None if "error" in verdict else verdict,
            "error": verdict.get("error"),
        }

    def to_json(self) -> dict:
        names = self.players
        step = self._next()
        score, problem = self._scored()
        marriages = []
        for i, (seat, suit) in enumerate(self.marriages):
            earlier = [{"player": names[s], "suit": x} for s, x in self.marriages[:i]]
            points = engine.marriage(
                {"players": list(names), "player": names[seat], "suit": suit, "shown": earlier}
            )["points"][names[seat]]
            marriages.append(
                {
                    "seat": seat,
                    "player": names[seat],
                    "suit": suit,
                    "cards": [f"K{suit}", f"Q{suit}"],
                    "points": points,
                }
            )
        holdings = []
        for seat, h in enumerate(self.holdings):
            guns = []
            for g in h.guns:
                kind = _gun(g)[0]
                guns.append({"cards": list(g), "gun": kind, "name": engine.GUN_NAMES[kind]})
            building = (
                {"cards": list(h.building), "reason": _gun(h.building)[1]} if h.building else None
            )
            holdings.append(
                {
                    "seat": seat,
                    "player": names[seat],
                    "held": list(h.held),
                    "guns": guns,
                    "building": building,
                    "tens": list(h.tens),
                }
            )
        shots = [
            {
                "attacker": s.attacker,
                "victim": s.victim,
                "gun_cards": list(s.gun),
                **{
                    k: list(x) if isinstance(x, tuple) else str(x) if k == "reason" else x
                    for k, x in record
                },
            }
            for s, record in self.shots
        ]
        complete = self.complete
        end = None
        if self.end is not None:
            end = {"seat": self.end[0], "player": names[self.end[0]], "reason": self.end[1]}
        return {
            "game": self.game,
            "players": list(names),
            "house_rules": dict(self.house_rules),
            "phase": step["phase"],
            "next": {"step": step["step"], "text": step["text"]},
            "turn": step["turn"],
            "legal": self.legal(),
            "marriages": marriages,
            "suits_shown": [suit for _, suit in self.marriages],
            "holdings": holdings,
            "aces_on_table": list(self.aces),
            "shot": self._shot_json(),
            "aim": self._aim_json(),
            "shots": shots,
            "end": end,
            "score": score,
            "problem": problem if self.end is not None else None,
            "complete": complete,
            "closing": {"kind": "cowboy-deal", "request": self.closing_request()}
            if complete
            else None,
        }


def legal_taps(entry: dict) -> list[dict]:
    """Every tap one ``legal`` entry stands for (an argument listed as ``None`` has
    too many choices to list and is left out)."""
    names = [k for k in entry if k != "action" and entry[k] is not None]
    combos = itertools.product(*(entry[k] for k in names))
    return [{"action": entry["action"], **dict(zip(names, combo, strict=True))} for combo in combos]


__all__ = ["Aim", "CowboyDeal", "Holding", "Shot", "legal_taps"]
