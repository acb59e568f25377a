"""Where the app's files are: templates, static files and printables."""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """``templates``, ``static`` or ``printables``: inside the installed package
    (a wheel maps them there) or at the top of the source tree."""
    installed = PACKAGE_DIR / name
    if installed.is_dir():
        return installed
    return PACKAGE_DIR.parent / name
