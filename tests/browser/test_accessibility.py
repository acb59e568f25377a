"""Accessibility at the table: the pages at 200 % zoom on a 390 px phone (a layout
195 CSS px wide) do not scroll sideways."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import PHONE, ZOOMED, phone_context, start_table

GAMES = {
    "cowboy": ["Ana", "Bob", "Cid"],
    "kvanta": ["Ana", "Bob", "Cid", "Dan"],
    "vezimas": ["Ana", "Bob", "Cid", "Dan"],
    "szaman": ["Ana", "Bob", "Cid", "Dan"],
    "pegs": ["Ana", "Bob", "Cid", "Dan"],
}


def open_every_details(page):
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")


def sideways_overflow(page) -> list[str]:
    """What reaches past the right edge of the screen (nothing may: the page would
    scroll sideways). What lies in a frame that scrolls sideways itself (the Pegs board
    zoomed in) is reached in that frame; the frame itself is on the screen."""
    return page.evaluate(
        """() => {
            const width = document.documentElement.clientWidth;
            const scrolls = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
            const inFrame = (el) => {
                for (let up = el.parentElement; up && up !== document.body; up = up.parentElement)
                    if (scrolls(up)) return true;
                return false;
            };
            const bad = [];
            for (const el of document.querySelectorAll('body *')) {
                const r = el.getBoundingClientRect();
                if (r.width && r.right > width + 1 && !inFrame(el)) bad.push(el.outerHTML.slice(0, 70));
            }
            if (document.documentElement.scrollWidth > width) bad.push('page scrolls sideways');
            return bad;
        }"""
    )


def spilled_text(page, selector: str) -> list[str]:
    """Elements whose text runs past their own box (onto a border or a neighbour)."""
    return page.locator(selector).evaluate_all(
        """(els) => els.filter((el) => el.getBoundingClientRect().width
                                 && el.scrollWidth > el.clientWidth + 1)
                       .map((el) => `${el.textContent.trim()} ${el.scrollWidth}>${el.clientWidth}`)"""
    )


def small_targets(page, selector: str) -> list[str]:
    return page.locator(selector).evaluate_all(
        """(els) => els.map((el) => [el, el.getBoundingClientRect()])
                       .filter(([el, r]) => r.width && (r.width < 44 || r.height < 44))
                       .map(([el, r]) => `${el.textContent.trim()} ${Math.round(r.width)}×${Math.round(r.height)}`)"""
    )


@pytest.mark.parametrize("lang", ["en", "pl", "sr-Cyrl"])
def test_the_home_page_at_200_percent_zoom_does_not_scroll_sideways(zoomed, live_server, lang):
    zoomed.goto(f"{live_server}/?lang={lang}")
    open_every_details(zoomed)
    assert sideways_overflow(zoomed) == []
    assert small_targets(zoomed, "main select") == []  # kept to the screen, still a target


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_table_at_200_percent_zoom_does_not_scroll_sideways(page, zoomed, live_server, game):
    url = start_table(page, live_server, game, GAMES[game])
    zoomed.goto(url)
    expect(zoomed.locator("#board")).to_be_visible()
    open_every_details(zoomed)  # the share links and their codes, the language menu
    assert sideways_overflow(zoomed) == []
    assert small_targets(zoomed, ".topbar a, .topbar summary") == []


def test_the_language_menu_at_200_percent_zoom_fits_the_screen(zoomed, live_server):
    """The menu hangs from the sticky top bar, which does not scroll: an entry below
    the screen's edge could never be reached."""
    zoomed.goto(f"{live_server}/")
    zoomed.locator(".lang-switch summary").click()
    last = zoomed.locator(".lang-menu button").last
    last.scroll_into_view_if_needed()
    box = last.bounding_box()
    assert box["y"] + box["height"] <= ZOOMED["height"], box
    assert sideways_overflow(zoomed) == []


def test_an_error_page_at_200_percent_zoom_does_not_scroll_sideways(zoomed, live_server):
    zoomed.goto(f"{live_server}/t/no-such-table")
    open_every_details(zoomed)
    assert sideways_overflow(zoomed) == []


