"""A request's kept reads (``Store.begin_memo``): what one request read is served again
only while it is known to be current. Another connection's write is seen by the next
request, by any later read of the table's version in the same request, and by every
write, which checks under its lock; this connection's own write leaves nothing it
changed behind."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekeeper.games.standings import NON_DEAL_KINDS
from scorekeeper.messages import Text
from scorekeeper.store import Store, StoreError, TooMany, connect, migrate
from scorekeeper.web import tables


@pytest.fixture
def path(tmp_path):
    return tmp_path / "db.sqlite"


@pytest.fixture
def mine(path):
    st = Store.open(path)
    yield st
    st.close()


@pytest.fixture
def other(path, mine):
    """A second connection to the same file: another worker of the server."""
    st = Store.open(path)
    yield st
    st.close()


def start(s, names=("Ana", "Bojan", "Ceca")):
    out = s.create_table("cowboy", "Friday", list(names), {"first_dealer": 0})
    table = s.table(out["table_id"])
    return table, {p.name: p.id for p in s.players(table.id)}


def pad(s, table_id, ids, points, **kw):
    return s.add_entry(
        table_id,
        None,
        "manual-points",
        {"players": list(ids), "points": points},
        {"points": points},
        {ids[name]: pts for name, pts in points.items()},
        **kw,
    )


def test_another_connections_write_is_seen_by_the_next_request(mine, other):
    table, ids = start(mine)
    mine.begin_memo()
    mine.table_by_key(table.scorer_key)
    assert [p.name for p in mine.players(table.id)] == ["Ana", "Bojan", "Ceca"]
    assert mine.recent_entries(table.id) == []
    mine.end_memo()
    other.rename_player(table.id, ids["Ana"], "Ana Marija")
    pad(other, table.id, ids, {"Ana": 5})
    mine.begin_memo()  # the next request
    found, _access = mine.table_by_key(table.scorer_key)
    assert found.version == other.version(table.id)
    assert [p.name for p in mine.players(table.id)] == ["Ana Marija", "Bojan", "Ceca"]
    assert [e.points for e in mine.recent_entries(table.id)] == [{ids["Ana"]: 5}]
    assert mine.next_round(table.id) == 2


def test_a_changed_version_read_later_in_a_request_drops_what_it_kept(mine, other):
    table, ids = start(mine)
    mine.begin_memo()
    mine.table_by_key(table.scorer_key)
    assert mine.next_round(table.id) == 1
    assert mine.tap_log(table.id, "cowboy-deal").data is None
    pad(other, table.id, ids, {"Bojan": 3})
    other.save_draft(table.id, "cowboy-deal", {"taps": []})
    # within one request its reads stand together, as of the version it read ...
    assert mine.next_round(table.id) == 1
    assert mine.table(table.id).version == table.version
    # ... until it reads the version again, and finds it moved on
    assert mine.version(table.id) == other.version(table.id)
    assert mine.tap_log(table.id, "cowboy-deal").data == {"taps": []}
    assert mine.next_round(table.id) == 2
    assert mine.table(table.id).version == other.version(table.id)


def test_a_write_checks_under_its_lock_not_what_the_request_read_before(path, other):
    mine = Store.open(path)
    mine.max_entries = 2
    try:
        table, ids = start(mine)
        mine.begin_memo()
        mine.table_by_key(table.scorer_key)
        pad(mine, table.id, ids, {"Ana": 1}, submission_id="first-of-mine")
        assert mine.entry_count(table.id) == 1
        pad(other, table.id, ids, {"Ceca": 2})  # the table is full now
        with pytest.raises(TooMany):
            pad(mine, table.id, ids, {"Ana": 1}, submission_id="second-of-mine")
        assert other.entry_count(table.id) == 2
    finally:
        mine.close()


def test_a_draft_changed_by_another_connection_is_not_overwritten(mine, other):
    table, _ids = start(mine)
    mine.begin_memo()
    mine.table_by_key(table.scorer_key)
    assert mine.tap_log(table.id, "cowboy-deal").version == 0
    other.save_draft(table.id, "cowboy-deal", {"taps": [{"id": "theirs"}]})

    def start_log(data):
        return {"taps": [], "undone": [], "context": {}, **(data or {})}

    log = mine.append_tap(table.id, "cowboy-deal", {"id": "mine"}, lambda data: None, start_log)
    assert log.version == 2  # added to theirs, read under the lock
    stored, version = other.draft(table.id, "cowboy-deal")
    assert version == 2 and [t["id"] for t in stored["taps"]] == ["theirs", "mine"]


def _closing_log(data):
    return {"taps": [], "undone": [], "context": {}, **(data or {})}


@pytest.mark.parametrize("changed", ["draft", "round"])
def test_a_closing_write_reads_the_draft_and_the_next_round_under_its_lock(mine, other, changed):
    """Closing a draft into an entry reads the draft and the table's next round with its
    submission check, in one statement under the lock: another worker's tap is seen
    (refused as changed), and so is another worker's entry (the next round after it)."""
    table, ids = start(mine)
    other.append_tap(table.id, "cowboy-deal", {"id": "t1"}, lambda data: None, _closing_log)
    mine.begin_memo()
    mine.table_by_key(table.scorer_key)
    log = mine.tap_log(table.id, "cowboy-deal")
    assert mine.next_round(table.id) == 1
    if changed == "draft":
        other.append_tap(table.id, "cowboy-deal", {"id": "t2"}, lambda data: None, _closing_log)
    else:
        pad(other, table.id, ids, {"Ana": 5})
    read: list[str] = []
    mine.db.conn.set_trace_callback(read.append)
    try:
        if changed == "draft":
            with pytest.raises(StoreError, match="Another phone changed this deal"):
                mine.close_draft_into_entry(
                    table.id, "cowboy-deal", "manual-points", {}, {}, {ids["Ana"]: 1},
                    draft_version=log.version, submission_id="close-1",
                )  # fmt: skip
            assert mine.entry_count(table.id) == 0
        else:
            outcome = mine.close_draft_into_entry(
                table.id, "cowboy-deal", "manual-points", {}, {}, {ids["Ana"]: 1},
                draft_version=log.version, submission_id="close-1",
            )  # fmt: skip
            assert outcome["round"] == 2 and other.draft(table.id, "cowboy-deal")[0] is None
    finally:
        mine.db.conn.set_trace_callback(None)
    inside = read[read.index("BEGIN IMMEDIATE") :]
    reads = [sql for sql in inside if sql.lstrip().startswith("SELECT")]
    draft_or_round = [sql for sql in reads if "drafts" in sql or "MAX(round)" in sql]
    assert len(draft_or_round) == 1 and "submissions" in draft_or_round[0], reads


