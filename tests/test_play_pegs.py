"""The Pegs and Jokers race as a log of taps (RULES.md §5): whose turn it is (clockwise),
moves checked by the engine's Board, the must-play rule for discards, corrections by
hand, undo/redo on the log, the pegs-apply request that each move closes with."""

from __future__ import annotations

import doctest
import json
import re
from pathlib import Path

import pytest
from conftest import speaking
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekeeper import api
from scorekeeper.games.play import Refused, Tap, play, replay, state_type
from scorekeeper.games.play import pegs as module
from scorekeeper.games.play.pegs import PegsRace, card_for_rank, next_seat

NAMES = ["Zuzana", "Ján", "Eva", "Peter"]
EXAMPLES = sorted((Path(__file__).parent / "data" / "play").glob("pegs-*.json"))
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def tap(i, action, **args) -> dict:
    return {"id": f"t{i}", "action": action, **args}


def step(seat, frm, to) -> dict:
    return {"seat": seat, "from": frm, "to": to}


def race(taps, players=NAMES, **settings_) -> PegsRace:
    return replay(PegsRace.start(players, settings_), taps)


def test_doctests():
    assert doctest.testmod(module).failed == 0


def test_the_state_type_is_registered():
    assert state_type("pegs") is PegsRace


# ― whose turn: clockwise, written once ―


def test_play_goes_clockwise_round_the_table():
    assert [next_seat(s, 6) for s in range(6)] == [1, 2, 3, 4, 5, 0]
    log = [
        tap(1, "move", seat=0, card="AH", steps=[step(0, "S", "T8")]),
        tap(2, "move", seat=1, card="KD", steps=[step(1, "S", "T26")]),
        tap(3, "discard", seat=2, card="JK", hand=["JK"]),
        tap(4, "discard", seat=3, card="JK", hand=["JK", "RJ"]),
    ]
    states = [race(log[:k]).turn for k in range(5)]
    assert states == [0, 1, 2, 3, 0]


def test_undo_twice_then_redo_twice_names_the_right_player():
    """Issue #20: after Undo ×2, Redo ×2 the header named the wrong player."""
    log = [
        tap(1, "move", seat=0, card="AH", steps=[step(0, "S", "T8")]),
        tap(2, "move", seat=1, card="AD", steps=[step(1, "S", "T26")]),
        tap(3, "move", seat=2, card="QS", steps=[step(2, "S", "T44")]),
    ]
    full = race(log)
    assert full.to_json()["turn"] == 3
    undone = race(log[:1])
    assert undone.to_json()["turn"] == 1 and "Ján's turn" in undone.to_json()["next"]["text"]
    redone = undone.apply(Tap.from_json(log[1])).apply(Tap.from_json(log[2]))
    assert redone == full and redone.to_json()["turn"] == 3


def test_a_move_out_of_turn_is_refused_naming_whose_turn_it_is():
    with pytest.raises(Refused) as caught:
        race([tap(1, "move", seat=1, card="AH", steps=[step(1, "S", "T26")])])
    assert caught.value.index == 0
    assert caught.value.path == "taps[0].seat"
    assert "Zuzana's turn" in caught.value.message


def test_an_unknown_tap_is_refused_naming_the_game_and_its_taps():
    with pytest.raises(Refused) as caught:
        race([tap(1, "move", seat=0, card="AS", steps=[step(0, "S", "T8")]), tap(2, "jump")])
    assert caught.value.message == (
        "Arizona Pegs and Jokers has no tap called “jump”; the taps are move, discard, place, "
        "turn, pick, peg, first, hand, setpeg."
    )
    assert caught.value.as_dict()["error"] == {
        "message": caught.value.message,
        "path": "taps[1].action",
        "tap": 1,
    }


def test_an_illegal_move_is_refused_with_the_engine_reason():
    with pytest.raises(Refused) as caught:
        race([tap(1, "move", seat=0, card="5H", steps=[step(0, "S", "T13")])])
    assert "start" in caught.value.message
    assert caught.value.as_dict()["error"]["tap"] == 0


