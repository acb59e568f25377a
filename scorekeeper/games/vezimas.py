"""Vežimas (RULES §4): personal trumps, the beating referee and the cart of a deal.

Every player owns one trump suit for the whole session. A card on the shared pile is
answered by beating it; what beats it depends on whose trump its suit is (cases 1–3).
The last player still holding cards gets the *vežimas* (cart): fewest carts is best.

Kinds (CONTRACT "Vežimas"): ``vezimas-trumps``, ``vezimas-beat``, ``vezimas-deal``.
The helpers ``first_lead_after``, ``deal_size`` and ``session_standings`` serve the
screens. Pure: no I/O, deterministic; the only error raised is RuleError.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

from .. import validate as v
from ..cards import Card, piquet_deck
from ..errors import RuleError
from ..messages import N_, Text, gettext, ngettext
from . import catalog, results
from .standings import Progress, names_text, win_text

MIN_PLAYERS, MAX_PLAYERS = 2, 4
DECK = frozenset(piquet_deck())  # 9, 10, J, Q, K, A of each suit
MAX_HAND = len(DECK) - 1  # everything but the top card
# V-D1: the Q♣ holder takes clubs, the next players clockwise take ♠, ♥, ♦
TRUMP_ORDER = ("C", "S", "H", "D")
DEAL_SIZES = {2: 12, 3: 8, 4: 6}  # the whole deck is dealt
# V-D6, house rule ``tally``: count carts (V-D4), or give each deal's loser the next
# letter of the word; completing it loses the session
CART_TALLY, LETTER_TALLY = "carts", "letters"
TALLIES = (CART_TALLY, LETTER_TALLY)
WORD = "VEŽIMAS"


# --- seating -------------------------------------------------------------------------


def next_clockwise(players: Sequence[str], name: str, out: Iterable[str] = ()) -> str | None:
    """The next player after ``name`` clockwise who still holds cards (V-D3);
    None when nobody else does.

    >>> next_clockwise(["Ana", "Bojan", "Ceca"], "Ceca")
    'Ana'
    >>> next_clockwise(["Ana", "Bojan", "Ceca"], "Ana", out=["Bojan"])
    'Ceca'
    >>> next_clockwise(["Ana", "Bojan"], "Ana", out=["Bojan"]) is None
    True
    """
    gone = set(out)
    seat = players.index(name)
    for step in range(1, len(players)):
        candidate = players[(seat + step) % len(players)]
        if candidate not in gone:
            return candidate
    return None


def left_with_the_cart(players: Sequence[str], out: Iterable[str] = ()) -> str | None:
    """V-D3: once every other player is out, the one still holding cards gets the cart;
    None while two or more still hold some.

    >>> left_with_the_cart(["Ana", "Bojan", "Ceca"], out=["Ceca", "Ana"])
    'Bojan'
    >>> left_with_the_cart(["Ana", "Bojan", "Ceca"], out=["Ceca"]) is None
    True
    """
    gone = set(out)
    holding = [name for name in players if name not in gone]
    return holding[0] if len(holding) == 1 else None


def first_lead_after(players: Sequence[str], dealer: str) -> str:
    """V-D2: the player on the dealer's left leads, i.e. the next player clockwise
    (players are listed in clockwise seating order).

    >>> first_lead_after(["Kuba", "Milica", "Ceca"], "Ceca")
    'Kuba'
    """
    seating = list(players) if isinstance(players, list | tuple) else players
    players = v.players(seating, "players", MIN_PLAYERS, MAX_PLAYERS)
    dealer = v.player(dealer, "dealer", players)
    return next_clockwise(players, dealer)


def deal_size(n_players: int) -> int:
    """Cards each player gets: the 24 cards are all dealt (6, 8 or 12).

    >>> [deal_size(n) for n in (2, 3, 4)]
    [12, 8, 6]
    """
    count = v.integer(n_players, "players", MIN_PLAYERS, MAX_PLAYERS)
    return DEAL_SIZES[count]


# --- trumps --------------------------------------------------------------------------


def assign_trumps(players: Sequence[str], queen_of_clubs: str) -> dict[str, str]:
    """V-D1: clubs to the Q♣ holder, then ♠, ♥, ♦ to the next players clockwise.

    >>> assign_trumps(["Ola", "Asta", "Jonas"], "Asta")
    {'Asta': 'C', 'Jonas': 'S', 'Ola': 'H'}
    """
    seat = players.index(queen_of_clubs)
    count = len(players)
    return {players[(seat + i) % count]: TRUMP_ORDER[i] for i in range(count)}


def free_suits(trumps: Mapping[str, str], out: Iterable[str] = ()) -> list[str]:
    """Suits nobody still playing owns: unassigned ones (2–3 players) and those of
    players who are out. They are beaten as in case 3.

    >>> free_suits({"Ana": "C", "Bojan": "S"})
    ['H', 'D']
    >>> free_suits({"Ana": "C", "Bojan": "S", "Ceca": "H", "Dora": "D"}, out=["Ceca"])
    ['H']
    """
    gone = set(out)
    owned = {suit for name, suit in trumps.items() if name not in gone}
    return [suit for suit in TRUMP_ORDER if suit not in owned]


# --- beating -------------------------------------------------------------------------


class Situation(NamedTuple):
    """What a player answering the top card needs to know."""

    top: Card
    own_trump: str  # Tp
    next_player: str  # N: the next player still holding cards (V-D3)
    next_trump: str | None  # Tn; None if N owns no suit
    free_because_out: str | None = None  # owner of the top's suit if he is out


def beat_case(situation: Situation) -> int:
    """Which of the three beating cases applies (RULES §4 "Beating").

    >>> from scorekeeper.cards import parse_card
    >>> beat_case(Situation(parse_card("9S"), "C", "Rūta", "S"))
    2
    """
    suit = situation.top.suit
    if suit == situation.own_trump:
        return 1
    if suit == situation.next_trump:
        return 2
    return 3


def can_beat(situation: Situation, card: Card) -> bool:
    """True when ``card`` beats the top card.

    >>> from scorekeeper.cards import parse_card as c
    >>> here = Situation(c("10H"), "C", "Bojan", "S")
    >>> can_beat(here, c("JH")), can_beat(here, c("9C")), can_beat(here, c("AS"))
    (True, True, False)
    """
    top, own = situation.top, situation.own_trump
    case = beat_case(situation)
    if case == 1:  # only a higher card of one's own trump
        return card.suit == own and card.rank > top.rank
    if case == 2:  # the next player's trump: only one's own trump, any rank
        return card.suit == own
    return card.suit == own or (card.suit == top.suit and card.rank > top.rank)


def explain(situation: Situation, suit: Callable[[str], str] = str) -> str:
    """The rule that decides this answer, in a player's words. ``suit`` writes a suit:
    its letter in the JSON answers, its symbol on a screen (the sentence is translated,
    so the suits can't be found in it afterwards)."""
    top, own = situation.top, suit(situation.own_trump)
    case = beat_case(situation)
    if case == 1:
        # Translators: %(top)s is a card (QH), %(own)s a suit (♥)
        return gettext(
            "%(top)s is of your own trump: only a higher %(own)s beats it.", top=top, own=own
        )
    if case == 2:
        return gettext(
            "%(top)s is the trump of %(next)s, the next player: "
            "only one of your trumps (%(own)s) beats it.",
            top=top,
            next=situation.next_player,
            own=own,
        )
    # Translators: %(suit)s and %(own)s are suits (♠, ♥), %(top)s a card (QS)
    text = gettext(
        "A higher %(suit)s or any of your trumps (%(own)s) beats %(top)s.",
        suit=suit(top.suit),
        own=own,
        top=top,
    )
    if situation.free_because_out:  # V-D3: an out player's suit is free
        text += " " + gettext(
            "%(suit)s is free because %(name)s is out.",
            suit=suit(top.suit),
            name=situation.free_because_out,
        )
    return text


def verdict(situation: Situation, card: Card, suit: Callable[[str], str] = str) -> str:
    """One sentence: does it beat, and why (``suit`` as for :func:`explain`)."""
    why = explain(situation, suit)
    if can_beat(situation, card):
        # Translators: %(why)s is the sentence of the rule that decides it
        return gettext("%(card)s beats %(top)s. %(why)s", card=card, top=situation.top, why=why)
    return gettext("%(card)s does not beat %(top)s. %(why)s", card=card, top=situation.top, why=why)


def verify_beat(situation: Situation, card: Card) -> None:
    """Raise RuleError with the reason when ``card`` does not beat the top card."""
    if not can_beat(situation, card):
        raise RuleError(verdict(situation, card), "card")


def beaters(situation: Situation, hand: Iterable[Card]) -> list[Card]:
    """The cards of ``hand`` that beat the top card, in hand order."""
    return [card for card in hand if can_beat(situation, card)]


def next_to_answer(players: Sequence[str], out: Iterable[str], player: str) -> str:
    """The player after ``player`` still holding cards (V-D3); refuses a player who is
    out and a deal that is already over."""
    gone = set(out)
    if player in gone:
        raise RuleError(
            "%(player)s is out of this deal: a player with no cards cannot play.",
            "player",
            player=player,
        )
    nxt = next_clockwise(players, player, gone)
    if nxt is None:
        raise RuleError(
            "Only %(player)s still holds cards: the deal is over and %(player)s gets the cart.",
            "out",
            player=player,
        )
    return nxt


def situation_for(
    players: Sequence[str], trumps: Mapping[str, str], out: Iterable[str], player: str, top: Card
) -> Situation:
    """Build the situation of ``player`` answering ``top``; refuses a player who is
    out and a deal that is already over."""
    gone = set(out)
    nxt = next_to_answer(players, gone, player)
    owner = next((name for name, suit in trumps.items() if suit == top.suit), None)
    return Situation(
        top=top,
        own_trump=trumps[player],
        next_player=nxt,
        next_trump=trumps.get(nxt),
        free_because_out=owner if owner in gone else None,
    )


# --- standings -----------------------------------------------------------------------


def session_standings(carts: Mapping[str, int]) -> list[dict]:
    """V-D4: the session score is each player's count of carts; fewest is best.
    Players with equal counts share a place and keep the order given.

    >>> for row in session_standings({"Ana": 2, "Bojan": 0, "Ceca": 2}):
    ...     print(row)
    {'player': 'Bojan', 'carts': 0, 'place': 1}
    {'player': 'Ana', 'carts': 2, 'place': 2}
    {'player': 'Ceca', 'carts': 2, 'place': 2}
    """
    counts = v.mapping(carts, "carts")
    checked = []
    for name, count in counts.items():
        path = v.join("carts", str(name))
        checked.append((v.name(name, path), v.integer(count, path, 0, 1_000_000)))
    ordered = sorted(checked, key=lambda item: item[1])
    table: list[dict] = []
    for index, (name, count) in enumerate(ordered):
        tied = table and table[-1]["carts"] == count
        place = table[-1]["place"] if tied else index + 1
        table.append({"player": name, "carts": count, "place": place})
    return table


def letters(count: int) -> str:
    """V-D6: the letters of VEŽIMAS a player has taken, one per lost deal.

    >>> letters(3), letters(0), letters(9)
    ('VEŽ', '', 'VEŽIMAS')
    """
    return WORD[: max(0, min(count, len(WORD)))]


def completes_word(count: int) -> bool:
    """V-D6: a player with ``count`` letters holds the whole word: he loses the session,
    which ends (there is no next deal)."""
    return count >= len(WORD)


# --- request reading -----------------------------------------------------------------


def read_players(value: object) -> list[str]:
    return v.players(value, "players", MIN_PLAYERS, MAX_PLAYERS)


def read_card(value: object, path: str) -> Card:
    """A card of the 24-card deck (a 2♠ or a joker is refused)."""
    card = v.card(value, path)
    if card not in DECK:
        raise RuleError(
            "%(card)s is not in the Vežimas deck, which has only 9, 10, J, Q, K and A of each suit.",
            path,
            card=card,
        )
    return card


def read_trumps(value: object, players: list[str]) -> dict[str, str]:
    """Every player's personal suit, as V-D1 assigns them."""
    raw = v.player_keys(value, "trumps", players)
    trumps: dict[str, str] = {}
    owner_of: dict[str, str] = {}
    for name in players:
        path = v.join("trumps", name)
        if name not in raw:
            raise RuleError("%(name)s has no trump; every player owns one suit.", path, name=name)
        suit = v.suit(raw[name], path)
        if suit in owner_of:
            raise RuleError(
                "%(suit)s cannot be the trump of both %(owner)s and %(name)s.",
                path,
                suit=suit,
                owner=owner_of[suit],
                name=name,
            )
        owner_of[suit] = name
        trumps[name] = suit
    verify_trumps_follow_v_d1(trumps, owner_of.get("C"), players)
    return trumps


def verify_trumps_follow_v_d1(trumps: dict, clubs: str | None, players: list[str]) -> None:
    if clubs is None:
        raise RuleError("Nobody has clubs; the Q♣ holder of the first deal takes clubs.", "trumps")
    expected = assign_trumps(players, clubs)
    if trumps != expected:
        shown = ", ".join(f"{name} {suit}" for name, suit in expected.items())
        # Translators: %(clubs)s is a player; %(shown)s lists "name: suit"
        raise RuleError(
            "After %(clubs)s (clubs) the next players clockwise take S, H, D: %(shown)s.",
            "trumps",
            clubs=clubs,
            shown=shown,
        )


def read_out(value: object, players: list[str]) -> list[str]:
    items = v.array(value, "out", 0, len(players))
    out: list[str] = []
    for index, item in enumerate(items):
        path = v.join("out", index)
        name = v.player(item, path, players)
        if name in out:
            raise RuleError("%(name)s is listed twice in “out”.", path, name=name)
        out.append(name)
    return out


def read_hand(value: object, top: Card | None) -> list[Card]:
    """A player's cards: at least one (V-D5: a player not out holds a card)."""
    if isinstance(value, list) and not value:
        raise RuleError(
            "The hand is empty, but a player who is not out holds at least one card (V-D5).",
            "hand",
        )
    items = v.array(value, "hand", 1, MAX_HAND)
    counter = v.CardCounter()
    if top is not None:
        counter.add(top, "top")
    hand = []
    for index, item in enumerate(items):
        path = v.join("hand", index)
        card = read_card(item, path)
        counter.add(card, path)  # one deck: no repeats, and not the top card
        hand.append(card)
    return hand


# --- kinds ---------------------------------------------------------------------------


def trumps_kind(request: object) -> dict:
    """``vezimas-trumps``: personal trumps of the session and the first lead."""
    req = v.obj(request, "", required=("players", "queen_of_clubs"), optional=("nine_of_diamonds",))
    players = read_players(req["players"])
    queen = v.player(req["queen_of_clubs"], "queen_of_clubs", players)
    first_lead = read_first_lead(req, players, queen)
    trumps = assign_trumps(players, queen)
    return {"trumps": trumps, "free": free_suits(trumps), "first_lead": first_lead}


def read_first_lead(req: dict, players: list[str], queen: str) -> str:
    """With 4 players the Q♣ holder leads; with 2–3 the 9♦ holder, who must be named
    (and is refused with 4, where he plays no part)."""
    if len(players) == 4:
        if "nine_of_diamonds" in req:
            raise RuleError(
                "With 4 players the Q♣ holder leads; leave out “nine_of_diamonds”.",
                "nine_of_diamonds",
            )
        return queen
    if "nine_of_diamonds" not in req:
        raise RuleError(
            "With 2 or 3 players the 9♦ holder leads: name him in “nine_of_diamonds”.",
            "nine_of_diamonds",
        )
    return v.player(req["nine_of_diamonds"], "nine_of_diamonds", players)


def beat_kind(request: object) -> dict:
    """``vezimas-beat``: does this card beat the top card, or which cards of a hand do."""
    req = v.obj(
        request,
        "",
        required=("players", "trumps", "player", "top"),
        optional=("out", "card", "hand"),
    )
    if ("card" in req) == ("hand" in req):
        raise RuleError("Send either “card” or “hand”.", "")
    players = read_players(req["players"])
    trumps = read_trumps(req["trumps"], players)
    out = read_out(req.get("out", []), players)
    player = v.player(req["player"], "player", players)
    if req["top"] is None:
        return nothing_to_beat(req, players, out, player)
    top = read_card(req["top"], "top")
    situation = situation_for(players, trumps, out, player, top)
    answer = {"case": beat_case(situation), "next_player": situation.next_player}
    if "card" in req:
        card = read_card(req["card"], "card")
        if card == top:
            raise RuleError(
                "%(card)s is the top card itself; there is only one deck.", "card", card=card
            )
        return {"legal": can_beat(situation, card), **answer, "reason": verdict(situation, card)}
    hand = read_hand(req["hand"], top)
    found = [str(card) for card in beaters(situation, hand)]
    return {"beaters": found, **answer, "reason": explain(situation)}


NOTHING_TO_BEAT = N_(
    "Nothing to beat: the previous player went out with a beat, so any card may be laid."
)


def nothing_to_beat(req: dict, players: list[str], out: list[str], player: str) -> dict:
    """V-D5: after a player goes out with a beat the next one lays any card (case 0)."""
    answer = {"case": 0, "next_player": next_to_answer(players, out, player)}
    if "card" in req:
        card = read_card(req["card"], "card")
        return {
            "legal": True,
            **answer,
            "reason": gettext(
                "%(card)s may be laid. %(why)s", card=card, why=Text(NOTHING_TO_BEAT)
            ),
        }
    hand = read_hand(req["hand"], None)
    return {"beaters": [str(card) for card in hand], **answer, "reason": gettext(NOTHING_TO_BEAT)}


def deal_kind(request: object) -> dict:
    """``vezimas-deal``: the loser gets a cart and deals next (V-D2, V-D4)."""
    req = v.obj(request, "", required=("players", "loser"))
    players = read_players(req["players"])
    loser = v.player(req["loser"], "loser", players)
    return {
        "points": {loser: 1},
        "next_dealer": loser,
        "first_lead": first_lead_after(players, loser),
    }


KINDS = {
    "vezimas-trumps": trumps_kind,
    "vezimas-beat": beat_kind,
    "vezimas-deal": deal_kind,
}


# --- the game's record ---------------------------------------------------------------

# the result's reason when a player completes the word (the standings word it)
WORD_COMPLETED = N_("%(name)s completed the word %(word)s: fewest letters win")


def game_result(players, totals, deals, ended, settings) -> dict:
    """V-D4: with carts the session ends when the players say so; V-D6: with letters
    it ends when a player completes VEŽIMAS, who loses. Fewest win, most lose; all
    equal: nobody wins or loses."""
    tally = settings["tally"]
    rank = results.ranks(players, totals.__getitem__)
    complete = [p for p in players if totals[p] == len(WORD)]
    if tally == LETTER_TALLY and complete:
        others = [p for p in players if p not in complete]
        fewest = min(totals[p] for p in others)
        winners = [p for p in others if totals[p] == fewest]
        reason = Text(WORD_COMPLETED, name=complete[0], word=WORD)
        return results.answer(True, winners, complete, rank, reason, players)
    if not ended:
        if tally == LETTER_TALLY:
            reason = Text("the session ends when a player completes %(word)s", word=WORD)
        else:
            reason = Text("the session ends when the players stop")
        return results.answer(False, [], [], rank, reason, players)
    fewest, most = min(totals.values()), max(totals.values())
    if fewest == most:
        reason = Text("all equal: nobody wins or loses")
        return results.answer(True, [], [], rank, reason, players)
    winners = [p for p in players if totals[p] == fewest]
    losers = [p for p in players if totals[p] == most]
    reason = Text("fewest letters") if tally == LETTER_TALLY else Text("fewest carts")
    return results.answer(True, winners, losers, rank, reason, players)


def _total_bounds(settings: dict) -> tuple[int, int]:
    if settings["tally"] == LETTER_TALLY:
        return 0, len(WORD)  # V-D6: a player holds 0 to 7 letters of VEŽIMAS
    return 0, results.TOTAL_LIMIT  # V-D4: carts


def _check_totals(totals: dict, players: list[str], settings: dict) -> None:
    if settings["tally"] == LETTER_TALLY:
        complete = [p for p in players if totals[p] == len(WORD)]
        if len(complete) > 1:
            raise RuleError(
                "Only one player can complete %(word)s: the session ends when the first "
                "does (V-D6).",
                v.join("totals", complete[1]),
                word=WORD,
            )


def _pad_totals(totals: dict, settings: dict) -> dict:
    if settings.get("tally") == LETTER_TALLY:
        # a score-pad round could give more letters than the word has
        return {p: max(0, min(t, len(WORD))) for p, t in totals.items()}
    return totals


def _standing_view(result: dict, totals: dict, settings: dict, players: list[str]) -> dict:
    if settings.get("tally") == LETTER_TALLY:
        shown = {p: letters(totals[p]) or "–" for p in players}
        return {"lower_is_better": True, "shown": shown, "word": WORD}
    return {"lower_is_better": True}


def _standing_message(result: dict, totals: dict, settings: dict, progress: Progress) -> str:
    winners, losers = result["winners"], result["losers"]
    if settings.get("tally") == LETTER_TALLY:
        if not result["finished"]:
            return gettext(
                "Each deal's loser takes the next letter of %(word)s; completing it loses (V-D6).",
                word=WORD,
            )
        if getattr(result["reason"], "msgid", None) == WORD_COMPLETED:
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
                + gettext("%(winners)s with the fewest letters.", winners=win_text(winners))
            )
        if not winners:
            return gettext("Everyone has as many letters: nobody wins or loses (V-D6).")
        text = gettext("%(winners)s with the fewest letters (V-D6).", winners=win_text(winners))
    else:
        if not result["finished"]:
            return gettext("Fewest carts wins; end the session when you stop.")
        if not winners:
            return gettext("Everyone has as many carts: nobody wins or loses (V-D4).")
        text = gettext("%(winners)s with the fewest carts (V-D4).", winners=win_text(winners))
    if losers:
        text += " " + ngettext(
            "%(names)s has the most.",
            "%(names)s have the most.",
            len(losers),
            names=names_text(losers),
        )
    return text


