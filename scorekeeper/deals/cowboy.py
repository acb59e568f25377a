"""The Wyoming Cowboy deal (RULES.md §1, kind ``cowboy-deal``): marriages shown during
the deal, the shooting referee and the end-of-deal holdings, all taps of one log in the
play state's notation (``scorekeeper.games.play.cowboy``, PLAY.md).

A marriage counts at once (+25 in the totals): while the deal is open each marriage of
its log is also a ``cowboy-marriage`` entry of the deal's round, kept in step with the
log after every marriage tap (and its undo or redo); the closed deal carries them in
``shown_marriages`` and takes them over in the same write, so none counts twice, and
undoing the deal brings them back (its next log begins with them).
"""

from __future__ import annotations

from .. import deals, store
from ..games.play import Refused, Tap
from ..games.play.cowboy import CowboyDeal
from ..messages import gettext as _
from ..summary import TableSummary, summarize

KIND = "cowboy-deal"
MARRIAGE = "cowboy-marriage"
DRAFT = "cowboy-deal"  # the draft's name (an older shape of it is upgraded)
MARRIAGE_TAPS = ("marriage", "withdraw_marriage")


# ---------------------------------------------------------------- the deal's round


def _open_marriages(s: store.Store, table: store.Table) -> tuple[int, list[store.Entry]]:
    """The round a new deal is entered in, and the live marriages already in it (a
    closed deal undone brings its marriages back; they stay in their deal's round)."""
    entries = [e for e in s.recent_entries(table.id, kinds=(MARRIAGE, KIND)) if e.live]
    if entries:
        last = max(e.round for e in entries)
        kinds = {e.kind for e in entries if e.round == last}
        if MARRIAGE in kinds and KIND not in kinds:
            return last, [e for e in entries if e.round == last and e.kind == MARRIAGE]
    return s.next_round(table.id), []


def new_deal(s: store.Store, table: store.Table, summary: TableSummary | None) -> dict:
    """A new deal's context: its players, round, dealer, the players' ids (an old-shape
    draft names them) and the marriages already stored in its round, its log's first taps."""
    summary = summary or summarize(s, table)
    if summary.standings.finished:
        raise deals.game_over()
    round_number, stored = _open_marriages(s, table)
    seat_of = {p.id: i for i, p in enumerate(summary.players)}
    marriages = []
    for e in stored:
        pid = next((pid for pid, pts in e.points.items() if pts), None)
        if pid in seat_of:
            marriages.append([e.id, seat_of[pid], e.request.get("suit")])
    return {
        "players": list(summary.names),
        "round": round_number,
        "dealer": summary.standings.dealer,
        "ids": [p.id for p in summary.players],
        "marriages": marriages,
    }


def edit_context(s: store.Store, table: store.Table, entry: store.Entry) -> dict:
    return {"players": [p.name for p in s.players(table.id)]}


def rename_in_draft(data: dict, old: str, new: str) -> dict:
    """Taps name seats; only the deal's list of players names anyone."""
    context = data.get("context") if isinstance(data, dict) else None
    if context and isinstance(context.get("players"), list):
        context["players"] = [new if name == old else name for name in context["players"]]
    return data


class _Log:
    """Taps made up from stored data (a deal's marriages, an old draft, a request), each
    applied as it is logged; one that no longer fits is left out (what fits is kept)."""

    def __init__(self, table: store.Table, context: dict, prefix: str):
        self.state = CowboyDeal.start(context["players"], deals.settings_of(table))
        self.taps: list[dict] = []
        self.prefix = prefix
        for entry_id, seat, suit in context.get("marriages") or []:  # already stored
            self.add("marriage", f"m{entry_id}", seat=seat, suit=suit)

    def add(self, action: str, tap_id: str | None = None, **args) -> None:
        tap = {"id": tap_id or f"{self.prefix}{len(self.taps)}", "action": action, **args}
        try:
            self.state = self.state.apply(Tap.from_json(tap))
        except (Refused, KeyError, TypeError, ValueError):
            return
        self.taps.append(tap)

    def holdings(self, seat: int, held=(), guns=(), tens=(), building=()) -> None:
        for card in held:
            self.add("hold", seat=seat, card=card)
        for card in (card for gun in [*guns, building] for card in gun):
            self.add("build", seat=seat, card=card)
        for card in tens:
            self.add("lay", seat=seat, card=card)


def seed(table: store.Table, context: dict) -> list[dict]:
    """A new deal's log begins with the marriages already stored in its round."""
    return _Log(table, context, "m").taps


