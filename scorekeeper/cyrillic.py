"""The Serbian Cyrillic catalogue, made from the Latin one (``make cyrillic``).

Serbian's two scripts map letter for letter, so the Cyrillic catalogue is the Latin
one transliterated by cyrtranslit, a maintained library for exactly this. What is
not Serbian text stays as it is: placeholders, HTML, card codes and ranks, peg
positions, decision ids, a request's field names and settings with their values
(``nine=forward``), the words the English msgid quotes as they are written
(``_quoted_words``), the letters a formula or a rule stands for (``_symbols``), and
the foreign words Serbian writes in Latin letters in either script (:data:`FOREIGN`).
Serbian words, names of games among them (Kvanta, Vajoming Kauboj), are
transliterated like any other.

>>> cyrillic("Džoker %(name)s dobija **Marijaž** (K+Q) za C-D1.")
'Џокер %(name)s добија **Маријаж** (K+Q) за C-D1.'
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

TRANSLATIONS = Path(__file__).parent / "translations"
LATIN = TRANSLATIONS / "sr_Latn"
CYRILLIC = TRANSLATIONS / "sr_Cyrl"

# what is not Serbian text: kept character for character
KEPT = re.compile(
    r"%\(\w+\)[sdrif]|%[sdrif]|%%|&\w+;|https?://\S+"
    # a tag (not a word between angle brackets: T<rupa> is a peg position's pattern)
    r"|</?(?:a|b|br|code|em|i|kbd|p|small|span|strong|sub|sup|u)\b[^<>]*>"
    r"|\b[CKVSPH]-D\d+\b"  # decision ids
    r"|\b(?:10|[2-9AJQKT])[♠♥♦♣SHDC]?\b"  # card codes and ranks
    r"|\b[TH]\d+\b"  # peg positions: T8, H1
    r"|\b\d{4}-\d\d-\d\dT[\d:.+-]+"  # an export's date and time
    r"|\bJK\b|\bPDF\b|\bQR\b|\bCSV\b|\bJSON\b|\bURL\b|\bScorekeeper\b"
    r"|\bRULES\b"  # the rules' document, by its name: RULES §2
    r'|"[^"\s]*"'  # a string of a request's JSON, as it is typed: ["Ola", "2C"]
    r"|--[a-z][a-z-]*"  # a command's options: --db, --lang
    r"|\b[a-z][a-z_]*=\w+"  # a setting with its value, as typed: nine=forward, team_pegs=own
    r"|\b[A-Za-z]\w*(?:[._\[]\w+\]?)+"  # field paths: aces_on_table, settings.round, held[2]
    r"|\b(?:true|false|null)\b"
)


# Words that are not Serbian: the games' foreign terms and names, and the app's name.
FOREIGN = ("Hand", "Zilch", "Szaman", "Vežimas", "Scorekeeper", "Joker")


def _field_names(english: str) -> set[str]:
    """The request's field names an English msgid speaks of ("hands must map each
    player…", "tricks must be a list."): a translation keeps them as they are."""
    return set(re.findall(r"(?:^|[.;:] )([a-z][a-z_]+) (?:must|can|needs|has|is|holds)\b", english))


# A letter standing alone (or with a subscript word: vmax) stands for something: a
# formula's variable (Kvanta's v and vmax), a trump (Vežimas' T and N), a suit (S, H,
# D, C). Not beside a letter, a digit, an apostrophe or a hyphen (d'Artagnan, 3-5-7).
_LONE_LETTER = r"(?<![\w'’-])(?:[A-Za-z](?:max|min)?)(?![\w'’-])"
# ... unless Serbian writes it as a word: "a", "i", "u", "s" (and "o", "k")
SERBIAN_ONE_LETTER_WORDS = frozenset("aiousk")


def _symbols(english: str, text: str) -> set[str]:
    """The letters standing alone in both the English msgid and its translation:
    symbols (v, vmax, N, S), which every language writes in the same Latin letters."""

    def lone(found: str) -> set[str]:
        # a placeholder's or a tag's name is no letter of the text (KEPT keeps them)
        return set(re.findall(_LONE_LETTER, re.sub(r"%\(\w+\)|<[^>]+>|&\w+;", " ", found)))

    return (lone(english) & lone(text)) - SERBIAN_ONE_LETTER_WORDS


