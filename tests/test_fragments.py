"""The panels' HTML made in Python (scorekeeper.web.fragments): buttons escaped as Jinja
would, the templates' gettext as Jinja's, and what a tap's answer keeps from the one
before (pickers, blocks) given the draft version of the answer it is in."""

from __future__ import annotations

import html
import itertools
import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jinja2 import Environment
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup

from scorekeeper.web import fragments, screens

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


def test_the_version_slot_is_given_the_version_of_the_answer():
    vals = fragments.vals_json({"round": 2, "v": fragments.VERSION_SLOT})
    assert fragments.with_version(f"<b hx-vals='{vals}'>", 17) == (
        '<b hx-vals=\'{"round": 2, "v": 17}\'>'
    )


class FakeView:
    def __init__(self, slotted, table_id=1):
        self.slotted, self.access, self.context = slotted, "score", {"round": 1}
        self.table = type("T", (), {"id": table_id})()

    def url(self, route):
        return f"/t/key{self.table.id}/g/{route}"


def test_a_fragment_is_drawn_once_for_the_same_inputs_and_again_for_others(app):
    drawn = []

    def block(text):
        return lambda: drawn.append(text) or Markup(f"<p>{text}</p>")

    with app.test_request_context("/"):
        view = FakeView(slotted=True)
        first = fragments.fragment(view, "test-block", {"a": 1}, [2], caller=block("one"))
        again = fragments.fragment(view, "test-block", {"a": 1}, [2], caller=block("two"))
        other = fragments.fragment(view, "test-block", {"a": 1}, [3], caller=block("three"))
        elsewhere = fragments.fragment(
            FakeView(True, table_id=2), "test-block", {"a": 1}, [2], caller=block("four")
        )
    assert first == again == "<p>one</p>" and other == "<p>three</p>"
    assert elsewhere == "<p>four</p>"  # another table's block is its own
    assert drawn == ["one", "three", "four"]


def test_equal_inputs_are_the_same_fragment_whichever_objects_they_share(app):
    name = "".join(["A", "na"])  # a string made afresh, not the interned "Ana"
    one = {"name": name, "again": name, "cards": ["KH"]}
    other = {"name": "Ana", "again": "".join(["An", "a"]), "cards": ["KH"]}
    drawn = []
    with app.test_request_context("/"):
        for inputs in (one, other):
            fragments.fragment(
                FakeView(True, table_id=7), "test-shared", inputs, caller=lambda: drawn.append(1)
            )
    assert drawn == [1]


def test_outside_a_taps_answer_a_fragment_is_drawn_every_time(app):
    drawn = []
    with app.test_request_context("/"):
        for _ in range(2):
            fragments.fragment(
                FakeView(slotted=False), "test-page", 1, caller=lambda: drawn.append(1)
            )
    assert drawn == [1, 1]


def test_a_fragment_is_kept_per_language(app):
    with app.test_request_context("/?lang=pl"):
        pl = fragments.fragment(FakeView(True), "test-lang", 1, caller=lambda: Markup("pl"))
    with app.test_request_context("/?lang=en"):
        en = fragments.fragment(FakeView(True), "test-lang", 1, caller=lambda: Markup("en"))
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


def cowboy_tap(client, url, csrf, action, version, **args):
    response = client.post(
        f"{url}/cowboy/tap",
        data={
            "tap_id": f"f{next(tap_ids)}",
            "tap": json.dumps({"action": action, **args}),
            "v": str(version),
            "round": "1",
        },
        headers={**HX, "X-CSRFToken": csrf},
    )
    assert response.status_code == 200
    return response.get_data(as_text=True)


def versions(text):
    """The draft version of every button that carries one."""
    found = []
    for vals in re.findall(r"hx-vals='([^']*)'", text):
        fields = json.loads(html.unescape(vals))
        if "v" in fields:
            found.append(fields["v"])
    return found


def panel_version(text):
    return int(re.search(r'id="cowboy-panel"[^>]*data-version="(\d+)"', text, re.S).group(1))


def test_every_button_of_a_taps_answer_carries_the_version_it_shows(new_table, client):
    url, page = new_table("cowboy", ("Ana", "Bojan", "Ceca"))
    first = cowboy_tap(client, url, page.csrf, "hold", 0, seat=0, card="KH")
    # the other seats' pickers are the same after this tap: kept from the first answer
    second = cowboy_tap(client, url, page.csrf, "lay", panel_version(first), seat=2, card="10D")
    for text in (first, second):
        assert "version\\u0000" not in text and "\x00" not in text
        assert set(versions(text)) == {panel_version(text)}
    assert panel_version(second) == panel_version(first) + 1
    # and the table page draws the same buttons as the answer did
    shown = client.get(url).get_data(as_text=True)
    start = shown.index('id="cowboy-panel"')
    panel = shown[start : shown.index("</section>", start)]
    assert set(versions(panel)) == {panel_version(second)}


def test_a_kept_kvanta_seat_carries_the_version_of_each_answer(new_table, client, app):
    url, page = new_table("kvanta", ("Ana", "Bojan", "Ceca"))

    def tap(action, version, **args):
        response = client.post(
            f"{url}/kvanta/tap",
            data={
                "tap_id": f"k{next(tap_ids)}",
                "tap": json.dumps({"action": action, **args}),
                "v": str(version),
                "round": "1",
            },
            headers={**HX, "X-CSRFToken": page.csrf},
        )
        assert response.status_code == 200
        text = response.get_data(as_text=True)
        return text, int(re.search(r'id="kv-panel"[^>]*data-v="(\d+)"', text, re.S).group(1))

    text, version = tap("draw", 0, seat=0, card="2C")
    for seat, card in ((1, "9D"),):  # Ceca's part is drawn as before: kept
        text, version = tap("draw", version, seat=seat, card=card)
    assert "\x00" not in text and "version\\u0000" not in text
    assert set(versions(text)) == {version}
    ceca = text[text.index('data-editing="Ceca"') :]
    assert 'data-card="KS"' in ceca and set(versions(ceca)) == {version}


def test_a_picker_kept_between_answers_is_the_one_drawn_afresh():
    class Table:
        id, scorer_key, game = 1, "a-table-of-this-test", "cowboy"

    def picker(version, **kwargs):
        view = screens.View(
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
    assert fresh == kept and '"v": 4' in fresh
    assert later == str(fresh).replace('"v": 4', '"v": 5') and "K♥ — Bojan" in later
    assert "K♥ — Bojan" not in other and '"v": 5' in other


class Vals:
    """A View's tap fields, at a version or in its slot."""

    def __init__(self, version, round_number):
        self.version, self.round_number = version, round_number

    def vals(self):
        return {"v": self.version, "round": self.round_number}

    def tap_vals(self, action, **args):
        return {**self.vals(), "tap": json.dumps({"action": action, **args}, separators=(",", ":"))}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@given(
    version=st.integers(min_value=0) | st.just(fragments.VERSION_SLOT),
    round_number=st.none() | st.integers(min_value=1),
    action=st.text(min_size=1),
    args=st.dictionaries(st.text().filter(lambda k: k != "action"), json_values, max_size=4),
)
def test_a_taps_fields_are_written_as_htmlsafe_json_dumps_writes_them(
    version, round_number, action, args
):
    view = Vals(version, round_number)
    made = fragments.tap_vals_json(view, action, **args)
    assert made == htmlsafe_json_dumps(view.tap_vals(action, **args))
    assert "'" not in made and "<" not in made


def test_a_kvanta_die_and_keypad_are_what_their_macros_drew(app):
    from scorekeeper.web import kvanta_view

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
