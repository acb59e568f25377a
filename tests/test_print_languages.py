"""Printables in each of the app's six languages: every rule card and both sheets
render in the language asked for, still fit their pages, and their text comes out
of the PDF as the catalogue says it (no missing glyph).

Two catalogues are tried: the shipped one (English until translators fill it in;
then these tests compare with the translations, whatever they are) and a stand-in
that writes every msgid in the letters of the language (``Accented``), which
proves the text is looked up, not printed as English.
"""

from __future__ import annotations

import io
import re
import subprocess
from html import unescape
from types import SimpleNamespace

import flask_babel
import pytest
from babel import Locale
from fontTools.ttLib import TTFont
from pypdf import PdfReader
from weasyprint.formatting_structure import boxes

from scorekeeper import i18n, pegs_table, printing, rulecards
from scorekeeper.cli import main
from scorekeeper.games import catalog
from scorekeeper.store import Store

SLUGS = tuple(catalog.GAMES)
LANGUAGES = printing.LANGUAGES
BLANK_SHEET_PAGES = {"cowboy": 1, "kvanta": 2, "vezimas": 1, "szaman": 1, "pegs": 1}

# Every letter the six languages write (both cases), and the signs the printables use.
ALPHABETS = {
    "en": "abcdefghijklmnopqrstuvwxyz",
    "sr-Latn": "abcčćdđežfghijklmnoprsštuvzž",
    "sr-Cyrl": "абвгдђежзијклљмнњопрстћуфхцчџш",
    "pl": "aąbcćdeęfghijklłmnńoóprsśtuwyzźż",
    "lt": "aąbcčdeęėfghiįyjklmnoprsštuųūvzž",
    "sk": "aáäbcčdďeéfghiíjklĺľmnňoóôpqrŕsštťuúvwxyýzž",
}
SIGNS = "„“”‚‘’«»–—…−±·→←≤≥⌈⌉Σ×●✗□♠♥♦♣€"


# ---------------------------------------------------------------- a stand-in catalogue

_PLACEHOLDER = re.compile(r"(%\(\w+\)[sd]|%%|%[sd])")
# lower-case letters only: card ranks (A K Q J), decision ids (C-D4) and the
# spelled word (V-E-Ž-I-M-A-S) keep their capitals, as a translation must
_LETTERS = {
    "sr-Latn": str.maketrans("csdzy", "čšđžć"),
    "sr-Cyrl": str.maketrans(
        "abcdefghijklmnopqrstuvwxyz", "абцдефгхијклмнопљрстувњџђз"
    ),  # ћ, џ, ђ, љ, њ in the mix
    "pl": str.maketrans("aceinoszx", "ąćęłńóśźż"),
    "lt": str.maketrans("aeiusczoy", "ąęįųščžėū"),
    "sk": str.maketrans("aolrtdnyek", "äôľŕťďňýéĺ"),
}


def font_names(pdf: bytes) -> set[str]:
    names = set()
    for page in PdfReader(io.BytesIO(pdf)).pages:
        for ref in page["/Resources"].get("/Font", {}).values():
            names.add(str(ref.get_object()["/BaseFont"]).split("+", 1)[-1])
    return names


class Accented:
    """A catalogue that 'translates' every msgid into the letters of a language,
    keeping its %(name)s variables, so a printable in it shows whether each text
    was looked up (and whether the font has the letters). Same length as English."""

    def __init__(self, language: str):
        self.letters = _LETTERS[language]

    def say(self, text: str) -> str:
        parts = _PLACEHOLDER.split(text)
        return "".join(p if i % 2 else p.translate(self.letters) for i, p in enumerate(parts))

    def gettext(self, text: str) -> str:
        return self.say(text)

    def ngettext(self, singular: str, plural: str, num: int) -> str:
        return self.say(singular if num == 1 else plural)

    ugettext, ungettext = gettext, ngettext

    def pgettext(self, _context: str, text: str) -> str:
        return self.say(text)

    def npgettext(self, _context: str, singular: str, plural: str, num: int) -> str:
        return self.ngettext(singular, plural, num)

    upgettext, unpgettext = pgettext, npgettext


class Longer(Accented):
    """``Accented``, each sentence ``share`` longer (its first words again): a
    translation that needs more room than English."""

    def __init__(self, language: str, share: float):
        super().__init__(language)
        self.share = share

    def say(self, text: str) -> str:
        words = super().say(text).split(" ")
        return " ".join(words + words[: round(len(words) * self.share)])


def accented(monkeypatch) -> None:
    """Every language but English prints in its ``Accented`` stand-in."""
    real = printing.catalogue
    monkeypatch.setattr(
        printing,
        "catalogue",
        lambda language: real(language) if language == "en" else Accented(language),
    )


# ---------------------------------------------------------------- reading a PDF


def pdftotext(pdf: bytes) -> str:
    out = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", "-", "-"], input=pdf, capture_output=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.decode("utf-8")


def _squeezed(text: str) -> str:
    """Without the spaces, line breaks and hyphens a layout adds or moves (a break
    after a hyphen, a soft hyphen shown at a break, table cells side by side)."""
    return re.sub(r"[\s\u00ad\-‐‑–—]+", "", text)


def assert_says(pdf_text: str, texts, where: str) -> None:
    """Each word of ``texts`` (translated, markup removed) is in the PDF's text."""
    found = _squeezed(pdf_text)
    missing = []
    for text in texts:
        for word in re.split(r"[\s\u00ad]+", text.replace("**", "")):
            if _squeezed(word) and _squeezed(word) not in found:
                missing.append(word)
    assert not missing, f"{where}: not in the PDF: {missing[:12]}"


_WORD_BOX = re.compile(
    r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>'
)
_LINE_END_HYPHENS = ("\u2010", "-", "\u00ad")  # WeasyPrint's hyphenation character first


