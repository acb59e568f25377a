"""Wyoming Cowboy (RULES.md §1): guns, marriages, the shooting referee and the
end-of-deal score.

Four kinds (CONTRACT "Wyoming Cowboy"): ``cowboy-gun``, ``cowboy-marriage``,
``cowboy-shot`` and ``cowboy-deal``. Every function here is pure; refused input
raises :class:`RuleError` with a sentence and the path of the offending field.

Legality follows the verify / can / do pattern: ``verify_marriage`` raises with
the reason, ``can_show_marriage`` says yes or no, ``marriage`` scores it.

>>> gun_kind([Card(3, "H"), Card(5, "H"), Card(7, "H")])[0]
'357-quick-draw'
>>> gun_kind([Card(4, "S"), Card(5, "H")])
(None, 'A 4 and a 5 make a 45 only when they are of one suit.')
>>> game_winner({"Ana": 510, "Bojan": 480})
'Ana'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .. import validate as v
from ..cards import ACE, JACK, KING, QUEEN, SUIT_NAMES, SUITS, Card
from ..errors import RuleError
from ..messages import N_, Plural, Text, gettext, ngettext, points, signed
from . import catalog, results
from .standings import Progress, names_text, win_text
from .wording import as_dict, as_list

MIN_PLAYERS, MAX_PLAYERS = 3, 4
TARGET = 500  # first to 500 wins (C-D9)
MARRIAGE_POINTS = 25

# ── guns ──────────────────────────────────────────────────────────────────────

GUN_22, GUN_38, GUN_357, GUN_357_QUICK_DRAW, GUN_45 = "22", "38", "357", "357-quick-draw", "45"
GUNS = (GUN_22, GUN_38, GUN_357, GUN_357_QUICK_DRAW, GUN_45)
GUN_NAMES = {
    GUN_22: "22",
    GUN_38: "38",
    GUN_357: "357",
    GUN_357_QUICK_DRAW: N_("357 Quick Draw"),  # shown translated (views.cowboy.gun_name)
    GUN_45: "45",
}
# only the 45 reaches protected cowboys (K held with the ace of its suit)
REACHES_PROTECTED = frozenset({GUN_45})


def _one_suit(cards: Sequence[Card]) -> bool:
    return len({c.suit for c in cards}) == 1


def gun_kind(cards: Sequence[Card]) -> tuple[str | None, str]:
    """The gun these cards make, or None, and a sentence saying why (RULES §1 "Guns")."""
    ranks = sorted(c.rank for c in cards)
    if ranks == [2, 2]:
        return GUN_22, gettext("Two 2s make a 22.")
    if ranks == [3, 8]:
        return GUN_38, gettext("A 3 and an 8 make a 38.")
    if ranks == [3, 5, 7]:
        if _one_suit(cards):
            return GUN_357_QUICK_DRAW, gettext("A 3, 5 and 7 of one suit make a 357 Quick Draw.")
        return GUN_357, gettext("A 3, 5 and 7 make a 357.")
    if ranks == [4, 5]:
        if _one_suit(cards):
            return GUN_45, gettext("A 4 and a 5 of one suit make a 45.")
        return None, gettext("A 4 and a 5 make a 45 only when they are of one suit.")
    if not cards:
        return None, gettext(
            "Guns are two 2s, a 3 and an 8, a 3-5-7, or a 4 and a 5 of one suit; "
            "no cards were given."
        )
    shown = " ".join(str(c) for c in _sorted(cards))
    # Translators: %(cards)s are card codes (KH 5S)
    return None, ngettext(
        "Guns are two 2s, a 3 and an 8, a 3-5-7, or a 4 and a 5 of one suit; "
        "%(cards)s is none of them.",
        "Guns are two 2s, a 3 and an 8, a 3-5-7, or a 4 and a 5 of one suit; "
        "%(cards)s are none of them.",
        len(cards),
        cards=shown,
    )


# ── item codes of the end-of-deal score ─────────────────────────────────────────

# in the order a deal's items are listed; points per unit
ITEM_POINTS = {
    "marriage_shown": 25,
    "ended": 30,
    "tens_laid": 10,
    "orphanage": 80,
    "harem": 100,
    "family": 120,
    "gang": 150,
    "posse": 200,
    "stalling_ten": -30,
    "stalling_22": -30,
    "six": -20,
    "harlot": -25,
    "illegal_marriage": -50,
    "curse": -100,
}
ITEM_CODES = tuple(ITEM_POINTS)

_ITEM_LABELS = {
    "marriage_shown": N_("Marriage shown (K+Q of one suit)"),
    "ended": N_("Ended the deal"),
    "tens_laid": N_("10 laid out"),
    "orphanage": N_("Orphanage (all four jacks)"),
    "harem": N_("Harem (all four queens)"),
    "family": N_("Family (A K Q J of one suit)"),
    "gang": N_("Gang (all four kings)"),
    "posse": N_("Posse (all four kings and all four aces)"),
    "stalling_ten": N_("Stalling: a 10 still held"),
    "stalling_22": N_("Stalling: a 22 held"),
    "six": N_("Six held"),
    "harlot": N_("Harlot (a queen held)"),
    "illegal_marriage": N_("Illegal marriage (K+Q of one suit held)"),
    "curse": N_("Curse (three sixes)"),
}


def item_label(code: str) -> str:
    """The English label of an item code, e.g. ``"Family (A K Q J of one suit)"``."""
    try:
        return _ITEM_LABELS[code]
    except (KeyError, TypeError):
        raise ValueError(f"{code!r} is not a Wyoming Cowboy item code.") from None


HOUSE_RULES = {"marriage_and_harlot": True, "curse_replaces_sixes": True}  # C-D7, C-D8


# ── the game's end (C-D9) ───────────────────────────────────────────────────────


def game_winner(totals: Mapping[str, int], target: int = TARGET) -> str | None:
    """Who has won once the deal's points are added (C-D9).

    None while nobody has reached ``target``, or while the highest total is
    shared — then another deal is played.

    >>> game_winner({"Ana": 520, "Bojan": 540, "Ceca": 100})
    'Bojan'
    >>> game_winner({"Ana": 520, "Bojan": 520}) is None
    True
    >>> game_winner({"Ana": 499}) is None
    True
    """
    if not totals:
        return None
    best = max(totals.values())
    if best < target:
        return None
    leaders = [name for name, total in totals.items() if total == best]
    return leaders[0] if len(leaders) == 1 else None


# ── request helpers ─────────────────────────────────────────────────────────────


def _sorted(cards: Iterable[Card]) -> list[Card]:
    """Canonical order for answers: by suit (S H D C), then rank."""
    return sorted(cards, key=lambda c: (SUITS.index(c.suit), c.rank))


def _card(value: object, path: str) -> Card:
    c = v.card(value, path)
    if c.is_joker:
        raise RuleError(
            "Vajoming Kauboj is played without jokers; %(card)s is not in its deck.", path, card=c
        )
    return c


def _cards(value: object, path: str) -> list[Card]:
    cards = v.cards(value, path)
    for i, c in enumerate(cards):
        if c.is_joker:  # the path is built only for a refusal
            _card(c, v.join(path, i))
    return cards


def _players(value: object) -> list[str]:
    return v.players(value, "players", MIN_PLAYERS, MAX_PLAYERS)


def _verify_aces_with_kings(held: Sequence[Card], path: str, who: str | Text) -> None:
    """An ace leaves the table only onto the king of its suit, and the pair always
    moves together (RULES §1 "Cowboys"): an ace without its king is impossible."""
    for i, c in enumerate(held):
        if c.rank == ACE and Card(KING, c.suit) not in held:
            raise RuleError(
                "%(who)s holds %(card)s without K%(suit)s; an ace is only ever held together with "
                "the king of its suit.",
                v.join(path, i),
                who=who,
                card=c,
                suit=c.suit,
            )


# ── cowboy-gun ──────────────────────────────────────────────────────────────────


def gun(request: dict) -> dict:
    """``cowboy-gun``: what gun do these cards make?"""
    req = v.obj(request, "", required=("cards",))
    cards = _cards(req["cards"], "cards")
    v.CardCounter().add_all(cards, "cards")
    kind, reason = gun_kind(cards)
    return {"gun": kind, "reason": reason}


# ── cowboy-marriage ─────────────────────────────────────────────────────────────


def _shown_marriages(value: object, path: str, players: Sequence[str]) -> list[tuple[str, str]]:
    """A list of ``{"player", "suit"}``; a suit shown twice is refused (C-D1)."""
    shown: list[tuple[str, str]] = []
    for i, item in enumerate(v.array(value, path)):
        at = v.join(path, i)
        entry = v.obj(item, at, required=("player", "suit"))
        who = v.player(entry["player"], v.join(at, "player"), players)
        suit = v.suit(entry["suit"], v.join(at, "suit"))
        verify_marriage(suit, [s for _, s in shown], v.join(at, "suit"))
        shown.append((who, suit))
    return shown


def can_show_marriage(suit: str, shown_suits: Iterable[str]) -> bool:
    """C-D1: a marriage of a given suit can be shown at most once per deal, by anyone."""
    return suit not in set(shown_suits)


def verify_marriage(suit: str, shown_suits: Iterable[str], path: str = "suit") -> None:
    if not can_show_marriage(suit, shown_suits):
        raise RuleError(
            "The K+Q of %(suit)s was already shown this deal; a marriage of one suit can be shown "
            "only once per deal (C-D1).",
            path,
            suit=Text(SUIT_NAMES[suit]),
        )


def marriage(request: dict) -> dict:
    """``cowboy-marriage``: +25 at once for showing a K+Q of one suit."""
    req = v.obj(request, "", required=("players", "player", "suit"), optional=("shown",))
    players = _players(req["players"])
    who = v.player(req["player"], "player", players)
    suit = v.suit(req["suit"], "suit")
    shown = _shown_marriages(req.get("shown", []), "shown", players)
    verify_marriage(suit, [s for _, s in shown])
    return {
        "points": {who: MARRIAGE_POINTS},
        "player": who,
        "suit": suit,
        # Translators: %(suit)s is a suit letter (S H D C), %(points)s the points
        "reason": gettext(
            "%(who)s shows the K+Q of %(suit)s: +%(points)s at once.",
            who=who,
            suit=suit,
            points=MARRIAGE_POINTS,
        ),
    }


# ── cowboy-shot: the referee ────────────────────────────────────────────────────


def referee(
    gun_cards: Sequence[Card],
    held: Sequence[Card],
    has_gun_drawn: bool,
    turned: Card | None = None,
    aces_on_table: Sequence[Card] | None = None,
    declines_ace: bool = False,
) -> dict:
    """Judge one shot (RULES §1 "Shooting"), the checks in the rules' order.

    ``held`` is the victim's hand plus captured kings and pairs, not drawn guns.
    ``declines_ace``: a dodging victim leaves the ace on the table (C-D11).
    Raises RuleError for a dodge whose ace ``aces_on_table`` does not list.
    """
    kind, gun_reason = gun_kind(gun_cards)
    answer: dict = {"gun": kind}
    if kind is None:
        return {**answer, "outcome": "not_allowed", "reason": gun_reason}
    if not has_gun_drawn:
        return {
            **answer,
            "outcome": "not_allowed",
            "reason": gettext(
                "Only a cowboy with a gun drawn can be shot at, and the victim has none."
            ),
        }

    hand = set(held)
    # 1. backfire: a 22 against a victim holding a six
    backfire = kind == GUN_22 and any(c.rank == 6 for c in hand)
    # 2. quick draw: the victim holds a one-suit 3-5-7
    quick_draw = any(all(Card(r, s) in hand for r in (3, 5, 7)) for s in SUITS)
    if backfire and quick_draw:  # C-D2
        return {
            **answer,
            "outcome": "choice",
            "options": ["backfire", "quick_draw"],
            "reason": gettext(
                "The victim holds a six against this 22 and a one-suit 3-5-7: he chooses "
                "a backfire or a quick draw (C-D2)."
            ),
        }
    if backfire:
        return {
            **answer,
            "outcome": "backfire",
            "reason": gettext(
                "A 22 against a victim holding a six backfires: he gives the attacker a six "
                "and the shot fails."
            ),
        }
    if quick_draw:
        return {
            **answer,
            "outcome": "quick_draw",
            "reason": gettext(
                "The victim lays a one-suit 3-5-7 as a drawn gun and takes the attacker's gun."
            ),
        }

    # 3. miss: no cowboy the gun can reach
    kings = _sorted(c for c in hand if c.rank == KING)
    protected = [k for k in kings if Card(ACE, k.suit) in hand]
    unprotected = [k for k in kings if Card(ACE, k.suit) not in hand]
    reaches_protected = kind in REACHES_PROTECTED
    if not unprotected and not (reaches_protected and protected):
        return {
            **answer,
            "outcome": "miss",
            "reason": gettext("The victim has no cowboy this gun can reach."),
        }

    # 4. a card is turned
    if turned is None:
        return {
            **answer,
            "outcome": "turn_card",
            "reason": gettext("The victim has a cowboy in reach: turn the top stock card."),
        }
    t = turned.suit
    prefix = ""
    if reaches_protected and protected:
        # the 45 checks protected cowboys first: hit when the suit is the turned one
        for k in protected:
            if k.suit == t:
                ace = Card(ACE, k.suit)
                return {
                    **answer,
                    "outcome": "hit",
                    "candidates": [[str(k), str(ace)]],
                    "victim_draws": 2,
                    "reason": gettext(
                        "The turned %(turned)s has the suit of the protected cowboy %(king)s: "
                        "%(king)s and %(ace)s go to the attacker and the victim may draw two "
                        "cards.",
                        turned=turned,
                        king=k,
                        ace=ace,
                    ),
                }
        if not unprotected:
            return {
                **answer,
                "outcome": "miss",
                "reason": gettext(
                    "No protected cowboy has the suit of the turned %(turned)s, and the "
                    "victim has no unprotected one: a miss.",
                    turned=turned,
                ),
            }
        # C-D12: the ricochet follows the unprotected-king rules below exactly
        prefix = gettext(
            "No protected cowboy has the suit of the turned %(turned)s, so the shot ricochets: ",
            turned=turned,
        )

    hits = [k for k in unprotected if k.suit != t]
    if hits:
        names = names_text([str(k) for k in hits])
        if len(hits) == 1:
            # Translators: %(kings)s are card codes (KS, or KS, KH and KD)
            text = gettext(
                "%(kings)s is of a different suit from the turned %(turned)s: it goes to the "
                "attacker and the victim may draw one card.",
                kings=names,
                turned=turned,
            )
        else:
            text = gettext(
                "%(kings)s are of a different suit from the turned %(turned)s: the victim picks "
                "the one that goes to the attacker (C-D3) and may draw one card.",
                kings=names,
                turned=turned,
            )
        return {
            **answer,
            "outcome": "hit",
            "candidates": [[str(k)] for k in hits],
            "victim_draws": 1,
            "reason": prefix + text,
        }

    # the only unprotected king has the turned suit: a dodge
    (king,) = unprotected
    ace = Card(ACE, king.suit)
    ends_deal = False
    if aces_on_table is not None:
        if ace not in aces_on_table:
            raise RuleError(
                "This shot is a dodge that takes %(ace)s from the table, but %(ace)s is not among "
                "the aces on the table.",
                "aces_on_table",
                ace=ace,
            )
        # C-D11: an ace the victim leaves on the table does not end the deal
        ends_deal = len(aces_on_table) == 1 and not declines_ace
    if declines_ace:
        return {
            **answer,
            "outcome": "dodge",
            "king": str(king),
            "ace": None,
            "ends_deal": False,
            "reason": prefix
            + gettext(
                "The only cowboy in reach, %(king)s, has the turned suit: it "
                "dodges; the victim leaves %(ace)s on the table.",
                king=king,
                ace=ace,
            ),
        }
    text = gettext(
        "%(king)s has the suit of the turned %(turned)s: a dodge. The victim takes %(ace)s from "
        "the table and %(king)s becomes a protected cowboy.",
        king=king,
        turned=turned,
        ace=ace,
    )
    if ends_deal:
        text += " " + gettext(
            "That was the last ace on the table: the deal ends, ended by the attacker."
        )
    return {
        **answer,
        "outcome": "dodge",
        "king": str(king),
        "ace": str(ace),
        "ends_deal": ends_deal,
        "reason": prefix + text,
    }


def shot(request: dict) -> dict:
    """``cowboy-shot``: the shooting referee."""
    req = v.obj(
        request,
        "",
        required=("gun", "victim"),
        optional=("turned", "aces_on_table", "declines_ace"),
    )
    gun_cards = _cards(req["gun"], "gun")
    victim = v.obj(req["victim"], "victim", required=("held", "has_gun_drawn"))
    held = _cards(victim["held"], "victim.held")
    has_gun_drawn = v.boolean(victim["has_gun_drawn"], "victim.has_gun_drawn")
    turned = _card(req["turned"], "turned") if "turned" in req else None
    if turned is not None and turned.rank == ACE:
        # C-D10: the aces lie on the table, never in the stock
        raise RuleError(
            "The turned card cannot be %(turned)s: the aces lie on the table, not in the stock "
            "(C-D10).",
            "turned",
            turned=turned,
        )
    declines_ace = v.boolean(req.get("declines_ace", False), "declines_ace")
    aces = None
    if "aces_on_table" in req:
        aces = _cards(req["aces_on_table"], "aces_on_table")
        for i, c in enumerate(aces):
            if c.rank != ACE:
                raise RuleError(
                    "Only aces lie on the table; %(card)s is not an ace.",
                    v.join("aces_on_table", i),
                    card=c,
                )

    counter = v.CardCounter()
    counter.add_all(gun_cards, "gun")
    counter.add_all(held, "victim.held")
    if turned is not None:
        counter.add(turned, "turned")
    if aces is not None:
        counter.add_all(aces, "aces_on_table")
    _verify_aces_with_kings(held, "victim.held", Text(N_("The victim")))
    return referee(gun_cards, held, has_gun_drawn, turned, aces, declines_ace)


# ── cowboy-deal ─────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Deal:
    """A checked end-of-deal request."""

    players: tuple[str, ...]
    end_by: str
    end_reason: str  # "tens" or "aces"
    held: dict[str, list[Card]]
    guns: dict[str, list[tuple[str, list[Card]]]]  # player → [(gun kind, cards)]
    tens: dict[str, list[Card]]
    shown: list[tuple[str, str]]  # (player, suit)
    marriage_and_harlot: bool = True  # C-D7
    curse_replaces_sixes: bool = True  # C-D8

    @property
    def tens_laid(self) -> int:
        return sum(len(t) for t in self.tens.values())

    @property
    def aces_held(self) -> int:
        return sum(1 for cards in self.held.values() for c in cards if c.rank == ACE)

    @property
    def a_22_drawn(self) -> bool:
        return any(kind == GUN_22 for guns in self.guns.values() for kind, _ in guns)


def parse_deal(request: dict) -> Deal:
    """Check a ``cowboy-deal`` request field by field and against RULES §1 "An entry
    is refused"; return the checked deal."""
    req = v.obj(
        request,
        "",
        required=("players", "end", "held"),
        optional=("guns", "tens", "shown_marriages", "house_rules"),
    )
    players = _players(req["players"])
    end = v.obj(req["end"], "end", required=("by", "reason"))
    end_by = v.player(end["by"], "end.by", players)
    reason = end["reason"]
    if reason not in ("tens", "aces"):
        raise RuleError("The end of a deal is either “tens” or “aces”.", "end.reason")

    raw_held = v.player_keys(req["held"], "held", players)
    held = {p: _cards(raw_held[p], v.join("held", p)) if p in raw_held else [] for p in players}

    raw_guns = v.player_keys(req.get("guns", {}), "guns", players)
    gun_cards: dict[str, list[list[Card]]] = {}
    for p in players:
        path = v.join("guns", p)
        items = v.array(raw_guns[p], path) if p in raw_guns else []
        gun_cards[p] = [_cards(g, v.join(path, i)) for i, g in enumerate(items)]

    raw_tens = v.player_keys(req.get("tens", {}), "tens", players)
    tens = {p: _cards(raw_tens[p], v.join("tens", p)) if p in raw_tens else [] for p in players}

    shown = _shown_marriages(req.get("shown_marriages", []), "shown_marriages", players)

    house = v.obj(req.get("house_rules", {}), "house_rules", optional=tuple(HOUSE_RULES))
    rules = {
        key: v.boolean(house[key], v.join("house_rules", key)) if key in house else default
        for key, default in HOUSE_RULES.items()
    }

    # laid 10s: only 10s, at most four
    for p in players:
        for i, c in enumerate(tens[p]):
            if c.rank != 10:
                raise RuleError(
                    "Only 10s are laid out; %(card)s is not a 10.",
                    v.join(v.join("tens", p), i),
                    card=c,
                )
    laid = sum(len(t) for t in tens.values())
    if laid > 4:
        raise RuleError("There are only four 10s, but %(laid)s are laid out.", "tens", laid=laid)

    # every card at most once
    counter = v.CardCounter()
    for p in players:
        counter.add_all(held[p], v.join("held", p))
    for p in players:
        for i, g in enumerate(gun_cards[p]):
            counter.add_all(g, v.join(v.join("guns", p), i))
    for p in players:
        counter.add_all(tens[p], v.join("tens", p))

    # drawn guns must be guns
    guns: dict[str, list[tuple[str, list[Card]]]] = {}
    for p in players:
        guns[p] = []
        for i, g in enumerate(gun_cards[p]):
            kind, why = gun_kind(g)
            if kind is None:
                shown_cards = " ".join(str(c) for c in g) or Text("an empty set")
                # Translators: %(cards)s are card codes (4S 5H) or "an empty set"
                raise RuleError(
                    "%(name)s's drawn gun %(cards)s is not a gun: %(why)s",
                    v.join(v.join("guns", p), i),
                    name=p,
                    cards=shown_cards,
                    why=why,
                )
            guns[p].append((kind, g))

    for p in players:
        _verify_aces_with_kings(held[p], v.join("held", p), p)

    deal = Deal(
        players=tuple(players),
        end_by=end_by,
        end_reason=reason,
        held=held,
        guns=guns,
        tens=tens,
        shown=shown,
        **rules,
    )
    verify_end(deal)
    return deal


