"""The rule cards: one card per game, as structured content.

One source for both the printed A6 card (``printing``) and the in-app Rules page
(``web.prints``); the Jinja partial ``templates/prints/_rulecard.html`` renders it
for both. The text is the project's own short paraphrase of RULES.md and cites its
decision ids (C-D1 …); it never quotes the source texts in ``seeds/``.

Text fields use a tiny markup that :func:`markup` turns into HTML: ``**bold**``,
card suits (red ones get ``class="red"``) and decision ids (``C-D4``).

Every word a player reads is an English msgid marked with ``N_`` (markup, suits and
decision ids inside it), translated where the card is shown (``markup`` with the
page's or the print's catalogue); numbers and card ranks in grids are not words
and stay as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markupsafe import Markup, escape

from .games import catalog, cowboy
from .messages import MINUS, N_

# ---------------------------------------------------------------- the content model


@dataclass(frozen=True)
class Grid:
    """A small table: a header row and body rows of short cells."""

    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    note: str = ""
    numeric_last: bool = True  # the last column holds points: right-aligned


@dataclass(frozen=True)
class Section:
    title: str
    text: tuple[str, ...] = ()  # paragraphs
    steps: tuple[str, ...] = ()  # numbered, in order
    bullets: tuple[str, ...] = ()
    grid: Grid | None = None
    after: tuple[str, ...] = ()  # paragraphs after the list or grid
    back: bool = False  # the first back-side section starts the card's second page


@dataclass(frozen=True)
class Decision:
    id: str  # RULES.md decision id, e.g. "C-D4"
    text: str


@dataclass(frozen=True)
class RuleCard:
    slug: str
    facts: tuple[str, ...]  # players, cards, goal: the line under the title
    sections: tuple[Section, ...]
    decisions: tuple[Decision, ...] = field(default_factory=tuple)

    @property
    def game(self) -> catalog.Game:
        return catalog.GAMES[self.slug]

    @property
    def house_rule_ids(self) -> frozenset[str]:
        """Decisions a table may change: the catalog's house-rule settings."""
        return frozenset(s.decision for s in self.game.settings if s.house_rule)

    @property
    def _turn(self) -> int:
        """Index of the first back-side section (all front when none is marked)."""
        return next((i for i, s in enumerate(self.sections) if s.back), len(self.sections))

    @property
    def front(self) -> tuple[Section, ...]:
        return self.sections[: self._turn]

    @property
    def back(self) -> tuple[Section, ...]:
        return self.sections[self._turn :]


@dataclass(frozen=True)
class HouseRule:
    """One of a table's settings as the card lists it."""

    label: str
    value: str
    decision: str
    help: str
    is_default: bool
    choices: tuple[str, ...] = ()  # every value it can take, for a sheet's tick boxes
    default: str = ""


# ---------------------------------------------------------------- markup

_BOLD = re.compile(r"\*\*(.+?)\*\*")
# a card with a red suit (J♥, 10♦) or a lone red suit symbol
_RED = re.compile(r"(?:10|[2-9AKQJ])?[♥♦]")
_DECISION = re.compile(r"\b([CSKVP]-D\d+)\b")
# a word spelled out letter by letter (V-E-Ž-I-M-A-S): never broken at its hyphens
_SPELLED = re.compile(r"(?<![\w-])(?:\w-){3,}\w(?![\w-])")


def markup(text: str) -> Markup:
    """Card text → safe HTML: escape first, then add the few tags we allow."""
    html = str(escape(text))
    html = _BOLD.sub(r"<strong>\1</strong>", html)
    html = _RED.sub(lambda m: f'<span class="red">{m.group(0)}</span>', html)
    html = _DECISION.sub(r'<span class="did">\1</span>', html)
    html = _SPELLED.sub(r'<span class="spelled">\g<0></span>', html)
    return Markup(html)