# ― discards: the must-play rule (RULES §5, issue #24) ―


def test_a_discard_is_refused_while_a_card_other_than_a_joker_can_move():
    """Zuzana holds 8, 2, JK, 5, 3 with a peg on the track: she must play."""
    pegs = {"0": ["T8", "S", "S", "S", "S"], "1": ["S"] * 5, "2": ["S"] * 5, "3": ["S"] * 5}
    with pytest.raises(Refused) as caught:
        race([tap(1, "discard", seat=0, card="8S", hand=["8S", "2H", "JK", "5D", "3C"])], pegs=pegs)
    assert caught.value.message.startswith("Zuzana must play a card that can move: 2, 3, 5, 8.")


def test_a_discard_is_taken_when_only_a_joker_can_move_and_it_is_logged():
    # all pegs in start, no come-out card: only the joker could move (onto nothing: no
    # other colour on the track), so nothing can move at all
    state = race([tap(1, "discard", seat=0, card="5D", hand=["5D", "JK", "2C"])])
    assert state.turn == 1
    entry = state.to_json()["log"][0]
    assert entry["action"] == "discard" and entry["card"] == "5D"
    assert entry["text"] == "Zuzana discarded 5: no card could move."
    assert state.to_json()["closing"] is None  # a discard scores nothing


def test_a_discard_must_be_one_of_the_cards_held():
    with pytest.raises(Refused, match="not in the hand"):
        race([tap(1, "discard", seat=0, card="5D", hand=["2C"])])


# ― corrections, the end, the closing request ―


def test_a_peg_set_by_hand_keeps_the_turn_and_is_checked_by_the_board():
    state = race([tap(1, "place", seat=2, **{"from": "S", "to": "T40"})])
    assert state.turn == 0 and state.pegs[2][-1] == "T40"
    with pytest.raises(Refused, match="two pegs"):
        race(
            [
                tap(1, "place", seat=2, **{"from": "S", "to": "T40"}),
                tap(2, "place", seat=1, **{"from": "S", "to": "T40"}),
            ]
        )


def test_the_last_move_of_a_team_wins_and_nothing_moves_after():
    home = ["H1", "H2", "H3", "H4", "H5"]
    pegs = {"0": ["T3", "H2", "H3", "H4", "H5"], "1": ["S"] * 5, "2": home, "3": ["S"] * 5}
    won = race([tap(1, "move", seat=0, card="AS", steps=[step(0, "T3", "H1")])], pegs=pegs)
    answer = won.to_json()
    assert answer["complete"] and answer["winner_team"] == 0 and answer["turn"] is None
    assert answer["next"]["text"] == "Team 1 wins: Zuzana, Eva."
    result = api.evaluate("pegs-apply", answer["closing"]["request"])
    assert result["winner_team"] == 0
    with pytest.raises(Refused, match="has won"):
        won.apply(Tap.from_json(tap(2, "discard", seat=1, card="JK", hand=["JK"])))


def test_step_options_for_a_split_seven():
    pegs = {"0": ["T8", "T20", "S", "S", "S"], "1": ["S"] * 5, "2": ["S"] * 5, "3": ["S"] * 5}
    state = race([], pegs=pegs, team_pegs="own")
    first = state.options("7H")
    assert {"seat": 0, "from": "T8", "to": "T15", "complete": True, "continues": False,
            "bumps": []} in first  # fmt: skip
    worded = state.options("7H", worded=True)
    assert {
        **first[0],
        "peg": "Zuzana's back peg",
        "words": "Zuzana's back peg 7 forward",
    } in worded
    split = [o for o in first if o["continues"]]
    assert split, "a part of a split 7 needs a second part"
    from scorekeeper.games.pegs import Step

    part = split[0]
    first_step = {k: part[k] for k in ("seat", "from", "to")}
    seconds = state.options("7H", Step.from_json(first_step, 4))
    assert seconds and all(o["complete"] for o in seconds)


