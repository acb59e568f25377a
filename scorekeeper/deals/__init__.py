"""A table's deal in progress and the entries it stands for, with no Flask: the one
mechanism every game's screen, and anything else that changes a deal, goes through.

A deal is a draft's log of taps (``{"taps", "undone", "context"}``), replayed by its
game's play state (``scorekeeper.games.play``). A game declares its :class:`Deal` in
``scorekeeper/deals/<game>.py`` (:func:`declare`): the context a new deal begins with,
the taps a saved entry reopens with, what the log stands for in the history while it is
open (Cowboy's marriages, Kvanta's steps) and the message once it is saved. Here:

- a tap added to the log inside the write lock, a replayed id once (:func:`tap`), its
  undo and redo (:func:`undo_or_redo`), with the entries it stands for in the same write
  (:func:`with_entries`);
- the log closed into its entry by the one save-into-entry helper (:func:`save`,
  :func:`close_at_once`, :func:`save_into_entry`), reopened (:func:`reopen`) and dropped
  (:func:`discard`);
- the states replayed, kept by everything they are made from (:func:`state_of`).

Every refusal is a :class:`Refusal` (message, field, status), nothing stored.
"""

from __future__ import annotations

import json
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from .. import api, store
from ..cards import symbols
from ..errors import RuleError
from ..games import catalog
from ..games.play import Refused, Tap, replay, state_type
from ..messages import gettext as _
from ..store.base import DRAFT_READS, NEW_ENTRY_READS, action_of
from ..summary import summarize


class Refusal(Exception):
    """A change of a deal that is refused, with nothing stored: the message for the
    player, the field it is about, and its HTTP status (422: it cannot be; 409: the phone
    showed another state of the table, and ``notice`` shows the message as news, not a
    fault)."""

    def __init__(self, message: str, field: str = "", status: int = 422, notice: bool = False):
        message = symbols(message)  # a state's refusal names its cards by code
        super().__init__(message)
        self.message, self.field, self.status, self.notice = message, field, status, notice

    @classmethod
    def of(cls, exc: Exception) -> Refusal:
        """The refusal of a state's, an engine's or the store's exception."""
        if isinstance(exc, Refusal):
            return exc
        if isinstance(exc, RuleError):  # Refused included: a tap the state cannot take
            return cls(exc.message, exc.path)
        if isinstance(exc, store.ReusedSubmission):  # a tampered form: as the store says
            return cls(exc.message, "submission_id")
        if isinstance(exc, store.StoreError):  # Conflict, DraftChanged: another phone
            return cls(exc.message, status=409, notice=isinstance(exc, store.Conflict))
        raise exc


def stale_notice() -> str:
    return _(
        "This deal changed a moment ago (another phone, or a double tap); "
        "here it is as it stands now. Nothing else was changed."
    )


def game_over() -> Refusal:
    return Refusal(_("The game is over."), status=409)


