"""The Szaman table screen: a deal entered trick by trick (RULES §2, kind ``szaman-deal``).

A deal being entered is a server-side draft holding the list of taps made so far
(``{"mode": "full", "taps": [{"op": "card", "card": "2C"}, ...]}``). The current state
of the deal is the replay of those taps (``Deal.replay``), so "undo the last tap" is
dropping the last one, a reload or another phone sees exactly the same deal, and a tap
that the replay refuses is never stored. Every tap carries the draft version and the
round it belongs to: a retry or a tap from a stale screen is answered with the deal as
it stands, never applied twice.

Two ways to enter a trick, switchable at any time (the engine mixes them):

- **full**: who leads the first trick, then the card each player plays in turn (the
  previous winner leads the next trick; a led joker names its suit);
- **quick**: which specials were in the trick and who played off-suit (optional
  toggles), then one tap on the winner.

At the end of a classic deal each player's remaining cards (or "none") give the
penalty; a Russian deal has none. The deal is saved as one ``szaman-deal`` entry that
closes the draft. Scoring, winners, penalties and warnings all come from the engine
(``scorekeeper.games.szaman``); this module only keeps track of the taps.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from flask import Blueprint, request, url_for

from .. import api, store
from ..cards import RANKS, SUIT_SYMBOLS, Card, CardError
from ..errors import RuleError
from ..games import szaman as engine
from ..i18n import gettext as _
from ..i18n import ngettext
from ..summary import TableSummary, summarize
from . import screens
from .tables import (
    after_write,
    get_store,
    live_fragments,
    load,
    new_submission_id,
    render_board,
    see_other,
    table_url,
    wants_partial,
)

bp = Blueprint("szaman", __name__, url_prefix="/t/<key>/szaman")

KIND = engine.KIND
DRAFT = "szaman-deal"  # the draft's name; one deal is entered at a time
FULL, QUICK = "full", "quick"
MODES = (FULL, QUICK)
MAX_TAPS = 600  # far more than any deal needs; a runaway client stops here
LEAD_SUITS = ("C", "D", "H", "S")  # display order, as the first-lead order ♣ ♦ ♥ ♠
JOKERS = ("RJ", "BJ")
OPS = frozenset(
    ("mode", "lead", "card", "suit", "special", "off", "winner", "end", "held", "done", "edit")
)


class TapError(Exception):
    """A tap the deal refuses; the message is for the player. Nothing is stored."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def signed(points: int) -> str:
    """+5, −2, 0 (a real minus sign)."""
    if points > 0:
        return f"+{points}"
    return f"−{-points}" if points < 0 else "0"


def deck_cards() -> dict[str, list[str]]:
    """The 52 cards by suit, 2 up to A."""
    return {suit: [str(Card(rank, suit)) for rank in RANKS] for suit in LEAD_SUITS}


# ---------------------------------------------------------------- the deal as tapped


