"""The Wyoming Cowboy screen by taps at 390×844: a whole 4-player deal with a
marriage, guns and tens checked against the engine; a shot refereed to a dodge;
a reload and a second phone in the middle of an entry; two phones entering two
players' cards at once; a card tap whose answer is lost, tapped again; Edit of a
saved deal changing one card."""

from __future__ import annotations

import re
from urllib.parse import unquote_plus

from playwright.sync_api import expect

from scorekeeper import api
from scorekeeper.cards import symbols

from .conftest import assert_inside_viewport, phone_context, start_table, totals

NAMES = ["Ana", "Bojan", "Ceca", "Dragan"]
WAIT = 10_000  # ms
HOUSE_RULES = {"marriage_and_harlot": True, "curse_replaces_sixes": True}

# the end of the deal entered below, as the engine request it must become
HELD = {
    "Ana": ["KH", "AH", "QS", "JD"],
    "Bojan": ["6C", "6D", "6S"],
    "Ceca": ["QH", "JH"],
    "Dragan": ["KS", "AS", "KC", "QC"],
}
GUNS = {"Bojan": [["2S", "2H"]], "Ceca": [["3D", "5D", "7D"]], "Dragan": [["4C", "5C"]]}
GUN_NAMES = {"Bojan": "22", "Ceca": "357 Quick Draw", "Dragan": "45"}
TENS = {"Ana": ["10S", "10C"], "Bojan": ["10H"], "Ceca": ["10D"]}

PANEL = "#cowboy-panel"


def held_picker(name):
    return f'{PANEL} .cb-player[data-player="{name}"] .cb-heldpick'


def gun_picker(name):
    return f'{PANEL} .cb-player[data-player="{name}"] .cb-gunpick'


def ten_picker(name):
    return f'{PANEL} .cb-player[data-player="{name}"] .cb-tenpick'


def settled(page):
    """htmx wires up swapped-in buttons when the swap settles (20 ms later); a
    person never taps that fast, a test does."""
    expect(page.locator(".htmx-added, .htmx-settling, .htmx-swapping")).to_have_count(0)


def tap(page, taps, selector: str):
    settled(page)
    taps(selector)


def choose(page, taps, selector: str, state: str = "aria-pressed"):
    """Tap a button and wait until the server's answer shows it chosen."""
    tap(page, taps, selector)
    # generous: a loaded laptop may take a while to sync a draft to disk
    expect(page.locator(selector).first).to_have_attribute(state, "true", timeout=WAIT)


def pick(page, taps, scope: str, code: str):
    choose(page, taps, f'{scope} .pick[data-card="{code}"]')


def open_tab(page, taps, name: str):
    """Whose cards this phone shows: its own choice, no request."""
    tab = f'.cb-tab[data-player="{name}"]'
    if page.locator(tab).get_attribute("aria-pressed") != "true":
        choose(page, taps, tab)
    expect(page.locator(f'.cb-player[data-player="{name}"]')).to_be_visible()


def enter_player(page, taps, name: str):
    open_tab(page, taps, name)
    for code in HELD.get(name, []):
        pick(page, taps, held_picker(name), code)
    for gun in GUNS.get(name, []):
        for code in gun[:-1]:
            pick(page, taps, gun_picker(name), code)
        tap(page, taps, f'{gun_picker(name)} .pick[data-card="{gun[-1]}"]')
        # the gun is named and drawn as soon as its last card is tapped
        expect(page.locator(f'.cb-player[data-player="{name}"] .cb-guns li').last).to_contain_text(
            GUN_NAMES[name]
        )
    for code in TENS.get(name, []):
        pick(page, taps, ten_picker(name), code)


def end_by(page, taps, name: str, reason: str):
    choose(page, taps, f'[data-end-by="{name}"]')
    choose(page, taps, f'[data-end-for="{name}"] [data-reason="{reason}"]')


def show_marriage(page, taps, name: str, suit: str):
    choose(page, taps, f'.cb-marriage [data-player="{name}"]')
    tap(page, taps, f'[data-marriage-for="{name}"] [data-suit="{suit}"]')
    expect(
        page.locator(f'.cb-marriages li[data-player="{name}"][data-suit="{suit}"]')
    ).to_be_visible()


