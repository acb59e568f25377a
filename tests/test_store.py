"""Storage: migrations, entries, undo/redo/edit with their audit trail, totals,
retried submissions, rolls, export/import and backup."""

from __future__ import annotations

import json
import os
import sqlite3

import pytest
from conftest import old_entry

from scorekeeper import store
from scorekeeper.store import (
    MAX_TABLE_NAME,
    Conflict,
    DraftChanged,
    Migration,
    Store,
    StoreError,
    connect,
    migrate,
)


@pytest.fixture
def s(tmp_path):
    st = Store.open(tmp_path / "db.sqlite")
    yield st
    st.close()


def make_table(s, names=("Ana", "Bojan", "Ceca"), game="cowboy", sid=None):
    out = s.create_table(game, "Friday", list(names), {"first_dealer": 0}, submission_id=sid)
    players = s.players(out["table_id"])
    return out["table_id"], {p.name: p.id for p in players}


def pad(s, table_id, ids, round_no, points, **kw):
    named = {name: pts for name, pts in points.items() if pts}
    return s.add_entry(
        table_id,
        round_no,
        "manual-points",
        {"players": list(ids), "points": named},
        {"points": points},
        {ids[name]: pts for name, pts in points.items()},
        **kw,
    )


def by_name(s, table_id, ids):
    totals = s.totals(table_id)
    return {name: totals[pid] for name, pid in ids.items()}


# ---------------------------------------------------------------- migrations


def test_fresh_database_gets_every_migration_and_wal(tmp_path):
    db = connect(tmp_path / "fresh.sqlite")
    applied = migrate(db)
    assert applied == [m.version for m in store.MIGRATIONS]
    assert store.schema_version(db) == store.MIGRATIONS[-1].version
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert {"tables", "players", "entries", "entry_events", "rolls"} <= set(db.table_names())
    assert "entry_points" not in db.table_names()  # an entry's points are in its row
    assert migrate(db) == []  # nothing pending the second time


def test_upgrading_an_old_database_file_keeps_its_data(tmp_path):
    path = tmp_path / "old.sqlite"
    db = connect(path)
    migrate(db, store.MIGRATIONS[:1])  # a file made by the first release
    old = Store(db)
    table_id, ids = make_table(old)
    old_entry(db, table_id, 1, {ids["Ana"]: 5, ids["Bojan"]: 0, ids["Ceca"]: 0})

    def add_column(db):
        db.execute("ALTER TABLE tables ADD COLUMN note TEXT NOT NULL DEFAULT ''")

    later = [*store.MIGRATIONS, Migration(len(store.MIGRATIONS) + 1, "table note", add_column)]
    assert migrate(db, later) == [m.version for m in later[1:]]
    assert by_name(Store(db), table_id, ids)["Ana"] == 5
    assert db.execute("SELECT note FROM tables").fetchone()[0] == ""


def test_a_failed_migration_leaves_the_database_untouched(tmp_path):
    path = tmp_path / "db.sqlite"
    db = connect(path)
    migrate(db)
    before = db.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall()
    version = store.schema_version(db)

    def good(db):
        db.execute("CREATE TABLE extra (id INTEGER PRIMARY KEY)")

    def broken(db):
        db.execute("ALTER TABLE tables ADD COLUMN colour TEXT")
        raise RuntimeError("half way")

    pending = [
        *store.MIGRATIONS,
        Migration(version + 1, "extra", good),
        Migration(version + 2, "broken", broken),
    ]
    with pytest.raises(RuntimeError):
        migrate(db, pending)
    assert store.schema_version(db) == version
    assert db.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall() == before


# ---------------------------------------------------------------- entries and totals


def test_totals_sum_live_entries_in_sql(s):
    table_id, ids = make_table(s)
    pad(s, table_id, ids, 1, {"Ana": 10, "Bojan": -5, "Ceca": 0})
    pad(s, table_id, ids, 2, {"Ana": 3, "Bojan": 7, "Ceca": 1})
    assert by_name(s, table_id, ids) == {"Ana": 13, "Bojan": 2, "Ceca": 1}
    assert s.next_round(table_id) == 3


def test_entries_are_stored_with_request_result_and_points(s):
    table_id, ids = make_table(s)
    out = pad(s, table_id, ids, 1, {"Ana": 10, "Bojan": -5, "Ceca": 0})
    entry = s.entry(table_id, out["entry_id"])
    assert entry.kind == "manual-points"
    assert entry.request["points"] == {"Ana": 10, "Bojan": -5}
    assert entry.result == {"points": {"Ana": 10, "Bojan": -5, "Ceca": 0}}
    assert entry.points == {ids["Ana"]: 10, ids["Bojan"]: -5, ids["Ceca"]: 0}
    assert entry.live and entry.state == "live"