@pytest.mark.parametrize("lang", ["sk", "lt", "sr-Cyrl"])
def test_rename_stays_inside_its_button_in_long_languages(page, live_server, lang):
    url = start_table(page, live_server, "cowboy", GAMES["cowboy"])
    page.goto(f"{url}?lang={lang}")
    open_every_details(page)
    assert spilled_text(page, ".rename button") == []


@pytest.mark.parametrize("lang", ["pl", "en"])
def test_the_steps_of_a_kvanta_round_keep_their_words_apart(page, zoomed, live_server, lang):
    """ "Sprawdzenie" ran into "Poker" at 390 px; zoomed in, every step into the next."""
    url = start_table(page, live_server, "kvanta", GAMES["kvanta"])
    phone = page if lang == "pl" else zoomed
    phone.goto(f"{url}?lang={lang}")
    expect(phone.locator(".kv-steps li.now")).to_be_visible()
    assert spilled_text(phone, ".kv-steps li") == []


@pytest.mark.parametrize("game", ["kvanta", "pegs"])
def test_cards_at_200_percent_zoom_stay_44_px_wide(page, zoomed, live_server, game):
    """Seven cards to a row left 18 px a card when zoomed in."""
    url = start_table(page, live_server, game, GAMES[game])
    zoomed.goto(url)
    expect(zoomed.locator(".pick").first).to_be_visible()
    assert small_targets(zoomed, ".pick") == []


CONTRAST = """(el) => {
    // colours as computed: rgb()/rgba(), or color(srgb r g b / a) for a color-mix()
    const parse = (c) => {
        const n = (c.match(/[\\d.]+/g) || []).map(Number);
        if (c.startsWith('color(')) return [n[0] * 255, n[1] * 255, n[2] * 255, n[3] ?? 1];
        return c === 'transparent' ? [0, 0, 0, 0] : [n[0], n[1], n[2], n[3] ?? 1];
    };
    const over = (top, below) => [0, 1, 2].map((i) => top[i] * top[3] + below[i] * (1 - top[3])).concat(1);
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
        const bg = parse(getComputedStyle(e).backgroundColor);
        if (bg[3] > 0) layers.push(bg);
        if (bg[3] >= 1) break;
    }
    let back = [255, 255, 255, 1];
    for (const layer of layers.reverse()) back = over(layer, back);
    // an ancestor's opacity fades the text into what lies behind it
    let opacity = 1;
    for (let e = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
    const colour = parse(getComputedStyle(el).color);
    const fore = over([colour[0], colour[1], colour[2], colour[3] * opacity], back);
    const lum = (c) => c.slice(0, 3).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
                         .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
    const [a, b] = [lum(fore), lum(back)].sort((x, y) => y - x);
    return (a + 0.05) / (b + 0.05);
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_refused_start_is_read_at_4_5_to_1(browser, live_server, scheme):
    """The red of an error on its pink tint over the page's paper was 4.48:1."""
    context = browser.new_context(
        viewport=PHONE, has_touch=True, is_mobile=True, color_scheme=scheme
    )
    page = context.new_page()
    page.goto(f"{live_server}/")
    page.get_by_role("button", name="Start the table").click()
    message = page.locator(".flash.error").first
    expect(message).to_be_visible()
    # the refusal is a new page: read once its stylesheet is in (before it, the dark
    # scheme's default white text measured 1:1 against the white the script assumes)
    page.wait_for_load_state("load")
    assert message.evaluate(CONTRAST) >= 4.5
    context.close()


def focused(page) -> dict:
    return page.evaluate(
        """() => { const el = document.activeElement;
                   return {tag: el.tagName, card: el.getAttribute('data-card'),
                           ring: el.matches(':focus-visible'), text: el.textContent.trim()}; }"""
    )


