"""What the Wyoming Cowboy panel shows (``scorekeeper.views.cowboy``'s view): drawn from
the play state's JSON alone, each button the tap it means in the state's notation.
Which part of the deal a phone shows, whose cards are open, who shows a marriage and
the turned card's suit are that phone's own (``data-view``); every tap names its seat."""

from __future__ import annotations

import functools

from markupsafe import Markup, escape

from ..cards import JACK, KING, QUEEN, SUIT_SYMBOLS, SUITS, Card
from ..games import catalog
from ..games import cowboy as engine
from ..games.play.cowboy import ACES, GUN_CARDS, REASONS, SHOT_CARDS, TENS
from ..messages import gettext as _
from ..messages import ngettext, signed
from ..store import new_submission_id
from . import fragments, panel

# the held cards a player is asked for: those of the ranks that score, a row per suit
HELD_ROWS = tuple(tuple(str(Card(r, s)) for r in engine.SCORING_RANKS) for s in SUITS)
# the cards of the guns drawn at the end, a row per suit
GUN_ROWS = tuple(tuple(c for c in GUN_CARDS if c.endswith(s)) for s in SUITS)


# the engine's and the state's sentences name cards by code ("turned 9H"); the screen
# shows every card by its symbol (9♥)
symbols = panel.symbols


def _button(v: panel.View, action: str | None, on: bool = False, why: str = "", **args):
    """One tap button: what the player means, in the state's notation (none: disabled,
    ``why`` says why)."""
    vals = v.tap_vals(action, **args) if action and v.writable else None
    return {"vals": vals, "on": on, "reason": why}


def _choices(v: panel.View, action: str, arg: str, options, chosen, seat: int) -> list:
    """One button per (value, label): the tap of ``action`` naming ``seat`` and the value."""
    return [
        {"value": x, "label": label, **_button(v, action, on=chosen == x, seat=seat, **{arg: x})}
        for x, label in options
    ]


def _suit(suit: str) -> dict:
    return {
        "suit": suit,
        "symbol": SUIT_SYMBOLS[suit],
        "colour": "red" if suit in "HD" else "black",
    }


def _problem_seat(problem: dict | None, names: list[str]) -> int | None:
    """The seat an engine refusal is about (its path names the player), or None."""
    path = (problem or {}).get("path", "")
    for name in sorted(names, key=len, reverse=True):
        for section in ("held", "guns", "tens"):
            at = f"{section}.{name}"
            if path == at or path.startswith((at + "[", at + ".")):
                return names.index(name)
    return None


def _holdings(v: panel.View, st: dict, names: list[str]) -> list[dict]:
    """Every player's cards at the end: three pickers each, the cards used elsewhere
    disabled with whose they are."""
    where = {}  # card → (seat, zone)
    for h in st["holdings"]:
        for zone, cards in (
            ("held", h["held"]),
            ("drawn", [c for g in h["guns"] for c in g["cards"]]),
            ("gun", (h["building"] or {}).get("cards", [])),
            ("tens", h["tens"]),
        ):
            where.update({c: (h["seat"], zone) for c in cards})
    own = {"held": _("held"), "gun": _("gun"), "drawn": _("gun"), "tens": _("laid")}
    other = {"held": "%s", "gun": _("%s · gun"), "drawn": _("%s · gun"), "tens": _("%s · laid")}
    score, at = st["score"], _problem_seat(st["problem"], names)
    # each card's reason as its holder's pickers and as the others' say it, made once
    said = {c: (x, z, own[z], other[z] % names[x]) for c, (x, z) in where.items()}
    placed: dict[tuple[int, str], list[str]] = {}  # (seat, zone) → its cards
    for c, (x, z) in where.items():
        placed.setdefault((x, z), []).append(c)
    rows = []
    for h in st["holdings"]:
        seat = h["seat"]
        # what this seat's pickers say of every card placed (a picker's own cards among
        # them are its selected ones, which View.picker never shows as taken)
        seen = {c: mine if x == seat else others for c, (x, _z, mine, others) in said.items()}

        def picker(cards, zone, actions, seat=seat, seen=seen):
            return v.picker(cards, actions, {"seat": seat}, seen, placed.get((seat, zone), ()))

        def by_suit(rows, zone, actions):  # a tap changes its suit's row alone
            return [picker(row, zone, actions) for row in rows]

        rows.append(
            {
                "seat": seat,
                "name": names[seat],
                # the cards a player holds (in hand and guns), and the 10s laid out apart
                "count": sum(1 for x, zone in where.values() if x == seat and zone != "tens"),
                "laid": len(h["tens"]),
                "total": signed(score["players"][names[seat]]["total"]) if score else None,
                "invalid": at == seat,
                "held": by_suit(HELD_ROWS, "held", ("hold", "unhold")),
                "gun": by_suit(GUN_ROWS, "gun", ("build", "unbuild")),
                "tens": picker(TENS, "tens", ("lay", "unlay")),
                "guns": [
                    {**g, "remove": _button(v, "undraw", seat=seat, gun=g["cards"])}
                    for g in h["guns"]
                ],
                "building": h["building"],
            }
        )
    return rows