@dataclass(frozen=True)
class Deal:
    """What a game declares of its deal (the hooks are its deal module's functions).

    ``new_deal(store, table, summary)``: the context of a deal begun now (its
    ``players`` in seat order, ``round``, and what the panel shows of it); raises
    Refusal when none may begin (the game is over).
    ``edit_context(store, table, entry)``: the context of a saved entry reopened; its
    ``first_taps``, when given, go before the entry's own (Vežimas' trumps it was
    played on, once the session's are undone).
    ``rebuild(table, context, entry)``: a tap log for an entry saved without one.
    ``saved(store, table, context, outcome)``: the message once the deal is saved.
    ``upgrade(table, data, context)``: the taps of a draft stored in an older shape.
    ``seed(table, context)``: the taps a new deal's log begins with (what is already
    stored of it, e.g. Cowboy's marriages after its closed deal was undone).
    ``after_tap(store, table, log, action)``: after a tap of ``action`` was added, taken
    back or put back (or retried), the entries the open deal stands for before it closes
    are kept in step with its log (Cowboy's marriages count at once); True when it wrote
    one. It runs inside the write that changes the log (the store's writes it makes join
    it), so the tap and its entries are stored together or not at all; for a retry,
    after it.
    ``replaces(store, table, context)``: those entries, which the saved deal takes over
    in the same write (it carries them itself); undoing it brings them back.
    ``reopens(entry)``: for a deal saved as entries of several kinds (a Kvanta round),
    whether Edit reopens it from this entry (the one that holds its tap log); without
    it, Edit reopens the entries of ``kind``.
    ``rename_in_draft(data, old, new)``: the draft with a player renamed, where it names
    players (taps name seats).
    ``history_group(store, table, entry_id, action)``: the entries an undo or redo of
    ``entry_id`` in the history takes with it (an edited Kvanta round).
    ``closed_already(store, table, tap)``: whether a tap sent again (its answer lost) is
    the one that closed the deal and was stored with it (a Kvanta settle that completed
    its round): it is answered as saved, never begun again on a new deal.
    ``tap_submission(tap)``: the submission id of the entry a tap may store as it is
    made (a Cowboy marriage, a Kvanta step), read with the table under the tap's write
    lock, or None.
    ``refused_taps``: (action, msgid) of taps no phone may send, and why (Kvanta's dice:
    only the server rolls them, through the game's own route).
    ``own_rounds``: (kind, round) of the entries a deal saves into a round of their own,
    whatever its round (Kvanta's first dealer draw: the game's set-up, before round 1).

    A deal closed by one tap (a Pegs move: one entry per move, no Save tap): ``closes``
    names those taps' actions; ``closing(state)`` what the state after one stores (by
    default its ``to_json()["closing"]``); ``may_edit(store, table, entry)`` raises
    Refusal for a saved entry that may not be reopened (a move the board has moved on
    from), ``may_undo`` raises store.Conflict for one the history may not undo (the
    same: only the last board may be taken back), ``may_redo`` for one it may not bring
    back (a move played on a board changed since); ``entries_changed(store, table)``
    keeps the open deal in step after an undo or redo in the history (a deal begun on a
    board that is no longer is dropped)."""

    game: str
    draft: str
    kind: str
    new_deal: Callable[..., dict]
    edit_context: Callable[..., dict]
    rebuild: Callable[[store.Table, dict, store.Entry], list[dict]]
    saved: Callable[..., str]
    upgrade: Callable[[store.Table, dict, dict], list[dict]] | None = None
    seed: Callable[[store.Table, dict], list[dict]] | None = None
    after_tap: Callable[[store.Store, store.Table, store.TapLog, str], bool] | None = None
    replaces: Callable[[store.Store, store.Table, dict], tuple[int, ...]] | None = None
    reopens: Callable[[store.Entry], bool] | None = None
    rename_in_draft: Callable[[dict, str, str], dict] | None = None
    history_group: Callable[..., list[int]] | None = None
    closed_already: Callable[[store.Store, store.Table, Tap], bool] | None = None
    tap_submission: Callable[[Tap], str | None] | None = None
    refused_taps: tuple[tuple[str, str], ...] = ()
    own_rounds: tuple[tuple[str, int], ...] = ()
    closes: tuple[str, ...] = ()
    closing: Callable[[Any], dict | list[dict] | None] | None = None
    may_edit: Callable[[store.Store, store.Table, store.Entry], None] | None = None
    may_undo: Callable[[store.Store, store.Table, store.Entry], None] | None = None
    may_redo: Callable[[store.Store, store.Table, store.Entry], None] | None = None
    entries_changed: Callable[[store.Store, store.Table], None] | None = None


DEALS: dict[str, Deal] = {}


def declare(module: str, **declared) -> Deal:
    """Declare a game's deal: each hook (``new_deal`` … ``entries_changed``) is the
    function of that name in ``module``, defined before this call, unless ``declared``
    gives another; ``declared`` gives the rest (``game``, ``draft``, ``kind``, ``closes``)."""
    found = vars(sys.modules[module])
    hooks = {
        f.name: found[f.name]
        for f in fields(Deal)
        if f.name not in declared and callable(found.get(f.name))
    }
    deal = Deal(**{**hooks, **declared})
    DEALS[deal.game] = deal
    return deal


