"""The catalogues: every sentence of the source is in each of the five, translated,
not fuzzy, with the same placeholders, and not left in English (issue: languages).

A msgstr may equal its msgid only when there is nothing to translate (numbers,
placeholders, card codes, symbols) or the msgid is listed in the language's
``same.txt`` (proper names and game terms its players use as they are).
"""

from __future__ import annotations

import gettext
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
TRANSLATIONS = ROOT / "scorekeeper" / "translations"
LANGUAGES = ("sr_Latn", "sr_Cyrl", "pl", "lt", "sk")

PLACEHOLDER = re.compile(r"%\((\w+)\)[sdrif]|%%")
# what is the same in every language: placeholders, markup, card codes (KH, 10♥),
# decision ids (C-D4), then numbers and signs
SAME_EVERYWHERE = re.compile(
    r"%\(\w+\)[sdrif]|%%|\*\*|<[^>]+>|&\w+;|\b[CKVSPH]-D\d+\b|\b(?:10|[2-9AJQKT])[♠♥♦♣SHDC]?\b"
    r"|\bJK\b"
)
SIGNS = re.compile(r"[\d\W_]+")


def words_of(text: str) -> str:
    return SIGNS.sub("", SAME_EVERYWHERE.sub(" ", text)).strip()


def makefile_keywords() -> list[str]:
    (line,) = [x for x in (ROOT / "Makefile").read_text().splitlines() if x.startswith("KEYWORDS")]
    return shlex.split(line.split(":=", 1)[1])


@pytest.fixture(scope="module")
def source_msgids(tmp_path_factory) -> set[str]:
    pot = tmp_path_factory.mktemp("pot") / "messages.pot"
    subprocess.run(
        [str(Path(sys.executable).with_name("pybabel")), "-q", "extract", "-F", "babel.cfg"]
        + makefile_keywords()
        + ["--no-location", "-o", str(pot), "."],
        cwd=ROOT,
        check=True,
    )
    with pot.open("rb") as fp:
        return {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(fp) if m.id}


def catalogue(language: str):
    with (TRANSLATIONS / language / "LC_MESSAGES" / "messages.po").open("rb") as fp:
        return read_po(fp, locale=language)


def kept_same(language: str) -> set[str]:
    path = TRANSLATIONS / language / "same.txt"
    if not path.exists():
        return set()
    return {line for line in path.read_text().splitlines() if line and not line.startswith("#")}


def forms(message) -> list[str]:
    return list(message.string) if isinstance(message.string, tuple | list) else [message.string]


def ids(message) -> list[str]:
    return list(message.id) if isinstance(message.id, tuple | list) else [message.id]


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_sentence_of_the_source_is_in_the_catalogue(language, source_msgids):
    have = {ids(m)[0] for m in catalogue(language) if m.id}
    missing = sorted(source_msgids - have)
    assert not missing, f"{len(missing)} not in {language} (run `make messages`): {missing[:5]}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_sentence_of_the_catalogue_is_one_the_source_is_found_to_say(language, source_msgids):
    """`make messages` keeps a catalogue's entry only while the source's extraction finds
    its msgid: a sentence the app shows but the extraction misses (a ``_()`` inside an
    f-string's braces) would be dropped from every catalogue by the next update."""
    have = {ids(m)[0] for m in catalogue(language) if m.id}
    unseen = sorted(have - source_msgids)
    assert not unseen, f"{len(unseen)} not found in the source by `make messages`: {unseen[:5]}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_sentence_quotes_a_value_as_python_writes_it(language):
    """A ``%(x)r`` placeholder writes a value as Python's repr does, 'Ana' in ASCII
    apostrophes whatever the language; a sentence quotes ``“%(x)s”`` instead, each
    catalogue with its language's quotes, the value passed through ``messages.quotable``."""
    python_quoted = [
        text
        for m in catalogue(language)
        if m.id
        for text in ids(m) + forms(m)
        if re.search(r"%\(\w+\)r", text)
    ]
    assert python_quoted == []


# A word between ASCII apostrophes or double quotes ('card', "Guns"), not an apostrophe
# in a word (player's, players'); a tag's attributes and a request's JSON written out
# as an example (["Ola", "2C"]) are what is typed, so their quotes are JSON's and HTML's.
ASCII_QUOTED = re.compile(r"""(?<![\w'"])(['"])[^'"\s](?:[^'"]*?[^'"\s])?\1(?![\w'"])""")
TYPED = re.compile(r'<[^<>]*>|\[(?:"[^"\\]*"(?:, )?)+\]')


