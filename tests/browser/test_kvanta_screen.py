"""The Kvanta round wizard by taps on a phone (390×844, touch): the dealer draw, the
turned card, the target roll (virtual, then a deliberate physical re-roll), tricks
with a Flux, a call that is undercut, and the poker prize; totals checked against
the engines, every roll listed, and a watching phone following read-only."""

from __future__ import annotations

import threading

import pytest
from playwright.sync_api import expect

from scorekeeper import api, create_app
from scorekeeper.messages import signed

from .conftest import assert_inside_viewport, listen, phone_context, served, start_table, totals
from .test_accessibility import open_every_details, sideways_overflow, spilled_text


class Scripted:
    """A deterministic dice RNG for the live server: answers randrange with these faces."""

    def __init__(self, faces):
        self.faces = list(faces)
        self.lock = threading.Lock()

    def randrange(self, start, stop):
        with self.lock:
            face = self.faces.pop(0)
        assert start <= face < stop
        return face


# each test queues the faces its rolls will show
DICE = Scripted([])


@pytest.fixture(scope="module")
def kvanta_server(tmp_path_factory):
    """The app with the scripted dice (app.config["DICE_RNG"]), on a free port."""
    db = tmp_path_factory.mktemp("kvanta-live") / "scorekeeper.sqlite"
    app = create_app(
        {
            "DATABASE": str(db),
            "SECRET_KEY": "kvanta-browser",
            "POLL_INTERVAL_MS": 700,
            "DICE_RNG": DICE,
            "CREATE_RATE_LIMIT": "1000000 per minute",  # every test starts tables
        }
    )
    with served(app) as url:
        yield url


def panel(page):
    return page.locator("#kv-panel")


def tap_and_wait(page, taps, selector: str):
    """Tap, then wait until the server's answer replaced the panel (the draft version
    or the step changed)."""
    before = (
        panel(page).get_attribute("data-deal-version"),
        panel(page).get_attribute("data-phase"),
    )
    taps(selector)
    page.wait_for_function(
        """([v, phase]) => {
            const p = document.querySelector('#kv-panel');
            return p && !document.querySelector('.htmx-request')
                && (p.dataset.dealVersion !== v || p.dataset.phase !== phase);
        }""",
        arg=list(before),
    )


def card(code: str) -> str:
    """The card on the picker this phone shows (whose cards it enters is its own)."""
    return f'#kv-panel .pick[data-card="{code}"]:visible'


def key(label: str) -> str:
    return f'#kv-panel .kv-key[data-key="{label}"]:visible'


def button(text: str) -> str:
    return f'#kv-panel button:visible:has-text("{text}")'


NEXT = "#kv-panel .kv-editor:visible .kv-next"


def editing(page):
    return panel(page).locator(".kv-editor:visible")