def test_a_whole_deal_for_four_players_by_taps(page, live_server, taps, shots, console_errors):
    start_table(page, live_server, "cowboy", NAMES)
    expect(page.locator("#cowboy-panel")).to_be_visible()
    expect(page.locator(".cb-rules")).to_contain_text("C-D7")
    shots(page, "cowboy-1-play")
    assert_inside_viewport(page)

    # a marriage during play: +25 in the totals at once
    show_marriage(page, taps, "Ana", "H")
    expect(page.locator('#standings .points[data-player="Ana"]')).to_have_text("25")
    # hearts was shown: nobody can show it again this deal (C-D1)
    expect(page.locator('[data-marriage-for="Bojan"] [data-suit="H"]')).to_be_disabled()
    shots(page, "cowboy-2-marriage")
    marriage_taps = taps.count

    # the end of the deal
    choose(page, taps, '.cb-view[data-part="end"]')
    end_by(page, taps, "Bojan", "tens")
    enter_player(page, taps, "Ana")
    shots(page, "cowboy-3-end-ana")
    assert_inside_viewport(page)
    # a card another player holds is disabled with the reason
    open_tab(page, taps, "Bojan")
    ten = page.locator(f'{ten_picker("Bojan")} .pick[data-card="10S"]')
    expect(ten).to_be_disabled()
    expect(ten).to_contain_text("Ana")
    for name in ["Bojan", "Ceca", "Dragan"]:
        enter_player(page, taps, name)
    shots(page, "cowboy-4-end-dragan")
    assert_inside_viewport(page)

    # the preview is the engine's answer, item by item
    request = {
        "players": NAMES,
        "end": {"by": "Bojan", "reason": "tens"},
        "shown_marriages": [{"player": "Ana", "suit": "H"}],
        "held": HELD,
        "guns": GUNS,
        "tens": TENS,
        "house_rules": HOUSE_RULES,
    }
    expected = api.evaluate("cowboy-deal", request)["players"]
    preview = page.locator("#cowboy-preview")
    expect(preview.locator(".cb-score")).to_have_count(4)
    for name in NAMES:
        row = preview.locator(f'.cb-score[data-player="{name}"]')
        shown = f"{expected[name]['total']:+d}".replace("-", "−")  # a real minus sign
        expect(row.locator(".cb-total")).to_have_text(shown)
        expect(row.locator("tr")).to_have_count(len(expected[name]["items"]))
    expect(
        preview.locator('.cb-score[data-player="Ana"] tr[data-item="marriage_shown"]')
    ).to_contain_text("+25")
    preview.scroll_into_view_if_needed()
    shots(page, "cowboy-5-preview")

    tap(page, taps, ".cb-save")
    # saved once the panel moves on to the next deal (the history had one row before too)
    expect(page.locator("#cowboy-panel")).to_have_attribute("data-round", "2")
    # the deal only: the marriage shown during play now counts inside it
    expect(page.locator("#history .round")).to_have_count(1)
    expect(page.locator("#history .round .round-kind")).to_contain_text("Deal")
    end_taps = taps.count - marriage_taps
    print(
        f"\nWyoming Cowboy: marriage {marriage_taps} taps; end of a 4-player deal {end_taps} taps"
    )
    assert end_taps <= 45

    # the marriage counts once: inside the deal, not on top of it
    assert totals(page) == {name: expected[name]["total"] for name in NAMES}
    expect(page.locator("#history .round.undone")).to_have_count(0)
    expect(page.locator("#cowboy-panel")).to_have_attribute("data-round", "2")
    # the next deal opens as new on this phone too: during play, nobody's end chosen,
    # the first player's cards (this phone had chosen the end, Bojan and Dragan's cards)
    expect(page.locator("#cowboy-panel")).to_have_attribute("data-view", "play")
    expect(page.locator('[data-end-by="Bojan"]')).to_have_attribute("aria-pressed", "false")
    expect(page.locator('.cb-tab[data-player="Ana"]')).to_have_attribute("aria-pressed", "true")
    page.reload()
    assert totals(page) == {name: expected[name]["total"] for name in NAMES}
    shots(page, "cowboy-6-saved")
    assert_inside_viewport(page)


