"""Pegs and Jokers on a phone (issue #24), at 390×844 with 4, 6 and 8 seats: the board
zoomed to the player's side and the list of moves under it both on screen after a card
is picked, every tap target at least 44 px (measured), and Edit of a saved move from
the history through the screen mechanism (undoing the edit brings the old move back)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import assert_inside_viewport, start_table

NAMES = ["Ana", "Bojan", "Ceca", "Dule", "Ema", "Filip", "Goga", "Hrvoje"]
THUMB = 44


def boxes_too_small(page) -> list:
    """Every tap target of the Pegs panel on screen (its buttons, inputs and the board's
    tap areas) narrower or lower than a thumb, as [what, width, height]."""
    return page.evaluate(
        """(least) => {
            const bad = [];
            const panel = document.getElementById("pegs-panel");
            for (const el of panel.querySelectorAll("button, input, select, a, .hit")) {
                if (el.disabled) continue;
                const r = el.getBoundingClientRect();
                if (r.width === 0 && r.height === 0) continue;  // not shown
                if (r.width < least - 0.5 || r.height < least - 0.5)
                    bad.push([el.outerHTML.slice(0, 90), Math.round(r.width), Math.round(r.height)]);
            }
            return bad;
        }""",
        THUMB,
    )


def in_view(page, selector: str) -> bool:
    """Wholly inside the viewport, nothing covering its middle."""
    return page.eval_on_selector(
        selector,
        """(el) => {
            const r = el.getBoundingClientRect();
            const inside = r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight + 0.5
                && r.right <= innerWidth + 0.5 && r.width > 0;
            // nothing covers it (the page's sticky top bar): its top edge and its middle
            const seen = [r.top + 2, r.top + r.height / 2].map((y) => {
                const top = document.elementFromPoint(r.left + r.width / 2, y);
                return !!top && (el.contains(top) || top.closest("svg") === el);
            });
            return inside && seen.every(Boolean);
        }""",
    )


def view_box(page) -> list[float]:
    return [float(v) for v in page.locator(".pg-svg").get_attribute("viewBox").split()]


def shown_part(page) -> float:
    """How much of the whole board the board shows (1: all of it)."""
    _x, _y, w, h = view_box(page)
    whole = page.locator(".pg-svg").get_attribute("data-viewbox-setup").split()
    return w * h / (float(whole[2]) * float(whole[3]))


@pytest.mark.parametrize("seats", [4, 6, 8])
def test_the_board_and_the_moves_stay_in_view_and_every_target_takes_a_thumb(
    page, live_server, taps, shots, console_errors, seats
):
    start_table(page, live_server, "pegs", NAMES[:seats])
    expect(page.locator("#pg-title")).to_have_text("Ana to play")
    assert shown_part(page) <= 0.7  # zoomed: Ana's side, not the whole board
    assert boxes_too_small(page) == []
    # the player has the board at the top of the phone (below the page's top bar)
    page.evaluate("document.getElementById('pegs-panel').scrollIntoView({block: 'start'})")
    taps('.pg-cards [data-card="A"]')
    expect(page.locator('.pg-cards [data-card="A"]')).to_have_attribute("aria-pressed", "true")
    expect(page.locator(".pg-move").first).to_be_visible()
    assert in_view(page, ".pg-svg"), "the board scrolled away"
    assert in_view(page, ".pg-move"), "the list of moves is not in view"
    assert in_view(page, '.pg-cards [data-card="K"]'), "the cards are not in view"
    shots(page, f"pegs-phone-{seats}-ace")
    # further down (the discard, whose turn) the board stays on top
    page.locator(".pg-players").scroll_into_view_if_needed()
    assert in_view(page, ".pg-svg"), "the board scrolled away"
    assert boxes_too_small(page) == []
    assert_inside_viewport(page)
    # holes and pegs big enough to tell apart (they were 4.4 and 6.5 px at 8 seats)
    hole = page.locator('.pg-svg [data-hole="T8"]').bounding_box()
    ana = page.locator('.pg-svg .peg[data-seat="0"]').first.bounding_box()
    assert hole["width"] >= 7 and ana["width"] >= 11, (hole, ana)
    # the ace comes out on the board as well, with one tap of a thumb's size
    target = page.locator('.pg-layer-play .hit[data-hit="T8"]')
    box = target.bounding_box()
    assert box["width"] >= THUMB and box["height"] >= THUMB, box
    target.tap()
    expect(page.locator('.pg-svg .peg[data-seat="0"][data-pos="T8"]')).to_have_count(1)
    expect(page.locator("#pg-title")).to_have_text("Bojan to play")
    # set-up shows the whole board; its tap areas take a thumb too
    taps('.pg-mode [data-mode="setup"]')
    board = page.locator(".pg-svg")
    expect(board).to_have_attribute("viewBox", board.get_attribute("data-viewbox-setup"))
    shots(page, f"pegs-phone-{seats}-setup")
    assert boxes_too_small(page) == []


def test_the_board_zooms_to_the_side_of_the_player_whose_turn_it_is(
    page, live_server, taps, console_errors
):
    start_table(page, live_server, "pegs", NAMES[:8])

    def shown(hole: str) -> bool:
        """The hole is drawn inside the board's box on the screen."""
        return page.eval_on_selector(
            f'.pg-svg [data-hole="{hole}"]',
            """(el) => {
                const r = el.getBoundingClientRect();
                const box = el.ownerSVGElement.getBoundingClientRect();
                const x = r.left + r.width / 2, y = r.top + r.height / 2;
                return x >= box.left && x <= box.right && y >= box.top && y <= box.bottom;
            }""",
        )

    def at_the_bottom(hole: str) -> bool:
        """The hole is in the lower half of the board as drawn: the player's side."""
        return page.eval_on_selector(
            f'.pg-svg [data-hole="{hole}"]',
            """(el) => {
                const r = el.getBoundingClientRect();
                const box = el.ownerSVGElement.getBoundingClientRect();
                return r.top + r.height / 2 > box.top + box.height / 2;
            }""",
        )

    # Ana's come-out hole T8 is in view, Ema's (T80, across the board) is not
    assert shown("T8") and not shown("T80") and at_the_bottom("T8")
    assert view_box(page)[2] <= 400 / 2  # twice the size of the whole board, at least
    taps('.pg-cards [data-card="A"]')
    taps('.pg-move[data-move="0-S-T8"]')
    expect(page.locator("#pg-title")).to_have_text("Bojan to play")
    assert shown("T26") and not shown("T80")  # Bojan's come-out: his side now,
    assert at_the_bottom("T26")  # turned to the bottom of the board
    # the whole board is one tap away (set-up), drawn whole
    taps('.pg-mode [data-mode="setup"]')
    board = page.locator(".pg-svg")
    expect(board).to_have_attribute("viewBox", board.get_attribute("data-viewbox-setup"))
    assert shown("T80") and shown("T8") and at_the_bottom("T26")
    taps('.pg-mode [data-mode="play"]')  # and back to the player's side
    expect(board).to_have_attribute("viewBox", board.get_attribute("data-viewbox-play"))
    assert shown("T26") and not shown("T80")


