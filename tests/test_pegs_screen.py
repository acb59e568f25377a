"""The Pegs and Jokers screen through the Flask client: the SVG board for 4, 6 and 8
seats, set-up corrections, the engine's legal moves drawn and applied (splits part by
part), refusals with the engine's reason, undo, the winner, the hand check, the watch
link and bad input."""

from __future__ import annotations

import json
import math
import re

import pytest
from conftest import another_phone_first, snapshot

from scorekeeper import api, deals, i18n, pegs_table, printing
from scorekeeper.deals import pegs as deal
from scorekeeper.games import pegs as engine
from scorekeeper.views import pegs_board
from scorekeeper.web import board as web_board

HX = {"HX-Request": "true"}
FOUR = ("Ana", "Bojan", "Ceca", "Dule")
SIX = ("Ana", "Bojan", "Ceca", "Dule", "Ema", "Filip")
EIGHT = ("Ana", "Bojan", "Ceca", "Dule", "Ema", "Filip", "Goga", "Hrvoje")


def start(n: int) -> dict:
    return {str(s): ["S"] * 5 for s in range(n)}


class Table:
    """A Pegs table driven as its phones do: every tap of the panel is one of the race's
    taps (PLAY.md) posted to the screen's one tap route with the turn's version and round."""

    def __init__(self, client, store, parsed, url, page):
        self.client, self.store, self.parsed, self.url = client, store, parsed, url
        self.csrf = page.csrf
        self.table = store.list_tables()[-1]
        self.seats = len(store.players(self.table.id))
        self.names = [p.name for p in store.players(self.table.id)]
        self.sid = 0

    def post(self, path, data=None, headers=HX, url=None):
        return self.client.post(
            f"{url or self.url}/pegs{path}",
            data={"csrf_token": self.csrf, **(data or {})},
            headers=headers,
        )

    def next_sid(self):
        self.sid += 1
        return f"test-{self.sid}"

    def shown(self):
        """The turn's version and round, as the panel posts them."""
        log = self.store.tap_log(self.table.id, pegs_table.DRAFT)
        context = (log.data or {}).get("context")
        round_number = context["round"] if context else self.store.next_round(self.table.id)
        return log.version, round_number

    def send(self, tap, expect=200, tap_id=None, v=None, round_number=None, headers=HX):
        version, shown_round = self.shown()
        data = {
            "tap": json.dumps(tap),
            "tap_id": tap_id or self.next_sid(),
            "v": version if v is None else v,
            "round": shown_round if round_number is None else round_number,
        }
        response = self.post("/tap", data, headers=headers)
        assert response.status_code == expect, response.get_data(as_text=True)
        return response

    def race(self):
        """The turn's play state as its log replays (None: no turn begun)."""
        log = self.store.tap_log(self.table.id, pegs_table.DRAFT)
        if not log.data or "context" not in log.data:
            return None
        return deals.state_of(deal.DEAL, self.store.table(self.table.id), log.data)

    def turn_now(self):
        heading = header(self.page().html)
        return next((i for i, n in enumerate(self.names) if heading.startswith(n + " ")), 0)

    def tap(self, field, expect=200, tap_id=None, **data):
        """One tap of the panel, named as its control: player, card, peg, setpeg, first,
        hand (``hand`` the cards held, ``card`` the one tapped) or edit."""
        if field == "edit":
            return self.edit(data.get("entry"), expect)
        player = data.get("player")
        seat = int(player) if str(player).isdigit() else self.turn_now()
        peg = {"seat": data.get("seat"), "from": data.get("from")}
        if isinstance(peg["seat"], str) and peg["seat"].isdigit():
            peg["seat"] = int(peg["seat"])
        taps = {
            "player": lambda: {"action": "turn", "seat": player},
            "card": lambda: {"action": "pick", "seat": seat, "card": data.get("card")},
            "peg": lambda: {"action": "peg", "seat": seat, "peg": peg},
            "setpeg": lambda: {"action": "setpeg", "peg": peg},
            "first": lambda: {"action": "first", "seat": seat, "step": None},
            "hand": lambda: {
                "action": "hand",
                "seat": seat,
                "hand": [r for r in (data.get("hand") or "").split(",") if r]
                + ([data["card"]] if data.get("card") else []),
            },
        }
        if field == "player" and isinstance(player, str) and player.isdigit():
            player = int(player)
        tap = taps[field]() if field in taps else {"action": field, **data}
        return self.send(tap, expect, tap_id).get_data(as_text=True)

    def edit(self, entry, expect=200):
        """Edit (the history's or the panel's): the move reopened; none named: the
        change given up (the mechanism's discard)."""
        if entry in (None, ""):
            response = self.post("/discard", {"v": self.shown()[0]})
        else:
            response = self.post(f"/edit/{entry}")
        assert response.status_code == expect, response.get_data(as_text=True)
        return response.get_data(as_text=True) if expect != 200 else self.page().html

    def base(self):
        live = pegs_table.board_entries(self.store.entries(self.table.id))
        return str(live[-1].id) if live else "0"

    def step(self, seat, frm, to, expect=200, submission_id=None, **extra):
        """A destination tapped: the button's own tap (the step chooser's: the first part
        of a split, or the move; else the list's move of that one step), or, for one the
        panel does not offer, the move it would be."""
        html = self.page().html
        said = f"{seat}-{re.escape(str(frm))}-{re.escape(str(to))}"
        found = re.search(rf'data-step="{said}"', html) or re.search(rf'data-move="{said}"', html)
        if found:
            start_at = html.rindex("<button", 0, found.start())
            tag = html[start_at : html.index("</button>", found.end())]
            vals = json.loads(unescape(re.search(r"hx-vals='([^']*)'", tag).group(1)))
            tap = json.loads(vals["tap"])
        else:
            race = self.race()
            first = [race.first.as_json()] if race and race.first else []
            card = race.picked if race else None
            player = race.turn if race else self.turn_now()
            step = {"seat": seat, "from": frm, "to": to}
            tap = {"action": "move", "seat": player, "card": card, "steps": [*first, step]}
        return self.send(tap, expect, submission_id, **extra)

    def move(self, steps, expect=200, submission_id=None, **extra):
        """A move from the list of every move of the card (``steps`` as it would post)."""
        race = self.race()
        tap = {"action": "move", "seat": race.turn, "card": race.picked, "steps": steps}
        return self.send(tap, expect, submission_id, **extra)

    def discard(self, card=None, expect=200, submission_id=None, **extra):
        tap = {"action": "discard", "seat": self.turn_now()}
        if card is not None:
            tap["card"] = card
        return self.send(tap, expect, submission_id, **extra)

    def fix(self, seat, frm, to, expect=200, submission_id=None, **extra):
        tap = {"action": "place", "seat": seat, "from": frm, "to": to}
        return self.send(tap, expect, submission_id, **extra)

    def undo(self, entry, submission_id, expect=200):
        """The panel's Undo last move: the history's undo of that entry."""
        response = self.client.post(
            f"{self.url}/entries/{entry}/undo",
            data={"csrf_token": self.csrf, "submission_id": submission_id},
            headers=HX,
        )
        assert response.status_code == expect, response.get_data(as_text=True)
        return response

    def turn(self, player, rank):
        self.tap("player", player=player)
        return self.tap("card", card=rank)

    def set_board(self, pegs):
        """Store a board directly, as a set-up correction would (the turn begun on the
        board before it is then dropped, as after an undo in the history)."""
        board = engine.Board(self.seats, pegs, **pegs_table.house_rules(self.table))
        result = {**board.to_json(), "bumps": [], "winner_team": board.winner_team()}
        table_id = self.table.id
        self.store.add_entry(table_id, None, pegs_table.BOARD_KIND, board.to_json(), result, {})
        deal.entries_changed(self.store, self.store.table(table_id))
        return board

    def board(self):
        board, _latest = pegs_table.current_board(
            self.store.table(self.table.id), self.seats, self.store.entries(self.table.id)
        )
        return board

    def entries(self, kind=None):
        return [e for e in self.store.entries(self.table.id) if kind in (None, e.kind)]

    def page(self, url=None):
        return self.parsed(self.client.get(url or self.url))

    def watch_url(self):
        return "/t/" + self.store.table(self.table.id).watch_key


@pytest.fixture
def pg(client, store, parsed, new_table):
    def make(players=FOUR, **fields):
        url, page = new_table("pegs", players, **fields)
        return Table(client, store, parsed, url, page)

    return make


def pegs_drawn(html):
    """{seat: sorted positions} from the peg elements of the SVG."""
    found: dict[int, list[str]] = {}
    for seat, pos in re.findall(
        r'class="peg [^"]*"[^>]*data-seat="(\d+)" data-pos="([^"]+)"', html
    ):
        found.setdefault(int(seat), []).append(pos)
    return {seat: sorted(p) for seat, p in found.items()}


def offered_steps(html):
    """The destination buttons: {(seat, from, to)}."""
    return steps_named(html, "data-step")


def one_step_moves(html):
    """The list's moves of one step: {(seat, from, to)}."""
    return steps_named(html, "data-move")


def steps_named(html, attribute: str) -> set[tuple[int, str, str]]:
    """The steps that buttons name in ``attribute`` as "seat-from-to" (a move of two
    steps, named "a b", is none)."""
    found = re.findall(rf'{attribute}="(\d+)-([^-" ]+)-([^" ]+)"', html)
    return {(int(seat), frm, to) for seat, frm, to in found}


def assert_out_of_band_answer(response):
    """A stored change answers with the panel, the standings and the history, each out of
    band (they land on whatever the page shows when the answer arrives)."""
    html = response.get_data(as_text=True)
    assert '<div id="pegs-panel" class="pg" hx-swap-oob="true"' in html
    assert 'id="standings" hx-swap-oob="true"' in html
    assert 'id="history" hx-swap-oob="true"' in html


def panel_error(html):
    m = re.search(r'class="field-error" role="alert">([^<]+)<', html)
    return m.group(1).strip() if m else None


def unescape(text):
    return text.replace("&#39;", "'").replace("&amp;", "&").replace("&quot;", '"')


# ---------------------------------------------------------------- the board


@pytest.mark.parametrize("players", [FOUR, SIX, EIGHT])
def test_the_board_for_4_6_and_8_seats(pg, players):
    t = pg(players)
    html = t.page().html
    n = len(players)
    assert html.count('class="hole ') == 18 * n
    assert html.count('class="lane ') == 5 * n
    assert html.count('class="start ') == 5 * n
    assert re.search(rf'data-hole="T{18 * n - 1}"', html)
    assert not re.search(rf'data-hole="T{18 * n}"', html)
    # a new table: every peg in start
    assert pegs_drawn(html) == {s: ["S"] * 5 for s in range(n)}
    for s in range(n):
        assert re.search(
            rf'class="hole side-\w+ co" cx="[^"]+" cy="[^"]+" r="[^"]+" data-hole="T{18 * s + 8}"',
            html,
        )
        assert re.search(
            rf'class="hole side-\w+ in" cx="[^"]+" cy="[^"]+" r="[^"]+" data-hole="T{18 * s + 3}"',
            html,
        )
    # each seat its colour, the teams warm against cool
    colours = re.findall(r'class="peg c-(\w+) team-(\d)"', html)
    assert {c for c, team in colours if team == "0"} <= {"red", "orange", "gold", "pink"}
    assert {c for c, team in colours if team == "1"} <= {"blue", "teal", "violet", "green"}
    assert len({c for c, _ in colours}) == n
    assert 'style="' not in html.split('id="pegs-panel"')[1].split("</svg>")[0]
    # the panel lists the teams in seat order
    assert "Team 1" in html and "Team 2" in html


