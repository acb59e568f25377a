"""The Arizona Pegs and Jokers table screen (RULES §5): the board, the turn, the hand.

Everything about the race comes from its play state, :class:`PegsRace`
(``scorekeeper.games.play.pegs``): whose turn it is (written once, ``next_seat``), the
steps a card may take (``options``), a move checked and applied, the must-play rule for
a discard, the winner. This module only reads the table and draws that state; the board
itself is drawn by ``pegs_board``.

* **The current board** is the result of the latest live board entry: ``pegs-apply``
  (a move, scored by the engine) or ``pegs-board`` (a correction from set-up mode:
  request = result = the new state ``{"seats", "pegs", "house_rules"}``, plus
  ``winner_team`` in the result, no points). A new table starts with every peg in start.
* **Whose turn** follows the latest live move (the seat after its player's), so an Undo
  or Redo anywhere (this panel or the history) names the right player; a discard or a
  "whose turn?" tap sets it in the draft, for the board it was made on (``base``).
* **Play mode**: the card (rank only — suits never matter in this game; a card is
  stored as the rank in spades, ``7S``, or ``JK``) → the state's step options drawn on
  the board. A split 7 or 9 goes part by part: the first part is kept in the draft.
  The last tap stores a ``pegs-apply`` entry. Each write carries ``base`` — the id of the
  board entry the phone was showing — so a move made on an outdated board is refused
  (409), and the write itself is checked against the table's version.
* **Set-up mode**: tap a peg, then a hole (or type a position) → a ``pegs-board`` entry.
* **Hand check**: up to 5 cards → which are playable, must the player play, jokers only.

What is in progress (mode, whose turn, card, chosen peg, first part of a split, the hand,
the peg being set up) is the draft ``pegs-turn``, saved at every tap, so a reload or
another phone continues. Taps *set* values, so a retried tap changes nothing.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable

from flask import Blueprint, request, url_for

from .. import api, store
from ..cards import SUITS
from ..errors import RuleError
from ..games import catalog
from ..games import pegs as engine
from ..games.play import Refused, Tap
from ..games.play.pegs import HAND_SIZE, RANKS, PegsRace, card_for_rank, in_names, next_seat
from ..i18n import gettext as _
from ..summary import TableSummary
from . import pegs_board as drawing
from . import screens
from .pegs_board import COLOURS, layout, spot
from .tables import after_write, get_store, live_fragments, load, render_board, wants_partial

bp = Blueprint("pegs", __name__, url_prefix="/t/<key>/pegs")

APPLY_KIND = "pegs-apply"
BOARD_KIND = "pegs-board"  # a correction: the whole new state, no points
BOARD_KINDS = (APPLY_KIND, BOARD_KIND)
DRAFT = "pegs-turn"
PANEL = "games/pegs/_panel.html"
MODES = ("play", "setup")
TURN_FIELDS = ("player", "card", "first", "peg", "hand")  # valid after the move ``moved``
__all__ = ["layout", "spot"]


class BadTap(Exception):
    """A tap the screen refuses: the message is shown next to the control, nothing stored."""

    def __init__(self, message: str, field: str):
        super().__init__(message)
        self.message = message
        self.field = field


def rank_label(rank: str | None) -> str:
    return _("Joker") if rank == "JK" else (rank or "")


def rank_of(code: str) -> str:
    return "JK" if code == "JK" else code[:-1]


def hand_codes(ranks: list[str]) -> list[str]:
    """Cards for a hand given by ranks; a repeated rank takes the next suit, so five
    sevens stay within the decks' copies."""
    seen: dict[str, int] = {}
    codes = []
    for rank in ranks:
        n = seen.get(rank, 0)
        seen[rank] = n + 1
        codes.append("JK" if rank == "JK" else rank + SUITS[n % len(SUITS)])
    return codes


# ---------------------------------------------------------------- reading the table


def house_rules(table: store.Table) -> dict:
    game = catalog.GAMES["pegs"]
    return {key: table.settings.get(key, game.setting(key).default) for key in engine.HOUSE_RULES}


def board_entries(entries: list[store.Entry]) -> list[store.Entry]:
    return [e for e in entries if e.live and e.kind in BOARD_KINDS]


