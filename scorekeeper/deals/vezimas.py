"""The Vežimas deal (RULES §4): the draft's log of taps (``games.play.vezimas``,
PLAY.md): who holds Q♣ (and 9♦), who got the cart. The trumps, who deals and leads, the
legal taps, the cart's letters and the next deal come from ``VezimasDeal``, which gets
the session (trumps once saved, dealer, totals) through its settings. The trumps are
saved once per session as a ``vezimas-trumps`` entry in round 0, closing the first log
(its other taps go on in the next); undoing it asks again. "Can this beat that?" is a
referee's question outside the deal, in its own draft so every phone sees it; each tap
*sets* a value, the verdicts are ``vezimas-beat``'s.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .. import api, deals, store
from ..cards import SUIT_SYMBOLS
from ..errors import RuleError
from ..games import vezimas as engine
from ..games.play.vezimas import nine_of_diamonds_leads
from ..messages import Text
from ..messages import gettext as _
from ..summary import TableSummary, summarize

TRUMPS_KIND, BEAT_KIND, DEAL_KIND = "vezimas-trumps", "vezimas-beat", "vezimas-deal"
DRAFT = "vezimas-deal"  # the deal's tap log
CHECK_DRAFT = "vezimas-check"  # the referee's question
OLD_SETUP, ARGS_SEAT = "vezimas-setup", ("queen", "nine")  # a set-up draft before tap logs
TRUMP_SETTINGS = {"queen": "queen_of_clubs", "nine": "nine_of_diamonds"}  # tap → setting
TRUMPS_ROUND = 0  # set-up, before deal 1: the deals keep the table's round numbers
PLAYED_ON = "s-"  # the id of a holder's tap made from trumps the session had (_holder_taps)
QUESTION = ("top", "player", "mode", "card", "hand", "out", "nothing_to_beat")
CLEARED = {"top": None, "player": None, "card": None, "hand": [], "nothing_to_beat": False}


def trumps_entry(entries: list[store.Entry]) -> store.Entry | None:
    """The session's live trumps entry (the latest, should an older one have been undone)."""
    live = [e for e in entries if e.live and e.kind == TRUMPS_KIND]
    return live[-1] if live else None


def renamed(entry: store.Entry, names: list[str], old: str | None) -> str | None:
    """The name now sitting where ``old`` sat when the entry was stored (renames)."""
    listed = entry.request.get("players", [])
    return names[listed.index(old)] if old in listed and len(listed) == len(names) else None


def session(names: list[str], entries: list[store.Entry], dealer: str | None) -> dict:
    """What a deal knows from the session (the state's settings): the trumps once saved
    and, after the first deal, its dealer (V-D2). A first deal without them asks."""
    trumps = trumps_entry(entries)
    if trumps is None:
        return {}
    settings = {
        key: renamed(trumps, names, trumps.request.get(key))
        for key in ("queen_of_clubs", "nine_of_diamonds")
    }
    settings["dealer"] = dealer if dealer in names else None
    return {key: value for key, value in settings.items() if value is not None}


def new_deal(s: store.Store, table: store.Table, summary: TableSummary | None) -> dict:
    summary = summary or summarize(s, table)
    if summary.standings.finished:  # V-D4, V-D6
        raise deals.Refusal(_("The session is over."), status=409)
    played = any(e.live and e.kind in (DEAL_KIND, "manual-points") for e in summary.entries)
    dealer = summary.standings.dealer
    settings = session(summary.names, summary.entries, dealer if played else None)
    settings["totals"] = {name: summary.totals.get(name, 0) for name in summary.names}
    ids = [p.id for p in summary.players]  # an old-shape draft's (upgrade, seed)
    old, _version = s.draft(table.id, OLD_SETUP) if "queen_of_clubs" not in settings else ({}, 0)
    setup = {k: ids.index(v) for k, v in (old or {}).items() if k in ARGS_SEAT and v in ids}
    context = {"players": summary.names, "player_ids": ids, "round": s.next_round(table.id)}
    return {**context, "settings": settings, "dealer": dealer, "old_setup": setup}


def seed(table: store.Table, context: dict) -> list[dict]:
    """A first deal begun where an old set-up draft named the Q♣ (9♦) holder: its taps."""
    old = context.get("old_setup", {})
    taps = [{"id": f"o{k}", "action": k, "seat": old[k]} for k in ARGS_SEAT if k in old]
    return taps if nine_of_diamonds_leads(len(context["players"])) else taps[:1]


