"""The store as a package: its names, the one idempotent write, the named entry
operations, a table's language (migration 6, export and import), its sentences as
msgids, and a write that the web layer's ``get_store`` never cuts short."""

from __future__ import annotations

import copy
import csv
import io
import json
import sqlite3

import pytest
from conftest import old_entry

from scorekeeper import messages, store
from scorekeeper.store import (
    MIGRATIONS,
    Conflict,
    NotFound,
    Store,
    StoreError,
    connect,
    migrate,
    schema_version,
)


@pytest.fixture
def s(tmp_path):
    st = Store.open(tmp_path / "db.sqlite")
    yield st
    st.close()


def make_table(s, language="en", sid=None):
    out = s.create_table(
        "cowboy", "Friday", ["Ana", "Bojan", "Ceca"], {"first_dealer": 0}, sid, language=language
    )
    return out["table_id"], {p.name: p.id for p in s.players(out["table_id"])}


def manual(ids, points):
    return (
        "manual-points",
        {"players": list(ids), "points": points},
        {"points": points},
        {ids[n]: p for n, p in points.items()},
    )


# ---------------------------------------------------------------- the package


def test_every_name_importers_use_is_there():
    from scorekeeper.store import (  # noqa: F401 — the import is the test
        BAD_SUBMISSION_ID,
        KEY_FORMAT,
        MAX_ROWID,
        MAX_TABLE_NAME,
        SUBMISSION_ID_FORMAT,
        SYNCHRONOUS_MODES,
        DatabaseGone,
        DraftChanged,
        Entry,
        Player,
        ReusedSubmission,
        Table,
        TapLog,
        TooMany,
        Unchanged,
        caps,
        history_csv,
        transaction,
        unavailable,
    )

    assert set(store.__all__) <= set(dir(store))
    # every part of the store answers on the one class
    for method in ("create_table", "add_entry", "append_tap", "export_table", "set_language"):
        assert callable(getattr(Store, method))


def test_the_parts_import_no_part_through_the_package():
    """Each part imports its siblings, never ``scorekeeper.store`` itself (whose
    ``__init__`` imports them all: that would be a cycle)."""
    import ast
    from pathlib import Path

    for path in Path(store.__file__).parent.glob("*.py"):
        if path.name == "__init__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                assert node.module, f"{path.name}: from . import …"


# ---------------------------------------------------------------- one idempotent write


@pytest.mark.parametrize(
    "write",
    [
        lambda s, tid, ids, sid: s.rename_player(tid, ids["Ana"], "Ana Maria", sid),
        lambda s, tid, ids, sid: s.reorder_players(tid, list(reversed(ids.values())), sid),
        lambda s, tid, ids, sid: s.add_roll(tid, 1, "kvanta-target", [2, 5], {"t": 7}, False, sid),
        lambda s, tid, ids, sid: s.set_language(tid, "pl", sid),
        lambda s, tid, ids, sid: s.rematch(tid, sid),
    ],
    ids=["rename", "reorder", "roll", "language", "rematch"],
)
def test_a_retried_write_is_answered_as_the_first_and_changes_nothing(s, write):
    tid, ids = make_table(s)
    first = write(s, tid, ids, "retry-1")
    version = s.version(tid)
    tables = len(s.list_tables())
    assert write(s, tid, ids, "retry-1") == first
    assert s.version(tid) == version and len(s.list_tables()) == tables


def test_no_copy_of_the_replayed_pattern_is_left_in_the_store():
    """Every write that a retry may repeat goes through ``Store.once``."""
    from pathlib import Path

    for path in Path(store.__file__).parent.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        if path.name != "base.py":
            assert "except Replayed" not in text, path.name


# ---------------------------------------------------------------- named entry operations


