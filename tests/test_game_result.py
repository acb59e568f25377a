"""``game-result`` (RULES §6, CONTRACT "Game results"): who has won from the totals —
C-D9, S-D5, K-D7, V-D4 and V-D6 — through the engine, the CLI and the HTTP door, with
the worked examples and hypothesis properties."""

from __future__ import annotations

import doctest
import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekeeper import api
from scorekeeper.errors import RuleError
from scorekeeper.games import results

EXAMPLES = json.loads(
    (Path(__file__).parent / "data" / "examples" / "game-result.json").read_text("utf-8")
)
PROPERTIES = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAMES = ["Ana", "Bojan", "Ceca", "Dragan", "Ema", "Filip"]


def result(game, totals, deals=6, ended=None, **settings_):
    request = {"game": game, "players": list(totals), "totals": totals, "deals": deals}
    if ended is not None:
        request["ended"] = ended
    if settings_:
        request["settings"] = settings_
    return api.evaluate("game-result", request)


def refused(request) -> RuleError:
    with pytest.raises(RuleError) as caught:
        api.evaluate("game-result", request)
    return caught.value


# --- worked examples ---------------------------------------------------------------


@pytest.mark.parametrize("case", EXAMPLES, ids=lambda c: c["request"]["game"])
def test_worked_examples(case):
    got = api.evaluate("game-result", case["request"])
    for field, expected in case["response"].items():
        if isinstance(expected, list):
            assert sorted(got[field]) == sorted(expected), field
        else:
            assert got[field] == expected, field


def test_doctests():
    failures, tried = doctest.testmod(results)
    assert tried and not failures


def test_every_kind_of_the_contract_is_served_and_no_other():
    """CONTRACT.md (the copy in tests/data) lists each kind once; game-result is one."""
    import re

    contract = (Path(__file__).parent / "data" / "CONTRACT.md").read_text("utf-8")
    listed = set(re.findall(r"^(?:### |- )`([a-z]+(?:-[a-z]+)+)`", contract, re.M))
    assert "game-result" in listed and listed == set(api.KINDS)


def test_the_command_line_door_answers_and_refuses():
    """``scorekeeper score game-result``: exit 0 with the answer, exit 2 when refused."""
    import subprocess
    import sys

    def run(body: dict) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "scorekeeper.cli", "score", "game-result"],
            input=json.dumps(body),
            capture_output=True,
            text=True,
            timeout=60,
        )

    out = run(EXAMPLES[0]["request"])
    assert out.returncode == 0 and json.loads(out.stdout)["winners"] == ["Ana"]
    out = run({**EXAMPLES[0]["request"], "game": "pegs"})
    assert out.returncode == 2 and json.loads(out.stdout)["error"]["path"] == "game"


def test_the_http_door_and_the_cli_door_agree(client):
    body = json.dumps(EXAMPLES[3]["request"])
    http = client.post("/api/v1/score/game-result", data=body, content_type="application/json")
    assert http.status_code == 200
    assert http.get_json() == api.respond("game-result", body)[0]
    assert "game-result" in api.KINDS


# --- C-D9: Wyoming Cowboy -----------------------------------------------------------


def test_c_d9_nobody_at_the_target_plays_on():
    got = result("cowboy", {"Ana": 499, "Bojan": 320, "Ceca": 0})
    assert (got["finished"], got["winners"]) == (False, [])
    assert got["ranks"] == {"Ana": 1, "Bojan": 2, "Ceca": 3}


def test_c_d9_the_single_highest_wins_even_if_another_also_passed_the_target():
    got = result("cowboy", {"Ana": 510, "Bojan": 560, "Ceca": 0})
    assert (got["finished"], got["winners"]) == (True, ["Bojan"])


def test_c_d9_a_tie_below_the_top_does_not_stop_the_winner():
    got = result("cowboy", {"Ana": 600, "Bojan": 520, "Ceca": 520})
    assert got["winners"] == ["Ana"] and got["ranks"] == {"Ana": 1, "Bojan": 2, "Ceca": 2}


