"""No English on any game's screen in the five other languages: a table of each game
started in each language, a deal played through its tap route (the worked tap logs of
tests/data/play/), and every answer read as its player reads it (text, labels,
titles) for a sentence of the catalogue left in English or an engine's code shown as
it is; then the table page with its history (breakdowns open) and standings, compared
with the same page in English, the watch link, an undo, a redo and Edit, the full
history, the Rules pages, the rule card and filled sheet as printed, and a refused
tap's message. Besides: the words the page's script shows, a table's default name,
and the refusal of too many new tables."""

from __future__ import annotations

import html
import itertools
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from babel.dates import format_date, format_timedelta
from english import NAMES, english_in, same_as_english, visible_text
from first_dealer import default_first_dealer

from scorekeeper import printing
from scorekeeper.store import Store, connect
from scorekeeper.web import screens

PLAY = Path(__file__).resolve().parent / "data" / "play"
LANGUAGES = ("sr-Latn", "sr-Cyrl", "pl", "lt", "sk")
HX = {"HX-Request": "true"}
ROLLS = ("roll", "reroll", "exchange")  # Kvanta's taps the server rolls the dice of
_ids = itertools.count()


class Faces:
    """Kvanta's dice, as the worked log rolled them (the roll route rolls them)."""

    def __init__(self, faces):
        self.faces = list(faces)

    def randrange(self, start, stop):
        return self.faces.pop(0)


def worked(name: str) -> list[dict]:
    """The taps (ids dropped) of a worked tap log of tests/data/play/."""
    data = json.loads((PLAY / f"{name}.json").read_text())
    return [{k: v for k, v in tap.items() if k != "id"} for tap in data["request"]["taps"]]