# a content stream's tokens: a string, an array's bracket, or a name, number or operator
_TOKEN = re.compile(rb"<[^>]*>|\((?:\\.|[^\\()])*\)|[\[\]]|[^\s\[\]<>()]+")


def _times(m: list[float], n: list[float]) -> list[float]:
    """The PDF matrix product m × n (each as its six numbers a b c d e f)."""
    a, b, c, d, e, f = m
    return [
        a * n[0] + b * n[2],
        a * n[1] + b * n[3],
        c * n[0] + d * n[2],
        c * n[1] + d * n[3],
        e * n[0] + f * n[2] + n[4],
        e * n[1] + f * n[3] + n[5],
    ]


def _rectangles(page) -> set[tuple[float, float, float, float]]:
    """The rectangles a PDF page draws or clips to (a table cell's background among
    them) as (left, top, right, bottom) in points from the page's top left, as
    ``pdftotext -bbox`` places words. The content stream is read for its q, Q, cm and re
    alone (pypdf's text extraction would read it all, ten times slower)."""
    height = float(page.mediabox.top)
    found = set()
    ctm, saved, operands = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0], [], []
    for token in _TOKEN.findall(page.get_contents().get_data()):
        if token[:1] in b"<([]/+-.0123456789":
            operands.append(token)
            continue
        if token == b"q":
            saved.append(ctm)
        elif token == b"Q":
            ctm = saved.pop()
        elif token == b"cm":
            ctm = _times([float(v) for v in operands[-6:]], ctm)
        elif token == b"re":
            x, y, w, h = (float(v) for v in operands[-4:])
            (x0, y0), (x1, y1) = (
                (ctm[0] * px + ctm[2] * py + ctm[4], height - (ctm[1] * px + ctm[3] * py + ctm[5]))
                for px, py in ((x, y), (x + w, y + h))
            )
            found.add((min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)))
        operands = []
    return found


def _read_lines(words: list) -> str:
    """The words of one cell line by line, a line ending in a hyphenation's hyphen
    joined to the next line's first word ("Prakeik‐" + "smas")."""
    lines: list[list] = []
    for word in sorted(words, key=lambda w: (w.top, w.left)):
        if lines and word.top < lines[-1][0].top + (word.bottom - word.top) / 2:
            lines[-1].append(word)
        else:
            lines.append([word])
    text = ""
    for line in lines:
        if text.endswith(_LINE_END_HYPHENS):
            text = text[:-1]
        elif text:
            text += " "
        text += " ".join(w.text for w in sorted(line, key=lambda w: w.left))
    return text


