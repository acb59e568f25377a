"""Printables as PDF: rule cards (A6), blank and filled score sheets (A4).

HTML comes from the Jinja templates in ``printables/`` (plus the shared rule-card
partial in ``templates/prints/``); WeasyPrint turns it into PDF with the vendored
DejaVu Sans subset, so the result does not depend on the machine's fonts.

WeasyPrint takes ~0.6 s to import, so it is imported lazily, on the first
render: the CLI's ``score`` path and app start never pay for it.
Rendered PDFs are kept in a small per-app cache, keyed by what they show (a table's
version, a game's slug), so a second download costs a dictionary lookup. A rule
card differs from table to table only in its house-rules box: the rest is laid out
once per process, and each card lays out only that box (``render_pdf_with_insert``).

Renders are bounded: at most ``PDF_RENDERS`` at once for one database, across the
server's workers (``render_slot``); a download that finds them all busy is refused
at once (``RenderBusy``, a 503 asking to retry) rather than queued, so the other
workers stay free for every other route. A table's sheet prints its latest
``SHEET_ROWS`` entries under a carried-forward line, as on paper, and is rendered in
a process of its own (``IsolatedRenderer``) that is stopped once it takes longer than
``PDF_RENDER_SECONDS`` (``RenderTimeout``): WeasyPrint cannot be interrupted inside
the process that runs it.

Every document is printed in one of the six languages (``language``, English by
default; the web routes pass the request's, ``request_language``): its templates'
``_()``, the rule cards' ``N_`` texts and the sheets' words are looked up in that
language's catalogue, passed to the templates with the page (never a process-wide
switch, so two phones printing in two languages at once each get their own). The
HTML says its language (``<html lang>``), so the isolated renderer needs no more.

Everything here needs an app context (the templates use the app's Jinja setup).
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import logging
import multiprocessing
import os
import re
import shutil
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import flask_babel
from babel.dates import format_date
from flask import current_app
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, pass_context
from markupsafe import Markup

from . import i18n, pegs_table, rulecards
from .cards import CardError, parse_card
from .games import catalog, vezimas
from .history import sheet_chart
from .messages import LANGUAGES, N_, Text, grouped, points, quotable, signed
from .resources import resource_dir
from .store import Store, Table
from .summary import TableSummary, summarize

try:
    import fcntl
except ImportError:  # not on Windows: renders are then bounded per process only
    fcntl = None

PRINTABLES = resource_dir("printables")
# git-ignored; ``scorekeeper print`` writes here, a folder a language
BUILD_DIR = PRINTABLES / "build"

ENGLISH = LANGUAGES[0]  # of the app's languages (BCP 47 tags): the one printed by default

PLAYERS_PER_BLOCK = 3  # Szaman and Kvanta: at most three players' columns side by side

# the stylesheets of each kind of document, in printables/
CARD_CSS = ("print.css", "card.css")  # A6 rule cards
# A rule card prints on CARD_PAGES pages (one A6 sheet, front and back). One whose
# text (a longer translation) runs past them is printed again with the next of these:
# tighter lines, then the condensed face too; the body stays 7.5 pt either way.
CARD_PAGES = 2
CARD_TIGHTER = (
    (*CARD_CSS, "card-tight.css"),
    (*CARD_CSS, "card-tight.css", "card-condensed.css"),
)
SHEET_CSS = ("print.css", "sheet.css")  # A4 score sheets
# A rule card's grid of this many rows or more prints its halves side by side: the
# room that lets every card print its body at 7.5 pt on two A6 pages (Cowboy's scoring)
CARD_TWO_UP_ROWS = 10

log = logging.getLogger(__name__)
_render_lock = threading.RLock()
renders = 0  # PDFs rendered by this process: the tests prove the cache with it

# A table's sheet prints its latest entries (about three A4 pages) under a line that
# carries the totals of the earlier ones forward, as a paper sheet does.
SHEET_ROWS = 80

# Defaults of the app's settings PDF_RENDERS and PDF_RENDER_SECONDS: one render at a
# time per two cores leaves the other workers free for every other route; a sheet of
# SHEET_ROWS renders in about a second, so 20 s is ample on a slow laptop.
DEFAULT_RENDERS = max(1, (os.cpu_count() or 2) // 2)
DEFAULT_RENDER_SECONDS = 20.0
RETRY_AFTER_S = 5


class RenderBusy(Exception):
    """Every render slot is taken: the download is refused now, not queued."""

    message = (
        "Scorekeeper is busy printing other sheets right now; nothing is wrong with "
        "this one. Try again in a few seconds."
    )


class RenderTimeout(Exception):
    """A render ran over its time limit and was stopped."""

    message = (
        "This sheet took too long to prepare, so it was stopped to keep the app quick "
        "for everyone. Try again in a moment."
    )


@dataclass(frozen=True)
class Printed:
    """A rendered PDF with what a download needs."""

    pdf: bytes
    etag: str  # a hash of the HTML and the print assets: the same content, the same tag
    name: str  # what it is, the same in every language: its name in a folder of its language
    language: str

    @property
    def filename(self) -> str:
        """Its download's name, which says its language (``kvanta-rule-card-pl.pdf``):
        downloads in two languages land in one folder side by side."""
        return download_name(self.name, self.language)


def download_name(name: str, language: str) -> str:
    """``name`` with the language's tag before its extension (ASCII, as the tags are)."""
    stem, dot, extension = name.rpartition(".")
    return f"{stem}-{language}{dot}{extension}" if dot else f"{name}-{language}"


