"""The language of a request is read from its ``g`` without Flask's proxies (a hundred
lookups an answer): the quick way finds what the public one finds, in a request and
outside one, so the app speaks the same either way."""

from __future__ import annotations

import re

from flask import g

from scorekeeper import create_app, i18n


def test_the_quick_and_the_public_way_find_the_same_request_globals(tmp_path):
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "l.sqlite"), "SECRET_KEY": "t"})
    assert i18n._request_globals() is None and i18n._public_request_globals() is None
    with app.test_request_context("/?lang=pl"):
        assert i18n._request_globals() is i18n._public_request_globals() is g._get_current_object()
        assert i18n.current_language() == "pl"
        assert i18n.translations() is i18n.catalogue_for("pl")
    with app.app_context():  # an app but no request: English, as outside any
        assert i18n._request_globals() is None and i18n._public_request_globals() is None
        assert i18n.current_language() == i18n.DEFAULT


def test_the_language_button_names_each_language_in_its_own_script(tmp_path):
    """The two Serbian scripts are told apart on the button: SR and СР."""
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "l.sqlite"), "SECRET_KEY": "t"})
    assert set(i18n.CODES) == set(i18n.NAMES)
    client = app.test_client()
    shown = {}
    for language in i18n.NAMES:
        page = client.get(f"/?lang={language}").get_data(as_text=True)
        summary = re.search(
            r'<details class="lang-switch">\s*<summary[^>]*>(.*?)</summary>', page, re.S
        )
        shown[language] = re.sub(r"<svg.*?</svg>", "", summary.group(1), flags=re.S).strip()
    assert shown == {
        "en": "EN",
        "sr-Latn": "SR",
        "sr-Cyrl": "СР",
        "pl": "PL",
        "lt": "LT",
        "sk": "SK",
    }
