"""The Vežimas panel (RULES §4) drawn from its deal's play state, with the referee's
question "Can this beat that?" as the table asked it."""

from __future__ import annotations

from ..cards import RED_SUITS, SUIT_SYMBOLS
from ..deals.vezimas import assess, question_of
from ..games import vezimas as engine
from ..games.play.vezimas import DECK
from ..store import new_submission_id
from . import panel
from .vezimas_pieces import Pieces


def badge(suit: str | None, seat: int | None = None, name: str | None = None) -> dict:
    """A suit as the panel shows it; with a seat and name, a player and his trump."""
    colour, symbol = "red" if suit in RED_SUITS else "black", SUIT_SYMBOLS.get(suit or "", "")
    return {"seat": seat, "name": name, "suit": suit, "symbol": symbol, "colour": colour}


def _why_not(state, action: str, held: int | None) -> str | None:
    """Why the first deal's Q♣ or 9♦ holder may no longer be changed (the state's own
    refusal of a tap naming another seat), or None while it may."""
    if held is None:
        return None
    return panel.why_not(state, action, seat=(held + 1) % len(state.players)) or None


def view(v: panel.View) -> dict:
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
        "pieces": Pieces(v),
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
        "submission_id": new_submission_id(),
    }
    if not state.queen_given:
        screen["setup"] = {
            "queen": state.queen,
            "nine": state.nine,
            "needs_nine": "nine" in legal or state.nine is not None,
            "ready": st["setup"] is not None,
            # who may be tapped now (none, once the deal has gone past it) and why not
            "queen_seats": legal.get("queen", {}).get("seat", []),
            "nine_seats": legal.get("nine", {}).get("seat", []),
            "queen_why": _why_not(state, "queen", state.queen),
            "nine_why": _why_not(state, "nine", state.nine),
        }
    else:
        question, _version = question_of(v.store, table, context.get("round"))
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