def test_each_part_of_a_split_offers_its_own_bumps():
    # a 7 split: T8 → T11 sends Ján's peg to start, T20 → T24 Peter's; the second part
    # is offered with Peter's bump alone, the first part with Ján's
    pegs = {
        "0": ["T8", "T20", "S", "S", "S"],
        "1": ["T11", "S", "S", "S", "S"],
        "2": ["S"] * 5,
        "3": ["T24", "S", "S", "S", "S"],
    }
    state = race([], pegs=pegs, team_pegs="own")
    from scorekeeper.games.pegs import Step

    first = {(o["seat"], o["from"], o["to"]): o for o in state.options("7H")}
    assert first[0, "T8", "T11"]["continues"] and not first[0, "T8", "T11"]["complete"]
    assert first[0, "T8", "T11"]["bumps"] == [step(1, "T11", "S")]
    second = state.options("7H", Step.from_json(step(0, "T8", "T11"), 4))
    [part] = [o for o in second if (o["from"], o["to"]) == ("T20", "T24")]
    assert part["complete"] and part["bumps"] == [step(3, "T24", "S")]
    # the move as played still bumps both, in playing order
    moved = race([tap(1, "move", seat=0, card="7H", steps=[step(0, "T8", "T11"),
                  step(0, "T20", "T24")])], pegs=pegs, team_pegs="own")  # fmt: skip
    assert moved.to_json()["log"][0]["bumps"] == [step(1, "T11", "S"), step(3, "T24", "S")]


def test_legal_lists_the_ranks_that_can_move():
    legal = race([]).to_json()["legal"]
    move = next(e for e in legal if e["action"] == "move")
    assert move["card"] == ["A", "J", "Q", "K"] and move["seat"] == [0]


def test_bad_players_and_settings_are_refused():
    with pytest.raises(Refused):
        PegsRace.start(["A", "B", "C"], {})
    with pytest.raises(Refused) as caught:
        PegsRace.start(NAMES, {"nine": "sideways"})
    assert caught.value.path == "settings.nine"
    with pytest.raises(Refused) as caught:
        PegsRace.start(NAMES, {"turn": 4})
    assert caught.value.path == "settings.turn"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_worked_examples(path):
    case = json.loads(path.read_text())
    if "refused" in case:
        with pytest.raises(Refused) as caught:
            play("pegs", case["request"])
        assert caught.value.as_dict() == {"error": case["refused"]}
        return
    answer = play("pegs", case["request"])
    for key, expected in case["expect"].items():
        assert answer[key] == expected, key


def test_there_are_worked_examples():
    assert len(EXAMPLES) >= 3


# ― properties over logs made of legal taps ―

RANK_CARDS = [card_for_rank(r) for r in module.RANKS]


@st.composite
def logs(draw, max_taps: int = 10) -> tuple[list[str], dict, list[dict]]:
    players = draw(st.sampled_from([NAMES, [*NAMES, "Ana", "Bo"]]))
    rules = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "team_pegs": st.sampled_from(["any", "own_first", "own"]),
                "nine": st.sampled_from(["split_forward", "split_back", "forward"]),
            },
        )
    )
    state = PegsRace.start(players, rules)
    taps: list[dict] = []
    for i in range(draw(st.integers(0, max_taps))):
        legal = {e["action"]: e for e in state.to_json()["legal"]}
        if "move" in legal and draw(st.integers(0, 5)):
            rank = draw(st.sampled_from(legal["move"]["card"]))
            moves = state.moves(card_for_rank(rank))
            chosen = draw(st.sampled_from(moves))
            raw = tap(i, "move", seat=state.turn, card=card_for_rank(rank),
                      steps=[s.as_json() for s in chosen.steps])  # fmt: skip
        elif "discard" in legal and not draw(st.integers(0, 3)):
            stuck = [c for c in RANK_CARDS if c == "JK" or not state.moves(c)]
            hand = draw(st.lists(st.sampled_from(stuck), min_size=1, max_size=5, unique=True))
            raw = tap(i, "discard", seat=state.turn, card=hand[0], hand=hand)
        else:
            raw = tap(i, "turn", seat=draw(st.sampled_from(legal["turn"]["seat"])))
        state = state.apply(Tap.from_json(raw))
        taps.append(raw)
    return players, rules, taps


