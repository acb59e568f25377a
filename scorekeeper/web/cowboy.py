"""The Wyoming Cowboy screen (RULES.md §1): marriages shown during a deal, the
shooting referee and the end-of-deal entry, all by taps.

Every tap is saved in a draft on the server (``store.save_draft``), so a reload,
a lost connection or a second phone carries on where the first stopped. Taps
are *set* operations: a card button sends the selection its phone saw
(``seen``), and the server sets that card to the opposite of what was seen, so
a retried tap changes nothing and two quick taps on different cards both count.

Scoring, legality and the referee's verdicts come from the engine
(``api.evaluate``); this module only gathers the taps into engine requests.

Drafts (keyed by player id, so a rename keeps them):

* ``cowboy-deal`` — the deal being played: its round, the view shown, the end of
  the deal, and per player the held cards, drawn guns, the gun being built and
  the laid-out 10s;
* ``cowboy-shot`` — the shot being refereed and the aces still on the table.

A marriage is stored at once as a ``cowboy-marriage`` entry in the deal's round
(+25 in the totals). Closing the deal stores the ``cowboy-deal`` entry carrying
those marriages in ``shown_marriages`` and then voids the provisional entries,
each with a submission id derived from the deal's, so a retried close finishes
the job and a marriage is never counted twice.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, g, request

from .. import api, store
from ..cards import ACE, JACK, KING, QUEEN, SUIT_SYMBOLS, SUITS, Card, CardError, parse_card
from ..errors import RuleError
from ..games import catalog
from ..games import cowboy as engine
from ..i18n import gettext as _
from . import screens
from .tables import (
    get_store,
    live_fragments,
    load,
    render_board,
    see_other,
    table_url,
    wants_partial,
)

bp = Blueprint("cowboy", __name__, url_prefix="/t/<key>/cowboy")

DEAL = "cowboy-deal"  # draft names
SHOT = "cowboy-shot"
VIEWS = ("play", "shot", "end")
REASONS = ("tens", "aces")

# RULES §1 "Scoring": no held card other than these ranks has a value
HELD_RANKS = (ACE, KING, QUEEN, JACK, 10, 6, 2)
# RULES §1 "Guns": every gun is made of these ranks
GUN_RANKS = (2, 3, 4, 5, 7, 8)
# RULES §1 "Shooting": the referee looks at cowboys and aces, sixes and 3-5-7s
VICTIM_RANKS = (ACE, KING, 7, 6, 5, 3)
ALL_RANKS = (ACE, KING, QUEEN, JACK, 10, 9, 8, 7, 6, 5, 4, 3, 2)
TURNED_RANKS = ALL_RANKS[1:]  # C-D10: the aces lie on the table, never in the stock


def _codes(ranks, suits=SUITS) -> list[str]:
    return [str(Card(rank, suit)) for suit in suits for rank in ranks]


HELD_CARDS = _codes(HELD_RANKS)
GUN_CARDS = _codes(GUN_RANKS)
TEN_CARDS = _codes((10,))
ACE_CARDS = _codes((ACE,))
VICTIM_CARDS = _codes(VICTIM_RANKS)


class Bad(Exception):
    """Input the screen refuses; ``where`` places the message on the screen."""

    def __init__(self, message: str, where: str = "general", status: int = 422):
        super().__init__(message)
        self.message = message
        self.where = where
        self.status = status


# ---------------------------------------------------------------- drafts


def _blank_deal(round_number: int) -> dict:
    return {
        "round": round_number,
        "view": "play",
        "marriage_player": None,
        "end_by": None,
        "end_reason": None,
        "focus": None,
        "held": {},
        "guns": {},
        "pending": {},
        "tens": {},
    }


def _blank_shot() -> dict:
    return {
        "attacker": None,
        "victim": None,
        "gun": [],
        "held": [],
        "has_gun": True,
        "aces": list(ACE_CARDS),
        "turned_suit": None,
        "turned": None,
        "declines_ace": False,  # C-D11: a dodging victim leaves the ace on the table
    }


def current_round(entries: list[store.Entry], deal: dict | None) -> int:
    """The round the deal being played is stored in.

    The draft pins it at its first tap; without a draft, a round that holds live
    marriages but no closed deal is still open; otherwise the next round.
    """
    live = [e for e in entries if e.live]
    next_round = max((e.round for e in live), default=0) + 1
    pinned = deal.get("round") if isinstance(deal, dict) else None
    if isinstance(pinned, int) and pinned >= 1:
        kinds = {e.kind for e in live if e.round == pinned}
        if "cowboy-deal" not in kinds and ("cowboy-marriage" in kinds or pinned == next_round):
            return pinned
    if live:
        last = max(e.round for e in live)
        kinds = {e.kind for e in live if e.round == last}
        if "cowboy-marriage" in kinds and "cowboy-deal" not in kinds:
            return last
    return next_round


def _normal_deal(data: dict | None, players: list[store.Player], round_number: int) -> dict:
    """The stored draft with every field present and only this table's players."""
    d = _blank_deal(round_number)
    if isinstance(data, dict):
        d.update({k: data[k] for k in d if k in data})
    d["round"] = round_number
    ids = {str(p.id) for p in players}
    for field in ("held", "guns", "pending", "tens"):
        value = d[field] if isinstance(d[field], dict) else {}
        d[field] = {pid: value[pid] for pid in value if pid in ids}
    for field in ("marriage_player", "end_by", "focus"):
        if str(d[field]) not in ids:
            d[field] = None
    if d["focus"] is None and players:
        d["focus"] = players[0].id
    if d["view"] not in VIEWS:
        d["view"] = "play"
    if d["end_reason"] not in REASONS:
        d["end_reason"] = None
    return d


