"""Printables: every rule card and score sheet is a real PDF of the intended size,
with the vendored font, the key facts in its text, and ink on its pages.

Each PDF is also rendered to PNG in ``test-artifacts/printables/`` for a person
to look at.
"""

from __future__ import annotations

import html
import io
import os
import re
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image
from pypdf import PdfReader

from scorekeeper import create_app, printing, rulecards
from scorekeeper.cards import parse_card
from scorekeeper.games import catalog, cowboy, kvanta
from scorekeeper.store import Store
from scorekeeper.summary import summarize

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "printables"
# shared/ sits beside the work tree (and beside CI's clone)
RULES_MD = Path(__file__).parent / "data" / "RULES.md"  # a copy of the product's rules

A6 = (297.6, 419.5)  # 105 × 148 mm in points
A4 = (595.3, 841.9)
FONT = "Scorekeeper-DejaVu-Sans"  # the @font-face family of print.css: the vendored subset
SLUGS = tuple(catalog.GAMES)
BLANK_SHEET_PAGES = {"cowboy": 1, "kvanta": 2, "vezimas": 1, "szaman": 1, "pegs": 1}


# ---------------------------------------------------------------- helpers


def pages(pdf: bytes | Path) -> list:
    return PdfReader(pdf if isinstance(pdf, Path) else io.BytesIO(pdf)).pages


def pdf_text(pdf: bytes | Path) -> str:
    """All pages' text with whitespace runs folded to one space."""
    return " ".join(" ".join(page.extract_text().split()) for page in pages(pdf))


def font_names(pdf: bytes | Path) -> set[str]:
    names = set()
    for page in pages(pdf):
        fonts = page["/Resources"].get("/Font", {})
        for ref in fonts.values():
            names.add(str(ref.get_object()["/BaseFont"]).split("+", 1)[-1])
    return names


def assert_page_size(pdf, size: tuple[float, float]) -> None:
    for page in pages(pdf):
        box = page.mediabox
        assert float(box.width) == pytest.approx(size[0], abs=0.5)
        assert float(box.height) == pytest.approx(size[1], abs=0.5)


def render_png(pdf: bytes | Path, name: str) -> list[Path]:
    """Every page as PNG in test-artifacts/printables/ (for review); returns the files."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    source = pdf if isinstance(pdf, Path) else ARTIFACTS / f"{name}.pdf"
    if not isinstance(pdf, Path):
        source.write_bytes(pdf)
    for old in ARTIFACTS.glob(f"{name}-*.png"):
        old.unlink()
    subprocess.run(
        ["pdftoppm", "-r", "80", "-png", str(source), str(ARTIFACTS / name)],
        check=True,
        timeout=60,
    )
    return sorted(ARTIFACTS.glob(f"{name}-*.png"))


def ink(png: Path) -> float:
    """Share of the page's pixels that are not (nearly) white."""
    gray = Image.open(png).convert("L")
    histogram = gray.histogram()
    dark = sum(histogram[:200])
    return dark / (gray.width * gray.height)


def assert_inked(pdf, name: str, least: float = 0.01) -> None:
    pngs = render_png(pdf, name)
    assert pngs, f"pdftoppm made no page of {name}"
    for png in pngs:
        assert ink(png) > least, f"{png.name} is (nearly) blank"


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    """``scorekeeper print``'s work, once for the module: every card and blank sheet."""
    tmp = tmp_path_factory.mktemp("print")
    app = create_app({"TESTING": True, "DATABASE": str(tmp / "db.sqlite"), "SECRET_KEY": "t"})
    with app.app_context():
        paths = printing.build_all(tmp / "build")
    return {p.name: p for p in paths}


@pytest.fixture
def ctx(app):
    with app.app_context():
        yield


def make_table(store: Store, game: str, names, settings=None, name="Friday night"):
    settings = {**catalog.GAMES[game].defaults(), **(settings or {})}
    out = store.create_table(game, name, list(names), settings)
    return store.table(out["table_id"])


def add_points(store: Store, table, rows: list[list[int]]):
    """One manual score-pad entry per row (points in seat order)."""
    players = store.players(table.id)
    for round_number, row in enumerate(rows, start=store.next_round(table.id)):
        points = {p.id: pts for p, pts in zip(players, row, strict=True) if pts}
        store.add_entry(table.id, round_number, "manual-points", {}, {}, points)
    return store.table(table.id)


# ---------------------------------------------------------------- scorekeeper print


def test_build_all_writes_a_card_and_a_sheet_per_game(built):
    expected = {f"{slug}-{kind}.pdf" for slug in SLUGS for kind in ("rule-card", "score-sheet")}
    assert set(built) == expected
    assert {"cowboy", "kvanta", "vezimas", "szaman", "pegs"} == set(SLUGS)
    for path in built.values():
        assert path.read_bytes().startswith(b"%PDF-")


def test_build_all_defaults_to_printables_build(app, monkeypatch, tmp_path):
    assert printing.BUILD_DIR == printing.PRINTABLES / "build"
    monkeypatch.setattr(printing, "BUILD_DIR", tmp_path / "build")
    monkeypatch.setattr(printing, "render_pdf", lambda html, *_args, **_kwargs: b"%PDF-stub")
    monkeypatch.setattr(printing, "render_pdf_with_insert", lambda *_args: b"%PDF-stub")
    with app.app_context():
        paths = printing.build_all()
    # a folder a language: English only unless asked
    assert {p.parent for p in paths} == {tmp_path / "build" / "en"}
    assert len(paths) == 2 * len(SLUGS)


