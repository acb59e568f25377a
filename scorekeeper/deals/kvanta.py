"""The Kvanta round (RULES.md §3): one log of taps, from the dealer draw (round 1) and
the burned cards (K-D9) to the poker prize or the end of the game. What may be tapped,
whose roll it is, the phases and every score come from the play state
(``scorekeeper.games.play.kvanta``, PLAY.md) and the engines.

A round scores in steps, each its own entry of the round as soon as its tap is made
(the dealer draw in round 0, Hand, each Flux, the call, the poker): after a tap, its
undo or its redo, the round's entries are kept in step with the log (``sync_steps``,
in the same write as the log: both are stored or neither), each stored under its tap's
id, so a retried tap stores it once and undoing the tap takes it back. Undoing a step
in the history takes its tap back out of the log (``reconcile``), so the step is open
again with what was typed. The step that completes the round closes its draft into an
entry that keeps the round's log (its undo brings the round back on the screen; Edit
reopens it, see ``kvanta_edit``); the game's end is an entry of its own.

Dice are rolled on the server (:func:`roll`): the tap is checked first, the roll stored
the moment it is made (``add_roll``, under the tap's id), then the tap goes into the log
carrying the dice (the server's roll, or the faces of physical dice chosen on the phone).
"""

from __future__ import annotations

from collections.abc import Callable

from .. import deals, dice, store
from ..errors import RuleError
from ..games.play import Refused, Tap
from ..games.play.kvanta import KvantaRound
from ..messages import N_, Text
from ..messages import gettext as _
from ..store.base import DRAFT_READS, NEW_ENTRY_READS, ROLL_READS, action_of
from ..summary import TableSummary, summarize
from . import kvanta_edit
from .kvanta_edit import SETUP_ROUND, SID, STEP_KINDS, STEP_TAPS, stored
from .kvanta_edit import edit_context as edit_context
from .kvanta_edit import history_group as history_group
from .kvanta_edit import rename_in_draft as rename_in_draft
from .kvanta_edit import reopens as reopens
from .kvanta_edit import replaces as replaces
from .kvanta_edit import step_sid as _sid

# a roll writes its dice, its tap and what the tap scores
ROLL_TAP_READS = ROLL_READS | DRAFT_READS | NEW_ENTRY_READS

TARGET_ROLL = "kvanta-target"
EXCHANGE_ROLL = "kvanta-exchange"
ROLL_KINDS = {"roll": TARGET_ROLL, "reroll": TARGET_ROLL, "exchange": EXCHANGE_ROLL}
DRAFT = "kvanta-round"
GAME_DRAFT = "kvanta-game"  # K-D9: the burned cards, set once per game
# a round's context says it closes into its own number, as one reopened does (the
# store's ``reopened``): its steps are stored in it as it is played
OWN_ROUND = 0


def burn_is_asked(summary: TableSummary) -> bool:
    """K-D9: the burned cards are set once per game, until its first deal is scored."""
    return summary.progress.deals_played == 0


def new_deal(s: store.Store, table: store.Table, summary: TableSummary | None) -> dict:
    """A round begun now: its players, number, the rolls before it, and what it knows
    of the game (``settings``: its dealer, whether the cards were burned, the totals)."""
    summary = summary or summarize(s, table)
    if summary.standings.finished:
        raise deals.game_over()
    round_number = max(s.next_round(table.id), 1)
    dealer = summary.standings.dealer
    settings: dict = {"burned": not burn_is_asked(summary), "totals": dict(summary.totals)}
    if dealer is not None:
        settings.update(round=round_number, dealer=dealer)
    game, _version = s.draft(table.id, GAME_DRAFT)
    context = {
        "players": list(summary.names),
        "round": round_number,
        "settings": settings,
        "since_roll": s.last_roll_id(table.id),
        "reopened": OWN_ROUND,
        # K-D9: the game's burned cards as the round begins (its screen shows them on
        # every tap's answer, with no read of its own)
        "game_burn": (game or {}).get("burn"),
    }
    old, _version = s.draft(table.id, DRAFT)
    if isinstance(old, dict) and "context" not in old:  # a round of the older screen
        context["round"] = old.get("round") if isinstance(old.get("round"), int) else 1
        since = old.get("since_roll") if isinstance(old.get("since_roll"), int) else 0
        context["since_roll"] = since
        context["old_rolls"] = [
            {"kind": r["kind"], "dice": r["dice"], "physical": r["physical"]}
            for r in s.rolls(table.id, after=since)
        ]
    # how many dice the table rolled before this round: rolls are only ever added, so
    # counted once as it begins (its screen lists the latest of them)
    since = context["since_roll"]
    context["earlier_rolls"] = s.roll_count(table.id, up_to=since) if since else 0
    return context


