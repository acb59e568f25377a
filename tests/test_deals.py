"""A deal in progress without the web (``scorekeeper.deals``): taps added, refused, sent
again, undone and redone, a deal saved into its entry and reopened, a marriage counted
in the same write as its tap, a move closed at once: what a screen does, done on a
store alone, as a command or another door would."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from szaman_deal import NAMES, full_request, full_taps
from test_play_cowboy import finished_deals
from test_szaman_properties import play_deal, request_for

from scorekeeper import api, deals, store
from scorekeeper.deals import cowboy, kvanta, pegs, szaman
from scorekeeper.errors import RuleError
from scorekeeper.games import catalog
from scorekeeper.games.play import Tap, replay
from scorekeeper.games.play.cowboy import CowboyDeal
from scorekeeper.summary import summarize


@pytest.fixture
def s(tmp_path):
    s = store.Store.open(tmp_path / "db.sqlite")
    yield s
    s.close()


def new_table(s: store.Store, game: str, names) -> store.Table:
    s.create_table(game, "Night", list(names), catalog.game(game).defaults())
    return s.list_tables()[0]


def szaman_taps() -> list[dict]:
    """The shared classic deal card by card, then the cards left in hand, with ids."""
    return [{"id": f"t{n}", **tap} for n, tap in enumerate(full_taps())]


def play(s, deal, table, taps) -> store.TapLog:
    log = None
    for raw in taps:
        log, _wrote, _state = deals.tap(deal, s, table, Tap.from_json(raw), 1)
    return log


def test_a_szaman_deal_tapped_and_saved_is_the_engines_entry(s):
    table = new_table(s, "szaman", NAMES)
    log = play(s, szaman.DEAL, table, szaman_taps())
    state = deals.state_of(szaman.DEAL, table, log.data)
    assert state.complete and state.to_json()["closing"]["request"] == full_request()
    message = deals.save(szaman.DEAL, s, table, "save-1", log.version, 1)
    assert message == "Deal 1 saved."
    (entry,) = s.entries(table.id)
    assert entry.request == full_request()
    assert entry.result == api.evaluate("szaman-deal", full_request())
    assert s.entry_taps(entry.id) == log.data["taps"]  # the log kept with its entry
    assert s.tap_log(table.id, szaman.DRAFT).data is None  # closed in the same write
    # the same save sent again: told so, nothing more stored
    assert deals.save(szaman.DEAL, s, table, "save-1", log.version, 1) == "Already saved."
    assert len(s.entries(table.id)) == 1


def test_a_deal_shown_from_reads_a_save_came_between_is_not_kept_as_the_next_one(s, tmp_path):
    """A phone's poll reads the table's summary (deal 1 not saved yet); another phone
    saves deal 1; the poll then reads the draft: closed, the next deal not begun. The
    context of that next deal, made from the summary read before the save, said "Deal
    1" and was kept for the table's new state: every phone and the tap that begins the
    deal then took it ("Deal 1 of 6" stuck on a phone; the deal stored as deal 1)."""
    table = new_table(s, "szaman", NAMES)
    log = play(s, szaman.DEAL, table, szaman_taps())
    other = store.Store.open(tmp_path / "db.sqlite")  # the other phone's worker
    s.begin_memo()  # the poll's request
    before_the_save = summarize(s, table)
    assert deals.save(szaman.DEAL, other, table, "save-1", log.version, 1) == "Deal 1 saved."
    assert s.tap_log(table.id, szaman.DRAFT).data is None  # read after it: closed
    shown = deals.new_deal(szaman.DEAL, s, table, before_the_save)
    s.end_memo()
    assert shown["deal_no"] == 2
    s.begin_memo()  # the tap that begins deal 2 reads the table as it stands
    assert s.tap_log(table.id, szaman.DRAFT).data is None
    begun = deals.new_deal(szaman.DEAL, s, s.table(table.id), None)
    s.end_memo()
    other.close()
    assert begun["deal_no"] == 2


def test_a_tap_sent_twice_is_applied_once_and_a_refused_one_stores_nothing(s):
    table = new_table(s, "szaman", NAMES)
    first = play(s, szaman.DEAL, table, szaman_taps()[:3])
    again, wrote, state = deals.tap(szaman.DEAL, s, table, Tap.from_json(szaman_taps()[2]), 1)
    assert not again.changed and not wrote and state is None
    assert again.data == first.data and again.version == first.version
    wrong = {"id": "x", "action": "card", "seat": 3, "card": "2C"}  # 2C is already played
    with pytest.raises(RuleError):
        deals.tap(szaman.DEAL, s, table, Tap.from_json(wrong), 1)
    after = s.tap_log(table.id, szaman.DRAFT)
    assert (after.data, after.version) == (first.data, first.version)


def test_a_tap_on_a_round_the_phone_no_longer_shows_is_refused_as_news(s):
    table = new_table(s, "szaman", NAMES)
    play(s, szaman.DEAL, table, szaman_taps()[:1])
    with pytest.raises(deals.Refusal) as refused:
        deals.tap(szaman.DEAL, s, table, Tap.from_json(szaman_taps()[1]), 2)
    assert refused.value.status == 409 and refused.value.notice


def test_undo_and_redo_act_on_the_log(s):
    table = new_table(s, "szaman", NAMES)
    taps = szaman_taps()[:3]
    play(s, szaman.DEAL, table, taps)
    log, wrote = deals.undo_or_redo(szaman.DEAL, s, table, "undo", taps[-1]["id"])
    assert [t["id"] for t in log.data["taps"]] == ["t0", "t1"] and not wrote
    log, wrote = deals.undo_or_redo(szaman.DEAL, s, table, "redo", taps[-1]["id"])
    assert [t["id"] for t in log.data["taps"]] == ["t0", "t1", "t2"]
    with pytest.raises(deals.Refusal):
        deals.undo_or_redo(szaman.DEAL, s, table, "undo", "")


def test_a_saved_deal_reopens_with_every_card_and_its_change_supersedes_it(s):
    table = new_table(s, "szaman", NAMES)
    log = play(s, szaman.DEAL, table, szaman_taps())
    deals.save(szaman.DEAL, s, table, "save-1", log.version, 1)
    (saved,) = s.entries(table.id)
    assert deals.reopen(szaman.DEAL, s, table, saved.id) == saved.round
    reopened = s.tap_log(table.id, szaman.DRAFT)
    assert reopened.data["taps"] == log.data["taps"]
    # Ola held 7S, not 2D: one card changed
    changed = [
        {"id": "e1", "action": "held", "seat": 0, "card": "2D", "on": False},
        {"id": "e2", "action": "held", "seat": 0, "card": "7H", "on": True},
    ]
    log = play(s, szaman.DEAL, table, changed)
    assert deals.save(szaman.DEAL, s, table, "save-2", log.version, saved.round) == (
        "Deal 1 changed."
    )
    old, new = s.entries(table.id)
    assert old.state == "superseded" and new.live
    assert new.request["left"]["Ola"] == ["QC", "7S", "7H"]


def test_a_marriage_counts_in_the_same_write_as_its_tap(s):
    table = new_table(s, "cowboy", ["Ana", "Bojan", "Ceca"])
    marriage = {"id": "m1", "action": "marriage", "seat": 1, "suit": "H"}
    log, wrote, _state = deals.tap(cowboy.DEAL, s, table, Tap.from_json(marriage), 1)
    assert wrote and log.changed
    (entry,) = s.entries(table.id)
    assert entry.kind == "cowboy-marriage" and entry.request["player"] == "Bojan"
    bojan = next(p.id for p in s.players(table.id) if p.name == "Bojan")
    assert s.totals(table.id)[bojan] == entry.points[bojan] > 0
    log, wrote = deals.undo_or_redo(cowboy.DEAL, s, table, "undo", "m1")
    assert wrote and s.totals(table.id)[bojan] == 0


def test_a_move_closes_its_turn_at_once_and_once_only(s):
    table = new_table(s, "pegs", ["Ana", "Bojan", "Ceca", "Dule"])
    move = {
        "id": "move-1",
        "action": "move",
        "seat": 0,
        "card": "AS",
        "steps": [{"seat": 0, "from": "S", "to": "T8"}],
    }
    message = deals.close_at_once(pegs.DEAL, s, table, Tap.from_json(move), 0, 1)
    assert message.startswith("Move saved.")
    (entry,) = s.entries(table.id)
    assert entry.kind == "pegs-apply" and entry.request["steps"] == move["steps"]
    assert s.tap_log(table.id, pegs.DRAFT).data is None
    with pytest.raises(store.Replayed):
        deals.close_at_once(pegs.DEAL, s, table, Tap.from_json(move), 0, 1)
    assert len(s.entries(table.id)) == 1


def test_a_phone_never_sends_dice_of_its_own(s):
    """Kvanta's dice are rolled by the server alone (its roll route): a tap that carries
    its own is refused, whatever the round, and nothing is stored."""
    table = new_table(s, "kvanta", ["Ana", "Bojan", "Ceca"])
    for raw in ({"action": "roll", "seat": 1, "dice": [6, 6, 6]}, {"action": "exchange", "die": 6}):
        with pytest.raises(deals.Refusal) as refused:
            deals.tap(kvanta.DEAL, s, table, Tap.from_json({"id": "r", **raw}), 1)
        assert "rolled on the server" in refused.value.message and refused.value.field == "tap"
    assert s.tap_log(table.id, kvanta.DRAFT).data is None and s.rolls(table.id) == []


# ---------------------------------------------------------------- reopened without a log

PROPERTY = settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))


def saved_without_log(request: dict):
    """An entry an older version saved: its request, and no tap log."""
    return SimpleNamespace(id=7, request=request, round=1)


@pytest.fixture(scope="module")
def a_table(tmp_path_factory):
    """A table of ``game`` with these players and settings (one per kind, kept for the
    module: each example reopens its own entry on it, and nothing is stored)."""
    s = store.Store.open(tmp_path_factory.mktemp("deals") / "db.sqlite")
    made: dict = {}

    def table(game: str, players, settings: dict) -> tuple[store.Store, store.Table]:
        key = (game, tuple(players), json.dumps(settings, sort_keys=True))
        if key not in made:
            s.create_table(game, "Night", list(players), settings)
            made[key] = max(s.list_tables(), key=lambda t: t.id)
        return s, made[key]

    yield table
    s.close()


def marks_as_sets(request: dict) -> dict:
    """A quick trick's specials and off-suit players are sets: their order, and an empty
    one, say nothing."""
    tricks = [
        {k: sorted(v) if k in ("specials", "off_suit") else v for k, v in t.items() if v != []}
        for t in request["tricks"]
    ]
    return {**request, "tricks": tricks}


@PROPERTY
@given(
    st.randoms(use_true_random=False),
    st.integers(2, 6),
    st.sampled_from(["classic", "russian"]),
    st.data(),
)
def test_a_szaman_deal_saved_without_its_log_reopens_as_it_was_saved(
    a_table, rnd, n, variant, data
):
    """Edit of a deal stored before tap logs: its taps are made from its request, and
    they replay to a deal that closes into that same request (tricks entered card by
    card or quickly, the cards left in hand)."""
    players, tricks, hands, _ = play_deal(rnd, n, variant)
    quick = data.draw(st.sets(st.integers(0, len(tricks) - 1)))
    request = request_for(players, tricks, hands, variant, quick)
    s, table = a_table("szaman", players, {"deals": 6, "variant": variant})
    context = szaman.edit_context(s, table, saved_without_log(request))
    taps = szaman.rebuild(table, context, saved_without_log(request))
    state = deals.state_of(szaman.DEAL, table, {"taps": taps, "context": context})
    assert state.complete
    closing = state.to_json()["closing"]["request"]
    assert marks_as_sets(closing) == marks_as_sets(request)


@PROPERTY
@given(finished_deals())
def test_a_cowboy_deal_saved_without_its_log_reopens_as_it_was_saved(a_table, deal):
    """The same for Cowboy: its marriages, who ended it and every player's cards."""
    players, rules, log = deal
    closing = replay(CowboyDeal.start(players, rules), log).to_json()["closing"]
    s, table = a_table("cowboy", players, rules)
    context = cowboy.edit_context(s, table, saved_without_log(closing["request"]))
    taps = cowboy.rebuild(table, context, saved_without_log(closing["request"]))
    state = deals.state_of(cowboy.DEAL, table, {"taps": taps, "context": context})
    assert state.to_json()["closing"] == closing
