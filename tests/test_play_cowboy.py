"""Wyoming Cowboy's deal as a log of taps (scorekeeper/games/play/cowboy.py):
examples from RULES.md §1, the worked examples in tests/data/play/, and properties
over logs made of the taps the state itself calls legal."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekeeper import api
from scorekeeper.errors import RuleError
from scorekeeper.games.play import Refused, Tap, play, replay, respond
from scorekeeper.games.play import cowboy as module
from scorekeeper.games.play.cowboy import ACES, DECK, CowboyDeal, legal_taps

PLAY_DATA = Path(__file__).parent / "data" / "play"
THREE = ["Ana", "Bojan", "Ceca"]
GUNS = [["2S", "2H"], ["3D", "8C"], ["3H", "5H", "7H"], ["3S", "5D", "7C"], ["4S", "5S"]]


def taps(*raw: dict) -> list[dict]:
    return [{"id": f"t{i}", **tap} for i, tap in enumerate(raw)]


def state_after(*raw: dict, players=THREE, settings=None) -> dict:
    return play("cowboy", {"players": players, "settings": settings or {}, "taps": taps(*raw)})


def refused(*raw: dict, players=THREE) -> Refused:
    with pytest.raises(Refused) as caught:
        state_after(*raw, players=players)
    return caught.value


def test_doctests():
    assert doctest.testmod(module).failed == 0


# ---------------------------------------------------------------- worked examples


@pytest.mark.parametrize("path", sorted(PLAY_DATA.glob("cowboy-*.json")), ids=lambda p: p.stem)
def test_worked_examples(path):
    case = json.loads(path.read_text())
    body, status = respond("cowboy", json.dumps(case["request"]))
    expect = case["expect"]
    assert status == expect.get("status", 200), body
    if status != 200:
        assert {k: body["error"][k] for k in expect["error"]} == expect["error"]
        return
    for key in ("phase", "turn", "complete", "marriages", "aces_on_table", "end"):
        if key in expect:
            assert body[key] == expect[key], key
    if "next" in expect:
        assert body["next"]["step"] == expect["next"]["step"]
    for got, want in zip(body["shots"], expect.get("shots", []), strict=True):
        assert {k: got[k] for k in want} == want
    if "totals" in expect:
        assert {n: p["total"] for n, p in body["score"]["players"].items()} == expect["totals"]
        assert body["closing"]["kind"] == expect["closing_kind"]
        scored = api.evaluate(body["closing"]["kind"], body["closing"]["request"])
        assert scored == body["score"]


# ---------------------------------------------------------------- RULES.md §1 examples


def test_start_checks_players_and_house_rules():
    with pytest.raises(RuleError, match="3 or 4 players; 2 given"):
        CowboyDeal.start(["Ana", "Bojan"], {})
    with pytest.raises(RuleError, match="no setting called"):
        CowboyDeal.start(THREE, {"harlots": True})
    state = CowboyDeal.start(THREE, {"marriage_and_harlot": False}).to_json()
    assert state["house_rules"] == {"marriage_and_harlot": False, "curse_replaces_sixes": True}
    assert state["phase"] == "play" and state["turn"] is None and state["closing"] is None


def test_marriage_points_come_from_the_engine_and_a_suit_is_shown_once_c_d1():
    state = state_after({"action": "marriage", "seat": 2, "suit": "S"})
    assert state["marriages"] == [
        {"seat": 2, "player": "Ceca", "suit": "S", "cards": ["KS", "QS"], "points": 25}
    ]
    assert {"S"} & set(
        next(e for e in state["legal"] if e["action"] == "marriage")["suit"]
    ) == set()
    error = refused(
        {"action": "marriage", "seat": 2, "suit": "S"},
        {"action": "marriage", "seat": 0, "suit": "S"},
    )
    assert "C-D1" in error.message and error.index == 1 and error.path == "taps[1].suit"


def test_a_tap_says_what_was_meant_so_a_retry_with_a_new_id_changes_nothing():
    once = state_after({"action": "hold", "seat": 0, "card": "KH"})
    twice = state_after(
        {"action": "hold", "seat": 0, "card": "KH"}, {"action": "hold", "seat": 0, "card": "kh"}
    )
    assert once["holdings"] == twice["holdings"]
    removed = state_after(
        {"action": "hold", "seat": 0, "card": "KH"},
        {"action": "unhold", "seat": 0, "card": "KH"},
        {"action": "unhold", "seat": 0, "card": "KH"},
    )
    assert removed["holdings"][0]["held"] == []


def test_one_card_lies_in_one_place():
    error = refused(
        {"action": "hold", "seat": 0, "card": "KH"}, {"action": "hold", "seat": 1, "card": "KH"}
    )
    assert error.message == "KH is already in Ana's hand." and error.index == 1


def test_a_gun_is_drawn_once_its_cards_make_one():
    state = state_after(
        {"action": "build", "seat": 1, "card": "3H"},
        {"action": "build", "seat": 1, "card": "5H"},
    )
    assert state["holdings"][1]["building"]["cards"] == ["3H", "5H"]
    state = state_after(
        {"action": "build", "seat": 1, "card": "3H"},
        {"action": "build", "seat": 1, "card": "5H"},
        {"action": "build", "seat": 1, "card": "7H"},
    )
    assert state["holdings"][1]["guns"] == [
        {"cards": ["3H", "5H", "7H"], "gun": "357-quick-draw", "name": "357 Quick Draw"}
    ]
    assert state["holdings"][1]["building"] is None
    assert refused({"action": "build", "seat": 0, "card": "KH"}).path == "taps[0].card"


def test_an_unfinished_gun_keeps_the_deal_open():
    state = state_after(
        {"action": "end", "seat": 0, "reason": "tens"},
        {"action": "build", "seat": 0, "card": "4S"},
        {"action": "build", "seat": 0, "card": "5H"},
    )
    assert state["next"]["step"] == "gun" and "one suit" in state["next"]["text"]
    assert state["complete"] is False and state["closing"] is None


def test_a_dodge_with_the_last_ace_ends_the_deal_ended_by_the_attacker():
    path = PLAY_DATA / "cowboy-last-ace.json"
    state = play("cowboy", json.loads(path.read_text())["request"])
    assert state["end"] == {"seat": 0, "player": "Ana", "reason": "aces"}
    assert not any(e["action"] == "shoot" for e in state["legal"])


def test_the_victim_may_leave_the_ace_c_d11():
    state = state_after(
        {"action": "shoot", "attacker": 0, "victim": 1, "gun": ["2S", "2H"]},
        {"action": "victim_holds", "seat": 1, "card": "KC"},
        {"action": "turn", "seat": 0, "card": "9C"},
        {"action": "take_ace", "seat": 1, "take": False},
    )
    assert state["shot"]["verdict"]["ace"] is None and state["turn"] == 1
    done = state_after(
        {"action": "shoot", "attacker": 0, "victim": 1, "gun": ["2S", "2H"]},
        {"action": "victim_holds", "seat": 1, "card": "KC"},
        {"action": "turn", "seat": 0, "card": "9C"},
        {"action": "shot_over"},
    )
    assert done["aces_on_table"] == ["AS", "AH", "AD"] and done["end"] is None


def test_a_turned_ace_is_refused_c_d10():
    error = refused(
        {"action": "shoot", "attacker": 0, "victim": 1, "gun": ["4S", "5S"]},
        {"action": "victim_holds", "seat": 1, "card": "KD"},
        {"action": "turn", "seat": 0, "card": "AD"},
    )
    assert "C-D10" in error.message and error.index == 2


def test_the_victim_chooses_backfire_or_quick_draw_c_d2():
    start = (
        {"action": "shoot", "attacker": 2, "victim": 0, "gun": ["2S", "2H"]},
        {"action": "victim_holds", "seat": 0, "card": "6C"},
        {"action": "victim_holds", "seat": 0, "card": "3D"},
        {"action": "victim_holds", "seat": 0, "card": "5D"},
        {"action": "victim_holds", "seat": 0, "card": "7D"},
    )
    state = state_after(*start)
    assert state["next"]["step"] == "choose" and state["turn"] == 0
    assert not any(e["action"] == "shot_over" for e in state["legal"])
    assert refused(*start, {"action": "shot_over"}).index == len(start)
    done = state_after(
        *start, {"action": "choose", "seat": 0, "outcome": "quick_draw"}, {"action": "shot_over"}
    )
    assert done["shots"][0]["outcome"] == "quick_draw"


def test_the_victim_picks_which_king_is_hit_c_d3():
    start = (
        {"action": "shoot", "attacker": 1, "victim": 2, "gun": ["3D", "8C"]},
        {"action": "victim_holds", "seat": 2, "card": "KS"},
        {"action": "victim_holds", "seat": 2, "card": "KD"},
        {"action": "turn", "seat": 1, "card": "9H"},
    )
    state = state_after(*start)
    assert state["next"]["step"] == "give"
    assert {"action": "give", "seat": [2], "card": ["KS", "KD"]} in state["legal"]
    done = state_after(*start, {"action": "give", "seat": 2, "card": "KD"}, {"action": "shot_over"})
    assert done["shots"][0]["given"] == ["KD"] and done["shots"][0]["outcome"] == "hit"


def test_a_shot_names_its_victim_and_attacker():
    error = refused(
        {"action": "shoot", "attacker": 1, "victim": 2, "gun": ["3D", "8C"]},
        {"action": "victim_holds", "seat": 1, "card": "KS"},
    )
    assert (
        error.message == "In this shot the victim is Ceca, not Bojan."
        and error.path == "taps[1].seat"
    )
    assert refused({"action": "shoot", "attacker": 1, "victim": 1, "gun": ["2S", "2H"]}).index == 0
    not_a_gun = refused({"action": "shoot", "attacker": 0, "victim": 1, "gun": ["4S", "5H"]})
    assert "one suit" in not_a_gun.message and not_a_gun.path == "taps[0].gun"


@pytest.mark.parametrize(
    ("tap", "path"),
    [
        ({"action": "fold"}, "taps[0].action"),
        ({"action": "hold", "seat": 0}, "taps[0].card"),
        ({"action": "hold", "seat": 5, "card": "KH"}, "taps[0].seat"),
        ({"action": "hold", "seat": True, "card": "KH"}, "taps[0].seat"),
        ({"action": "hold", "seat": 0, "card": "RJ"}, "taps[0].card"),
        ({"action": "hold", "seat": 0, "card": "KH", "player": "Ana"}, "taps[0].player"),
        ({"action": "lay", "seat": 0, "card": "9H"}, "taps[0].card"),
        ({"action": "end", "seat": 0, "reason": "time"}, "taps[0].reason"),
        ({"action": "shot_over"}, "taps[0].action"),
    ],
)
def test_bad_taps_are_refused_with_their_field(tap, path):
    error = refused(tap)
    assert error.path == path and error.index == 0 and error.message


def test_an_unknown_tap_is_refused_naming_the_game_as_its_record_does_and_its_taps():
    error = refused({"action": "marriage", "seat": 0, "suit": "H"}, {"action": "fold"})
    assert error.message == (
        "Vajoming Kauboj has no tap called “fold”; the taps are marriage, withdraw_marriage, "
        "hold, unhold, build, unbuild, undraw, lay, unlay, end, ace_on_table, ace_off_table, "
        "shoot, aim, load, unload, victim_gun, victim_holds, victim_lacks, turn, choose, give, "
        "take_ace, shot_over, cancel_shot."
    )
    assert error.as_dict()["error"] == {
        "message": error.message,
        "path": "taps[1].action",
        "tap": 1,
    }


def test_a_joker_is_refused_naming_the_game_as_its_record_does():
    """The play state and the scoring engine call the game by its name (its record's),
    as every other message does."""
    error = refused({"action": "hold", "seat": 0, "card": "RJ"})
    assert error.message == "Vajoming Kauboj is played without jokers; RJ is not in its deck."
    assert error.path == "taps[0].card"
    with pytest.raises(RuleError) as caught:
        api.evaluate(
            "cowboy-deal",
            {"players": THREE, "end": {"by": "Ana", "reason": "tens"}, "held": {"Ana": ["BJ"]}},
        )
    assert str(caught.value.message) == (
        "Vajoming Kauboj is played without jokers; BJ is not in its deck."
    )


# ---------------------------------------------------------------- properties

OTHER = st.sampled_from([4, 3])
SHOT_STEPS = {"victim_holds", "turn", "choose", "give", "take_ace", "shot_over"}


@st.composite
def legal_logs(draw, max_taps: int = 25):
    """A log of taps each taken from the ``legal`` list of the state before it."""
    players = THREE if draw(OTHER) == 3 else [*THREE, "Dara"]
    state = CowboyDeal.start(players, {})
    log: list[dict] = []
    for i in range(draw(st.integers(0, max_taps))):
        entries = state.legal()
        if state.shot is not None and draw(st.integers(0, 9)):  # mostly see a shot through
            steps = SHOT_STEPS - ({"shot_over"} if len(state.shot.held) < 3 else set())
            entries = [e for e in entries if e["action"] in steps] or entries
        entry = draw(st.sampled_from(entries))
        tap = {"id": f"t{i}", "action": entry["action"]}
        for name, choices in entry.items():
            if name == "action":
                continue
            tap[name] = (
                draw(st.sampled_from(GUNS)) if choices is None else draw(st.sampled_from(choices))
            )
        state = state.apply(Tap.from_json(tap))  # a legal tap is always taken
        log.append(tap)
    return players, log


@st.composite
def finished_deals(draw):
    """Logs of deals that end on tens or on aces, with cards spread over the seats."""
    players = THREE if draw(OTHER) == 3 else [*THREE, "Dara"]
    seats = st.integers(0, len(players) - 1)
    raw: list[dict] = []
    for suit in draw(st.lists(st.sampled_from("SHDC"), unique=True)):
        raw.append({"action": "marriage", "seat": draw(seats), "suit": suit})
    on_aces = draw(st.booleans())
    if on_aces:
        for suit in "SHDC":
            seat = draw(seats)
            raw += [{"action": "hold", "seat": seat, "card": f"K{suit}"}]
            raw += [{"action": "hold", "seat": seat, "card": f"A{suit}"}]
    else:
        for ten in ("10S", "10H", "10D", "10C"):
            raw.append({"action": "lay", "seat": draw(seats), "card": ten})
        gunner = draw(seats)
        raw += [{"action": "build", "seat": gunner, "card": c} for c in ("2S", "2H")]
    used = {tap.get("card") for tap in raw}
    spare = [c for c in DECK if c not in used and c not in ACES and not c.startswith("K")]
    for card in draw(st.lists(st.sampled_from(spare), unique=True, max_size=20)):
        raw.append({"action": "hold", "seat": draw(seats), "card": card})
    raw = draw(st.permutations(raw))
    raw.append({"action": "end", "seat": draw(seats), "reason": "aces" if on_aces else "tens"})
    rules = {
        "marriage_and_harlot": draw(st.booleans()),
        "curse_replaces_sixes": draw(st.booleans()),
    }
    return players, rules, [{"id": f"t{i}", **tap} for i, tap in enumerate(raw)]


def start(players, rules=None) -> CowboyDeal:
    return CowboyDeal.start(players, rules or {})


PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(legal_logs())
def test_every_prefix_of_a_legal_log_replays(case):
    players, log = case
    for k in range(len(log) + 1):
        replay(start(players), log[:k]).to_json()


@PROPERTY
@given(legal_logs())
def test_undo_then_redo_is_identity(case):
    players, log = case
    if not log:
        return
    undone = replay(start(players), log[:-1])
    assert undone.apply(Tap.from_json(log[-1])) == replay(start(players), log)


@PROPERTY
@given(legal_logs(), st.data())
def test_a_tap_id_applied_twice_changes_nothing(case, data):
    players, log = case
    if not log:
        return
    again = data.draw(st.sampled_from(log))
    at = data.draw(st.integers(log.index(again) + 1, len(log)))
    assert replay(start(players), [*log[:at], again, *log[at:]]) == replay(start(players), log)


@PROPERTY
@given(legal_logs())
def test_the_log_survives_a_json_round_trip(case):
    players, log = case
    text = json.dumps(log)
    assert [Tap.from_json(t).to_json() for t in json.loads(text)] == log
    assert replay(start(players), json.loads(text)) == replay(start(players), log)
    state = replay(start(players), log).to_json()
    assert json.loads(json.dumps(state)) == state


@PROPERTY
@given(legal_logs(max_taps=15), st.data())
def test_every_listed_choice_is_taken(case, data):
    players, log = case
    state = replay(start(players), log)
    for entry in state.legal():
        if any(choices is None for choices in entry.values()):
            continue
        tap = data.draw(st.sampled_from(legal_taps(entry)))
        assert state.can(Tap.from_json({"id": "x", **tap})), tap


@PROPERTY
@given(legal_logs(max_taps=15))
def test_a_refused_tap_names_its_index(case):
    players, log = case
    bad = {"id": "bad", "action": "hold", "seat": len(players), "card": "KH"}
    with pytest.raises(Refused) as caught:
        replay(start(players), [*log, bad])
    assert caught.value.index == len(log)
    assert caught.value.path == f"taps[{len(log)}].seat"


@PROPERTY
@given(finished_deals())
def test_a_finished_deal_closes_with_what_the_engine_scores(case):
    players, rules, log = case
    state = replay(start(players, rules), log).to_json()
    assert state["complete"], state["next"]
    closing = state["closing"]
    assert closing["kind"] == "cowboy-deal"
    assert api.evaluate(closing["kind"], closing["request"]) == state["score"]
    assert closing["request"]["house_rules"] == rules


@PROPERTY
@given(legal_logs())
def test_a_complete_legal_log_scores_as_the_engine(case):
    players, log = case
    state = replay(start(players), log).to_json()
    if state["complete"]:
        closing = state["closing"]
        assert api.evaluate(closing["kind"], closing["request"]) == state["score"]
    else:
        assert state["closing"] is None


def test_play_md_documents_every_action_and_its_example_replays():
    text = (Path(__file__).parent.parent / "PLAY.md").read_text()
    section = text.split("## Wyoming Cowboy", 1)[1].split("\n## ", 1)[0]
    table = " ".join(line for line in section.splitlines() if line.startswith("| `"))
    assert {name for name in module.ACTIONS if f"`{name}`" not in table} == set()
    example = json.loads(section.split("```json", 1)[1].split("```", 1)[0])
    state = play("cowboy", example)
    assert state["next"]["step"] == "holdings" and "AD" not in state["aces_on_table"]


def test_the_victims_choices_go_when_his_cards_change():
    """C-D2 / C-D3: a choice made on cards the victim no longer holds is not kept."""
    hit_two = (
        {"action": "shoot", "attacker": 1, "victim": 2, "gun": ["3D", "8C"]},
        {"action": "victim_holds", "seat": 2, "card": "KS"},
        {"action": "victim_holds", "seat": 2, "card": "KD"},
        {"action": "turn", "seat": 1, "card": "9H"},
        {"action": "give", "seat": 2, "card": "KD"},
    )
    state = state_after(
        *hit_two,
        {"action": "victim_lacks", "seat": 2, "card": "KD"},
        {"action": "victim_holds", "seat": 2, "card": "KD"},
    )
    assert state["shot"]["given"] is None and state["next"]["step"] == "give"
    backfire = state_after(
        {"action": "shoot", "attacker": 2, "victim": 0, "gun": ["2S", "2H"]},
        {"action": "victim_holds", "seat": 0, "card": "6C"},
        *({"action": "victim_holds", "seat": 0, "card": c} for c in ("3D", "5D", "7D")),
        {"action": "choose", "seat": 0, "outcome": "quick_draw"},
        {"action": "victim_lacks", "seat": 0, "card": "3D"},
    )
    assert backfire["shot"]["verdict"]["outcome"] == "backfire"
    assert backfire["shot"]["chosen"] is None


def test_a_shot_set_up_tap_by_tap_begins_once_its_gun_is_complete():
    """``aim`` and ``load``: the screen's way to begin a shot, one tap at a time; the
    shot is the same as one begun by ``shoot`` with the same seats and gun."""
    aimed = state_after(
        {"action": "aim", "role": "attacker", "seat": 0},
        {"action": "load", "card": "3H"},
        {"action": "aim", "role": "victim", "seat": 0},  # one seat for both roles: moved
    )
    assert aimed["next"]["step"] == "aim" and aimed["shot"] is None
    assert (aimed["aim"]["attacker"], aimed["aim"]["victim"], aimed["aim"]["gun"]) == (
        None,
        0,
        ["3H"],
    )
    assert aimed["aim"]["gun_kind"] is None and "none of them" in aimed["aim"]["reason"]
    begun = state_after(
        {"action": "aim", "role": "attacker", "seat": 1},
        {"action": "aim", "role": "victim", "seat": 2},
        {"action": "load", "card": "3H"},
        {"action": "unload", "card": "3H"},
        {"action": "load", "card": "3D"},
        {"action": "load", "card": "8C"},
    )
    shot = state_after({"action": "shoot", "attacker": 1, "victim": 2, "gun": ["3D", "8C"]})
    assert begun["aim"] is None and begun["shot"] == shot["shot"]
    cancelled = state_after(
        {"action": "aim", "role": "attacker", "seat": 1}, {"action": "cancel_shot"}
    )
    assert cancelled["aim"] is None and cancelled["next"]["step"] == "play"
    assert (
        "at most 3 cards"
        in refused(*[{"action": "load", "card": c} for c in ("2S", "3S", "4H", "5D")]).message
    )
    assert "never part of a gun" in refused({"action": "load", "card": "KH"}).message
    ended = (
        {"action": "end", "seat": 0, "reason": "tens"},
        {"action": "aim", "role": "attacker", "seat": 1},
    )
    assert "has ended" in refused(*ended).message