def test_a_kvanta_round_with_flux_undercut_and_poker_prize(
    page, browser, kvanta_server, taps, shots, console_errors
):
    # target 4+5+5 = 14; trick 1: Bojan rolls a 6 (Flux); trick 2: Ceca rolls a 3 and calls
    DICE.faces.extend([4, 5, 5, 6, 3])
    names = ["Ana", "Bojan", "Ceca"]
    start_table(page, kvanta_server, "kvanta", names)
    expect(panel(page)).to_have_attribute("data-phase", "dealer")
    watch_url = page.locator("[data-copy]").last.get_attribute("data-copy")
    watcher_context = phone_context(browser, color_scheme="dark")
    watcher = watcher_context.new_page()
    watcher.goto(watch_url)
    expect(watcher.locator("#kv-panel")).to_be_visible()
    expect(watcher.locator("#kv-panel button")).to_have_count(0)

    stages: dict[str, int] = {}

    def stage(name: str):
        stages[name] = taps.count - sum(stages.values())

    # 1. the first dealer: everyone draws, the lowest deals (the draw's last card
    # decides it: the phone moves from player to player by itself)
    for code in ("2C", "9D", "KS"):
        tap_and_wait(page, taps, card(code))
    expect(panel(page).locator('[data-verdict="dealer"]')).to_contain_text("Ana deals")
    shots(page, "kvanta-dealer-draw")
    assert_inside_viewport(page)
    expect(panel(page)).to_have_attribute("data-phase", "burn")
    expect(page.locator("#standings .badge.dealer")).to_have_count(1)
    stage("dealer draw")

    # 2. burned cards and the turned card (trump ♥, prize 7)
    tap_and_wait(page, taps, '#kv-panel .kv-burn button[data-action="burn"]:text-is("3")')
    tap_and_wait(page, taps, card("7H"))
    shots(page, "kvanta-setup")
    assert_inside_viewport(page)

    # 3. the target: three dice rolled on the server, shown at once and listed; the
    # screen says who rolls (#24): the player left of the dealer, who leads too
    expect(panel(page)).to_contain_text("Bojan rolls the three dice and leads the first trick.")
    tap_and_wait(page, taps, button("Roll the three dice"))
    expect(panel(page)).to_have_attribute("data-target", "14")
    expect(panel(page).locator(".kv-target .die")).to_have_count(3)
    expect(panel(page).locator(".kv-roll")).to_have_count(1)
    stage("burn, turned card, virtual roll")
    # the dice have landed: their roll animation is over (waited for, not slept on)
    page.wait_for_function(
        "() => document.getAnimations().every((a) => a.playState === 'finished')"
    )
    shots(page, "kvanta-target")
    assert_inside_viewport(page)

    # a deliberate re-roll with physical dice: a new, listed roll that counts
    taps("#kv-panel .kv-reroll > summary")
    taps("#kv-panel .kv-reroll .kv-physical > summary")
    for die, face in enumerate((6, 4, 3)):  # chosen on this phone, sent with the roll
        taps(f'#kv-panel .kv-reroll .kv-face[data-die="{die}"][data-face="{face}"]')
    # #24: a roll again is asked for by a player, and confirmed by a second tap
    ask = button("Ceca asked: use these dice")
    taps(ask)
    expect(page.locator(ask.replace("Ceca asked: use these dice", "Tap again"))).to_be_visible()
    assert panel(page).locator(".kv-roll").count() == 1  # the first tap sent nothing
    tap_and_wait(page, taps, "#kv-panel .kv-reroll button.armed")
    expect(panel(page).locator(".kv-roll").nth(1)).to_contain_text("asked by Ceca")
    expect(panel(page)).to_have_attribute("data-target", "13")
    rolls = panel(page).locator(".kv-roll")
    expect(rolls).to_have_count(2)
    expect(rolls.nth(0)).to_have_attribute("data-physical", "false")
    expect(rolls.nth(1)).to_have_attribute("data-physical", "true")
    expect(rolls.nth(1)).to_have_class("kv-roll counts")
    target = 13
    stage("physical re-roll")

    # 4. nobody has Hand: on to the tricks
    tap_and_wait(page, taps, button("No Hand: play the tricks"))
    expect(panel(page)).to_have_attribute("data-phase", "tricks")

    # 5–6. trick 1: Bojan wins and rolls a 6 — Flux, +5 recorded at once
    tap_and_wait(page, taps, '#kv-panel .kv-players button:text-is("Bojan")')
    tap_and_wait(page, taps, button("Roll the exchange die"))
    expect(panel(page).locator('[data-verdict="flux"]')).to_be_visible()
    expect(panel(page).locator(".kv-exchange .die.exchange")).to_have_attribute("data-face", "6")
    assert totals(page)["Bojan"] == 5
    shots(page, "kvanta-flux")
    assert_inside_viewport(page)
    tap_and_wait(page, taps, button("No: Bojan leads a new trick"))

    # trick 2: Ceca wins, rolls a 3 and calls
    tap_and_wait(page, taps, '#kv-panel .kv-players button:text-is("Ceca")')
    tap_and_wait(page, taps, button("Roll the exchange die"))
    expect(panel(page).locator(".kv-exchange .die.exchange")).to_have_attribute("data-face", "3")
    tap_and_wait(page, taps, button("Ceca calls"))
    expect(panel(page)).to_have_attribute("data-phase", "call")
    stage("no Hand, two tricks, Flux, call")

    # 7. the call: sums on the keypad; Ana is closer than the caller — an undercut.
    # One rule (#24): a sum never moves on by itself; "Next player ›" does
    sums = {"Ana": "12", "Bojan": "19", "Ceca": "10"}
    for name, value in sums.items():
        for digit in value:
            tap_and_wait(page, taps, key(digit))
        expect(editing(page)).to_have_attribute("data-editing", name)
        if name == "Ana":
            # another phone opening the call now starts at the first seat with no sum
            # typed; this one stays on Ana, whose sum may still take a digit
            second = phone_context(browser)
            other = second.new_page()
            other.goto(page.url)
            expect(editing(other)).to_have_attribute("data-editing", "Bojan")
            second.close()
            expect(editing(page)).to_have_attribute("data-editing", "Ana")
        if name != "Ceca":
            taps(NEXT)
        if name == "Ana":
            expect(editing(page)).to_have_attribute("data-editing", "Bojan")
            shots(page, "kvanta-call-keypad")
            assert_inside_viewport(page)
    call_request = {
        "target": target,
        "caller": "Ceca",
        "hands": {},
        "sums": {n: int(v) for n, v in sums.items()},
    }
    call = api.evaluate("kvanta-call", call_request)
    assert call["undercut"] and call["winners"] == ["Ana"]
    expect(panel(page).locator('[data-verdict="undercut"]')).to_be_visible()
    for name in names:
        expect(
            panel(page).locator(f'.kv-call tr[data-player="{name}"] td[data-points]')
        ).to_have_text(signed(call["points"][name]))  # −12, +12: a real minus sign
    shots(page, "kvanta-call-preview")
    assert_inside_viewport(page)
    before_call = totals(page)
    tap_and_wait(page, taps, button("Save the call"))
    expect(panel(page)).to_have_attribute("data-phase", "poker")
    stage("call settlement (3 sums)")
    after_call = {n: before_call[n] + call["points"][n] for n in names}
    assert totals(page) == after_call

    # 8. the poker phase: 5 cards each on the picker; prize by the turned 7♥
    hands = {
        "Ana": ["AS", "AH", "AD", "2C", "3C"],
        "Bojan": ["KS", "KH", "4D", "5D", "9C"],
        "Ceca": ["2S", "3S", "4S", "5S", "7D"],
    }
    for name, cards in hands.items():
        expect(editing(page)).to_have_attribute("data-editing", name)
        for code in cards:
            tap_and_wait(page, taps, card(code))
        if name == "Ana":
            shots(page, "kvanta-poker-picker")
            assert_inside_viewport(page)
        if name != "Ceca":  # five of seven: the player moves on by "Next player ›"
            taps(NEXT)
    poker = api.evaluate("kvanta-poker", {"prize_card": "7H", "hands": hands, "totals": after_call})
    assert poker["winner"] == "Ana" and poker["prize"] == 7
    expect(panel(page).locator('[data-verdict="poker"]')).to_contain_text(
        "Ana wins the poker prize: 7"
    )
    shots(page, "kvanta-poker-preview")
    assert_inside_viewport(page)
    tap_and_wait(page, taps, button("Save the poker prize"))
    expect(panel(page)).to_have_attribute("data-round", "2")
    stage("poker (5 cards each)")

    # totals are the engines' answers added up: Flux, call, poker
    flux = api.evaluate("kvanta-flux", {"players": names, "player": "Bojan", "target": target})
    expected = {n: flux["points"].get(n, 0) + call["points"][n] + poker["points"][n] for n in names}
    assert totals(page) == expected
    # every roll is listed: two targets (virtual, physical) and two exchange dice
    taps("#kv-panel .kv-rolls.earlier > summary")
    listed = panel(page).locator(".kv-rolls.earlier .kv-roll")
    expect(listed).to_have_count(4)
    kinds = [listed.nth(i).get_attribute("data-kind") for i in range(4)]
    assert sorted(kinds) == ["kvanta-exchange"] * 2 + ["kvanta-target"] * 2
    # the history shows the round's every roll, the one rolled again marked (#24)
    history = page.locator("#history")
    expect(history).to_contain_text("Target: 4 5 5, target 14 (virtual) — rolled again")
    expect(history).to_contain_text("Target again (asked by Ceca): 6 4 3, target 13 (physical)")
    expect(history).to_contain_text("Exchange die (Bojan): 6, Flux (virtual)")
    # round 2: the deal passed to Bojan
    expect(panel(page).locator(".kv-head .badge.dealer")).to_contain_text("Bojan")
    # K-D9: the burned cards were set out once, so round 2 asks only for the turned card
    expect(panel(page).locator(".kv-burn")).to_have_count(0)
    expect(panel(page).locator(".kv-burned-once")).to_be_visible()
    expect(panel(page).locator('[data-fact="burn"] strong')).to_have_text("3")
    shots(page, "kvanta-round-done")
    assert_inside_viewport(page)

    # the watching phone followed along, read-only
    expect(watcher.locator("#kv-panel")).to_have_attribute("data-round", "2")
    assert totals(watcher) == expected
    expect(watcher.locator("#kv-panel button")).to_have_count(0)
    shots(watcher, "kvanta-watch")
    watcher_context.close()
    print(f"\nkvanta round (dealer draw to poker prize, 3 players): {taps.count} taps")
    for name, count in stages.items():
        print(f"  {name}: {count}")


