"""Totals → ranks, who deals next, and whether the game is over, per game.

Each game's own end rule lives in its engine module (C-D9, S-D5, K-D7, V-D4);
this module applies them to a table's running totals so the web layer holds no
game rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


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

    if game == "szaman":
        from .szaman import game_winners

        target = int(settings.get("target", 66))
        deals = int(settings.get("deals", 6))
        order = sorted(players, key=lambda p: (abs(totals[p] - target), -totals[p], seat[p]))
        ranks = _rank(order, lambda p: abs(totals[p] - target))
        finished = progress.deals_played >= deals or progress.ended
        winners = list(game_winners(totals, target)) if finished else []
        left = max(deals - progress.deals_played, 0)
        message = (
            f"{_names(winners)} {'wins' if len(winners) == 1 else 'share the win'}: "
            f"closest to {target} (S-D5)."
            if finished
            else f"{left} deal{'s' if left != 1 else ''} to go; closest to {target} wins."
        )
        return Standings(order, ranks, finished, winners, message, next_dealer, False, target)

    if game == "vezimas":
        # V-D4: a point is a cart; fewest carts is best
        order = sorted(players, key=lambda p: (totals[p], seat[p]))
        ranks = _rank(order, lambda p: totals[p])
        if progress.ended:
            fewest = min(totals.values())
            winners = [p for p in players if totals[p] == fewest]
            message = f"{_names(winners)} {'wins' if len(winners) == 1 else 'share the win'} with the fewest carts."
            return Standings(order, ranks, True, winners, message, next_dealer, True)
        return Standings(
            order,
            ranks,
            False,
            [],
            "Fewest carts wins; end the session when you stop.",
            next_dealer,
            True,
        )

    order = sorted(players, key=lambda p: (-totals[p], seat[p]))
    ranks = _rank(order, lambda p: totals[p])

    if game == "cowboy":
        from .cowboy import game_winner

        winner = game_winner(totals)
        if winner is not None:
            return Standings(
                order,
                ranks,
                True,
                [winner],
                f"{winner} wins with {totals[winner]} (C-D9).",
                next_dealer,
            )
        top = max(totals.values())
        if top >= 500:
            return Standings(
                order,
                ranks,
                False,
                [],
                "Tied for the lead past 500: play another deal (C-D9).",
                next_dealer,
            )
        return Standings(
            order, ranks, False, [], "First to 500 wins; the deal passes to the right.", next_dealer
        )

    if game == "kvanta":
        from .kvanta import game_winner

        if progress.ended:
            winner = game_winner(totals)
            message = (
                f"{winner} wins with {totals[winner]} (K-D7)."
                if winner
                else "Every top total cancels out: the game is a draw (K-D7)."
            )
            return Standings(order, ranks, True, [winner] if winner else [], message, next_dealer)
        return Standings(
            order, ranks, False, [], "The game ends when the burned cards are reached.", next_dealer
        )

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
            shown = {p: f"{home[p]}/{progress.pegs_per_seat} home" for p in players}
        if progress.winner_team is not None:
            winners = teams[progress.winner_team]
            return Standings(
                order,
                ranks,
                True,
                winners,
                f"Team {progress.winner_team + 1} ({_names(winners)}) wins the race.",
                next_dealer,
                shown=shown,
            )
        if shown is None:
            message = "Partners sit opposite: seats alternate between the two teams."
        else:
            per_team = [progress.pegs_per_seat * len(team) for team in teams]
            message = (
                "; ".join(
                    f"Team {t + 1} ({_names(teams[t])}): {team_home[t]} of {per_team[t]} pegs home"
                    for t in (0, 1)
                )
                + "."
            )
        return Standings(order, ranks, False, [], message, next_dealer, shown=shown)

    return Standings(order, ranks, progress.ended, [], "", next_dealer)


def progress_of(game: str, settings: dict, live_entries: list[dict]) -> Progress:
    """What a table's live entries say about the game beyond the totals.

    Each entry is ``{"round", "kind", "request", "result", "points"}`` with points
    by player name, oldest first.
    """
    scoring_rounds = {e["round"] for e in live_entries if e["kind"] not in NON_DEAL_KINDS}
    last_loser = drawn_dealer = winner_team = pegs_home = None
    pegs_per_seat = 0
    ended = False
    for e in live_entries:
        kind = e["kind"]
        if kind == "game-end":
            ended = True
        elif kind == "vezimas-deal":
            last_loser = e["result"].get("next_dealer")
        elif kind == "manual-points" and game == "vezimas":
            # on the score pad a Vežimas round gives the cart (1 point) to the loser
            carts = [name for name, pts in e["points"].items() if pts > 0]
            if len(carts) == 1:
                last_loser = carts[0]
        elif kind == "kvanta-dealer":
            drawn_dealer = e["result"].get("dealer") or drawn_dealer
        elif kind in ("pegs-apply", "pegs-board"):
            # the latest board decides: a correction can also undo a finish
            winner_team = e["result"].get("winner_team")
            board = e["result"].get("pegs")  # positions by seat; home holes are H… (P-D1)
            if isinstance(board, dict) and board:
                seats = [board.get(str(i), []) for i in range(len(board))]
                pegs_home = tuple(sum(str(p).startswith("H") for p in pegs) for pegs in seats)
                pegs_per_seat = max(len(pegs) for pegs in seats)
    return Progress(
        deals_played=len(scoring_rounds),
        ended=ended,
        first_dealer=int(settings.get("first_dealer", 0) or 0),
        last_loser=last_loser,
        drawn_dealer=drawn_dealer,
        winner_team=winner_team,
        pegs_home=pegs_home,
        pegs_per_seat=pegs_per_seat,
    )


# entries that belong to a table's history but are not a deal of their own
NON_DEAL_KINDS = frozenset(
    {"game-end", "kvanta-dealer", "cowboy-marriage", "pegs-apply", "pegs-board", "vezimas-trumps"}
)