def test_this_connections_write_leaves_nothing_it_changed_behind(mine):
    table, ids = start(mine)
    mine.begin_memo()
    mine.table_by_key(table.scorer_key)
    assert mine.recent_entries(table.id) == []
    assert mine.tally(table.id).totals == dict.fromkeys(ids.values(), 0)
    assert mine.rolls(table.id) == []
    out = pad(mine, table.id, ids, {"Ana": 4, "Ceca": -4}, submission_id="sid-1")
    assert [e.id for e in mine.recent_entries(table.id)] == [out["entry_id"]]
    assert mine.next_round(table.id) == 2
    assert mine.entry_count(table.id) == 1
    assert mine.tally(table.id).totals[ids["Ana"]] == 4
    assert mine.table(table.id).version == table.version + 1
    assert mine.submission("sid-1", mine.add_entry, table.id) == out
    mine.add_roll(table.id, 2, "kvanta-target", [4, 5], {"target": 9})
    assert [r["dice"] for r in mine.rolls(table.id)] == [[4, 5]]
    assert mine.last_roll_id(table.id) == mine.rolls(table.id)[0]["id"]
    mine.void_entry(table.id, out["entry_id"])
    assert not mine.recent_entries(table.id)[0].live
    assert mine.next_round(table.id) == 1
    assert mine.tally(table.id).totals[ids["Ana"]] == 0
    mine.rename_player(table.id, ids["Bojan"], "Boki")
    assert [p.name for p in mine.players(table.id)] == ["Ana", "Boki", "Ceca"]


