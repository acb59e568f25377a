"""Arizona Pegs and Jokers (RULES.md §5, CONTRACT "Pegs and Jokers"): the board model,
notation, the legal-move generator and the move referee."""

from __future__ import annotations

import copy
import doctest
import json
from pathlib import Path

import pytest

from scorekeeper import api
from scorekeeper.errors import RuleError
from scorekeeper.games import pegs
from scorekeeper.games.pegs import (
    Board,
    IllegalMoveError,
    InvalidBoardError,
    InvalidNotationError,
    Move,
    Step,
    home,
    parse_position,
    position_name,
)

DATA = Path(__file__).parent / "data"
EXAMPLES = DATA / "examples"


# ── helpers ─────────────────────────────────────────────────────────────────────


def state(seats: int = 4, rules: dict | None = None, **pegs_by_seat) -> dict:
    """A request state; ``s0=["T8"]`` gives seat 0 a peg on T8, the rest in start."""
    pegs_ = {}
    for seat in range(seats):
        listed = list(pegs_by_seat.get(f"s{seat}", []))
        pegs_[str(seat)] = listed + ["S"] * (5 - len(listed))
    request = {"seats": seats, "pegs": pegs_}
    if rules:
        request["house_rules"] = rules
    return request


def moves(request: dict, player: int, card: str) -> list[dict]:
    return api.evaluate("pegs-moves", {**request, "player": player, "card": card})["moves"]


def step_lists(request: dict, player: int, card: str) -> list[list[str]]:
    """Each listed move as ["0 T8-T11", ...] (playing order kept)."""
    return [
        [f"{s['seat']} {s['from']}-{s['to']}" for s in move["steps"]]
        for move in moves(request, player, card)
    ]


def as_steps(*texts: str) -> list[dict]:
    out = []
    for text in texts:
        seat, way = text.split(" ")
        frm, to = way.split("-")
        out.append({"seat": int(seat), "from": frm, "to": to})
    return out


def apply(request: dict, player: int, card: str, *steps: str) -> dict:
    body = {**request, "player": player, "card": card, "steps": as_steps(*steps)}
    return api.evaluate("pegs-apply", body)


def refusal(request: dict, player: int, card: str, *steps: str) -> RuleError:
    with pytest.raises(RuleError) as info:
        apply(request, player, card, *steps)
    return info.value


def board_of(response_or_request: dict) -> tuple:
    """A comparable board: per seat the sorted positions."""
    return tuple(
        (seat, tuple(sorted(positions)))
        for seat, positions in sorted(response_or_request["pegs"].items())
    )


def resulting_boards(request: dict, player: int, card: str, listed: list[dict]) -> list[tuple]:
    out = []
    for move in listed:
        body = {**request, "player": player, "card": card, "steps": move["steps"]}
        out.append(board_of(api.evaluate("pegs-apply", body)))
    return out


def bumps_of(response: dict) -> list[str]:
    return [f"{b['seat']} {b['from']}-{b['to']}" for b in response["bumps"]]


# ── worked examples (through api.evaluate) ──────────────────────────────────────


def _cases(kind: str):
    for i, case in enumerate(json.loads((EXAMPLES / f"{kind}.json").read_text())):
        yield pytest.param(case, id=f"{kind}-{i}")


@pytest.mark.parametrize("case", list(_cases("pegs-moves")))
def test_pegs_moves_examples(case):
    request = case["request"]
    if "refused" in case:
        with pytest.raises(RuleError) as info:
            api.evaluate("pegs-moves", request)
        assert info.value.message and info.value.path == "seats"
        return
    got = api.evaluate("pegs-moves", request)
    expected = case["response"]
    if "moves" in expected:
        player, card = request["player"], request["card"]
        ours = resulting_boards(request, player, card, got["moves"])
        theirs = resulting_boards(request, player, card, expected["moves"])
        assert len(ours) == len(set(ours)), "a board is listed twice"
        assert set(ours) == set(theirs)
    else:
        assert sorted(got["playable"]) == sorted(expected["playable"])
        assert got["must_play"] == expected["must_play"]
        assert got["joker_only"] == expected["joker_only"]


@pytest.mark.parametrize("case", list(_cases("pegs-apply")))
def test_pegs_apply_examples(case):
    request = case["request"]
    if "refused" in case:
        with pytest.raises(RuleError) as info:
            api.evaluate("pegs-apply", request)
        assert info.value.message == case["refused"]
        return
    got = api.evaluate("pegs-apply", request)
    expected = case["response"]
    assert got["pegs"] == expected["pegs"]
    assert sorted(bumps_of(got)) == sorted(bumps_of(expected))
    assert got["winner_team"] == expected["winner_team"]


def test_kinds_are_dispatched_to_this_module():
    for kind in ("pegs-moves", "pegs-apply"):
        assert api.engine_for(kind) is pegs.KINDS[kind]


def test_doctests():
    result = doctest.testmod(pegs)
    assert result.attempted >= 5 and result.failed == 0


# ── the bench boards: move counts (RULES wins; these match it) ─────────────────


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, id=c["name"]) for c in json.loads((DATA / "pegs-boards.json").read_text())],
)
def test_bench_board_move_counts(case):
    got = api.evaluate("pegs-moves", case["request"])["moves"]
    assert len(got) == case["legal_moves"]


