"""The Pegs and Jokers board drawn as inline SVG (view code only, no game rule).

The loop of 18·N track holes is a regular polygon (one side per seat, seat 0 at the
bottom, forward = clockwise), with each seat's start area, home lane H1–H5, come-out
CO(s) = T(18s+8) and in-spot IN(s) = T(18s+3), and the pegs in seat colours (team 0
warm hues, team 1 cool ones). Every peg element carries ``data-seat`` and ``data-pos``.
The geometry is computed here, so templates do no arithmetic; where pegs may go comes
from the engine.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from markupsafe import Markup, escape

from ..games import pegs as engine
from ..pegs_table import START_NAME
from .fragments import kept, stable_key

# seat colours: team 0 (even seats) warm, team 1 (odd seats) cool
COLOURS = ("red", "blue", "orange", "teal", "gold", "violet", "pink", "green")
# the biggest tap area's radius in viewBox units: the whole board (400 wide) is drawn
# about 337 CSS px wide on a 390 px phone, so 2 × 30 units are 50 px (≥ 44 px, a thumb)
HIT_R = 30.0


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
    centre: tuple = (200.0, 200.0)  # the polygon's: the board turns about it


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
        centre=(round(cx, 1), round(cy, 1)),
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
    """Invisible tap areas as big as they can be without overlapping another one, at most
    ``HIT_R``: a lone target is a thumb's 44 CSS px wide on a 390 px phone."""
    biggest = HIT_R
    out = []
    for i, p in enumerate(points):
        others = [math.dist(p, q) for j, q in enumerate(points) if j != i]
        room = min(others) / 2 if others else biggest
        out.append(round(max(min(biggest, room), lay.hole_r + 1), 1))
    return out


# ---------------------------------------------------------------- reading the table


def draw(
    lay: Layout,
    board: engine.Board,
    names: list[str],
    last_steps: list[dict] = (),
    last_bumps: list[dict] = (),
    turn: int | None = None,
    fixed: bool = True,
) -> dict:
    """The static part of the SVG: track, holes, the pegs, and marks on the last move's
    destinations (``last_steps``) and on the pegs it bumped (``last_bumps``). With
    ``fixed`` the groups that depend on the seat count alone are ``fixed_svg``'s, written
    once: their parts (holes, lanes, starts, links, sides, spots, areas) are not made."""
    n = lay.seats
    pegs = _pegs(lay, board)
    marks = []
    for st in last_steps:
        x, y = spot(lay, st["seat"], st["to"])
        marks.append({"x": x, "y": y, "cls": "last", "r": round(lay.peg_r + 2.5, 1)})
    for bump in last_bumps:
        x, y = spot(lay, bump["seat"], bump["from"])
        marks.append({"x": x, "y": y, "cls": "bumped", "r": round(lay.peg_r + 1.5, 1)})
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
    svg = {
        "viewbox": f"0 0 {lay.width:g} {lay.height:g}",
        "fixed": fixed_svg(n) if fixed else None,
        "seats": n,
        "hole_r": lay.hole_r,
        "peg_r": lay.peg_r,
        "ring_r": round(lay.peg_r + 1.6, 1),
        "start_r": lay.start_r,
        "font": lay.font,
        "co_r": round(lay.hole_r + 2.2, 1),
        "pegs": pegs,
        "marks": marks,
        "labels": labels,
        "rings": [],
        "hits": [],
    }
    return svg if fixed else {**svg, **_static_parts(lay)}


def _pegs(lay: Layout, board: engine.Board) -> list[dict]:
    pegs = []
    for s in range(lay.seats):
        in_start = 0
        for pos in board.positions(s):
            if pos == START_NAME:
                x, y = lay.starts[s][in_start]
                in_start += 1
            else:
                x, y = spot(lay, s, pos)
            pegs.append(
                {"x": x, "y": y, "seat": s, "pos": pos, "cls": f"peg c-{COLOURS[s]} team-{s % 2}"}
            )
    return pegs


def _static_parts(lay: Layout) -> dict:
    """The parts of the board that depend on its seat count alone (see ``fixed_svg``)."""
    n = lay.seats
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
    spots = []
    for s in range(n):
        for kind, hole in (("co", engine.COME_OUT), ("in", engine.IN_SPOT)):
            x, y = lay.track[engine.SIDE * s + hole]
            spots.append({"x": x, "y": y, "cls": f"{kind}-ring c-{COLOURS[s]}"})
    return {
        "spots": spots,
        "sides": sides,
        "holes": holes,
        "lanes": lanes,
        "starts": starts,
        "links": links,
        "centres": [
            {"x": x, "y": y, "cls": f"start-area c-{COLOURS[s]}"}
            for s, (x, y) in enumerate(lay.start_centre)
        ],
    }


def hit(x: float, y: float, vals: dict, label: str, cls: str, data: str) -> dict:
    """A tap area: ``vals`` the tap it posts (the mechanism's tap fields)."""
    return {"x": x, "y": y, "vals": vals, "label": label, "cls": cls, "data": data}


