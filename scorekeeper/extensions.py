"""The Flask extensions the app is made with, apart from the app itself, so that a
view, a printer or a command can reach them without importing the app factory:
CSRF protection, htmx, Babel, compression, and the per-app limiter of new tables."""

from __future__ import annotations

from collections import OrderedDict

from flask import Flask, current_app, g, request, session
from flask_babel import Babel
from flask_compress import Compress
from flask_htmx import HTMX
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_wtf.csrf import CSRFProtect, generate_csrf

from .messages import quotable


class CSRFCheck(CSRFProtect):
    """flask-wtf's CSRF protection, remembering what it has signed and accepted.

    With no time limit (``WTF_CSRF_TIME_LIMIT=None``) a signed token never expires,
    and without a Referer check whether a token is good depends only on the token,
    the session's value and the key. So a session's token is signed once, and a
    token accepted once is accepted again without verifying its signature: either
    costs more than serving a cached page or the rest of a tap. Anything else goes
    through flask-wtf unchanged."""

    CACHED_TOKENS = 4096

    def __init__(self, app: Flask | None = None):
        self._signed: OrderedDict[tuple, str] = OrderedDict()
        self._accepted: OrderedDict[tuple, None] = OrderedDict()
        super().__init__(app)

    @staticmethod
    def _remember(cache: OrderedDict, key: tuple, value) -> None:
        cache[key] = value
        while len(cache) > CSRFCheck.CACHED_TOKENS:
            cache.popitem(last=False)

    @staticmethod
    def _session_key() -> tuple | None:
        """(the session's CSRF value, the signing key), when tokens never expire."""
        config = current_app.config
        if config["WTF_CSRF_TIME_LIMIT"] is not None:
            return None
        expected = session.get(config["WTF_CSRF_FIELD_NAME"])
        if not expected:
            return None
        return (expected, config.get("WTF_CSRF_SECRET_KEY") or current_app.secret_key)

    def signed_token(self) -> str:
        """This session's token as the forms carry it (flask-wtf's ``generate_csrf``)."""
        key = self._session_key()
        signed = self._signed.get(key) if key else None
        if signed is None:
            signed = generate_csrf()  # also creates the session's value when it has none
            key = self._session_key()
            if key is not None:
                self._remember(self._signed, key, signed)
        # what flask-wtf's own csrf_token() returns for the rest of this request
        setattr(g, current_app.config["WTF_CSRF_FIELD_NAME"], signed)
        return signed

    def _accepted_key(self) -> tuple | None:
        if request.is_secure and current_app.config["WTF_CSRF_SSL_STRICT"]:
            return None
        session_key = self._session_key()
        token = self._get_csrf_token()
        if session_key is None or not token:
            return None
        return (token, *session_key)

    def protect(self, apply_exemptions: bool = False):
        if request.method not in current_app.config["WTF_CSRF_METHODS"]:
            return
        # an exempt view (the score API) is let through before any token is looked for
        if apply_exemptions and (not request.endpoint or self._is_exempt()):
            return
        key = self._accepted_key()
        if key is not None and key in self._accepted:
            g.csrf_valid = True
            return
        super().protect()  # refuses (raises) a bad token
        if key is not None and g.get("csrf_valid"):
            self._remember(self._accepted, key, None)


csrf = CSRFCheck()
htmx = HTMX()
babel = Babel()
# The table's Wi-Fi is poor: a tap's answer (a panel of some 20-70 KB of HTML) goes out
# compressed to a tenth or less, at the fastest levels (a fraction of a millisecond).
# Over plain http a phone accepts gzip and deflate: deflate first (the same bytes with
# a cheaper checksum, a third less time); zstd and br where it offers them.
compress = Compress()
COMPRESSION = {
    "COMPRESS_ALGORITHM": ["zstd", "br", "deflate", "gzip"],
    "COMPRESS_LEVEL": 1,
    "COMPRESS_BR_LEVEL": 1,
    "COMPRESS_ZSTD_LEVEL": 1,
    "COMPRESS_DEFLATE_LEVEL": 1,
    "COMPRESS_MIMETYPES": [
        "text/html",
        "text/css",
        "text/javascript",
        "application/javascript",
        "application/json",
        "image/svg+xml",
    ],
    # the app answers conditional requests itself (the poll, the PDFs' tags)
    "COMPRESS_EVALUATE_CONDITIONAL_REQUEST": False,
}


def limit_table_creation(app: Flask, endpoints: tuple[str, ...]) -> None:
    """At most ``CREATE_RATE_LIMIT`` new tables per client address (Flask-Limiter),
    shared by the views ``endpoints`` (the home page's form and rematches), so nobody
    without a key can fill the disk with tables. The counts live in
    ``RATELIMIT_STORAGE_URI``: by default this process's memory, so each of the server's
    worker processes counts apart (the limit holds per worker; a shared storage such as
    memcached makes it one). The limiter is made per app, not once here: its counts live
    in it, and an app's are its own."""
    from limits import parse_many

    limit = app.config["CREATE_RATE_LIMIT"]
    try:
        parse_many(limit)
    except ValueError:
        raise ValueError(
            f"CREATE_RATE_LIMIT “{quotable(limit)}” is not a rate limit"
            " (e.g. “10 per minute; 100 per day”)"
        ) from None
    limiter = Limiter(get_remote_address, app=app)
    app.extensions["scorekeeper.limiter"] = limiter
    # Only these views are limited, by their decorator, which checks its limit itself.
    # The limiter's app-wide hooks serve default limits (there are none) and rate-limit
    # headers (off): they would only cost every other request (a tap) their time.
    # (Flask-Limiter 4's names; with another version the hooks stay, and only cost time)
    check = getattr(limiter, "_check_request_limit", None)
    app.before_request_funcs[None] = [h for h in app.before_request_funcs[None] if h != check]
    app.after_request_funcs[None] = [
        hook
        for hook in app.after_request_funcs[None]
        if getattr(hook, "args", None) != (limiter,)  # Limiter.__inject_headers, bound
    ]
    shared = limiter.shared_limit(lambda: current_app.config["CREATE_RATE_LIMIT"], "create-table")
    for endpoint in endpoints:
        app.view_functions[endpoint] = shared(app.view_functions[endpoint])
