"""The language switch: a phone's own language (a cookie), and a table's language."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit

from flask import Blueprint, Response, abort, request, url_for

from .. import i18n, store
from ..i18n import gettext as _
from .board import see_other, table_url
from .db import get_store, load

bp = Blueprint("language", __name__)

COOKIE_AGE = 400 * 24 * 3600  # the longest a browser keeps a cookie


def back_to(raw: str | None) -> str:
    """Where the switch was tapped: a path of this site (never another site), without
    the ``lang`` of its query (the choice just made replaces it)."""
    if not raw or len(raw) > 2048 or raw.startswith("//") or "\\" in raw:
        return url_for("tables.home")
    parts = urlsplit(raw)
    if parts.scheme or parts.netloc or not parts.path.startswith("/"):
        return url_for("tables.home")
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "lang"]
    return parts.path + ("?" + urlencode(query) if query else "")


def _chosen(allow_none: bool) -> str | None:
    raw = request.form.get("language", "")
    language = i18n.known(raw)
    if language is None and (raw or not allow_none):
        abort(400, description=_("Choose one of the languages offered."))
    return language


def client_words() -> dict[str, str]:
    """The words the page's script shows (static/app.js), in the page's language."""
    return {
        "copied": _("Copied"),
        "watching": _("watching"),
        "finished": _("Finished"),
        "won": _("Finished · won by %(names)s"),
        "leads": _("In play · %(name)s leads (%(points)s)"),
        "in_play": _("In play"),
        "started": _("started %(when)s"),
        "seen": _("seen %(when)s"),
        "awake_video": _("Screen kept awake (video)"),
        "awake_tap": _("Tap anywhere to keep the screen awake"),
        "awake": _("Screen kept awake"),
    }


@bp.app_context_processor
def _words() -> dict:
    return {"client_words": client_words}


@bp.post("/language")
def choose():
    """This phone speaks ``language`` from now on, on every table; an empty choice
    goes back to following the table (and, off a table, the phone's own settings)."""
    language = _chosen(allow_none=True)
    response = Response(status=303, headers={"Location": back_to(request.form.get("next"))})
    if language:
        response.set_cookie(i18n.COOKIE, language, max_age=COOKIE_AGE, samesite="Lax")
    else:
        response.delete_cookie(i18n.COOKIE, samesite="Lax")
    return response


@bp.post("/t/<key>/language")
def table_language(key: str):
    """The table speaks ``language`` on every phone that has not chosen its own."""
    table, _access = load(key, write=True)
    language = _chosen(allow_none=False)
    get_store().set_language(table.id, language, submission_id=_per_choice(language))
    return see_other(table_url(table))


def _per_choice(language: str) -> str | None:
    """The form's submission id, one for each language: its buttons share the form's one
    id, and a second language tapped before the page came back is a choice of its own,
    not a retry of the first."""
    sent = request.form.get("submission_id") or None
    if sent is None:
        return None
    suffix = f"-{language}"
    return sent[: store.MAX_SUBMISSION_ID - len(suffix)] + suffix