class _Log:
    """Taps made up from stored data (an older screen's round), each applied as it is
    logged; one that does not fit is left out (what fits is kept)."""

    def __init__(self, table: store.Table, context: dict, prefix: str):
        self.state = KvantaRound.start(
            context["players"], deals.deal_settings(table, {"context": context})
        )
        self.taps: list[dict] = []
        self.prefix = prefix

    def add(self, action: str, **args) -> bool:
        tap = {"id": f"{self.prefix}{len(self.taps)}", "action": action, **args}
        try:
            self.state = self.state.apply(Tap.from_json(tap))
        except (RuleError, KeyError, TypeError, ValueError):
            return False
        self.taps.append(tap)
        return True


def upgrade(table: store.Table, data: dict, context: dict) -> list[dict]:
    """The taps of a round the older screen stored (a draft of its phase and typed
    slots): the dealer draw, the burned and turned cards, the target rolls, and up to
    the tricks' first exchange die. Steps it had scored are not made again."""
    log = _Log(table, context, "u")
    seat = {name: i for i, name in enumerate(context["players"])}
    slots = data.get("slots") if isinstance(data.get("slots"), dict) else {}
    draws = ((slots.get("dealer") or {}).get("cards")) or {}
    for name, cards in draws.items() if isinstance(draws, dict) else ():
        if name in seat and cards:
            log.add("draw", seat=seat[name], card=cards[0])
    dealer = log.state.dealer
    if data.get("burn") is not None:
        log.add("burn", seat=dealer, count=data["burn"])
    if data.get("trump"):
        log.add("turn", seat=dealer, card=data["trump"])
    targets = [r for r in context.get("old_rolls", ()) if r["kind"] == TARGET_ROLL]
    for k, roll in enumerate(targets):
        args = {"dice": roll["dice"], "physical": roll["physical"]}
        if k == 0:
            log.add("roll", seat=log.state.roller, **args)
        else:
            log.add("reroll", seat=log.state.roller, seen=k, **args)
    if data.get("phase") in ("tricks", "call") and log.add("no-hand"):
        winner = data.get("trick_winner")
        if winner in seat:
            log.add("trick-winner", seat=seat[winner])
            exchange = data.get("exchange") or {}
            if exchange.get("die") and not exchange.get("flux"):  # a Flux was scored
                log.add("exchange", seat=seat[winner], die=exchange["die"])
    return log.taps


def rebuild(table: store.Table, context: dict, entry: store.Entry) -> list[dict]:
    return []  # a round without its log is never reopened (edit_context refuses it)


def saved(s: store.Store, table: store.Table, context: dict, outcome: dict) -> str:
    n = outcome.get("round") or context.get("round")
    if outcome.get("supersedes") is not None:
        return _("Round %(n)d changed.", n=n)
    return _("Round %(n)d saved.", n=n)


def _stored_steps(
    s: store.Store, table: store.Table, context: dict
) -> tuple[dict[str, store.Entry], Callable[[int], bool]]:
    """The entries stored for this round's steps (undone ones too), by submission id, as
    the table's recent entries hold them; and whether those hold every entry of a round
    (one of the table's latest rounds: else a step of it is looked up by its id)."""
    rounds = {context["round"], SETUP_ROUND}
    recent = s.recent_entries(table.id, kinds=STEP_KINDS)
    latest = max((e.round for e in recent), default=0)
    window = [e for e in recent if e.round > latest - store.RECENT_ROUNDS]
    whole = len(window) < store.RECENT_ENTRIES

    def holds(round_number: int) -> bool:
        return whole and round_number > latest - store.RECENT_ROUNDS

    steps = {
        e.submission_id: e
        for e in recent
        if e.round in rounds and (e.submission_id or "").startswith(SID)
    }
    return steps, holds


