"""Wyoming Cowboy (RULES.md §1, CONTRACT "Wyoming Cowboy"): guns, marriages, the
shooting referee and the end-of-deal score."""

from __future__ import annotations

import copy
import doctest
import json
from pathlib import Path

import pytest

from scorekeeper import api
from scorekeeper.errors import RuleError
from scorekeeper.games import cowboy

EXAMPLES = Path(__file__).parent / "data" / "examples"
COWBOY_KINDS = ("cowboy-gun", "cowboy-marriage", "cowboy-deal", "cowboy-shot")


def ask(kind: str, request: dict) -> dict:
    return api.evaluate(kind, request)


def refused(kind: str, request: dict) -> RuleError:
    with pytest.raises(RuleError) as info:
        api.evaluate(kind, request)
    return info.value


def _cases():
    for kind in COWBOY_KINDS:
        for i, case in enumerate(json.loads((EXAMPLES / f"{kind}.json").read_text())):
            yield pytest.param(kind, case, id=f"{kind}-{i}")


@pytest.mark.parametrize(("kind", "case"), list(_cases()))
def test_worked_examples(kind, case):
    if "response" in case:
        got = ask(kind, case["request"])
        for field, expected in case["response"].items():
            assert got[field] == expected, field
    else:
        err = refused(kind, case["request"])
        assert err.message and err.path


def test_docstring_examples():
    failures, tried = doctest.testmod(cowboy)
    assert tried and not failures


def test_kinds_are_dispatched_to_this_module():
    for kind in COWBOY_KINDS:
        assert api.engine_for(kind) is cowboy.KINDS[kind]


# ── cowboy-gun ──────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("cards", "gun"),
    [
        (["2H", "2D"], "22"),
        (["3S", "8D"], "38"),
        (["8d", "3s"], "38"),
        (["3H", "5D", "7S"], "357"),
        (["7♣", "3C", "5c"], "357-quick-draw"),
        (["4D", "5D"], "45"),
        (["5♠", "4S"], "45"),
    ],
)
def test_guns_are_recognised(cards, gun):
    got = ask("cowboy-gun", {"cards": cards})
    assert got["gun"] == gun
    assert got["reason"].endswith(".")


def test_a_4_and_a_5_of_different_suits_is_no_45():
    got = ask("cowboy-gun", {"cards": ["4S", "5H"]})
    assert got["gun"] is None
    assert "one suit" in got["reason"]


@pytest.mark.parametrize(
    "cards",
    [
        [],
        ["2H"],
        ["2H", "2D", "2S"],
        ["3H", "8H", "9C"],
        ["3H", "5H"],
        ["3H", "5H", "7H", "8C"],
        ["KS", "QS"],
        ["10H", "10D"],
    ],
)
def test_other_sets_are_no_gun_and_say_so(cards):
    got = ask("cowboy-gun", {"cards": cards})
    assert got["gun"] is None
    assert got["reason"].startswith("Guns are two 2s")


def test_no_gun_reason_names_the_cards():
    assert "QD is none of them" in ask("cowboy-gun", {"cards": ["q♦"]})["reason"]
    assert "2H 3H are none of them" in ask("cowboy-gun", {"cards": ["3H", "2H"]})["reason"]


@pytest.mark.parametrize(
    ("request_", "path"),
    [
        ({"cards": ["4H", "4h"]}, "cards[1]"),
        ({"cards": ["4H", "RJ"]}, "cards[1]"),
        ({"cards": ["4H", "1X"]}, "cards[1]"),
        ({"cards": "4H 5H"}, "cards"),
        ({}, "cards"),
        ({"cards": ["4H", "5H"], "gun": "45"}, "gun"),
    ],
)
def test_gun_refusals(request_, path):
    assert refused("cowboy-gun", request_).path == path


def test_gun_names_and_helpers():
    assert set(cowboy.GUN_NAMES) == set(cowboy.GUNS)
    assert cowboy.GUN_NAMES["357-quick-draw"] == "357 Quick Draw"
    assert cowboy.GUN_NAMES["45"] == "45"


# ── cowboy-marriage ─────────────────────────────────────────────────────────────

FOUR = ["Ana", "Bojan", "Ceca", "Dara"]


def test_marriage_scores_25_at_once():
    got = ask("cowboy-marriage", {"players": FOUR, "player": "Ceca", "suit": "♠"})
    assert got["points"] == {"Ceca": 25}
    assert got["suit"] == "S"


def test_marriage_of_a_suit_already_shown_is_refused_c_d1():
    req = {
        "players": FOUR,
        "player": "Ceca",
        "suit": "h",
        "shown": [{"player": "Ana", "suit": "H"}],
    }
    err = refused("cowboy-marriage", req)
    assert err.path == "suit"
    assert "C-D1" in err.message and "hearts" in err.message


