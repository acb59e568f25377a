"""HTML of the game panels made in Python, and HTML kept from one tap's answer to the next.

A game panel draws a few hundred buttons on every tap's answer; drawn by a Jinja macro
each, they were most of a tap's server CPU. The templates call these instead, with the
same arguments their macros took; the HTML is the same.

Most of a panel is as the tap before drew it. A part drawn from the same inputs is kept
(:func:`fragment`, a picker's :func:`group`) and not drawn again, and the phone keeps it
too: its root carries its key (``data-frag``), every tap sends the keys of the parts the
phone shows, and the answer writes a part the phone has as a hole (``data-frag-kept``) that
the phone fills with its own copy (static/app.js). A button carries no draft version
(the phone sends the panel's, ``data-deal-version``), so a part stays the same from one
version to the next.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import hashlib
import io
import json
import pickle
import re
from collections.abc import Callable
from json.encoder import encode_basestring_ascii

from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup, escape

from .. import messages
from ..memo import Memo as Memo  # (the game screens' memos are of this kind)


def player_name(name, cls: str = "") -> Markup:
    """A player's name written in a sentence, a heading, a button or a list, titled with
    the whole name: it wraps between its words, and a single word too long for its place
    is cut with an ellipsis, never broken inside (``.name`` in static/app.css); ``cls``
    the classes of its place, before ``name``."""
    name = escape(name)
    classes = f"{escape(cls)} name" if cls else "name"
    return Markup(f'<span class="{classes}" title="{name}">{name}</span>')


def sentence(said) -> Markup:
    """Words with a name among them (``player_name``) as one run of text, for a flex box
    (a button, a summary): there each element is an item of its own, and so is the text
    beside it, whose space next to the name is dropped ("Anadiscards and draws")."""
    return Markup(f'<span class="sentence">{escape(said)}</span>')


def standing_alone(words: str, names=()) -> str:
    """Words that are a label of their own (a button's) begin with a capital, as a
    sentence does: a language may put a lower-case word first where English puts the
    name ("sprawdza Ana" → "Sprawdza Ana"). A name at their start (one of ``names``, or
    a name's element) stays as its player wrote it. Markup stays Markup.

    >>> standing_alone("tylny pionek gracza Ana", ["Ana", "ema"])
    'Tylny pionek gracza Ana'
    >>> standing_alone("ema's peg", ["Ana", "ema"])
    "ema's peg"
    """
    if not isinstance(words, str) or not words[:1].islower():
        return words
    if any(words.startswith(name) for name in names):
        return words
    return type(words)(words[:1].upper() + words[1:])


def _with_sentence(label):
    """A button's label, beginning with a capital (:func:`standing_alone`), its words one
    run of text when a name is among them."""
    label = standing_alone(label)
    return sentence(label) if isinstance(label, Markup) and 'name" title="' in label else label


def vals_json(vals: dict) -> str:
    """An ``hx-vals`` value as Jinja's ``tojson`` writes it (keys sorted, HTML-safe)."""
    return str(htmlsafe_json_dumps(vals, sort_keys=True))


# json.dumps(..., separators=(",", ":")) makes an encoder each call: one, made once
compact_json = json.JSONEncoder(separators=(",", ":")).encode
_HTML_UNSAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "'": "\\u0027"})


