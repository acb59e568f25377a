"""The one error type every engine raises: a sentence a player understands and the
path of the field it is about (``held.Ana[2]``; ``""`` for the request as a whole).

The sentence is an English msgid with named variables, translated when it is read
(``message``) in the catalogue of whoever shows it (see :mod:`scorekeeper.messages`):

>>> err = RuleError("%(name)s holds %(count)d cards.", "held", name="Ana", count=3)
>>> err.message, err.english, err.msgid
('Ana holds 3 cards.', 'Ana holds 3 cards.', '%(name)s holds %(count)d cards.')
"""

from __future__ import annotations

from typing import Any

from .messages import Text, Told, quotable


class RuleError(Told, ValueError):
    def __init__(self, message: str | Text, path: str = "", /, **variables: Any):
        self.path = path
        super().__init__(message, **variables)

    def as_dict(self) -> dict:
        return {"error": {"message": self.message, "path": self.path}}


class UnknownKind(Told, LookupError):
    """No engine answers this kind."""

    def __init__(self, kind: str):
        super().__init__(Text("There is no scoring kind called “%(kind)s”.", kind=quotable(kind)))
        self.kind = kind

    def as_dict(self) -> dict:
        return {"error": {"message": self.message, "path": "kind"}}