# ---------------------------------------------------------------- rule cards


@pytest.mark.parametrize("slug", SLUGS)
def test_rule_card_is_a6_on_at_most_two_pages_with_the_vendored_font(built, slug):
    pdf = built[f"{slug}-rule-card.pdf"]
    assert 1 <= len(pages(pdf)) <= 2
    assert_page_size(pdf, A6)
    assert font_names(pdf) <= {FONT, f"{FONT}-Bold"}
    assert FONT in font_names(pdf) and "DejaVu" in FONT
    assert_inked(pdf, f"{slug}-rule-card")


@pytest.mark.parametrize("slug", SLUGS)
def test_rule_card_names_the_game_and_cites_every_decision(built, slug):
    text = pdf_text(built[f"{slug}-rule-card.pdf"])
    game = catalog.GAMES[slug]
    assert game.name in text and game.subtitle in text
    card = rulecards.card(slug)
    assert card.decisions, "every game has numbered decisions"
    for decision in card.decisions:
        assert decision.id in text
    for setting in game.settings:  # the defaults are listed as house rules
        assert setting.label in text


def test_cowboy_card_lists_all_fourteen_scoring_items_with_points(built):
    text = pdf_text(built["cowboy-rule-card.pdf"])
    assert len(rulecards.COWBOY_ITEMS) == 14
    for item in rulecards.COWBOY_ITEMS:
        assert f"{item.label} {rulecards.points(item.points)}" in text, item.code
    assert "first to 500" in text


def test_every_game_has_a_card():
    assert set(rulecards.CARDS) == set(catalog.GAMES)


def test_cowboy_items_follow_the_engine():
    # the card and the sheet take their points from the engine: same codes, same order
    assert tuple(i.code for i in rulecards.COWBOY_ITEMS) == cowboy.ITEM_CODES


def test_szaman_card_states_66_and_the_rounding_rule(built):
    text = pdf_text(built["szaman-rule-card.pdf"])
    assert "66" in text
    assert "divide by 10 and round up" in text
    assert "21 −3" in text and "−20" in text  # a worked example and the joker


def test_kvanta_vezimas_and_pegs_cards_carry_their_key_facts(built):
    kvanta = pdf_text(built["kvanta-rule-card.pdf"])
    for fact in ("Flux", "+15", "Bull's Eyes", "Zilch", "⌈(vmax − v) / 4⌉"):
        assert fact in kvanta
    vezimas = pdf_text(built["vezimas-rule-card.pdf"])
    assert "fewest carts" in vezimas and "Q♣" in vezimas
    pegs = pdf_text(built["pegs-rule-card.pdf"])
    assert "Joker" in pegs and "in-spot" in pegs


def test_rule_cards_show_the_rules_1_1_decisions(built):
    """Where a player looks for them: the shot's turned card and declined ace
    (C-D10, C-D11, C-D12), the revised K-D8, the burned cards once per game and the
    deal to the left (K-D9, K-D10), Q prize ties, nothing to beat (V-D5), letters (V-D6)."""
    cowboy = pdf_text(built["cowboy-rule-card.pdf"])
    for fact in ("never an ace, C-D10", "leaves it lying there (C-D11)", "ricochet, C-D12"):
        assert fact in cowboy
    kvanta = pdf_text(built["kvanta-rule-card.pdf"])
    assert "a J or Q prize's winner keeps the five paying him more" in kvanta  # K-D8
    assert "Game start only: shuffle once" in kvanta and "(K-D9)" in kvanta
    assert "The deal moves left each round (K-D10)" in kvanta
    assert "three copies of its card" in kvanta
    assert "2 if v is the highest, ties too" in kvanta
    vezimas = pdf_text(built["vezimas-rule-card.pdf"])
    assert "nothing to beat (V-D5)" in vezimas
    assert "Letters instead (V-D6)" in vezimas and "V-E-Ž-I-M-A-S" in vezimas
    assert "What a lost deal gives" in vezimas  # the house rule, with its default


def test_kvanta_card_says_ties_count_for_the_j_prize_as_for_the_q(built):
    """A winner whose five's value ties the highest gets the top J prize (5) as he
    gets the top Q prize (2): the engine pays it on a gap of 0, whoever shares it."""
    turned = {rank: parse_card(f"{rank}H") for rank in "JQ"}
    tied = {"Ana": 21, "Bojan": 21, "Cvita": 9}
    assert kvanta.poker_prize(turned["J"], "Ana", tied, None) == 5
    assert kvanta.poker_prize(turned["Q"], "Ana", tied, None) == 2
    card = pdf_text(built["kvanta-rule-card.pdf"])
    assert "5 if v is the highest, ties too" in card
    assert "2 if v is the highest, ties too" in card


def test_red_suits_are_marked_red():
    html = str(rulecards.markup("J♥ and 10♦ beat Q♠"))
    assert '<span class="red">J♥</span>' in html
    assert '<span class="red">10♦</span>' in html
    assert "Q♠" in html and 'class="red">Q♠' not in html


def test_markup_escapes_before_adding_tags():
    html = str(rulecards.markup("<b>x</b> **bold** C-D4"))
    assert "&lt;b&gt;" in html
    assert "<strong>bold</strong>" in html
    assert '<span class="did">C-D4</span>' in html


