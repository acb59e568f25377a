"""Kvanta (RULES §3, CONTRACT "Kvanta"): dealer draw, Hand, tricks, Flux, the call
settlement and the poker phase, decisions K-D1 … K-D8.

Three decks are shuffled together, so a card may appear up to three times in one
request (the poker prize card included) and never as a joker. A card's value is
A 1, 2-10 face value, J/Q/K 0; red adds, black subtracts, and a hand's *sum* is
the absolute value of the total.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from .. import validate as v
from ..cards import ACE, JACK, KING, QUEEN, Card, card_symbol
from ..errors import RuleError
from ..messages import N_, Text, gettext, points, signed
from . import catalog, results
from .poker import CATEGORY_NAMES, BestHand, best_hands, cancel_ties, hand_sum, signed_sum
from .standings import Progress
from .wording import as_dict, as_list, cards_text

MIN_PLAYERS, MAX_PLAYERS = 2, 6
DECKS = 3
HAND_SIZE = 7
POKER_SIZES = (5, 7)
TARGET_LO, TARGET_HI = 3, 18  # three dice
MAX_SUM = 70  # seven red tens
TOTAL_LIMIT = 1_000_000

HAND_POINTS = 15
FLUX_POINTS = 5
UNDERCUT_BONUS = 5
BULLS_EYES_BONUS = 10
FLUX_BULLS_EYES_BONUS = 20
ZILCH_SUM = 21

# dealer draw: equal ranks go by suit, high to low ♠ ♥ ♦ ♣
SUIT_STRENGTH = {"S": 3, "H": 2, "D": 1, "C": 0}
FACES = frozenset((JACK, QUEEN, KING))


class Seat(NamedTuple):
    """One player's shown hand: the 7 cards, or only their signed sum."""

    cards: tuple[Card, ...] | None
    signed: int

    @property
    def sum(self) -> int:
        return abs(self.signed)


# --- pure helpers for the screens ------------------------------------------------------


def game_winner(totals: Mapping[str, int]) -> str | None:
    """The game's winner (K-D7): top totals that tie cancel and the next highest
    total wins, repeatedly; None when every total cancels (a draw).

    >>> game_winner({"Ana": 40, "Bojan": 40, "Ceca": 12})
    'Ceca'
    >>> game_winner({"Ana": 7, "Bojan": 7}) is None
    True
    """
    return cancel_ties(totals)[0]


def black_cards(cards) -> int:
    return sum(1 for c in cards if c.is_black)


def face_cards(cards) -> int:
    return sum(1 for c in cards if c.rank in FACES)


# --- request checking -----------------------------------------------------------------


def verify_player_count(count: int, path: str) -> None:
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        raise RuleError(
            "Kvanta is played by %(lowest)s to %(highest)s players, not %(count)s.",
            path,
            lowest=MIN_PLAYERS,
            highest=MAX_PLAYERS,
            count=count,
        )


def _named(value: object, path: str) -> dict:
    """An object keyed by player names (the players are its keys)."""
    data = v.mapping(value, path)
    for key in data:
        v.name(key, v.join(path, str(key)))
    return data


def _players(value: object, path: str = "players") -> list[str]:
    verify_player_count(len(v.array(value, path)), path)
    return v.players(value, path, MIN_PLAYERS, MAX_PLAYERS)


def _target(value: object) -> int:
    return v.integer(value, "target", TARGET_LO, TARGET_HI)


def kvanta_card(value: object, path: str, counter: v.CardCounter) -> Card:
    """One card of the three decks; a fourth copy in the request is refused."""
    card = v.card(value, path)
    if card.is_joker:
        raise RuleError(
            "%(card)s is not a card of Kvanta, which is played without jokers.", path, card=card
        )
    counter.add(card, path)
    return card


def kvanta_cards(
    value: object, path: str, counter: v.CardCounter, sizes: tuple[int, ...] = (HAND_SIZE,)
) -> tuple[Card, ...]:
    items = v.array(value, path)
    if len(items) not in sizes:
        wanted = " or ".join(map(str, sizes))
        raise RuleError(
            "%(path)s must hold exactly %(wanted)s cards, not %(count)s.",
            path,
            path=path,
            wanted=wanted,
            count=len(items),
        )
    return tuple(kvanta_card(item, v.join(path, i), counter) for i, item in enumerate(items))


