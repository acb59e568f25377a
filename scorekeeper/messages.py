"""Sentences for players, translated where they are shown, not where they are made.

The engines are pure and know no request, so they cannot know its language. They
write an English msgid with named variables (``Text``, ``Plural`` or a
:class:`~scorekeeper.errors.RuleError` directly); the sentence is looked up in the
catalogue of whoever shows it: the web layer installs the request's catalogue
(:func:`use`), the CLI the one of ``--lang``. With nothing installed it is English.

>>> str(Text("%(name)s has no card left.", name="Ana"))
'Ana has no card left.'
>>> str(Plural("%(num)d card", "%(num)d cards", 2))
'2 cards'
>>> str(Text("Seat %(seat)s: %(what)s", seat=2, what=Text("start")))
'Seat 2: start'
>>> str(Text("%(count)s tables", count=Number(10000)))
'10,000 tables'

A value a player sent is quoted by the sentence itself, so each language puts its own
quotes around it (“Ana”, „Ana”, „Ana“), and passed through :func:`quotable`, which
keeps its control characters from acting on what shows the message:

>>> print(Text("“%(name)s” is typed twice.", name=quotable("Ana\\x1b[2J")))
“Ana\\x1b[2J” is typed twice.

A literal marked with :func:`N_` stays a plain string (a label in a table of data)
and is translated by :func:`gettext` where it is read.
"""

from __future__ import annotations

import gettext as _gettext
import unicodedata
from collections.abc import Callable
from typing import Any

from babel.numbers import format_decimal

# The languages a table can speak, as BCP 47 tags (``?lang=``, ``<html lang>``).
LANGUAGES = ("en", "sr-Latn", "sr-Cyrl", "pl", "lt", "sk")

_NULL = _gettext.NullTranslations()
_current: Callable[[], Any] = lambda: _NULL  # noqa: E731 — replaced by use()


def use(translations: Callable[[], Any]) -> None:
    """Install the function that gives the catalogue to speak now (an object with
    ``gettext``/``ngettext``, as Python's and Babel's translations have)."""
    global _current
    _current = translations


def catalogue():
    return _current() or _NULL


def speaking() -> object:
    """What identifies the language spoken now, for a value kept per language: the
    catalogue itself, or None for English (any catalogue that translates nothing)."""
    cat = catalogue()
    return None if type(cat).__name__ == "NullTranslations" else cat


def N_(msgid: str) -> str:
    """Mark a literal for the catalogue; it is translated where it is shown."""
    return msgid


def gettext(msgid: str, **variables: Any) -> str:
    return _say(catalogue(), msgid, None, None, variables)


def ngettext(singular: str, plural: str, num: int, **variables: Any) -> str:
    return _say(catalogue(), singular, plural, num, variables)


def _say(cat, msgid: str, plural: str | None, num: int | None, variables: dict) -> str:
    if plural is None:
        text = cat.gettext(msgid) if msgid else msgid
    else:
        variables = {"num": num, **variables}
        text = cat.ngettext(msgid, plural, num)
    if not variables:
        return text
    shown = {k: shown_in(cat, v) for k, v in variables.items()}
    return text % shown


# Characters no name may hold and no message may carry as they are: controls (NUL, BEL,
# the ESC of a terminal's colour codes, line breaks), line and paragraph separators,
# and the marks that reverse or isolate the direction of the text after them (shown by
# a terminal or a page, they make a name read as something else). Joiners stay
# allowed: emoji sequences need them.
_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def refused_character(text: str) -> str | None:
    """The first character of ``text`` that no name may hold, or None."""
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp") or ch in _BIDI_CONTROLS:
            return ch
    return None


def escaped(text: str) -> str:
    """``text`` as a message or a terminal may show it: each character no name may
    hold (an escape sequence, a bell, a line break) written as its \\x/\\u code, as
    Python's repr writes it, instead of acting on what shows it.

    >>> print(escaped("A\\nB"), escaped("Šćepan"))
    A\\nB Šćepan
    """
    if refused_character(text) is None:
        return text
    return "".join(
        ch.encode("unicode_escape").decode() if refused_character(ch) else ch for ch in text
    )


def quotable(value: object, limit: int = 40) -> str:
    """A value a player sent, fit to quote in a sentence whose msgid and catalogues
    put the quotes around it (``“%(name)s”``): text cut to ``limit`` characters (a
    name's longest), then :func:`escaped`; anything else (a number, a list, a JSON
    null) as Python writes it, escaped the same way.

    >>> quotable("Ana"), quotable(7), quotable(None), quotable(["A", 1]), quotable("T" * 41)
    ('Ana', '7', 'None', "['A', 1]", 'TTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTT…')
    """
    text = value if isinstance(value, str) else repr(value)
    if len(text) > limit:
        text = text[:limit] + "…"
    return escaped(text)


def quoted(word: object) -> Text:
    """A word a sentence names as it is written, a field name or a value a request
    takes, in the quotation marks of the reader's language (“forward”, „forward”,
    „forward“), for a list of them made in code; a sentence that names one word
    quotes it in its own msgid (“card”) instead.

    >>> str(quoted("forward"))
    '“forward”'
    """
    # Translators: a word quoted as it is written (a field name or a value a request
    # takes, or an option of a setting as the start form labels it), in the quotation
    # marks of the language
    return Text("“%(word)s”", word=word)