def settings_of(table: store.Table) -> dict:
    """The table's settings that its game's play state takes (the catalog's own)."""
    return {
        s.key: table.settings[s.key]
        for s in catalog.game(table.game).settings
        if s.key in table.settings
    }


def deal_settings(table: store.Table, data: dict) -> dict:
    """The settings a draft's play state starts from: the table's, and what its context
    says the deal knows from the session (``context["settings"]``, e.g. its dealer)."""
    return {**settings_of(table), **data["context"].get("settings", {})}


def record(
    s: store.Store,
    table: store.Table,
    kind: str,
    request_json: dict,
    round_number: int,
    submission_id: str | None = None,
    close_draft: str | None = None,
    exclusive: bool = True,
    based_on_draft: tuple[str, int] | None = None,
) -> dict:
    """Score a request with its engine and store it as one entry (``close_draft``: the
    draft it ends; ``based_on_draft``: see ``Store.add_entry``). Raises RuleError (the
    engine refuses: nothing stored) or store.Conflict."""
    result = api.evaluate(kind, request_json)
    return s.add_entry(
        table.id,
        round_number,
        kind,
        request_json,
        result,
        _points_by_id(s, table, kind, result),
        submission_id,
        exclusive_round=exclusive,
        close_draft=close_draft,
        based_on_draft=based_on_draft,
    )


def _points_by_id(s: store.Store, table: store.Table, kind: str, result: dict) -> dict:
    ids = {p.name: p.id for p in s.players(table.id)}
    return {
        ids[name]: pts for name, pts in api.points_of(kind, result).items() if pts and name in ids
    }


# ---------------------------------------------------------------- states, replayed once

# Replayed states, by everything they are made from (the game, the table, its players
# and settings, every tap): a state type is immutable, so one made for the last answer
# is the start of the next tap's, and a tap replays one tap, not the whole deal.
_states: OrderedDict[str, Any] = OrderedDict()
_states_lock = threading.Lock()
STATES_KEPT = 128


def _state_key(deal: Deal, table: store.Table, data: dict, taps: list) -> str:
    made_of = [deal.game, table.scorer_key, data["context"]["players"], deal_settings(table, data)]
    return json.dumps([*made_of, taps], separators=(",", ":"), sort_keys=True)


def _kept_state(key: str):
    with _states_lock:
        found = _states.get(key)
        if found is not None:
            _states.move_to_end(key)
        return found


def _keep_state(key: str, state) -> None:
    with _states_lock:
        _states[key] = state
        while len(_states) > STATES_KEPT:
            _states.popitem(last=False)


def state_of(deal: Deal, table: store.Table, data: dict):
    """The play state a draft's log replays to (Refused when a tap no longer fits)."""
    taps = data["taps"]
    key = _state_key(deal, table, data, taps)
    state = _kept_state(key)
    if state is None:
        before = _kept_state(_state_key(deal, table, data, taps[:-1])) if taps else None
        if before is not None:
            state = replay(before, taps[-1:], path=f"taps[{len(taps) - 1}]")
        else:
            start = state_type(deal.game).start(
                data["context"]["players"], deal_settings(table, data)
            )
            state = replay(start, taps)
        _keep_state(key, state)
    return state


def shown(deal: Deal, table: store.Table, data: dict) -> tuple[dict, Any]:
    """A draft's log and its state as a screen shows them: of a damaged draft, its
    valid part."""
    try:
        return data, state_of(deal, table, data)
    except Refused:
        taps = list(data["taps"])
        while taps:
            taps.pop()
            try:
                return {**data, "taps": taps}, state_of(deal, table, {**data, "taps": taps})
            except Refused:
                continue
        return {**data, "taps": []}, state_of(deal, table, {**data, "taps": []})


# ---------------------------------------------------------------- a deal begun

# New deals' contexts, by the table's state they were made from (its file, row, key
# and version): the answer or page that showed a deal not begun made it, so the tap
# that begins it (which reads the version under the write lock) need not read it all
# again. A version names one state of the table, so a context found is never stale:
# one is kept only when all it was made from was read at that version.
_contexts: OrderedDict[tuple, str] = OrderedDict()
_contexts_lock = threading.Lock()
CONTEXTS_KEPT = 128


