"""The Szaman panel (RULES §2) drawn from its deal's play state: who leads, whose turn
it is, the joker's suit, hand sizes and when the deal ends are the state's; scoring,
penalties and warnings the engine's.

A trick is entered card by card ("full") or quickly (marks, then the winner); which of
the two a phone shows is that phone's own choice (``data-view``, kept in the phone),
never stored: every tap names its seat, so two phones never step on each other.
"""

from __future__ import annotations

import functools

from ..cards import RANKS, SUIT_SYMBOLS, Card
from ..deals.szaman import FULL, QUICK
from ..games import szaman as engine
from ..games.play.szaman import JOKERS
from ..messages import gettext as _
from ..messages import ngettext, signed
from ..store import new_submission_id
from . import fragments, panel

SUITS_SHOWN = ("C", "D", "H", "S")  # display order, as the first-lead order ♣ ♦ ♥ ♠


# ---------------------------------------------------------------- what the panel shows


def points_line(names: list[str], points: dict[str, int]) -> list[dict]:
    return [
        {"name": name, "points": signed(points[name]), "minus": points[name] < 0}
        for name in names
        if points.get(name)
    ]


def special_label(name: str) -> str:
    return _("won by a joker") if name == engine.WON_BY_JOKER else panel.card_symbol(name)


def picker_groups(led: str | None) -> list[dict]:
    """The 54 cards in groups: the led suit first (with its joker), then the others."""
    return [
        {"label": label or _("Jokers"), "suit": suit, "cards": list(cards)}
        for label, suit, cards in _card_groups(led)
    ]


@functools.lru_cache(maxsize=8)  # one per led suit (and none): the same 54 cards each answer
def _card_groups(led: str | None) -> tuple[tuple[str | None, str, tuple[str, ...]], ...]:
    suits = [led, *[s for s in SUITS_SHOWN if s != led]] if led else list(SUITS_SHOWN)
    groups, jokers = [], list(JOKERS)
    for suit in suits:
        cards = [str(Card(rank, suit)) for rank in RANKS]
        if suit == led:
            joker = str(engine.JOKER_OF[suit])
            cards.append(joker)
            jokers.remove(joker)
        groups.append((SUIT_SYMBOLS[suit], suit, tuple(cards)))
    groups.append((None, "J", tuple(sorted(jokers, reverse=True))))  # labelled per language
    return tuple(groups)


def taken(
    st: dict, names: list[str], skip_held_of: int | None = None, played: dict | None = None
) -> dict[str, str]:
    """Card → the short reason the picker shows under a card already in the deal
    (``played``: what :func:`played_cards` says of the state, when made already)."""
    out = dict(played_cards(st) if played is None else played)
    for seat, row in enumerate(st["held"] or []):
        if seat != skip_held_of:
            for card in row["cards"]:
                out[card] = names[seat]
    out.pop(engine.WON_BY_JOKER, None)
    if st["jokers_used"] >= len(JOKERS):
        for joker in JOKERS:
            out.setdefault(joker, _("used"))
    return out


def played_cards(st: dict) -> dict[str, str]:
    """Card → the trick it was played to (or "played", the trick being entered)."""
    out: dict[str, str] = {}
    for trick in st["tricks"]:
        label = _("trick %(n)d", n=trick["number"])
        for card in [c for _s, c in trick.get("plays", ())] + trick.get("specials", []):
            out[card] = label
    played = _("played")
    for card in [c for _s, c in st["current"]["plays"]] + st["current"]["specials"]:
        out[card] = played
    return out


def penalty_text(cards: list[str]) -> str:
    """ "27 → −3", "joker −20", "5 → −1 · joker −20 = −21" (RULES §2 round-up)."""
    if not cards:
        return _("none: 0")
    plain = [c for c in cards if c not in JOKERS]
    jokers = [c for c in cards if c in JOKERS]
    parts = []
    if plain:
        total, _jokers = engine.held_value(plain)
        parts.append(f"{total} → {signed(engine.penalty_for(plain))}")
    if jokers:
        p = signed(engine.penalty_for(jokers))
        if len(jokers) == 1:
            parts.append(_("joker %(p)s", p=p))
        else:  # counted: a language may say 21 as it says 1, so no form leaves it out
            parts.append(ngettext("%(num)d joker %(p)s", "%(num)d jokers %(p)s", len(jokers), p=p))
    text = " · ".join(parts)
    if plain and jokers:
        text += f" = {signed(engine.penalty_for(cards))}"
    return text