def _seats(req: dict, counter: v.CardCounter) -> dict[str, Seat]:
    """Every shown hand: 7 cards in ``hands`` or a plain signed sum in ``sums``; each
    field is optional, and together they name every player once (CONTRACT)."""
    if "hands" not in req and "sums" not in req:
        raise RuleError("Give every player's hand (hands) or sum (sums).", "hands")
    hands = _named(req.get("hands", {}), "hands")
    sums = _named(req.get("sums", {}), "sums")
    for name in sums:
        if name in hands:
            raise RuleError(
                "%(name)s has both a hand and a sum; give only one.",
                v.join("sums", name),
                name=name,
            )
    verify_player_count(len(hands) + len(sums), "hands" if hands else "sums")
    seats: dict[str, Seat] = {}
    for name, raw in hands.items():
        cards = kvanta_cards(raw, v.join("hands", name), counter)
        seats[name] = Seat(cards, signed_sum(cards))
    for name, raw in sums.items():
        seats[name] = Seat(None, v.integer(raw, v.join("sums", name), -MAX_SUM, MAX_SUM))
    return seats


# --- kvanta-dealer ------------------------------------------------------------------------


def draw_order(card: Card) -> tuple[int, int]:
    """Lower deals: rank first (2 lowest, A highest), then suit (♣ lowest)."""
    return card.rank, SUIT_STRENGTH[card.suit]


def dealer(request: dict) -> dict:
    """Who deals first: the lowest draw; identical lowest cards cancel and the next
    lowest deals; if every card cancels, everyone draws again (dealer null)."""
    req = v.obj(request, "", required=("draws",))
    draws = _named(req["draws"], "draws")
    verify_player_count(len(draws), "draws")
    counter = v.CardCounter(DECKS)
    cards = {name: kvanta_card(raw, v.join("draws", name), counter) for name, raw in draws.items()}
    chosen, cancelled = cancel_ties({n: draw_order(c) for n, c in cards.items()}, highest=False)
    if chosen is None:
        reason = gettext("Every card cancelled out against an identical one: everyone draws again.")
    else:
        reason = gettext(
            "%(name)s drew the lowest card still standing, %(card)s.",
            name=chosen,
            card=cards[chosen],
        )
    return {"dealer": chosen, "cancelled": cancelled, "reason": reason}


# --- kvanta-trick -----------------------------------------------------------------------


def trick_strength(card: Card, trump: str) -> tuple[bool, int]:
    """Any trump beats any other card; otherwise the rank alone counts (suit does not)."""
    return card.suit == trump, card.rank


def trick(request: dict) -> dict:
    """K-D1: the best cards that tie (same rank; among trumps, identical cards) cancel
    and the next best wins; if every card cancels the trick is dead."""
    req = v.obj(request, "", required=("trump", "plays"))
    trump = v.suit(req["trump"], "trump")
    plays = _named(req["plays"], "plays")
    verify_player_count(len(plays), "plays")
    counter = v.CardCounter(DECKS)
    cards = {name: kvanta_card(raw, v.join("plays", name), counter) for name, raw in plays.items()}
    winner, cancelled = cancel_ties({n: trick_strength(c, trump) for n, c in cards.items()})
    return {"winner": winner, "dead": winner is None, "cancelled": cancelled}


# --- kvanta-flux ------------------------------------------------------------------------


def can_flux_call(new_sum: int, target: int) -> bool:
    """After a Flux the player calls at once only when the new cards hit the target."""
    return new_sum == target


def flux(request: dict) -> dict:
    """A 6 on the exchange die: +5 to the roller alone (K-D2: nobody else exchanges)."""
    req = v.obj(request, "", required=("players", "player"), optional=("target", "new_hand"))
    players = _players(req["players"])
    player = v.player(req["player"], "player", players)
    target = _target(req["target"]) if "target" in req else None
    result: dict = {"points": {player: FLUX_POINTS}, "flux_call": False}
    if "new_hand" in req:
        if target is None:
            raise RuleError("Give the target too: the new hand is checked against it.", "target")
        new_sum = hand_sum(kvanta_cards(req["new_hand"], "new_hand", v.CardCounter(DECKS)))
        result["sum"] = new_sum
        result["flux_call"] = can_flux_call(new_sum, target)
    return result