def test_undo_redo_and_undo_of_undo_keep_the_whole_trail(s):
    table_id, ids = make_table(s)
    first = pad(s, table_id, ids, 1, {"Ana": 10, "Bojan": 0, "Ceca": 0})["entry_id"]
    pad(s, table_id, ids, 2, {"Ana": 1, "Bojan": 2, "Ceca": 3})
    s.void_entry(table_id, first)
    assert by_name(s, table_id, ids) == {"Ana": 1, "Bojan": 2, "Ceca": 3}
    assert s.entry(table_id, first).state == "voided"
    s.restore_entry(table_id, first)
    assert by_name(s, table_id, ids) == {"Ana": 11, "Bojan": 2, "Ceca": 3}
    s.void_entry(table_id, first)
    events = [(e["entry_id"], e["event"]) for e in s.events(table_id)]
    assert events == [(first, "voided"), (first, "restored"), (first, "voided")]
    # nothing is ever deleted
    assert len(s.entries(table_id)) == 2


def test_undo_twice_is_a_conflict_not_a_second_event(s):
    table_id, ids = make_table(s)
    first = pad(s, table_id, ids, 1, {"Ana": 10, "Bojan": 0, "Ceca": 0})["entry_id"]
    s.void_entry(table_id, first)
    with pytest.raises(Conflict):
        s.void_entry(table_id, first)
    with pytest.raises(Conflict):
        s.restore_entry(
            table_id, pad(s, table_id, ids, 2, {"Ana": 1, "Bojan": 0, "Ceca": 0})["entry_id"]
        )
    assert len(s.events(table_id)) == 1


def entry_of(s, table_id, ids, round_no, kind, sid=None):
    """An entry of ``kind`` in ``round_no`` worth 1 to Ana."""
    return s.add_entry(table_id, round_no, kind, {}, {}, {ids["Ana"]: 1}, sid)["entry_id"]


def test_a_redo_never_counts_a_round_twice_once_it_was_entered_again(tmp_path):
    """A deal undone, then its round saved anew: redoing the old one would count the
    round twice, so it is refused and nothing changes. Kinds a round counts any number
    of (a marriage shown, a Flux) come back; kinds that fill one slot (a Pegs turn, a
    move or a discard) are one (catalog.round_slot)."""
    from scorekeeper.games import catalog

    db = connect(tmp_path / "db.sqlite")
    s = Store(db, numbering=catalog.numbering, round_slot=catalog.round_slot)
    migrate(s.db)
    table_id, ids = make_table(s)
    first = entry_of(s, table_id, ids, 1, "cowboy-deal")
    s.void_entry(table_id, first)
    entry_of(s, table_id, ids, 1, "cowboy-deal")
    events = s.events(table_id)
    with pytest.raises(Conflict, match="Round 1 was entered again after this entry was undone"):
        s.restore_entry(table_id, first)
    assert s.entry(table_id, first).state == "voided" and s.events(table_id) == events
    assert by_name(s, table_id, ids)["Ana"] == 1
    # another kind of the round is no second deal: it comes back
    marriage = entry_of(s, table_id, ids, 1, "cowboy-marriage")
    s.void_entry(table_id, marriage)
    entry_of(s, table_id, ids, 1, "cowboy-marriage")
    s.restore_entry(table_id, marriage)
    assert by_name(s, table_id, ids)["Ana"] == 3
    # a Pegs turn is a move or a discard: one of them a turn
    pegs_table, pegs_ids = make_table(s, ("Ana", "Bojan", "Ceca", "Dule"), game="pegs")
    move = entry_of(s, pegs_table, pegs_ids, 3, "pegs-apply")
    s.void_entry(pegs_table, move)
    entry_of(s, pegs_table, pegs_ids, 3, "pegs-board")
    with pytest.raises(Conflict, match="Turn 3 was played again after this entry was undone"):
        s.restore_entry(pegs_table, move)
    s.close()


def test_an_undo_brings_back_what_it_replaced_but_never_into_a_slot_filled_since(tmp_path):
    """A Kvanta round's entry took over the set-up's dealer draw; another draw, undone
    before, was redone meanwhile (none counted then). Undoing the round's entry brings
    back what it took over, except that draw: round 0 would count two (round_slot)."""
    from scorekeeper.games import catalog

    db = connect(tmp_path / "db.sqlite")
    s = Store(db, numbering=catalog.numbering, round_slot=catalog.round_slot)
    migrate(s.db)
    table_id, ids = make_table(s, game="kvanta")
    earlier = entry_of(s, table_id, ids, 0, "kvanta-dealer")
    s.void_entry(table_id, earlier)
    draw = entry_of(s, table_id, ids, 0, "kvanta-dealer")
    hand = s.add_entry(table_id, 1, "kvanta-hand", {}, {}, {ids["Ana"]: 1}, replaces=[draw])
    assert s.entry(table_id, draw).state == "superseded"
    s.restore_entry(table_id, earlier)  # no draw counted: it comes back
    s.void_entry(table_id, hand["entry_id"])
    live = [e.id for e in s.entries(table_id, live_only=True) if e.kind == "kvanta-dealer"]
    assert live == [earlier] and s.entry(table_id, draw).state == "superseded"
    assert by_name(s, table_id, ids)["Ana"] == 1
    s.close()


