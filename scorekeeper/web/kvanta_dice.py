"""The dice of a Kvanta tap: the target's three dice and the exchange die, rolled on the
server, or the faces the players chose for physical dice, sent with the tap (``die0`` …).
Tests may set ``DICE_RNG`` in the app's config to choose what the server rolls."""

from __future__ import annotations

from flask import current_app, request

from .. import dice
from ..games.play import Tap
from ..games.play.kvanta import KvantaRound
from ..i18n import gettext as _
from . import screens

TARGET_ROLL = "kvanta-target"
EXCHANGE_ROLL = "kvanta-exchange"
ROLL_KINDS = {"roll": TARGET_ROLL, "reroll": TARGET_ROLL, "exchange": EXCHANGE_ROLL}


class FacesRng:
    """Physical dice: answers with the faces the players chose, so the dice module
    checks and totals them exactly as it does a virtual roll."""

    def __init__(self, faces: list[int]):
        self.faces = list(faces)

    def randrange(self, start: int, stop: int) -> int:
        return self.faces.pop(0)


def faces(count: int) -> list[int]:
    """The faces chosen on the phone for physical dice (``die0``, ``die1`` …)."""
    faces = []
    for i in range(count):
        raw = request.form.get(f"die{i}", "")
        raw = raw if raw.isascii() else ""
        if raw.isdigit() and not 1 <= int(raw) <= dice.FACES:
            raise screens.Refusal(_("A die shows 1 to %(n)d.", n=dice.FACES), f"die{i}")
        if not raw.isdigit():
            message = (
                _("Tap the face of each of the three dice first.")
                if count > 1
                else _("Tap the face of the exchange die first.")
            )
            raise screens.Refusal(message, f"die{i}")
        faces.append(int(raw))
    return faces


def throw(tap: Tap, state: KvantaRound) -> tuple[str, list[int], dict]:
    """(kind, dice, result) of the roll a tap asks for: rolled here, or the faces sent."""
    physical = tap.get("physical") is True
    if tap.action == "exchange":
        rng = FacesRng(faces(1)) if physical else current_app.config.get("DICE_RNG")
        rolled = dice.roll_kvanta_exchange(rng)
        winner = state.players[state.trick_winner] if state.trick_winner is not None else None
        return EXCHANGE_ROLL, [rolled["die"]], {**rolled, "player": winner, "trick": state.trick}
    rng = FacesRng(faces(dice.TARGET_DICE)) if physical else current_app.config.get("DICE_RNG")
    rolled = dice.roll_kvanta_target(rng)
    if tap.action == "reroll":  # who asked for it, listed with the roll (#24)
        rolled = {**rolled, "asked_by": state.players[tap.get("seat")]}
    return TARGET_ROLL, rolled["dice"], rolled


def with_dice(tap: Tap, faces: list[int]) -> Tap:
    key = "die" if tap.action == "exchange" else "dice"
    return Tap.from_json({**tap.to_json(), key: faces[0] if key == "die" else faces})
