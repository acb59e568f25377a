"""The Vežimas table screen (RULES §4): personal trumps, the beat referee, the cart.

* **Trumps** are assigned once per session at the first deal: the scorer taps who holds
  Q♣ (and, when the engine asks for it, who holds 9♦). The choices live in the draft
  ``vezimas-setup`` until saved as a ``vezimas-trumps`` entry in round 0 (before the
  first deal, so the deals keep numbering from 1; ``exclusive`` makes it once per
  session even when two phones save together). Undoing it in the history asks again.
* **The beat checker** is a referee tool, not scored: the question (top card, whose
  turn, the card or the whole hand, who is out) is kept in the draft ``vezimas-deal``
  so every phone, the watch link included, sees the same question and verdict. Every
  tap *sets* a value (``on=1/0`` for the hand and the players out), so a retried tap
  changes nothing. Verdicts come from the engine (``vezimas-beat``).
* **The deal result**: tap who got the cart, check the engine's preview (who deals and
  who leads next) and save a ``vezimas-deal`` entry; that closes the deal's draft.

Drafts keep player ids, not names, so a renamed player keeps his place; the trumps
entry lists the players in seat order, which is fixed once it exists.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from flask import Blueprint, request

from .. import api, store
from ..cards import RED_SUITS, SUIT_SYMBOLS, parse_card
from ..errors import RuleError
from ..games import vezimas as engine
from ..i18n import gettext as _
from ..summary import TableSummary, summarize
from . import screens
from .tables import (
    after_write,
    get_store,
    live_fragments,
    load,
    render_board,
    wants_partial,
)

bp = Blueprint("vezimas", __name__, url_prefix="/t/<key>/vezimas")

TRUMPS_KIND = "vezimas-trumps"
BEAT_KIND = "vezimas-beat"
DEAL_KIND = "vezimas-deal"
SETUP_DRAFT = "vezimas-setup"
DEAL_DRAFT = "vezimas-deal"
TRUMPS_ROUND = 0  # set-up, before deal 1: the deals keep the table's round numbers
PANEL = "games/vezimas/_panel.html"
# the 24 cards, one row per suit in the order trumps are handed out (♣ ♠ ♥ ♦), 9 … A
DECK = [
    str(card)
    for card in sorted(engine.DECK, key=lambda c: (engine.TRUMP_ORDER.index(c.suit), c.rank))
]
MODES = ("card", "hand")
# where a refused tap's message is shown: next to the controls it is about
ERROR_PLACES = {
    "setup": "setup",
    "queen": "setup",
    "nine": "setup",
    "trumps": "setup",
    "cart": "cart",
}


class BadTap(Exception):
    """A tap the screen refuses: the message is shown next to the control, nothing stored."""

    def __init__(self, message: str, field: str):
        super().__init__(message)
        self.message = message
        self.field = field


# ---------------------------------------------------------------- reading the table


@dataclass(frozen=True)
class Seat:
    id: int
    name: str
    suit: str | None  # personal trump, None before the trumps are set or for nobody

    @property
    def symbol(self) -> str:
        return SUIT_SYMBOLS.get(self.suit or "", "")

    @property
    def colour(self) -> str:
        return "red" if self.suit in RED_SUITS else "black"


def suit_badge(suit: str) -> dict:
    return {
        "suit": suit,
        "symbol": SUIT_SYMBOLS[suit],
        "colour": "red" if suit in RED_SUITS else "black",
    }


def trumps_entry(entries: list[store.Entry]) -> store.Entry | None:
    """The session's live trumps entry (the latest, should an older one have been undone)."""
    live = [e for e in entries if e.live and e.kind == TRUMPS_KIND]
    return live[-1] if live else None


def current_name(entry: store.Entry, players: list[store.Player], old: str | None) -> str | None:
    """The name now sitting where ``old`` sat when the entry was stored (renames)."""
    listed = entry.request.get("players", [])
    if old in listed and len(listed) == len(players):
        return players[listed.index(old)].name
    return None