def new_deal(deal: Deal, s: store.Store, table: store.Table, summary=None) -> dict:
    """``deal.new_deal``, made once per state of the table."""
    version = s.known_version(table.id)
    if version is None:
        return deal.new_deal(s, table, summary)
    if summary is not None and summary.table.version != version:
        # the summary was read before a write that came between it and the request's
        # latest read (a save by another phone: the draft read after it is closed): the
        # context is made from the table as it stands now, and not kept as the state's
        return deal.new_deal(s, table, None)
    key = (s.file, table.id, table.scorer_key, version, deal.game)
    with _contexts_lock:
        found = _contexts.get(key)
        if found is not None:
            _contexts.move_to_end(key)
    if found is not None:
        return json.loads(found)  # a copy of its own: the caller may add to it
    made = json.dumps(deal.new_deal(s, table, summary))
    with _contexts_lock:
        _contexts[key] = made
        while len(_contexts) > CONTEXTS_KEPT:
            _contexts.popitem(last=False)
    return json.loads(made)  # as a hit gives it, and as the deal's log stores it


def begin(deal: Deal, s: store.Store, table: store.Table, old: dict | None, summary=None) -> dict:
    """A new deal's log (or an old-shape draft's, upgraded): its context and first taps."""
    context = new_deal(deal, s, table, summary)
    if old and deal.upgrade:
        taps = deal.upgrade(table, old, context)
    else:
        taps = deal.seed(table, context) if deal.seed else []
    return {"taps": taps, "undone": [], "context": context}


def log_data(deal: Deal, s: store.Store, table: store.Table, log: store.TapLog, summary=None):
    """A draft's log as stored, or the log of a deal not begun (no draft yet)."""
    if log.data is None or "context" not in log.data:
        return begin(deal, s, table, log.data, summary)
    return log.data


# ---------------------------------------------------------------- taps


def _tap_action(data: dict | None, tap_id: str) -> str | None:
    for tap in [*(data or {}).get("taps", []), *(data or {}).get("undone", [])]:
        if tap.get("id") == tap_id:
            return tap.get("action")
    return None


def after_tap(deal: Deal, s: store.Store, table: store.Table, log, tap_id: str) -> bool:
    """The game's ``after_tap``; True when it wrote entries (the totals changed)."""
    action = _tap_action(log.data, tap_id)
    if deal.after_tap is None or action is None:
        return False
    return deal.after_tap(s, table, log, action)


def with_entries(
    change: Callable[[Callable[[store.TapLog], None]], store.TapLog],
    entries: Callable[[store.TapLog], bool],
) -> tuple[store.TapLog, bool]:
    """A change of a deal's log (``change(then)``: an append, undo or redo) with what the
    log then stands for (``entries(log)``, True when it wrote some) in the same write; a
    retry, which changes no log, keeps them in step after it. Returns the log and
    whether entries were written."""
    wrote: list[bool] = []
    log = change(lambda new: wrote.append(entries(new)))
    if not log.changed:
        wrote.append(entries(log))
    return log, any(wrote)


def tap(deal: Deal, s: store.Store, table: store.Table, made: Tap, seen_round: int):
    """One tap added to the deal's log inside the write lock (a replayed id once), with
    the entries the log then stands for in the same write. Returns the log, whether it
    wrote entries, and the state after the tap (None for a retry); store.Replayed for a
    tap that closed the deal, sent again."""
    for action, why in deal.refused_taps:
        if made.action == action:
            raise Refusal(_(why), "tap")
    if deal.closed_already is not None and deal.closed_already(s, table, made):
        raise store.Replayed({})
    after: dict = {}

    def check(data: dict) -> None:
        if data["context"].get("round") != seen_round:
            raise Refusal(stale_notice(), status=409, notice=True)
        before = state_of(deal, table, {**data, "taps": data["taps"][:-1]})
        after["state"] = replay(before, data["taps"][-1:], path="tap")
        if after["state"] is before:  # already so (a retry under a new id): not logged
            raise store.Unchanged
        _keep_state(_state_key(deal, table, data, data["taps"]), after["state"])

    log, wrote = with_entries(
        lambda then: s.append_tap(
            table.id,
            deal.draft,
            made.to_json(),
            check,
            lambda old: begin(deal, s, table, old),
            then,
        ),
        lambda new: after_tap(deal, s, table, new, made.id),
    )
    return log, wrote, after.get("state")


