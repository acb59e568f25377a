"""Text shown to players names cards by symbol (9♥, K♣), never by the code the
engines' JSON uses (9H, KC): referee verdicts, refusals and warnings in every game."""

from __future__ import annotations

import html
import json
import re

from scorekeeper.web import screens


def test_symbols_turns_every_card_code_of_a_sentence_into_its_symbol():
    assert screens.symbols("turned 9H, so KC goes to the attacker") == (
        "turned 9♥, so K♣ goes to the attacker"
    )
    assert screens.symbols("10D and AS.") == "10♦ and A♠."
    # words, numbers and names that only look like codes stay as written
    assert screens.symbols("HAS 10 points; ADS, 2-3S, RJ") == "HAS 10 points; ADS, 2-3S, RJ"
    assert screens.symbols(None) == ""


def test_a_refusal_names_its_card_by_symbol():
    assert screens.Refusal("2C is already in this deal.").message == "2♣ is already in this deal."


def panel_text(response) -> str:
    return html.unescape(response.get_data(as_text=True))


def test_the_kvanta_dealer_verdict_names_the_card_by_symbol(client, new_table):
    """The first-dealer draw's verdict ("… the lowest card still standing, 3♦")."""
    url, page = new_table("kvanta", ("Ana", "Bojan", "Ceca"))
    headers = {"HX-Request": "true", "X-CSRFToken": page.csrf}
    for seat, code in enumerate(("5C", "7H", "3D")):
        version = re.search(
            r'id="kv-panel"[^>]*data-deal-version="(\d+)"', client.get(url).text, re.S
        )
        tap = {"action": "draw", "seat": seat, "card": code}
        answer = client.post(
            f"{url}/kvanta/tap",
            data={"tap": json.dumps(tap), "tap_id": f"d{seat}", "v": version.group(1), "round": 1},
            headers=headers,
        )
        assert answer.status_code == 200
    text = panel_text(answer)
    assert 'title="Ceca">Ceca</span> deals.' in text
    assert "lowest card still standing, 3♦" in text
    assert not re.search(r"\b3D\b", re.sub(r"<[^>]*>|data-[\w-]+=\"[^\"]*\"", "", text))


def test_a_szaman_refusal_names_the_card_by_symbol(client, new_table):
    """A card tapped that is already in the deal: the refusal says 2♣, not 2C."""
    import json

    url, page = new_table("szaman", ("Ola", "Piotr", "Zosia"))
    headers = {"HX-Request": "true", "X-CSRFToken": page.csrf}
    version = 0

    def tap(n: int, **tap):
        nonlocal version
        found = client.get(url).get_data(as_text=True)
        version = int(
            re.search(r'id="szaman-panel"[^>]*data-deal-version="(\d+)"', found, re.S).group(1)
        )
        data = {"tap_id": f"s{n}", "tap": json.dumps(tap), "v": str(version), "round": "1"}
        return client.post(f"{url}/szaman/tap", data=data, headers=headers)

    assert tap(1, action="lead", seat=0).status_code == 200
    assert tap(2, action="card", seat=0, card="2C").status_code == 200
    refused = tap(3, action="card", seat=1, card="2C")
    assert refused.status_code == 422
    text = panel_text(refused)
    assert "2♣ is already in this deal" in text and "2C is already" not in text
