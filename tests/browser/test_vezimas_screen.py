"""Vežimas at a phone (390×844, touch): trumps from the Q♣ holder, a beat refused by the
next-player rule (case 2), the same answer once that player is out (case 3), the whole
hand, two deals' carts tallied, and a second phone on the watch link following along."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .conftest import ARTIFACTS, Taps, assert_inside_viewport, phone_context, start_table, totals

NAMES = ["Asta", "Jonas", "Rūta", "Tomas"]


def pick(group: str, what: str) -> str:
    attr = "data-card" if re.fullmatch(r"(10|[9JQKA])[SHDC]", what) else "data-player"
    return f'[aria-label="{group}"] [{attr}="{what}"]'


def tap_and_wait(page, taps, selector: str):
    """One tap; the panel comes back with it pressed (it is a server-side draft)."""
    taps(selector)
    expect(page.locator(selector)).to_have_attribute("aria-pressed", "true")


def test_a_vezimas_deal_case_two_refusal_and_the_cart_tally(
    page, browser, live_server, taps, shots, console_errors
):
    start_table(page, live_server, "vezimas", NAMES)
    watch_url = page.locator("[data-copy]").last.get_attribute("data-copy")
    watcher_context = phone_context(browser)
    watcher = watcher_context.new_page()
    watcher.goto(watch_url)
    shots(page, "vezimas-trumps-setup")
    assert_inside_viewport(page)

    # trumps: Jonas holds Q♣ → Jonas ♣, Rūta ♠, Tomas ♥, Asta ♦ (V-D1); Jonas leads
    tap_and_wait(page, taps, pick("Who holds the queen of clubs", "Jonas"))
    taps(".vz-save-trumps")
    trumps = page.locator(".vz-trumps")
    expect(trumps).to_contain_text("Jonas leads")
    for name, suit in (("Jonas", "♣"), ("Rūta", "♠"), ("Tomas", "♥"), ("Asta", "♦")):
        expect(trumps.locator(f'li[data-player="{name}"] .vz-suit')).to_have_text(suit)
    trump_taps = taps.count
    expect(watcher.locator(".vz-trumps")).to_contain_text("Jonas leads")

    # Asta led 9♠; Jonas answers, Rūta (♠) plays next: case 2 — a higher spade does not do
    start = taps.count
    tap_and_wait(page, taps, pick("Top card", "9S"))
    tap_and_wait(page, taps, pick("Whose turn", "Jonas"))
    tap_and_wait(page, taps, pick("Their card", "10S"))
    check_taps = taps.count - start
    verdict = page.locator("#vz-verdict")
    expect(verdict).to_have_class("verdict no")
    expect(verdict).to_have_attribute("data-case", "2")
    expect(verdict).to_contain_text("Does not beat it")
    expect(verdict).to_contain_text("9♠ is the trump of Rūta, the next player")
    expect(verdict).to_be_in_viewport()  # the answer stays in sight under the picker
    shots(page, "vezimas-case-2-refused")
    # what the phone shows at that moment (the full-page shot hides the sticky answer)
    page.screenshot(path=str(ARTIFACTS / "screenshots" / "vezimas-case-2-viewport.png"))
    assert_inside_viewport(page)
    # the watching phone sees the same question and answer
    expect(watcher.locator("#vz-verdict")).to_have_attribute("data-case", "2")
    expect(watcher.locator("#vz-verdict")).to_contain_text("Does not beat it")

    # any club beats it
    tap_and_wait(page, taps, pick("Their card", "9C"))
    expect(verdict).to_have_class("verdict yes")
    expect(verdict).to_contain_text("Beats it")

    # Rūta is out of cards: spades are free, Tomas plays next, 10♠ now beats 9♠ (case 3)
    tap_and_wait(page, taps, pick("Players out of cards", "Rūta"))
    tap_and_wait(page, taps, pick("Their card", "10S"))
    expect(verdict).to_have_class("verdict yes")
    expect(verdict).to_have_attribute("data-case", "3")
    expect(verdict).to_contain_text("♠ is free because Rūta is out")
    expect(page.locator(pick("Whose turn", "Rūta"))).to_be_disabled()

    # the whole hand: which of these beat 9♠?
    taps('[data-mode="hand"]')
    expect(page.locator('[data-mode="hand"]')).to_have_attribute("aria-pressed", "true")
    for card in ("JS", "KH", "QC"):
        tap_and_wait(page, taps, pick("Their hand", card))
    expect(verdict).to_contain_text("Beats it: J♠ Q♣")
    shots(page, "vezimas-whole-hand")

    # deal 1: Tomas keeps the last cards and gets the cart
    start = taps.count
    tap_and_wait(page, taps, pick("Who got the cart", "Tomas"))
    expect(page.locator(".vz-preview")).to_contain_text(
        "Tomas gets the cart and deals next; Asta leads."
    )
    taps(".vz-save-deal")
    expect(page.locator("#board .flash.ok")).to_contain_text("Round 1: Tomas got the cart.")
    cart_taps = taps.count - start
    assert totals(page) == {"Asta": 0, "Jonas": 0, "Rūta": 0, "Tomas": 1}
    expect(page.locator(".vz-trumps h2")).to_have_text("Round 2 · Tomas deals · Asta leads")
    # a new deal: nobody is out, no question pending
    expect(page.locator(".vz-seats li.vz-out")).to_have_count(0)
    expect(page.locator("#vz-verdict")).to_have_count(0)

    # deal 2: Asta gets the cart
    tap_and_wait(page, taps, pick("Who got the cart", "Asta"))
    taps(".vz-save-deal")
    expect(page.locator("#board .flash.ok")).to_contain_text("Round 2: Asta got the cart.")
    tally = {"Asta": 1, "Jonas": 0, "Rūta": 0, "Tomas": 1}
    assert totals(page) == tally
    assert list(totals(page))[:2] == ["Jonas", "Rūta"]  # fewest carts first
    expect(page.locator("#standings .badge.dealer")).to_have_count(1)
    expect(page.locator("#standings .who:has(.badge.dealer)")).to_contain_text("Asta")
    shots(page, "vezimas-two-deals")
    assert_inside_viewport(page)

    expect(watcher.locator('#history [data-round="2"]')).to_have_count(1)
    assert totals(watcher) == tally
    expect(watcher.locator("#vezimas-panel button")).to_have_count(0)
    shots(watcher, "vezimas-watch")
    assert_inside_viewport(watcher)

    # a reload keeps everything
    page.reload()
    assert totals(page) == tally
    expect(page.locator('.vz-trumps li[data-player="Jonas"] .vz-suit')).to_have_text("♣")
    watcher_context.close()
    print(
        f"\nvezimas taps: trumps {trump_taps}, one beat check {check_taps}, "
        f"deal result {cart_taps}, whole flow {taps.count}"
    )


def test_dark_mode_three_players(page, live_server, shots, console_errors):
    page.emulate_media(color_scheme="dark")
    start_table(page, live_server, "vezimas", ["Ola", "Piotr", "Zosia"])
    # 3 players: Q♣ → Piotr ♣, Zosia ♠, Ola ♥ (♦ is free); the 9♦ holder leads
    page.locator(pick("Who holds the queen of clubs", "Piotr")).tap()
    expect(page.locator(pick("Who holds the queen of clubs", "Piotr"))).to_have_attribute(
        "aria-pressed", "true"
    )
    page.locator(pick("Who holds the nine of diamonds", "Ola")).tap()
    expect(page.locator(".vz-save-trumps")).to_be_enabled()
    page.locator(".vz-save-trumps").tap()
    expect(page.locator(".vz-trumps")).to_contain_text("Ola leads")
    expect(page.locator(".vz-free")).to_contain_text("♦")
    # Zosia answers Q♥, Ola (♥) plays next: case 2, K♥ does not do
    for group, what in (("Top card", "QH"), ("Whose turn", "Zosia"), ("Their card", "KH")):
        page.locator(pick(group, what)).tap()
        expect(page.locator(pick(group, what))).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#vz-verdict")).to_have_attribute("data-case", "2")
    expect(page.locator("#vz-verdict")).to_have_class("verdict no")
    shots(page, "vezimas-dark")
    assert_inside_viewport(page)


def test_a_tap_the_moment_an_answer_lands_is_not_lost(page, live_server, console_errors):
    """The buttons of a swapped-in panel answer at once: a quick second tap (here in the
    very callback that sees the new panel) is sent, not dropped on an inert button."""
    start_table(page, live_server, "vezimas", NAMES)
    page.locator(pick("Who holds the queen of clubs", "Jonas")).tap()
    page.locator(".vz-save-trumps").tap()
    expect(page.locator(".vz-trumps")).to_contain_text("Jonas leads")
    top, jonas = pick("Top card", "9S"), pick("Whose turn", "Jonas")
    page.evaluate(
        """([top, jonas]) => {
            const watch = new MutationObserver(() => {
                // the answer to the first tap is in: the new panel shows 9♠ pressed
                if (!document.querySelector(top + '[aria-pressed="true"]')) return;
                watch.disconnect();
                document.querySelector(jonas).click();  // before the new panel is painted
            });
            watch.observe(document.body, {childList: true, subtree: true});
        }""",
        [top, jonas],
    )
    page.locator(top).tap()
    expect(page.locator(jonas)).to_have_attribute("aria-pressed", "true")
    expect(page.locator(top)).to_have_attribute("aria-pressed", "true")


def test_a_tap_answered_after_the_poll_redrew_the_panel_still_shows(
    page, browser, live_server, console_errors
):
    """Another phone changes the question; this phone's poll fetches the change while
    its own tap is on the way, and the poll's answer (older than the tap's) arrives
    first and redraws the panel. The tap's answer must still show, and stay shown."""
    scorer_url = start_table(page, live_server, "vezimas", NAMES)
    page.locator(pick("Who holds the queen of clubs", "Jonas")).tap()
    page.locator(".vz-save-trumps").tap()
    expect(page.locator(".vz-trumps")).to_contain_text("Jonas leads")
    other_context = phone_context(browser)
    other = other_context.new_page()
    other.goto(scorer_url)

    held: dict = {}

    def hold_first_poll_with_news(route):
        response = route.fetch()
        if "poll" not in held and response.body():
            held["poll"] = (route, response)
        else:
            route.fulfill(response=response)

    def hold_tap(route):
        held["tap"] = (route, route.fetch())

    page.route("**/live?v=*", hold_first_poll_with_news)
    page.route("**/vezimas/check/player", hold_tap)

    def wait_for(what: str):
        for _ in range(100):
            if what in held:
                return
            page.wait_for_timeout(50)
        raise AssertionError(f"no {what} request was held")

    top, jonas = pick("Top card", "9S"), pick("Whose turn", "Jonas")
    other.locator(top).tap()  # the other phone sets the top card
    expect(other.locator(top)).to_have_attribute("aria-pressed", "true")
    wait_for("poll")  # this phone's poll has the news (9♠, nobody's turn yet)
    page.locator(jonas).tap()
    wait_for("tap")  # stored on the server; its answer not yet delivered
    route, response = held["poll"]
    route.fulfill(response=response)  # the older answer lands first: the panel is redrawn
    expect(page.locator(top)).to_have_attribute("aria-pressed", "true")
    route, response = held["tap"]
    route.fulfill(response=response)
    expect(page.locator(jonas)).to_have_attribute("aria-pressed", "true")
    for _later in range(3):  # three polls later, still what the server holds
        with page.expect_response(lambda answer: "/live?" in answer.url):
            pass
    expect(page.locator(jonas)).to_have_attribute("aria-pressed", "true")
    expect(page.locator(top)).to_have_attribute("aria-pressed", "true")
    other_context.close()


