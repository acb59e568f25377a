"""Edit of a saved Kvanta round (``scorekeeper.deals.kvanta``'s): its tap log back on the
screen, every card as it was, saved again as the round's entries, which supersede the
old ones.

A round is several entries, stored step by step as it is played (each under its tap's
id, ``kv-<tap id>``). The entry that closed it (its poker prize, or the final
comparison that ended the game) also holds its tap log (``close_draft_into_entry``):
Edit is offered on that entry. Saved again from an Edit, the round's first entry holds
the log and the others are closed with it (``also``); Save's submission id starts with
``kvc-``, which marks that entry as the one Edit reopens, and its stored outcome names
the others. Undoing or redoing any entry of an edited round in the history undoes or
redoes all of them (``history_group``), so undoing the edit brings the old round back
whole. In an Edit, a step settled earlier is changed by going back to it
(``back_to``): the taps after it wait aside and come back once it is settled again.
"""

from __future__ import annotations

from .. import deals, store
from ..errors import RuleError
from ..games.play import Tap
from ..messages import gettext as _
from ..summary import summarize

SID = "kv-"  # a step's entry is stored under its tap's id with this prefix
EDIT_SID = "kvc-"  # an edited round's save: its first entry holds the round's log
STEP_KINDS = ("kvanta-dealer", "kvanta-hand", "kvanta-flux", "kvanta-call", "kvanta-poker")
STEP_TAPS = frozenset({"draw", "settle", "exchange", "end"})  # taps that may score a step
ROLL_SID = "kv-roll-"  # a roll is stored under its tap's id with this prefix
SETUP_ROUND = 0  # the first dealer draw is the game's set-up, before round 1


def roll_submission(tap_id: str) -> str:
    """The submission id a roll's dice are stored with: its tap's own."""
    return f"{ROLL_SID}{tap_id}"[:64]


def step_sid(tap_id: str) -> str:
    return f"{SID}{tap_id}"[:64]


def stored(s: store.Store, table: store.Table, submission_id: str) -> dict | None:
    """The outcome stored under a step's id: added as a step, or the step that closed
    its round (with the round's log)."""
    for write in (s.add_entry, s.close_draft_into_entry):
        try:
            return s.submission(submission_id, write, table.id)
        except store.ReusedSubmission:
            continue
    return None


def rename_in_draft(data: dict, old: str, new: str) -> dict:
    """Taps name seats; the round's players, dealer and totals name players."""
    context = data.get("context") if isinstance(data, dict) else None
    if not context:
        return data
    context["players"] = [new if name == old else name for name in context.get("players", [])]
    settings = context.get("settings") or {}
    if settings.get("dealer") == old:
        settings["dealer"] = new
    totals = settings.get("totals")
    if isinstance(totals, dict) and old in totals:
        totals[new] = totals.pop(old)
    return data


def reopens(entry: store.Entry) -> bool:
    """Whether Edit reopens a round from this entry: the one that holds its log."""
    sid = entry.submission_id or ""
    if entry.kind not in STEP_KINDS:
        return False
    if sid.startswith(EDIT_SID):
        return True
    final_compare = entry.kind == "kvanta-call" and entry.request.get("caller") is None
    return sid.startswith(SID) and (entry.kind == "kvanta-poker" or final_compare)


def _dealer(taps: list[dict], players: list[str], fallback) -> str | None:
    """The round's dealer, by the taps that name him: the turned card is his, and the
    target is rolled by the player on his left."""
    for tap in taps:
        if tap.get("action") == "turn" and isinstance(tap.get("seat"), int):
            return players[tap["seat"] % len(players)]
    for tap in taps:
        if tap.get("action") == "roll" and isinstance(tap.get("seat"), int):
            return players[(tap["seat"] - 1) % len(players)]
    return fallback()


def edit_context(s: store.Store, table: store.Table, entry: store.Entry) -> dict:
    """The context of a saved round reopened: its players, number and what it knew of
    the game (its dealer, whether the cards were burned before it, the totals before
    it), the rolls it made, and the round's other entries that its save supersedes."""
    taps = s.entry_taps(entry.id) if reopens(entry) else None
    if taps is None:
        raise deals.Refusal(
            _("Round %(n)d was saved without its taps, so it cannot be reopened.", n=entry.round),
            status=409,
        )
    players = [p.name for p in s.players(table.id)]
    name_of = {p.id: p.name for p in s.players(table.id)}
    totals = dict.fromkeys(players, 0)
    for e in s.entries(table.id, live_only=True):
        if e.round < entry.round:
            for pid, pts in e.points.items():
                if pid in name_of:
                    totals[name_of[pid]] += pts
    settings: dict = {"burned": not any(t.get("action") == "burn" for t in taps), "totals": totals}
    if not any(t.get("action") == "draw" for t in taps):
        dealer = _dealer(taps, players, lambda: summarize(s, table).standings.dealer)
        settings.update(round=entry.round, dealer=dealer)
    rolls = []
    for tap in taps:
        if tap.get("action") in ("roll", "reroll", "exchange"):
            done = s.submission(roll_submission(tap["id"]), s.add_roll, table.id)
            if done:
                rolls.append(done["roll_id"])
    return {
        "players": players,
        "round": entry.round,
        "settings": settings,
        "since_roll": min(rolls) - 1 if rolls else s.last_roll_id(table.id),
        "replaces": _live_steps(s, table, taps, entry.id),
    }


