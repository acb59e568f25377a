"""An Arizona Pegs and Jokers race as a log of taps (RULES.md §5): a thin layer over the
engine's :class:`~scorekeeper.games.pegs.Board` that adds whose turn it is (play goes
clockwise: the next seat number), discards under the must-play rule, corrections made
by hand, and the log itself (undo and redo drop and put back its last tap).

``settings``: the house rules ``team_pegs`` (P-D2) and ``nine`` (P-D3), plus the race
so far: ``pegs`` (the board to start from, ``{"0": [5 positions], …}``; every peg in
start when left out) and ``turn`` (the seat to play first; 0 when left out).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, ClassVar

from ... import validate as v
from ...cards import JOKER, RANK_TEXT, SUITS, Card, CardError, parse_card
from ...errors import RuleError
from ...messages import Joined, Plural, Text, gettext, quotable
from .. import catalog
from .. import pegs as engine
from . import Checks, Refused, Tap, no_such_tap, refusing

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "JK")
HAND_SIZE = 5
JOKER_CODE = "JK"
SHOWN_REASONS = 4  # why a card cannot move: the first reasons, and how many more


def next_seat(seat: int, seats: int) -> int:
    """Play goes clockwise (RULES §5): the next seat number, round the table."""
    return (seat + 1) % seats


def first_turn(last_player: int | None, seats: int, first_dealer: int | None = None) -> int:
    """Whose turn it is after the latest move or discard; before any, the player on
    the first dealer's left (RULES §5: play begins left of the dealer and goes
    clockwise), seat 0 when no dealer is known."""
    if last_player is not None:
        return next_seat(last_player, seats)
    return 0 if first_dealer is None else next_seat(first_dealer % seats, seats)


def hand_codes(ranks: list[str]) -> list[str]:
    """Cards for a hand given by ranks; a repeated rank takes the next suit, so five
    sevens stay within the decks' copies."""
    seen: dict[str, int] = {}
    codes = []
    for rank in ranks:
        n = seen.get(rank, 0)
        seen[rank] = n + 1
        codes.append("JK" if rank == "JK" else rank + SUITS[n % len(SUITS)])
    return codes


def rank_text(card: Card) -> str:
    return "JK" if card.rank == JOKER else RANK_TEXT[card.rank]


def move_words(players, board: engine.Board, move: engine.Move) -> Joined:
    """A move as a player says it, not by the holes' notation: which peg (whose, and
    which of that player's: "Eva's back peg") and what it does ("5 forward", "out onto
    the track", "into home (hole 2)"), then whose peg it sends where; a split's two
    parts joined by "+". ``board`` is the board before the move, ``move`` the move with
    its bumps (as ``Board.push`` or ``legal_moves`` gives it).

    >>> start = ["S"] * 5
    >>> board = engine.Board(4, {0: ["T8", "T20", *start[2:]], 1: ["T11", *start[1:]],
    ...                          2: start, 3: start})
    >>> played = board.push(engine.Move.parse("0 3H: 0 T8-T11", board.length))
    >>> _ = board.pop()
    >>> str(move_words(["Ana", "Ben", "Eva", "Jan"], board, played))
    "Ana's back peg 3 forward, sends Ben's peg to start"
    """
    return Joined([said for _peg, said in _parts_words(players, board, move)], " + ")


def _parts_words(players, board: engine.Board, move: engine.Move) -> list[tuple[Text, Joined]]:
    """Each part of a move (one, or a split's two) as :func:`move_words` says it: the
    peg it moves, and the whole part with the pegs it bumps."""
    # a split's second part names a peg the first moved or bumped as it was called
    # before the move: (seat, where it is now) → where it was
    was: dict[tuple[int, int], int] = {}
    parts = []
    for step, bumps in zip(move.steps, move.step_bumps(), strict=True):
        peg = _peg_words(players, board, step.seat, step.frm, was)
        said = [_step_words(players, board, move.card, step, was)]
        said += [_bump_words(players, board, b, was) for b in bumps]
        parts.append((peg, Joined(said, ", ")))
        for moved in (step, *bumps):
            was[moved.seat, moved.to] = was.pop((moved.seat, moved.frm), moved.frm)
    return parts


def applied_words(players, request: dict) -> Joined:
    """The move a ``pegs-apply`` request (CONTRACT.md) plays, worded by :func:`move_words`
    on the board the request starts from; a request that is no legal move there is
    refused as ``pegs-apply`` refuses it (``RuleError``).

    >>> pegs = {str(seat): ["S"] * 5 for seat in range(4)}
    >>> pegs["0"] = ["T10", "T20", "S", "S", "S"]
    >>> steps = [{"seat": 0, "from": "T10", "to": "T12"}, {"seat": 0, "from": "T20", "to": "T25"}]
    >>> request = {"seats": 4, "pegs": pegs, "player": 0, "card": "7H", "steps": steps}
    >>> str(applied_words(["Ana", "Ben", "Eva", "Jan"], request))
    "Ana's back peg 2 forward + Ana's front peg 5 forward"
    """
    req = v.obj(
        request,
        "",
        required=("seats", "pegs", "player", "card", "steps"),
        optional=("house_rules",),
    )
    board = engine.Board.from_json(
        {k: req[k] for k in ("seats", "pegs", "house_rules") if k in req}
    )
    player = v.integer(req["player"], "player", 0, board.seats - 1)
    steps = tuple(
        engine.Step.from_json(step, board.seats, v.join("steps", i))
        for i, step in enumerate(v.array(req["steps"], "steps", 1))
    )
    played = board.push(engine.Move(player, v.card(req["card"], "card"), steps))
    board.pop()
    return move_words(players, board, played)


