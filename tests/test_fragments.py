"""The panels' HTML made in Python (scorekeeper.views.fragments): buttons escaped as Jinja
would, the templates' gettext as Jinja's, what a tap's answer keeps from the one before
(pickers, blocks), and the parts a phone keeps: an answer with holes for the parts the
phone shows is, once the phone fills them, the answer drawn whole."""

from __future__ import annotations

import html
import itertools
import json
import re
import xml.etree.ElementTree as ET

import pytest
import tinyhtml5
from hypothesis import example, given
from hypothesis import strategies as st
from jinja2 import Environment
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup

from scorekeeper.views import fragments, panel

HX = {"HX-Request": "true"}
tap_ids = itertools.count()


# ---------------------------------------------------------------- buttons


def test_a_button_escapes_its_label_class_url_and_aria_as_a_template_would():
    made = fragments.button(
        "<b>Ana & Bo</b>",
        'x" onclick="y',
        url='/t/k?a="1"',
        vals={"tap": '{"card":"10H"}', "name": "it's <i>"},
        pressed=True,
        aria="Ana & Bo",
    )
    assert isinstance(made, Markup)
    assert "<b>" not in made and "&lt;b&gt;Ana &amp; Bo&lt;/b&gt;" in made
    assert 'class="x&#34; onclick=&#34;y"' in made
    assert 'hx-post="/t/k?a=&#34;1&#34;"' in made
    assert 'aria-pressed="true"' in made and 'aria-label="Ana &amp; Bo"' in made
    vals = re.search(r"hx-vals='([^']*)'", made).group(1)
    assert "'" not in vals and "<" not in vals  # HTML-safe JSON, as tojson writes it
    assert json.loads(html.unescape(vals)) == {"tap": '{"card":"10H"}', "name": "it's <i>"}
    assert list(json.loads(vals)) == ["name", "tap"]  # keys sorted, as tojson sorts them


def test_a_button_without_a_tap_is_disabled_and_markup_in_its_label_stays():
    made = fragments.button(Markup("<span>♥</span>"), "cb-suit", url="/t/k/tap", vals=None)
    assert " disabled" in made and "data-tap" not in made and "hx-vals" not in made
    assert "<span>♥</span>" in made


def test_a_button_begins_with_a_capital_but_a_name_stays_as_written():
    """Polish puts the verb first where English puts the name ("sprawdza Ana", Kvanta's
    call): on a button it reads "Sprawdza Ana". A name first is the player's own."""
    said = Markup("sprawdza %s") % fragments.player_name("ana")
    made = fragments.button(said, "small", url="/t/k/tap", vals={"v": 1})
    assert '<span class="sentence">Sprawdza <span class="name" title="ana">ana</span>' in made
    own = fragments.button(Markup("%s calls") % fragments.player_name("ana"), "small")
    assert '<span class="sentence"><span class="name" title="ana">ana</span> calls' in own
    assert ">Élan<" in fragments.button("élan") and ">7 ♥<" in fragments.button("7 ♥")


def test_a_views_tap_is_pressed_when_on_and_says_why_it_is_off():
    on = fragments.tap("/u", {"vals": {"v": 1}, "on": True, "reason": ""}, "Ana", "small")
    assert 'class="small on"' in on and 'aria-pressed="true"' in on and "data-tap" in on
    off = fragments.tap(None, {"vals": None, "reason": "shown"}, Markup("<span>♥</span>"), "s")
    assert 'aria-pressed="false"' in off and " disabled" in off
    assert 'aria-label="♥ — shown"' in off  # the label's text, without its tags


def test_a_routed_tap_goes_to_the_route_it_names():
    urls = {"tap": "/t/k/kvanta/tap", "roll": "/t/k/kvanta/roll"}.get
    made = fragments.routed_tap(urls, {"vals": {"v": 2}}, 3, route="roll", action="burn")
    assert 'hx-post="/t/k/kvanta/roll"' in made and 'data-action="burn"' in made
    assert ">3</button>" in made and "aria-pressed" not in made


def test_a_group_labels_its_buttons():
    assert fragments.group(Markup("<button>x</button>"), "Cards & more") == (
        '<div class="picker" role="group" aria-label="Cards &amp; more"><button>x</button></div>'
    )
    assert fragments.group("", "L", "cb-gunpick").startswith('<div class="cb-gunpick"><div')


# ---------------------------------------------------------------- what is kept