def sync_steps(s: store.Store, table: store.Table, log: store.TapLog, action: str) -> bool:
    """After a tap that may score (or its undo, redo or retry): every step of the log
    is an entry of the round, under its tap's id; a step whose tap was taken back is
    undone, and one put back (redone) counts again. The complete round's draft is
    closed (with the game's end, when it ended the game). True when it wrote."""
    data = log.data
    if action not in STEP_TAPS or not data or "context" not in data:
        return False
    context = data["context"]
    if context.get("supersedes") is not None:
        return False  # an Edit: the round's entries are saved together, by Save
    state = deals.state_of(DEAL, table, data)
    wanted = {_sid(t): step for step, t in zip(state.scoring(), state.scoring_taps(), strict=True)}
    if not wanted and not state.complete and not data["undone"] and not data.get("spent"):
        return False  # no step yet, none ever taken back: no entry to keep in step
    known = {_sid(t.get("id") or "") for t in [*data["taps"], *data["undone"]]}
    known |= {_sid(t) for t in data.get("spent", [])}
    last = _sid(data["taps"][-1]["id"]) if data["taps"] else None
    steps, holds = _stored_steps(s, table, context)
    wrote = False
    for entry in steps.values():
        if entry.live and entry.submission_id in known and entry.submission_id not in wanted:
            s.void_entry(table.id, entry.id)  # its tap was taken back
            wrote = True
    over = state.phase == "over"
    closer = [*wanted][-1] if state.complete and wanted else None
    for sid, step in wanted.items():
        number = SETUP_ROUND if step["kind"] == "kvanta-dealer" else context["round"]
        done = steps.get(sid)
        if done is None and not holds(number):  # an old round's: looked up by its id
            found = stored(s, table, sid)
            done = s.entry(table.id, found["entry_id"]) if found else None
        if done is None and sid == closer:  # the step that completes the round
            _close_into(s, table, log, {"kind": step["kind"], "request": step["request"]}, sid)
            _close_round(s, table, context, last or SID, over, closed=True)
            return True
        if done is None:  # (a retry of it is answered by the write, as stored)
            deals.record(s, table, step["kind"], step["request"], number, sid, exclusive=False)
            wrote = True
        elif sid == last and done.state == "voided":
            s.restore_entry(table.id, done.id)  # its tap was put back
            wrote = True
    if state.complete and over and closer is None:  # ended while dealing: no step
        _close_into(s, table, log, {"kind": "game-end", "request": {}, "result": {}}, "")
        return True
    if state.complete:
        _close_round(s, table, context, last or SID, over)
        wrote = True
    return wrote


def _close_into(s: store.Store, table: store.Table, log: store.TapLog, step: dict, sid: str):
    """The round's last entry, made from its closing step, keeps the round's log and
    closes the draft in the same write (its round: the one the context names)."""
    data, version = log.data, log.version
    if data["context"].get("reopened") is None:  # a round begun before rounds said so
        data = {**data, "context": {**data["context"], "reopened": OWN_ROUND}}
        version = s.save_draft(table.id, DRAFT, data, expected_version=version)
    sid = sid or f"{_sid(data['taps'][-1]['id'])}-end"[:64]
    deals.save_into_entry(s, table, DEAL, step, version, sid)


def _close_round(
    s: store.Store, table: store.Table, context: dict, sid: str, over: bool, closed=False
):
    """The complete round's draft closed (``closed``: its last step closed it already),
    with the game-end entry when the round ended the game."""
    end = f"{sid}-end"[:64]
    if over and stored(s, table, end) is None:  # the game-end entry (as "End the game")
        s.add_entry(
            table.id, context["round"], "game-end", {}, {}, {}, submission_id=end,
            exclusive_round=True, close_draft=DRAFT,
        )  # fmt: skip
    elif not closed and s.tap_log(table.id, DRAFT).data is not None:
        s.delete_draft(table.id, DRAFT)


def reconcile(s: store.Store, table: store.Table, log: store.TapLog) -> store.TapLog:
    """Before the round is shown: a step undone in the history takes its tap (and the
    taps after it) out of the log, as an undo would, so the step is open again with what
    was typed; redone there, its tap comes back. (An undone Flux stays rolled: the
    screen shows it undone.) A closed round brought back by the undo of the entry that
    closed it is open again before its closing tap. A complete round left open is
    closed."""
    data = log.data
    if not data or "context" not in data or data["context"].get("supersedes") is not None:
        return log
    try:
        state = deals.state_of(DEAL, table, data)
    except Refused:
        return log
    ids = [t["id"] for t in data["taps"]]
    new = None
    if data["context"].get("reopened") and state.complete:
        new = _cut(data, len(ids) - 1)
    for step, tap_id in zip(state.scoring(), state.scoring_taps(), strict=True):
        if new is not None:
            break
        if step["kind"] != "kvanta-flux" and _entry_state(s, table, tap_id) == "voided":
            new = _cut(data, ids.index(tap_id))
    for k, tap in enumerate(data["undone"] if new is None else ()):
        if tap.get("action") in STEP_TAPS and _entry_state(s, table, tap["id"]) == "live":
            back = list(reversed(data["undone"][k:]))
            if any(_voided_step(s, table, t) for t in back):
                break  # an earlier step of them is undone: the round stays before it
            new = {**data, "taps": [*data["taps"], *back], "undone": data["undone"][:k]}
            break
    if new is not None:
        try:
            state = deals.state_of(DEAL, table, new)
            s.save_draft(table.id, DRAFT, new, expected_version=log.version)
        except (Refused, store.Conflict):  # it no longer fits, or another phone changed it
            return s.tap_log(table.id, DRAFT)
        log = s.tap_log(table.id, DRAFT)
    if state.complete and not log.data["context"].get("reopened"):
        sync_steps(s, table, log, "settle")
        return s.tap_log(table.id, DRAFT)
    return log