def _peg_words(
    players, board: engine.Board, seat: int, pos: int, was: dict[tuple[int, int], int]
) -> Text:
    """A peg as players tell it apart, by where it was before the move (``was``:
    of a peg an earlier step moved): whose it is, and among that player's pegs on
    the track which one (the front one: the furthest from its come-out hole); a peg
    in the home lane by its home hole."""
    name, pos = players[seat], was.get((seat, pos), pos)
    if pos <= -2:
        # Translators: a peg in its player's home lane, by the hole it is in (1 to 5)
        return Text("%(name)s's peg in home hole %(hole)d", name=name, hole=engine.lane_number(pos))
    on_track = [p for p in board.pegs[seat] if p >= 0]
    if pos == engine.START or len(on_track) < 2:
        return Text("%(name)s's peg", name=name)
    come_out, length = board.come_out[seat], board.length
    ahead = sorted(on_track, key=lambda p: -((p - come_out) % length))
    place = ahead.index(pos)
    if place == 0:
        # Translators: of a player's pegs on the track, the one furthest along
        return Text("%(name)s's front peg", name=name)
    if place == len(ahead) - 1:
        # Translators: of a player's pegs on the track, the one least far along
        return Text("%(name)s's back peg", name=name)
    if len(ahead) == 3:
        return Text("%(name)s's middle peg", name=name)
    # Translators: of a player's four or five pegs on the track, counted from the
    # one furthest along (its front peg is 1)
    return Text("%(name)s's peg %(num)d from the front", name=name, num=place + 1)


def _step_words(players, board: engine.Board, card: Card, step: engine.Step, was: dict) -> Text:
    """One step of a move as a player says it: the peg, and what it does."""
    peg = _peg_words(players, board, step.seat, step.frm, was)
    if card.rank == JOKER:  # onto another colour's peg, wherever it is (P-D4)
        target = _peg_words(players, board, board.track[step.to], step.to, was)
        if step.frm == engine.START:
            # Translators: a joker's move: %(peg)s is "Ana's peg", %(target)s "Ben's peg"
            return Text("%(peg)s out onto %(target)s", peg=peg, target=target)
        return Text("%(peg)s onto %(target)s", peg=peg, target=target)
    if step.frm == engine.START:
        # Translators: %(peg)s is "Ana's peg": it comes out of start onto its come-out hole
        return Text("%(peg)s out onto the track", peg=peg)
    if step.to <= -2:
        hole = engine.lane_number(step.to)
        if step.frm <= -2:
            # Translators: %(peg)s is "Ana's peg in home hole 2"; it moves on in there
            return Text("%(peg)s on to hole %(hole)d", peg=peg, hole=hole)
        # Translators: %(peg)s is "Ana's front peg"; a home lane's holes are 1 to 5
        return Text("%(peg)s into home (hole %(hole)d)", peg=peg, hole=hole)
    forward = (step.to - step.frm) % board.length
    if forward <= engine.MAX_FORWARD:
        # Translators: %(peg)s is "Ana's front peg"; %(num)d the holes it moves on
        return Plural("%(peg)s %(num)d forward", "%(peg)s %(num)d forward", forward, peg=peg)
    back = (step.frm - step.to) % board.length
    # Translators: %(peg)s is "Ana's front peg"; %(num)d the holes it moves back
    return Plural("%(peg)s %(num)d back", "%(peg)s %(num)d back", back, peg=peg)


def _bump_words(players, board: engine.Board, bump: engine.Step, was: dict) -> Text:
    """A peg the move bumps, and where it goes (RULES §5, P-D6)."""
    peg = _peg_words(players, board, bump.seat, bump.frm, was)
    if bump.to == engine.START:
        # Translators: after a move's words, a peg it bumps: "sends Ben's peg to start"
        return Text("sends %(peg)s to start", peg=peg)
    if bump.to <= -2:
        hole = engine.lane_number(bump.to)
        return Text("sends %(peg)s into home (hole %(hole)d)", peg=peg, hole=hole)
    # Translators: a teammate's peg bumped goes to its own in-spot (P-D6)
    return Text("sends %(peg)s to its in-spot", peg=peg)