def add_hits(svg: dict, lay: Layout, hits: list[dict]) -> None:
    """Tap areas (``x``, ``y``, ``vals``, ``label``, ``target``), one per spot."""
    seen: dict[tuple, dict] = {}
    for hit in hits:  # earlier ones win a shared spot (destinations come first)
        seen.setdefault((hit["x"], hit["y"]), hit)
    unique = list(seen.values())
    radii = hit_radii([(h["x"], h["y"]) for h in unique], lay)
    for hit, r in zip(unique, radii, strict=True):
        svg["hits"].append({**hit, "r": r})


# the board is drawn at least this many CSS px wide on a 390 px phone (the page's and
# the card's padding taken off), and a tap area is a thumb's 44 px across (issue #24)
DRAWN_PX = 330.0
MIN_TAP_PX = 44.0
FRAME = 1.5  # a zoomed board is 3 wide for 2 high: the list of moves fits under it


@functools.lru_cache(maxsize=64)
def turn_of(lay: Layout, seat: int) -> float:
    """Degrees the board turns so that ``seat``'s side is at the bottom, level (the
    player's own view across the table)."""
    nx, ny = lay.normals[seat]
    return round(math.degrees(math.atan2(-1.0, 0.0) - math.atan2(ny, nx)) % 360.0, 3)


def turned(lay: Layout, degrees: float, p: tuple[float, float]) -> tuple[float, float]:
    """Where point ``p`` is drawn once the board turned by ``degrees`` about its centre."""
    a = math.radians(degrees)
    (cx, cy), (x, y) = lay.centre, p
    return (
        cx + (x - cx) * math.cos(a) - (y - cy) * math.sin(a),
        cy + (x - cx) * math.sin(a) + (y - cy) * math.cos(a),
    )


def _bounds(points: list[tuple[float, float]], pad: float) -> tuple[float, float, float, float]:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs) - pad, min(ys) - pad, max(xs) - min(xs) + 2 * pad, max(ys) - min(ys) + 2 * pad


@functools.lru_cache(maxsize=64)
def whole(lay: Layout, degrees: float = 0.0) -> tuple:
    """The whole board turned by ``degrees``, as a viewBox ``(x, y, w, h)``."""
    if not degrees:
        return (0.0, 0.0, lay.width, lay.height)
    spots = [*lay.track, *(p for lane in lay.lanes for p in lane), *lay.start_centre]
    x, y, w, h = _bounds([turned(lay, degrees, p) for p in spots], lay.start_r + 10.0)
    return (round(x, 1), round(y, 1), round(w, 1), round(h, 1))


@functools.lru_cache(maxsize=64)
def focus(lay: Layout, seat: int) -> tuple:
    """The part of the board a player plays on (issue #24), turned so that it is at the
    bottom (``turn_of``): their side of the track, their start and home lane, as a
    viewBox ``(x, y, w, h)`` of 3 by 2, within the board."""
    degrees = turn_of(lay, seat)
    side = lay.track[engine.SIDE * seat : engine.SIDE * (seat + 1)]
    spots = [turned(lay, degrees, p) for p in (*side, *lay.lanes[seat], *lay.starts[seat])]
    bx, by, bw, bh = whole(lay, degrees)
    x0, y0, w, h = _bounds(spots, lay.spacing * 1.5)
    if w / h < FRAME:
        x0, w = x0 - (h * FRAME - w) / 2, h * FRAME
    else:
        y0, h = y0 - (w / FRAME - h) / 2, w / FRAME
    if w > bw:  # the board itself is the most that is shown
        x0, y0, w, h = bx, y0 + (h - bw / FRAME) / 2, bw, bw / FRAME
    x0 = min(max(x0, bx), bx + bw - w)
    y0 = min(max(y0, by), by + max(bh - h, 0.0))
    return (round(x0, 1), round(y0, 1), round(w, 1), round(min(h, bh), 1))


def viewbox(box: tuple) -> str:
    return " ".join(f"{v:g}" for v in box)


def fit_hits(layer: dict, lay: Layout, box: tuple, degrees: float = 0.0) -> None:
    """Only tap areas a thumb can take where this box is drawn (the board turned by
    ``degrees``): inside it, and at least ``MIN_TAP_PX`` across (the others' taps are
    the buttons under the board)."""
    x0, y0, w, h = box
    least = MIN_TAP_PX / 2 * w / DRAWN_PX
    kept = []
    for hit in layer["hits"]:
        x, y = turned(lay, degrees, (hit["x"], hit["y"]))
        if hit["r"] >= least and x0 <= x <= x0 + w and y0 <= y <= y0 + h:
            kept.append(hit)
    layer["hits"] = kept


def _circles(items: list[dict], r: float, named: bool = False) -> str:
    return "".join(
        f'<circle class="{c["cls"]}" cx="{c["x"]}" cy="{c["y"]}" r="{r}"'
        + (f' data-hole="{c["name"]}"' if named else "")
        + "/>"
        for c in items
    )


