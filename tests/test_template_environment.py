"""The app's Jinja environment reads a plain dict's ``d.name`` as Jinja's own does."""

from __future__ import annotations

import jinja2
from hypothesis import given
from hypothesis import strategies as st

from scorekeeper.app import TemplateEnvironment

names = st.one_of(st.sampled_from(["items", "get", "keys", "name", "seat", "__class__"]), st.text())
values = st.one_of(st.none(), st.integers(), st.text(max_size=5))
ours_env = TemplateEnvironment.__new__(TemplateEnvironment)
jinja2.Environment.__init__(ours_env)  # Jinja's own settings (Flask's adds its app)


@given(st.dictionaries(names, values, max_size=6), names)
def test_a_dicts_attribute_is_what_jinja_reads(made, attribute):
    ours = ours_env.getattr(made, attribute)
    theirs = jinja2.Environment().getattr(made, attribute)
    if isinstance(theirs, jinja2.Undefined):
        assert isinstance(ours, jinja2.Undefined) and ours._undefined_name == attribute
    else:
        assert ours == theirs  # the dict's item, or its method (d.items)


def test_a_template_reads_items_methods_and_objects_as_before(app):
    made = app.jinja_env.from_string("{{ d.name }} {{ d.items()|list|length }} [{{ d.none }}]")
    assert made.render(d={"name": "Ana", "items": 3}) == "Ana 2 []"