def _next_dealer(players: list[str], progress: Progress) -> str:
    # V-D2: the previous loser deals
    if progress.last_loser in players:
        return progress.last_loser
    return players[progress.first_dealer % len(players)]


def _carts(entry: dict) -> list[str]:
    return [name for name, pts in entry["points"].items() if pts > 0]


def _progress(settings: dict, latest) -> dict:
    # V-D2: the latest deal names who deals next; on the score pad a Vežimas round
    # gives the cart (1 point) to the loser
    said = latest(
        frozenset({"vezimas-deal", "manual-points"}),
        lambda e: e["kind"] == "vezimas-deal" or len(_carts(e)) == 1,
    )
    if said is None:
        return {}
    if said["kind"] == "vezimas-deal":
        return {"last_loser": said["result"].get("next_dealer")}
    return {"last_loser": _carts(said)[0]}


# ---------------------------------------------------------------- the history's lines


def deal_breakdown(request: dict, result: dict, seat_names: list[str]) -> list[str]:
    if not request.get("loser"):
        return []
    return [gettext("%(name)s is left with the cart (one point).", name=request["loser"])]


GAME = catalog.Game(
    "vezimas",
    N_("Vežimas"),
    N_("The Cart"),
    (2, 3, 4),
    (
        catalog.Setting(
            "tally",
            N_("What a lost deal gives"),
            "choice",
            CART_TALLY,
            options=(
                (CART_TALLY, N_("A cart (fewest carts wins)")),
                (LETTER_TALLY, N_("A letter of VEŽIMAS")),
            ),
            decision="V-D6",
            house_rule=True,
            help=N_(
                "Letters: each deal's loser takes the next letter of V-E-Ž-I-M-A-S; "
                "whoever completes the word loses and the session ends."
            ),
        ),
    ),
    N_("Beat the top card with your own trump; the last one holding cards gets the cart."),
    engines=KINDS,
    kinds=(
        catalog.Kind(
            "vezimas-deal",
            N_("Cart"),
            setting_labels=(("tally", LETTER_TALLY, N_("Letter")),),  # V-D6
            breakdown="scorekeeper.games.vezimas:deal_breakdown",
        ),
        catalog.Kind("vezimas-trumps", N_("Trumps"), deal=False),
    ),
    result=catalog.Result(
        game_result,
        _standing_message,
        {"tally": catalog.ResultSetting(CART_TALLY, results.one_of(TALLIES))},
        bounds=_total_bounds,
        check=_check_totals,
        pad_totals=_pad_totals,
        view=_standing_view,
    ),
    dealer=_next_dealer,
    progress=_progress,
    players_end=True,
    play_state="scorekeeper.games.play.vezimas:VezimasDeal",
    rule_card="scorekeeper.rulecards:VEZIMAS",
    sheet="scorekeeper.printing:vezimas_sheet",
)
