"""What the history says of each round, on the table page and on the printed sheet:
why it scored what it did (the lines its game's record says how to read from the
entry's stored request and result, see ``games/wording.py``), the totals after it, and
the chart of the totals."""

from __future__ import annotations

from collections.abc import Callable

from .chart import totals_chart
from .games import catalog
from .games.wording import as_dict
from .i18n import cache_key, ngettext
from .i18n import gettext as _
from .memo import Memo


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
        return build(as_dict(entry.request), as_dict(entry.result), seat_names)
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


def history_details(
    history: list, players, totals: dict, later: dict | None = None, table_key: str | None = None
) -> dict:
    """Per history row (by entry id): its breakdown lines and the totals after it,
    seat by seat. ``totals`` by name; ``later`` by player id (see ``running_totals``).
    Given the table's ``table_key`` (its scorer key), each entry's lines are made once
    (``lines_of``)."""
    names = [p.name for p in players]
    now = [totals.get(p.name, 0) for p in players]
    extra = [(later or {}).get(p.id, 0) for p in players]
    after = running_totals(history, now, extra)
    if table_key is None:
        lines = [breakdown(row.entry, names) for row in history]
    else:
        lines = [lines_of(table_key, row.entry, names) for row in history]
    return {
        row.entry.id: {"lines": said, "after": totals_after}
        for row, said, totals_after in zip(history, lines, after, strict=True)
    }


def lines_of(table_key: str, entry, names: list[str]) -> tuple[str, ...]:
    """``breakdown``, made once per entry: what an entry stored never changes (an edit
    is a new entry), so its lines are those of its table (a key no other table has),
    id and time, in the players' names and the request's language."""
    key = (table_key, entry.id, entry.created, entry.kind, tuple(names), cache_key())
    return _LINES.get(key, lambda: tuple(breakdown(entry, names)))


_LINES = Memo(4096)  # the history's rows of the tables in play (a few lines each)


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
