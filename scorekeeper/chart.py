"""The totals after each round as a line chart: inline SVG text drawn on the
server, for the table page and the filled score sheet (no script on the phone).

Pure: names and numbers in, markup out. A long table is drawn from its latest
rounds only (the caller passes at most ``MAX_ROUNDS``), and the chart says so."""

from __future__ import annotations

from markupsafe import Markup, escape

MAX_ROUNDS = 60  # a night is 50–200 deals; the page reads no more than these
# eight colours told apart in light and dark, and by most colour-blind eyes
COLOURS = ("#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#65a30d")
DASHES = ("", "6 3", "2 3", "8 3 2 3", "", "6 3", "2 3", "8 3 2 3")


def _minus(n: int) -> str:
    return f"−{-n}" if n < 0 else str(n)


# A legend entry's room beside its line: half the chart's width less the line and a
# gap, in em of the legend's font (11 units in a 160-unit half: 130 units for text).
LEGEND_EM = 130 / 11
# Letters' widths in em, about DejaVu Sans' (the PDF's font, wider than a
# phone's): a name of wide letters ("WWW…", "Шћепановић") is cut sooner than one of
# narrow ones, so neither runs into the next entry or off the chart.
_NARROW = frozenset(" !'(),-./:;I[]fijlrtıłјі|")
_WIDE = frozenset("mwMWЖЉЊШЩЮЫФжљњшщюыфмÆæŒœ%@…−—")


def _em(text: str) -> float:
    return sum(
        0.36 if c in _NARROW else 1.06 if c in _WIDE else 0.78 if c.isupper() else 0.65
        for c in text
    )


def _fit(name: str, total: str) -> str:
    """A name as the legend's room holds it beside its total: cut with "…" only when
    it must be (the full name is the legend's title, shown on a long press)."""
    room = LEGEND_EM - _em(f" {total}")
    if _em(name) <= room:
        return name
    cut = name
    while cut and _em(cut.rstrip() + "…") > room:
        cut = cut[:-1]
    return cut.rstrip() + "…"


def _ticks(lo: int, hi: int, count: int = 4) -> list[int]:
    span = max(hi - lo, 1)
    raw = span / count
    magnitude = 10 ** (len(str(int(raw))) - 1)
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    first = -(-lo // step) * step
    return list(range(first, hi + 1, step))


def totals_chart(
    names: list[str],
    rounds: list[tuple[str, list[int]]],
    start: list[int] | None = None,
    *,
    width: int = 360,
    height: int = 200,
    title: str = "Totals after each round",
    earlier_note: str = "",
) -> Markup:
    """An SVG of each player's total after each round.

    ``rounds``: (label, totals in seat order) oldest first. ``start``: the totals
    before the first of them (all 0 when None: the table's first round), and
    ``earlier_note`` says which earlier rounds were left out. No rounds: no chart."""
    if not rounds or not names:
        return Markup("")
    points = [list(start) if start else [0] * len(names), *[totals for _l, totals in rounds]]
    labels = ["", *[label for label, _t in rounds]]
    values = [v for row in points for v in row]
    lo, hi = min(0, *values), max(0, *values)
    if lo == hi:
        hi = lo + 1
    left, right, top, bottom = 40, 8, 22, 22
    legend_rows = (len(names) + 1) // 2
    plot_h = height - top - bottom
    full_h = height + legend_rows * 18
    steps = max(len(points) - 1, 1)

    def x(i: int) -> float:
        return round(left + (width - left - right) * i / steps, 1)

    def y(v: int) -> float:
        return round(top + plot_h * (hi - v) / (hi - lo), 1)

    out = [
        f'<svg class="totals-chart" xmlns="http://www.w3.org/2000/svg" width="100%"'
        f' viewBox="0 0 {width} {full_h}"'
        f' role="img" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        f'<text x="{left}" y="14" class="chart-title" font-size="12" fill="currentColor">{escape(title)}'
        + (f" · {escape(earlier_note)}" if earlier_note else "")
        + "</text>",
    ]
    for tick in _ticks(lo, hi):
        out.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y(tick)}" y2="{y(tick)}"'
            f' stroke="currentColor" stroke-opacity="{0.5 if tick == 0 else 0.15}"/>'
            f'<text x="{left - 4}" y="{y(tick) + 4}" text-anchor="end" font-size="10"'
            f' fill="currentColor">{_minus(tick)}</text>'
        )
    for i in sorted({1, len(points) - 1}):
        if labels[i]:
            out.append(
                f'<text x="{x(i)}" y="{height - 6}" text-anchor="middle" font-size="10"'
                f' fill="currentColor">{escape(labels[i])}</text>'
            )
    for seat, name in enumerate(names):
        colour, dash = COLOURS[seat % len(COLOURS)], DASHES[seat % len(DASHES)]
        line = " ".join(f"{x(i)},{y(row[seat])}" for i, row in enumerate(points))
        out.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2.5" points="{line}"'
            + (f' stroke-dasharray="{dash}"' if dash else "")
            + f"><title>{escape(name)}: {_minus(points[-1][seat])}</title></polyline>"
        )
        total = _minus(points[-1][seat])
        lx = left + (seat % 2) * (width - left) // 2
        ly = height + (seat // 2) * 18 + 10
        out.append(
            f'<line x1="{lx}" x2="{lx + 18}" y1="{ly - 4}" y2="{ly - 4}" stroke="{colour}"'
            f' stroke-width="3"' + (f' stroke-dasharray="{dash}"' if dash else "") + "/>"
            f'<text x="{lx + 24}" y="{ly}" font-size="11" fill="currentColor">'
            f"<title>{escape(name)}</title>{escape(_fit(name, total))} {total}</text>"
        )
    out.append("</svg>")
    return Markup("".join(out))