def test_marriage_list_that_repeats_a_suit_is_refused_c_d1():
    shown = [{"player": "Ana", "suit": "D"}, {"player": "Bojan", "suit": "♦"}]
    err = refused(
        "cowboy-marriage", {"players": FOUR, "player": "Ceca", "suit": "S", "shown": shown}
    )
    assert err.path == "shown[1].suit"


@pytest.mark.parametrize(
    ("request_", "path"),
    [
        ({"players": ["Ana", "Bojan"], "player": "Ana", "suit": "S"}, "players"),
        ({"players": [*FOUR, "Ema"], "player": "Ana", "suit": "S"}, "players"),
        ({"players": ["Ana", "Ana", "Ceca"], "player": "Ana", "suit": "S"}, "players[1]"),
        ({"players": FOUR, "player": "Zoe", "suit": "S"}, "player"),
        ({"players": FOUR, "player": "Ana", "suit": "X"}, "suit"),
        (
            {
                "players": FOUR,
                "player": "Ana",
                "suit": "S",
                "shown": [{"player": "Zoe", "suit": "H"}],
            },
            "shown[0].player",
        ),
        (
            {"players": FOUR, "player": "Ana", "suit": "S", "shown": [{"player": "Ana"}]},
            "shown[0].suit",
        ),
        ({"players": FOUR, "player": "Ana"}, "suit"),
    ],
)
def test_marriage_refusals(request_, path):
    assert refused("cowboy-marriage", request_).path == path


def test_can_show_marriage():
    assert cowboy.can_show_marriage("H", ["S", "D"])
    assert not cowboy.can_show_marriage("H", ["H"])


# ── cowboy-deal ─────────────────────────────────────────────────────────────────
# A plain deal that ended on tens: Bojan drew the 22 after the last 10; nobody
# holds anything that scores. Tests add cards to it.


def tens_deal(**changes) -> dict:
    req = {
        "players": ["Ana", "Bojan", "Ceca"],
        "end": {"by": "Bojan", "reason": "tens"},
        "held": {"Ana": ["9S", "8H"], "Bojan": ["7C"], "Ceca": ["9D"]},
        "guns": {"Bojan": [["2S", "2H"]]},
        "tens": {"Ana": ["10S", "10C", "10H"], "Ceca": ["10D"]},
    }
    req.update(changes)
    return req


def aces_deal(**changes) -> dict:
    """Ended on aces by Ceca: Ana holds two protected cowboys, Bojan two."""
    req = {
        "players": ["Ana", "Bojan", "Ceca"],
        "end": {"by": "Ceca", "reason": "aces"},
        "held": {
            "Ana": ["KS", "AS", "KH", "AH"],
            "Bojan": ["KD", "AD", "KC", "AC"],
            "Ceca": ["9D"],
        },
        "tens": {"Ana": ["10S"], "Ceca": ["10D"]},
    }
    req.update(changes)
    return req


def items(result: dict, player: str) -> dict[str, tuple[int, int]]:
    return {i["code"]: (i["count"], i["points"]) for i in result["players"][player]["items"]}


def with_held(req: dict, player: str, *cards: str) -> dict:
    req = copy.deepcopy(req)
    req["held"][player] = [*req["held"].get(player, []), *cards]
    return req


def test_plain_tens_deal():
    got = ask("cowboy-deal", tens_deal())
    assert items(got, "Ana") == {"tens_laid": (3, 30)}
    assert items(got, "Bojan") == {"ended": (1, 30)}
    assert items(got, "Ceca") == {"tens_laid": (1, 10)}
    assert got["players"]["Ana"]["total"] == 30


def test_every_player_is_listed_even_without_items():
    got = ask("cowboy-deal", tens_deal(held={"Ana": ["9S"]}))
    assert list(got["players"]) == ["Ana", "Bojan", "Ceca"]
    assert got["players"]["Ceca"] == {
        "total": 10,
        "items": [{"code": "tens_laid", "count": 1, "points": 10}],
    }


