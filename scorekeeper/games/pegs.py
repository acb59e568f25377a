"""Arizona Pegs and Jokers (RULES.md §5): the board, its notation and the legal moves.

Modelled on python-chess: a :class:`Board` holds the pegs, ``legal_moves`` lists what a
card can do, ``is_legal`` / ``verify_move`` judge a proposed move, ``push`` plays one
and ``pop`` takes it back (a move stack). Positions are written ``S``, ``T<i>`` and
``H<h>``; a step is one peg moved by one card part (``0 T8-T11``).

>>> board = Board(4, {0: ["T8", "S", "S", "S", "S"], 1: ["S"] * 5, 2: ["S"] * 5, 3: ["S"] * 5})
>>> [str(m) for m in board.legal_moves(0, "5H")]
['0 5H: 0 T8-T13']
>>> board.push(Move.parse("0 5H: 0 T8-T13", board.length)).steps[0].to == parse_position("T13")
True
>>> board.positions(0)
['S', 'S', 'S', 'S', 'T13']
>>> str(board.pop())
'0 5H: 0 T8-T13'

Internally a position is an int: ``START`` (-1), a track hole ``0 … L-1``, or a home
hole ``H<h>`` stored as ``-1 - h`` (H1 = -2 … H5 = -6), so "on the track" is ``pos >= 0``.
The generator is built for speed (the bench boards list up to 3,269 moves): one
occupancy array for the track, no board copies per candidate, the first part of a split
applied in place and undone, duplicates dropped by the net change they make.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple

from .. import validate as v
from ..cards import ACE, JACK, JOKER, KING, QUEEN, RANK_TEXT, Card, CardError, parse_card
from ..errors import RuleError
from ..messages import N_, Plural, Text, gettext, quotable
from . import catalog
from .standings import Progress, Standings, names_text, rank_by

# ── the board model (P-D1) ──────────────────────────────────────────────────────

SEAT_COUNTS = (4, 6, 8)
PEGS = 5  # pegs per seat
SIDE = 18  # track holes per side: L = 18·N
LANE = 5  # home holes H1 … H5
COME_OUT = 8  # CO(s) = T(18s + 8)
IN_SPOT = 3  # IN(s) = T(18s + 3)
MAX_FORWARD = 10  # the longest forward move (K, Q, J)
BACKWARD = 8  # the 8 moves backward

START = -1
TEAM_PEGS = ("any", "own_first", "own")  # P-D2
NINE = ("split_forward", "split_back", "forward")  # P-D3
HOUSE_RULES = {"team_pegs": TEAM_PEGS, "nine": NINE}
COME_OUT_RANKS = frozenset((ACE, KING, QUEEN, JACK))


def home(h: int) -> int:
    """The position code of home hole ``H<h>``."""
    return -1 - h


def lane_number(pos: int) -> int:
    """h of a home position ``H<h>``."""
    return -1 - pos


# ── errors (all RuleError: the API turns them into message + path) ──────────────


class PegsError(RuleError):
    """Anything Pegs and Jokers refuses."""


class InvalidNotationError(PegsError):
    """A position, step or move that is not written correctly."""


class InvalidBoardError(PegsError):
    """A board that cannot happen: wrong seats, peg counts, shared holes."""


class IllegalMoveError(PegsError):
    """A well-written move the rules do not allow; the message says why."""


class Seat(int):
    """A seat number in a sentence about its pegs: said as the number (seats counted
    from 0, as the JSON has them) until :func:`with_names` says the player's name."""

    __slots__ = ()


class Seated(Text):
    """A sentence about a seat's pegs, kept in two wordings: ``numbered`` with the seat
    numbers, as the engine says it where no names are known (``scorekeeper score pegs``,
    the CONTRACT), and ``named`` around the players' names (its seats given as
    :class:`Seat`), a sentence of its own so each language words it around a name;
    :func:`with_names` picks the named one where a table's names are known."""

    __slots__ = ("named",)

    def __init__(self, numbered: Text, named: Text):
        super().__init__(numbered.msgid, **numbered.variables)
        self.named = named


def with_names(text: Text, players: Sequence[str]) -> Text:
    """``text`` with every seat it speaks of said as its player's name, the way a
    table speaks (a :class:`Seated` sentence, or one inside it as a variable).

    >>> said = Seated(
    ...     Text("Seat %(seat)s has no peg in start.", seat=2),
    ...     Text("%(player)s has no peg in start.", player=Seat(2)),
    ... )
    >>> str(said), str(with_names(said, ["Ana", "Ben", "Eva", "Jan"]))
    ('Seat 2 has no peg in start.', 'Eva has no peg in start.')
    """
    if isinstance(text, Seated) and all(
        0 <= seat < len(players) for seat in text.named.variables.values() if isinstance(seat, Seat)
    ):
        text = text.named
    variables, changed = {}, False
    for key, value in text.variables.items():
        if isinstance(value, Seat) and 0 <= value < len(players):
            value, changed = players[value], True
        elif isinstance(value, Text):
            named = with_names(value, players)
            value, changed = named, changed or named is not value
        variables[key] = value
    if not changed:
        return text
    if isinstance(text, Plural):
        return Plural(text.msgid, text.plural, text.num, **variables)
    return Text(text.msgid, **variables)


# ── notation ────────────────────────────────────────────────────────────────────

_POSITION = re.compile(r"S|([TH])([0-9]{1,4})", re.ASCII)
_MAX_LENGTH = SIDE * max(SEAT_COUNTS)
_NAMES = {START: "S", **{home(h): f"H{h}" for h in range(1, LANE + 1)}}
_NAMES.update({i: f"T{i}" for i in range(_MAX_LENGTH)})
_CODES = {name: pos for pos, name in _NAMES.items()}


def position_name(pos: int) -> str:
    """``S``, ``T<i>`` or ``H<h>``.

    >>> [position_name(p) for p in (START, 0, 17, home(1), home(5))]
    ['S', 'T0', 'T17', 'H1', 'H5']
    """
    return _NAMES[pos]


def parse_position(text: object, length: int = _MAX_LENGTH, path: str = "") -> int:
    """Read ``S``, ``T<i>`` (0 ≤ i < length) or ``H<h>`` (1 ≤ h ≤ 5), any case.

    >>> parse_position("t12"), parse_position("H2") == home(2), parse_position("S") == START
    (12, True, True)
    """
    code = _CODES.get(text) if isinstance(text, str) else None
    if code is not None and code < length:  # the canonical spelling, fast
        return code
    match = _POSITION.fullmatch(text.upper()) if isinstance(text, str) else None
    if match is None:
        if not isinstance(text, str):
            raise InvalidNotationError(
                Text("A peg position is text: S, T<hole> or H1 to H5."), path
            )
        raise InvalidNotationError(
            Text(
                "“%(text)s” is not a peg position; write S, T<hole> or H1 to H5.",
                text=quotable(text, _QUOTED),
            ),
            path,
        )
    if match.group(1) is None:
        return START
    number = int(match.group(2))
    if match.group(1) == "T":
        if number >= length:
            raise InvalidNotationError(
                Text(
                    "T%(number)s is not on this board; the track has holes T0 to T%(length)s.",
                    number=number,
                    length=length - 1,
                ),
                path,
            )
        return number
    if not 1 <= number <= LANE:
        raise InvalidNotationError(
            Text("H%(number)s does not exist; the home lane is H1 to H5.", number=number), path
        )
    return home(number)


_QUOTED = 20  # how much of a mistyped position, step or move a refusal quotes


def _card_name(card: Card) -> Text:
    """'the 7', 'a joker' — for messages."""
    if card.rank == JOKER:
        return Text("a joker")
    # Translators: %(rank)s is a rank (7, K), inside a sentence: "moves with the 7"
    return Text("the %(rank)s", rank=RANK_TEXT[card.rank])


def _card_name_first(card: Card) -> Text:
    """'The 7', 'A joker' — a card naming itself at a sentence's start (as ``capitalize``
    wrote it: 'The k')."""
    if card.rank == JOKER:
        return Text("A joker")
    # Translators: %(rank)s is a rank (7, k), at the start of a sentence
    return Text("The %(rank)s", rank=RANK_TEXT[card.rank].lower())


