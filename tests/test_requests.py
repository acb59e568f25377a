"""The app's request class: a url-encoded form is read as werkzeug reads it, only
by a shorter path; the session copy kept for checked cookies cannot be changed
through a request; an exempt view is let through before any CSRF token is sought."""

from __future__ import annotations

import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from werkzeug.formparser import FormDataParser
from werkzeug.wrappers import Request as WerkzeugRequest

from scorekeeper.app import FormData, Request, _copied

FORM = "application/x-www-form-urlencoded"


def werkzeug_form(body: bytes) -> list[tuple[str, str]]:
    """What werkzeug's own parser makes of a url-encoded body."""
    _stream, form, _files = FormDataParser().parse(io.BytesIO(body), FORM, len(body), {})
    return list(form.items(multi=True))


def app_form(app, body: bytes, content_type: str = FORM):
    with app.test_request_context("/", method="POST", data=body, content_type=content_type):
        from flask import request

        assert isinstance(request._get_current_object(), Request)
        return request.form, request.files, request.get_data()


BODIES = [
    b"",
    b"a=1",
    b"a=1&a=2&b=&c",
    b"points-1=%E2%88%925&name=Ana+Bojan",  # a minus sign typed on a phone, a space
    b"x=%FF%FE&y=%zz&z=%",  # escapes that are not UTF-8, or not escapes
    b"&&=&==&a==b",
    b"\xff\xfe=1",  # a body that is not UTF-8 at all
    "ime=Čeda&grad=Niš".encode(),
    b"a=1;b=2",
]


@pytest.mark.parametrize("body", BODIES)
def test_a_form_body_reads_as_werkzeug_reads_it(app, body):
    form, files, data = app_form(app, body)
    assert list(form.items(multi=True)) == werkzeug_form(body)
    assert not files
    assert data == body  # the body stays readable after the form


# parsing leaves the app as it was, so one app serves every example
@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=200) | st.text(max_size=60).map(str.encode))
def test_any_form_body_reads_as_werkzeug_reads_it(app, body):
    form, _files, _data = app_form(app, body)
    assert list(form.items(multi=True)) == werkzeug_form(body)


def test_other_bodies_still_go_through_werkzeug(app):
    with app.test_request_context(
        "/", method="POST", data={"a": "1", "f": (io.BytesIO(b"x"), "f.txt")}
    ):
        from flask import request

        assert request.form["a"] == "1"
        assert request.files["f"].read() == b"x"
    form, _files, _data = app_form(app, b'{"a": 1}', "application/json")
    assert not form

    def without_length():  # a body whose end the server marks (chunked): werkzeug's path
        return {
            "REQUEST_METHOD": "POST",
            "CONTENT_TYPE": FORM,
            "wsgi.input": io.BytesIO(b"a=1&b=2"),
            "wsgi.input_terminated": True,
        }

    expected = list(WerkzeugRequest(without_length()).form.items(multi=True))
    assert expected == [("a", "1"), ("b", "2")]
    assert list(Request(without_length()).form.items(multi=True)) == expected


def test_a_form_over_the_size_limit_is_refused(client, app):
    body = b"a=" + b"x" * app.config["MAX_CONTENT_LENGTH"]
    response = client.post("/tables", data=body, content_type=FORM)
    assert response.status_code == 413


def test_a_missing_field_gives_the_default():
    form = FormData([("a", "1"), ("b", "x"), ("e", "")])
    assert form.get("missing") is None
    assert form.get("missing", "d") == "d"
    assert form.get("a", type=int) == 1
    assert form.get("b", 7, type=int) == 7  # werkzeug's: a failed conversion gives the default
    assert form.get("e") == ""
    assert "missing" not in form


def test_the_kept_session_copy_cannot_be_changed_through_a_request():
    flat = {"csrf_token": "abc", "n": 1, "none": None}
    copied = _copied(flat)
    assert copied == flat and copied is not flat
    nested = {"recent": ["t1"], "prefs": {"lang": "sr"}}
    copied = _copied(nested)
    copied["recent"].append("t2")
    copied["prefs"]["lang"] = "lt"
    assert nested == {"recent": ["t1"], "prefs": {"lang": "sr"}}


def test_an_exempt_view_never_looks_for_a_csrf_token(client, monkeypatch):
    from scorekeeper.app import csrf

    def token_sought():
        raise AssertionError("looked for a CSRF token")

    monkeypatch.setattr(csrf, "_get_csrf_token", token_sought)
    response = client.post(
        "/api/v1/score/manual-points", json={"players": ["A", "B"], "points": {"A": 1}}
    )
    assert response.status_code == 200
    # a protected form still is checked
    monkeypatch.undo()
    assert client.post("/tables", data={"game": "cowboy"}).status_code == 400
