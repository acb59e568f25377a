"""The Kvanta screen: a round wizard with virtual dice (RULES §3).

A round is walked step by step: the first dealer draw, the burned cards and the
turned card, the target roll (three dice rolled on the server, or physical dice
typed in), the Hand check, the tricks with the exchange die (a 6 is Flux), the
call settlement and the poker prize; and the three ways the game ends when the
burned cards are reached.

Everything being entered is a draft on the server (``kvanta-round``), saved at
every tap, so a reload or another phone continues where it stopped. Each step
that scores is its own entry in the round (dealer draw, Hand, Flux, call, poker),
so the history can undo any of them. Every roll is stored the moment it is made,
with its time and round; a repost of the same roll request returns the stored
roll, and a deliberate redo is a new, listed roll (the latest target counts).

No game rule lives here: the engines (``scorekeeper.games.kvanta``) decide, the
dice come from ``scorekeeper.dice``. Tests may set ``app.config["DICE_RNG"]`` to
any object with ``randrange`` (e.g. ``random.Random(7)``); production leaves it
unset and rolls with ``secrets.SystemRandom``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime

from flask import (
    Blueprint,
    abort,
    current_app,
    g,
    request,
)

from .. import api, dice, store
from ..cards import RANK_TEXT, parse_card
from ..errors import RuleError
from ..games import kvanta as engine
from ..games import standings as standings_rules
from ..i18n import gettext as _
from ..summary import TableSummary, summarize
from .screens import record
from .tables import (
    get_store,
    live_fragments,
    load,
    render_board,
    see_other,
    table_url,
    wants_partial,
)

bp = Blueprint("kvanta", __name__, url_prefix="/t/<key>/kvanta")

DRAFT = "kvanta-round"
GAME_DRAFT = "kvanta-game"  # K-D9: the burned cards, entered once per game
SETUP_ROUND = 0  # the first dealer draw is set-up, before round 1
TARGET_ROLL = "kvanta-target"
EXCHANGE_ROLL = "kvanta-exchange"
MAX_BURN = 10
POKER_SIZES = engine.POKER_SIZES
MAX_DIGITS = len(str(engine.MAX_SUM))

# the picker shows a suit per block, ranks in Kvanta's order A K Q J 10 … 2
SUIT_ROWS = ("S", "H", "D", "C")
RANK_ROW = (14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2)
CARDS_BY_SUIT = [[f"{RANK_TEXT[r]}{s}" for r in RANK_ROW] for s in SUIT_ROWS]
ALL_CARDS = frozenset(c for row in CARDS_BY_SUIT for c in row)

# which player-by-player entry ("slot") each step uses, and how many cards a seat holds
SLOT_OF_PHASE = {
    "dealer": "dealer",
    "tricks": "trick",
    "hand": "hand",
    "call": "call",
    "final-compare": "call",
    "poker": "poker",
    "final-poker": "poker",
}
SUM_SLOTS = frozenset({"hand", "call"})  # a seat may give a plain sum instead of cards

STEPS = ("deal", "target", "tricks", "call", "poker")
STEP_OF_PHASE = {
    "dealer": "deal",
    "setup": "deal",
    "hand": "target",
    "tricks": "tricks",
    "call": "call",
    "final-compare": "call",
    "poker": "poker",
    "final-poker": "poker",
}


def _step_labels() -> dict[str, str]:
    return {
        "deal": _("Deal"),
        "target": _("Target"),
        "tricks": _("Tricks"),
        "call": _("Call"),
        "poker": _("Poker"),
    }


def _category_labels() -> dict[str, str]:
    return {
        "five_of_a_kind": _("Five of a kind"),
        "straight_flush": _("Straight flush"),
        "four_of_a_kind": _("Four of a kind"),
        "full_house": _("Full house"),
        "flush": _("Flush"),
        "straight": _("Straight"),
        "three_of_a_kind": _("Three of a kind"),
        "two_pair": _("Two pair"),
        "pair": _("Pair"),
        "high_card": _("High card"),
    }


class Refused(Exception):
    """A tap the screen turns down; the message is shown, nothing is stored."""

    def __init__(self, message: str, status: int = 422, fields: dict | None = None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.fields = fields or {}


class Stale(Exception):
    """A tap made on an older view of the draft: answer with the current one."""


class FacesRng:
    """Physical dice: an "RNG" that answers with the faces the players typed, so the
    dice module checks and totals them exactly as it does a virtual roll."""

    def __init__(self, faces: list[int]):
        self.faces = list(faces)

    def randrange(self, start: int, stop: int) -> int:
        return self.faces.pop(0)


def dice_rng():
    """The injected test RNG, or None (the dice module then uses SystemRandom)."""
    return current_app.config.get("DICE_RNG")


# ---------------------------------------------------------------- the draft


def new_draft(round_number: int, since_roll: int) -> dict:
    return {
        "round": round_number,
        "since_roll": since_roll,  # rolls with a larger id belong to this round
        "phase": "setup",
        "burn": None,
        "trump": None,  # the turned card: trump suit and poker prize
        "phys": [None, None, None],  # physical target dice being tapped in
        "phys_ex": None,  # a physical exchange die being tapped in
        "hand_check": False,
        "draw_winner": None,
        "trick": 1,
        "trick_winner": None,
        "dispute": False,
        "exchange": None,  # {"roll_id", "die", "flux", "player", "entry"} of this trick
        "caller": None,
        "flux": False,
        "poker_size": 5,
        "slots": {},
    }


def rename_in_draft(draft: dict, old: str, new: str) -> dict:
    """The draft keeps what was typed per player name: a rename mid-round carries it
    over (``store.rename_player`` calls this in the same write)."""
    for slot in draft.get("slots", {}).values():
        for key in ("sums", "cards", "mode"):
            typed = slot.get(key) or {}
            if old in typed:
                typed[new] = typed.pop(old)
        if slot.get("active") == old:
            slot["active"] = new
    for key in ("draw_winner", "trick_winner", "caller"):
        if draft.get(key) == old:
            draft[key] = new
    exchange = draft.get("exchange")
    if isinstance(exchange, dict) and exchange.get("player") == old:
        exchange["player"] = new
    return draft


@dataclass
class Round:
    """One request's view of the round: the table, its summary and the draft."""

    table: store.Table
    access: str
    s: store.Store
    summary: TableSummary
    draft: dict
    version: int
    exists: bool
    rolls: list[dict] = field(default_factory=list)  # this round's
    # the table's latest rolls before this round (``EARLIER_ROLLS`` of them, of
    # ``earlier_count``): a long table's dice are not all read for every page
    all_rolls: list[dict] = field(default_factory=list)
    earlier_count: int = 0

    @property
    def names(self) -> list[str]:
        return self.summary.names

    @property
    def round(self) -> int:
        return self.draft["round"]

    @property
    def round_entries(self) -> list[store.Entry]:
        return [e for e in self.summary.entries if e.live and e.round == self.round]

    @property
    def phase(self) -> str:
        return effective_phase(self.draft, self.summary, self.round_entries)

    @property
    def target_roll(self) -> dict | None:
        targets = [r for r in self.rolls if r["kind"] == TARGET_ROLL]
        return targets[-1] if targets else None

    @property
    def target(self) -> int | None:
        roll = self.target_roll
        return roll["result"]["target"] if roll else None

    def save(self) -> None:
        """Store the draft; a phone that read an older version is told (Conflict)."""
        self.version = self.s.save_draft(
            self.table.id, DRAFT, self.draft, expected_version=self.version
        )
        self.exists = True

    def record(
        self, kind: str, req: dict, sid: str, round_number: int | None = None, closes: bool = False
    ) -> dict:
        """Store an entry worked out from this round's draft: one of its kind per round,
        and only if no tap on another phone changed the draft since it was read
        (``based_on_draft``). ``closes``: the round is over, its draft goes with it."""
        return record(
            self.s,
            self.table,
            kind,
            req,
            self.round if round_number is None else round_number,
            sid,
            exclusive=True,
            close_draft=DRAFT if closes else None,
            based_on_draft=(DRAFT, self.version),
        )


