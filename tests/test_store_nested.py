"""A store write begun inside an open one joins it: one transaction (one BEGIN, one
COMMIT), the table's version bumped once, the inner write's submission recorded so that
a retry of it replays its outcome, and any failure of a part rolls back the whole of it
(the draft written before included), even when the caller caught it."""

from __future__ import annotations

import pytest

from scorekeeper.store import Conflict, Replayed, Store, StoreError

DRAFT = "cowboy-deal"


@pytest.fixture
def s(tmp_path):
    st = Store.open(tmp_path / "db.sqlite")
    yield st
    st.close()


def start(s):
    out = s.create_table("cowboy", "Friday", ["Ana", "Bojan", "Ceca"], {"first_dealer": 0})
    table = s.table(out["table_id"])
    return table, {p.name: p.id for p in s.players(table.id)}


def marriage(s, table_id, ids, submission_id, name="Ana"):
    return s.add_entry(
        table_id,
        1,
        "cowboy-marriage",
        {"player": name, "suit": "H"},
        {"points": {name: 25}},
        {ids[name]: 25},
        submission_id,
    )


def tap_with_entry(s, table_id, ids, tap_id, submission_id, then_extra=None):
    """A tap appended to the draft's log with an entry written in the same write."""
    made = {}

    def then(log):
        made["entry"] = marriage(s, table_id, ids, submission_id)
        if then_extra is not None:
            then_extra(log)

    log = s.append_tap(
        table_id,
        DRAFT,
        {"id": tap_id, "action": "marriage"},
        lambda data: None,
        lambda old: {"taps": [], "undone": [], "context": {"round": 1}},
        then,
    )
    return log, made


def traced(s):
    statements: list[str] = []
    s.db.conn.set_trace_callback(statements.append)
    return statements


def test_a_write_inside_a_write_is_one_transaction_and_one_version(s):
    table, ids = start(s)
    version = s.version(table.id)
    statements = traced(s)
    log, made = tap_with_entry(s, table.id, ids, "t1", "sub-1")
    s.db.conn.set_trace_callback(None)
    assert [x for x in statements if x.startswith(("BEGIN", "COMMIT"))] == [
        "BEGIN IMMEDIATE",
        "COMMIT",
    ]
    assert sum("SET version = version + 1" in x for x in statements) == 1
    assert s.version(table.id) == version + 1 == log.table_version
    assert [t["id"] for t in s.tap_log(table.id, DRAFT).data["taps"]] == ["t1"]
    (entry,) = s.entries(table.id)
    assert entry.id == made["entry"]["entry_id"] and entry.points == {ids["Ana"]: 25}


def test_an_inner_failure_rolls_back_the_whole_write_even_when_caught(s):
    table, ids = start(s)
    version = s.version(table.id)

    def refused(log):
        try:
            s.save_draft(table.id, "other", {"x": 1}, expected_version=7)  # refused: Conflict
        except Conflict:
            pass  # the caller goes on: the write must not commit a half of itself

    with pytest.raises(Conflict):
        tap_with_entry(s, table.id, ids, "t1", "sub-1", then_extra=refused)
    assert s.tap_log(table.id, DRAFT).data is None
    assert s.entries(table.id) == []
    assert s.version(table.id) == version
    assert s.submission("sub-1", s.add_entry, table.id) is None
    # nothing was left open: the same tap afterwards is applied, once
    tap_with_entry(s, table.id, ids, "t1", "sub-1")
    assert len(s.entries(table.id)) == 1 and s.version(table.id) == version + 1


def test_an_exception_out_of_the_inner_write_rolls_back_the_tap(s):
    table, ids = start(s)
    version = s.version(table.id)

    def broken(log):
        with s.write(table.id, None):
            s.db.execute("UPDATE players SET name = 'X' WHERE table_id = ?", [table.id])
            raise StoreError("The disk refused it.")

    with pytest.raises(StoreError):
        tap_with_entry(s, table.id, ids, "t1", "sub-1", then_extra=broken)
    assert [p.name for p in s.players(table.id)] == ["Ana", "Bojan", "Ceca"]
    assert s.tap_log(table.id, DRAFT).data is None and s.entries(table.id) == []
    assert s.version(table.id) == version