def test_marriages_shown_are_counted_per_player():
    shown = [
        {"player": "Ceca", "suit": "H"},
        {"player": "Ceca", "suit": "S"},
        {"player": "Ana", "suit": "D"},
    ]
    got = ask("cowboy-deal", tens_deal(shown_marriages=shown))
    assert items(got, "Ceca")["marriage_shown"] == (2, 50)
    assert items(got, "Ana")["marriage_shown"] == (1, 25)


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        (["JS", "JH", "JD", "JC"], {"orphanage": (1, 80)}),
        (["QS", "QH", "QD", "QC"], {"harem": (1, 100)}),  # C-D5: no harlots
        (["KS", "KH", "KD", "KC"], {"gang": (1, 150)}),
        (["9H"], {}),  # no other card has a value
        (["QS"], {"harlot": (1, -25)}),
        (["QS", "QD"], {"harlot": (2, -50)}),
        (["6S"], {"six": (1, -20)}),
        (["6S", "6H"], {"six": (2, -40)}),
        (["6S", "6H", "6D"], {"curse": (1, -100)}),  # C-D8 default: curse replaces the three
        (["6S", "6H", "6D", "6C"], {"six": (1, -20), "curse": (1, -100)}),
        (["KS", "QS"], {"harlot": (1, -25), "illegal_marriage": (1, -50)}),  # C-D7: −75
        (["KS", "QS", "KD", "QD"], {"harlot": (2, -50), "illegal_marriage": (2, -100)}),
        (["KS", "QH"], {"harlot": (1, -25)}),
        # C-D5: a K+Q inside a Harem is still an illegal marriage, but the queen is no harlot
        (["QS", "QH", "QD", "QC", "KS"], {"harem": (1, 100), "illegal_marriage": (1, -50)}),
    ],
)
def test_scoring_items(cards, expected):
    req = tens_deal(held={"Ana": ["9S"], "Ceca": cards}, tens={"Ana": ["10S", "10C", "10H", "10D"]})
    got = ask("cowboy-deal", req)
    assert items(got, "Ceca") == expected
    assert got["players"]["Ceca"]["total"] == sum(p for _, p in expected.values())


def test_stalling_ten_counts_each_ten_held():
    req = tens_deal(
        end={"by": "Ana", "reason": "aces"},
        held={"Ana": ["KS", "AS", "KH", "AH", "KD", "AD", "KC", "AC"], "Ceca": ["10H", "10D"]},
        tens={"Ana": ["10S"]},
    )
    got = ask("cowboy-deal", req)
    assert items(got, "Ceca") == {"stalling_ten": (2, -60)}


def test_family_with_its_kq_is_neither_harlot_nor_illegal_marriage_c_d5():
    req = aces_deal()
    req["held"]["Ana"] += ["QH", "JH"]
    got = ask("cowboy-deal", req)
    assert items(got, "Ana") == {"tens_laid": (1, 10), "family": (1, 120)}


def test_two_families_score_each():
    req = aces_deal()
    req["held"]["Ana"] += ["QH", "JH", "QS", "JS"]
    assert items(ask("cowboy-deal", req), "Ana")["family"] == (2, 240)


def test_a_family_does_not_exempt_another_suits_queen():
    req = aces_deal()
    req["held"]["Ana"] += ["QH", "JH", "QS"]
    assert items(ask("cowboy-deal", req), "Ana") == {
        "tens_laid": (1, 10),
        "family": (1, 120),
        "harlot": (1, -25),
        "illegal_marriage": (1, -50),
    }


def test_harem_and_family_share_a_queen_c_d4():
    req = aces_deal()
    req["held"]["Ana"] += ["QS", "QH", "QD", "QC", "JH"]
    assert items(ask("cowboy-deal", req), "Ana") == {
        "tens_laid": (1, 10),
        "harem": (1, 100),
        "family": (1, 120),
        "illegal_marriage": (1, -50),  # KS+QS: a Harem does not exempt a marriage (C-D5)
    }


def test_posse_replaces_gang_c_d4():
    req = aces_deal(
        held={"Ana": ["KS", "AS", "KH", "AH", "KD", "AD", "KC", "AC"], "Ceca": ["9D"]},
        end={"by": "Ana", "reason": "aces"},
    )
    got = ask("cowboy-deal", req)
    assert items(got, "Ana") == {"ended": (1, 30), "tens_laid": (1, 10), "posse": (1, 200)}


def test_gang_with_some_aces_is_still_gang():
    req = aces_deal(held={"Ana": ["KS", "AS", "KH", "AH", "KD", "AD", "KC"], "Bojan": ["9C"]})
    # only three aces held: that deal could not have ended on aces
    assert refused("cowboy-deal", req).path == "end.reason"
    req = tens_deal(held={"Ana": ["KS", "AS", "KH", "AH", "KD", "AD", "KC"]})
    assert items(ask("cowboy-deal", req), "Ana")["gang"] == (1, 150)


def test_illegal_marriage_counts_even_when_that_suit_was_shown_c_d7():
    req = with_held(
        tens_deal(shown_marriages=[{"player": "Ceca", "suit": "D"}]), "Ceca", "KD", "QD"
    )
    assert items(ask("cowboy-deal", req), "Ceca") == {
        "marriage_shown": (1, 25),
        "tens_laid": (1, 10),
        "harlot": (1, -25),
        "illegal_marriage": (1, -50),
    }


def test_house_rule_marriage_and_harlot_off_c_d7():
    req = with_held(tens_deal(house_rules={"marriage_and_harlot": False}), "Ceca", "KD", "QD", "QS")
    # the married queen is no harlot; the single one still is
    assert items(ask("cowboy-deal", req), "Ceca") == {
        "tens_laid": (1, 10),
        "harlot": (1, -25),
        "illegal_marriage": (1, -50),
    }


