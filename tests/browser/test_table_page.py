"""The table page and the home page at 390×844 touch (issue #24): a refused start
shows its error in view with the field focused, the first-dealer menu follows the
names typed, the history opens to a deal's breakdown, the winner's banner offers a
rematch, and Undo and End game ask for a second tap; light and dark."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from scorekeeper import create_app
from scorekeeper.store import Store, connect

from .conftest import PHONE, assert_inside_viewport, phone_context, served, start_table, totals

EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "examples"


def in_view(page, selector: str) -> bool:
    """The element's box lies inside the screen (clear of the sticky top bar)."""
    return page.locator(selector).evaluate(
        """(el) => { const r = el.getBoundingClientRect();
                     return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0; }"""
    )


def save_round(page, points: list[int]):
    for i, value in enumerate(points):
        page.locator(".pad-input").nth(i).tap()
        for digit in str(abs(value)):
            page.locator(f'.key[data-key="{digit}"]').tap()
        if value < 0:
            page.locator('.key[data-key="sign"]').tap()
    page.locator("#pad button[type=submit]").tap()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_refused_start_shows_why_in_view_with_the_field_focused(
    browser, live_server, shots, scheme
):
    context = phone_context(browser, color_scheme=scheme)
    page = context.new_page()
    page.goto(live_server + "/")
    page.locator("input[name=game][value=cowboy]").tap()
    page.locator("#player-1").fill("Ana")
    page.get_by_role("button", name="Start the table").tap()
    # every reason heads the page; the one for the field to fix is at the top of the
    # screen, the field right under it
    expect(page.locator("#form-errors")).to_contain_text("3 or 4 players")
    expect(page.locator("#players-error")).to_contain_text("3 or 4 players")
    assert in_view(page, "#players-error")
    # the next empty seat is where the name goes: marked, focused, in view
    expect(page.locator("#player-2")).to_be_focused()
    expect(page.locator("#player-2")).to_have_attribute("aria-invalid", "true")
    assert in_view(page, "#player-2")
    expect(page.locator("#player-1")).to_have_value("Ana")
    shots(page, f"home-refused-{scheme}")
    assert_inside_viewport(page)
    context.close()


def test_the_first_dealer_menu_follows_the_names_typed(page, live_server):
    page.goto(live_server + "/")
    menu = page.locator("select[name=first_dealer]")
    page.locator("#player-1").fill("Ana")
    page.locator("#player-2").fill("Bojan")
    page.locator("#player-3").fill("Ceca")
    shown = menu.locator("option:not([hidden])")
    expect(shown).to_have_text(["Ana", "Bojan", "Ceca"])
    menu.select_option(label="Ceca")
    page.locator("#player-3").fill("Ceca Đorđević")
    expect(shown).to_have_text(["Ana", "Bojan", "Ceca Đorđević"])
    page.locator("#player-3").fill("")
    expect(shown).to_have_text(["Ana", "Bojan"])  # the dealer chosen left: back to the first
    expect(menu).to_have_value("0")
    # a blank seat keeps its number, so a later name keeps its seat
    page.locator("#player-4").fill("Dule")
    expect(shown).to_have_text(["Ana", "Bojan", "Player 3", "Dule"])


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_history_breakdown_running_totals_and_the_chart(browser, live_server, shots, scheme):
    """Score pad rounds on a Cowboy table: each history row shows the round's points
    with a minus sign and the total after it; the chart draws every player."""
    context = phone_context(browser, color_scheme=scheme)
    page = context.new_page()
    start_table(page, live_server, "cowboy", ["Grzegorz Brzęczyszczykiewicz", "Ana", "Ceca"])
    page.locator("details.pad-by-hand > summary").tap()
    save_round(page, [-90, 30, 0])
    expect(page.locator('#history [data-round="1"]')).to_have_count(1)
    page.locator("details.pad-by-hand:not([open]) > summary").tap()
    save_round(page, [40, -20, 5])
    row = page.locator('#history [data-round="2"]')
    expect(row).to_contain_text("+40")
    expect(row.locator(".after").first).to_have_text("= −50")
    expect(page.locator('#standings [data-player="Ana"]')).to_have_text("10")
    assert totals(page)["Grzegorz Brzęczyszczykiewicz"] == -50
    chart = page.locator("#history svg.totals-chart")
    expect(chart.locator("polyline")).to_have_count(3)
    # a long name wraps between its words, never inside one
    name = page.locator("#standings .who").first
    lines = name.evaluate(
        """(el) => { const range = document.createRange(); range.selectNodeContents(el.firstChild);
                     return Array.from(range.getClientRects()).map(r => Math.round(r.top)); }"""
    )
    words = name.evaluate("(el) => el.firstChild.textContent.trim().split(' ').length")
    assert len(set(lines)) <= words
    shots(page, f"table-history-{scheme}")
    assert_inside_viewport(page)
    context.close()


