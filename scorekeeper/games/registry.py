"""The games Scorekeeper knows: one line each, the module that declares the game's
record (its ``GAME``, a :class:`~scorekeeper.games.catalog.Game`).

The module's last name is the game's slug. A module is imported when its record is
first read, so answering one game's kind never loads the others.
"""

from __future__ import annotations

import importlib
import threading

MODULES: list[str] = [
    "scorekeeper.games.cowboy",
    "scorekeeper.games.kvanta",
    "scorekeeper.games.vezimas",
    "scorekeeper.games.szaman",
    "scorekeeper.games.pegs",
]

_records: dict = {}  # slug → Game, as read (or registered)
_lock = threading.Lock()


def _slug(module: str) -> str:
    return module.rpartition(".")[2]


def slugs() -> tuple[str, ...]:
    return tuple(_slug(m) for m in MODULES)


def record(slug: str):
    """The game's record; KeyError for a game the registry does not list."""
    found = _records.get(slug)
    if found is not None:
        return found
    module = next((m for m in MODULES if _slug(m) == slug), None) if isinstance(slug, str) else None
    if module is None:
        raise KeyError(slug)
    declared = importlib.import_module(module).GAME
    if declared.slug != slug:
        raise RuntimeError(f"{module} declares the game {declared.slug!r}, not {slug!r}")
    with _lock:
        return _records.setdefault(slug, declared)


def register(game) -> None:
    """List a game whose record is made elsewhere (a plug-in, a test's game)."""
    name = f"registered.{game.slug}"
    with _lock:
        _records[game.slug] = game
        if name not in MODULES:
            MODULES.append(name)


def unregister(slug: str) -> None:
    with _lock:
        _records.pop(slug, None)
        MODULES[:] = [m for m in MODULES if _slug(m) != slug]