# ---------------------------------------------------------------- rendering


@functools.cache
def _weasyprint():
    """WeasyPrint's HTML class and one shared font configuration (imported on first use)."""
    from weasyprint import HTML
    from weasyprint.text.fonts import FontConfiguration

    # drop it before interpreter shutdown: its __del__ removes its temporary font
    # folder, and fails noisily (leaving the folder) once modules are torn down
    atexit.register(_forget_weasyprint)
    return HTML, FontConfiguration()


def _forget_weasyprint() -> None:
    folder = None
    if _weasyprint.cache_info().currsize:
        _html, fonts = _weasyprint()
        folder = getattr(fonts, "_folder", None)  # where it copied the @font-face fonts
    _stylesheets.cache_clear()
    _kept_layout.cache_clear()
    _weasyprint.cache_clear()
    if folder:  # removed here, not left to garbage collection, which may never come
        shutil.rmtree(folder, ignore_errors=True)


@functools.cache
def _stylesheets(names: tuple[str, ...]) -> list:
    """The stylesheets, parsed (and their @font-face fonts loaded) once per process."""
    from weasyprint import CSS

    _html, fonts = _weasyprint()
    # base_url defaults to each file's folder, so url(fonts/...) finds the vendored fonts
    return [CSS(filename=str(PRINTABLES / name), font_config=fonts) for name in names]


def _layout(html: str, stylesheets: tuple[str, ...]):
    """HTML laid out in pages (a WeasyPrint ``Document``), ready to be written as PDF."""
    html_class, fonts = _weasyprint()
    document = html_class(string=html, base_url=PRINTABLES.as_uri() + "/")
    return document.render(stylesheets=_stylesheets(stylesheets), font_config=fonts)


@functools.lru_cache(maxsize=16)  # a rule card per game and language; ~2 MB each
def _kept_layout(html: str, stylesheets: tuple[str, ...]):
    """The layout of pages that print the same every time, made once per process.
    Writing a PDF reads a laid-out document and leaves it as it was."""
    return _layout(html, stylesheets)


def render_pdf(html: str, stylesheets: tuple[str, ...] = SHEET_CSS) -> bytes:
    """HTML → PDF bytes with the given stylesheets of ``printables/``."""
    global renders
    # one render at a time: WeasyPrint shares the font configuration and is CPU-bound anyway
    # (re-entrant: printed() holds it already)
    with _render_lock:
        renders += 1
        return _layout(html, stylesheets).write_pdf()


# The ids that mark, in an insert's fixed document, the top of the page the insert
# goes on and the place it goes (set by the templates that make such a document).
INSERT_IDS = {"top": "insert-page-top", "at": "insert-at"}


class _PaintedOver:
    """A laid-out page with the page of another document painted over it.

    Writing a PDF reads of each page its size, bleed, anchors, links, bookmarks and
    forms, and asks it to ``paint``: this offers the same, from both pages."""

    def __init__(self, base, over):
        self.width, self.height, self.bleed = base.width, base.height, base.bleed
        # an id on both pages (the card's own) is an anchor where it comes first
        self.anchors = {**over.anchors, **base.anchors}
        for mark in INSERT_IDS.values():
            self.anchors.pop(mark, None)
        self.links = base.links + over.links
        self.bookmarks = base.bookmarks + over.bookmarks
        self.forms = {
            form: base.forms.get(form, []) + over.forms.get(form, [])
            for form in dict.fromkeys([*base.forms, *over.forms])
        }
        self._pages = (base, over)

    def paint(self, stream, scale=1):
        for page in self._pages:
            page.paint(stream, scale)


def _insert_place(document) -> tuple[int, float] | None:
    """The page that holds the insert mark, and how far (CSS px) the mark lies below
    the top of that page's flow; none when the marks are not on one page."""
    for index, page in enumerate(document.pages):
        at, top = page.anchors.get(INSERT_IDS["at"]), page.anchors.get(INSERT_IDS["top"])
        if at is not None:
            return (index, at[1] - top[1]) if top is not None else None
    return None