EARLIER_ROLLS = 30  # the earlier dice a round's panel lists, newest first


def load_round(table: store.Table, access: str, summary: TableSummary | None = None) -> Round:
    s = get_store()
    summary = summary or summarize(s, table)
    data, version = s.draft(table.id, DRAFT)
    exists = data is not None
    if data is None:
        data = new_draft(s.next_round(table.id), s.last_roll_id(table.id))
    rolls = s.rolls(table.id, after=data["since_roll"])
    earlier = s.rolls(table.id, up_to=data["since_roll"], latest=EARLIER_ROLLS)
    count = s.roll_count(table.id, up_to=data["since_roll"]) if earlier else 0
    return Round(table, access, s, summary, data, version, exists, rolls, earlier, count)


def effective_phase(draft: dict, summary: TableSummary, round_entries: list) -> str:
    """The step to show. Scoring steps are read from the live entries, so undoing
    one from the history brings its step back."""
    if summary.standings.finished:
        return "over"
    phase = draft["phase"]
    if phase in ("final-poker", "final-compare"):
        return phase
    kinds = {e.kind for e in round_entries}
    if "kvanta-poker" in kinds:
        return "done"
    if kinds & {"kvanta-hand", "kvanta-call"}:
        return "poker"
    if phase == "setup" and summary.standings.dealer is None:
        return "dealer"
    return phase


def round_dealer(summary: TableSummary, round_number: int) -> str | None:
    """Who deals this round: the table's dealer before this round's own entries
    (the table's progress, less this round's deal if it has been scored)."""
    dealt = any(
        e.live and e.round == round_number and e.kind not in standings_rules.NON_DEAL_KINDS
        for e in summary.entries
    )
    progress = replace(summary.progress, deals_played=summary.progress.deals_played - dealt)
    return standings_rules.dealer("kvanta", summary.names, progress)


# ---------------------------------------------------------------- seats (slots)


def slot_size(draft: dict, slot: str) -> int:
    if slot in ("dealer", "trick"):
        return 1
    if slot == "poker":
        return draft.get("poker_size", 5)
    return engine.HAND_SIZE


def seat_mode(draft: dict, slot: str, name: str) -> str:
    if slot not in SUM_SLOTS:
        return "cards"
    return draft["slots"].get(slot, {}).get("mode", {}).get(name, "sum")


def _slot(draft: dict, slot: str) -> dict:
    data = draft["slots"].setdefault(slot, {})
    for key in ("sums", "cards", "mode"):
        data.setdefault(key, {})
    return data


def _sum_value(text: str | None) -> int | None:
    if text is None or not re.fullmatch(rf"-?\d{{1,{MAX_DIGITS}}}", text):
        return None
    value = int(text)
    return value if abs(value) <= engine.MAX_SUM else None


def seat_complete(draft: dict, slot: str, name: str) -> bool:
    data = draft["slots"].get(slot, {})
    if seat_mode(draft, slot, name) == "sum":
        return _sum_value(data.get("sums", {}).get(name)) is not None
    cards = data.get("cards", {}).get(name, [])
    if slot == "poker":
        return len(cards) in POKER_SIZES and len(cards) == slot_size(draft, slot)
    return len(cards) == slot_size(draft, slot)


def next_open_seat(draft: dict, slot: str, names: list[str], after: str | None) -> str | None:
    """The next player (seat order, wrapping) whose entry is not complete yet."""
    start = names.index(after) + 1 if after in names else 0
    for i in range(len(names)):
        name = names[(start + i) % len(names)]
        if not seat_complete(draft, slot, name):
            return name
    return None