def tap_vals_json(view, action: str, /, **args) -> Markup:
    """``htmlsafe_json_dumps(view.tap_vals(action, **args))``, the same text: written once
    per tap and round (a Pegs panel writes some fifty of them on every answer, most of
    them as the answer before did), the tap's notation the one JSON made and the fields
    around it written as ``json.dumps`` writes them."""
    vals = view.vals()
    if list(vals) != ["round"]:  # not the one field every tap sends: the long way
        return htmlsafe_json_dumps({**vals, "tap": compact_json({"action": action, **args})})
    # the values' types too: 1, 1.0 and True are one key to a dict, not one JSON (and
    # in a tuple they would be again: made afresh, as an unhashable list is)
    round_number, types = vals["round"], tuple(map(type, args.values()))
    key = (
        None if tuple in types else (round_number, type(round_number), action, *args.items(), types)
    )
    try:
        if key is not None:
            return _TAP_VALS[key]
    except KeyError:
        pass
    except TypeError:  # an argument that is a list: made afresh
        key = None
    tap = compact_json({"action": action, **args})
    made = f'{{"round": {_scalar(round_number)}, "tap": {encode_basestring_ascii(tap)}}}'
    if "<" in made or ">" in made or "&" in made or "'" in made:
        made = made.translate(_HTML_UNSAFE)
    if key is not None:
        if len(_TAP_VALS) > TAP_VALS_KEPT:  # a bound, not a cache policy: start afresh
            _TAP_VALS.clear()
        _TAP_VALS[key] = Markup(made)
    return Markup(made)


_TAP_VALS: dict = {}  # tap and round → its hx-vals (~60 bytes each)
TAP_VALS_KEPT = 8192


