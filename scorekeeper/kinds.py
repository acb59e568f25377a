"""The kinds of entry a table's history keeps, with the label the history gives each
(what an import may bring: ``importing.entry_kinds``; what a row is called:
``summary.history_row``)."""

KIND_LABELS = {
    "manual-points": "Score pad",
    "game-end": "Game ended",
    "cowboy-deal": "Deal",
    "cowboy-marriage": "Marriage shown",
    "szaman-deal": "Deal",
    "kvanta-dealer": "Dealer draw",
    "kvanta-hand": "Hand",
    "kvanta-flux": "Flux",
    "kvanta-call": "Call",
    "kvanta-poker": "Poker prize",
    "vezimas-deal": "Cart",
    "vezimas-trumps": "Trumps",
    "pegs-apply": "Move",
    "pegs-board": "Board set",
}
