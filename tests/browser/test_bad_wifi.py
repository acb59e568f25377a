"""Bad Wi-Fi at the table: a tap or the poll that gets no answer says so, what was
typed stays, and tapping again never saves a round twice."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .conftest import phone_context, start_table
from .test_table_flow import open_pad

TAP_MESSAGE = re.compile(r"Not sent: no answer from Scorekeeper")
POLL_MESSAGE = re.compile(r"No connection: the scores shown may be out of date")


def type_points(page, points: int):
    open_pad(page)
    page.locator(".pad-row:nth-child(1) .pad-input").tap()
    for digit in str(points):
        page.locator(f'.key[data-key="{digit}"]').tap()


def save(page):
    page.locator("#pad button[type=submit]").tap()


def page_errors(page) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


def test_a_tap_without_connection_says_so_and_keeps_what_was_typed(page, live_server, shots):
    errors = page_errors(page)
    start_table(page, live_server, "szaman", ["Ana", "Bojan", "Ceca", "Dragan"])
    status = page.locator("#net-status")
    expect(status).to_be_hidden()
    type_points(page, 25)

    page.context.set_offline(True)
    save(page)
    expect(status).to_be_visible()
    expect(status).to_have_text(TAP_MESSAGE)
    expect(page.locator(".pad-row:nth-child(1) .pad-input")).to_have_value("25")
    expect(page.locator("#pad button[type=submit]")).to_be_enabled()
    shots(page, "bad-wifi-tap")
    # the poll fails too meanwhile, but the tap's message is the one that stays
    with page.expect_event("requestfailed", lambda failed: "/live?" in failed.url):
        pass
    expect(status).to_have_text(TAP_MESSAGE)

    page.context.set_offline(False)
    save(page)
    expect(page.locator('#history [data-round="1"]')).to_have_count(1)
    expect(status).to_be_hidden()
    assert errors == []


def test_a_tap_whose_answer_was_lost_is_not_saved_twice(page, live_server):
    """The round reached the server but its answer did not reach the phone: the same
    tap sent again is recognised and answered "Already saved."."""
    errors = page_errors(page)
    start_table(page, live_server, "szaman", ["Ana", "Bojan", "Ceca", "Dragan"])
    type_points(page, 40)
    delivered = []

    def deliver_then_drop(route):
        delivered.append(route.fetch().status)  # the server gets it and saves it
        route.abort("connectionreset")  # the answer is lost on the way back

    page.route("**/rounds", deliver_then_drop)
    save(page)
    expect(page.locator("#net-status")).to_have_text(TAP_MESSAGE)
    assert delivered == [200]
    page.unroute("**/rounds")

    save(page)
    expect(page.locator("#flash, #board")).to_contain_text(["Already saved."])
    expect(page.locator('#history [data-round="1"]')).to_have_count(1)
    expect(page.locator('#history [data-round="2"]')).to_have_count(0)
    expect(page.locator("#net-status")).to_be_hidden()
    assert errors == []


def test_a_phone_that_loses_the_table_says_so_until_it_is_back(page, live_server, shots):
    errors = page_errors(page)
    start_table(page, live_server, "cowboy", ["Ana", "Bojan", "Ceca"])
    status = page.locator("#net-status")
    page.context.set_offline(True)
    expect(status).to_have_text(POLL_MESSAGE)
    shots(page, "bad-wifi-poll")
    page.context.set_offline(False)
    expect(status).to_be_hidden()
    assert errors == []


def test_the_tap_message_can_be_tapped_away(page, live_server):
    start_table(page, live_server, "szaman", ["Ana", "Bojan", "Ceca", "Dragan"])
    type_points(page, 5)
    page.context.set_offline(True)
    save(page)
    status = page.locator("#net-status")
    expect(status).to_have_text(TAP_MESSAGE)
    status.tap()
    # still offline: what remains is the poll's message, once the next poll fails
    expect(status).to_have_text(POLL_MESSAGE)
    page.context.set_offline(False)
    expect(status).to_be_hidden()


def test_a_change_the_poll_brings_does_not_hide_a_tap_that_got_no_answer(
    page, live_server, browser
):
    """The poll that brings another phone's round replaces its own element; that must
    not pass for this phone's tap getting through."""
    url = start_table(page, live_server, "szaman", ["Ana", "Bojan", "Ceca", "Dragan"])
    type_points(page, 5)
    page.context.set_offline(True)
    save(page)
    status = page.locator("#net-status")
    expect(status).to_have_text(TAP_MESSAGE)
    page.context.set_offline(False)

    other = phone_context(browser)
    try:
        phone = other.new_page()
        phone.goto(url)
        type_points(phone, 30)
        save(phone)
        expect(phone.locator('#history [data-round="1"]')).to_have_count(1)
    finally:
        other.close()
    expect(page.locator('#history [data-round="1"]')).to_have_count(1)  # the poll came
    for _again in range(2):  # and came again, unchanged
        with page.expect_response(re.compile(r"/live\?")):
            pass
    expect(status).to_be_visible()
    expect(status).to_have_text(TAP_MESSAGE)


# every answer a page's XMLHttpRequest got, by its URL, once htmx has read it ("loadend"
# follows the "load" htmx reads an answer in)
ANSWERS_SEEN = """(() => {
  window.answered = [];
  const open = XMLHttpRequest.prototype.open, send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.open = function (method, url) {
    this.sentTo = url;
    return open.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function () {
    this.addEventListener("loadend", () => window.answered.push(this.sentTo));
    return send.apply(this, arguments);
  };
})();"""


def test_a_poll_answered_after_a_tap_does_not_take_back_what_the_tap_drew(page, live_server, taps):
    """On a slow line, a poll sent before a tap can be answered after the tap's own
    answer. It brings the version of the table the tap's answer already drew, and
    swapped in, it took back what that answer said: Edit's "Turn 1 is open again: play
    it again." went from the board. A poll's answer that brings no newer version than
    the phone shows is dropped."""
    from .test_pegs_screen import choose

    page.add_init_script(ANSWERS_SEEN)
    start_table(page, live_server, "pegs", ["Ana", "Bojan", "Ceca", "Dule"])
    choose(page, taps, '.pg-cards [data-card="K"]')
    taps('.hit[data-hit="T8"]')
    expect(page.locator("#pg-title")).to_have_text("Bojan to play")
    held = []

    def hold_the_first(route):  # the polls after it go on as usual
        if held:
            route.continue_()
        else:
            held.append(route)

    polls = re.compile(r"/live\?")
    with page.expect_request(polls):  # the next poll is sent, and held unanswered
        page.route(polls, hold_the_first)
    taps(".pg-edit")
    top = page.locator("#board .board-flash")
    expect(top).to_have_text("Turn 1 is open again: play it again.")
    for route in held:  # answered now: the table has moved on since it was sent
        route.fulfill(response=route.fetch())
    page.unroute(polls)
    sent = [route.request.url for route in held]
    page.wait_for_function(
        "(sent) => sent.every((url) => window.answered.some((seen) => url.endsWith(seen)))",
        arg=sent,
    )
    expect(top).to_have_text("Turn 1 is open again: play it again.")
    expect(page.locator("#pg-title")).to_have_text("Ana plays K")