def seats_of(players: list[store.Player], entry: store.Entry | None) -> list[Seat]:
    suits: dict[str, str] = {}
    if entry is not None:
        for old, suit in entry.result.get("trumps", {}).items():
            name = current_name(entry, players, old)
            if name is not None:
                suits[name] = suit
    return [Seat(p.id, p.name, suits.get(p.name)) for p in players]


def read_draft(s: store.Store, table_id: int, name: str) -> dict:
    data, _version = s.draft(table_id, name)
    return data or {}


def update_draft(s: store.Store, table_id: int, name: str, change: Callable[[dict], dict]) -> dict:
    """Read, change and save a draft; another phone saving in between makes us re-read
    and apply the change again (taps set values, so applying twice is harmless)."""
    for _attempt in range(5):
        data, version = s.draft(table_id, name)
        new = change(dict(data or {}))
        try:
            s.save_draft(table_id, name, new, expected_version=version)
            return new
        except store.Conflict:
            continue
    raise store.Conflict(_("Too many phones are changing this at once; tap again."))


# ---------------------------------------------------------------- the engine's answers


def needs_nine(names: list[str]) -> bool:
    """Does the engine want the 9♦ holder for this many players? (It names the first
    lead with 2–3 players.) Asked, not assumed: the rule stays in the engine."""
    try:
        api.evaluate(TRUMPS_KIND, {"players": names, "queen_of_clubs": names[0]})
    except RuleError as exc:
        return exc.path == "nine_of_diamonds"
    return False


def trumps_request(names: list[str], by_id: dict[int, str], setup: dict, nine: bool) -> dict:
    req = {"players": names, "queen_of_clubs": by_id.get(setup.get("queen"))}
    if nine:
        req["nine_of_diamonds"] = by_id.get(setup.get("nine"))
    return req


CARD_TOKEN = re.compile(r"\b(10|[9JQKA])([SHDC])\b")
SUIT_TOKEN = re.compile(r"(?<=\()([SHDC])(?=\))|(?<=higher )([SHDC])\b|\b([SHDC])(?= is free\b)")


def symbolic(text: str) -> str:
    """The engine's sentences write cards and suits as letters (``9S``, ``(C)``);
    show the symbols a player reads at the table (``9♠``, ``(♣)``)."""
    text = CARD_TOKEN.sub(lambda m: m[1] + SUIT_SYMBOLS[m[2]], text)
    return SUIT_TOKEN.sub(lambda m: SUIT_SYMBOLS[m[0]], text)


def assess(seats: list[Seat], by_id: dict[int, str], deal: dict) -> dict:
    """The checker's question and the engine's answer (nothing when incomplete)."""
    names = [seat.name for seat in seats]
    trumps = {seat.name: seat.suit for seat in seats if seat.suit}
    out = [by_id[pid] for pid in deal.get("out", []) if pid in by_id]
    player = by_id.get(deal.get("player"))
    top, mode = deal.get("top"), deal.get("mode", "card")
    answer: dict = {"ready": False, "error": None, "path": None}
    if deal.get("nothing_to_beat") and player and len(trumps) == len(names):
        return _nothing_to_beat(names, trumps, out, player, deal, answer)
    if not (top and player) or len(trumps) != len(names):
        return answer
    try:
        situation = engine.situation_for(names, trumps, out, player, parse_card(top))
        answer.update(
            ready=True,
            case=engine.beat_case(situation),
            rule=symbolic(engine.explain(situation)),
            next_player=situation.next_player,
        )
        base = {"players": names, "trumps": trumps, "out": out, "player": player, "top": top}
        if mode == "card" and deal.get("card"):
            result = api.evaluate(BEAT_KIND, {**base, "card": deal["card"]})
            answer.update(verdict="yes" if result["legal"] else "no", reason=result["reason"])
        elif mode == "hand" and deal.get("hand"):
            result = api.evaluate(BEAT_KIND, {**base, "hand": deal["hand"]})
            answer.update(beaters=result["beaters"], verdict="yes" if result["beaters"] else "no")
        if "reason" in answer:
            answer["reason"] = symbolic(answer["reason"])
    except RuleError as exc:
        answer.update(ready=False, error=symbolic(exc.message), path=exc.path)
    return answer


