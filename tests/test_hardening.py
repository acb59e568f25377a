"""What an adversary on the table's Wi-Fi (or a crafted file) must not break: a
deleted table's page never shown to the next one, imports checked with the app's
own rules, writes into a database file that is gone refused, submission ids and
table creation bounded, and the smaller holes (replays across tables, names with
control characters, cached-page marks, floats for whole numbers)."""

from __future__ import annotations

import html
import json
import logging
import os
import re
import sqlite3
import unicodedata
from collections import OrderedDict
from pathlib import Path

import pytest
from conftest import Page, old_entry, post_start_form, snapshot, start_table

from scorekeeper import create_app, store
from scorekeeper.cli import main
from scorekeeper.store import Store, StoreError, connect, new_key
from scorekeeper.web import tables as table_views

HX = {"HX-Request": "true"}


def form_post(client, url, page, **fields):
    data = {"csrf_token": page.csrf, "submission_id": page.submission_id, **fields}
    return client.post(url, data=data)


def table_of(store_, url):
    return store_.table_by_key(url.rsplit("/", 1)[1])[0]


# ---------------------------------------------------------------- 2: row ids and caches


def test_a_deleted_tables_page_and_sheet_are_never_shown_to_the_next_table(
    app, client, store, capsys
):
    """Finding 2: create, view the page and its PDF, delete it with the command line,
    create another: the new table gets a new row id, and neither its page nor its
    sheet shows the old name, players or scorer link."""
    old_url, old_page = start_table(
        client, "cowboy", ("Olga", "Oskar", "Otto"), name="SECRET-OLD-TABLE"
    )
    old_key = old_url.rsplit("/", 1)[1]
    old_table = table_of(store, old_url)
    assert "SECRET-OLD-TABLE" in old_page.html and old_key in old_page.html
    old_pdf = client.get(f"{old_url}/score-sheet.pdf")
    assert old_pdf.status_code == 200
    assert main(["delete", old_key, "--db", app.config["DATABASE"]]) == 0
    capsys.readouterr()

    new_url, new_page = start_table(client, "cowboy", ("Ana", "Bojan", "Ceca"), name="Fresh")
    new_table = table_of(store, new_url)
    assert new_table.id > old_table.id  # never the deleted table's id
    assert new_table.version == old_table.version  # the same version: only the id tells apart
    for _fetch in range(3):
        text = client.get(new_url).get_data(as_text=True)
        assert "Fresh" in text
        for secret in ("SECRET-OLD-TABLE", "Olga", "Oskar", old_key, old_table.watch_key):
            assert secret not in text
    new_pdf = client.get(f"{new_url}/score-sheet.pdf")
    assert new_pdf.status_code == 200
    assert new_pdf.data != old_pdf.data
    assert new_pdf.headers["ETag"] != old_pdf.headers["ETag"]


def test_a_table_under_an_old_row_id_gets_its_own_page_and_sheet(client, store):
    """Every cached page and PDF names the table by its key: a database put in place
    of the old one (a restored copy, another file) may number another table as the
    cached one, at the same version."""
    old_url, _page = start_table(client, "cowboy", ("Olga", "Oskar", "Otto"), name="OLD-ONE")
    old = table_of(store, old_url)
    client.get(old_url)
    old_pdf = client.get(f"{old_url}/score-sheet.pdf").data
    with store.db.conn:
        store.db.execute("PRAGMA foreign_keys = ON")
        store.db.execute("DELETE FROM tables WHERE id = ?", [old.id])
        scorer_key, watch_key = new_key(), new_key()
        store.db.execute(
            "INSERT INTO tables (id, scorer_key, watch_key, game, name, settings, created,"
            " updated, version) VALUES (?, ?, ?, 'cowboy', 'NEW-ONE', ?, ?, ?, ?)",
            [
                old.id,
                scorer_key,
                watch_key,
                json.dumps(old.settings),
                old.created,
                old.updated,
                old.version,
            ],
        )
        for seat, name in enumerate(("Ana", "Bojan", "Ceca")):
            store.db.execute(
                "INSERT INTO players (table_id, seat, name) VALUES (?, ?, ?)", [old.id, seat, name]
            )
    text = client.get(f"/t/{scorer_key}").get_data(as_text=True)
    assert "NEW-ONE" in text and "Ana" in text
    assert "OLD-ONE" not in text and "Olga" not in text
    assert client.get(f"/t/{scorer_key}/score-sheet.pdf").data != old_pdf


SCHEMA_V3 = Path(__file__).parent / "data" / "schema-v3.sql"


def _v3_database(path: Path) -> sqlite3.Connection:
    """A file as the release before row ids were kept apart made it (its schema as
    that release wrote it, in tests/data), with a row of every kind: tables (one a
    rematch), players, entries, points, events, rolls, drafts and submissions."""
    db = connect(path)
    db.conn.executescript(SCHEMA_V3.read_text())
    for version in (1, 2, 3):
        db.execute(
            "INSERT INTO schema_migrations VALUES (?, ?, ?)", [version, f"v{version}", store.now()]
        )
    assert store.schema_version(db) == 3
    s = Store(db)
    first = s.create_table("cowboy", "Friday", ["Ana", "Bojan", "Ceca"], {"first_dealer": 0})
    table_id = first["table_id"]
    ids = [p.id for p in s.players(table_id)]
    e1 = old_entry(db, table_id, 1, {ids[0]: 5, ids[1]: -5}, request={"a": 1}, result={"b": 2})
    e2 = old_entry(db, table_id, 1, {ids[0]: 7}, supersedes=e1)
    db.execute(  # e2 supersedes e1, and is undone
        "INSERT INTO entry_events (entry_id, event, by_entry, created) VALUES (?, ?, ?, ?)",
        [e1, "superseded", e2, store.now()],
    )
    s.void_entry(table_id, e2)
    s.add_roll(table_id, 1, "kvanta-target", [1, 2, 3], {"target": 6})
    # a draft as that release wrote it (today's drafts carry more columns)
    db.execute(
        "INSERT INTO drafts (table_id, name, data, version, updated) VALUES (?, ?, ?, 1, ?)",
        [table_id, "deal", json.dumps({"round": 2}), store.now()],
    )
    rematch = s.create_table("cowboy", "Friday", ["Ana", "Bojan", "Ceca"], {}, rematch_of=table_id)
    gone = s.create_table("kvanta", "Gone", ["X", "Y"], {})
    s.delete_table(gone["table_id"])
    for sid, tid, action in [
        ("sid-entry", table_id, "add_entry"),
        ("sid-create", table_id, "create_table"),
        ("sid-rematch", rematch["table_id"], "create_table"),
    ]:
        db.execute(
            "INSERT INTO submissions (id, table_id, created, outcome, action) VALUES (?, ?, ?, ?, ?)",
            [sid, tid, store.now(), json.dumps({"table_id": tid}), action],
        )
    return db