def _quoted_words(english: str, text: str) -> set[str]:
    """The words quoted in both the English msgid (“card”) and its translation („card“):
    what is written as it is in every language, a request's field name or value (card,
    nine_of_diamonds, joker) or a heading of the English rules. A word the translation
    quotes in Serbian („Pucanj“, a button's label) is not in the English."""
    return set(re.findall(r"“([^“”]+)”", english)) & set(re.findall(r"„([^„“]+)“", text))


def cyrillic(text: str, terms: tuple[str, ...] = (), english: str = "") -> str:
    """``text`` in Cyrillic. ``terms``: kept in their spelling; ``english``: the msgid,
    whose words met again in ``text`` are names of fields or terms kept as they are,
    and whose letters standing alone met again are symbols (``_symbols``), kept Latin
    so a formula reads the same in every language."""
    import cyrtranslit

    pieces, last = [], 0
    kept = KEPT
    shared = _field_names(english) & set(re.findall(r"\b\w+\b", text))
    keep = sorted({*terms, *shared}, key=len, reverse=True)
    patterns = [KEPT.pattern]
    quoted = sorted(_quoted_words(english, text), key=len, reverse=True)
    if quoted:
        words = "|".join(re.escape(t) for t in quoted)
        patterns.append(rf"(?<=„)(?:{words})(?=“)")
    if keep:
        words = "|".join(re.escape(t) for t in keep)
        patterns.append(rf"\b(?:{words})\b")
    symbols = sorted(_symbols(english, text), key=len, reverse=True)
    if symbols:
        letters = "|".join(re.escape(t) for t in symbols)
        patterns.append(rf"(?<![\w'’-])(?:{letters})(?![\w'’-])")
    if len(patterns) > 1:
        kept = re.compile("|".join(patterns))
    for found in kept.finditer(text):
        pieces.append(cyrtranslit.to_cyrillic(text[last : found.start()], "sr"))
        pieces.append(found.group(0))
        last = found.end()
    pieces.append(cyrtranslit.to_cyrillic(text[last:], "sr"))
    return "".join(pieces)


def transliterate_catalogue() -> int:
    from babel.messages.pofile import read_po, write_po

    with (LATIN / "LC_MESSAGES" / "messages.po").open("rb") as fp:
        catalog = read_po(fp, locale="sr_Latn")
    terms = FOREIGN
    catalog.locale = "sr_Cyrl"  # babel's own name of the locale
    for message in catalog:
        if not message.id:
            continue
        english = " ".join(message.id) if isinstance(message.id, (tuple, list)) else message.id
        if isinstance(message.string, (tuple, list)):
            message.string = tuple(cyrillic(s, terms, english) for s in message.string)
        else:
            message.string = cyrillic(message.string, terms, english)
    out = CYRILLIC / "LC_MESSAGES" / "messages.po"
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as fp:
        write_po(fp, catalog, width=76, no_location=True, omit_header=False)
    same = LATIN / "same.txt"
    if same.exists():
        (CYRILLIC / "same.txt").write_text(same.read_text())
    glossary = LATIN / "GLOSSARY.md"
    if glossary.exists():
        (CYRILLIC / "GLOSSARY.md").write_text(cyrillic_glossary(glossary.read_text(), terms))
    return len(catalog)


def cyrillic_glossary(markdown: str, terms: tuple[str, ...] = ()) -> str:
    """The Latin glossary with its Serbian column in Cyrillic (the English column and
    the notes stay as written)."""
    lines = [
        "# Serbian (Cyrillic) glossary — Scorekeeper",
        "",
        "Made by `make cyrillic` from `sr_Latn/GLOSSARY.md`: the same terms, in Cyrillic.",
        "",
    ]
    for line in markdown.splitlines()[1:]:
        cells = line.split("|")
        plain = cells[2].strip() if len(cells) > 3 else ""
        if line.startswith("|") and plain and plain != "Serbian" and not set(plain) <= set("-: "):
            cells[2] = " " + cyrillic(plain, terms) + " "
            line = "|".join(cells)
        lines.append(line)
    return "\n".join(lines) + "\n"


def main() -> None:
    count = transliterate_catalogue()
    print(f"{CYRILLIC}: {count} entries from {LATIN.name}", file=sys.stderr)


if __name__ == "__main__":
    main()