def test_kept_reads_are_not_the_callers_to_change(mine):
    table, ids = start(mine)
    pad(mine, table.id, ids, {"Ana": 4})
    mine.save_draft(table.id, "cowboy-deal", {"taps": [], "context": {"round": 2}})
    mine.begin_memo()
    mine.table_by_key(table.scorer_key)
    mine.players(table.id).clear()
    mine.tap_log(table.id, "cowboy-deal").data["context"]["round"] = 9
    mine.rolls(table.id).append({"id": 1})
    assert len(mine.players(table.id)) == 3
    assert mine.tap_log(table.id, "cowboy-deal").data["context"] == {"round": 2}
    assert mine.rolls(table.id) == []


def test_outside_a_request_every_read_is_made(app, new_table):
    """A store handed out outside a request (a command, the poll's shortcut) keeps
    nothing, whatever a request on its thread kept."""
    url, _page = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    key = url.rstrip("/").rsplit("/", 1)[-1]
    with app.test_request_context():
        s = tables.get_store()
        table, _access = s.table_by_key(key)
        assert [p.name for p in s.players(table.id)] == ["Ana", "Bojan", "Ceca"]
    s = tables.store_for(app.config)
    other = Store.open(app.config["DATABASE"])
    try:
        ana = other.players(table.id)[0]
        other.rename_player(table.id, ana.id, "Ana Marija")
    finally:
        other.close()
    assert [p.name for p in s.players(table.id)] == ["Ana Marija", "Bojan", "Ceca"]


def test_a_tap_after_another_workers_write_answers_from_the_table_as_it_is(app, client, new_table):
    """Two requests of one thread, another worker's write between them: the second
    tap's answer shows it (nothing kept from the first request)."""
    url, _page = new_table("szaman", ("Ola", "Piotr", "Zosia", "Adam"))
    url = url.rstrip("/")
    key = url.rsplit("/", 1)[-1]
    app.config["WTF_CSRF_ENABLED"] = False

    def tap(tap_id, version, action):
        return client.post(
            f"{url}/szaman/tap",
            data={"tap_id": tap_id, "tap": json.dumps(action), "v": str(version), "round": "1"},
            headers={"HX-Request": "true"},
        )

    assert tap("t1", 0, {"action": "lead", "seat": 0}).status_code == 200
    other = Store.open(app.config["DATABASE"])
    try:
        table, _access = other.table_by_key(key)
        zosia = other.players(table.id)[2]
        other.rename_player(table.id, zosia.id, "Zofia", rename_in_draft=_rename)
    finally:
        other.close()
    answer = tap("t2", 1, {"action": "card", "seat": 0, "card": "2C"})
    assert answer.status_code == 200
    assert "Zofia" in answer.get_data(as_text=True)


def _rename(data: dict, old: str, new: str) -> dict:
    context = data["context"]
    context["players"] = [new if name == old else name for name in context["players"]]
    return data