@pytest.fixture(scope="module")
def own_server(tmp_path_factory):
    """The app on a database this module also writes to (a stored deal, as a game
    screen saves it); yields (url, database path)."""
    db = tmp_path_factory.mktemp("table-page") / "scorekeeper.sqlite"
    app = create_app(
        {
            "DATABASE": str(db),
            "SECRET_KEY": "browser-tests",
            "POLL_INTERVAL_MS": 500,
            "CREATE_RATE_LIMIT": "1000000 per minute",
        }
    )
    with served(app) as url:
        yield url, db


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_deal_opens_to_its_breakdown(browser, own_server, shots, scheme):
    """Why did Ana get +10? The Cowboy deal stored as the screen saves it (the engine's
    request and result); its history row opens to each player's items."""
    url, db = own_server
    case = json.loads((EXAMPLES / "cowboy-deal.json").read_text())[0]
    context = phone_context(browser, color_scheme=scheme)
    page = context.new_page()
    scorer_url = start_table(page, url, "cowboy", case["request"]["players"])
    key = scorer_url.rsplit("/", 1)[1]
    s = Store(connect(str(db)))
    try:
        table, _access = s.table_by_key(key)
        ids = {p.name: p.id for p in s.players(table.id)}
        result = case["response"]
        points = {ids[n]: r["total"] for n, r in result["players"].items() if r["total"]}
        s.add_entry(table.id, 1, "cowboy-deal", case["request"], result, points)
    finally:
        s.close()
    row = page.locator('#history [data-round="1"]')
    expect(row).to_have_count(1)  # the poll brings it
    why = row.locator("details.round-why")
    expect(why.locator(".why-lines")).not_to_be_visible()
    why.locator("summary").tap()
    expect(why).to_contain_text("Ana: Marriage shown (K+Q of one suit) +25")
    expect(why).to_contain_text("Six held −20")
    expect(why).to_contain_text("Milica: 10 laid out ×4 +40; Six held −20 = +20")
    expect(row.locator(".after").nth(1)).to_have_text("= 10")
    expect(why.locator(".why-lines")).to_be_visible()
    shots(page, f"table-deal-breakdown-{scheme}")
    assert_inside_viewport(page)
    context.close()


def test_the_winner_banner_offers_rematch_and_new_game(page, live_server, shots):
    start_table(page, live_server, "cowboy", ["Ana", "Bojan", "Ceca"])
    page.locator("details.pad-by-hand > summary").tap()
    save_round(page, [510, 200, 0])
    banner = page.locator("#standings")
    expect(banner.locator(".status.finished")).to_contain_text("Ana wins")
    rematch = banner.get_by_role("button", name="Rematch")
    expect(rematch).to_be_visible()
    expect(banner.get_by_role("link", name="New game")).to_be_visible()
    assert in_view(page, "#standings .after-win")  # on the first screen, not under a fold
    shots(page, "table-won")
    old = page.url
    rematch.tap()
    expect(page).not_to_have_url(old)
    expect(page.locator("#standings .status.finished")).to_have_count(0)
    assert totals(page) == {"Ana": 0, "Bojan": 0, "Ceca": 0}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_undo_and_end_game_ask_for_a_second_tap(browser, live_server, shots, scheme):
    context = phone_context(browser, color_scheme=scheme)
    page = context.new_page()
    start_table(page, live_server, "vezimas", ["Asta", "Jonas", "Rūta"])
    page.locator("details.pad-by-hand > summary").tap()
    save_round(page, [0, 1, 0])
    row = page.locator('#history [data-round="1"]')
    expect(row).to_have_count(1)
    undo = row.get_by_role("button", name="Undo")
    undo.tap()
    expect(undo).to_have_text("Tap again to undo")
    expect(row).not_to_have_class(re.compile(r"\bundone\b"))  # nothing sent yet
    shots(page, f"table-undo-confirm-{scheme}")
    undo.tap()
    expect(row).to_have_class(re.compile(r"\bundone\b"))
    # left alone, the asking button goes back to what it was
    end = page.locator("form.end-game button")
    end.tap()
    expect(end).to_have_text("Tap again to end the game")
    expect(end).to_have_text("End the game")
    expect(page.locator("#standings .status.finished")).to_have_count(0)
    end.tap()
    end.tap()
    expect(page.locator("#standings .status.finished")).to_be_visible()
    context.close()


