"""A double tap on Save at 390×844: Save is disabled until its answer arrives, and the
next deal's screen ignores taps for a moment, so the second tap of a double tap on
Szaman's Save saves nothing twice and never lands on the next deal's first button."""

from __future__ import annotations

import re

from playwright.sync_api import expect
from szaman_deal import NAMES

from .conftest import start_table
from .test_szaman_screen import PANEL, enter_left, enter_quick_deal, settled, tap


def centre(page, selector: str) -> tuple[float, float]:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def finish_a_deal(page, taps):
    enter_quick_deal(page, taps)
    enter_left(page, taps)
    settled(page)
    page.locator(f"{PANEL} .sz-save").scroll_into_view_if_needed()


def test_a_double_tap_on_save_saves_once_and_presses_nothing_on_the_next_deal(
    page, live_server, taps, console_errors
):
    start_table(page, live_server, "szaman", NAMES)

    # a slow answer: the second tap falls on a Save that is disabled meanwhile
    finish_a_deal(page, taps)
    held = []
    page.route(re.compile(r"/szaman/save$"), lambda route: held.append(route))
    x, y = centre(page, f"{PANEL} .sz-save")
    page.touchscreen.tap(x, y)
    expect(page.locator(f"{PANEL} .sz-save")).to_be_disabled()
    page.touchscreen.tap(x, y)
    page.evaluate("0")  # a round trip: a request sent by that tap would be held by now
    assert len(held) == 1, "the disabled Save sent a second request"
    held[0].continue_()
    page.unroute(re.compile(r"/szaman/save$"))
    expect(page.locator(PANEL)).to_contain_text("Deal 2 of 6")
    expect(page.locator("#board .flash.ok")).to_contain_text("Deal 1 saved.")
    expect(page.locator("#history li.round")).to_have_count(1)

    # a quick answer: the second tap comes after the next deal replaced the screen, on
    # the next deal's first button ("who won trick 1?" here, "who leads?" in full mode)
    finish_a_deal(page, taps)
    x, y = centre(page, f"{PANEL} .sz-save")
    page.touchscreen.tap(x, y)
    expect(page.locator(PANEL)).to_contain_text("Deal 3 of 6")
    first = f'{PANEL} [data-op="winner"][data-seat="3"]'
    x, y = centre(page, first)
    page.touchscreen.tap(x, y)
    quiet = page.evaluate("document.body.classList.contains('board-quiet')")
    assert quiet, "the tap came after the quiet moment: the test proves nothing"
    expect(page.locator("body")).not_to_have_class(re.compile(r"\bboard-quiet\b"))
    expect(page.locator("#board .flash.ok")).to_contain_text("Deal 2 saved.")
    expect(page.locator("#history li.round")).to_have_count(2)
    # the next tap is the deal's first: had the ghost tap landed, Adam would have won
    # trick 1 and this would be trick 2
    tap(page, taps, '[data-op="winner"][data-seat="0"]')
    expect(page.locator(f"{PANEL} .sz-last")).to_contain_text("Trick 1: Ola wins")
