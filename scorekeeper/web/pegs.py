"""The Arizona Pegs and Jokers table screen (RULES §5): the board, the turn, the hand.

* **The board** is drawn server-side as inline SVG: the loop of 18·N track holes as a
  regular polygon (one side per seat, seat 0 at the bottom, forward = clockwise), each
  seat's start area, home lane H1–H5, come-out CO(s) = T(18s+8) and in-spot
  IN(s) = T(18s+3), the pegs in seat colours (team 0 warm hues, team 1 cool ones). Every
  peg element carries ``data-seat`` and ``data-pos``. The geometry is computed here
  (templates do no arithmetic); no game rule is: legality, bumps and the winner come
  from the engine (``scorekeeper.games.pegs``).
* **The current board** is the result of the latest live board entry: ``pegs-apply``
  (a move, scored by the engine) or ``pegs-board`` (a correction from set-up mode:
  request = result = the new state ``{"seats", "pegs", "house_rules"}``, plus
  ``winner_team`` in the result, no points; checked by ``engine.Board``, which refuses
  two pegs in one hole or a wrong peg count). A new table starts with every peg in
  start. Undo in the history, or "Undo last move" here, voids the latest one.
* **Play mode**: whose turn and the card (rank only — suits never matter in this game;
  a card is stored as the rank in spades, ``7S``, or ``JK``) → the engine's legal step
  lists drawn on the board. A destination only one peg can reach is tappable at once;
  otherwise tap the peg first (or use the lists under the board). A split 7 or 9 goes
  part by part: the first part is kept in the draft, then the second part's options given
  the first. The last tap stores a ``pegs-apply`` entry (``screens.record``,
  ``exclusive=False``). Each write carries ``base`` — the id of the board entry the
  phone was showing — so a move made on an outdated board is refused (409).
* **Set-up mode**: tap a peg, then a hole (or type a position) → a ``pegs-board`` entry.
* **Hand check**: up to 5 cards → which are playable, must the player play, jokers only.

Everything in progress (mode, whose turn, card, chosen peg, first part of a split, the
hand, the peg being set up) is the draft ``pegs-turn``, saved at every tap, so a reload
or another phone continues. Taps *set* values, so a retried tap changes nothing.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from flask import Blueprint, request, url_for

from .. import api, store
from ..cards import JOKER, RANK_TEXT, SUITS, parse_card
from ..errors import RuleError
from ..games import catalog
from ..games import pegs as engine
from ..i18n import gettext as _
from ..summary import TableSummary
from . import screens
from .tables import (
    after_write,
    get_store,
    live_fragments,
    load,
    render_board,
    wants_partial,
)

bp = Blueprint("pegs", __name__, url_prefix="/t/<key>/pegs")

APPLY_KIND = "pegs-apply"
MOVES_KIND = "pegs-moves"
BOARD_KIND = "pegs-board"  # a correction: the whole new state, no points
BOARD_KINDS = (APPLY_KIND, BOARD_KIND)
DRAFT = "pegs-turn"
PANEL = "games/pegs/_panel.html"
MODES = ("play", "setup")
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "JK")
HAND_SIZE = 5
# seat colours: team 0 (even seats) warm, team 1 (odd seats) cool
COLOURS = ("red", "blue", "orange", "teal", "gold", "violet", "pink", "green")


class BadTap(Exception):
    """A tap the screen refuses: the message is shown next to the control, nothing stored."""

    def __init__(self, message: str, field: str):
        super().__init__(message)
        self.message = message
        self.field = field


# ---------------------------------------------------------------- cards


def card_code(rank: str) -> str:
    """The card a rank button stands for: ``7`` → ``7S``, ``JK`` stays (suits never
    matter in Pegs and Jokers)."""
    return rank if rank == "JK" else rank + "S"


def rank_of(code: str) -> str:
    card = parse_card(code)
    return "JK" if card.rank == JOKER else RANK_TEXT[card.rank]


def rank_label(rank: str | None) -> str:
    return _("Joker") if rank == "JK" else (rank or "")


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


# ---------------------------------------------------------------- the board's geometry


@dataclass(frozen=True)
class Layout:
    """Where everything is drawn for N seats, in viewBox units (400 wide)."""

    seats: int
    width: float
    height: float
    spacing: float  # between two track holes
    hole_r: float
    peg_r: float
    sides: tuple  # per seat ((x1, y1), (x2, y2)) of its stretch of track
    track: tuple  # T0 … T(L-1) → (x, y)
    lanes: tuple  # per seat: H1 … H5 → (x, y)
    starts: tuple  # per seat: 5 start slots → (x, y)
    start_centre: tuple  # per seat (x, y)
    start_r: float
    labels: tuple  # per seat (x, y): just inside the start area, towards the centre
    normals: tuple  # per seat: the unit vector from its side towards the centre
    font: float


def _pt(p: tuple[float, float]) -> tuple[float, float]:
    return (round(p[0], 1), round(p[1], 1))


@functools.lru_cache(maxsize=8)
def layout(seats: int) -> Layout:
    """A regular polygon, one side of 18 holes per seat; seat 0 at the bottom (six seats:
    just left of it) and the track running clockwise (increasing hole numbers). Six
    seats stand on a point, so that board is taller than wide, as a phone is."""
    width, margin = 400.0, 10.0
    first = {4: 45.0, 6: 90.0, 8: 67.5}[seats]
    angles = [math.radians(first + 360.0 * k / seats) for k in range(seats)]
    unit = [(math.cos(a), math.sin(a)) for a in angles]
    xs, ys = [u[0] for u in unit], [u[1] for u in unit]
    radius = (width - 2 * margin) / (max(xs) - min(xs))
    height = (max(ys) - min(ys)) * radius + 2 * margin
    cx, cy = margin - min(xs) * radius, margin - min(ys) * radius
    corners = [(cx + radius * x, cy + radius * y) for x, y in unit]
    side = math.dist(corners[0], corners[1])
    per = engine.SIDE
    d = side / per
    track, lanes, starts, centres, labels, sides, normals = [], [], [], [], [], [], []
    for s in range(seats):
        a, b = corners[s], corners[(s + 1) % seats]
        tangent = ((b[0] - a[0]) / side, (b[1] - a[1]) / side)
        mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        inward = math.dist(mid, (cx, cy))
        normal = ((cx - mid[0]) / inward, (cy - mid[1]) / inward)
        holes = [
            (a[0] + tangent[0] * d * (j + 0.5), a[1] + tangent[1] * d * (j + 0.5))
            for j in range(per)
        ]
        track.extend(_pt(h) for h in holes)
        sides.append((_pt(holes[0]), _pt(holes[-1])))

        def inside(p, depth, along=0.0, n=normal, t=tangent):
            return (p[0] + n[0] * depth + t[0] * along, p[1] + n[1] * depth + t[1] * along)

        spot = holes[engine.IN_SPOT]
        lanes.append(tuple(_pt(inside(spot, d * h * 1.05)) for h in range(1, engine.LANE + 1)))
        centre = inside(holes[engine.COME_OUT], d * 2.9, d * 1.2)
        ring = d * 1.2
        slots = []
        for k in range(engine.PEGS):
            turn = math.radians(72 * k)
            # the first slot points at the track; the others go round the centre
            ox = -normal[0] * math.cos(turn) + tangent[0] * math.sin(turn)
            oy = -normal[1] * math.cos(turn) + tangent[1] * math.sin(turn)
            slots.append(_pt((centre[0] + ox * ring, centre[1] + oy * ring)))
        starts.append(tuple(slots))
        centres.append(_pt(centre))
        labels.append(_pt(inside(holes[engine.COME_OUT], d * 5.2, d * 1.2)))
        normals.append(normal)
    return Layout(
        seats=seats,
        width=width,
        height=round(height, 1),
        spacing=d,
        hole_r=round(min(d * 0.28, 4.0), 2),
        peg_r=round(min(d * 0.42, 7.2), 2),
        sides=tuple(sides),
        track=tuple(track),
        lanes=tuple(lanes),
        starts=tuple(starts),
        start_centre=tuple(centres),
        start_r=round(ring + d * 0.6, 1),
        labels=tuple(labels),
        normals=tuple(normals),
        font=round(min(max(d * 1.15, 10.0), 15.0), 1),
    )


def spot(lay: Layout, seat: int, pos: str) -> tuple[float, float]:
    """The point of a position of ``seat``'s peg (start: the start area's centre)."""
    code = engine.parse_position(pos, engine.SIDE * lay.seats)
    if code == engine.START:
        return lay.start_centre[seat]
    if code >= 0:
        return lay.track[code]
    return lay.lanes[seat][engine.lane_number(code) - 1]


def hit_radii(points: list[tuple[float, float]], lay: Layout) -> list[float]:
    """Invisible tap areas as big as they can be without covering another one's centre."""
    biggest = 22.0
    out = []
    for i, p in enumerate(points):
        others = [math.dist(p, q) for j, q in enumerate(points) if j != i]
        room = min(others) / 2 if others else biggest
        out.append(round(max(min(biggest, room), lay.hole_r + 1), 1))
    return out


