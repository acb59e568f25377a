"""Nobody in who shouldn't be: unguessable links, a watch link that can never
write, CSRF on every form, security headers, size limits, no debug, quiet errors.

Write endpoints are read from the app's URL map, so every screen added later is
covered by the same checks.
"""

from __future__ import annotations

import re
import secrets

import pytest

from scorekeeper import create_app, store

WRITE_PREFIX = "/t/<key>/"


def write_routes(app) -> list[str]:
    return sorted(
        r.rule
        for r in app.url_map.iter_rules()
        if "POST" in r.methods and r.rule.startswith(WRITE_PREFIX)
    )


def fill(rule: str, key: str) -> str:
    return re.sub(r"<(?:\w+:)?(\w+)>", lambda m: key if m.group(1) == "key" else "1", rule)


@pytest.fixture
def table(client, new_table, parsed, store):
    url, page = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    fields = page.player_fields()
    client.post(
        url + "/rounds",
        data={"csrf_token": page.csrf, "submission_id": "seed", fields[0]: "5"},
        headers={"HX-Request": "true"},
    )
    (t,) = store.list_tables()
    return t, page


def snapshot(store):
    return [
        store.db.execute(f"SELECT * FROM {name}").fetchall()
        for name in ("tables", "players", "entries", "entry_events", "rolls", "drafts")
    ]


def test_links_come_from_secrets_with_at_least_128_bits(monkeypatch):
    calls = []
    real = secrets.token_urlsafe

    def spy(n):
        calls.append(n)
        return real(n)

    monkeypatch.setattr(store.records.secrets, "token_urlsafe", spy)
    key = store.new_key()
    assert calls and set(calls) == {store.KEY_BYTES} and store.KEY_BYTES * 8 >= 128
    assert len(key) >= 22


def test_a_new_link_never_starts_with_a_dash(monkeypatch):
    """A leading "-" would read as an option on the command line."""
    draws = iter(["-first", "-second", "third"])
    monkeypatch.setattr(store.records.secrets, "token_urlsafe", lambda n: next(draws))
    assert store.new_key() == "third"


GAME_PLAYERS = {
    "cowboy": ("Ana", "Bojan", "Ceca"),
    "kvanta": ("Ana", "Bojan"),
    "vezimas": ("Asta", "Jonas", "Rūta"),
    "szaman": ("Ola", "Piotr"),
    "pegs": ("A", "B", "C", "D"),
}


def test_the_watch_link_refuses_every_write_endpoint(app, client, store, new_table):
    """Every write route, each on a table of its own game (a game's screen answers
    only for its game), with and without htmx."""
    watch = {}
    for game, names in GAME_PLAYERS.items():
        _url, page = new_table(game, names)
        watch[game] = (store.list_tables()[0].watch_key, page.csrf)
    routes = write_routes(app)
    assert len(routes) >= 30
    before = snapshot(store)
    for rule in routes:
        game = rule.split("/")[3] if rule.split("/")[3] in GAME_PLAYERS else "cowboy"
        key, csrf = watch[game]
        for headers in ({}, {"HX-Request": "true"}):
            response = client.post(fill(rule, key), data={"csrf_token": csrf}, headers=headers)
            assert response.status_code == 403, rule
    assert snapshot(store) == before


def test_a_game_screen_answers_only_for_its_own_game(client, store, new_table):
    _url, page = new_table("cowboy", GAME_PLAYERS["cowboy"])
    key = store.list_tables()[0].scorer_key
    response = client.post(f"/t/{key}/szaman/tap", data={"csrf_token": page.csrf})
    assert response.status_code == 404


def test_every_form_post_needs_the_csrf_token(app, client, store, table):
    t, _page = table
    before = snapshot(store)
    for rule in [*write_routes(app), "/tables"]:
        response = client.post(fill(rule, t.scorer_key), data={"name": "x", "card": "AH"})
        assert response.status_code == 400, rule
        assert "Reload the page" in response.get_data(as_text=True)
    assert snapshot(store) == before