def test_house_rules_shown(pg):
    t = pg(FOUR, **{"pegs-team_pegs": "own", "pegs-nine": "forward"})
    html = t.page().html
    assert "Only your own" in html and "(P-D2)" in html
    assert "9 forward, no split" in html and "(P-D3)" in html
    assert pegs_table.house_rules(t.store.table(t.table.id)) == {
        "team_pegs": "own",
        "nine": "forward",
    }


def test_layout_holes_never_overlap():
    for n in (4, 6, 8):
        lay = pegs_board.layout(n)
        assert len(lay.track) == 18 * n
        points = [*lay.track, *(p for lane in lay.lanes for p in lane)]
        points += [p for st in lay.starts for p in st]
        assert len(set(points)) == len(points)
        nearest = min(math.dist(p, q) for i, p in enumerate(points) for q in points[i + 1 :])
        assert nearest >= 2 * lay.peg_r  # two pegs side by side never overlap
        for x, y in points:
            assert 0 < x < lay.width and 0 < y < lay.height


# ---------------------------------------------------------------- set-up mode


def test_setup_mode_stores_a_correction(pg):
    t = pg(SIX)
    html = t.tap("setpeg", seat=1, **{"from": "S"})
    assert "Moving:" in html and 'data-to="H1"' in html
    response = t.fix(1, "S", "t20")
    assert_out_of_band_answer(response)
    [entry] = t.entries()
    assert entry.kind == pegs_table.BOARD_KIND and entry.points == {}
    assert entry.request["pegs"]["1"] == ["S", "S", "S", "S", "T20"]
    assert entry.result["winner_team"] is None
    html = t.page().html
    assert pegs_drawn(html)[1] == ["S", "S", "S", "S", "T20"]
    assert "Bojan&#39;s peg put on T20." in html or "Bojan's peg put on T20." in unescape(
        response.get_data(as_text=True)
    )
    # home lane and back to start
    t.fix(1, "T20", "H3")
    assert t.board().positions(1) == ["S", "S", "S", "S", "H3"]
    t.fix(1, "H3", "S")
    assert t.board().positions(1) == ["S"] * 5
    assert len(t.entries(pegs_table.BOARD_KIND)) == 3


def test_setup_refuses_an_impossible_board(pg):
    t = pg(FOUR)
    t.fix(0, "S", "T20")
    before = len(t.entries())
    response = t.fix(1, "S", "T20", expect=422)
    assert "T20 holds two pegs" in unescape(panel_error(response.get_data(as_text=True)))
    response = t.fix(1, "S", "T72", expect=422)
    assert "T72 is not on this board" in unescape(response.get_data(as_text=True))
    response = t.fix(1, "S", "H9", expect=422)
    assert "H9 does not exist" in response.get_data(as_text=True)
    response = t.fix(1, "S", "", expect=422)
    assert "Tap a hole" in response.get_data(as_text=True)
    response = t.fix(1, "T5", "T6", expect=422)  # no such peg
    assert "Bojan has no peg on T5." in unescape(response.get_data(as_text=True))
    response = t.fix(0, "T20", "T20", expect=422)
    assert "already there" in response.get_data(as_text=True)
    assert len(t.entries()) == before


# ---------------------------------------------------------------- play mode


def test_play_lists_the_engines_legal_moves_and_applies_one(pg):
    t = pg(FOUR)
    t.set_board({**start(4), "0": ["T8", "T30", "S", "S", "S"], "1": ["T40", "S", "S", "S", "S"]})
    html = t.turn(0, "5")
    req = {**t.board().to_json(), "player": 0, "card": "5S"}
    moves = api.evaluate("pegs-moves", req)["moves"]
    expected = {(m["steps"][0]["seat"], m["steps"][0]["from"], m["steps"][0]["to"]) for m in moves}
    # every move is one step: the list says each once, and no step chooser says them
    # again; the board rings the holes only one peg reaches
    assert one_step_moves(html) == expected
    assert offered_steps(html) == set() and "pg-peg-list" not in html
    assert "Tap a move, or a ringed hole on the board." in html
    assert html.count('class="ring dest ') == len(expected)
    assert 'class="hit dest-hit"' in html  # tappable on the board too
    # a hole says its step as the step's button does, not by the holes' notation
    hole = re.search(r'<[^>]*class="hit dest-hit"[^>]*data-hit="T13"[^>]*>', html)
    assert 'aria-label="Ana&#39;s back peg 5 forward"' in hole.group(0)
    # apply: the engine's new board is stored and drawn
    response = t.step(0, "T8", "T13")
    assert_out_of_band_answer(response)
    [entry] = t.entries(pegs_table.APPLY_KIND)
    assert entry.request["steps"] == [{"seat": 0, "from": "T8", "to": "T13"}]
    applied = api.evaluate("pegs-apply", {**req, "steps": [{"seat": 0, "from": "T8", "to": "T13"}]})
    assert entry.result == applied
    html = t.page().html
    assert pegs_drawn(html)[0] == sorted(applied["pegs"]["0"])
    # the last move as its button said it, never by the holes' notation
    assert "Ana played 5: Ana&#39;s back peg 5 forward." in html
    # the turn passes clockwise (it follows the move); the card is asked again
    assert t.race() is None  # the move closed the turn's log into its entry
    assert re.search(r'data-seat="1"\s+aria-pressed="true"', html)
    assert len(re.findall(r'aria-pressed="true"\s+data-card=', html)) == 0
    assert header(html) == "Bojan to play"


def test_a_move_saved_by_another_phone_while_this_one_is_worked_out_is_not_overwritten(
    pg, monkeypatch
):
    """Two phones tap a move for the same turn at the same moment. Each read the same
    board, and the one that writes second must not store a board without the first
    one's move: it is refused and shown the board as it is now."""
    t = pg(FOUR)
    t.set_board({**start(4), "0": ["T8", "T30", "S", "S", "S"], "1": ["T40", "S", "S", "S", "S"]})
    t.turn(0, "5")
    from scorekeeper import store

    # the move is read, checked and closed under one write lock: the other phone's
    # comes just before this one takes it
    other_phone = another_phone_first(
        monkeypatch, store.Store, "write", lambda: t.step(0, "T30", "T35")
    )
    late = t.step(0, "T8", "T13", expect=409)
    assert "This deal changed a moment ago" in late.get_data(as_text=True)
    assert other_phone[0].status_code == 200
    [move] = t.entries(pegs_table.APPLY_KIND)
    assert move.request["steps"] == [{"seat": 0, "from": "T30", "to": "T35"}]
    assert sorted(t.board().positions(0)) == sorted(["T8", "T35", "S", "S", "S"])


def test_an_undo_and_another_phones_move_at_the_same_moment(pg, monkeypatch):
    """The undo read the board, then another phone saved the next move: voiding the
    older move now would leave it on a board that still shows it. Refused instead."""
    from scorekeeper import store

    t = pg(FOUR)
    t.turn(0, "A")
    t.step(0, "S", "T8")
    [first] = t.entries(pegs_table.APPLY_KIND)
    t.turn(1, "A")
    other_phone = another_phone_first(
        monkeypatch, store.Store, "void_entry", lambda: t.step(1, "S", "T26")
    )
    late = t.undo(first.id, "u-late", expect=409)
    assert "Another phone changed this table a moment ago" in late.get_data(as_text=True)
    assert other_phone[0].status_code == 200
    assert [e.id for e in t.entries(pegs_table.APPLY_KIND) if e.live][0] == first.id
    assert t.board().positions(0)[-1] == "T8" and "T26" in t.board().positions(1)


def test_a_correction_and_another_phones_correction_at_the_same_moment(pg, monkeypatch):
    t = pg(SIX)
    t.tap("setpeg", seat=1, **{"from": "S"})
    from scorekeeper import store

    # (as for a move: just before this correction's write takes the lock)
    other_phone = another_phone_first(
        monkeypatch, store.Store, "write", lambda: t.fix(1, "S", "T30")
    )
    late = t.fix(1, "S", "T20", expect=409)
    assert "This deal changed a moment ago" in late.get_data(as_text=True)
    assert other_phone[0].status_code == 200
    assert t.board().positions(1) == ["S", "S", "S", "S", "T30"]
    assert len(t.entries(pegs_table.BOARD_KIND)) == 1


def test_choosing_the_peg_first_when_destinations_are_shared(pg):
    t = pg(FOUR)
    t.set_board({**start(4), "0": ["T8", "T20", "S", "S", "S"], "1": ["T40", "S", "S", "S", "S"]})
    html = t.turn(0, "JK")
    # the joker: a start peg of the team onto another colour. Ana's and Ceca's both reach
    # Bojan's T40, so on the board that hole waits for the peg; only Ceca can land on
    # Ana's pegs. The list says every move at once.
    assert one_step_moves(html) == {
        (2, "S", "T8"),
        (2, "S", "T20"),
        (0, "S", "T40"),
        (2, "S", "T40"),
    }
    rings = set(re.findall(r'class="ring dest [^"]*"[^>]*data-to="(T\d+)"', html))
    assert rings == {"T8", "T20"}
    assert 'data-peg="0-S"' in html and 'data-peg="2-S"' in html  # the board's pegs
    # a peg chosen on the board: its holes step by step, T40 among them
    html = t.tap("peg", seat=2, **{"from": "S"})
    assert offered_steps(html) == {(2, "S", "T8"), (2, "S", "T20"), (2, "S", "T40")}
    t.step(2, "S", "T40")
    assert t.board().positions(2) == ["S", "S", "S", "S", "T40"]
    assert t.board().positions(1) == ["S"] * 5
    last = "Ana played the joker: Ceca&#39;s peg out onto Bojan&#39;s peg, sends Bojan&#39;s peg to start."
    assert f"↩ {last}" in t.page().html


def test_a_split_seven_part_by_part(pg):
    t = pg(SIX)
    t.set_board({**start(6), "0": ["T8", "S", "S", "S", "S"], "2": ["T44", "S", "S", "S", "S"]})
    html = t.turn(0, "7")
    board = t.board()
    lists = board.all_step_lists(0, "7S")
    firsts = {
        (m.steps[0].seat, engine.position_name(m.steps[0].frm), engine.position_name(m.steps[0].to))
        for m in lists
    }
    assert offered_steps(html) == firsts
    assert "… marks the first part of a split" in html  # step by step, told so
    for m in api.evaluate("pegs-moves", {**board.to_json(), "player": 0, "card": "7S"})["moves"]:
        first = m["steps"][0]
        assert (first["seat"], first["from"], first["to"]) in firsts
    # first part: 3 with Ana's peg — kept in the draft, nothing stored
    t.step(0, "T8", "T11")
    assert t.entries(pegs_table.APPLY_KIND) == []
    html = t.page().html
    banner = " ".join(text_of(html.split('class="pg-first"')[1].split("</p>")[0][1:]).split())
    # the part chosen in the move buttons' words, never by the holes' notation
    assert banner == "First part: Ana's peg 3 forward. Now the rest of the card with another peg."
    assert offered_steps(html) == {(2, "T44", "T48")}
    # changing the first part: the turn forgets it, the card stays picked
    t.tap("first")
    assert t.race().first is None and t.race().picked == "7S"
    assert "First part:" not in t.page().html
    t.step(0, "T8", "T11")
    # the second part applies the whole card
    t.step(2, "T44", "T48")
    [entry] = t.entries(pegs_table.APPLY_KIND)
    assert entry.request["steps"] == [
        {"seat": 0, "from": "T8", "to": "T11"},
        {"seat": 2, "from": "T44", "to": "T48"},
    ]
    assert t.board().positions(0)[-1] == "T11" and t.board().positions(2)[-1] == "T48"