def test_a_hand_tie_a_disputed_trick_and_the_final_comparison(
    page, kvanta_server, taps, shots, console_errors
):
    # round 1: target 6+6+2 = 14 and a tied Hand; round 2: target 1+2+3 = 6, then the
    # burned cards are reached while drawing
    DICE.faces.extend([6, 6, 2, 1, 2, 3])
    names = ["Ana", "Bojan"]
    start_table(page, kvanta_server, "kvanta", names)
    tap_and_wait(page, taps, card("3D"))
    tap_and_wait(page, taps, card("3S"))
    expect(panel(page).locator('[data-verdict="dealer"]')).to_contain_text("Ana deals")
    tap_and_wait(page, taps, '#kv-panel .kv-burn button[data-action="burn"]:text-is("0")')
    tap_and_wait(page, taps, card("QS"))
    tap_and_wait(page, taps, button("Roll the three dice"))
    expect(panel(page)).to_have_attribute("data-target", "14")

    # both declare Hand with a sum of 14: still tied on sums alone, so the draw decides
    taps("#kv-panel .kv-hand-check > summary")
    for digit in "14":
        tap_and_wait(page, taps, key(digit))
    taps(NEXT)
    for digit in "14":
        tap_and_wait(page, taps, key(digit))
    expect(panel(page).locator('[data-verdict="tied"]')).to_contain_text("Ana, Bojan")
    tap_and_wait(page, taps, '#kv-panel .choices button:text-is("Bojan")')
    expect(panel(page).locator('[data-verdict="hand"]')).to_contain_text("Bojan has Hand")
    shots(page, "kvanta-hand-tie")
    assert_inside_viewport(page)
    tap_and_wait(page, taps, button("Save Hand: +15 to Bojan"))
    expect(panel(page)).to_have_attribute("data-phase", "poker")
    assert totals(page) == {"Ana": 0, "Bojan": 15}

    # poker with a queen prize: ⌈(vmax − v) / 2⌉, from the engine
    hands = {"Ana": ["9H", "9D", "2C", "3C", "4C"], "Bojan": ["5S", "6S", "8H", "JD", "KC"]}
    for cards in hands.values():
        for code in cards:
            tap_and_wait(page, taps, card(code))
        if cards is hands["Ana"]:
            taps(NEXT)
    poker = api.evaluate(
        "kvanta-poker", {"prize_card": "QS", "hands": hands, "totals": {"Ana": 0, "Bojan": 15}}
    )
    expect(panel(page).locator('[data-verdict="poker"]')).to_contain_text(
        f"Ana wins the poker prize: {poker['prize']}."
    )
    # #24: the Q prize's working: Ana's value v is the highest of all hands shown
    values = poker["values"]
    assert values["Ana"] == max(values.values())
    expect(panel(page).locator(".kv-prize-working")).to_have_text(
        f"Q: Ana's value v = {values['Ana']} is the highest, so the prize is {poker['prize']}."
    )
    tap_and_wait(page, taps, button("Save the poker prize"))
    expect(panel(page)).to_have_attribute("data-round", "2")
    assert totals(page) == {"Ana": poker["prize"], "Bojan": 15}

    # round 2: a disputed trick settled by the engine (K-D1), then the burned cards; the
    # burned cards themselves were set out at the game's start, not again (K-D9)
    expect(panel(page).locator(".kv-burn")).to_have_count(0)
    tap_and_wait(page, taps, card("2H"))
    tap_and_wait(page, taps, button("Roll the three dice"))
    expect(panel(page)).to_have_attribute("data-target", "6")
    tap_and_wait(page, taps, button("No Hand: play the tricks"))
    # #24: who leads is shown (Bojan deals round 2, so Ana rolled and leads)
    expect(panel(page).locator("h3", has_text="Trick 1")).to_contain_text("Ana leads")
    taps("#kv-panel .kv-dispute > summary")
    tap_and_wait(page, taps, card("AS"))
    tap_and_wait(page, taps, card("3H"))
    expect(panel(page).locator('[data-verdict="trick"]')).to_contain_text("Bojan wins the trick")
    shots(page, "kvanta-trick-dispute")
    assert_inside_viewport(page)
    tap_and_wait(page, taps, button("Bojan won"))
    expect(panel(page)).to_contain_text("Bojan rolls the exchange die.")

    taps("#kv-panel .kv-end > summary")
    tap_and_wait(page, taps, button("Final comparison, no caller"))
    expect(panel(page)).to_have_attribute("data-phase", "final-compare")
    # Ana 9, Bojan 21 (Zilch pays double): after a 9 the keypad stays on Ana, as after
    # any digit, and "Next player ›" goes to Bojan, skipping nobody (#24)
    tap_and_wait(page, taps, key("9"))
    expect(editing(page)).to_have_attribute("data-editing", "Ana")
    taps(NEXT)
    expect(editing(page)).to_have_attribute("data-editing", "Bojan")
    for digit in "21":
        tap_and_wait(page, taps, key(digit))
    final = api.evaluate(
        "kvanta-call", {"target": 6, "caller": None, "hands": {}, "sums": {"Ana": 9, "Bojan": 21}}
    )
    for name in names:
        expect(
            panel(page).locator(f'.kv-call tr[data-player="{name}"] td[data-points]')
        ).to_have_text(signed(final["points"][name]))
    shots(page, "kvanta-final-comparison")
    assert_inside_viewport(page)
    tap_and_wait(page, taps, button("Save and end the game"))
    expect(panel(page)).to_have_attribute("data-phase", "over")
    expected = {
        "Ana": poker["prize"] + final["points"]["Ana"],
        "Bojan": 15 + final["points"]["Bojan"],
    }
    assert totals(page) == expected
    expect(page.locator("#standings .status.finished")).to_contain_text("K-D7")
    shots(page, "kvanta-game-over")
    assert_inside_viewport(page)
    print(
        f"\nkvanta: tied Hand, poker, disputed trick, final comparison (2 players): {taps.count} taps"
    )


