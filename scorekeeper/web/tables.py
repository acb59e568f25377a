"""Tables: start one, open it by its link, keep score on the generic pad,
undo/redo/edit rounds, rename and reorder players, rematch, export.

The scorer link can write; the watch link only shows. Every form carries a
submission id, so a retried post returns what was stored the first time.
"""

from __future__ import annotations

import functools
import json
import re
from datetime import UTC, datetime

from babel.dates import format_date
from flask import (
    Blueprint,
    Response,
    abort,
    render_template,
    request,
    url_for,
)

from .. import api, deals, i18n, messages, store, validate
from ..errors import RuleError
from ..games import catalog
from ..games.standings import NON_DEAL_KINDS, rematch_settings
from ..i18n import gettext as _
from ..messages import Text
from ..store import history_csv
from ..summary import history_row, step_of_round, summarize
from ..validate import MAX_NAME
from .board import (
    after_write,
    live_fragments,
    render_board,
    see_other,
    table_context,
    wants_partial,
    with_details,
)
from .db import _thread_stores as _thread_stores  # read by tests
from .db import get_store, load, new_submission_id, store_for
from .game_screens import deal_of

bp = Blueprint("tables", __name__)
bp.add_app_template_filter(messages.points, "points")
bp.add_app_template_filter(messages.signed, "signed")

MANUAL = "manual-points"
HISTORY_PAGE = 50  # rounds on a page of the history


# ---------------------------------------------------------------- home and create


@bp.get("/")
def home():
    return render_template(
        "home.html",
        games=catalog.GAMES,
        form={},
        errors={},
        submission_id=new_submission_id(),
        table_language=i18n.current_language(),
    )


def _blank(typed: str) -> bool:
    """Whether a field shows nothing: empty, or only spaces and invisible characters."""
    return not validate.without_invisible(typed).strip()


def usual_table_name(game: catalog.Game, language: str) -> str:
    """The name of a table started without one: the game and today's date. Every phone
    at the table reads it: made in the table's language, not this phone's."""
    return Text(
        "%(game)s, %(date)s",
        game=Text(game.name),
        date=format_date(datetime.now(UTC), "medium", locale=i18n.directory_name(language)),
    ).render(i18n.catalogue_for(language))


def parse_table_form(form) -> tuple[dict, dict]:
    """(clean values, errors by field) for the start-a-table form."""
    errors: dict[str, str] = {}
    values: dict = {}
    slug = form.get("game", "")
    if slug not in catalog.GAMES:
        errors["game"] = _("Choose one of the five games.")
        return values, errors
    game = catalog.GAMES[slug]
    # a seat whose field shows nothing is empty, whatever invisible characters it holds
    typed = ["" if _blank(n) else n.strip() for n in form.getlist("player")]
    names = [n for n in typed if n]
    # a blank seat between names is refused, not closed up: closing it would move every
    # later player (and the first dealer chosen by seat) to another seat than typed
    gaps = [
        i
        for i, n in enumerate(typed[: max((i for i, n in enumerate(typed) if n), default=0)])
        if not n
    ]
    if gaps:
        errors["players"] = _(
            "Seat %(n)d has no name: type one there, or move the later names up.", n=gaps[0] + 1
        )
        errors["player_fields"] = gaps
    for name in names:
        if len(validate.without_invisible(name).strip()) > MAX_NAME:
            errors["players"] = _("A name can be at most %(n)d characters.", n=MAX_NAME)
    try:
        # as the table keeps them: no control characters, composed (NFC), and two
        # names equal but for case ("Ana", "ana") are one player named twice
        names = store.clean_player_names(names)
    except store.StoreError as exc:
        errors["players"] = exc.message
    if len({validate.name_key(n) for n in names}) != len(names):
        errors.setdefault("players", _("Each player needs a different name."))
    try:
        game.check_players(names)
    except RuleError as exc:
        errors.setdefault("players", exc.message)
    if "players" in errors and "player_fields" not in errors:
        # too few names: the first empty seat is where the next one goes; otherwise
        # the names as a whole are wrong (too many, two alike, too long)
        empty = [i for i, n in enumerate(typed) if not n]
        few = len(names) not in game.player_counts and len(names) < game.max_players
        named = [i for i, n in enumerate(typed) if n]
        errors["player_fields"] = [empty[0]] if few and empty else named or [0]
    raw_settings = {
        s.key: form.get(f"{slug}-{s.key}")
        for s in game.settings
        if form.get(f"{slug}-{s.key}") is not None
    }
    try:
        settings = game.clean_settings(raw_settings, form=True)
    except RuleError as exc:
        errors[exc.path.replace("settings.", "setting-")] = exc.message
        settings = game.defaults()
    try:
        first = int(form.get("first_dealer", "0") or 0)
        if names and not 0 <= first < len(names):
            raise ValueError
    except ValueError:
        errors["first_dealer"] = _("Choose who deals first.")
        first = 0
    settings["first_dealer"] = first
    table_name = form.get("name", "").strip()[: store.MAX_TABLE_NAME]
    if _blank(table_name):
        table_name = ""  # a name that shows nothing is no name: the usual one is given
    else:
        try:
            table_name = store.clean_table_name(table_name)
        except store.StoreError as exc:
            errors["name"] = exc.message
    # the table's language: as chosen, else the one this page speaks
    language = i18n.known(form.get("language")) or i18n.current_language()
    table_name = table_name or usual_table_name(game, language)
    values.update(game=slug, names=names, settings=settings, name=table_name, language=language)
    return values, errors