def test_bench_board_7h_lists_each_board_once():
    case = json.loads((DATA / "pegs-boards.json").read_text())[0]
    request = case["request"]
    listed = moves(request, 0, "7H")
    board = Board.from_json(request)
    keys = set()
    for move in listed:
        steps = tuple(Step.from_json(s, 8) for s in move["steps"])
        board.push(Move(0, pegs.parse_card("7H"), steps))
        keys.add(board.key())
        board.pop()
    assert len(keys) == len(listed) == 1249


# ── notation ────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("text", ["S", "T0", "T71", "H1", "H5"])
def test_position_round_trip(text):
    assert position_name(parse_position(text, 72)) == text


@pytest.mark.parametrize(("text", "canonical"), [("t12", "T12"), ("h3", "H3"), ("s", "S")])
def test_position_accepts_any_case(text, canonical):
    assert position_name(parse_position(text, 72)) == canonical


@pytest.mark.parametrize("text", ["T72", "H0", "H6", "X3", "T", "T-1", "", "T 3", 3, None])
def test_bad_positions_are_refused(text):
    with pytest.raises(InvalidNotationError):
        parse_position(text, 72)


def test_step_and_move_round_trip():
    step = Step.parse("2 T40-H3")
    assert (step.seat, step.frm, step.to) == (2, 40, home(3))
    assert str(step) == "2 T40-H3"
    move = Move.parse("0 7H: 0 T8-T11, 2 T40-T44")
    assert str(move) == "0 7H: 0 T8-T11, 2 T40-T44"
    assert Move.parse(str(move)) == move
    assert move.as_json()["steps"][1] == {"seat": 2, "from": "T40", "to": "T44"}


@pytest.mark.parametrize("text", ["", "0", "0 T8", "x T8-T9", "0 T8-Q9"])
def test_bad_steps_are_refused(text):
    with pytest.raises(InvalidNotationError):
        Step.parse(text)


# ── P-D1: the board model ───────────────────────────────────────────────────────


@pytest.mark.parametrize("seats", [4, 6, 8])
def test_p_d1_track_come_out_and_in_spot(seats):
    board = Board(seats)
    assert board.length == 18 * seats
    for seat in range(seats):
        assert board.come_out[seat] == 18 * seat + 8
        assert board.in_spot[seat] == 18 * seat + 3
        assert board.team[seat] == seat % 2


@pytest.mark.parametrize("seats", [4, 6, 8])
def test_p_d1_come_out_onto_co_and_one_step_from_in_spot_reaches_h1(seats):
    last = seats - 1
    co, in_spot = f"T{18 * last + 8}", f"T{18 * last + 3}"
    request = state(seats, {"team_pegs": "own"}, **{f"s{last}": [in_spot]})
    assert sorted(step_lists(request, last, "AS")) == sorted(
        [[f"{last} S-{co}"], [f"{last} {in_spot}-T{18 * last + 4}"], [f"{last} {in_spot}-H1"]]
    )


def test_p_d1_forward_wraps_round_the_track_and_passes_the_in_spot():
    # seat 0 on T71 (the last hole of 4 seats): 5 forward is T4, or home via T3 → H1
    request = state(s0=["T71"])
    assert sorted(step_lists(request, 0, "5H")) == [["0 T71-H1"], ["0 T71-T4"]]


def test_p_d1_in_spot_and_come_out_are_ordinary_holes_for_others():
    # seat 1 passes seat 0's in-spot T3 and lands on seat 0's come-out T8
    request = state(s1=["T1"])
    assert step_lists(request, 1, "7C") == [["1 T1-T8"]]


def test_p_d1_start_pegs_only_come_out():
    request = state(s0=["S"])
    assert moves(request, 0, "5H") == []
    assert sorted(step_lists(request, 0, "KD")) == [["0 S-T8"], ["2 S-T44"]]


# ── P-D2: whose pegs (house rule team_pegs) ─────────────────────────────────────


def test_p_d2_any_team_peg_may_move_but_never_an_opponents():
    request = state(s0=["T10"], s1=["T30"], s2=["T50"])
    assert sorted(step_lists(request, 0, "2S")) == [["0 T10-T12"], ["2 T50-T52"]]
    err = refusal(request, 0, "2S", "1 T30-T32")
    assert "other team" in err.message and err.path == "steps[0].seat"


def test_p_d2_own_moves_only_your_own_pegs():
    request = state(rules={"team_pegs": "own"}, s0=["T10"], s2=["T50"])
    assert step_lists(request, 0, "2S") == [["0 T10-T12"]]
    assert "team_pegs=own" in refusal(request, 0, "2S", "2 T50-T52").message


def test_p_d2_own_first_partner_only_once_all_own_are_home():
    request = state(rules={"team_pegs": "own_first"}, s0=["T10"], s2=["T50"])
    assert step_lists(request, 0, "2S") == [["0 T10-T12"]]
    assert "own_first" in refusal(request, 0, "2S", "2 T50-T52").message
    home_ = state(rules={"team_pegs": "own_first"}, s0=["H1", "H2", "H3", "H4", "H5"], s2=["T50"])
    assert step_lists(home_, 0, "2S") == [["2 T50-T52"]]


def test_p_d2_own_first_is_checked_before_each_part_of_a_split():
    request = state(rules={"team_pegs": "own_first"}, s0=["T2", "H2", "H3", "H4", "H5"], s2=["T50"])
    # the last own peg goes home with 2 (T3, H1), the partner's peg takes the other 5
    assert ["0 T2-H1", "2 T50-T55"] in step_lists(request, 0, "7H")
    done = apply(request, 0, "7H", "0 T2-H1", "2 T50-T55")
    assert done["pegs"]["0"] == ["H1", "H2", "H3", "H4", "H5"]
    # the other order moves the partner first: refused
    assert "own_first" in refusal(request, 0, "7H", "2 T50-T55", "0 T2-H1").message


