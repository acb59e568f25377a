"""What the store's rows become (tables, players, entries, tallies, tap logs), the
limits on what they hold, and the checks every write makes of what it is given."""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, fields
from datetime import UTC, datetime

from .. import validate
from ..errors import RuleError
from ..messages import LANGUAGES, N_, Text, quotable
from .errors import StoreError

KEY_BYTES = 18  # 144 bits from secrets, URL-safe: a link nobody can guess

# A table's link as an import may bring it: URL-safe, and at least 22 base64url
# characters (132 bits: at least the 128 bits nobody can guess); the app's own are 24.
KEY_FORMAT = re.compile(r"[A-Za-z0-9_-]{22,64}")

# A form's submission id: what the app's pages send (22 characters), with room for a
# client of its own, but never a string that grows the database at will.
MAX_SUBMISSION_ID = 64
SUBMISSION_ID_FORMAT = re.compile(rf"[A-Za-z0-9_-]{{1,{MAX_SUBMISSION_ID}}}")
BAD_SUBMISSION_ID = N_(
    "This form's submission id is not one the app makes (at most 64 letters, digits, "
    "“-” or “_”); nothing was saved. Reload the page and try again."
)

MAX_TABLE_NAME = 80


# SQLite's INTEGER holds -2**63 … 2**63 - 1; a larger number in a query is an error
MAX_ROWID = 2**63 - 1

# Caps that keep a table, and a database, within what a page, a sheet and a disk can
# hold (``Store``; configurable as MAX_ENTRIES_PER_TABLE and MAX_TABLES). A night at
# a table is 50–200 deals, and a Pegs game stores every move, several hundred: 10,000
# entries is weeks of nights at one table, and sums over it still take milliseconds.
# 10,000 tables is a table a night for over 25 years, a few hundred MB at most.
MAX_ENTRIES_PER_TABLE = 10_000
MAX_TABLES = 10_000


def caps(config) -> dict:
    """``Store``'s caps from the app's settings (MAX_ENTRIES_PER_TABLE, MAX_TABLES)."""
    return {
        "max_entries": int(config.get("MAX_ENTRIES_PER_TABLE") or MAX_ENTRIES_PER_TABLE),
        "max_tables": int(config.get("MAX_TABLES") or MAX_TABLES),
    }


# What the table's screens read of its history (``Store.recent_entries``).
RECENT_ROUNDS = 3
RECENT_ENTRIES = 200

# SQL: the latest event of entry ``e`` ('created' without one), and whether it is live
_LAST_EVENT = (
    "COALESCE((SELECT ev.event FROM entry_events ev WHERE ev.entry_id = e.id"
    " ORDER BY ev.id DESC LIMIT 1), 'created')"
)
_LIVE = f"{_LAST_EVENT} NOT IN ('voided', 'superseded')"


def closed_draft(alias: str) -> str:
    """SQL: the draft row ``alias`` was closed into an entry since its last write
    (migration 7: an entry names the draft it closes and the write it closed it in)."""
    return (
        f"EXISTS (SELECT 1 FROM entries c WHERE c.table_id = {alias}.table_id"
        f" AND c.closes = {alias}.name AND c.closes_at >= {alias}.at)"
    )


# a tap log's draft ``d`` (named ``:name``), joined on its table: a closed draft reads as
# none, but for the data of the log it closed (its spent tap ids)
TAP_LOG_DRAFT = f"""(SELECT d.table_id, d.data, d.version, {closed_draft("d")} AS closed
    FROM drafts d WHERE d.name = :name) d"""
TAP_LOG_DATA = "CASE WHEN d.closed THEN NULL ELSE d.data END"
TAP_LOG_VERSION = "CASE WHEN d.closed THEN NULL ELSE d.version END"
TAP_LOG_CLOSED = "CASE WHEN d.closed THEN d.data END"