def _as_card(card: Card | str) -> Card:
    try:
        return parse_card(card)
    except CardError as exc:
        raise InvalidNotationError(exc.text, "card") from None


class Step(NamedTuple):
    """One peg of ``seat`` going from ``frm`` to ``to`` (position codes)."""

    seat: int
    frm: int
    to: int

    def __str__(self) -> str:
        return f"{self.seat} {_NAMES[self.frm]}-{_NAMES[self.to]}"

    def as_json(self) -> dict:
        return {"seat": self.seat, "from": _NAMES[self.frm], "to": _NAMES[self.to]}

    @classmethod
    def parse(cls, text: str, length: int = _MAX_LENGTH) -> Step:
        """``"0 T8-T11"`` → Step; ``str(step)`` gives it back.

        >>> str(Step.parse("2 t40-h3"))
        '2 T40-H3'
        """
        seat, _, way = text.strip().partition(" ") if isinstance(text, str) else ("", "", "")
        frm, _, to = way.strip().partition("-")
        if not seat.isascii() or not seat.isdigit() or not to:
            raise InvalidNotationError(
                Text(
                    "“%(text)s” is not a step; write it like 0 T8-T11.",
                    text=quotable(text, _QUOTED),
                )
            )
        return cls(int(seat), parse_position(frm, length), parse_position(to, length))

    @classmethod
    def from_json(cls, value: object, seats: int, path: str = "") -> Step:
        """A CONTRACT step ``{"seat": 0, "from": "T8", "to": "T15"}``."""
        raw = v.obj(value, path, required=("seat", "from", "to"))
        seat = v.integer(raw["seat"], v.join(path, "seat"), 0, seats - 1)
        length = SIDE * seats
        frm = parse_position(raw["from"], length, v.join(path, "from"))
        to = parse_position(raw["to"], length, v.join(path, "to"))
        return cls(seat, frm, to)


class Move(NamedTuple):
    """A card played by ``player``: its steps in playing order and the pegs it bumps,
    the first step's bumps first; ``first_bumps`` says how many of them the first step
    makes, so a screen can show each part of a split with its own bumps."""

    player: int
    card: Card
    steps: tuple[Step, ...]
    bumps: tuple[Step, ...] = ()
    first_bumps: int = 0

    def step_bumps(self) -> tuple[tuple[Step, ...], ...]:
        """Each step's own bumps, in playing order (together: ``bumps``).

        >>> board = Board(4, {0: ["T8", "T20", "S", "S", "S"], 1: ["T11", "S", "S", "S", "S"],
        ...                   2: ["S"] * 5, 3: ["T24", "S", "S", "S", "S"]})
        >>> played = board.push(Move.parse("0 7H: 0 T8-T11, 0 T20-T24", board.length))
        >>> [[str(b) for b in bumps] for bumps in played.step_bumps()]
        [['1 T11-S'], ['3 T24-S']]
        """
        if len(self.steps) < 2:
            return (self.bumps,)
        return (self.bumps[: self.first_bumps], self.bumps[self.first_bumps :])

    def __str__(self) -> str:
        return f"{self.player} {self.card}: " + ", ".join(str(s) for s in self.steps)

    def as_json(self) -> dict:
        return {
            "steps": [s.as_json() for s in self.steps],
            "bumps": [b.as_json() for b in self.bumps],
        }

    @classmethod
    def parse(cls, text: str, length: int = _MAX_LENGTH) -> Move:
        """``"0 7H: 0 T8-T11, 2 T40-T44"`` → Move (bumps are worked out when played).

        >>> str(Move.parse("0 7h: 0 T8-T11, 2 T40-T44"))
        '0 7H: 0 T8-T11, 2 T40-T44'
        """
        head, _, body = text.partition(":") if isinstance(text, str) else ("", "", "")
        player, _, card = head.strip().partition(" ")
        if not player.isascii() or not player.isdigit() or not body.strip():
            raise InvalidNotationError(
                Text(
                    "“%(text)s” is not a move; write it like 0 7H: 0 T8-T15.",
                    text=quotable(text, _QUOTED),
                )
            )
        steps = tuple(Step.parse(part, length) for part in body.split(","))
        return cls(int(player), _as_card(card), steps)


# ── the board ───────────────────────────────────────────────────────────────────


def _position_order(pos: int) -> tuple[int, int]:
    """S first, then the track by hole, then the home lane by depth (canonical listing)."""
    if pos == START:
        return (0, 0)
    return (1, pos) if pos >= 0 else (2, -pos)


def _code(seat: int, pos: int) -> int:
    """One int for (seat, position); the hot loop of ``_SplitSearch`` writes it out."""
    return seat << 8 | (pos + 8)


def _board_change(changes: Iterable[tuple]) -> tuple:
    """What a move changes: the (seat, position) codes it empties and fills, equal ones
    cancelled, each sorted. Two step lists that leave the same board make the same
    change, so moves are listed once per resulting board."""
    return _cancelled(
        [_code(seat, frm) for seat, frm, _ in changes], [_code(seat, to) for seat, _, to in changes]
    )


def _cancelled(emptied: list[int], filled: list[int]) -> tuple:
    """Drop what a move fills again after emptying it (a multiset difference)."""
    for code in filled:
        if code in emptied:  # rare: a peg moved on, or back where one of its colour left
            for again in list(filled):
                if again in emptied:
                    emptied.remove(again)
                    filled.remove(again)
            break
    emptied.sort()
    filled.sort()
    return tuple(emptied), tuple(filled)


def _as_steps(raw: Iterable[tuple]) -> tuple[Step, ...]:
    return tuple(Step._make(item) for item in raw)


def _moves_json(moves: list[tuple[tuple, tuple, int]]) -> list[dict]:
    """CONTRACT moves from (steps, bumps, first); written out by hand as a full board lists
    thousands of them."""
    names = _NAMES
    out = []
    for steps, bumps, _ in moves:
        seat, frm, to = steps[0]
        listed = [{"seat": seat, "from": names[frm], "to": names[to]}]
        if len(steps) == 2:
            seat, frm, to = steps[1]
            listed.append({"seat": seat, "from": names[frm], "to": names[to]})
        bumped = []
        for seat, frm, to in bumps:
            bumped.append({"seat": seat, "from": names[frm], "to": names[to]})
        out.append({"steps": listed, "bumps": bumped})
    return out


