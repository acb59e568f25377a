"""The Szaman screen by taps at 390×844: a whole 4-player deal in full mode (card by
card, a joker lead, the cards still held) and the same deal in quick mode, both checked
against the engine; a reload in the middle of the deal continues the draft, and a
second phone sees it and carries on; Edit of a saved deal changing one card; a card
tap whose answer is lost, tapped again; two phones entering two players' cards at
once. Taps are counted and printed."""

from __future__ import annotations

import re

from playwright.sync_api import expect
from szaman_deal import FULL_DEAL, JOKER_SUITS, LEFT, NAMES, QUICK_DEAL, full_request, quick_request

from scorekeeper import api
from scorekeeper.cards import card_symbol

from .conftest import assert_inside_viewport, phone_context, start_table, totals
from .test_accessibility import sideways_overflow, spilled_text

PANEL = "#szaman-panel"
POLL = re.compile(r"/live\?v=")  # the table's poll


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
    """Tap a control of the panel (one this phone shows) and wait for the server's
    answer to it (not the poll's, which another phone's tap also changes the version
    by) and the new draft version it brings."""
    settled(page)
    version = page.locator(PANEL).get_attribute("data-deal-version")
    with page.expect_response(lambda r: r.request.method == "POST" and not POLL.search(r.url)):
        taps(f"{PANEL} {selector}:visible")
    expect(page.locator(PANEL)).not_to_have_attribute("data-deal-version", version)
    settled(page)


def ask(page):
    """The question this phone shows."""
    return page.locator(f"{PANEL} .sz-ask:visible").first


def seat(name: str) -> int:
    return NAMES.index(name)


def enter_left(page, taps):
    """The cards still held: each player's hand closes by itself once it has the cards
    the app expects; Adam's hand ran out, so he is not asked."""
    for name in NAMES:
        row = page.locator(f'.sz-held li[data-seat="{seat(name)}"]')
        if "done" in (row.get_attribute("class") or ""):
            continue
        expect(page.locator(f"{PANEL} h4.sz-ask:visible")).to_contain_text(name)
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
                other_taps = type(taps)(other)
                tap(other, other_taps, f'.pick[data-card="{card}"]')
                taps.count += other_taps.count  # the deal's taps, whichever phone made them
                expect(page.locator(PANEL)).to_contain_text("Trick 6: Adam plays")
                continue
            expect(ask(page)).to_contain_text(f"{name} plays")
            tap(page, taps, f'.pick[data-card="{card}"]')
            if i == 0 and j == 1:
                shots(page, "szaman-full-picker")
                assert_inside_viewport(page)
            if j == 0 and i in JOKER_SUITS:
                expect(ask(page)).to_contain_text("which suit")
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
    expect(other.locator(PANEL)).to_have_attribute("data-step", "end")
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
    expect(other.locator(PANEL)).to_contain_text("Deal 2 of 6")
    assert totals(other) == expected
    shots(page, "szaman-full-saved")
    assert_inside_viewport(page)
    print(f"\nszaman full mode: {taps.count} taps for a {len(FULL_DEAL)}-trick deal of 4 players")
    other_context.close()


def test_a_quick_deal_a_tap_or_two_a_trick(page, live_server, taps, shots, console_errors):
    open_table(page, live_server, NAMES)
    taps(f'{PANEL} [data-mode="quick"]')  # this phone's own view: nothing is sent
    expect(page.locator(f"{PANEL} .sz-quick")).to_be_visible()
    expect(page.locator(f"{PANEL} .sz-full")).to_be_hidden()
    shots(page, "szaman-quick")
    assert_inside_viewport(page)
    for i, (winner, specials, off) in enumerate(QUICK_DEAL):
        expect(ask(page)).to_contain_text(f"Trick {i + 1}")
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
    expect(watcher.locator(PANEL)).to_contain_text("Trick 1: Zosia plays")
    shots(watcher, "szaman-watch-dark")
    assert_inside_viewport(watcher)
    context.close()


def enter_quick_deal(page, taps):
    taps(f'{PANEL} [data-mode="quick"]')
    for winner, specials, off in QUICK_DEAL:
        for name in specials:
            tap(page, taps, f'[data-special="{name}"]')
        for name in off:
            tap(page, taps, f'[data-off="{seat(name)}"]')
        tap(page, taps, f'[data-op="winner"][data-seat="{seat(winner)}"]')
    expect(page.locator(PANEL)).to_have_attribute("data-step", "end")