def _normal_shot(data: dict | None, players: list[store.Player]) -> dict:
    d = _blank_shot()
    if isinstance(data, dict):
        d.update({k: data[k] for k in d if k in data})
    ids = {str(p.id) for p in players}
    for field in ("attacker", "victim"):
        if str(d[field]) not in ids:
            d[field] = None
    return d


def _update(table: store.Table, name: str, change: Callable[[dict], None]) -> dict:
    """Read, change and save a draft; when another phone saved it meanwhile, read
    it again and re-apply the change (taps are set operations, so this merges)."""
    s = get_store()
    players = s.players(table.id)
    for _attempt in range(10):
        data, version = s.draft(table.id, name)
        if name == DEAL:
            d = _normal_deal(data, players, current_round(s.recent_entries(table.id), data))
        else:
            d = _normal_shot(data, players)
        change(d)
        try:
            s.save_draft(table.id, name, d, expected_version=version)
            return d
        except store.Conflict:
            continue
    raise store.Conflict(_("Several phones are changing this deal at once; tap again."))


# ---------------------------------------------------------------- reading taps


def _form(name: str) -> str:
    value = request.form.get(name)
    if value is None:
        raise Bad(_("Something was missing from that tap (%(field)s).", field=name), status=400)
    return value.strip()


def _player(players: list[store.Player], name: str = "player") -> store.Player:
    raw = _form(name)
    for p in players:
        if str(p.id) == raw:
            return p
    raise Bad(_("That player is not at this table."))


def _choice(name: str, allowed) -> str:
    value = _form(name)
    if value not in allowed:
        raise Bad(_("“%(value)s” is not one of the choices here.", value=value[:20]), status=400)
    return value


def _card(ranks, name: str = "card") -> str:
    raw = _form(name)
    try:
        card = parse_card(raw)
    except (CardError, ValueError):
        raise Bad(_("“%(value)s” is not a card.", value=raw[:20])) from None
    if card.is_joker or card.rank not in ranks:
        raise Bad(_("%(card)s cannot be chosen here.", card=card.symbol))
    return str(card)


def _seen() -> set[str]:
    """The cards the tapping phone showed as chosen."""
    out = set()
    for token in request.form.get("seen", "").split():
        try:
            out.add(str(parse_card(token)))
        except (CardError, ValueError):
            continue
    return out


def _set(cards: list, code: str, on: bool) -> list:
    cards = [c for c in cards if c != code]
    return [*cards, code] if on else cards


def _int(name: str) -> int | None:
    try:
        return int(request.form.get(name, ""))
    except ValueError:
        return None


# ---------------------------------------------------------------- building requests


def _house_rules(table: store.Table) -> dict:
    return {
        key: bool(table.settings.get(key, default)) for key, default in engine.HOUSE_RULES.items()
    }


def _marriages(entries: list[store.Entry], round_number: int, players) -> list[dict]:
    """The provisional marriages of the deal: live cowboy-marriage entries of its round."""
    name_of = {p.id: p.name for p in players}
    out = []
    for e in entries:
        if e.live and e.kind == "cowboy-marriage" and e.round == round_number:
            pid = next((pid for pid, pts in e.points.items() if pts), None)
            if pid in name_of:
                out.append(
                    {
                        "entry_id": e.id,
                        "player_id": pid,
                        "player": name_of[pid],
                        "suit": e.request.get("suit"),
                        "points": e.points[pid],
                    }
                )
    return out