def printed_cells(pdf: bytes) -> list[str]:
    """A sheet's text cell by cell as printed (a word outside any cell alone), each
    cell's lines read in order and a word hyphenated at a line end read whole
    ("Prakeik‐" over "smas": "Prakeiksmas"). Words are placed by ``pdftotext -bbox``,
    a word's cell is the smallest rectangle drawn around it (a head's background):
    ``pdftotext``'s flowing text runs the lines of heads side by side together
    ("Ladaczni‐ Niel. ma‐ ce riaż"), so no head split over two lines reads whole."""
    out = subprocess.run(
        ["pdftotext", "-bbox", "-", "-"], input=pdf, capture_output=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    read = []
    bboxes = out.stdout.decode("utf-8").split("<page ")[1:]
    for page, bbox in zip(PdfReader(io.BytesIO(pdf)).pages, bboxes, strict=True):
        rectangles = _rectangles(page)
        cells: dict[object, list] = {}
        for x0, y0, x1, y1, text in _WORD_BOX.findall(bbox):
            word = SimpleNamespace(
                left=float(x0),
                top=float(y0),
                right=float(x1),
                bottom=float(y1),
                text=unescape(text),
            )
            x, y = (word.left + word.right) / 2, (word.top + word.bottom) / 2
            around = [r for r in rectangles if r[0] <= x <= r[2] and r[1] <= y <= r[3]]
            cell = min(around, key=lambda r: (r[2] - r[0]) * (r[3] - r[1]), default=id(word))
            cells.setdefault(cell, []).append(word)
        read += [_read_lines(words) for words in cells.values()]
    return read


def printed_words(pdf: bytes) -> list[str]:
    """A sheet's words as printed, each read whole (see ``printed_cells``)."""
    return [word for cell in printed_cells(pdf) for word in cell.split(" ")]


def assert_prints(words: list[str], texts, where: str) -> None:
    """Each word of ``texts`` is printed whole: within one of the ``words`` read
    (``printed_words``), hyphens aside. A head's pieces left apart, in two columns
    or out of order, is no word of it."""
    read = [_squeezed(w) for w in words]
    missing = []
    for text in texts:
        for word in re.split(r"[\s\u00ad]+", text.replace("**", "")):
            if _squeezed(word) and not any(_squeezed(word) in w for w in read):
                missing.append(word)
    assert not missing, f"{where}: not printed whole: {missing[:12]}"


def page_count(pdf: bytes) -> int:
    return len(PdfReader(io.BytesIO(pdf)).pages)


def body_size(pdf: bytes) -> float:
    """The font size (pt) most characters are printed at."""
    sizes: dict[float, int] = {}

    def visit(text, cm, tm, _font, size):
        # the size in Tf, scaled by the text and drawing matrices in force
        a = tm[0] * cm[0] + tm[1] * cm[2]
        b = tm[0] * cm[1] + tm[1] * cm[3]
        c = tm[2] * cm[0] + tm[3] * cm[2]
        d = tm[2] * cm[1] + tm[3] * cm[3]
        if text.strip():
            key = round(size * abs(a * d - b * c) ** 0.5, 1)
            sizes[key] = sizes.get(key, 0) + len(text.strip())

    for page in PdfReader(io.BytesIO(pdf)).pages:
        page.extract_text(visitor_text=visit)
    return max(sizes, key=sizes.get)


def _walk(box):
    yield box
    for child in getattr(box, "children", []):
        yield from _walk(child)


def card_layout(html: str):
    """A card laid out as ``rule_card`` prints it: with the first of its stylesheets
    that keeps it to two pages (the last one if none does); and which one, 0 first."""
    ladder = (printing.CARD_CSS, *printing.CARD_TIGHTER)
    for step, stylesheets in enumerate(ladder):  # noqa: B007 (the step it stopped at)
        document = printing._layout(html, stylesheets)
        if len(document.pages) <= printing.CARD_PAGES:
            return document, step
    return document, len(ladder) - 1


def free_mm(document) -> list[float]:
    """Each page's free space under its last line (or bordered box), in mm."""
    free = []
    for page in document.pages:
        page_box = page._page_box
        inked = [
            b
            for b in _walk(page_box)
            if isinstance(b, (boxes.LineBox, boxes.TableRowBox))
            or (isinstance(b, boxes.BlockBox) and b.border_bottom_width)
        ]
        bottom = max(b.position_y + b.margin_height() for b in inked)
        free.append((page_box.content_box_y() + page_box.height - bottom) * 25.4 / 96)
    return free


# ---------------------------------------------------------------- what a card says


def card_texts(card: rulecards.RuleCard, found) -> list[str]:
    """Every text of a card as it must print in the catalogue ``found``."""

    def say(text: str) -> str:
        return printing.say(text, found)

    texts = [say(card.game.subtitle), *(say(f) for f in card.facts)]
    for s in card.sections:
        texts.append(say(s.title).upper())  # the card sets its titles in capitals
        texts += [say(t) for t in (*s.text, *s.steps, *s.bullets, *s.after)]
        if s.grid:
            texts += [say(h) for h in s.grid.head]
            if len(s.grid.rows) < printing.CARD_TWO_UP_ROWS:  # a two-up grid prints no note
                texts.append(say(s.grid.note))
            texts += [say(cell) for row in s.grid.rows for cell in row]
    texts.append(say("Decisions").upper())
    texts += [say(d.text) for d in card.decisions]
    return texts


# ---------------------------------------------------------------- fixtures


@pytest.fixture
def ctx(app):
    with app.app_context():
        yield


def make_table(store: Store, game: str, names, settings=None, name="Friday night"):
    settings = {**catalog.GAMES[game].defaults(), **(settings or {})}
    out = store.create_table(game, name, list(names), settings)
    return store.table(out["table_id"])


# ---------------------------------------------------------------- the font


def test_the_vendored_fonts_cover_every_letter_of_the_six_languages():
    letters = "".join(ALPHABETS.values())
    wanted = set(letters + letters.upper() + SIGNS)
    for face in ("DejaVuSans-subset.ttf", "DejaVuSans-Bold-subset.ttf"):
        cmap = TTFont(printing.PRINTABLES / "fonts" / face).getBestCmap()
        missing = sorted(c for c in wanted if ord(c) not in cmap)
        assert not missing, f"{face} lacks {''.join(missing)}"


def test_a_pdf_of_every_letter_reads_back_as_the_same_letters(ctx):
    lines = [
        *(f"{tag}: {letters} {letters.upper()}" for tag, letters in ALPHABETS.items()),
        SIGNS,
    ]
    body = "".join(f"<p>{line}</p><p><strong>{line}</strong></p>" for line in lines)
    html = f'<!doctype html><html lang="sr"><body>{body}</body></html>'
    text = pdftotext(printing.render_pdf(html, printing.CARD_CSS))
    # no box, no lookalike, no letter lost: the text layer is the source, letter for letter
    assert text.split() == " ".join(line for line in lines for _face in range(2)).split()
    assert "\ufffd" not in text


# ---------------------------------------------------------------- rule cards


# the shipped catalogue of each language, and each stand-in (English has none)
SPEAKING = [(language, "shipped") for language in LANGUAGES] + [
    (language, "accented") for language in LANGUAGES if language != "en"
]


def speaking(monkeypatch, language: str, catalogues: str):
    """The catalogue the printables of ``language`` must speak."""
    if catalogues == "accented":
        accented(monkeypatch)
    return printing.catalogue(language)


@pytest.mark.parametrize("language, catalogues", SPEAKING)
def test_every_rule_card_prints_in_the_language_on_two_pages(
    ctx, monkeypatch, language, catalogues
):
    """Each card: two A6 pages, the body at 7.5 pt or more, and every word as the
    language's catalogue has it."""
    found = speaking(monkeypatch, language, catalogues)
    for slug in SLUGS:
        pdf = printing.rule_card(slug, language=language).pdf
        assert page_count(pdf) == 2, (slug, language)
        assert body_size(pdf) >= 7.5, (slug, language)
        assert_says(pdftotext(pdf), card_texts(rulecards.card(slug), found), f"{slug}/{language}")


@pytest.mark.parametrize("language, catalogues", SPEAKING)
def test_every_rule_card_has_room_left_on_its_pages(ctx, monkeypatch, language, catalogues):
    """Free space under the last line of each page (the room a longer translation
    may take): nothing runs onto a third page. The fullest card is printed for the
    report (``pytest -s``), with the step of the ladder it needed (0: card.css alone)."""
    speaking(monkeypatch, language, catalogues)
    fullest = []
    for slug in SLUGS:
        document, step = card_layout(printing.rule_card_html(slug, language=language))
        free = free_mm(document)
        assert len(free) == 2 and min(free) >= 0, (slug, free)
        fullest.append((step, -min(free), slug, free))
    step, _least, slug, free = max(fullest)
    shown = [round(f, 1) for f in free]
    print(f"\n{language} ({catalogues}): fullest card {slug}, step {step}, free mm {shown}")


# the faces' names in the PDF: the @font-face family, and the font's own style
REGULAR = {"Scorekeeper-DejaVu-Sans", "Scorekeeper-DejaVu-Sans-Bold"}
CONDENSED = {
    "Scorekeeper-DejaVu-Sans-Condensed,-Semi-Condensed",
    "Scorekeeper-DejaVu-Sans-Condensed,-Bold-Semi-Condensed",
}


@pytest.mark.parametrize("share, step, fonts", [(0.1, 1, REGULAR), (0.2, 2, CONDENSED)])
def test_a_card_too_long_for_its_pages_prints_tighter_not_longer(
    ctx, monkeypatch, share, step, fonts
):
    """A translation a tenth or a fifth longer than English: the Cowboy card
    (the fullest) still prints on two pages at 7.5 pt, with tighter lines, then
    in the condensed face too; English keeps the roomy card in the regular face."""
    found = Longer("pl", share)
    monkeypatch.setattr(printing, "catalogue", lambda _language: found)
    assert card_layout(printing.rule_card_html("cowboy", language="pl"))[1] == step
    pdf = printing.rule_card("cowboy", language="pl").pdf
    assert page_count(pdf) == 2
    assert body_size(pdf) >= 7.5
    assert font_names(pdf) == fonts
    assert_says(pdftotext(pdf), card_texts(rulecards.card("cowboy"), found), f"+{share:.0%}")
    monkeypatch.undo()
    assert card_layout(printing.rule_card_html("cowboy"))[1] == 0
    assert font_names(printing.rule_card("cowboy").pdf) == REGULAR


@pytest.mark.parametrize("language, catalogues", SPEAKING)
def test_a_tables_card_lists_its_house_rules_in_the_language(
    ctx, store, monkeypatch, language, catalogues
):
    found = speaking(monkeypatch, language, catalogues)
    table = make_table(store, "vezimas", ["Ana", "Bojan", "Ceca"], {"tally": "letters"})
    pdf = printing.rule_card("vezimas", table, language).pdf
    assert page_count(pdf) == 2
    house = rulecards.house_rules(catalog.GAMES["vezimas"], table.settings)
    texts = [printing.say("House rules at this table", found).upper(), "Friday night"]
    texts += [printing.say(h.label, found) for h in house] + [printing.say("(changed)", found)]
    assert_says(pdftotext(pdf), texts, f"vezimas table card/{language}")


def test_a_compiled_catalogue_is_what_the_printables_speak(tmp_path, monkeypatch):
    """The catalogue is the one the app's pages read (a compiled
    ``<dir>/LC_MESSAGES/messages.mo``, ``sr_Latn`` for ``sr-Latn``)."""
    from babel.messages.catalog import Catalog
    from babel.messages.mofile import write_mo

    from scorekeeper import create_app

    words = {"Setup": "Priprema", "Decisions": "Odluke", "Score sheet": "Lista poena"}
    folder = tmp_path / "translations" / "sr_Latn" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    compiled = Catalog(locale="sr_Latn")
    for msgid, msgstr in words.items():
        compiled.add(msgid, msgstr)
    with open(folder / "messages.mo", "wb") as out:
        write_mo(out, compiled)
    monkeypatch.setattr(i18n, "DIRECTORY", tmp_path / "translations")
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "db.sqlite"), "SECRET_KEY": "t"})
    with app.app_context():
        i18n.catalogue_for.cache_clear()  # catalogues are loaded once per process
        try:
            speaks_the_compiled_catalogue()
        finally:
            i18n.catalogue_for.cache_clear()  # this test's catalogue is for this test only