def test_edit_entry_supersedes_in_the_old_round_and_is_refused_once_changed(s):
    tid, ids = make_table(s)
    first = s.add_entry(tid, None, *manual(ids, {"Ana": 10}))
    edit = s.edit_entry(tid, first["entry_id"], *manual(ids, {"Ana": 20}), "edit-1")
    assert edit["round"] == first["round"] == 1
    assert s.totals(tid)[ids["Ana"]] == 20
    assert [e.state for e in s.entries(tid)] == ["superseded", "live"]
    with pytest.raises(Conflict) as refused:
        s.edit_entry(tid, first["entry_id"], *manual(ids, {"Ana": 30}))
    assert refused.value.message == (
        "Round 1 was changed on another phone meanwhile; nothing was saved. "
        "Check the history and try again."
    )
    # a retry of the edit is known whichever entry operation a view checks with
    assert s.submission("edit-1", s.add_entry, tid) == edit
    assert s.submission("edit-1", s.edit_entry, tid) == edit
    assert s.edit_entry(tid, first["entry_id"], *manual(ids, {"Ana": 20}), "edit-1") == edit


def test_add_entry_with_supersedes_is_still_an_edit(s):
    tid, ids = make_table(s)
    first = s.add_entry(tid, 1, *manual(ids, {"Ana": 10}))
    s.add_entry(tid, 1, *manual(ids, {"Ana": 4}), supersedes=first["entry_id"])
    assert s.totals(tid)[ids["Ana"]] == 4 and len(s.entries(tid)) == 2


def test_close_draft_with_entry_ends_the_draft_in_the_same_write(s):
    tid, ids = make_table(s)
    version = s.save_draft(tid, "deal", {"typed": 1})
    with pytest.raises(store.DraftChanged):
        s.close_draft_with_entry(
            tid, "deal", 1, *manual(ids, {"Ana": 3}), based_on_draft=("deal", version + 1)
        )
    assert s.draft(tid, "deal") == ({"typed": 1}, version) and s.entries(tid) == []
    s.close_draft_with_entry(
        tid, "deal", 1, *manual(ids, {"Ana": 3}), based_on_draft=("deal", version)
    )
    assert s.draft(tid, "deal") == (None, 0)
    assert s.entry_taps(s.entries(tid)[0].id) is None  # unlike close_draft_into_entry
    with pytest.raises(Conflict):  # the round has its entry: a second phone's is refused
        s.close_draft_with_entry(tid, "deal", 1, *manual(ids, {"Ana": 3}), exclusive_round=True)


# ---------------------------------------------------------------- a table's language


def test_a_table_keeps_its_language_and_a_rematch_takes_it_on(s):
    tid, _ids = make_table(s, language="sr-Cyrl")
    assert s.table(tid).language == "sr-Cyrl"
    assert s.table_by_key(s.table(tid).scorer_key)[0].language == "sr-Cyrl"
    again = s.rematch(tid)
    assert s.table(again["table_id"]).language == "sr-Cyrl"
    assert make_table(s)[0] and s.list_tables()[0].language == "en"


def test_set_language_is_a_change_every_poll_sees_and_applied_once(s):
    tid, _ids = make_table(s)
    before = s.version(tid)
    assert s.set_language(tid, "lt", "lang-1") == {"language": "lt"}
    assert s.table(tid).language == "lt" and s.version(tid) == before + 1
    s.set_language(tid, "sk", "lang-2")
    # the first change sent again is answered as it was, and undoes nothing
    assert s.set_language(tid, "lt", "lang-1") == {"language": "lt"}
    assert s.table(tid).language == "sk" and s.version(tid) == before + 2


@pytest.mark.parametrize("language", ["de", "EN", "", None, 7, "sr"])
def test_a_language_scorekeeper_does_not_speak_is_refused_with_nothing_changed(s, language):
    tid, _ids = make_table(s)
    version = s.version(tid)
    with pytest.raises(StoreError) as refused:
        s.set_language(tid, language)
    assert "is not a language of Scorekeeper (en, sr-Latn, sr-Cyrl, pl, lt, sk)" in str(
        refused.value
    )
    assert s.table(tid).language == "en" and s.version(tid) == version
    with pytest.raises(StoreError):
        s.create_table("cowboy", "x", ["A", "B", "C"], {}, language=language)
    assert len(s.list_tables()) == 1


def test_set_language_of_no_table_is_not_found(s):
    with pytest.raises(NotFound):
        s.set_language(12345, "pl")


