"""Strict request checking shared by every engine.

Each helper takes the value and its path (``held.Ana[2]``) and either returns the
value in a clean form or raises RuleError with a sentence a player understands.
Unknown fields are refused so a typo never passes silently (CONTRACT).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping

from .cards import Card, CardError, parse_card
from .errors import RuleError
from .messages import N_, Joined, Plural, Text, quotable, quoted, refused_character

MAX_NAME = 40


def join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def obj(
    value: object, path: str, required: Iterable[str] = (), optional: Iterable[str] = ()
) -> dict:
    """A JSON object with exactly the required fields and any of the optional ones."""
    if not isinstance(value, Mapping):
        if not path:
            raise RuleError("The request must be a JSON object.", path)
        # Translators: %(path)s is the field's path in the request (players, taps[2].card)
        raise RuleError("%(path)s must be a JSON object.", path, path=path)
    required = tuple(required)
    allowed = set(required) | set(optional)
    for key in value:
        if key not in allowed:
            names = ", ".join(sorted(allowed)) or Text("none")
            raise RuleError(
                "Unknown field “%(key)s” (allowed here: %(names)s).",
                join(path, str(key)),
                key=quotable(key),
                names=names,
            )
    for key in required:
        if key not in value:
            raise RuleError("The field “%(key)s” is missing.", join(path, key), key=quotable(key))
    return dict(value)


def array(value: object, path: str, min_len: int = 0, max_len: int | None = None) -> list:
    if not isinstance(value, list):
        if not path:
            raise RuleError("This must be a list.", path)
        raise RuleError("%(path)s must be a list.", path, path=path)
    if len(value) < min_len:
        raise RuleError(
            Plural(
                "%(path)s needs at least %(num)d item.",
                "%(path)s needs at least %(num)d items.",
                min_len,
                path=path,
            ),
            path,
        )
    if max_len is not None and len(value) > max_len:
        raise RuleError(
            Plural(
                "%(path)s can hold at most %(num)d item.",
                "%(path)s can hold at most %(num)d items.",
                max_len,
                path=path,
            ),
            path,
        )
    return value


def mapping(value: object, path: str) -> dict:
    if not isinstance(value, Mapping):
        raise RuleError("%(path)s must be a JSON object.", path, path=path)
    return dict(value)


def integer(value: object, path: str, lo: int | None = None, hi: int | None = None) -> int:
    # bool is an int in Python but not in JSON; a float (1.0, 1e2) is refused too, so a
    # request that sends a number as a float is told so instead of being rounded
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError("%(path)s must be a whole number.", path, path=path)
    if lo is not None and value < lo or hi is not None and value > hi:
        raise RuleError(
            "%(path)s must be between %(lo)s and %(hi)s.", path, path=path, lo=lo, hi=hi
        )
    return value


def small_number(text: str, digits: int = 6) -> int | None:
    """A form field's whole number (a seat, a count, a trick) of at most ``digits``
    ASCII digits, else None. (``str.isdigit`` alone also takes "²", which ``int``
    refuses.)"""
    if 0 < len(text) <= digits and text.isascii() and text.isdigit():
        return int(text)
    return None


def boolean(value: object, path: str) -> bool:
    if not isinstance(value, bool):
        raise RuleError("%(path)s must be true or false.", path, path=path)
    return value


def choice(value: object, path: str, options: Iterable[str]) -> str:
    options = tuple(options)
    if not isinstance(value, str) or value not in options:
        listed = Joined([quoted(o) for o in options], ", ")
        raise RuleError("%(path)s must be one of %(listed)s.", path, path=path, listed=listed)
    return value


def name(value: object, path: str) -> str:
    # a request's names come back as it gave them (they key its answer): one with
    # nothing visible is refused, not cleaned
    if not isinstance(value, str) or not without_invisible(value).strip():
        raise RuleError("A player's name must be non-empty text.", path)
    if len(value) > MAX_NAME:
        raise RuleError(
            Plural(
                "A player's name can be at most %(num)d character.",
                "A player's name can be at most %(num)d characters.",
                MAX_NAME,
            ),
            path,
        )
    return value


# The format characters a name loses (Unicode's category Cf): a zero-width space or
# (non-)joiner, a word joiner, a byte order mark, a soft hyphen, the invisible tag
# letters. Nothing of them shows on a phone or a printed sheet, so "Bo\u200bb" is
# "Bob". Two emoji uses stay: a zero-width joiner between two pictures, which joins
# them into one ("woman" + "laptop" is a woman technologist), and the three flags
# of Great Britain's nations, a black flag followed by tag letters.
_ZWJ = "\u200d"
_EMOJI_SELECTORS = frozenset("\ufe0f" + "".join(map(chr, range(0x1F3FB, 0x1F400))))
_FLAG = "\U0001f3f4"  # a waving black flag, which tag letters may follow
_TAG_FLAGS = tuple(
    _FLAG + "".join(chr(0xE0000 + ord(c)) for c in region) + "\U000e007f"
    for region in ("gbeng", "gbsct", "gbwls")
)


def _picture(ch: str) -> bool:
    """A picture an emoji sequence joins: a symbol (So) of the blocks from Arrows to
    Miscellaneous Symbols and Arrows (♀, ❤, ⬛) or of the emoji blocks (🏳, 👩, 🦰)."""
    code = ord(ch)
    return unicodedata.category(ch) == "So" and (
        0x2190 <= code <= 0x2BFF or 0x1F000 <= code <= 0x1FAFF
    )


def _joins_emoji(text: str, i: int) -> bool:
    """Whether the joiner at ``text[i]`` stands between two pictures, after the
    first one's skin tone or its "as an emoji" selector, if it has one."""
    before = i - 1
    while before >= 0 and text[before] in _EMOJI_SELECTORS:
        before -= 1
    return before >= 0 and i + 1 < len(text) and _picture(text[before]) and _picture(text[i + 1])


