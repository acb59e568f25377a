"""What the Kvanta panel shows (``scorekeeper.views.kvanta``'s view): drawn from the play
state's JSON and the table's stored rolls, each button the tap it means in the state's
notation. Whose cards or sum a phone is entering, and what is folded, are that phone's
own (``data-view``, ``data-fold``); every tap names its seat."""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime

from markupsafe import Markup, escape

from .. import dice, store
from ..cards import RANK_TEXT
from ..deals.kvanta import DRAFT, EXCHANGE_ROLL, GAME_DRAFT, TARGET_ROLL
from ..errors import RuleError
from ..games import kvanta as engine
from ..games import poker
from ..games.play.kvanta import MAX_BURN, SUM_SHOWINGS
from ..messages import gettext as _
from ..store import new_submission_id
from . import fragments, panel

EARLIER_ROLLS = 30  # the earlier dice a round's panel lists, newest first
ROLLS_IN_HISTORY = 300  # the latest dice the history reads for the rounds it shows
FLUX_KIND = "kvanta-flux"
SUIT_ROWS = ("S", "H", "D", "C")
RANK_ROW = (14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2)  # Kvanta's order A K Q J 10 … 2
CARDS_BY_SUIT = [[f"{RANK_TEXT[r]}{s}" for r in RANK_ROW] for s in SUIT_ROWS]
STEP_OF_PHASE = {
    "dealer": "deal", "burn": "deal", "turn": "deal", "target": "target", "hand": "target",
    "tricks": "tricks", "call": "call", "final-compare": "call", "poker": "poker",
    "final-poker": "poker",
}  # fmt: skip
POKER_PHASES = ("poker", "final-poker")


def _steps(phase: str) -> list[dict]:
    labels = [("deal", _("Deal")), ("target", _("Target")), ("tricks", _("Tricks")),
              ("call", _("Call")), ("poker", _("Poker"))]  # fmt: skip
    return [{"label": label, "now": STEP_OF_PHASE.get(phase) == step} for step, label in labels]


def category_labels() -> dict[str, str]:
    return {code: _(name) for code, name in poker.CATEGORY_NAMES.items()}


# ---------------------------------------------------------------- rolls


def _time(stamp: str) -> str:
    try:
        return datetime.fromisoformat(stamp).astimezone().strftime("%H:%M:%S")
    except ValueError:
        return stamp


def roll_view(roll: dict, counting_id: int | None, fresh_id: int | None = None) -> dict:
    exchange = roll["kind"] == EXCHANGE_ROLL
    result = roll["result"]
    if exchange:
        label = _("Exchange die")
        if result.get("player"):
            label = _("Exchange die (%(name)s)", name=result["player"])
        total = result.get("die")
        outcome = _("Flux") if result.get("flux") else _("exchange %(n)d", n=result.get("die", 0))
    else:
        label, total = _("Target"), result.get("target")
        if result.get("asked_by"):
            label = _("Target again (asked by %(name)s)", name=result["asked_by"])
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


def _rolls(v: panel.View, last_tap: dict | None) -> dict:
    s = v.store
    since = v.context.get("since_roll", 0)
    mine = s.rolls(v.table.id, after=since)
    if v.context.get("supersedes") is not None:  # an earlier round reopened: its own rolls
        mine = [r for r in mine if r["round"] == v.context.get("round")]
    earlier = s.rolls(v.table.id, up_to=since, latest=EARLIER_ROLLS)
    count = v.context.get("earlier_rolls") if earlier else 0
    if count is None:  # a round begun before rounds counted them
        count = s.roll_count(v.table.id, up_to=since)
    targets = [r for r in mine if r["kind"] == TARGET_ROLL]
    counting = targets[-1]["id"] if targets and v.state.target is not None else None
    fresh = None
    if last_tap and last_tap.get("action") in ("roll", "reroll", "exchange") and mine:
        fresh = mine[-1]["id"]
    return {
        "rolls": [roll_view(r, counting, fresh) for r in mine],
        "earlier_rolls": [roll_view(r, None) for r in reversed(earlier)],
        "earlier_count": count,
        "target_roll": roll_view(targets[-1], counting, fresh) if counting else None,
    }