def entries_changed(s: store.Store, table: store.Table) -> None:
    """After an undo or redo in the history, in its write: the round's log follows its
    steps (``reconcile``), so the page that shows it next has nothing to write. A dealer
    draw brought back while the deal being entered draws its own is refused
    (store.Conflict): the game would count two."""
    log = s.tap_log(table.id, DRAFT)
    data = log.data
    editing = not data or "context" not in data or data["context"].get("supersedes") is not None
    drawn = (
        []
        if editing
        else [t for t in [*data["taps"], *data["undone"]] if t.get("action") == "draw"]
    )
    own = {_sid(t["id"]) for t in drawn}
    if own and any(e.submission_id not in own for e in kvanta_edit.live_dealer_draws(s, table)):
        raise store.Conflict(
            Text(
                "The deal being entered draws for its dealer: finish the draw, or undo "
                "it, before bringing back another."
            )
        )
    reconcile(s, table, log)


def _cut(data: dict, cut: int) -> dict:
    """The log with its taps from ``cut`` on taken back (as undone, to be redone); a log
    an undo reopened then closes into its own round again, whatever the history does."""
    undone = [*data["undone"], *reversed(data["taps"][cut:])]
    context = {**data["context"], "reopened": OWN_ROUND}
    return {**data, "taps": data["taps"][:cut], "undone": undone, "context": context}


def _step_entry(s: store.Store, table: store.Table, tap: dict) -> store.Entry | None:
    """The entry a step's tap stored, if any."""
    done = stored(s, table, _sid(tap.get("id") or "")) if tap.get("action") in STEP_TAPS else None
    return s.entry(table.id, done["entry_id"]) if done else None


def _voided_step(s: store.Store, table: store.Table, tap: dict) -> bool:
    """Whether the tap stored a step that the history undid (a Flux aside: it stays rolled)."""
    done = _step_entry(s, table, tap)
    return done is not None and done.state == "voided" and done.kind != "kvanta-flux"


def _entry_state(s: store.Store, table: store.Table, tap_id: str) -> str | None:
    done = stored(s, table, _sid(tap_id))
    return s.entry(table.id, done["entry_id"]).state if done else None


def after_tap(s: store.Store, table: store.Table, log: store.TapLog, action: str) -> bool:
    if action == "settle" and kvanta_edit.put_back(s, table, log, DEAL):
        return True  # an Edit's step settled again, what followed it back: the whole table
    wrote = sync_steps(s, table, log, action)
    if action == "burn" and not log.editing:  # K-D9: later rounds show the game's burned cards
        burn = deals.state_of(DEAL, table, log.data).burn if log.data else None
        if burn is None:
            s.delete_draft(table.id, GAME_DRAFT)
        else:
            s.save_draft(table.id, GAME_DRAFT, {"burn": burn})
    return wrote


def tap_submission(tap: Tap) -> str | None:
    """A step's tap stores its entry as it is made (a settle may close the round)."""
    return _sid(tap.id) if tap.action in STEP_TAPS else None


def closed_already(s: store.Store, table: store.Table, tap: Tap) -> bool:
    """A settle sent again once the round it completed was closed with it: stored."""
    if tap.action != "settle":
        return False
    try:
        done = stored(s, table, _sid(tap.id))
    except store.StoreError:
        return False  # the tap is refused for its own reason
    if done is None:  # a new settle: the tap route reads its round under the write lock
        return False
    taps = s.tap_log(table.id, DRAFT).data or {}
    return not any(t.get("id") == tap.id for t in taps.get("taps", ()))