def current_board(
    table: store.Table, seats: int, entries: list[store.Entry]
) -> tuple[engine.Board, store.Entry | None]:
    """The board the latest live board entry left (all pegs in start without one)."""
    rules = house_rules(table)
    live = board_entries(entries)
    latest = live[-1] if live else None
    if latest is not None:
        try:
            return engine.Board(seats, latest.result["pegs"], **rules), latest
        except (RuleError, KeyError, TypeError):
            pass  # an entry from another seat count cannot happen; start over if it does
    return engine.Board(seats, **rules), latest


def store_board(
    s: store.Store,
    table: store.Table,
    board: engine.Board,
    submission_id: str | None = None,
    based_on_version: int | None = None,
    discard: dict | None = None,
) -> dict:
    """A correction: the whole board as the ``pegs-board`` entry's request and result
    (with ``winner_team``, as a move's result has), no points. A discard is such an
    entry too, of the board unchanged, its request naming it: ``{"seat", "card"}`` (the
    card None when the hand was not entered), so the history and "Last:" show it and
    the turn passes with it."""
    state = board.to_json() if discard is None else {**board.to_json(), "discard": discard}
    result = {**board.to_json(), "bumps": [], "winner_team": board.winner_team()}
    return s.add_entry(
        table.id,
        s.next_round(table.id),
        BOARD_KIND,
        state,
        result,
        {},
        submission_id=submission_id,
        based_on_version=based_on_version,
    )


def read_draft(s: store.Store, table_id: int) -> dict:
    data, _version = s.draft(table_id, DRAFT)
    return data or {}


def update_draft(s: store.Store, table_id: int, change: Callable[[dict], dict]) -> dict:
    """Read, change and save the draft; another phone saving in between makes us re-read
    and apply the change again (taps set values, so applying twice is harmless)."""
    for _attempt in range(5):
        data, version = s.draft(table_id, DRAFT)
        new = change(dict(data or {}))
        try:
            s.save_draft(table_id, DRAFT, new, expected_version=version)
            return new
        except store.Conflict:
            continue
    raise store.Conflict(_("Too many phones are changing this at once; tap again."))


class Table:
    """One read of a Pegs table: its players, board, whose turn and the draft."""

    def __init__(self, table: store.Table, entries: list[store.Entry], names: list[str]):
        s = get_store()
        self.table, self.names = table, names
        self.board, self.latest = current_board(table, len(names), entries)
        self.base = self.latest.id if self.latest else 0
        moves = [e for e in board_entries(entries) if player_of(e) is not None]
        self.moved = moves[-1].id if moves else 0  # the latest live move or discard
        draft = read_draft(s, table.id)
        if draft.get("moved", 0) != self.moved:  # a move made or undone since: a new turn
            draft = {k: v for k, v in draft.items() if k not in TURN_FIELDS}
        self.draft = draft
        player = draft.get("player")
        if not (isinstance(player, int) and 0 <= player < len(names)):
            player = next_seat(player_of(moves[-1]), len(names)) if moves else None
        self.player = player
        self.race = PegsRace.start(
            names,
            {**house_rules(table), "pegs": self.board.to_json()["pegs"], "turn": player or 0},
        )

    @classmethod
    def of(cls, table: store.Table) -> Table:
        s = get_store()
        return cls(table, s.recent_entries(table.id), [p.name for p in s.players(table.id)])

    @property
    def mode(self) -> str:
        return self.draft.get("mode") if self.draft.get("mode") in MODES else "play"

    def first(self) -> engine.Step | None:
        raw = self.draft.get("first")
        return parse_step(raw, self.board) if raw else None

    def turn(self, **fields) -> Callable[[dict], dict]:
        """A draft change of the turn's fields, for this turn (those of another, which a
        move or an undo elsewhere left behind, are dropped)."""

        def change(d: dict) -> dict:
            if d.get("moved", 0) != self.moved:
                d = {k: v for k, v in d.items() if k not in TURN_FIELDS}
            return {**d, "moved": self.moved, **fields}

        return change


def parse_step(raw: object, board: engine.Board) -> engine.Step | None:
    try:
        return engine.Step.from_json(raw, board.seats)
    except (RuleError, TypeError):
        return None


