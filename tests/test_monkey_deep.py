"""Random walks that begin where a worked deal is saved. A fresh table is brought to a
worked deal's complete state by sending its tap log (tests/data/play) through the
screen as the buttons send it, and the screen's own Save closes it; from there a
seeded walk taps whatever the page offers, the history's Edit, Undo and Redo included.

Besides what every walk checks (no server error, a refusal says why and changes
nothing, a next tap is always offered), every answer must leave the books straight:
the standings are what the engines score for the live entries, a deal is counted once
in its round, and the history lists each live entry once and no edited-away one. An
edited deal saved replaces the old one in its round, and saved without a change of
its request leaves every total as it was."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from conftest import Page, start_table
from test_monkey import FIELDS, Elements, Table, said, versions

from scorekeeper import api, deals
from scorekeeper.games import catalog
from scorekeeper.store import Entry

PLAYS = Path(__file__).parent / "data" / "play"
# worked logs that a fresh table can take: a first deal, the table's house rules
WORKED = {
    "cowboy": ("cowboy-tens",),
    "kvanta": ("kvanta-first-round-hand",),
    "pegs": ("pegs-joker-bump",),
    "szaman": ("szaman-full-deal", "szaman-quick-deal", "szaman-russian"),
    "vezimas": ("vezimas-played-out", "vezimas-first-deal-quick"),
}
# the kinds of entry of which a round holds one live at most, each group together (a
# Kvanta round's steps, each once; a Kvanta Flux may come several times; a Pegs turn is
# a move or a board set by hand)
ONE_A_ROUND = {
    "cowboy": [{"cowboy-deal"}],
    "kvanta": [{"kvanta-dealer"}, {"kvanta-hand"}, {"kvanta-call"}, {"kvanta-poker"}],
    "pegs": [{"pegs-apply", "pegs-board"}],
    "szaman": [{"szaman-deal"}],
    "vezimas": [{"vezimas-deal"}, {"vezimas-trumps"}],
}
TAKEN_OVER = {"cowboy-deal": "cowboy-marriage"}  # the marriages counted while it was open
SAVED_ALONE = {"cowboy", "szaman", "vezimas"}  # a deal's Save stores it as one entry
POINTS_SHOWN = {"cowboy", "kvanta", "szaman", "vezimas"}  # Pegs' standings: pegs home
ROLLS = {"roll", "reroll", "exchange"}  # Kvanta's dice, sent as the faces of physical dice
FINISHED = 'class="status words-whole finished"'  # the game is over, its winner named
ROW = re.compile(
    r'<li class="round( undone)?" data-round="(\d+)" data-entry="(\d+)">.*?'
    r'<span class="round-kind">([^<]*)</span>',
    re.S,
)


def worked(name: str) -> dict:
    """A worked log's request: its players, house rules and taps."""
    return json.loads((PLAYS / f"{name}.json").read_text())["request"]


def start_fields(game: str, request: dict) -> dict:
    """The start form's house rules for a worked log, as a browser sends them: each
    rule as the log sets it, else as the form shows it (its default; a checkbox left
    unticked is not sent)."""
    chosen = {s.key: s.default for s in catalog.game(game).settings}
    chosen.update(request.get("settings", {}))
    return {
        f"{game}-{key}": "on" if value is True else str(value)
        for key, value in chosen.items()
        if value is not False
    }