def test_p_d2_own_first_split_from_a_higher_seat_keeps_its_only_order():
    # seat 2 brings its last peg home (T38 → T39 → H1), then partner seat 0 moves 5; the
    # other order is illegal, so this order must be listed (not dropped as a duplicate)
    request = state(
        rules={"team_pegs": "own_first"}, s2=["T38", "H2", "H3", "H4", "H5"], s0=["T10"]
    )
    listed = step_lists(request, 2, "7H")
    assert ["2 T38-H1", "0 T10-T15"] in listed
    assert ["0 T10-T15", "2 T38-H1"] not in listed


# ── P-D3: the 9 (house rule nine) and splits ────────────────────────────────────


def test_p_d3_seven_splits_over_two_different_pegs():
    request = state(s0=["T10"], s2=["T50"])
    listed = step_lists(request, 0, "7H")
    assert ["0 T10-T17"] in listed and ["2 T50-T57"] in listed
    splits = [m for m in listed if len(m) == 2]
    assert len(splits) == 6  # parts 1+6 … 6+1, each board once
    err = refusal(request, 0, "7H", "0 T10-T13", "0 T13-T17")
    assert err.message == "The 7 must be split over two different pegs."
    assert "add up to 7" in refusal(request, 0, "7H", "0 T10-T13", "2 T50-T55").message


def test_p_d3_split_forward_nine():
    request = state(rules={"nine": "split_forward"}, s0=["T10"], s2=["T50"])
    assert len(moves(request, 0, "9H")) == 2 + 8
    assert apply(request, 0, "9H", "0 T10-T14", "2 T50-T55")["pegs"]["2"][-1] == "T55"
    assert "go forward" in refusal(request, 0, "9H", "0 T10-T6", "2 T50-T55").message


def test_p_d3_split_back_nine_one_part_each_way_either_order():
    request = state(rules={"nine": "split_back"}, s0=["T10"], s2=["T50"])
    listed = step_lists(request, 0, "9H")
    assert ["0 T10-T6", "2 T50-T55"] in listed or ["2 T50-T55", "0 T10-T6"] in listed
    assert apply(request, 0, "9H", "2 T50-T55", "0 T10-T6")["pegs"]["0"][-1] == "T6"
    assert apply(request, 0, "9H", "0 T10-T6", "2 T50-T55")["pegs"]["2"][-1] == "T55"
    assert "split_back" in refusal(request, 0, "9H", "0 T10-T14", "2 T50-T55").message
    # 9 forward with one peg stays allowed; two whole directions: 2 singles + 8·2 splits
    assert ["0 T10-T19"] in listed
    assert len(listed) == 2 + 16


def test_p_d3_forward_nine_never_splits():
    request = state(rules={"nine": "forward"}, s0=["T10"], s2=["T50"])
    assert sorted(step_lists(request, 0, "9H")) == [["0 T10-T19"], ["2 T50-T59"]]
    assert "cannot be split" in refusal(request, 0, "9H", "0 T10-T14", "2 T50-T55").message


def test_p_d3_second_part_sees_the_first_parts_result():
    # own pegs on T10 and T12: T12 moves on first, then T10 may pass where it stood
    request = state(s0=["T10", "T12"])
    assert apply(request, 0, "7H", "0 T12-T15", "0 T10-T14")["pegs"]["0"][-2:] == ["T14", "T15"]
    err = refusal(request, 0, "7H", "0 T10-T14", "0 T12-T15")
    assert err.message == "T14 would pass your own peg on T12."


def test_p_d3_second_part_sees_the_first_parts_bumps():
    # the first part bumps the partner on T13 to its in-spot T39; the second moves it on
    request = state(s0=["T10"], s2=["T13"])
    assert ["0 T10-T13", "2 T39-T43"] in step_lists(request, 0, "7H")
    done = apply(request, 0, "7H", "0 T10-T13", "2 T39-T43")
    assert bumps_of(done) == ["2 T13-T39"]
    assert (done["pegs"]["0"][-1], done["pegs"]["2"][-1]) == ("T13", "T43")
    assert "no peg on T39" in refusal(request, 0, "7H", "2 T39-T43", "0 T10-T13").message


def _split_of(moves: list[Move], *steps: str) -> Move:
    [move] = [m for m in moves if [str(s) for s in m.steps] == list(steps)]
    return move


def test_p_d3_each_part_of_a_split_has_its_own_bumps():
    # the first part lands on the partner on T15, who goes to its in-spot T39 and sends
    # the opponent there to start; the second part sends the opponent on T22 to start
    board = Board.from_json(state(s0=["T10", "T20"], s2=["T15"], s1=["T39"], s3=["T22"]))
    steps = ("0 T10-T15", "0 T20-T22")
    first, second = ("2 T15-T39", "1 T39-S"), ("3 T22-S",)
    for move in (
        _split_of(board.legal_moves(0, "7H"), *steps),
        _split_of(board.all_step_lists(0, "7H"), *steps),
        board.verify_move(Move.parse("0 7H: " + ", ".join(steps), board.length)),
    ):
        assert [str(b) for b in move.bumps] == [*first, *second]
        parts = [tuple(str(b) for b in bumps) for bumps in move.step_bumps()]
        assert parts == [first, second]