def bump_note(bump: dict, names: list[str]) -> str:
    who = names[bump["seat"]] if 0 <= bump["seat"] < len(names) else str(bump["seat"] + 1)
    if bump["to"] == "S":
        return _("%(name)s's peg on %(pos)s went back to start.", name=who, pos=bump["from"])
    return _(
        "%(name)s's peg on %(pos)s went to its in-spot %(spot)s.",
        name=who,
        pos=bump["from"],
        spot=bump["to"],
    )


def player_of(entry: store.Entry) -> int | None:
    """Who played a move or discarded (None: a correction by hand)."""
    if entry.kind == APPLY_KIND:
        return entry.request.get("player")
    discard = entry.request.get("discard")
    return discard.get("seat") if isinstance(discard, dict) else None


def move_text(entry: store.Entry, names: list[str]) -> str:
    req = entry.request
    if entry.kind == BOARD_KIND:
        seat = player_of(entry)
        if seat is None or not 0 <= seat < len(names):
            return _("The board was set by hand.")
        card = req["discard"].get("card")
        if card:
            return _(
                "%(name)s discarded %(card)s.", name=names[seat], card=rank_label(rank_of(card))
            )
        return _("%(name)s discarded a card.", name=names[seat])
    player = req.get("player", 0)
    who = names[player] if 0 <= player < len(names) else str(player + 1)
    steps = ", ".join(
        f"{names[st['seat']] if st['seat'] != player else ''} {st['from']}→{st['to']}".strip()
        for st in req.get("steps", [])
    )
    return _(
        "%(name)s played %(card)s: %(steps)s.",
        name=who,
        card=rank_label(rank_of(req.get("card", "JK"))),
        steps=steps,
    )


# ---------------------------------------------------------------- the panel


def panel_context(table: store.Table, summary: TableSummary, access: str) -> dict:
    t = Table(table, summary.entries, list(summary.names))
    names, board, latest, draft = t.names, t.board, t.latest, t.draft
    winner = board.winner_team()
    can_write = access == "score"
    live = can_write and winner is None
    lay = layout(len(names))
    last_steps = latest.request.get("steps", []) if latest and latest.kind == APPLY_KIND else []
    last_bumps = latest.result.get("bumps", []) if last_steps else []
    turn = t.player if winner is None else None
    svg = drawing.draw(lay, board, names, last_steps, last_bumps, turn)
    game = catalog.GAMES["pegs"]
    key = table.scorer_key
    seats = [
        {"seat": i, "name": name, "team": board.team[i], "colour": COLOURS[i]}
        for i, name in enumerate(names)
    ]
    rank = draft.get("card") if draft.get("card") in RANKS else None
    screen: dict = {
        "template": PANEL,
        "urls": {
            "step": url_for("pegs.step", key=key),
            "fix": url_for("pegs.fix", key=key),
            "undo": url_for("pegs.undo", key=key),
            "pass": url_for("pegs.pass_turn", key=key),
            **{name: url_for("pegs.tap", key=key, field=name) for name in TAPS},
        }
        if can_write
        else {},
        "can_write": can_write,
        "live": live,
        "mode": t.mode,
        "seats": seats,
        "teams": [{"n": n + 1, "seats": [s for s in seats if s["team"] == n]} for n in (0, 1)],
        "ranks": RANKS,
        "base": t.base,
        "svg": svg,
        "winner": None,
        "last": None,
        "undo": None,
        "error": None,
        "error_at": None,
        "message": None,
        "house": [
            (
                game.setting(k).label,
                dict(game.setting(k).options).get(value, value),
                game.setting(k).decision,
            )
            for k, value in house_rules(table).items()
        ],
        "positions": [
            {"seat": seat, "pegs": list(Counter(board.positions(seat["seat"])).items())}
            for seat in seats
        ],
        "turn": {"player": turn, "name": names[turn] if turn is not None else None},
        "card": rank,
        "card_label": rank_label(rank),
    }
    if winner is not None:
        screen["winner"] = {
            "n": winner + 1,
            "names": [s["name"] for s in seats if s["team"] == winner],
        }
    if latest is not None:
        screen["last"] = {
            "text": move_text(latest, names),
            "notes": [bump_note(b, names) for b in last_bumps],
        }
        screen["undo"] = {"entry": latest.id, "kind": latest.kind}
    screen["hand"] = hand_context(t)
    if t.mode == "play":
        screen["play"] = play_context(svg, lay, t, rank, live)
    else:
        screen["setup"] = setup_context(svg, lay, t, live)
    return screen


