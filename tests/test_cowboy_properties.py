"""Property tests for the Wyoming Cowboy engine (RULES.md §1).

- a result does not depend on the order of the players or of the cards in any list;
- a request that repeats a card is refused;
- no request of any shape makes an engine raise anything but RuleError.
"""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekeeper import api
from scorekeeper.cards import SUITS, parse_card
from scorekeeper.errors import RuleError
from scorekeeper.games import cowboy

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

NAMES = ["Ana", "Bojan", "Ceca", "Dara", "Rūta", "Đorđe"]
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
DECK = [rank + suit for suit in SUITS for rank in RANKS]


def outcome(kind: str, request: dict):
    """The answer, or the refusal's message and path."""
    try:
        return api.evaluate(kind, request)
    except RuleError as err:
        return ("refused", err.message, err.path)


# ── valid requests ──────────────────────────────────────────────────────────────


@st.composite
def deal_requests(draw) -> dict:
    """A deal that RULES §1 allows: every card once, aces with their kings, the end
    reason consistent with the tens, the drawn 22s and the aces held."""
    players = draw(st.lists(st.sampled_from(NAMES), min_size=3, max_size=4, unique=True))
    reason = draw(st.sampled_from(["tens", "aces"]))
    held = {p: [] for p in players}
    guns = {p: [] for p in players}
    tens = {p: [] for p in players}
    used: set[str] = set()
    owner_or_none = st.sampled_from([*players, None])

    # kings and aces: an ace is always held with its king; an aces end has all four held
    protected_budget = 4 if reason == "aces" else draw(st.integers(0, 3))
    gang_owner = draw(st.sampled_from([None, *players]))  # now and then one player has all kings
    for suit in SUITS:
        if gang_owner is not None:
            owner = gang_owner
        elif reason == "aces":
            owner = draw(st.sampled_from(players))
        else:
            owner = draw(owner_or_none)
        if owner is None:
            continue
        held[owner].append("K" + suit)
        used.add("K" + suit)
        if protected_budget and (reason == "aces" or draw(st.booleans())):
            protected_budget -= 1
            held[owner].append("A" + suit)
            used.add("A" + suit)

    # tens: a tens end has all four laid out
    for suit in SUITS:
        ten = "10" + suit
        if reason == "tens":
            tens[draw(st.sampled_from(players))].append(ten)
        else:
            where = draw(st.sampled_from(["laid", "held", "elsewhere"]))
            who = draw(st.sampled_from(players))
            if where == "laid":
                tens[who].append(ten)
            elif where == "held":
                held[who].append(ten)
        used.add(ten)
    tens_out = sum(map(len, tens.values())) == 4

    def take(cards: list[str]) -> bool:
        if any(c in used for c in cards):
            return False
        used.update(cards)
        return True

    # a drawn 22: needed for a tens end, impossible for an aces end with the tens out
    want_22 = reason == "tens" or (not tens_out and draw(st.booleans()))
    if want_22:
        twos = draw(st.lists(st.sampled_from(SUITS), min_size=2, max_size=2, unique=True))
        gun = ["2" + s for s in twos]
        take(gun)
        guns[draw(st.sampled_from(players))].append(gun)

    # a few more guns, when their cards are still free
    patterns = [
        lambda s, t, u: ["3" + s, "8" + t],
        lambda s, t, u: ["3" + s, "5" + t, "7" + u],
        lambda s, t, u: ["3" + s, "5" + s, "7" + s],
        lambda s, t, u: ["4" + s, "5" + s],
    ]
    for _ in range(draw(st.integers(0, 3))):
        pattern = draw(st.sampled_from(patterns))
        s, t, u = (draw(st.sampled_from(SUITS)) for _ in range(3))
        gun = pattern(s, t, u)
        if take(gun):
            guns[draw(st.sampled_from(players))].append(gun)

    # the other cards (and 2s, unless drawn in a 22) go to hands, or stay out
    # (aces stay on the table, so none are left to hand out)
    rest = [c for c in DECK if c not in used and not c.startswith(("A", "K", "10"))]
    owners = draw(st.lists(owner_or_none, min_size=len(rest), max_size=len(rest)))
    for card, owner in zip(rest, owners, strict=True):
        if owner is not None:
            held[owner].append(card)

    request = {
        "players": players,
        "end": {"by": draw(st.sampled_from(players)), "reason": reason},
        "held": {p: cards for p, cards in held.items() if cards or draw(st.booleans())},
    }
    if any(guns.values()) or draw(st.booleans()):
        request["guns"] = {p: g for p, g in guns.items() if g}
    if any(tens.values()) or draw(st.booleans()):
        request["tens"] = {p: t for p, t in tens.items() if t}
    shown = []
    for suit in SUITS:
        who = draw(owner_or_none)
        if who is not None:
            shown.append({"player": who, "suit": suit})
    if shown or draw(st.booleans()):
        request["shown_marriages"] = shown
    if draw(st.booleans()):
        request["house_rules"] = draw(
            st.fixed_dictionaries(
                {},
                optional={
                    "marriage_and_harlot": st.booleans(),
                    "curse_replaces_sixes": st.booleans(),
                },
            )
        )
    return request