def without_invisible(text: str) -> str:
    """``text`` in Unicode's composed form (NFC) without the format characters that
    nothing shows, emoji sequences aside. Composed again after them: "e", a zero-width
    space and an acute accent are "é" once the space is gone."""
    if text.isascii():  # no format character, and composed already: most names
        return text
    text = unicodedata.normalize("NFC", text)
    kept: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        flag = next((f for f in _TAG_FLAGS if text.startswith(f, i)), None) if ch == _FLAG else None
        if flag is not None:
            kept.append(flag)
            i += len(flag)
            continue
        if unicodedata.category(ch) != "Cf" or ch == _ZWJ and _joins_emoji(text, i):
            kept.append(ch)
        i += 1
    return unicodedata.normalize("NFC", "".join(kept))


# what clean_name's callers call the name they pass (translated where it is shown)
NAME_KINDS = (N_("A name"), N_("A player's name"), N_("A table's name"))


def clean_name(value: object, path: str, max_len: int = MAX_NAME, what: str = "A name") -> str:
    """A name as tables keep it (a player's or a table's): text without control
    characters, trimmed, in Unicode's composed form (NFC), so "Šćepan" typed on two
    phones is one name whichever way each phone encodes its letters, and without
    the invisible characters ``without_invisible`` drops."""
    what = Text(what)
    if not isinstance(value, str):
        # Translators: %(what)s is "A name", "A player's name" or "A table's name"
        raise RuleError("%(what)s must be text.", path, what=what)
    bad = refused_character(value)
    if bad is not None:
        raise RuleError(
            "%(what)s may not contain control characters (U+%(code)s found).",
            path,
            what=what,
            code=format(ord(bad), "04X"),
        )
    text = without_invisible(value).strip()
    if not text:
        raise RuleError("%(what)s must not be empty.", path, what=what)
    if len(text) > max_len:
        raise RuleError(
            Plural(
                "%(what)s can be at most %(num)d character.",
                "%(what)s can be at most %(num)d characters.",
                max_len,
                what=what,
            ),
            path,
        )
    return text


def name_key(text: str) -> str:
    """What two names must differ in to be two players: "Ana" and "ana", a composed
    and a decomposed "Šćepan", or "Bob" and a "Bob" kept with a zero-width space
    before such spaces were dropped, are one name."""
    return unicodedata.normalize("NFC", without_invisible(text).casefold())