def card_for_rank(rank: str) -> str:
    """A card standing for a rank (suits never matter here): ``7`` → ``7S``."""
    return rank if rank == "JK" else rank + "S"


@dataclass(frozen=True)
class Play:
    """One tap that changed the race: a move, a discard or a peg set by hand."""

    action: str  # "move" | "discard" | "place"
    seat: int
    card: str | None
    steps: tuple[engine.Step, ...] = ()
    bumps: tuple[engine.Step, ...] = ()
    before: tuple[tuple[str, ...], ...] = ()  # the board the move was played on


@dataclass(frozen=True)
class PegsRace(Checks):
    """The board, whose turn it is and the plays so far.

    >>> from . import replay
    >>> race = PegsRace.start(["Ana", "Ben", "Eva", "Jan"], {})
    >>> race = replay(race, [
    ...     {"id": "m1", "action": "move", "seat": 0, "card": "AS",
    ...      "steps": [{"seat": 0, "from": "S", "to": "T8"}]},
    ...     {"id": "m2", "action": "discard", "seat": 1, "card": "5H", "hand": ["5H", "2C"]},
    ... ])
    >>> race.turn, race.to_json()["next"]["text"]
    (2, "Eva's turn: play a card, or discard when nothing but a joker can move.")
    >>> [p["text"] for p in race.to_json()["log"]]
    ['Ana played A: Ana S→T8.', 'Ben discarded 5: no card could move.']
    """

    game: ClassVar[str] = "pegs"

    players: tuple[str, ...]
    team_pegs: str
    nine: str
    pegs: tuple[tuple[str, ...], ...]  # per seat, canonical order
    turn: int
    plays: tuple[Play, ...] = ()
    # the turn being entered on a screen (taps ``pick``, ``peg``, ``first``, ``hand``,
    # ``setpeg``): the card picked, the peg chosen, a split's first part, the hand
    # checked, the peg being set up by hand; a play or a turn tap clears them
    picked: str | None = None
    peg: tuple[int, str] | None = None
    first: engine.Step | None = None
    hand: tuple[str, ...] = ()
    fixing: tuple[int, str] | None = None

    @refusing
    def start(cls, players: object, settings: Mapping[str, Any] | None = None) -> PegsRace:
        info = catalog.game("pegs")
        info.check_players(v.array(players, "players"))
        names = v.players(players, "players", info.min_players, info.max_players)
        raw = dict(settings or {})
        context = {k: raw.pop(k) for k in ("pegs", "turn") if k in raw}
        rules = info.clean_settings(raw)
        n = len(names)
        try:
            board = engine.Board(n, context.get("pegs"), **rules)
        except RuleError as exc:
            said = engine.with_names(exc.text, names)
            raise Refused(said, "settings." + exc.path) from None
        turn = context.get("turn", 0)
        if isinstance(turn, bool) or not isinstance(turn, int) or not 0 <= turn < n:
            raise Refused("settings.turn is a seat, 0 to %(last)s.", "settings.turn", last=n - 1)
        return cls(tuple(names), rules["team_pegs"], rules["nine"], _pegs(board), turn)

    # ― the board ―

    @property
    def seats(self) -> int:
        return len(self.players)

    @cached_property
    def _board(self) -> engine.Board:
        """The board, built once per state and never changed (``board()`` copies it)."""
        pegs = {str(s): list(p) for s, p in enumerate(self.pegs)}
        return engine.Board(self.seats, pegs, team_pegs=self.team_pegs, nine=self.nine)

    def board(self) -> engine.Board:
        """A board of this state's pegs, the caller's to change."""
        return self._board.copy(stack=False)

    def state(self) -> dict:
        """The board as CONTRACT's board state."""
        return self._board.to_json()

    @property
    def winner_team(self) -> int | None:
        return self._board.winner_team()

    @property
    def complete(self) -> bool:
        return self.winner_team is not None

    def moves(self, card: str, seat: int | None = None) -> list[engine.Move]:
        """Every legal move of a card for the player whose turn it is."""
        return self.board().legal_moves(self.turn if seat is None else seat, card)

    def playable(self, hand: list[str]) -> dict:
        """Which cards of a hand can move (CONTRACT ``pegs-moves`` with a hand)."""
        return engine.pegs_moves({**self.state(), "player": self.turn, "hand": list(hand)})

    def options(
        self, card: str, first: engine.Step | None = None, *, worded: bool = False
    ) -> list[dict]:
        """What a screen may offer step by step: each step to take next (the first part
        of a split, or given ``first`` its second part), whether it ends the move
        (``complete``) or needs a second part (``continues``), and the bumps that step
        makes itself (a split's second part: not the first part's again). ``worded``: with
        ``peg`` and ``words``, its peg and the step with its bumps as a player says them
        (:func:`move_words`), in the reader's language.

        >>> pegs = {str(seat): ["S"] * 5 for seat in range(4)}
        >>> pegs.update({"0": ["T10", "T20", "S", "S", "S"], "1": ["T13", "S", "S", "S", "S"]})
        >>> race = PegsRace.start(["Ana", "Ben", "Eva", "Jan"], {"pegs": pegs})
        >>> said = race.options("7S", worded=True)
        >>> [(o["words"], o["complete"]) for o in said if o["to"] in ("T17", "T13")]
        [("Ana's back peg 7 forward", True), ("Ana's back peg 3 forward, sends Ben's peg to start", False)]
        >>> step = engine.Step.from_json({"seat": 0, "from": "T10", "to": "T13"}, 4)
        >>> [(o["peg"], o["words"]) for o in race.options("7S", step, worded=True)]
        [("Ana's front peg", "Ana's front peg 4 forward")]
        """
        found: dict[engine.Step, dict] = {}
        part = 0 if first is None else 1
        board = self.board()
        for move in board.all_step_lists(self.turn, card):
            if first is not None and (len(move.steps) != 2 or move.steps[0] != first):
                continue
            step = move.steps[part]
            item = found.get(step)
            if item is None:
                bumps = [b.as_json() for b in move.step_bumps()[part]]
                item = found[step] = {"complete": False, "continues": False, "bumps": bumps}
                if worded:
                    peg, said = _parts_words(self.players, board, move)[part]
                    item.update(peg=str(peg), words=str(said))
            if part == len(move.steps) - 1:
                item["complete"] = True
            else:
                item["continues"] = True
        return [{**step.as_json(), **item} for step, item in found.items()]

    def described_moves(self, card: str) -> list[dict]:
        """Every legal move of a card at once, each worded as a player says it
        (:func:`move_words`); the holes' notation stays in the steps, for the board.

        >>> race = PegsRace.start(["Ana", "Ben", "Eva", "Jan"], {})
        >>> [m["text"] for m in race.described_moves("AH")]
        ["Ana's peg out onto the track", "Eva's peg out onto the track"]
        """
        board = self.board()
        return [
            {**move.as_json(), "text": str(move_words(self.players, board, move))}
            for move in self.moves(card)
        ]

    def first_words(self) -> str | None:
        """The first part of a split chosen so far, worded as the move buttons word it,
        with the pegs it bumps ("Ana's back peg 3 forward, sends Ben's peg to start");
        None before one is chosen.

        >>> pegs = {str(seat): ["S"] * 5 for seat in range(4)}
        >>> pegs.update({"0": ["T10", "T20", "S", "S", "S"], "1": ["T13", "S", "S", "S", "S"]})
        >>> race = PegsRace.start(["Ana", "Ben", "Eva", "Jan"], {"pegs": pegs})
        >>> from . import replay
        >>> step = {"seat": 0, "from": "T10", "to": "T13"}
        >>> race = replay(race, [{"id": "p", "action": "pick", "seat": 0, "card": "7"},
        ...                      {"id": "f", "action": "first", "seat": 0, "step": step}])
        >>> race.first_words()
        "Ana's back peg 3 forward, sends Ben's peg to start"
        """
        first, card = self.first, self.picked
        if first is None or card is None:
            return None
        board = self.board()
        for move in board.all_step_lists(self.turn, card):
            if len(move.steps) == 2 and move.steps[0] == first:
                bumps = move.step_bumps()[0]
                part = engine.Move(move.player, move.card, (first,), bumps, len(bumps))
                return str(move_words(self.players, board, part))
        return None

    def why_not(self, card: str) -> str | None:
        """Why ``card`` cannot move for the player whose turn it is (None when it can):
        each peg's reason as the engine gives it, peg by peg, with the players' names.

        >>> race = PegsRace.start(["Ana", "Ben", "Eva", "Jan"], {})
        >>> race.why_not("5H")
        'No move with 5: the pegs in start come out only with A, K, Q, J or a joker.'
        >>> race.why_not("AH") is None
        True
        """
        board = self.board()
        seat_of_turn = self.turn
        if board.has_legal_move(seat_of_turn, card):
            return None
        played = parse_card(card)
        reasons: list[str] = []
        seats = board.movable_seats(seat_of_turn)
        if played.rank == JOKER:
            reasons = self._joker_reasons(board, seats)
        else:
            for seat in seats:
                for pos in sorted(set(board.pegs[seat]), key=engine._position_order):
                    reason = self._peg_reason(board, seat, pos, played)
                    if reason and reason not in reasons:
                        reasons.append(reason)
            if engine._splittable(played, self.nine):
                out = sum(p != engine.START for s in seats for p in board.pegs[s])
                reasons.append(
                    gettext("a split %(rank)s needs two pegs out of start", rank=rank_text(played))
                    if out < 2
                    else gettext(
                        "no split of the %(rank)s over two pegs fits either", rank=rank_text(played)
                    )
                )
        shown = [r.rstrip(".") for r in reasons[:SHOWN_REASONS]]
        if len(reasons) > SHOWN_REASONS:
            shown.append(gettext("and %(count)s more", count=len(reasons) - SHOWN_REASONS))
        text = "; ".join(shown) or gettext("no peg may move")
        name = gettext("the joker") if played.rank == JOKER else rank_text(played)
        # Translators: %(card)s is a rank (5) or "the joker"; %(reasons)s why, joined by "; "
        return gettext("No move with %(card)s: %(reasons)s.", card=name, reasons=text)

    def _peg_reason(self, board: engine.Board, seat: int, pos: int, card: Card) -> str | None:
        """Why the ``seat`` peg on ``pos`` cannot move with ``card`` on its own."""
        who = gettext(
            "%(name)s's peg on %(hole)s", name=self.players[seat], hole=engine.position_name(pos)
        )
        rank = card.rank
        if pos == engine.START:
            if rank not in engine.COME_OUT_RANKS:
                return gettext("the pegs in start come out only with A, K, Q, J or a joker")
            who = gettext("%(name)s's pegs in start", name=self.players[seat])
            return self._verified(board, card, seat, pos, board.come_out[seat], who)
        if pos <= -2:  # in the home lane (P-D7): an exact fit, never past a peg
            if rank == engine.BACKWARD:
                return gettext("a peg in its home lane never moves back")
            depth = engine.lane_number(pos) + engine._forward_value(rank)
            if depth > engine.LANE:
                left = engine.LANE - engine.lane_number(pos)
                if left:
                    room = Plural("only %(num)d more hole", "only %(num)d more holes", left)
                else:
                    room = Text("no hole")
                # Translators: %(who)s is "Ana's peg on H3", %(room)s "only 2 more holes"
                return gettext(
                    "%(who)s has %(room)s ahead in its home lane: %(value)s is not an exact fit",
                    who=who,
                    room=room,
                    value=engine._forward_value(rank),
                )
            return self._verified(board, card, seat, pos, engine.home(depth), who)
        distance = -engine.BACKWARD if rank == engine.BACKWARD else engine._forward_value(rank)
        return self._verified(board, card, seat, pos, (pos + distance) % board.length, who)

    def _verified(
        self, board: engine.Board, card: Card, seat: int, frm: int, to: int, who: str
    ) -> str | None:
        move = engine.Move(self.turn, card, (engine.Step(seat, frm, to),))
        try:
            board.verify_move(move)
        except RuleError as exc:
            why = engine.with_names(exc.text, self.players)
            return gettext("%(who)s: %(why)s", who=who, why=why) if who else str(why)
        return None

    def _joker_reasons(self, board: engine.Board, seats: list[int]) -> list[str]:
        """P-D4: a joker takes a start peg onto another colour's track peg; a track peg
        only once no start peg is left; never a peg in its home lane."""
        joker = parse_card(JOKER_CODE)
        from_start = [s for s in seats if engine.START in board.pegs[s]]
        if from_start:
            movers = [(s, engine.START) for s in from_start]
            head = [gettext("a joker brings a peg out of start first (P-D4)")]
        else:
            movers = [(s, p) for s in seats for p in board.pegs[s] if p >= 0]
            head = [] if movers else [gettext("every peg that may move is in its home lane")]
        targets = [(hole, occ) for hole, occ in enumerate(board.track) if occ >= 0]
        reasons: list[str] = []
        for seat, pos in movers:
            others = [hole for hole, occ in targets if occ != seat]
            if not others:
                reason = gettext("no peg of another colour is on the track for it to land on")
                if reason not in reasons:
                    reasons.append(reason)
            for hole in others:
                if pos == engine.START:
                    who = gettext("%(name)s's peg from start", name=self.players[seat])
                else:
                    who = gettext(
                        "%(name)s's peg from %(frm)s",
                        name=self.players[seat],
                        frm=engine.position_name(pos),
                    )
                reason = self._verified(board, joker, seat, pos, hole, who)
                if reason and reason not in reasons:
                    reasons.append(reason)
        return head + reasons

    def stuck(self) -> dict[str, str]:
        """Each rank that cannot move now, with why (``why_not``); none once a team won.

        >>> PegsRace.start(["Ana", "Ben", "Eva", "Jan"], {}).stuck()["9"]
        'No move with 9: the pegs in start come out only with A, K, Q, J or a joker; a split 9 needs two pegs out of start.'
        """
        if self.complete:
            return {}
        movable = set(self.movable_ranks())
        return {r: self.why_not(card_for_rank(r)) for r in RANKS if r not in movable}

    def movable_ranks(self) -> list[str]:
        board = self.board()
        return [r for r in RANKS if board.has_legal_move(self.turn, card_for_rank(r))]

    # ― taps ―

    def apply(self, tap: Tap) -> PegsRace:
        handler = _HANDLERS.get(tap.action)
        if handler is None:
            raise no_such_tap(self.game, tap.action, _HANDLERS)
        for key, _value in tap.args:
            if key not in _ARGS[tap.action]:
                raise Refused(
                    "The %(action)s tap has no argument “%(key)s”.",
                    "." + key,
                    action=tap.action,
                    key=quotable(key),
                )
        return handler(self, tap)

    def _seat(self, tap: Tap, key: str = "seat") -> int:
        seat = tap.get(key)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.seats:
            raise Refused("Name the seat: 0 to %(count)s.", "." + key, count=self.seats - 1)
        return seat

    def _player(self, tap: Tap) -> int:
        if self.complete:
            raise Refused(
                "Team %(team)s has won; undo the last move to play on.",
                ".seat",
                team=self.winner_team + 1,
            )
        seat = self._seat(tap)
        if seat != self.turn:
            raise Refused(
                "It is %(turn)s's turn, not %(seat)s's.",
                ".seat",
                turn=self.players[self.turn],
                seat=self.players[seat],
            )
        return seat

    @staticmethod
    def _card(raw: object, path: str = ".card") -> Card:
        try:
            return parse_card(raw)
        except CardError as exc:
            raise Refused(exc.text, path) from None

    def _move(self, tap: Tap) -> PegsRace:
        seat = self._player(tap)
        card = self._card(tap.get("card"))
        raw = tap.get("steps")
        if not isinstance(raw, list | tuple) or not 1 <= len(raw) <= 2:
            raise Refused("steps lists the one or two steps of the move.", ".steps")
        steps = tuple(self._step_of(step, f"steps[{i}]") for i, step in enumerate(raw))
        try:
            board = self.board()
            played = board.push(engine.Move(seat, card, steps))
        except RuleError as exc:
            path = exc.path if exc.path.startswith(".") else ".steps"
            raise Refused(engine.with_names(exc.text, self.players), path) from None
        play = Play("move", seat, str(card), played.steps, played.bumps, self.pegs)
        after = replace(
            self,
            pegs=_pegs(board),
            turn=next_seat(seat, self.seats),
            plays=(*self.plays, play),
            **_CLEARED,
        )
        after.__dict__["_board"] = board.copy(stack=False)  # already built: no parsing again
        return after

    def _step_of(self, raw: object, where: str) -> engine.Step:
        """A step of a tap (``where`` its place in the tap, ``steps[0]``), refused with
        the field it is about, said as it is written (``steps[0].seat must be…``)."""
        try:
            return engine.Step.from_json(raw, self.seats, where)
        except RuleError as exc:
            raise Refused(exc.text, "." + exc.path) from None

    def _discard(self, tap: Tap) -> PegsRace:
        """RULES §5: a card that is not a joker and can move must be played; only when
        nothing but jokers (or nothing) can move is a card discarded. Without ``hand``
        the hand checked on the screen (``hand`` tap) is the hand; with none known, the
        discard is taken as said (``card`` may then be left out: not entered)."""
        seat = self._player(tap)
        raw = tap.get("hand", list(self.hand) or None)
        if raw is None:
            given = tap.get("card")
            card = None if given is None else self._card(_code(given))
            play = Play("discard", seat, None if card is None else str(card), before=self.pegs)
            return replace(
                self, turn=next_seat(seat, self.seats), plays=(*self.plays, play), **_CLEARED
            )
        if not isinstance(raw, list | tuple) or not 1 <= len(raw) <= HAND_SIZE:
            raise Refused(
                "hand lists the %(size)s cards held (1 to %(size)s), the discard among them.",
                ".hand",
                size=HAND_SIZE,
            )
        hand = [self._card(c, f".hand[{i}]") for i, c in enumerate(raw)]
        given = tap.get("card")
        if given in RANKS:  # a rank: the hand's card of that rank
            given = next((str(c) for c in hand if rank_text(c) == given), _code(given))
        card = hand[0] if given is None else self._card(given)
        if card not in hand:
            raise Refused("%(card)s is not in the hand given.", ".card", card=card)
        try:
            answer = self.playable([str(c) for c in hand])
        except RuleError as exc:
            raise Refused(exc.text, ".hand") from None
        if answer["must_play"]:
            can = sorted(
                {rank_text(parse_card(c)) for c in answer["playable"] if c != "JK"},
                key=RANKS.index,
            )
            raise Refused(
                "%(name)s must play a card that can move: %(can)s. A discard is allowed only when "
                "nothing but jokers can move.",
                ".card",
                name=self.players[seat],
                can=", ".join(can),
            )
        play = Play("discard", seat, str(card), before=self.pegs)
        return replace(
            self, turn=next_seat(seat, self.seats), plays=(*self.plays, play), **_CLEARED
        )

    def _place(self, tap: Tap) -> PegsRace:
        """A correction by hand: one peg of ``seat`` put from one hole on another."""
        seat = self._seat(tap)
        pegs = [list(p) for p in self.pegs]
        where = {k: str(tap.get(k) or "").strip().upper() for k in ("from", "to")}
        names = {}
        for key, text in where.items():
            if not text:
                raise Refused("Tap a hole, or write one like T44, H2 or S.", "." + key)
            try:
                names[key] = engine.position_name(engine.parse_position(text, 18 * self.seats))
            except RuleError as exc:
                raise Refused(exc.text, "." + key) from None
        frm, to = names["from"], names["to"]
        if frm not in pegs[seat]:
            raise Refused(
                "%(name)s has no peg on %(frm)s.", ".from", name=self.players[seat], frm=frm
            )
        if frm == to:
            raise Refused("That peg is already there.", ".to")
        pegs[seat][pegs[seat].index(frm)] = to
        try:
            board = engine.Board(
                self.seats,
                {str(s): p for s, p in enumerate(pegs)},
                team_pegs=self.team_pegs,
                nine=self.nine,
            )
        except RuleError as exc:
            raise Refused(engine.with_names(exc.text, self.players), ".to") from None
        step = engine.Step(seat, engine.parse_position(frm), engine.parse_position(to))
        play = Play("place", seat, None, (step,), before=self.pegs)
        return replace(self, pegs=_pegs(board), plays=(*self.plays, play), **_CLEARED)

    def _turn(self, tap: Tap) -> PegsRace:
        """A correction: it is this seat's turn."""
        seat = self._seat(tap)
        if seat == self.turn and self.picked is None and not self.hand:
            return self  # already so
        return replace(self, turn=seat, **_CLEARED)

    # ― the turn being entered: what is picked, not yet played ―

    def _pick(self, tap: Tap) -> PegsRace:
        """The card the player plays (a rank, suits never matter: ``7``, ``JK``)."""
        self._player(tap)
        rank = tap.get("card")
        if rank not in RANKS:
            raise Refused("Choose a card: A, 2 to 10, J, Q, K or the joker.", ".card")
        if self.picked == card_for_rank(rank) and self.first is None:
            return self
        return replace(self, picked=card_for_rank(rank), peg=None, first=None)

    def _peg_of(self, raw: object, path: str) -> tuple[int, str]:
        peg = raw if isinstance(raw, Mapping) else {}
        seat = peg.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.seats:
            raise Refused("There is no such seat.", path)
        if peg.get("from") not in self.pegs[seat]:
            raise Refused("That peg is no longer there; the board has changed.", path)
        return seat, peg["from"]

    def _choose_peg(self, tap: Tap) -> PegsRace:
        """The peg to move, when destinations of several pegs are shared."""
        self._player(tap)
        peg = self._peg_of(tap.get("peg"), ".peg")
        return self if peg == self.peg else replace(self, peg=peg)

    def _first_part(self, tap: Tap) -> PegsRace:
        """A split's first part (``step``), kept until the second; None: none again."""
        self._player(tap)
        raw = tap.get("step")
        if raw is None:
            return (
                self
                if self.first is None and self.peg is None
                else replace(self, first=None, peg=None)
            )
        if self.picked is None:
            raise Refused("Choose the card first.", ".step")
        step = self._step_of(raw, "step")
        split = [o for o in self.options(self.picked) if o["continues"]]
        if not any(engine.Step.from_json(_step_of(o), self.seats) == step for o in split):
            raise Refused("That is not the first part of a split of this card.", ".step")
        return replace(self, first=step, peg=None)

    def _check_hand(self, tap: Tap) -> PegsRace:
        """The cards in the player's hand (ranks, at most five): which can move?"""
        self._player(tap)
        ranks = tap.get("hand")
        if not isinstance(ranks, list | tuple) or any(r not in RANKS for r in ranks):
            raise Refused("Choose cards from A, 2 to 10, J, Q, K and the joker.", ".hand")
        if len(ranks) > HAND_SIZE:
            raise Refused(Text("A hand holds at most %(n)d cards.", n=HAND_SIZE), ".hand")
        hand = tuple(hand_codes(list(ranks)))
        return self if hand == self.hand else replace(self, hand=hand)

    def _set_up(self, tap: Tap) -> PegsRace:
        """Set-up: the peg to put on another hole (any seat's, whoever's turn it is)."""
        peg = self._peg_of(tap.get("peg"), ".peg")
        return self if peg == self.fixing else replace(self, fixing=peg)

    def closing_entry(self) -> dict | None:
        """What the last play stores: a move as its ``pegs-apply`` request (scored by the
        engine); a discard or a correction as a ``pegs-board`` entry, the board as it
        stands, no engine (its ``result`` given: the board, no bumps, the winner); a
        discard's request names it, ``{"seat", "card"}`` (the card None: not entered)."""
        last = self.plays[-1] if self.plays else None
        if last is None:
            return None
        if last.action == "move":
            return {"kind": "pegs-apply", "request": self.apply_request(last)}
        board = self.state()
        request = board
        if last.action == "discard":
            request = {**board, "discard": {"seat": last.seat, "card": last.card}}
        result = {**board, "bumps": [], "winner_team": self.winner_team}
        return {"kind": "pegs-board", "request": request, "result": result}

    # ― the answer ―

    def apply_request(self, play: Play) -> dict:
        """The CONTRACT ``pegs-apply`` request of a move."""
        return {
            "seats": self.seats,
            "pegs": {str(s): list(p) for s, p in enumerate(play.before)},
            "house_rules": {"team_pegs": self.team_pegs, "nine": self.nine},
            "player": play.seat,
            "card": play.card,
            "steps": [s.as_json() for s in play.steps],
        }

    def play_text(self, play: Play) -> str:
        who = self.players[play.seat]
        if play.action == "discard" and play.card is None:  # the card was not entered
            return str(Text("%(name)s discarded a card.", name=who))
        if play.action == "discard":
            return gettext(
                "%(name)s discarded %(rank)s: no card could move.",
                name=who,
                rank=rank_text(parse_card(play.card)),
            )
        steps = ", ".join(
            f"{self.players[s.seat]} {engine.position_name(s.frm)}→{engine.position_name(s.to)}"
            for s in play.steps
        )
        if play.action == "place":
            # Translators: %(steps)s are moves such as "Ana T3→T8"
            return gettext("Set by hand: %(steps)s.", steps=steps)
        bumps = "".join(" " + self._bump_text(b) for b in play.bumps)
        return gettext(
            "%(name)s played %(rank)s: %(steps)s.%(bumps)s",
            name=who,
            rank=rank_text(parse_card(play.card)),
            steps=steps,
            bumps=bumps,
        )

    def _bump_text(self, bump) -> str:
        name, frm = self.players[bump.seat], engine.position_name(bump.frm)
        if bump.to == engine.START:
            return gettext("%(name)s's peg on %(frm)s goes to start.", name=name, frm=frm)
        return gettext(
            "%(name)s's peg on %(frm)s goes to %(to)s.",
            name=name,
            frm=frm,
            to=engine.position_name(bump.to),
        )

    def legal(self) -> list[dict]:
        out: list[dict] = [
            {"action": "place", "seat": list(range(self.seats)), "from": None, "to": None},
            {"action": "turn", "seat": list(range(self.seats))},
        ]
        if self.complete:
            return out
        ranks = self.movable_ranks()
        head = [{"action": "discard", "seat": [self.turn], "card": None, "hand": None}]
        if ranks:
            head.insert(0, {"action": "move", "seat": [self.turn], "card": ranks, "steps": None})
        return head + out

    def to_json(self) -> dict:
        winner = self.winner_team
        last = self.plays[-1] if self.plays else None
        if winner is not None:
            members = [n for s, n in enumerate(self.players) if s % 2 == winner]
            text = gettext(
                "Team %(team)s wins: %(names)s.", team=winner + 1, names=", ".join(members)
            )
            step = "over"
        else:
            text = gettext(
                "%(name)s's turn: play a card, or discard when nothing but a joker can move.",
                name=self.players[self.turn],
            )
            step = "play"
        return {
            "game": self.game,
            "players": list(self.players),
            "phase": step,
            "next": {"step": step, "text": text},
            "turn": None if winner is not None else self.turn,
            "legal": self.legal(),
            "stuck": self.stuck(),
            "board": self.state(),
            "teams": [[s for s in range(self.seats) if s % 2 == t] for t in (0, 1)],
            "log": [
                {
                    "action": p.action,
                    "seat": p.seat,
                    "card": p.card,
                    "steps": [s.as_json() for s in p.steps],
                    "bumps": [b.as_json() for b in p.bumps],
                    "text": self.play_text(p),
                }
                for p in self.plays
            ],
            "winner_team": winner,
            "complete": winner is not None,
            "closing": (
                {"kind": "pegs-apply", "request": self.apply_request(last)}
                if last is not None and last.action == "move"
                else None
            ),
        }