def gun_name(name: str | None) -> str | None:
    """A gun's name as the page's language says it (the engine's is English: "357 Quick
    Draw" is named as the rule card names it; a number is itself)."""
    return _(name) if name else name


def _codes(cards) -> str:
    """Cards as the panel names them: each its symbol in its suit's colour."""
    return "".join(
        f'<span class="suit-{escape(panel.card_colour(c))}">{escape(panel.card_symbol(c))}</span> '
        for c in cards
    )


def _tab_count(held: int, laid: int) -> Markup:
    """A player's tab: the cards held counted as cards, the 10s laid out named apart
    ("2 cards · 1 ten"; "1 ten" alone when only tens are laid)."""
    cards = ngettext("%(num)d card", "%(num)d cards", held)
    if not laid:
        return Markup(cards)
    # Translators: 10s laid out on the table at the end of a Cowboy deal, counted
    # apart from the cards held on a player's tab ("2 cards · 1 ten")
    tens = ngettext("%(num)d ten", "%(num)d tens", laid)
    return Markup(f"{cards} · {tens}" if held else tens)


def cards_html(sc: dict) -> Markup:
    """Every player's cards at the end (a tab each, then the player's pickers, drawn guns
    and the gun being built), as the panel's template drew them, written in one pass: a
    tap at the end of a deal changes every player's part (whose each card is)."""
    whose = Markup(_("Whose cards"))
    out = [
        f'<div class="cb-cards" data-view-key="{escape(sc["view_key"])}:cards" data-view-default="0">\n'
        f'      <div class="cb-tabs" role="group" aria-label="{whose}">\n'
    ]
    for i, h in enumerate(sc["holdings"]):
        name = escape(h["name"])
        if h["total"] is not None:
            small = escape(h["total"])
        elif h["invalid"]:
            small = "!"
        else:
            small = _tab_count(h["count"], h["laid"])
        out.append(
            f'        <button type="button" class="cb-tab{" invalid" if h["invalid"] else ""}" '
            f'data-view-set="{h["seat"]}" data-player="{name}" title="{name}"\n'
            f'                aria-pressed="{"true" if i == 0 else "false"}">\n'
            f'          <span class="cb-tab-name">{name}</span>\n'
            f"          <small>{small}</small>\n"
            f"        </button>\n"
        )
    out.append("      </div>\n")
    problem_player, suits = sc["problem_player"], panel.suit_names()
    for i, h in enumerate(sc["holdings"]):
        name = escape(h["name"])
        hidden = " hidden" if i else ""
        out.append(
            f'      <div class="cb-player" data-player="{name}" data-view-only="{h["seat"]}"{hidden}>\n'
        )
        if problem_player:
            said = escape(problem_player)
            # on another player's part, said whose problem it is, unless it says so
            named = problem_player == h["name"] or problem_player in sc["problem"]
            whose = "" if named else f"{said}: "
            out.append(
                f'        <p class="field-error" role="alert" data-player="{said}">'
                f"{whose}{escape(symbols(sc['problem']))}</p>\n"
            )
        shown = fragments.player_name(h["name"])
        held_label = Markup(_("%(name)s holds", name=shown))
        counted = Markup(_("hand, captured kings and pairs; only A K Q J 10 6 2 count"))
        out.append(f"        <h4>{held_label} <small>{counted}</small></h4>\n")
        label = Markup(_("Held cards of %(name)s", name=name))
        out.append(f"        {fragments.suit_groups(h['held'], suits, label, 'cb-heldpick')}\n")
        drawn, how = Markup(_("Drawn guns")), Markup(_("tap the cards of one gun"))
        out.append(f"        <h4>{drawn} <small>{how}</small></h4>\n")
        if h["guns"]:
            out.append('        <ul class="cb-guns">\n')
            for g in h["guns"]:
                gun = gun_name(g["name"])
                aria = Markup(_("Remove the gun %(gun)s", gun=escape(gun)))
                remove = sc["tap"](g["remove"], "✕", "small cb-remove", f'aria-label="{aria}"')
                out.append(
                    f"          <li><strong>{escape(gun)}</strong>\n"
                    f"            {_codes(g['cards'])}\n"
                    f"            {remove}</li>\n"
                )
            out.append("        </ul>\n")
        if h["building"]:
            building, not_yet = h["building"], Markup(_("not a gun yet"))
            out.append(
                f'        <p class="cb-pending warning">{_codes(building["cards"])}— '
                f"{not_yet}: {escape(symbols(building['reason']))}</p>\n"
            )
        label = Markup(_("Gun cards of %(name)s", name=name))
        out.append(f"        {fragments.suit_groups(h['gun'], suits, label, 'cb-gunpick')}\n")
        label = Markup(_("10s laid out by %(name)s", name=name))
        heading = Markup(_("10s laid out by %(name)s", name=shown))
        out.append(f"        <h4>{heading}</h4>\n")
        out.append(f"        {fragments.group(h['tens'], label, 'cb-tenpick')}\n")
        out.append("      </div>\n")
    out.append("    </div>")
    return Markup("".join(out))