def verify_end(deal: Deal) -> None:
    """The end the request names must be the one the cards show (RULES §1 "End of a deal")."""
    tens_out = deal.tens_laid == 4
    if deal.end_reason == "tens":
        if not tens_out:
            raise RuleError(
                Plural(
                    "A deal ends on tens only once all four 10s are laid out; %(num)d is.",
                    "A deal ends on tens only once all four 10s are laid out; %(num)d are.",
                    deal.tens_laid,
                ),
                "end.reason",
            )
        if not deal.a_22_drawn:
            raise RuleError(
                "A deal ends on tens only when someone has a 22 drawn, and nobody has.",
                "end.reason",
            )
        if deal.aces_held == 4:
            raise RuleError(
                "All four aces are held, so that deal ended on aces, not on tens.", "end.reason"
            )
    else:
        if deal.aces_held < 4:
            raise RuleError(
                Plural(
                    "A deal ends on aces only once all four aces have left the table; "
                    "%(num)d is held.",
                    "A deal ends on aces only once all four aces have left the table; "
                    "%(num)d are held.",
                    deal.aces_held,
                ),
                "end.reason",
            )
        if tens_out and deal.a_22_drawn:
            raise RuleError(
                "All four 10s are laid out and a 22 is drawn, so that deal ended on tens, "
                "not on aces.",
                "end.reason",
            )


