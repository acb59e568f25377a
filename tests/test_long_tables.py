"""A long table costs every page, poll and sheet the same as a short one: the pages
read the latest rounds only, totals are sums in SQL, the sheet prints its latest
entries under a carried-forward line, PDF renders are bounded in number and time
(a busy or slow one is a 503 to retry, never a server that stops answering), and
entries per table and tables per database are capped.

Long histories are written straight into the database (``bulk_rounds``): thousands
of rounds through the pad would take minutes and test nothing more."""

from __future__ import annotations

import fcntl
import io
import json
import os
import re
import threading
import urllib.error
import urllib.request
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pypdf import PdfReader
from serving import start_serve

from scorekeeper import create_app, i18n, messages, printing
from scorekeeper import store as store_module
from scorekeeper.cli import main
from scorekeeper.games import catalog
from scorekeeper.games.standings import NON_DEAL_KINDS, progress_of
from scorekeeper.store import Store, TooMany, connect, migrate, transaction
from scorekeeper.summary import as_progress_entry, table_progress

HX = {"HX-Request": "true"}


# ---------------------------------------------------------------- helpers


def make_table(s: Store, game="kvanta", names=("Ana", "Bojan", "Ceca")) -> store_module.Table:
    settings_ = catalog.GAMES[game].defaults()
    out = s.create_table(game, "Long night", list(names), settings_)
    return s.table(out["table_id"])


def round_points(n: int, seat: int) -> int:
    """The points of seat ``seat`` in round ``n`` of a bulk table (varied, some negative)."""
    return (n * 7 + seat * 13) % 41 - 15


def bulk_rounds(s: Store, table_id: int, count: int, undo_every: int = 0) -> None:
    """``count`` score-pad rounds after the table's last, in one transaction, the
    way the pad stores them; every ``undo_every``-th one undone. Bumps the version
    once, as a write would, so no page of the table's earlier state is served."""
    players = s.players(table_id)
    first = s.next_round(table_id)
    conn = s.db.conn
    with transaction(s.db):
        for n in range(first, first + count):
            points = {p.id: round_points(n, p.seat) for p in players}
            request = {
                "players": [p.name for p in players],
                "points": {p.name: v for p in players if (v := points[p.id])},
            }
            entry_id = conn.execute(
                "INSERT INTO entries (table_id, round, kind, request, result, created, points)"
                " VALUES (?, ?, 'manual-points', ?, '{}', '2026-01-01T20:00:00.000+00:00', ?)",
                [
                    table_id,
                    n,
                    json.dumps(request),
                    json.dumps({pid: v for pid, v in points.items() if v}),
                ],
            ).lastrowid
            if undo_every and n % undo_every == 0:
                conn.execute(
                    "INSERT INTO entry_events (entry_id, event, created) VALUES (?, 'voided', ?)",
                    [entry_id, "2026-01-01T20:00:00.000+00:00"],
                )
        conn.execute("UPDATE tables SET version = version + 1 WHERE id = ?", [table_id])


def live_sum(rounds, seat: int, undo_every: int = 0) -> int:
    return sum(round_points(n, seat) for n in rounds if not (undo_every and n % undo_every == 0))


def bump(s: Store, table_id: int) -> None:
    """A write that changes no entry (the table's version goes up): the next page is
    rendered anew rather than served from the cache."""
    with transaction(s.db):
        s.db.execute("UPDATE tables SET version = version + 1 WHERE id = ?", [table_id])


@pytest.fixture
def counted(monkeypatch):
    """How many entries the store builds from rows; reading the whole history is an
    error here."""
    built = {"entries": 0}
    real = store_module.entries._entry

    def counting(row, points):
        built["entries"] += 1
        return real(row, points)

    def whole_history(*_args, **_kwargs):
        raise AssertionError("a page read the whole history")

    monkeypatch.setattr(store_module.entries, "_entry", counting)
    monkeypatch.setattr(Store, "entries", whole_history)
    return built