def trick_rows(st: dict, names: list[str]) -> list[dict]:
    return [
        {
            "no": t["number"],
            "winner": names[t["winner"]],
            "points": points_line(names, t["points"]),
            "full": t["full"],
            "cards": [
                {"name": names[s], "seat": s, "card": c, "won": s == t["winner"]}
                for s, c in t.get("plays", ())
            ],
            "joker_suit": SUIT_SYMBOLS.get(t.get("joker_suit") or "", ""),
            "specials": [special_label(s) for s in t.get("specials", ())],
            "off_suit": [names[s] for s in t.get("off_suit", ())],
        }
        for t in st["tricks"]
    ]


def change_choices(v: panel.View, number: int, seat: int) -> dict | None:
    """What one card of an earlier trick may become (the state's ``change`` tap): every
    card not elsewhere in the deal, in suit groups, the card played shown chosen; the
    trick and the seat are the block's (``BLOCK_SLOT``), so the buttons are the same for
    every card changed. None when that trick has no card of that seat."""
    st, names = v.state.to_json(), list(v.state.players)
    trick = st["tricks"][number - 1] if 1 <= number <= len(st["tricks"]) else {}
    played = dict((s, c) for s, c in trick.get("plays", ()))
    if seat not in played:
        return None
    card, used = played[seat], taken(st, names)
    used.pop(card, None)
    slot = {"trick": panel.BLOCK_SLOT, "seat": panel.BLOCK_SLOT}
    return {
        "trick": number,
        "seat": seat,
        "name": names[seat],
        "card": card,
        "vals": {"trick": number, "seat": seat},
        "groups": [
            {**g, "buttons": v.picker(g["cards"], "change", slot, used, [card])}
            for g in picker_groups(None)
        ],
    }


def legal_actions(st: dict) -> set[str]:
    return {tap["action"] for tap in st["legal"]}


def lead_hint() -> str:
    """Who leads the first trick, in the engine's own order (RULES §2): the first card
    of that order, the rest of its rank in turn, then the next rank's first two."""
    order = [card.symbol for card in engine.first_lead_order()]
    suits = len(engine.LEAD_SUIT_ORDER)
    return _(
        "Whoever holds %(first)s leads; if nobody holds it, whoever holds the first of "
        "%(others)s, then %(next)s and on up.",
        first=order[0],
        others=", ".join(order[1:suits]),
        next=", ".join(order[suits : suits + 2]),
    )


def step_of(v: panel.View, st: dict, names: list[str], mode: str) -> dict:
    """What the panel asks next, from the state's phase and its legal taps."""
    phase, current = st["phase"], st["current"]
    legal = legal_actions(st)
    step: dict = {"phase": phase, "trick_no": st["trick_no"], "text": st["next"]["text"]}
    step["leader"] = names[st["leader"]] if st["leader"] is not None else None
    step["full"] = "card" in legal and phase != "quick"
    step["quick"] = "winner" in legal
    step["lead"] = list(enumerate(names)) if phase == "first-lead" and "lead" in legal else []
    step["lead_hint"] = lead_hint() if step["lead"] else ""
    step["kind"] = {"first-lead": "lead", "suit": "suit", "quick": "quick", "card": "card"}.get(
        phase
    )
    if phase in ("trick", "first-lead") and mode == QUICK:
        step["kind"] = "quick"
    elif phase == "trick":
        step["kind"] = "card"
    if st["over"]:
        step["kind"] = "end"
    if phase == "suit":
        seat = current["plays"][0][0]
        (suits,) = [t["suit"] for t in st["legal"] if t["action"] == "suit"]
        step["player"], step["seat"] = names[seat], seat
        step["suits"] = [
            {"suit": s, "symbol": SUIT_SYMBOLS[s], "colour": engine.SUIT_COLOUR[s]} for s in suits
        ]
    step["plays"] = [{"name": names[s], "card": c} for s, c in current["plays"]]
    used = None  # the cards already in the deal (taken), made once for both entries
    if step["full"] and st["turn"] is not None:
        turn, n = st["turn"], len(names)
        step["seat"], step["player"] = turn, names[turn]
        step["waiting"] = [names[(turn + i) % n] for i in range(1, n - len(current["plays"]))]
        step["led"] = SUIT_SYMBOLS[current["led"]] if current["led"] else None
        used = taken(st, names)
        # the seat is the block's (``BLOCK_SLOT``): the cards' buttons stay the same
        # from one turn to the next, and the phone keeps them
        step["groups"] = [
            {**g, "buttons": v.picker(g["cards"], "card", {"seat": panel.BLOCK_SLOT}, used)}
            for g in picker_groups(current["led"])
        ]
    if step["quick"]:
        used, jokers_full = used or taken(st, names), st["jokers_used"] >= len(JOKERS)
        specials = []
        for name, _points in st["special_points"].items():
            on = name in current["specials"]
            if name == engine.WON_BY_JOKER:
                reason = _("both jokers used") if jokers_full and not on else ""
            else:
                reason = "" if on else used.get(name, "")
            specials.append(
                {
                    "name": name,
                    "label": fragments.standing_alone(special_label(name)),
                    "on": on,
                    "reason": reason,
                    "colour": panel.card_colour(name),
                }
            )
        step["specials"] = specials
        step["off"] = [
            {"seat": s, "name": n, "on": s in current["off_suit"]} for s, n in enumerate(names)
        ]
    return step