def test_going_out_with_a_beat_leaves_nothing_to_beat(page, live_server, taps, console_errors):
    """V-D5: Jonas beats 9♠ with his last card and goes out; the screen then says
    Rūta has nothing to beat instead of asking for a beat."""
    start_table(page, live_server, "vezimas", NAMES)
    tap_and_wait(page, taps, pick("Who holds the queen of clubs", "Jonas"))
    taps(".vz-save-trumps")
    expect(page.locator(".vz-trumps")).to_contain_text("Jonas leads")
    tap_and_wait(page, taps, pick("Top card", "9S"))
    tap_and_wait(page, taps, pick("Whose turn", "Jonas"))
    tap_and_wait(page, taps, pick("Their card", "JC"))
    expect(page.locator("#vz-verdict")).to_have_class("verdict yes")
    tap_and_wait(page, taps, pick("Players out of cards", "Jonas"))
    note = page.locator("#vz-nothing")
    expect(note).to_contain_text("Nothing to beat: Rūta lays any card.")
    expect(page.locator("#vz-verdict")).to_have_count(0)
    expect(page.locator(".vz-nothing")).to_have_attribute("aria-pressed", "true")
    expect(page.locator(pick("Whose turn", "Rūta"))).to_have_attribute("aria-pressed", "true")
    assert_inside_viewport(page)