def test_cards_paraphrase_rules_md_instead_of_copying_sentences():
    def words(text: str) -> str:
        return " ".join(re.findall(r"[\w♠♥♦♣+−]+", text.lower()))

    paragraphs = re.split(r"\n\s*\n", RULES_MD.read_text(encoding="utf-8"))
    prose = [" ".join(p.split()) for p in paragraphs if not p.lstrip().startswith("|")]
    sentences = [words(s) for p in prose for s in re.split(r"(?<=[.!?])\s+", p)]
    sentences = [s for s in sentences if len(s.split()) >= 8]
    for card in rulecards.CARDS.values():
        text = words(" ".join(_card_texts(card)))
        copied = [s for s in sentences if s in text]
        assert not copied, f"{card.slug} copies RULES.md: {copied[:1]}"


def _card_texts(card: rulecards.RuleCard):
    for s in card.sections:
        yield from (*s.text, *s.steps, *s.bullets, *s.after)
        if s.grid:
            yield s.grid.note
            yield from (" ".join(row) for row in s.grid.rows)
    yield from (d.text for d in card.decisions)


def test_house_rule_card_lists_the_tables_settings(ctx, store):
    table = make_table(
        store, "cowboy", ["Ana", "Bojan", "Ceca"], {"marriage_and_harlot": False}, "Kafana"
    )
    doc = printing.rule_card("cowboy", table)
    assert doc.filename == f"cowboy-table-{table.id}-rule-card-en.pdf"
    assert len(pages(doc.pdf)) <= 2
    assert_page_size(doc.pdf, A6)
    text = pdf_text(doc.pdf)
    assert "house rules at this table" in text.lower() and "Kafana" in text
    assert "Illegal marriage's queen is also a harlot C-D7: off (changed)" in text
    assert "The Curse replaces the sixes' −20 C-D8: on" in text
    assert_inked(doc.pdf, "cowboy-house-rule-card")


@pytest.mark.parametrize("slug", SLUGS)
def test_every_house_rule_card_still_fits_two_pages(ctx, store, slug):
    game = catalog.GAMES[slug]
    names = [f"P{i}" for i in range(game.max_players)]
    table = make_table(store, slug, names, name="A rather long table name for the card")
    assert len(pages(printing.rule_card(slug, table).pdf)) <= 2


def text_sizes(pdf: bytes) -> Counter:
    """How many characters the PDF prints at each font size (pt, as drawn on the page)."""
    found: Counter = Counter()

    def visit(text, cm, tm, _font, size):
        # the size in Tf, scaled by the text and drawing matrices in force
        a = tm[0] * cm[0] + tm[1] * cm[2]
        b = tm[0] * cm[1] + tm[1] * cm[3]
        c = tm[2] * cm[0] + tm[3] * cm[2]
        d = tm[2] * cm[1] + tm[3] * cm[3]
        if text.strip():
            found[round(size * abs(a * d - b * c) ** 0.5, 1)] += len(text.strip())

    for page in pages(pdf):
        page.extract_text(visitor_text=visit)
    return found


@pytest.mark.parametrize("house", ["defaults", "changed"])
@pytest.mark.parametrize("slug", SLUGS)
def test_every_rule_card_prints_its_body_at_7_5_pt_on_exactly_two_pages(ctx, store, slug, house):
    """Readable at the table: the body (the size most text is set in) is at least
    7.5 pt, nearly every character too (small print only in a grid's header), and
    the card is still one A6 sheet, front and back, whatever its house rules."""
    game = catalog.GAMES[slug]
    if house == "defaults":
        doc = printing.rule_card(slug)
    else:
        names = [f"P{i}" for i in range(game.max_players)]
        settings = changed_house_rule(game)
        table = make_table(store, slug, names, settings, "A rather long table name for the card")
        doc = printing.rule_card(slug, table)
    assert len(pages(doc.pdf)) == 2
    assert_page_size(doc.pdf, A6)
    sizes = text_sizes(doc.pdf)
    body, _count = sizes.most_common(1)[0]
    assert body >= 7.5
    small = sum(n for size, n in sizes.items() if size < 7.5)
    assert small / sum(sizes.values()) < 0.02, sizes


def changed_house_rule(game: catalog.Game) -> dict:
    """The game's first house rule set away from its default (none when it has none)."""
    for setting in game.settings:
        if setting.house_rule:
            if setting.kind == "bool":
                return {setting.key: not setting.default}
            if setting.kind == "choice":
                return {setting.key: next(v for v, _ in setting.options if v != setting.default)}
            return {setting.key: setting.lo if setting.default != setting.lo else setting.hi}
    return {}


def text_layer(pdf: bytes) -> list[tuple[list[str], list[str]]]:
    """Each page's lines of text in order, and apart its list bullets. WeasyPrint
    paints a page's bullets after its text, so on a page painted in two parts the
    first part's bullets come before the second part's text: the same glyphs in
    the same places, in another order."""
    layer = []
    for page in pages(pdf):
        lines = page.extract_text().splitlines()
        bullets = [line for line in lines if line.strip() == "•"]
        layer.append(([line for line in lines if line.strip() != "•"], bullets))
    return layer


def assert_same_pages(whole: bytes, split: bytes, name: str) -> None:
    """The same text on every page and the same pixels."""
    assert text_layer(split) == text_layer(whole)
    whole_pngs = render_png(whole, f"{name}-laid-out-whole")
    split_pngs = render_png(split, f"{name}-house-rules-apart")
    assert len(whole_pngs) == len(split_pngs) == 2
    for a, b in zip(whole_pngs, split_pngs, strict=True):
        assert Image.open(a).tobytes() == Image.open(b).tobytes(), f"{b.name} differs"


