"""Printables over the web: rule cards, blank and filled score sheets (PDF), and
the in-app rules pages."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("prints", __name__)