def test_a_finished_game_follows_another_phone_without_a_console_error(
    page, browser, kvanta_server, console_errors
):
    """#24: once a Kvanta game was over, a phone's poll logged ``htmx:oobErrorNoTarget
    #pad-round``: it sent the score pad's round out of band, and a finished game's page
    has no pad. Here another phone renames a player after the end; this phone's poll
    brings the change, and ``console_errors`` holds what this phone logged."""
    scorer_url = start_table(page, kvanta_server, "kvanta", ["Ana", "Bojan"])
    expect(page.locator("#pad-round")).to_have_count(1)
    page.locator("form.end-game button").tap()
    expect(page.locator("form.end-game button")).to_have_text("Tap again to end the game")
    page.locator("form.end-game button").tap()  # the confirming tap
    expect(page.locator("#standings .status.finished")).to_be_visible()
    expect(page.locator("#pad-round")).to_have_count(0)

    other_context = phone_context(browser)
    other = other_context.new_page()
    other.goto(scorer_url)
    other.locator("summary", has_text="Players and table").tap()
    other.locator('input[aria-label="Name of seat 2"]').fill("Bora")
    other.locator("form.rename button").nth(1).tap()
    expect(other.locator('#standings [data-player="Bora"]')).to_have_count(1)
    other_context.close()

    expect(page.locator('#standings [data-player="Bora"]')).to_have_count(1)  # by the poll
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => done()))")
    assert console_errors == []


def test_a_game_ended_by_the_panel_takes_the_pad_and_the_end_button_away(
    page, kvanta_server, taps, console_errors
):
    """Ended by the panel ("Not everyone got 7 cards"), the game's page still offered the
    score pad and "End the game": the tap's answer brings the standings and the panel,
    not the board. A tap on "End the game" then said a round "was just entered on
    another phone". Both go with the end, and come back when the end is undone."""
    start_table(page, kvanta_server, "kvanta", ["Ana", "Bojan"])
    tap_and_wait(page, taps, card("3D"))
    tap_and_wait(page, taps, card("3S"))
    tap_and_wait(page, taps, '#kv-panel .kv-burn button[data-action="burn"]:text-is("0")')
    pad, end = page.locator("details.pad-by-hand"), page.locator("form.end-game")
    expect(pad).to_be_visible()
    expect(end).to_be_visible()
    taps("#kv-panel .kv-end > summary")
    taps(button("Not everyone got 7 cards"))
    tap_and_wait(page, taps, button("Tap again"))
    expect(page.locator("#standings .status.finished")).to_be_visible()
    expect(pad).to_be_hidden()
    expect(end).to_be_hidden()
    taps('#history li:has-text("Game ended") button:text("Undo")')
    taps('#history li:has-text("Game ended") button:text("Tap again to undo")')
    expect(page.locator("#standings .status.finished")).to_have_count(0)
    expect(pad).to_be_visible()
    expect(end).to_be_visible()


