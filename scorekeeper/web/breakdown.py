"""Why a round scored what it did: the lines the history opens to, read from each
entry's stored request and result (what the rules engine answered when it was
saved), never worked out again here. Every builder takes whatever shape it finds:
an entry imported or saved by an older version may lack a part, and then that
line is left out, never a 500.

Also the number filters the templates use: a minus is the typographic "−"."""

from __future__ import annotations

from collections.abc import Callable

from flask_babel import format_decimal

from ..cards import parse_card
from ..chart import totals_chart
from ..games import catalog
from ..games.cowboy import item_label
from ..games.poker import CATEGORY_NAMES
from ..i18n import gettext as _
from ..i18n import ngettext
from ..pegs_table import place_name

MINUS = "−"  # U+2212: "−90", never the hyphen "-90"


def points(value) -> str:
    """A score as the app prints it: ``-90`` → ``−90``; ``1200`` grouped as the page's
    language groups digits (``1 200`` in Slovak, ``1.200`` in Serbian)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return "" if value is None else str(value)
    digits = str(-value if value < 0 else value)
    if len(digits) > 3:  # below 1,000 every language writes the digits alone
        digits = format_decimal(abs(value))
    return f"{MINUS}{digits}" if value < 0 else digits


def signed(value) -> str:
    """A change of score: ``+25``, ``−20``, ``0``."""
    if isinstance(value, bool) or not isinstance(value, int):
        return "" if value is None else str(value)
    return f"+{points(value)}" if value > 0 else points(value)


def card(value) -> str:
    try:
        return parse_card(value).symbol
    except (ValueError, TypeError):
        return str(value)


def cards(values) -> str:
    return " ".join(card(v) for v in values) if isinstance(values, list) else ""


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value) -> list:
    return value if isinstance(value, list) else []


def _cowboy_deal(request: dict, result: dict, seat_names: list[str]) -> list[str]:
    lines = []
    for name, score in _dict(result.get("players")).items():
        items = []
        for item in _list(_dict(score).get("items")):
            item = _dict(item)
            try:
                label = _(item_label(item.get("code")))
            except ValueError:
                label = str(item.get("code"))
            count = item.get("count")
            times = f" ×{count}" if isinstance(count, int) and count > 1 else ""
            items.append(f"{label}{times} {signed(item.get('points'))}")
        total = _dict(score).get("total")
        if items:
            lines.append(f"{name}: {'; '.join(items)} = {signed(total)}")
        else:
            lines.append(_("%(name)s: nothing scored", name=name))
    end = _dict(request.get("end"))
    if end.get("by"):
        reason = _("all four 10s out") if end.get("reason") == "tens" else _("all four aces out")
        lines.insert(0, _("%(name)s ended the deal (%(reason)s).", name=end["by"], reason=reason))
    return lines


def _szaman_deal(request: dict, result: dict, seat_names: list[str]) -> list[str]:
    lines = []
    for number, trick in enumerate(_list(result.get("tricks")), start=1):
        trick = _dict(trick)
        got = ", ".join(f"{n} {signed(p)}" for n, p in _dict(trick.get("points")).items())
        winner = trick.get("winner") or "?"
        lines.append(
            _("Trick %(n)d won by %(name)s", n=number, name=winner) + (f": {got}" if got else "")
        )
    left = _dict(request.get("left"))
    penalties = _dict(result.get("penalties"))
    for name, penalty in penalties.items():
        held = cards(left.get(name))
        lines.append(
            _("Penalty for %(name)s: %(points)s", name=name, points=signed(penalty))
            + (f" ({held})" if held else "")
        )
    return lines


def _kvanta_sums(result: dict) -> str:
    distances = _dict(result.get("distances"))
    parts = []
    for name, total in _dict(result.get("sums")).items():
        off = distances.get(name)
        part = f"{name} {points(total)}"
        if off:
            # Translators: after a player's sum in a Kvanta round: how far it is from the target
            part += " " + _("(off by %(n)s)", n=off)
        parts.append(part)
    return ", ".join(parts)


def _kvanta_call(request: dict, result: dict, seat_names: list[str]) -> list[str]:
    caller = request.get("caller")
    head = _("Target %(t)s", t=request.get("target"))
    if caller:
        head += " · " + _("%(name)s called", name=caller)
        if request.get("flux"):
            head += " " + _("(flux)")
    else:
        head += " · " + _("end-of-game comparison")
    lines = [head]
    sums = _kvanta_sums(result)
    if sums:
        lines.append(_("Sums: %(sums)s", sums=sums))
    winners = _list(result.get("winners"))
    if winners:
        verdict = _("Closest: %(names)s", names=", ".join(map(str, winners)))
        if result.get("bulls_eyes"):
            verdict += " · " + _("bull's-eye")
        if result.get("undercut"):
            verdict += " · " + _("the caller was undercut")
        lines.append(verdict)
    return lines


def _kvanta_hand(request: dict, result: dict, seat_names: list[str]) -> list[str]:
    lines = [_("Target %(t)s", t=request.get("target"))]
    sums = _kvanta_sums(result)
    if sums:
        lines.append(_("Sums: %(sums)s", sums=sums))
    if result.get("hand"):
        lines.append(_("Hand won by %(name)s", name=result["hand"]))
    elif result.get("tied"):
        lines.append(_("Still tied: %(names)s", names=", ".join(map(str, result["tied"]))))
    return lines


def _kvanta_flux(request: dict, result: dict, seat_names: list[str]) -> list[str]:
    line = _("Flux by %(name)s", name=request.get("player"))
    if request.get("new_hand"):
        line += f": {cards(request['new_hand'])}"
    if result.get("flux_call"):
        line += " · " + _("hits the target: calls at once")
    return [line]


def _kvanta_poker(request: dict, result: dict, seat_names: list[str]) -> list[str]:
    lines = [_("Prize card %(card)s", card=card(request.get("prize_card")))]
    for name, hand in _dict(result.get("hands")).items():
        hand = _dict(hand)
        code = hand.get("category")
        category = _(CATEGORY_NAMES[code]) if code in CATEGORY_NAMES else ""
        lines.append(f"{name}: {category} {cards(hand.get('best'))}".rstrip())
    if result.get("winner"):
        lines.append(
            _(
                "%(name)s wins the prize: %(n)s",
                name=result["winner"],
                n=signed(result.get("prize")),
            )
        )
    else:
        lines.append(_("Nobody wins the prize."))
    return lines


def _vezimas_deal(request: dict, result: dict, seat_names: list[str]) -> list[str]:
    if not request.get("loser"):
        return []
    return [_("%(name)s is left with the cart (one point).", name=request["loser"])]


def _seat_name(seat, seat_names: list[str]) -> str:
    if isinstance(seat, int) and 0 <= seat < len(seat_names):
        return seat_names[seat]
    return _("seat %(n)s", n=seat + 1 if isinstance(seat, int) else seat)


def _hole(hole) -> str:
    return str(place_name(str(hole)))


def _pegs_apply(request: dict, result: dict, seat_names: list[str]) -> list[str]:
    who = _seat_name(request.get("player"), seat_names)
    steps = []
    for step in _list(request.get("steps")):
        step = _dict(step)
        owner = _seat_name(step.get("seat"), seat_names)
        steps.append(
            _(
                "%(name)s's peg %(a)s → %(b)s",
                name=owner,
                a=_hole(step.get("from")),
                b=_hole(step.get("to")),
            )
        )
    line = _("%(name)s plays %(card)s", name=who, card=card(request.get("card")))
    lines = [line + (": " + ", ".join(steps) if steps else "")]
    for bump in _list(result.get("bumps")):
        bump = _dict(bump)
        lines.append(
            _(
                "bumps %(name)s's peg from %(a)s to start",
                name=_seat_name(bump.get("seat"), seat_names),
                a=_hole(bump.get("from")),
            )
        )
    if result.get("winner_team") is not None:
        lines.append(_("Team %(n)s wins the race.", n=result["winner_team"] + 1))
    return lines


def _pegs_board(request: dict, result: dict, seat_names: list[str]) -> list[str]:
    """A discard (the board unchanged, its request naming it); a correction says nothing
    more than its label."""
    if "discard" not in request:
        return []
    discard = _dict(request["discard"])
    who = _seat_name(discard.get("seat"), seat_names)
    if discard.get("card") is None:
        return [_("%(name)s discards a card (which one was not entered)", name=who)]
    value = str(discard["card"])
    rank = "JK" if value == "JK" else value[:-1]  # a card stands for its rank here
    return [
        _("%(name)s discards %(rank)s", name=who, rank=_("the joker") if rank == "JK" else rank)
    ]


def builder(kind: str) -> Callable[[dict, dict, list[str]], list[str]] | None:
    """What says why an entry of ``kind`` scored: where its game's record says
    (``Kind.breakdown``); None for a kind that says nothing more than its points."""
    found = catalog.kind_record(kind)
    if found is None or found[1] is None or not found[1].breakdown:
        return None
    return catalog.resolve(found[1].breakdown)


def breakdown(entry, seat_names: list[str]) -> list[str]:
    """The lines that say why ``entry`` scored what it did (none for a kind that
    says nothing more than its points, such as the score pad)."""
    build = builder(entry.kind)
    if build is None:
        return []
    try:
        return build(_dict(entry.request), _dict(entry.result), seat_names)
    except (TypeError, ValueError, AttributeError, KeyError):
        return []  # a stored shape no version wrote: the points alone still show


def running_totals(history: list, totals_now: list[int], later: list[int] | None = None) -> list:
    """Each history row's totals after it, seat by seat, for rows oldest first.

    ``totals_now``: the table's totals; ``later``: what live entries newer than the
    last row add (zero when the rows end with the newest entry). Walked backwards, so
    it reads nothing beyond the rows given."""
    running = [t - (later[i] if later else 0) for i, t in enumerate(totals_now)]
    out = []
    for row in reversed(history):
        out.append(list(running))
        if row.entry.live:
            running = [r - (p or 0) for r, p in zip(running, row.points, strict=False)]
    out.reverse()
    return out


def history_details(history: list, players, totals: dict, later: dict | None = None) -> dict:
    """Per history row (by entry id): its breakdown lines and the totals after it,
    seat by seat. ``totals`` by name; ``later`` by player id (see ``running_totals``)."""
    names = [p.name for p in players]
    now = [totals.get(p.name, 0) for p in players]
    extra = [(later or {}).get(p.id, 0) for p in players]
    after = running_totals(history, now, extra)
    return {
        row.entry.id: {"lines": breakdown(row.entry, names), "after": totals_after}
        for row, totals_after in zip(history, after, strict=True)
    }


def chart_rounds(
    history: list, details: dict
) -> tuple[list[tuple[str, list[int]]], list[int] | None]:
    """The rounds a chart of ``history`` (oldest first) draws: (label, totals after
    the round) for each round with a live entry, and the totals before the first
    row (None when it is the table's start)."""
    rounds: dict[int, list[int]] = {}
    for row in history:
        if row.entry.live:
            rounds[row.entry.round] = details[row.entry.id]["after"]
    if not history:
        return [], None
    first = history[0]
    before = list(details[first.entry.id]["after"])
    if first.entry.live:
        before = [b - (p or 0) for b, p in zip(before, first.points, strict=False)]
    labels = [(str(n), totals) for n, totals in rounds.items()]
    return labels, (before if any(before) else None)


def chart_of(history: list, details: dict, players, *, earlier: bool, newest: bool = True) -> str:
    """The chart of the totals after the rounds of ``history`` (oldest first); none
    while nobody has a point. ``earlier``: older rounds are left out; ``newest``:
    no later ones are (a page of the history further back says which it draws)."""
    rounds, start = chart_rounds(history, details)
    if not any(v for _label, totals in rounds for v in totals):
        return ""
    if not newest:
        note = _("rounds %(first)s–%(last)s", first=rounds[0][0], last=rounds[-1][0])
    elif earlier:
        note = ngettext("the latest %(num)d round", "the latest %(num)d rounds", len(rounds))
    else:
        note = ""
    return totals_chart(
        [p.name for p in players],
        rounds,
        start,
        title=_("Totals after each round"),
        earlier_note=note,
    )


def sheet_chart(summary, carried=None) -> str:
    """The filled score sheet's chart: the rounds it prints (its latest ones)."""
    details = history_details(summary.history, summary.players, summary.totals)
    return chart_of(summary.history, details, summary.players, earlier=carried is not None)
