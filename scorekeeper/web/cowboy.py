"""The Wyoming Cowboy screen (RULES.md §1, kind ``cowboy-deal``) on the one screen
mechanism: marriages shown during the deal, the shooting referee and the end-of-deal
holdings, all taps of one log.

The deal is the draft's log of taps in the play state's notation
(``scorekeeper.games.play.cowboy``, PLAY.md): what may be tapped, whose turn it is in
a shot, the referee's verdicts, the marriages' points and the closing request all come
from ``CowboyDeal`` and the engine. This module only draws the state. Which part of the
deal a phone shows, whose cards are open, who shows a marriage and the turned card's
suit are that phone's own (``data-view``, kept in the phone); every tap names its seat.

A marriage counts at once (+25 in the totals): while the deal is open each marriage of
its log is also a ``cowboy-marriage`` entry of the deal's round, kept in step with the
log after every marriage tap (and its undo or redo); the closed deal carries them in
``shown_marriages`` and takes them over in the same write, so none counts twice, and
undoing the deal brings them back (its next log begins with them).
"""

from __future__ import annotations

import re

from flask import Blueprint

from .. import store
from ..cards import ACE, JACK, KING, QUEEN, SUIT_SYMBOLS, SUITS, Card
from ..games import catalog
from ..games import cowboy as engine
from ..games.play import Refused, Tap
from ..games.play.cowboy import ACES, GUN_CARDS, SHOT_CARDS, TENS, CowboyDeal
from ..i18n import gettext as _
from ..summary import TableSummary, summarize
from . import screens

bp = Blueprint("cowboy", __name__, url_prefix="/t/<key>/cowboy")

KIND = "cowboy-deal"
MARRIAGE = "cowboy-marriage"
DRAFT = "cowboy-deal"  # the draft's name (an older shape of it is upgraded)
MARRIAGE_TAPS = ("marriage", "withdraw_marriage")
# RULES §1 "Scoring": no held card other than these ranks has a value
HELD_CARDS = tuple(str(Card(r, s)) for s in SUITS for r in (ACE, KING, QUEEN, JACK, 10, 6, 2))


CARD_CODE = re.compile(r"(?<![\w-])(?:10|[2-9AKQJ])[SHDC](?!\w)")


def symbols(text: str | None) -> str:
    """The engine's and the state's sentences name cards by code ("turned 9H"); the
    screen shows every card by its symbol (9♥)."""
    return CARD_CODE.sub(lambda m: screens.card_symbol(m.group(0)), text or "")


def signed(points: int) -> str:
    return f"+{points}" if points > 0 else (f"−{-points}" if points < 0 else "0")


# ---------------------------------------------------------------- the deal's round


def _open_marriages(s: store.Store, table: store.Table) -> tuple[int, list[store.Entry]]:
    """The round a new deal is entered in, and the live marriages already in it (a
    closed deal undone brings its marriages back; they stay in their deal's round)."""
    entries = [e for e in s.recent_entries(table.id, kinds=(MARRIAGE, KIND)) if e.live]
    if entries:
        last = max(e.round for e in entries)
        kinds = {e.kind for e in entries if e.round == last}
        if MARRIAGE in kinds and KIND not in kinds:
            return last, [e for e in entries if e.round == last and e.kind == MARRIAGE]
    return s.next_round(table.id), []


def new_deal(s: store.Store, table: store.Table, summary: TableSummary | None) -> dict:
    """A new deal's context: its players, round, the players' ids (an old-shape draft
    names them) and the marriages already stored in its round, its log's first taps."""
    summary = summary or summarize(s, table)
    if summary.standings.finished:
        raise screens.Refusal(_("The game is over."), status=409)
    round_number, stored = _open_marriages(s, table)
    seat_of = {p.id: i for i, p in enumerate(summary.players)}
    marriages = []
    for e in stored:
        pid = next((pid for pid, pts in e.points.items() if pts), None)
        if pid in seat_of:
            marriages.append([e.id, seat_of[pid], e.request.get("suit")])
    return {
        "players": list(summary.names),
        "round": round_number,
        "ids": [p.id for p in summary.players],
        "marriages": marriages,
    }


def edit_context(s: store.Store, table: store.Table, entry: store.Entry) -> dict:
    return {"players": [p.name for p in s.players(table.id)]}


def rename_in_draft(data: dict, old: str, new: str) -> dict:
    """Taps name seats; only the deal's list of players names anyone."""
    context = data.get("context") if isinstance(data, dict) else None
    if context and isinstance(context.get("players"), list):
        context["players"] = [new if name == old else name for name in context["players"]]
    return data