def test_a_memo_keeps_the_most_recently_used_and_makes_each_once():
    memo, made = fragments.Memo(2), []

    def make(text):
        return lambda: made.append(text) or text

    assert memo.get("a", make("A")) == "A"
    assert memo.get("b", make("B")) == "B"
    assert memo.get("a", make("again")) == "A"  # kept: not made again
    memo.get("c", make("C"))  # "b" was used least recently: it goes
    assert len(memo) == 2 and memo.get("b", make("B2")) == "B2"
    assert made == ["A", "B", "C", "B2"]


class FakeView:
    def __init__(self, table_id=1):
        self.access, self.context = "score", {"round": 1}
        self.table = type("T", (), {"id": table_id})()

    def url(self, route):
        return f"/t/key{self.table.id}/g/{route}"


def test_a_fragment_is_drawn_once_for_the_same_inputs_and_again_for_others(app):
    drawn = []

    def block(text):
        return lambda: drawn.append(text) or Markup(f"<p>{text}</p>")

    with app.test_request_context("/"):
        view = FakeView()
        first = fragments.fragment(view, "test-block", {"a": 1}, [2], caller=block("one"))
        again = fragments.fragment(view, "test-block", {"a": 1}, [2], caller=block("two"))
        other = fragments.fragment(view, "test-block", {"a": 1}, [3], caller=block("three"))
        elsewhere = fragments.fragment(
            FakeView(table_id=2), "test-block", {"a": 1}, [2], caller=block("four")
        )
    assert unkeyed(first) == unkeyed(again) == "<p>one</p>" and unkeyed(other) == "<p>three</p>"
    assert unkeyed(elsewhere) == "<p>four</p>"  # another table's block is its own
    assert first == again and len({key_of(first), key_of(other), key_of(elsewhere)}) == 3
    assert drawn == ["one", "three", "four"]


def test_equal_inputs_are_the_same_fragment_whichever_objects_they_share(app):
    name = "".join(["A", "na"])  # a string made afresh, not the interned "Ana"
    one = {"name": name, "again": name, "cards": ["KH"]}
    other = {"name": "Ana", "again": "".join(["An", "a"]), "cards": ["KH"]}
    drawn = []
    with app.test_request_context("/"):
        for inputs in (one, other):
            fragments.fragment(
                FakeView(table_id=7), "test-shared", inputs, caller=lambda: drawn.append(1)
            )
    assert drawn == [1]


def unkeyed(made: str) -> str:
    return re.sub(r' data-frag="[0-9a-f]{16}"', "", made)


def key_of(made: str) -> str | None:
    found = re.search(r'data-frag(?:-kept)?="([0-9a-f]{16})"', made)
    return found and found.group(1)


def test_a_block_of_one_element_carries_its_key_and_a_phone_showing_it_gets_a_hole(app):
    with app.test_request_context("/"):
        made = fragments.fragment(
            FakeView(), "test-hole", 1, caller=lambda: Markup('<div class="x">a</div>\n')
        )
        key = key_of(made)
        assert made == f'<div class="x" data-frag="{key}">a</div>\n'
        with fragments.answering(frozenset({key})):  # an answer to a phone showing it
            shown = fragments.fragment(FakeView(), "test-hole", 1, caller=lambda: "never drawn")
            # a phone showing another version of the block gets it whole
            other = fragments.fragment(
                FakeView(), "test-hole", 2, caller=lambda: Markup("<p>b</p>")
            )
        assert shown == f'<i data-frag-kept="{key}" hidden></i>\n'  # the space around it stays
        assert unkeyed(other) == "<p>b</p>" and key_of(other) != key


@pytest.mark.parametrize(
    "block",
    [
        "<p>a</p><p>b</p>",  # two roots
        "text <b>x</b>",  # text around it
        "<div><p>a</p>",  # not closed
        "<div>a</div> tail",
    ],
)
def test_a_block_that_is_not_one_element_has_no_key_and_is_always_sent(app, block):
    with app.test_request_context("/"):
        made = fragments.fragment(FakeView(), f"test-roots-{block}", caller=lambda: Markup(block))
    assert made == block


