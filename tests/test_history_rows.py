"""The history's rows are drawn once (fragments.drawn_once): a row drawn for an earlier
answer is the row drawn anew, whatever changed since (an undo, another language). (An
answer to one phone alone, with such rows: tests/test_pegs_screen.py.)"""

from __future__ import annotations

import re

from test_web import post_round

from scorekeeper.views import fragments
from scorekeeper.web import board

HX = {"HX-Request": "true"}
SUBMISSION = re.compile(r'(name="submission_id" value=")[^"]*(")')


def rounds(html: str) -> str:
    """The history's rounds, each form's submission id (new in every answer) left out."""
    start_at = html.index('<ol class="rounds"')
    part = html[start_at : html.index("</ol>", start_at)]
    return SUBMISSION.sub(r"\1…\2", part)


def drawn_twice(client, url: str) -> tuple[str, str]:
    """The rounds as the page shows them with the rows drawn before, and drawn anew."""
    board._rendered.clear()  # the page itself drawn again, its rows from the memo
    kept = rounds(client.get(url).get_data(as_text=True))
    board._rendered.clear()
    fragments._DRAWN._made.clear()
    return kept, rounds(client.get(url).get_data(as_text=True))


def test_a_history_row_drawn_once_is_the_row_drawn_anew(new_table, client, parsed):
    url, _page = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    for n, points in enumerate(([40, -10, 5], [7, 8, 9], [1, 2, 3])):
        post_round(client, url, parsed(client.get(url)), points, submission_id=f"r{n}")
    kept, anew = drawn_twice(client, url)
    assert kept == anew and kept.count('<li class="round') == 3

    # round 2 undone: its row shows it, the rows around it as they were
    page = parsed(client.get(url))
    action = re.search(r'action="([^"]+/undo)"', page.html.split('data-round="2"', 1)[1])
    done = client.post(
        action.group(1), data={"csrf_token": page.csrf, "submission_id": "u2"}, headers=HX
    )
    assert done.status_code == 200
    kept, anew = drawn_twice(client, url)
    assert kept == anew
    row = kept.split('data-round="2"', 1)[1].split('<li class="round', 1)[0]
    assert "undone" in row and "/redo" in row

    # the same rows in another language: drawn in that language
    polish, anew = drawn_twice(client, url + "?lang=pl")
    assert polish == anew and polish != kept and "Runda 2" in polish


def _deal(entry_id: int, result: dict):
    from scorekeeper.store.records import Entry

    return Entry(entry_id, 1, "cowboy-deal", {}, result, "2026-12-06T05:00:00.000+00:00", None,
                 None, "live", {})  # fmt: skip


def test_an_entrys_breakdown_made_once_is_the_breakdown_made_anew(app):
    """An entry's lines are made once per table, entry and language: two tables whose
    entries share an id and a time each get their own, and another language its own."""
    from scorekeeper import history as breakdown

    names = ["Ana", "Bojan"]
    scored = {"Ana": {"items": [{"code": "x", "points": 10, "count": 2}], "total": 20}}
    nothing = {"Bojan": {"items": [], "total": 0}}
    first, second = _deal(1, {"players": scored}), _deal(1, {"players": nothing})
    for lang in ("en", "pl", "en"):
        with app.test_request_context(f"/?lang={lang}"):
            for key, entry in (("table-a", first), ("table-b", second)):
                made = breakdown.lines_of(key, entry, names)
                assert list(made) == breakdown.breakdown(entry, names)
                assert list(breakdown.lines_of(key, entry, names)) == list(made)
            assert breakdown.lines_of("table-a", first, names) != breakdown.lines_of(
                "table-b", second, names
            )
    with app.test_request_context("/?lang=pl"):
        polish = breakdown.lines_of("table-b", second, names)
    with app.test_request_context("/?lang=en"):
        assert breakdown.lines_of("table-b", second, names) != polish