class Board:
    """The pegs of N = 4, 6 or 8 seats on a track of L = 18·N holes (P-D1).

    ``pegs`` maps every seat (``0`` or ``"0"``) to its five positions (``"S"``,
    ``"T12"``, ``"H3"``); without it every peg is in start. House rules: ``team_pegs``
    (P-D2) and ``nine`` (P-D3). An impossible board raises InvalidBoardError.
    """

    def __init__(
        self,
        seats: int = 4,
        pegs: Mapping | None = None,
        *,
        team_pegs: str = "any",
        nine: str = "split_forward",
    ):
        self.seats = _seat_count(seats, "seats")
        self.length = SIDE * self.seats
        self.team_pegs = v.choice(team_pegs, "house_rules.team_pegs", TEAM_PEGS)
        self.nine = v.choice(nine, "house_rules.nine", NINE)
        self.come_out = [SIDE * s + COME_OUT for s in range(self.seats)]
        self.in_spot = [SIDE * s + IN_SPOT for s in range(self.seats)]
        self.team = [s % 2 for s in range(self.seats)]
        if pegs is None:
            pegs = {s: ["S"] * PEGS for s in range(self.seats)}
        keyed = {str(k) if isinstance(k, int) else k: p for k, p in v.mapping(pegs, "pegs").items()}
        self.pegs: list[list[int]] = _parse_pegs(keyed, self.seats, "pegs")
        self.track: list[int] = [-1] * self.length  # hole → seat of the peg on it, or -1
        for seat, positions in enumerate(self.pegs):
            for pos in positions:
                if pos >= 0:
                    self.track[pos] = seat
        self._stack: list[tuple[Move, list]] = []

    # ― construction and output ―

    @classmethod
    def from_json(cls, state: object, path: str = "") -> Board:
        """A CONTRACT board state ``{"seats", "pegs", "house_rules"?}`` (extra request
        fields are the caller's business)."""
        raw = v.mapping(state, path)
        for field in ("seats", "pegs"):
            if field not in raw:
                raise InvalidBoardError(
                    Text("The field “%(key)s” is missing.", key=quotable(field)),
                    v.join(path, field),
                )
        seats = _seat_count(raw["seats"], v.join(path, "seats"))
        rules = _house_rules(raw.get("house_rules", {}), v.join(path, "house_rules"))
        pegs = v.mapping(raw["pegs"], v.join(path, "pegs"))
        return cls(seats, _checked_keys(pegs, seats, v.join(path, "pegs")), **rules)

    def to_json(self) -> dict:
        return {
            "seats": self.seats,
            "pegs": {str(s): self.positions(s) for s in range(self.seats)},
            "house_rules": {"team_pegs": self.team_pegs, "nine": self.nine},
        }

    def positions(self, seat: int) -> list[str]:
        """The seat's pegs in canonical order: S, then T by hole, then H by depth."""
        return [_NAMES[p] for p in sorted(self.pegs[seat], key=_position_order)]

    def copy(self, stack: bool = True) -> Board:
        other = Board.__new__(Board)
        other.__dict__.update(self.__dict__)
        other.pegs = [list(p) for p in self.pegs]
        other.track = list(self.track)
        other._stack = list(self._stack) if stack else []
        return other

    def key(self) -> tuple:
        """Equal for boards with the same pegs (house rules and history aside)."""
        return (self.seats, tuple(tuple(sorted(p)) for p in self.pegs))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self.key() == other.key()

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        pegs = {s: self.positions(s) for s in range(self.seats)}
        return f"Board({self.seats}, {pegs!r})"

    # ― questions about the board ―

    def winner_team(self) -> int | None:
        """The team whose every member has every peg home, else None."""
        for team in (0, 1):
            if all(p <= -2 for s in range(team, self.seats, 2) for p in self.pegs[s]):
                return team
        return None

    def movable_seats(self, player: int) -> list[int]:
        """Whose pegs ``player`` may move now (P-D2), own seat first then clockwise."""
        team = [(player + k) % self.seats for k in range(0, self.seats, 2)]
        if self.team_pegs == "any":
            return team
        if self.team_pegs == "own_first" and all(p <= -2 for p in self.pegs[player]):
            return team
        return [player]

    def verify_player(self, player: object) -> int:
        if isinstance(player, bool) or not isinstance(player, int):
            raise IllegalMoveError(Text("The player is given by seat number."), "player")
        if not 0 <= player < self.seats:
            raise IllegalMoveError(
                Text(
                    "Seat %(player)s does not exist; seats are 0 to %(seats)s.",
                    player=player,
                    seats=self.seats - 1,
                ),
                "player",
            )
        return player

    # ― legal moves ―

    def legal_moves(self, player: int, card: Card | str) -> list[Move]:
        """Every legal move of ``card``, one per distinct resulting board; each step list
        is in playing order (RULES §5)."""
        player = self.verify_player(player)
        card = _as_card(card)
        return [
            Move(player, card, _as_steps(steps), _as_steps(bumps), first)
            for steps, bumps, first in self._unique_moves(player, card)
        ]

    def all_step_lists(self, player: int, card: Card | str) -> list[Move]:
        """Every legal step list, duplicates included (a split 7 in either order…)."""
        player = self.verify_player(player)
        card = _as_card(card)
        return [
            Move(player, card, _as_steps(steps), _as_steps(bumps), first)
            for batch in self._batches(player, card)
            for steps, bumps, _, first in batch
        ]

    def has_legal_move(self, player: int, card: Card | str) -> bool:
        player = self.verify_player(player)
        return any(self._batches(player, _as_card(card)))

    def _unique_moves(self, player: int, card: Card) -> list[tuple[tuple, tuple, int]]:
        """(steps, bumps, first step's bump count) as plain tuples, the first of each
        resulting board."""
        seen: set[tuple] = set()
        unique = []
        for batch in self._batches(player, card, unique=True):
            for steps, bumps, change, first in batch:
                if change not in seen:
                    seen.add(change)
                    unique.append((steps, bumps, first))
        return unique

    def _batches(
        self, player: int, card: Card, unique: bool = False
    ) -> Iterator[list[tuple[tuple, tuple, tuple, int]]]:
        """Every legal (steps, bumps, change, first), a list at a time (a batch is cheaper
        to hand over than each candidate); steps and bumps are (seat, from, to) tuples,
        ``first`` how many of the bumps the first step makes.
        ``unique``: leave out step lists sure to repeat another's board (see
        ``_SplitSearch``)."""
        rank = card.rank
        if rank == JOKER:
            yield self._joker_moves(player)
            return
        if rank in COME_OUT_RANKS:
            yield self._come_outs(player)
        if rank == BACKWARD:
            yield self._single_moves(player, -BACKWARD)
            return
        value = _forward_value(rank)
        yield self._single_moves(player, value)
        if rank == 7 or rank == 9 and self.nine != "forward":
            back = rank == 9 and self.nine == "split_back"
            yield from self._split_moves(player, value, back, unique)

    def _come_outs(self, player: int) -> list[tuple[tuple, tuple, tuple, int]]:
        found = []
        for seat in self.movable_seats(player):
            if START in self.pegs[seat]:
                hole = self.come_out[seat]
                if self.track[hole] == seat:
                    continue
                bumps = self._landing(seat, START, hole)
                if bumps.__class__ is tuple:
                    steps = ((seat, START, hole),)
                    found.append((steps, bumps, _board_change(steps + bumps), len(bumps)))
        return found

    def _single_moves(self, player: int, distance: int) -> list[tuple[tuple, tuple, tuple, int]]:
        found = []
        for seat in self.movable_seats(player):
            for pos in self.pegs[seat]:
                if pos != START:
                    for to, bumps in self._options(seat, pos, distance):
                        steps = ((seat, pos, to),)
                        found.append((steps, bumps, _board_change(steps + bumps), len(bumps)))
        return found

    def _split_moves(
        self, player: int, value: int, back: bool, unique: bool = False
    ) -> Iterator[list[tuple[tuple, tuple, tuple, int]]]:
        """7 and 9 splits (P-D3), one batch per first part: see ``_SplitSearch``."""
        return _SplitSearch(self, player, value, back, unique).batches()

    def _joker_moves(self, player: int) -> list[tuple[tuple, tuple, tuple, int]]:
        """P-D4: onto any track hole holding another colour's peg; start pegs first."""
        seats = self.movable_seats(player)
        from_start = [s for s in seats if START in self.pegs[s]]
        if from_start:
            movers = [(s, START) for s in from_start]
        else:
            movers = [(s, p) for s in seats for p in self.pegs[s] if p >= 0]
        occupied = [(hole, occ) for hole, occ in enumerate(self.track) if occ >= 0]
        found = []
        for seat, pos in movers:
            for hole, occ in occupied:
                if occ != seat:
                    bumps = self._landing(seat, pos, hole)
                    if bumps.__class__ is tuple:
                        steps = ((seat, pos, hole),)
                        found.append((steps, bumps, _board_change(steps + bumps), len(bumps)))
        return found

    def _own(self, seat: int) -> tuple[list[int], list[int]]:
        """The seat's track holes and home-lane depths: what P-D5 forbids passing."""
        track, lane = [], []
        for pos in self.pegs[seat]:
            if pos >= 0:
                track.append(pos)
            elif pos <= -2:
                lane.append(-1 - pos)
        return track, lane

    def _options(
        self, seat: int, pos: int, distance: int, own: tuple | None = None
    ) -> list[tuple[int, tuple]]:
        """Where the peg of ``seat`` on ``pos`` may end after ``distance`` holes (negative:
        backward), each with its bumps; P-D5, P-D6 and P-D7 applied. ``own`` is
        ``self._own(seat)`` when the caller already has it (the hot loop of splits)."""
        own_track, own_lane = own or self._own(seat)
        if pos >= 0:
            if distance > 0:
                return self._forward_on_track(seat, pos, distance, own_track, own_lane)
            return self._backward(seat, pos, -distance, own_track)
        if pos == START or distance < 0:
            return []  # only a come-out or a joker moves a start peg; home never backs up
        # in the lane (P-D7): exact fit, never past a peg, never out
        here = -1 - pos
        there = here + distance
        if there > LANE:
            return []
        for depth in own_lane:
            if here < depth <= there:
                return []
        return [(-1 - there, ())]

    def _forward_on_track(
        self, seat: int, pos: int, distance: int, own_track: list[int], own_lane: list[int]
    ) -> list[tuple[int, tuple]]:
        length = self.length
        gap = length  # holes to the nearest own peg ahead (P-D5)
        for other in own_track:
            ahead = (other - pos) % length
            if 0 < ahead < gap:
                gap = ahead
        found = []
        if distance < gap:
            hole = pos + distance
            if hole >= length:
                hole -= length
            occupant = self.track[hole]
            if occupant < 0:
                found.append((hole, ()))
            elif self.team[occupant] != self.team[seat]:
                found.append((hole, ((occupant, hole, START),)))
            else:
                bumps = self._teammate_chain(seat, pos, hole)
                if bumps.__class__ is tuple:
                    found.append((hole, bumps))
        # P-D7: a move that starts on or passes the in-spot may end in H1 … H5
        to_in_spot = (self.in_spot[seat] - pos) % length
        depth = distance - to_in_spot
        if 0 < depth <= LANE and to_in_spot < gap:
            for other in own_lane:
                if other <= depth:
                    return found
            found.append((-1 - depth, ()))
        return found

    def _backward(
        self, seat: int, pos: int, distance: int, own_track: list[int]
    ) -> list[tuple[int, tuple]]:
        length = self.length
        for other in own_track:
            if 0 < (pos - other) % length <= distance:
                return []  # P-D5
        hole = (pos - distance) % length
        occupant = self.track[hole]
        if occupant < 0:
            return [(hole, ())]
        if self.team[occupant] != self.team[seat]:
            return [(hole, ((occupant, hole, START),))]
        bumps = self._teammate_chain(seat, pos, hole)
        return [(hole, bumps)] if bumps.__class__ is tuple else []

    def _landing(self, seat: int, origin: int, hole: int) -> tuple | str:
        """The bumps when a ``seat`` peg from ``origin`` lands on ``hole`` — or, when the
        landing is illegal, the reason (a str)."""
        occupant = self.track[hole]
        if occupant < 0:
            return ()
        if occupant == seat:
            return Text("%(hole)s already holds a peg of that colour.", hole=_NAMES[hole])
        if self.team[occupant] != self.team[seat]:
            return ((occupant, hole, START),)  # an opponent goes back to start
        return self._teammate_chain(seat, origin, hole)

    def _teammate_chain(self, seat: int, origin: int, hole: int) -> tuple | str:
        """A teammate bumped to its in-spot, and whoever stands there in turn (P-D6): at
        every link the arriving colour decides — an opponent of it goes to start, a
        teammate of it to its own in-spot, its own colour there makes the move illegal."""
        track, team, in_spot = self.track, self.team, self.in_spot
        now = {hole: seat}  # holes whose occupant changed during this move
        if origin >= 0:
            now[origin] = -1
        bumps = []
        bumped, at = track[hole], hole
        for _ in range(self.seats + 1):
            spot = in_spot[bumped]
            if at == spot:
                return Seated(
                    Text(
                        "The seat %(seat)s peg on %(hole)s stands on its own in-spot, "
                        "so a teammate may not land on it.",
                        seat=bumped,
                        hole=_NAMES[at],
                    ),
                    Text(
                        "%(player)s's peg on %(hole)s stands on its own in-spot, "
                        "so a teammate may not land on it.",
                        player=Seat(bumped),
                        hole=_NAMES[at],
                    ),
                )
            there = now.get(spot, track[spot])
            if there == bumped:
                return Seated(
                    Text(
                        "The seat %(seat)s peg would go to its in-spot %(hole)s, "
                        "which already holds a peg of its colour.",
                        seat=bumped,
                        hole=_NAMES[spot],
                    ),
                    Text(
                        "%(player)s's peg would go to its in-spot %(hole)s, "
                        "which already holds a peg of its colour.",
                        player=Seat(bumped),
                        hole=_NAMES[spot],
                    ),
                )
            bumps.append((bumped, at, spot))
            now[spot] = bumped
            if there < 0:
                return tuple(bumps)
            if team[there] != team[bumped]:
                bumps.append((there, spot, START))
                return tuple(bumps)
            bumped, at = there, spot
        raise AssertionError("a bump chain visits each in-spot at most once")

    # ― changing the board in place ―

    def _relocate(self, peg: tuple[int, int], to: int, bumps: tuple) -> list:
        """Move one peg (seat, slot) to ``to`` and the bumped pegs to where the bumps
        send them; return what undoes it."""
        seat, slot = peg
        final = {peg: to}
        for b_seat, b_frm, b_to in bumps:
            if b_seat == seat and b_frm == to:
                final[peg] = b_to  # the mover itself, bumped on by the chain (P-D6)
            else:
                final[b_seat, self.pegs[b_seat].index(b_frm)] = b_to
        undo = [(key, self.pegs[key[0]][key[1]]) for key in final]
        self._place(final.items())
        return undo

    def _place(self, moves: Iterable[tuple[tuple[int, int], int]]) -> None:
        moves = list(moves)
        track, pegs = self.track, self.pegs
        for (seat, slot), _ in moves:
            old = pegs[seat][slot]
            if old >= 0:
                track[old] = -1
        for (seat, slot), new in moves:
            pegs[seat][slot] = new
            if new >= 0:
                track[new] = seat

    # ― judging one proposed move: verify / can / do ―

    def verify_move(self, move: Move) -> Move:
        """Raise IllegalMoveError with the reason, or return the move with its bumps."""
        played, undo = self._play(move)
        self._undo(undo)
        return played

    def is_legal(self, move: Move) -> bool:
        try:
            self.verify_move(move)
        except RuleError:
            return False
        return True

    def push(self, move: Move) -> Move:
        """Play a legal move (refused with the reason otherwise); return it with its bumps."""
        played, undo = self._play(move)
        self._stack.append((played, undo))
        return played

    def pop(self) -> Move:
        """Take back the last pushed move."""
        if not self._stack:
            raise IndexError("pop from an empty move stack")
        played, undo = self._stack.pop()
        self._undo(undo)
        return played

    @property
    def move_stack(self) -> list[Move]:
        return [played for played, _ in self._stack]

    def _undo(self, undo: list) -> None:
        for part in reversed(undo):
            self._place(part)

    def _play(self, move: Move) -> tuple[Move, list]:
        player = self.verify_player(move.player)
        card = _as_card(move.card)
        steps = tuple(move.steps)
        _verify_step_count(card, steps, self.nine)
        undo: list = []
        bumps: list[Step] = []
        first_bumps = 0
        try:
            first_peg = None
            for index, step in enumerate(steps):
                path = f"steps[{index}]"
                peg = self._verify_peg(player, step, path)
                if index == 1 and peg == first_peg:
                    raise IllegalMoveError(
                        Text(
                            "%(card)s must be split over two different pegs.",
                            card=_card_name_first(card),
                        ),
                        path,
                    )
                more = self._verify_step(player, card, steps, index, path)
                undo.append(self._relocate(peg, step.to, more))
                bumps.extend(more)
                if index == 0:
                    first_bumps = len(more)
                first_peg = peg
        except RuleError:
            self._undo(undo)
            raise
        return Move(player, card, steps, _as_steps(bumps), first_bumps), undo

    def _verify_peg(self, player: int, step: Step, path: str) -> tuple[int, int]:
        """The (seat, slot) the step moves: a peg the player may move (P-D2) on ``frm``."""
        seat = step.seat
        if not isinstance(seat, int) or not 0 <= seat < self.seats:
            raise IllegalMoveError(
                Text("Seat %(seat)s does not exist.", seat=seat), v.join(path, "seat")
            )
        if seat not in self.movable_seats(player):
            raise IllegalMoveError(_why_not_movable(self, player, seat), v.join(path, "seat"))
        if step.frm not in self.pegs[seat]:
            if step.frm == START:
                raise IllegalMoveError(
                    Seated(
                        Text("Seat %(seat)s has no peg in start.", seat=seat),
                        Text("%(player)s has no peg in start.", player=Seat(seat)),
                    ),
                    v.join(path, "from"),
                )
            hole = _NAMES[step.frm]
            raise IllegalMoveError(
                Seated(
                    Text("Seat %(seat)s has no peg on %(hole)s.", seat=seat, hole=hole),
                    Text("%(player)s has no peg on %(hole)s.", player=Seat(seat), hole=hole),
                ),
                v.join(path, "from"),
            )
        return seat, self.pegs[seat].index(step.frm)

    def _verify_step(self, player: int, card: Card, steps: tuple, index: int, path: str) -> tuple:
        """Check one step against the card and the board; return its bumps."""
        seat, frm, to = steps[index]
        if to == START:
            raise IllegalMoveError(
                Text("A step never ends in start; only a bumped peg goes back there."),
                v.join(path, "to"),
            )
        if card.rank == JOKER:
            return self._verify_joker(player, seat, frm, to, path)
        if frm == START:
            return self._verify_come_out(card, seat, to, path)
        if frm <= -2 and to >= 0:
            raise IllegalMoveError(
                Text(
                    "A peg in its home lane never leaves it (%(frm)s to %(to)s).",
                    frm=_NAMES[frm],
                    to=_NAMES[to],
                ),
                path,
            )
        distance = self._distance(seat, frm, to)
        if frm <= -2 and distance <= 0:
            raise IllegalMoveError(
                Text(
                    "A peg in its home lane only moves deeper in (%(frm)s to %(to)s).",
                    frm=_NAMES[frm],
                    to=_NAMES[to],
                ),
                path,
            )
        _verify_distance(card, steps, index, distance, self, path)
        if distance < 0:
            _verify_own_colour(
                self, player, seat, _backward_path(frm, -distance, self.length), path
            )
        else:
            _verify_own_colour(
                self, player, seat, self._forward_path(seat, frm, to, distance), path
            )
        return self._verify_landing(seat, frm, to, path) if to >= 0 else ()

    def _distance(self, seat: int, frm: int, to: int) -> int:
        """Holes from ``frm`` to ``to`` for a peg of ``seat``: forward positive, backward
        negative (only for track to track); the lane is reached through the in-spot."""
        length = self.length
        if frm <= -2:
            return lane_number(to) - lane_number(frm)
        if to <= -2:
            return (self.in_spot[seat] - frm) % length + lane_number(to)
        ahead = (to - frm) % length
        return ahead if ahead <= MAX_FORWARD else ahead - length

    def _forward_path(self, seat: int, frm: int, to: int, distance: int) -> list[int]:
        """The positions a forward move goes through, its destination last."""
        if frm <= -2:
            return [home(h) for h in range(lane_number(frm) + 1, lane_number(to) + 1)]
        if to >= 0:
            return [(frm + k) % self.length for k in range(1, distance + 1)]
        to_in_spot = (self.in_spot[seat] - frm) % self.length
        track = [(frm + k) % self.length for k in range(1, to_in_spot + 1)]
        return track + [home(h) for h in range(1, lane_number(to) + 1)]

    def _verify_come_out(self, card: Card, seat: int, to: int, path: str) -> tuple:
        if card.rank not in COME_OUT_RANKS:
            raise IllegalMoveError(
                Text(
                    "A peg leaves start only with an A, K, Q, J or a joker, not with %(card)s.",
                    card=_card_name(card),
                ),
                path,
            )
        hole = self.come_out[seat]
        if to != hole:
            raise IllegalMoveError(
                Seated(
                    Text(
                        "A seat %(seat)s peg comes out onto its come-out hole %(hole)s.",
                        seat=seat,
                        hole=_NAMES[hole],
                    ),
                    Text(
                        "One of %(player)s's pegs comes out onto its come-out hole %(hole)s.",
                        player=Seat(seat),
                        hole=_NAMES[hole],
                    ),
                ),
                v.join(path, "to"),
            )
        if self.track[hole] == seat:
            raise IllegalMoveError(
                Seated(
                    Text(
                        "%(hole)s already holds a seat %(seat)s peg, so no peg of that colour can come out.",
                        hole=_NAMES[hole],
                        seat=seat,
                    ),
                    Text(
                        "%(hole)s already holds one of %(player)s's pegs, so no peg of that "
                        "colour can come out.",
                        hole=_NAMES[hole],
                        player=Seat(seat),
                    ),
                ),
                v.join(path, "to"),
            )
        return self._verify_landing(seat, START, hole, path)

    def _verify_joker(self, player: int, seat: int, frm: int, to: int, path: str) -> tuple:
        """P-D4: a joker takes a start peg, or a track peg once no start peg is left."""
        if frm <= -2:
            raise IllegalMoveError(Text("A joker cannot move a peg out of its home lane."), path)
        if to < 0:
            raise IllegalMoveError(
                Text("A joker moves a peg onto a track hole."), v.join(path, "to")
            )
        if frm >= 0:
            for other in self.movable_seats(player):
                if START in self.pegs[other]:
                    raise IllegalMoveError(
                        Seated(
                            Text(
                                "A joker must bring a peg out of start first: seat %(other)s still has pegs in start "
                                "(P-D4).",
                                other=other,
                            ),
                            Text(
                                "A joker must bring a peg out of start first: %(player)s still has "
                                "pegs in start (P-D4).",
                                player=Seat(other),
                            ),
                        ),
                        v.join(path, "from"),
                    )
        occupant = self.track[to]
        if occupant < 0:
            raise IllegalMoveError(
                Text("A joker needs a peg to bump; %(to)s is empty.", to=_NAMES[to]),
                v.join(path, "to"),
            )
        if occupant == seat:
            raise IllegalMoveError(
                Text(
                    "A joker moves a peg onto another colour's peg; %(to)s holds its own colour.",
                    to=_NAMES[to],
                ),
                v.join(path, "to"),
            )
        return self._verify_landing(seat, frm, to, path)

    def _verify_landing(self, seat: int, frm: int, to: int, path: str) -> tuple:
        bumps = self._landing(seat, frm, to)
        if bumps.__class__ is not tuple:
            raise IllegalMoveError(bumps, v.join(path, "to"))
        return bumps