def _nothing_to_beat(names, trumps, out, player, deal: dict, answer: dict) -> dict:
    """V-D5: the previous player went out with a beat, so the engine lets any card be
    laid (case 0); the screen says so instead of asking for a beat."""
    mode = deal.get("mode", "card")
    base = {"players": names, "trumps": trumps, "out": out, "player": player, "top": None}
    try:
        if mode == "hand" and deal.get("hand"):
            result = api.evaluate(BEAT_KIND, {**base, "hand": deal["hand"]})
            answer.update(beaters=result["beaters"], verdict="yes")
        elif mode == "card" and deal.get("card"):
            result = api.evaluate(BEAT_KIND, {**base, "card": deal["card"]})
            answer.update(verdict="yes", reason=symbolic(result["reason"]))
        answer.update(
            ready=True,
            case=0,
            rule=engine.NOTHING_TO_BEAT,
            next_player=engine.next_to_answer(names, out, player),
            nothing_to_beat=True,
        )
    except RuleError as exc:
        answer.update(ready=False, error=symbolic(exc.message), path=exc.path)
    return answer


# ---------------------------------------------------------------- the panel


def panel_context(table: store.Table, summary: TableSummary, access: str) -> dict:
    s = get_store()
    players = summary.players
    entry = trumps_entry(summary.entries)
    seats = seats_of(players, entry)
    by_id = {seat.id: seat.name for seat in seats}
    names = [seat.name for seat in seats]
    deal = read_draft(s, table.id, DEAL_DRAFT)
    deal.setdefault("mode", "card")
    deal.setdefault("hand", [])
    deal.setdefault("out", [])
    finished = summary.standings.finished
    screen: dict = {
        "template": PANEL,
        "can_write": access == "score" and not finished,
        "seats": seats,
        "deck": DECK,
        "round": s.next_round(table.id),
        "trumps_set": entry is not None,
        "deal": deal,
        "out_names": [by_id[pid] for pid in deal["out"] if pid in by_id],
        "error": None,
        "error_at": None,
    }
    if entry is None:
        setup = read_draft(s, table.id, SETUP_DRAFT)
        nine = needs_nine(names)
        preview = preview_error = None
        if setup.get("queen") in by_id and (not nine or setup.get("nine") in by_id):
            try:
                preview = api.evaluate(TRUMPS_KIND, trumps_request(names, by_id, setup, nine))
            except RuleError as exc:
                preview_error = exc.message
        screen["setup"] = {
            "queen": setup.get("queen"),
            "nine": setup.get("nine"),
            "needs_nine": nine,
            "preview": preview,
            "preview_badges": {
                n: suit_badge(t) for n, t in (preview or {}).get("trumps", {}).items()
            },
            "preview_free": [suit_badge(t) for t in (preview or {}).get("free", [])],
            "error": preview_error,
        }
        screen["leader"] = None
    else:
        trumps = {seat.name: seat.suit for seat in seats if seat.suit}
        out = screen["out_names"]
        screen["free"] = [suit_badge(t) for t in engine.free_suits(trumps)]
        screen["free_now"] = [suit_badge(t) for t in engine.free_suits(trumps, out)]
        question = assess(seats, by_id, deal)
        by_name = {seat.name: seat for seat in seats}
        screen["question"] = question
        screen["turn"] = next((seat for seat in seats if seat.id == deal.get("player")), None)
        screen["next_seat"] = by_name.get(question.get("next_player"))
        screen["top_taken"] = {deal["top"]: _("top")} if deal.get("top") else {}
        screen["out_reason"] = {pid: _("out") for pid in deal["out"]}
        # each tap says where the player goes: out (1) or back in (0)
        screen["out_values"] = {
            seat.id: {"on": 0 if seat.id in deal["out"] else 1} for seat in seats
        }
    played = any(e.live and e.kind in (DEAL_KIND, "manual-points") for e in summary.entries)
    screen["dealer"] = summary.standings.dealer
    if played and summary.standings.dealer in names:
        screen["leader"] = engine.first_lead_after(names, summary.standings.dealer)  # V-D2
    elif entry is not None:
        screen["leader"] = current_name(entry, players, entry.result.get("first_lead"))
    loser = by_id.get(deal.get("loser"))
    screen["cart"] = {"loser_id": deal.get("loser") if loser else None, "loser": loser}
    if loser:
        screen["cart"]["preview"] = api.evaluate(DEAL_KIND, {"players": names, "loser": loser})
    if table.settings.get("tally") == engine.LETTER_TALLY:
        # V-D6: the deal's loser takes the next letter of the word instead of a cart
        screen["cart"]["word"] = engine.WORD
        if loser:
            screen["cart"]["letters"] = engine.letters(summary.totals.get(loser, 0) + 1)
    return screen