def test_edit_supersedes_and_undoing_the_edit_brings_back_the_original(s):
    table_id, ids = make_table(s)
    old = pad(s, table_id, ids, 1, {"Ana": 10, "Bojan": 0, "Ceca": 0})["entry_id"]
    new = pad(s, table_id, ids, 1, {"Ana": 20, "Bojan": 0, "Ceca": 0}, supersedes=old)["entry_id"]
    assert by_name(s, table_id, ids)["Ana"] == 20
    assert s.entry(table_id, old).state == "superseded"
    assert s.entry(table_id, new).supersedes == old
    s.void_entry(table_id, new)
    assert by_name(s, table_id, ids)["Ana"] == 10
    s.restore_entry(table_id, new)
    assert by_name(s, table_id, ids)["Ana"] == 20
    trail = [(e["entry_id"], e["event"], e["by_entry"]) for e in s.events(table_id)]
    assert trail == [
        (old, "superseded", new),
        (new, "voided", None),
        (old, "restored", new),
        (new, "restored", None),
        (old, "superseded", new),
    ]


def test_editing_a_round_someone_else_changed_is_refused(s):
    table_id, ids = make_table(s)
    old = pad(s, table_id, ids, 1, {"Ana": 10, "Bojan": 0, "Ceca": 0})["entry_id"]
    pad(s, table_id, ids, 1, {"Ana": 20, "Bojan": 0, "Ceca": 0}, supersedes=old)
    with pytest.raises(Conflict, match="changed on another phone"):
        pad(s, table_id, ids, 1, {"Ana": 30, "Bojan": 0, "Ceca": 0}, supersedes=old)
    assert by_name(s, table_id, ids)["Ana"] == 20
    assert len(s.entries(table_id)) == 2


def test_a_round_entered_twice_is_refused_when_exclusive(s):
    table_id, ids = make_table(s)
    pad(s, table_id, ids, 1, {"Ana": 10, "Bojan": 0, "Ceca": 0}, exclusive_round=True)
    with pytest.raises(Conflict, match="another phone"):
        pad(s, table_id, ids, 1, {"Ana": 4, "Bojan": 0, "Ceca": 0}, exclusive_round=True)
    assert by_name(s, table_id, ids)["Ana"] == 10


def test_an_entry_worked_out_from_an_older_table_is_refused(s):
    """``based_on_version``: the entry was worked out from the table as it stood; any
    change since (another phone's entry, a draft tap) refuses it, inside the write."""
    table_id, ids = make_table(s)
    seen = s.version(table_id)
    pad(s, table_id, ids, 1, {"Ana": 10, "Bojan": 0, "Ceca": 0}, based_on_version=seen)
    with pytest.raises(Conflict, match="Another phone changed this table a moment ago"):
        pad(s, table_id, ids, 2, {"Ana": 4, "Bojan": 0, "Ceca": 0}, based_on_version=seen)
    assert by_name(s, table_id, ids)["Ana"] == 10
    assert len(s.entries(table_id)) == 1
    assert s.version(table_id) == seen + 1  # the refusal changed nothing
    pad(s, table_id, ids, 2, {"Ana": 4, "Bojan": 0, "Ceca": 0}, based_on_version=seen + 1)
    assert by_name(s, table_id, ids)["Ana"] == 14


def test_a_deal_worked_out_from_an_older_draft_is_refused_and_the_draft_kept(s):
    table_id, ids = make_table(s)
    s.save_draft(table_id, "deal", {"taps": 1})
    _data, read = s.draft(table_id, "deal")
    s.save_draft(table_id, "deal", {"taps": 2})  # another phone's tap meanwhile
    with pytest.raises(DraftChanged, match="Another phone changed this deal a moment ago"):
        pad(s, table_id, ids, 1, {"Ana": 3}, close_draft="deal", based_on_draft=("deal", read))
    assert s.entries(table_id) == []
    assert s.draft(table_id, "deal") == ({"taps": 2}, read + 1)
    pad(s, table_id, ids, 1, {"Ana": 3}, close_draft="deal", based_on_draft=("deal", read + 1))
    assert s.draft(table_id, "deal") == (None, 0)
    assert by_name(s, table_id, ids)["Ana"] == 3


def test_points_for_a_stranger_are_refused_and_nothing_is_stored(s):
    table_id, ids = make_table(s)
    other, other_ids = make_table(s, names=("Zed", "Yan", "Xu"))
    with pytest.raises(StoreError):
        s.add_entry(table_id, 1, "manual-points", {}, {}, {other_ids["Zed"]: 5})
    assert s.entries(table_id) == []


# ---------------------------------------------------------------- retries