def pdf_text(pdf: bytes) -> str:
    return " ".join(" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(pdf)).pages)


@contextmanager
def render_slots_taken(database: str, slots: int):
    """Every render slot of the database held, as by renders in other workers."""
    fds = []
    try:
        for slot in range(slots):
            fd = os.open(f"{database}.render-{slot}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            fds.append(fd)
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield
    finally:
        for fd in fds:
            os.close(fd)


# ---------------------------------------------------------------- pages read a bounded part


ROUTES = ("", "/live?v=0", "/history", "/score-sheet.pdf")


def test_every_page_reads_as_many_entries_at_round_5000_as_at_round_100(
    app, client, store, counted, monkeypatch
):
    """The finding: the page, the poll, the history and the sheet each read the whole
    history, so a long table took seconds and gigabytes per request."""
    monkeypatch.setattr(printing, "render_isolated", lambda html, slot: b"%PDF-stub")
    short, long = make_table(store), make_table(store)
    bulk_rounds(store, short.id, 100)
    bulk_rounds(store, long.id, 5000, undo_every=9)
    read = {}
    for table in (short, long):
        for route in ROUTES:
            bump(store, table.id)
            counted["entries"] = 0
            response = client.get(f"/t/{table.watch_key}{route}")
            assert response.status_code == 200, route
            read[table.id, route] = counted["entries"]
    for route in ROUTES:
        assert read[long.id, route] == read[short.id, route], route
        assert read[long.id, route] <= 200, route


def test_the_page_and_history_peak_memory_does_not_grow_with_the_history(app, client, store):
    import tracemalloc

    short, long = make_table(store), make_table(store)
    bulk_rounds(store, short.id, 100)
    bulk_rounds(store, long.id, 5000)
    for route in ("", "/history"):  # templates compiled, caches warm
        client.get(f"/t/{short.watch_key}{route}")
    peaks = {}
    for table in (short, long):
        for route in ("", "/history", "/live?v=0"):
            bump(store, table.id)
            tracemalloc.start()
            assert client.get(f"/t/{table.watch_key}{route}").status_code == 200
            peaks[table.id, route] = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    for route in ("", "/history", "/live?v=0"):
        assert peaks[long.id, route] < 2 * peaks[short.id, route], route


def test_totals_and_standings_count_every_round_of_a_long_table(client, store, parsed):
    table = make_table(store)
    bulk_rounds(store, table.id, 3000, undo_every=7)
    page = parsed(client.get(f"/t/{table.watch_key}"))
    expected = {
        name: live_sum(range(1, 3001), seat, undo_every=7)
        for seat, name in enumerate(("Ana", "Bojan", "Ceca"))
    }
    assert page.totals() == expected
    shown = [int(r) for r in re.findall(r'class="round[^"]*" data-round="(\d+)"', page.html)]
    assert shown == list(range(3000, 2980, -1))
    assert "Show all 2980 earlier rounds" in page.html


# ---------------------------------------------------------------- the history, page by page


def test_the_history_pages_go_back_newest_first_to_the_first_round(client, store):
    table = make_table(store)
    bulk_rounds(store, table.id, 120, undo_every=10)
    players = store.players(table.id)
    # an edit of round 5: the round shows once, as edited, not twice
    old = next(e for e in store.history_page(table.id, (6, 0), 1)[0])
    store.add_entry(table.id, 5, "manual-points", {}, {}, {players[0].id: 99}, supersedes=old.id)
    url = f"/t/{table.watch_key}/history"
    seen = []
    pages = 0
    while url:
        html = client.get(url).get_data(as_text=True)
        pages += 1
        rounds = [int(r) for r in re.findall(r'class="round[^"]*" data-round="(\d+)"', html)]
        assert len(rounds) <= 50
        seen += rounds
        older = re.search(r'rel="next" href="([^"]+)"', html)
        url = older.group(1).replace("&amp;", "&") if older else None
        if pages > 1:
            assert 'rel="first"' in html
    assert pages == 3
    assert seen == list(range(120, 0, -1))  # each round once, newest first
    assert "Rounds 1–20, newest first; 120 entries in all." in html


@pytest.mark.parametrize("cursor", ["x", "1", "1.", "5.5.5", "9" * 25 + ".1", "1.-3"])
def test_a_history_page_link_the_app_never_makes_is_a_bad_request(client, store, cursor):
    table = make_table(store)
    response = client.get(f"/t/{table.watch_key}/history?before={cursor}")
    assert response.status_code == 400


# ---------------------------------------------------------------- the sheet


def test_a_long_sheet_prints_its_latest_rounds_under_a_carried_forward_line(app, store):
    table = make_table(store)
    bulk_rounds(store, table.id, printing.SHEET_ROWS + 50, undo_every=7)
    with app.app_context():
        doc = printing.filled_sheet(store, store.table(table.id))
    text = pdf_text(doc.pdf)
    assert "Carried forward from rounds 1–50" in text
    carried = [messages.points(live_sum(range(1, 51), seat, 7)) for seat in range(3)]
    assert "Carried forward from rounds 1–50 " + " ".join(carried) in text
    totals = [messages.points(live_sum(range(1, 131), seat, 7)) for seat in range(3)]
    assert "Total " + " ".join(totals) in text
    assert text.count("Score pad") == printing.SHEET_ROWS  # rounds 51–130, no more


def test_a_short_sheet_has_no_carried_forward_line(app, store):
    table = make_table(store)
    bulk_rounds(store, table.id, 10)
    with app.app_context():
        text = pdf_text(printing.filled_sheet(store, store.table(table.id)).pdf)
    assert "Carried forward" not in text and text.count("Score pad") == 10


# ---------------------------------------------------------------- bounded renders


def test_a_busy_render_queue_answers_503_to_retry_while_other_routes_answer(tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "db.sqlite"),
            "SECRET_KEY": "t",
            "PDF_RENDERS": 2,
        }
    )
    client = app.test_client()
    s = Store(connect(app.config["DATABASE"]))
    table = make_table(s)
    bulk_rounds(s, table.id, 30)
    with render_slots_taken(app.config["DATABASE"], 2):
        busy = client.get(f"/t/{table.watch_key}/score-sheet.pdf")
        assert busy.status_code == 503
        assert busy.headers["Retry-After"] == str(printing.RETRY_AFTER_S)
        assert "busy printing other sheets" in busy.get_data(as_text=True)
        assert client.get("/healthz").status_code == 200
        assert client.get(f"/t/{table.watch_key}").status_code == 200
        assert client.get(f"/t/{table.watch_key}/live?v=0").status_code == 200
    done = client.get(f"/t/{table.watch_key}/score-sheet.pdf")
    assert done.status_code == 200 and done.data.startswith(b"%PDF")
    s.close()


