"""The Pegs and Jokers board as the table's entries leave it, and what the panel shows,
drawn from one read of the table (``pegs.Table``: the board, whose turn, the draft, the
race's play state): the turn, the card's step options and every move of it in words,
set-up, the hand check, the last move. View code only: every rule comes from the race
(``scorekeeper.games.play.pegs``).
"""

from __future__ import annotations

import json
from collections import Counter

from ..cards import SUITS
from ..errors import RuleError
from ..games import catalog
from ..games import pegs as engine
from ..games.play.pegs import HAND_SIZE, RANKS, card_for_rank
from ..i18n import gettext as _
from . import pegs_board as drawing
from .pegs_board import COLOURS, layout, spot
from .pegs_table import APPLY_KIND, BOARD_KIND, player_of

PANEL = "games/pegs/_panel.html"


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


def move_text(entry, names: list[str]) -> str:
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


def panel(t, urls: dict, can_write: bool) -> dict:
    """The panel's context (``screen`` in the template) from one read ``t`` of the table."""
    names, board, latest, draft = t.names, t.board, t.latest, t.draft
    winner = board.winner_team()
    live = can_write and winner is None
    lay = layout(len(names))
    moved = latest and latest.kind == APPLY_KIND and not t.editing
    last_steps = latest.request.get("steps", []) if moved else []
    last_bumps = latest.result.get("bumps", []) if last_steps else []
    turn = t.player if winner is None else None
    svg = drawing.draw(lay, board, names, last_steps, last_bumps, turn)
    game = catalog.GAMES["pegs"]
    seats = [
        {"seat": i, "name": name, "team": board.team[i], "colour": COLOURS[i]}
        for i, name in enumerate(names)
    ]
    rank = draft.get("card") if draft.get("card") in RANKS else None
    screen: dict = {
        "template": PANEL,
        "urls": urls if can_write else {},
        "can_write": can_write,
        "live": live,
        "view_key": f"pegs-mode:{t.table.watch_key}",
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
            for k, value in t.rules.items()
        ],
        "positions": [
            {"seat": seat, "pegs": list(Counter(board.positions(seat["seat"])).items())}
            for seat in seats
        ],
        "turn": {"player": turn, "name": names[turn] if turn is not None else None},
        "card": rank,
        "card_label": rank_label(rank),
        "editing": t.editing.id if t.editing else None,
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
    # play and set-up are both drawn, each in its own layer of the board: which one a
    # phone shows is that phone's own choice (data-view), never the shared draft's
    svg["layers"] = {"play": {"rings": [], "hits": []}, "setup": {"rings": [], "hits": []}}
    screen["play"] = play_context(svg["layers"]["play"], lay, t, rank, live)
    screen["setup"] = setup_context(svg["layers"]["setup"], lay, t, live)
    return screen


def play_context(layer: dict, lay: drawing.Layout, t, rank: str | None, live: bool) -> dict:
    """Play: the card's step options, rings and tap areas in the board's play ``layer``."""
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
    if not options:  # issue #24: the engine says why (own colour, exact fit, start first…)
        play["why"] = t.race.why_not(card)
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
        layer["rings"].append({"x": x, "y": y, "cls": f"pending c-{COLOURS[first.seat]}"})
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
        layer["rings"].append({"x": x, "y": y, "cls": f"dest c-{d['colour']}", "to": d["to"]})
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
        layer["rings"].append({"x": x, "y": y, "cls": "movable" + (" chosen" if p["on"] else "")})
        if live:
            label = _("%(name)s's peg on %(pos)s", name=p["name"], pos=p["from"])
            data = f"{p['seat']}-{p['from']}"
            hits.append(drawing.hit(x, y, "peg", p["vals"], label, "hit peg-hit", data))
    drawing.add_hits(layer, lay, hits)
    return play


def setup_context(layer: dict, lay: drawing.Layout, t, live: bool) -> dict:
    """Set-up: the peg being put elsewhere and where it may go, in the set-up ``layer``."""
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
        layer["rings"].append({"x": x, "y": y, "cls": "movable chosen"})
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
                hits.append(drawing.hit(x, y, "setpeg", vals, label, "hit peg-hit", f"{s}-{pos}"))
    drawing.add_hits(layer, lay, hits)
    return setup


def hand_context(t) -> dict:
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
        # why each card that is stuck cannot move, once per rank (jokers are never compulsory)
        "why": [
            t.race.why_not(code)
            for rank, code in dict(zip(ranks, codes, strict=True)).items()
            if code not in playable and rank != "JK"
        ]
        if not answer["must_play"]
        else [],
    }
    plays = dict.fromkeys(c["rank"] for c in shown if c["playable"])
    out["plays"] = [(rank, rank_label(rank)) for rank in plays]
    return out


def error_place(field: str, screen: dict) -> str:
    """Where a refused tap's message shows: next to its control when that is on screen,
    under the board otherwise."""
    if not screen["live"] or field == "board":
        return "board"
    if field == "hand":
        return "hand" if screen["turn"]["player"] is not None else "board"
    if field in ("fix", "setpeg"):
        return "fix"
    return field if field in ("player", "card") else "play"