def test_a_card_entered_with_the_keyboard_keeps_the_focus_in_the_panel(page, live_server):
    """The tap's answer redraws the panel: the focus fell back to the page's start, and
    a keyboard or switch user had to find the cards again from the top."""
    start_table(page, live_server, "kvanta", GAMES["kvanta"])
    panel = page.locator("[data-deal-version]").first
    picks = page.locator(".pick[data-card]:not([disabled])")
    picks.nth(0).focus()
    page.keyboard.press("Tab")  # the keyboard moves to the second card
    second = picks.nth(1).get_attribute("data-card")
    assert focused(page)["card"] == second
    version = panel.get_attribute("data-deal-version")
    page.keyboard.press("Enter")
    expect(panel).not_to_have_attribute("data-deal-version", version)
    # the card is Ana's now, out of the next player's reach: the focus is on the card
    # in its place, and shows
    expect(page.locator(".pick:focus-visible")).to_have_count(1)
    assert focused(page)["tag"] == "BUTTON"
    # and the keyboard carries on with the next player's card
    version = panel.get_attribute("data-deal-version")
    page.keyboard.press("Enter")
    expect(panel).not_to_have_attribute("data-deal-version", version)
    expect(page.locator(".pick:focus-visible")).to_have_count(1)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_rules_page_at_200_percent_zoom_does_not_scroll_sideways(page, zoomed, live_server, game):
    """The Cowboy card's table of guns was wider than the page."""
    url = start_table(page, live_server, game, GAMES[game])
    zoomed.goto(f"{url.split('?')[0]}/rules")
    expect(zoomed.locator(".rulecard")).to_be_visible()
    assert sideways_overflow(zoomed) == []


def faint_text(page, selector: str) -> list[str]:
    """Text under ``selector`` read at less than 4.5:1."""
    return [
        f"{el.inner_text().strip()} {ratio:.2f}"
        for el in page.locator(selector).all()
        if (ratio := el.evaluate(CONTRAST)) < 4.5
    ]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_an_undone_round_is_still_read_at_4_5_to_1(browser, live_server, scheme):
    """An undone round stays in the history to be read (and redone); faded to 60 %, its
    names and kind were 2.85:1."""
    page = phone_context(browser, color_scheme=scheme).new_page()
    start_table(page, live_server, "vezimas", ["Asta", "Jonas", "Rūta"])
    page.locator("details.pad-by-hand > summary").tap()
    for i, value in enumerate([0, 1, 0]):
        page.locator(".pad-input").nth(i).tap()
        page.locator(f'.key[data-key="{value}"]').tap()
    page.locator("#pad button[type=submit]").tap()
    row = page.locator('#history [data-round="1"]')
    undo = row.get_by_role("button", name="Undo")
    undo.tap()
    expect(undo).to_have_text("Tap again to undo")
    undo.tap()
    expect(row).to_have_class(re.compile(r"\bundone\b"))
    assert (
        faint_text(page, '#history [data-round="1"] :is(.round-no, .round-kind, .name, strong)')
        == []
    )
    page.context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_vezimas_player_out_of_cards_is_still_read_at_4_5_to_1(browser, live_server, scheme):
    """Faded to 55 %, a seat out of cards (its name, its trump, "out") was 2.7 to 4.2:1."""
    from .test_vezimas_screen import NAMES, pick

    page = phone_context(browser, color_scheme=scheme).new_page()
    start_table(page, live_server, "vezimas", NAMES)

    def tap(selector):
        page.locator(selector).tap()
        expect(page.locator(selector)).to_have_attribute("aria-pressed", "true")

    tap(pick("Who holds the queen of clubs", "Jonas"))
    page.locator(".vz-save-trumps").tap()
    expect(page.locator(".vz-trumps")).to_contain_text("Jonas leads")
    tap(pick("Top card", "9S"))
    tap(pick("Whose turn", "Jonas"))
    tap(pick("Players out of cards", "Rūta"))
    expect(page.locator(".vz-seats li.vz-out")).to_have_count(1)
    assert faint_text(page, ".vz-seats li.vz-out :is(.vz-name, .vz-suit, .badge)") == []
    page.context.close()


def zoomed_tap(page, selector: str):
    """Tap the first control of ``selector`` this phone shows, and wait for the answer."""
    panel = page.locator("[data-deal-version]").first
    version = panel.get_attribute("data-deal-version")
    page.locator(f"{selector}:visible:enabled").first.tap()
    expect(panel).not_to_have_attribute("data-deal-version", version)


