"""Properties of the Pegs and Jokers engine on random valid boards (RULES.md §5).

The move generator (fast, incremental) and the move referee (``verify_move``, step by
step with reasons) are written separately; these tests hold them to each other and to
a brute-force search that tries every plausible step list on the referee.
"""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekeeper import api
from scorekeeper.cards import JOKER, parse_card
from scorekeeper.errors import RuleError
from scorekeeper.games.pegs import START, Board, Move, Step, home

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CARDS = ["AS", "2H", "3D", "4C", "5S", "6H", "7D", "8C", "9S", "10H", "JD", "QC", "KS", "JK", "RJ"]
SPLIT_CARDS = ["7H", "7C", "9D", "9S"]


@st.composite
def states(draw, seat_counts=(4, 6, 8)) -> dict:
    """A valid board, crowded near the in-spots and come-out holes where the rules bite."""
    seats = draw(st.sampled_from(seat_counts))
    length = 18 * seats
    spots = sorted(
        {
            (18 * s + offset + k) % length
            for s in range(seats)
            for offset in (3, 8)
            for k in range(-4, 6)
        }
    )
    crowd = draw(st.integers(0, length - 1))  # a stretch where pegs pile up
    hole = st.one_of(
        st.sampled_from(spots),
        st.integers(0, length - 1),
        st.integers(crowd, crowd + 14).map(lambda h: h % length),
    )
    taken: set[int] = set()
    pegs = {}
    for seat in range(seats):
        kinds = draw(st.lists(st.sampled_from("STTTH"), min_size=5, max_size=5))
        depths = draw(st.permutations([1, 2, 3, 4, 5]))
        row = []
        for kind, depth in zip(kinds, depths, strict=True):
            if kind == "T":
                at = draw(hole)
                if at not in taken:
                    taken.add(at)
                    row.append(f"T{at}")
                    continue
            row.append(f"H{depth}" if kind == "H" else "S")
        pegs[str(seat)] = row
    request = {"seats": seats, "pegs": pegs}
    rules = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "team_pegs": st.sampled_from(["any", "own_first", "own"]),
                "nine": st.sampled_from(["split_forward", "split_back", "forward"]),
            },
        )
    )
    if rules:
        request["house_rules"] = rules
    return request


@st.composite
def questions(draw, seat_counts=(4, 6, 8), cards=CARDS) -> dict:
    request = draw(states(seat_counts))
    request["player"] = draw(st.integers(0, request["seats"] - 1))
    request["card"] = draw(st.sampled_from(cards))
    return request


def board_of(request: dict) -> Board:
    return Board.from_json(request)


def step_tuples(move: dict) -> tuple:
    return tuple((s["seat"], s["from"], s["to"]) for s in move["steps"])


def full_set(request: dict) -> set[tuple]:
    """Every legal step list (duplicates of a board included), in CONTRACT notation."""
    board = board_of(request)
    return {
        tuple((s.seat, _name(s.frm), _name(s.to)) for s in move.steps)
        for move in board.all_step_lists(request["player"], request["card"])
    }


def _name(pos: int) -> str:
    from scorekeeper.games.pegs import position_name

    return position_name(pos)


def applied(request: dict, steps: tuple) -> dict:
    body = {
        key: request[key]
        for key in ("seats", "pegs", "house_rules", "player", "card")
        if key in request
    }
    body["steps"] = [{"seat": seat, "from": frm, "to": to} for seat, frm, to in steps]
    return api.evaluate("pegs-apply", body)


def board_key(pegs: dict) -> tuple:
    return tuple((seat, tuple(sorted(positions))) for seat, positions in sorted(pegs.items()))


# ── every listed move is accepted and yields its board ──────────────────────────