def test_c_d9_stopped_early_the_highest_wins_shared_on_a_tie():
    got = result("cowboy", {"Ana": 300, "Bojan": 300, "Ceca": 10}, ended=True)
    assert got["finished"] and sorted(got["winners"]) == ["Ana", "Bojan"]


def test_c_d9_the_target_is_a_setting():
    got = result("cowboy", {"Ana": 300, "Bojan": 200, "Ceca": 10}, target=300)
    assert got["winners"] == ["Ana"]


# --- S-D5: Szaman -------------------------------------------------------------------


def test_s_d5_before_the_last_deal_nobody_has_won():
    got = result("szaman", {"Ola": 66, "Piotr": 20}, deals=5)
    assert (got["finished"], got["winners"]) == (False, [])
    assert got["ranks"] == {"Ola": 1, "Piotr": 2}
    assert "1 deal to go" in got["reason"]


def test_s_d5_equal_distance_above_and_below_shares_the_win():
    got = result("szaman", {"Ola": 70, "Piotr": 62, "Zosia": 100}, deals=6)
    assert sorted(got["winners"]) == ["Ola", "Piotr"]


def test_s_d5_settings_change_target_and_deals_and_ending_early_finishes():
    got = api.evaluate(
        "game-result",
        {
            "game": "szaman",
            "players": ["Ola", "Piotr"],
            "totals": {"Ola": 30, "Piotr": 52},
            "deals": 2,
            "settings": {"target": 40, "deals": 2},
        },
    )
    assert got["winners"] == ["Ola"]
    got = result("szaman", {"Ola": 30, "Piotr": 52}, deals=1, ended=True)
    assert got["finished"] and got["winners"] == ["Piotr"]


# --- K-D7: Kvanta -------------------------------------------------------------------


def test_k_d7_nobody_wins_before_the_burned_cards():
    got = result("kvanta", {"Ana": 90, "Bojan": 12})
    assert (got["finished"], got["winners"]) == (False, [])


def test_k_d7_top_totals_cancel_repeatedly():
    got = result("kvanta", {"Ana": 50, "Bojan": 50, "Ceca": 30, "Dragan": 30, "Ema": 1}, ended=True)
    assert got["winners"] == ["Ema"]
    assert got["ranks"] == {"Ana": 1, "Bojan": 1, "Ceca": 3, "Dragan": 3, "Ema": 5}


def test_k_d7_the_contract_example_ceca_wins_after_a_tie_at_the_top():
    got = result("kvanta", {"Milica": 50, "Dragan": 50, "Ceca": -1}, deals=7, ended=True)
    assert got["winners"] == ["Ceca"] and got["ranks"] == {"Milica": 1, "Dragan": 1, "Ceca": 3}


# --- V-D4 and V-D6: Vežimas ---------------------------------------------------------


def test_v_d4_carts_the_session_ends_when_the_players_say_so():
    got = result("vezimas", {"Jonas": 0, "Rūta": 9})
    assert (got["finished"], got["winners"], got["losers"]) == (False, [], [])
    got = result("vezimas", {"Jonas": 0, "Rūta": 9, "Asta": 9}, ended=True)
    assert got["winners"] == ["Jonas"] and got["losers"] == ["Rūta", "Asta"]


def test_v_d4_all_equal_nobody_wins_or_loses():
    got = result("vezimas", {"Jonas": 2, "Rūta": 2}, ended=True)
    assert (got["finished"], got["winners"], got["losers"]) == (True, [], [])


def test_v_d6_letters_completing_vezimas_loses_and_ends_the_session():
    got = result("vezimas", {"Jonas": 7, "Rūta": 3, "Asta": 3, "Ola": 5}, deals=18, tally="letters")
    assert got["finished"] and "VEŽIMAS" in got["reason"]
    assert got["losers"] == ["Jonas"] and got["winners"] == ["Rūta", "Asta"]
    assert got["ranks"] == {"Rūta": 1, "Asta": 1, "Ola": 3, "Jonas": 4}