def _attempts(rolls: list[dict]) -> list[list[dict]]:
    """A round's rolls (oldest first) by attempt at the round: each begins with a
    target roll that is no roll again (an abandoned round is dealt and rolled anew)."""
    attempts: list[list[dict]] = []
    for roll in rolls:
        fresh = roll["kind"] == TARGET_ROLL and not roll["result"].get("asked_by")
        if fresh or not attempts:
            attempts.append([])
        attempts[-1].append(roll)
    return attempts


def history_lines(s: store.Store, table, history: list) -> dict[int, list[str]]:
    """#24: the history shows every roll of each round it lists: the target rolls (a
    roll again with who asked for it) and the exchange dice, each marked when it no
    longer counts (rolled again, or its round abandoned). Each roll is on the row of its
    own time, the first row of its round stored after it (``_rows_of_rolls``): a row
    stored mid-round (a Flux) never lists the dice rolled after it."""
    rows_of: dict[int, list[store.Entry]] = {}
    for row in history:  # oldest first
        if row.entry.round >= 1:
            rows_of.setdefault(row.entry.round, []).append(row.entry)
    if not rows_of:
        return {}
    rolls = s.rolls(table.id, latest=ROLLS_IN_HISTORY)
    out: dict[int, list[str]] = {}
    for number, entries in rows_of.items():
        attempts = _attempts([r for r in rolls if r["round"] == number])
        abandoned: set[int] = set()
        again: set[int] = set()
        for k, attempt in enumerate(attempts):
            targets = [r["id"] for r in attempt if r["kind"] == TARGET_ROLL]
            if k < len(attempts) - 1:
                abandoned.update(r["id"] for r in attempt)
            again.update(targets[:-1])
        placed, after_last = _rows_of_rolls(entries, [r for a in attempts for r in a])
        if after_last and not _played_on(s, table, number, entries[-1]):
            # rolled after the round's last row, and the round was left there
            placed[entries[-1].id] += after_last
            abandoned.update(r["id"] for r in after_last)
        for entry_id, its_rolls in placed.items():
            if its_rolls:
                out[entry_id] = [
                    _roll_line(r, r["id"] in abandoned, r["id"] in again) for r in its_rolls
                ]
    return out


def _roll_line(roll: dict, abandoned: bool, rolled_again: bool) -> str:
    shown = roll_view(roll, None)
    line = _(
        "%(roll)s: %(dice)s, %(outcome)s (%(how)s)",
        roll=shown["label"],
        dice=" ".join(str(f["n"]) for f in shown["faces"]),
        outcome=shown["outcome"],
        how=_("physical") if roll["physical"] else _("virtual"),
    )
    if abandoned:
        return _("%(roll)s — its round was abandoned", roll=line)
    if rolled_again:
        return _("%(roll)s — rolled again", roll=line)
    return line


def _rows_of_rolls(
    entries: list[store.Entry], rolls: list[dict]
) -> tuple[dict[int, list[dict]], list[dict]]:
    """A round's rolls (oldest first) on its rows (oldest first): each roll on the first
    row stored after it; a Flux's row also takes the die that made it (stored with it,
    a moment after), and an edited round's Flux row, stored when the edit was saved,
    the dice up to that die. The rolls after the last row are returned apart."""
    placed: dict[int, list[dict]] = {}
    rest = list(rolls)
    for entry in entries:
        own = _flux_die(entry, rest)
        if own is not None:
            cut = rest.index(own) + 1
        else:
            later = (i for i, r in enumerate(rest) if r["created"] > entry.created)
            cut = next(later, len(rest))
        placed[entry.id], rest = rest[:cut], rest[cut:]
    return placed, rest