class SavingPhone(Table):
    """A phone at a table started for a worked log (its players and house rules) that
    also taps the history's Edit (a plain form, sent as a browser sends it) and the
    history's Undo and Redo."""

    def __init__(self, client, game: str, request: dict):
        url, _page = start_table(client, game, request["players"], **start_fields(game, request))
        super().__init__(client, game, url)

    def deal_seen(self) -> dict:
        """The deal version and round the screen's buttons send now."""
        for _url, fields in self.buttons():
            if "round" in fields:
                return {"v": fields["v"], "round": fields["round"]}
        raise AssertionError(f"the screen offers no tap of its deal: {self.sent[-3:]}")

    def send_worked(self, tap: dict):
        """One tap of a worked log, sent as the screen's buttons send it: Kvanta's dice
        as the faces of physical dice, chosen on the phone."""
        notation = {k: v for k, v in tap.items() if k != "id"}
        fields = {**self.deal_seen(), "tap_id": f"{tap['id']}-worked"}
        route = "tap"
        if self.game == "kvanta" and tap["action"] in ROLLS:
            faces = notation.pop("dice", None) or [notation.pop("die")]
            notation["physical"] = True
            fields.update({f"die{i}": str(face) for i, face in enumerate(faces)})
            route = "roll"
        fields["tap"] = json.dumps(notation)
        return self.tap(f"{self.url}/{self.game}/{route}", fields)

    def history_actions(self) -> list[tuple[str, str, dict]]:
        """The history's Edit, Undo and Redo buttons: (kind, url, fields)."""
        history = self.html[self.html.index('id="history"') :]
        history = history[: history.index("</section>")]
        found = [
            ("history edit", url, {"csrf_token": self.csrf})
            for url in re.findall(r'<form method="post" class="reopen" action="([^"]+)"', history)
        ]
        reader = Elements()
        reader.feed(history)
        for el, _above in reader.posting:
            url = el["hx-post"]
            which = url.rsplit("/", 1)[-1]
            if "/entries/" in url and which in ("undo", "redo"):
                found.append((f"history {which}", url, dict(el.get(FIELDS, {}))))
        return found

    def offered(self) -> list[tuple[str, str, dict]]:
        """Every tap the page offers: (kind, url, fields). A kind is the route and, for
        a tap of the deal, its action; or the history's Edit, Undo or Redo."""
        taps = []
        for url, fields in self.buttons():
            action = json.loads(fields["tap"]).get("action") if "tap" in fields else None
            taps.append((f"{url.rsplit('/', 1)[-1]} {action}", url, fields))
        return taps + self.history_actions()

    def send(self, kind: str, url: str, fields: dict):
        """Tap what ``offered`` gave, as the page sends it."""
        if kind == "history edit":  # a plain form: no htmx, its token among its fields
            self.sent.append((url, fields))
            return self.client.post(url, data=fields)
        return self.tap(url, fields)

    def rows(self) -> list[tuple[int, int, bool, str]]:
        """The history's rows: (round, entry id, live, what it says of itself)."""
        history = self.html[self.html.index('id="history"') :]
        return [
            (int(rnd), int(entry), not undone, kind.strip())
            for undone, rnd, entry, kind in ROW.findall(history)
        ]


class Books:
    """The table's entries as stored, read afresh each time."""

    def __init__(self, store, phone: SavingPhone):
        self.store, self.game = store, phone.game
        self.table_id = store.table_by_key(phone.url.rsplit("/", 1)[-1])[0].id

    def entries(self) -> dict[int, Entry]:
        return {e.id: e for e in self.store.entries(self.table_id)}

    def closes_into(self, entry: Entry) -> dict:
        """What the tap log an entry was saved with closes into, replayed as the
        screen replays a deal: (kind, request)."""
        (stored,) = self.store.db.execute("SELECT taps FROM entries WHERE id = ?", [entry.id])
        deal = deals.DEALS[self.game]
        table = self.store.table(self.table_id)
        closing = deals.state_of(deal, table, json.loads(stored[0])).to_json()["closing"]
        return {"kind": closing["kind"], "request": closing["request"]}

    def scored(self) -> dict[str, int]:
        """Each player's total as the engines score the live entries' requests (an entry
        of a kind no engine scores, a Pegs board, counts nothing)."""
        names = {p.id: p.name for p in self.store.players(self.table_id)}
        totals = dict.fromkeys(names.values(), 0)
        for entry in self.entries().values():
            if not entry.live:
                continue
            if entry.kind not in api.kinds():
                assert not entry.points, entry
                continue
            result = api.evaluate(entry.kind, entry.request)
            for name, points in api.points_of(entry.kind, result).items():
                totals[name] += points
        return totals

    def check(self, phone: SavingPhone, context) -> None:
        """The books are straight: the history lists each live entry once (all of them
        when it shows the whole table) and no edited-away one; a round counts each
        deal once (and not what the deal took over beside it); the standings are what
        the engines score."""
        entries = self.entries()
        rows = phone.rows()
        live = sorted(e.id for e in entries.values() if e.live)
        listed = sorted(entry for _rnd, entry, is_live, _kind in rows if is_live)
        whole = f'href="{phone.url}/history"' not in phone.html  # no earlier rows hidden
        assert listed == live if whole else set(listed) <= set(live), (context, rows, live)
        assert not [r for r in rows if entries[r[1]].state == "superseded"], (context, rows)
        counted: dict[tuple[int, str], int] = {}
        for e in entries.values():
            if e.live:
                counted[(e.round, e.kind)] = counted.get((e.round, e.kind), 0) + 1
        for kinds in ONE_A_ROUND[self.game]:
            for rnd in {rnd for rnd, _kind in counted}:
                once = sum(counted.get((rnd, kind), 0) for kind in kinds)
                assert once <= 1, (context, f"round {rnd} counts {sorted(kinds)} {once} times")
        for rnd, kind in counted:
            beside = TAKEN_OVER.get(kind)
            assert (rnd, beside) not in counted, (context, rnd, kind, "counted beside", beside)
        if self.game in POINTS_SHOWN:
            assert Page.totals(phone) == self.scored(), (context, Page.totals(phone))