def _scalar(value) -> str:
    """A round as ``json.dumps`` writes it."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return encode_basestring_ascii(value)
    return str(value) if type(value) is int else json.dumps(value)


def button(
    label,
    cls: str = "",
    *,
    url: str | None = None,
    vals: dict | None = None,
    pressed: bool | None = None,
    disabled: bool = False,
    aria: str = "",
    attrs: str = "",
    always: bool = False,
) -> Markup:
    """One ``<button>``: a tap (``data-tap``, posted to ``url`` with ``vals``) when both
    are given, else disabled; ``pressed`` its aria-pressed (None: none); ``aria`` its
    aria-label (plain text, escaped here); ``attrs`` more attributes, already HTML;
    ``always``: a tap even with no URL (what its macro drew, for a scorer only)."""
    parts = [f'<button type="button" class="{escape(cls)}"']
    if attrs:  # first: an aria-label of its own wins over one of ``aria``
        parts.append(f" {attrs}")
    if always or (url and vals):  # a template's Undefined is false too
        parts.append(
            f' data-tap hx-post="{escape(url)}" hx-swap="none" hx-vals=\'{vals_json(vals)}\''
        )
    else:
        disabled = True
    if disabled:
        parts.append(" disabled")
    if pressed is not None:
        parts.append(' aria-pressed="true"' if pressed else ' aria-pressed="false"')
    if aria:
        parts.append(f' aria-label="{escape(aria)}"')
    parts.append(f">{escape(_with_sentence(label))}</button>")
    return Markup("".join(parts))


def _field(b, name: str):
    """A field of a view's button, as a template reads it (a dict's key or an attribute)."""
    found = b.get(name) if isinstance(b, dict) else getattr(b, name, None)
    return found or None


def tap(url: str | None, b: dict, label, cls: str = "", attrs: str = "") -> Markup:
    """A button of a view's ``{"vals", "on", "reason"}`` (``panel.View`` taps): pressed
    when on, disabled without vals, its reason after its label in the aria-label."""
    on = bool(_field(b, "on"))
    reason = _field(b, "reason")
    aria = f"{Markup(str(label)).striptags()} — {reason}" if reason else ""
    return button(
        label,
        f"{cls} on" if on else cls,
        url=url,
        vals=_field(b, "vals"),
        pressed=on,
        aria=aria,
        attrs=attrs,
    )


def routed_tap(
    url_of: Callable[[str], str | None],
    b: dict,
    label,
    cls: str = "",
    pressed: bool | None = None,
    aria: str = "",
    route: str = "tap",
    action: str = "",
    attrs: str = "",
) -> Markup:
    """A button of a view's ``{"vals"}`` posted to one of the screen's routes (``url_of``
    makes its URL: Kvanta's dice go to its roll route); ``action`` its data-action."""
    vals = _field(b, "vals")
    if action:
        attrs = f'data-action="{escape(action)}" {attrs}'
    return button(
        label,
        cls,
        url=url_of(route) if vals else None,
        vals=vals,
        pressed=pressed,
        aria=aria,
        attrs=attrs,
    )


def action_tap(view, action: str, args: dict, label, cls: str = "", attrs: str = "") -> Markup:
    """The button of one tap, ``action`` with ``args`` in the play state's notation, for a
    scorer (``view`` a ``panel.View``)."""
    vals = view.tap_vals(action, **args)
    return button(label, cls, url=view.url("tap") or "", vals=vals, attrs=attrs, always=True)


def group(buttons, label, cls: str | None = None) -> Markup:
    """A picker's buttons in their labelled group (``cls``: the class of a block around it);
    a part the phone keeps (``kept``) when the buttons are a kept picker
    (``panel.View.picker``)."""
    key = getattr(buttons, "key", None)
    if key is not None:
        made_of = (key, str(label), cls)
        key = _GROUP_KEYS.get(made_of)
        if key is None:  # a panel draws a dozen groups or more: each key is made once
            if len(_GROUP_KEYS) > GROUP_KEYS_KEPT:  # a bound, not a cache policy
                _GROUP_KEYS.clear()
            key = _GROUP_KEYS[made_of] = stable_key(made_of)
    if key is not None and _shown(key):  # the phone keeps it: nothing to draw around it
        return Markup(_hole(key))
    frag = f' data-frag="{key}"' if key is not None else ""
    start = f'<div class="picker" role="group" aria-label="{escape(label)}"'
    if cls is None:
        made = f"{start}{frag}>{escape(buttons)}</div>"
    else:
        made = f'<div class="{escape(cls)}"{frag}>{start}>{escape(buttons)}</div></div>'
    return Markup(made) if key is None else kept(key, made)


def suit_groups(rows, labels, label, cls: str) -> Markup:
    """A picker of several suits in one labelled block (``cls``), a group per suit
    (``rows``: each suit's kept picker, ``labels`` their names): a card tapped changes
    its suit's group alone, so the answer draws that one and the phone keeps the others."""
    groups = "".join(group(buttons, name) for buttons, name in zip(rows, labels, strict=True))
    return Markup(
        f'<div class="{escape(cls)}" role="group" aria-label="{escape(label)}">{groups}</div>'
    )


_GROUP_KEYS: dict = {}
GROUP_KEYS_KEPT = 16384


class Kept(Markup):
    """HTML the phone may keep: ``key`` the key of what it is made of (``stable_key``)."""

    key: str | None = None


def stable_key(made_of) -> str:
    """A part's key as the phone knows it: what the part is made of (plain data),
    hashed, the same in every worker process of the server."""
    return hashlib.blake2b(_pickled(made_of), digest_size=8).hexdigest()


# drawing a kept part's HTML (``fragment``): every part in it is drawn whole (that HTML
# is kept for every phone), whatever the phone that asked has, and marked (as the
# poll's parts are), so that an answer writes those a phone shows as holes
_drawing_kept = contextvars.ContextVar("drawing_kept", default=False)
# drawing an answer kept for every phone (the poll's): each kept part between marks
# (PART_MARK: "\x02key\x03" before it, "\x02/key\x03" after; \x04 for a part of an
# SVG drawing), so each phone's copy writes the ones it shows as holes
_marking = contextvars.ContextVar("marking_parts", default=False)
PART_MARK = re.compile("\x02(/?)([0-9a-f]{16})([\x03\x04])")
# drawing a tap's answer to one phone: the keys of the parts it shows (``answering``)
_answering: contextvars.ContextVar[frozenset] = contextvars.ContextVar(
    "answering", default=frozenset()
)


def _shown(key: str) -> bool:
    """The phone this answer is for shows the part ``key`` (``answering``)."""
    return key in _answering.get() and not _drawing_kept.get()


def _hole(key: str, svg: bool = False) -> str:
    # in a drawing, an SVG element: an HTML one would end the drawing where it stands
    if svg:
        return f'<g data-frag-kept="{key}"></g>'
    return f'<i data-frag-kept="{key}" hidden></i>'


def _marked(key: str, element: str, svg: bool = False) -> str:
    if _marking.get():
        end = "\x04" if svg else "\x03"
        return f"\x02{key}{end}{element}\x02/{key}{end}"
    return element


def kept(key: str, element: str, svg: bool = False) -> Markup:
    """A kept part drawn (``element``, its root carrying ``data-frag`` = ``key``): a hole
    in a tap's answer to a phone that shows it, marked in the poll's (``svg``: an element
    of an SVG drawing)."""
    return _kept_in_place(element, key, (0, len(element)), svg)


@contextlib.contextmanager
def answering(have: frozenset):
    """Draw a tap's answer to the phone that shows the parts ``have``."""
    token = _answering.set(have)
    try:
        yield
    finally:
        _answering.reset(token)


@contextlib.contextmanager
def marking_parts():
    """Draw an answer for every phone: its kept parts marked (see :func:`with_holes`)."""
    token = _marking.set(True)
    try:
        yield
    finally:
        _marking.reset(token)


def with_holes(html: str, have: frozenset) -> str:
    """An answer drawn in :func:`marking_parts` for one phone: the kept parts it shows
    written as holes, the marks gone."""
    if "\x02" not in html:
        return html
    out, at, skipping = [], 0, None
    for mark in PART_MARK.finditer(html):
        closes, key = mark.group(1), mark.group(2)
        if skipping is None:
            out.append(html[at : mark.start()])
            if not closes and key in have:
                out.append(_hole(key, svg=mark.group(3) == "\x04"))
                skipping = key
        elif closes and key == skipping:
            skipping = None
        at = mark.end()
    out.append(html[at:])
    return "".join(out)


# the blocks of the last answers (~1–16 KB): (HTML, where its one element lies, if so)
_FRAGMENTS = Memo(512)


def _pickled(inputs) -> bytes:
    """The inputs as bytes that are the same for equal inputs: pickled (a tenth of repr's
    time, long HTML among them) without its memo, so that which equal strings happen to
    be one object does not change the bytes."""
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=5)
    pickler.fast = True
    pickler.dump(inputs)
    return out.getvalue()