@dataclass
class Deal:
    """The replay of a draft's taps: the tricks so far and the one being entered."""

    names: list[str]
    variant: str
    mode: str = FULL
    start_mode: str = FULL
    taps: list[dict] = field(default_factory=list)
    tricks: list[dict] = field(default_factory=list)  # seats, not names: renames are safe
    first: int | None = None  # who leads the first trick (full mode)
    plays: list[list] = field(default_factory=list)  # [seat, card] of the trick being entered
    joker_suit: str | None = None
    specials: list[str] = field(default_factory=list)  # quick trick being entered
    off_suit: list[int] = field(default_factory=list)
    over: bool = False  # the deal has ended (a hand ran out, or the players said so)
    ended_early: bool = False
    held: dict[int, list[str]] = field(default_factory=dict)  # classic: cards left at the end
    done: dict[int, bool] = field(default_factory=dict)

    # -- replay

    @classmethod
    def replay(cls, names: list[str], variant: str, data: dict | None, mode: str = FULL) -> Deal:
        """The deal a stored draft describes. A tap that no longer fits (it cannot happen
        unless the draft was damaged) ends the replay there: the valid part is kept."""
        data = data if isinstance(data, dict) else {}
        start = data.get("mode") if data.get("mode") in MODES else mode
        deal = cls(list(names), variant, start, start)
        taps = data.get("taps")
        for tap in taps if isinstance(taps, list) else []:
            try:
                deal.apply(tap)
            except (TapError, RuleError):
                break
        return deal

    def draft(self) -> dict:
        """What the store keeps: the mode the deal started in and every tap since."""
        return {"mode": self.start_mode, "taps": self.taps}

    def apply(self, tap: object) -> None:
        if not isinstance(tap, dict) or tap.get("op") not in OPS:
            raise TapError(_("That is not something this screen can do."))
        if len(self.taps) >= MAX_TAPS:
            raise TapError(_("This deal has too many taps; save it or undo some."))
        getattr(self, "_" + tap["op"])(tap)
        self.taps.append(tap)

    # -- who is who

    @property
    def n(self) -> int:
        return len(self.names)

    def seat(self, tap: dict) -> int:
        value = tap.get("seat")
        try:
            seat = int(value)
        except (TypeError, ValueError):
            raise TapError(_("Choose a player.")) from None
        if not 0 <= seat < self.n:
            raise TapError(_("That player is not at this table."))
        return seat

    @property
    def leader(self) -> int | None:
        """Who leads the trick being entered: the previous winner, or the first leader."""
        if self.tricks:
            return self.tricks[-1]["winner"]
        return self.first

    @property
    def to_play(self) -> int | None:
        if self.leader is None:
            return None
        return (self.leader + len(self.plays)) % self.n

    @property
    def awaiting_suit(self) -> bool:
        return bool(self.plays) and self.plays[0][1] in JOKERS and self.joker_suit is None

    @property
    def ready(self) -> bool:
        """Everything is in: the deal can be saved."""
        if not self.over:
            return False
        return self.variant == engine.RUSSIAN or all(self.done.get(s) for s in range(self.n))

    # -- cards in the deal

    def used(self, skip_held_of: int | None = None, long: bool = False) -> dict[str, str]:
        """Card → where it is in this deal: the short reason the picker shows under a
        disabled card, or (``long``) the words a refusal uses."""
        where: dict[str, str] = {}
        for number, trick in enumerate(self.tricks, start=1):
            cards = [c for _s, c in trick.get("plays", ())]
            cards += [c for c in trick.get("specials", ()) if c != engine.WON_BY_JOKER]
            for card in cards:
                where[card] = _("trick %(n)d", n=number)
        current = [c for _s, c in self.plays] + [
            c for c in self.specials if c != engine.WON_BY_JOKER
        ]
        for card in current:
            where[card] = _("played in this trick") if long else _("played")
        for seat, cards in self.held.items():
            if seat != skip_held_of:
                name = self.names[seat]
                for card in cards:
                    where[card] = _("%(name)s holds it", name=name) if long else name
        return where

    def jokers_used(self) -> int:
        """Jokers named anywhere plus the unnamed ones that won quick tricks (one deck)."""
        named = sum(1 for card in self.used() if card in JOKERS)
        quick = sum(
            1
            for trick in [*self.tricks, {"specials": self.specials}]
            if engine.WON_BY_JOKER in trick.get("specials", ())
        )
        return named + quick

    def card(self, tap: dict, skip_held_of: int | None = None) -> str:
        try:
            card = str(engine.szaman_card(tap.get("card"), "card"))
        except (RuleError, CardError):
            raise TapError(_("Tap one of the cards.")) from None
        where = self.used(skip_held_of, long=True).get(card)
        if where:
            raise TapError(
                _("%(card)s is already in this deal (%(where)s).", card=symbol(card), where=where)
            )
        if card in JOKERS and self.jokers_used() >= len(JOKERS):
            raise TapError(_("Both jokers are already in this deal."))
        return card

    def hands(self) -> list[int]:
        """Cards each player should hold after the last trick: 8 dealt, one played per
        trick, plus the engine's draws (which stop before the last trick, S-D3)."""
        tricks = [engine.Trick(self.names[t["winner"]], (), ()) for t in self.tricks]
        counts = dict.fromkeys(self.names, engine.DEAL_SIZE - len(tricks))
        for drawers in engine.draws_after_tricks(self.names, tricks, self.variant):
            for name in drawers:
                counts[name] += 1
        return [counts[name] for name in self.names]

    # -- taps during the tricks

    def playing(self, mode: str | None = None) -> None:
        if self.over:
            raise TapError(_("The deal is over; undo the last tap to change a trick."))
        if mode is not None and self.mode != mode:
            raise TapError(
                _("Switch to full entry first.")
                if mode == FULL
                else _("Switch to quick entry first.")
            )

    def next_trick(self) -> None:
        self.plays, self.joker_suit, self.specials, self.off_suit = [], None, [], []
        counts = self.hands()
        empty = [c <= 0 for c in counts]
        if any(empty) if self.variant == engine.CLASSIC else all(empty):
            self.finish()

    def finish(self) -> None:
        self.over = True
        if self.variant == engine.CLASSIC:
            counts = self.hands()
            # a player whose hand ran out holds nothing: no question for them
            self.held = {s: [] for s in range(self.n)}
            self.done = {s: (counts[s] <= 0 and not self.ended_early) for s in range(self.n)}

    def _mode(self, tap: dict) -> None:
        self.playing()
        if tap.get("mode") not in MODES:
            raise TapError(_("Choose full or quick entry."))
        self.mode = tap["mode"]
        self.plays, self.joker_suit, self.specials, self.off_suit = [], None, [], []

    def _lead(self, tap: dict) -> None:
        self.playing(FULL)
        if self.tricks:
            raise TapError(
                _("%(name)s leads: they won the last trick.", name=self.names[self.leader])
            )
        if self.plays:
            raise TapError(_("The first trick has started; undo its cards to change who led."))
        self.first = self.seat(tap)

    def _card(self, tap: dict) -> None:
        self.playing(FULL)
        if self.leader is None:
            raise TapError(_("First tap who leads the first trick."))
        if self.awaiting_suit:
            raise TapError(_("First tap the suit the joker's player named."))
        card = self.card(tap)
        self.plays.append([self.to_play, card])
        if len(self.plays) == self.n:
            plays = [(self.names[s], c) for s, c in self.plays]
            winner = self.names.index(engine.trick_winner(plays, self.joker_suit))
            trick = {"plays": self.plays, "winner": winner}
            if self.joker_suit:
                trick["joker_suit"] = self.joker_suit
            self.tricks.append(trick)
            self.next_trick()

    def _suit(self, tap: dict) -> None:
        self.playing(FULL)
        if not self.awaiting_suit:
            raise TapError(_("A suit is named only when a joker leads."))
        suit = tap.get("suit")
        if suit not in SUIT_SYMBOLS:
            raise TapError(_("Choose a suit."))
        lead = Card.parse(self.plays[0][1])
        try:
            engine.verify_joker_suit(lead, suit, "joker_suit")
        except RuleError as exc:
            raise TapError(exc.message) from None
        self.joker_suit = suit

    def _special(self, tap: dict) -> None:
        self.playing(QUICK)
        name = tap.get("name")
        if name not in special_names(self.variant):
            raise TapError(_("That is not a special card in this variant."))
        on = flag(tap, name in self.specials)
        if on and name not in self.specials:
            if name == engine.WON_BY_JOKER:
                if self.jokers_used() >= len(JOKERS):
                    raise TapError(_("Both jokers are already in this deal."))
            else:
                self.card({"card": name})
            self.specials = [s for s in special_names(self.variant) if s in {*self.specials, name}]
        elif not on:
            self.specials = [s for s in self.specials if s != name]

    def _off(self, tap: dict) -> None:
        self.playing(QUICK)
        seat = self.seat(tap)
        on = flag(tap, seat in self.off_suit)
        chosen = {*self.off_suit, seat} if on else {*self.off_suit} - {seat}
        self.off_suit = [s for s in range(self.n) if s in chosen]

    def _winner(self, tap: dict) -> None:
        self.playing(QUICK)
        seat = self.seat(tap)
        self.tricks.append(
            {"winner": seat, "specials": list(self.specials), "off_suit": list(self.off_suit)}
        )
        self.next_trick()

    def _end(self, tap: dict) -> None:
        self.playing()
        if not self.tricks:
            raise TapError(_("Enter at least one trick first."))
        if self.plays:
            raise TapError(_("Finish or undo trick %(n)d first.", n=len(self.tricks) + 1))
        self.ended_early = True
        self.finish()

    # -- taps at the end of a classic deal

    def closing(self) -> None:
        if self.variant != engine.CLASSIC:
            raise TapError(_("A Russian deal ends with every hand empty: nothing to enter."))
        if not self.over:
            raise TapError(_("The deal is still being played."))

    def _held(self, tap: dict) -> None:
        self.closing()
        seat = self.seat(tap)
        try:
            card = str(engine.szaman_card(tap.get("card"), "card"))
        except (RuleError, CardError):
            raise TapError(_("Tap one of the cards.")) from None
        cards = self.held[seat]
        if flag(tap, card in cards):
            if card not in cards:
                cards.append(self.card({"card": card}, skip_held_of=seat))
                if len(cards) == self.hands()[seat]:
                    self.done[seat] = True  # all the cards this player should hold: next one
        else:
            self.held[seat] = [c for c in cards if c != card]

    def _done(self, tap: dict) -> None:
        self.closing()
        self.done[self.seat(tap)] = True

    def _edit(self, tap: dict) -> None:
        self.closing()
        self.done[self.seat(tap)] = False

    # -- the engine request

    def engine_trick(self, trick: dict) -> dict:
        if "plays" in trick:
            out = {"plays": [[self.names[s], c] for s, c in trick["plays"]]}
            if trick.get("joker_suit"):
                out["joker_suit"] = trick["joker_suit"]
            return out
        out = {"winner": self.names[trick["winner"]]}
        if trick["specials"]:
            out["specials"] = list(trick["specials"])
        if trick["off_suit"]:
            out["off_suit"] = [self.names[s] for s in trick["off_suit"]]
        return out

    def request(self) -> dict:
        """The ``szaman-deal`` request of the tricks so far (and the held cards once the
        deal is over; before that a classic preview says nobody holds anything)."""
        req = {
            "players": list(self.names),
            "variant": self.variant,
            "tricks": [self.engine_trick(t) for t in self.tricks],
        }
        if self.variant == engine.CLASSIC:
            req["left"] = {
                name: list(self.held.get(s, [])) if self.over else []
                for s, name in enumerate(self.names)
            }
        return req

    def revoke_warnings(self) -> list[str]:
        """The engine's likely-revoke warnings on the tricks so far (hand-size warnings
        wait for the end of the deal: the held cards aren't known before)."""
        try:
            reader = engine.Reader(self.names, self.variant)
            tricks = reader.tricks(self.request()["tricks"])
        except RuleError:
            return []
        draws = engine.draws_after_tricks(self.names, tricks, self.variant)
        empty = {name: () for name in self.names}
        return engine.revoke_warnings(self.names, tricks, empty, draws)


