"""HTML of the game panels made in Python, and HTML kept from one tap's answer to the next.

A game panel draws a few hundred buttons on every tap's answer; drawn by a Jinja macro
each, they were most of a tap's server CPU. The templates call these instead, with the
same arguments their macros took; the HTML is the same.

Most of a panel is as the tap before drew it but for the draft version its buttons
carry. A tap's answer is drawn with :data:`VERSION_SLOT` in place of the version
(``screens.View.slotted``) and given it once whole, so a part of it drawn from the same
inputs is kept (:func:`fragment`, ``View.picker``) and not drawn again."""

from __future__ import annotations

import hashlib
import io
import json
import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable
from json.encoder import encode_basestring_ascii

from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup, escape

from ..i18n import cache_key


def vals_json(vals: dict) -> str:
    """An ``hx-vals`` value as Jinja's ``tojson`` writes it (keys sorted, HTML-safe)."""
    return str(htmlsafe_json_dumps(vals, sort_keys=True))


# json.dumps(..., separators=(",", ":")) makes an encoder each call: one, made once
compact_json = json.JSONEncoder(separators=(",", ":")).encode
_HTML_UNSAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "'": "\\u0027"})


def tap_vals_json(view, action: str, **args) -> Markup:
    """``htmlsafe_json_dumps(view.tap_vals(action, **args))``, the same text, in a third of
    its time (a Pegs panel writes some fifty of them): the tap's notation is the one
    JSON made, the fields around it written as ``json.dumps`` writes them."""
    tap = compact_json({"action": action, **args})
    vals = view.vals()
    if list(vals) != ["v", "round"]:  # not the two fields every tap sends: the long way
        return htmlsafe_json_dumps({**vals, "tap": tap})
    made = f'{{"v": {_scalar(vals["v"])}, "round": {_scalar(vals["round"])}, "tap": {encode_basestring_ascii(tap)}}}'
    if "<" in made or ">" in made or "&" in made or "'" in made:
        made = made.translate(_HTML_UNSAFE)
    return Markup(made)


def _scalar(value) -> str:
    """A version or round as ``json.dumps`` writes it."""
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
    parts.append(f">{escape(label)}</button>")
    return Markup("".join(parts))


def _field(b, name: str):
    """A field of a view's button, as a template reads it (a dict's key or an attribute)."""
    found = b.get(name) if isinstance(b, dict) else getattr(b, name, None)
    return found or None


def tap(url: str | None, b: dict, label, cls: str = "", attrs: str = "") -> Markup:
    """A button of a view's ``{"vals", "on", "reason"}`` (``screens.View`` taps): pressed
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
    scorer (``view`` a ``screens.View``)."""
    vals = view.tap_vals(action, **args)
    return button(label, cls, url=view.url("tap") or "", vals=vals, attrs=attrs, always=True)


def group(buttons, label, cls: str | None = None) -> Markup:
    """A picker's buttons in their labelled group (``cls``: the class of a block around it)."""
    inner = f'<div class="picker" role="group" aria-label="{escape(label)}">{escape(buttons)}</div>'
    return Markup(f'<div class="{escape(cls)}">{inner}</div>' if cls is not None else inner)


class Memo:
    """A bounded memo of HTML made from hashable inputs (least recently used first out),
    shared by a server process's threads."""

    def __init__(self, size: int):
        self.size = size
        self._made: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key, make: Callable[[], str]) -> str:
        with self._lock:
            found = self._made.get(key)
            if found is not None:
                self._made.move_to_end(key)
                return found
        found = make()
        with self._lock:
            self._made[key] = found
            while len(self._made) > self.size:
                self._made.popitem(last=False)
        return found

    def __len__(self) -> int:
        return len(self._made)


# A button's hx-vals carry the draft version the panel shows, which every tap moves on:
# HTML kept in a Memo is made with this in its place and given the version when used.
VERSION_SLOT = "\x00version\x00"
VERSION_JSON = vals_json({"v": VERSION_SLOT})[6:-1]  # how the slot is written in hx-vals


def with_version(html: str, version: int) -> str:
    return html.replace(VERSION_JSON, str(int(version)))


_FRAGMENTS = Memo(512)  # blocks of the last answers of a server process's tables (~1–16 KB each)


def _pickled(inputs) -> bytes:
    """The inputs as bytes that are the same for equal inputs: pickled (a tenth of repr's
    time, long HTML among them) without its memo, so that which equal strings happen to
    be one object does not change the bytes."""
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=5)
    pickler.fast = True
    pickler.dump(inputs)
    return out.getvalue()


def fragment(view, name: str, *inputs, caller) -> Markup:
    """``{% call fragment(view, name, inputs…) %}…{% endcall %}``: the block's HTML, drawn
    once for the same inputs. ``inputs`` must be everything the block reads besides the
    view's table, access, round and the request's language (all part of the key), as
    plain data; its buttons' version is left in its slot (a tap's answer: the view is
    ``slotted``). Outside a tap's answer the block is drawn as it stands."""
    if not getattr(view, "slotted", False):
        return caller()
    table, round_number = view.table, view.context.get("round")
    made_of = (name, table.id, view.url("tap"), view.access, round_number, cache_key(), inputs)
    try:
        made = _pickled(made_of)
    except (pickle.PicklingError, TypeError, AttributeError, ValueError):
        made = repr(made_of).encode()
    key = hashlib.blake2b(made, digest_size=16).digest()
    return Markup(_FRAGMENTS.get(key, lambda: str(caller())))
