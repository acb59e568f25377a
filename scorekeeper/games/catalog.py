"""Each game as tables know it, in one declared record (:class:`Game`): its names,
player counts, settings and house rules with their defaults (RULES.md), the kinds of
entry it scores and keeps, how its standings come from ``game-result``, and where its
screen, rule card and printed sheet's particulars are.

A game's engine module declares its record (``GAME``); :mod:`.registry` lists the
modules, one line each, and :data:`GAMES` reads them on first use. Pure data and
checks: the web layer builds its forms from this, the engines receive the chosen
house rules from it. The words a player reads (names, labels, options, help) are
marked with ``N_`` and translated where they are shown.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import RuleError
from ..messages import N_, Joined, Plural, Text, quotable, quoted
from . import registry


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

    def clean(self, raw: object, form: bool = False) -> object:
        """The setting's value from form or JSON input; RuleError when it can't be.
        ``form``: a refusal names a choice's options as the form labels them (JSON
        input names them by their values)."""
        path = f"settings.{self.key}"
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            if raw in ("on", "true", "1", "yes"):
                return True
            if raw in (None, "", "off", "false", "0", "no"):
                return False
            raise RuleError("%(setting)s: choose on or off.", path, setting=Text(self.label))
        if self.kind == "choice":
            allowed = [value for value, _ in self.options]
            if raw not in allowed:
                labels = [quoted(Text(label)) for _, label in self.options]
                raise RuleError(
                    "%(setting)s: choose one of %(values)s.",
                    path,
                    setting=Text(self.label),
                    values=Joined(labels, ", ") if form else ", ".join(allowed),
                )
            return raw
        # int
        try:
            value = int(str(raw).strip())
        except (TypeError, ValueError):
            raise RuleError(
                "%(setting)s must be a whole number.", path, setting=Text(self.label)
            ) from None
        if self.lo is not None and value < self.lo or self.hi is not None and value > self.hi:
            raise RuleError(
                "%(setting)s must be between %(lo)s and %(hi)s.",
                path,
                setting=Text(self.label),
                lo=self.lo,
                hi=self.hi,
            )
        return value


Engine = Callable[[dict], dict]


def _points(result: dict) -> dict[str, int]:
    return dict(result.get("points", {}))


@dataclass(frozen=True)
class Kind:
    """A kind of request the game answers or an entry its tables keep.

    ``label``: the history's name for an entry of this kind (``N_``); a kind without
    one is answered by the engine but never stored as an entry of its own.
    ``deal``: an entry of it makes its round a deal (the dealer draw, a marriage shown
    or a board move do not). ``points``: the per-player points of its result.
    ``variants``: (request field, label): an entry whose request names the field is
    that instead (a Pegs discard is stored as the board unchanged). ``setting_labels``:
    (setting, value, label): an entry of a table whose setting has that value is named
    so instead (a lost Vežimas deal gives a letter when letters are kept, V-D6). ``breakdown``:
    where the history finds why an entry scored what it did ("module:function", most
    often in the game's own module: ``(request, result, seat_names) → lines``, made of
    ``games/wording.py``'s pieces). ``slot``: what an entry of it is in its round, of
    which a round counts one live entry (:func:`round_slot`): the kind's own name when
    empty; kinds that fill one slot share a name (a Pegs turn is a move or a discard).
    ``several``: a round counts any number of entries of it (a marriage shown, a Flux)."""

    name: str
    label: str = ""
    deal: bool = True
    points: Callable[[dict], dict[str, int]] = _points
    variants: tuple[tuple[str, str], ...] = ()
    setting_labels: tuple[tuple[str, str, str], ...] = ()
    breakdown: str = ""
    slot: str = ""
    several: bool = False


@dataclass(frozen=True)
class Numbering:
    """What a game's numbered entries are called where the history, the printed sheet and
    the notices after an undo, a redo or an edit number them (msgids, ``N_``): rounds of
    deals by default; a Pegs table's turns, where each move is an entry of its own."""

    heading: str = N_("Round %(n)d")  # a history row's number
    column: str = N_("Round")  # the printed history's column of numbers
    pages: str = N_("Rounds %(first)s–%(last)s, newest first; %(total)s entries in all.")
    carried: str = N_("Carried forward from rounds %(first)s–%(last)s")
    undone: str = N_("Round %(n)d undone.")
    restored: str = N_("Round %(n)d restored.")
    change_undone: str = N_("Round %(n)d: the change undone; the round is as it was before.")
    change_redone: str = N_("Round %(n)d: the change made again.")
    reopened: str = N_("Round %(n)d is open again: change it, then save.")
    none: str = N_("No rounds yet.")  # an empty history
    newest: str = N_("Newest rounds")  # the history page's links to its pages
    older: str = N_("Older rounds")
    # the link to the rows the table page leaves out (its msgid and plural)
    earlier: Plural = Plural("Show %(num)d earlier round", "Show all %(num)d earlier rounds", 0)
    # The store's refusals that name an entry by its number (``%(round)s``), another
    # phone having changed it first; empty: the store's own, which name rounds.
    entered_meanwhile: str = ""  # a new entry whose number another phone just took
    changed_meanwhile: str = ""  # an entry to replace, undone or changed meanwhile
    changed_before_edit: str = ""  # an entry to edit, undone or changed meanwhile
    already_undone: str = ""  # an undo of an entry that no longer counts
    changed_since: str = ""  # a redo of an entry whose replacement was changed again
    entered_since: str = ""  # a redo of an entry whose round was entered again since
    reopened_changed: str = ""  # a redo beside a later version reopened and changed
    not_undone: str = ""  # a redo of an entry that counts
    cannot_edit: str = ""  # an edit opened on an entry that no longer counts
    being_entered: str = ""  # an edit opened while the screen's next one is being entered


ROUNDS = Numbering()


@dataclass(frozen=True)
class ResultSetting:
    """A setting the game's result depends on: its default and how ``game-result``
    checks a value given (``check(value, path)``)."""

    default: object
    check: Callable[[object, str], object]


@dataclass(frozen=True, eq=False)
class Result:
    """How ``game-result`` answers for the game (RULES §6), and how its standings
    are worded from that answer.

    ``rule(players, totals, deals, ended, settings)``: the answer (``results.answer``).
    ``settings``: the settings it reads, with their defaults. ``bounds(settings)``:
    the lowest and highest total a player may have; ``check(totals, players,
    settings)``: refuses totals the rules cannot hold together. ``message(result,
    totals, settings, progress)``: the standings' sentence. ``pad_totals(totals,
    settings)``: totals typed on the score pad as the rule may read them.
    ``view(result, totals, settings, players)``: further ``Standings`` fields."""

    rule: Callable[..., dict]
    message: Callable[..., str]
    settings: Mapping[str, ResultSetting] = field(default_factory=dict)
    bounds: Callable[[dict], tuple[int, int]] | None = None
    check: Callable[[dict, list, dict], None] | None = None
    pad_totals: Callable[[dict, dict], dict] | None = None
    view: Callable[..., dict] | None = None


@dataclass(frozen=True, eq=False)  # one record per game: the same game is the same record
class Game:
    """One game, declared once (by its engine module, listed in :mod:`.registry`)."""

    slug: str
    name: str  # in the original language
    subtitle: str  # in English
    player_counts: tuple[int, ...]
    settings: tuple[Setting, ...] = field(default_factory=tuple)
    summary: str = ""
    # kind → engine: the engine module's KINDS (the API and CLI answer these)
    engines: Mapping[str, Engine] = field(default_factory=dict)
    kinds: tuple[Kind, ...] = ()  # what the kinds are: labels, deals, points
    numbering: Numbering = ROUNDS  # what its numbered entries are called: rounds, turns
    result: Result | None = None  # how game-result answers; None: no totals to rank
    no_result: str = ""  # why game-result has no answer for it (a msgid)
    # standings for a game without a result: (players, totals, settings, progress,
    # dealer) → Standings
    standings: Callable[..., Any] | None = None
    dealer: Callable[..., str | None] | None = None  # (players, progress); None: to the left
    # (settings, latest) → what the table's latest entries say beyond the totals: Progress
    # fields, any other name goes to Progress.facts; ``latest(kinds, says)``: the newest
    # live entry of those kinds that ``says(entry)``
    progress: Callable[..., dict] | None = None
    players_end: bool = False  # the players end the game (the table offers "End the game")
    score_pad: bool = True  # its tables offer the score pad (points by hand); a race has none
    rolls: Mapping[str, str] = field(default_factory=dict)  # dice roll kind → "module:roll"
    # where the web and print layers find the rest, as "module:attribute"
    screen: str = ""  # default scorekeeper.web.<slug>
    play_state: str = ""  # the deal's play state as a log of taps (scorekeeper.games.play)
    rule_card: str = ""
    sheet: str = ""  # (seats, settings) → the blank sheet's particulars
    filled_sheet: str = ""  # (summary, catalogue) → the filled sheet's particulars
    sheet_template: str = ""  # default sheet-<slug>.html in printables/
    sheet_names_first_dealer: bool = True  # the sheet's header names who deals first

    def __post_init__(self) -> None:
        prefix = f"{self.slug}-"
        # the API finds a kind's game by its name without reading every game
        for name in (*self.engines, *(k.name for k in self.kinds), *self.rolls):
            if not name.startswith(prefix):
                raise ValueError(f"{self.slug}: kind {name!r} must start with {prefix!r}")

    @property
    def screen_module(self) -> str:
        return self.screen or f"scorekeeper.web.{self.slug}"

    @property
    def sheet_template_name(self) -> str:
        return self.sheet_template or f"sheet-{self.slug}.html"

    def kind(self, name: str) -> Kind | None:
        return next((k for k in self.kinds if k.name == name), None)

    @property
    def entry_kinds(self) -> tuple[str, ...]:
        """The kinds its tables keep as entries (those the history names)."""
        return tuple(k.name for k in self.kinds if k.label)

    @property
    def min_players(self) -> int:
        return min(self.player_counts)

    @property
    def max_players(self) -> int:
        return max(self.player_counts)

    @property
    def players_text(self) -> Text:
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
                raise RuleError(
                    "%(game)s has no setting called “%(key)s”.",
                    f"settings.{key}",
                    game=Text(self.name),
                    key=quotable(key),
                )
        out = {}
        for s in self.settings:
            if s.key in raw:
                out[s.key] = s.clean(raw[s.key], form)
            elif form and s.kind == "bool":
                out[s.key] = False
            else:
                out[s.key] = s.default
        return out

    def check_players(self, names: list[str]) -> None:
        if len(names) not in self.player_counts:
            counts = _counts_text(self.player_counts)
            raise RuleError(
                "%(game)s is played by %(counts)s players; %(given)d given.",
                "players",
                game=Text(self.name),
                counts=counts,
                given=len(names),
            )


def _counts_text(counts: tuple[int, ...]) -> Text:
    """``2 to 6``, ``3 or 4``, ``4, 6 or 8``: in the reader's language."""
    if len(counts) > 2 and counts == tuple(range(counts[0], counts[-1] + 1)):
        # Translators: how many players a game has, "2 to 6" (as in "2 to 6 players")
        return Text("%(lo)d to %(hi)d", lo=counts[0], hi=counts[-1])
    # Translators: how many players a game has, "3 or 4", "4, 6 or 8"
    return Text("%(some)s or %(last)d", some=", ".join(map(str, counts[:-1])), last=counts[-1])


@functools.cache
def resolve(reference: str) -> Any:
    """``"package.module:attribute"`` → that attribute (the module imported on first use)."""
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)


