"""The Serbian Cyrillic catalogue, made from the Latin one (``make cyrillic``).

Serbian's two scripts map letter for letter, so the Cyrillic catalogue is the Latin
one transliterated by cyrtranslit, a maintained library for exactly this. What is
not Serbian text stays as it is: placeholders, HTML, card codes and ranks, decision
ids, and the terms the Latin catalogue keeps in their own spelling (its ``same.txt``).

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
    r"%\(\w+\)[sdrif]|%%|<[^>]+>|&\w+;|https?://\S+"
    r"|\b[CKVSPH]-D\d+\b"  # decision ids
    r"|\b(?:10|[2-9AJQKT])[♠♥♦♣SHDC]?\b"  # card codes and ranks
    r"|\bJK\b|\bPDF\b|\bQR\b|\bCSV\b|\bJSON\b|\bURL\b"
)


def _kept_terms() -> list[str]:
    path = LATIN / "same.txt"
    if not path.exists():
        return []
    return [line for line in path.read_text().splitlines() if line and not line.startswith("#")]


def cyrillic(text: str, terms: tuple[str, ...] = ()) -> str:
    import cyrtranslit

    pieces, last = [], 0
    kept = KEPT
    if terms:
        words = "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
        kept = re.compile(rf"{KEPT.pattern}|\b(?:{words})\b")
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
    terms = tuple(t for t in _kept_terms() if re.search(r"[A-Za-zčćđšžČĆĐŠŽ]", t))
    catalog.locale = "sr_Cyrl"  # babel's own name of the locale
    for message in catalog:
        if not message.id:
            continue
        if message.id in terms:
            continue  # a term kept in its own spelling, in both scripts
        if isinstance(message.string, (tuple, list)):
            message.string = tuple(cyrillic(s, terms) for s in message.string)
        else:
            message.string = cyrillic(message.string, terms)
    out = CYRILLIC / "LC_MESSAGES" / "messages.po"
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as fp:
        write_po(fp, catalog, width=76, no_location=True, omit_header=False)
    same = LATIN / "same.txt"
    if same.exists():
        (CYRILLIC / "same.txt").write_text(same.read_text())
    return len(catalog)


def main() -> None:
    count = transliterate_catalogue()
    print(f"{CYRILLIC}: {count} entries from {LATIN.name}", file=sys.stderr)


if __name__ == "__main__":
    main()