def play_context(svg: dict, lay: drawing.Layout, t: Table, rank: str | None, live: bool) -> dict:
    names, base = t.names, t.base
    play: dict = {"ready": False, "first": None, "pegs": [], "dests": [], "peg": None, "moves": []}
    if t.player is None or rank is None or t.race.complete:
        return play
    card = card_for_rank(rank)
    first = t.first()
    options = t.race.options(card, first)
    if first is not None and not options:
        first = None  # the board changed under the first part: start the card again
        options = t.race.options(card)
    play.update(ready=True, count=len(options))
    if first is None:  # every move of the card at once, each naming its pegs in words
        play["moves"] = [
            {
                "text": m["text"],
                "vals": {"steps": json.dumps(m["steps"], separators=(",", ":")), "base": base},
                "bumps": bool(m["bumps"]),
                "data": " ".join(f"{st['seat']}-{st['from']}-{st['to']}" for st in m["steps"]),
            }
            for m in t.race.described_moves(card)
        ]
    if first is not None:
        frm, to = engine.position_name(first.frm), engine.position_name(first.to)
        play["first"] = {"name": names[first.seat], "seat": first.seat, "from": frm, "to": to}
        x, y = spot(lay, first.seat, to)
        svg["rings"].append({"x": x, "y": y, "cls": f"pending c-{COLOURS[first.seat]}"})
    pegs: dict[tuple[int, str], list[dict]] = {}
    by_spot: dict[tuple, list[dict]] = {}
    for o in options:
        pegs.setdefault((o["seat"], o["from"]), []).append(o)
        where = ("H", o["seat"], o["to"]) if o["to"].startswith("H") else ("T", o["to"])
        by_spot.setdefault(where, []).append(o)
        o["shared"] = by_spot[where]
    chosen = t.draft.get("peg") or {}
    chosen_peg = (chosen.get("seat"), chosen.get("from"))
    if chosen_peg not in pegs:
        chosen_peg = next(iter(pegs)) if len(pegs) == 1 else None
    shown = (
        pegs.get(chosen_peg, []) if chosen_peg else [o for o in options if len(o["shared"]) == 1]
    )
    if chosen_peg:
        play["peg"] = {"seat": chosen_peg[0], "from": chosen_peg[1], "name": names[chosen_peg[0]]}
    play["pegs"] = [
        {
            "seat": seat,
            "from": frm,
            "name": names[seat],
            "colour": COLOURS[seat],
            "on": (seat, frm) == chosen_peg,
            "vals": {"seat": seat, "from": frm},
        }
        for (seat, frm) in pegs
    ]
    play["dests"] = [
        {
            "seat": o["seat"],
            "from": o["from"],
            "to": o["to"],
            "complete": o["complete"],
            "bumps": [bump_note(b, names) for b in o["bumps"]],
            "vals": {"seat": o["seat"], "from": o["from"], "to": o["to"], "base": base},
            "colour": COLOURS[o["seat"]],
        }
        for o in sorted(shown, key=lambda o: (o["seat"], o["from"], o["to"]))
    ]
    hits = []
    for d in play["dests"]:
        x, y = spot(lay, d["seat"], d["to"])
        svg["rings"].append({"x": x, "y": y, "cls": f"dest c-{d['colour']}", "to": d["to"]})
        if live:
            label = _(
                "Move %(name)s's peg from %(frm)s to %(to)s",
                name=names[d["seat"]],
                frm=d["from"],
                to=d["to"],
            )
            hits.append(drawing.hit(x, y, "step", d["vals"], label, "hit dest-hit", d["to"]))
    for p in play["pegs"]:
        x, y = spot(lay, p["seat"], p["from"])
        svg["rings"].append({"x": x, "y": y, "cls": "movable" + (" chosen" if p["on"] else "")})
        if live:
            label = _("%(name)s's peg on %(pos)s", name=p["name"], pos=p["from"])
            data = f"{p['seat']}-{p['from']}"
            hits.append(drawing.hit(x, y, "peg", p["vals"], label, "hit peg-hit", data))
    drawing.add_hits(svg, lay, hits)
    return play