def closings(client, game: str, request: dict) -> list[dict]:
    """What the play state says the worked log closes into: (kind, request) each."""
    answer = client.post(f"/api/v1/play/{game}", json=request)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    closing = answer.get_json()["closing"]
    assert closing, (game, "the worked log closes nothing")
    return [
        {"kind": c["kind"], "request": c["request"]}
        for c in (closing if isinstance(closing, list) else [closing])
    ]


def saved_worked_deal(app, store, name: str) -> tuple[SavingPhone, Books]:
    """A fresh table brought to the worked deal ``name`` through the screen and saved
    by its Save button (a deal that closes by its last tap, a Kvanta round or a Pegs
    move, has none); every tap is taken, and the live entries then end with what the
    play state closes the log into."""
    game = name.split("-")[0]
    request = worked(name)
    phone = SavingPhone(app.test_client(), game, request)
    books = Books(store, phone)
    for tap in request["taps"]:
        answer = phone.send_worked(tap)
        assert answer.status_code == 200, (name, tap, said(answer.get_data(as_text=True)))
        phone.reload()
    saves = [(url, fields) for kind, url, fields in phone.offered() if kind == "save None"]
    if game not in ("kvanta", "pegs"):
        assert len(saves) == 1, (name, "the complete deal offers one Save", saves)
        answer = phone.tap(*saves[0])
        assert answer.status_code == 200, (name, said(answer.get_data(as_text=True)))
        phone.reload()
    expected = closings(phone.client, game, request)
    live = [e for e in books.entries().values() if e.live]
    assert [{"kind": e.kind, "request": e.request} for e in live[-len(expected) :]] == expected
    books.check(phone, name)
    return phone, books


ALL_WORKED = [name for names in WORKED.values() for name in names]


@pytest.mark.parametrize("name", ALL_WORKED)
def test_a_worked_deal_saved_and_edited_without_a_change_keeps_its_round_and_totals(
    app, store, name
):
    """The worked deal is saved as its play state closes it and scored as its engine
    scores it. Its Edit in the history puts the deal back on the screen; saved again
    unchanged (a Pegs move: made again) it replaces the old entries in their round,
    the history lists the new ones once, marked edited, and no total moves."""
    phone, books = saved_worked_deal(app, store, name)
    before = books.entries()
    totals = Page.totals(phone)
    (edit,) = [(url, fields) for kind, url, fields in phone.history_actions() if "edit" in kind]
    answer = phone.send("history edit", *edit)
    assert answer.status_code == 303, said(answer.get_data(as_text=True))
    phone.reload()
    assert books.entries() == before  # an Edit opened changes no entry
    if phone.game == "pegs":  # the move again: it closes the reopened turn
        answer = phone.send_worked({**worked(name)["taps"][-1], "id": "again"})
    else:
        (save,) = [(url, fields) for kind, url, fields in phone.offered() if kind == "save None"]
        answer = phone.tap(*save)
    assert answer.status_code == 200, said(answer.get_data(as_text=True))
    phone.reload()
    after = books.entries()
    gone = sorted(i for i, e in after.items() if i in before and before[i].live and not e.live)
    new = [e for i, e in after.items() if i not in before]
    assert gone and all(after[i].state == "superseded" for i in gone), (gone, after)
    assert any(e.supersedes in gone for e in new), new
    assert sorted((e.round, e.kind, json.dumps(e.request)) for e in new) == sorted(
        (before[i].round, before[i].kind, json.dumps(before[i].request)) for i in gone
    )
    rows = phone.rows()
    for e in new:
        (row,) = [r for r in rows if r[1] == e.id]
        assert row[2] and ("edited" in row[3]) == (e.supersedes is not None), row
    assert not [r for r in rows if r[1] in gone], rows
    if phone.game in SAVED_ALONE:
        (deal,) = new
        assert books.closes_into(deal) == {"kind": deal.kind, "request": deal.request}
    assert Page.totals(phone) == totals
    books.check(phone, name)