def render_panel(table: store.Table, access: str, status: int = 200, error: BadTap | None = None):
    """The answer to a tap: for htmx, the panel and the rest of what the poll refreshes,
    out of band (``live_fragments``); the whole page otherwise."""
    if not wants_partial():
        if error is not None:
            return render_board(table, access, status, error=error.message)
        return after_write(table, access)
    if error is None:
        return live_fragments(table, access, status)

    def show_error(ctx: dict) -> None:
        ctx["screen"]["error"] = error.message
        ctx["screen"]["error_at"] = ERROR_PLACES.get(error.field, "check")

    return live_fragments(table, access, status, adjust=show_error)


# ---------------------------------------------------------------- reading a tap


def player_id(table: store.Table, field: str = "player") -> int:
    raw = request.form.get(field, "")
    ids = {p.id for p in get_store().players(table.id)}
    try:
        pid = int(raw)
    except ValueError:
        pid = None
    if pid not in ids:
        raise BadTap(_("Choose one of the players at this table."), field)
    return pid


def deck_card(field: str = "card") -> str:
    try:
        return str(engine.read_card(request.form.get(field, ""), field))
    except RuleError as exc:
        raise BadTap(exc.message, field) from None


def switch(field: str = "on") -> bool:
    value = request.form.get(field, "")
    if value not in ("0", "1"):
        raise BadTap(_("A tap says on (1) or off (0)."), field)
    return value == "1"


def trumps_seats(table: store.Table) -> list[Seat]:
    s = get_store()
    return seats_of(s.players(table.id), trumps_entry(s.recent_entries(table.id)))


def require_trumps(table: store.Table) -> list[Seat]:
    seats = trumps_seats(table)
    if not all(seat.suit for seat in seats):
        raise BadTap(_("Set the trumps first: tap who holds Q♣."), "trumps")
    return seats


# ---------------------------------------------------------------- trumps


@bp.post("/setup/<role>")
def setup(key: str, role: str):
    """Who holds Q♣ (``queen``) or 9♦ (``nine``): saved in the set-up draft."""
    table, access = load(key, write=True)
    try:
        if role not in ("queen", "nine"):
            raise BadTap(_("Tap who holds Q♣ or 9♦."), "setup")
        if trumps_seats(table)[0].suit:
            raise BadTap(_("The trumps are already set for this session."), "setup")
        pid = player_id(table)
        update_draft(get_store(), table.id, SETUP_DRAFT, lambda d: {**d, role: pid})
    except BadTap as exc:
        return render_panel(table, access, 422, exc)
    return render_panel(table, access)