def test_edit_of_a_saved_deal_changes_one_card(page, live_server, taps, shots, console_errors):
    """Open the history, Edit the saved deal: its taps come back with every card as it
    was; change one of Zosia's cards and save: one new entry supersedes it, the totals
    follow; undo of the edit brings the old deal back."""
    url = open_table(page, live_server, NAMES)
    enter_quick_deal(page, taps)
    enter_left(page, taps)
    save(page, taps, 1)
    before = api.evaluate("szaman-deal", quick_request())["totals"]
    assert totals(page) == before
    page.goto(url + "/history")
    taps("form.reopen button")
    expect(page.locator(PANEL)).to_contain_text("Changing round 1")
    expect(page.locator(PANEL)).to_have_attribute("data-step", "end")
    expect(page.locator(f'{PANEL} .sz-held li[data-seat="{seat("Zosia")}"]')).to_contain_text(
        "34 → −4"
    )
    shots(page, "szaman-edit-open")
    assert_inside_viewport(page)
    taps(f'{PANEL} .sz-held li[data-seat="{seat("Zosia")}"] .sz-change')  # her cards, here only
    expect(page.locator(f"{PANEL} h4.sz-ask:visible")).to_contain_text("Zosia")
    tap(page, taps, '.pick[data-card="AS"]')  # AS out of her hand …
    tap(page, taps, '.pick[data-card="3S"]')  # … 3S in
    expect(page.locator(f'{PANEL} .sz-held li[data-seat="{seat("Zosia")}"]')).to_contain_text(
        "23 → −3"
    )
    taps(f"{PANEL} .sz-save")
    expect(page.locator("#board .flash.ok")).to_contain_text("Deal 1 changed.")
    expect(page.locator(PANEL)).to_contain_text("Deal 2 of 6")
    after = {**before, "Zosia": before["Zosia"] + 1}
    assert totals(page) == after
    # the history keeps both: the old one replaced, the new one live
    expect(page.locator("#history li.round")).to_have_count(1)
    expect(page.locator("#history")).to_contain_text("edited")
    shots(page, "szaman-edit-saved")
    taps('#history li.round button:text("Undo")')
    taps('#history li.round button:text("Tap again to undo")')  # the confirming tap
    expect(page.locator("#board .flash.ok")).to_contain_text("Round 1: the change undone")
    expect(page.locator("#standings")).to_contain_text(str(before["Zosia"]))
    assert totals(page) == before


def test_a_card_tap_whose_answer_is_lost_tapped_again_ends_right(page, live_server, taps):
    """The server takes the tap but its answer never arrives: the page says so, and the
    same button tapped again is the same tap (its id), applied once. (The lost answer
    is a console error by design: only the page's own errors are checked.)"""
    page_errors: list[str] = []
    page.on("pageerror", lambda exc: page_errors.append(str(exc)))
    open_table(page, live_server, NAMES)
    tap(page, taps, f'[data-op="lead"][data-seat="{seat("Ola")}"]')
    dropped = []

    def take_it_then_drop_the_answer(route):
        if not dropped:
            route.fetch()  # the server has it …
            dropped.append(route.request.post_data)
            route.abort()  # … the phone never hears back
        else:
            dropped.append(route.request.post_data)
            route.continue_()

    page.route("**/szaman/tap", take_it_then_drop_the_answer)
    # meanwhile the poll hears of nothing (else it could redraw the panel first)
    page.route(POLL, lambda route: route.fulfill(status=200, body=""))
    settled(page)
    taps(f'{PANEL} .pick[data-card="2C"]:visible')
    expect(page.locator("#net-status")).to_be_visible()
    expect(page.locator(PANEL)).to_contain_text("Trick 1: Ola plays")  # nothing came back
    # tapped again: the button keeps its tap id, so the server answers the deal as is
    tap(page, taps, '.pick[data-card="2C"]')
    expect(ask(page)).to_contain_text("Trick 1: Piotr plays")
    expect(page.locator("#net-status")).to_be_hidden()
    tap_ids = [re.search(r"tap_id=(\w+)", body).group(1) for body in dropped]
    assert len(tap_ids) == 2 and tap_ids[0] == tap_ids[1]  # the same tap, sent twice
    page.unroute("**/szaman/tap")
    page.unroute(POLL)
    tap(page, taps, '.pick[data-card="KC"]')
    expect(page.locator(f"{PANEL} .sz-plays")).to_contain_text("2♣")
    expect(page.locator(f"{PANEL} .sz-plays li strong")).to_have_count(2)  # 2♣ once, K♣
    page.reload()
    expect(page.locator(f"{PANEL} .sz-plays li strong")).to_have_count(2)
    assert page_errors == []


