"""The Szaman deal (RULES §2, kind ``szaman-deal``): the draft's log of taps in the play
state's notation (``scorekeeper.games.play.szaman``, PLAY.md), entered card by card
("full") or quickly (marks, then the winner); who leads, whose turn it is, the joker's
suit, hand sizes, when the deal ends and what closes it all come from ``SzamanDeal``.
"""

from __future__ import annotations

from .. import deals, store
from ..games import szaman as engine
from ..games.play import Refused, Tap
from ..games.play.szaman import SzamanDeal
from ..messages import gettext as _
from ..summary import TableSummary, summarize

KIND = engine.KIND
DRAFT = "szaman-deal"  # the draft's name; one deal is entered at a time
FULL, QUICK = "full", "quick"


def last_mode(summary: TableSummary) -> str:
    """A new deal is shown first in the way the last deal ended (a phone may switch)."""
    for entry in reversed(summary.entries):
        if entry.live and entry.kind == KIND:
            tricks = entry.request.get("tricks") or [{}]
            return FULL if "plays" in tricks[-1] else QUICK
    return FULL


def new_deal(s: store.Store, table: store.Table, summary: TableSummary | None) -> dict:
    summary = summary or summarize(s, table)
    if summary.standings.finished:
        raise deals.game_over()
    return {
        "players": list(summary.names),
        "round": s.next_round(table.id),
        "deal_no": summary.progress.deals_played + 1,
        "mode": last_mode(summary),
    }


def edit_context(s: store.Store, table: store.Table, entry: store.Entry) -> dict:
    summary = summarize(s, table)
    rounds = {e.round for e in s.entries(table.id, live_only=True) if e.kind == KIND}
    tricks = entry.request.get("tricks") or [{}]
    return {
        "players": list(summary.names),
        "deal_no": len([r for r in rounds if r <= entry.round]),
        "mode": FULL if "plays" in tricks[-1] else QUICK,
    }


def rename_in_draft(data: dict, old: str, new: str) -> dict:
    """Taps name seats; only the deal's list of players names anyone."""
    context = data.get("context") if isinstance(data, dict) else None
    if context and isinstance(context.get("players"), list):
        context["players"] = [new if name == old else name for name in context["players"]]
    return data


def start_state(table: store.Table, context: dict) -> SzamanDeal:
    return SzamanDeal.start(context["players"], deals.settings_of(table))


def _logged(state: SzamanDeal, taps: list[dict], prefix: str, tap: dict) -> SzamanDeal:
    """Apply one tap made up from stored data, and log it with its id."""
    tap = {"id": f"{prefix}{len(taps)}", **tap}
    state = state.apply(Tap.from_json(tap))
    taps.append(tap)
    return state


def rebuild(table: store.Table, context: dict, entry: store.Entry) -> list[dict]:
    """The taps of a deal saved without its log: its request, trick by trick."""
    state, taps, prefix = start_state(table, context), [], f"e{entry.id}-"
    request = entry.request
    seat = {name: s for s, name in enumerate(request["players"])}
    try:
        for trick in request["tricks"]:
            if "plays" in trick:
                for i, (name, card) in enumerate(trick["plays"]):
                    state = _logged(
                        state, taps, prefix, {"action": "card", "seat": seat[name], "card": card}
                    )
                    if i == 0 and trick.get("joker_suit"):
                        suit = {"action": "suit", "seat": seat[name], "suit": trick["joker_suit"]}
                        state = _logged(state, taps, prefix, suit)
                continue
            for card in trick.get("specials", ()):
                state = _logged(
                    state, taps, prefix, {"action": "special", "card": card, "on": True}
                )
            for name in trick.get("off_suit", ()):
                state = _logged(
                    state, taps, prefix, {"action": "off", "seat": seat[name], "on": True}
                )
            state = _logged(
                state, taps, prefix, {"action": "winner", "seat": seat[trick["winner"]]}
            )
        if not state.over:
            state = _logged(state, taps, prefix, {"action": "end"})
        for name, cards in (request.get("left") or {}).items():
            for card in cards:
                state = _logged(
                    state,
                    taps,
                    prefix,
                    {"action": "held", "seat": seat[name], "card": card, "on": True},
                )
        for s in range(state.n):
            if state.classic and not state.seat_final(s):
                state = _logged(state, taps, prefix, {"action": "done", "seat": s})
    except (Refused, KeyError, TypeError, ValueError):
        pass  # what fits is reopened; the rest is entered again
    return taps


def _on(raw: object, current: bool) -> bool:
    """An old-shape toggle's meaning: ``on`` when it said, else the opposite of the state."""
    if raw is None or raw == "":
        return not current
    return str(raw).lower() in ("1", "true", "on", "yes")


def upgrade(table: store.Table, data: dict, context: dict) -> list[dict]:
    """The taps of a draft stored before the tap log (``{"mode", "taps": [{"op"…}]}``):
    each old tap with the seat it meant, as the state says whose it was."""
    state, taps = start_state(table, context), []
    for old in data.get("taps") or []:
        op = old.get("op") if isinstance(old, dict) else None
        try:
            seat = int(old["seat"]) if old.get("seat") not in (None, "") else None
            if op == "lead":
                tap = {"action": "lead", "seat": seat}
            elif op == "card":
                tap = {"action": "card", "seat": state.turn, "card": old.get("card")}
            elif op == "suit":
                tap = {"action": "suit", "seat": state.plays[0][0], "suit": old.get("suit")}
            elif op == "special":
                on = _on(old.get("on"), old.get("name") in state.specials)
                tap = {"action": "special", "card": old.get("name"), "on": on}
            elif op == "off":
                tap = {
                    "action": "off",
                    "seat": seat,
                    "on": _on(old.get("on"), seat in state.off_suit),
                }
            elif op == "held":
                on = _on(old.get("on"), old.get("card") in state.held[seat])
                tap = {"action": "held", "seat": seat, "card": old.get("card"), "on": on}
            elif op in ("winner", "end", "done", "edit"):
                tap = {"action": op if op != "edit" else "done", "seat": seat}
                if op == "end":
                    tap = {"action": "end"}
                if op == "edit":
                    tap["on"] = False
            else:
                continue  # "mode": a phone's own view now
            state = _logged(state, taps, "u", tap)
        except (Refused, KeyError, TypeError, ValueError, IndexError):
            break  # the valid part is kept
    return taps


def saved(s: store.Store, table: store.Table, context: dict, outcome: dict) -> str:
    if outcome.get("supersedes") is not None:
        return _("Deal %(n)d changed.", n=context.get("deal_no", 1))
    return _("Deal %(n)d saved.", n=context.get("deal_no", 1))


DEAL = deals.declare(__name__, game="szaman", draft=DRAFT, kind=KIND)