def _flux_die(entry: store.Entry, rolls: list[dict]) -> dict | None:
    """The exchange die (a 6, by the Flux's player) that made a Flux entry, the first
    such among ``rolls``; None for an entry of another kind."""
    if entry.kind != FLUX_KIND:
        return None
    player = entry.request.get("player") if isinstance(entry.request, dict) else None
    for roll in rolls:
        result = roll["result"]
        if roll["kind"] == EXCHANGE_ROLL and result.get("flux"):
            if result.get("player", player) == player:
                return roll
    return None


def _played_on(s: store.Store, table, number: int, last: store.Entry) -> bool:
    """Whether round ``number`` may still have a row after ``last``, its newest row
    listed: it is the round on the screen (its dice wait in its panel's list until its
    next step is stored), or a newer row of it is on a newer page of the history."""
    data, _version = s.draft(table.id, DRAFT)
    if isinstance(data, dict) and (data.get("context") or data).get("round") == number:
        return True
    newest, _older = s.history_page(table.id, (number + 1, 0), 1)
    return bool(newest) and newest[0].round == number and newest[0].id > last.id


# ---------------------------------------------------------------- seats


def keypad(v: panel.View, seat: int, value: int | None) -> list[dict]:
    """The number keypad of one seat: each key's tap sets the sum it makes (so a retried
    tap cannot type a digit twice)."""
    digits = "" if value is None else str(abs(value))
    sign = -1 if value is not None and value < 0 else 1
    keys = []
    for label in ("7", "8", "9", "4", "5", "6", "1", "2", "3", "±", "0", "⌫"):
        if label.isdigit():
            new = int(("" if digits == "0" else digits) + label)
            ok = new <= engine.MAX_SUM
            keys.append(
                {"label": label, **_tap(v, "sum", seat=seat, sum=sign * new), "off": not ok}
            )
        elif label == "±":
            keys.append({"label": label, **_tap(v, "sum", seat=seat, sum=-(value or 0)),
                         "off": not value, "aria": _("Plus or minus")})  # fmt: skip
        else:
            rest = digits[:-1]
            new = sign * int(rest) if rest else None
            keys.append({"label": label, **_tap(v, "sum", seat=seat, sum=new),
                         "off": value is None, "aria": _("Delete a digit")})  # fmt: skip
    return keys


PIPS = "<i></i>" * 9  # a die's nine pip places, drawn by the style sheet


def die(face, exchange=False, fresh=False, small=False) -> Markup:
    """A die with drawn pips; the exchange die has its own colour (written in Python: the
    dice of the rolls and of the real-dice pickers are some forty on an answer)."""
    cls = "die" + " exchange" * bool(exchange) + " fresh" * bool(fresh) + " small" * bool(small)
    said = _("exchange die showing %(n)d", n=face) if exchange else _("die showing %(n)d", n=face)
    return Markup(
        f'<span class="{cls}" data-face="{escape(face)}" role="img" '
        f'aria-label="{escape(said)}">{PIPS}</span>'
    )


def keypad_buttons(url: str | None, keys: list[dict]) -> Markup:
    """A seat's keypad (``keypad``) as buttons, written in one pass: a tap's answer often
    draws a keypad for every seat."""
    out = []
    for k in keys:
        label, vals = k["label"], k["vals"]
        attrs = f'data-key="{escape(label)}"' + (" disabled" if k["off"] and vals else "")
        out.append(
            fragments.button(
                label,
                "kv-key",
                url=url if vals else None,
                vals=vals,
                aria=k.get("aria") or "",
                attrs=attrs,
            )
        )
    return Markup("".join(out))


def _tap(v: panel.View, action: str, **args) -> dict:
    return {"vals": v.tap_vals(action, **args) if v.writable else None}


def _picker(v: panel.View, action: str, seat: int | None, taken: dict) -> list[dict]:
    args = {} if seat is None else {"seat": seat}
    names = panel.suit_names()
    return [
        {"label": names[i], "buttons": v.picker(row, action, args, taken)}
        for i, row in enumerate(CARDS_BY_SUIT)
    ]