def setup_context(svg: dict, lay: drawing.Layout, t: Table, live: bool) -> dict:
    names, board, base = t.names, t.board, t.base
    fix = t.draft.get("fix") or {}
    seat, frm = fix.get("seat"), fix.get("from")
    valid = isinstance(seat, int) and 0 <= seat < lay.seats and frm in board.positions(seat)
    setup: dict = {"peg": None, "quick": []}
    hits = []

    def put(x, y, to, label):
        vals = {"seat": seat, "from": frm, "to": to, "base": base}
        hits.append(drawing.hit(x, y, "fix", vals, label, "hit hole-hit", to))

    if valid:
        setup["peg"] = {"seat": seat, "from": frm, "name": names[seat], "colour": COLOURS[seat]}
        x, y = spot(lay, seat, frm)
        svg["rings"].append({"x": x, "y": y, "cls": "movable chosen"})
        taken = {p for s in range(lay.seats) for p in board.positions(s) if p.startswith("T")}
        own = set(board.positions(seat))
        quick = ["S", *(f"T{engine.SIDE * seat + h}" for h in (engine.COME_OUT, engine.IN_SPOT))]
        quick += [f"H{h}" for h in range(1, engine.LANE + 1)]
        setup["quick"] = [
            {
                "to": q,
                "vals": {"seat": seat, "from": frm, "to": q, "base": base},
                "off": q == frm or q in (own if q.startswith("H") else taken),
            }
            for q in quick
        ]
        if live:
            for i, (x, y) in enumerate(lay.track):
                if f"T{i}" not in taken:
                    put(x, y, f"T{i}", _("Put it on %(pos)s", pos=f"T{i}"))
            for h, (x, y) in enumerate(lay.lanes[seat], start=1):
                if f"H{h}" not in own:
                    put(x, y, f"H{h}", _("Put it on H%(h)d", h=h))
            if frm != "S":
                put(*lay.start_centre[seat], "S", _("Back to start"))
    if live:
        for s in range(lay.seats):
            for pos in dict.fromkeys(board.positions(s)):
                x, y = spot(lay, s, pos)
                label = _("%(name)s's peg on %(pos)s", name=names[s], pos=pos)
                vals = {"seat": s, "from": pos}
                hits.append(drawing.hit(x, y, "peg", vals, label, "hit peg-hit", f"{s}-{pos}"))
    drawing.add_hits(svg, lay, hits)
    return setup


def hand_context(t: Table) -> dict:
    ranks = [r for r in t.draft.get("hand", []) if r in RANKS][:HAND_SIZE]
    shown = [
        {
            "rank": rank,
            "label": rank_label(rank),
            "playable": None,
            "without": ",".join(ranks[:i] + ranks[i + 1 :]),
        }
        for i, rank in enumerate(ranks)
    ]
    out: dict = {
        "ranks": ranks,
        "shown": shown,
        "full": {r: _("full") for r in RANKS} if len(ranks) >= HAND_SIZE else {},
        "answer": None,
        "plays": [],
        "error": None,
    }
    if t.player is None or not ranks:
        return out
    codes = hand_codes(ranks)
    try:
        answer = t.race.playable(codes)
    except RuleError as exc:
        out["error"] = exc.message
        return out
    playable = set(answer["playable"])
    for card, code in zip(shown, codes, strict=True):
        card["playable"] = code in playable
    out["answer"] = {
        "cards": shown,
        "must_play": answer["must_play"],
        "joker_only": answer["joker_only"],
    }
    plays = dict.fromkeys(c["rank"] for c in shown if c["playable"])
    out["plays"] = [(rank, rank_label(rank)) for rank in plays]
    return out


# ---------------------------------------------------------------- answering a tap


def render_panel(
    table: store.Table,
    access: str,
    status: int = 200,
    error: BadTap | None = None,
    message: str | None = None,
):
    """The answer to a tap: for htmx, the panel and the rest of what the poll refreshes,
    out of band (``live_fragments``); the whole page otherwise."""
    if not wants_partial():
        if error is not None:
            return render_board(table, access, status, error=error.message)
        return after_write(table, access, message=message)
    if error is None and message is None:
        return live_fragments(table, access, status)

    def show(ctx: dict) -> None:
        screen = ctx["screen"]
        screen["message"] = message
        if error is not None:
            screen["error"] = error.message
            screen["error_at"] = error_place(error.field, screen)

    return live_fragments(table, access, status, adjust=show)


