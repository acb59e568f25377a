"""The one error type every engine raises: a sentence a player understands and the
path of the field it is about (``held.Ana[2]``; ``""`` for the request as a whole)."""


class RuleError(ValueError):
    def __init__(self, message: str, path: str = ""):
        super().__init__(message)
        self.message = message
        self.path = path

    def as_dict(self) -> dict:
        return {"error": {"message": self.message, "path": self.path}}


class UnknownKind(LookupError):
    """No engine answers this kind."""

    def __init__(self, kind: str):
        super().__init__(f"There is no scoring kind called {kind!r}.")
        self.kind = kind
        self.message = str(self)

    def as_dict(self) -> dict:
        return {"error": {"message": self.message, "path": "kind"}}