def speaks_the_compiled_catalogue() -> None:
    assert printing.catalogue("sr-Latn").gettext("Setup") == "Priprema"
    assert printing.catalogue("pl").gettext("Setup") == "Setup"  # none here: English
    card = printing.rule_card_html("szaman", language="sr-Latn")
    assert "<h2>Priprema</h2>" in card and ">Odluke</h2>" in card
    assert "<title>Szaman · Lista poena</title>" in printing.blank_sheet_html(
        "szaman", language="sr-Latn"
    )
    assert "<h2>Setup</h2>" in printing.rule_card_html("szaman")


def test_an_unknown_language_is_refused(ctx):
    with pytest.raises(ValueError, match="not a language of the app: “de”"):
        printing.rule_card_html("cowboy", language="de")
    assert printing.language_tag("sr_latn") == "sr-Latn"
    assert printing.language_tag(Locale.parse("sr_Cyrl")) == "sr-Cyrl"
    assert printing.language_tag("de") is None


# ---------------------------------------------------------------- score sheets


def sheet_words(slug: str, found) -> list[str]:
    """Words every blank sheet of ``slug`` prints (its labels), in ``found``."""
    say = lambda text: printing.say(text, found)  # noqa: E731
    pages = BLANK_SHEET_PAGES[slug]
    footer = say(printing.PAGE_OF_PAGES) % {"page": pages, "pages": pages}  # the last page's
    texts = [say(catalog.GAMES[slug].subtitle), say("Table"), say("Date"), footer]
    if slug == "cowboy":
        texts += [say(item.short) for item in rulecards.COWBOY_ITEMS]
    if slug == "szaman":
        texts += [say(label) for label, _points in rulecards.SZAMAN_TRICK_POINTS]
    return texts


