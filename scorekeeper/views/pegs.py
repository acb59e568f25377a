"""What the Pegs and Jokers panel shows, from the mechanism's View of the turn (its
context: the board it began on and the last entry; its state, the race): the turn, the
card's step options and every move of it in words, set-up, the hand check, the last
move. Every button is a tap of the race's notation (PLAY.md). View code only: every rule
comes from the race (``scorekeeper.games.play.pegs``).
"""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

from markupsafe import Markup, escape

from ..errors import RuleError
from ..games import catalog
from ..games import pegs as engine
from ..games.play.pegs import HAND_SIZE, RANKS
from ..messages import gettext as _
from ..pegs_table import (
    APPLY_KIND,
    START_NAME,
    house_rules,
    move_text,
    place_name,
    rank_in_sentence,
    rank_of,
)
from . import fragments
from . import pegs_board as drawing
from .panel import FORM_SLOT
from .pegs_board import COLOURS, layout, spot

PANEL = "games/pegs/_panel.html"


def rank_label(rank: str | None) -> str:
    return _("Joker") if rank == "JK" else (rank or "")


def place_word(pos: str) -> str:
    """A position as the player reads it (the start in words)."""
    return str(place_name(pos))


# ---------------------------------------------------------------- the panel


def tap(v, action: str, **args) -> Markup:
    """A button's ``hx-vals``: the tap (the race's notation) and the turn it was made in,
    as JSON safe in an attribute (written once here, not in the template)."""
    return fragments.tap_vals_json(v, action, **args)


def ranks_markup(tap_url: str, cards: list[dict], label: str) -> Markup:
    """Rank buttons in the shared card-picker look (.picker/.pick), each with its tap,
    written in one pass (two pickers are on every tap's answer): suits never matter in
    this game. Like partials/_cards.html's picker they swap nothing themselves."""
    url, full = escape(tap_url or ""), escape(_("full"))
    out = [f'<div class="picker" role="group" aria-label="{escape(label)}">']
    for c in cards:
        off = f' disabled aria-label="{c["rank"]} — {full}"' if c.get("off") and not c["on"] else ""
        out.append(
            f'<button type="button" class="pick suit-none{" on" if c["on"] else ""}" data-tap '
            f"hx-post=\"{url}\" hx-vals='{c['vals']}' "
            f'aria-pressed="{"true" if c["on"] else "false"}" data-card="{c["rank"]}"{off}>'
            f"<span>{c['rank']}</span></button>"
        )
    out.append("</div>")
    return Markup("".join(out))


def _step(o: dict) -> dict:
    return {"seat": o["seat"], "from": o["from"], "to": o["to"]}


def _along_the_track(o: dict, length: int) -> tuple:
    """Where a destination comes among a peg's: a peg's holes in the order its moves
    run from it (T9 before T15, T71 before T0), its home lane after the track."""
    frm, to = engine.parse_position(o["from"]), engine.parse_position(o["to"])
    if to < 0:  # the home lane, by depth
        ahead = length + engine.lane_number(to)
    else:
        ahead = (to - frm) % length if frm >= 0 else to
    return (o["seat"], engine._position_order(frm), ahead)