def test_a_retried_submission_is_stored_once(s):
    table_id, ids = make_table(s)
    v0 = s.version(table_id)
    first = pad(s, table_id, ids, 1, {"Ana": 10, "Bojan": 0, "Ceca": 0}, submission_id="sub-1")
    again = pad(s, table_id, ids, 1, {"Ana": 10, "Bojan": 0, "Ceca": 0}, submission_id="sub-1")
    assert again == first
    assert len(s.entries(table_id)) == 1
    assert by_name(s, table_id, ids)["Ana"] == 10
    assert s.version(table_id) == v0 + 1


def test_a_retried_table_creation_creates_one_table(s):
    a = s.create_table("kvanta", "x", ["A", "B"], {}, submission_id="create-1")
    b = s.create_table("kvanta", "x", ["A", "B"], {}, submission_id="create-1")
    assert a == b
    assert len(s.list_tables()) == 1


def snapshot(s) -> list:
    return [
        s.db.execute(f"SELECT * FROM {name} ORDER BY rowid").fetchall()
        for name in ("tables", "players", "entries", "entry_events", "rolls", "submissions")
    ]


@pytest.mark.parametrize(
    "write, own_id",
    [
        (lambda s, t, ids, e, sid: pad(s, t, ids, 2, {"Ana": 5}, submission_id=sid), "entered"),
        (lambda s, t, ids, e, sid: s.void_entry(t, e, sid), "undone"),
        (lambda s, t, ids, e, sid: s.restore_entry(t, e, sid), None),
        (lambda s, t, ids, e, sid: s.rematch(t, sid), None),
        (lambda s, t, ids, e, sid: s.create_table("kvanta", "x", ["A", "B"], {}, sid), None),
        (lambda s, t, ids, e, sid: s.rename_player(t, ids["Ana"], "Anica", sid), None),
        (lambda s, t, ids, e, sid: s.reorder_players(t, list(ids.values())[::-1], sid), None),
        (
            lambda s, t, ids, e, sid: s.add_roll(t, 1, "kvanta-target", [1, 2, 3], {}, False, sid),
            None,
        ),
    ],
    ids=["entry", "undo", "redo", "rematch", "create", "rename", "reorder", "roll"],
)
def test_a_submission_id_of_another_kind_of_write_is_refused_and_changes_nothing(s, write, own_id):
    """A form sends one id per action, so an id already used by another kind of write
    is not a retry of this one: its stored outcome would be the wrong answer."""
    table_id, ids = make_table(s)
    entry = pad(s, table_id, ids, 1, {"Ana": 10}, submission_id="entered")["entry_id"]
    s.void_entry(table_id, entry, submission_id="undone")
    for sid in ("entered", "undone"):
        before = snapshot(s)
        if sid == own_id:  # a true retry: answered from what is stored
            write(s, table_id, ids, entry, sid)
        else:
            with pytest.raises(store.ReusedSubmission, match="already sent for another change"):
                write(s, table_id, ids, entry, sid)
        assert snapshot(s) == before


def test_a_submission_stored_before_writes_were_told_apart_still_replays(s):
    """Rows from before the ``action`` column replay for any write, as they did."""
    table_id, ids = make_table(s)
    first = pad(s, table_id, ids, 1, {"Ana": 10}, submission_id="old")
    s.db.execute("UPDATE submissions SET action = NULL WHERE id = 'old'")
    again = pad(s, table_id, ids, 1, {"Ana": 10}, submission_id="old")
    assert again == first
    assert len(s.entries(table_id)) == 1


def test_looking_up_a_submission_answers_as_its_write_would(s):
    """A view checks for a retry before it does the work: the lookup gives the
    stored outcome to the write that made it, refuses an id another kind of write
    used, and replays rows from before writes were told apart for any."""
    table_id, ids = make_table(s)
    entered = pad(s, table_id, ids, 1, {"Ana": 10}, submission_id="entered")
    undone = s.void_entry(table_id, entered["entry_id"], submission_id="undone")
    assert s.submission("entered", s.add_entry) == entered
    assert s.submission("undone", s.void_entry) == undone
    assert s.submission("never-sent", s.add_entry) is None
    assert s.submission(None, s.add_entry) is None
    for sid, other in (("entered", s.void_entry), ("undone", s.add_entry), ("undone", s.add_roll)):
        with pytest.raises(store.ReusedSubmission, match="already sent for another change"):
            s.submission(sid, other)
    s.db.execute("UPDATE submissions SET action = NULL WHERE id = 'undone'")
    assert s.submission("undone", s.add_entry) == undone


def test_every_write_bumps_the_version(s):
    table_id, ids = make_table(s)
    versions = [s.version(table_id)]
    entry = pad(s, table_id, ids, 1, {"Ana": 1, "Bojan": 0, "Ceca": 0})["entry_id"]
    versions.append(s.version(table_id))
    s.void_entry(table_id, entry)
    versions.append(s.version(table_id))
    s.rename_player(table_id, ids["Ana"], "Anica")
    versions.append(s.version(table_id))
    assert versions == sorted(set(versions))


# ---------------------------------------------------------------- players