def test_the_last_player_holding_cards_is_proposed_for_the_cart(
    page, live_server, taps, console_errors
):
    """RULES §4 (V-D3): when Asta, Jonas and Rūta are out, the screen says Tomas gets
    the cart and marks his button; one tap and the save make it so."""
    start_table(page, live_server, "vezimas", NAMES)
    tap_and_wait(page, taps, pick("Who holds the queen of clubs", "Jonas"))
    taps(".vz-save-trumps")
    expect(page.locator(".vz-trumps")).to_contain_text("Jonas leads")
    for name in ("Asta", "Jonas", "Rūta"):
        tap_and_wait(page, taps, pick("Players out of cards", name))
    expect(page.locator(".vz-suggest")).to_have_text(
        "Tomas is the last one holding cards, so Tomas gets the cart."
    )
    suggested = page.locator(pick("Who got the cart", "Tomas"))
    expect(suggested).to_have_class(re.compile(r"\bsuggested\b"))
    tap_and_wait(page, taps, pick("Who got the cart", "Tomas"))
    expect(page.locator(".vz-suggest")).to_have_count(0)
    taps(".vz-save-deal")
    expect(page.locator("#board .flash.ok")).to_contain_text("Round 1: Tomas got the cart.")
    assert totals(page) == {"Asta": 0, "Jonas": 0, "Rūta": 0, "Tomas": 1}
    assert_inside_viewport(page)