def test_kvanta_counts_and_dice_at_200_percent_zoom_stay_44_px_wide(page, zoomed, live_server):
    """Six burn counts and six die faces to a row were 21 px each when zoomed in."""
    url = start_table(page, live_server, "kvanta", GAMES["kvanta"])
    zoomed.goto(url)
    for _ in GAMES["kvanta"]:  # who deals first: a card each
        zoomed_tap(zoomed, ".pick")
    expect(zoomed.locator("[data-action=burn]").first).to_be_visible()
    assert small_targets(zoomed, "[data-action=burn]") == []
    zoomed_tap(zoomed, "[data-action=burn]")
    zoomed_tap(zoomed, ".pick")  # the card turned
    zoomed.locator("details.kv-physical:visible > summary").first.tap()  # dice on the table
    expect(zoomed.locator(".kv-face:visible").first).to_be_visible()
    assert small_targets(zoomed, ".kv-face:visible") == []
    assert sideways_overflow(zoomed) == []


def test_cowboy_suits_at_200_percent_zoom_stay_44_px_wide(page, zoomed, live_server):
    url = start_table(page, live_server, "cowboy", GAMES["cowboy"])
    zoomed.goto(url)
    zoomed.locator(".cb-players button:visible").first.tap()  # who shows a marriage: its suit
    expect(zoomed.locator(".cb-suit").first).to_be_visible()
    assert small_targets(zoomed, ".cb-suit") == []


def test_a_cowboy_marriage_shown_at_200_percent_zoom_stays_on_the_screen(page, zoomed, live_server):
    """A marriage's line (name, cards, points, ✕) ran 26 px past a 195 px page."""
    url = start_table(page, live_server, "cowboy", GAMES["cowboy"])
    zoomed.goto(url)
    zoomed.locator(".cb-players button:visible").first.tap()
    zoomed_tap(zoomed, ".cb-suit")
    expect(zoomed.locator(".cb-marriages li")).to_have_count(1)
    assert sideways_overflow(zoomed) == []


def test_the_keyboard_focus_is_never_hidden_under_the_top_bar(page, live_server):
    """Going back up with Shift+Tab, the browser scrolled each control just into the
    screen: under the sticky top bar, the "Rule card" link was hidden whole."""
    start_table(page, live_server, "kvanta", GAMES["kvanta"])
    open_every_details(page)
    page.locator("main button:visible, main a:visible").last.focus()
    hidden = []
    for _ in range(60):
        page.keyboard.press("Shift+Tab")
        place = page.evaluate(
            """() => { const el = document.activeElement;
                       if (el.closest('.topbar') || el === document.body) return null;
                       const bar = document.querySelector('.topbar').getBoundingClientRect().bottom;
                       const r = el.getBoundingClientRect();
                       return r.top < bar - 1 ? `${el.textContent.trim().slice(0, 30)} ${r.top}<${bar}` : null; }"""
        )
        if place:
            hidden.append(place)
    assert hidden == []


def test_a_taps_answer_is_read_out(page, live_server):
    """The verdict, a save's message and a refusal come drawn inside the panel or the
    board they replace: new to the page, a screen reader said nothing of them. The
    page's lasting live region repeats them."""
    from .test_vezimas_screen import NAMES, pick

    start_table(page, live_server, "vezimas", NAMES)
    announce = page.locator("#announce")
    expect(announce).to_have_attribute("aria-live", "polite")

    def tap(selector):
        page.locator(selector).tap()
        expect(page.locator(selector)).to_have_attribute("aria-pressed", "true")

    tap(pick("Who holds the queen of clubs", "Jonas"))
    page.locator(".vz-save-trumps").tap()
    expect(announce).to_contain_text("Trumps set")
    tap(pick("Top card", "9S"))
    tap(pick("Whose turn", "Jonas"))
    tap(pick("Their card", "10S"))
    expect(page.locator("#vz-verdict")).to_contain_text("Does not beat it")
    expect(announce).to_contain_text("Does not beat it")
    tap(pick("Their card", "9C"))
    expect(announce).to_contain_text("Beats it")
    expect(announce).not_to_contain_text("Does not")


