"""A tap that scores (a Cowboy marriage, a Kvanta settle, a Pegs move) is one write with
the entries it stands for: when the entry cannot be written, nothing of the tap is kept
(its log as before, the table's version unchanged), and the same tap sent again once
the fault is gone is applied once; a closing tap retried after it was saved changes
nothing."""

from __future__ import annotations

import sqlite3

from conftest import snapshot
from test_cowboy_screen import cowboy  # noqa: F401 (fixtures)
from test_kvanta_screen import kv, to_the_call  # noqa: F401 (fixtures)
from test_pegs_screen import FOUR, pg  # noqa: F401 (fixtures)

from scorekeeper import store as store_module
from scorekeeper.deals import kvanta as kvanta_deal
from scorekeeper.deals import pegs as pegs_deal


def refuse_entries(monkeypatch, error: Exception) -> None:
    """Every entry the store is asked to write fails with ``error``."""

    def failing(self, *args, **kwargs):
        raise error

    monkeypatch.setattr(store_module.Store, "_write_entry", failing)


def everything(s, table_id: int) -> list:
    """All a tap may change: the history, the drafts and submissions, the version."""
    db = s.db
    rows = [
        db.execute(f"SELECT * FROM {name} ORDER BY rowid").fetchall()
        for name in ("drafts", "submissions")
    ]
    return [*snapshot(s), *rows, s.version(table_id)]


# ---------------------------------------------------------------- Cowboy: a marriage


def test_a_marriage_whose_entry_fails_keeps_nothing_and_counts_once_sent_again(
    cowboy,  # noqa: F811
    monkeypatch,
):
    t = cowboy()
    t.hold("Ana", "KS")  # the deal's log begun
    taps, version = t.taps(), t.store.version(t.table.id)
    shown = {"v": t.version, "rnd": t.round}
    before = everything(t.store, t.table.id)
    refuse_entries(monkeypatch, store_module.StoreError("The entry could not be written."))
    t.send("marriage", tap_id="m-1", seat=0, suit="H", **shown)
    assert t.status == 409
    assert t.taps() == taps and t.store.version(t.table.id) == version
    assert everything(t.store, t.table.id) == before
    monkeypatch.undo()
    t.send("marriage", tap_id="m-1", seat=0, suit="H", **shown)
    assert t.status == 200
    (entry,) = [e for e in t.entries() if e.kind == "cowboy-marriage"]
    assert entry.live and t.totals()["Ana"] == 25
    assert [x["id"] for x in t.taps()] == [taps[0]["id"], "m-1"]
    assert t.store.version(t.table.id) == version + 1  # the tap and its entry: one write
    # sent once more (its answer lost): nothing changes, the marriage still shown
    after = everything(t.store, t.table.id)
    out = t.send("marriage", tap_id="m-1", seat=0, suit="H", **shown)
    assert t.status == 200 and everything(t.store, t.table.id) == after
    assert 'data-marriage-for="Ana"' in out and t.totals()["Ana"] == 25


def test_a_marriage_undone_and_redone_counts_again_in_the_same_write_as_its_redo(
    cowboy,  # noqa: F811
):
    t = cowboy()
    t.marriage("Ana", "S", tap_id="m-1")
    t.undo()
    assert t.totals()["Ana"] == 0
    version = t.store.version(t.table.id)
    t.redo()
    assert t.status == 200 and t.totals()["Ana"] == 25
    assert t.store.version(t.table.id) == version + 1
    assert len([e for e in t.entries() if e.kind == "cowboy-marriage"]) == 1


def test_an_undone_marriage_whose_entry_cannot_be_undone_stays_tapped_and_counted(
    cowboy,  # noqa: F811
    monkeypatch,
):
    """The undo of a marriage tap and the undo of its entry are one write."""
    t = cowboy()
    t.marriage("Ana", "S", tap_id="m-1")
    undo = t.button_vals('data-op="undo"')["tap_id"]
    before = everything(t.store, t.table.id)

    def failing(self, *args, **kwargs):
        raise store_module.StoreError("The entry could not be undone.")

    monkeypatch.setattr(store_module.Store, "_event", failing)
    t.post("/undo", {"tap_id": undo})
    assert t.status == 409
    assert everything(t.store, t.table.id) == before
    assert [x["id"] for x in t.taps()] == ["m-1"] and t.totals()["Ana"] == 25
    monkeypatch.undo()
    t.post("/undo", {"tap_id": undo})
    assert t.status == 200 and t.taps() == [] and t.totals()["Ana"] == 0


# ---------------------------------------------------------------- Kvanta: a settle