def test_the_watch_phone_shows_no_prompt_it_cannot_answer(
    page, browser, live_server, taps, console_errors
):
    """Issue #24: the watch link shows the trumps, the question being checked and the
    cart as statements, never a question put to a phone that cannot answer it."""
    start_table(page, live_server, "vezimas", NAMES)
    watch_url = page.locator("[data-copy]").last.get_attribute("data-copy")
    watcher_context = phone_context(browser)
    watcher = watcher_context.new_page()
    watcher.goto(watch_url)
    panel = watcher.locator("#vezimas-panel")
    expect(panel).to_contain_text("The trumps are set at the first deal.")
    expect(panel).not_to_contain_text("?")
    tap_and_wait(page, taps, pick("Who holds the queen of clubs", "Jonas"))
    taps(".vz-save-trumps")
    expect(page.locator(".vz-trumps")).to_contain_text("Jonas leads")
    tap_and_wait(page, taps, pick("Top card", "9S"))
    expect(panel.locator(".vz-question [data-card='9S']")).to_have_count(1)
    expect(panel).to_contain_text("The beat check")
    expect(panel).to_contain_text("Round 1: the cart")
    expect(panel).not_to_contain_text("?")
    expect(page.locator("#vezimas-panel")).to_contain_text("whose turn?")  # the scorer is asked
    expect(panel.locator("button")).to_have_count(0)
    assert_inside_viewport(watcher)
    watcher_context.close()