def test_a_session_cookie_checked_once_is_still_refused_when_tampered_with(app, client, table):
    """Sessions whose cookie was already verified skip the check for a while: only
    the exact cookie that was signed may do that."""
    t, page = table
    url = f"/t/{t.scorer_key}"
    name = app.config["SESSION_COOKIE_NAME"]
    cookie = client.get_cookie(name).value
    fields = page.player_fields()

    def post(sid: str):
        return client.post(
            url + "/rounds",
            data={"csrf_token": page.csrf, "submission_id": sid, fields[0]: "1"},
            headers={"HX-Request": "true"},
        )

    assert post("checked-1").status_code == 200
    assert post("checked-2").status_code == 200  # the second one from the checked cookie
    payload, signature = cookie.rsplit(".", 1)
    flipped = signature[:-2] + ("A" if signature[-2] != "A" else "B") + signature[-1]
    for forged in (f"{payload}.{flipped}", cookie + "x", cookie[:-1]):
        client.set_cookie(name, forged)
        response = post("forged")
        assert response.status_code == 400, forged
    client.set_cookie(name, cookie)
    assert post("checked-3").status_code == 200


def test_a_csrf_token_accepted_once_is_still_refused_when_forged_or_moved(
    app, client, store, table, monkeypatch
):
    """An accepted token is not verified again: only the same token, for the same
    session and key, may skip the check."""
    import flask_wtf.csrf

    t, page = table
    url = f"/t/{t.scorer_key}/rounds"
    field = page.player_fields()[0]
    verified = []
    real_validate = flask_wtf.csrf.validate_csrf
    monkeypatch.setattr(
        flask_wtf.csrf, "validate_csrf", lambda data: verified.append(data) or real_validate(data)
    )

    def post(http, token: str, sid: str):
        return http.post(
            url,
            data={"csrf_token": token, "submission_id": sid, field: "1"},
            headers={"HX-Request": "true"},
        )

    assert post(client, page.csrf, "accepted-1").status_code == 200
    assert post(client, page.csrf, "accepted-2").status_code == 200
    assert len(verified) <= 1  # the second tap reused the first one's check
    before = snapshot(store)
    payload, signature = page.csrf.rsplit(".", 1)
    flipped = signature[:-2] + ("A" if signature[-2] != "A" else "B") + signature[-1]
    for forged in (f"{payload}.{flipped}", page.csrf + "x", page.csrf[:-1]):
        assert post(client, forged, "forged").status_code == 400, forged
    stranger = app.test_client()
    stranger.get("/")  # a session of its own, with its own CSRF value
    assert post(stranger, page.csrf, "moved").status_code == 400
    assert snapshot(store) == before
    app.secret_key = "another key"  # the cookie and its token stop being trusted
    assert post(client, page.csrf, "after-key-change").status_code == 400
    assert snapshot(store) == before


def test_after_a_key_rotation_the_page_carries_a_token_signed_with_the_new_key(
    app, client, table, parsed
):
    """The session survives the rotation (the old key is a fallback); the form's token
    must be signed anew, not served as it was signed before."""
    t, page = table
    url = f"/t/{t.scorer_key}"
    app.config["SECRET_KEY_FALLBACKS"] = [app.secret_key]
    app.secret_key = "the rotated key"
    fresh = parsed(client.get(url))
    assert fresh.csrf != page.csrf
    field = fresh.player_fields()[0]
    response = client.post(
        url + "/rounds",
        data={"csrf_token": fresh.csrf, "submission_id": "rotated", field: "2"},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200


def test_another_secret_key_does_not_trust_a_checked_cookie(tmp_path):
    first = create_app({"DATABASE": str(tmp_path / "a.sqlite"), "SECRET_KEY": "one"})
    client = first.test_client()
    client.get("/")  # the home page's form puts a CSRF token in the session
    cookie = client.get_cookie(first.config["SESSION_COOKIE_NAME"]).value
    with first.test_request_context("/", headers={"Cookie": f"session={cookie}"}):
        from flask import request

        assert first.session_interface.open_session(first, request).get("csrf_token")
        first.secret_key = "two"
        assert not first.session_interface.open_session(first, request)


def test_the_score_api_needs_no_csrf_token(client):
    response = client.post(
        "/api/v1/score/manual-points", json={"players": ["A", "B"], "points": {"A": 1}}
    )
    assert response.status_code == 200


def test_security_headers(client, table):
    t, _page = table
    for path in ("/", f"/t/{t.scorer_key}", f"/t/{t.watch_key}", "/api/v1/kinds", "/nope"):
        h = client.get(path).headers
        csp = h["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "'unsafe-inline'" not in csp
        assert "frame-ancestors 'none'" in csp
        assert h["X-Content-Type-Options"] == "nosniff"
        assert h["Referrer-Policy"] == "no-referrer"


def test_each_security_header_is_sent_once_and_a_view_keeps_its_own(client, table):
    t, _page = table
    once = ("Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy")
    for path in (
        f"/t/{t.scorer_key}",
        "/healthz",
        "/static/app.css",
        "/print/pegs/score-sheet.pdf",
    ):
        h = client.get(path).headers
        assert all(len(h.getlist(name)) == 1 for name in (*once, "X-Frame-Options")), path
        assert h["X-Frame-Options"] == "DENY"
        assert len(h.getlist("Cache-Control")) == 1, path
    # a page is never stored; a download keeps the caching its view chose
    assert client.get(f"/t/{t.scorer_key}").headers["Cache-Control"] == "no-store"
    pdf = client.get("/print/pegs/score-sheet.pdf").headers["Cache-Control"]
    assert pdf == "public, no-cache"


def test_htmx_is_configured_for_the_csp(client, table):
    t, _page = table
    html = client.get(f"/t/{t.scorer_key}").get_data(as_text=True)
    config = re.search(r'<meta name="htmx-config" content=\'([^\']+)\'', html).group(1)
    assert '"allowEval": false' in config and '"includeIndicatorStyles": false' in config
    assert "hx-on" not in html
    assert not re.search(r"<script(?![^>]*\bsrc=)", html)  # no inline script
    assert " style=" not in html


def test_no_debug_mode_unless_asked(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "d.sqlite"), "SECRET_KEY": "x"})
    assert app.debug is False