# the start of a part's root (a part of one root element is the one a phone can keep)
_FIRST_TAG = re.compile(r"\s*<([a-zA-Z][\w-]*)")
_VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())


def _keyed(html: str, key: str) -> str | None:
    """``html`` with ``data-frag`` on its root, or None when it is not one element. Only
    the tags of the root's name are read: in HTML whose elements nest, the root closes
    at its end exactly when no other element stands beside it."""
    first = _FIRST_TAG.match(html)
    if first is None or first.group(1).lower() in _VOID:
        return None
    name, end = first.group(1), len(html.rstrip())
    closing = f"</{name.lower()}>"
    if html[end - len(closing) : end].lower() != closing:
        return None
    read = _COMMENT.sub(lambda c: " " * len(c.group(0)), html) if "<!--" in html else html
    depth, root = 0, None
    for tag in _tags_named(name.lower()).finditer(read, first.start(1) - 1):
        root = root or tag
        if tag.group(0).endswith("/>"):
            if tag is root:
                return None
            continue
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            if tag.end() != end:
                return None  # closed before the end: something stands beside it
            at = root.end() - 1
            return f'{html[:at]} data-frag="{key}"{html[at:]}'
    return None


_COMMENT = re.compile(r"<!--.*?-->", re.S)


@functools.lru_cache(maxsize=64)
def _tags_named(name: str) -> re.Pattern:
    return re.compile(rf"<(/?){re.escape(name)}(?=[\s/>])[^>]*>", re.I)