# RULES §1 "Scoring": the ranks whose cards score at the end of a deal; a held card of
# any other rank is worth nothing, whoever holds it
SCORING_RANKS = (ACE, KING, QUEEN, JACK, 10, 6, 2)


def score_player(deal: Deal, player: str) -> list[dict]:
    """The items one player scores at the end of the deal, in ITEM_CODES order."""
    in_hand = deal.held[player]
    cards = set(in_hand) | {c for _, g in deal.guns[player] for c in g}
    ranks = Counter(c.rank for c in cards)

    def has(rank: int, suit: str) -> bool:
        return Card(rank, suit) in cards

    families = {s for s in SUITS if all(has(r, s) for r in (ACE, KING, QUEEN, JACK))}
    harem = ranks[QUEEN] == 4
    posse = ranks[KING] == 4 and ranks[ACE] == 4
    gang = ranks[KING] == 4 and not posse  # C-D4: Posse replaces Gang
    # C-D5: a K+Q inside a scored Family is no illegal marriage
    marriages = [s for s in SUITS if has(KING, s) and has(QUEEN, s) and s not in families]
    # C-D5: queens in a scored Harem or Family are no harlots;
    # C-D7: an illegal marriage's queen is a harlot only with the house rule on
    harlots = [
        s
        for s in SUITS
        if has(QUEEN, s)
        and not harem
        and s not in families
        and (deal.marriage_and_harlot or s not in marriages)
    ]
    sixes = ranks[6]
    curse = sixes >= 3
    six_count = sixes - 3 if curse and deal.curse_replaces_sixes else sixes  # C-D8
    # C-D6: a 22 held in hand (pairs of 2s among held, not drawn guns) costs only
    # when all four 10s are out and the deal ended on aces
    stalling_22 = 0
    if deal.end_reason == "aces" and deal.tens_laid == 4:
        stalling_22 = sum(1 for c in in_hand if c.rank == 2) // 2

    counts = {
        "marriage_shown": sum(1 for who, _ in deal.shown if who == player),
        "ended": int(player == deal.end_by),
        "tens_laid": len(deal.tens[player]),
        "orphanage": int(ranks[JACK] == 4),
        "harem": int(harem),
        "family": len(families),
        "gang": int(gang),
        "posse": int(posse),
        "stalling_ten": ranks[10],
        "stalling_22": stalling_22,
        "six": six_count,
        "harlot": len(harlots),
        "illegal_marriage": len(marriages),
        "curse": int(curse),
    }
    return [
        {"code": code, "count": counts[code], "points": counts[code] * ITEM_POINTS[code]}
        for code in ITEM_CODES
        if counts[code]
    ]