def test_p_d3_a_second_part_landing_where_the_first_went_bumps_on_its_own():
    # the first part bumps nobody; the partner's part lands on that peg and sends it to
    # its in-spot T3: a bump that starts where the first part ended is the second's
    board = Board.from_json(state(s0=["T8"], s2=["T7"]))
    steps = ("0 T8-T11", "2 T7-T11")
    for move in (
        _split_of(board.all_step_lists(0, "7H"), *steps),
        board.verify_move(Move.parse("0 7H: " + ", ".join(steps), board.length)),
    ):
        assert [[str(b) for b in bumps] for bumps in move.step_bumps()] == [[], ["0 T11-T3"]]


def test_a_single_step_makes_every_bump_of_its_move():
    board = Board.from_json(state(s0=["T10"], s2=["T15"], s1=["T39"]))
    [move] = [m for m in board.legal_moves(0, "5S") if str(m.steps[0]) == "0 T10-T15"]
    assert move.step_bumps() == (move.bumps,) and len(move.bumps) == 2


def test_p_d3_same_colour_parts_see_each_other_on_the_track():
    # split_back: T16 backs up 5 to T11, into the path of T10's 4 forward — and the other
    # order passes T14; neither is legal (P-D5)
    request = state(rules={"nine": "split_back"}, s0=["T10", "T16"])
    listed = step_lists(request, 0, "9S")
    assert ["0 T16-T11", "0 T10-T14"] not in listed
    assert ["0 T10-T14", "0 T16-T11"] not in listed
    err = refusal(request, 0, "9S", "0 T16-T11", "0 T10-T14")
    assert err.message == "T14 would pass your own peg on T11." and err.path == "steps[1].to"
    # forward first into the path of a backward part: T14 → T19, then T20 backs up 4
    request = state(rules={"nine": "split_back"}, s0=["T14", "T20"])
    assert ["0 T14-T19", "0 T20-T16"] not in step_lists(request, 0, "9S")
    assert ["0 T20-T16", "0 T14-T19"] not in step_lists(request, 0, "9S")


def test_p_d3_same_colour_parts_see_each_other_in_the_lane():
    # T1 goes home to H1 first; T0 may not then enter H1 too, nor pass it to H2
    request = state(s0=["T1", "T0"])
    listed = step_lists(request, 0, "7H")
    assert ["0 T1-H1", "0 T0-H1"] not in listed
    assert ["0 T1-H2", "0 T0-H1"] not in listed  # 4 + 4 is not 7 anyway
    # the same board either way round (T4 and H1): listed once
    assert (["0 T1-H1", "0 T0-T4"] in listed) != (["0 T1-T4", "0 T0-H1"] in listed)
    assert ["0 T1-H3", "0 T0-T2"] in listed
    err = refusal(request, 0, "7H", "0 T1-H1", "0 T0-H1")
    assert err.message == "H1 is taken by your own peg."
    # a lane peg moving deeper first makes room for one behind it
    request = state(s0=["H1", "T1"])
    listed = step_lists(request, 0, "7H")
    assert ["0 H1-H4", "0 T1-H2"] in listed and ["0 H1-H5", "0 T1-H1"] in listed
    assert ["0 T1-H2", "0 H1-H4"] not in listed  # would pass H1


def test_p_d3_eight_goes_backward_on_the_track_only():
    request = state(s0=["T10", "H2"], s2=["S"])
    assert step_lists(request, 0, "8S") == [["0 T10-T2"]]
    assert "backward" in refusal(request, 0, "8S", "0 T10-T18").message
    assert "lane" in refusal(request, 0, "8S", "0 H2-H1").message
    assert "start" in refusal(request, 0, "8S", "0 S-T0").message


# ── P-D4: jokers ─────────────────────────────────────────────────────────────────


def test_p_d4_joker_takes_start_pegs_first():
    request = state(s0=["T10"], s1=["T30"], s3=["T60"])
    assert sorted(step_lists(request, 0, "JK")) == [
        ["0 S-T30"],
        ["0 S-T60"],
        ["2 S-T10"],  # onto a partner: seat 0's peg goes to its in-spot (P-D6)
        ["2 S-T30"],
        ["2 S-T60"],
    ]
    err = refusal(request, 0, "JK", "0 T10-T30")
    assert "start first" in err.message and err.path == "steps[0].from"


def test_p_d4_partners_start_pegs_count_under_team_pegs_any():
    full = ["T10", "T12", "T14", "T16", "T18"]
    request = state(s0=full, s1=["T30"], s2=["T50"])
    listed = step_lists(request, 0, "JK")
    assert {m[0].split(" ")[0] for m in listed} == {"2"}  # only seat 2's start pegs
    assert all("S-" in m[0] for m in listed)
    own = state(rules={"team_pegs": "own"}, s0=full, s1=["T30"], s2=["T50"])
    assert ["0 T10-T30"] in step_lists(own, 0, "JK")


def test_p_d4_joker_from_the_track_once_start_areas_are_empty():
    request = state(
        s0=["T10", "T12", "T14", "T16", "H1"],
        s2=["T50", "T52", "T54", "T56", "H1"],
        s1=["T30"],
    )
    listed = step_lists(request, 0, "JK")
    assert ["0 T10-T30"] in listed and ["2 T50-T30"] in listed
    # 8 track pegs, each onto the 9 track pegs of other colours
    assert len(listed) == 8 * 5
    colour = {h: s for s, ps in request["pegs"].items() for h in ps if h.startswith("T")}
    assert all(colour[m[0].split("-")[1]] != m[0].split(" ")[0] for m in listed)