def dest_button(html, seat, frm, to):
    """The destination button of a step, as the panel draws it."""
    found = re.search(rf'data-step="{seat}-{frm}-{to}"', html)
    start_at = html.rindex("<button", 0, found.start())
    return unescape(html[start_at : html.index("</button>", found.end())])


def test_each_part_of_a_split_marks_only_its_own_bump(pg):
    """A 7 split in two parts that each bump: the first part's button marks Bojan's bump
    (↩ and its words), the second part's only Dule's, never Bojan's again."""
    t = pg(FOUR, **{"pegs-team_pegs": "own"})
    t.set_board(
        {
            **start(4),
            "0": ["T8", "T20", "S", "S", "S"],
            "1": ["T11", "S", "S", "S", "S"],
            "3": ["T24", "S", "S", "S", "S"],
        }
    )
    html = t.turn(0, "7")
    first = dest_button(html, 0, "T8", "T11")
    assert "Ana's back peg 3 forward, sends Bojan's peg to start … ↩" in first
    assert "Dule" not in first
    quiet = dest_button(html, 0, "T8", "T10")  # lands on an empty hole: no mark
    assert "↩" not in quiet and "sends" not in quiet
    assert "Ana's back peg 2 forward …" in quiet
    t.step(0, "T8", "T11")
    second = dest_button(t.page().html, 0, "T20", "T24")
    # the front peg is still the front one: named as it was before the move
    assert "Ana's front peg 4 forward, sends Dule's peg to start ↩" in second
    assert "Bojan" not in second
    t.step(0, "T20", "T24")
    [entry] = t.entries(pegs_table.APPLY_KIND)
    assert [b["seat"] for b in entry.result["bumps"]] == [1, 3]


def test_a_teammate_goes_to_its_in_spot_and_a_home_entry(pg):
    t = pg(FOUR)
    t.set_board({**start(4), "0": ["T0", "S", "S", "S", "S"], "2": ["T10", "S", "S", "S", "S"]})
    t.turn(0, "10")
    t.step(0, "T0", "T10")  # onto Ceca (a teammate): she goes to her in-spot T39
    assert t.board().positions(0)[-1] == "T10"
    assert t.board().positions(2)[-1] == "T39"
    said = "Ana played 10: Ana&#39;s peg 10 forward, sends Ceca&#39;s peg to its in-spot."
    assert said in t.page().html
    # home: a peg 2 holes before Ana's in-spot T3 enters H2 with a 4
    t.set_board({**start(4), "0": ["T1", "S", "S", "S", "S"]})
    html = t.turn(0, "4")
    assert (0, "T1", "H2") in one_step_moves(html)
    t.step(0, "T1", "H2")
    assert t.board().positions(0) == ["S", "S", "S", "S", "H2"]
    assert 'data-seat="0" data-pos="H2"' in t.page().html


def test_the_history_says_where_a_bumped_teammate_went(pg):
    """The history's line of a move: a bumped teammate went to its in-spot, not to
    start (P-D6); an opponent bumped goes to start."""
    t = pg(FOUR)
    t.set_board({**start(4), "0": ["T0", "S", "S", "S", "S"], "2": ["T10", "S", "S", "S", "S"]})
    t.turn(0, "10")
    t.step(0, "T0", "T10")  # onto Ceca (a teammate): her peg goes to her in-spot T39
    history = t.page().html.split('id="history"', 1)[1]
    assert "Ana plays 10: Ana&#39;s peg 10 forward, sends Ceca&#39;s peg to its in-spot" in history
    assert "to start" not in history
    t.turn(1, "K")
    t.step(1, "S", "T26")
    t.turn(2, "8")
    t.step(2, "T39", "T31")
    t.turn(3, "5")
    t.step(1, "T26", "T31")  # Dule moves his partner's peg onto Ceca's: back to start
    history = t.page().html.split('id="history"', 1)[1]
    assert "Dule plays 5: Bojan&#39;s peg 5 forward, sends Ceca&#39;s peg to start" in history


def test_an_illegal_step_is_refused_with_the_engines_reason(pg):
    t = pg(FOUR)
    t.set_board({**start(4), "0": ["T8", "T10", "S", "S", "S"]})
    t.turn(0, "5")
    before = len(t.entries())
    response = t.step(0, "T8", "T13", expect=422)
    html = unescape(response.get_data(as_text=True))
    assert panel_error(html) == "T13 would pass your own peg on T10."
    response = t.step(0, "T10", "T14", expect=422)
    assert "The 5 moves a peg 5 forward; this step is 4 forward." in unescape(
        response.get_data(as_text=True)
    )
    response = t.step(1, "S", "T26", expect=422)
    assert "other team" in response.get_data(as_text=True)
    assert len(t.entries()) == before
    assert t.race().turn == 0 and t.race().picked == "5S"


def test_undo_restores_the_previous_board(pg, client):
    t = pg(FOUR)
    t.turn(0, "A")
    t.step(0, "S", "T8")
    assert t.board().positions(0)[-1] == "T8"
    [entry] = t.entries(pegs_table.APPLY_KIND)
    # the panel's button voids the latest live pegs entry and gives the turn back: the
    # move's turn is back as it was entered (its card picked)
    html = t.page().html
    assert f'action="{t.url}/entries/{entry.id}/undo"' in html.split('id="pegs-panel"')[1]
    t.undo(entry.id, "u1")
    assert t.board().positions(0) == ["S"] * 5
    assert pegs_drawn(t.page().html)[0] == ["S"] * 5
    assert t.race().turn == 0 and header(t.page().html) == "Ana plays A"
    # a retried undo changes nothing; undoing with nothing left is refused
    t.undo(entry.id, "u1")
    t.undo(entry.id, "u2", expect=409)
    # the history's generic Undo works on a move too
    t.turn(0, "K")
    t.step(0, "S", "T8")
    latest = t.entries(pegs_table.APPLY_KIND)[-1]
    response = client.post(
        f"{t.url}/entries/{latest.id}/undo",
        data={"csrf_token": t.csrf, "submission_id": "h1"},
        headers=HX,
    )
    assert response.status_code == 200
    assert t.board().positions(0) == ["S"] * 5
    # an outdated undo (another phone moved meanwhile) is refused
    t.turn(0, "A")
    t.step(0, "S", "T8")
    t.undo(latest.id, "u3", expect=409)
    assert t.board().positions(0)[-1] == "T8"


def test_a_turn_changed_on_another_phone_is_named_a_turn(pg, client):
    """The store's refusals name a Pegs move as the history numbers it: a turn."""
    t = pg(FOUR)
    t.turn(0, "A")
    t.step(0, "S", "T8")
    [entry] = t.entries(pegs_table.APPLY_KIND)
    # redone while it still counts, then undone from two phones (the second a stale page)
    redo = client.post(
        f"{t.url}/entries/{entry.id}/redo",
        data={"csrf_token": t.csrf, "submission_id": "r1"},
        headers=HX,
    )
    assert redo.status_code == 409
    said = redo.get_data(as_text=True)
    assert f"Turn {entry.round} is not undone; there is nothing to redo." in said
    t.undo(entry.id, "u1")
    said = t.undo(entry.id, "u2", expect=409).get_data(as_text=True)
    assert f"Turn {entry.round} was already undone or changed on another phone." in said
    assert "Round" not in said.split('role="alert"')[1].split("<")[0]


def test_a_turn_changed_on_another_phone_is_named_a_turn_in_polish(pg):
    t = pg(FOUR, language="pl")
    t.turn(0, "A")
    t.step(0, "S", "T8")
    [entry] = t.entries(pegs_table.APPLY_KIND)
    t.undo(entry.id, "u1")
    said = t.undo(entry.id, "u2", expect=409).get_data(as_text=True)
    assert f"Tura {entry.round} została już cofnięta albo zmieniona na innym telefonie." in said


def test_the_winner_is_detected(pg):
    t = pg(FOUR)
    home4 = ["H2", "H3", "H4", "H5"]
    t.set_board({**start(4), "0": ["T3", *home4], "2": ["H1", *home4]})
    t.turn(0, "A")
    response = t.step(0, "T3", "H1")
    assert "Team 1 wins: Ana, Ceca!" in response.get_data(as_text=True)
    [entry] = t.entries(pegs_table.APPLY_KIND)
    assert entry.result["winner_team"] == 0
    html = t.page().html
    assert "Team 1 wins: Ana, Ceca" in html
    assert "Team 1 (Ana and Ceca) wins the race." in html  # the generic standings
    assert 'class="card pg-controls"' not in html
    response = t.step(1, "S", "T26", expect=422)
    assert "Team 1 has won; undo the last move to play on." in response.get_data(as_text=True)


def test_a_stale_board_and_a_retry_store_once(pg):
    t = pg(FOUR)
    t.turn(0, "A")
    response = t.step(0, "S", "T8", expect=409, v=999)
    assert "This deal changed a moment ago" in response.get_data(as_text=True)
    response = t.step(0, "S", "T8", expect=409, round_number=7)
    assert "This deal changed a moment ago" in response.get_data(as_text=True)
    assert t.entries() == []
    t.step(0, "S", "T8", submission_id="same")
    t.turn(0, "A")
    t.step(0, "S", "T8", submission_id="same")  # a retried post: stored once
    assert len(t.entries(pegs_table.APPLY_KIND)) == 1


def test_a_card_that_cannot_move_says_why(pg):
    """Issue #24: not only "No legal move": the engine's reason, by the players' names."""
    t = pg(FOUR)
    html = t.turn(0, "5")
    assert "No legal move with this card" in html
    assert re.search(
        r"data-why>No move with 5: the pegs in start come out only with A, K, Q, J or a "
        r"joker\.</p>",
        html,
    )
    t.set_board(
        {
            **start(4),
            "0": ["H1", "H2", "H3", "H4", "H5"],
            "2": ["S", "H2", "H3", "H4", "H5"],
        }
    )
    html = t.turn(0, "4")
    assert (
        "Ana&#39;s peg on H2 has only 3 more holes ahead in its home lane: 4 is not an exact fit"
        in html
    )
    html = t.turn(0, "K")  # Ceca's start peg comes out: a reason is shown only when stuck
    assert "data-why" not in html


# ---------------------------------------------------------------- hand check


def test_the_hand_check(pg):
    t = pg(FOUR)
    t.tap("player", player=0)
    html = t.tap("hand", hand="7,K", card="JK")
    assert re.search(r'data-rank="K">\s*K ✓', html)
    assert re.search(r'data-rank="7">\s*7 ✗', html)
    assert 'data-verdict="must"' in html  # the K can come out: must play
    # only a joker can move: every team peg in start, an opponent on the track
    t.set_board({**start(4), "1": ["T20", "S", "S", "S", "S"]})
    html = t.tap("hand", hand="5,7", card="JK")
    assert 'data-verdict="joker"' in html
    assert re.search(r'data-rank="JK">\s*Joker ✓', html)
    t.set_board(start(4))
    html = t.tap("hand", hand="2,3,4,5", card="6")
    assert 'data-verdict="none"' in html
    # why each stuck card cannot move, once per rank (issue #24)
    assert html.count("data-why>No move with") == 5
    assert "data-why>No move with 6: the pegs in start come out only" in html
    # at most five cards
    html = t.tap("hand", expect=422, hand="2,3,4,5,6", card="7")
    assert "at most 5 cards" in html
    assert [c[:-1] for c in t.race().hand] == ["2", "3", "4", "5", "6"]