@pytest.mark.parametrize("slug", SLUGS)
def test_a_card_with_its_house_rules_laid_out_apart_is_the_card_laid_out_whole(ctx, store, slug):
    # render_pdf_with_insert: the house-rules box is laid out on its own and painted
    # over the kept rest of the card; the pages must come out exactly as from the one
    # document of the whole card, for a table (changed rules, longest name) and plain
    game = catalog.GAMES[slug]
    table = make_table(
        store,
        slug,
        ["Ana", "Bojan", "Ceca"][: game.min_players],
        changed_house_rule(game),
        name="A table name forty characters long, yes!",
    )
    assert len(table.name) == 40  # the longest a name may be
    whole = printing.render_pdf(printing.rule_card_html(slug, table), printing.CARD_CSS)
    printing.rule_card("cowboy")  # another game's card is kept meanwhile: no mix-up
    assert_same_pages(whole, printing.rule_card(slug, table).pdf, f"{slug}-table-card")
    plain = printing.render_pdf(printing.rule_card_html(slug), printing.CARD_CSS)
    assert_same_pages(plain, printing.rule_card(slug).pdf, f"{slug}-plain-card")


def test_a_card_lays_out_only_its_house_rules_once_the_rest_is_kept(ctx, store, monkeypatch):
    printing._kept_layout.cache_clear()
    laid_out: list[str] = []
    layout = printing._layout

    def recording_layout(html, stylesheets):
        laid_out.append(html)
        return layout(html, stylesheets)

    monkeypatch.setattr(printing, "_layout", recording_layout)
    first = make_table(store, "szaman", ["Ola", "Piotr", "Zofia"], name="Kawiarnia")
    printing.rule_card("szaman", first)
    assert len(laid_out) == 2
    fixed, house = sorted(laid_out, key=lambda html: "rc-title" not in html)
    assert "Szaman" in fixed and "S-D1" in fixed and "Kawiarnia" not in fixed
    assert "Kawiarnia" in house and "S-D1" not in house and "rc-title" not in house

    laid_out.clear()
    second = make_table(store, "szaman", ["Ola", "Piotr", "Zofia"], name="Pod Wawelem")
    pdf = printing.rule_card("szaman", second).pdf
    assert len(laid_out) == 1 and "Pod Wawelem" in laid_out[0]  # the box alone
    text = pdf_text(pdf)
    assert "Pod Wawelem" in text and "Kawiarnia" not in text and "Szaman" in text
    assert "S-D1" in text and len(pages(pdf)) == 2


def test_an_insert_that_would_run_over_its_page_is_laid_out_with_the_whole(ctx, store):
    # a box too tall for the room left on the back: the whole document decides where
    # it breaks, as it would without the kept part
    card = printing.rule_card_html("cowboy", part="fixed")
    tall_box = "".join(f"<p>House line {n}</p>" for n in range(30))
    whole_html = printing.rule_card_html("cowboy").replace("</article>", tall_box + "</article>")

    def insert_html(offset: float) -> str:
        return printing.rule_card_html("cowboy", part="house", house_offset=offset).replace(
            "</article>", tall_box + "</article>"
        )

    pdf = printing.render_pdf_with_insert(card, insert_html, whole_html, printing.CARD_CSS)
    whole = printing.render_pdf(whole_html, printing.CARD_CSS)
    assert len(pages(pdf)) == len(pages(whole)) == 3
    assert [p.extract_text() for p in pages(pdf)] == [p.extract_text() for p in pages(whole)]
    assert "House line 29" in pages(pdf)[2].extract_text()


def test_a_card_still_prints_if_weasyprint_cannot_paint_over_a_page(
    ctx, store, monkeypatch, caplog
):
    # a later WeasyPrint asking pages for something _PaintedOver lacks: the whole
    # card is laid out instead, and the log says why
    def lacking(self, stream, scale=1):
        raise AttributeError("'_PaintedOver' object has no attribute 'something_new'")

    monkeypatch.setattr(printing._PaintedOver, "paint", lacking)
    table = make_table(store, "vezimas", ["Rūta", "Jonas", "Eglė"], name="Kiemas")
    pdf = printing.rule_card("vezimas", table).pdf
    whole = printing.render_pdf(printing.rule_card_html("vezimas", table), printing.CARD_CSS)
    assert text_layer(pdf) == text_layer(whole) and "Kiemas" in pdf_text(pdf)
    assert "painting over a kept page failed" in caplog.text


# ---------------------------------------------------------------- blank score sheets


@pytest.mark.parametrize("slug", SLUGS)
def test_blank_sheet_is_a4_with_the_vendored_font(built, slug):
    pdf = built[f"{slug}-score-sheet.pdf"]
    assert len(pages(pdf)) == BLANK_SHEET_PAGES[slug]
    assert_page_size(pdf, A4)
    assert FONT in font_names(pdf)
    assert_inked(pdf, f"{slug}-score-sheet", least=0.02)


def test_cowboy_sheet_has_a_block_per_player_and_every_item(built):
    text = pdf_text(built["cowboy-score-sheet.pdf"])
    for seat in range(1, 5):
        assert f"Player {seat}:" in text
    for item in rulecards.COWBOY_ITEMS:
        assert rulecards.points(item.points) in text
    assert "→ 500" in text and "Brought forward" in text