def slot_active(draft: dict, slot: str, names: list[str]) -> str | None:
    data = draft["slots"].get(slot, {})
    active = data.get("active")
    if active in names:
        return active
    if "active" in data:  # deliberately closed once everything was entered
        return None
    return next_open_seat(draft, slot, names, None)


def round_cards(draft: dict, slot: str) -> tuple[str, ...]:
    """K-D10: the round's turned card counts toward the three copies of every card
    entered in the round (the first dealer draw is before any deal)."""
    return (draft["trump"],) if slot != "dealer" and draft.get("trump") else ()


def burn_is_asked(summary: TableSummary) -> bool:
    """K-D9: the burned cards are burned once per game, so they are asked for only
    until the game's first deal is scored."""
    return not any(e.live and e.kind not in standings_rules.NON_DEAL_KINDS for e in summary.entries)


def slot_copies(draft: dict, slot: str, extra: tuple[str, ...] = ()) -> Counter:
    data = draft["slots"].get(slot, {})
    counts: Counter = Counter(extra)
    for name, cards in data.get("cards", {}).items():
        if seat_mode(draft, slot, name) == "cards":
            counts.update(cards)
    return counts


# ---------------------------------------------------------------- engine requests


def _seats_request(draft: dict, slot: str, names: list[str]) -> tuple[dict, dict, list[str]]:
    """(hands, sums, missing players) of a slot."""
    data = draft["slots"].get(slot, {})
    hands: dict = {}
    sums: dict = {}
    missing: list[str] = []
    for name in names:
        if not seat_complete(draft, slot, name):
            missing.append(name)
        elif seat_mode(draft, slot, name) == "sum":
            sums[name] = _sum_value(data["sums"][name])
        else:
            hands[name] = list(data["cards"][name])
    return hands, sums, missing


def dealer_request(r: Round) -> tuple[dict | None, list[str]]:
    hands, _sums, missing = _seats_request(r.draft, "dealer", r.names)
    if missing:
        return None, missing
    return {"draws": {n: cards[0] for n, cards in hands.items()}}, []


def trick_request(r: Round) -> tuple[dict | None, list[str]]:
    hands, _sums, missing = _seats_request(r.draft, "trick", r.names)
    if missing or not r.draft.get("trump"):
        return None, missing
    trump = parse_card(r.draft["trump"]).suit
    return {"trump": trump, "plays": {n: cards[0] for n, cards in hands.items()}}, []


def hand_request(r: Round) -> tuple[dict | None, list[str]]:
    hands, sums, missing = _seats_request(r.draft, "hand", r.names)
    if missing or r.target is None:
        return None, missing
    req: dict = {"target": r.target}
    # each of hands and sums may be left out; together they name every player
    if hands or not sums:
        req["hands"] = hands
    if sums:
        req["sums"] = sums
    if r.draft.get("draw_winner"):
        req["draw_winner"] = r.draft["draw_winner"]
    return req, []


def call_request(r: Round) -> tuple[dict | None, list[str]]:
    hands, sums, missing = _seats_request(r.draft, "call", r.names)
    if missing or r.target is None:
        return None, missing
    final = r.phase == "final-compare"
    req: dict = {"target": r.target, "caller": None if final else r.draft["caller"]}
    if hands or not sums:
        req["hands"] = hands
    if sums:
        req["sums"] = sums
    if r.draft.get("flux") and not final:
        req["flux"] = True
    return req, []


def poker_request(r: Round) -> tuple[dict | None, list[str]]:
    hands, _sums, missing = _seats_request(r.draft, "poker", r.names)
    if missing or not r.draft.get("trump"):
        return None, missing
    return {"prize_card": r.draft["trump"], "hands": hands, "totals": dict(r.summary.totals)}, []


REQUESTS = {
    "kvanta-dealer": dealer_request,
    "kvanta-trick": trick_request,
    "kvanta-hand": hand_request,
    "kvanta-call": call_request,
    "kvanta-poker": poker_request,
}
KIND_OF_PHASE = {
    "dealer": "kvanta-dealer",
    "tricks": "kvanta-trick",
    "hand": "kvanta-hand",
    "call": "kvanta-call",
    "final-compare": "kvanta-call",
    "poker": "kvanta-poker",
    "final-poker": "kvanta-poker",
}


def player_of_path(path: str, names: list[str]) -> str | None:
    """``hands.Ana[2]`` → ``Ana``: the player a refusal is about, if any."""
    for name in sorted(names, key=len, reverse=True):
        for prefix in ("hands.", "sums.", "draws.", "plays.", "totals."):
            head = prefix + name
            if path == head or path.startswith(head + "["):
                return name
    return None


def preview(r: Round, kind: str) -> dict:
    """The engine's answer for what has been entered so far (nothing is stored)."""
    req, missing = REQUESTS[kind](r)
    out: dict = {"kind": kind, "request": req, "missing": missing, "result": None, "error": None}
    if req is None:
        return out
    try:
        out["result"] = api.evaluate(kind, req)
    except RuleError as exc:
        out["error"] = exc.message
        out["error_player"] = player_of_path(exc.path, r.names)
    return out


# ---------------------------------------------------------------- the view


def _time(stamp: str) -> str:
    try:
        return datetime.fromisoformat(stamp).astimezone().strftime("%H:%M:%S")
    except ValueError:
        return stamp


def roll_view(roll: dict, counting_id: int | None, fresh_id: int | None) -> dict:
    exchange = roll["kind"] == EXCHANGE_ROLL
    result = roll["result"]
    if exchange:
        label = _("Exchange die")
        if result.get("player"):
            label = _("Exchange die (%(name)s)", name=result["player"])
        total = result.get("die")
        outcome = _("Flux") if result.get("flux") else _("exchange %(n)d", n=result.get("die", 0))
    else:
        label = _("Target")
        total = result.get("target")
        outcome = _("target %(n)d", n=total or 0)
    return {
        "id": roll["id"],
        "round": roll["round"],
        "kind": roll["kind"],
        "exchange": exchange,
        "label": label,
        "faces": [{"n": n} for n in roll["dice"] if 1 <= n <= dice.FACES],
        "total": total,
        "outcome": outcome,
        "physical": roll["physical"],
        "time": _time(roll["created"]),
        "stamp": roll["created"],
        "counts": roll["id"] == counting_id,
        "fresh": roll["id"] == fresh_id,
    }