NUMBERED = ("tables", "players", "entries", "entry_events", "rolls")
KEPT = (*NUMBERED, "drafts")


def test_upgrading_a_v3_database_keeps_every_row_and_never_reuses_an_id(tmp_path):
    db = _v3_database(tmp_path / "v3.sqlite")
    # the columns of schema 3: later migrations may add columns, never change these
    columns = {t: ", ".join(c[1] for c in db.execute(f"PRAGMA table_info({t})")) for t in KEPT}
    before = {
        t: db.execute(f"SELECT {columns[t]} FROM {t} ORDER BY rowid").fetchall() for t in KEPT
    }
    subs_before = db.execute(
        "SELECT id, table_id, created, outcome, action FROM submissions ORDER BY id"
    ).fetchall()
    live_before = db.execute("SELECT id FROM live_entries ORDER BY id").fetchall()
    points_before = db.execute(
        "SELECT entry_id, player_id, points FROM entry_points ORDER BY entry_id, player_id"
    ).fetchall()
    assert points_before  # (the file has points to keep)
    db.close()

    s = Store.open(tmp_path / "v3.sqlite")  # what the app does at start
    db = s.db
    assert store.schema_version(db) == store.MIGRATIONS[-1].version
    for t in KEPT:
        after = db.execute(f"SELECT {columns[t]} FROM {t} ORDER BY rowid").fetchall()
        assert after == before[t], t
    assert (
        db.execute(
            "SELECT id, table_id, created, outcome, action FROM submissions ORDER BY id"
        ).fetchall()
        == subs_before
    )
    assert db.execute("SELECT id FROM live_entries ORDER BY id").fetchall() == live_before
    # every entry's points, now in its row (migration 8)
    points_after = (
        "SELECT e.id, CAST(p.key AS INTEGER), p.value FROM entries e, json_each(e.points) p"
    )
    assert db.execute(points_after + " ORDER BY 1, 2").fetchall() == points_before
    for t in NUMBERED:
        sql = db.execute("SELECT sql FROM sqlite_master WHERE name = ?", [t]).fetchone()[0]
        assert "AUTOINCREMENT" in sql, t
    # indexes made again, foreign keys back on and still whole
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"entries_table_round", "entry_events_entry", "rolls_table"} <= names
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    # the scope of the submissions kept: the table they were sent on
    scopes = dict(db.execute("SELECT id, scope FROM submissions").fetchall())
    friday = before["tables"][0][0]
    assert scopes == {"sid-entry": friday, "sid-create": None, "sid-rematch": friday}

    # a table deleted from now on never gives its id (nor its players') to the next
    last = max(r[0] for r in before["tables"])
    made = s.create_table("kvanta", "Then", ["X", "Y"], {})
    assert made["table_id"] > last
    last_player = max(p.id for p in s.players(made["table_id"]))
    s.delete_table(made["table_id"])
    again = s.create_table("kvanta", "Again", ["X", "Y"], {})
    assert again["table_id"] > made["table_id"]
    assert min(p.id for p in s.players(again["table_id"])) > last_player
    # deleting still takes the table's rows with it (ON DELETE CASCADE kept)
    s.delete_table(friday)
    assert db.execute("SELECT COUNT(*) FROM players WHERE table_id = ?", [friday]).fetchone() == (
        0,
    )
    assert db.execute("SELECT COUNT(*) FROM entries WHERE table_id = ?", [friday]).fetchone() == (
        0,
    )
    s.close()


# ---------------------------------------------------------------- 3: imports


def _export(tmp_path) -> dict:
    s = Store.open(tmp_path / "source.sqlite")
    out = s.create_table("szaman", "Friday", ["Ana", "Bojan", "Ceca"], {"first_dealer": 1})
    table_id = out["table_id"]
    ids = [p.id for p in s.players(table_id)]
    names = ["Ana", "Bojan", "Ceca"]
    first = s.add_entry(
        table_id,
        1,
        "manual-points",
        {"players": names, "points": {"Ana": 5, "Bojan": -5}},
        {"points": {"Ana": 5, "Bojan": -5, "Ceca": 0}},
        {ids[0]: 5, ids[1]: -5},
    )
    edit = s.add_entry(
        table_id,
        1,
        "manual-points",
        {"players": names, "points": {"Ana": 6}},
        {"points": {"Ana": 6, "Bojan": 0, "Ceca": 0}},
        {ids[0]: 6},
        supersedes=first["entry_id"],
    )
    s.void_entry(table_id, edit["entry_id"])
    s.add_roll(table_id, 1, "kvanta-target", [1, 2, 3], {"target": 6})
    data = s.export_table(table_id)
    s.close()
    return data