def points(value: int) -> str:
    """+25 / −30 with a true minus sign."""
    return f"+{value}" if value > 0 else f"{MINUS}{-value}" if value < 0 else "0"


# ---------------------------------------------------------------- Wyoming Cowboy


@dataclass(frozen=True)
class ScoringItem:
    code: str  # cowboy.ITEM_CODES
    label: str  # the card's wording
    short: str  # the score sheet's column head
    unit: str = ""  # "each" when it can count more than once

    @property
    def points(self) -> int:
        return cowboy.ITEM_POINTS[self.code]  # the engine's value: card and score agree


COWBOY_ITEMS: tuple[ScoringItem, ...] = (
    # Translators: the left column of the Cowboy card's scoring grid ("Held at the end
    # of the deal"); the second text is the score sheet's narrow column head.
    ScoringItem("marriage_shown", N_("Marriage shown in the deal"), N_("Marriage"), "each"),
    ScoringItem("ended", N_("Ending the deal"), N_("Ended")),
    ScoringItem("tens_laid", N_("Each 10 laid out"), N_("10s out"), "each"),
    # Translators: "Orphan\u00adage" is the score sheet's narrow column head: keep it
    # short; its soft hyphen (U+00AD) marks where the word may break.
    ScoringItem("orphanage", N_("Orphanage: the four jacks"), N_("Orphan\u00adage")),
    ScoringItem("harem", N_("Harem: the four queens"), N_("Harem")),
    ScoringItem("family", N_("Family: A K Q J of a suit"), N_("Family"), "each"),
    ScoringItem("gang", N_("Gang: the four kings"), N_("Gang")),
    ScoringItem("posse", N_("Posse: four kings + four aces"), N_("Posse")),
    ScoringItem("stalling_ten", N_("Stalling: each 10 still in hand"), N_("10s held"), "each"),
    ScoringItem("stalling_22", N_("Stalling: each 22 in hand (C-D6)"), N_("22 held"), "each"),
    ScoringItem("six", N_("Each six held"), N_("Sixes"), "each"),
    ScoringItem("harlot", N_("Harlot: each queen held"), N_("Harlots"), "each"),
    ScoringItem(
        "illegal_marriage", N_("Illegal marriage: K+Q of a suit held"), N_("Illegal marr."), "each"
    ),
    ScoringItem("curse", N_("Curse: three sixes (C-D8)"), N_("Curse")),
)


def _cowboy_scoring_grid() -> Grid:
    rows = tuple((item.label, points(item.points)) for item in COWBOY_ITEMS)
    return Grid(
        (N_("Held at the end of the deal"), N_("Points")),
        rows,
        note=N_(
            "Held means your hand, your drawn guns and the kings (or K+A pairs) you "
            "captured. Tens on the table score separately."
        ),
    )