def error_place(field: str, screen: dict) -> str:
    """Where a refused tap's message shows: next to its control when that is on screen,
    under the board otherwise."""
    if not screen["live"] or field == "board":
        return "board"
    if field == "hand":
        return "hand" if screen["turn"]["player"] is not None else "board"
    if screen["mode"] == "play":
        return field if field in ("player", "card") else "play"
    return "fix"


def refused(table: store.Table, access: str, status: int, message: str):
    """Another phone changed the board first: the fresh board, with why."""
    return render_panel(table, access, status, BadTap(message, "board"))


def form_int(field: str, lo: int, hi: int, message: str) -> int:
    raw = request.form.get(field, "")
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value is None or not lo <= value <= hi:
        raise BadTap(message, field)
    return value


def set_mode(t: Table, draft: dict) -> dict:
    mode = request.form.get("mode", "")
    if mode not in MODES:
        raise BadTap(_("Choose play or set-up."), "mode")
    return {**draft, "mode": mode, "fix": None}


def set_player(t: Table, draft: dict) -> dict:
    player = form_int("player", 0, len(t.names) - 1, _("Choose one of the players at this table."))
    if t.player == player and draft.get("moved", 0) == t.moved:
        return draft
    return t.turn(player=player, first=None, peg=None)(draft)


def set_card(t: Table, draft: dict) -> dict:
    rank = request.form.get("card", "")
    if rank not in RANKS:
        raise BadTap(_("Choose a card: A, 2 to 10, J, Q, K or the joker."), "card")
    if t.draft.get("card") == rank and t.draft.get("first") is None:
        return draft
    return t.turn(player=t.player, card=rank, first=None, peg=None)(draft)


def read_peg(t: Table) -> tuple[int, str]:
    seat = form_int("seat", 0, len(t.names) - 1, _("There is no such seat."))
    frm = request.form.get("from", "")
    if frm not in t.board.positions(seat):
        raise BadTap(_("That peg is no longer there; the board has changed."), "peg")
    return seat, frm


def set_peg(t: Table, draft: dict) -> dict:
    seat, frm = read_peg(t)
    if t.mode == "setup":
        return {**draft, "fix": {"seat": seat, "from": frm}}
    return t.turn(player=t.player, peg={"seat": seat, "from": frm})(draft)


def clear_first(t: Table, draft: dict) -> dict:
    return {**draft, "first": None, "peg": None}


def set_hand(t: Table, draft: dict) -> dict:
    """The whole hand is sent (plus the card tapped), so a retried tap sets it again."""
    raw = request.form.get("hand", "")
    ranks = [r for r in raw.split(",") if r] if raw else []
    add = request.form.get("card")
    if add:
        ranks.append(add)
    if any(r not in RANKS for r in ranks):
        raise BadTap(_("Choose cards from A, 2 to 10, J, Q, K and the joker."), "hand")
    if len(ranks) > HAND_SIZE:
        raise BadTap(_("A hand holds at most 5 cards."), "hand")
    return t.turn(player=t.player, hand=ranks)(draft)


TAPS: dict[str, Callable[[Table, dict], dict]] = {
    "mode": set_mode,
    "player": set_player,
    "card": set_card,
    "peg": set_peg,
    "first": clear_first,
    "hand": set_hand,
}


@bp.post("/tap/<field>")
def tap(key: str, field: str):
    """One tap of the panel that only changes the shared draft."""
    table, access = load(key, write=True)
    s = get_store()
    setter = TAPS.get(field)
    try:
        if setter is None:
            raise BadTap(_("There is no such control."), "play")
        t = Table.of(table)
        setter(t, t.draft)  # refuse a bad tap before writing anything
        update_draft(s, table.id, lambda d: setter(t, d))
    except BadTap as exc:
        return render_panel(table, access, 422, exc)
    except store.Conflict as exc:
        return render_panel(table, access, 409, BadTap(exc.message, field))
    return render_panel(table, access)