def _pegs(board: engine.Board) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(board.positions(s)) for s in range(board.seats))


def _code(card: object) -> object:
    """A rank stands for a card of it (suits never matter here); a code stays."""
    return card_for_rank(card) if card in RANKS else card


def _step_of(option: dict) -> dict:
    return {k: option[k] for k in ("seat", "from", "to")}


_CLEARED = {"picked": None, "peg": None, "first": None, "hand": (), "fixing": None}


_HANDLERS = {
    "move": PegsRace._move,
    "discard": PegsRace._discard,
    "place": PegsRace._place,
    "turn": PegsRace._turn,
    "pick": PegsRace._pick,
    "peg": PegsRace._choose_peg,
    "first": PegsRace._first_part,
    "hand": PegsRace._check_hand,
    "setpeg": PegsRace._set_up,
}
_ARGS = {
    "move": ("seat", "card", "steps"),
    "discard": ("seat", "card", "hand"),
    "place": ("seat", "from", "to"),
    "turn": ("seat",),
    "pick": ("seat", "card"),
    "peg": ("seat", "peg"),
    "first": ("seat", "step"),
    "hand": ("seat", "hand"),
    "setpeg": ("peg",),
}

__all__ = ["PegsRace", "first_turn", "hand_codes", "next_seat"]