def test_a_shot_refereed_to_a_dodge(page, live_server, taps, shots, console_errors):
    start_table(page, live_server, "cowboy", NAMES[:3])
    choose(page, taps, '.cb-view[data-part="shot"]')
    choose(page, taps, '[data-role="attacker"] [data-player="Ana"]')
    choose(page, taps, '[data-role="victim"] [data-player="Bojan"]')
    pick(page, taps, "#cowboy-panel .cb-gunpick", "3H")
    # its last card makes the gun: the shot begins, and the gun is named
    tap(page, taps, '#cowboy-panel .cb-gunpick .pick[data-card="8C"]')
    expect(page.locator(".cb-gun-name")).to_have_text("38", timeout=WAIT)
    expect(page.locator(".cb-gun-name")).to_have_text("38")
    pick(page, taps, "#cowboy-panel .cb-victimpick", "KS")
    # a cowboy in reach: the referee asks for the turned card, and only now
    expect(page.locator("[data-outcome]")).to_have_attribute("data-outcome", "turn_card")
    shots(page, "cowboy-7-shot-turn")
    assert_inside_viewport(page)
    choose(page, taps, '.cb-turn [data-turned-suit="S"]')
    pick(page, taps, "#cowboy-panel .cb-turnpick", "7S")

    request = {
        "gun": ["3H", "8C"],
        "victim": {"held": ["KS"], "has_gun_drawn": True},
        "aces_on_table": ["AS", "AH", "AD", "AC"],
        "turned": "7S",
    }
    answer = api.evaluate("cowboy-shot", request)
    assert answer["outcome"] == "dodge" and answer["ends_deal"] is False
    verdict = page.locator("[data-outcome]")
    expect(verdict).to_have_attribute("data-outcome", "dodge")
    # the engine's sentence, every card shown by its symbol
    expect(verdict.locator(".cb-reason")).to_have_text(symbols(answer["reason"]))
    expect(verdict.locator(".cb-reason")).to_contain_text("7♠")
    expect(page.locator(".cb-end-deal")).to_have_count(0)  # three aces still on the table
    shots(page, "cowboy-8-shot-dodge")
    assert_inside_viewport(page)
    print(f"\nWyoming Cowboy: a shot refereed to a dodge in {taps.count} taps")

    # the next shot: the dodged ace has left the table
    tap(page, taps, ".cb-next-shot")
    expect(page.locator('.cb-acepick .pick[data-card="AS"]')).to_have_attribute(
        "aria-pressed", "false"
    )
    expect(page.locator('.cb-acepick .pick[data-card="AH"]')).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(page.locator("[data-outcome]")).to_have_count(0)


def shot_at_the_last_ace(page, live_server, taps, attacker: str) -> None:
    """A 3-player table whose first shot (``attacker`` at Bojan, a 38 at his K♠) is
    taken with A♠ the only ace left on the table, the turned card's suit ♠ chosen."""
    start_table(page, live_server, "cowboy", NAMES[:3])
    choose(page, taps, '.cb-view[data-part="shot"]')
    choose(page, taps, f'[data-role="attacker"] [data-player="{attacker}"]')
    choose(page, taps, '[data-role="victim"] [data-player="Bojan"]')
    pick(page, taps, "#cowboy-panel .cb-gunpick", "3H")
    # its last card makes the gun: the shot begins, and the gun is named
    tap(page, taps, '#cowboy-panel .cb-gunpick .pick[data-card="8C"]')
    expect(page.locator(".cb-gun-name")).to_have_text("38", timeout=WAIT)
    pick(page, taps, "#cowboy-panel .cb-victimpick", "KS")
    for code in ("AH", "AD", "AC"):  # only A♠ is left on the table
        tap(page, taps, f'.cb-acepick .pick[data-card="{code}"]')
        expect(page.locator(f'.cb-acepick .pick[data-card="{code}"]')).to_have_attribute(
            "aria-pressed", "false", timeout=WAIT
        )
    choose(page, taps, '.cb-turn [data-turned-suit="S"]')


def test_a_dodging_victim_leaves_the_last_ace_on_the_table(page, live_server, taps, console_errors):
    """C-D11: on a dodge that would take the last ace, "Leave the ace on the table"
    keeps the deal going; the next shot still has that ace in the middle."""
    shot_at_the_last_ace(page, live_server, taps, "Ana")
    # C-D10: the turned card is never an ace, so the picker offers none
    expect(page.locator('.cb-turnpick .pick[data-card="AS"]')).to_have_count(0)
    pick(page, taps, "#cowboy-panel .cb-turnpick", "7S")
    expect(page.locator("[data-outcome]")).to_have_attribute("data-outcome", "dodge")
    expect(page.locator(".cb-end-deal")).to_be_visible()
    choose(page, taps, ".cb-decline-ace")
    expect(page.locator(".cb-end-deal")).to_have_count(0)
    expect(page.locator(".cb-reason")).to_contain_text("the victim leaves A♠ on the table")
    assert_inside_viewport(page)
    tap(page, taps, ".cb-next-shot")
    expect(page.locator("[data-outcome]")).to_have_count(0)
    expect(page.locator('.cb-acepick .pick[data-card="AS"]')).to_have_attribute(
        "aria-pressed", "true"
    )


def test_a_dodge_that_ends_the_deal_opens_the_end_of_the_deal(
    page, live_server, taps, console_errors
):
    """The last ace taken by a dodge ends the deal (RULES §1 step 5): "The deal ends"
    tapped, the phone shows the end of the deal, the ender already in, and not the
    shot part it was on."""
    shot_at_the_last_ace(page, live_server, taps, "Ceca")
    pick(page, taps, "#cowboy-panel .cb-turnpick", "7S")
    tap(page, taps, ".cb-end-deal")
    expect(page.locator(PANEL)).to_have_attribute("data-view", "end", timeout=WAIT)
    expect(page.locator(".cb-end")).to_be_visible()
    expect(page.locator(".cb-ended-by")).to_contain_text("Ceca")
    # the shot part can still be opened by hand, and stays open then
    choose(page, taps, '.cb-view[data-part="shot"]')
    page.reload()
    expect(page.locator(PANEL)).to_have_attribute("data-view", "shot")