# --- kvanta-hand ------------------------------------------------------------------------


def still_tied_after_tests(declared: list[str], seats: Mapping[str, Seat]) -> list[str]:
    """Several Hands: fewer black cards wins, then fewer J/Q/K. A player known only
    by a sum cannot be tested, so then nobody is eliminated."""
    if len(declared) < 2 or any(seats[n].cards is None for n in declared):
        return list(declared)
    for count in (black_cards, face_cards):
        least = min(count(seats[n].cards) for n in declared)
        declared = [n for n in declared if count(seats[n].cards) == least]
    return declared


def verify_draw_winner(name: str, tied: list[str]) -> None:
    if name not in tied:
        if not tied:
            why = Text("no tie-break draw was needed")
        else:
            why = Text("only %(names)s drew for the tie-break", names=", ".join(tied))
        raise RuleError(
            "%(name)s cannot have won the tie-break draw: %(why)s.",
            "draw_winner",
            name=name,
            why=why,
        )


def hand(request: dict) -> dict:
    """Hand: right after the roll, a player whose sum equals the target scores +15."""
    req = v.obj(request, "", required=("target",), optional=("hands", "sums", "draw_winner"))
    target = _target(req["target"])
    seats = _seats(req, v.CardCounter(DECKS))
    declared = [n for n, seat in seats.items() if seat.sum == target]
    tied = still_tied_after_tests(declared, seats)
    winner = None
    if len(tied) == 1:
        winner, tied = tied[0], []
    if "draw_winner" in req:
        drawn = v.player(req["draw_winner"], "draw_winner", seats)
        verify_draw_winner(drawn, tied)
        winner, tied = drawn, []
    return {
        "sums": {n: seat.sum for n, seat in seats.items()},
        "hand": winner,
        "tied": tied,
        "declared": declared,
        "points": {winner: HAND_POINTS} if winner else {},
    }


# --- kvanta-call ------------------------------------------------------------------------


def verify_flux_call(
    caller: str | None, sums: Mapping[str, int], target: int, is_flux: bool
) -> None:
    """``flux: true`` needs a caller whose cards hit the target exactly."""
    if not is_flux:
        return
    if caller is None:
        raise RuleError("The end-of-game comparison has no caller, so it is no Flux call.", "flux")
    if not can_flux_call(sums[caller], target):
        raise RuleError(
            "A Flux call is made only when the new cards' sum equals the target.", "flux"
        )


def call_winners(caller: str | None, distances: Mapping[str, int]) -> tuple[list[str], bool]:
    """Who wins the settlement, and whether it is an undercut.

    K-D6 (no caller): the smallest distance wins. With a caller: a non-caller strictly
    closer undercuts (K-D3: all who share that distance win); a tie keeps the caller's round.
    """
    if caller is None:
        best = min(distances.values())
        return [n for n, d in distances.items() if d == best], False
    others = {n: d for n, d in distances.items() if n != caller}
    best = min(others.values())
    if best < distances[caller]:
        return [n for n, d in others.items() if d == best], True
    return [caller], False


def settle(
    distances: Mapping[str, int], sums: Mapping[str, int], winners: list[str]
) -> dict[str, int]:
    """Payments: every non-winner pays each winner the difference of distances;
    Zilch (a sum of exactly 21) pays double. Winners don't pay each other."""
    points = dict.fromkeys(distances, 0)
    for payer, distance in distances.items():
        if payer in winners:
            continue
        factor = 2 if sums[payer] == ZILCH_SUM else 1
        for winner in winners:
            paid = (distance - distances[winner]) * factor
            points[payer] -= paid
            points[winner] += paid
    return points