def score_deal(deal: Deal) -> dict:
    result = {}
    for p in deal.players:
        items = score_player(deal, p)
        result[p] = {"total": sum(item["points"] for item in items), "items": items}
    return {"players": result}


def end_of_deal(request: dict) -> dict:
    """``cowboy-deal``: score the end of a deal."""
    return score_deal(parse_deal(request))


KINDS = {
    "cowboy-gun": gun,
    "cowboy-marriage": marriage,
    "cowboy-deal": end_of_deal,
    "cowboy-shot": shot,
}


# ── the game's record ───────────────────────────────────────────────────────────

# the result's reason when the leaders are tied past the target: the screens word it
TIE_REASON = Text("tie for the highest total at the target: another deal")


def game_result(players, totals, deals, ended, settings) -> dict:
    """C-D9: once a total reaches the target, the single highest total wins; a tie
    for highest plays another deal. Stopped early: the highest total wins, shared."""
    target = settings["target"]
    rank = results.ranks(players, lambda p: -totals[p])
    top = max(totals.values())
    leaders = [p for p in players if totals[p] == top]
    if ended:
        return results.answer(
            True, leaders, [], rank, Text("highest total (the game was stopped)"), players
        )
    winner = game_winner(totals, target)
    if winner is not None:
        return results.answer(True, [winner], [], rank, Text("highest total"), players)
    if top >= target:
        reason = TIE_REASON
    else:
        reason = Text("nobody has reached %(target)s yet", target=target)
    return results.answer(False, [], [], rank, reason, players)


