"""The one screen mechanism (scorekeeper/web/screens.py) and the store's tap-log
operations under it: a replayed tap id applied once inside the write lock, undo and
redo that name their tap, a deal closed into one entry with its log, Edit reopening it,
the refusal type, a tap's statements, and the upgrade of an existing database."""

from __future__ import annotations

import json
import re

import pytest
from conftest import old_entry, statements_of

from scorekeeper import store as store_module
from scorekeeper.errors import RuleError
from scorekeeper.store import Conflict, DraftChanged, Store, connect, migrate
from scorekeeper.web.screens import Refusal

DRAFT = "szaman-deal"
CONTEXT = {"players": ["Ola", "Piotr"], "round": 1, "deal_no": 1, "mode": "full"}


@pytest.fixture
def s(tmp_path):
    s = Store.open(tmp_path / "db.sqlite")
    yield s
    s.close()


@pytest.fixture
def table_id(s):
    s.create_table("szaman", "Night", ["Ola", "Piotr"], {"deals": 6})
    return s.list_tables()[0].id


def begin(_old):
    return {"taps": [], "undone": [], "context": dict(CONTEXT)}


def accept(_data):
    return None


def tap(tap_id, action="winner", **args):
    return {"id": tap_id, "action": action, **({"seat": 0} if not args else args)}


def test_a_replayed_tap_id_changes_nothing_and_answers_the_log(s, table_id):
    first = s.append_tap(table_id, DRAFT, tap("a"), accept, begin)
    assert first.changed and first.version == 1 and first.data["taps"] == [tap("a")]
    table_version = s.version(table_id)
    again = s.append_tap(table_id, DRAFT, tap("a", seat=1), accept, begin)
    assert not again.changed and again.data == first.data and again.version == 1
    assert s.version(table_id) == table_version  # nothing written, not even the version


def test_a_refused_tap_stores_nothing(s, table_id):
    s.append_tap(table_id, DRAFT, tap("a"), accept, begin)
    before = s.tap_log(table_id, DRAFT)

    def refuse(_data):
        raise RuleError("No.", ".seat")

    with pytest.raises(RuleError):
        s.append_tap(table_id, DRAFT, tap("b"), refuse, begin)
    assert s.tap_log(table_id, DRAFT) == before


def test_undo_and_redo_name_their_tap_and_a_retry_changes_nothing(s, table_id):
    for tap_id in "abc":
        s.append_tap(table_id, DRAFT, tap(tap_id), accept, begin)
    s.undo_tap(table_id, DRAFT, "c")
    retried = s.undo_tap(table_id, DRAFT, "c")  # the same undo again: still one undone
    assert not retried.changed and [t["id"] for t in retried.data["taps"]] == ["a", "b"]
    with pytest.raises(DraftChanged):  # "a" is not the last tap: nothing undone
        s.undo_tap(table_id, DRAFT, "a")
    s.redo_tap(table_id, DRAFT, "c")
    assert not s.redo_tap(table_id, DRAFT, "c").changed
    assert [t["id"] for t in s.tap_log(table_id, DRAFT).data["taps"]] == ["a", "b", "c"]
    # a new tap after an undo ends what could be redone; the undone one stays spent
    s.undo_tap(table_id, DRAFT, "c")
    s.append_tap(table_id, DRAFT, tap("d"), accept, begin)
    with pytest.raises(DraftChanged):
        s.redo_tap(table_id, DRAFT, "c")
    assert not s.append_tap(table_id, DRAFT, tap("c"), accept, begin).changed
    with pytest.raises(Conflict):
        s.undo_tap(table_id, "no-such-draft", "x")


def close(s, table_id, version, submission_id="close-1"):
    request = {"players": ["Ola", "Piotr"], "points": {"Ola": 3}}
    return s.close_draft_into_entry(
        table_id,
        DRAFT,
        "manual-points",
        request,
        {"totals": {"Ola": 3}},
        {s.players(table_id)[0].id: 3},
        draft_version=version,
        submission_id=submission_id,
    )


def test_a_deal_closes_into_one_entry_with_its_log_once(s, table_id):
    s.append_tap(table_id, DRAFT, tap("a"), accept, begin)
    log = s.append_tap(table_id, DRAFT, tap("b"), accept, begin)
    with pytest.raises(DraftChanged):  # made from the draft before "b"
        close(s, table_id, log.version - 1, "stale")
    outcome = close(s, table_id, log.version)
    assert close(s, table_id, log.version) == outcome  # the same form again
    (entry,) = s.entries(table_id)
    assert entry.round == 1 and s.entry_taps(entry.id) == log.data["taps"]
    assert s.tap_log(table_id, DRAFT).data is None  # closed in the same transaction


