"""What a stored entry says in words: the pieces each game's breakdown is made of (a
``Kind.breakdown``: ``(request, result, seat_names) → lines``, why an entry scored what
it did). A breakdown reads the request and result the engine answered when the entry
was saved, never works them out again, and takes whatever shape it finds: an entry
imported or saved by an older version may lack a part, and then its line is left out.
"""

from __future__ import annotations

from ..cards import card_symbol
from ..messages import gettext as _


def as_dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def as_list(value) -> list:
    return value if isinstance(value, list) else []


def cards_text(values) -> str:
    """Cards by their symbols (``10♥ K♣``); not a list: nothing."""
    return " ".join(card_symbol(v) for v in values) if isinstance(values, list) else ""


def seat_name(seat, seat_names: list[str]) -> str:
    """The name of the player in a seat, or the seat's number when nobody sits there."""
    if isinstance(seat, int) and 0 <= seat < len(seat_names):
        return seat_names[seat]
    return _("seat %(n)s", n=seat + 1 if isinstance(seat, int) else seat)
