"""Pegs and Jokers at a phone (390×844, touch) on a 6-seat board: a come-out, an
opponent bumped back to start, a split 7 part by part, a joker that sends a teammate to
its in-spot, a home entry and an undo — the board checked through the pegs' data-seat /
data-pos after each — then set-up mode, the hand check and the watch link."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .conftest import assert_inside_viewport, phone_context, start_table

NAMES = ["Ana", "Bojan", "Ceca", "Dule", "Ema", "Filip"]


def peg(seat: int, pos: str) -> str:
    return f'#pegs-panel .peg[data-seat="{seat}"][data-pos="{pos}"]'


def board_of(page) -> dict[int, list[str]]:
    """Seat → its pegs' positions, sorted, as drawn."""
    found: dict[int, list[str]] = {}
    for seat, pos in page.eval_on_selector_all(
        "#pegs-panel .peg", "els => els.map(e => [+e.dataset.seat, e.dataset.pos])"
    ):
        found.setdefault(seat, []).append(pos)
    return {seat: sorted(p) for seat, p in found.items()}


def choose(page, taps, selector: str):
    """A tap on a control that comes back pressed (a server-side draft)."""
    taps(selector)
    expect(page.locator(selector)).to_have_attribute("aria-pressed", "true")


def pass_turn(page, taps, next_seat: int):
    """Discard and draw, then wait for the turn to reach the next seat: a card tapped
    before that answer is on the old turn's buttons, and refused as stale."""
    taps(".pg-pass")
    expect(page.locator(f'.pg-players [data-seat="{next_seat}"]')).to_have_attribute(
        "aria-pressed", "true"
    )


