"""Who has won, from the totals (RULES §6, CONTRACT kind ``game-result``).

One rule per game: Wyoming Cowboy C-D9, Szaman S-D5, Kvanta K-D7, Vežimas V-D4 and
V-D6. Ranks share places on ties (1, 1, 3) and depend on the totals alone, never on
the seating. Pegs and Jokers has no totals: its winner comes from ``pegs-apply``.

>>> result = game_result({"game": "kvanta", "players": ["Ana", "Bojan", "Ceca"],
...     "totals": {"Ana": 40, "Bojan": 40, "Ceca": 12}, "deals": 5, "ended": True})
>>> result["winners"], result["ranks"]
(['Ceca'], {'Ana': 1, 'Bojan': 1, 'Ceca': 3})
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from .. import validate as v
from ..errors import RuleError
from . import catalog
from .cowboy import TARGET as COWBOY_TARGET
from .cowboy import game_winner as cowboy_winner
from .kvanta import game_winner as kvanta_winner
from .szaman import TARGET as SZAMAN_TARGET
from .szaman import game_winners as szaman_winners
from .vezimas import CART_TALLY, LETTER_TALLY, TALLIES, WORD

GAMES = ("cowboy", "szaman", "kvanta", "vezimas")
TOTAL_LIMIT = 1_000_000
MAX_DEALS = 100_000
SZAMAN_DEALS = 6  # RULES §2: a game is 6 deals

# reasons the screens word in their own way
COWBOY_TIE = "tie for the highest total at the target: another deal"
WORD_COMPLETED = "completed the word"

# the settings each game's result depends on, with their defaults
SETTINGS: dict[str, dict[str, object]] = {
    "cowboy": {"target": COWBOY_TARGET},
    "szaman": {"target": SZAMAN_TARGET, "deals": SZAMAN_DEALS},
    "kvanta": {},
    "vezimas": {"tally": CART_TALLY},
}


def ranks(players: Sequence[str], standing: Callable[[str], int]) -> dict[str, int]:
    """1-based ranks, smaller ``standing`` first; equal standings share a place.

    >>> ranks(["A", "B", "C"], {"A": 5, "B": 2, "C": 5}.get)
    {'A': 2, 'B': 1, 'C': 2}
    """
    return {p: 1 + sum(standing(q) < standing(p) for q in players) for p in players}


def _answer(finished: bool, winners, losers, rank: dict, reason: str, players) -> dict:
    order = {p: i for i, p in enumerate(players)}
    return {
        "finished": finished,
        "winners": sorted(winners, key=order.get),
        "losers": sorted(losers, key=order.get),
        "ranks": rank,
        "reason": reason,
    }


def cowboy(players, totals, deals, ended, settings) -> dict:
    """C-D9: once a total reaches the target, the single highest total wins; a tie
    for highest plays another deal. Stopped early: the highest total wins, shared."""
    target = settings["target"]
    rank = ranks(players, lambda p: -totals[p])
    top = max(totals.values())
    leaders = [p for p in players if totals[p] == top]
    if ended:
        return _answer(True, leaders, [], rank, "highest total (the game was stopped)", players)
    winner = cowboy_winner(totals, target)
    if winner is not None:
        return _answer(True, [winner], [], rank, "highest total", players)
    if top >= target:
        reason = COWBOY_TIE
    else:
        reason = f"nobody has reached {target} yet"
    return _answer(False, [], [], rank, reason, players)


def szaman(players, totals, deals, ended, settings) -> dict:
    """S-D5: after the set number of deals the totals closest to the target win,
    shared on equal distance; ranks by distance."""
    target, wanted = settings["target"], settings["deals"]
    distance = {p: abs(totals[p] - target) for p in players}
    rank = ranks(players, distance.get)
    if deals >= wanted or ended:
        winners = szaman_winners(totals, target)
        return _answer(True, winners, [], rank, "closest to the target", players)
    left = wanted - deals
    reason = f"{left} deal{'s' if left != 1 else ''} to go"
    return _answer(False, [], [], rank, reason, players)


def kvanta(players, totals, deals, ended, settings) -> dict:
    """K-D7: when the burned cards are reached the highest total wins; equal top
    totals cancel and the next highest wins, repeatedly; all cancel: a draw."""
    rank = ranks(players, lambda p: -totals[p])
    if not ended:
        return _answer(False, [], [], rank, "the game ends at the burned cards", players)
    winner = kvanta_winner(totals)
    if winner is None:
        return _answer(True, [], [], rank, "every total cancels: a draw", players)
    if rank[winner] == 1:
        return _answer(True, [winner], [], rank, "highest total", players)
    reason = "the higher totals cancel: the highest total standing alone"
    return _answer(True, [winner], [], rank, reason, players)


def vezimas(players, totals, deals, ended, settings) -> dict:
    """V-D4: with carts the session ends when the players say so; V-D6: with letters
    it ends when a player completes VEŽIMAS, who loses. Fewest win, most lose; all
    equal: nobody wins or loses."""
    tally = settings["tally"]
    unit = "letters" if tally == LETTER_TALLY else "carts"
    rank = ranks(players, totals.__getitem__)
    complete = [p for p in players if totals[p] == len(WORD)]
    if tally == LETTER_TALLY and complete:
        others = [p for p in players if p not in complete]
        fewest = min(totals[p] for p in others)
        winners = [p for p in others if totals[p] == fewest]
        reason = f"{complete[0]} {WORD_COMPLETED} {WORD}: fewest letters win"
        return _answer(True, winners, complete, rank, reason, players)
    if not ended:
        if tally == LETTER_TALLY:
            reason = f"the session ends when a player completes {WORD}"
        else:
            reason = "the session ends when the players stop"
        return _answer(False, [], [], rank, reason, players)
    fewest, most = min(totals.values()), max(totals.values())
    if fewest == most:
        return _answer(True, [], [], rank, "all equal: nobody wins or loses", players)
    winners = [p for p in players if totals[p] == fewest]
    losers = [p for p in players if totals[p] == most]
    return _answer(True, winners, losers, rank, f"fewest {unit}", players)


RULES = {"cowboy": cowboy, "szaman": szaman, "kvanta": kvanta, "vezimas": vezimas}


def _settings(game: str, value: object) -> dict:
    raw = v.mapping(value, "settings")
    allowed = SETTINGS[game]
    for key in raw:
        if key not in allowed:
            names = ", ".join(sorted(allowed)) or "none"
            raise RuleError(
                "%(game)s's result has no setting %(key)r (allowed: %(names)s).",
                v.join("settings", str(key)),
                game=catalog.GAMES[game].name,
                key=key,
                names=names,
            )
    out = dict(allowed)
    if "target" in raw:
        out["target"] = v.integer(raw["target"], "settings.target", 1, TOTAL_LIMIT)
    if "deals" in raw:
        out["deals"] = v.integer(raw["deals"], "settings.deals", 1, MAX_DEALS)
    if "tally" in raw:
        out["tally"] = v.choice(raw["tally"], "settings.tally", TALLIES)
    return out


def _totals(game: str, value: object, players: list[str], settings: Mapping) -> dict[str, int]:
    raw = v.player_keys(value, "totals", players)
    totals = {}
    for name in players:
        path = v.join("totals", name)
        if name not in raw:
            raise RuleError(
                "The total of %(name)s is missing; give every player's total.", path, name=name
            )
        if game != "vezimas":
            totals[name] = v.integer(raw[name], path, -TOTAL_LIMIT, TOTAL_LIMIT)
        elif settings["tally"] == LETTER_TALLY:
            # V-D6: a player holds 0 to 7 letters of VEŽIMAS
            totals[name] = v.integer(raw[name], path, 0, len(WORD))
        else:
            totals[name] = v.integer(raw[name], path, 0, TOTAL_LIMIT)  # V-D4: carts
    if game == "vezimas" and settings["tally"] == LETTER_TALLY:
        complete = [p for p in players if totals[p] == len(WORD)]
        if len(complete) > 1:
            raise RuleError(
                "Only one player can complete %(word)s: the session ends when the first does (V-D6).",
                v.join("totals", complete[1]),
                word=WORD,
            )
    return totals


def game_result(request: dict) -> dict:
    """``game-result``: finished or not, the winners, the losers (Vežimas) and ranks."""
    req = v.obj(
        request, "", required=("game", "players", "totals", "deals"), optional=("ended", "settings")
    )
    if req["game"] == "pegs":
        raise RuleError(
            "Arizona Pegs and Jokers has no totals: its winner comes from pegs-apply.", "game"
        )
    game = v.choice(req["game"], "game", GAMES)
    players = v.players(req["players"], "players", 2, 8)
    catalog.GAMES[game].check_players(players)
    settings = _settings(game, req.get("settings", {}))
    totals = _totals(game, req["totals"], players, settings)
    deals = v.integer(req["deals"], "deals", 0, MAX_DEALS)
    ended = v.boolean(req.get("ended", False), "ended")
    return RULES[game](players, totals, deals, ended, settings)


KINDS = {"game-result": game_result}