@pytest.mark.parametrize(
    ("sixes", "expected"),
    [
        (["6S", "6H", "6D"], {"six": (3, -60), "curse": (1, -100)}),  # −160
        (["6S", "6H", "6D", "6C"], {"six": (4, -80), "curse": (1, -100)}),  # −180
        (["6S", "6H"], {"six": (2, -40)}),
    ],
)
def test_house_rule_curse_replaces_sixes_off_c_d8(sixes, expected):
    req = tens_deal(house_rules={"curse_replaces_sixes": False}, held={"Ana": sixes})
    assert items(ask("cowboy-deal", req), "Ana") == {"tens_laid": (3, 30), **expected}


def test_house_rules_on_explicitly_is_the_default():
    req = with_held(tens_deal(), "Ceca", "KD", "QD", "6S", "6H", "6D")
    on = tens_deal(house_rules={"marriage_and_harlot": True, "curse_replaces_sixes": True})
    on["held"] = req["held"]
    assert ask("cowboy-deal", req) == ask("cowboy-deal", on)
    assert ask("cowboy-deal", req)["players"]["Ceca"]["total"] == 10 - 75 - 100


# C-D6: a 22 held in hand costs −30 only when all four 10s are out and the deal ended on aces


def four_tens_aces_deal(**changes) -> dict:
    return aces_deal(tens={"Ana": ["10S", "10H"], "Ceca": ["10D", "10C"]}, **changes)


def test_stalling_22_in_hand_after_an_aces_end_with_four_tens_out_c_d6():
    req = with_held(four_tens_aces_deal(), "Ceca", "2S", "2D")
    assert items(ask("cowboy-deal", req), "Ceca") == {
        "ended": (1, 30),
        "tens_laid": (2, 20),
        "stalling_22": (1, -30),
    }


@pytest.mark.parametrize(
    ("twos", "count"), [(["2S"], 0), (["2S", "2H", "2D"], 1), (["2S", "2H", "2D", "2C"], 2)]
)
def test_stalling_22_counts_pairs_of_2s_c_d6(twos, count):
    got = items(ask("cowboy-deal", with_held(four_tens_aces_deal(), "Ceca", *twos)), "Ceca")
    assert got.get("stalling_22", (0, 0)) == (count, -30 * count)


def test_no_stalling_22_with_a_ten_still_out_c_d6():
    req = with_held(aces_deal(), "Ceca", "2S", "2D")
    assert "stalling_22" not in items(ask("cowboy-deal", req), "Ceca")


def test_no_stalling_22_after_a_tens_end_c_d6():
    req = with_held(tens_deal(), "Ceca", "2D", "2C")
    assert "stalling_22" not in items(ask("cowboy-deal", req), "Ceca")


def test_drawn_22_with_a_ten_out_costs_nothing_c_d6():
    req = aces_deal(guns={"Ceca": [["2S", "2D"]]})
    assert "stalling_22" not in items(ask("cowboy-deal", req), "Ceca")


def test_drawn_22_with_four_tens_out_means_the_deal_ended_on_tens():
    req = four_tens_aces_deal(guns={"Ceca": [["2S", "2D"]]})
    err = refused("cowboy-deal", req)
    assert err.path == "end.reason" and "ended on tens" in err.message


def test_drawn_guns_are_held_cards_but_score_nothing():
    req = tens_deal(guns={"Bojan": [["2S", "2H"], ["3D", "5D", "7D"], ["4H", "5H"], ["3H", "8S"]]})
    assert items(ask("cowboy-deal", req), "Bojan") == {"ended": (1, 30)}


def test_items_come_in_contract_order_and_add_up():
    req = tens_deal(
        end={"by": "Ceca", "reason": "tens"},
        held={"Ceca": "JS JH JD JC QS QH QD QC KS KH KD KC 6S 6H 6D 6C".split(), "Ana": ["9S"]},
        shown_marriages=[{"player": "Ceca", "suit": "S"}],
    )
    req["tens"] = {"Ceca": ["10S"], "Ana": ["10C", "10H", "10D"]}
    req["guns"] = {"Ana": [["2S", "2H"]]}
    got = ask("cowboy-deal", req)["players"]["Ceca"]
    codes = [i["code"] for i in got["items"]]
    assert (
        codes
        == "marriage_shown ended tens_laid orphanage harem gang six illegal_marriage curse".split()
    )
    assert codes == [c for c in cowboy.ITEM_CODES if c in codes]
    assert got["total"] == sum(i["points"] for i in got["items"])
    assert got["total"] == 25 + 30 + 10 + 80 + 100 + 150 - 20 - 200 - 100


