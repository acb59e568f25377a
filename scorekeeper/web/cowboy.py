"""The cowboy screen."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("cowboy", __name__, url_prefix="/t/<key>/cowboy")