REAL_GUNS = [["2S", "2H"], ["3C", "8D"], ["3S", "5H", "7D"], ["3H", "5H", "7H"], ["4D", "5D"]]
GUN_CARDS = st.one_of(
    st.sampled_from(REAL_GUNS),
    st.sampled_from(REAL_GUNS),
    st.sampled_from(REAL_GUNS),
    st.lists(st.sampled_from(DECK), min_size=0, max_size=4, unique=True),
)


@st.composite
def shot_requests(draw) -> dict:
    gun = draw(GUN_CARDS)
    free = [c for c in DECK if c not in gun and not c.startswith(("A", "K"))]
    kings = [k for k in ("K" + s for s in SUITS) if k not in gun]
    kings = draw(st.lists(st.sampled_from(kings), max_size=4, unique=True))
    held = kings + draw(st.lists(st.sampled_from(free), max_size=8, unique=True))
    # some of the victim's kings are protected: each such king holds its ace
    for king in [c for c in held if c.startswith("K")]:
        ace = "A" + king[1]
        if ace not in gun and draw(st.booleans()):
            held.append(ace)
    request = {
        "gun": gun,
        "victim": {"held": held, "has_gun_drawn": draw(st.sampled_from([True, True, True, False]))},
    }
    left = [c for c in DECK if c not in gun and c not in held]
    if draw(st.sampled_from([True, True, False])):
        # C-D10: the aces lie on the table, so the turned card is never one
        request["turned"] = draw(st.sampled_from([c for c in left if not c.startswith("A")]))
    if draw(st.booleans()):
        aces = [c for c in left if c.startswith("A") and c != request.get("turned")]
        request["aces_on_table"] = (
            draw(st.lists(st.sampled_from(aces), unique=True)) if aces else []
        )
    if draw(st.sampled_from([False, False, True])):
        request["declines_ace"] = True  # C-D11
    return request


@st.composite
def gun_requests(draw) -> dict:
    return {"cards": draw(GUN_CARDS)}


@st.composite
def marriage_requests(draw) -> dict:
    players = draw(st.lists(st.sampled_from(NAMES), min_size=3, max_size=4, unique=True))
    suits = draw(st.lists(st.sampled_from(SUITS), max_size=4, unique=True))
    shown = [{"player": draw(st.sampled_from(players)), "suit": s} for s in suits[1:]]
    request = {
        "players": players,
        "player": draw(st.sampled_from(players)),
        "suit": suits[0] if suits else "H",
    }
    if shown or draw(st.booleans()):
        request["shown"] = shown
    return request


VALID = {
    "cowboy-deal": deal_requests(),
    "cowboy-shot": shot_requests(),
    "cowboy-gun": gun_requests(),
    "cowboy-marriage": marriage_requests(),
}


# ── reordering ──────────────────────────────────────────────────────────────────


def reordered(value, rng: random.Random):
    """The same request with every list shuffled and every object's keys reordered.
    Lists of players, cards, guns and marriages are all sets to the rules."""
    if isinstance(value, list):
        items = [reordered(item, rng) for item in value]
        rng.shuffle(items)
        return items
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {key: reordered(value[key], rng) for key in keys}
    return value