def test_an_undo_asking_for_a_second_tap_goes_back_after_another_phones_tap(browser, live_server):
    """The history is a part the phone keeps: another phone's tap brings a copy of it,
    made while Undo asks "tap again". The copy goes back to Undo as the button would
    have, and one tap on it asks again rather than undoing."""
    page = phone_context(browser).new_page()
    url = start_table(page, live_server, "vezimas", ["Asta", "Jonas", "Rūta"])
    page.locator("details.pad-by-hand > summary").tap()
    save_round(page, [0, 1, 0])
    row = page.locator('#history [data-round="1"]')
    undo = row.get_by_role("button", name="Undo")
    expect(undo).to_be_visible()
    other = phone_context(browser).new_page()
    other.goto(url)
    queen = '[aria-label="Who holds the queen of clubs"] [data-player="Jonas"]'
    undo.tap()
    expect(undo).to_have_text("Tap again to undo")
    other.locator(queen).tap()
    # this phone's poll brings the other's tap, its history kept as it was
    expect(page.locator(queen)).to_have_attribute("aria-pressed", "true")
    expect(row.locator("button")).to_have_text("Undo")
    row.locator("button").tap()
    expect(row.locator("button")).to_have_text("Tap again to undo")
    expect(row).not_to_have_class(re.compile(r"\bundone\b"))


def test_the_top_bar_is_quiet_in_dark_mode(browser, live_server):
    context = browser.new_context(
        viewport=PHONE, color_scheme="dark", has_touch=True, is_mobile=True
    )
    page = context.new_page()
    page.goto(live_server + "/")
    background = page.locator(".topbar").evaluate("el => getComputedStyle(el).backgroundColor")
    r, g, b = (int(n) for n in re.findall(r"\d+", background)[:3])
    assert max(r, g, b) < 80, background  # a dark green, not the bright accent
    context.close()


def test_recent_tables_say_who_plays_and_who_leads(page, live_server):
    start_table(page, live_server, "cowboy", ["Ola", "Piotr", "Ceca"])
    page.locator("details.pad-by-hand > summary").tap()
    save_round(page, [5, -3, 0])
    expect(page.locator('#history [data-round="1"]')).to_have_count(1)
    page.goto(live_server + "/")
    first = page.locator("#recent li").first
    expect(first).to_contain_text("Ola, Piotr, Ceca")
    expect(first).to_contain_text("In play · Ola leads (5)")
    expect(first).to_contain_text("seen")


@pytest.mark.parametrize(("game", "names"), [("cowboy", 4), ("kvanta", 6)])
def test_the_next_action_starts_on_the_first_screen(page, live_server, game, names):
    """Title and standings stay compact (five or more players two to a line), so the
    game's screen, where the next tap goes, begins in the upper half of the phone."""
    players = [f"Player{chr(65 + i)} Longname" for i in range(names)]
    start_table(page, live_server, game, players)
    top = page.locator("#standings + *").evaluate("el => el.getBoundingClientRect().top")
    assert top < PHONE["height"] / 2, top


def words_broken_in_standings(page) -> list:
    """Each word of a standings name (and each badge) drawn on more than one line: a name
    squeezed into a narrow column breaks inside a word ("Bo|ja|n")."""
    return page.evaluate(
        """() => {
            const broken = [];
            for (const who of document.querySelectorAll("#standings .who")) {
                const text = who.firstChild;
                if (!text || text.nodeType !== Node.TEXT_NODE) continue;
                const re = /\\S+/g;
                let m;
                while ((m = re.exec(text.data))) {
                    const range = document.createRange();
                    range.setStart(text, m.index);
                    range.setEnd(text, m.index + m[0].length);
                    const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
                    if (lines.size > 1) broken.push(m[0]);
                }
                for (const badge of who.querySelectorAll(".badge")) {
                    if (badge.getClientRects().length > 1 || badge.getBoundingClientRect().height > 30)
                        broken.push(badge.textContent);
                }
            }
            return broken;
        }"""
    )


def names_spilled_or_lost(page) -> list:
    """Standings names drawn past their own box (onto the points beside them) without
    being cut short with "…", or whose whole name is neither their title nor their text."""
    return page.evaluate(
        """() => [...document.querySelectorAll("#standings .total-row")].flatMap((row) => {
            const who = row.querySelector(".who");
            const name = row.querySelector(".points").dataset.player;
            const style = getComputedStyle(who);
            const spills = who.scrollWidth > who.clientWidth + 1
                && !(style.overflowX === "hidden" && style.textOverflow === "ellipsis");
            const lost = who.title !== name || !who.textContent.includes(name);
            const a = who.getBoundingClientRect();
            const b = row.querySelector(".points").getBoundingClientRect();
            const onPoints = a.right > b.left + 1 && b.right > a.left + 1
                && a.bottom > b.top + 1 && b.bottom > a.top + 1;
            return spills || lost || onPoints ? [name] : [];
        })"""
    )