def flag(tap: dict, current: bool) -> bool:
    """A toggle's wanted state: ``on`` when given ("1"/"0", true/false), else the opposite
    of the current one. Retries are safe either way: each tap carries the draft version."""
    value = tap.get("on")
    if value is None or value == "":
        return not current
    return str(value).lower() in ("1", "true", "on", "yes")


def special_names(variant: str) -> list[str]:
    """What a quick trick can list, in display order: 8♥ J♥ (Q♠, Russian) and 'joker'."""
    return [*engine.SPECIAL_CARDS[variant].values(), engine.WON_BY_JOKER]


def symbol(code: str) -> str:
    return screens.card_symbol(code)


# ---------------------------------------------------------------- what the panel shows


def deals_played(summary: TableSummary) -> int:
    return summary.progress.deals_played


def default_mode(summary: TableSummary) -> str:
    """A new deal starts in the mode the last deal ended in."""
    for entry in reversed(summary.entries):
        if entry.live and entry.kind == KIND:
            tricks = entry.request.get("tricks") or [{}]
            return FULL if "plays" in tricks[-1] else QUICK
    return FULL


def variant_of(table: store.Table) -> str:
    variant = table.settings.get("variant", engine.CLASSIC)
    return variant if variant in engine.VARIANTS else engine.CLASSIC