@bp.post("/tables")
def create_table():
    values, errors = parse_table_form(request.form)
    if errors:
        return (
            render_template(
                "home.html",
                games=catalog.GAMES,
                form=request.form,
                errors=errors,
                submission_id=request.form.get("submission_id") or new_submission_id(),
                table_language=values.get("language") or i18n.current_language(),
            ),
            422,
        )
    outcome = get_store().create_table(
        values["game"],
        values["name"],
        values["names"],
        values["settings"],
        submission_id=request.form.get("submission_id") or None,
        language=values["language"],
    )
    return see_other(url_for("tables.table_page", key=outcome["scorer_key"]))


# ---------------------------------------------------------------- the table page


@bp.get("/t/<key>")
def table_page(key: str):
    table, access = load(key)
    return render_board(table, access, fresh=True)


@bp.get("/t/<key>/live")
def live(key: str):
    """The poll: an empty answer while the table is unchanged (most of them are
    answered before Flask, by ``UnchangedPoll``), fresh fragments otherwise."""
    version = get_store().version_by_key(key)
    if version is None:
        abort(404)
    if request.args.get("v") == str(version):
        # nothing changed: an empty 200 (htmx swaps nothing). Not a 204: some servers
        # close the connection after a 204, and a phone polls every second.
        return Response(b"", status=200, headers={"Content-Length": "0"})
    table, access = load(key)
    return live_fragments(table, access, fresh=True)


class UnchangedPoll:
    """WSGI middleware: the poll of a table still at the version the phone saw gets its
    empty 200 without Flask's request machinery, which costs a poll most of its time
    (a club night is a thousand polls a second, nearly all of them unchanged). Anything
    else (another version, an unknown key, a store that fails) goes on to the app,
    which answers it as ``live`` does; so does every request of a different shape."""

    def __init__(self, app, headers: list[tuple[str, str]]):
        self.app, self.wsgi_app = app, app.wsgi_app
        self.headers = [
            ("Content-Type", "text/html; charset=utf-8"),
            ("Content-Length", "0"),
            *headers,
            ("Cache-Control", "no-store"),
            ("Vary", "Accept-Encoding"),  # as the app's (compressed when it has a body)
        ]

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if environ.get("REQUEST_METHOD") == "GET" and path.startswith("/t/"):
            key, _slash, rest = path[3:].partition("/")
            query = environ.get("QUERY_STRING", "")
            if rest == "live" and key and query.startswith("v=") and "&" not in query:
                try:
                    version = store_for(self.app.config).version_by_key(key)
                except Exception:  # the app answers it, with its own message
                    version = None
                if version is not None and query[2:] == str(version):
                    start_response("200 OK", list(self.headers))
                    return [b""]
        return self.wsgi_app(environ, start_response)