def test_cards_in_any_spelling():
    req = tens_deal(held={"Ana": ["q♠", "9h"]}, tens={"Ana": ["TS", "10c", "10♦", "t♥"]})
    assert items(ask("cowboy-deal", req), "Ana") == {"tens_laid": (4, 40), "harlot": (1, -25)}


# refusals (RULES §1 "An entry is refused")


def test_refused_card_twice_within_a_hand():
    assert refused("cowboy-deal", with_held(tens_deal(), "Ana", "9s")).path == "held.Ana[2]"


def test_refused_card_twice_across_players():
    err = refused("cowboy-deal", with_held(tens_deal(), "Ceca", "8H"))
    assert err.path == "held.Ceca[1]" and "8H" in err.message


def test_refused_card_both_held_and_in_a_gun():
    err = refused("cowboy-deal", with_held(tens_deal(), "Ana", "2S"))
    assert err.path == "guns.Bojan[0][0]"


def test_refused_ten_both_held_and_laid():
    err = refused("cowboy-deal", with_held(tens_deal(), "Ceca", "10S"))
    assert err.path == "tens.Ana[0]"


def test_refused_more_than_four_tens_laid():
    err = refused(
        "cowboy-deal", tens_deal(tens={"Ana": ["10S", "10C", "10H"], "Ceca": ["10D", "10S"]})
    )
    assert err.path == "tens" and "four" in err.message


def test_refused_a_laid_ten_that_is_not_a_ten():
    err = refused("cowboy-deal", tens_deal(tens={"Ana": ["10S", "10C", "10H"], "Ceca": ["JD"]}))
    assert err.path == "tens.Ceca[0]"


def test_refused_ace_without_its_king():
    req = aces_deal()
    req["held"]["Ana"] = ["KS", "AS", "AH"]
    req["held"]["Ceca"] = ["9D", "KH"]
    err = refused("cowboy-deal", req)
    assert err.path == "held.Ana[2]" and "KH" in err.message


def test_refused_a_laid_gun_that_is_no_gun():
    err = refused("cowboy-deal", tens_deal(guns={"Bojan": [["2S", "2H"], ["4C", "5D"]]}))
    assert err.path == "guns.Bojan[1]" and "one suit" in err.message


def test_refused_a_marriage_suit_shown_twice_c_d1():
    shown = [{"player": "Ana", "suit": "H"}, {"player": "Ceca", "suit": "h"}]
    err = refused("cowboy-deal", tens_deal(shown_marriages=shown))
    assert err.path == "shown_marriages[1].suit" and "C-D1" in err.message


def test_refused_an_ender_who_is_not_a_player():
    assert refused("cowboy-deal", tens_deal(end={"by": "Zoe", "reason": "tens"})).path == "end.by"


def test_refused_tens_end_with_fewer_than_four_tens():
    err = refused("cowboy-deal", tens_deal(tens={"Ana": ["10S", "10C", "10H"]}))
    assert err.path == "end.reason" and "3 are" in err.message


def test_refused_tens_end_without_a_22_drawn():
    err = refused("cowboy-deal", tens_deal(guns={"Bojan": [["3S", "8C"]]}))
    assert err.path == "end.reason" and "22" in err.message


def test_refused_tens_end_with_all_four_aces_held():
    req = tens_deal(held={"Ana": ["KS", "AS", "KH", "AH"], "Ceca": ["KD", "AD", "KC", "AC"]})
    err = refused("cowboy-deal", req)
    assert err.path == "end.reason" and "ended on aces" in err.message


def test_refused_aces_end_with_fewer_than_four_aces_held():
    req = aces_deal()
    req["held"]["Bojan"] = ["KD", "AD", "KC"]
    err = refused("cowboy-deal", req)
    assert err.path == "end.reason" and "3 are held" in err.message


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"players": ["Ana", "Bojan"]}, "players"),
        ({"players": ["Ana", "Bojan", "Ceca", "Dara", "Ema"]}, "players"),
        ({"end": {"by": "Bojan", "reason": "sixes"}}, "end.reason"),
        ({"end": {"by": "Bojan"}}, "end.reason"),
        ({"end": "Bojan"}, "end"),
        ({"held": {"Ana": ["9S"], "Zoe": ["8H"]}}, "held.Zoe"),
        ({"held": {"Ana": ["9S", "RJ"]}}, "held.Ana[1]"),
        ({"held": {"Ana": "9S"}}, "held.Ana"),
        ({"guns": {"Bojan": [["2S", "2H"]], "Ana": ["3S", "8S"]}}, "guns.Ana[0]"),
        ({"guns": {"Bojan": ["2S", "2H"]}}, "guns.Bojan[0]"),
        ({"tens": ["10S"]}, "tens"),
        (
            {"shown_marriages": [{"player": "Ana", "suit": "H", "when": 3}]},
            "shown_marriages[0].when",
        ),
        ({"shown_marriages": {"Ana": "H"}}, "shown_marriages"),
        ({"house_rules": {"curse_replaces_sixes": "yes"}}, "house_rules.curse_replaces_sixes"),
        ({"house_rules": {"harlots": False}}, "house_rules.harlots"),
        ({"bonus": 5}, "bonus"),
    ],
)
def test_deal_refusals_of_shape(change, path):
    assert refused("cowboy-deal", tens_deal(**change)).path == path