def test_v_d6_letters_play_on_until_someone_has_all_seven():
    got = result("vezimas", {"Jonas": 6, "Rūta": 0}, deals=6, tally="letters")
    assert (got["finished"], got["winners"], got["losers"]) == (False, [], [])


def test_v_d6_a_player_cannot_hold_more_than_seven_letters_or_two_complete_the_word():
    err = refused(
        {
            "game": "vezimas",
            "players": ["Jonas", "Rūta"],
            "totals": {"Jonas": 8, "Rūta": 0},
            "deals": 8,
            "settings": {"tally": "letters"},
        }
    )
    assert err.path == "totals.Jonas"
    err = refused(
        {
            "game": "vezimas",
            "players": ["Jonas", "Rūta"],
            "totals": {"Jonas": 7, "Rūta": 7},
            "deals": 14,
            "settings": {"tally": "letters"},
        }
    )
    assert "V-D6" in err.message and err.path == "totals.Rūta"


# --- refusals -----------------------------------------------------------------------

BASE = {"game": "kvanta", "players": ["Ana", "Bojan"], "totals": {"Ana": 1, "Bojan": 2}, "deals": 3}


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"game": "pegs"}, "game"),
        ({"game": "chess"}, "game"),
        ({"players": ["Ana"]}, "players"),
        ({"game": "cowboy"}, "players"),  # Cowboy is for 3 or 4
        ({"totals": {"Ana": 1}}, "totals.Bojan"),
        ({"totals": {"Ana": 1, "Bojan": 2, "Zed": 3}}, "totals.Zed"),
        ({"totals": {"Ana": "1", "Bojan": 2}}, "totals.Ana"),
        ({"deals": -1}, "deals"),
        ({"ended": "yes"}, "ended"),
        ({"settings": {"target": 500}}, "settings.target"),  # Kvanta has no target
        ({"settings": []}, "settings"),
        ({"colour": "red"}, "colour"),
        ({"game": "vezimas", "totals": {"Ana": -1, "Bojan": 0}}, "totals.Ana"),
        ({"game": "vezimas", "settings": {"tally": "stones"}}, "settings.tally"),
        ({"game": "szaman", "settings": {"deals": 0}}, "settings.deals"),
    ],
)
def test_refusals_name_the_field(change, path):
    err = refused({**BASE, **change})
    assert err.path == path and err.message.endswith(".")


def test_missing_fields_are_refused():
    for field in ("game", "players", "totals", "deals"):
        request = {k: val for k, val in BASE.items() if k != field}
        assert refused(request).path == field


# --- properties ---------------------------------------------------------------------


@st.composite
def requests(draw, game=None):
    game = game or draw(st.sampled_from(results.GAMES))
    counts = {"cowboy": (3, 4), "szaman": (2, 6), "kvanta": (2, 6), "vezimas": (2, 4)}[game]
    players = NAMES[: draw(st.integers(*counts))]
    settings_ = {}
    if game == "vezimas":
        settings_["tally"] = draw(st.sampled_from(["carts", "letters"]))
    if settings_.get("tally") == "letters":
        values = st.integers(0, 6)
    elif game == "vezimas":
        values = st.integers(0, 12)
    else:
        # few distinct values so ties are common
        values = st.sampled_from([-20, 0, 30, 66, 499, 500, 505, 530])
    totals = {p: draw(values) for p in players}
    if settings_.get("tally") == "letters" and draw(st.booleans()):
        totals[draw(st.sampled_from(players))] = 7
    return {
        "game": game,
        "players": players,
        "totals": totals,
        "deals": draw(st.integers(0, 12)),
        "ended": draw(st.booleans()),
        "settings": settings_,
    }


