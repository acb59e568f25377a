"""The table page's board, as every view answers with it: its context, rendered once
per table version for every phone (``render_board``), the poll's fragments
(``live_fragments``), and the answer to a write (``after_write``)."""

from __future__ import annotations

import functools
import re
import secrets
import threading
from collections import OrderedDict

from flask import Response, current_app, make_response, render_template, request, url_for

from .. import i18n, store
from ..extensions import csrf, htmx
from ..history import chart_of, history_details
from ..summary import summarize
from ..views.fragments import marking_parts, with_holes
from .db import get_store, new_submission_id
from .game_screens import add_history_lines, panel

HISTORY_SHOWN = 20  # rounds on the table page
PART_KEY = re.compile(r"[0-9a-f]{16}")
MAX_PARTS = 256  # the kept parts a panel can have, with room to spare


def parts_shown() -> frozenset:
    """The keys of the kept parts of the panel the phone that asked shows (``have``,
    sent by static/app.js with its taps and polls)."""
    keys = request.values.get("have", "")[: MAX_PARTS * 17].split()
    return frozenset(k for k in keys if PART_KEY.fullmatch(k))


def wants_partial() -> bool:
    return bool(htmx) and not htmx.boosted


def table_url(table: store.Table, access: str = "score") -> str:
    key = table.scorer_key if access == "score" else table.watch_key
    return url_for("tables.table_page", key=key)


@functools.lru_cache(maxsize=256)
def qr_svg(url: str) -> str:
    import segno

    return segno.make(url, error="m").svg_inline(scale=4, border=2, dark="#111", light="#fff")


def table_context(table: store.Table, access: str, **extra) -> dict:
    """Everything the table page shows, computed from the stored history."""
    s = get_store()
    summary = summarize(s, table, HISTORY_SHOWN)
    base = request.host_url.rstrip("/")
    ctx = {
        "table": table,
        "game": summary.game,
        "access": access,
        "can_write": access == "score",
        "players": summary.players,
        "totals": summary.totals,
        "standings": summary.standings,
        # the page shows the latest rounds, so it costs the same at round 5 or 5,000
        "history": summary.history,
        "history_hidden": summary.history_hidden,
        "has_entries": bool(summary.entries),
        "next_round": s.next_round(table.id),
        "version": table.version,
        "scorer_url": base + url_for("tables.table_page", key=table.scorer_key),
        "watch_url": base + url_for("tables.table_page", key=table.watch_key),
        "submission_id": new_submission_id(),
        "pad": None,
        "pad_errors": {},
        "message": None,
        "error": None,
    }
    ctx["screen"] = panel(table, summary, access)
    with_details(ctx, summary.history_hidden > 0)
    ctx.update(extra)
    return ctx


def with_details(ctx: dict, earlier: bool, later: dict | None = None) -> None:
    """The history's breakdowns and running totals, and the chart of the rounds it
    shows (no more: a long table's page reads only its latest rows). ``earlier``:
    older rows exist beyond those shown; ``later``: what newer live entries add."""
    details = history_details(
        ctx["history"], ctx["players"], ctx["totals"], later, table_key=ctx["table"].scorer_key
    )
    ctx["history_details"] = details
    add_history_lines(ctx["table"], ctx["history"], details)
    ctx["chart"] = chart_of(
        ctx["history"], details, ctx["players"], earlier=earlier, newest=later is None
    )


# Rendered pages are cached per table version: a phone's poll, a reload or a
# second phone costs a dictionary lookup. What differs per request (the session's
# CSRF token, fresh submission ids, a one-off message) is filled into the cached
# HTML through placeholders. Their names are drawn anew in every process, so no
# name a player types can be one (a player called after a fixed mark would be
# shown as the viewer's token); the flash mark cannot survive HTML escaping.
_MARK = secrets.token_hex(8)
CSRF_MARK = f"__csrf_{_MARK}__"
SUBMISSION_MARK = f"__submission_{_MARK}__"
FLASH_MARK = "<!--flash-->"
MARKS = re.compile(f"({re.escape(CSRF_MARK)}|{re.escape(SUBMISSION_MARK)}|{re.escape(FLASH_MARK)})")
_rendered: OrderedDict[tuple, list[str]] = OrderedDict()
_rendered_lock = threading.Lock()
RENDER_CACHE_SIZE = 512


