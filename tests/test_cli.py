"""The ``scorekeeper`` command: score, roll, tables, export/import, backup, delete,
and that ``score`` answers exactly like the HTTP API."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from scorekeeper import api
from scorekeeper.cli import COMMANDS_TAKING_A_KEY, OPTIONS_TAKING_A_VALUE, build_parser, main

EXAMPLES = Path(__file__).parent / "data" / "examples"


def run(*args, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scorekeeper.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_score_reads_stdin_and_prints_the_response():
    request = {"players": ["Ana", "Bojan"], "points": {"Ana": 12, "Bojan": -3}}
    out = run("score", "manual-points", stdin=json.dumps(request))
    assert out.returncode == 0
    assert json.loads(out.stdout) == {"points": {"Ana": 12, "Bojan": -3}}


def test_score_reads_a_file(tmp_path):
    path = tmp_path / "req.json"
    path.write_text(json.dumps({"players": ["A", "B"], "points": {"B": 4}}))
    out = run("score", "manual-points", "--file", str(path))
    assert out.returncode == 0 and json.loads(out.stdout)["points"] == {"A": 0, "B": 4}


@pytest.mark.parametrize(
    ("kind", "body", "status"),
    [
        ("manual-points", '{"players": ["A"], "points": {}}', 422),
        ("manual-points", "{not json", 400),
        ("no-such-kind", "{}", 404),
        ("manual-points", "[1, 2]", 422),
        ("manual-points", r'{"players": ["\ud800"], "points": {}}', 400),
        # one name, once the zero-width space nothing shows is left out
        ("manual-points", r'{"players": ["Bob", "Bo\u200bb"], "points": {}}', 422),
    ],
)
def test_refusals_exit_2_with_the_same_body_as_http(client, kind, body, status):
    out = run("score", kind, stdin=body)
    assert out.returncode == 2
    http = client.post(f"/api/v1/score/{kind}", data=body, content_type="application/json")
    assert http.status_code == status
    assert json.loads(out.stdout) == http.get_json()
    assert set(http.get_json()["error"]) == {"message", "path"}


def test_cli_and_http_agree_on_every_example(client):
    """Every worked example, through both doors, gives one identical answer."""
    for path in sorted(EXAMPLES.glob("*.json")):
        kind = path.stem
        for case in json.loads(path.read_text())[:3]:
            body = json.dumps(case["request"], ensure_ascii=False)
            via_cli, status = api.respond(kind, body.encode())
            http = client.post(
                f"/api/v1/score/{kind}", data=body.encode(), content_type="application/json"
            )
            assert http.status_code == status, (kind, case)
            assert http.get_json() == via_cli, (kind, case)
    # and one through a real subprocess
    case = json.loads((EXAMPLES / "manual-points.json").read_text())[1]
    out = run("score", "manual-points", stdin=json.dumps(case["request"]))
    assert json.loads(out.stdout) == api.respond("manual-points", json.dumps(case["request"]))[0]


def test_score_does_not_import_flask_or_weasyprint():
    code = (
        "import sys, io, json;"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(json.dumps({'players': ['A', 'B'], 'points': {}}).encode()));"
        "from scorekeeper.cli import main;"
        "rc = main(['score', 'manual-points']);"
        "print(sorted(m for m in ('flask', 'weasyprint', 'sqlite_utils', 'waitress') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip().endswith("[]"), out.stdout + out.stderr


def db_args(tmp_path):
    return ["--db", str(tmp_path / "cli.sqlite")]


def make_table(tmp_path):
    from scorekeeper.store import Store

    s = Store.open(tmp_path / "cli.sqlite")
    out = s.create_table("cowboy", "Friday night", ["Ana", "Bojan", "Ceca"], {})
    players = s.players(out["table_id"])
    request = {"players": ["Ana", "Bojan", "Ceca"], "points": {"Ana": 25, "Bojan": -5}}
    result = {"points": {"Ana": 25, "Bojan": -5, "Ceca": 0}}
    s.add_entry(
        out["table_id"], 1, "manual-points", request, result, {players[0].id: 25, players[1].id: -5}
    )
    key = out["scorer_key"]
    s.close()
    return key


def test_tables_lists_links(tmp_path, capsys):
    key = make_table(tmp_path)
    assert main(["tables", *db_args(tmp_path), "--base-url", "http://10.0.0.5:8000"]) == 0
    out = capsys.readouterr().out
    assert "Friday night" in out and f"http://10.0.0.5:8000/t/{key}" in out
    assert "Ana, Bojan, Ceca" in out


def test_export_import_round_trip_and_backup(tmp_path, capsys):
    key = make_table(tmp_path)
    export = tmp_path / "table.json"
    assert main(["export", key, *db_args(tmp_path), "-o", str(export)]) == 0
    assert main(["export", key, *db_args(tmp_path), "--format", "csv"]) == 0
    csv_text = capsys.readouterr().out
    assert csv_text.splitlines()[0] == "round,kind,status,created,Ana,Bojan,Ceca"
    assert csv_text.splitlines()[-1] == "total,,,,25,-5,0"

    other = ["--db", str(tmp_path / "other.sqlite")]
    assert main(["import", str(export), *other, "--base-url", "http://x"]) == 0
    assert f"http://x/t/{key}" in capsys.readouterr().out
    copy = sqlite3.connect(tmp_path / "other.sqlite")
    points = "SELECT SUM(p.value) FROM entries e, json_each(e.points) p"
    assert copy.execute(points).fetchone()[0] == 20

    backup = tmp_path / "backup.sqlite"
    assert main(["backup", str(backup), *db_args(tmp_path)]) == 0
    b = sqlite3.connect(backup)
    assert b.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert b.execute("SELECT name FROM tables").fetchone()[0] == "Friday night"


def test_a_backup_replaces_what_was_at_its_path_whole(tmp_path, capsys):
    make_table(tmp_path)
    backup = tmp_path / "backup.sqlite"
    backup.write_text("last week's notes, not a database")
    assert main(["backup", str(backup), *db_args(tmp_path)]) == 0
    b = sqlite3.connect(backup)
    assert b.execute("SELECT name FROM tables").fetchone()[0] == "Friday night"
    assert sorted(p.name for p in tmp_path.iterdir() if "partial" in p.name) == []


def test_a_backup_onto_the_database_itself_is_refused(tmp_path, capsys):
    make_table(tmp_path)
    database = tmp_path / "cli.sqlite"
    (tmp_path / "link.sqlite").symlink_to(database)
    for same in (database, tmp_path / "link.sqlite", tmp_path / "cli.sqlite-wal"):
        assert main(["backup", str(same), *db_args(tmp_path)]) == 2
        assert "is the database itself" in capsys.readouterr().err
    assert main(["backup", str(database), "--db", str(tmp_path / "link.sqlite")]) == 2
    assert "is the database itself" in capsys.readouterr().err
    assert sqlite3.connect(database).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert main(["tables", *db_args(tmp_path)]) == 0
    assert "Friday night" in capsys.readouterr().out


@pytest.mark.parametrize(
    "command, says",
    [
        (["backup", "{missing}/backup.sqlite"], "Cannot back up to {missing}/backup.sqlite"),
        (["export", "{key}", "-o", "{missing}/table.json"], "Cannot write {missing}/table.json"),
        (["print", "-o", "{a_file}"], "Cannot write the PDFs to {a_file}"),
    ],
    ids=["backup", "export", "print"],
)
def test_an_output_path_that_cannot_be_written_is_a_message_not_a_traceback(
    tmp_path, capsys, command, says
):
    names = {
        "missing": tmp_path / "no" / "such",
        "a_file": tmp_path / "a-file",
        "key": make_table(tmp_path),
    }
    (tmp_path / "a-file").write_text("")
    out = run(*[part.format(**names) for part in command], *db_args(tmp_path))
    assert out.returncode == 2
    assert says.format(**names) in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("db", ["not-a-database.txt", "."], ids=["text-file", "folder"])
def test_a_db_option_naming_no_database_is_a_message_not_a_traceback(tmp_path, db):
    (tmp_path / "not-a-database.txt").write_text("hello")
    path = tmp_path / db
    out = run("tables", "--db", str(path))
    assert out.returncode == 2
    assert f"Cannot open the database {path}" in out.stderr
    assert "Traceback" not in out.stderr
    if path.is_file():
        assert path.read_text() == "hello"


def test_import_refuses_garbage(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"hello": 1}')
    assert main(["import", str(bad), *db_args(tmp_path)]) == 2
    assert "not a Scorekeeper table export" in capsys.readouterr().err


@pytest.mark.parametrize(
    "content, says",
    [
        (b"\x89PNG\r\n\x1a\n\x00\xff", "it is not JSON, so not a table export."),
        (b"round,Ana,Bojan\n1,5,-5\n", "it is not JSON, so not a table export."),
        (b"[" * 100_000, "it is not JSON, so not a table export."),
        (None, "Is a directory."),
    ],
    ids=["binary", "csv", "nested", "folder"],
)
def test_import_says_plainly_why_a_file_is_not_an_export(tmp_path, capsys, content, says):
    path = tmp_path / "in"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    assert main(["import", str(path), *db_args(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == f"Cannot import {path}: {says}\n"


def test_delete_a_table(tmp_path, capsys):
    key = make_table(tmp_path)
    assert main(["delete", key, *db_args(tmp_path)]) == 0
    assert main(["delete", key, *db_args(tmp_path)]) == 2
    assert main(["tables", *db_args(tmp_path)]) == 0
    assert "No tables yet" in capsys.readouterr().out


@pytest.mark.parametrize("command", COMMANDS_TAKING_A_KEY)
def test_a_key_whose_bytes_are_not_utf8_is_a_message_not_a_traceback(tmp_path, capsys, command):
    """A garbled paste on the command line: the shell passes bytes that are not
    UTF-8, which Python keeps as half characters."""
    make_table(tmp_path)
    before = sqlite3.connect(tmp_path / "cli.sqlite").execute("SELECT * FROM tables").fetchall()
    garbled = os.fsdecode(b"ab\xffcd")
    assert main([command, garbled, *db_args(tmp_path)]) == 2
    assert "There is no table behind this link" in capsys.readouterr().err
    after = sqlite3.connect(tmp_path / "cli.sqlite").execute("SELECT * FROM tables").fetchall()
    assert after == before


def test_a_full_disk_is_a_message_not_a_traceback(tmp_path, capsys, monkeypatch):
    """The import's database cannot grow (a full disk): it says so, and keeps nothing."""
    from scorekeeper import store

    key = make_table(tmp_path)
    s = store.Store.open(tmp_path / "cli.sqlite")
    table, _access = s.table_by_key(key)
    ana = s.players(table.id)[0].id
    for n in range(200):  # more than the fresh database's pages hold
        request = {"players": ["Ana", "Bojan", "Ceca"], "points": {"Ana": n}}
        result = {"points": {"Ana": n}, "note": "x" * 100}
        s.add_entry(table.id, n + 2, "manual-points", request, result, {ana: n})
    s.close()
    export = tmp_path / "table.json"
    assert main(["export", key, *db_args(tmp_path), "-o", str(export)]) == 0
    other = tmp_path / "other.sqlite"
    store.Store.open(other).close()
    connect = store.connect

    def connect_to_a_full_disk(path, *args, **kwargs):
        db = connect(path, *args, **kwargs)
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages}")
        return db

    monkeypatch.setattr(store, "connect", connect_to_a_full_disk)
    assert main(["import", str(export), "--db", str(other)]) == 2
    assert "is full, so nothing was saved" in capsys.readouterr().err
    assert sqlite3.connect(other).execute("SELECT COUNT(*) FROM tables").fetchone() == (0,)