def renamed_and_reseated(request: dict, rng: random.Random) -> tuple[dict, dict]:
    """The same totals under other names in another seating; and the name map."""
    new_names = [f"P{i}" for i in range(len(request["players"]))]
    rng.shuffle(new_names)
    rename = dict(zip(request["players"], new_names, strict=True))
    seating = list(rename.values())
    rng.shuffle(seating)
    totals = {rename[p]: t for p, t in request["totals"].items()}
    return {**request, "players": seating, "totals": totals}, rename


@PROPERTIES
@given(request=requests(), seed=st.integers(0, 2**32))
def test_ranks_and_the_result_are_a_permutation_invariant_function_of_the_totals(request, seed):
    """RULES §6: ranks (and who wins or loses) follow from the totals alone: renaming
    and reseating the players moves every answer with its total."""
    got = api.evaluate("game-result", request)
    moved, rename = renamed_and_reseated(request, random.Random(seed))
    again = api.evaluate("game-result", moved)
    assert again["ranks"] == {rename[p]: r for p, r in got["ranks"].items()}
    assert sorted(again["winners"]) == sorted(rename[p] for p in got["winners"])
    assert sorted(again["losers"]) == sorted(rename[p] for p in got["losers"])
    assert again["finished"] == got["finished"]
    # equal totals share a rank; ranks are 1-based places
    totals = request["totals"]
    for p in totals:
        for q in totals:
            if totals[p] == totals[q]:
                assert got["ranks"][p] == got["ranks"][q]
    assert min(got["ranks"].values()) == 1
    assert all(
        got["ranks"][p] == 1 + sum(got["ranks"][q] < got["ranks"][p] for q in totals)
        for p in totals
    )


@PROPERTIES
@given(request=requests("cowboy"))
def test_c_d9_a_tie_at_the_top_never_finishes_the_game(request):
    """C-D9: while two totals share the top, another deal is played (unless stopped)."""
    request = {**request, "ended": False}
    top = max(request["totals"].values())
    got = api.evaluate("game-result", request)
    if list(request["totals"].values()).count(top) > 1:
        assert not got["finished"] and got["winners"] == []
    else:
        assert got["finished"] == (top >= 500)
    assert len(got["winners"]) <= 1


@PROPERTIES
@given(request=requests("kvanta"))
def test_k_d7_exactly_one_or_zero_winners(request):
    got = api.evaluate("game-result", request)
    assert len(got["winners"]) <= 1
    if got["winners"]:
        (winner,) = got["winners"]
        totals = request["totals"]
        # the winner's total is shared by nobody; every higher total is shared
        assert list(totals.values()).count(totals[winner]) == 1
        assert all(
            list(totals.values()).count(t) > 1 for t in totals.values() if t > totals[winner]
        )
    elif got["finished"]:
        assert all(
            list(request["totals"].values()).count(t) > 1 for t in request["totals"].values()
        )


@PROPERTIES
@given(request=requests("szaman"))
def test_s_d5_every_winner_is_at_the_minimal_distance(request):
    got = api.evaluate("game-result", request)
    distance = {p: abs(t - 66) for p, t in request["totals"].items()}
    if got["finished"]:
        closest = min(distance.values())
        assert got["winners"] and all(distance[p] == closest for p in got["winners"])
        assert sorted(got["winners"]) == sorted(p for p in distance if distance[p] == closest)
    else:
        assert got["winners"] == []


@PROPERTIES
@given(request=requests("vezimas"))
def test_v_d4_v_d6_winners_have_the_fewest_and_losers_the_most(request):
    got = api.evaluate("game-result", request)
    totals = request["totals"]
    assert not set(got["winners"]) & set(got["losers"])
    if got["winners"]:
        contenders = [p for p in totals if p not in got["losers"]]
        assert all(totals[w] == min(totals[p] for p in contenders) for w in got["winners"])
    if request["settings"]["tally"] == "letters" and 7 in totals.values():
        assert got["finished"] and got["losers"] == [
            p for p in request["players"] if totals[p] == 7
        ]
