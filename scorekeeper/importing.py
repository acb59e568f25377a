"""What an import may bring: a table export checked with the app's own rules before
anything of it is written (``Store.import_table``).

A file can say anything. Whatever the app would refuse from a phone it refuses
from a file too (a game it does not know, settings it would not offer, a player
count the game is not played by, names it would not take), and what the pages
rely on must hold: links as long and random as the app's own and never one for
both doors, seats and entry ids each once, whole numbers SQLite can add up, events
and kinds the history knows, dates it can show. The first problem found is the
answer, in one line, and nothing is written.
"""

from __future__ import annotations

from datetime import datetime

from . import api
from . import validate as v
from .errors import RuleError
from .games import catalog
from .messages import LANGUAGES, N_, Text, quotable
from .store.errors import StoreError
from .store.records import KEY_FORMAT, MAX_ROWID, MAX_TABLE_NAME

# Points of one entry: far beyond any game's (a Cowboy deal stays within a few
# hundred), yet the sum of a whole table's entries stays far inside SQLite's integers.
MAX_POINTS = 1_000_000
MAX_ROUND = 1_000_000
EVENTS = ("voided", "restored", "superseded")
MAX_STAMP = 64
MAX_MESSAGE = 300  # a refusal is one line, however long the field it names


SCORE_PAD, GAME_END = "manual-points", "game-end"
GENERIC_KINDS = (SCORE_PAD, GAME_END)  # entries of every game's table that offers them
# why a table whose game does not offer one of them takes no entry of it
NOT_OFFERED = {
    # the table's page offers no pad and refuses points posted to it: nor does a file
    SCORE_PAD: N_(
        "Entry %(entry)s is a score-pad round, but nobody scores points in %(game)s: its "
        "tables have no score pad."
    ),
    GAME_END: N_(
        "Entry %(entry)s ends the game by hand, but %(game)s ends by its own rules: its "
        "tables offer no “End the game”."
    ),
}


def _offered(record: catalog.Game) -> dict[str, bool]:
    return {SCORE_PAD: record.score_pad, GAME_END: record.players_end}


def entry_kinds(game: str) -> frozenset[str]:
    """The kinds of entry a table of ``game`` keeps: the score pad's (when its tables
    have the pad: a race has none) and the game end's (when its players end it), and
    those its own screen stores (the ones the history names)."""
    record = catalog.GAMES[game]
    generic = [k for k, offered in _offered(record).items() if offered]
    return frozenset((*generic, *record.entry_kinds))


def check_export(data: object) -> dict:
    """The export as it will be written (names in NFC, settings cleaned), or
    StoreError saying in one line what is wrong and where."""
    try:
        return _checked(data)
    except RuleError as exc:
        # the sentence around the reason is a msgid; the reason, already in the language
        # spoken now, is cut so that the whole stays one line
        reason = " ".join(exc.message.split())
        if exc.path:
            # Translators: %(path)s is where in the file (players[2].name), %(reason)s why
            text = Text("This export cannot be imported (%(path)s): %(reason)s", path=exc.path)
        else:
            text = Text("This export cannot be imported: %(reason)s")
        room = MAX_MESSAGE - len(str(Text(text.msgid, **text.variables, reason="")))
        if len(reason) > room:
            reason = reason[: max(room - 1, 0)] + "…"
        text.variables["reason"] = reason
        raise StoreError(text) from None


def _key(value: object, path: str) -> str:
    if not isinstance(value, str) or not KEY_FORMAT.fullmatch(value):
        raise RuleError(
            "A table's link must be 22 to 64 letters, digits, “-” or “_”, drawn at random "
            "as Scorekeeper draws them.",
            path,
        )
    return value


def _stamp(value: object, path: str) -> str:
    if isinstance(value, str) and len(value) <= MAX_STAMP:
        try:
            datetime.fromisoformat(value)
            return value
        except ValueError:
            pass
    raise RuleError(
        "This must be a date and time as an export writes it (2026-12-01T20:15:00.000+00:00).",
        path,
    )


