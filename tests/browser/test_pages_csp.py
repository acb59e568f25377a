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


# every violation the document reports, kept by the page itself (each page loaded)
RECORD_VIOLATIONS = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) =>
  window.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
"""


def visit(page, url) -> list[str]:
    """The page at ``url`` loaded, and the violations it reported by then: the load
    event waited for, then the tasks queued before it (a violation's report is one)."""
    response = page.goto(url, wait_until="load")
    assert response.status == 200, url
    return page.evaluate("() => new Promise((r) => setTimeout(() => r(window.cspViolations)))")


@pytest.mark.parametrize("game", GAMES)
def test_a_table_of_every_game_under_the_csp(page, live_server, console_errors, game):
    page.add_init_script(RECORD_VIOLATIONS)
    scorer = start_table(page, live_server, game, GAMES[game])
    assert visit(page, scorer) == []
    assert_inside_viewport(page)
    watch = page.locator("[data-copy]").last.get_attribute("data-copy")
    assert visit(page, watch) == []
    assert_inside_viewport(page)
    assert visit(page, scorer + "/rules") == []
    assert visit(page, f"{live_server}/rules/{game}") == []


def test_home_and_rules_index_under_the_csp(page, live_server, console_errors):
    page.add_init_script(RECORD_VIOLATIONS)
    for path in ("/", "/rules"):
        assert visit(page, live_server + path) == []
        assert_inside_viewport(page)