class _SplitSearch:
    """Every split of a 7 or 9 for one player: two different pegs, parts ≥ 1 adding to
    ``value`` (``back``: one part forward, the other backward), played in order; the
    second part sees the board after the first, bumps included (P-D3).

    Built for speed, as a crowded board has thousands of candidates: the first part is
    played in place on the board and undone, never on a copy; each peg's part options on
    the untouched board (``before``) are worked out once and reused for a second part
    unless the first part could have changed them; each candidate's board change is built
    from the first part's, worked out once.

    With ``unique`` (one move per resulting board wanted) the search also leaves out
    step lists sure to repeat another's board: two parts that cannot touch each other
    (different colours, no teammate bumped, neither starting or ending where the other
    does) give the same board in either order, and both orders are legal, so only the
    order whose first peg has the lower seat is kept. Not under own_first, where the first
    part can change whose pegs the second may move (P-D2).
    """

    def __init__(self, board: Board, player: int, value: int, back: bool, unique: bool):
        self.board = board
        self.player = player
        self.value = value
        self.back = back
        self.signs = (1, -1) if back else (1,)
        self.unique = unique and board.team_pegs != "own_first"
        self.seats = board.movable_seats(player)
        self.before = self._parts_before()

    def batches(self) -> Iterator[list[tuple[tuple, tuple, tuple, int]]]:
        pegs = self.board.pegs
        for index, parts in enumerate(self.before):
            if parts is None:
                continue
            seat, slot = divmod(index, PEGS)
            pos = pegs[seat][slot]
            for first in range(1, self.value):
                second = -(self.value - first) if self.back else self.value - first
                for sign in self.signs:
                    for to, bumps in parts[sign * first][0]:
                        yield self._second_parts(
                            (seat, slot), (seat, pos, to), bumps, sign * second
                        )

    def _parts_before(self) -> list[dict | None]:
        """For every peg the player may move, by seat·5 + slot: each part it could play on
        the board as it is, ``{distance: (options, landing hole, live)}``. The hole is
        where a track peg would land (-1 in the lane); ``live`` marks a landing on a
        teammate, whose P-D6 chain depends on more of the board."""
        board = self.board
        before: list[dict | None] = [None] * (board.seats * PEGS)
        length, track, team = board.length, board.track, board.team
        distances = [part * sign for part in range(1, self.value) for sign in self.signs]
        for seat in self.seats:
            own = board._own(seat)
            for slot, pos in enumerate(board.pegs[seat]):
                if pos == START:
                    continue
                parts = before[seat * PEGS + slot] = {}
                for distance in distances:
                    hole, live = -1, False
                    if pos >= 0:
                        hole = (pos + distance) % length
                        occupant = track[hole]
                        live = occupant >= 0 and occupant != seat and team[occupant] == team[seat]
                    parts[distance] = (board._options(seat, pos, distance, own), hole, live)
        return before

    def _second_parts(
        self, first_peg: tuple, step: tuple, bumps: tuple, distance: int
    ) -> list[tuple[tuple, tuple, tuple, int]]:
        """Play the first part, list every second part of ``distance``, undo."""
        board = self.board
        first_seat, first_slot = first_peg
        _, first_from, first_to = step
        length = board.length
        first = len(bumps)
        if bumps:
            undo = board._relocate(first_peg, first_to, bumps)
            moved = {first_seat, *[bump[0] for bump in bumps]}
            touched = {pos for change in (step, *bumps) for pos in change[1:] if pos >= 0}
        else:  # the usual case, done by hand: one peg moves, nothing else changes
            undo = None
            board.pegs[first_seat][first_slot] = first_to
            if first_from >= 0:
                board.track[first_from] = -1
            if first_to >= 0:
                board.track[first_to] = first_seat
            # its own colour is looked at below, hole by hole
            moved = () if first_from >= 0 and first_to >= 0 else (first_seat,)
            touched = (first_from, first_to)
        left, arrived = first_seat << 8 | (first_from + 8), first_seat << 8 | (first_to + 8)
        emptied, filled = [left], [arrived]
        for bump in bumps:
            emptied.append(bump[0] << 8 | (bump[1] + 8))
            filled.append(bump[0] << 8 | (bump[2] + 8))
        swappable = self.unique and (not bumps or len(bumps) == 1 and bumps[0][2] == START)
        found = []
        # P-D2 own_first: whose pegs may move is checked again before the second part
        seats = board.movable_seats(self.player) if board.team_pegs == "own_first" else self.seats
        for seat in seats:
            positions = board.pegs[seat]
            base = seat << 8
            earlier = swappable and seat < first_seat  # a different colour, the other order
            own = board._own(seat) if seat in moved else None
            same = seat == first_seat
            for slot in range(PEGS):
                pos = positions[slot]
                if pos == START or same and slot == first_slot:
                    continue
                parts = self.before[seat * PEGS + slot]
                if parts is None or own:
                    options = board._options(seat, pos, distance, own)
                else:
                    options, hole, live = parts[distance]
                    if live or hole in touched:
                        options = board._options(seat, pos, distance)
                    elif same and pos >= 0:
                        # P-D5: the first peg (same colour, on the track) matters only if it
                        # left or reached a hole this peg would pass
                        reach = distance if distance > 0 else -distance
                        sign = 1 if distance > 0 else -1
                        if (
                            0 < sign * (first_from - pos) % length <= reach
                            or 0 < sign * (first_to - pos) % length <= reach
                        ):
                            options = board._options(seat, pos, distance)
                gone = base | (pos + 8)
                for to, more in options:
                    if (
                        earlier
                        and (not more or len(more) == 1 and more[0][2] == START)
                        and pos != first_from
                        and pos != first_to
                        and to != first_from
                        and to != first_to
                    ):
                        continue  # listed in the other order
                    lands = base | (to + 8)
                    if more or bumps:
                        gone_too, lands_too = [*emptied, gone], [*filled, lands]
                        for bump in more:
                            gone_too.append(bump[0] << 8 | (bump[1] + 8))
                            lands_too.append(bump[0] << 8 | (bump[2] + 8))
                        change = _cancelled(gone_too, lands_too)
                    elif lands == left:  # onto the hole the first peg left: it cancels
                        change = ((gone,), (arrived,))
                    else:
                        change = (
                            (left, gone) if left < gone else (gone, left),
                            (arrived, lands) if arrived < lands else (lands, arrived),
                        )
                    found.append(((step, (seat, pos, to)), bumps + more, change, first))
        if undo is None:
            board.pegs[first_seat][first_slot] = first_from
            if first_to >= 0:
                board.track[first_to] = -1
            if first_from >= 0:
                board.track[first_from] = first_seat
        else:
            board._place(undo)
        return found