@SETTINGS
@given(logs())
def test_every_prefix_of_a_valid_log_is_valid(case):
    players, rules, taps = case
    for k in range(len(taps) + 1):
        race(taps[:k], players, **rules)


@SETTINGS
@given(logs())
def test_undo_then_redo_is_identity(case):
    players, rules, taps = case
    if not taps:
        return
    assert race(taps[:-1], players, **rules).apply(Tap.from_json(taps[-1])) == race(
        taps, players, **rules
    )


@SETTINGS
@given(logs(), st.data())
def test_a_tap_id_applied_twice_changes_nothing(case, data):
    players, rules, taps = case
    if not taps:
        return
    again = data.draw(st.sampled_from(taps))
    assert race([*taps, again], players, **rules) == race(taps, players, **rules)


@SETTINGS
@given(logs())
def test_the_closing_request_is_the_engine_s_move(case):
    players, rules, taps = case
    state = race(taps, players, **rules)
    answer = state.to_json()
    if answer["closing"] is None:
        return
    assert answer["closing"]["kind"] == "pegs-apply"
    result = api.evaluate("pegs-apply", answer["closing"]["request"])
    assert result["pegs"] == answer["board"]["pegs"]
    assert result["winner_team"] == answer["winner_team"]


@SETTINGS
@given(logs())
def test_the_log_and_the_answer_survive_json(case):
    players, rules, taps = case
    request = json.loads(json.dumps({"players": players, "settings": rules, "taps": taps}))
    answer = play("pegs", request)
    assert json.loads(json.dumps(answer)) == race(taps, players, **rules).to_json()


@SETTINGS
@given(logs())
def test_a_refused_tap_names_its_index(case):
    players, rules, taps = case
    state = race(taps, players, **rules)
    wrong = (state.turn + 1) % len(players)
    bad = tap(999, "discard", seat=wrong, card="JK", hand=["JK"])
    with pytest.raises(Refused) as caught:
        race([*taps, bad], players, **rules)
    assert caught.value.index == len(taps)


def test_play_md_documents_every_action_and_its_example_replays():
    text = (Path(__file__).parent.parent / "PLAY.md").read_text()
    section = text.split("## Arizona Pegs and Jokers", 1)[1].split("\n## ", 1)[0]
    table = " ".join(line for line in section.splitlines() if line.startswith("| `"))
    assert {name for name in module._HANDLERS if f"`{name}`" not in table} == set()
    example = json.loads(section.split("```json", 1)[1].split("```", 1)[0])
    answer = play("pegs", example)
    assert answer["turn"] == 0 and answer["board"]["pegs"]["0"] == ["S"] * 5
    assert answer["log"][-1]["text"] in section.replace("\n", " ")