def test_szaman_sheet_has_six_deals_the_penalty_rounding_and_the_distance(built):
    text = pdf_text(built["szaman-score-sheet.pdf"])
    for head in ("Trick points", "Held Σ", "Penalty", "−⌈Σ/10⌉", "Total", "From 66"):
        assert head in text
    assert "round up" in text and "21 → −3" in text
    assert "6 deals" in text


def test_kvanta_sheet_has_every_column_of_a_round(built):
    text = pdf_text(built["kvanta-score-sheet.pdf"])
    for head in ("Round", "Target", "Turned card", "Flux", "Hand", "Call", "Poker", "Total"):
        assert head in text
    assert "Players 4–6 of 6" in text


def test_vezimas_sheet_tallies_carts_with_dealer_marks(built):
    text = pdf_text(built["vezimas-score-sheet.pdf"])
    for head in ("Dealt ●", "Cart ✗", "Carts", "Trump"):
        assert head in text


def test_pegs_sheet_records_teams_colours_and_games_won(built):
    text = pdf_text(built["pegs-score-sheet.pdf"])
    for head in ("Team 1", "Team 2", "Colour", "Games won: Team 1", "Games won: Team 2"):
        assert head in text


def test_sheet_from_a_table_prefills_names_and_settings(ctx, store):
    table = make_table(store, "szaman", ["Ola", "Piotr", "Zofia", "Łukasz"], {"variant": "russian"})
    doc = printing.blank_sheet("szaman", store, table)
    text = pdf_text(doc.pdf)
    for name in ("Ola", "Piotr", "Zofia", "Łukasz"):
        assert name in text
    assert "Russian variant: no end-of-deal penalty" in text
    assert "Held Σ" not in text  # no penalty columns without a penalty
    assert_inked(doc.pdf, "szaman-table-blank-sheet")


def word_backgrounds(pdf: bytes, word: str, name: str) -> list[float]:
    """The median grey (0 black … 255 white) of the paper around each place ``word``
    is printed: what a pen writes on there. Positions come from ``pdftotext -bbox``,
    pixels from ``pdftoppm`` at 72 dpi (a pixel a point)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    source = ARTIFACTS / f"{name}.pdf"
    source.write_bytes(pdf)
    layout = subprocess.run(
        ["pdftotext", "-bbox", str(source), "-"],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    for old in ARTIFACTS.glob(f"{name}-*.png"):
        old.unlink()
    subprocess.run(
        ["pdftoppm", "-r", "72", "-png", str(source), str(ARTIFACTS / name)],
        check=True,
        timeout=60,
    )
    images = [Image.open(png).convert("L") for png in sorted(ARTIFACTS.glob(f"{name}-*.png"))]
    box = r'xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>'
    found = []
    for image, page in zip(images, layout.split("<page ")[1:], strict=True):
        for x0, y0, x1, y1, text in re.findall(box, page):
            if html.unescape(text) != word:
                continue
            left, top = int(float(x0)) - 2, int(float(y0)) - 2
            area = image.crop((left, top, int(float(x1)) + 3, int(float(y1)) + 3))
            counts, half, seen = area.histogram(), area.width * area.height / 2, 0
            for grey, count in enumerate(counts):
                seen += count
                if seen >= half:
                    found.append(grey)
                    break
    return found


@pytest.mark.parametrize("slug", ["cowboy", "kvanta", "szaman", "vezimas"])
def test_a_blank_sheet_leaves_the_players_names_on_white_paper(ctx, slug):
    """Where a player's name is written (the "Player n" head of his columns) the
    paper is white, not a dark header a pen cannot write on."""
    pdf = printing.render_pdf(printing.blank_sheet_html(slug))
    grounds = word_backgrounds(pdf, "Player", f"{slug}-blank-names")
    assert len(grounds) >= 2
    assert min(grounds) > 230, grounds


@pytest.mark.parametrize("slug", SLUGS)
def test_a_sheet_from_a_table_prints_the_names_on_white(ctx, store, slug):
    names = ["Zuzana", "Ondrej", "Radka", "Milan"][: catalog.GAMES[slug].max_players]
    table = make_table(store, slug, names)
    pdf = printing.blank_sheet(slug, store, table).pdf
    for name in names:
        grounds = word_backgrounds(pdf, name, f"{slug}-table-blank-names")
        assert grounds and min(grounds) > 230, (name, grounds)


# ---------------------------------------------------------------- filled sheets


def test_filled_sheet_shows_history_totals_and_the_winner(ctx, store):
    table = make_table(store, "cowboy", ["Ana", "Bojan", "Ceca"])
    table = add_points(store, table, [[120, 80, -30]] * 4 + [[150, 40, 10]])
    undone = store.entries(table.id)[-1]
    store.void_entry(table.id, undone.id)
    table = add_points(store, store.table(table.id), [[90, 60, -40]])
    doc = printing.filled_sheet(store, table)
    assert doc.filename == f"cowboy-table-{table.id}-score-sheet-en.pdf"
    assert_page_size(doc.pdf, A4)
    assert FONT in font_names(doc.pdf)
    text = pdf_text(doc.pdf)
    assert "Final standings" in text
    assert "Ana 570 Winner" in text
    assert "Bojan 380" in text and "Ceca −160" in text
    assert "Ana wins with 570 (C-D9)" in text
    assert "Score pad · undone" in text
    assert text.count("Score pad") == 6
    assert_inked(doc.pdf, "cowboy-filled-sheet")


def test_filled_sheet_of_a_szaman_table_shows_the_distance_to_the_target(ctx, store):
    table = make_table(store, "szaman", ["Ola", "Piotr", "Zofia"])
    table = add_points(store, table, [[12, 9, 11]] * 6)
    text = pdf_text(printing.filled_sheet(store, table).pdf)
    assert "From 66" in text
    assert "Zofia 66 0 Winner" in text
    assert "Zofia wins: closest to 66 (S-D5)" in text


def test_filled_sheet_of_a_pegs_table_shows_pegs_home(ctx, store):
    table = make_table(store, "pegs", ["Ana", "Bojan", "Ceca", "Dule"])
    board = {
        "0": ["S", "S", "S", "S", "H1"],
        "1": ["S", "S", "S", "H1", "H2"],
        "2": ["S"] * 5,
        "3": ["S"] * 5,
    }
    result = {"seats": 4, "pegs": board, "bumps": [], "winner_team": None}
    store.add_entry(table.id, 1, "pegs-board", {"seats": 4, "pegs": board}, result, {})
    text = pdf_text(printing.filled_sheet(store, store.table(table.id)).pdf)
    assert "2/5 home" in text and "1/5 home" in text and "0/5 home" in text
    assert "Team 2 (Bojan and Dule): 2 of 10 pegs home" in text.replace("\n", " ")


def test_filled_sheet_of_a_letters_table_shows_each_players_letter_boxes(ctx, store):
    """V-D6: with the letters tally the sheet ranks by fewest letters, fills each
    player's boxes of VEŽIMAS and, once one is complete, names the loser."""
    table = make_table(store, "vezimas", ["Jonas", "Rūta", "Asta"], {"tally": "letters"})
    players = store.players(table.id)
    losers = [players[0]] * 7 + [players[1]] * 2
    for round_number, loser in enumerate(losers, start=1):
        request = {"players": [p.name for p in players], "loser": loser.name}
        result = {"points": {loser.name: 1}, "next_dealer": loser.name}
        store.add_entry(table.id, round_number, "vezimas-deal", request, result, {loser.id: 1})
    html = printing.filled_sheet_html(summarize(store, store.table(table.id)))
    assert re.search(r'data-letters="VEŽIMAS">(<span class="letter-box taken">.</span>){7}<', html)
    assert re.search(
        r'data-letters="VE">(<span class="letter-box taken">.</span>){2}'
        r'(<span class="letter-box"></span>){5}<',
        html,
    )
    text = pdf_text(printing.filled_sheet(store, store.table(table.id)).pdf)
    assert "Final standings" in text and "Letters" in text
    assert "Jonas completed VEŽIMAS and loses the session (V-D6)." in text
    assert "Asta Winner" in text and "Loser" in text


