"""Play state: a deal in progress is a log of taps that a pure state type replays.

Every game's state type follows one protocol, modelled on ``games/pegs.py`` and on
pokerkit's ``verify_x`` / ``can_x`` / ``x``:

- ``State.start(players, settings)`` — the state before the first tap;
- ``state.verify(tap)`` raises :class:`Refused` with the reason a tap cannot be made now;
  ``state.can(tap)`` says yes or no; ``state.apply(tap)`` returns the next state (the
  state itself never changes: every state type is immutable);
- ``state.to_json()`` — what a screen or an API user needs: whose turn it is, the next
  step, the taps that may come next, and once the deal is complete the ``CONTRACT.md``
  request that closes it (``closing``).

A tap says what the player meant ("K♥ is in Olja's hand", not "toggle K♥"), so a tap
retried after a lost answer ends in the state the player wanted; and it carries an id
made on the phone, so a replayed id is applied once (:func:`replay`). Undo and redo act
on the log itself (drop the last tap, put it back), never on a state.

>>> tap = Tap.from_json({"id": "a1", "action": "hold", "seat": 0, "card": "KH"})
>>> tap.to_json()
{'id': 'a1', 'action': 'hold', 'seat': 0, 'card': 'KH'}
>>> Tap.from_json(tap.to_json()) == tap
True
"""

from __future__ import annotations

import functools
import importlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, Self

from ...errors import RuleError
from ...messages import Text, gettext, quotable, speaking
from .. import catalog

# A tap id is made on the phone: short and URL-safe, so it can sit in a form and a log.
TAP_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
MAX_TAPS = 2_000  # far above any real deal (a Szaman deal card by card is under 150)


class Refused(RuleError):
    """A tap the state cannot take: the reason for the player, the field it is about,
    and (from :func:`replay`) the index of the tap in its log."""

    def __init__(
        self, message: str | Text, path: str = "", index: int | None = None, /, **variables: Any
    ):
        super().__init__(message, path, **variables)
        self.index = index

    def as_dict(self) -> dict:
        body = super().as_dict()
        if self.index is not None:
            body["error"]["tap"] = self.index
        return body


@dataclass(frozen=True)
class Tap:
    """One tap: its id, what it does (``action``) and the action's arguments."""

    id: str
    action: str
    args: tuple[tuple[str, Any], ...] = ()

    def __getitem__(self, name: str) -> Any:
        return dict(self.args)[name]

    def get(self, name: str, default: Any = None) -> Any:
        return dict(self.args).get(name, default)

    def to_json(self) -> dict:
        return {"id": self.id, "action": self.action, **dict(self.args)}

    @classmethod
    def from_json(cls, raw: object, path: str = "tap") -> Tap:
        if not isinstance(raw, Mapping):
            raise Refused("A tap must be a JSON object.", path)
        tap_id, action = raw.get("id"), raw.get("action")
        if not isinstance(tap_id, str) or not TAP_ID.fullmatch(tap_id):
            raise Refused("A tap needs an id of 1 to 64 letters, digits, - or _.", path + ".id")
        if not isinstance(action, str) or not action:
            raise Refused("A tap needs an action.", path + ".action")
        args = tuple((k, v) for k, v in raw.items() if k not in ("id", "action"))
        return cls(tap_id, action, args)


class State(Protocol):
    """What every game's play state offers (see the module's docstring)."""

    game: ClassVar[str]

    @classmethod
    def start(cls, players: list[str], settings: Mapping[str, Any]) -> Self: ...

    def verify(self, tap: Tap) -> None: ...

    def can(self, tap: Tap) -> bool: ...

    def apply(self, tap: Tap) -> Self: ...

    def to_json(self) -> dict: ...


def no_such_tap(game: str, action: str, actions: Iterable[str]) -> Refused:
    """The refusal of a tap whose action ``game`` (its slug) does not have: the game
    named as its record names it, and the taps it has, so the sender can correct it.

    >>> print(no_such_tap("kvanta", "fly", ["draw", "burn"]))
    Kvanta has no tap called “fly”; the taps are draw, burn.
    """
    return Refused(
        "%(game)s has no tap called “%(action)s”; the taps are %(arguments)s.",
        ".action",
        game=Text(catalog.GAMES[game].name),
        action=quotable(action),
        arguments=", ".join(actions),
    )


def check_arguments(
    tap: Tap, game: str, arguments: Mapping[str, Any], required: Mapping[str, Any] | None = None
) -> dict:
    """A tap's arguments as a dict, once its action is one of ``arguments`` (action →
    its argument names) of ``game`` (its slug), it names no other argument and it has
    every required one (``required``: action → names; by default all of them)."""
    names = arguments.get(tap.action)
    if names is None:
        raise no_such_tap(game, tap.action, arguments)
    given = dict(tap.args)
    for key in given:
        if key not in names:
            raise Refused(
                "The %(action)s tap has no argument “%(key)s”.",
                "." + key,
                action=tap.action,
                key=quotable(key),
            )
    for key in (required or {}).get(tap.action, names):
        if key not in given:
            raise Refused(
                "The %(action)s tap needs its %(key)s.", "." + key, action=tap.action, key=key
            )
    return given


