"""Points typed on the score pad outlive a reload (a phone that slept and dropped the
page, a reload on bad Wi-Fi), but only for the round they were typed for: a round
saved meanwhile is never typed in twice."""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import phone_context, start_table, totals
from .test_bad_wifi import page_errors, save
from .test_table_flow import open_pad

PLAYERS = ["Ana", "Bojan", "Ceca", "Dragan"]


def pad_field(page, seat: int):
    return page.locator(f".pad-row:nth-child({seat + 1}) .pad-input")


def type_on_pad(page, seat: int, text: str):
    open_pad(page)
    pad_field(page, seat).tap()
    for key in text:
        page.locator(f'.key[data-key="{"sign" if key == "-" else key}"]').tap()


def reload(page):
    page.reload()
    expect(page.locator("#board")).to_be_visible()
    page.wait_for_load_state("load")


def test_typed_points_come_back_after_a_reload_and_save_once(page, live_server):
    errors = page_errors(page)
    start_table(page, live_server, "szaman", PLAYERS)
    restored = page.locator(".pad-restored")
    expect(restored).to_be_hidden()
    type_on_pad(page, 0, "25")
    type_on_pad(page, 2, "-10")

    reload(page)
    expect(pad_field(page, 0)).to_have_value("25")
    expect(pad_field(page, 1)).to_have_value("")
    expect(pad_field(page, 2)).to_have_value("-10")
    expect(restored).to_be_visible()

    save(page)
    expect(page.locator('#history [data-round="1"]')).to_have_count(1)
    assert totals(page) == {"Ana": 25, "Bojan": 0, "Ceca": -10, "Dragan": 0}
    # saved: a reload shows round 2's empty pad, not the saved points again
    reload(page)
    expect(page.locator("#pad h2")).to_contain_text("Round 2")
    expect(pad_field(page, 0)).to_have_value("")
    expect(restored).to_be_hidden()
    assert errors == []


def test_a_round_saved_on_another_phone_drops_the_draft(page, live_server, browser):
    url = start_table(page, live_server, "szaman", PLAYERS)
    type_on_pad(page, 1, "30")

    other = phone_context(browser)
    try:
        phone = other.new_page()
        phone.goto(url)
        type_on_pad(phone, 3, "15")
        save(phone)
        expect(phone.locator('#history [data-round="1"]')).to_have_count(1)
    finally:
        other.close()

    reload(page)
    expect(page.locator("#pad h2")).to_contain_text("Round 2")
    expect(pad_field(page, 1)).to_have_value("")
    expect(page.locator(".pad-restored")).to_be_hidden()
    # and it is gone for good, not waiting for a later round 1
    drafts = "() => Object.keys(sessionStorage).filter(k => k.startsWith('scorekeeper.pad:'))"
    assert page.evaluate(drafts) == []


def test_a_save_whose_answer_was_lost_is_not_typed_in_again(page, live_server):
    """The round reached the server but the answer did not reach the phone, and the
    player reloads: the points must not come back on the next round's pad."""
    start_table(page, live_server, "szaman", PLAYERS)
    type_on_pad(page, 0, "40")

    def deliver_then_drop(route):
        route.fetch()  # the server gets it and saves it
        route.abort("connectionreset")

    page.route("**/rounds", deliver_then_drop)
    save(page)
    expect(page.locator("#net-status")).to_be_visible()
    page.unroute("**/rounds")

    reload(page)
    expect(page.locator('#history [data-round="1"]')).to_have_count(1)
    expect(page.locator("#pad h2")).to_contain_text("Round 2")
    expect(pad_field(page, 0)).to_have_value("")
    expect(page.locator(".pad-restored")).to_be_hidden()


def test_points_typed_then_deleted_leave_nothing_to_restore(page, live_server):
    start_table(page, live_server, "szaman", PLAYERS)
    type_on_pad(page, 0, "7")
    page.locator('.key[data-key="back"]').tap()
    expect(pad_field(page, 0)).to_have_value("")

    reload(page)
    expect(pad_field(page, 0)).to_have_value("")
    expect(page.locator(".pad-restored")).to_be_hidden()


def test_a_folded_pad_opens_to_show_what_came_back(page, live_server):
    """Games with their own screen fold the pad away; restored points must not hide."""
    start_table(page, live_server, "cowboy", ["Ana", "Bojan", "Ceca"])
    type_on_pad(page, 2, "12")

    reload(page)
    expect(page.locator("details.pad-by-hand")).to_have_attribute("open", "")
    expect(pad_field(page, 2)).to_have_value("12")
    expect(page.locator(".pad-restored")).to_be_visible()


# ---------------------------------------------------------------- two phones, one deal


def save_on_another_phone(browser, url: str, seat: int, points: str):
    other = phone_context(browser)
    try:
        phone = other.new_page()
        phone.goto(url)
        type_on_pad(phone, seat, points)
        save(phone)
        expect(phone.locator('#history [data-round="1"]')).to_have_count(1)
    finally:
        other.close()


def test_points_typed_for_a_round_another_phone_saved_are_not_saved_twice(
    page, live_server, browser
):
    """Both phones enter the same deal. The poll shows the other phone's round, but
    keeps this pad on the round its points were typed for, so Save is refused with
    the reason instead of storing the deal again as round 2."""
    errors = page_errors(page)
    url = start_table(page, live_server, "szaman", PLAYERS)
    type_on_pad(page, 3, "15")
    save_on_another_phone(browser, url, 3, "15")

    expect(page.locator('#history [data-round="1"]')).to_have_count(1)  # the poll came
    expect(page.locator("#pad h2")).to_contain_text("Round 1")
    expect(pad_field(page, 3)).to_have_value("15")
    save(page)
    expect(page.get_by_role("alert")).to_contain_text("Round 1 was just entered on another phone")
    expect(page.locator('#history [data-round="2"]')).to_have_count(0)
    assert totals(page) == {"Ana": 0, "Bojan": 0, "Ceca": 0, "Dragan": 15}
    expect(page.locator("#pad h2")).to_contain_text("Round 2")
    expect(pad_field(page, 3)).to_have_value("")
    assert errors == []


def test_a_pad_emptied_again_moves_on_to_the_next_round(page, live_server, browser):
    url = start_table(page, live_server, "szaman", PLAYERS)
    type_on_pad(page, 0, "7")
    save_on_another_phone(browser, url, 1, "20")
    expect(page.locator('#history [data-round="1"]')).to_have_count(1)
    expect(page.locator("#pad h2")).to_contain_text("Round 1")

    page.locator('.key[data-key="back"]').tap()
    expect(page.locator("#pad h2")).to_contain_text("Round 2")
    type_on_pad(page, 0, "9")
    save(page)
    expect(page.locator('#history [data-round="2"]')).to_have_count(1)
    assert totals(page) == {"Ana": 9, "Bojan": 20, "Ceca": 0, "Dragan": 0}


def test_an_untouched_pad_follows_the_rounds_of_other_phones(page, live_server, browser):
    url = start_table(page, live_server, "szaman", PLAYERS)
    save_on_another_phone(browser, url, 2, "11")
    expect(page.locator("#pad h2")).to_contain_text("Round 2")
    type_on_pad(page, 0, "4")
    save(page)
    expect(page.locator('#history [data-round="2"]')).to_have_count(1)