def keypad(value: str) -> list[dict]:
    """The number keypad's keys for one seat: each key carries the value it sets
    (a "set", so a retried tap cannot type a digit twice) and whether the entry
    is then complete (no further digit fits, so the next player is selected)."""
    sign = "-" if value.startswith("-") else ""
    digits = value.lstrip("-")
    keys = []
    for label in ("7", "8", "9", "4", "5", "6", "1", "2", "3", "±", "0", "⌫"):
        if label.isdigit():
            new_digits = ("" if digits == "0" else digits) + label
            ok = len(new_digits) <= MAX_DIGITS and int(new_digits) <= engine.MAX_SUM
            new = sign + new_digits
            done = ok and (new_digits == "0" or int(new_digits) * 10 > engine.MAX_SUM)
            keys.append({"label": label, "value": new, "next": done, "disabled": not ok})
        elif label == "±":
            new = digits if sign else "-" + digits
            keys.append({"label": label, "value": new, "next": False, "disabled": False,
                         "aria": _("Plus or minus")})  # fmt: skip
        else:
            new = (sign + digits[:-1]) if digits else ""
            keys.append({"label": label, "value": new if new != "-" else "", "next": False,
                         "disabled": not value, "aria": _("Delete a digit")})  # fmt: skip
    return keys


def slot_view(r: Round, slot: str, errors: dict | None = None) -> dict:
    draft, names = r.draft, r.names
    data = draft["slots"].get(slot, {})
    size = slot_size(draft, slot)
    active = slot_active(draft, slot, names)
    errors = errors or {}
    rows = []
    for name in names:
        mode = seat_mode(draft, slot, name)
        rows.append(
            {
                "name": name,
                "mode": mode,
                "sum": data.get("sums", {}).get(name),
                "cards": list(data.get("cards", {}).get(name, [])),
                "complete": seat_complete(draft, slot, name),
                "active": name == active,
                "error": errors.get(name),
            }
        )
    view: dict = {
        "slot": slot,
        "size": size,
        "rows": rows,
        "active": active,
        "can_switch": slot in SUM_SLOTS,
        "complete": all(row["complete"] for row in rows),
        "missing": [row["name"] for row in rows if not row["complete"]],
    }
    if active is not None:
        mode = seat_mode(draft, slot, active)
        view["mode"] = mode
        if mode == "sum":
            view["keypad"] = keypad(data.get("sums", {}).get(active) or "")
        else:
            copies = slot_copies(draft, slot, round_cards(draft, slot))
            view["hand"] = list(data.get("cards", {}).get(active, []))
            view["taken"] = {code: _("3 used") for code, n in copies.items() if n >= engine.DECKS}
    return view


def panel_context(table: store.Table, summary: TableSummary, access: str) -> dict:
    """What ``games/kvanta/_panel.html`` shows under the name ``screen``."""
    r = load_round(table, access, summary)
    return build_view(r, g.get("kv_field_errors"), g.get("kv_fresh_roll"))


def build_view(r: Round, field_errors: dict | None = None, fresh: int | None = None) -> dict:
    phase = r.phase
    draft = r.draft
    target_roll = r.target_roll
    rolls = [roll_view(x, target_roll["id"] if target_roll else None, fresh) for x in r.rolls]
    earlier = [roll_view(x, None, None) for x in r.all_rolls if x["id"] <= draft["since_roll"]]
    view: dict = {
        "phase": phase,
        "round": r.round,
        "draft": draft,
        "exists": r.exists,
        "v": r.version,
        "names": r.names,
        "dealer": round_dealer(r.summary, r.round),
        "burn": game_burn(r),
        "burn_asked": burn_is_asked(r.summary),
        "burn_choices": list(range(MAX_BURN + 1)),
        "trump": draft.get("trump"),
        "cards_by_suit": CARDS_BY_SUIT,
        "suit_names": [_("Spades"), _("Hearts"), _("Diamonds"), _("Clubs")],  # SUIT_ROWS
        "target": r.target,
        "target_roll": roll_view(target_roll, target_roll["id"], fresh) if target_roll else None,
        "rolls": rolls,
        "earlier_rolls": list(reversed(earlier)),
        "earlier_count": r.earlier_count,
        "faces": [{"n": n} for n in range(1, dice.FACES + 1)],
        "phys": draft.get("phys") or [None, None, None],
        "phys_ready": all(draft.get("phys") or [None]),
        "phys_ex": draft.get("phys_ex"),
        "categories": _category_labels(),
        "poker_sizes": POKER_SIZES,
        "exchange": draft.get("exchange"),
        "flux_live": (draft.get("exchange") or {}).get("entry") in {e.id for e in r.round_entries},
        "answers_with_board": answers_with_board,
    }
    now = STEP_OF_PHASE.get(phase)
    labels = _step_labels()
    view["steps"] = [{"label": labels[step], "now": step == now} for step in STEPS]
    slot = SLOT_OF_PHASE.get(phase)
    if (phase == "tricks" and not draft.get("dispute")) or (
        phase == "hand" and not draft.get("hand_check")
    ):
        slot = None
    if slot:
        view["seats"] = slot_view(r, slot, field_errors)
    kind = KIND_OF_PHASE.get(phase)
    if kind and (slot or phase not in ("tricks", "hand")):
        view["preview"] = preview(r, kind)
        if view["preview"].get("error_player") and "seats" in view:
            for row in view["seats"]["rows"]:
                if row["name"] == view["preview"]["error_player"] and not row["error"]:
                    row["error"] = view["preview"]["error"]
    if phase in ("call", "final-compare", "poker", "final-poker"):
        view["caller"] = None if phase == "final-compare" else draft.get("caller")
    return view