class _Row(dict):
    """A seat's row whose buttons (its keypad, picker and hand: most of a seat's part)
    are made when first read: a part drawn from the same row as the tap before is kept
    (``fragments.fragment``, keyed by ``made_of``, all the buttons are made of)."""

    def __init__(self, made: Callable[[], dict], **row):
        super().__init__(**row)
        self._made = made

    def __missing__(self, key):
        if key not in LAZY_PARTS or self._made is None:
            raise KeyError(key)
        self.update(self._made())
        self._made = None
        return self[key]


LAZY_PARTS = ("keypad", "picker", "hand")


def seats(v: panel.View, st: dict, kind: str, error: dict | None = None) -> dict:
    """Player by player entry of a showing (``show``), the dealer draw (``draw``) or a
    disputed trick (``play``): one part per seat, the phone choosing whose it shows."""
    names, phase = st["players"], st["phase"]
    taken = {code: _("3 used") for code in st["used_up"]}
    rows = []
    for seat, name in enumerate(names):
        row: dict = {"seat": seat, "name": name, "cards": [], "sum": None, "error": None}
        keypad_of = None  # the sum the seat's keypad goes on from (None: no keypad)
        if kind == "draw":
            card = st["draws"][name]
            row.update(cards=[card] if card else [], size=1)
            row["settled"] = row["full"] = row["done"] = card is not None
            action = "draw"
        elif kind == "play":
            card = st["trick"]["plays"][name]
            row.update(cards=[card] if card else [], size=1)
            row["settled"] = row["full"] = row["done"] = card is not None
            action = "play"
        else:
            show = st["shows"][name]
            sums = phase in SUM_SHOWINGS
            size = max(engine.POKER_SIZES) if phase in POKER_PHASES else engine.HAND_SIZE
            typed = sums and show["sum"] is not None and len(show["cards"]) != size
            # one rule (#24): a part moves on by itself once its cards are all in; a sum
            # can always take one more digit, so it moves on by "Next player ›" alone
            full = len(show["cards"]) == size
            row.update(cards=show["cards"], sum=show["sum"], size=size, full=full)
            row["settled"] = full or (phase in POKER_PHASES and show["complete"])
            # a poker hand of 5 is complete, but its player may be entering all 7: the
            # editor stays on that player until the seventh card or "Next player ›"
            row["done"] = full
            keypad_of = ("sum", show["sum"] if typed else None) if sums else None
            row["typed"] = typed
            action = "card"
            if error and error.get("player") == name:
                row["error"] = error["message"]
        made_of = (kind, action, keypad_of, tuple(sorted(taken)), tuple(sorted(row.items())))
        row["made_of"] = made_of
        rows.append(_Row(functools.partial(_seat_buttons, v, row, action, keypad_of, taken), **row))
    # a phone that has not chosen opens at the first seat still to enter: one with a
    # sum typed (on another phone) counts as entered, though it may take more digits
    open_seats = [r["seat"] for r in rows if not r["settled"]]
    untyped = [seat for seat in open_seats if not rows[seat].get("typed")]
    default = next(iter(untyped or open_seats), 0)
    # the deal's key (an edit of a saved round is a deal of its own: the choices a phone
    # made while the round was played do not come back when it is reopened)
    key = f"kv:{v.table.id}:{v.deal_key}:{phase}:{kind}:{st['trick']['number']}"
    # the cards the pickers refuse, said in a line of their own: a disabled button's
    # small print is cut on a phone in the longer languages
    used_up = list(st["used_up"])
    return {"kind": kind, "rows": rows, "default": default, "view_key": key, "used_up": used_up}


def _seat_buttons(v: panel.View, row: dict, action: str, keypad_of, taken: dict) -> dict:
    """A seat's buttons (``_Row``): its keypad, its picker and (a showing) its hand."""
    seat = row["seat"]
    made = {
        "keypad": keypad(v, seat, keypad_of[1]) if keypad_of else None,
        "picker": _picker(v, action, seat, taken),
    }
    if action == "card":
        made["hand"] = [{"code": c, **_tap(v, "uncard", seat=seat, card=c)} for c in row["cards"]]
    return made