def render_pdf_with_insert(
    fixed_html: str,
    make_insert_html: Callable[[float], str],
    whole_html: str,
    stylesheets: tuple[str, ...],
    tighter: Sequence[tuple[str, ...]] = (),
    most_pages: int = 0,
) -> bytes:
    """The PDF of ``whole_html``, made from a part that never changes and a small
    part that does (a rule card, and the house-rules box of a table).

    Layout is most of a render's cost. ``fixed_html`` is the document without the
    changing part, with the ``INSERT_IDS`` marks: it is laid out once per process.
    ``make_insert_html(offset)`` is the changing part alone, ``offset`` CSS px below
    the top of its page's flow: it is laid out on a page of its own, and that page
    is painted over the marked one. Where the insert would run on over its page
    (it would break differently), the whole document is laid out instead. Either way
    the PDF is the same as ``whole_html``'s when the insert is the last thing in it
    and starts where the mark is.

    ``most_pages``: a document longer than that is laid out again with each of the
    ``tighter`` stylesheets in turn, until one fits (else the last one is kept)."""
    global renders
    with _render_lock:
        renders += 1
        for attempt in (stylesheets, *tighter):
            document, painted = _with_insert(fixed_html, make_insert_html, whole_html, attempt)
            if not most_pages or len(document.pages) <= most_pages:
                break
        if painted:
            try:
                return document.write_pdf()
            except (AttributeError, TypeError):
                # a WeasyPrint that asks pages for more than _PaintedOver offers:
                # slower, but the card still prints (the tests would show it)
                log.exception("rule card: painting over a kept page failed")
                document = _layout(whole_html, attempt)
        return document.write_pdf()


def _with_insert(
    fixed_html: str,
    make_insert_html: Callable[[float], str],
    whole_html: str,
    stylesheets: tuple[str, ...],
):
    """The laid-out document of ``render_pdf_with_insert``, and whether it is the
    kept fixed part with the insert painted over (else the whole, laid out)."""
    fixed = _kept_layout(fixed_html, stylesheets)
    place = _insert_place(fixed)
    if place is not None:
        index, offset = place
        insert = _layout(make_insert_html(offset), stylesheets)
        if len(insert.pages) == 1:
            pages = list(fixed.pages)
            pages[index] = _PaintedOver(pages[index], insert.pages[0])
            return fixed.copy(pages), True
    return _layout(whole_html, stylesheets), False