def test_edit_of_a_saved_move_from_the_history_and_undoing_the_edit(
    page, live_server, taps, console_errors
):
    """Edit in the history reopens the move's log on the board it was played on; the
    changed move is one new entry superseding it; undoing that brings the old one back."""
    start_table(page, live_server, "pegs", NAMES[:4])
    taps('.pg-cards [data-card="K"]')
    taps('.pg-move[data-move="0-S-T8"]')
    expect(page.locator("#pg-title")).to_have_text("Bojan to play")
    taps('#history li[data-round="1"] form.reopen button')
    expect(page.locator(".pg-editing")).to_be_visible()
    expect(page.locator("#pg-title")).to_have_text("Ana plays K")
    taps('.pg-cards [data-card="A"]')
    expect(page.locator('.pg-cards [data-card="A"]')).to_have_attribute("aria-pressed", "true")
    taps('.pg-move[data-move="0-S-T8"]')
    expect(page.locator("#pegs-panel .pg-message")).to_contain_text("Move changed.")
    expect(page.locator("#pg-last")).to_contain_text("Ana played A")
    rows = page.locator('#history li[data-round="1"]')
    expect(rows).to_have_count(1)  # the history shows the live version, marked edited
    expect(rows.first).to_contain_text("edited")
    taps('#history li[data-round="1"] button:text-is("Undo")')
    taps('#history li[data-round="1"] button:text-is("Tap again to undo")')
    expect(page.locator("#pg-last")).to_contain_text("Ana played K")
    expect(page.locator('.pg-svg .peg[data-seat="0"][data-pos="T8"]')).to_have_count(1)
    expect(page.locator("#pg-title")).to_have_text("Bojan to play")


