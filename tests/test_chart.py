"""The chart of the totals after each round (scorekeeper/chart.py), the history's
breakdown lines (scorekeeper/history.py), the filled sheet's chart, and the address
`scorekeeper tables` prints (the one `serve` serves)."""

from __future__ import annotations

import html
import json
import re
import signal
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekeeper import history as breakdown
from scorekeeper import messages, printing
from scorekeeper.chart import totals_chart
from scorekeeper.cli import main, served_url_file
from scorekeeper.games import catalog
from scorekeeper.store import Entry

EXAMPLES = Path(__file__).parent / "data" / "examples"


def polyline_points(svg: str) -> list[list[tuple[float, float]]]:
    return [
        [tuple(map(float, xy.split(","))) for xy in found.split()]
        for found in re.findall(r'<polyline[^>]* points="([^"]+)"', svg)
    ]


def test_the_chart_draws_a_line_per_player_from_zero_through_each_round():
    svg = totals_chart(["Ana", "Bojan"], [("1", [10, -90]), ("2", [30, -200])])
    lines = polyline_points(svg)
    assert len(lines) == 2 and all(len(line) == 3 for line in lines)
    ana, bojan = lines
    assert ana[0] == bojan[0]  # both start at 0
    assert ana[2][1] < ana[0][1] < bojan[1][1] < bojan[2][1]  # up is more points
    assert "<title>Bojan: −200</title>" in svg and ">−200<" in svg and "-200" not in svg


def test_names_are_text_never_markup_and_a_long_one_is_cut_only_in_the_legend():
    long = "Aleksandar <b>Šćepanović-Brzęczyszczykiewicz"
    svg = totals_chart([long, "Ana"], [("1", [5, 3])])
    assert "<b>" not in svg
    whole = long.replace("<", "&lt;").replace(">", "&gt;")
    assert f"<title>{whole}</title>" in svg  # whole on a long press
    assert "Aleksandar &lt;b&gt;Š…" in svg  # cut where the legend's room ends


def test_no_rounds_no_chart_and_a_left_out_start_is_said():
    assert totals_chart(["Ana"], []) == ""
    svg = totals_chart(["Ana"], [("41", [12])], [10], earlier_note="the latest 1 round")
    assert "the latest 1 round" in svg
    assert len(polyline_points(svg)[0]) == 2


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(-10_000, 10_000), min_size=3, max_size=3), min_size=1, max_size=60
    )
)
def test_every_point_lies_inside_the_drawing(rows):
    svg = totals_chart(["A", "B", "C"], [(str(i), row) for i, row in enumerate(rows, 1)])
    width, height = map(float, re.search(r'viewBox="0 0 (\S+) (\S+)"', svg).groups())
    for line in polyline_points(svg):
        assert len(line) == len(rows) + 1
        assert all(0 <= x <= width and 0 <= y <= height for x, y in line)


def entry(kind: str, request: dict, result: dict, points=None, round_no=1, eid=1) -> Entry:
    return Entry(eid, round_no, kind, request, result, "", None, None, "live", points or {})


def test_each_kind_says_why_from_its_stored_result(app):
    """Szaman's tricks and penalties, Kvanta's call and prize, the Pegs move: read
    from what the engine answered when the entry was saved."""
    szaman = json.loads((EXAMPLES / "szaman-deal.json").read_text())[0]
    lines = breakdown.breakdown(entry("szaman-deal", szaman["request"], szaman["response"]), [])
    tricks = szaman["response"]["tricks"]
    assert sum(line.startswith("Trick ") for line in lines) == len(tricks)
    assert f"Trick 1 won by {tricks[0]['winner']}" in lines[0]
    for name, penalty in szaman["response"]["penalties"].items():
        assert any(
            line.startswith(f"Penalty for {name}: {messages.signed(penalty)}") for line in lines
        )

    call = json.loads((EXAMPLES / "kvanta-call.json").read_text())[0]
    lines = breakdown.breakdown(entry("kvanta-call", call["request"], call["response"]), [])
    assert lines[0] == "Target 18 · Asta called"
    assert "Asta 7 (off by 11)" in lines[1] and "Closest: Tomas · the caller was undercut" in lines
    with app.test_request_context("/?lang=pl"):  # how far off, in the reader's language
        polish = breakdown.breakdown(entry("kvanta-call", call["request"], call["response"]), [])
    assert polish[1] == "Sumy: Tomas 18, Asta 7 (odległość 11)"

    deal = json.loads((EXAMPLES / "cowboy-deal.json").read_text())[0]
    with app.test_request_context("/?lang=pl"):  # each item in the reader's language
        polish = breakdown.breakdown(entry("cowboy-deal", deal["request"], deal["response"]), [])
    assert "Milica: Wyłożona 10 ×4 +40; Szóstka na ręce −20 = +20" in polish

    poker = json.loads((EXAMPLES / "kvanta-poker.json").read_text())[0]
    lines = breakdown.breakdown(entry("kvanta-poker", poker["request"], poker["response"]), [])
    assert lines[0] == "Prize card 3♣"
    assert "Milica: Five of a kind 10♥ 10♥ 10♦ 10♣ 10♣" in lines
    assert lines[-1] == "Milica wins the prize: +3"
    with app.test_request_context("/?lang=pl"):  # the category in the reader's language
        polish = breakdown.breakdown(entry("kvanta-poker", poker["request"], poker["response"]), [])
    assert "Milica: Piątka 10♥ 10♥ 10♦ 10♣ 10♣" in polish

    pegs = json.loads((EXAMPLES / "pegs-apply.json").read_text())[0]
    seats = ["Ana", "Bojan", "Ceca", "Dule"]
    lines = breakdown.breakdown(entry("pegs-apply", pegs["request"], pegs["response"]), seats)
    assert lines == ["Bojan plays 3: Bojan's middle peg 3 forward"]  # T14, between T20 and T51