def _standing_message(result: dict, totals: dict, settings: dict, progress: Progress) -> str:
    target = int(settings.get("target", TARGET))
    winners = result["winners"]
    if len(winners) == 1:
        return gettext(
            "%(name)s wins with %(total)s (C-D9).",
            name=winners[0],
            total=points(totals[winners[0]]),
        )
    if winners:
        # Translators: %(winners)s is "Ana and Ben share the win"
        return gettext(
            "%(winners)s with %(total)s (C-D9).",
            winners=win_text(winners),
            total=points(totals[winners[0]]),
        )
    if result["reason"] == TIE_REASON:
        return gettext(
            "Tied for the lead at %(target)s or more: play another deal (C-D9).", target=target
        )
    if totals and max(totals.values()) >= target:  # by a marriage of the deal still open
        return gettext(
            "%(target)s reached during the deal: the game is decided when it ends (C-D9).",
            target=target,
        )
    return gettext("First to %(target)s wins; the deal passes to the right.", target=target)


def _progress(settings: dict, latest) -> dict:
    """The marriages of the deal still open (live marriage entries: a saved deal takes
    its own over): their points count in the totals at once but are provisional, since
    the game is decided after a deal (C-D9)."""
    provisional: dict[str, int] = {}

    def add(entry: dict) -> bool:
        for name, pts in entry["points"].items():
            provisional[name] = provisional.get(name, 0) + pts
        return False  # every one of them

    latest(frozenset({"cowboy-marriage"}), add)
    return {"provisional": provisional} if any(provisional.values()) else {}