def test_the_language_list_is_the_messages_one():
    assert messages.LANGUAGES == ("en", "sr-Latn", "sr-Cyrl", "pl", "lt", "sk")
    assert store.LANGUAGES is messages.LANGUAGES


def test_a_database_of_schema_5_gets_its_tables_speaking_english_with_nothing_lost(tmp_path):
    db = connect(tmp_path / "v5.sqlite")
    migrate(db, [m for m in MIGRATIONS if m.version <= 5])
    assert "language" not in db["tables"].columns_dict
    old = Store(db)
    tid = old.create_table("kvanta", "Old", ["Ana", "Bojan"], {"first_dealer": 1})["table_id"]
    old_entry(db, tid, 1, {old.players(tid)[0].id: 5})
    names = ("tables", "players", "entries", "submissions")
    points = db.execute("SELECT entry_id, player_id, points FROM entry_points").fetchall()
    columns = {n: ", ".join(c[1] for c in db.execute(f"PRAGMA table_info({n})")) for n in names}
    dump = {n: db.execute(f"SELECT {columns[n]} FROM {n} ORDER BY rowid").fetchall() for n in names}

    assert migrate(db) == [m.version for m in MIGRATIONS if m.version > 5]
    assert schema_version(db) == MIGRATIONS[-1].version
    for n in names:
        assert db.execute(f"SELECT {columns[n]} FROM {n} ORDER BY rowid").fetchall() == dump[n], n
    # the entry's points, now in its row (migration 8)
    assert [(e.id, *p) for e in old.entries(tid) for p in e.points.items()] == points
    assert old.table(tid).language == "en"
    assert db.execute("PRAGMA table_info(tables)").fetchall()[-1][1:5] == (
        "language",
        "TEXT",
        1,
        "'en'",
    )
    old.set_language(tid, "pl")
    assert old.table(tid).language == "pl"


def test_export_carries_the_language_and_import_brings_it_back(s, tmp_path):
    tid, ids = make_table(s, language="sr-Latn")
    s.add_entry(tid, 1, *manual(ids, {"Ana": 7}))
    data = s.export_table(tid)
    assert data["table"]["language"] == "sr-Latn"
    other = Store.open(tmp_path / "other.sqlite")
    try:
        new_id = other.import_table(json.loads(json.dumps(data)))
        assert other.table(new_id).language == "sr-Latn"
        assert other.export_table(new_id)["table"]["language"] == "sr-Latn"
    finally:
        other.close()


def test_an_export_made_before_languages_imports_speaking_english(s, tmp_path):
    tid, _ids = make_table(s, language="pl")
    data = s.export_table(tid)
    del data["table"]["language"]
    other = Store.open(tmp_path / "other.sqlite")
    try:
        assert other.table(other.import_table(data)).language == "en"
    finally:
        other.close()


@pytest.mark.parametrize("language", ["de", None, 1, "sr_Latn"])
def test_an_export_in_a_language_scorekeeper_does_not_speak_is_refused_whole(s, tmp_path, language):
    tid, _ids = make_table(s)
    data = copy.deepcopy(s.export_table(tid))
    data["table"]["language"] = language
    other = Store.open(tmp_path / "other.sqlite")
    try:
        with pytest.raises(StoreError) as refused:
            other.import_table(data)
        assert refused.value.message.startswith(
            "This export cannot be imported (table.language): table.language must be one of"
        )
        assert other.list_tables() == []
    finally:
        other.close()


# ---------------------------------------------------------------- sentences as msgids


class Shouting:
    """A catalogue that translates every sentence to capitals (its variables kept)."""

    def gettext(self, msgid):
        return msgid.upper().replace("%(ROUND)S", "%(round)s").replace("%(NAME)S", "%(name)s")

    def ngettext(self, singular, plural, num):
        return self.gettext(singular if num == 1 else plural)


@pytest.fixture
def shouting():
    before = messages._current
    messages.use(Shouting)
    yield
    messages.use(before)


