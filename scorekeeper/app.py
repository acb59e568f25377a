"""The Flask application factory."""

from __future__ import annotations

import copy
import os
import re
import secrets
import time
from collections import OrderedDict
from datetime import timedelta
from pathlib import Path
from urllib.parse import parse_qsl

import flask
from flask import Flask, render_template, request
from flask.sessions import SecureCookieSessionInterface
from flask_babel import format_timedelta
from flask_wtf.csrf import CSRFError
from limits import parse_many
from werkzeug.datastructures import ImmutableMultiDict
from werkzeug.exceptions import BadRequest
from werkzeug.routing import IntegerConverter

from . import i18n, store
from .extensions import COMPRESSION, babel, compress, csrf, htmx, limit_table_creation
from .i18n import gettext as _
from .resources import PACKAGE_DIR, resource_dir


class FormData(ImmutableMultiDict):
    """A request's fields. ``get`` of a field that was not sent returns the default
    straight away: werkzeug's raises and catches an HTTP exception for each miss,
    and the score pad asks for several optional fields on every tap."""

    def get(self, key, default=None, type=None):  # noqa: A002 (werkzeug's signature)
        if key not in self:
            return default
        return super().get(key, default, type)


class Request(flask.Request):
    """Flask's request, with a short path for the body every form of the app sends.

    A url-encoded body of known length is read whole (werkzeug's stream still
    refuses one over ``MAX_CONTENT_LENGTH``) and split by ``parse_qsl`` exactly as
    werkzeug's form parser does, without building the parser around it, which
    costs more than the parsing. Any other body goes through werkzeug unchanged."""

    parameter_storage_class = FormData

    def _load_form_data(self) -> None:
        if "form" in self.__dict__:
            return
        if self.mimetype != "application/x-www-form-urlencoded" or self.content_length is None:
            super()._load_form_data()
            return
        data = self.get_data()  # kept, so the body can still be read after the form
        try:
            fields = parse_qsl(data.decode(), keep_blank_values=True, errors="werkzeug.url_quote")
        except ValueError:  # not UTF-8: werkzeug's parser gives an empty form too
            fields = []
        self.__dict__["form"] = self.parameter_storage_class(fields)
        self.__dict__["files"] = self.parameter_storage_class()


class RowIdConverter(IntegerConverter):
    """A row id in a URL (``<rowid:entry_id>``): a whole number SQLite can hold. A
    longer one cannot name anything, so it is a 404 before any query sees it."""

    def __init__(self, url_map):
        super().__init__(url_map, min=1, max=store.MAX_ROWID)


CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "media-src 'self' blob: data:",
        "connect-src 'self'",
        "font-src 'self'",
        "manifest-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


# every response carries these, unless its view set its own
SECURITY_HEADERS = (
    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),  # a table link is a secret
    ("X-Frame-Options", "DENY"),
)


def _secret_key(instance: Path) -> str:
    """Generated once and kept in the instance folder, so sessions and CSRF
    tokens survive a restart."""
    path = instance / "secret_key"
    if path.exists():
        return path.read_text().strip()
    key = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(key)
    return key


def _copied(data: dict) -> dict:
    """A copy nothing done to the session can change: a plain one when every value
    is immutable (the usual case: only the CSRF value), else a deep one."""
    if all(isinstance(v, str | int | float | bool | None) for v in data.values()):
        return dict(data)
    return copy.deepcopy(data)


class SessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie session, made cheap for the phone that polls every second.

    Its serializer is built once per secret key instead of on every request, and a
    cookie already checked is not checked again for a while: verifying the
    signature costs more than answering the poll itself."""

    CHECKED_COOKIES = 4096
    RECHECK_AFTER_S = 3600.0  # far below the cookie's own lifetime (31 days)

    def __init__(self):
        self._serializer: tuple | None = None
        self._checked: OrderedDict[str, tuple[dict, float, tuple]] = OrderedDict()

    @staticmethod
    def _keys(app: Flask) -> tuple:
        return (app.secret_key, tuple(app.config.get("SECRET_KEY_FALLBACKS") or ()))

    def get_signing_serializer(self, app: Flask):
        keys = self._keys(app)
        cached = self._serializer
        if cached is None or cached[0] != keys:
            cached = self._serializer = (keys, super().get_signing_serializer(app))
        return cached[1]

    def open_session(self, app: Flask, request):
        cookie = request.cookies.get(self.get_cookie_name(app))
        if cookie:
            found = self._checked.get(cookie)
            if (
                found is not None
                and found[2] == self._keys(app)
                and time.monotonic() - found[1] < self.RECHECK_AFTER_S
            ):
                return self.session_class(_copied(found[0]))
        session = super().open_session(app, request)
        if cookie and session:  # a valid cookie with something in it
            self._checked[cookie] = (_copied(dict(session)), time.monotonic(), self._keys(app))
            while len(self._checked) > self.CHECKED_COOKIES:
                self._checked.popitem(last=False)
        return session


FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")

# the views that start a table, limited per client address
# a request about one table: /t/<its scorer or watch key>/...
TABLE_PATH = re.compile(r"/t/([A-Za-z0-9_-]+)(?:/|$)")
TABLE_CREATING_VIEWS = ("tables.create_table", "tables.rematch")


def limit_in_words(limit: str) -> str:
    """A rate limit as the settings write it (``10 per minute; 100 per day``) in the
    page's language: how many in how long, each ("10 in 1 minute, 100 in 1 day")."""
    return ", ".join(
        # Translators: a limit of new tables: how many may be started in how long
        _("%(count)d in %(span)s", count=item.amount, span=format_timedelta(span))
        for item in parse_many(limit)
        for span in [timedelta(seconds=item.get_expiry())]
    )


_DICT_ATTRIBUTES = frozenset(dir(dict))


class TemplateEnvironment(flask.templating.Environment):
    """Flask's Jinja environment, reading ``view.name`` of a plain dict (what the views
    hand the templates) as Jinja does, without the failed attribute lookup it makes
    first: a name no dict attribute has is the dict's item, or else undefined, either
    way. The exception that lookup raises cost more than the rest of the read, a few
    hundred times per answer."""

    def getattr(self, obj, attribute):
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


class App(Flask):
    jinja_environment = TemplateEnvironment