# ---------------------------------------------------------------- responses


def respond(r: Round, status: int = 200, board: bool = False, **extra):
    """For htmx, the panel with the rest of what the poll refreshes, out of band
    (``live_fragments``), or the whole board for the actions that store entries (their
    buttons target ``#board``); the page otherwise."""
    table = r.s.table(r.table.id)
    g.kv_field_errors = extra.pop("kv_field_errors", None)
    if not wants_partial():
        if status >= 400:
            return render_board(table, r.access, status, **extra)
        return see_other(table_url(table))
    if board:
        return render_board(table, r.access, status, **extra)
    return live_fragments(
        table, r.access, status, fresh=True, personal=bool(g.kv_field_errors), **extra
    )


# actions whose buttons target #board: they store entries, so totals and history change
BOARD_ACTIONS = frozenset({"dealer", "save-hand", "save-call", "save-poker", "end", "abandon"})


def answers_with_board(name: str, which: str | None = None) -> bool:
    """Whether this action's button targets #board (the exchange die may store a Flux)."""
    return name in BOARD_ACTIONS or (name == "roll" and which == "exchange")


ACTIONS: dict = {}


def action(name: str, phases: tuple[str, ...] | None = None):
    """Register ``POST /t/<key>/kvanta/<name>``: fn(round, form) → dict of extras or None."""

    def register(fn):
        def view(key: str):
            table, access = load(key, write=True)
            if table.game != "kvanta":
                abort(404)
            r = load_round(table, access)
            board = answers_with_board(name, request.form.get("which"))
            sid = request.form.get("sid", "")
            try:
                write = r.s.add_roll if name == "roll" else r.s.add_entry
                replay = r.s.submission(sid, write, r.table.id) if sid else None
                if replay is not None and name != "roll":
                    # a retried post (flaky Wi-Fi, a double tap): it was stored once already
                    return respond(r, board=board, kv_message=_("Already saved."))
                if replay is None and phases is not None and r.phase not in phases:
                    raise Refused(
                        _("That step is over; here is where the round stands now."), status=409
                    )
                extra = fn(r, request.form) or {}
            except Stale:
                return respond(
                    r,
                    board=board,
                    kv_message=_("That tap came from an older screen; here is the current one."),
                )
            except Refused as exc:
                return respond(
                    r,
                    exc.status,
                    board=board,
                    kv_error=exc.message,
                    kv_field_errors=exc.fields or None,
                )
            except RuleError as exc:
                who = player_of_path(exc.path, r.names)
                errors = {who: exc.message} if who else None
                return respond(r, 422, board=board, kv_error=exc.message, kv_field_errors=errors)
            except store.Conflict as exc:
                return respond(load_round(table, access), 409, board=board, kv_error=exc.message)
            except store.StoreError as exc:
                return respond(r, 422, board=board, kv_error=exc.message)
            extra.pop("board", None)
            fresh = extra.pop("fresh", None)
            if fresh is not None:
                g.kv_fresh_roll = fresh
            return respond(r, board=board, **extra)

        view.__name__ = f"kvanta_{name.replace('-', '_')}"
        bp.add_url_rule(f"/{name}", endpoint=name, view_func=view, methods=["POST"])
        ACTIONS[name] = fn
        return fn

    return register


# ---------------------------------------------------------------- form helpers


def _player(r: Round, form, key: str = "player") -> str:
    name = form.get(key, "")
    if name not in r.names:
        raise Refused(_("Choose one of the players."))
    return name


def _int(form, key: str, lo: int, hi: int, message: str) -> int:
    try:
        value = int(form.get(key, ""))
    except ValueError:
        raise Refused(message) from None
    if not lo <= value <= hi:
        raise Refused(message)
    return value


def _card(form, key: str = "card") -> str:
    raw = form.get(key, "")
    try:
        code = str(parse_card(raw))
    except ValueError:
        raise Refused(_("That is not a card of the three decks.")) from None
    if code not in ALL_CARDS:
        raise Refused(_("That is not a card of the three decks."))
    return code


def _sid(form) -> str:
    sid = (form.get("sid") or form.get("submission_id") or "").strip()
    if not sid or len(sid) > 64:
        raise Refused(_("This button is out of date; reload the page and try again."), 400)
    return sid


def _check_version(r: Round, form) -> None:
    if form.get("v", "") != str(r.version):
        raise Stale


def _slot_for(r: Round, form) -> str:
    slot = form.get("slot", "")
    expected = SLOT_OF_PHASE.get(r.phase)
    if slot != expected or (slot == "trick" and not r.draft.get("dispute")):
        raise Refused(_("That step is over; here is where the round stands now."), status=409)
    if slot == "hand" and not r.draft.get("hand_check"):
        raise Refused(_("Open the Hand check first."), status=409)
    return slot


# ---------------------------------------------------------------- seats: taps that set


@action("select")
def act_select(r: Round, form):
    slot = _slot_for(r, form)
    name = _player(r, form)
    _slot(r.draft, slot)["active"] = name
    r.save()


@action("mode")
def act_mode(r: Round, form):
    slot = _slot_for(r, form)
    name = _player(r, form)
    mode = form.get("mode", "")
    if slot not in SUM_SLOTS or mode not in ("sum", "cards"):
        raise Refused(_("Choose a sum or the cards."))
    data = _slot(r.draft, slot)
    data["mode"][name] = mode
    data["active"] = name
    r.save()