def test_every_legal_move_of_a_card_is_listed_in_words():
    """Issue #24: a joker with both partners' pegs in start lists every move at once."""
    pegs = {"0": ["S"] * 5, "1": ["T30", "S", "S", "S", "S"], "2": ["S"] * 5,
            "3": ["T60", "S", "S", "S", "S"]}  # fmt: skip
    moves = race([], pegs=pegs).described_moves("JK")
    texts = sorted(m["text"] for m in moves)
    assert texts == [
        "Eva's peg out onto Ján's peg, sends Ján's peg to start",
        "Eva's peg out onto Peter's peg, sends Peter's peg to start",
        "Zuzana's peg out onto Ján's peg, sends Ján's peg to start",
        "Zuzana's peg out onto Peter's peg, sends Peter's peg to start",
    ]
    assert {
        "steps": [{"seat": 0, "from": "S", "to": "T30"}],
        "bumps": [{"seat": 1, "from": "T30", "to": "S"}],
        "text": "Zuzana's peg out onto Ján's peg, sends Ján's peg to start",
    } in moves


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 10),
    st.sampled_from(["S", "T8", "H1", "T999", "7H", "JK", "XX", ""]),
    st.lists(st.sampled_from(["7H", "JK", "2C"]), max_size=6),
    st.lists(
        st.fixed_dictionaries(
            {
                "seat": st.integers(-1, 8),
                "from": st.sampled_from(["S", "T8", "H1"]),
                "to": st.sampled_from(["T8", "T9", "H2", "S"]),
            }  # fmt: skip
        ),
        max_size=3,
    ),
)


@SETTINGS
@given(logs(), st.sampled_from(sorted(module._HANDLERS)), st.data())
def test_any_tap_is_taken_or_refused_with_a_reason(case, action, data):
    players, rules, taps = case
    keys = module._ARGS[action] + ("extra",)
    args = data.draw(st.dictionaries(st.sampled_from(keys), JUNK, max_size=4))
    state = race(taps, players, **rules)
    try:
        after = state.apply(Tap("junk", action, tuple(args.items())))
    except Refused as refused:
        assert refused.message and refused.path.startswith(".")
    else:
        json.dumps(after.to_json())


def test_a_move_sent_again_under_a_new_id_is_refused_as_the_turn_has_passed():
    first = tap(1, "move", seat=0, card="AH", steps=[step(0, "S", "T8")])
    assert race([first, first]) == race([first])  # the same id: applied once
    with pytest.raises(Refused, match="Ján's turn") as caught:
        race([first, {**first, "id": "again"}])
    assert caught.value.index == 1


# ― why a card cannot move (issue #24: the engine says why, not only "no legal move") ―

ALL_HOME = ["H1", "H2", "H3", "H4", "H5"]
IN_START = ["S"] * 5


def board_race(pegs: dict, turn: int = 0, **rules) -> PegsRace:
    """A race from a board: the seats left out have every peg in start."""
    full = {str(seat): pegs.get(str(seat), IN_START) for seat in range(len(NAMES))}
    return PegsRace.start(NAMES, {"pegs": full, "turn": turn, **rules})


def test_why_not_a_card_that_can_move_has_no_reason():
    assert PegsRace.start(NAMES, {}).why_not("AH") is None
    # the player whose turn it is: Ján, whose team's pegs are all in start
    after = race([tap(1, "move", seat=0, card="AH", steps=[step(0, "S", "T8")])])
    assert after.why_not("3H").startswith("No move with 3: the pegs in start")
    assert board_race({"0": ["T8", *IN_START[1:]]}).why_not("5C") is None


def test_why_not_start_pegs_come_out_only_with_a_come_out_card():
    """P-D1/RULES §5: a peg leaves start only with A, K, Q, J or a joker."""
    assert PegsRace.start(NAMES, {}).why_not("5H") == (
        "No move with 5: the pegs in start come out only with A, K, Q, J or a joker."
    )


def test_why_not_a_split_seven_needs_two_pegs_out_of_start():
    """P-D3: a 7 is split over two different pegs."""
    text = PegsRace.start(NAMES, {}).why_not("7H")
    assert text.endswith("a split 7 needs two pegs out of start.")


def test_why_not_a_joker_takes_start_pegs_first_and_needs_a_peg_to_bump():
    """P-D4: a joker brings a start peg onto another colour's track peg."""
    assert PegsRace.start(NAMES, {}).why_not("JK") == (
        "No move with the joker: a joker brings a peg out of start first (P-D4); "
        "no peg of another colour is on the track for it to land on."
    )
    home = {"0": ALL_HOME, "2": ALL_HOME[:4] + ["S"]}
    assert board_race({**home, "2": ALL_HOME}, team_pegs="own").why_not("JK") == (
        "No move with the joker: every peg that may move is in its home lane."
    )