@pytest.mark.parametrize("text", ["Send either 'card' or 'hand'.", 'RULES §1 "Guns"', "'-'"])
def test_a_word_in_ascii_quotes_is_found(text):
    assert ASCII_QUOTED.search(TYPED.sub(" ", text))


@pytest.mark.parametrize(
    "text",
    [
        "the players' cards and the dealer's",
        'e.g. ["Ola", "2C"]',
        '<a href="%(url)s">“card”</a>',
        "„card“ or „card”",
    ],
)
def test_a_word_in_the_languages_quotes_or_typed_is_not(text):
    assert not ASCII_QUOTED.search(TYPED.sub(" ", text))


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_sentence_quotes_a_word_in_ascii_quotes(language):
    """A field name, a value a request takes or a fixed word ('card', 'joker', '-') is
    quoted as a value a player sent is: “card” in English, „card” in Polish, „card“ in
    Lithuanian, Slovak and Serbian; never in ASCII apostrophes, the same in every language."""
    ascii_quoted = [
        text
        for m in catalogue(language)
        if m.id
        for text in ids(m) + forms(m)
        if ASCII_QUOTED.search(TYPED.sub(" ", text))
    ]
    assert ascii_quoted == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_entry_is_translated_and_not_fuzzy(language):
    cat = catalogue(language)
    untranslated = [ids(m)[0] for m in cat if m.id and not all(forms(m))]
    fuzzy = [ids(m)[0] for m in cat if m.id and m.fuzzy]
    assert not untranslated, f"{len(untranslated)} untranslated: {untranslated[:5]}"
    assert not fuzzy, f"{len(fuzzy)} fuzzy: {fuzzy[:5]}"
    assert len(cat.plural_forms) and cat.num_plurals == 3


@pytest.mark.parametrize("language", LANGUAGES)
def test_placeholders_match_and_babel_finds_no_error(language):
    cat = catalogue(language)
    errors = [(m.id, [str(e) for e in errs]) for m, errs in cat.check() if errs]
    assert not errors, errors[:5]
    # as msgfmt's check, a form that answers more numbers than 1 (Lithuanian and
    # Serbian say 21 as they say 1) names the number, as the plural msgid does
    wrong = [
        (singular, text)
        for singular, english, text in answered(cat, shared_forms(cat))
        if text and set(PLACEHOLDER.findall(text)) != set(PLACEHOLDER.findall(english))
    ]
    assert not wrong, wrong[:5]


def answered(cat, shared: set[int] = frozenset()):
    """Each translated form with the English it answers, as Babel's check pairs them:
    the first form the singular msgid, the others (and ``shared`` forms) the plural.
    Yields (singular msgid, that English, the form)."""
    for m in cat:
        if not m.id:
            continue
        singular, plural = ids(m)[0], ids(m)[-1]
        for index, text in enumerate(forms(m)):
            yield singular, singular if index == 0 and index not in shared else plural, text


def shared_forms(cat) -> set[int]:
    """The plural forms of a catalogue's language that answer more than one number."""
    form_of = gettext.c2py(cat.plural_expr)
    numbers: dict[int, set[int]] = {}
    for n in range(1000):
        numbers.setdefault(form_of(n), set()).add(n)
    return {form for form, said in numbers.items() if len(said) > 1}


def test_a_plural_form_shared_by_1_and_21_must_name_the_number():
    """Lithuanian says 21 jokers with the form of 1 joker: that form cannot leave the
    number out, as the English singular does (msgfmt -c refuses it)."""
    assert 0 in shared_forms(catalogue("lt"))
    assert 0 not in shared_forms(catalogue("pl"))


@pytest.mark.parametrize("language", LANGUAGES)
def test_what_begins_with_a_capital_in_english_does_in_translation(language):
    """A label or sentence that begins with a capital begins with one in every language:
    the Szaman variants were offered as "Klasyczny" and "rosyjski" side by side."""
    lower = [
        (english, text)
        for _singular, english, text in answered(catalogue(language))
        if english[:1].isalpha() and english[:1].isupper() and text[:1].islower()
    ]
    assert not lower, lower[:5]