def test_a_deal_begun_after_another_workers_entry_is_begun_from_the_table_as_it_is(
    app, client, new_table
):
    """The page made the new deal's context at one version; another worker saved a
    round meanwhile: the deal's first tap begins it from the table as it is then (its
    round moved on), and a tap sent for the round the page showed is refused."""
    url, _page = new_table("szaman", ("Ola", "Piotr", "Zosia", "Adam"))
    url = url.rstrip("/")
    key = url.rsplit("/", 1)[-1]
    app.config["WTF_CSRF_ENABLED"] = False
    assert client.get(url).status_code == 200  # the page: the deal not begun, round 1
    other = Store.open(app.config["DATABASE"])
    try:
        table, _access = other.table_by_key(key)
        ids = {p.name: p.id for p in other.players(table.id)}
        pad(other, table.id, ids, {"Ola": 3})
    finally:
        other.close()

    def lead(tap_id, round_number):
        return client.post(
            f"{url}/szaman/tap",
            data={
                "tap_id": tap_id,
                "tap": json.dumps({"action": "lead", "seat": 0}),
                "v": "0",
                "round": str(round_number),
            },
            headers={"HX-Request": "true"},
        )

    assert lead("t1", 1).status_code == 409
    assert lead("t2", 2).status_code == 200
    check = Store.open(app.config["DATABASE"])
    try:
        data, _version = check.draft(table.id, "szaman-deal")
    finally:
        check.close()
    assert data["context"]["round"] == 2
    assert [t["id"] for t in data["taps"]] == ["t2"]


@pytest.mark.parametrize("undone", [(), (3,), (2, 3), (1, 2, 3)])
def test_the_next_round_known_from_the_latest_entries_is_the_one_read(mine, other, undone):
    table, ids = start(mine)
    made = {n: pad(mine, table.id, ids, {"Ana": n})["entry_id"] for n in (1, 2, 3)}
    for n in sorted(undone, reverse=True):
        mine.void_entry(table.id, made[n])
    mine.begin_memo()
    mine.table_by_key(table.scorer_key)
    tally = mine.tally(table.id)
    mine.recent_entries(table.id, tally.kinds)
    assert mine.next_round(table.id) == other.next_round(table.id) == 4 - len(undone)


def test_what_a_write_read_of_its_own_changes_goes_when_it_is_rolled_back(mine):
    table, ids = start(mine)
    mine.begin_memo()
    mine.table_by_key(table.scorer_key)
    assert mine.recent_entries(table.id, ["manual-points"]) == []

    def body(outcome: dict) -> None:
        mine._write_entry(table.id, 1, "manual-points", {}, {}, {ids["Ana"]: 1})
        mine.tap_log(table.id, "cowboy-deal")  # the table's version, read inside the write
        assert len(mine.recent_entries(table.id, ["manual-points"])) == 1
        raise StoreError(Text("Refused after all."))

    with pytest.raises(StoreError):
        mine.once(table.id, "sid-refused", "add_entry", body)
    assert mine.recent_entries(table.id, ["manual-points"]) == []
    assert mine.entry_count(table.id) == 0


def test_rolls_read_by_one_request_serve_the_next_only_while_the_table_is_unchanged(mine, other):
    """Rolls are only ever added: what one request read of them is served to the next
    one (the same worker's) when it finds the table at the same version, not read again;
    once another worker rolled, the next request reads them, the new roll with them."""
    table, _ = start(mine)
    mine.begin_memo()
    mine.table_by_key(table.scorer_key)
    assert mine.rolls(table.id) == []
    read: list[str] = []
    mine.db.conn.set_trace_callback(read.append)
    try:
        mine.begin_memo()  # the next request, nothing changed meanwhile
        mine.table_by_key(table.scorer_key)
        assert mine.rolls(table.id) == []
        assert not [sql for sql in read if "FROM rolls" in sql]
        other.add_roll(table.id, 1, "kvanta-target", [4, 5, 5], {"target": 14})
        mine.begin_memo()
        mine.table_by_key(table.scorer_key)
        assert [r["dice"] for r in mine.rolls(table.id)] == [[4, 5, 5]]
        # a request that reads the table at another version first is never served them
        mine.begin_memo()
        other.add_roll(table.id, 1, "kvanta-target", [1, 1, 1], {"target": 3})
        mine.table_by_key(table.scorer_key)
        assert [r["dice"] for r in mine.rolls(table.id)] == [[4, 5, 5], [1, 1, 1]]
    finally:
        mine.db.conn.set_trace_callback(None)
    mine.end_memo()  # a command after a request: every read made, nothing carried
    other.add_roll(table.id, 2, "kvanta-target", [2, 2, 2], {"target": 6})
    assert len(mine.rolls(table.id)) == 3