def distinct_names(names: Iterable[str], path: str = "players") -> None:
    """Refuse a name that another one equals, or equals once case is ignored."""
    seen: dict[str, str] = {}
    for i, item in enumerate(names):
        key = name_key(item)
        if key in seen and seen[key] == item:
            raise RuleError(
                "“%(item)s” is typed twice: each player needs a different name.",
                join(path, i),
                item=quotable(item),
            )
        if key in seen:
            raise RuleError(
                "“%(item)s” and “%(other)s” are one name (case aside): each player needs a different name.",
                join(path, i),
                item=quotable(item),
                other=quotable(seen[key]),
            )
        seen[key] = item


def players(value: object, path: str = "players", lo: int = 2, hi: int = 8) -> list[str]:
    """The players in seating order, clockwise: unique, non-empty names."""
    items = array(value, path)
    if not lo <= len(items) <= hi:
        raise RuleError(
            Plural(
                "This game needs %(lo)s to %(num)d player; %(count)s given.",
                "This game needs %(lo)s to %(num)d players; %(count)s given.",
                hi,
                lo=lo,
                count=len(items),
            ),
            path,
        )
    seen: set[str] = set()
    for i, item in enumerate(items):
        name(item, join(path, i))
        # "Bob" and "Bo\u200bb" read as one name
        shown = without_invisible(item)
        if shown in seen:
            raise RuleError(
                "“%(item)s” is listed twice among the players.", join(path, i), item=quotable(item)
            )
        seen.add(shown)
    return list(items)


def player(value: object, path: str, known: Iterable[str]) -> str:
    known = tuple(known)
    if not isinstance(value, str) or value not in known:
        raise RuleError(
            "“%(name)s” is not one of the players (%(known)s).",
            path,
            name=quotable(value),
            known=", ".join(known),
        )
    return value


def player_keys(value: object, path: str, known: Iterable[str]) -> dict:
    """An object keyed by player names; every key must be a player."""
    data = mapping(value, path)
    known = tuple(known)
    for key in data:
        if key not in known:
            raise RuleError(
                "“%(name)s” is not one of the players (%(known)s).",
                join(path, key),
                name=quotable(key),
                known=", ".join(known),
            )
    return data


def card(value: object, path: str) -> Card:
    try:
        return parse_card(value)
    except CardError as exc:
        raise RuleError(exc.text, path) from None


def cards(value: object, path: str, min_len: int = 0, max_len: int | None = None) -> list[Card]:
    items = array(value, path, min_len, max_len)
    try:
        return [parse_card(item) for item in items]
    except CardError:
        pass
    # the path of the bad card is built only when there is one
    return [card(item, join(path, i)) for i, item in enumerate(items)]


def suit(value: object, path: str, allowed: str = "SHDC") -> str:
    """A suit letter or symbol."""
    from .cards import _SUITS_IN

    if isinstance(value, str):
        got = _SUITS_IN.get(value.strip().upper())
        if got is not None and got in allowed:
            return got
    listed = ", ".join(allowed)
    raise RuleError("%(path)s must be a suit (%(listed)s).", path, path=path, listed=listed)


class CardCounter:
    """Counts cards across a whole request and refuses one seen too often
    (one deck: at most once; Kvanta: at most 3 copies; RULES §0)."""

    def __init__(self, copies: int = 1):
        self.copies = copies
        self.counts: Counter[Card] = Counter()

    def add(self, c: Card, path: str) -> None:
        self.counts[c] += 1
        if self.counts[c] > self.copies:
            if self.copies == 1:
                raise RuleError(
                    "%(card)s appears more than once; a deal uses one deck.", path, card=c
                )
            raise RuleError(
                "%(card)s appears more than %(copies)s times; there are only %(copies)s decks.",
                path,
                card=c,
                copies=self.copies,
            )

    def add_all(self, items: Iterable[Card], path: str) -> None:
        counts, copies = self.counts, self.copies
        for i, c in enumerate(items):
            counts[c] += 1
            if counts[c] > copies:
                counts[c] -= 1
                self.add(c, join(path, i))  # refuses, with the card's path