def load_deal(table: store.Table, summary: TableSummary) -> tuple[Deal, int]:
    data, version = get_store().draft(table.id, DRAFT)
    return Deal.replay(summary.names, variant_of(table), data, default_mode(summary)), version


def points_line(names: list[str], points: dict[str, int]) -> list[dict]:
    return [
        {"name": name, "points": signed(points[name]), "minus": points[name] < 0}
        for name in names
        if points.get(name)
    ]


def trick_rows(deal: Deal, result: dict | None) -> list[dict]:
    rows = []
    scored = result["tricks"] if result else []
    for number, trick in enumerate(deal.tricks, start=1):
        points = scored[number - 1]["points"] if number <= len(scored) else {}
        row = {
            "no": number,
            "winner": deal.names[trick["winner"]],
            "points": points_line(deal.names, points),
            "full": "plays" in trick,
            "cards": [
                {"name": deal.names[s], "card": c, "won": s == trick["winner"]}
                for s, c in trick.get("plays", ())
            ],
            "joker_suit": SUIT_SYMBOLS.get(trick.get("joker_suit") or "", ""),
            "specials": [special_label(s) for s in trick.get("specials", ())],
            "off_suit": [deal.names[s] for s in trick.get("off_suit", ())],
        }
        rows.append(row)
    return rows