def test_a_part_inside_a_kept_block_is_a_hole_for_the_phone_that_shows_it(app):
    """A block is drawn once for every phone, the parts in it whole; each answer writes
    those parts its phone shows as holes (a seat's editor changed, its pickers kept)."""
    picker = fragments.Kept("<button>x</button>")
    picker.key = ("a picker",)
    inner = str(fragments.group(picker, "Cards"))
    drawn = []

    def block():
        drawn.append(1)
        return Markup(f"<section>{fragments.group(picker, 'Cards')}</section>")

    def answer(have: frozenset) -> str:
        with app.test_request_context("/"), fragments.answering(have):
            return str(fragments.fragment(FakeView(), "test-nested", caller=block))

    hole = f'<i data-frag-kept="{key_of(inner)}" hidden></i>'
    assert answer(frozenset({key_of(inner)})).endswith(f">{hole}</section>")
    # another phone, which has not the picker, gets it whole from the same block
    whole = answer(frozenset())
    assert inner in whole and "data-frag-kept" not in whole and "\x02" not in whole
    assert len(drawn) == 1
    # an answer kept for every phone (the poll's) keeps the marks for each phone's copy
    with app.test_request_context("/"), fragments.marking_parts():
        marked = str(fragments.fragment(FakeView(), "test-nested", caller=block))
    assert fragments.with_holes(marked, frozenset({key_of(inner)})).endswith(f">{hole}</section>")
    assert fragments.with_holes(marked, frozenset()) == whole


def elements_around(inner):
    """An element of a few tags around ``inner`` (a list of them)."""
    tags = st.sampled_from(["div", "p", "span", "svg", "button"])
    return st.tuples(tags, st.lists(inner, max_size=3)).map(
        lambda made: f'<{made[0]} class="c">{"".join(made[1])}</{made[0]}>'
    )


elements = st.recursive(
    st.sampled_from(["<br>", "<input value='a>b'>", "<circle r='1'/>", "<!-- <p> -->", "x"]),
    elements_around,
    max_leaves=10,
)


@given(roots=st.lists(elements, min_size=1, max_size=3), space=st.sampled_from(["", "\n  "]))
def test_only_html_of_one_element_is_given_a_key_and_nothing_else_changes(roots, space):
    block = space + "".join(roots) + space
    keyed = fragments._keyed(block, "0123456789abcdef")
    one = (
        len(roots) == 1
        and roots[0].startswith("<")
        and not roots[0].startswith(("<br", "<input", "<circle", "<!--"))
    )
    assert (keyed is not None) == one
    if keyed is not None:
        assert keyed.replace(' data-frag="0123456789abcdef"', "", 1) == block
        assert re.match(r'\s*<\w+ class="c" data-frag="0123456789abcdef">', keyed)


def test_a_fragment_is_kept_per_language(app):
    with app.test_request_context("/?lang=pl"):
        pl = fragments.fragment(FakeView(), "test-lang", 1, caller=lambda: Markup("pl"))
    with app.test_request_context("/?lang=en"):
        en = fragments.fragment(FakeView(), "test-lang", 1, caller=lambda: Markup("en"))
    assert (pl, en) == ("pl", "en")


# ---------------------------------------------------------------- the templates' gettext


@pytest.mark.parametrize(
    "source",
    [
        "{{ _('Round %(n)d', n=3) }}",
        "{{ _('%(name)s deals', name=who) }}",
        "{{ _('Undo last tap') }}",
        "{{ gettext('%(name)s deals', name=who) }}",
        "{{ ngettext('%(num)d card', '%(num)d cards', 1) }}",
        "{{ ngettext('%(num)d card', '%(num)d cards', count, name=who) }}",
        "{{ _('%(name)s deals', name=who)|length }}",
    ],
)
@pytest.mark.parametrize("language", ["en", "pl", "sr-Cyrl"])
def test_the_templates_gettext_says_what_jinjas_newstyle_gettext_says(app, source, language):
    from scorekeeper import i18n

    jinja = Environment(autoescape=True, extensions=["jinja2.ext.i18n"])
    with app.test_request_context(f"/?lang={language}"):
        catalogue = i18n.translations()
        jinja.install_gettext_translations(catalogue, newstyle=True)
        context = {"who": "<Ana & Bo>", "count": 5}
        ours = app.jinja_env.from_string(source).render(**context)
        assert ours == jinja.from_string(source).render(**context)
        assert "&lt;Ana &amp; Bo&gt;" in ours or "Ana" not in ours


# ---------------------------------------------------------------- a tap's answer