@action("key")
def act_key(r: Round, form):
    """A keypad tap: sets the seat's sum to the value the key carries."""
    slot = _slot_for(r, form)
    name = _player(r, form)
    if seat_mode(r.draft, slot, name) != "sum":
        raise Refused(_("%(name)s is entering cards, not a sum.", name=name))
    value = form.get("value", "").replace("−", "-")
    if value not in ("", "-") and _sum_value(value) is None:
        raise Refused(
            _("A sum is a whole number from −%(n)d to %(n)d.", n=engine.MAX_SUM),
            fields={name: _("A sum is a whole number from −%(n)d to %(n)d.", n=engine.MAX_SUM)},
        )
    data = _slot(r.draft, slot)
    data["sums"][name] = value
    done = form.get("next") == "1"
    data["active"] = next_open_seat(r.draft, slot, r.names, name) if done else name
    r.save()


@action("next-seat")
def act_next_seat(r: Round, form):
    slot = _slot_for(r, form)
    name = _player(r, form)
    _slot(r.draft, slot)["active"] = next_open_seat(r.draft, slot, r.names, name)
    r.save()


@action("card")
def act_card(r: Round, form):
    """A card picker tap: one card seats (dealer draw, a trick) set it; hands add a
    copy (checked against the draft version, so a retried tap adds nothing)."""
    slot = _slot_for(r, form)
    name = _player(r, form)
    code = _card(form)
    if seat_mode(r.draft, slot, name) != "cards":
        raise Refused(_("%(name)s is entering a sum, not cards.", name=name))
    data = _slot(r.draft, slot)
    size = slot_size(r.draft, slot)
    if size == 1:
        data["cards"][name] = [code]
        data["active"] = next_open_seat(r.draft, slot, r.names, name)
        r.save()
        return None
    _check_version(r, form)
    hand = data["cards"].setdefault(name, [])
    if len(hand) >= size:
        raise Refused(
            _("%(name)s already has %(n)d cards: take one out first.", name=name, n=size),
            fields={name: _("Hand full: take a card out first.")},
        )
    if slot_copies(r.draft, slot, round_cards(r.draft, slot))[code] >= engine.DECKS:
        raise Refused(_("All three %(card)s are already used.", card=parse_card(code).symbol))
    hand.append(code)
    full = len(hand) == size
    data["active"] = next_open_seat(r.draft, slot, r.names, name) if full else name
    r.save()
    return None


@action("uncard")
def act_uncard(r: Round, form):
    slot = _slot_for(r, form)
    name = _player(r, form)
    _check_version(r, form)
    data = _slot(r.draft, slot)
    hand = data["cards"].get(name, [])
    index = _int(form, "index", 0, max(len(hand) - 1, 0), _("That card is not in the hand."))
    if not hand:
        raise Refused(_("That card is not in the hand."))
    hand.pop(index)
    data["active"] = name
    r.save()


@action("clear-seats")
def act_clear_seats(r: Round, form):
    slot = _slot_for(r, form)
    r.draft["slots"][slot] = {}
    r.save()


# ---------------------------------------------------------------- dealer draw


@action("dealer", phases=("dealer",))
def act_dealer(r: Round, form):
    sid = _sid(form)
    req, missing = dealer_request(r)
    if req is None:
        raise Refused(_("Every player draws a card first (%(names)s).", names=", ".join(missing)))
    result = api.evaluate("kvanta-dealer", req)
    if result["dealer"] is None:
        raise Refused(_("Every card cancelled out: everyone draws again."))
    if not r.exists:
        r.save()
    # the draw belongs to the game's set-up, not to a deal: round 0
    r.record("kvanta-dealer", req, sid, round_number=SETUP_ROUND)
    return {"board": True, "kv_message": _("%(name)s deals first.", name=result["dealer"])}


@action("draw-again", phases=("dealer",))
def act_draw_again(r: Round, form):
    r.draft["slots"]["dealer"] = {}
    r.save()


# ---------------------------------------------------------------- setup


def game_burn(r: Round) -> int | None:
    """The game's burned cards (K-D9): this round's tap, else the game's first one."""
    if r.draft.get("burn") is not None:
        return r.draft["burn"]
    return (r.s.draft(r.table.id, GAME_DRAFT)[0] or {}).get("burn")


@action("burn", phases=("setup",))
def act_burn(r: Round, form):
    if not burn_is_asked(r.summary):
        raise Refused(_("The burned cards are burned once per game, at its start."), status=409)
    burn = _int(form, "burn", 0, MAX_BURN, _("Burn 0 to %(n)d cards.", n=MAX_BURN))
    r.draft["burn"] = burn
    r.save()
    r.s.save_draft(r.table.id, GAME_DRAFT, {"burn": burn})


@action("trump", phases=("setup", "final-poker"))
def act_trump(r: Round, form):
    r.draft["trump"] = _card(form)
    r.save()


@action("phys", phases=("setup", "hand", "tricks"))
def act_phys(r: Round, form):
    """Tapping in the face of a physical die (a set: retrying it changes nothing)."""
    face = _int(form, "face", 1, 6, _("A die shows 1 to 6."))
    if form.get("which") == "exchange":
        r.draft["phys_ex"] = face
    else:
        die = _int(form, "die", 0, dice.TARGET_DICE - 1, _("Kvanta rolls three dice."))
        phys = list(r.draft.get("phys") or [None] * dice.TARGET_DICE)
        phys[die] = face
        r.draft["phys"] = phys
    r.save()


@action("roll", phases=("setup", "hand", "tricks"))
def act_roll(r: Round, form):
    """Roll on the server (or store physical dice) at once. The submission id makes a
    repost return the stored roll: one roll request never gives two results."""
    sid = _sid(form)
    which = form.get("which", "target")
    if which not in ("target", "exchange"):
        raise Refused(_("Roll the target dice or the exchange die."))
    physical = form.get("physical") == "1"
    replay = r.s.submission(sid, r.s.add_roll, r.table.id)
    if replay is not None:
        if "roll_id" not in replay:
            raise Refused(_("This button is out of date; reload the page and try again."), 400)
        outcome = replay  # the stored roll, never a new one
    elif which == "target":
        outcome = _roll_target(r, form, sid, physical)
    else:
        outcome = _roll_exchange(r, sid, physical)
    extra: dict = {"fresh": outcome["roll_id"]}
    result = outcome["result"]
    if which == "exchange" and result.get("flux"):
        extra.update(_flux(r, sid, outcome))
    return extra