def test_the_cards_typed_for_a_hand_are_carried_into_the_poker(
    page, kvanta_server, taps, console_errors
):
    """#24: the seven cards typed for the Hand check come along to the poker phase,
    so nobody types them again (7 taps saved for the Hand's winner)."""
    DICE.faces.extend([4, 5, 5])  # target 14
    start_table(page, kvanta_server, "kvanta", ["Ana", "Bojan"])
    tap_and_wait(page, taps, card("3D"))
    tap_and_wait(page, taps, card("3S"))  # Ana deals, Bojan rolls
    tap_and_wait(page, taps, '#kv-panel .kv-burn button[data-action="burn"]:text-is("0")')
    tap_and_wait(page, taps, card("2C"))
    tap_and_wait(page, taps, button("Roll the three dice"))
    expect(panel(page)).to_have_attribute("data-target", "14")

    taps("#kv-panel .kv-hand-check > summary")
    taps("#kv-panel .kv-editor:visible .kv-cards-instead > summary")
    hand = ["9H", "5D", "KS", "QS", "JC", "KH", "QH"]  # 9 + 5: a sum of 14
    for code in hand:
        tap_and_wait(page, taps, card(code))
    expect(panel(page).locator(".kv-editor:visible")).to_have_attribute("data-editing", "Bojan")
    tap_and_wait(page, taps, key("3"))
    expect(panel(page).locator('[data-verdict="hand"]')).to_contain_text("Ana has Hand")
    tap_and_wait(page, taps, button("Save Hand: +15 to Ana"))
    expect(panel(page)).to_have_attribute("data-phase", "poker")
    assert totals(page) == {"Ana": 15, "Bojan": 0}

    # in the poker, Ana's seven cards are there already; only Bojan's are to enter
    seat = panel(page).locator('.kv-seat[data-player="Ana"] .kv-seat-value')
    expect(seat).to_contain_text("7/7")
    for code in hand:
        expect(seat).to_contain_text(code[:-1])
    expect(panel(page).locator(".kv-editor:visible")).to_have_attribute("data-editing", "Bojan")
    assert_inside_viewport(page)


def hand_to_ana_then_poker(page, kvanta_server, taps, faces: list[int]) -> str:
    """Ana and Bojan: Ana deals, the dice roll ``faces`` (a target of 14), Ana declares
    Hand with a sum of 14 against Bojan's 3 and it is saved: on to the poker. The
    table's URL."""
    DICE.faces.extend(faces)
    url = start_table(page, kvanta_server, "kvanta", ["Ana", "Bojan"])
    tap_and_wait(page, taps, card("3D"))
    tap_and_wait(page, taps, card("3S"))  # Ana deals, Bojan rolls
    tap_and_wait(page, taps, '#kv-panel .kv-burn button[data-action="burn"]:text-is("0")')
    tap_and_wait(page, taps, card("2C"))
    tap_and_wait(page, taps, button("Roll the three dice"))
    expect(panel(page)).to_have_attribute("data-target", "14")
    taps("#kv-panel .kv-hand-check > summary")
    for digit in "14":
        tap_and_wait(page, taps, key(digit))
    taps(NEXT)
    tap_and_wait(page, taps, key("3"))
    tap_and_wait(page, taps, button("Save Hand: +15 to Ana"))
    expect(panel(page)).to_have_attribute("data-phase", "poker")
    return url


def test_a_poker_hand_of_seven_stays_with_its_player_past_the_fifth_card(
    page, kvanta_server, taps, console_errors
):
    """A poker hand is entered as the 5 cards kept or all 7 (K-D8): after the fifth card
    the editor stays on that player, so the sixth and seventh are not put in the next
    player's hand; it moves on by itself at the seventh."""
    hand_to_ana_then_poker(page, kvanta_server, taps, [4, 5, 5])
    seven = ["AS", "AH", "AD", "KS", "KH", "2D", "3D"]
    for number, code in enumerate(seven, start=1):
        expect(editing(page)).to_have_attribute("data-editing", "Ana")
        tap_and_wait(page, taps, card(code))
        if number < len(seven):
            expect(panel(page).locator('.kv-seat[data-player="Ana"]')).to_contain_text(
                f"{number}/7"
            )
    expect(panel(page).locator('.kv-seat[data-player="Ana"]')).to_contain_text("7/7")
    expect(panel(page).locator('.kv-seat[data-player="Bojan"] .kv-seat-value')).to_have_text("—")
    expect(editing(page)).to_have_attribute("data-editing", "Bojan")
    assert_inside_viewport(page)