def post_tap(client, url, csrf, game, tap: dict, version, round_number=1, have=""):
    """A tap as a phone posts it: its id, the version and round its panel shows, the
    parts of the page it keeps."""
    sent = {"v": str(version), "round": str(round_number), "have": have}
    sent.update(tap_id=f"f{next(tap_ids)}", tap=json.dumps(tap))
    response = client.post(f"{url}/{game}/tap", data=sent, headers={**HX, "X-CSRFToken": csrf})
    return response.get_data(as_text=True), response.status_code


def cowboy_tap(client, url, csrf, action, version, have="", round_number=1, **args):
    tap = {"action": action, **args}
    answer, status = post_tap(client, url, csrf, "cowboy", tap, version, round_number, have)
    assert status == 200
    return answer


def versions(text):
    """The draft version of every button that carries one."""
    found = []
    for vals in re.findall(r"hx-vals='([^']*)'", text):
        fields = json.loads(html.unescape(vals))
        if "v" in fields:
            found.append(fields["v"])
    return found


def panel_version(text):
    return int(re.search(r'id="cowboy-panel"[^>]*data-deal-version="(\d+)"', text, re.S).group(1))


def test_no_button_carries_the_version_the_panel_carries_it(new_table, client):
    url, page = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    first = cowboy_tap(client, url, page.csrf, "hold", 0, seat=0, card="KH")
    second = cowboy_tap(client, url, page.csrf, "lay", panel_version(first), seat=2, card="10D")
    assert panel_version(second) == panel_version(first) + 1
    shown = client.get(url).get_data(as_text=True)
    for text in (first, second, shown):
        assert "data-tap" in text and versions(text) == []
    assert panel_version(shown) == panel_version(second)


XHTML = "{http://www.w3.org/1999/xhtml}"


def cowboy_panel(text: str, panel: str = "cowboy-panel") -> str:
    start = text.index(f'<section id="{panel}"')
    return text[start : text.index("</section>", start) + len("</section>")]


def filled(answer: str, shown: str, panel: str = "cowboy-panel") -> str:
    """The panel a phone showing ``shown`` makes of ``answer`` (static/app.js): each hole
    filled with the part of that key it shows, as HTML's parser reads it."""
    parts = {el.get("data-frag"): el for el in tinyhtml5.parse(shown).iter() if el.get("data-frag")}
    tree = tinyhtml5.parse(cowboy_panel(answer, panel).replace(' hx-swap-oob="true"', "", 1))
    for parent in list(tree.iter()):
        for i, child in enumerate(list(parent)):
            if child.get("data-frag-kept"):
                copy = ET.fromstring(ET.tostring(parts[child.get("data-frag-kept")]))
                copy.tail = child.tail
                parent[i] = copy
    return ET.tostring(tree.find(f"{XHTML}body"), encoding="unicode")


def test_an_answer_with_holes_is_once_filled_the_panel_drawn_whole(new_table, client):
    """Each tap sends the keys of the parts its phone shows: the answer writes those as
    holes, and the panel the phone then shows is the one the table page draws."""
    url, page = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    taps = [
        ("hold", {"seat": 0, "card": "KH"}),
        ("hold", {"seat": 1, "card": "QS"}),
        ("lay", {"seat": 2, "card": "10D"}),
        ("lay", {"seat": 0, "card": "10H"}),
        ("unhold", {"seat": 0, "card": "KH"}),
    ]
    shown = cowboy_panel(client.get(url).get_data(as_text=True))
    sent = whole = 0
    for action, args in taps:
        have = re.findall(r'data-frag="([0-9a-f]{16})"', shown)
        answer = cowboy_tap(
            client, url, page.csrf, action, panel_version(shown), have=" ".join(have), **args
        )
        holes = re.findall(r'data-frag-kept="([0-9a-f]{16})"', answer)
        assert holes and set(holes) <= set(have)
        drawn = cowboy_panel(client.get(url).get_data(as_text=True))
        assert filled(answer, shown) == filled(drawn, drawn)
        sent, whole, shown = sent + len(answer), whole + len(drawn), drawn
    assert sent * 2 < whole  # the parts kept are most of the panel