@pytest.mark.parametrize("language, catalogues", SPEAKING)
def test_every_blank_sheet_prints_in_the_language(ctx, monkeypatch, language, catalogues):
    found = speaking(monkeypatch, language, catalogues)
    for slug in SLUGS:
        html = printing.blank_sheet_html(slug, language=language)
        assert f'<html lang="{language}">' in html
        pdf = printing.blank_sheet(slug, language=language).pdf
        assert page_count(pdf) == BLANK_SHEET_PAGES[slug], (slug, language)
        assert_prints(printed_words(pdf), sheet_words(slug, found), f"{slug} sheet/{language}")
        if slug == "cowboy":  # each item's head whole in a cell of its own, a block a seat
            cells = printed_cells(pdf)
            for item in rulecards.COWBOY_ITEMS:
                short = printing.say(item.short, found).replace("\u00ad", "")  # soft hyphens
                head = f"{short} {rulecards.points(item.points)}"
                assert cells.count(head) == catalog.GAMES[slug].max_players, (head, language)


@pytest.mark.parametrize("language, catalogues", SPEAKING)
def test_a_filled_sheet_prints_in_the_language(ctx, store, monkeypatch, language, catalogues):
    found = speaking(monkeypatch, language, catalogues)
    table = make_table(store, "szaman", ["Ana", "Bojan", "Ceca"])
    players = store.players(table.id)
    for round_number in (1, 2):
        points = {players[0].id: 12, players[1].id: -3}
        store.add_entry(table.id, round_number, "manual-points", {}, {}, points)
    table = store.table(table.id)
    assert f'<html lang="{language}">' in printing.sheet_html(store, table, language)
    pdf = printing.filled_sheet(store, table, language).pdf
    assert page_count(pdf) == 1
    texts = [printing.say(t, found) for t in ("Standings so far", "History", "Round", "Total")]
    texts += ["Ana", "Bojan", "Ceca", "+12", "24"]
    assert_prints(printed_words(pdf), texts, f"filled sheet/{language}")


@pytest.mark.parametrize(
    "language, written",
    [("en", "1,250"), ("sr-Latn", "1.250"), ("pl", "1\u00a0250"), ("sk", "1\u00a0250")],
)
def test_a_filled_sheet_writes_numbers_as_its_language_does(ctx, store, language, written):
    table = make_table(store, "cowboy", ["Ana", "Bojan", "Ceca"])
    players = store.players(table.id)
    store.add_entry(
        table.id, 1, "manual-points", {}, {}, {players[0].id: 1250, players[1].id: -1250}
    )
    html = printing.sheet_html(store, store.table(table.id), language)
    assert f">+{written}<" in html and f">\u2212{written}<" in html  # the round and the totals
    assert f">{written}<" in html


def test_page_numbers_are_css_strings_and_counters_in_the_translations_order():
    class Reordered:
        def gettext(self, _text):
            return 'von %(pages)s "Seite" %(page)s</style>'

    assert str(printing.page_numbers(printing.catalogue("en"))) == (
        '"page " counter(page) " of " counter(pages)'
    )
    assert str(printing.page_numbers(Reordered())) == (
        '"von " counter(pages) " \\22 Seite\\22  " counter(page) "\\3c /style\\3e "'
    )


def test_printing_leaves_the_app_screens_their_own_number_filters(app):
    from scorekeeper import messages

    with app.app_context():
        printing.blank_sheet_html("cowboy", language="sk")
        assert app.jinja_env.filters["signed"] is messages.signed
        assert app.jinja_env.filters["points"] is messages.points


def test_a_pegs_move_on_the_sheet_is_said_in_the_sheets_language_as_the_page_says_it():
    # printed outside a request: no page language to fall back on, only the sheet's
    pegs = {str(seat): ["S"] * 5 for seat in range(4)}
    pegs["0"], pegs["1"] = ["T5", "T30", "S", "S", "S"], ["T8", "S", "S", "S", "S"]
    names = ["Ana", "Bojan", "Ceca", "Dule"]

    def move(card: str, step: dict) -> SimpleNamespace:
        request = {"seats": 4, "pegs": pegs, "player": 0, "card": card, "steps": [step]}
        return SimpleNamespace(kind=pegs_table.APPLY_KIND, request=request, result={})

    three = move("3H", {"seat": 0, "from": "T5", "to": "T8"})
    english = printing._pegs_move(three, names, printing.catalogue("en"))
    assert english == (
        "Ana played 3: Ana's front peg 3 forward, sends Bojan's peg to start. (T5 → T8)"
    )
    slovak = printing._pegs_move(three, names, printing.catalogue("sk"))
    assert slovak == (
        "Ana hrá 3: predný kolík hráča Ana o 3 dopredu, posiela kolík hráča Bojan na štart."
        " (T5 → T8)"
    )
    ace = move("AH", {"seat": 0, "from": "S", "to": "T8"})  # out of start: a word
    assert printing._pegs_move(ace, names, printing.catalogue("sk")).endswith("(štart → T8)")


def test_a_pegs_move_no_board_allows_is_written_by_its_holes_in_the_sheets_language():
    move = SimpleNamespace(
        kind=pegs_table.APPLY_KIND,
        request={"player": 0, "card": "7H", "steps": [{"seat": 0, "from": "S", "to": 8}]},
        result={"bumps": [{"seat": 1, "from": 8, "to": "S"}]},
    )
    names = ["Ana", "Bojan"]
    english = printing._pegs_move(move, names, printing.catalogue("en"))
    assert english == "Ana: 7 · Ana's peg start → 8 · bumps Bojan's peg 8 → start"
    polish = printing._pegs_move(move, names, Accented("pl"))
    assert polish == "Ana: 7 · Ana'ś pęg śtąrt → 8 · bumpś Bojan'ś pęg 8 → śtąrt"