def _preview(st: dict, names: list[str]) -> list[dict]:
    """The engine's score of the deal, item by item."""
    players = (st["score"] or {}).get("players", {})
    rows = [
        {"name": name, "seat": seat, **players[name]}
        for seat, name in enumerate(names)
        if name in players
    ]
    for row in rows:
        row["total"] = signed(row["total"])
        row["lines"] = [
            {**i, "label": _(engine.item_label(i["code"])), "points": signed(i["points"])}
            for i in row["items"]
        ]
    return rows


def outcome_of(code: str) -> tuple[str, str]:
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
    }.get(code, ("info", code))


def _current_shot(st: dict) -> dict:
    """The shot being judged, or the one being aimed (its gun still loading)."""
    return st["shot"] or st["aim"] or {"attacker": None, "victim": None, "gun": []}


def shot_facts(st: dict, names: list[str]) -> dict:
    """What the referee knows of the shot, as every phone may see it (a watch link
    too): who shoots at whom with which gun, its verdict, the deal's shots before."""
    shot, aim = st["shot"], st["aim"]
    current = _current_shot(st)
    attacker, victim = current["attacker"], current["victim"]
    out: dict = {
        "active": bool(shot or aim),
        "started": shot is not None,
        "attacker_name": names[attacker] if attacker is not None else None,
        "victim_name": names[victim] if victim is not None else None,
        "gun_cards": current["gun"],
        "gun_name": gun_name(current.get("gun_name")),
        "gun_reason": aim["reason"] if aim and aim["gun"] else "",
        "error": shot and shot["error"] and shot["error"]["message"],
        "outcome": None,
        "shots": [
            {
                **x,
                "attacker": names[x["attacker"]],
                "victim": names[x["victim"]],
                "label": outcome_of(x["outcome"])[1],
                "tone": outcome_of(x["outcome"])[0],
            }
            for x in st["shots"]
        ],
    }
    verdict = shot and shot["verdict"]
    if verdict:
        code = verdict["outcome"]
        tone, label = outcome_of(code)
        out["outcome"] = {
            "code": code,
            "tone": tone,
            "label": label,
            "gun": gun_name(engine.GUN_NAMES.get(verdict.get("gun"))),
            "reason": verdict.get("reason", ""),
            "ends_deal": bool(verdict.get("ends_deal")),
            "declined": code == "dodge" and shot["declines_ace"],
        }
    return out


