"""Printables over the web: the Rules pages and the PDF downloads, their cache,
and reading them through the watch link."""

from __future__ import annotations

import io
import re

import pytest
from pypdf import PdfReader

from scorekeeper import printing, rulecards
from scorekeeper.games import catalog

SLUGS = tuple(catalog.GAMES)


def _keys(page) -> tuple[str, str]:
    """(scorer key, watch key) from a scorer's table page."""
    links = re.findall(r'class="link" type="text" readonly value="[^"]*/t/([\w-]+)"', page.html)
    assert len(links) == 2, "the scorer page shows both links"
    return links[0], links[1]


def pdf_text(pdf: bytes) -> str:
    reader = PdfReader(io.BytesIO(pdf))
    return " ".join(" ".join(page.extract_text().split()) for page in reader.pages)


def assert_pdf_download(response, filename: str) -> None:
    assert response.status_code == 200
    assert response.mimetype == "application/pdf"
    assert response.data.startswith(b"%PDF-")
    assert response.headers["Content-Disposition"] == f'attachment; filename="{filename}"'
    assert response.headers.get("ETag")


def assert_csp_clean(html: str) -> None:
    """The app's CSP allows no inline style or script."""
    assert not re.search(r"\sstyle=", html)
    assert "<style" not in html
    for script in re.findall(r"<script[^>]*>(.*?)</script>", html, flags=re.S):
        assert not script.strip(), "inline script"


# ---------------------------------------------------------------- the Rules pages