def test_p_d4_joker_needs_another_colours_peg():
    request = state(s0=["T10"], s1=["T30"])
    assert "T8 is empty" in refusal(request, 0, "RJ", "0 S-T8").message
    no_start = state(
        s0=["T10", "T11", "T12", "T13", "T14"], s2=["T50", "T51", "T52", "T53", "T54"], s1=["T30"]
    )
    assert "holds its own colour" in refusal(no_start, 0, "JK", "0 T10-T11").message
    assert "lane" in refusal(state(s0=["H1"], s1=["T30"]), 0, "JK", "0 H1-T30").message


def test_p_d4_joker_never_compulsory_and_joker_only_hand():
    request = state(s1=["T30"])
    answer = api.evaluate("pegs-moves", {**request, "player": 0, "hand": ["JK", "5H", "RJ"]})
    assert answer == {"playable": ["JK", "RJ"], "must_play": False, "joker_only": True}


def test_p_d4_jokering_a_partners_start_peg_onto_your_peg_sends_yours_to_its_in_spot():
    request = state(s0=["T10", "T11", "T12", "T13", "T14"], s2=["S"])
    done = apply(request, 0, "JK", "2 S-T12")
    assert bumps_of(done) == ["0 T12-T3"]
    assert done["pegs"]["0"] == ["T3", "T10", "T11", "T13", "T14"]


# ── P-D5: never pass or land on your own colour ─────────────────────────────────


def test_p_d5_no_passing_or_landing_on_own_colour_on_the_track():
    request = state(s0=["T8", "T10"])
    assert "T8" not in [m[0] for m in step_lists(request, 0, "2S")]
    err = refusal(request, 0, "3S", "0 T8-T11")
    assert err.message == "T11 would pass your own peg on T10." and err.path == "steps[0].to"
    assert refusal(request, 0, "2S", "0 T8-T10").message == "T10 is taken by your own peg."
    assert step_lists(request, 0, "3S") == [["0 T10-T13"]]


def test_p_d5_partners_colour_and_opponents_are_passed_freely():
    request = state(s0=["T8"], s2=["T9"], s1=["T10"])
    assert apply(request, 0, "3S", "0 T8-T11")["bumps"] == []


def test_p_d5_home_lane_too():
    request = state(s0=["T1", "H2"])
    # 3 from T1: T2, T3, H1 (H2 is its own peg, so 4 cannot go home)
    assert sorted(step_lists(request, 0, "3S")) == [["0 H2-H5"], ["0 T1-H1"], ["0 T1-T4"]]
    assert refusal(request, 0, "5S", "0 T1-H3").message == "H3 would pass your own peg on H2."


def test_p_d5_partners_pegs_are_judged_by_their_own_colour():
    request = state(s2=["T40", "T42"])
    err = refusal(request, 0, "3S", "2 T40-T43")
    assert "seat 2" in err.message and "T42" in err.message


# ── P-D6: bumping ───────────────────────────────────────────────────────────────


def test_p_d6_opponent_goes_to_start():
    done = apply(state(s0=["T10"], s1=["T15"]), 0, "5S", "0 T10-T15")
    assert bumps_of(done) == ["1 T15-S"]


def test_p_d6_teammate_goes_to_its_in_spot():
    done = apply(state(s0=["T10"], s2=["T15"]), 0, "5S", "0 T10-T15")
    assert bumps_of(done) == ["2 T15-T39"]


def test_p_d6_in_spot_opponent_is_bumped_in_turn_to_start():
    done = apply(state(s0=["T10"], s2=["T15"], s1=["T39"]), 0, "5S", "0 T10-T15")
    assert bumps_of(done) == ["2 T15-T39", "1 T39-S"]


def test_p_d6_chain_through_teammates_reaches_the_movers_colour():
    # seat 2 → its in-spot T39, where a seat 0 peg stands (teammate of seat 2): it goes to
    # seat 0's in-spot T3, where an opponent (seat 3) goes to start
    request = state(s0=["T10", "T39"], s2=["T15"], s3=["T3"])
    done = apply(request, 0, "5S", "0 T10-T15")
    assert bumps_of(done) == ["2 T15-T39", "0 T39-T3", "3 T3-S"]
    assert done["pegs"]["0"] == ["S", "S", "S", "T3", "T15"]


def test_p_d6_same_colour_on_the_in_spot_makes_the_move_illegal():
    request = state(s0=["T10"], s2=["T15", "T39"])
    assert sorted(step_lists(request, 0, "5S")) == [["2 T15-T20"], ["2 T39-H5"], ["2 T39-T44"]]
    err = refusal(request, 0, "5S", "0 T10-T15")
    assert "already holds a peg of its colour" in err.message


def test_p_d6_a_teammate_on_its_own_in_spot_cannot_be_landed_on():
    request = state(s0=["T34"], s2=["T39"])
    assert ["0 T34-T39"] not in step_lists(request, 0, "5S")
    assert "stands on its own in-spot" in refusal(request, 0, "5S", "0 T34-T39").message