# (worked log, seed): the walks; each seed's walk differs from its first tap on
WALKS = [
    ("cowboy-tens", 3),
    ("cowboy-tens", 4),
    ("kvanta-first-round-hand", 2),
    ("pegs-joker-bump", 1),
    ("szaman-full-deal", 3),
    ("szaman-quick-deal", 2),
    ("szaman-russian", 0),
    ("szaman-russian", 3),
    ("vezimas-played-out", 0),
    ("vezimas-played-out", 4),
    ("vezimas-first-deal-quick", 0),
    ("vezimas-first-deal-quick", 4),
    ("kvanta-first-round-hand", 1),
    ("kvanta-first-round-hand", 15),
    ("kvanta-first-round-hand", 17),
    ("vezimas-played-out", 1),
    ("vezimas-played-out", 5),
    ("vezimas-played-out", 45),
    ("vezimas-first-deal-quick", 1),
    ("vezimas-first-deal-quick", 11),
    ("cowboy-tens", 46),
    ("cowboy-tens", 55),
    ("cowboy-tens", 63),
    ("cowboy-tens", 96),
    ("kvanta-first-round-hand", 87),
    ("kvanta-first-round-hand", 88),
    ("vezimas-first-deal-quick", 98),
    ("cowboy-tens", 169),
    ("vezimas-played-out", 133),
]
LEGS = 3  # each from an Edit of a saved deal
TAPS_A_LEG = 12
TIDYING = 80  # more than the taps a leg leaves to undo
FAVOURED = {"save None": 3}  # the weight of a kind of tap, else 1


def pick(chooser: random.Random, offered: list[tuple[str, str, dict]]):
    """Half the time any button; else a kind of tap first (Save, Undo, the history's
    Edit, a card's tap), then one of its buttons, so that a card picker's fifty buttons
    do not crowd out the rest; Save weighs more, for a leg to reach an edit saved."""
    if chooser.random() < 0.5:
        return chooser.choice(offered)
    kinds: dict[str, list] = {}
    for one in offered:
        kinds.setdefault(one[0], []).append(one)
    names = sorted(kinds)
    (kind,) = chooser.choices(names, weights=[FAVOURED.get(k, 1) for k in names])
    return chooser.choice(kinds[kind])


def told(html: str) -> str:
    """Why an answer refused: its alert, or its notice (news of the table, as "There is
    nothing to undo.", not a fault of the tap)."""
    notices = re.findall(r'role="status"[^>]*>([^<]*)<', html)
    return " | ".join(filter(None, [said(html), *(n.strip() for n in notices)]))