def test_a_render_over_its_time_limit_is_stopped_and_answered_503(app, client, store, monkeypatch):
    printing._stop_renderers()
    started = []
    real_start = printing.IsolatedRenderer._start

    def start(self):
        real_start(self)
        started.append(self._process)

    monkeypatch.setattr(printing.IsolatedRenderer, "_start", start)
    table = make_table(store)
    bulk_rounds(store, table.id, printing.SHEET_ROWS)
    app.config["PDF_RENDER_SECONDS"] = 0.001  # no sheet renders in a millisecond
    slow = client.get(f"/t/{table.watch_key}/score-sheet.pdf")
    assert slow.status_code == 503 and slow.headers["Retry-After"]
    assert "took too long" in slow.get_data(as_text=True)
    assert len(started) == 1 and not started[0].is_alive()  # stopped, not left running
    assert client.get("/healthz").status_code == 200
    app.config["PDF_RENDER_SECONDS"] = 60
    again = client.get(f"/t/{table.watch_key}/score-sheet.pdf")
    assert again.status_code == 200 and again.data.startswith(b"%PDF")
    assert len(started) == 2  # a fresh renderer


def _get(url: str, timeout: float = 60) -> tuple:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read()


@pytest.mark.serial
def test_sheets_of_a_long_table_never_stop_the_server_answering(tmp_path):
    """The finding on a real server: a 2,000-round table, several phones fetching its
    sheet at once. Each gets the sheet or a 503 to retry; /healthz and the table page
    answer all along, and while every render slot is held elsewhere, so does a sheet
    request (with its 503)."""
    db = tmp_path / "served.sqlite"
    s = Store(connect(db))
    migrate(s.db)
    table = make_table(s)
    bulk_rounds(s, table.id, 2000, undo_every=11)
    s.close()
    proc, url, _lines = start_serve(db, "--workers", "3")
    try:
        sheet = f"{url}/t/{table.watch_key}/score-sheet.pdf"
        answers: list[tuple] = []

        def fetch():
            answers.append(_get(sheet))

        phones = [threading.Thread(target=fetch) for _ in range(5)]
        for phone in phones:
            phone.start()
        probes = [_get(f"{url}/healthz", timeout=15) for _ in range(3)]
        probes.append(_get(f"{url}/t/{table.watch_key}", timeout=15))
        for phone in phones:
            phone.join(120)
        assert [status for status, _h, _b in probes] == [200] * 4
        assert len(answers) == 5
        for status, headers, body in answers:
            assert status in (200, 503)
            if status == 200:
                assert body.startswith(b"%PDF")
            else:
                assert headers.get("Retry-After") == str(printing.RETRY_AFTER_S)
        assert any(status == 200 for status, _h, _b in answers)
        with render_slots_taken(str(db), printing.DEFAULT_RENDERS):
            s = Store(connect(db))
            bulk_rounds(s, table.id, 1)  # a sheet no worker has rendered yet
            s.close()
            status, headers, _body = _get(sheet, timeout=15)
            assert status == 503 and headers["Retry-After"]
            assert _get(f"{url}/healthz", timeout=15)[0] == 200
    finally:
        proc.terminate()
        proc.wait(timeout=20)


