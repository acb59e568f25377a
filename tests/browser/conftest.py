"""Browser tests: Playwright drives Debian's Chromium at a phone viewport
(390×844, touch) against the real app served by waitress on a free port.

A missing Chromium is a failure, never a skip: these tests are the proof that
the screens work.
"""

from __future__ import annotations

import os
import re
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from first_dealer import default_first_dealer
from playwright.sync_api import expect
from waitress import wasyncore
from waitress.server import create_server

from scorekeeper import create_app

CHROMIUM = os.environ.get("SCOREKEEPER_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PHONE = {"width": 390, "height": 844}
# a 390 px phone at 200 % zoom: the page is laid out 195 CSS px wide
ZOOMED = {"width": PHONE["width"] // 2, "height": PHONE["height"] // 2}


# a state a test waits for comes when the machine gets to it: three test processes and
# their browsers on two cores take longer than expect's default 5 s now and then
expect.set_options(timeout=15_000)


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


# What every phone of a test sent and heard, printed when the test fails: a failure
# that happens once in many runs (two phones, a poll racing a tap) is read from it.
NET_LOG: list[str] = []
NET_LOG_KEPT = 400
NET_CLOCK = [time.monotonic()]  # when the test began


def listen(context, label: str):
    """Log ``context``'s requests and answers (the app's own, not its static files)."""

    def line(text: str):
        NET_LOG.append(f"{time.monotonic() - NET_CLOCK[0]:8.3f} {label} {text}")
        del NET_LOG[:-NET_LOG_KEPT]

    def on_request(req):
        if "/static/" not in req.url:
            line(f"→ {req.method} {req.url} {(req.post_data or '')[:300]}")

    def on_response(res):
        if "/static/" in res.url:
            return
        try:
            body = res.text() if res.request.method == "POST" or "/live" in res.url else ""
        except Exception:  # an answer the page no longer waits for
            body = ""
        marker = re.search(r'id="live"[^>]*?(?:\?|&amp;)v=(\d+)', body)
        line(f"← {res.status} {res.url} {len(body)} B live={marker.group(1) if marker else '-'}")

    context.on("request", on_request)
    context.on("response", on_response)
    context.on("requestfailed", lambda req: line(f"✗ {req.url} {req.failure}"))
    return context


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call" and report.failed and NET_LOG:
        report.sections.append(("the phones' requests", "\n".join(NET_LOG)))
    return report


@pytest.fixture(autouse=True)
def _net_log(request):
    NET_LOG.clear()
    NET_CLOCK[0] = time.monotonic()
    if "page" in request.fixturenames:
        listen(request.getfixturevalue("page").context, "A")
    yield


@pytest.fixture(autouse=True)
def _other_phones_closed(request):
    """Every other phone a test opened is closed after it, even when the test failed
    before closing it: left open, it would poll its table for the rest of the run."""
    if "page" not in request.fixturenames and "browser" not in request.fixturenames:
        yield
        return
    browser = request.getfixturevalue("browser")
    kept = set(browser.contexts)
    if "page" in request.fixturenames:
        kept.add(request.getfixturevalue("page").context)  # pytest-playwright closes it
    yield
    for context in list(browser.contexts):
        if context not in kept:
            context.close()


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is missing at {CHROMIUM}; `make test` installs Debian's chromium.")
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "headless": True,
        "args": [
            "--no-sandbox",
            "--headless",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {
        **browser_context_args,
        "viewport": PHONE,
        "has_touch": True,
        "is_mobile": True,
        "device_scale_factor": 2,
    }


@contextmanager
def served(app):
    """``app`` on 127.0.0.1 and a free port, in a background thread; yields its URL.
    It is stopped from inside its own loop: closed from this thread, the loop could be
    waiting on a descriptor that no longer exists."""
    server = create_server(app, host="127.0.0.1", port=0, threads=8)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        # every socket of the loop closed, its map empties and the loop ends
        server.trigger.pull_trigger(lambda: wasyncore.close_all(server._map))
        thread.join(timeout=10)
        server.task_dispatcher.shutdown()


@pytest.fixture(scope="session")
def live_server(tmp_path_factory):
    """The real app on 127.0.0.1 and a free port, in a background thread."""
    db = tmp_path_factory.mktemp("live") / "scorekeeper.sqlite"
    app = create_app(
        {
            "DATABASE": str(db),
            "SECRET_KEY": "browser-tests",
            "POLL_INTERVAL_MS": 500,
            "CREATE_RATE_LIMIT": "1000000 per minute",  # every test starts tables
        }
    )
    with served(app) as url:
        yield url


@pytest.fixture
def zoomed(browser):
    """A second phone, a 390 px one at 200 % zoom."""
    context = listen(
        browser.new_context(viewport=ZOOMED, has_touch=True, is_mobile=True, device_scale_factor=4),
        "Z",
    )
    yield context.new_page()
    context.close()


@pytest.fixture
def console_errors(page):
    """Console errors and CSP violations seen while the test ran; asserted empty at the end."""
    errors: list[str] = []

    def on_console(msg):
        # a refused form (409/422) is an answer the page shows, not an error
        expected = re.search(r"status of 4(09|22)\b", msg.text)
        if msg.type == "error" and not expected:
            errors.append(msg.text)

    page.on("console", on_console)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield errors
    assert errors == [], errors


@pytest.fixture
def shots(request):
    """Save a screenshot for review: shots(page, "name")."""
    folder = ARTIFACTS / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)

    def take(page, name: str):
        page.screenshot(path=str(folder / f"{name}.png"), full_page=True)

    return take


class Taps:
    """Counts the taps a flow needs (printed, compared with the issue's targets)."""

    def __init__(self, page):
        self.page = page
        self.count = 0

    def __call__(self, selector: str, **kw):
        self.page.locator(selector).first.tap(**kw)
        self.count += 1


@pytest.fixture
def taps(page):
    return Taps(page)


def assert_inside_viewport(page, selector: str = "button, a, input, select, label"):
    """Nothing the player uses sticks out sideways at 390 px."""
    overflow = page.evaluate(
        """(sel) => {
            const width = document.documentElement.clientWidth;
            const bad = [];
            for (const el of document.querySelectorAll(sel)) {
                const r = el.getBoundingClientRect();
                if (r.width === 0 && r.height === 0) continue;
                if (r.right > width + 1 || r.left < -1) bad.push(el.outerHTML.slice(0, 80));
            }
            return {bad, scroll: document.documentElement.scrollWidth - width};
        }""",
        selector,
    )
    assert overflow["bad"] == [], overflow
    assert overflow["scroll"] <= 0, overflow


def start_table(page, live_server, game, names, settings: dict | None = None):
    """Start a table through the home page; settings: {field name: value} of the form
    (checkboxes: True/False). Returns the scorer URL."""
    from playwright.sync_api import expect

    page.goto(live_server + "/")
    page.locator(f"input[name=game][value={game}]").tap()
    for i, name in enumerate(names):
        page.locator("input[name=player]").nth(i).fill(name)
    settings = {"first_dealer": default_first_dealer(game, len(names)), **(settings or {})}
    for field, value in settings.items():
        control = page.locator(f'[name="{field}"]')
        if value is True or value is False:
            control.set_checked(value)
        elif control.evaluate("el => el.tagName") == "SELECT":
            control.select_option(str(value))
        else:
            control.fill(str(value))
    page.get_by_role("button", name="Start the table").tap()
    expect(page.locator("#board")).to_be_visible()
    page.wait_for_load_state("load")  # htmx and app.js have wired the page
    return page.url


def totals(page) -> dict[str, int]:
    """The standings as shown: player name → total."""
    return {
        el.get_attribute("data-player"): int(el.inner_text().replace("−", "-").replace(",", ""))
        for el in page.locator("#standings .points").all()
    }


def phone_context(browser, **kw):
    """Another phone at the table."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, **kw)
    return listen(context, chr(ord("B") + len(browser.contexts) - 2))