@SETTINGS
@given(questions())
def test_listed_moves_are_accepted_and_yield_distinct_boards(request):
    listed = api.evaluate("pegs-moves", request)["moves"]
    boards = []
    for move in listed[:: max(1, len(listed) // 60)]:
        done = applied(request, step_tuples(move))
        assert done["bumps"] == move["bumps"]
        # peg counts conserved, no two pegs in a hole: the new state is a valid board
        assert all(len(done["pegs"][str(s)]) == 5 for s in range(request["seats"]))
        Board.from_json({"seats": request["seats"], "pegs": done["pegs"]})
        boards.append(board_key(done["pegs"]))
    assert len(boards) == len(set(boards))


@SETTINGS
@given(questions(seat_counts=(4, 6), cards=SPLIT_CARDS + ["JK", "AS", "8C", "5S"]))
def test_one_move_per_resulting_board_and_none_missing(request):
    listed = api.evaluate("pegs-moves", request)["moves"]
    board = board_of(request)
    player, card = request["player"], request["card"]
    moves = board.legal_moves(player, card)
    assert [m.as_json() for m in moves] == listed
    full = board.all_step_lists(player, card)
    assert {m.steps for m in moves} <= {m.steps for m in full}

    def board_after(move: Move) -> tuple:
        board.push(move)
        key = board.key()
        board.pop()
        return key

    by_board = {board_after(m) for m in moves}
    assert len(by_board) == len(moves)
    assert {board_after(m) for m in full} == by_board


@SETTINGS
@given(questions(seat_counts=(4, 6), cards=SPLIT_CARDS + ["5S", "JK"]))
def test_each_step_has_its_own_bumps_and_together_they_are_the_moves(request):
    """A move's bumps, step by step: concatenated they are the move's bumps in order,
    each step's begin on the hole it lands on, and the referee splits them the same."""
    board = board_of(request)
    player, card = request["player"], request["card"]
    full = board.all_step_lists(player, card)
    for move in full[:: max(1, len(full) // 60)]:
        parts = move.step_bumps()
        assert len(parts) == len(move.steps)
        assert tuple(b for bumps in parts for b in bumps) == move.bumps
        for step, bumps in zip(move.steps, parts, strict=True):
            assert not bumps or bumps[0].frm == step.to
        assert board.verify_move(Move(player, move.card, move.steps)) == move


# ── the referee agrees with the generator ───────────────────────────────────────


def _geometric_targets(board: Board, seat: int, pos: int, distance: int) -> set[int]:
    """Positions at exactly ``distance`` holes (negative: backward), by geometry only:
    the referee alone decides what is legal."""
    found = set()
    if pos >= 0:
        found.add((pos + distance) % board.length)
        if distance > 0:
            depth = distance - (board.in_spot[seat] - pos) % board.length
            if 1 <= depth <= 5:
                found.add(home(depth))
    elif pos <= -2 and distance > 0 and -1 - pos + distance <= 5:
        found.add(home(-1 - pos + distance))
    return found


def brute_force(board: Board, player: int, card_text: str) -> set[tuple]:
    """Every step list the referee accepts among all plausible ones."""
    card = parse_card(card_text)
    every = [START, *range(board.length), *(home(h) for h in range(1, 6))]
    pegs = [(seat, pos) for seat in range(board.seats) for pos in set(board.pegs[seat])]
    accepted = set()

    def ok(*steps: Step) -> None:
        if board.is_legal(Move(player, card, steps)):
            accepted.add(tuple((s.seat, _name(s.frm), _name(s.to)) for s in steps))

    for seat, pos in pegs:  # every single step
        for to in every:
            ok(Step(seat, pos, to))
    splittable = card.rank == 7 or card.rank == 9 and board.nine != "forward"
    if not splittable or card.rank == JOKER:
        return accepted
    back = card.rank == 9 and board.nine == "split_back"
    signs = (1, -1) if back else (1,)
    for seat, pos in pegs:
        if pos == START:
            continue
        for first in range(1, card.rank):
            for sign in signs:
                second = (-sign if back else 1) * (card.rank - first)
                for to in _geometric_targets(board, seat, pos, sign * first):
                    # the second peg: any peg, the first one again, or one bumped to an in-spot
                    others = (
                        set(pegs)
                        | {(seat, to)}
                        | {(s, board.in_spot[s]) for s in range(board.seats)}
                    )
                    for seat2, pos2 in others:
                        for to2 in _geometric_targets(board, seat2, pos2, second):
                            ok(Step(seat, pos, to), Step(seat2, pos2, to2))
    return accepted


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(questions(seat_counts=(4,)))
def test_generator_and_referee_agree_exhaustively(request):
    board = board_of(request)
    assert brute_force(board, request["player"], request["card"]) == full_set(request)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(questions(seat_counts=(4, 6), cards=SPLIT_CARDS))
def test_generator_and_referee_agree_exhaustively_on_splits(request):
    board = board_of(request)
    assert brute_force(board, request["player"], request["card"]) == full_set(request)


def _random_step(draw, request: dict) -> tuple:
    seats = request["seats"]
    seat = draw(st.integers(0, seats - 1))
    own = request["pegs"][str(seat)]
    frm = draw(
        st.one_of(st.sampled_from(own), st.sampled_from(["S", "H1", "T0", f"T{18 * seat + 3}"]))
    )
    if frm.startswith("T"):
        near = [f"T{(int(frm[1:]) + k) % (18 * seats)}" for k in range(-9, 11)]
    else:
        near = ["S", f"T{18 * seat + 8}"]
    to = draw(st.sampled_from(near + ["H1", "H2", "H3", "H4", "H5", "S"]))
    return (seat, frm, to)


def _near_miss(draw, steps: tuple, length: int) -> tuple:
    """A legal step list, slightly changed: another hole, the other order, another seat."""
    steps = list(steps)
    index = draw(st.integers(0, len(steps) - 1))
    seat, frm, to = steps[index]
    how = draw(st.sampled_from(["to", "seat", "order"]))
    if how == "to" and to.startswith("T"):
        shift = draw(st.sampled_from([-2, -1, 1, 2]))
        steps[index] = (seat, frm, f"T{(int(to[1:]) + shift) % length}")
    elif how == "seat":
        steps[index] = ((seat + draw(st.integers(1, 3))) % (length // 18), frm, to)
    else:
        steps.reverse()
    return tuple(steps)


@SETTINGS
@given(questions(cards=CARDS + SPLIT_CARDS), st.data())
def test_a_step_list_is_accepted_exactly_when_it_is_legal(request, data):
    """A step list pegs-moves could not list (its full set, before one-per-board) is
    refused; one it could is accepted and leaves a board pegs-moves lists."""
    full = full_set(request)
    mode = data.draw(st.sampled_from(["random", "legal", "near miss"]))
    if mode == "random" or not full:
        count = data.draw(st.integers(1, 2))
        steps = tuple(_random_step(data.draw, request) for _ in range(count))
    else:
        steps = data.draw(st.sampled_from(sorted(full)))
        if mode == "near miss":
            steps = _near_miss(data.draw, steps, 18 * request["seats"])
    try:
        done = applied(request, steps)
    except RuleError as err:
        assert steps not in full
        assert err.message and err.path.startswith("steps")
        return
    assert steps in full
    listed_boards = {
        board_key(applied(request, step_tuples(m))["pegs"])
        for m in api.evaluate("pegs-moves", request)["moves"]
    }
    assert board_key(done["pegs"]) in listed_boards


# ── symmetry, hands, push/pop ───────────────────────────────────────────────────


def _rotate(request: dict, by: int = 2) -> dict:
    seats = request["seats"]
    length = 18 * seats

    def turn(pos: str) -> str:
        return f"T{(int(pos[1:]) + 18 * by) % length}" if pos.startswith("T") else pos

    rotated = copy.deepcopy(request)
    rotated["pegs"] = {
        str((int(seat) + by) % seats): [turn(p) for p in row]
        for seat, row in request["pegs"].items()
    }
    rotated["player"] = (request["player"] + by) % seats
    return rotated, turn


@SETTINGS
@given(questions(cards=CARDS + SPLIT_CARDS))
def test_rotating_every_seat_by_two_rotates_the_legal_moves(request):
    rotated, turn = _rotate(request)
    seats = request["seats"]
    expected = {
        tuple(((seat + 2) % seats, turn(frm), turn(to)) for seat, frm, to in steps)
        for steps in full_set(request)
    }
    assert full_set(rotated) == expected
    assert len(api.evaluate("pegs-moves", rotated)["moves"]) == len(
        api.evaluate("pegs-moves", request)["moves"]
    )


@SETTINGS
@given(states(), st.data())
def test_a_hand_agrees_with_asking_each_card(request, data):
    request["player"] = data.draw(st.integers(0, request["seats"] - 1))
    hand = data.draw(st.lists(st.sampled_from(CARDS), min_size=1, max_size=5, unique=True))
    answer = api.evaluate("pegs-moves", {**request, "hand": hand})
    playable = [c for c in hand if api.evaluate("pegs-moves", {**request, "card": c})["moves"]]
    assert answer["playable"] == playable
    non_jokers = [c for c in playable if parse_card(c).rank != JOKER]
    assert answer["must_play"] == bool(non_jokers)
    assert answer["joker_only"] == (bool(playable) and not non_jokers)


@SETTINGS
@given(questions(cards=CARDS + SPLIT_CARDS), st.data())
def test_push_then_pop_restores_the_board(request, data):
    board = board_of(request)
    listed = board.legal_moves(request["player"], request["card"])
    if not listed:
        return
    move = data.draw(st.sampled_from(listed))
    before = (board.key(), list(board.track), [list(p) for p in board.pegs])
    played = board.push(move)
    assert played.bumps == move.bumps
    assert sorted(len(p) for p in board.pegs) == [5] * board.seats
    occupied = [p for row in board.pegs for p in row if p >= 0]
    assert len(occupied) == len(set(occupied)) == sum(1 for s in board.track if s >= 0)
    for row in board.pegs:  # one peg per home hole
        lane = [p for p in row if p <= -2]
        assert len(lane) == len(set(lane))
    assert board.pop() == played
    assert (board.key(), list(board.track)) == before[:2]


# ── nothing but RuleError, whatever arrives ─────────────────────────────────────

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
    | st.sampled_from(["S", "T8", "H1", "H6", "T999", "7H", "JK", "any", "split_back"]),
    lambda inner: (
        st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=6), inner, max_size=5)
    ),
    max_leaves=25,
)


def _answers_or_refuses(kind: str, request: object) -> None:
    try:
        result = api.evaluate(kind, request)
    except RuleError as err:
        assert isinstance(err.message, str) and err.message
        assert isinstance(err.path, str)
    else:
        assert isinstance(result, dict)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["pegs-moves", "pegs-apply"]), JSON)
def test_any_json_is_answered_or_refused(kind, request):
    _answers_or_refuses(kind, request)


@settings(max_examples=120, deadline=None)
@given(questions(seat_counts=(4, 6)), st.data())
def test_damaged_requests_are_answered_or_refused(request, data):
    kind = data.draw(st.sampled_from(["pegs-moves", "pegs-apply"]))
    if kind == "pegs-apply":
        request["steps"] = [{"seat": 0, "from": "T8", "to": "T9"}]
    damaged = copy.deepcopy(request)
    target, key = damaged, None
    for _ in range(data.draw(st.integers(1, 3))):
        if isinstance(target, dict) and target:
            key = data.draw(st.sampled_from(sorted(target, key=str)))
        elif isinstance(target, list) and target:
            key = data.draw(st.integers(0, len(target) - 1))
        else:
            break
        if isinstance(target[key], dict | list) and data.draw(st.booleans()):
            target = target[key]
            key = None
        else:
            break
    action = data.draw(st.sampled_from(["replace", "delete", "add"]))
    if key is None or action == "add":
        if isinstance(target, dict):
            target[data.draw(st.text(max_size=5))] = data.draw(JSON)
        elif isinstance(target, list):
            target.append(data.draw(JSON))
    elif action == "delete":
        del target[key]
    else:
        target[key] = data.draw(JSON)
    _answers_or_refuses(kind, damaged)