def test_a_reload_and_a_second_phone_continue_the_draft(
    page, browser, live_server, taps, shots, console_errors
):
    url = start_table(page, live_server, "cowboy", NAMES)
    choose(page, taps, '.cb-view[data-part="end"]')
    end_by(page, taps, "Ceca", "aces")
    pick(page, taps, held_picker("Ana"), "KH")
    pick(page, taps, held_picker("Ana"), "AH")

    page.reload()
    # what this phone showed is its own, kept over the reload
    expect(page.locator(PANEL)).to_have_attribute("data-view", "end")
    expect(page.locator(f'{held_picker("Ana")} .pick[data-card="KH"]')).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(page.locator('[data-end-by="Ceca"]')).to_have_attribute("aria-pressed", "true")
    pick(page, taps, held_picker("Ana"), "QH")  # carries on after the reload

    context = phone_context(browser)
    other = context.new_page()
    other.goto(url)
    held = f'{held_picker("Ana")} .pick[data-card="%s"]'
    for code in ("KH", "AH", "QH"):
        expect(other.locator(held % code)).to_have_attribute("aria-pressed", "true")
    # the deal's end is the deal's: the other phone shows it too
    expect(other.locator(PANEL)).to_have_attribute("data-view", "end")
    expect(other.locator('[data-end-by="Ceca"]')).to_have_attribute("aria-pressed", "true")
    # the second phone adds a card; the first sees it without a reload
    settled(other)
    other.locator(held % "JH").tap()
    expect(other.locator(held % "JH")).to_have_attribute("aria-pressed", "true")
    expect(page.locator(held % "JH")).to_have_attribute("aria-pressed", "true")
    shots(other, "cowboy-9-second-phone")
    assert_inside_viewport(other)
    context.close()


def test_two_phones_enter_two_players_cards_at_once(
    page, browser, live_server, taps, shots, console_errors
):
    """Phone A enters Ana's cards while phone B enters Bojan's: each phone keeps the
    player it opened, whatever the other taps, and both sets of cards end up right."""
    url = start_table(page, live_server, "cowboy", NAMES)
    context = phone_context(browser)
    other = context.new_page()
    polled: list[str] = []  # phone B's polls that brought changes

    def keep_poll(response):
        if "/live?" in response.url and response.request.method == "GET":
            try:
                polled.append(response.text())
            except Exception:  # an answer the page no longer waits for
                pass

    other.on("response", keep_poll)
    other.goto(url)
    other.wait_for_load_state("load")
    other_taps = type(taps)(other)
    for phone, phone_taps in ((page, taps), (other, other_taps)):
        choose(phone, phone_taps, '.cb-view[data-part="end"]')
    open_tab(page, taps, "Ana")
    open_tab(other, other_taps, "Bojan")
    ana, bojan = ["KH", "AH", "QS", "JD"], ["6C", "6D", "6S", "2C"]
    for a, b in zip(ana, bojan, strict=True):
        pick(page, taps, held_picker("Ana"), a)
        # phone B's answers and polls bring A's cards too: B stays on Bojan, A on Ana
        expect(other.locator('.cb-tab[data-player="Bojan"]')).to_have_attribute(
            "aria-pressed", "true"
        )
        pick(other, other_taps, held_picker("Bojan"), b)
        expect(page.locator('.cb-tab[data-player="Ana"]')).to_have_attribute("aria-pressed", "true")
        expect(page.locator('.cb-player[data-player="Ana"]')).to_be_visible()
        expect(other.locator('.cb-player[data-player="Bojan"]')).to_be_visible()
    shots(other, "cowboy-10-two-phones")
    # B's polls named the parts B shows: the ones as they were came back as holes,
    # each filled from B's own page
    assert any("data-frag-kept" in body for body in polled)
    for phone in (page, other):
        expect(phone.locator("[data-frag-kept]")).to_have_count(0)
    # both sets are right, on both phones
    for phone in (page, other):
        for name, cards in (("Ana", ana), ("Bojan", bojan)):
            tab = phone.locator(f'.cb-tab[data-player="{name}"] small')
            expect(tab).to_have_text("4 cards")
            for code in cards:
                expect(
                    phone.locator(f'{held_picker(name)} .pick[data-card="{code}"]')
                ).to_have_attribute("aria-pressed", "true")
    context.close()


