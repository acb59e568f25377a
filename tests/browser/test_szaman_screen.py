"""The Szaman screen by taps at 390×844: a whole 4-player deal in full mode (card by
card, a joker lead, the cards still held) and the same deal in quick mode, both checked
against the engine; a reload in the middle of the deal continues the draft, and a
second phone sees it and carries on. Taps are counted and printed."""

from __future__ import annotations

import re

from playwright.sync_api import expect
from szaman_deal import FULL_DEAL, JOKER_SUITS, LEFT, NAMES, QUICK_DEAL, full_request, quick_request

from scorekeeper import api

from .conftest import assert_inside_viewport, phone_context, start_table, totals

PANEL = "#szaman-panel"


def open_table(page, live_server, names, settings=None) -> str:
    url = start_table(page, live_server, "szaman", names, settings)
    page.wait_for_load_state("load")  # htmx has wired the buttons
    return url


# the deal of tests/szaman_deal.py, entered here by taps


SWAPPING = re.compile(r"htmx-(added|settling)")


def settled(page):
    """htmx wires a swapped-in panel's buttons when it settles, a moment after the swap."""
    expect(page.locator(PANEL)).not_to_have_class(SWAPPING)


def tap(page, taps, selector: str):
    """Tap a control of the panel and wait for the server's answer (a new draft version)."""
    settled(page)
    version = page.locator(PANEL).get_attribute("data-version")
    taps(f"{PANEL} {selector}")
    expect(page.locator(PANEL)).not_to_have_attribute("data-version", version)
    settled(page)


def seat(name: str) -> int:
    return NAMES.index(name)


def enter_left(page, taps):
    """The cards still held: each player's hand closes by itself once it has the cards
    the app expects; Adam's hand ran out, so he is not asked."""
    for name in NAMES:
        row = page.locator(f'.sz-held li[data-seat="{seat(name)}"]')
        if "done" in (row.get_attribute("class") or ""):
            continue
        expect(page.locator(f"{PANEL} h4.sz-ask")).to_contain_text(name)
        for card in LEFT[name]:
            tap(page, taps, f'.pick[data-card="{card}"]')
        if "current" in (row.get_attribute("class") or ""):
            tap(page, taps, ".sz-done")


def save(page, taps, deal_no: int):
    taps(f"{PANEL} .sz-save")
    expect(page.locator(PANEL)).to_contain_text(f"Deal {deal_no + 1} of 6")
    expect(page.locator("#board .flash.ok")).to_contain_text(f"Deal {deal_no} saved.")


def test_a_full_deal_card_by_card_with_a_reload_and_a_second_phone(
    page, browser, live_server, taps, shots, console_errors
):
    url = open_table(page, live_server, NAMES)
    expect(page.locator(PANEL)).to_contain_text("Deal 1 of 6")
    expect(page.locator(PANEL)).to_contain_text("who leads?")
    shots(page, "szaman-lead")
    assert_inside_viewport(page)
    other_context = phone_context(browser)
    other = other_context.new_page()
    other.goto(url)

    tap(page, taps, f'[data-op="lead"][data-seat="{seat(FULL_DEAL[0][0][0])}"]')
    for i, plays in enumerate(FULL_DEAL):
        if i == 4:
            # a reload in the middle of the deal continues the draft where it stopped
            page.reload()
            expect(page.locator(PANEL)).to_contain_text("Trick 5: Zosia plays")
        for j, (name, card) in enumerate(plays):
            if i == 5 and j == 0:
                # the second phone sees the draft and enters this card itself
                expect(other.locator(PANEL)).to_contain_text("Trick 6: Zosia plays")
                tap(other, taps, f'.pick[data-card="{card}"]')
                expect(page.locator(PANEL)).to_contain_text("Trick 6: Adam plays", timeout=3000)
                continue
            expect(page.locator(f"{PANEL} .sz-ask")).to_contain_text(f"{name} plays")
            tap(page, taps, f'.pick[data-card="{card}"]')
            if i == 0 and j == 1:
                shots(page, "szaman-full-picker")
                assert_inside_viewport(page)
            if j == 0 and i in JOKER_SUITS:
                expect(page.locator(f"{PANEL} .sz-ask")).to_contain_text("which suit")
                shots(page, "szaman-joker-suit")
                tap(page, taps, f'[data-suit="{JOKER_SUITS[i]}"]')
        if i < len(FULL_DEAL) - 1:
            # the winner and points show as soon as the trick is complete
            preview = api.evaluate("szaman-deal", full_request(left=dict.fromkeys(NAMES, [])))
            winner = preview["tricks"][i]["winner"]
            expect(page.locator(f"{PANEL} .sz-last")).to_contain_text(f"Trick {i + 1}: {winner}")
            if i == 1:
                expect(page.locator(f"{PANEL} .sz-last")).to_contain_text("Ola +19")
                shots(page, "szaman-trick-won")
    expect(page.locator(PANEL)).to_have_attribute("data-step", "end")
    # the other phone follows without a reload
    expect(other.locator(PANEL)).to_have_attribute("data-step", "end", timeout=3000)
    shots(page, "szaman-full-end")
    assert_inside_viewport(page)
    enter_left(page, taps)
    expect(page.locator(PANEL)).to_contain_text("21 → −3")
    expect(page.locator(PANEL)).to_contain_text("34 → −4")
    shots(page, "szaman-full-ready")
    assert_inside_viewport(page)
    save(page, taps, 1)
    expected = api.evaluate("szaman-deal", full_request())["totals"]
    assert totals(page) == expected
    expect(other.locator(PANEL)).to_contain_text("Deal 2 of 6", timeout=3000)
    assert totals(other) == expected
    shots(page, "szaman-full-saved")
    assert_inside_viewport(page)
    print(f"\nszaman full mode: {taps.count} taps for a {len(FULL_DEAL)}-trick deal of 4 players")
    other_context.close()