COWBOY = RuleCard(
    "cowboy",
    (N_("3–4 players"), N_("52 cards, no jokers"), N_("first to 500 points")),
    (
        Section(
            N_("Setup"),
            text=(
                # Translators: card texts keep their markup as it is: **bold**, the suits
                # ♠♥♦♣ (red ones print red), card ranks (A K Q J 10 … 2) and decision
                # ids such as C-D1 (they point to the Decisions on the back).
                N_(
                    "Lay the four aces face up in the middle: the sheriff's badges. "
                    "Shuffle the other 48 and deal 7 each. The deal moves right; the "
                    "dealer's left-hand player begins and play goes left."
                ),
                N_(
                    "Before play starts each player passes 3 cards to a single opponent — "
                    "left, right or across, as the dealer calls it."
                ),
            ),
        ),
        Section(
            N_("Your turn"),
            text=(
                N_(
                    "Take **one action**, then throw one card away and take one: off the "
                    "stock, or the discard pile's top card (take that before you throw). "
                    "Actions:"
                ),
            ),
            bullets=(
                N_(
                    "**Marriage**: lay down K+Q of one suit, **+25** right away; nothing "
                    "else scores during play (C-D1)."
                ),
                N_("**9**: discard it; everyone passes 2 cards the way you choose."),
                N_("**Draw a gun** (lay the set face up), or **shoot**: one shot per drawn gun."),
                N_("**10**: lay it face up, draw a replacement; your turn ends."),
                N_("**5**: throw it away and take two cards. Or give up a drawn gun and refill."),
                N_("A **six** may be thrown away only when all your other cards already score."),
            ),
        ),
        Section(
            N_("Guns and cowboys"),
            grid=Grid(
                (N_("Gun"), N_("Cards"), N_("Can hit")),
                (
                    ("22", "2 + 2", N_("open kings")),
                    ("38", "3 + 8", N_("open kings")),
                    ("357", "3 + 5 + 7", N_("open kings")),
                    # Translators: "Quick Draw" is the name of a gun (and of the rule that
                    # lets the victim take it); 3-5-7 are card ranks.
                    (N_("357 Quick Draw"), N_("3-5-7 of one suit"), N_("open kings")),
                    ("45", N_("4 + 5 of one suit"), N_("open and protected")),
                ),
                numeric_last=False,
            ),
            after=(
                N_(
                    "A king is a **cowboy**; with the ace of its suit it is **protected** "
                    "and the pair never splits. Guns still count as held cards."
                ),
            ),
        ),
        Section(
            N_("A shot"),
            text=(N_("Only at a player with a gun drawn. Name your gun, then check in order:"),),
            steps=(
                N_(
                    "**Backfire**: a 22 at a victim holding a six — he gives you a six, "
                    "the shot fails."
                ),
                N_(
                    "**Quick Draw**: the victim lays a one-suit 3-5-7 from hand and takes "
                    "your gun (C-D2)."
                ),
                N_("**Miss**: no king your gun can reach — he says no."),
                N_(
                    "Turn the top stock card (never an ace, C-D10). An open king of "
                    "**another** suit is **hit**: you take it, he draws one (C-D3). His only "
                    "open king has that suit: **dodge** — he takes that ace from the middle "
                    "and is protected, or leaves it lying there (C-D11)."
                ),
                N_(
                    "**45**: first a protected king of the **same** suit is hit (you take "
                    "K+A, he draws two); none matches → the open kings, judged as above "
                    "(ricochet, C-D12)."
                ),
            ),
            after=(N_("A dodge that takes the last ace ends the deal; the shooter ended it."),),
        ),
        Section(
            N_("End of a deal"),
            text=(
                N_(
                    "Either every 10 lies on the table while a player has a 22 drawn — "
                    "whoever completed that is the ender — or the fourth ace is taken "
                    "from the middle."
                ),
            ),
            back=True,
        ),
        Section(N_("Scoring"), grid=_cowboy_scoring_grid()),
    ),
    (
        Decision("C-D1", N_("Each suit's marriage can be shown once per deal, by anyone.")),
        Decision("C-D2", N_("Backfire and Quick Draw both possible: the victim picks.")),
        Decision("C-D3", N_("Several kings can be hit: the victim picks which.")),
        Decision(
            "C-D4",
            N_(
                "All kings and aces score Posse instead of Gang, not both. A card may "
                "serve several other combinations."
            ),
        ),
        Decision(
            "C-D5",
            N_(
                "A queen counted in a Harem or a Family is not a harlot, and a Family's "
                "own K+Q does not count as an illegal marriage."
            ),
        ),
        Decision(
            "C-D6",
            N_("Two 2s held cost −30 only when all tens were laid and the 4th ace ended it."),
        ),
        Decision(
            "C-D7",
            N_(
                "An illegal marriage's queen also pays as a harlot: −75 for the pair "
                "(unless C-D5 spares her), shown or not."
            ),
        ),
        Decision("C-D8", N_("Curse instead of −20 a six: 3 sixes −100, 4 −120; off: −160, −180.")),
        Decision(
            "C-D9", N_("At 500 or more after a deal the top score wins; a tie there plays on.")
        ),
        Decision("C-D10", N_("The aces lie in the middle, so the turned card is never an ace.")),
        Decision(
            "C-D11", N_("A dodger may leave the ace lying; a last ace left there ends nothing.")
        ),
        Decision("C-D12", N_("A 45's ricochet judges the open kings like any other shot.")),
    ),
)

