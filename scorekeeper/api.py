"""KIND → engine dispatch (CONTRACT.md).

``evaluate(kind, request)`` is the one entry point used by the CLI
(``scorekeeper score KIND``), the HTTP API (``POST /api/v1/score/KIND``) and the
web screens. Each game's record (``scorekeeper.games.catalog.Game``, listed in
``scorekeeper.games.registry``) declares the kinds it answers, named ``<game>-…``;
its module is imported on first use, so answering one kind never pays for the others.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from . import validate as v
from .errors import RuleError, UnknownKind
from .games import catalog, results
from .messages import gettext

Engine = Callable[[dict], dict]

MANUAL_LIMIT = 10_000


def manual_points(request: dict) -> dict:
    """The generic score pad: points typed by hand for 2–8 players."""
    req = v.obj(request, "", required=("players", "points"))
    players = v.players(req["players"], "players", 2, 8)
    raw = v.player_keys(req["points"], "points", players)
    points = {
        name: v.integer(raw[name], v.join("points", name), -MANUAL_LIMIT, MANUAL_LIMIT)
        for name in players
        if name in raw
    }
    return {"points": {name: points.get(name, 0) for name in players}}


# the kinds of no one game; every other kind is declared by its game's record
_LOCAL: dict[str, Engine] = {
    "manual-points": manual_points,
    "game-result": results.game_result_answer,
}


def kinds() -> tuple[str, ...]:
    """Every kind answered: these and each registered game's."""
    return tuple(sorted([*_LOCAL, *(k for g in catalog.GAMES.values() for k in g.engines)]))


def __getattr__(name: str):
    if name == "KINDS":
        return kinds()
    raise AttributeError(name)


def engine_for(kind: str) -> Engine:
    if isinstance(kind, str) and kind in _LOCAL:
        return _LOCAL[kind]
    found = catalog.kind_record(kind) if isinstance(kind, str) else None
    if found is None or kind not in found[0].engines:
        raise UnknownKind(str(kind))
    return found[0].engines[kind]


def evaluate(kind: str, request: object) -> dict:
    """Answer one request; raise RuleError for refused input, UnknownKind for a bad kind."""
    engine = engine_for(kind)
    if not isinstance(request, dict):
        raise RuleError("The request must be a JSON object.", "")
    return engine(request)


__all__ = [
    "kinds",
    "RuleError",
    "UnknownKind",
    "evaluate",
    "engine_for",
    "manual_points",
    "points_of",
]


def respond(kind: str, raw: bytes | str) -> tuple[dict, int]:
    """(body, HTTP status) for one raw request body, as CONTRACT.md says:
    200 answer, 422 refused, 400 malformed JSON, 404 unknown kind.
    The CLI maps every non-200 status to exit code 2."""
    try:
        engine = engine_for(kind)
    except UnknownKind as exc:
        return exc.as_dict(), 404
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        payload = json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return {"error": {"message": gettext("The request is not valid JSON."), "path": ""}}, 400
    if _has_lone_surrogate(text, payload):
        message = gettext(
            "The request is not valid JSON: it has half a character "
            "(an unpaired \\uD800–\\uDFFF escape)."
        )
        return {"error": {"message": message, "path": ""}}, 400
    try:
        if not isinstance(payload, dict):
            raise RuleError("The request must be a JSON object.", "")
        return engine(payload), 200
    except RuleError as exc:
        return exc.as_dict(), 422
    except RecursionError:
        message = gettext("The request is nested too deeply.")
        return {"error": {"message": message, "path": ""}}, 422


# only an escape can put a surrogate in parsed JSON: UTF-8 text cannot carry one
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _has_lone_surrogate(text: str, payload: object) -> bool:
    """A \\uD800–\\uDFFF escape that is not half of a pair: no answer naming it could be
    written out as UTF-8 (pairs are joined into one character by the parser)."""
    if not _SURROGATE_ESCAPE.search(text):
        return False
    try:
        json.dumps(payload, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def points_of(kind: str, result: dict) -> dict[str, int]:
    """Per-player points of an engine result, whatever the kind's response shape
    (as the kind's game declares it)."""
    found = catalog.kind_record(kind)
    if found is not None and found[1] is not None:
        return found[1].points(result)
    return dict(result.get("points", {}))