def edit_context(s: store.Store, table: store.Table, entry: store.Entry) -> dict:
    """A saved deal reopened: the session as it stood at its round (the previous
    deal's loser dealt it; the carts before it; the trumps it was played on)."""
    names = {p.id: p.name for p in s.players(table.id)}
    entries = s.entries(table.id, live_only=True)
    earlier = [e for e in entries if TRUMPS_ROUND < e.round < entry.round]
    deals = [e for e in earlier if e.kind == DEAL_KIND]
    listed = list(names.values())
    dealer = renamed(deals[-1], listed, deals[-1].request.get("loser")) if deals else None
    settings = session(listed, entries, dealer)
    log = s.entry_log(entry.id) or {}
    first_taps = []
    if "queen_of_clubs" not in settings:
        # the session's trumps undone since: the holders it was played on come first
        # in its log, as taps (its cards laid need them; they may be changed there)
        played_on = (log.get("context") or {}).get("settings") or {}
        first_taps = _holder_taps(played_on, listed, log.get("taps") or [], "edit")
    # a deal that tapped its own Q♣ (9♦) holder (played while the session had no trumps)
    # is reopened on them, as it was played, not on trumps saved since; one that tapped
    # the 9♦ holder, who leads a first deal, was played as one: led by him, no dealer's
    for tap in log.get("taps") or []:
        settings.pop(TRUMP_SETTINGS.get(tap.get("action"), ""), None)
        if tap.get("action") == "nine":
            settings.pop("dealer", None)
    totals = dict.fromkeys(names.values(), 0)
    for e in earlier:
        for pid, points in e.points.items():
            if pid in names:
                totals[names[pid]] += points
    settings["totals"] = totals
    context = {"players": listed, "settings": settings, "dealer": dealer}
    return {**context, "first_taps": first_taps} if first_taps else context


def _holder_taps(settings: dict, names: list[str], taps: list[dict], tag: str) -> list[dict]:
    """The Q♣ (and, on a first deal where he leads, 9♦) holders ``settings`` name, as
    taps for a log that taps none of its own (``taps``): the trumps it was played on
    when the session's are undone. Their ids mark them (``PLAYED_ON``): the session's,
    not the deal's own choice, so trumps redone take their place."""
    first_deal = settings.get("dealer") is None and nine_of_diamonds_leads(len(names))
    made = []
    for action, key in TRUMP_SETTINGS.items():
        if action == "nine" and not first_deal:
            continue  # the 9♦ holder leads the first deal alone
        if settings.get(key) in names and all(tap.get("action") != action for tap in taps):
            made.append(
                {
                    "id": f"{PLAYED_ON}{action}-{tag}",
                    "action": action,
                    "seat": names.index(settings[key]),
                }
            )
    return made


def rename_in_draft(data: dict, old: str, new: str) -> dict:
    """Taps name seats; the deal's context names players (its list, dealer, totals)."""
    context = data.get("context") if isinstance(data, dict) else None
    if isinstance(context, dict):
        swap = {old: new}
        settings = context.get("settings") or {}
        context["players"] = [swap.get(name, name) for name in context.get("players", [])]
        context["dealer"] = swap.get(context.get("dealer"), context.get("dealer"))
        for key in ("queen_of_clubs", "nine_of_diamonds", "dealer"):
            settings[key] = swap.get(settings.get(key), settings.get(key))
        settings["totals"] = {swap.get(k, k): v for k, v in settings.get("totals", {}).items()}
        context["settings"] = {k: v for k, v in settings.items() if v is not None}
    return data


def rebuild(table: store.Table, context: dict, entry: store.Entry) -> list[dict]:
    """The taps of a deal saved without its log: who got the cart."""
    players, loser = entry.request.get("players", []), entry.request.get("loser")
    seat = players.index(loser) if loser in players else None
    return [] if seat is None else [{"id": f"e{entry.id}-0", "action": "loser", "seat": seat}]


def upgrade(table: store.Table, data: dict, context: dict) -> list[dict]:
    """The taps of a deal's draft stored before the tap log (``{"loser": player id, …}``):
    its cart; its question for the referee goes along in the context (``question_of``)."""
    ids, loser = context.get("player_ids", []), data.get("loser")
    context["question"] = old_question(data, ids, context["round"])
    return [{"id": "u0", "action": "loser", "seat": ids.index(loser)}] if loser in ids else []


