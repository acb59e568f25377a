"""Totals → ranks, who deals next, and whether the game is over, per game.

Who has won comes from the ``game-result`` engine (RULES §6: C-D9, S-D5, K-D7,
V-D4, V-D6; Pegs and Jokers from its board); this module only reads a table's
entries into that request, orders the players and words the result, so the web
layer holds no game rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from ..errors import RuleError
from ..messages import gettext, ngettext
from . import results
from .vezimas import LETTER_TALLY, WORD, letters


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


def _rank(order: list[str], key) -> dict[str, int]:
    ranks: dict[str, int] = {}
    previous = object()
    for i, name in enumerate(order):
        k = key(name)
        if k != previous:
            rank = i + 1
            previous = k
        ranks[name] = rank
    return ranks


def _names(names: list[str]) -> str:
    if len(names) == 1:
        return names[0]
    # Translators: %(first)s is "Ana" or "Ana, Ben", %(last)s one more name
    return gettext("%(first)s and %(last)s", first=", ".join(names[:-1]), last=names[-1])


def dealer(game: str, players: list[str], progress: Progress) -> str | None:
    """Who deals the next deal."""
    n = len(players)
    if not n:
        return None
    first = progress.first_dealer % n
    if game == "cowboy":
        # the deal passes to the right, i.e. against the clockwise seating order
        return players[(first - progress.deals_played) % n]
    if game == "vezimas":
        # V-D2: the previous loser deals
        if progress.last_loser in players:
            return progress.last_loser
        return players[first]
    if game == "kvanta":
        if progress.drawn_dealer in players:
            # K-D10: the deal passes to the left, the next seat clockwise
            start = players.index(progress.drawn_dealer)
            return players[(start + progress.deals_played) % n]
        return None  # the first dealer comes from the draw
    return players[(first + progress.deals_played) % n]


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

    if game in results.GAMES and players:
        return _from_game_result(game, players, totals, settings, progress, next_dealer)

    order = sorted(players, key=lambda p: (-totals[p], seat[p]))
    ranks = _rank(order, lambda p: totals[p])

    if game == "pegs":
        # a race of two teams (Setup: seat s is on team s mod 2; End: a team wins with
        # every peg home): the team with more pegs in its home holes (P-D1) leads, and
        # each player shows their own pegs home
        teams = [[p for p in players if seat[p] % 2 == t] for t in (0, 1)]
        shown = None
        if progress.pegs_home is not None and len(progress.pegs_home) == len(players):
            home = {p: progress.pegs_home[seat[p]] for p in players}
            team_home = [sum(home[p] for p in team) for team in teams]
            order = sorted(players, key=lambda p: (-team_home[seat[p] % 2], seat[p] % 2, seat[p]))
            ranks = _rank(order, lambda p: team_home[seat[p] % 2])
            shown = {
                p: gettext("%(home)s/%(pegs)s home", home=home[p], pegs=progress.pegs_per_seat)
                for p in players
            }
        if progress.winner_team is not None:
            winners = teams[progress.winner_team]
            return Standings(
                order,
                ranks,
                True,
                winners,
                gettext(
                    "Team %(team)s (%(names)s) wins the race.",
                    team=progress.winner_team + 1,
                    names=_names(winners),
                ),
                next_dealer,
                shown=shown,
            )
        if shown is None:
            message = gettext("Partners sit opposite: seats alternate between the two teams.")
        else:
            per_team = [progress.pegs_per_seat * len(team) for team in teams]
            message = (
                "; ".join(
                    gettext(
                        "Team %(team)s (%(names)s): %(home)s of %(pegs)s pegs home",
                        team=t + 1,
                        names=_names(teams[t]),
                        home=team_home[t],
                        pegs=per_team[t],
                    )
                    for t in (0, 1)
                )
                + "."
            )
        return Standings(order, ranks, False, [], message, next_dealer, shown=shown)

    return Standings(order, ranks, progress.ended, [], "", next_dealer)


def _from_game_result(
    game: str,
    players: list[str],
    totals: dict[str, int],
    settings: dict,
    progress: Progress,
    next_dealer: str | None,
) -> Standings:
    """Ranks, the end and the winners as the ``game-result`` engine says (RULES §6):
    this module adds only the order to list them in and the sentence to show."""
    own = {k: settings[k] for k in results.SETTINGS[game] if k in settings}
    tally = own.get("tally")
    if tally == LETTER_TALLY:
        # a score-pad round could give more letters than the word has
        totals = {p: max(0, min(t, len(WORD))) for p, t in totals.items()}
    request = {
        "game": game,
        "players": players,
        "totals": totals,
        "deals": progress.deals_played,
        "ended": progress.ended,
        "settings": own,
    }
    try:
        result = results.game_result(request)
    except RuleError as exc:  # totals the rules cannot rank (e.g. typed on the pad)
        order = list(players)
        return Standings(order, dict.fromkeys(order, 1), False, [], exc.message, next_dealer)
    seat = {name: i for i, name in enumerate(players)}
    ranks = result["ranks"]
    order = sorted(players, key=lambda p: (ranks[p], -totals[p], seat[p]))
    winners, losers = result["winners"], result["losers"]
    message = _MESSAGES[game](result, totals, own, progress)
    if game == "szaman":
        target = int(own.get("target", results.SZAMAN_TARGET))
        return Standings(
            order, ranks, result["finished"], winners, message, next_dealer, False, target
        )
    if game == "vezimas":
        shown = word = None
        if tally == LETTER_TALLY:
            shown = {p: letters(totals[p]) or "–" for p in players}
            word = WORD
        return Standings(
            order,
            ranks,
            result["finished"],
            winners,
            message,
            next_dealer,
            True,
            shown=shown,
            losers=losers,
            word=word,
        )
    return Standings(order, ranks, result["finished"], winners, message, next_dealer)


def _win_text(winners: list[str]) -> str:
    return ngettext(
        "%(names)s wins", "%(names)s share the win", len(winners), names=_names(winners)
    )


def _cowboy_message(result: dict, totals: dict, settings: dict, progress: Progress) -> str:
    target = int(settings.get("target", results.COWBOY_TARGET))
    winners = result["winners"]
    if len(winners) == 1:
        return gettext(
            "%(name)s wins with %(total)s (C-D9).", name=winners[0], total=totals[winners[0]]
        )
    if winners:
        # Translators: %(winners)s is "Ana and Ben share the win"
        return gettext(
            "%(winners)s with %(total)s (C-D9).",
            winners=_win_text(winners),
            total=totals[winners[0]],
        )
    if result["reason"] == results.COWBOY_TIE:
        return gettext(
            "Tied for the lead past %(target)s: play another deal (C-D9).", target=target
        )
    return gettext("First to %(target)s wins; the deal passes to the right.", target=target)


def _szaman_message(result: dict, totals: dict, settings: dict, progress: Progress) -> str:
    target = int(settings.get("target", results.SZAMAN_TARGET))
    if result["finished"]:
        return gettext(
            "%(winners)s: closest to %(target)s (S-D5).",
            winners=_win_text(result["winners"]),
            target=target,
        )
    left = max(int(settings.get("deals", results.SZAMAN_DEALS)) - progress.deals_played, 0)
    return ngettext(
        "%(num)d deal to go; closest to %(target)s wins.",
        "%(num)d deals to go; closest to %(target)s wins.",
        left,
        target=target,
    )


def _kvanta_message(result: dict, totals: dict, settings: dict, progress: Progress) -> str:
    if not result["finished"]:
        return gettext("The game ends when the burned cards are reached.")
    if result["winners"]:
        winner = result["winners"][0]
        return gettext("%(name)s wins with %(total)s (K-D7).", name=winner, total=totals[winner])
    return gettext("Every top total cancels out: the game is a draw (K-D7).")


def _vezimas_message(result: dict, totals: dict, settings: dict, progress: Progress) -> str:
    winners, losers = result["winners"], result["losers"]
    if settings.get("tally") == LETTER_TALLY:
        if not result["finished"]:
            return gettext(
                "Each deal's loser takes the next letter of %(word)s; completing it loses (V-D6).",
                word=WORD,
            )
        if results.WORD_COMPLETED in result["reason"]:
            text = gettext(
                "%(name)s completed %(word)s and loses the session (V-D6).",
                name=losers[0],
                word=WORD,
            )
            if not winners:
                return text
            return (
                text
                + " "
                + gettext("%(winners)s with the fewest letters.", winners=_win_text(winners))
            )
        if not winners:
            return gettext("Everyone has as many letters: nobody wins or loses (V-D6).")
        text = gettext("%(winners)s with the fewest letters (V-D6).", winners=_win_text(winners))
    else:
        if not result["finished"]:
            return gettext("Fewest carts wins; end the session when you stop.")
        if not winners:
            return gettext("Everyone has as many carts: nobody wins or loses (V-D4).")
        text = gettext("%(winners)s with the fewest carts (V-D4).", winners=_win_text(winners))
    if losers:
        text += " " + ngettext(
            "%(names)s has the most.", "%(names)s have the most.", len(losers), names=_names(losers)
        )
    return text


_MESSAGES = {
    "cowboy": _cowboy_message,
    "szaman": _szaman_message,
    "kvanta": _kvanta_message,
    "vezimas": _vezimas_message,
}


def progress_of(game: str, settings: dict, live_entries: list[dict]) -> Progress:
    """What a table's live entries say about the game beyond the totals.

    Each entry is ``{"round", "kind", "request", "result", "points"}`` with points
    by player name, oldest first.
    """
    scoring_rounds = {e["round"] for e in live_entries if e["kind"] not in NON_DEAL_KINDS}

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
    rounds with a live entry of a kind that is a deal (not in ``NON_DEAL_KINDS``)."""

    def latest(kinds: frozenset[str], says) -> dict | None:
        return next((e for e in newest_first(kinds) if says(e)), None)

    ended = latest(frozenset({"game-end"}), lambda e: True) is not None
    last_loser = None
    loser_kinds = {"vezimas-deal"} | ({"manual-points"} if game == "vezimas" else set())
    # V-D2: the latest deal names who deals next; on the score pad a Vežimas round
    # gives the cart (1 point) to the loser
    said = latest(
        frozenset(loser_kinds),
        lambda e: e["kind"] == "vezimas-deal" or len(_carts(e)) == 1,
    )
    if said is not None:
        last_loser = (
            said["result"].get("next_dealer") if said["kind"] == "vezimas-deal" else _carts(said)[0]
        )
    dealer_entry = latest(frozenset({"kvanta-dealer"}), lambda e: e["result"].get("dealer"))
    drawn_dealer = dealer_entry["result"]["dealer"] if dealer_entry else None
    # Pegs: the latest board decides (a correction can also undo a finish)
    board_kinds = frozenset({"pegs-apply", "pegs-board"})
    latest_board = latest(board_kinds, lambda e: True)
    winner_team = latest_board["result"].get("winner_team") if latest_board else None
    pegs_home = None
    pegs_per_seat = 0
    placed = latest(board_kinds, lambda e: _board(e) is not None)
    if placed is not None:
        board = _board(placed)  # positions by seat; home holes are H… (P-D1)
        seats = [board.get(str(i), []) for i in range(len(board))]
        pegs_home = tuple(sum(str(p).startswith("H") for p in pegs) for pegs in seats)
        pegs_per_seat = max(len(pegs) for pegs in seats)
    return Progress(
        deals_played=deals_played,
        ended=ended,
        first_dealer=int(settings.get("first_dealer", 0) or 0),
        last_loser=last_loser,
        drawn_dealer=drawn_dealer,
        winner_team=winner_team,
        pegs_home=pegs_home,
        pegs_per_seat=pegs_per_seat,
    )


def _carts(entry: dict) -> list[str]:
    return [name for name, pts in entry["points"].items() if pts > 0]


def _board(entry: dict) -> dict | None:
    board = entry["result"].get("pegs")
    return board if isinstance(board, dict) and board else None


# entries that belong to a table's history but are not a deal of their own
NON_DEAL_KINDS = frozenset(
    {"game-end", "kvanta-dealer", "cowboy-marriage", "pegs-apply", "pegs-board", "vezimas-trumps"}
)
