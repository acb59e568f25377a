"""This thread's store of the app's database, a table found by its link, and the
submission ids forms carry: what every view reads before anything else."""

from __future__ import annotations

import threading
from collections import OrderedDict

from flask import abort, current_app, g, has_request_context

from .. import i18n, store
from ..games import catalog
from ..i18n import gettext as _
from ..store import new_submission_id as new_submission_id

# One connection per server thread and database, kept between requests: opening
# SQLite and setting its pragmas on every request would cost more than most pages.
_thread_stores = threading.local()
STORES_PER_THREAD = 4


def get_store() -> store.Store:
    found = store_for(current_app.config)
    if has_request_context():
        # a request's reads are kept for that request alone (``Store.begin_memo``)
        begun = g.setdefault("_memo_stores", set())
        if id(found) not in begun:
            begun.add(id(found))
            found.begin_memo()
    return found


def store_for(config) -> store.Store:
    """This thread's store of the app's database (``get_store`` outside a request)."""
    path = config["DATABASE"]
    stores: OrderedDict[str, store.Store] = getattr(_thread_stores, "stores", None) or OrderedDict()
    _thread_stores.stores = stores
    found = stores.get(path)
    if found is None:
        synchronous = config["SQLITE_SYNCHRONOUS"]
        # never made here (create=False): the app made it at start, so a missing file
        # was removed or moved, which is refused (503), not answered from an empty one
        found = stores[path] = store.Store(
            store.connect(path, synchronous, create=False),
            **store.caps(config),
            numbering=catalog.numbering,
            round_slot=catalog.round_slot,
        )
        found.file = path
        while len(stores) > STORES_PER_THREAD:  # tests open many databases in one thread
            stores.popitem(last=False)[1].close()
    stores.move_to_end(path)
    if not has_request_context():
        found.end_memo()  # outside a request (a command, a test) every read is made
    # never carry a half-done write into a new request; but one asked for by code that a
    # write of this request runs (a screen's callback) gets the write as it is, open
    if found.db.conn.in_transaction and not store.writing(found.db):
        found.db.conn.execute("ROLLBACK")
    return found


def load(key: str, write: bool = False) -> tuple[store.Table, str]:
    try:
        table, access = get_store().table_by_key(key)
    except store.NotFound:
        abort(404)
    i18n.table_loaded(table)
    if write and access != "score":
        abort(
            403, description=_("This is the watch link: it shows the table but cannot change it.")
        )
    return table, access