def test_a_six_seat_game_on_the_board(page, browser, live_server, taps, shots, console_errors):
    start_table(page, live_server, "pegs", NAMES)
    watch_url = page.locator("[data-copy]").last.get_attribute("data-copy")
    expect(page.locator("#pegs-panel .hole")).to_have_count(108)
    expect(page.locator("#pegs-panel .peg")).to_have_count(30)
    shots(page, "pegs-new-table")
    assert_inside_viewport(page)
    counts = {}

    # 1. Ana comes out with an ace: T8 is hers alone, one tap on the board
    start = taps.count
    choose(page, taps, '.pg-players [data-seat="0"]')
    choose(page, taps, '.pg-cards [data-card="A"]')
    expect(page.locator('#pegs-panel .ring.dest[data-to="T8"]')).to_have_count(1)
    shots(page, "pegs-ace-options")
    taps('.hit[data-hit="T8"]')
    expect(page.locator(peg(0, "T8"))).to_have_count(1)
    assert board_of(page) == {**{s: ["S"] * 5 for s in range(6)}, 0: ["S", "S", "S", "S", "T8"]}
    counts["come out"] = taps.count - start
    # the turn passed to Bojan: his king brings his peg out on T26
    expect(page.locator('.pg-players [data-seat="1"]')).to_have_attribute("aria-pressed", "true")
    choose(page, taps, '.pg-cards [data-card="K"]')
    taps('.hit[data-hit="T26"]')
    expect(page.locator(peg(1, "T26"))).to_have_count(1)
    # Ceca's queen: Ceca out on T44; Dule's jack moves his partner Bojan 10 on to T36
    choose(page, taps, '.pg-cards [data-card="Q"]')
    taps('.hit[data-hit="T44"]')
    expect(page.locator(peg(2, "T44"))).to_have_count(1)
    choose(page, taps, '.pg-cards [data-card="J"]')
    # Bojan's peg is on Bojan's side, not Dule's (the board shows Dule's): from the list
    taps('.pg-move[data-move="1-T26-T36"]')
    expect(page.locator(peg(1, "T36"))).to_have_count(1)

    # 2. Ema's 8 takes Ceca 8 back onto Bojan: the opponent goes back to start
    start = taps.count
    choose(page, taps, '.pg-cards [data-card="8"]')
    taps('.pg-move[data-move="2-T44-T36"]')  # the list under the board works as well
    expect(page.locator(peg(2, "T36"))).to_have_count(1)
    expect(page.locator("#board .flash.ok")).to_contain_text("Move saved.")
    # the last move as its button said it, the peg it sent back among its words
    expect(page.locator("#pg-last")).to_contain_text(
        "↩ Ema played 8: Ceca's peg 8 back, sends Bojan's peg to start."
    )
    assert board_of(page) == {
        **{s: ["S"] * 5 for s in range(6)},
        0: ["S", "S", "S", "S", "T8"],
        2: ["S", "S", "S", "S", "T36"],
    }
    counts["bump"] = taps.count - start
    shots(page, "pegs-bump")
    # Filip has nothing that moves: he discards
    expect(page.locator(".pg-pass")).to_contain_text("Filip discards and draws: next player")
    pass_turn(page, taps, next_seat=0)

    # 3. Ana's 7, split: 3 with her own peg, then the other 4 with Ceca's
    start = taps.count
    choose(page, taps, '.pg-cards [data-card="7"]')
    # T9 to T15 are all reachable: holes side by side are too small for a thumb (issue
    # #24), so a split's part is tapped in the list under the board
    expect(page.locator('.pg-layer-play .hit[data-hit="T11"]')).to_have_count(0)
    taps('.pg-dest[data-step="0-T8-T11"]')
    expect(page.locator(".pg-first")).to_contain_text("Ana's peg 3 forward.")
    # the second part: Ceca's 4, on round the track or into her home lane
    expect(page.locator(".pg-dest")).to_have_count(2)
    expect(page.locator('.pg-dest[data-step="2-T36-H1"]')).to_have_count(1)
    shots(page, "pegs-split-first-part")
    taps('.pg-dest[data-step="2-T36-T40"]')  # on Ceca's side, not Ana's: from the list
    expect(page.locator(peg(0, "T11"))).to_have_count(1)
    assert board_of(page)[0] == ["S", "S", "S", "S", "T11"]
    assert board_of(page)[2] == ["S", "S", "S", "S", "T40"]
    counts["split 7"] = taps.count - start
    pass_turn(page, taps, next_seat=2)  # Bojan

    # 4. Ceca's joker: Ema's start peg onto Ana's — a teammate goes to her in-spot T3
    start = taps.count
    choose(page, taps, '.pg-cards [data-card="JK"]')
    # every move is one step: the list says them all, with no step chooser under it
    expect(page.locator(".pg-move")).not_to_have_count(0)
    expect(page.locator(".pg-peg-list, .pg-dest")).to_have_count(0)
    taps('.pg-move[data-move="4-S-T11"]')  # Ema's start (the board shows Ceca's side)
    expect(page.locator(peg(0, "T3"))).to_have_count(1)
    expect(page.locator(peg(4, "T11"))).to_have_count(1)
    expect(page.locator("#pg-last")).to_contain_text(
        "Ceca played the joker: Ema's peg out onto Ana's peg, sends Ana's peg to its in-spot."
    )
    counts["joker, teammate to in-spot"] = taps.count - start
    shots(page, "pegs-teammate-in-spot")
    pass_turn(page, taps, next_seat=4)  # Dule

    # 5. Ema's 2 takes Ana's peg from her in-spot into her home lane, H2
    start = taps.count
    choose(page, taps, '.pg-cards [data-card="2"]')
    expect(page.locator('#pegs-panel .ring.dest[data-to="H2"]')).to_have_count(1)
    taps('.pg-move[data-move="0-T3-H2"]')  # Ana's lane: across the board from Ema
    expect(page.locator(peg(0, "H2"))).to_have_count(1)
    counts["home entry"] = taps.count - start
    after_home = {
        **{s: ["S"] * 5 for s in range(6)},
        0: ["H2", "S", "S", "S", "S"],
        2: ["S", "S", "S", "S", "T40"],
        4: ["S", "S", "S", "S", "T11"],
    }
    assert board_of(page) == after_home
    shots(page, "pegs-home-entry")
    assert_inside_viewport(page)

    # the watching phone follows, read-only
    watcher_context = phone_context(browser)
    watcher = watcher_context.new_page()
    watcher.goto(watch_url)
    assert board_of(watcher) == after_home
    expect(watcher.locator("#pegs-panel .hit")).to_have_count(0)
    expect(watcher.locator("#pegs-panel button")).to_have_count(0)
    shots(watcher, "pegs-watch")
    assert_inside_viewport(watcher)

    # 6. undo: Ana's peg is back on her in-spot, on both phones
    taps(".pg-undo")
    expect(page.locator(peg(0, "T3"))).to_have_count(1)
    expect(watcher.locator(peg(0, "T3"))).to_have_count(1)
    expect(page.locator('.pg-players [data-seat="4"]')).to_have_attribute("aria-pressed", "true")

    # 7. set-up mode: Bojan's peg put on T50 by tapping the peg, then the hole (written:
    # a hole of the whole board is too small for a thumb, issue #24)
    start = taps.count
    choose(page, taps, '.pg-mode [data-mode="setup"]')
    taps('.pg-pos[data-peg="1-S"]')
    expect(page.locator(".pg-fixing")).to_contain_text("Bojan")
    page.locator('.pg-to input[name="to"]').fill("T50")
    taps(".pg-to button[type=submit]")
    expect(page.locator(peg(1, "T50"))).to_have_count(1)
    counts["set-up, one peg"] = taps.count - start
    # a typed hole: Bojan's peg to H5; an occupied one is refused with the engine's reason
    choose(page, taps, '.pg-pos[data-peg="1-T50"]')
    page.locator('.pg-to input[name="to"]').fill("t40")
    taps(".pg-to button[type=submit]")
    expect(page.locator("#pegs-panel .field-error")).to_contain_text("T40 holds two pegs")
    page.locator('.pg-to input[name="to"]').fill("h5")
    taps(".pg-to button[type=submit]")
    expect(page.locator(peg(1, "H5"))).to_have_count(1)
    shots(page, "pegs-setup")
    assert_inside_viewport(page)

    # 8. the hand check for Ema: 5, 9, joker
    choose(page, taps, '.pg-mode [data-mode="play"]')
    for rank in ("5", "9", "JK"):
        taps(f'.pg-hand [data-card="{rank}"]')
        expect(page.locator(f'.pg-hand-cards [data-rank="{rank}"]')).to_have_count(1)
    expect(page.locator(".pg-verdict")).to_have_attribute("data-verdict", "must")
    expect(page.locator('.pg-hand-cards [data-rank="5"]')).to_contain_text("✓")
    shots(page, "pegs-hand-check")
    assert_inside_viewport(page)

    # a reload keeps the board and the turn
    page.reload()
    assert board_of(page)[1] == ["H5", "S", "S", "S", "S"]
    expect(page.locator('.pg-players [data-seat="4"]')).to_have_attribute("aria-pressed", "true")
    watcher_context.close()
    print(f"\npegs taps: {counts}, whole flow {taps.count}")