def test_rename_keeps_points_and_refuses_a_duplicate_name(s):
    table_id, ids = make_table(s)
    pad(s, table_id, ids, 1, {"Ana": 10, "Bojan": 0, "Ceca": 0})
    s.rename_player(table_id, ids["Ana"], "Anica")
    assert s.totals(table_id)[ids["Ana"]] == 10
    assert [p.name for p in s.players(table_id)] == ["Anica", "Bojan", "Ceca"]
    with pytest.raises(StoreError, match="already playing"):
        s.rename_player(table_id, ids["Bojan"], "Ceca")


def test_reorder_only_until_the_first_entry(s):
    table_id, ids = make_table(s)
    s.reorder_players(table_id, [ids["Ceca"], ids["Ana"], ids["Bojan"]])
    assert [p.name for p in s.players(table_id)] == ["Ceca", "Ana", "Bojan"]
    pad(s, table_id, ids, 1, {"Ana": 1, "Bojan": 0, "Ceca": 0})
    with pytest.raises(Conflict, match="fixed"):
        s.reorder_players(table_id, [ids["Ana"], ids["Bojan"], ids["Ceca"]])


def test_rematch_copies_game_players_seats_and_settings(s):
    out = s.create_table("szaman", "Night", ["Ola", "Piotr"], {"deals": 4, "target": 66})
    again = s.rematch(out["table_id"])
    t = s.table(again["table_id"])
    assert (t.game, t.name, t.settings, t.rematch_of) == (
        "szaman",
        "Night (2)",
        {"deals": 4, "target": 66},
        out["table_id"],
    )
    assert [p.name for p in s.players(t.id)] == ["Ola", "Piotr"]
    assert t.scorer_key != s.table(out["table_id"]).scorer_key


def test_a_second_rematch_of_a_table_joins_the_first(s):
    """Two phones tap Rematch on the finished game (each its own form): both land on
    one new table, not one each that splits the players."""
    out = s.create_table("cowboy", "Friday", ["Ana", "Bojan", "Ceca"], {})
    first = s.rematch(out["table_id"], "phone-a-rematch")
    second = s.rematch(out["table_id"], "phone-b-rematch")
    assert second == first
    assert len(s.list_tables()) == 2
    # the rematch's own rematch is a new table again
    third = s.rematch(first["table_id"], "next-rematch")
    assert third["table_id"] not in (out["table_id"], first["table_id"])


def test_a_rematch_is_named_by_its_number_in_the_chain(s):
    """Two tables "Friday" on the home page's list could not be told apart."""
    table_id = s.create_table("cowboy", "Friday", ["Ana", "Bojan", "Ceca"], {})["table_id"]
    names = []
    for _ in range(3):
        table_id = s.rematch(table_id)["table_id"]
        names.append(s.table(table_id).name)
    assert names == ["Friday (2)", "Friday (3)", "Friday (4)"]


@pytest.mark.parametrize(
    ("name", "rematch"),
    [
        ("Room (1)", "Room (2)"),
        ("Room (9)", "Room (10)"),
        ("Room (2) ", "Room (3)"),  # kept trimmed: "Room (2)"
        ("Room (02)", "Room (02) (2)"),  # not a number this app writes
        ("Room (0)", "Room (0) (2)"),
        ("Room(2)", "Room(2) (2)"),
        ("(2)", "(2) (2)"),  # a name that is only a number keeps it
        ("Ana & Bojan (x)", "Ana & Bojan (x) (2)"),
    ],
)
def test_a_rematch_counts_on_from_the_number_its_name_ends_in(s, name, rematch):
    table_id = s.create_table("kvanta", name, ["Ana", "Bojan"], {})["table_id"]
    assert s.table(s.rematch(table_id)["table_id"]).name == rematch


def test_a_rematch_of_a_long_name_keeps_to_the_limit(s):
    longest = "Ž" * (MAX_TABLE_NAME - 5) + " abcd"
    chain = [s.create_table("kvanta", longest, ["Ana", "Bojan"], {})["table_id"]]
    for _ in range(10):
        chain.append(s.rematch(chain[-1])["table_id"])
    names = [s.table(t).name for t in chain[1:]]
    # cut to make room for the number, and no space left at the cut
    assert names[0] == "Ž" * (MAX_TABLE_NAME - 5) + " (2)"
    assert names[-1] == "Ž" * (MAX_TABLE_NAME - 5) + " (11)"
    assert all(len(name) <= MAX_TABLE_NAME for name in names)


def test_a_rematch_of_a_table_without_a_name_is_given_the_usual_one(s):
    """No table is started without a name, but a file from elsewhere may hold one."""
    table_id = s.create_table("kvanta", "x", ["Ana", "Bojan"], {})["table_id"]
    s.db.execute("UPDATE tables SET name = ? WHERE id = ?", ["\u200b ", table_id])
    again = s.rematch(table_id, usual_name="Kvanta, 6 Dec 2026")
    assert s.table(again["table_id"]).name == "Kvanta, 6 Dec 2026 (2)"