def panel(v) -> dict:
    """The panel's context (``screen`` in the template) from the mechanism's View."""
    race, context = v.state, v.context
    names, board = list(race.players), race.board()
    winner = race.winner_team
    live = v.writable and winner is None
    lay = layout(len(names))
    last = SimpleNamespace(**context["last"]) if context.get("last") else None
    editing = context.get("supersedes")
    moved = last is not None and last.kind == APPLY_KIND
    last_steps = last.request.get("steps", []) if moved else []
    last_bumps = last.bumps if moved else []
    turn = race.turn if winner is None else None
    svg = drawing.draw(lay, board, names, last_steps, last_bumps, turn)
    game = catalog.GAMES["pegs"]
    seats = [
        {"seat": i, "name": name, "team": board.team[i], "colour": COLOURS[i], "n": i + 1}
        for i, name in enumerate(names)
    ]
    rank = rank_of(race.picked) if race.picked else None
    rules = house_rules(v.table)
    screen: dict = {
        "v": v,
        "place": place_word,
        "live": live,
        "view_key": f"pegs-mode:{v.table.watch_key}",
        "seats": seats,
        "teams": [{"n": n + 1, "seats": [s for s in seats if s["team"] == n]} for n in (0, 1)],
        "svg": svg,
        "winner": None,
        "last": None,
        "house": [
            (
                game.setting(k).label,
                dict(game.setting(k).options).get(value, value),
                game.setting(k).decision,
            )
            for k, value in rules.items()
        ],
        "positions": [
            {"seat": seat, "pegs": list(Counter(board.positions(seat["seat"])).items())}
            for seat in seats
        ],
        "turn": {"player": turn, "name": names[turn] if turn is not None else None},
        "card": rank,
        # the card in the heading's sentence ("Ana plays the joker"), as the history says it
        "card_named": rank_in_sentence(rank) if rank else "",
        "editing": editing,
        "whose": [dict(s, vals=tap(v, "turn", seat=s["seat"])) for s in seats],
        "cards": [
            {"rank": r, "on": r == rank, "vals": tap(v, "pick", seat=race.turn, card=r)}
            for r in RANKS
        ],
        "pass": tap(v, "discard", seat=race.turn),
        # a retried undo is stored once; after a redo the same entry's undo is a new one
        "undo_sid": f"pgu{last.id}v{v.table.version}" if last else None,
        # the last move reopens on an empty turn alone (the store's ``reopen_entry``)
        "edit_why": _(game.numbering.being_entered) if v.data["taps"] else "",
    }
    if winner is not None:
        screen["winner"] = {
            "n": winner + 1,
            "names": [s["name"] for s in seats if s["team"] == winner],
        }
    if last is not None:
        screen["last"] = {
            "id": last.id,
            "kind": last.kind,
            # the move as its button said it, the pegs it sent back among its words
            "text": str(move_text(last, names)),
            "bumped": bool(last_bumps),
        }
    screen["hand"] = hand_context(v, turn)
    # play and set-up are both drawn, each in its own layer of the board: which one a
    # phone shows is that phone's own choice (data-view), never the shared draft's
    svg["layers"] = {"play": {"rings": [], "hits": []}, "setup": {"rings": [], "hits": []}}
    screen["play"] = play_context(svg["layers"]["play"], lay, v, live)
    screen["setup"] = setup_context(svg["layers"]["setup"], lay, v, live)
    # play: the player's side, turned to the bottom and zoomed (issue #24; the rest of
    # the board's moves: the list); set-up: the whole board, turned the same way
    degrees = drawing.turn_of(lay, turn) if live else 0.0
    box = drawing.focus(lay, turn) if live else drawing.whole(lay)
    svg["turn"] = {"deg": degrees, "cx": lay.centre[0], "cy": lay.centre[1]}
    svg["viewbox"] = drawing.viewbox(box)
    svg["whole"] = drawing.viewbox(drawing.whole(lay, degrees))
    drawing.fit_hits(svg["layers"]["play"], lay, box, degrees)
    drawing.fit_hits(svg["layers"]["setup"], lay, drawing.whole(lay, degrees), degrees)
    label = _("The board: %(n)d seats", n=len(names))
    screen["board"] = drawing.board_markup(svg, v.url("tap") if live else None, label)
    if live:
        screen["card_picker"] = ranks_markup(v.url("tap"), screen["cards"], _("Card played"))
        screen["hand_picker"] = ranks_markup(
            v.url("tap"), screen["hand"]["add"], _("Cards in the hand")
        )
    return screen