def test_edit_of_a_saved_round_changes_one_card(page, kvanta_server, taps, shots, console_errors):
    """#20: a saved Kvanta round has Edit in the history: its taps come back on the
    screen with every card as it was; one of Ana's poker cards changed and saved, the
    round's new entries supersede the old ones and the totals follow; undoing the edit
    brings the old round back."""
    url = hand_to_ana_then_poker(page, kvanta_server, taps, [6, 6, 2])
    hands = {"Ana": ["9H", "9D", "2S", "3C", "4C"], "Bojan": ["5S", "6S", "8H", "JD", "KC"]}
    for name, cards in hands.items():
        expect(editing(page)).to_have_attribute("data-editing", name)
        for code in cards:
            tap_and_wait(page, taps, card(code))
        if name == "Ana":
            taps(NEXT)
    tap_and_wait(page, taps, button("Save the poker prize"))
    expect(panel(page)).to_have_attribute("data-round", "2")
    hand_totals = {"Ana": 15, "Bojan": 0}
    first = api.evaluate(
        "kvanta-poker", {"prize_card": "2C", "hands": hands, "totals": hand_totals}
    )
    before = {n: hand_totals[n] + first["points"][n] for n in hands}
    assert first["winner"] == "Ana" and totals(page) == before

    # Edit, in the history: the round comes back as it was saved
    taps("#history form.reopen button")
    expect(panel(page)).to_contain_text("Changing round 1")
    expect(panel(page)).to_have_attribute("data-round", "1")
    expect(panel(page).locator(".kv-save")).to_be_enabled()
    shots(page, "kvanta-edit-open")
    assert_inside_viewport(page)
    tap_and_wait(page, taps, '#kv-panel [data-op="undo"]')  # back to the poker's hands
    expect(panel(page)).to_have_attribute("data-phase", "poker")
    expect(panel(page).locator('.kv-seat[data-player="Ana"]')).to_contain_text("9♦")
    taps('#kv-panel .kv-seat[data-player="Ana"] .kv-seat-pick')  # Ana's hand, to change
    expect(editing(page)).to_have_attribute("data-editing", "Ana")
    tap_and_wait(page, taps, '#kv-panel .kv-editor:visible .kv-chip:has-text("9♦")')  # 9♦ out …
    tap_and_wait(page, taps, card("7D"))  # … 7♦ in
    changed = {**hands, "Ana": ["9H", "2S", "3C", "4C", "7D"]}
    second = api.evaluate(
        "kvanta-poker", {"prize_card": "2C", "hands": changed, "totals": hand_totals}
    )
    assert second["winner"] == "Bojan"
    expect(panel(page).locator('[data-verdict="poker"]')).to_contain_text("Bojan wins")
    assert totals(page) == before  # nothing counts until the round is saved
    tap_and_wait(page, taps, button("Save the poker prize"))
    expect(panel(page)).to_have_attribute("data-phase", "done")
    taps("#kv-panel .kv-save")
    expect(page.locator("#board .flash.ok")).to_contain_text("Round 1 changed.")
    expect(panel(page)).to_have_attribute("data-round", "2")
    after = {n: hand_totals[n] + second["points"][n] for n in hands}
    assert totals(page) == after
    expect(page.locator("#history")).to_contain_text("edited")
    shots(page, "kvanta-edit-saved")
    assert_inside_viewport(page)

    # undo of the edit (its newest row, the poker) brings the old round back whole
    taps('#history li.round button:text("Undo")')
    taps('#history li.round button:text("Tap again to undo")')  # the confirming tap
    expect(page.locator("#board .flash.ok")).to_contain_text("Round 1: the change undone")
    expect(page.locator('#standings .points[data-player="Ana"]')).to_have_text(str(before["Ana"]))
    assert totals(page) == before
    expect(panel(page)).to_have_attribute("data-round", "2")  # no empty round left behind
    assert page.url.startswith(url)


def to_the_call(page, taps, caller: str, turned: str) -> None:
    """From the burn: none burned, ``turned`` turned, the dice rolled, no Hand; the
    caller wins the tricks, rolls the exchange die and calls."""
    tap_and_wait(page, taps, '#kv-panel .kv-burn button[data-action="burn"]:text-is("0")')
    tap_and_wait(page, taps, card(turned))
    tap_and_wait(page, taps, button("Roll the three dice"))
    tap_and_wait(page, taps, button("No Hand: play the tricks"))
    tap_and_wait(page, taps, f'#kv-panel .kv-players button:text-is("{caller}")')
    tap_and_wait(page, taps, button("Roll the exchange die"))
    tap_and_wait(page, taps, button(f"{caller} calls"))


