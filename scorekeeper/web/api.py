"""``POST /api/v1/score/KIND``: the engines over HTTP, exactly as CONTRACT.md says;
``POST /api/v1/play/GAME``: a deal's state from its log of taps (PLAY.md).

Stateless: nothing is stored, so no CSRF token is needed.
"""

from __future__ import annotations

import json

from flask import Blueprint, Response, request

from .. import api
from ..games import play as play_state

bp = Blueprint("api", __name__, url_prefix="/api/v1")


def _json(body: dict, status: int = 200) -> Response:
    return Response(
        json.dumps(body, ensure_ascii=False), status=status, mimetype="application/json"
    )


@bp.post("/score/<kind>")
def score(kind: str):
    body, status = api.respond(kind, request.get_data(cache=False))
    return _json(body, status)


@bp.post("/play/<game>")
def play(game: str):
    body, status = play_state.respond(game, request.get_data(cache=False))
    return _json(body, status)


@bp.get("/kinds")
def kinds():
    return _json({"kinds": list(api.KINDS)})