def per_language(method):
    """A ``cached_property`` for a value holding sentences (a next step, warnings, an
    engine's answer): kept once per language spoken, as a state outlives the request
    that made it (the web layer keeps states between taps) and the next may speak
    another language."""
    slot = "_per_language_" + method.__name__

    @functools.wraps(method)
    def get(self):
        kept = self.__dict__.get(slot)
        if kept is None:
            kept = self.__dict__[slot] = {}
        key = speaking()
        if key not in kept:
            kept[key] = method(self)
        return kept[key]

    return property(get)


def refusing(start):
    """A state type's ``start`` whose rule errors are Refused, as a tap's are."""

    @functools.wraps(start)
    def started(cls, *args, **kwargs):
        try:
            return start(cls, *args, **kwargs)
        except Refused:
            raise
        except RuleError as exc:
            raise Refused(exc.text, exc.path) from None

    return classmethod(started)


class Checks:
    """``verify`` and ``can`` of a state type whose ``apply`` checks a tap before it
    makes the next state (every game's does): one rule, never written twice."""

    def verify(self, tap: Tap) -> None:
        self.apply(tap)

    def can(self, tap: Tap) -> bool:
        try:
            self.apply(tap)
        except RuleError:
            return False
        return True


def tap_path(at: str, path: str) -> str:
    """A refusal's path inside the log: a path relative to the tap (``".card"``, as
    ``verify`` names a tap's argument) or none is placed under the tap's own
    (``taps[3].card``); any other path is the state's own and is kept.

    >>> tap_path("taps[3]", ".card"), tap_path("taps[3]", ""), tap_path("taps[3]", "players")
    ('taps[3].card', 'taps[3]', 'players')
    """
    if not path:
        return at
    return at + path if path.startswith(".") else path


def replay(state: State, taps: Iterable[object], *, path: str = "taps") -> State:
    """The state after a log of taps. A tap whose id came before is skipped (a retry is
    applied once); a refused tap raises :class:`Refused` naming its index."""
    seen: set[str] = set()
    for index, raw in enumerate(taps):
        if index >= MAX_TAPS:
            raise Refused("A deal holds at most %(most)s taps.", path, index, most=MAX_TAPS)
        tap = raw if isinstance(raw, Tap) else Tap.from_json(raw, f"{path}[{index}]")
        if tap.id in seen:
            continue
        try:
            state = state.apply(tap)
        except Refused as refused:
            refused.index = index
            refused.path = tap_path(f"{path}[{index}]", refused.path)
            raise
        except RuleError as error:
            where = tap_path(f"{path}[{index}]", error.path)
            raise Refused(error.text, where, index) from None
        seen.add(tap.id)
    return state


def state_type(game: str) -> type:
    """The play-state type of a game, where its record says (``Game.play_state``,
    loaded on first use); LookupError for a game without one."""
    record = catalog.GAMES.get(game) if isinstance(game, str) else None
    if record is None:
        raise LookupError(Text("There is no game called “%(game)s”.", game=quotable(game)))
    module, _, name = record.play_state.partition(":")
    if not module:
        raise LookupError(
            Text("The play state of “%(game)s” is not available yet.", game=quotable(game))
        )
    try:
        found = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        raise LookupError(
            Text("The play state of “%(game)s” is not available yet.", game=quotable(game))
        ) from None
    return getattr(found, name)


REQUEST_FIELDS = ("players", "settings", "taps")


def play(game: str, request: object) -> dict:
    """The public door: ``{"players", "settings", "taps"}`` → the state as JSON."""
    if not isinstance(request, Mapping):
        raise Refused("The request must be a JSON object.", "")
    for key in request:
        if key not in REQUEST_FIELDS:
            allowed = ", ".join(REQUEST_FIELDS)
            raise Refused(
                "Unknown field “%(key)s” (allowed here: %(names)s).",
                str(key),
                key=quotable(key),
                names=allowed,
            )
    if "players" not in request:
        raise Refused("The field “%(key)s” is missing.", "players", key="players")
    players, settings = request.get("players"), request.get("settings", {})
    taps = request.get("taps", [])
    if not isinstance(taps, list):
        raise Refused("taps must be a list of taps.", "taps")
    if not isinstance(settings, Mapping):
        raise Refused("settings must be an object.", "settings")
    cls = state_type(game)
    return replay(cls.start(players, settings), taps).to_json()


def respond(game: str, raw: bytes | str) -> tuple[dict, int]:
    """(body, HTTP status) of the public door for one raw request, as the score door
    answers: 200 the state, 422 a refused request or tap (with the tap's index), 400 a
    body that is not JSON, 404 an unknown game. The CLI maps every non-200 to exit 2."""
    try:
        state_type(game)
    except LookupError as exc:
        return {"error": {"message": str(exc), "path": "game"}}, 404
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        request = json.loads(text)
        json.dumps(request, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # an unpaired \uD800–\uDFFF escape: no answer could name it
        message = gettext(
            "The request is not valid JSON: it has half a character (an unpaired escape)."
        )
        return {"error": {"message": message, "path": ""}}, 400
    except (UnicodeDecodeError, ValueError, RecursionError):
        return {"error": {"message": gettext("The request is not valid JSON."), "path": ""}}, 400
    try:
        return play(game, request), 200
    except RuleError as exc:
        return exc.as_dict(), 422
    except RecursionError:
        message = gettext("The request is nested too deeply.")
        return {"error": {"message": message, "path": ""}}, 422