def _next_dealer(players: list[str], progress: Progress) -> str:
    # the deal passes to the right, i.e. against the clockwise seating order
    n = len(players)
    return players[(progress.first_dealer % n - progress.deals_played) % n]


def _deal_points(result: dict) -> dict[str, int]:
    return {name: item["total"] for name, item in result.get("players", {}).items()}


# ---------------------------------------------------------------- the history's lines


def deal_breakdown(request: dict, result: dict, seat_names: list[str]) -> list[str]:
    lines = []
    for name, score in as_dict(result.get("players")).items():
        items = []
        for item in as_list(as_dict(score).get("items")):
            item = as_dict(item)
            try:
                label = gettext(item_label(item.get("code")))
            except ValueError:
                label = str(item.get("code"))
            count = item.get("count")
            times = f" ×{count}" if isinstance(count, int) and count > 1 else ""
            items.append(f"{label}{times} {signed(item.get('points'))}")
        total = as_dict(score).get("total")
        if items:
            lines.append(f"{name}: {'; '.join(items)} = {signed(total)}")
        else:
            lines.append(gettext("%(name)s: nothing scored", name=name))
    end = as_dict(request.get("end"))
    if end.get("by"):
        reason = (
            gettext("all four 10s out")
            if end.get("reason") == "tens"
            else gettext("all four aces out")
        )
        lines.insert(
            0, gettext("%(name)s ended the deal (%(reason)s).", name=end["by"], reason=reason)
        )
    return lines