def test_a_refusal_is_a_msgid_with_named_variables_in_english_where_none_is_installed(s):
    tid, ids = make_table(s)
    entry = s.add_entry(tid, 3, *manual(ids, {"Ana": 1}))
    s.void_entry(tid, entry["entry_id"])
    with pytest.raises(Conflict) as refused:
        s.void_entry(tid, entry["entry_id"])
    assert refused.value.msgid == "Round %(round)s was already undone or changed on another phone."
    assert refused.value.message == "Round 3 was already undone or changed on another phone."
    assert str(refused.value) == refused.value.message


def test_an_entry_past_the_next_round_is_refused_where_rounds_must_follow_on(s):
    """``no_round_gap``: decided inside the write, so a round undone by another phone
    between the pad's read and its write still leaves no gap."""
    tid, ids = make_table(s)
    s.add_entry(tid, 1, *manual(ids, {"Ana": 1}))
    s.add_entry(tid, 5, *manual(ids, {"Ana": 1}))  # a round of its own choosing: as before
    with pytest.raises(store.RoundAhead) as refused:
        s.add_entry(tid, 7, *manual(ids, {"Bojan": 2}), no_round_gap=True)
    assert refused.value.english == (
        "Nothing was saved: round 7 is ahead of this table. Enter round 6 or an earlier one."
    )
    assert [e.round for e in s.entries(tid)] == [1, 5]
    assert s.add_entry(tid, 6, *manual(ids, {"Bojan": 2}), no_round_gap=True)["round"] == 6


def test_a_refusal_is_read_in_the_catalogue_installed_where_it_is_shown(s, shouting):
    tid, ids = make_table(s)
    with pytest.raises(StoreError) as refused:
        s.rename_player(tid, ids["Ana"], "bojan")
    assert refused.value.message == "“bojan” IS ALREADY PLAYING AT THIS TABLE."
    assert refused.value.english == "“bojan” is already playing at this table."
    with pytest.raises(NotFound) as missing:
        s.table(999)
    assert missing.value.message == "THERE IS NO SUCH TABLE."


def test_the_machine_s_failures_are_msgids_too(shouting):
    full = sqlite3.OperationalError("database or disk is full")
    full.sqlite_errorcode = sqlite3.SQLITE_FULL
    assert store.unavailable(full).startswith("THE DISK OF THE COMPUTER RUNNING SCOREKEEPER")
    assert store.unavailable(ValueError("no")) is None


# ---------------------------------------------------------------- the web layer's store


def test_get_store_inside_a_write_leaves_the_write_open(app):
    """Code a write runs may ask the web layer for the store (a screen's callback): it
    gets the connection with the write still open, and the write is kept whole."""
    from scorekeeper.web.db import get_store

    with app.test_request_context():
        s = get_store()
        tid = s.create_table("cowboy", "T", ["Ana", "Bojan", "Ceca"], {})["table_id"]
        ana = s.players(tid)[0].id

        def body(outcome):
            s.db.execute("UPDATE players SET name = 'Ana Maria' WHERE id = ?", [ana])
            assert get_store() is s and s.db.conn.in_transaction
            outcome.update(done=True)

        assert s.once(tid, "inside-1", "rename_player", body) == {"done": True}
        assert s.players(tid)[0].name == "Ana Maria"
        assert s.submission("inside-1", s.rename_player, tid) == {"done": True}


def test_get_store_still_ends_a_read_left_open(app):
    from scorekeeper.web.db import get_store

    with app.test_request_context():
        s = get_store()
        s.db.conn.execute("BEGIN")
        assert get_store() is s and not s.db.conn.in_transaction


def test_history_csv_is_the_store_s(s):
    tid, ids = make_table(s)
    s.add_entry(tid, 1, *manual(ids, {"Ana": 5, "Bojan": -2}))
    lines = store.history_csv(s, s.table(tid)).splitlines()
    assert lines[0] == "round,kind,status,created,Ana,Bojan,Ceca"
    assert lines[-1] == "total,,,,5,-2,0"