def test_why_not_a_home_lane_move_is_not_an_exact_fit_or_passes_its_own_peg():
    """P-D7: in the home lane a peg moves by an exact fit, never past its own peg;
    P-D2 team_pegs=own: only the player's own pegs."""
    pegs = {"0": ["T60", "H1", "H2", "H3", "H4"], "2": ALL_HOME}
    text = board_race({"0": ["H1", "H2", "H3", "H4", "H5"]}, team_pegs="own").why_not("3H")
    assert text.startswith("No move with 3: Zuzana's peg on H1: H4 would pass your own peg on H2")
    assert "Zuzana's peg on H3 has only 2 more holes ahead in its home lane" in text
    assert "3 is not an exact fit" in text
    assert board_race(pegs, team_pegs="own").why_not("3H") is None  # T60 moves on


def test_why_not_names_each_blocked_peg_by_its_player():
    """P-D2: with her own pegs home Zuzana moves Eva's too; an 8 moves none in a lane."""
    lane = board_race({"0": ALL_HOME, "2": ["S", "H2", "H3", "H4", "H5"]})
    assert lane.why_not("8S") == (
        "No move with 8: a peg in its home lane never moves back; "
        "the pegs in start come out only with A, K, Q, J or a joker."
    )
    assert lane.why_not("4S") == (
        "No move with 4: Zuzana's peg on H1: H5 would pass your own peg on H2; "
        "Zuzana's peg on H2 has only 3 more holes ahead in its home lane: 4 is not an exact "
        "fit; Zuzana's peg on H3 has only 2 more holes ahead in its home lane: 4 is not an "
        "exact fit; Zuzana's peg on H4 has only 1 more hole ahead in its home lane: 4 is not "
        "an exact fit; and 6 more."
    )


@SETTINGS
@given(logs(), st.sampled_from(RANK_CARDS))
def test_why_not_is_given_exactly_when_a_card_cannot_move(case, card):
    players, rules, taps = case
    state = race(taps, players, **rules)
    if state.complete:
        return
    reason = state.why_not(card)
    assert (reason is None) == bool(state.moves(card))
    if reason is not None:
        assert reason.startswith("No move with ") and reason.endswith(".")
        assert "seat " not in reason.lower()  # players by name, never a seat number


def test_the_state_says_why_each_rank_that_cannot_move_is_stuck():
    """The public door's answer: ``stuck`` has every rank ``legal`` leaves out, each
    with the engine's reason; nothing once a team has won."""
    answer = play("pegs", {"players": NAMES, "taps": []})
    movable = next(e["card"] for e in answer["legal"] if e["action"] == "move")
    assert set(answer["stuck"]) == set(module.RANKS) - set(movable)
    assert answer["stuck"]["5"] == (
        "No move with 5: the pegs in start come out only with A, K, Q, J or a joker."
    )
    won = {"0": ALL_HOME, "2": ALL_HOME}
    assert board_race(won).to_json()["stuck"] == {}


# ― the engine's refusals read in the table's language name its players ―

# a seat said as a seat: in English, Polish, Slovak, Serbian, Lithuanian
SEAT_WORDS = re.compile(
    r"\b(?:seats?|miejsc\w*|miest\w*|mest[aoue]?|viet(?:a|os|ą|ų|oje))\b", re.IGNORECASE
)


def refused_in(language: str, state: PegsRace, raw: dict) -> str:
    """The refusal of a tap as the phone reads it: in that language."""
    with speaking(language):
        with pytest.raises(Refused) as caught:
            state.apply(Tap.from_json(raw))
        return caught.value.message