def check_base(t: Table) -> None:
    if request.form.get("base", "") != str(t.base):
        raise store.Conflict(
            _("The board changed on another phone a moment ago; nothing was saved. Here it is now.")
        )


def whole_move() -> list:
    """A move from the list of every move of the card: all its steps at once."""
    try:
        steps = json.loads(request.form.get("steps") or "")
    except ValueError:
        steps = None
    if not isinstance(steps, list) or not 1 <= len(steps) <= 2:
        raise BadTap(_("That is not a move of this card."), "play")
    return steps


def step_by_step(s: store.Store, t: Table, card: str) -> list | None:
    """A destination tapped: the move's steps, or None when it was the first part of a
    split (kept in the draft until the second)."""
    seat = form_int("seat", 0, len(t.names) - 1, _("There is no such seat."))
    raw = {"seat": seat, "from": request.form.get("from", ""), "to": request.form.get("to", "")}
    chosen = parse_step(raw, t.board)
    if chosen is None:
        raise BadTap(_("That is not a hole on this board."), "play")
    first = t.first()
    option = next((o for o in t.race.options(card, first) if {k: o[k] for k in raw} == raw), None)
    if option is not None and option["continues"] and not option["complete"]:
        update_draft(s, t.table.id, t.turn(first=chosen.as_json(), peg=None))
        return None
    return [st.as_json() for st in (*([first] if first else []), chosen)]


@bp.post("/step")
def step(key: str):
    """A destination tapped: the first part of a split (kept in the draft) or the move,
    checked by the race and stored as a ``pegs-apply`` entry."""
    table, access = load(key, write=True)
    s = get_store()
    submission_id = request.form.get("submission_id") or None
    if s.submission(submission_id, s.add_entry) is not None:
        return render_panel(table, access, message=_("Already saved."))
    t = Table.of(table)
    try:
        check_base(t)
        if t.race.complete:
            raise BadTap(_("The game is over; undo the last move to play on."), "play")
        if t.player is None:
            raise BadTap(_("Choose whose turn it is first."), "player")
        rank = t.draft.get("card")
        if rank not in RANKS:
            raise BadTap(_("Choose the card first."), "card")
        card = card_for_rank(rank)
        steps = whole_move() if "steps" in request.form else step_by_step(s, t, card)
        if steps is None:  # the first part of a split, kept in the draft
            return render_panel(table, access)
        move = {"action": "move", "seat": t.player, "card": card, "steps": steps}
        try:
            after = t.race.apply(Tap.from_json({"id": "move", **move}))
            req = after.apply_request(after.plays[-1])
            result = api.evaluate(APPLY_KIND, req)
            saved = screens.record(
                s,
                table,
                APPLY_KIND,
                req,
                s.next_round(table.id),
                submission_id=submission_id,
                exclusive=False,
                # worked out from the board as this request read it: a move another
                # phone saved meanwhile must not be overwritten by this one
                based_on_version=table.version,
            )
        except RuleError as exc:
            raise BadTap(exc.message, "play") from None
        update_draft(s, table.id, lambda d: {"mode": d.get("mode"), "moved": saved["entry_id"]})
    except BadTap as exc:
        return render_panel(table, access, 422, exc)
    except store.Conflict as exc:
        return refused(table, access, 409, exc.message)
    parts = [bump_note(b, t.names) for b in result["bumps"]]
    if result.get("winner_team") is not None:
        team = result["winner_team"]
        members = [name for seat, name in enumerate(t.names) if t.board.team[seat] == team]
        parts.append(_("Team %(n)d wins: %(names)s!", n=team + 1, names=", ".join(members)))
    return render_panel(table, access, message=" ".join([_("Move saved."), *parts]))