def _checked(data: object) -> dict:
    doc = v.obj(
        data,
        "",
        required=("format", "format_version", "table", "players", "entries", "events"),
        optional=("rolls",),
    )
    if doc["format"] != "scorekeeper-table":
        raise RuleError("This file is not a Scorekeeper table export.", "format")
    version = v.integer(doc["format_version"], "format_version")
    if version != 1:
        raise RuleError(
            "This export is of format version %(version)s; this Scorekeeper reads version 1.",
            "format_version",
            version=version,
        )
    t = v.obj(
        doc["table"],
        "table",
        required=("scorer_key", "watch_key", "game", "name", "settings", "created", "updated"),
        optional=("language",),  # exports made before tables had one: English
    )
    scorer_key = _key(t["scorer_key"], "table.scorer_key")
    watch_key = _key(t["watch_key"], "table.watch_key")
    if scorer_key == watch_key:
        raise RuleError(
            "The watch link is the scorer link, so it could change the scores.", "table.watch_key"
        )
    game = catalog.GAMES.get(t["game"]) if isinstance(t["game"], str) else None
    if game is None:
        raise RuleError(
            "“%(game)s” is not one of the games (%(games)s).",
            "table.game",
            game=quotable(t["game"]),
            games=", ".join(catalog.GAMES),
        )

    players = v.array(doc["players"], "players")
    game.check_players(players)  # the count first: it bounds the seats
    seated: dict[int, str] = {}
    for i, raw in enumerate(players):
        path = v.join("players", i)
        p = v.obj(raw, path, required=("seat", "name"))
        seat = v.integer(p["seat"], v.join(path, "seat"), 0, len(players) - 1)
        if seat in seated:
            raise RuleError("Seat %(seat)s is given twice.", v.join(path, "seat"), seat=seat)
        seated[seat] = v.clean_name(p["name"], v.join(path, "name"), what="A player's name")
    names = [seated[seat] for seat in sorted(seated)]
    v.distinct_names(names)

    settings = dict(v.mapping(t["settings"], "table.settings"))
    first_dealer = v.integer(
        settings.pop("first_dealer", 0), "table.settings.first_dealer", 0, len(players) - 1
    )
    settings = game.clean_settings(settings)
    settings["first_dealer"] = first_dealer

    table = {
        "scorer_key": scorer_key,
        "watch_key": watch_key,
        "game": game.slug,
        "name": v.clean_name(t["name"], "table.name", MAX_TABLE_NAME, what="A table's name"),
        "settings": settings,
        "created": _stamp(t["created"], "table.created"),
        "updated": _stamp(t["updated"], "table.updated"),
        "language": v.choice(t.get("language", "en"), "table.language", LANGUAGES),
    }

    kinds = entry_kinds(game.slug)
    seats = {str(seat) for seat in seated}
    entries, ids = [], set()
    for i, raw in enumerate(v.array(doc["entries"], "entries")):
        path = v.join("entries", i)
        e = v.obj(
            raw,
            path,
            required=(
                "id",
                "round",
                "kind",
                "request",
                "result",
                "created",
                "supersedes",
                "points",
            ),
        )
        entry_id = v.integer(e["id"], v.join(path, "id"), 1, MAX_ROWID)
        if entry_id in ids:
            raise RuleError("Entry %(entry)s is given twice.", v.join(path, "id"), entry=entry_id)
        ids.add(entry_id)
        if _offered(game).get(e["kind"]) is False:
            why = NOT_OFFERED[e["kind"]]
            raise RuleError(why, v.join(path, "kind"), entry=entry_id, game=Text(game.name))
        if not isinstance(e["kind"], str) or e["kind"] not in kinds:
            # Translators: %(game)s is the name of a game (Szaman)
            raise RuleError(
                "“%(kind)s” is not a kind of entry a %(game)s table keeps.",
                v.join(path, "kind"),
                kind=quotable(e["kind"]),
                game=Text(game.name),
            )
        request = v.mapping(e["request"], v.join(path, "request"))
        if e["kind"] in api.KINDS:
            # a screen replays what its entries asked (a Pegs board from its moves): the
            # request must be one the rules accept, as it was when the table stored it
            try:
                api.evaluate(e["kind"], request)
            except RuleError as exc:
                # Translators: %(kind)s is a scoring kind (szaman-deal)
                raise RuleError(
                    "The %(kind)s rules refuse this entry's request: %(reason)s",
                    v.join(path, "request"),
                    kind=e["kind"],
                    reason=exc.text,
                ) from None
            except RecursionError:
                raise RuleError("This entry's request is nested too deeply.", path) from None
        points = {}
        for seat, value in v.mapping(e["points"], v.join(path, "points")).items():
            where = v.join(v.join(path, "points"), seat)
            if seat not in seats:
                raise RuleError(
                    "“%(seat)s” is not a seat at this table.", where, seat=quotable(seat)
                )
            points[seat] = v.integer(value, where, -MAX_POINTS, MAX_POINTS)
        entries.append(
            {
                "id": entry_id,
                "round": v.integer(e["round"], v.join(path, "round"), 0, MAX_ROUND),
                "kind": e["kind"],
                "request": request,
                "result": v.mapping(e["result"], v.join(path, "result")),
                "created": _stamp(e["created"], v.join(path, "created")),
                "supersedes": e["supersedes"],
                "points": points,
            }
        )
    for i, e in enumerate(entries):
        old = e["supersedes"]
        if old is not None and (
            isinstance(old, bool) or not isinstance(old, int) or old not in ids or old >= e["id"]
        ):
            raise RuleError(
                "An edit must name an earlier entry of this export.",
                v.join(v.join("entries", i), "supersedes"),
            )

    events = []
    for i, raw in enumerate(v.array(doc["events"], "events")):
        path = v.join("events", i)
        ev = v.obj(raw, path, required=("entry_id", "event", "by_entry", "created"))
        for field in ("entry_id", "by_entry"):
            value = ev[field]
            if (value is not None or field == "entry_id") and (
                isinstance(value, bool) or not isinstance(value, int) or value not in ids
            ):
                raise RuleError("This must name an entry of this export.", v.join(path, field))
        events.append(
            {
                "entry_id": ev["entry_id"],
                "event": v.choice(ev["event"], v.join(path, "event"), EVENTS),
                "by_entry": ev["by_entry"],
                "created": _stamp(ev["created"], v.join(path, "created")),
            }
        )

    rolls = []
    for i, raw in enumerate(v.array(doc.get("rolls", []), "rolls")):
        path = v.join("rolls", i)
        r = v.obj(raw, path, required=("round", "kind", "dice", "result", "physical", "created"))
        dice = v.array(r["dice"], v.join(path, "dice"), 1, 3)
        rolls.append(
            {
                "round": v.integer(r["round"], v.join(path, "round"), 0, MAX_ROUND),
                "kind": v.choice(r["kind"], v.join(path, "kind"), catalog.roll_kinds()),
                "dice": [
                    v.integer(d, v.join(v.join(path, "dice"), j), 1, 6) for j, d in enumerate(dice)
                ],
                "result": v.mapping(r["result"], v.join(path, "result")),
                "physical": v.boolean(r["physical"], v.join(path, "physical")),
                "created": _stamp(r["created"], v.join(path, "created")),
            }
        )

    return {
        "format": "scorekeeper-table",
        "format_version": 1,
        "table": table,
        "players": [{"seat": seat, "name": seated[seat]} for seat in sorted(seated)],
        "entries": entries,
        "events": events,
        "rolls": rolls,
    }