@pytest.mark.parametrize("language", LANGUAGES)
def test_nothing_is_left_in_english(language):
    cat = catalogue(language)
    same = kept_same(language)
    left = [
        m.id
        for m in cat
        if m.id
        and isinstance(m.id, str)
        and m.string == m.id
        and m.id not in same
        and words_of(m.id)
    ]
    assert not left, f"{len(left)} msgstr equal to the English msgid: {left[:8]}"
    unknown = same - {m.id for m in cat if m.id}
    assert not unknown, f"same.txt lists msgids the catalogue does not have: {sorted(unknown)}"


def test_the_cyrillic_catalogue_is_the_latin_one_transliterated():
    """``make cyrillic`` made it, and nobody edited one script and not the other."""
    from scorekeeper import cyrillic

    latin = {m.id if isinstance(m.id, str) else m.id[0]: m for m in catalogue("sr_Latn") if m.id}
    terms = cyrillic.FOREIGN
    differ = []
    for m in catalogue("sr_Cyrl"):
        if not m.id:
            continue
        source = latin.get(ids(m)[0])
        assert source is not None, ids(m)[0]
        english = " ".join(ids(m))
        wanted = [cyrillic.cyrillic(text, terms, english) for text in forms(source)]
        if forms(m) != wanted:
            differ.append(ids(m)[0])
    assert not differ, f"run `make cyrillic`: {len(differ)} differ, e.g. {differ[:3]}"


def test_cyrillic_keeps_what_is_not_serbian_text():
    from scorekeeper import cyrillic

    text = "%(name)s: **Marijaž** K♥ i 10♦, <b>džoker</b> (C-D4) &nbsp;Ljubljana"
    assert cyrillic.cyrillic(text) == (
        "%(name)s: **Маријаж** K♥ и 10♦, <b>џокер</b> (C-D4) &nbsp;Љубљана"
    )
    assert cyrillic.cyrillic("Hand ili Zilch", ("Hand", "Zilch")) == "Hand или Zilch"


def test_cyrillic_keeps_what_a_player_or_a_file_writes_latin():
    """Peg positions (T8, H1) and the export's dates are typed or read as they are:
    Cyrillic told a player to write Х1 or 0 Т8-Т15, which the board does not read."""
    from scorekeeper import cyrillic

    assert cyrillic.cyrillic("pokret se piše kao 0 7H: 0 T8-T15; kućna staza H1–H5") == (
        "покрет се пише као 0 7H: 0 T8-T15; кућна стаза H1–H5"
    )
    assert cyrillic.cyrillic("u obliku (2026-12-01T20:15:00.000+00:00).") == (
        "у облику (2026-12-01T20:15:00.000+00:00)."
    )


@pytest.mark.parametrize(
    ("latin", "cyrillic_text"),
    [
        (  # Pegs' house rules: нине=форwард was no value a table takes
            "Po kućnom pravilu nine=forward devetka se ne deli (P-D3).",
            "По кућном правилу nine=forward деветка се не дели (P-D3).",
        ),
        (
            "Po kućnom pravilu team_pegs=own pomeraš samo svoje klinove (P-D2).",
            "По кућном правилу team_pegs=own помераш само своје клинове (P-D2).",
        ),
        ("uz pravilo tally=letters i x=1", "уз правило tally=letters и x=1"),
    ],
)
def test_cyrillic_keeps_a_setting_and_its_value_as_they_are_typed(latin, cyrillic_text):
    """A setting with its value (nine=forward) is written as a player types it and as
    the API takes it, the same in every language: transliterated, the Cyrillic
    catalogue named a house rule no table has."""
    from scorekeeper import cyrillic

    assert cyrillic.cyrillic(latin) == cyrillic_text


def test_the_cyrillic_catalogue_names_pegs_house_rules_in_latin_letters():
    settings = [
        text
        for m in catalogue("sr_Cyrl")
        if m.id and "house rule" in ids(m)[0]
        for text in forms(m)
        if "=" in text
    ]
    assert len(settings) == 4
    for text in settings:
        assert re.search(r"\b(?:nine|team_pegs)=(?:forward|split_back|own|own_first)\b", text)


def test_cyrillic_keeps_the_rules_document_by_its_name():
    from scorekeeper import cyrillic

    assert cyrillic.cyrillic("RULES §2: 6.") == "RULES §2: 6."