def old_question(old: dict, ids: list[int], round_number) -> dict:
    """An old-shape draft's question for the referee, its player ids made seats."""
    seat = {pid: n for n, pid in enumerate(ids)}
    data = {k: old[k] for k in QUESTION if k in old}
    data["player"] = seat.get(data.get("player"))
    data["out"] = [seat[p] for p in data.get("out", []) if p in seat]
    return {**data, "round": round_number}


def saved(s: store.Store, table: store.Table, context: dict, outcome: dict) -> str:
    entry = s.entry(table.id, outcome["entry_id"])
    result = entry.result
    names = {"n": entry.round, "loser": entry.request["loser"], "dealer": result["next_dealer"]}
    names["leader"] = result["first_lead"]
    if outcome.get("supersedes") is not None:
        return _("Round %(n)d changed: %(loser)s got the cart.", **names)
    if table.settings.get("tally") == engine.LETTER_TALLY:  # V-D6
        before = context.get("settings", {}).get("totals", {}).get(names["loser"], 0)
        if engine.completes_word(before + 1):  # the session is over: no next deal
            return _(
                "Round %(n)d: %(loser)s lost the deal (a letter). "
                "%(loser)s completed %(word)s: the session is over.",
                word=engine.WORD,
                **names,
            )
        return _(
            "Round %(n)d: %(loser)s lost the deal (a letter). %(dealer)s deals, %(leader)s leads.",
            **names,
        )
    return _("Round %(n)d: %(loser)s got the cart. %(dealer)s deals, %(leader)s leads.", **names)


# ---------------------------------------------------------------- the referee's question

CARD_TOKEN = re.compile(r"\b(10|[9JQKA])([SHDC])\b")
SUIT_TOKEN = re.compile(r"(?<=\()([SHDC])(?=\))|(?<=higher )([SHDC])\b|\b([SHDC])(?= is free\b)")


def symbolic(text: str) -> str:
    """The engine's sentences write cards and suits as letters (``9S``, ``(C)``);
    show the symbols a player reads at the table (``9♠``, ``(♣)``)."""
    text = CARD_TOKEN.sub(lambda m: m[1] + SUIT_SYMBOLS[m[2]], text)
    return SUIT_TOKEN.sub(lambda m: SUIT_SYMBOLS[m[0]], text)


def question_of(s: store.Store, table: store.Table, round_number) -> tuple[dict, int]:
    """The referee's question of this deal and its draft version (or an old-shape deal
    draft's question, kept readable until the next tap of the referee)."""
    data, version = s.draft(table.id, CHECK_DRAFT)
    if data is None:
        old, _v = s.draft(table.id, DRAFT)
        if isinstance(old, dict) and "context" not in old:
            data = old_question(old, [p.id for p in s.players(table.id)], round_number)
        elif isinstance(old, dict):
            data = old["context"].get("question")
    if not data or data.get("round") != round_number:  # a question of an earlier deal
        data = {}
    question = {"mode": "card", "hand": [], "out": [], **data, "round": round_number}
    return question, version


def assess(names: list[str], trumps: dict, question: dict) -> dict:
    """The engine's answer to the question (nothing while it is incomplete)."""
    out = [names[s] for s in question["out"]]
    player = names[question["player"]] if question.get("player") is not None else None
    top, mode = question.get("top"), question["mode"]
    nothing = bool(question.get("nothing_to_beat"))
    answer: dict = {"ready": False, "error": None, "path": None}
    if not ((top or nothing) and player):
        return answer
    base = {"players": names, "trumps": trumps, "out": out, "player": player, "top": top}
    try:
        if nothing:  # V-D5: the previous player went out with a beat (case 0)
            answer.update(
                case=0,
                rule=_(engine.NOTHING_TO_BEAT),
                next_player=engine.next_to_answer(names, out, player),
                nothing_to_beat=True,
            )
        else:
            situation = engine.situation_for(
                names, trumps, out, player, engine.read_card(top, "top")
            )
            answer.update(
                case=engine.beat_case(situation),
                rule=symbolic(engine.explain(situation, SUIT_SYMBOLS.__getitem__)),
                next_player=situation.next_player,
            )
        if mode == "card" and question.get("card"):
            result = api.evaluate(BEAT_KIND, {**base, "card": question["card"]})
            answer.update(verdict="yes" if result["legal"] else "no")
            reason = result["reason"]
            if not nothing:  # the suits as symbols, in whatever language it is said
                card = engine.read_card(question["card"], "card")
                reason = engine.verdict(situation, card, SUIT_SYMBOLS.__getitem__)
            answer["reason"] = symbolic(reason)
        elif mode == "hand" and question["hand"]:
            result = api.evaluate(BEAT_KIND, {**base, "hand": question["hand"]})
            answer.update(beaters=result["beaters"], verdict="yes" if result["beaters"] else "no")
        answer["ready"] = True
    except RuleError as exc:
        answer.update(ready=False, error=symbolic(exc.message), path=exc.path)
    return answer