def test_kvanta_facts_at_200_percent_zoom_keep_their_words(page, zoomed, live_server):
    """Burned, Turned and Target shared a 150 px row: "Target" was cut to "Targe"."""
    url = start_table(page, live_server, "kvanta", GAMES["kvanta"])
    zoomed.goto(url)
    expect(zoomed.locator(".kv-facts")).to_be_visible()
    assert spilled_text(zoomed, ".kv-fact, .kv-fact small") == []
    assert sideways_overflow(zoomed) == []


def test_standings_of_six_at_200_percent_zoom_keep_names_and_badges_whole(
    page, zoomed, live_server
):
    """Two to a line in a 195 px page, a name had some 30 px: "Ana" was cut to "A…" and
    the dealer's badge to "de"."""
    from .test_table_page import words_broken_in_standings

    url = start_table(page, live_server, "pegs", ["Ana", "Bojan", "Ceca", "Dule", "Ema", "Filip"])
    zoomed.goto(url)
    expect(zoomed.locator("#standings .badge.dealer")).to_have_count(1)
    assert words_broken_in_standings(zoomed) == []
    assert spilled_text(zoomed, "#standings .who") == []
    assert sideways_overflow(zoomed) == []


# a single word too long for a 195 px line, two names of two words, a short one
LONG_NAMES = ["Brzęczyszczykiewicz", "Ana Marija", "Dule Aleksandrović", "Bo"]


WORDS_BROKEN = """(names) => {
    // each word of a long name, wherever it is drawn (a heading, a sentence, a button,
    // a title bar), on more than one line: broken inside the word. A word cut short
    // with an ellipsis stays on one line.
    const words = new Set(names.flatMap((name) => name.split(/\\s+/)));
    const broken = [];
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
        for (const m of node.data.matchAll(/[^\\s.,:;!?·()]+/g)) {
            if (!words.has(m[0])) continue;
            const range = document.createRange();
            range.setStart(node, m.index);
            range.setEnd(node, m.index + m[0].length);
            const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
            if (tops.size > 1) {
                const el = node.parentElement;
                const where = el.closest("[id]");
                broken.push(`${m[0]} in <${el.localName} class="${el.className}">`
                    + `${el.textContent.trim().slice(0, 50)}`
                    + (where ? ` (in #${where.id})` : ""));
            }
        }
    }
    return broken;
}"""


# a name is an element of its own (.name): in a flex or grid box (a button) it is an
# item, and so is the text beside it, whose space next to the name is then dropped
# ("Anadiscards and draws"). Each such name, with the words it is glued to.
NAMES_GLUED = r"""() => Array.from(document.querySelectorAll('.name')).flatMap((name) => {
  const style = getComputedStyle(name.parentElement);
  const inRow = /flex|grid/.test(style.display) && !/column/.test(style.flexDirection)
    && !(parseFloat(style.columnGap) > 0);
  if (!inRow || !name.getClientRects().length) return [];
  // a space between the name and words, or another element (a count in <small>)
  const spaced = (text, word) => text && text.nodeType === 3 && word.test(text.data);
  const before = name.previousSibling, after = name.nextSibling;
  const glued = spaced(before, /\S\s+$/) || spaced(after, /^\s+\S/)
    || (spaced(after, /^\s+$/) && name.nextElementSibling)
    || (spaced(before, /^\s+$/) && name.previousElementSibling);
  const around = name.parentElement, said = around.textContent.replace(/\s+/g, ' ').trim();
  return glued ? [`<${around.localName} class="${around.className}"> ${said}`] : [];
})"""