def test_a_settle_whose_entry_fails_keeps_nothing_and_counts_once_sent_again(
    app,
    kv,  # noqa: F811
    monkeypatch,
):
    answer = to_the_call(app, kv)
    before, version = everything(kv.store, kv.table.id), kv.store.version(kv.table.id)
    taps = [t["id"] for t in kv.draft()["taps"]]
    refuse_entries(monkeypatch, store_module.StoreError("The entry could not be written."))
    refused = kv.tap("settle", at=answer, tap_id="settle-1")
    assert refused.status == 409
    assert [t["id"] for t in kv.draft()["taps"]] == taps  # no settle in the log
    assert everything(kv.store, kv.table.id) == before
    assert kv.store.version(kv.table.id) == version
    monkeypatch.undo()
    saved = kv.tap("settle", at=answer, tap_id="settle-1")
    assert saved.status == 200 and saved.phase == "poker"
    (entry,) = kv.entries("kvanta-call")
    assert kv.totals() == {"Ana": 24, "Bojan": -10, "Ceca": -4}
    assert [t["id"] for t in kv.draft()["taps"]] == [*taps, "settle-1"]
    assert kv.store.version(kv.table.id) == version + 1
    # sent again (its answer lost): nothing changes, the same round and totals
    after = everything(kv.store, kv.table.id)
    again = kv.tap("settle", at=answer, tap_id="settle-1")
    assert again.status == 200 and again.phase == "poker" and again.round == saved.round
    assert everything(kv.store, kv.table.id) == after
    assert [e.id for e in kv.entries("kvanta-call")] == [entry.id]


def test_the_settle_that_closes_the_round_is_one_write_and_a_retry_changes_nothing(
    app,
    kv,  # noqa: F811
    monkeypatch,
):
    from test_kvanta_screen import POKER_HANDS

    to_the_call(app, kv)
    kv.tap("settle")
    answer = kv.cards(POKER_HANDS)
    before, version = everything(kv.store, kv.table.id), kv.store.version(kv.table.id)
    refuse_entries(monkeypatch, store_module.StoreError("The entry could not be written."))
    assert kv.tap("settle", at=answer, tap_id="poker-1").status == 409
    assert everything(kv.store, kv.table.id) == before  # the round still open, as it was
    monkeypatch.undo()
    saved = kv.tap("settle", at=answer, tap_id="poker-1")
    assert saved.status == 200 and saved.round == "2" and kv.draft() is None
    assert len(kv.entries("kvanta-poker")) == 1
    assert kv.store.version(kv.table.id) == version + 1
    after = everything(kv.store, kv.table.id)
    again = kv.tap("settle", at=answer, tap_id="poker-1")
    assert again.status == 200 and "Already saved." in again.html and again.round == "2"
    assert everything(kv.store, kv.table.id) == after
    assert kvanta_deal.DRAFT == "kvanta-round"


# ---------------------------------------------------------------- Pegs: a move


MOVE = {"action": "move", "seat": 0, "card": "AS", "steps": [{"seat": 0, "from": "S", "to": "T8"}]}


def test_a_move_whose_entry_fails_keeps_nothing_and_is_saved_once_sent_again(
    pg,  # noqa: F811
    monkeypatch,
):
    """The move is the turn's first tap: its log is begun and closed in the one write."""
    t = pg(FOUR)
    assert t.store.tap_log(t.table.id, pegs_deal.DRAFT).data is None
    before, version = everything(t.store, t.table.id), t.store.version(t.table.id)
    refuse_entries(monkeypatch, sqlite3.OperationalError("disk I/O error"))
    t.send(MOVE, expect=500, tap_id="move-1", v=0, round_number=1)
    assert t.store.tap_log(t.table.id, pegs_deal.DRAFT).data is None
    assert everything(t.store, t.table.id) == before
    assert t.store.version(t.table.id) == version
    monkeypatch.undo()
    saved = t.send(MOVE, tap_id="move-1", v=0, round_number=1).get_data(as_text=True)
    assert "Move saved." in saved
    (move,) = t.entries(pegs_deal.APPLY_KIND)
    assert move.request["steps"] == [{"seat": 0, "from": "S", "to": "T8"}]
    assert "T8" in t.board().positions(0)
    assert t.store.version(t.table.id) == version + 1
    # the same move sent again from the same screen: told it was saved, nothing changes
    after = everything(t.store, t.table.id)
    again = t.send(MOVE, tap_id="move-1", v=0, round_number=1).get_data(as_text=True)
    assert "Already saved." in again
    assert everything(t.store, t.table.id) == after


def test_a_move_after_the_turns_first_taps_whose_entry_fails_keeps_the_turn(
    pg,  # noqa: F811
    monkeypatch,
):
    t = pg(FOUR)
    t.turn(0, "A")
    before = everything(t.store, t.table.id)
    refuse_entries(monkeypatch, store_module.StoreError("The entry could not be written."))
    t.step(0, "S", "T8", expect=409, submission_id="move-1")
    assert everything(t.store, t.table.id) == before
    monkeypatch.undo()
    t.step(0, "S", "T8", submission_id="move-1")
    assert len(t.entries(pegs_deal.APPLY_KIND)) == 1
    assert t.store.tap_log(t.table.id, pegs_deal.DRAFT).data is None