def test_p_d6_same_colour_rule_checked_at_every_link():
    # seat 2 → T39 holds a seat 0 peg → that goes to T3, which holds a seat 0 peg: illegal
    request = state(s0=["T10", "T39", "T3"], s2=["T15"])
    assert ["0 T10-T15"] not in step_lists(request, 0, "5S")
    assert "seat 0 peg would go to its in-spot T3" in refusal(request, 0, "5S", "0 T10-T15").message


def test_p_d6_longer_chain_on_eight_seats():
    # 8 seats: seat 0 lands on seat 2 (T70) → T39 (seat 4 there) → T75 (seat 6 there) → T111
    request = state(8, s0=["T65"], s2=["T70"], s4=["T39"], s6=["T75"])
    done = apply(request, 0, "5S", "0 T65-T70")
    assert bumps_of(done) == ["2 T70-T39", "4 T39-T75", "6 T75-T111"]


def test_p_d6_come_out_bumps_too_but_never_onto_its_own_colour():
    request = state(s0=["T8"])
    assert sorted(step_lists(request, 0, "AS")) == [["0 T8-T9"], ["2 S-T44"]]
    assert "no peg of that colour can come out" in refusal(request, 0, "AS", "0 S-T8").message
    done = apply(state(s1=["T8"]), 0, "KH", "0 S-T8")
    assert bumps_of(done) == ["1 T8-S"]


# ── P-D7: going home ────────────────────────────────────────────────────────────


def test_p_d7_entering_home_is_a_choice():
    request = state(s0=["T1"])
    assert sorted(step_lists(request, 0, "4S")) == [["0 T1-H2"], ["0 T1-T5"]]


def test_p_d7_exact_fit_only():
    request = state(s0=["T1"])
    # 10 from T1: 2 to the in-spot, 8 more does not fit the lane
    assert step_lists(request, 0, "10S") == [["0 T1-T11"]]
    assert "10 forward" in refusal(request, 0, "10S", "0 T1-H5").message


def test_p_d7_no_passing_in_the_lane_and_in_lane_moves():
    request = state(s0=["T2", "H2"])
    assert sorted(step_lists(request, 0, "2S")) == [["0 H2-H4"], ["0 T2-H1"], ["0 T2-T4"]]
    assert refusal(request, 0, "3S", "0 T2-H2").message == "H2 is taken by your own peg."
    assert step_lists(state(s0=["H4"]), 0, "2S") == []  # never leaves the lane
    assert "only moves deeper" in refusal(state(s0=["H4"]), 0, "2S", "0 H4-H2").message
    assert "never leaves" in refusal(state(s0=["H4"]), 0, "2S", "0 H4-T5").message


def test_p_d7_the_back_up_trick():
    # an 8 from the come-out hole lands 3 holes before the in-spot; a 4 then reaches H1
    request = state(s0=["T8"])
    backed = apply(request, 0, "8S", "0 T8-T0")
    assert backed["pegs"]["0"][-1] == "T0"
    again = {"seats": 4, "pegs": backed["pegs"]}
    assert ["0 T0-H1"] in step_lists(again, 0, "4S")


def test_p_d7_eight_never_enters_home():
    request = state(s0=["T12"])
    assert step_lists(request, 0, "8S") == [["0 T12-T4"]]


# ── the winner ──────────────────────────────────────────────────────────────────


def test_winner_team_when_every_peg_of_every_member_is_home():
    lane = ["H2", "H3", "H4", "H5"]
    request = state(s0=[*lane, "T2"], s2=[*lane, "H1"])
    done = apply(request, 0, "2S", "0 T2-H1")
    assert done["winner_team"] == 0
    not_yet = state(s0=[*lane, "T2"], s2=[*lane, "T70"])
    assert apply(not_yet, 0, "2S", "0 T2-H1")["winner_team"] is None
    other = state(s1=[*lane, "T20"], s3=[*lane, "H1"])
    assert apply(other, 1, "2S", "1 T20-H1")["winner_team"] == 1


# ── the hand form ───────────────────────────────────────────────────────────────


def test_hand_form_lists_playable_cards_and_must_play():
    request = state(s0=["T10"])
    answer = api.evaluate(
        "pegs-moves", {**request, "player": 0, "hand": ["5H", "KS", "8C", "JK", "5D"]}
    )
    # the joker too: seat 2's start peg may be jokered onto seat 0's T10 (P-D4, P-D6)
    assert answer["playable"] == ["5H", "KS", "8C", "JK", "5D"]
    assert answer["must_play"] is True and answer["joker_only"] is False


def test_hand_form_nothing_playable_means_discard():
    answer = api.evaluate("pegs-moves", {**state(), "player": 0, "hand": ["5H", "8C"]})
    assert answer == {"playable": [], "must_play": False, "joker_only": False}


def test_hand_form_refuses_more_copies_than_the_decks_hold():
    body = {**state(), "player": 0, "hand": ["5H", "5H", "5H", "5H"]}
    with pytest.raises(RuleError) as info:
        api.evaluate("pegs-moves", body)
    assert info.value.path == "hand[3]"
    body8 = {**state(8), "player": 0, "hand": ["5H", "5H", "5H", "5H"]}
    assert api.evaluate("pegs-moves", body8)["playable"] == []


# ── refusals about a seat's pegs: seat numbers without names, names with them ───

TABLE = ("Ana", "Bojan", "Ceca", "Dule")
FULL = ["T10", "T11", "T12", "T13", "T14"]