def _preview(st: dict) -> dict:
    """The engine's answer on what is shown (``result``), its refusal (``error``, with
    the player it is about), or who is still to be entered (``missing``)."""
    shown = st["preview"] or {}
    out = {
        "result": shown.get("result"),
        "error": shown.get("error"),
        "missing": [n for n, show in st["shows"].items() if not show["complete"]],
    }
    path = shown.get("path") or ""
    for name in sorted(st["players"], key=len, reverse=True):
        for prefix in ("hands.", "sums."):
            if path == prefix + name or path.startswith(prefix + name + "["):
                out["player"] = name
    return out


# ---------------------------------------------------------------- the panel


def view(v: panel.View) -> dict:
    st = v.state.to_json()
    names, phase = st["players"], st["phase"]
    seat_of = {name: i for i, name in enumerate(names)}
    taps = v.data["taps"]
    last_tap = taps[-1] if taps else None
    out: dict = {
        "v": v,
        "tap": functools.partial(fragments.routed_tap, v.url),
        "keypad_buttons": functools.partial(keypad_buttons, v.url("tap")),
        "die": die,
        "st": st,
        "can_write": v.writable,
        "phase": phase,
        "round": v.context.get("round"),
        "names": names,
        "dealer": st["dealer"],
        "standings_dealer": st["dealer"],  # the standings name this round's dealer (#24)
        "roller": st["roller"],
        "trump": st["turned"],
        "target": st["target"],
        "steps": _steps(phase),
        "suit_names": panel.suit_names(),
        "categories": category_labels(),
        "faces": list(range(1, dice.FACES + 1)),
        "target_dice": list(range(dice.TARGET_DICE)),
        "undo_tap": v.last_tap,
        "redo_tap": v.redo_tap,
        "begun": bool(taps),
        "editing": v.context.get("supersedes") is not None,
        "complete": st["complete"],
        "burn_asked": phase == "burn" or (v.state.round == 1 and not st["dealer"]),
        "burn": st["burn"] if st["burn"] is not None else _game_burn(v),
        **_rolls(v, last_tap),
    }
    drawn = phase in ("burn", "turn") and any(st["draws"].values())
    out["drawn_dealer"] = st["dealer"] if drawn else None  # the draw's result, once
    draw = [s for s in st["scoring"] if s["kind"] == "kvanta-dealer"]
    out["drawn_reason"] = draw[0]["result"].get("reason") if drawn and draw else None
    if phase == "dealer":
        out["seats"] = seats(v, st, "draw")
        out["again"] = all(st["draws"].values())
    elif phase == "burn":
        out["burn_choices"] = [
            {"n": n, **_tap(v, "burn", seat=seat_of[st["dealer"]], count=n)}
            for n in range(MAX_BURN + 1)
        ]
    if phase in ("turn", "final-poker"):
        seat = seat_of[st["dealer"]]
        out["turn_picker"] = _picker(v, "turn", seat, {})
        if phase == "turn":
            out["ends"] = {c: _tap(v, "end", case=c) for c in ("stop", "poker")}
    if phase in ("target", "hand") and st["roller"]:
        roller = seat_of[st["roller"]]
        out["roll_tap"] = _tap(v, "roll", seat=roller)
        out["roll_phys"] = _tap(v, "roll", seat=roller, physical=True)
        seen = len(st["rolls"])
        # a roll again is asked for by a player, named in the tap (#24)
        out["rerolls"] = [
            {
                "name": name,
                "virtual": _tap(v, "reroll", seat=seat, seen=seen),
                "physical": _tap(v, "reroll", seat=seat, seen=seen, physical=True),
            }
            for seat, name in enumerate(names)
        ]
        out["reroll_physical"] = [
            {
                "b": r["physical"],
                "label": Markup(
                    _("%(name)s asked: use these dice", name=fragments.player_name(r["name"]))
                ),
                "confirm": _("Tap again: the target is rolled again"),
            }
            for r in out["rerolls"]
        ]
    if phase == "hand":
        out["no_hand"] = _tap(v, "no-hand")
        tied = [e for e in st["legal"] if e["action"] == "draw-winner"]
        out["draw_winners"] = [
            {"name": names[s], "on": v.state.draw_winner == s, **_tap(v, "draw-winner", seat=s)}
            for s in (tied[0]["seat"] if tied else [])
        ]
    if phase == "tricks":
        out["tricks"] = _tricks(v, st, seat_of)
    if out["editing"] and v.writable:
        # Save's id marks the round's first entry as the one Edit reopens (kvanta_edit)
        out["save_vals"] = v.vals(submission_id=f"kvc-{new_submission_id()}")
        out["backs"] = backs(v)
    if phase in ("hand", "call", "final-compare", "poker", "final-poker"):
        out["preview"] = _preview(st)
        out["seats"] = seats(v, st, "show", out["preview"] if "player" in out["preview"] else None)
        out["settle"] = _tap(v, "settle")
        out["caller"] = st["caller"] if phase != "final-compare" else None
        out["flux_call"] = st["flux_call"]
        out["prize"] = st["prize"]
    return out