def kept_part(caller) -> Markup:
    """``{% call kept_part() %}<element>…</element>{% endcall %}``: a part of the table's
    answers (the history, the standings) a phone keeps while it is as it was, its key
    the hash of its HTML: drawn every time, written as a hole in an answer to a phone
    that shows it (``kept``)."""
    html = str(caller())
    key = hashlib.blake2b(html.strip().encode(), digest_size=8).hexdigest()
    keyed = _keyed(html, key)
    return Markup(html) if keyed is None else _kept_in_place(keyed, key, _bounds(keyed))


def _bounds(html: str) -> tuple[int, int]:
    """Where the one element ``html`` holds begins and ends (the space around it left)."""
    return len(html) - len(html.lstrip()), len(html.rstrip())


def _kept_in_place(html: str, key: str, bounds: tuple[int, int], svg: bool = False) -> Markup:
    """``kept`` of the one element ``html`` holds (its root carrying ``key``, between
    ``bounds``), the space around it the page's as it was."""
    at, end = bounds
    if _shown(key):  # a hole: the element itself is not copied
        return Markup(f"{html[:at]}{_hole(key, svg)}{html[end:]}")
    return Markup(f"{html[:at]}{_marked(key, _resolved(html[at:end]), svg)}{html[end:]}")


def _resolved(html: str) -> str:
    """A kept part's HTML as this answer writes it: the parts marked in it when it was
    drawn (``fragment``) written as holes where the phone shows them, unless the answer
    is itself marked (each phone's copy does that then: ``with_holes``)."""
    if _marking.get() or "\x02" not in html:
        return html
    return with_holes(html, _answering.get())


def _language_key() -> object:
    return messages.language_of(messages.catalogue())


# what a block drawn for this answer depends on besides its inputs: the language spoken
# (the web layer adds whether its links carry the language: ``keyed_by``)
_language: list[Callable[[], object]] = [_language_key]


def keyed_by(language: Callable[[], object]) -> None:
    """Install what identifies the language an answer is drawn in (a block's key)."""
    _language[0] = language


def _digest(made_of: tuple):
    """The hash of a block's inputs and the answer's language."""
    made_of = (*made_of, _language[0]())
    try:
        made = _pickled(made_of)
    except (pickle.PicklingError, TypeError, AttributeError, ValueError):
        made = repr(made_of).encode()
    return hashlib.blake2b(made, digest_size=16)


_DRAWN = Memo(2048)  # the blocks of the table's page drawn once: its history's rows (~1 KB)


def drawn_once(name: str, *inputs, caller) -> Markup:
    """``{% call drawn_once(name, inputs…) %}…{% endcall %}``: a block of the table's page
    (a row of its history) drawn once for the same inputs, which must be everything it
    reads, as plain data; the request's language is part of the key. Not a part a phone
    keeps: the part around it is."""
    return Markup(_DRAWN.get(_digest((name, inputs)).digest(), lambda: str(caller())))


def fragment(view, name: str, *inputs, caller) -> Markup:
    """``{% call fragment(view, name, inputs…) %}…{% endcall %}``: the block's HTML, drawn
    once for the same inputs. ``inputs`` must be everything the block reads besides the
    view's table, access, round and the request's language (all part of the key), as
    plain data. A block of one root element is a part the phone keeps (``kept``)."""
    table, round_number = view.table, view.context.get("round")
    digest = _digest((name, table.id, view.url("tap"), view.access, round_number, inputs))
    key = digest.hexdigest()[:16]

    def draw() -> tuple[str, tuple[int, int] | None]:
        drawing, marking = _drawing_kept.set(True), _marking.set(True)
        try:
            html = str(caller())
        finally:
            _marking.reset(marking)
            _drawing_kept.reset(drawing)
        keyed = _keyed(html, key)
        return (Markup(html), None) if keyed is None else (keyed, _bounds(keyed))

    html, bounds = _FRAGMENTS.get(digest.digest(), draw)
    return Markup(_resolved(html)) if bounds is None else _kept_in_place(html, key, bounds)