def test_a_deal_is_saved_in_one_row_that_closes_its_draft_and_carries_its_submission(s, table_id):
    """Saving writes the entries alone (migration 7): each carries the draft it closes
    and the write that closed it, the first its log and submission id. The draft row
    stays, closed, and opens again at its next tap; a retried save is answered from the
    entry, and its id is refused for any other change."""
    s.append_tap(table_id, DRAFT, tap("a"), accept, begin)
    log = s.append_tap(table_id, DRAFT, tap("b"), accept, begin)
    ran: list[str] = []
    s.db.conn.set_trace_callback(ran.append)
    try:
        outcome = s.close_draft_into_entry(
            table_id,
            DRAFT,
            "manual-points",
            {"players": ["Ola", "Piotr"]},
            {},
            {s.players(table_id)[0].id: 3},
            draft_version=log.version,
            submission_id="close-1",
            also=[("manual-points", {"players": ["Ola", "Piotr"]}, {}, {})],
        )
    finally:
        s.db.conn.set_trace_callback(None)
    writes = [sql.split(" (")[0] for sql in ran if sql.split()[0] in ("INSERT", "UPDATE", "DELETE")]
    # no entry_taps row, no points row, no draft deleted, no submission row: the entries
    # (each with its points) and the version
    assert writes[:2] == ["INSERT INTO entries", "INSERT INTO entries"]
    assert len(writes) == 3 and writes[2].startswith("UPDATE tables SET version")
    first, more = s.entries(table_id)
    assert outcome == {"entry_id": first.id, "round": 1, "supersedes": None, "also": [more.id]}
    assert s.entry_taps(first.id) == log.data["taps"] and s.entry_taps(more.id) is None
    assert s.tap_log(table_id, DRAFT).data is None and s.draft(table_id, DRAFT) == (None, 0)
    assert s.db.execute("SELECT COUNT(*) FROM drafts").fetchone()[0] == 1  # kept, closed
    assert s.db.execute("SELECT COUNT(*) FROM submissions WHERE id = 'close-1'").fetchone() == (0,)
    # a retry: the same outcome, nothing written
    version = s.version(table_id)
    again = s.close_draft_into_entry(
        table_id, DRAFT, "manual-points", {}, {}, {}, draft_version=log.version,
        submission_id="close-1",
    )  # fmt: skip
    assert again == outcome and s.version(table_id) == version
    assert s.submission("close-1", s.close_draft_into_entry, table_id) == outcome
    with pytest.raises(store_module.ReusedSubmission):
        s.submission("close-1", s.add_entry, table_id)
    with pytest.raises(store_module.ReusedSubmission):
        s.add_entry(table_id, None, "manual-points", {}, {}, {}, submission_id="close-1")
    # the next tap begins the next deal on the same row, counted from 1 again
    reopened = s.append_tap(table_id, DRAFT, tap("c"), accept, begin)
    assert reopened.version == 1 and [t["id"] for t in reopened.data["taps"]] == ["c"]
    assert s.draft(table_id, DRAFT)[1] == 1
    second = close(s, table_id, 1, "close-2")
    assert second["round"] == 2 and s.tap_log(table_id, DRAFT).data is None


def test_a_late_retry_of_a_tap_of_a_saved_deal_is_not_a_tap_of_the_next(s, table_id):
    """A tap whose answer was lost, sent again once another phone saved its deal: it is
    the saved deal's, so it begins no next deal, and stays spent in the next one."""
    s.append_tap(table_id, DRAFT, tap("a"), accept, begin)
    s.append_tap(table_id, DRAFT, tap("b"), accept, begin)
    close(s, table_id, 2)
    version = s.version(table_id)
    retried = s.append_tap(table_id, DRAFT, tap("b"), accept, begin)
    assert not retried.changed and retried.data is None and s.version(table_id) == version
    s.append_tap(table_id, DRAFT, tap("c"), accept, begin)  # the next deal begins
    assert not s.append_tap(table_id, DRAFT, tap("a"), accept, begin).changed
    assert [t["id"] for t in s.tap_log(table_id, DRAFT).data["taps"]] == ["c"]


def test_a_draft_saved_whatever_it_was_over_a_closed_one_counts_from_one(s, table_id):
    s.append_tap(table_id, DRAFT, tap("a"), accept, begin)
    s.append_tap(table_id, DRAFT, tap("b"), accept, begin)
    close(s, table_id, 2)
    assert s.save_draft(table_id, DRAFT, {"taps": [], "undone": [], "context": CONTEXT}) == 1
    assert s.draft(table_id, DRAFT) == ({"taps": [], "undone": [], "context": CONTEXT}, 1)


