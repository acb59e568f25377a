"""The Vežimas panel's pieces, written in Python (the HTML the Jinja macros of
``templates/games/vezimas/_macros.html`` and ``partials/_cards.html``'s card picker drew,
a macro call per player and per card on every tap's answer)."""

from __future__ import annotations

from markupsafe import Markup, escape

from ..messages import gettext as _
from .fragments import Memo, player_name, tap_vals_json, vals_json
from .panel import card_colour, card_symbol

_PICKERS = Memo(256)  # the beat check's pickers: no draft version in them


def _get(item, name: str):
    """A field of a seat or badge as a template reads it (a dict's key or an attribute)."""
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


class Pieces:
    """The macros of one panel: ``view`` a ``panel.View``."""

    def __init__(self, view):
        self.view = view

    def who(self, seat) -> Markup:
        """A player with his personal trump: "♣ Jonas" (the suit coloured), titled with
        the whole name (a word too long for its place is cut with an ellipsis)."""
        suit = ""
        if _get(seat, "suit"):
            symbol, trump = escape(_get(seat, "symbol")), escape(_("trump"))
            suit = (
                f'<span class="vz-suit suit-{escape(_get(seat, "colour"))}" '
                f'aria-label="{trump} {symbol}">{symbol}</span> '
            )
        name = escape(_get(seat, "name"))
        return Markup(
            f'<span class="vz-who" title="{name}">{suit}<span class="vz-name">{name}</span></span>'
        )

    name = staticmethod(player_name)  # a player's name in a sentence

    @staticmethod
    def suit(badge) -> Markup:
        """A suit badge from {"symbol", "colour"}."""
        colour, symbol = escape(_get(badge, "colour")), escape(_get(badge, "symbol"))
        return Markup(f'<span class="vz-suit suit-{colour}">{symbol}</span>')

    @staticmethod
    def card(code) -> Markup:
        """A card shown big: "9♠"."""
        return Markup(
            f'<span class="vz-card suit-{escape(card_colour(code))}" data-card="{escape(code)}">'
            f"{escape(card_symbol(code))}</span>"
        )

    def tap_players(self, action, seats, pressed, label, allowed=None, suggested=None) -> Markup:
        """One tap button per player for a tap of the deal (``queen``, ``nine``,
        ``loser``): it names the seat meant. ``allowed`` (when given) holds the seats the
        state takes; ``suggested`` the one the screen proposes."""
        url = escape(self.view.url("tap"))
        out = [f'<div class="choices vz-players" role="group" aria-label="{escape(label)}">']
        for seat in seats:
            number = _get(seat, "seat")
            on = number in pressed
            cls = (
                "vz-player" + (" on" if on else "") + (" suggested" if number == suggested else "")
            )
            vals = tap_vals_json(self.view, action, seat=number)
            off = allowed is not None and number not in allowed
            out.append(
                f'<button type="button" class="{cls}" data-player="{escape(_get(seat, "name"))}" '
                f'data-tap hx-post="{url}" hx-swap="none" hx-vals=\'{vals}\' '
                f'aria-pressed="{"true" if on else "false"}"{" disabled" if off else ""}>'
                f"{self.who(seat)}</button>"
            )
        out.append("</div>")
        return Markup("".join(out))

    def ask_players(self, action, seats, pressed, label, off=(), switch=False) -> Markup:
        """One button per player for the referee's question; ``switch`` sends where the
        player goes (on=1 out, on=0 back in), ``off`` holds the seats that cannot be
        chosen (out of cards)."""
        out = [f'<div class="choices vz-players" role="group" aria-label="{escape(label)}">']
        for seat in seats:
            number = _get(seat, "seat")
            on, gone = number in pressed, number in off
            vals = vals_json({"seat": number, "on": 0 if on else 1} if switch else {"seat": number})
            small = f"<small>{escape(_('out'))}</small>" if gone else ""
            out.append(
                f'<button type="button" class="vz-player{" on" if on else ""}" '
                f'data-player="{escape(_get(seat, "name"))}" hx-post="{escape(action)}" '
                f'hx-swap="none" hx-vals=\'{vals}\' aria-pressed="{"true" if on else "false"}"'
                f"{' disabled' if gone and not on else ''}>{self.who(seat)}{small}</button>"
            )
        out.append("</div>")
        return Markup("".join(out))

    @staticmethod
    def hand_picker(action, cards, hand, taken, label) -> Markup:
        """The whole-hand picker: each tap says whether the card goes in (on=1) or out
        (on=0) of the hand, so a retried tap changes nothing."""
        return _picker(action, cards, hand, taken, label, "picker vz-picker", toggle=True)

    @staticmethod
    def card_picker(action, cards, selected=(), taken=None, vals=None, label="") -> Markup:
        """``partials/_cards.html``'s card picker: one tap adds or removes a card."""
        label = label or _("Cards")
        return _picker(action, cards, selected, taken or {}, label, "picker", extra=vals or {})


def _picker(action, cards, selected, taken, label, cls, toggle=False, extra=None) -> Markup:
    """A picker of the beat check, kept for the same inputs (it carries no version)."""
    chosen = tuple(c for c in cards if c in selected)
    reasons = tuple((c, str(taken[c])) for c in cards if c in taken and c not in chosen)
    extras = tuple(sorted((extra or {}).items()))
    key = (str(action), tuple(cards), chosen, reasons, str(label), cls, toggle, extras)
    try:
        hash(key)
    except TypeError:  # extra fields that are lists: made afresh
        return Markup(_picker_html(*key[:2], set(chosen), dict(reasons), *key[4:7], extra or {}))
    made = _PICKERS.get(
        key, lambda: _picker_html(*key[:2], set(chosen), dict(reasons), *key[4:7], extra or {})
    )
    return Markup(made)


def _picker_html(action, cards, chosen, reasons, label, cls, toggle, extra) -> str:
    url = escape(action)
    out = [f'<div class="{cls}" role="group" aria-label="{escape(label)}">']
    for code in cards:
        symbol, colour = escape(card_symbol(code)), escape(card_colour(code))
        code_text = escape(code)
        is_on = code in chosen
        reason = None if is_on else reasons.get(code)
        if toggle:
            vals = vals_json({"card": code, "on": 0 if is_on else 1})
        else:
            vals = vals_json({**extra, "card": code})
        if reason:
            reason = escape(reason)
            why = f' disabled aria-label="{symbol} — {reason}"'
            why += "" if toggle else f' title="{symbol} — {reason}"'
            small = f"<small>{reason}</small>"
        else:
            why = small = ""
        out.append(
            f'<button type="button" class="pick suit-{colour}{" on" if is_on else ""}" '
            f'hx-post="{url}" hx-swap="none" hx-vals=\'{vals}\' '
            f'aria-pressed="{"true" if is_on else "false"}" data-card="{code_text}"{why}>'
            f"<span>{symbol}</span>{small}</button>"
        )
    out.append("</div>")
    return "".join(out)