def test_the_board_at_200_percent_zoom_keeps_thumb_sized_holes(page, zoomed, live_server):
    """Zoomed in (a 390 px phone at 200 %: 195 CSS px), the board shrank to the page's
    width and its tap areas to 24 px. It keeps the width its tap areas are sized for and
    scrolls sideways inside its own frame (the page does not), where the player scrolled
    it staying put when a tap's answer redraws it; nothing sticks over the page."""
    url = start_table(page, live_server, "pegs", NAMES[:4])
    zoomed.goto(url)
    expect(zoomed.locator("#pg-title")).to_have_text("Ana to play")
    zoomed.locator('.pg-cards [data-card="A"]').tap()
    expect(zoomed.locator('.pg-cards [data-card="A"]')).to_have_attribute("aria-pressed", "true")
    expect(zoomed.locator('.pg-layer-play .hit[data-hit="T8"]')).to_have_count(1)
    assert boxes_too_small(zoomed) == []
    frame = zoomed.evaluate(
        """() => { const board = document.querySelector(".pg-svg").parentElement;
                   const page = document.documentElement;
                   return {board: board.scrollWidth - board.clientWidth, at: board.scrollLeft,
                           page: page.scrollWidth - page.clientWidth}; }"""
    )
    assert frame["page"] <= 0 and frame["board"] > 0, frame
    assert abs(frame["at"] - frame["board"] / 2) <= 1, frame  # shown centred: Ana's side
    # the board's frame scrolled to its right edge stays there through a tap's answer
    zoomed.evaluate(
        "() => { const b = document.querySelector('.pg-svg').parentElement; b.scrollLeft = b.scrollWidth; }"
    )
    scrolled = zoomed.evaluate("() => document.querySelector('.pg-svg').parentElement.scrollLeft")
    version = zoomed.locator("#pegs-panel").get_attribute("data-deal-version")
    zoomed.locator('.pg-cards [data-card="K"]').tap()
    expect(zoomed.locator("#pegs-panel")).not_to_have_attribute("data-deal-version", version)
    expect(zoomed.locator('.pg-cards [data-card="K"]')).to_have_attribute("aria-pressed", "true")
    assert (
        zoomed.evaluate("() => document.querySelector('.pg-svg').parentElement.scrollLeft")
        == scrolled
    )
    # the board taller than this screen does not stick over the page: set-up is reached
    mode = zoomed.locator('.pg-mode [data-mode="setup"]')
    mode.tap()
    board = zoomed.locator(".pg-svg")
    expect(board).to_have_attribute("viewBox", board.get_attribute("data-viewbox-setup"))
    assert boxes_too_small(zoomed) == []
    # the page itself never scrolls sideways; only the board does, in its frame
    assert_inside_viewport(zoomed, "#pegs-panel *:not(.pg-board *)")


@pytest.mark.parametrize("seats", [4, 8])
def test_at_200_percent_zoom_the_board_and_the_moves_are_on_screen_together(
    page, zoomed, live_server, seats
):
    """Zoomed in, the cards' picker alone is taller than the screen's room under the
    board, and the moves listed under it were a whole screen below the board. A player
    who scrolls down to the moves (the first one just in at the bottom of the screen)
    now has the board on the screen with them, under the page's top bar."""
    url = start_table(page, live_server, "pegs", NAMES[:seats])
    zoomed.goto(url)
    expect(zoomed.locator("#pg-title")).to_have_text("Ana to play")
    zoomed.locator('.pg-cards [data-card="A"]').tap()
    first = zoomed.locator(".pg-move").first
    expect(first).to_be_visible()
    first.evaluate("(el) => el.scrollIntoView({block: 'end'})")
    seen = zoomed.evaluate(
        """() => {
            const bar = document.querySelector(".topbar").getBoundingClientRect().bottom;
            const shown = (el) => {
                const r = el.getBoundingClientRect();
                return {top: r.top, bottom: r.bottom, height: r.height,
                        seen: Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, bar))};
            };
            return {bar, height: innerHeight,
                    board: shown(document.querySelector(".pg-board")),
                    move: shown(document.querySelector(".pg-move"))};
        }"""
    )
    move, board = seen["move"], seen["board"]
    assert move["seen"] >= move["height"] - 1, seen  # the whole first move
    assert board["seen"] >= board["height"] / 2, seen  # and most of the board, if not all
    # what the screen shows there is the board and the move, nothing over them
    assert in_view(zoomed, ".pg-move")
    x, y = zoomed.evaluate(
        """() => { const r = document.querySelector(".pg-board").getBoundingClientRect();
                   return [r.left + r.width / 2, Math.min(r.bottom, innerHeight) - 4]; }"""
    )
    assert zoomed.evaluate(
        "([x, y]) => !!document.elementFromPoint(x, y).closest('.pg-board')", [x, y]
    )


def test_the_hint_under_the_moves_is_never_cut_by_their_scrolling_frame(page, live_server, taps):
    """The moves scroll in a frame a third of the screen high, so that the board stays
    in view; what the buttons' marks mean (… a split, ↩ a bump) is read under that
    frame, whole, and a frame with more moves than it shows is shaded at that edge."""
    start_table(page, live_server, "pegs", NAMES[:4])
    page.evaluate("document.getElementById('pegs-panel').scrollIntoView({block: 'start'})")
    taps('.pg-cards [data-card="A"]')
    expect(page.locator(".pg-move").first).to_be_visible()
    hint = page.locator(".pg-moves-hint")
    expect(hint).to_contain_text("↩")
    assert page.locator("#pg-options .pg-moves-hint").count() == 0, "in the scrolling frame"
    hint.scroll_into_view_if_needed()
    assert in_view(page, ".pg-moves-hint")
    # the frame's edge shades (a shade stays at its edge; a cover scrolls with the moves)
    edges = page.eval_on_selector(
        "#pg-options", "(el) => getComputedStyle(el).backgroundAttachment"
    )
    assert edges.split(", ") == ["local", "local", "scroll", "scroll"], edges