def test_a_submission_read_serves_the_next_request_while_the_table_is_unchanged(mine, other):
    """A stored submission never changes: what one request found of it (stored or not)
    is served to the next at the same version, not read again; once the table changed,
    it is read anew."""
    table, ids = start(mine)
    pad(mine, table.id, ids, {"Ana": 5}, submission_id="pad-1")
    mine.begin_memo()
    mine.table_by_key(table.scorer_key)
    assert mine.submission("pad-1", mine.add_entry, table.id) is not None
    assert mine.submission("pad-2", mine.add_entry, table.id) is None
    read: list[str] = []
    mine.db.conn.set_trace_callback(read.append)
    try:
        mine.begin_memo()  # the next request, nothing changed meanwhile
        mine.table_by_key(table.scorer_key)
        assert mine.submission("pad-1", mine.add_entry, table.id)["round"] == 1
        assert mine.submission("pad-2", mine.add_entry, table.id) is None
        assert not [sql for sql in read if "FROM submissions" in sql], read
        pad(other, table.id, ids, {"Bojan": 5}, submission_id="pad-2")
        mine.begin_memo()
        mine.table_by_key(table.scorer_key)
        assert mine.submission("pad-2", mine.add_entry, table.id)["round"] == 2
    finally:
        mine.db.conn.set_trace_callback(None)


def test_an_entry_given_a_round_no_entry_has_counts_in_the_tally_unread(mine, other):
    """An entry given its round (a Kvanta step, a marriage) whose round has no live
    entry, as the next round read under the write's lock says, makes that round a deal
    in the tally kept across requests, with nothing read; one given a round another
    worker has since filled is counted by reading what changed."""
    table, ids = start(mine)
    pad(mine, table.id, ids, {"Ana": 5})  # round 1
    request = {"players": list(ids), "points": {"Bojan": 3}}

    def step(s, round_number, sid):
        def find():
            return s.table_by_key(table.scorer_key, draft="deal", submission_id=sid)[0].id

        with s.tap_write(find):
            s.add_entry(
                table.id, round_number, "manual-points", request, {"points": {"Bojan": 3}},
                {ids["Bojan"]: 3}, submission_id=sid,
            )  # fmt: skip

    mine.begin_memo()
    assert mine.tally(table.id, NON_DEAL_KINDS).deals == 1
    read: list[str] = []
    mine.db.conn.set_trace_callback(read.append)
    try:
        step(mine, 2, "step-2")
        tally = mine.tally(table.id, NON_DEAL_KINDS)
    finally:
        mine.db.conn.set_trace_callback(None)
    assert (tally.deals, tally.totals[ids["Bojan"]]) == (2, 3)
    assert [sql for sql in read if sql.startswith("SELECT")] == [read[1]], read  # the lookup
    mine.begin_memo()
    mine.tally(table.id, NON_DEAL_KINDS)
    pad(other, table.id, ids, {"Ceca": 1})  # round 3, by another worker
    mine.begin_memo()
    step(mine, 3, "step-3")  # round 3 is no new round now
    tally = mine.tally(table.id, NON_DEAL_KINDS)
    assert (tally.deals, tally.totals[ids["Bojan"]], tally.totals[ids["Ceca"]]) == (3, 6, 1)