# ---------------------------------------------------------------- links


def test_links_are_long_random_and_distinct(s):
    out = s.create_table("cowboy", "x", ["A", "B", "C"], {})
    t = s.table(out["table_id"])
    assert t.scorer_key != t.watch_key
    for key in (t.scorer_key, t.watch_key):
        assert len(key) >= 22  # 144 bits in URL-safe base64
        assert set(key) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert s.table_by_key(t.scorer_key)[1] == "score"
    assert s.table_by_key(t.watch_key)[1] == "watch"
    with pytest.raises(store.NotFound):
        s.table_by_key(t.scorer_key[:-1])


# ---------------------------------------------------------------- rolls


def test_rolls_are_kept_in_order_and_never_replaced(s):
    table_id, _ids = make_table(s, game="kvanta", names=("A", "B"))
    s.add_roll(table_id, 1, "kvanta-target", [1, 2, 3], {"target": 6}, submission_id="roll-1")
    s.add_roll(table_id, 1, "kvanta-target", [1, 2, 3], {"target": 6}, submission_id="roll-1")
    s.add_roll(table_id, 1, "kvanta-target", [6, 6, 5], {"target": 17}, physical=True)
    rolls = s.rolls(table_id)
    assert [(r["dice"], r["physical"]) for r in rolls] == [([1, 2, 3], False), ([6, 6, 5], True)]


# ---------------------------------------------------------------- export, import, backup


def test_export_then_import_into_a_fresh_database_gives_the_same_table(s, tmp_path):
    table_id, ids = make_table(s)
    a = pad(s, table_id, ids, 1, {"Ana": 10, "Bojan": -5, "Ceca": 0})["entry_id"]
    b = pad(s, table_id, ids, 2, {"Ana": 1, "Bojan": 2, "Ceca": 3})["entry_id"]
    pad(s, table_id, ids, 2, {"Ana": 4, "Bojan": 2, "Ceca": 3}, supersedes=b)
    s.void_entry(table_id, a)
    s.add_roll(table_id, 3, "kvanta-target", [2, 2, 2], {"target": 6})
    exported = s.export_table(table_id)
    json.dumps(exported)  # serialisable

    other = Store.open(tmp_path / "other.sqlite")
    new_id = other.import_table(json.loads(json.dumps(exported)))
    new_ids = {p.name: p.id for p in other.players(new_id)}
    assert by_name(other, new_id, new_ids) == by_name(s, table_id, ids)
    assert [(e.round, e.state, e.request) for e in other.entries(new_id)] == [
        (e.round, e.state, e.request) for e in s.entries(table_id)
    ]
    assert len(other.events(new_id)) == len(s.events(table_id))
    assert other.table(new_id).scorer_key == s.table(table_id).scorer_key
    with pytest.raises(StoreError, match="already"):
        other.import_table(exported)


def test_import_refuses_an_export_with_half_a_character_and_keeps_nothing(s, tmp_path):
    """A lone \\uD800 escape is valid JSON but no text SQLite can store: the import
    says what is wrong with the file, and nothing of it is kept."""
    table_id, ids = make_table(s)
    pad(s, table_id, ids, 1, {"Ana": 10})
    exported = s.export_table(table_id)
    other = Store.open(tmp_path / "other.sqlite")
    for damage in (
        lambda e: e["players"][0].update(name="Ana\ud800"),
        lambda e: e["table"].update(name="\udcff"),
        lambda e: e["entries"][0]["request"].update(note="\udfff"),
    ):
        damaged = json.loads(json.dumps(exported))
        damage(damaged)
        with pytest.raises(StoreError, match="half a character"):
            other.import_table(damaged)
        assert other.list_tables() == []


def test_import_refuses_something_that_is_not_an_export(s):
    with pytest.raises(StoreError):
        s.import_table({"hello": 1})
    with pytest.raises(StoreError):
        s.import_table({"format": "scorekeeper-table", "table": {}})
    assert s.list_tables() == []


def test_backup_is_a_consistent_copy(s, tmp_path):
    table_id, ids = make_table(s)
    pad(s, table_id, ids, 1, {"Ana": 10, "Bojan": 0, "Ceca": 0})
    target = tmp_path / "backup.sqlite"
    s.backup(target)
    copy = sqlite3.connect(target)
    assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert copy.execute("SELECT COUNT(*) FROM entries").fetchone()[0] == 1


# ---------------------------------------------------------------- drafts


