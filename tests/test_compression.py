"""Answers go out compressed when the phone accepts it (the table's Wi-Fi is poor): the
same HTML, a fraction of the bytes; what is compressed already (a PDF) or tiny is not."""

from __future__ import annotations

import gzip
import json
import re
import zlib

HX = {"HX-Request": "true"}
# each answer makes new submission ids (22 URL-safe characters), the rest is the same
FRESH_ID = re.compile(rb"[A-Za-z0-9_-]{22}")


def same_but_fresh_ids(a: bytes, b: bytes) -> bool:
    return FRESH_ID.sub(b"", a) == FRESH_ID.sub(b"", b)


def tap(client, url: str, csrf: str, number: int, encoding: str | None, **tap_fields):
    headers = {**HX, **({"Accept-Encoding": encoding} if encoding else {})}
    return client.post(
        f"{url}/cowboy/tap",
        data={
            "csrf_token": csrf,
            "tap_id": f"t{number}",
            "tap": json.dumps(tap_fields),
            "v": str(number),
            "round": "1",
        },
        headers=headers,
    )


def test_a_tap_answer_is_compressed_to_a_fraction_and_reads_as_the_plain_one(client, new_table):
    url, page = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    ended = tap(client, url, page.csrf, 0, None, action="end", seat=1, reason="tens")
    assert ended.status_code == 200 and "Content-Encoding" not in ended.headers
    plain = ended.get_data()
    # the same tap again (a retry: the same state) as a phone over http accepts it:
    # deflate, whose checksum costs less than gzip's
    again = tap(client, url, page.csrf, 0, "gzip, deflate", action="end", seat=1, reason="tens")
    assert again.status_code == 200 and again.headers["Content-Encoding"] == "deflate"
    assert "Accept-Encoding" in again.headers["Vary"]
    sent = again.get_data()
    assert same_but_fresh_ids(zlib.decompress(sent), plain)
    assert b'id="cowboy-panel"' in plain and len(sent) * 5 < len(plain)
    # a client that takes gzip alone gets gzip
    only = tap(client, url, page.csrf, 0, "gzip", action="end", seat=1, reason="tens")
    assert only.headers["Content-Encoding"] == "gzip"
    assert same_but_fresh_ids(gzip.decompress(only.get_data()), plain)


def test_the_table_page_and_the_script_go_out_compressed(client, new_table):
    url, _ = new_table("vezimas", ("Ana", "Bojan", "Ceca"))
    plain = client.get(url).get_data()
    packed = client.get(url, headers={"Accept-Encoding": "gzip"})
    assert packed.headers["Content-Encoding"] == "gzip"
    assert same_but_fresh_ids(gzip.decompress(packed.get_data()), plain)
    script = client.get("/static/htmx.min.js", headers={"Accept-Encoding": "gzip, deflate"})
    assert script.status_code == 200 and script.headers["Content-Encoding"] == "deflate"
    whole = client.get("/static/htmx.min.js").get_data()
    assert zlib.decompress(script.get_data()) == whole


def test_pdfs_and_tiny_answers_go_out_as_they_are(client):
    card = client.get("/print/cowboy/rule-card.pdf", headers={"Accept-Encoding": "gzip"})
    assert card.status_code == 200 and card.mimetype == "application/pdf"
    assert "Content-Encoding" not in card.headers and card.get_data().startswith(b"%PDF")
    health = client.get("/healthz", headers={"Accept-Encoding": "gzip"})
    assert health.get_data() == b"ok" and "Content-Encoding" not in health.headers
