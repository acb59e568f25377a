"""Translated strings, with the request's catalogue looked up once per request.

Flask-Babel picks the locale and loads the catalogues. Its own ``gettext`` looks
both up again on every call, which on a page with eighty strings costs more than
the rest of the page; here the catalogue is kept on ``g`` for the request.
"""

from __future__ import annotations

import flask_babel
from flask import Flask, g, has_app_context


def translations():
    if not has_app_context():
        return flask_babel.get_translations()
    found = g.get("_translations")
    if found is None:
        found = g._translations = flask_babel.get_translations()
    return found


def gettext(string: str, **variables) -> str:
    text = translations().ugettext(string)
    return text % variables if variables else text


def ngettext(singular: str, plural: str, num: int, **variables) -> str:
    variables.setdefault("num", num)
    return translations().ungettext(singular, plural, num) % variables


def install(app: Flask) -> None:
    """Templates use the same per-request catalogue (after ``Babel.init_app``)."""
    app.jinja_env.install_gettext_callables(
        gettext=lambda s: translations().ugettext(s),
        ngettext=lambda s, p, n: translations().ungettext(s, p, n),
        newstyle=True,
        pgettext=lambda c, s: translations().upgettext(c, s),
        npgettext=lambda c, s, p, n: translations().unpgettext(c, s, p, n),
    )
