"""The pegs screen."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("pegs", __name__, url_prefix="/t/<key>/pegs")