def test_a_discard_and_a_board_set_by_hand_on_the_sheet_are_in_the_sheets_language():
    # printed outside a request: no page language to fall back on, only the sheet's
    def board_entry(request: dict):
        return SimpleNamespace(kind=pegs_table.BOARD_KIND, request=request, result={})

    names, slovak = ["Ana", "Bojan"], printing.catalogue("sk")
    discard = board_entry({"discard": {"seat": 1, "card": "5H"}})
    assert printing._pegs_move(discard, names, slovak) == "Bojan odhadzuje 5."
    joker = board_entry({"discard": {"seat": 0, "card": "JK"}})
    assert printing._pegs_move(joker, names, slovak) == "Ana odhadzuje žolíka."
    by_hand = board_entry({})
    assert printing._pegs_move(by_hand, names, slovak) == "Doska bola nastavená ručne."


def test_the_same_sheet_in_two_languages_is_two_pdfs(ctx, monkeypatch):
    accented(monkeypatch)
    english = printing.blank_sheet("vezimas")
    polish = printing.blank_sheet("vezimas", language="pl")
    assert english.etag != polish.etag
    assert printing.blank_sheet("vezimas", language="pl") is polish  # cached per language
    assert printing.say("Deal", Accented("pl")) in pdftotext(polish.pdf)
    assert printing.say("Deal", Accented("pl")) not in pdftotext(english.pdf)


# ---------------------------------------------------------------- over the web


@pytest.fixture
def polish_request(monkeypatch):
    """Requests speak Polish (as the app's locale choice would decide), in the stand-in."""
    accented(monkeypatch)
    monkeypatch.setattr(flask_babel, "get_locale", lambda: Locale.parse("pl"))
    pl = Accented("pl")
    monkeypatch.setattr(i18n, "translations", lambda: pl)
    return pl


def test_the_pdf_routes_print_in_the_requests_language(client, store, polish_request):
    szaman = rulecards.card("szaman")
    text = pdftotext(client.get("/print/szaman/rule-card.pdf").data)
    assert_says(text, card_texts(szaman, polish_request), "rule card route")
    text = pdftotext(client.get("/print/szaman/score-sheet.pdf").data)
    assert_says(text, sheet_words("szaman", polish_request), "blank sheet route")
    table = make_table(store, "szaman", ["Ana", "Bojan"])
    for path, words in (
        ("rule-card.pdf", [polish_request.say("House rules at this table").upper()]),
        ("blank-sheet.pdf", sheet_words("szaman", polish_request)),
        ("score-sheet.pdf", [polish_request.say("No rounds yet.")]),
    ):
        response = client.get(f"/t/{table.scorer_key}/{path}")
        assert response.status_code == 200, path
        assert_says(pdftotext(response.data), words, path)


def print_links(store) -> list[str]:
    """Every PDF route: a game's card and sheet, and a table's three downloads."""
    table = make_table(store, "kvanta", ["Ana", "Bojan"])
    return [
        "/print/kvanta/rule-card.pdf",
        "/print/kvanta/score-sheet.pdf",
        *(
            f"/t/{table.scorer_key}/{kind}.pdf"
            for kind in ("rule-card", "score-sheet", "blank-sheet")
        ),
    ]


@pytest.mark.parametrize("asked", ["xx", "zz", "de", "en-GB", "pl-PL", "'><b>" + "x" * 300])
def test_a_print_link_with_a_language_the_app_lacks_is_refused(app, client, store, asked):
    renders = printing.renders
    for link in print_links(store):
        response = client.get(link, query_string={"lang": asked})
        assert response.status_code == 400, link
        assert response.mimetype == "text/html", link
        page = response.get_data(as_text=True)
        assert "is not a language of Scorekeeper" in page, link
        assert "(en, sr-Latn, sr-Cyrl, pl, lt, sk)" in page, link
        assert "<b>x" not in page and "x" * 40 not in page, link  # escaped, and cut short
    assert printing.renders == renders  # nothing printed
    with app.app_context():
        assert printing.cache().get(("rule-card", "kvanta")) is None


def test_the_refusal_of_a_language_speaks_the_phones_language(client, store):
    client.set_cookie(i18n.COOKIE, "pl")
    for link in print_links(store):
        response = client.get(link, query_string={"lang": "xx"})
        assert response.status_code == 400, link
        polish = i18n.catalogue_for("pl").gettext(
            "“%(language)s” is not a language of Scorekeeper (%(languages)s)."
        )
        said = polish % {"language": "xx", "languages": ", ".join(LANGUAGES)}
        assert said in unescape(response.get_data(as_text=True)), link


def test_a_known_language_or_none_on_a_print_link_prints(client, store, monkeypatch):
    stub_renders(monkeypatch)
    for link in print_links(store):
        for query in ({}, {"lang": ""}, {"lang": "sr-latn"}, {"lang": "sk"}):
            response = client.get(link, query_string=query)
            assert response.status_code == 200, (link, query)
            assert response.mimetype == "application/pdf"
    assert b'<html lang="sr-Latn">' in client.get(print_links(store)[0] + "?lang=sr_latn").data


def stub_renders(monkeypatch) -> None:
    """PDFs are their HTML: the routes, names and caching without WeasyPrint's time."""
    monkeypatch.setattr(printing, "render_pdf", lambda html, *_a, **_k: b"%PDF-" + html.encode())
    monkeypatch.setattr(printing, "render_isolated", lambda html, *_a: b"%PDF-" + html.encode())
    monkeypatch.setattr(
        printing, "render_pdf_with_insert", lambda _f, _i, whole, *_rest: b"%PDF-" + whole.encode()
    )