def no_sideways_scroll(phone, state: str) -> None:
    """Nothing of the page, its folds opened, reaches past the screen, and no long name
    breaks inside a word; the folds are closed again after (an open language menu would
    lie over the next tap)."""
    expect(phone.locator("#board")).to_be_visible()
    phone.evaluate(
        "document.querySelectorAll('details:not([open])').forEach((d) => {"
        " d.dataset.shut = ''; d.open = true; })"
    )
    overflow = sideways_overflow(phone)
    broken = phone.evaluate(WORDS_BROKEN, LONG_NAMES)
    glued = phone.evaluate(NAMES_GLUED)
    phone.evaluate(
        "document.querySelectorAll('details[data-shut]').forEach((d) => {"
        " d.open = false; delete d.dataset.shut; })"
    )
    assert overflow == [], state
    assert broken == [], f"{state}: {broken}"
    assert glued == [], f"{state}: {glued}"


def walk_cowboy(zoomed, taps):
    from .test_cowboy_screen import choose, end_by, held_picker, open_tab, pick, show_marriage

    show_marriage(zoomed, taps, "Brzęczyszczykiewicz", "H")
    yield "a marriage shown"
    choose(zoomed, taps, '.cb-view[data-part="shot"]')
    yield "a shot"
    choose(zoomed, taps, '.cb-view[data-part="end"]')
    end_by(zoomed, taps, "Dule Aleksandrović", "tens")
    yield "the end of the deal and its ender"
    open_tab(zoomed, taps, "Brzęczyszczykiewicz")
    for code in ("KS", "AS"):
        pick(zoomed, taps, held_picker("Brzęczyszczykiewicz"), code)
    yield "a player's cards"


def walk_szaman(zoomed, taps):
    from .test_szaman_screen import PANEL, tap

    yield "who leads"
    tap(zoomed, taps, '[data-op="lead"][data-seat="0"]')
    for card in ("2C", "KC"):
        tap(zoomed, taps, f'.pick[data-card="{card}"]')
    expect(zoomed.locator(PANEL)).to_contain_text("Trick 1: Dule Aleksandrović plays")
    yield "a trick's cards"
    for card in ("5C", "9C"):
        tap(zoomed, taps, f'.pick[data-card="{card}"]')
    yield "a trick won"
    zoomed.locator(f'{PANEL} [data-mode="quick"]').tap()  # this phone's own view
    expect(zoomed.locator(f"{PANEL} .sz-quick")).to_be_visible()
    yield "the quick notes"
    tap(zoomed, taps, '[data-op="end"]')
    tap(zoomed, taps, '.pick[data-card="AS"]')
    yield "the cards held at the end of the deal"


def walk_kvanta(zoomed, taps):
    from .test_kvanta_screen import NEXT, button, card, key, panel, tap_and_wait

    yield "the dealer draw"
    for code in ("2C", "9D", "KS", "QH"):  # Brzęczyszczykiewicz deals, Ana Marija rolls
        tap_and_wait(zoomed, taps, card(code))
    expect(panel(zoomed).locator('[data-verdict="dealer"]')).to_contain_text(
        "Brzęczyszczykiewicz deals"
    )
    yield "who deals"
    tap_and_wait(zoomed, taps, '#kv-panel .kv-burn button[data-action="burn"]:text-is("3")')
    tap_and_wait(zoomed, taps, card("7H"))
    yield "who rolls"
    tap_and_wait(zoomed, taps, button("Roll the three dice"))
    yield "the roll"
    taps("#kv-panel .kv-hand-check > summary")
    tap_and_wait(zoomed, taps, key("9"))
    taps(NEXT)
    tap_and_wait(zoomed, taps, key("3"))
    yield "the Hand check"