def _game_burn(v: panel.View) -> int | None:
    """K-D9: the game's burned cards, set in its first round (as the round began; a
    round begun before rounds said so reads them)."""
    if "game_burn" in v.context:
        return v.context["game_burn"]
    data, _version = v.store.draft(v.table.id, GAME_DRAFT)
    return (data or {}).get("burn")


def _tricks(v: panel.View, st: dict, seat_of: dict) -> dict:
    trick = st["trick"]
    winner = trick["winner"]
    out: dict = {
        "number": trick["number"],
        "winner": winner,
        "die": trick["die"],
        "flux": trick["flux"],
        "leader": trick["leader"],
        "winners": [
            {"name": n, "on": winner == n, **_tap(v, "trick-winner", seat=seat_of[n])}
            for n in st["players"]
        ],
        "dispute": seats(v, st, "play"),
        "compare": _tap(v, "end", case="compare"),
    }
    plays = trick["plays"]
    if all(plays.values()):
        try:
            out["verdict"] = engine.trick(v.state.trick_request())
        except RuleError:
            pass
    if winner is not None and trick["die"] is None:
        out["exchange_tap"] = _tap(v, "exchange", seat=seat_of[winner])
        out["exchange_phys"] = _tap(v, "exchange", seat=seat_of[winner], physical=True)
    if trick["die"] is not None:
        seat = seat_of[winner]
        out["call"] = _tap(v, "call", seat=seat)
        out["next"] = _tap(v, "next-trick", seat=seat)
        if trick["flux"]:
            flux = [s for s in st["scoring"] if s["kind"] == FLUX_KIND]
            out["flux_points"] = flux[-1]["points"].get(winner, 0) if flux else 0
            out["flux_live"] = _flux_live(v, st)
    return out


def _flux_live(v: panel.View, st: dict) -> bool:
    """Whether this trick's Flux still counts (it can be undone in the history)."""
    tap = (st["exchanges"] or [{}])[-1].get("tap")
    s = v.store
    done = s.submission(f"kv-{tap}"[:64], s.add_entry, v.table.id) if tap else None
    return bool(done) and s.entry(v.table.id, done["entry_id"]).live


def backs(v: panel.View) -> list[dict]:
    """An Edit's ways back to a step settled earlier: its Hand, call or poker prize."""
    labels = {
        "kvanta-hand": _("Change the Hand"),
        "kvanta-call": _("Change the call"),
        "kvanta-poker": _("Change the poker prize"),
    }
    steps = zip(v.state.scoring(), v.state.scoring_taps(), strict=True)
    return [
        {"label": labels[step["kind"]], "kind": step["kind"], "vals": v.vals(tap_id=tap)}
        for step, tap in steps
        if step["kind"] in labels
    ]