def test_an_edit_changes_the_call_and_keeps_the_poker(page, kvanta_server, taps, console_errors):
    """#20: "change the call" of a saved round: in the Edit, one tap goes back to the
    call; Bojan's sum corrected and the call settled again, the poker that followed
    comes back with its cards, and the saved round is scored anew."""
    DICE.faces.extend([4, 5, 5, 2])  # target 14; Ana rolls a 2 and calls
    start_table(page, kvanta_server, "kvanta", ["Ana", "Bojan"])
    tap_and_wait(page, taps, card("3D"))
    tap_and_wait(page, taps, card("3S"))  # Ana deals, Bojan rolls and leads
    to_the_call(page, taps, "Ana", turned="2C")
    for digit in "14":
        tap_and_wait(page, taps, key(digit))
    taps(NEXT)
    tap_and_wait(page, taps, key("4"))
    tap_and_wait(page, taps, button("Save the call"))
    hands = {"Ana": ["9H", "9D", "2S", "3C", "4C"], "Bojan": ["5S", "6S", "8H", "JD", "KC"]}
    for name, cards in hands.items():
        expect(editing(page)).to_have_attribute("data-editing", name)
        for code in cards:
            tap_and_wait(page, taps, card(code))
        if name == "Ana":
            taps(NEXT)
    tap_and_wait(page, taps, button("Save the poker prize"))
    expect(panel(page)).to_have_attribute("data-round", "2")

    taps("#history form.reopen button")
    expect(panel(page)).to_contain_text("Changing round 1")
    tap_and_wait(page, taps, '#kv-panel .kv-backs button[data-step="kvanta-call"]')
    expect(panel(page)).to_have_attribute("data-phase", "call")
    taps('#kv-panel .kv-seat[data-player="Bojan"] .kv-seat-pick')
    expect(editing(page)).to_have_attribute("data-editing", "Bojan")
    tap_and_wait(page, taps, key("⌫"))
    for digit in "10":
        tap_and_wait(page, taps, key(digit))
    tap_and_wait(page, taps, button("Save the call"))
    expect(panel(page)).to_have_attribute("data-phase", "done")  # the poker came back
    taps("#kv-panel .kv-save")
    expect(page.locator("#board .flash.ok")).to_contain_text("Round 1 changed.")
    call = api.evaluate(
        "kvanta-call", {"target": 14, "caller": "Ana", "sums": {"Ana": 14, "Bojan": 10}}
    )
    poker = api.evaluate(
        "kvanta-poker", {"prize_card": "2C", "hands": hands, "totals": call["points"]}
    )
    assert totals(page) == {n: call["points"][n] + poker["points"][n] for n in hands}
    assert_inside_viewport(page)


def test_a_fourth_copy_is_refused_with_a_reason_every_phone_can_read(
    page, kvanta_server, taps, console_errors
):
    """Three decks hold three of each card: once three K♠ are in play (here the turned
    K♠ and two in Ana's hand), the K♠ of the picker is disabled, and the reason is a line
    under the picker, not only the button's small print (cut to "3 иск…" in Serbian,
    Lithuanian and Slovak, and a tooltip a phone never shows)."""
    DICE.faces.extend([4, 5, 5])
    start_table(page, kvanta_server, "kvanta", ["Ana", "Bojan"])
    tap_and_wait(page, taps, card("3D"))
    tap_and_wait(page, taps, card("3S"))  # Ana deals, Bojan rolls
    tap_and_wait(page, taps, '#kv-panel .kv-burn button[data-action="burn"]:text-is("0")')
    tap_and_wait(page, taps, card("KS"))  # the turned card is one of the three
    tap_and_wait(page, taps, button("Roll the three dice"))
    taps("#kv-panel .kv-hand-check > summary")
    taps("#kv-panel .kv-editor:visible .kv-cards-instead > summary")
    used = panel(page).locator(".kv-used-up:visible")
    tap_and_wait(page, taps, card("KS"))
    expect(used).to_have_count(0)  # two K♠ in play: a third may come
    tap_and_wait(page, taps, card("KS"))
    expect(page.locator(card("KS"))).to_be_disabled()
    expect(used).to_contain_text("All three copies are already in play")
    expect(used.locator(".kv-card")).to_have_text(["K♠"])
    box = used.bounding_box()
    assert box["width"] <= 390 and used.evaluate("e => e.scrollWidth <= e.clientWidth")
    # the same line in Serbian Cyrillic, where the button's own small print is cut
    page.goto(page.url.split("?")[0] + "?lang=sr-Cyrl")
    if not panel(page).locator(".kv-hand-check").evaluate("e => e.open"):  # kept folds
        taps("#kv-panel .kv-hand-check > summary")
    expect(panel(page).locator(".kv-used-up:visible .kv-card")).to_have_text(["K♠"])
    expect(panel(page).locator(".kv-used-up:visible")).not_to_contain_text("All three")
    assert_inside_viewport(page)


def test_the_call_at_200_percent_zoom_fits_the_screen(
    page, zoomed, kvanta_server, taps, console_errors
):
    """Zoomed in (a 390 px phone at 200 %: 195 CSS px), the call's table of sums,
    distances and points with its badges ("caller", "wins", "Zilch ×2") pushed the
    page sideways."""
    DICE.faces.extend([4, 5, 5, 2])  # target 14; Konstantin rolls a 2 and calls
    names = ["Aleksandra", "Konstantin", "Ceca", "Dule"]
    url = start_table(page, kvanta_server, "kvanta", names)
    for code in ("2C", "9D", "KS", "QH"):  # Aleksandra deals, Konstantin rolls and leads
        tap_and_wait(page, taps, card(code))
    to_the_call(page, taps, "Konstantin", turned="7H")
    for name, value in zip(names, ("12", "19", "40", "14"), strict=True):
        for digit in value:
            tap_and_wait(page, taps, key(digit))
        if name != names[-1]:
            taps(NEXT)
    expect(panel(page).locator(".kv-call")).to_be_visible()
    for language in ("en", "sk"):
        zoomed.goto(f"{url}?lang={language}")
        expect(zoomed.locator("#kv-panel .kv-call")).to_be_visible()
        open_every_details(zoomed)
        assert sideways_overflow(zoomed) == [], language


def cards_per_row_and_narrowest(page) -> tuple[int, float, float]:
    """The card picker as drawn: the cards on its first row, the narrowest and the
    lowest card shown."""
    return page.evaluate(
        """() => {
            const picks = [...document.querySelectorAll("#kv-panel .pick")]
                .map((el) => el.getBoundingClientRect()).filter((r) => r.width);
            const top = picks[0].top;
            return [picks.filter((r) => Math.abs(r.top - top) < 1).length,
                    Math.min(...picks.map((r) => r.width)), Math.min(...picks.map((r) => r.height))];
        }"""
    )