def test_edit_reopens_an_entry_and_its_save_supersedes_it(s, table_id):
    s.append_tap(table_id, DRAFT, tap("a"), accept, begin)
    old = close(s, table_id, 1)["entry_id"]
    s.append_tap(table_id, DRAFT, tap("n"), accept, begin)
    with pytest.raises(Conflict):  # another deal is being entered
        s.reopen_entry(table_id, DRAFT, old, "manual-points", list, {})
    s.undo_tap(table_id, DRAFT, "n")
    log = s.reopen_entry(table_id, DRAFT, old, "manual-points", list, {"players": ["Ola"]})
    assert log.data["taps"] == [tap("a")] and log.data["context"]["supersedes"] == old
    assert not s.reopen_entry(table_id, DRAFT, old, "manual-points", list, {}).changed
    new = close(s, table_id, log.version, "close-2")
    assert new["supersedes"] == old and new["round"] == 1
    assert [e.state for e in s.entries(table_id)] == ["superseded", "live"]
    s.void_entry(table_id, new["entry_id"])  # undo of the edit: the old one counts again
    assert [e.state for e in s.entries(table_id)] == ["live", "voided"]
    # an entry saved without a log is rebuilt by the screen's ``rebuild``
    s.db.execute("UPDATE entries SET taps = NULL")
    s.db.conn.commit()
    rebuilt = s.reopen_entry(table_id, DRAFT, old, "manual-points", lambda e: [tap(f"r{e.id}")], {})
    assert rebuilt.data["taps"] == [tap(f"r{old}")]


def test_the_refusal_type_carries_message_field_and_status():
    refused = Refusal.of(RuleError("It is Ola's turn.", ".seat"))
    assert (refused.message, refused.field, refused.status) == ("It is Ola's turn.", ".seat", 422)
    stale = Refusal.of(DraftChanged("Another phone changed this deal."))
    assert stale.status == 409 and stale.notice
    with pytest.raises(ValueError):
        Refusal.of(ValueError("not a refusal"))


def old_database(tmp_path, version: int):
    """A database file of schema ``version``, with a Szaman table: (db, store, table)."""
    db = connect(tmp_path / f"v{version}.sqlite")
    migrate(db, [m for m in store_module.MIGRATIONS if m.version <= version])
    old = Store(db)
    old.create_table("szaman", "Night", ["Ola", "Piotr"], {"deals": 6})
    return db, old, old.list_tables()[0]


def test_a_database_of_schema_4_upgrades_with_nothing_lost(tmp_path):
    """Migration 5 adds the entries' tap logs; an old-shape draft (a Szaman deal from
    before) stays as it was, read by its screen."""
    db, old, table = old_database(tmp_path, 4)
    old_draft = {"mode": "full", "taps": [{"op": "lead", "seat": "0"}]}
    db.execute(  # as that release wrote a draft (today's carry more columns)
        "INSERT INTO drafts (table_id, name, data, version, updated) VALUES (?, ?, ?, 1, ?)",
        [table.id, DRAFT, json.dumps(old_draft), "2026-01-01T00:00:00"],
    )
    old_entry(db, table.id, 1, request={"players": ["Ola", "Piotr"]})
    names = ("tables", "players", "entries", "drafts")
    # the columns of schema 4: later migrations may add columns, never change these
    columns = {n: ", ".join(c[1] for c in db.execute(f"PRAGMA table_info({n})")) for n in names}
    dump = [db.execute(f"SELECT {columns[n]} FROM {n} ORDER BY rowid").fetchall() for n in names]
    assert migrate(db) == [m.version for m in store_module.MIGRATIONS if m.version > 4]
    assert [
        db.execute(f"SELECT {columns[n]} FROM {n} ORDER BY rowid").fetchall() for n in names
    ] == dump
    assert db.execute("SELECT COUNT(*) FROM entries WHERE taps IS NOT NULL").fetchone()[0] == 0
    assert json.loads(db.execute("SELECT data FROM drafts").fetchone()[0]) == old_draft
    old.close()