def test_a_draft_is_saved_versioned_and_closed_with_its_entry(s):
    table_id, ids = make_table(s)
    assert s.draft(table_id, "deal") == (None, 0)
    v1 = s.save_draft(table_id, "deal", {"held": {"Ana": ["KH"]}})
    v2 = s.save_draft(table_id, "deal", {"held": {"Ana": ["KH", "AH"]}}, expected_version=v1)
    assert (v1, v2) == (1, 2)
    with pytest.raises(Conflict, match="Another phone"):
        s.save_draft(table_id, "deal", {"held": {}}, expected_version=v1)
    assert s.draft(table_id, "deal") == ({"held": {"Ana": ["KH", "AH"]}}, 2)
    # the draft counts for nothing until closed; closing removes it in the same write
    assert by_name(s, table_id, ids) == {"Ana": 0, "Bojan": 0, "Ceca": 0}
    pad(s, table_id, ids, 1, {"Ana": 5, "Bojan": 0, "Ceca": 0}, close_draft="deal")
    assert s.draft(table_id, "deal") == (None, 0)


def test_a_refused_entry_keeps_the_draft(s):
    table_id, ids = make_table(s)
    s.save_draft(table_id, "deal", {"x": 1})
    pad(s, table_id, ids, 1, {"Ana": 5, "Bojan": 0, "Ceca": 0}, exclusive_round=True)
    with pytest.raises(Conflict):
        pad(
            s,
            table_id,
            ids,
            1,
            {"Ana": 5, "Bojan": 0, "Ceca": 0},
            exclusive_round=True,
            close_draft="deal",
        )
    assert s.draft(table_id, "deal") == ({"x": 1}, 1)


def test_an_entry_that_replaces_provisional_ones_counts_them_once(s):
    """A closed Cowboy deal carries the marriages shown during it: the provisional
    +25 entries stop counting in the same write, and come back if the deal is undone."""
    table_id, ids = make_table(s)
    m1 = pad(s, table_id, ids, 1, {"Ana": 25, "Bojan": 0, "Ceca": 0})["entry_id"]
    m2 = pad(s, table_id, ids, 1, {"Ana": 0, "Bojan": 25, "Ceca": 0})["entry_id"]
    assert by_name(s, table_id, ids) == {"Ana": 25, "Bojan": 25, "Ceca": 0}
    deal = pad(s, table_id, ids, 1, {"Ana": 55, "Bojan": 25, "Ceca": -20}, replaces=[m1, m2])
    assert by_name(s, table_id, ids) == {"Ana": 55, "Bojan": 25, "Ceca": -20}
    s.void_entry(table_id, deal["entry_id"])
    assert by_name(s, table_id, ids) == {"Ana": 25, "Bojan": 25, "Ceca": 0}
    s.restore_entry(table_id, deal["entry_id"])
    assert by_name(s, table_id, ids) == {"Ana": 55, "Bojan": 25, "Ceca": -20}
    # a provisional entry already undone cannot be carried
    s.void_entry(table_id, deal["entry_id"])
    s.void_entry(table_id, m2)
    with pytest.raises(Conflict):
        pad(s, table_id, ids, 1, {"Ana": 1, "Bojan": 0, "Ceca": 0}, replaces=[m1, m2])
    assert by_name(s, table_id, ids) == {"Ana": 25, "Bojan": 0, "Ceca": 0}