def test_drafts_survive_a_reload(pg):
    t = pg(SIX)
    t.set_board({**start(6), "0": ["T8", "S", "S", "S", "S"], "2": ["T44", "S", "S", "S", "S"]})
    t.turn(0, "7")
    t.step(0, "T8", "T11")
    html = t.page().html  # a reload, or another phone
    assert re.search(r'data-seat="0"\s+aria-pressed="true"', html)
    assert re.search(r'aria-pressed="true"\s+data-card="7"', html)
    assert len(re.findall(r'aria-pressed="true"\s+data-card=', html)) == 1
    assert "First part:" in html and offered_steps(html) == {(2, "T44", "T48")}


# ---------------------------------------------------------------- the watch link, bad input


def test_the_watch_link_shows_the_board_and_cannot_write(pg):
    t = pg(FOUR)
    t.turn(0, "A")
    t.step(0, "S", "T8")
    watch = t.watch_url()
    html = t.page(watch).html
    assert pegs_drawn(html)[0] == ["S", "S", "S", "S", "T8"]
    panel = html.split('id="pegs-panel"')[1].split('class="hint pg-house"')[0]
    assert "hx-post" not in panel and "<button" not in panel and 'class="hit' not in panel
    assert t.store.table(t.table.id).scorer_key not in html
    before = len(t.entries())
    move = {
        "action": "move",
        "seat": 1,
        "card": "AS",
        "steps": [{"seat": 1, "from": "S", "to": "T26"}],
    }
    for path, data in [
        *(
            ("/tap", {"tap": json.dumps({"action": a, "seat": 1}), "v": 0, "round": 2})
            for a in ("pick", "turn", "hand")
        ),
        ("/tap", {"tap": json.dumps(move), "tap_id": "w1", "v": 0, "round": 2}),
        ("/undo", {"tap_id": "x"}),
        ("/redo", {"tap_id": "x"}),
        ("/discard", {"v": 0}),
        (f"/edit/{t.entries()[0].id}", {}),
    ]:
        response = t.post(path, data, url=watch)
        assert response.status_code == 403, path
    assert len(t.entries()) == before


@pytest.mark.parametrize(
    ("field", "data", "message"),
    [
        ("player", {"player": "x"}, "Name the seat: 0 to 3."),
        ("player", {"player": "9"}, "Name the seat: 0 to 3."),
        ("card", {"card": "Z"}, "Choose a card"),
        ("mode", {"mode": "setup"}, "has no tap called"),  # a phone's own view now
        ("setpeg", {"seat": "0", "from": "T5"}, "no longer there"),
        ("peg", {"seat": "0", "from": "T5"}, "no longer there"),
        ("hand", {"hand": "Z"}, "Choose cards"),
        ("nope", {}, "has no tap called"),
    ],
)
def test_bad_taps_give_a_message_and_store_nothing(pg, field, data, message):
    t = pg(FOUR)
    version = t.store.version(t.table.id)
    html = t.tap(field, expect=422, **data)
    assert message in html
    assert t.store.version(t.table.id) == version  # nothing written, not even the draft


def test_bad_steps_give_a_message(pg):
    t = pg(FOUR)
    response = t.step(0, "S", "T8", expect=422)  # no card picked: the move names none
    assert "card" in panel_error(response.get_data(as_text=True)).lower()
    t.tap("player", player=0)
    t.tap("card", card="A")
    for seat, frm, to, message in [
        ("x", "S", "T8", "seat"),
        (0, "S", "T999", "T999"),
        (0, "Q", "T8", "Q"),
    ]:
        response = t.step(seat, frm, to, expect=422)
        assert message in response.get_data(as_text=True)
    assert t.entries() == []
    # the plain (non-htmx) page answers too, never a 500
    t.tap("card", card="Z", expect=422) and t.send(
        {"action": "pick", "seat": 0, "card": "Z"}, 422, headers={}
    )


def test_the_standings_show_the_race_by_team(pg):
    t = pg(FOUR)
    assert "Partners sit opposite" in t.page().html  # before any board is stored
    t.set_board(
        {
            **start(4),
            "0": ["S", "S", "S", "S", "H1"],
            "1": ["S", "S", "S", "H1", "H2"],
            "3": ["S", "S", "S", "S", "H5"],
        }
    )
    html = t.page().html
    standings = html[
        html.index('id="standings"') : html.index("</section>", html.index('id="standings"'))
    ]
    rows = re.findall(
        r'class="rank">(\d+)</span>\s*<span class="who"[^>]*>([^<]+?)\s*(?:<span[^>]*>[^<]*</span>)?'
        r'</span>\s*<span class="points"[^>]*>([^<]+)<',
        standings,
    )
    # Team 2 (Bojan and Dule, seats 1 and 3) leads with 3 pegs home: listed first, ranked 1
    assert rows == [
        ("1", "Bojan", "2/5 home"),
        ("1", "Dule", "1/5 home"),
        ("3", "Ana", "1/5 home"),
        ("3", "Ceca", "0/5 home"),
    ]
    assert "Team 1 (Ana and Ceca): 1 of 10 pegs home" in standings
    assert "Team 2 (Bojan and Dule): 3 of 10 pegs home" in standings


def text_of(html: str) -> str:
    """HTML as it reads: its elements' text (a name is an element of its own)."""
    return unescape(re.sub(r"<[^>]+>", "", html)).strip()


def header(html):
    """The board's heading as it reads (a name in it is an element of its own)."""
    return text_of(re.search(r'class="pg-status[^"]*">(.*?)</h2>', html, re.S).group(1))


def history_lines(html):
    """The lines the history's rows say, newest row first."""
    return [
        unescape(line) for line in re.findall(r'<ul class="why-lines"><li[^>]*>(.*?)</li>', html)
    ]


def test_a_move_entered_by_rank_is_shown_by_its_rank_alone(pg):
    """Suits never matter in this game (RULES §5): a phone picks a card by its rank, and
    the suit the screen fills in only to store it is shown nowhere: the history, the
    printed sheet and the panel name the rank (a joker as the joker)."""
    t = pg(FOUR)
    t.turn(0, "A")
    t.step(0, "S", "T8")
    t.tap("card", card="JK")
    race = t.race()
    [bump] = [m for m in race.described_moves(race.picked) if m["steps"][0]["seat"] == 1]
    t.move(bump["steps"])
    ace, joker = t.entries(pegs_table.APPLY_KIND)
    assert ace.request["card"] == "AS"  # stored as before, with the suit filled in
    html = t.page().html
    assert history_lines(html)[-2:] == [
        "Bojan plays the joker: Bojan's peg out onto Ana's peg, sends Ana's peg to start",
        "Ana plays A: Ana's peg out onto the track",
    ]
    last = re.search(r'<span class="hint">Last:</span> ↩ ([^<]*)</p>', html).group(1)
    said = "Bojan played the joker: Bojan's peg out onto Ana's peg, sends Ana's peg to start."
    assert unescape(last) == said  # the panel's last move
    english = printing.catalogue("en")
    sheet = "Ana played A: Ana's peg out onto the track. (start → T8)"
    assert printing._pegs_move(ace, t.names, english) == sheet
    assert not re.search("[♠♥♦♣]", " ".join(history_lines(html)))


def test_a_card_stored_with_a_suit_in_any_spelling_is_shown_by_its_rank(app):
    """A card entered through the API keeps the suit it was written with in the stored
    request; what players read names its rank alone, whatever the spelling."""
    step = {"seat": 0, "from": "T1", "to": "T11"}
    with app.test_request_context("/"):
        for card, rank in [("10♥", "10"), ("th", "10"), ("QS", "Q"), ("RJ", "the joker")]:
            request = {"player": 0, "card": card, "steps": [step]}
            lines = pegs_table.apply_breakdown(request, {}, ["Ana", "Bojan"])
            assert lines == [f"Ana plays {rank}: Ana's peg T1 → T11"]
            discard = {"discard": {"seat": 1, "card": card}}
            assert pegs_table.board_breakdown(discard, {}, ["Ana", "Bojan"]) == [
                f"Bojan discards {rank}"
            ]
        # what is no card at all is shown as it was stored, never refused
        request = {"player": 0, "card": "11X", "steps": [step]}
        assert pegs_table.apply_breakdown(request, {}, ["Ana"])[0].startswith("Ana plays 11X:")


def test_an_undone_move_is_named_as_the_history_names_it(pg, client):
    """Each move or discard is a row of its own; its undo's notice names it as its row
    does ("Turn 1", "Move", "Discard"), not as a round of play taken back."""
    t = pg(FOUR)
    t.turn(0, "A")
    t.step(0, "S", "T8")
    (move,) = t.entries(pegs_table.APPLY_KIND)

    def notice(response):
        return " ".join(re.findall(r'class="flash ok">([^<]+)<', response.get_data(as_text=True)))

    assert notice(t.undo(move.id, "u1")) == f"Turn {move.round}: Move undone."
    redone = client.post(
        f"{t.url}/entries/{move.id}/redo",
        data={"csrf_token": t.csrf, "submission_id": "r1"},
        headers=HX,
    )
    assert notice(redone) == f"Turn {move.round}: Move restored."
    t.discard(submission_id="p1")
    discard = t.entries(pegs_table.BOARD_KIND)[-1]
    assert notice(t.undo(discard.id, "u2")) == f"Turn {discard.round}: Discard undone."


def history_numbers(html):
    """The numbers the history's rows are headed with, newest row first."""
    return re.findall(r'<span class="round-no">([^<]+)</span>', html)


def history_part(html):
    return html.split('id="history"', 1)[1]


def test_the_history_numbers_each_move_as_a_turn(pg, new_table, client):
    """Every move is an entry of its own: the history heads it as a turn, never as a
    round; a game whose entries are rounds of deals still says "Round"."""
    t = pg(FOUR)
    assert "No turns yet." in history_part(t.page().html)
    t.turn(0, "A")
    t.step(0, "S", "T8")
    t.turn(1, "K")
    t.step(1, "S", "T26")
    html = t.page().html
    assert history_numbers(html) == ["Turn 2", "Turn 1"]
    assert "Round" not in history_part(html)
    older = t.page(f"{t.url}/history").html  # the whole history, a page at a time
    assert history_numbers(older) == ["Turn 2", "Turn 1"]
    assert "Turns 1–2, newest first; 2 entries in all." in older
    assert "Round" not in history_part(older)

    url, page = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    assert "No rounds yet." in history_part(page.html)
    points = dict.fromkeys(page.player_fields(), "0") | {page.player_fields()[0]: "25"}
    data = {"csrf_token": page.csrf, "submission_id": page.submission_id, "round": "1"}
    saved = client.post(f"{url}/rounds", data={**data, **points}, headers=HX)
    assert re.search(r'class="flash ok">Round 1 saved\.<', saved.get_data(as_text=True))
    assert history_numbers(client.get(url).get_data(as_text=True)) == ["Round 1"]


