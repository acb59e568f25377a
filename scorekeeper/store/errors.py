"""What the store refuses, and why the database could not be used."""

from __future__ import annotations

import sqlite3

from ..messages import N_, Told, gettext


class StoreError(Told, Exception):
    """A write the store refuses. Its sentence is for the player: an English msgid with
    named variables (``messages.Text``), read in the language of whoever shows it
    (``message``); ``str()`` of the error is the English.

    >>> err = StoreError("“%(name)s” is already playing at this table.", name="Ana")
    >>> err.message, err.msgid
    ('“Ana” is already playing at this table.', '“%(name)s” is already playing at this table.')
    """


class NotFound(StoreError):
    pass


class Conflict(StoreError):
    """The write was based on a view that another phone has changed meanwhile."""


class DraftChanged(Conflict):
    """The entry was worked out from a draft that another phone's tap changed meanwhile."""


class RoundAhead(StoreError):
    """An entry for a round beyond the table's next one: the rounds between would be
    missing from the history."""


class TooMany(StoreError):
    """A write past a cap: entries per table or tables per database."""


class ReusedSubmission(StoreError):
    """A submission id already used by another kind of write: not a retry of this one."""


class Unchanged(Exception):
    """Raised inside a tap-log write (by the store, or by a ``check``): the change is
    already made (a retry, a tap that is already so); nothing is written."""


class Replayed(Exception):
    """Raised inside ``Store.write`` when the submission id was already processed."""

    def __init__(self, outcome: dict):
        super().__init__("replayed submission")
        self.outcome = outcome


# Why SQLite could not do its work when the cause is the machine, not the request:
# its primary result codes (an extended code keeps its primary one in the low byte).
_BUSY = N_(
    "The database was kept busy by another program for too long, so nothing was saved. "
    "Try again in a moment."
)
_UNAVAILABLE = {
    sqlite3.SQLITE_FULL: N_(
        "The disk of the computer running Scorekeeper is full, so nothing was saved. "
        "Free some space on it, then try again."
    ),
    sqlite3.SQLITE_READONLY: N_(
        "Scorekeeper may not write its database (the file or its folder is read-only), "
        "so nothing was saved."
    ),
    sqlite3.SQLITE_CANTOPEN: N_(
        "Scorekeeper cannot open its database files (a folder that is read-only or was "
        "moved), so nothing was saved."
    ),
    sqlite3.SQLITE_IOERR: N_(
        "The computer running Scorekeeper could not read or write its disk, so nothing "
        "was saved. Try again; if it keeps happening, check that disk."
    ),
    sqlite3.SQLITE_BUSY: _BUSY,
    sqlite3.SQLITE_LOCKED: _BUSY,
}


class Unavailable(Told, Exception):
    """The database cannot be used for a reason outside the request (its lock file
    or folder is gone or read-only); the message is for the player (a msgid, as
    ``StoreError``'s)."""


class DatabaseGone(Unavailable):
    """The database's path no longer names the file this connection writes: it was
    removed, moved or replaced while the app ran, so what is written now is lost at
    the next start."""


_DATABASE_GONE = N_(
    "The database file of Scorekeeper was removed, moved or replaced while it was "
    "running, so changes made now would be lost: this one was not kept. Put the file "
    "back (or restore a backup), then restart Scorekeeper."
)
_LOCK_FAILED = N_(
    "Scorekeeper cannot open the lock file beside its database (%(reason)s), so nothing "
    "was saved. Check that its folder is still there and may be written."
)


class FlushFailed(Exception):
    """A write was committed, but the disk refused to flush it (``transaction``): it
    is in the database, yet might not survive a power cut."""


_FLUSH_FAILED = N_(
    "This was saved, but the disk of the computer running Scorekeeper reported an error "
    "while making it safe, so it may not survive a power cut. Check that disk."
)


def unavailable(exc: BaseException) -> str | None:
    """What to tell a player when the database failed for a reason outside the app
    (a full disk, a read-only file, a failing disk, another program holding it), or
    None when the failure is of another kind. A write that fails so is rolled back
    whole (``transaction``), except when only its flush failed (``FlushFailed``)."""
    if isinstance(exc, FlushFailed):
        return gettext(_FLUSH_FAILED)
    if isinstance(exc, Unavailable):
        return exc.message
    code = getattr(exc, "sqlite_errorcode", None)
    reason = _UNAVAILABLE.get(code & 0xFF) if isinstance(code, int) else None
    return gettext(reason) if reason else None