def test_a_player_left_out_of_held_holds_nothing():
    req = tens_deal(held={"Ana": ["9S"]})
    assert ask("cowboy-deal", req)["players"]["Bojan"]["items"] == [
        {"code": "ended", "count": 1, "points": 30}
    ]


# ── cowboy-shot: the referee ────────────────────────────────────────────────────


def shoot(gun, held, turned=None, aces=None, drawn=True) -> dict:
    req = {"gun": gun, "victim": {"held": held, "has_gun_drawn": drawn}}
    if turned is not None:
        req["turned"] = turned
    if aces is not None:
        req["aces_on_table"] = aces
    return req


def test_not_allowed_when_the_victim_has_no_gun_drawn():
    got = ask("cowboy-shot", shoot(["3S", "8S"], ["KH"], drawn=False))
    assert got == {"gun": "38", "outcome": "not_allowed", "reason": got["reason"]}
    assert "no gun drawn" in got["reason"] or "has none" in got["reason"]


def test_not_allowed_when_the_cards_are_no_gun():
    got = ask("cowboy-shot", shoot(["3S", "9S"], ["KH"]))
    assert (got["gun"], got["outcome"]) == (None, "not_allowed")


def test_backfire_22_against_a_six():
    got = ask("cowboy-shot", shoot(["2S", "2H"], ["6C", "KH"], turned="7S"))
    assert (got["gun"], got["outcome"]) == ("22", "backfire")


def test_a_six_does_not_backfire_other_guns():
    got = ask("cowboy-shot", shoot(["3S", "8H"], ["6C", "KH"], turned="7S"))
    assert got["outcome"] == "hit"


def test_quick_draw_beats_any_gun():
    got = ask("cowboy-shot", shoot(["4S", "5S"], ["3D", "5D", "7D", "KH"]))
    assert got["outcome"] == "quick_draw"


def test_quick_draw_needs_one_suit():
    got = ask("cowboy-shot", shoot(["4S", "5S"], ["3D", "5D", "7H"]))
    assert got["outcome"] == "miss"


def test_quick_draw_comes_before_a_miss():
    got = ask("cowboy-shot", shoot(["3S", "8S"], ["3D", "5D", "7D"]))
    assert got["outcome"] == "quick_draw"


def test_backfire_or_quick_draw_the_victim_chooses_c_d2():
    got = ask("cowboy-shot", shoot(["2S", "2H"], ["6C", "3D", "5D", "7D", "KH"], turned="JS"))
    assert got["outcome"] == "choice"
    assert got["options"] == ["backfire", "quick_draw"]
    assert "C-D2" in got["reason"]


def test_miss_without_cowboys():
    got = ask("cowboy-shot", shoot(["3S", "8S"], ["9H", "QH"], turned="7S"))
    assert got["outcome"] == "miss"


def test_miss_when_only_protected_cowboys_and_not_a_45():
    got = ask("cowboy-shot", shoot(["3S", "5D", "7H"], ["KH", "AH", "KC", "AC"]))
    assert got["outcome"] == "miss"


def test_turn_card_when_the_outcome_depends_on_it():
    got = ask("cowboy-shot", shoot(["3S", "8D"], ["KH", "KS"]))
    assert got["outcome"] == "turn_card"
    got = ask("cowboy-shot", shoot(["4D", "5D"], ["KH", "AH"]))
    assert got["outcome"] == "turn_card"


def test_hit_an_unprotected_cowboy_of_another_suit():
    got = ask("cowboy-shot", shoot(["3S", "8D"], ["KH", "KC", "AC"], turned="9S"))
    assert got["outcome"] == "hit"
    assert got["candidates"] == [["KH"]]
    assert got["victim_draws"] == 1


def test_several_kings_qualify_the_victim_picks_c_d3():
    got = ask("cowboy-shot", shoot(["2S", "2H"], ["KC", "KD", "KH", "9S"], turned="3H"))
    assert got["outcome"] == "hit"
    assert got["candidates"] == [["KD"], ["KC"]]
    assert "C-D3" in got["reason"]


def test_dodge_when_the_only_unprotected_king_has_the_turned_suit():
    got = ask("cowboy-shot", shoot(["3S", "8D"], ["KH", "KC", "AC"], turned="9H"))
    assert got["outcome"] == "dodge"
    assert (got["king"], got["ace"], got["ends_deal"]) == ("KH", "AH", False)