class _Games(Mapping[str, Game]):
    """Every registered game by slug, in the registry's order; a game's module is
    imported when its record is first read."""

    def __getitem__(self, slug: str) -> Game:
        return registry.record(slug)

    def __iter__(self) -> Iterator[str]:
        return iter(registry.slugs())

    def __len__(self) -> int:
        return len(registry.slugs())

    def __contains__(self, slug: object) -> bool:
        return isinstance(slug, str) and slug in registry.slugs()


GAMES: Mapping[str, Game] = _Games()


def kind_record(kind: str) -> tuple[Game, Kind | None] | None:
    """The game that answers or keeps ``kind`` (named ``<slug>-…``) and what the game
    says of it; None when no game has it. Reads that game's module alone."""
    slug = kind.partition("-")[0] if isinstance(kind, str) else ""
    if slug not in GAMES:
        return None
    found = GAMES[slug]
    described = found.kind(kind)
    if described is None and kind not in found.engines:
        return None
    return found, described


def round_slot(kind: str) -> str | None:
    """What an entry of ``kind`` is in its round, of which a round counts one live entry
    (``Kind.slot``; a redo may not make it two), or None for a kind a round counts any
    number of. A kind no game describes (a score-pad round, the game's end) is its own."""
    found = kind_record(kind)
    described = found[1] if found is not None else None
    if described is None:
        return kind
    return None if described.several else described.slot or described.name


def roll_kinds() -> tuple[str, ...]:
    """Every kind of dice roll a table keeps, the games' in the registry's order."""
    return tuple(kind for game in GAMES.values() for kind in game.rolls)


def roll(kind: str) -> Callable[[], dict] | None:
    """The function that rolls ``kind`` (named ``<slug>-…``), None when no game has it."""
    slug = kind.partition("-")[0] if isinstance(kind, str) else ""
    reference = GAMES[slug].rolls.get(kind) if slug in GAMES else None
    return resolve(reference) if reference else None


def game(slug: str) -> Game:
    try:
        return GAMES[slug]
    except KeyError:
        raise RuleError(
            "There is no game called “%(game)s”.", "game", game=quotable(slug)
        ) from None


def numbering(slug: str) -> Numbering:
    """What the game's numbered entries are called (the store's refusals name them so)."""
    return game(slug).numbering