def test_a_write_trusts_no_submission_read_before_its_lock(mine, other):
    """A request found an id unused on its table; before its write, another table
    stored it (this table's version unchanged). The write, its table found under its
    lock as a tap's is (the version it read trusted), reads the id again and refuses
    it, storing nothing, though everything else it checks is kept."""
    table, ids = start(mine)
    elsewhere, elsewhere_ids = start(other, ("Dara", "Ema"))
    mine.begin_memo()
    mine.table_by_key(table.scorer_key)
    assert mine.submission("same-id", mine.add_entry, table.id) is None
    mine.entry_count(table.id)
    pad(other, elsewhere.id, elsewhere_ids, {"Dara": 5}, submission_id="same-id")
    with pytest.raises(StoreError, match="already sent"):
        with mine.tap_write(lambda: mine.table_by_key(table.scorer_key)[0].id):
            pad(mine, table.id, ids, {"Ana": 5}, submission_id="same-id")
    mine.end_memo()
    assert mine.entry_count(table.id) == 0 and mine.table(table.id).version == table.version


def test_the_latest_history_serves_the_next_request_and_is_brought_up_to_date_by_a_save(
    mine, other, path
):
    """What a request read of the latest history is served to the same worker's next
    request while the table is at the same version; a save of this worker's brings it
    up to date from the rows it wrote; another worker's change is read."""
    table, ids = start(mine)
    pad(mine, table.id, ids, {"Ana": 5})
    kinds = ("manual-points",)
    mine.begin_memo()
    mine.table_by_key(table.scorer_key)
    first = mine._latest(table.id, kinds, 21)
    read: list[str] = []
    mine.db.conn.set_trace_callback(read.append)
    try:
        mine.begin_memo()  # the next request, nothing changed meanwhile
        mine.table_by_key(table.scorer_key)
        assert mine._latest(table.id, kinds, 21) == first
        pad(mine, table.id, ids, {"Bojan": 2})  # this worker's save
        after = mine._latest(table.id, kinds, 21)
        assert not [sql for sql in read if "FROM entries e" in sql], read
        mine.begin_memo()
        mine.table_by_key(table.scorer_key)
        assert mine._latest(table.id, kinds, 21) == after
        assert not [sql for sql in read if "FROM entries e" in sql], read
        other.void_entry(table.id, after["recent"][0].id)  # another worker's undo
        mine.begin_memo()
        mine.table_by_key(table.scorer_key)
        undone = mine._latest(table.id, kinds, 21)
        assert [sql for sql in read if "FROM entries e" in sql]
    finally:
        mine.db.conn.set_trace_callback(None)
    mine.end_memo()
    fresh = Store.open(path)
    assert undone == fresh._latest(table.id, kinds, 21) and undone["recent"][0].state == "voided"
    assert [e.points for e in after["recent"]] == [{ids["Bojan"]: 2}, {ids["Ana"]: 5}]
    fresh.close()


def test_a_roll_brings_up_to_date_what_its_request_read_of_the_rolls(mine, other, path):
    """A roll of this worker's: the rolls its request had read (all of them, the last
    few, the last id) are what a read finds after it, with nothing read again."""
    table, _ = start(mine)
    mine.add_roll(table.id, 1, "kvanta-target", [1, 2, 3], {"target": 6})
    mine.begin_memo()
    mine.table_by_key(table.scorer_key)
    reads = (lambda: mine.rolls(table.id), lambda: mine.rolls(table.id, latest=1))
    for read in reads:
        read()
    mine.last_roll_id(table.id)
    ran: list[str] = []
    mine.db.conn.set_trace_callback(ran.append)
    try:
        mine.add_roll(table.id, 1, "kvanta-target", [4, 5, 5], {"target": 14}, submission_id="r2")
        ran.clear()
        found = [read() for read in reads], mine.last_roll_id(table.id)
        assert not ran, ran
    finally:
        mine.db.conn.set_trace_callback(None)
    mine.end_memo()
    fresh = Store.open(path)
    assert found == (
        [fresh.rolls(table.id), fresh.rolls(table.id, latest=1)],
        fresh.last_roll_id(table.id),
    )
    assert [r["dice"] for r in found[0][0]] == [[1, 2, 3], [4, 5, 5]]
    fresh.close()