# ---------------------------------------------------------------- the question, asked


def ask_top(names, trumps, q: dict, given: dict) -> dict:
    """A new top card: a new question for the same player."""
    card = given["card"]
    hand = [c for c in q["hand"] if c != card]
    return {**q, "top": card, "card": None, "hand": hand, "nothing_to_beat": False}


def ask_player(names, trumps, q: dict, given: dict) -> dict:
    seat = given["seat"]
    return q if q.get("player") == seat else {**q, "player": seat, "card": None, "hand": []}


def ask_mode(names, trumps, q: dict, given: dict) -> dict:
    if given["mode"] not in ("card", "hand"):
        raise deals.Refusal(_("Check one card or the whole hand."), "mode")
    return {**q, "mode": given["mode"]}


def ask_card(names, trumps, q: dict, given: dict) -> dict:
    card = given["card"]
    if card == q.get("top"):
        raise deals.Refusal(_("That is the top card itself; tap the card played on it."), "card")
    return {**q, "card": card}


def ask_hand(names, trumps, q: dict, given: dict) -> dict:
    card, on = given["card"], given["on"]
    if on and card == q.get("top"):
        raise deals.Refusal(_("That is the top card itself; it is not in the hand."), "hand")
    return {**q, "hand": [c for c in q["hand"] if c != card] + ([card] if on else [])}


def ask_out(names, trumps, q: dict, given: dict) -> dict:
    """A player goes out (or back in). V-D5: when it is the player whose card was just
    checked and it beats, that was his last card and a beat: the question moves on to
    the next player, who has nothing to beat."""
    seat, on = given["seat"], given["on"]
    changed = {**q, "out": [s for s in q["out"] if s != seat] + ([seat] if on else [])}
    if on and seat == q.get("player") and q["mode"] == "card":
        if assess(names, trumps, q).get("verdict") == "yes":
            gone = [names[s] for s in changed["out"]]
            following = engine.next_clockwise(names, names[seat], gone)
            if following is not None and engine.next_clockwise(names, following, gone):
                changed.update(
                    top=None, card=None, hand=[], nothing_to_beat=True,
                    player=names.index(following),
                )  # fmt: skip
    return changed


ASKS: dict[str, Callable[[list[str], dict, dict, dict], dict]] = {
    "top": ask_top,
    # V-D5: nothing to beat (the previous player went out with a beat)
    "nothing": lambda names, trumps, q, given: {
        **q,
        "top": None,
        "card": None,
        "nothing_to_beat": True,
    },
    "player": ask_player,
    "mode": ask_mode,
    "card": ask_card,
    "hand": ask_hand,
    "out": ask_out,
    "clear": lambda names, trumps, q, given: {**q, **CLEARED},
}
# what each question's tap gives besides its field: a card, a seat, on or off, a mode
GIVEN = {"top": ("card",), "player": ("seat",), "mode": ("mode",), "card": ("card",),
         "hand": ("card", "on"), "out": ("seat", "on")}  # fmt: skip


def ask(
    s: store.Store,
    table: store.Table,
    state,
    round_number: int,
    field: str,
    read: dict[str, Callable[[], object]],
) -> None:
    """One tap of the referee's question: a value of the shared question is set, on the
    question as another phone may have just left it. ``read``: how the tap's values are
    read (its card, seat, on or off, mode: ``GIVEN``), once the question may be asked."""
    if field not in ASKS:
        raise deals.Refusal(_("There is no such control."), "check")
    if not state.queen_given:
        raise deals.Refusal(_("Set the trumps first: tap who holds Q♣."), "check")
    names, trumps = list(state.players), state.trumps
    for _attempt in range(5):
        question, version = question_of(s, table, round_number)
        given = {name: read[name]() for name in GIVEN.get(field, ())}
        changed = ASKS[field](names, trumps, question, given)
        answer = assess(names, trumps, changed)
        if field in ("top", "player", "card") and answer["path"] == field:
            raise deals.Refusal(answer["error"], field)  # the engine refuses this value
        try:
            s.save_draft(table.id, CHECK_DRAFT, changed, expected_version=version)
            return
        except store.Conflict:
            continue  # another phone set a value meanwhile: set ours on what it did
    raise deals.Refusal(_("Too many phones are changing this at once; tap again."))