def flushes_during(monkeypatch, write) -> list[tuple[str, bool]]:
    """(file, whether another writer could take the write lock meanwhile) for each
    disk flush made while ``write()`` runs."""
    real_fsync = os.fsync
    flushes = []

    def fsync(fd):
        path = os.readlink(f"/proc/self/fd/{fd}")
        flushes.append((path, probe_lock(f"{path.removesuffix('-wal')}.lock") == "free"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    write()
    monkeypatch.setattr(os, "fsync", real_fsync)
    return flushes


def test_durability_is_full_by_default_and_normal_on_request(tmp_path, monkeypatch):
    """FULL: every write's log is on disk when the write returns, flushed once the
    write lock is free for the next writer. NORMAL: flushed at checkpoints only."""
    full = Store.open(tmp_path / "a.sqlite")
    out = full.create_table("kvanta", "t", ["Ana", "Bojan"], {})
    flushes = flushes_during(monkeypatch, lambda: full.save_draft(out["table_id"], "d", {"x": 1}))
    assert flushes == [(f"{(tmp_path / 'a.sqlite').resolve()}-wal", True)]
    normal = Store(connect(tmp_path / "b.sqlite", "NORMAL"))
    migrate(normal.db)
    out = normal.create_table("kvanta", "t", ["Ana", "Bojan"], {})
    assert flushes_during(monkeypatch, lambda: normal.save_draft(out["table_id"], "d", {})) == []
    with pytest.raises(ValueError):
        connect(tmp_path / "c.sqlite", "OFF")  # never trade away crash safety
    # through a symbolic link, the flush reaches the log SQLite writes, next to the real file
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    linked = Store.open(tmp_path / "link" / "d.sqlite")
    out = linked.create_table("kvanta", "t", ["Ana", "Bojan"], {})
    flushes = flushes_during(monkeypatch, lambda: linked.save_draft(out["table_id"], "d", {}))
    assert flushes == [(f"{(tmp_path / 'real' / 'd.sqlite').resolve()}-wal", True)]


def test_a_database_whose_file_name_is_not_utf8_is_flushed_and_backed_up(tmp_path, monkeypatch):
    """A file name is bytes: one that is not UTF-8 (an old archive, another system's
    disk) still finds its log to flush, and its backup still knows it."""
    path = tmp_path / os.fsdecode(b"caf\xe9.sqlite")
    s = Store.open(path)
    out = s.create_table("kvanta", "t", ["Ana", "Bojan"], {})
    flushes = flushes_during(monkeypatch, lambda: s.save_draft(out["table_id"], "d", {"x": 1}))
    assert flushes == [(f"{path.resolve()}-wal", True)]
    with pytest.raises(StoreError, match="is the database itself"):
        s.backup(path)
    s.backup(tmp_path / "copy.sqlite")
    copy = sqlite3.connect(tmp_path / "copy.sqlite")
    assert copy.execute("SELECT name FROM tables").fetchall() == [("t",)]


def test_a_key_that_is_half_a_character_is_no_table(s):
    """A command line gives bytes that are not UTF-8 as half characters, which SQLite
    cannot take: such a key finds no table instead of failing in the query."""
    make_table(s)
    for key in (os.fsdecode(b"\xff"), "abc\ud800", ""):
        with pytest.raises(store.NotFound, match="no table behind this link"):
            s.table_by_key(key)


def test_the_app_takes_its_durability_setting(tmp_path):
    from scorekeeper import create_app

    app = create_app(
        {"DATABASE": str(tmp_path / "d.sqlite"), "SECRET_KEY": "x", "SQLITE_SYNCHRONOUS": "normal"}
    )
    assert app.config["SQLITE_SYNCHRONOUS"] == "NORMAL"
    with pytest.raises(ValueError):
        create_app(
            {"DATABASE": str(tmp_path / "e.sqlite"), "SECRET_KEY": "x", "SQLITE_SYNCHRONOUS": "off"}
        )


# ---------------------------------------------------------------- the write lock


LOCK_PROBE = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
try:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    print("free")
except BlockingIOError:
    print("held")
"""


def probe_lock(path) -> str:
    """Whether another process could take the database's write lock right now."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", LOCK_PROBE, str(path)], capture_output=True, text=True, timeout=30
    )
    return out.stdout.strip()


def test_a_write_holds_the_file_lock_that_other_processes_queue_on(tmp_path):
    db = tmp_path / "locked.sqlite"
    s = Store.open(db)
    lock_file = f"{db.resolve()}.lock"
    with store.transaction(s.db):
        assert probe_lock(lock_file) == "held"
        with s.db.write_lock:  # re-entrant within the thread
            assert probe_lock(lock_file) == "held"
        assert probe_lock(lock_file) == "held"  # the inner release kept it
    assert probe_lock(lock_file) == "free"
    s.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_worker_waits_for_a_write_its_parent_holds(tmp_path):
    """A fork shares open files, and an flock belongs to the open file: the worker
    must take the lock on a file of its own, or it would write alongside its parent."""
    import threading
    import time

    db = tmp_path / "forked.sqlite"
    s = Store.open(db)
    read_end, write_end = os.pipe()
    with store.transaction(s.db):
        pid = os.fork()
        if pid == 0:  # the worker: try to write while the parent holds the lock
            report = "error"
            try:
                entered = threading.Event()

                def write():
                    with s.db.write_lock:
                        entered.set()

                threading.Thread(target=write, daemon=True).start()
                blocked = not entered.wait(0.6)
                got_it = entered.wait(10)
                report = f"{blocked} {got_it}"
            finally:
                os.write(write_end, report.encode())
                os._exit(0)
        time.sleep(1.2)  # hold the lock well past the worker's first look
    os.waitpid(pid, 0)
    assert os.read(read_end, 100).decode() == "True True"
    os.close(read_end)
    os.close(write_end)
    s.close()


# ---------------------------------------------------------------- a machine that cannot write


def test_a_failure_of_the_machine_is_told_apart_from_a_bug(s):
    """``unavailable`` names what the machine lacks (room, write permission); any
    other failure is not explained away."""
    table_id, ids = make_table(s)
    pages = s.db.execute("PRAGMA page_count").fetchone()[0]
    s.db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(sqlite3.OperationalError) as full:
        for n in range(200):
            pad(s, table_id, ids, n + 1, {"Ana": 10**6 + n, "Bojan": 1, "Ceca": 2})
    assert "disk of the computer running Scorekeeper is full" in store.unavailable(full.value)
    s.db.execute("PRAGMA max_page_count = 1073741823")
    s.db.execute("PRAGMA query_only = ON")
    with pytest.raises(sqlite3.OperationalError) as read_only:
        pad(s, table_id, ids, 1, {"Ana": 1})
    assert "may not write its database" in store.unavailable(read_only.value)
    with pytest.raises(sqlite3.OperationalError) as typo:
        s.db.execute("SELEC 1")
    assert store.unavailable(typo.value) is None
    assert store.unavailable(ValueError("not SQLite's")) is None