@bp.post("/trumps")
def save_trumps(key: str):
    table, access = load(key, write=True)
    s = get_store()
    submission_id = request.form.get("submission_id") or None
    if s.submission(submission_id, s.add_entry, table.id) is not None:
        return after_write(table, access, message=_("Already saved."))
    if trumps_seats(table)[0].suit:
        return render_board(table, access, 409, error=_("The trumps are already set."))
    players = s.players(table.id)
    names = [p.name for p in players]
    by_id = {p.id: p.name for p in players}
    setup_data, setup_version = s.draft(table.id, SETUP_DRAFT)
    setup_data = setup_data or {}
    if setup_data.get("queen") not in by_id:
        return render_panel(table, access, 422, BadTap(_("Tap who holds Q♣ first."), "queen"))
    req = trumps_request(names, by_id, setup_data, needs_nine(names))
    if "nine_of_diamonds" in req and req["nine_of_diamonds"] is None:
        return render_panel(table, access, 422, BadTap(_("Tap who holds 9♦ first."), "nine"))
    try:
        screens.record(
            s,
            table,
            TRUMPS_KIND,
            req,
            TRUMPS_ROUND,
            submission_id=submission_id,
            close_draft=SETUP_DRAFT,
            based_on_draft=(SETUP_DRAFT, setup_version),
        )
    except RuleError as exc:
        return render_panel(table, access, 422, BadTap(exc.message, "trumps"))
    except store.DraftChanged as exc:
        return render_board(table, access, 409, error=exc.message)
    except store.Conflict:
        return render_board(
            table, access, 409, error=_("The trumps were just set on another phone.")
        )
    return after_write(table, access, message=_("Trumps set for the session."))


# ---------------------------------------------------------------- the beat checker


def set_top(table: store.Table, deal: dict) -> dict:
    card = deck_card("card")
    hand = [c for c in deal.get("hand", []) if c != card]
    return {**deal, "top": card, "card": None, "hand": hand, "nothing_to_beat": False}


def set_nothing(table: store.Table, deal: dict) -> dict:
    """V-D5: nothing to beat (the previous player went out with a beat)."""
    return {**deal, "top": None, "card": None, "nothing_to_beat": True}


def set_player(table: store.Table, deal: dict) -> dict:
    pid = player_id(table)
    if deal.get("player") == pid:
        return deal
    return {**deal, "player": pid, "card": None, "hand": []}


def set_mode(table: store.Table, deal: dict) -> dict:
    mode = request.form.get("mode", "")
    if mode not in MODES:
        raise BadTap(_("Check one card or the whole hand."), "mode")
    return {**deal, "mode": mode}


def set_card(table: store.Table, deal: dict) -> dict:
    card = deck_card("card")
    if card == deal.get("top"):
        raise BadTap(_("That is the top card itself; tap the card played on it."), "card")
    return {**deal, "card": card}


def set_hand(table: store.Table, deal: dict) -> dict:
    card, on = deck_card("card"), switch()
    if on and card == deal.get("top"):
        raise BadTap(_("That is the top card itself; it is not in the hand."), "hand")
    hand = [c for c in deal.get("hand", []) if c != card] + ([card] if on else [])
    return {**deal, "hand": hand}


def set_out(table: store.Table, deal: dict) -> dict:
    """A player goes out (or back in). V-D5: when it is the player whose card was just
    checked and it beats, that was his last card and a beat, so the next player has
    nothing to beat: the question moves on to him."""
    pid, on = player_id(table), switch()
    out = [p for p in deal.get("out", []) if p != pid] + ([pid] if on else [])
    changed = {**deal, "out": out}
    if on and pid == deal.get("player") and deal.get("mode", "card") == "card":
        seats = trumps_seats(table)
        by_id = {seat.id: seat.name for seat in seats}
        if assess(seats, by_id, deal).get("verdict") == "yes":
            names = [seat.name for seat in seats]
            gone = [by_id[p] for p in out if p in by_id]
            following = engine.next_clockwise(names, by_id[pid], gone)
            if following is not None and engine.next_clockwise(names, following, gone):
                to_id = {name: seat_id for seat_id, name in by_id.items()}
                changed.update(
                    top=None, card=None, hand=[], nothing_to_beat=True, player=to_id[following]
                )
    return changed