def entries_changed(s: store.Store, table: store.Table) -> None:
    """After an undo or redo in the history, in its write: a deal open on other trumps
    than the session's now (its trumps entry undone or redone) goes on under the
    session's. Redone, they are the session's: the Q♣ and 9♦ holders its log tapped
    go. Undone, the deal taps its own again: the holders it was played on come back
    first in its log, so nothing tapped is lost. Refused (Conflict) when its taps do
    not replay so: the deal was played on other trumps than the ones redone. An Edit of
    a deal that tapped its own holders is left on them."""
    log = s.tap_log(table.id, DRAFT)
    data = log.data
    if not data or "context" not in data:
        return
    context, names = data["context"], list(data["context"]["players"])
    if context.get("supersedes") is not None and any(
        tap.get("action") in ARGS_SEAT and not tap["id"].startswith(PLAYED_ON)
        for tap in data["taps"]
    ):
        return  # an Edit of a deal played on its own trumps stays on them (edit_context)
    settings = dict(context.get("settings") or {})
    now = session(names, s.entries(table.id, live_only=True), None)
    if all(settings.get(key) == now.get(key) for key in TRUMP_SETTINGS.values()):
        return
    taps = [tap for tap in data["taps"] if tap.get("action") not in ARGS_SEAT]
    undone = [tap for tap in data["undone"] if tap.get("action") not in ARGS_SEAT]
    if "queen_of_clubs" not in now:
        own = [tap for tap in data["taps"] if tap.get("action") in ARGS_SEAT]
        own += _holder_taps(settings, names, own, str(log.version))
        taps, undone = [*own, *taps], data["undone"]
    for key in TRUMP_SETTINGS.values():
        settings.pop(key, None)
        if key in now:
            settings[key] = now[key]
    new = {**data, "context": {**context, "settings": settings}, "taps": taps, "undone": undone}
    try:
        deals.state_of(DEAL, table, new)
    except RuleError:
        raise store.Conflict(
            Text(
                "The deal being entered was played on other trumps: save it, or undo "
                "its taps, first."
            )
        ) from None
    s.save_draft(table.id, DRAFT, new, expected_version=log.version)


# ---------------------------------------------------------------- the trumps, saved once


def save_trumps(s: store.Store, table: store.Table, state, log: store.TapLog, submission_id):
    """The first deal's Q♣ (and 9♦) as the session's ``vezimas-trumps`` entry, closing
    the log they were tapped in. The deal's other taps (cards laid, the cart) go on in
    the deal's new log, which takes the trumps from the session: nothing tapped is lost.
    One write: the entry and the new log stand or fall together."""
    setup = state.setup()
    if setup is None:
        missing = _("Tap who holds Q♣ first.") if state.queen is None else None
        raise deals.Refusal(missing or _("Tap who holds 9♦ first."), "trumps")
    taps = (log.data or {}).get("taps", [])
    carried = [tap for tap in taps if tap.get("action") not in ARGS_SEAT]
    with s.write(table.id, None):
        deals.record(
            s,
            table,
            TRUMPS_KIND,
            setup["request"],
            TRUMPS_ROUND,
            submission_id=submission_id,
            close_draft=DRAFT,
            based_on_draft=(DRAFT, log.version),
        )
        context = (log.data or {}).get("context") or {}
        if context.get("supersedes") is not None:
            # an Edit goes on, on the trumps now saved: the deal it changes, not a new one
            names = list(context.get("players") or [])
            settings = {
                **(context.get("settings") or {}),
                **session(names, s.entries(table.id, live_only=True), None),
            }
            edit = {**log.data, "context": {**context, "settings": settings}, "taps": carried}
            edit["undone"] = []
            deals.state_of(DEAL, table, edit)
            s.save_draft(table.id, DRAFT, edit)
        elif carried:
            # a new deal's log, begun after the entry (the trumps in its settings)
            data = {**deals.begin(DEAL, s, table, None), "taps": carried}
            deals.state_of(DEAL, table, data)  # they replay under the saved trumps
            s.save_draft(table.id, DRAFT, data)


DEAL = deals.declare(__name__, game="vezimas", draft=DRAFT, kind=DEAL_KIND)