def _history_cursor() -> tuple[int, int] | None:
    """``?before=ROUND.ID``: the page of the history older than that entry."""
    raw = request.args.get("before")
    if raw is None:
        return None
    found = re.fullmatch(r"(-?\d{1,19})\.(\d{1,19})", raw)
    if found is None:
        abort(400)
    cursor = int(found.group(1)), int(found.group(2))
    if any(abs(n) > store.MAX_ROWID for n in cursor):
        abort(400)
    return cursor


@bp.get("/t/<key>/history")
def full_history(key: str):
    """Every round of the table, newest first, ``HISTORY_PAGE`` to a page, each page
    linking to the older one: a page costs the same at round 50 or 5,000."""
    table, access = load(key)
    s = get_store()
    before = _history_cursor()
    ctx = table_context(table, access)
    rows, older = s.history_page(table.id, before, HISTORY_PAGE)
    last = (rows[-1].round, rows[-1].id) if rows else before
    ctx.update(
        history=[history_row(e, ctx["players"], table.settings) for e in reversed(rows)],
        history_page=True,  # no board here: its Undo, Redo and Edit are plain requests
        history_hidden=0,
        history_total=s.tally(table.id, NON_DEAL_KINDS).history_rows,
        history_rounds=(rows[-1].round, rows[0].round) if rows else None,
        older_url=(
            url_for("tables.full_history", key=key, before=f"{last[0]}.{last[1]}")
            if older
            else None
        ),
        newest_url=url_for("tables.full_history", key=key) if before is not None else None,
    )
    later = None
    if rows and before:
        totals = {p.id: ctx["totals"][p.name] for p in ctx["players"]}
        later = s.points_after_page(table.id, rows, totals, ctx["next_round"])
    with_details(ctx, older, later)
    return render_template("tables/history.html", **ctx)


@bp.get("/t/<key>/version")
def version(key: str):
    v = get_store().version_by_key(key)
    if v is None:
        abort(404)
    return {"version": v}


# ---------------------------------------------------------------- the score pad


# what a pad field holds when nothing was typed in it (a lone sign included): 0
NOTHING_TYPED = ("", "-", "+")
DIGITS = re.compile(r"[-+]?\d+")  # a whole number, however long


def parse_points(form, players: list[store.Player]) -> tuple[dict[int, int], dict[str, str], dict]:
    """Points by player id from the pad's fields; empty means 0."""
    points: dict[int, int] = {}
    errors: dict[str, str] = {}
    raw: dict = {}
    for p in players:
        field = f"points-{p.id}"
        text = (form.get(field) or "").strip().replace("−", "-").replace(" ", "")
        raw[field] = text
        if text in NOTHING_TYPED:
            points[p.id] = 0
            continue
        try:
            value = int(text)
        except ValueError:
            if not DIGITS.fullmatch(text):
                errors[field] = _("“%(text)s” is not a whole number.", text=text[:20])
                continue
            value = None  # digits too many for int() to read: far out of range
        if value is None or not -api.MANUAL_LIMIT <= value <= api.MANUAL_LIMIT:
            errors[field] = _(
                "Points must be between %(lo)s and %(hi)s.",
                lo=messages.points(-api.MANUAL_LIMIT),
                hi=messages.points(api.MANUAL_LIMIT),
            )
            continue
        points[p.id] = value
    return points, errors, raw


def _form_int(name: str) -> int | None:
    """A number the page sent (a round, a seat, an entry id); anything else, or one
    beyond what the database can hold, is a request no page of the app makes."""
    value = request.form.get(name, "")
    try:
        number = int(value) if value != "" else None
    except ValueError:
        abort(400)
    if number is not None and abs(number) > store.MAX_ROWID:
        abort(400)
    return number


def _without_pad(table: store.Table, access: str):
    """The answer to a score pad's post on a table whose game has none (a race: nobody
    scores points), nothing stored; None when the game has the pad."""
    if catalog.game(table.game).score_pad:
        return None
    return render_board(
        table,
        access,
        409,
        error=_("Nobody scores points in this game: the table has no score pad."),
    )


