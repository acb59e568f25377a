"""``POST /api/v1/score/KIND``: the engines over HTTP, exactly as CONTRACT.md says.

Stateless: nothing is stored, so no CSRF token is needed.
"""

from __future__ import annotations

import json

from flask import Blueprint, Response, request

from .. import api

bp = Blueprint("api", __name__, url_prefix="/api/v1")


def _json(body: dict, status: int = 200) -> Response:
    return Response(
        json.dumps(body, ensure_ascii=False), status=status, mimetype="application/json"
    )


@bp.post("/score/<kind>")
def score(kind: str):
    body, status = api.respond(kind, request.get_data(cache=False))
    return _json(body, status)


@bp.get("/kinds")
def kinds():
    return _json({"kinds": list(api.KINDS)})