def test_a_card_tap_whose_answer_is_lost_tapped_again_ends_right(page, live_server, taps):
    """The server takes the tap but its answer never arrives: the page says so, and the
    same card tapped again is the same tap (its id), applied once. (The lost answer is a
    console error by design: only the page's own errors are checked.)"""
    page_errors: list[str] = []
    page.on("pageerror", lambda exc: page_errors.append(str(exc)))
    start_table(page, live_server, "cowboy", NAMES)
    choose(page, taps, '.cb-view[data-part="end"]')
    dropped = []

    def take_it_then_drop_the_answer(route):
        if not dropped:
            route.fetch()  # the server has it …
            dropped.append(route.request.post_data)
            route.abort()  # … the phone never hears back
        else:
            dropped.append(route.request.post_data)
            route.continue_()

    # the poll waits meanwhile, so only the taps' own answers could tell this phone
    polls = []

    def hold_the_poll(route):
        polls.append(route)

    page.route(re.compile(r"/live\?"), hold_the_poll)
    page.route("**/cowboy/tap", take_it_then_drop_the_answer)
    card = f'{held_picker("Ana")} .pick[data-card="KH"]'
    tap(page, taps, card)
    expect(page.locator("#net-status")).to_be_visible()
    expect(page.locator(card)).to_have_attribute("aria-pressed", "false")  # nothing came back
    tap(page, taps, card)  # tapped again: the same tap id, so the server answers as is
    expect(page.locator(card)).to_have_attribute("aria-pressed", "true", timeout=WAIT)
    expect(page.locator("#net-status")).to_be_hidden()
    # both were the same tap ("K♥ is in Ana's hand") under the same id, applied once
    sent = [unquote_plus(re.search(r"(?:^|&)tap=([^&]*)", body).group(1)) for body in dropped]
    assert len(sent) == 2 and sent[0] == sent[1] == '{"action":"hold","seat":0,"card":"KH"}'
    ids = [re.search(r"tap_id=(\w+)", body).group(1) for body in dropped]
    assert ids[0] == ids[1]
    page.unroute("**/cowboy/tap")
    for poll in polls:  # the poll goes on
        poll.continue_()
    page.unroute(re.compile(r"/live\?"), hold_the_poll)
    # placed once: one card in Ana's tab, and one undo takes it away
    expect(page.locator('.cb-tab[data-player="Ana"] small')).to_have_text("1 card")
    tap(page, taps, ".cb-undo")
    expect(page.locator(card)).to_have_attribute("aria-pressed", "false", timeout=WAIT)
    expect(page.locator(".cb-undo")).to_be_disabled()  # nothing more to undo: it was once
    page.reload()
    expect(page.locator('.cb-tab[data-player="Ana"] small')).to_have_text("0 cards")
    assert page_errors == []


def test_a_tap_whose_answer_is_lost_is_shown_arrived_by_the_next_poll(page, live_server, taps):
    """The server takes the tap, its answer is lost, and the poll then redraws the panel
    with the card in: the page no longer asks to tap again (the redrawn button is a new
    tap, so a second tap would be a second card, or a keypad's key typed twice)."""
    start_table(page, live_server, "cowboy", NAMES)
    choose(page, taps, '.cb-view[data-part="end"]')
    dropped = []

    def take_it_then_drop_the_answer(route):
        route.fetch()  # the server has it …
        dropped.append(route.request.post_data)
        route.abort()  # … the phone never hears back

    # the poll waits until the page has said "not sent": answered sooner, it would redraw
    # the tapped button, and htmx tells a button no longer in the page of its error
    polls = []
    page.route(re.compile(r"/live\?"), lambda route: polls.append(route))
    page.route("**/cowboy/tap", take_it_then_drop_the_answer)
    card = f'{held_picker("Ana")} .pick[data-card="KH"]'
    tap(page, taps, card)
    expect(page.locator("#net-status")).to_be_visible()
    page.unroute(re.compile(r"/live\?"))
    for poll in polls:
        poll.continue_()
    # the poll brings the deal with the tap in it: the card held, the message gone
    expect(page.locator(card)).to_have_attribute("aria-pressed", "true", timeout=WAIT)
    expect(page.locator("#net-status")).to_be_hidden()
    tap_id = re.search(r"tap_id=(\w+)", dropped[0]).group(1)
    assert tap_id in page.locator("#cowboy-panel").get_attribute("data-taps").split()
    page.unroute("**/cowboy/tap")


