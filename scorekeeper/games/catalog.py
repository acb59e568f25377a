"""The five games as tables know them: names, player counts, settings and house
rules with their defaults (RULES.md), and how settings are checked.

Pure data and checks: the web layer builds its forms from this, the engines
receive the chosen house rules from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import RuleError


@dataclass(frozen=True)
class Setting:
    key: str
    label: str
    kind: str  # "bool" | "choice" | "int"
    default: object
    options: tuple[tuple[str, str], ...] = ()  # (value, label) for choices
    lo: int | None = None
    hi: int | None = None
    decision: str = ""  # the RULES.md decision id it implements
    house_rule: bool = False  # listed on the printed rule card as a house rule
    help: str = ""

    def clean(self, raw: object) -> object:
        """The setting's value from form or JSON input; RuleError when it can't be."""
        path = f"settings.{self.key}"
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            if raw in ("on", "true", "1", "yes"):
                return True
            if raw in (None, "", "off", "false", "0", "no"):
                return False
            raise RuleError(f"{self.label}: choose on or off.", path)
        if self.kind == "choice":
            allowed = [value for value, _ in self.options]
            if raw not in allowed:
                raise RuleError(f"{self.label}: choose one of {', '.join(allowed)}.", path)
            return raw
        # int
        try:
            value = int(str(raw).strip())
        except (TypeError, ValueError):
            raise RuleError(f"{self.label} must be a whole number.", path) from None
        if self.lo is not None and value < self.lo or self.hi is not None and value > self.hi:
            raise RuleError(f"{self.label} must be between {self.lo} and {self.hi}.", path)
        return value


@dataclass(frozen=True)
class Game:
    slug: str
    name: str  # in the original language
    subtitle: str  # English
    player_counts: tuple[int, ...]
    settings: tuple[Setting, ...] = field(default_factory=tuple)
    summary: str = ""

    @property
    def min_players(self) -> int:
        return min(self.player_counts)

    @property
    def max_players(self) -> int:
        return max(self.player_counts)

    @property
    def players_text(self) -> str:
        """``2 to 6``, ``3 or 4``, ``4, 6 or 8``."""
        return _counts_text(self.player_counts)

    def setting(self, key: str) -> Setting:
        for s in self.settings:
            if s.key == key:
                return s
        raise KeyError(key)

    def defaults(self) -> dict:
        return {s.key: s.default for s in self.settings}

    def clean_settings(self, raw: dict, form: bool = False) -> dict:
        """Every setting with its value; unknown keys refused. ``form``: an unticked
        checkbox is absent from a form post, so absent booleans mean off."""
        known = {s.key for s in self.settings}
        for key in raw:
            if key not in known:
                raise RuleError(f"{self.name} has no setting called {key!r}.", f"settings.{key}")
        out = {}
        for s in self.settings:
            if s.key in raw:
                out[s.key] = s.clean(raw[s.key])
            elif form and s.kind == "bool":
                out[s.key] = False
            else:
                out[s.key] = s.default
        return out

    def check_players(self, names: list[str]) -> None:
        if len(names) not in self.player_counts:
            counts = _counts_text(self.player_counts)
            raise RuleError(
                f"{self.name} is played by {counts} players; {len(names)} given.", "players"
            )


def _counts_text(counts: tuple[int, ...]) -> str:
    if counts == tuple(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]} to {counts[-1]}" if len(counts) > 2 else " or ".join(map(str, counts))
    return ", ".join(map(str, counts[:-1])) + f" or {counts[-1]}"


GAMES: dict[str, Game] = {
    g.slug: g
    for g in (
        Game(
            "cowboy",
            "Vajoming Kauboj",
            "Wyoming Cowboy",
            (3, 4),
            (
                Setting(
                    "marriage_and_harlot",
                    "Illegal marriage's queen is also a harlot",
                    "bool",
                    True,
                    decision="C-D7",
                    house_rule=True,
                    help="A K+Q of one suit held at the end costs −75 instead of −50.",
                ),
                Setting(
                    "curse_replaces_sixes",
                    "The Curse replaces the sixes' −20",
                    "bool",
                    True,
                    decision="C-D8",
                    house_rule=True,
                    help="Three sixes cost −100 in all (four −120); off: −160 (−180).",
                ),
            ),
            "Shoot cowboys, lay tens, first to 500.",
        ),
        Game(
            "kvanta",
            "Kvanta",
            "Three decks and four dice",
            (2, 3, 4, 5, 6),
            (),
            "Hit the dice target, call, and win the poker prize.",
        ),
        Game(
            "vezimas",
            "Vežimas",
            "The Cart",
            (2, 3, 4),
            (
                Setting(
                    "tally",
                    "What a lost deal gives",
                    "choice",
                    "carts",
                    options=(
                        ("carts", "A cart (fewest carts wins)"),
                        ("letters", "A letter of VEŽIMAS"),
                    ),
                    decision="V-D6",
                    house_rule=True,
                    help="Letters: each deal's loser takes the next letter of V-E-Ž-I-M-A-S; "
                    "whoever completes the word loses and the session ends.",
                ),
            ),
            "Beat the top card with your own trump; the last one holding cards gets the cart.",
        ),
        Game(
            "szaman",
            "Szaman",
            "Shaman",
            (2, 3, 4, 5, 6),
            (
                Setting("deals", "Deals in a game", "int", 6, lo=1, hi=30, help="RULES §2: 6."),
                Setting(
                    "target",
                    "Winning total (closest wins)",
                    "int",
                    66,
                    lo=1,
                    hi=999,
                    decision="S-D5",
                    help="The total closest to it wins; equal distance shares the win.",
                ),
                Setting(
                    "variant",
                    "Variant",
                    "choice",
                    "classic",
                    options=(("classic", "Classic"), ("russian", "Russian")),
                    decision="S-D6",
                    house_rule=True,
                    help="Russian: everyone draws after each trick, no end penalty, Q♠ is worth 13.",
                ),
            ),
            "Tricks with two jokers; finish closest to 66.",
        ),
        Game(
            "pegs",
            "Arizona Pegs and Jokers",
            "A partnership race on a peg board",
            (4, 6, 8),
            (
                Setting(
                    "team_pegs",
                    "Which team pegs you may move",
                    "choice",
                    "any",
                    options=(
                        ("any", "Any peg of the team"),
                        ("own_first", "Partner's pegs once all yours are home"),
                        ("own", "Only your own"),
                    ),
                    decision="P-D2",
                    house_rule=True,
                ),
                Setting(
                    "nine",
                    "The 9",
                    "choice",
                    "split_forward",
                    options=(
                        ("split_forward", "9 forward, may be split forward"),
                        ("split_back", "9 split: one part forward, one backward"),
                        ("forward", "9 forward, no split"),
                    ),
                    decision="P-D3",
                    house_rule=True,
                ),
            ),
            "Two teams race their pegs home around the board.",
        ),
    )
}


def game(slug: str) -> Game:
    try:
        return GAMES[slug]
    except KeyError:
        raise RuleError(f"There is no game called {slug!r}.", "game") from None
