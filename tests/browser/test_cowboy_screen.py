"""The Wyoming Cowboy screen by taps at 390×844: a whole 4-player deal with a
marriage, guns and tens checked against the engine; a shot refereed to a dodge;
a reload and a second phone in the middle of an entry."""

from __future__ import annotations

from playwright.sync_api import expect

from scorekeeper import api

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

HELD_PICKER = "#cowboy-panel .cb-player > .picker"
GUN_PICKER = "#cowboy-panel .cb-gunpick"
TEN_PICKER = "#cowboy-panel .cb-tenpick"


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


def enter_player(page, taps, name: str):
    tab = f'.cb-tab[data-player="{name}"]'
    if page.locator(tab).get_attribute("aria-selected") != "true":
        choose(page, taps, tab, "aria-selected")
    expect(page.locator(f'.cb-player[data-player="{name}"]')).to_be_visible()
    for code in HELD.get(name, []):
        pick(page, taps, HELD_PICKER, code)
    for gun in GUNS.get(name, []):
        for code in gun[:-1]:
            pick(page, taps, GUN_PICKER, code)
        tap(page, taps, f'{GUN_PICKER} .pick[data-card="{gun[-1]}"]')
        # the gun is named and drawn as soon as its last card is tapped
        expect(page.locator(".cb-guns li").last).to_contain_text(GUN_NAMES[name])
    for code in TENS.get(name, []):
        pick(page, taps, TEN_PICKER, code)


def show_marriage(page, taps, name: str, suit: str):
    choose(page, taps, f'.cb-marriage [data-player="{name}"]')
    tap(page, taps, f'.cb-suits [data-suit="{suit}"]')
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
    assert totals(page)["Ana"] == 25
    # hearts was shown: nobody can show it again this deal (C-D1)
    expect(page.locator('.cb-suits [data-suit="H"]')).to_be_disabled()
    shots(page, "cowboy-2-marriage")
    marriage_taps = taps.count

    # the end of the deal
    choose(page, taps, '.cb-view[data-view="end"]')
    choose(page, taps, '[data-end-by="Bojan"]')
    choose(page, taps, '[data-reason="tens"]')
    enter_player(page, taps, "Ana")
    shots(page, "cowboy-3-end-ana")
    assert_inside_viewport(page)
    # a card another player holds is disabled with the reason
    choose(page, taps, '.cb-tab[data-player="Bojan"]', "aria-selected")
    ten = page.locator(f'{TEN_PICKER} .pick[data-card="10S"]')
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
        expect(row.locator(".cb-total")).to_have_text(f"{expected[name]['total']:+d}")
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
    page.reload()
    assert totals(page) == {name: expected[name]["total"] for name in NAMES}
    shots(page, "cowboy-6-saved")
    assert_inside_viewport(page)


def test_a_shot_refereed_to_a_dodge(page, live_server, taps, shots, console_errors):
    start_table(page, live_server, "cowboy", NAMES[:3])
    choose(page, taps, '.cb-view[data-view="shot"]')
    choose(page, taps, '[data-role="attacker"] [data-player="Ana"]')
    choose(page, taps, '[data-role="victim"] [data-player="Bojan"]')
    pick(page, taps, "#cowboy-panel .cb-gunpick", "3H")
    pick(page, taps, "#cowboy-panel .cb-gunpick", "8C")
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
    expect(verdict.locator(".cb-reason")).to_have_text(answer["reason"])
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


def test_a_dodging_victim_leaves_the_last_ace_on_the_table(page, live_server, taps, console_errors):
    """C-D11: on a dodge that would take the last ace, "Leave the ace on the table"
    keeps the deal going; the next shot still has that ace in the middle."""
    start_table(page, live_server, "cowboy", NAMES[:3])
    choose(page, taps, '.cb-view[data-view="shot"]')
    choose(page, taps, '[data-role="attacker"] [data-player="Ana"]')
    choose(page, taps, '[data-role="victim"] [data-player="Bojan"]')
    pick(page, taps, "#cowboy-panel .cb-gunpick", "3H")
    pick(page, taps, "#cowboy-panel .cb-gunpick", "8C")
    pick(page, taps, "#cowboy-panel .cb-victimpick", "KS")
    for code in ("AH", "AD", "AC"):  # only A♠ is left on the table
        tap(page, taps, f'.cb-acepick .pick[data-card="{code}"]')
        expect(page.locator(f'.cb-acepick .pick[data-card="{code}"]')).to_have_attribute(
            "aria-pressed", "false", timeout=WAIT
        )
    choose(page, taps, '.cb-turn [data-turned-suit="S"]')
    # C-D10: the turned card is never an ace, so the picker offers none
    expect(page.locator('.cb-turnpick .pick[data-card="AS"]')).to_have_count(0)
    pick(page, taps, "#cowboy-panel .cb-turnpick", "7S")
    expect(page.locator("[data-outcome]")).to_have_attribute("data-outcome", "dodge")
    expect(page.locator(".cb-end-deal")).to_be_visible()
    choose(page, taps, ".cb-decline-ace")
    expect(page.locator(".cb-end-deal")).to_have_count(0)
    expect(page.locator(".cb-reason")).to_contain_text("the victim leaves AS on the table")
    assert_inside_viewport(page)
    tap(page, taps, ".cb-next-shot")
    expect(page.locator("[data-outcome]")).to_have_count(0)
    expect(page.locator('.cb-acepick .pick[data-card="AS"]')).to_have_attribute(
        "aria-pressed", "true"
    )


def test_a_reload_and_a_second_phone_continue_the_draft(
    page, browser, live_server, taps, shots, console_errors
):
    url = start_table(page, live_server, "cowboy", NAMES)
    choose(page, taps, '.cb-view[data-view="end"]')
    choose(page, taps, '[data-end-by="Ceca"]')
    pick(page, taps, HELD_PICKER, "KH")
    pick(page, taps, HELD_PICKER, "AH")

    page.reload()
    expect(page.locator("#cowboy-panel")).to_have_attribute("data-view", "end")
    expect(page.locator(f'{HELD_PICKER} .pick[data-card="KH"]')).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(page.locator('[data-end-by="Ceca"]')).to_have_attribute("aria-pressed", "true")
    pick(page, taps, HELD_PICKER, "QH")  # carries on after the reload

    context = phone_context(browser)
    other = context.new_page()
    other.goto(url)
    held = f'{HELD_PICKER} .pick[data-card="%s"]'
    for code in ("KH", "AH", "QH"):
        expect(other.locator(held % code)).to_have_attribute("aria-pressed", "true")
    # the second phone adds a card; the first sees it without a reload
    settled(other)
    other.locator(held % "JH").tap()
    expect(other.locator(held % "JH")).to_have_attribute("aria-pressed", "true")
    expect(page.locator(held % "JH")).to_have_attribute("aria-pressed", "true", timeout=3000)
    shots(other, "cowboy-9-second-phone")
    assert_inside_viewport(other)
    context.close()