@pytest.mark.parametrize(
    ("game", "names"),
    [
        ("pegs", ["Aleksandra", "Bojan", "Ceca", "Dule", "Ema", "Filip", "Goga", "Hrvoje"]),
        ("kvanta", ["Aleksandra", "Bojan", "Ceca", "Dule", "Ema", "Filip"]),
        # twelve letters two to a line: wider than a 390 px phone's half of the standings
        (
            "kvanta",
            ["Aleksandrina", "Konstantinos", "Ceca", "Dule", "Maximiliánka", "Filip"],
        ),
        # and a word no half of a phone holds: cut short with "…", never broken
        ("szaman", ["Aleksandrina", "Konstantinos", "Wolfeschlegelstein", "Dule", "Ema", "Filip"]),
    ],
)
def test_standings_two_to_a_line_never_break_a_name_inside_a_word(page, live_server, game, names):
    """Eight Pegs seats show "0/5 home" beside each name, two to a line: the name keeps
    its words whole (and the dealer's badge its word), in every language's width; a
    word too long for its line ends in "…", the whole name still its title and text."""
    url = start_table(page, live_server, game, names)
    if game == "pegs":  # a move: the standings show how many pegs are home
        page.locator('.pg-cards [data-card="A"]').tap()
        page.locator(".pg-move").first.tap()
        expect(page.locator("#standings .totals.shown .points").first).to_contain_text("/5")
    for language in ("en", "sk", "lt"):
        page.goto(f"{url}?lang={language}")
        expect(page.locator("#standings .who").first).to_be_visible()
        assert words_broken_in_standings(page) == [], language
        assert names_spilled_or_lost(page) == [], language
        assert_inside_viewport(page, "#standings *")


def test_a_right_to_left_name_keeps_its_points_after_it_in_the_history(page, live_server):
    """A breakdown line reads name, points, total: with an Arabic or Hebrew name the
    points were drawn inside the name's run, "7 = 7+ علي", the sign after the digits."""
    start_table(page, live_server, "cowboy", ["علي", "אורי", "Ceca"])
    page.locator("details.pad-by-hand > summary").tap()
    save_round(page, [7, -20, 5])
    expect(page.locator('#history [data-round="1"]')).to_have_count(1)
    lines = page.locator('#history [data-round="1"] .round-points li')
    expect(lines).to_have_count(3)
    for i in range(3):
        boxes = lines.nth(i).evaluate(
            """(li) => [li.querySelector('.name'), li.querySelector('strong'),
                        li.querySelector('.after')].map(el => el.getBoundingClientRect().left)"""
        )
        assert boxes == sorted(boxes), (lines.nth(i).inner_text(), boxes)


def test_a_refused_rename_says_why_in_view(page, live_server):
    """The rename forms sit at the foot of the page and are answered with the board,
    whose message area heads the page: a refused rename said why off-screen, the field
    still holding the refused name, as if it had been taken."""
    start_table(page, live_server, "kvanta", ["Ana", "Bojan", "Ceca"])
    page.locator("summary", has_text="Players and table").tap()
    rename = page.locator("form.rename").nth(1)
    rename.locator("input[name=name]").fill("ana")
    rename.get_by_role("button", name="Rename").tap()
    refusal = page.locator(".board-flash .flash.error")
    expect(refusal).to_contain_text("already playing at this table")
    expect(refusal).to_be_in_viewport()
    assert in_view(page, ".board-flash .flash.error")
    expect(page.locator("#standings .points[data-player=Bojan]")).to_be_visible()


def test_undo_redo_and_edit_work_on_the_full_history_page(page, live_server, console_errors):
    """The full history page (/history) has no board for htmx to answer into: its
    Undo, Redo and Edit are plain requests that come back to the table, never a tap
    that does nothing."""
    url = start_table(page, live_server, "vezimas", ["Asta", "Jonas", "Rūta"])
    page.locator("details.pad-by-hand > summary").tap()
    save_round(page, [0, 1, 0])
    expect(page.locator('#history [data-round="1"]')).to_have_count(1)
    page.locator("details.pad-by-hand:not([open]) > summary").tap()
    save_round(page, [1, 0, 0])
    expect(page.locator('#history [data-round="2"]')).to_have_count(1)
    page.goto(url + "/history")
    undo = page.locator('#history [data-round="2"]').get_by_role("button", name="Undo")
    undo.tap()
    undo.tap()  # the confirming tap
    expect(page).to_have_url(url)  # back at the table, round 2 undone
    expect(page.locator('#history [data-round="2"]')).to_have_class(re.compile(r"\bundone\b"))
    assert totals(page) == {"Asta": 0, "Jonas": 1, "Rūta": 0}
    page.goto(url + "/history")
    page.locator('#history [data-round="2"]').get_by_role("button", name="Redo").tap()
    expect(page).to_have_url(url)
    assert totals(page) == {"Asta": 1, "Jonas": 1, "Rūta": 0}
    page.goto(url + "/history")
    page.locator('#history [data-round="2"]').get_by_role("link", name="Edit").tap()
    expect(page.locator("#pad")).to_contain_text("Edit round 2")