class _Log:
    """Taps made up from stored data (a deal's marriages, an old draft, a request), each
    applied as it is logged; one that no longer fits is left out (what fits is kept)."""

    def __init__(self, table: store.Table, context: dict, prefix: str):
        self.state = CowboyDeal.start(context["players"], screens.settings_of(table))
        self.taps: list[dict] = []
        self.prefix = prefix
        for entry_id, seat, suit in context.get("marriages") or []:  # already stored
            self.add("marriage", f"m{entry_id}", seat=seat, suit=suit)

    def add(self, action: str, tap_id: str | None = None, **args) -> None:
        tap = {"id": tap_id or f"{self.prefix}{len(self.taps)}", "action": action, **args}
        try:
            self.state = self.state.apply(Tap.from_json(tap))
        except (Refused, KeyError, TypeError, ValueError):
            return
        self.taps.append(tap)

    def holdings(self, seat: int, held=(), guns=(), tens=(), building=()) -> None:
        for card in held:
            self.add("hold", seat=seat, card=card)
        for card in (card for gun in [*guns, building] for card in gun):
            self.add("build", seat=seat, card=card)
        for card in tens:
            self.add("lay", seat=seat, card=card)


def seed(table: store.Table, context: dict) -> list[dict]:
    """A new deal's log begins with the marriages already stored in its round."""
    return _Log(table, context, "m").taps


def rebuild(table: store.Table, context: dict, entry: store.Entry) -> list[dict]:
    """The taps of a deal saved without its log: marriages, the end and the holdings of
    its request (its shots never counted and are not known)."""
    request, log = entry.request, _Log(table, {**context, "marriages": []}, f"e{entry.id}-")
    seat = {name: i for i, name in enumerate(request.get("players") or [])}
    for m in request.get("shown_marriages") or []:
        log.add("marriage", seat=seat.get(m.get("player")), suit=m.get("suit"))
    end = request.get("end") or {}
    if end.get("by") in seat:
        log.add("end", seat=seat[end["by"]], reason=end.get("reason"))
    for name, at in seat.items():
        part = {key: (request.get(key) or {}).get(name, ()) for key in ("held", "guns", "tens")}
        log.holdings(at, **part)
    return log.taps


def upgrade(table: store.Table, data: dict, context: dict) -> list[dict]:
    """The taps of a draft stored before the tap log (per player id: held cards, drawn
    guns, the gun being built, laid-out 10s; who ended the deal and how)."""
    log = _Log(table, context, "u")
    seat_of = {str(pid): seat for seat, pid in enumerate(context.get("ids") or [])}

    def of(field: str, pid: str) -> list:
        value = data.get(field)
        return list(value.get(pid) or []) if isinstance(value, dict) else []

    for pid, seat in seat_of.items():
        fields = {"held": "held", "guns": "guns", "tens": "tens", "building": "pending"}
        log.holdings(seat, **{key: of(field, pid) for key, field in fields.items()})
    ender = seat_of.get(str(data.get("end_by")))
    if ender is not None and data.get("end_reason"):
        log.add("end", seat=ender, reason=data["end_reason"])
    return log.taps


# ---------------------------------------------------------------- marriages count at once


def _marriage_entries(s: store.Store, table: store.Table, round_number: int) -> dict:
    """(player id, suit) → the live marriage entry of the round."""
    out = {}
    for e in s.recent_entries(table.id, kinds=(MARRIAGE, KIND)):
        if e.live and e.kind == MARRIAGE and e.round == round_number:
            pid = next((pid for pid, pts in e.points.items() if pts), None)
            out[(pid, e.request.get("suit"))] = e
    return out


