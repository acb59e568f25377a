"""What a game's panel is drawn from (:class:`View`: the table, the draft's log and its
state) and the card pickers every panel draws. Plain data and HTML: the web layer makes
the View (the mount point its URLs are under, the store it may read) and renders it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup, escape

from .. import store
from ..cards import card_colour, card_symbol, symbols
from ..errors import RuleError
from ..games.play import Tap
from ..messages import gettext as _
from .fragments import Kept, Memo, compact_json, stable_key

__all__ = ["card_colour", "card_symbol", "symbols"]

CARD_SLOT = "__card__"  # where a picker's tap template takes each card's code
FORM_SLOT = "__form__"  # a tap argument the player types: the form's field of that name
# a tap argument its block gives (a small whole number in the hx-vals of an element
# around the button, which htmx sends with it): a picker whose buttons name no seat is
# the same from one turn to the next, so the phone keeps it
BLOCK_SLOT = "__block__"
RECENT_TAPS_SHOWN = 8  # a tap arrives among the latest few, however many phones tap


def suit_names() -> list[str]:
    """The suits' names, in the order of ``cards.SUITS`` (a picker's rows)."""
    return [_("Spades"), _("Hearts"), _("Diamonds"), _("Clubs")]


def why_not(state, action: str, /, **args) -> str:
    """Why the state refuses the tap ``action`` with ``args`` (its own refusal, in the
    asker's language), or "" when it would take it: a disabled button's reason."""
    try:
        state.verify(Tap("why-not", action, tuple(args.items())))
    except RuleError as exc:
        return exc.message
    return ""


# ---------------------------------------------------------------- the panel's view


@dataclass
class View:
    """What a game's panel is drawn from: the table, the draft's log and its state."""

    table: store.Table
    access: str
    data: dict  # the draft's {"taps", "undone", "context"}
    version: int  # the draft's
    state: Any
    root: str = ""  # the app's mount point, the routes' URLs under it
    # what the panel may read besides its draft (Kvanta's dice, Vežimas's question)
    store: store.Store | None = field(default=None, repr=False, compare=False)
    _urls: dict = field(default_factory=dict, init=False, repr=False, compare=False)  # route → URL

    @property
    def writable(self) -> bool:
        return self.access == "score"

    @property
    def context(self) -> dict:
        return self.data["context"]

    @property
    def deal_key(self) -> str:
        """What names this deal on a phone: its round and, for an edit of a saved one,
        the entry it supersedes. A phone's choices kept under it (whose cards it enters)
        do not carry into the next deal."""
        return f"{self.context.get('round')}:{self.context.get('supersedes') or ''}"

    def url(self, route: str) -> str | None:
        """The URL of one of the screen's routes, for the scorer link only."""
        if not self.writable:
            return None
        found = self._urls.get(route)
        if found is None:  # a panel asks for its tap route's a dozen times or more
            # as url_for would make it (under the app's mount point), for a fraction of its cost
            found = self._urls[route] = (
                f"{self.root}/t/{self.table.scorer_key}/{self.table.game}/{route}"
            )
        return found

    @property
    def last_tap(self) -> str | None:
        return self.data["taps"][-1]["id"] if self.data["taps"] else None

    @property
    def redo_tap(self) -> str | None:
        return self.data["undone"][-1]["id"] if self.data["undone"] else None

    @property
    def recent_taps(self) -> str:
        """The ids of the log's latest taps (``data-taps``): a phone whose tap got no
        answer learns from the next redraw that the tap arrived after all."""
        return " ".join(t["id"] for t in self.data["taps"][-RECENT_TAPS_SHOWN:])

    def vals(self, **extra) -> dict:
        """The fields a button sends: the round this screen shows. The draft version it
        shows goes along too, read from the panel (``data-deal-version``) when the button
        is tapped: a button is the same from one version to the next, so the HTML of a
        part of the panel is kept (``fragments``) and a phone keeps its parts too."""
        return {"round": self.context.get("round"), **extra}

    def tap_vals(self, action: str, /, **args) -> dict:
        """One tap button's fields: what the player means, as the state's tap notation."""
        return self.vals(tap=compact_json({"action": action, **args}))

    def picker(
        self,
        cards: list[str],
        action: str | tuple[str, str],
        args: dict,
        taken: dict[str, str],
        selected: tuple | list = (),
        toggle: bool = False,
    ) -> Markup:
        """A card picker's buttons (as ``partials/_cards.html``'s ``card_picker`` draws
        them): each card's tap (``args`` with its ``card``; with ``toggle``, ``on`` says
        whether the card is to be there; ``action`` a pair: the tap that puts a card in,
        and the one that takes it out), and for a card already elsewhere in the deal,
        why it is disabled. Written here in one pass, from one tap template per state of
        the button: a picker of 54 cards is on the answer of most taps, and most of them
        are as the tap before drew them (kept)."""
        put, take = (action, action) if isinstance(action, str) else action
        url = self.url("tap") or ""
        selected = set(selected)
        on = tuple(code for code in cards if code in selected)
        off = tuple((code, taken[code]) for code in cards if code in taken and code not in on)
        round_number = self.context.get("round")
        try:
            key = (url, tuple(cards), put, take, tuple(args.items()), toggle, round_number, on, off)
            hash(key)
        except TypeError:  # an argument that is a list: made afresh
            key = None

        def make() -> str:
            return self._picker_html(
                cards, put, take, args, url, round_number, set(on), dict(off), toggle
            )

        if key is None:
            return Markup(make())

        def made() -> Kept:
            kept = Kept(make())
            kept.key = stable_key(key)
            return kept

        return _PICKERS.get(key, made)  # one object: HTML is not copied on every answer

    @staticmethod
    def _picker_html(cards, put, take, args, url, round_number, selected, taken, toggle) -> str:
        """The picker's HTML."""
        made = {}
        for on in (True, False):
            tap = {"action": put if on else take, **args, "card": CARD_SLOT}
            if toggle:
                tap["on"] = on
            vals = {"round": round_number, "tap": compact_json(tap)}
            made[on] = str(htmlsafe_json_dumps(vals))
        url = str(escape(url))
        out = []
        if len(_BUTTONS) > BUTTONS_KEPT:  # a bound, not a cache policy: start afresh
            _BUTTONS.clear()
        for code in cards:  # card codes (letters and digits): nothing to escape
            is_on = code in selected
            reason = None if is_on else taken.get(code)
            reason = str(escape(reason)) if reason else None
            # a picker drawn again differs from the last one in a card or two: the
            # others' buttons are the ones made then
            key = (made[not is_on], url, code, is_on, reason)
            button = _BUTTONS.get(key)
            if button is None:
                button = _BUTTONS[key] = _pick_button(made[not is_on], url, code, is_on, reason)
            out.append(button)
        return "".join(out)


_PICKERS = Memo(8192)  # the pickers of the tables in play (a suit row ~1.3 KB), with their keys
_BUTTONS: dict = {}  # their buttons, by all a button is made of (~300 bytes each)
BUTTONS_KEPT = 32768


def _pick_button(vals: str, url: str, code: str, is_on: bool, reason: str | None) -> str:
    """One button of a picker (``View.picker``), ``vals`` its tap's fields with the card
    left as CARD_SLOT, ``reason`` (HTML, escaped) why it is disabled."""
    symbol, colour = card_symbol(code), card_colour(code)
    vals = vals.replace(CARD_SLOT, code)
    if reason:
        # the reason's small print may be cut on a phone: whole in the title
        why = f' disabled aria-label="{symbol} — {reason}" title="{symbol} — {reason}"'
        small = f"<small>{reason}</small>"
    else:
        why = small = ""
    return (
        f'<button type="button" class="pick suit-{colour}{" on" if is_on else ""}" '
        f'data-tap hx-post="{url}" hx-swap="none" hx-vals=\'{vals}\' '
        f'aria-pressed="{"true" if is_on else "false"}" data-card="{code}"'
        f"{why}><span>{symbol}</span>{small}</button>"
    )
