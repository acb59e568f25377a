"""Two phones at one table tap at random through a game's screen (seeded). A phone keeps
the parts of its page a tap's answer does not send, and app.js patches the rest in; so
after every answer the tapping phone must show what a fresh load of the page shows,
and the other phone must come to show it by its poll: the same buttons, with the same
taps, enabled, pressed and labelled alike, and the same standings."""

from __future__ import annotations

import json
import random

import pytest

from .conftest import phone_context, start_table

NAMES = {
    "cowboy": ["Ana", "Bojan", "Ceca", "Dule"],
    "kvanta": ["Ana", "Bojan", "Ceca"],
    "vezimas": ["Ana", "Bojan", "Ceca", "Dule"],
    "szaman": ["Ana", "Bojan", "Ceca"],
    "pegs": ["Ana", "Bojan", "Ceca", "Dule"],
}
STEPS = 24
SEEDS = {"cowboy": 7, "kvanta": 3, "vezimas": 5, "szaman": 2, "pegs": 4}

# What a phone shows of the table, as sorted lines: each button that posts (where, its
# tap, its card, its label, disabled, pressed), the game panel's words (what a refusal
# said aside: a fresh page was refused nothing) and each player's total. A button that
# posts nothing (a tab, a fold) is this phone's own view, not the table's state.
SHOWN = r"""() => {
  const norm = s => (s || '').replace(/\s+/g, ' ').trim();
  const lines = [];
  for (const el of document.querySelectorAll('#board button')) {
    if (el.closest('#history')) continue;  // its rows say "2 min ago"
    const form = el.type === 'submit' ? el.closest('form') : null;
    const post = el.getAttribute('hx-post')
      || (form && (form.getAttribute('hx-post') || form.getAttribute('action'))) || '';
    if (!post) continue;
    let vals = el.getAttribute('hx-vals') || '';
    try { const v = JSON.parse(vals); delete v.submission_id; vals = JSON.stringify(v); } catch (e) {}
    lines.push([post, vals, el.getAttribute('data-card') || '',
                norm(el.getAttribute('aria-label') || el.textContent),
                el.disabled ? 'disabled' : '', el.getAttribute('aria-pressed') || ''].join(' | '));
  }
  const panel = document.querySelector('#board [data-deal-version]');
  if (panel) {
    const words = panel.cloneNode(true);
    words.querySelectorAll('button, [role=alert], [role=status], .field-error, [aria-live], '
      + 'script, template, input, select, textarea').forEach(e => e.remove());
    lines.push('panel ' + norm(words.textContent));
  }
  for (const el of document.querySelectorAll('#standings .points'))
    lines.push('total ' + el.getAttribute('data-player') + ' ' + norm(el.textContent));
  return lines.sort();
}"""

SETTLED = (
    "() => !document.querySelector('.htmx-request, .htmx-added, .htmx-settling, .htmx-swapping')"
)

# The buttons a player could tap now: shown, enabled, posting or choosing what this
# phone shows (whose cards, which part), and not one that ends the game or renames a
# player (a walk through the game's own screen).
TAPPABLE = r"""() => {
  const out = [];
  document.querySelectorAll('#board button').forEach((el, index) => {
    if (el.disabled || !el.checkVisibility({visibilityProperty: true})) return;
    const form = el.type === 'submit' ? el.closest('form') : null;
    const post = el.getAttribute('hx-post')
      || (form && (form.getAttribute('hx-post') || form.getAttribute('action'))) || '';
    if (!post && !el.hasAttribute('data-view-set')) return;  // a view choice is tapped too
    if (/rename|end_game|end-game|\/end$|add_round/.test(post)) return;
    out.push([index, post, norm(el.textContent), el.hasAttribute('data-confirm')]);
  });
  function norm(s) { return (s || '').replace(/\s+/g, ' ').trim().slice(0, 40); }
  return out;
}"""


def shown(page) -> list[str]:
    page.wait_for_function(SETTLED)
    return page.evaluate(SHOWN)


def fresh_load(browser, url: str) -> list[str]:
    """What a phone opening the table now shows."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(url)
        page.wait_for_load_state("load")
        return shown(page)
    finally:
        context.close()


def differences(got: list[str], wanted: list[str]) -> str:
    return json.dumps(
        {
            "shown, not on a fresh page": [x for x in got if x not in wanted][:10],
            "on a fresh page, not shown": [x for x in wanted if x not in got][:10],
        },
        ensure_ascii=False,
        indent=1,
    )


@pytest.mark.parametrize("game", list(NAMES))
def test_after_every_answer_both_phones_show_what_a_fresh_page_shows(
    browser, page, live_server, game
):
    rng = random.Random(f"{game}-{SEEDS[game]}")
    url = start_table(page, live_server, game, NAMES[game])
    other = phone_context(browser).new_page()
    other.goto(url)
    other.wait_for_load_state("load")
    phones = {"A": page, "B": other}
    walked: list[str] = []
    for step in range(STEPS):
        label = rng.choice("AAB")
        phone = phones[label]
        phone.wait_for_function(SETTLED)
        choices = phone.evaluate(TAPPABLE)
        assert choices, f"{game}: nothing to tap on phone {label}\n" + "\n".join(walked)
        index, post, text, asks_twice = rng.choice(choices)
        walked.append(f"{step} {label}: {text!r} → {post}")
        button = phone.locator("#board button").nth(index)
        if not post:  # this phone's own view: nothing is sent
            button.tap()
            continue
        with phone.expect_response(lambda r: r.request.method == "POST"):
            button.tap()
            if asks_twice:  # "tap again to …": the first tap sends nothing
                button.tap()
        if phone.url.split("?")[0] != url:  # a form that opened another page
            phone.goto(url)
        wanted = fresh_load(browser, url)
        got = shown(phone)
        assert got == wanted, (
            f"{game}, phone {label} after its own answer:\n"
            + differences(got, wanted)
            + "\n"
            + "\n".join(walked)
        )
        # the other phone: its poll brings the table as it now is
        waiting = phones["B" if label == "A" else "A"]
        try:
            waiting.wait_for_function(
                f"(wanted) => ({SETTLED})() && JSON.stringify(({SHOWN})()) === JSON.stringify(wanted)",
                arg=wanted,
                timeout=15_000,
            )
        except Exception:
            pytest.fail(
                f"{game}: the other phone never showed the table as it is:\n"
                + differences(shown(waiting), wanted)
                + "\n"
                + "\n".join(walked)
            )