def test_blank_sheet_of_a_letters_table_has_the_letter_boxes(ctx, store):
    table = make_table(store, "vezimas", ["Jonas", "Rūta"], {"tally": "letters"})
    doc = printing.blank_sheet("vezimas", store, table)
    assert len(pages(doc.pdf)) == 1
    text = pdf_text(doc.pdf)
    assert "Letter ✗" in text and "V E Ž I M A S V E Ž I M A S" in text
    assert "(V-D6)" in text
    assert "Cart ✗" not in text


def test_filled_sheet_winner_comes_from_the_game_result(ctx, store):
    """C-D9 through game-result: a tie at the top past 500 is no win yet."""
    table = make_table(store, "cowboy", ["Ana", "Bojan", "Ceca"])
    table = add_points(store, table, [[510, 510, 20]])
    text = pdf_text(printing.filled_sheet(store, table).pdf)
    assert "Standings so far" in text and "Winner" not in text
    assert "Tied for the lead at 500 or more: play another deal (C-D9)." in text


def test_filled_sheet_of_a_long_table_runs_over_pages_with_its_header(ctx, store):
    table = make_table(store, "kvanta", ["A", "B", "C", "D", "E", "F"])
    table = add_points(store, table, [[i, -i, 2, 0, 1, -3] for i in range(60)])
    doc = printing.filled_sheet(store, table)
    assert len(pages(doc.pdf)) >= 2
    text = pdf_text(doc.pdf)
    assert "Standings so far" in text and "Game in progress." in text
    assert text.count("Round Entry") >= 2  # the history's header repeats on the next page
    # its last page may hold only the last rounds and the total (never the total alone)
    assert_inked(doc.pdf, "kvanta-filled-sheet-long", least=0.002)
    last_page = pages(doc.pdf)[-1].extract_text()
    assert "Total" in last_page and "Score pad" in last_page


def rows_over_two_pages(document) -> list[str]:
    """The body rows of a laid-out sheet printed partly on one page, partly on the next."""
    from weasyprint.formatting_structure import boxes

    def walk(box):
        yield box
        for child in getattr(box, "children", []):
            if not (isinstance(child, boxes.TableRowGroupBox) and child.is_header):
                yield from walk(child)

    pages_of: dict[int, set[int]] = {}
    texts: dict[int, str] = {}
    for number, page in enumerate(document.pages):
        for box in walk(page._page_box):
            if isinstance(box, boxes.TableRowBox) and box.element is not None:
                pages_of.setdefault(id(box.element), set()).add(number)
                texts[id(box.element)] = " ".join("".join(box.element.itertext()).split())
    return [texts[row] for row, found in pages_of.items() if len(found) > 1]