class Table:
    """A table in one language, played through its screen's routes; every answer read
    for English (``leaks``: where, and what)."""

    def __init__(self, app, client, game: str, language: str, players: int, **fields):
        self.app, self.client, self.game, self.language = app, client, game, language
        self.names = NAMES[language][:players]
        home = client.get(f"/?lang={language}").get_data(as_text=True)
        self.leaks: list[tuple[str, list[str]]] = []
        self.read(home, "home")
        made = client.post(
            "/tables",
            data={
                "game": game,
                "player": list(self.names),
                "language": language,
                "first_dealer": default_first_dealer(game, players),
                "submission_id": f"no-english-{next(_ids)}",
                **fields,
            },
        )
        assert made.status_code == 303, made.get_data(as_text=True)
        self.url = made.headers["Location"]
        self.store = Store(connect(app.config["DATABASE"]))
        self.table = next(t for t in self.store.list_tables() if self.url.endswith(t.scorer_key))
        self.deal = screens._SCREENS[game].deal
        self.page("the new table")

    def close(self):
        self.store.close()

    def read(self, html: str, where: str) -> str:
        found = english_in(visible_text(html), self.language)
        if found:
            self.leaks.append((where, found))
        return html

    def page(self, where: str, path: str = "") -> str:
        response = self.client.get(f"{self.url}{path}")
        assert response.status_code == 200, (where, response.status_code)
        return self.read(response.get_data(as_text=True), where)

    def shown(self) -> tuple[int, int]:
        """The deal's version and round, as the panel posts them."""
        log = self.store.tap_log(self.table.id, self.deal.draft)
        context = (log.data or {}).get("context")
        return log.version, context["round"] if context else self.store.next_round(self.table.id)

    def post(self, route: str, where: str, expect=(200,), **data) -> str:
        response = self.client.post(f"{self.url}/{self.game}/{route}", data=data, headers=HX)
        body = response.get_data(as_text=True)
        assert response.status_code in expect, (where, response.status_code, body[:2000])
        return self.read(body, where)

    def tap(self, tap: dict, where: str, expect=(200,)) -> str:
        version, round_number = self.shown()
        route = "tap"
        if self.game == "kvanta" and tap["action"] in ROLLS:
            faces = tap.get("dice") or [tap.get("die", 1)] * 3
            self.app.config["DICE_RNG"] = Faces(faces)
            tap = {k: v for k, v in tap.items() if k not in ("dice", "die")}
            route = "roll"
        data = {"tap": json.dumps(tap), "tap_id": f"n{next(_ids)}", "v": version}
        return self.post(route, where, expect, round=round_number, **data)

    def play(self, taps: list[dict], label: str) -> None:
        for number, tap in enumerate(taps):
            self.tap(tap, f"{label}, tap {number} ({tap['action']})")

    def save(self, where: str) -> str:
        version, round_number = self.shown()
        sid = f"save-{next(_ids)}"
        return self.post("save", where, submission_id=sid, v=version, round=round_number)

    def everything_else(self) -> None:
        """The table page (history, breakdowns, standings), the watch link, an undo and
        a redo in the history, Edit, the full history, the Rules page, and the rule card
        and filled sheet as printed."""
        page = self.page("the table page after the deal")
        assert "why-lines" in page  # the history says why its points are so
        self.read(self.client.get(f"/t/{self.table.watch_key}").get_data(as_text=True), "watch")
        undo = re.search(r'action="([^"]+/undo)"', page)
        answer = self.client.post(undo[1], data={"submission_id": f"u{next(_ids)}"}, headers=HX)
        self.read(answer.get_data(as_text=True), "an undo in the history")
        redo = re.search(r'action="([^"]+/redo)"', self.page("the table page after the undo"))
        answer = self.client.post(redo[1], data={"submission_id": f"r{next(_ids)}"}, headers=HX)
        self.read(answer.get_data(as_text=True), "a redo in the history")
        reopen = re.search(r'class="reopen" action="([^"]+)"', self.page("after the redo"))
        if reopen:  # Edit: the deal back on the screen, then given up
            self.read(self.client.post(reopen[1], headers=HX).get_data(as_text=True), "Edit")
            version = self.shown()[0]
            self.post("discard", "the edit given up", v=version)
        self.page("the full history", "/history")
        for path in ("", "/history"):  # not one text as the English page has it
            pages = [
                self.client.get(f"{self.url}{path}?lang={lang}") for lang in ("en", self.language)
            ]
            same = same_as_english(
                pages[1].get_data(as_text=True),
                pages[0].get_data(as_text=True),
                self.language,
                [*self.names, self.table.name],
            )
            if same:
                self.leaks.append((f"{path or 'the table page'} as in English", same))
        self.page("the Rules page", "/rules")
        for path in ("/rules", f"/rules/{self.game}"):  # the rules off any table
            self.read(self.client.get(f"{path}?lang={self.language}").get_data(as_text=True), path)
        with self.app.test_request_context(f"/?lang={self.language}"):  # as its route is
            table = self.store.table(self.table.id)
            card = printing.rule_card_html(self.game, table, language=self.language)
            self.read(card, "the printed rule card")
            self.read(printing.sheet_html(self.store, table, self.language), "the filled sheet")


def assert_no_english(*tables: Table) -> None:
    leaks = [
        f"{t.game} in {t.language}, {where}: {found[:4]}"
        for t in tables
        for where, found in t.leaks
    ]
    assert not leaks, "English on the screen at " + "; ".join(leaks)


@pytest.fixture
def at(app, client):
    made: list[Table] = []

    def table(game, language, players, **fields) -> Table:
        app.config["WTF_CSRF_ENABLED"] = False
        made.append(Table(app, client, game, language, players, **fields))
        return made[-1]

    yield table
    for t in made:
        t.close()


def refused(t: Table, taps: list[dict], where: str) -> None:
    """The taps, the last of them refused: its message read (and it names no fault
    of the server)."""
    t.play(taps[:-1], where)
    answer = t.tap(taps[-1], f"{where}: the refusal", expect=(200, 409, 422))
    assert any(mark in answer for mark in ("flash error", "verdict no", "field-error"))