# ---------------------------------------------------------------- Szaman

SZAMAN_TRICK_POINTS: tuple[tuple[str, int], ...] = (
    (N_("Every card followed suit"), 5),
    (N_("Some card was off-suit"), 1),
    (N_("8♥ in the trick"), 8),
    (N_("J♥ in the trick"), 11),
    (N_("Trick won by a joker"), 6),
    (N_("Q♠ in the trick (Russian only)"), 13),
    (N_("Each player who went off-suit"), -2),
)

SZAMAN_PENALTY_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("16", f"{MINUS}2"),
    ("20", f"{MINUS}2"),
    ("21", f"{MINUS}3"),
    (N_("one joker"), f"{MINUS}20"),
    (N_("joker + 5"), f"{MINUS}21"),
)

SZAMAN = RuleCard(
    "szaman",
    (N_("2–6 players"), N_("52 cards + red and black joker"), N_("6 deals, nearest to 66 wins")),
    (
        Section(
            N_("Setup"),
            text=(
                N_(
                    "Cards rank 2 (low) up to A. Everyone gets 8 cards; the remainder forms "
                    "the stock. The holder of 2♣ leads first; without it 2♦, 2♥, 2♠, then "
                    "3♣ and so on up (suits checked ♣, ♦, ♥, ♠)."
                ),
            ),
        ),
        Section(
            N_("Tricks"),
            text=(
                N_(
                    "You must follow suit when able. The top card of the suit led takes "
                    "the trick; nothing else can. Its taker draws a stock card (while any "
                    "remain) and leads next."
                ),
                N_(
                    "Jokers: the **red** one beats everything in a ♥ or ♦ trick, the "
                    "**black** one in a ♠ or ♣ trick (S-D1, S-D2)."
                ),
            ),
        ),
        Section(
            N_("End of a deal"),
            text=(N_("As soon as a trick is complete and someone has no cards left (S-D3)."),),
        ),
        Section(
            N_("Trick points"),
            grid=Grid(
                (N_("In the trick"), N_("Points")),
                tuple((label, points(value)) for label, value in SZAMAN_TRICK_POINTS),
                note=N_(
                    "The winner scores it. 8♥, J♥, joker and Q♠ replace the 5 or 1 and add "
                    "up (J♥ + 8♥ won by the red joker = 25), even played off-suit (S-D4). "
                    "The −2 goes to each off-suit player."
                ),
            ),
        ),
        Section(
            N_("Penalty at the end of a deal"),
            back=True,
            text=(
                N_(
                    "Add up the cards left in your hand (2–10 face value, J 11, Q 12, "
                    "K 13, A 14), divide by 10 and **round up**: subtract that. A joker "
                    "left in hand costs **−20** by itself, outside the sum."
                ),
            ),
            grid=Grid((N_("Left in hand"), N_("Penalty")), SZAMAN_PENALTY_EXAMPLES),
        ),
        Section(
            N_("The game"),
            text=(
                N_("Play **6 deals**. The total **closest to 66** wins, above or below (S-D5)."),
            ),
        ),
        Section(
            N_("Russian variant"),
            text=(
                N_(
                    "All players draw after each trick (S-D6); a deal lasts until every "
                    "hand is empty; no end penalty; Q♠ becomes a special worth **13**."
                ),
            ),
        ),
    ),
    (
        Decision(
            "S-D1",
            N_(
                "A joker on a trick of its colour follows suit — even if you hold the led "
                "suit — and wins. On the other colour it is off-suit (only when void) and "
                "wins nothing."
            ),
        ),
        Decision("S-D2", N_("Leading a joker: name a suit of its colour; the joker wins.")),
        Decision("S-D3", N_("The deal ends before the trick's winner draws.")),
        Decision("S-D4", N_("An off-suit joker won nothing, so it scores no 6.")),
        Decision("S-D5", N_("Equally close to 66: the win is shared.")),
        Decision(
            "S-D6",
            N_("Russian: if the stock cannot give everyone a card, nobody draws."),
        ),
    ),
)