def special_label(name: str) -> str:
    return _("won by a joker") if name == engine.WON_BY_JOKER else symbol(name)


def picker_groups(deal: Deal, led: str | None) -> list[dict]:
    """The 54 cards in groups: the led suit first (with its joker), then the others."""
    by_suit = deck_cards()
    suits = [led, *[s for s in LEAD_SUITS if s != led]] if led else list(LEAD_SUITS)
    groups = []
    jokers = list(JOKERS)
    for suit in suits:
        cards = list(by_suit[suit])
        if suit == led:
            joker = str(engine.JOKER_OF[suit])
            cards.append(joker)
            jokers.remove(joker)
        groups.append({"label": SUIT_SYMBOLS[suit], "suit": suit, "cards": cards})
    groups.append({"label": _("Jokers"), "suit": "J", "cards": jokers})
    return groups


def taken_cards(deal: Deal, skip_held_of: int | None = None) -> dict[str, str]:
    taken = deal.used(skip_held_of)
    if deal.jokers_used() >= len(JOKERS):
        for joker in JOKERS:
            taken.setdefault(joker, _("used"))
    return taken


def penalty_text(cards: list[str]) -> str:
    """ "27 → −3", "joker −20", "5 → −1 · joker −20 = −21" (RULES §2 round-up)."""
    if not cards:
        return _("none: 0")
    plain = [c for c in cards if c not in JOKERS]
    jokers = [c for c in cards if c in JOKERS]
    parts = []
    if plain:
        total = sum(Card.parse(c).rank for c in plain)
        parts.append(f"{total} → {signed(engine.penalty_for(plain))}")
    if jokers:
        parts.append(
            ngettext(
                "joker %(p)s",
                "%(num)d jokers %(p)s",
                len(jokers),
                p=signed(engine.penalty_for(jokers)),
            )
        )
    text = " · ".join(parts)
    if plain and jokers:
        text += f" = {signed(engine.penalty_for(cards))}"
    return text