def test_a_downloads_name_says_its_language(client, store, monkeypatch):
    stub_renders(monkeypatch)
    settings = catalog.GAMES["kvanta"].defaults()
    made = store.create_table("kvanta", "Friday night", ["Ana", "Bojan"], settings, language="sk")
    table = store.table(made["table_id"])
    expected = {
        "/print/kvanta/rule-card.pdf": "kvanta-rule-card-{}.pdf",
        "/print/kvanta/score-sheet.pdf": "kvanta-score-sheet-{}.pdf",
        f"/t/{table.scorer_key}/rule-card.pdf": f"kvanta-table-{table.id}-rule-card-{{}}.pdf",
        f"/t/{table.scorer_key}/blank-sheet.pdf": f"kvanta-table-{table.id}-blank-sheet-{{}}.pdf",
        f"/t/{table.scorer_key}/score-sheet.pdf": f"kvanta-table-{table.id}-score-sheet-{{}}.pdf",
    }
    for link, name in expected.items():
        for language in LANGUAGES:
            response = client.get(link, query_string={"lang": language})
            disposition = response.headers["Content-Disposition"]
            assert disposition == f'attachment; filename="{name.format(language)}"', link
            assert disposition.isascii()
        # no ?lang=: the table's language, else the phone's, named as such
        response = client.get(link, headers={"Accept-Language": "pl"})
        spoken = "sk" if link.startswith("/t/") else "pl"
        assert response.headers["Content-Disposition"].endswith(f'-{spoken}.pdf"'), link


def rules_links(store) -> list[str]:
    """Every Rules page: the games' index, a game's page, and a (Slovak) table's."""
    out = store.create_table(
        "kvanta",
        "Friday night",
        ["Ana", "Bojan"],
        catalog.GAMES["kvanta"].defaults(),
        language="sk",
    )
    return ["/rules", "/rules/kvanta", f"/t/{store.table(out['table_id']).scorer_key}/rules"]


@pytest.mark.parametrize("asked", ["xx", "de", "en-GB", "'><b>" + "x" * 300])
def test_a_rules_page_asking_for_a_language_the_app_lacks_is_refused(client, store, asked):
    for link in rules_links(store):
        response = client.get(link, query_string={"lang": asked})
        assert response.status_code == 400, link
        page = response.get_data(as_text=True)
        assert "rc-title" not in page and "Rules of the five games" not in page, link
        assert "<b>x" not in page and "x" * 40 not in page, link  # escaped, and cut short
        if link.startswith("/t/"):
            continue  # the table's language: below
        assert "is not a language of Scorekeeper" in page, link
        assert "(en, sr-Latn, sr-Cyrl, pl, lt, sk)" in page, link


def test_a_rules_pages_refusal_speaks_the_phones_or_the_tables_language(client, store):
    def refusal(language: str) -> str:
        said = i18n.catalogue_for(language).gettext(
            "“%(language)s” is not a language of Scorekeeper (%(languages)s)."
        )
        return said % {"language": "xx", "languages": ", ".join(LANGUAGES)}

    links = rules_links(store)
    table_page = client.get(links[-1], query_string={"lang": "xx"})
    assert refusal("sk") in unescape(table_page.get_data(as_text=True))
    client.set_cookie(i18n.COOKIE, "pl")
    for link in links:
        response = client.get(link, query_string={"lang": "xx"})
        assert response.status_code == 400, link
        assert refusal("pl") in unescape(response.get_data(as_text=True)), link


def test_a_known_language_or_none_on_a_rules_page_shows_it(client, store):
    for link in rules_links(store):
        for query in ({}, {"lang": ""}, {"lang": "sk"}, {"lang": "sr-latn"}):
            assert client.get(link, query_string=query).status_code == 200, (link, query)
    html = client.get("/rules/kvanta", query_string={"lang": "sr_latn"}).get_data(as_text=True)
    assert '<html lang="sr-Latn"' in html


def test_the_rules_page_shows_the_card_in_the_requests_language(client, polish_request):
    html = client.get("/rules/szaman").get_data(as_text=True)
    card = rulecards.card("szaman")
    for section in card.sections:
        assert str(rulecards.markup(polish_request.say(section.title))) in html
        for text in (*section.text, *section.steps, *section.bullets, *section.after):
            assert str(rulecards.markup(polish_request.say(text))) in html
    for decision in card.decisions:
        assert str(rulecards.markup(polish_request.say(decision.text))) in html
    assert polish_request.say("Every card followed suit") in html


# ---------------------------------------------------------------- scorekeeper print


