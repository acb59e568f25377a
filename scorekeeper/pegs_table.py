"""What a Pegs and Jokers table's entries say: the board as the latest live board entry
left it, and who played each move or discard (the race's play state says whose turn
follows: ``first_turn``)."""

from __future__ import annotations

from . import store
from .cards import RANK_TEXT, CardError, parse_card
from .errors import RuleError
from .games import catalog
from .games import pegs as engine
from .games.play.pegs import applied_words
from .games.wording import as_dict, as_list, seat_name
from .messages import Joined, Text
from .messages import gettext as _

APPLY_KIND = "pegs-apply"
BOARD_KIND = "pegs-board"  # a correction (or a discard): the whole new state, no points
BOARD_KINDS = (APPLY_KIND, BOARD_KIND)
DRAFT = "pegs-turn"
START_NAME = engine.position_name(engine.START)


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


def player_of(entry: store.Entry) -> int | None:
    """Who played a move or discarded (None: a correction by hand)."""
    if entry.kind == APPLY_KIND:
        return entry.request.get("player")
    discard = entry.request.get("discard")
    return discard.get("seat") if isinstance(discard, dict) else None


def rank_of(code: str) -> str:
    """A card's rank (``5H`` → ``5``): suits never matter in this game."""
    return "JK" if code == "JK" else code[:-1]


def shown_rank(card: object) -> str:
    """The rank a stored card is shown by (``AS``, ``A♠`` → ``A``; ``TH`` → ``10``; any
    joker → ``JK``; what is no card, as it is): suits never matter in this game (RULES
    §5), and a phone picks a rank alone, the screen filling in a suit only to store it."""
    try:
        found = parse_card(card)
    except CardError:
        return str(card)
    return "JK" if found.is_joker else RANK_TEXT[found.rank]


def rank_in_sentence(rank: str) -> Text | str:
    """A card as a sentence names it ("Ana played the joker"), as the history does."""
    return Text("the joker") if rank == "JK" else rank


def place_name(pos: str) -> Text | str:
    """A position as a player reads it: the start in words, a hole by its notation."""
    return Text("start") if pos == START_NAME else pos


def _step_text(step: dict, player: int, names: list[str]) -> Joined:
    """One step of a move: another seat's peg named, then from → to ("Bojan T3→T5")."""
    who = f"{names[step['seat']]} " if step["seat"] != player else ""
    return Joined([who, place_name(step["from"]), "→", step["to"]])


def move_text(entry: store.Entry, names: list[str]) -> Text:
    """A move or a discard in words, translated where it is shown (the page, the sheet)."""
    req = entry.request
    if entry.kind == BOARD_KIND:
        seat = player_of(entry)
        if seat is None or not 0 <= seat < len(names):
            return Text("The board was set by hand.")
        card = req["discard"].get("card")
        if card:
            return Text(
                "%(name)s discarded %(card)s.",
                name=names[seat],
                card=rank_in_sentence(shown_rank(card)),
            )
        return Text("%(name)s discarded a card.", name=names[seat])
    player = req.get("player", 0)
    who = names[player] if 0 <= player < len(names) else str(player + 1)
    said = said_move(req, names)
    if said is None:
        said = Joined([_step_text(st, player, names) for st in req.get("steps", [])], ", ")
    return Text(
        "%(name)s played %(card)s: %(steps)s.",
        name=who,
        card=rank_in_sentence(shown_rank(req.get("card", "JK"))),
        steps=said,
    )


def said_move(request: dict, names: list[str]) -> Joined | None:
    """A stored move as its button said it (which peg, what it does, whose peg it
    sends where: ``applied_words``); None when the request is no legal move on the
    board it names (an entry imported from elsewhere), to be told by its holes."""
    try:
        return applied_words(names, request)
    except (RuleError, LookupError, TypeError, ValueError):
        return None


# ---------------------------------------------------------------- the history's lines


def _hole(hole) -> str:
    return str(place_name(str(hole)))


def apply_breakdown(request: dict, result: dict, seat_names: list[str]) -> list[str]:
    """A move as its button said it, with the pegs it sent back (its holes' notation
    for a move that is not legal on the board it names); the race won, if it was."""
    who = seat_name(request.get("player"), seat_names)
    rank = shown_rank(request.get("card"))
    line = _("%(name)s plays %(card)s", name=who, card=rank_in_sentence(rank))
    said = said_move(request, seat_names)
    if said is not None:
        lines = [f"{line}: {said}"]
    else:
        lines = _breakdown_by_holes(line, request, result, seat_names)
    if result.get("winner_team") is not None:
        lines.append(_("Team %(n)s wins the race.", n=result["winner_team"] + 1))
    return lines


def _breakdown_by_holes(line: str, request: dict, result: dict, seat_names: list[str]) -> list:
    steps = []
    for step in as_list(request.get("steps")):
        step = as_dict(step)
        owner = seat_name(step.get("seat"), seat_names)
        steps.append(
            _(
                "%(name)s's peg %(a)s → %(b)s",
                name=owner,
                a=_hole(step.get("from")),
                b=_hole(step.get("to")),
            )
        )
    lines = [line + (": " + ", ".join(steps) if steps else "")]
    for bump in as_list(result.get("bumps")):
        bump = as_dict(bump)
        name, a = seat_name(bump.get("seat"), seat_names), _hole(bump.get("from"))
        if bump.get("to") == START_NAME:
            lines.append(_("bumps %(name)s's peg from %(a)s to start", name=name, a=a))
        else:  # a teammate goes to its in-spot (P-D6)
            lines.append(
                _(
                    "bumps %(name)s's peg from %(a)s to its in-spot %(b)s",
                    name=name,
                    a=a,
                    b=_hole(bump.get("to")),
                )
            )
    return lines


def board_breakdown(request: dict, result: dict, seat_names: list[str]) -> list[str]:
    """A discard (the board unchanged, its request naming it); a correction says nothing
    more than its label."""
    if "discard" not in request:
        return []
    discard = as_dict(request["discard"])
    who = seat_name(discard.get("seat"), seat_names)
    if discard.get("card") is None:
        return [_("%(name)s discards a card (which one was not entered)", name=who)]
    rank = shown_rank(discard["card"])
    return [_("%(name)s discards %(rank)s", name=who, rank=rank_in_sentence(rank))]