# ---------------------------------------------------------------- reading the table


@dataclass(frozen=True)
class Seat:
    seat: int
    name: str
    team: int
    colour: str


def seats_of(players: list[store.Player], board: engine.Board) -> list[Seat]:
    """Players in seat order, each with the engine's team and a colour: warm hues for
    one team, cool ones for the other."""
    return [Seat(i, p.name, board.team[i], COLOURS[i]) for i, p in enumerate(players)]


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


def state_of(board: engine.Board) -> dict:
    return board.to_json()


def store_board(
    s: store.Store,
    table: store.Table,
    board: engine.Board,
    submission_id: str | None = None,
    based_on_version: int | None = None,
) -> dict:
    """A correction: the whole board as the ``pegs-board`` entry's request and result
    (with ``winner_team``, as a move's result has), no points."""
    state = state_of(board)
    result = {**state, "bumps": [], "winner_team": board.winner_team()}
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


# ---------------------------------------------------------------- the engine's options


@dataclass(frozen=True)
class Option:
    """One step the player may take now: a whole move (``complete``) or the first part
    of a split that needs a second (``continues``)."""

    seat: int
    frm: str
    to: str
    complete: bool
    continues: bool
    bumps: tuple = ()

    @property
    def peg(self) -> tuple[int, str]:
        return (self.seat, self.frm)

    def where(self) -> tuple:
        """The physical hole (home lanes are per seat)."""
        return ("H", self.seat, self.to) if self.to.startswith("H") else ("T", self.to)

    def as_step(self) -> dict:
        return {"seat": self.seat, "from": self.frm, "to": self.to}