# ---------------------------------------------------------------- Kvanta

KVANTA_PRIZES: tuple[tuple[str, str], ...] = (
    ("2–10", N_("its face value")),
    ("A", "1 (K-D5)"),
    # Translators: v and vmax are names defined on the card ("v: the value of the
    # winner's five"); ⌈…⌉ means rounded up. Keep the formula as it is.
    ("J", N_("⌈(vmax − v) / 4⌉; 5 if v is the highest, ties too")),
    ("Q", N_("⌈(vmax − v) / 2⌉; 2 if v is the highest, ties too")),
    ("K", N_("what the winner needs to tie the leader; 0 if he leads or shares the lead")),
)

KVANTA = RuleCard(
    "kvanta",
    (N_("2–6 players, each alone"), N_("3 decks, no jokers"), N_("4 dice, one marked")),
    (
        Section(
            N_("Values"),
            text=(
                N_(
                    "Aces count 1, 2–10 their number, faces 0; red cards are plus, black "
                    "minus. A hand's **sum** is taken without its sign (−15 equals 15). "
                    "Rank order for tricks, poker and the dealer draw, high to low: "
                    "A K Q J 10 9 … 2."
                ),
                N_(
                    "**Dealer**: each player draws one card and the lowest deals; on equal "
                    "ranks the weaker suit (strongest first: ♠ ♥ ♦ ♣). Identical cards "
                    "cancel each other; if all cancel, draw again."
                ),
            ),
        ),
        Section(
            N_("A round"),
            steps=(
                N_(
                    "Game start only: shuffle once; the first dealer puts up to 10 cards "
                    "(or none) face up beneath the pack: reaching them ends the game (K-D9)."
                ),
                N_(
                    "Everyone gets 7 from what is left; the next card is turned: **trump** "
                    "is its suit, the **poker prize** comes from its rank. It is one of the "
                    "three copies of its card. The deal moves left each round (K-D10)."
                ),
                N_(
                    "The player after the dealer throws three dice: the sum they show "
                    "(3–18) is the **target**."
                ),
                N_(
                    "**Hand**: your sum equals the target right after the roll — say so: "
                    "**+15**, straight to poker. Several: fewer black cards, then fewer "
                    "J/Q/K, then a draw-off."
                ),
                N_(
                    "**Tricks**: play any card, draw one back. Highest trump wins; no "
                    "trump — highest rank (K-D1)."
                ),
                N_(
                    "The winner rolls the marked die. **6 = Flux**: +5, swap all 7 for "
                    "new cards; if they hit the target it is a Flux call (K-D2). "
                    "**1–5**: exchange that many (everyone else too) and lead, or **call**."
                ),
            ),
        ),
        Section(
            N_("A call"),
            text=(N_("All show 7 cards; **distance** = |sum − target|."),),
            bullets=(
                N_("**Bull's Eyes**: caller at 0 → **+10** (Flux call **+20**); no undercut."),
                N_(
                    "**Undercut**: a player strictly closer than the caller takes the "
                    "round, **+5** (K-D3)."
                ),
                N_(
                    "Every winner is paid by each other player the gap in distance; "
                    "winners don't pay each other."
                ),
                N_("**Zilch**: a payer whose sum is exactly 21 pays double."),
            ),
            after=(
                N_(
                    "E.g. target 14, caller 2 off, others 4, 5, 6, 3, 2 off: caller +10; "
                    "others −2, −3, −4, −1, 0."
                ),
            ),
        ),
        Section(
            N_("Poker"),
            text=(
                N_(
                    "After a Hand or a call all keep 5 of their 7 (K-D8); the best hand "
                    "wins the prize (K-D4): five of a kind, straight flush, four of a "
                    "kind, full house, flush, straight, three of a kind, two pair, pair, "
                    "high card. Ace high or low in straights, no wrap; kickers decide, "
                    "suits never."
                ),
            ),
        ),
        Section(
            N_("Poker prize"),
            back=True,
            grid=Grid((N_("Turned card"), N_("Prize")), KVANTA_PRIZES, numeric_last=False),
            after=(
                N_(
                    "v: the value of the winner's five; vmax: the best value among the "
                    "hands shown. A round scores Flux, Hand, call, then prize."
                ),
            ),
        ),
        Section(
            N_("End of the game"),
            bullets=(
                N_("Dealing reaches the burned cards and someone is short of 7: the game stops."),
                N_("Everyone still got 7: one last poker round, then stop."),
                N_(
                    "Drawing in play reaches them: a final comparison with no caller (K-D6), no poker."
                ),
            ),
            after=(N_("Highest total wins (K-D7)."),),
        ),
    ),
    (
        Decision(
            "K-D1",
            N_(
                "When the best cards tie (same rank; for trumps, identical cards) they all "
                "drop out and the next best takes the trick; nothing left → play it again."
            ),
        ),
        Decision("K-D2", N_("On a Flux only the winner exchanges.")),
        Decision(
            "K-D3",
            N_(
                "Non-callers sharing the smallest distance all win, +5 each. If the caller "
                "is as close as the best of them, the round stays his."
            ),
        ),
        Decision(
            "K-D4", N_("Equal best poker hands cancel, again and again; all cancel → no prize.")
        ),
        Decision("K-D5", N_("An ace turned for the prize is worth 1.")),
        Decision(
            "K-D6",
            N_(
                "Final comparison: settled like a call, smallest distance wins, no "
                "bonuses; Zilch still doubles."
            ),
        ),
        Decision("K-D7", N_("Tied top totals cancel and the next highest wins; all equal → draw.")),
        Decision(
            "K-D8",
            N_(
                "Keep your strongest five; between equally strong fives the smaller value "
                "counts, but a J or Q prize's winner keeps the five paying him more."
            ),
        ),
        Decision(
            "K-D9",
            N_(
                "The burned cards are set out once per game; the game ends with no target "
                "roll, so only poker hands are compared."
            ),
        ),
        Decision(
            "K-D10",
            N_(
                "The deal goes clockwise; a round's turned card and the cards shown in it "
                "hold at most three of a kind."
            ),
        ),
    ),
)