def test_a_lost_tap_the_deal_does_not_hold_still_asks_to_tap_again(page, live_server, taps):
    """The tap never reached the server: the poll's redraws do not hold it, so the page
    still says it was not sent, until a tap gets through."""
    start_table(page, live_server, "cowboy", NAMES)
    choose(page, taps, '.cb-view[data-part="end"]')
    other = phone_context(page.context.browser).new_page()
    other.goto(page.url)
    page.route("**/cowboy/tap", lambda route: route.abort())
    card = f'{held_picker("Ana")} .pick[data-card="KH"]'
    tap(page, taps, card)
    expect(page.locator("#net-status")).to_be_visible()
    # another phone's tap redraws this phone's panel through the poll
    choose(other, type(taps)(other), '.cb-view[data-part="end"]')
    other_card = f'{held_picker("Ana")} .pick[data-card="AH"]'
    choose(other, type(taps)(other), other_card)
    expect(page.locator(other_card)).to_have_attribute("aria-pressed", "true", timeout=WAIT)
    expect(page.locator("#net-status")).to_be_visible()
    expect(page.locator(card)).to_have_attribute("aria-pressed", "false")
    page.unroute("**/cowboy/tap")
    choose(page, taps, card)  # tapped again: it gets through
    expect(page.locator("#net-status")).to_be_hidden()
    other.context.close()


def test_a_taps_answer_sends_only_the_parts_that_changed(page, live_server, taps, console_errors):
    """A tap's answer writes the parts of the panel this phone already shows as holes:
    it is a fraction of the panel, the phone fills them with its own copies, and the
    panel is then the one the table page draws, its buttons tapped anew."""
    start_table(page, live_server, "cowboy", NAMES)
    choose(page, taps, '.cb-view[data-part="end"]')
    open_tab(page, taps, "Bojan")
    kept = f'{gun_picker("Ceca")} .pick[data-card="2S"]'
    # a tap id left on a button of a part that comes back as a hole (a tap sent, its
    # answer lost) is a tap waiting for its answer: the copy is drawn afresh without it
    page.locator(kept).evaluate("b => b.setAttribute('data-tap-id', 'an-old-tap')")
    with page.expect_response("**/cowboy/tap") as answer:
        pick(page, taps, held_picker("Bojan"), "6C")
    body = answer.value.text()
    assert body.count("data-frag-kept") >= 4  # the other players' pickers, at least
    whole = page.locator(PANEL).evaluate("p => p.outerHTML.length")
    assert len(body) * 2 < whole
    expect(page.locator("[data-frag-kept]")).to_have_count(0)
    expect(page.locator(f"{PANEL} [data-tap-id]")).to_have_count(0)
    # Bojan's gun picker came back kept: its cards tap anew (the two 2s: a drawn gun)
    pick(page, taps, gun_picker("Bojan"), "2S")
    tap(page, taps, f'{gun_picker("Bojan")} .pick[data-card="2H"]')
    expect(page.locator(f'{PANEL} .cb-player[data-player="Bojan"] .cb-guns')).to_contain_text(
        "22", timeout=WAIT
    )

    def shown():
        return page.locator(PANEL).evaluate(
            """p => [...p.querySelectorAll('.pick')].map(
                b => b.closest('[data-frag]').className + ' ' + b.dataset.card + ' '
                     + b.getAttribute('aria-pressed') + ' ' + b.disabled + ' ' + b.textContent)"""
        )

    after_taps = shown()
    page.reload()
    assert shown() == after_taps


def test_edit_of_a_saved_deal_changes_one_card(page, live_server, taps, shots, console_errors):
    """Open the history, Edit the saved deal: its taps come back with every card as it
    was; change one of Bojan's cards and save: one new entry supersedes it, the totals
    follow; undo of the edit brings the old deal back."""
    names = NAMES[:3]
    url = start_table(page, live_server, "cowboy", names)
    choose(page, taps, '.cb-view[data-part="end"]')
    end_by(page, taps, "Ana", "tens")
    for code in ("10S", "10H", "10D", "10C"):
        pick(page, taps, ten_picker("Ana"), code)
    pick(page, taps, gun_picker("Ana"), "2S")
    tap(page, taps, f'{gun_picker("Ana")} .pick[data-card="2H"]')
    open_tab(page, taps, "Bojan")
    pick(page, taps, held_picker("Bojan"), "KH")
    request = {
        "players": names,
        "end": {"by": "Ana", "reason": "tens"},
        "shown_marriages": [],
        "held": {"Ana": [], "Bojan": ["KH"], "Ceca": []},
        "guns": {"Ana": [["2S", "2H"]]},
        "tens": {"Ana": ["10S", "10H", "10D", "10C"]},
        "house_rules": HOUSE_RULES,
    }
    before = {n: r["total"] for n, r in api.evaluate("cowboy-deal", request)["players"].items()}
    tap(page, taps, ".cb-save")
    expect(page.locator(PANEL)).to_have_attribute("data-round", "2")
    assert totals(page) == before

    page.goto(url + "/history")
    taps("form.reopen button")
    expect(page.locator(PANEL)).to_contain_text("Changing round 1")
    expect(page.locator(PANEL)).to_have_attribute("data-round", "1")
    choose(page, taps, '.cb-view[data-part="end"]')
    open_tab(page, taps, "Bojan")
    held = held_picker("Bojan") + ' .pick[data-card="%s"]'
    expect(page.locator(held % "KH")).to_have_attribute("aria-pressed", "true")
    shots(page, "cowboy-11-edit-open")
    assert_inside_viewport(page)
    tap(page, taps, held % "KH")  # K♥ out of his hand …
    expect(page.locator(held % "KH")).to_have_attribute("aria-pressed", "false", timeout=WAIT)
    pick(page, taps, held_picker("Bojan"), "QH")  # … Q♥ in
    changed = {**request, "held": {"Ana": [], "Bojan": ["QH"], "Ceca": []}}
    after = {n: r["total"] for n, r in api.evaluate("cowboy-deal", changed)["players"].items()}
    assert after != before
    expect(page.locator('.cb-score[data-player="Bojan"] .cb-total')).to_have_text(
        f"{after['Bojan']:+d}".replace("-", "−")
    )
    tap(page, taps, ".cb-save")
    expect(page.locator("#board .flash.ok")).to_contain_text("Round 1 changed.")
    expect(page.locator(PANEL)).to_have_attribute("data-round", "2")
    assert totals(page) == after
    # the history keeps both: the old one replaced, the new one live
    expect(page.locator("#history li.round")).to_have_count(1)
    expect(page.locator("#history")).to_contain_text("edited")
    shots(page, "cowboy-12-edit-saved")
    taps('#history li.round button:text("Undo")')
    taps('#history li.round button:text("Tap again to undo")')  # the confirming tap
    expect(page.locator("#board .flash.ok")).to_contain_text("Round 1: the change undone")
    expect(page.locator('#standings .points[data-player="Bojan"]')).to_have_text(
        str(before["Bojan"])
    )
    assert totals(page) == before


