"""The szaman screen."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("szaman", __name__, url_prefix="/t/<key>/szaman")