@pytest.mark.parametrize("slug", SLUGS)
def test_rules_page_shows_the_card_and_its_decisions(client, slug):
    response = client.get(f"/rules/{slug}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    card = rulecards.card(slug)
    assert card.game.name in html and card.game.subtitle in html
    for section in card.sections:
        assert section.title in html
    for decision in card.decisions:
        assert f'id="{decision.id}"' in html
    assert f"/print/{slug}/rule-card.pdf" in html
    assert f"/print/{slug}/score-sheet.pdf" in html
    assert "/static/rules.css" in html
    assert_csp_clean(html)


def test_rules_page_colours_red_suits_red(client):
    html = client.get("/rules/szaman").get_data(as_text=True)
    assert '<span class="red">J♥</span>' in html


def test_rules_index_lists_every_game(client):
    response = client.get("/rules")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    for slug, game in catalog.GAMES.items():
        assert game.name in html and f"/rules/{slug}" in html
    assert_csp_clean(html)


@pytest.mark.parametrize(
    "path",
    [
        "/rules/poker",
        "/rules/..%2Fcowboy",
        "/print/poker/rule-card.pdf",
        "/print/poker/score-sheet.pdf",
        "/t/no-such-key/rules",
        "/t/no-such-key/rule-card.pdf",
        "/t/no-such-key/score-sheet.pdf",
        "/t/no-such-key/blank-sheet.pdf",
    ],
)
def test_unknown_game_or_table_is_404(client, path):
    assert client.get(path).status_code == 404


def test_table_rules_page_shows_the_house_rules_for_both_links(client, new_table):
    _url, page = new_table(
        "cowboy", ("Ana", "Bojan", "Ceca"), **{"cowboy-curse_replaces_sixes": "on"}
    )
    scorer, watch = _keys(page)
    for key in (scorer, watch):
        response = client.get(f"/t/{key}/rules")
        assert response.status_code == 200
        html = response.get_data(as_text=True)
        assert "House rules at this table" in html
        # an unticked box is off: C-D7 changed from its default, C-D8 kept
        assert re.search(r"queen is also a harlot.*C-D7.*<strong>off</strong>", html)
        assert re.search(r"replaces the sixes.*C-D8.*<strong>on</strong>", html)
        assert f"/t/{key}/score-sheet.pdf" in html  # links keep the key they came with
        assert f"/t/{key}/rule-card.pdf" in html
        assert_csp_clean(html)
    watch_html = client.get(f"/t/{watch}/rules").get_data(as_text=True)
    assert scorer not in watch_html, "the watch link must not reveal the scorer link"


# ---------------------------------------------------------------- downloads


@pytest.mark.parametrize("slug", SLUGS)
def test_game_downloads(client, slug):
    card = client.get(f"/print/{slug}/rule-card.pdf")
    assert_pdf_download(card, f"{slug}-rule-card-en.pdf")
    sheet = client.get(f"/print/{slug}/score-sheet.pdf")
    assert_pdf_download(sheet, f"{slug}-score-sheet-en.pdf")


def test_second_download_comes_from_the_cache(client, monkeypatch):
    first = client.get("/print/vezimas/rule-card.pdf")
    renders = printing.renders

    def no_render(*_args, **_kwargs):
        raise AssertionError("rendered again instead of using the cache")

    monkeypatch.setattr(printing, "render_pdf", no_render)
    monkeypatch.setattr(printing, "render_pdf_with_insert", no_render)
    second = client.get("/print/vezimas/rule-card.pdf")
    assert second.data == first.data and printing.renders == renders
    assert second.headers["ETag"] == first.headers["ETag"]


def test_a_known_etag_gets_304_without_a_body(client):
    etag = client.get("/print/pegs/score-sheet.pdf").headers["ETag"]
    response = client.get("/print/pegs/score-sheet.pdf", headers={"If-None-Match": etag})
    assert response.status_code == 304 and not response.data


def test_table_downloads_work_with_the_watch_link(client, new_table, store):
    _url, page = new_table("szaman", ("Ola", "Piotr", "Zofia"))
    scorer, watch = _keys(page)
    table, _access = store.table_by_key(watch)
    players = store.players(table.id)
    for deal in range(1, 7):
        store.add_entry(table.id, deal, "manual-points", {}, {}, {players[2].id: 11})
    sheet = client.get(f"/t/{watch}/score-sheet.pdf")
    assert_pdf_download(sheet, f"szaman-table-{table.id}-score-sheet-en.pdf")
    assert sheet.headers["Cache-Control"] == "private, no-cache"
    text = pdf_text(sheet.data)
    assert "Zofia 66 0 Winner" in text and "Ola 0" in text
    assert_pdf_download(
        client.get(f"/t/{watch}/rule-card.pdf"), f"szaman-table-{table.id}-rule-card-en.pdf"
    )
    blank = client.get(f"/t/{watch}/blank-sheet.pdf")
    assert_pdf_download(blank, f"szaman-table-{table.id}-blank-sheet-en.pdf")
    assert "Piotr" in pdf_text(blank.data)
    # the scorer link reads the same, cached sheet
    renders = printing.renders
    assert client.get(f"/t/{scorer}/score-sheet.pdf").data == sheet.data
    assert printing.renders == renders


@pytest.mark.parametrize(
    ("game", "printed"),
    [("kvanta", "First dealer: Ceca"), ("pegs", "Notes 1 Ceca"), ("szaman", "Deals first Ceca")],
)
def test_a_tables_blank_sheet_names_the_first_dealer_chosen_for_it(
    client, new_table, game, printed
):
    players = ("Ana", "Bojan", "Ceca", "Dule")
    _url, page = new_table(game, players, first_dealer="2")
    scorer, watch = _keys(page)
    for key in (scorer, watch):
        assert printed in pdf_text(client.get(f"/t/{key}/blank-sheet.pdf").data)
    # the game's own blank sheet leaves it to be written in
    assert "Ceca" not in pdf_text(client.get(f"/print/{game}/score-sheet.pdf").data)


def test_filled_sheet_follows_new_rounds(client, new_table):
    url, table_page = new_table("vezimas", ("Rūta", "Jonas"))
    scorer, _watch = _keys(table_page)
    before = client.get(f"/t/{scorer}/score-sheet.pdf")
    fields = table_page.player_fields()
    response = client.post(
        f"{url}/rounds",
        data={
            "csrf_token": table_page.csrf,
            "submission_id": table_page.submission_id,
            fields[1]: "1",
        },
    )
    assert response.status_code == 303
    after = client.get(f"/t/{scorer}/score-sheet.pdf")
    assert after.headers["ETag"] != before.headers["ETag"]
    assert "Jonas 1" in pdf_text(after.data)


# ---------------------------------------------------------------- the partials for other pages


def test_home_page_partial_offers_each_games_card_and_sheet(app):
    with app.test_request_context("/"):
        html = app.jinja_env.get_template("prints/_game_printables.html").render(
            games=catalog.GAMES
        )
    for slug in SLUGS:
        assert f'href="/rules/{slug}"' in html
        assert f'href="/print/{slug}/rule-card.pdf"' in html
        assert f'href="/print/{slug}/score-sheet.pdf"' in html
    assert_csp_clean(html)


def test_table_page_partial_keeps_the_key_it_was_opened_with(app, store):
    out = store.create_table("pegs", "Sunday", ["A", "B", "C", "D"], {})
    table = store.table(out["table_id"])
    template = app.jinja_env.get_template("prints/_table_printables.html")
    with app.test_request_context("/"):
        scorer_html = template.render(table=table, can_write=True)
        watch_html = template.render(table=table, can_write=False)
    for path in ("rules", "score-sheet.pdf", "rule-card.pdf", "blank-sheet.pdf"):
        assert f"/t/{table.scorer_key}/{path}" in scorer_html
        assert f"/t/{table.watch_key}/{path}" in watch_html
    assert table.scorer_key not in watch_html
    assert_csp_clean(scorer_html)