def call(request: dict) -> dict:
    """The call settlement (or, with ``caller: null``, the K-D6 end-of-game comparison)."""
    req = v.obj(request, "", required=("target", "caller"), optional=("hands", "sums", "flux"))
    target = _target(req["target"])
    seats = _seats(req, v.CardCounter(DECKS))
    caller = None if req["caller"] is None else v.player(req["caller"], "caller", seats)
    is_flux = v.boolean(req.get("flux", False), "flux")
    sums = {n: seat.sum for n, seat in seats.items()}
    distances = {n: abs(s - target) for n, s in sums.items()}
    verify_flux_call(caller, sums, target, is_flux)

    winners, undercut = call_winners(caller, distances)
    points = settle(distances, sums, winners)
    bulls_eyes = caller is not None and distances[caller] == 0
    if undercut:
        for name in winners:
            points[name] += UNDERCUT_BONUS
    elif bulls_eyes:  # no undercut is possible then
        points[caller] += FLUX_BULLS_EYES_BONUS if is_flux else BULLS_EYES_BONUS
    return {
        "sums": sums,
        "distances": distances,
        "winners": winners,
        "bulls_eyes": bulls_eyes,
        "undercut": undercut,
        "zilch": [n for n in seats if n not in winners and sums[n] == ZILCH_SUM],
        "points": points,
    }


# --- kvanta-poker -----------------------------------------------------------------------