def test_a_refusal_reads_in_the_catalogue_of_the_language_spoken(s):
    """The real catalogues have the store's sentences: Polish where Polish is spoken."""
    from scorekeeper import i18n

    tid, ids = make_table(s)
    entry = s.add_entry(tid, 3, *manual(ids, {"Ana": 1}))
    s.void_entry(tid, entry["entry_id"])
    before = messages._current
    messages.use(i18n.translations)
    token = i18n.speak("pl")
    try:
        with pytest.raises(Conflict) as refused:
            s.void_entry(tid, entry["entry_id"])
        assert refused.value.message == (
            "Runda 3 została już cofnięta albo zmieniona na innym telefonie."
        )
        assert str(refused.value) == "Round 3 was already undone or changed on another phone."
    finally:
        i18n.stop_speaking(token)
        messages.use(before)


def test_a_table_page_shows_the_store_s_refusal_in_the_table_s_language(client, store):
    from conftest import start_table

    url, page = start_table(client, players=("Ana", "Bojan", "Ceca"), language="sk")
    (table,) = store.list_tables()
    assert table.language == "sk"
    ana, bojan = store.players(table.id)[:2]
    answer = client.post(
        f"{url}/players/{ana.id}/name", data={"csrf_token": page.csrf, "name": bojan.name}
    )
    assert answer.status_code == 422
    assert "„Bojan“ už hrá za týmto stolom." in answer.get_data(as_text=True)
    assert store.players(table.id)[0].name == "Ana"


def test_a_name_a_spreadsheet_would_run_as_a_formula_is_exported_as_text(s):
    """A player's name is text the table chose: in the CSV a spreadsheet opens, a name
    beginning as a formula does (=, +, -, @, a tab or a return) is written after an
    apostrophe, which spreadsheets read as "text", so opening the file runs nothing.
    Points stay numbers, negative ones included."""
    names = ['=HYPERLINK("http://x","a")', "+1+1", "-Ana", "@SUM(A1)", "Bo"]
    out = s.create_table("cowboy", "Friday", names, {"first_dealer": 0})
    tid = out["table_id"]
    ids = {p.name: p.id for p in s.players(tid)}
    s.add_entry(tid, 1, *manual(ids, {names[0]: 5, "Bo": -2}))
    rows = list(csv.reader(io.StringIO(store.history_csv(s, s.table(tid)))))
    assert rows[0][4:] == ["'" + name for name in names[:4]] + ["Bo"]
    assert rows[1][4:] == ["5", "0", "0", "0", "-2"] and rows[-1][4:] == rows[1][4:]


def test_an_entry_or_a_roll_carries_its_submission_and_a_retry_is_answered_from_it(s):
    """An entry added and a roll made record no submissions row: their row holds the
    id, and a retry gets the first answer from it; the id is refused for another write
    or on another table."""
    tid = s.create_table("kvanta", "Night", ["Ana", "Bojan"], {"first_dealer": 0})["table_id"]
    other = s.create_table("kvanta", "Day", ["Ana", "Bojan"], {"first_dealer": 0})["table_id"]
    ana = s.players(tid)[0].id
    added = s.add_entry(tid, None, "manual-points", {}, {}, {ana: 4}, submission_id="entry-1")
    rolled = s.add_roll(tid, 1, "kvanta-target", [4, 5, 5], {"target": 14}, submission_id="roll-1")
    assert s.db.execute("SELECT COUNT(*) FROM submissions").fetchone()[0] == 0
    version = s.version(tid)
    assert s.add_entry(tid, None, "manual-points", {}, {}, {ana: 9}, submission_id="entry-1") == (
        added
    )
    again = s.add_roll(tid, 1, "kvanta-target", [1, 1, 1], {"target": 3}, submission_id="roll-1")
    assert (
        again
        == rolled
        == {
            "roll_id": rolled["roll_id"],
            "dice": [4, 5, 5],
            "result": {"target": 14},
            "physical": False,
        }
    )
    assert s.version(tid) == version and len(s.entries(tid)) == 1 and len(s.rolls(tid)) == 1
    assert s.submission("entry-1", s.add_entry, tid) == added == {"entry_id": 1, "round": 1}
    for sid, write in [("entry-1", s.add_roll), ("roll-1", s.add_entry)]:
        with pytest.raises(store.ReusedSubmission):
            s.submission(sid, write, tid)
    with pytest.raises(store.ReusedSubmission):
        s.add_entry(other, None, "manual-points", {}, {}, {}, submission_id="entry-1")