def test_ending_the_game_keeps_the_round_number(page, live_server, taps, console_errors):
    """Ending is no round of its own: after one deal the end sits in round 1, and the
    history shows no round 2."""
    start_table(page, live_server, "vezimas", NAMES)
    tap_and_wait(page, taps, pick("Who holds the queen of clubs", "Jonas"))
    taps(".vz-save-trumps")
    tap_and_wait(page, taps, pick("Who got the cart", "Tomas"))
    taps(".vz-save-deal")
    expect(page.locator("#board .flash.ok")).to_contain_text("Round 1: Tomas got the cart.")
    taps(".end-game button")
    expect(page.locator(".end-game button")).to_have_text("Tap again to end the game")
    taps(".end-game button")
    expect(page.locator(".vz-over")).to_contain_text("The session is over.")
    expect(page.locator('#history [data-round="2"]')).to_have_count(0)
    expect(page.locator('#history [data-round="1"]').first).to_be_attached()
    expect(page.locator("#board")).not_to_contain_text("Round 2")


def test_a_beat_with_the_last_card_says_the_next_player_lays_without_beating(
    page, live_server, taps, console_errors
):
    """V-D5 at the moment it happens: Jonas's J♣ beats 9♠; one tap says it was his
    last card, and the screen tells Rūta she lays any card, nothing to beat."""
    start_table(page, live_server, "vezimas", NAMES)
    tap_and_wait(page, taps, pick("Who holds the queen of clubs", "Jonas"))
    taps(".vz-save-trumps")
    expect(page.locator(".vz-trumps")).to_contain_text("Jonas leads")
    tap_and_wait(page, taps, pick("Top card", "9S"))
    tap_and_wait(page, taps, pick("Whose turn", "Jonas"))
    tap_and_wait(page, taps, pick("Their card", "JC"))
    last = page.locator(".vz-last-card")
    expect(last).to_have_text("That was Jonas’s last card: Rūta lays without beating")
    expect(last).to_be_in_viewport()
    taps(".vz-last-card")
    expect(page.locator("#vz-nothing")).to_contain_text("Nothing to beat: Rūta lays any card.")
    expect(page.locator(pick("Players out of cards", "Jonas"))).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(page.locator(".vz-last-card")).to_have_count(0)
    assert_inside_viewport(page)


WORDS_BROKEN = """(selector) => {
    // a word of a name laid out on more than one line: broken inside the word
    const broken = [];
    for (const el of document.querySelectorAll(selector)) {
        const text = el.firstChild;
        if (!text || text.nodeType !== Node.TEXT_NODE) continue;
        for (const m of text.textContent.matchAll(/\\S+/g)) {
            const range = document.createRange();
            range.setStart(text, m.index);
            range.setEnd(text, m.index + m[0].length);
            const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
            if (tops.size > 1) broken.push(m[0]);
        }
    }
    return broken;
}"""


def test_common_long_names_stay_whole_on_the_player_buttons(page, live_server, console_errors):
    """Two player buttons to a row, each with its trump before the name: a ten-letter
    name (Małgorzata, Przemysław, Konstantinas) fits on its line, and a two-word name
    wraps between its words, never inside one."""
    names = ["Małgorzata", "Przemysław", "Aleksandar Petrović", "Konstantinas"]
    start_table(page, live_server, "vezimas", names)
    tap_and_wait(page, Taps(page), pick("Who holds the queen of clubs", "Przemysław"))
    page.locator(".vz-save-trumps").tap()
    expect(page.locator(".vz-trumps")).to_contain_text("Przemysław leads")
    expect(page.locator(pick("Whose turn", "Małgorzata"))).to_be_visible()
    assert page.evaluate(WORDS_BROKEN, ".vz-player .vz-name") == []
    assert_inside_viewport(page)