# ― helpers for verify_move ―


def _forward_value(rank: int) -> int:
    """How far a card moves forward: A 1, K/Q/J 10, 2–10 face value."""
    if rank == ACE:
        return 1
    return MAX_FORWARD if rank in (KING, QUEEN, JACK) else rank


def _splittable(card: Card, nine: str) -> bool:
    return card.rank == 7 or card.rank == 9 and nine != "forward"


def _verify_step_count(card: Card, steps: tuple, nine: str) -> None:
    if not steps:
        raise IllegalMoveError(Text("A move needs at least one step."), "steps")
    if len(steps) > 2:
        raise IllegalMoveError(Text("A card moves at most two pegs (a split 7 or 9)."), "steps")
    if len(steps) == 2 and not _splittable(card, nine):
        if card.rank == 9:
            raise IllegalMoveError(
                Text("With house rule nine=forward a 9 cannot be split (P-D3)."), "steps"
            )
        raise IllegalMoveError(
            Text("Only a 7 or a 9 can be split; %(card)s moves one peg.", card=_card_name(card)),
            "steps",
        )


def _verify_distance(
    card: Card, steps: tuple, index: int, distance: int, board: Board, path: str
) -> None:
    """Does the card allow this distance for this part of the move?"""
    if distance == 0 or distance > MAX_FORWARD:
        raise IllegalMoveError(
            Text(
                "%(frm)s to %(to)s is no move %(card)s can make.",
                frm=_NAMES[steps[index].frm],
                to=_NAMES[steps[index].to],
                card=_card_name(card),
            ),
            path,
        )
    name = _card_name(card)
    if len(steps) == 1:
        if card.rank == BACKWARD:
            if distance != -BACKWARD:
                raise IllegalMoveError(
                    Text(
                        "An 8 moves a peg 8 holes backward on the track; this step is %(distance)s.",
                        distance=_says(distance),
                    ),
                    path,
                )
            return
        value = _forward_value(card.rank)
        if distance != value:
            if card.rank in COME_OUT_RANKS:
                raise IllegalMoveError(
                    # Translators: %(card)s is "The 7"; %(distance)s is "3 forward" or "2 backward"
                    Text(
                        "%(card)s moves a peg %(value)s forward (or brings a peg out of start); "
                        "this step is %(distance)s.",
                        card=_card_name_first(card),
                        value=value,
                        distance=_says(distance),
                    ),
                    path,
                )
            raise IllegalMoveError(
                Text(
                    "%(card)s moves a peg %(value)s forward; this step is %(distance)s.",
                    card=_card_name_first(card),
                    value=value,
                    distance=_says(distance),
                ),
                path,
            )
        return
    value = card.rank
    back = card.rank == 9 and board.nine == "split_back"
    if distance < 0 and not back:
        raise IllegalMoveError(
            Text("Both parts of %(card)s go forward; this step goes backward.", card=name), path
        )
    if abs(distance) >= value:
        raise IllegalMoveError(
            Text(
                "Each part of a split %(rank)s moves 1 to %(most)s holes.",
                rank=RANK_TEXT[value],
                most=value - 1,
            ),
            path,
        )
    if index == 1:
        first = board._distance(*steps[0])
        if abs(first) + abs(distance) != value:
            raise IllegalMoveError(
                Text(
                    "The two parts of %(card)s must add up to %(value)s; %(first)s + %(second)s "
                    "is %(sum)s.",
                    card=name,
                    value=value,
                    first=abs(first),
                    second=abs(distance),
                    sum=abs(first) + abs(distance),
                ),
                path,
            )
        if back and (first < 0) == (distance < 0):
            raise IllegalMoveError(
                Text(
                    "With house rule nine=split_back one part of the 9 goes forward and the other backward "
                    "(P-D3)."
                ),
                path,
            )