def test_undo_twice_then_redo_twice_names_the_right_player(page, live_server, taps, console_errors):
    """Issue #20: Undo ×2, then Redo ×2 (in the history); each time the header names the
    player whose turn it is (the seat after the latest live move's player)."""
    start_table(page, live_server, "pegs", ["Ana", "Bojan", "Ceca", "Dule"])
    title = page.locator("#pg-title")
    choose(page, taps, '.pg-players [data-seat="0"]')
    for rank, hole, seat in (("A", "T8", 0), ("K", "T26", 1), ("Q", "T44", 2)):
        choose(page, taps, f'.pg-cards [data-card="{rank}"]')
        box = page.locator(f'.pg-layer-play .hit[data-hit="{hole}"]').bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44, box  # a lone target: a thumb's
        taps(f'.hit[data-hit="{hole}"]')
        expect(page.locator(peg(seat, hole))).to_have_count(1)
    expect(title).to_have_text("Dule to play")

    def redo(round_no: int, who: str):
        taps(f'#history li[data-round="{round_no}"] button:text-is("Redo")')
        expect(page.locator(f'#history li[data-round="{round_no}"]')).not_to_have_class(
            re.compile(r"\bundone\b")
        )
        expect(title).to_have_text(f"{who} to play")

    taps(".pg-undo")  # Undo ×2 on the panel, Redo ×2 in the history
    expect(page.locator(peg(2, "T44"))).to_have_count(0)
    expect(title).to_have_text("Ceca plays Q")  # her turn back as she entered it
    taps(".pg-undo")
    expect(page.locator(peg(1, "T26"))).to_have_count(0)
    expect(title).to_have_text("Bojan to play")
    redo(2, "Ceca")
    expect(page.locator(peg(1, "T26"))).to_have_count(1)
    redo(3, "Dule")
    expect(page.locator(peg(2, "T44"))).to_have_count(1)
    expect(page.locator('.pg-players [data-seat="3"]')).to_have_attribute("aria-pressed", "true")