def _usage(d: dict, players) -> dict[str, tuple[str, int]]:
    """card → (zone, player id) for every card of the deal draft."""
    used: dict[str, tuple[str, int]] = {}
    for p in players:
        pid = str(p.id)
        for code in d["held"].get(pid, []):
            used[code] = ("held", p.id)
        for gun in d["guns"].get(pid, []):
            for code in gun:
                used[code] = ("drawn", p.id)
        for code in d["pending"].get(pid, []):
            used[code] = ("gun", p.id)
        for code in d["tens"].get(pid, []):
            used[code] = ("tens", p.id)
    return used


def _reason(zone: str, name: str) -> str:
    if zone == "held":
        return name
    if zone == "tens":
        return _("%(name)s · laid", name=name)
    return _("%(name)s · gun", name=name)


def _taken(used, zone: str, pid: int, name_of: dict[int, str]) -> dict[str, str]:
    """Cards this picker cannot offer, with the reason (whose, and where)."""
    own = {"held": _("held"), "tens": _("laid"), "drawn": _("gun"), "gun": _("gun")}
    return {
        code: own[z] if owner == pid else _reason(z, name_of[owner])
        for code, (z, owner) in used.items()
        if (z, owner) != (zone, pid)
    }


def deal_request(table: store.Table, players, d: dict, marriages: list[dict]) -> dict:
    """The cowboy-deal engine request the draft describes (the gun being built
    goes in as a drawn gun, so the engine says what is wrong with it)."""
    names = [p.name for p in players]
    held = {p.name: list(d["held"].get(str(p.id), [])) for p in players}
    guns = {}
    tens = {}
    for p in players:
        pid = str(p.id)
        drawn = [list(g) for g in d["guns"].get(pid, [])]
        if d["pending"].get(pid):
            drawn.append(list(d["pending"][pid]))
        if drawn:
            guns[p.name] = drawn
        if d["tens"].get(pid):
            tens[p.name] = list(d["tens"][pid])
    name_of = {p.id: p.name for p in players}
    return {
        "players": names,
        "end": {"by": name_of.get(d["end_by"]), "reason": d["end_reason"]},
        "shown_marriages": [{"player": m["player"], "suit": m["suit"]} for m in marriages],
        "held": held,
        "guns": guns,
        "tens": tens,
        "house_rules": _house_rules(table),
    }


def _place(path: str, players) -> tuple[str, int | None]:
    """Where an engine refusal belongs on the screen: ("player", id), ("end", None)…"""
    for section in ("held", "guns", "tens"):
        for p in sorted(players, key=lambda p: -len(p.name)):
            at = f"{section}.{p.name}"
            if path == at or path.startswith(at + "[") or path.startswith(at + "."):
                return "player", p.id
    if path.startswith("end"):
        return "end", None
    if path.startswith("shown_marriages"):
        return "marriage", None
    return "general", None


def _gun_name(cards: list[str]) -> tuple[str | None, str]:
    """(name, sentence) from the engine: "357 Quick Draw", or None and why not."""
    try:
        answer = api.evaluate("cowboy-gun", {"cards": cards})
    except RuleError as exc:
        return None, exc.message
    kind = answer["gun"]
    return (engine.GUN_NAMES[kind] if kind else None), answer["reason"]


def _symbols(codes) -> str:
    return " ".join(screens.card_symbol(c) for c in codes)


# ---------------------------------------------------------------- the shot


def outcome_labels() -> dict[str, tuple[str, str]]:
    """The referee's outcome codes (CONTRACT cowboy-shot) → (tone, label)."""
    return {
        "not_allowed": ("no", _("Not allowed")),
        "choice": ("info", _("The victim chooses")),
        "backfire": ("no", _("Backfire")),
        "quick_draw": ("no", _("Quick Draw")),
        "miss": ("no", _("Miss")),
        "turn_card": ("info", _("Turn a card")),
        "hit": ("yes", _("Hit")),
        "dodge": ("yes", _("Dodge")),
    }


def shot_request(sh: dict) -> dict:
    return {
        "gun": list(sh["gun"]),
        "victim": {"held": list(sh["held"]), "has_gun_drawn": bool(sh["has_gun"])},
        "aces_on_table": list(sh["aces"]),
        "declines_ace": bool(sh["declines_ace"]),
    }


