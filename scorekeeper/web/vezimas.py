"""The vezimas screen."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("vezimas", __name__, url_prefix="/t/<key>/vezimas")
