"""`scorekeeper serve` as a subprocess on 127.0.0.1, for the tests that need the
real server and for the load bench."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

ADDRESS = re.compile(r"Open (http://127\.0\.0\.1:\d+)/")


def start_serve(
    db: Path, *options: str, env: dict | None = None, every_worker: bool = True
) -> tuple[subprocess.Popen, str, list[str]]:
    """Starts the server on a free port (port 0: some fixed ports are refused by
    browsers); returns the process, its address (no trailing slash) and the lines
    it printed up to "Ctrl+C". Raises if it stopped before saying where it serves.
    Table creation is not rate-limited unless ``env`` sets SCOREKEEPER_CREATE_RATE_LIMIT:
    tests and benches start many tables from one address.

    The server says where it serves once one worker listens; each worker listens on the
    port itself, once its app is built. With ``every_worker`` this returns once all of
    them listen (the count its ``--workers`` gives), so that a test that stops or kills
    one knows the others answer."""
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
    if every_worker and "--workers" in options:
        count = int(options[options.index("--workers") + 1])
        _wait_listening(int(url.rsplit(":", 1)[1]), count)
    return proc, url, lines


def listening(port: int) -> int:
    """How many sockets listen on ``port`` of 127.0.0.1 (the kernel's table)."""
    rows = [line.split() for line in Path("/proc/net/tcp").read_text().splitlines()[1:]]
    return sum(1 for r in rows if int(r[1].split(":")[1], 16) == port and r[3] == "0A")


def _wait_listening(port: int, workers: int, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while listening(port) < workers:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{listening(port)} of {workers} workers listen on {port}")
        time.sleep(0.02)