def test_a_database_of_schema_6_keeps_its_saved_logs_and_replays_in_their_entries(tmp_path):
    """Migration 7 moves each saved log into its entry (with the draft it came from):
    Edit and Undo find it there; the saves recorded before are still answered from
    their submissions; a draft being entered stays open."""
    db, old, table = old_database(tmp_path, 6)
    saved = {"entry_id": old_entry(db, table.id, 1, request={"players": ["Ola", "Piotr"]})}
    log = {"taps": [tap("a")], "context": CONTEXT, "also": []}
    db.execute(  # as that release kept a saved deal's log, and its save's submission
        "INSERT INTO entry_taps (entry_id, draft, data) VALUES (?, ?, ?)",
        [saved["entry_id"], DRAFT, json.dumps(log)],
    )
    outcome = {"entry_id": saved["entry_id"], "round": 1, "supersedes": None, "also": []}
    db.execute(
        "INSERT INTO submissions (id, table_id, created, outcome, action, scope)"
        " VALUES ('old-save', ?, 'then', ?, 'close_draft_into_entry', ?)",
        [table.id, json.dumps(outcome), table.id],
    )
    db.execute(
        "INSERT INTO drafts (table_id, name, data, version, updated) VALUES (?, ?, ?, 3, 'then')",
        [table.id, "other-deal", json.dumps({"taps": [tap("x")], "undone": [], "context": {}})],
    )
    db.conn.commit()
    assert migrate(db) == [m.version for m in store_module.MIGRATIONS if m.version > 6]
    assert not db["entry_taps"].exists()
    s = Store(db)
    assert s.entry_taps(saved["entry_id"]) == [tap("a")]
    assert s.submission("old-save", s.close_draft_into_entry, table.id) == outcome
    assert s.tap_log(table.id, "other-deal").data["taps"] == [tap("x")]
    assert s.tap_log(table.id, "other-deal").version == 3
    s.void_entry(table.id, saved["entry_id"])  # undo: its log back on its screen
    assert s.tap_log(table.id, DRAFT).data["taps"] == [tap("a")]


def text_of(response) -> str:
    """An answer as it reads: its elements' text (a name is an element of its own)."""
    return re.sub(r"<[^>]+>", "", response.get_data(as_text=True))


def test_a_tap_finds_its_table_under_the_write_lock_with_its_draft(app, client, new_table):
    """The tap route finds its table inside its write, in the statement that reads the
    draft: the transaction, that read, the draft's write and the table's version (five
    statements). A retried tap changes nothing and makes no new version; an undo runs
    as a tap does."""
    url, page = new_table("szaman", ("Ola", "Piotr"))
    headers = {"HX-Request": "true", "X-CSRFToken": page.csrf}

    def send(tap_id, body, version):
        data = {"tap_id": tap_id, "tap": json.dumps(body), "v": str(version), "round": "1"}
        return client.post(url + "/szaman/tap", data=data, headers=headers)

    def stored():  # the table's version and its deal's taps, as another worker reads them
        other = Store.open(app.config["DATABASE"])
        try:
            table = other.table_by_key(url.rsplit("/", 1)[-1])[0]
            log = other.tap_log(table.id, DRAFT)
            return table.version, [t["id"] for t in log.data["taps"]]
        finally:
            other.close()

    assert send("a", {"action": "lead", "seat": 0}, 0).status_code == 200
    ran, response = statements_of(
        app, lambda: send("b", {"action": "card", "seat": 0, "card": "2C"}, 1)
    )
    assert response.status_code == 200 and "Piotr plays" in text_of(response)
    assert ran[0] == "BEGIN IMMEDIATE" and ran[-1] == "COMMIT", ran
    assert ran[1].startswith("SELECT tables.") and "FROM drafts" in ran[1], ran
    assert len(ran) == 5, ran
    before = stored()
    ran, response = statements_of(
        app, lambda: send("b", {"action": "card", "seat": 0, "card": "2C"}, 1)
    )
    assert response.status_code == 200 and "Piotr plays" in text_of(response)
    assert stored() == before  # the retry stored nothing, not even a new version
    assert not [sql for sql in ran if sql.startswith(("INSERT", "UPDATE", "DELETE"))], ran
    ran, response = statements_of(
        app, lambda: client.post(url + "/szaman/undo", data={"tap_id": "b"}, headers=headers)
    )
    assert response.status_code == 200 and stored() == (before[0] + 1, ["a"])
    assert ran[0] == "BEGIN IMMEDIATE" and len(ran) == 5, ran