def tap_the_queen_holder(page, queen: str):
    """Tap who holds Q♣: the trumps' seat list shows, not saved yet."""
    tap_and_wait(page, Taps(page), pick("Who holds the queen of clubs", queen))
    expect(page.locator(".vz-setup .vz-seats li")).not_to_have_count(0)


def test_seat_names_wrap_between_words_with_the_full_name_as_title(
    page, zoomed, live_server, console_errors
):
    """Zoomed in (a 195 px page), two seats to a row broke every name inside a word
    ("Boja n", "Cec a"): the seats go one to a row, a name wraps between its words
    only, and each seat carries the whole name as its title; before and after the
    trumps are saved, at 390 px and zoomed in."""
    names = ["Ana Marija", "Bojan", "Ceca", "Dule Aleksandrović"]
    url = start_table(page, live_server, "vezimas", names)
    tap_the_queen_holder(page, "Bojan")
    for saved in (False, True):
        if saved:
            page.locator(".vz-save-trumps").tap()
            expect(page.locator(".vz-trumps")).to_contain_text("Bojan leads")
        zoomed.goto(url)
        seats = ".vz-trumps .vz-seats" if saved else ".vz-setup .vz-seats"
        for phone in (page, zoomed):
            expect(phone.locator(f"{seats} li")).to_have_count(4)
            for i, name in enumerate(names):
                expect(phone.locator(f"{seats} li").nth(i)).to_have_attribute("title", name)
            assert phone.evaluate(WORDS_BROKEN, f"{seats} .vz-name") == [], (saved, phone)
            assert_inside_viewport(phone)


SEAT_NAMES_CUT = """() => {
    // a seat's name whose first letter is cut off, or that overflows without an ellipsis
    const out = [];
    for (const li of document.querySelectorAll('.vz-seats li')) {
        const name = li.querySelector('.vz-name');
        const first = document.createRange();
        first.setStart(name.firstChild, 0); first.setEnd(name.firstChild, 1);
        const overflows = name.scrollWidth > name.clientWidth;
        if (first.getBoundingClientRect().left < li.getBoundingClientRect().left
            || (overflows && getComputedStyle(name).textOverflow !== 'ellipsis'))
            out.push(li.title);
    }
    return out;
}"""


def test_a_seat_name_too_long_for_its_row_shows_its_start_and_an_ellipsis(
    page, zoomed, live_server, console_errors
):
    """A single word wider than its seat is cut at its end, not broken onto lines of
    its own: "Brzęczyszczykiewicz" reads "Brzęczyszczy…", its title the whole name."""
    url = start_table(
        page, live_server, "vezimas", ["Brzęczyszczykiewicz", "Bojan", "Ceca", "Dule"]
    )
    tap_the_queen_holder(page, "Bojan")
    page.locator(".vz-save-trumps").tap()
    expect(page.locator(".vz-trumps")).to_contain_text("Bojan leads")
    zoomed.goto(url)
    for phone in (page, zoomed):
        long_name = phone.locator('.vz-seats li[title="Brzęczyszczykiewicz"] .vz-name')
        expect(long_name).to_be_visible()
        assert long_name.evaluate("n => n.scrollWidth > n.clientWidth")  # cut, at its end
        assert phone.evaluate(WORDS_BROKEN, ".vz-seats .vz-name") == []
        assert phone.evaluate(SEAT_NAMES_CUT) == []
        assert_inside_viewport(phone)


ROOM_LEFT = """() => {
    // the height between the sticky top bar and the answer bar (or the screen's end)
    const bar = document.querySelector('#vz-answer').getBoundingClientRect();
    const top = document.querySelector('.topbar').getBoundingClientRect();
    return {share: (Math.min(bar.top, innerHeight) - top.bottom) / innerHeight,
            stuck: Math.abs(bar.bottom - innerHeight) < 1};
}"""


