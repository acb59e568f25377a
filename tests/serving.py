"""`scorekeeper serve` as a subprocess on 127.0.0.1, for the tests that need the
real server and for the load bench."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

ADDRESS = re.compile(r"Open (http://127\.0\.0\.1:\d+)/")


def start_serve(
    db: Path, *options: str, env: dict | None = None
) -> tuple[subprocess.Popen, str, list[str]]:
    """Starts the server on a free port (port 0: some fixed ports are refused by
    browsers); returns the process, its address (no trailing slash) and the lines
    it printed up to "Ctrl+C". Raises if it stopped before saying where it serves.
    Table creation is not rate-limited unless ``env`` sets SCOREKEEPER_CREATE_RATE_LIMIT:
    tests and benches start many tables from one address."""
    env = {**os.environ, "SCOREKEEPER_CREATE_RATE_LIMIT": "1000000 per minute", **(env or {})}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "scorekeeper.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--db",
            str(db),
            *options,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    url, lines = None, []
    for line in proc.stdout:
        lines.append(line)
        if found := ADDRESS.search(line):
            url = found.group(1)
        if "Ctrl+C" in line:
            break
    if url is None:
        proc.kill()
        proc.wait(timeout=10)
        raise RuntimeError("scorekeeper serve did not start:\n" + "".join(lines))
    # keep draining its output, so the server never blocks on a full pipe
    threading.Thread(target=proc.stdout.read, daemon=True).start()
    return proc, url, lines