def undo_or_redo(deal: Deal, s: store.Store, table: store.Table, which: str, tap_id: str):
    """Take back (``undo``) or put back (``redo``) the tap ``tap_id`` names (the last
    one); a retry changes nothing. Returns the log and whether it wrote entries."""
    if not tap_id:
        raise Refusal(
            _("There is nothing to undo.") if which == "undo" else _("There is nothing to redo.")
        )
    change = s.undo_tap if which == "undo" else s.redo_tap
    return with_entries(
        lambda then: change(table.id, deal.draft, tap_id, then),
        lambda new: after_tap(deal, s, table, new, tap_id),
    )


# ---------------------------------------------------------------- closing a deal


def save_into_entry(
    s: store.Store,
    table: store.Table,
    deal: Deal,
    closing: dict | list[dict],
    draft_version: int,
    submission_id,
) -> dict:
    """The one save-into-entry helper: the closing request scored by its engine and
    stored with the draft's tap log, the draft closed in the same transaction. A
    closing that is a list (a Kvanta round's several scores) is one entry each, in
    one round. A closing that carries its own ``result`` is of a kind no engine scores
    (a Pegs correction or discard: the board as it stands): stored as made, no points."""
    closings = closing if isinstance(closing, list) else [closing]
    context = (s.tap_log(table.id, deal.draft).data or {}).get("context") or {}
    taken = deal.replaces(s, table, context) if deal.replaces else ()
    scored = []
    own = dict(deal.own_rounds)
    # the deal's own round first: the first entry holds the log and names the round
    for one in sorted(closings, key=lambda one: one["kind"] in own):
        kind, request_json = one["kind"], one["request"]
        if "result" in one and "points" not in one:  # a step with points is scored again
            scored.append((kind, request_json, one["result"], {}, own.get(kind)))
            continue
        result = api.evaluate(kind, request_json)
        points = _points_by_id(s, table, kind, result)
        scored.append((kind, request_json, result, points, own.get(kind)))
    scored[0] = scored[0][:4]
    return s.close_draft_into_entry(
        table.id,
        deal.draft,
        *scored[0],
        draft_version=draft_version,
        submission_id=submission_id,
        replaces=taken,
        also=scored[1:],
    )


def save(
    deal: Deal,
    s: store.Store,
    table: store.Table,
    submission_id: str | None,
    seen_version: int | None,
    seen_round: int | None,
) -> str:
    """Close the deal the phone showed (its draft version and round) into its entry
    (superseding the one reopened, for an edit); the message once saved (a retry: as
    saved)."""
    if s.submission(submission_id, s.close_draft_into_entry, table.id) is not None:
        return _("Already saved.")
    if seen_version is None or seen_round is None:
        raise Refusal(_("This tap came without its deal; reload the page."))
    log = s.tap_log(table.id, deal.draft)
    if log.data is None or "context" not in log.data:
        raise Refusal(_("The deal is not finished yet: nothing was saved."))
    context = log.data["context"]
    if log.version != seen_version or context.get("round") != seen_round:
        raise Refusal(stale_notice(), status=409, notice=True)
    if context.get("supersedes") is None and summarize(s, table).standings.finished:
        raise Refusal(_("The game is over."), status=409)
    closing = state_of(deal, table, log.data).to_json()["closing"]
    if not closing:
        raise Refusal(_("The deal is not finished yet: nothing was saved."))
    outcome = save_into_entry(s, table, deal, closing, log.version, submission_id)
    return deal.saved(s, table, context, outcome)