@bp.post("/t/<key>/rounds")
def add_round(key: str):
    table, access = load(key, write=True)
    refused = _without_pad(table, access)
    if refused is not None:
        return refused
    s = get_store()
    players = s.players(table.id)
    submission_id = request.form.get("submission_id") or None
    if s.submission(submission_id, s.add_entry, table.id) is not None:
        return after_write(table, message=_("Already saved."))
    points, errors, raw = parse_points(request.form, players)
    supersedes = _form_int("supersedes")
    if supersedes is None and _game_is_over(s, table):
        # a pad left on a phone when a game screen or another phone ended the game
        return render_board(
            table, access, 409, error=_("The game is over. Undo its end in the history to play on.")
        )
    claimed_round = _form_int("round")  # the round the phone showed, if it said
    if claimed_round is not None and claimed_round < 1:
        abort(400)  # the pad shows round 1 or later: no page of the app sends this
    round_number = claimed_round
    if supersedes is not None:
        # an edit keeps the round of what it replaces, whatever the form says
        try:
            old = s.entry(table.id, supersedes)
        except store.NotFound:
            return render_board(table, access, 409, error=_("That round no longer exists."))
        if old.kind != MANUAL:
            # as the edit form says: a game screen's entry (a Pegs move, a deal) is
            # changed on its screen, never replaced by typed points
            return render_board(
                table, access, 409, error=_("Only a live score-pad round can be edited here.")
            )
        round_number = old.round

    def pad() -> dict:  # the pad as typed, shown again when nothing was saved
        return {
            "fields": raw,
            "supersedes": supersedes,
            "round": round_number or s.next_round(table.id),
        }

    if errors:
        return render_board(
            table,
            access,
            422,
            pad=pad(),
            pad_errors=errors,
            submission_id=submission_id or new_submission_id(),
            error=_("Nothing was saved: check the marked fields."),
        )
    if all(text in NOTHING_TYPED for text in raw.values()):
        # a stray tap on Save: a round where nobody scored is typed as 0
        return render_board(
            table,
            access,
            422,
            pad=pad(),
            submission_id=submission_id or new_submission_id(),
            error=_(
                "Nothing was saved: no points were typed (a round where nobody scored: type 0)."
            ),
        )
    names = {p.id: p.name for p in players}
    request_json = {
        "players": [p.name for p in players],
        "points": {names[i]: v for i, v in points.items() if v},
    }
    try:
        result = api.evaluate(MANUAL, request_json)
        scored = (MANUAL, request_json, result, {pid: pts for pid, pts in points.items() if pts})
        if supersedes is not None:
            outcome = s.edit_entry(
                table.id, supersedes, *scored, submission_id, round_number=round_number
            )
        else:
            outcome = s.add_entry(
                table.id,
                round_number,
                *scored,
                submission_id,
                exclusive_round=claimed_round is not None,
                no_round_gap=True,  # a form naming round 500 of a table at round 3
            )
    except RuleError as exc:
        return render_board(
            table, access, 422, pad=pad(), error=exc.message, submission_id=new_submission_id()
        )
    except store.Conflict as exc:
        return render_board(table, access, 409, error=exc.message)
    except store.RoundAhead as exc:
        round_number = None  # the pad again, at the round that may be entered
        return render_board(table, access, 422, pad=pad(), error=exc.message)
    except store.StoreError as exc:
        return render_board(table, access, 422, pad=pad(), error=exc.message)
    saved_round = outcome["round"]

    def done() -> str:
        if supersedes:
            return _("Round %(n)d changed.", n=saved_round)
        return _("Round %(n)d saved.", n=saved_round)

    return after_write(table, message=done)


@bp.get("/t/<key>/entries/<rowid:entry_id>/edit")
def edit_round(key: str, entry_id: int):
    table, access = load(key, write=True)
    refused = _without_pad(table, access)
    if refused is not None:
        return refused
    s = get_store()
    try:
        entry = s.entry(table.id, entry_id)
    except store.NotFound:
        abort(404)
    if entry.kind != MANUAL or not entry.live:
        return render_board(
            table, access, 409, error=_("Only a live score-pad round can be edited here.")
        )
    pad = {
        "fields": {f"points-{pid}": str(pts) for pid, pts in entry.points.items()},
        "supersedes": entry.id,
        "round": entry.round,
    }
    return render_board(table, access, pad=pad)