def test_a_refused_move_names_the_player_in_polish_and_slovak():
    """A peg of the other team: the phone says whose it is, in the table's language."""
    state = board_race({"1": ["T30", *IN_START[1:]]})
    raw = tap(1, "move", seat=0, card="5H", steps=[step(1, "T30", "T35")])
    polish = refused_in("pl", state, raw)
    assert polish == "Ján gra w drugiej drużynie; ruszasz tylko pionki swojej drużyny."
    slovak = refused_in("sk", state, raw)
    assert slovak == "Ján hrá v druhom tíme; posúvate len kolíky svojho tímu."
    for said in (polish, slovak):
        assert not SEAT_WORDS.search(said)
        assert not re.search(r"\b(?:team|pegs?|other|only)\b", said)  # no English left
    # the CONTRACT's engine, which knows no names, still says the seat
    pegs = {str(seat): list(p) for seat, p in enumerate(state.pegs)}
    body = {"seats": 4, "pegs": pegs, "player": 0, "card": "5H", "steps": raw["steps"]}
    with speaking("pl"):
        answer, status = api.respond("pegs-apply", json.dumps(body))
    assert (status, answer["error"]["message"]) == (
        422,
        "Miejsce 1 jest z drugiej drużyny; ruszasz tylko pionki swojej drużyny.",
    )


def test_a_refused_correction_names_both_players_in_polish_and_slovak():
    state = race([tap(1, "place", seat=2, **{"from": "S", "to": "T40"})])
    again = tap(2, "place", seat=1, **{"from": "S", "to": "T40"})
    polish = refused_in("pl", state, again)
    assert polish == "Na T40 stoją dwa pionki (Ján i Eva); w dołku mieści się jeden."
    slovak = refused_in("sk", state, again)
    assert slovak == "Na T40 stoja dva kolíky (Ján a Eva); v jamke môže byť jeden."
    own = tap(2, "place", seat=2, **{"from": "S", "to": "T40"})
    assert refused_in("pl", state, own) == (
        "Na T40 stoją dwa pionki gracza Eva; w dołku mieści się jeden."
    )


def test_why_not_names_the_partner_in_slovak():
    """With her own pegs home Zuzana moves Eva's (P-D2); a joker needs Eva's start pegs
    out first (P-D4), said with Eva's name."""
    pegs = {"0": ALL_HOME, "2": ["T40", "T42", "S", "S", "S"], "1": ["T30", *IN_START[1:]]}
    assert board_race(pegs).why_not("JK") is None  # a start peg of Eva's comes out onto Ján's
    joker = tap(1, "move", seat=0, card="JK", steps=[step(2, "T40", "T30")])
    assert refused_in("sk", board_race(pegs), joker) == (
        "Žolík musí najprv vyviesť kolík zo štartu: Eva má ešte kolíky na štarte (P-D4)."
    )


def positions(seats: int) -> list[str]:
    return ["S", *[f"T{i}" for i in range(18 * seats)], *[f"H{h}" for h in range(1, 6)]]


@SETTINGS
@given(logs(), st.sampled_from(["pl", "sk", "sr-Latn", "lt"]), st.data())
def test_a_refused_move_never_says_seat_in_any_language(case, language, data):
    """Any move of any card from any peg of the board: a refusal, and why a card cannot
    move, speak of players by name (read in English and in the table's language)."""
    players, rules, taps = case
    state = race(taps, players, **rules)
    if state.complete:
        return
    seats = len(players)
    pegged = sorted({(s, p) for s, ps in enumerate(state.pegs) for p in ps})
    start = st.sampled_from(pegged) | st.tuples(st.integers(0, seats - 1), st.just("S"))
    part = st.builds(
        lambda peg, to: step(peg[0], peg[1], to), start, st.sampled_from(positions(seats))
    )
    steps = data.draw(st.lists(part, min_size=1, max_size=2))
    card = data.draw(st.sampled_from(RANK_CARDS))
    raw = tap(99, "move", seat=state.turn, card=card, steps=steps)
    with speaking(language):
        try:
            state.apply(Tap.from_json(raw))
        except Refused as refused:
            said = [refused.english, refused.message]
        else:
            said = []
        reason = state.why_not(card)
    if reason is not None:
        said.append(reason)
    for text in said:
        assert not SEAT_WORDS.search(text), text