# ---------------------------------------------------------------- Vežimas

VEZIMAS = RuleCard(
    "vezimas",
    (N_("2–4 players"), N_("24 cards: 9 to A"), N_("fewest carts wins")),
    (
        Section(
            N_("Setup"),
            text=(
                N_(
                    "Ranks 9 < 10 < J < Q < K < A. Deal out every card: 6 each for four "
                    "players, 8 for three, 12 for two."
                ),
            ),
        ),
        Section(
            N_("Personal trumps"),
            text=(
                N_(
                    "Whoever holds Q♣ in the first deal owns ♣; the others get their suits "
                    "clockwise after him (V-D1). Suits nobody owns are free. Trumps stay "
                    "for the whole session."
                ),
                N_(
                    "First lead: with four players the Q♣ holder, with two or three the "
                    "9♦ holder. Later deals: the last loser deals, his left-hand "
                    "neighbour leads (V-D2)."
                ),
            ),
        ),
        Section(
            N_("Play"),
            text=(
                N_(
                    "One face-up pile. Beat the card on top, then add one more for the "
                    "player after you to answer. If you cannot beat it you take the whole "
                    "pile, and the player after you opens a fresh one with whatever card "
                    "he likes."
                ),
            ),
        ),
        Section(
            N_("Beating the top card"),
            text=(
                N_("You own trump **T**; the next player still holding cards owns **N** (V-D3)."),
            ),
            steps=(
                N_("Top card is a **T**: only a higher **T**."),
                N_("Top card is an **N**: any **T**; a higher **N** will not do."),
                N_("Any other card: a higher card of its suit, or any **T**."),
            ),
            after=(
                N_(
                    "Unowned suits, and those of players who have gone out, are free "
                    "(rule 3). With two players your opponent is both before and after you."
                ),
            ),
        ),
        Section(
            N_("Going out"),
            text=(
                N_(
                    "No cards left: you leave the deal and your suit turns free. Went out "
                    "by beating? Then the following player lays any card: nothing to beat "
                    "(V-D5)."
                ),
                N_("The last player holding cards takes the **cart** (vežimas) and deals next."),
            ),
        ),
        Section(
            N_("Score"),
            back=True,
            text=(
                N_(
                    "One cart per lost deal; tally them. Whoever has the **fewest carts** "
                    "when you stop wins, the most carts lose (V-D4)."
                ),
                N_(
                    "Letters instead (V-D6): the loser of a deal writes the next letter of "
                    "V-E-Ž-I-M-A-S; whoever spells it all loses and the session is over."
                ),
            ),
        ),
    ),
    (
        Decision(
            "V-D1",
            N_(
                "Clockwise after the ♣ owner the players receive ♠, then ♥, then ♦; "
                "with 2–3 players the leftover suits stay free."
            ),
        ),
        Decision(
            "V-D2", N_("From the second deal the last loser deals; the player on his left leads.")
        ),
        Decision("V-D3", N_("The \u201cnext player\u201d is the next one still holding cards.")),
        Decision("V-D4", N_("Your score is your number of carts; fewest is best.")),
        Decision(
            "V-D5",
            N_("After a beat that empties a hand there is nothing to beat; an empty hand is out."),
        ),
        Decision(
            "V-D6",
            N_("House rule: letters of VEŽIMAS instead of carts; the full word loses and ends it."),
        ),
    ),
)