def sync_marriages(s: store.Store, table: store.Table, log: store.TapLog, action: str) -> bool:
    """After a marriage tap (or its undo, redo or retry): the round's marriage entries are
    the log's marriages. An edit of a saved deal stores none (the saved deal carries its
    own until the changed one replaces it). True when an entry was written."""
    data = log.data
    if action not in MARRIAGE_TAPS or not data or "context" not in data:
        return False
    context = data["context"]
    if context.get("supersedes") is not None:
        return False
    state = screens.state_of(SCREEN, table, data)
    names = list(state.players)
    ids = {p.name: p.id for p in s.players(table.id)}
    tap_of: dict = {}
    for tap in data["taps"]:
        if tap.get("action") == "marriage":
            tap_of.setdefault((tap.get("seat"), tap.get("suit")), tap["id"])
    want = {}
    for i, (seat, suit) in enumerate(state.marriages):
        shown = [{"player": names[x], "suit": y} for x, y in state.marriages[:i]]
        request = {"players": names, "player": names[seat], "suit": suit, "shown": shown}
        want[(ids.get(names[seat]), suit)] = (tap_of.get((seat, suit), "x"), request)
    have = _marriage_entries(s, table, context["round"])
    wrote = False
    for key, entry in have.items():
        if key not in want:
            s.void_entry(table.id, entry.id)
            wrote = True
    for key, (tap_id, request) in want.items():
        if key in have:
            continue
        sid = f"cm-{tap_id}"[:64]  # the tap's own: a retried or redone tap stores it once
        done = s.submission(sid, s.add_entry, table.id)
        if done is None:
            screens.record(s, table, MARRIAGE, request, context["round"], sid, exclusive=False)
        elif not s.entry(table.id, done["entry_id"]).live:
            s.restore_entry(table.id, done["entry_id"])
        wrote = True
    return wrote


def replaces(s: store.Store, table: store.Table, context: dict) -> tuple[int, ...]:
    """The marriage entries the closed deal takes over (it carries them itself)."""
    if context.get("supersedes") is not None:
        return ()
    return tuple(e.id for e in _marriage_entries(s, table, context["round"]).values())


# ---------------------------------------------------------------- what the panel shows


def _button(v: screens.View, action: str | None, on: bool = False, why: str = "", **args):
    """One tap button: what the player means, in the state's notation (none: disabled,
    ``why`` says why)."""
    vals = v.tap_vals(action, **args) if action and v.writable else None
    return {"vals": vals, "on": on, "reason": why}


def _choices(v: screens.View, action: str, arg: str, options, chosen, seat: int) -> list:
    """One button per (value, label): the tap of ``action`` naming ``seat`` and the value."""
    return [
        {"value": x, "label": label, **_button(v, action, on=chosen == x, seat=seat, **{arg: x})}
        for x, label in options
    ]


def _suit(suit: str) -> dict:
    return {
        "suit": suit,
        "symbol": SUIT_SYMBOLS[suit],
        "colour": "red" if suit in "HD" else "black",
    }


def _problem_seat(problem: dict | None, names: list[str]) -> int | None:
    """The seat an engine refusal is about (its path names the player), or None."""
    path = (problem or {}).get("path", "")
    for name in sorted(names, key=len, reverse=True):
        for section in ("held", "guns", "tens"):
            at = f"{section}.{name}"
            if path == at or path.startswith((at + "[", at + ".")):
                return names.index(name)
    return None


def _holdings(v: screens.View, st: dict, names: list[str]) -> list[dict]:
    """Every player's cards at the end: three pickers each, the cards used elsewhere
    disabled with whose they are."""
    where = {}  # card → (seat, zone)
    for h in st["holdings"]:
        for zone, cards in (
            ("held", h["held"]),
            ("drawn", [c for g in h["guns"] for c in g["cards"]]),
            ("gun", (h["building"] or {}).get("cards", [])),
            ("tens", h["tens"]),
        ):
            where.update({c: (h["seat"], zone) for c in cards})
    own = {"held": _("held"), "gun": _("gun"), "drawn": _("gun"), "tens": _("laid")}
    other = {"held": "%s", "gun": _("%s · gun"), "drawn": _("%s · gun"), "tens": _("%s · laid")}
    score, at = st["score"], _problem_seat(st["problem"], names)
    rows = []
    for h in st["holdings"]:
        seat = h["seat"]

        def picker(cards, zone, actions, seat=seat):
            mine = [c for c, (x, z) in where.items() if (x, z) == (seat, zone)]
            taken = {
                c: own[z] if x == seat else other[z] % names[x]
                for c, (x, z) in where.items()
                if (x, z) != (seat, zone)
            }
            return v.picker(cards, actions, {"seat": seat}, taken, mine)

        rows.append(
            {
                "seat": seat,
                "name": names[seat],
                "count": sum(1 for x, _zone in where.values() if x == seat),
                "total": signed(score["players"][names[seat]]["total"]) if score else None,
                "invalid": at == seat,
                "held": picker(HELD_CARDS, "held", ("hold", "unhold")),
                "gun": picker(GUN_CARDS, "gun", ("build", "unbuild")),
                "tens": picker(TENS, "tens", ("lay", "unlay")),
                "guns": [
                    {**g, "remove": _button(v, "undraw", seat=seat, gun=g["cards"])}
                    for g in h["guns"]
                ],
                "building": h["building"],
            }
        )
    return rows