def test_a_held_card_tapped_draws_its_suits_groups_alone(new_table, client):
    """The cards at the end are a group per suit: a card tapped changes its suit's group
    in every player's pickers (whose it is), so the answer draws those and the phone
    keeps the others' groups."""
    url, page = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    lay = cowboy_tap(client, url, page.csrf, "lay", 0, seat=2, card="10D")
    shown = cowboy_panel(client.get(url).get_data(as_text=True))
    have = " ".join(re.findall(r'data-frag="([0-9a-f]{16})"', shown))
    answer = cowboy_tap(client, url, page.csrf, "hold", panel_version(lay), have=have, seat=0,
                        card="KH")  # fmt: skip
    drawn = re.findall(r'<button[^>]*\\"action\\":\\"(?:un)?hold\\"[^>]*>', answer)
    cards = [re.search(r'data-card="([^"]+)"', tag).group(1) for tag in drawn]
    # the hearts of the three players' held cards: Ana's K♥ on, the others' taken
    assert sorted(cards) == sorted(["AH", "KH", "QH", "JH", "10H", "6H", "2H"] * 3)
    assert answer.count('aria-label="Hearts"') == 3 and 'aria-label="Spades"' not in answer
    drawn_whole = cowboy_panel(client.get(url).get_data(as_text=True))
    assert filled(answer, shown) == filled(drawn_whole, drawn_whole)


def test_a_seats_editor_redrawn_keeps_the_pickers_the_phone_shows_as_holes(new_table, client):
    """A Kvanta seat's editor is drawn anew when its row changes; the suit pickers in it
    are as they were, so the answer writes them as holes inside it, and the panel the
    phone makes of it is the one the page draws."""
    url, page = new_table("kvanta", ("Ana", "Bojan", "Ceca"))
    shown = cowboy_panel(client.get(url).get_data(as_text=True), "kv-panel")
    for seat, card in enumerate(("2C", "9D")):
        have = re.findall(r'data-frag="([0-9a-f]{16})"', shown)
        version = re.search(r'data-deal-version="(\d+)"', shown).group(1)
        tap = {"action": "draw", "seat": seat, "card": card}
        answer, status = post_tap(
            client, url, page.csrf, "kvanta", tap, version, have=" ".join(have)
        )
        assert status == 200
        drawn = cowboy_panel(client.get(url).get_data(as_text=True), "kv-panel")
        assert filled(answer, shown, "kv-panel") == filled(drawn, drawn, "kv-panel")
        # each editor redrawn holds its pickers as holes: 52 cards sent as four holes
        editors = [
            e for e in answer.split('<div class="kv-editor"')[1:] if 'data-frag="' in e[:300]
        ]
        assert editors
        for editor in editors:
            pickers = editor.split('<div class="kv-pickers">')[1].split("</div>")[0]
            assert pickers.count("data-frag-kept") == 4 and 'class="pick' not in pickers
        shown = drawn


def test_a_phone_naming_parts_it_does_not_show_gets_them_or_a_hole_of_what_it_named(
    new_table, client
):
    url, page = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    answer = cowboy_tap(
        client, url, page.csrf, "hold", 0, have="zz " * 300 + "0" * 16, seat=0, card="KH"
    )
    assert "data-frag-kept" not in answer and "data-frag" in answer


def test_the_polls_answer_writes_the_parts_the_phone_shows_as_holes(new_table, client):
    """Another phone taps: this phone's poll names the parts it shows, and gets the
    changed parts whole, the others as holes, from one answer kept for every phone."""
    url, page = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    shown = client.get(url).get_data(as_text=True)
    table_version = re.search(r'id="live"[^>]*\?v=(\d+)', shown).group(1)
    shown = cowboy_panel(shown)
    have = re.findall(r'data-frag="([0-9a-f]{16})"', shown)
    cowboy_tap(client, url, page.csrf, "hold", 0, seat=0, card="KH")  # another phone
    polled = client.get(f"{url}/live?v={table_version}&have={'+'.join(have)}")
    answer = polled.get_data(as_text=True)
    holes = re.findall(r'data-frag-kept="([0-9a-f]{16})"', answer)
    assert holes and set(holes) <= set(have) and "\x02" not in answer
    drawn = cowboy_panel(client.get(url).get_data(as_text=True))
    assert filled(answer, shown) == filled(drawn, drawn)
    # a phone that shows nothing (or names what no panel has) gets it all, unmarked
    for asked in ("", "&have=" + "0" * 16):
        whole = client.get(f"{url}/live?v={table_version}{asked}").get_data(as_text=True)
        assert "data-frag-kept" not in whole and "\x02" not in whole
        assert filled(whole, "") == filled(drawn, drawn)


