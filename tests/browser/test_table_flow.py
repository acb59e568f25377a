"""A 4-player table on the score pad, by taps: three rounds, undo and redo,
a second phone on the watch link following along, and dark mode."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .conftest import assert_inside_viewport, start_table, totals


def open_pad(page):
    """Games with their own screen keep the score pad folded under it."""
    folded = page.locator("details.pad-by-hand:not([open]) > summary")
    if folded.count():
        folded.tap()


def enter_round(page, taps, points: list[int]):
    open_pad(page)
    for i, value in enumerate(points):
        taps(f".pad-row:nth-child({i + 1}) .pad-input")
        digits = str(abs(value))
        for d in digits:
            taps(f'.key[data-key="{d}"]')
        if value < 0:
            taps('.key[data-key="sign"]')
    taps("#pad button[type=submit]")


def test_score_pad_rounds_undo_redo_and_a_watching_phone(
    page, browser, live_server, taps, shots, console_errors
):
    names = ["Ana", "Bojan", "Ceca", "Dragan"]
    scorer_url = start_table(page, live_server, "szaman", names)
    shots(page, "table-new")
    assert_inside_viewport(page)

    watch_url = page.locator("[data-copy]").last.get_attribute("data-copy")
    assert watch_url != scorer_url
    watcher_context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    watcher = watcher_context.new_page()
    watcher.goto(watch_url)
    expect(watcher.locator(".pad-input")).to_have_count(0)
    expect(watcher.get_by_role("button", name="Undo")).to_have_count(0)
    expect(watcher.locator(".badge.watch")).to_be_visible()

    rounds = [[12, -3, 0, 5], [4, 4, 10, -2], [7, 0, 1, 1]]
    expected = dict.fromkeys(names, 0)
    for n, points in enumerate(rounds, start=1):
        enter_round(page, taps, points)
        for name, value in zip(names, points, strict=True):
            expected[name] += value
        expect(page.locator(f'#history [data-round="{n}"]')).to_have_count(1)
        assert totals(page) == expected
        # the watching phone follows within 2 seconds, without a reload
        expect(watcher.locator(f'#history [data-round="{n}"]')).to_have_count(1)
        assert totals(watcher) == expected
    shots(page, "table-three-rounds")
    print(f"\nscore pad: {taps.count} taps for 3 rounds of 4 players")

    # undo round 2, then redo it
    undo = page.locator('#history [data-round="2"]').get_by_role("button", name="Undo")
    undo.tap()  # the first tap asks for a second one, and sends nothing
    expect(undo).to_have_text("Tap again to undo")
    undo.tap()
    expect(page.locator('#history [data-round="2"].undone')).to_have_count(1)
    without_two = {name: expected[name] - rounds[1][i] for i, name in enumerate(names)}
    assert totals(page) == without_two
    expect(watcher.locator('#history [data-round="2"].undone')).to_have_count(1)
    assert totals(watcher) == without_two

    page.locator('#history [data-round="2"]').get_by_role("button", name="Redo").tap()
    expect(page.locator('#history [data-round="2"].undone')).to_have_count(0)
    assert totals(page) == expected
    expect(watcher.locator('#history [data-round="2"].undone')).to_have_count(0)
    assert totals(watcher) == expected
    shots(watcher, "table-watch")
    assert_inside_viewport(watcher)

    # a reload keeps everything
    page.reload()
    assert totals(page) == expected
    watcher_context.close()


def test_validation_message_next_to_the_field(page, live_server, console_errors):
    start_table(page, live_server, "kvanta", ["Ana", "Bojan"])
    open_pad(page)
    page.locator(".pad-input").first.fill("12x")
    page.locator("#pad button[type=submit]").tap()
    expect(page.locator(".field-error")).to_contain_text("not a whole number")
    expect(page.locator("#history .round")).to_have_count(0)


def test_dark_mode_renders(browser, live_server, shots):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, color_scheme="dark", has_touch=True, is_mobile=True
    )
    page = context.new_page()
    start_table(page, live_server, "vezimas", ["Asta", "Jonas", "Rūta"])
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    r, g, b = (int(x) for x in re.findall(r"\d+", background)[:3])
    assert r + g + b < 120, background  # a dark background
    colour = page.evaluate("getComputedStyle(document.body).color")
    assert sum(int(x) for x in re.findall(r"\d+", colour)[:3]) > 600, colour  # light text
    shots(page, "table-dark")
    context.close()


def test_home_page_and_recent_tables(page, live_server, shots, console_errors):
    start_table(page, live_server, "pegs", ["A", "B", "C", "D"])
    # the table page notes itself on this phone once its script has run
    page.wait_for_function("localStorage.getItem('scorekeeper.recent') !== null")
    page.goto(live_server + "/")
    expect(page.locator("#recent li")).to_have_count(1)
    expect(page.locator("#recent")).to_contain_text("Arizona Pegs and Jokers")
    shots(page, "home")
    assert_inside_viewport(page)
    # only the chosen game's settings are shown
    page.locator("input[name=game][value=szaman]").tap()
    expect(page.locator('fieldset[data-game="szaman"]')).to_be_visible()
    expect(page.locator('fieldset[data-game="cowboy"]')).to_be_hidden()


def test_an_error_answer_to_a_tap_leaves_the_board_and_what_was_typed(page, live_server):
    """An answer from the app's error pages (here: a form that is out of date) shows
    its message above the board instead of replacing the board with it."""
    start_table(page, live_server, "szaman", ["Ana", "Bojan", "Ceca", "Dragan"])
    open_pad(page)
    page.locator(".pad-row:nth-child(1) .pad-input").tap()
    page.locator('.key[data-key="7"]').tap()
    page.locator("#pad button[type=submit]").scroll_into_view_if_needed()
    expect(page.locator("#flash")).not_to_be_in_viewport()
    page.evaluate(
        """() => {
            document.body.setAttribute("hx-headers", '{"X-CSRFToken": "out-of-date"}');
            document.querySelectorAll("input[name=csrf_token]").forEach(i => i.value = "x");
        }"""
    )
    page.locator("#pad button[type=submit]").tap()
    expect(page.locator("#flash .flash.error")).to_contain_text("This form is out of date")
    expect(page.locator("#flash .flash.error")).to_be_in_viewport()  # scrolled up to it
    expect(page.locator("#board")).to_have_count(1)
    expect(page.locator(".pad-row:nth-child(1) .pad-input")).to_have_value("7")
    expect(page.locator("#history [data-round]")).to_have_count(0)


def test_the_first_dealer_menu_offers_only_the_seats_whose_names_show(page, live_server):
    """A seat holding only an invisible character (a zero-width space pasted in) is an
    empty seat to the server: the first-dealer menu offers no blank name for it."""
    page.goto(live_server + "/")
    fields = page.locator("input[name=player]")
    fields.nth(0).fill("Ana")
    fields.nth(1).fill("Bojan")
    fields.nth(2).fill("\u200b")
    options = page.locator("#first_dealer-field option:not([hidden])")
    expect(options).to_have_text(["Ana", "Bojan"])
    fields.nth(2).fill("Ce\u200bca")
    expect(options).to_have_text(["Ana", "Bojan", "Ceca"])