def _render_cached(table: store.Table, access: str, variant: str, render) -> list[str]:
    """The template ``variant`` for this table version, split at its placeholders: text
    and marks alternate, so filling it in is one join, not a scan of the whole page
    per mark. ``render(**placeholders)`` makes it with the marks in the context."""
    # the table's key too: a row id and version name a table's state only as long as
    # the database is the same file (a restored or replaced one numbers tables anew)
    key = (
        current_app.config["DATABASE"],
        table.id,
        table.scorer_key,
        table.version,
        access,
        variant,
        request.host_url,
        i18n.cache_key(),
    )
    with _rendered_lock:
        parts = _rendered.get(key)
        if parts is not None:
            _rendered.move_to_end(key)
            return parts
    parts = MARKS.split(
        render(csrf_token=lambda: CSRF_MARK, submission_id=SUBMISSION_MARK, flash_mark=FLASH_MARK)
    )
    with _rendered_lock:
        _rendered[key] = parts
        while len(_rendered) > RENDER_CACHE_SIZE:
            _rendered.popitem(last=False)
    return parts


def _flash_html(message: str | None, error: str | None) -> str:
    if not (message or error):
        return ""
    return render_template("partials/flash.html", message=message, error=error)


def _fill(parts: list[str], message: str | None = None, error: str | None = None) -> str:
    """A cached page with this request's CSRF token, a fresh submission id and
    its one-off message."""
    fill = {
        CSRF_MARK: csrf.signed_token(),
        SUBMISSION_MARK: new_submission_id(),
        FLASH_MARK: _flash_html(message, error),
    }
    return "".join([fill[part] if i % 2 else part for i, part in enumerate(parts)])


def render_board(
    table: store.Table,
    access: str,
    status: int = 200,
    message: str | None = None,
    error: str | None = None,
    *,
    fresh: bool = False,
    **extra,
):
    """The board fragment for htmx, the whole page otherwise. ``fresh``: the table was
    just read, so its version is current; otherwise it is read again (after a write)."""
    if not fresh:
        table = get_store().table(table.id)
    partial = wants_partial()
    template = "tables/_board_answer.html" if partial else "tables/table.html"

    def render(**ctx_extra) -> str:
        ctx = table_context(table, access, **ctx_extra)
        if not partial:
            ctx["scorer_qr"] = qr_svg(ctx["scorer_url"]) if access == "score" else None
            ctx["watch_qr"] = qr_svg(ctx["watch_url"])
        return render_template(template, **ctx)

    if extra:  # a pad with the player's typing or field errors: render as it is
        html = render(message=message, error=error, **extra)
        return make_response(html, status)
    parts = _render_cached(table, access, template, render)
    return make_response(_fill(parts, message, error), status)


def see_other(location: str) -> Response:
    """The answer to a form post that changed something: go (back) to ``location``.
    No body: a browser follows a 303 at once, and werkzeug's "Redirecting..." page
    costs more to build than the rest of the answer."""
    return Response(status=303, headers={"Location": location})


def after_write(table: store.Table, access: str = "score", **extra):
    """The board for htmx, else a redirect to the table page (which shows no
    message: a ``message`` given as a function is then never made)."""
    if wants_partial():
        if callable(extra.get("message")):
            extra["message"] = extra["message"]()
        return render_board(table, access, **extra)
    return see_other(table_url(table))


LIVE_TEMPLATE = "tables/_live.html"


def live_fragments(
    table: store.Table,
    access: str,
    status: int = 200,
    *,
    fresh: bool = False,
    **extra,
):
    """Everything the poll refreshes, out of band and at one table version: the
    standings, the history, the screen's panel and the poll's marker. The poll's answer,
    and a game screen's answer to a tap: out of band, each fragment lands on what the
    page shows when the answer arrives. (A tap answered into the panel it was sent from
    would land nowhere if the poll had redrawn that panel meanwhile, while the marker
    told the poll this phone was up to date.)

    ``fresh``: the table was just read; otherwise it is read again, before what it shows.
    ``extra``: what this answer shows to this phone alone (a refused tap's message).
    Without it the fragments are rendered once per version for every phone at the table."""
    if not fresh:
        table = get_store().table(table.id)
    have = parts_shown()  # the kept parts the phone shows: holes (fragments.with_holes)
    if not extra:

        def render(**marks) -> str:
            with marking_parts():
                return render_template(LIVE_TEMPLATE, **table_context(table, access, **marks))

        parts = _render_cached(table, access, LIVE_TEMPLATE, render)
        return make_response(with_holes(_fill(parts), have), status)
    # drawn with the marks as the shared answer is, so that the blocks drawn once for it
    # (the history's rows) serve this one too, then filled in
    marks = {"csrf_token": lambda: CSRF_MARK, "submission_id": SUBMISSION_MARK}
    with marking_parts():  # the panel's view is drawn with the context, before the template
        ctx = table_context(table, access, **marks, **extra)
        html = _fill(MARKS.split(render_template(LIVE_TEMPLATE, **ctx)))
    return make_response(with_holes(html, have), status)