class Walk:
    """A seeded walk of one phone: every tap sent, answered and checked as the walks
    check it, and the edits it opens and saves counted."""

    def __init__(self, phone: SavingPhone, books: Books, name: str, seed: int):
        self.phone, self.books, self.name, self.seed = phone, books, name, seed
        self.chooser = random.Random(f"{name}-{seed}")
        self.edits_opened = self.edits_saved = 0

    def offered(self, kind: str | None = None) -> list[tuple[str, str, dict]]:
        return [one for one in self.phone.offered() if kind in (None, one[0])]

    def step(self, kind: str, url: str, fields: dict) -> int:
        """Send one tap; check its answer and the books; return its status. A deal it
        saves is what the tap log it was saved with closes into. An edit it saves: the
        old entries superseded; the rounds they were in hold the new entries alone, the
        history listing them once; the entry that replaces the one reopened is marked
        edited; no total moved when no request changed."""
        phone, books = self.phone, self.books
        where = (self.name, self.seed, phone.sent[-3:], kind, fields)
        before, totals, seen = books.entries(), Page.totals(phone), versions(phone.html)
        answer = phone.send(kind, url, fields)
        html = answer.get_data(as_text=True)
        assert answer.status_code < 500, (*where, html)
        phone.reload()
        if answer.status_code >= 400:
            assert told(html), (*where, html)
            # the rules may refuse what a button names, never the button's own kind of
            # tap: that one the screen should not offer now
            assert not re.search(r'data-field="[^"]*action"', html), (*where, told(html))
            assert versions(phone.html) == seen, (*where, told(html))
            assert books.entries() == before, (*where, told(html))
            return answer.status_code
        books.check(phone, where)
        if FINISHED not in phone.html:
            assert self.offered(), (*where, "the page offers nothing to tap")
        self.edits_opened += kind == "history edit"
        after = books.entries()
        new = [e for i, e in after.items() if i not in before]
        for e in new:
            if phone.game in SAVED_ALONE and e.kind == deals.DEALS[phone.game].kind:
                made = {"kind": e.kind, "request": e.request}
                assert books.closes_into(e) == made, (*where, "saved another deal", e)
        edited = [e for e in new if e.supersedes is not None]
        if not edited:
            return answer.status_code
        self.edits_saved += 1
        gone = [before[i] for i, e in after.items() if i in before and before[i].live > e.live]
        assert gone and all(after[e.id].state == "superseded" for e in gone), (*where, gone)
        rounds = {e.round for e in gone}
        shown = {r[1] for r in phone.rows() if r[2] and r[0] in rounds}
        assert shown == {e.id for e in new if e.round in rounds}, (*where, phone.rows(), new)
        marked = {r[1] for r in phone.rows() if "edited" in r[3]}
        assert len(edited) == 1 and edited[0].id in marked, (*where, edited, phone.rows())
        old = sorted((e.round, e.kind, json.dumps(e.request)) for e in gone)
        if old == sorted((e.round, e.kind, json.dumps(e.request)) for e in new):
            assert Page.totals(phone) == totals, (*where, "an edit saved unchanged moved")
        return answer.status_code

    def deal_open(self) -> bool:
        """Whether a deal is being entered: its draft holds taps."""
        draft = deals.DEALS[self.phone.game].draft
        data, _version = self.books.store.draft(self.books.table_id, draft)
        return bool(data and data.get("taps"))

    def leg(self) -> None:
        """An Edit of a saved deal, when the history offers one (taken when no deal is
        being entered), then random taps until an edit is saved or the leg's taps are
        spent; then the deal left open is closed (``close``)."""
        saved, edits = self.edits_saved, self.offered("history edit")
        if edits:
            taken = not self.deal_open()
            status = self.step(*self.chooser.choice(edits))
            assert status == 303 or not taken, (self.name, self.seed, "Edit refused", status)
        for _ in range(TAPS_A_LEG):
            if self.edits_saved > saved or FINISHED in self.phone.html:
                break
            self.step(*pick(self.chooser, self.offered()))
        self.close()

    def close(self) -> None:
        """Close the deal a leg left open as a player would: undo its last taps until
        the screen offers Save, and save it; when no Save comes, give it up (Keep the
        saved deal) and undo what is left, so that the next leg's Edit is taken."""
        for _ in range(TIDYING):
            save, undo = self.offered("save None"), self.offered("undo None")
            if save:
                self.step(*save[0])
                break
            if not undo or self.step(*undo[0]) >= 400:
                break
        for one in self.offered("discard None"):
            self.step(*one)
        for _ in range(TIDYING):
            undo = self.offered("undo None")
            if not undo or self.step(*undo[0]) >= 400:
                break


@pytest.mark.parametrize(("name", "seed"), WALKS)
def test_a_walk_from_a_saved_deal_through_its_edits_keeps_the_books_straight(
    app, store, name, seed
):
    """Seeded walks from a saved worked deal, in legs that each begin with an Edit in
    the history. A failure names the log, the seed and the taps that led to it. Every
    answer: no server error; a refusal says why and changes nothing; a next tap
    offered; the books straight; an edit saved checked (``Walk.step``). Each walk
    saves an edit."""
    app.config["DICE_RNG"] = random.Random(f"{name}-{seed}-dice")  # Kvanta's server dice
    phone, books = saved_worked_deal(app, store, name)
    walk = Walk(phone, books, name, seed)
    for _ in range(LEGS):
        walk.leg()
    assert walk.edits_opened and walk.edits_saved, (name, seed, vars(walk))
