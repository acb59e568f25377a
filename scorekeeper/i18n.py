"""The language a page speaks, and its catalogue looked up once per request.

Six languages (:data:`messages.LANGUAGES`), each a catalogue in
``translations/<dir>/LC_MESSAGES/messages.mo`` (``sr_Latn`` for ``sr-Latn``),
compiled from the ``.po`` files by the project's setup (``make``, the wheel's build).

A request speaks, first found: ``?lang=`` (a shared link or a printed code), the
phone's own choice (the ``lang`` cookie, set by the language switch), the table's
language, the phone's ``Accept-Language``, English. A ``?lang=`` stays with every
link and form the page makes, and with the page's own htmx requests.

Flask-Babel formats dates and numbers by that locale. Its own ``gettext`` looks the
locale and catalogue up again on every call, which on a page with eighty strings
costs more than the rest of the page; here the catalogue is kept on ``g``.
"""

from __future__ import annotations

import contextvars
import functools
import io
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import flask_babel
from babel.support import NullTranslations, Translations
from flask import Flask, g, has_request_context, request
from jinja2 import pass_context
from markupsafe import Markup

from . import messages
from .messages import LANGUAGES
from .messages import gettext as gettext  # the web layer's _(): the request's catalogue
from .messages import ngettext as ngettext

DIRECTORY = Path(__file__).parent / "translations"
COOKIE = "lang"
DEFAULT = "en"

# The names each language is offered under, in itself (never translated).
NAMES = {
    "en": "English",
    "sr-Latn": "Srpski (latinica)",
    "sr-Cyrl": "Српски (ћирилица)",
    "pl": "Polski",
    "lt": "Lietuvių",
    "sk": "Slovenčina",
}

# The language button's short name, in the language's own script: the two Serbian
# scripts told apart at a glance
CODES = {"en": "EN", "sr-Latn": "SR", "sr-Cyrl": "СР", "pl": "PL", "lt": "LT", "sk": "SK"}

# Accept-Language tags that are read best in one of ours: Serbian's close neighbours
# read Serbian Latin; Czech readers read Slovak. (Serbian itself: see best_match.)
_NEIGHBOURS = {
    "sh": "sr-Latn",
    "hr": "sr-Latn",
    "bs": "sr-Latn",
    "me": "sr-Latn",
    "cnr": "sr-Latn",
    "cs": "sk",
}
_CASEFOLDED = {tag.casefold(): tag for tag in LANGUAGES}

_cli_catalogue: contextvars.ContextVar = contextvars.ContextVar("catalogue", default=None)


def directory_name(language: str) -> str:
    return language.replace("-", "_")


def known(value: object) -> str | None:
    """One of ours, written any case (``sr-latn``, ``sr_Latn``), or None."""
    if not isinstance(value, str) or len(value) > 16:
        return None
    return _CASEFOLDED.get(value.replace("_", "-").casefold())


def best_match(header_languages) -> str | None:
    """Ours that a phone asks for first (``werkzeug``'s parsed Accept-Language)."""
    for tag, _quality in header_languages:
        found = known(tag)
        if found:
            return found
        primary, *subtags = tag.replace("_", "-").casefold().split("-")
        if primary == "sr":
            # written in Latin, or in Montenegro; else Cyrillic, Serbian's CLDR default
            return "sr-Latn" if {"latn", "me"} & set(subtags) else "sr-Cyrl"
        found = known(primary) or _NEIGHBOURS.get(primary)
        if found:
            return found
    return None


@functools.cache
def catalogue_for(language: str) -> NullTranslations:
    """The compiled catalogue of a language (English and a missing file: none)."""
    if language == DEFAULT or language not in LANGUAGES:
        return NullTranslations()
    folder = DIRECTORY / directory_name(language) / "LC_MESSAGES"
    po, mo = folder / "messages.po", folder / "messages.mo"
    if po.exists() and (not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime):
        return _compiled_now(po)  # a catalogue edited since it was compiled
    return Translations.load(str(DIRECTORY), [directory_name(language)], "messages")


def _compiled_now(po: Path) -> Translations:
    """A catalogue not compiled yet, or changed since (a source tree before ``make``):
    compiled in memory."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as fp:
        catalog = read_po(fp)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return Translations(buffer, domain="messages")


def _url_language() -> str | None:
    found = known(request.args.get("lang"))
    if found:
        return found
    current = request.headers.get("HX-Current-URL")
    if current and len(current) < 4096:
        values = parse_qs(urlsplit(current).query).get("lang")
        return known(values[0]) if values else None
    return None


def _public_request_globals():
    """This request's ``g``, or None outside a request."""
    return g._get_current_object() if has_request_context() else None