def test_must_play_refuses_a_discard_and_every_discard_is_recorded(
    page, live_server, taps, console_errors
):
    """Issue #24: with the hand entered, "discards and draws: next player" is refused while a card
    other than a joker can move, naming it; an allowed discard shows in "Last:" and in
    the history, and passes the turn."""
    start_table(page, live_server, "pegs", ["Ana", "Bojan", "Ceca", "Dule"])
    choose(page, taps, '.pg-players [data-seat="0"]')
    for rank in ("5", "7", "JK"):  # nothing of Ana's can move: every peg in start
        taps(f'.pg-hand [data-card="{rank}"]')
        expect(page.locator(f'.pg-hand-cards [data-rank="{rank}"]')).to_have_count(1)
    expect(page.locator(".pg-verdict")).to_have_attribute("data-verdict", "none")
    # issue #24: why each stuck card cannot move, in the engine's words
    expect(page.locator(".pg-why").first).to_contain_text(
        "No move with 5: the pegs in start come out only with A, K, Q, J or a joker."
    )
    taps('.pg-discards [data-rank="5"]')
    expect(page.locator("#pg-last")).to_contain_text("Ana discarded 5.")
    expect(page.locator("#pg-title")).to_have_text("Bojan to play")
    expect(page.locator("#history li.round").first).to_contain_text("Turn 1")
    # its history row says what it was (issue #24), not "Board set"
    expect(page.locator("#history li.round").first.locator(".round-kind")).to_have_text("Discard")
    expect(page.locator("#history li.round").first).to_contain_text("Ana discards 5")
    # Bojan's king can come out: his discard is refused, naming it
    for rank in ("8", "2", "JK", "5", "K"):
        taps(f'.pg-hand [data-card="{rank}"]')
        expect(page.locator(f'.pg-hand-cards [data-rank="{rank}"]')).to_have_count(1)
    expect(page.locator(".pg-verdict")).to_have_attribute("data-verdict", "must")
    expect(page.locator(".pg-discards")).to_have_count(0)
    taps(".pg-pass")
    expect(page.locator("#pegs-panel .field-error")).to_contain_text(
        "Bojan must play a card that can move: K."
    )
    expect(page.locator("#pg-title")).to_have_text("Bojan to play")
    expect(page.locator("#pg-last")).to_contain_text("Ana discarded 5.")
    # the refused button is as the server drew it, not as it was while its tap was out
    expect(page.locator(".pg-pass")).to_be_enabled()
    taps('.pg-hand button:text-is("Play K")')
    taps('.hit[data-hit="T26"]')
    expect(page.locator(peg(1, "T26"))).to_have_count(1)
    expect(page.locator("#pg-title")).to_have_text("Ceca to play")