def _entry_action(key: str, entry_id: int, action: str):
    table, access = load(key, write=True)
    s = get_store()
    submission_id = request.form.get("submission_id") or None
    deal = deal_of(table.game)
    # a game's open deal kept in step with what was undone or redone, in the same write
    then = functools.partial(deals.entries_changed, deal, s, table)
    try:
        group = deal.history_group if deal is not None else None
        together = group(s, table, entry_id, action) if group is not None else []
        based = deals.check_history(deal, s, table, entry_id, submission_id, action == "undo")
        if action == "undo":
            out = s.void_entry(table.id, entry_id, submission_id, based, together, then)
        else:
            out = s.restore_entry(table.id, entry_id, submission_id, together, then, based)
    except store.NotFound:
        abort(404)
    except store.Conflict as exc:
        return render_board(table, access, 409, error=exc.message)
    # an edited round's rows undo and redo together: the edit, not the round
    edit = bool(together)
    return after_write(table, message=functools.partial(_entry_notice, s, table, out, edit))


def _entry_notice(s: store.Store, table: store.Table, out: dict, edit: bool = False) -> str:
    """What an undo or redo in the history changed: the round (a Pegs turn), or the step
    of it that other rows of the round stayed with ("Round 2: Poker prize undone."), by
    the name its row has in the history."""
    n, undone = out["round"], out["action"] == "voided"
    numbering = catalog.game(table.game).numbering  # a round, or a Pegs turn
    entry = s.entry(table.id, out["entry_id"])
    if edit or entry.supersedes is not None:  # an edit: the round as it was comes back
        return _(numbering.change_undone if undone else numbering.change_redone, n=n)
    # a retry answered from an outcome stored before outcomes said what stays: the round
    step = step_of_round(entry, out["stays"], table.settings) if "stays" in out else None
    if step is None:
        return _(numbering.undone if undone else numbering.restored, n=n)
    heading = _(numbering.heading, n=n) if n else _("Set-up")
    if undone:
        # Translators: a notice; round: "Round 2" (or "Set-up"), step: the history's
        # name for the entry undone ("Poker prize", "Move"), as its row shows it
        return _("%(round)s: %(step)s undone.", round=heading, step=_(step))
    # Translators: as "%(round)s: %(step)s undone.", for an entry redone
    return _("%(round)s: %(step)s restored.", round=heading, step=_(step))


@bp.post("/t/<key>/entries/<rowid:entry_id>/undo")
def undo(key: str, entry_id: int):
    return _entry_action(key, entry_id, "undo")


@bp.post("/t/<key>/entries/<rowid:entry_id>/redo")
def redo(key: str, entry_id: int):
    return _entry_action(key, entry_id, "redo")


def _game_is_over(s: store.Store, table: store.Table) -> bool:
    return summarize(s, table, history_rows=0).standings.finished


@bp.post("/t/<key>/end")
def end_game(key: str):
    """The players close the game (Vežimas, or Kvanta's burned cards reached)."""
    table, access = load(key, write=True)
    game = catalog.GAMES[table.game]
    if not game.players_end:  # the page offers no "End the game": its rules end it
        error = _(
            "%(game)s ends by its own rules: its tables offer no “End the game”.",
            game=Text(game.name),
        )
        return render_board(table, access, 409, error=error)
    s = get_store()
    submission_id = request.form.get("submission_id") or None
    if s.submission(submission_id, s.add_entry, table.id) is None and _game_is_over(s, table):
        # "End the game" left on a phone when a game screen or another phone ended it:
        # not a round entered elsewhere, as the store's refusal would say
        return render_board(table, access, 409, error=_("The game is over."))
    try:
        s.add_entry(
            table.id,
            # in the last round played: ending is no round of its own, so the round
            # number stays (and comes back as it was when the end is undone)
            max(s.next_round(table.id) - 1, 1),
            "game-end",
            {},
            {},
            {},
            submission_id=submission_id,
            exclusive_round=True,
        )
    except store.StoreError as exc:
        return render_board(table, access, 409, error=exc.message)
    return after_write(
        table, message=_("The game is over. Undo it from the history if that was a slip.")
    )