def close_at_once(
    deal: Deal, s: store.Store, table: store.Table, made: Tap, seen_version: int, seen_round: int
) -> str:
    """A tap that closes the deal at once (``Deal.closes``): replayed on the log the phone
    showed and, when the state takes it, the log closed into its entry in one write by
    the one save-into-entry helper (the tap's id is the submission's, so a tap sent
    again is saved once: store.Replayed). The log stored with the entry is the deal's
    taps before it: reopened (Edit, or an undo), the deal is back as it was when this
    tap was made. Returns the message once saved."""
    # one write: the tap's id checked under its lock, the log (begun, when the tap is
    # the deal's first) and its entry
    with s.write(
        table.id,
        made.id,
        action_of(s.close_draft_into_entry),
        touches=NEW_ENTRY_READS | DRAFT_READS,
        closes=deal.draft,
    ):
        log = s.tap_log(table.id, deal.draft)
        begun = log.data is not None and "context" in log.data
        data = log.data if begun else begin(deal, s, table, log.data)
        if data["context"].get("round") != seen_round or log.version != seen_version:
            raise Refusal(stale_notice(), status=409, notice=True)
        after = replay(state_of(deal, table, data), [made.to_json()], path="tap")
        closing = deal.closing(after) if deal.closing else after.to_json()["closing"]
        if not closing:
            raise Refusal(_("The deal is not finished yet: nothing was saved."))
        version = log.version
        if not begun:  # nothing tapped before it: the deal's log first, then closed
            version = s.save_draft(table.id, deal.draft, data, expected_version=version)
        outcome = save_into_entry(s, table, deal, closing, version, made.id)
    return deal.saved(s, table, data["context"], {**outcome, "state": after})


def reopen(deal: Deal, s: store.Store, table: store.Table, entry_id: int) -> int:
    """Edit: a saved entry's tap log back on the deal, every card as it was; the round
    it reopens (store.NotFound: no such entry)."""
    entry = s.entry(table.id, entry_id)
    if deal.may_edit is not None:
        deal.may_edit(s, table, entry)
    s.reopen_entry(
        table.id,
        deal.draft,
        entry_id,
        entry.kind if deal.reopens is not None and deal.reopens(entry) else deal.kind,
        lambda e: deal.rebuild(table, deal.edit_context(s, table, e), e),
        deal.edit_context(s, table, entry),
    )
    return entry.round


def discard(deal: Deal, s: store.Store, table: store.Table, version: int | None) -> None:
    """Give up an edit (or a deal begun): the draft is dropped, the saved entry stays."""
    if version is None:
        raise Refusal(_("This tap came without its deal; reload the page."))
    s.discard_draft(table.id, deal.draft, version)


# ---------------------------------------------------------------- the history's undo


def check_history(
    deal: Deal | None, s: store.Store, table: store.Table, entry_id: int, submission_id, undo: bool
) -> int | None:
    """Before an undo (``undo``) or a redo in the history: the game's ``may_undo`` or
    ``may_redo`` (raises store.Conflict), and the table version the change is then based
    on (None: no check), so that a move another phone saves meanwhile is never left on a
    board that the undo takes back, nor jumped by a move the redo brings back."""
    may = None if deal is None else deal.may_undo if undo else deal.may_redo
    if may is None:
        return None
    write = s.void_entry if undo else s.restore_entry
    if s.submission(submission_id, write, table.id) is not None:
        return None  # a retry: answered as the first time
    try:
        entry = s.entry(table.id, entry_id)
    except store.NotFound:
        return None
    if entry.live == undo:
        may(s, table, entry)
    return table.version


def entries_changed(deal: Deal | None, s: store.Store, table: store.Table) -> None:
    """After an undo or redo in the history: the game's ``entries_changed``, if any."""
    if deal is not None and deal.entries_changed is not None:
        deal.entries_changed(s, table)


__all__ = [
    "DEALS", "Deal", "Refusal", "begin", "check_history", "close_at_once", "deal_settings",
    "declare", "discard", "entries_changed", "game_over", "log_data", "new_deal", "record",
    "reopen", "save", "save_into_entry", "settings_of", "shown", "stale_notice", "state_of",
    "tap", "undo_or_redo", "with_entries",
]  # fmt: skip