def _preview(st: dict, names: list[str]) -> list[dict]:
    """The engine's score of the deal, item by item."""
    players = (st["score"] or {}).get("players", {})
    rows = [{"name": name, **players[name]} for name in names if name in players]
    for row in rows:
        row["total"] = signed(row["total"])
        row["lines"] = [
            {**i, "label": _(engine.item_label(i["code"])), "points": signed(i["points"])}
            for i in row["items"]
        ]
    return rows


def outcome_of(code: str) -> tuple[str, str]:
    """The referee's outcome codes (CONTRACT cowboy-shot) → (tone, label)."""
    return {
        "not_allowed": ("no", _("Not allowed")),
        "choice": ("info", _("The victim chooses")),
        "backfire": ("no", _("Backfire")),
        "quick_draw": ("no", _("Quick Draw")),
        "miss": ("no", _("Miss")),
        "turn_card": ("info", _("Turn a card")),
        "hit": ("yes", _("Hit")),
        "dodge": ("yes", _("Dodge")),
    }.get(code, ("info", code))


def _shot(v: screens.View, st: dict, names: list[str]) -> dict:
    """The referee: who shoots at whom with which gun, the victim's cards, the verdict;
    every choice offered is one of the state's legal taps."""
    shot, aim = st["shot"], st["aim"]
    legal = {e["action"]: e for e in st["legal"]}
    current = shot or aim or {"attacker": None, "victim": None, "gun": []}
    attacker, victim = current["attacker"], current["victim"]
    out: dict = {
        "active": bool(shot or aim),
        "started": shot is not None,
        "attacker_name": names[attacker] if attacker is not None else None,
        "victim_name": names[victim] if victim is not None else None,
        "gun_cards": current["gun"],
        "gun_name": current.get("gun_name"),
        "gun_reason": aim["reason"] if aim and aim["gun"] else "",
        "cancel": _button(v, "cancel_shot") if shot or aim else None,
        "over": _button(v, "shot_over") if "shot_over" in legal else None,
        "error": shot and shot["error"] and shot["error"]["message"],
        "shots": [
            {
                **x,
                "attacker": names[x["attacker"]],
                "victim": names[x["victim"]],
                "label": outcome_of(x["outcome"])[1],
                "tone": outcome_of(x["outcome"])[0],
            }
            for x in st["shots"]
        ],
    }
    aiming = "aim" in legal
    out["roles"] = [
        {
            "role": role,
            "label": label,
            "players": [
                {
                    "name": name,
                    **_button(
                        v,
                        "aim" if aiming and not (role == "victim" and seat == attacker) else None,
                        on=current[role] == seat,
                        role=role,
                        seat=seat,
                    ),
                }
                for seat, name in enumerate(names)
            ],
        }
        for role, label in (("attacker", _("Who shoots")), ("victim", _("At whom")))
    ]
    if aiming:
        full = {} if "load" in legal else {c: _("3 cards") for c in GUN_CARDS}
        out["gun"] = v.picker(GUN_CARDS, ("load", "unload"), {}, full, current["gun"])
    if shot:
        used = {c: _("the gun") for c in shot["gun"]}
        if shot["turned"]:
            used[shot["turned"]] = _("turned")
        out["held"] = v.picker(
            SHOT_CARDS, ("victim_holds", "victim_lacks"), {"seat": victim}, used, shot["held"]
        )
        yes_no = ((True, _("Yes")), (False, _("No")))
        out["drawn"] = _choices(v, "victim_gun", "drawn", yes_no, shot["has_gun_drawn"], victim)
        verdict = shot["verdict"]
        if verdict:
            code = verdict["outcome"]
            tone, label = outcome_of(code)
            out["outcome"] = {
                "code": code,
                "tone": tone,
                "label": label,
                "gun": engine.GUN_NAMES.get(verdict.get("gun")),
                "reason": verdict.get("reason", ""),
                "ends_deal": bool(verdict.get("ends_deal")),
                "declined": code == "dodge" and shot["declines_ace"],
            }
        if "turn" in legal:
            turnable = set(legal["turn"]["card"])
            suits = []
            for suit in SUITS:
                cards = [str(Card(r, suit)) for r in (KING, QUEEN, JACK, *range(10, 1, -1))]
                used = {c: _("used") for c in cards if c not in turnable}
                picked = [shot["turned"]] if shot["turned"] else []
                cards = v.picker(cards, "turn", {"seat": attacker}, used, picked)
                suits.append({**_suit(suit), "cards": cards})
            out["turn"] = {"suits": suits, "suit": shot["turned"][-1] if shot["turned"] else ""}
        outcomes = [(o, outcome_of(o)[1]) for o in legal.get("choose", {}).get("outcome", [])]
        out["choose"] = _choices(v, "choose", "outcome", outcomes, shot["chosen"], victim)
        kings = [(c, screens.card_symbol(c)) for c in legal.get("give", {}).get("card", [])]
        out["give"] = _choices(v, "give", "card", kings, shot["given"], victim)
        if "take_ace" in legal:
            declined = shot["declines_ace"]
            out["take_ace"] = {
                "declined": declined,
                **_button(v, "take_ace", on=declined, seat=victim, take=declined),
            }
    back = set((legal.get("ace_on_table") or {}).get("card", []))
    held = {c: _("held") for c in ACES if c not in back and c not in st["aces_on_table"]}
    out["aces"] = v.picker(ACES, ("ace_on_table", "ace_off_table"), {}, held, st["aces_on_table"])
    return out