def parse_step(raw: object, board: engine.Board) -> engine.Step | None:
    try:
        return engine.Step.from_json(raw, board.seats)
    except (RuleError, TypeError):
        return None


def step_options(
    board: engine.Board, player: int, card: str, first: engine.Step | None
) -> list[Option]:
    """What can be tapped now: the engine's step lists (every order of a split, as the
    second part sees the board after the first), grouped by the step to take next."""
    found: dict[tuple, dict] = {}
    for move in board.all_step_lists(player, card):
        if first is None:
            step = move.steps[0]
        elif len(move.steps) == 2 and move.steps[0] == first:
            step = move.steps[1]
        else:
            continue
        key = (step.seat, step.frm, step.to)
        item = found.setdefault(key, {"complete": False, "continues": False, "bumps": ()})
        if first is not None or len(move.steps) == 1:
            item["complete"] = True
            item["bumps"] = tuple(b.as_json() for b in move.bumps)
        else:
            item["continues"] = True
    return [
        Option(
            seat,
            engine.position_name(frm),
            engine.position_name(to),
            v["complete"],
            v["continues"],
            v["bumps"],
        )
        for (seat, frm, to), v in found.items()
    ]


def bump_note(bump: dict, names: list[str]) -> str:
    who = names[bump["seat"]] if 0 <= bump["seat"] < len(names) else str(bump["seat"])
    if bump["to"] == "S":
        return _("%(name)s's peg on %(pos)s went back to start.", name=who, pos=bump["from"])
    return _(
        "%(name)s's peg on %(pos)s went to its in-spot %(spot)s.",
        name=who,
        pos=bump["from"],
        spot=bump["to"],
    )


def move_text(entry: store.Entry, names: list[str]) -> str:
    req = entry.request
    if entry.kind == BOARD_KIND:
        return _("The board was set by hand.")
    player = req.get("player", 0)
    who = names[player] if 0 <= player < len(names) else str(player)
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


# ---------------------------------------------------------------- the drawing


