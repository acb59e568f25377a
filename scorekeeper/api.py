"""KIND → engine dispatch (CONTRACT.md).

``evaluate(kind, request)`` is the one entry point used by the CLI
(``scorekeeper score KIND``), the HTTP API (``POST /api/v1/score/KIND``) and the
web screens. Engines live in ``scorekeeper.games`` and are imported on first use,
so answering one kind never pays for the others.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable

from . import validate as v
from .errors import RuleError, UnknownKind
from .messages import gettext

Engine = Callable[[dict], dict]

# kind → module that defines it in its KINDS table
_MODULES = {
    "cowboy-gun": "cowboy",
    "cowboy-marriage": "cowboy",
    "cowboy-deal": "cowboy",
    "cowboy-shot": "cowboy",
    "szaman-deal": "szaman",
    "kvanta-dealer": "kvanta",
    "kvanta-hand": "kvanta",
    "kvanta-trick": "kvanta",
    "kvanta-flux": "kvanta",
    "kvanta-call": "kvanta",
    "kvanta-poker": "kvanta",
    "vezimas-trumps": "vezimas",
    "vezimas-beat": "vezimas",
    "vezimas-deal": "vezimas",
    "pegs-moves": "pegs",
    "pegs-apply": "pegs",
    "game-result": "results",
}

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


_LOCAL: dict[str, Engine] = {"manual-points": manual_points}

KINDS: tuple[str, ...] = tuple(sorted([*_LOCAL, *_MODULES]))


def engine_for(kind: str) -> Engine:
    if kind in _LOCAL:
        return _LOCAL[kind]
    module_name = _MODULES.get(kind) if isinstance(kind, str) else None
    if module_name is None:
        raise UnknownKind(str(kind))
    module = importlib.import_module(f"scorekeeper.games.{module_name}")
    return module.KINDS[kind]


def evaluate(kind: str, request: object) -> dict:
    """Answer one request; raise RuleError for refused input, UnknownKind for a bad kind."""
    engine = engine_for(kind)
    if not isinstance(request, dict):
        raise RuleError("The request must be a JSON object.", "")
    return engine(request)


__all__ = [
    "KINDS",
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
    """Per-player points of an engine result, whatever the kind's response shape."""
    if kind == "cowboy-deal":
        return {name: item["total"] for name, item in result.get("players", {}).items()}
    if kind == "szaman-deal":
        return dict(result.get("totals", {}))
    return dict(result.get("points", {}))