def _lines(items: list[dict], prefix: str = "") -> str:
    return "".join(
        f'<line class="{prefix}{i["cls"]}" x1="{i["x1"]}" y1="{i["y1"]}" x2="{i["x2"]}" '
        f'y2="{i["y2"]}"/>'
        for i in items
    )


@functools.lru_cache(maxsize=8)
def fixed_svg(seats: int) -> Markup:
    """The board's groups that depend on its seat count alone (the track, the holes, the
    start areas), written once per seat count: most of the SVG is the same on every tap.
    Numbers and class names only: nothing to escape."""
    svg = draw(layout(seats), engine.Board(seats), [""] * seats, fixed=False)
    return Markup(
        f'<g class="pg-fixed" data-frag="{fixed_key(seats)}">'
        f'<g class="pg-sides">{_lines(svg["sides"])}</g>\n'
        f'  <g class="pg-links">{_lines(svg["links"], "link ")}</g>\n'
        f'  <g class="pg-areas">{_circles(svg["centres"], svg["start_r"])}</g>\n'
        f'  <g class="pg-spots">{_circles(svg["spots"], svg["co_r"])}</g>\n'
        f'  <g class="pg-holes">{_circles(svg["holes"], svg["hole_r"], named=True)}'
        f"{_circles(svg['lanes'], svg['hole_r'])}{_circles(svg['starts'], svg['hole_r'])}\n"
        "  </g></g>"
    )


def fixed_key(seats: int) -> str:
    """The key of the board's fixed groups (a part a phone keeps: ``fragments.kept``)."""
    return stable_key(("pegs-fixed", seats))


def board_markup(svg: dict, tap_url: str | None, label: str) -> Markup:
    """The whole board as SVG, written in one pass (it is on the answer of every tap):
    the board turned (``svg["turn"]``, the names kept upright), its labels, marks and
    pegs, and the play and set-up layers of rings and tap areas (each posting its tap,
    ``hx-vals``, to ``tap_url``; none without one). Names and labels are escaped."""
    turn = svg["turn"]
    deg, cx, cy = turn["deg"], turn["cx"], turn["cy"]
    views = (
        f' data-viewbox-play="{svg["viewbox"]}" data-viewbox-setup="{svg["whole"]}"'
        if tap_url
        else ""
    )
    out = [
        f'<svg class="pg-svg seats-{svg["seats"]}" viewBox="{svg["viewbox"]}" role="img" '
        f'aria-label="{escape(label)}" data-seats="{svg["seats"]}"{views}>',
        f'<g class="pg-turned" transform="rotate({deg:g} {cx:g} {cy:g})">' if deg else "<g>",
        kept(fixed_key(svg["seats"]), str(svg["fixed"]), svg=True),
        '<g class="pg-labels">',
    ]
    for lab in svg["labels"]:
        upright = f' transform="rotate({-deg:g} {lab["x"]:g} {lab["y"]:g})"' if deg else ""
        out.append(
            f'<text class="{lab["cls"]}" x="{lab["x"]:g}" y="{lab["y"]:g}" '
            f'font-size="{svg["font"]:g}" text-anchor="middle" dominant-baseline="middle"'
            f"{upright}>{escape(lab['text'])}</text>"
        )
    out.append('</g><g class="pg-marks">')
    out += [
        f'<circle class="mark {m["cls"]}" cx="{m["x"]:g}" cy="{m["y"]:g}" r="{m["r"]:g}"/>'
        for m in svg["marks"]
    ]
    out.append('</g><g class="pg-pegs">')
    out += [
        f'<circle class="{p["cls"]}" cx="{p["x"]:g}" cy="{p["y"]:g}" r="{svg["peg_r"]:g}" '
        f'data-seat="{p["seat"]}" data-pos="{p["pos"]}"/>'
        for p in svg["pegs"]
    ]
    out.append("</g>")
    url = str(escape(tap_url or ""))
    for name, layer in svg["layers"].items():
        if name != "play" and not tap_url:
            continue
        out.append(f'<g class="pg-layer pg-layer-{name}"><g class="pg-rings">')
        for r in layer["rings"]:
            to = f' data-to="{r["to"]}"' if r.get("to") else ""
            out.append(
                f'<circle class="ring {r["cls"]}" cx="{r["x"]:g}" cy="{r["y"]:g}" '
                f'r="{svg["ring_r"]:g}"{to}/>'
            )
        out.append("</g>")
        if tap_url:
            out.append('<g class="pg-hits">')
            for h in layer["hits"]:
                vals = h["vals"]  # hx-vals, as JSON safe in an attribute
                out.append(
                    f'<circle class="{h["cls"]}" cx="{h["x"]:g}" cy="{h["y"]:g}" r="{h["r"]:g}" '
                    f'fill="transparent" role="button" aria-label="{escape(h["label"])}" '
                    f'data-hit="{h["data"]}" data-tap hx-post="{url}" hx-vals=\'{vals}\'/>'
                )
            out.append("</g>")
        out.append("</g>")
    out.append("</g></svg>")
    return Markup("".join(out))