def _roll_target(r: Round, form, sid: str, physical: bool) -> dict:
    if r.phase not in ("setup", "hand"):
        raise Refused(_("The target is rolled before the tricks."), status=409)
    # the button carries the round as its phone saw it: "Roll the three dice" tapped on
    # a phone that has not yet seen another phone's roll would roll the target again,
    # silently; a deliberate "Roll again" is made from the screen that shows the roll
    _check_version(r, form)
    if burn_is_asked(r.summary) and r.draft.get("burn") is None:
        raise Refused(_("Enter the burned cards and the turned card first."))
    if not r.draft.get("trump"):
        raise Refused(_("Enter the turned card first."))
    if physical:
        faces = r.draft.get("phys") or []
        if len(faces) != dice.TARGET_DICE or not all(faces):
            raise Refused(_("Tap the face of each of the three dice first."))
        try:
            rolled = dice.roll_kvanta_target(FacesRng(faces))
        except ValueError:
            raise Refused(_("A die shows 1 to 6.")) from None
    else:
        rolled = dice.roll_kvanta_target(dice_rng())
    if not r.exists:
        r.save()
    outcome = r.s.add_roll(
        r.table.id, r.round, TARGET_ROLL, rolled["dice"], rolled, physical, submission_id=sid,
        based_on_draft=(DRAFT, r.version),  # the check above, made again inside the write
    )  # fmt: skip
    r.draft["phase"] = "hand"
    r.draft["phys"] = [None] * dice.TARGET_DICE
    r.draft["draw_winner"] = None
    r.s.save_draft(r.table.id, DRAFT, r.draft)
    return outcome


def _roll_exchange(r: Round, sid: str, physical: bool) -> dict:
    draft = r.draft
    if r.phase != "tricks":
        raise Refused(_("The exchange die is rolled after a trick."), status=409)
    if not draft.get("trick_winner"):
        raise Refused(_("Tap who won the trick first: that player rolls."))
    if draft.get("exchange"):
        raise Refused(_("The exchange die was already rolled for this trick."), status=409)
    if physical:
        if not draft.get("phys_ex"):
            raise Refused(_("Tap the face of the exchange die first."))
        try:
            rolled = dice.roll_kvanta_exchange(FacesRng([draft["phys_ex"]]))
        except ValueError:
            raise Refused(_("A die shows 1 to 6.")) from None
    else:
        rolled = dice.roll_kvanta_exchange(dice_rng())
    result = {**rolled, "player": draft["trick_winner"], "trick": draft.get("trick", 1)}
    # one exchange roll per trick, checked again inside the write: two phones rolling
    # at the same moment both passed the check above
    outcome = r.s.add_roll(
        r.table.id, r.round, EXCHANGE_ROLL, [rolled["die"]], result, physical, submission_id=sid,
        based_on_draft=(DRAFT, r.version),
    )  # fmt: skip
    draft["exchange"] = {
        "roll_id": outcome["roll_id"],
        "die": rolled["die"],
        "flux": rolled["flux"],
        "player": draft["trick_winner"],
    }
    draft["phys_ex"] = None
    r.s.save_draft(r.table.id, DRAFT, draft)
    return outcome


def _flux(r: Round, sid: str, outcome: dict) -> dict:
    """A 6: the Flux entry (+5) is stored at once (once, even when the roll is reposted)."""
    result = outcome["result"]
    req: dict = {"players": r.names, "player": result["player"]}
    if r.target is not None:
        req["target"] = r.target
    entry = record(r.s, r.table, "kvanta-flux", req, r.round, sid + "-flux", exclusive=False)
    exchange = r.draft.get("exchange") or {}
    if exchange.get("roll_id") == outcome["roll_id"] and exchange.get("entry") != entry["entry_id"]:
        exchange["entry"] = entry["entry_id"]  # so the screen can tell if it was undone
        r.s.save_draft(r.table.id, DRAFT, r.draft)
    return {"board": True}


# ---------------------------------------------------------------- Hand


@action("hand", phases=("hand",))
def act_hand(r: Round, form):
    go = form.get("go", "")
    if go == "open":
        r.draft["hand_check"] = True
    elif go == "close":
        r.draft["hand_check"] = False
    elif go == "none":
        r.draft["hand_check"] = False
        r.draft["phase"] = "tricks"
    else:
        raise Refused(_("Check a Hand or play the tricks."))
    r.save()


@action("draw-winner", phases=("hand",))
def act_draw_winner(r: Round, form):
    """Who won the tie-break draw; an empty player forgets it."""
    r.draft["draw_winner"] = _player(r, form) if form.get("player") else None
    r.save()


@action("save-hand", phases=("hand",))
def act_save_hand(r: Round, form):
    sid = _sid(form)
    if not r.draft.get("hand_check"):
        raise Refused(_("Open the Hand check first."), status=409)
    req, missing = hand_request(r)
    if req is None:
        raise Refused(
            _("Enter every player's sum first (%(names)s).", names=", ".join(missing)),
            fields=dict.fromkeys(missing, _("Missing")),
        )
    result = api.evaluate("kvanta-hand", req)
    if result["hand"] is None:
        if result["tied"]:
            raise Refused(_("Tap who won the tie-break draw first."))
        raise Refused(_("Nobody's sum equals the target %(n)d: there is no Hand.", n=r.target))
    r.record("kvanta-hand", req, sid)
    return {"board": True, "kv_message": _("Hand: +15 to %(name)s.", name=result["hand"])}


# ---------------------------------------------------------------- tricks, exchange, Flux