def test_a_quick_deal_a_tap_or_two_a_trick(page, live_server, taps, shots, console_errors):
    open_table(page, live_server, NAMES)
    tap(page, taps, '[data-mode="quick"]')
    shots(page, "szaman-quick")
    assert_inside_viewport(page)
    for i, (winner, specials, off) in enumerate(QUICK_DEAL):
        expect(page.locator(f"{PANEL} .sz-ask")).to_contain_text(f"Trick {i + 1}")
        for name in specials:
            tap(page, taps, f'[data-special="{name}"]')
        for name in off:
            tap(page, taps, f'[data-off="{seat(name)}"]')
        if i == 1:
            shots(page, "szaman-quick-toggles")
        tap(page, taps, f'[data-op="winner"][data-seat="{seat(winner)}"]')
        if i < len(QUICK_DEAL) - 1:
            expect(page.locator(f"{PANEL} .sz-last")).to_contain_text(f"{winner} wins")
    trick_taps = taps.count
    expect(page.locator(PANEL)).to_have_attribute("data-step", "end")
    enter_left(page, taps)
    shots(page, "szaman-quick-ready")
    save(page, taps, 1)
    expected = api.evaluate("szaman-deal", quick_request())["totals"]
    assert totals(page) == expected
    assert expected == api.evaluate("szaman-deal", full_request())["totals"]
    per_trick = taps.count / len(QUICK_DEAL)
    print(
        f"\nszaman quick mode: {trick_taps} taps for {len(QUICK_DEAL)} tricks "
        f"(mode switch included), {taps.count} with the held cards and the save: "
        f"{per_trick:.2f} taps a trick"
    )
    assert per_trick <= 4
    # the next deal starts quick again: a plain trick is one tap
    tap(page, taps, '[data-op="winner"][data-seat="0"]')
    expect(page.locator(f"{PANEL} .sz-last")).to_contain_text("Trick 1: Ola wins")
    tap(page, taps, ".sz-undo")
    expect(page.locator(f"{PANEL} .sz-last")).to_have_count(0)
    assert_inside_viewport(page)


def test_the_watch_link_shows_the_deal_read_only(
    page, browser, live_server, taps, shots, console_errors
):
    open_table(page, live_server, NAMES[:3], {"szaman-variant": "russian"})
    tap(page, taps, '[data-op="lead"][data-seat="0"]')
    tap(page, taps, '.pick[data-card="2C"]')
    watch_url = page.locator("[data-copy]").last.get_attribute("data-copy")
    context = phone_context(browser, color_scheme="dark")
    watcher = context.new_page()
    watcher.goto(watch_url)
    expect(watcher.locator(PANEL)).to_contain_text("Trick 1: Piotr plays")
    expect(watcher.locator(f"{PANEL} button")).to_have_count(0)
    tap(page, taps, '.pick[data-card="KC"]')
    expect(watcher.locator(PANEL)).to_contain_text("Trick 1: Zosia plays", timeout=3000)
    shots(watcher, "szaman-watch-dark")
    assert_inside_viewport(watcher)
    context.close()
