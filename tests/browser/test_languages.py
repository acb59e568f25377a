"""A table in each of the six languages, at a phone (390×844, touch): started from the
home page in that language, one Vežimas deal played, and not one English sentence on
the screen at any step (screenshots in test-artifacts/screenshots/lang-*.png).

The controls are found by their labels in the language itself (the catalogue's own
translation of the English label), so the test reads the page as its player does."""

from __future__ import annotations

import pytest
from english import NAMES, english_in
from playwright.sync_api import expect

from scorekeeper import i18n

from .conftest import ARTIFACTS, assert_inside_viewport, totals


def assert_no_english(page, language: str, where: str) -> None:
    leaked = english_in(page.locator("body").inner_text(), language)
    assert not leaked, f"{language}, {where}: English on the screen: {leaked[:5]}"


@pytest.mark.parametrize("language", ["en", "sr-Latn", "sr-Cyrl", "pl", "lt", "sk"])
def test_a_table_and_a_deal_in_each_language(browser, live_server, language):
    catalogue = i18n.catalogue_for(language)

    def say(msgid: str) -> str:
        return catalogue.gettext(msgid)

    context = browser.new_context(
        viewport={"width": 390, "height": 844},
        has_touch=True,
        is_mobile=True,
        locale="en-US",  # the phone asks for English: the page follows ?lang= and the table
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    shots = ARTIFACTS / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    names = NAMES[language]

    page.goto(f"{live_server}/?lang={language}")
    expect(page.locator("html")).to_have_attribute("lang", language)
    assert_no_english(page, language, "home")
    page.locator("input[name=game][value=vezimas]").tap()
    for i, name in enumerate(names):
        page.locator("input[name=player]").nth(i).fill(name)
    assert page.locator("select[name=language]").input_value() == language
    page.get_by_role("button", name=say("Start the table")).tap()
    expect(page.locator("#board")).to_be_visible()
    page.wait_for_load_state("load")
    expect(page.locator("html")).to_have_attribute("lang", language)
    page.screenshot(path=str(shots / f"lang-{language}-table.png"), full_page=True)
    assert_no_english(page, language, "the new table")
    assert_inside_viewport(page)

    # the trumps: the queen of clubs' holder, then save
    holder = page.locator(f'[aria-label="{say("Who holds the queen of clubs")}"]')
    holder.locator(f'[data-player="{names[1]}"]').tap()
    expect(holder.locator(f'[data-player="{names[1]}"]')).to_have_attribute("aria-pressed", "true")
    page.locator(".vz-save-trumps").tap()
    expect(page.locator(".vz-trumps")).to_be_visible()
    assert_no_english(page, language, "trumps set")

    # the deal: the third player keeps the last cards and gets the cart
    cart = page.locator(f'[aria-label="{say("Who got the cart")}"]')
    cart.locator(f'[data-player="{names[2]}"]').tap()
    expect(cart.locator(f'[data-player="{names[2]}"]')).to_have_attribute("aria-pressed", "true")
    page.locator(".vz-save-deal").tap()
    expect(page.locator(f'#standings .points[data-player="{names[2]}"]')).to_have_text("1")
    expect(page.locator("#board .flash.ok")).to_be_visible()
    assert totals(page)[names[2]] == 1
    page.screenshot(path=str(shots / f"lang-{language}-deal.png"), full_page=True)
    assert_no_english(page, language, "the deal saved")
    assert_inside_viewport(page)

    # another phone that asks for English sees the table in its language
    other = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, locale="en-US"
    )
    watcher = other.new_page()
    watcher.goto(page.url.split("?")[0])
    expect(watcher.locator("html")).to_have_attribute("lang", language)
    assert_no_english(watcher, language, "a second phone")
    other.close()
    context.close()
    assert errors == []


def test_the_table_s_language_changes_for_every_phone_and_the_switch_for_one(
    page, browser, live_server
):
    from .conftest import phone_context, start_table

    url = start_table(page, live_server, "szaman", ["Ola", "Piotr", "Zosia"])
    other = phone_context(browser)
    second = other.new_page()
    second.goto(url)
    expect(second.locator("html")).to_have_attribute("lang", "en")
    # the scorer sets the table's language: one tap in "Players and table"
    page.locator("summary", has_text="Players and table").tap()
    page.locator('.table-language button[value="pl"]').tap()
    expect(page.locator("html")).to_have_attribute("lang", "pl")
    expect(page.locator('.table-language button[value="pl"]')).to_have_attribute(
        "aria-pressed", "true"
    )
    second.reload()
    expect(second.locator("html")).to_have_attribute("lang", "pl")
    # the second phone chooses Lithuanian for itself: the table stays Polish elsewhere
    second.locator(".lang-switch summary").tap()
    second.locator('.lang-menu button[value="lt"]').tap()
    expect(second.locator("html")).to_have_attribute("lang", "lt")
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", "pl")
    other.close()