# ― the door's refusals read as sentences, each naming the field it is about ―


def refusal(taps, **settings_) -> dict:
    body, status = api_respond({"players": NAMES, "settings": settings_, "taps": taps})
    assert status == 422, body
    return body["error"]


def api_respond(request: dict) -> tuple[dict, int]:
    from scorekeeper.games.play import respond

    return respond("pegs", json.dumps(request))


@pytest.mark.parametrize(
    ("bad_step", "path", "message"),
    [
        ({"seat": "0", "from": "S", "to": "T8"}, "taps[0].steps[0].seat", "steps[0].seat must"),
        ({"seat": 9, "from": "S", "to": "T8"}, "taps[0].steps[0].seat", "steps[0].seat must"),
        (["S", "T8"], "taps[0].steps[0]", "steps[0] must be a JSON object."),
    ],
)
def test_a_malformed_step_is_refused_in_words_naming_the_step(bad_step, path, message):
    """The step's place in the tap is said as it is written, never with a stray leading
    dot (".steps[0].seat must be a whole number.")."""
    error = refusal([tap(1, "move", seat=0, card="AS", steps=[bad_step])])
    assert error["path"] == path and error["tap"] == 0
    assert error["message"].startswith(message) and not error["message"].startswith(".")


def test_a_malformed_first_part_is_refused_naming_its_field():
    error = refusal(
        [tap(1, "pick", seat=0, card="7"), tap(2, "first", seat=0, step={"seat": 0, "from": "S"})]
    )
    assert error["path"] == "taps[1].step.to" and error["tap"] == 1
    assert not error["message"].startswith(".")


def test_two_pegs_of_one_player_on_a_hole_of_the_starting_board_are_said_by_name():
    error = refusal([], pegs={"0": ["T8", "T8", "S", "S", "S"], **start_pegs(1, 2, 3)})
    assert error["path"] == "settings.pegs.0[1]"
    assert error["message"] == "T8 holds two pegs (both Zuzana's); a hole holds one."


def start_pegs(*seats) -> dict:
    return {str(s): ["S"] * 5 for s in seats}


def test_a_correction_with_a_bad_or_missing_from_names_from():
    error = refusal([tap(1, "place", seat=0, to="T8")])
    assert error["path"] == "taps[0].from" and "''" not in error["message"]
    error = refusal([tap(1, "place", seat=0, to="T8", **{"from": "T999"})])
    assert error["path"] == "taps[0].from"


def test_slovak_says_a_card_in_the_case_its_sentence_needs():
    """Slovak names a card as "karta 7", a nominative: a sentence that put it after
    "s" or "časti" read "nie s karta 5", "Obe časti karta 9" (broken grammar)."""
    out_of_start = refused_in(
        "sk", race([]), tap(1, "move", seat=0, card="5H", steps=[step(0, "S", "T8")])
    )
    assert out_of_start == (
        "Kolík opúšťa štart len s A, K, Q, J alebo žolíkom; karta 5 na to nestačí."
    )
    state = board_race({"0": ["T10", "T20", "S", "S", "S"]})
    back = tap(1, "move", seat=0, card="9H", steps=[step(0, "T10", "T8"), step(0, "T20", "T31")])
    assert refused_in("sk", state, back) == (
        "Obe časti ťahu (karta 9) idú dopredu; tento krok ide dozadu."
    )
    same = tap(1, "move", seat=0, card="7H", steps=[step(0, "T10", "T12"), step(0, "T12", "T17")])
    assert refused_in("sk", state, same) == "Karta 7 sa delí medzi dva rôzne kolíky."