def test_the_history_and_the_standings_as_they_were_are_holes_in_the_poll(
    new_table, client, parsed
):
    """Rounds saved, then a deal being tapped on another phone: the poll's answer writes
    the history and the standings this phone shows as holes, until they change."""
    from test_web import post_round

    url, page = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    for n, points in enumerate(([40, -10, 5], [7, 8, 9])):
        post_round(client, url, parsed(client.get(url)), points, submission_id=f"r{n}")
    shown = client.get(url).get_data(as_text=True)
    have = re.findall(r'data-frag="([0-9a-f]{16})"', shown)
    seen = re.search(r'id="live"[^>]*\?v=(\d+)', shown).group(1)
    rounds = re.search(r'<ol class="rounds"[^>]*data-frag="([0-9a-f]{16})"', shown).group(1)
    totals = re.search(r'<ol class="totals[^"]*"[^>]*data-frag="([0-9a-f]{16})"', shown).group(1)
    deal = int(re.search(r'id="cowboy-panel"[^>]*data-round="(\d+)"', shown).group(1))
    cowboy_tap(client, url, page.csrf, "hold", 0, round_number=deal, seat=0, card="KH")
    answer = client.get(f"{url}/live?v={seen}&have={'+'.join(have)}").get_data(as_text=True)
    holes = set(re.findall(r'data-frag-kept="([0-9a-f]{16})"', answer))
    assert {rounds, totals} <= holes and "Round 2" not in answer
    # a round saved: the history and the totals changed, sent whole
    seen = re.search(r'id="live"[^>]*\?v=(\d+)', answer).group(1)
    post_round(client, url, parsed(client.get(url)), [1, 2, 3], submission_id="r3")
    answer = client.get(f"{url}/live?v={seen}&have={'+'.join(have)}").get_data(as_text=True)
    assert rounds not in answer and totals not in answer and "Round 3" in answer
    drawn = client.get(url).get_data(as_text=True)
    key = re.compile(r'<ol class="rounds"[^>]*data-frag="([0-9a-f]{16})"')
    assert key.search(answer).group(1) == key.search(drawn).group(1)  # what the page draws


def test_a_kept_part_of_a_drawing_is_a_hole_a_drawing_can_hold():
    """An HTML element in an SVG drawing would end the drawing where it stands (HTML's
    parser): a part of a drawing comes back as an SVG group."""
    key, element = "d" * 16, f'<g class="pg-fixed" data-frag="{"d" * 16}"><circle r="1"/></g>'
    with fragments.answering(frozenset({key})):
        assert fragments.kept(key, element, svg=True) == f'<g data-frag-kept="{key}"></g>'
    assert fragments.kept(key, element, svg=True) == element  # a phone that shows none
    with fragments.marking_parts():
        marked = f"<svg>{fragments.kept(key, element, svg=True)}</svg>"
    assert fragments.with_holes(marked, frozenset({key})) == (
        f'<svg><g data-frag-kept="{key}"></g></svg>'
    )
    assert fragments.with_holes(marked, frozenset()) == f"<svg>{element}</svg>"


def test_holes_replace_the_outermost_parts_a_phone_shows_and_the_marks_go():
    def part(key, inner):
        return f"\x02{key}\x03<div>{inner}</div>\x02/{key}\x03"

    a, b, c = "a" * 16, "b" * 16, "c" * 16
    html = f"<p>{part(a, part(b, 'x') + 'y')} {part(c, 'z')}</p>"
    hole = '<i data-frag-kept="{}" hidden></i>'.format
    assert fragments.with_holes(html, frozenset()) == "<p><div><div>x</div>y</div> <div>z</div></p>"
    assert fragments.with_holes(html, frozenset({a, b})) == f"<p>{hole(a)} <div>z</div></p>"
    assert (
        fragments.with_holes(html, frozenset({b, c})) == f"<p><div>{hole(b)}y</div> {hole(c)}</p>"
    )
    assert fragments.with_holes("<p>plain</p>", frozenset({a})) == "<p>plain</p>"


def test_a_kept_kvanta_seat_carries_no_version(new_table, client, app):
    url, page = new_table("kvanta", ("Ana", "Bojan", "Ceca"))

    def tap(action, version, **args):
        tapped = {"action": action, **args}
        text, status = post_tap(client, url, page.csrf, "kvanta", tapped, version)
        assert status == 200
        found = re.search(r'id="kv-panel"[^>]*data-deal-version="(\d+)"', text, re.S)
        return text, int(found.group(1))

    text, version = tap("draw", 0, seat=0, card="2C")
    for seat, card in ((1, "9D"),):  # Ceca's part is drawn as before: kept
        text, version = tap("draw", version, seat=seat, card=card)
    assert version == 2 and versions(text) == []
    ceca = text[text.index('data-editing="Ceca"') :]
    assert 'data-card="KS"' in ceca