def _says(distance: int) -> Text:
    if distance > 0:
        return Text("%(holes)s forward", holes=distance)
    return Text("%(holes)s backward", holes=-distance)


def _backward_path(frm: int, distance: int, length: int) -> list[int]:
    return [(frm - k) % length for k in range(1, distance + 1)]


def _verify_own_colour(
    board: Board, player: int, seat: int, path_holes: list[int], path: str
) -> None:
    """P-D5: never pass or land on a peg of its own colour (track or home lane)."""
    own = set(board.pegs[seat])
    if seat == player:
        whose = Text("your own peg")
    else:
        whose = Seated(
            Text("a seat %(seat)s peg (its own colour)", seat=seat),
            # Translators: %(player)s is a name; the phrase is %(whose)s in "T8 is taken by %(whose)s."
            Text("one of %(player)s's pegs (its own colour)", player=Seat(seat)),
        )
    for position in path_holes:
        if position in own:
            dest = _NAMES[path_holes[-1]]
            if position == path_holes[-1]:
                raise IllegalMoveError(
                    Text("%(dest)s is taken by %(whose)s.", dest=dest, whose=whose),
                    v.join(path, "to"),
                )
            raise IllegalMoveError(
                Text(
                    "%(dest)s would pass %(whose)s on %(position)s.",
                    dest=dest,
                    whose=whose,
                    position=_NAMES[position],
                ),
                v.join(path, "to"),
            )