def draw(
    lay: Layout,
    board: engine.Board,
    seats: list[Seat],
    last: store.Entry | None,
    turn: int | None = None,
) -> dict:
    """The static part of the SVG: track, holes, marks and the pegs."""
    n = lay.seats
    names = [seat.name for seat in seats]
    holes = []
    for i, (x, y) in enumerate(lay.track):
        side = i // engine.SIDE
        kind = i % engine.SIDE
        cls = f"hole side-{COLOURS[side]}"
        if kind == engine.COME_OUT:
            cls += " co"
        elif kind == engine.IN_SPOT:
            cls += " in"
        holes.append({"x": x, "y": y, "cls": cls, "name": f"T{i}"})
    lanes = [
        {"x": x, "y": y, "cls": f"lane c-{COLOURS[s]}", "name": f"H{h + 1}"}
        for s in range(n)
        for h, (x, y) in enumerate(lay.lanes[s])
    ]
    starts = [
        {"x": x, "y": y, "cls": f"start c-{COLOURS[s]}"}
        for s in range(n)
        for (x, y) in lay.starts[s]
    ]
    links = [
        {
            "x1": lay.track[engine.SIDE * s + engine.IN_SPOT][0],
            "y1": lay.track[engine.SIDE * s + engine.IN_SPOT][1],
            "x2": lay.lanes[s][-1][0],
            "y2": lay.lanes[s][-1][1],
            "cls": f"c-{COLOURS[s]}",
        }
        for s in range(n)
    ]
    pegs = []
    for s in range(n):
        in_start = 0
        for pos in board.positions(s):
            if pos == "S":
                x, y = lay.starts[s][in_start]
                in_start += 1
            else:
                x, y = spot(lay, s, pos)
            pegs.append(
                {"x": x, "y": y, "seat": s, "pos": pos, "cls": f"peg c-{COLOURS[s]} team-{s % 2}"}
            )
    marks = []
    if last is not None and last.kind == APPLY_KIND:
        for st in last.request.get("steps", []):
            x, y = spot(lay, st["seat"], st["to"])
            marks.append({"x": x, "y": y, "cls": "last", "r": round(lay.peg_r + 2.5, 1)})
        for bump in last.result.get("bumps", []):
            x, y = spot(lay, bump["seat"], bump["from"])
            marks.append({"x": x, "y": y, "cls": "bumped", "r": round(lay.peg_r + 1.5, 1)})
    sides = [
        {
            "x1": a[0],
            "y1": a[1],
            "x2": b[0],
            "y2": b[1],
            "cls": f"side c-{COLOURS[s]}",
        }
        for s, (a, b) in enumerate(lay.sides)
    ]
    labels = []
    for s in range(n):
        text = names[s] if len(names[s]) <= 10 else names[s][:9] + "…"
        # move the text's middle in far enough that its box clears the start area
        nx, ny = lay.normals[s]
        half = abs(nx) * len(text) * lay.font * 0.31 + abs(ny) * lay.font * 0.5
        x, y = lay.labels[s]
        cls = f"label c-{COLOURS[s]}" + (" turn" if s == turn else "")
        labels.append(
            {"x": round(x + nx * half, 1), "y": round(y + ny * half, 1), "text": text, "cls": cls}
        )
    spots = []
    for s in range(n):
        for kind, hole in (("co", engine.COME_OUT), ("in", engine.IN_SPOT)):
            x, y = lay.track[engine.SIDE * s + hole]
            spots.append({"x": x, "y": y, "cls": f"{kind}-ring c-{COLOURS[s]}"})
    return {
        "viewbox": f"0 0 {lay.width:g} {lay.height:g}",
        "spots": spots,
        "seats": n,
        "hole_r": lay.hole_r,
        "peg_r": lay.peg_r,
        "ring_r": round(lay.peg_r + 1.6, 1),
        "start_r": lay.start_r,
        "font": lay.font,
        "sides": sides,
        "holes": holes,
        "lanes": lanes,
        "starts": starts,
        "links": links,
        "co_r": round(lay.hole_r + 2.2, 1),
        "centres": [
            {"x": x, "y": y, "cls": f"start-area c-{COLOURS[s]}"}
            for s, (x, y) in enumerate(lay.start_centre)
        ],
        "pegs": pegs,
        "marks": marks,
        "labels": labels,
        "rings": [],
        "hits": [],
    }


def hit(x: float, y: float, url: str, vals: dict, label: str, cls: str, data: str) -> dict:
    """A tap area: ``url`` names the route (step, fix, peg), ``vals`` what it posts."""
    return {"x": x, "y": y, "url": url, "vals": vals, "label": label, "cls": cls, "data": data}