@SETTINGS
@given(data=st.data(), kind=st.sampled_from(sorted(VALID)), seed=st.integers(0, 2**32))
def test_results_do_not_depend_on_order(data, kind, seed):
    request = data.draw(VALID[kind])
    shuffled = reordered(request, random.Random(seed))
    first, second = outcome(kind, request), outcome(kind, shuffled)
    if isinstance(first, tuple):
        assert isinstance(second, tuple) and second[1] == first[1]
    else:
        assert second == first


# ── valid deals are scored, and the items add up ───────────────────────────────


@SETTINGS
@given(request=deal_requests())
def test_valid_deals_are_scored(request):
    result = api.evaluate("cowboy-deal", request)
    assert set(result["players"]) == set(request["players"])
    for scored in result["players"].values():
        codes = [item["code"] for item in scored["items"]]
        assert codes == [code for code in cowboy.ITEM_CODES if code in codes]  # contract order
        for item in scored["items"]:
            assert item["count"] > 0
            assert item["points"] == item["count"] * cowboy.ITEM_POINTS[item["code"]]
        assert scored["total"] == sum(item["points"] for item in scored["items"])
        assert not {"gang", "posse"} <= set(codes)  # C-D4
    json.dumps(result)


# ── a repeated card is refused ──────────────────────────────────────────────────


def card_lists(value, path=()):
    """Paths of every list of cards in a Cowboy request."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in ("players", "shown", "shown_marriages", "end", "house_rules"):
                yield from card_lists(item, (*path, key))
    elif isinstance(value, list):
        if all(isinstance(item, str) for item in value):
            yield path
        else:
            for i, item in enumerate(value):
                yield from card_lists(item, (*path, i))


def at(value, path):
    for key in path:
        value = value[key]
    return value


CARD_KINDS = ("cowboy-deal", "cowboy-shot", "cowboy-gun")


@SETTINGS
@given(data=st.data(), kind=st.sampled_from(CARD_KINDS))
def test_any_repeated_card_is_refused(data, kind):
    request = data.draw(VALID[kind])
    lists = list(card_lists(request))
    cards = [card for path in lists for card in at(request, path)]
    if "turned" in request:
        cards.append(request["turned"])
    if not cards:
        return
    card = data.draw(st.sampled_from(cards))
    spelling = data.draw(st.sampled_from([card, card.lower(), card.replace("10", "T")]))
    bad = copy.deepcopy(request)
    target = data.draw(st.sampled_from([*lists, "turned"] if kind == "cowboy-shot" else lists))
    if target == "turned":
        if bad.get("turned") == card:
            return  # replacing turned by itself repeats nothing
        bad["turned"] = spelling
    else:
        into = at(bad, target)
        into.insert(data.draw(st.integers(0, len(into))), spelling)
    result = outcome(kind, bad)
    assert isinstance(result, tuple), f"{card} twice was accepted"
    if target != "turned" and target[0] in ("held", "gun", "cards", "victim"):
        assert "more than once" in result[1]


# ── nothing but RuleError, whatever the shape ─────────────────────────────────────

FIELDS = [
    "players", "player", "suit", "shown", "shown_marriages", "end", "by", "reason", "held",
    "guns", "tens", "house_rules", "marriage_and_harlot", "curse_replaces_sixes", "cards", "gun",
    "victim", "has_gun_drawn", "turned", "aces_on_table", *NAMES,
]  # fmt: skip
LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.sampled_from([*DECK, *NAMES, "RJ", "BJ", "JK", "tens", "aces", "♥", "s", "T", "", " "]),
)
JSON = st.recursive(
    LEAVES,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(
            st.one_of(st.sampled_from(FIELDS), st.text(max_size=5)), children, max_size=5
        ),
    ),
    max_leaves=25,
)


def answers_or_refuses(kind: str, request) -> None:
    try:
        result = api.evaluate(kind, request)
    except RuleError as err:
        assert isinstance(err.message, str) and err.message
        assert isinstance(err.path, str)
        return
    assert isinstance(result, dict)
    json.dumps(result)


@SETTINGS
@given(kind=st.sampled_from(sorted(VALID)), request=JSON)
def test_arbitrary_json_only_raises_rule_error(kind, request):
    answers_or_refuses(kind, request)


@SETTINGS
@given(
    kind=st.sampled_from(sorted(VALID)),
    request=st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=6),
)
def test_arbitrary_objects_with_known_fields_only_raise_rule_error(kind, request):
    answers_or_refuses(kind, request)


def node_paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from node_paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from node_paths(item, (*path, i))


@SETTINGS
@given(data=st.data(), kind=st.sampled_from(sorted(VALID)))
def test_mutated_valid_requests_only_raise_rule_error(data, kind):
    request = copy.deepcopy(data.draw(VALID[kind]))
    for _ in range(data.draw(st.integers(1, 3))):
        paths = list(node_paths(request))
        path = data.draw(st.sampled_from(paths))
        how = data.draw(st.sampled_from(["replace", "delete", "add"]))
        if not path:
            if how == "replace":
                request = data.draw(JSON)
            continue
        parent = at(request, path[:-1])
        key = path[-1]
        if how == "replace":
            parent[key] = data.draw(JSON)
        elif how == "delete":
            del parent[key]
        elif isinstance(parent, dict):
            parent[data.draw(st.sampled_from(FIELDS))] = data.draw(JSON)
        else:
            parent.insert(key, data.draw(JSON))
        if not isinstance(request, (dict, list)):
            break
    answers_or_refuses(kind, request)


ODD_VALUES = [None, True, 0, -1, 2.5, float("nan"), "", "X", "10H", [], [[]], {}, {"a": 1}, ["2S"]]


@settings(max_examples=25, deadline=None)
@given(data=st.data(), kind=st.sampled_from(sorted(VALID)))
def test_every_node_replaced_or_removed_only_raises_rule_error(data, kind):
    """Each node of a valid request in turn is replaced by each odd value, or removed."""
    request = data.draw(VALID[kind])
    for path in list(node_paths(request))[1:]:
        for odd in [*ODD_VALUES, "remove"]:
            bad = copy.deepcopy(request)
            parent = at(bad, path[:-1])
            if odd == "remove":
                del parent[path[-1]]
            else:
                parent[path[-1]] = copy.deepcopy(odd)
            answers_or_refuses(kind, bad)


@SETTINGS
@given(request=shot_requests())
def test_c_d11_a_declined_dodge_keeps_its_king_and_never_ends_the_deal(request):
    """C-D11: declining the ace changes a dodge's ace and end only, nothing else."""
    request = {k: val for k, val in request.items() if k != "declines_ace"}
    try:
        taken = api.evaluate("cowboy-shot", request)
    except RuleError:
        return
    declined = api.evaluate("cowboy-shot", {**request, "declines_ace": True})
    if taken["outcome"] != "dodge":
        assert declined == taken
        return
    assert declined["king"] == taken["king"]
    assert declined["ace"] is None and declined["ends_deal"] is False