def test_a_history_row_of_several_lines_is_never_split_over_two_pages(ctx, store):
    """A Pegs move with long names takes three lines: one at a page's foot printed
    its round and "Move" there and its move on the next page, under no round."""
    names = [
        "Александра Константиновић-Петровићевић",
        "Žemaitytė-Račkauskienė Ąžuolė Eglė Ūla",
        "Łucja Grzegorzewska-Wiśniewska Źdźbłoż",
        "Ďurčová Ľubomíra Ťažká Ôsmička Äňa Ŕťé",
    ]
    table = make_table(store, "pegs", names)
    board = {str(seat): ["S"] * 5 for seat in range(4)}
    for n in range(1, 61):
        seat, partner = n % 4, (n + 2) % 4
        steps = [{"seat": seat, "from": "T1", "to": "T4"}]
        bumps = []
        if n % 3:  # a split 7 that bumps: three lines
            steps.append({"seat": partner, "from": "T10", "to": "T14"})
            bumps = [{"seat": (n + 1) % 4, "from": "T14", "to": "S"}]
        move = {"player": seat, "card": "7H" if n % 3 else "3H", "steps": steps}
        result = {"seats": 4, "pegs": board, "bumps": bumps, "winner_team": None}
        store.add_entry(table.id, n, "pegs-apply", move, result, {})
    document = printing._layout(
        printing.sheet_html(store, store.table(table.id)), printing.SHEET_CSS
    )
    assert len(document.pages) >= 3
    assert rows_over_two_pages(document) == []


def test_names_are_printed_as_typed_never_as_markup(ctx, store):
    table = make_table(store, "vezimas", ["<b>Ana</b>", "Jo & Co"], name="<i>Kafana</i>")
    text = pdf_text(printing.filled_sheet(store, table).pdf)
    assert "<b>Ana</b>" in text and "Jo & Co" in text and "<i>Kafana</i>" in text


def test_filled_sheet_of_an_empty_table(ctx, store):
    table = make_table(store, "vezimas", ["Rūta", "Jonas"])
    text = pdf_text(printing.filled_sheet(store, table).pdf)
    assert "No rounds yet." in text and "Rūta" in text


# ---------------------------------------------------------------- the cache


def test_a_second_request_is_served_from_the_cache(ctx, store):
    table = make_table(store, "vezimas", ["Rūta", "Jonas", "Eglė"])
    table = add_points(store, table, [[1, 0, 0]])
    first = printing.filled_sheet(store, table)
    renders = printing.renders
    again = printing.filled_sheet(store, store.table(table.id))
    assert again is first and printing.renders == renders
    changed = add_points(store, table, [[0, 1, 0]])
    assert printing.filled_sheet(store, changed).etag != first.etag
    assert printing.renders == renders + 1


def test_equal_content_renders_once_under_different_keys(ctx, store, monkeypatch):
    # a key the cache has not seen, whose HTML it has: the PDF is reused, not rendered
    table = make_table(store, "kvanta", ["A", "B"])
    first = printing.rule_card("kvanta", table)
    again = printing.printed(
        ("another key",),
        "other.pdf",
        lambda: printing.rule_card_html("kvanta", table),
        printing.CARD_CSS,
        lambda html: pytest.fail("rendered twice"),
    )
    assert again.pdf == first.pdf and again.etag == first.etag
    assert again.filename == "other-en.pdf"