@bp.post("/pass")
def pass_turn(key: str):
    """The player discards and the turn passes: stored as an entry of the board as it is,
    naming the discard. With the hand entered in the hand check, the race refuses it
    while a card other than a joker can move, naming those cards (RULES §5)."""
    table, access = load(key, write=True)
    s = get_store()
    submission_id = request.form.get("submission_id") or None
    if s.submission(submission_id, s.add_entry) is not None:
        return render_panel(table, access, message=_("Already saved."))
    t = Table.of(table)
    try:
        check_base(t)
        if t.race.complete:
            raise BadTap(_("The game is over; undo the last move to play on."), "play")
        if t.player is None:
            raise BadTap(_("Choose whose turn it is first."), "player")
        hand = hand_codes([r for r in t.draft.get("hand", []) if r in RANKS])
        rank = request.form.get("card") or None
        if rank is not None and rank not in RANKS:
            raise BadTap(_("Choose a card: A, 2 to 10, J, Q, K or the joker."), "hand")
        card = None
        if hand:  # the hand is known: the race checks the discard
            ranks = [rank_of(c) for c in hand]
            card = hand[ranks.index(rank)] if rank in ranks else hand[0]
            tap = {"id": "pass", "action": "discard", "seat": t.player, "card": card, "hand": hand}
            try:
                t.race.apply(Tap.from_json(tap))
            except Refused as exc:
                raise BadTap(exc.message, "hand") from None
        elif rank is not None:
            card = card_for_rank(rank)
        discard = {"seat": t.player, "card": card}
        saved = store_board(
            s, table, t.board, submission_id, based_on_version=table.version, discard=discard
        )
        update_draft(s, table.id, lambda d: {"mode": d.get("mode"), "moved": saved["entry_id"]})
    except BadTap as exc:
        return render_panel(table, access, 422, exc)
    except store.Conflict as exc:
        return refused(table, access, 409, exc.message)
    return render_panel(table, access, message=_("%(name)s discarded.", name=t.names[t.player]))


@bp.post("/fix")
def fix(key: str):
    """Set-up or correction: one peg put on another hole (or start); the engine checks
    the board; stored as a ``pegs-board`` entry. The turn stays."""
    table, access = load(key, write=True)
    s = get_store()
    submission_id = request.form.get("submission_id") or None
    if s.submission(submission_id, s.add_entry) is not None:
        return render_panel(table, access, message=_("Already saved."))
    t = Table.of(table)
    board = t.board
    try:
        check_base(t)
        seat, frm = read_peg(t)
        to = (request.form.get("to") or "").strip().upper()
        if not to:
            raise BadTap(_("Tap a hole, or write one like T44, H2 or S."), "fix")
        pegs = {str(x): board.positions(x) for x in range(board.seats)}
        moved = list(pegs[str(seat)])
        try:
            to = engine.position_name(engine.parse_position(to, board.length))
            moved[moved.index(frm)] = to
            pegs[str(seat)] = moved
            new = engine.Board(board.seats, pegs, team_pegs=board.team_pegs, nine=board.nine)
        except RuleError as exc:
            raise BadTap(in_names(exc.message, t.race.players), "fix") from None
        if new == board:
            raise BadTap(_("That peg is already there."), "fix")
        store_board(s, table, new, submission_id, based_on_version=table.version)
        update_draft(s, table.id, lambda d: {**d, "fix": None, "first": None, "peg": None})
    except BadTap as exc:
        return render_panel(table, access, 422, exc)
    except store.Conflict as exc:
        return refused(table, access, 409, exc.message)
    message = _("%(name)s's peg put on %(pos)s.", name=t.names[seat], pos=to)
    return render_panel(table, access, message=message)


@bp.post("/undo")
def undo(key: str):
    """Undo the latest live move or correction (the history's Undo does the same); the
    turn goes back to the player of the move undone."""
    table, access = load(key, write=True)
    s = get_store()
    submission_id = request.form.get("submission_id") or None
    if s.submission(submission_id, s.void_entry) is not None:
        return render_panel(table, access, message=_("Already undone."))
    t = Table.of(table)
    latest = t.latest
    try:
        if latest is None:
            raise store.Conflict(_("There is no move to undo."))
        if request.form.get("entry") != str(latest.id):
            raise store.Conflict(
                _("The board changed on another phone a moment ago; nothing was undone.")
            )
        s.void_entry(table.id, latest.id, submission_id, based_on_version=table.version)
    except store.Conflict as exc:
        return refused(table, access, 409, exc.message)
    moved = Table.of(s.table(table.id)).moved
    player = player_of(latest)
    player = t.player if player is None else player
    update_draft(s, table.id, lambda d: {"mode": d.get("mode"), "moved": moved, "player": player})
    return render_panel(table, access, message=_("Last move undone."))
