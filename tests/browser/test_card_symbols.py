"""At 390×844: a referee's verdict names its card by symbol (2♣), never by the code
the engines' JSON uses (2C)."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .conftest import assert_inside_viewport, start_table

PANEL = "#kv-panel"


def test_the_kvanta_dealer_verdict_names_the_lowest_card_by_symbol(
    page, live_server, taps, console_errors
):
    start_table(page, live_server, "kvanta", ["Ana", "Bojan", "Ceca"])
    expect(page.locator(PANEL)).to_have_attribute("data-phase", "dealer")
    for code in ("2C", "9D", "KS"):
        version = page.locator(PANEL).get_attribute("data-deal-version")
        taps(f'{PANEL} .pick[data-card="{code}"]:visible')  # the picker this phone shows
        expect(page.locator(PANEL)).not_to_have_attribute("data-deal-version", version or "")
    verdict = page.locator(f'{PANEL} [data-verdict="dealer"]')
    expect(verdict).to_contain_text("Ana deals")
    expect(verdict).to_contain_text("2♣")
    assert not re.search(r"\b2C\b", verdict.inner_text())
    assert_inside_viewport(page)
