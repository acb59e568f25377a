"""Totals → ranks, who deals next, and whether the game is over.

Who has won comes from the ``game-result`` engine (RULES §6: C-D9, S-D5, K-D7,
V-D4, V-D6; Pegs and Jokers from its board); this module only reads a table's
entries into that request and orders the players, and each game's record (its
engine module) says who deals, words the result and reads what its entries say
beyond the totals, so the web layer holds no game rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from ..errors import RuleError
from ..messages import gettext, ngettext
from . import catalog, results


@dataclass(frozen=True)
class Progress:
    """What the table knows beyond the totals."""

    deals_played: int = 0  # rounds with at least one live scoring entry
    ended: bool = False  # the players closed the game (Kvanta's burned cards, Vežimas)
    first_dealer: int = 0  # seat
    last_loser: str | None = None  # Vežimas: who took the last cart
    drawn_dealer: str | None = None  # Kvanta: the dealer draw's result
    winner_team: int | None = None  # Pegs and Jokers
    pegs_home: tuple[int, ...] | None = None  # Pegs and Jokers: pegs home per seat
    pegs_per_seat: int = 0
    # what another game's record reads from its entries (Game.progress), by name
    facts: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Standings:
    order: list[str]  # best first
    ranks: dict[str, int]  # 1 = best; equal standing shares a rank
    finished: bool
    winners: list[str] = field(default_factory=list)
    message: str = ""
    dealer: str | None = None
    lower_is_better: bool = False
    distance_to: int | None = None  # Szaman: ranks by distance to this total
    shown: dict[str, str] | None = None  # what to show for each player instead of points
    losers: list[str] = field(default_factory=list)  # Vežimas (V-D4, V-D6)
    word: str | None = None  # V-D6: the word whose letters the players collect


def rank_by(order: list[str], key) -> dict[str, int]:
    """Ranks of players listed best first: equal ``key`` shares a rank."""
    ranks: dict[str, int] = {}
    previous = object()
    for i, name in enumerate(order):
        k = key(name)
        if k != previous:
            rank = i + 1
            previous = k
        ranks[name] = rank
    return ranks


def names_text(names: list[str]) -> str:
    if len(names) == 1:
        return names[0]
    # Translators: %(first)s is "Ana" or "Ana, Ben", %(last)s one more name
    return gettext("%(first)s and %(last)s", first=", ".join(names[:-1]), last=names[-1])


def win_text(winners: list[str]) -> str:
    return ngettext(
        "%(names)s wins", "%(names)s share the win", len(winners), names=names_text(winners)
    )


def _record(game: str) -> catalog.Game | None:
    return catalog.GAMES.get(game) if isinstance(game, str) else None


def dealer(game: str, players: list[str], progress: Progress) -> str | None:
    """Who deals the next deal: as the game's record says, else the deal passes to
    the left (the next seat clockwise)."""
    n = len(players)
    if not n:
        return None
    record = _record(game)
    if record is not None and record.dealer is not None:
        return record.dealer(players, progress)
    return players[(progress.first_dealer % n + progress.deals_played) % n]


def rematch_settings(settings: dict, players: list[str], next_dealer: str | None) -> dict:
    """A rematch's settings: the table's, with the deal passing on as it would have
    (whoever was to deal next deals first). A game with no first dealer to choose keeps
    its settings as they are."""
    if "first_dealer" not in settings or next_dealer not in players:
        return dict(settings)
    return {**settings, "first_dealer": players.index(next_dealer)}


def standings(
    game: str,
    players: list[str],
    totals: dict[str, int],
    settings: dict,
    progress: Progress = Progress(),
) -> Standings:
    seat = {name: i for i, name in enumerate(players)}
    totals = {name: totals.get(name, 0) for name in players}
    next_dealer = dealer(game, players, progress)
    record = _record(game)

    if record is not None and record.result is not None and players:
        return _from_game_result(record, players, totals, settings, progress, next_dealer)
    if record is not None and record.standings is not None:
        return record.standings(players, totals, settings, progress, next_dealer)

    order = sorted(players, key=lambda p: (-totals[p], seat[p]))
    ranks = rank_by(order, lambda p: totals[p])
    return Standings(order, ranks, progress.ended, [], "", next_dealer)


def _from_game_result(
    game: catalog.Game,
    players: list[str],
    totals: dict[str, int],
    settings: dict,
    progress: Progress,
    next_dealer: str | None,
) -> Standings:
    """Ranks, the end and the winners as the ``game-result`` engine says (RULES §6):
    this module adds only the order to list them in; the game's record words it."""
    rule = game.result
    own = {k: settings[k] for k in rule.settings if k in settings}
    if rule.pad_totals is not None:
        totals = rule.pad_totals(totals, own)
    request = {
        "game": game.slug,
        "players": players,
        "totals": totals,
        "deals": progress.deals_played,
        "ended": progress.ended,
        "settings": own,
    }
    try:
        result = results.game_result(request)
        provisional = progress.facts.get("provisional") or {}
        if result["finished"] and provisional and not progress.ended:
            # points of a deal still open count in the totals (and the ranks) at once,
            # but decide the game only with that deal (C-D9): the end is the totals'
            # without them
            before = {p: totals[p] - provisional.get(p, 0) for p in players}
            settled = results.game_result({**request, "totals": before})
            if not settled["finished"]:
                result = {**settled, "ranks": result["ranks"]}
    except RuleError as exc:  # totals the rules cannot rank (e.g. typed on the pad)
        order = list(players)
        return Standings(order, dict.fromkeys(order, 1), False, [], exc.message, next_dealer)
    seat = {name: i for i, name in enumerate(players)}
    ranks = result["ranks"]
    order = sorted(players, key=lambda p: (ranks[p], -totals[p], seat[p]))
    view = rule.view(result, totals, own, players) if rule.view is not None else {}
    return Standings(
        order,
        ranks,
        result["finished"],
        result["winners"],
        rule.message(result, totals, own, progress),
        next_dealer,
        losers=result["losers"],
        **view,
    )