def test_a_move_reopened_and_changed_is_named_as_a_turn(pg, client):
    """Edit reopens the move as its turn; undoing the change names the turn too."""
    t = pg(FOUR)
    t.turn(0, "K")
    t.step(0, "S", "T8")
    (move,) = t.entries(pegs_table.APPLY_KIND)
    reopened = t.post(f"/edit/{move.id}").get_data(as_text=True)
    assert "Turn 1 is open again: play it again." in reopened
    t.turn(0, "A")
    t.step(0, "S", "T8")
    changed = t.entries(pegs_table.APPLY_KIND)[-1]
    assert changed.supersedes == move.id
    undone = t.undo(changed.id, "u1").get_data(as_text=True)
    assert re.search(
        r'class="flash ok">Turn 1: the change undone; the move is as it was before\.<', undone
    )


def test_a_polish_table_numbers_its_turns_in_polish(pg):
    t = pg(FOUR, language="pl")
    t.turn(0, "A")
    t.step(0, "S", "T8")
    (move,) = t.entries(pegs_table.APPLY_KIND)
    undone = t.undo(move.id, "u1").get_data(as_text=True)
    assert re.search(r'class="flash ok">Tura 1: Ruch — cofnięte\.<', undone)
    assert history_numbers(t.page().html) == ["Tura 1"]
    assert "Runda" not in history_part(t.page().html)


def three_moves_out(pg):
    """A four-seat race where Ana, Bojan and Ceca each brought a peg out (A, K, Q)."""
    t = pg(FOUR)
    t.turn(0, "A")
    t.step(0, "S", "T8")
    t.tap("card", card="K")
    t.step(1, "S", "T26")
    t.tap("card", card="Q")
    t.step(2, "S", "T44")
    return t


def test_a_move_is_redone_only_onto_the_board_it_was_played_on(pg, client):
    """Two moves undone in the history, another turn played in the first one's place
    (Ceca discards): the later move was played on a board that is gone, so redoing it
    is refused, with why, and nothing changes; the move on the board as it stands, the
    discard undone first, comes back."""
    t = three_moves_out(pg)
    _first, second, third = t.entries(pegs_table.APPLY_KIND)

    def history(action, entry, sid):
        return client.post(
            f"{t.url}/entries/{entry.id}/{action}",
            data={"csrf_token": t.csrf, "submission_id": sid},
            headers=HX,
        )

    assert history("undo", third, "u3").status_code == 200
    assert history("undo", second, "u2").status_code == 200
    t.page()
    t.discard(submission_id="d2")  # Bojan's turn played again: a discard
    board, entries = t.board().to_json(), t.entries()
    response = history("redo", third, "r3")
    assert response.status_code == 409
    said = unescape(response.get_data(as_text=True))
    assert "Only a move played on the board as it stands can be redone" in said
    assert t.board().to_json() == board and t.entries() == entries
    discard = t.entries(pegs_table.BOARD_KIND)[-1]
    assert history("undo", discard, "u-d").status_code == 200
    assert history("redo", second, "r2").status_code == 200
    assert history("redo", third, "r3-again").status_code == 200
    assert t.board().positions(2)[-1] == "T44"


def test_undo_twice_then_redo_twice_names_the_right_player(pg, client):
    """Issue #20: whose turn follows the latest live move (the seat after its player's,
    written once in the race's ``next_seat``), so Undo ×2 and Redo ×2 — on this panel or
    in the history — name the right player each time."""
    t = three_moves_out(pg)
    assert header(t.page().html) == "Dule to play"
    first, second, third = t.entries(pegs_table.APPLY_KIND)

    def history(action, entry, sid):
        response = client.post(
            f"{t.url}/entries/{entry.id}/{action}",
            data={"csrf_token": t.csrf, "submission_id": sid},
            headers=HX,
        )
        assert response.status_code == 200, response.get_data(as_text=True)
        return header(t.page().html)

    t.undo(third.id, "u1")  # the panel's: Ceca's turn back, her card as she picked it
    assert header(t.page().html) == "Ceca plays Q"
    assert history("undo", second, "h1") == "Bojan to play"
    assert history("redo", second, "h2") == "Ceca to play"
    assert history("redo", third, "h3") == "Dule to play"
    assert t.board().positions(2)[-1] == "T44"
    # the same in the history alone, down to no move at all and back
    assert history("undo", third, "h4") == "Ceca plays Q"
    assert history("undo", second, "h5") == "Bojan to play"
    assert history("redo", second, "h6") == "Ceca to play"
    assert history("redo", third, "h7") == "Dule to play"
    # a discard is an entry too: it passes the turn, and undoing it gives the turn back
    t.discard(submission_id="p1")
    assert header(t.page().html) == "Ana to play"
    discard = t.entries(pegs_table.BOARD_KIND)[-1]
    assert discard.request["discard"] == {"seat": 3, "card": None}
    assert "Dule discarded a card." in t.page().html
    assert "Dule discards a card (which one was not entered)" in unescape(t.page().html)
    assert history("undo", discard, "h8") == "Dule to play"


def test_a_discard_is_refused_while_a_card_can_move_and_every_discard_is_recorded(pg):
    """Issue #24 (RULES §5, must play): with the hand entered, a discard is refused while
    a card other than a joker can move, naming those cards; a discard that is allowed is
    stored (the history and "Last:" show it) and passes the turn."""
    names = ("Zuzana", "Ján", "Eva", "Peter")
    t = pg(names)
    t.set_board({**start(4), "0": ["T8", "S", "S", "S", "S"]})
    t.tap("player", player=0)
    html = t.tap("hand", hand="8,2,JK,5", card="3")
    assert 'data-verdict="must"' in html
    assert 'class="choices pg-discards"' not in html  # no discard offered
    before = len(t.entries())
    response = t.discard(submission_id="p1", expect=422)
    message = unescape(panel_error(response.get_data(as_text=True)))
    assert message.startswith("Zuzana must play a card that can move: 2, 3, 5, 8.")
    assert len(t.entries()) == before
    assert header(t.page().html) == "Zuzana to play"
    # only a joker can move (the team in start, an opponent on the track): discard the 5
    t.set_board({**start(4), "1": ["T20", "S", "S", "S", "S"]})
    html = t.tap("hand", hand="5,7", card="JK")
    assert 'data-verdict="joker"' in html
    assert re.search(r'class="choices pg-discards"[^>]*>\s*<button[^>]*data-rank="5"', html)
    response = t.discard("5", submission_id="p2")
    assert "Zuzana discarded." in unescape(response.get_data(as_text=True))
    discard = t.entries(pegs_table.BOARD_KIND)[-1]
    assert discard.request["discard"]["seat"] == 0
    assert discard.request["discard"]["card"].startswith("5")
    assert discard.result["pegs"] == t.board().to_json()["pegs"]  # the board unchanged
    html = t.page().html
    assert "Zuzana discarded 5." in unescape(html)
    assert header(html) == "Ján to play"
    # issue #24: its history row says what it was, not "Board set"
    row = re.search(
        rf'data-entry="{discard.id}">(.*?)</li>\s*(?:<li class="round|</ol>)', html, re.S
    )
    assert row is not None
    assert re.search(r'class="round-kind">Discard<', row.group(1))
    assert re.search(r"<li[^>]*>Zuzana discards 5</li>", row.group(1))
    correction = t.entries(pegs_table.BOARD_KIND)[-2]  # the board set before it
    kept = re.search(rf'data-entry="{correction.id}">.*?class="round-kind">([^<]*)<', html, re.S)
    assert kept.group(1) == "Board set"
    # a retried discard is stored once; a card not in the hand is refused
    assert "Already saved." in t.discard("5", submission_id="p2").get_data(as_text=True)
    assert len(t.entries(pegs_table.BOARD_KIND)) == 3
    t.tap("hand", hand="5", card="7")
    response = t.discard("Z", submission_id="p3", expect=422)
    assert "Z" in panel_error(response.get_data(as_text=True))
    response = t.discard("K", submission_id="p3", expect=422)
    assert "K♠ is not in the hand given." in response.get_data(as_text=True)
    # an outdated turn: refused
    t.discard("5", submission_id="p4", expect=409, v=0)
    assert len(t.entries(pegs_table.BOARD_KIND)) == 3


def listed_moves(html):
    """The buttons listing every move of the card: {data-move: text}."""
    found = re.findall(r'class="small pg-move"[^>]*data-move="([^"]+)"[^>]*>([^<]+)<', html)
    return {data: text.strip() for data, text in found}


def test_the_listed_moves_are_worded_as_players_say_them_not_in_notation(pg):
    """Which peg, and what it does: out onto the track, so many forward, into home
    (its home hole), whose peg a bump sends to start; a split's parts joined by "+".
    The holes' notation stays in the tap the button sends, never in its words."""
    t = pg(FOUR)
    t.set_board({**start(4), "0": ["T20", "T70", "S", "S", "S"], "1": ["T30", "S", "S", "S", "S"]})
    t.tap("player", player=0)
    king = listed_moves(unescape(t.tap("card", card="K")))
    assert king["0-S-T8"] == "Ana's peg out onto the track"
    assert king["2-S-T44"] == "Ceca's peg out onto the track"  # the partner's, by her name
    assert king["0-T20-T30"] == "Ana's back peg 10 forward, sends Bojan's peg to start"
    assert king["0-T70-H5"] == "Ana's front peg into home (hole 5)"
    seven = listed_moves(unescape(t.tap("card", card="7")))
    split = "Ana's back peg 1 forward + Ana's front peg into home (hole 1)"
    assert seven["0-T20-T21 0-T70-H1"] == split
    eight = listed_moves(unescape(t.tap("card", card="8")))
    assert eight["0-T20-T12"] == "Ana's back peg 8 back"
    for text in [*king.values(), *seven.values(), *eight.values()]:
        assert not re.search(r"\b[STH]\d*\b|→", text), text


def test_every_legal_move_of_a_card_is_listed_at_once_naming_the_pegs(pg):
    """Issue #24: a joker with both partners' pegs in start has six moves; all six are
    listed at once, each naming the peg in words, and one tap on a line plays it."""
    t = pg(("Zuzana", "Ján", "Eva", "Peter"))
    t.set_board({**start(4), "0": ["T8", "T12", "S", "S", "S"], "2": ["T30", "S", "S", "S", "S"]})
    t.tap("player", player=1)
    html = unescape(t.tap("card", card="JK"))
    listed = re.findall(r'class="small pg-move"[^>]*data-move="([^"]+)"[^>]*>([^<]+)<', html)
    req = {**t.board().to_json(), "player": 1, "card": "JK"}
    moves = api.evaluate("pegs-moves", req)["moves"]
    assert len(moves) == 6 and len(listed) == 6
    assert {data for data, _text in listed} == {
        " ".join(f"{s['seat']}-{s['from']}-{s['to']}" for s in m["steps"]) for m in moves
    }
    texts = {text.strip() for _data, text in listed}
    assert "Ján's peg out onto Eva's peg, sends Eva's peg to start" in texts
    # Zuzana's two pegs told apart: T12 is further from her come-out hole T8
    assert "Peter's peg out onto Zuzana's back peg, sends Zuzana's back peg to start" in texts
    assert "Ján's peg out onto Zuzana's front peg, sends Zuzana's front peg to start" in texts
    assert all(text.startswith(("Ján's peg", "Peter's peg")) for text in texts)
    # the board's pegs (Ján's side) name whose peg they are, not "start | start"; with
    # every move one step, no step chooser repeats the list
    peg_hit = r'class="hit peg-hit"[^>]*aria-label="Ján\'s pegs in start"[^>]*data-hit="1-S"'
    assert re.search(peg_hit, html) and "pg-peg-list" not in html
    # one tap on a line plays that move, as the engine applies it
    tag = re.search(r'<button[^>]*data-move="3-S-T12"[^>]*>', html).group(0)
    vals = json.loads(re.search(r"hx-vals='([^']*)'", tag).group(1))
    assert json.loads(vals["tap"])["steps"] == [{"seat": 3, "from": "S", "to": "T12"}]
    t.move([{"seat": 3, "from": "S", "to": "T12"}], submission_id="m1")
    [entry] = t.entries(pegs_table.APPLY_KIND)
    assert entry.request["steps"] == [{"seat": 3, "from": "S", "to": "T12"}]
    assert t.board().positions(0) == ["S", "S", "S", "S", "T8"]
    # a list that is no move is refused with the engine's reason, nothing stored
    t.tap("card", card="5")
    for steps, message in [
        ("nope", "steps lists the one or two steps of the move."),
        ([], "steps lists the one or two steps of the move."),
        ([{"seat": 2, "from": "T30", "to": "T31"}], "moves a peg 5 forward"),
    ]:
        response = t.move(steps, submission_id="m2", expect=422)
        assert message in unescape(response.get_data(as_text=True)), steps
    assert len(t.entries(pegs_table.APPLY_KIND)) == 1