def test_a_picker_kept_between_answers_is_the_one_drawn_afresh():
    class Table:
        id, scorer_key, game = 1, "a-table-of-this-test", "cowboy"

    def picker(version, **kwargs):
        view = panel.View(
            Table(), "score", {"taps": [], "undone": [], "context": {"round": 1}}, version, None
        )
        return view.picker(["AH", "KH", "10S"], ("hold", "unhold"), {"seat": 0}, **kwargs)

    from flask import Flask

    with Flask(__name__).test_request_context("/"):
        fresh = picker(4, taken={"KH": "Bojan"}, selected=["AH"])
        kept = picker(4, taken={"KH": "Bojan"}, selected=["AH"])
        later = picker(5, taken={"KH": "Bojan"}, selected=["AH"])
        other = picker(5, taken={}, selected=["AH"])
        odd = picker(6, taken={"KH": "<Bo & 'Jo'>"}, selected=[])
    assert "K♥ — &lt;Bo &amp; &#39;Jo&#39;&gt;" in odd and "<Bo" not in odd
    assert fresh == kept and fresh.key == kept.key and '"v"' not in fresh
    assert later == fresh and "K♥ — Bojan" in later  # the same at any version
    assert "K♥ — Bojan" not in other and other.key != fresh.key


class Vals:
    """A View's tap fields."""

    def __init__(self, round_number):
        self.round_number = round_number

    def vals(self):
        return {"round": self.round_number}

    def tap_vals(self, action, /, **args):
        return {**self.vals(), "tap": json.dumps({"action": action, **args}, separators=(",", ":"))}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@given(
    round_number=st.none() | st.integers(min_value=1),
    action=st.text(min_size=1),
    args=st.dictionaries(st.text().filter(lambda k: k != "action"), json_values, max_size=4),
)
@example(round_number=None, action="0", args={"view": None})  # a field named as the view
def test_a_taps_fields_are_written_as_htmlsafe_json_dumps_writes_them(round_number, action, args):
    view = Vals(round_number)
    made = fragments.tap_vals_json(view, action, **args)
    assert made == htmlsafe_json_dumps(view.tap_vals(action, **args))
    assert "'" not in made and "<" not in made
    # written once per tap: the same again, and not another tap's that a dict deems equal
    assert fragments.tap_vals_json(view, action, **args) == made
    for value in (1, True, 1.0, (1, 1), (1, True)):
        again = {**args, "seat": value}
        assert fragments.tap_vals_json(view, action, **again) == htmlsafe_json_dumps(
            view.tap_vals(action, **again)
        )


def test_a_kvanta_die_and_keypad_are_what_their_macros_drew(app):
    from scorekeeper.views import kvanta as kvanta_view

    with app.test_request_context("/"):
        die = kvanta_view.die(4, exchange=True, small=True)
        plain = kvanta_view.die(6)
    assert die == (
        '<span class="die exchange small" data-face="4" role="img" '
        'aria-label="exchange die showing 4">' + "<i></i>" * 9 + "</span>"
    )
    assert 'class="die"' in plain and 'aria-label="die showing 6"' in plain
    keys = [
        {"label": "7", "vals": {"v": 3, "tap": "t7"}, "off": True},
        {"label": "±", "vals": None, "off": True, "aria": "Plus or minus"},
        {"label": "0", "vals": {"v": 3, "tap": "t0"}, "off": False},
    ]
    made = re.findall(r"<button[^>]*>[^<]*</button>", kvanta_view.keypad_buttons("/u", keys))
    assert len(made) == 3
    assert 'data-key="7" disabled' in made[0] and "data-tap" in made[0]  # too big a sum
    assert "data-tap" not in made[1] and 'aria-label="Plus or minus"' in made[1]
    assert " disabled" not in made[2] and 'hx-post="/u"' in made[2] and ">0</button>" in made[2]


MARKS = ("\x02", "\x03", "\x04")


def example(name: str) -> tuple[list[str], list[dict]]:
    from pathlib import Path

    data = json.loads((Path(__file__).parent / "data" / "play" / f"{name}.json").read_text())
    request = data.get("request", data)
    return request["players"], [{k: v for k, v in t.items() if k != "id"} for t in request["taps"]]