@pytest.mark.parametrize("language", LANGUAGES)
def test_cowboy(at, language):
    t = at("cowboy", language, 3)
    t.play(worked("cowboy-tens"), "the deal")
    t.save("the deal saved")
    t.everything_else()
    shot = at("cowboy", language, 3)
    shot.play(worked("cowboy-declined-ace"), "a shot, its ace declined")
    shot.page("the shot over")
    other = at("cowboy", language, 4)
    refused(other, worked("cowboy-turned-ace"), "an ace turned")
    assert_no_english(t, shot, other)


KVANTA_CALL = [
    *({"action": "draw", "seat": s, "card": c} for s, c in enumerate(("2C", "9D", "KS"))),
    {"action": "burn", "seat": 0, "count": 3},
    {"action": "turn", "seat": 0, "card": "7H"},
    {"action": "roll", "seat": 1, "dice": [4, 5, 5]},
    {"action": "no-hand"},
    {"action": "trick-winner", "seat": 2},
    {"action": "exchange", "seat": 2, "die": 3},
    {"action": "call", "seat": 2},
    *({"action": "sum", "seat": s, "sum": n} for s, n in enumerate((13, 20, 11))),
    {"action": "settle"},
    # the poker prize: 7♥ turned
    {"action": "cards", "seat": 0, "cards": ["8H", "KC", "QC", "JC", "KD"]},
    {"action": "cards", "seat": 1, "cards": ["2S", "2H", "2D", "7C", "9C"]},
    {"action": "cards", "seat": 2, "cards": ["AS", "KH", "QH", "JH", "10H"]},
    {"action": "settle"},
]


def dealt_by_the_second(tap: dict) -> dict:
    """A tap of the worked log whose round the third player deals, for the round the
    second one deals: every seat one to the right."""
    return {**tap, "seat": (tap["seat"] - 1) % 3} if "seat" in tap else tap


@pytest.mark.parametrize("language", LANGUAGES)
def test_kvanta(at, language):
    hand = at("kvanta", language, 3)
    hand.play(worked("kvanta-first-round-hand"), "a round won by a Hand")
    hand.everything_else()
    call = at("kvanta", language, 3)
    call.play(KVANTA_CALL, "a round with a call")
    flux = worked("kvanta-flux-call-king-prize")
    call.play([dealt_by_the_second(tap) for tap in flux], "a flux call, a king's prize")
    call.everything_else()
    wrong = at("kvanta", language, 3)
    refused(wrong, [*KVANTA_CALL[:5], {"action": "roll", "seat": 2}], "the wrong roller")
    assert len([e for e in call.store.entries(call.table.id) if e.kind == "kvanta-poker"]) == 2
    assert_no_english(hand, call, wrong)


@pytest.mark.parametrize("language", LANGUAGES)
def test_szaman(at, language):
    full = at("szaman", language, 4)
    full.play(worked("szaman-full-deal"), "a deal card by card")
    full.save("the deal saved")
    full.everything_else()
    quick = at("szaman", language, 3, **{"szaman-variant": "russian"})
    quick.play(worked("szaman-russian"), "a Russian deal by its winners")
    quick.save("the deal saved")
    wrong = at("szaman", language, 3)
    refused(wrong, worked("szaman-wrong-leader"), "the wrong leader")
    joker = at("szaman", language, 3)
    refused(joker, worked("szaman-joker-colour"), "a joker's suit")
    assert_no_english(full, quick, wrong, joker)