def test_cards_on_a_360_px_phone_take_a_thumb(page, browser, kvanta_server, taps, console_errors):
    """On a 360 px phone seven cards to a row were 41 px wide, under the 44 px a tap
    target takes; the 390 px phone keeps its seven to a row as they were."""
    url = start_table(page, kvanta_server, "kvanta", ["Ana", "Bojan", "Ceca", "Dule"])
    assert cards_per_row_and_narrowest(page)[0] == 7
    narrow = listen(
        browser.new_context(viewport={"width": 360, "height": 780}, has_touch=True, is_mobile=True),
        "N",
    ).new_page()
    narrow.goto(url)
    expect(panel(narrow)).to_have_attribute("data-phase", "dealer")
    per_row, width, height = cards_per_row_and_narrowest(narrow)
    assert width >= 44 and height >= 44, (per_row, width, height)
    assert per_row == 7  # still a suit in two rows
    assert_inside_viewport(narrow)
    for code in ("2C", "9D", "KS", "QH"):  # the draw for the deal: Ana deals
        tap_and_wait(narrow, taps, card(code))
    tap_and_wait(narrow, taps, '#kv-panel .kv-burn button[data-action="burn"]:text-is("0")')
    expect(panel(narrow)).to_have_attribute("data-phase", "turn")
    per_row, width, height = cards_per_row_and_narrowest(narrow)  # the turned card's picker
    assert width >= 44 and height >= 44, (per_row, width, height)
    assert_inside_viewport(narrow)
    narrow.context.close()


def kvanta_tables_fit(page, selector: str, language: str) -> None:
    """Nothing reaches past the screen's edge, no cell's text runs out of its own box
    and no badge is cut in two at the end of a line."""
    open_every_details(page)
    expect(page.locator(selector)).to_be_visible()
    assert sideways_overflow(page) == [], language
    assert spilled_text(page, f"{selector} td, {selector} td *") == [], language
    split = (
        "(els) => els.filter((el) => el.getClientRects().length > 1).map((el) => el.textContent)"
    )
    assert page.locator(f"{selector} .badge").evaluate_all(split) == [], language


def test_the_hand_and_poker_previews_at_200_percent_zoom_fit_the_screen(
    page, zoomed, browser, kvanta_server, taps, console_errors
):
    """Zoomed in (a 390 px phone at 200 %: 195 CSS px), the Hand check's table of sums
    and points (a "hits 14" badge by a name) and the poker's table of best hands (the
    hand's name, five cards, a "cancelled" badge) pushed the page sideways, as the call's
    table did; a 360 px phone shows them whole too."""
    DICE.faces.extend([4, 5, 5])  # target 14
    names = ["Aleksandra", "Konstantin", "Ceca", "Dule"]
    url = start_table(page, kvanta_server, "kvanta", names)
    for code in ("2C", "9D", "KS", "QH"):  # Aleksandra deals, Konstantin rolls
        tap_and_wait(page, taps, card(code))
    tap_and_wait(page, taps, '#kv-panel .kv-burn button[data-action="burn"]:text-is("0")')
    tap_and_wait(page, taps, card("7H"))
    tap_and_wait(page, taps, button("Roll the three dice"))
    expect(panel(page)).to_have_attribute("data-target", "14")
    narrow = listen(
        browser.new_context(viewport={"width": 360, "height": 780}, has_touch=True, is_mobile=True),
        "N",
    ).new_page()

    # the Hand check: Konstantin's sum hits the target
    taps("#kv-panel .kv-hand-check > summary")
    for name, value in zip(names, ("12", "14", "19", "23"), strict=True):
        expect(editing(page)).to_have_attribute("data-editing", name)
        for digit in value:
            tap_and_wait(page, taps, key(digit))
        if name != names[-1]:
            taps(NEXT)
    expect(panel(page).locator('[data-verdict="hand"]')).to_contain_text("Konstantin has Hand")
    for language in ("en", "sk"):
        zoomed.goto(f"{url}?lang={language}")
        kvanta_tables_fit(zoomed, "#kv-panel .kv-breakdown", language)
    narrow.goto(url)
    kvanta_tables_fit(narrow, "#kv-panel .kv-breakdown", "en at 360 px")

    # the poker: Aleksandra's and Konstantin's four aces cancel (K-D4), Ceca's straight wins
    tap_and_wait(page, taps, button("Save Hand: +15 to Konstantin"))
    hands = {
        "Aleksandra": ["AS", "AH", "AD", "AC", "KS"],
        "Konstantin": ["AS", "AH", "AD", "AC", "KS"],
        "Ceca": ["2S", "3S", "4S", "5S", "6D"],
        "Dule": ["KH", "KD", "4D", "4C", "9C"],
    }
    for name, codes in hands.items():
        expect(editing(page)).to_have_attribute("data-editing", name)
        for code in codes:
            tap_and_wait(page, taps, card(code))
        if name != "Dule":
            taps(NEXT)
    expect(panel(page).locator('[data-verdict="poker"]')).to_contain_text("Ceca wins")
    expect(panel(page).locator(".kv-poker .badge")).to_have_count(2)
    for language in ("en", "sk", "lt"):
        zoomed.goto(f"{url}?lang={language}")
        kvanta_tables_fit(zoomed, "#kv-panel .kv-poker", language)
    narrow.goto(url)
    kvanta_tables_fit(narrow, "#kv-panel .kv-poker", "en at 360 px")
    narrow.context.close()