def test_every_move_of_a_card_is_listed_naming_the_peg(page, live_server, taps, console_errors):
    """Issue #24: Ján's joker can land on Zuzana's peg with his own start peg or his
    partner Peter's; both moves are listed at once, in words, and one tap plays one."""
    start_table(page, live_server, "pegs", ["Zuzana", "Ján", "Eva", "Peter"])
    choose(page, taps, '.pg-players [data-seat="0"]')
    choose(page, taps, '.pg-cards [data-card="A"]')
    taps('.hit[data-hit="T8"]')
    expect(page.locator(peg(0, "T8"))).to_have_count(1)
    choose(page, taps, '.pg-cards [data-card="JK"]')
    moves = page.locator(".pg-move")
    expect(moves).to_have_text(
        [
            "Ján's peg out onto Zuzana's peg, sends Zuzana's peg to start",
            "Peter's peg out onto Zuzana's peg, sends Zuzana's peg to start",
        ]
    )
    box = moves.last.bounding_box()
    assert box["height"] >= 44 and box["width"] >= 44  # a thumb's tap target
    taps('.pg-move[data-move="3-S-T8"]')
    expect(page.locator(peg(3, "T8"))).to_have_count(1)
    expect(page.locator(peg(0, "T8"))).to_have_count(0)
    expect(page.locator("#pg-last")).to_contain_text(
        "Peter's peg out onto Zuzana's peg, sends Zuzana's peg to start."
    )
    expect(page.locator("#pg-title")).to_have_text("Eva to play")
    # the board's track and holes came back as a hole of the drawing each time, filled
    # from the phone's own: one drawing, whole
    expect(page.locator("[data-frag-kept]")).to_have_count(0)
    expect(page.locator(".pg-svg > g .pg-fixed .pg-holes circle")).not_to_have_count(0)
    expect(page.locator(".pg-svg .pg-fixed")).to_have_count(1)


def test_a_refusal_names_the_players(page, live_server, taps, console_errors):
    """Issue #24: a refused correction names the players, never seats counted from 0."""
    start_table(page, live_server, "pegs", ["Ana", "Bojan", "Ceca", "Dule"])
    choose(page, taps, '.pg-players [data-seat="0"]')
    choose(page, taps, '.pg-cards [data-card="A"]')
    taps('.hit[data-hit="T8"]')
    expect(page.locator(peg(0, "T8"))).to_have_count(1)
    choose(page, taps, '.pg-mode [data-mode="setup"]')
    choose(page, taps, '.pg-pos[data-peg="1-S"]')
    page.locator('.pg-to input[name="to"]').fill("t8")
    taps(".pg-to button[type=submit]")
    error = page.locator("#pegs-panel .field-error")
    expect(error).to_have_text("T8 holds two pegs (Ana and Bojan); a hole holds one.")


def test_play_or_set_up_stays_on_each_phone(page, browser, live_server, taps, console_errors):
    """Issue #20: one phone switching to set-up leaves the other phone in play mode, and
    the other phone's poll does not switch it back."""
    url = start_table(page, live_server, "pegs", ["Ana", "Bojan", "Ceca", "Dule"])
    other_context = phone_context(browser)
    other = other_context.new_page()
    other.goto(url)
    choose(page, taps, '.pg-mode [data-mode="setup"]')
    expect(page.locator(".pg-setup")).to_be_visible()
    expect(page.locator(".pg-play")).to_be_hidden()
    taps('.pg-pos[data-peg="1-S"]')
    expect(page.locator(".pg-fixing")).to_contain_text("Bojan")
    # the other phone stays in play and enters Ana's move meanwhile
    other.locator('.pg-players [data-seat="0"]').tap()
    expect(other.locator('.pg-players [data-seat="0"]')).to_have_attribute("aria-pressed", "true")
    other.locator('.pg-cards [data-card="A"]').tap()
    expect(other.locator(".pg-setup")).to_be_hidden()
    other.locator('.pg-layer-play .hit[data-hit="T8"]').tap()
    expect(other.locator(peg(0, "T8"))).to_have_count(1)
    expect(page.locator(peg(0, "T8"))).to_have_count(1)  # the poll
    expect(page.locator(".pg-setup")).to_be_visible()  # still set-up on this phone
    expect(page.locator('.pg-mode [data-mode="setup"]')).to_have_attribute("aria-pressed", "true")
    expect(other.locator(".pg-play")).to_be_visible()
    other_context.close()