def test_the_inner_writes_submission_is_recorded_and_a_retry_replays_it(s):
    table, ids = start(s)
    log, made = tap_with_entry(s, table.id, ids, "t1", "sub-1")
    stored = s.submission("sub-1", s.add_entry, table.id)
    assert stored == made["entry"] == {"entry_id": made["entry"]["entry_id"], "round": 1}
    version = s.version(table.id)
    # the same entry again, inside another write: its stored outcome, nothing added, and
    # the rest of that write is kept
    again = {}

    def then(log):
        again["entry"] = marriage(s, table.id, ids, "sub-1")

    s.append_tap(
        table.id, DRAFT, {"id": "t2", "action": "hold"}, lambda data: None, lambda old: {}, then
    )
    assert again["entry"] == stored
    assert len(s.entries(table.id)) == 1
    assert [t["id"] for t in s.tap_log(table.id, DRAFT).data["taps"]] == ["t1", "t2"]
    assert s.version(table.id) == version + 1
    # and outside any write, as before
    assert marriage(s, table.id, ids, "sub-1") == stored and len(s.entries(table.id)) == 1


def test_a_part_with_the_writes_own_submission_id_is_its_body(s):
    """A write that checks a submission id, and a part of it that writes under that id
    (a tap that closes its deal): one check, one outcome, the part's (carried by the
    entry it wrote: no submissions row)."""
    table, ids = start(s)
    statements = traced(s)
    with s.write(table.id, "close-1", "add_entry", touches=None):
        inner = marriage(s, table.id, ids, "close-1")
    s.db.conn.set_trace_callback(None)
    assert sum("submissions" in x for x in statements) == 1  # its check
    assert not [x for x in statements if x.startswith("INSERT INTO submissions")]
    assert s.submission("close-1", s.add_entry, table.id) == inner
    with pytest.raises(Replayed) as replayed:
        with s.write(table.id, "close-1", "add_entry"):
            pass
    assert replayed.value.outcome == inner


def test_kept_reads_after_a_nested_write_are_the_rows_as_they_are(s, tmp_path):
    """A request's kept reads (``begin_memo``) through a write with parts: the draft
    as the write left it, the entries read again, the version once bumped."""
    table, ids = start(s)
    s.begin_memo()
    s.table_by_key(table.scorer_key)
    assert s.recent_entries(table.id) == []
    assert s.next_round(table.id) == 1
    log, made = tap_with_entry(s, table.id, ids, "t1", "sub-1")
    statements = traced(s)
    assert s.tap_log(table.id, DRAFT).data["taps"] == [{"id": "t1", "action": "marriage"}]
    assert s.tap_log(table.id, DRAFT).table_version == log.table_version
    assert statements == []  # the log the write stored, without reading it back
    assert [e.id for e in s.recent_entries(table.id)] == [made["entry"]["entry_id"]]
    assert statements  # the entries it added are read
    assert s.version(table.id) == log.table_version
    other = Store.open(tmp_path / "db.sqlite")
    try:
        assert [t["id"] for t in other.tap_log(table.id, DRAFT).data["taps"]] == ["t1"]
        assert len(other.entries(table.id)) == 1
    finally:
        other.close()
    s.end_memo()


def test_a_part_that_changes_what_the_write_stored_before_is_read_as_it_left_it(s):
    """A tap whose part closes its draft (a round's last step): the request reads no
    draft after it, not the log the tap stored first."""
    table, ids = start(s)
    s.begin_memo()
    s.table_by_key(table.scorer_key)
    assert s.tap_log(table.id, DRAFT).data is None

    def then(log):
        marriage(s, table.id, ids, "sub-1")
        s.delete_draft(table.id, DRAFT)

    log = s.append_tap(
        table.id,
        DRAFT,
        {"id": "t1", "action": "marriage"},
        lambda data: None,
        lambda old: {"taps": [], "undone": [], "context": {"round": 1}},
        then,
    )
    assert log.changed
    assert s.tap_log(table.id, DRAFT).data is None
    assert s.draft(table.id, DRAFT) == (None, 0)
    s.end_memo()
    assert s.tap_log(table.id, DRAFT).data is None and len(s.entries(table.id)) == 1


def test_totals_read_inside_a_write_count_its_parts_and_a_rollback_leaves_them_uncounted(s):
    from scorekeeper.store.base import NEW_ENTRY_READS

    table, ids = start(s)
    s.begin_memo()
    s.table_by_key(table.scorer_key)
    assert s.tally(table.id).totals[ids["Ana"]] == 0
    with pytest.raises(StoreError):
        with s.write(table.id, None, touches=NEW_ENTRY_READS):
            marriage(s, table.id, ids, "sub-1")
            assert s.tally(table.id).totals[ids["Ana"]] == 25  # as the write stands
            raise StoreError("Refused after all.")
    assert s.tally(table.id).totals[ids["Ana"]] == 0
    s.end_memo()
    marriage(s, table.id, ids, "sub-2")  # (its entry may take the id the other had)
    s.begin_memo()
    assert s.tally(table.id).totals[ids["Ana"]] == 25
    s.end_memo()