def section_heights(page) -> dict[str, float]:
    """The page and the end-of-deal section (its cards and the scores), in CSS px."""
    return page.evaluate(
        """() => {
            const h = (sel) => { const el = document.querySelector(sel);
                                 return el ? el.getBoundingClientRect().height : 0; };
            return {page: document.documentElement.scrollHeight,
                    end: h('#cowboy-panel .cb-end') + h('#cowboy-preview')};
        }"""
    )


def test_the_end_of_deal_fits_a_phone_with_four_players(
    page, live_server, taps, shots, console_errors
):
    """At 390×844 the entry comes first: the house rules are one folded line, the end of
    a 4-player deal keeps only the player being entered open (the others' scores folded
    to a line each, who ended the deal one line once answered), so the end-of-deal
    section stays within 1,200 px (it was about 1,630 px, the page 2,760)."""
    start_table(page, live_server, "cowboy", NAMES)
    rules = page.locator("#cowboy-panel details.cb-rules")
    expect(rules).not_to_have_attribute("open", "")
    expect(rules.locator("summary")).to_contain_text("2 of 2 on")
    expect(rules).to_contain_text("C-D7")  # in the fold, one tap away
    choose(page, taps, '.cb-view[data-part="end"]')
    end_by(page, taps, "Bojan", "tens")
    expect(page.locator(".cb-ender summary")).to_contain_text("Bojan")
    expect(page.locator('[data-end-for="Ana"]')).to_be_hidden()  # one player's choices only
    for name in NAMES:
        enter_player(page, taps, name)
    scores = page.locator("#cowboy-preview details.cb-score")
    expect(scores).to_have_count(4)
    # only the player whose cards are open shows the breakdown
    expect(page.locator("#cowboy-preview details.cb-score[open]")).to_have_count(1)
    expect(scores.locator("xpath=self::*[@open]")).to_have_attribute("data-player", "Dragan")
    figures = section_heights(page)
    shots(page, "cowboy-end-four-players")
    print(f"\ncowboy end of a 4-player deal at 390x844 (px): {figures}")
    assert figures["end"] <= 1200, figures
    assert_inside_viewport(page)
    # another player's tab: his score opens, Dragan's folds
    open_tab(page, taps, "Ana")
    expect(page.locator('#cowboy-preview details.cb-score[data-player="Ana"]')).to_have_attribute(
        "open", ""
    )
    expect(page.locator("#cowboy-preview details.cb-score[open]")).to_have_count(1)
    # a card disabled by its place elsewhere: the cut small print is whole in the title
    ten = page.locator(f'{ten_picker("Ana")} .pick[data-card="10H"]')
    expect(ten).to_have_attribute("title", re.compile(r"10♥ — Bojan"))


LONG = ["Grzegorz Brzęczyszczykiewicz", "Aleksandar", "Šćepan Šćepanović", "Ana"]