def progress_of(game: str, settings: dict, live_entries: list[dict]) -> Progress:
    """What a table's live entries say about the game beyond the totals.

    Each entry is ``{"round", "kind", "request", "result", "points"}`` with points
    by player name, oldest first.
    """
    non_deal = non_deal_kinds()
    scoring_rounds = {e["round"] for e in live_entries if e["kind"] not in non_deal}

    def newest_first(kinds: frozenset[str]) -> Iterator[dict]:
        return (e for e in reversed(live_entries) if e["kind"] in kinds)

    return progress_from(game, settings, newest_first, len(scoring_rounds))


def progress_from(
    game: str,
    settings: dict,
    newest_first: Callable[[frozenset[str]], Iterable[dict]],
    deals_played: int,
) -> Progress:
    """``progress_of`` for a history too long to read whole: every fact it needs is
    the latest live entry of some kinds that says it, so ``newest_first(kinds)``
    gives the live entries of those kinds (as ``progress_of`` takes them), newest
    first, and each is read only until the first that says it. ``deals_played``:
    rounds with a live entry of a kind that is a deal (not in ``non_deal_kinds()``)."""

    def latest(kinds: frozenset[str], says) -> dict | None:
        return next((e for e in newest_first(kinds) if says(e)), None)

    record = _record(game)
    said = record.progress(settings, latest) if record and record.progress else {}
    known = {k: value for k, value in said.items() if k in _PROGRESS_FIELDS}
    return Progress(
        deals_played=deals_played,
        ended=latest(frozenset({"game-end"}), lambda e: True) is not None,
        first_dealer=int(settings.get("first_dealer", 0) or 0),
        facts={k: value for k, value in said.items() if k not in _PROGRESS_FIELDS},
        **known,
    )


_PROGRESS_FIELDS = frozenset(Progress.__dataclass_fields__) - {"facts"}


def non_deal_kinds() -> frozenset[str]:
    """Entries that belong to a table's history but are not a deal of their own: the
    game's end and the kinds the games declare so."""
    return frozenset(
        {"game-end"} | {k.name for game in catalog.GAMES.values() for k in game.kinds if not k.deal}
    )


def __getattr__(name: str):
    if name == "NON_DEAL_KINDS":
        return non_deal_kinds()
    raise AttributeError(name)