def _set(path: str, value):
    """A change to an export at ``path`` (dots and [i]), or deleting it (value ...)."""

    def change(data):
        parts = [int(p) if p.isdigit() else p for p in re.findall(r"[^.\[\]]+", path)]
        target = data
        for part in parts[:-1]:
            target = target[part]
        if value is ...:
            del target[parts[-1]]
        else:
            target[parts[-1]] = value

    return change


def _same_keys(data):
    data["table"]["watch_key"] = data["table"]["scorer_key"]


def _seat_twice(data):
    data["players"][1]["seat"] = 0


def _players(names, game=None):
    def change(data):
        data["players"] = [{"seat": i, "name": n} for i, n in enumerate(names)]
        if game:
            data["table"]["game"] = game
            data["table"]["settings"] = {}
        data["entries"], data["events"] = [], []

    return change


REFUSED_IMPORTS = {
    "watch key is the scorer key": (_same_keys, "watch link is the scorer link"),
    "key 'a'": (_set("table.scorer_key", "a"), "table.scorer_key"),
    "empty key": (_set("table.scorer_key", ""), "table.scorer_key"),
    "path key": (_set("table.watch_key", "../../x" * 4), "table.watch_key"),
    "html key": (_set("table.scorer_key", "<b onclick=x>aaaaaaaaaaaaaaaaaaaaaa</b>"), "link"),
    "null key": (_set("table.scorer_key", None), "table.scorer_key"),
    "key of 21 characters": (_set("table.scorer_key", "A" * 21), "22 to 64"),
    "game chess": (_set("table.game", "chess"), "“chess” is not one of the games"),
    "settings a list": (_set("table.settings", [1, 2]), "table.settings"),
    "setting out of range": (_set("table.settings.deals", 99), "between 1 and 30"),
    "unknown setting": (_set("table.settings.colour", "red"), "no setting called “colour”"),
    "first dealer not seated": (_set("table.settings.first_dealer", 7), "first_dealer"),
    "no players": (_players([]), "0 given"),
    "pegs with 3 players": (_players(["A", "B", "C"], "pegs"), "4, 6 or 8"),
    "seat twice": (_seat_twice, "Seat 0 is given twice"),
    "names equal but for case": (_players(["Ana", "ana", "Ceca"]), "are one name"),
    "names equal but for an invisible character": (
        _players(["Bob", "Bo\u200bb", "Ceca"]),
        "“Bob” is typed twice",
    ),
    "name with nothing visible": (_players(["\u200b\u2060", "Bob", "Ceca"]), "must not be empty"),
    "table name with nothing visible": (_set("table.name", "\ufeff"), "must not be empty"),
    "name with a bell": (_players(["Ana\x07", "Bojan", "Ceca"]), "control characters"),
    "name with an escape": (_players(["\x1b[2J", "Bojan", "Ceca"]), "control characters"),
    "table name with NUL": (_set("table.name", "Fri\x00day"), "control characters"),
    "points 10**30": (_set("entries[0].points.0", 10**30), "between"),
    "points 2**63": (_set("entries[0].points.0", 2**63), "between"),
    "points a float": (_set("entries[0].points.0", 1.5), "whole number"),
    "points for no seat": (_set("entries[0].points.9", 1), "not a seat"),
    "entry id twice": (_set("entries[1].id", None), "entries[1].id"),
    "unknown entry kind": (_set("entries[0].kind", "cheat"), "“cheat” is not a kind"),
    "another game's entry": (_set("entries[0].kind", "pegs-apply"), "“pegs-apply” is not a kind"),
    "an engine's kind no table keeps": (_set("entries[0].kind", "kvanta-trick"), "not a kind"),
    "a request the rules refuse": (
        _set("entries[0].request.points.Ana", 10**6),
        "manual-points rules refuse this entry's request",
    ),
    "a request naming no player": (_set("entries[0].request", {}), "entries[0].request"),
    "unknown event": (_set("events[0].event", "erased"), "events[0].event"),
    "event of no entry": (_set("events[0].entry_id", 999), "events[0].entry_id"),
    "edit of no entry": (_set("entries[1].supersedes", 999), "earlier entry"),
    "null created": (_set("table.created", None), "table.created"),
    "entry created null": (_set("entries[0].created", None), "entries[0].created"),
    "created not a date": (_set("events[0].created", "yesterday"), "date and time"),
    "round too large": (_set("entries[0].round", 2**63), "entries[0].round"),
    "roll of another kind": (_set("rolls[0].kind", "d20"), "rolls[0].kind"),
    "roll die of 7": (_set("rolls[0].dice", [7, 1, 1]), "rolls[0].dice[0]"),
    "missing table field": (_set("table.updated", ...), "“updated” is missing"),
    "format version 2": (_set("format_version", 2), "format version 2"),
}