def test_a_stored_shape_no_version_wrote_shows_no_breakdown_and_no_error():
    kinds = [k.name for game in catalog.GAMES.values() for k in game.kinds if k.breakdown]
    assert len(kinds) == 9  # every kind whose history row opens to lines
    for kind in kinds:
        for request, result in (({}, {}), ({"players": 3}, {"players": [1]}), ([], "x")):
            assert isinstance(breakdown.breakdown(entry(kind, request, result), []), list)


def test_the_filled_sheet_draws_the_totals_after_each_round(app, store):
    with app.app_context():
        out = store.create_table("cowboy", "Friday", ["Ana", "Bojan", "Ceca"], {})
        table = store.table(out["table_id"])
        ids = [p.id for p in store.players(table.id)]
        for n, row in enumerate([[120, -80, 0], [60, 40, -30]], 1):
            store.add_entry(table.id, n, "manual-points", {}, {}, dict(zip(ids, row, strict=True)))
        html = printing.sheet_html(store, store.table(table.id))
        chart = re.search(r'<svg class="totals-chart".*?</svg>', html, re.S).group(0)
        assert chart.count("<polyline") == 3 and "<title>Bojan: −40</title>" in chart
        assert printing.render_pdf(html)[:5] == b"%PDF-"


def test_tables_prints_the_address_serve_is_serving(tmp_path, capsys):
    from scorekeeper.store import Store

    db = tmp_path / "club.sqlite"
    s = Store.open(db)  # (tables names no database it would have to make)
    served_url_file(str(db)).write_text("http://192.168.1.20:8123/\n")
    key = s.create_table("kvanta", "Friday", ["Ana", "Bojan"], {})["scorer_key"]
    s.close()
    capsys.readouterr()
    assert main(["tables", "--db", str(db)]) == 0
    assert f"scorer: http://192.168.1.20:8123/t/{key}" in capsys.readouterr().out
    # --base-url still wins; a note that is not an address is not used
    assert main(["tables", "--db", str(db), "--base-url", "http://10.0.0.5:9000"]) == 0
    assert "http://10.0.0.5:9000/t/" in capsys.readouterr().out
    served_url_file(str(db)).write_text("not a url\n")
    assert main(["tables", "--db", str(db)]) == 0
    assert ":8000/t/" in capsys.readouterr().out


@pytest.mark.serial
def test_serve_notes_its_address_while_serving_and_removes_it_when_stopped(tmp_path):
    from serving import start_serve

    db = tmp_path / "served.sqlite"
    proc, url, _lines = start_serve(db, "--no-qr", "--workers", "1")
    try:
        assert served_url_file(str(db)).read_text().strip() == url + "/"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
    assert not served_url_file(str(db)).exists()


def legend_entries(svg: str) -> list[tuple[float, str]]:
    """Each legend entry's text as drawn (its x and its words, the title left out)."""
    return [
        (float(x), html.unescape(text))
        for x, text in re.findall(
            r'<text x="([\d.]+)" y="[\d.]+" font-size="11"[^>]*><title>.*?</title>([^<]*)</text>',
            svg,
        )
    ]


def test_a_legend_entry_fits_beside_its_line_in_the_sheets_font():
    """A long name and its total ran into the next entry's line ("Александра Конс…
    −2060") and a name of wide letters ran off the chart ("WWWWWWWWWWWWWWW"): each
    entry, measured in the filled sheet's font (DejaVu Sans), ends before the next
    entry's line or the chart's edge, and a short name is never cut."""
    font = TTFont(Path(printing.__file__).parent.parent / "printables/fonts/DejaVuSans-subset.ttf")
    advance, cmap = font["hmtx"], font.getBestCmap()
    per_em = font["head"].unitsPerEm

    def width(text: str) -> float:  # in the chart's units, at the legend's 11
        return sum(advance[cmap[ord(c)]][0] for c in text) * 11 / per_em

    names = [
        "Александра Константиновић-Петровићевић",
        "Žemaitytė-Račkauskienė Ąžuolė Eglė Ūla",
        "W" * 40,
        "Шћепановић Љиљана",
        "Ana",
        "Łucja Grzegorzewska",
    ]
    svg = totals_chart(names, [("1", [-2060, 3670, -10_930, 143, -5, 12])])
    width_of_chart = float(re.search(r'viewBox="0 0 (\S+)', svg).group(1))
    entries = legend_entries(svg)
    assert len(entries) == len(names)
    for seat, (x, text) in enumerate(entries):
        ends_at = x - 24 + (width_of_chart - 40) / 2 if seat % 2 == 0 else width_of_chart
        assert x + width(text) <= ends_at, (text, x + width(text), ends_at)
    assert entries[4][1] == "Ana −5"