def zosia_on_a_second_phone(page, browser, live_server, taps):
    """A quick deal entered on this phone up to the cards still held; a second phone
    opens Zosia's. Returns its context, page and tap counter."""
    url = open_table(page, live_server, NAMES)
    enter_quick_deal(page, taps)
    other_context = phone_context(browser)
    other = other_context.new_page()
    other.goto(url)
    other.wait_for_load_state("load")
    other_taps = type(taps)(other)
    other_taps(f'{PANEL} .sz-held li[data-seat="{seat("Zosia")}"] .sz-change')
    expect(other.locator(f"{PANEL} h4.sz-ask:visible")).to_contain_text("Zosia")
    return other_context, other, other_taps


def test_two_phones_enter_two_players_cards_at_once(
    page, browser, live_server, taps, shots, console_errors
):
    """At the end of the deal phone A enters Ola's cards while phone B enters Zosia's:
    each phone keeps the player it opened, whatever the other taps."""
    other_context, other, other_taps = zosia_on_a_second_phone(page, browser, live_server, taps)
    expect(page.locator(f"{PANEL} h4.sz-ask:visible")).to_contain_text("Ola")
    for ola, zosia in zip(LEFT["Ola"], LEFT["Zosia"], strict=True):
        tap(page, taps, f'.pick[data-card="{ola}"]')
        # phone B's answer to its own tap brings A's card too: B stays on Zosia
        expect(other.locator(f"{PANEL} h4.sz-ask:visible")).to_contain_text("Zosia")
        tap(other, other_taps, f'.pick[data-card="{zosia}"]')
    shots(other, "szaman-two-phones")
    expect(page.locator(f'{PANEL} .sz-held li[data-seat="{seat("Ola")}"]')).to_contain_text("−3")
    expect(page.locator(f'{PANEL} .sz-held li[data-seat="{seat("Zosia")}"]')).to_contain_text(
        "34 → −4"
    )
    expect(page.locator(f"{PANEL} h4.sz-ask:visible")).to_contain_text("Piotr")
    tap(page, taps, '.pick[data-card="KS"]')
    save(page, taps, 1)
    assert totals(page) == api.evaluate("szaman-deal", quick_request())["totals"]
    other_context.close()


def test_a_press_the_poll_redraws_under_still_taps_what_was_pressed(
    page, browser, live_server, taps, console_errors
):
    """Phone B presses a card while its poll brings phone A's tap: the panel under the
    finger is not redrawn until it lifts, so the press is the tap it was (a press that
    ends on a redrawn button is no click at all)."""
    other_context, other, other_taps = zosia_on_a_second_phone(page, browser, live_server, taps)
    zosia, ola = LEFT["Zosia"][0], LEFT["Ola"][0]
    card = other.locator(f'{PANEL} .pick[data-card="{zosia}"]:visible')
    settled(other)
    card.scroll_into_view_if_needed()
    box = card.bounding_box()
    other.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    other.mouse.down()
    # phone A's tap, brought to B by B's poll while B's finger is down
    with other.expect_response(lambda r: "/live" in r.url and r.status == 200):
        tap(page, taps, f'.pick[data-card="{ola}"]')
    other.mouse.up()
    row = f'{PANEL} .sz-held li[data-seat="{seat("Zosia")}"]'
    expect(page.locator(row)).to_contain_text(card_symbol(zosia))
    expect(other.locator(row)).to_contain_text(card_symbol(zosia))
    expect(other.locator(f'{PANEL} .sz-held li[data-seat="{seat("Ola")}"]')).to_contain_text(
        card_symbol(ola)
    )
    other_context.close()


def test_what_a_phone_opened_stays_open_through_taps(page, live_server, taps, console_errors):
    """The list of tricks opened on this phone stays open when a tap's answer redraws
    the panel, and the quick entry chosen here stays chosen; neither is in the deal."""
    open_table(page, live_server, NAMES)
    taps(f'{PANEL} [data-mode="quick"]')
    tap(page, taps, f'[data-op="winner"][data-seat="{seat("Piotr")}"]')
    page.locator(f"{PANEL} .sz-tricks summary").tap()
    expect(page.locator(f"{PANEL} .sz-tricks")).to_have_attribute("open", "")
    tap(page, taps, f'[data-op="winner"][data-seat="{seat("Ola")}"]')
    expect(page.locator(f"{PANEL} .sz-tricks")).to_have_attribute("open", "")
    expect(page.locator(f"{PANEL} .sz-quick")).to_be_visible()
    page.reload()
    expect(page.locator(f"{PANEL} .sz-tricks")).to_have_attribute("open", "")
    expect(page.locator(f"{PANEL} .sz-quick")).to_be_visible()