# (request, player, card, steps, as the CONTRACT's engine says it, as a table says it)
SEAT_REFUSALS = [
    (
        state(s0=["T34"], s2=["T39"]), 0, "5S", ["0 T34-T39"],
        "The seat 2 peg on T39 stands on its own in-spot, so a teammate may not land on it.",
        "Ceca's peg on T39 stands on its own in-spot, so a teammate may not land on it.",
    ),
    (
        state(s0=["T10", "T39", "T3"], s2=["T15"]), 0, "5S", ["0 T10-T15"],
        "The seat 0 peg would go to its in-spot T3, which already holds a peg of its colour.",
        "Ana's peg would go to its in-spot T3, which already holds a peg of its colour.",
    ),
    (
        state(s0=FULL), 0, "AS", ["0 S-T8"],
        "Seat 0 has no peg in start.",
        "Ana has no peg in start.",
    ),
    (
        state(s0=["T10"]), 0, "5H", ["0 T11-T16"],
        "Seat 0 has no peg on T11.",
        "Ana has no peg on T11.",
    ),
    (
        state(s2=["T44"]), 0, "KH", ["2 S-T45"],
        "A seat 2 peg comes out onto its come-out hole T44.",
        "One of Ceca's pegs comes out onto its come-out hole T44.",
    ),
    (
        state(s0=["T8"]), 0, "AS", ["0 S-T8"],
        "T8 already holds a seat 0 peg, so no peg of that colour can come out.",
        "T8 already holds one of Ana's pegs, so no peg of that colour can come out.",
    ),
    (
        state(s0=FULL, s1=["T30"], s2=["T50"]), 0, "JK", ["0 T10-T30"],
        "A joker must bring a peg out of start first: seat 2 still has pegs in start (P-D4).",
        "A joker must bring a peg out of start first: Ceca still has pegs in start (P-D4).",
    ),
    (
        state(s2=["T40", "T42"]), 0, "3S", ["2 T40-T43"],
        "T43 would pass a seat 2 peg (its own colour) on T42.",
        "T43 would pass one of Ceca's pegs (its own colour) on T42.",
    ),
    (
        state(s2=["T40", "T42"]), 0, "2S", ["2 T40-T42"],
        "T42 is taken by a seat 2 peg (its own colour).",
        "T42 is taken by one of Ceca's pegs (its own colour).",
    ),
    (
        state(s1=["T30"]), 0, "5H", ["1 T30-T35"],
        "Seat 1 is on the other team; you move only your team's pegs.",
        "Bojan is on the other team; you move only your team's pegs.",
    ),
]  # fmt: skip

# (pegs that share a hole, as the CONTRACT's engine says it, as a table says it)
SHARED_HOLES = [
    (
        {"s0": ["T1"], "s1": ["T1"]},
        "T1 holds two pegs (seats 0 and 1); a hole holds one.",
        "T1 holds two pegs (Ana and Bojan); a hole holds one.",
    ),
    (
        {"s3": ["T9", "T9"]},
        "T9 holds two pegs (seats 3 and 3); a hole holds one.",
        "T9 holds two pegs (both Dule's); a hole holds one.",
    ),
    (
        {"s2": ["H2", "H2"]},
        "Seat 2 has two pegs on H2; a hole holds one.",
        "Ceca has two pegs on H2; a hole holds one.",
    ),
]


@pytest.mark.parametrize(
    ("request_", "player", "card", "steps", "numbered", "named"), SEAT_REFUSALS
)
def test_a_refusal_about_a_seat_says_its_number_or_its_players_name(
    request_, player, card, steps, numbered, named
):
    """The engine without names (the CONTRACT's door) says the seat number, as it always
    has; a table that knows its players' names says the name instead."""
    err = refusal(request_, player, card, *steps)
    assert err.message == err.english == numbered
    body = {**request_, "player": player, "card": card, "steps": as_steps(*steps)}
    answer, status = api.respond("pegs-apply", json.dumps(body))
    assert (status, answer["error"]["message"]) == (422, numbered)
    assert str(pegs.with_names(err.text, TABLE)) == named
    assert "seat" not in named.lower()


@pytest.mark.parametrize(("placed", "numbered", "named"), SHARED_HOLES)
def test_two_pegs_in_one_hole_are_said_by_seat_or_by_name(placed, numbered, named):
    with pytest.raises(InvalidBoardError) as info:
        Board.from_json(state(**placed))
    assert info.value.message == numbered
    assert str(pegs.with_names(info.value.text, TABLE)) == named


def test_with_names_keeps_a_sentence_that_names_no_seat_and_a_seat_without_a_name():
    err = refusal(state(s0=["T8", "T10"]), 0, "3S", "0 T8-T11")
    assert pegs.with_names(err.text, TABLE) is err.text  # "your own peg": no seat in it
    other_team = refusal(state(s1=["T30"]), 0, "5H", "1 T30-T35")
    assert str(pegs.with_names(other_team.text, TABLE[:1])) == other_team.english