try:  # what has_request_context() and g read, without their proxies (Flask 3.0 and 3.1)
    from flask.globals import _cv_app, _cv_request

    def _request_globals():
        return _cv_app.get().g if _cv_request.get(None) is not None else None

except ImportError:  # another Flask: the public way, a little slower
    _request_globals = _public_request_globals


def current_language() -> str:
    """The language of this request (see the module's docstring), decided once."""
    kept = _request_globals()
    if kept is None:
        return DEFAULT
    found = getattr(kept, "_language", None)
    if found is None:
        g._url_language = _url_language()
        found = (
            g._url_language
            or known(request.cookies.get(COOKIE))
            or g.get("_table_language")
            or best_match(request.accept_languages)
            or DEFAULT
        )
        g._language = found
    return found


def cache_key() -> tuple[str, str | None]:
    """What a page rendered for this request depends on: its language, and whether
    its links carry ``?lang=``."""
    return current_language(), g.get("_url_language")


def table_loaded(table) -> None:
    """The request is about this table: it speaks the table's language, unless the
    link or the phone says otherwise. Called where the web layer reads the table."""
    if has_request_context() and "_language" not in g:
        g._table_language = table.language


def translations() -> NullTranslations:
    # called for every sentence an answer says (a hundred or more): the request's
    # ``g`` read once, not through the proxies
    kept = _request_globals()
    if kept is None:
        return _cli_catalogue.get() or NullTranslations()
    found = getattr(kept, "_translations", None)
    if found is None:
        found = kept._translations = catalogue_for(current_language())
    return found


def speak(language: str | None):
    """For the CLI and renderers outside a request: the language to speak from now
    in this context (``None``: English). Returns a token for :func:`stop_speaking`."""
    return _cli_catalogue.set(catalogue_for(known(language) or DEFAULT))


def stop_speaking(token) -> None:
    _cli_catalogue.reset(token)


def _select_locale() -> str:
    return directory_name(current_language())  # Babel names the locale as its folder


def _keep_url_language(endpoint: str, values: dict) -> None:
    # a page opened with ?lang= makes its links and forms speak it too
    if endpoint != "static" and "lang" not in values and has_request_context():
        chosen = g.get("_url_language")
        if chosen:
            values["lang"] = chosen


@functools.lru_cache(maxsize=4096)
def _markup(catalogue: NullTranslations, msgid: str) -> Markup:
    """A sentence without variables in a catalogue, as an HTML template writes it."""
    return Markup(catalogue.ugettext(msgid)) % {}


@pass_context
def _template_gettext(context, msgid: str, **variables) -> str:
    """Templates' ``_()`` and ``gettext()``, as Jinja's newstyle gettext (the
    translation is a format string of the variables, escaped in an HTML template)."""
    if not context.eval_ctx.autoescape:
        return translations().ugettext(msgid) % variables
    if not variables:
        return _markup(translations(), msgid)
    return Markup(translations().ugettext(msgid)) % variables


@pass_context
def _template_ngettext(context, singular: str, plural: str, num: int, **variables) -> str:
    """Templates' ``ngettext()``, as Jinja's newstyle ngettext (``num`` a variable)."""
    variables.setdefault("num", num)
    text = translations().ungettext(singular, plural, num)
    return (Markup(text) if context.eval_ctx.autoescape else text) % variables


def install(app: Flask, babel: flask_babel.Babel) -> None:
    """Choose the locale per request, and let templates and the engines' sentences
    use the request's catalogue."""
    babel.init_app(app, locale_selector=_select_locale)
    messages.use(translations)
    app.url_defaults(_keep_url_language)
    app.jinja_env.install_gettext_callables(
        gettext=lambda s: translations().ugettext(s),
        ngettext=lambda s, p, n: translations().ungettext(s, p, n),
        newstyle=True,
        pgettext=lambda c, s: translations().upgettext(c, s),
        npgettext=lambda c, s, p, n: translations().unpgettext(c, s, p, n),
    )
    # the same as Jinja's newstyle gettext and ngettext, in one call instead of three
    # (a game panel says a hundred sentences on every tap's answer)
    app.jinja_env.globals.update(_=_template_gettext, gettext=_template_gettext)
    app.jinja_env.globals["ngettext"] = _template_ngettext

    @app.context_processor
    def language_context() -> dict:
        return {
            "html_lang": current_language(),
            "language_code": CODES[current_language()],
            "languages": NAMES,
        }