# ---------------------------------------------------------------- caps


@pytest.fixture
def capped(tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "capped.sqlite"),
            "SECRET_KEY": "t",
            "MAX_ENTRIES_PER_TABLE": 30,
            "MAX_TABLES": 3,
        }
    )
    s = Store(connect(app.config["DATABASE"]), **store_module.caps(app.config))
    yield app, s
    s.close()


def test_a_table_refuses_entries_past_its_cap_with_a_clear_message(capped, parsed):
    from test_web import post_round

    app, s = capped
    client = app.test_client()
    table = make_table(s)
    bulk_rounds(s, table.id, 29)
    url = f"/t/{table.scorer_key}"
    saved = post_round(client, url, parsed(client.get(url)), [5, 0, -5])
    assert saved.status_code == 200 and "Round 30 saved." in saved.get_data(as_text=True)
    refused = post_round(client, url, parsed(client.get(url)), [5, 0, -5])
    assert refused.status_code == 422
    assert "This table holds 30 entries, the most one table may" in refused.get_data(as_text=True)
    assert s.entry_count(table.id) == 30
    with pytest.raises(TooMany):
        s.add_entry(table.id, None, "manual-points", {}, {}, {})


def test_a_database_refuses_tables_past_its_cap(capped):
    from conftest import Page

    app, s = capped
    for _ in range(3):
        make_table(s)
    client = app.test_client()
    home = Page(client.get("/"))
    response = client.post(
        "/tables",
        data={
            "csrf_token": home.csrf,
            "submission_id": home.submission_id,
            "game": "vezimas",
            "player": ["Ana", "Bojan"],
            "first_dealer": "0",
        },
    )
    assert response.status_code == 422
    assert "This database holds 3 tables, the most it may" in response.get_data(as_text=True)
    assert len(s.list_tables()) == 3


def test_an_import_over_the_cap_is_refused_before_anything_is_written(capped):
    app, s = capped
    table = make_table(s)
    bulk_rounds(s, table.id, 30)
    export = s.export_table(table.id)
    s.delete_table(table.id)
    export["entries"].append({**export["entries"][-1], "id": 10**6, "round": 31})
    with pytest.raises(TooMany, match="31 entries, more than the 30"):
        s.import_table(export)
    assert s.list_tables() == []