def test_refusals_name_the_players_not_seat_numbers(pg):
    """Issue #24: messages said "seats 2 and 2" (seats counted from 0) where the table
    speaks of its players: a refused move or correction names them."""
    t = pg(FOUR)
    t.set_board({**start(4), "0": ["T8", "S", "S", "S", "S"]})
    t.turn(0, "5")
    html = unescape(t.step(1, "S", "T26", expect=422).get_data(as_text=True))
    assert panel_error(html) == "Bojan is on the other team; you move only your team's pegs."
    t.fix(2, "S", "T30")
    html = unescape(t.fix(2, "S", "T30", expect=422).get_data(as_text=True))
    assert panel_error(html) == "T30 holds two pegs (both Ceca's); a hole holds one."
    html = unescape(t.fix(1, "S", "T30", expect=422).get_data(as_text=True))
    assert panel_error(html) == "T30 holds two pegs (Bojan and Ceca); a hole holds one."
    assert not re.search(r"\bseats? \d", panel_error(html))


def test_refusals_name_the_players_in_the_table_s_language(pg):
    """A Polish table hears the refusals about a peg with its players' names, in its
    own language: no seat numbers, no English."""
    t = pg(FOUR, language="pl")
    t.set_board({**start(4), "0": ["T8", "S", "S", "S", "S"]})
    t.turn(0, "5")
    html = unescape(t.step(1, "S", "T26", expect=422).get_data(as_text=True))
    assert panel_error(html) == "Bojan gra w drugiej drużynie; ruszasz tylko pionki swojej drużyny."
    t.fix(2, "S", "T30")
    html = unescape(t.fix(1, "S", "T30", expect=422).get_data(as_text=True))
    assert panel_error(html) == "Na T30 stoją dwa pionki (Bojan i Ceca); w dołku mieści się jeden."


def test_a_slovak_table_hears_whose_pegs_share_a_hole(pg):
    t = pg(FOUR, language="sk")
    t.fix(3, "S", "T30")
    html = unescape(t.fix(3, "S", "T30", expect=422).get_data(as_text=True))
    assert panel_error(html) == "Na T30 stoja dva kolíky hráča Dule; v jamke môže byť jeden."
    assert not re.search(r"\b(?:seats?|miest\w*)\b", panel_error(html), re.I)


@pytest.mark.parametrize(
    ("language", "says"),
    [
        ("en", "Ana discards and draws: next player"),
        ("sk", "Ana odhodí kartu a potiahne si: ďalší hráč"),
        ("pl", "Ana odrzuca kartę i dobiera: następny gracz"),
    ],
)
def test_the_pass_button_says_the_player_discards_and_draws(pg, language, says):
    """RULES §5: a player who cannot move discards one card and draws; the button said
    only "discards", as if the hand went down a card."""
    t = pg(FOUR, language=language)
    t.tap("player", player=0)
    button = re.search(r'class="small pg-pass"[^>]*>(.*?)</button>', t.page().html, re.S)
    assert button is not None
    assert text_of(button.group(1)) == says


@pytest.mark.parametrize("language", ["en", "sk", "sr-Cyrl"])
def test_a_peg_in_start_is_called_start_in_words_never_the_boards_s(pg, language):
    """The board's notation says S; a player reads the start in the table's language:
    in the last move, the pegs to move, where a peg goes, and the set-up's peg."""
    start_word = i18n.catalogue_for(language).gettext("start")
    t = pg(FOUR, language=language)
    html = unescape(t.turn(0, "A"))
    assert start_word in html
    t.step(0, "S", "T8")
    page = unescape(t.page().html)
    # the last move in words ("Ana's peg out onto the track"), no hole named at all
    last = page.split('id="pg-last"')[1].split("</p>")[0]
    assert "S→" not in page and "T8" not in last
    html = unescape(t.tap("setpeg", seat=1, **{"from": "S"}))
    labels = re.findall(r'aria-label="([^"]*)"', html)
    assert labels and not [label for label in labels if re.search(r"\bS\b", label)]
    moving = html.split('class="pg-fixing"')[1].split("</p>")[0]
    assert start_word in moving and not re.search(r"\bS\b", moving)


def test_play_or_set_up_is_each_phones_own_view(pg):
    """Issue #20: which of play and set-up a phone shows is that phone's own (data-view,
    kept in the phone): the shared draft holds no mode, and the panel carries both, the
    board's play and set-up tap areas each in a layer of its own."""
    t = pg(FOUR)
    t.turn(0, "A")
    html = t.tap("setpeg", seat=1, **{"from": "S"})
    draft, _v = t.store.draft(t.table.id, pegs_table.DRAFT)
    assert "mode" not in draft["context"] and t.race().fixing == (1, "S")
    assert 'data-view-key="pegs-mode:' in html and 'data-view-default="play"' in html
    assert 'class="pg-play" data-view-only="play"' in html
    assert 'class="pg-setup" data-view-only="setup" hidden' in html
    play = html.split('class="pg-layer pg-layer-play"')[1].split('class="pg-layer pg-layer-setup"')[
        0
    ]
    setup = html.split('class="pg-layer pg-layer-setup"')[1].split("</svg>")[0]
    assert 'data-hit="T8"' in play and "move" in unescape(play)  # Ana's ace comes out
    assert 'data-hit="2-S"' in setup and "setpeg" in unescape(setup)  # any peg to set up
    assert "setpeg" not in unescape(play) and "move" not in unescape(setup)


def test_changing_the_last_move_supersedes_it_and_undo_brings_it_back(pg, client):
    """Issue #20: a saved move can be changed (Edit): it is entered again on the board it
    was played on, and the new entry supersedes the old one in the same round; the
    history keeps both, and undoing the change brings the old move back."""
    t = pg(FOUR)
    t.set_board({**start(4), "0": ["T8", "S", "S", "S", "S"], "1": ["T30", "S", "S", "S", "S"]})
    t.turn(0, "5")
    t.step(0, "T8", "T13")
    [old] = t.entries(pegs_table.APPLY_KIND)
    assert header(t.page().html) == "Bojan to play"
    html = t.tap("edit", entry=old.id)
    assert "Changing the last move" in html
    assert header(html) == "Ana plays 5"
    assert pegs_drawn(html)[0] == ["S", "S", "S", "S", "T8"]  # the board it was played on
    # one thing changed: the 3 instead of the 5
    t.tap("card", card="3")
    response = t.step(0, "T8", "T11")
    assert "Move changed." in response.get_data(as_text=True)
    new = t.entries(pegs_table.APPLY_KIND)[-1]
    assert new.supersedes == old.id and new.round == old.round and new.live
    assert not [e for e in t.entries(pegs_table.APPLY_KIND) if e.id == old.id][0].live
    assert new.request["card"] == "3S" and new.request["pegs"] == old.request["pegs"]
    assert t.board().positions(0)[-1] == "T11"
    html = t.page().html
    assert header(html) == "Bojan to play" and "Changing the last move" not in html
    row = rf'data-round="{new.round}" data-entry="{new.id}">.*?· edited'
    assert re.search(row, html, re.S)  # the history shows the move as changed
    # undoing the change restores the old move
    response = client.post(
        f"{t.url}/entries/{new.id}/undo",
        data={"csrf_token": t.csrf, "submission_id": "h1"},
        headers=HX,
    )
    assert response.status_code == 200
    assert t.board().positions(0)[-1] == "T13"
    assert header(t.page().html) == "Bojan to play"
    # only the last move can be changed; "keep it as it was" leaves it
    t.turn(1, "5")
    t.step(1, "T30", "T35")
    html = t.tap("edit", expect=422, entry=old.id)
    assert "Only the last move can be changed" in unescape(html)
    last = t.entries(pegs_table.APPLY_KIND)[-1]
    assert "Changing the last move" in t.tap("edit", entry=last.id)
    html = t.tap("edit", entry="")
    assert "Changing the last move" not in html and header(html) == "Ceca to play"
    # undoing the change's taps, then the edit given up: the move stands
    t.tap("edit", entry=last.id)
    t.tap("card", card="3")
    html = t.page().html
    undo_tap = re.search(r'class="small pg-untap"[^>]*hx-vals=\'([^\']*)\'', html)
    response = t.post("/undo", json.loads(undo_tap.group(1)))
    assert response.status_code == 200 and t.race().picked == "5S"
    t.tap("edit", entry="")
    assert t.entries(pegs_table.APPLY_KIND)[-1].id == last.id and last.live
    assert t.board().positions(1)[-1] == "T35"


def test_edit_in_the_history_reopens_the_last_move_on_its_board(pg, client):
    """Issue #20: a saved move has Edit in the history; it reopens the move on the board
    it was played on, saving supersedes it, undoing the change brings it back. An older
    move (the board has moved on) is refused with the reason, nothing changed."""
    t = pg(FOUR)
    t.set_board({**start(4), "0": ["T8", "S", "S", "S", "S"], "1": ["T30", "S", "S", "S", "S"]})
    t.turn(0, "5")
    t.step(0, "T8", "T13")
    [old] = t.entries(pegs_table.APPLY_KIND)
    html = t.page().html
    edit_url = f"{t.url}/pegs/edit/{old.id}"
    form = rf'data-entry="{old.id}">.*?<form method="post" class="reopen" action="{edit_url}"'
    assert re.search(form, html, re.S)  # Edit on the move's row
    response = client.post(edit_url, data={"csrf_token": t.csrf}, headers=HX)
    assert response.status_code == 200
    html = t.page().html
    assert "Changing the last move" in html and header(html) == "Ana plays 5"
    assert pegs_drawn(html)[0] == ["S", "S", "S", "S", "T8"]  # the board it was played on
    t.tap("card", card="3")
    assert "Move changed." in t.step(0, "T8", "T11").get_data(as_text=True)
    new = t.entries(pegs_table.APPLY_KIND)[-1]
    assert new.supersedes == old.id and new.round == old.round
    assert t.board().positions(0)[-1] == "T11"
    client.post(
        f"{t.url}/entries/{new.id}/undo",
        data={"csrf_token": t.csrf, "submission_id": "h1"},
        headers=HX,
    )
    assert t.board().positions(0)[-1] == "T13"  # the old move is back
    # a move with another after it: refused, nothing changed
    t.turn(1, "5")
    t.step(1, "T30", "T35")
    before = t.store.draft(t.table.id, pegs_table.DRAFT)
    response = client.post(edit_url, data={"csrf_token": t.csrf}, headers=HX)
    assert response.status_code == 422
    assert "Only the last move can be changed" in unescape(response.get_data(as_text=True))
    assert t.store.draft(t.table.id, pegs_table.DRAFT) == before
    # the watch link cannot edit
    watch = client.post(
        f"{t.watch_url()}/pegs/edit/{old.id}", data={"csrf_token": t.csrf}, headers=HX
    )
    assert watch.status_code == 403