def rebuild(table: store.Table, context: dict, entry: store.Entry) -> list[dict]:
    """The taps of a deal saved without its log: marriages, the end and the holdings of
    its request (its shots never counted and are not known)."""
    request, log = entry.request, _Log(table, {**context, "marriages": []}, f"e{entry.id}-")
    seat = {name: i for i, name in enumerate(request.get("players") or [])}
    for m in request.get("shown_marriages") or []:
        log.add("marriage", seat=seat.get(m.get("player")), suit=m.get("suit"))
    end = request.get("end") or {}
    if end.get("by") in seat:
        log.add("end", seat=seat[end["by"]], reason=end.get("reason"))
    for name, at in seat.items():
        part = {key: (request.get(key) or {}).get(name, ()) for key in ("held", "guns", "tens")}
        log.holdings(at, **part)
    return log.taps


def upgrade(table: store.Table, data: dict, context: dict) -> list[dict]:
    """The taps of a draft stored before the tap log (per player id: held cards, drawn
    guns, the gun being built, laid-out 10s; who ended the deal and how)."""
    log = _Log(table, context, "u")
    seat_of = {str(pid): seat for seat, pid in enumerate(context.get("ids") or [])}

    def of(field: str, pid: str) -> list:
        value = data.get(field)
        return list(value.get(pid) or []) if isinstance(value, dict) else []

    for pid, seat in seat_of.items():
        fields = {"held": "held", "guns": "guns", "tens": "tens", "building": "pending"}
        log.holdings(seat, **{key: of(field, pid) for key, field in fields.items()})
    ender = seat_of.get(str(data.get("end_by")))
    if ender is not None and data.get("end_reason"):
        log.add("end", seat=ender, reason=data["end_reason"])
    return log.taps


# ---------------------------------------------------------------- marriages count at once


def _round_marriages(s: store.Store, table: store.Table, round_number: int) -> tuple[dict, dict]:
    """The round's marriage entries: (player id, suit) → each live one; and submission
    id → each one, undone ones included (what a tap put back finds). Read with the
    round's deal (``_round_entries``)."""
    return _round_entries(s, table, round_number)[:2]


def _round_entries(
    s: store.Store, table: store.Table, round_number: int
) -> tuple[dict, dict, bool]:
    """``_round_marriages``, and whether the round's deal is saved (counts), in one read."""
    live: dict = {}
    by_submission: dict = {}
    saved = False
    for e in s.recent_entries(table.id, kinds=(MARRIAGE, KIND)):
        saved = saved or (e.kind == KIND and e.round == round_number and e.live)
        if e.kind == MARRIAGE and e.round == round_number:
            by_submission[e.submission_id] = e
            if e.live:
                pid = next((pid for pid, pts in e.points.items() if pts), None)
                live[(pid, e.request.get("suit"))] = e
    return live, by_submission, saved


def marriage_submission(tap_id: str) -> str:
    """The submission id a marriage's entry is stored with: its tap's own."""
    return f"cm-{tap_id}"[:64]


def tap_submission(tap: Tap) -> str | None:
    """A marriage tap stores its entry as it is made."""
    return marriage_submission(tap.id) if tap.action == "marriage" else None


def sync_marriages(s: store.Store, table: store.Table, log: store.TapLog, action: str) -> bool:
    """After a marriage tap (or its undo, redo or retry): the round's marriage entries are
    the log's marriages. An edit of a saved deal stores none (the saved deal carries its
    own until the changed one replaces it). True when an entry was written."""
    data = log.data
    if action not in MARRIAGE_TAPS or not data or "context" not in data:
        return False
    context = data["context"]
    if context.get("supersedes") is not None:
        return False
    state = deals.state_of(DEAL, table, data)
    names = list(state.players)
    ids = {p.name: p.id for p in s.players(table.id)}
    tap_of: dict = {}
    for tap in data["taps"]:
        if tap.get("action") == "marriage":
            tap_of.setdefault((tap.get("seat"), tap.get("suit")), tap["id"])
    want = {}
    for i, (seat, suit) in enumerate(state.marriages):
        shown = [{"player": names[x], "suit": y} for x, y in state.marriages[:i]]
        request = {"players": names, "player": names[seat], "suit": suit, "shown": shown}
        want[(ids.get(names[seat]), suit)] = (tap_of.get((seat, suit), "x"), request)
    have, stored, deal_saved = _round_entries(s, table, context["round"])
    if deal_saved and any(key not in have for key in want):
        raise store.Conflict(_beside_saved_deal(context["round"]))
    wrote = False
    for key, entry in have.items():
        if key not in want:
            s.void_entry(table.id, entry.id)
            wrote = True
    for key, (tap_id, request) in want.items():
        if key in have:
            continue
        sid = marriage_submission(tap_id)  # a retried or redone tap stores it once
        done = stored.get(sid)  # (else the write answers a retry as stored)
        if done is None:
            deals.record(s, table, MARRIAGE, request, context["round"], sid, exclusive=False)
        elif not done.live:  # a tap put back: its entry counts again
            s.restore_entry(table.id, done.id)
        wrote = True
    return wrote