def step_of(deal: Deal) -> dict:
    """What the panel asks next."""
    names = deal.names
    number = len(deal.tricks) + 1
    if deal.over:
        return end_step(deal)
    if deal.mode == QUICK:
        taken = deal.used()
        jokers_full = deal.jokers_used() >= len(JOKERS)
        specials = []
        for name in special_names(deal.variant):
            on = name in deal.specials
            if name == engine.WON_BY_JOKER:
                reason = _("both jokers used") if jokers_full and not on else ""
            else:
                reason = "" if on else taken.get(name, "")
            specials.append(
                {
                    "name": name,
                    "label": special_label(name),
                    "on": on,
                    "reason": reason,
                    "colour": screens.card_colour(name),
                }
            )
        return {
            "kind": "quick",
            "trick_no": number,
            "specials": specials,
            "off": [{"seat": s, "name": n, "on": s in deal.off_suit} for s, n in enumerate(names)],
            "winners": [
                {"seat": s, "name": n, "off": s in deal.off_suit} for s, n in enumerate(names)
            ],
            "leader": names[deal.leader] if deal.leader is not None else None,
        }
    if deal.leader is None:
        return {"kind": "lead", "players": list(enumerate(names))}
    plays = [{"name": names[s], "card": c} for s, c in deal.plays]
    waiting = [names[(deal.leader + i) % deal.n] for i in range(len(deal.plays), deal.n)]
    if deal.awaiting_suit:
        joker = Card.parse(deal.plays[0][1])
        return {
            "kind": "suit",
            "trick_no": number,
            "player": names[deal.plays[0][0]],
            "joker": joker.colour,
            "plays": plays,
            "suits": [
                {"suit": s, "symbol": SUIT_SYMBOLS[s], "colour": engine.SUIT_COLOUR[s]}
                for s in engine.COLOUR_SUITS[joker.colour]
            ],
        }
    led = None
    if deal.plays:
        led = deal.joker_suit or Card.parse(deal.plays[0][1]).suit
    return {
        "kind": "card",
        "trick_no": number,
        "player": names[deal.to_play],
        "plays": plays,
        "waiting": waiting[1:],
        "led": SUIT_SYMBOLS[led] if led else None,
        "groups": picker_groups(deal, led),
        "taken": taken_cards(deal),
    }


def end_step(deal: Deal) -> dict:
    if deal.variant == engine.RUSSIAN:
        return {"kind": "end", "rows": [], "current": None, "ready": True}
    counts = deal.hands()
    current = next((s for s in range(deal.n) if not deal.done.get(s)), None)
    rows = [
        {
            "seat": s,
            "name": name,
            "cards": list(deal.held.get(s, [])),
            "done": bool(deal.done.get(s)),
            "expected": max(counts[s], 0),
            "penalty": penalty_text(deal.held.get(s, [])),
            "current": s == current,
        }
        for s, name in enumerate(deal.names)
    ]
    step = {"kind": "end", "rows": rows, "current": current, "ready": current is None}
    if current is not None:
        step["name"] = deal.names[current]
        step["cards"] = list(deal.held.get(current, []))
        step["groups"] = picker_groups(deal, None)
        step["taken"] = taken_cards(deal, skip_held_of=current)
    return step


def panel_context(table: store.Table, summary: TableSummary, access: str) -> dict:
    s = get_store()
    writable = access == "score"
    deals = int(table.settings.get("deals", 6))
    played = deals_played(summary)
    base = {
        "deals": deals,
        "deal_no": played + 1,
        "variant": variant_of(table),
        "finished": summary.standings.finished,
        "can_write": writable,
    }
    if summary.standings.finished:
        return base
    deal, version = load_deal(table, summary)
    result, problem = None, None
    if deal.tricks:
        try:
            result = api.evaluate(KIND, deal.request())
        except RuleError as exc:
            problem = exc.message
    if deal.ready and result:  # hand sizes can be checked once the held cards are in
        warnings = list(result.get("warnings", []))
    else:
        warnings = deal.revoke_warnings()
    tricks = trick_rows(deal, result)
    penalties = result.get("penalties", {}) if result and deal.over else {}
    base.update(
        {
            "mode": deal.mode,
            "version": version,
            "round": s.next_round(table.id),
            # v: the draft this screen shows
            "vals": {"v": version, "round": s.next_round(table.id)},
            "tap_url": url_for("szaman.tap", key=table.scorer_key) if writable else None,
            "save_url": url_for("szaman.save", key=table.scorer_key) if writable else None,
            "submission_id": new_submission_id(),
            "can_undo": bool(deal.taps),
            "taps": len(deal.taps),
            "tricks": tricks,
            "last": tricks[-1] if tricks and not deal.ready else None,
            "totals": [
                {
                    "name": name,
                    "points": signed(result["totals"].get(name, 0)) if result else "0",
                    "minus": bool(result) and result["totals"].get(name, 0) < 0,
                }
                for name in summary.names
            ],
            "penalties": points_line(summary.names, penalties),
            "warnings": warnings,
            "problem": problem,
            "over": deal.over,
            "can_end": bool(deal.tricks) and not deal.over and not deal.plays,
            "step": step_of(deal),
        }
    )
    if deal.over and problem:
        base["step"]["ready"] = False
    return base


