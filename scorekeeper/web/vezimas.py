"""The Vežimas table screen (RULES §4) on the one screen mechanism (``screens.adopt``):
its deal, the trumps saved once and the referee's question "Can this beat that?" are
``scorekeeper.deals.vezimas``'s; this module reads the taps and draws the state.
"""

from __future__ import annotations

import json
from dataclasses import replace

from flask import Blueprint, request

from .. import store
from ..cards import RED_SUITS, SUIT_SYMBOLS
from ..deals import vezimas as rules
from ..deals.vezimas import DEAL, DRAFT, assess, question_of, trumps_entry
from ..errors import RuleError
from ..games import vezimas as engine
from ..games.play.vezimas import DECK
from ..i18n import gettext as _
from ..summary import TableSummary
from . import screens, vezimas_html
from .board import after_write, render_board
from .db import get_store, load, new_submission_id

bp = Blueprint("vezimas", __name__, url_prefix="/t/<key>/vezimas")

# where a refused tap's message is shown: next to the controls it is about
ERROR_PLACES = {"queen": "setup", "nine": "setup", "loser": "cart"}


def badge(suit: str | None, seat: int | None = None, name: str | None = None) -> dict:
    """A suit as the panel shows it; with a seat and name, a player and his trump."""
    colour, symbol = "red" if suit in RED_SUITS else "black", SUIT_SYMBOLS.get(suit or "", "")
    return {"seat": seat, "name": name, "suit": suit, "symbol": symbol, "colour": colour}


# ---------------------------------------------------------------- the referee's question


def form_seat(n: int, field: str = "seat") -> int:
    raw = request.form.get(field, "")
    if not raw.isdigit() or int(raw) >= n:
        raise screens.Refusal(_("Choose one of the players at this table."), field)
    return int(raw)


def form_card(field: str = "card") -> str:
    try:
        return str(engine.read_card(request.form.get(field, ""), field))
    except RuleError as exc:
        raise screens.Refusal(exc.message, field) from None


def form_switch(field: str = "on") -> bool:
    value = request.form.get(field, "")
    if value not in ("0", "1"):
        raise screens.Refusal(_("A tap says on (1) or off (0)."), field)
    return value == "1"


@bp.post("/check/<field>")
def check(key: str, field: str):
    """One tap of the referee's question: a value of the shared question is set."""
    table, access = load(key, write=True)
    s = get_store()
    log = s.tap_log(table.id, DRAFT)
    try:
        deal = screens.view_of(SCREEN, table, access, log)
        n = len(deal.state.players)
        read = {
            "card": form_card,
            "seat": lambda: form_seat(n),
            "on": form_switch,
            "mode": lambda: request.form.get("mode", ""),
        }
        rules.ask(s, table, deal.state, deal.context["round"], field, read)
        log = replace(s.tap_log(table.id, DRAFT), changed=True)  # the table moved on
    except (screens.Refusal, store.StoreError) as exc:
        return screens.answer(SCREEN, table, access, log, refusal=screens.Refusal.of(exc))
    return screens.answer(SCREEN, table, access, log)


@bp.post("/trumps")
def save_trumps(key: str):
    """The first deal's Q♣ (and 9♦) as the session's ``vezimas-trumps`` entry."""
    table, access = load(key, write=True)
    s = get_store()
    submission_id = request.form.get("submission_id") or None
    if s.submission(submission_id, s.add_entry, table.id) is not None:
        return after_write(table, access, message=_("Already saved."))
    if trumps_entry(s.recent_entries(table.id)) is not None:
        return render_board(table, access, 409, error=_("The trumps are already set."))
    log = s.tap_log(table.id, DRAFT)
    try:
        state = screens.view_of(SCREEN, table, access, log).state
        rules.save_trumps(s, table, state, log.version, submission_id)
    except screens.Refusal as exc:
        return screens.answer(SCREEN, table, access, log, refusal=exc)
    except (RuleError, store.StoreError) as exc:
        return render_board(table, access, 409, error=screens.Refusal.of(exc).message)
    return after_write(table, access, message=_("Trumps set for the session."))


# ---------------------------------------------------------------- the panel


def error_place() -> str:
    """Where this request's message is shown: by the controls that sent it."""
    where = {f"{bp.name}.check": "check", f"{bp.name}.save_trumps": "setup"}
    try:
        action = json.loads(request.form.get("tap") or "{}").get("action")
    except (ValueError, AttributeError):
        action = None
    return where.get(request.endpoint) or ERROR_PLACES.get(action, "cart")


def view(v: screens.View) -> dict:
    state, context, table = v.state, v.context, v.table
    st = state.to_json()
    names = list(state.players)
    trumps = st["trumps"] or {}
    seats = [badge(trumps.get(name), n, name) for n, name in enumerate(names)]
    legal = {tap["action"]: tap for tap in st["legal"]}
    leader = names[st["leader"]] if st["leader"] is not None else None
    dealer = names[st["dealer"]] if st["dealer"] is not None else context.get("dealer")
    screen: dict = {
        "finished": False,
        "can_write": v.writable,
        "v": v,
        "pieces": vezimas_html.Pieces(v),
        "version": v.version,
        "round": context.get("round"),
        "editing": context.get("supersedes") is not None,
        "tap_url": v.url("tap"),
        "save_url": v.url("save"),
        "discard_url": v.url("discard"),
        "undo_url": v.url("undo"),
        "trumps_url": v.url("trumps"),
        "check_url": v.url("check/FIELD"),
        "undo_tap": v.last_tap,
        "seats": seats,
        "deck": DECK,
        "trumps_set": state.queen_given,
        "leader": leader,
        "dealer": dealer,
        "free": [badge(t) for t in st["free"] or []],
        "letters_word": st["word"],
        "error_at": error_place(),
        "submission_id": new_submission_id(),
    }
    if not state.queen_given:
        screen["setup"] = {
            "queen": state.queen,
            "nine": state.nine,
            "needs_nine": "nine" in legal or state.nine is not None,
            "ready": st["setup"] is not None,
        }
    else:
        question, _version = question_of(screens.store_of(), table, context.get("round"))
        answer = assess(names, trumps, question)
        out = [names[s] for s in question["out"]]
        screen["question"] = question
        screen["answer"] = answer
        screen["turn"] = seats[question["player"]] if question.get("player") is not None else None
        following = answer.get("next_player")
        screen["next_seat"] = seats[names.index(following)] if following else None
        screen["out_names"] = out
        screen["free_now"] = [badge(t) for t in engine.free_suits(trumps, out)]
    out = [names[s] for s in screen.get("question", {}).get("out", [])]
    left = engine.left_with_the_cart(names, out)
    cart = st["cart"]
    screen["cart"] = {
        "suggested": seats[names.index(left)] if left is not None else None,
        "choices": legal.get("loser", {}).get("seat", []),
        "seat": cart["seat"] if cart else None,
        "loser": names[cart["seat"]] if cart else None,
        "letters": cart["letters"] if cart else None,
        "ends": bool(cart and cart["letters"] and engine.completes_word(cart["total"])),
        "next": st["next_deal"],
    }
    return screen


SCREEN = screens.adopt(bp, DEAL)


def panel_context(table: store.Table, summary: TableSummary, access: str) -> dict:
    return screens.screen_panel(
        SCREEN, table, summary, access, finished={"finished": True, "can_write": False}
    )