def test_the_command_line_import_obeys_the_default_cap(tmp_path, capsys):
    entries = [
        {
            "id": n,
            "round": n,
            "kind": "manual-points",
            "request": {},
            "result": {},
            "created": "2026-01-01T20:00:00.000+00:00",
            "supersedes": None,
            "points": {"0": 1},
        }
        for n in range(1, store_module.MAX_ENTRIES_PER_TABLE + 2)
    ]
    export = {
        "format": "scorekeeper-table",
        "format_version": 1,
        "table": {
            "scorer_key": "s" * 24,
            "watch_key": "w" * 24,
            "game": "vezimas",
            "name": "Huge",
            "settings": {},
            "created": "2026-01-01T20:00:00.000+00:00",
            "updated": "2026-01-01T20:00:00.000+00:00",
        },
        "players": [{"seat": 0, "name": "Ana"}, {"seat": 1, "name": "Bojan"}],
        "entries": entries,
        "events": [],
        "rolls": [],
    }
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(export))
    db = tmp_path / "cli.sqlite"
    assert main(["import", str(path), "--db", str(db)]) == 2
    assert "10,001 entries, more than the 10,000 one table may hold" in capsys.readouterr().err
    assert Store(connect(db)).list_tables() == []


# ---------------------------------------------------------------- the standings from part of it


KINDS = st.sampled_from(
    ["manual-points", "game-end", "vezimas-deal", "kvanta-dealer", "pegs-board", "pegs-apply"]
)


def _result(kind: str, pick: int) -> dict:
    names = ["Ana", "Bojan", "Ceca", "Dule"]
    if kind == "vezimas-deal":
        return {"next_dealer": names[pick % 4]}
    if kind == "kvanta-dealer":
        return {"dealer": names[pick % 4] if pick % 3 else None}
    if kind in ("pegs-board", "pegs-apply"):
        board = {str(seat): ["H1" if (pick >> seat) & 1 else "S"] * 2 for seat in range(4)}
        return {"pegs": board if pick % 5 else {}, "winner_team": pick % 2 if pick > 6 else None}
    return {}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from(["vezimas", "kvanta", "pegs", "cowboy"]),
    steps=st.lists(
        st.tuples(KINDS, st.integers(0, 15), st.integers(-2, 2), st.booleans()), max_size=30
    ),
)
def test_the_standings_read_from_the_latest_entries_are_those_of_the_whole_history(game, steps):
    """``table_progress`` reads only the latest entries that decide each fact; it must
    say what ``progress_of`` says of every live entry (V-D2, P-D1, K-D7)."""
    s = Store(connect(":memory:"))
    migrate(s.db)
    table = make_table(s, game, ("Ana", "Bojan", "Ceca", "Dule"))
    players = s.players(table.id)
    for round_number, (kind, pick, swing, undo) in enumerate(steps, start=1):
        points = {players[pick % 4].id: swing} if swing else {}
        if pick % 7 == 0:
            points[players[(pick + 1) % 4].id] = 1
        out = s.add_entry(table.id, round_number, kind, {}, _result(kind, pick), points)
        if undo:
            s.void_entry(table.id, out["entry_id"])
    name_of = {p.id: p.name for p in players}
    live = [as_progress_entry(e, name_of) for e in s.entries(table.id) if e.live]
    assert table_progress(s, table, players) == progress_of(game, table.settings, live)
    s.close()


