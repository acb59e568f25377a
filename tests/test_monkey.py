"""A player who taps whatever the screen offers, in any order: every game's screen is
walked by random taps of its own buttons (card picks, keypads, dice, undo and redo,
save), each sent as a phone sends it. Whatever the walk, no answer is a server error,
the screen always offers a next tap until the game is won, and a tap refused (a card
the rules do not allow there, a gun that is none) says why and changes nothing; the
screen never offers a kind of tap the deal's state has no place for at that moment."""

from __future__ import annotations

import json
import random
import re
import uuid
from html.parser import HTMLParser

import pytest
from conftest import Page, start_table

GAMES = {
    "cowboy": ("Ana", "Bob", "Cid"),
    "kvanta": ("Ana", "Bob", "Cid"),
    "vezimas": ("Ana", "Bob", "Cid", "Dan"),
    "szaman": ("Ana", "Bob", "Cid", "Dan"),
    "pegs": ("Ana", "Bob", "Cid", "Dan"),
}
TAPS_A_WALK = 45
LIVE = re.compile(r'id="live"[^>]*\?v=(\d+)')


class Table:
    """One phone at a table: the page it shows, read afresh after each answer (the page
    a phone shows after the answer is swapped in, as a reload would show it)."""

    def __init__(self, client, game: str, url: str | None = None):
        """A new table, or another phone at the table of ``url``."""
        self.client, self.game = client, game
        if url is None:
            self.url, page = start_table(client, game, GAMES[game])
        else:
            self.url, page = url, Page(client.get(url))
        self.csrf = page.csrf
        self.html = page.html
        self.sent: list[tuple[str, dict]] = []

    def reload(self) -> None:
        page = Page(self.client.get(self.url))
        assert page.status == 200, page.html
        self.html = page.html

    def buttons(self) -> list[tuple[str, dict]]:
        """What a tap on each enabled button of the game's screen sends: its URL and
        its fields, as htmx and static/app.js gather them."""
        # the board up to its history: the game's screen, and less to read
        board = self.html[self.html.index('<div id="board"') : self.html.index('id="history"')]
        reader = Elements()
        reader.feed(board)
        live = LIVE.search(self.html)
        offered = []
        for el, above in reader.posting:
            url = el["hx-post"]
            if f"/{self.game}/" not in url or "disabled" in el:
                continue
            # a part hidden for another view (another player's cards, the other mode) is
            # a tap of its chooser away; one hidden otherwise is not there to tap
            if any("hidden" in a and "data-view-only" not in a for a in above):
                continue
            fields: dict = {}
            for node in [*above, el]:  # the closest wins
                if node.get("hx-vals"):
                    fields.update(json.loads(node["hx-vals"]))
            include = el.get("hx-include", "")
            if include.startswith("closest ."):
                wanted = include.removeprefix("closest .")
                box = next((a for a in reversed(above) if wanted in a.get("class", "").split()), {})
                fields.update(box.get(FIELDS, {}))
            panel = next((a for a in reversed(above) if a.get("data-deal-version")), None)
            if panel is not None:
                fields.setdefault("v", panel["data-deal-version"])
            if "data-tap" in el:
                fields["tap_id"] = uuid.uuid4().hex  # made on the phone, as app.js does
                if live:
                    fields["seen"] = live.group(1)
            offered.append((url, {k: str(v) for k, v in fields.items()}))
        return offered

    def tap(self, url: str, fields: dict):
        self.sent.append((url, fields))
        headers = {"HX-Request": "true", "X-CSRFToken": self.csrf}
        return self.client.post(url, data=fields, headers=headers)