def _why_not_movable(board: Board, player: int, seat: int) -> Text:
    if board.team[seat] != board.team[player]:
        return Seated(
            Text("Seat %(seat)s is on the other team; you move only your team's pegs.", seat=seat),
            Text(
                "%(player)s is on the other team; you move only your team's pegs.",
                player=Seat(seat),
            ),
        )
    if board.team_pegs == "own":
        return Text("With house rule team_pegs=own you move only your own pegs (P-D2).")
    return Text(
        "With house rule team_pegs=own_first you move a partner's peg only once all your "
        "own pegs are home (P-D2)."
    )


# ── request validation ──────────────────────────────────────────────────────────


def _seat_count(value: object, path: str) -> int:
    # a float (4.0) is refused like any number that is not whole, as validate.integer does
    if isinstance(value, bool) or not isinstance(value, int) or value not in SEAT_COUNTS:
        raise InvalidBoardError(Text("Pegs and Jokers is played by 4, 6 or 8 players."), path)
    return value


def _house_rules(value: object, path: str) -> dict:
    raw = v.mapping(value, path)
    for key in raw:
        if key not in HOUSE_RULES:
            raise RuleError(
                "Unknown house rule “%(rule)s”.", v.join(path, str(key)), rule=quotable(key)
            )
    return {key: v.choice(raw[key], v.join(path, key), HOUSE_RULES[key]) for key in raw}


def _checked_keys(pegs: dict, seats: int, path: str) -> dict:
    """Every seat 0 … N−1 listed once, as a string key ("0")."""
    names = [str(s) for s in range(seats)]
    for key in pegs:
        if key not in names:
            raise InvalidBoardError(
                Text(
                    "There is no seat “%(seat)s”; seats are numbered 0 to %(last)s.",
                    seat=quotable(key),
                    last=seats - 1,
                ),
                v.join(path, str(key)),
            )
    return pegs


def _parse_pegs(pegs: dict, seats: int, path: str) -> list[list[int]]:
    """Five valid positions per seat, no two pegs in one hole."""
    _checked_keys(pegs, seats, path)
    length = SIDE * seats
    result: list[list[int]] = []
    holes: dict[int, int] = {}  # track hole → seat
    for seat in range(seats):
        where = v.join(path, str(seat))
        if str(seat) not in pegs:
            raise InvalidBoardError(
                Text("Seat %(seat)s must list its %(pegs)s pegs.", seat=seat, pegs=PEGS), where
            )
        raw = pegs[str(seat)]
        if not isinstance(raw, list | tuple) or len(raw) != PEGS:
            if isinstance(raw, list | tuple):
                count = Text("%(count)s given", count=len(raw))
            else:
                count = Text("not a list")
            # Translators: %(given)s is "3 given" or "not a list"
            raise InvalidBoardError(
                Text(
                    "Seat %(seat)s must list exactly %(pegs)s pegs; %(given)s.",
                    seat=seat,
                    pegs=PEGS,
                    given=count,
                ),
                where,
            )
        positions = []
        for i, text in enumerate(raw):
            here = v.join(where, i)
            pos = parse_position(text, length, here)
            if pos >= 0 and pos in holes:
                raise InvalidBoardError(_two_pegs(pos, holes[pos], seat), here)
            if pos <= -2 and pos in positions:
                raise InvalidBoardError(
                    Seated(
                        Text(
                            "Seat %(seat)s has two pegs on %(hole)s; a hole holds one.",
                            seat=seat,
                            hole=_NAMES[pos],
                        ),
                        Text(
                            "%(player)s has two pegs on %(hole)s; a hole holds one.",
                            player=Seat(seat),
                            hole=_NAMES[pos],
                        ),
                    ),
                    here,
                )
            if pos >= 0:
                holes[pos] = seat
            positions.append(pos)
        result.append(positions)
    return result


def _two_pegs(hole: int, first: int, seat: int) -> Seated:
    numbered = Text(
        "T%(hole)s holds two pegs (seats %(first)s and %(seat)s); a hole holds one.",
        hole=hole,
        first=first,
        seat=seat,
    )
    if first == seat:
        # Translators: %(player)s is a player's name: both pegs are that player's
        named = Text(
            "T%(hole)s holds two pegs (both %(player)s's); a hole holds one.",
            hole=hole,
            player=Seat(seat),
        )
    else:
        # Translators: %(first)s and %(player)s are two players' names
        named = Text(
            "T%(hole)s holds two pegs (%(first)s and %(player)s); a hole holds one.",
            hole=hole,
            first=Seat(first),
            player=Seat(seat),
        )
    return Seated(numbered, named)


def _player(value: object, board: Board) -> int:
    """The seat whose turn it is."""
    return v.integer(value, "player", 0, board.seats - 1)


def _board(req: dict) -> Board:
    return Board.from_json({k: req[k] for k in ("seats", "pegs", "house_rules") if k in req})


def _copies(seats: int) -> int:
    """Decks in play: 3, or 4 with 8 players (RULES §5); jokers 6 or 8."""
    return 4 if seats == 8 else 3


# ── the kinds ───────────────────────────────────────────────────────────────────


def pegs_moves(request: dict) -> dict:
    """Every legal move of a card, or which cards of a hand can move (CONTRACT)."""
    req = v.obj(
        request, "", required=("seats", "pegs", "player"), optional=("house_rules", "card", "hand")
    )
    board = _board(req)
    player = _player(req["player"], board)
    if "card" in req and "hand" in req:
        raise RuleError("Send either a card or a hand, not both.", "hand")
    if "hand" in req:
        return _hand_answer(board, player, req["hand"])
    if "card" not in req:
        raise RuleError("The field “card” (or “hand”) is missing.", "card")
    card = v.card(req["card"], "card")
    return {"moves": _moves_json(board._unique_moves(player, card))}


def _hand_answer(board: Board, player: int, raw: object) -> dict:
    hand = v.cards(raw, "hand", 1, 5)
    counter = v.CardCounter(_copies(board.seats))
    for i, card in enumerate(hand):
        if card.rank != JOKER:
            counter.add(card, v.join("hand", i))
    can: dict[int, bool] = {}  # by rank: suits never matter
    for card in hand:
        if card.rank not in can:
            can[card.rank] = board.has_legal_move(player, card)
    playable = [card for card in hand if can[card.rank]]
    must_play = any(card.rank != JOKER for card in playable)
    return {
        "playable": [str(card) for card in playable],
        "must_play": must_play,
        "joker_only": bool(playable) and not must_play,
    }