def clear(table: store.Table, deal: dict) -> dict:
    return {**deal, "top": None, "player": None, "card": None, "hand": [], "nothing_to_beat": False}


def set_loser(table: store.Table, deal: dict) -> dict:
    return {**deal, "loser": player_id(table)}


CHECKS: dict[str, Callable[[store.Table, dict], dict]] = {
    "top": set_top,
    "nothing": set_nothing,
    "player": set_player,
    "mode": set_mode,
    "card": set_card,
    "hand": set_hand,
    "out": set_out,
    "clear": clear,
}


def tap(key: str, field: str, setter: Callable[[store.Table, dict], dict], needs_trumps: bool):
    table, access = load(key, write=True)
    s = get_store()
    try:
        if needs_trumps:
            require_trumps(table)
        current = read_draft(s, table.id, DEAL_DRAFT)
        candidate = setter(table, current)  # refuse a bad tap before writing anything
        if needs_trumps and field in ("top", "player", "card"):
            seats = trumps_seats(table)
            answer = assess(seats, {seat.id: seat.name for seat in seats}, candidate)
            if answer["path"] == field:  # the engine refuses this very value
                raise BadTap(answer["error"], field)
        update_draft(s, table.id, DEAL_DRAFT, lambda d: setter(table, d))
    except BadTap as exc:
        return render_panel(table, access, 422, exc)
    except store.Conflict as exc:
        return render_panel(table, access, 409, BadTap(exc.message, field))
    return render_panel(table, access)


@bp.post("/check/<field>")
def check(key: str, field: str):
    """One tap of the beat checker: a value of the shared question is set."""
    setter = CHECKS.get(field)
    if setter is None:
        table, access = load(key, write=True)
        return render_panel(table, access, 422, BadTap(_("There is no such control."), "check"))
    return tap(key, field, setter, needs_trumps=True)


# ---------------------------------------------------------------- the deal's result


@bp.post("/cart")
def cart(key: str):
    """Who got the cart (saved in the deal's draft until the deal is saved)."""
    return tap(key, "cart", set_loser, needs_trumps=False)


@bp.post("/deal")
def save_deal(key: str):
    table, access = load(key, write=True)
    s = get_store()
    submission_id = request.form.get("submission_id") or None
    if s.submission(submission_id, s.add_entry, table.id) is not None:
        return after_write(table, access, message=_("Already saved."))
    if summarize(s, table).standings.finished:  # V-D4, V-D6: the session is over
        return render_board(table, access, 409, error=_("The session is over."))
    players = s.players(table.id)
    by_id = {p.id: p.name for p in players}
    deal_data, deal_version = s.draft(table.id, DEAL_DRAFT)
    loser = by_id.get((deal_data or {}).get("loser"))
    if loser is None:
        return render_panel(table, access, 422, BadTap(_("Tap who got the cart first."), "cart"))
    round_number = s.next_round(table.id)
    req = {"players": [p.name for p in players], "loser": loser}
    try:
        result = api.evaluate(DEAL_KIND, req)
        screens.record(
            s,
            table,
            DEAL_KIND,
            req,
            round_number,
            submission_id=submission_id,
            close_draft=DEAL_DRAFT,
            based_on_draft=(DEAL_DRAFT, deal_version),
        )
    except RuleError as exc:
        return render_panel(table, access, 422, BadTap(exc.message, "cart"))
    except store.Conflict as exc:
        return render_board(table, access, 409, error=exc.message)
    message = _(
        "Round %(n)d: %(loser)s got the cart. %(dealer)s deals, %(leader)s leads.",
        n=round_number,
        loser=loser,
        dealer=result["next_dealer"],
        leader=result["first_lead"],
    )
    if table.settings.get("tally") == engine.LETTER_TALLY:  # V-D6
        message = _(
            "Round %(n)d: %(loser)s lost the deal (a letter). %(dealer)s deals, %(leader)s leads.",
            n=round_number,
            loser=loser,
            dealer=result["next_dealer"],
            leader=result["first_lead"],
        )
    return after_write(table, access, message=message)