def add_hits(svg: dict, lay: Layout, hits: list[dict]) -> None:
    """Tap areas (``x``, ``y``, ``url``, ``vals``, ``label``, ``target``), one per spot."""
    seen: dict[tuple, dict] = {}
    for hit in hits:  # earlier ones win a shared spot (destinations come first)
        seen.setdefault((hit["x"], hit["y"]), hit)
    unique = list(seen.values())
    radii = hit_radii([(h["x"], h["y"]) for h in unique], lay)
    for hit, r in zip(unique, radii, strict=True):
        svg["hits"].append({**hit, "r": r})


# ---------------------------------------------------------------- the panel


def panel_context(table: store.Table, summary: TableSummary, access: str) -> dict:
    s = get_store()
    n = len(summary.players)
    board, latest = current_board(table, n, summary.entries)
    seats = seats_of(summary.players, board)
    names = [seat.name for seat in seats]
    base = latest.id if latest else 0
    winner = board.winner_team()
    draft = read_draft(s, table.id)
    mode = draft.get("mode") if draft.get("mode") in MODES else "play"
    can_write = access == "score"
    live = can_write and winner is None
    player = draft.get("player")
    player = player if isinstance(player, int) and 0 <= player < n else None
    lay = layout(n)
    svg = draw(lay, board, seats, latest, player if winner is None else None)
    game = catalog.GAMES["pegs"]
    rules = house_rules(table)
    key = table.scorer_key
    screen: dict = {
        "template": PANEL,
        "urls": {
            "step": url_for("pegs.step", key=key),
            "fix": url_for("pegs.fix", key=key),
            "undo": url_for("pegs.undo", key=key),
            **{name: url_for("pegs.tap", key=key, field=name) for name in TAPS},
        }
        if can_write
        else {},
        "can_write": can_write,
        "live": live,
        "mode": mode,
        "seats": seats,
        "teams": [
            {"n": t + 1, "seats": [seat for seat in seats if seat.team == t]} for t in (0, 1)
        ],
        "ranks": RANKS,
        "base": base,
        "svg": svg,
        "winner": None,
        "last": None,
        "undo": None,
        "error": None,
        "error_at": None,
        "message": None,
        "house": [
            (
                game.setting(key).label,
                dict(game.setting(key).options).get(value, value),
                game.setting(key).decision,
            )
            for key, value in rules.items()
        ],
        "positions": [
            {"seat": seat, "pegs": list(Counter(board.positions(seat.seat)).items())}
            for seat in seats
        ],
    }
    if winner is not None:
        screen["winner"] = {
            "n": winner + 1,
            "names": [seat.name for seat in seats if seat.team == winner],
        }
    if latest is not None:
        screen["last"] = {
            "text": move_text(latest, names),
            "notes": [bump_note(b, names) for b in latest.result.get("bumps", [])],
        }
        screen["undo"] = {"entry": latest.id, "kind": latest.kind}

    rank = draft.get("card") if draft.get("card") in RANKS else None
    screen["turn"] = {"player": player, "name": names[player] if player is not None else None}
    screen["card"] = rank
    screen["card_label"] = rank_label(rank)
    screen["hand"] = hand_context(board, player, draft)
    if mode == "play":
        screen["play"] = play_context(svg, lay, board, seats, draft, player, rank, base, live)
    else:
        screen["setup"] = setup_context(svg, lay, board, seats, draft, base, live)
    return screen