def pegs_apply(request: dict) -> dict:
    """Play one move: the new state, the bumps and the winning team (CONTRACT)."""
    req = v.obj(
        request,
        "",
        required=("seats", "pegs", "player", "card", "steps"),
        optional=("house_rules",),
    )
    board = _board(req)
    player = _player(req["player"], board)
    card = v.card(req["card"], "card")
    raw_steps = v.array(req["steps"], "steps", 1)
    if len(raw_steps) > 2:
        raise IllegalMoveError(Text("A card moves at most two pegs (a split 7 or 9)."), "steps")
    steps = tuple(
        Step.from_json(step, board.seats, v.join("steps", i)) for i, step in enumerate(raw_steps)
    )
    played = board.push(Move(player, card, steps))
    return {
        "seats": board.seats,
        "pegs": {str(s): board.positions(s) for s in range(board.seats)},
        "bumps": [b.as_json() for b in played.bumps],
        "winner_team": board.winner_team(),
    }


KINDS = {"pegs-moves": pegs_moves, "pegs-apply": pegs_apply}


# ---------------------------------------------------------------- the game's record


def _standings(
    players: list[str], totals: dict, settings: dict, progress: Progress, dealer: str | None
) -> Standings:
    """A race of two teams (Setup: seat s is on team s mod 2; End: a team wins with
    every peg home): the team with more pegs in its home holes (P-D1) leads, and each
    player shows their own pegs home."""
    seat = {name: i for i, name in enumerate(players)}
    order = sorted(players, key=lambda p: (-totals[p], seat[p]))
    ranks = rank_by(order, lambda p: totals[p])
    teams = [[p for p in players if seat[p] % 2 == t] for t in (0, 1)]
    shown = None
    if progress.pegs_home is not None and len(progress.pegs_home) == len(players):
        home = {p: progress.pegs_home[seat[p]] for p in players}
        team_home = [sum(home[p] for p in team) for team in teams]
        order = sorted(players, key=lambda p: (-team_home[seat[p] % 2], seat[p] % 2, seat[p]))
        ranks = rank_by(order, lambda p: team_home[seat[p] % 2])
        shown = {
            p: gettext("%(home)s/%(pegs)s home", home=home[p], pegs=progress.pegs_per_seat)
            for p in players
        }
    if progress.winner_team is not None:
        winners = teams[progress.winner_team]
        return Standings(
            order,
            ranks,
            True,
            winners,
            gettext(
                "Team %(team)s (%(names)s) wins the race.",
                team=progress.winner_team + 1,
                names=names_text(winners),
            ),
            dealer,
            shown=shown,
        )
    if shown is None:
        message = gettext("Partners sit opposite: seats alternate between the two teams.")
    else:
        per_team = [progress.pegs_per_seat * len(team) for team in teams]
        message = (
            "; ".join(
                gettext(
                    "Team %(team)s (%(names)s): %(home)s of %(pegs)s pegs home",
                    team=t + 1,
                    names=names_text(teams[t]),
                    home=team_home[t],
                    pegs=per_team[t],
                )
                for t in (0, 1)
            )
            + "."
        )
    return Standings(order, ranks, False, [], message, dealer, shown=shown)


def _board_of(entry: dict) -> dict | None:
    board = entry["result"].get("pegs")
    return board if isinstance(board, dict) and board else None


def _progress(settings: dict, latest) -> dict:
    # the latest board decides (a correction can also undo a finish)
    board_kinds = frozenset({"pegs-apply", "pegs-board"})
    latest_board = latest(board_kinds, lambda e: True)
    facts: dict = {
        "winner_team": latest_board["result"].get("winner_team") if latest_board else None
    }
    placed = latest(board_kinds, lambda e: _board_of(e) is not None)
    if placed is not None:
        board = _board_of(placed)  # positions by seat; home holes are H… (P-D1)
        seats = [board.get(str(i), []) for i in range(len(board))]
        facts["pegs_home"] = tuple(sum(str(p).startswith("H") for p in pegs) for pegs in seats)
        facts["pegs_per_seat"] = max(len(pegs) for pegs in seats)
    return facts


GAME = catalog.Game(
    "pegs",
    N_("Arizona Pegs and Jokers"),
    N_("A partnership race on a peg board"),
    (4, 6, 8),
    (
        catalog.Setting(
            "team_pegs",
            N_("Which team pegs you may move"),
            "choice",
            "any",
            options=(
                ("any", N_("Any peg of the team")),
                ("own_first", N_("Partner's pegs once all yours are home")),
                ("own", N_("Only your own")),
            ),
            decision="P-D2",
            house_rule=True,
        ),
        catalog.Setting(
            "nine",
            N_("The 9"),
            "choice",
            "split_forward",
            options=(
                ("split_forward", N_("9 forward, may be split forward")),
                ("split_back", N_("9 split: one part forward, one backward")),
                ("forward", N_("9 forward, no split")),
            ),
            decision="P-D3",
            house_rule=True,
        ),
    ),
    N_("Two teams race their pegs home around the board."),
    engines=KINDS,
    kinds=(
        # a turn is one move or one discard (a board set by hand): one entry a turn
        catalog.Kind(
            "pegs-apply",
            N_("Move"),
            deal=False,
            breakdown="scorekeeper.pegs_table:apply_breakdown",
            slot="pegs-turn",
        ),
        catalog.Kind(
            "pegs-board",
            N_("Board set"),
            deal=False,
            slot="pegs-turn",
            # Translators: a history row's name, a thing done (as "Move"), not a button
            variants=(("discard", N_("Discard")),),
            breakdown="scorekeeper.pegs_table:board_breakdown",
        ),
    ),
    # each move is an entry of its own, numbered as a turn: a round is a deal elsewhere
    numbering=catalog.Numbering(
        # Translators: a history row's number in Arizona Pegs and Jokers: one player's
        # turn at the board, a move or a discard ("Turn 3")
        heading=N_("Turn %(n)d"),
        # Translators: the printed history's column of turn numbers (as "Turn %(n)d")
        column=N_("Turn"),
        pages=N_("Turns %(first)s–%(last)s, newest first; %(total)s entries in all."),
        carried=N_("Carried forward from turns %(first)s–%(last)s"),
        undone=N_("Turn %(n)d undone."),
        restored=N_("Turn %(n)d restored."),
        change_undone=N_("Turn %(n)d: the change undone; the move is as it was before."),
        change_redone=N_("Turn %(n)d: the change made again."),
        reopened=N_("Turn %(n)d is open again: play it again."),
        none=N_("No turns yet."),
        newest=N_("Newest turns"),
        older=N_("Older turns"),
        earlier=Plural("Show %(num)d earlier turn", "Show all %(num)d earlier turns", 0),
        entered_meanwhile=N_(
            "Turn %(round)s was just entered on another phone; "
            "nothing was saved. Check the history before adding it again."
        ),
        changed_meanwhile=N_(
            "Turn %(round)s was changed on another phone meanwhile; nothing was saved."
        ),
        changed_before_edit=N_(
            "Turn %(round)s was changed on another phone meanwhile; "
            "nothing was saved. Check the history and try again."
        ),
        already_undone=N_("Turn %(round)s was already undone or changed on another phone."),
        changed_since=N_(
            "Turn %(round)s has been changed again since; redo the latest version instead."
        ),
        entered_since=N_(
            "Turn %(round)s was played again after this entry was undone; "
            "undo that turn first to bring this one back."
        ),
        reopened_changed=N_(
            "Turn %(round)s is open on its screen, reopened from a later version and "
            "changed there; play it there, or undo those taps first."
        ),
        not_undone=N_("Turn %(round)s is not undone; there is nothing to redo."),
        cannot_edit=N_("Turn %(round)s was undone or changed; it cannot be edited."),
        being_entered=N_(
            "A turn is being entered: play it, or undo its taps, before changing a move."
        ),
    ),
    no_result=N_("Arizona Pegs and Jokers has no totals: its winner comes from pegs-apply."),
    score_pad=False,  # a race: nobody scores points
    standings=_standings,
    progress=_progress,
    play_state="scorekeeper.games.play.pegs:PegsRace",
    rule_card="scorekeeper.rulecards:PEGS",
    sheet="scorekeeper.printing:pegs_sheet",
    filled_sheet="scorekeeper.printing:pegs_filled_sheet",
    sheet_names_first_dealer=False,  # its sheet names the first dealer in its games' table
)