def test_dodge_taking_the_last_ace_ends_the_deal():
    got = ask("cowboy-shot", shoot(["3S", "8D"], ["KH"], turned="9H", aces=["AH"]))
    assert got["ends_deal"] is True
    assert "ends" in got["reason"]


def test_dodge_with_other_aces_left_does_not_end_the_deal():
    got = ask("cowboy-shot", shoot(["3S", "8D"], ["KH"], turned="9H", aces=["AH", "AS"]))
    assert got["ends_deal"] is False


def test_dodge_whose_ace_is_not_on_the_table_is_refused():
    err = refused("cowboy-shot", shoot(["3S", "8D"], ["KH"], turned="9H", aces=["AS", "AD"]))
    assert err.path == "aces_on_table" and "AH" in err.message


def test_45_hits_the_protected_cowboy_of_the_turned_suit():
    got = ask("cowboy-shot", shoot(["4D", "5D"], ["KH", "AH", "KC", "AC", "KS"], turned="7C"))
    assert got["outcome"] == "hit"
    assert got["candidates"] == [["KC", "AC"]]
    assert got["victim_draws"] == 2


def test_45_ricochet_to_an_unprotected_king():
    got = ask("cowboy-shot", shoot(["4D", "5D"], ["KH", "AH", "KS"], turned="7C"))
    assert got["outcome"] == "hit"
    assert got["candidates"] == [["KS"]]
    assert got["victim_draws"] == 1
    assert "ricochet" in got["reason"]


def test_45_ricochet_can_end_in_a_dodge():
    got = ask(
        "cowboy-shot", shoot(["4D", "5D"], ["KH", "AH", "KS"], turned="7S", aces=["AS", "AC"])
    )
    assert (got["outcome"], got["king"], got["ace"], got["ends_deal"]) == (
        "dodge",
        "KS",
        "AS",
        False,
    )


def test_45_only_protected_none_matching_is_a_miss():
    got = ask("cowboy-shot", shoot(["4D", "5D"], ["KH", "AH", "KC", "AC"], turned="7S"))
    assert got["outcome"] == "miss"


def test_turned_card_is_not_needed_for_a_miss():
    got = ask("cowboy-shot", shoot(["2D", "2S"], ["9C"], turned="8H"))
    assert got["outcome"] == "miss"


@pytest.mark.parametrize(
    ("request_", "path"),
    [
        (shoot(["3S", "8D"], ["KH", "3S"]), "victim.held[1]"),
        (shoot(["3S", "8D"], ["KH"], turned="KH"), "turned"),
        (shoot(["3S", "8D"], ["KH", "AH"], aces=["AH"]), "aces_on_table[0]"),
        (shoot(["3S", "8D"], ["KH"], aces=["AS", "AS"]), "aces_on_table[1]"),
        (shoot(["3S", "8D"], ["KH"], aces=["KS"]), "aces_on_table[0]"),
        (shoot(["3S", "8D"], ["AH"]), "victim.held[0]"),
        (shoot(["3S", "8D"], ["KH", "BJ"]), "victim.held[1]"),
        (shoot(["3S", "8D"], ["KH"], turned=7), "turned"),
        (shoot(["3S", "8D"], ["KH"], drawn="yes"), "victim.has_gun_drawn"),
        ({"gun": ["3S", "8D"], "victim": {"held": ["KH"]}}, "victim.has_gun_drawn"),
        ({"gun": ["3S", "8D"], "victim": {"held": [], "has_gun_drawn": True, "x": 1}}, "victim.x"),
        ({"gun": ["3S", "8D"]}, "victim"),
    ],
)
def test_shot_refusals(request_, path):
    assert refused("cowboy-shot", request_).path == path


def test_referee_as_a_pure_function():
    from scorekeeper.cards import parse_card as c

    got = cowboy.referee([c("4H"), c("5H")], [c("KS")], True, c("2D"))
    assert got["outcome"] == "hit" and got["candidates"] == [["KS"]]


# ── helpers for the screens ─────────────────────────────────────────────────────


def test_item_labels():
    assert cowboy.item_label("family") == "Family (A K Q J of one suit)"
    assert all(cowboy.item_label(code) for code in cowboy.ITEM_CODES)
    with pytest.raises(ValueError):
        cowboy.item_label("bonus")