def _shot(v: panel.View, st: dict, names: list[str]) -> dict:
    """The referee (``shot_facts``) with its controls: every choice offered is one of
    the state's legal taps."""
    shot, aim = st["shot"], st["aim"]
    legal = {e["action"]: e for e in st["legal"]}
    current = _current_shot(st)
    attacker, victim = current["attacker"], current["victim"]
    out = shot_facts(st, names)
    out["cancel"] = _button(v, "cancel_shot") if shot or aim else None
    out["over"] = _button(v, "shot_over") if "shot_over" in legal else None
    aiming = "aim" in legal
    out["roles"] = [
        {
            "role": role,
            "label": label,
            "players": [
                {
                    "name": name,
                    **_button(
                        v,
                        "aim" if aiming and not (role == "victim" and seat == attacker) else None,
                        on=current[role] == seat,
                        role=role,
                        seat=seat,
                    ),
                }
                for seat, name in enumerate(names)
            ],
        }
        for role, label in (("attacker", _("Who shoots")), ("victim", _("At whom")))
    ]
    if aiming:
        full = {} if "load" in legal else {c: _("3 cards") for c in GUN_CARDS}
        out["gun"] = v.picker(GUN_CARDS, ("load", "unload"), {}, full, current["gun"])
    if shot:
        used = {c: _("the gun") for c in shot["gun"]}
        if shot["turned"]:
            used[shot["turned"]] = _("turned")
        out["held"] = v.picker(
            SHOT_CARDS, ("victim_holds", "victim_lacks"), {"seat": victim}, used, shot["held"]
        )
        yes_no = ((True, _("Yes")), (False, _("No")))
        out["drawn"] = _choices(v, "victim_gun", "drawn", yes_no, shot["has_gun_drawn"], victim)
        if "turn" in legal:
            turnable = set(legal["turn"]["card"])
            suits = []
            for suit in SUITS:
                cards = [str(Card(r, suit)) for r in (KING, QUEEN, JACK, *range(10, 1, -1))]
                used = {c: _("used") for c in cards if c not in turnable}
                picked = [shot["turned"]] if shot["turned"] else []
                cards = v.picker(cards, "turn", {"seat": attacker}, used, picked)
                suits.append({**_suit(suit), "cards": cards})
            out["turn"] = {"suits": suits, "suit": shot["turned"][-1] if shot["turned"] else ""}
        outcomes = [(o, outcome_of(o)[1]) for o in legal.get("choose", {}).get("outcome", [])]
        out["choose"] = _choices(v, "choose", "outcome", outcomes, shot["chosen"], victim)
        kings = [(c, panel.card_symbol(c)) for c in legal.get("give", {}).get("card", [])]
        out["give"] = _choices(v, "give", "card", kings, shot["given"], victim)
        if "take_ace" in legal:
            declined = shot["declines_ace"]
            out["take_ace"] = {
                "declined": declined,
                **_button(v, "take_ace", on=declined, seat=victim, take=declined),
            }
    back = set((legal.get("ace_on_table") or {}).get("card", []))
    held = {c: _("held") for c in ACES if c not in back and c not in st["aces_on_table"]}
    out["aces"] = v.picker(ACES, ("ace_on_table", "ace_off_table"), {}, held, st["aces_on_table"])
    return out


def _once(make):
    """``make()`` on the first call, kept for the next: a part of the panel whose HTML is
    kept (``fragments.fragment``, keyed by what it is made of) is made only when drawn."""
    return functools.cache(make)


# what the shot referee (``_shot``) reads of the state's legal taps
SHOT_ACTIONS = ("shot_over", "aim", "load", "turn", "choose", "give", "take_ace", "ace_on_table")


def _shot_of(st: dict) -> tuple:
    """All ``_shot`` reads of the state (the shot part's key besides the view's)."""
    legal = [e for e in st["legal"] if e["action"] in SHOT_ACTIONS]
    return st["shot"], st["aim"], legal, st["shots"], st["aces_on_table"]