def play_context(layer: dict, lay: drawing.Layout, v, live: bool) -> dict:
    """Play: the card's step options, rings and tap areas in the board's play ``layer``."""
    race = v.state
    names, turn, card = list(race.players), race.turn, race.picked
    play: dict = {"ready": False, "first": None, "pegs": [], "dests": [], "moves": []}
    if card is None or race.complete:
        return play
    first = race.first
    options = race.options(card, first, worded=True)
    play.update(ready=True, count=len(options))
    if not options:  # issue #24: the engine says why (own colour, exact fit, start first…)
        play["why"] = race.why_not(card)
    if first is None:  # every move of the card at once, each naming its pegs in words
        play["moves"] = [
            {
                "text": fragments.standing_alone(m["text"], names),
                "vals": tap(v, "move", seat=turn, card=card, steps=m["steps"]),
                "bumps": bool(m["bumps"]),
                "data": " ".join(f"{st['seat']}-{st['from']}-{st['to']}" for st in m["steps"]),
            }
            for m in race.described_moves(card)
        ]
    before = []
    if first is not None:
        before = [first.as_json()]
        # said as the move buttons say a move (a first part is taken only when a move
        # continues it, so it always has its words)
        play["first"] = {"seat": first.seat, "words": race.first_words()}
        play["unsplit"] = tap(v, "first", seat=turn, step=None)
        x, y = spot(lay, first.seat, engine.position_name(first.to))
        layer["rings"].append({"x": x, "y": y, "cls": f"pending c-{COLOURS[first.seat]}"})
    pegs: dict[tuple[int, str], list[dict]] = {}
    by_spot: dict[tuple, list[dict]] = {}
    for o in options:
        pegs.setdefault((o["seat"], o["from"]), []).append(o)
        where = ("H", o["seat"], o["to"]) if o["to"].startswith("H") else ("T", o["to"])
        by_spot.setdefault(where, []).append(o)
        o["shared"] = by_spot[where]
    chosen_peg = race.peg
    # a card whose every move is one step, no peg chosen yet: the list of moves says
    # them all, and the step chooser would only say them again (the board's rings and
    # pegs still take a tap); a split, or a peg chosen on the board, goes step by step
    play["stepwise"] = (
        first is not None or chosen_peg in pegs or any(o["continues"] for o in options)
    )
    if chosen_peg not in pegs:
        chosen_peg = next(iter(pegs)) if len(pegs) == 1 else None
    shown = (
        pegs.get(chosen_peg, []) if chosen_peg else [o for o in options if len(o["shared"]) == 1]
    )
    play["pegs"] = [
        {
            "seat": seat,
            "from": frm,
            "name": names[seat],
            # as the move buttons name a peg; start's pegs are one button, all alike
            "words": fragments.standing_alone(
                _("%(name)s's pegs in start", name=names[seat])
                if frm == START_NAME
                else steps[0]["peg"],
                names,
            ),
            "colour": COLOURS[seat],
            "on": (seat, frm) == chosen_peg,
            "vals": tap(v, "peg", seat=turn, peg={"seat": seat, "from": frm}),
        }
        for (seat, frm), steps in pegs.items()
    ]

    def tap_of(o: dict) -> dict:
        if o["continues"] and not o["complete"]:  # the first part of a split
            return tap(v, "first", seat=turn, step=_step(o))
        return tap(v, "move", seat=turn, card=card, steps=[*before, _step(o)])

    play["dests"] = [
        {
            **_step(o),
            "complete": o["complete"],
            "words": fragments.standing_alone(o["words"], names),
            "bumps": bool(o["bumps"]),
            "vals": tap_of(o),
            "colour": COLOURS[o["seat"]],
        }
        for o in sorted(shown, key=lambda o: _along_the_track(o, len(lay.track)))
    ]
    hits = []
    for d in play["dests"]:
        x, y = spot(lay, d["seat"], d["to"])
        layer["rings"].append({"x": x, "y": y, "cls": f"dest c-{d['colour']}", "to": d["to"]})
        if live:  # a hole says the step as its button does
            label = d["words"] if d["complete"] else f"{d['words']} …"
            hits.append(drawing.hit(x, y, d["vals"], label, "hit dest-hit", d["to"]))
    for p in play["pegs"]:
        x, y = spot(lay, p["seat"], p["from"])
        layer["rings"].append({"x": x, "y": y, "cls": "movable" + (" chosen" if p["on"] else "")})
        if live:
            data = f"{p['seat']}-{p['from']}"
            hits.append(drawing.hit(x, y, p["vals"], p["words"], "hit peg-hit", data))
    drawing.add_hits(layer, lay, hits)
    return play