def judge(sh: dict) -> dict:
    """The referee's answer for the shot draft: {"result", "needs_turn", "error"}."""
    out: dict = {"result": None, "needs_turn": False, "error": None}
    if not sh["gun"]:
        return out
    req = shot_request(sh)
    try:
        first = api.evaluate("cowboy-shot", req)
        result = first
        if first["outcome"] == "turn_card":
            out["needs_turn"] = True
            if sh["turned"]:
                result = api.evaluate("cowboy-shot", {**req, "turned": sh["turned"]})
    except RuleError as exc:
        where = "general"
        for prefix, place in (
            ("gun", "gun"),
            ("victim", "victim"),
            ("aces_on_table", "aces"),
            ("turned", "turned"),
        ):
            if exc.path.startswith(prefix):
                where = place
        out["error"] = {"where": where, "message": exc.message}
        return out
    out["result"] = result
    return out


# ---------------------------------------------------------------- the panel


def _preview(request_json: dict, d: dict, players) -> dict:
    """The engine's answer to the draft: every player's items, or the refusal
    placed next to what it is about."""
    preview: dict = {"ready": False, "ok": False, "players": [], "error": None, "totals": {}}
    if d["end_by"] is None or d["end_reason"] is None:
        return preview
    preview["ready"] = True
    name_of = {p.id: p.name for p in players}
    try:
        result = api.evaluate("cowboy-deal", request_json)
    except RuleError as exc:
        where, pid = _place(exc.path, players)
        pending = False
        if pid is not None and d["pending"].get(str(pid)):
            # the refusal is about the gun being built: its own line says why
            gun_at = len(d["guns"].get(str(pid), []))
            pending = exc.path.startswith(f"guns.{name_of[pid]}[{gun_at}]")
        preview["error"] = {
            "where": where,
            "player_id": pid,
            "player": name_of.get(pid),
            "message": exc.message,
            "path": exc.path,
            "pending": pending,
        }
        return preview
    preview["ok"] = True
    for p in players:
        row = result["players"][p.name]
        preview["totals"][p.id] = row["total"]
        lines = [
            {
                "label": _(engine.item_label(item["code"])),
                "code": item["code"],
                "count": item["count"],
                "points": item["points"],
            }
            for item in row["items"]
        ]
        preview["players"].append(
            {"id": p.id, "name": p.name, "total": row["total"], "lines": lines}
        )
    return preview


def _end_context(table, players, d: dict, marriages: list[dict], flash: dict | None) -> dict:
    """The end-of-deal entry: tabs, the focused player's pickers, the preview."""
    name_of = {p.id: p.name for p in players}
    used = _usage(d, players)
    focus = d["focus"]
    fid = str(focus)
    preview = _preview(deal_request(table, players, d, marriages), d, players)
    error = preview["error"]
    tabs = []
    for p in players:
        pid = str(p.id)
        count = sum(len(d[f].get(pid, [])) for f in ("held", "pending", "tens"))
        count += sum(len(gun) for gun in d["guns"].get(pid, []))
        tabs.append(
            {
                "id": p.id,
                "name": p.name,
                "focus": p.id == focus,
                "count": count,
                "total": preview["totals"].get(p.id),
                "invalid": bool(error and error["player_id"] == p.id),
            }
        )
    guns = [
        {"cards": gun, "name": _gun_name(gun)[0], "value": " ".join(gun)}
        for gun in d["guns"].get(fid, [])
    ]
    pending_cards = d["pending"].get(fid, [])
    pending = None
    if pending_cards:
        pending = {"cards": pending_cards, "reason": _gun_name(pending_cards)[1]}
    # refusals next to a player: the preview's, and a refused tap's
    notes = []
    if error and error["where"] == "player" and not error["pending"]:
        notes.append((error["player"], error["message"]))
    if flash and flash.get("player") and not (error and error["message"] == flash["message"]):
        notes.append((flash["player"], flash["message"]))
    return {
        "focus": focus,
        "focus_name": name_of.get(focus),
        "notes": notes,
        "end_by": d["end_by"],
        "end_reason": d["end_reason"],
        "tabs": tabs,
        "held": d["held"].get(fid, []),
        "held_taken": _taken(used, "held", focus, name_of),
        "gun_seen": pending_cards,
        "gun_taken": _taken(used, "gun", focus, name_of),
        "guns": guns,
        "pending": pending,
        "tens": d["tens"].get(fid, []),
        "tens_taken": _taken(used, "tens", focus, name_of),
        "preview": preview,
        "has_cards": any(
            d[f].get(str(p.id)) for f in ("held", "guns", "pending", "tens") for p in players
        ),
        "summary": [
            {
                "name": p.name,
                "held": d["held"].get(str(p.id), []),
                "guns": [_symbols(gun) for gun in d["guns"].get(str(p.id), [])],
                "tens": d["tens"].get(str(p.id), []),
            }
            for p in players
        ],
    }