def test_changing_the_last_move(page, live_server, taps, console_errors):
    """Issue #20: Edit of a saved move changing one thing: Ana's king is changed into an
    ace; the history keeps both, the board and the turn follow the changed move."""
    start_table(page, live_server, "pegs", ["Ana", "Bojan", "Ceca", "Dule"])
    choose(page, taps, '.pg-players [data-seat="0"]')
    choose(page, taps, '.pg-cards [data-card="K"]')
    taps('.hit[data-hit="T8"]')
    expect(page.locator("#pg-last")).to_contain_text("Ana played K")
    taps(".pg-edit")
    expect(page.locator(".pg-editing")).to_be_visible()
    expect(page.locator(peg(0, "T8"))).to_have_count(0)  # the board it was played on
    expect(page.locator('.pg-cards [data-card="K"]')).to_have_attribute("aria-pressed", "true")
    choose(page, taps, '.pg-cards [data-card="A"]')
    taps('.hit[data-hit="T8"]')
    expect(page.locator("#pegs-panel .pg-message")).to_contain_text("Move changed.")
    expect(page.locator("#pg-last")).to_contain_text("Ana played A")
    expect(page.locator(peg(0, "T8"))).to_have_count(1)
    expect(page.locator("#pg-title")).to_have_text("Bojan to play")
    expect(page.locator('#history li[data-round="1"]')).to_contain_text("edited")


def test_the_message_of_an_edit_or_an_undo_goes_once_a_move_is_saved(
    page, live_server, taps, console_errors
):
    """Edit's "Turn 1 is open again: play it again." heads the board while the
    move is entered again; a move saves itself, so once it is saved (and after the next
    move) the message is gone, as is an undo's once play goes on."""
    start_table(page, live_server, "pegs", ["Ana", "Bojan", "Ceca", "Dule"])
    choose(page, taps, '.pg-cards [data-card="K"]')
    taps('.hit[data-hit="T8"]')
    expect(page.locator("#pg-title")).to_have_text("Bojan to play")
    taps(".pg-edit")
    top = page.locator("#board .board-flash")
    expect(top).to_have_text("Turn 1 is open again: play it again.")
    choose(page, taps, '.pg-cards [data-card="A"]')
    expect(top).to_have_text("Turn 1 is open again: play it again.")  # still editing
    taps('.hit[data-hit="T8"]')
    expect(page.locator("#pegs-panel .pg-message")).to_contain_text("Move changed.")
    expect(top).to_have_text("")
    taps(".pg-undo")  # the change undone: Ana's king is back, Bojan to play
    expect(top).to_contain_text("undone")
    choose(page, taps, '.pg-cards [data-card="K"]')
    taps('.hit[data-hit="T26"]')
    expect(page.locator("#pg-title")).to_have_text("Ceca to play")
    expect(top).to_have_text("")


def test_edit_in_the_history_changes_the_last_move(page, live_server, taps, console_errors):
    """Issue #20: Edit on a saved move in the history reopens it on the board it was
    played on; changing its card stores one entry superseding it."""
    start_table(page, live_server, "pegs", ["Ana", "Bojan", "Ceca", "Dule"])
    choose(page, taps, '.pg-players [data-seat="0"]')
    choose(page, taps, '.pg-cards [data-card="K"]')
    taps('.hit[data-hit="T8"]')
    expect(page.locator("#pg-title")).to_have_text("Bojan to play")
    taps('#history li[data-round="1"] form.reopen button')
    expect(page.locator(".pg-editing")).to_be_visible()
    expect(page.locator("#pg-title")).to_have_text("Ana plays K")
    expect(page.locator(peg(0, "T8"))).to_have_count(0)  # the board it was played on
    choose(page, taps, '.pg-cards [data-card="A"]')
    taps('.hit[data-hit="T8"]')
    expect(page.locator("#pegs-panel .pg-message")).to_contain_text("Move changed.")
    expect(page.locator("#pg-last")).to_contain_text("Ana played A")
    expect(page.locator("#pg-title")).to_have_text("Bojan to play")
    expect(page.locator('#history li[data-round="1"]').first).to_contain_text("edited")


