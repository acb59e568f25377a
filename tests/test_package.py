"""Packaging: the wheel ships templates, static files and printables, and an
installed (non-editable) copy serves pages; `scorekeeper serve` really serves."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
import requests
from serving import start_serve

ROOT = Path(__file__).resolve().parent.parent


def clean_copy(to: Path) -> Path:
    """The project's files as a fresh clone has them (nothing built or compiled)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        source = ROOT / name.decode()
        if source.is_file():
            (to / name.decode()).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, to / name.decode())
    return to


def build_wheel(out: Path, source: Path = ROOT) -> Path:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(source),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
        ],
        check=True,
        timeout=300,
    )
    (wheel,) = out.glob("scorekeeper-*.whl")
    return wheel


DATA_FOLDERS = {
    "templates": "scorekeeper.templates",
    "static": "scorekeeper.static",
    "printables": "scorekeeper.printables",
}


def test_every_resource_folder_is_a_listed_package():
    # a folder left out still ships (as data) but makes setuptools warn on every build
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    for folder, package in DATA_FOLDERS.items():
        for path in [ROOT / folder, *(ROOT / folder).rglob("*")]:
            parts = path.relative_to(ROOT).parts
            if not path.is_dir() or "build" in parts or "__pycache__" in parts:
                continue
            name = ".".join((package, *path.relative_to(ROOT / folder).parts))
            assert name in listed, f"{path.relative_to(ROOT)} is not in pyproject's packages"


def test_the_wheel_ships_templates_static_and_printables(tmp_path):
    # built from a fresh clone's files: the build itself compiles the catalogues
    wheel = build_wheel(tmp_path / "dist", clean_copy(tmp_path / "source"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for language in ("sr_Latn", "sr_Cyrl", "pl", "lt", "sk"):
        assert f"scorekeeper/translations/{language}/LC_MESSAGES/messages.mo" in names
    for required in (
        "scorekeeper/templates/base.html",
        "scorekeeper/templates/tables/table.html",
        "scorekeeper/static/htmx.min.js",
        "scorekeeper/static/app.css",
        "scorekeeper/static/app.js",
        "scorekeeper/static/icons/icon-192.png",
    ):
        assert required in names, required
    assert any(n.startswith("scorekeeper/printables/") for n in names)
    assert not any("/build/" in n and n.endswith(".pdf") for n in names)

    # an installed copy (unpacked wheel first on the path) finds its own resources
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = (
        "import scorekeeper, sys;"
        "from scorekeeper import create_app;"
        f"app = create_app({{'DATABASE': {str(tmp_path / 'w.sqlite')!r}, 'SECRET_KEY': 'x'}});"
        "c = app.test_client();"
        "print(scorekeeper.__file__);"
        "print(c.get('/').status_code, c.get('/static/htmx.min.js').status_code);"
        "from scorekeeper import i18n;"
        "print(type(i18n.catalogue_for('pl')).__name__, i18n.catalogue_for('pl')._catalog != {})"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    file_line, statuses, catalogue = out.stdout.strip().splitlines()[-3:]
    assert file_line.startswith(str(site))
    assert statuses == "200 200"
    assert catalogue == "Translations True"  # the compiled catalogue, read from the wheel


@pytest.mark.serial
def test_serve_prints_the_address_and_serves(tmp_path):
    proc, url, lines = start_serve(tmp_path / "s.sqlite")
    try:
        # the QR code of the address is printed in the terminal
        assert sum("█" in line or "▀" in line or "▄" in line for line in lines) > 5
        response = requests.get(url + "/", timeout=10)
        assert response.status_code == 200 and "Start a table" in response.text
    finally:
        proc.kill()
        proc.wait(timeout=10)