def _shot_context(sh: dict, version: int, players) -> dict:
    """The referee: the pickers, and the engine's verdict in one sentence."""
    name_of = {p.id: p.name for p in players}
    verdict = judge(sh)
    used = {code: zone for zone in ("gun", "held") for code in sh[zone]}
    used.update({code: "aces" for code in sh["aces"]})
    if sh["turned"] and verdict["needs_turn"]:
        used[sh["turned"]] = "turned"
    reasons = {
        "gun": _("the gun"),
        "held": _("victim"),
        "aces": _("on table"),
        "turned": _("turned"),
    }

    def taken(zone: str) -> dict[str, str]:
        # an ace tapped as the victim's leaves the table, so it is not taken there
        moves = ("aces",) if zone == "held" else ()
        return {c: reasons[z] for c, z in used.items() if z != zone and z not in moves}

    result = verdict["result"]
    outcome = None
    if result is not None:
        tone, label = outcome_labels().get(result["outcome"], ("info", result["outcome"]))
        outcome = {
            "code": result["outcome"],
            "tone": tone,
            "label": label,
            "gun": engine.GUN_NAMES.get(result.get("gun")),
            "reason": result.get("reason", ""),
            "final": result["outcome"] != "turn_card",
            "ends_deal": bool(result.get("ends_deal")),
            # C-D11: a dodge's ace may be left on the table (most useful as the last one)
            "ace": result.get("ace"),
            "declined": result["outcome"] == "dodge" and result.get("ace") is None,
        }
    gun_name, gun_reason = _gun_name(sh["gun"]) if sh["gun"] else (None, "")
    turned_suit = sh["turned_suit"] if sh["turned_suit"] in SUITS else None
    return {
        "version": version,
        "attacker": sh["attacker"],
        "attacker_name": name_of.get(sh["attacker"]),
        "victim": sh["victim"],
        "victim_name": name_of.get(sh["victim"]),
        "gun": sh["gun"],
        "gun_name": gun_name,
        "gun_reason": gun_reason,
        "gun_taken": taken("gun"),
        "held": sh["held"],
        "held_taken": taken("held"),
        "has_gun": bool(sh["has_gun"]),
        "aces": sh["aces"],
        "aces_taken": taken("aces"),
        "needs_turn": verdict["needs_turn"],
        "turned_suit": turned_suit,
        "turned": sh["turned"],
        "turned_cards": _codes(TURNED_RANKS, (turned_suit,)) if turned_suit else [],
        "turned_taken": taken("turned"),
        "error": verdict["error"],
        "outcome": outcome,
        "started": bool(sh["gun"] or sh["held"] or sh["attacker"] or sh["victim"]),
    }


def _place_flash(flash: dict | None, view: str | None) -> dict | None:
    """A refused tap's message goes next to its part of the current view, else on top."""
    if not flash:
        return None
    places = {"play": ("marriage",), "end": ("end", "player"), "shot": ("shot",)}
    where = flash["where"]
    place = where if view and where in places[view] else "top"
    return {**flash, "place": place}


def panel_context(table: store.Table, summary, access: str) -> dict:
    """What ``_panel.html`` shows, all worked out here (templates hold no arithmetic)."""
    s = get_store()
    players = summary.players
    raw_deal, deal_version = s.draft(table.id, DEAL)
    raw_shot, shot_version = s.draft(table.id, SHOT)
    round_number = current_round(summary.entries, raw_deal)
    d = _normal_deal(raw_deal, players, round_number)
    marriages = _marriages(summary.entries, round_number, players)
    for m in marriages:
        m["cards"] = [f"K{m['suit']}", f"Q{m['suit']}"]
    shown_suits = [m["suit"] for m in marriages]
    flash = g.get("cowboy_flash")
    writable = access == "score" and not summary.standings.finished
    game = catalog.GAMES["cowboy"]
    return {
        "round": round_number,
        "version": deal_version,
        "view": d["view"],
        "flash": _place_flash(flash, d["view"] if writable else None),
        "finished": summary.standings.finished,
        "dealer": summary.standings.dealer,
        "house_rules": [
            {
                "label": setting.label,
                "decision": setting.decision,
                "on": bool(table.settings.get(setting.key, setting.default)),
            }
            for setting in game.settings
            if setting.house_rule
        ],
        "players": [{"id": p.id, "name": p.name} for p in players],
        "marriages": marriages,
        "marriage_player": d["marriage_player"],
        "suits": [
            {
                "code": suit,
                "symbol": SUIT_SYMBOLS[suit],
                "colour": "red" if suit in "HD" else "black",
                "shown": not engine.can_show_marriage(suit, shown_suits),
            }
            for suit in SUITS
        ],
        "end": _end_context(table, players, d, marriages, flash),
        "shot": _shot_context(_normal_shot(raw_shot, players), shot_version, players),
        "held_cards": HELD_CARDS,
        "gun_cards": GUN_CARDS,
        "ten_cards": TEN_CARDS,
        "ace_cards": ACE_CARDS,
        "victim_cards": VICTIM_CARDS,
        "reasons": [
            {"code": "tens", "label": _("Tens: all four 10s out and a 22 drawn")},
            {"code": "aces", "label": _("Fourth ace left the table")},
        ],
        "views": [
            {"code": "play", "label": _("During play")},
            {"code": "shot", "label": _("Shot")},
            {"code": "end", "label": _("End of deal")},
        ],
    }