# ── refusals: invalid states and requests ───────────────────────────────────────


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda r: r.update(seats=5), "seats"),
        (lambda r: r.update(seats="4"), "seats"),
        (lambda r: r["pegs"]["0"].append("S"), "pegs.0"),
        (lambda r: r["pegs"]["0"].pop(), "pegs.0"),
        (lambda r: r["pegs"].pop("3"), "pegs.3"),
        (lambda r: r["pegs"].update({"4": ["S"] * 5}), "pegs.4"),
        (lambda r: r["pegs"].update({"0": ["T9", "T9", "S", "S", "S"]}), "pegs.0[1]"),
        (lambda r: r["pegs"].update({"1": ["T8", "S", "S", "S", "S"]}), "pegs.1[0]"),
        (lambda r: r["pegs"].update({"0": ["H2", "H2", "S", "S", "S"]}), "pegs.0[1]"),
        (lambda r: r["pegs"].update({"0": ["T72", "S", "S", "S", "S"]}), "pegs.0[0]"),
        (lambda r: r["pegs"].update({"0": ["H6", "S", "S", "S", "S"]}), "pegs.0[0]"),
        (lambda r: r["pegs"].update({"0": [8, "S", "S", "S", "S"]}), "pegs.0[0]"),
        (lambda r: r.update(player=4), "player"),
        (lambda r: r.update(player="0"), "player"),
        (lambda r: r.update(card="1H"), "card"),
        (lambda r: r.update(house_rules={"nine": "backwards"}), "house_rules.nine"),
        (lambda r: r.update(house_rules={"seven": "split"}), "house_rules.seven"),
        (lambda r: r.update(extra=1), "extra"),
    ],
)
def test_invalid_requests_are_refused_with_a_path(change, path):
    request = {**state(s0=["T8"]), "player": 0, "card": "5H"}
    request = copy.deepcopy(request)
    change(request)
    with pytest.raises(RuleError) as info:
        api.evaluate("pegs-moves", request)
    assert info.value.path == path
    assert info.value.message.endswith(".")


def test_card_or_hand_but_not_both():
    base = {**state(), "player": 0}
    for body, path in ((base, "card"), ({**base, "card": "5H", "hand": ["5H"]}, "hand")):
        with pytest.raises(RuleError) as info:
            api.evaluate("pegs-moves", body)
        assert info.value.path == path


def test_invalid_boards_raise_invalid_board_error():
    with pytest.raises(InvalidBoardError, match="4, 6 or 8"):
        Board(5)
    with pytest.raises(InvalidBoardError, match="two pegs"):
        Board.from_json(state(s0=["T1"], s1=["T1"]))
    with pytest.raises(InvalidBoardError, match="exactly 5"):
        Board(4, {0: ["S"] * 4, 1: ["S"] * 5, 2: ["S"] * 5, 3: ["S"] * 5})


@pytest.mark.parametrize(
    ("card", "steps", "words"),
    [
        ("5H", [], "at least 1"),
        ("5H", ["0 T10-T15", "2 T50-T52", "2 T52-T53"], "at most two"),
        ("5H", ["0 T10-T12", "2 T50-T53"], "Only a 7 or a 9"),
        ("5H", ["0 T11-T16"], "no peg on T11"),
        ("5H", ["0 T10-T14"], "moves a peg 5 forward"),
        ("5H", ["0 S-T8"], "leaves start only"),
        ("5H", ["0 T10-S"], "never ends in start"),
        ("KH", ["0 S-T9"], "come-out hole T8"),
        ("7H", ["0 T10-T17", "2 T50-T51"], "moves 1 to 6"),
        ("7H", ["2 T50-T48", "0 T10-T19"], "go forward"),
        ("JK", ["0 S-H1"], "track hole"),
        ("5H", ["5 T10-T15"], "between 0 and 3"),
    ],
)
def test_illegal_moves_are_refused_with_the_reason(card, steps, words):
    request = {**state(s0=["T10"], s2=["T50"]), "player": 0, "card": card}
    request["steps"] = as_steps(*steps) if steps else []
    if not steps:
        with pytest.raises(RuleError, match=words):
            api.evaluate("pegs-apply", request)
        return
    if steps[0].startswith("5 "):
        request["steps"][0]["seat"] = 5
    with pytest.raises(RuleError) as info:
        api.evaluate("pegs-apply", request)
    assert words in info.value.message
    assert info.value.path.startswith("steps")


# ── the python-chess style API ──────────────────────────────────────────────────


def test_push_pop_is_legal_and_move_stack():
    board = Board.from_json(state(s0=["T10"], s1=["T15"]))
    before = board.key()
    move = Move.parse("0 5H: 0 T10-T15", board.length)
    assert board.is_legal(move)
    assert not board.is_legal(Move.parse("0 5H: 0 T10-T14", board.length))
    with pytest.raises(IllegalMoveError):
        board.verify_move(Move.parse("0 5H: 0 T10-T14", board.length))
    played = board.push(move)
    assert [str(b) for b in played.bumps] == ["1 T15-S"]
    assert board.positions(1) == ["S"] * 5 and board.move_stack == [played]
    assert board.pop() == played
    assert board.key() == before and board.track[15] == 1 and board.track[10] == 0
    with pytest.raises(IndexError):
        board.pop()


def test_legal_moves_are_move_objects_and_all_legal():
    board = Board.from_json(state(s0=["T10", "T1"], s2=["T50"]))
    listed = board.legal_moves(0, "7H")
    assert listed and all(isinstance(m, Move) and board.is_legal(m) for m in listed)
    assert board.has_legal_move(0, "7H") and not Board(4).has_legal_move(0, "7H")
    assert len(board.all_step_lists(0, "7H")) >= len(listed)


def test_refused_move_leaves_the_board_untouched():
    board = Board.from_json(state(s0=["T10", "T12"], s1=["T11"]))
    before = (board.key(), list(board.track))
    with pytest.raises(IllegalMoveError):
        board.push(Move.parse("0 7H: 0 T10-T11, 0 T12-T20", board.length))
    assert (board.key(), list(board.track)) == before