def test_the_lead_hint_and_the_hand_size_warning_read_as_sentences(
    page, live_server, taps, console_errors
):
    """The first-lead hint lists the engine's order (RULES §2); a hand closed short is
    told as a sentence a player understands."""
    open_table(page, live_server, ["Ola", "Piotr"])
    hint = page.locator(f"{PANEL} .sz-lead-hint")
    expect(hint).to_be_visible()
    text = hint.inner_text()
    assert "club" not in text
    assert (
        text.index("2♣") < text.index("2♦") < text.index("2♥") < text.index("2♠") < text.index("3♣")
    )
    tap(page, taps, '[data-op="lead"][data-seat="0"]')
    for card in ("2S", "3S"):
        tap(page, taps, f'.pick[data-card="{card}"]')
    tap(page, taps, '[data-op="end"]')
    tap(page, taps, '[data-done-seat="0"]')
    tap(page, taps, '[data-done-seat="1"]')
    warning = page.locator(f"{PANEL} .sz-warning").first
    expect(warning).to_contain_text("Ola should have 7 cards left at the end of this deal")
    expect(warning).to_contain_text("but none are entered.")
    assert_inside_viewport(page)


def test_the_watch_phone_states_the_trick_never_asks(
    page, browser, live_server, taps, console_errors
):
    """A watcher cannot answer: the watch phone states the trick being played ("Trick 1
    about to be led", "Trick 2 being played"), never asks who leads or who won it."""
    open_table(page, live_server, ["Ola", "Piotr", "Zosia"])
    watch_url = page.locator("[data-copy]").last.get_attribute("data-copy")
    context = phone_context(browser)
    watcher = context.new_page()
    watcher.goto(watch_url)
    asking = watcher.locator(f"{PANEL} h3:visible, {PANEL} h4:visible", has_text="?")
    expect(watcher.locator(PANEL)).to_contain_text("Trick 1 about to be led")
    expect(asking).to_have_count(0)
    taps(f'{PANEL} [data-mode="quick"]')
    tap(page, taps, '[data-op="winner"][data-seat="1"]')
    expect(watcher.locator(PANEL)).to_contain_text("Trick 1: Piotr wins")
    watcher.locator(f'{PANEL} [data-mode="quick"]').tap()  # what a watcher may choose to see
    expect(watcher.locator(f"{PANEL} .sz-quick")).to_contain_text("Trick 2 being played")
    expect(watcher.locator(f"{PANEL} .sz-quick")).to_contain_text("Piotr leads.")
    expect(asking).to_have_count(0)
    assert_inside_viewport(watcher)
    context.close()


LONG = ["Grzegorz Brzęczyszczykiewicz", "Aleksandar", "Šćepan Šćepanović"]


def test_a_tricks_points_with_long_names_stay_on_the_screen(
    page, live_server, taps, console_errors
):
    """A trick that scores two players lists "Name +1" and "Name −2" as two pieces that
    each stay whole: with a long name they go on two lines instead of pushing the
    tricks list (and the page) sideways past 390 px."""
    open_table(page, live_server, LONG)
    taps(f'{PANEL} [data-mode="quick"]')
    tap(page, taps, '[data-op="winner"][data-seat="0"]')
    tap(page, taps, '[data-off="1"]')
    tap(page, taps, '[data-op="winner"][data-seat="0"]')
    last = page.locator(f"{PANEL} .sz-last")
    expect(last).to_contain_text("Trick 2: Grzegorz Brzęczyszczykiewicz wins")
    expect(last).to_contain_text("Aleksandar −2")
    page.locator(f"{PANEL} .sz-tricks summary").tap()
    expect(page.locator(f'{PANEL} .sz-trick-list li[data-trick="2"]')).to_be_visible()
    assert_inside_viewport(page, f"{PANEL} .sz-trick-list li, {PANEL} .sz-pts")