def test_item_codes_match_the_contract():
    assert cowboy.ITEM_CODES == (
        "marriage_shown", "ended", "tens_laid", "orphanage", "harem", "family", "gang", "posse",
        "stalling_ten", "stalling_22", "six", "harlot", "illegal_marriage", "curse",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("totals", "winner"),
    [
        ({}, None),
        ({"Ana": 499, "Bojan": 320, "Ceca": -40}, None),
        ({"Ana": 500, "Bojan": 320, "Ceca": -40}, "Ana"),
        ({"Ana": 510, "Bojan": 620, "Ceca": 40}, "Bojan"),  # the highest total wins, C-D9
        ({"Ana": 480, "Bojan": 505}, "Bojan"),
        ({"Ana": 540, "Bojan": 540, "Ceca": 510}, None),  # tie for highest: another deal, C-D9
        ({"Ana": 540, "Bojan": 530, "Ceca": 530}, "Ana"),  # a tie below the top does not matter
    ],
)
def test_game_winner_c_d9(totals, winner):
    assert cowboy.game_winner(totals) == winner


def test_game_winner_other_target():
    assert cowboy.game_winner({"Ana": 120, "Bojan": 90}, target=100) == "Ana"
    assert cowboy.game_winner({"Ana": 120, "Bojan": 90}) is None


# ── C-D10, C-D11, C-D12 (Rules 1.1) ─────────────────────────────────────────────


@pytest.mark.parametrize("ace", ["AH", "AS", "A♦", "ac"])
def test_c_d10_a_turned_ace_is_refused(ace):
    """C-D10: the aces lie on the table, so a shot never turns one."""
    err = refused("cowboy-shot", shoot(["3S", "8D"], ["KH"], turned=ace))
    assert err.path == "turned" and "C-D10" in err.message


def test_c_d11_a_dodging_victim_may_leave_the_last_ace_on_the_table():
    """C-D11: declining the last ace keeps the deal going and the king unprotected."""
    req = shoot(["3S", "8D"], ["KH"], turned="9H", aces=["AH"])
    assert ask("cowboy-shot", req)["ends_deal"] is True
    got = ask("cowboy-shot", {**req, "declines_ace": True})
    assert (got["outcome"], got["king"], got["ace"], got["ends_deal"]) == (
        "dodge",
        "KH",
        None,
        False,
    )
    assert "leaves AH on the table" in got["reason"]


def test_c_d11_declining_is_optional_and_false_by_default():
    req = shoot(["3S", "8D"], ["KH"], turned="9H", aces=["AH", "AS"])
    assert ask("cowboy-shot", {**req, "declines_ace": False}) == ask("cowboy-shot", req)
    assert ask("cowboy-shot", req)["ace"] == "AH"


def test_c_d11_declines_ace_must_be_true_or_false():
    req = shoot(["3S", "8D"], ["KH"], turned="9H", aces=["AH"])
    err = refused("cowboy-shot", {**req, "declines_ace": "yes"})
    assert err.path == "declines_ace"


def test_c_d11_declining_an_ace_that_is_not_on_the_table_is_refused():
    req = shoot(["3S", "8D"], ["KH"], turned="9H", aces=["AS"])
    err = refused("cowboy-shot", {**req, "declines_ace": True})
    assert err.path == "aces_on_table"


def test_c_d11_declines_ace_changes_nothing_but_a_dodge():
    req = shoot(["3S", "8D"], ["KH", "KC"], turned="9H", aces=["AH"])
    assert ask("cowboy-shot", {**req, "declines_ace": True}) == ask("cowboy-shot", req)


def test_c_d12_a_45_ricochet_hits_a_king_of_another_suit_like_an_unprotected_shot():
    """C-D12: after the 45 misses the protected kings, the unprotected ones are judged
    exactly as any gun judges them: KS dodges a turned spade, KC is hit."""
    got = ask("cowboy-shot", shoot(["4D", "5D"], ["KH", "AH", "KS", "KC"], turned="7S"))
    assert got["outcome"] == "hit" and got["candidates"] == [["KC"]]
    plain = ask("cowboy-shot", shoot(["2D", "2H"], ["KS", "KC"], turned="7S"))
    assert plain["candidates"] == got["candidates"]


def test_c_d12_a_45_ricochet_onto_a_lone_king_of_the_turned_suit_may_be_declined():
    req = shoot(["4D", "5D"], ["KH", "AH", "KS"], turned="7S", aces=["AS"])
    got = ask("cowboy-shot", {**req, "declines_ace": True})
    assert (got["outcome"], got["ace"], got["ends_deal"]) == ("dodge", None, False)
    assert "ricochet" in got["reason"]


def test_a_tie_for_the_lead_at_exactly_500_is_said_truly():
    """C-D9: a tie for the highest total once 500 is reached plays another deal. At
    500 each the totals are not "past" 500: the message says "at 500 or more"."""
    from scorekeeper.games import standings
    from scorekeeper.games.standings import Progress

    table = standings.standings(
        "cowboy", ["Ana", "Bojan", "Ceca"], {"Ana": 500, "Bojan": 500, "Ceca": 100}, {},
        Progress(deals_played=9),
    )  # fmt: skip
    assert not table.finished
    assert table.message == "Tied for the lead at 500 or more: play another deal (C-D9)."