# ---------------------------------------------------------------- answers


def _flash(exc: Bad | RuleError | store.StoreError, where: str = "general") -> dict:
    return {"where": getattr(exc, "where", where), "message": exc.message, "player": None}


def _player_flash(message: str, players, pid: int) -> dict:
    name = next((p.name for p in players if p.id == pid), None)
    return {"where": "player", "player": name, "message": message}


def panel_response(table: store.Table, access: str, flash: dict | None = None, status: int = 200):
    """For htmx, the panel with the rest of what the poll refreshes, out of band
    (``live_fragments``); a plain post goes back to the table page."""
    g.cowboy_flash = flash  # panel_context places it next to what it is about
    if not wants_partial():
        if flash:
            return render_board(table, access, status)
        return see_other(table_url(table))
    return live_fragments(table, access, status, personal=bool(flash))


def board_response(table, access, message=None, flash=None, status=200):
    """The board after a marriage or a closed deal (their totals change)."""
    g.cowboy_flash = flash
    if not flash and not wants_partial():
        return see_other(table_url(table))
    return render_board(table, access, status, message=message)


def _tap(key: str, name: str, change: Callable[[dict, list[store.Player]], None]):
    """A draft tap: check the input, change the draft, answer with the panel."""
    table, access = load(key, write=True)
    players = get_store().players(table.id)
    try:
        _update(table, name, lambda d: change(d, players))
    except Bad as exc:
        flash = _flash(exc)
        if exc.where.startswith("player:"):
            flash = _player_flash(exc.message, players, int(exc.where.split(":")[1]))
        return panel_response(table, access, flash, exc.status)
    except store.StoreError as exc:
        return panel_response(table, access, _flash(exc), 409)
    return panel_response(table, access)


# ---------------------------------------------------------------- routes: the deal


@bp.post("/view")
def view(key: str):
    chosen = request.form.get("view")

    def change(d, players):
        if chosen not in VIEWS:
            raise Bad(_("There is no such part of the screen."), status=400)
        d["view"] = chosen

    return _tap(key, DEAL, change)


@bp.post("/focus")
def focus(key: str):
    def change(d, players):
        d["focus"] = _player(players).id

    return _tap(key, DEAL, change)


@bp.post("/end")
def end(key: str):
    """Who ended the deal and how (either or both; set, never toggled)."""

    def change(d, players):
        if "by" not in request.form and "reason" not in request.form:
            raise Bad(_("Tap who ended the deal, or how it ended."), "end", 400)
        if "by" in request.form:
            d["end_by"] = _player(players, "by").id
        if "reason" in request.form:
            d["end_reason"] = _choice("reason", REASONS)

    return _tap(key, DEAL, change)


@bp.post("/card")
def card(key: str):
    """One card of the end-of-deal entry: held, a drawn gun's, or a laid-out 10."""

    def change(d, players):
        zone = _choice("zone", ("held", "gun", "tens"))
        p = _player(players)
        code = _card({"held": HELD_RANKS, "gun": GUN_RANKS, "tens": (10,)}[zone])
        on = code not in _seen()
        pid = str(p.id)
        name_of = {q.id: q.name for q in players}
        used = _usage(d, players)
        if on and code in used and used[code] != (zone, p.id):
            z, owner = used[code]
            raise Bad(
                _(
                    "%(card)s is already used: %(reason)s.",
                    card=screens.card_symbol(code),
                    reason=_reason(z, name_of[owner]),
                ),
                f"player:{p.id}",
                409,
            )
        if zone == "held":
            d["held"][pid] = _set(d["held"].get(pid, []), code, on)
        elif zone == "tens":
            d["tens"][pid] = _set(d["tens"].get(pid, []), code, on)
        else:
            pending = _set(d["pending"].get(pid, []), code, on)
            name, _why = _gun_name(pending) if pending else (None, "")
            if name:  # a complete gun is drawn at once; no gun is part of another
                d["guns"][pid] = [*d["guns"].get(pid, []), pending]
                pending = []
            d["pending"][pid] = pending
        d["focus"] = p.id

    return _tap(key, DEAL, change)