@pytest.mark.parametrize("case", REFUSED_IMPORTS, ids=list(REFUSED_IMPORTS))
def test_a_refused_import_changes_nothing_and_says_why_in_one_line(tmp_path, capsys, case):
    """Finding 3: every file the probe got accepted (or a traceback for) is refused
    with the app's own rules, before anything is written."""
    change, says = REFUSED_IMPORTS[case]
    data = _export(tmp_path)
    change(data)
    path = tmp_path / "crafted.json"
    path.write_text(json.dumps(data))
    target = tmp_path / "target.sqlite"
    s = Store.open(target)
    s.create_table("cowboy", "Already here", ["X", "Y", "Z"], {})
    before = snapshot(s)
    assert main(["import", str(path), "--db", str(target)]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.count("\n") == 1 and out.err.endswith("\n"), out.err
    assert out.err.startswith("This export cannot be imported"), out.err
    assert says in out.err, out.err
    assert snapshot(s) == before
    s.close()


def test_an_import_keeps_names_composed_and_its_settings_cleaned(tmp_path, capsys):
    data = _export(tmp_path)
    decomposed = unicodedata.normalize("NFD", "Šćepan")
    data["players"][0]["name"] = decomposed
    path = tmp_path / "table.json"
    path.write_text(json.dumps(data))
    target = tmp_path / "target.sqlite"
    assert main(["import", str(path), "--db", str(target)]) == 0
    s = Store.open(target)
    (table,) = s.list_tables()
    assert s.players(table.id)[0].name == unicodedata.normalize("NFC", "Šćepan")
    assert table.settings == {"deals": 6, "target": 66, "variant": "classic", "first_dealer": 1}
    assert len(s.entries(table.id)) == 2 and len(s.rolls(table.id)) == 1
    s.close()


def test_a_pegs_move_the_rules_refuse_is_not_imported(tmp_path, capsys, client, app):
    """The probe's finding: a Pegs table with a move the board cannot replay made every
    page of it a 500; the import refuses it instead."""
    export = _export(tmp_path)
    export["table"]["game"] = "pegs"
    export["table"]["settings"] = {}
    export["players"] = [{"seat": i, "name": n} for i, n in enumerate("ABCD")]
    export["entries"] = [
        {
            "id": 1,
            "round": 1,
            "kind": "pegs-apply",
            "request": {},
            "result": {},
            "created": "2026-01-01T20:00:00+00:00",
            "supersedes": None,
            "points": {},
        }
    ]
    export["events"], export["rolls"] = [], []
    path = tmp_path / "pegs.json"
    path.write_text(json.dumps(export))
    assert main(["import", str(path), "--db", app.config["DATABASE"]]) == 2
    assert "pegs-apply rules refuse" in capsys.readouterr().err
    assert client.get(f"/t/{export['table']['scorer_key']}").status_code == 404


def _pegs_export(tmp_path) -> dict:
    """A Pegs table's export: one move, Ana's ace out of start."""
    from scorekeeper import api

    s = Store.open(tmp_path / "pegs-source.sqlite")
    names = ["Ana", "Bojan", "Ceca", "Dule"]
    table_id = s.create_table("pegs", "Race", names, {})["table_id"]
    move = {
        "seats": 4,
        "pegs": {str(seat): ["S"] * 5 for seat in range(4)},
        "player": 0,
        "card": "AS",
        "steps": [{"seat": 0, "from": "S", "to": "T8"}],
    }
    s.add_entry(table_id, 1, "pegs-apply", move, api.evaluate("pegs-apply", move), {})
    data = s.export_table(table_id)
    s.close()
    return data


@pytest.mark.parametrize(
    ("lang", "says"),
    [
        (
            "en",
            "This export cannot be imported (entries[1].kind): Entry 2 is a score-pad round, "
            "but nobody scores points in Arizona Pegs and Jokers: its tables have no score pad.",
        ),
        ("pl", "Wpis 2 to runda z notesu punktów"),
    ],
)
def test_a_pegs_table_takes_no_score_pad_round_from_a_file(tmp_path, capsys, lang, says):
    """A race's table has no score pad, and its page refuses points posted to it; an
    export naming a score-pad round among its moves is refused as well, saying so, and
    nothing is written. Without that round the same file is imported."""
    data = _pegs_export(tmp_path)
    pad = {
        "id": 2,
        "round": 2,
        "kind": "manual-points",
        "request": {"players": ["Ana", "Bojan"], "points": {"Ana": 5, "Bojan": -5}},
        "result": {"points": {"Ana": 5, "Bojan": -5}},
        "created": "2026-01-01T20:05:00+00:00",
        "supersedes": None,
        "points": {"0": 5, "1": -5},
    }
    path = tmp_path / "pegs.json"
    path.write_text(json.dumps({**data, "entries": [*data["entries"], pad]}))
    target = tmp_path / "target.sqlite"
    s = Store.open(target)
    s.create_table("cowboy", "Already here", ["X", "Y", "Z"], {})
    before = snapshot(s)
    assert main(["import", str(path), "--db", str(target), "--lang", lang]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.count("\n") == 1, out.err
    assert says in out.err, out.err
    assert snapshot(s) == before
    path.write_text(json.dumps(data))
    assert main(["import", str(path), "--db", str(target)]) == 0
    (kinds,) = {tuple(e.kind for e in s.entries(t.id)) for t in s.list_tables() if t.game == "pegs"}
    assert kinds == ("pegs-apply",)
    s.close()


def test_a_table_whose_rules_end_the_game_takes_no_game_end_from_a_file(tmp_path, capsys):
    """Only Vežimas and Kvanta offer "End the game"; a race ends when a team is home. An
    export whose Pegs table holds a game end made by hand is refused, and nothing is
    written."""
    data = _pegs_export(tmp_path)
    end = {
        "id": 2,
        "round": 1,
        "kind": "game-end",
        "request": {},
        "result": {},
        "created": "2026-01-01T20:05:00+00:00",
        "supersedes": None,
        "points": {},
    }
    path = tmp_path / "pegs.json"
    path.write_text(json.dumps({**data, "entries": [*data["entries"], end]}))
    target = tmp_path / "target.sqlite"
    s = Store.open(target)
    before = snapshot(s)
    assert main(["import", str(path), "--db", str(target)]) == 2
    err = capsys.readouterr().err
    assert (
        "(entries[1].kind): Entry 2 ends the game by hand, but Arizona Pegs and Jokers ends "
        "by its own rules: its tables offer no “End the game”." in err
    ), err
    assert snapshot(s) == before
    s.close()


def test_an_imported_table_opens_in_the_app(tmp_path, capsys, client, app):
    data = _export(tmp_path)
    path = tmp_path / "table.json"
    path.write_text(json.dumps(data))
    assert main(["import", str(path), "--db", app.config["DATABASE"]]) == 0
    key = data["table"]["scorer_key"]
    for page in ("", "/history", "/score-sheet.pdf", "/rules"):
        assert client.get(f"/t/{key}{page}").status_code == 200, page
    assert client.get(f"/t/{data['table']['watch_key']}").status_code == 200


# ---------------------------------------------------------------- 4: the database file gone


def _round(client, url, page, points="5"):
    fields = {f: "0" for f in page.player_fields()}
    fields[page.player_fields()[0]] = points
    return form_post(client, f"{url}/rounds", page, **fields)


def test_a_round_posted_after_the_database_file_was_removed_is_a_503(
    app, client, new_table, caplog
):
    """Finding 4: the file removed while serving (`rm db.sqlite*`): a post is not
    answered "saved" into a file nobody will open again, and the log says so loudly."""
    url, page = new_table()
    assert _round(client, url, page).status_code == 303
    database = app.config["DATABASE"]
    for suffix in ("", "-wal", "-shm"):
        Path(database + suffix).unlink(missing_ok=True)
    page = Page(client.get(url))  # the server still shows what it has open
    with caplog.at_level(logging.ERROR):
        answer = _round(client, url, page)
        retried = client.post(
            f"{url}/rounds",
            data={
                "csrf_token": page.csrf,
                "submission_id": page.submission_id,
                page.player_fields()[0]: "5",
            },
        )
    assert answer.status_code == 503 and retried.status_code == 503
    assert answer.headers["Retry-After"]
    assert "removed, moved or replaced" in html.unescape(answer.get_data(as_text=True))
    assert "Already saved" not in retried.get_data(as_text=True)
    loud = [r for r in caplog.records if r.levelno == logging.CRITICAL]
    assert loud and database in loud[0].getMessage()


def test_a_server_thread_opening_the_removed_database_says_it_was_removed(app, client, new_table):
    """Finding 4 on a thread of the server that had no connection yet (each thread
    has its own): the post is refused with the same message as on an older
    connection, not as a folder that cannot be opened."""
    url, page = new_table()
    database = app.config["DATABASE"]
    for suffix in ("", "-wal", "-shm"):
        Path(database + suffix).unlink(missing_ok=True)
    table_views._thread_stores.stores.clear()  # as a thread that never opened it
    answer = _round(client, url, page)
    assert answer.status_code == 503
    assert "removed, moved or replaced" in html.unescape(answer.get_data(as_text=True))
    assert not Path(database).exists()


def test_a_database_replaced_by_another_file_is_a_503(app, client, new_table, tmp_path):
    url, page = new_table()
    database = Path(app.config["DATABASE"])
    copy_path = tmp_path / "copy.sqlite"
    other = Store(connect(database))
    other.backup(copy_path)
    other.close()
    os.replace(copy_path, database)  # e.g. a backup put back while the server runs
    assert _round(client, url, page).status_code == 503


def test_a_moved_database_folder_is_a_503_and_no_empty_database_is_made(tmp_path):
    folder = tmp_path / "instance"
    app = create_app(
        {
            "DATABASE": str(folder / "scorekeeper.sqlite"),
            "SECRET_KEY": "x",
            "CREATE_RATE_LIMIT": "1000 per minute",
        }
    )
    client = app.test_client()
    url, page = start_table(client)
    folder.rename(tmp_path / "moved")
    assert _round(client, url, page).status_code == 503  # the connection already open
    table_views._thread_stores.stores = OrderedDict()  # a thread that opens it anew
    answer = _round(client, url, page)
    assert answer.status_code == 503
    assert "cannot open its database files" in html.unescape(answer.get_data(as_text=True))
    assert not folder.exists()


def test_a_lock_file_that_cannot_be_opened_is_a_503(app, client, new_table):
    url, page = new_table()
    lock = Path(app.config["DATABASE"] + ".lock")
    lock.unlink(missing_ok=True)
    lock.mkdir()  # cannot be opened for writing, even by root
    answer = _round(client, url, page)
    assert answer.status_code == 503
    assert "lock file" in html.unescape(answer.get_data(as_text=True))
    lock.rmdir()
    assert _round(client, url, Page(client.get(url))).status_code == 303


# ---------------------------------------------------------------- 5: disk filling


@pytest.mark.parametrize(
    "submission_id",
    ["x" * 250_000, "x" * 65, "../../etc", "a b", "<script>", "ünï"],
    ids=["250KB", "65", "path", "space", "html", "not-ascii"],
)
def test_a_submission_id_the_app_never_makes_is_refused_and_nothing_stored(
    client, store, submission_id
):
    home = Page(client.get("/"))
    data = {
        "csrf_token": home.csrf,
        "submission_id": submission_id,
        "game": "cowboy",
        "player": ["Ana", "Bojan", "Ceca"],
    }
    answer = client.post("/tables", data=data)
    assert answer.status_code == 400
    assert "at most 64" in html.unescape(answer.get_data(as_text=True))
    assert len(answer.get_data()) < 20_000  # not echoed back
    assert store.list_tables() == []
    assert store.db.execute("SELECT COUNT(*) FROM submissions").fetchone() == (0,)


def test_a_submission_id_of_64_characters_is_taken_and_65_refused_everywhere(
    client, store, new_table
):
    url, page = new_table()
    fields = {page.player_fields()[0]: "5"}
    ok = client.post(
        f"{url}/rounds", data={"csrf_token": page.csrf, "submission_id": "a" * 64, **fields}
    )
    assert ok.status_code == 303
    refused = client.post(
        f"{url}/rounds", data={"csrf_token": page.csrf, "submission_id": "b" * 65, **fields}
    )
    assert refused.status_code == 400
    assert len(store.entries(table_of(store, url).id)) == 1
    # the store refuses one too, whoever calls it
    with pytest.raises(StoreError, match="at most 64"):
        store.create_table("cowboy", "T", ["A", "B", "C"], {}, submission_id="c" * 65)
    assert len(store.list_tables()) == 1


def limited_app(tmp_path, limit="3 per minute"):
    return create_app(
        {
            "DATABASE": str(tmp_path / "limited.sqlite"),
            "SECRET_KEY": "x",
            "CREATE_RATE_LIMIT": limit,
        }
    )


def test_table_creation_is_limited_per_address_with_a_clear_page(tmp_path):
    app = limited_app(tmp_path)
    client = app.test_client()
    urls = [start_table(client)[0] for _ in range(3)]
    home = Page(client.get("/"))
    refused = client.post(
        "/tables",
        data={
            "csrf_token": home.csrf,
            "submission_id": home.submission_id,
            "game": "cowboy",
            "player": ["Ana", "Bojan", "Ceca"],
        },
    )
    assert refused.status_code == 429
    text = html.unescape(refused.get_data(as_text=True))
    assert "Too many tables were started from this device" in text
    assert '<link rel="stylesheet"' in text  # the app's own page, not werkzeug's
    assert int(refused.headers["Retry-After"]) >= 1
    assert refused.headers["Content-Security-Policy"]
    s = Store(connect(app.config["DATABASE"]))
    assert len(s.list_tables()) == 3
    # a rematch is a new table too: the same limit
    page = Page(client.get(urls[0]))
    rematch = client.post(
        f"{urls[0]}/rematch",
        data={"csrf_token": page.csrf, "submission_id": page.submission_id},
        headers=HX,
    )
    assert rematch.status_code == 429
    assert "Too many tables" in html.unescape(rematch.get_data(as_text=True))
    assert len(s.list_tables()) == 3
    # another phone at the table is counted apart
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "192.168.1.77"
    home = Page(other.get("/"))
    made = other.post(
        "/tables",
        data={
            "csrf_token": home.csrf,
            "submission_id": home.submission_id,
            "game": "cowboy",
            "player": ["Ana", "Bojan", "Ceca"],
        },
    )
    assert made.status_code == 303
    s.close()


def test_the_creation_limit_is_a_setting(tmp_path, monkeypatch):
    monkeypatch.setenv("SCOREKEEPER_DATABASE", str(tmp_path / "env.sqlite"))
    monkeypatch.setenv("SCOREKEEPER_SECRET_KEY", "x")
    monkeypatch.setenv("SCOREKEEPER_CREATE_RATE_LIMIT", "1 per hour")
    client = create_app().test_client()
    start_table(client)
    home = Page(client.get("/"))
    again = client.post(
        "/tables",
        data={
            "csrf_token": home.csrf,
            "submission_id": home.submission_id,
            "game": "kvanta",
            "player": ["Ana", "Bojan"],
        },
    )
    assert again.status_code == 429
    monkeypatch.setenv("SCOREKEEPER_CREATE_RATE_LIMIT", "lots")
    with pytest.raises(ValueError, match="CREATE_RATE_LIMIT “lots” is not a rate limit"):
        create_app()


# ---------------------------------------------------------------- 6: the smaller ones


def test_a_refused_cowboy_marriage_changes_no_version(client, store, new_table):
    """A suit shown twice (C-D1) is refused, and nothing was written: another
    phone's save based on the versions it read still goes through."""
    url, page = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    table = table_of(store, url)
    ids = {p.name: p.id for p in store.players(table.id)}

    def post(path, **data):
        return client.post(
            f"{url}/cowboy{path}", data={"csrf_token": page.csrf, **data}, headers=HX
        )

    def marriage(tap_id, seat):
        tap = json.dumps({"action": "marriage", "seat": seat, "suit": "H"})
        version = store.draft(table.id, "cowboy-deal")[1]
        return post("/tap", tap_id=tap_id, tap=tap, v=str(version), round="1")

    assert marriage("m-1", 0).status_code == 200
    assert store.totals(table.id)[ids["Ana"]] == 25
    version, draft = store.version(table.id), store.draft(table.id, "cowboy-deal")
    refused = marriage("m-2", 1)
    assert refused.status_code == 422
    assert store.version(table.id) == version
    assert store.draft(table.id, "cowboy-deal") == draft


def test_a_player_or_table_named_like_a_cached_pages_mark_is_shown_as_named(client, new_table):
    url, _page = new_table(
        "cowboy", ("__csrf_token__", "__submission_id__", "Ceca"), name="__submission_id__"
    )
    for _fetch in range(2):  # the first render and the cached page
        text = client.get(url).get_data(as_text=True)
        assert text.count("__csrf_token__") >= 1
        assert text.count("__submission_id__") >= 2
        live = client.get(f"{url}/live").get_data(as_text=True)
        assert "__csrf_token__" in live


def test_a_replayed_submission_id_never_answers_with_another_tables_key(client, store):
    """Someone's create-table submission id sent with a rematch of one's own table
    is refused, not answered with a redirect to *their* scorer link."""
    home = Page(client.get("/"))
    theirs = client.post(
        "/tables",
        data={
            "csrf_token": home.csrf,
            "submission_id": "their-form-id",
            "game": "cowboy",
            "player": ["Ana", "Bojan", "Ceca"],
        },
    )
    their_key = theirs.headers["Location"].rsplit("/", 1)[1]
    mine_url, mine = start_table(client, "kvanta", ("X", "Y"))
    for headers in ({}, HX):
        replay = client.post(
            f"{mine_url}/rematch",
            data={"csrf_token": mine.csrf, "submission_id": "their-form-id"},
            headers=headers,
        )
        assert replay.status_code == 422
        assert their_key not in replay.get_data(as_text=True)
        assert their_key not in str(replay.headers)
    # nor a round on one's own table answered "Already saved." with another table's id
    fields = {mine.player_fields()[0]: "5"}
    replay = client.post(
        f"{mine_url}/rounds",
        data={"csrf_token": mine.csrf, "submission_id": "their-form-id", **fields},
        headers=HX,
    )
    assert replay.status_code == 422
    assert "Already saved" not in replay.get_data(as_text=True)
    assert len(store.list_tables()) == 2
    # a real retry still replays: the same form on the same table
    again = client.post(
        "/tables",
        data={
            "csrf_token": home.csrf,
            "submission_id": "their-form-id",
            "game": "cowboy",
            "player": ["Ana", "Bojan", "Ceca"],
        },
    )
    assert again.headers["Location"] == theirs.headers["Location"]
    first = client.post(
        f"{mine_url}/rematch", data={"csrf_token": mine.csrf, "submission_id": "my-rematch"}
    )
    second = client.post(
        f"{mine_url}/rematch", data={"csrf_token": mine.csrf, "submission_id": "my-rematch"}
    )
    assert first.status_code == second.status_code == 303
    assert first.headers["Location"] == second.headers["Location"]
    assert len(store.list_tables()) == 3


@pytest.mark.parametrize(
    "names, says",
    [
        (("A\x00na", "Bojan", "Ceca"), "control characters"),
        (("Ana\x07", "Bojan", "Ceca"), "control characters"),
        (("\x1b[31mAna", "Bojan", "Ceca"), "control characters"),
        (("Ana\u202e", "Bojan", "Ceca"), "control characters"),
        (("Ana", "ana", "Ceca"), "are one name"),
        (
            (unicodedata.normalize("NFC", "Šćepan"), unicodedata.normalize("NFD", "Šćepan"), "C"),
            # one name as it reads, whatever the phone's encoding: no matter of case
            "“Šćepan” is typed twice",
        ),
    ],
    ids=["nul", "bel", "ansi", "bidi", "case", "composed"],
)
def test_names_with_control_characters_or_equal_but_for_case_are_refused(
    client, store, names, says
):
    answer = post_start_form(client, "cowboy", names)
    assert answer.status_code == 422
    assert says in html.unescape(answer.get_data(as_text=True))
    assert store.list_tables() == []


def test_a_table_name_with_control_characters_is_refused(client, store):
    home = Page(client.get("/"))
    data = {
        "csrf_token": home.csrf,
        "submission_id": home.submission_id,
        "game": "cowboy",
        "player": ["Ana", "Bojan", "Ceca"],
        "name": "Friday\x1b]0;pwned\x07",
    }
    answer = client.post("/tables", data=data)
    assert answer.status_code == 422
    assert "control characters" in html.unescape(answer.get_data(as_text=True))
    assert store.list_tables() == []


def test_names_are_kept_composed(client, store):
    url, _page = start_table(client, "cowboy", (unicodedata.normalize("NFD", "Šćepan"), "B", "C"))
    name = store.players(table_of(store, url).id)[0].name
    assert name == unicodedata.normalize("NFC", "Šćepan")


@pytest.mark.parametrize("new_name", ["ana", "ANA", "Bo\x1bjan"])
def test_a_rename_to_a_name_taken_but_for_case_or_with_control_characters_is_refused(
    client, store, new_table, new_name
):
    url, page = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    table = table_of(store, url)
    ceca = store.players(table.id)[2]
    answer = client.post(
        f"{url}/players/{ceca.id}/name", data={"csrf_token": page.csrf, "name": new_name}
    )
    assert answer.status_code == 422
    assert store.players(table.id)[2].name == "Ceca"
    with pytest.raises(StoreError):
        store.rename_player(table.id, ceca.id, new_name)


def test_tables_command_never_prints_a_control_character_kept_from_before(tmp_path, capsys):
    s = Store.open(tmp_path / "cli.sqlite")
    out = s.create_table("cowboy", "Friday", ["Ana", "Bojan", "Ceca"], {})
    with s.db.conn:  # a name stored before names were checked
        s.db.execute(
            "UPDATE players SET name = ? WHERE table_id = ? AND seat = 0",
            ["\x1b[2JAna\x07", out["table_id"]],
        )
        s.db.execute("UPDATE tables SET name = 'Fri\x1b]0;x\x07day'")
    s.close()
    assert main(["tables", "--db", str(tmp_path / "cli.sqlite"), "--base-url", "http://x"]) == 0
    printed = capsys.readouterr().out
    assert "\x1b" not in printed and "\x07" not in printed
    assert "\\x1b[2JAna\\x07" in printed and "Fri\\x1b]0;x\\x07day" in printed


def test_the_score_pad_never_replaces_a_game_screens_entry(client, store, new_table):
    """The edit form refuses a game screen's entry; the pad's post must too (here a
    Cowboy marriage, stored by its screen)."""
    url, page = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    table = table_of(store, url)
    shown = client.post(
        f"{url}/cowboy/tap",
        data={
            "csrf_token": page.csrf,
            "tap_id": "m-1",
            "tap": json.dumps({"action": "marriage", "seat": 0, "suit": "H"}),
            "v": "0",
            "round": "1",
        },
        headers=HX,
    )
    assert shown.status_code == 200
    (marriage,) = store.entries(table.id)
    assert marriage.kind == "cowboy-marriage"
    page = Page(client.get(url))
    fields = {f: "0" for f in page.player_fields()}
    fields[page.player_fields()[0]] = "50"
    answer = form_post(client, f"{url}/rounds", page, supersedes=str(marriage.id), **fields)
    assert answer.status_code == 409
    assert [(e.kind, e.state) for e in store.entries(table.id)] == [("cowboy-marriage", "live")]


@pytest.mark.parametrize("number", ["1.0", "1e2", "100.0", "-5.0"])
def test_the_api_refuses_a_float_where_a_whole_number_is_asked(client, number):
    body = '{"players": ["Ana", "Bojan"], "points": {"Ana": NUMBER}}'.replace("NUMBER", number)
    answer = client.post("/api/v1/score/manual-points", data=body, content_type="application/json")
    assert answer.status_code == 422
    assert answer.get_json()["error"] == {
        "message": "points.Ana must be a whole number.",
        "path": "points.Ana",
    }
    whole = body.replace(number, "100")
    assert (
        client.post(
            "/api/v1/score/manual-points", data=whole, content_type="application/json"
        ).status_code
        == 200
    )


# ---------------------------------------------------------------- a real server


def _served_home(url):
    import requests

    session = requests.Session()
    text = session.get(url + "/", timeout=10).text
    home = re.search(r'name="csrf_token" value="([^"]+)"', text).group(1)
    return session, home


def _start_a_table(session, url, csrf, sid):
    data = {"csrf_token": csrf, "submission_id": sid, "game": "kvanta", "player": ["Ana", "Bo"]}
    return session.post(url + "/tables", data=data, allow_redirects=False, timeout=10)


@pytest.mark.serial
def test_a_real_server_refuses_writes_once_its_database_file_is_removed(tmp_path):
    """Finding 4 as the probe did it: `rm db.sqlite*` under a running server with
    two workers; every post after is a 503, none is answered "saved"."""
    from serving import start_serve

    db = tmp_path / "served.sqlite"
    proc, url, _lines = start_serve(db, "--no-qr", "--workers", "2")
    try:
        session, csrf = _served_home(url)
        made = _start_a_table(session, url, csrf, "served-1")
        assert made.status_code == 303
        table_url = url + made.headers["Location"]
        text = session.get(table_url, timeout=10).text
        field = re.search(r'name="(points-\d+)"', text).group(1)
        post = {"csrf_token": csrf, field: "5"}
        saved = session.post(
            table_url + "/rounds", data={**post, "submission_id": "r-0"}, headers=HX, timeout=10
        )
        assert saved.status_code == 200
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        answers = [
            session.post(
                table_url + "/rounds",
                data={**post, "submission_id": f"r-{n}"},
                headers=HX,
                timeout=10,
            )
            for n in range(1, 6)
        ]
        assert [a.status_code for a in answers] == [503] * 5
        assert all("removed, moved or replaced" in html.unescape(a.text) for a in answers), [
            html.unescape(a.text)[:300] for a in answers
        ]
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@pytest.mark.serial
def test_a_real_server_limits_table_creation_from_one_address(tmp_path):
    """The limit as the server takes it from its environment. Counts are kept in
    each worker's memory, so one worker makes the count exact here."""
    from serving import start_serve

    env = {**os.environ, "SCOREKEEPER_CREATE_RATE_LIMIT": "3 per minute"}
    proc, url, _lines = start_serve(
        tmp_path / "limited.sqlite", "--no-qr", "--workers", "1", env=env
    )
    try:
        session, csrf = _served_home(url)
        statuses = [_start_a_table(session, url, csrf, f"t-{n}").status_code for n in range(5)]
        assert statuses == [303, 303, 303, 429, 429]
        refused = _start_a_table(session, url, csrf, "t-last")
        assert "Too many tables were started" in html.unescape(refused.text)
        assert refused.headers["Retry-After"]
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@pytest.mark.parametrize(
    ("whole", "floated"), [('"seats": 4', '"seats": 4.0'), ('"player": 1', '"player": 1e0')]
)
def test_an_engine_refuses_a_float_where_it_asks_a_whole_number(client, whole, floated):
    example = json.loads((Path(__file__).parent / "data/examples/pegs-apply.json").read_text())
    body = json.dumps(example[0]["request"])
    assert whole in body
    url = "/api/v1/score/pegs-apply"
    assert client.post(url, data=body, content_type="application/json").status_code == 200
    refused = client.post(url, data=body.replace(whole, floated), content_type="application/json")
    assert refused.status_code == 422


def test_a_game_screen_never_takes_another_tables_submission_for_its_own(app, client, store):
    """A Kvanta roll sent with the id of another table's roll is refused: before, the
    pre-check answered with *that* table's stored dice, as if rolled here."""
    from test_kvanta_screen import NAMES, Kvanta, Scripted

    url_a, page_a = start_table(client, "kvanta", NAMES)
    a = Kvanta(client, url_a, page_a.csrf, store)
    url_b, page_b = start_table(client, "kvanta", NAMES)
    b = Kvanta(client, url_b, page_b.csrf, store)
    assert a.table.id != b.table.id
    app.config["DICE_RNG"] = Scripted(4, 5, 5, 6, 6, 6)
    a.dealt()
    assert a.roll(seat=1, tap_id="shared-roll").status == 200
    b.dealt()
    replay = b.roll(seat=1, tap_id="shared-roll")
    assert replay.status == 422
    assert b.rolls() == []
    assert [r["dice"] for r in a.rolls()] == [[4, 5, 5]]
    # nor a Cowboy deal told "Already saved." for another table's round
    pad = Page(client.get(url_a))
    saved = client.post(
        f"{url_a}/rounds",
        data={"csrf_token": pad.csrf, "submission_id": "shared-entry", pad.player_fields()[0]: "5"},
    )
    assert saved.status_code == 303
    url_c, page_c = start_table(client, "cowboy", ("Ana", "Bojan", "Ceca"))
    deal = client.post(
        f"{url_c}/cowboy/save",
        data={"csrf_token": page_c.csrf, "submission_id": "shared-entry", "v": "0", "round": "1"},
        headers=HX,
    )
    assert deal.status_code == 422
    assert "Already saved" not in deal.get_data(as_text=True)