def _live_steps(s: store.Store, table: store.Table, taps: list[dict], reopened: int) -> list:
    """The entries the round's step taps stored that count now (the reopened one aside)."""
    found = []
    for tap in taps:
        done = stored(s, table, step_sid(tap["id"])) if tap.get("action") in STEP_TAPS else None
        step = done["entry_id"] if done else None
        if step not in (None, reopened, *found) and s.entry(table.id, step).live:
            found.append(step)
    return found


def live_dealer_draws(s: store.Store, table: store.Table) -> list[store.Entry]:
    """The dealer draws of the game's set-up that count now."""
    return [e for e in s.live_newest_first(table.id, ("kvanta-dealer",)) if e.round == SETUP_ROUND]


def replaces(s: store.Store, table: store.Table, context: dict) -> tuple[int, ...]:
    """An edited round's save supersedes every step counting in its round as it is saved
    (the entry reopened and those closed with it are superseded by the store): its own
    first steps, one undone when Edit opened and redone since, and one of another
    version of the round, redone beside the reopened one; the edit is the round, whole.
    A round that drew for the game's dealer also supersedes the dealer draw counting as
    it is saved (its own redone, or one the game drew after it was undone): one dealer
    draw counts."""
    taken = list(context.get("replaces") or ())  # as they counted when Edit opened
    reopened = context.get("supersedes")
    if reopened is None:
        return tuple(taken)
    closed_with = {reopened, *(context.get("supersedes_also") or ())}
    taken += [
        e.id
        for e in s.entries(table.id, live_only=True)
        if e.round == context.get("round") and e.kind in STEP_KINDS
        if e.id not in closed_with and e.id not in taken
    ]
    if any(t.get("action") == "draw" for t in s.entry_taps(reopened) or []):
        taken += [e.id for e in live_dealer_draws(s, table) if e.id not in taken]
    return tuple(taken)


def _edit_group(s: store.Store, table: store.Table, entry: store.Entry) -> list[int]:
    """The entries of an edited round that ``entry`` is one of (the first one, which
    holds the log, then those closed with it), or [] for an entry of no edited round."""
    if entry.kind not in STEP_KINDS:
        return []
    candidates = [entry]
    if not (entry.submission_id or "").startswith(EDIT_SID):
        candidates = [
            e
            for e in s.entries(table.id)
            if e.round == entry.round and (e.submission_id or "").startswith(EDIT_SID)
        ]
    for first in candidates:
        done = s.submission(first.submission_id, s.close_draft_into_entry, table.id)
        group = [first.id, *((done or {}).get("also") or ())]
        if done and entry.id in group:
            return group
    return []


def history_group(s: store.Store, table: store.Table, entry_id: int, action: str) -> list[int]:
    """An undo or redo in the history of an entry of an edited round takes the round's
    other entries with it, so the edit is undone (the old round counts again) or redone
    whole, in one transaction (the store's ``together``). The first entry is undone last
    and redone first: it is the one that supersedes."""
    try:
        group = _edit_group(s, table, s.entry(table.id, entry_id))
    except store.NotFound:
        return []
    return [*group[1:], group[0]] if group and action == "undo" else group


def back_to(s: store.Store, table: store.Table, log: store.TapLog, draft: str, tap_id: str):
    """An Edit back at a step settled earlier (its settle tap ``tap_id`` taken out):
    the taps after it wait aside in the context (``stash``) until it is settled again."""
    data = log.data
    ids = [t.get("id") for t in data["taps"]] if log.editing else []
    if tap_id not in ids or data["taps"][ids.index(tap_id)].get("action") != "settle":
        raise deals.Refusal(deals.stale_notice(), status=409, notice=True)
    cut = ids.index(tap_id)
    context = {**data["context"], "stash": data["taps"][cut + 1 :]}
    spent = store.spent_taps(data)
    new = {**data, "taps": data["taps"][:cut], "undone": [], "spent": spent, "context": context}
    s.save_draft(table.id, draft, new, expected_version=log.version)


def put_back(s: store.Store, table: store.Table, log: store.TapLog, deal) -> bool:
    """Once the step an Edit went back to is settled again, the taps that waited aside
    come back, as far as they still fit (a card now shown elsewhere is left out)."""
    data = log.data
    stash = (data.get("context") or {}).get("stash") if log.editing else None
    if not stash:
        return False
    state = deals.state_of(deal, table, data)
    kept = []
    for raw in stash:
        try:
            after = state.apply(Tap.from_json(raw))
        except (RuleError, KeyError, TypeError, ValueError):
            continue
        if after is not state:
            state = after
            kept.append(raw)
    context = {k: v for k, v in data["context"].items() if k != "stash"}
    new = {**data, "taps": [*data["taps"], *kept], "context": context}
    s.save_draft(table.id, deal.draft, new, expected_version=log.version)
    return True