def test_a_failing_flush_is_a_message_not_a_traceback(tmp_path, capsys, monkeypatch):
    """The import was committed but the disk refused to flush it: the command says
    so plainly (and fails), instead of a traceback or "Imported"."""
    from conftest import failing_flush

    from scorekeeper import store

    key = make_table(tmp_path)
    export = tmp_path / "table.json"
    assert main(["export", key, *db_args(tmp_path), "-o", str(export)]) == 0
    capsys.readouterr()

    monkeypatch.setattr(store.connection, "sync_file", failing_flush)
    assert main(["import", str(export), *db_args(tmp_path)]) == 2
    out = capsys.readouterr()
    assert "This was saved, but the disk" in out.err
    assert "Traceback" not in out.err
    assert "Imported" not in out.out


def test_an_unexpected_error_is_still_a_traceback(tmp_path, monkeypatch):
    """Only the machine's failures are turned into messages; a bug stays visible."""
    from scorekeeper import store

    key = make_table(tmp_path)

    def broken(self, *args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(store.Store, "export_table", broken)
    with pytest.raises(ZeroDivisionError):
        main(["export", key, *db_args(tmp_path), "-o", str(tmp_path / "x.json")])


def dash_the_scorer_key(tmp_path, key: str) -> str:
    """Older tables may have a key starting with "-": give the table one."""
    dashed = "-" + key[1:]
    with sqlite3.connect(tmp_path / "cli.sqlite") as db:
        db.execute("UPDATE tables SET scorer_key = ? WHERE scorer_key = ?", (dashed, key))
    return dashed


@pytest.mark.parametrize(
    "arrange",
    [
        lambda key, db: [key, *db],
        lambda key, db: [*db, key],
        lambda key, db: [*db, "--", key],
    ],
    ids=["key-first", "key-last", "after-double-dash"],
)
def test_delete_takes_a_key_that_starts_with_a_dash(tmp_path, capsys, arrange):
    key = dash_the_scorer_key(tmp_path, make_table(tmp_path))
    assert main(["delete", *arrange(key, db_args(tmp_path))]) == 0
    assert "Deleted Friday night." in capsys.readouterr().out
    assert main(["delete", key, *db_args(tmp_path)]) == 2
    assert "no table behind this link" in capsys.readouterr().err


def test_export_takes_a_key_that_starts_with_a_dash_among_its_options(tmp_path, capsys):
    key = dash_the_scorer_key(tmp_path, make_table(tmp_path))
    assert main(["export", "--format", "csv", key, *db_args(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "total,,,,25,-5,0"
    out = tmp_path / "-table.json"
    assert main(["export", *db_args(tmp_path), "-o", str(out), key]) == 0
    assert json.loads(out.read_text())["table"]["name"] == "Friday night"


@pytest.mark.parametrize("command", COMMANDS_TAKING_A_KEY)
def test_every_option_of_a_command_taking_a_key_that_takes_a_value_is_known(command):
    """A dashed key is moved behind "--" unless it follows an option that takes a value;
    an option added to the command later must be named in OPTIONS_TAKING_A_VALUE too,
    or a key placed after it would be read as the option's value."""
    subcommands = next(
        a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)
    )
    taking_a_value = {
        name
        for action in subcommands.choices[command]._actions
        if action.option_strings and action.nargs != 0
        for name in action.option_strings
    }
    assert taking_a_value  # --db, at least
    assert taking_a_value <= set(OPTIONS_TAKING_A_VALUE)


def test_a_table_is_found_by_the_link_that_tables_prints(tmp_path, capsys):
    key = make_table(tmp_path)
    assert main(["export", f"http://10.0.0.5:8000/t/{key}", *db_args(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out)["table"]["name"] == "Friday night"
    assert main(["delete", f"http://10.0.0.5:8000/t/{key}/history", *db_args(tmp_path)]) == 0
    assert main(["tables", *db_args(tmp_path)]) == 0
    assert "No tables yet" in capsys.readouterr().out


@pytest.mark.parametrize("option", ["--workers", "--threads"])
@pytest.mark.parametrize("value", ["0", "-2", "many"])
def test_serve_refuses_a_worker_or_thread_count_below_one(option, value, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["serve", option, value])
    assert stopped.value.code == 2
    assert "is not a whole number of 1 or more" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["65536", "99999", "-1", "http"])
def test_serve_refuses_a_port_out_of_range(value, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["serve", "--port", value])
    assert stopped.value.code == 2
    assert "is not a port: a whole number from 0 to 65535" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ["roll", "dice\x1b[2J"],
            "There is no roll called “dice\\x1b[2J” (one of kvanta-target, kvanta-exchange).",
        ),
        (
            ["serve", "--port", "80\n80"],
            "argument --port: “80\\n80” is not a port: a whole number from 0 to 65535",
        ),
        (["serve", "--workers", "many"], "argument --workers: “many” is not a whole number of 1"),
        (
            ["score", "manual-points", "--lang", "de"],
            "argument --lang: invalid choice: “de” (choose from en, sr-Latn, sr-Cyrl, pl, lt, sk)",
        ),
        (
            ["export", "x", "--format", "xml\x07"],
            "argument --format: invalid choice: “xml\\x07” (choose from json, csv)",
        ),
        (["tally"], "argument command: invalid choice: “tally” (choose from score, play, "),
    ],
)
def test_the_commands_own_refusals_quote_what_was_typed_as_its_other_refusals_do(args, says):
    """What the command itself refuses is quoted in the quotation marks of the English
    refusals (“de”), not as Python writes a string ('de'), and a control character
    typed in it is written as its code instead of acting on the terminal."""
    out = run(*args)
    assert out.returncode == 2
    assert says in out.stderr
    assert "'" not in out.stderr.splitlines()[-1]
    assert not set(out.stderr) & {"\x1b", "\x07"}


@pytest.mark.parametrize(
    "host", ["999.1.1.1", os.fsdecode(b"h\xff"), "a" * 300], ids=["no-address", "not-utf8", "long"]
)
def test_serve_says_so_when_its_host_cannot_be_listened_on(tmp_path, host):
    out = run("serve", "--host", host, "--port", "0", "--no-qr", *db_args(tmp_path))
    assert out.returncode == 1
    assert out.stderr.startswith("Cannot listen on ") and "Traceback" not in out.stderr


def test_serve_says_so_when_its_port_is_taken(tmp_path, capsys):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        code = main(
            ["serve", "--host", "127.0.0.1", "--port", str(port), "--no-qr", *db_args(tmp_path)]
        )
    assert code == 1
    assert f"Cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


@pytest.mark.parametrize(
    "command",
    [["tables"], ["export", "KEY"], ["delete", "KEY"], ["backup", "BACKUP"]],
    ids=["tables", "export", "delete", "backup"],
)
def test_a_db_option_naming_no_file_is_said_so_and_makes_none(tmp_path, capsys, command):
    """A mistyped --db made an empty database there and answered from it: "No tables
    yet", "no table behind this link", or "Backed up" with nothing in the copy."""
    typo = tmp_path / "scorekeper.sqlite"
    argv = [str(tmp_path / "copy.sqlite") if word == "BACKUP" else word for word in command]
    assert main([*argv, "--db", str(typo)]) == 2
    assert f"There is no database at {typo}" in capsys.readouterr().err
    assert not typo.exists() and not (tmp_path / "copy.sqlite").exists()


@pytest.mark.parametrize("written", ["sr_Cyrl", "sr-cyrl", "SR-CYRL", "sr-Cyrl"])
def test_lang_is_taken_as_the_web_takes_it(written):
    """``--lang`` names a language as ``?lang=`` does: any case, with - or _."""
    parser = build_parser()
    assert parser.parse_args(["score", "cowboy-deal", "--lang", written]).lang == "sr-Cyrl"
    assert parser.parse_args(["print", "--lang", written]).lang == "sr-Cyrl"
    assert parser.parse_args(["print", "--lang", "all"]).lang == "all"
    with pytest.raises(SystemExit):
        parser.parse_args(["score", "cowboy-deal", "--lang", "sr"])


def test_a_listing_read_only_in_part_is_no_traceback(tmp_path):
    """``scorekeeper tables | head``: the reader stops before the end, and the command
    ended with a BrokenPipeError traceback. It stops quietly instead."""
    from scorekeeper.store import Store

    s = Store.open(tmp_path / "cli.sqlite")
    names = [f"Player with a long name {i:03d}" for i in range(4)]
    for i in range(400):  # far more than a pipe holds
        s.create_table("kvanta", f"Table {i} " + "x" * 60, names, {})
    s.close()
    reader = subprocess.Popen(
        [sys.executable, "-m", "scorekeeper.cli", "tables", *db_args(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert reader.stdout.readline()  # the first line, then the reader goes away
    reader.stdout.close()
    stderr = reader.stderr.read().decode()
    reader.wait(timeout=60)
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr


def test_import_says_it_is_done_in_its_lang(tmp_path, capsys):
    """``import --lang pl`` said why it refused in Polish, but that it was done in
    English."""
    key = make_table(tmp_path)
    export = tmp_path / "table.json"
    assert main(["export", key, *db_args(tmp_path), "-o", str(export)]) == 0
    other = ["--db", str(tmp_path / "other.sqlite"), "--base-url", "http://x"]
    assert main(["import", str(export), *other, "--lang", "pl"]) == 0
    assert capsys.readouterr().out == f"Zaimportowano stół Friday night: http://x/t/{key}\n"
    assert main(["import", str(export), *other, "--lang", "pl"]) == 2  # already there
    assert capsys.readouterr().err == "Ten stół jest już w tej bazie danych.\n"