def setup_context(layer: dict, lay: drawing.Layout, v, live: bool) -> dict:
    """Set-up: the peg being put elsewhere and where it may go, in the set-up ``layer``."""
    race = v.state
    names, board = list(race.players), race.board()
    seat, frm = race.fixing or (None, None)
    setup: dict = {"peg": None, "quick": [], "typed": None}
    hits = []

    def place(to: str) -> dict:
        return tap(v, "place", seat=seat, **{"from": frm, "to": to})

    def put(x, y, to, label):
        hits.append(drawing.hit(x, y, place(to), label, "hit hole-hit", to))

    if seat is not None:
        setup["peg"] = {
            "seat": seat,
            "from": frm,
            "from_name": place_word(frm),
            "name": names[seat],
            "colour": COLOURS[seat],
        }
        setup["typed"] = place(FORM_SLOT)
        x, y = spot(lay, seat, frm)
        layer["rings"].append({"x": x, "y": y, "cls": "movable chosen"})
        taken = {p for s in range(lay.seats) for p in board.positions(s) if p.startswith("T")}
        own = set(board.positions(seat))
        quick = [
            START_NAME,
            *(f"T{engine.SIDE * seat + h}" for h in (engine.COME_OUT, engine.IN_SPOT)),
        ]
        quick += [f"H{h}" for h in range(1, engine.LANE + 1)]
        setup["quick"] = [
            {
                "to": q,
                "vals": place(q),
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
            if frm != START_NAME:
                put(*lay.start_centre[seat], START_NAME, _("Back to start"))
    setup["pegs"] = {
        (s, pos): tap(v, "setpeg", peg={"seat": s, "from": pos})
        for s in range(lay.seats)
        for pos in dict.fromkeys(board.positions(s))
    }
    if live:
        for (s, pos), vals in setup["pegs"].items():
            x, y = spot(lay, s, pos)
            label = _("%(name)s's peg on %(pos)s", name=names[s], pos=place_word(pos))
            hits.append(drawing.hit(x, y, vals, label, "hit peg-hit", f"{s}-{pos}"))
    drawing.add_hits(layer, lay, hits)
    return setup


def hand_context(v, turn: int | None) -> dict:
    race = v.state
    codes = list(race.hand)
    ranks = [rank_of(c) for c in codes]
    shown = [
        {
            "rank": rank,
            "label": rank_label(rank),
            "playable": None,
            "vals": tap(v, "hand", seat=race.turn, hand=ranks[:i] + ranks[i + 1 :]),
        }
        for i, rank in enumerate(ranks)
    ]
    full = len(ranks) >= HAND_SIZE
    out: dict = {
        "ranks": ranks,
        "shown": shown,
        "add": [
            {
                "rank": r,
                "on": False,
                "off": full,
                "vals": tap(v, "hand", seat=race.turn, hand=[*ranks, r]),
            }
            for r in RANKS
        ],
        "empty": tap(v, "hand", seat=race.turn, hand=[]),
        "answer": None,
        "plays": [],
        "error": None,
    }
    if turn is None or not ranks:
        return out
    try:
        answer = race.playable(codes)
    except RuleError as exc:
        out["error"] = exc.message
        return out
    playable = set(answer["playable"])
    for card, code in zip(shown, codes, strict=True):
        card["playable"] = code in playable
        card["discard"] = tap(v, "discard", seat=turn, card=code)
    out["answer"] = {
        "cards": shown,
        "must_play": answer["must_play"],
        "joker_only": answer["joker_only"],
        # why each card that is stuck cannot move, once per rank (jokers are never compulsory)
        "why": [
            race.why_not(code)
            for rank, code in dict(zip(ranks, codes, strict=True)).items()
            if code not in playable and rank != "JK"
        ]
        if not answer["must_play"]
        else [],
    }
    plays = dict.fromkeys(c["rank"] for c in shown if c["playable"])
    out["plays"] = [
        (rank, rank_label(rank), tap(v, "pick", seat=turn, card=rank)) for rank in plays
    ]
    return out