def play_context(svg, lay, board, seats, draft, player, rank, base, live) -> dict:
    names = [seat.name for seat in seats]
    play: dict = {"ready": False, "first": None, "pegs": [], "dests": [], "peg": None}
    if player is None or rank is None:
        return play
    card = card_code(rank)
    first = parse_step(draft.get("first"), board) if draft.get("first") else None
    options = step_options(board, player, card, first)
    if first is not None and not options:
        first = None  # the board changed under the first part: start the card again
        options = step_options(board, player, card, None)
    play.update(ready=True, count=len(options))
    if first is not None:
        play["first"] = {
            "name": names[first.seat],
            "seat": first.seat,
            "from": engine.position_name(first.frm),
            "to": engine.position_name(first.to),
        }
        x, y = spot(lay, first.seat, engine.position_name(first.to))
        svg["rings"].append({"x": x, "y": y, "cls": f"pending c-{COLOURS[first.seat]}"})
    pegs: dict[tuple[int, str], list[Option]] = {}
    for option in options:
        pegs.setdefault(option.peg, []).append(option)
    chosen = draft.get("peg") or {}
    chosen_peg = (chosen.get("seat"), chosen.get("from"))
    if chosen_peg not in pegs:
        chosen_peg = next(iter(pegs)) if len(pegs) == 1 else None
    by_spot: dict[tuple, list[Option]] = {}
    for option in options:
        by_spot.setdefault(option.where(), []).append(option)
    shown = (
        pegs.get(chosen_peg, [])
        if chosen_peg
        else [o for o in options if len(by_spot[o.where()]) == 1]
    )
    play["peg"] = (
        {"seat": chosen_peg[0], "from": chosen_peg[1], "name": names[chosen_peg[0]]}
        if chosen_peg
        else None
    )
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
            "seat": o.seat,
            "from": o.frm,
            "to": o.to,
            "complete": o.complete,
            "bumps": [bump_note(b, names) for b in o.bumps],
            "vals": {**o.as_step(), "base": base},
            "colour": COLOURS[o.seat],
        }
        for o in sorted(shown, key=lambda o: (o.seat, o.frm, o.to))
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
            hits.append(hit(x, y, "step", d["vals"], label, "hit dest-hit", d["to"]))
    for p in play["pegs"]:
        x, y = spot(lay, p["seat"], p["from"])
        svg["rings"].append({"x": x, "y": y, "cls": "movable" + (" chosen" if p["on"] else "")})
        if live:
            label = _("%(name)s's peg on %(pos)s", name=p["name"], pos=p["from"])
            hits.append(
                hit(x, y, "peg", p["vals"], label, "hit peg-hit", f"{p['seat']}-{p['from']}")
            )
    add_hits(svg, lay, hits)
    return play


def setup_context(svg, lay, board, seats, draft, base, live) -> dict:
    names = [seat.name for seat in seats]
    fix = draft.get("fix") or {}
    seat, frm = fix.get("seat"), fix.get("from")
    valid = isinstance(seat, int) and 0 <= seat < lay.seats and frm in board.positions(seat)
    setup: dict = {"peg": None, "quick": []}
    hits = []
    if valid:
        setup["peg"] = {"seat": seat, "from": frm, "name": names[seat], "colour": COLOURS[seat]}
        x, y = spot(lay, seat, frm)
        svg["rings"].append({"x": x, "y": y, "cls": "movable chosen"})
        taken = {p for s in range(lay.seats) for p in board.positions(s) if p.startswith("T")}
        own = set(board.positions(seat))
        quick = [
            "S",
            f"T{engine.SIDE * seat + engine.COME_OUT}",
            f"T{engine.SIDE * seat + engine.IN_SPOT}",
        ]
        quick += [f"H{h}" for h in range(1, engine.LANE + 1)]
        setup["quick"] = [
            {
                "to": q,
                "vals": {"seat": seat, "from": frm, "to": q, "base": base},
                "off": q == frm
                or (q.startswith("H") and q in own)
                or (q.startswith("T") and q in taken),
            }
            for q in quick
        ]
        if live:
            for i, (x, y) in enumerate(lay.track):
                name = f"T{i}"
                if name not in taken:
                    hits.append(
                        hit(
                            x,
                            y,
                            "fix",
                            {"seat": seat, "from": frm, "to": name, "base": base},
                            _("Put it on %(pos)s", pos=name),
                            "hit hole-hit",
                            name,
                        )
                    )
            for h, (x, y) in enumerate(lay.lanes[seat], start=1):
                if f"H{h}" not in own:
                    hits.append(
                        hit(
                            x,
                            y,
                            "fix",
                            {"seat": seat, "from": frm, "to": f"H{h}", "base": base},
                            _("Put it on H%(h)d", h=h),
                            "hit hole-hit",
                            f"H{h}",
                        )
                    )
            if frm != "S":
                x, y = lay.start_centre[seat]
                hits.append(
                    hit(
                        x,
                        y,
                        "fix",
                        {"seat": seat, "from": frm, "to": "S", "base": base},
                        _("Back to start"),
                        "hit hole-hit",
                        "S",
                    )
                )
    if live:
        for s in range(lay.seats):
            for pos in dict.fromkeys(board.positions(s)):
                x, y = spot(lay, s, pos)
                hits.append(
                    hit(
                        x,
                        y,
                        "peg",
                        {"seat": s, "from": pos},
                        _("%(name)s's peg on %(pos)s", name=names[s], pos=pos),
                        "hit peg-hit",
                        f"{s}-{pos}",
                    )
                )
    add_hits(svg, lay, hits)
    return setup