@SETTINGS
@given(request=shot_requests(), ace=st.sampled_from(["AS", "AH", "AD", "AC"]))
def test_c_d10_every_turned_ace_is_refused(request, ace):
    with pytest.raises(RuleError) as caught:
        api.evaluate("cowboy-shot", {**request, "turned": ace})
    assert caught.value.path == "turned"


@SETTINGS
@given(deal_requests(), st.data())
def test_a_held_card_of_a_rank_that_does_not_score_changes_no_score(request, data):
    """``SCORING_RANKS`` (what the end-of-deal screen asks for): a card of any other rank
    held at the end of a deal is worth nothing to whoever holds it."""
    zones = [request.get(zone, {}) for zone in ("held", "tens")]
    used = {c for zone in zones for cards in zone.values() for c in cards}
    used |= {c for guns in request.get("guns", {}).values() for gun in guns for c in gun}
    idle = [c for c in DECK if c not in used and parse_card(c).rank not in cowboy.SCORING_RANKS]
    if not idle:
        return
    card = data.draw(st.sampled_from(idle))
    player = data.draw(st.sampled_from(request["players"]))
    more = copy.deepcopy(request)
    held = more.setdefault("held", {})  # (a player may hold nothing yet)
    held[player] = [*held.get(player, []), card]
    assert outcome("cowboy-deal", more) == outcome("cowboy-deal", request)