def test_an_unexpected_error_shows_nothing_inside(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "e.sqlite"), "SECRET_KEY": "x"})

    @app.get("/boom")
    def boom():
        raise ZeroDivisionError("secret detail")

    response = app.test_client().get("/boom")
    body = response.get_data(as_text=True)
    assert response.status_code == 500
    assert "secret detail" not in body and "Traceback" not in body and "ZeroDivision" not in body
    assert "Something went wrong on the server. Try again" in body


def test_the_secret_key_is_kept_in_the_instance_folder(tmp_path):
    instance = tmp_path / "instance"
    from scorekeeper.app import _secret_key

    instance.mkdir()
    first = _secret_key(instance)
    assert first == _secret_key(instance)
    assert (instance / "secret_key").stat().st_mode & 0o077 == 0
    assert len(first) >= 64


@pytest.mark.parametrize(
    "refusal, status",
    [
        (store.NotFound("There is no such table."), 404),
        (store.Conflict("Round 3 was changed on another phone meanwhile."), 409),
        (store.ReusedSubmission("This form was already sent for another change."), 422),
    ],
)
def test_a_store_refusal_no_view_answers_is_its_message_not_a_500(app, refusal, status):
    @app.get("/refused")
    def refused():
        raise refusal

    for headers in ({}, {"HX-Request": "true"}):
        response = app.test_client().get("/refused", headers=headers)
        body = response.get_data(as_text=True)
        assert response.status_code == status
        assert refusal.message in body
        assert "Traceback" not in body


@pytest.mark.parametrize(
    "failure, status",
    [
        (store.NotFound("There is no such table."), 404),
        (store.Conflict("Round 3 was changed on another phone meanwhile."), 409),
        (RuntimeError("a bug"), 500),
    ],
)
def test_an_error_answered_to_a_tap_goes_to_the_message_area_not_over_the_board(
    app, failure, status
):
    """htmx swaps an error answer into the tap's target (often the whole board): an
    answer from the app's error handlers is sent to ``#flash`` instead, so the board
    and what was typed on it stay. A page load gets the full error page."""

    @app.get("/t/<key>/failing")
    def failing(key):
        raise failure

    client = app.test_client()
    tap = client.get("/t/x/failing", headers={"HX-Request": "true"})
    assert tap.status_code == status
    assert tap.headers["HX-Retarget"] == "#flash"
    assert tap.headers["HX-Reswap"] == "innerHTML"
    assert 'class="flash error"' in tap.get_data(as_text=True)
    assert "<html" not in tap.get_data(as_text=True)
    if status == 500:  # it may come after a write went through: no "nothing was saved"
        assert "already saved is never saved twice" in tap.get_data(as_text=True)
    page = client.get("/t/x/failing")
    assert page.status_code == status
    assert "HX-Retarget" not in page.headers
    assert "<html" in page.get_data(as_text=True)