def _why_no_end(state, st: dict) -> str:
    """Why nobody may end the deal now (the state's own refusal: a shot is being
    refereed), or "" while anyone may."""
    if any(e["action"] == "end" for e in st["legal"]):
        return ""
    return panel.why_not(state, "end", seat=0, reason=REASONS[0])


def _seats(
    v: panel.View, names: list[str], shown: set, end: dict | None, reasons, end_why: str
) -> list:
    """Each player's marriage suits and the ways they may have ended the deal (none
    while ``end_why`` says why not)."""
    return [
        {
            "seat": seat,
            "name": name,
            "suits": [
                {
                    **_suit(suit),
                    "shown": suit in shown,
                    **_button(v, None if suit in shown else "marriage", seat=seat, suit=suit),
                }
                for suit in SUITS
            ],
            "reasons": [
                {
                    "code": code,
                    "label": label,
                    **_button(
                        v,
                        None if end_why else "end",
                        on=bool(end) and (end["seat"], end["reason"]) == (seat, code),
                        why=end_why,
                        seat=seat,
                        reason=code,
                    ),
                }
                for code, label in reasons
            ],
        }
        for seat, name in enumerate(names)
    ]


def view(v: panel.View) -> dict:
    state, context, table = v.state, v.context, v.table
    st = state.to_json()
    names = list(state.players)
    shown, end = set(st["suits_shown"]), st["end"]
    end_why = _why_no_end(state, st) if v.writable else ""
    key = table.scorer_key if v.writable else table.watch_key
    at = _problem_seat(st["problem"], names)
    reasons = (
        ("tens", _("Tens: all four 10s out and a 22 drawn")),
        ("aces", _("Fourth ace left the table")),
    )
    made = {
        "finished": False,
        "symbols": symbols,
        "can_write": v.writable,
        "v": v,
        "tap": functools.partial(fragments.tap, v.url("tap")),
        "round": context.get("round"),
        "dealer": context.get("dealer"),
        "editing": context.get("supersedes") is not None,
        # a deal's own: what this phone chose in one deal (its part, whose cards, the
        # ender) does not carry into the next, nor into an edit of a saved one
        "view_key": f"cowboy:{key}:{v.deal_key}",
        "fold_key": f"cowboy:{key}",
        "part": "shot" if st["shot"] or st["aim"] else ("end" if end else "play"),
        "step": st["next"],
        "rules_on": sum(bool(table.settings.get(s.key, s.default)) for s in _house_rules()),
        "house_rules": [
            {
                "label": s.label,
                "decision": s.decision,
                "on": bool(table.settings.get(s.key, s.default)),
            }
            for s in _house_rules()
        ],
        "marriages": [
            {
                **m,
                "points": signed(m["points"]),
                "withdraw": _button(v, "withdraw_marriage", seat=m["seat"], suit=m["suit"]),
            }
            for m in st["marriages"]
        ],
        # the marriage and ender parts: made of these, drawn when not kept
        "seats_of": (names, st["suits_shown"], end, end_why),
        "seats": _once(lambda: _seats(v, names, shown, end, reasons, end_why)),
        "end_why": end_why,
        "shot_of": (names, _shot_of(st)) if v.writable else None,
        "shot_active": bool(st["shot"] or st["aim"]),
        "shot": _once(lambda: _shot(v, st, names) if v.writable else shot_facts(st, names)),
        "end_seat": str(end["seat"]) if end else "",
        "ended_by": (
            {"name": names[end["seat"]], "how": dict(reasons).get(end["reason"], "")}
            if end
            else None
        ),
        "ended": bool(end),
        "holdings": _holdings(v, st, names) if v.writable else [],
        "problem": st["problem"]["message"] if st["problem"] else None,
        "problem_player": names[at] if at is not None else None,
        "preview": _preview(st, names),
        "complete": st["complete"],
        "submission_id": new_submission_id(),
    }
    made["cards_html"] = lambda: cards_html(made)
    return made


def _house_rules():
    return [s for s in catalog.game("cowboy").settings if s.house_rule]
