"""English left on a screen that speaks another language: the catalogue's own msgids
are what English the app can show, so a piece of one of them on a Polish page is a
sentence that was not translated (shared by tests/test_no_english.py, in-process, and
tests/browser/test_languages.py, in a real browser)."""

from __future__ import annotations

import functools
import re
from html.parser import HTMLParser
from pathlib import Path

from babel.messages.pofile import read_po

from scorekeeper import i18n

ROOT = Path(__file__).resolve().parents[1]
# players' names as the language's players have them (a name is never English)
NAMES = {
    "en": ["Ann", "Ben", "Cid", "Dot"],
    "sr-Latn": ["Mila", "Neša", "Olja", "Pera"],
    "sr-Cyrl": ["Мила", "Неша", "Оља", "Пера"],
    "pl": ["Ola", "Piotr", "Zosia", "Kuba"],
    "lt": ["Asta", "Jonas", "Rūta", "Tomas"],
    "sk": ["Ján", "Eva", "Zuzana", "Peter"],
}
PLACEHOLDER = re.compile(r"%\(\w+\)[sdrif]|%[sdrif]|<[^>]+>|\*\*")
WORDS = 2  # a piece of English this long is a sentence (one word may be a name)
# an engine's code shown as it is ("five_of_a_kind", "no_hand"): never a word of a page
ENGINE_CODE = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")
# what a player reads of a tag besides its text
READ_ATTRIBUTES = (
    "aria-label",
    "title",
    "placeholder",
    "alt",
    "data-confirm",
    "data-seat-label",
    "data-tap",
    "data-poll",
)


@functools.cache
def english_sentences(language: str) -> tuple[str, ...]:
    """Pieces of English (two words or more) of every msgid the language translates
    differently, casefolded: one of them on the screen is an untranslated sentence. A
    piece its translation keeps (a name of its ``same.txt``, a card code) is left out."""
    po = ROOT / "scorekeeper" / "translations" / i18n.directory_name(language)
    with (po / "LC_MESSAGES" / "messages.po").open("rb") as fp:
        catalog = read_po(fp)
    pieces = set()
    for m in catalog:
        if not m.id:
            continue
        msgids = m.id if isinstance(m.id, tuple) else (m.id,)
        translated = " ".join(m.string) if isinstance(m.string, tuple) else m.string
        for msgid in msgids:
            for piece in PLACEHOLDER.split(msgid):
                piece = piece.strip(" .,:;·()–—-")
                if len(re.findall(r"[A-Za-z]{2,}", piece)) >= WORDS and piece not in translated:
                    pieces.add(" ".join(piece.split()).casefold())
    return tuple(sorted(pieces, key=len))


def english_in(text: str, language: str) -> list[str]:
    """The English of the catalogue (and the engine codes) in ``text``, as a player of
    ``language`` would read it; [] for English itself."""
    if language == "en":
        return []
    shown = " ".join(text.split()).casefold()
    found = [
        piece
        for piece in english_sentences(language)
        if piece in shown and re.search(rf"(?<!\w){re.escape(piece)}(?!\w)", shown)
    ]  # whole words: "to go" is no leak in "to gol"
    return found + ENGINE_CODE.findall(shown)


class _Reader(HTMLParser):
    """The text of a page as its player reads it: what it shows, and the labels and
    titles a screen reader says or a long press shows (never its scripts or styles)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skipping += 1
        for name, value in attrs:
            if name in READ_ATTRIBUTES and value:
                self.parts.append(value)

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self.skipping:
            self.skipping -= 1

    def handle_data(self, data):
        if not self.skipping:
            self.parts.append(data)


def visible_parts(html: str) -> list[str]:
    """Each text and read attribute of a page, its spaces collapsed."""
    reader = _Reader()
    reader.feed(html)
    reader.close()
    return [" ".join(part.split()) for part in reader.parts if part.strip()]


def visible_text(html: str) -> str:
    return " ".join(visible_parts(html))


@functools.cache
def kept_words(language: str) -> frozenset[str]:
    """The words a language keeps as English has them: those of its ``same.txt`` and the
    languages' own names (offered in themselves on every page)."""
    path = ROOT / "scorekeeper" / "translations" / i18n.directory_name(language) / "same.txt"
    lines = [x for x in path.read_text().splitlines() if x and not x.startswith("#")]
    return frozenset(re.findall(r"\w+", " ".join([*lines, *i18n.NAMES.values()])))


def same_as_english(shown: str, english: str, language: str, names=()) -> list[str]:
    """The texts of page ``shown`` (in ``language``) that are word for word those of the
    same page in English (``english``) and hold a word of three letters or more that is
    neither a name (``names``: the players', the table's) nor a word the language keeps."""
    if language == "en":
        return []
    theirs = set(visible_parts(english))
    kept = kept_words(language) | {w for name in names for w in re.findall(r"\w+", name)}
    return [
        text
        for text in dict.fromkeys(visible_parts(shown))
        if text in theirs and any(w not in kept for w in re.findall(r"[^\W\d_]{3,}", text))
    ]