def test_simultaneous_requests_render_once(app, monkeypatch):
    import threading
    import time

    calls = []

    def slow_render(html, stylesheets=None):
        calls.append(html)
        time.sleep(0.2)
        return b"%PDF-slow"

    monkeypatch.setattr(printing, "render_pdf", slow_render)

    def fetch(out: list):
        with app.app_context():
            out.append(printing.blank_sheet("vezimas"))

    results: list = []
    threads = [threading.Thread(target=fetch, args=(results,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(results) == 4 and len(calls) == 1
    assert {r.pdf for r in results} == {b"%PDF-slow"}


def test_weasyprint_is_not_imported_at_app_start_or_by_the_score_command():
    code = textwrap.dedent(
        """
        import sys, tempfile, os
        from scorekeeper import cli, create_app
        from scorekeeper.web import prints
        app = create_app({"TESTING": True, "SECRET_KEY": "t",
                          "DATABASE": os.path.join(tempfile.mkdtemp(), "db.sqlite")})
        app.test_client().get("/rules/cowboy")
        print("weasyprint" in sys.modules)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip() == "False"


def test_pdfs_render_on_a_machine_without_any_fonts(tmp_path):
    """The vendored subset is all WeasyPrint needs: with fontconfig pointed at an
    empty configuration it still renders text in DejaVu Sans."""
    empty = tmp_path / "fonts.conf"
    empty.write_text(
        '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd">'
        f"<fontconfig><cachedir>{tmp_path / 'cache'}</cachedir></fontconfig>"
    )
    pdf = tmp_path / "szaman.pdf"
    code = textwrap.dedent(
        f"""
        from pathlib import Path
        from scorekeeper import create_app, printing
        app = create_app({{"TESTING": True, "SECRET_KEY": "t",
                           "DATABASE": {str(tmp_path / "db.sqlite")!r}}})
        with app.app_context():
            Path({str(pdf)!r}).write_bytes(printing.rule_card("szaman").pdf)
        """
    )
    env = {**os.environ, "FONTCONFIG_FILE": str(empty)}
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=180)
    assert font_names(pdf) <= {FONT, f"{FONT}-Bold"} and FONT in font_names(pdf)
    assert "closest to 66" in pdf_text(pdf)
    assert_inked(pdf, "szaman-rule-card-no-system-fonts")


def test_a_word_spelled_out_is_never_broken_at_its_hyphens():
    html = str(rulecards.markup("the next letter of V-E-Ž-I-M-A-S (V-D6), a 3-5-7"))
    assert '<span class="spelled">V-E-Ž-I-M-A-S</span>' in html
    assert '<span class="did">V-D6</span>' in html and "a 3-5-7" in html


def test_filled_pegs_sheet_prints_each_move_and_the_pegs_home_per_team(ctx, store):
    """A move scores no points: its row says the move as the table page's history
    does (which peg went how far, whose peg it sent back) and its holes, from → to (a
    board can be set up from the sheet), numbered as its turn; a move no board allows
    (imported from elsewhere) by its holes alone; and the sheet ends in the pegs home
    per team (P-D1)."""
    table = make_table(store, "pegs", ["Ana", "Bojan", "Ceca", "Dule"])
    before = {"0": ["T1", "S", "S", "S", "H1"], "1": ["T8", *["S"] * 4], "2": ["S"] * 5}
    before["3"] = ["S"] * 5
    board = {"0": ["T8", "S", "S", "S", "H1"], "1": ["S"] * 5, "2": ["S"] * 5, "3": ["S"] * 5}
    steps = [{"seat": 0, "from": "T1", "to": "T8"}]
    move = {"seats": 4, "pegs": before, "player": 0, "card": "7H", "steps": steps}
    bumped = [{"seat": 1, "from": "T8", "to": "S"}]
    result = {"seats": 4, "pegs": board, "bumps": bumped, "winner_team": None}
    store.add_entry(table.id, 1, "pegs-apply", move, result, {})
    joker = {"player": 1, "card": "JK", "steps": [{"seat": 1, "from": "S", "to": "T20"}]}
    store.add_entry(table.id, 2, "pegs-apply", joker, {**result, "bumps": []}, {})
    text = " ".join(pdf_text(printing.filled_sheet(store, store.table(table.id)).pdf).split())
    assert "Turn Entry Move" in text
    assert "Round" not in text
    assert "Ana played 7: Ana's peg 7 forward, sends Bojan's peg to start. (T1 → T8)" in text
    assert "Bojan: Joker · Bojan's peg start → T20" in text  # no board named: its holes
    assert "Pegs home Team 1 (Ana, Ceca): 1 of 10 · Team 2 (Bojan, Dule): 0 of 10" in text
    assert "Total 0 0 0 0" not in text


def test_a_long_pegs_sheet_carries_its_earlier_turns_forward(ctx, store):
    """A Pegs sheet longer than a sheet holds names the moves it does not print as turns."""
    table = make_table(store, "pegs", ["Ana", "Bojan", "Ceca", "Dule"])
    board = {str(seat): ["S"] * 5 for seat in range(4)}
    result = {"seats": 4, "pegs": board, "bumps": [], "winner_team": None}
    for n in range(1, printing.SHEET_ROWS + 6):
        move = {"player": n % 4, "card": "3H", "steps": [{"seat": n % 4, "from": "T1", "to": "T4"}]}
        store.add_entry(table.id, n, "pegs-apply", move, result, {})
    html = printing.sheet_html(store, store.table(table.id))
    assert "Carried forward from turns 1–5" in html
    assert "Round" not in html and "rounds" not in html


def test_filled_kvanta_sheet_prints_each_rounds_target_and_turned_card(ctx, store):
    table = make_table(store, "kvanta", ["Ana", "Bojan", "Ceca"])
    ana, bojan, ceca = store.players(table.id)
    call = {"target": 14, "caller": "Ana", "sums": {"Ana": 14, "Bojan": 3, "Ceca": 9}}
    store.add_entry(table.id, 1, "kvanta-call", call, {}, {ana.id: 10})
    store.add_entry(
        table.id, 1, "kvanta-poker", {"prize_card": "JH", "hands": {}}, {}, {bojan.id: 3}
    )
    store.add_entry(table.id, 2, "kvanta-call", {**call, "target": 8}, {}, {ceca.id: 4})
    store.void_entry(table.id, store.entries(table.id)[-1].id)  # undone: printed struck, bare
    store.add_entry(table.id, 2, "kvanta-call", {**call, "target": 9}, {}, {ceca.id: 5})
    text = pdf_text(printing.filled_sheet(store, store.table(table.id)).pdf)
    assert "Target Turned card Ana Bojan Ceca" in text
    assert "1 Call 14 J♥ +10 0 0" in text
    assert "2 Call · undone 0 0 +4 2 Call 9 0 0 +5" in text


@pytest.mark.parametrize(
    ("slug", "seen"),
    [("kvanta", "First dealer: Ceca"), ("pegs", "Notes 1 Ceca"), ("cowboy", "Deals first Ceca")],
)
def test_a_blank_sheet_from_a_table_names_its_first_dealer(ctx, store, slug, seen):
    table = make_table(
        store,
        slug,
        ["Ana", "Bojan", "Ceca", "Dule"][: catalog.GAMES[slug].max_players],
        {"first_dealer": 2},
    )
    text = pdf_text(printing.blank_sheet(slug, store, table).pdf)
    assert seen in text