def test_zoomed_in_the_answer_bar_leaves_the_cards_most_of_the_screen(
    page, zoomed, live_server, console_errors
):
    """At 200 % zoom (195×422 CSS px) the sticky answer bar took 147 px with no question
    yet and 314 px with a verdict: with the top bar, the cards had half the screen, then
    none. Zoomed in, it stays at the end of the check; at 390 px it stays stuck to the
    bottom of the screen while the cards scroll under it."""
    url = start_table(page, live_server, "vezimas", NAMES)
    tap_the_queen_holder(page, "Jonas")
    page.locator(".vz-save-trumps").tap()
    expect(page.locator(".vz-trumps")).to_contain_text("Jonas leads")

    def room_left(phone, picker: str) -> dict:
        phone.locator(f'[aria-label="{picker}"]').evaluate(
            "el => el.scrollIntoView({block: 'center'})"
        )
        return phone.evaluate(ROOM_LEFT)

    zoomed.goto(url)
    expect(zoomed.locator("#vz-answer")).to_contain_text("whose turn?")
    assert room_left(zoomed, "Top card")["share"] >= 0.6

    for group, what in (("Top card", "9S"), ("Whose turn", "Jonas"), ("Their card", "10S")):
        tap_and_wait(page, Taps(page), pick(group, what))
    expect(page.locator("#vz-verdict")).to_have_attribute("data-case", "2")
    zoomed.goto(url)
    expect(zoomed.locator("#vz-verdict")).to_have_attribute("data-case", "2")
    for picker in ("Top card", "Their card"):
        assert room_left(zoomed, picker)["share"] >= 0.6, picker
    assert_inside_viewport(zoomed)

    # at 390 px the bar and its verdict stay in sight under the pickers
    for picker in ("Top card", "Their card"):
        room = room_left(page, picker)
        assert room["stuck"] and room["share"] >= 0.6, (picker, room)
        expect(page.locator("#vz-verdict")).to_be_in_viewport()


NAMES_CUT = """(selector) => {
    // a name without its whole self as the title of what shows it, whose first letter
    // is cut off, that overflows without an ellipsis or that spills out of its box
    const out = [];
    for (const name of document.querySelectorAll(selector)) {
        const text = name.textContent;
        const box = name.closest('button, li, h2, .vz-next, p').getBoundingClientRect();
        const first = document.createRange();
        first.setStart(name.firstChild, 0); first.setEnd(name.firstChild, 1);
        if (name.closest('[title]')?.title !== text) out.push(`${text}: no title`);
        else if (first.getBoundingClientRect().left < box.left - 1) out.push(`${text}: start cut`);
        else if (name.scrollWidth > name.clientWidth
                 && getComputedStyle(name).textOverflow !== 'ellipsis')
            out.push(`${text}: cut without an ellipsis`);
        else if (name.getBoundingClientRect().right > box.right + 1) out.push(`${text}: spills`);
    }
    return out;
}"""

LONG_NAMES = ["Ana Marija", "Bojan", "Brzęczyszczykiewicz", "Dule Aleksandrović"]


def names_kept_whole(phone, selector: str):
    """Every name of `selector` wraps between its words only, a word too long for its
    place ends in an ellipsis, its title the whole name; nothing overflows sideways."""
    assert phone.evaluate(WORDS_BROKEN, selector) == [], (selector, phone.viewport_size)
    assert phone.evaluate(NAMES_CUT, selector) == [], (selector, phone.viewport_size)
    assert_inside_viewport(phone, "#vezimas-panel *")


def is_cut(phone, selector: str) -> bool:
    return phone.locator(selector).evaluate("n => n.scrollWidth > n.clientWidth")


