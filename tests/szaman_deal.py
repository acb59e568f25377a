"""One Szaman deal, shared by the screen's client and browser tests: the same
tricks as full plays and as quick notes, and the engine requests they make."""

NAMES = ("Ola", "Piotr", "Zosia", "Adam")

# A classic 4-player deal: Adam never wins a trick, so his hand runs out after trick 8
# (S-D3). Each trick in playing order; the first player leads.
FULL_DEAL = [
    [("Ola", "2C"), ("Piotr", "KC"), ("Zosia", "5C"), ("Adam", "9C")],
    [("Piotr", "8H"), ("Zosia", "JH"), ("Adam", "3H"), ("Ola", "AH")],
    [("Ola", "RJ"), ("Piotr", "4D"), ("Zosia", "7D"), ("Adam", "10D")],  # Ola names ♦
    [("Ola", "5S"), ("Piotr", "9S"), ("Zosia", "QS"), ("Adam", "2H")],
    [("Zosia", "KD"), ("Adam", "6D"), ("Ola", "3D"), ("Piotr", "BJ")],
    [("Zosia", "4C"), ("Adam", "7C"), ("Ola", "10C"), ("Piotr", "3C")],
    [("Ola", "6H"), ("Piotr", "9H"), ("Zosia", "10H"), ("Adam", "4H")],
    [("Zosia", "2S"), ("Adam", "5H"), ("Ola", "8S"), ("Piotr", "6S")],
]
JOKER_SUITS = {2: "D"}
LEFT = {"Ola": ["QC", "7S", "2D"], "Piotr": ["KS"], "Zosia": ["AS", "JD", "9D"], "Adam": []}
# the same deal noted quickly: winner, specials, who played off-suit
QUICK_DEAL = [
    ("Piotr", [], []),
    ("Ola", ["8H", "JH"], []),
    ("Ola", ["joker"], []),
    ("Zosia", [], ["Adam"]),
    ("Zosia", [], ["Piotr"]),
    ("Ola", [], []),
    ("Zosia", [], []),
    ("Ola", [], ["Adam"]),
]


def full_request(variant="classic", left=LEFT):
    tricks = []
    for i, plays in enumerate(FULL_DEAL):
        trick = {"plays": [[name, card] for name, card in plays]}
        if i in JOKER_SUITS:
            trick["joker_suit"] = JOKER_SUITS[i]
        tricks.append(trick)
    req = {"players": list(NAMES), "variant": variant, "tricks": tricks}
    if left is not None:
        req["left"] = left
    return req


def quick_request():
    tricks = []
    for winner, specials, off in QUICK_DEAL:
        trick = {"winner": winner}
        if specials:
            trick["specials"] = specials
        if off:
            trick["off_suit"] = off
        tricks.append(trick)
    return {"players": list(NAMES), "variant": "classic", "tricks": tricks, "left": LEFT}


def full_taps() -> list[dict]:
    """The deal card by card in the play state's notation (PLAY.md), then the cards
    left in hand: 41 taps, without their ids."""
    taps: list[dict] = [{"action": "lead", "seat": 0}]
    for i, plays in enumerate(FULL_DEAL):
        for j, (name, card) in enumerate(plays):
            taps.append({"action": "card", "seat": NAMES.index(name), "card": card})
            if j == 0 and i in JOKER_SUITS:
                taps.append({"action": "suit", "seat": NAMES.index(name), "suit": JOKER_SUITS[i]})
    for name in NAMES:
        for card in LEFT[name]:
            taps.append({"action": "held", "seat": NAMES.index(name), "card": card, "on": True})
    return taps