GAME = catalog.Game(
    "cowboy",
    N_("Vajoming Kauboj"),
    N_("Wyoming Cowboy"),
    (3, 4),
    (
        catalog.Setting(
            "marriage_and_harlot",
            N_("Illegal marriage's queen is also a harlot"),
            "bool",
            True,
            decision="C-D7",
            house_rule=True,
            help=N_("A K+Q of one suit held at the end costs −75 instead of −50."),
        ),
        catalog.Setting(
            "curse_replaces_sixes",
            N_("The Curse replaces the sixes' −20"),
            "bool",
            True,
            decision="C-D8",
            house_rule=True,
            help=N_("Three sixes cost −100 in all (four −120); off: −160 (−180)."),
        ),
    ),
    N_("Shoot cowboys, lay tens, first to 500."),
    engines=KINDS,
    kinds=(
        catalog.Kind(
            "cowboy-deal",
            N_("Deal"),
            points=_deal_points,
            breakdown="scorekeeper.games.cowboy:deal_breakdown",
        ),
        catalog.Kind("cowboy-marriage", N_("Marriage shown"), deal=False, several=True),
    ),
    result=catalog.Result(
        game_result,
        _standing_message,
        {"target": catalog.ResultSetting(TARGET, results.whole(1, results.TOTAL_LIMIT))},
    ),
    dealer=_next_dealer,
    progress=_progress,
    play_state="scorekeeper.games.play.cowboy:CowboyDeal",
    rule_card="scorekeeper.rulecards:COWBOY",
    sheet="scorekeeper.printing:cowboy_sheet",
)