def test_a_draft_saved_whatever_it_was_is_written_without_reading_it_first(mine, other):
    """A game's own draft saved as it stands (no version expected) is one write that
    counts its version on, even past another worker's save; one saved from a version
    read is still refused when another worker saved it since."""
    table, _ids = start(mine)
    ran: list[str] = []
    mine.db.conn.set_trace_callback(ran.append)
    try:
        assert mine.save_draft(table.id, "game", {"burn": 3}) == 1
    finally:
        mine.db.conn.set_trace_callback(None)
    assert not [sql for sql in ran if sql.lstrip().upper().startswith("SELECT")], ran
    assert other.save_draft(table.id, "game", {"burn": 4}) == 2
    assert mine.save_draft(table.id, "game", {"burn": 5}) == 3
    assert mine.draft(table.id, "game") == ({"burn": 5}, 3)
    with pytest.raises(StoreError):
        other.save_draft(table.id, "game", {"burn": 6}, expected_version=2)
    assert other.draft(table.id, "game") == ({"burn": 5}, 3)


def test_a_logs_spent_tap_ids_keep_the_latest_few_hundred(mine):
    """Taps undone and no longer redoable stay spent, the latest ``SPENT_TAP_IDS`` of
    them, wherever a log drops its undone taps (a new tap; an Edit sent back to a step
    settled before): a long night's log does not grow without end."""
    from scorekeeper import store
    from scorekeeper.deals import kvanta_edit

    many = [f"old-{n}" for n in range(store.SPENT_TAP_IDS)]
    data = {"taps": [], "undone": [{"id": "u1"}, {"id": "u2"}], "spent": many}
    assert store.spent_taps(data) == [*many[2:], "u1", "u2"]
    table = mine.create_table("kvanta", "Friday", ["Ana", "Bojan"], {})["table_id"]
    taps = [{"id": "s1", "action": "settle"}, {"id": "t2", "action": "no-hand"}]
    edit = {**data, "taps": taps, "context": {"supersedes": 1, "round": 1}}
    version = mine.save_draft(table, "edit", edit)
    log = store.TapLog(edit, version, 0, False)
    kvanta_edit.back_to(mine, mine.table(table), log, "edit", "s1")
    saved, _version = mine.draft(table, "edit")
    assert saved["spent"] == [*many[2:], "u1", "u2"] and saved["taps"] == []
    assert saved["context"]["stash"] == taps[1:]


def _begin(_old):
    return {"taps": [], "undone": [], "context": {}}


