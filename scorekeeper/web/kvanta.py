"""The kvanta screen."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("kvanta", __name__, url_prefix="/t/<key>/kvanta")