def shown_in(cat, value: Any) -> Any:
    """A variable as it reads in ``cat``: a ``Text``, ``Number`` or ``Joined`` rendered."""
    return value.render(cat) if isinstance(value, (Text, Number, Joined)) else value


class Number:
    """A number in a sentence, its digits grouped as the reader's language writes them:
    10,000 in English, 10 000 in Polish, 10.000 in Serbian."""

    __slots__ = ("value",)

    def __init__(self, value: int):
        self.value = value

    def render(self, cat) -> str:
        return format_decimal(self.value, locale=language_of(cat))

    def __repr__(self) -> str:
        return f"Number({self.value!r})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.value == self.value

    def __hash__(self) -> int:
        return hash(self.value)


class Joined:
    """Parts read one after another (``separator`` between): plain strings as they are,
    a ``Text`` in the reader's language. A list of moves, one of which says "start".

    >>> str(Joined(["Ana ", Text("start"), "→T8"]))
    'Ana start→T8'
    """

    __slots__ = ("parts", "separator")

    def __init__(self, parts, separator: str = ""):
        self.parts = tuple(parts)
        self.separator = separator

    def render(self, cat) -> str:
        return self.separator.join(str(shown_in(cat, part)) for part in self.parts)

    def __str__(self) -> str:
        return self.render(catalogue())

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and (other.parts, other.separator) == (
            self.parts,
            self.separator,
        )

    def __hash__(self) -> int:
        return hash(self.parts)


MINUS = "\u2212"  # a real minus sign: "−90", never the hyphen "-90"


def grouped(value: int, language: str | None = None) -> str:
    """The digits of ``|value|`` as the language groups them (1,250 · 1.250 · 1 250),
    by default the language spoken now; below 1,000 every language writes them alone."""
    digits = str(abs(value))
    if len(digits) > 3:
        locale = language.replace("-", "_") if language else language_of(catalogue())
        digits = format_decimal(abs(value), locale=locale)
    return digits


def points(value, language: str | None = None) -> str:
    """A score as the app writes it: ``-90`` → ``−90``, ``1200`` → ``1,200`` (grouped as
    ``language`` does, by default the language spoken now); not a number: as it is.

    >>> points(-90), points(1200), points(0), points(None), points(12000, "pl")
    ('−90', '1,200', '0', '', '12\xa0000')
    """
    if isinstance(value, bool) or not isinstance(value, int):
        return "" if value is None else str(value)
    return f"{MINUS}{grouped(value, language)}" if value < 0 else grouped(value, language)


def signed(value, language: str | None = None) -> str:
    """A change of score: ``+25``, ``−20``, ``0``.

    >>> signed(25), signed(-20), signed(0), signed(1500, "sr-Latn")
    ('+25', '−20', '0', '+1.500')
    """
    text = points(value, language)
    return (
        f"+{text}" if isinstance(value, int) and not isinstance(value, bool) and value > 0 else text
    )


def language_of(cat) -> str:
    """The Babel locale a catalogue speaks (its header's language; English without one)."""
    info = cat.info() if hasattr(cat, "info") else {}
    return info.get("language") or "en"


class Text:
    """A sentence kept as its msgid and variables; ``str()`` translates it now.
    A variable may itself be a ``Text`` (a word that needs translating too)."""

    __slots__ = ("msgid", "variables")

    def __init__(self, msgid: str, /, **variables: Any):
        self.msgid = msgid
        self.variables = variables

    def __str__(self) -> str:
        return self.render(catalogue())

    def render(self, cat) -> str:
        return _say(cat, self.msgid, None, None, self.variables)

    def english(self) -> str:
        return self.render(_NULL)

    def __repr__(self) -> str:
        return f"Text({self.msgid!r})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars_of(self) == vars_of(other)

    def __hash__(self) -> int:
        return hash(self.msgid)


class Plural(Text):
    """A sentence whose form depends on a number (``%(num)d`` in both forms)."""

    __slots__ = ("plural", "num")

    def __init__(self, singular: str, plural: str, num: int, /, **variables: Any):
        super().__init__(singular, **variables)
        self.plural = plural
        self.num = num

    def render(self, cat) -> str:
        return _say(cat, self.msgid, self.plural, self.num, self.variables)


def vars_of(text: Text) -> tuple:
    return (text.msgid, getattr(text, "plural", None), getattr(text, "num", None), text.variables)


class Told:
    """What an exception that speaks to a player has (mixed in before the exception
    class): its sentence as a ``Text`` (a msgid and its variables, or a ``Text``
    given whole); ``str()`` of the exception is the English."""

    def __init__(self, message: str | Text, /, **variables: Any):
        self.text = message if isinstance(message, Text) else Text(message, **variables)
        super().__init__(self.text.english())

    @property
    def message(self) -> str:
        """The sentence in the language being spoken now."""
        return str(self.text)

    @property
    def english(self) -> str:
        return self.text.english()

    @property
    def msgid(self) -> str:
        return self.text.msgid