def test_player_buttons_keep_names_whole_and_cut_a_too_long_word(
    page, zoomed, live_server, console_errors
):
    """Zoomed in, the player buttons broke names inside the word ("An a", "Boj an"):
    every button naming a player (who holds Q♣, whose turn, who is out of cards, who got
    the cart) wraps a name between its words only, and cuts a single word too long for
    it with an ellipsis, the whole name in its title; its "out" stays in the button."""
    url = start_table(page, live_server, "vezimas", LONG_NAMES)
    zoomed.goto(url)
    for phone in (page, zoomed):
        expect(phone.locator(".vz-setup .vz-player")).to_have_count(4)
        names_kept_whole(phone, ".vz-player .vz-name")
    tap_the_queen_holder(page, "Bojan")
    page.locator(".vz-save-trumps").tap()
    expect(page.locator(".vz-trumps")).to_contain_text("Bojan leads")
    tap_and_wait(page, Taps(page), pick("Players out of cards", "Brzęczyszczykiewicz"))
    zoomed.goto(url)
    for phone in (page, zoomed):
        for group in ("Whose turn", "Players out of cards", "Who got the cart"):
            expect(phone.locator(f'[aria-label="{group}"] .vz-player')).to_have_count(4)
        names_kept_whole(phone, ".vz-player .vz-name")
        out = phone.locator(f"{pick('Whose turn', 'Brzęczyszczykiewicz')} small")
        expect(out).to_have_text("out")
        assert out.evaluate(
            "s => s.getBoundingClientRect().right <= s.closest('button').getBoundingClientRect().right"
        )
        # a short name is read whole ("B…" was all two buttons to a row left of Bojan)
        for name in ("Ana Marija", "Bojan"):
            assert not is_cut(phone, f"{pick('Who got the cart', name)} .vz-name"), name
    assert is_cut(zoomed, f"{pick('Who got the cart', 'Brzęczyszczykiewicz')} .vz-name")


def test_the_round_heading_and_the_next_player_keep_names_whole(
    page, zoomed, live_server, console_errors
):
    """The round heading broke a long name inside the word, and so did "next: …" under
    a verdict ("Aleksandr ović"); the last-card button ran off the screen: each wraps
    a name between its words only, and cuts a single word too long for its line with
    an ellipsis, the whole name in its title."""
    url = start_table(page, live_server, "vezimas", LONG_NAMES)
    tap_the_queen_holder(page, "Brzęczyszczykiewicz")
    page.locator(".vz-save-trumps").tap()
    heading = page.locator("#vz-trumps-title")
    expect(heading).to_contain_text("Brzęczyszczykiewicz leads")
    zoomed.goto(url)
    for phone in (page, zoomed):
        expect(phone.locator('#vz-trumps-title [title="Brzęczyszczykiewicz"]')).to_be_visible()
        assert phone.evaluate(WORDS_BROKEN, "#vz-trumps-title") == []
        names_kept_whole(phone, "#vz-trumps-title .vz-name")
    assert is_cut(zoomed, '#vz-trumps-title [title="Brzęczyszczykiewicz"]')

    # Brzęczyszczykiewicz (♣) answers 9♠; Dule Aleksandrović plays next
    for group, what in (
        ("Top card", "9S"),
        ("Whose turn", "Brzęczyszczykiewicz"),
        ("Their card", "JC"),
    ):
        tap_and_wait(page, Taps(page), pick(group, what))
    expect(page.locator(".vz-next")).to_contain_text("Dule Aleksandrović")
    expect(page.locator(".vz-last-card")).to_contain_text("Brzęczyszczykiewicz")
    zoomed.goto(url)
    for phone in (page, zoomed):
        expect(phone.locator(".vz-next")).to_contain_text("Dule Aleksandrović")
        names_kept_whole(phone, ".vz-answer .vz-name")

    # Bojan answers; Brzęczyszczykiewicz plays next
    tap_and_wait(page, Taps(page), pick("Whose turn", "Bojan"))
    expect(page.locator(".vz-next")).to_contain_text("Brzęczyszczykiewicz")
    zoomed.goto(url)
    for phone in (page, zoomed):
        expect(phone.locator(".vz-next")).to_contain_text("Brzęczyszczykiewicz")
        names_kept_whole(phone, ".vz-answer .vz-name")
    assert is_cut(zoomed, ".vz-next .vz-name")
