"""Who has won, from the totals (RULES §6, CONTRACT kind ``game-result``).

Each game's record says how (its ``Result``: Wyoming Cowboy C-D9, Szaman S-D5,
Kvanta K-D7, Vežimas V-D4 and V-D6, each in its engine module); this module checks
the request and asks that rule. Ranks share places on ties (1, 1, 3) and depend on
the totals alone, never on the seating. A game without totals (Pegs and Jokers: its
winner comes from ``pegs-apply``) has no result.

>>> result = game_result({"game": "kvanta", "players": ["Ana", "Bojan", "Ceca"],
...     "totals": {"Ana": 40, "Bojan": 40, "Ceca": 12}, "deals": 5, "ended": True})
>>> result["winners"], result["ranks"]
(['Ceca'], {'Ana': 1, 'Bojan': 1, 'Ceca': 3})
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from .. import validate as v
from ..errors import RuleError
from ..messages import Text, quotable
from . import catalog

TOTAL_LIMIT = 1_000_000
MAX_DEALS = 100_000


def __getattr__(name: str):
    if name == "GAMES":  # the games game-result answers for, in the registry's order
        return games()
    raise AttributeError(name)


def games() -> tuple[str, ...]:
    return tuple(slug for slug, game in catalog.GAMES.items() if game.result is not None)


def whole(lo: int, hi: int) -> Callable[[object, str], int]:
    """A result setting's check: a whole number from ``lo`` to ``hi``."""
    return lambda value, path: v.integer(value, path, lo, hi)


def one_of(options: Iterable[str]) -> Callable[[object, str], str]:
    """A result setting's check: one of ``options``."""
    options = tuple(options)
    return lambda value, path: v.choice(value, path, options)


def ranks(players: Sequence[str], standing: Callable[[str], int]) -> dict[str, int]:
    """1-based ranks, smaller ``standing`` first; equal standings share a place.

    >>> ranks(["A", "B", "C"], {"A": 5, "B": 2, "C": 5}.get)
    {'A': 2, 'B': 1, 'C': 2}
    """
    return {p: 1 + sum(standing(q) < standing(p) for q in players) for p in players}


def answer(finished: bool, winners, losers, rank: dict, reason: Text, players) -> dict:
    """A rule's answer, its winners and losers in seat order. The reason is kept as
    its msgid (the standings tell reasons apart by it, in any language); the door
    writes it in the asker's language (:func:`game_result_answer`)."""
    order = {p: i for i, p in enumerate(players)}
    return {
        "finished": finished,
        "winners": sorted(winners, key=order.get),
        "losers": sorted(losers, key=order.get),
        "ranks": rank,
        "reason": reason,
    }


def _settings(game: catalog.Game, value: object) -> dict:
    raw = v.mapping(value, "settings")
    allowed = game.result.settings
    for key in raw:
        if key not in allowed:
            names = ", ".join(sorted(allowed)) or "none"
            raise RuleError(
                "%(game)s's result has no setting “%(key)s” (allowed: %(names)s).",
                v.join("settings", str(key)),
                game=Text(game.name),
                key=quotable(key),
                names=names,
            )
    out = {key: setting.default for key, setting in allowed.items()}
    for key, setting in allowed.items():
        if key in raw:
            out[key] = setting.check(raw[key], v.join("settings", key))
    return out


def _totals(game: catalog.Game, value: object, players: list[str], settings: dict) -> dict:
    raw = v.player_keys(value, "totals", players)
    lo, hi = game.result.bounds(settings) if game.result.bounds else (-TOTAL_LIMIT, TOTAL_LIMIT)
    totals = {}
    for name in players:
        path = v.join("totals", name)
        if name not in raw:
            raise RuleError(
                "The total of %(name)s is missing; give every player's total.", path, name=name
            )
        totals[name] = v.integer(raw[name], path, lo, hi)
    if game.result.check:
        game.result.check(totals, players, settings)
    return totals


def game_result(request: dict) -> dict:
    """``game-result``: finished or not, the winners, the losers (Vežimas) and ranks."""
    req = v.obj(
        request, "", required=("game", "players", "totals", "deals"), optional=("ended", "settings")
    )
    named = catalog.GAMES.get(req["game"]) if isinstance(req["game"], str) else None
    if named is not None and named.result is None and named.no_result:
        raise RuleError(named.no_result, "game")
    game = catalog.GAMES[v.choice(req["game"], "game", games())]
    players = v.players(req["players"], "players", 2, 8)
    game.check_players(players)
    settings = _settings(game, req.get("settings", {}))
    totals = _totals(game, req["totals"], players, settings)
    deals = v.integer(req["deals"], "deals", 0, MAX_DEALS)
    ended = v.boolean(req.get("ended", False), "ended")
    return game.result.rule(players, totals, deals, ended, settings)


def game_result_answer(request: dict) -> dict:
    """The ``game-result`` door: the answer with its reason in the asker's language."""
    result = game_result(request)
    return {**result, "reason": str(result["reason"])}


KINDS = {"game-result": game_result_answer}