def walk_vezimas(zoomed, taps):
    from .test_vezimas_screen import pick, tap_and_wait

    yield "who holds the queen of clubs"
    tap_and_wait(zoomed, taps, pick("Who holds the queen of clubs", "Brzęczyszczykiewicz"))
    yield "the trumps, not saved yet"
    taps(".vz-save-trumps")
    expect(zoomed.locator(".vz-trumps")).to_contain_text("Brzęczyszczykiewicz leads")
    yield "a lead"
    # trumps: Brzęczyszczykiewicz ♣, Ana Marija ♠, Dule Aleksandrović ♥, Bo ♦
    tap_and_wait(zoomed, taps, pick("Top card", "9S"))
    tap_and_wait(zoomed, taps, pick("Whose turn", "Bo"))
    tap_and_wait(zoomed, taps, pick("Their card", "JD"))
    expect(zoomed.locator("#vz-verdict")).to_have_class("verdict yes")
    yield "does it beat?"
    tap_and_wait(zoomed, taps, pick("Players out of cards", "Bo"))
    expect(zoomed.locator("#vz-nothing")).to_contain_text(
        "Nothing to beat: Brzęczyszczykiewicz lays any card."
    )
    yield "nothing to beat"
    for name in ("Ana Marija", "Dule Aleksandrović"):
        tap_and_wait(zoomed, taps, pick("Players out of cards", name))
    expect(zoomed.locator(".vz-suggest")).to_contain_text("so Brzęczyszczykiewicz gets the cart")
    yield "the last one holding cards"
    tap_and_wait(zoomed, taps, pick("Who got the cart", "Brzęczyszczykiewicz"))
    expect(zoomed.locator(".vz-preview")).to_contain_text(
        "Brzęczyszczykiewicz gets the cart and deals next"
    )
    yield "the cart, not saved yet"


def walk_pegs(zoomed, taps):
    from .test_pegs_screen import choose

    yield "the board"
    choose(zoomed, taps, '.pg-players [data-seat="0"]')
    choose(zoomed, taps, '.pg-cards [data-card="A"]')
    expect(zoomed.locator('#pegs-panel .ring.dest[data-to="T8"]')).to_have_count(1)
    yield "a card chosen and its moves"
    taps('.hit[data-hit="T8"]')
    expect(zoomed.locator('.pg-players [data-seat="1"]')).to_have_attribute("aria-pressed", "true")
    yield "a move made"
    choose(zoomed, taps, '.pg-cards [data-card="7"]')
    yield "a card with moves for two players"


WALKS = {
    "cowboy": walk_cowboy,
    "kvanta": walk_kvanta,
    "pegs": walk_pegs,
    "szaman": walk_szaman,
    "vezimas": walk_vezimas,
}


@pytest.mark.parametrize("game", sorted(WALKS))
def test_long_names_at_200_percent_zoom_never_scroll_sideways(
    page, zoomed, live_server, console_errors, game
):
    """Names in sentences ("X gets the cart and deals next"), on buttons and in lists
    pushed the page sideways when a single word was wider than a zoomed-in line, then
    broke inside the word ("Brzęczyszczyk|iewicz holds"): every state a game's taps
    reach, and its watch link, stay on the screen with every name's words whole."""
    from .conftest import Taps

    url = start_table(page, live_server, game, LONG_NAMES)  # every game takes four
    watch_url = page.locator("[data-copy]").last.get_attribute("data-copy")
    zoomed.goto(url)
    zoomed.wait_for_load_state("load")
    taps = Taps(zoomed)
    for state in WALKS[game](zoomed, taps):
        no_sideways_scroll(zoomed, state)
    zoomed.goto(watch_url)
    no_sideways_scroll(zoomed, "the watch link")
    # the brand gives way, not "Watching" (it was cut to "Watchi…")
    assert spilled_text(zoomed, ".topbar .badge.watch") == []


def test_watching_stays_whole_on_a_zoomed_phone_in_every_language(page, zoomed, live_server, shots):
    """The watch link's bar at 200 % zoom says "Watching" whole in every language, the
    longer words too ("Stebėjimas", "Sledovanie"), with the brand and the language
    switch still there to tap."""
    start_table(page, live_server, "vezimas", ["Ana", "Bojan"])
    watch_url = page.locator("[data-copy]").last.get_attribute("data-copy")
    for lang in ("en", "lt", "pl", "sk", "sr-Latn", "sr-Cyrl"):
        zoomed.goto(f"{watch_url}?lang={lang}")
        badge = zoomed.locator(".topbar .badge.watch")
        expect(badge).to_be_visible()
        assert spilled_text(zoomed, ".topbar .badge.watch") == [], lang
        assert sideways_overflow(zoomed) == [], lang
        assert small_targets(zoomed, ".topbar a.brand, .lang-switch summary") == [], lang
    shots(zoomed, "watching-zoomed-sr-Cyrl")