@pytest.mark.parametrize("language", LANGUAGES)
def test_vezimas(at, language):
    t = at("vezimas", language, 4)
    taps = worked("vezimas-played-out")
    t.play(taps[:1], "the trumps")
    t.post("trumps", "the trumps saved", submission_id=f"tr-{next(_ids)}")
    t.post("check/top", "the referee: the top card", card="KH")
    t.post("check/player", "the referee: the player", seat="1")
    t.post("check/card", "the referee: the card", card="9H")
    t.play(taps[1:], "the deal")
    t.save("the deal saved")
    t.everything_else()
    letters = at("vezimas", language, 3, **{"vezimas-tally": "letters"})
    quick = worked("vezimas-first-deal-quick")
    letters.play(quick[:2], "the trumps")
    letters.post("trumps", "the trumps saved", submission_id=f"tr-{next(_ids)}")
    letters.play(quick[2:], "a deal, the cart's letters")
    letters.save("the deal saved")
    letters.page("the letters")
    other = at("vezimas", language, 2)
    refused(other, worked("vezimas-no-beat"), "a card that does not beat")
    assert_no_english(t, letters, other)


@pytest.mark.parametrize("language", LANGUAGES)
def test_pegs(at, language):
    t = at("pegs", language, 4)
    t.tap({"action": "pick", "seat": 0, "card": "3"}, "a card that cannot move")
    t.tap({"action": "pick", "seat": 0, "card": "A"}, "a card that can")
    t.play(worked("pegs-joker-bump"), "the moves")
    t.tap({"action": "hand", "seat": 0, "hand": ["2", "3", "JK", "5"]}, "the hand checked")
    t.everything_else()
    refused(t, [{"action": "discard", "seat": 1, "card": "AS", "hand": ["AS"]}], "a discard")
    assert_no_english(t)


def test_a_table_started_in_another_language_is_named_in_it(app, client, store):
    """The name a table gets when none is typed is read by every phone at it: in the
    table's language, even when the phone that starts it speaks English."""
    app.config["WTF_CSRF_ENABLED"] = False
    made = client.post(
        "/tables",
        data={"game": "pegs", "player": list(NAMES["pl"]), "language": "pl", "submission_id": "pl"},
        headers={"Accept-Language": "en"},
    )
    assert made.status_code == 303
    (table,) = store.list_tables()
    game, date = table.name.split(", ", 1)
    assert game == "Arizońskie pionki i jokery"
    assert date == format_date(datetime.now(UTC), "medium", locale="pl")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_words_the_page_s_script_shows_come_in_the_page_s_language(client, language):
    """static/app.js shows its words from the page's ``data-words`` (English when a key is
    missing there): every key it asks for is given, and none of them in English."""
    script = (Path(__file__).resolve().parents[1] / "static" / "app.js").read_text()
    asked = set(re.findall(r'\bsay\("(\w+)"', script))

    def words(lang: str) -> dict:
        page = client.get(f"/?lang={lang}").get_data(as_text=True)
        return json.loads(html.unescape(re.search(r'data-words="([^"]*)"', page)[1]))

    english, shown = words("en"), words(language)
    assert asked and asked <= set(shown), asked - set(shown)
    assert not [key for key, word in shown.items() if word == english[key]]


@pytest.mark.parametrize("language", LANGUAGES)
def test_too_many_new_tables_are_refused_in_the_page_s_language(app, client, language):
    """The limit on new tables is said in words of the language, never as the settings
    write it ("1 per minute")."""
    app.config.update(WTF_CSRF_ENABLED=False, CREATE_RATE_LIMIT="1 per minute; 50 per day")
    answers = [
        client.post(
            f"/tables?lang={language}",
            data={"game": "kvanta", "player": ["A", "B", "C"], "submission_id": f"rate-{n}"},
        )
        for n in range(2)
    ]
    assert [a.status_code for a in answers] == [303, 429]
    text = visible_text(answers[1].get_data(as_text=True))
    assert "per minute" not in text and "per day" not in text
    locale = language.replace("-", "_")
    for span in (timedelta(minutes=1), timedelta(days=1)):
        assert format_timedelta(span, locale=locale) in text
    assert not english_in(text, language)