FIELDS = "(fields)"  # an element's named fields, as a form inside it would send them
VOID = {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


class Elements(HTMLParser):
    """The elements that post (``hx-post``), each with its open ancestors' attributes,
    outermost first; each ancestor gathers the named fields inside it (a select's chosen
    option, else its first; an input's value) as a browser would send them."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open: list[tuple[str, dict]] = []
        self.posting: list[tuple[dict, list[dict]]] = []
        self.select: str | None = None

    def handle_starttag(self, tag, attrs):
        el = {k: v if v is not None else "" for k, v in attrs}
        above = [a for _t, a in self.open]
        if "hx-post" in el:
            self.posting.append((el, above))
        name = el.get("name")
        if tag == "input" and name:
            self._field(name, el.get("value", ""), chosen=True)
        elif tag == "select":
            self.select = name
        elif tag == "option" and self.select:
            self._field(self.select, el.get("value", ""), chosen="selected" in el)
        if tag not in VOID:
            self.open.append((tag, el))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag == "select":
            self.select = None
        for at in range(len(self.open) - 1, -1, -1):
            if self.open[at][0] == tag:
                del self.open[at:]
                return

    def _field(self, name: str, value: str, chosen: bool) -> None:
        for _tag, el in self.open:
            fields = el.setdefault(FIELDS, {})
            if chosen or name not in fields:
                fields[name] = value


def pick(chooser: random.Random, offered: list[tuple[str, dict]]) -> tuple[str, dict]:
    """Half the time any button; else a kind of tap first (a route and its action: a
    card, a save, an undo), then one of its buttons, so that a card picker's fifty
    buttons do not crowd out Save, nor Undo and Save a deal's cards."""
    if chooser.random() < 0.5:
        return chooser.choice(offered)
    kinds: dict[str, list] = {}
    for url, fields in offered:
        action = json.loads(fields["tap"]).get("action") if "tap" in fields else None
        kinds.setdefault(f"{url.rsplit('/', 1)[-1]} {action}", []).append((url, fields))
    return chooser.choice(kinds[chooser.choice(sorted(kinds))])


def said(html: str) -> str:
    """The refusal an answer shows, if any."""
    found = re.findall(r'role="alert"[^>]*>([^<]*)<', html)
    return " | ".join(found)


def versions(html: str) -> tuple:
    """The table's version and the deal's, as the page shows them."""
    deal = re.search(r'data-deal-version="(\d+)"', html)
    return LIVE.search(html).group(1), deal.group(1) if deal else None


WALKS = 2
# and the seeds of walks that once found a bug: a button the rules then refused (a
# Cowboy end during a shot; a Pegs "Change this move" while the next turn was entered)
FOUND = {"cowboy": (1000,), "pegs": (1043,)}
TWO_PHONE_WALKS = 6  # enough for one to end a Kvanta game while the other taps on


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_walk_of_random_taps_never_errs_and_a_refusal_says_why_and_changes_nothing(app, game):
    """Seeded walks: a failure names its seed and the taps that led to it."""
    refusals = set()
    for seed in (*range(WALKS), *FOUND.get(game, ())):
        chooser = random.Random(f"{game}-{seed}")
        table = Table(app.test_client(), game)
        for _ in range(TAPS_A_WALK):
            offered = table.buttons()
            if 'class="status words-whole finished"' in table.html:
                break  # the game is over, its winner named: nothing is left to tap
            assert offered, (game, seed, "the screen offers nothing to tap", table.sent)
            url, fields = pick(chooser, offered)
            before = versions(table.html)
            answer = table.tap(url, fields)
            html = answer.get_data(as_text=True)
            assert answer.status_code < 500, (game, seed, table.sent, html)
            table.reload()
            if answer.status_code >= 400:
                why = said(html)
                assert why, (game, seed, table.sent[-3:], html)
                # the rules may refuse what a button names (this card, this hole), never
                # the button's own kind of tap: that one the screen should not offer now
                assert not re.search(r'data-field="[^"]*action"', html), (game, seed, why)
                assert versions(table.html) == before, (game, seed, table.sent[-3:], why)
                refusals.add(f"{fields.get('tap', url.rsplit('/', 1)[-1])} → {why[:160]}")
    print(f"\n{game}: refusals met", *sorted(refusals), sep="\n  ")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_two_phones_tapping_at_random_from_pages_that_fall_behind_never_err(app, game):
    """Two phones, each tapping from its own page, which follows the table only when its
    poll comes (half the time) or after its own tap: a tap from a page the other phone
    moved on is applied as it says or refused with why (the stale notice, the rule, the
    game over: an alert or a status), never a server error."""
    for seed in range(TWO_PHONE_WALKS):
        chooser = random.Random(f"{game}-two-{seed}")
        first = Table(app.test_client(), game)
        second = Table(app.test_client(), game, url=first.url)
        for _ in range(TAPS_A_WALK):
            phone = chooser.choice([first, second])
            offered = phone.buttons()
            if offered and 'class="status words-whole finished"' not in phone.html:
                url, fields = pick(chooser, offered)
                answer = phone.tap(url, fields)
                html = answer.get_data(as_text=True)
                assert answer.status_code < 500, (game, seed, phone.sent[-3:], html)
                if answer.status_code >= 400:
                    # why, in words a screen reader announces (the game over too)
                    told = said(html) or re.search(r'role="status"[^>]*>\s*[^<\s]', html)
                    assert told, (game, seed, phone.sent[-3:], html)
            phone.reload()
            if chooser.random() < 0.5:  # the other phone's poll
                (second if phone is first else first).reload()