@functools.cache
def _assets_digest() -> str:
    """Print CSS and fonts: part of every ETag, so a changed stylesheet changes the tag."""
    digest = hashlib.sha256()
    for path in sorted(PRINTABLES.glob("*.css")) + sorted(PRINTABLES.glob("fonts/*.ttf")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _etag(html: str, stylesheets: tuple[str, ...]) -> str:
    text = "\n".join((_assets_digest(), *stylesheets, html))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _env() -> Environment:
    """The app's Jinja environment (filters, ``_()``) reading ``printables/`` first."""
    app = current_app._get_current_object()
    env = app.extensions.get("printing.env")
    if env is None:
        env = app.jinja_env.overlay(
            loader=ChoiceLoader([FileSystemLoader(str(PRINTABLES)), app.jinja_env.loader])
        )
        # its own filters: an overlay shares the app's dict, and the app's screens keep
        # their own "signed" and "number" (the printables' read the printable's language)
        env.filters = {**env.filters, **PRINT_FILTERS}
        app.extensions["printing.env"] = env
    return env


def render_html(template: str, language: str = ENGLISH, **context) -> str:
    """A printable's HTML in ``language``: the template's ``_()``/``gettext``/
    ``ngettext`` (Jinja's newstyle, as the app's own) and the filters that translate
    (``rules_markup``, ``translated``) read that language's catalogue from the context."""
    return _env().get_template(template).render(**_speaking(language), **context)


# ---------------------------------------------------------------- languages


def language_tag(value: object) -> str | None:
    """One of ``LANGUAGES`` however it is written (``sr_Latn``, ``sr-latn``, a Babel
    ``Locale``), or None."""
    text = str(value or "").replace("_", "-").casefold()
    return next((tag for tag in LANGUAGES if tag.casefold() == text), None)


def request_language() -> str:
    """The language the request speaks (Flask-Babel's locale), English if not one of ours."""
    return language_tag(flask_babel.get_locale()) or ENGLISH


def catalogue(language: str):
    """The translations of ``language`` (``gettext``/``ngettext``): the catalogue a
    page in that language reads; a language without one speaks English."""
    return i18n.catalogue_for(language_tag(language) or ENGLISH)


def _speaking(language: str) -> dict:
    """The template context that makes a printable speak ``language``."""
    tag = language_tag(language)
    if tag is None:
        raise ValueError(f"not a language of the app: “{quotable(language)}”")
    found = catalogue(tag)

    @pass_context
    def gettext(context, string: str, **variables) -> str:
        text = found.gettext(string)
        if context.eval_ctx.autoescape:
            text = Markup(text)
        return text % variables  # newstyle gettext: always formatted, %% for a percent

    @pass_context
    def ngettext(context, singular: str, plural: str, num: int, **variables) -> str:
        variables.setdefault("num", num)
        text = found.ngettext(singular, plural, num)
        if context.eval_ctx.autoescape:
            text = Markup(text)
        return text % variables

    return {
        "_": gettext,
        "gettext": gettext,
        "ngettext": ngettext,
        "print_catalogue": found,
        "print_language": tag,
        "page_numbers": page_numbers(found),
    }


# Translators: the foot of each page of a score sheet ("page 1 of 2")
PAGE_OF_PAGES = N_("page %(page)s of %(pages)s")


def page_numbers(found) -> Markup:
    """The CSS ``content`` of a sheet's page numbers in the catalogue ``found``: its
    words as CSS strings, the numbers as the page counters (in the order the
    translation puts them)."""
    parts = re.split(r"%\((pages?)\)s", found.gettext(PAGE_OF_PAGES))
    values = [
        f"counter({part})" if index % 2 else _css_string(part)
        for index, part in enumerate(parts)
        if part or index % 2
    ]
    return Markup(" ".join(values) or '""')


def _css_string(text: str) -> str:
    """A CSS string of ``text``: quoted, escaped (nothing in it can end the rule)."""
    escaped = "".join(
        ch if ch.isalnum() or ch in " .,:;-–—/()" else f"\\{ord(ch):x} " for ch in text
    )
    return f'"{escaped}"'


def _context_catalogue(context):
    """The catalogue a template speaks: a printable's own, else the request's (the
    in-app Rules page renders the same rule-card partial)."""
    found = context.get("print_catalogue")
    return i18n.translations() if found is None else found


def say(value: object, found) -> str:
    """A text in the catalogue ``found``: a ``messages.Text`` rendered, a string taken
    as its msgid (a word marked with ``N_``: a label, a grid's cell); others as they are."""
    if isinstance(value, Text):
        return value.render(found)
    if isinstance(value, str):
        return found.gettext(value) if value else value
    return "" if value is None else str(value)


@pass_context
def translated(context, value: object) -> str:
    """Filter: the value in the template's language (see ``say``)."""
    return say(value, _context_catalogue(context))


@pass_context
def translated_markup(context, text: str) -> Markup:
    """Filter: a rule-card text in the template's language, with its markup
    (``rulecards.markup``): translated first, so a translation keeps **bold** and suits."""
    return rulecards.markup(say(text, _context_catalogue(context)))


# ---------------------------------------------------------------- the cache


class PdfCache:
    """Least-recently-used PDFs by key, and by content so equal HTML renders once."""

    def __init__(self, size: int = 64):
        self.size = size
        self._by_key: OrderedDict[Hashable, Printed] = OrderedDict()
        self._by_etag: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()
        self.in_flight: dict[Hashable, threading.Event] = {}  # keys being rendered now

    def get(self, key: Hashable) -> Printed | None:
        with self._lock:
            hit = self._by_key.get(key)
            if hit is not None:
                self._by_key.move_to_end(key)
            return hit

    def pdf(self, etag: str) -> bytes | None:
        with self._lock:
            return self._by_etag.get(etag)

    def put(self, key: Hashable, printed: Printed) -> None:
        with self._lock:
            self._by_key[key] = printed
            self._by_etag[printed.etag] = printed.pdf
            for store in (self._by_key, self._by_etag):
                while len(store) > self.size:
                    store.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._by_key.clear()
            self._by_etag.clear()


def cache() -> PdfCache:
    """This app's PDF cache (tests make many apps, whose table ids overlap)."""
    extensions = current_app.extensions
    if "printing.cache" not in extensions:
        extensions["printing.cache"] = PdfCache()
    return extensions["printing.cache"]


def printed(
    key: Hashable,
    name: str,
    make_html: Callable[[], str],
    stylesheets: tuple[str, ...] = SHEET_CSS,
    render: Callable[[str, int], bytes] | None = None,
    language: str = ENGLISH,
) -> Printed:
    """The PDF for ``key`` in ``language`` (``name``: ``Printed.name``): from the
    cache, else rendered from ``make_html()`` (by ``render(html, slot)`` when given,
    else ``render_pdf``) in a render slot (``render_slot``: ``RenderBusy`` when none is
    free). A request for a PDF that another is rendering waits for that one instead."""
    language = language_tag(language) or language  # as its file name writes it: sr-Latn
    key = (key, language)
    store = cache()
    hit = store.get(key)
    if hit is not None:
        return hit
    with store._lock:
        rendering = store.in_flight.get(key)
        if rendering is None:
            store.in_flight[key] = done = threading.Event()
    if rendering is not None:
        # two phones asking at once: the second waits for the first one's PDF
        rendering.wait(render_seconds())
        hit = store.get(key)
        if hit is None:
            raise RenderBusy()
        return hit
    try:
        hit = store.get(key)  # put there just before this request marked the key
        if hit is not None:
            return hit
        html = make_html()
        etag = _etag(html, stylesheets)
        pdf = store.pdf(etag)
        if pdf is None:
            with render_slot() as slot:
                pdf = render(html, slot) if render else render_pdf(html, stylesheets)
        result = Printed(pdf, etag, name, language)
        store.put(key, result)
        return result
    finally:
        with store._lock:
            store.in_flight.pop(key, None)
        done.set()


# ---------------------------------------------------------------- bounded renders


def render_seconds() -> float:
    return float(current_app.config.get("PDF_RENDER_SECONDS") or DEFAULT_RENDER_SECONDS)


_slot_semaphores: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_slot_semaphores_guard = threading.Lock()


@contextmanager
def render_slot() -> Iterator[int]:
    """One of the ``PDF_RENDERS`` render slots of this database (its number), taken
    without waiting: ``RenderBusy`` when every one is in use. Across the server's
    workers each slot is an ``flock`` of ``<database>.render-<n>.lock`` (released
    with its process, however it ends); without such a file, a semaphore of this
    process."""
    slots = max(1, int(current_app.config.get("PDF_RENDERS") or DEFAULT_RENDERS))
    database = str(current_app.config.get("DATABASE", ":memory:"))
    for slot in range(slots):
        fd = None
        if fcntl is not None and database != ":memory:":
            try:
                fd = os.open(f"{database}.render-{slot}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            except OSError:
                fd = None
        if fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            try:
                yield slot
            finally:
                os.close(fd)  # closing the file releases its flock
            return
        with _slot_semaphores_guard:
            semaphore = _slot_semaphores.setdefault((database, slot), threading.BoundedSemaphore(1))
        if not semaphore.acquire(blocking=False):
            continue
        try:
            yield slot
        finally:
            semaphore.release()
        return
    raise RenderBusy()


def _render_worker(conn, idle_seconds: float) -> None:
    """The isolated renderer's process: HTML and stylesheets in, PDF bytes out, until
    the app's end of the pipe closes or nothing came for ``idle_seconds`` (its memory
    is then given back; the next sheet starts a new one)."""
    while conn.poll(idle_seconds):
        try:
            html, stylesheets = conn.recv()
        except EOFError:
            return
        try:
            conn.send((True, _layout(html, stylesheets).write_pdf()))
        except Exception as exc:  # noqa: BLE001 (told to the app, which logs it)
            conn.send((False, f"{type(exc).__name__}: {exc}"))


class IsolatedRenderer:
    """A process of its own that renders PDFs, started on first use, so that a
    render over its time limit can be stopped (WeasyPrint is CPU-bound Python code
    that nothing in its own process could interrupt) and its memory is given back."""

    IDLE_SECONDS = 120.0

    def __init__(self):
        self._process = None
        self._conn = None
        self._lock = threading.Lock()
        self._used = 0.0  # when it last answered (time.monotonic)

    def render(self, html: str, stylesheets: tuple[str, ...], seconds: float) -> bytes:
        with self._lock:
            # one near its idle end is replaced, so that it never leaves mid-request
            if time.monotonic() - self._used > self.IDLE_SECONDS - 10:
                self.stop()
            if self._process is None or not self._process.is_alive():
                self._start()
            try:
                self._conn.send((html, stylesheets))
                if not self._conn.poll(seconds):
                    self.stop()
                    raise RenderTimeout()
                ok, payload = self._conn.recv()
                self._used = time.monotonic()
            except (EOFError, OSError) as exc:
                self.stop()
                raise RuntimeError(f"the PDF renderer stopped: {exc}") from exc
        if not ok:
            raise RuntimeError(f"the PDF renderer failed: {payload}")
        return payload

    def _start(self) -> None:
        context = multiprocessing.get_context("spawn")  # no copy of a threaded server
        parent, child = context.Pipe()
        process = context.Process(
            target=_render_worker, args=(child, self.IDLE_SECONDS), daemon=True
        )
        process.start()
        child.close()
        self._process, self._conn = process, parent

    def stop(self) -> None:
        process, conn = self._process, self._conn
        self._process = self._conn = None
        if conn is not None:
            conn.close()
        if process is not None:
            process.kill()
            process.join(5)


_renderers: dict[int, IsolatedRenderer] = {}
_renderers_guard = threading.Lock()


def render_isolated(html: str, slot: int, stylesheets: tuple[str, ...] = SHEET_CSS) -> bytes:
    """HTML → PDF in the isolated renderer of render slot ``slot``, stopped after
    ``PDF_RENDER_SECONDS`` (``RenderTimeout``)."""
    global renders
    with _renderers_guard:
        renderer = _renderers.setdefault(slot, IsolatedRenderer())
    renders += 1
    return renderer.render(html, stylesheets, render_seconds())


@atexit.register
def _stop_renderers() -> None:
    for renderer in list(_renderers.values()):
        renderer.stop()


# ---------------------------------------------------------------- template helpers


@pass_context
def _short_date(context, iso: str | None) -> str:
    """1 Dec 2026, with the month in the printable's language."""
    if not iso:
        return ""
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return iso[:10]
    return format_date(moment, "d MMM y", locale=_locale(context))


def _locale(context) -> str:
    """Babel's name of the printable's language (``sr_Latn``)."""
    return (context.get("print_language") or ENGLISH).replace("-", "_")


PRINT_FILTERS = {
    "rules_markup": translated_markup,  # a rule-card text, translated, with its markup
    "translated": translated,  # a word of data (an N_ label, a Text) in the page's language
    "short_date": _short_date,
    # numbers as the printable's language writes them
    "signed": pass_context(lambda context, value: signed(value, _locale(context))),  # +25 / −30
    "number": pass_context(lambda context, value: points(value, _locale(context))),  # a total
    "grouped": pass_context(lambda context, value: grouped(value, _locale(context))),  # 1,250
}


def _blocks(items: Sequence, most: int) -> list[list]:
    """Split into as few blocks of at most ``most`` as possible, evenly (4 → 2 + 2)."""
    count = max(1, -(-len(items) // most))
    size, extra = divmod(len(items), count)
    blocks, start = [], 0
    for i in range(count):
        end = start + size + (1 if i < extra else 0)
        blocks.append(list(items[start:end]))
        start = end
    return blocks


def _house(game: catalog.Game, table: Table | None) -> list[rulecards.HouseRule]:
    return rulecards.house_rules(game, table.settings if table else None)


# ---------------------------------------------------------------- rule cards


def rule_card_html(
    slug: str,
    table: Table | None = None,
    part: str | None = None,
    house_offset: float = 0.0,
    language: str = ENGLISH,
) -> str:
    """A game's card in ``language``; from a table it lists that table's house rules
    (on the back). ``part``: "fixed" (all but the house-rules box) or "house" (the box
    alone, ``house_offset`` px down the back), else the whole card."""
    card = rulecards.card(slug)
    return render_html(
        "rule-card.html",
        language,
        card=card,
        house=_house(card.game, table),
        house_table=table.name if table else None,
        part=part,
        house_offset=house_offset,
        insert_ids=INSERT_IDS,
        two_up_rows=CARD_TWO_UP_ROWS,
    )


def rule_card(slug: str, table: Table | None = None, language: str = ENGLISH) -> Printed:
    """The card as PDF. Tables' cards differ only in the house-rules box on the back,
    so the rest is laid out once per process and each card lays out only the box
    (``render_pdf_with_insert``)."""
    if table is None:
        key: tuple = ("rule-card", slug)
        name = f"{slug}-rule-card.pdf"
    else:
        # the card shows only the settings and name: new rounds don't change it
        key = (
            "rule-card",
            slug,
            table.scorer_key,  # its file name names the table
            table.name,
            tuple(sorted(table.settings.items())),
        )
        name = f"{slug}-table-{table.id}-rule-card.pdf"

    def render(whole_html: str, _slot: int) -> bytes:
        return render_pdf_with_insert(
            rule_card_html(slug, part="fixed", language=language),
            lambda offset: rule_card_html(
                slug, table, part="house", house_offset=offset, language=language
            ),
            whole_html,
            CARD_CSS,
            CARD_TIGHTER,
            CARD_PAGES,
        )

    return printed(
        key,
        name,
        lambda: rule_card_html(slug, table, language=language),
        CARD_CSS,
        render,
        language,
    )


# ---------------------------------------------------------------- blank score sheets


def _sheet_context(slug: str, names: list[str] | None, table: Table | None) -> dict:
    game = catalog.GAMES[slug]
    settings = {**game.defaults(), **(table.settings if table else {})}
    # a blank sheet offers the most seats the game has; a table's, its players
    seats = list(names) if names else [""] * game.max_players
    first = settings.get("first_dealer") if names else None
    ctx = {
        # the table's first dealer (a seat), written where the sheet asks for him
        "first_dealer": seats[first] if isinstance(first, int) and 0 <= first < len(seats) else "",
        "game": game,
        "table": table,
        "names": seats,
        "prefilled": bool(names),
        "settings": settings,
        "house": _house(game, table),
    }
    if game.sheet:  # what the game's own sheet prints besides (its record says where)
        ctx.update(catalog.resolve(game.sheet)(seats, settings))
    return ctx


# each game's sheet particulars, as its record names them (``Game.sheet``)


def cowboy_sheet(seats: list[str], settings: dict) -> dict:
    # one column block per player; fewer players leave room for more deals
    deals = {3: 11, 4: 7}.get(len(seats), 7)
    return {"items": rulecards.COWBOY_ITEMS, "deals": deals}


def szaman_sheet(seats: list[str], settings: dict) -> dict:
    return {
        "blocks": _blocks(seats, PLAYERS_PER_BLOCK),
        "deals": int(settings.get("deals", 6)),
        "target": int(settings.get("target", 66)),
        "russian": settings.get("variant") == "russian",
        "trick_points": rulecards.SZAMAN_TRICK_POINTS,
    }


def kvanta_sheet(seats: list[str], settings: dict) -> dict:
    return {"blocks": _blocks(seats, PLAYERS_PER_BLOCK), "rounds": 34}


def vezimas_sheet(seats: list[str], settings: dict) -> dict:
    # V-D6: with the letters tally each player's column ends in the word's letter boxes
    letters = settings.get("tally") == vezimas.LETTER_TALLY
    return {"deals": 32, "word": vezimas.WORD if letters else None}


def pegs_sheet(seats: list[str], settings: dict) -> dict:
    teams = [
        [(seat + 1, name) for seat, name in enumerate(seats) if seat % 2 == team] for team in (0, 1)
    ]
    return {"teams": teams, "games": 24}


def blank_sheet_html(
    slug: str,
    names: list[str] | None = None,
    table: Table | None = None,
    language: str = ENGLISH,
) -> str:
    """A game's score sheet with the names blank, or prefilled (and the table's settings)."""
    template = catalog.GAMES[slug].sheet_template_name
    return render_html(template, language, **_sheet_context(slug, names, table))


def blank_sheet(
    slug: str, store: Store | None = None, table: Table | None = None, language: str = ENGLISH
) -> Printed:
    if table is None or store is None:
        return printed(
            ("blank-sheet", slug),
            f"{slug}-score-sheet.pdf",
            lambda: blank_sheet_html(slug, language=language),
            language=language,
        )
    names = [p.name for p in store.players(table.id)]
    key = (
        "blank-sheet",
        slug,
        table.scorer_key,  # its file name names the table
        table.name,
        tuple(names),
        tuple(sorted(table.settings.items())),
    )
    return printed(
        key,
        f"{slug}-table-{table.id}-blank-sheet.pdf",
        lambda: blank_sheet_html(slug, names, table, language),
        language=language,
    )


# ---------------------------------------------------------------- filled score sheets


@dataclass(frozen=True)
class CarriedForward:
    """What a sheet does not print of a long history: the rounds and their totals."""

    first_round: int
    last_round: int
    entries: int
    totals: dict[str, int]  # by player name, over the live entries among them


def carried_forward(store: Store, summary: TableSummary) -> CarriedForward | None:
    """The history older than the rows ``summary`` holds; None when it holds the
    whole history. Its totals are the table's (sums over every live entry) less the
    live rows printed, so the sheet adds up as paper does."""
    if not summary.history_hidden or not summary.history:
        return None
    first = summary.history[0].entry
    older, _more = store.history_page(summary.table.id, (first.round, first.id), 1)
    printed_live = [row.entry for row in summary.history if row.entry.live]
    return CarriedForward(
        first_round=store.first_round(summary.table.id),
        last_round=older[0].round if older else first.round,
        entries=summary.history_hidden,
        totals={
            p.name: summary.totals[p.name] - sum(e.points.get(p.id, 0) for e in printed_live)
            for p in summary.players
        },
    )


def _card_text(code: object) -> str:
    """A card as players write it: J♥, 10♠ (the code itself if it is no card)."""
    try:
        card = parse_card(code)
    except CardError:
        return str(code)
    return card.symbol


def _pegs_move(entry, names: list[str], found) -> str:
    """A Pegs move in words (in the catalogue ``found``), as the table page's history
    says it: which peg went how far and whose pegs it sent back, then each peg's holes,
    from → to, for a sheet someone sets a board up from ("Ana played 7: Ana's back peg
    3 forward, sends Bojan's peg to start. (T1 → T8)"); a discard or a board set by
    hand as the page says it. A move that is no legal move on the board it names (an
    entry imported from elsewhere) is told by its holes alone: who played which card,
    each peg from → to, and the pegs it bumped."""
    if entry.kind != pegs_table.APPLY_KIND:
        return say(pegs_table.move_text(entry, names), found)

    def _(msgid: str, **variables) -> str:
        return say(Text(msgid, **variables), found)

    def name(seat) -> str:
        return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else str(seat)

    def hole(at) -> str:
        return _("start") if at == "S" else str(at)

    def peg(step: dict) -> str:
        return _(
            "%(name)s's peg %(start)s → %(end)s",
            name=name(step.get("seat")),
            start=hole(step.get("from")),
            end=hole(step.get("to")),
        )

    req = entry.request
    if pegs_table.said_move(req, names) is not None:  # a legal move: its steps are sound
        holes = "; ".join(f"{hole(st['from'])} → {hole(st['to'])}" for st in req["steps"])
        return f"{say(pegs_table.move_text(entry, names), found)} ({holes})"
    steps = "; ".join(peg(st) for st in req.get("steps", []))
    card = pegs_table.shown_rank(req.get("card", "JK"))
    text = _(
        "%(player)s: %(card)s · %(steps)s",
        player=name(req.get("player")),
        card=_("Joker") if card == "JK" else card,
        steps=steps,
    )
    bumps = [peg(b) for b in entry.result.get("bumps", [])]
    if bumps:
        text += " · " + _("bumps %(pegs)s", pegs="; ".join(bumps))
    return text


def _kvanta_rounds(summary: TableSummary) -> dict[int, dict[str, str]]:
    """Each printed round's target and turned card (the poker prize's card), from
    its live entries, by the id of the round's first live row (where the sheet
    prints them); a round that recorded neither prints none."""
    rounds: dict[int, dict[str, str]] = {}
    first_row: dict[int, int] = {}
    for row in summary.history:
        entry = row.entry
        if not entry.live:
            continue
        first_row.setdefault(entry.round, entry.id)
        found = rounds.setdefault(entry.round, {})
        if isinstance(entry.request.get("target"), int):
            found.setdefault("target", str(entry.request["target"]))
        if entry.kind == "kvanta-poker" and entry.request.get("prize_card"):
            found["turned"] = _card_text(entry.request["prize_card"])
    return {first_row[number]: found for number, found in rounds.items()}


def _team_home(summary: TableSummary) -> list[dict] | None:
    """Pegs: each team's players and pegs home, from the board (P-D1)."""
    home = summary.progress.pegs_home
    names = summary.names
    if home is None or len(home) != len(names):
        return None
    per_seat = summary.progress.pegs_per_seat
    return [
        {
            "names": names[team::2],
            "home": sum(home[team::2]),
            "pegs": per_seat * len(names[team::2]),
        }
        for team in (0, 1)
    ]


def pegs_filled_sheet(summary: TableSummary, found=None) -> dict:
    """A Pegs table's history prints each move (in the catalogue ``found``) and ends
    in the pegs home per team."""
    found = catalogue(ENGLISH) if found is None else found
    return {
        "moves": {r.entry.id: _pegs_move(r.entry, summary.names, found) for r in summary.history},
        "team_home": _team_home(summary),
    }


def kvanta_filled_sheet(summary: TableSummary, found=None) -> dict:
    """A Kvanta table's history prints each round's target and turned card."""
    return {"kvanta_rounds": _kvanta_rounds(summary)}


def filled_sheet_html(
    summary: TableSummary, carried: CarriedForward | None = None, language: str = ENGLISH
) -> str:
    """A table's latest history (``carried``: under the line carrying the earlier
    entries' totals forward), totals, standings and winner, and what the game's own
    sheet prints besides (``Game.filled_sheet``, given the sheet's catalogue)."""
    game = summary.game
    found = catalogue(language)
    extras = catalog.resolve(game.filled_sheet)(summary, found) if game.filled_sheet else {}
    return render_html(
        "filled-sheet.html",
        language,
        s=summary,
        game=summary.game,
        table=summary.table,
        house=_house(summary.game, summary.table),
        st=summary.standings,
        carried=carried,
        chart=sheet_chart(summary, carried),
        **extras,
    )


def sheet_html(store: Store, table: Table, language: str = ENGLISH) -> str:
    """The filled sheet of a table: its latest ``SHEET_ROWS`` entries, whatever its length."""
    summary = summarize(store, table, SHEET_ROWS)
    return filled_sheet_html(summary, carried_forward(store, summary), language)


def filled_sheet(store: Store, table: Table, language: str = ENGLISH) -> Printed:
    # every write bumps the table's version, so (id, version) names its content; the
    # key too, as a row id names a table only as long as the database is the same file
    return printed(
        ("filled-sheet", table.id, table.scorer_key, table.version),
        f"{table.game}-table-{table.id}-score-sheet.pdf",
        lambda: sheet_html(store, table, language),
        render=render_isolated,  # the HTML, already in its language, is all it needs
        language=language,
    )


# ---------------------------------------------------------------- scorekeeper print


def _when_free(make: Callable[[], Printed], seconds: float = 300.0) -> Printed:
    """``make()``, waiting while the server's renders hold every slot: a command run
    beside a busy server waits its turn rather than failing."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return make()
        except RenderBusy:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def build_all(out_dir: Path | None = None, languages: Sequence[str] = (ENGLISH,)) -> list[Path]:
    """Every rule card and blank sheet in each of ``languages``, as
    ``<language>/<game>-rule-card.pdf`` and ``<language>/<game>-score-sheet.pdf`` in
    ``out_dir`` (default ``printables/build``): the folder names the language, so the
    files keep the names they have in every language (``Printed.name``)."""
    out = Path(out_dir) if out_dir else BUILD_DIR
    paths = []
    for language in languages:
        folder = out / language
        folder.mkdir(parents=True, exist_ok=True)
        for slug, game in catalog.GAMES.items():
            # a game whose record names no rule card prints its sheet alone
            for make in (rule_card, blank_sheet) if game.rule_card else (blank_sheet,):
                doc = _when_free(
                    lambda make=make, slug=slug, language=language: make(slug, language=language)
                )
                path = folder / doc.name
                path.write_bytes(doc.pdf)
                paths.append(path)
    return paths