def end_rows(v: panel.View, st: dict, names: list[str]) -> tuple[list[dict], int | None]:
    """The held cards of a classic deal, per player, and whose to ask first."""
    if not st["held"]:
        return [], None
    rows, played = [], played_cards(st)
    for seat, held in enumerate(st["held"]):
        elsewhere = taken(st, names, seat, played)  # once a seat, not once a group
        rows.append(
            {
                "seat": seat,
                "name": names[seat],
                "cards": held["cards"],
                "done": held["final"],
                "expected": held["expected"],
                # "holds no cards" is the hand to close at once only when none is due
                "empty_due": not held["cards"] and held["expected"] == 0,
                "penalty": penalty_text(held["cards"]),
                "groups": [
                    {
                        **g,
                        "buttons": v.picker(
                            g["cards"],
                            "held",
                            {"seat": seat},
                            elsewhere,
                            held["cards"],
                            toggle=True,
                        ),
                    }
                    for g in picker_groups(None)
                ],
            }
        )
    current = next((r["seat"] for r in rows if not r["done"]), None)
    return rows, current


def view(v: panel.View) -> dict:
    state, context, table = v.state, v.context, v.table
    st = state.to_json()
    names = list(state.players)
    last_full = next((t["full"] for t in reversed(st["tricks"])), None)
    mode = context.get("mode", FULL) if last_full is None else (FULL if last_full else QUICK)
    score = st["score"]
    tricks = trick_rows(st, names)
    rows, current = end_rows(v, st, names) if st["over"] else ([], None)
    return {
        "deals": dict(state.settings)["deals"],
        "deal_no": context.get("deal_no", 1),
        "variant": state.variant,
        "finished": False,
        "can_write": v.writable,
        "editing": context.get("supersedes") is not None,
        "edit_round": context.get("round"),
        "version": v.version,
        "round": context.get("round"),
        "mode": mode,
        "view_key": f"szaman-mode:{table.scorer_key if v.writable else table.watch_key}",
        # whose held cards this phone enters is the deal's own: not carried into the next
        "held_key": f"szaman-held:{table.scorer_key}:{v.deal_key}",
        "v": v,
        "tap_button": functools.partial(fragments.action_tap, v),
        "tap_url": v.url("tap"),
        "change_url": v.url("change"),
        "save_url": v.url("save"),
        "undo_url": v.url("undo"),
        "redo_url": v.url("redo"),
        "discard_url": v.url("discard"),
        "submission_id": new_submission_id(),
        "undo_tap": v.last_tap,
        "redo_tap": v.redo_tap,
        "tricks": tricks,
        "last": tricks[-1] if tricks and not st["complete"] else None,
        "totals": [
            {
                "name": name,
                "points": signed(score["totals"].get(name, 0)) if score else "0",
                "minus": bool(score) and score["totals"].get(name, 0) < 0,
            }
            for name in names
        ],
        "penalties": points_line(names, score.get("penalties", {})) if score and st["over"] else [],
        "warnings": [panel.symbols(w) for w in st["warnings"]],
        "problem": panel.symbols(st["problem"]) if st["problem"] else None,
        "over": st["over"],
        "complete": st["complete"],
        "can_end": "end" in legal_actions(st),
        "step": step_of(v, st, names, mode),
        "rows": rows,
        "current": current,
    }