@bp.post("/gun/remove")
def remove_gun(key: str):
    def change(d, players):
        p = _player(players)
        cards = sorted(_form("cards").split())
        pid = str(p.id)
        d["guns"][pid] = [g for g in d["guns"].get(pid, []) if sorted(g) != cards]
        d["focus"] = p.id

    return _tap(key, DEAL, change)


@bp.post("/clear")
def clear(key: str):
    """Start the end-of-deal entry again (marriages stay: undo them in the history)."""
    table, access = load(key, write=True)
    s = get_store()
    _data, version = s.draft(table.id, DEAL)
    if _int("version") != version:  # a retry, or another phone changed it: show what is there
        return panel_response(table, access)

    def change(d, players):
        keep = {k: d[k] for k in ("round", "view", "focus")}
        d.clear()
        d.update(_blank_deal(keep["round"]))
        d.update(keep)

    return _tap(key, DEAL, change)


@bp.post("/marriage/player")
def marriage_player(key: str):
    def change(d, players):
        d["marriage_player"] = _player(players).id

    return _tap(key, DEAL, change)


@bp.post("/marriage")
def marriage(key: str):
    """A marriage shown: +25 at once, stored in the deal's round (C-D1 refusals shown)."""
    table, access = load(key, write=True)
    s = get_store()
    submission_id = request.form.get("submission_id") or None
    if s.submission(submission_id, s.add_entry, table.id) is not None:
        return board_response(table, access, _("Already saved."))
    players = s.players(table.id)
    try:
        who = _player(players)
        suit = _choice("suit", SUITS)

        def marriage_request(round_number: int) -> dict:
            shown = _marriages(s.recent_entries(table.id), round_number, players)
            return {
                "players": [p.name for p in players],
                "player": who.name,
                "suit": suit,
                "shown": [{"player": m["player"], "suit": m["suit"]} for m in shown],
            }

        # a marriage the rules refuse (C-D1: a suit shown twice) writes nothing, not
        # even the pinned round below, so no other phone's save meets a changed version
        data, _version = s.draft(table.id, DEAL)
        api.evaluate(
            "cowboy-marriage",
            marriage_request(current_round(s.recent_entries(table.id), data)),
        )
        d = _update(table, DEAL, lambda d: None)  # pins the deal's round
        round_number = d["round"]
        request_json = marriage_request(round_number)
        screens.record(
            s,
            table,
            "cowboy-marriage",
            request_json,
            round_number,
            submission_id=submission_id,
            exclusive=False,
        )
    except Bad as exc:
        return board_response(table, access, flash=_flash(exc, "marriage"), status=exc.status)
    except RuleError as exc:
        return board_response(table, access, flash=_flash(exc, "marriage"), status=422)
    except store.StoreError as exc:
        return board_response(table, access, flash=_flash(exc, "marriage"), status=409)

    def reset(d):
        d["marriage_player"] = None

    _update(table, DEAL, reset)
    return board_response(
        table,
        access,
        _("%(name)s: marriage of %(suit)s, +25.", name=who.name, suit=SUIT_SYMBOLS.get(suit, suit)),
    )


@bp.post("/deal")
def save_deal(key: str):
    """Close the deal: the engine scores it, and one write stores it, closes the
    draft and retires the provisional marriages it carries (undoing the deal
    brings them back), so a marriage never counts twice."""
    table, access = load(key, write=True)
    s = get_store()
    submission_id = request.form.get("submission_id") or None
    if s.submission(submission_id, s.add_entry, table.id) is not None:
        return board_response(table, access, _("Already saved."))
    players = s.players(table.id)
    raw, version = s.draft(table.id, DEAL)
    entries = s.recent_entries(table.id)
    round_number = current_round(entries, raw)
    d = _normal_deal(raw, players, round_number)
    if d["end_by"] is None or d["end_reason"] is None:
        return board_response(
            table,
            access,
            flash={"where": "end", "message": _("Tap who ended the deal and how it ended.")},
            status=422,
        )
    marriages = _marriages(entries, round_number, players)
    request_json = deal_request(table, players, d, marriages)
    try:
        screens.record(
            s,
            table,
            "cowboy-deal",
            request_json,
            round_number,
            submission_id=submission_id,
            close_draft=DEAL,
            based_on_draft=(DEAL, version),
            replaces=tuple(m["entry_id"] for m in marriages),
        )
    except RuleError as exc:
        where, pid = _place(exc.path, players)
        flash = _flash(exc, where) if pid is None else _player_flash(exc.message, players, pid)
        return board_response(table, access, flash=flash, status=422)
    except store.Conflict as exc:
        return board_response(table, access, flash=_flash(exc), status=409)
    except store.StoreError as exc:
        return board_response(table, access, flash=_flash(exc), status=422)
    s.delete_draft(table.id, SHOT)  # the next deal starts with four aces on the table
    return board_response(table, access, _("Deal of round %(n)d saved.", n=round_number))