def test_change_this_move_waits_while_the_next_turn_is_being_entered(pg, client):
    """The board's "Change this move" reopens the last move only on an empty turn: once
    the next turn has a tap it is disabled with the reason, in a turn's words, and the
    edit sent anyway is refused with it, nothing changed; undoing the tap offers it again."""
    t = pg(FOUR)
    t.set_board({**start(4), "0": ["T8", "S", "S", "S", "S"]})
    t.turn(0, "5")
    t.step(0, "T8", "T13")
    [moved] = t.entries(pegs_table.APPLY_KIND)
    edit_url = f"{t.url}/pegs/edit/{moved.id}"
    change = r'<button type="(?:submit|button)" class="small pg-edit"[^>]*>'

    def change_button():
        html = t.page().html
        return re.search(change, html[html.index('class="card pg-after"') :]).group(0)

    assert "disabled" not in change_button()
    t.turn(1, "5")
    why = "A turn is being entered: play it, or undo its taps, before changing a move."
    button = unescape(change_button())
    assert "disabled" in button and f'aria-label="Change this move — {why}"' in button
    before = t.store.draft(t.table.id, pegs_table.DRAFT)
    response = client.post(edit_url, data={"csrf_token": t.csrf}, headers=HX)
    assert response.status_code == 409 and why in unescape(response.get_data(as_text=True))
    assert t.store.draft(t.table.id, pegs_table.DRAFT) == before
    while undo_tap := re.search(r'class="small pg-untap"[^>]*hx-vals=\'([^\']*)\'', t.page().html):
        assert t.post("/undo", json.loads(undo_tap.group(1))).status_code == 200
    assert t.store.draft(t.table.id, pegs_table.DRAFT)[0]["taps"] == []
    assert "disabled" not in change_button()
    assert client.post(edit_url, data={"csrf_token": t.csrf}, headers=HX).status_code == 200


def test_a_replayed_tap_id_is_applied_once_and_a_tap_answers_with_the_panel_alone(pg):
    """Issue #20: a tap carries the id its phone made; sent again (its answer lost) after
    another phone's tap, it changes nothing. A tap answers with the panel alone."""
    t = pg(FOUR)
    t.tap("player", player=1, tap_id="a1")
    html = t.tap("card", card="5", tap_id="a2")
    assert 'id="pegs-panel" class="pg" hx-swap-oob="true"' in html
    assert 'id="standings"' not in html and 'id="history"' not in html
    t.tap("card", card="7", tap_id="b1")  # another phone
    version = t.store.version(t.table.id)
    html = t.tap("card", card="5", tap_id="a2")  # the first phone's tap again
    assert re.search(r'aria-pressed="true"\s+data-card="7"', html)
    assert t.store.version(t.table.id) == version
    draft, _v = t.store.draft(t.table.id, pegs_table.DRAFT)
    assert t.race().picked == "7S" and [tap["id"] for tap in draft["taps"]].count("a2") == 1
    # a new tap (a new id) is applied; a move sent again after its answer was lost is
    # saved once, and a card tap of the turn before is refused (its round has passed)
    t.tap("card", card="A", tap_id="a3")
    t.step(1, "S", "T26", submission_id="a4")
    assert "Already saved." in t.step(1, "S", "T26", submission_id="a4").get_data(as_text=True)
    assert len(t.entries(pegs_table.APPLY_KIND)) == 1
    html = t.tap("card", card="A", tap_id="a5", player="1", expect=422)
    assert "It is Ceca's turn, not Bojan's." in unescape(html)
    assert not re.search(r'aria-pressed="true"\s+data-card=', html)
    assert header(html) == "Ceca to play"


def test_a_draft_of_the_old_shape_is_kept_readable(pg):
    """A draft saved before the turn followed the moves (with a shared ``mode``, no
    ``moved``) still shows: on a table without a move its turn and card stand; once a
    move is saved, the turn follows it and the old fields are gone."""
    t = pg(FOUR)
    old = {"mode": "setup", "player": 2, "card": "A", "first": None, "peg": None, "hand": ["K"]}
    t.store.save_draft(t.table.id, pegs_table.DRAFT, old)
    html = t.page().html
    assert header(html) == "Ceca plays A"
    t.tap("card", card="A")  # a tap on it carries the old turn on as its log
    assert re.search(r'class="ring dest c-orange"[^>]*data-to="T44"', html)  # Ceca's come-out
    assert re.search(r'data-rank="K">\s*K ✓', html)
    t.step(2, "S", "T44")
    html = t.page().html
    assert header(html) == "Dule to play"
    assert not re.search(r'aria-pressed="true"\s+data-card=', html)


@pytest.mark.parametrize(
    "steps",
    [
        "[1, 2]",
        '[{"seat": "x"}]',
        '[{"seat": 0, "from": [], "to": {}}]',
        '[null, {"seat": 0, "from": "S", "to": "T8"}]',
        '[{"seat": 99, "from": "S", "to": "T8"}]',
        '{"seat": 0}',
        "[" * 5000 + "]" * 5000,
        '[{"seat": 0, "from": "S", "to": "T8"}, {"seat": 0, "from": "S", "to": "T8"}, {}]',
    ],
)
def test_a_malformed_move_list_is_refused_with_a_reason(pg, steps):
    t = pg(FOUR)
    t.turn(0, "A")
    version, round_number = t.shown()
    tap = '{"action": "move", "seat": 0, "card": "AS", "steps": ' + steps + "}"
    data = {"tap": tap, "tap_id": "m1", "v": version, "round": round_number}
    response = t.post("/tap", data)
    assert response.status_code == 422
    assert panel_error(response.get_data(as_text=True))
    assert t.entries() == []


def test_a_tap_made_for_a_turn_that_has_passed_is_refused(pg):
    """Issue #20: every tap names its player. A card tapped for Ana after her move was
    saved on another phone is refused, not put on Bojan's turn."""
    t = pg(FOUR)
    t.turn(0, "A")
    version, round_number = t.shown()  # what the first phone showed
    t.step(0, "S", "T8")  # another phone saved Ana's move
    pick = {"action": "pick", "seat": 0, "card": "K"}
    html = unescape(t.send(pick, 409, v=version, round_number=round_number).get_data(as_text=True))
    assert "This deal changed a moment ago" in html  # its turn has passed: nothing stored
    assert header(t.page().html) == "Bojan to play"
    html = unescape(t.tap("card", expect=422, card="K", player="0"))
    assert panel_error(html) == "It is Bojan's turn, not Ana's."
    html = unescape(t.tap("hand", expect=422, hand="5", card="K", player="0"))
    assert "It is Bojan's turn, not Ana's." in html
    assert header(t.tap("card", card="K", player="1")) == "Bojan plays K"


def test_a_player_renamed_during_a_turn_is_named_anew_in_it(pg):
    """The turn's log names seats; its list of players is renamed with the table, so the
    turn carries on under the new name (and a tap of it is still that player's)."""
    t = pg(FOUR)
    t.turn(0, "A")
    pid = t.store.players(t.table.id)[0].id
    response = t.client.post(
        f"{t.url}/players/{pid}/name", data={"csrf_token": t.csrf, "name": "Anja"}, headers=HX
    )
    assert response.status_code == 200
    assert header(t.page().html) == "Anja plays A"
    t.step(0, "S", "T8")
    assert "Anja played A: Anja&#39;s peg out onto the track." in t.page().html
    assert header(t.page().html) == "Bojan to play"


def test_the_controls_kept_from_the_answer_before_follow_the_turn_and_the_peg_set_up(pg):
    """The turn and set-up controls are kept from one answer to the next while the turn,
    the board and the peg being set up stay: another player's turn or a peg chosen to
    put elsewhere draws them again."""
    t = pg()

    def pressed(html: str, cls: str, attr: str) -> list[str]:
        tags = re.findall(rf'<button type="button" class="small {cls}"[^>]*>', html)
        return [
            re.search(rf'{attr}="([^"]+)"', b).group(1) for b in tags if 'aria-pressed="true"' in b
        ]

    answer = t.tap("player", player=1)
    assert pressed(answer, "pg-who", "data-seat") == ["1"]
    answer = t.tap("card", card="A")  # the controls as they were: kept
    assert pressed(answer, "pg-who", "data-seat") == ["1"]
    assert pressed(answer, "pg-pos", "data-peg") == []
    answer = t.tap("setpeg", seat=2, **{"from": "S"})
    assert pressed(answer, "pg-pos", "data-peg") == ["2-S"] and 'class="pg-fixing"' in answer
    answer = t.tap("player", player=3)
    assert pressed(answer, "pg-who", "data-seat") == ["3"]


def test_an_answer_to_one_phone_carries_its_token_and_fresh_ids_in_the_rows(pg):
    """A Pegs move answers the phone alone (its notice): the rows drawn once for every
    phone (with the marks the shared answer fills) are filled with this phone's token."""
    t = pg(FOUR)
    t.set_board({**start(4), "0": ["T8", "T30", "S", "S", "S"]})
    t.turn(0, "5")
    before = t.page().html
    answer = t.step(0, "T8", "T13").get_data(as_text=True)
    assert "Ana played 5: Ana&#39;s back peg 5 forward." in answer
    for mark in (web_board.CSRF_MARK, web_board.SUBMISSION_MARK, web_board.FLASH_MARK):
        assert mark not in answer
    assert set(re.findall(r'name="csrf_token" value="([^"]*)"', answer)) == {t.csrf}
    ids = re.findall(r'name="submission_id" value="([^"]*)"', answer)
    shown = set(re.findall(r'name="submission_id" value="([^"]*)"', before))
    assert ids and not set(ids) & shown  # made for this answer


@pytest.mark.parametrize(("dealer", "first"), [("2", "Dule"), ("3", "Ana"), ("0", "Bojan")])
def test_play_begins_on_the_first_dealers_left(pg, dealer, first):
    """RULES §5: the first dealer is chosen as the table begins, and play goes clockwise
    from the player on the dealer's left; the standings name the dealer."""
    t = pg(FOUR, first_dealer=dealer)
    page = t.page().html
    assert header(page) == f"{first} to play"
    dealer_name = FOUR[int(dealer)]
    assert re.search(rf'title="{dealer_name}">{dealer_name} <span class="badge dealer"', page)
    t.tap("card", card="A")  # the card is the first player's, with no turn tapped
    assert t.race().turn == FOUR.index(first)