def hand_context(board: engine.Board, player: int | None, draft: dict) -> dict:
    ranks = [r for r in draft.get("hand", []) if r in RANKS][:HAND_SIZE]
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
    if player is None or not ranks:
        return out
    codes = hand_codes(ranks)
    try:
        answer = api.evaluate(MOVES_KIND, {**state_of(board), "player": player, "hand": codes})
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
    mode = screen["mode"]
    if field == "hand":
        return "hand" if screen["turn"]["player"] is not None else "board"
    if mode == "play":
        return field if field in ("player", "card") else "play"
    return "fix"


def written(table: store.Table, access: str, message: str):
    """After a stored move or correction."""
    return render_panel(table, access, message=message)


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


def live_board(table: store.Table) -> tuple[engine.Board, store.Entry | None]:
    s = get_store()
    return current_board(table, len(s.players(table.id)), s.recent_entries(table.id))


def set_mode(table, board, draft):
    mode = request.form.get("mode", "")
    if mode not in MODES:
        raise BadTap(_("Choose play or set-up."), "mode")
    return {**draft, "mode": mode, "fix": None}


def set_player(table, board, draft):
    player = form_int("player", 0, board.seats - 1, _("Choose one of the players at this table."))
    if draft.get("player") == player:
        return draft
    return {**draft, "player": player, "first": None, "peg": None}


def set_card(table, board, draft):
    rank = request.form.get("card", "")
    if rank not in RANKS:
        raise BadTap(_("Choose a card: A, 2 to 10, J, Q, K or the joker."), "card")
    if draft.get("card") == rank and draft.get("first") is None:
        return draft
    return {**draft, "card": rank, "first": None, "peg": None}


def read_peg(board: engine.Board) -> tuple[int, str]:
    seat = form_int("seat", 0, board.seats - 1, _("There is no such seat."))
    frm = request.form.get("from", "")
    if frm not in board.positions(seat):
        raise BadTap(_("That peg is no longer there; the board has changed."), "peg")
    return seat, frm


def set_peg(table, board, draft):
    seat, frm = read_peg(board)
    if draft.get("mode") == "setup":
        return {**draft, "fix": {"seat": seat, "from": frm}}
    return {**draft, "peg": {"seat": seat, "from": frm}}


def clear_first(table, board, draft):
    return {**draft, "first": None, "peg": None}


def set_hand(table, board, draft):
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
    return {**draft, "hand": ranks}


def pass_turn(table, board, draft):
    player = draft.get("player")
    if not isinstance(player, int):
        raise BadTap(_("Choose whose turn it is first."), "player")
    return {
        **draft,
        "player": (player + 1) % board.seats,
        "card": None,
        "first": None,
        "peg": None,
        "hand": [],
    }