# ---------------------------------------------------------------- routes: the shot


@bp.post("/shot/player")
def shot_player(key: str):
    def change(sh, players):
        role = _choice("role", ("attacker", "victim"))
        sh[role] = _player(players).id
        other = "victim" if role == "attacker" else "attacker"
        if sh[other] == sh[role]:
            sh[other] = None

    return _tap(key, SHOT, change)


@bp.post("/shot/drawn")
def shot_drawn(key: str):
    def change(sh, players):
        sh["has_gun"] = _choice("drawn", ("yes", "no")) == "yes"

    return _tap(key, SHOT, change)


@bp.post("/shot/card")
def shot_card(key: str):
    def change(sh, players):
        zone = _choice("zone", ("gun", "held", "aces", "turned"))
        ranks = {"gun": GUN_RANKS, "held": VICTIM_RANKS, "aces": (ACE,), "turned": TURNED_RANKS}
        code = _card(ranks[zone])
        on = code not in _seen()
        if zone == "turned":
            sh["turned"] = code if on else None
            return
        if on and zone == "held" and code in sh["aces"]:
            sh["aces"] = _set(sh["aces"], code, False)  # the victim holds it: off the table
        if on:
            for other in ("gun", "held", "aces"):
                if other != zone and code in sh[other]:
                    raise Bad(
                        _("%(card)s is already used in this shot.", card=screens.card_symbol(code)),
                        "shot",
                        409,
                    )
        sh[zone] = _set(sh[zone], code, on)

    return _tap(key, SHOT, change)


@bp.post("/shot/suit")
def shot_suit(key: str):
    def change(sh, players):
        sh["turned_suit"] = _choice("suit", SUITS)
        if sh["turned"] and not sh["turned"].endswith(sh["turned_suit"]):
            sh["turned"] = None

    return _tap(key, SHOT, change)


@bp.post("/shot/decline")
def shot_decline(key: str):
    """C-D11: the dodging victim leaves the ace on the table, or takes it after all."""

    def change(sh, players):
        sh["declines_ace"] = _choice("declines", ("yes", "no")) == "yes"

    return _tap(key, SHOT, change)


def _versioned_shot(key: str, act: Callable[[store.Table, dict], None]):
    table, access = load(key, write=True)
    s = get_store()
    _data, version = s.draft(table.id, SHOT)
    if _int("version") != version:  # a retry, or another phone moved on: show what is there
        return panel_response(table, access)
    try:
        act(table, version)
    except Bad as exc:
        return panel_response(table, access, _flash(exc), exc.status)
    except store.StoreError as exc:
        return panel_response(table, access, _flash(exc), 409)
    return panel_response(table, access)


@bp.post("/shot/next")
def shot_next(key: str):
    """The shot is over: a dodge's ace leaves the table; the next shot starts clean."""

    def act(table, version):
        def change(sh):
            verdict = judge(sh)
            aces = list(sh["aces"])
            result = verdict["result"]
            if result and result["outcome"] == "dodge" and result.get("ace") in aces:
                aces.remove(result["ace"])
            sh.clear()
            sh.update(_blank_shot())
            sh["aces"] = aces

        _update(table, SHOT, change)

    return _versioned_shot(key, act)


@bp.post("/shot/end-deal")
def shot_end_deal(key: str):
    """A dodge took the fourth ace: the deal ends, ended by the attacker."""

    def act(table, version):
        s = get_store()
        players = s.players(table.id)
        raw, _v = s.draft(table.id, SHOT)
        sh = _normal_shot(raw, players)
        result = judge(sh)["result"]
        if not (result and result["outcome"] == "dodge" and result.get("ends_deal")):
            raise Bad(_("This shot does not end the deal."), "shot")
        if sh["attacker"] is None:
            raise Bad(_("Tap who shot first: the attacker ended the deal."), "shot")

        def change(d):
            d["end_by"] = sh["attacker"]
            d["end_reason"] = "aces"
            d["view"] = "end"

        _update(table, DEAL, change)
        s.delete_draft(table.id, SHOT)

    return _versioned_shot(key, act)
