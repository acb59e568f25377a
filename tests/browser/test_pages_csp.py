"""Every page under the real Content-Security-Policy: no violation, no script
error, nothing sticking out sideways at 390 px — for every game, on the scorer
link and on the watch link."""

from __future__ import annotations

import pytest

from .conftest import assert_inside_viewport, start_table

GAMES = {
    "cowboy": ["Ana", "Bojan", "Ceca"],
    "kvanta": ["Ana", "Bojan"],
    "vezimas": ["Asta", "Jonas", "Rūta"],
    "szaman": ["Ola", "Piotr", "Zosia"],
    "pegs": ["A", "B", "C", "D"],
}


def visit(page, url):
    response = page.goto(url)
    assert response.status == 200, url
    # a CSP violation is reported on the console; give late ones a moment
    page.wait_for_timeout(150)


@pytest.mark.parametrize("game", GAMES)
def test_a_table_of_every_game_under_the_csp(page, live_server, console_errors, game):
    violations = []
    page.on(
        "console",
        lambda msg: violations.append(msg.text) if "Content Security Policy" in msg.text else None,
    )
    scorer = start_table(page, live_server, game, GAMES[game])
    visit(page, scorer)
    assert_inside_viewport(page)
    watch = page.locator("[data-copy]").last.get_attribute("data-copy")
    visit(page, watch)
    assert_inside_viewport(page)
    visit(page, scorer + "/rules")
    visit(page, f"{live_server}/rules/{game}")
    assert violations == []


def test_home_and_rules_index_under_the_csp(page, live_server, console_errors):
    for path in ("/", "/rules"):
        visit(page, live_server + path)
        assert_inside_viewport(page)