# the entries closed from one tap log besides the first (which holds the log), as a
# JSON array: those of the same draft and write; a log kept before migration 7 lists them
ALSO_CLOSED = """COALESCE(json_extract(e.taps, '$.also'),
    (SELECT json_group_array(a.id) FROM entries a WHERE a.table_id = e.table_id
     AND a.closes = e.closes AND a.closes_at = e.closes_at AND a.id != e.id))"""

# a submission found on the row its write stored, which records none of its own (a save
# of a tap log, an entry added, a roll): as ``submissions`` gives one (outcome, action,
# scope), the outcome as that write answers it
CARRIED_SUBMISSION = f"""SELECT CASE WHEN e.closes_at IS NOT NULL
        THEN json_object('entry_id', e.id, 'round', e.round, 'supersedes', e.supersedes,
                         'also', json({ALSO_CLOSED}))
        ELSE json_object('entry_id', e.id, 'round', e.round) END,
        CASE WHEN e.closes_at IS NOT NULL THEN 'close_draft_into_entry' ELSE 'add_entry' END,
        e.table_id
    FROM entries e WHERE e.submission_id = :id
    UNION ALL
    SELECT json_object('roll_id', r.id, 'dice', json(r.dice), 'result', json(r.result),
                       'physical', json(CASE WHEN r.physical THEN 'true' ELSE 'false' END)),
        'add_roll', r.table_id
    FROM rolls r WHERE r.submission_id = :id"""


# a submission's stored row (outcome, action, scope): its own, or the row it was carried by
SUBMISSION_SQL = f"""SELECT outcome, action, scope FROM submissions WHERE id = :id
    UNION ALL {CARRIED_SUBMISSION} LIMIT 1"""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _unencodable(text: str) -> bool:
    """Text SQLite cannot take: half a character, as a command line gives for bytes
    that are not UTF-8, or JSON for an unpaired \\uD800–\\uDFFF escape."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return True
    return False


def check_submission_id(submission_id: object) -> None:
    """Refuse a submission id no page of the app sends (StoreError)."""
    if not isinstance(submission_id, str) or not SUBMISSION_ID_FORMAT.fullmatch(submission_id):
        raise StoreError(BAD_SUBMISSION_ID)


def clean_player_names(names: Iterable[object]) -> list[str]:
    """Players' names as a table keeps them (``validate.clean_name``), none the same
    as another once case is ignored; StoreError saying which is refused."""
    try:
        cleaned = [validate.clean_name(n, "players", what="A player's name") for n in names]
        validate.distinct_names(cleaned)
    except RuleError as exc:
        raise StoreError(exc.text) from None
    return cleaned


def clean_table_name(name: object) -> str:
    try:
        return validate.clean_name(name, "name", MAX_TABLE_NAME, what="A table's name")
    except RuleError as exc:
        raise StoreError(exc.text) from None


# " (3)" at a name's end: the number a rematch was given (no 0, no leading zero)
_REMATCH_NUMBER = re.compile(r"(?P<base>.*\S) \((?P<number>[1-9][0-9]{0,8})\)", re.DOTALL)


def rematch_name(name: str, unnamed: str) -> str:
    """A rematch's name: the table's, numbered by its place in the chain of rematches
    ("Friday" → "Friday (2)" → "Friday (3)"), so the recent tables' list tells them
    apart. The number is read off the name, which stays when an earlier table of the
    chain is deleted. The base is cut to leave room for the number within
    MAX_TABLE_NAME; a name that shows nothing is ``unnamed``."""
    base, number = name.strip(), 1
    found = _REMATCH_NUMBER.fullmatch(base)
    if found:
        base, number = found["base"], int(found["number"])
    if not validate.without_invisible(base).strip():
        base = unnamed.strip()
    suffix = f" ({number + 1})"
    return base[: MAX_TABLE_NAME - len(suffix)].rstrip() + suffix


def check_language(language: object) -> str:
    """A table's language: one of ``messages.LANGUAGES`` (StoreError otherwise)."""
    if not isinstance(language, str) or language not in LANGUAGES:
        raise StoreError(
            Text(
                "“%(language)s” is not a language of Scorekeeper (%(languages)s).",
                language=quotable(language),
                languages=", ".join(LANGUAGES),
            ),
        )
    return language