@action("trick-winner", phases=("tricks",))
def act_trick_winner(r: Round, form):
    name = _player(r, form)
    if r.draft.get("exchange"):
        raise Refused(_("The exchange die was already rolled for this trick."), status=409)
    r.draft["trick_winner"] = name
    r.draft["dispute"] = False
    r.save()


@action("dispute", phases=("tricks",))
def act_dispute(r: Round, form):
    r.draft["dispute"] = form.get("open") == "1"
    if not r.draft["dispute"]:
        r.draft["slots"]["trick"] = {}
    r.save()


@action("next-trick", phases=("tricks",))
def act_next_trick(r: Round, form):
    # the form carries the trick it was made for: a retried tap moves on only once
    if form.get("trick") != str(r.draft.get("trick")):
        raise Stale
    if not r.draft.get("exchange"):
        raise Refused(_("Roll the exchange die for this trick first."), status=409)
    r.draft["trick"] = r.draft.get("trick", 1) + 1
    r.draft["trick_winner"] = None
    r.draft["exchange"] = None
    r.draft["dispute"] = False
    r.draft["slots"].pop("trick", None)
    r.draft["slots"].pop("call", None)
    r.save()


@action("call", phases=("tricks",))
def act_call(r: Round, form):
    exchange = r.draft.get("exchange")
    if not exchange:
        raise Refused(_("Roll the exchange die first: a call follows the roll."), status=409)
    r.draft["caller"] = exchange["player"]
    r.draft["flux"] = bool(exchange["flux"])
    r.draft["phase"] = "call"
    r.save()


@action("back", phases=("call", "final-compare", "final-poker"))
def act_back(r: Round, form):
    back = {"call": "tricks", "final-compare": "tricks", "final-poker": "setup"}
    r.draft["phase"] = back[r.phase]
    r.save()


# ---------------------------------------------------------------- call settlement


@action("save-call", phases=("call", "final-compare"))
def act_save_call(r: Round, form):
    sid = _sid(form)
    final = r.phase == "final-compare"
    req, missing = call_request(r)
    if req is None:
        raise Refused(
            _("Enter every player's sum or cards first (%(names)s).", names=", ".join(missing)),
            fields=dict.fromkeys(missing, _("Missing")),
        )
    if final:
        r.record("kvanta-call", req, sid)
        _end_game(r, sid + "-end")
        return {"board": True, "kv_message": _("Final comparison saved: the game is over.")}
    r.record("kvanta-call", req, sid)
    return {"board": True, "kv_message": _("Call settled. Now the poker prize.")}


# ---------------------------------------------------------------- poker


@action("poker-size", phases=("poker", "final-poker"))
def act_poker_size(r: Round, form):
    size = _int(form, "size", 5, 7, _("Enter 5 or 7 cards each."))
    if size not in POKER_SIZES:
        raise Refused(_("Enter 5 or 7 cards each."))
    if size != r.draft.get("poker_size"):
        r.draft["poker_size"] = size
        slot = _slot(r.draft, "poker")
        for cards in slot["cards"].values():
            del cards[size:]
        slot["active"] = next_open_seat(r.draft, "poker", r.names, None)
    r.save()


@action("save-poker", phases=("poker", "final-poker"))
def act_save_poker(r: Round, form):
    sid = _sid(form)
    final = r.phase == "final-poker"
    if not r.draft.get("trump"):
        raise Refused(_("Enter the prize card first."))
    req, missing = poker_request(r)
    if req is None:
        raise Refused(
            _("Enter every player's cards first (%(names)s).", names=", ".join(missing)),
            fields=dict.fromkeys(missing, _("Missing")),
        )
    result = api.evaluate("kvanta-poker", req)
    if final:
        r.record("kvanta-poker", req, sid)
        _end_game(r, sid + "-end")
        return {"board": True, "kv_message": _("Final poker saved: the game is over.")}
    r.record("kvanta-poker", req, sid, closes=True)
    if result["winner"]:
        message = _(
            "Round %(n)d done: %(name)s wins the poker prize (%(prize)d).",
            n=r.round,
            name=result["winner"],
            prize=result["prize"],
        )
    else:
        message = _("Round %(n)d done: every best hand cancelled, no prize.", n=r.round)
    return {"board": True, "kv_message": message}


# ---------------------------------------------------------------- the end, abandoning


def _end_game(r: Round, sid: str) -> None:
    """The game-end entry (as the table's own "End the game" button stores it)."""
    r.s.add_entry(
        r.table.id, r.round, "game-end", {}, {}, {}, submission_id=sid,
        exclusive_round=True, close_draft=DRAFT,
    )  # fmt: skip


@action("end", phases=("setup", "tricks", "hand", "dealer"))
def act_end(r: Round, form):
    """The burned cards are reached (RULES §3 "End of game")."""
    case = form.get("case", "")
    while_dealing = r.phase in ("setup", "dealer")
    if case == "stop" and while_dealing:
        if not r.exists:
            r.save()
        _end_game(r, _sid(form))
        return {"board": True, "kv_message": _("Not everyone could get 7 cards: the game is over.")}
    if case == "poker" and while_dealing:
        r.draft["phase"] = "final-poker"
        r.draft["trump"] = None
        r.draft["slots"].pop("poker", None)
        r.save()
        return None
    if case == "compare" and r.phase == "tricks":
        r.draft["phase"] = "final-compare"
        r.draft["caller"] = None
        r.draft["flux"] = False
        r.save()
        return None
    raise Refused(_("That ending does not fit this moment of the round."), status=409)


@action("abandon")
def act_abandon(r: Round, form):
    """Drop the draft; entries already made stay (undo them from the history)."""
    if r.exists:
        r.s.delete_draft(r.table.id, DRAFT)
    return {
        "board": True,
        "kv_message": _("Round abandoned. Entries already saved stay in the history."),
    }


__all__ = ["ACTIONS", "bp", "panel_context"]