def view(v: screens.View) -> dict:
    state, context, table = v.state, v.context, v.table
    st = state.to_json()
    names = list(state.players)
    shown, end = set(st["suits_shown"]), st["end"]
    key = table.scorer_key if v.writable else table.watch_key
    at = _problem_seat(st["problem"], names)
    reasons = (
        ("tens", _("Tens: all four 10s out and a 22 drawn")),
        ("aces", _("Fourth ace left the table")),
    )
    return {
        "finished": False,
        "symbols": symbols,
        "can_write": v.writable,
        "v": v,
        "round": context.get("round"),
        "editing": context.get("supersedes") is not None,
        "view_key": f"cowboy:{key}",
        "part": "shot" if st["shot"] or st["aim"] else ("end" if end else "play"),
        "step": st["next"],
        "house_rules": [
            {
                "label": s.label,
                "decision": s.decision,
                "on": bool(table.settings.get(s.key, s.default)),
            }
            for s in catalog.game("cowboy").settings
            if s.house_rule
        ],
        "marriages": [
            {
                **m,
                "points": signed(m["points"]),
                "withdraw": _button(v, "withdraw_marriage", seat=m["seat"], suit=m["suit"]),
            }
            for m in st["marriages"]
        ],
        "seats": [
            {
                "seat": seat,
                "name": name,
                "suits": [
                    {
                        **_suit(suit),
                        "shown": suit in shown,
                        **_button(v, None if suit in shown else "marriage", seat=seat, suit=suit),
                    }
                    for suit in SUITS
                ],
                "reasons": [
                    {
                        "code": code,
                        "label": label,
                        **_button(
                            v,
                            "end",
                            on=bool(end) and (end["seat"], end["reason"]) == (seat, code),
                            seat=seat,
                            reason=code,
                        ),
                    }
                    for code, label in reasons
                ],
            }
            for seat, name in enumerate(names)
        ],
        "shot": _shot(v, st, names) if v.writable else {},
        "end_seat": str(end["seat"]) if end else "",
        "ended": bool(end),
        "holdings": _holdings(v, st, names) if v.writable else [],
        "problem": st["problem"]["message"] if st["problem"] else None,
        "problem_player": names[at] if at is not None else None,
        "preview": _preview(st, names),
        "complete": st["complete"],
        "submission_id": new_submission_id(),
    }


def new_submission_id() -> str:
    from .tables import new_submission_id  # tables imports the screens

    return new_submission_id()


def saved(context: dict, outcome: dict) -> str:
    if outcome.get("supersedes") is not None:
        return _("Round %(n)d changed.", n=outcome.get("round") or context.get("round"))
    return _("Deal of round %(n)d saved.", n=outcome.get("round") or context.get("round"))


SCREEN = screens.TapScreen(
    game="cowboy",
    draft=DRAFT,
    kind=KIND,
    new_deal=new_deal,
    view=view,
    edit_context=edit_context,
    rebuild=rebuild,
    saved=saved,
    upgrade=upgrade,
    seed=seed,
    after_tap=sync_marriages,
    replaces=replaces,
)
screens.adopt(bp, SCREEN)


def panel_context(table: store.Table, summary: TableSummary, access: str) -> dict:
    s = screens.store_of()
    log = s.tap_log(table.id, DRAFT)
    editing = bool(log.data and (log.data.get("context") or {}).get("supersedes") is not None)
    if summary.standings.finished and not editing:
        return {"finished": True, "can_write": access == "score", "dealer": None}
    context = view(screens.view_of(SCREEN, table, access, log, summary=summary))
    context["dealer"] = summary.standings.dealer
    return context