def _accept(_data):
    return None


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    steps=st.lists(
        st.tuples(
            st.sampled_from(
                ["next", "close", "round", "marriage", "scored", "void", "restore", "edit"]
            ),
            st.integers(0, 40),
            st.integers(-3, 3),
            st.integers(0, 2),
        ),
        max_size=18,
    )
)
def test_what_a_write_adding_entries_brings_up_to_date_is_what_a_read_finds(steps):
    """Requests as a phone makes them: the table's page read (its tally, latest history
    and first history page, next round, entry count), then one write. After a write that
    only added entries, the reads of the history are brought up to date from the rows
    it wrote, reading nothing; after any write, they are what a store that kept nothing
    reads (``_brought_up``, ``_count_written``)."""
    s = Store(connect(":memory:"))
    migrate(s.db)
    table, ids = start(s)
    players = list(ids.values())
    s.tally(table.id, NON_DEAL_KINDS)
    for number, (action, pick, swing, more) in enumerate(steps):
        s.begin_memo()  # a request
        s.table_by_key(table.scorer_key)
        kinds = tuple(sorted(s.tally(table.id, NON_DEAL_KINDS).kinds))
        s._latest(table.id, kinds, 21)
        step_kinds = ("cowboy-marriage", "manual-points")  # read inside a write, as taps do
        s.next_round(table.id)
        s.entry_count(table.id)
        existing = [e.id for e in Store(s.db).entries(table.id)]
        added_in_write: list = []
        points = {players[pick % 3]: swing} if swing else {}
        plain = action in ("next", "close", "round", "marriage", "scored")
        try:
            if action == "next":
                s.add_entry(table.id, None, "manual-points", {"n": number}, {}, points)
            elif action in ("round", "marriage"):
                kind = "manual-points" if action == "round" else "cowboy-marriage"
                s.add_entry(table.id, pick % 6 + 1, kind, {}, {}, points)
            elif action == "scored":  # a tap that scores: the entry in the tap's write

                def then(_log, number=number, points=points, kinds=kinds, got=added_in_write):
                    s.recent_entries(table.id, kinds=("manual-points", "cowboy-marriage"))
                    s.add_entry(table.id, None, "manual-points", {"n": number}, {}, points)
                    # read in the write once it added the entry: the entry is there
                    got.append(s._latest(table.id, kinds, 21))

                s.append_tap(table.id, "deal", {"id": f"s{number}"}, _accept, _begin, then)
            elif action == "close":
                log = s.append_tap(table.id, "deal", {"id": f"t{number}"}, _accept, _begin)
                also = [("cowboy-marriage", {}, {}, points)] * more
                s.close_draft_into_entry(
                    table.id,
                    "deal",
                    "manual-points",
                    {"n": number},
                    {},
                    points,
                    draft_version=log.version,
                    submission_id=f"close-{number}",
                    also=also,
                )
            elif action == "edit" and existing:
                old = Store(s.db).entry(table.id, existing[pick % len(existing)])
                s.add_entry(table.id, old.round, old.kind, {}, {}, points, supersedes=old.id)
            elif action == "void" and existing:
                s.void_entry(table.id, existing[pick % len(existing)])
            elif action == "restore" and existing:
                s.restore_entry(table.id, existing[pick % len(existing)])
        except StoreError:
            plain = False  # refused: changes nothing
        ran: list[str] = []
        s.db.conn.set_trace_callback(ran.append)
        try:
            latest = s._latest(table.id, kinds, 21)
            in_write = s.recent_entries(table.id, step_kinds) if action == "scored" else None
            next_round, count = s.next_round(table.id), s.entry_count(table.id)
            tally = s.tally(table.id, NON_DEAL_KINDS)
            # the latest history of every kind the table has now (kinds it had none of
            # before included: ``_brought_up_anew``)
            now_kinds = tuple(sorted(tally.kinds))
            latest_now = s._latest(table.id, now_kinds, 21)
        finally:
            s.db.conn.set_trace_callback(None)
        newest_first = list(s.live_newest_first(table.id, step_kinds))
        s.end_memo()
        fresh = Store(s.db)
        assert latest == fresh._latest(table.id, kinds, 21)
        assert added_in_write in ([], [latest])
        assert latest_now == fresh._latest(table.id, now_kinds, 21)
        assert newest_first == list(fresh.live_newest_first(table.id, step_kinds))
        if in_write is not None:
            assert in_write == fresh.recent_entries(table.id, step_kinds)
        assert (next_round, count) == (fresh.next_round(table.id), fresh.entry_count(table.id))
        made = fresh.tally(table.id, NON_DEAL_KINDS)
        assert (tally.totals, tally.deals, tally.history_rows, tally.kinds, tally.version) == (
            made.totals,
            made.deals,
            made.history_rows,
            made.kinds,
            made.version,
        )
        # (a tally reads what changed when it cannot know if a round is newly dealt: an
        # entry added to a given round, a deal undone and saved again into its round)
        counted = [sql for sql in ran if not sql.startswith("SELECT 'table'")]
        if plain:
            assert not [sql for sql in counted if "entries" in sql], ran
        if plain and action in ("next", "marriage"):
            assert not ran, ran