def test_the_screens_see_the_latest_entry_of_each_kind_however_old(store):
    """Vežimas' trumps are chosen once, at the start: after thousands of rounds the
    screen still finds them among the entries it reads."""
    table = make_table(store, "vezimas", ("Ana", "Bojan"))
    store.add_entry(table.id, 1, "vezimas-trumps", {"suit": "H"}, {}, {})
    bulk_rounds(store, table.id, 2000)
    recent = store.recent_entries(table.id)
    assert [e.kind for e in recent].count("vezimas-trumps") == 1
    assert len(recent) <= store_module.RECENT_ENTRIES + 2
    assert max(e.round for e in recent) == 2001


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    steps=st.lists(
        st.tuples(
            st.sampled_from(["add", "add", "marriage", "void", "restore", "edit"]),
            st.integers(0, 40),
            st.integers(-3, 3),
        ),
        max_size=25,
    )
)
def test_the_tally_kept_up_to_date_is_the_tally_made_afresh(steps):
    """The page's totals and counts are brought up to date from the rows written
    since (``Store.tally``): after any adds, undos, redos and edits they are what a
    count over the whole history says, and the totals what ``Store.totals`` sums."""
    s = Store(connect(":memory:"))
    migrate(s.db)
    table = make_table(s, "cowboy")
    players = s.players(table.id)
    s.tally(table.id, NON_DEAL_KINDS)  # made before the first entry, then kept
    for action, pick, swing in steps:
        ids = [e.id for e in s.entries(table.id)]
        points = {players[pick % 3].id: swing} if swing else {}
        try:
            if action in ("add", "marriage"):
                kind = "manual-points" if action == "add" else "cowboy-marriage"
                s.add_entry(table.id, pick % 6 + 1, kind, {}, {}, points)
            elif action == "edit" and ids:
                old = s.entry(table.id, ids[pick % len(ids)])
                s.add_entry(table.id, old.round, old.kind, {}, {}, points, supersedes=old.id)
            elif action == "void" and ids:
                s.void_entry(table.id, ids[pick % len(ids)])
            elif action == "restore" and ids:
                s.restore_entry(table.id, ids[pick % len(ids)])
        except store_module.StoreError:
            pass  # refused (not live, not undone): changes nothing
        kept = s.tally(table.id, NON_DEAL_KINDS)
        fresh = Store(s.db).tally(table.id, NON_DEAL_KINDS)
        assert (kept.totals, kept.deals, kept.history_rows, kept.kinds) == (
            fresh.totals,
            fresh.deals,
            fresh.history_rows,
            fresh.kinds,
        )
        assert kept.totals == s.totals(table.id)
        live = [e for e in s.entries(table.id) if e.live]
        assert kept.deals == len({e.round for e in live if e.kind not in NON_DEAL_KINDS})
        assert kept.history_rows == sum(e.state != "superseded" for e in s.entries(table.id))
    s.close()


def test_a_long_kvanta_table_lists_its_latest_earlier_dice_not_all(client, store):
    """Kvanta's panel listed every die the table ever rolled on every page."""
    from scorekeeper.deals import kvanta
    from scorekeeper.views.kvanta import EARLIER_ROLLS

    table = make_table(store)
    for n in range(1, 401):
        store.add_roll(table.id, n, kvanta.TARGET_ROLL, [n % 6 + 1, 3], {"target": n % 6 + 4})
    bump(store, table.id)
    html = client.get(f"/t/{table.watch_key}").get_data(as_text=True)
    assert "Earlier dice at this table (400)" in html
    earlier = html.split("Earlier dice at this table", 1)[1].split("</details>", 1)[0]
    assert earlier.count("<li") == EARLIER_ROLLS


@pytest.mark.parametrize(
    ("language", "grouped"),
    [("en", "10,000"), ("pl", "10\xa0000"), ("sr-Latn", "10.000"), ("lt", "10\xa0000")],
)
def test_the_caps_refusals_write_their_numbers_as_the_readers_language_does(
    tmp_path, language, grouped
):
    """A limit of 10,000 reads "10 000" to a Polish player, not the English "10,000"."""
    s = Store(connect(str(tmp_path / "c.sqlite")), max_entries=10_000, max_tables=10_000)
    with pytest.raises(TooMany) as too_many:
        s._check_import_room({"entries": [{}] * 10_001})
    messages.use(i18n.translations)  # as the app and the CLI install it
    token = i18n.speak(language)
    try:
        said = too_many.value.message
    finally:
        i18n.stop_speaking(token)
    assert grouped in said and said.count(grouped) == 1
    assert ("10\xa0001" if "\xa0" in grouped else grouped[:-1] + "1") in said
    s.close()