# ---------------------------------------------------------------- Pegs and Jokers

PEGS_CARDS: tuple[tuple[str, str], ...] = (
    ("A", N_("leave start, or 1 ahead")),
    ("K Q J", N_("leave start, or 10 ahead")),
    ("2 3 4 5 6 10", N_("its number of holes ahead")),
    ("7", N_("7 ahead, or shared by two different team pegs, both ahead")),
    ("8", N_("8 back, never off the track")),
    ("9", N_("9 ahead, or shared like a 7 (P-D3)")),
    (N_("Joker"), N_("jump to a track hole holding another colour and bump that peg (P-D4)")),
)

PEGS = RuleCard(
    "pegs",
    (
        N_("4, 6 or 8 players, two teams"),
        N_("3 decks + 6 jokers (8 players: 4 + 8)"),
        N_("5 pegs each"),
    ),
    (
        Section(
            N_("Setup"),
            text=(
                N_(
                    "Partners sit alternately: seats 1, 3, 5, 7 against 2, 4, 6, 8. "
                    "Everyone owns a colour: 5 pegs waiting in their start area. Each "
                    "player gets 5 cards; pick the first dealer at random, then the deal "
                    "moves left and turns go clockwise."
                ),
                N_(
                    "**Board** (P-D1): 18 holes per seat. Counting your side from 0, "
                    "hole 3 is your **in-spot** (home lane H1–H5 beyond it) and hole 8 "
                    "your **come-out** hole."
                ),
            ),
        ),
        Section(
            N_("Your turn"),
            text=(
                N_(
                    "Play one card to move pegs of your team (P-D2), then refill to 5. If "
                    "a non-joker in your hand can move, you **must** play such a card; if "
                    "none can, throw one away, draw and pass. You never have to play a joker."
                ),
            ),
        ),
        Section(
            N_("Cards"),
            grid=Grid((N_("Card"), N_("Move")), PEGS_CARDS, numeric_last=False),
        ),
        Section(
            N_("Moving"),
            back=True,
            bullets=(
                N_("Never pass or land on your own colour (P-D5); others may be passed."),
                N_(
                    "Land on an **opponent**: it goes back to start. On a **teammate**: "
                    "to its own in-spot — not if its colour is already there or it "
                    "stands on it (P-D6)."
                ),
                N_("Coming out: start → your come-out hole, blocked by your own colour."),
                N_(
                    "**Home**: a forward move past your in-spot may end in the lane on an "
                    "exact count (P-D7); in the lane only forward."
                ),
                N_(
                    "Overshot? Go round again, or back up with an 8: from the come-out "
                    "hole it lands 3 short of the in-spot."
                ),
                N_("Splits move part by part; both legal, the whole card used."),
            ),
        ),
        Section(
            N_("Winning"),
            text=(N_("The first team with every peg of every member home wins."),),
        ),
    ),
    (
        Decision(
            "P-D1",
            N_(
                "The loop has 18 holes per seat, numbered clockwise; in-spot and "
                "come-out hole are holes 3 and 8 of your side."
            ),
        ),
        Decision(
            "P-D2",
            N_(
                "Which team pegs you may move: any (Arizona), your partner's once all "
                "yours are home, or only your own."
            ),
        ),
        Decision(
            "P-D3",
            N_("The 9: forward, may split forward; or split one part back; or never split."),
        ),
        Decision(
            "P-D4",
            N_("A joker may take a track peg only when none of your movable pegs waits in start."),
        ),
        Decision("P-D5", N_("No peg passes or lands on its own colour, on track or in the lane.")),
        Decision(
            "P-D6",
            N_(
                "A teammate sent to its in-spot bumps any other colour standing there, by "
                "the same rules."
            ),
        ),
        Decision(
            "P-D7",
            N_("Going home is a choice: on an exact count you may enter, or carry on round."),
        ),
    ),
)