# ---------------------------------------------------------------- players


@bp.post("/t/<key>/players/<rowid:player_id>/name")
def rename(key: str, player_id: int):
    table, access = load(key, write=True)
    name = (request.form.get("name") or "").strip()
    if not 0 < len(validate.without_invisible(name).strip()) <= MAX_NAME:
        return render_board(
            table, access, 422, error=_("A name needs 1 to %(n)d characters.", n=MAX_NAME)
        )
    try:
        name = store.clean_player_names([name])[0]
    except store.StoreError as exc:
        return render_board(table, access, 422, error=exc.message)
    try:
        # setting a name is safe to repeat, so it needs no submission id: a second
        # rename from the same page must not be taken for a retry of the first
        deal = deal_of(table.game)
        get_store().rename_player(
            table.id, player_id, name, rename_in_draft=deal and deal.rename_in_draft
        )
    except store.NotFound:
        abort(404)
    except store.StoreError as exc:
        return render_board(table, access, 422, error=exc.message)
    # the name quoted: its own last mark ("Bob!") is not run into the sentence's period
    return after_write(table, message=_("Renamed to “%(name)s”.", name=name))


@bp.post("/t/<key>/players/<rowid:player_id>/move")
def move_player(key: str, player_id: int):
    table, access = load(key, write=True)
    s = get_store()
    order = [p.id for p in s.players(table.id)]
    if player_id not in order:
        abort(404)
    # the form names the seat to move to, so a retried tap moves nobody twice
    seat = _form_int("seat")
    if seat is None or not 0 <= seat < len(order):
        return render_board(table, access, 422, error=_("Choose a seat at this table."))
    order.remove(player_id)
    order.insert(seat, player_id)
    try:
        s.reorder_players(table.id, order)
    except store.StoreError as exc:
        return render_board(table, access, 409, error=exc.message)
    return after_write(table)


@bp.post("/t/<key>/rematch")
def rematch(key: str):
    table, _access = load(key, write=True)
    s = get_store()
    names = [p.name for p in s.players(table.id)]
    # the deal passes on: whoever was to deal next deals the rematch's first deal
    next_dealer = summarize(s, table, history_rows=0).standings.dealer
    settings = rematch_settings(table.settings, names, next_dealer)
    outcome = s.rematch(
        table.id,
        request.form.get("submission_id") or None,
        settings,
        usual_name=usual_table_name(catalog.GAMES[table.game], table.language),
    )
    url = url_for("tables.table_page", key=outcome["scorer_key"])
    if wants_partial():
        response = Response(status=204)
        response.headers["HX-Redirect"] = url
        return response
    return see_other(url)


# ---------------------------------------------------------------- export


@bp.get("/t/<key>/export.json")
def export_json(key: str):
    table, _access = load(key, write=True)
    body = json.dumps(get_store().export_table(table.id), ensure_ascii=False, indent=2)
    response = Response(body, mimetype="application/json")
    response.headers["Content-Disposition"] = f'attachment; filename="table-{table.id}.json"'
    return response


@bp.get("/t/<key>/export.csv")
def export_csv(key: str):
    table, _access = load(key, write=True)
    response = Response(history_csv(get_store(), table), mimetype="text/csv")
    response.headers["Content-Disposition"] = f'attachment; filename="table-{table.id}.csv"'
    return response


@bp.get("/manifest.webmanifest")
def manifest():
    body = {
        "name": "Scorekeeper",
        "short_name": "Scorekeeper",
        "start_url": "/",
        "display": "standalone",
        "background_color": "#14532d",
        "theme_color": "#14532d",
        "icons": [
            {
                "src": url_for("static", filename="icons/icon-192.png"),
                "sizes": "192x192",
                "type": "image/png",
            },
            {
                "src": url_for("static", filename="icons/icon-512.png"),
                "sizes": "512x512",
                "type": "image/png",
            },
            {
                "src": url_for("static", filename="icons/icon.svg"),
                "sizes": "any",
                "type": "image/svg+xml",
            },
        ],
    }
    return Response(json.dumps(body), mimetype="application/manifest+json")