def test_where_to_lists_the_holes_in_the_order_of_the_track(pg):
    """The "Where to?" buttons of a peg come in the order of the holes (T9 before T15,
    as the board runs), the home lane after the track, not as text sorts them."""
    t = pg(FOUR)
    t.set_board({**start(4), "0": ["T8", "S", "S", "S", "S"], "2": ["T35", "S", "S", "S", "S"]})
    t.turn(0, "7")

    def where_to(seat, frm):
        t.tap("peg", seat=seat, **{"from": frm})
        steps = re.findall(r'data-step="(\d+)-([^-"]+)-([^"]+)"', t.page().html)
        return [to for s, f, to in steps if (int(s), f) == (seat, frm)]

    assert where_to(0, "T8") == [f"T{h}" for h in range(9, 16)]
    assert where_to(2, "T35") == [*(f"T{h}" for h in range(36, 43)), "H1", "H2", "H3"]


@pytest.mark.parametrize(
    ("language", "title", "last"),
    [
        (
            "en",
            "Bojan plays the joker",
            "↩ Bojan played the joker: Bojan's peg out onto Ana's peg, sends Ana's peg to start.",
        ),
        (
            "sk",
            "Bojan hrá žolíka",
            "↩ Bojan hrá žolíka: kolík hráča Bojan zo štartu na kolík hráča Ana,"
            " posiela kolík hráča Ana na štart.",
        ),
    ],
)
def test_a_joker_played_is_named_in_a_sentence_as_the_history_names_it(pg, language, title, last):
    """The heading and the panel's last move say who plays the joker as the history
    does ("Bojan hrá žolíka"), never the card's label in the sentence ("hrá Žolík")."""
    t = pg(FOUR, language=language)
    t.turn(0, "A")
    t.step(0, "S", "T8")
    html = unescape(t.tap("card", card="JK", player="1"))
    assert header(html) == title
    race = t.race()
    [bump] = [m for m in race.described_moves(race.picked) if m["steps"][0]["seat"] == 1]
    t.move(bump["steps"])
    shown = unescape(t.page().html)
    assert re.search(r'<p[^>]*><span class="hint">[^<]*</span> ([^<]*)</p>', shown).group(1) == last


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "Only the last move can be undone; the board changed since."),
        ("sk", "Vrátiť sa dá len posledný ťah; doska sa odvtedy zmenila."),
    ],
)
def test_undo_of_a_move_before_the_last_says_only_the_last_can_be(pg, language, said):
    """An undo sent for a move before the last (from a page shown before a later move
    was played on its board) is refused saying so, not that another phone changed the
    board when no other phone did."""
    t = pg(FOUR, language=language)
    for seat, come_out in ((0, "T8"), (1, "T26")):
        t.tap("card", card="A", player=str(seat))
        t.step(seat, "S", come_out)
    first = t.entries(pegs_table.APPLY_KIND)[0]
    html = unescape(t.undo(first.id, "u-old", expect=409).get_data(as_text=True))
    assert re.findall(r'class="flash error"[^>]*>([^<]+)<', html) == [said]
    assert t.board().positions(0)[-1] == "T8" and t.board().positions(1)[-1] == "T26"


@pytest.mark.parametrize(
    ("language", "row", "undone"),
    [
        ("pl", "Odrzucenie", "Tura 1: Odrzucenie — cofnięte."),
        ("sk", "Odhodenie", "Ťah 1: Odhodenie — vrátené."),
    ],
)
def test_a_discard_s_row_is_named_as_a_thing_done(pg, language, row, undone):
    """The history names a discard's row as it names a move's ("Ruch", "Ťah"): a noun,
    not the imperative of a button ("Odrzuć"), in the row and in its undo's notice."""
    t = pg(FOUR, language=language)
    t.discard(submission_id="d1")
    [discard] = t.entries(pegs_table.BOARD_KIND)
    assert row in re.findall(r'<span class="round-kind">([^<·]+)', t.page().html)
    html = t.undo(discard.id, "u1").get_data(as_text=True)
    assert re.findall(r'class="flash ok">([^<]+)<', html) == [undone]


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "Nobody scores points in this game: the table has no score pad."),
        ("sk", "V tejto hre nikto nezískava body: stôl nemá zápisník bodov."),
    ],
)
def test_a_race_s_table_offers_no_score_pad_and_refuses_points_sent_to_it(
    pg, client, language, said
):
    """Pegs is a race: nobody scores points, so its table offers no score pad (its
    record says so), and points sent to the pad's route anyway are refused with the
    reason, in the table's language, nothing stored."""
    t = pg(FOUR, language=language)
    answer = t.discard(submission_id="d1").get_data(as_text=True)
    assert 'id="pad-round"' not in answer  # the answer's fragments bring no pad either
    page = t.page()
    assert 'id="pad"' not in page.html and "pad-by-hand" not in page.html
    assert page.player_fields() == []
    first = t.store.players(t.table.id)[0]
    before = snapshot(t.store)
    for headers in (HX, {}):
        response = client.post(
            f"{t.url}/rounds",
            data={"csrf_token": t.csrf, "submission_id": "p1", f"points-{first.id}": "5"},
            headers=headers,
        )
        assert response.status_code == 409
        html = unescape(response.get_data(as_text=True))
        assert re.findall(r'class="flash error"[^>]*>([^<]+)<', html) == [said]
    # nor does the pad's Edit open on the race's entries
    edit = client.get(f"{t.url}/entries/{t.entries()[0].id}/edit", headers=HX)
    assert edit.status_code == 409 and "pad-round" not in edit.get_data(as_text=True)
    assert said in unescape(edit.get_data(as_text=True))
    assert snapshot(t.store) == before


def test_edit_in_the_history_is_offered_on_the_last_move_alone(pg):
    """Only the last move can be changed (the deal's ``may_edit``): the history, on the
    table page and on the full history's, offers Edit on its row alone, on none once a
    discard came after it, and on the move before once the last is undone."""
    t = pg(FOUR)
    for seat, come_out in ((0, "T8"), (1, "T26")):
        t.tap("card", card="A", player=str(seat))
        t.step(seat, "S", come_out)
    first, last = t.entries(pegs_table.APPLY_KIND)

    def edited_rows(path=""):
        html = t.page(t.url + path).html
        history = html[html.index('id="history"') :]
        return [int(e) for e in re.findall(r'action="[^"]*/pegs/edit/(\d+)"', history)]

    assert edited_rows() == edited_rows("/history") == [last.id]
    t.discard(submission_id="d1")
    assert edited_rows() == edited_rows("/history") == []
    [discard] = t.entries(pegs_table.BOARD_KIND)
    t.undo(discard.id, "u1")
    assert edited_rows() == [last.id]
    t.undo(last.id, "u2")
    assert edited_rows() == edited_rows("/history") == [first.id]


def test_undo_in_the_history_is_offered_on_the_last_board_alone(pg):
    """Only the last board can be taken back (the deal's ``may_undo``): the history
    offers Undo on the last move's row alone, on the discard's once one came after it,
    and on the move before once the last is undone; an undone row offers Redo."""
    t = pg(FOUR)
    for seat, come_out in ((0, "T8"), (1, "T26")):
        t.tap("card", card="A", player=str(seat))
        t.step(seat, "S", come_out)
    first, last = t.entries(pegs_table.APPLY_KIND)

    def offered(action, path=""):
        html = t.page(t.url + path).html
        history = html[html.index('id="history"') :]
        return [int(e) for e in re.findall(rf'action="[^"]*/entries/(\d+)/{action}"', history)]

    assert offered("undo") == offered("undo", "/history") == [last.id]
    t.discard(submission_id="d1")
    [discard] = t.entries(pegs_table.BOARD_KIND)
    assert offered("undo") == offered("undo", "/history") == [discard.id]
    t.undo(discard.id, "u1")
    t.undo(last.id, "u2")
    assert offered("undo") == [first.id]
    assert sorted(offered("redo")) == sorted([last.id, discard.id])


def test_a_card_that_cannot_move_says_to_discard_and_draw_as_the_rules_do(pg):
    """RULES §5: a player none of whose cards but a joker can move discards one card
    and draws; a card with no move does not end the turn while another card can move.
    The hints say so, under the card picked and under the hand checked."""
    t = pg(FOUR)
    html = unescape(t.turn(0, "5"))
    (said,) = re.findall(r'class="verdict no pg-none">([^<]+)<', html)
    assert said == (
        "No legal move with this card. Play another card that can move; "
        "if only a joker or none can, discard one card and draw."
    )
    t.set_board({**start(4), "1": ["T20", "S", "S", "S", "S"]})
    html = unescape(t.tap("hand", player="0", hand="5,7", card="JK"))
    (said,) = re.findall(r'data-verdict="joker">([^<]+)<', html)
    assert said == "Only a joker can move: play it, or discard one card and draw."


def test_a_stored_move_that_is_no_legal_move_on_its_board_is_told_by_its_holes():
    """A move stored from elsewhere (an import) that is not legal on the board its
    request names cannot be worded peg by peg: the history tells it by its holes,
    never refuses to show it."""
    pegs = {str(seat): ["S"] * 5 for seat in range(4)}
    step = {"seat": 0, "from": "S", "to": "T13"}  # a 5 cannot bring a peg out
    request = {"seats": 4, "pegs": pegs, "player": 0, "card": "5H", "steps": [step]}
    result = {"pegs": pegs, "bumps": [{"seat": 1, "from": "T13", "to": "S"}], "winner_team": 1}
    for _again in range(2):  # told the same way once its words are remembered
        assert pegs_table.apply_breakdown(request, result, ["Ana", "Bojan", "Ceca", "Dule"]) == [
            "Ana plays 5: Ana's peg start → T13",
            "bumps Bojan's peg from T13 to start",
            "Team 2 wins the race.",
        ]
    legal = {**request, "card": "AH", "steps": [{"seat": 0, "from": "S", "to": "T8"}]}
    assert pegs_table.apply_breakdown(legal, result, ["Ana", "Bojan", "Ceca", "Dule"]) == [
        "Ana plays A: Ana's peg out onto the track",
        "Team 2 wins the race.",
    ]
    # the same move at another table: its own players' names
    assert pegs_table.apply_breakdown(legal, result, ["Eva", "Ján", "Peter", "Zuzana"])[0] == (
        "Eva plays A: Eva's peg out onto the track"
    )


@pytest.mark.parametrize("language", ["en", "pl", "sk", "lt", "sr-Latn", "sr-Cyrl"])
def test_a_button_that_says_a_move_begins_with_a_capital(pg, language):
    """The move, step and peg buttons stand alone, as a sentence does: in Polish the
    words begin "tylny pionek gracza Ana…" and the button must read "Tylny…". A name at
    the start stays as its player wrote it (a lower-case "ema")."""
    t = pg(("Ana", "Bojan", "ema", "Dule"), language=language)
    t.set_board({**start(4), "0": ["T8", "T20", "S", "S", "S"], "2": ["T30", "S", "S", "S", "S"]})
    html = unescape(t.turn(0, "7"))
    options = html[html.index('id="pg-options"') :]
    options = options[: options.index("</section>")]
    labels = [text_of(label) for label in re.findall(r"<button[^>]*>(.*?)</button>", options, re.S)]
    holes = re.findall(r'class="hit (?:dest|peg)-hit"[^>]*aria-label="([^"]*)"', html)
    assert len(labels) > 10 and holes
    for label in [*labels, *holes]:
        first = label.lstrip("● ")
        assert first[:1].isupper() or first.startswith("ema"), label
    if language == "en":  # ema's own peg: her name first, as she wrote it
        assert any(label.startswith("ema's") for label in labels)