def test_long_names_wrap_between_words_with_the_full_name_as_title(
    page, live_server, taps, console_errors
):
    """The marriage buttons' names break between words, never inside one ("Grzegor z"),
    and carry the whole name as their title; so do the tabs of the end of the deal."""
    start_table(page, live_server, "cowboy", LONG)
    buttons = page.locator("#cowboy-panel .cb-marriage .cb-players button")
    expect(buttons).to_have_count(4)
    for i, name in enumerate(LONG):
        expect(buttons.nth(i)).to_have_attribute("title", name)
    broken = page.evaluate(
        """() => {
            const out = [];
            for (const b of document.querySelectorAll('#cowboy-panel .cb-marriage .cb-players button')) {
                const text = b.textContent.trim();
                const walk = document.createTreeWalker(b, NodeFilter.SHOW_TEXT);
                let node = walk.nextNode();
                while (node && !node.textContent.trim()) node = walk.nextNode();
                let at = node.textContent.indexOf(text.split(/\\s+/)[0]);
                for (const word of text.split(/\\s+/)) {
                    at = node.textContent.indexOf(word, at);
                    const r = document.createRange();
                    r.setStart(node, at); r.setEnd(node, at + word.length);
                    const lines = new Set([...r.getClientRects()].map(x => Math.round(x.top)));
                    if (lines.size > 1) out.push(word);
                    at += word.length;
                }
            }
            return out;
        }"""
    )
    assert broken == [], broken
    assert_inside_viewport(page)
    choose(page, taps, '.cb-view[data-part="end"]')
    expect(page.locator('.cb-tab[data-player="Šćepan Šćepanović"]')).to_have_attribute(
        "title", "Šćepan Šćepanović"
    )


def test_a_name_too_long_for_its_button_shows_its_start_and_an_ellipsis(
    page, live_server, taps, console_errors
):
    """A name wider than its button (four players: about 78 px each) shows its first
    letters and ends in an ellipsis, in every row of player buttons (the marriage, the
    shot's roles, who ended the deal): cut at both ends, it read as no one's name."""
    start_table(page, live_server, "cowboy", ["Brzęczyszczykiewicz", "Aleksandar", "Ana", "Bo"])
    seen = 0
    for part, rows in (("play", ".cb-marriage .cb-players"), ("shot", ".cb-roles .cb-players")):
        choose(page, taps, f'.cb-view[data-part="{part}"]')
        buttons = page.locator(f"{rows} button")
        expect(buttons.first).to_be_visible()
        seen += buttons.count()
        assert cut_names(page, rows) == [], part
    assert seen >= 8
    name = page.locator('.cb-roles .cb-players button[title="Brzęczyszczykiewicz"] .cb-name')
    assert name.first.evaluate("n => n.scrollWidth > n.clientWidth")  # it is cut, at its end
    assert_inside_viewport(page)


def cut_names(page, rows: str) -> list:
    """The buttons of ``rows`` whose name's first letter is cut off, or whose name
    overflows without an ellipsis."""
    return page.evaluate(
        """(rows) => {
            const out = [];
            for (const row of document.querySelectorAll(rows)) {
                for (const b of row.querySelectorAll('button')) {
                    const box = b.getBoundingClientRect();
                    const walk = document.createTreeWalker(b, NodeFilter.SHOW_TEXT);
                    let node = walk.nextNode();
                    while (node && !node.textContent.trim()) node = walk.nextNode();
                    const first = document.createRange();
                    first.setStart(node, 0); first.setEnd(node, 1);
                    const letter = first.getBoundingClientRect();
                    const shown = node.parentElement;
                    const overflows = shown.scrollWidth > shown.clientWidth;
                    if (letter.left < box.left || (overflows &&
                        getComputedStyle(shown).textOverflow !== 'ellipsis'))
                        out.push([b.title, letter.left - box.left, overflows]);
                }
            }
            return out;
        }""",
        rows,
    )


def test_every_fold_of_the_panel_is_a_finger_high(page, live_server, taps, console_errors):
    """The house rules' fold and each player's score fold are tapped like buttons: at
    least 44 px high, as every other control (they were 32 and 36 px), and the end of a
    4-player deal still fits as before."""
    start_table(page, live_server, "cowboy", NAMES)
    choose(page, taps, '.cb-view[data-part="end"]')
    end_by(page, taps, "Bojan", "tens")
    for name in NAMES:
        enter_player(page, taps, name)
    expect(page.locator("#cowboy-preview details.cb-score")).to_have_count(4)
    heights = page.locator(f"{PANEL} summary").evaluate_all(
        "els => els.filter(e => e.offsetParent).map(e => [e.textContent.trim().slice(0, 30),"
        " e.getBoundingClientRect().height])"
    )
    assert len(heights) == 6, heights  # the house rules, who ended the deal, 4 scores
    assert [h for h in heights if h[1] < 44] == [], heights
    assert section_heights(page)["end"] <= 1200