def card(slug: str) -> RuleCard:
    """The card of a game, where its record says (``Game.rule_card``); KeyError for
    an unknown slug or a game without a card."""
    reference = catalog.GAMES[slug].rule_card
    if not reference:
        raise KeyError(slug)
    return catalog.resolve(reference)


def __getattr__(name: str):
    if name == "CARDS":  # every registered game's card, by slug
        return {slug: card(slug) for slug, game in catalog.GAMES.items() if game.rule_card}
    raise AttributeError(name)


# ---------------------------------------------------------------- house rules


def _value_label(setting: catalog.Setting, value: object) -> str:
    if setting.kind == "bool":
        return N_("on") if value else N_("off")
    if setting.kind == "choice":
        return dict(setting.options).get(str(value), str(value))
    return str(value)


def _choices(setting: catalog.Setting) -> tuple[str, ...]:
    if setting.kind == "bool":
        return (N_("on"), N_("off"))
    return tuple(label for _value, label in setting.options)


def house_rules(game: catalog.Game, settings: dict | None = None) -> list[HouseRule]:
    """A table's settings as labelled lines (the defaults when ``settings`` is None)."""
    chosen = {**game.defaults(), **(settings or {})}
    return [
        HouseRule(
            label=s.label,
            value=_value_label(s, chosen[s.key]),
            decision=s.decision,
            help=s.help,
            is_default=chosen[s.key] == s.default,
            choices=_choices(s),
            default=_value_label(s, s.default),
        )
        for s in game.settings
    ]