def create_app(test_config: dict | None = None, *, database: str | None = None) -> Flask:
    """The app. ``test_config``: these settings alone (over the defaults), nothing read
    from ``instance/config.py`` or the environment; else those are read. ``database``:
    the SQLite file, over every other setting (``--db`` of the commands), so that a
    server started on a file of its own still takes its settings from the environment."""
    app = App(
        "scorekeeper",
        instance_relative_config=True,
        template_folder=str(resource_dir("templates")),
        static_folder=str(resource_dir("static")),
        root_path=str(PACKAGE_DIR),
    )
    instance = Path(app.instance_path)
    instance.mkdir(parents=True, exist_ok=True)
    app.config.from_mapping(
        DATABASE=str(instance / "scorekeeper.sqlite"),
        MAX_CONTENT_LENGTH=256 * 1024,
        WTF_CSRF_TIME_LIMIT=None,  # a table page stays open for a whole evening
        WTF_CSRF_SSL_STRICT=False,  # plain http on the LAN has no Referer to check
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        BABEL_DEFAULT_LOCALE="en",
        POLL_INTERVAL_MS=1000,
        SQLITE_SYNCHRONOUS="FULL",  # see store.connect: FULL survives a power cut
        # tables one address may start (the home page's form or a rematch), in the
        # notation of the limits library; a table on a night needs a few
        CREATE_RATE_LIMIT="10 per minute; 100 per day",
        RATELIMIT_STORAGE_URI="memory://",  # per worker process (see create_app)
        RATELIMIT_KEY_PREFIX="scorekeeper",
        JSON_SORT_KEYS=False,
        **COMPRESSION,
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
        app.config.from_prefixed_env("SCOREKEEPER")  # e.g. SCOREKEEPER_SQLITE_SYNCHRONOUS
    else:
        app.config.from_mapping(test_config)
    if database:
        app.config["DATABASE"] = database
    app.config["SQLITE_SYNCHRONOUS"] = str(app.config["SQLITE_SYNCHRONOUS"]).upper()
    if app.config["SQLITE_SYNCHRONOUS"] not in store.SYNCHRONOUS_MODES:
        raise ValueError("SQLITE_SYNCHRONOUS must be FULL or NORMAL")
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(instance)
    app.json.sort_keys = False
    app.request_class = Request
    app.session_interface = SessionInterface()
    app.json.ensure_ascii = False

    # before the blueprints: their routes name it
    app.url_map.converters["rowid"] = RowIdConverter

    csrf.init_app(app)
    htmx.init_app(app)
    compress.init_app(app)
    i18n.install(app, babel)

    # create or upgrade the schema once, before the first request
    store.Store.open(app.config["DATABASE"]).close()

    from .web import api as api_views
    from .web import language as language_views
    from .web import prints as print_views
    from .web import screens
    from .web import tables as table_views

    app.register_blueprint(table_views.bp)
    limit_table_creation(app, TABLE_CREATING_VIEWS)
    app.register_blueprint(api_views.bp)
    app.register_blueprint(print_views.bp)
    app.register_blueprint(language_views.bp)
    for slug in screens.GAME_SLUGS:
        app.register_blueprint(screens.game_module(slug).bp)
    screens.register_template_helpers(app)
    csrf.exempt(api_views.bp)  # the score API stores nothing

    app.wsgi_app = table_views.UnchangedPoll(app, list(SECURITY_HEADERS))

    @app.get("/healthz")
    def healthz():
        """A bare route: liveness checks, and the floor of the load benchmark."""
        return "ok", 200, {"Content-Type": "text/plain"}

    @app.after_request
    def _security_headers(response):
        h = response.headers
        # the names present are read once: werkzeug's ``setdefault`` raises and
        # catches an exception for each absent header, which here is nearly every one
        present = {name.lower() for name in h.keys()}
        for name, value in SECURITY_HEADERS:
            if name.lower() not in present:
                h.add(name, value)
        if request.endpoint and request.endpoint != "static" and "cache-control" not in present:
            h.add("Cache-Control", "no-store")
        return response

    def _speak_the_table_s_language() -> None:
        """A request to a table refused before its view read the table (an expired
        form, a body too large, a wrong method) is answered in the table's language,
        as everything else its phones are told; a phone's own choice still comes first."""
        found = TABLE_PATH.match(request.path)
        if found is None or "_table_language" in flask.g or "_language" in flask.g:
            return
        from .web.db import get_store

        try:
            table, _access = get_store().table_by_key(found.group(1))
        except Exception:  # no such table, or a store that fails: the phone's language
            return
        i18n.table_loaded(table)

    def _error(status: int, title: str, message: str, headers: dict | None = None):
        headers = dict(headers or {})
        if request.path.startswith("/api/"):
            return {"error": {"message": message, "path": ""}}, status, headers
        if htmx:
            # into the page's message area, not what the tap meant to replace: the
            # board stays as it was, with whatever was typed, ready for another try
            headers.update({"HX-Retarget": "#flash", "HX-Reswap": "innerHTML"})
            return render_template("partials/flash.html", error=message), status, headers
        page = render_template("error.html", title=title, message=message, status=status)
        return page, status, headers

    @app.errorhandler(store.StoreError)
    def _refused(exc):
        """A write the store refused that its view does not answer itself: the
        store's own message; nothing was saved."""
        if isinstance(exc, store.NotFound):
            return _error(404, _("Not found"), exc.message)
        status = 409 if isinstance(exc, store.Conflict) else 422
        return _error(status, _("Not saved"), exc.message)

    @app.errorhandler(CSRFError)
    def _csrf_error(exc):
        _speak_the_table_s_language()
        return _error(
            400,
            _("Form expired"),
            _(
                "This form is out of date or was not sent by this app. Reload the page and try again."
            ),
        )

    @app.errorhandler(400)
    def _bad_request(exc):
        _speak_the_table_s_language()
        # a view's own reason (abort(400, description=…)), else werkzeug's generic one
        said = getattr(exc, "description", None)
        if not said or said == BadRequest.description:
            said = _("The request could not be understood.")
        return _error(400, _("Bad request"), said)

    @app.errorhandler(403)
    def _forbidden(exc):
        _speak_the_table_s_language()
        return _error(403, _("Read-only"), getattr(exc, "description", None) or _("Not allowed."))

    @app.errorhandler(404)
    def _not_found(exc):
        _speak_the_table_s_language()
        return _error(
            404, _("Not found"), _("There is nothing here. Check that the link was copied whole.")
        )

    @app.errorhandler(405)
    def _method(exc):
        _speak_the_table_s_language()
        return _error(405, _("Not allowed"), _("That action is not available here."))

    @app.errorhandler(413)
    def _too_large(exc):
        _speak_the_table_s_language()
        return _error(413, _("Too large"), _("That request is too large."))

    @app.errorhandler(429)
    def _too_many(exc):
        """Table creation's rate limit (``_limit_table_creation``)."""
        limit = app.config["CREATE_RATE_LIMIT"]
        retry = 60
        current = getattr(app.extensions.get("scorekeeper.limiter"), "current_limit", None)
        if current is not None:
            retry = max(1, int(current.reset_at - time.time()))
        return _error(
            429,
            _("Too many new tables"),
            _(
                "Too many tables were started from this device in a short while (at most "
                "%(limit)s), so no new one was. Wait a little, then try again; the tables "
                "already started are all still there.",
                limit=limit_in_words(limit),
            ),
            {"Retry-After": str(retry)},
        )

    @app.before_request
    def _refuse_malformed_submission_ids():
        """A form's submission id is kept with what it saved: one that no page of the
        app sends (too long, or not URL-safe) is refused before anything reads it."""
        if request.method != "POST" or request.mimetype not in FORM_TYPES:
            return None
        for value in request.form.getlist("submission_id"):
            if value and not store.SUBMISSION_ID_FORMAT.fullmatch(value):
                _speak_the_table_s_language()
                return _error(400, _("Bad request"), _(store.BAD_SUBMISSION_ID))
        return None

    @app.errorhandler(Exception)
    def _unexpected(exc):
        from werkzeug.exceptions import HTTPException

        if isinstance(exc, HTTPException):
            _speak_the_table_s_language()
            return _error(exc.code or 500, exc.name, exc.description or exc.name)
        if reason := store.unavailable(exc):
            # the machine's fault, not the request's: the phone may send it again
            if isinstance(exc, store.DatabaseGone):
                # every write from now on is refused: the operator must act
                app.logger.critical(
                    "THE DATABASE FILE %s IS GONE OR REPLACED: writes are refused until "
                    "it is back and the server restarted",
                    app.config["DATABASE"],
                )
            app.logger.error("database unavailable: %s", exc)
            return _error(503, _("Cannot save now"), str(reason), {"Retry-After": "5"})
        app.logger.exception("unexpected error")
        # not "nothing was saved": the failure may come after a write went through
        return _error(
            500,
            _("Something went wrong"),
            _(
                "Something went wrong on the server. Try again: "
                "a change that was already saved is never saved twice."
            ),
        )

    return app


def compile_templates(app: Flask) -> int:
    """Every template of the app compiled now, once (returns how many): a server's worker
    does this as it starts, so that no player's tap waits for the first drawing of a
    phase's template (compiling one takes 5 to 20 ms, the rest of a tap about 2)."""
    env = app.jinja_env
    names = env.list_templates(extensions=("html",))
    for name in names:
        env.get_template(name)
    return len(names)