def test_a_tap_whose_answer_is_lost_is_applied_once(page, live_server, taps):
    """Issue #20: a card tap whose answer is dropped (the server got it), tapped again,
    ends in the state the player meant; the tap carried the id made on the phone, so a
    second send of it is a retry (tests/test_pegs_screen.py checks the id's effect)."""
    start_table(page, live_server, "pegs", ["Ana", "Bojan", "Ceca", "Dule"])
    choose(page, taps, '.pg-players [data-seat="0"]')
    lost = []

    def drop_the_answer(route):
        route.fetch()  # the server does the tap; its answer never reaches the phone
        lost.append(route.request.post_data)
        route.abort()

    page.route("**/pegs/tap", drop_the_answer)
    with page.expect_event("requestfailed"):
        taps('.pg-cards [data-card="A"]')
    page.unroute("**/pegs/tap")
    assert re.search(r"(^|&)tap_id=[0-9a-f]{24}(&|$)", lost[0]), lost
    taps('.pg-cards [data-card="A"]')  # tapped again
    expect(page.locator('.pg-cards [data-card="A"]')).to_have_attribute("aria-pressed", "true")
    expect(page.locator('#pegs-panel .ring.dest[data-to="T8"]')).to_have_count(1)
    expect(page.locator('.pg-cards [aria-pressed="true"]')).to_have_count(1)


def test_a_card_tapped_for_a_turn_that_passed_on_another_phone(page, browser, live_server, taps):
    """Issue #20: every tap names its turn. Phone A still shows Ana's turn (its poll held
    back) when phone B saves Ana's move; A's card tap is refused (its turn has passed),
    saying so, and A shows Bojan's turn."""
    url = start_table(page, live_server, "pegs", ["Ana", "Bojan", "Ceca", "Dule"])
    choose(page, taps, '.pg-players [data-seat="0"]')
    page.route("**/live?*", lambda route: route.abort())  # A's poll gets nothing meanwhile
    other_context = phone_context(browser)
    other = other_context.new_page()
    other.goto(url)
    other.locator('.pg-cards [data-card="A"]').tap()
    expect(other.locator('.pg-cards [data-card="A"]')).to_have_attribute("aria-pressed", "true")
    other.locator('.pg-layer-play .hit[data-hit="T8"]').tap()
    expect(other.locator(peg(0, "T8"))).to_have_count(1)
    expect(page.locator("#pg-title")).to_have_text("Ana to play")  # A has not seen it
    taps('.pg-cards [data-card="K"]')  # made for round 1, which Ana's move closed
    expect(page.locator("#pegs-panel .pg-message")).to_contain_text(
        "This deal changed a moment ago"
    )
    expect(page.locator("#pg-title")).to_have_text("Bojan to play")
    expect(page.locator('.pg-cards [aria-pressed="true"]')).to_have_count(0)
    other_context.close()


def test_a_card_that_cannot_move_says_why(page, live_server, taps, console_errors):
    """Issue #24: a card with no legal move says why (here: start pegs come out only
    with A, K, Q, J or a joker), next to "No legal move", in view on the phone."""
    start_table(page, live_server, "pegs", ["Ana", "Bojan", "Ceca", "Dule"])
    choose(page, taps, '.pg-players [data-seat="0"]')
    choose(page, taps, '.pg-cards [data-card="5"]')
    expect(page.locator(".pg-none")).to_be_visible()
    why = page.locator("#pg-options .pg-why")
    expect(why).to_have_text(
        "No move with 5: the pegs in start come out only with A, K, Q, J or a joker."
    )
    choose(page, taps, '.pg-cards [data-card="A"]')  # the ace comes out: no reason shown
    expect(page.locator("#pg-options .pg-why")).to_have_count(0)