def entries_changed(s: store.Store, table: store.Table) -> None:
    """After an undo or redo in the history, in its write: the open deal's marriages
    follow its round's live marriage entries. One undone there is withdrawn in the log,
    one redone there is shown again (each a tap at the end of the log, so the panel's
    Undo takes it back as any other); otherwise the deal would still show the marriage
    and count it again when saved. An edit of a saved deal stores none: left alone."""
    log = s.tap_log(table.id, DRAFT)
    data = log.data
    if not data or "context" not in data or data["context"].get("supersedes") is not None:
        return
    context = data["context"]
    try:
        state = deals.state_of(DEAL, table, data)
    except Refused:
        return
    names = list(state.players)
    seat_of = {p.id: names.index(p.name) for p in s.players(table.id) if p.name in names}
    live = {
        (seat_of.get(pid), suit): e
        for (pid, suit), e in _round_marriages(s, table, context["round"])[0].items()
    }
    added = [
        {"action": "withdraw_marriage", "seat": seat, "suit": suit}
        for seat, suit in state.marriages
        if (seat, suit) not in live
    ]
    added += [
        {"action": "marriage", "seat": seat, "suit": suit}
        for (seat, suit), e in live.items()
        if seat is not None and (seat, suit) not in state.marriages
    ]
    if not added:
        return
    taps = [*data["taps"], *({"id": f"h{log.version}-{i}", **t} for i, t in enumerate(added))]
    new = {**data, "taps": taps, "undone": [], "spent": store.spent_taps(data)}
    try:
        deals.state_of(DEAL, table, new)
    except Refused as exc:
        # a marriage redone whose suit was shown again since (C-D1): it would count
        # in the totals but not in the deal; the whole undo or redo is refused
        raise store.Conflict(exc.text) from None
    try:
        s.save_draft(table.id, DRAFT, new, expected_version=log.version)
    except store.Conflict:  # another phone changed it
        return


def replaces(s: store.Store, table: store.Table, context: dict) -> tuple[int, ...]:
    """The marriage entries the closed deal takes over (it carries them itself)."""
    if context.get("supersedes") is not None:
        return ()
    return tuple(e.id for e in _round_marriages(s, table, context["round"])[0].values())


def saved(s: store.Store, table: store.Table, context: dict, outcome: dict) -> str:
    if outcome.get("supersedes") is not None:
        return _("Round %(n)d changed.", n=outcome.get("round") or context.get("round"))
    return _("Deal of round %(n)d saved.", n=outcome.get("round") or context.get("round"))


def may_redo(s: store.Store, table: store.Table, entry: store.Entry) -> None:
    """A marriage shown comes back in the history only while its round's deal is not
    saved: a saved deal counts the marriages shown in it itself (C-D1), so beside it
    this one would count twice. For the same reason a deal comes back only while its
    round counts no marriage entry but those it took over when it was saved."""
    if entry.kind == MARRIAGE:
        _refuse_beside_saved_deal(s, table, entry.round)
    elif entry.kind == KIND:
        taken_over = set(s.replaced_by(entry.id))
        if any(e.id not in taken_over for e in _round_marriages(s, table, entry.round)[0].values()):
            raise store.Conflict(
                _(
                    "Round %(n)d counts a marriage shown after this deal was undone; "
                    "undo it first to bring the deal back.",
                    n=entry.round,
                )
            )


def _refuse_beside_saved_deal(s: store.Store, table: store.Table, round_number: int) -> None:
    """A marriage entry counts only while its round's deal is unsaved (C-D1: the saved
    deal counts those shown in it)."""
    if any(e.round == round_number for e in s.live_newest_first(table.id, (KIND,))):
        raise store.Conflict(_beside_saved_deal(round_number))


def _beside_saved_deal(round_number: int) -> str:
    return _(
        "The deal of round %(n)d is saved and counts its own marriages: Edit the deal to "
        "change them.",
        n=round_number,
    )


DEAL = deals.declare(__name__, game="cowboy", draft=DRAFT, kind=KIND, after_tap=sync_marriages)