def test_a_tap_on_the_watch_link_or_another_games_screen_stores_nothing(app, client, new_table):
    """Found inside the tap's write, a watch link is still refused (403) and a table of
    another game is not found (404): nothing stored, the write rolled back."""
    url, page = new_table("szaman", ("Ola", "Piotr"))
    headers = {"HX-Request": "true", "X-CSRFToken": page.csrf}
    key = url.rsplit("/", 1)[-1]
    s = Store.open(app.config["DATABASE"])
    try:
        table = s.table_by_key(key)[0]
        tap = {"action": "lead", "seat": 0}
        data = {"tap_id": "a", "tap": json.dumps(tap), "v": "0", "round": "1"}
        watch = url.replace(key, table.watch_key)
        assert client.post(watch + "/szaman/tap", data=data, headers=headers).status_code == 403
        assert client.post(url + "/vezimas/tap", data=data, headers=headers).status_code == 404
        gone = url[:-3] + "xyz"
        assert client.post(gone + "/szaman/tap", data=data, headers=headers).status_code == 404
        assert s.tap_log(table.id, DRAFT).data is None
        assert s.table_by_key(key)[0].version == table.version
        # and the scorer link's same tap is stored
        assert client.post(url + "/szaman/tap", data=data, headers=headers).status_code == 200
        assert s.tap_log(table.id, DRAFT).data["taps"][0]["id"] == "a"
    finally:
        s.close()


def test_a_round_of_several_entries_closes_reopens_and_is_superseded_whole(s, table_id):
    """A Kvanta round scores several entries: the log closes into all of them in one
    round, Edit reopens it, and its save supersedes every one of them."""
    ola = s.players(table_id)[0].id
    s.append_tap(table_id, DRAFT, tap("a"), accept, begin)
    more = [("manual-points", {"players": ["Ola", "Piotr"], "points": {"Ola": 2}}, {}, {ola: 2})]
    outcome = s.close_draft_into_entry(
        table_id, DRAFT, "manual-points", {}, {}, {ola: 3}, draft_version=1, also=more
    )
    entries = s.entries(table_id)
    assert [(e.round, e.points) for e in entries] == [(1, {ola: 3}), (1, {ola: 2})]
    assert outcome["also"] == [entries[1].id]
    log = s.reopen_entry(table_id, DRAFT, outcome["entry_id"], "manual-points", list, {})
    assert log.data["context"]["supersedes_also"] == [entries[1].id]
    s.close_draft_into_entry(
        table_id, DRAFT, "manual-points", {}, {}, {ola: 4}, draft_version=log.version
    )
    assert [e.state for e in s.entries(table_id)] == ["superseded", "superseded", "live"]
    assert s.totals(table_id)[ola] == 4


def test_a_closing_with_its_own_result_is_stored_as_made_without_points(s, table_id):
    """A kind no engine scores (a Pegs correction or discard, the board as it stands)
    closes the draft into one entry as given: its request, its result, no points."""
    from types import SimpleNamespace

    from scorekeeper.deals import save_into_entry

    log = s.append_tap(table_id, DRAFT, tap("a"), accept, begin)
    table = s.table(table_id)
    deal = SimpleNamespace(draft=DRAFT, replaces=None, own_rounds=())
    board = {"seats": 4, "pegs": {"0": ["S"] * 5}, "discard": {"seat": 0, "card": "5S"}}
    closing = {"kind": "pegs-board", "request": board, "result": {"winner_team": None}}
    outcome = save_into_entry(s, table, deal, closing, log.version, "own-result")
    (entry,) = s.entries(table_id)
    assert entry.id == outcome["entry_id"] and entry.kind == "pegs-board"
    assert entry.request == board and entry.result == {"winner_team": None}
    assert entry.points == {}
    assert s.entry_taps(entry.id) == [tap("a")]
    assert s.tap_log(table_id, DRAFT).data is None  # closed in the same write


@pytest.mark.parametrize("game", ["szaman", "vezimas", "cowboy", "kvanta", "pegs"])
@pytest.mark.parametrize(
    "body",
    [{"action": []}, {"action": {"a": 1}}, {"action": 5}, {"action": None}, {"action": "x" * 60}],
)
def test_a_tap_whose_action_is_no_word_is_refused_on_every_screen(client, new_table, game, body):
    """A tap's action of another type (a list, an object, a number) is refused with the
    message, never a 500 (Vežimas read it to choose where to say it), and stores nothing."""
    names = ("Ana", "Bojan", "Ceca", "Dule")
    url, page = new_table(game, names)
    headers = {"HX-Request": "true", "X-CSRFToken": page.csrf}
    shown = re.search(r'data-deal-version="(\d+)"', page.html)
    version = shown.group(1) if shown else "0"
    data = {"tap_id": "odd", "tap": json.dumps(body), "v": str(version), "round": "1"}
    response = client.post(f"{url}/{game}/tap", data=data, headers=headers)
    assert response.status_code == 422, response.get_data(as_text=True)[-500:]
    said = response.get_data(as_text=True)
    assert "A tap needs an action." in said or "has no tap called" in said, said[-800:]