def new_key() -> str:
    # A key starting with "-" reads as an option on a command line
    # (`scorekeeper delete KEY`), so such draws are thrown away: 143.98 bits remain.
    while (key := secrets.token_urlsafe(KEY_BYTES)).startswith("-"):
        pass
    return key


# ---------------------------------------------------------------- records


@dataclass(frozen=True)
class Table:
    id: int
    scorer_key: str
    watch_key: str
    game: str
    name: str
    settings: dict
    created: str
    updated: str
    version: int
    rematch_of: int | None
    language: str = "en"  # what its pages speak (``messages.LANGUAGES``; migration 6)

    @classmethod
    def from_row(cls, row: dict) -> Table:
        data = dict(row)
        data["settings"] = json.loads(data["settings"])
        return cls(**data)


TABLE_FIELDS = tuple(f.name for f in fields(Table))  # the columns of ``tables``, in order


@dataclass(frozen=True)
class Player:
    id: int
    seat: int
    name: str


@dataclass(frozen=True)
class Entry:
    id: int
    round: int
    kind: str
    request: dict
    result: dict
    created: str
    submission_id: str | None
    supersedes: int | None
    state: str  # "live", "voided" (undone) or "superseded" (edited)
    points: dict[int, int]  # player id → points

    @property
    def live(self) -> bool:
        return self.state == "live"


@dataclass
class Tally:
    """Sums and counts over the whole of one table's history (``Store.tally``), kept
    up to date from the rows written since it was made, so that a page of a long
    table reads what changed, not everything. Its size does not grow with the table."""

    scorer_key: str  # the table it counts (a row id alone could name a later table)
    version: int  # the table's version it was brought up to date at
    entry_id: int  # the table's last entry counted
    event_id: int  # the last event on the table's entries counted
    totals: dict[int, int]  # player id → points over live entries
    deals: int  # rounds with a live entry of a kind that is a deal
    history_rows: int  # entries the history shows (all but the edited-away ones)
    kinds: set[str]  # kinds of the table's entries, whatever their state

    def count(self, state: str, points: dict[int, int], sign: int) -> int:
        """Add (``sign`` 1) or take away (-1) one entry in ``state``; returns how many
        live entries that adds to its round (1, -1 or 0)."""
        if state != "superseded":
            self.history_rows += sign
        if state != "live":
            return 0
        for pid, pts in points.items():
            self.totals[pid] = self.totals.get(pid, 0) + sign * pts
        return sign


TALLIES_PER_STORE = 32


SPENT_TAP_IDS = 500  # ids of taps undone and no longer redoable, kept against late retries


def spent_taps(data: dict) -> list[str]:
    """A log's spent tap ids once the taps it holds undone can no longer be redone (a
    new tap, or taps put after them): their ids stay spent, so a late retry of one is
    still not applied (the latest ``SPENT_TAP_IDS``)."""
    spent = [*data.get("spent", []), *(t.get("id") for t in data["undone"])]
    return spent[-SPENT_TAP_IDS:]


@dataclass(frozen=True)
class TapLog:
    """A draft's tap log as read or just written: its data (None: no deal begun), its
    version, the table's version, and whether this call changed it (False: a retry)."""

    data: dict | None
    version: int
    table_version: int
    changed: bool
    # while no deal is begun: the tap ids of the log last closed into an entry (a retry
    # of one is not a tap of the next deal)
    closed_ids: tuple[str, ...] = ()

    @property
    def editing(self) -> bool:
        """The log reopens a saved entry (an Edit), rather than a deal being played."""
        return bool(self.data and (self.data.get("context") or {}).get("supersedes") is not None)
