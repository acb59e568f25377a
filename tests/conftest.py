"""Shared fixtures: an app on a temporary database, its client and CLI runner,
and helpers for the forms (CSRF token, submission ids)."""

from __future__ import annotations

import errno
import json
import re
from contextlib import contextmanager

import pytest
from first_dealer import default_first_dealer
from jinja2 import BytecodeCache

from scorekeeper import create_app, i18n, messages
from scorekeeper.app import App
from scorekeeper.store import Store, connect

UNLIMITED_CREATION = "1000000 per minute"


class SharedTemplateCode(BytecodeCache):
    """Compiled templates kept for the whole test process. Each test builds an app, and
    each app's Jinja would compile every template it draws anew (a quarter of a second
    for a table's page, more than most tests take). Jinja checks each template's source
    against the checksum stored with its code, so an edited template is compiled again."""

    def __init__(self):
        self.code: dict[str, bytes] = {}

    def load_bytecode(self, bucket):
        if bucket.key in self.code:
            bucket.bytecode_from_string(self.code[bucket.key])

    def dump_bytecode(self, bucket):
        self.code[bucket.key] = bucket.bytecode_to_string()


App.jinja_options = {**App.jinja_options, "bytecode_cache": SharedTemplateCode()}


@pytest.fixture
def app(tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "scorekeeper.sqlite"),
            "SECRET_KEY": "test-secret",
            # the suite starts many tables from one address; tests of the limit set their own
            "CREATE_RATE_LIMIT": UNLIMITED_CREATION,
        }
    )
    yield app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def store(app):
    s = Store(connect(app.config["DATABASE"]))
    yield s
    s.close()


class Page:
    """A fetched HTML page with the bits the tests need."""

    def __init__(self, response):
        self.response = response
        self.status = response.status_code
        self.html = response.get_data(as_text=True)

    @property
    def csrf(self) -> str:
        return re.search(r'name="csrf_token" value="([^"]+)"', self.html).group(1)

    @property
    def submission_id(self) -> str:
        return re.search(r'name="submission_id" value="([^"]+)"', self.html).group(1)

    def player_fields(self) -> list[str]:
        return re.findall(r'name="(points-\d+)"', self.html)

    def totals(self) -> dict[str, int]:
        return {
            # the page prints a minus sign, "−90", and groups digits as English does
            name: int(value.replace("−", "-").replace(",", ""))
            for name, value in re.findall(
                r'class="points" data-player="([^"]+)">([-−]?[\d,]+)<', self.html
            )
        }

    def errors(self) -> list[str]:
        return re.findall(r'class="(?:field-error|flash error)"[^>]*>([^<]+)<', self.html)


def failing_flush(path):
    """The disk refusing to flush a file, as a dying disk does (EIO): in place of
    ``store.sync_file``."""
    raise OSError(errno.EIO, "Input/output error", str(path))


def another_phone_first(monkeypatch, owner, name: str, change) -> list:
    """Put another phone's change between a request's read and its write: the first
    call of ``owner.name`` (the call that writes) runs ``change()`` first (the other
    phone's request, whose own writes pass straight through). Returns a list that
    then holds what ``change()`` returned."""
    original = getattr(owner, name)
    answers: list = []

    def after_the_other_phone(*args, **kwargs):
        if not answers:
            answers.append(None)
            answers[0] = change()
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, after_the_other_phone)
    return answers


def statements_of(app, send) -> tuple[list[str], object]:
    """The SQL statements the app runs for ``send()`` (sqlite3's trace callback), and
    what ``send()`` returned."""
    from scorekeeper.web import tables

    with app.test_request_context():
        conn = tables.get_store().db.conn
    ran: list[str] = []
    conn.set_trace_callback(ran.append)
    try:
        return ran, send()
    finally:
        conn.set_trace_callback(None)


def old_entry(db, table_id: int, round_number: int, points: dict | None = None, **row) -> int:
    """An entry written as the releases before migration 8 wrote it, into a file of
    their schema: its points apart, in ``entry_points``. ``row``: more of its columns
    (``request``, ``supersedes`` …). Returns its id."""
    values = {"kind": "manual-points", "request": {}, "result": {}, **row}
    values = {k: json.dumps(v) if isinstance(v, dict) else v for k, v in values.items()}
    names = ["table_id", "round", "created", *values]
    entry_id = db.execute(
        f"INSERT INTO entries ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
        [table_id, round_number, "2026-01-01T20:00:00.000+00:00", *values.values()],
    ).lastrowid
    for player_id, value in (points or {}).items():
        db.execute(
            "INSERT INTO entry_points (entry_id, player_id, points) VALUES (?, ?, ?)",
            [entry_id, player_id, value],
        )
    return entry_id


def snapshot(store) -> list:
    """Everything a refused request must leave untouched (drafts aside: a tap may save one)."""
    db = store.db
    return [
        db.execute(f"SELECT * FROM {name} ORDER BY rowid").fetchall()
        for name in ("tables", "players", "entries", "entry_events", "rolls")
    ]


@pytest.fixture
def parsed():
    """Page(response): parse a fetched page (named so as not to shadow Playwright's ``page``)."""
    return Page


def post_start_form(client, game="cowboy", players=("Ana", "Bojan", "Ceca"), **fields):
    """The home page's start form sent as a phone sends it (its token and submission
    id), with these players and fields; returns the answer."""
    home = Page(client.get("/"))
    data = {
        "csrf_token": home.csrf,
        "submission_id": home.submission_id,
        "game": game,
        "player": list(players),
        "first_dealer": default_first_dealer(game, len(players)),
    }
    data.update(fields)
    return client.post("/tables", data=data)


def start_table(client, game="cowboy", players=("Ana", "Bojan", "Ceca"), **fields):
    """Create a table through the real form; returns (scorer url, Page of the table)."""
    response = post_start_form(client, game, players, **fields)
    assert response.status_code == 303, response.get_data(as_text=True)
    url = response.headers["Location"]
    return url, Page(client.get(url))


@pytest.fixture
def new_table(client):
    def make(game="cowboy", players=("Ana", "Bojan", "Ceca"), **fields):
        return start_table(client, game, players, **fields)

    return make


@contextmanager
def speaking(language: str):
    """The app's own catalogue of ``language`` installed for the engines' and views'
    sentences, outside a request."""
    before = messages._current
    messages.use(lambda: i18n.catalogue_for(language))
    try:
        yield i18n.catalogue_for(language)
    finally:
        messages.use(before)