# Its hooks are the functions of their names here (edit_context, replaces, reopens,
# rename_in_draft and history_group come from kvanta_edit). No entry has the kind
# "kvanta-round": a round is several, see ``reopens``.
DEAL = deals.declare(
    __name__,
    game="kvanta",
    draft=DRAFT,
    kind="kvanta-round",
    own_rounds=(("kvanta-dealer", SETUP_ROUND),),
    refused_taps=tuple(
        (action, N_("Dice are rolled on the server: use the roll buttons."))
        for action in ROLL_KINDS
    ),
)


# ---------------------------------------------------------------- dice


class FacesRng:
    """Physical dice: answers with the faces the players chose, so the dice module
    checks and totals them exactly as it does a virtual roll."""

    def __init__(self, faces: list[int]):
        self.faces = list(faces)

    def randrange(self, start: int, stop: int) -> int:
        return self.faces.pop(0)


def throw(tap: Tap, state: KvantaRound, rng_of: Callable) -> tuple[str, list[int], dict]:
    """(kind, dice, result) of the roll a tap asks for: rolled with ``rng_of(count,
    physical)`` (the server's dice, or a :class:`FacesRng` of the faces chosen)."""
    physical = tap.get("physical") is True
    if tap.action == "exchange":
        rolled = dice.roll_kvanta_exchange(rng_of(1, physical))
        winner = state.players[state.trick_winner] if state.trick_winner is not None else None
        return EXCHANGE_ROLL, [rolled["die"]], {**rolled, "player": winner, "trick": state.trick}
    rolled = dice.roll_kvanta_target(rng_of(dice.TARGET_DICE, physical))
    if tap.action == "reroll":  # who asked for it, listed with the roll (#24)
        rolled = {**rolled, "asked_by": state.players[tap.get("seat")]}
    return TARGET_ROLL, rolled["dice"], rolled


def with_dice(tap: Tap, faces: list[int]) -> Tap:
    key = "die" if tap.action == "exchange" else "dice"
    return Tap.from_json({**tap.to_json(), key: faces[0] if key == "die" else faces})


def roll(
    s: store.Store,
    table: store.Table,
    tap: Tap,
    seen_version: int,
    seen_round: int,
    rng_of: Callable,
) -> tuple[store.TapLog, bool]:
    """A target roll, a roll again or the exchange die: the tap checked with stand-in
    dice, the dice rolled (``throw``) and stored (once per tap id: a retried tap gets
    the stored roll, and a roll asked for from a screen another phone has changed since
    is refused inside the write), then the tap logged with them, with what it scores:
    all in one write, so the dice are never kept without their tap. Returns the log and
    whether it wrote entries."""
    if tap.action not in ROLL_KINDS:
        raise deals.Refusal(_("That is not a roll of the dice."), "tap")
    sid = kvanta_edit.roll_submission(tap.id)
    try:
        # the roll's draft is read with its submission, under the write lock: a roll
        # asked for from a screen another phone has changed since is refused there
        with s.write(table.id, sid, action_of(s.add_roll), touches=ROLL_TAP_READS, closes=DRAFT):
            log = s.tap_log(table.id, DRAFT)
            if not log.data or "context" not in log.data:
                raise deals.Refusal(
                    _("Deal and turn the card before the dice are rolled."), status=409
                )
            context = log.data["context"]
            if log.version != seen_version or context.get("round") != seen_round:
                raise deals.Refusal(deals.stale_notice(), status=409, notice=True)
            state = deals.state_of(DEAL, table, log.data)
            state.verify(with_dice(tap, [1] * dice.TARGET_DICE))  # may it be rolled now?
            kind, faces, result = throw(tap, state, rng_of)
            # the tap first, from the draft read with the submission (the dice stored
            # after it would make the write read the draft again)
            logged = _log_roll(s, table, with_dice(tap, faces))
            s.add_roll(
                table.id, context["round"], kind, faces, result, tap.get("physical") is True,
                submission_id=sid,
            )  # fmt: skip
            return logged
    except store.Replayed as replay:  # the same tap, stored already (a retry)
        done = replay.outcome
    return _log_roll(s, table, with_dice(tap, done["dice"]))


def _log_roll(s: store.Store, table: store.Table, rolled: Tap) -> tuple[store.TapLog, bool]:
    """A roll's tap, its dice in it, added to the log with what it scores."""

    def check(data: dict) -> None:
        deals.state_of(DEAL, table, data)

    def gone(old: dict | None) -> dict:  # a roll retried once its round was abandoned
        raise deals.Refusal(deals.stale_notice(), status=409, notice=True)

    return deals.with_entries(  # what it scores, in the same write as the tap
        lambda then: s.append_tap(table.id, DRAFT, rolled.to_json(), check, gone, then),
        lambda new: after_tap(s, table, new, rolled.action),
    )