def poker_prize(
    prize_card: Card, winner: str, values: Mapping[str, int], totals: Mapping[str, int] | None
) -> int:
    """The poker prize by the turned card's rank.

    2-10 face value; A 1 (K-D5); J and Q from the gap between the highest hand value
    and the winner's, rounded up (5 and 2 when the winner's is the highest); K just
    enough to draw level with the leader's total (0 for a leader).
    """
    rank = prize_card.rank
    if rank == ACE:
        return 1
    if rank <= 10:
        return rank
    if rank == KING:
        return max(totals.values()) - totals[winner]
    gap = max(values.values()) - values[winner]
    divisor, top_prize = (4, 5) if rank == JACK else (2, 2)
    return top_prize if gap == 0 else -(-gap // divisor)


def verify_prize_totals(prize_card: Card, totals: Mapping[str, int] | None) -> None:
    """A king prize is counted from the totals after the call settlement."""
    if prize_card.rank == KING and totals is None:
        raise RuleError("A king prize needs every player's total (totals).", "totals")


def _totals(value: object, names: list[str]) -> dict[str, int]:
    raw = v.player_keys(value, "totals", names)
    for name in names:
        if name not in raw:
            raise RuleError(
                "The total of %(name)s is missing; give every player's total.", "totals", name=name
            )
    return {n: v.integer(raw[n], v.join("totals", n), -TOTAL_LIMIT, TOTAL_LIMIT) for n in names}


def larger_prize_choice(
    prize_card: Card, winner: str, best: Mapping[str, BestHand], options: list[BestHand]
) -> BestHand:
    """K-D8 (revised): of the winner's equally strong fives (smallest value first), the
    one that gives him the larger J or Q prize; on equal prizes the smaller value."""
    values = {n: b.value for n, b in best.items()}

    def prize_with(option: BestHand) -> int:
        return poker_prize(prize_card, winner, {**values, winner: option.value}, None)

    return max(options, key=lambda option: (prize_with(option), -option.value))


def poker(request: dict) -> dict:
    """The poker phase: each keeps the best 5 of 7 (K-D8); equal best hands cancel (K-D4)."""
    req = v.obj(request, "", required=("prize_card", "hands"), optional=("totals",))
    counter = v.CardCounter(DECKS)
    prize_card = kvanta_card(req["prize_card"], "prize_card", counter)
    raw_hands = _named(req["hands"], "hands")
    verify_player_count(len(raw_hands), "hands")
    names = list(raw_hands)
    choices = {
        name: best_hands(kvanta_cards(raw, v.join("hands", name), counter, POKER_SIZES))
        for name, raw in raw_hands.items()
    }
    totals = _totals(req["totals"], names) if "totals" in req else None
    verify_prize_totals(prize_card, totals)

    # K-D8: everyone keeps the smaller value of equally strong fives ...
    best = {n: options[0] for n, options in choices.items()}
    winner, cancelled = cancel_ties({n: b.key for n, b in best.items()})
    if winner and prize_card.rank in (JACK, QUEEN):
        # ... but the winner of a J or Q prize keeps the five giving the larger prize
        best[winner] = larger_prize_choice(prize_card, winner, best, choices[winner])
    values = {n: b.value for n, b in best.items()}
    prize = poker_prize(prize_card, winner, values, totals) if winner else 0
    points = dict.fromkeys(names, 0)
    if winner:
        points[winner] = prize
    return {
        "hands": {
            n: {"category": b.category, "best": [str(c) for c in b.cards], "value": b.value}
            for n, b in best.items()
        },
        "values": values,
        "winner": winner,
        "cancelled": cancelled,
        "prize": prize,
        "points": points,
    }


KINDS = {
    "kvanta-dealer": dealer,
    "kvanta-hand": hand,
    "kvanta-trick": trick,
    "kvanta-flux": flux,
    "kvanta-call": call,
    "kvanta-poker": poker,
}

__all__ = [
    "KINDS",
    "game_winner",
    "hand_sum",
    "signed_sum",
    "call",
    "dealer",
    "flux",
    "hand",
    "poker",
    "trick",
]


# ---------------------------------------------------------------- the game's record


def game_result(players, totals, deals, ended, settings) -> dict:
    """K-D7: when the burned cards are reached the highest total wins; equal top
    totals cancel and the next highest wins, repeatedly; all cancel: a draw."""
    rank = results.ranks(players, lambda p: -totals[p])
    if not ended:
        reason = Text("the game ends at the burned cards")
        return results.answer(False, [], [], rank, reason, players)
    winner = game_winner(totals)
    if winner is None:
        return results.answer(True, [], [], rank, Text("every total cancels: a draw"), players)
    if rank[winner] == 1:
        return results.answer(True, [winner], [], rank, Text("highest total"), players)
    reason = Text("the higher totals cancel: the highest total standing alone")
    return results.answer(True, [winner], [], rank, reason, players)


def _standing_message(result: dict, totals: dict, settings: dict, progress: Progress) -> str:
    if not result["finished"]:
        return gettext("The game ends when the burned cards are reached.")
    if result["winners"]:
        winner = result["winners"][0]
        return gettext(
            "%(name)s wins with %(total)s (K-D7).", name=winner, total=points(totals[winner])
        )
    return gettext("Every top total cancels out: the game is a draw (K-D7).")


def _next_dealer(players: list[str], progress: Progress) -> str | None:
    if progress.drawn_dealer in players:
        # K-D10: the deal passes to the left, the next seat clockwise
        start = players.index(progress.drawn_dealer)
        return players[(start + progress.deals_played) % len(players)]
    return None  # the first dealer comes from the draw


def _progress(settings: dict, latest) -> dict:
    drawn = latest(frozenset({"kvanta-dealer"}), lambda e: e["result"].get("dealer"))
    return {"drawn_dealer": drawn["result"]["dealer"] if drawn else None}


# ---------------------------------------------------------------- the history's lines


def _sums_text(result: dict, seat_names: list[str]) -> str:
    """The players' sums in seat order (a call's are stored as they were entered)."""
    distances = as_dict(result.get("distances"))
    sums = as_dict(result.get("sums"))
    seated = [n for n in seat_names if n in sums] + [n for n in sums if n not in seat_names]
    parts = []
    for name in seated:
        total = sums[name]
        off = distances.get(name)
        part = f"{name} {points(total)}"
        if off:
            # Translators: after a player's sum in a Kvanta round: how far it is from the target
            part += " " + gettext("(off by %(n)s)", n=off)
        parts.append(part)
    return ", ".join(parts)


def call_breakdown(request: dict, result: dict, seat_names: list[str]) -> list[str]:
    caller = request.get("caller")
    head = gettext("Target %(t)s", t=request.get("target"))
    if caller:
        head += " · " + gettext("%(name)s called", name=caller)
        if request.get("flux"):
            head += " " + gettext("(flux)")
    else:
        head += " · " + gettext("end-of-game comparison")
    lines = [head]
    sums = _sums_text(result, seat_names)
    if sums:
        lines.append(gettext("Sums: %(sums)s", sums=sums))
    winners = as_list(result.get("winners"))
    if winners:
        verdict = gettext("Closest: %(names)s", names=", ".join(map(str, winners)))
        if result.get("bulls_eyes"):
            verdict += " · " + gettext("bull's-eye")
        if result.get("undercut"):
            verdict += " · " + gettext("the caller was undercut")
        lines.append(verdict)
    zilch = as_list(result.get("zilch"))
    if zilch:  # RULES §3 Zilch: what else leaves a doubled payment unexplained
        lines.append(
            gettext(
                "Zilch (a sum of %(sum)s pays double): %(names)s",
                sum=ZILCH_SUM,
                names=", ".join(map(str, zilch)),
            )
        )
    return lines


def hand_breakdown(request: dict, result: dict, seat_names: list[str]) -> list[str]:
    lines = [gettext("Target %(t)s", t=request.get("target"))]
    sums = _sums_text(result, seat_names)
    if sums:
        lines.append(gettext("Sums: %(sums)s", sums=sums))
    if result.get("hand"):
        lines.append(gettext("Hand won by %(name)s", name=result["hand"]))
    elif result.get("tied"):
        lines.append(gettext("Still tied: %(names)s", names=", ".join(map(str, result["tied"]))))
    return lines


def flux_breakdown(request: dict, result: dict, seat_names: list[str]) -> list[str]:
    line = gettext("Flux by %(name)s", name=request.get("player"))
    if request.get("new_hand"):
        line += f": {cards_text(request['new_hand'])}"
    if result.get("flux_call"):
        line += " · " + gettext("hits the target: calls at once")
    return [line]


def poker_breakdown(request: dict, result: dict, seat_names: list[str]) -> list[str]:
    lines = [gettext("Prize card %(card)s", card=card_symbol(request.get("prize_card")))]
    for name, hand in as_dict(result.get("hands")).items():
        hand = as_dict(hand)
        code = hand.get("category")
        category = gettext(CATEGORY_NAMES[code]) if code in CATEGORY_NAMES else ""
        lines.append(f"{name}: {category} {cards_text(hand.get('best'))}".rstrip())
    if result.get("winner"):
        lines.append(
            gettext(
                "%(name)s wins the prize: %(n)s",
                name=result["winner"],
                n=signed(result.get("prize")),
            )
        )
    else:
        lines.append(gettext("Nobody wins the prize."))
    return lines


GAME = catalog.Game(
    "kvanta",
    N_("Kvanta"),
    N_("Three decks and four dice"),
    (2, 3, 4, 5, 6),
    (),
    N_("Hit the dice target, call, and win the poker prize."),
    engines=KINDS,
    kinds=(
        catalog.Kind("kvanta-dealer", N_("Dealer draw"), deal=False),
        catalog.Kind(
            "kvanta-hand", N_("Hand"), breakdown="scorekeeper.games.kvanta:hand_breakdown"
        ),
        catalog.Kind(
            "kvanta-flux",
            N_("Flux"),
            breakdown="scorekeeper.games.kvanta:flux_breakdown",
            several=True,  # each trick's winner may roll a 6: a round has any number (RULES §3)
        ),
        catalog.Kind(
            "kvanta-call", N_("Call"), breakdown="scorekeeper.games.kvanta:call_breakdown"
        ),
        catalog.Kind(
            "kvanta-poker", N_("Poker prize"), breakdown="scorekeeper.games.kvanta:poker_breakdown"
        ),
    ),
    result=catalog.Result(game_result, _standing_message),
    dealer=_next_dealer,
    progress=_progress,
    players_end=True,
    rolls={
        "kvanta-target": "scorekeeper.dice:roll_kvanta_target",
        "kvanta-exchange": "scorekeeper.dice:roll_kvanta_exchange",
    },
    play_state="scorekeeper.games.play.kvanta:KvantaRound",
    rule_card="scorekeeper.rulecards:KVANTA",
    sheet="scorekeeper.printing:kvanta_sheet",
    filled_sheet="scorekeeper.printing:kvanta_filled_sheet",
    sheet_names_first_dealer=False,  # its sheet asks for the drawn dealer itself
)