@pytest.mark.parametrize(
    "game, name",
    [
        ("cowboy", "cowboy-tens"),
        ("szaman", "szaman-quick-deal"),
        ("vezimas", "vezimas-known-hand"),
        ("kvanta", "kvanta-first-round-hand"),  # its seats' editors: parts inside parts
    ],
)
def test_no_answer_carries_a_mark_and_every_hole_is_a_part_the_phone_named(
    new_table, client, game, name
):
    """A deal tapped through by one phone while another polls: the marks of the poll's
    kept answer never reach a phone, and no answer writes a hole the phone did not name."""
    players, taps = example(name)
    url, page = new_table(game, tuple(players))
    shown = client.get(url).get_data(as_text=True)
    mine = watching = set(re.findall(r'data-frag="([0-9a-f]{16})"', shown))
    seen = re.search(r'id="live"[^>]*\?v=(\d+)', shown).group(1)
    version = int(re.search(r'data-deal-version="(\d+)"', shown).group(1))
    round_number = re.search(r"hx-vals='\{\"round\": (\d+)", shown).group(1)  # a button's
    kept = 0
    for tap in taps[:12]:
        answer, _status = post_tap(
            client, url, page.csrf, game, tap, version, round_number, " ".join(mine)
        )
        polled = client.get(
            f"{url}/live", query_string={"v": seen, "have": " ".join(watching)}
        ).get_data(as_text=True)
        for text, named in ((answer, mine), (polled, watching)):
            assert not any(mark in text for mark in MARKS)
            holes = set(re.findall(r'data-frag-kept="([0-9a-f]{16})"', text))
            assert holes <= named
            kept += len(holes)
        if found := re.search(r'data-deal-version="(\d+)"', answer):
            version = int(found.group(1))
        mine = set(re.findall(r'data-frag(?:-kept)?="([0-9a-f]{16})"', answer)) or mine
        if polled:
            watching = set(re.findall(r'data-frag(?:-kept)?="([0-9a-f]{16})"', polled))
            seen = re.search(r'id="live"[^>]*\?v=(\d+)', polled).group(1)
    assert not any(mark in client.get(url).get_data(as_text=True) for mark in MARKS)
    assert kept  # the phones kept parts


@pytest.mark.parametrize(
    "game, name",
    [
        ("cowboy", "cowboy-tens"),
        ("szaman", "szaman-quick-deal"),
        ("vezimas", "vezimas-known-hand"),
        ("kvanta", "kvanta-first-round-hand"),
        ("pegs", None),
    ],
)
def test_the_panel_names_the_deals_latest_taps(new_table, client, game, name):
    """Every game's panel says which taps its deal holds last (``data-taps``), in a tap's
    answer and in another phone's poll: a phone whose tap got no answer reads there that
    the tap arrived (static/app.js), and stops asking to tap it again."""
    if name is None:
        players, taps = (
            ["Ana", "Bojan", "Ceca", "Dule"],
            [{"action": "pick", "seat": 0, "card": "A"}],
        )
    else:
        players, taps = example(name)
    rolled = [n for n, tap in enumerate(taps) if tap["action"] == "roll"]
    taps = taps[: rolled[0]] if rolled else taps  # (the server rolls Kvanta's dice)
    url, page = new_table(game, tuple(players))
    shown = client.get(url).get_data(as_text=True)
    assert 'data-taps=""' in shown  # nothing tapped yet
    seen = re.search(r'id="live"[^>]*\?v=(\d+)', shown).group(1)
    version = int(re.search(r'data-deal-version="(\d+)"', shown).group(1))
    sent = []
    for number, tap in enumerate(taps[: panel.RECENT_TAPS_SHOWN + 2]):
        sent.append(f"latest-{number}")
        fields = {"v": version, "round": 1, "tap_id": sent[-1], "tap": json.dumps(tap)}
        response = client.post(
            f"{url}/{game}/tap", data=fields, headers={**HX, "X-CSRFToken": page.csrf}
        )
        answer = response.get_data(as_text=True)
        assert response.status_code == 200, answer
        version = int(re.search(r'data-deal-version="(\d+)"', answer).group(1))
        named = re.search(r'data-taps="([^"]*)"', answer).group(1).split()
        assert named == sent[-panel.RECENT_TAPS_SHOWN :]
    polled = client.get(f"{url}/live", query_string={"v": seen}).get_data(as_text=True)
    assert re.search(r'data-taps="([^"]*)"', polled).group(1).split()[-1] == sent[-1]