def test_print_builds_a_folder_a_language(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(
        printing, "render_pdf", lambda html, *_args, **_kw: b"%PDF-" + html.encode()
    )
    monkeypatch.setattr(
        printing, "render_pdf_with_insert", lambda _f, _i, whole, *_rest: whole.encode()
    )
    out = tmp_path / "build"
    assert (
        main(["print", "--lang", "all", "-o", str(out), "--db", str(tmp_path / "db.sqlite")]) == 0
    )
    for language in LANGUAGES:
        files = sorted(p.name for p in (out / language).iterdir())
        assert files == sorted(
            f"{slug}-{kind}.pdf" for slug in SLUGS for kind in ("rule-card", "score-sheet")
        )
        assert (
            f'<html lang="{language}">'.encode()
            in (out / language / "cowboy-rule-card.pdf").read_bytes()
        )
    assert len(capsys.readouterr().out.splitlines()) == 10 * len(LANGUAGES)
    assert (
        main(
            [
                "print",
                "--lang",
                "sk",
                "-o",
                str(tmp_path / "sk"),
                "--db",
                str(tmp_path / "db.sqlite"),
            ]
        )
        == 0
    )
    assert [p.name for p in (tmp_path / "sk").iterdir()] == ["sk"]


def test_print_refuses_a_language_it_does_not_speak(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["print", "--lang", "de", "--db", str(tmp_path / "db.sqlite")])
    assert exited.value.code == 2
    assert "invalid choice: “de”" in capsys.readouterr().err


def _printed_over_its_cell(document) -> list[tuple[str, float]]:
    """The words of a sheet's grid printed past their cell's sides, and by how much (px)."""
    over = []
    for page in document.pages:
        for cell in _walk(page._page_box):
            if not isinstance(cell, boxes.TableCellBox):
                continue
            left, right = cell.border_box_x(), cell.border_box_x() + cell.border_width()
            for text in _walk(cell):
                if isinstance(text, boxes.TextBox):
                    past = max(left - text.position_x, text.position_x + text.width - right)
                    if past > 0.5:
                        over.append((text.text, round(past, 1)))
    return over


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_word_of_a_blank_sheet_runs_over_its_column(ctx, language):
    """A column's head longer than its column in the sheet's language (Kvanta's
    "Sprawdzenie", Szaman's "Rozdanie", Pegs' "Žaidimas", Cowboy's "Prakeiksmas",
    "Ladacznice", "Породица") was printed over the next column's head; it is
    hyphenated as the language does."""
    for slug in SLUGS:
        html = printing.blank_sheet_html(slug, language=language)
        document = printing._layout(html, printing.SHEET_CSS)
        assert _printed_over_its_cell(document) == [], (slug, language)


def _printed_past_the_page(document) -> list[tuple[str, float]]:
    """The words printed past a page's right margin, and by how much (px)."""
    over = []
    for page in document.pages:
        right = page._page_box.content_box_x() + page._page_box.width
        for text in _walk(page._page_box):
            if isinstance(text, boxes.TextBox) and text.position_x + text.width - right > 0.5:
                over.append((text.text, round(text.position_x + text.width - right, 1)))
    return over


# names as long as a table takes (40 characters), in the letters of the six languages;
# the last one a single word of the widest letter
LONG_NAMES = (
    "Александра Константиновић-Петровићевић",
    "Žemaitytė-Račkauskienė Ąžuolė Eglė Ūla",
    "Łucja Grzegorzewska-Wiśniewska Źdźbłoż",
    "Ďurčová Ľubomíra Ťažká Ôsmička Äňa Ŕťé",
    "Đorđe Šćekić Čučković Ždrale Ćirić-Džaja",
    "Ana-Marija Brzęczyszczykiewiczówna",
    "Þórunn Ægisdóttir Øster Åsa Ñuñez Çelik",
    "W" * 40,
)


@pytest.mark.parametrize(
    "slug, seats", [("kvanta", 6), ("szaman", 6), ("cowboy", 4), ("vezimas", 4), ("pegs", 8)]
)
def test_long_names_print_inside_their_columns_and_the_page(ctx, store, slug, seats):
    """A name as long as a table takes, with a word wider than its column (a
    surname, or 40 W's), was printed over its neighbours' names in the filled
    sheet's history and in a blank sheet's player blocks, and pushed the standings'
    totals off the page: a name breaks inside a word when no space lets it wrap."""
    names = LONG_NAMES[-seats:]
    table = make_table(store, slug, names)
    players = store.players(table.id)
    store.add_entry(table.id, 1, "manual-points", {}, {}, {players[0].id: 12})
    table = store.table(table.id)
    for language in ("en", "sr-Cyrl"):
        filled = printing._layout(printing.sheet_html(store, table, language), printing.SHEET_CSS)
        blank = printing._layout(
            printing.blank_sheet_html(slug, list(names), table, language), printing.SHEET_CSS
        )
        for document in (filled, blank):
            assert _printed_over_its_cell(document) == [], (slug, language)
            assert _printed_past_the_page(document) == [], (slug, language)


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_word_of_a_rule_card_runs_over_its_column(ctx, language):
    """A points column's head wider than the column was cut at the card's edge
    (Szaman's "Penalty" in English, "Бодови" in Serbian Cyrillic, on Szaman's and
    Cowboy's cards): every head and cell of a card's grids prints inside its column,
    at whichever step of the ladder the card needs."""
    for slug in SLUGS:
        document, _step = card_layout(printing.rule_card_html(slug, language=language))
        assert _printed_over_its_cell(document) == [], (slug, language)


def _grid(language: str, *heads: str) -> str:
    """A sheet's grid of narrow columns (1 cm each) under ``heads``."""
    row = "".join(f"<th>{head}</th>" for head in heads)
    return (
        f'<!doctype html><html lang="{language}"><body>'
        f'<table class="grid" style="width: {10 * len(heads)}mm"><tr>{row}</tr>'
        f"<tr>{'<td></td>' * len(heads)}</tr></table></body></html>"
    )


def test_a_head_hyphenated_at_line_ends_reads_whole_and_its_pieces_apart_do_not(ctx):
    """The sheets' word check reads a head the language hyphenated ("Pra‐" "keiks‐"
    "mas", three lines of one cell) as its word; it still fails on a word missing,
    or on a word's pieces printed in two columns, which the flowing text reads
    together as well."""
    hyphenated = printing.render_pdf(_grid("lt", "Prakeiksmas", "Šeima"))
    assert "Pra\u2010" in pdftotext(hyphenated)  # the printed head is broken
    assert printed_cells(hyphenated) == ["Prakeiksmas", "Šeima"]
    assert_prints(printed_words(hyphenated), ["Prakeiksmas Šeima"], "hyphenated")
    with pytest.raises(AssertionError, match=r"not printed whole: \['Prakeiksmai'\]"):
        assert_prints(printed_words(hyphenated), ["Prakeiksmai"], "missing")

    apart = printing.render_pdf(_grid("lt", "Prakeiks\u2010", "<br>mas"))
    assert_says(pdftotext(apart), ["Prakeiksmas"], "flowing text")  # no use to a head
    with pytest.raises(AssertionError, match=r"not printed whole: \['Prakeiksmas'\]"):
        assert_prints(printed_words(apart), ["Prakeiksmas"], "apart")