def test_a_card_of_an_earlier_trick_is_changed_with_two_taps(
    page, zoomed, live_server, taps, shots, console_errors
):
    """Adam's 9♣ of trick 1 was the 6♣, noticed at trick 4: open the tricks, tap his
    card, tap the right one. The tricks after it stay; a card that would give the trick
    to another player is refused, saying why."""
    open_table(page, live_server, NAMES)
    tap(page, taps, f'[data-op="lead"][data-seat="{seat(FULL_DEAL[0][0][0])}"]')
    for i, plays in enumerate(FULL_DEAL[:3]):
        for j, (_name, card) in enumerate(plays):
            tap(page, taps, f'.pick[data-card="{card}"]')
            if j == 0 and i in JOKER_SUITS:
                tap(page, taps, f'[data-suit="{JOKER_SUITS[i]}"]')
    expect(ask(page)).to_contain_text("Trick 4")
    taps(f"{PANEL} .sz-tricks > summary")
    taps(f'{PANEL} [data-change="1-{seat("Adam")}"]')
    choices = page.locator(f"{PANEL} .sz-trick-choices")
    expect(choices).to_contain_text("Trick 1: the card Adam played")
    expect(choices.locator('.pick[data-card="9C"]')).to_have_attribute("aria-pressed", "true")
    expect(choices.locator('.pick[data-card="KC"]')).to_be_disabled()  # Piotr's, trick 1
    shots(page, "szaman-change-card")
    assert_inside_viewport(page)
    # zoomed in (195 CSS px), the tricks' cards and the choices stay on the screen
    zoomed.goto(page.url)
    zoomed.locator(f"{PANEL} .sz-tricks > summary").click()
    zoomed.locator(f'{PANEL} [data-change="1-{seat("Adam")}"]').click()
    expect(zoomed.locator(f"{PANEL} .sz-trick-choices .pick").first).to_be_visible()
    assert sideways_overflow(zoomed) == []
    assert spilled_text(zoomed, f"{PANEL} .sz-trick-card, {PANEL} .sz-trick-choices summary") == []
    # another trick's card: its choices replace the first one's (one open at a time)
    taps(f'{PANEL} [data-change="2-{seat("Zosia")}"]')
    expect(page.locator(f"{PANEL} .sz-trick-choices")).to_contain_text("Trick 2: the card Zosia")
    expect(page.locator(f"{PANEL} .sz-trick-choices")).to_have_count(1)
    taps(f'{PANEL} [data-change="1-{seat("Adam")}"]')
    expect(page.locator(f"{PANEL} .sz-trick-choices")).to_contain_text("Trick 1: the card Adam")
    expect(page.locator(f"{PANEL} .sz-trick-choices")).to_have_count(1)
    tap(page, taps, '.sz-trick-choices .pick[data-card="6C"]')
    trick_one = page.locator(f'{PANEL} .sz-trick-list li[data-trick="1"]')
    expect(trick_one).to_contain_text("Adam 6♣")
    expect(page.locator(f"{PANEL} .sz-trick-choices")).to_have_count(0)
    expect(ask(page)).to_contain_text("Trick 4")  # the tricks after it stay
    expect(page.locator(f"{PANEL} .sz-tricks > summary")).to_contain_text("3 tricks")
    # the ace would win trick 1 for Ola: refused, nothing changes
    taps(f'{PANEL} [data-change="1-{seat("Ola")}"]')
    settled(page)
    taps(f'{PANEL} .sz-trick-choices .pick[data-card="AC"]')
    expect(page.locator(f"{PANEL} [role=alert]")).to_contain_text("Ola would win trick 1")
    expect(trick_one).to_contain_text("Ola 2♣")


def test_a_refused_tap_brings_its_message_into_view(page, live_server, taps, console_errors):
    """A refusal heads the panel, far above a card picker a player has scrolled down to:
    the message is brought into view (as little as needed), so the tap is not seen to
    do nothing."""
    open_table(page, live_server, ["Ola", "Piotr"])
    tap(page, taps, '[data-op="lead"][data-seat="0"]')
    for card in ("2S", "3S"):
        tap(page, taps, f'.pick[data-card="{card}"]')
    tap(page, taps, '[data-op="end"]')
    tap(page, taps, '.pick[data-card="4D"]')  # Ola holds 4♦
    taps(f'{PANEL} .sz-change[data-view-set="1"]')  # now Piotr's cards
    card = page.locator(f'{PANEL} .pick[data-card="9S"]:visible')
    card.evaluate("(el) => el.scrollIntoView({block: 'center'})")  # scrolled down to the cards
    assert (
        page.locator(f"{PANEL} .sz-held").evaluate("(el) => el.getBoundingClientRect().bottom") < 72
    )
    version = page.locator(PANEL).get_attribute("data-deal-version")
    taps(f'{PANEL} .pick[data-card="9S"]:visible')  # every player would hold cards: refused
    refusal = page.locator(f"{PANEL} [role=alert]")
    expect(refusal).to_contain_text("no cards left")
    assert page.locator(PANEL).get_attribute("data-deal-version") == version  # nothing stored
    expect(refusal).to_be_in_viewport()
    top = refusal.evaluate("(el) => el.getBoundingClientRect().top")
    bar = page.locator("header").first.evaluate("(el) => el.getBoundingClientRect().bottom")
    assert top >= bar - 1, (top, bar)  # not under the page's top bar