TAPS: dict[str, Callable] = {
    "mode": set_mode,
    "player": set_player,
    "card": set_card,
    "peg": set_peg,
    "first": clear_first,
    "hand": set_hand,
    "pass": pass_turn,
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
        board, _latest = live_board(table)
        current = read_draft(s, table.id)
        setter(table, board, current)  # refuse a bad tap before writing anything
        update_draft(s, table.id, lambda d: setter(table, board, d))
    except BadTap as exc:
        return render_panel(table, access, 422, exc)
    except store.Conflict as exc:
        return render_panel(table, access, 409, BadTap(exc.message, field))
    return render_panel(table, access)


def check_base(latest: store.Entry | None) -> None:
    raw = request.form.get("base", "")
    if raw != str(latest.id if latest else 0):
        raise store.Conflict(
            _("The board changed on another phone a moment ago; nothing was saved. Here it is now.")
        )


def after_move(draft: dict, seats: int, player: int) -> dict:
    """The next player's turn: clockwise (RULES §5 — play goes clockwise)."""
    return {
        **draft,
        "player": (player + 1) % seats,
        "card": None,
        "first": None,
        "peg": None,
        "hand": [],
    }


@bp.post("/step")
def step(key: str):
    """A destination tapped: the first part of a split (kept in the draft) or the move,
    checked by the engine and stored as a ``pegs-apply`` entry."""
    table, access = load(key, write=True)
    s = get_store()
    submission_id = request.form.get("submission_id") or None
    if s.submission(submission_id, s.add_entry, table.id) is not None:
        return written(table, access, _("Already saved."))
    board, latest = live_board(table)
    draft = read_draft(s, table.id)
    try:
        check_base(latest)
        if board.winner_team() is not None:
            raise BadTap(_("The game is over; undo the last move to play on."), "play")
        player, rank = draft.get("player"), draft.get("card")
        if not isinstance(player, int) or not 0 <= player < board.seats:
            raise BadTap(_("Choose whose turn it is first."), "player")
        if rank not in RANKS:
            raise BadTap(_("Choose the card first."), "card")
        seat = form_int("seat", 0, board.seats - 1, _("There is no such seat."))
        raw = {"seat": seat, "from": request.form.get("from", ""), "to": request.form.get("to", "")}
        chosen = parse_step(raw, board)
        if chosen is None:
            raise BadTap(_("That is not a hole on this board."), "play")
        card = card_code(rank)
        first = parse_step(draft.get("first"), board) if draft.get("first") else None
        options = {(o.seat, o.frm, o.to): o for o in step_options(board, player, card, first)}
        option = options.get((seat, raw["from"], raw["to"]))
        steps = [*([first] if first else []), chosen]
        if option is not None and option.continues and not option.complete:
            update_draft(s, table.id, lambda d: {**d, "first": chosen.as_json(), "peg": None})
            return render_panel(table, access)
        req = {
            **state_of(board),
            "player": player,
            "card": card,
            "steps": [st.as_json() if isinstance(st, engine.Step) else st for st in steps],
        }
        try:
            result = api.evaluate(APPLY_KIND, req)  # the engine's reason when illegal
            screens.record(
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
        update_draft(s, table.id, lambda d: after_move(d, board.seats, player))
    except BadTap as exc:
        return render_panel(table, access, 422, exc)
    except store.Conflict as exc:
        return refused(table, access, 409, exc.message)
    names = [p.name for p in s.players(table.id)]
    parts = [bump_note(b, names) for b in result["bumps"]]
    if result.get("winner_team") is not None:
        team = result["winner_team"]
        members = [name for seat, name in enumerate(names) if board.team[seat] == team]
        parts.append(_("Team %(n)d wins: %(names)s!", n=team + 1, names=", ".join(members)))
    message = " ".join([_("Move saved."), *parts])
    return written(table, access, message)


@bp.post("/fix")
def fix(key: str):
    """Set-up or correction: one peg put on another hole (or start); the engine checks
    the board; stored as a ``pegs-board`` entry."""
    table, access = load(key, write=True)
    s = get_store()
    submission_id = request.form.get("submission_id") or None
    if s.submission(submission_id, s.add_entry, table.id) is not None:
        return written(table, access, _("Already saved."))
    board, latest = live_board(table)
    try:
        check_base(latest)
        seat, frm = read_peg(board)
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
            raise BadTap(exc.message, "fix") from None
        if new == board:
            raise BadTap(_("That peg is already there."), "fix")
        store_board(s, table, new, submission_id, based_on_version=table.version)
        update_draft(s, table.id, lambda d: {**d, "fix": None, "first": None, "peg": None})
    except BadTap as exc:
        return render_panel(table, access, 422, exc)
    except store.Conflict as exc:
        return refused(table, access, 409, exc.message)
    return written(
        table,
        access,
        _("%(name)s's peg put on %(pos)s.", name=s.players(table.id)[seat].name, pos=to),
    )


@bp.post("/undo")
def undo(key: str):
    """Undo the latest live move or correction (the history's Undo does the same)."""
    table, access = load(key, write=True)
    s = get_store()
    submission_id = request.form.get("submission_id") or None
    if s.submission(submission_id, s.void_entry, table.id) is not None:
        return written(table, access, _("Already undone."))
    _board, latest = live_board(table)
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
    player = latest.request.get("player")

    def back(d: dict) -> dict:
        d = {**d, "card": None, "first": None, "peg": None, "fix": None}
        if latest.kind == APPLY_KIND and isinstance(player, int):
            d["player"] = player
        return d

    update_draft(s, table.id, back)
    return written(table, access, _("Last move undone."))