# ---------------------------------------------------------------- routes


def panel_response(table: store.Table, access: str, status: int = 200, **extra):
    """For htmx, the panel with the rest of what the poll refreshes, out of band
    (``live_fragments``); the table page otherwise (a redirect after a good tap)."""
    if not wants_partial():
        if status == 200:
            return see_other(table_url(table))
        return render_board(table, access, status, **extra)
    return live_fragments(table, access, status, **extra)


def posted_int(name: str) -> int | None:
    try:
        return int(request.form.get(name, ""))
    except ValueError:
        return None


def stale(table: store.Table, version: int) -> bool:
    """The tap was made on a screen that no longer shows this deal as it stands."""
    return posted_int("v") != version or posted_int("round") != get_store().next_round(table.id)


def stale_notice() -> str:
    return _(
        "This deal changed a moment ago (another phone, or a double tap); "
        "here it is as it stands now. Nothing else was changed."
    )


@bp.post("/tap")
def tap(key: str):
    """One tap of the deal being entered: stored in the draft at once, or refused."""
    table, access = load(key, write=True)
    s = get_store()
    summary = summarize(s, table)
    if summary.standings.finished:
        return panel_response(table, access, 409, szaman_error=_("The game is over."))
    if posted_int("v") is None or posted_int("round") is None:
        return panel_response(
            table, access, 422, szaman_error=_("This tap came without its deal; reload the page.")
        )
    deal, version = load_deal(table, summary)
    if stale(table, version):
        return panel_response(table, access, 409, szaman_notice=stale_notice())
    op = request.form.get("op", "")
    if op == "undo":
        if not deal.taps:
            return panel_response(table, access, 422, szaman_error=_("There is nothing to undo."))
        data = {"mode": deal.start_mode, "taps": deal.taps[:-1]}
    else:
        tap_data = {
            k: request.form.get(k) for k in ("op", "seat", "card", "suit", "mode", "name", "on")
        }
        tap_data = {k: v for k, v in tap_data.items() if v is not None}
        try:
            before = (len(deal.tricks), deal.over)
            deal.apply(tap_data)
            if (len(deal.tricks), deal.over) != before or op == "held":
                api.evaluate(KIND, deal.request())  # the engine checks every finished trick
        except (TapError, RuleError) as exc:
            return panel_response(table, access, 422, szaman_error=exc.message)
        data = deal.draft()
    try:
        s.save_draft(table.id, DRAFT, data, expected_version=version)
    except store.Conflict:
        return panel_response(table, access, 409, szaman_notice=stale_notice())
    return panel_response(table, access)


@bp.post("/save")
def save(key: str):
    """Close the deal: one ``szaman-deal`` entry, the draft removed in the same write."""
    table, access = load(key, write=True)
    s = get_store()
    submission_id = request.form.get("submission_id") or None
    if s.submission(submission_id, s.add_entry) is not None:
        return after_write(table, message=_("Already saved."))
    summary = summarize(s, table)
    deal, version = load_deal(table, summary)
    if posted_int("v") is None or posted_int("round") is None:
        return board_error(
            table, access, 422, _("This tap came without its deal; reload the page.")
        )
    if stale(table, version):
        return board_error(table, access, 409, stale_notice(), notice=True)
    if summary.standings.finished:
        return board_error(table, access, 409, _("The game is over."))
    if not deal.ready:
        return board_error(
            table, access, 422, _("The deal is not finished yet: nothing was saved.")
        )
    round_number = s.next_round(table.id)
    try:
        screens.record(
            s,
            table,
            KIND,
            deal.request(),
            round_number,
            submission_id,
            close_draft=DRAFT,
            based_on_draft=(DRAFT, version),
        )
    except RuleError as exc:
        return board_error(table, access, 422, exc.message)
    except store.StoreError as exc:
        return board_error(table, access, 409, exc.message)
    return after_write(table, message=_("Deal %(n)d saved.", n=deals_played(summary) + 1))


def board_error(table: store.Table, access: str, status: int, message: str, notice: bool = False):
    """A refused save: the board again, the message in the panel next to the button."""
    key = "szaman_notice" if notice else "szaman_error"
    return render_board(table, access, status, **{key: message})