def test_cyrillic_writes_a_patterns_word_between_angle_brackets_in_cyrillic():
    """T<rupa> is how a peg position is written (T, then the hole): its word is Serbian
    text, not a tag, so a Cyrillic reader reads T<рупа>; a tag stays as it is."""
    from scorekeeper import cyrillic

    assert cyrillic.cyrillic("napiši T<rupa> ili H1 do H5") == "напиши T<рупа> или H1 до H5"
    assert cyrillic.cyrillic('<span class="x">rupa</span><br/>') == (
        '<span class="x">рупа</span><br/>'
    )


def test_cyrillic_keeps_a_word_the_english_quotes_as_it_is_written():
    """A field name or a value a request takes, quoted in the English msgid (“card”)
    and in the translation („card“), is typed as it is, like a request's JSON written
    out; a word the translation alone quotes (a button's label) is Serbian text."""
    from scorekeeper import cyrillic

    english = "Send either “card” or “hand”."
    assert cyrillic.cyrillic("Pošalji ili „card“ ili „hand“.", (), english) == (
        "Пошаљи или „card“ или „hand“."
    )
    assert cyrillic.cyrillic("Dodirni „Kraj deljenja“.", (), "Tap “End of deal”.") == (
        "Додирни „Крај дељења“."
    )
    assert cyrillic.cyrillic('npr. ["Ola", "2C"]') == 'нпр. ["Ola", "2C"]'


@pytest.mark.parametrize(
    ("english", "latin", "cyrillic_text"),
    [
        (  # Kvanta's prize: its variables, in the formula and in the words around it
            "⌈(vmax − v) / 2⌉; 2 if v is the highest, ties too",
            "⌈(vmax − v) / 2⌉; 2 ako je v najviša, i pri nerešenom",
            "⌈(vmax − v) / 2⌉; 2 ако је v највиша, и при нерешеном",
        ),
        (
            "v: the value of the winner's five; vmax: the best value among the hands shown.",
            "v: vrednost dobitnikovih pet karata; vmax: najveća vrednost među pokazanim rukama.",
            "v: вредност добитникових пет карата; vmax: највећа вредност међу показаним рукама.",
        ),
        (
            "%(rank)s: v = %(value)s (%(winner)s), vmax = %(vmax)s; (vmax − v) / %(divisor)s",
            "%(rank)s: v = %(value)s (%(winner)s), vmax = %(vmax)s; (vmax − v) / %(divisor)s",
            "%(rank)s: v = %(value)s (%(winner)s), vmax = %(vmax)s; (vmax − v) / %(divisor)s",
        ),
        (  # Vežimas: T and N stand for trumps, both Latin (N was Н beside a Latin T)
            "Top card is an **N**: any **T**; a higher **N** will not do.",
            "Gornja je **N**: bilo koja **T**; viša **N** ne važi.",
            "Горња је **N**: било која **T**; виша **N** не важи.",
        ),
        (  # the suits' letters a request is written in
            "the suit must be S, H, D or C",
            "boja mora biti S, H, D ili C",
            "боја мора бити S, H, D или C",
        ),
        (  # Serbian's one-letter words are words, whatever the English has
            "A suit is named only when a joker leads, but %(lead)s leads.",
            "Boja se imenuje samo kad otvara džoker, a otvara %(lead)s.",
            "Боја се именује само кад отвара џокер, а отвара %(lead)s.",
        ),
    ],
)
def test_cyrillic_keeps_the_letters_a_formula_or_a_rule_stands_for_latin(
    english, latin, cyrillic_text
):
    """A letter the English msgid has on its own too (v, vmax, N, S) stands for a
    number or a card, the same in every language: the Cyrillic formula read
    ⌈(вмаx − в) / 2⌉, half transliterated, matching no other language's."""
    from scorekeeper import cyrillic

    assert cyrillic.cyrillic(latin, cyrillic.FOREIGN, english) == cyrillic_text


def test_the_cyrillic_prize_formulas_are_the_other_languages():
    """Every Kvanta prize line and rule text with v and vmax keeps them in Cyrillic."""
    with_variables = [m for m in catalogue("sr_Cyrl") if m.id and "vmax" in ids(m)[0]]
    assert len(with_variables) >= 5
    for m in with_variables:
        for text in forms(m):
            assert "vmax" in text and not re.search(r"(?<!\w)(?:в|вмаx|вмакс)(?!\w)", text), text
